// Tests for the follow-up recall (hop.h) over a hand-built vector index.
#include "read/hop.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "engram/testing/status_matchers.h"
#include "index/vector/exact_index.h"
#include "read/read_test_util.h"

namespace engram::read {
namespace {

using ::engram::read::testing::Candidate;
using ::engram::testing::IsOk;
using ::testing::HasSubstr;

// Rows 1-6, one session each.
TurnLayout SixTurns() {
  std::vector<LayoutTurn> turns;
  for (std::int64_t row = 1; row <= 6; ++row) {
    LayoutTurn turn;
    turn.row = row;
    turn.scope_id = 1;
    turn.sequence = row;
    turn.session_id = "s" + std::to_string(row);
    turn.role = Role::kUser;
    turns.push_back(turn);
  }
  return TurnLayout::FromTurns(turns);
}

// Three dimensions: the question points along x; rows 1 and 2 (the first pass's best) lean
// to y, so the follow-up search (x plus the seeds' mean) prefers row 4 (along y) to row 5
// (along x alone, which the question already found nearly as well) and row 6 (along z).
std::unique_ptr<index::VectorIndex> ThreeAxes() {
  auto created = index::ExactIndex::Create(3);
  EXPECT_THAT(created, IsOk());
  std::unique_ptr<index::VectorIndex> index = std::move(created).value();
  const std::vector<std::vector<float>> vectors = {{1, 1, 0}, {1, 2, 0}, {0, 0, 0},
                                                   {0, 1, 0}, {1, 0, 0}, {0, 0, 1}};
  for (std::size_t i = 0; i < vectors.size(); ++i) {
    if (i == 2) continue;  // row 3 has no vector
    EXPECT_THAT(index->Add(i + 1, vectors[i]), IsOk());
  }
  return index;
}

const Ranked* Find(const std::vector<Ranked>& ranked, std::int64_t row) {
  const auto found = std::find_if(ranked.begin(), ranked.end(),
                                  [row](const Ranked& r) { return r.fused.row == row; });
  return found == ranked.end() ? nullptr : &*found;
}

TEST(HopTest, TheSeedsAndTheQuestionLeadToTurnsNoRouteFound) {
  const TurnLayout layout = SixTurns();
  const auto index = ThreeAxes();
  const index::VectorIndex* indexes[] = {index.get()};
  const std::vector<float> question = {1, 0, 0};
  std::vector<Ranked> ranked = {Candidate(1, 0.8), Candidate(2, 0.4), Candidate(5, 0.1)};
  StatusOr<std::size_t> added =
      ApplyHop(ranked, indexes, question, layout, {.weight = 0.5, .seeds = 2, .candidates = 3});
  ASSERT_THAT(added, IsOk());
  // Row 4 is new; row 5 was there already and only gains; the seeds gain nothing.
  EXPECT_EQ(*added, 1u);
  ASSERT_EQ(ranked.size(), 4u);
  EXPECT_EQ(Find(ranked, 1)->score, 0.8);
  EXPECT_EQ(Find(ranked, 2)->score, 0.4);
  // The follow-up query: normalise(x + mean(seed vectors)); the best hit is row 5 or 4.
  const double s1 = 1 / std::sqrt(2.0), s2 = 1 / std::sqrt(5.0);
  std::vector<double> q = {1 + (s1 + s2) / 2, (s1 + 2 * s2) / 2, 0};
  const double norm = std::hypot(q[0], q[1]);
  const double cos4 = q[1] / norm, cos5 = q[0] / norm;
  const double best = std::max(cos4, cos5);
  EXPECT_NEAR(Find(ranked, 4)->score, 0.5 * 0.8 * cos4 / best, 1e-6);
  EXPECT_NEAR(Find(ranked, 5)->score, 0.1 + 0.5 * 0.8 * cos5 / best, 1e-6);
  // Row 6 is orthogonal to the follow-up query: cosine 0 adds nothing and is not added.
  EXPECT_EQ(Find(ranked, 6), nullptr);
  ASSERT_EQ(Find(ranked, 4)->adjustments.size(), 1u);
  EXPECT_EQ(Find(ranked, 4)->adjustments[0].name, "hop");
  EXPECT_THAT(Find(ranked, 4)->adjustments[0].detail, HasSubstr("ranked 1,2"));
}

TEST(HopTest, OffWithoutWeightVectorsOrSeeds) {
  const TurnLayout layout = SixTurns();
  const auto index = ThreeAxes();
  const index::VectorIndex* indexes[] = {index.get()};
  const std::vector<float> question = {1, 0, 0};
  std::vector<Ranked> ranked = {Candidate(1, 0.8)};
  EXPECT_EQ(*ApplyHop(ranked, indexes, question, layout, {.weight = 0}), 0u);
  EXPECT_EQ(*ApplyHop(ranked, {}, question, layout, {.weight = 1}), 0u);
  EXPECT_EQ(*ApplyHop(ranked, indexes, {}, layout, {.weight = 1}), 0u);
  // A seed without a stored vector (row 3) leads nowhere.
  std::vector<Ranked> no_vector = {Candidate(3, 0.8)};
  EXPECT_EQ(*ApplyHop(no_vector, indexes, question, layout, {.weight = 1, .seeds = 1}), 0u);
  EXPECT_EQ(no_vector.size(), 1u);
  EXPECT_EQ(ranked.size(), 1u);
  EXPECT_EQ(ranked[0].score, 0.8);
}

}  // namespace
}  // namespace engram::read
