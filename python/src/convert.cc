// convert: see convert.h.
#include "convert.h"

#include <Python.h>

#include <string>
#include <utility>

#include "io/turns_jsonl.h"

namespace engram::python {
namespace {

// The engram.errors class for a status code.
const char* ErrorClassName(StatusCode code) {
  switch (code) {
    case StatusCode::kInvalidArgument:
      return "InvalidArgument";
    case StatusCode::kNotFound:
      return "NotFound";
    case StatusCode::kAlreadyExists:
      return "AlreadyExists";
    case StatusCode::kFailedPrecondition:
      return "FailedPrecondition";
    case StatusCode::kCorruption:
      return "Corruption";
    case StatusCode::kUnavailable:
      return "Unavailable";
    case StatusCode::kDeadlineExceeded:
      return "DeadlineExceeded";
    case StatusCode::kInternal:
      return "Internal";
    case StatusCode::kResourceExhausted:
      return "ResourceExhausted";
    case StatusCode::kOk:
      break;
  }
  return "Error";
}

std::string TypeName(const py::handle& value) {
  return py::str(py::type::handle_of(value).attr("__name__"));
}

// Decodes UTF-8 the engine produced; bytes that are not UTF-8 (never expected) become U+FFFD
// rather than an exception in the middle of a result.
py::str Utf8(const std::string& text) {
  PyObject* decoded =
      PyUnicode_DecodeUTF8(text.data(), static_cast<Py_ssize_t>(text.size()), "replace");
  if (decoded == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(decoded);
}

}  // namespace

void ThrowIfError(const Status& status) {
  if (!status.ok()) throw StatusError{status};
}

void RegisterStatusTranslator() {
  py::register_exception_translator([](std::exception_ptr pointer) {
    if (!pointer) return;
    try {
      std::rethrow_exception(pointer);
    } catch (const StatusError& error) {
      py::object errors = py::module_::import("engram.errors");
      py::object type = errors.attr(ErrorClassName(error.status.code()));
      py::object instance = type(Utf8(error.status.message()));
      PyErr_SetObject(type.ptr(), instance.ptr());
    }
  });
}

py::object JsonToPython(const io::Json& json) {
  switch (json.type()) {
    case io::Json::value_t::null:
    case io::Json::value_t::discarded:
      return py::none();
    case io::Json::value_t::boolean:
      return py::bool_(json.get<bool>());
    case io::Json::value_t::number_integer:
      return py::int_(json.get<std::int64_t>());
    case io::Json::value_t::number_unsigned:
      return py::int_(json.get<std::uint64_t>());
    case io::Json::value_t::number_float:
      return py::float_(json.get<double>());
    case io::Json::value_t::string:
      return Utf8(json.get_ref<const std::string&>());
    case io::Json::value_t::array: {
      py::list list;
      for (const io::Json& element : json) list.append(JsonToPython(element));
      return list;
    }
    case io::Json::value_t::object: {
      py::dict dict;
      for (const auto& [key, element] : json.items()) dict[Utf8(key)] = JsonToPython(element);
      return dict;
    }
    case io::Json::value_t::binary:
      break;
  }
  return py::none();
}

py::object TimestampToPython(const std::optional<Timestamp>& time) {
  if (!time.has_value()) return py::none();
  py::module_ datetime = py::module_::import("datetime");
  py::object epoch = datetime.attr("datetime")(
      1970, 1, 1, py::arg("tzinfo") = datetime.attr("timezone").attr("utc"));
  return epoch + datetime.attr("timedelta")(py::arg("microseconds") = time->micros);
}

Timestamp TimestampFromPython(const py::handle& value, std::string_view name) {
  py::module_ datetime = py::module_::import("datetime");
  if (py::isinstance(value, datetime.attr("datetime"))) {
    py::object time = py::reinterpret_borrow<py::object>(value);
    if (time.attr("tzinfo").is_none()) {
      time = time.attr("replace")(py::arg("tzinfo") = datetime.attr("timezone").attr("utc"));
    }
    StatusOr<Timestamp> parsed =
        ParseTimestamp(py::str(time.attr("isoformat")()).cast<std::string>());
    if (!parsed.ok()) {
      throw StatusError{
          Status::InvalidArgument(std::string(name) + ": " + parsed.status().message())};
    }
    return *parsed;
  }
  if (py::isinstance<py::str>(value)) {
    StatusOr<Timestamp> parsed = ParseTimestamp(value.cast<std::string>());
    if (!parsed.ok()) {
      throw StatusError{
          Status::InvalidArgument(std::string(name) + ": " + parsed.status().message())};
    }
    return *parsed;
  }
  throw py::type_error(std::string(name) + " must be a datetime or an ISO-8601 str, got " +
                       TypeName(value));
}

std::string TextFromPython(const py::handle& value, std::string_view name) {
  if (py::isinstance<py::bytes>(value)) return value.cast<std::string>();
  if (py::isinstance<py::str>(value)) {
    Py_ssize_t size = 0;
    const char* data = PyUnicode_AsUTF8AndSize(value.ptr(), &size);
    if (data == nullptr) {
      PyErr_Clear();
      throw StatusError{Status::InvalidArgument(
          std::string(name) + " is not valid Unicode (it holds a lone surrogate)")};
    }
    return std::string(data, static_cast<std::size_t>(size));
  }
  throw py::type_error(std::string(name) + " must be str or bytes, got " + TypeName(value));
}

Scope ScopeFromPython(const py::handle& value, std::string_view name) {
  if (!py::isinstance<py::str>(value)) {
    throw py::type_error(std::string(name) + " must be a str such as \"user:alice\", got " +
                         TypeName(value));
  }
  StatusOr<Scope> scope = Scope::Parse(TextFromPython(value, name));
  if (!scope.ok()) {
    throw StatusError{Status::InvalidArgument(std::string(name) + ": " + scope.status().message())};
  }
  return *std::move(scope);
}

std::int64_t IndexFromPython(const py::handle& value, std::string_view name) {
  if (py::isinstance<py::bool_>(value) || !py::isinstance<py::int_>(value)) {
    throw py::type_error(std::string(name) + " must be an int, got " + TypeName(value));
  }
  int overflow = 0;
  const long long number = PyLong_AsLongLongAndOverflow(value.ptr(), &overflow);
  const std::string shown = py::repr(value).cast<std::string>();
  if (overflow < 0 || (overflow == 0 && number < 0)) {
    throw py::value_error(std::string(name) + " must be >= 0, got " + shown);
  }
  if (overflow > 0 || number > (std::int64_t{1} << 62)) {
    throw py::value_error(std::string(name) + " is too large: " + shown);
  }
  return number;
}

std::vector<std::string> StringsFromPython(const py::handle& value, std::string_view name) {
  if (!py::isinstance<py::list>(value) && !py::isinstance<py::tuple>(value)) {
    throw py::type_error(std::string(name) + " must be a list of str, got " + TypeName(value));
  }
  std::vector<std::string> strings;
  for (const py::handle element : value) {
    if (!py::isinstance<py::str>(element)) {
      throw py::type_error(std::string(name) + " must be a list of str, found " +
                           TypeName(element));
    }
    strings.push_back(TextFromPython(element, name));
  }
  return strings;
}

Turn TurnFromPython(const py::handle& value, std::string_view where) {
  if (py::isinstance<Turn>(value)) return value.cast<Turn>();
  if (!py::isinstance<py::dict>(value)) {
    throw py::type_error(std::string(where) + " must be a dict or an engram.Turn, got " +
                         TypeName(value));
  }
  // The dict goes through the JSONL turn parser, so Python accepts exactly the JSONL fields and
  // values. Two Python conveniences are resolved first: bytes text (kept as is; the engine checks
  // its UTF-8) and datetime event times.
  py::dict fields;
  std::optional<std::string> raw_text;
  for (const auto [key, field] : py::reinterpret_borrow<py::dict>(value)) {
    if (!py::isinstance<py::str>(key)) {
      throw py::type_error(std::string(where) + ": keys must be str, got " + TypeName(key));
    }
    const std::string name = key.cast<std::string>();
    if (name == "text" && py::isinstance<py::bytes>(field)) {
      raw_text = field.cast<std::string>();
      fields[key] = py::str("-");
    } else if (py::isinstance<py::str>(field)) {
      TextFromPython(field, std::string(where) + "." + name);  // rejects lone surrogates
      fields[key] = field;
    } else if (name == "event_time" && !field.is_none()) {
      const std::optional<Timestamp> time =
          TimestampFromPython(field, std::string(where) + ".event_time");
      fields[key] = py::str(FormatTimestamp(*time));
    } else {
      fields[key] = field;
    }
  }
  std::string json_text;
  try {
    json_text =
        py::module_::import("json")
            .attr("dumps")(fields, py::arg("ensure_ascii") = true, py::arg("allow_nan") = false)
            .cast<std::string>();
  } catch (py::error_already_set& error) {
    if (error.matches(PyExc_TypeError) || error.matches(PyExc_ValueError)) {
      throw py::type_error(std::string(where) + ": " + py::str(error.value()).cast<std::string>());
    }
    throw;
  }
  StatusOr<Turn> turn = io::ParseTurnJson(json_text);
  if (!turn.ok()) {
    throw StatusError{Status::InvalidArgument(std::string(where) + ": " + turn.status().message())};
  }
  if (raw_text.has_value()) turn->text = *std::move(raw_text);
  return *std::move(turn);
}

}  // namespace engram::python
