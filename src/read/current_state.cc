// Current state: superseded claims marked and demoted, successors added, conflicts shown (see
// current_state.h).
#include "read/current_state.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "read/recall.h"
#include "store/journal.h"

namespace engram::read {
namespace {

constexpr std::size_t kClaimTextBytes = 200;
// Supersession chains are short (a fact superseded a few times); the bound only guards a cycle
// the write path never makes.
constexpr int kMaxChain = 32;
constexpr std::string_view kSupersedesEdge = "supersedes";
constexpr std::string_view kContradictsEdge = "contradicts";

const GraphFact* FindFact(std::span<const std::shared_ptr<const ScopeGraph>> graphs,
                          std::string_view id) {
  for (const std::shared_ptr<const ScopeGraph>& graph : graphs) {
    const auto found = graph->fact_of_id.find(std::string(id));
    if (found != graph->fact_of_id.end()) return &graph->facts[found->second];
  }
  return nullptr;
}

bool Supports(const GraphFact& fact, std::string_view turn_id) {
  return std::find(fact.support_ids.begin(), fact.support_ids.end(), turn_id) !=
         fact.support_ids.end();
}

// The fact that holds which a chain of `supersedes` edges leads to from `fact`, or null (the
// chain ends in a fact that does not hold, or leaves the searched scopes). Of several successors the newest
// (highest row) is followed.
StatusOr<const GraphFact*> CurrentSuccessor(
    const GraphFact& fact, std::span<const std::shared_ptr<const ScopeGraph>> graphs,
    store::Store& store, const std::function<StatusOr<bool>(const GraphFact&)>& holds) {
  const GraphFact* at = &fact;
  for (int step = 0; step < kMaxChain; ++step) {
    ASSIGN_OR_RETURN(const std::vector<store::EdgeRecord> edges,
                     store.EdgesOf(at->id, store::EdgeDirection::kIncoming, kSupersedesEdge));
    const GraphFact* next = nullptr;
    for (const store::EdgeRecord& edge : edges) {
      if (edge.status != store::kEdgeActive) continue;
      const GraphFact* candidate = FindFact(graphs, edge.src);
      if (candidate != nullptr && (next == nullptr || candidate->row > next->row)) next = candidate;
    }
    if (next == nullptr) return nullptr;
    ASSIGN_OR_RETURN(const bool current, holds(*next));
    if (current) return next;
    if (next->status != NodeStatus::kSuperseded) return nullptr;
    at = next;
  }
  return nullptr;
}

std::string DateOf(const std::optional<Timestamp>& time) {
  return time.has_value() ? FormatTimestamp(*time).substr(0, 10) : "an unknown date";
}

// One claim bearing on one item: the item's own fact and the other one.
struct Mark {
  std::size_t item = 0;
  const GraphFact* claim = nullptr;
  const GraphFact* other = nullptr;
  bool superseded = false;  // else a conflict
};

}  // namespace

std::string ClaimExcerpt(std::string_view text, std::size_t max_bytes) {
  std::string out;
  if (text.size() <= max_bytes) {
    out = std::string(text);
  } else {
    std::size_t end = max_bytes >= 3 ? max_bytes - 3 : 0;
    // Back to a character boundary: not inside a UTF-8 continuation byte.
    while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
    out = std::string(text.substr(0, end)) + "...";
  }
  for (char& c : out) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return out;
}

StatusOr<CurrentStateReport> ApplyCurrentState(
    std::vector<RecallItem>& items, std::span<const std::shared_ptr<const ScopeGraph>> graphs,
    store::Store& store, const NodeLoader& load_nodes, const CurrentStateOptions& options) {
  CurrentStateReport report;
  if (items.empty() || graphs.empty()) return report;
  const std::function<StatusOr<bool>(const GraphFact&)> holds =
      options.holds ? options.holds
                    : [](const GraphFact& fact) -> StatusOr<bool> {
                        return fact.status == NodeStatus::kActive;
                      };

  // The facts each turn item supports, and the scopes' pending facts (a contradiction's new side).
  std::unordered_map<std::string, std::size_t> turn_item;
  for (std::size_t item_idx = 0; item_idx < items.size(); ++item_idx) {
    if (items[item_idx].kind == NodeKind::kTurn) turn_item.emplace(items[item_idx].id, item_idx);
  }
  std::vector<std::vector<const GraphFact*>> supported(items.size());
  std::vector<const GraphFact*> pending;
  for (const std::shared_ptr<const ScopeGraph>& graph : graphs) {
    for (const GraphFact& fact : graph->facts) {
      if (fact.status == NodeStatus::kPending) pending.push_back(&fact);
      for (const std::string& turn_id : fact.support_ids) {
        const auto found = turn_item.find(turn_id);
        if (found != turn_item.end()) supported[found->second].push_back(&fact);
      }
    }
  }
  // Contradictions, both ways: a pending fact contradicts the active ones it names.
  std::unordered_map<std::string, std::vector<const GraphFact*>> contradicting;
  for (const GraphFact* fact : pending) {
    ASSIGN_OR_RETURN(const std::vector<store::EdgeRecord> edges,
                     store.EdgesOf(fact->id, store::EdgeDirection::kOutgoing, kContradictsEdge));
    for (const store::EdgeRecord& edge : edges) {
      if (edge.status != store::kEdgeActive) continue;
      const GraphFact* other = FindFact(graphs, edge.dst);
      if (other == nullptr) continue;
      contradicting[fact->id].push_back(other);
      contradicting[other->id].push_back(fact);
    }
  }

  std::vector<Mark> marks;
  for (std::size_t item_idx = 0; item_idx < items.size(); ++item_idx) {
    const std::vector<const GraphFact*>& facts = supported[item_idx];
    if (facts.empty()) continue;
    const std::string& turn_id = items[item_idx].id;
    for (const GraphFact* fact : facts) {
      const auto found = contradicting.find(fact->id);
      if (found == contradicting.end()) continue;
      for (const GraphFact* other : found->second) {
        if (!Supports(*other, turn_id)) marks.push_back({item_idx, fact, other, false});
      }
    }
    if (!options.mark_superseded) continue;
    // Superseded only when the turn holds no claim that still stands (a pending one is disputed,
    // not replaced).
    bool stands = false;
    for (const GraphFact* fact : facts) {
      if (fact->status == NodeStatus::kPending) stands = true;
      if (stands) break;
      ASSIGN_OR_RETURN(stands, holds(*fact));
    }
    if (stands) continue;
    const GraphFact* stale = nullptr;
    const GraphFact* successor = nullptr;
    for (const GraphFact* fact : facts) {  // by row: the newest superseded claim wins
      if (fact->status != NodeStatus::kSuperseded) continue;
      ASSIGN_OR_RETURN(const GraphFact* current, CurrentSuccessor(*fact, graphs, store, holds));
      if (current != nullptr && !current->support_rows.empty() && !Supports(*current, turn_id)) {
        stale = fact;
        successor = current;
      }
    }
    if (successor != nullptr) marks.push_back({item_idx, stale, successor, true});
  }
  if (marks.empty()) return report;

  // What the other claims' latest evidence turns say.
  std::vector<std::int64_t> rows;
  for (const Mark& mark : marks) {
    if (!mark.other->support_rows.empty()) rows.push_back(mark.other->support_rows.back());
  }
  std::sort(rows.begin(), rows.end());
  rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
  ASSIGN_OR_RETURN(const std::vector<store::NodeRecord> turns, load_nodes(rows));
  std::unordered_map<std::int64_t, const store::NodeRecord*> turn_by_row;
  for (const store::NodeRecord& turn : turns) turn_by_row[turn.row] = &turn;

  std::vector<RecallItem> added;
  std::unordered_set<std::string> added_ids;
  std::vector<bool> given_conflicts(items.size(), false);
  for (const Mark& mark : marks) {
    const store::NodeRecord* turn = nullptr;
    if (!mark.other->support_rows.empty()) {
      const auto found = turn_by_row.find(mark.other->support_rows.back());
      if (found != turn_by_row.end()) turn = found->second;
    }
    RelatedClaim claim;
    claim.id = mark.other->id;
    claim.statement = mark.other->text;
    claim.text = ClaimExcerpt(turn != nullptr ? turn->text : mark.other->text, kClaimTextBytes);
    claim.time = mark.other->valid_from.has_value()
                     ? mark.other->valid_from
                     : (turn != nullptr ? turn->event_time : std::nullopt);
    claim.evidence = mark.other->support_ids;
    claim.claim = mark.claim->text;
    RecallItem& item = items[mark.item];
    if (!mark.superseded) {
      const bool listed = std::any_of(item.conflicts.begin(), item.conflicts.end(),
                                      [&](const RelatedClaim& seen) { return seen.id == claim.id; });
      if (!listed) item.conflicts.push_back(std::move(claim));
      given_conflicts[mark.item] = true;
      continue;
    }
    const double score_before = item.score;
    const std::string detail = "its claim \"" + mark.claim->text + "\" was superseded on " +
                               DateOf(claim.time) + " by \"" + mark.other->text + "\"";
    if (options.superseded_factor < 1.0) {
      item.score *= options.superseded_factor;
      item.adjustments.push_back({"superseded", options.superseded_factor, detail});
    }
    // The current claim's evidence turn ranks at least where the stale turn did: it answers the
    // same question, with what holds now. Added when no route proposed it.
    const std::string successor_detail =
        "states the current claim \"" + mark.other->text + "\", which superseded \"" +
        mark.claim->text + "\" (" + DateOf(claim.time) + ")";
    if (options.superseded_factor < 1.0 && turn != nullptr && turn_item.contains(turn->id)) {
      RecallItem& successor = items[turn_item.at(turn->id)];
      if (successor.score < score_before) {
        successor.adjustments.push_back({"successor", 1.0,
                                         successor_detail + ": raised to the superseded turn's "
                                                            "score",
                                         score_before - successor.score});
        successor.score = score_before;
      }
    }
    if (options.superseded_factor < 1.0 && turn != nullptr && !turn_item.contains(turn->id) &&
        !added_ids.contains(turn->id)) {
      bool shown = true;
      if (options.visible) {
        ASSIGN_OR_RETURN(shown, options.visible(*turn));
      }
      if (shown) {
        RecallItem successor =
            ItemFromNode(*turn, options.scope_path ? options.scope_path(turn->scope_id) : "");
        successor.score = score_before;
        successor.adjustments.push_back(
            {"successor", 1.0,
             successor_detail + "; no route proposed it: it takes the superseded turn's score"});
        added_ids.insert(turn->id);
        added.push_back(std::move(successor));
        ++report.successors_added;
      }
    }
    item.superseded_by = std::move(claim);
    ++report.superseded;
  }
  report.conflicts = static_cast<std::size_t>(
      std::count(given_conflicts.begin(), given_conflicts.end(), true));
  for (RecallItem& item : added) items.push_back(std::move(item));
  std::stable_sort(items.begin(), items.end(), [](const RecallItem& a, const RecallItem& b) {
    return a.score > b.score;
  });
  return report;
}

}  // namespace engram::read
