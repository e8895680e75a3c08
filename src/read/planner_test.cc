// Tests for the planner (planner.h): shape rules over the route weights, options first.
#include "read/planner.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "read/read_test_util.h"

namespace engram::read {
namespace {

using ::engram::read::testing::Frame;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(PlannerTest, AHopEntryTurnsTheFollowUpRecallOnForItsShapeOnly) {
  Config config;
  config.recall.route_weights = {{"bm25", 1.0}};
  config.planner.shapes = {{"list", {{"hop", 0.25}}}};
  RecallOptions options;
  const Plan list = MakePlan(Frame("What books has Tim read?"), config, options);
  EXPECT_EQ(list.hop, 0.25);
  EXPECT_EQ(list.WeightOf("hop"), 1.0);  // not a route
  EXPECT_EQ(list.Describe(), "rule=list weights bm25=1 budget x1 hop 0.25");
  EXPECT_EQ(MakePlan(Frame("Where is the dog?"), config, options).hop, 0.0);
}

TEST(PlannerTest, ShapeRulesReplaceWeightsAndOptionsWin) {
  Config config;
  config.recall.route_weights = {{"bm25", 1.0}, {"fragment", 1.0}};
  config.planner.shapes = {{"count", {{"fragment", 1.5}, {"budget_scale", 2.0}}}};
  RecallOptions options;
  const Plan count = MakePlan(Frame("How many dogs?"), config, options);
  EXPECT_EQ(count.rule, "count");
  EXPECT_EQ(count.WeightOf("fragment"), 1.5);
  EXPECT_EQ(count.WeightOf("bm25"), 1.0);
  EXPECT_EQ(count.WeightOf("never-named"), 1.0);
  EXPECT_EQ(count.budget_scale, 2.0);
  EXPECT_EQ(count.Describe(), "rule=count weights bm25=1,fragment=1.5 budget x2");
  const Plan factoid = MakePlan(Frame("Where is the dog?"), config, options);
  EXPECT_EQ(factoid.rule, "default");
  EXPECT_EQ(factoid.WeightOf("fragment"), 1.0);
  options.route_weights = {{"fragment", 0.0}};
  EXPECT_EQ(MakePlan(Frame("How many dogs?"), config, options).WeightOf("fragment"), 0.0);
  options.use_planner = false;
  options.route_weights.clear();
  EXPECT_EQ(MakePlan(Frame("How many dogs?"), config, options).rule, "default");
}

TEST(PlannerTest, DefaultRulesWeighMeaningForRecommendationRequests) {
  const Config config;  // the built-in rule table
  const RecallOptions options;
  const Plan request =
      MakePlan(Frame("Can you suggest some accessories for my camera?"), config, options);
  EXPECT_EQ(request.rule, "recommendation");
  EXPECT_EQ(request.WeightOf("vector"), 1.5);
  EXPECT_EQ(request.WeightOf("bm25"), 1.0);
  EXPECT_EQ(MakePlan(Frame("What did Caroline paint?"), config, options).WeightOf("vector"), 1.0);
}

}  // namespace
}  // namespace engram::read
