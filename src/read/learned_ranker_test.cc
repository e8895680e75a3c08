// Tests for the ranking features (rank_features.h) and the learned ranker (learned_ranker.h):
// model validation, tree walks with 32-bit comparisons and missing values, the explanation's
// exact contributions, the re-ordering with scores kept in place, and the built-in model
// against the scores the training script computed (src/read/ranker/sample.json).
#include "read/learned_ranker.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "read/rank_features.h"
#include "read/read_test_util.h"

namespace engram::read {
namespace {

using ::testing::HasSubstr;
using Json = nlohmann::json;

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

std::size_t Column(std::string_view name) {
  const std::vector<std::string>& names = FeatureNames();
  for (std::size_t index = 0; index < names.size(); ++index) {
    if (names[index] == name) return index;
  }
  ADD_FAILURE() << "no feature " << name;
  return 0;
}

// Two trees: the first splits on bm25_rr < 0.5 (missing: right), the second on term_share < 0.25
// (missing: left).
Json TwoTreeModel() {
  Json model = {{"format", "engram-ranker"},
                {"version", 7},
                {"feature_set", kFeatureSetVersion},
                {"features", FeatureNames()},
                {"base_score", 0.5}};
  model["trees"] = Json::array();
  model["trees"].push_back({{"feature", {Column("bm25_rr"), -1, -1}},
                            {"threshold", {0.5, 0, 0}},
                            {"left", {1, -1, -1}},
                            {"right", {2, -1, -1}},
                            {"default_left", {0, 1, 1}},
                            {"value", {0.25, -1.0, 2.0}}});
  model["trees"].push_back({{"feature", {Column("term_share"), -1, -1}},
                            {"threshold", {0.25, 0, 0}},
                            {"left", {1, -1, -1}},
                            {"right", {2, -1, -1}},
                            {"default_left", {1, 1, 1}},
                            {"value", {0.0, -0.5, 0.5}}});
  return model;
}

FeatureVector Features(double bm25_rr, double term_share) {
  FeatureVector features(FeatureNames().size(), 0.0);
  features[Column("bm25_rr")] = bm25_rr;
  features[Column("term_share")] = term_share;
  return features;
}

TEST(LearnedRankerTest, ScoresWalkTreesWithMissingValuesToTheDefaultSide) {
  const StatusOr<LearnedRanker> model = LearnedRanker::Parse(TwoTreeModel().dump());
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  EXPECT_EQ(model->trees(), 2u);
  EXPECT_THAT(model->description(), HasSubstr("v7 (2 trees, sha256:"));
  EXPECT_DOUBLE_EQ(model->Score(Features(0.25, 0.1)), 0.5 - 1.0 - 0.5);
  EXPECT_DOUBLE_EQ(model->Score(Features(1.0, 0.5)), 0.5 + 2.0 + 0.5);
  EXPECT_DOUBLE_EQ(model->Score(Features(kNan, kNan)), 0.5 + 2.0 - 0.5);
}

TEST(LearnedRankerTest, ComparesAsThirtyTwoBitFloats) {
  const StatusOr<LearnedRanker> model = LearnedRanker::Parse(TwoTreeModel().dump());
  ASSERT_TRUE(model.ok());
  // Below 0.5 as a double, equal to it as a float: not less than the threshold, so right.
  const double just_below = 0.5 - 1e-12;
  ASSERT_LT(just_below, 0.5);
  EXPECT_DOUBLE_EQ(model->Score(Features(just_below, 0.5)), 0.5 + 2.0 + 0.5);
}

TEST(LearnedRankerTest, ExplanationsSumToTheScore) {
  const StatusOr<LearnedRanker> model = LearnedRanker::Parse(TwoTreeModel().dump());
  ASSERT_TRUE(model.ok());
  std::vector<double> contributions;
  double bias = 0;
  const double score = model->Explain(Features(1.0, 0.1), &contributions, &bias);
  EXPECT_DOUBLE_EQ(score, model->Score(Features(1.0, 0.1)));
  EXPECT_DOUBLE_EQ(bias, 0.5 + 0.25 + 0.0);
  EXPECT_DOUBLE_EQ(contributions[Column("bm25_rr")], 2.0 - 0.25);
  EXPECT_DOUBLE_EQ(contributions[Column("term_share")], -0.5);
  double sum = bias;
  for (const double contribution : contributions) sum += contribution;
  EXPECT_DOUBLE_EQ(sum, score);
}

TEST(LearnedRankerTest, RejectsModelsThatDoNotFit) {
  Json model = TwoTreeModel();
  model["format"] = "xgboost";
  EXPECT_THAT(LearnedRanker::Parse(model.dump()).status().message(), HasSubstr("\"format\""));
  model = TwoTreeModel();
  model["feature_set"] = kFeatureSetVersion + 1;
  EXPECT_THAT(LearnedRanker::Parse(model.dump()).status().message(),
              HasSubstr("trained on feature set"));
  model = TwoTreeModel();
  model["features"][3] = "renamed";
  EXPECT_THAT(LearnedRanker::Parse(model.dump()).status().message(),
              HasSubstr("feature 3 is \"renamed\""));
  model = TwoTreeModel();
  model["trees"][1]["left"][0] = 0;  // a cycle
  EXPECT_THAT(LearnedRanker::Parse(model.dump()).status().message(),
              HasSubstr("tree 1 node 0: a child index points outside the tree or backwards"));
  model = TwoTreeModel();
  model["trees"][0]["feature"][0] = 100000;
  EXPECT_THAT(LearnedRanker::Parse(model.dump()).status().message(), HasSubstr("out of range"));
  model = TwoTreeModel();
  model["trees"][0]["value"].push_back(1.0);
  EXPECT_THAT(LearnedRanker::Parse(model.dump()).status().message(),
              HasSubstr("arrays differ in length"));
  EXPECT_EQ(LearnedRanker::Parse("{").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(LearnedRanker::Load("/nonexistent/model.json").status().code(),
            StatusCode::kNotFound);
}

TEST(LearnedRankerTest, ReordersByModelScoreAndKeepsTheScoresInPlace) {
  const StatusOr<LearnedRanker> model = LearnedRanker::Parse(TwoTreeModel().dump());
  ASSERT_TRUE(model.ok());
  std::vector<Ranked> ranked = {testing::Candidate(10, 0.9), testing::Candidate(11, 0.6),
                                testing::Candidate(12, 0.3), testing::Candidate(13, 0.1)};
  // Model scores: row 10 -1.0, row 11 3.0, row 12 2.0; row 13 is below the depth.
  const std::vector<FeatureVector> features = {Features(0.25, 0.1), Features(1.0, 0.5),
                                               Features(1.0, 0.1)};
  ApplyLearnedRanker(*model, features, ranked);
  ASSERT_EQ(ranked.size(), 4u);
  EXPECT_EQ(ranked[0].fused.row, 11);
  EXPECT_EQ(ranked[1].fused.row, 12);
  EXPECT_EQ(ranked[2].fused.row, 10);
  EXPECT_EQ(ranked[3].fused.row, 13);
  EXPECT_DOUBLE_EQ(ranked[0].score, 0.9);
  EXPECT_DOUBLE_EQ(ranked[1].score, 0.6);
  EXPECT_DOUBLE_EQ(ranked[2].score, 0.3);
  EXPECT_DOUBLE_EQ(ranked[3].score, 0.1);
  EXPECT_TRUE(ranked[3].adjustments.empty());
  ASSERT_EQ(ranked[0].adjustments.size(), 1u);
  EXPECT_EQ(ranked[0].adjustments[0].name, "learned");
  EXPECT_DOUBLE_EQ(ranked[0].adjustments[0].factor, 0.9 / 0.6);
  EXPECT_EQ(ranked[0].adjustments[0].detail,
            "model score 3.000, rank before 2; weighed: bm25_rr 1 (+1.750), term_share 0.50 "
            "(+0.500)");
}

TEST(RankFeaturesTest, RouteFusionAndAdjustmentColumns) {
  Ranked first = testing::Candidate(1, 0.2);
  first.fused.fused_score = 0.1;
  first.fused.routes = {{"bm25", 2, 7.5, ""}, {"vector", 1, 0.8, ""}};
  first.adjustments = {{"coverage", 1.5, "", 0}, {"neighbour", 1.0, "", 0.01}};
  Ranked second = testing::Candidate(2, 0.1);
  second.fused.fused_score = 0.2;
  second.fused.routes = {{"bm25", 1, 9.0, ""}};
  const std::vector<Ranked> ranked = {first, second};
  QueryFrame frame;
  frame.first_person = true;
  const std::map<std::string, double> weights = {{"bm25", 1.0}, {"vector", 0.5}};
  const FeatureInput input{.frame = &frame, .route_weights = &weights};
  const std::vector<FeatureVector> rows = ExtractFeatures(ranked, 5, input);
  ASSERT_EQ(rows.size(), 2u);
  ASSERT_EQ(rows[0].size(), FeatureNames().size());
  EXPECT_DOUBLE_EQ(rows[0][Column("bm25_rr")], 0.5);
  EXPECT_DOUBLE_EQ(rows[0][Column("bm25_score")], 7.5);
  EXPECT_DOUBLE_EQ(rows[0][Column("vector_weight")], 0.5);
  EXPECT_DOUBLE_EQ(rows[0][Column("keyword_rr")], 0.0);
  EXPECT_TRUE(std::isnan(rows[0][Column("keyword_score")]));
  EXPECT_DOUBLE_EQ(rows[0][Column("keyword_weight")], 0.0);
  EXPECT_DOUBLE_EQ(rows[0][Column("routes")], 2.0);
  EXPECT_DOUBLE_EQ(rows[0][Column("fused_rank")], 2.0);  // row 2's fused score is higher
  EXPECT_DOUBLE_EQ(rows[1][Column("fused_rank")], 1.0);
  EXPECT_DOUBLE_EQ(rows[0][Column("fused_ratio")], 0.5);
  EXPECT_DOUBLE_EQ(rows[1][Column("rank")], 2.0);
  EXPECT_DOUBLE_EQ(rows[1][Column("score_ratio")], 0.5);
  EXPECT_DOUBLE_EQ(rows[0][Column("coverage_factor")], 1.5);
  EXPECT_DOUBLE_EQ(rows[0][Column("neighbour_bonus")], 0.01);
  EXPECT_DOUBLE_EQ(rows[0][Column("person_factor")], 1.0);
  EXPECT_DOUBLE_EQ(rows[0][Column("first_person")], 1.0);
  // No layout and no nodes: the turn and text features are missing.
  EXPECT_TRUE(std::isnan(rows[0][Column("length")]));
  EXPECT_TRUE(std::isnan(rows[0][Column("digits")]));
  EXPECT_TRUE(std::isnan(rows[0][Column("time_match")]));  // the question names no time
}

TEST(RankFeaturesTest, TurnAndTextColumnsFromTheLayout) {
  const testing::Conversation conversation;
  std::vector<Ranked> ranked = {testing::Candidate(3, 0.3), testing::Candidate(5, 0.2)};
  store::NodeRecord node;
  node.row = 5;
  node.kind = NodeKind::kTurn;
  node.text = "We met Anna in Lisbon on 12 May, 2023.";
  const std::unordered_map<std::int64_t, const store::NodeRecord*> nodes = {{5, &node}};
  QueryFrame frame;
  const FeatureInput input{.frame = &frame, .layout = &conversation.layout, .nodes = &nodes};
  const std::vector<FeatureVector> rows = ExtractFeatures(ranked, 2, input);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_DOUBLE_EQ(rows[1][Column("best_distance")], 2.0);
  EXPECT_DOUBLE_EQ(rows[1][Column("kind")], static_cast<double>(NodeKind::kTurn));
  EXPECT_DOUBLE_EQ(rows[1][Column("digits")], 2.0);       // 12 and 2023
  EXPECT_DOUBLE_EQ(rows[1][Column("capitalised")], 3.0);  // Anna, Lisbon, May
  EXPECT_TRUE(std::isnan(rows[0][Column("digits")]));      // row 3's node was not loaded
}

// The built-in model is the shipped file, and scores the training script's sample as the
// script computed (to 1e-6).
TEST(LearnedRankerTest, BuiltinModelMatchesTheTrainersScores) {
  const StatusOr<LearnedRanker> model = LearnedRanker::Builtin();
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  std::ifstream file(std::string(ENGRAM_RANKER_DIR) + "/sample.json");
  ASSERT_TRUE(file.good()) << "missing " << ENGRAM_RANKER_DIR << "/sample.json";
  std::stringstream text;
  text << file.rdbuf();
  const Json sample = Json::parse(text.str());
  ASSERT_GT(sample["rows"].size(), 50u);
  std::size_t compared = 0;
  for (const Json& row : sample["rows"]) {
    FeatureVector features;
    for (const Json& value : row["features"]) {
      features.push_back(value.is_null() ? kNan : value.get<double>());
    }
    ASSERT_EQ(features.size(), FeatureNames().size());
    EXPECT_NEAR(model->Score(features), row["score"].get<double>(), 1e-6);
    ++compared;
  }
  EXPECT_EQ(compared, sample["rows"].size());
}

}  // namespace
}  // namespace engram::read
