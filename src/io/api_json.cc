// api_json: JSON encodings of the API types, in a fixed key order.
#include "io/api_json.h"

#include "core/json_depth.h"

#include <cmath>

#include "io/json_util.h"

namespace engram::io {
namespace {

// Doubles that JSON cannot hold (NaN, infinities) become null; nlohmann would do the same, but
// saying so here keeps the contract visible.
Json Number(double value) {
  if (!std::isfinite(value)) return nullptr;
  return value;
}

template <typename T>
Json List(const std::vector<T>& values) {
  Json list = Json::array();
  for (const T& value : values) list.push_back(ToJson(value));
  return list;
}

Json Strings(const std::vector<std::string>& values) {
  Json list = Json::array();
  for (const std::string& value : values) list.push_back(value);
  return list;
}

}  // namespace

Json TimestampToJson(const std::optional<Timestamp>& time) {
  if (!time.has_value()) return nullptr;
  return FormatTimestamp(*time);
}

Json MetadataToJson(std::string_view metadata_json) {
  if (metadata_json.empty()) return Json::object();
  // Deeply nested text stays a string: encoding it would recurse once per level.
  if (core::JsonNestingDepth(metadata_json, internal::kMaxJsonDepth) >
      internal::kMaxJsonDepth) {
    return std::string(metadata_json);
  }
  try {
    Json metadata = Json::parse(metadata_json);
    if (metadata.is_object()) return metadata;
  } catch (const Json::exception&) {
    // Not JSON: fall through and keep the text.
  }
  return std::string(metadata_json);
}

Json ParseObject(std::string_view text) {
  Json json = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  return json.is_object() ? json : Json::object();
}

std::string StringField(const Json& object, std::string_view name) {
  const auto found = object.find(name);
  if (found == object.end() || !found->is_string()) return "";
  return found->get<std::string>();
}

Json ToJson(const Turn& turn) {
  Json json = Json::object();
  json["role"] = RoleName(turn.role);
  json["speaker"] = turn.speaker;
  json["session_id"] = turn.session_id;
  json["event_time"] = TimestampToJson(turn.event_time);
  json["text"] = turn.text;
  json["metadata"] = MetadataToJson(turn.metadata_json);
  return json;
}

Json ToJson(const Memory& memory) {
  Json json = Json::object();
  json["id"] = memory.id;
  json["kind"] = NodeKindName(memory.kind);
  json["scope"] = memory.scope;
  json["sequence"] = memory.sequence;
  json["status"] = NodeStatusName(memory.status);
  json["role"] = RoleName(memory.role);
  json["speaker"] = memory.speaker;
  json["session_id"] = memory.session_id;
  json["event_time"] = TimestampToJson(memory.event_time);
  json["text"] = memory.text;
  json["metadata"] = MetadataToJson(memory.metadata_json);
  json["valid_from"] = TimestampToJson(memory.valid_from);
  json["valid_to"] = TimestampToJson(memory.valid_to);
  json["ingested_at"] = TimestampToJson(memory.ingested_at);
  json["updated_at"] = TimestampToJson(memory.updated_at);
  json["provenance"] = Strings(memory.provenance);
  return json;
}

Json ToJson(const HistoryEvent& event) {
  Json json = Json::object();
  json["at"] = TimestampToJson(event.at);
  json["action"] = event.action;
  json["status"] = NodeStatusName(event.status);
  json["valid_to"] = TimestampToJson(event.valid_to);
  json["related_id"] = event.related_id;
  json["detail"] = event.detail;
  return json;
}

Json ToJson(const RouteScore& route) {
  Json json = Json::object();
  json["route"] = route.route;
  json["rank"] = route.rank;
  json["score"] = Number(route.score);
  json["explanation"] = route.explanation;
  return json;
}

Json ToJson(const Adjustment& adjustment) {
  Json json = Json::object();
  json["name"] = adjustment.name;
  json["factor"] = Number(adjustment.factor);
  json["bonus"] = Number(adjustment.bonus);
  json["detail"] = adjustment.detail;
  return json;
}

Json ToJson(const RelatedClaim& claim) {
  Json json = Json::object();
  json["id"] = claim.id;
  json["statement"] = claim.statement;
  json["text"] = claim.text;
  json["time"] = TimestampToJson(claim.time);
  json["evidence"] = Strings(claim.evidence);
  json["claim"] = claim.claim;
  return json;
}

Json ToJson(const RecallItem& item) {
  Json json = Json::object();
  json["id"] = item.id;
  json["kind"] = NodeKindName(item.kind);
  json["scope"] = item.scope;
  json["sequence"] = item.sequence;
  json["status"] = NodeStatusName(item.status);
  json["role"] = RoleName(item.role);
  json["speaker"] = item.speaker;
  json["session_id"] = item.session_id;
  json["event_time"] = TimestampToJson(item.event_time);
  json["text"] = item.text;
  json["metadata"] = MetadataToJson(item.metadata_json);
  json["score"] = Number(item.score);
  json["fused_score"] = Number(item.fused_score);
  json["routes"] = List(item.routes);
  json["adjustments"] = List(item.adjustments);
  json["provenance"] = Strings(item.provenance);
  json["tokens"] = item.tokens;
  if (item.excerpt) {
    json["excerpt"] = {
        {"begin", item.excerpt_begin}, {"end", item.excerpt_end}, {"full_bytes", item.full_bytes}};
  }
  json["superseded_by"] = item.superseded_by.has_value() ? ToJson(*item.superseded_by) : Json();
  json["conflicts"] = List(item.conflicts);
  if (!item.features.empty()) {
    Json features = Json::array();
    for (const double value : item.features) features.push_back(Number(value));
    json["features"] = std::move(features);  // a missing feature is null
  }
  return json;
}

StatusOr<bool> ParsePacking(std::string_view name) {
  if (name == "value") return true;
  if (name == "rank") return false;
  return Status::InvalidArgument("unknown packing \"" + std::string(name.substr(0, 64)) +
                                 "\" (expected one of value, rank)");
}

Json ToJson(const Diagnostics& diagnostics) {
  Json routes = Json::array();
  for (const RouteDiagnostics& route : diagnostics.routes) {
    Json entry = Json::object();
    entry["route"] = route.route;
    entry["candidates"] = route.candidates;
    entry["weight"] = Number(route.weight);
    entry["error"] = route.error;
    routes.push_back(std::move(entry));
  }
  Json timings = Json::array();
  for (const StageTiming& timing : diagnostics.timings) {
    Json entry = Json::object();
    entry["stage"] = timing.stage;
    entry["ms"] = Number(timing.ms);
    timings.push_back(std::move(entry));
  }
  Json json = Json::object();
  json["frame"] = diagnostics.frame;
  json["plan"] = diagnostics.plan;
  json["routes"] = std::move(routes);
  json["fused_candidates"] = diagnostics.fused_candidates;
  json["neighbours_added"] = diagnostics.neighbours_added;
  json["bridged"] = diagnostics.bridged;
  json["superseded"] = diagnostics.superseded;
  json["successors_added"] = diagnostics.successors_added;
  json["conflicted"] = diagnostics.conflicted;
  json["ranker"] = diagnostics.ranker;
  if (!diagnostics.feature_names.empty()) json["feature_names"] = diagnostics.feature_names;
  json["filtered_out"] = diagnostics.filtered_out;
  Json filtered_by = Json::object();
  for (const auto& [filter, count] : diagnostics.filtered_by) filtered_by[filter] = count;
  json["filtered_by"] = std::move(filtered_by);
  Json filtered = Json::array();
  for (const FilteredItem& item : diagnostics.filtered) {
    filtered.push_back(Json{{"id", item.id}, {"filter", item.filter}, {"reason", item.reason}});
  }
  json["filtered"] = std::move(filtered);
  json["dropped_by_budget"] = diagnostics.dropped_by_budget;
  json["deduplicated"] = diagnostics.deduplicated;
  json["token_budget"] = diagnostics.token_budget;
  json["context_tokens"] = diagnostics.context_tokens;
  json["timings"] = std::move(timings);
  json["chat"] = diagnostics.chat;
  Json unpacked = Json::array();
  for (const UnpackedItem& item : diagnostics.unpacked) {
    unpacked.push_back(Json{{"id", item.id}, {"rank", item.rank}, {"reason", item.reason}});
  }
  json["unpacked"] = std::move(unpacked);
  json["warnings"] = Strings(diagnostics.warnings);
  // Only when the optional LLM loop ran, so a recall without it serialises as before.
  if (diagnostics.llm.ran) {
    json["llm"] = Json{{"calls", diagnostics.llm.calls},
                       {"prompt_tokens", diagnostics.llm.prompt_tokens},
                       {"completion_tokens", diagnostics.llm.completion_tokens},
                       {"usage_missing", diagnostics.llm.usage_missing},
                       {"ms", Number(diagnostics.llm.ms)},
                       {"steps", Strings(diagnostics.llm.steps)}};
  }
  return json;
}

Json ToJson(const ReadResult& result) {
  Json json = Json::object();
  json["query"] = result.query;
  json["policy"] = result.policy;
  json["context"] = result.context;
  json["answer_instructions"] = result.answer_instructions;
  json["items"] = List(result.items);
  json["diagnostics"] = ToJson(result.diagnostics);
  json["latency_ms"] = Number(result.latency_ms);
  json["mode"] = result.mode;
  Json chat = Json::array();
  for (const ChatLine& line : result.chat) {
    chat.push_back(Json{{"section", line.section},
                        {"person", line.person},
                        {"text", line.text},
                        {"memory_id", line.memory_id},
                        {"evidence", line.evidence},
                        {"tokens", line.tokens}});
  }
  json["chat"] = std::move(chat);
  json["sufficiency"] = ToJson(result.sufficiency);
  return json;
}

Json ToJson(const Sufficiency& sufficiency) {
  Json json = Json::object();
  json["verdict"] = sufficiency.verdict;
  json["reasons"] = Strings(sufficiency.reasons);
  json["term_share"] = Number(sufficiency.term_share);
  json["best_item_share"] = Number(sufficiency.best_item_share);
  return json;
}

Json ToJsonWithoutExplanations(const ReadResult& result) {
  Json json = ToJson(result);
  Json warnings = std::move(json["diagnostics"]["warnings"]);
  json["diagnostics"] = Json{{"warnings", std::move(warnings)}};
  DropExplanations(json["items"]);
  return json;
}

void DropExplanations(Json& items) {
  for (Json& item : items) {
    item.erase("routes");
    item.erase("adjustments");
  }
}

Json ToJson(const WindowTurn& turn) {
  Json json = Json::object();
  json["id"] = turn.id;
  json["sequence"] = turn.sequence;
  json["interaction"] = turn.interaction;
  json["role"] = RoleName(turn.role);
  json["speaker"] = turn.speaker;
  json["session_id"] = turn.session_id;
  json["event_time"] = TimestampToJson(turn.event_time);
  json["text"] = turn.text;
  json["tokens"] = turn.tokens;
  json["omega"] = Number(turn.omega);
  json["omega_raw"] = Number(turn.omega_raw);
  json["omega_eff"] = Number(turn.omega_eff);
  json["prune_score"] = Number(turn.prune_score);
  json["tier"] = turn.tier;
  json["signals"] = turn.signals;
  json["superseded"] = turn.superseded;
  json["reason"] = turn.reason;
  json["explanation"] = turn.explanation;
  return json;
}

Json ToJson(const ContextResult& result) {
  Json json = Json::object();
  json["run"] = result.run;
  json["query"] = result.query;
  json["policy"] = result.policy;
  json["context"] = result.context;
  json["answer_instructions"] = result.answer_instructions;
  json["token_budget"] = result.token_budget;
  json["window_budget"] = result.window_budget;
  json["context_tokens"] = result.context_tokens;
  json["recalled_tokens"] = result.recalled_tokens;
  json["window_tokens"] = result.window_tokens;
  json["recalled_from"] = result.recalled_from;
  json["recalled"] = List(result.recalled.items);
  // What the recall behind the recalled section could not do (Diagnostics::warnings).
  json["warnings"] = Strings(result.recalled.diagnostics.warnings);
  json["window"] = List(result.window);
  json["run_turns"] = result.run_turns;
  json["last_sweep"] = result.last_sweep;
  json["left_window"] = {{"hard_killed", result.hard_killed},
                         {"pruned", result.pruned},
                         {"too_large", result.too_large},
                         {"inactive", result.inactive}};
  json["latency_ms"] = Number(result.latency_ms);
  return json;
}

Json ToJson(const ScopeInfo& scope) {
  Json json = Json::object();
  json["scope"] = scope.scope;
  json["memories"] = scope.memories;
  json["last_sequence"] = scope.last_sequence;
  return json;
}

Json ToJson(const MergeProposal& proposal) {
  Json json = Json::object();
  json["id"] = proposal.id;
  json["a"] = proposal.a;
  json["b"] = proposal.b;
  json["status"] = proposal.status;
  json["reason"] = proposal.reason;
  return json;
}

Json ToJson(const RememberResult& result) {
  Json json = Json::object();
  json["ids"] = Strings(result.ids);
  json["first_sequence"] = result.first_sequence;
  json["last_sequence"] = result.last_sequence;
  Json already_stored = Json::array();
  for (const std::size_t index : result.already_stored) already_stored.push_back(index);
  json["already_stored"] = std::move(already_stored);
  return json;
}

Json ToJson(const EraseResult& result) {
  Json json = Json::object();
  json["scopes"] = result.scopes;
  json["nodes"] = result.nodes;
  json["edges"] = result.edges;
  return json;
}

Json ToJson(const RebuildReport& report) {
  Json json = Json::object();
  json["scopes"] = report.scopes;
  json["documents"] = report.documents;
  json["terms"] = report.terms;
  json["seconds"] = Number(report.seconds);
  json["matched_live_index"] = report.matched_live_index;
  return json;
}

Json ErrorToJson(const Status& status) {
  Json error = Json::object();
  error["code"] = StatusCodeName(status.code());
  error["message"] = status.message();
  Json json = Json::object();
  json["error"] = std::move(error);
  return json;
}

std::string Dump(const Json& value, bool pretty) {
  try {
    return value.dump(pretty ? 2 : -1, ' ', /*ensure_ascii=*/false, Json::error_handler_t::replace);
  } catch (const std::exception& error) {
    // dump() with the replace handler does not throw on text; this guards allocation failure.
    return Dump(ErrorToJson(Status::Internal(std::string("cannot encode JSON: ") + error.what())),
                false);
  }
}

}  // namespace engram::io
