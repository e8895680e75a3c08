// Word-vector soft matches through the engine ([recall] word_vector_match): a missing vectors
// file is a clear error at Open when the key is on (and nothing is needed when it is off), and
// with the installed vectors (scripts/setup) the fragment route finds a turn that shares no word
// with the question, only a related one.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

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

TEST(WordVectorRecallTest, MissingVectorsAreAClearErrorAtOpenWhenOn) {
  TempDir dir;
  TempDir empty_data;
  EngineOptions options = Lean(dir, 0.6);
  options.data_dir = empty_data.path();
  auto engine = Engine::Open(options);
  EXPECT_THAT(engine, StatusIs(StatusCode::kFailedPrecondition));
  EXPECT_THAT(engine.status().message(), HasSubstr("models/glove/glove-100d.bin"));
  EXPECT_THAT(engine.status().message(), HasSubstr("scripts/fetch-models"));
  // Off, the vectors are not needed.
  options = Lean(dir, 0);
  options.data_dir = empty_data.path();
  EXPECT_THAT(Engine::Open(options), IsOk());
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
