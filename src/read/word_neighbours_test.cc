// Word-vector soft matches (word_neighbours.h): the threshold, the weight that scales a
// neighbour below its query term, neighbours only for the query terms the memory lacks, and the
// cache of the scopes' vocabularies: the exhaustive search's neighbours after terms are added
// to or removed from an index between recalls, over several indexes, and under eviction.
#include "read/word_neighbours.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <string_view>
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

// A neighbour in more than max_df_share of the searched turns is left out, unless it is in at
// most kAlwaysKeptDf of them; the other neighbours of its query term stay.
TEST_F(WordNeighboursTest, NeighboursInTooManyTurnsAreLeftOut) {
  static_assert(WordNeighbourSettings::kDefaultMaxDfShare == 0.01);
  static_assert(WordNeighbourSettings::kAlwaysKeptDf == 3);
  // `docs` documents holding "walk": the first `dogs` also "dog", the next `cats` "cat".
  const auto index_of = [](std::uint64_t docs, std::uint64_t dogs, std::uint64_t cats) {
    index::Bm25Index built;
    for (std::uint64_t doc = 1; doc <= docs; ++doc) {
      std::vector<std::string> terms = {"walk"};
      if (doc <= dogs) {
        terms.push_back("dog");
      } else if (doc <= dogs + cats) {
        terms.push_back("cat");
      }
      built.Add(doc, terms);
    }
    return built;
  };
  // 500 docs: "dog" in 5 (1 %, kept), "cat" in 6 (1.2 %, left out).
  const index::Bm25Index large = index_of(500, 5, 6);
  const std::vector<const index::Bm25Index*> large_indexes = {&large};
  const std::vector<std::string> query = {"pet"};
  EXPECT_THAT(WordNeighbours(vectors_.get(), &cache_, large_indexes, query,
                             {.threshold = 0.6, .per_term = 3}),
              ElementsAre(Is("pet", "dog", 0.9)));
  // No cap: both.
  EXPECT_THAT(WordNeighbours(vectors_.get(), &cache_, large_indexes, query,
                             {.threshold = 0.6, .per_term = 3, .max_df_share = 1}),
              ElementsAre(Is("pet", "dog", 0.9), Is("pet", "cat", 0.8)));
  // A second index of 100 docs without them: 600 docs, "cat" in 1 %, kept.
  index::Bm25Index other;
  for (std::uint64_t doc = 1; doc <= 100; ++doc) other.Add(doc, std::vector<std::string>{"x"});
  const std::vector<const index::Bm25Index*> both = {&large, &other};
  EXPECT_THAT(
      WordNeighbours(vectors_.get(), &cache_, both, query, {.threshold = 0.6, .per_term = 3}),
      ElementsAre(Is("pet", "dog", 0.9), Is("pet", "cat", 0.8)));
  // A small scope: "dog" in 3 of 10 docs is kept, "cat" in 4 of 10 is not.
  const index::Bm25Index small = index_of(10, 3, 4);
  const std::vector<const index::Bm25Index*> small_indexes = {&small};
  EXPECT_THAT(WordNeighbours(vectors_.get(), &cache_, small_indexes, query,
                             {.threshold = 0.6, .per_term = 3}),
              ElementsAre(Is("pet", "dog", 0.9)));
}

// The exhaustive search's soft neighbours (WordVectors::Neighbours over the indexes' terms as
// strings), as WordNeighbours returns them with weight 1 and every query term searched.
std::vector<SoftNeighbour> Exhaustive(const lexicon::WordVectors& vectors,
                                      const std::vector<const index::Bm25Index*>& indexes,
                                      const std::vector<std::string>& query, double threshold,
                                      std::size_t per_term) {
  std::vector<std::string> distinct;
  for (const std::string& term : query) {
    if (std::find(distinct.begin(), distinct.end(), term) == distinct.end()) {
      distinct.push_back(term);
    }
  }
  std::vector<std::string_view> vocabulary;
  for (const index::Bm25Index* index : indexes) {
    index->ForEachTerm([&vocabulary](std::string_view term) { vocabulary.push_back(term); });
  }
  const auto lists = vectors.Neighbours(distinct, vocabulary, threshold, per_term);
  std::vector<SoftNeighbour> result;
  for (std::size_t q = 0; q < distinct.size(); ++q) {
    for (const lexicon::WordNeighbour& neighbour : lists[q]) {
      result.push_back({distinct[q], neighbour.term, neighbour.similarity});
    }
  }
  return result;
}

// Generated words in a few clusters, and two indexes that grow, shrink and are searched
// together between recalls.
class WordNeighbourCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::mt19937 random(11);
    std::normal_distribution<double> noise(0, 0.4);
    std::vector<std::pair<std::string, std::vector<double>>> words;
    for (std::size_t w = 0; w < 300; ++w) {
      // Words of letters only, made distinct by their spelling of w; the tokenizer stems them.
      std::string word = "w";
      for (std::size_t rest = w + 26; rest > 0; rest /= 26) {
        word.push_back(static_cast<char>('a' + rest % 26));
      }
      word += "ing";
      std::vector<double> vector(12, 0.0);
      vector[w % 4] = 2;
      for (double& x : vector) x += noise(random);
      words.emplace_back(word, vector);
    }
    auto opened = lexicon::WordVectors::Open(dir_.File("generated.bin", lexicon::VectorFile(words)));
    ASSERT_THAT(opened, IsOk());
    vectors_ = *std::move(opened);
    for (std::size_t row = 0; row < vectors_->size(); ++row) stems_.push_back(vectors_->term(row));
  }

  // A doc of `count` stems drawn from the generated ones, and a term without a vector.
  std::vector<std::string> Doc(std::mt19937& random, std::size_t count) const {
    std::vector<std::string> terms;
    for (std::size_t i = 0; i < count; ++i) terms.push_back(stems_[random() % stems_.size()]);
    terms.push_back("novector" + std::to_string(random() % 5));
    return terms;
  }

  // WordNeighbours through `cache` equals the exhaustive search, for a few queries.
  void ExpectExhaustive(WordNeighbourCache& cache,
                        const std::vector<const index::Bm25Index*>& indexes, std::mt19937& random,
                        const std::string& when) const {
    for (int round = 0; round < 3; ++round) {
      std::vector<std::string> query = Doc(random, 1 + random() % 4);
      const double threshold = 0.5 + 0.1 * static_cast<double>(random() % 4);
      const std::size_t per_term = 1 + random() % 4;
      const std::vector<SoftNeighbour> expected =
          Exhaustive(*vectors_, indexes, query, threshold, per_term);
      // The reference leaves no common neighbour out.
      EXPECT_EQ(WordNeighbours(vectors_.get(), &cache, indexes, query,
                               {.threshold = threshold, .per_term = per_term, .max_df_share = 1}),
                expected)
          << when;
      found_ += expected.size();
    }
  }

  engram::testing::TempDir dir_{"engram_word_neighbour_cache_test"};
  std::shared_ptr<const lexicon::WordVectors> vectors_;
  std::vector<std::string> stems_;
  mutable std::size_t found_ = 0;  // neighbours compared, so the tests do compare some
};

TEST_F(WordNeighbourCacheTest, TermsAddedBetweenRecallsExtendTheKeptVocabulary) {
  std::mt19937 random(5);
  index::Bm25Index index;
  const std::vector<const index::Bm25Index*> indexes = {&index};
  WordNeighbourCache cache;
  // An empty index: no neighbours, nothing kept to search.
  EXPECT_THAT(WordNeighbours(vectors_.get(), &cache, indexes, std::vector<std::string>{stems_[0]},
                             {.threshold = 0.5, .per_term = 3}),
              IsEmpty());
  for (std::uint64_t doc = 1; doc <= 12; ++doc) {
    index.Add(doc, Doc(random, 8));
    ExpectExhaustive(cache, indexes, random, "after doc " + std::to_string(doc));
  }
  const WordNeighbourCache::Stats stats = cache.stats();
  EXPECT_EQ(stats.gathered, 1u);   // the first, empty index
  EXPECT_EQ(stats.extended, 12u);  // each doc's new terms once...
  EXPECT_EQ(stats.reused, 12u * 3 - 12);  // ...and the same vocabulary for the other queries
  EXPECT_GT(found_, 50u);
}

TEST_F(WordNeighbourCacheTest, RemovedTermsGatherTheVocabularyAnew) {
  std::mt19937 random(6);
  index::Bm25Index index;
  const std::vector<const index::Bm25Index*> indexes = {&index};
  WordNeighbourCache cache;
  for (std::uint64_t doc = 1; doc <= 10; ++doc) index.Add(doc, Doc(random, 10));
  ExpectExhaustive(cache, indexes, random, "before");
  // Removing docs frees terms (and their ids, which later terms reuse).
  for (std::uint64_t doc = 2; doc <= 10; doc += 2) {
    ASSERT_TRUE(index.Remove(doc));
    ExpectExhaustive(cache, indexes, random, "removed doc " + std::to_string(doc));
    index.Add(100 + doc, Doc(random, 6));
    ExpectExhaustive(cache, indexes, random, "added doc " + std::to_string(100 + doc));
  }
  EXPECT_GE(cache.stats().gathered, 2u);
  EXPECT_GT(found_, 50u);
  index.Clear();
  const std::vector<std::string> query = {stems_[0], stems_[1]};
  EXPECT_THAT(WordNeighbours(vectors_.get(), &cache, indexes, query,
                             {.threshold = 0.5, .per_term = 3}),
              IsEmpty());
}

TEST_F(WordNeighbourCacheTest, SeveralIndexesAndEvictionKeepTheExhaustiveNeighbours) {
  std::mt19937 random(8);
  index::Bm25Index first;
  index::Bm25Index second;
  index::Bm25Index third;
  for (std::uint64_t doc = 1; doc <= 6; ++doc) {
    first.Add(doc, Doc(random, 12));
    second.Add(doc, Doc(random, 12));
    third.Add(doc, Doc(random, 12));
  }
  // Room for about one index: each use of another drops the least recently used.
  WordNeighbourCache cache(first.term_count() + 1);
  for (int round = 0; round < 3; ++round) {
    ExpectExhaustive(cache, {&first, &second}, random, "first and second");
    ExpectExhaustive(cache, {&third}, random, "third");
    second.Add(50 + round, Doc(random, 5));  // shared terms with the others, and new ones
    ExpectExhaustive(cache, {&second, &third, &first}, random, "all three");
  }
  EXPECT_GT(cache.stats().evicted, 0u);
  EXPECT_GT(found_, 50u);
}

}  // namespace
}  // namespace engram::read
