// A run's active window (see window.h).
#include "lifecycle/window.h"

#include <algorithm>
#include <cstdio>

namespace engram::lifecycle {
namespace {

std::string Number(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.4f", value);
  return buffer;
}

std::string Short(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.2f", value);
  return buffer;
}

// "Ω_eff 0.4120 + constraint 0.20 − superseded 0.35".
std::string PruneTerms(const WindowInput& turn, const WindowEntry& entry,
                       const ActiveConfig& config) {
  std::string terms = "Ω_eff " + Number(entry.omega_eff);
  const std::pair<bool, std::pair<const char*, double>> bonuses[] = {
      {turn.signals.constraint, {"constraint", config.bonus_constraint}},
      {turn.signals.preference, {"preference", config.bonus_preference}},
      {turn.signals.current_state, {"current_state", config.bonus_current_state}},
      {turn.signals.correction, {"correction", config.bonus_correction}},
      {turn.signals.replacement, {"replacement", config.bonus_replacement}}};
  for (const auto& [set, bonus] : bonuses) {
    if (set && bonus.second != 0) terms += " + " + std::string(bonus.first) + " " + Short(bonus.second);
  }
  if (turn.superseded && config.supersession_penalty != 0) {
    terms += " − superseded " + Short(config.supersession_penalty);
  }
  return terms;
}

// Evicts `order`'s entries, lowest S_prune first (the older turn first on a tie), until the kept
// tokens fit the budget.
void Evict(std::vector<std::size_t>& order, std::span<const WindowInput> turns, Window& window,
           const char* why) {
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const double sa = window.entries[a].prune_score;
    const double sb = window.entries[b].prune_score;
    if (sa != sb) return sa < sb;
    return turns[a].interaction < turns[b].interaction;
  });
  for (const std::size_t index : order) {
    if (window.tokens <= window.budget) break;
    WindowEntry& entry = window.entries[index];
    entry.fate = Fate::kPruned;
    entry.explanation = std::string(why) + ": S_prune " + Number(entry.prune_score) +
                        " was the lowest left";
    window.tokens -= turns[index].tokens;
    ++window.pruned;
  }
}

}  // namespace

std::string_view FateName(Fate fate) {
  switch (fate) {
    case Fate::kKept:
      return "kept";
    case Fate::kInactive:
      return "inactive";
    case Fate::kHardKilled:
      return "hard_killed";
    case Fate::kTooLarge:
      return "too_large";
    case Fate::kPruned:
      return "pruned";
  }
  return "kept";
}

std::string_view KeepReasonName(KeepReason reason) {
  switch (reason) {
    case KeepReason::kWithinBudget:
      return "within_budget";
    case KeepReason::kHealthy:
      return "healthy";
    case KeepReason::kOutranksPruned:
      return "outranks_pruned";
  }
  return "within_budget";
}

Window SelectWindow(std::span<const WindowInput> turns, std::size_t budget,
                    const ActiveConfig& config) {
  Window window;
  window.budget = budget;
  for (const WindowInput& turn : turns) {
    window.interactions = std::max(window.interactions, turn.interaction);
  }
  const auto every = static_cast<std::int64_t>(std::max<std::size_t>(config.kill_every_turns, 1));
  window.last_sweep = window.interactions / every * every;

  // Scores, inactive turns, hard-kill, turns too large for any window.
  window.entries.resize(turns.size());
  for (std::size_t i = 0; i < turns.size(); ++i) {
    const WindowInput& turn = turns[i];
    WindowEntry& entry = window.entries[i];
    entry.survival = Score(turn.signals, config);
    entry.delta_n = window.interactions - turn.interaction;
    entry.omega_eff = Decay(entry.survival.omega, entry.delta_n, config);
    entry.tier = TierOf(entry.omega_eff, config);
    entry.retention_bonus = RetentionBonus(turn.signals, config);
    entry.prune_score = PruneScore(entry.omega_eff, turn.signals, turn.superseded, config);
    if (!turn.inactive_status.empty()) {
      entry.fate = Fate::kInactive;
      entry.explanation = "the turn is " + turn.inactive_status;
      ++window.inactive;
      continue;
    }
    if (turn.interaction <= window.last_sweep) {
      const double at_sweep =
          Decay(entry.survival.omega, window.last_sweep - turn.interaction, config);
      if (at_sweep < config.kill_floor) {
        entry.fate = Fate::kHardKilled;
        entry.explanation = "hard-killed by the sweep at interaction " +
                            std::to_string(window.last_sweep) + ": Ω_eff " + Number(at_sweep) +
                            " < Ω_kill " + Number(config.kill_floor);
        ++window.hard_killed;
        continue;
      }
    }
    if (turn.tokens > budget) {
      entry.fate = Fate::kTooLarge;
      entry.explanation = "its " + std::to_string(turn.tokens) +
                          " tokens exceed the window's budget of " + std::to_string(budget);
      ++window.too_large;
      continue;
    }
    entry.fate = Fate::kKept;
    window.tokens += turn.tokens;
  }

  // Budget pruning: candidates first, healthy turns only if they alone exceed the budget.
  const bool pressure = window.tokens > budget;
  std::vector<std::size_t> candidates;
  std::vector<std::size_t> healthy;
  for (std::size_t i = 0; i < turns.size(); ++i) {
    if (window.entries[i].fate != Fate::kKept) continue;
    (window.entries[i].tier == Tier::kHealthy ? healthy : candidates).push_back(i);
  }
  Evict(candidates, turns, window, "pruned under budget pressure");
  Evict(healthy, turns, window, "pruned: the healthy turns alone exceeded the budget");

  double highest_pruned = 0;
  bool any_pruned = false;
  for (const WindowEntry& entry : window.entries) {
    if (entry.fate != Fate::kPruned) continue;
    highest_pruned = any_pruned ? std::max(highest_pruned, entry.prune_score) : entry.prune_score;
    any_pruned = true;
  }
  for (std::size_t i = 0; i < turns.size(); ++i) {
    WindowEntry& entry = window.entries[i];
    if (entry.fate != Fate::kKept) continue;
    ++window.kept;
    if (!pressure) {
      entry.reason = KeepReason::kWithinBudget;
      entry.explanation = "the run's surviving turns fit the window's " + std::to_string(budget) +
                          " tokens";
    } else if (entry.tier == Tier::kHealthy) {
      entry.reason = KeepReason::kHealthy;
      entry.explanation = "healthy: Ω_eff " + Number(entry.omega_eff) + " > τ_H " +
                          Number(config.tier_healthy) + ", protected from budget pruning";
    } else {
      entry.reason = KeepReason::kOutranksPruned;
      entry.explanation = "S_prune " + Number(entry.prune_score) + " (" +
                          PruneTerms(turns[i], entry, config) + "), no lower than a pruned turn's" +
                          (any_pruned ? " (at most " + Number(highest_pruned) + ")" : "");
    }
    if (entry.survival.social_floor) {
      entry.explanation += "; social floor raised Ω from " + Number(entry.survival.omega_raw) +
                           " to " + Number(entry.survival.omega);
    }
  }
  return window;
}

}  // namespace engram::lifecycle
