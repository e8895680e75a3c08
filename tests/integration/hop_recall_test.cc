// The follow-up recall (src/read/hop.h) through the public API: a count question, which the
// default planner rule gives a hop, has items found or lifted by the second search, each
// explained as "hop", and the plan says so; with the rule's hop at 0 no item is; the same store
// and question give the same items twice.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
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

class HopRecallTest : public ::testing::Test {
 protected:
  std::unique_ptr<Engine> Open(const testing::TempDir& dir, double count_hop) {
    EngineOptions options = testing::TestOptions(dir);
    options.config = Config{};
    options.config->embedder.kind = "hashing";
    options.config->planner.shapes["count"]["hop"] = count_hop;
    options.clock = FixedClock(*ParseTimestamp("2024-11-01T00:00:00Z"), 1000);
    std::unique_ptr<Engine> engine = testing::OpenOrDie(options);
    static const char* const kPlants[] = {"fern", "cactus", "orchid", "bonsai", "ivy", "palm"};
    static const char* const kOther[] = {"bike", "lamp", "kettle", "scarf", "novel", "chair"};
    std::vector<Turn> turns;
    for (int index = 0; index < 36; ++index) {
      const std::string session = "s" + std::to_string(index / 6);
      const std::string text = index % 6 == 0 ? std::string("I bought a ") + kPlants[index / 6] +
                                                    " plant for the balcony at the garden market."
                               : index % 6 == 1
                                   ? std::string("The ") + kPlants[(index / 6 + 1) % 6] +
                                         " from the garden market sits on the balcony now."
                                   : std::string("We talked about the ") +
                                         kOther[(index + index / 6) % 6] + " for a while.";
      // Six sessions of six turns, a day apart, a minute between turns.
      const std::string time = "2024-05-0" + std::to_string(1 + index / 6) + "T10:0" +
                               std::to_string(index % 6) + ":00Z";
      turns.push_back(testing::MakeTurn(index % 2 == 0 ? "Ana" : "Ben", text, session, time));
    }
    EXPECT_THAT(engine->Remember(scope_, turns), IsOk());
    EXPECT_THAT(engine->WaitForDerivation(), IsOk());
    return engine;
  }

  static ReadResult Recall(Engine& engine) {
    StatusOr<ReadResult> result = engine.Recall(scope_, {.text = "How many plants did I buy?"});
    EXPECT_THAT(result, IsOk());
    return result.ok() ? *result : ReadResult{};
  }

  static std::size_t Hopped(const ReadResult& result) {
    return std::count_if(result.items.begin(), result.items.end(), [](const RecallItem& item) {
      return std::any_of(item.adjustments.begin(), item.adjustments.end(),
                         [](const Adjustment& adjustment) { return adjustment.name == "hop"; });
    });
  }

  inline static const Scope scope_ = *Scope::Parse("user:ana");
};

TEST_F(HopRecallTest, ACountQuestionsItemsAreFoundOrLiftedByTheFollowUpSearch) {
  testing::TempDir dir;
  std::unique_ptr<Engine> engine = Open(dir, 0.3);
  const ReadResult first = Recall(*engine);
  EXPECT_THAT(first.diagnostics.plan, HasSubstr("rule=count"));
  EXPECT_THAT(first.diagnostics.plan, HasSubstr(" hop 0.3"));
  EXPECT_GT(Hopped(first), 0u);
  for (const RecallItem& item : first.items) {
    for (const Adjustment& adjustment : item.adjustments) {
      if (adjustment.name != "hop") continue;
      EXPECT_THAT(adjustment.detail, HasSubstr("found via a follow-up search from the candidates "
                                               "ranked 1,2,3"));
      EXPECT_GT(adjustment.bonus, 0);
    }
  }
  const ReadResult second = Recall(*engine);
  ASSERT_EQ(first.items.size(), second.items.size());
  for (std::size_t i = 0; i < first.items.size(); ++i) {
    EXPECT_EQ(first.items[i].id, second.items[i].id);
    EXPECT_EQ(first.items[i].score, second.items[i].score);
  }
}

TEST_F(HopRecallTest, AtWeightZeroNoItemIsHopped) {
  testing::TempDir dir;
  std::unique_ptr<Engine> engine = Open(dir, 0.0);
  const ReadResult result = Recall(*engine);
  EXPECT_THAT(result.diagnostics.plan, Not(HasSubstr("hop")));
  EXPECT_EQ(Hopped(result), 0u);
}

}  // namespace
}  // namespace engram
