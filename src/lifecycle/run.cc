// Reading a run's turns for the active window (see run.h).
#include "lifecycle/run.h"

#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "read/packing.h"
#include "store/turn_analysis.h"

namespace engram::lifecycle {
namespace {

using nlohmann::json;

json ParseObject(const std::string& text) {
  json parsed = json::parse(text, nullptr, /*allow_exceptions=*/false);
  return parsed.is_object() ? parsed : json::object();
}

// Sets the flag of a conversational signal kind; other kinds (anchors, entities) are ignored.
void NoteAct(std::string_view kind, TurnSignals& signals) {
  if (kind == "constraint") signals.constraint = true;
  if (kind == "preference") signals.preference = true;
  if (kind == "current_state") signals.current_state = true;
  if (kind == "past_state") signals.past_state = true;
  if (kind == "correction") signals.correction = true;
  if (kind == "replacement") signals.replacement = true;
  if (kind == "query_like") signals.query_like = true;
  if (kind == "ack_like") signals.ack_like = true;
}

void NoteProvenance(const std::string& metadata_json, TurnSignals& signals) {
  const json metadata = ParseObject(metadata_json);
  const auto found = metadata.find("provenance");
  if (found == metadata.end() || !found->is_array()) return;
  for (const json& flag : *found) {
    if (!flag.is_string()) continue;
    const std::string& name = flag.get_ref<const std::string&>();
    if (name == "user_correction") signals.user_correction = true;
    if (name == "preference_update") signals.preference_update = true;
    if (name == "constraint_source") signals.constraint_source = true;
    if (name == "corrected_by_user") signals.corrected_by_user = true;
  }
}

std::string Line(const store::NodeRecord& node) {
  RecallItem item;
  item.text = node.text;
  item.role = node.role;
  item.speaker = node.speaker;
  item.session_id = node.session_id;
  item.event_time = node.event_time;
  return read::RenderItemLine(item);
}

}  // namespace

StatusOr<std::vector<RunTurn>> LoadRun(store::Store& store, const store::ScopeRecord& run) {
  store::NodeFilter filter;
  filter.kind = NodeKind::kTurn;
  ASSIGN_OR_RETURN(std::vector<store::NodeRecord> nodes, store.ListNodes(run.scope_id, filter));
  std::vector<RunTurn> turns;
  turns.reserve(nodes.size());
  std::map<std::string, std::size_t> by_id;
  for (store::NodeRecord& node : nodes) {
    RunTurn turn;
    turn.input.interaction = static_cast<std::int64_t>(turns.size()) + 1;
    if (node.status != NodeStatus::kActive) {
      turn.input.inactive_status = std::string(NodeStatusName(node.status));
    }
    NoteProvenance(node.metadata_json, turn.input.signals);
    turn.line = Line(node);
    turn.input.tokens = CountTokens(turn.line);
    by_id.emplace(node.id, turns.size());
    turn.node = std::move(node);
    turns.push_back(std::move(turn));
  }

  // The content and memory-act signals, from each turn's analysis row.
  std::vector<std::int64_t> rows;
  std::map<std::int64_t, std::size_t> by_row;
  for (std::size_t turn_idx = 0; turn_idx < turns.size(); ++turn_idx) {
    rows.push_back(turns[turn_idx].node.row);
    by_row.emplace(turns[turn_idx].node.row, turn_idx);
  }
  ASSIGN_OR_RETURN(const std::vector<store::TurnAnalysisRecord> records,
                   store.GetTurnAnalyses(rows));
  for (const store::TurnAnalysisRecord& record : records) {
    auto& turn = turns[by_row.at(record.turn_row)];
    ASSIGN_OR_RETURN(const store::TurnAnalysis analysis,
                     store::ParseTurnAnalysis(record, turn.node.text));
    TurnSignals& target = turn.input.signals;
    if (analysis.content.has_value()) {
      target.information_density = analysis.content->information_density;
      target.sentiment = analysis.content->sentiment;
      target.entity_norm = analysis.content->entity_norm;
      target.divergence = analysis.content->divergence;
    }
    for (const store::AnalysedSignal& signal : analysis.signals) NoteAct(signal.kind, target);
  }

  // Topic supersession: a fact of a later turn supersedes a fact of this one.
  filter.kind = NodeKind::kFact;
  ASSIGN_OR_RETURN(const std::vector<store::NodeRecord> facts,
                   store.ListNodes(run.scope_id, filter));
  std::map<std::string, std::size_t> fact_turn;  // fact id -> index into turns
  for (const store::NodeRecord& fact : facts) {
    const json content = ParseObject(fact.content_json);
    const auto turn_id = content.find("turn");
    if (turn_id == content.end() || !turn_id->is_string()) continue;
    const auto turn = by_id.find(turn_id->get<std::string>());
    if (turn != by_id.end()) fact_turn.emplace(fact.id, turn->second);
  }
  ASSIGN_OR_RETURN(const std::vector<store::EdgeRecord> edges,
                   store.EdgesInScope(run.scope_id, "supersedes"));
  for (const store::EdgeRecord& edge : edges) {
    const auto newer = fact_turn.find(edge.src);
    const auto older = fact_turn.find(edge.dst);
    if (newer == fact_turn.end() || older == fact_turn.end()) continue;
    if (newer->second > older->second) turns[older->second].input.superseded = true;
  }
  return turns;
}

std::vector<WindowInput> Inputs(const std::vector<RunTurn>& turns) {
  std::vector<WindowInput> inputs;
  inputs.reserve(turns.size());
  for (const RunTurn& turn : turns) inputs.push_back(turn.input);
  return inputs;
}

}  // namespace engram::lifecycle
