// Tests for the entity bridge (bridge.h) on a hand-built graph.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "read/bridge.h"
#include "read/read_test_util.h"

namespace engram::read {
namespace {

using ::engram::read::testing::Candidate;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

// The entity bridge on a hand-built graph: rare entities of the seeds lead to the turns of other
// sessions that name them, with exact bonuses; speakers, common entities, the seed's own session,
// other roles and non-seeds lead nowhere.
// Adds an entity class named `name` mentioned by `rows`.
void AddEntity(ScopeGraph& graph, std::string name, std::vector<std::int64_t> rows,
               bool speaker = false) {
  GraphEntity entity;
  entity.row = static_cast<std::int64_t>(graph.entities.size()) + 1000;
  entity.name = std::move(name);
  entity.speaker = speaker;
  entity.class_index = graph.classes.size();
  EntityClass entity_class;
  entity_class.members = {graph.entities.size()};
  for (const std::int64_t row : rows) {
    entity_class.links.push_back({.turn_row = row, .mentioned = true, .referred = false});
  }
  graph.entities.push_back(std::move(entity));
  graph.classes.push_back(std::move(entity_class));
}

// Rows 1-40, each its own session but rows 2 and 3 (one session), all users but row 21 (an
// assistant).
TurnLayout BridgeLayout() {
  std::vector<LayoutTurn> turns;
  for (std::int64_t row = 1; row <= 40; ++row) {
    LayoutTurn turn;
    turn.row = row;
    turn.scope_id = 1;
    turn.sequence = row;
    turn.session_id = "s" + std::to_string(row == 3 ? 2 : row);
    turn.role = row == 21 ? Role::kAssistant : Role::kUser;
    turns.push_back(turn);
  }
  return TurnLayout::FromTurns(turns);
}

std::shared_ptr<const ScopeGraph> BridgeGraph() {
  auto graph = std::make_shared<ScopeGraph>();
  graph->turn_count = 40;
  AddEntity(*graph, "Kristin Hannah", {1, 7});              // rare, named by seed 1
  AddEntity(*graph, "Lisbon", {2, 8, 9});                   // rare, named by seed 2
  AddEntity(*graph, "Caroline", {1, 2, 3, 7, 8}, true);     // a speaker
  AddEntity(*graph, "Paris", {1, 10, 11, 12, 13, 14, 15});  // too common (7 turns)
  AddEntity(*graph, "Porto", {20, 21});                     // no seed names it
  return graph;
}

TEST(BridgeTest, RareEntitiesOfTheSeedsLiftTheTurnsThatNameThem) {
  RecallConfig config;
  config.bridge_weight = 0.5;
  config.bridge_seeds = 2;
  config.bridge_max_turns = 5;
  std::vector<Ranked> ranked = {Candidate(1, 0.4), Candidate(2, 0.2), Candidate(3, 0.1),
                                Candidate(9, 0.05)};
  const std::vector<std::shared_ptr<const ScopeGraph>> graphs = {BridgeGraph()};
  // Rows 7 and 8 join the list; row 9 is lifted.
  EXPECT_EQ(ApplyBridge(ranked, graphs, BridgeLayout(), config), 2u);
  SortRanked(ranked);
  std::vector<std::pair<std::int64_t, double>> scores;
  for (const Ranked& candidate : ranked) scores.emplace_back(candidate.fused.row, candidate.score);
  ASSERT_EQ(scores.size(), 6u);
  EXPECT_EQ(scores[0], std::make_pair(std::int64_t{1}, 0.4));
  EXPECT_EQ(scores[1].first, 2);  // ties: the smaller row first
  EXPECT_DOUBLE_EQ(scores[1].second, 0.2);
  EXPECT_EQ(scores[2].first, 7);  // 0.5 x 0.4 through Kristin Hannah
  EXPECT_DOUBLE_EQ(scores[2].second, 0.2);
  EXPECT_EQ(scores[3].first, 9);  // 0.05 + 0.5 x 0.2 through Lisbon
  EXPECT_DOUBLE_EQ(scores[3].second, 0.15);
  EXPECT_EQ(scores[4].first, 3);  // a speaker, or seed 2's session, leads nowhere: unchanged
  EXPECT_DOUBLE_EQ(scores[4].second, 0.1);
  EXPECT_EQ(scores[5].first, 8);  // 0.5 x 0.2 through Lisbon
  EXPECT_DOUBLE_EQ(scores[5].second, 0.1);
  const Ranked& bridged = ranked[2];
  ASSERT_EQ(bridged.adjustments.size(), 1u);
  EXPECT_EQ(bridged.adjustments[0].name, "bridge");
  EXPECT_DOUBLE_EQ(bridged.adjustments[0].bonus, 0.2);
  EXPECT_EQ(bridged.adjustments[0].detail,
            "mentions Kristin Hannah, like the candidate ranked 1 (score 0.4000) that names it: "
            "+0.2000");
}

TEST(BridgeTest, OffOrWithoutSeedsChangesNothing) {
  const std::vector<std::shared_ptr<const ScopeGraph>> graphs = {BridgeGraph()};
  RecallConfig config;
  config.bridge_weight = 0;
  std::vector<Ranked> ranked = {Candidate(1, 0.4)};
  EXPECT_EQ(ApplyBridge(ranked, graphs, BridgeLayout(), config), 0u);
  EXPECT_EQ(ranked.size(), 1u);
  EXPECT_DOUBLE_EQ(ranked[0].score, 0.4);
  config.bridge_weight = 0.5;
  std::vector<Ranked> empty;
  EXPECT_EQ(ApplyBridge(empty, graphs, BridgeLayout(), config), 0u);
  // A seed that names only common or speaker entities, and one whose rare entity only an
  // assistant's turn (another role) names.
  std::vector<Ranked> only_row_3 = {Candidate(3, 0.4)};
  EXPECT_EQ(ApplyBridge(only_row_3, graphs, BridgeLayout(), config), 0u);
  EXPECT_TRUE(only_row_3[0].adjustments.empty());
}

}  // namespace
}  // namespace engram::read
