// The active window's rules (DMF §7-8) on hand-computed runs, and a property test over seeded
// random runs: the window never exceeds its budget, and budget pruning never drops a constraint
// or a correction while a lower-scored candidate stays.
#include "lifecycle/window.h"

#include <gtest/gtest.h>

#include <random>
#include <tuple>

namespace engram::lifecycle {
namespace {

const ActiveConfig kDmf;

TurnSignals Content(double density, double sentiment, double entities, double divergence) {
  return TurnSignals{.information_density = density,
                     .sentiment = sentiment,
                     .entity_norm = entities,
                     .divergence = divergence};
}

WindowInput Turn(std::int64_t interaction, TurnSignals signals, std::size_t tokens = 10) {
  return WindowInput{.interaction = interaction, .tokens = tokens, .signals = signals};
}

std::vector<Fate> Fates(const Window& window) {
  std::vector<Fate> fates;
  for (const WindowEntry& entry : window.entries) fates.push_back(entry.fate);
  return fates;
}

// Four turns of 10 tokens at i_max = 4 (no sweep yet: kill_every_turns is 5):
//   1. user constraint (Table 2: Ω 0.67590), Δn 3: rate 0.035 (1 − 0.5 × 0.67590) = 0.023172,
//      Ω_eff = 0.67590 e^−0.069515 = 0.63051 (unstable); S = 0.63051 + 0.20 = 0.83051
//   2. average (Ω 0.43905), Δn 2: Ω_eff = 0.43905 e^−0.054633 = 0.41571; S = 0.41571
//   3. average, superseded, Δn 1: Ω_eff = 0.42722; S = 0.42722 − 0.35 = 0.07722
//   4. technical fact (Ω 0.85631), Δn 0: healthy; S = 0.85631
std::vector<WindowInput> FourTurns() {
  TurnSignals constraint = Content(0.35, 0.05, 0.20, 0.05);
  constraint.constraint = true;
  WindowInput superseded = Turn(3, Content(0.40, 0.15, 0.20, 0.15));
  superseded.superseded = true;
  return {Turn(1, constraint), Turn(2, Content(0.40, 0.15, 0.20, 0.15)), superseded,
          Turn(4, Content(0.60, 0.05, 0.80, 0.05))};
}

TEST(WindowTest, HandComputedScoresAndTiers) {
  const Window window = SelectWindow(FourTurns(), 100, kDmf);
  ASSERT_EQ(window.entries.size(), 4u);
  EXPECT_EQ(window.interactions, 4);
  EXPECT_EQ(window.last_sweep, 0);
  EXPECT_NEAR(window.entries[0].omega_eff, 0.63051, 1e-5);
  EXPECT_NEAR(window.entries[0].prune_score, 0.83051, 1e-5);
  EXPECT_NEAR(window.entries[1].omega_eff, 0.41571, 1e-5);
  EXPECT_NEAR(window.entries[2].omega_eff, 0.42722, 1e-5);
  EXPECT_NEAR(window.entries[2].prune_score, 0.07722, 1e-5);
  EXPECT_NEAR(window.entries[3].omega_eff, 0.85631, 1e-5);
  EXPECT_EQ(window.entries[0].tier, Tier::kUnstable);
  EXPECT_EQ(window.entries[3].tier, Tier::kHealthy);
  // 40 tokens fit 100: everything stays, for that reason.
  EXPECT_EQ(window.kept, 4u);
  EXPECT_EQ(window.tokens, 40u);
  for (const WindowEntry& entry : window.entries) {
    EXPECT_EQ(entry.reason, KeepReason::kWithinBudget);
  }
}

TEST(WindowTest, BudgetPruningFollowsThePruneScore) {
  // 30 tokens: one turn goes. Candidates by S: 3 (0.07722), 2 (0.41571), 1 (0.83051). Turn 3
  // goes although its Ω_eff (0.42722) is above turn 2's: the supersession penalty.
  Window window = SelectWindow(FourTurns(), 30, kDmf);
  EXPECT_EQ(Fates(window),
            (std::vector<Fate>{Fate::kKept, Fate::kKept, Fate::kPruned, Fate::kKept}));
  EXPECT_EQ(window.tokens, 30u);
  EXPECT_EQ(window.entries[0].reason, KeepReason::kOutranksPruned);
  EXPECT_EQ(window.entries[3].reason, KeepReason::kHealthy);
  // 20 tokens: the average turn goes next; the constraint (Ω_eff 0.63 + bonus 0.20) stays.
  window = SelectWindow(FourTurns(), 20, kDmf);
  EXPECT_EQ(Fates(window),
            (std::vector<Fate>{Fate::kKept, Fate::kPruned, Fate::kPruned, Fate::kKept}));
  // 10 tokens: only the healthy technical fact is left.
  window = SelectWindow(FourTurns(), 10, kDmf);
  EXPECT_EQ(Fates(window),
            (std::vector<Fate>{Fate::kPruned, Fate::kPruned, Fate::kPruned, Fate::kKept}));
  // 5 tokens: no turn of 10 tokens can ever fit.
  window = SelectWindow(FourTurns(), 5, kDmf);
  EXPECT_EQ(window.too_large, 4u);
  EXPECT_EQ(window.tokens, 0u);
}

TEST(WindowTest, RetentionBonusOutranksAHigherScore) {
  // DMF §7.2.4's key distinction, both at Δn 1 and 0 of a 2-turn run, 10 tokens each, budget 10:
  //   1. constraint with ID 0.10 (z = 0.3 + 0.9 = 1.2, Ω = σ(−0.3) = 0.42556), Δn 1:
  //      Ω_eff = 0.42556 e^−(0.035 × 0.78722) = 0.41399; S = 0.61399
  //   2. ID 0.45 (z = 1.35, Ω = σ(−0.15) = 0.46257), Δn 0: S = 0.46257
  // Turn 2 has the higher Ω_eff but goes.
  TurnSignals constraint = Content(0.10, 0, 0, 0);
  constraint.constraint = true;
  const std::vector<WindowInput> turns = {Turn(1, constraint), Turn(2, Content(0.45, 0, 0, 0))};
  const Window window = SelectWindow(turns, 10, kDmf);
  EXPECT_NEAR(window.entries[0].omega_eff, 0.41399, 1e-5);
  EXPECT_NEAR(window.entries[1].omega_eff, 0.46257, 1e-5);
  EXPECT_EQ(Fates(window), (std::vector<Fate>{Fate::kKept, Fate::kPruned}));
}

TEST(WindowTest, HealthyTurnsAreProtected) {
  // Budget 10, two turns of 10 tokens: a healthy but superseded technical fact (Δn 0,
  // S = 0.85631 − 0.35 = 0.50631) stays, and the content-rich turn before it (Δn 1,
  // Ω_eff = 0.67809 e^−(0.035 × 0.66096) = 0.66258, unstable, S 0.66258) goes although its S is
  // higher: only candidates (Ω_eff ≤ τ_H) are eligible for budget pruning.
  WindowInput healthy = Turn(2, Content(0.60, 0.05, 0.80, 0.05));
  healthy.superseded = true;
  const std::vector<WindowInput> turns = {Turn(1, Content(0.65, 0.10, 0.20, 0.05)), healthy};
  const Window window = SelectWindow(turns, 10, kDmf);
  EXPECT_NEAR(window.entries[1].prune_score, 0.50631, 1e-5);
  EXPECT_GT(window.entries[0].prune_score, window.entries[1].prune_score);
  EXPECT_EQ(Fates(window), (std::vector<Fate>{Fate::kPruned, Fate::kKept}));
  EXPECT_EQ(window.entries[1].reason, KeepReason::kHealthy);
}

TEST(WindowTest, HealthyTurnsLeaveOnlyWhenTheyAloneExceedTheBudget) {
  // Two healthy technical facts of 10 tokens, budget 15: the older (lower Ω_eff) goes.
  const std::vector<WindowInput> turns = {Turn(1, Content(0.60, 0.05, 0.80, 0.05)),
                                          Turn(2, Content(0.60, 0.05, 0.80, 0.05))};
  const Window window = SelectWindow(turns, 15, kDmf);
  EXPECT_EQ(Fates(window), (std::vector<Fate>{Fate::kPruned, Fate::kKept}));
  EXPECT_LE(window.tokens, 15u);
}

TEST(WindowTest, HardKillAtTheLastSweep) {
  // 46 empty turns (Ω 0.18243, rate 0.035 (1 − 0.5 × 0.18243) = 0.031808). Sweeps every 5
  // interactions: the last at 45. At Δn 41: 0.18243 e^−1.30413 = 0.04951 < 0.05 (killed);
  // Δn 40: 0.18243 e^−1.27232 = 0.05111 (kept). So turns 1-4 (45 − i ≥ 41) are gone, and the
  // newest turn, past the sweep, is kept whatever its score.
  std::vector<WindowInput> turns;
  for (int i = 1; i <= 46; ++i) turns.push_back(Turn(i, TurnSignals{}, 1));
  const Window window = SelectWindow(turns, 1000, kDmf);
  EXPECT_EQ(window.last_sweep, 45);
  EXPECT_EQ(window.hard_killed, 4u);
  for (int i = 0; i < 46; ++i) {
    EXPECT_EQ(window.entries[i].fate, i < 4 ? Fate::kHardKilled : Fate::kKept) << i + 1;
  }
  // One interaction before the sweep (i_max 44, last sweep 40): only Δn >= 41 at 40, none.
  turns.resize(44);
  EXPECT_EQ(SelectWindow(turns, 1000, kDmf).hard_killed, 0u);
}

TEST(WindowTest, InactiveTurnsNeverEnter) {
  std::vector<WindowInput> turns = FourTurns();
  turns[3].inactive_status = "retired";
  const Window window = SelectWindow(turns, 100, kDmf);
  EXPECT_EQ(window.entries[3].fate, Fate::kInactive);
  EXPECT_EQ(window.inactive, 1u);
  EXPECT_EQ(window.tokens, 30u);
}

TEST(WindowTest, SocialFloorIsExplained) {
  const std::vector<WindowInput> turns = {Turn(1, {.ack_like = true})};
  const Window window = SelectWindow(turns, 100, kDmf);
  EXPECT_EQ(window.entries[0].survival.omega, 0.25);
  EXPECT_NE(window.entries[0].explanation.find("social floor"), std::string::npos);
}

// Seeded random runs: signals, supersession, retired turns and token sizes drawn at random.
std::vector<WindowInput> RandomRun(std::mt19937_64& rng) {
  std::uniform_int_distribution<int> length(1, 400);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::uniform_int_distribution<std::size_t> tokens(1, 120);
  std::vector<WindowInput> turns(static_cast<std::size_t>(length(rng)));
  for (std::size_t i = 0; i < turns.size(); ++i) {
    WindowInput& turn = turns[i];
    turn.interaction = static_cast<std::int64_t>(i) + 1;
    turn.tokens = tokens(rng);
    TurnSignals& s = turn.signals;
    s.information_density = unit(rng);
    s.sentiment = unit(rng);
    s.entity_norm = unit(rng) < 0.5 ? 0 : unit(rng);
    s.divergence = 2 * unit(rng) * unit(rng);
    s.constraint = unit(rng) < 0.15;
    s.preference = unit(rng) < 0.15;
    s.current_state = unit(rng) < 0.15;
    s.past_state = unit(rng) < 0.1;
    s.correction = unit(rng) < 0.1;
    s.replacement = unit(rng) < 0.1;
    s.ack_like = unit(rng) < 0.1;
    s.user_correction = unit(rng) < 0.05;
    turn.superseded = unit(rng) < 0.1;
    if (unit(rng) < 0.03) turn.inactive_status = "retired";
  }
  return turns;
}

TEST(WindowPropertyTest, BudgetAndConstraintsHoldOnRandomRuns) {
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    std::mt19937_64 rng(seed);
    const std::vector<WindowInput> turns = RandomRun(rng);
    ActiveConfig config;
    config.kill_every_turns = std::uniform_int_distribution<std::size_t>(1, 20)(rng);
    const std::size_t budget = std::uniform_int_distribution<std::size_t>(1, 3000)(rng);
    const Window window = SelectWindow(turns, budget, config);
    SCOPED_TRACE("seed " + std::to_string(seed) + ", " + std::to_string(turns.size()) +
                 " turns, budget " + std::to_string(budget));

    // Never above the budget, and the counts add up.
    std::size_t kept_tokens = 0;
    for (std::size_t i = 0; i < turns.size(); ++i) {
      if (window.entries[i].fate == Fate::kKept) kept_tokens += turns[i].tokens;
    }
    ASSERT_LE(kept_tokens, budget);
    ASSERT_EQ(kept_tokens, window.tokens);
    ASSERT_EQ(window.kept + window.inactive + window.hard_killed + window.too_large +
                  window.pruned,
              turns.size());

    // A constraint or correction pruned by the budget: every kept turn either has a higher
    // pruning score (ties: the newer turn stays) or is a healthy turn, protected while the
    // dropped one was a candidate.
    for (std::size_t d = 0; d < turns.size(); ++d) {
      const WindowEntry& dropped = window.entries[d];
      if (dropped.fate != Fate::kPruned ||
          !(turns[d].signals.constraint || turns[d].signals.correction)) {
        continue;
      }
      for (std::size_t k = 0; k < turns.size(); ++k) {
        const WindowEntry& kept = window.entries[k];
        if (kept.fate != Fate::kKept) continue;
        const bool outranks = std::tie(kept.prune_score, turns[k].interaction) >
                              std::tie(dropped.prune_score, turns[d].interaction);
        const bool protected_healthy =
            kept.tier == Tier::kHealthy && dropped.tier != Tier::kHealthy;
        ASSERT_TRUE(outranks || protected_healthy)
            << "turn " << turns[d].interaction << " (S " << dropped.prune_score
            << ") dropped while turn " << turns[k].interaction << " (S " << kept.prune_score
            << ") stays";
      }
    }

    // Hard-kill: exactly the turns up to the last sweep whose Ω_eff there was below Ω_kill.
    for (std::size_t i = 0; i < turns.size(); ++i) {
      if (!turns[i].inactive_status.empty()) continue;
      const bool below =
          turns[i].interaction <= window.last_sweep &&
          Decay(window.entries[i].survival.omega, window.last_sweep - turns[i].interaction,
                config) < config.kill_floor;
      ASSERT_EQ(window.entries[i].fate == Fate::kHardKilled, below) << turns[i].interaction;
    }

    // The same run gives the same window.
    const Window again = SelectWindow(turns, budget, config);
    ASSERT_EQ(Fates(again), Fates(window));
  }
}

}  // namespace
}  // namespace engram::lifecycle
