// mem0's filter language and identifiers: the shared cases of tests/mem0/filter_cases.json
// (which the Python facade runs too) against Mem0Filter directly, the identifiers of stored
// scope paths, and filters through the search route on a real engine (operators, logic,
// refusals, threshold and top_k).
#include "server/mem0_filter.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "server/mem0_test_fixture.h"

namespace engram::server {
namespace {

using engram::testing::IsOk;
using engram::testing::StatusIs;
using io::Json;
using mem0_testing::CaseMemory;
using mem0_testing::DetailLoc;
using mem0_testing::DetailText;
using mem0_testing::Mem0ApiTest;
using mem0_testing::SharedCases;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;
using ::testing::StartsWith;
using ::testing::UnorderedElementsAre;
using ::testing::UnorderedElementsAreArray;

TEST(Mem0FilterCasesTest, EveryFilterPassesTheSharedCasesMemoriesOrIsRefused) {
  const nlohmann::json shared = SharedCases("filter_cases.json");
  ASSERT_TRUE(shared.contains("cases"));
  ASSERT_GT(shared["cases"].size(), 50u);
  for (const nlohmann::json& test_case : shared["cases"]) {
    SCOPED_TRACE(test_case["name"].get<std::string>() + ": " + test_case["filters"].dump());
    StatusOr<Mem0Filter> filter = Mem0Filter::Compile(test_case["filters"]);
    if (test_case.contains("error")) {
      EXPECT_THAT(filter, StatusIs(StatusCode::kInvalidArgument,
                                   StartsWith(test_case["error"].get<std::string>())));
      continue;
    }
    ASSERT_THAT(filter, IsOk());
    std::vector<std::string> matched;
    for (const auto& [name, given] : shared["memories"].items()) {
      if (filter->Matches(Mem0Filter::FieldsOf(CaseMemory(given)))) matched.push_back(name);
    }
    EXPECT_THAT(matched,
                UnorderedElementsAreArray(test_case["matches"].get<std::vector<std::string>>()));
  }
}

TEST(Mem0ScopeIdentifiersTest, OnlyLeadingUserAgentRunSegmentsInThatOrder) {
  const Mem0Identifiers all = Mem0ScopeIdentifiers("user:alice/agent:bot/run:7/app:x");
  EXPECT_EQ(all.user_id, "alice");
  EXPECT_EQ(all.agent_id, "bot");
  EXPECT_EQ(all.run_id, "7");
  const Mem0Identifiers skipped = Mem0ScopeIdentifiers("agent:bot/run:7");
  EXPECT_FALSE(skipped.user_id.has_value());
  EXPECT_EQ(skipped.agent_id, "bot");
  EXPECT_TRUE(Mem0ScopeIdentifiers("app:crm/user:alice").empty());
  // Out of order: the run ends them, the agent after it is not mem0's.
  const Mem0Identifiers out_of_order = Mem0ScopeIdentifiers("user:alice/run:7/agent:bot");
  EXPECT_EQ(out_of_order.run_id, "7");
  EXPECT_FALSE(out_of_order.agent_id.has_value());
}

// One request's messages are stored at one instant; GET /memories lists them as they were

class Mem0FilterTest : public Mem0ApiTest {
 protected:
  void SetUp() override {
    Mem0ApiTest::SetUp();
    AddOne("alice", "Note one: ramen for lunch.",
           {{"category", "food"}, {"priority", 1}, {"tags", {"a", "b"}}});
    AddOne("alice", "Note two: train to Porto.", {{"category", "travel"}, {"priority", 5}});
    AddOne("alice", "Note three: the Food court closes early.",
           {{"category", "Food court"}, {"priority", 3}});
  }

  std::set<std::string> Filtered(const Json& filters) {
    return SearchTexts({{"query", "note"}, {"user_id", "alice"}, {"filters", filters}});
  }

  ApiResponse FilterCall(const Json& filters) {
    return Search({{"query", "note"}, {"user_id", "alice"}, {"filters", filters}});
  }

  const std::string one_ = "Note one: ramen for lunch.";
  const std::string two_ = "Note two: train to Porto.";
  const std::string three_ = "Note three: the Food court closes early.";
};

TEST_F(Mem0FilterTest, WithoutFiltersTheQueryFindsAllThree) {
  EXPECT_THAT(SearchTexts({{"query", "note"}, {"user_id", "alice"}}),
              UnorderedElementsAre(one_, two_, three_));
}

TEST_F(Mem0FilterTest, ComparisonOperators) {
  EXPECT_THAT(Filtered({{"category", "food"}}), ElementsAre(one_));
  EXPECT_THAT(Filtered({{"category", {{"eq", "food"}}}}), ElementsAre(one_));
  EXPECT_THAT(Filtered({{"category", {{"ne", "food"}}}}), UnorderedElementsAre(two_, three_));
  EXPECT_THAT(Filtered({{"priority", {{"gt", 1}}}}), UnorderedElementsAre(two_, three_));
  EXPECT_THAT(Filtered({{"priority", {{"gte", 3}}}}), UnorderedElementsAre(two_, three_));
  EXPECT_THAT(Filtered({{"priority", {{"lt", 3}}}}), ElementsAre(one_));
  EXPECT_THAT(Filtered({{"priority", {{"lte", 3}}}}), UnorderedElementsAre(one_, three_));
  EXPECT_THAT(Filtered({{"priority", {{"gte", 2}, {"lte", 4}}}}), ElementsAre(three_));
  EXPECT_THAT(Filtered({{"priority", {{"gt", 2.5}}}}), UnorderedElementsAre(two_, three_));
}

TEST_F(Mem0FilterTest, ListAndTextOperators) {
  EXPECT_THAT(Filtered({{"category", {{"in", {"food", "travel"}}}}}),
              UnorderedElementsAre(one_, two_));
  EXPECT_THAT(Filtered({{"category", {{"nin", {"food", "travel"}}}}}), ElementsAre(three_));
  EXPECT_THAT(Filtered({{"category", {{"contains", "Food"}}}}), ElementsAre(three_));
  EXPECT_THAT(Filtered({{"category", {{"icontains", "FOOD"}}}}),
              UnorderedElementsAre(one_, three_));
  EXPECT_THAT(Filtered({{"tags", {{"contains", "a"}}}}), ElementsAre(one_));
  EXPECT_THAT(Filtered({{"tags", "*"}}), ElementsAre(one_));
  EXPECT_THAT(Filtered({{"memory", {{"icontains", "porto"}}}}), ElementsAre(two_));
}

TEST_F(Mem0FilterTest, LogicalOperatorsAndFields) {
  EXPECT_THAT(
      Filtered({{"AND", {{{"priority", {{"gt", 1}}}}, {{"category", {{"ne", "travel"}}}}}}}),
      ElementsAre(three_));
  EXPECT_THAT(Filtered({{"OR", {{{"category", "food"}}, {{"category", "travel"}}}}}),
              UnorderedElementsAre(one_, two_));
  EXPECT_THAT(Filtered({{"NOT", {{{"category", "food"}}}}}), UnorderedElementsAre(two_, three_));
  EXPECT_THAT(Filtered({{"user_id", "alice"}, {"role", "user"}}),
              UnorderedElementsAre(one_, two_, three_));
  EXPECT_THAT(Filtered({{"user_id", "bob"}}), IsEmpty());
  // Times compare as instants, whatever their spelling.
  EXPECT_THAT(Filtered({{"created_at", {{"gte", "2024-01-01T00:00:00Z"}}}}),
              UnorderedElementsAre(one_, two_, three_));
  EXPECT_THAT(Filtered({{"created_at", {{"lt", "2024-01-01"}}}}), IsEmpty());
}

TEST_F(Mem0FilterTest, AnUnsupportedOperatorIsRefusedByName) {
  ApiResponse regex = FilterCall({{"category", {{"regex", "f.*"}}}});
  EXPECT_EQ(regex.status, 400);
  EXPECT_THAT(DetailText(regex), HasSubstr("\"regex\""));
  EXPECT_THAT(DetailText(regex), HasSubstr("filters.category"));
  ApiResponse dollar = FilterCall({{"$or", {{{"category", "food"}}}}});
  EXPECT_EQ(dollar.status, 400);
  EXPECT_THAT(DetailText(dollar), HasSubstr("\"$or\""));
  ApiResponse in_scalar = FilterCall({{"category", {{"in", "food"}}}});
  EXPECT_EQ(in_scalar.status, 400);
  EXPECT_THAT(DetailText(in_scalar), HasSubstr("in / nin need an array"));
  ApiResponse empty_or = FilterCall({{"OR", Json::array()}});
  EXPECT_EQ(empty_or.status, 400);
  EXPECT_THAT(DetailText(empty_or), HasSubstr("filters.OR"));
  ApiResponse bad_time = FilterCall({{"created_at", {{"gt", "yesterday-ish"}}}});
  EXPECT_EQ(bad_time.status, 400);
  EXPECT_THAT(DetailText(bad_time), HasSubstr("filters.created_at"));
  ApiResponse no_op = FilterCall({{"category", Json::object()}});
  EXPECT_EQ(no_op.status, 400);
  EXPECT_THAT(DetailText(no_op), HasSubstr("has no operator"));
}

TEST_F(Mem0FilterTest, ThresholdDropsLowerScoresAndTopKCuts) {
  ApiResponse all = Search({{"query", "note"}, {"user_id", "alice"}});
  ASSERT_EQ(all.status, 200);
  ASSERT_THAT(all.body["results"], SizeIs(3));
  const double top = all.body["results"][0]["score"];
  const double last = all.body["results"][2]["score"];
  ASSERT_GT(top, last);

  ApiResponse at_top = Search({{"query", "note"}, {"user_id", "alice"}, {"threshold", top}});
  ASSERT_EQ(at_top.status, 200);
  ASSERT_FALSE(at_top.body["results"].empty());
  EXPECT_EQ(at_top.body["results"][0]["id"], all.body["results"][0]["id"]);
  for (const Json& item : at_top.body["results"]) EXPECT_GE(item["score"].get<double>(), top);
  ApiResponse above = Search({{"query", "note"}, {"user_id", "alice"}, {"threshold", top * 2}});
  EXPECT_THAT(above.body["results"], IsEmpty());

  ApiResponse two = Search({{"query", "note"}, {"user_id", "alice"}, {"top_k", 2}});
  ASSERT_THAT(two.body["results"], SizeIs(2));
  EXPECT_EQ(two.body["results"][0]["id"], all.body["results"][0]["id"]);
  EXPECT_EQ(two.body["results"][1]["id"], all.body["results"][1]["id"]);
  ApiResponse one = Search({{"query", "note"}, {"user_id", "alice"}, {"limit", 1}});
  ASSERT_THAT(one.body["results"], SizeIs(1));
  EXPECT_EQ(one.body["results"][0]["id"], all.body["results"][0]["id"]);
}

}  // namespace
}  // namespace engram::server
