// Tests for the vector indexes: one contract suite run against ExactIndex and HnswIndex, exact
// search on a hand-made example, and HNSW recall against exact search.
#include "index/vector/vector_index.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "engram/testing/status_matchers.h"
#include "index/vector/exact_index.h"
#include "index/vector/hnsw_index.h"

namespace engram::index {
namespace {

using ::engram::testing::IsOk;
using ::engram::testing::IsOkAndHolds;
using ::engram::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

std::vector<float> RandomUnitVector(std::mt19937_64& random, std::size_t dimension) {
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> vector(dimension);
  float squared = 0.0f;
  for (float& value : vector) {
    value = normal(random);
    squared += value * value;
  }
  for (float& value : vector) value /= std::sqrt(squared);
  return vector;
}

std::vector<std::uint64_t> Ids(const std::vector<VectorHit>& hits) {
  std::vector<std::uint64_t> ids;
  for (const VectorHit& hit : hits) ids.push_back(hit.id);
  return ids;
}

// ---------------------------------------------------------------------------------------------
// Contract suite: every VectorIndex must pass it.

using IndexFactory = std::function<std::unique_ptr<VectorIndex>(std::size_t dimension)>;

struct NamedFactory {
  std::string name;
  IndexFactory make;
};

class VectorIndexContractTest : public ::testing::TestWithParam<NamedFactory> {
 protected:
  std::unique_ptr<VectorIndex> Make(std::size_t dimension) { return GetParam().make(dimension); }
};

TEST_P(VectorIndexContractTest, ReturnsNearestFirstWithCosineScores) {
  auto index = Make(2);
  ASSERT_THAT(index->Add(1, std::vector<float>{1.0f, 0.0f}), IsOk());
  ASSERT_THAT(index->Add(2, std::vector<float>{0.0f, 1.0f}), IsOk());
  ASSERT_THAT(index->Add(3, std::vector<float>{3.0f, 3.0f}), IsOk());  // stored normalised
  ASSERT_THAT(index->Add(4, std::vector<float>{-1.0f, 0.0f}), IsOk());
  EXPECT_EQ(index->size(), 4u);
  StatusOr<std::vector<VectorHit>> hits = index->Search(std::vector<float>{2.0f, 0.0f}, 3);
  ASSERT_THAT(hits, IsOk());
  ASSERT_EQ(hits->size(), 3u);
  EXPECT_EQ((*hits)[0].id, 1u);
  EXPECT_FLOAT_EQ((*hits)[0].score, 1.0f);
  EXPECT_EQ((*hits)[1].id, 3u);
  EXPECT_NEAR((*hits)[1].score, std::sqrt(0.5f), 1e-6f);
  EXPECT_EQ((*hits)[2].id, 2u);
  EXPECT_NEAR((*hits)[2].score, 0.0f, 1e-6f);
}

TEST_P(VectorIndexContractTest, ScoresAndSimilaritiesOfStoredIdsAreTheSearchsCosines) {
  auto index = Make(2);
  ASSERT_THAT(index->Add(1, std::vector<float>{1.0f, 0.0f}), IsOk());
  ASSERT_THAT(index->Add(3, std::vector<float>{3.0f, 3.0f}), IsOk());  // stored normalised
  ASSERT_THAT(index->Add(4, std::vector<float>{-1.0f, 0.0f}), IsOk());
  const std::vector<float> query = {0.0f, 1.0f};  // already of unit length
  StatusOr<std::vector<VectorHit>> hits = index->Search(query, 3);
  ASSERT_THAT(hits, IsOk());
  for (const VectorHit& hit : *hits) {
    EXPECT_EQ(index->ScoreOf(query, hit.id), std::optional<float>(hit.score)) << hit.id;
  }
  ASSERT_TRUE(index->Similarity(1, 3).has_value());
  EXPECT_NEAR(*index->Similarity(1, 3), std::sqrt(0.5f), 1e-6f);
  EXPECT_EQ(index->Similarity(1, 3), index->Similarity(3, 1));
  EXPECT_NEAR(*index->Similarity(1, 4), -1.0f, 1e-6f);
  // An id that is not live has neither.
  EXPECT_EQ(index->ScoreOf(query, 2), std::nullopt);
  EXPECT_EQ(index->Similarity(1, 2), std::nullopt);
  ASSERT_THAT(index->Remove(4), IsOk());
  EXPECT_EQ(index->ScoreOf(query, 4), std::nullopt);
  EXPECT_EQ(index->Similarity(4, 1), std::nullopt);
}

TEST_P(VectorIndexContractTest, VectorOfGivesTheStoredUnitVectorOfALiveId) {
  auto index = Make(2);
  ASSERT_THAT(index->Add(3, std::vector<float>{3.0f, 4.0f}), IsOk());
  const std::optional<std::vector<float>> stored = index->VectorOf(3);
  ASSERT_TRUE(stored.has_value());
  ASSERT_EQ(stored->size(), 2u);
  EXPECT_NEAR((*stored)[0], 0.6f, 1e-6f);
  EXPECT_NEAR((*stored)[1], 0.8f, 1e-6f);
  // Searching with it finds the id itself first, at cosine 1.
  StatusOr<std::vector<VectorHit>> hits = index->Search(*stored, 1);
  ASSERT_THAT(hits, IsOk());
  ASSERT_EQ(hits->size(), 1u);
  EXPECT_EQ((*hits)[0].id, 3u);
  EXPECT_NEAR((*hits)[0].score, 1.0f, 1e-6f);
  EXPECT_EQ(index->VectorOf(9), std::nullopt);
  ASSERT_THAT(index->Remove(3), IsOk());
  EXPECT_EQ(index->VectorOf(3), std::nullopt);
}

TEST_P(VectorIndexContractTest, BreaksTiesByAscendingId) {
  auto index = Make(2);
  for (std::uint64_t id : {40u, 7u, 19u}) {
    ASSERT_THAT(index->Add(id, std::vector<float>{0.6f, 0.8f}), IsOk());
  }
  ASSERT_THAT(index->Add(3, std::vector<float>{0.8f, 0.6f}), IsOk());
  StatusOr<std::vector<VectorHit>> hits = index->Search(std::vector<float>{0.6f, 0.8f}, 4);
  ASSERT_THAT(hits, IsOk());
  EXPECT_THAT(Ids(*hits), ElementsAre(7u, 19u, 40u, 3u));
}

TEST_P(VectorIndexContractTest, RemovedIdsAreNotReturnedAndCanBeAddedAgain) {
  auto index = Make(2);
  ASSERT_THAT(index->Add(1, std::vector<float>{1.0f, 0.0f}), IsOk());
  ASSERT_THAT(index->Add(2, std::vector<float>{0.0f, 1.0f}), IsOk());
  ASSERT_THAT(index->Remove(1), IsOk());
  EXPECT_FALSE(index->Contains(1));
  EXPECT_EQ(index->size(), 1u);
  EXPECT_THAT(index->Search(std::vector<float>{1.0f, 0.0f}, 5),
              IsOkAndHolds(ElementsAre(VectorHit{2, 0.0f})));
  EXPECT_THAT(index->Remove(1), StatusIs(StatusCode::kNotFound));
  EXPECT_THAT(index->Remove(99), StatusIs(StatusCode::kNotFound, HasSubstr("99")));

  ASSERT_THAT(index->Add(1, std::vector<float>{0.0f, -1.0f}), IsOk());  // a new vector
  EXPECT_TRUE(index->Contains(1));
  EXPECT_EQ(index->size(), 2u);
  StatusOr<std::vector<VectorHit>> hits = index->Search(std::vector<float>{0.0f, -1.0f}, 1);
  ASSERT_THAT(hits, IsOk());
  EXPECT_THAT(Ids(*hits), ElementsAre(1u));
  EXPECT_FLOAT_EQ((*hits)[0].score, 1.0f);
}

TEST_P(VectorIndexContractTest, RejectsDuplicateAndMalformedVectors) {
  auto index = Make(3);
  ASSERT_THAT(index->Add(5, std::vector<float>{1.0f, 2.0f, 3.0f}), IsOk());
  EXPECT_THAT(index->Add(5, std::vector<float>{1.0f, 0.0f, 0.0f}),
              StatusIs(StatusCode::kAlreadyExists));
  EXPECT_THAT(index->Add(6, std::vector<float>{1.0f, 0.0f}),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("2 dimensions")));
  EXPECT_THAT(index->Add(6, std::vector<float>{0.0f, 0.0f, 0.0f}),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("zeros")));
  EXPECT_THAT(index->Add(6, std::vector<float>{NAN, 0.0f, 1.0f}),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("non-finite")));
  EXPECT_THAT(index->Search(std::vector<float>{1.0f}, 1), StatusIs(StatusCode::kInvalidArgument));
  EXPECT_THAT(index->Search(std::vector<float>{0.0f, 0.0f, 0.0f}, 1),
              StatusIs(StatusCode::kInvalidArgument));
  EXPECT_EQ(index->size(), 1u);
}

TEST_P(VectorIndexContractTest, HandlesEmptyIndexZeroKAndLargeK) {
  auto index = Make(2);
  EXPECT_THAT(index->Search(std::vector<float>{1.0f, 0.0f}, 3), IsOkAndHolds(IsEmpty()));
  ASSERT_THAT(index->Add(1, std::vector<float>{1.0f, 0.0f}), IsOk());
  ASSERT_THAT(index->Add(2, std::vector<float>{1.0f, 1.0f}), IsOk());
  EXPECT_THAT(index->Search(std::vector<float>{1.0f, 0.0f}, 0), IsOkAndHolds(IsEmpty()));
  StatusOr<std::vector<VectorHit>> hits = index->Search(std::vector<float>{1.0f, 0.0f}, 100);
  ASSERT_THAT(hits, IsOk());
  EXPECT_THAT(Ids(*hits), ElementsAre(1u, 2u));
}

TEST_P(VectorIndexContractTest, FilterRestrictsResults) {
  std::mt19937_64 random(7);
  auto index = Make(16);
  for (std::uint64_t id = 0; id < 500; ++id) {
    ASSERT_THAT(index->Add(id, RandomUnitVector(random, 16)), IsOk());
  }
  const VectorFilter multiple_of_50 = [](std::uint64_t id) { return id % 50 == 0; };
  StatusOr<std::vector<VectorHit>> hits =
      index->Search(RandomUnitVector(random, 16), 20, multiple_of_50);
  ASSERT_THAT(hits, IsOk());
  EXPECT_EQ(hits->size(), 10u);  // only 10 ids pass, and all are found
  for (const VectorHit& hit : *hits) EXPECT_EQ(hit.id % 50, 0u);
  for (std::size_t rank = 1; rank < hits->size(); ++rank) {
    EXPECT_TRUE(RanksBefore((*hits)[rank - 1], (*hits)[rank]));
  }
}

TEST_P(VectorIndexContractTest, ConcurrentSearchesAgree) {
  std::mt19937_64 random(11);
  auto index = Make(32);
  for (std::uint64_t id = 0; id < 2000; ++id) {
    ASSERT_THAT(index->Add(id, RandomUnitVector(random, 32)), IsOk());
  }
  const std::vector<float> query = RandomUnitVector(random, 32);
  StatusOr<std::vector<VectorHit>> expected = index->Search(query, 10);
  ASSERT_THAT(expected, IsOk());
  std::vector<std::vector<VectorHit>> results(4);
  std::vector<std::thread> threads;
  for (std::size_t thread = 0; thread < results.size(); ++thread) {
    threads.emplace_back([&, thread] {
      for (int repeat = 0; repeat < 20; ++repeat) {
        StatusOr<std::vector<VectorHit>> hits = index->Search(query, 10);
        if (hits.ok()) results[thread] = *hits;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (const auto& result : results) EXPECT_EQ(result, *expected);
}

INSTANTIATE_TEST_SUITE_P(
    AllIndexes, VectorIndexContractTest,
    ::testing::Values(NamedFactory{"Exact",
                                   [](std::size_t dimension) -> std::unique_ptr<VectorIndex> {
                                     return std::move(ExactIndex::Create(dimension)).value();
                                   }},
                      NamedFactory{"Hnsw",
                                   [](std::size_t dimension) -> std::unique_ptr<VectorIndex> {
                                     HnswOptions options;
                                     options.dimension = dimension;
                                     options.initial_capacity = 4;  // exercises growth
                                     return std::move(HnswIndex::Create(options)).value();
                                   }}),
    [](const ::testing::TestParamInfo<NamedFactory>& param_info) { return param_info.param.name; });

// ---------------------------------------------------------------------------------------------
// ExactIndex against a hand-computed example.

TEST(ExactIndexTest, MatchesHandComputedRanking) {
  StatusOr<std::unique_ptr<ExactIndex>> index = ExactIndex::Create(3);
  ASSERT_THAT(index, IsOk());
  // Query (1, 0, 0). Cosines: id 10: 1; id 11: 0.8 (0.8, 0.6, 0); id 12: 0.6 (3, 4, 0)/5;
  // id 13: 0; id 14: -1; id 15: 0.8 (tie with 11, larger id); id 16: 1/√3.
  ASSERT_THAT((*index)->Add(10, std::vector<float>{5.0f, 0.0f, 0.0f}), IsOk());
  ASSERT_THAT((*index)->Add(11, std::vector<float>{0.8f, 0.6f, 0.0f}), IsOk());
  ASSERT_THAT((*index)->Add(12, std::vector<float>{3.0f, 4.0f, 0.0f}), IsOk());
  ASSERT_THAT((*index)->Add(13, std::vector<float>{0.0f, 0.0f, 2.0f}), IsOk());
  ASSERT_THAT((*index)->Add(14, std::vector<float>{-1.0f, 0.0f, 0.0f}), IsOk());
  ASSERT_THAT((*index)->Add(15, std::vector<float>{0.8f, 0.0f, 0.6f}), IsOk());
  ASSERT_THAT((*index)->Add(16, std::vector<float>{1.0f, 1.0f, 1.0f}), IsOk());
  StatusOr<std::vector<VectorHit>> hits = (*index)->Search(std::vector<float>{1.0f, 0.0f, 0.0f}, 5);
  ASSERT_THAT(hits, IsOk());
  EXPECT_THAT(Ids(*hits), ElementsAre(10u, 11u, 15u, 12u, 16u));
  const std::vector<float> expected_scores = {1.0f, 0.8f, 0.8f, 0.6f, 1.0f / std::sqrt(3.0f)};
  for (std::size_t rank = 0; rank < expected_scores.size(); ++rank) {
    EXPECT_NEAR((*hits)[rank].score, expected_scores[rank], 1e-6f) << "rank " << rank;
  }
  EXPECT_THAT(ExactIndex::Create(0), StatusIs(StatusCode::kInvalidArgument));
}

// ---------------------------------------------------------------------------------------------
// HnswIndex: recall against exact search, determinism, options.

TEST(HnswIndexTest, RecallAt10AgainstExactSearch) {
  constexpr std::size_t kDimension = 64;
  constexpr std::size_t kVectors = 20000;
  constexpr std::size_t kQueries = 200;
  constexpr std::size_t kNeighbors = 10;
  std::mt19937_64 random(20240501);
  HnswOptions options;  // defaults
  options.dimension = kDimension;
  StatusOr<std::unique_ptr<HnswIndex>> hnsw = HnswIndex::Create(options);
  StatusOr<std::unique_ptr<ExactIndex>> exact = ExactIndex::Create(kDimension);
  ASSERT_THAT(hnsw, IsOk());
  ASSERT_THAT(exact, IsOk());
  for (std::uint64_t id = 0; id < kVectors; ++id) {
    const std::vector<float> vector = RandomUnitVector(random, kDimension);
    ASSERT_THAT((*hnsw)->Add(id, vector), IsOk());
    ASSERT_THAT((*exact)->Add(id, vector), IsOk());
  }
  std::size_t found = 0;
  for (std::size_t query_index = 0; query_index < kQueries; ++query_index) {
    const std::vector<float> query = RandomUnitVector(random, kDimension);
    StatusOr<std::vector<VectorHit>> approximate = (*hnsw)->Search(query, kNeighbors);
    StatusOr<std::vector<VectorHit>> truth = (*exact)->Search(query, kNeighbors);
    ASSERT_THAT(approximate, IsOk());
    ASSERT_THAT(truth, IsOk());
    const std::vector<std::uint64_t> truth_ids = Ids(*truth);
    const std::set<std::uint64_t> expected(truth_ids.begin(), truth_ids.end());
    for (const VectorHit& hit : *approximate) found += expected.count(hit.id);
  }
  const double recall = static_cast<double>(found) / static_cast<double>(kQueries * kNeighbors);
  RecordProperty("recall_at_10", std::to_string(recall));
  EXPECT_GE(recall, 0.99);
}

TEST(HnswIndexTest, SameInsertionsGiveSameResults) {
  HnswOptions options;
  options.dimension = 24;
  std::vector<std::vector<VectorHit>> runs;
  for (int run = 0; run < 2; ++run) {
    std::mt19937_64 random(3);
    StatusOr<std::unique_ptr<HnswIndex>> index = HnswIndex::Create(options);
    ASSERT_THAT(index, IsOk());
    for (std::uint64_t id = 0; id < 3000; ++id) {
      ASSERT_THAT((*index)->Add(id * 7, RandomUnitVector(random, 24)), IsOk());
    }
    StatusOr<std::vector<VectorHit>> hits = (*index)->Search(RandomUnitVector(random, 24), 25);
    ASSERT_THAT(hits, IsOk());
    runs.push_back(*hits);
  }
  EXPECT_EQ(runs[0], runs[1]);
}

// A saved graph, loaded and given its vectors back, is the saved index: it searches the same and
// later additions build the graph one uninterrupted build makes (the level generator's state
// travels with the graph).
TEST(HnswGraphTest, SavedLoadedAndExtendedEqualsOneBuild) {
  constexpr std::size_t kDimension = 16;
  HnswOptions options;
  options.dimension = kDimension;
  options.max_neighbors = 8;
  options.construction_expansion = 40;
  std::mt19937_64 random(11);
  std::vector<std::vector<float>> vectors;
  for (int i = 0; i < 1500; ++i) vectors.push_back(RandomUnitVector(random, kDimension));
  const auto id_of = [](std::size_t i) { return static_cast<std::uint64_t>(3 * i + 5); };

  StatusOr<std::unique_ptr<HnswIndex>> whole = HnswIndex::Create(options);
  ASSERT_THAT(whole, IsOk());
  for (std::size_t i = 0; i < vectors.size(); ++i) {
    ASSERT_THAT((*whole)->Add(id_of(i), vectors[i]), IsOk());
  }

  StatusOr<std::unique_ptr<HnswIndex>> first = HnswIndex::Create(options);
  ASSERT_THAT(first, IsOk());
  for (std::size_t i = 0; i < 1000; ++i) ASSERT_THAT((*first)->Add(id_of(i), vectors[i]), IsOk());
  StatusOr<std::string> saved = (*first)->SaveGraph();
  ASSERT_THAT(saved, IsOk());
  StatusOr<std::unique_ptr<HnswIndex>> loaded = HnswIndex::LoadGraph(options, *saved);
  ASSERT_THAT(loaded, IsOk());
  EXPECT_EQ((*loaded)->missing_vectors(), 1000u);
  EXPECT_EQ((*loaded)->IdsInInsertionOrder(), (*first)->IdsInInsertionOrder());
  for (std::size_t i = 0; i < 1000; ++i) {
    ASSERT_THAT((*loaded)->RestoreVector(id_of(i), vectors[i]), IsOk());
  }
  EXPECT_EQ((*loaded)->missing_vectors(), 0u);
  EXPECT_EQ((*loaded)->size(), 1000u);
  EXPECT_THAT((*loaded)->SaveGraph(), IsOkAndHolds(*saved));
  const std::vector<float> query = RandomUnitVector(random, kDimension);
  StatusOr<std::vector<VectorHit>> before = (*first)->Search(query, 20);
  ASSERT_THAT(before, IsOk());
  EXPECT_THAT((*loaded)->Search(query, 20), IsOkAndHolds(*before));

  for (std::size_t i = 1000; i < vectors.size(); ++i) {
    ASSERT_THAT((*loaded)->Add(id_of(i), vectors[i]), IsOk());
  }
  StatusOr<std::string> extended = (*loaded)->SaveGraph();
  ASSERT_THAT(extended, IsOk());
  EXPECT_THAT((*whole)->SaveGraph(), IsOkAndHolds(*extended));
  StatusOr<std::vector<VectorHit>> expected = (*whole)->Search(query, 20);
  ASSERT_THAT(expected, IsOk());
  EXPECT_THAT((*loaded)->Search(query, 20), IsOkAndHolds(*expected));
}

TEST(HnswGraphTest, LoadedGraphRefusesWorkUntilEveryVectorIsBack) {
  HnswOptions options;
  options.dimension = 8;
  std::mt19937_64 random(5);
  StatusOr<std::unique_ptr<HnswIndex>> index = HnswIndex::Create(options);
  ASSERT_THAT(index, IsOk());
  const std::vector<float> a = RandomUnitVector(random, 8);
  const std::vector<float> b = RandomUnitVector(random, 8);
  ASSERT_THAT((*index)->Add(1, a), IsOk());
  ASSERT_THAT((*index)->Add(2, b), IsOk());
  ASSERT_THAT((*index)->Remove(2), IsOk());
  StatusOr<std::string> saved = (*index)->SaveGraph();
  ASSERT_THAT(saved, IsOk());
  StatusOr<std::unique_ptr<HnswIndex>> loaded = HnswIndex::LoadGraph(options, *saved);
  ASSERT_THAT(loaded, IsOk());
  EXPECT_THAT((*loaded)->Search(a, 1), StatusIs(StatusCode::kFailedPrecondition));
  EXPECT_THAT((*loaded)->Add(3, a), StatusIs(StatusCode::kFailedPrecondition));
  EXPECT_THAT((*loaded)->SaveGraph(), StatusIs(StatusCode::kFailedPrecondition));
  EXPECT_THAT((*loaded)->RestoreVector(7, a), StatusIs(StatusCode::kNotFound));
  ASSERT_THAT((*loaded)->RestoreVector(1, a), IsOk());
  EXPECT_THAT((*loaded)->RestoreVector(1, a), StatusIs(StatusCode::kAlreadyExists));
  ASSERT_THAT((*loaded)->RestoreVector(2, b), IsOk());
  // The removal travelled with the graph.
  EXPECT_EQ((*loaded)->size(), 1u);
  EXPECT_FALSE((*loaded)->Contains(2));
  StatusOr<std::vector<VectorHit>> hits = (*loaded)->Search(b, 5);
  ASSERT_THAT(hits, IsOk());
  EXPECT_THAT(Ids(*hits), ElementsAre(1u));
}

TEST(HnswGraphTest, DamagedOrForeignGraphsAreRefused) {
  HnswOptions options;
  options.dimension = 8;
  std::mt19937_64 random(9);
  StatusOr<std::unique_ptr<HnswIndex>> index = HnswIndex::Create(options);
  ASSERT_THAT(index, IsOk());
  for (std::uint64_t id = 0; id < 50; ++id) {
    ASSERT_THAT((*index)->Add(id, RandomUnitVector(random, 8)), IsOk());
  }
  StatusOr<std::string> saved = (*index)->SaveGraph();
  ASSERT_THAT(saved, IsOk());

  std::string flipped = *saved;
  flipped[flipped.size() / 2] ^= 0x20;
  EXPECT_THAT(HnswIndex::LoadGraph(options, flipped),
              StatusIs(StatusCode::kCorruption, HasSubstr("checksum")));
  EXPECT_THAT(HnswIndex::LoadGraph(options, saved->substr(0, saved->size() - 1)),
              StatusIs(StatusCode::kCorruption));
  EXPECT_THAT(HnswIndex::LoadGraph(options, "EHNSW"), StatusIs(StatusCode::kCorruption));
  EXPECT_THAT(HnswIndex::LoadGraph(options, ""), StatusIs(StatusCode::kCorruption));

  HnswOptions other = options;
  other.max_neighbors = 16;
  EXPECT_THAT(HnswIndex::LoadGraph(other, *saved),
              StatusIs(StatusCode::kFailedPrecondition, HasSubstr("M 32")));
  other = options;
  other.dimension = 9;
  EXPECT_THAT(HnswIndex::LoadGraph(other, *saved), StatusIs(StatusCode::kFailedPrecondition));
}

TEST(HnswIndexTest, ValidatesOptions) {
  HnswOptions options;
  EXPECT_THAT(HnswIndex::Create(options), StatusIs(StatusCode::kInvalidArgument));
  options.dimension = 8;
  options.max_neighbors = 1;
  EXPECT_THAT(HnswIndex::Create(options),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("max_neighbors")));
  options.max_neighbors = 16;
  options.search_expansion = 0;
  EXPECT_THAT(HnswIndex::Create(options), StatusIs(StatusCode::kInvalidArgument));
}

}  // namespace
}  // namespace engram::index
