// Current state through the public API (read/current_state.h): Iris says "I live in Berlin" in
// March and "I moved to Munich, I live in Munich now" in June. Asked today where she lives, the
// Munich turn comes first and the Berlin turn carries the claim that superseded it (also in the
// context); asked as of April, Berlin comes first and nothing speaks of Munich; asked about the
// past, Berlin is marked but not demoted; asked with words only the Berlin turn holds, the Munich
// turn joins as its successor. Two claims about the same month contradict: each turn carries the
// other claim. And whether a recall's context holds what was asked (read/sufficiency.h): it
// does for where Iris lives; it does not for her violin lessons or for Oslo, and the strict
// policy's instructions say so.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engram/engine.h"
#include "engram/testing/status_matchers.h"
#include "test_util.h"

namespace engram {
namespace {

using ::engram::testing::IsOk;
using ::testing::HasSubstr;
using ::testing::Not;

Timestamp T(const char* iso) { return *ParseTimestamp(iso); }

class CurrentStateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    engine_ = Open();
    const std::vector<Turn> turns = {
        testing::MakeTurn("Iris", "I live in Berlin, I moved here in March.", "s1",
                          "2024-03-10T10:00:00Z"),
        testing::MakeTurn("Iris", "Big news: I moved to Munich, I live in Munich now.", "s2",
                          "2024-06-15T10:00:00Z")};
    ASSERT_THAT(engine_->Remember(scope_, turns), IsOk());
  }

  std::unique_ptr<Engine> Open() {
    EngineOptions options = testing::TestOptions(dir_);
    options.config = Config{};
    options.config->embedder.kind = "none";
    options.clock = FixedClock(T("2024-09-01T00:00:00Z"), 1000);
    return testing::OpenOrDie(options);
  }

  ReadResult Recall(const std::string& question, RecallOptions options = {}) {
    StatusOr<ReadResult> result = engine_->Recall(scope_, {.text = question}, options);
    EXPECT_THAT(result, IsOk());
    return result.ok() ? *result : ReadResult{};
  }

  static const RecallItem* Find(const ReadResult& result, std::string_view word) {
    for (const RecallItem& item : result.items) {
      if (item.kind == NodeKind::kTurn && item.text.find(word) != std::string::npos) return &item;
    }
    return nullptr;
  }

  static bool Adjusted(const RecallItem& item, std::string_view name) {
    for (const Adjustment& adjustment : item.adjustments) {
      if (adjustment.name == name) return true;
    }
    return false;
  }

  testing::TempDir dir_;
  const Scope scope_ = testing::S("user:iris");
  std::unique_ptr<Engine> engine_;
};

TEST_F(CurrentStateTest, TheCurrentClaimComesFirstAndTheStaleTurnSaysWhatReplacedIt) {
  const ReadResult result = Recall("Where does Iris live?");
  ASSERT_GE(result.items.size(), 2u);
  EXPECT_THAT(result.items.front().text, HasSubstr("Munich"));
  const RecallItem* berlin = Find(result, "Berlin");
  ASSERT_NE(berlin, nullptr);
  ASSERT_TRUE(berlin->superseded_by.has_value());
  EXPECT_THAT(berlin->superseded_by->statement, HasSubstr("Munich"));
  EXPECT_EQ(berlin->superseded_by->text, "Big news: I moved to Munich, I live in Munich now.");
  EXPECT_EQ(berlin->superseded_by->time, T("2024-06-15T10:00:00Z"));
  EXPECT_THAT(berlin->superseded_by->claim, HasSubstr("Berlin"));
  ASSERT_EQ(berlin->superseded_by->evidence.size(), 1u);
  EXPECT_EQ(berlin->superseded_by->evidence[0], result.items.front().id);
  EXPECT_TRUE(Adjusted(*berlin, "superseded"));
  EXPECT_FALSE(result.items.front().superseded_by.has_value());
  EXPECT_THAT(result.context,
              HasSubstr("(superseded 2024-06-15: Big news: I moved to Munich, I live in Munich "
                        "now.)"));
  EXPECT_EQ(result.diagnostics.superseded, 1u);
}

TEST_F(CurrentStateTest, AsOfAprilBerlinIsCurrentAndNothingSpeaksOfMunich) {
  const ReadResult result = Recall("Where does Iris live?", {.valid_at = T("2024-04-01T00:00:00Z")});
  ASSERT_FALSE(result.items.empty());
  EXPECT_THAT(result.items.front().text, HasSubstr("Berlin"));
  for (const RecallItem& item : result.items) {
    EXPECT_THAT(item.text, Not(HasSubstr("Munich")));
    EXPECT_FALSE(item.superseded_by.has_value()) << item.text;
  }
  EXPECT_THAT(result.context, Not(HasSubstr("Munich")));
  EXPECT_THAT(result.context, Not(HasSubstr("superseded")));
}

TEST_F(CurrentStateTest, AQuestionAboutThePastMarksTheOldClaimWithoutDemotingIt) {
  const ReadResult result = Recall("Where did Iris live in March?");
  const RecallItem* berlin = Find(result, "Berlin");
  ASSERT_NE(berlin, nullptr);
  EXPECT_TRUE(berlin->superseded_by.has_value());
  EXPECT_FALSE(Adjusted(*berlin, "superseded"));
}

TEST_F(CurrentStateTest, TheSuccessorJoinsWhenNoRouteProposedIt) {
  // Only the Berlin turn holds "Berlin"; without an embedder no route proposes the Munich turn.
  const ReadResult result = Recall("Berlin?", {.routes = {"bm25"}});
  const RecallItem* munich = Find(result, "Munich");
  ASSERT_NE(munich, nullptr);
  EXPECT_TRUE(Adjusted(*munich, "successor"));
  EXPECT_TRUE(munich->routes.empty());
  EXPECT_EQ(result.items.front().id, munich->id);
  EXPECT_EQ(result.diagnostics.successors_added, 1u);
}

TEST_F(CurrentStateTest, ContradictingClaimsCarryEachOther) {
  const Scope scope = testing::S("user:otto");
  const std::vector<Turn> turns = {
      testing::MakeTurn("Otto", "I moved to Berlin in March.", "s1", "2024-05-10T12:00:00Z"),
      testing::MakeTurn("Otto", "I moved to Hamburg in March.", "s2", "2024-05-11T12:00:00Z")};
  ASSERT_THAT(engine_->Remember(scope, turns), IsOk());
  StatusOr<ReadResult> result = engine_->Recall(scope, {.text = "Where did Otto move?"}, {});
  ASSERT_THAT(result, IsOk());
  const RecallItem* berlin = Find(*result, "Berlin");
  const RecallItem* hamburg = Find(*result, "Hamburg");
  ASSERT_NE(berlin, nullptr);
  ASSERT_NE(hamburg, nullptr);
  ASSERT_EQ(berlin->conflicts.size(), 1u);
  EXPECT_EQ(berlin->conflicts[0].text, "I moved to Hamburg in March.");
  ASSERT_EQ(hamburg->conflicts.size(), 1u);
  EXPECT_EQ(hamburg->conflicts[0].text, "I moved to Berlin in March.");
  EXPECT_FALSE(berlin->superseded_by.has_value());
  EXPECT_THAT(result->context, HasSubstr("(contradicted 2024-03-01: I moved to Hamburg in March.)"));
  EXPECT_EQ(result->diagnostics.conflicted, 2u);
}

TEST_F(CurrentStateTest, ARecallSaysWhetherItsContextHoldsWhatWasAsked) {
  const ReadResult held = Recall("Where does Iris live?");
  EXPECT_EQ(held.sufficiency.verdict, "sufficient") << ::testing::PrintToString(held.sufficiency.reasons);

  const ReadResult lessons =
      Recall("How long has Iris been taking violin lessons?", {.policy = AnswerPolicy::kStrict});
  EXPECT_EQ(lessons.sufficiency.verdict, "insufficient");
  ASSERT_FALSE(lessons.sufficiency.reasons.empty());
  EXPECT_THAT(lessons.sufficiency.reasons[0], HasSubstr("violin"));
  EXPECT_THAT(lessons.answer_instructions,
              HasSubstr("The memory's own check found the context insufficient ("));

  const ReadResult oslo = Recall("Did Iris ever live in Oslo?");
  EXPECT_EQ(oslo.sufficiency.verdict, "insufficient");
  EXPECT_THAT(oslo.sufficiency.reasons, ::testing::Contains("no packed item mentions Oslo"));
  // The balanced policy's instructions stay as they are; the verdict is in the result.
  EXPECT_THAT(oslo.answer_instructions, Not(HasSubstr("own check")));
}

}  // namespace
}  // namespace engram
