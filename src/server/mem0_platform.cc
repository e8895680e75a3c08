// mem0's platform routes (see mem0_platform.h and docs/API.md, "mem0-compatible routes").
#include "server/mem0_platform.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "server/mem0_support.h"

namespace engram::server {
namespace {

using io::Json;
using mem0_support::CheckFields;
using mem0_support::CurrentMemory;
using mem0_support::Detail;
using mem0_support::EngineError;
using mem0_support::Identifiers;
using mem0_support::IdentifiersFromBody;
using mem0_support::Invalid;
using mem0_support::InvalidField;
using mem0_support::MayRead;
using mem0_support::Mem0Item;
using mem0_support::MemoryIdParam;
using mem0_support::ParseObjectBody;
using mem0_support::RequireRight;
using mem0_support::ScopeOf;
using mem0_support::ScopesWithIdentifiers;
using mem0_support::TypeName;
using mem0_support::Unexpected;
using nlohmann::json;

constexpr std::string_view kNoAppId =
    "app_id is not supported: engram maps user_id, agent_id and run_id to nested scopes and has "
    "no app level; put the app in metadata, or use agent_id";
constexpr std::string_view kFilterIdentifier =
    "filters must name a user_id, agent_id or run_id (for example {\"user_id\": \"alice\"}, or "
    "{\"AND\": [{\"user_id\": \"alice\"}, ...]}): engram searches and lists one user's, agent's "
    "or run's memories";

// Options of mem0's platform that steer its LLM, its result format or its tenancy: accepted and
// without effect here.
const std::set<std::string_view> kIgnoredAddOptions = {"custom_categories",
                                                       "custom_instructions",
                                                       "agent_custom_instructions",
                                                       "structured_data_schema",
                                                       "async_mode",
                                                       "output_format",
                                                       "version",
                                                       "enable_graph",
                                                       "includes",
                                                       "excludes",
                                                       "prompt",
                                                       "org_id",
                                                       "project_id",
                                                       "source"};
const std::set<std::string_view> kIgnoredSearchOptions = {
    "rerank",      "keyword_search", "fields", "output_format", "version",   "enable_graph",
    "latest_only", "show_expired",   "source", "org_id",        "project_id"};
const std::set<std::string_view> kIgnoredListOptions = {
    "latest_only", "show_expired", "output_format", "version", "enable_graph",
    "fields",      "org_id",       "project_id",    "source"};

// `request` with another body.
ApiRequest WithBody(const ApiRequest& request, const json& body) {
  ApiRequest copy = request;
  copy.body = body.dump();
  return copy;
}

// A POST body, where an empty one is {} (mem0's clients send none when a call has no options).
std::optional<ApiResponse> PlatformBody(const ApiRequest& request, std::size_t max_bytes,
                                        json* body) {
  if (request.body.find_first_not_of(" \t\r\n") == std::string::npos) {
    *body = json::object();
    return std::nullopt;
  }
  return ParseObjectBody(request, max_bytes, body);
}

bool Given(const json& body, std::string_view field) {
  auto found = body.find(std::string(field));
  if (found == body.end() || found->is_null()) return false;
  // An empty list or false asks for nothing (the npm client sends categories: [] as a default).
  if (found->is_boolean()) return found->get<bool>();
  return !(found->is_array() && found->empty());
}

// Fields whose meaning engram does not have: a 422 naming the field rather than an answer
// that silently ignores what was asked. `app_id` is refused everywhere.
std::optional<ApiResponse> RefuseUnsupported(
    const json& body, const std::map<std::string_view, std::string_view>& unsupported) {
  if (Given(body, "app_id")) return InvalidField("app_id", std::string(kNoAppId), "value_error");
  for (const auto& [field, why] : unsupported) {
    if (Given(body, field)) return InvalidField(field, std::string(why), "value_error");
  }
  return std::nullopt;
}

// mem0's platform filters: a "metadata" key holds conditions on metadata keys (engram's filter
// language names metadata keys directly), and app_id is refused. Returns the filter in the
// self-hosted language, or a 400 naming the place.
std::optional<ApiResponse> NormaliseFilters(const json& filters, const std::string& where,
                                            json* out) {
  if (!filters.is_object()) {
    *out = filters;  // Mem0Filter::Compile names the problem
    return std::nullopt;
  }
  json rest = json::object();
  json metadata;
  for (const auto& [key, value] : filters.items()) {
    if (key == "app_id")
      return Detail(400, "filters" + where + ".app_id: " + std::string(kNoAppId));
    if ((key == "AND" || key == "OR" || key == "NOT") && value.is_array()) {
      json parts = json::array();
      for (std::size_t index = 0; index < value.size(); ++index) {
        json part;
        MEM0_RETURN_IF_ERROR(NormaliseFilters(
            value[index], where + "." + key + "[" + std::to_string(index) + "]", &part));
        parts.push_back(std::move(part));
      }
      rest[key] = std::move(parts);
    } else if (key == "NOT" && value.is_object()) {
      MEM0_RETURN_IF_ERROR(NormaliseFilters(value, where + ".NOT", &rest[key]));
    } else if (key == "metadata" && value.is_object()) {
      metadata = value;
    } else {
      rest[key] = value;
    }
  }
  if (metadata.is_null()) {
    *out = std::move(rest);
  } else if (rest.empty()) {
    *out = std::move(metadata);
  } else {
    *out = json{{"AND", json::array({std::move(rest), std::move(metadata)})}};
  }
  return std::nullopt;
}

// Two filters that must both hold (either may be null: absent).
json BothFilters(json a, json b) {
  if (a.is_null()) return b;
  if (b.is_null()) return a;
  return json{{"AND", json::array({std::move(a), std::move(b)})}};
}

// The body's filters (with a top-level "metadata" object as conditions on metadata keys), in the
// self-hosted language, and the identifiers the body and the filters name.
std::optional<ApiResponse> PlatformFilters(const json& body, json* filters, Identifiers* ids) {
  MEM0_RETURN_IF_ERROR(IdentifiersFromBody(body, ids));
  json given;
  if (auto found = body.find("filters"); found != body.end() && !found->is_null()) {
    if (!found->is_object()) {
      return InvalidField("filters", "must be an object, got " + std::string(TypeName(*found)),
                          "dict_type");
    }
    MEM0_RETURN_IF_ERROR(NormaliseFilters(*found, "", &given));
  }
  if (auto metadata = body.find("metadata"); metadata != body.end() && !metadata->is_null()) {
    if (!metadata->is_object()) {
      return InvalidField("metadata", "must be an object, got " + std::string(TypeName(*metadata)),
                          "dict_type");
    }
    if (!metadata->empty()) given = BothFilters(std::move(given), *metadata);
  }
  if (!given.is_null()) Mem0FilterIdentifiers(given, ids);
  *filters = std::move(given);
  return std::nullopt;
}

// A positive integer query parameter no larger than `max`; `fallback` when absent.
std::optional<ApiResponse> QueryCount(const ApiRequest& request, std::string_view name,
                                      std::size_t max, std::size_t fallback, std::size_t* out) {
  *out = fallback;
  std::optional<std::string> given = QueryValue(request, name);
  if (!given) return std::nullopt;
  const bool digits = !given->empty() && given->size() <= 9 &&
                      given->find_first_not_of("0123456789") == std::string::npos;
  const std::size_t value = digits ? std::stoul(*given) : 0;
  if (value < 1 || value > max) {
    return Invalid({"query", std::string(name)},
                   std::string(name) + ": must be an integer from 1 to " + std::to_string(max),
                   "int_parsing");
  }
  *out = value;
  return std::nullopt;
}

// {"count", "next", "previous", "results"} of page `page` (from 1) of `items`; next and previous
// are the path with the other page's query.
Json Page(std::vector<Json> items, std::size_t page, std::size_t page_size,
          const std::string& path) {
  Json body = Json::object();
  body["count"] = items.size();
  const std::size_t first = std::min(items.size(), (page - 1) * page_size);
  const std::size_t last = std::min(items.size(), first + page_size);
  auto link = [&](std::size_t to) {
    return Json(path + "?page=" + std::to_string(to) + "&page_size=" + std::to_string(page_size));
  };
  body["next"] = last < items.size() ? link(page + 1) : Json(nullptr);
  body["previous"] = page > 1 && first > 0 ? link(page - 1) : Json(nullptr);
  Json results = Json::array();
  for (std::size_t index = first; index < last; ++index) results.push_back(std::move(items[index]));
  body["results"] = std::move(results);
  return body;
}

}  // namespace

Mem0PlatformApi::Mem0PlatformApi(Engine& engine, Mem0PlatformOptions options)
    : engine_(engine), options_(std::move(options)), self_hosted_(engine, options_.mem0) {}

RouteList Mem0PlatformApi::Routes() {
  auto bind = [this](ApiResponse (Mem0PlatformApi::*handler)(const ApiRequest&)) {
    return [this, handler](const ApiRequest& request) { return (this->*handler)(request); };
  };
  return {
      {"GET", "/v1/ping", bind(&Mem0PlatformApi::Ping)},
      {"POST", "/v3/memories/add", bind(&Mem0PlatformApi::Add)},
      {"POST", "/v1/memories", bind(&Mem0PlatformApi::Add)},
      {"POST", "/v3/memories/search", bind(&Mem0PlatformApi::Search)},
      {"POST", "/v2/memories/search", bind(&Mem0PlatformApi::Search)},
      {"POST", "/v1/memories/search", bind(&Mem0PlatformApi::Search)},
      {"POST", "/v3/memories", bind(&Mem0PlatformApi::List)},
      {"POST", "/v2/memories", bind(&Mem0PlatformApi::List)},
      {"DELETE", "/v1/memories", bind(&Mem0PlatformApi::DeleteAll)},
      {"GET", "/v1/memories/{id}", bind(&Mem0PlatformApi::Get)},
      {"PUT", "/v1/memories/{id}", bind(&Mem0PlatformApi::Update)},
      {"DELETE", "/v1/memories/{id}", bind(&Mem0PlatformApi::Delete)},
      {"GET", "/v1/memories/{id}/history", bind(&Mem0PlatformApi::History)},
      {"GET", "/v1/entities", bind(&Mem0PlatformApi::Entities)},
      {"DELETE", "/v1/entities/{entity_type}/{entity_id}", bind(&Mem0PlatformApi::DeleteEntity)},
      {"DELETE", "/v2/entities/{entity_type}/{entity_id}", bind(&Mem0PlatformApi::DeleteEntity)},
      {"PUT", "/v1/batch", bind(&Mem0PlatformApi::BatchUpdate)},
      {"DELETE", "/v1/batch", bind(&Mem0PlatformApi::BatchDelete)},
  };
}

ApiResponse Mem0PlatformApi::Ping(const ApiRequest& /*request*/) {
  // The server authenticated the key before this ran; mem0's clients read org_id / project_id
  // when both are set, and engram has neither.
  ApiResponse response;
  response.body = Json::object();
  response.body["status"] = "ok";
  response.body["message"] = "engram is ready";
  response.body["org_id"] = nullptr;
  response.body["project_id"] = nullptr;
  response.body["user_email"] = nullptr;
  return response;
}

ApiResponse Mem0PlatformApi::Add(const ApiRequest& request) try {
  json body;
  MEM0_RETURN_IF_ERROR(ParseObjectBody(request, options_.mem0.max_body_bytes, &body));
  MEM0_RETURN_IF_ERROR(RefuseUnsupported(
      body, {{"timestamp", "is not supported: a memory's time is when engram stores it"},
             {"expiration_date", "is not supported: engram's memories do not expire"},
             {"immutable", "is not supported: every engram memory can be updated"}}));
  const std::set<std::string_view> passed = {"messages", "user_id",  "agent_id",
                                             "run_id",   "metadata", "infer"};
  std::set<std::string_view> ignored = kIgnoredAddOptions;
  for (std::string_view refused : {"app_id", "timestamp", "expiration_date", "immutable"}) {
    ignored.insert(refused);  // null or false: nothing asked
  }
  MEM0_RETURN_IF_ERROR(CheckFields(body, passed, ignored));
  json forwarded = json::object();
  for (const auto& [key, value] : body.items()) {
    if (passed.contains(key)) forwarded[key] = value;
  }
  return self_hosted_.AddMemories(WithBody(request, forwarded));
} catch (const std::exception& error) {
  return Unexpected(error);
}

ApiResponse Mem0PlatformApi::Search(const ApiRequest& request) try {
  json body;
  MEM0_RETURN_IF_ERROR(ParseObjectBody(request, options_.mem0.max_body_bytes, &body));
  MEM0_RETURN_IF_ERROR(RefuseUnsupported(
      body, {{"categories", "is not supported: engram assigns no categories; filter on metadata"},
             {"reference_date", "is not supported: search as of a date is not offered here"}}));
  std::set<std::string_view> ignored = kIgnoredSearchOptions;
  for (std::string_view refused : {"app_id", "categories", "reference_date"}) {
    ignored.insert(refused);
  }
  MEM0_RETURN_IF_ERROR(CheckFields(body,
                                   {"query", "filters", "metadata", "top_k", "limit", "threshold",
                                    "user_id", "agent_id", "run_id"},
                                   ignored));
  json filters;
  Identifiers ids;
  MEM0_RETURN_IF_ERROR(PlatformFilters(body, &filters, &ids));
  if (ids.empty()) return Detail(400, std::string(kFilterIdentifier));
  json forwarded = json::object();
  for (std::string_view key : {"query", "top_k", "limit", "threshold"}) {
    if (auto found = body.find(std::string(key)); found != body.end()) forwarded[key] = *found;
  }
  if (ids.user_id) forwarded["user_id"] = *ids.user_id;
  if (ids.agent_id) forwarded["agent_id"] = *ids.agent_id;
  if (ids.run_id) forwarded["run_id"] = *ids.run_id;
  if (!filters.is_null()) forwarded["filters"] = std::move(filters);
  return self_hosted_.Search(WithBody(request, forwarded));
} catch (const std::exception& error) {
  return Unexpected(error);
}

ApiResponse Mem0PlatformApi::List(const ApiRequest& request) try {
  json body;
  MEM0_RETURN_IF_ERROR(PlatformBody(request, options_.mem0.max_body_bytes, &body));
  MEM0_RETURN_IF_ERROR(RefuseUnsupported(
      body,
      {{"categories", "is not supported: engram assigns no categories; filter on metadata"}}));
  std::set<std::string_view> ignored = kIgnoredListOptions;
  ignored.insert("app_id");
  ignored.insert("categories");
  MEM0_RETURN_IF_ERROR(CheckFields(body,
                                   {"filters", "metadata", "start_date", "end_date", "user_id",
                                    "agent_id", "run_id", "page", "page_size"},
                                   ignored));
  json filters;
  Identifiers ids;
  MEM0_RETURN_IF_ERROR(PlatformFilters(body, &filters, &ids));
  // start_date / end_date: when the memories were added, as the filter language's created_at.
  for (const auto& [field, op] : {std::pair{"start_date", "gte"}, std::pair{"end_date", "lte"}}) {
    auto found = body.find(field);
    if (found == body.end() || found->is_null()) continue;
    if (!found->is_string() || !ParseTimestamp(found->get<std::string>()).ok()) {
      return InvalidField(field, "must be an ISO-8601 date or timestamp, got " + found->dump(),
                          "datetime_parsing");
    }
    filters = BothFilters(std::move(filters), json{{"created_at", {{op, *found}}}});
  }
  if (ids.empty()) return Detail(400, std::string(kFilterIdentifier));
  std::optional<Mem0Filter> filter;
  if (!filters.is_null()) {
    StatusOr<Mem0Filter> compiled = Mem0Filter::Compile(filters);
    if (!compiled.ok()) return Detail(400, compiled.status().message());
    filter = *std::move(compiled);
  }
  std::size_t page = 1;
  std::size_t page_size = options_.default_page_size;
  MEM0_RETURN_IF_ERROR(QueryCount(request, "page", 1'000'000, 1, &page));
  MEM0_RETURN_IF_ERROR(QueryCount(request, "page_size", options_.max_page_size,
                                  options_.default_page_size, &page_size));
  Scope scope;
  MEM0_RETURN_IF_ERROR(ScopeOf(ids, &scope));
  MEM0_RETURN_IF_ERROR(RequireRight(request, scope, auth::Right::kRead));

  // As the self-hosted list: every readable scope with the identifiers (a field match), its
  // active memories in the order they were added, then the filter.
  StatusOr<std::vector<Scope>> scopes = ScopesWithIdentifiers(engine_, scope);
  if (!scopes.ok()) return EngineError(scopes.status());
  std::vector<Memory> memories;
  for (const Scope& listed : *scopes) {
    if (!MayRead(request, listed.ToString())) continue;
    StatusOr<std::vector<Memory>> found =
        engine_.List(listed, {.limit = 0, .include_retired = false});
    if (!found.ok()) return EngineError(found.status());
    for (Memory& memory : *found) {
      if (filter && !filter->Matches(Mem0Filter::FieldsOf(memory))) continue;
      memories.push_back(std::move(memory));
    }
  }
  std::sort(memories.begin(), memories.end(), [](const Memory& a, const Memory& b) {
    return std::tie(a.ingested_at, a.scope, a.sequence, a.id) <
           std::tie(b.ingested_at, b.scope, b.sequence, b.id);
  });
  std::vector<Json> items;
  items.reserve(memories.size());
  for (const Memory& memory : memories) items.push_back(Mem0Item(memory, std::nullopt));
  ApiResponse response;
  response.body = Page(std::move(items), page, page_size, request.path);
  return response;
} catch (const std::exception& error) {
  return Unexpected(error);
}

ApiResponse Mem0PlatformApi::Get(const ApiRequest& request) {
  return self_hosted_.GetMemory(request);
}

ApiResponse Mem0PlatformApi::Update(const ApiRequest& request) try {
  json body;
  MEM0_RETURN_IF_ERROR(ParseObjectBody(request, options_.mem0.max_body_bytes, &body));
  MEM0_RETURN_IF_ERROR(RefuseUnsupported(
      body, {{"timestamp", "is not supported: a memory's time is when engram stores it"},
             {"expiration_date", "is not supported: engram's memories do not expire"}}));
  MEM0_RETURN_IF_ERROR(CheckFields(body, {"text", "metadata"},
                                   {"timestamp", "expiration_date", "org_id", "project_id"}));
  const bool has_text = body.contains("text") && !body["text"].is_null();
  const bool has_metadata = body.contains("metadata") && !body["metadata"].is_null();
  if (!has_text && !has_metadata) {
    return Invalid({"body", "text"}, "text: give text, metadata or both", "missing");
  }
  json forwarded = json::object();
  if (has_metadata) forwarded["metadata"] = body["metadata"];
  if (has_text) {
    forwarded["text"] = body["text"];
  } else {
    // A metadata-only update keeps the current text.
    Memory current;
    MEM0_RETURN_IF_ERROR(CurrentMemory(engine_, request, MemoryIdParam(request), &current));
    forwarded["text"] = current.text;
  }
  ApiResponse updated = self_hosted_.UpdateMemory(WithBody(request, forwarded));
  if (updated.status != 200) return updated;
  // mem0's platform answers with the memory as it now is.
  StatusOr<Memory> memory = engine_.Get(updated.body["id"].get<std::string>());
  if (!memory.ok()) return EngineError(memory.status());
  ApiResponse response;
  response.body = Mem0Item(*memory, std::nullopt);
  response.body["message"] = updated.body["message"];
  response.body["engram"]["superseded_id"] = updated.body["engram"]["superseded_id"];
  return response;
} catch (const std::exception& error) {
  return Unexpected(error);
}

ApiResponse Mem0PlatformApi::Delete(const ApiRequest& request) {
  // delete_linked (also delete what this memory superseded): the older versions are superseded
  // already, hidden from search, list and get, so it changes nothing here.
  return self_hosted_.DeleteMemory(request);
}

ApiResponse Mem0PlatformApi::History(const ApiRequest& request) {
  return self_hosted_.History(request);
}

ApiResponse Mem0PlatformApi::DeleteAll(const ApiRequest& request) {
  if (QueryValue(request, "app_id").value_or("") != "") {
    return Invalid({"query", "app_id"}, "app_id: " + std::string(kNoAppId), "value_error");
  }
  return self_hosted_.DeleteAll(request);
}

ApiResponse Mem0PlatformApi::Entities(const ApiRequest& request) try {
  std::size_t page = 1;
  std::size_t page_size = options_.default_page_size;
  MEM0_RETURN_IF_ERROR(QueryCount(request, "page", 1'000'000, 1, &page));
  MEM0_RETURN_IF_ERROR(QueryCount(request, "page_size", options_.max_page_size,
                                  options_.default_page_size, &page_size));
  struct Entity {
    std::int64_t memories = 0;
    Timestamp first;
    Timestamp last;
  };
  // (type, name) -> what the readable scopes with that identifier hold; a scope
  // user:alice/agent:bot counts for the user and for the agent, as in mem0.
  std::map<std::pair<std::string, std::string>, Entity> entities;
  StatusOr<std::vector<ScopeInfo>> scopes = engine_.ListScopes();
  if (!scopes.ok()) return EngineError(scopes.status());
  for (const ScopeInfo& info : *scopes) {
    const Identifiers ids = Mem0ScopeIdentifiers(info.scope);
    if (ids.empty() || !MayRead(request, info.scope)) continue;
    StatusOr<Scope> scope = Scope::Parse(info.scope);
    if (!scope.ok()) continue;
    StatusOr<std::vector<Memory>> memories =
        engine_.List(*scope, {.limit = 0, .include_retired = false});
    if (!memories.ok()) return EngineError(memories.status());
    if (memories->empty()) continue;
    for (const auto& [type, name] :
         {std::pair{"user", &ids.user_id}, std::pair{"agent", &ids.agent_id},
          std::pair{"run", &ids.run_id}}) {
      if (!name->has_value()) continue;
      Entity& entity = entities[{type, **name}];
      for (const Memory& memory : *memories) {
        if (entity.memories == 0 || memory.ingested_at < entity.first) {
          entity.first = memory.ingested_at;
        }
        if (entity.memories == 0 || entity.last < memory.updated_at)
          entity.last = memory.updated_at;
        ++entity.memories;
      }
    }
  }
  std::vector<Json> items;
  for (const auto& [key, entity] : entities) {
    Json item = Json::object();
    item["id"] = key.first + ":" + key.second;
    item["name"] = key.second;
    item["type"] = key.first;
    item["total_memories"] = entity.memories;
    item["created_at"] = FormatTimestamp(entity.first);
    item["updated_at"] = FormatTimestamp(entity.last);
    item["owner"] = nullptr;
    item["organization"] = nullptr;
    item["metadata"] = Json::object();
    items.push_back(std::move(item));
  }
  ApiResponse response;
  response.body = Page(std::move(items), page, page_size, request.path);
  return response;
} catch (const std::exception& error) {
  return Unexpected(error);
}

ApiResponse Mem0PlatformApi::DeleteEntity(const ApiRequest& request) try {
  const std::string type = request.path_params.count("entity_type") != 0
                               ? request.path_params.at("entity_type")
                               : std::string();
  const std::string id =
      request.path_params.count("entity_id") != 0 ? request.path_params.at("entity_id") : "";
  if (type == "app") return Detail(400, std::string(kNoAppId));
  if (type != "user" && type != "agent" && type != "run") {
    return Detail(
        400, "Invalid entity type \"" + type.substr(0, 64) + "\" (engram has user, agent and run)");
  }
  ApiRequest delete_all = request;
  delete_all.query.clear();
  delete_all.query.emplace(type + "_id", id);
  ApiResponse deleted = self_hosted_.DeleteAll(delete_all);
  if (deleted.status != 200) return deleted;
  deleted.body["message"] = "Entity deleted successfully!";
  return deleted;
} catch (const std::exception& error) {
  return Unexpected(error);
}

ApiResponse Mem0PlatformApi::BatchUpdate(const ApiRequest& request) {
  return Batch(request, /*update=*/true);
}

ApiResponse Mem0PlatformApi::BatchDelete(const ApiRequest& request) {
  return Batch(request, /*update=*/false);
}

ApiResponse Mem0PlatformApi::Batch(const ApiRequest& request, bool update) try {
  json body;
  MEM0_RETURN_IF_ERROR(ParseObjectBody(request, options_.mem0.max_body_bytes, &body));
  MEM0_RETURN_IF_ERROR(CheckFields(body, {"memories"}, {}));
  auto memories = body.find("memories");
  if (memories == body.end() || !memories->is_array() || memories->empty()) {
    return Invalid({"body", "memories"}, "memories: a non-empty list is required", "missing");
  }
  if (memories->size() > options_.max_batch) {
    return InvalidField("memories",
                        "holds " + std::to_string(memories->size()) + " entries; at most " +
                            std::to_string(options_.max_batch) + " are accepted",
                        "too_long");
  }
  // Every entry is checked before any is applied: it names a memory the caller may change,
  // once (an updated memory's older id names its current version).
  std::vector<std::string> current_ids;
  std::map<std::string, std::size_t> named;  // current id -> entry
  for (std::size_t index = 0; index < memories->size(); ++index) {
    const json& entry = (*memories)[index];
    const std::string where = "memories[" + std::to_string(index) + "]";
    auto at = [&](std::string key) {
      return std::vector<Json>{"body", "memories", index, std::move(key)};
    };
    if (!entry.is_object()) {
      return Invalid({"body", "memories", index}, where + ": must be an object", "dict_type");
    }
    const std::set<std::string_view> accepted =
        update ? std::set<std::string_view>{"memory_id", "text", "metadata"}
               : std::set<std::string_view>{"memory_id"};
    for (const auto& [key, value] : entry.items()) {
      if (!accepted.contains(key)) {
        return Invalid(at(key), where + "." + key + ": unknown field", "extra_forbidden");
      }
    }
    if (!entry.contains("memory_id") || !entry["memory_id"].is_string()) {
      return Invalid(at("memory_id"), where + ".memory_id: a string is required", "string_type");
    }
    if (update &&
        (!entry.contains("text") || !entry["text"].is_string() ||
         entry["text"].get<std::string>().find_first_not_of(" \t\r\n") == std::string::npos)) {
      return Invalid(at("text"), where + ".text: a non-empty string is required", "string_type");
    }
    Memory current;
    if (std::optional<ApiResponse> missing =
            CurrentMemory(engine_, request, entry["memory_id"].get<std::string>(), &current)) {
      if (missing->status == 404) {
        return Detail(404,
                      where + ": memory " + entry["memory_id"].get<std::string>() + " not found");
      }
      return *missing;
    }
    StatusOr<Scope> scope = Scope::Parse(current.scope);
    if (!scope.ok()) return EngineError(scope.status());
    MEM0_RETURN_IF_ERROR(RequireRight(request, *scope, auth::Right::kWrite));
    if (auto [earlier, fresh] = named.emplace(current.id, index); !fresh) {
      return Detail(400, where + " names the same memory as memories[" +
                             std::to_string(earlier->second) + "]");
    }
    current_ids.push_back(current.id);
  }
  for (std::size_t index = 0; index < current_ids.size(); ++index) {
    ApiRequest one = request;
    one.path_params = {{"memory_id", current_ids[index]}};
    json entry_body = json::object();
    if (update) {
      entry_body["text"] = (*memories)[index]["text"];
      if (auto metadata = (*memories)[index].find("metadata");
          metadata != (*memories)[index].end()) {
        entry_body["metadata"] = *metadata;
      }
    }
    ApiResponse applied = update ? self_hosted_.UpdateMemory(WithBody(one, entry_body))
                                 : self_hosted_.DeleteMemory(one);
    if (applied.status != 200) {
      // Changed concurrently since the check: say how far the batch got.
      const Json& detail = applied.body["detail"];
      applied.body["detail"] =
          "memories[" + std::to_string(index) +
          "]: " + (detail.is_string() ? detail.get<std::string>() : detail.dump()) + " (" +
          std::to_string(index) + " applied before it)";
      return applied;
    }
  }
  ApiResponse response;
  response.body = Json::object();
  response.body["message"] = std::string("Successfully ") + (update ? "updated " : "deleted ") +
                             std::to_string(current_ids.size()) + " memories";
  return response;
} catch (const std::exception& error) {
  return Unexpected(error);
}

RouteList CombineRoutes(RouteList native, RouteList platform) {
  RouteList combined = std::move(native);
  for (Route& route : platform) {
    auto same = std::find_if(combined.begin(), combined.end(), [&](const Route& existing) {
      return existing.method == route.method && existing.pattern == route.pattern;
    });
    if (same == combined.end()) {
      combined.push_back(std::move(route));
      continue;
    }
    same->handler = [native_handler = std::move(same->handler),
                     mem0_handler = std::move(route.handler)](const ApiRequest& request) {
      const bool mem0_path = request.path.size() > 1 && request.path.back() == '/';
      return mem0_path ? mem0_handler(request) : native_handler(request);
    };
  }
  return combined;
}

}  // namespace engram::server
