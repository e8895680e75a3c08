// Tests for the fragment route's head (fragment_top.h): the skipping search against the
// exhaustive one on generated scopes, and that it skips.
#include "read/fragment_top.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <utility>
#include <vector>

#include "index/bm25/bm25_index.h"

namespace engram::read {
namespace {

// A generated scope: sessions of random lengths (some of at most the window), documents drawn
// from a skewed vocabulary (the first words are in most turns, like a speaker's name, the last
// ones in few), words repeated within a turn, and many turns alike so that scores tie.
struct GeneratedScope {
  explicit GeneratedScope(std::uint32_t seed) {
    std::mt19937 random(seed);
    const auto pick = [&random](std::uint32_t n) {
      return std::uniform_int_distribution<std::uint32_t>(0, n - 1)(random);
    };
    const auto skewed = [&random](std::size_t n) {
      const double u = std::uniform_real_distribution<double>(0, 1)(random);
      return static_cast<std::size_t>(u * u * u * static_cast<double>(n));
    };
    const std::size_t session_count = 2 + pick(30);
    const std::uint32_t longest = 1 + pick(12);
    std::vector<LayoutTurn> turns;
    std::int64_t row = 1;
    const bool alike = pick(3) == 0;  // few distinct documents: ties everywhere
    for (std::size_t session = 0; session < session_count; ++session) {
      const std::uint32_t length = 1 + pick(longest);
      for (std::uint32_t turn_idx = 0; turn_idx < length; ++turn_idx, ++row) {
        std::vector<std::string> doc;
        if (alike) {
          const std::uint32_t kind = pick(3);
          for (std::uint32_t word = 0; word <= kind; ++word) doc.push_back(kVocabulary[word]);
        } else {
          for (std::uint32_t word = pick(8); word > 0; --word) {
            doc.push_back(kVocabulary[skewed(kVocabulary.size())]);
          }
          if (pick(2) == 0) doc.push_back(kVocabulary[0]);  // the speaker's name, say
        }
        index.Add(static_cast<std::uint64_t>(row), doc);
        LayoutTurn turn;
        turn.row = row;
        turn.scope_id = 1;
        turn.sequence = row;
        turn.session_id = "s" + std::to_string(session);
        turn.length = static_cast<std::uint32_t>(doc.size());
        turns.push_back(turn);
      }
    }
    layout = TurnLayout::FromTurns(std::move(turns));
  }

  static inline const std::vector<std::string> kVocabulary = {
      "maya", "hiking", "went", "lisbon", "photography", "porto",
      "sister", "guitar", "bread", "kayaking", "museum", "tokyo"};
  index::Bm25Index index;
  TurnLayout layout;
};

void ExpectSameHead(const FragmentTop& actual, const FragmentTop& expected) {
  ASSERT_EQ(actual.picks.size(), expected.picks.size());
  for (std::size_t rank = 0; rank < actual.picks.size(); ++rank) {
    SCOPED_TRACE("rank " + std::to_string(rank));
    const FragmentPick& a = actual.picks[rank];
    const FragmentPick& e = expected.picks[rank];
    EXPECT_EQ(a.turn, e.turn);
    EXPECT_EQ(a.window.begin, e.window.begin);
    EXPECT_EQ(a.window.end, e.window.end);
    EXPECT_EQ(a.window_score, e.window_score);  // to the last bit
    EXPECT_EQ(a.own, e.own);
    EXPECT_EQ(a.score, e.score);
    EXPECT_EQ(ExplainUnit(actual.windows.Explain(a.window)),
              ExplainUnit(expected.windows.Explain(e.window)));
  }
}

TEST(FragmentTopTest, SkippingFindsTheExhaustiveHeadOnGeneratedScopes) {
  const Bm25Config config;
  std::size_t compared = 0;
  std::size_t skipped_some = 0;
  for (std::uint32_t seed = 1; seed <= 120; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const GeneratedScope scope(seed);
    const std::vector<const index::Bm25Index*> indexes = {&scope.index};
    std::mt19937 random(seed * 7919);
    const auto pick = [&random](std::uint32_t n) {
      return std::uniform_int_distribution<std::uint32_t>(0, n - 1)(random);
    };
    // A query of 1-4 words (repeats count twice), and sometimes soft matches: neighbours of a
    // query word scaled by their similarity.
    std::vector<std::string> query;
    for (std::uint32_t word = 1 + pick(4); word > 0; --word) {
      query.push_back(GeneratedScope::kVocabulary[pick(GeneratedScope::kVocabulary.size())]);
    }
    SoftMatch soft;
    soft.threshold = 0;
    if (pick(2) == 0) {
      for (std::uint32_t neighbour = 1 + pick(3); neighbour > 0; --neighbour) {
        soft.neighbours.push_back({query[pick(static_cast<std::uint32_t>(query.size()))],
                                   GeneratedScope::kVocabulary[pick(12)],
                                   0.5 + 0.1 * pick(5)});
      }
    }
    const TermMatrix matrix(scope.layout, indexes, query, &soft);
    for (const TermSet set : {TermSet::kAll, TermSet::kExact}) {
      if (matrix.empty(set)) continue;
      const GroupingScores own = matrix.ScoreTurns(config, set);
      FragmentOptions options;
      options.window = 1 + pick(5);
      options.own_weight = std::vector<double>{0, 0.3, 1, 2.5}[pick(4)];
      options.block_bits = std::vector<int>{-1, 0, 1, 2, 5}[pick(5)];
      const std::size_t turn_count = scope.layout.turns().size();
      for (std::size_t limit = 1; limit <= turn_count + 2; ++limit) {
        SCOPED_TRACE("limit " + std::to_string(limit));
        options.limit = limit;
        options.search = FragmentSearch::kExhaustive;
        const FragmentTop exhaustive = TopFragments(matrix, set, own, options, config);
        options.search = FragmentSearch::kSkipping;
        const FragmentTop skipping = TopFragments(matrix, set, own, options, config);
        ExpectSameHead(skipping, exhaustive);
        EXPECT_LE(skipping.windows_visited, exhaustive.windows_visited);
        ++compared;
        if (skipping.windows_visited < exhaustive.windows_visited) ++skipped_some;
        if (::testing::Test::HasFailure()) return;
      }
    }
  }
  EXPECT_GT(compared, 2000u);
  EXPECT_GT(skipped_some, compared / 10);  // the comparisons include searches that skipped
}

// A scope of `turn_count` turns (rows 1 to turn_count, sessions of 20 turns) whose turn at `row`
// holds the words doc_of(row).
template <typename DocOf>
std::pair<index::Bm25Index, TurnLayout> ScopeOfDocs(std::int64_t turn_count, const DocOf& doc_of) {
  index::Bm25Index index;
  std::vector<LayoutTurn> turns;
  for (std::int64_t row = 1; row <= turn_count; ++row) {
    const std::vector<std::string> doc = doc_of(row);
    index.Add(static_cast<std::uint64_t>(row), doc);
    LayoutTurn turn;
    turn.row = row;
    turn.scope_id = 1;
    turn.sequence = row;
    turn.session_id = "s" + std::to_string((row - 1) / 20);
    turn.length = static_cast<std::uint32_t>(doc.size());
    turns.push_back(turn);
  }
  return {std::move(index), TurnLayout::FromTurns(std::move(turns))};
}

// A term in every turn cannot lift a window into a small head that the rare term's windows fill:
// only the windows holding the rare term are scored.
TEST(FragmentTopTest, WindowsHoldingOnlyACommonTermAreNotScored) {
  const auto [index, layout] = ScopeOfDocs(600, [](std::int64_t row) {
    std::vector<std::string> doc = {"maya", "said", "something"};
    if (row % 50 == 0) doc.push_back("kayaking");
    return doc;
  });
  const std::vector<const index::Bm25Index*> indexes = {&index};
  const std::vector<std::string> query = {"maya", "kayaking"};
  const TermMatrix matrix(layout, indexes, query);
  const Bm25Config config;
  const GroupingScores own = matrix.ScoreTurns(config);
  FragmentOptions options;
  options.window = 3;
  options.limit = 10;
  options.search = FragmentSearch::kExhaustive;
  const FragmentTop exhaustive = TopFragments(matrix, TermSet::kAll, own, options, config);
  options.search = FragmentSearch::kSkipping;
  const FragmentTop skipping = TopFragments(matrix, TermSet::kAll, own, options, config);
  ExpectSameHead(skipping, exhaustive);
  ASSERT_EQ(skipping.picks.size(), 10u);
  // The head: the 12 turns with "kayaking" first, then their neighbours.
  EXPECT_EQ(layout.turns()[skipping.picks[0].turn].row % 50, 0);
  // Exhaustive: every window (the common term is in all of them).
  EXPECT_EQ(exhaustive.windows_scored, layout.WindowCount(3));
  // Skipping: the first threshold scores the windows of the 20 turns with the best own scores
  // (3 each); then only the windows holding "kayaking" are visited (3 for each of its 12 turns).
  EXPECT_LE(skipping.windows_visited, 12u * 3u);
  EXPECT_LE(skipping.windows_scored, 20u * 3u + 12u * 3u);
}

// Two terms, each in half of the scope and both only in its last turns: either term alone could
// lift a window into the head by its global bound, so MaxScore visits every window of the rarer
// one; the blocks without the other term are passed over whole.
TEST(FragmentTopTest, BlocksWhoseWindowsCannotReachTheHeadAreNotVisited) {
  const auto [index, layout] = ScopeOfDocs(1200, [](std::int64_t row) {
    std::vector<std::string> doc = {"said", "something"};
    if (row <= 600 || row > 1180) doc.push_back("maya");
    if (row > 600) doc.push_back("hiking");
    return doc;
  });
  const std::vector<const index::Bm25Index*> indexes = {&index};
  const std::vector<std::string> query = {"maya", "hiking"};
  const TermMatrix matrix(layout, indexes, query);
  const Bm25Config config;
  const GroupingScores own = matrix.ScoreTurns(config);
  FragmentOptions options;
  options.window = 3;
  options.limit = 10;
  options.search = FragmentSearch::kExhaustive;
  const FragmentTop exhaustive = TopFragments(matrix, TermSet::kAll, own, options, config);
  options.search = FragmentSearch::kSkipping;
  options.block_bits = -1;
  const FragmentTop no_blocks = TopFragments(matrix, TermSet::kAll, own, options, config);
  options.block_bits = 4;
  const FragmentTop blocks = TopFragments(matrix, TermSet::kAll, own, options, config);
  ExpectSameHead(no_blocks, exhaustive);
  ExpectSameHead(blocks, exhaustive);
  ASSERT_EQ(blocks.picks.size(), 10u);
  EXPECT_GT(layout.turns()[blocks.picks[0].turn].row, 1180);
  // Without blocks: the windows of one of the terms (30 sessions of 18 windows).
  EXPECT_GE(no_blocks.windows_visited, 500u);
  // With blocks: only the blocks holding a window of both terms (turns 1179 to 1200 hold the
  // windows beginning at 1179 - 2 and later, in the last two blocks of 16 begins).
  EXPECT_LE(blocks.windows_visited, 2u * 16u);
}

TEST(FragmentTopTest, NoPicksForALimitOfZero) {
  const GeneratedScope scope(5);
  const std::vector<const index::Bm25Index*> indexes = {&scope.index};
  const std::vector<std::string> query = {"maya", "hiking"};
  const TermMatrix matrix(scope.layout, indexes, query);
  const Bm25Config config;
  const GroupingScores own = matrix.ScoreTurns(config);
  FragmentOptions options;
  options.limit = 0;
  for (const FragmentSearch search : {FragmentSearch::kExhaustive, FragmentSearch::kSkipping}) {
    options.search = search;
    EXPECT_THAT(TopFragments(matrix, TermSet::kAll, own, options, config).picks,
                ::testing::IsEmpty());
  }
}

}  // namespace
}  // namespace engram::read
