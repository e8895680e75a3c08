// The learned ranker (see learned_ranker.h).
#include "read/learned_ranker.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <nlohmann/json.hpp>
#include <numeric>

#include "core/files.h"
#include "core/sha256.h"

namespace engram::read {

// The model compiled into the library (generated from src/read/ranker/ by CMake).
extern const char kBuiltinRankerModel[];
extern const char kBuiltinRankerDigest[];

namespace {

using Json = nlohmann::json;

std::string Fixed(double value, int digits) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.*f", digits, value);
  return buffer;
}

// Formats a feature value for an explanation: integers plainly, others with 2 decimals.
std::string FeatureValue(double value) {
  if (std::isnan(value)) return "missing";
  if (value == std::floor(value) && std::abs(value) < 1e9) return Fixed(value, 0);
  return Fixed(value, 2);
}

}  // namespace

StatusOr<LearnedRanker> LearnedRanker::Parse(std::string_view text) {
  Json json;
  try {
    json = Json::parse(text);
  } catch (const Json::exception& error) {
    return Status::InvalidArgument(std::string("ranker model: not JSON: ") + error.what());
  }
  const auto fail = [](const std::string& what) {
    return Status::InvalidArgument("ranker model: " + what);
  };
  if (!json.is_object() || json.value("format", "") != "engram-ranker") {
    return fail("\"format\" is not \"engram-ranker\"");
  }
  if (!json.contains("feature_set") || !json["feature_set"].is_number_integer() ||
      json["feature_set"].get<int>() != kFeatureSetVersion) {
    return fail("trained on feature set " +
                (json.contains("feature_set") ? json["feature_set"].dump() : "(none)") +
                ", this engram computes feature set " + std::to_string(kFeatureSetVersion));
  }
  const std::vector<std::string>& names = FeatureNames();
  if (!json.contains("features") || !json["features"].is_array() ||
      json["features"].size() != names.size()) {
    return fail("\"features\" must list the " + std::to_string(names.size()) + " feature names");
  }
  for (std::size_t index = 0; index < names.size(); ++index) {
    if (!json["features"][index].is_string() || json["features"][index] != names[index]) {
      return fail("feature " + std::to_string(index) + " is " + json["features"][index].dump() +
                  ", expected \"" + names[index] + "\"");
    }
  }
  LearnedRanker model;
  if (!json.contains("base_score") || !json["base_score"].is_number()) {
    return fail("\"base_score\" must be a number");
  }
  model.base_score_ = json["base_score"].get<double>();
  if (!json.contains("trees") || !json["trees"].is_array() || json["trees"].empty()) {
    return fail("\"trees\" must be a non-empty array");
  }
  const auto width = static_cast<std::int32_t>(names.size());
  for (std::size_t tree_index = 0; tree_index < json["trees"].size(); ++tree_index) {
    const Json& entry = json["trees"][tree_index];
    const std::string where = "tree " + std::to_string(tree_index);
    if (!entry.is_object()) return fail(where + " is not an object");
    std::size_t size = 0;
    for (const char* field : {"feature", "threshold", "left", "right", "default_left", "value"}) {
      if (!entry.contains(field) || !entry[field].is_array() || entry[field].empty()) {
        return fail(where + ": \"" + field + "\" must be a non-empty array");
      }
      if (size == 0) size = entry[field].size();
      if (entry[field].size() != size) {
        return fail(where + ": its arrays differ in length");
      }
    }
    Tree tree(size);
    try {
      for (std::size_t node_index = 0; node_index < size; ++node_index) {
        Node& node = tree[node_index];
        node.feature = entry["feature"][node_index].get<std::int32_t>();
        node.threshold = static_cast<float>(entry["threshold"][node_index].get<double>());
        node.left = entry["left"][node_index].get<std::int32_t>();
        node.right = entry["right"][node_index].get<std::int32_t>();
        node.default_left = entry["default_left"][node_index].get<int>() != 0;
        node.value = entry["value"][node_index].get<double>();
        const std::string at = where + " node " + std::to_string(node_index);
        if (!std::isfinite(node.value)) return fail(at + ": value is not finite");
        if (node.feature < -1 || node.feature >= width) {
          return fail(at + ": feature " + std::to_string(node.feature) + " out of range");
        }
        if (node.feature == -1) continue;
        // Children come after their parent, so every walk ends.
        const auto in_tree = [&](std::int32_t child) {
          return child > static_cast<std::int32_t>(node_index) &&
                 child < static_cast<std::int32_t>(size);
        };
        if (!in_tree(node.left) || !in_tree(node.right)) {
          return fail(at + ": a child index points outside the tree or backwards");
        }
      }
    } catch (const Json::exception& error) {
      return fail(where + ": " + error.what());
    }
    model.trees_.push_back(std::move(tree));
  }
  if (json.contains("training") && json["training"].is_object() &&
      json["training"].contains("min_pool")) {
    const Json& min_pool = json["training"]["min_pool"];
    if (!min_pool.is_number_unsigned()) {
      return fail("\"training\".\"min_pool\" must be a non-negative integer");
    }
    model.min_pool_ = min_pool.get<std::size_t>();
  }
  const std::string digest = core::Sha256Hex(text);
  model.description_ = "v" + std::to_string(json.value("version", 0)) + " (" +
                       std::to_string(model.trees_.size()) + " trees, sha256:" +
                       digest.substr(0, 12) + ")";
  return model;
}

StatusOr<LearnedRanker> LearnedRanker::Builtin() {
  const std::string_view text(kBuiltinRankerModel);
  if (core::Sha256Hex(text) != std::string_view(kBuiltinRankerDigest)) {
    return Status::Corruption(
        "the built-in ranker model does not match its digest (src/read/ranker/model.sha256)");
  }
  return Parse(text);
}

StatusOr<LearnedRanker> LearnedRanker::Load(const std::string& path) {
  ASSIGN_OR_RETURN(const std::string text, core::ReadWholeFile(path, "ranker model"));
  return Parse(text);
}

template <typename Visit>
const LearnedRanker::Node& LearnedRanker::Walk(const Tree& tree, std::span<const double> features,
                                               Visit&& visit) {
  std::int32_t at = 0;
  while (tree[at].feature >= 0) {
    const Node& node = tree[at];
    const double value = node.feature < static_cast<std::int32_t>(features.size())
                             ? features[node.feature]
                             : std::nan("");
    const bool left = std::isnan(value) ? node.default_left
                                        : static_cast<float>(value) < node.threshold;
    const std::int32_t next = left ? node.left : node.right;
    visit(node, tree[next]);
    at = next;
  }
  return tree[at];
}

double LearnedRanker::Score(std::span<const double> features) const {
  double score = base_score_;
  for (const Tree& tree : trees_) {
    score += Walk(tree, features, [](const Node&, const Node&) {}).value;
  }
  return score;
}

std::vector<double> LearnedRanker::ScoreAll(std::span<const FeatureVector> rows) const {
  // The rows as one matrix of 32-bit floats (the values the splits compare), so the walks of a
  // tree over every row read one small block of memory.
  const std::size_t width = FeatureNames().size();
  std::vector<float> matrix(rows.size() * width, std::numeric_limits<float>::quiet_NaN());
  for (std::size_t row = 0; row < rows.size(); ++row) {
    const std::size_t columns = std::min(width, rows[row].size());
    for (std::size_t column = 0; column < columns; ++column) {
      matrix[row * width + column] = static_cast<float>(rows[row][column]);
    }
  }
  std::vector<double> scores(rows.size(), base_score_);
  // Eight rows walk a tree in step, so their independent loads overlap instead of each waiting
  // for the one before.
  constexpr std::size_t kLanes = 8;
  for (const Tree& tree : trees_) {
    const Node* nodes = tree.data();
    for (std::size_t first = 0; first < rows.size(); first += kLanes) {
      const std::size_t lanes = std::min(kLanes, rows.size() - first);
      std::int32_t at[kLanes] = {};
      bool walking = true;
      while (walking) {
        walking = false;
        for (std::size_t lane = 0; lane < lanes; ++lane) {
          const Node& node = nodes[at[lane]];
          if (node.feature < 0) continue;
          const float value = matrix[(first + lane) * width + node.feature];
          const bool left = std::isnan(value) ? node.default_left : value < node.threshold;
          at[lane] = left ? node.left : node.right;
          walking = true;
        }
      }
      for (std::size_t lane = 0; lane < lanes; ++lane) scores[first + lane] += nodes[at[lane]].value;
    }
  }
  return scores;
}

double LearnedRanker::Explain(std::span<const double> features, std::vector<double>* contributions,
                              double* bias) const {
  contributions->assign(FeatureNames().size(), 0.0);
  *bias = base_score_;
  double score = base_score_;
  for (const Tree& tree : trees_) {
    *bias += tree.front().value;
    score += Walk(tree, features, [&](const Node& parent, const Node& child) {
                (*contributions)[parent.feature] += child.value - parent.value;
              }).value;
  }
  return score;
}

void ApplyLearnedRanker(const LearnedRanker& model, std::span<const FeatureVector> features,
                        std::vector<Ranked>& ranked, std::size_t explained) {
  const std::size_t depth = std::min(features.size(), ranked.size());
  if (depth < 2) return;
  const std::vector<double> model_scores = model.ScoreAll(features.first(depth));
  std::vector<std::size_t> order(depth);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return model_scores[a] > model_scores[b];
  });
  const std::vector<std::string>& names = FeatureNames();
  std::vector<double> contributions;
  std::vector<double> scores(depth);
  for (std::size_t index = 0; index < depth; ++index) scores[index] = ranked[index].score;
  std::vector<Ranked> reordered;
  reordered.reserve(depth);
  for (std::size_t position = 0; position < depth; ++position) {
    const std::size_t before_index = order[position];
    std::string detail = "model score " + Fixed(model_scores[before_index], 3) +
                         ", rank before " + std::to_string(before_index + 1);
    if (position < explained) {
      // The three features that weighed most, by the size of their contribution.
      double bias = 0;
      model.Explain(features[before_index], &contributions, &bias);
      std::size_t top[3] = {0, 0, 0};
      std::size_t found = 0;
      for (std::size_t column = 0; column < contributions.size(); ++column) {
        const double size = std::abs(contributions[column]);
        if (size == 0) continue;
        std::size_t slot = std::min<std::size_t>(found, 3);
        while (slot > 0 && std::abs(contributions[top[slot - 1]]) < size) {
          if (slot < 3) top[slot] = top[slot - 1];
          --slot;
        }
        if (slot < 3) top[slot] = column;
        found = std::min<std::size_t>(found + 1, 3);
      }
      std::string weighed;
      for (std::size_t shown = 0; shown < found; ++shown) {
        const std::size_t column = top[shown];
        weighed += (weighed.empty() ? "" : ", ") + names[column] + " " +
                   FeatureValue(features[before_index][column]) + " (" +
                   (contributions[column] >= 0 ? "+" : "") + Fixed(contributions[column], 3) +
                   ")";
      }
      if (!weighed.empty()) detail += "; weighed: " + weighed;
    }
    Ranked candidate = std::move(ranked[before_index]);
    const double before = candidate.score;
    const double after = scores[position];
    Adjustment adjustment{"learned", 1.0, std::move(detail), 0.0};
    if (before > 0) {
      adjustment.factor = after / before;
    } else {
      adjustment.bonus = after - before;
    }
    candidate.score = after;
    candidate.adjustments.push_back(std::move(adjustment));
    reordered.push_back(std::move(candidate));
  }
  std::move(reordered.begin(), reordered.end(), ranked.begin());
}

}  // namespace engram::read
