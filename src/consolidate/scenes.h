// Scenes (EverMemOS §3.4 "MemScenes", KeyMem's fragments): episodes clustered by theme with
// the paper's incremental rule, each with a centroid, a keyword vocabulary and an extractive
// summary.
//
//   std::vector<SceneEpisode> episodes = ...;  // in episode order
//   std::vector<SceneCluster> scenes = ClusterScenes(episodes, config.consolidate);
//
// The rule, applied to each episode in order: among the scenes that have a member within
// scene_max_gap_days of it (the closest-in-time member, EverMemOS Appendix Table 6), take the
// one whose centroid is most similar (cosine; the earlier scene on ties); join it when the
// similarity is at least scene_threshold ("tau"), else start a new scene. The centroid is the
// mean of the members' vectors, summed in member order, so the same episodes always give the
// same scenes bit for bit, however many consolidation runs they arrived over.
#ifndef ENGRAM_CONSOLIDATE_SCENES_H_
#define ENGRAM_CONSOLIDATE_SCENES_H_

#include <cstddef>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "consolidate/episodes.h"
#include "engram/config.h"
#include "engram/types.h"

namespace engram::consolidate {

// An episode as clustering sees it.
struct SceneEpisode {
  Timestamp start;
  Timestamp end;
  std::vector<float> vector;                 // any length; all episodes' the same
  std::map<std::string, std::size_t> terms;  // content term -> occurrences in its turns
  std::vector<NarrativeSentence> sentences;  // its narrative's quoted sentences (no opening)
};

struct SceneCluster {
  std::vector<std::size_t> members;  // episode indexes, increasing
  std::vector<double> centroid;      // mean of the members' vectors
};

// Cosine of two vectors of equal length (0 when either is zero or the lengths differ).
double Cosine(std::span<const double> a, std::span<const float> b);

// A fixed-size bag of terms for stores without an embedder: each term's count added at the
// index of its FNV-1a hash modulo `dimension`. Deterministic across platforms.
std::vector<float> HashedTermVector(const std::map<std::string, std::size_t>& terms,
                                    std::size_t dimension);

std::vector<SceneCluster> ClusterScenes(std::span<const SceneEpisode> episodes,
                                        const ConsolidateConfig& config);

// The scene's `count` most characteristic terms: occurrences in its members times
// log(1 + E / df), where E is the number of episodes and df the number holding the term, so words
// every episode uses (the speakers' names, "thanks") rank below the scene's own (higher score
// first, then alphabetical).
std::vector<std::string> SceneKeywords(std::span<const SceneEpisode> episodes,
                                       const SceneCluster& scene, std::size_t count);

// Up to `count` of the members' narrative sentences that hold the most keywords (the earlier
// on ties), in episode and sentence order.
std::vector<NarrativeSentence> SceneSummary(std::span<const SceneEpisode> episodes,
                                            const SceneCluster& scene,
                                            std::span<const std::string> keywords,
                                            std::size_t count);

}  // namespace engram::consolidate

#endif  // ENGRAM_CONSOLIDATE_SCENES_H_
