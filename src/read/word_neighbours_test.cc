// Word-vector soft matches (word_neighbours.h): the threshold, the weight that scales a
// neighbour below its query term, and neighbours only for the query terms the memory lacks.
#include "read/word_neighbours.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "engram/testing/status_matchers.h"
#include "engram/testing/temp_dir.h"
#include "lexicon/word_vectors_test_util.h"

namespace engram::read {
namespace {

using ::engram::testing::IsOk;
using ::testing::DoubleNear;
using ::testing::ElementsAre;
using ::testing::Field;
using ::testing::IsEmpty;

// cos(pet, dog) = 0.9, cos(pet, cat) = 0.8, cos(dog, cat) = 0.72, "car" far from all three.
class WordNeighboursTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto opened = lexicon::WordVectors::Open(dir_.File(
        "tiny.bin", lexicon::VectorFile({{"pet", {1, 0, 0}},
                                         {"dog", {0.9, 0.43589, 0}},
                                         {"cat", {0.8, 0, 0.6}},
                                         {"car", {0, -1, 0.2}}})));
    ASSERT_THAT(opened, IsOk());
    vectors_ = *std::move(opened);
    // The memory says "dog", "cat" and "car", never "pet".
    index_.Add(1, std::vector<std::string>{"dog", "walk"});
    index_.Add(2, std::vector<std::string>{"cat", "car"});
    indexes_ = {&index_};
  }

  std::vector<SoftNeighbour> Neighbours(std::vector<std::string> query,
                                        const WordNeighbourSettings& settings) const {
    return WordNeighbours(vectors_.get(), &cache_, indexes_, query, settings);
  }

  engram::testing::TempDir dir_{"engram_word_neighbours_test"};
  std::shared_ptr<const lexicon::WordVectors> vectors_;
  index::Bm25Index index_;
  std::vector<const index::Bm25Index*> indexes_;
  mutable WordNeighbourCache cache_;
};

auto Is(const std::string& query_term, const std::string& term, double similarity) {
  return ::testing::AllOf(Field(&SoftNeighbour::query_term, query_term),
                          Field(&SoftNeighbour::term, term),
                          Field(&SoftNeighbour::similarity, DoubleNear(similarity, 0.01)));
}

TEST_F(WordNeighboursTest, NeighboursAboveTheThresholdScaledByTheWeight) {
  const std::vector<std::string> query = {"pet"};
  EXPECT_THAT(Neighbours(query, {.threshold = 0.6, .per_term = 3}),
              ElementsAre(Is("pet", "dog", 0.9), Is("pet", "cat", 0.8)));
  // Half weight: a neighbour counts half its cosine, the threshold still applies to the cosine.
  EXPECT_THAT(Neighbours(query, {.threshold = 0.85, .per_term = 3, .weight = 0.5}),
              ElementsAre(Is("pet", "dog", 0.45)));
  EXPECT_THAT(Neighbours(query, {.threshold = 0, .per_term = 3}), IsEmpty());
}

TEST_F(WordNeighboursTest, AbsentOnlyExpandsOnlyTheQueryTermsTheMemoryLacks) {
  // "dog" is a query term, so it is never a neighbour (it is matched as itself).
  const std::vector<std::string> query = {"dog", "pet"};
  // Every query term: "dog" (in the memory) also gets "cat".
  EXPECT_THAT(Neighbours(query, {.threshold = 0.6, .per_term = 3}),
              ElementsAre(Is("dog", "cat", 0.72), Is("pet", "cat", 0.8)));
  // Absent only: only "pet", which the memory lacks, is expanded.
  EXPECT_THAT(Neighbours(query, {.threshold = 0.6, .per_term = 3, .absent_only = true}),
              ElementsAre(Is("pet", "cat", 0.8)));
  // Nothing absent: nothing to expand.
  EXPECT_THAT(Neighbours({"dog", "cat"}, {.threshold = 0.6, .per_term = 3, .absent_only = true}),
              IsEmpty());
}

}  // namespace
}  // namespace engram::read
