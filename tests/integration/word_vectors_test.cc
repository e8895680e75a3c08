// Word-vector soft matches through the engine ([recall] word_vector_match, 0.6 by default): a
// missing vectors file leaves recall without them and its diagnostics warn so, a damaged one is
// an error at recall, and with the installed vectors (scripts/setup) the fragment route finds a
// turn that shares no word with the question, only a related one, and nothing is warned.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "engram/engine.h"
#include "engram/testing/status_matchers.h"
#include "test_util.h"

namespace engram {
namespace {

using ::engram::testing::IsOk;
using ::engram::testing::StatusIs;
using ::testing::HasSubstr;
using testing::MakeTurn;
using testing::OpenOrDie;
using testing::S;
using testing::TempDir;
using testing::TestOptions;

// No embedder and no write-path analysis: only BM25 and the turn layout, no data files needed.
EngineOptions Lean(const TempDir& dir, double word_vector_match) {
  EngineOptions options = TestOptions(dir);
  Config config;
  config.embedder.kind = "none";
  config.write.facts = false;
  config.write.signals = false;
  config.write.entities = false;
  config.recall.word_vector_match = word_vector_match;
  options.config = config;
  return options;
}

TEST(WordVectorRecallTest, MissingVectorsLeaveRecallWithoutThemAndTheDiagnosticsWarn) {
  const std::vector<Turn> turns = {MakeTurn("Alice", "My dog Rex chewed the sofa again")};
  const RecallQuery question{.text = "Did her dog chew the sofa?"};
  std::vector<std::string> plans;
  std::vector<std::vector<std::string>> warnings;
  std::vector<std::vector<std::string>> rankings;
  for (const double threshold : {0.6, 0.0}) {
    TempDir dir;
    TempDir empty_data;
    EngineOptions options = Lean(dir, threshold);
    options.data_dir = empty_data.path();
    auto engine = Engine::Open(options);  // the vectors load on the first recall, not here
    ASSERT_THAT(engine, IsOk());
    ASSERT_THAT((*engine)->Remember(S("user:alice"), turns), IsOk());
    auto recalled = (*engine)->Recall(S("user:alice"), question, {});
    ASSERT_THAT(recalled, IsOk());
    plans.push_back(recalled->diagnostics.plan);
    warnings.push_back(recalled->diagnostics.warnings);
    std::vector<std::string> texts;
    for (const RecallItem& item : recalled->items) texts.push_back(item.text);
    rankings.push_back(texts);
  }
  // On without the vectors: one warning names the missing file and how to install it...
  ASSERT_EQ(warnings[0].size(), 1u);
  EXPECT_THAT(warnings[0][0], ::testing::StartsWith("word-vector matches off: "));
  EXPECT_THAT(warnings[0][0], HasSubstr("models/glove/glove-100d.bin"));
  EXPECT_THAT(warnings[0][0], HasSubstr("scripts/fetch-models"));
  // ...and recall finds what it finds with them off; off, nothing is warned. The plan is the
  // planner's decision only, the same either way.
  EXPECT_THAT(warnings[1], ::testing::IsEmpty());
  EXPECT_EQ(plans[0], plans[1]);
  EXPECT_THAT(plans[0], ::testing::Not(HasSubstr("word-vector")));
  EXPECT_EQ(rankings[0], rankings[1]);
  ASSERT_FALSE(rankings[0].empty());
}

TEST(WordVectorRecallTest, AContextsRecallWarnsToo) {
  TempDir dir;
  TempDir empty_data;
  EngineOptions options = Lean(dir, 0.6);
  options.data_dir = empty_data.path();
  auto engine = OpenOrDie(options);
  const std::vector<Turn> earlier = {MakeTurn("Alice", "My dog Rex chewed the sofa again")};
  ASSERT_THAT(engine->Remember(S("user:alice/run:r0"), earlier), IsOk());
  const std::vector<Turn> now = {MakeTurn("Alice", "Remind me what my dog did?", "s2")};
  ASSERT_THAT(engine->Remember(S("user:alice/run:r1"), now), IsOk());
  auto context = engine->Context(S("user:alice/run:r1"), {.text = "What did the dog chew?"}, {});
  ASSERT_THAT(context, IsOk());
  ASSERT_FALSE(context->recalled.items.empty());
  ASSERT_EQ(context->recalled.diagnostics.warnings.size(), 1u);
  EXPECT_THAT(context->recalled.diagnostics.warnings[0],
              ::testing::StartsWith("word-vector matches off: "));
}

TEST(WordVectorRecallTest, OnByDefault) {
  // docs/BENCHMARKS.md, word vectors bounded by document frequency: why 0.6 is the default.
  EXPECT_EQ(Config{}.recall.word_vector_match, 0.6);
  EXPECT_EQ(Config{}.recall.word_vector_weight, 0.3);
}

TEST(WordVectorRecallTest, DamagedVectorsAreAnErrorAtRecall) {
  TempDir dir;
  TempDir data;
  ASSERT_TRUE(std::filesystem::create_directories(data.path() + "/models/glove"));
  std::ofstream(data.path() + "/models/glove/glove-100d.bin") << "ENGRAMWV but not much else";
  EngineOptions options = Lean(dir, 0.6);
  options.data_dir = data.path();
  auto engine = Engine::Open(options);
  ASSERT_THAT(engine, IsOk());
  const std::vector<Turn> turns = {MakeTurn("Alice", "My dog Rex")};
  ASSERT_THAT((*engine)->Remember(S("user:alice"), turns), IsOk());
  auto recalled = (*engine)->Recall(S("user:alice"), {.text = "Which pets?"}, {});
  EXPECT_THAT(recalled, StatusIs(StatusCode::kCorruption));
  EXPECT_THAT(recalled.status().message(), HasSubstr("scripts/fetch-models"));
}

TEST(WordVectorRecallTest, FragmentRouteFindsARelatedWordOnlyWhenOn) {
  const std::vector<Turn> turns = {
      MakeTurn("Alice", "My dog Rex chewed the sofa again"),
      MakeTurn("Alice", "The weather was awful on Tuesday"),
      MakeTurn("Alice", "My tax return is due in April"),
  };
  const RecallQuery question{.text = "What pets does she have?"};
  const RecallOptions fragment_only{.routes = {"fragment"}};
  std::vector<std::string> first_items;
  for (const double threshold : {0.0, 0.6}) {
    TempDir dir;
    auto engine = OpenOrDie(Lean(dir, threshold));
    auto remembered = engine->Remember(S("user:alice"), turns);
    ASSERT_THAT(remembered, IsOk());
    auto recalled = engine->Recall(S("user:alice"), question, fragment_only);
    ASSERT_THAT(recalled, IsOk());
    // Installed (or not asked for), the vectors leave nothing to warn about.
    EXPECT_THAT(recalled->diagnostics.warnings, ::testing::IsEmpty());
    if (threshold == 0) {
      // No turn shares a word with the question.
      EXPECT_TRUE(recalled->items.empty());
    } else {
      ASSERT_FALSE(recalled->items.empty());
      EXPECT_EQ(recalled->items.front().id, remembered->ids[0]);
      EXPECT_THAT(recalled->items.front().text, HasSubstr("dog"));
    }
  }
}

}  // namespace
}  // namespace engram
