// Tests for the adjustments after fusion (adjust.h) with their exact scores: neighbour
// bonuses, person and first-person boosts, answerability and answer type.
#include "read/adjust.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "index/bm25/bm25_index.h"
#include "read/read_test_util.h"

namespace engram::read {
namespace {

using ::engram::read::testing::At;
using ::engram::read::testing::Candidate;
using ::engram::read::testing::Conversation;
using ::engram::read::testing::Frame;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(AdjustTest, NeighbourBonusesHaveExactScores) {
  const Conversation conversation;
  RecallConfig config;
  config.neighbour_seeds = 1;
  config.neighbour_radius = 2;
  config.neighbour_weight = 0.5;
  config.neighbour_decay = 0.5;
  std::vector<Ranked> ranked = {Candidate(3, 0.05), Candidate(4, 0.02), Candidate(8, 0.01)};
  EXPECT_EQ(ExpandNeighbours(ranked, conversation.layout, config), 3u);
  SortRanked(ranked);
  std::vector<std::pair<std::int64_t, double>> scores;
  for (const Ranked& candidate : ranked) scores.emplace_back(candidate.fused.row, candidate.score);
  ASSERT_EQ(scores.size(), 6u);
  EXPECT_EQ(scores[0], std::make_pair(std::int64_t{3}, 0.05));
  EXPECT_EQ(scores[1].first, 4);
  EXPECT_DOUBLE_EQ(scores[1].second, 0.045);
  EXPECT_EQ(scores[2].first, 2);
  EXPECT_DOUBLE_EQ(scores[2].second, 0.025);
  EXPECT_EQ(scores[3].first, 1);
  EXPECT_DOUBLE_EQ(scores[3].second, 0.0125);
  EXPECT_EQ(scores[4].first, 5);
  EXPECT_EQ(scores[5], std::make_pair(std::int64_t{8}, 0.01));
  ASSERT_EQ(ranked[1].adjustments.size(), 1u);
  EXPECT_EQ(ranked[1].adjustments[0].name, "neighbour");
  EXPECT_DOUBLE_EQ(ranked[1].adjustments[0].bonus, 0.025);
  EXPECT_EQ(ranked[1].adjustments[0].detail,
            "1 turn from seq 3 (score 0.0500) in its session: +0.0250");
  // Row 5 is in session s1 and row 6 in s2: the seed at row 5 gives nothing across the border.
  std::vector<Ranked> border = {Candidate(5, 0.04)};
  config.neighbour_radius = 1;
  EXPECT_EQ(ExpandNeighbours(border, conversation.layout, config), 1u);
  EXPECT_EQ(border.back().fused.row, 4);
  config.neighbour_weight = 0;
  std::vector<Ranked> off = {Candidate(3, 0.05)};
  EXPECT_EQ(ExpandNeighbours(off, conversation.layout, config), 0u);
  EXPECT_EQ(off.size(), 1u);
}

TEST(AdjustTest, PersonBoostMultipliesTheAskedSpeakersTurns) {
  const Conversation conversation;
  std::vector<Ranked> ranked = {Candidate(1, 0.04), Candidate(2, 0.05)};
  const std::vector<std::string> asked = {"Caroline"};
  ApplyPersonBoost(ranked, conversation.layout, asked, false, 1.5, 1.0);
  SortRanked(ranked);
  EXPECT_EQ(ranked[0].fused.row, 1);
  EXPECT_DOUBLE_EQ(ranked[0].score, 0.06);
  ASSERT_EQ(ranked[0].adjustments.size(), 1u);
  EXPECT_EQ(ranked[0].adjustments[0].factor, 1.5);
  EXPECT_THAT(ranked[1].adjustments, IsEmpty());
}

// Turns at rows 1..n of one session "s", all of role user.
std::vector<LayoutTurn> OneSession(std::int64_t n) {
  std::vector<LayoutTurn> turns;
  for (std::int64_t row = 1; row <= n; ++row) {
    LayoutTurn turn;
    turn.row = row;
    turn.scope_id = 1;
    turn.sequence = row;
    turn.session_id = "s";
    turns.push_back(turn);
  }
  return turns;
}

TEST(AdjustTest, FirstPersonBoostLiftsTheUsersTurnsWhenOtherRolesExist) {
  std::vector<LayoutTurn> turns = OneSession(4);
  for (LayoutTurn& turn : turns) turn.role = turn.row % 2 == 1 ? Role::kUser : Role::kAssistant;
  const TurnLayout dialog = TurnLayout::FromTurns(turns);
  std::vector<Ranked> ranked = {Candidate(1, 0.03), Candidate(2, 0.05)};
  ApplyPersonBoost(ranked, dialog, {}, true, 1.3, 2.0);
  SortRanked(ranked);
  EXPECT_EQ(ranked[0].fused.row, 1);
  EXPECT_DOUBLE_EQ(ranked[0].score, 0.06);
  ASSERT_EQ(ranked[0].adjustments.size(), 1u);
  EXPECT_EQ(ranked[0].adjustments[0].detail,
            "said by the user, whom the first-person question is about");
  EXPECT_THAT(ranked[1].adjustments, IsEmpty());
  // Not in the first person: nothing changes.
  std::vector<Ranked> third = {Candidate(1, 0.03), Candidate(2, 0.05)};
  ApplyPersonBoost(third, dialog, {}, false, 1.3, 2.0);
  EXPECT_DOUBLE_EQ(third[0].score, 0.03);
  // Every turn is the user's (two people chatting, both stored as users): nothing to tell apart.
  for (LayoutTurn& turn : turns) turn.role = Role::kUser;
  const TurnLayout users = TurnLayout::FromTurns(turns);
  std::vector<Ranked> same = {Candidate(1, 0.03)};
  ApplyPersonBoost(same, users, {}, true, 1.3, 2.0);
  EXPECT_DOUBLE_EQ(same[0].score, 0.03);
  EXPECT_THAT(same[0].adjustments, IsEmpty());
}

// The echo share: a turn whose query-term matches lie in its question is demoted by that share,
// even when most of its words do not ask, and its reply gets the answer weight.
TEST(AdjustTest, AnswerabilityEchoShareCountsQueryTermsInQuestions) {
  const text::Tokenizer tokenizer;
  std::vector<LayoutTurn> turns = OneSession(4);
  turns[1].asking_text =
      "Woah, it sounds like you are doing impressive work with the kids. What motivated you to "
      "pursue counseling?";
  turns[1].question_share = QuestionShare(turns[1].asking_text);
  ASSERT_LT(turns[1].question_share, 0.5f);
  const TurnLayout peers = TurnLayout::FromTurns(turns);
  RecallConfig config;
  config.question_penalty = 0.2;
  config.neighbour_weight = 0.2;
  config.neighbour_answer_weight = 0.8;
  config.neighbour_radius = 1;
  config.neighbour_seeds = 1;
  const std::vector<std::string> query =
      tokenizer.Terms("What motivated Caroline to pursue counseling?");
  std::vector<Ranked> ranked = {Candidate(2, 0.1)};
  ApplyAnswerability(ranked, peers, config, &tokenizer, query);
  // motivated, pursue, counseling: 3 of 3 matches in the question -> x (1 - 0.2 x 1).
  EXPECT_DOUBLE_EQ(ranked[0].score, 0.08);
  EXPECT_DOUBLE_EQ(ranked[0].asks, 1.0);
  EXPECT_EQ(ranked[0].adjustments[0].detail,
            "3 of its 3 query-term matches are in a question: x 0.8000");
  ExpandNeighbours(ranked, peers, config);
  SortRanked(ranked);
  ASSERT_EQ(ranked[1].fused.row, 3);
  EXPECT_DOUBLE_EQ(ranked[1].score, 0.8 * 0.08);

  // A query whose terms lie outside the question: share 0, no demotion.
  const std::vector<std::string> other = tokenizer.Terms("impressive work with kids");
  std::vector<Ranked> statement = {Candidate(2, 0.1)};
  ApplyAnswerability(statement, peers, config, &tokenizer, other);
  EXPECT_DOUBLE_EQ(statement[0].score, 0.1);
  EXPECT_DOUBLE_EQ(statement[0].asks, 0.0);
  EXPECT_TRUE(statement[0].adjustments.empty());

  // Without a tokenizer the question share of the words is used.
  std::vector<Ranked> plain = {Candidate(2, 0.1)};
  ApplyAnswerability(plain, peers, config);
  EXPECT_DOUBLE_EQ(plain[0].score, 0.1 * (1 - 0.2 * turns[1].question_share));
}

// With the turns' BM25 documents (DocumentTerms: the speaker's terms, then the text's) the
// matches in the whole text come from the postings, less the speaker's own: the same shares as
// tokenising the text, also when the question names the speaker.
TEST(AdjustTest, AnswerabilityReadsTheWholeTextsMatchesFromTheIndex) {
  const text::Tokenizer tokenizer;
  std::vector<LayoutTurn> turns = OneSession(4);
  turns[1].speaker = "Caroline";
  turns[1].asking_text =
      "Caroline here: I ran a charity race for mental health. Did you ever run a race, Mel?";
  turns[1].question_share = QuestionShare(turns[1].asking_text);
  const TurnLayout peers = TurnLayout::FromTurns(turns);
  index::Bm25Index bm25;
  std::vector<std::string> document = tokenizer.Terms(turns[1].speaker);
  for (std::string& term : tokenizer.Terms(turns[1].asking_text)) document.push_back(term);
  bm25.Add(2, document);
  const std::vector<const index::Bm25Index*> indexes = {nullptr, &bm25};
  RecallConfig config;
  config.question_penalty = 0.2;
  const std::vector<std::string> query = tokenizer.Terms("Did Caroline run a race?");
  std::vector<Ranked> tokenised = {Candidate(2, 0.1)};
  ApplyAnswerability(tokenised, peers, config, &tokenizer, query);
  std::vector<Ranked> indexed = {Candidate(2, 0.1)};
  ApplyAnswerability(indexed, peers, config, &tokenizer, query, indexes);
  // carolin (in the text; not the speaker's), race, run, race ("ran" stems apart): 4 matches
  // in the text, 2 of them in its question.
  ASSERT_EQ(indexed[0].adjustments.size(), 1u);
  EXPECT_EQ(indexed[0].adjustments[0].detail,
            "2 of its 4 query-term matches are in a question: x 0.9000");
  EXPECT_EQ(tokenised[0].adjustments[0].detail, indexed[0].adjustments[0].detail);
  EXPECT_DOUBLE_EQ(tokenised[0].score, indexed[0].score);
}

// Peers: every turn is role user. Turn 2 mostly asks; turn 3 replies.
TEST(AdjustTest, AnswerabilityDemotesQuestionsAndLiftsTheirReplies) {
  std::vector<LayoutTurn> turns = OneSession(4);
  turns[1].question_share = 1.0f;
  const TurnLayout peers = TurnLayout::FromTurns(turns);
  RecallConfig config;
  config.question_penalty = 0.3;
  config.neighbour_weight = 0.2;
  config.neighbour_answer_weight = 0.5;
  config.neighbour_radius = 1;
  config.neighbour_seeds = 1;
  std::vector<Ranked> ranked = {Candidate(2, 0.1)};
  ApplyAnswerability(ranked, peers, config);
  EXPECT_DOUBLE_EQ(ranked[0].score, 0.07);
  ASSERT_EQ(ranked[0].adjustments.size(), 1u);
  EXPECT_EQ(ranked[0].adjustments[0].name, "answerability");
  EXPECT_EQ(ranked[0].adjustments[0].detail, "100% of its words ask a question: x 0.7000");
  EXPECT_EQ(ExpandNeighbours(ranked, peers, config), 2u);
  SortRanked(ranked);
  // The reply (row 3) gets 0.5 x 0.07; the turn before (row 1) the usual 0.2 x 0.07.
  ASSERT_EQ(ranked.size(), 3u);
  EXPECT_EQ(ranked[0].fused.row, 2);
  EXPECT_EQ(ranked[1].fused.row, 3);
  EXPECT_DOUBLE_EQ(ranked[1].score, 0.035);
  EXPECT_EQ(ranked[1].adjustments[0].detail,
            "1 turn after the question at seq 2 (score 0.0700) in its session: +0.0350");
  EXPECT_EQ(ranked[2].fused.row, 1);
  EXPECT_DOUBLE_EQ(ranked[2].score, 0.2 * 0.07);

  // A user asking an assistant: neither adjustment applies.
  for (std::size_t i = 0; i < turns.size(); ++i) {
    turns[i].role = i % 2 == 0 ? Role::kAssistant : Role::kUser;
  }
  const TurnLayout dialog = TurnLayout::FromTurns(turns);
  std::vector<Ranked> asked = {Candidate(2, 0.1)};
  ApplyAnswerability(asked, dialog, config);
  EXPECT_DOUBLE_EQ(asked[0].score, 0.1);
  ExpandNeighbours(asked, dialog, config);
  SortRanked(asked);
  ASSERT_EQ(asked.size(), 3u);
  EXPECT_DOUBLE_EQ(asked[1].score, 0.02);
  EXPECT_DOUBLE_EQ(asked[2].score, 0.02);
}

TEST(AdjustTest, AnswerTypeLiftsTurnsHoldingWhatTheQuestionAsks) {
  const std::map<std::int64_t, std::string> texts = {
      {1, "We went hiking yesterday."},      // a date
      {2, "We went hiking with the kids."},  // nothing
      {3, "I have 3 kids and two dogs."},    // numbers
      {4, "Hiking is my favourite."},        // beyond the depth below
  };
  const TurnText turn_text = [&](std::int64_t row, std::string_view* text, Timestamp* time) {
    const auto found = texts.find(row);
    if (found == texts.end()) return false;
    *text = found->second;
    *time = At("2024-05-10T12:00:00Z");
    return true;
  };
  RecallConfig config;
  config.answer_type_boost = 1.5;
  config.answer_type_depth = 3;
  std::vector<Ranked> ranked = {Candidate(2, 0.05), Candidate(1, 0.04), Candidate(3, 0.03),
                                Candidate(4, 0.02), Candidate(9, 0.01)};
  ApplyAnswerType(ranked, AnswerType::kTime, turn_text, config);
  SortRanked(ranked);
  EXPECT_EQ(ranked[0].fused.row, 1);
  EXPECT_DOUBLE_EQ(ranked[0].score, 0.06);
  ASSERT_EQ(ranked[0].adjustments.size(), 1u);
  EXPECT_EQ(ranked[0].adjustments[0].name, "answer_type");
  EXPECT_EQ(ranked[0].adjustments[0].detail,
            "holds a time (\"yesterday\"), which the question asks for");
  EXPECT_DOUBLE_EQ(ranked[1].score, 0.05);  // row 2 unchanged
  EXPECT_TRUE(ranked[1].adjustments.empty());

  std::vector<Ranked> numbers = {Candidate(2, 0.05), Candidate(3, 0.04)};
  ApplyAnswerType(numbers, AnswerType::kNumber, turn_text, config);
  EXPECT_DOUBLE_EQ(numbers[1].score, 0.06);
  EXPECT_DOUBLE_EQ(numbers[0].score, 0.05);

  // Off: boost 1, or no answer type.
  config.answer_type_boost = 1.0;
  std::vector<Ranked> off = {Candidate(1, 0.04)};
  ApplyAnswerType(off, AnswerType::kTime, turn_text, config);
  EXPECT_DOUBLE_EQ(off[0].score, 0.04);
  config.answer_type_boost = 1.5;
  ApplyAnswerType(off, AnswerType::kNone, turn_text, config);
  EXPECT_DOUBLE_EQ(off[0].score, 0.04);
}

// With stored analyses the adjustment reads them instead of detecting: a turn is lifted for the
// signal its row holds (its surface cut from the text), and not for one only its text shows.
TEST(AdjustTest, AnswerTypeReadsTheTurnsStoredAnalysis) {
  const std::map<std::int64_t, std::string> texts = {
      {1, "We went hiking yesterday."},  // a date in the text, none in its row
      {2, "We went hiking in May."},     // the row holds the date
      {3, "I have 3 kids."},             // no row: detected in the text
  };
  const TurnText turn_text = [&](std::int64_t row, std::string_view* text, Timestamp* time) {
    *text = texts.at(row);
    *time = At("2024-05-10T12:00:00Z");
    return true;
  };
  std::map<std::int64_t, store::TurnAnalysis> rows;
  rows[1] = store::TurnAnalysis{};
  store::AnalysedSignal may;
  may.kind = "date";
  may.begin = 18;
  may.end = 21;
  may.value = "2024-05-01/2024-06-01";
  rows[2].signals.push_back(may);
  const StoredAnalysis stored = [&](std::int64_t row) -> const store::TurnAnalysis* {
    const auto found = rows.find(row);
    return found == rows.end() ? nullptr : &found->second;
  };
  RecallConfig config;
  config.answer_type_boost = 2.0;
  std::vector<Ranked> ranked = {Candidate(1, 0.03), Candidate(2, 0.02), Candidate(3, 0.01)};
  ApplyAnswerType(ranked, AnswerType::kTime, turn_text, config, Tense::kUnknown, stored);
  EXPECT_DOUBLE_EQ(ranked[0].score, 0.03);  // row 1: its row has no date
  EXPECT_DOUBLE_EQ(ranked[1].score, 0.04);
  ASSERT_EQ(ranked[1].adjustments.size(), 1u);
  EXPECT_EQ(ranked[1].adjustments[0].detail,
            "holds a time (\"May\"), which the question asks for");
  std::vector<Ranked> numbers = {Candidate(3, 0.01)};
  ApplyAnswerType(numbers, AnswerType::kNumber, turn_text, config, Tense::kUnknown, stored);
  EXPECT_DOUBLE_EQ(numbers[0].score, 0.02);  // detected in the text
}

TEST(AdjustTest, AnswerTypeTimeOnTheSideTheQuestionsTenseAsks) {
  EXPECT_EQ(Frame("When did Jon host a dance competition?").tense, Tense::kPast);
  EXPECT_EQ(Frame("How many months have passed since I visited a museum?").tense, Tense::kPast);
  EXPECT_EQ(Frame("When is Jon going to open the studio?").tense, Tense::kFuture);
  EXPECT_EQ(Frame("Where is the studio?").tense, Tense::kUnknown);
  EXPECT_EQ(Frame("Did we say what we will bring?").tense, Tense::kUnknown);  // both
  EXPECT_THAT(DescribeFrame(Frame("When did Jon go?")), ::testing::HasSubstr(" tense=past"));

  const std::map<std::int64_t, std::string> texts = {
      {1, "We go hiking next month."},     // after the turn
      {2, "We went hiking last month."},   // before it
      {3, "We are hiking today."},         // around it
      {4, "We meet at 5 pm for a hike."},  // a clock time: no side
  };
  const TurnText turn_text = [&](std::int64_t row, std::string_view* text, Timestamp* time) {
    *text = texts.at(row);
    *time = At("2024-05-10T12:00:00Z");
    return true;
  };
  RecallConfig config;
  config.answer_type_boost = 2.0;
  const auto boosted = [&](Tense tense) {
    std::vector<Ranked> ranked = {Candidate(1, 0.1), Candidate(2, 0.1), Candidate(3, 0.1),
                                  Candidate(4, 0.1)};
    ApplyAnswerType(ranked, AnswerType::kTime, turn_text, config, tense);
    std::vector<std::int64_t> rows;
    for (const Ranked& candidate : ranked) {
      if (candidate.score > 0.1) rows.push_back(candidate.fused.row);
    }
    return rows;
  };
  EXPECT_THAT(boosted(Tense::kPast), ElementsAre(2, 3, 4));
  EXPECT_THAT(boosted(Tense::kFuture), ElementsAre(1, 3, 4));
  EXPECT_THAT(boosted(Tense::kUnknown), ElementsAre(1, 2, 3, 4));
}

// A person the question names, or a speaker of the conversation, is not who a "who" question
// asks for: a turn holding only such names is not lifted; one naming someone else is, with that
// name as its evidence.
TEST(AdjustTest, AnswerTypeSkipsTheNamesTheQuestionGives) {
  const std::map<std::int64_t, std::string> texts = {
      {1, "Thanks, John! The class was great fun."},
      {2, "Thanks, John! My colleague Rob Miller invited me to the class."},
      {3, "Thanks, Maria! See you in class."},
  };
  const TurnText turn_text = [&](std::int64_t row, std::string_view* text, Timestamp* time) {
    *text = texts.at(row);
    *time = At("2024-05-10T12:00:00Z");
    return true;
  };
  RecallConfig config;
  config.answer_type_boost = 2.0;
  const auto lifted = [&](std::span<const std::string> given) {
    std::vector<Ranked> ranked = {Candidate(1, 0.1), Candidate(2, 0.1), Candidate(3, 0.1)};
    ApplyAnswerType(ranked, AnswerType::kPerson, turn_text, config, Tense::kUnknown, {}, given);
    std::vector<std::string> details;
    for (const Ranked& candidate : ranked) {
      for (const Adjustment& adjustment : candidate.adjustments) {
        details.push_back(std::to_string(candidate.fused.row) + ": " + adjustment.detail);
      }
    }
    return details;
  };
  const std::vector<std::string> given = {"JOHN", "María", "John"};  // case and accents aside
  EXPECT_THAT(lifted(given),
              ElementsAre("2: holds a person (\"Rob Miller\"), which the question asks for"));
  // Without given names every turn naming someone is lifted.
  EXPECT_THAT(lifted({}), ElementsAre(::testing::StartsWith("1: holds a person (\"John\")"),
                                      ::testing::StartsWith("2: holds a person (\"John\")"),
                                      ::testing::StartsWith("3: holds a person (\"Maria\")")));
}

// Coverage: a turn holding more of the question's terms, weighted by their idf, is lifted more;
// one holding none, or a candidate that is no turn of the layout, is left alone.
TEST(AdjustTest, CoverageLiftsTurnsByTheShareOfTheQuestionsTermsTheyHold) {
  const text::Tokenizer tokenizer;
  const std::vector<std::string> query = tokenizer.Terms("Who went to the yoga class with John?");
  ASSERT_THAT(query, ElementsAre("went", "yoga", "class", "john"));
  const std::vector<index::Bm25QueryTerm> terms = {
      {"went", 0.5}, {"yoga", 2.0}, {"class", 1.0}, {"john", 0.5}};
  index::Bm25Index first;   // rows 1 and 2: two scopes' turns in two indexes
  index::Bm25Index second;  // row 3
  first.Add(1, tokenizer.Terms("John and I love yoga; we went to a yoga class."));  // 4.0 of 4.0
  first.Add(2, tokenizer.Terms("Yoga is great."));                                  // 2.0 of 4.0
  second.Add(3, tokenizer.Terms("See you soon!"));                                  // none
  second.Add(9, tokenizer.Terms("Yoga class with John"));  // row 9: no turn of the layout
  const std::vector<const index::Bm25Index*> indexes = {&first, &second};
  const TurnLayout layout = TurnLayout::FromTurns(OneSession(3));
  RecallConfig config;
  config.coverage_weight = 0.4;
  config.answer_type_depth = 3;
  std::vector<Ranked> ranked = {Candidate(2, 0.1), Candidate(3, 0.1), Candidate(9, 0.1),
                                Candidate(1, 0.1)};  // row 1 beyond the depth
  ApplyCoverage(ranked, terms, layout, indexes, config);
  EXPECT_DOUBLE_EQ(ranked[0].score, 0.1 * 1.2);
  ASSERT_EQ(ranked[0].adjustments.size(), 1u);
  EXPECT_EQ(ranked[0].adjustments[0].detail,
            "holds 1 of the question's 4 terms (50% of their idf): x 1.2000");
  EXPECT_DOUBLE_EQ(ranked[1].score, 0.1);
  EXPECT_THAT(ranked[1].adjustments, IsEmpty());
  EXPECT_DOUBLE_EQ(ranked[2].score, 0.1);
  EXPECT_DOUBLE_EQ(ranked[3].score, 0.1);

  config.answer_type_depth = 50;
  std::vector<Ranked> all = {Candidate(1, 0.1)};
  ApplyCoverage(all, terms, layout, indexes, config);
  EXPECT_DOUBLE_EQ(all[0].score, 0.1 * 1.4);
  // Off: weight 0, or a question of one term (every matching turn would gain alike).
  config.coverage_weight = 0;
  std::vector<Ranked> off = {Candidate(1, 0.1)};
  ApplyCoverage(off, terms, layout, indexes, config);
  EXPECT_DOUBLE_EQ(off[0].score, 0.1);
  config.coverage_weight = 0.4;
  ApplyCoverage(off, std::span(terms).first(1), layout, indexes, config);
  EXPECT_DOUBLE_EQ(off[0].score, 0.1);
}
}  // namespace
}  // namespace engram::read
