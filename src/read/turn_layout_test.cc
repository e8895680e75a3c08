// Tests for the turn layout (turn_layout.h): sessions, incremental building, unit scores
// against BM25, soft matches and the question share of a turn.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "read/read_test_util.h"
#include "read/turn_layout.h"

namespace engram::read {
namespace {

using ::engram::read::testing::Conversation;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(TurnLayoutTest, SessionsAreRunsOfOneSessionId) {
  const Conversation conversation;
  ASSERT_EQ(conversation.layout.sessions().size(), 2u);
  EXPECT_EQ(conversation.layout.sessions()[0].begin, 0u);
  EXPECT_EQ(conversation.layout.sessions()[0].end, 5u);
  EXPECT_EQ(conversation.layout.sessions()[1].session_id, "s2");
  EXPECT_EQ(conversation.layout.IndexOf(7), 6u);
  EXPECT_EQ(conversation.layout.IndexOf(70), std::nullopt);
  EXPECT_THAT(conversation.layout.Speakers(), ElementsAre("Caroline", "Melanie"));
}

// The projection grows a layout turn by turn and joins scopes' layouts: both must equal the
// layout built from all turns at once.
TEST(TurnLayoutTest, AppendingAndConcatenatingEqualBuildingAtOnce) {
  const Conversation conversation;
  const std::vector<LayoutTurn>& all = conversation.layout.turns();
  TurnLayout grown;
  for (const LayoutTurn& turn : all) grown.Append(turn);
  EXPECT_TRUE(grown.SameContent(conversation.layout));

  // A second scope whose first session id repeats the first scope's last one: a new session.
  std::vector<LayoutTurn> other_turns;
  for (std::int64_t row = 100; row < 103; ++row) {
    LayoutTurn turn;
    turn.row = row;
    turn.scope_id = 2;
    turn.sequence = row - 99;
    turn.session_id = "s2";
    turn.speaker = "Zed";
    other_turns.push_back(turn);
  }
  const TurnLayout other = TurnLayout::FromTurns(other_turns);
  const TurnLayout* parts[] = {&conversation.layout, &other};
  const TurnLayout joined = TurnLayout::Concat(parts);
  std::vector<LayoutTurn> everything = all;
  everything.insert(everything.end(), other_turns.begin(), other_turns.end());
  EXPECT_TRUE(joined.SameContent(TurnLayout::FromTurns(everything)));
  ASSERT_EQ(joined.sessions().size(), 3u);
  EXPECT_EQ(joined.sessions()[2].begin, all.size());
  EXPECT_EQ(joined.turns()[all.size()].session, 2u);
  EXPECT_THAT(joined.Speakers(), ElementsAre("Caroline", "Melanie", "Zed"));
  EXPECT_EQ(joined.IndexOf(101), all.size() + 1);

  // A layout missing its last turn is not the same.
  TurnLayout shorter;
  for (std::size_t turn_idx = 0; turn_idx + 1 < all.size(); ++turn_idx) shorter.Append(all[turn_idx]);
  EXPECT_FALSE(shorter.SameContent(conversation.layout));
}

TEST(TurnLayoutTest, UnitScoresEqualBm25OfTheConcatenatedTurns) {
  const Conversation conversation;
  const std::vector<std::string> query = {"guitar", "lesson"};
  const TermMatrix matrix(conversation.layout, conversation.indexes, query);
  // Each turn alone: the same as the index's own BM25.
  const std::vector<UnitScore> own = matrix.ScoreTurns(conversation.config.bm25);
  const auto hits = conversation.index.Search(query, conversation.config.bm25, 10);
  ASSERT_EQ(hits.size(), 3u);
  for (const auto& hit : hits) EXPECT_DOUBLE_EQ(own[hit.doc - 1].score, hit.score) << hit.doc;
  // Rows 2-4 as one document against an index of the two windows it is compared with.
  const std::array<Unit, 2> units = {Unit{1, 4}, Unit{5, 9}};
  const std::vector<UnitScore> windows = matrix.Score(units, conversation.config.bm25);
  index::Bm25Index joined;
  joined.Add(1, std::vector<std::string>{"guitar", "weather", "lesson"});
  joined.Add(2, std::vector<std::string>{"guitar", "lesson", "x", "y", "z"});
  const auto joined_hits = joined.Search(query, conversation.config.bm25, 10);
  ASSERT_EQ(joined_hits.size(), 2u);
  EXPECT_EQ(joined_hits[0].doc, 1u);
  EXPECT_DOUBLE_EQ(windows[0].score, joined_hits[0].score);
  EXPECT_DOUBLE_EQ(windows[1].score, joined_hits[1].score);
  EXPECT_THAT(ExplainUnit(windows[0]),
              ::testing::MatchesRegex(
                  "bm25 [0-9.]+ = guitar\\(tf 1, [0-9.]+\\) \\+ lesson\\(tf 1, [0-9.]+\\)"));
}

TEST(TurnLayoutTest, SoftMatchesCountAsTheQueryTermScaledBySimilarity) {
  const Conversation conversation;  // "lesson" at rows 4 and 6
  const std::vector<std::string> exact_query = {"lesson"};
  const std::vector<std::string> query = {"lessons"};
  const TermMatrix exact(conversation.layout, conversation.indexes, exact_query);
  const TermMatrix none(conversation.layout, conversation.indexes, query);
  EXPECT_TRUE(none.empty());
  SoftMatch soft;
  soft.threshold = 0.95;
  const TermMatrix matrix(conversation.layout, conversation.indexes, query, &soft);
  // Jaro-Winkler(lessons, lesson): m 6, t 0: (6/7 + 1 + 1) / 3 = 0.952381; l 4: + 0.4 * 0.047619.
  const double similarity = 0.971429;
  const auto scores = matrix.ScoreTurns(conversation.config.bm25);
  const auto reference = exact.ScoreTurns(conversation.config.bm25);
  ASSERT_EQ(scores.size(), 9u);
  EXPECT_NEAR(scores[3].score, similarity * reference[3].score, 1e-6);
  EXPECT_NEAR(scores[5].score, similarity * reference[5].score, 1e-6);
  EXPECT_EQ(scores[0].score, 0);
  EXPECT_THAT(ExplainUnit(scores[3]), ::testing::StartsWith("bm25 "));
  EXPECT_THAT(ExplainUnit(scores[3]), ::testing::HasSubstr("lessons~lesson(tf 1, "));
  // Above the similarity, or below the minimum length, nothing is close.
  soft.threshold = 0.98;
  EXPECT_TRUE(TermMatrix(conversation.layout, conversation.indexes, query, &soft).empty());
  soft.threshold = 0.95;
  soft.min_length = 7;
  EXPECT_TRUE(TermMatrix(conversation.layout, conversation.indexes, query, &soft).empty());
  // Only the first max_query_terms distinct query terms look for soft matches.
  soft.min_length = 5;
  soft.max_query_terms = 1;
  const std::vector<std::string> two = {"nothing", "lessons"};
  EXPECT_TRUE(TermMatrix(conversation.layout, conversation.indexes, two, &soft).empty());
  soft.max_query_terms = 2;
  EXPECT_FALSE(TermMatrix(conversation.layout, conversation.indexes, two, &soft).empty());
}

TEST(TurnLayoutTest, QuestionShareCountsTheWordsOfAskingSentences) {
  EXPECT_FLOAT_EQ(QuestionShare(""), 0.0f);
  EXPECT_FLOAT_EQ(QuestionShare("I went to Paris."), 0.0f);
  EXPECT_FLOAT_EQ(QuestionShare("Any advice on that?"), 1.0f);
  // 2 of 5 words ask; an unterminated last sentence asks nothing.
  EXPECT_FLOAT_EQ(QuestionShare("Wow, so cool! How come?"), 2.0f / 5.0f);
  EXPECT_FLOAT_EQ(QuestionShare("How was it? I loved the show"), 3.0f / 7.0f);
  EXPECT_FLOAT_EQ(QuestionShare("Where?\nThere."), 0.5f);
  EXPECT_EQ(AskingSentences("Wow, so cool! How come? Tell me. Why?"), " How come?  Why?");
  EXPECT_EQ(AskingSentences("No question here"), "");
}

}  // namespace
}  // namespace engram::read
