// Reads a run's turns and what the write path stored about them into the window's inputs.
//
//   ASSIGN_OR_RETURN(std::vector<lifecycle::RunTurn> turns, lifecycle::LoadRun(store, run));
//   const lifecycle::Window window = lifecycle::SelectWindow(Inputs(turns), budget, config);
//
// Per turn of the scope (its own turns, not nested scopes'), in sequence order:
//   - the content signals of its analysis row (store/turn_analysis.h; 0 when it has none);
//   - its conversational signals: the kinds of the memory-act signals in that row;
//   - provenance flags from its metadata: "provenance": ["user_correction",
//     "preference_update", "constraint_source", "corrected_by_user"] (other values are ignored);
//   - superseded: one of its facts is the target of a `supersedes` edge from a fact of a later
//     turn (DMF's topic supersession: the reconciler's single-valued slots are the topics);
//   - its status (retired and superseded turns never enter the window);
//   - tokens: CountTokens of its context line (read::RenderItemLine).
//
// Thread-safety: reads the store only; safe wherever the store is.
#ifndef ENGRAM_LIFECYCLE_RUN_H_
#define ENGRAM_LIFECYCLE_RUN_H_

#include <vector>

#include "engram/read_result.h"
#include "engram/status.h"
#include "lifecycle/window.h"
#include "store/store.h"

namespace engram::lifecycle {

struct RunTurn {
  store::NodeRecord node;
  std::string line;  // the turn's line in the context
  WindowInput input;
};

StatusOr<std::vector<RunTurn>> LoadRun(store::Store& store, const store::ScopeRecord& run);

std::vector<WindowInput> Inputs(const std::vector<RunTurn>& turns);

}  // namespace engram::lifecycle

#endif  // ENGRAM_LIFECYCLE_RUN_H_
