// DMF's formulas with the paper's constants (the [active] defaults), checked against values
// computed by hand from the paper's equations and its tables (DMF §5.3, §5.4 Table 2, §6.5
// Table 3, §6.6, §7.2, §8.2).
#include "lifecycle/survival.h"

#include <gtest/gtest.h>

#include <cmath>

namespace engram::lifecycle {
namespace {

const ActiveConfig kDmf;  // DMF's defaults

TurnSignals Content(double density, double sentiment, double entities, double divergence) {
  return TurnSignals{.information_density = density,
                     .sentiment = sentiment,
                     .entity_norm = entities,
                     .divergence = divergence};
}

TEST(SurvivalTest, DefaultsAreThePapersConstants) {
  // Table 1, eq. 9, Table 4, §6.5, §6.6, §7.1, §7.2, §8.2.
  EXPECT_EQ(kDmf.weight_density, 3.0);
  EXPECT_EQ(kDmf.weight_sentiment, 0.2);
  EXPECT_EQ(kDmf.weight_entities, 2.0);
  EXPECT_EQ(kDmf.weight_divergence, -2.5);
  EXPECT_EQ(kDmf.midpoint, 1.5);
  EXPECT_EQ(kDmf.operational_scale, 0.75);
  EXPECT_EQ(kDmf.eta_constraint, 1.20);
  EXPECT_EQ(kDmf.eta_correction, 0.90);
  EXPECT_EQ(kDmf.eta_past_state, 0.0);
  EXPECT_EQ(kDmf.boost_user_correction, 0.15);
  EXPECT_EQ(kDmf.decay_rate, 0.035);
  EXPECT_EQ(kDmf.inertia, 0.5);
  EXPECT_EQ(kDmf.tier_healthy, 0.75);
  EXPECT_EQ(kDmf.tier_critical, 0.3);
  EXPECT_EQ(kDmf.kill_floor, 0.05);
  EXPECT_EQ(kDmf.window_tokens, 4096u);
  EXPECT_EQ(kDmf.bonus_constraint, 0.20);
  EXPECT_EQ(kDmf.supersession_penalty, 0.35);
  EXPECT_EQ(kDmf.social_activation, 0.40);
  EXPECT_EQ(kDmf.social_floor, 0.25);
}

TEST(SurvivalTest, CalibrationAverageTurn) {
  // §5.3 eq. 13-14: z = 3.0(0.40) + 0.2(0.15) + 2.0(0.20) − 2.5(0.15)
  //                   = 1.2 + 0.03 + 0.4 − 0.375 = 1.255
  // Ω = σ(1.255 − 1.5) = 1 / (1 + e^0.245) = 1 / (1 + 1.27762) = 0.43905
  const Survival average = Score(Content(0.40, 0.15, 0.20, 0.15), kDmf);
  EXPECT_NEAR(average.z_content, 1.255, 1e-12);
  EXPECT_EQ(average.z_operational, 0);
  EXPECT_EQ(average.z_provenance, 0);
  EXPECT_NEAR(average.omega, 0.43905, 1e-5);
}

// §5.4 Table 2, row by row: z_total exactly (the table rounds it to two decimals), Ω as the
// paper prints it (two decimals) and to five decimals from the hand computation.
TEST(SurvivalTest, RepresentativeProfilesOfTable2) {
  // Technical fact: 3.0(0.60) + 0.2(0.05) + 2.0(0.80) − 2.5(0.05) = 1.8 + 0.01 + 1.6 − 0.125
  // = 3.285; Ω = σ(1.785) = 1 / (1 + 0.16780) = 0.85631.
  const Survival technical = Score(Content(0.60, 0.05, 0.80, 0.05), kDmf);
  EXPECT_NEAR(technical.z_total, 3.285, 1e-12);  // printed 3.29
  EXPECT_NEAR(technical.omega, 0.86, 0.005);
  EXPECT_NEAR(technical.omega, 0.85631, 1e-5);

  // User constraint: content 3.0(0.35) + 0.2(0.05) + 2.0(0.20) − 2.5(0.05) = 1.335, plus the
  // operational channel λ_op η_con = 0.75 × 1.20 = 0.9: z = 2.235; Ω = σ(0.735)
  // = 1 / (1 + 0.47951) = 0.67590.
  TurnSignals constraint = Content(0.35, 0.05, 0.20, 0.05);
  constraint.constraint = true;
  const Survival user_constraint = Score(constraint, kDmf);
  EXPECT_NEAR(user_constraint.z_content, 1.335, 1e-12);
  EXPECT_NEAR(user_constraint.z_operational, 0.9, 1e-12);
  EXPECT_NEAR(user_constraint.z_total, 2.235, 1e-12);  // printed 2.24
  EXPECT_NEAR(user_constraint.omega, 0.68, 0.005);
  EXPECT_NEAR(user_constraint.omega, 0.67590, 1e-5);

  // Content-rich, on-topic: 1.95 + 0.02 + 0.4 − 0.125 = 2.245; Ω = σ(0.745) = 0.67809.
  const Survival rich = Score(Content(0.65, 0.10, 0.20, 0.05), kDmf);
  EXPECT_NEAR(rich.z_total, 2.245, 1e-12);  // printed 2.25
  EXPECT_NEAR(rich.omega, 0.68, 0.005);
  EXPECT_NEAR(rich.omega, 0.67809, 1e-5);

  // Average turn: 1.255 (above); Ω 0.44.
  EXPECT_NEAR(Score(Content(0.40, 0.15, 0.20, 0.15), kDmf).omega, 0.44, 0.005);

  // Emotional, off-topic drift: 0.45 + 0.17 + 0.2 − 1.75 = −0.93; Ω = σ(−2.43)
  // = 1 / (1 + 11.3589) = 0.08091.
  const Survival drift = Score(Content(0.15, 0.85, 0.10, 0.70), kDmf);
  EXPECT_NEAR(drift.z_total, -0.93, 1e-12);
  EXPECT_NEAR(drift.omega, 0.08091, 1e-5);

  // Empty / non-social: z = 0; Ω = σ(−1.5) = 1 / (1 + 4.48169) = 0.18243 (also eq. 27).
  const Survival empty = Score(TurnSignals{}, kDmf);
  EXPECT_EQ(empty.z_total, 0);
  EXPECT_NEAR(empty.omega, 0.18243, 1e-5);

  // The ordering the paper draws from the table.
  EXPECT_GT(technical.omega, user_constraint.omega);
  EXPECT_GT(user_constraint.omega, 0.43905);
  EXPECT_GT(empty.omega, drift.omega);
}

TEST(SurvivalTest, OperationalChannelWeighsEachSignal) {
  // Every signal at once: 0.75 × (1.20 + 0.70 + 0.60 + 0.90 + 0.50 + 0.0) = 0.75 × 3.9 = 2.925.
  // Query-like and ack-like turns carry no operational weight.
  const TurnSignals all{.constraint = true,
                        .preference = true,
                        .current_state = true,
                        .past_state = true,
                        .correction = true,
                        .replacement = true,
                        .query_like = true,
                        .ack_like = true};
  EXPECT_NEAR(OperationalChannel(all, kDmf), 2.925, 1e-12);
  EXPECT_NEAR(OperationalChannel({.correction = true}, kDmf), 0.675, 1e-12);  // 0.75 × 0.90
  EXPECT_EQ(OperationalChannel({.query_like = true, .ack_like = true}, kDmf), 0);
}

TEST(SurvivalTest, ProvenanceChannelAddsTable4Boosts) {
  // user_correction 0.15 + preference_update 0.10 = 0.25; Ω = σ(0.25 − 1.5) = 1 / (1 + e^1.25)
  // = 1 / 4.49034 = 0.22270. corrected_by_user weighs 0.0 by default.
  TurnSignals signals{.user_correction = true, .preference_update = true};
  EXPECT_NEAR(ProvenanceChannel(signals, kDmf), 0.25, 1e-12);
  EXPECT_NEAR(Score(signals, kDmf).omega, 0.22270, 1e-5);
  signals.corrected_by_user = true;
  EXPECT_NEAR(ProvenanceChannel(signals, kDmf), 0.25, 1e-12);
  ActiveConfig penalised = kDmf;
  penalised.penalty_corrected_by_user = 0.5;
  EXPECT_NEAR(ProvenanceChannel(signals, penalised), -0.25, 1e-12);  // 0.25 − 0.5
}

TEST(SurvivalTest, SocialFloorRaisesOnlyLowAckLikeTurns) {
  // An ack-like turn with no content: Ω = 0.18243 < τ_soc 0.40 → max(0.18243, 0.25) = 0.25.
  const Survival ack = Score({.ack_like = true}, kDmf);
  EXPECT_NEAR(ack.omega_raw, 0.18243, 1e-5);
  EXPECT_EQ(ack.omega, 0.25);
  EXPECT_TRUE(ack.social_floor);
  // The same turn without the ack-like signal keeps 0.18243.
  EXPECT_NEAR(Score(TurnSignals{}, kDmf).omega, 0.18243, 1e-5);
  // Ω already above the floor (σ(z − 1.5) = 0.30 needs z = 1.5 + ln(0.3/0.7) = 0.65271):
  // max(0.30, 0.25) = 0.30, unchanged.
  TurnSignals middling{.information_density = 0.65271 / 3.0, .ack_like = true};
  const Survival kept = Score(middling, kDmf);
  EXPECT_NEAR(kept.omega, 0.30, 1e-5);
  EXPECT_FALSE(kept.social_floor);
  // Above τ_soc (the average turn, 0.43905) the floor does not apply at all.
  TurnSignals average = Content(0.40, 0.15, 0.20, 0.15);
  average.ack_like = true;
  EXPECT_NEAR(Score(average, kDmf).omega, 0.43905, 1e-5);
}

TEST(SurvivalTest, DecayWithInertia) {
  // Eq. 18: Ω_eff = Ω exp(−λ (1 − η Ω) Δn). Ω 0.5, Δn 20: 0.5 exp(−0.035 × 0.75 × 20)
  // = 0.5 exp(−0.525) = 0.5 × 0.59156 = 0.29578.
  EXPECT_NEAR(Decay(0.5, 20, kDmf), 0.29578, 1e-5);
  EXPECT_EQ(Decay(0.5, 0, kDmf), 0.5);  // brand new: unchanged
  // Strictly decreasing in Δn, and a higher Ω loses a smaller share.
  EXPECT_LT(Decay(0.5, 21, kDmf), Decay(0.5, 20, kDmf));
  EXPECT_GT(Decay(0.9, 30, kDmf) / 0.9, Decay(0.3, 30, kDmf) / 0.3);
}

TEST(SurvivalTest, HalfLivesOfTable3) {
  // Eq. 19: t½ = ln 2 / (λ (1 − η Ω)). Ω 0.87: μ 0.565, λ_eff 0.019775, t½ 35.05;
  // 0.72: 30.94; 0.50: 26.41; 0.35: 24.01; 0.25: 22.63; 0.18: 21.76 (Table 3 rounds to one
  // decimal: 35.0, 30.9, 26.4, 24.0, 22.6, 21.8).
  EXPECT_NEAR(HalfLife(0.87, kDmf), 35.0, 0.06);
  EXPECT_NEAR(HalfLife(0.72, kDmf), 30.9, 0.06);
  EXPECT_NEAR(HalfLife(0.50, kDmf), 26.4, 0.06);
  EXPECT_NEAR(HalfLife(0.35, kDmf), 24.0, 0.06);
  EXPECT_NEAR(HalfLife(0.25, kDmf), 22.6, 0.06);
  EXPECT_NEAR(HalfLife(0.18, kDmf), 21.8, 0.06);
  // The half-life is where the decay halves the score.
  const double t = HalfLife(0.6, kDmf);
  EXPECT_NEAR(0.6 * std::exp(-kDmf.decay_rate * (1 - kDmf.inertia * 0.6) * t), 0.3, 1e-12);
}

TEST(SurvivalTest, TiersOfEq20) {
  // Healthy above τ_H 0.75, critical at or below τ_C 0.3; Table 3's tiers at creation.
  EXPECT_EQ(TierOf(0.87, kDmf), Tier::kHealthy);
  EXPECT_EQ(TierOf(0.75, kDmf), Tier::kUnstable);
  EXPECT_EQ(TierOf(0.72, kDmf), Tier::kUnstable);
  EXPECT_EQ(TierOf(0.35, kDmf), Tier::kUnstable);
  EXPECT_EQ(TierOf(0.30, kDmf), Tier::kCritical);
  EXPECT_EQ(TierOf(0.25, kDmf), Tier::kCritical);
  EXPECT_EQ(TierName(Tier::kUnstable), "unstable");
}

TEST(SurvivalTest, PruneScoreOfEq25) {
  // Ω_eff 0.40 + constraint 0.20 + correction 0.15 − superseded 0.35 = 0.40.
  const TurnSignals signals{.constraint = true, .correction = true};
  EXPECT_NEAR(RetentionBonus(signals, kDmf), 0.35, 1e-12);
  EXPECT_NEAR(PruneScore(0.40, signals, /*superseded=*/true, kDmf), 0.40, 1e-12);
  // All five bonuses: 0.20 + 0.10 + 0.10 + 0.15 + 0.08 = 0.63; past state has none.
  EXPECT_NEAR(RetentionBonus({.constraint = true,
                              .preference = true,
                              .current_state = true,
                              .past_state = true,
                              .correction = true,
                              .replacement = true},
                             kDmf),
              0.63, 1e-12);
  EXPECT_NEAR(PruneScore(0.2, {}, /*superseded=*/false, kDmf), 0.2, 1e-12);
}

TEST(SurvivalTest, SignalNamesInFieldOrder) {
  EXPECT_EQ(SignalNames({.constraint = true, .correction = true, .ack_like = true}),
            (std::vector<std::string>{"constraint", "correction", "ack_like"}));
  EXPECT_TRUE(SignalNames({}).empty());
}

}  // namespace
}  // namespace engram::lifecycle
