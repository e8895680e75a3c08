// The helpers the mem0 route handlers share (see mem0_support.h).
#include "server/mem0_support.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "core/sha256.h"
#include "engine/derive_worker.h"

namespace engram::server::mem0_support {

using io::Json;
using nlohmann::json;

namespace {

std::string JoinNames(const std::set<std::string_view>& names) {
  std::string joined;
  for (std::string_view name : names) {
    if (!joined.empty()) joined += ", ";
    joined += name;
  }
  return joined;
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

}  // namespace

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
  ApiResponse response = Detail(HttpStatusFor(status.code()), status.message());
  if (const std::optional<int> seconds = RetryAfterSeconds(status)) {
    response.headers.emplace_back("Retry-After", std::to_string(*seconds));  // back-pressure
  }
  return response;
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
      message +=
          " (a request body is read as JSON whatever its Content-Type header says; form "
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

}  // namespace engram::server::mem0_support
