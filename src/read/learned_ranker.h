// The learned ranker: a stage after fusion and the adjustments that re-orders the best
// candidates by a small gradient-boosted tree ensemble (LambdaMART) over their ranking features
// (read/rank_features.h). The model is trained on the dev files by bench/train_ranker.py and
// shipped in the repository (src/read/ranker/), compiled into the library and checked against
// its SHA-256 digest; `[recall] ranker_model` may name another file of the same format.
//
//   ASSIGN_OR_RETURN(const LearnedRanker model, LearnedRanker::Builtin());
//   ApplyLearnedRanker(model, features, ranked);  // ranked[0, features.size()) re-ordered
//
// Inference is deterministic on every CPU: a feature is compared as a 32-bit float with the
// split's 32-bit threshold (as the trainer does), a missing (NaN) feature takes the split's
// default branch, and leaf values are summed in double in tree order.
//
// Model file (JSON, written by the training script):
//   {"format": "engram-ranker", "version": 1, "feature_set": kFeatureSetVersion,
//    "features": [names, in FeatureNames() order], "base_score": 0.5,
//    "trees": [{"feature": [...], "threshold": [...], "left": [...], "right": [...],
//               "default_left": [...], "value": [...]}, ...],
//    "training": {"min_pool": the smallest fused pool trained on, ...}}
// One entry per node in each array; node 0 is the root; feature -1 marks a leaf, whose value is
// its output; an inner node's value is the cover-weighted mean of its leaves (for the per-feature
// contributions in the explanations: Saabas's path attribution).
#ifndef ENGRAM_READ_LEARNED_RANKER_H_
#define ENGRAM_READ_LEARNED_RANKER_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engram/status.h"
#include "read/adjust.h"
#include "read/rank_features.h"

namespace engram::read {

// Immutable after Parse; safe to share between threads.
class LearnedRanker {
 public:
  // Parses and validates a model file's text: kInvalidArgument naming what is wrong (format,
  // a feature set other than kFeatureSetVersion, feature names that differ from FeatureNames(),
  // a node that points outside its tree or back to an earlier node).
  static StatusOr<LearnedRanker> Parse(std::string_view json);
  // The model compiled into the library, after checking its digest (kCorruption when the
  // bytes do not match it).
  static StatusOr<LearnedRanker> Builtin();
  // Reads and parses a model file (kNotFound when it cannot be read).
  static StatusOr<LearnedRanker> Load(const std::string& path);

  // The model's score of one feature vector (FeatureNames() order).
  double Score(std::span<const double> features) const;
  // The scores of many, equal to Score of each (tree by tree, so a tree stays in cache).
  std::vector<double> ScoreAll(std::span<const FeatureVector> rows) const;
  // The score and each feature's share of it (Saabas): score = bias + Σ contributions.
  double Explain(std::span<const double> features, std::vector<double>* contributions,
                 double* bias) const;

  // "v1 sha256:0123abcd…" for the diagnostics.
  const std::string& description() const { return description_; }
  // The smallest fused pool the model was trained on ("training": {"min_pool"}; 0 when the file
  // does not say): a smaller pool is outside what it learned, and recall keeps the fused order.
  std::size_t min_pool() const { return min_pool_; }
  std::size_t trees() const { return trees_.size(); }

 private:
  struct Node {
    std::int32_t feature = -1;  // -1: leaf
    float threshold = 0;
    std::int32_t left = 0;
    std::int32_t right = 0;
    bool default_left = true;
    double value = 0;
  };
  using Tree = std::vector<Node>;

  // The leaf reached by `features` in `tree`, visiting each inner node on the way.
  template <typename Visit>
  static const Node& Walk(const Tree& tree, std::span<const double> features, Visit&& visit);

  std::vector<Tree> trees_;
  double base_score_ = 0;
  std::size_t min_pool_ = 0;
  std::string description_;
};

// Re-orders ranked[0, features.size()) by the model's score, best first (ties keep their
// order). The scores themselves move with the order: the i-th best score before becomes the
// i-th score after, so the list stays sorted, the items below the depth keep theirs and the
// packing's score thresholds see the same values. Each re-ordered candidate gets a "learned"
// adjustment naming its model score and its rank before; the best `explained` of them also the
// three features that weighed most.
void ApplyLearnedRanker(const LearnedRanker& model, std::span<const FeatureVector> features,
                        std::vector<Ranked>& ranked, std::size_t explained = 1000);

}  // namespace engram::read

#endif  // ENGRAM_READ_LEARNED_RANKER_H_
