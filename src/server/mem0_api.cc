// mem0-compatible REST handlers of mem0's self-hosted server (see mem0_api.h and docs/MEM0.md).
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
using mem0_support::IdentifiersFromQuery;
using mem0_support::Invalid;
using mem0_support::InvalidField;
using mem0_support::kMaxUpdateChain;
using mem0_support::MayRead;
using mem0_support::Mem0Item;
using mem0_support::MemoryIdParam;
using mem0_support::OptionalCount;
using mem0_support::OptionalString;
using mem0_support::ParseObjectBody;
using mem0_support::ReadableMemory;
using mem0_support::RequireRight;
using mem0_support::ScopeOf;
using mem0_support::ScopesWithIdentifiers;
using mem0_support::TypeName;
using mem0_support::Unexpected;
using mem0_support::UpdateNeighbour;
using nlohmann::json;

// The token budget of a mem0 search: high enough that packing never drops a ranked item
// (mem0 returns top_k memories, not a context of a given size).
constexpr std::size_t kUnboundedTokenBudget = std::size_t{1} << 30;

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


}  // namespace

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
    Mem0FilterIdentifiers(*filters, &ids);
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
