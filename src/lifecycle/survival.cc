// DMF's survival score, decay, tiers and pruning score (see survival.h).
#include "lifecycle/survival.h"

#include <cmath>
#include <limits>

namespace engram::lifecycle {
namespace {

double Flag(bool set) { return set ? 1.0 : 0.0; }

}  // namespace

std::vector<std::string> SignalNames(const TurnSignals& signals) {
  std::vector<std::string> names;
  const std::pair<bool, const char*> flags[] = {
      {signals.constraint, "constraint"},   {signals.preference, "preference"},
      {signals.current_state, "current_state"}, {signals.past_state, "past_state"},
      {signals.correction, "correction"},   {signals.replacement, "replacement"},
      {signals.query_like, "query_like"},   {signals.ack_like, "ack_like"}};
  for (const auto& [set, name] : flags) {
    if (set) names.emplace_back(name);
  }
  return names;
}

double ContentChannel(const TurnSignals& signals, const ActiveConfig& config) {
  return config.weight_density * signals.information_density +
         config.weight_sentiment * signals.sentiment +
         config.weight_entities * signals.entity_norm +
         config.weight_divergence * signals.divergence;
}

double OperationalChannel(const TurnSignals& signals, const ActiveConfig& config) {
  return config.operational_scale *
         (config.eta_constraint * Flag(signals.constraint) +
          config.eta_preference * Flag(signals.preference) +
          config.eta_current_state * Flag(signals.current_state) +
          config.eta_correction * Flag(signals.correction) +
          config.eta_replacement * Flag(signals.replacement) +
          config.eta_past_state * Flag(signals.past_state));
}

double ProvenanceChannel(const TurnSignals& signals, const ActiveConfig& config) {
  return config.boost_user_correction * Flag(signals.user_correction) +
         config.boost_preference_update * Flag(signals.preference_update) +
         config.boost_constraint_source * Flag(signals.constraint_source) -
         config.penalty_corrected_by_user * Flag(signals.corrected_by_user);
}

double Logistic(double z, double midpoint) { return 1.0 / (1.0 + std::exp(-(z - midpoint))); }

Survival Score(const TurnSignals& signals, const ActiveConfig& config) {
  Survival survival;
  survival.z_content = ContentChannel(signals, config);
  survival.z_operational = OperationalChannel(signals, config);
  survival.z_provenance = ProvenanceChannel(signals, config);
  survival.z_total = survival.z_content + survival.z_operational + survival.z_provenance;
  survival.omega_raw = Logistic(survival.z_total, config.midpoint);
  survival.omega = survival.omega_raw;
  if (signals.ack_like && survival.omega_raw < config.social_activation &&
      survival.omega_raw < config.social_floor) {
    survival.omega = config.social_floor;
    survival.social_floor = true;
  }
  return survival;
}

double Decay(double omega, std::int64_t delta_n, const ActiveConfig& config) {
  return omega * std::exp(-config.decay_rate * (1.0 - config.inertia * omega) *
                          static_cast<double>(delta_n));
}

double HalfLife(double omega, const ActiveConfig& config) {
  const double rate = config.decay_rate * (1.0 - config.inertia * omega);
  if (rate <= 0) return std::numeric_limits<double>::infinity();
  return std::log(2.0) / rate;
}

std::string_view TierName(Tier tier) {
  switch (tier) {
    case Tier::kHealthy:
      return "healthy";
    case Tier::kUnstable:
      return "unstable";
    case Tier::kCritical:
      return "critical";
  }
  return "critical";
}

Tier TierOf(double omega_eff, const ActiveConfig& config) {
  if (omega_eff > config.tier_healthy) return Tier::kHealthy;
  if (omega_eff <= config.tier_critical) return Tier::kCritical;
  return Tier::kUnstable;
}

double RetentionBonus(const TurnSignals& signals, const ActiveConfig& config) {
  return config.bonus_constraint * Flag(signals.constraint) +
         config.bonus_preference * Flag(signals.preference) +
         config.bonus_current_state * Flag(signals.current_state) +
         config.bonus_correction * Flag(signals.correction) +
         config.bonus_replacement * Flag(signals.replacement);
}

double PruneScore(double omega_eff, const TurnSignals& signals, bool superseded,
                  const ActiveConfig& config) {
  return omega_eff + RetentionBonus(signals, config) -
         config.supersession_penalty * Flag(superseded);
}

}  // namespace engram::lifecycle
