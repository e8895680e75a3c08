// Tests for the fragment, session and temporal routes (context_routes.h) on a hand-built
// two-session conversation.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace engram::read
