// Tests for the fragment, session and temporal routes (context_routes.h) on a hand-built
// two-session conversation.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "read/context_routes.h"
#include "read/read_test_util.h"

namespace engram::read {
namespace {

using ::engram::read::testing::At;
using ::engram::read::testing::Conversation;
using ::engram::read::testing::Frame;
using ::engram::read::testing::Terms;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(ContextRoutesTest, FragmentWindowsBringInTurnsThatMatchNothingAlone) {
  Conversation conversation;
  conversation.config.recall.fragment_window = 3;
  conversation.config.recall.fragment_own_weight = 0;
  // Window rows 2-4 (3 terms) beats rows 6-8 (4 terms); in a window, own BM25 then row decide;
  // rows 1 and 5 have only one-term windows; row 9's windows match nothing.
  EXPECT_THAT(conversation.Rows(FragmentRoute(), Terms({"guitar", "lesson"})),
              ElementsAre(2, 4, 3, 6, 7, 8, 1, 5));
  // With the turn's own score added, row 6 (both terms) passes row 3 (neither).
  conversation.config.recall.fragment_own_weight = 1;
  EXPECT_THAT(conversation.Rows(FragmentRoute(), Terms({"guitar", "lesson"})),
              ElementsAre(6, 2, 4, 3, 7, 8, 1, 5));
  EXPECT_THAT(conversation.Rows(FragmentRoute(), Terms({"absent"})), IsEmpty());
}

TEST(ContextRoutesTest, FragmentRouteTakesSoftMatchesFromTheConfig) {
  Conversation conversation;  // "lesson" at rows 4 and 6
  conversation.config.recall.fragment_soft_match = 0;
  EXPECT_THAT(conversation.Rows(FragmentRoute(), Terms({"lessons"})), IsEmpty());
  conversation.config.recall.fragment_soft_match = 0.95;
  EXPECT_THAT(conversation.Rows(FragmentRoute(), Terms({"lessons"})),
              ::testing::IsSupersetOf({4, 6}));
}

// The fragment route against a direct reading of its rule on random conversations: every window
// of every session scored as one document (TermMatrix::Score), each turn taking its best window
// (the first among equals) plus own_weight x its own BM25, ranked by score, own score, row.
TEST(ContextRoutesTest, FragmentRouteEqualsScoringEveryWindowOfEveryTurn) {
  const std::vector<std::string> vocabulary = {"alpha", "bravo", "charlie", "delta", "echo",
                                               "fox",   "golf",  "hotel",   "india", "juliet"};
  for (std::uint32_t seed = 1; seed <= 10; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 random(seed);
    const auto pick = [&random](std::uint32_t n) {
      return std::uniform_int_distribution<std::uint32_t>(0, n - 1)(random);
    };
    index::Bm25Index index;
    std::vector<LayoutTurn> turns;
    for (std::int64_t row = 1; row <= 120; ++row) {
      std::vector<std::string> doc;
      for (std::uint32_t word = pick(6); word > 0; --word) {
        doc.push_back(vocabulary[pick(vocabulary.size())]);
      }
      index.Add(static_cast<std::uint64_t>(row), doc);
      LayoutTurn turn;
      turn.row = row;
      turn.scope_id = 1;
      turn.sequence = row;
      turn.session_id = "s" + std::to_string((row + pick(3)) / 9);
      turn.length = static_cast<std::uint32_t>(doc.size());
      turns.push_back(turn);
    }
    const TurnLayout layout = TurnLayout::FromTurns(std::move(turns));
    Config config;
    config.recall.fragment_window = 1 + seed % 4;
    config.recall.fragment_soft_match = 0;
    const QueryFrame frame = Terms({"alpha", "echo", "echo", "juliet"});
    const std::vector<const index::Bm25Index*> indexes = {&index};
    RouteContext context;
    context.frame = &frame;
    context.config = &config;
    context.text_indexes = indexes;
    context.layout = &layout;
    context.limit = 25;
    StatusOr<std::vector<RouteCandidate>> candidates = FragmentRoute().Run(context);
    ASSERT_TRUE(candidates.ok());

    const TermMatrix matrix(layout, indexes, frame.terms);
    const std::size_t window = config.recall.fragment_window;
    std::vector<Unit> windows;
    for (const LayoutSession& session : layout.sessions()) {
      if (session.end - session.begin <= window) {
        windows.push_back({session.begin, session.end});
        continue;
      }
      for (std::size_t begin = session.begin; begin + window <= session.end; ++begin) {
        windows.push_back({begin, begin + window});
      }
    }
    const std::vector<UnitScore> window_scores = matrix.Score(windows, config.bm25);
    std::vector<Unit> singles;
    for (std::size_t t = 0; t < layout.turns().size(); ++t) singles.push_back({t, t + 1});
    const std::vector<UnitScore> own = matrix.Score(singles, config.bm25);
    struct Expected {
      std::int64_t row;
      double own;
      double score;
    };
    std::vector<Expected> expected;
    for (std::size_t t = 0; t < layout.turns().size(); ++t) {
      double best = 0;
      for (std::size_t u = 0; u < windows.size(); ++u) {
        if (windows[u].begin <= t && t < windows[u].end) {
          best = std::max(best, window_scores[u].score);
        }
      }
      if (best <= 0) continue;
      const double own_weight = config.recall.fragment_own_weight;
      expected.push_back(
          {layout.turns()[t].row, own[t].score, best + own_weight * own[t].score});
    }
    std::sort(expected.begin(), expected.end(), [](const Expected& a, const Expected& b) {
      if (a.score != b.score) return a.score > b.score;
      if (a.own != b.own) return a.own > b.own;
      return a.row < b.row;
    });
    if (expected.size() > context.limit) expected.resize(context.limit);
    ASSERT_EQ(candidates->size(), expected.size());
    for (std::size_t rank = 0; rank < expected.size(); ++rank) {
      EXPECT_EQ((*candidates)[rank].row, expected[rank].row) << "rank " << rank;
      EXPECT_EQ((*candidates)[rank].score, expected[rank].score) << "rank " << rank;
      EXPECT_THAT((*candidates)[rank].explanation, ::testing::HasSubstr(": bm25 "));
    }
  }
}

// The routes of one recall share one RecallTerms (one TermMatrix, one scoring of each turn):
// whatever order they run in, each proposes what it proposes with a matrix of its own, to the
// last bit of every score and explanation.
TEST(ContextRoutesTest, RoutesSharingTheRecallsTermsProposeWhatTheyProposeAlone) {
  const std::vector<std::string> vocabulary = {"alpha", "bravo", "charlie", "delta", "echo",
                                               "fox",   "golf",  "hotel",   "india", "juliet"};
  const FragmentRoute fragment;
  const SessionRoute session;
  const TemporalRoute temporal;
  const std::vector<const Route*> routes = {&fragment, &session, &temporal};
  for (std::uint32_t seed = 1; seed <= 6; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 random(seed);
    const auto pick = [&random](std::uint32_t n) {
      return std::uniform_int_distribution<std::uint32_t>(0, n - 1)(random);
    };
    index::Bm25Index index;
    std::vector<LayoutTurn> turns;
    for (std::int64_t row = 1; row <= 150; ++row) {
      std::vector<std::string> doc;
      for (std::uint32_t word = pick(6); word > 0; --word) {
        doc.push_back(vocabulary[pick(vocabulary.size())]);
      }
      index.Add(static_cast<std::uint64_t>(row), doc);
      LayoutTurn turn;
      turn.row = row;
      turn.scope_id = 1;
      turn.sequence = row;
      turn.session_id = "s" + std::to_string((row + pick(3)) / 9);
      turn.event_time = Timestamp::FromSeconds(row * 3600);
      turn.length = static_cast<std::uint32_t>(doc.size());
      turns.push_back(turn);
    }
    const TurnLayout layout = TurnLayout::FromTurns(std::move(turns));
    Config config;
    config.recall.fragment_soft_match = 0.9;  // "charlies" finds "charlie"
    QueryFrame frame = Terms({"alpha", "charlies", "echo", "juliet"});
    frame.time_constraints.push_back(
        {"then", Timestamp::FromSeconds(30 * 3600), Timestamp::FromSeconds(90 * 3600), "day"});
    frame.time_constraints.push_back(  // overlaps the first: a turn takes the first holding it
        {"later", Timestamp::FromSeconds(80 * 3600), Timestamp::FromSeconds(120 * 3600), "day"});
    const std::vector<const index::Bm25Index*> indexes = {&index};
    RouteContext context;
    context.frame = &frame;
    context.config = &config;
    context.text_indexes = indexes;
    context.layout = &layout;
    context.limit = 30;
    std::vector<std::vector<RouteCandidate>> alone;
    for (const Route* route : routes) {
      StatusOr<std::vector<RouteCandidate>> candidates = route->Run(context);
      ASSERT_TRUE(candidates.ok());
      EXPECT_FALSE(candidates->empty()) << route->name();
      alone.push_back(std::move(candidates).value());
    }
    EXPECT_THAT(alone[0].front().explanation, ::testing::HasSubstr("charlies~charlie"));
    // The temporal route's head, read from the scored turns alone when enough of them lie in
    // the window, is the head of its full ranking (every turn of the window, a turn scoring 0
    // after those that score).
    context.limit = 1000;
    StatusOr<std::vector<RouteCandidate>> full = temporal.Run(context);
    ASSERT_TRUE(full.ok());
    EXPECT_EQ(full->size(), 90u);  // hours [30, 120)
    EXPECT_EQ(full->back().score, 0.0);
    for (const std::size_t limit : {1u, 5u, 12u, 30u, 89u, 90u, 91u}) {
      context.limit = limit;
      StatusOr<std::vector<RouteCandidate>> head = temporal.Run(context);
      ASSERT_TRUE(head.ok());
      ASSERT_EQ(head->size(), std::min<std::size_t>(limit, full->size()));
      for (std::size_t rank = 0; rank < head->size(); ++rank) {
        EXPECT_EQ((*head)[rank].row, (*full)[rank].row) << "limit " << limit;
        EXPECT_EQ((*head)[rank].score, (*full)[rank].score);
        EXPECT_EQ((*head)[rank].explanation, (*full)[rank].explanation);
      }
    }
    context.limit = 30;
    for (const std::vector<std::size_t>& order :
         {std::vector<std::size_t>{0, 1, 2}, std::vector<std::size_t>{2, 1, 0}}) {
      RecallTerms terms(layout, indexes, frame.terms, config.bm25);
      context.terms = &terms;
      for (const std::size_t r : order) {
        StatusOr<std::vector<RouteCandidate>> shared = routes[r]->Run(context);
        ASSERT_TRUE(shared.ok());
        ASSERT_EQ(shared->size(), alone[r].size()) << routes[r]->name();
        for (std::size_t rank = 0; rank < shared->size(); ++rank) {
          EXPECT_EQ((*shared)[rank].row, alone[r][rank].row);
          EXPECT_EQ((*shared)[rank].score, alone[r][rank].score);
          EXPECT_EQ((*shared)[rank].explanation, alone[r][rank].explanation);
        }
      }
      context.terms = nullptr;
    }
  }
}

TEST(ContextRoutesTest, SessionRouteListsTheBestSessionsTurns) {
  Conversation conversation;
  // Only s2 holds "x": its turns come, own matches first, then in order.
  EXPECT_THAT(conversation.Rows(SessionRoute(), Terms({"x"})), ElementsAre(7, 6, 8, 9));
  conversation.config.recall.session_turns = 2;
  // Equal session scores: s1 first; two turns per session.
  EXPECT_THAT(conversation.Rows(SessionRoute(), Terms({"guitar", "lesson"})),
              ElementsAre(2, 4, 6, 7));
}

TEST(ContextRoutesTest, TemporalRouteNeedsATimeConstraint) {
  const Conversation conversation;
  QueryFrame frame = Terms({"lesson"});
  EXPECT_THAT(conversation.Rows(TemporalRoute(), frame), IsEmpty());
  frame.time_constraints.push_back(
      {"June 2023", At("2023-06-01T00:00:00Z"), At("2023-07-01T00:00:00Z"), "month"});
  EXPECT_THAT(conversation.Rows(TemporalRoute(), frame), ElementsAre(6, 7, 8, 9));
}

TEST(ContextRoutesTest, TemporalRouteDatesAnEventByItsBestTurn) {
  const Conversation conversation;  // rows 1-5 on 2023-05-08, rows 6-9 on 2023-06-10
  QueryFrame frame = Terms({"lesson"});
  // "x" is said only at row 7: after it come the June turns, own BM25 on "lesson" first.
  frame.event_anchors.push_back({"after the x", false, {"x"}});
  EXPECT_THAT(conversation.Rows(TemporalRoute(), frame), ElementsAre(6, 7, 8, 9));
  // Before "weather" (row 3, May): the May turns, row 4 ("lesson") first.
  frame.event_anchors = {{"before the weather", true, {"weather"}}};
  EXPECT_THAT(conversation.Rows(TemporalRoute(), frame), ElementsAre(4, 1, 2, 3, 5));
  // An event no turn mentions dates nothing.
  frame.event_anchors = {{"after the absent", false, {"absent"}}};
  EXPECT_THAT(conversation.Rows(TemporalRoute(), frame), IsEmpty());
}

TEST(ContextRoutesTest, TemporalRouteFindsTurnsByTheTimesTheyName) {
  Conversation conversation;  // rows 1-5 on 2023-05-08, rows 6-9 on 2023-06-10
  std::vector<LayoutTurn> turns = conversation.layout.turns();
  // Row 2 ("guitar", said in May) names 10 June; row 3 names all of June.
  turns[1].mentioned_times = {
      {At("2023-06-10T00:00:00Z"), At("2023-06-11T00:00:00Z"), "on 10 June"}};
  turns[2].mentioned_times = {{At("2023-06-01T00:00:00Z"), At("2023-07-01T00:00:00Z"), "June"}};
  conversation.layout = TurnLayout::FromTurns(std::move(turns));
  QueryFrame frame = Terms({"guitar"});
  frame.time_constraints.push_back(
      {"10 June 2023", At("2023-06-10T00:00:00Z"), At("2023-06-11T00:00:00Z"), "day"});
  // Off: the turns said that day only.
  EXPECT_THAT(conversation.Rows(TemporalRoute(), frame), ElementsAre(6, 7, 8, 9));
  conversation.config.recall.temporal_mentions = true;
  // On: row 2 joins, ranked by its own BM25 (a shorter "guitar" turn than row 6); row 3's
  // month is longer than the day asked about.
  EXPECT_THAT(conversation.Rows(TemporalRoute(), frame), ElementsAre(2, 6, 7, 8, 9));
  RouteContext context;
  context.frame = &frame;
  context.config = &conversation.config;
  context.text_indexes = conversation.indexes;
  context.layout = &conversation.layout;
  StatusOr<std::vector<RouteCandidate>> candidates = TemporalRoute().Run(context);
  ASSERT_TRUE(candidates.ok());
  ASSERT_FALSE(candidates->empty());
  EXPECT_EQ(candidates->front().explanation.rfind("mentions 2023-06-10 ('on 10 June') in ", 0), 0u)
      << candidates->front().explanation;
  // Asked about June, row 3's month counts too; ties in layout order.
  frame.time_constraints = {
      {"June 2023", At("2023-06-01T00:00:00Z"), At("2023-07-01T00:00:00Z"), "month"}};
  EXPECT_THAT(conversation.Rows(TemporalRoute(), frame), ElementsAre(2, 6, 3, 7, 8, 9));
  // An event anchor's window does not take named times.
  frame.time_constraints.clear();
  frame.event_anchors = {{"after the x", false, {"x"}}};
  EXPECT_THAT(conversation.Rows(TemporalRoute(), frame), ElementsAre(6, 7, 8, 9));
}

}  // namespace
}  // namespace engram::read
