// RunRecall's warnings (Diagnostics::warnings): what a recall could not do (word vectors or
// synonyms asked for but not installed, a route that failed) is said in a typed list, in a fixed
// order, and not folded into the plan's description; a recall that was not degraded has none.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engram/testing/status_matchers.h"
#include "index/vector/exact_index.h"
#include "read/read_test_util.h"
#include "read/recall.h"

namespace engram::read {
namespace {

using ::engram::testing::IsOk;
using ::testing::AllOf;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::Field;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::StartsWith;

// A recall over the hand-built conversation (read_test_util.h) without a store: the BM25 route
// over its index, and the vector route over a 3-dimensional index.
class RecallWarningsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto vectors = index::ExactIndex::Create(3);
    ASSERT_THAT(vectors, IsOk());
    vector_index_ = *std::move(vectors);
    const float guitar[] = {1, 0, 0};
    ASSERT_THAT(vector_index_->Add(2, guitar), IsOk());
  }

  // `query_vector` of the wrong dimension makes the vector route fail.
  RecallRequest Request(std::vector<float> query_vector) const {
    RecallRequest request;
    request.frame = testing::Frame("guitar lesson");
    request.config = &conversation_.config;
    request.options.k = 10;
    request.options.token_budget = 2000;
    request.options.routes = {"bm25", "vector"};
    request.text_indexes = conversation_.indexes;
    request.layouts = {&conversation_.layout};
    request.vector_indexes = {vector_index_.get()};
    request.query_vector = std::move(query_vector);
    request.load_nodes = [](std::span<const std::int64_t> rows) {
      std::vector<store::NodeRecord> nodes;
      for (const std::int64_t row : rows) {
        store::NodeRecord node;
        node.row = row;
        node.id = "turn-" + std::to_string(row);
        node.scope_id = 1;
        node.text = "turn " + std::to_string(row);
        node.sequence = row;
        nodes.push_back(std::move(node));
      }
      return StatusOr<std::vector<store::NodeRecord>>(std::move(nodes));
    };
    request.scope_path = [](std::int64_t) { return std::string("user:test"); };
    return request;
  }

  testing::Conversation conversation_;
  std::unique_ptr<index::ExactIndex> vector_index_;
  Routes routes_ = Routes::Default();
};

TEST_F(RecallWarningsTest, ACleanRecallHasNoWarnings) {
  auto result = RunRecall(Request({1, 0, 0}), routes_);
  ASSERT_THAT(result, IsOk());
  EXPECT_THAT(result->diagnostics.warnings, IsEmpty());
  ASSERT_EQ(result->diagnostics.routes.size(), 2u);
  EXPECT_EQ(result->diagnostics.routes[1].error, "");
}

TEST_F(RecallWarningsTest, AFailedRouteIsAWarningAndTheOtherRoutesStillAnswer) {
  auto result = RunRecall(Request({1, 0}), routes_);  // a 2-dimensional query
  ASSERT_THAT(result, IsOk());
  ASSERT_EQ(result->diagnostics.routes.size(), 2u);
  const std::string& error = result->diagnostics.routes[1].error;
  EXPECT_THAT(error, StartsWith("INVALID_ARGUMENT"));
  EXPECT_THAT(result->diagnostics.warnings,
              ElementsAre("route vector failed and was left out: " + error));
  EXPECT_EQ(result->diagnostics.routes[0].error, "");
  // BM25 still found the turn with both words.
  EXPECT_THAT(result->items, Contains(Field(&RecallItem::id, "turn-6")));
}

TEST_F(RecallWarningsTest, MissingWordVectorsAreAWarningNotPartOfThePlan) {
  RecallRequest request = Request({1, 0, 0});
  request.word_vectors_missing = "word vectors file glove-100d.bin is missing";
  auto result = RunRecall(request, routes_);
  ASSERT_THAT(result, IsOk());
  EXPECT_THAT(result->diagnostics.warnings,
              ElementsAre("word-vector matches off: word vectors file glove-100d.bin is missing"));
  EXPECT_THAT(result->diagnostics.plan, Not(HasSubstr("word-vector")));
  EXPECT_THAT(result->diagnostics.plan, Not(HasSubstr("glove")));
}

TEST_F(RecallWarningsTest, WordVectorsThenSynonymsThenTheFailedRoutes) {
  RecallRequest request = Request({1, 0});
  request.word_vectors_missing = "no vectors";
  request.synonyms_missing = "no lexicons";
  request.options.routes = {"vector", "bm25"};
  auto result = RunRecall(request, routes_);
  ASSERT_THAT(result, IsOk());
  ASSERT_EQ(result->diagnostics.warnings.size(), 3u);
  EXPECT_EQ(result->diagnostics.warnings[0], "word-vector matches off: no vectors");
  EXPECT_EQ(result->diagnostics.warnings[1], "synonym matches off: no lexicons");
  EXPECT_THAT(result->diagnostics.warnings[2], StartsWith("route vector failed"));
}

// RecallOptions::route_weights is checked for every entry point: a route the registry does not
// know is refused listing the known ones, and a weight that is NaN, infinite, negative or above
// 1000 is refused naming the route; in range, any weight is accepted.
TEST_F(RecallWarningsTest, RouteWeightsMustNameKnownRoutesWithFiniteWeights) {
  using ::engram::testing::StatusIs;
  RecallRequest request = Request({1, 0, 0});
  request.options.route_weights = {{"bm25", 1.0}, {"vectr", 0.5}};
  EXPECT_THAT(RunRecall(request, routes_),
              StatusIs(StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("route_weights \"vectr\": unknown route (known: "),
                             HasSubstr("bm25"), HasSubstr("vector"))));
  const double kNaN = std::numeric_limits<double>::quiet_NaN();
  const double kInf = std::numeric_limits<double>::infinity();
  for (const auto& [weight, shown] : std::vector<std::pair<double, std::string>>{
           {kNaN, "nan"}, {kInf, "inf"}, {-kInf, "-inf"}, {-0.5, "-0.5"}, {1001, "1001.0"}}) {
    request.options.route_weights = {{"bm25", weight}};
    EXPECT_THAT(RunRecall(request, routes_),
                StatusIs(StatusCode::kInvalidArgument,
                         HasSubstr("route_weights \"bm25\" is " + shown +
                                   "; a route weight must be a finite number in [0, 1000]")))
        << shown;
  }
  request.options.route_weights = {{"bm25", 0.0}, {"vector", 1000.0}};
  EXPECT_THAT(RunRecall(request, routes_), IsOk());
}

}  // namespace
}  // namespace engram::read
