// Tests for WordVectors: the file layout (a tiny synthetic file written here), stem vectors,
// neighbours with thresholds, caps and ties, the errors for missing, truncated and damaged files,
// and the installed GloVe vectors (scripts/setup installs them; fails, never skips, without them,
// as the sentence encoder's tests do).
#include "lexicon/word_vectors.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "core/paths.h"
#include "engram/testing/status_matchers.h"
#include "engram/testing/temp_dir.h"
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
  const double lean = 0.2 * (1.0 / 7) / std::hypot(1.0, 0.2) / (1.0 / 4 + (1.0 / 7) / std::hypot(1.0, 0.2));
  EXPECT_NEAR(paint[3] / paint[2], lean, 0.01);
  EXPECT_NEAR(vectors_->Similarity("guitar", "guitar"), 1.0, 1e-6);
  EXPECT_EQ(vectors_->Similarity("guitar", "nosuchword"), 0.0);
  EXPECT_NEAR(vectors_->Similarity("guitar", "tax"), 0.0, 0.01);
}

TEST_F(WordVectorsTest, NeighboursByThresholdCapAndTies) {
  const std::vector<std::string> query = {"guitar", "paint", "guitar", "nosuchword"};
  const std::vector<std::string_view> vocabulary = {"tax", "cello", "piano", "violin", "guitar",
                                                    "paint", "piano", "unknown"};
  const auto neighbours = vectors_->Neighbours(query, vocabulary, 0.9, 2);
  ASSERT_EQ(neighbours.size(), 4u);
  // guitar: piano (closest), then the tied violin and cello, the smaller term first; capped at 2;
  // the query terms "guitar" and "paint" themselves are never neighbours.
  ASSERT_EQ(neighbours[0].size(), 2u);
  EXPECT_EQ(neighbours[0][0].term, "piano");
  EXPECT_EQ(neighbours[0][1].term, "cello");
  EXPECT_GT(neighbours[0][0].similarity, neighbours[0][1].similarity);
  EXPECT_GE(neighbours[0][1].similarity, 0.9);
  EXPECT_TRUE(neighbours[1].empty());     // paint: nothing that close
  EXPECT_EQ(neighbours[2], neighbours[0]);  // a repeated query term gets the same list
  EXPECT_TRUE(neighbours[3].empty());     // no vector
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
