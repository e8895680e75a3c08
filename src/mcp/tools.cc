// The eleven tools (see tools.h): one table of argument specs per tool, from which both the
// inputSchema and the argument checks come, and one function per tool that runs it.
#include "mcp/tools.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/ids.h"
#include "core/utf8.h"
#include "engram/clock.h"
#include "io/api_json.h"
#include "io/scope_records.h"
#include "server/scope_views.h"

namespace engram::mcp {
namespace {

using nlohmann::json;

// Longest scope path an argument may hold (Scope::kMaxDepth segments of kMaxNameBytes, with
// their kinds and separators).
constexpr std::int64_t kMaxScopeBytes = 2048;
constexpr std::int64_t kMaxReasonBytes = 1024;  // Engine::Amend's limit
constexpr std::int64_t kMaxSpeakerBytes = 1024;
constexpr std::int64_t kMaxQueryBytes = 16 * 1024;
constexpr std::int64_t kMaxTokenBudget = 1'000'000;

enum class ArgType { kString, kInteger, kBoolean, kObject, kArray };

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

// What a tool's right is checked on before it runs.
enum class Target {
  kNone,    // nothing (memory_list_scopes filters what it lists instead)
  kScope,   // the `scope` argument, or the default scope when the call names none
  kMemory,  // the scope of the memory `id` names
};

// One call, with its target resolved and the caller's right on it checked.
struct Call {
  const json& args;
  Engine& engine;
  const auth::Access& access;
  const ServerOptions& options;
  Scope scope;    // Target::kScope
  Memory memory;  // Target::kMemory
};

using Runner = StatusOr<io::Json> (*)(const Call& call);

struct ToolSpec {
  std::string_view name;
  std::string_view title;
  std::string description;
  std::vector<ArgSpec> args;
  Target target = Target::kNone;
  auth::Right right = auth::Right::kRead;
  bool read_only = false;
  bool destructive = false;
  bool idempotent = false;
  // The shape of structuredContent. Null for a tool whose result is its text item alone
  // (memory_recall): then it has neither outputSchema nor structuredContent.
  io::Json output_schema;
  Runner run = nullptr;
};

// ---- schemas ---------------------------------------------------------------------------------

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

io::Json MemorySchema() {
  return ObjectSchema({{"id", TypeSchema("string")},
                       {"kind", TypeSchema("string")},
                       {"scope", TypeSchema("string")},
                       {"sequence", TypeSchema("integer")},
                       {"status", TypeSchema("string")},
                       {"role", TypeSchema("string")},
                       {"speaker", TypeSchema("string")},
                       {"session_id", TypeSchema("string")},
                       {"event_time", NullableString()},
                       {"text", TypeSchema("string")},
                       {"valid_from", NullableString()},
                       {"valid_to", NullableString()},
                       {"ingested_at", NullableString()},
                       {"updated_at", NullableString()},
                       {"provenance", ArrayOf(TypeSchema("string"))}},
                      {"id", "kind", "scope", "sequence", "status", "text"});
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

Status CheckArgs(const ToolSpec& tool, const json& args) {
  if (!args.is_object()) {
    return Status::InvalidArgument("arguments must be an object (got " +
                                   std::string(JsonTypeName(args)) + ")");
  }
  for (const auto& [name, value] : args.items()) {
    bool known = false;
    for (const ArgSpec& arg : tool.args) known = known || arg.name == name;
    if (!known) {
      std::string allowed;
      for (const ArgSpec& arg : tool.args) {
        allowed += (allowed.empty() ? "" : ", ") + std::string(arg.name);
      }
      return Status::InvalidArgument(
          "unknown argument \"" + (core::IsValidUtf8(name) ? name : std::string("?")) + "\"; " +
          std::string(tool.name) + " takes " + (allowed.empty() ? "no arguments" : allowed));
    }
  }
  for (const ArgSpec& arg : tool.args) {
    const auto found = args.find(arg.name);
    if (found == args.end() || found->is_null()) {
      if (arg.required) return ArgError(arg.name, "is required");
      continue;
    }
    RETURN_IF_ERROR(CheckArg(arg, *found));
  }
  return Status::Ok();
}

// Accessors for arguments CheckArgs has accepted.
std::string StringArg(const json& args, std::string_view name, std::string fallback = "") {
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

// ---- access ----------------------------------------------------------------------------------

// A tool call the caller's rights do not allow. engram's StatusCode has no code for it (the
// engine never refuses a caller; REST answers 403 PERMISSION_DENIED), so it travels apart from
// Status and becomes a result of its own.
struct Denial {
  auth::Right right;
  std::string scope;
};

std::string DenialMessage(const Denial& denial) {
  return "this caller has no " + std::string(auth::RightName(denial.right)) + " right on scope " +
         denial.scope;
}

// The scope a call names, or the default scope when it names none.
StatusOr<Scope> ScopeArg(const json& args, const std::optional<Scope>& default_scope) {
  const auto found = args.find("scope");
  if ((found == args.end() || found->is_null()) && default_scope) return *default_scope;
  StatusOr<Scope> scope = Scope::Parse(StringArg(args, "scope"));
  if (!scope.ok()) return ArgError("scope", "is not a valid scope: " + scope.status().message());
  return scope;
}

// The memory `id` names, if the caller may read it. A memory the caller may not read is "not
// found", so ids reveal nothing about other tenants.
StatusOr<Memory> MemoryArg(const json& args, Engine& engine, const auth::Access& access) {
  const std::string id = StringArg(args, "id");
  if (!core::LooksLikeId(id)) {
    return ArgError("id", "must be a memory id: 32 lowercase hex digits");
  }
  StatusOr<Memory> memory = engine.Get(id);
  if ((!memory.ok() && memory.status().code() == StatusCode::kNotFound) ||
      (memory.ok() && !access.AllowsPath(memory->scope, auth::Right::kRead))) {
    return Status::NotFound("no memory with id " + id);
  }
  return memory;
}

// ---- the tools -------------------------------------------------------------------------------

constexpr std::string_view kScopeHelp =
    "Scope: kind:name segments joined by '/', kinds user, agent, app, run, world "
    "(e.g. user:alice or app:crm/user:alice/run:42).";

// The `scope` argument: optional when there is a default scope.
ArgSpec ScopeSpec(const std::optional<Scope>& default_scope) {
  std::string description(kScopeHelp);
  if (default_scope) description += " Default: " + default_scope->ToString() + ".";
  return {.name = "scope",
          .type = ArgType::kString,
          .required = !default_scope,
          .description = std::move(description),
          .minimum = 1,
          .maximum = kMaxScopeBytes};
}

// The `scope` of a tool that wipes a whole scope: required even with a default, so the model
// names what it wipes.
ArgSpec WipedScopeSpec(const std::optional<Scope>& default_scope) {
  ArgSpec spec = ScopeSpec(std::nullopt);
  if (default_scope) {
    spec.description += " Required even though the other tools default to " +
                        default_scope->ToString() + ": name the scope this wipes.";
  }
  return spec;
}

ArgSpec IdSpec(std::string_view description) {
  return {.name = "id",
          .type = ArgType::kString,
          .required = true,
          .description = std::string(description),
          .minimum = 1,
          .maximum = 256};  // the exact form (32 hex digits) is checked with a clearer message
}

ArgSpec ReasonSpec() {
  return {.name = "reason",
          .type = ArgType::kString,
          .description = "Why, in a few words; kept in the memory's history.",
          .maximum = kMaxReasonBytes};
}

// One item of memory_write's `turns`.
io::Json TurnItemSchema() {
  io::Json schema = io::Json::object();
  schema["type"] = "object";
  io::Json properties = io::Json::object();
  properties["text"] = TypeSchema("string");
  properties["text"]["description"] = "What was said or observed, verbatim.";
  properties["text"]["minLength"] = 1;
  properties["role"] = TypeSchema("string");
  properties["role"]["enum"] = io::Json::array({"user", "assistant", "system", "tool"});
  properties["role"]["description"] = "Who produced the turn. Default: user.";
  properties["speaker"] = TypeSchema("string");
  properties["speaker"]["description"] = "The speaker's name, e.g. Alice.";
  properties["session_id"] = TypeSchema("string");
  properties["session_id"]["description"] = "The conversation session the turn belongs to.";
  properties["event_time"] = TypeSchema("string");
  properties["event_time"]["description"] =
      "When it happened, ISO-8601 (2024-05-01T10:00:00Z). Default: now.";
  properties["metadata"] = TypeSchema("object");
  properties["metadata"]["description"] = "Free-form JSON object stored with the turn.";
  schema["properties"] = std::move(properties);
  schema["required"] = io::Json::array({"text"});
  schema["additionalProperties"] = false;
  return schema;
}

StatusOr<Turn> ParseTurn(const json& item, std::size_t index) {
  const std::string where = "turns[" + std::to_string(index) + "]";
  if (!item.is_object()) {
    return Status::InvalidArgument(where + " must be an object with at least \"text\" (got " +
                                   std::string(JsonTypeName(item)) + ")");
  }
  Turn turn;
  for (const auto& [key, value] : item.items()) {
    const std::string field = where + "." + (core::IsValidUtf8(key) ? key : std::string("?"));
    if (key == "metadata") {
      if (!value.is_object()) return Status::InvalidArgument(field + " must be an object");
      turn.metadata_json = value.dump();
      continue;
    }
    if (key != "text" && key != "role" && key != "speaker" && key != "session_id" &&
        key != "event_time") {
      return Status::InvalidArgument(
          "unknown field " + field +
          "; a turn takes text, role, speaker, session_id, event_time, metadata");
    }
    if (!value.is_string()) {
      return Status::InvalidArgument(field + " must be a string (got " +
                                     std::string(JsonTypeName(value)) + ")");
    }
    const std::string& text = value.get_ref<const std::string&>();
    if (!core::IsValidUtf8(text)) return Status::InvalidArgument(field + " is not valid UTF-8");
    if (key == "text") {
      turn.text = text;
    } else if (key == "role") {
      StatusOr<Role> role = ParseRole(text);
      if (!role.ok()) {
        return Status::InvalidArgument(field + " must be one of user, assistant, system, tool");
      }
      turn.role = *role;
    } else if (key == "speaker") {
      if (text.size() > static_cast<std::size_t>(kMaxSpeakerBytes)) {
        return Status::InvalidArgument(field + " is longer than " +
                                       std::to_string(kMaxSpeakerBytes) + " bytes");
      }
      turn.speaker = text;
    } else if (key == "session_id") {
      turn.session_id = text;
    } else {
      StatusOr<Timestamp> time = ParseTimestamp(text);
      if (!time.ok()) {
        return Status::InvalidArgument(field +
                                       " is not an ISO-8601 time: " + time.status().message());
      }
      turn.event_time = *time;
    }
  }
  if (turn.text.empty()) return Status::InvalidArgument(where + ".text is required");
  return turn;
}

StatusOr<io::Json> RunWrite(const Call& call) {
  const Scope& scope = call.scope;
  std::vector<Turn> turns;
  const json& items = call.args.at("turns");
  for (std::size_t index = 0; index < items.size(); ++index) {
    ASSIGN_OR_RETURN(Turn turn, ParseTurn(items[index], index));
    turns.push_back(std::move(turn));
  }
  // Writes do not wait for derivation unless asked (DESIGN §4).
  RememberOptions options{.wait = RememberWait::kIndexed};
  if (const std::string wait = StringArg(call.args, "wait"); !wait.empty()) {
    ASSIGN_OR_RETURN(options.wait, ParseRememberWait(wait));
  }
  ASSIGN_OR_RETURN(const RememberResult result, call.engine.Remember(scope, turns, options));
  io::Json out = io::Json::object();
  out["scope"] = scope.ToString();
  const io::Json fields = io::ToJson(result);
  for (const auto& [key, value] : fields.items()) out[key] = value;
  return out;
}

// True when no scope `scope` exists: nothing was ever written to it or to a scope nested in it.
StatusOr<bool> IsUnknownScope(Engine& engine, const Scope& scope) {
  ASSIGN_OR_RETURN(const std::vector<ScopeInfo> scopes, engine.ListScopes());
  const std::string path = scope.ToString();
  for (const ScopeInfo& info : scopes) {
    if (info.scope == path) return false;
  }
  return true;
}

// Scores as a model reads them: three decimals tell the items apart.
double RoundedScore(double score) { return std::round(score * 1000.0) / 1000.0; }

// memory_recall's result, sized to the token budget: the packed context once, and each packed
// item as a reference a later call can use (memory_read, memory_amend, memory_retire) without
// its text, which the context shows: [id, score], best first, and a third element
// {kind, scope, provenance, excerpt} with what differs from a turn of the recalled scope that is
// its own evidence (a fact's kind and the turns it rests on, a nested scope, a turn the context
// shows only part of). Arrays, not objects, because the references are most of what the result
// adds to the context. `warnings` (what the recall could not do) when there are any; with
// `explain`, each item's route scores and adjustments and all the diagnostics. `note` (when
// not empty) says why there are no items.
io::Json RecallView(const Scope& scope, const ReadResult& result, bool explain, std::string note) {
  const std::string path = scope.ToString();
  io::Json out = io::Json::object();
  out["scope"] = path;
  out["policy"] = result.policy;
  out["mode"] = result.mode;
  out["context"] = result.context;
  out["answer_instructions"] = result.answer_instructions;
  out["context_tokens"] = result.diagnostics.context_tokens;
  io::Json items = io::Json::array();
  for (const RecallItem& item : result.items) {
    io::Json details = io::Json::object();
    if (item.kind != NodeKind::kTurn) details["kind"] = NodeKindName(item.kind);
    if (item.scope != path) details["scope"] = item.scope;
    if (!(item.provenance.size() == 1 && item.provenance[0] == item.id)) {
      details["provenance"] = item.provenance;
    }
    if (item.excerpt) details["excerpt"] = true;
    // The claims the context notes beside the item, by id (memory_read shows them).
    if (item.superseded_by.has_value()) details["superseded_by"] = item.superseded_by->id;
    if (!item.conflicts.empty()) {
      io::Json conflicts = io::Json::array();
      for (const RelatedClaim& conflict : item.conflicts) conflicts.push_back(conflict.id);
      details["conflicts"] = std::move(conflicts);
    }
    if (explain) {
      const io::Json full = io::ToJson(item);
      for (const char* field : {"fused_score", "routes", "adjustments"}) {
        details[field] = full[field];
      }
    }
    io::Json ref = io::Json::array({item.id, RoundedScore(item.score)});
    if (!details.empty()) ref.push_back(std::move(details));
    items.push_back(std::move(ref));
  }
  out["items"] = std::move(items);
  if (!result.chat.empty()) {
    // The context shows each line's text; these say which memory and turns it rests on.
    io::Json chat = io::Json::array();
    for (const ChatLine& line : result.chat) {
      chat.push_back(io::Json{{"section", line.section},
                              {"person", line.person},
                              {"memory_id", line.memory_id},
                              {"evidence", line.evidence}});
    }
    out["chat"] = std::move(chat);
  }
  // Whether the context holds what was asked (read/sufficiency.h): the verdict and its reasons.
  out["sufficiency"] = result.sufficiency.verdict;
  if (!result.sufficiency.reasons.empty()) {
    out["sufficiency_reasons"] = result.sufficiency.reasons;
  }
  if (!note.empty()) out["note"] = std::move(note);
  if (!result.diagnostics.warnings.empty()) out["warnings"] = result.diagnostics.warnings;
  if (explain) out["diagnostics"] = io::ToJson(result.diagnostics);
  return out;
}

StatusOr<io::Json> RunRecall(const Call& call) {
  const Scope& scope = call.scope;
  RecallQuery query{.text = StringArg(call.args, "query")};
  RecallOptions options;
  for (const auto& [name, field] :
       {std::pair{"query_time", &query.query_time}, std::pair{"valid_at", &options.valid_at},
        std::pair{"known_at", &options.known_at}}) {
    const std::string text = StringArg(call.args, name);
    if (text.empty()) continue;
    StatusOr<Timestamp> time = ParseTimestamp(text);
    if (!time.ok()) return ArgError(name, "is not an ISO-8601 time");
    *field = *time;
  }
  options.k = static_cast<std::size_t>(IntArg(call.args, "k", 0));
  options.token_budget = static_cast<std::size_t>(IntArg(call.args, "token_budget", 0));
  options.include_retired = BoolArg(call.args, "include_retired", false);
  ASSIGN_OR_RETURN(options.policy, ParseAnswerPolicy(StringArg(call.args, "policy", "balanced")));
  ASSIGN_OR_RETURN(options.mode, ParseContextMode(StringArg(call.args, "mode", "evidence")));
  if (const std::string packing = StringArg(call.args, "packing"); !packing.empty()) {
    StatusOr<bool> by_value = io::ParsePacking(packing);
    if (!by_value.ok()) return ArgError("packing", "must be value or rank");
    options.pack_by_value = *by_value;
  }
  const bool explain = BoolArg(call.args, "explain", false);
  StatusOr<ReadResult> result = call.engine.Recall(scope, query, options);
  if (!result.ok() && result.status().code() == StatusCode::kNotFound) {
    // A scope nothing was written to yet is not an error for a model: it has nothing to recall.
    ASSIGN_OR_RETURN(const bool unknown, IsUnknownScope(call.engine, scope));
    if (unknown) {
      ReadResult empty;
      empty.policy = AnswerPolicyName(options.policy);
      empty.mode = ContextModeName(options.mode);
      return RecallView(scope, empty, explain, "nothing stored yet in scope " + scope.ToString());
    }
  }
  if (!result.ok()) return result.status();
  std::string note;
  if (result->items.empty()) {
    note = "nothing stored in scope " + scope.ToString() + " matched the query";
  }
  return RecallView(scope, *result, explain, std::move(note));
}

StatusOr<io::Json> RunList(const Call& call) {
  const Scope& scope = call.scope;
  ListOptions options;
  options.limit = static_cast<std::size_t>(IntArg(call.args, "limit", 100));
  options.after_sequence = IntArg(call.args, "after", 0);
  options.include_retired = BoolArg(call.args, "include_retired", true);
  const std::string kind = StringArg(call.args, "kind", "turn");
  if (kind == "all") {
    options.kind = std::nullopt;
  } else {
    ASSIGN_OR_RETURN(options.kind, ParseNodeKind(kind));
  }
  StatusOr<io::MemoryPage> listed = io::ListPage(call.engine, scope, options);
  std::string note;
  if (!listed.ok() && listed.status().code() == StatusCode::kNotFound) {
    // As for recall: a scope nothing was written to yet has nothing to list, no error.
    ASSIGN_OR_RETURN(const bool unknown, IsUnknownScope(call.engine, scope));
    if (unknown) {
      listed = io::MemoryPage{};
      note = "nothing stored yet in scope " + scope.ToString();
    }
  }
  ASSIGN_OR_RETURN(const io::MemoryPage page, std::move(listed));
  io::Json out = io::Json::object();
  out["scope"] = scope.ToString();
  out["memories"] = io::Json::array();
  for (const Memory& memory : page.memories) out["memories"].push_back(io::ToJson(memory));
  // Pass next_after as `after` for the next page; null when this page was the last.
  out["next_after"] = page.next_after ? io::Json(*page.next_after) : io::Json(nullptr);
  if (!note.empty()) out["note"] = std::move(note);
  return out;
}

StatusOr<io::Json> RunRead(const Call& call) {
  const Memory& memory = call.memory;
  io::Json out = io::Json::object();
  out["memory"] = io::ToJson(memory);
  if (BoolArg(call.args, "links", false)) {
    ASSIGN_OR_RETURN(const std::vector<Link> links, call.engine.Links(memory.id));
    io::Json entries = io::Json::array();
    for (const Link& link : links) {
      // An edge to a memory the caller may not read is left out, like the memory itself.
      const std::string& other = link.src == memory.id ? link.dst : link.src;
      StatusOr<Memory> other_memory = call.engine.Get(other);
      if (!other_memory.ok() || !call.access.AllowsPath(other_memory->scope, auth::Right::kRead)) {
        continue;
      }
      io::Json entry = io::Json::object();
      entry["id"] = link.id;
      entry["type"] = link.type;
      entry["src"] = link.src;
      entry["dst"] = link.dst;
      entry["status"] = link.status;
      entry["attrs"] = io::MetadataToJson(link.attrs_json);
      entries.push_back(std::move(entry));
    }
    out["links"] = std::move(entries);
  }
  if (BoolArg(call.args, "history", false)) {
    ASSIGN_OR_RETURN(const std::vector<HistoryEvent> history, call.engine.History(memory.id));
    out["history"] = io::Json::array();
    std::map<std::string, bool> readable;  // related id -> the caller may read it
    for (const HistoryEvent& event : history) {
      // An event relating to a memory the caller may not read (a same_as to an entity of an
      // enclosing scope, say) would reveal that memory's id: it is left out, as over REST.
      if (!event.related_id.empty()) {
        auto [known, inserted] = readable.try_emplace(event.related_id, false);
        if (inserted) {
          StatusOr<Memory> related = call.engine.Get(event.related_id);
          known->second =
              related.ok() && call.access.AllowsPath(related->scope, auth::Right::kRead);
        }
        if (!known->second) continue;
      }
      out["history"].push_back(io::ToJson(event));
    }
  }
  return out;
}

StatusOr<io::Json> RunAmend(const Call& call) {
  const Memory& memory = call.memory;
  Turn replacement;
  replacement.text = StringArg(call.args, "text");
  replacement.role = memory.role;
  replacement.speaker = StringArg(call.args, "speaker");
  ASSIGN_OR_RETURN(const AmendResult result,
                   call.engine.Amend(memory.id, replacement, StringArg(call.args, "reason")));
  io::Json out = io::Json::object();
  out["id"] = result.id;
  out["superseded_id"] = result.superseded_id;
  out["sequence"] = result.sequence;
  out["scope"] = memory.scope;
  return out;
}

StatusOr<io::Json> RunRetire(const Call& call) {
  const Memory& memory = call.memory;
  RETURN_IF_ERROR(call.engine.Retire(memory.id, StringArg(call.args, "reason")));
  ASSIGN_OR_RETURN(const Memory retired, call.engine.Get(memory.id));
  io::Json out = io::Json::object();
  out["memory"] = io::ToJson(retired);
  return out;
}

StatusOr<io::Json> RunRetireAll(const Call& call) {
  const Scope& scope = call.scope;
  ASSIGN_OR_RETURN(const std::size_t retired, call.engine.RetireAll(scope));
  io::Json out = io::Json::object();
  out["scope"] = scope.ToString();
  out["retired"] = retired;
  return out;
}

StatusOr<io::Json> RunPurgeScope(const Call& call) {
  const Scope& scope = call.scope;
  ASSIGN_OR_RETURN(const EraseResult result, call.engine.Erase(scope));
  io::Json out = io::Json::object();
  out["scope"] = scope.ToString();
  const io::Json fields = io::ToJson(result);
  for (const auto& [key, value] : fields.items()) out[key] = value;
  return out;
}

StatusOr<io::Json> RunListScopes(const Call& call) {
  ASSIGN_OR_RETURN(const std::vector<ScopeInfo> scopes, call.engine.ListScopes());
  io::Json out = io::Json::object();
  out["scopes"] = io::Json::array();
  for (const ScopeInfo& info : scopes) {
    if (call.access.AllowsPath(info.scope, auth::Right::kRead)) {
      out["scopes"].push_back(io::ToJson(info));
    }
  }
  return out;
}

StatusOr<io::Json> RunConsolidate(const Call& call) {
  const Scope& scope = call.scope;
  ASSIGN_OR_RETURN(const ConsolidateResult result, call.engine.Consolidate(scope));
  return server::ConsolidateResultView(scope, result);
}

StatusOr<io::Json> RunStructure(const Call& call) {
  const Scope& scope = call.scope;
  const std::string what = StringArg(call.args, "what");
  const bool all = BoolArg(call.args, "all", false);
  io::Json view;
  if (what == "foresight") {
    Timestamp at = SystemClock()->Now();
    if (const std::string text = StringArg(call.args, "at"); !text.empty()) {
      StatusOr<Timestamp> parsed = ParseTimestamp(text);
      if (!parsed.ok()) {
        return ArgError("at", "is not an ISO-8601 time: " + parsed.status().message());
      }
      at = *parsed;
    }
    ASSIGN_OR_RETURN(view, server::ForesightView(call.engine, scope, at, all));
  } else {
    const NodeKind kind = what == "episodes" ? NodeKind::kEpisode
                          : what == "scenes" ? NodeKind::kScene
                                             : NodeKind::kProfile;
    ASSIGN_OR_RETURN(view, server::ConsolidatedView(call.engine, scope, kind, all));
  }
  view["what"] = what;
  return view;
}

// The tools, for a caller whose calls default to `default_scope` (none: scope is required).
std::vector<ToolSpec> BuildTools(const ServerOptions& options,
                                 const std::optional<Scope>& default_scope) {
  std::vector<ToolSpec> tools;
  tools.push_back(
      {.name = "memory_write",
       .title = "Write memories",
       .description =
           "Stores conversation turns or observations verbatim in a scope, in order, all or "
           "none. Returns one memory id per turn.",
       .args = {ScopeSpec(default_scope),
                {.name = "turns",
                 .type = ArgType::kArray,
                 .required = true,
                 .description = "The turns to store, oldest first.",
                 .minimum = 1,
                 .maximum = static_cast<std::int64_t>(options.max_turns_per_write),
                 .items = TurnItemSchema()},
                {.name = "wait",
                 .description =
                     "When to return: \"indexed\" (default: the turns are stored and found by "
                     "keyword search; embeddings and derived facts follow in the background) or "
                     "\"derived\" (after embedding and derivation too).",
                 .choices = {"durable", "indexed", "derived"}}},
       .target = Target::kScope,
       .right = auth::Right::kWrite,
       .output_schema = ObjectSchema({{"scope", TypeSchema("string")},
                                      {"ids", ArrayOf(TypeSchema("string"))},
                                      {"first_sequence", TypeSchema("integer")},
                                      {"last_sequence", TypeSchema("integer")},
                                      {"already_stored", ArrayOf(TypeSchema("integer"))}},
                                     {"scope", "ids", "first_sequence", "last_sequence"}),
       .run = RunWrite});
  tools.push_back(
      {.name = "memory_recall",
       .title = "Recall memories",
       .description =
           "Finds what a scope (and the scopes nested in it) remembers about a question. "
           "Answers one JSON text sized to the token budget: `context` (the evidence to answer "
           "from, each line under the date it was recorded), `answer_instructions`, and `items`: "
           "the memories the context shows, best first, as references for memory_read, "
           "memory_amend and memory_retire: [id, score], with a third element {kind, scope, "
           "provenance: the turn ids it rests on, excerpt, superseded_by / conflicts: the ids "
           "of the claims the context notes beside it} for one that is not simply a turn of "
           "the recalled scope. `sufficiency` (sufficient / partial / insufficient, with "
           "`sufficiency_reasons`) says whether the context holds what was asked. A scope with "
           "nothing stored yet answers no items and a `note` saying so; `warnings` say what the "
           "recall could not do.",
       .args = {ScopeSpec(default_scope),
                {.name = "query",
                 .type = ArgType::kString,
                 .required = true,
                 .description = "The question, in natural language.",
                 .minimum = 1,
                 .maximum = kMaxQueryBytes},
                {.name = "k",
                 .type = ArgType::kInteger,
                 .description = "Items returned at most. Default: the configured value.",
                 .minimum = 1,
                 .maximum = static_cast<std::int64_t>(options.max_recall_k)},
                {.name = "token_budget",
                 .type = ArgType::kInteger,
                 .description = "Token budget of the context. Default: the configured value.",
                 .minimum = 1,
                 .maximum = kMaxTokenBudget},
                {.name = "policy",
                 .type = ArgType::kString,
                 .description = "Answer policy for the instructions. Default: balanced.",
                 .choices = {"strict", "balanced", "advanced"}},
                {.name = "explain",
                 .type = ArgType::kBoolean,
                 .description = "Include per-route scores and all diagnostics (their "
                                "warnings, what this recall could not do, are always there). "
                                "Default: false."},
                {.name = "include_retired",
                 .type = ArgType::kBoolean,
                 .description = "Also return retired and superseded memories. Default: false."},
                {.name = "query_time",
                 .type = ArgType::kString,
                 .description = "'Now' for the question, ISO-8601. Default: the current time.",
                 .maximum = 64},
                {.name = "valid_at",
                 .type = ArgType::kString,
                 .description = "What was true then: only memories valid at this ISO-8601 time, "
                                "superseded ones included. Default: unset.",
                 .maximum = 64},
                {.name = "known_at",
                 .type = ArgType::kString,
                 .description = "What engram knew then: only memories ingested by this ISO-8601 "
                                "time, with the status they had then. Default: unset.",
                 .maximum = 64},
                {.name = "mode",
                 .type = ArgType::kString,
                 .description = "chat: the person's profile and the valid foresight before the "
                                "evidence, each line with its evidence turn ids. Default: "
                                "evidence.",
                 .choices = {"evidence", "chat"}},
                {.name = "packing",
                 .type = ArgType::kString,
                 .description = "How the context is chosen: value (by value per token above a "
                                "score floor, k an upper bound) or rank (in rank order, at most "
                                "k). Default: the server's config (value).",
                 .choices = {"value", "rank"}}},
       .target = Target::kScope,
       .right = auth::Right::kRead,
       .read_only = true,
       .idempotent = true,
       .run = RunRecall});
  tools.push_back(
      {.name = "memory_list",
       .title = "List memories",
       .description =
           "Lists the memories of exactly one scope in sequence order, a page at a time: pass "
           "the returned next_after as `after` for the next page. A scope with nothing stored "
           "yet lists no memories, with a `note` saying so.",
       .args = {ScopeSpec(default_scope),
                {.name = "kind",
                 .type = ArgType::kString,
                 .description = "Kind of memory listed, or all. Default: turn.",
                 .choices = {"turn", "signal", "entity", "fact", "episode", "scene", "profile",
                             "summary", "all"}},
                {.name = "limit",
                 .type = ArgType::kInteger,
                 .description = "Memories returned at most. Default: 100.",
                 .minimum = 1,
                 .maximum = static_cast<std::int64_t>(options.max_list_limit)},
                {.name = "after",
                 .type = ArgType::kInteger,
                 .description = "Only memories with a greater sequence number. Default: 0.",
                 .minimum = 0},
                {.name = "include_retired",
                 .type = ArgType::kBoolean,
                 .description = "Also list retired and superseded memories. Default: true."}},
       .target = Target::kScope,
       .right = auth::Right::kRead,
       .read_only = true,
       .idempotent = true,
       .output_schema = ObjectSchema({{"scope", TypeSchema("string")},
                                      {"memories", ArrayOf(MemorySchema())},
                                      {"next_after",
                                       [] {
                                         io::Json schema = io::Json::object();
                                         schema["type"] = io::Json::array({"integer", "null"});
                                         return schema;
                                       }()},
                                      {"note", TypeSchema("string")}},
                                     {"scope", "memories", "next_after"}),
       .run = RunList});
  tools.push_back(
      {.name = "memory_read",
       .title = "Read a memory",
       .description = "Reads one memory by id, optionally with its links (derived facts, entities, "
                      "times, supersessions) and its history of changes.",
       .args = {IdSpec("The memory's id (32 hex digits)."),
                {.name = "links",
                 .type = ArgType::kBoolean,
                 .description = "Include the memory's edges. Default: false."},
                {.name = "history",
                 .type = ArgType::kBoolean,
                 .description = "Include the memory's history. Default: false."}},
       .target = Target::kMemory,
       .right = auth::Right::kRead,
       .read_only = true,
       .idempotent = true,
       .output_schema = ObjectSchema({{"memory", MemorySchema()},
                                      {"links", ArrayOf(TypeSchema("object"))},
                                      {"history", ArrayOf(TypeSchema("object"))}},
                                     {"memory"}),
       .run = RunRead});
  tools.push_back(
      {.name = "memory_amend",
       .title = "Amend a memory",
       .description =
           "Corrects a stored turn: stores the new text as a new turn that supersedes the old "
           "one. The old turn is kept, superseded, with its history; recall shows the new one.",
       .args = {IdSpec("The id of the turn to correct."),
                {.name = "text",
                 .type = ArgType::kString,
                 .required = true,
                 .description = "The corrected text, in full.",
                 .minimum = 1},
                ReasonSpec(),
                {.name = "speaker",
                 .type = ArgType::kString,
                 .description = "The speaker, when it changes. Default: the old turn's.",
                 .maximum = kMaxSpeakerBytes}},
       .target = Target::kMemory,
       .right = auth::Right::kWrite,
       .destructive = true,
       .output_schema = ObjectSchema({{"id", TypeSchema("string")},
                                      {"superseded_id", TypeSchema("string")},
                                      {"sequence", TypeSchema("integer")},
                                      {"scope", TypeSchema("string")}},
                                     {"id", "superseded_id", "sequence", "scope"}),
       .run = RunAmend});
  tools.push_back({.name = "memory_retire",
                   .title = "Retire a memory",
                   .description =
                       "Closes a memory's validity now: it stays in history and lists but recall "
                       "no longer returns it.",
                   .args = {IdSpec("The id of the memory to retire."), ReasonSpec()},
                   .target = Target::kMemory,
                   .right = auth::Right::kWrite,
                   .destructive = true,
                   .idempotent = true,
                   .output_schema = ObjectSchema({{"memory", MemorySchema()}}, {"memory"}),
                   .run = RunRetire});
  tools.push_back(
      {.name = "memory_retire_all",
       .title = "Retire a scope's memories",
       .description = "Retires every active memory of a scope and of the scopes nested in it. "
                      "Returns how many were retired.",
       .args = {WipedScopeSpec(default_scope)},
       .target = Target::kScope,
       .right = auth::Right::kWrite,
       .destructive = true,
       .idempotent = true,
       .output_schema =
           ObjectSchema({{"scope", TypeSchema("string")}, {"retired", TypeSchema("integer")}},
                        {"scope", "retired"}),
       .run = RunRetireAll});
  tools.push_back(
      {.name = "memory_purge_scope",
       .title = "Erase a scope",
       .description =
           "Permanently deletes a scope, the scopes nested in it and everything they hold. "
           "Cannot be undone; set confirm to true.",
       .args = {WipedScopeSpec(default_scope),
                {.name = "confirm",
                 .type = ArgType::kBoolean,
                 .required = true,
                 .description = "Must be true: the erase cannot be undone.",
                 .must_be_true = true}},
       .target = Target::kScope,
       .right = auth::Right::kErase,
       .destructive = true,
       .idempotent = true,
       .output_schema = ObjectSchema({{"scope", TypeSchema("string")},
                                      {"scopes", TypeSchema("integer")},
                                      {"nodes", TypeSchema("integer")},
                                      {"edges", TypeSchema("integer")}},
                                     {"scope", "scopes", "nodes", "edges"}),
       .run = RunPurgeScope});
  tools.push_back(
      {.name = "memory_list_scopes",
       .title = "List scopes",
       .description = "Lists the scopes this caller may read, with how many memories each holds.",
       .args = {},
       .target = Target::kNone,
       .right = auth::Right::kRead,
       .read_only = true,
       .idempotent = true,
       .output_schema =
           ObjectSchema({{"scopes", ArrayOf(ObjectSchema({{"scope", TypeSchema("string")},
                                                          {"memories", TypeSchema("integer")},
                                                          {"last_sequence", TypeSchema("integer")}},
                                                         {"scope", "memories"}))}},
                        {"scopes"}),
       .run = RunListScopes});
  tools.push_back(
      {.name = "memory_consolidate",
       .title = "Consolidate a scope",
       .description =
           "Builds a scope's episodes (its turns cut at sessions, time gaps and topic shifts, each "
           "with a narrative quoting its turns), scenes (episodes clustered by theme) and each "
           "person's profile, and stores them. Idempotent: a second run writes nothing. Read them "
           "with memory_structure.",
       .args = {ScopeSpec(default_scope)},
       .target = Target::kScope,
       .right = auth::Right::kWrite,
       .idempotent = true,
       .output_schema = ObjectSchema(
           {{"scope", TypeSchema("string")},
            {"turns", TypeSchema("integer")},
            {"episodes", TypeSchema("integer")},
            {"scenes", TypeSchema("integer")},
            {"profiles", TypeSchema("integer")},
            {"written", TypeSchema("integer")},
            {"superseded", TypeSchema("integer")}},
           {"scope", "turns", "episodes", "scenes", "profiles", "written", "superseded"}),
       .run = RunConsolidate});
  tools.push_back(
      {.name = "memory_structure",
       .title = "Read a scope's episodes, scenes, profile or foresight",
       .description =
           "Reads what memory_consolidate stored for a scope: its episodes, scenes, or each "
           "person's profile (current facts with their history, and traits), every entry with "
           "the turn ids behind it; or the plans and temporary states (foresight) valid at a "
           "time.",
       .args = {ScopeSpec(default_scope),
                {.name = "what",
                 .type = ArgType::kString,
                 .required = true,
                 .description = "episodes, scenes, profile or foresight.",
                 .choices = {"episodes", "scenes", "profile", "foresight"}},
                {.name = "all",
                 .type = ArgType::kBoolean,
                 .description = "Also superseded and retired entries (foresight: also upcoming "
                                "and expired ones). Default false."},
                {.name = "at",
                 .type = ArgType::kString,
                 .description = "foresight: the ISO-8601 time it must be valid at. Default now.",
                 .maximum = 64}},
       .target = Target::kScope,
       .right = auth::Right::kRead,
       .read_only = true,
       .idempotent = true,
       .output_schema = ObjectSchema({{"scope", TypeSchema("string")},
                                      {"what", TypeSchema("string")},
                                      {"count", TypeSchema("integer")},
                                      {"episodes", ArrayOf(TypeSchema("object"))},
                                      {"scenes", ArrayOf(TypeSchema("object"))},
                                      {"people", ArrayOf(TypeSchema("object"))},
                                      {"foresight", ArrayOf(TypeSchema("object"))}},
                                     {"scope", "what", "count"}),
       .run = RunStructure});
  return tools;
}

const ToolSpec* FindTool(const std::vector<ToolSpec>& tools, std::string_view name) {
  for (const ToolSpec& tool : tools) {
    if (tool.name == name) return &tool;
  }
  return nullptr;
}

io::Json TextContent(std::string text) {
  io::Json item = io::Json::object();
  item["type"] = "text";
  item["text"] = std::move(text);
  return io::Json::array({std::move(item)});
}

io::Json ErrorResult(std::string_view code, std::string_view message) {
  io::Json result = io::Json::object();
  result["content"] = TextContent(std::string(code) + ": " + std::string(message));
  result["isError"] = true;
  return result;
}

io::Json ErrorResult(const Status& status) {
  return ErrorResult(StatusCodeName(status.code()), status.message());
}

// A missing right: a tool execution error a model can report (the MCP spec keeps JSON-RPC
// errors for malformed requests), with the code of REST's 403.
io::Json DeniedResult(const Denial& denial) {
  return ErrorResult("PERMISSION_DENIED", DenialMessage(denial));
}

bool HasOptionalScope(const ToolSpec& tool) {
  for (const ArgSpec& arg : tool.args) {
    if (arg.name == "scope") return !arg.required;
  }
  return false;
}

}  // namespace

io::Json ToolDefinitions(const ServerOptions& options, const auth::Access& access) {
  const std::optional<Scope> default_scope = DefaultScope(options, access);
  io::Json list = io::Json::array();
  for (const ToolSpec& tool : BuildTools(options, default_scope)) {
    io::Json entry = io::Json::object();
    entry["name"] = tool.name;
    entry["title"] = tool.title;
    std::string description = tool.description;
    if (HasOptionalScope(tool)) {
      description +=
          " Works in scope " + default_scope->ToString() + " unless `scope` names another.";
    }
    entry["description"] = std::move(description);
    entry["inputSchema"] = InputSchema(tool.args);
    if (!tool.output_schema.is_null()) entry["outputSchema"] = tool.output_schema;
    io::Json annotations = io::Json::object();
    annotations["title"] = tool.title;
    annotations["readOnlyHint"] = tool.read_only;
    annotations["destructiveHint"] = tool.destructive;
    annotations["idempotentHint"] = tool.idempotent;
    annotations["openWorldHint"] = false;
    entry["annotations"] = std::move(annotations);
    list.push_back(std::move(entry));
  }
  return list;
}

bool IsKnownTool(std::string_view name) {
  static const std::vector<ToolSpec> tools = BuildTools(ServerOptions{}, std::nullopt);
  return FindTool(tools, name) != nullptr;
}

io::Json CallTool(std::string_view name, const json& arguments, Engine& engine,
                  const auth::Access& access, const ServerOptions& options) {
  const std::optional<Scope> default_scope = DefaultScope(options, access);
  const std::vector<ToolSpec> tools = BuildTools(options, default_scope);
  const ToolSpec* tool = FindTool(tools, name);
  if (tool == nullptr) {
    return ErrorResult(Status::InvalidArgument("unknown tool " + std::string(name)));
  }
  if (Status valid = CheckArgs(*tool, arguments); !valid.ok()) return ErrorResult(valid);
  Call call{.args = arguments, .engine = engine, .access = access, .options = options};
  // The right the tool needs, on what it works on, before anything runs.
  switch (tool->target) {
    case Target::kNone:
      break;
    case Target::kScope: {
      StatusOr<Scope> scope = ScopeArg(arguments, default_scope);
      if (!scope.ok()) return ErrorResult(scope.status());
      if (!access.Allows(*scope, tool->right)) {
        return DeniedResult({.right = tool->right, .scope = scope->ToString()});
      }
      call.scope = *std::move(scope);
      break;
    }
    case Target::kMemory: {
      StatusOr<Memory> memory = MemoryArg(arguments, engine, access);
      if (!memory.ok()) return ErrorResult(memory.status());
      if (!access.AllowsPath(memory->scope, tool->right)) {
        return DeniedResult({.right = tool->right, .scope = memory->scope});
      }
      call.memory = *std::move(memory);
      break;
    }
  }
  StatusOr<io::Json> output = tool->run(call);
  if (!output.ok()) return ErrorResult(output.status());
  io::Json result = io::Json::object();
  result["content"] = TextContent(io::Dump(*output));
  if (!tool->output_schema.is_null()) result["structuredContent"] = *std::move(output);
  result["isError"] = false;
  return result;
}

}  // namespace engram::mcp
