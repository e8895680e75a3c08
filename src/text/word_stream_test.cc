// Tests of the shared word stream (word_stream.h): the contraction expander and the adverb list
// that the signal detectors and the rule fact extractor both read a turn through.
#include "text/word_stream.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string_view>
#include <vector>

namespace engram::text {
namespace {

using ::testing::ElementsAre;

std::vector<std::string_view> Expand(std::string_view word, std::string_view previous = "") {
  std::vector<std::string_view> out;
  ExpandContraction(word, previous, out);
  return out;
}

TEST(WordStreamTest, NegatedAuxiliariesBecomeTwoWords) {
  EXPECT_THAT(Expand("don't"), ElementsAre("do", "not"));
  EXPECT_THAT(Expand("wouldn't"), ElementsAre("would", "not"));
  EXPECT_THAT(Expand("can't"), ElementsAre("can", "not"));
  EXPECT_THAT(Expand("won't"), ElementsAre("will", "not"));
  EXPECT_THAT(Expand("cannot"), ElementsAre("can", "not"));
}

TEST(WordStreamTest, ChatSpellingsWithoutApostrophesExpandToo) {
  EXPECT_THAT(Expand("dont"), ElementsAre("do", "not"));
  EXPECT_THAT(Expand("im"), ElementsAre("i", "am"));
  EXPECT_THAT(Expand("ive"), ElementsAre("i", "have"));
  EXPECT_THAT(Expand("gonna"), ElementsAre("going", "to"));
  EXPECT_THAT(Expand("wanna"), ElementsAre("want", "to"));
}

TEST(WordStreamTest, AintAgreesWithItsSubject) {
  EXPECT_THAT(Expand("ain't", "i"), ElementsAre("am", "not"));
  EXPECT_THAT(Expand("ain't", "they"), ElementsAre("are", "not"));
  EXPECT_THAT(Expand("ain't", "it"), ElementsAre("is", "not"));
  EXPECT_THAT(Expand("ain't"), ElementsAre("is", "not"));
}

TEST(WordStreamTest, PronounSuffixesAndPossessives) {
  EXPECT_THAT(Expand("i'm"), ElementsAre("i", "am"));
  EXPECT_THAT(Expand("we're"), ElementsAre("we", "are"));
  EXPECT_THAT(Expand("you'll"), ElementsAre("you", "will"));
  EXPECT_THAT(Expand("she'd"), ElementsAre("she", "would"));
  EXPECT_THAT(Expand("it's"), ElementsAre("it", "is"));
  EXPECT_THAT(Expand("anna's"), ElementsAre("anna"));  // a possessive, not "is"
  EXPECT_THAT(Expand("sushi"), ElementsAre("sushi"));
  EXPECT_THAT(Expand("'s"), ElementsAre("'s"));  // nothing before the suffix: left alone
}

TEST(WordStreamTest, AdverbsBetweenSubjectAndVerb) {
  for (const char* adverb : {"really", "finally", "currently", "probably", "kinda", "recently"}) {
    EXPECT_TRUE(IsAdverb(adverb)) << adverb;
  }
  for (const char* word : {"love", "not", "never", "i", "moved", ""}) {
    EXPECT_FALSE(IsAdverb(word)) << word;
  }
}

}  // namespace
}  // namespace engram::text
