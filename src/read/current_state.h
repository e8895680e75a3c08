// Current state (issue 40; DMF's active-memory guard, Eywa's supersession): the write path
// records that a newer claim superseded an older one ("I moved to Munich" after "I live in
// Berlin": a `supersedes` edge between the two facts) and that two claims contradict each other
// (a `contradicts` edge from a pending fact); this stage makes recall act on those edges.
//
//   - A turn every claim of which has been superseded (it supports facts, none holds for the
//     recall, and a chain of `supersedes` edges leads from one to a fact that holds, resting on
//     other turns) gets
//     RecallItem::superseded_by: that current claim, its time and what its evidence turn says.
//     In a recall about the present its score is multiplied by `superseded_factor`, and the
//     current claim's latest evidence turn ranks at least where the stale turn did (it answers
//     the same question with what holds now): raised to the stale turn's score, or added with it
//     when no route proposed it (adjustment "successor").
//   - A turn supporting a fact that a `contradicts` edge joins to another gets that other claim
//     in RecallItem::conflicts.
// The packed context shows both beside the turn (packing.h: RenderItemBody). A recall as of a
// past time (valid_at) marks what had been superseded by then: as of April nothing superseded
// Berlin yet. A known_at recall is left as it is.
//
//   ASSIGN_OR_RETURN(CurrentStateReport report,
//                    ApplyCurrentState(items, graphs, store, load_nodes, options));
#ifndef ENGRAM_READ_CURRENT_STATE_H_
#define ENGRAM_READ_CURRENT_STATE_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "engram/read_result.h"
#include "engram/status.h"
#include "read/scope_graph.h"
#include "store/store.h"

namespace engram::read {

struct CurrentStateOptions {
  // Mark superseded claims and bring in their successors. false for a known_at recall (the
  // statuses it reads are those recorded then).
  bool mark_superseded = true;
  // Whether a fact holds for this recall (the recall's filters: its validity covers the query
  // time or valid_at, its status is active). A turn holding such a fact is not stale, and a
  // successor must be one. Null: an active fact holds.
  std::function<StatusOr<bool>(const GraphFact&)> holds;
  // × on the score of a turn whose claims were all superseded; 1 = marked, not demoted (a
  // question about the past: "Where did Iris live before?").
  double superseded_factor = 1.0;
  // Whether a node may be shown (the recall's filters); a successor turn that may not is not
  // added. Null: every node may.
  std::function<StatusOr<bool>(const store::NodeRecord&)> visible;
  // The scope path of a scope id, for added items.
  std::function<std::string(std::int64_t)> scope_path;
};

struct CurrentStateReport {
  std::size_t superseded = 0;        // items marked superseded_by
  std::size_t successors_added = 0;  // successor turns no route proposed
  std::size_t conflicts = 0;         // items given conflicts
};

using NodeLoader =
    std::function<StatusOr<std::vector<store::NodeRecord>>(std::span<const std::int64_t>)>;

// Marks, demotes and adds as described above; `items` are the filtered items, best first, and
// stay best first (a stable sort by score after the demotions; ties keep their order). `graphs`
// are the searched scopes' graphs. Reads the `supersedes` edges of the superseded facts the items
// support and the `contradicts` edges of the scopes' pending facts.
StatusOr<CurrentStateReport> ApplyCurrentState(
    std::vector<RecallItem>& items, std::span<const std::shared_ptr<const ScopeGraph>> graphs,
    store::Store& store, const NodeLoader& load_nodes, const CurrentStateOptions& options);

// `text` cut to at most `max_bytes` bytes on a UTF-8 character boundary, "..." appended when cut
// (within the bound); newlines become spaces.
std::string ClaimExcerpt(std::string_view text, std::size_t max_bytes);

}  // namespace engram::read

#endif  // ENGRAM_READ_CURRENT_STATE_H_
