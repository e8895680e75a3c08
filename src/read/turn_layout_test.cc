// Tests for the turn layout (turn_layout.h): sessions, incremental building, unit scores
// against BM25, soft matches and the question share of a turn.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>
#include <optional>
#include <random>
#include <span>
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

TEST(TurnLayoutTest, ForEachTurnOfFindsThePostingsOfTheLayoutsRows) {
  // Postings by doc: some docs are no turn of the layout (other scopes), some lie past its end.
  std::vector<index::Bm25Posting> postings;
  for (const std::uint64_t doc : {1u, 3u, 4u, 42u, 43u, 99u, 120u, 150u, 900u}) {
    postings.push_back({doc, static_cast<std::uint32_t>(doc % 7 + 1), 1});
  }
  const auto visited = [&postings](const TurnLayout& layout) {
    std::vector<std::pair<std::size_t, std::uint64_t>> found;  // (turn index, doc)
    layout.ForEachTurnOf(postings, [&found](std::size_t turn, const index::Bm25Posting& posting) {
      found.emplace_back(turn, posting.doc);
    });
    return found;
  };
  std::vector<LayoutTurn> ascending;
  for (std::int64_t row = 3; row <= 120; row += 3) {  // rows 3, 6, ..., 120
    LayoutTurn turn;
    turn.row = row;
    turn.scope_id = 1;
    turn.sequence = row;
    ascending.push_back(turn);
  }
  // A merge over ascending rows; the same turns looked up one by one when the rows do not ascend.
  using Visit = std::pair<std::size_t, std::uint64_t>;
  EXPECT_THAT(visited(TurnLayout::FromTurns(ascending)),
              ElementsAre(Visit{0, 3}, Visit{13, 42}, Visit{32, 99}, Visit{39, 120}));
  std::vector<LayoutTurn> descending(ascending.rbegin(), ascending.rend());
  for (std::size_t turn_idx = 0; turn_idx < descending.size(); ++turn_idx) {
    descending[turn_idx].sequence = static_cast<std::int64_t>(turn_idx);
  }
  EXPECT_THAT(visited(TurnLayout::FromTurns(descending)),
              ElementsAre(Visit{39, 3}, Visit{26, 42}, Visit{7, 99}, Visit{0, 120}));
  EXPECT_THAT(visited(TurnLayout{}), ::testing::IsEmpty());
}

// The three ways a layout maps rows to turns (an array over dense ascending rows, a gallop over
// sparse ascending ones, a hash map otherwise) find the same turns as a search of turns().
TEST(TurnLayoutTest, RowsMapToTurnsAlikeWhetherDenseSparseOrUnordered) {
  std::mt19937 random(17);
  const auto pick = [&random](std::uint32_t n) {
    return std::uniform_int_distribution<std::uint32_t>(0, n - 1)(random);
  };
  for (const std::uint32_t gap : {1u, 2u, 4u, 9u, 5000u}) {
    for (const bool shuffled : {false, true}) {
      SCOPED_TRACE("gap " + std::to_string(gap) + (shuffled ? " shuffled" : ""));
      std::vector<LayoutTurn> turns;
      std::int64_t row = 1 + pick(50);
      for (std::int64_t turn_idx = 0; turn_idx < 600; ++turn_idx) {
        LayoutTurn turn;
        turn.row = row;
        turn.scope_id = 1;
        turn.sequence = turn_idx;
        turns.push_back(turn);
        row += 1 + pick(gap);
      }
      if (shuffled) std::shuffle(turns.begin(), turns.end(), random);
      const TurnLayout layout = TurnLayout::FromTurns(turns);
      const auto expected = [&turns](std::int64_t wanted) -> std::optional<std::size_t> {
        for (std::size_t turn_idx = 0; turn_idx < turns.size(); ++turn_idx) {
          if (turns[turn_idx].row == wanted) return turn_idx;
        }
        return std::nullopt;
      };
      std::vector<index::Bm25Posting> postings;
      std::vector<std::pair<std::size_t, std::uint64_t>> wanted;  // (turn index, doc)
      for (std::int64_t doc = 0; doc < row + 10; doc += 1 + pick(3)) {
        postings.push_back({static_cast<std::uint64_t>(doc), 1, 1});
        EXPECT_EQ(layout.IndexOf(doc), expected(doc)) << "row " << doc;
        if (!shuffled) {
          if (const auto at = expected(doc)) wanted.emplace_back(*at, doc);
        }
      }
      if (shuffled) continue;  // visits come in posting order; checked below for ascending rows
      std::vector<std::pair<std::size_t, std::uint64_t>> found;
      layout.ForEachTurnOf(postings, [&found](std::size_t turn, const index::Bm25Posting& posting) {
        found.emplace_back(turn, posting.doc);
      });
      EXPECT_EQ(found, wanted);
      EXPECT_TRUE(layout.rows_ascending());
    }
  }
}

TEST(TurnLayoutTest, UnitScoresEqualBm25OfTheConcatenatedTurns) {
  const Conversation conversation;
  const std::vector<std::string> query = {"guitar", "lesson"};
  const TermMatrix matrix(conversation.layout, conversation.indexes, query);
  // Each turn alone: the same as the index's own BM25.
  const GroupingScores own = matrix.ScoreTurns(conversation.config.bm25);
  const auto hits = conversation.index.Search(query, conversation.config.bm25, 10);
  ASSERT_EQ(hits.size(), 3u);
  ASSERT_EQ(own.units().size(), 3u);  // only the turns holding a term
  for (const auto& hit : hits) {
    const ScoredUnit* found = own.Find(hit.doc - 1);
    ASSERT_NE(found, nullptr) << hit.doc;
    EXPECT_DOUBLE_EQ(found->score, hit.score) << hit.doc;
  }
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
  const GroupingScores soft_scores = matrix.ScoreTurns(conversation.config.bm25);
  const GroupingScores exact_scores = exact.ScoreTurns(conversation.config.bm25);
  const std::vector<ScoredUnit>& scores = soft_scores.units();
  const std::vector<ScoredUnit>& reference = exact_scores.units();
  ASSERT_EQ(scores.size(), 2u);
  ASSERT_EQ(reference.size(), 2u);
  EXPECT_EQ(scores[0].unit.begin, 3u);
  EXPECT_EQ(scores[1].unit.begin, 5u);
  EXPECT_NEAR(scores[0].score, similarity * reference[0].score, 1e-6);
  EXPECT_NEAR(scores[1].score, similarity * reference[1].score, 1e-6);
  EXPECT_EQ(soft_scores.Find(0), nullptr);
  EXPECT_EQ(soft_scores.ScoreOf(0), 0.0);
  EXPECT_THAT(ExplainUnit(soft_scores.Explain(scores[0].unit)), ::testing::StartsWith("bm25 "));
  EXPECT_THAT(ExplainUnit(soft_scores.Explain(scores[0].unit)),
              ::testing::HasSubstr("lessons~lesson(tf 1, "));
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

TEST(TurnLayoutTest, GivenNeighboursCountAsTheirQueryTermScaledBySimilarity) {
  const Conversation conversation;  // "lesson" at rows 4 and 6
  const std::vector<std::string> exact_query = {"lesson"};
  const std::vector<std::string> query = {"class"};
  const TermMatrix exact(conversation.layout, conversation.indexes, exact_query);
  const std::vector<SoftNeighbour> neighbours = {{"class", "lesson", 0.7},
                                                 {"class", "lesson", 0.7},  // counted once
                                                 {"other", "guitar", 0.9},  // not a query term
                                                 {"class", "nowhere", 0.9}};  // no postings
  SoftMatch soft;
  soft.threshold = 0;  // Jaro-Winkler off: only the given neighbours
  soft.neighbours = neighbours;
  const TermMatrix matrix(conversation.layout, conversation.indexes, query, &soft);
  const GroupingScores soft_scores = matrix.ScoreTurns(conversation.config.bm25);
  const GroupingScores exact_scores = exact.ScoreTurns(conversation.config.bm25);
  ASSERT_EQ(soft_scores.units().size(), 2u);
  ASSERT_EQ(exact_scores.units().size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(soft_scores.units()[i].unit.begin, exact_scores.units()[i].unit.begin);
    EXPECT_NEAR(soft_scores.units()[i].score, 0.7 * exact_scores.units()[i].score, 1e-9);
  }
  const std::string explained =
      ExplainUnit(soft_scores.Explain(soft_scores.units()[0].unit));
  EXPECT_THAT(explained, ::testing::HasSubstr("class~lesson(tf 1, "));
  EXPECT_THAT(explained, ::testing::Not(::testing::HasSubstr("guitar")));
}

// A random conversation (deterministic seed): sessions of random lengths with and without ids,
// two scopes, random event times (some missing, not in turn order), random documents over a small
// vocabulary, so terms repeat within and across turns.
struct RandomConversation {
  explicit RandomConversation(std::uint32_t seed) {
    std::mt19937 random(seed);
    const auto pick = [&random](std::uint32_t n) {
      return std::uniform_int_distribution<std::uint32_t>(0, n - 1)(random);
    };
    const std::vector<std::string> vocabulary = {"alpha", "bravo", "charlie", "delta", "echo",
                                                 "fox",   "golf",  "hotel",   "india", "juliet"};
    std::vector<LayoutTurn> turns;
    std::int64_t row = 1;
    for (std::int64_t scope_id = 1; scope_id <= 2; ++scope_id) {
      std::int64_t sequence = 1;
      for (int session = 0; session < 12; ++session) {
        const std::uint32_t length = 1 + pick(9);
        const std::string session_id = pick(4) == 0 ? "" : "s" + std::to_string(session / 2);
        for (std::uint32_t turn_idx = 0; turn_idx < length; ++turn_idx, ++row, ++sequence) {
          std::vector<std::string> doc;
          for (std::uint32_t word = pick(7); word > 0; --word) {
            doc.push_back(vocabulary[pick(vocabulary.size())]);
          }
          index.Add(static_cast<std::uint64_t>(row), doc);
          LayoutTurn turn;
          turn.row = row;
          turn.scope_id = scope_id;
          turn.sequence = sequence;
          turn.session_id = session_id;
          turn.role = pick(2) == 0 ? Role::kUser : Role::kAssistant;
          if (pick(5) != 0) turn.event_time = Timestamp::FromSeconds(pick(50) * 3600);
          turn.length = static_cast<std::uint32_t>(doc.size());
          turns.push_back(turn);
        }
      }
    }
    layout = TurnLayout::FromTurns(std::move(turns));
  }
  index::Bm25Index index;
  TurnLayout layout;
};

// Every unit of a grouping, in order (what the routes used to list before scoring).
std::vector<Unit> AllWindows(const TurnLayout& layout, std::size_t window) {
  std::vector<Unit> units;
  for (const LayoutSession& session : layout.sessions()) {
    if (session.end - session.begin <= window) {
      units.push_back({session.begin, session.end});
      continue;
    }
    for (std::size_t begin = session.begin; begin + window <= session.end; ++begin) {
      units.push_back({begin, begin + window});
    }
  }
  return units;
}

// The sparse grouping scores must equal Score() over every unit of the grouping, exactly (the
// routes' explanations print them), with the units scoring 0 left out.
void ExpectSameAsDense(const TermMatrix& matrix, std::span<const Unit> all,
                       const GroupingScores& scores, const Bm25Config& config) {
  const std::vector<UnitScore> dense = matrix.Score(all, config);
  const std::vector<ScoredUnit>& sparse = scores.units();
  std::size_t next = 0;
  for (std::size_t u = 0; u < all.size(); ++u) {
    if (dense[u].terms.empty()) continue;
    ASSERT_LT(next, sparse.size()) << "unit " << u;
    EXPECT_EQ(sparse[next].unit.begin, all[u].begin);
    EXPECT_EQ(sparse[next].unit.end, all[u].end);
    EXPECT_EQ(sparse[next].score, dense[u].score) << "unit " << u;
    const UnitScore explained = scores.Explain(sparse[next].unit);
    EXPECT_EQ(explained.score, sparse[next].score) << "unit " << u;
    EXPECT_EQ(ExplainUnit(explained), ExplainUnit(dense[u]));
    EXPECT_EQ(scores.Find(all[u].begin), &sparse[next]);
    ++next;
  }
  EXPECT_EQ(next, sparse.size());
}

TEST(TurnLayoutTest, SparseGroupingScoresEqualScoringEveryUnit) {
  const Bm25Config config;
  for (std::uint32_t seed = 1; seed <= 20; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const RandomConversation conversation(seed);
    const TurnLayout& layout = conversation.layout;
    const std::vector<const index::Bm25Index*> indexes = {&conversation.index};
    const std::vector<std::string> query = {"alpha", "echo", "echo", "juliet", "zulu"};
    const TermMatrix matrix(layout, indexes, query);
    ASSERT_FALSE(matrix.empty());
    std::vector<Unit> turns;
    for (std::size_t t = 0; t < layout.turns().size(); ++t) turns.push_back({t, t + 1});
    ExpectSameAsDense(matrix, turns, matrix.ScoreTurns(config), config);
    std::vector<Unit> sessions;
    for (const LayoutSession& session : layout.sessions()) {
      sessions.push_back({session.begin, session.end});
    }
    ExpectSameAsDense(matrix, sessions, matrix.ScoreSessions(config), config);
    for (const std::size_t window : {1u, 2u, 3u, 5u}) {
      const std::vector<Unit> windows = AllWindows(layout, window);
      EXPECT_EQ(layout.WindowCount(window), windows.size());
      std::uint64_t total = 0;
      for (const Unit& unit : windows) total += layout.LengthOf(unit.begin, unit.end);
      EXPECT_EQ(layout.WindowLengthSum(window), total);
      ExpectSameAsDense(matrix, windows, matrix.ScoreWindows(window, config), config);
    }
  }
}

// The same units, scores (to the last bit) and explanations.
void ExpectSameScores(const GroupingScores& actual, const GroupingScores& expected) {
  ASSERT_EQ(actual.units().size(), expected.units().size());
  for (std::size_t u = 0; u < actual.units().size(); ++u) {
    const ScoredUnit& a = actual.units()[u];
    const ScoredUnit& e = expected.units()[u];
    EXPECT_EQ(a.unit.begin, e.unit.begin);
    EXPECT_EQ(a.unit.end, e.unit.end);
    EXPECT_EQ(a.score, e.score) << "unit " << u;
    EXPECT_EQ(ExplainUnit(actual.Explain(a.unit)), ExplainUnit(expected.Explain(e.unit)));
  }
}

TEST(TurnLayoutTest, ExactTermsOfASoftMatrixScoreLikeAMatrixWithoutSoftMatches) {
  const Bm25Config config;
  SoftMatch soft;
  soft.threshold = 0.9;
  // "charlies" is in no turn; "charlie" is close to it.
  const std::vector<std::string> query = {"alpha", "charlies", "echo", "echo", "juliet"};
  for (std::uint32_t seed = 1; seed <= 10; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const RandomConversation conversation(seed);
    const TurnLayout& layout = conversation.layout;
    const std::vector<const index::Bm25Index*> indexes = {&conversation.index};
    const TermMatrix exact(layout, indexes, query);
    const TermMatrix with_soft(layout, indexes, query, &soft);
    EXPECT_FALSE(exact.has_soft_terms());
    ASSERT_TRUE(with_soft.has_soft_terms());
    EXPECT_FALSE(with_soft.empty(TermSet::kExact));
    ExpectSameScores(with_soft.ScoreTurns(config, TermSet::kExact), exact.ScoreTurns(config));
    ExpectSameScores(with_soft.ScoreSessions(config, TermSet::kExact),
                     exact.ScoreSessions(config));
    ExpectSameScores(with_soft.ScoreWindows(3, config, TermSet::kExact),
                     exact.ScoreWindows(3, config));
    // The soft match counts in the full set: some turn scores differently.
    const GroupingScores all = with_soft.ScoreTurns(config);
    const GroupingScores own = exact.ScoreTurns(config);
    EXPECT_GT(all.units().size(), own.units().size());
  }
  // A query of soft matches only: the exact set is empty.
  const RandomConversation conversation(1);
  const std::vector<const index::Bm25Index*> indexes = {&conversation.index};
  const std::vector<std::string> only_soft = {"charlies"};
  const TermMatrix matrix(conversation.layout, indexes, only_soft, &soft);
  EXPECT_FALSE(matrix.empty());
  EXPECT_TRUE(matrix.empty(TermSet::kExact));
  EXPECT_THAT(matrix.ScoreSessions(config, TermSet::kExact).units(), IsEmpty());
}

// One pass over both term sets gives each set's own scoring, to the last bit, with random
// queries (repeated words, words in no turn) and random soft matches (a word's neighbours, a
// neighbour that is itself a query word, neighbours of words in no turn).
TEST(TurnLayoutTest, TurnsOfBothSetsInOnePassScoreLikeEachSetAlone) {
  const Bm25Config config;
  const std::vector<std::string> words = {"alpha", "bravo",  "charlie", "delta", "echo",
                                          "fox",   "golf",   "hotel",   "india", "juliet",
                                          "kilo",  "lima"};  // the last two are in no turn
  std::size_t with_soft_terms = 0;
  for (std::uint32_t seed = 1; seed <= 60; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const RandomConversation conversation(seed);
    const std::vector<const index::Bm25Index*> indexes = {&conversation.index};
    std::mt19937 random(seed * 31);
    const auto pick = [&random](std::uint32_t n) {
      return std::uniform_int_distribution<std::uint32_t>(0, n - 1)(random);
    };
    for (int query_idx = 0; query_idx < 8; ++query_idx) {
      std::vector<std::string> query;
      for (std::uint32_t word = 1 + pick(4); word > 0; --word) query.push_back(words[pick(12)]);
      SoftMatch soft;
      soft.threshold = 0;
      for (std::uint32_t neighbour = pick(4); neighbour > 0; --neighbour) {
        soft.neighbours.push_back({query[pick(static_cast<std::uint32_t>(query.size()))],
                                   words[pick(12)], 0.4 + 0.1 * pick(6)});
      }
      const TermMatrix matrix(conversation.layout, indexes, query, &soft);
      const auto [all, exact] = matrix.ScoreTurnsOfBothSets(config);
      ExpectSameScores(all, matrix.ScoreTurns(config, TermSet::kAll));
      ExpectSameScores(exact, matrix.ScoreTurns(config, TermSet::kExact));
      for (std::size_t term_idx = 0; term_idx < matrix.terms().size(); ++term_idx) {
        EXPECT_EQ(exact.weight(term_idx).has_value(), term_idx < matrix.terms(TermSet::kExact).size());
      }
      if (matrix.has_soft_terms()) ++with_soft_terms;
      if (::testing::Test::HasFailure()) return;
    }
  }
  EXPECT_GT(with_soft_terms, 100u);
}

TEST(TurnLayoutTest, RecallTermsBuildsOneMatrixAndOneTurnScoringPerTermSet) {
  const Bm25Config config;
  const RandomConversation conversation(3);
  const TurnLayout& layout = conversation.layout;
  const std::vector<const index::Bm25Index*> indexes = {&conversation.index};
  SoftMatch soft;
  soft.threshold = 0.9;
  const std::vector<std::string> query = {"alpha", "charlies", "juliet"};
  const TermMatrix exact(layout, indexes, query);
  const TermMatrix with_soft(layout, indexes, query, &soft);
  {
    // The soft matrix first (the fragment route runs first): the exact callers share it.
    RecallTerms terms(layout, indexes, query, config);
    const TermMatrix& first = terms.Matrix(&soft);
    EXPECT_TRUE(first.has_soft_terms());
    EXPECT_EQ(&terms.Matrix(nullptr), &first);
    EXPECT_EQ(&terms.Matrix(&soft), &first);
    const GroupingScores& exact_turns = terms.Turns(nullptr);
    EXPECT_EQ(&terms.Turns(nullptr), &exact_turns);
    ExpectSameScores(exact_turns, exact.ScoreTurns(config));
    const GroupingScores& soft_turns = terms.Turns(&soft);
    EXPECT_NE(&soft_turns, &exact_turns);
    ExpectSameScores(soft_turns, with_soft.ScoreTurns(config));
  }
  {
    // The exact matrix first: a route asking for soft matches gets a matrix with them.
    RecallTerms terms(layout, indexes, query, config);
    const TermMatrix& first = terms.Matrix(nullptr);
    EXPECT_FALSE(first.has_soft_terms());
    const TermMatrix& second = terms.Matrix(&soft);
    EXPECT_NE(&second, &first);
    EXPECT_TRUE(second.has_soft_terms());
    ExpectSameScores(terms.Turns(nullptr), exact.ScoreTurns(config));
    ExpectSameScores(terms.Turns(&soft), with_soft.ScoreTurns(config));
  }
  {
    // No soft match in the layout: one turn scoring serves both.
    const std::vector<std::string> plain = {"alpha", "juliet"};
    RecallTerms terms(layout, indexes, plain, config);
    const GroupingScores& soft_turns = terms.Turns(&soft);
    EXPECT_EQ(&terms.Turns(nullptr), &soft_turns);
    ExpectSameScores(soft_turns, TermMatrix(layout, indexes, plain).ScoreTurns(config));
  }
}

TEST(TurnLayoutTest, TurnsBetweenAreTheTurnsWhoseEventTimeLiesInTheSpan) {
  for (std::uint32_t seed = 1; seed <= 5; ++seed) {
    const RandomConversation conversation(seed);
    const auto& turns = conversation.layout.turns();
    for (std::int64_t from_hour = 0; from_hour < 52; from_hour += 7) {
      for (std::int64_t to_hour = from_hour - 3; to_hour < 55; to_hour += 11) {
        const Timestamp from = Timestamp::FromSeconds(from_hour * 3600);
        const Timestamp to = Timestamp::FromSeconds(to_hour * 3600);
        std::vector<std::size_t> expected;
        for (std::size_t t = 0; t < turns.size(); ++t) {
          if (turns[t].event_time && from <= *turns[t].event_time && *turns[t].event_time < to) {
            expected.push_back(t);
          }
        }
        EXPECT_EQ(conversation.layout.TurnsBetween(from, to), expected)
            << "seed " << seed << " [" << from_hour << "h, " << to_hour << "h)";
      }
    }
  }
}

TEST(TurnLayoutTest, ATurnKeepsTheTimesItsTextNames) {
  const std::vector<MentionedTime> times = MentionedTimes(
      "We fly out on 17 October, back next week.", testing::At("2024-09-01T10:00:00Z"));
  ASSERT_EQ(times.size(), 2u);
  EXPECT_EQ(times[0], (MentionedTime{testing::At("2024-10-17T00:00:00Z"),
                                     testing::At("2024-10-18T00:00:00Z"), "17 October"}));
  EXPECT_EQ(times[1].surface, "next week");
  // Without an event time only the absolute ones resolve.
  const std::vector<MentionedTime> absolute =
      MentionedTimes("Back next week, on 3 May 2024.", std::nullopt);
  ASSERT_EQ(absolute.size(), 1u);
  EXPECT_EQ(absolute[0].surface, "3 May 2024");
}

TEST(TurnLayoutTest, MentionsOverlappingAreTheNamedTimesInsideTheSpanNoLongerThanIt) {
  // Many turns appended one by one (the sorted part and its tail both in use), each naming up
  // to three times of 1 to 48 hours somewhere in 60 days, against a scan of every named time.
  std::mt19937 random(7);
  TurnLayout layout;
  constexpr std::int64_t kHour = 3600;
  for (std::int64_t t = 0; t < 1500; ++t) {
    LayoutTurn turn;
    turn.row = t + 1;
    turn.scope_id = 1;
    turn.sequence = t + 1;
    const std::size_t named = random() % 4;
    for (std::size_t m = 0; m < named; ++m) {
      const std::int64_t from = static_cast<std::int64_t>(random() % (60 * 24)) * kHour;
      const std::int64_t hours = 1 + static_cast<std::int64_t>(random() % 48);
      turn.mentioned_times.push_back({Timestamp::FromSeconds(from),
                                      Timestamp::FromSeconds(from + hours * kHour), "x"});
    }
    layout.Append(std::move(turn));
  }
  const auto& turns = layout.turns();
  for (std::int64_t from_hour = -30; from_hour < 60 * 24; from_hour += 97) {
    for (const std::int64_t hours : {1, 5, 24, 30, 200, 100000}) {
      const Timestamp from = Timestamp::FromSeconds(from_hour * kHour);
      const Timestamp to = Timestamp::FromSeconds((from_hour + hours) * kHour);
      std::vector<TurnLayout::MentionRef> expected;
      for (std::size_t t = 0; t < turns.size(); ++t) {
        for (std::size_t m = 0; m < turns[t].mentioned_times.size(); ++m) {
          const MentionedTime& time = turns[t].mentioned_times[m];
          if (time.from < to && from < time.to &&
              time.to.micros - time.from.micros <= to.micros - from.micros) {
            expected.push_back({t, m});
          }
        }
      }
      EXPECT_EQ(layout.MentionsOverlapping(from, to), expected)
          << "[" << from_hour << "h, +" << hours << "h)";
    }
  }
  // An unbounded span holds every named time.
  EXPECT_FALSE(layout
                   .MentionsOverlapping(Timestamp{std::numeric_limits<std::int64_t>::min()},
                                        Timestamp{std::numeric_limits<std::int64_t>::max()})
                   .empty());
}

TEST(TurnLayoutTest, KnowsWhichRolesItHolds) {
  const Conversation conversation;  // every turn is the default role, user
  EXPECT_TRUE(conversation.layout.HasRole(Role::kUser));
  EXPECT_FALSE(conversation.layout.HasRole(Role::kAssistant));
  std::vector<LayoutTurn> turns = conversation.layout.turns();
  turns[3].role = Role::kTool;
  const TurnLayout changed = TurnLayout::FromTurns(turns);
  EXPECT_TRUE(changed.HasRole(Role::kTool));
  EXPECT_FALSE(changed.HasRole(Role::kSystem));
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
