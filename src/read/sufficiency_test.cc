// Sufficiency verdicts on hand-made packed items: the question's words held together and by one
// item, the names it gives, the answer type it asks for, a contradicted best item.
#include "read/sufficiency.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace engram::read {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

class SufficiencyTest : public ::testing::Test {
 protected:
  Sufficiency Judge(const std::string& question, std::vector<RecallItem> packed,
                    std::vector<std::string> speakers = {"Iris"}) {
    const QueryFrame frame =
        BuildQueryFrame(tokenizer_, question, *ParseTimestamp("2024-09-01T00:00:00Z"));
    // Every term weighs the same: the shares are counts.
    std::vector<index::Bm25QueryTerm> weights;
    for (const std::string& term : frame.terms) weights.push_back({term, 1.0});
    return JudgeSufficiency(frame, packed, weights, speakers, &tokenizer_);
  }

  static RecallItem Item(std::string text, std::vector<Adjustment> adjustments = {}) {
    RecallItem item;
    item.speaker = "Iris";
    item.text = std::move(text);
    item.adjustments = std::move(adjustments);
    return item;
  }

  text::Tokenizer tokenizer_;
};

TEST_F(SufficiencyTest, NothingPackedIsInsufficient) {
  const Sufficiency judged = Judge("Where does Iris live?", {});
  EXPECT_EQ(judged.verdict, "insufficient");
  EXPECT_THAT(judged.reasons, ElementsAre("nothing in the memory matched the question"));
}

TEST_F(SufficiencyTest, AnItemHoldingTheQuestionsWordsAndItsAnswerTypeIsSufficient) {
  const Sufficiency judged =
      Judge("Where does Iris live?",
            {Item("I live in Munich now.", {{"answer_type", 1.3, "holds a place"}})});
  EXPECT_EQ(judged.verdict, "sufficient");
  EXPECT_TRUE(judged.reasons.empty());
  EXPECT_DOUBLE_EQ(judged.term_share, 1.0);
}

TEST_F(SufficiencyTest, NoneOfTheWordsIsInsufficientNamingWhatIsMissing) {
  const Sufficiency judged =
      Judge("How long has she taken violin lessons with her teacher?", {Item("I love music.")});
  EXPECT_EQ(judged.verdict, "insufficient");
  ASSERT_EQ(judged.reasons.size(), 1u);
  EXPECT_THAT(judged.reasons[0], HasSubstr("of the question's words by weight (missing: "));
  EXPECT_THAT(judged.reasons[0], HasSubstr("violin"));
  EXPECT_EQ(judged.term_share, 0.0);
}

TEST_F(SufficiencyTest, SomeButLessThanHalfOfTheWordsIsPartial) {
  const Sufficiency judged =
      Judge("How long has Iris taken violin lessons with her teacher?", {Item("My violin.")});
  EXPECT_EQ(judged.verdict, "partial");
  ASSERT_EQ(judged.reasons.size(), 1u);
  EXPECT_THAT(judged.reasons[0], HasSubstr("missing: "));
  EXPECT_GT(judged.term_share, 0.0);
  EXPECT_LT(judged.term_share, 0.5);
}

TEST_F(SufficiencyTest, BestEvidenceSaidBySomeoneElseThanTheAskedSpeakerIsInsufficient) {
  QueryFrame frame = BuildQueryFrame(tokenizer_, "What did Caroline paint last summer?",
                                     *ParseTimestamp("2024-09-01T00:00:00Z"));
  frame.asked_speakers = {"Caroline"};  // RunRecall sets it from the memory's speakers
  std::vector<index::Bm25QueryTerm> weights;
  for (const std::string& term : frame.terms) weights.push_back({term, 1.0});
  const std::vector<std::string> speakers = {"Caroline", "Melanie"};
  RecallItem melanie = Item("I painted a sunset last summer, my favourite so far.");
  melanie.kind = NodeKind::kTurn;
  melanie.speaker = "Melanie";
  RecallItem caroline = melanie;
  caroline.speaker = "Caroline";
  const Sufficiency other = JudgeSufficiency(frame, std::vector<RecallItem>{melanie, caroline},
                                             weights, speakers, &tokenizer_);
  EXPECT_EQ(other.verdict, "insufficient");
  EXPECT_THAT(other.reasons, ElementsAre("the best evidence was said by Melanie, not by "
                                         "Caroline, whom the question asks about"));
  // Said by the person asked about: no such reason.
  const Sufficiency own = JudgeSufficiency(frame, std::vector<RecallItem>{caroline, melanie},
                                           weights, speakers, &tokenizer_);
  EXPECT_EQ(own.verdict, "sufficient") << ::testing::PrintToString(own.reasons);
}

TEST_F(SufficiencyTest, WordsSpreadOverItemsArePartial) {
  const Sufficiency judged =
      Judge("Did Iris buy a violin and a piano and a cello?",
            {Item("I bought a violin."), Item("A piano arrived."), Item("The cello is lovely.")});
  EXPECT_EQ(judged.verdict, "partial");
  EXPECT_THAT(judged.reasons[0], HasSubstr("no single item holds half"));
}

TEST_F(SufficiencyTest, ANameTheQuestionGivesThatNoItemMentionsIsInsufficient) {
  const Sufficiency judged =
      Judge("Did Iris ever live in Oslo?", {Item("I live in Munich, I never liked the north.")});
  EXPECT_EQ(judged.verdict, "insufficient");
  EXPECT_THAT(judged.reasons, ::testing::Contains("no packed item mentions Oslo"));
  // A speaker's name is no missing entity.
  EXPECT_THAT(Judge("Where does Iris live?", {Item("I live in Munich.")}).reasons,
              ::testing::Not(::testing::Contains(HasSubstr("Iris"))));
}

TEST_F(SufficiencyTest, WithoutATokenizerOnlyWhatNeedsNoWordsIsJudged) {
  const QueryFrame frame = BuildQueryFrame(tokenizer_, "Did Iris ever live in Oslo?",
                                           *ParseTimestamp("2024-09-01T00:00:00Z"));
  const std::vector<RecallItem> packed = {Item("I live in Munich.")};
  const std::vector<index::Bm25QueryTerm> weights = {{"oslo", 1.0}};
  const std::vector<std::string> speakers = {"Iris"};
  const Sufficiency judged = JudgeSufficiency(frame, packed, weights, speakers, nullptr);
  EXPECT_EQ(judged.verdict, "sufficient") << ::testing::PrintToString(judged.reasons);
  EXPECT_EQ(JudgeSufficiency(frame, {}, weights, speakers, nullptr).verdict, "insufficient");
}

TEST_F(SufficiencyTest, AnAskedAnswerTypeNoItemHoldsIsPartial) {
  const Sufficiency judged = Judge("When did Iris move to Munich?", {Item("I moved to Munich.")});
  EXPECT_EQ(judged.verdict, "partial");
  EXPECT_THAT(judged.reasons, ElementsAre("the question asks for a time; no packed item was "
                                          "found to hold one"));
}

TEST_F(SufficiencyTest, AContradictedBestItemIsPartial) {
  RecallItem best = Item("I moved to Berlin in March.", {{"answer_type", 1.3, "a place"}});
  best.conflicts.push_back({.id = "f2", .text = "I moved to Hamburg in March."});
  const Sufficiency judged = Judge("Where did Iris move in March?", {best});
  EXPECT_EQ(judged.verdict, "partial");
  EXPECT_THAT(judged.reasons,
              ElementsAre("the best item's claim is contradicted by another memory"));
}

}  // namespace
}  // namespace engram::read
