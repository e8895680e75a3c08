// The validation of the LLM loop's replies and its merge order (engine/llm_recall.h); the loop
// against a scripted server is tested in tests/integration/llm_recall_test.cc.
#include "engine/llm_recall.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace engram {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(ParseLlmCheckTest, ReadsTheFieldsOfAFencedObject) {
  StatusOr<LlmCheck> check = ParseLlmCheck(
      "```json\n{\"sufficient\": false, \"queries\": [\"Who is her mentor?\"], "
      "\"keywords\": [\"pottery\", \"Lisbon\"], \"reason\": \"ignored\"}\n```",
      3, 8);
  ASSERT_TRUE(check.ok()) << check.status().message();
  EXPECT_FALSE(check->sufficient);
  EXPECT_THAT(check->queries, ElementsAre("Who is her mentor?"));
  EXPECT_THAT(check->keywords, ElementsAre("pottery", "Lisbon"));
  StatusOr<LlmCheck> bare = ParseLlmCheck("{\"sufficient\": true}", 3, 8);
  ASSERT_TRUE(bare.ok());
  EXPECT_TRUE(bare->sufficient);
  EXPECT_TRUE(bare->queries.empty());
}

TEST(ParseLlmCheckTest, RefusesEveryOtherShape) {
  const std::string long_query(kMaxLlmQueryBytes + 1, 'a');
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"not json", "not JSON"},
      {"[true]", "not a JSON object"},
      {"{\"queries\": []}", "\"sufficient\" is missing"},
      {"{\"sufficient\": \"no\"}", "\"sufficient\" is missing or not true/false"},
      {"{\"sufficient\": false, \"queries\": \"a\"}", "\"queries\" is not an array"},
      {"{\"sufficient\": false, \"queries\": [1]}", "not a string"},
      {"{\"sufficient\": false, \"queries\": [\"  \"]}", "empty string"},
      {"{\"sufficient\": false, \"queries\": [\"" + long_query + "\"]}", "longer than 300"},
      {"{\"sufficient\": false, \"queries\": [\"a\", \"b\", \"c\", \"d\"]}",
       "\"queries\" has 4 entries; at most 3"},
      {"{\"sufficient\": false, \"keywords\": [\"a\", \"b\"]}", "\"keywords\" has 2 entries"},
  };
  for (const auto& [reply, error] : cases) {
    StatusOr<LlmCheck> check = ParseLlmCheck(reply, 3, 1);
    ASSERT_FALSE(check.ok()) << reply;
    EXPECT_EQ(check.status().code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(check.status().message(), HasSubstr(error)) << reply;
  }
}

TEST(ParseLlmRerankTest, PutsTheNamedIdsFirstAndKeepsTheOthersInOrder) {
  const std::vector<std::string> candidates = {"a", "b", "c", "d"};
  StatusOr<std::vector<std::string>> order =
      ParseLlmRerank("{\"order\": [\"c\", \"a\"]}", candidates);
  ASSERT_TRUE(order.ok()) << order.status().message();
  EXPECT_THAT(*order, ElementsAre("c", "a", "b", "d"));
}

TEST(ParseLlmRerankTest, RefusesUnknownAndRepeatedIds) {
  const std::vector<std::string> candidates = {"a", "b"};
  EXPECT_THAT(ParseLlmRerank("{\"order\": [\"a\", \"z\"]}", candidates).status().message(),
              HasSubstr("'z', which is not one of the candidates"));
  EXPECT_THAT(ParseLlmRerank("{\"order\": [\"a\", \"a\"]}", candidates).status().message(),
              HasSubstr("'a' twice"));
  EXPECT_THAT(ParseLlmRerank("{\"order\": []}", candidates).status().message(), HasSubstr("empty"));
  EXPECT_THAT(ParseLlmRerank("{\"order\": [1]}", candidates).status().message(),
              HasSubstr("not a string"));
  EXPECT_FALSE(ParseLlmRerank("order: a", candidates).ok());
}

RecallItem Item(std::string id) {
  RecallItem item;
  item.id = std::move(id);
  return item;
}

TEST(InterleaveByRankTest, TakesEachRankFromEveryListAndExplainsTheNewItems) {
  const std::vector<std::vector<RecallItem>> lists = {
      {Item("a"), Item("b"), Item("c")}, {Item("x"), Item("a")}, {Item("y")}};
  const std::vector<RecallItem> merged =
      InterleaveByRank(lists, {"", "found via: LLM sub-question 'q'", "found via: keywords"});
  std::vector<std::string> ids;
  for (const RecallItem& item : merged) ids.push_back(item.id);
  EXPECT_THAT(ids, ElementsAre("a", "x", "y", "b", "c"));
  EXPECT_TRUE(merged[0].adjustments.empty());
  ASSERT_EQ(merged[1].adjustments.size(), 1u);
  EXPECT_EQ(merged[1].adjustments[0].name, "llm");
  EXPECT_EQ(merged[1].adjustments[0].detail, "found via: LLM sub-question 'q'");
  EXPECT_EQ(merged[1].adjustments[0].factor, 1.0);
  EXPECT_EQ(merged[2].adjustments[0].detail, "found via: keywords");
}

TEST(LlmRecallCreateTest, OffGivesNoLoopAndOnNeedsAModel) {
  RecallConfig config;
  StatusOr<std::unique_ptr<LlmRecall>> off = LlmRecall::Create(config);
  ASSERT_TRUE(off.ok());
  EXPECT_EQ(*off, nullptr);
  config.llm_loop = true;
  EXPECT_THAT(LlmRecall::Create(config).status().message(),
              HasSubstr("[recall] llm_model is required"));
  config.llm_model = "m";
  StatusOr<std::unique_ptr<LlmRecall>> on = LlmRecall::Create(config);
  ASSERT_TRUE(on.ok());
  EXPECT_NE(*on, nullptr);
}

}  // namespace
}  // namespace engram
