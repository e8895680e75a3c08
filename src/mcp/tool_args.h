// A tool's arguments as data: one ArgSpec per argument (its JSON type, bounds, allowed values and
// description) yields both the argument's part of the tool's inputSchema and the check a call's
// value passes before the tool runs, so the schema a client sees and what the server accepts
// cannot drift apart. Also the small JSON Schema builders the tool table writes its output
// schemas with, and accessors for arguments already checked.
//
//   const std::vector<ArgSpec> args = {{.name = "query", .type = ArgType::kString,
//                                       .required = true, .description = "The question.",
//                                       .minimum = 1, .maximum = 16 * 1024}};
//   io::Json schema = InputSchema(args);  // {"type": "object", "properties": {"query": {...}},
//                                         //  "required": ["query"], "additionalProperties": false}
//   RETURN_IF_ERROR(CheckArgs("memory_recall", args, arguments));  // kInvalidArgument naming it
//   const std::string query = StringArg(arguments, "query");
//
// Internal to engram_mcp (tools.cc, tool_handlers.cc). Thread-safety: pure functions.
#ifndef ENGRAM_MCP_TOOL_ARGS_H_
#define ENGRAM_MCP_TOOL_ARGS_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engram/status.h"
#include "io/api_json.h"

namespace engram::mcp {

enum class ArgType { kString, kInteger, kBoolean, kObject, kArray };

// One argument of a tool: its JSON type, bounds and description. The inputSchema and the checks
// both come from it.
struct ArgSpec {
  std::string_view name;
  ArgType type = ArgType::kString;
  bool required = false;
  std::string description;
  std::int64_t minimum = 0;  // integers: smallest value; strings and arrays: fewest bytes / items
  std::int64_t maximum = 0;  // integers: largest value; strings: most bytes; arrays: most items
  std::vector<std::string_view> choices;  // strings: the allowed values (empty: any)
  bool must_be_true = false;              // booleans: only `true` is accepted
  io::Json items = nullptr;               // arrays: the schema of one item
};

// ---- JSON Schema builders

// {"type": type}.
io::Json TypeSchema(std::string_view type);
// {"type": ["string", "null"]}.
io::Json NullableString();
// An object with these properties, the named ones required.
io::Json ObjectSchema(std::vector<std::pair<std::string_view, io::Json>> properties,
                      std::vector<std::string_view> required);
// An array of `items`.
io::Json ArrayOf(io::Json items);

// A tool's inputSchema: an object of `args`, no other property allowed.
io::Json InputSchema(const std::vector<ArgSpec>& args);

// ---- argument checks

// The JSON type of `value` as a message names it: "null", "boolean", "integer", "number",
// "string", "array", "object".
std::string_view JsonTypeName(const nlohmann::json& value);

// kInvalidArgument: argument "name" <problem>.
Status ArgError(std::string_view name, std::string_view problem);

// Checks the arguments of a call to the tool `tool` against its specs: an object, no argument
// the tool does not take, each required one present (null counts as absent), each value of its
// type, within its bounds and among its choices. kInvalidArgument naming the first problem.
Status CheckArgs(std::string_view tool, const std::vector<ArgSpec>& specs,
                 const nlohmann::json& args);

// Accessors for arguments CheckArgs has accepted: the value, or `fallback` when it is absent.
std::string StringArg(const nlohmann::json& args, std::string_view name, std::string fallback = "");
std::int64_t IntArg(const nlohmann::json& args, std::string_view name, std::int64_t fallback);
bool BoolArg(const nlohmann::json& args, std::string_view name, bool fallback);

}  // namespace engram::mcp

#endif  // ENGRAM_MCP_TOOL_ARGS_H_
