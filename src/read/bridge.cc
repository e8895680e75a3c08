// The entity bridge (see bridge.h).
#include "read/bridge.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>

namespace engram::read {

std::size_t ApplyBridge(std::vector<Ranked>& ranked,
                        std::span<const std::shared_ptr<const ScopeGraph>> graphs,
                        const TurnLayout& layout, const RecallConfig& config) {
  // (role, session index) of a turn of the layout.
  const auto place_of = [&](std::int64_t row) -> std::optional<std::pair<Role, std::size_t>> {
    const auto at = layout.IndexOf(row);
    if (!at) return std::nullopt;
    return std::make_pair(layout.turns()[*at].role, layout.turns()[*at].session);
  };
  if (config.bridge_weight <= 0 || config.bridge_seeds == 0 || ranked.empty()) return 0;
  const std::size_t seed_count = std::min(config.bridge_seeds, ranked.size());
  std::map<std::int64_t, std::size_t> seed_of_row;  // row -> position in ranked
  for (std::size_t i = 0; i < seed_count; ++i) seed_of_row.emplace(ranked[i].fused.row, i);

  struct Bonus {
    double value = 0;
    std::size_t seed = 0;  // position of the seed in ranked
    std::string entity;
  };
  std::map<std::int64_t, Bonus> bonuses;  // turn row -> best bonus
  for (const std::shared_ptr<const ScopeGraph>& graph : graphs) {
    for (const EntityClass& entity_class : graph->classes) {
      std::size_t mentioned = 0;
      for (const GraphLink& link : entity_class.links) mentioned += link.mentioned;
      if (mentioned < 2 || mentioned > config.bridge_max_turns) continue;
      const bool speaker =
          std::any_of(entity_class.members.begin(), entity_class.members.end(),
                      [&](std::size_t member) { return graph->entities[member].speaker; });
      if (speaker) continue;
      // The best seed that mentions this entity.
      std::size_t best_seed = seed_count;
      for (const GraphLink& link : entity_class.links) {
        if (!link.mentioned) continue;
        const auto found = seed_of_row.find(link.turn_row);
        if (found != seed_of_row.end()) best_seed = std::min(best_seed, found->second);
      }
      if (best_seed == seed_count) continue;
      const double value = config.bridge_weight * ranked[best_seed].score;
      const std::string& name = graph->entities[entity_class.members.front()].name;
      const auto seed = place_of(ranked[best_seed].fused.row);
      if (!seed) continue;
      for (const GraphLink& link : entity_class.links) {
        if (!link.mentioned) continue;
        const auto place = place_of(link.turn_row);
        if (!place || place->first != seed->first || place->second == seed->second) continue;
        Bonus& bonus = bonuses[link.turn_row];
        if (value > bonus.value ||
            (value == bonus.value && best_seed == bonus.seed && name < bonus.entity)) {
          bonus = {value, best_seed, name};
        }
      }
    }
  }

  std::map<std::int64_t, std::size_t> position_of_row;
  for (std::size_t i = 0; i < ranked.size(); ++i) position_of_row[ranked[i].fused.row] = i;
  // The seeds' scores before any bonus (a seed may itself get one from another seed).
  std::vector<double> seed_scores(seed_count);
  for (std::size_t i = 0; i < seed_count; ++i) seed_scores[i] = ranked[i].score;
  std::size_t added = 0;
  for (const auto& [row, bonus] : bonuses) {
    char detail[96];
    std::snprintf(detail, sizeof detail, "(score %.4f) that names it: +%.4f",
                  seed_scores[bonus.seed], bonus.value);
    added += AddBonus(ranked, position_of_row, row,
                      {"bridge", 1.0,
                       "mentions " + bonus.entity + ", like the candidate ranked " +
                           std::to_string(bonus.seed + 1) + " " + detail,
                       bonus.value});
  }
  return added;
}

}  // namespace engram::read
