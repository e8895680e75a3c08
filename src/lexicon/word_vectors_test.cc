// Tests for WordVectors: the file layout (a tiny synthetic file written here), stem vectors,
// neighbours with thresholds, caps and ties, the search over gathered vocabularies against the
// exhaustive one on generated vocabularies (every code path), the int8 code paths against each
// other, the errors for missing, truncated and damaged files, the compiled cache (the same
// vectors and neighbours as without it; damaged, truncated and stale caches rebuilt), and the
// installed GloVe vectors
// (scripts/setup installs them; fails, never skips, without them, as the sentence encoder's tests
// do).
#include "lexicon/word_vectors.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/files.h"
#include "core/paths.h"
#include "engram/testing/status_matchers.h"
#include "engram/testing/temp_dir.h"
#include "lexicon/code_dot.h"
#include "lexicon/word_vectors_test_util.h"

namespace engram::lexicon {
namespace {

using ::engram::testing::IsOk;
using ::engram::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Four directions: "guitar" and "piano" close, "painting" and "paint" one stem, "the" a
// stopword, "violin" and "cello" the same vector (a tie).
std::string TinyFile() {
  return VectorFile({
      {"the", {1, 1, 1, 1}},
      {"guitar", {1, 0.2, 0, 0}},
      {"piano", {1, 0.3, 0, 0}},
      {"painting", {0, 0, 1, 0}},
      {"violin", {1, 0.5, 0, 0}},
      {"cello", {1, 0.5, 0, 0}},
      {"paint", {0, 0, 1, 0.2}},
      {"tax", {0, 0, 0, 1}},
  });
}

class WordVectorsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto opened = WordVectors::Open(dir_.File("tiny.bin", TinyFile()));
    ASSERT_THAT(opened, IsOk());
    vectors_ = *std::move(opened);
  }
  engram::testing::TempDir dir_{"engram_word_vectors_test"};
  std::shared_ptr<const WordVectors> vectors_;
};

TEST_F(WordVectorsTest, StemsHaveUnitVectorsAndStopwordsNone) {
  EXPECT_EQ(vectors_->dimensions(), 4u);
  // guitar, piano, paint (painting + paint), violin, cello, tax; "the" is a stopword.
  EXPECT_EQ(vectors_->size(), 6u);
  EXPECT_TRUE(vectors_->Find("the").empty());
  EXPECT_TRUE(vectors_->Find("painting").empty());  // surface words are not index terms
  ASSERT_EQ(vectors_->Find("paint").size(), 4u);
  double norm = 0;
  for (const float x : vectors_->Find("paint")) norm += x * x;
  EXPECT_NEAR(norm, 1.0, 1e-6);
  // "painting" (rank 3, weight 1/4) outweighs "paint" (rank 6, weight 1/7): the stem's vector
  // leans to (0, 0, 1, 0).
  const std::span<const float> paint = vectors_->Find("paint");
  const double lean =
      0.2 * (1.0 / 7) / std::hypot(1.0, 0.2) / (1.0 / 4 + (1.0 / 7) / std::hypot(1.0, 0.2));
  EXPECT_NEAR(paint[3] / paint[2], lean, 0.01);
  EXPECT_NEAR(vectors_->Similarity("guitar", "guitar"), 1.0, 1e-6);
  EXPECT_EQ(vectors_->Similarity("guitar", "nosuchword"), 0.0);
  EXPECT_NEAR(vectors_->Similarity("guitar", "tax"), 0.0, 0.01);
}

TEST_F(WordVectorsTest, NeighboursByThresholdCapAndTies) {
  const std::vector<std::string> query = {"guitar", "paint", "guitar", "nosuchword"};
  const std::vector<std::string_view> vocabulary = {"tax",    "cello", "piano", "violin",
                                                    "guitar", "paint", "piano", "unknown"};
  const auto neighbours = vectors_->Neighbours(query, vocabulary, 0.9, 2);
  ASSERT_EQ(neighbours.size(), 4u);
  // guitar: piano (closest), then the tied violin and cello, the smaller term first; capped at 2;
  // the query terms "guitar" and "paint" themselves are never neighbours.
  ASSERT_EQ(neighbours[0].size(), 2u);
  EXPECT_EQ(neighbours[0][0].term, "piano");
  EXPECT_EQ(neighbours[0][1].term, "cello");
  EXPECT_GT(neighbours[0][0].similarity, neighbours[0][1].similarity);
  EXPECT_GE(neighbours[0][1].similarity, 0.9);
  EXPECT_TRUE(neighbours[1].empty());       // paint: nothing that close
  EXPECT_EQ(neighbours[2], neighbours[0]);  // a repeated query term gets the same list
  EXPECT_TRUE(neighbours[3].empty());       // no vector
  // A higher threshold keeps only piano; per_term 0 keeps nothing.
  const auto strict = vectors_->Neighbours(query, vocabulary, 0.99, 5);
  ASSERT_EQ(strict[0].size(), 1u);
  EXPECT_EQ(strict[0][0].term, "piano");
  EXPECT_TRUE(vectors_->Neighbours(query, vocabulary, 0.5, 0)[0].empty());
  // A lower one reaches paint for tax? No: orthogonal directions stay apart.
  const std::vector<std::string> tax = {"tax"};
  EXPECT_THAT(vectors_->Neighbours(tax, vocabulary, 0.3, 5)[0], ::testing::IsEmpty());
}

TEST_F(WordVectorsTest, SameFileSameNeighbours) {
  auto again = WordVectors::Open(dir_.File("again.bin", TinyFile()));
  ASSERT_THAT(again, IsOk());
  const std::vector<std::string> query = {"guitar"};
  const std::vector<std::string_view> vocabulary = {"violin", "cello", "piano"};
  EXPECT_EQ((*again)->Neighbours(query, vocabulary, 0.5, 3),
            vectors_->Neighbours(query, vocabulary, 0.5, 3));
}

// The code paths this CPU runs (the scalar one everywhere).
std::vector<SimdPath> SupportedPaths() {
  std::vector<SimdPath> paths;
  for (const SimdPath path : {SimdPath::kScalar, SimdPath::kAvx2, SimdPath::kAvx512Vnni}) {
    if (SimdPathSupported(path)) paths.push_back(path);
  }
  return paths;
}

TEST(CodeDotTest, EveryPathGivesTheScalarSums) {
  std::mt19937 random(7);
  std::uniform_int_distribution<int> code(-127, 127);
  for (const std::size_t width : {4u, 100u, 128u, 300u}) {
    for (const std::size_t query_count : {1u, 3u, 4u, 6u, 9u}) {
      const std::size_t panel_count = 3;
      std::vector<std::int8_t> queries(query_count * width);
      std::vector<std::int8_t> panels(panel_count * internal::kPanelRows * width);
      // The extremes (where a saturating instruction would fail) and random codes.
      for (std::size_t i = 0; i < queries.size(); ++i) {
        queries[i] = static_cast<std::int8_t>(i % 5 == 0 ? -127 : i % 5 == 1 ? 127 : code(random));
      }
      for (std::size_t i = 0; i < panels.size(); ++i) {
        panels[i] = static_cast<std::int8_t>(i % 7 == 0 ? -127 : i % 7 == 1 ? 127 : code(random));
      }
      std::vector<std::int32_t> row_sums(panel_count * internal::kPanelRows, 0);
      std::vector<std::int32_t> expected(panel_count * query_count * internal::kPanelRows);
      for (std::size_t panel = 0; panel < panel_count; ++panel) {
        for (std::size_t k = 0; k < internal::kPanelRows; ++k) {
          const std::int8_t* codes = panels.data() + panel * internal::kPanelRows * width;
          for (std::size_t i = 0; i < width; ++i) {
            row_sums[panel * internal::kPanelRows + k] += codes[internal::PanelOffset(k, i)];
          }
          for (std::size_t q = 0; q < query_count; ++q) {
            std::int32_t sum = 0;
            for (std::size_t i = 0; i < width; ++i) {
              sum += queries[q * width + i] * codes[internal::PanelOffset(k, i)];
            }
            expected[(panel * query_count + q) * internal::kPanelRows + k] = sum;
          }
        }
      }
      for (const SimdPath path : SupportedPaths()) {
        std::vector<std::int32_t> out(expected.size(), -1);
        internal::PanelDots(path, queries.data(), query_count, panels.data(), row_sums.data(),
                            panel_count, width, out.data());
        EXPECT_EQ(out, expected) << SimdPathName(path) << " width " << width << " queries "
                                 << query_count;
      }
    }
  }
}

// A generated vocabulary: random words, clustered vectors (so that many pairs pass a
// threshold), some words sharing a vector (ties).
struct GeneratedVectors {
  std::shared_ptr<const WordVectors> vectors;
  std::vector<std::string> stems;  // every stem with a vector
};

GeneratedVectors Generate(engram::testing::TempDir& dir, std::uint32_t seed) {
  std::mt19937 random(seed);
  const std::size_t dimensions = std::vector<std::size_t>{3, 8, 50, 100}[seed % 4];
  const std::size_t word_count = 40 + seed % 200;
  std::normal_distribution<double> noise(0, 0.35);
  std::uniform_int_distribution<int> letter('a', 'z');
  std::vector<std::vector<double>> centres(1 + seed % 6, std::vector<double>(dimensions));
  for (auto& centre : centres) {
    for (double& x : centre) x = noise(random) / 0.35;
  }
  std::set<std::string> used;
  std::vector<std::pair<std::string, std::vector<double>>> words;
  while (words.size() < word_count) {
    std::string word;
    const std::size_t length = 5 + random() % 5;
    for (std::size_t i = 0; i < length; ++i) word.push_back(static_cast<char>(letter(random)));
    if (!used.insert(word).second) continue;
    std::vector<double> vector;
    if (!words.empty() && random() % 8 == 0) {
      vector = words[random() % words.size()].second;  // a tie
    } else {
      vector = centres[random() % centres.size()];
      for (double& x : vector) x += noise(random);
    }
    words.emplace_back(word, vector);
  }
  auto opened =
      WordVectors::Open(dir.File("generated" + std::to_string(seed) + ".bin", VectorFile(words)));
  EXPECT_THAT(opened, IsOk());
  GeneratedVectors generated;
  if (!opened.ok()) return generated;
  generated.vectors = *std::move(opened);
  for (std::size_t row = 0; row < generated.vectors->size(); ++row) {
    generated.stems.push_back(generated.vectors->term(row));
  }
  return generated;
}

TEST(VocabularySearchTest, SameNeighboursAsTheExhaustiveSearchOnGeneratedVocabularies) {
  engram::testing::TempDir dir("engram_vocabulary_search_test");
  std::size_t compared = 0;
  std::size_t found = 0;
  std::size_t at_threshold = 0;
  for (std::uint32_t seed = 1; seed <= 120; ++seed) {
    const GeneratedVectors generated = Generate(dir, seed);
    ASSERT_NE(generated.vectors, nullptr);
    const WordVectors& vectors = *generated.vectors;
    std::mt19937 random(seed * 31);
    const auto pick = [&]() -> const std::string& {
      return generated.stems[random() % generated.stems.size()];
    };
    // Two or three vocabularies drawn from the stems (overlapping), with terms that have no
    // vector and a term listed twice.
    std::vector<std::vector<std::string>> parts(2 + seed % 2);
    for (auto& part : parts) {
      const std::size_t size = seed % 10 == 0 ? 0 : random() % (generated.stems.size() + 1);
      for (std::size_t i = 0; i < size; ++i) part.push_back(pick());
      part.push_back("zzznovector");
    }
    std::vector<std::string> query;
    for (std::size_t i = 0; i < 1 + random() % 6; ++i) query.push_back(pick());
    query.push_back("qqnovector");
    query.push_back(query.front());  // a repeated query term
    const std::vector<std::string> excluded = {pick(), "nosuchterm"};
    // A threshold an existing pair's similarity equals exactly, or a drawn one.
    double threshold = std::uniform_real_distribution<double>(0.3, 0.95)(random);
    if (seed % 3 == 0) {
      const double similarity = vectors.Similarity(query.front(), pick());
      if (similarity > 0.05) {
        threshold = similarity;
        ++at_threshold;
      }
    }
    const std::size_t per_term = 1 + seed % 5;

    std::vector<VocabularyVectors> gathered;
    std::vector<std::string_view> union_terms;
    for (const auto& part : parts) {
      gathered.emplace_back(vectors);
      for (const std::string& term : part) {
        gathered.back().Add(term);
        if (std::find(excluded.begin(), excluded.end(), term) == excluded.end()) {
          union_terms.push_back(term);
        }
      }
    }
    std::vector<const VocabularyVectors*> searched;
    for (const VocabularyVectors& vocabulary : gathered) searched.push_back(&vocabulary);
    const auto expected = vectors.Neighbours(query, union_terms, threshold, per_term);
    for (const SimdPath path : SupportedPaths()) {
      EXPECT_EQ(vectors.Neighbours(query, searched, threshold, per_term, excluded, path), expected)
          << "seed " << seed << " path " << SimdPathName(path);
    }
    ++compared;
    for (const auto& list : expected) found += list.size();
  }
  // The generated cases do exercise neighbours and thresholds met exactly.
  EXPECT_EQ(compared, 120u);
  EXPECT_GT(found, 500u);
  EXPECT_GT(at_threshold, 20u);
}

TEST_F(WordVectorsTest, GatheredVocabularyFindsTiesAndTheThresholdItself) {
  VocabularyVectors vocabulary(*vectors_);
  for (const char* term : {"piano", "violin", "cello", "paint", "tax", "nosuchword", "piano"}) {
    vocabulary.Add(term);
  }
  EXPECT_EQ(vocabulary.size(), 6u);  // "nosuchword" has no vector; "piano" is listed twice
  const std::vector<std::string> query = {"guitar"};
  const VocabularyVectors* const vocabularies[] = {&vocabulary};
  // cello and violin tie (the smaller term first), and a threshold equal to their similarity
  // keeps both.
  const double cello = vectors_->Similarity("guitar", "cello");
  const auto neighbours = vectors_->Neighbours(query, vocabularies, cello, 5);
  ASSERT_EQ(neighbours.size(), 1u);
  ASSERT_EQ(neighbours[0].size(), 3u);
  EXPECT_EQ(neighbours[0][0].term, "piano");
  EXPECT_EQ(neighbours[0][1].term, "cello");
  EXPECT_EQ(neighbours[0][1].similarity, cello);
  EXPECT_EQ(neighbours[0][2].term, "violin");
  EXPECT_EQ(neighbours[0][2].similarity, cello);
  // Above their similarity by the least float step: only piano is left.
  const auto strict =
      vectors_->Neighbours(query, vocabularies, std::nextafter(static_cast<float>(cello), 2.0f), 5);
  ASSERT_EQ(strict[0].size(), 1u);
  EXPECT_EQ(strict[0][0].term, "piano");
  // An empty vocabulary, or none: no neighbours.
  const VocabularyVectors empty(*vectors_);
  const VocabularyVectors* const none[] = {&empty};
  EXPECT_THAT(vectors_->Neighbours(query, none, 0.3, 5)[0], ::testing::IsEmpty());
  EXPECT_THAT(vectors_->Neighbours(query, std::span<const VocabularyVectors* const>(), 0.3, 5)[0],
              ::testing::IsEmpty());
}

TEST(WordVectorsFileTest, MissingFileNamesItAndFetchModels) {
  const engram::testing::TempDir dir("engram_word_vectors_missing");
  auto loaded = WordVectors::Load(dir.path());
  EXPECT_THAT(loaded, StatusIs(StatusCode::kFailedPrecondition));
  EXPECT_THAT(loaded.status().message(), HasSubstr(dir.File("models/glove/glove-100d.bin")));
  EXPECT_THAT(loaded.status().message(), HasSubstr("scripts/fetch-models"));
}

TEST(WordVectorsFileTest, DamagedFilesAreCorruption) {
  const engram::testing::TempDir dir("engram_word_vectors_damaged");
  const std::string good = TinyFile();
  const auto open = [&dir](const std::string& bytes) {
    return WordVectors::Open(dir.File("damaged.bin", bytes));
  };
  const std::vector<std::pair<std::string, std::string>> damaged = {
      {good.substr(0, 10), "shorter than its header"},
      {good.substr(0, 40), "truncated before its words"},
      {good.substr(0, good.size() - 2), "bad length"},
      {good + "x", "bytes after the last word"},
      {"XNGRAMWV" + good.substr(8), "wrong magic"},
  };
  for (const auto& [bytes, reason] : damaged) {
    auto opened = open(bytes);
    EXPECT_THAT(opened, StatusIs(StatusCode::kCorruption)) << reason;
    EXPECT_THAT(opened.status().message(), HasSubstr(reason));
    EXPECT_THAT(opened.status().message(), HasSubstr("damaged.bin"));
  }
  std::string upper = good;
  upper[upper.size() - 1] = 'X';  // "tax" -> "taX"
  EXPECT_THAT(open(upper).status().message(), HasSubstr("not made of letters a-z"));
  std::string zero_scale = good;
  std::memset(zero_scale.data() + 24, 0, 4);
  EXPECT_THAT(open(zero_scale).status().message(), HasSubstr("bad scale"));
}

// Every row's term, vector, codes-derived neighbours: what a WordVectors gives, to compare two.
struct Snapshot {
  std::vector<std::string> terms;
  std::vector<float> vectors;
  std::vector<std::vector<WordNeighbour>> neighbours;
  friend bool operator==(const Snapshot&, const Snapshot&) = default;
};

Snapshot Take(const WordVectors& vectors) {
  Snapshot snapshot;
  std::vector<std::string_view> vocabulary;
  VocabularyVectors gathered(vectors);
  for (std::size_t row = 0; row < vectors.size(); ++row) {
    snapshot.terms.push_back(vectors.term(row));
    const std::span<const float> vector = vectors.Find(vectors.TermView(row));
    snapshot.vectors.insert(snapshot.vectors.end(), vector.begin(), vector.end());
    vocabulary.push_back(vectors.TermView(row));
    gathered.Add(vectors.TermView(row));
  }
  const VocabularyVectors* const vocabularies[] = {&gathered};
  snapshot.neighbours = vectors.Neighbours(snapshot.terms, vocabularies, 0.3, 3);
  const auto exhaustive = vectors.Neighbours(snapshot.terms, vocabulary, 0.3, 3);
  EXPECT_EQ(snapshot.neighbours, exhaustive);
  return snapshot;
}

TEST(WordVectorsCacheTest, FirstOpenWritesTheCacheAndLaterOpensMapTheSameVectors) {
  const engram::testing::TempDir dir("engram_word_vectors_cache");
  const std::string path = dir.File("tiny.bin", TinyFile());
  auto built = WordVectors::Open(path, WordVectors::Cache::kIgnore);
  ASSERT_THAT(built, IsOk());
  EXPECT_FALSE((*built)->from_cache());
  EXPECT_FALSE(std::filesystem::exists(WordVectors::CachePath(path)));  // kIgnore writes none

  auto first = WordVectors::Open(path);
  ASSERT_THAT(first, IsOk());
  EXPECT_FALSE((*first)->from_cache());
  EXPECT_TRUE(std::filesystem::exists(WordVectors::CachePath(path)));
  auto second = WordVectors::Open(path);
  ASSERT_THAT(second, IsOk());
  EXPECT_TRUE((*second)->from_cache());
  const Snapshot expected = Take(**built);
  EXPECT_EQ(expected.terms.size(), 6u);
  EXPECT_EQ(Take(**first), expected);
  EXPECT_EQ(Take(**second), expected);
  EXPECT_TRUE((*second)->Find("the").empty());
  EXPECT_TRUE((*second)->Find("nosuchword").empty());
}

TEST(WordVectorsCacheTest, ADamagedOrTruncatedCacheIsRebuiltNeverTrusted) {
  const engram::testing::TempDir dir("engram_word_vectors_cache_damaged");
  const std::string path = dir.File("tiny.bin", TinyFile());
  auto reference = WordVectors::Open(path, WordVectors::Cache::kIgnore);
  ASSERT_THAT(reference, IsOk());
  const Snapshot expected = Take(**reference);
  ASSERT_THAT(WordVectors::Open(path), IsOk());  // writes the cache
  const std::string cache_path = WordVectors::CachePath(path);
  auto cache = core::ReadWholeFile(cache_path, "cache");
  ASSERT_THAT(cache, IsOk());
  const std::string good = *cache;

  // One flipped bit in each part of the image (header, vectors, terms, tail), then a truncation.
  std::vector<std::string> damaged;
  for (const std::size_t at :
       {std::size_t{20}, std::size_t{100}, good.size() / 2, good.size() - 3}) {
    std::string flipped = good;
    flipped[at] = static_cast<char>(flipped[at] ^ 0x10);
    damaged.push_back(flipped);
  }
  damaged.push_back(good.substr(0, good.size() - 8));
  damaged.push_back("");
  for (std::size_t index = 0; index < damaged.size(); ++index) {
    dir.File("tiny.bin.compiled", damaged[index]);
    auto opened = WordVectors::Open(path);
    ASSERT_THAT(opened, IsOk()) << "damage " << index;
    EXPECT_FALSE((*opened)->from_cache()) << "damage " << index;
    EXPECT_EQ(Take(**opened), expected) << "damage " << index;
    // The rebuilt cache is whole again.
    EXPECT_EQ(*core::ReadWholeFile(cache_path, "cache"), good) << "damage " << index;
  }
}

TEST(WordVectorsCacheTest, AChangedSourceOrChecksumsFileMakesTheCacheStale) {
  const engram::testing::TempDir dir("engram_word_vectors_cache_stale");
  const std::string path = dir.File("words.bin", TinyFile());
  ASSERT_THAT(WordVectors::Open(path), IsOk());
  ASSERT_TRUE((*WordVectors::Open(path))->from_cache());
  // A new source with one more word: the cache of the old one is not used.
  const std::string changed = VectorFile({
      {"the", {1, 1, 1, 1}},
      {"guitar", {1, 0.2, 0, 0}},
      {"drum", {0, 1, 0, 0}},
  });
  dir.File("words.bin", changed);
  auto reopened = WordVectors::Open(path);
  ASSERT_THAT(reopened, IsOk());
  EXPECT_FALSE((*reopened)->from_cache());
  EXPECT_EQ((*reopened)->size(), 2u);
  EXPECT_FALSE((*reopened)->Find("drum").empty());
  EXPECT_TRUE((*reopened)->Find("piano").empty());
  ASSERT_TRUE((*WordVectors::Open(path))->from_cache());
  // A re-installed source (new SHA256SUMS beside it) also makes a new fingerprint.
  dir.File("SHA256SUMS", "0123  words.bin\n");
  auto reinstalled = WordVectors::Open(path);
  ASSERT_THAT(reinstalled, IsOk());
  EXPECT_FALSE((*reinstalled)->from_cache());
  EXPECT_EQ(Take(**reinstalled), Take(**reopened));
}

// The installed GloVe vectors (scripts/setup runs scripts/fetch-models).
TEST(InstalledWordVectorsTest, RelatedWordsAreNeighbours) {
  auto loaded = WordVectors::Load(core::ResolveDataDir(""));
  ASSERT_THAT(loaded, IsOk()) << "run scripts/setup (scripts/fetch-models) to install them";
  const WordVectors& vectors = **loaded;
  EXPECT_EQ(vectors.dimensions(), 100u);
  EXPECT_GT(vectors.size(), 50000u);
  // Index terms are Porter2 stems: "hobbies" -> "hobbi", "painting" -> "paint".
  ASSERT_FALSE(vectors.Find("hobbi").empty());
  EXPECT_GT(vectors.Similarity("guitar", "piano"), 0.6);
  EXPECT_LT(vectors.Similarity("guitar", "tax"), 0.2);
  const std::vector<std::string> query = {"guitar"};
  const std::vector<std::string_view> vocabulary = {"tax", "piano", "violin", "mortgag", "drum"};
  const auto neighbours = vectors.Neighbours(query, vocabulary, 0.5, 2);
  ASSERT_EQ(neighbours[0].size(), 2u);
  EXPECT_THAT((std::vector<std::string>{neighbours[0][0].term, neighbours[0][1].term}),
              ::testing::UnorderedElementsAre(::testing::AnyOf("piano", "violin", "drum"),
                                              ::testing::AnyOf("piano", "violin", "drum")));
}

}  // namespace
}  // namespace engram::lexicon
