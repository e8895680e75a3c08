// Engine::Context's assembly (DMF §9.3 step 6, DESIGN §6): the recalled long-term memory
// followed by a run's active window, under one token budget.
//
// Engine::Context calls, in order:
//   RETURN_IF_ERROR(lifecycle::CheckContextRequest(run, query, options, config));
//   ASSIGN_OR_RETURN(lifecycle::ContextPlan plan,
//                    lifecycle::PlanContext(store, run_record, config, options));
//   // a Recall of plan.recall_budget tokens, when that is above 0
//   ContextResult result =
//       lifecycle::AssembleContext(plan, query, recalled, from, options, config);
//
// The budget: the window takes at most min(window_budget, token_budget) tokens with its header
// (without a window_budget: [active] window_tokens, or, for a token_budget below [active]
// context_tokens, the same share of it: 4,096 / 6,096 by default); what it leaves goes to the
// recall. The context is
//   === LONG-TERM MEMORY (RECALLED) ===
//   <the recall's packed context, without the turns the window holds>
//   === ACTIVE CONVERSATION ===
//   <the window's turns, one line each, in conversation order>
// with either section left out when it has nothing to show; CountTokens(context) never exceeds
// the budget.
//
// Thread-safety: PlanContext reads the store; the rest are pure functions.
#ifndef ENGRAM_LIFECYCLE_CONTEXT_H_
#define ENGRAM_LIFECYCLE_CONTEXT_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engram/config.h"
#include "engram/options.h"
#include "engram/read_result.h"
#include "engram/status.h"
#include "engram/types.h"
#include "lifecycle/run.h"
#include "lifecycle/window.h"
#include "store/store.h"

namespace engram::lifecycle {

// The largest token budget Engine::Context accepts.
inline constexpr std::size_t kMaxContextTokens = 1'000'000;
inline constexpr std::string_view kRecalledHeader = "=== LONG-TERM MEMORY (RECALLED) ===";
inline constexpr std::string_view kActiveHeader = "=== ACTIVE CONVERSATION ===";

// kInvalidArgument naming the problem: a scope whose last segment is not run:, a blank, too
// long or invalid UTF-8 query, a budget above kMaxContextTokens.
Status CheckContextRequest(const Scope& run, std::string_view query,
                           const ContextOptions& options, const Config& config);

struct ContextPlan {
  std::string run;
  std::vector<RunTurn> turns;
  Window window;
  std::size_t token_budget = 0;
  std::size_t window_budget = 0;
  std::string window_section;  // "" when no turn is kept
  std::size_t window_tokens = 0;
  std::size_t recall_budget = 0;  // for the recall's packed context; 0 = no room for one
};

// Resolves the budgets (0 = the [active] defaults), reads the run and selects its window.
StatusOr<ContextPlan> PlanContext(store::Store& store, const store::ScopeRecord& run,
                                  const Config& config, const ContextOptions& options);

// The context of `plan` with `recalled` (the recall of plan.recall_budget tokens from scope
// `recalled_from`; nullopt when none ran): its items that the window holds (a turn, or a derived
// item whose evidence turns all are) are left out and the rest packed again.
ContextResult AssembleContext(const ContextPlan& plan, std::string_view query,
                              std::optional<ReadResult> recalled, std::string_view recalled_from,
                              const ContextOptions& options, const Config& config);

}  // namespace engram::lifecycle

#endif  // ENGRAM_LIFECYCLE_CONTEXT_H_
