// The native REST API /v1 (see api_v1.h).
#include "server/api_v1.h"

#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/ids.h"
#include "engram/clock.h"
#include "io/api_json.h"
#include "io/graph_json.h"
#include "io/scope_records.h"
#include "io/turns_jsonl.h"
#include "server/openapi.h"
#include "server/scope_views.h"

namespace engram::server {
namespace {

using nlohmann::json;

// A handler step that either produced a value or an error response.
template <typename T>
struct Step {
  std::optional<T> value;
  ApiResponse error;
  bool ok() const { return value.has_value(); }
};

ApiResponse Ok(io::Json body, int status = 200) { return ApiResponse{status, std::move(body)}; }

ApiResponse BadRequest(const std::string& message, const ApiRequest& request) {
  return ErrorResponse(Status::InvalidArgument(message), request.request_id);
}

std::string Quote(std::string_view field) { return "\"" + std::string(field) + "\""; }

// The request body as a JSON object whose keys are all in `allowed`. An empty body is an empty
// object when `body_optional`. The body is read as JSON whatever its Content-Type says (curl's
// -d sends application/x-www-form-urlencoded), so a body that is not JSON is told so, naming the
// header, rather than being read as form fields.
StatusOr<json> ObjectBody(const ApiRequest& request, const std::set<std::string>& allowed,
                          bool body_optional = false) {
  if (body_optional && request.body.find_first_not_of(" \t\r\n") == std::string::npos) {
    return json::object();
  }
  StatusOr<json> parsed = ParseJsonBody(request.body);
  if (!parsed.ok() && parsed.status().message().rfind("request body is not valid JSON", 0) == 0) {
    return Status::InvalidArgument(parsed.status().message() +
                                   " (a request body is read as JSON whatever its Content-Type "
                                   "header says; form fields and plain text are not read)");
  }
  ASSIGN_OR_RETURN(json body, std::move(parsed));
  if (!body.is_object()) {
    return Status::InvalidArgument(std::string("request body must be a JSON object, got ") +
                                   body.type_name());
  }
  for (const auto& [key, value] : body.items()) {
    if (allowed.count(key) == 0) {
      std::string known;
      for (const std::string& name : allowed) known += (known.empty() ? "" : ", ") + name;
      return Status::InvalidArgument("unknown field " + Quote(key.substr(0, 64)) +
                                     " (known fields: " + known + ")");
    }
  }
  return body;
}

// An optional whole number in [0, max]; absent and null leave *out unchanged. Fractions, numbers
// written with an exponent or beyond 64 bits (which JSON parsers read as floating point),
// negative numbers and numbers over `max` are errors naming the field.
Status WholeNumberField(const json& object, const std::string& field, std::size_t max,
                        std::size_t* out) {
  const auto found = object.find(field);
  if (found == object.end() || found->is_null()) return Status::Ok();
  const std::string expected =
      Quote(field) + " must be a whole number from 0 to " + std::to_string(max);
  if (found->is_number_unsigned()) {
    const auto value = found->get<std::uint64_t>();
    if (value > max) {
      return Status::InvalidArgument(expected + ", got " + std::to_string(value));
    }
    *out = static_cast<std::size_t>(value);
    return Status::Ok();
  }
  if (found->is_number_integer()) {  // negative (non-negative integers are unsigned)
    return Status::InvalidArgument(expected + ", got " + std::to_string(found->get<long long>()));
  }
  return Status::InvalidArgument(expected + ", got " + std::string(found->type_name()) +
                                 (found->is_number_float() ? " (a fraction, or too large)" : ""));
}

Status BoolField(const json& object, const std::string& field, bool* out) {
  const auto found = object.find(field);
  if (found == object.end() || found->is_null()) return Status::Ok();
  if (!found->is_boolean()) {
    return Status::InvalidArgument(Quote(field) + " must be true or false, got " +
                                   found->type_name());
  }
  *out = found->get<bool>();
  return Status::Ok();
}

// An optional string of at most `max_bytes` bytes.
Status StringField(const json& object, const std::string& field, std::size_t max_bytes,
                   std::string* out) {
  const auto found = object.find(field);
  if (found == object.end() || found->is_null()) return Status::Ok();
  if (!found->is_string()) {
    return Status::InvalidArgument(Quote(field) + " must be a string, got " + found->type_name());
  }
  const std::string& value = found->get_ref<const std::string&>();
  if (value.size() > max_bytes) {
    return Status::InvalidArgument(Quote(field) + " is " + std::to_string(value.size()) +
                                   " bytes, more than the limit of " + std::to_string(max_bytes));
  }
  *out = value;
  return Status::Ok();
}

// An optional ISO-8601 time (null or absent: left unset).
Status TimeField(const json& object, const std::string& field, std::optional<Timestamp>* out) {
  std::string text;
  RETURN_IF_ERROR(StringField(object, field, 64, &text));
  if (text.empty()) return Status::Ok();
  StatusOr<Timestamp> parsed = ParseTimestamp(text);
  if (!parsed.ok()) {
    return Status::InvalidArgument(Quote(field) + " must be an ISO-8601 time: " +
                                   parsed.status().message());
  }
  *out = *parsed;
  return Status::Ok();
}

// A query-string whole number in [min, max]; absent leaves *out unchanged.
Status QueryNumber(const ApiRequest& request, const std::string& name, std::int64_t min,
                   std::int64_t max, std::int64_t* out) {
  const std::optional<std::string> text = QueryValue(request, name);
  if (!text.has_value()) return Status::Ok();
  const std::string expected = "query parameter " + Quote(name) + " must be a whole number from " +
                               std::to_string(min) + " to " + std::to_string(max);
  if (text->empty() || text->size() > 18 ||
      text->find_first_not_of("0123456789") != std::string::npos) {
    return Status::InvalidArgument(expected);
  }
  const std::int64_t value = std::stoll(*text);
  if (value < min || value > max) return Status::InvalidArgument(expected);
  *out = value;
  return Status::Ok();
}

Status QueryBool(const ApiRequest& request, const std::string& name, bool* out) {
  const std::optional<std::string> text = QueryValue(request, name);
  if (!text.has_value()) return Status::Ok();
  if (*text == "true" || *text == "1") {
    *out = true;
  } else if (*text == "false" || *text == "0") {
    *out = false;
  } else {
    return Status::InvalidArgument("query parameter " + Quote(name) + " must be true or false");
  }
  return Status::Ok();
}

// ?kind=: "all" (every kind: nullopt) or one node kind other than scope; absent leaves *out.
Status QueryKind(const ApiRequest& request, std::optional<NodeKind>* out) {
  const std::optional<std::string> kind = QueryValue(request, "kind");
  if (!kind.has_value()) return Status::Ok();
  if (*kind == "all") {
    *out = std::nullopt;
    return Status::Ok();
  }
  StatusOr<NodeKind> parsed = ParseNodeKind(*kind);
  if (!parsed.ok() || *parsed == NodeKind::kScope) {
    return Status::InvalidArgument(
        "query parameter \"kind\" must be all, turn, signal, entity, fact, episode, scene, "
        "profile or summary");
  }
  *out = *parsed;
  return Status::Ok();
}

// ?name= as an ISO-8601 time; absent leaves *out.
Status QueryTime(const ApiRequest& request, const std::string& name,
                 std::optional<Timestamp>* out) {
  const std::optional<std::string> text = QueryValue(request, name);
  if (!text.has_value()) return Status::Ok();
  StatusOr<Timestamp> parsed = ParseTimestamp(*text);
  if (!parsed.ok()) {
    return Status::InvalidArgument("query parameter " + Quote(name) +
                                   " must be an ISO-8601 time: " + parsed.status().message());
  }
  *out = *parsed;
  return Status::Ok();
}

// Query parameters other than `allowed` are errors, as unknown body fields are.
Status KnownQuery(const ApiRequest& request, const std::set<std::string>& allowed) {
  for (const auto& [name, value] : request.query) {
    if (allowed.count(name) == 0) {
      return Status::InvalidArgument("unknown query parameter " + Quote(name.substr(0, 64)));
    }
  }
  return Status::Ok();
}

StatusOr<Scope> PathScope(const ApiRequest& request) {
  const auto found = request.path_params.find("scope");
  if (found == request.path_params.end()) return Status::InvalidArgument("scope is missing");
  StatusOr<Scope> scope = Scope::Parse(found->second);
  if (!scope.ok()) return Status::InvalidArgument("scope in path: " + scope.status().message());
  return scope;
}

std::string PathParam(const ApiRequest& request, const std::string& name) {
  const auto found = request.path_params.find(name);
  return found == request.path_params.end() ? std::string() : found->second;
}

// 403 naming the right and the scope, or nullopt when the caller holds the right.
// The fields a recall and a context share: "query" (required, non-empty), "policy",
// "query_time" and "explain".
Status QueryFields(const json& body, std::size_t max_query_bytes, RecallQuery* query,
                   AnswerPolicy* policy, bool* explain) {
  RETURN_IF_ERROR(StringField(body, "query", max_query_bytes, &query->text));
  if (body.find("query") == body.end() || query->text.empty()) {
    return Status::InvalidArgument("\"query\" must be a non-empty string");
  }
  RETURN_IF_ERROR(BoolField(body, "explain", explain));
  std::string policy_name;
  RETURN_IF_ERROR(StringField(body, "policy", 64, &policy_name));
  if (!policy_name.empty()) {
    StatusOr<AnswerPolicy> parsed = ParseAnswerPolicy(policy_name);
    if (!parsed.ok()) {
      return Status::InvalidArgument("\"policy\" must be strict, balanced or advanced");
    }
    *policy = *parsed;
  }
  std::string time;
  RETURN_IF_ERROR(StringField(body, "query_time", 64, &time));
  if (!time.empty()) {
    StatusOr<Timestamp> parsed = ParseTimestamp(time);
    if (!parsed.ok()) {
      return Status::InvalidArgument("\"query_time\" must be an ISO-8601 time: " +
                                     parsed.status().message());
    }
    query->query_time = *parsed;
  }
  return Status::Ok();
}

std::optional<ApiResponse> Require(const ApiRequest& request, const Scope& scope,
                                   auth::Right right) {
  if (request.access->Allows(scope, right)) return std::nullopt;
  return ForbiddenResponse("this API key has no " + std::string(auth::RightName(right)) +
                               " right on scope " + scope.ToString(),
                           request.request_id);
}

std::optional<ApiResponse> RequirePath(const ApiRequest& request, const std::string& scope,
                                       auth::Right right) {
  StatusOr<Scope> parsed = Scope::Parse(scope);
  if (!parsed.ok()) {
    return ForbiddenResponse("this API key has no rights on scope " + scope, request.request_id);
  }
  return Require(request, *parsed, right);
}

// A turn object of a request, parsed by the JSONL turn parser so both formats accept the same.
StatusOr<Turn> ParseTurnObject(const json& object) {
  if (!object.is_object()) {
    return Status::InvalidArgument(std::string("must be a JSON object (a turn), got ") +
                                   object.type_name());
  }
  return io::ParseTurnJson(object.dump(-1, ' ', false, json::error_handler_t::strict));
}

io::Json LinkToJson(const Link& link) {
  io::Json json_link = io::Json::object();
  json_link["id"] = link.id;
  json_link["type"] = link.type;
  json_link["src"] = link.src;
  json_link["dst"] = link.dst;
  json_link["status"] = link.status;
  json_link["attrs"] = io::MetadataToJson(link.attrs_json);
  return json_link;
}

// Whether the caller may read memory `id` (cached per request).
class ReadableCache {
 public:
  ReadableCache(Engine& engine, const auth::Access& access) : engine_(engine), access_(access) {}
  bool Readable(const std::string& id) {
    if (access_.unrestricted()) return true;
    const auto found = cache_.find(id);
    if (found != cache_.end()) return found->second;
    const bool readable = ReadableMemory(engine_, access_, id).ok();
    cache_[id] = readable;
    return readable;
  }

 private:
  Engine& engine_;
  const auth::Access& access_;
  std::map<std::string, bool> cache_;
};

// Leaves out of `ids` those the caller may not read, so a scope's records name no memory of a
// scope outside the caller's grants (an entity of an enclosing scope it was merged with, say).
void KeepReadable(ReadableCache& readable, std::vector<std::string>& ids) {
  std::erase_if(ids, [&readable](const std::string& id) { return !readable.Readable(id); });
}

}  // namespace

StatusOr<Memory> ReadableMemory(Engine& engine, const auth::Access& access, std::string_view id) {
  if (!core::LooksLikeId(id)) {
    return Status::InvalidArgument("memory id must be 32 lowercase hex digits");
  }
  StatusOr<Memory> memory = engine.Get(id);
  if (!memory.ok()) {
    if (memory.status().code() == StatusCode::kNotFound) {
      return Status::NotFound("memory " + std::string(id) + " not found");
    }
    return memory.status();
  }
  if (!access.AllowsPath(memory->scope, auth::Right::kRead)) {
    return Status::NotFound("memory " + std::string(id) + " not found");
  }
  return memory;
}

RouteList V1Api::Routes() {
  auto bind = [this](ApiResponse (V1Api::*method)(const ApiRequest&)) -> ApiHandler {
    return [this, method](const ApiRequest& request) { return (this->*method)(request); };
  };
  return {
      {"POST", "/v1/scopes/{scope}/memories", bind(&V1Api::Remember)},
      {"GET", "/v1/scopes/{scope}/memories", bind(&V1Api::ListMemories)},
      {"GET", "/v1/scopes/{scope}/timeline", bind(&V1Api::Timeline)},
      {"POST", "/v1/scopes/{scope}/recall", bind(&V1Api::Recall)},
      {"POST", "/v1/scopes/{scope}/context", bind(&V1Api::Context)},
      {"POST", "/v1/scopes/{scope}/retire-all", bind(&V1Api::RetireAll)},
      {"DELETE", "/v1/scopes/{scope}", bind(&V1Api::EraseScope)},
      {"GET", "/v1/scopes", bind(&V1Api::ListScopes)},
      {"GET", "/v1/scopes/{scope}/facts", bind(&V1Api::Facts)},
      {"GET", "/v1/scopes/{scope}/entities", bind(&V1Api::Entities)},
      {"GET", "/v1/scopes/{scope}/proposals", bind(&V1Api::ListProposals)},
      {"POST", "/v1/scopes/{scope}/consolidate", bind(&V1Api::Consolidate)},
      {"GET", "/v1/scopes/{scope}/episodes", bind(&V1Api::Episodes)},
      {"GET", "/v1/scopes/{scope}/scenes", bind(&V1Api::Scenes)},
      {"GET", "/v1/scopes/{scope}/profile", bind(&V1Api::Profile)},
      {"GET", "/v1/scopes/{scope}/foresight", bind(&V1Api::Foresight)},
      {"GET", "/v1/memories/{id}", bind(&V1Api::GetMemory)},
      {"GET", "/v1/memories/{id}/history", bind(&V1Api::History)},
      {"GET", "/v1/memories/{id}/links", bind(&V1Api::Links)},
      {"POST", "/v1/memories/{id}/retire", bind(&V1Api::Retire)},
      {"POST", "/v1/memories/{id}/amend", bind(&V1Api::Amend)},
      {"GET", "/v1/memories/{id}/neighbours", bind(&V1Api::Neighbours)},
      {"GET", "/v1/memories/{id}/paths", bind(&V1Api::Paths)},
      {"GET", "/v1/memories/{id}/identity", bind(&V1Api::IdentityClass)},
      {"GET", "/v1/edge-types", bind(&V1Api::EdgeTypes)},
      {"POST", "/v1/scopes/{scope}/edges", bind(&V1Api::AddEdge)},
      {"GET", "/v1/edges/{id}", bind(&V1Api::GetEdge)},
      {"POST", "/v1/edges/{id}/retire", bind(&V1Api::RetireEdge)},
      {"POST", "/v1/proposals", bind(&V1Api::Propose)},
      {"POST", "/v1/proposals/{id}/accept", bind(&V1Api::AcceptProposal)},
      {"POST", "/v1/proposals/{id}/reject", bind(&V1Api::RejectProposal)},
      {"POST", "/v1/admin/rebuild-index", bind(&V1Api::RebuildIndex)},
      {"GET", "/v1/info", bind(&V1Api::Info)},
      {"GET", "/v1/openapi.json", bind(&V1Api::OpenApi)},
  };
}

ApiResponse V1Api::Remember(const ApiRequest& request) {
  StatusOr<Scope> scope = PathScope(request);
  if (!scope.ok()) return ErrorResponse(scope.status(), request.request_id);
  if (auto denied = Require(request, *scope, auth::Right::kWrite)) return *denied;
  if (Status status = KnownQuery(request, {"wait"}); !status.ok()) {
    return ErrorResponse(status, request.request_id);
  }
  // Writes do not wait for derivation unless asked (?wait=derived; DESIGN §4).
  RememberOptions options{.wait = RememberWait::kIndexed};
  if (const auto wait = request.query.find("wait"); wait != request.query.end()) {
    StatusOr<RememberWait> parsed = ParseRememberWait(wait->second);
    if (!parsed.ok()) return BadRequest("query parameter wait: " + parsed.status().message(), request);
    options.wait = *parsed;
  }
  StatusOr<json> body = ObjectBody(request, {"turns"});
  if (!body.ok()) return ErrorResponse(body.status(), request.request_id);
  const auto turns_field = body->find("turns");
  if (turns_field == body->end() || !turns_field->is_array() || turns_field->empty()) {
    return BadRequest("\"turns\" must be a non-empty array of turn objects", request);
  }
  if (turns_field->size() > limits_.max_turns_per_request) {
    return ErrorResponse(
        Status::ResourceExhausted("\"turns\" has " + std::to_string(turns_field->size()) +
                                  " turns, more than the limit of " +
                                  std::to_string(limits_.max_turns_per_request) + " per request"),
        request.request_id);
  }
  std::vector<Turn> turns;
  turns.reserve(turns_field->size());
  for (std::size_t i = 0; i < turns_field->size(); ++i) {
    StatusOr<Turn> turn = ParseTurnObject((*turns_field)[i]);
    if (!turn.ok()) {
      return BadRequest("turns[" + std::to_string(i) + "]: " + turn.status().message(), request);
    }
    turns.push_back(*std::move(turn));
  }
  StatusOr<RememberResult> result = engine_.Remember(*scope, turns, options);
  if (!result.ok()) return ErrorResponse(result.status(), request.request_id);
  io::Json out = io::Json::object();
  out["scope"] = scope->ToString();
  const io::Json written = io::ToJson(*result);
  for (const auto& [key, value] : written.items()) out[key] = value;
  return Ok(std::move(out), 201);
}

ApiResponse V1Api::ListMemories(const ApiRequest& request) {
  StatusOr<Scope> scope = PathScope(request);
  if (!scope.ok()) return ErrorResponse(scope.status(), request.request_id);
  if (auto denied = Require(request, *scope, auth::Right::kRead)) return *denied;
  Status status = KnownQuery(request, {"kind", "limit", "after", "include_retired"});
  ListOptions options;
  std::int64_t limit = 100;
  std::int64_t after = 0;
  if (status.ok()) {
    status =
        QueryNumber(request, "limit", 1, static_cast<std::int64_t>(limits_.max_list_limit), &limit);
  }
  if (status.ok()) status = QueryNumber(request, "after", 0, INT64_MAX / 2, &after);
  if (status.ok()) status = QueryBool(request, "include_retired", &options.include_retired);
  if (status.ok()) status = QueryKind(request, &options.kind);
  if (!status.ok()) return ErrorResponse(status, request.request_id);
  options.limit = static_cast<std::size_t>(limit);
  options.after_sequence = after;
  StatusOr<io::MemoryPage> page = io::ListPage(engine_, *scope, options);
  if (!page.ok()) return ErrorResponse(page.status(), request.request_id);
  io::Json out = io::Json::object();
  out["scope"] = scope->ToString();
  io::Json list = io::Json::array();
  for (const Memory& memory : page->memories) list.push_back(io::ToJson(memory));
  out["count"] = list.size();
  out["memories"] = std::move(list);
  // The next page's `after`; null when nothing follows.
  out["next_after"] = page->next_after ? io::Json(*page->next_after) : io::Json(nullptr);
  return Ok(std::move(out));
}

ApiResponse V1Api::Timeline(const ApiRequest& request) {
  StatusOr<Scope> scope = PathScope(request);
  if (!scope.ok()) return ErrorResponse(scope.status(), request.request_id);
  if (auto denied = Require(request, *scope, auth::Right::kRead)) return *denied;
  TimelineFilter filter;
  filter.max_scanned = limits_.max_timeline_scan;
  std::int64_t limit = static_cast<std::int64_t>(filter.limit);
  Status status = KnownQuery(request, {"kind", "limit", "after", "speaker", "since", "until"});
  if (status.ok()) {
    status =
        QueryNumber(request, "limit", 1, static_cast<std::int64_t>(limits_.max_list_limit), &limit);
  }
  if (status.ok()) status = QueryNumber(request, "after", 0, INT64_MAX / 2, &filter.after_sequence);
  if (status.ok()) status = QueryKind(request, &filter.kind);
  if (status.ok()) status = QueryTime(request, "since", &filter.since);
  if (status.ok()) status = QueryTime(request, "until", &filter.until);
  if (status.ok()) {
    filter.speaker = QueryValue(request, "speaker").value_or("");
    if (filter.speaker.size() > 256) {
      status = Status::InvalidArgument("query parameter \"speaker\" is longer than 256 bytes");
    }
  }
  if (!status.ok()) return ErrorResponse(status, request.request_id);
  filter.limit = static_cast<std::size_t>(limit);
  StatusOr<io::Json> view = TimelineView(engine_, *scope, filter);
  if (!view.ok()) return ErrorResponse(view.status(), request.request_id);
  return Ok(*std::move(view));
}

ApiResponse V1Api::Recall(const ApiRequest& request) {
  StatusOr<Scope> scope = PathScope(request);
  if (!scope.ok()) return ErrorResponse(scope.status(), request.request_id);
  if (auto denied = Require(request, *scope, auth::Right::kRead)) return *denied;
  StatusOr<json> body =
      ObjectBody(request, {"query", "k", "token_budget", "routes", "route_weights", "use_planner",
                           "include_retired", "include_nested", "policy", "query_time", "valid_at",
                           "known_at", "explain", "mode", "packing"});
  if (!body.ok()) return ErrorResponse(body.status(), request.request_id);
  RecallQuery query;
  RecallOptions options;
  bool explain = false;
  Status status = QueryFields(*body, limits_.max_query_bytes, &query, &options.policy, &explain);
  if (status.ok()) status = WholeNumberField(*body, "k", limits_.max_k, &options.k);
  if (status.ok()) {
    status =
        WholeNumberField(*body, "token_budget", limits_.max_token_budget, &options.token_budget);
  }
  if (status.ok()) status = BoolField(*body, "use_planner", &options.use_planner);
  if (status.ok()) status = BoolField(*body, "include_retired", &options.include_retired);
  if (status.ok()) status = BoolField(*body, "include_nested", &options.include_nested);
  if (status.ok()) status = TimeField(*body, "valid_at", &options.valid_at);
  if (status.ok()) status = TimeField(*body, "known_at", &options.known_at);
  if (status.ok()) {
    std::string mode;
    status = StringField(*body, "mode", 64, &mode);
    if (status.ok() && !mode.empty()) {
      StatusOr<ContextMode> parsed = ParseContextMode(mode);
      if (parsed.ok()) {
        options.mode = *parsed;
      } else {
        status = Status::InvalidArgument("\"mode\" must be evidence or chat");
      }
    }
  }
  if (status.ok()) {
    std::string packing;
    status = StringField(*body, "packing", 64, &packing);
    if (status.ok() && !packing.empty()) {
      StatusOr<bool> by_value = io::ParsePacking(packing);
      if (by_value.ok()) {
        options.pack_by_value = *by_value;
      } else {
        status = Status::InvalidArgument("\"packing\" must be value or rank");
      }
    }
  }
  if (status.ok()) {
    const auto routes = body->find("routes");
    if (routes != body->end() && !routes->is_null()) {
      if (!routes->is_array() || routes->size() > 32) {
        status = Status::InvalidArgument("\"routes\" must be an array of at most 32 route names");
      } else {
        for (const json& route : *routes) {
          if (!route.is_string() || route.get_ref<const std::string&>().empty() ||
              route.get_ref<const std::string&>().size() > 64) {
            status = Status::InvalidArgument("\"routes\" must hold route names (strings)");
            break;
          }
          options.routes.push_back(route.get<std::string>());
        }
      }
    }
  }
  if (status.ok()) {
    const auto weights = body->find("route_weights");
    if (weights != body->end() && !weights->is_null()) {
      if (!weights->is_object() || weights->size() > 32) {
        status = Status::InvalidArgument(
            "\"route_weights\" must be an object of at most 32 route names to numbers");
      } else {
        for (const auto& [route, weight] : weights->items()) {
          if (!weight.is_number() || !std::isfinite(weight.get<double>()) ||
              weight.get<double>() < 0 || weight.get<double>() > 1000) {
            status = Status::InvalidArgument("\"route_weights\"." + route.substr(0, 64) +
                                             " must be a number from 0 to 1000");
            break;
          }
          options.route_weights[route] = weight.get<double>();
        }
      }
    }
  }
  if (!status.ok()) return ErrorResponse(status, request.request_id);
  StatusOr<ReadResult> result = engine_.Recall(*scope, query, options);
  if (!result.ok()) return ErrorResponse(result.status(), request.request_id);
  if (metrics_ != nullptr) metrics_->RecordRecall(*result);
  return Ok(explain ? io::ToJson(*result) : io::ToJsonWithoutExplanations(*result));
}

ApiResponse V1Api::Context(const ApiRequest& request) {
  StatusOr<Scope> scope = PathScope(request);
  if (!scope.ok()) return ErrorResponse(scope.status(), request.request_id);
  if (auto denied = Require(request, *scope, auth::Right::kRead)) return *denied;
  StatusOr<json> body = ObjectBody(request, {"query", "k", "token_budget", "window_budget",
                                             "recall_enclosing", "policy", "query_time", "explain"});
  if (!body.ok()) return ErrorResponse(body.status(), request.request_id);
  RecallQuery query;
  ContextOptions options;
  bool explain = false;
  Status status = QueryFields(*body, limits_.max_query_bytes, &query, &options.policy, &explain);
  if (status.ok()) status = WholeNumberField(*body, "k", limits_.max_k, &options.k);
  if (status.ok()) {
    status =
        WholeNumberField(*body, "token_budget", limits_.max_token_budget, &options.token_budget);
  }
  if (status.ok()) {
    status = WholeNumberField(*body, "window_budget", limits_.max_token_budget,
                              &options.window_budget);
  }
  if (status.ok()) status = BoolField(*body, "recall_enclosing", &options.recall_enclosing);
  if (!status.ok()) return ErrorResponse(status, request.request_id);
  // Recalling from the enclosing scope reads it (and every run nested in it).
  const std::optional<Scope> parent = scope->Parent();
  if (options.recall_enclosing && parent.has_value()) {
    if (auto denied = Require(request, *parent, auth::Right::kRead)) return *denied;
  }
  StatusOr<ContextResult> result = engine_.Context(*scope, query, options);
  if (!result.ok()) return ErrorResponse(result.status(), request.request_id);
  io::Json out = io::ToJson(*result);
  if (!explain) io::DropExplanations(out["recalled"]);
  return Ok(std::move(out));
}

ApiResponse V1Api::RetireAll(const ApiRequest& request) {
  StatusOr<Scope> scope = PathScope(request);
  if (!scope.ok()) return ErrorResponse(scope.status(), request.request_id);
  if (auto denied = Require(request, *scope, auth::Right::kWrite)) return *denied;
  StatusOr<json> body = ObjectBody(request, {}, /*body_optional=*/true);
  if (!body.ok()) return ErrorResponse(body.status(), request.request_id);
  StatusOr<std::size_t> retired = engine_.RetireAll(*scope);
  if (!retired.ok()) return ErrorResponse(retired.status(), request.request_id);
  io::Json out = io::Json::object();
  out["scope"] = scope->ToString();
  out["retired"] = *retired;
  return Ok(std::move(out));
}

ApiResponse V1Api::EraseScope(const ApiRequest& request) {
  StatusOr<Scope> scope = PathScope(request);
  if (!scope.ok()) return ErrorResponse(scope.status(), request.request_id);
  if (auto denied = Require(request, *scope, auth::Right::kErase)) return *denied;
  StatusOr<json> body = ObjectBody(request, {"confirm"});
  if (!body.ok()) return ErrorResponse(body.status(), request.request_id);
  std::string confirm;
  Status status = StringField(*body, "confirm", 4096, &confirm);
  if (!status.ok()) return ErrorResponse(status, request.request_id);
  if (confirm != scope->ToString()) {
    return BadRequest("\"confirm\" must repeat the scope path \"" + scope->ToString() +
                          "\" to erase it and everything nested in it",
                      request);
  }
  StatusOr<EraseResult> erased = engine_.Erase(*scope);
  if (!erased.ok()) return ErrorResponse(erased.status(), request.request_id);
  io::Json out = io::Json::object();
  out["scope"] = scope->ToString();
  const io::Json removed = io::ToJson(*erased);
  for (const auto& [key, value] : removed.items()) out[key] = value;
  return Ok(std::move(out));
}

ApiResponse V1Api::ListScopes(const ApiRequest& request) {
  StatusOr<std::vector<ScopeInfo>> scopes = engine_.ListScopes();
  if (!scopes.ok()) return ErrorResponse(scopes.status(), request.request_id);
  io::Json list = io::Json::array();
  for (const ScopeInfo& scope : *scopes) {
    if (request.access->AllowsPath(scope.scope, auth::Right::kRead)) {
      list.push_back(io::ToJson(scope));
    }
  }
  io::Json out = io::Json::object();
  out["count"] = list.size();
  out["scopes"] = std::move(list);
  return Ok(std::move(out));
}

ApiResponse V1Api::Facts(const ApiRequest& request) {
  StatusOr<Scope> scope = PathScope(request);
  if (!scope.ok()) return ErrorResponse(scope.status(), request.request_id);
  if (auto denied = Require(request, *scope, auth::Right::kRead)) return *denied;
  io::FactsFilter filter;
  Status status = KnownQuery(request, {"all", "rejected", "valid_at", "known_at"});
  if (status.ok()) status = QueryBool(request, "all", &filter.all);
  if (status.ok()) status = QueryBool(request, "rejected", &filter.rejected);
  if (status.ok()) status = QueryTime(request, "valid_at", &filter.valid_at);
  if (status.ok()) status = QueryTime(request, "known_at", &filter.known_at);
  if (!status.ok()) return ErrorResponse(status, request.request_id);
  StatusOr<std::vector<io::FactRecord>> facts = io::LoadFacts(engine_, *scope, filter);
  if (!facts.ok()) return ErrorResponse(facts.status(), request.request_id);
  ReadableCache readable(engine_, *request.access);
  for (io::FactRecord& fact : *facts) {
    for (std::vector<std::string>* ids : {&fact.supersedes, &fact.superseded_by, &fact.corrects,
                                          &fact.corrected_by, &fact.contradicts}) {
      KeepReadable(readable, *ids);
    }
  }
  return Ok(io::FactsDocument(*scope, filter, *facts));
}

ApiResponse V1Api::Entities(const ApiRequest& request) {
  StatusOr<Scope> scope = PathScope(request);
  if (!scope.ok()) return ErrorResponse(scope.status(), request.request_id);
  if (auto denied = Require(request, *scope, auth::Right::kRead)) return *denied;
  StatusOr<std::vector<io::EntityRecord>> entities = io::LoadEntities(engine_, *scope);
  if (!entities.ok()) return ErrorResponse(entities.status(), request.request_id);
  ReadableCache readable(engine_, *request.access);
  for (io::EntityRecord& entity : *entities) KeepReadable(readable, entity.same_as);
  return Ok(io::EntitiesDocument(*scope, *entities));
}

ApiResponse V1Api::Consolidate(const ApiRequest& request) {
  StatusOr<Scope> scope = PathScope(request);
  if (!scope.ok()) return ErrorResponse(scope.status(), request.request_id);
  if (auto denied = Require(request, *scope, auth::Right::kWrite)) return *denied;
  StatusOr<json> body = ObjectBody(request, {}, /*body_optional=*/true);
  if (!body.ok()) return ErrorResponse(body.status(), request.request_id);
  StatusOr<ConsolidateResult> result = engine_.Consolidate(*scope);
  if (!result.ok()) return ErrorResponse(result.status(), request.request_id);
  return Ok(ConsolidateResultView(*scope, *result));
}

ApiResponse V1Api::ConsolidatedListing(const ApiRequest& request, NodeKind kind) {
  StatusOr<Scope> scope = PathScope(request);
  if (!scope.ok()) return ErrorResponse(scope.status(), request.request_id);
  if (auto denied = Require(request, *scope, auth::Right::kRead)) return *denied;
  bool all = false;
  Status status = KnownQuery(request, {"all"});
  if (status.ok()) status = QueryBool(request, "all", &all);
  if (!status.ok()) return ErrorResponse(status, request.request_id);
  StatusOr<io::Json> view = ConsolidatedView(engine_, *scope, kind, all);
  if (!view.ok()) return ErrorResponse(view.status(), request.request_id);
  return Ok(*std::move(view));
}

ApiResponse V1Api::Episodes(const ApiRequest& request) {
  return ConsolidatedListing(request, NodeKind::kEpisode);
}

ApiResponse V1Api::Scenes(const ApiRequest& request) {
  return ConsolidatedListing(request, NodeKind::kScene);
}

ApiResponse V1Api::Profile(const ApiRequest& request) {
  return ConsolidatedListing(request, NodeKind::kProfile);
}

ApiResponse V1Api::Foresight(const ApiRequest& request) {
  StatusOr<Scope> scope = PathScope(request);
  if (!scope.ok()) return ErrorResponse(scope.status(), request.request_id);
  if (auto denied = Require(request, *scope, auth::Right::kRead)) return *denied;
  bool all = false;
  Timestamp at = SystemClock()->Now();
  Status status = KnownQuery(request, {"all", "at"});
  if (status.ok()) status = QueryBool(request, "all", &all);
  if (status.ok()) {
    if (const std::optional<std::string> text = QueryValue(request, "at")) {
      StatusOr<Timestamp> parsed = ParseTimestamp(*text);
      if (parsed.ok()) {
        at = *parsed;
      } else {
        status = Status::InvalidArgument("query parameter \"at\" must be an ISO-8601 time: " +
                                         parsed.status().message());
      }
    }
  }
  if (!status.ok()) return ErrorResponse(status, request.request_id);
  StatusOr<io::Json> view = ForesightView(engine_, *scope, at, all);
  if (!view.ok()) return ErrorResponse(view.status(), request.request_id);
  return Ok(*std::move(view));
}

ApiResponse V1Api::ListProposals(const ApiRequest& request) {
  StatusOr<Scope> scope = PathScope(request);
  if (!scope.ok()) return ErrorResponse(scope.status(), request.request_id);
  if (auto denied = Require(request, *scope, auth::Right::kRead)) return *denied;
  StatusOr<std::vector<MergeProposal>> proposals = engine_.ListProposals(*scope);
  if (!proposals.ok()) return ErrorResponse(proposals.status(), request.request_id);
  ReadableCache readable(engine_, *request.access);
  io::Json list = io::Json::array();
  for (const MergeProposal& proposal : *proposals) {
    if (!readable.Readable(proposal.a) || !readable.Readable(proposal.b)) continue;
    list.push_back(io::ToJson(proposal));
  }
  io::Json out = io::Json::object();
  out["scope"] = scope->ToString();
  out["count"] = list.size();
  out["proposals"] = std::move(list);
  return Ok(std::move(out));
}

ApiResponse V1Api::GetMemory(const ApiRequest& request) {
  StatusOr<Memory> memory = ReadableMemory(engine_, *request.access, PathParam(request, "id"));
  if (!memory.ok()) return ErrorResponse(memory.status(), request.request_id);
  return Ok(io::ToJson(*memory));
}

ApiResponse V1Api::History(const ApiRequest& request) {
  const std::string id = PathParam(request, "id");
  StatusOr<Memory> memory = ReadableMemory(engine_, *request.access, id);
  if (!memory.ok()) return ErrorResponse(memory.status(), request.request_id);
  StatusOr<std::vector<HistoryEvent>> history = engine_.History(id);
  if (!history.ok()) return ErrorResponse(history.status(), request.request_id);
  ReadableCache readable(engine_, *request.access);
  io::Json list = io::Json::array();
  for (const HistoryEvent& event : *history) {
    // An event relating to a memory the caller cannot read would reveal that memory's id.
    if (!event.related_id.empty() && !readable.Readable(event.related_id)) continue;
    list.push_back(io::ToJson(event));
  }
  io::Json out = io::Json::object();
  out["id"] = id;
  out["history"] = std::move(list);
  return Ok(std::move(out));
}

ApiResponse V1Api::Links(const ApiRequest& request) {
  const std::string id = PathParam(request, "id");
  StatusOr<Memory> memory = ReadableMemory(engine_, *request.access, id);
  if (!memory.ok()) return ErrorResponse(memory.status(), request.request_id);
  StatusOr<std::vector<Link>> links = engine_.Links(id);
  if (!links.ok()) return ErrorResponse(links.status(), request.request_id);
  ReadableCache readable(engine_, *request.access);
  io::Json list = io::Json::array();
  for (const Link& link : *links) {
    const std::string& other = link.src == id ? link.dst : link.src;
    if (!readable.Readable(other)) continue;
    list.push_back(LinkToJson(link));
  }
  io::Json out = io::Json::object();
  out["id"] = id;
  out["links"] = std::move(list);
  return Ok(std::move(out));
}

ApiResponse V1Api::Retire(const ApiRequest& request) {
  const std::string id = PathParam(request, "id");
  StatusOr<Memory> memory = ReadableMemory(engine_, *request.access, id);
  if (!memory.ok()) return ErrorResponse(memory.status(), request.request_id);
  if (auto denied = RequirePath(request, memory->scope, auth::Right::kWrite)) return *denied;
  StatusOr<json> body = ObjectBody(request, {"reason"}, /*body_optional=*/true);
  if (!body.ok()) return ErrorResponse(body.status(), request.request_id);
  std::string reason;
  Status status = StringField(*body, "reason", 4096, &reason);
  if (!status.ok()) return ErrorResponse(status, request.request_id);
  status = engine_.Retire(id, reason);
  if (!status.ok()) return ErrorResponse(status, request.request_id);
  StatusOr<Memory> after = engine_.Get(id);
  if (!after.ok()) return ErrorResponse(after.status(), request.request_id);
  return Ok(io::ToJson(*after));
}

ApiResponse V1Api::Amend(const ApiRequest& request) {
  const std::string id = PathParam(request, "id");
  StatusOr<Memory> memory = ReadableMemory(engine_, *request.access, id);
  if (!memory.ok()) return ErrorResponse(memory.status(), request.request_id);
  if (auto denied = RequirePath(request, memory->scope, auth::Right::kWrite)) return *denied;
  StatusOr<json> body = ObjectBody(
      request, {"text", "role", "speaker", "session_id", "event_time", "metadata", "reason"});
  if (!body.ok()) return ErrorResponse(body.status(), request.request_id);
  std::string reason;
  Status status = StringField(*body, "reason", 4096, &reason);
  if (!status.ok()) return ErrorResponse(status, request.request_id);
  body->erase("reason");
  StatusOr<Turn> replacement = ParseTurnObject(*body);
  if (!replacement.ok()) return ErrorResponse(replacement.status(), request.request_id);
  StatusOr<AmendResult> result = engine_.Amend(id, *replacement, reason);
  if (!result.ok()) return ErrorResponse(result.status(), request.request_id);
  io::Json out = io::Json::object();
  out["id"] = result->id;
  out["superseded_id"] = result->superseded_id;
  out["sequence"] = result->sequence;
  return Ok(std::move(out), 201);
}

ApiResponse V1Api::Propose(const ApiRequest& request) {
  StatusOr<json> body = ObjectBody(request, {"a", "b", "reason"});
  if (!body.ok()) return ErrorResponse(body.status(), request.request_id);
  std::string a, b, reason;
  Status status = StringField(*body, "a", 64, &a);
  if (status.ok()) status = StringField(*body, "b", 64, &b);
  if (status.ok()) status = StringField(*body, "reason", 4096, &reason);
  if (status.ok() && (a.empty() || b.empty())) {
    status = Status::InvalidArgument("\"a\" and \"b\" must be memory ids");
  }
  if (!status.ok()) return ErrorResponse(status, request.request_id);
  // Both must be readable (else 404, whichever side) before rights are looked at (403).
  std::vector<Memory> sides;
  for (const std::string* id : {&a, &b}) {
    StatusOr<Memory> memory = ReadableMemory(engine_, *request.access, *id);
    if (!memory.ok()) return ErrorResponse(memory.status(), request.request_id);
    sides.push_back(*std::move(memory));
  }
  for (const Memory& memory : sides) {
    if (auto denied = RequirePath(request, memory.scope, auth::Right::kWrite)) return *denied;
  }
  StatusOr<MergeProposal> proposal = engine_.ProposeSameAs(a, b, reason);
  if (!proposal.ok()) return ErrorResponse(proposal.status(), request.request_id);
  return Ok(io::ToJson(*proposal), 201);
}

ApiResponse V1Api::DecideProposal(const ApiRequest& request, bool accept) {
  const std::string id = PathParam(request, "id");
  if (!core::LooksLikeId(id))
    return BadRequest("proposal id must be 32 lowercase hex digits", request);
  StatusOr<json> body = ObjectBody(request, {}, /*body_optional=*/true);
  if (!body.ok()) return ErrorResponse(body.status(), request.request_id);
  const Status not_found = Status::NotFound("proposal " + id + " not found");
  if (!request.access->unrestricted()) {
    // Find the proposal among those of the scopes the caller can read; it must be able to read
    // both sides and write to them.
    StatusOr<std::vector<ScopeInfo>> scopes = engine_.ListScopes();
    if (!scopes.ok()) return ErrorResponse(scopes.status(), request.request_id);
    std::optional<MergeProposal> found;
    for (const ScopeInfo& info : *scopes) {
      if (found || !request.access->AllowsPath(info.scope, auth::Right::kRead)) continue;
      StatusOr<Scope> scope = Scope::Parse(info.scope);
      if (!scope.ok()) continue;
      StatusOr<std::vector<MergeProposal>> proposals = engine_.ListProposals(*scope);
      if (!proposals.ok()) continue;
      for (const MergeProposal& proposal : *proposals) {
        if (proposal.id == id) found = proposal;
      }
    }
    if (!found) return ErrorResponse(not_found, request.request_id);
    std::vector<Memory> sides;
    for (const std::string* side : {&found->a, &found->b}) {
      StatusOr<Memory> memory = ReadableMemory(engine_, *request.access, *side);
      if (!memory.ok()) return ErrorResponse(not_found, request.request_id);
      sides.push_back(*std::move(memory));
    }
    for (const Memory& memory : sides) {
      if (auto denied = RequirePath(request, memory.scope, auth::Right::kWrite)) return *denied;
    }
  }
  const Status status = accept ? engine_.AcceptProposal(id) : engine_.RejectProposal(id);
  if (!status.ok()) return ErrorResponse(status, request.request_id);
  io::Json out = io::Json::object();
  out["id"] = id;
  out["status"] = accept ? "accepted" : "rejected";
  return Ok(std::move(out));
}

ApiResponse V1Api::AcceptProposal(const ApiRequest& request) {
  return DecideProposal(request, /*accept=*/true);
}

ApiResponse V1Api::RejectProposal(const ApiRequest& request) {
  return DecideProposal(request, /*accept=*/false);
}

Status V1Api::GraphQuery(const ApiRequest& request, const std::set<std::string>& allowed,
                         GraphQueryOptions* options) const {
  RETURN_IF_ERROR(KnownQuery(request, allowed));
  if (const std::optional<std::string> types = QueryValue(request, "types")) {
    StatusOr<std::vector<std::string>> parsed = io::ParseEdgeTypeList(*types);
    if (!parsed.ok()) {
      return Status::InvalidArgument("query parameter \"types\": " + parsed.status().message());
    }
    options->edge_types = *std::move(parsed);
  }
  if (const std::optional<std::string> direction = QueryValue(request, "direction")) {
    StatusOr<GraphDirection> parsed = ParseGraphDirection(*direction);
    if (!parsed.ok()) {
      return Status::InvalidArgument("query parameter \"direction\": " + parsed.status().message());
    }
    options->direction = *parsed;
  }
  std::int64_t limit = static_cast<std::int64_t>(options->limit);
  RETURN_IF_ERROR(
      QueryNumber(request, "limit", 1, static_cast<std::int64_t>(kMaxGraphLimit), &limit));
  options->limit = static_cast<std::size_t>(limit);
  std::int64_t depth = static_cast<std::int64_t>(options->max_depth);
  RETURN_IF_ERROR(
      QueryNumber(request, "max_depth", 1, static_cast<std::int64_t>(kMaxGraphDepth), &depth));
  options->max_depth = static_cast<std::size_t>(depth);
  RETURN_IF_ERROR(QueryBool(request, "include_retired", &options->include_retired));
  RETURN_IF_ERROR(QueryTime(request, "valid_at", &options->valid_at));
  RETURN_IF_ERROR(QueryTime(request, "known_at", &options->known_at));
  const auth::Access* access = request.access;
  options->readable_scope = [access](std::string_view scope) {
    return access->AllowsPath(std::string(scope), auth::Right::kRead);
  };
  return Status::Ok();
}

ApiResponse V1Api::Neighbours(const ApiRequest& request) {
  const std::string id = PathParam(request, "id");
  StatusOr<Memory> memory = ReadableMemory(engine_, *request.access, id);
  if (!memory.ok()) return ErrorResponse(memory.status(), request.request_id);
  GraphQueryOptions options;
  Status status = GraphQuery(
      request, {"types", "direction", "limit", "include_retired", "valid_at", "known_at"},
      &options);
  if (!status.ok()) return ErrorResponse(status, request.request_id);
  StatusOr<NeighboursResult> result = engine_.Neighbours(id, options);
  if (!result.ok()) return ErrorResponse(result.status(), request.request_id);
  return Ok(io::ToJson(*result));
}

ApiResponse V1Api::Paths(const ApiRequest& request) {
  const std::string id = PathParam(request, "id");
  StatusOr<Memory> memory = ReadableMemory(engine_, *request.access, id);
  if (!memory.ok()) return ErrorResponse(memory.status(), request.request_id);
  GraphQueryOptions options;
  Status status = GraphQuery(
      request,
      {"to", "types", "direction", "limit", "max_depth", "include_retired", "valid_at", "known_at"},
      &options);
  if (!status.ok()) return ErrorResponse(status, request.request_id);
  const std::string to = QueryValue(request, "to").value_or("");
  if (to.empty()) return BadRequest("query parameter \"to\" must be a memory id", request);
  StatusOr<Memory> end = ReadableMemory(engine_, *request.access, to);
  if (!end.ok()) return ErrorResponse(end.status(), request.request_id);
  StatusOr<PathsResult> result = engine_.Paths(id, to, options);
  if (!result.ok()) return ErrorResponse(result.status(), request.request_id);
  return Ok(io::ToJson(*result));
}

ApiResponse V1Api::IdentityClass(const ApiRequest& request) {
  const std::string id = PathParam(request, "id");
  StatusOr<Memory> memory = ReadableMemory(engine_, *request.access, id);
  if (!memory.ok()) return ErrorResponse(memory.status(), request.request_id);
  GraphQueryOptions options;
  Status status =
      GraphQuery(request, {"limit", "include_retired", "valid_at", "known_at"}, &options);
  if (!status.ok()) return ErrorResponse(status, request.request_id);
  StatusOr<IdentityClassResult> result = engine_.IdentityClass(id, options);
  if (!result.ok()) return ErrorResponse(result.status(), request.request_id);
  return Ok(io::ToJson(*result));
}

ApiResponse V1Api::EdgeTypes(const ApiRequest& request) {
  if (Status status = KnownQuery(request, {}); !status.ok()) {
    return ErrorResponse(status, request.request_id);
  }
  return Ok(io::EdgeTypesToJson(engine_.EdgeTypes()));
}

ApiResponse V1Api::AddEdge(const ApiRequest& request) {
  StatusOr<Scope> scope = PathScope(request);
  if (!scope.ok()) return ErrorResponse(scope.status(), request.request_id);
  if (auto denied = Require(request, *scope, auth::Right::kWrite)) return *denied;
  StatusOr<json> body = ObjectBody(request, {"type", "src", "dst", "attrs", "valid_from"});
  if (!body.ok()) return ErrorResponse(body.status(), request.request_id);
  NewEdge edge;
  Status status = StringField(*body, "type", 64, &edge.type);
  if (status.ok()) status = StringField(*body, "src", 64, &edge.src);
  if (status.ok()) status = StringField(*body, "dst", 64, &edge.dst);
  if (status.ok()) status = TimeField(*body, "valid_from", &edge.valid_from);
  if (status.ok() && (edge.type.empty() || edge.src.empty() || edge.dst.empty())) {
    status = Status::InvalidArgument("\"type\", \"src\" and \"dst\" are required");
  }
  if (status.ok()) {
    const auto attrs = body->find("attrs");
    if (attrs != body->end() && !attrs->is_null()) {
      if (!attrs->is_object()) {
        status = Status::InvalidArgument(std::string("\"attrs\" must be a JSON object, got ") +
                                         attrs->type_name());
      } else {
        edge.attrs_json = attrs->dump(-1, ' ', false, json::error_handler_t::replace);
      }
    }
  }
  if (!status.ok()) return ErrorResponse(status, request.request_id);
  // Both ends must be memories the caller may read (else 404, whichever side).
  for (const auto& [field, id] :
       {std::pair<std::string_view, const std::string*>{"src", &edge.src}, {"dst", &edge.dst}}) {
    StatusOr<Memory> memory = ReadableMemory(engine_, *request.access, *id);
    if (!memory.ok()) {
      return ErrorResponse(memory.status().WithContext(field), request.request_id);
    }
  }
  StatusOr<GraphEdge> added = engine_.AddEdge(*scope, edge);
  if (!added.ok()) return ErrorResponse(added.status(), request.request_id);
  return Ok(io::ToJson(*added), 201);
}

StatusOr<GraphEdge> V1Api::ReadableEdge(const ApiRequest& request, std::string_view id) {
  if (!core::LooksLikeId(id)) {
    return Status::InvalidArgument("edge id must be 32 lowercase hex digits");
  }
  const Status not_found = Status::NotFound("edge " + std::string(id) + " not found");
  StatusOr<GraphEdge> edge = engine_.GetEdge(id);
  if (!edge.ok()) {
    return edge.status().code() == StatusCode::kNotFound ? not_found : edge.status();
  }
  if (!request.access->AllowsPath(edge->scope, auth::Right::kRead)) return not_found;
  for (const std::string* end : {&edge->src, &edge->dst}) {
    if (!ReadableMemory(engine_, *request.access, *end).ok()) return not_found;
  }
  return edge;
}

ApiResponse V1Api::GetEdge(const ApiRequest& request) {
  StatusOr<GraphEdge> edge = ReadableEdge(request, PathParam(request, "id"));
  if (!edge.ok()) return ErrorResponse(edge.status(), request.request_id);
  return Ok(io::ToJson(*edge));
}

ApiResponse V1Api::RetireEdge(const ApiRequest& request) {
  const std::string id = PathParam(request, "id");
  StatusOr<GraphEdge> edge = ReadableEdge(request, id);
  if (!edge.ok()) return ErrorResponse(edge.status(), request.request_id);
  if (auto denied = RequirePath(request, edge->scope, auth::Right::kWrite)) return *denied;
  StatusOr<json> body = ObjectBody(request, {}, /*body_optional=*/true);
  if (!body.ok()) return ErrorResponse(body.status(), request.request_id);
  Status status = engine_.RetireEdge(id);
  if (!status.ok()) return ErrorResponse(status, request.request_id);
  StatusOr<GraphEdge> after = engine_.GetEdge(id);
  if (!after.ok()) return ErrorResponse(after.status(), request.request_id);
  return Ok(io::ToJson(*after));
}

ApiResponse V1Api::RebuildIndex(const ApiRequest& request) {
  if (!request.access->IsServerAdmin()) {
    return ForbiddenResponse("rebuilding the index needs a root key with the admin right",
                             request.request_id);
  }
  StatusOr<json> body = ObjectBody(request, {}, /*body_optional=*/true);
  if (!body.ok()) return ErrorResponse(body.status(), request.request_id);
  StatusOr<RebuildReport> report = engine_.RebuildIndex();
  if (!report.ok()) return ErrorResponse(report.status(), request.request_id);
  return Ok(io::ToJson(*report));
}

ApiResponse V1Api::Info(const ApiRequest& request) {
  (void)request;
  io::Json out = io::Json::object();
  out["embedder"] = engine_.embedder_id();
  out["limits"] = io::Json::object();
  out["limits"]["max_turns_per_request"] = limits_.max_turns_per_request;
  out["limits"]["max_query_bytes"] = limits_.max_query_bytes;
  out["limits"]["max_k"] = limits_.max_k;
  out["limits"]["max_token_budget"] = limits_.max_token_budget;
  out["limits"]["max_list_limit"] = limits_.max_list_limit;
  out["limits"]["max_timeline_scan"] = limits_.max_timeline_scan;
  return Ok(std::move(out));
}

ApiResponse V1Api::OpenApi(const ApiRequest& request) {
  (void)request;
  return Ok(OpenApiDocument());
}

}  // namespace engram::server
