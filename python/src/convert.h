// convert: conversions between engram's C++ values and Python objects for the `engram` module.
//
// Errors cross the boundary as StatusError (a C++ exception carrying an engram::Status), which
// the module turns into the engram.Error subclass of the status code; bad argument types are
// pybind11::type_error / value_error naming the argument.
#ifndef ENGRAM_PYTHON_SRC_CONVERT_H_
#define ENGRAM_PYTHON_SRC_CONVERT_H_

#include <pybind11/pybind11.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engram/status.h"
#include "engram/types.h"
#include "io/api_json.h"

namespace engram::python {

namespace py = pybind11;

// A non-OK engram::Status on its way to Python.
struct StatusError {
  Status status;
};

// Throws StatusError when `status` is not OK.
void ThrowIfError(const Status& status);

template <typename T>
T ValueOrThrow(StatusOr<T>&& result) {
  if (!result.ok()) throw StatusError{std::move(result).status()};
  return std::move(result).value();
}

// Registers the translator from StatusError to engram.errors.<Class>.
void RegisterStatusTranslator();

// A JSON value as plain Python objects (dict keeps the JSON key order).
py::object JsonToPython(const io::Json& json);

// A timezone-aware UTC datetime.datetime, or None.
py::object TimestampToPython(const std::optional<Timestamp>& time);
// A datetime (naive means UTC) or an ISO-8601 string; TypeError / InvalidArgument naming `name`.
Timestamp TimestampFromPython(const py::handle& value, std::string_view name);

// Text arguments: str (encoded as UTF-8) or bytes (passed as is; the engine checks UTF-8).
// TypeError naming `name` for anything else.
std::string TextFromPython(const py::handle& value, std::string_view name);

// A scope path from a str; TypeError naming `name`, InvalidArgument for a bad path.
Scope ScopeFromPython(const py::handle& value, std::string_view name);

// A non-negative int (not a bool); TypeError / ValueError naming `name`.
std::int64_t IndexFromPython(const py::handle& value, std::string_view name);

// A list of str from a list or tuple of str; TypeError naming `name`.
std::vector<std::string> StringsFromPython(const py::handle& value, std::string_view name);

// One turn from a dict with the JSONL fields (text, role, speaker, session_id, event_time,
// metadata) or from an engram.Turn; `where` names it in errors ("turns[2]").
Turn TurnFromPython(const py::handle& value, std::string_view where);

}  // namespace engram::python

#endif  // ENGRAM_PYTHON_SRC_CONVERT_H_
