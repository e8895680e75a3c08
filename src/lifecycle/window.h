// A run's active window (DMF §6-8, §9.1): which of the run's turns stay in the bounded window at
// its latest interaction, and why. A pure function of the turns and the [active] constants, so
// the same turns always give the same window.
//
//   std::vector<lifecycle::WindowInput> turns = ...;  // in interaction order
//   const lifecycle::Window window = lifecycle::SelectWindow(turns, /*budget=*/4096, config);
//   for (const lifecycle::WindowEntry& entry : window.entries) {
//     if (entry.fate == lifecycle::Fate::kKept) ...  // entry.explanation says why
//   }
//
// The rules, applied at the latest interaction i_max of the run:
//   1. Retired and superseded (amended) turns never enter the window (fate inactive).
//   2. Hard-kill (DMF §7.1): sweeps run at every multiple of kill_every_turns interactions; a
//      turn older than the last sweep s whose Ω_eff at s (Δn = s − i) was below kill_floor is
//      gone (hard_killed). Ω_eff only falls with Δn, so this is what every earlier sweep together
//      removed.
//   3. A turn whose own tokens exceed the budget can never fit (too_large).
//   4. Budget pruning (DMF §7.2): while the survivors' tokens exceed the budget, the candidate
//      (Ω_eff ≤ τ_H) with the lowest S_prune leaves, the older one first on a tie (pruned).
//      Healthy turns are protected; only if they alone exceed the budget do the lowest-scored
//      of them leave too, so the window never exceeds its budget.
// DMF prunes incrementally as turns arrive; here the pruning rule runs once, over the turns the
// hard-kill left, with the scores of i_max, so the window is a function of the turns alone and a
// constraint is never dropped while a lower-scored candidate stays.
// Pruning only leaves the window: the turn stays in long-term memory.
//
// Thread-safety: pure functions.
#ifndef ENGRAM_LIFECYCLE_WINDOW_H_
#define ENGRAM_LIFECYCLE_WINDOW_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engram/config.h"
#include "lifecycle/survival.h"

namespace engram::lifecycle {

struct WindowInput {
  std::int64_t interaction = 0;  // 1-based position of the turn among the run's turns
  std::size_t tokens = 0;        // what the turn's line adds to the context
  TurnSignals signals;
  // A later turn superseded what this one said on the same topic (one of its facts was
  // superseded): DMF's topic-supersession penalty applies.
  bool superseded = false;
  // "" for an active turn; else its status ("retired", "superseded"): it never enters the window.
  std::string inactive_status;
};

enum class Fate { kKept, kInactive, kHardKilled, kTooLarge, kPruned };
std::string_view FateName(Fate fate);  // "kept", "inactive", "hard_killed", "too_large", "pruned"

// Why a kept turn is in the window.
enum class KeepReason {
  kWithinBudget,    // the survivors fit the budget: nothing was pruned
  kHealthy,         // Ω_eff > τ_H: protected from budget pruning
  kOutranksPruned,  // a candidate whose S_prune is above every pruned candidate's
};
std::string_view KeepReasonName(KeepReason reason);  // "within_budget", "healthy", ...

struct WindowEntry {
  Survival survival;
  std::int64_t delta_n = 0;  // i_max − interaction
  double omega_eff = 0;
  Tier tier = Tier::kCritical;
  double retention_bonus = 0;
  double prune_score = 0;
  Fate fate = Fate::kKept;
  KeepReason reason = KeepReason::kWithinBudget;  // meaningful when kept
  std::string explanation;  // one line: the numbers behind the fate
};

struct Window {
  std::vector<WindowEntry> entries;  // one per input, in input order
  std::int64_t interactions = 0;     // i_max
  std::int64_t last_sweep = 0;       // the last hard-kill sweep (0: none yet)
  std::size_t budget = 0;
  std::size_t tokens = 0;  // of the kept turns, at most `budget`
  std::size_t kept = 0;
  std::size_t inactive = 0;
  std::size_t hard_killed = 0;
  std::size_t too_large = 0;
  std::size_t pruned = 0;
};

// The window of `turns` (in interaction order) under `budget` tokens.
Window SelectWindow(std::span<const WindowInput> turns, std::size_t budget,
                    const ActiveConfig& config);

}  // namespace engram::lifecycle

#endif  // ENGRAM_LIFECYCLE_WINDOW_H_
