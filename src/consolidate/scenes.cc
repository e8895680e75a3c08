// Scene clustering, keywords and summaries (see scenes.h).
#include "consolidate/scenes.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <set>

#include "text/tokenizer.h"

namespace engram::consolidate {
namespace {

constexpr std::int64_t kMicrosPerDay = 86'400'000'000;

// Distance between two closed intervals: 0 when they overlap.
std::int64_t Gap(Timestamp a_start, Timestamp a_end, Timestamp b_start, Timestamp b_end) {
  if (a_end < b_start) return b_start.micros - a_end.micros;
  if (b_end < a_start) return a_start.micros - b_end.micros;
  return 0;
}

}  // namespace

double Cosine(std::span<const double> a, std::span<const float> b) {
  if (a.size() != b.size() || a.empty()) return 0.0;
  double dot = 0, norm_a = 0, norm_b = 0;
  for (std::size_t idx = 0; idx < a.size(); ++idx) {
    dot += a[idx] * b[idx];
    norm_a += a[idx] * a[idx];
    norm_b += static_cast<double>(b[idx]) * b[idx];
  }
  if (norm_a <= 0 || norm_b <= 0) return 0.0;
  return dot / (std::sqrt(norm_a) * std::sqrt(norm_b));
}

std::vector<float> HashedTermVector(const std::map<std::string, std::size_t>& terms,
                                    std::size_t dimension) {
  std::vector<float> vector(dimension, 0.0f);
  if (dimension == 0) return vector;
  for (const auto& [term, count] : terms) {
    std::uint64_t hash = 14695981039346656037ull;  // FNV-1a 64
    for (const char byte : term) {
      hash ^= static_cast<unsigned char>(byte);
      hash *= 1099511628211ull;
    }
    vector[hash % dimension] += static_cast<float>(count);
  }
  return vector;
}

std::vector<SceneCluster> ClusterScenes(std::span<const SceneEpisode> episodes,
                                        const ConsolidateConfig& config) {
  const std::int64_t max_gap = static_cast<std::int64_t>(config.scene_max_gap_days) * kMicrosPerDay;
  std::vector<SceneCluster> scenes;
  std::vector<std::vector<double>> sums;  // per scene, the members' vectors summed in order
  for (std::size_t episode_idx = 0; episode_idx < episodes.size(); ++episode_idx) {
    const SceneEpisode& episode = episodes[episode_idx];
    std::size_t best = scenes.size();
    double best_similarity = -std::numeric_limits<double>::infinity();
    for (std::size_t scene_idx = 0; scene_idx < scenes.size(); ++scene_idx) {
      std::int64_t closest = std::numeric_limits<std::int64_t>::max();
      for (const std::size_t member : scenes[scene_idx].members) {
        closest = std::min(closest, Gap(episode.start, episode.end, episodes[member].start,
                                        episodes[member].end));
      }
      if (closest > max_gap) continue;
      const double similarity = Cosine(scenes[scene_idx].centroid, episode.vector);
      if (similarity > best_similarity) {
        best_similarity = similarity;
        best = scene_idx;
      }
    }
    if (best == scenes.size() || best_similarity < config.scene_threshold) {
      scenes.push_back({});
      sums.emplace_back(episode.vector.size(), 0.0);
      best = scenes.size() - 1;
    }
    SceneCluster& scene = scenes[best];
    std::vector<double>& sum = sums[best];
    if (sum.size() == episode.vector.size()) {
      for (std::size_t idx = 0; idx < sum.size(); ++idx) sum[idx] += episode.vector[idx];
    }
    scene.members.push_back(episode_idx);
    scene.centroid = sum;
    for (double& value : scene.centroid) value /= static_cast<double>(scene.members.size());
  }
  return scenes;
}

std::vector<std::string> SceneKeywords(std::span<const SceneEpisode> episodes,
                                       const SceneCluster& scene, std::size_t count) {
  std::map<std::string, std::size_t> totals;
  for (const std::size_t member : scene.members) {
    for (const auto& [term, occurrences] : episodes[member].terms) totals[term] += occurrences;
  }
  std::map<std::string, std::size_t> document_frequency;
  for (const SceneEpisode& episode : episodes) {
    for (const auto& [term, occurrences] : episode.terms) {
      if (totals.contains(term)) ++document_frequency[term];
    }
  }
  std::vector<std::pair<std::string, double>> ranked;
  for (const auto& [term, occurrences] : totals) {
    const double idf = std::log(1.0 + static_cast<double>(episodes.size()) /
                                          static_cast<double>(document_frequency[term]));
    ranked.emplace_back(term, static_cast<double>(occurrences) * idf);
  }
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::vector<std::string> keywords;
  for (std::size_t idx = 0; idx < ranked.size() && idx < count; ++idx) {
    keywords.push_back(ranked[idx].first);
  }
  return keywords;
}

std::vector<NarrativeSentence> SceneSummary(std::span<const SceneEpisode> episodes,
                                            const SceneCluster& scene,
                                            std::span<const std::string> keywords,
                                            std::size_t count) {
  static const text::Tokenizer tokenizer;
  const std::set<std::string> wanted(keywords.begin(), keywords.end());
  struct Candidate {
    const NarrativeSentence* sentence;
    std::size_t hits;
  };
  std::vector<Candidate> candidates;
  for (const std::size_t member : scene.members) {
    for (const NarrativeSentence& sentence : episodes[member].sentences) {
      std::set<std::string> hit;
      for (const std::string& term : tokenizer.Terms(sentence.text)) {
        if (wanted.contains(term)) hit.insert(term);
      }
      candidates.push_back({&sentence, hit.size()});
    }
  }
  std::vector<std::size_t> order(candidates.size());
  for (std::size_t idx = 0; idx < order.size(); ++idx) order[idx] = idx;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return candidates[a].hits > candidates[b].hits;
  });
  if (order.size() > count) order.resize(count);
  std::sort(order.begin(), order.end());
  std::vector<NarrativeSentence> summary;
  for (const std::size_t idx : order) summary.push_back(*candidates[idx].sentence);
  return summary;
}

}  // namespace engram::consolidate
