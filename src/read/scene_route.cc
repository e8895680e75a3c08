// The scene route (see scene_route.h).
#include "read/scene_route.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <utility>

namespace engram::read {
namespace {

// A stored episode laid over the layout: its turns are [begin, end) of TurnLayout::turns().
struct EpisodeUnit {
  std::string id;
  std::size_t begin = 0;
  std::size_t end = 0;
  double relevance = 0;
  std::optional<std::size_t> lexical_rank;  // 1-based
  std::optional<std::size_t> dense_rank;
};

struct SceneGroup {
  std::vector<std::size_t> members;  // EpisodeUnit indexes
  double score = 0;                  // max relevance of the members
};

// The searched scopes' active episodes and scenes (from the cache), laid over the layout.
Status LoadStructure(const RouteContext& context, ScopeStructureCache& cache,
                     std::vector<EpisodeUnit>& episodes, std::vector<SceneGroup>& scenes) {
  const TurnLayout& layout = *context.layout;
  ASSIGN_OR_RETURN(const std::vector<std::shared_ptr<const ScopeStructure>> structures,
                   cache.Get(*context.store, context.scope_ids, ScopeStructureSettings{}));
  bool any = false;
  for (const auto& structure : structures) any = any || !structure->scenes.empty();
  if (!any) return Status::Ok();  // never consolidated: nothing to lay over the layout
  std::map<std::pair<std::int64_t, std::int64_t>, std::size_t> turn_at;  // (scope, seq) -> index
  for (std::size_t turn_idx = 0; turn_idx < layout.turns().size(); ++turn_idx) {
    const LayoutTurn& turn = layout.turns()[turn_idx];
    turn_at.emplace(std::make_pair(turn.scope_id, turn.sequence), turn_idx);
  }
  std::map<std::string_view, std::size_t> episode_by_id;
  for (const auto& structure : structures) {
    const std::int64_t scope_id = structure->scope_id;
    for (const StructureEpisode& episode : structure->episodes) {
      const auto first = turn_at.find({scope_id, episode.first_sequence});
      const auto last = turn_at.find({scope_id, episode.last_sequence});
      if (first == turn_at.end() || last == turn_at.end() || last->second < first->second) continue;
      episode_by_id.emplace(episode.id, episodes.size());
      episodes.push_back({.id = episode.id, .begin = first->second, .end = last->second + 1});
    }
    for (const StructureScene& stored : structure->scenes) {
      SceneGroup scene;
      for (const std::string& member : stored.episodes) {
        const auto found = episode_by_id.find(member);
        if (found != episode_by_id.end()) scene.members.push_back(found->second);
      }
      if (!scene.members.empty()) scenes.push_back(std::move(scene));
    }
  }
  return Status::Ok();
}

// Ranks the episodes that have a score, best first (ties: the earlier episode), into `rank`
// (1-based); the others keep no rank.
void AssignRanks(const std::vector<std::optional<double>>& scores,
                 std::optional<std::size_t> EpisodeUnit::*rank, std::vector<EpisodeUnit>& units) {
  std::vector<std::size_t> order;
  for (std::size_t idx = 0; idx < scores.size(); ++idx) {
    if (scores[idx].has_value()) order.push_back(idx);
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return *scores[a] > *scores[b]; });
  for (std::size_t position = 0; position < order.size(); ++position) {
    units[order[position]].*rank = position + 1;
  }
}

std::string RankText(const std::optional<std::size_t>& rank) {
  return rank.has_value() ? std::to_string(*rank) : "-";
}

}  // namespace

StatusOr<std::vector<RouteCandidate>> SceneRoute::Run(const RouteContext& context) const {
  std::vector<RouteCandidate> candidates;
  if (context.layout == nullptr || context.store == nullptr || context.scope_ids.empty() ||
      context.frame->terms.empty()) {
    return candidates;
  }
  std::vector<EpisodeUnit> episodes;
  std::vector<SceneGroup> scenes;
  RETURN_IF_ERROR(LoadStructure(context, *cache_, episodes, scenes));
  if (episodes.empty() || scenes.empty()) return candidates;
  const TurnLayout& layout = *context.layout;
  const RecallConfig& recall = context.config->recall;

  // 1. Episode relevance: BM25 of the episode as one document, fused with its best turn's cosine.
  const TermMatrix matrix(layout, context.text_indexes, context.frame->terms);
  std::vector<Unit> units;
  for (const EpisodeUnit& episode : episodes) units.push_back({episode.begin, episode.end});
  std::vector<std::optional<double>> lexical(episodes.size());
  std::vector<double> own;  // each turn's own BM25, by layout index
  if (!matrix.empty()) {
    const std::vector<UnitScore> episode_scores = matrix.Score(units, context.config->bm25);
    for (std::size_t idx = 0; idx < episodes.size(); ++idx) {
      if (episode_scores[idx].score > 0) lexical[idx] = episode_scores[idx].score;
    }
    own.assign(layout.turns().size(), 0.0);
    const GroupingScores turn_scores = matrix.ScoreTurns(context.config->bm25);
    for (const ScoredUnit& turn : turn_scores.units()) {
      own[turn.unit.begin] = turn.score;
    }
  }
  std::vector<std::optional<double>> dense(episodes.size());
  if (!context.query_vector.empty()) {
    std::vector<std::optional<std::size_t>> episode_of_turn(layout.turns().size());
    for (std::size_t idx = 0; idx < episodes.size(); ++idx) {
      for (std::size_t turn_idx = episodes[idx].begin; turn_idx < episodes[idx].end; ++turn_idx) {
        episode_of_turn[turn_idx] = idx;
      }
    }
    for (const index::VectorIndex* vector_index : context.vector_indexes) {
      ASSIGN_OR_RETURN(const std::vector<index::VectorHit> hits,
                       vector_index->Search(context.query_vector, context.limit));
      for (const index::VectorHit& hit : hits) {
        const std::optional<std::size_t> turn_idx =
            layout.IndexOf(static_cast<std::int64_t>(hit.id));
        if (!turn_idx.has_value() || !episode_of_turn[*turn_idx].has_value()) continue;
        std::optional<double>& best = dense[*episode_of_turn[*turn_idx]];
        best = std::max(best.value_or(-1.0), static_cast<double>(hit.score));
      }
    }
  }
  AssignRanks(lexical, &EpisodeUnit::lexical_rank, episodes);
  AssignRanks(dense, &EpisodeUnit::dense_rank, episodes);
  for (EpisodeUnit& episode : episodes) {
    for (const std::optional<std::size_t>& rank : {episode.lexical_rank, episode.dense_rank}) {
      if (rank.has_value()) episode.relevance += 1.0 / (recall.rrf_k + static_cast<double>(*rank));
    }
  }

  // 2. Scenes by the maximum relevance of their episodes.
  std::vector<std::size_t> scene_order;
  for (std::size_t scene_idx = 0; scene_idx < scenes.size(); ++scene_idx) {
    SceneGroup& scene = scenes[scene_idx];
    for (const std::size_t member : scene.members) {
      scene.score = std::max(scene.score, episodes[member].relevance);
    }
    if (scene.score > 0) scene_order.push_back(scene_idx);
  }
  std::stable_sort(scene_order.begin(), scene_order.end(), [&](std::size_t a, std::size_t b) {
    return scenes[a].score > scenes[b].score;
  });
  if (scene_order.size() > recall.scene_select) scene_order.resize(recall.scene_select);

  // 3. The kept scenes' episodes, re-ranked.
  struct Pooled {
    std::size_t episode = 0;
    std::size_t scene_position = 0;  // 0-based, in scene_order
    double score = 0;
  };
  std::vector<Pooled> pooled;
  for (std::size_t position = 0; position < scene_order.size(); ++position) {
    const SceneGroup& scene = scenes[scene_order[position]];
    for (const std::size_t member : scene.members) {
      pooled.push_back({member, position,
                        episodes[member].relevance + recall.scene_member_weight * scene.score});
    }
  }
  std::stable_sort(pooled.begin(), pooled.end(), [](const Pooled& a, const Pooled& b) {
    if (a.score != b.score) return a.score > b.score;
    return a.episode < b.episode;
  });
  if (pooled.size() > recall.scene_episodes) pooled.resize(recall.scene_episodes);

  // 4. Their turns.
  const std::vector<LayoutTurn>& turns = layout.turns();
  for (std::size_t position = 0; position < pooled.size(); ++position) {
    const Pooled& entry = pooled[position];
    const EpisodeUnit& episode = episodes[entry.episode];
    std::vector<std::size_t> members;
    for (std::size_t turn_idx = episode.begin; turn_idx < episode.end; ++turn_idx) {
      members.push_back(turn_idx);
    }
    if (!own.empty()) {
      std::stable_sort(members.begin(), members.end(), [&](std::size_t a, std::size_t b) {
        return own[a] > own[b];  // stable: sequence order among equals
      });
    }
    char head[192];
    std::snprintf(head, sizeof head,
                  "episode #%zu seq %lld-%lld of scene #%zu (max relevance %.4f): relevance "
                  "%.4f (bm25 rank %s, dense rank %s) + %g x scene",
                  position + 1, static_cast<long long>(turns[episode.begin].sequence),
                  static_cast<long long>(turns[episode.end - 1].sequence),
                  entry.scene_position + 1, scenes[scene_order[entry.scene_position]].score,
                  episode.relevance, RankText(episode.lexical_rank).c_str(),
                  RankText(episode.dense_rank).c_str(), recall.scene_member_weight);
    for (const std::size_t turn_idx : members) {
      if (candidates.size() >= context.limit) return candidates;
      char own_text[48];
      std::snprintf(own_text, sizeof own_text, "; own %.2f",
                    own.empty() ? 0.0 : own[turn_idx]);
      candidates.push_back({turns[turn_idx].row, entry.score, std::string(head) + own_text});
    }
  }
  return candidates;
}

}  // namespace engram::read
