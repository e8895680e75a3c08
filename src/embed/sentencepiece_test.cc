// Tests for SentencePieceTokenizer: hand-made vocabularies for each rule of the algorithm, and the
// real USE-lite vocabulary against the token ids of the original tokenizer (golden file).
#include "embed/sentencepiece.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "embed/embed_test_util.h"
#include "engram/testing/status_matchers.h"

namespace engram::embed {
namespace {

using ::engram::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// Entries 0..5 are the reserved ones of the real vocabulary; pieces start at id 6.
std::string TinyVocabulary(const std::string& pieces) {
  return R"([["\ufffd",0],["<s>",0],["</s>",0],["extra_token_id_1",0],["extra_token_id_2",0],)"
         R"(["extra_token_id_3",0],)" +
         pieces + "]";
}

SentencePieceTokenizer MakeTokenizer(const std::string& pieces) {
  StatusOr<SentencePieceTokenizer> tokenizer =
      SentencePieceTokenizer::FromVocabJson(TinyVocabulary(pieces));
  EXPECT_TRUE(tokenizer.ok()) << tokenizer.status();
  return std::move(tokenizer).value();
}

TEST(SentencePieceTest, PrefersHigherScoringSegmentation) {
  // ids: ▁ab = 6, ▁a = 7, b = 8, ▁abc = 9, c = 10, ▁ = 11.
  const auto tokenizer =
      MakeTokenizer(R"(["▁ab",-1.0],["▁a",-1.0],["b",-1.0],["▁abc",-5.0],["c",-1.0],["▁",-2.0])");
  EXPECT_THAT(tokenizer.Encode("ab"), ElementsAre(6));        // ▁ab (-1) beats ▁a + b (-2)
  EXPECT_THAT(tokenizer.Encode("abc"), ElementsAre(6, 10));   // ▁ab + c (-2) beats ▁abc (-5)
  EXPECT_THAT(tokenizer.Encode("ab ab"), ElementsAre(6, 6));  // the space becomes ▁
}

TEST(SentencePieceTest, LaterCandidateWinsTies) {
  // "▁ab" (-2) ties with "▁a" + "b" (-1 + -1); the shorter last piece is visited later and wins.
  const auto tokenizer =
      MakeTokenizer(R"(["▁ab",-2.0],["▁a",-1.0],["b",-1.0],["▁",-5.0],["a",-5.0])");
  EXPECT_THAT(tokenizer.Encode("ab"), ElementsAre(7, 8));
}

// The reference treats a best score of exactly 0 as "unset", and unknown characters score 0, so an
// unknown-character path beats any scored piece ending at the same position. Expected ids below
// were produced by the original JavaScript tokenizer with the same vocabularies.
TEST(SentencePieceTest, ReproducesZeroScoreQuirkOfReference) {
  const auto tokenizer = MakeTokenizer(R"(["▁ab",-2.0],["▁a",-1.0],["b",-1.0])");
  EXPECT_THAT(tokenizer.Encode("ab"), ElementsAre(0, 8));
  const auto no_singles = MakeTokenizer(R"(["▁fi",-1.0])");
  EXPECT_THAT(no_singles.Encode("fi"), ElementsAre(0));
}

TEST(SentencePieceTest, UnknownCharactersBecomeOneUnknownId) {
  const auto tokenizer = MakeTokenizer(R"(["▁",-1.0],["a",-1.0])");
  // "▁" "a" then x, y, z unknown (collapsed into one 0), then "a".
  EXPECT_THAT(tokenizer.Encode("axyza"), ElementsAre(6, 7, 0, 7));
  EXPECT_THAT(tokenizer.Encode("\t\n"), ElementsAre(6, 0));  // only U+0020 becomes ▁
}

TEST(SentencePieceTest, EmptyTextHasNoTokensButSpacesDo) {
  const auto tokenizer = MakeTokenizer(R"(["▁",-1.0],["a",-1.0])");
  EXPECT_THAT(tokenizer.Encode(""), IsEmpty());
  EXPECT_THAT(tokenizer.Encode("  "), ElementsAre(6, 6, 6));
}

TEST(SentencePieceTest, NormalizesWithNfkc) {
  // ids: ▁fi = 6, ▁ = 7, f = 8, i = 9, é = 10, 1 = 11.
  const auto tokenizer =
      MakeTokenizer(R"(["▁fi",-1.0],["▁",-5.0],["f",-5.0],["i",-5.0],["é",-5.0],["1",-5.0])");
  EXPECT_THAT(tokenizer.Encode("\xef\xac\x81"), ElementsAre(6));      // U+FB01 "ﬁ" → "fi"
  EXPECT_THAT(tokenizer.Encode("e\xcc\x81"), ElementsAre(7, 10));     // e + U+0301 → é
  EXPECT_THAT(tokenizer.Encode("\xef\xbc\x91"), ElementsAre(7, 11));  // full-width 1 → 1
  EXPECT_THAT(tokenizer.Encode("\xc2\xa0"), ElementsAre(7, 7));       // NBSP → space → ▁
  EXPECT_EQ(NormalizeNfkc("\xc2\xa0"), U" ");
}

TEST(SentencePieceTest, InvalidUtf8BecomesUnknown) {
  const auto tokenizer = MakeTokenizer(R"(["▁a",-1.0],["a",-1.0])");
  // Same ids as the reference gives for "a\uFFFD\uFFFDa".
  EXPECT_THAT(tokenizer.Encode("a\xff\xfe"
                               "a"),
              ElementsAre(0, 7, 0, 7));
  EXPECT_EQ(NormalizeNfkc("\xc3"), U"\uFFFD");  // truncated sequence
}

TEST(SentencePieceTest, LaterDuplicatePieceWins) {
  const auto tokenizer = MakeTokenizer(R"(["▁x",-1.0],["▁x",-3.0],["▁",-10.0],["x",-10.0])");
  EXPECT_THAT(tokenizer.Encode("x"), ElementsAre(7));
}

TEST(SentencePieceTest, NullScoreCountsAsZero) {
  // "▁:" totals 0, which the reference takes for "unset", so "▁" + ":" (-2) replaces it. Same
  // ids as the reference gives for this vocabulary.
  const auto tokenizer = MakeTokenizer(R"(["▁:",null],["▁",-1.0],[":",-1.0])");
  EXPECT_THAT(tokenizer.Encode(":"), ElementsAre(7, 8));
}

TEST(SentencePieceTest, ReservedEntriesAreNeverProduced) {
  const auto tokenizer = MakeTokenizer(R"(["▁",-1.0])");
  EXPECT_THAT(tokenizer.Encode("<s>"), ElementsAre(6, 0));
}

TEST(SentencePieceTest, RejectsMalformedVocabulary) {
  EXPECT_THAT(SentencePieceTokenizer::FromVocabJson("[[\"a\", 0"),
              StatusIs(StatusCode::kCorruption, HasSubstr("not valid JSON")));
  EXPECT_THAT(SentencePieceTokenizer::FromVocabJson("{}"), StatusIs(StatusCode::kCorruption));
  EXPECT_THAT(SentencePieceTokenizer::FromVocabJson(TinyVocabulary(R"(["a","not a score"])")),
              StatusIs(StatusCode::kCorruption, HasSubstr("entry 6")));
}

// The real vocabulary must reproduce the original tokenizer's ids for every golden sentence.
TEST(SentencePieceTest, MatchesOriginalTokenizerOnGoldenSentences) {
  const std::string vocab_path = testing::InstalledModelDir() + "/vocab.json";
  std::ifstream stream(vocab_path);
  ASSERT_TRUE(stream.good()) << vocab_path << " is missing. " << testing::kInstallHint;
  std::stringstream contents;
  contents << stream.rdbuf();
  StatusOr<SentencePieceTokenizer> tokenizer =
      SentencePieceTokenizer::FromVocabJson(contents.str());
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.status();
  EXPECT_EQ(tokenizer->vocabulary_size(), 8000u);

  const std::vector<testing::GoldenCase> cases = testing::LoadGoldenCases();
  ASSERT_GE(cases.size(), 50u) << "cannot read " << testing::GoldenPath();
  for (const testing::GoldenCase& golden : cases) {
    EXPECT_EQ(tokenizer->Encode(golden.text), golden.token_ids)
        << "text: \"" << golden.text << "\"";
  }
}

}  // namespace
}  // namespace engram::embed
