// Argument specs (see tool_args.h): the inputSchema they describe and the checks they make.
#include "mcp/tool_args.h"

#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "core/utf8.h"

namespace engram::mcp {
namespace {

using nlohmann::json;

std::string_view TypeName(ArgType type) {
  switch (type) {
    case ArgType::kString:
      return "string";
    case ArgType::kInteger:
      return "integer";
    case ArgType::kBoolean:
      return "boolean";
    case ArgType::kObject:
      return "object";
    case ArgType::kArray:
      return "array";
  }
  return "value";
}

}  // namespace

std::string_view JsonTypeName(const json& value) {
  switch (value.type()) {
    case json::value_t::null:
      return "null";
    case json::value_t::boolean:
      return "boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
      return "integer";
    case json::value_t::number_float:
      return "number";
    case json::value_t::string:
      return "string";
    case json::value_t::array:
      return "array";
    case json::value_t::object:
      return "object";
    default:
      return "value";
  }
}

// ---- JSON Schema builders ----------------------------------------------------------------------

io::Json TypeSchema(std::string_view type) {
  io::Json schema = io::Json::object();
  schema["type"] = type;
  return schema;
}

io::Json NullableString() {
  io::Json schema = io::Json::object();
  schema["type"] = io::Json::array({"string", "null"});
  return schema;
}

io::Json ObjectSchema(std::vector<std::pair<std::string_view, io::Json>> properties,
                      std::vector<std::string_view> required) {
  io::Json schema = io::Json::object();
  schema["type"] = "object";
  io::Json props = io::Json::object();
  for (auto& [name, property] : properties) props[std::string(name)] = std::move(property);
  schema["properties"] = std::move(props);
  io::Json names = io::Json::array();
  for (std::string_view name : required) names.push_back(name);
  schema["required"] = std::move(names);
  return schema;
}

io::Json ArrayOf(io::Json items) {
  io::Json schema = TypeSchema("array");
  schema["items"] = std::move(items);
  return schema;
}

io::Json InputSchema(const std::vector<ArgSpec>& args) {
  io::Json schema = io::Json::object();
  schema["type"] = "object";
  io::Json properties = io::Json::object();
  io::Json required = io::Json::array();
  for (const ArgSpec& arg : args) {
    io::Json property = TypeSchema(TypeName(arg.type));
    property["description"] = arg.description;
    switch (arg.type) {
      case ArgType::kString:
        if (arg.minimum > 0) property["minLength"] = arg.minimum;
        if (arg.maximum > 0) property["maxLength"] = arg.maximum;
        if (!arg.choices.empty()) {
          io::Json choices = io::Json::array();
          for (std::string_view choice : arg.choices) choices.push_back(choice);
          property["enum"] = std::move(choices);
        }
        break;
      case ArgType::kInteger:
        property["minimum"] = arg.minimum;
        if (arg.maximum > 0) property["maximum"] = arg.maximum;
        break;
      case ArgType::kBoolean:
        if (arg.must_be_true) property["const"] = true;
        break;
      case ArgType::kArray:
        if (arg.minimum > 0) property["minItems"] = arg.minimum;
        if (arg.maximum > 0) property["maxItems"] = arg.maximum;
        if (!arg.items.is_null()) property["items"] = arg.items;
        break;
      case ArgType::kObject:
        break;
    }
    properties[std::string(arg.name)] = std::move(property);
    if (arg.required) required.push_back(arg.name);
  }
  schema["properties"] = std::move(properties);
  schema["required"] = std::move(required);
  schema["additionalProperties"] = false;
  return schema;
}

// ---- argument checks -------------------------------------------------------------------------

Status ArgError(std::string_view name, std::string_view problem) {
  return Status::InvalidArgument("argument \"" + std::string(name) + "\" " + std::string(problem));
}

namespace {

Status CheckArg(const ArgSpec& arg, const json& value) {
  const std::string got = " (got " + std::string(JsonTypeName(value)) + ")";
  switch (arg.type) {
    case ArgType::kString: {
      if (!value.is_string()) return ArgError(arg.name, "must be a string" + got);
      const std::string& text = value.get_ref<const std::string&>();
      if (!core::IsValidUtf8(text)) return ArgError(arg.name, "is not valid UTF-8");
      if (static_cast<std::int64_t>(text.size()) < arg.minimum) {
        return ArgError(arg.name, arg.minimum == 1 ? "must not be empty"
                                                   : "must be at least " +
                                                         std::to_string(arg.minimum) + " bytes");
      }
      if (arg.maximum > 0 && static_cast<std::int64_t>(text.size()) > arg.maximum) {
        return ArgError(arg.name, "is " + std::to_string(text.size()) +
                                      " bytes long; the limit is " + std::to_string(arg.maximum));
      }
      if (!arg.choices.empty()) {
        std::string allowed;
        for (std::string_view choice : arg.choices) {
          if (text == choice) return Status::Ok();
          allowed += (allowed.empty() ? "" : ", ") + std::string(choice);
        }
        return ArgError(arg.name, "must be one of " + allowed);
      }
      return Status::Ok();
    }
    case ArgType::kInteger: {
      const std::string range = arg.maximum > 0 ? "between " + std::to_string(arg.minimum) +
                                                      " and " + std::to_string(arg.maximum)
                                                : ">= " + std::to_string(arg.minimum);
      if (!value.is_number_integer()) {
        return ArgError(arg.name, "must be a whole number " + range + got);
      }
      if (value.is_number_unsigned() &&
          value.get<std::uint64_t>() >
              static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
        return ArgError(arg.name, "must be a whole number " + range);
      }
      const std::int64_t number = value.get<std::int64_t>();
      if (number < arg.minimum || (arg.maximum > 0 && number > arg.maximum)) {
        return ArgError(arg.name,
                        "must be a whole number " + range + ", got " + std::to_string(number));
      }
      return Status::Ok();
    }
    case ArgType::kBoolean:
      if (!value.is_boolean()) return ArgError(arg.name, "must be true or false" + got);
      if (arg.must_be_true && !value.get<bool>()) {
        return ArgError(arg.name, "must be true to confirm; nothing was done");
      }
      return Status::Ok();
    case ArgType::kObject:
      if (!value.is_object()) return ArgError(arg.name, "must be an object" + got);
      return Status::Ok();
    case ArgType::kArray: {
      if (!value.is_array()) return ArgError(arg.name, "must be an array" + got);
      const auto count = static_cast<std::int64_t>(value.size());
      if (count < arg.minimum) {
        return ArgError(arg.name, "must hold at least " + std::to_string(arg.minimum) + " item" +
                                      (arg.minimum == 1 ? "" : "s"));
      }
      if (arg.maximum > 0 && count > arg.maximum) {
        return ArgError(arg.name, "holds " + std::to_string(count) + " items; the limit is " +
                                      std::to_string(arg.maximum));
      }
      return Status::Ok();
    }
  }
  return Status::Ok();
}

}  // namespace

Status CheckArgs(std::string_view tool, const std::vector<ArgSpec>& specs, const json& args) {
  if (!args.is_object()) {
    return Status::InvalidArgument("arguments must be an object (got " +
                                   std::string(JsonTypeName(args)) + ")");
  }
  for (const auto& [name, value] : args.items()) {
    bool known = false;
    for (const ArgSpec& arg : specs) known = known || arg.name == name;
    if (!known) {
      std::string allowed;
      for (const ArgSpec& arg : specs) {
        allowed += (allowed.empty() ? "" : ", ") + std::string(arg.name);
      }
      return Status::InvalidArgument(
          "unknown argument \"" + (core::IsValidUtf8(name) ? name : std::string("?")) + "\"; " +
          std::string(tool) + " takes " + (allowed.empty() ? "no arguments" : allowed));
    }
  }
  for (const ArgSpec& arg : specs) {
    const auto found = args.find(arg.name);
    if (found == args.end() || found->is_null()) {
      if (arg.required) return ArgError(arg.name, "is required");
      continue;
    }
    RETURN_IF_ERROR(CheckArg(arg, *found));
  }
  return Status::Ok();
}

std::string StringArg(const json& args, std::string_view name, std::string fallback) {
  const auto found = args.find(name);
  return found != args.end() && found->is_string() ? found->get<std::string>() : fallback;
}
std::int64_t IntArg(const json& args, std::string_view name, std::int64_t fallback) {
  const auto found = args.find(name);
  return found != args.end() && found->is_number_integer() ? found->get<std::int64_t>() : fallback;
}
bool BoolArg(const json& args, std::string_view name, bool fallback) {
  const auto found = args.find(name);
  return found != args.end() && found->is_boolean() ? found->get<bool>() : fallback;
}

}  // namespace engram::mcp
