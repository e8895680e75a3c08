// Tests for engram_text: normalisation, stemming, stopwords and the tokenizer (offsets,
// possessives, numbers, CJK, invalid UTF-8, long input, concurrent use).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <ostream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "core/utf8.h"
#include "engram/testing/status_matchers.h"
#include "text/normalize.h"
#include "text/similarity.h"
#include "text/stemmer.h"
#include "text/stopwords.h"
#include "text/tokenizer.h"

namespace engram::text {
namespace {

using ::engram::testing::IsOk;
using ::engram::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

}  // namespace

void PrintTo(const Token& token, std::ostream* os) {
  *os << "{\"" << token.term << "\", \"" << token.word << "\", " << token.begin << ", " << token.end
      << "}";
}

namespace {

std::vector<std::string> Words(const std::vector<Token>& tokens) {
  std::vector<std::string> words;
  for (const Token& token : tokens) words.push_back(token.word);
  return words;
}

// ---------------------------------------------------------------------------------------------
// Normalisation

TEST(NormalizeTest, CaseFoldsIncludingSharpS) {
  EXPECT_EQ(NormalizeForIndex("Straße"), "strasse");
  EXPECT_EQ(NormalizeForIndex("STRASSE"), "strasse");
  EXPECT_EQ(NormalizeForIndex("HeLLo World"), "hello world");
  EXPECT_EQ(KeyWords("new  york city"), (std::vector<std::string_view>{"new", "york", "city"}));
  EXPECT_TRUE(KeyWords("").empty());
  EXPECT_EQ(FirstKeyWord("new york city"), "new");
  EXPECT_EQ(FirstKeyWord("lisbon"), "lisbon");
  EXPECT_EQ(FirstKeyWord(""), "");
  EXPECT_EQ(NormalizeForIndex("ΣΊΣΥΦΟΣ"), "σισυφοσ");
}

TEST(NormalizeTest, AppliesNfkc) {
  EXPECT_EQ(NormalizeForIndex("\xEF\xAC\x81le"), "file");  // U+FB01 LATIN SMALL LIGATURE FI
  EXPECT_EQ(NormalizeForIndex("ＡＢＣ１２３"), "abc123");  // fullwidth forms
  EXPECT_EQ(NormalizeForIndex("\xE2\x91\xA0"), "1");       // U+2460 CIRCLED DIGIT ONE
}

TEST(NormalizeTest, StripsAccentsByDefault) {
  EXPECT_EQ(NormalizeForIndex("Café"), "cafe");
  EXPECT_EQ(NormalizeForIndex("cafe\xCC\x81"), "cafe");  // e + U+0301 COMBINING ACUTE
  EXPECT_EQ(NormalizeForIndex("naïve Zürich São Paulo"), "naive zurich sao paulo");
}

TEST(NormalizeTest, KeepsAccentsWhenAsked) {
  NormalizeOptions options;
  options.strip_marks = false;
  EXPECT_EQ(NormalizeForIndex("Café", options), "café");
  EXPECT_EQ(NormalizeForIndex("cafe\xCC\x81", options), "café");  // composed by NFKC
}

TEST(NormalizeTest, RemovesIgnorablesAndUnifiesApostrophes) {
  EXPECT_EQ(NormalizeForIndex("co\xC2\xADoperate"), "cooperate");  // soft hyphen
  EXPECT_EQ(NormalizeForIndex("don\xE2\x80\x99t"), "don't");       // U+2019
}

TEST(NormalizeTest, AsciiFastPathAgreesWithUtf8proc) {
  // Appending "é" sends the text through utf8proc; the ASCII prefix must come out the same.
  for (int byte = 0; byte < 0x80; ++byte) {
    const std::string ascii(1, static_cast<char>(byte));
    EXPECT_EQ(NormalizeForIndex(ascii + "é"), NormalizeForIndex(ascii) + "e") << byte;
  }
}

TEST(NormalizeTest, IsIdempotent) {
  for (const std::string_view text :
       {"Straße", "\xEF\xAC\x81", "Café", "ΣΊΣΥΦΟΣ", "東京タワー", "ＡＢＣ", "don’t", "Ǆ ǅ ǆ"}) {
    const std::string once = NormalizeForIndex(text);
    EXPECT_EQ(NormalizeForIndex(once), once) << text;
  }
}

TEST(NormalizeTest, InvalidUtf8IsReplacedDeterministically) {
  const std::string invalid =
      "A\xFF\xFE"
      "b\xC3";  // stray bytes and a truncated sequence
  const std::string normalized = NormalizeForIndex(invalid);
  EXPECT_EQ(normalized,
            "a\xEF\xBF\xBD\xEF\xBF\xBD"
            "b\xEF\xBF\xBD");
  EXPECT_TRUE(core::IsValidUtf8(normalized));
  EXPECT_EQ(NormalizeForIndex(invalid), normalized);
  EXPECT_EQ(SanitizeUtf8("ok é"), "ok é");
  EXPECT_EQ(SanitizeUtf8("\xED\xA0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // surrogate
}

// ---------------------------------------------------------------------------------------------
// Stemmer and stopwords

TEST(StemmerTest, PorterTwoEnglish) {
  StatusOr<Stemmer> stemmer = Stemmer::Create("english");
  ASSERT_THAT(stemmer, IsOk());
  EXPECT_EQ(stemmer->Stem("running"), "run");
  EXPECT_EQ(stemmer->Stem("studies"), "studi");
  EXPECT_EQ(stemmer->Stem("moved"), "move");
  EXPECT_EQ(stemmer->Stem("generously"), "generous");
  EXPECT_EQ(stemmer->Stem(""), "");
  EXPECT_EQ(StemEnglish("running"), "run");
  EXPECT_EQ(StemEnglish("cats"), "cat");
}

TEST(StemmerTest, UnknownAlgorithmIsInvalidArgument) {
  EXPECT_THAT(Stemmer::Create("klingon"), StatusIs(StatusCode::kInvalidArgument));
}

TEST(StopwordsTest, ListIsSortedAndUnique) {
  const auto words = EnglishStopwords();
  EXPECT_GE(words.size(), 100u);
  EXPECT_LE(words.size(), 180u);
  EXPECT_TRUE(std::is_sorted(words.begin(), words.end()));
  EXPECT_EQ(std::adjacent_find(words.begin(), words.end()), words.end());
  for (const std::string_view word : words) EXPECT_EQ(NormalizeForIndex(word), word);
}

TEST(StopwordsTest, FunctionWordsInNegationsAndNamesOut) {
  for (const char* word : {"the", "a", "and", "is", "was", "she", "they", "of", "with", "i'm"}) {
    EXPECT_TRUE(IsStopword(word)) << word;
  }
  for (const char* word : {"not", "no", "never", "nor", "none", "nothing", "without", "don't",
                           "isn't", "can't", "may", "will", "us", "lisbon", ""}) {
    EXPECT_FALSE(IsStopword(word)) << word;
  }
}

// ---------------------------------------------------------------------------------------------
// Tokenizer

TEST(TokenizerTest, ExampleFromHeader) {
  const Tokenizer tokenizer;
  EXPECT_THAT(tokenizer.Tokenize("Caroline's running club"),
              ElementsAre(Token{"carolin", "caroline", 0, 8}, Token{"run", "running", 11, 18},
                          Token{"club", "club", 19, 23}));
}

TEST(TokenizerTest, OffsetsPointAtTheOriginalBytes) {
  const std::string text =
      "  Émilie moved to LISBON — in 2023!  She's \xE2\x80\x9C"
      "happy\xE2\x80\x9D, "
      "wirklich GRÖßER und ﬁt. 東京";
  const Tokenizer tokenizer(TokenizerOptions{.stem = false, .drop_stopwords = false});
  const std::vector<Token> tokens = tokenizer.Tokenize(text);
  ASSERT_FALSE(tokens.empty());
  for (const Token& token : tokens) {
    ASSERT_LT(token.begin, token.end);
    ASSERT_LE(token.end, text.size());
    EXPECT_EQ(NormalizeForIndex(text.substr(token.begin, token.end - token.begin)), token.word)
        << token.word;
  }
  EXPECT_THAT(Words(tokens), ElementsAre("emilie", "moved", "to", "lisbon", "in", "2023", "she",
                                         "happy", "wirklich", "grosser", "und", "fit", "東", "京"));
  EXPECT_EQ(text.substr(tokens[0].begin, tokens[0].end - tokens[0].begin), "Émilie");
  EXPECT_EQ(text.substr(tokens[6].begin, tokens[6].end - tokens[6].begin), "She");
  EXPECT_EQ(text.substr(tokens[9].begin, tokens[9].end - tokens[9].begin), "GRÖßER");
}

TEST(TokenizerTest, StemsAndDropsStopwords) {
  const Tokenizer tokenizer;
  EXPECT_THAT(tokenizer.Terms("The studies were running in the gardens"),
              ElementsAre("studi", "run", "garden"));
  const Tokenizer unstemmed(TokenizerOptions{.stem = false});
  EXPECT_THAT(unstemmed.Terms("The studies were running"), ElementsAre("studies", "running"));
  const Tokenizer keep_all(TokenizerOptions{.drop_stopwords = false});
  EXPECT_THAT(keep_all.Terms("The studies were running"),
              ElementsAre("the", "studi", "were", "run"));
}

TEST(TokenizerTest, KeepsNegations) {
  const Tokenizer tokenizer;
  EXPECT_THAT(tokenizer.Terms("I do not eat meat and never drink, no thanks"),
              ElementsAre("not", "eat", "meat", "never", "drink", "no", "thank"));
}

TEST(TokenizerTest, ApostrophesAndPossessives) {
  const Tokenizer tokenizer;
  EXPECT_THAT(Words(tokenizer.Tokenize("Caroline's dog doesn't bark; O'Brien’s cat don’t")),
              ElementsAre("caroline", "dog", "doesn't", "bark", "o'brien", "cat", "don't"));
  // A possessive drops from the token's span too; quotes around a word are not part of it.
  const std::string text = "O'Brien\xE2\x80\x99s 'quoted' students' 90's";
  const std::vector<Token> tokens = tokenizer.Tokenize(text);
  ASSERT_THAT(Words(tokens), ElementsAre("o'brien", "quoted", "students", "90"));
  EXPECT_EQ(text.substr(tokens[0].begin, tokens[0].end - tokens[0].begin), "O'Brien");
  EXPECT_EQ(text.substr(tokens[1].begin, tokens[1].end - tokens[1].begin), "quoted");
  EXPECT_EQ(tokens[2].term, "student");
  EXPECT_THAT(tokenizer.Terms("it's"), IsEmpty());  // "it" is a stopword
}

TEST(TokenizerTest, HyphensSplit) {
  const Tokenizer tokenizer;
  EXPECT_THAT(tokenizer.Terms("well-known e-mail state-of-the-art"),
              ElementsAre("well", "known", "e", "mail", "state", "art"));
}

TEST(TokenizerTest, NumbersStayWhole) {
  const Tokenizer tokenizer;
  EXPECT_THAT(tokenizer.Terms("In 2023 I paid 3.5 euros, then $3,500.75 for v1.2.3 and 1,234,567."),
              ElementsAre("2023", "paid", "3.5", "euro", "3500.75", "v1.2.3", "1234567"));
  EXPECT_THAT(tokenizer.Terms("1,2 and 3.x and 4. 10,0000"),
              ElementsAre("1", "2", "3", "x", "4", "10", "0000"));
  EXPECT_THAT(tokenizer.Terms("mp3 files, ２０２４"), ElementsAre("mp3", "file", "2024"));
}

TEST(TokenizerTest, EmojiAndPunctuationAreIgnored) {
  const Tokenizer tokenizer;
  EXPECT_THAT(
      tokenizer.Terms("I \xE2\x9D\xA4\xEF\xB8\x8F pizza!!! \xF0\x9F\x8D\x95\xF0\x9F\x8D\x95 "
                      "(really) -- #yum @bob ... \xF0\x9F\x91\xA8\xE2\x80\x8D\xF0\x9F\x92"
                      "\xBB"),
      ElementsAre("pizza", "realli", "yum", "bob"));
  EXPECT_THAT(tokenizer.Tokenize("!!! ... ??? \xF0\x9F\x98\x80"), IsEmpty());
  EXPECT_THAT(tokenizer.Tokenize(""), IsEmpty());
}

TEST(TokenizerTest, EachHanIdeographIsAToken) {
  const Tokenizer tokenizer;
  const std::string text = "我爱北京 and 東京タワー";
  const std::vector<Token> tokens = tokenizer.Tokenize(text);
  EXPECT_THAT(Words(tokens), ElementsAre("我", "爱", "北", "京", "東", "京", "タワー"));
  EXPECT_EQ(tokens[0].begin, 0u);
  EXPECT_EQ(tokens[0].end, 3u);
  EXPECT_EQ(tokens[3].begin, 9u);
  EXPECT_EQ(tokens[3].end, 12u);
  EXPECT_EQ(tokens[3].term, "京");
}

TEST(TokenizerTest, FormatCharactersJoinZeroWidthSpaceSplits) {
  const Tokenizer tokenizer(TokenizerOptions{.stem = false});
  EXPECT_THAT(tokenizer.Terms("co\xC2\xADoperate"), ElementsAre("cooperate"));
  EXPECT_THAT(tokenizer.Terms("alpha\xE2\x80\x8B"
                              "beta"),
              ElementsAre("alpha", "beta"));
}

TEST(TokenizerTest, LongWordsAreDropped) {
  const Tokenizer tokenizer(TokenizerOptions{.max_token_bytes = 8});
  EXPECT_THAT(tokenizer.Terms("short abcdefgh abcdefghi"), ElementsAre("short", "abcdefgh"));
  const Tokenizer default_tokenizer;
  EXPECT_THAT(default_tokenizer.Terms(std::string(65, 'x') + " kept"), ElementsAre("kept"));
}

TEST(TokenizerTest, InvalidUtf8NeverCrashes) {
  const Tokenizer tokenizer;
  EXPECT_THAT(tokenizer.Terms("abc\xFF\xFE"
                              "def \xC3 gh\xE2\x82 \xED\xA0\x80ij"),
              ElementsAre("abc", "def", "gh", "ij"));
  std::mt19937 random(42);
  std::uniform_int_distribution<int> byte(0, 255);
  std::uniform_int_distribution<int> length(0, 64);
  for (int round = 0; round < 5000; ++round) {
    std::string text(static_cast<std::size_t>(length(random)), '\0');
    for (char& ch : text) ch = static_cast<char>(byte(random));
    for (const Token& token : tokenizer.Tokenize(text)) {
      ASSERT_LT(token.begin, token.end);
      ASSERT_LE(token.end, text.size());
      ASSERT_FALSE(token.term.empty());
      ASSERT_TRUE(core::IsValidUtf8(token.word));
    }
  }
}

std::string LongText(std::size_t bytes) {
  const std::string sentence =
      "Caroline's sister moved to Lisbon in May 2023 and doesn't miss the rain; "
      "she paid 3,500 euros for the flat near Café Aurora. 北京 ";
  std::string text;
  text.reserve(bytes + sentence.size());
  while (text.size() < bytes) text += sentence;
  return text;
}

// The same sentence repeated to a megabyte gives the sentence's tokens that many times (the
// tokenizer's speed is measured by BM_Tokenize in bench/micro_bench.cc).
TEST(TokenizerTest, OneMegabyteGivesTheSentenceTokensOncePerRepeat) {
  const std::string text = LongText(1 << 20);
  const Tokenizer tokenizer;
  const std::vector<Token> tokens = tokenizer.Tokenize(text);
  const std::vector<Token> one = tokenizer.Tokenize(LongText(1));
  const std::size_t repeats = (text.size() + LongText(1).size() - 1) / LongText(1).size();
  ASSERT_EQ(tokens.size(), one.size() * repeats);
  EXPECT_EQ(tokens.back().term, one.back().term);
  EXPECT_EQ(tokens.back().end, text.size() - LongText(1).size() + one.back().end);
  // One unbroken megabyte of letters is dropped as too long.
  EXPECT_THAT(tokenizer.Tokenize(std::string(1 << 20, 'a')), IsEmpty());
}

TEST(TokenizerTest, ConcurrentTokenizeGivesIdenticalResults) {
  const Tokenizer tokenizer;
  std::vector<std::string> texts;
  for (int index = 0; index < 50; ++index) {
    texts.push_back(LongText(2000 + 97 * static_cast<std::size_t>(index)) + " running studies");
  }
  std::vector<std::vector<Token>> expected;
  for (const std::string& text : texts) expected.push_back(tokenizer.Tokenize(text));

  constexpr int kThreads = 4;
  std::vector<std::vector<std::vector<Token>>> results(kThreads);
  std::vector<std::thread> threads;
  for (int thread_index = 0; thread_index < kThreads; ++thread_index) {
    threads.emplace_back([&, thread_index] {
      for (int round = 0; round < 5; ++round) {
        results[static_cast<std::size_t>(thread_index)].clear();
        for (const std::string& text : texts) {
          results[static_cast<std::size_t>(thread_index)].push_back(tokenizer.Tokenize(text));
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (const auto& result : results) EXPECT_EQ(result, expected);
}

// Hand computations (m = matches, t = transpositions, l = common prefix):
//   martha / marhta:   m 6, t 1: jaro (6/6 + 6/6 + 5/6) / 3 = 0.944444; l 3: + 0.3 * 0.055556
//   dwayne / duane:    m 4, t 0: (4/6 + 4/5 + 1) / 3 = 0.822222; l 1: + 0.1 * 0.177778 = 0.84
//   dixon / dicksonx:  m 4, t 0: (4/5 + 4/8 + 1) / 3 = 0.766667; l 2: + 0.2 * 0.233333
//   melanie / melania: m 6, t 0: (6/7 + 6/7 + 1) / 3 = 0.904762; l 4: + 0.4 * 0.095238
//   jon / john:        m 3, t 0: (3/3 + 3/4 + 1) / 3 = 0.916667; l 2: + 0.2 * 0.083333
//   catherine / catharine: m 8, t 0: (8/9 + 8/9 + 1) / 3 = 0.925926; l 4: + 0.4 * 0.074074
//   filip / phillip:   m 4, t 0: (4/5 + 4/7 + 1) / 3 = 0.790476; l 0
TEST(JaroWinklerTest, HandComputedValues) {
  EXPECT_NEAR(Jaro("martha", "marhta"), 0.944444, 1e-6);
  EXPECT_NEAR(JaroWinkler("martha", "marhta"), 0.961111, 1e-6);
  EXPECT_NEAR(JaroWinkler("dwayne", "duane"), 0.84, 1e-6);
  EXPECT_NEAR(JaroWinkler("dixon", "dicksonx"), 0.813333, 1e-6);
  EXPECT_NEAR(JaroWinkler("melanie", "melania"), 0.942857, 1e-6);
  EXPECT_NEAR(JaroWinkler("jon", "john"), 0.933333, 1e-6);
  EXPECT_NEAR(JaroWinkler("catherine", "catharine"), 0.955556, 1e-6);
  EXPECT_NEAR(JaroWinkler("filip", "phillip"), 0.790476, 1e-6);
}

TEST(JaroWinklerTest, EdgeCases) {
  EXPECT_DOUBLE_EQ(JaroWinkler("", ""), 1.0);
  EXPECT_DOUBLE_EQ(JaroWinkler("abc", ""), 0.0);
  EXPECT_DOUBLE_EQ(JaroWinkler("abc", "xyz"), 0.0);
  EXPECT_DOUBLE_EQ(JaroWinkler("anna", "anna"), 1.0);
  EXPECT_DOUBLE_EQ(JaroWinkler("a", "a"), 1.0);
  // Symmetric.
  EXPECT_DOUBLE_EQ(JaroWinkler("dixon", "dicksonx"), JaroWinkler("dicksonx", "dixon"));
  // Code points, not bytes: one differing accented letter out of four.
  EXPECT_NEAR(Jaro("josé", "josè"), (3.0 / 4 + 3.0 / 4 + 1) / 3, 1e-9);
}

TEST(PhoneticKeyTest, SoundexWithDigraphRewrites) {
  EXPECT_EQ(PhoneticKey("Phillip"), "F410");
  EXPECT_EQ(PhoneticKey("Filip"), "F410");
  EXPECT_EQ(PhoneticKey("Robert"), "R163");
  EXPECT_EQ(PhoneticKey("Rupert"), "R163");
  EXPECT_EQ(PhoneticKey("Knight"), "N230");   // KN -> N; H does not separate
  EXPECT_EQ(PhoneticKey("Wright"), "R230");   // WR -> R
  EXPECT_EQ(PhoneticKey("Jackson"), "J250");  // CK -> K
  EXPECT_EQ(PhoneticKey("Ashcraft"), "A261");
  EXPECT_EQ(PhoneticKey("new york"), "N000 Y620");
  EXPECT_EQ(PhoneticKey("東京"), "");
}

}  // namespace
}  // namespace engram::text
