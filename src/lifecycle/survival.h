// DMF's survival score and what happens to it over a run (DMF §5-8): the three pre-sigmoid
// channels, the logistic projection, the social floor, decay with score-dependent inertia, tiers
// and the pruning score. Pure functions of a turn's stored signals and the [active] constants.
//
//   lifecycle::TurnSignals signals{.information_density = 0.35, .sentiment = 0.05,
//                                  .entity_norm = 0.20, .divergence = 0.05};
//   const lifecycle::Survival score = lifecycle::Score(signals, config.active);
//   // score.z_total = 3.0*0.35 + 0.2*0.05 + 2.0*0.20 - 2.5*0.05 = 1.335
//   const double now = lifecycle::Decay(score.omega, /*delta_n=*/10, config.active);
//
// The formulas, with the [active] key of every constant:
//   z_content = α ID + β |S| + γ E_norm + δ D                                          (eq. 8)
//   z_op      = λ_op (η_con 1_con + η_pref 1_pref + η_cs 1_cs + η_corr 1_corr
//                     + η_repl 1_repl + η_past 1_past)                                  (eq. 9)
//   z_prov    = κ_uc 1_uc + κ_pu 1_pu + κ_con 1_con_source − κ_cb 1_corrected_by_user  (eq. 10)
//   Ω         = σ(z_content + z_op + z_prov − x0)                                   (eq. 11-12)
//   Ω_final   = max(Ω, social_floor) for an ack-like turn with Ω < social_activation  (eq. 29)
//   Ω_eff     = Ω exp(−λ (1 − η Ω) Δn)                                                (eq. 18)
//   tier      = healthy if Ω_eff > τ_H, critical if Ω_eff ≤ τ_C, unstable between     (eq. 20)
//   S_prune   = Ω_eff + Σ ρ_signal 1_signal − p_sup 1_superseded                  (eq. 23-25)
//
// Thread-safety: pure functions.
#ifndef ENGRAM_LIFECYCLE_SURVIVAL_H_
#define ENGRAM_LIFECYCLE_SURVIVAL_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engram/config.h"

namespace engram::lifecycle {

// What the write path stored about one turn, as the score reads it.
struct TurnSignals {
  // DMF's content signals (the turn's analysis row; 0 when it has none).
  double information_density = 0;  // ID, in [0, 1]
  double sentiment = 0;            // |S| = |VADER compound|, in [0, 1]
  double entity_norm = 0;          // E_norm = min(E, E_cap) / E_cap, in [0, 1]
  double divergence = 0;           // D, in [0, 2]
  // Conversational signals (the turn's memory-act signal nodes).
  bool constraint = false;
  bool preference = false;
  bool current_state = false;
  bool past_state = false;
  bool correction = false;
  bool replacement = false;
  bool query_like = false;
  bool ack_like = false;  // DMF's is_social: at most 6 words with a social keyword (eq. 28)
  // Provenance flags the caller put in the turn's metadata ("provenance": [...]).
  bool user_correction = false;
  bool preference_update = false;
  bool constraint_source = false;
  bool corrected_by_user = false;
};

// The names of the conversational signals a turn has, in the order of TurnSignals' fields
// ("constraint", "preference", "current_state", "past_state", "correction", "replacement",
// "query_like", "ack_like").
std::vector<std::string> SignalNames(const TurnSignals& signals);

struct Survival {
  double z_content = 0;
  double z_operational = 0;
  double z_provenance = 0;
  double z_total = 0;
  double omega_raw = 0;  // σ(z_total − x0), before the social floor
  double omega = 0;      // after the social floor
  bool social_floor = false;  // the floor raised omega_raw
};

double ContentChannel(const TurnSignals& signals, const ActiveConfig& config);      // eq. 8
double OperationalChannel(const TurnSignals& signals, const ActiveConfig& config);  // eq. 9
double ProvenanceChannel(const TurnSignals& signals, const ActiveConfig& config);   // eq. 10
// σ(z − x0) = 1 / (1 + e^−(z − x0)) (eq. 12).
double Logistic(double z, double midpoint);
// Eq. 8-12 and the social floor of eq. 29.
Survival Score(const TurnSignals& signals, const ActiveConfig& config);

// Ω_eff after `delta_n` >= 0 more interactions (eq. 18).
double Decay(double omega, std::int64_t delta_n, const ActiveConfig& config);
// Interactions until Ω_eff halves: ln 2 / (λ (1 − η Ω)) (eq. 19); infinite when λ = 0.
double HalfLife(double omega, const ActiveConfig& config);

enum class Tier { kHealthy, kUnstable, kCritical };
std::string_view TierName(Tier tier);  // "healthy", "unstable", "critical"
Tier TierOf(double omega_eff, const ActiveConfig& config);  // eq. 20

// B_ret (eq. 23): the retention bonuses of the turn's conversational signals.
double RetentionBonus(const TurnSignals& signals, const ActiveConfig& config);
// S_prune (eq. 25) = Ω_eff + B_ret − p_sup 1_superseded (eq. 24).
double PruneScore(double omega_eff, const TurnSignals& signals, bool superseded,
                  const ActiveConfig& config);

}  // namespace engram::lifecycle

#endif  // ENGRAM_LIFECYCLE_SURVIVAL_H_
