// Tests for weighted reciprocal rank fusion (fusion.h) against scores computed by hand with the
// default k = 20: fused(d) = Σ_routes weight_r / (20 + rank_r(d)).
#include "read/fusion.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

namespace engram::read {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

constexpr double kRrfK = 20;  // Eywa eq. 2's k

// A route's run over `rows`, best first; each candidate's own score is 10 - its position.
RouteRun RouteRunOf(std::string route, double weight, std::vector<std::int64_t> rows) {
  RouteRun run;
  run.route = std::move(route);
  run.weight = weight;
  for (std::size_t position = 0; position < rows.size(); ++position) {
    run.candidates.push_back({rows[position], 10.0 - static_cast<double>(position),
                              "row " + std::to_string(rows[position])});
  }
  return run;
}

std::vector<std::int64_t> Rows(const std::vector<FusedCandidate>& fused) {
  std::vector<std::int64_t> rows;
  for (const FusedCandidate& candidate : fused) rows.push_back(candidate.row);
  return rows;
}

TEST(FusionTest, WeightedSumOfReciprocalRanks) {
  // bm25 (weight 1):    rows 7, 3, 5  -> ranks 1, 2, 3
  // vector (weight 0.5): rows 3, 9     -> ranks 1, 2
  const std::vector<RouteRun> runs = {RouteRunOf("bm25", 1.0, {7, 3, 5}),
                                      RouteRunOf("vector", 0.5, {3, 9})};
  const std::vector<FusedCandidate> fused = FuseWeightedRrf(runs, kRrfK);
  // row 3: 1/22 + 0.5/21 = 0.0454545… + 0.0238095… = 0.0692641
  // row 7: 1/21                                    = 0.0476190
  // row 5: 1/23                                    = 0.0434783
  // row 9: 0.5/22                                  = 0.0227273
  ASSERT_THAT(Rows(fused), ElementsAre(3, 7, 5, 9));
  EXPECT_DOUBLE_EQ(fused[0].fused_score, 1.0 / 22 + 0.5 / 21);
  EXPECT_NEAR(fused[0].fused_score, 0.0692641, 1e-7);
  EXPECT_NEAR(fused[1].fused_score, 0.0476190, 1e-7);
  EXPECT_NEAR(fused[2].fused_score, 0.0434783, 1e-7);
  EXPECT_NEAR(fused[3].fused_score, 0.0227273, 1e-7);
}

TEST(FusionTest, EachCandidateKeepsItsRankAndScorePerRouteInRunOrder) {
  const std::vector<RouteRun> runs = {RouteRunOf("bm25", 1.0, {7, 3}),
                                      RouteRunOf("vector", 0.5, {3})};
  const std::vector<FusedCandidate> fused = FuseWeightedRrf(runs, kRrfK);
  ASSERT_THAT(Rows(fused), ElementsAre(3, 7));
  ASSERT_EQ(fused[0].routes.size(), 2u);
  EXPECT_EQ(fused[0].routes[0].route, "bm25");
  EXPECT_EQ(fused[0].routes[0].rank, 2u);
  EXPECT_DOUBLE_EQ(fused[0].routes[0].score, 9.0);
  EXPECT_EQ(fused[0].routes[0].explanation, "row 3");
  EXPECT_EQ(fused[0].routes[1].route, "vector");
  EXPECT_EQ(fused[0].routes[1].rank, 1u);
  EXPECT_DOUBLE_EQ(fused[0].routes[1].score, 10.0);
  ASSERT_EQ(fused[1].routes.size(), 1u);
  EXPECT_EQ(fused[1].routes[0].rank, 1u);
}

TEST(FusionTest, ZeroWeightRouteReportsRanksButAddsNothing) {
  const std::vector<RouteRun> runs = {RouteRunOf("bm25", 1.0, {4}),
                                      RouteRunOf("keyword", 0.0, {8, 4})};
  const std::vector<FusedCandidate> fused = FuseWeightedRrf(runs, kRrfK);
  // row 4: 1/21 + 0; row 8: 0 (listed, last).
  ASSERT_THAT(Rows(fused), ElementsAre(4, 8));
  EXPECT_DOUBLE_EQ(fused[0].fused_score, 1.0 / 21);
  EXPECT_DOUBLE_EQ(fused[1].fused_score, 0.0);
  ASSERT_EQ(fused[1].routes.size(), 1u);
  EXPECT_EQ(fused[1].routes[0].route, "keyword");
  EXPECT_EQ(fused[1].routes[0].rank, 1u);
}

TEST(FusionTest, EqualFusedScoresAreOrderedByRow) {
  // Rows 2 and 30 rank 2 and 3 in two routes of weight 1, swapped: 1/22 + 1/23 = 0.0889328
  // each. Rows 5, 12, 40 and 41 rank first in one route each: 1/21 = 0.0476190 each. Equal
  // scores are ordered by row.
  const std::vector<RouteRun> runs = {RouteRunOf("bm25", 1.0, {12}), RouteRunOf("entity", 1.0, {5}),
                                      RouteRunOf("session", 1.0, {40, 30, 2}),
                                      RouteRunOf("temporal", 1.0, {41, 2, 30})};
  const std::vector<FusedCandidate> fused = FuseWeightedRrf(runs, kRrfK);
  EXPECT_THAT(Rows(fused), ElementsAre(2, 30, 5, 12, 40, 41));
  EXPECT_DOUBLE_EQ(fused[0].fused_score, fused[1].fused_score);
  EXPECT_NEAR(fused[0].fused_score, 0.0889328, 1e-7);
  EXPECT_DOUBLE_EQ(fused[2].fused_score, 1.0 / 21);
}

TEST(FusionTest, SmallerKWidensTheGapBetweenRanks) {
  const std::vector<RouteRun> runs = {RouteRunOf("bm25", 1.0, {1, 2})};
  // k = 20: 1/21 vs 1/22 (ratio 1.048); k = 1: 1/2 vs 1/3 (ratio 1.5).
  const std::vector<FusedCandidate> k20 = FuseWeightedRrf(runs, 20);
  const std::vector<FusedCandidate> k1 = FuseWeightedRrf(runs, 1);
  EXPECT_NEAR(k20[0].fused_score / k20[1].fused_score, 22.0 / 21, 1e-12);
  EXPECT_NEAR(k1[0].fused_score / k1[1].fused_score, 1.5, 1e-12);
}

TEST(FusionTest, NoRunsOrEmptyRunsFuseToNothing) {
  EXPECT_THAT(FuseWeightedRrf({}, kRrfK), IsEmpty());
  const std::vector<RouteRun> runs = {RouteRunOf("bm25", 1.0, {}), RouteRunOf("vector", 0.5, {})};
  EXPECT_THAT(FuseWeightedRrf(runs, kRrfK), IsEmpty());
}

}  // namespace
}  // namespace engram::read
