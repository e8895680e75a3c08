// mem0-compatible REST handlers (see mem0_api.h and docs/MEM0.md).
#include "server/mem0_api.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <exception>
#include <set>
#include <string_view>
#include <tuple>
#include <utility>

#include "core/sha256.h"

namespace engram::server {
namespace {

using io::Json;
using nlohmann::json;

// Returns the error response a helper produced, if any.
#define MEM0_RETURN_IF_ERROR(expr)                     \
  do {                                                 \
    if (std::optional<ApiResponse> failed_ = (expr)) { \
      return *std::move(failed_);                      \
    }                                                  \
  } while (false)

// The token budget of a mem0 search: high enough that packing never drops a ranked item
// (mem0 returns top_k memories, not a context of a given size).
constexpr std::size_t kUnboundedTokenBudget = std::size_t{1} << 30;
// Longest chain of updates History and GetMemory follow.
constexpr std::size_t kMaxUpdateChain = 256;

constexpr std::string_view kMissingIdentifier =
    "At least one identifier (user_id, agent_id, run_id) is required.";
constexpr std::string_view kMemoryNotFound = "Memory not found";
constexpr std::string_view kSupportedOperators =
    "eq, ne, gt, gte, lt, lte, in, nin, contains, icontains, AND, OR, NOT, \"*\"";

// ---------------------------------------------------------------------------------------------
// Error bodies: FastAPI's shapes.

ApiResponse Detail(int status, std::string message) {
  ApiResponse response;
  response.status = status;
  response.body = Json::object();
  response.body["detail"] = std::move(message);
  return response;
}

// A 422 validation error: {"detail": [{"loc": [...], "msg": "...", "type": "..."}]}.
ApiResponse Invalid(std::vector<Json> loc, std::string message, std::string type) {
  Json error = Json::object();
  error["loc"] = Json(std::move(loc));
  error["msg"] = std::move(message);
  error["type"] = std::move(type);
  ApiResponse response;
  response.status = 422;
  response.body = Json::object();
  response.body["detail"] = Json::array({std::move(error)});
  return response;
}

ApiResponse InvalidField(std::string_view field, std::string message, std::string type) {
  return Invalid({"body", std::string(field)}, std::string(field) + ": " + message,
                 std::move(type));
}

// A handler's last resort: an exception (from the JSON library, an allocation) is a 500.
ApiResponse Unexpected(const std::exception& error) {
  return Detail(500, std::string("internal error: ") + error.what());
}

// An engine failure as {"detail": message} with HttpStatusFor's status.
ApiResponse EngineError(const Status& status) {
  return Detail(HttpStatusFor(status.code()), status.message());
}

std::string_view TypeName(const json& value) {
  switch (value.type()) {
    case json::value_t::null:
      return "null";
    case json::value_t::object:
      return "object";
    case json::value_t::array:
      return "array";
    case json::value_t::string:
      return "string";
    case json::value_t::boolean:
      return "boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
    case json::value_t::number_float:
      return "number";
    default:
      return "value";
  }
}

// ---------------------------------------------------------------------------------------------
// Request bodies.

// Parses the body as a JSON object, whatever its Content-Type: 413 when too large, 422 when not
// JSON or not an object.
std::optional<ApiResponse> ParseObjectBody(const ApiRequest& request, std::size_t max_bytes,
                                           json* body) {
  if (request.body.size() > max_bytes) {
    return Detail(413, "request body is " + std::to_string(request.body.size()) +
                           " bytes; at most " + std::to_string(max_bytes) + " are accepted");
  }
  StatusOr<json> parsed = Status::Internal("unparsed");
  try {
    parsed = ParseJsonBody(request.body);
  } catch (const nlohmann::json::exception& error) {
    // The parser reports a number beyond double's range ("1e400") as out_of_range, not as a
    // parse error.
    return Invalid({"body"}, std::string("request body is not valid JSON: ") + error.what(),
                   "json_invalid");
  }
  if (!parsed.ok()) {
    std::string message = parsed.status().message();
    // Read as JSON whatever the Content-Type (curl's -d sends a form type): say so, naming it.
    if (message.rfind("request body is not valid JSON", 0) == 0) {
      message += " (a request body is read as JSON whatever its Content-Type header says; form "
                 "fields and plain text are not read)";
    }
    return Invalid({"body"}, std::move(message), "json_invalid");
  }
  if (!parsed->is_object()) {
    return Invalid({"body"},
                   "request body must be a JSON object, got " + std::string(TypeName(*parsed)),
                   "dict_type");
  }
  *body = std::move(parsed).value();
  return std::nullopt;
}

std::string JoinNames(const std::set<std::string_view>& names) {
  std::string joined;
  for (std::string_view name : names) {
    if (!joined.empty()) joined += ", ";
    joined += name;
  }
  return joined;
}

// Refuses a key that is neither `known` nor `ignored` (mem0 options engram accepts and does not
// need), naming it.
std::optional<ApiResponse> CheckFields(const json& body, const std::set<std::string_view>& known,
                                       const std::set<std::string_view>& ignored) {
  for (const auto& [key, value] : body.items()) {
    if (known.contains(key) || ignored.contains(key)) continue;
    return InvalidField(key, "unknown field (accepted: " + JoinNames(known) + ")",
                        "extra_forbidden");
  }
  return std::nullopt;
}

// An optional string field: absent and null leave `out` empty.
std::optional<ApiResponse> OptionalString(const json& body, std::string_view field,
                                          std::optional<std::string>* out) {
  auto found = body.find(std::string(field));
  if (found == body.end() || found->is_null()) return std::nullopt;
  if (!found->is_string()) {
    return InvalidField(field, "must be a string, got " + std::string(TypeName(*found)),
                        "string_type");
  }
  *out = found->get<std::string>();
  return std::nullopt;
}

// An optional positive integer field no larger than `max`.
std::optional<ApiResponse> OptionalCount(const json& body, std::string_view field, std::size_t max,
                                         std::optional<std::size_t>* out) {
  auto found = body.find(std::string(field));
  if (found == body.end() || found->is_null()) return std::nullopt;
  const std::string range = "an integer from 1 to " + std::to_string(max);
  if (found->is_number_unsigned()) {
    const std::uint64_t value = found->get<std::uint64_t>();
    if (value >= 1 && value <= max) {
      *out = static_cast<std::size_t>(value);
      return std::nullopt;
    }
    return InvalidField(field, "must be " + range + ", got " + found->dump(), "less_than_equal");
  }
  if (found->is_number_integer()) {
    return InvalidField(field, "must be " + range + ", got " + found->dump(), "greater_than_equal");
  }
  return InvalidField(field, "must be " + range + ", got " + std::string(TypeName(*found)),
                      "int_type");
}

// ---------------------------------------------------------------------------------------------
// Identifiers and scopes.

using Identifiers = Mem0Identifiers;

// mem0 treats an empty identifier as absent.
void DropEmpty(Identifiers* ids) {
  for (std::optional<std::string>* id : {&ids->user_id, &ids->agent_id, &ids->run_id}) {
    if (id->has_value() && (*id)->empty()) id->reset();
  }
}

std::optional<ApiResponse> IdentifiersFromBody(const json& body, Identifiers* ids) {
  MEM0_RETURN_IF_ERROR(OptionalString(body, "user_id", &ids->user_id));
  MEM0_RETURN_IF_ERROR(OptionalString(body, "agent_id", &ids->agent_id));
  MEM0_RETURN_IF_ERROR(OptionalString(body, "run_id", &ids->run_id));
  DropEmpty(ids);
  return std::nullopt;
}

Identifiers IdentifiersFromQuery(const ApiRequest& request) {
  Identifiers ids;
  ids.user_id = QueryValue(request, "user_id");
  ids.agent_id = QueryValue(request, "agent_id");
  ids.run_id = QueryValue(request, "run_id");
  DropEmpty(&ids);
  return ids;
}

// The scope the identifiers name: user, then agent, then run, nested in that order. 400 when
// none is given or one is not a valid scope name (naming the field).
std::optional<ApiResponse> ScopeOf(const Identifiers& ids, Scope* scope) {
  if (ids.empty()) return Detail(400, std::string(kMissingIdentifier));
  const std::pair<const std::optional<std::string>*, ScopeKind> parts[] = {
      {&ids.user_id, ScopeKind::kUser},
      {&ids.agent_id, ScopeKind::kAgent},
      {&ids.run_id, ScopeKind::kRun},
  };
  Scope built;
  for (const auto& [id, kind] : parts) {
    if (!id->has_value()) continue;
    const std::string field = std::string(ScopeKindName(kind)) + "_id";
    if (Status valid = Scope(kind, **id).Validate(); !valid.ok()) {
      return Detail(400, field + " is not usable as a scope name: " + valid.message());
    }
    built = built.empty() ? Scope(kind, **id) : built.Child(kind, **id);
  }
  *scope = std::move(built);
  return std::nullopt;
}

// Whether the scope at `scope_path` holds memories of `wanted`: each identifier `wanted` gives is
// the scope's (Mem0ScopeIdentifiers), whatever else it has. So {agent_id: bot} matches
// `agent:bot`, `user:alice/agent:bot` and `user:bob/agent:bot/run:7`, as a field match in mem0.
bool ScopeHasIdentifiers(std::string_view scope_path, const Identifiers& wanted) {
  const Identifiers have = Mem0ScopeIdentifiers(scope_path);
  return (!wanted.user_id || have.user_id == wanted.user_id) &&
         (!wanted.agent_id || have.agent_id == wanted.agent_id) &&
         (!wanted.run_id || have.run_id == wanted.run_id);
}

// The stored scopes holding memories of the identifiers of `named` (the scope they name; its
// names are normalised as stored ones are), in path order. Every scope nested in one of them is
// one of them too.
StatusOr<std::vector<Scope>> ScopesWithIdentifiers(Engine& engine, const Scope& named) {
  const Identifiers wanted = Mem0ScopeIdentifiers(named.ToString());
  ASSIGN_OR_RETURN(std::vector<ScopeInfo> scopes, engine.ListScopes());
  std::vector<Scope> matching;
  for (const ScopeInfo& info : scopes) {
    if (!ScopeHasIdentifiers(info.scope, wanted)) continue;
    StatusOr<Scope> scope = Scope::Parse(info.scope);
    if (scope.ok()) matching.push_back(*std::move(scope));
  }
  std::sort(matching.begin(), matching.end(),
            [](const Scope& a, const Scope& b) { return a.ToString() < b.ToString(); });
  return matching;
}

std::optional<ApiResponse> RequireRight(const ApiRequest& request, const Scope& scope,
                                        auth::Right right) {
  if (request.access != nullptr && request.access->Allows(scope, right)) return std::nullopt;
  return Detail(403, "this API key has no " + std::string(auth::RightName(right)) +
                         " right on scope " + scope.ToString());
}

bool MayRead(const ApiRequest& request, std::string_view scope_path) {
  return request.access != nullptr && request.access->AllowsPath(scope_path, auth::Right::kRead);
}

// ---------------------------------------------------------------------------------------------
// Response items.

// mem0's `hash`: engram's is SHA-256 of the text (first 128 bits), not mem0's MD5. Opaque.
std::string TextHash(std::string_view text) { return core::Sha256Hex(text).substr(0, 32); }

// A memory in mem0's shape; `score` for search results. engram's own fields go under "engram".
Json Mem0Item(const Memory& memory, std::optional<double> score) {
  Json item = Json::object();
  item["id"] = memory.id;
  item["memory"] = memory.text;
  item["hash"] = TextHash(memory.text);
  item["metadata"] = io::MetadataToJson(memory.metadata_json);
  if (score.has_value()) item["score"] = std::isfinite(*score) ? Json(*score) : Json(nullptr);
  item["created_at"] = FormatTimestamp(memory.ingested_at);
  item["updated_at"] = FormatTimestamp(memory.updated_at);
  const Identifiers ids = Mem0ScopeIdentifiers(memory.scope);
  if (ids.user_id) item["user_id"] = *ids.user_id;
  if (ids.agent_id) item["agent_id"] = *ids.agent_id;
  if (ids.run_id) item["run_id"] = *ids.run_id;
  if (!memory.speaker.empty()) item["actor_id"] = memory.speaker;
  item["role"] = RoleName(memory.role);
  Json engram = Json::object();
  engram["kind"] = NodeKindName(memory.kind);
  engram["scope"] = memory.scope;
  engram["status"] = NodeStatusName(memory.status);
  engram["sequence"] = memory.sequence;
  engram["session_id"] = memory.session_id;
  engram["event_time"] = io::TimestampToJson(memory.event_time);
  Json provenance = Json::array();
  for (const std::string& id : memory.provenance) provenance.push_back(id);
  engram["provenance"] = std::move(provenance);
  item["engram"] = std::move(engram);
  return item;
}

// ---------------------------------------------------------------------------------------------
// Filters: mem0's operators over a memory's metadata and its mem0 fields (Mem0Filter).

enum class FilterOp { kEq, kNe, kGt, kGte, kLt, kLte, kIn, kNin, kContains, kIcontains, kExists };

std::optional<FilterOp> ParseFilterOp(std::string_view name) {
  static const std::pair<std::string_view, FilterOp> kOps[] = {
      {"eq", FilterOp::kEq},
      {"ne", FilterOp::kNe},
      {"gt", FilterOp::kGt},
      {"gte", FilterOp::kGte},
      {"lt", FilterOp::kLt},
      {"lte", FilterOp::kLte},
      {"in", FilterOp::kIn},
      {"nin", FilterOp::kNin},
      {"contains", FilterOp::kContains},
      {"icontains", FilterOp::kIcontains},
  };
  for (const auto& [op_name, op] : kOps) {
    if (op_name == name) return op;
  }
  return std::nullopt;
}

// Fields whose values are instants: compared as times, not as strings.
bool IsTimeField(std::string_view field) { return field == "created_at" || field == "updated_at"; }

Status FilterError(std::string_view where, std::string_view message) {
  return Status::InvalidArgument("filters" + std::string(where) + ": " + std::string(message));
}

}  // namespace

// A compiled filter: AND / OR / NOT over children, or one condition on a field.
struct Mem0Filter::Node {
  enum class Kind { kAll, kAny, kNone, kCondition };
  Kind kind = Kind::kAll;
  std::vector<Node> children;
  std::string field;
  FilterOp op = FilterOp::kEq;
  json operand;  // time fields: microseconds (a number, or an array of them for in / nin)
};

namespace {

using FilterNode = Mem0Filter::Node;

// A time operand as microseconds since the epoch.
Status TimeOperand(std::string_view where, const json& value, json* out) {
  if (!value.is_string()) {
    return FilterError(where,
                       "must be an ISO-8601 timestamp string, got " + std::string(TypeName(value)));
  }
  StatusOr<Timestamp> time = ParseTimestamp(value.get<std::string>());
  if (!time.ok()) return FilterError(where, time.status().message());
  *out = time->micros;
  return Status::Ok();
}

Status CompileCondition(const std::string& where, const std::string& field, FilterOp op,
                        const json& operand, FilterNode* node) {
  node->kind = FilterNode::Kind::kCondition;
  node->field = field;
  node->op = op;
  switch (op) {
    case FilterOp::kExists:
      return Status::Ok();
    case FilterOp::kIn:
    case FilterOp::kNin:
      if (!operand.is_array()) {
        return FilterError(where, "in / nin need an array, got " + std::string(TypeName(operand)));
      }
      if (IsTimeField(field)) {
        node->operand = json::array();
        for (const json& element : operand) {
          json micros;
          RETURN_IF_ERROR(TimeOperand(where, element, &micros));
          node->operand.push_back(micros);
        }
        return Status::Ok();
      }
      node->operand = operand;
      return Status::Ok();
    case FilterOp::kGt:
    case FilterOp::kGte:
    case FilterOp::kLt:
    case FilterOp::kLte:
      if (IsTimeField(field)) return TimeOperand(where, operand, &node->operand);
      if (!operand.is_number() && !operand.is_string()) {
        return FilterError(where, "gt / gte / lt / lte need a number or a string, got " +
                                      std::string(TypeName(operand)));
      }
      node->operand = operand;
      return Status::Ok();
    case FilterOp::kContains:
    case FilterOp::kIcontains:
      if (IsTimeField(field)) return FilterError(where, "contains / icontains need a text field");
      if (!operand.is_string()) {
        return FilterError(
            where, "contains / icontains need a string, got " + std::string(TypeName(operand)));
      }
      node->operand = operand;
      return Status::Ok();
    case FilterOp::kEq:
    case FilterOp::kNe:
      if (IsTimeField(field)) return TimeOperand(where, operand, &node->operand);
      if (operand.is_object()) return FilterError(where, "eq / ne cannot compare objects");
      node->operand = operand;
      return Status::Ok();
  }
  return Status::Ok();
}

std::string UnsupportedOperator(std::string_view name) {
  return "unsupported operator \"" + std::string(name) +
         "\" (supported: " + std::string(kSupportedOperators) + ")";
}

Status CompileFilters(const json& filters, const std::string& where, FilterNode* node);

// AND / OR / NOT: a list of filter objects (NOT also takes one object).
Status CompileLogical(const std::string& key, const json& value, const std::string& where,
                      FilterNode* node) {
  node->kind = key == "AND"  ? FilterNode::Kind::kAll
               : key == "OR" ? FilterNode::Kind::kAny
                             : FilterNode::Kind::kNone;
  const std::string here = where + "." + key;
  if (key == "NOT" && value.is_object()) {
    node->children.emplace_back();
    return CompileFilters(value, here, &node->children.back());
  }
  if (!value.is_array() || value.empty()) {
    return FilterError(here, "needs a non-empty array of filter objects");
  }
  for (std::size_t index = 0; index < value.size(); ++index) {
    node->children.emplace_back();
    RETURN_IF_ERROR(CompileFilters(value[index], here + "[" + std::to_string(index) + "]",
                                   &node->children.back()));
  }
  return Status::Ok();
}

// Compiles a filter object: its keys are ANDed.
Status CompileFilters(const json& filters, const std::string& where, FilterNode* node) {
  if (!filters.is_object()) {
    return FilterError(where, "must be an object, got " + std::string(TypeName(filters)));
  }
  node->kind = FilterNode::Kind::kAll;
  for (const auto& [key, value] : filters.items()) {
    FilterNode child;
    const std::string here = where + "." + key;
    if (key == "AND" || key == "OR" || key == "NOT") {
      RETURN_IF_ERROR(CompileLogical(key, value, where, &child));
    } else if (!key.empty() && key.front() == '$') {
      return FilterError(where, UnsupportedOperator(key));
    } else if (value.is_object()) {
      if (value.empty()) return FilterError(here, "has no operator");
      child.kind = FilterNode::Kind::kAll;
      for (const auto& [op_name, operand] : value.items()) {
        std::optional<FilterOp> op = ParseFilterOp(op_name);
        if (!op.has_value()) return FilterError(here, UnsupportedOperator(op_name));
        FilterNode condition;
        RETURN_IF_ERROR(CompileCondition(here, key, *op, operand, &condition));
        child.children.push_back(std::move(condition));
      }
    } else if (value.is_string() && value.get<std::string>() == "*") {
      RETURN_IF_ERROR(CompileCondition(here, key, FilterOp::kExists, value, &child));
    } else {
      RETURN_IF_ERROR(CompileCondition(here, key, FilterOp::kEq, value, &child));
    }
    node->children.push_back(std::move(child));
  }
  return Status::Ok();
}

std::string AsciiLower(std::string text) {
  for (char& c : text) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return text;
}

// -1, 0, 1 for two numbers or two strings; nullopt when they are not comparable.
std::optional<int> Compare(const json& a, const json& b) {
  if (a.is_number() && b.is_number()) {
    if (a.is_number_float() || b.is_number_float()) {
      const double x = a.get<double>();
      const double y = b.get<double>();
      return x < y ? -1 : (x > y ? 1 : 0);
    }
    return a < b ? -1 : (b < a ? 1 : 0);
  }
  if (a.is_string() && b.is_string()) {
    const int order = a.get_ref<const std::string&>().compare(b.get_ref<const std::string&>());
    return order < 0 ? -1 : (order > 0 ? 1 : 0);
  }
  return std::nullopt;
}

bool Contains(const json& value, const std::string& needle, bool ignore_case) {
  if (value.is_string()) {
    if (!ignore_case) return value.get_ref<const std::string&>().find(needle) != std::string::npos;
    return AsciiLower(value.get<std::string>()).find(AsciiLower(needle)) != std::string::npos;
  }
  if (value.is_array()) {
    for (const json& element : value) {
      if (!element.is_string()) continue;
      if (ignore_case ? AsciiLower(element.get<std::string>()) == AsciiLower(needle)
                      : element.get_ref<const std::string&>() == needle) {
        return true;
      }
    }
  }
  return false;
}

bool Matches(const FilterNode& node, const json& fields) {
  switch (node.kind) {
    case FilterNode::Kind::kAll:
      return std::all_of(node.children.begin(), node.children.end(),
                         [&](const FilterNode& child) { return Matches(child, fields); });
    case FilterNode::Kind::kAny:
      return std::any_of(node.children.begin(), node.children.end(),
                         [&](const FilterNode& child) { return Matches(child, fields); });
    case FilterNode::Kind::kNone:
      return std::none_of(node.children.begin(), node.children.end(),
                          [&](const FilterNode& child) { return Matches(child, fields); });
    case FilterNode::Kind::kCondition:
      break;
  }
  auto found = fields.find(node.field);
  const json* value = found != fields.end() && !found->is_null() ? &*found : nullptr;
  json micros;
  if (value != nullptr && IsTimeField(node.field)) {
    // A time field compares as an instant; one that is no timestamp counts as absent.
    value = nullptr;
    if (found->is_string()) {
      if (StatusOr<Timestamp> time = ParseTimestamp(found->get<std::string>()); time.ok()) {
        micros = time->micros;
        value = &micros;
      }
    }
  }
  const bool present = value != nullptr;
  switch (node.op) {
    case FilterOp::kExists:
      return present;
    case FilterOp::kEq:
      return present && *value == node.operand;
    case FilterOp::kNe:
      return !present || *value != node.operand;
    case FilterOp::kIn:
      return present &&
             std::find(node.operand.begin(), node.operand.end(), *value) != node.operand.end();
    case FilterOp::kNin:
      return !present ||
             std::find(node.operand.begin(), node.operand.end(), *value) == node.operand.end();
    case FilterOp::kGt:
    case FilterOp::kGte:
    case FilterOp::kLt:
    case FilterOp::kLte: {
      if (!present) return false;
      const std::optional<int> order = Compare(*value, node.operand);
      if (!order.has_value()) return false;
      if (node.op == FilterOp::kGt) return *order > 0;
      if (node.op == FilterOp::kGte) return *order >= 0;
      if (node.op == FilterOp::kLt) return *order < 0;
      return *order <= 0;
    }
    case FilterOp::kContains:
    case FilterOp::kIcontains:
      return present &&
             Contains(*value, node.operand.get<std::string>(), node.op == FilterOp::kIcontains);
  }
  return false;
}

// mem0 clients may name the identifiers inside `filters` only: a plain string (or {"eq": s})
// under user_id / agent_id / run_id at the top level of the filter object, or inside a top-level
// AND (or an OR of one element), as newer clients send {"AND": [{"user_id": "alice"}, ...]}.
// Fills the identifiers `ids` does not have yet; the filter still applies to every result.
void IdentifiersFromFilters(const json& filters, Identifiers* ids) {
  if (!filters.is_object()) return;
  for (const auto& [key, value] : filters.items()) {
    if ((key == "AND" || (key == "OR" && value.size() == 1)) && value.is_array()) {
      for (const json& part : value) IdentifiersFromFilters(part, ids);
      continue;
    }
    std::optional<std::string>* slot = key == "user_id"    ? &ids->user_id
                                       : key == "agent_id" ? &ids->agent_id
                                       : key == "run_id"   ? &ids->run_id
                                                           : nullptr;
    if (slot == nullptr || slot->has_value()) continue;
    const json* named = &value;
    if (value.is_object() && value.size() == 1 && value.contains("eq")) named = &value["eq"];
    if (named->is_string() && !named->get<std::string>().empty() &&
        named->get<std::string>() != "*") {
      *slot = named->get<std::string>();
    }
  }
}

// ---------------------------------------------------------------------------------------------
// add's events (mem0's ADD / UPDATE / NONE, decided deterministically instead of by an LLM).

// Whether a message and a stored memory are the same memory: text, role, speaker and metadata.
bool SameMemory(const Turn& turn, const Memory& memory) {
  return memory.kind == NodeKind::kTurn && turn.text == memory.text && turn.role == memory.role &&
         turn.speaker == memory.speaker &&
         json::parse(turn.metadata_json, nullptr, false) ==
             json::parse(memory.metadata_json, nullptr, false);
}

// For each message, the id of an active memory of exactly `scope` that is the same memory (the
// earliest), or "" when there is none.
StatusOr<std::vector<std::string>> IdenticalMemories(Engine& engine, const Scope& scope,
                                                     const std::vector<Turn>& turns) {
  std::vector<std::string> identical(turns.size());
  ListOptions list;
  list.limit = 0;
  list.include_retired = false;
  StatusOr<std::vector<Memory>> stored = engine.List(scope, list);
  if (!stored.ok() && stored.status().code() == StatusCode::kNotFound) return identical;
  if (!stored.ok()) return stored.status();
  for (std::size_t index = 0; index < turns.size(); ++index) {
    for (const Memory& memory : *stored) {
      if (SameMemory(turns[index], memory)) {
        identical[index] = memory.id;
        break;
      }
    }
  }
  return identical;
}

// The stored turns whose claims a fact derived from `turn_id` superseded: the evidence turns of
// the facts its facts' `supersedes` edges point at, still active and not in `exclude` (this
// request's turns), oldest first.
StatusOr<std::vector<Memory>> SupersededTurns(Engine& engine, const std::string& turn_id,
                                              const std::set<std::string>& exclude) {
  std::vector<Memory> turns;
  std::set<std::string> seen;
  ASSIGN_OR_RETURN(std::vector<Link> turn_links, engine.Links(turn_id));
  for (const Link& derived : turn_links) {
    if (derived.type != "derived_from" || derived.dst != turn_id) continue;
    ASSIGN_OR_RETURN(std::vector<Link> fact_links, engine.Links(derived.src));
    for (const Link& supersedes : fact_links) {
      if (supersedes.type != "supersedes" || supersedes.src != derived.src ||
          supersedes.dst == derived.src) {
        continue;
      }
      ASSIGN_OR_RETURN(Memory old_fact, engine.Get(supersedes.dst));
      for (const std::string& evidence : old_fact.provenance) {
        if (exclude.contains(evidence) || !seen.insert(evidence).second) continue;
        StatusOr<Memory> old_turn = engine.Get(evidence);
        if (!old_turn.ok() && old_turn.status().code() == StatusCode::kNotFound) continue;
        if (!old_turn.ok()) return old_turn.status();
        if (old_turn->kind != NodeKind::kTurn || old_turn->status != NodeStatus::kActive) continue;
        turns.push_back(*std::move(old_turn));
      }
    }
  }
  std::sort(turns.begin(), turns.end(), [](const Memory& a, const Memory& b) {
    return std::tie(a.ingested_at, a.scope, a.sequence, a.id) <
           std::tie(b.ingested_at, b.scope, b.sequence, b.id);
  });
  return turns;
}

// The engine names a bad turn by its index among the turns stored ("turn 1: ..."); a message's
// index counts the ones not stored too.
std::string RenumberTurn(const std::string& message, const std::vector<std::size_t>& stored) {
  constexpr std::string_view kPrefix = "turn ";
  if (message.rfind(kPrefix, 0) != 0) return message;
  const std::size_t digits_end = message.find_first_not_of("0123456789", kPrefix.size());
  if (digits_end == kPrefix.size() || digits_end == std::string::npos || digits_end > 12) {
    return message;
  }
  const std::size_t index = std::stoul(message.substr(kPrefix.size(), digits_end - kPrefix.size()));
  if (index >= stored.size()) return message;
  return std::string(kPrefix) + std::to_string(stored[index]) + message.substr(digits_end);
}

// ---------------------------------------------------------------------------------------------
// Memory ids.

std::string MemoryIdParam(const ApiRequest& request) {
  for (const char* name : {"memory_id", "id"}) {
    auto found = request.path_params.find(name);
    if (found != request.path_params.end()) return found->second;
  }
  return "";
}

// The memory `id`, as the caller may see it: 404 when it does not exist, is malformed or lies in
// a scope the caller cannot read (never 403, so ids reveal nothing about other tenants).
std::optional<ApiResponse> ReadableMemory(Engine& engine, const ApiRequest& request,
                                          std::string_view id, Memory* memory) {
  StatusOr<Memory> found = engine.Get(id);
  if (!found.ok()) {
    const StatusCode code = found.status().code();
    if (code == StatusCode::kNotFound || code == StatusCode::kInvalidArgument) {
      return Detail(404, std::string(kMemoryNotFound));
    }
    return EngineError(found.status());
  }
  if (found->kind == NodeKind::kScope || !MayRead(request, found->scope)) {
    return Detail(404, std::string(kMemoryNotFound));
  }
  *memory = std::move(found).value();
  return std::nullopt;
}

// The neighbour of `id` along supersedes edges ("src supersedes dst"): its successor (the
// memory that superseded it) when `forward`, else its predecessor. "" when there is none.
StatusOr<std::string> UpdateNeighbour(Engine& engine, std::string_view id, bool forward) {
  ASSIGN_OR_RETURN(std::vector<Link> links, engine.Links(id));
  for (const Link& link : links) {
    if (link.type != "supersedes") continue;
    if (forward && link.dst == id && link.src != id) return link.src;
    if (!forward && link.src == id && link.dst != id) return link.dst;
  }
  return std::string();
}

// The current version of a memory: an updated (superseded) memory resolves to the memory that
// replaced it, so a mem0 id keeps naming "the same memory" across PUTs. 404 when the current
// version is retired (deleted) or was never readable.
std::optional<ApiResponse> CurrentMemory(Engine& engine, const ApiRequest& request,
                                         std::string_view id, Memory* memory) {
  MEM0_RETURN_IF_ERROR(ReadableMemory(engine, request, id, memory));
  for (std::size_t hop = 0; memory->status == NodeStatus::kSuperseded; ++hop) {
    StatusOr<std::string> next = UpdateNeighbour(engine, memory->id, /*forward=*/true);
    if (!next.ok()) return EngineError(next.status());
    if (next->empty() || hop >= kMaxUpdateChain) break;
    MEM0_RETURN_IF_ERROR(ReadableMemory(engine, request, *next, memory));
  }
  if (memory->status != NodeStatus::kActive) return Detail(404, std::string(kMemoryNotFound));
  return std::nullopt;
}

}  // namespace

StatusOr<Mem0Filter> Mem0Filter::Compile(const nlohmann::json& filters) {
  auto root = std::make_shared<Node>();
  RETURN_IF_ERROR(CompileFilters(filters, "", root.get()));
  return Mem0Filter(std::move(root));
}

nlohmann::json Mem0Filter::FieldsOf(const Memory& memory) {
  json fields = json::object();
  // Stored metadata is canonical JSON written by the engine; MetadataToJson never throws.
  const Json metadata = io::MetadataToJson(memory.metadata_json);
  if (metadata.is_object()) {
    for (const auto& [key, value] : metadata.items()) fields[key] = json(value);
  }
  // The fields shadow metadata keys of their names, also when the memory has no such field.
  const Identifiers ids = Mem0ScopeIdentifiers(memory.scope);
  const std::pair<const char*, const std::optional<std::string>*> optional_fields[] = {
      {"user_id", &ids.user_id}, {"agent_id", &ids.agent_id}, {"run_id", &ids.run_id}};
  for (const auto& [name, value] : optional_fields) {
    if (value->has_value()) {
      fields[name] = **value;
    } else {
      fields.erase(name);
    }
  }
  if (memory.speaker.empty()) {
    fields.erase("actor_id");
  } else {
    fields["actor_id"] = memory.speaker;
  }
  fields["id"] = memory.id;
  fields["memory"] = memory.text;
  fields["role"] = std::string(RoleName(memory.role));
  fields["created_at"] = FormatTimestamp(memory.ingested_at);
  fields["updated_at"] = FormatTimestamp(memory.updated_at);
  return fields;
}

bool Mem0Filter::Matches(const nlohmann::json& fields) const {
  return root_ != nullptr && server::Matches(*root_, fields);
}

Mem0Identifiers Mem0ScopeIdentifiers(std::string_view scope_path) {
  Mem0Identifiers ids;
  StatusOr<Scope> scope = Scope::Parse(scope_path);
  if (!scope.ok()) return ids;
  // mem0's identifiers nest user, agent, run (each optional) in this order; the first segment
  // out of that order ends them.
  const std::pair<ScopeKind, std::optional<std::string>*> order[] = {
      {ScopeKind::kUser, &ids.user_id},
      {ScopeKind::kAgent, &ids.agent_id},
      {ScopeKind::kRun, &ids.run_id}};
  std::size_t next = 0;
  for (const ScopeSegment& segment : scope->path()) {
    std::size_t position = next;
    while (position < std::size(order) && order[position].first != segment.kind) ++position;
    if (position == std::size(order)) break;
    *order[position].second = segment.name;
    next = position + 1;
  }
  return ids;
}

Mem0Api::Mem0Api(Engine& engine, Mem0Options options)
    : engine_(engine), options_(std::move(options)) {}

RouteList Mem0Api::Routes() {
  auto bind = [this](ApiResponse (Mem0Api::*handler)(const ApiRequest&)) {
    return [this, handler](const ApiRequest& request) { return (this->*handler)(request); };
  };
  return {
      {"POST", "/memories", bind(&Mem0Api::AddMemories)},
      {"GET", "/memories", bind(&Mem0Api::ListMemories)},
      {"DELETE", "/memories", bind(&Mem0Api::DeleteAll)},
      {"GET", "/memories/{memory_id}", bind(&Mem0Api::GetMemory)},
      {"PUT", "/memories/{memory_id}", bind(&Mem0Api::UpdateMemory)},
      {"DELETE", "/memories/{memory_id}", bind(&Mem0Api::DeleteMemory)},
      {"GET", "/memories/{memory_id}/history", bind(&Mem0Api::History)},
      {"POST", "/search", bind(&Mem0Api::Search)},
      {"POST", "/reset", bind(&Mem0Api::Reset)},
  };
}

ApiResponse Mem0Api::AddMemories(const ApiRequest& request) try {
  json body;
  MEM0_RETURN_IF_ERROR(ParseObjectBody(request, options_.max_body_bytes, &body));
  // LLM extraction settings of mem0: engram derives deterministically and has no use for them.
  MEM0_RETURN_IF_ERROR(
      CheckFields(body, {"messages", "user_id", "agent_id", "run_id", "metadata", "infer"},
                  {"prompt", "output_format", "version", "async_mode", "enable_graph",
                   "custom_categories", "includes", "excludes"}));
  Identifiers ids;
  MEM0_RETURN_IF_ERROR(IdentifiersFromBody(body, &ids));

  auto messages = body.find("messages");
  if (messages == body.end() || messages->is_null()) {
    return Invalid({"body", "messages"}, "messages: field required", "missing");
  }
  json message_list = json::array();
  if (messages->is_string()) {
    // What mem0's Python client does with a string: one user message.
    message_list.push_back({{"role", "user"}, {"content", *messages}});
  } else if (messages->is_array()) {
    message_list = *messages;
  } else {
    return InvalidField(
        "messages",
        "must be a list of {role, content} objects, got " + std::string(TypeName(*messages)),
        "list_type");
  }
  if (message_list.empty()) {
    return InvalidField("messages", "must hold at least one message", "too_short");
  }
  if (message_list.size() > options_.max_messages) {
    return InvalidField("messages",
                        "holds " + std::to_string(message_list.size()) + " messages; at most " +
                            std::to_string(options_.max_messages) + " are accepted",
                        "too_long");
  }

  std::string metadata_json = "{}";
  if (auto metadata = body.find("metadata"); metadata != body.end() && !metadata->is_null()) {
    if (!metadata->is_object()) {
      return InvalidField("metadata", "must be an object, got " + std::string(TypeName(*metadata)),
                          "dict_type");
    }
    metadata_json = metadata->dump();
  }
  // infer (mem0's default): reconcile each message with the stored memories, deterministically
  // (an identical one is not stored again, NONE; one whose fact supersedes a stored one's is an
  // UPDATE of it). infer false: store every message as it is, ADD.
  bool infer = true;
  if (auto given = body.find("infer"); given != body.end() && !given->is_null()) {
    if (!given->is_boolean()) {
      return InvalidField("infer", "must be a boolean, got " + std::string(TypeName(*given)),
                          "bool_type");
    }
    infer = given->get<bool>();
  }

  std::vector<Turn> turns;
  turns.reserve(message_list.size());
  for (std::size_t index = 0; index < message_list.size(); ++index) {
    const json& message = message_list[index];
    auto at = [&](std::string_view key) {
      return std::vector<Json>{"body", "messages", index, std::string(key)};
    };
    const std::string where = "messages[" + std::to_string(index) + "]";
    if (!message.is_object()) {
      return Invalid({"body", "messages", index},
                     where + ": must be an object, got " + std::string(TypeName(message)),
                     "dict_type");
    }
    for (const auto& [key, value] : message.items()) {
      if (key != "role" && key != "content" && key != "name") {
        return Invalid(at(key),
                       where + "." + key + ": unknown field (accepted: role, content, name)",
                       "extra_forbidden");
      }
    }
    Turn turn;
    auto role = message.find("role");
    if (role == message.end() || !role->is_string()) {
      return Invalid(at("role"), where + ".role: a string is required", "string_type");
    }
    StatusOr<Role> parsed_role = ParseRole(role->get<std::string>());
    if (!parsed_role.ok()) {
      return Invalid(at("role"),
                     where + ".role: must be user, assistant, system or tool, got \"" +
                         role->get<std::string>().substr(0, 64) + "\"",
                     "enum");
    }
    turn.role = *parsed_role;
    auto content = message.find("content");
    if (content == message.end() || !content->is_string()) {
      return Invalid(at("content"),
                     where +
                         ".content: a string is required (multimodal content is not "
                         "supported)",
                     "string_type");
    }
    turn.text = content->get<std::string>();
    if (std::all_of(turn.text.begin(), turn.text.end(),
                    [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; })) {
      return Invalid(at("content"), where + ".content: is empty", "string_too_short");
    }
    turn.speaker = std::string(RoleName(turn.role));
    if (auto name = message.find("name"); name != message.end() && !name->is_null()) {
      if (!name->is_string()) {
        return Invalid(at("name"), where + ".name: must be a string", "string_type");
      }
      if (!name->get<std::string>().empty()) turn.speaker = name->get<std::string>();
    }
    if (ids.run_id) turn.session_id = *ids.run_id;
    turn.metadata_json = metadata_json;
    turns.push_back(std::move(turn));
  }

  Scope scope;
  MEM0_RETURN_IF_ERROR(ScopeOf(ids, &scope));
  MEM0_RETURN_IF_ERROR(RequireRight(request, scope, auth::Right::kWrite));

  // NONE: the same memory is stored already (or earlier in this request); not stored again.
  std::vector<std::string> identical(turns.size());
  std::vector<std::optional<std::size_t>> repeats(turns.size());  // an earlier message's index
  if (infer) {
    StatusOr<std::vector<std::string>> found = IdenticalMemories(engine_, scope, turns);
    if (!found.ok()) return EngineError(found.status());
    identical = *std::move(found);
    for (std::size_t index = 0; index < turns.size(); ++index) {
      for (std::size_t earlier = 0; earlier < index && identical[index].empty(); ++earlier) {
        const Turn& before = turns[earlier];
        const Turn& turn = turns[index];
        if (!repeats[earlier] && identical[earlier].empty() && before.text == turn.text &&
            before.role == turn.role && before.speaker == turn.speaker) {
          repeats[index] = earlier;
          break;
        }
      }
    }
  }
  std::vector<Turn> to_store;
  std::vector<std::size_t> stored_index;  // message index of each stored turn
  std::vector<std::size_t> stored_at(turns.size());
  for (std::size_t index = 0; index < turns.size(); ++index) {
    if (!identical[index].empty() || repeats[index]) continue;
    stored_at[index] = to_store.size();
    stored_index.push_back(index);
    to_store.push_back(turns[index]);
  }

  RememberResult written;
  if (!to_store.empty()) {
    // With infer, the response reports UPDATE events, so it waits for the derived facts;
    // without, derivation follows in the background.
    StatusOr<RememberResult> remembered = engine_.Remember(
        scope, to_store, {.wait = infer ? RememberWait::kDerived : RememberWait::kIndexed});
    if (!remembered.ok()) {
      // The engine names the bad turn ("turn 2: ..."), which is messages[2].
      if (remembered.status().code() == StatusCode::kInvalidArgument) {
        return Invalid({"body", "messages"},
                       "messages: " + RenumberTurn(remembered.status().message(), stored_index),
                       "value_error");
      }
      return EngineError(remembered.status());
    }
    written = *std::move(remembered);
  }
  const std::set<std::string> this_request(written.ids.begin(), written.ids.end());

  Json results = Json::array();
  for (std::size_t index = 0; index < turns.size(); ++index) {
    const bool stored = identical[index].empty() && !repeats[index];
    Json item = Json::object();
    Json engram = Json::object();
    engram["scope"] = scope.ToString();
    if (stored) {
      item["id"] = written.ids[stored_at[index]];
      engram["sequence"] = written.first_sequence + static_cast<std::int64_t>(stored_at[index]);
    } else {
      item["id"] = repeats[index] ? written.ids[stored_at[*repeats[index]]] : identical[index];
    }
    item["memory"] = turns[index].text;
    item["event"] = stored ? "ADD" : "NONE";
    if (stored && infer) {
      StatusOr<std::vector<Memory>> superseded =
          SupersededTurns(engine_, item["id"].get<std::string>(), this_request);
      if (!superseded.ok()) return EngineError(superseded.status());
      if (!superseded->empty()) {
        item["event"] = "UPDATE";
        item["previous_memory"] = superseded->back().text;
        Json updates = Json::array();
        for (const Memory& old_turn : *superseded) updates.push_back(old_turn.id);
        engram["updates"] = std::move(updates);
      }
    }
    item["actor_id"] = turns[index].speaker;
    item["role"] = RoleName(turns[index].role);
    item["engram"] = std::move(engram);
    results.push_back(std::move(item));
  }
  ApiResponse response;
  response.body = Json::object();
  response.body["results"] = std::move(results);
  return response;
} catch (const std::exception& error) {
  return Unexpected(error);
}

ApiResponse Mem0Api::Search(const ApiRequest& request) try {
  json body;
  MEM0_RETURN_IF_ERROR(ParseObjectBody(request, options_.max_body_bytes, &body));
  MEM0_RETURN_IF_ERROR(CheckFields(
      body, {"query", "user_id", "agent_id", "run_id", "filters", "top_k", "limit", "threshold"},
      {"rerank", "keyword_search", "fields", "version", "output_format", "enable_graph"}));

  auto query = body.find("query");
  if (query == body.end() || query->is_null()) {
    return Invalid({"body", "query"}, "query: field required", "missing");
  }
  if (!query->is_string()) {
    return InvalidField("query", "must be a string, got " + std::string(TypeName(*query)),
                        "string_type");
  }
  const std::string text = query->get<std::string>();
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
    return InvalidField("query", "is empty", "string_too_short");
  }

  std::optional<std::size_t> top_k;
  std::optional<std::size_t> limit;
  MEM0_RETURN_IF_ERROR(OptionalCount(body, "top_k", options_.max_top_k, &top_k));
  MEM0_RETURN_IF_ERROR(OptionalCount(body, "limit", options_.max_top_k, &limit));
  if (top_k && limit && *top_k != *limit) {
    return InvalidField("limit", "disagrees with top_k (give one of them)", "value_error");
  }
  const std::size_t wanted = top_k.value_or(limit.value_or(options_.default_top_k));

  std::optional<double> threshold;
  if (auto found = body.find("threshold"); found != body.end() && !found->is_null()) {
    if (!found->is_number()) {
      return InvalidField("threshold", "must be a number, got " + std::string(TypeName(*found)),
                          "float_type");
    }
    threshold = found->get<double>();
    if (!std::isfinite(*threshold)) {
      return InvalidField("threshold", "must be a finite number", "finite_number");
    }
  }

  std::optional<Mem0Filter> filter;
  Identifiers ids;
  MEM0_RETURN_IF_ERROR(IdentifiersFromBody(body, &ids));
  if (auto filters = body.find("filters"); filters != body.end() && !filters->is_null()) {
    if (!filters->is_object()) {
      return InvalidField("filters", "must be an object, got " + std::string(TypeName(*filters)),
                          "dict_type");
    }
    StatusOr<Mem0Filter> compiled = Mem0Filter::Compile(*filters);
    if (!compiled.ok()) return Detail(400, compiled.status().message());
    filter = *std::move(compiled);
    IdentifiersFromFilters(*filters, &ids);
  }
  Scope scope;
  MEM0_RETURN_IF_ERROR(ScopeOf(ids, &scope));
  MEM0_RETURN_IF_ERROR(RequireRight(request, scope, auth::Right::kRead));

  RecallOptions recall;
  const bool narrows = filter.has_value() || threshold.has_value();
  recall.k = narrows ? std::max(wanted, options_.filter_window) : wanted;
  recall.token_budget = kUnboundedTokenBudget;
  recall.include_nested = true;
  StatusOr<ReadResult> result = engine_.Recall(scope, {.text = text}, recall);
  Json results = Json::array();
  ApiResponse response;
  response.body = Json::object();
  if (!result.ok()) {
    // A scope nothing was written to yet holds no memories (mem0 answers with none).
    if (result.status().code() == StatusCode::kInvalidArgument) {
      return Invalid({"body", "query"}, "query: " + result.status().message(), "value_error");
    }
    if (result.status().code() != StatusCode::kNotFound) return EngineError(result.status());
    response.body["results"] = std::move(results);
    return response;
  }
  // mem0's memories are what clients added: a derived item (signal, entity, fact) of the
  // ranking stands for its evidence turns, at its rank and score.
  std::set<std::string> emitted;
  for (const RecallItem& item : result->items) {
    if (results.size() >= wanted) break;
    if (!MayRead(request, item.scope)) continue;
    if (threshold && item.score < *threshold) continue;
    const bool derived = item.kind != NodeKind::kTurn;
    const std::vector<std::string> turn_ids =
        derived ? item.provenance : std::vector<std::string>{item.id};
    for (const std::string& turn_id : turn_ids) {
      if (results.size() >= wanted) break;
      if (emitted.contains(turn_id)) continue;
      StatusOr<Memory> memory = engine_.Get(turn_id);
      if (!memory.ok()) {
        // Erased by a concurrent request since the recall: no longer a result.
        if (memory.status().code() == StatusCode::kNotFound) continue;
        return EngineError(memory.status());
      }
      if (memory->kind != NodeKind::kTurn || memory->status != NodeStatus::kActive ||
          !MayRead(request, memory->scope)) {
        continue;
      }
      if (filter && !filter->Matches(Mem0Filter::FieldsOf(*memory))) continue;
      emitted.insert(turn_id);
      Json entry = Mem0Item(*memory, item.score);
      Json& engram = entry["engram"];
      engram["fused_score"] = std::isfinite(item.fused_score) ? Json(item.fused_score) : Json();
      Json routes = Json::array();
      for (const RouteScore& route : item.routes) routes.push_back(io::ToJson(route));
      engram["routes"] = std::move(routes);
      Json adjustments = Json::array();
      for (const Adjustment& adjustment : item.adjustments) {
        adjustments.push_back(io::ToJson(adjustment));
      }
      engram["adjustments"] = std::move(adjustments);
      if (derived) {
        Json via = Json::object();
        via["id"] = item.id;
        via["kind"] = NodeKindName(item.kind);
        via["text"] = item.text;
        engram["matched_via"] = std::move(via);
      }
      results.push_back(std::move(entry));
    }
  }
  response.body["results"] = std::move(results);
  Json engram = Json::object();
  engram["scope"] = scope.ToString();
  engram["score"] = "fused rank score (weighted reciprocal rank fusion), not a cosine similarity";
  response.body["engram"] = std::move(engram);
  return response;
} catch (const std::exception& error) {
  return Unexpected(error);
}

ApiResponse Mem0Api::ListMemories(const ApiRequest& request) try {
  Scope scope;
  MEM0_RETURN_IF_ERROR(ScopeOf(IdentifiersFromQuery(request), &scope));
  std::size_t limit = options_.default_list_limit;
  if (std::optional<std::string> given = QueryValue(request, "limit")) {
    const bool digits = !given->empty() && given->size() <= 9 &&
                        given->find_first_not_of("0123456789") == std::string::npos;
    const std::size_t value = digits ? std::stoul(*given) : 0;
    if (value < 1 || value > options_.max_top_k) {
      return Invalid({"query", "limit"},
                     "limit: must be an integer from 1 to " + std::to_string(options_.max_top_k),
                     "int_parsing");
    }
    limit = value;
  }
  MEM0_RETURN_IF_ERROR(RequireRight(request, scope, auth::Right::kRead));

  // Every scope holding memories of the identifiers (a field match, as in mem0) that the
  // caller may read.
  StatusOr<std::vector<Scope>> scopes = ScopesWithIdentifiers(engine_, scope);
  if (!scopes.ok()) return EngineError(scopes.status());
  std::vector<Memory> memories;
  for (const Scope& listed : *scopes) {
    if (!MayRead(request, listed.ToString())) continue;
    ListOptions list;
    list.limit = limit;
    list.include_retired = false;
    StatusOr<std::vector<Memory>> found = engine_.List(listed, list);
    if (!found.ok()) return EngineError(found.status());
    for (Memory& memory : *found) memories.push_back(std::move(memory));
  }
  // In the order they were added: oldest first, and one request's messages (stored at one
  // instant) in their sequence order; scopes written at the same instant by path.
  std::sort(memories.begin(), memories.end(), [](const Memory& a, const Memory& b) {
    return std::tie(a.ingested_at, a.scope, a.sequence, a.id) <
           std::tie(b.ingested_at, b.scope, b.sequence, b.id);
  });
  if (memories.size() > limit) memories.resize(limit);
  Json results = Json::array();
  for (const Memory& memory : memories) results.push_back(Mem0Item(memory, std::nullopt));
  ApiResponse response;
  response.body = Json::object();
  response.body["results"] = std::move(results);
  return response;
} catch (const std::exception& error) {
  return Unexpected(error);
}

ApiResponse Mem0Api::GetMemory(const ApiRequest& request) try {
  const std::string id = MemoryIdParam(request);
  Memory memory;
  MEM0_RETURN_IF_ERROR(CurrentMemory(engine_, request, id, &memory));
  ApiResponse response;
  response.body = Mem0Item(memory, std::nullopt);
  if (memory.id != id) response.body["engram"]["requested_id"] = id;
  return response;
} catch (const std::exception& error) {
  return Unexpected(error);
}

ApiResponse Mem0Api::UpdateMemory(const ApiRequest& request) try {
  const std::string id = MemoryIdParam(request);
  json body;
  MEM0_RETURN_IF_ERROR(ParseObjectBody(request, options_.max_body_bytes, &body));
  MEM0_RETURN_IF_ERROR(CheckFields(body, {"text", "data", "metadata"}, {}));
  std::optional<std::string> text;
  std::optional<std::string> data;
  MEM0_RETURN_IF_ERROR(OptionalString(body, "text", &text));
  MEM0_RETURN_IF_ERROR(OptionalString(body, "data", &data));
  if (text && data && *text != *data) {
    return InvalidField("data", "disagrees with text (give one of them)", "value_error");
  }
  if (!text) text = data;
  if (!text) return Invalid({"body", "text"}, "text: field required", "missing");
  if (text->find_first_not_of(" \t\r\n") == std::string::npos) {
    return InvalidField("text", "is empty", "string_too_short");
  }
  std::optional<std::string> metadata_json;
  if (auto metadata = body.find("metadata"); metadata != body.end() && !metadata->is_null()) {
    if (!metadata->is_object()) {
      return InvalidField("metadata", "must be an object, got " + std::string(TypeName(*metadata)),
                          "dict_type");
    }
    metadata_json = metadata->dump();
  }

  Memory current;
  MEM0_RETURN_IF_ERROR(CurrentMemory(engine_, request, id, &current));
  StatusOr<Scope> scope = Scope::Parse(current.scope);
  if (!scope.ok()) return EngineError(scope.status());
  MEM0_RETURN_IF_ERROR(RequireRight(request, *scope, auth::Right::kWrite));
  if (current.kind != NodeKind::kTurn) {
    return Detail(400, "memory " + current.id + " is a derived " +
                           std::string(NodeKindName(current.kind)) +
                           "; only memories added through POST /memories can be updated");
  }
  Turn replacement;
  replacement.role = current.role;
  replacement.speaker = current.speaker;
  replacement.text = *text;
  replacement.session_id = current.session_id;
  replacement.event_time = current.event_time;
  replacement.metadata_json = metadata_json.value_or(current.metadata_json);
  StatusOr<AmendResult> amended = engine_.Amend(current.id, replacement, "mem0 update");
  if (!amended.ok()) return EngineError(amended.status());

  ApiResponse response;
  response.body = Json::object();
  response.body["message"] = "Memory updated successfully!";
  response.body["id"] = amended->id;
  Json engram = Json::object();
  engram["superseded_id"] = amended->superseded_id;
  engram["note"] =
      "engram keeps memories immutable: the update is a new memory with a new id that "
      "supersedes the old one (kept, with its history); the old id still resolves to the "
      "current version";
  response.body["engram"] = std::move(engram);
  return response;
} catch (const std::exception& error) {
  return Unexpected(error);
}

ApiResponse Mem0Api::DeleteMemory(const ApiRequest& request) try {
  const std::string id = MemoryIdParam(request);
  Memory current;
  MEM0_RETURN_IF_ERROR(CurrentMemory(engine_, request, id, &current));
  StatusOr<Scope> scope = Scope::Parse(current.scope);
  if (!scope.ok()) return EngineError(scope.status());
  MEM0_RETURN_IF_ERROR(RequireRight(request, *scope, auth::Right::kWrite));
  if (Status retired = engine_.Retire(current.id, "mem0 delete"); !retired.ok()) {
    return EngineError(retired);
  }
  ApiResponse response;
  response.body = Json::object();
  response.body["message"] = "Memory deleted successfully";
  Json engram = Json::object();
  engram["retired_id"] = current.id;
  engram["note"] =
      "retired: kept with its history, hidden from search, list and get; erase the scope to "
      "remove it from the store";
  response.body["engram"] = std::move(engram);
  return response;
} catch (const std::exception& error) {
  return Unexpected(error);
}

ApiResponse Mem0Api::History(const ApiRequest& request) try {
  const std::string id = MemoryIdParam(request);
  Memory asked;
  MEM0_RETURN_IF_ERROR(ReadableMemory(engine_, request, id, &asked));
  // The whole update chain, oldest first: back to the original, then forward to the current.
  std::vector<Memory> chain = {asked};
  std::set<std::string> seen = {asked.id};
  for (const bool forward : {false, true}) {
    while (chain.size() < kMaxUpdateChain) {
      const std::string& from = forward ? chain.back().id : chain.front().id;
      StatusOr<std::string> next = UpdateNeighbour(engine_, from, forward);
      if (!next.ok()) return EngineError(next.status());
      if (next->empty() || seen.contains(*next)) break;
      Memory memory;
      MEM0_RETURN_IF_ERROR(ReadableMemory(engine_, request, *next, &memory));
      seen.insert(memory.id);
      if (forward) {
        chain.push_back(std::move(memory));
      } else {
        chain.insert(chain.begin(), std::move(memory));
      }
    }
  }

  Json entries = Json::array();
  auto add = [&](const Memory& memory, std::string_view event, Json old_memory, Json new_memory,
                 Timestamp at) {
    Json entry = Json::object();
    entry["id"] = core::Sha256Hex(memory.id + "/" + std::string(event)).substr(0, 32);
    entry["memory_id"] = memory.id;
    entry["old_memory"] = std::move(old_memory);
    entry["new_memory"] = std::move(new_memory);
    entry["event"] = std::string(event);
    entry["created_at"] = FormatTimestamp(at);
    entry["updated_at"] = nullptr;
    entry["is_deleted"] = event == "DELETE";
    entry["actor_id"] = memory.speaker.empty() ? Json(nullptr) : Json(memory.speaker);
    entry["role"] = RoleName(memory.role);
    Json engram = Json::object();
    engram["scope"] = memory.scope;
    engram["status"] = NodeStatusName(memory.status);
    entry["engram"] = std::move(engram);
    entries.push_back(std::move(entry));
  };
  for (std::size_t index = 0; index < chain.size(); ++index) {
    const Memory& memory = chain[index];
    if (index == 0) {
      add(memory, "ADD", nullptr, memory.text, memory.ingested_at);
    } else {
      add(memory, "UPDATE", chain[index - 1].text, memory.text, memory.ingested_at);
    }
  }
  const Memory& last = chain.back();
  if (last.status == NodeStatus::kRetired) {
    add(last, "DELETE", last.text, nullptr, last.updated_at);
  }
  ApiResponse response;
  response.body = std::move(entries);
  return response;
} catch (const std::exception& error) {
  return Unexpected(error);
}

ApiResponse Mem0Api::DeleteAll(const ApiRequest& request) try {
  Scope scope;
  MEM0_RETURN_IF_ERROR(ScopeOf(IdentifiersFromQuery(request), &scope));
  const auth::Right right = options_.delete_all_erases ? auth::Right::kErase : auth::Right::kWrite;
  MEM0_RETURN_IF_ERROR(RequireRight(request, scope, right));
  // Every scope holding memories of the identifiers (a field match, as in mem0: agent_id alone
  // reaches the agent's memories under every user). A scope the caller cannot read is another
  // tenant's and left alone; one it can read but not change refuses the request before anything
  // changes. Retiring (erasing) a scope covers its nested ones, which match too.
  StatusOr<std::vector<Scope>> scopes = ScopesWithIdentifiers(engine_, scope);
  if (!scopes.ok()) return EngineError(scopes.status());
  std::vector<Scope> targets;
  for (const Scope& matching : *scopes) {
    if (!MayRead(request, matching.ToString())) continue;
    if (std::any_of(targets.begin(), targets.end(),
                    [&](const Scope& target) { return auth::ScopeContains(target, matching); })) {
      continue;
    }
    MEM0_RETURN_IF_ERROR(RequireRight(request, matching, right));
    targets.push_back(matching);
  }

  std::size_t count = 0;
  for (const Scope& target : targets) {
    if (options_.delete_all_erases) {
      StatusOr<EraseResult> erased = engine_.Erase(target);
      if (!erased.ok() && erased.status().code() != StatusCode::kNotFound) {
        return EngineError(erased.status());
      }
      if (erased.ok()) count += erased->nodes;
    } else {
      StatusOr<std::size_t> retired = engine_.RetireAll(target);
      if (!retired.ok() && retired.status().code() != StatusCode::kNotFound) {
        return EngineError(retired.status());
      }
      if (retired.ok()) count += *retired;
    }
  }
  ApiResponse response;
  response.body = Json::object();
  response.body["message"] = "All relevant memories deleted";
  Json engram = Json::object();
  engram["scope"] = scope.ToString();
  Json touched = Json::array();
  for (const Scope& target : targets) touched.push_back(target.ToString());
  engram["scopes"] = std::move(touched);
  engram[options_.delete_all_erases ? "erased_memories" : "retired_memories"] = count;
  response.body["engram"] = std::move(engram);
  return response;
} catch (const std::exception& error) {
  return Unexpected(error);
}

ApiResponse Mem0Api::Reset(const ApiRequest& request) try {
  if (request.access == nullptr || !request.access->IsServerAdmin()) {
    return Detail(403, "reset erases every scope; only the server administrator may call it");
  }
  StatusOr<std::vector<ScopeInfo>> scopes = engine_.ListScopes();
  if (!scopes.ok()) return EngineError(scopes.status());
  std::size_t erased_scopes = 0;
  for (const ScopeInfo& info : *scopes) {
    StatusOr<Scope> scope = Scope::Parse(info.scope);
    // Erasing a top-level scope erases everything nested in it.
    if (!scope.ok() || scope->path().size() != 1) continue;
    StatusOr<EraseResult> erased = engine_.Erase(*scope);
    if (!erased.ok() && erased.status().code() != StatusCode::kNotFound) {
      return EngineError(erased.status());
    }
    if (erased.ok()) erased_scopes += erased->scopes;
  }
  ApiResponse response;
  response.body = Json::object();
  response.body["message"] = "All memories reset";
  Json engram = Json::object();
  engram["erased_scopes"] = erased_scopes;
  response.body["engram"] = std::move(engram);
  return response;
} catch (const std::exception& error) {
  return Unexpected(error);
}

}  // namespace engram::server
