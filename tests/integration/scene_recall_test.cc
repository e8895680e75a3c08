// Recall over a consolidated scope through the public API: the scene route (read/scene_route.h)
// proposes nothing before Engine::Consolidate and afterwards the turns of the best episode
// first, including its turns that match no query word; foresight filtering hides a plan whose
// window has passed unless the question asks about the past.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "engram/engine.h"
#include "engram/testing/status_matchers.h"
#include "test_util.h"

namespace engram {
namespace {

using ::engram::testing::IsOk;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::StartsWith;

std::vector<Turn> Conversation() {
  using testing::MakeTurn;
  return {
      MakeTurn("Mia", "I moved to Berlin last March.", "s1", "2024-05-10T12:00:00Z"),
      MakeTurn("Leo", "How do you like the city so far?", "s1", "2024-05-10T12:01:00Z"),
      MakeTurn("Mia", "The parks are huge and the bakeries are everywhere.", "s1",
               "2024-05-10T12:02:00Z"),
      MakeTurn("Leo", "Did you find a flat near the parks?", "s1", "2024-05-10T12:03:00Z"),
      MakeTurn("Mia", "Yes, a small flat in Kreuzberg close to a park.", "s1",
               "2024-05-10T12:04:00Z"),
      MakeTurn("Leo", "My guitar teacher cancelled the concert rehearsal tonight.", "s2",
               "2024-06-20T20:00:00Z"),
      MakeTurn("Mia", "Sorry to hear that, the rehearsal sounded fun.", "s2",
               "2024-06-20T20:01:00Z"),
      MakeTurn("Leo", "We will play the concert in July instead.", "s2", "2024-06-20T20:02:00Z"),
  };
}

RecallOptions SceneOnly() {
  RecallOptions options;
  options.routes = {"scene"};
  options.k = 50;
  return options;
}

TEST(SceneRecallTest, ProposesNothingBeforeConsolidation) {
  testing::TempDir dir;
  std::unique_ptr<Engine> engine = testing::OpenOrDie(testing::TestOptions(dir));
  const Scope scope = testing::S("user:mia");
  ASSERT_THAT(engine->Remember(scope, Conversation()), IsOk());
  StatusOr<ReadResult> result = engine->Recall(scope, {.text = "Where is the flat?"}, SceneOnly());
  ASSERT_THAT(result, IsOk());
  EXPECT_THAT(result->items, IsEmpty());
  ASSERT_EQ(result->diagnostics.routes.size(), 1u);
  EXPECT_EQ(result->diagnostics.routes[0].route, "scene");
  EXPECT_EQ(result->diagnostics.routes[0].candidates, 0u);
}

TEST(SceneRecallTest, BestEpisodeComesFirstWithItsUnmatchedTurns) {
  testing::TempDir dir;
  std::unique_ptr<Engine> engine = testing::OpenOrDie(testing::TestOptions(dir));
  const Scope scope = testing::S("user:mia");
  StatusOr<RememberResult> remembered = engine->Remember(scope, Conversation());
  ASSERT_THAT(remembered, IsOk());
  ASSERT_THAT(engine->Consolidate(scope), IsOk());

  // The episode holding the Kreuzberg turn (turn 5).
  ListOptions list;
  list.kind = NodeKind::kEpisode;
  list.include_retired = false;
  StatusOr<std::vector<Memory>> episodes = engine->List(scope, list);
  ASSERT_THAT(episodes, IsOk());
  std::vector<std::string> episode_turns;
  for (const Memory& episode : *episodes) {
    const nlohmann::json fields = nlohmann::json::parse(episode.metadata_json);
    std::vector<std::string> turns(fields["turns"].begin(), fields["turns"].end());
    if (std::find(turns.begin(), turns.end(), remembered->ids[4]) != turns.end()) {
      episode_turns = turns;
    }
  }
  ASSERT_GE(episode_turns.size(), 2u);

  StatusOr<ReadResult> result =
      engine->Recall(scope, {.text = "Where is the flat in Kreuzberg?"}, SceneOnly());
  ASSERT_THAT(result, IsOk());
  const std::vector<std::string> ids = testing::ItemIds(*result);
  ASSERT_GE(ids.size(), episode_turns.size());
  // The route's own ranking (before the adjustments after fusion move neighbours): the matching
  // turn first, then the rest of its episode, turns that no query word matches included.
  std::set<std::string> first_ranked;
  for (const RecallItem& item : result->items) {
    if (item.routes.empty()) continue;  // a neighbour no route proposed
    const RouteScore& scene = item.routes[0];
    if (scene.rank == 1) {
      EXPECT_EQ(item.id, remembered->ids[4]);
      EXPECT_THAT(scene.explanation, StartsWith("episode #1 "));
      EXPECT_THAT(scene.explanation, HasSubstr("bm25 rank 1"));
    }
    if (scene.rank <= episode_turns.size()) first_ranked.insert(item.id);
  }
  EXPECT_EQ(first_ranked, std::set<std::string>(episode_turns.begin(), episode_turns.end()));

  // Deterministic: the same ranking and scores again.
  StatusOr<ReadResult> again =
      engine->Recall(scope, {.text = "Where is the flat in Kreuzberg?"}, SceneOnly());
  ASSERT_THAT(again, IsOk());
  ASSERT_EQ(testing::ItemIds(*again), ids);
  for (std::size_t item_idx = 0; item_idx < ids.size(); ++item_idx) {
    EXPECT_EQ(again->items[item_idx].score, result->items[item_idx].score);
  }
}

TEST(SceneRecallTest, SceneRouteIsOffByDefault) {
  testing::TempDir dir;
  std::unique_ptr<Engine> engine = testing::OpenOrDie(testing::TestOptions(dir));
  const Scope scope = testing::S("user:mia");
  ASSERT_THAT(engine->Remember(scope, Conversation()), IsOk());
  ASSERT_THAT(engine->Consolidate(scope), IsOk());
  StatusOr<ReadResult> result = engine->Recall(scope, {.text = "Where is the flat?"}, {});
  ASSERT_THAT(result, IsOk());
  for (const RouteDiagnostics& route : result->diagnostics.routes) EXPECT_NE(route.route, "scene");
  RecallOptions weighted;
  weighted.route_weights = {{"scene", 1.0}};
  result = engine->Recall(scope, {.text = "Where is the flat?"}, weighted);
  ASSERT_THAT(result, IsOk());
  bool ran = false;
  for (const RouteDiagnostics& route : result->diagnostics.routes) {
    ran = ran || (route.route == "scene" && route.candidates > 0);
  }
  EXPECT_TRUE(ran);
}

// The foresight facts among a recall's items.
std::vector<std::string> ForesightItems(const ReadResult& result) {
  std::vector<std::string> texts;
  for (const RecallItem& item : result.items) {
    if (item.kind != NodeKind::kFact) continue;
    const nlohmann::json fields = nlohmann::json::parse(item.metadata_json, nullptr, false);
    if (fields.is_object() && fields.value("kind", "") == "foresight") texts.push_back(item.text);
  }
  return texts;
}

TEST(SceneRecallTest, ExpiredForesightIsHiddenUnlessThePastIsAsked) {
  testing::TempDir dir;
  std::unique_ptr<Engine> engine = testing::OpenOrDie(testing::TestOptions(dir));
  const Scope scope = testing::S("user:mia");
  // 10 May 2024 is a Friday: "next Friday" is 17 May.
  const std::vector<Turn> plan = {testing::MakeTurn(
      "Mia", "I am going to visit my sister in Lyon next Friday.", "s1", "2024-05-10T12:00:00Z")};
  ASSERT_THAT(engine->Remember(scope, plan), IsOk());
  RecallOptions facts;
  facts.routes = {"facts"};
  const auto ask = [&](const char* question, const char* now) {
    StatusOr<ReadResult> result =
        engine->Recall(scope, {.text = question, .query_time = *ParseTimestamp(now)}, facts);
    EXPECT_THAT(result, IsOk());
    return result.ok() ? ForesightItems(*result) : std::vector<std::string>{};
  };
  // Before the plan's day it is valid; after it, hidden from a question about the present and
  // shown to one about the past.
  EXPECT_EQ(ask("Is Mia going to visit her sister in Lyon?", "2024-05-12T09:00:00Z").size(), 1u);
  EXPECT_THAT(ask("Is Mia going to visit her sister in Lyon?", "2024-05-20T09:00:00Z"), IsEmpty());
  EXPECT_EQ(ask("Did Mia visit her sister in Lyon?", "2024-05-20T09:00:00Z").size(), 1u);
}

}  // namespace
}  // namespace engram
