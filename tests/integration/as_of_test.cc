// As-of recall through the public API (RecallOptions::valid_at / known_at, ListOptions too):
// "I live in Berlin" said and ingested in March, "I moved to Munich" said and ingested in June,
// each by an engine whose clock stands at that time. What was true in April is Berlin, what is
// true now is Munich, and what engram knew in May (before the Munich turn arrived) is Berlin.
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

class AsOfTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Remember("2024-03-10T10:00:05Z", "I live in Berlin.", "s1", "2024-03-10T10:00:00Z");
    Remember("2024-06-15T10:00:05Z", "I moved to Munich.", "s2", "2024-06-15T10:00:00Z");
    engine_ = Open("2024-09-01T00:00:00Z");
  }

  std::unique_ptr<Engine> Open(const char* now) {
    EngineOptions options = testing::TestOptions(dir_);
    options.config = Config{};
    options.config->embedder.kind = "none";
    options.clock = FixedClock(T(now), 1000);
    return testing::OpenOrDie(options);
  }

  // One turn stored by an engine whose clock reads `ingested`.
  void Remember(const char* ingested, const char* text, const char* session, const char* said) {
    std::unique_ptr<Engine> engine = Open(ingested);
    const std::vector<Turn> turns = {testing::MakeTurn("Mia", text, session, said)};
    ASSERT_THAT(engine->Remember(scope_, turns), IsOk());
  }

  ReadResult Recall(RecallOptions options, const char* question = "Where do I live?") {
    StatusOr<ReadResult> result = engine_->Recall(scope_, {.text = question}, options);
    EXPECT_THAT(result, IsOk());
    return result.ok() ? *result : ReadResult{};
  }

  // The texts of the fact items, in rank order.
  static std::vector<std::string> FactTexts(const ReadResult& result) {
    std::vector<std::string> texts;
    for (const RecallItem& item : result.items) {
      if (item.kind == NodeKind::kFact) texts.push_back(item.text);
    }
    return texts;
  }

  static std::string AllText(const ReadResult& result) {
    std::string all;
    for (const RecallItem& item : result.items) all += item.text + "\n";
    return all;
  }

  testing::TempDir dir_;
  const Scope scope_ = testing::S("user:mia");
  std::unique_ptr<Engine> engine_;
};

TEST_F(AsOfTest, ValidInAprilAnswersBerlin) {
  const ReadResult result = Recall({.valid_at = T("2024-04-01T00:00:00Z")});
  ASSERT_FALSE(result.items.empty());
  EXPECT_THAT(result.items.front().text, HasSubstr("Berlin"));
  EXPECT_THAT(AllText(result), Not(HasSubstr("Munich")));
  // (The Berlin fact, superseded today, is a candidate too; packing skips it as its turn is
  // packed. ListsFactsAsOfATime shows it.) Asked about Munich, its turn is a candidate that
  // valid_at hides, with the reason.
  const ReadResult munich = Recall({.valid_at = T("2024-04-01T00:00:00Z")}, "Munich");
  EXPECT_THAT(AllText(munich), Not(HasSubstr("Munich")));
  EXPECT_EQ(munich.diagnostics.filtered_by.count("valid_at"), 1u);
  bool munich_reason = false;
  for (const FilteredItem& filtered : munich.diagnostics.filtered) {
    if (filtered.filter == "valid_at") {
      EXPECT_THAT(filtered.reason, HasSubstr("after valid_at 2024-04-01T00:00:00Z"));
      munich_reason = true;
    }
  }
  EXPECT_TRUE(munich_reason);
}

TEST_F(AsOfTest, ValidNowAnswersMunich) {
  // The Munich claim comes first (its turn: a fact and its turn count once), the Berlin turn says
  // what superseded it (read/current_state.h), and no fact says Berlin.
  const ReadResult now = Recall({});
  ASSERT_FALSE(now.items.empty());
  EXPECT_THAT(now.items.front().text, HasSubstr("Munich"));
  for (const std::string& fact : FactTexts(now)) EXPECT_THAT(fact, Not(HasSubstr("Berlin")));
  EXPECT_THAT(now.context, HasSubstr("(superseded 2024-06-15: I moved to Munich.)"));

  // Asking explicitly for a time after the move gives the same: Berlin's had ended.
  const ReadResult august = Recall({.valid_at = T("2024-08-01T00:00:00Z")});
  EXPECT_EQ(AllText(august), AllText(now));
  EXPECT_EQ(august.context, now.context);
}

TEST_F(AsOfTest, KnownInMayAnswersBerlinAsTheActiveFact) {
  const ReadResult result = Recall({.known_at = T("2024-05-01T00:00:00Z")});
  ASSERT_FALSE(result.items.empty());
  EXPECT_THAT(result.items.front().text, HasSubstr("Berlin"));
  EXPECT_THAT(AllText(result), Not(HasSubstr("Munich")));
  for (const RecallItem& item : result.items) {
    EXPECT_EQ(item.status, NodeStatus::kActive) << item.text;  // its supersession came later
  }
  const ReadResult munich = Recall({.known_at = T("2024-05-01T00:00:00Z")}, "Munich");
  EXPECT_THAT(AllText(munich), Not(HasSubstr("Munich")));
  EXPECT_EQ(munich.diagnostics.filtered_by.count("known_at"), 1u);
  for (const FilteredItem& filtered : munich.diagnostics.filtered) {
    EXPECT_EQ(filtered.filter, "known_at");
    EXPECT_THAT(filtered.reason, HasSubstr("ingested 2024-06-15T10:00:"));
  }

  // Known in July, the move had arrived: Munich.
  const ReadResult july = Recall({.known_at = T("2024-07-01T00:00:00Z")});
  ASSERT_FALSE(FactTexts(july).empty());
  EXPECT_THAT(FactTexts(july).front(), HasSubstr("Munich"));
}

TEST_F(AsOfTest, ListsFactsAsOfATime) {
  ListOptions options;
  options.kind = NodeKind::kFact;
  options.limit = 0;
  options.include_retired = false;
  options.valid_at = T("2024-04-01T00:00:00Z");
  StatusOr<std::vector<Memory>> april = engine_->List(scope_, options);
  ASSERT_THAT(april, IsOk());
  ASSERT_EQ(april->size(), 1u);
  EXPECT_THAT((*april)[0].text, HasSubstr("Berlin"));
  EXPECT_EQ((*april)[0].status, NodeStatus::kSuperseded);

  options.valid_at.reset();
  options.known_at = T("2024-05-01T00:00:00Z");
  StatusOr<std::vector<Memory>> may = engine_->List(scope_, options);
  ASSERT_THAT(may, IsOk());
  ASSERT_EQ(may->size(), 1u);
  EXPECT_THAT((*may)[0].text, HasSubstr("Berlin"));
  EXPECT_EQ((*may)[0].status, NodeStatus::kActive);
  EXPECT_FALSE((*may)[0].valid_to.has_value());
}

TEST_F(AsOfTest, AMemoryRetiredAfterKnownAtWasStillActiveThen) {
  ListOptions turns;
  turns.limit = 0;
  StatusOr<std::vector<Memory>> stored = engine_->List(scope_, turns);
  ASSERT_THAT(stored, IsOk());
  ASSERT_EQ(stored->size(), 2u);
  ASSERT_THAT(engine_->Retire((*stored)[0].id, "wrong city"), IsOk());  // at 2024-09-01

  const ReadResult today = Recall({.routes = {"bm25"}});
  EXPECT_THAT(AllText(today), Not(HasSubstr("I live in Berlin.")));
  const ReadResult august = Recall({.routes = {"bm25"}, .known_at = T("2024-08-01T00:00:00Z")});
  ASSERT_FALSE(august.items.empty());
  EXPECT_EQ(august.items.front().text, "I live in Berlin.");
  EXPECT_EQ(august.items.front().status, NodeStatus::kActive);
}

// A fact can hold before the turn that tells it: said in May, "I moved to Berlin last March" is
// what was true in April.
TEST(AsOfFactTest, AFactToldLaterIsValidFromTheTimeItNames) {
  testing::TempDir dir;
  EngineOptions options = testing::TestOptions(dir);
  options.config = Config{};
  options.config->embedder.kind = "none";
  std::unique_ptr<Engine> engine = testing::OpenOrDie(options);
  const Scope scope = testing::S("user:mia");
  const std::vector<Turn> turns = {testing::MakeTurn("Mia", "I moved to Berlin last March.", "s1",
                                                     "2024-05-10T12:00:00Z")};
  ASSERT_THAT(engine->Remember(scope, turns), IsOk());
  RecallOptions april;
  april.valid_at = T("2024-04-01T00:00:00Z");
  StatusOr<ReadResult> result = engine->Recall(scope, {.text = "Where do I live?"}, april);
  ASSERT_THAT(result, IsOk());
  std::vector<std::string> facts;
  for (const RecallItem& item : result->items) {
    if (item.kind == NodeKind::kFact) facts.push_back(item.text);
  }
  ASSERT_EQ(facts.size(), 1u) << result->diagnostics.filtered.size();
  EXPECT_THAT(facts[0], HasSubstr("Berlin"));
  // The turn itself had not been said in April.
  for (const RecallItem& item : result->items) EXPECT_NE(item.kind, NodeKind::kTurn);
}

}  // namespace
}  // namespace engram
