// Tests for the query frame (query_frame.h): shapes, names, time constraints, event anchors,
// currentness, polarity, person, answer type and frame words.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "read/query_frame.h"
#include "read/read_test_util.h"

namespace engram::read {
namespace {

using ::engram::read::testing::At;
using ::engram::read::testing::Frame;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(QueryFrameTest, ShapesFollowTheCueTable) {
  EXPECT_EQ(Frame("How many times did Caroline go hiking?").shape, QueryShape::kCount);
  EXPECT_EQ(Frame("When did Melanie paint a sunrise?").shape, QueryShape::kWhen);
  EXPECT_EQ(Frame("What year did John start surfing?").shape, QueryShape::kWhen);
  EXPECT_EQ(Frame("Can you recommend a book for my trip?").shape, QueryShape::kRecommendation);
  EXPECT_EQ(Frame("Give me a summary of our talks about work").shape, QueryShape::kSummary);
  EXPECT_EQ(Frame("Which did I buy first, the bike or the car?").shape, QueryShape::kOrdering);
  EXPECT_EQ(Frame("Where do I currently live?").shape, QueryShape::kCurrentState);
  EXPECT_EQ(Frame("Would Caroline enjoy a pottery class?").shape, QueryShape::kInference);
  EXPECT_EQ(Frame("Did Caroline go to the parade?").shape, QueryShape::kBoolean);
  EXPECT_EQ(Frame("What are Melanie's hobbies?").shape, QueryShape::kList);
  EXPECT_EQ(Frame("Where did Caroline move from?").shape, QueryShape::kFactoid);
  EXPECT_EQ(Frame("How many times did Caroline go hiking?").shape_reason, "\"how many\"");
}

// A wh-word, up to two modifiers, a plural noun and an auxiliary ask for several things; the
// rule knows no topic word.
TEST(QueryFrameTest, WhWordBeforeAPluralNounAsksForAList) {
  const QueryFrame books = Frame("What books has Tim read?");
  EXPECT_EQ(books.shape, QueryShape::kList);
  EXPECT_EQ(books.shape_reason, "wh-word + plural noun \"books\"");
  EXPECT_EQ(Frame("What instruments does Nate play?").shape, QueryShape::kList);
  EXPECT_EQ(Frame("What new hobbies did Jon pick up?").shape, QueryShape::kList);
  EXPECT_EQ(Frame("What cities has Gina visited?").shape, QueryShape::kList);
  EXPECT_EQ(Frame("What children's books does Mel read?").shape, QueryShape::kList);
  // One thing asked: a singular noun, a verb in the third person, a singular ending in "s".
  EXPECT_EQ(Frame("What book has Tim read?").shape, QueryShape::kFactoid);
  EXPECT_EQ(Frame("What makes Caroline happy?").shape, QueryShape::kFactoid);
  EXPECT_EQ(Frame("What bus does Tim take?").shape, QueryShape::kFactoid);
  EXPECT_EQ(Frame("What class did Tim teach?").shape, QueryShape::kFactoid);
  EXPECT_EQ(Frame("What does Tim read?").shape, QueryShape::kFactoid);
}

// The words come from the text module's tokenizer: normalised (a typographic apostrophe is
// ASCII, a possessive dropped) while names keep the capitals they were written with.
TEST(QueryFrameTest, WordsAreTheTokenizersWords) {
  EXPECT_THAT(Frame("Where did Caroline\u2019s sister move?").names, ElementsAre("Caroline"));
  EXPECT_TRUE(Frame("Why didn\u2019t Jon call?").negated);
  EXPECT_THAT(Frame("Did Jos\u00e9 visit the caf\u00e9?").names, ElementsAre("Jos\u00e9"));
}

TEST(QueryFrameTest, NamesSkipQuestionWordsMonthsAndI) {
  const QueryFrame frame =
      Frame("What did Caroline and Melanie's dog do in May 2023, as I recall?");
  EXPECT_THAT(frame.names, ElementsAre("Caroline", "Melanie"));
  EXPECT_THAT(Frame("Jon went where?").names, ElementsAre("Jon"));
  EXPECT_THAT(Frame("Did Gina open the store?").names, ElementsAre("Gina"));
}

TEST(QueryFrameTest, TimeConstraintsResolveAgainstTheQueryTime) {
  const QueryFrame frame = Frame("How many times did I go hiking last year?");
  ASSERT_EQ(frame.time_constraints.size(), 1u);
  EXPECT_EQ(frame.time_constraints[0].surface, "last year");
  EXPECT_EQ(frame.time_constraints[0].from, At("2023-01-01T00:00:00Z"));
  EXPECT_EQ(frame.time_constraints[0].to, At("2024-01-01T00:00:00Z"));
  EXPECT_EQ(frame.time_constraints[0].granularity, "year");
  EXPECT_THAT(Frame("Where did Caroline move from?").time_constraints, IsEmpty());
}

TEST(QueryFrameTest, EventAnchorsAreTimesGivenByEvents) {
  const QueryFrame after = Frame("How did Melanie feel after the accident?");
  ASSERT_EQ(after.event_anchors.size(), 1u);
  EXPECT_EQ(after.event_anchors[0].surface, "after the accident");
  EXPECT_FALSE(after.event_anchors[0].before);
  EXPECT_THAT(after.event_anchors[0].terms, ElementsAre("accid"));
  EXPECT_THAT(DescribeFrame(after), ::testing::HasSubstr(" event=\"after the accident\""));
  const QueryFrame before = Frame("Which city was John in before traveling to Chicago?");
  ASSERT_EQ(before.event_anchors.size(), 1u);
  EXPECT_TRUE(before.event_anchors[0].before);
  EXPECT_THAT(before.event_anchors[0].terms, ElementsAre("travel", "chicago"));
  // At most four words, ending at "when"; "prior to".
  const QueryFrame since =
      Frame("How many days had passed since I finished reading the novel when I met Ann?");
  ASSERT_EQ(since.event_anchors.size(), 1u);
  EXPECT_EQ(since.event_anchors[0].surface, "since i finished reading the");
  EXPECT_EQ(Frame("What did Jon do prior to the move?").event_anchors.at(0).surface,
            "prior to the move");
  // Dates are time constraints, not events; "since when" names nothing.
  EXPECT_THAT(Frame("What did Maria do the week before April 10, 2023?").event_anchors, IsEmpty());
  EXPECT_THAT(Frame("Since when does Jon paint?").event_anchors, IsEmpty());
  EXPECT_THAT(Frame("What did I do after?").event_anchors, IsEmpty());
  // At most kMaxEventAnchors.
  const QueryFrame many = Frame("after a1 and after b2 and after c3 and after d4 and after e5?");
  ASSERT_EQ(many.event_anchors.size(), kMaxEventAnchors);
  EXPECT_EQ(many.event_anchors.back().surface, "after d4");
}

TEST(QueryFrameTest, CurrentnessPolarityAndKeywords) {
  const QueryFrame current = Frame("What car do I drive now?");
  EXPECT_TRUE(current.current);
  EXPECT_FALSE(current.negated);
  EXPECT_TRUE(Frame("What did Caroline not like about camping?").negated);
  EXPECT_TRUE(Frame("Why didn't Jon go?").negated);
  const QueryFrame frame = Frame("Which paintings did Melanie paint, paintings of lakes?");
  std::vector<std::string> terms;
  for (const Keyword& keyword : frame.keywords) terms.push_back(keyword.term + "/" + keyword.word);
  EXPECT_THAT(terms, ElementsAre("paint/paintings", "melani/melanie", "lake/lakes"));
  EXPECT_THAT(DescribeFrame(Frame("How many trips last year?")),
              ::testing::HasSubstr("shape=count (\"how many\") time=\"last year\""));
}

TEST(QueryFrameTest, FirstPersonAndTheOtherPartysWords) {
  EXPECT_TRUE(Frame("How many doctor's appointments did I go to in March?").first_person);
  EXPECT_TRUE(Frame("What is the name of my dog?").first_person);
  EXPECT_TRUE(Frame("I\u2019m anxious about Tokyo, any tips?").first_person);
  EXPECT_FALSE(Frame("What did Caroline paint?").first_person);
  EXPECT_FALSE(Frame("Where did Jon go in May?").about_other_party);
  // "you" followed by a past tense: the question is about what the other party said.
  const QueryFrame recommended = Frame("What was the hotel you recommended to me?");
  EXPECT_TRUE(recommended.first_person);
  EXPECT_TRUE(recommended.about_other_party);
  EXPECT_TRUE(Frame("Remind me what you told me about Rome").about_other_party);
  // "need" is no past tense; a polite "can you" is no reference to what the other party said.
  EXPECT_FALSE(Frame("Do you need my address for the delivery?").about_other_party);
  EXPECT_FALSE(Frame("Can you suggest some accessories for my camera?").about_other_party);
  EXPECT_THAT(DescribeFrame(recommended), ::testing::HasSubstr("first_person about_other_party"));
}

TEST(QueryFrameTest, AnswerTypeFromTheQuestionWord) {
  EXPECT_EQ(Frame("When did Caroline go to the support group?").answer_type, AnswerType::kTime);
  EXPECT_EQ(Frame("What year did Jon open the studio?").answer_type, AnswerType::kTime);
  EXPECT_EQ(Frame("How many kids does Melanie have?").answer_type, AnswerType::kNumber);
  EXPECT_EQ(Frame("How old is Melanie's son?").answer_type, AnswerType::kNumber);
  EXPECT_EQ(Frame("How many months have passed since I visited a museum?").answer_type,
            AnswerType::kTime);
  EXPECT_EQ(Frame("How many days did the trip take?").answer_type, AnswerType::kTime);
  EXPECT_EQ(Frame("Where did Jon travel in May?").answer_type, AnswerType::kPlace);
  EXPECT_EQ(Frame("Who performed at the concert?").answer_type, AnswerType::kPerson);
  EXPECT_EQ(Frame("What did Caroline paint?").answer_type, AnswerType::kNone);
  // "how often" counts but asks for no number; the when cue wins over "who".
  EXPECT_EQ(Frame("How often does Gina dance?").answer_type, AnswerType::kNone);
  EXPECT_EQ(Frame("When did the friend who moved call?").answer_type, AnswerType::kTime);
  EXPECT_THAT(DescribeFrame(Frame("Where is the studio?")), ::testing::HasSubstr("answer=place"));
  EXPECT_THAT(DescribeFrame(Frame("What is it?")), ::testing::Not(::testing::HasSubstr("answer=")));
}

TEST(QueryFrameTest, FrameWordsLeaveTheLexicalTerms) {
  const QueryFrame elapsed =
      Frame("How many months have passed since I last visited a museum with a friend?");
  EXPECT_THAT(elapsed.frame_words, ElementsAre("many", "months", "passed", "since"));
  EXPECT_THAT(elapsed.terms, ElementsAre("last", "visit", "museum", "friend"));
  std::vector<std::string> keywords;
  for (const Keyword& keyword : elapsed.keywords) keywords.push_back(keyword.word);
  EXPECT_THAT(keywords, ElementsAre("last", "visited", "museum", "friend"));
  EXPECT_THAT(DescribeFrame(elapsed),
              ::testing::HasSubstr("frame_words=many,months,passed,since keywords=last,"));

  // "since" is a topic word when no time is asked for; time expressions stay.
  const QueryFrame count = Frame("How many postcards have I added since I started again?");
  EXPECT_THAT(count.frame_words, ElementsAre("many"));
  EXPECT_THAT(count.terms, ElementsAre("postcard", "ad", "sinc", "start"));
  EXPECT_THAT(Frame("Which book did I finish a week ago?").frame_words, IsEmpty());
  EXPECT_THAT(Frame("How long ago was Caroline's birthday?").frame_words, ElementsAre("ago"));
  // A request ("can you suggest") and currentness ("current") are no topic.
  const QueryFrame suggest =
      Frame("Can you suggest some accessories that would complement my current photography setup?");
  EXPECT_THAT(suggest.frame_words, ElementsAre("can", "suggest", "current"));
  EXPECT_THAT(suggest.terms, ElementsAre("accessori", "complement", "photographi", "setup"));
  // Past recommendations are the topic; list cues name it; a leading auxiliary is grammar.
  EXPECT_THAT(Frame("Which city did John recommend to Tim?").frame_words, IsEmpty());
  EXPECT_THAT(Frame("What activities does Melanie do?").frame_words, IsEmpty());
  EXPECT_THAT(Frame("Can Jon drive a truck?").frame_words, ElementsAre("can"));
  // Nothing but frame words: all of them stay; the option keeps them all.
  EXPECT_THAT(Frame("How many weeks passed?").terms, ElementsAre("mani", "week", "pass"));
  static const text::Tokenizer tokenizer;
  const QueryFrame kept = BuildQueryFrame(tokenizer, "Can you recommend a hotel?",
                                          At("2024-05-10T12:00:00Z"), {.drop_frame_words = false});
  EXPECT_THAT(kept.frame_words, ElementsAre("can", "recommend"));
  EXPECT_THAT(kept.terms, ElementsAre("can", "recommend", "hotel"));
}

}  // namespace
}  // namespace engram::read
