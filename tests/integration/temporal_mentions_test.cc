// Dates inside turns through the public API (issue 40, item 5): with [recall] temporal_mentions
// on, the temporal route alone finds a turn said on 2024-09-01 that says "we fly out on 17
// October" for "What is planned for 17 October 2024?", explained by the date it names, and
// still finds a turn said on 17 October that names another date; off, only the latter. Two
// engines over the same turns give the same items in the same order.
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

Timestamp T(const char* iso) { return *ParseTimestamp(iso); }

class TemporalMentionsTest : public ::testing::Test {
 protected:
  std::unique_ptr<Engine> Open(const testing::TempDir& dir, bool mentions) {
    EngineOptions options = testing::TestOptions(dir);
    options.config = Config{};
    options.config->embedder.kind = "none";
    options.config->recall.temporal_mentions = mentions;
    options.clock = FixedClock(T("2024-11-01T00:00:00Z"), 1000);
    std::unique_ptr<Engine> engine = testing::OpenOrDie(options);
    const std::vector<Turn> turns = {
        testing::MakeTurn("Ana", "Big trip ahead: we fly out on 17 October, so excited!", "s1",
                          "2024-09-01T10:00:00Z"),
        testing::MakeTurn("Ben", "The garden looks lovely this month.", "s1",
                          "2024-09-01T10:05:00Z"),
        testing::MakeTurn("Ana", "At the airport now; the dentist is on 3 December.", "s2",
                          "2024-10-17T08:00:00Z"),
        testing::MakeTurn("Ben", "I painted the fence on 17 November.", "s3",
                          "2024-11-20T09:00:00Z")};
    EXPECT_THAT(engine->Remember(scope_, turns), IsOk());
    return engine;
  }

  static ReadResult Recall(Engine& engine, const std::string& question) {
    RecallOptions options;
    options.routes = {"temporal"};
    StatusOr<ReadResult> result = engine.Recall(scope_, {.text = question}, options);
    EXPECT_THAT(result, IsOk());
    return result.ok() ? *result : ReadResult{};
  }

  static std::vector<std::string> Texts(const ReadResult& result) {
    std::vector<std::string> texts;
    for (const RecallItem& item : result.items) {
      if (item.kind == NodeKind::kTurn) texts.push_back(item.text);
    }
    return texts;
  }

  static const RecallItem* Find(const ReadResult& result, std::string_view word) {
    for (const RecallItem& item : result.items) {
      if (item.kind == NodeKind::kTurn && item.text.find(word) != std::string::npos) return &item;
    }
    return nullptr;
  }

  static std::string TemporalExplanation(const RecallItem& item) {
    for (const RouteScore& route : item.routes) {
      if (route.route == "temporal") return route.explanation;
    }
    return "";
  }

  static inline const Scope scope_ = testing::S("user:ana");
};

TEST_F(TemporalMentionsTest, ATurnIsFoundByTheDateItNames) {
  testing::TempDir dir;
  std::unique_ptr<Engine> engine = Open(dir, /*mentions=*/true);
  const ReadResult result = Recall(*engine, "What is planned for 17 October 2024?");
  const RecallItem* fly = Find(result, "fly out");
  ASSERT_NE(fly, nullptr);
  EXPECT_THAT(TemporalExplanation(*fly), HasSubstr("mentions 2024-10-17 ('17 October')"));
  // Said on 17 October, naming another date: found by its event time, as before.
  const RecallItem* airport = Find(result, "airport");
  ASSERT_NE(airport, nullptr);
  EXPECT_THAT(TemporalExplanation(*airport), HasSubstr("event time 2024-10-17"));
  // Neither said on nor naming 17 October.
  EXPECT_EQ(Find(result, "garden"), nullptr);
  EXPECT_EQ(Find(result, "fence"), nullptr);
}

TEST_F(TemporalMentionsTest, OffTheRouteFindsTurnsByWhenTheyWereSaidOnly) {
  testing::TempDir dir;
  std::unique_ptr<Engine> engine = Open(dir, /*mentions=*/false);
  const ReadResult result = Recall(*engine, "What is planned for 17 October 2024?");
  EXPECT_EQ(Find(result, "fly out"), nullptr);
  EXPECT_NE(Find(result, "airport"), nullptr);
}

TEST_F(TemporalMentionsTest, TwoEnginesGiveTheSameItemsInTheSameOrder) {
  testing::TempDir first_dir;
  testing::TempDir second_dir;
  std::unique_ptr<Engine> first = Open(first_dir, /*mentions=*/true);
  std::unique_ptr<Engine> second = Open(second_dir, /*mentions=*/true);
  for (const char* question :
       {"What is planned for 17 October 2024?", "What happened in November 2024?"}) {
    const ReadResult a = Recall(*first, question);
    const ReadResult b = Recall(*second, question);
    EXPECT_EQ(Texts(a), Texts(b)) << question;
    ASSERT_EQ(a.items.size(), b.items.size());
    for (std::size_t i = 0; i < a.items.size(); ++i) {
      EXPECT_EQ(a.items[i].score, b.items[i].score) << question;
    }
  }
}

}  // namespace
}  // namespace engram
