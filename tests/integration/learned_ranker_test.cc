// The learned ranker through the public API ([recall] ranker, ranker_model, ranker_depth and
// RecallOptions::features): by default the built-in model re-orders the best candidates, says so
// in the diagnostics and explains each item with a "learned" adjustment; "fusion" keeps the
// fused order; a model file that cannot be used leaves the fused order with a warning, never an
// error; a call that names its own routes or weights, or whose pool is smaller than any the
// model was trained on, gets the fused order; the feature vectors a training trace asks for have one value per named feature; the
// scores stay sorted; and two engines give the same items in the same order.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "engram/engine.h"
#include "engram/testing/status_matchers.h"
#include "test_util.h"

namespace engram {
namespace {

using ::engram::testing::IsOk;
using ::testing::HasSubstr;
using ::testing::StartsWith;

class LearnedRankerTest : public ::testing::Test {
 protected:
  std::unique_ptr<Engine> Open(const testing::TempDir& dir, const std::string& ranker,
                               const std::string& model = "") {
    EngineOptions options = testing::TestOptions(dir);
    options.config = Config{};
    options.config->embedder.kind = "none";
    options.config->recall.ranker = ranker;
    options.config->recall.ranker_model = model;
    options.clock = FixedClock(*ParseTimestamp("2024-11-01T00:00:00Z"), 1000);
    std::unique_ptr<Engine> engine = testing::OpenOrDie(options);
    const std::vector<Turn> turns = {
        testing::MakeTurn("Ana", "I adopted a grey cat called Pixel last spring.", "s1",
                          "2024-05-01T10:00:00Z"),
        testing::MakeTurn("Ben", "Does Pixel get along with your dog?", "s1",
                          "2024-05-01T10:01:00Z"),
        testing::MakeTurn("Ana", "Pixel and the dog sleep on the same sofa now.", "s1",
                          "2024-05-01T10:02:00Z"),
        testing::MakeTurn("Ben", "My cat hides whenever a dog barks.", "s2",
                          "2024-06-01T10:00:00Z"),
        testing::MakeTurn("Ana", "We took the cat to the vet in Porto for a check-up.", "s2",
                          "2024-06-01T10:01:00Z"),
        testing::MakeTurn("Ben", "The weather in Porto was grey all week.", "s3",
                          "2024-07-01T10:00:00Z")};
    EXPECT_THAT(engine->Remember(scope_, turns), IsOk());
    // Enough conversation around them that a recall's fused pool is as large as those the
    // model was trained on (LearnedRanker::min_pool).
    static const char* const kPets[] = {"cat", "dog", "parrot", "rabbit", "hamster"};
    static const char* const kPlaces[] = {"park", "vet", "garden", "beach", "shop", "sofa"};
    std::vector<Turn> more;
    for (int index = 0; index < 180; ++index) {
      const std::string pet = kPets[index % 5];
      const std::string place = kPlaces[(index / 5) % 6];
      char time[32];
      std::snprintf(time, sizeof(time), "2024-08-%02dT10:%02d:00Z", 1 + index / 20, index % 20);
      more.push_back(testing::MakeTurn(index % 2 == 0 ? "Ana" : "Ben",
                                       "The " + pet + " at the " + place + " was " +
                                           std::to_string(index) + " minutes late today.",
                                       "t" + std::to_string(index / 20), time));
    }
    EXPECT_THAT(engine->Remember(scope_, more), IsOk());
    EXPECT_THAT(engine->WaitForDerivation(), IsOk());
    return engine;
  }

  static ReadResult Recall(Engine& engine, const RecallOptions& options = {}) {
    StatusOr<ReadResult> result =
        engine.Recall(scope_, {.text = "What is the name of Ana's cat?"}, options);
    EXPECT_THAT(result, IsOk());
    return result.ok() ? *result : ReadResult{};
  }

  static std::vector<std::string> Ids(const ReadResult& result) {
    std::vector<std::string> ids;
    for (const RecallItem& item : result.items) ids.push_back(item.id);
    return ids;
  }

  static const Adjustment* Learned(const RecallItem& item) {
    for (const Adjustment& adjustment : item.adjustments) {
      if (adjustment.name == "learned") return &adjustment;
    }
    return nullptr;
  }

  static inline const Scope scope_ = testing::S("user:ana");
};

TEST_F(LearnedRankerTest, TheBuiltInModelOrdersAndExplainsByDefault) {
  testing::TempDir dir;
  EXPECT_EQ(Config{}.recall.ranker, "learned");
  std::unique_ptr<Engine> engine = Open(dir, "learned");
  const ReadResult result = Recall(*engine);
  EXPECT_THAT(result.diagnostics.ranker, StartsWith("learned v1 ("));
  EXPECT_THAT(result.diagnostics.ranker, HasSubstr("trees, sha256:"));
  ASSERT_FALSE(result.items.empty());
  for (const RecallItem& item : result.items) {
    const Adjustment* learned = Learned(item);
    ASSERT_NE(learned, nullptr) << item.text;
    EXPECT_THAT(learned->detail, StartsWith("model score "));
    EXPECT_THAT(learned->detail, HasSubstr(", rank before "));
  }
  for (std::size_t index = 1; index < result.items.size(); ++index) {
    EXPECT_GE(result.items[index - 1].score, result.items[index].score);
  }
  EXPECT_TRUE(result.items.front().features.empty());  // only when asked for
}

TEST_F(LearnedRankerTest, FusionKeepsTheFusedOrderWithoutLearnedAdjustments) {
  testing::TempDir dir;
  std::unique_ptr<Engine> engine = Open(dir, "fusion");
  const ReadResult result = Recall(*engine);
  EXPECT_EQ(result.diagnostics.ranker, "fusion");
  ASSERT_FALSE(result.items.empty());
  for (const RecallItem& item : result.items) EXPECT_EQ(Learned(item), nullptr);
}

TEST_F(LearnedRankerTest, APoolSmallerThanTheModelSawKeepsTheFusedOrder) {
  testing::TempDir dir;
  EngineOptions options = testing::TestOptions(dir);
  options.config = Config{};
  options.config->embedder.kind = "none";
  std::unique_ptr<Engine> engine = testing::OpenOrDie(options);
  const std::vector<Turn> turns = {
      testing::MakeTurn("Ana", "I love ramen.", "s1", "2024-05-01T10:00:00Z"),
      testing::MakeTurn("Ana", "I take the train to Porto.", "s1", "2024-05-01T10:01:00Z")};
  ASSERT_THAT(engine->Remember(scope_, turns), IsOk());
  const ReadResult result = Recall(*engine);
  EXPECT_THAT(result.diagnostics.ranker,
              ::testing::MatchesRegex("fusion \\([0-9]+ fused candidates, fewer than the learned "
                                      "ranker was trained on: [0-9]+\\)"));
  for (const RecallItem& item : result.items) EXPECT_EQ(Learned(item), nullptr);
}

TEST_F(LearnedRankerTest, ACallThatNamesItsRoutesOrWeightsGetsTheirFusedOrder) {
  testing::TempDir dir;
  std::unique_ptr<Engine> engine = Open(dir, "learned");
  RecallOptions routes;
  routes.routes = {"bm25"};
  const ReadResult named = Recall(*engine, routes);
  EXPECT_EQ(named.diagnostics.ranker, "fusion (the call named its routes or route weights)");
  ASSERT_FALSE(named.items.empty());
  for (const RecallItem& item : named.items) EXPECT_EQ(Learned(item), nullptr);
  RecallOptions weights;
  weights.route_weights = {{"vector", 0.0}};
  EXPECT_EQ(Recall(*engine, weights).diagnostics.ranker,
            "fusion (the call named its routes or route weights)");
}

TEST_F(LearnedRankerTest, AModelThatCannotBeUsedKeepsTheFusedOrderWithAWarning) {
  testing::TempDir dir;
  const std::string path = dir.path() + "/bad-model.json";
  std::ofstream(path) << R"({"format": "engram-ranker", "feature_set": 999})";
  std::unique_ptr<Engine> bad = Open(dir, "learned", path);
  const ReadResult result = Recall(*bad);
  EXPECT_EQ(result.diagnostics.ranker, "fusion");
  ASSERT_FALSE(result.diagnostics.warnings.empty());
  bool warned = false;
  for (const std::string& warning : result.diagnostics.warnings) {
    if (warning.find("learned ranker off, the fused order kept") != std::string::npos &&
        warning.find("trained on feature set 999") != std::string::npos) {
      warned = true;
    }
  }
  EXPECT_TRUE(warned);
  testing::TempDir fusion_dir;
  std::unique_ptr<Engine> fusion = Open(fusion_dir, "fusion");
  EXPECT_EQ(Ids(result), Ids(Recall(*fusion)));

  testing::TempDir missing_dir;
  std::unique_ptr<Engine> missing = Open(missing_dir, "learned", dir.path() + "/none.json");
  const ReadResult missing_result = Recall(*missing);
  EXPECT_EQ(missing_result.diagnostics.ranker, "fusion");
  EXPECT_EQ(Ids(missing_result), Ids(result));
}

TEST_F(LearnedRankerTest, FeatureVectorsForTrainingHaveOneValuePerName) {
  testing::TempDir dir;
  std::unique_ptr<Engine> engine = Open(dir, "fusion");
  RecallOptions options;
  options.features = true;
  const ReadResult result = Recall(*engine, options);
  ASSERT_FALSE(result.diagnostics.feature_names.empty());
  EXPECT_EQ(result.diagnostics.feature_names.front(), "bm25_rr");
  ASSERT_FALSE(result.items.empty());
  for (const RecallItem& item : result.items) {
    ASSERT_EQ(item.features.size(), result.diagnostics.feature_names.size());
  }
  // The first item is the best-ranked candidate: rank 1, and its own best distance 0.
  const auto column = [&](std::string_view name) {
    const auto& names = result.diagnostics.feature_names;
    return static_cast<std::size_t>(std::find(names.begin(), names.end(), name) - names.begin());
  };
  EXPECT_DOUBLE_EQ(result.items.front().features[column("rank")], 1.0);
  EXPECT_DOUBLE_EQ(result.items.front().features[column("score_ratio")], 1.0);
}

TEST_F(LearnedRankerTest, TwoEnginesGiveTheSameOrder) {
  testing::TempDir first_dir;
  testing::TempDir second_dir;
  std::unique_ptr<Engine> first = Open(first_dir, "learned");
  std::unique_ptr<Engine> second = Open(second_dir, "learned");
  const ReadResult a = Recall(*first);
  const ReadResult b = Recall(*second);
  EXPECT_EQ(Ids(a), Ids(b));
  ASSERT_EQ(a.items.size(), b.items.size());
  for (std::size_t index = 0; index < a.items.size(); ++index) {
    EXPECT_EQ(a.items[index].score, b.items[index].score);
  }
}

}  // namespace
}  // namespace engram
