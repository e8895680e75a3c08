// ClaimExcerpt: what a superseded or contradicted item's note quotes of the other claim's turn.
// (The stage itself runs on a real store: tests/integration/current_state_test.cc.)
#include "read/current_state.h"

#include <gtest/gtest.h>

#include <string>

namespace engram::read {
namespace {

TEST(ClaimExcerptTest, ShortTextIsKeptWithNewlinesAsSpaces) {
  EXPECT_EQ(ClaimExcerpt("I moved to Munich.\nI love it.", 200), "I moved to Munich. I love it.");
  EXPECT_EQ(ClaimExcerpt("", 10), "");
}

TEST(ClaimExcerptTest, LongTextIsCutOnACharacterBoundaryWithinTheBound) {
  EXPECT_EQ(ClaimExcerpt("abcdefghij", 8), "abcde...");
  // "ü" is two bytes; a cut inside it backs off to the byte before it.
  const std::string text = "abcd\xC3\xBC" "efgh";  // abcdüefgh, 10 bytes
  const std::string cut = ClaimExcerpt(text, 8);  // room for 5 bytes: "abcd" + half of ü
  EXPECT_EQ(cut, "abcd...");
  EXPECT_LE(cut.size(), 8u);
}

}  // namespace
}  // namespace engram::read
