// Consolidation through the public API: Engine::Consolidate builds episodes, scenes and
// profiles; a second run changes nothing; consolidating in steps as turns arrive leaves the same
// active nodes as consolidating everything once; the profile keeps a replaced value as history.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "engram/config.h"
#include "engram/engine.h"
#include "engram/testing/status_matchers.h"
#include "test_util.h"

namespace engram {
namespace {

using ::engram::testing::IsOk;
using ::engram::testing::StatusIs;
using ::testing::ElementsAre;

std::vector<Turn> Conversation() {
  using testing::MakeTurn;
  return {
      MakeTurn("Mia", "I moved to Berlin last March.", "s1", "2024-05-10T12:00:00Z"),
      MakeTurn("Leo", "How do you like the city so far?", "s1", "2024-05-10T12:01:00Z"),
      MakeTurn("Mia", "Berlin is great, the parks are huge and the bakeries are everywhere.", "s1",
               "2024-05-10T12:02:00Z"),
      MakeTurn("Leo", "Did you find a flat near the parks?", "s1", "2024-05-10T12:03:00Z"),
      MakeTurn("Mia", "Yes, a small flat in Kreuzberg close to a park.", "s1",
               "2024-05-10T12:04:00Z"),
      // Hours later, same session: a time gap.
      MakeTurn("Leo", "My guitar teacher cancelled the concert rehearsal tonight.", "s1",
               "2024-05-10T20:00:00Z"),
      MakeTurn("Mia", "Sorry to hear that, the rehearsal sounded fun.", "s1",
               "2024-05-10T20:01:00Z"),
      // A new session.
      MakeTurn("Mia", "I actually live in Munich now.", "s2", "2024-07-20T09:00:00Z"),
      MakeTurn("Leo", "Munich! What made you move?", "s2", "2024-07-20T09:01:00Z"),
      MakeTurn("Mia", "A new job at a robotics lab near the university.", "s2",
               "2024-07-20T09:02:00Z"),
      MakeTurn("Leo", "Congratulations on the robotics job!", "s2", "2024-07-20T09:03:00Z"),
  };
}

std::vector<Memory> Nodes(Engine& engine, const Scope& scope, NodeKind kind, bool all = false) {
  ListOptions options;
  options.kind = kind;
  options.limit = 0;
  options.include_retired = true;
  StatusOr<std::vector<Memory>> listed = engine.List(scope, options);
  EXPECT_THAT(listed, IsOk());
  std::vector<Memory> kept;
  if (!listed.ok()) return kept;
  for (Memory& memory : *listed) {
    if (all || memory.status == NodeStatus::kActive) kept.push_back(std::move(memory));
  }
  return kept;
}

// The active nodes of the consolidation kinds as (id, metadata) pairs.
std::vector<std::pair<std::string, std::string>> Consolidated(Engine& engine, const Scope& scope) {
  std::vector<std::pair<std::string, std::string>> nodes;
  for (const NodeKind kind : {NodeKind::kEpisode, NodeKind::kScene, NodeKind::kProfile}) {
    for (const Memory& memory : Nodes(engine, scope, kind)) {
      nodes.emplace_back(memory.id, memory.metadata_json);
    }
  }
  return nodes;
}

nlohmann::json Fields(const Memory& memory) { return nlohmann::json::parse(memory.metadata_json); }

TEST(ConsolidateTest, UnknownScopeIsNotFound) {
  testing::TempDir dir;
  std::unique_ptr<Engine> engine = testing::OpenOrDie(testing::TestOptions(dir));
  EXPECT_THAT(engine->Consolidate(testing::S("user:nobody")), StatusIs(StatusCode::kNotFound));
  EXPECT_THAT(engine->Consolidate(Scope()), StatusIs(StatusCode::kInvalidArgument));
}

TEST(ConsolidateTest, ConfigSectionIsParsedAndChecked) {
  StatusOr<Config> config =
      ParseConfig("[consolidate]\nscene_threshold = 0.5\nscene_max_gap_days = 30\n", "c.toml");
  ASSERT_THAT(config, IsOk());
  EXPECT_EQ(config->consolidate.scene_threshold, 0.5);
  EXPECT_EQ(config->consolidate.scene_max_gap_days, 30u);
  EXPECT_EQ(Config().consolidate.scene_threshold, 0.70);  // EverMemOS Table 6, LoCoMo
  EXPECT_EQ(Config().consolidate.scene_max_gap_days, 7u);
  EXPECT_THAT(ParseConfig("[consolidate]\nscene_threshold = 1.5\n", "c.toml"),
              StatusIs(StatusCode::kInvalidArgument));
  EXPECT_THAT(ParseConfig("[consolidate]\nepisode_max_turns = 0\n", "c.toml"),
              StatusIs(StatusCode::kInvalidArgument));
  EXPECT_THAT(ParseConfig("[consolidate]\nscene_treshold = 0.5\n", "c.toml"),
              StatusIs(StatusCode::kInvalidArgument));
}

TEST(ConsolidateTest, EpisodesFollowSessionsAndTimeGapsAndCiteTheirTurns) {
  testing::TempDir dir;
  std::unique_ptr<Engine> engine = testing::OpenOrDie(testing::TestOptions(dir));
  const Scope scope = testing::S("user:mia");
  StatusOr<RememberResult> remembered = engine->Remember(scope, Conversation());
  ASSERT_THAT(remembered, IsOk());
  StatusOr<ConsolidateResult> result = engine->Consolidate(scope);
  ASSERT_THAT(result, IsOk());
  EXPECT_EQ(result->turns, 11u);

  const std::vector<Memory> episodes = Nodes(*engine, scope, NodeKind::kEpisode);
  ASSERT_EQ(episodes.size(), result->episodes);
  ASSERT_GE(episodes.size(), 3u);
  // The time gap (turn 5) and the new session (turn 7) start episodes; every turn is in
  // exactly one episode, in order.
  std::vector<std::string> covered;
  std::vector<std::string> boundaries;
  std::set<std::size_t> starts;
  for (const Memory& episode : episodes) {
    const nlohmann::json fields = Fields(episode);
    boundaries.push_back(fields["boundary"]);
    starts.insert(covered.size());
    for (const auto& turn : fields["turns"]) covered.push_back(turn);
    // derived_from each of its turns.
    StatusOr<std::vector<Link>> links = engine->Links(episode.id);
    ASSERT_THAT(links, IsOk());
    std::set<std::string> sources;
    for (const Link& link : *links) {
      if (link.type == "derived_from" && link.src == episode.id) sources.insert(link.dst);
    }
    const std::set<std::string> turns(fields["turns"].begin(), fields["turns"].end());
    EXPECT_EQ(sources, turns);
    EXPECT_EQ(std::set<std::string>(episode.provenance.begin(), episode.provenance.end()), turns);
    // Every narrative sentence quotes one of the episode's turns.
    for (const auto& sentence : fields["sentences"]) {
      EXPECT_TRUE(turns.contains(sentence["turn"].get<std::string>())) << sentence.dump();
    }
    EXPECT_EQ(episode.text, fields["narrative"]);
  }
  EXPECT_EQ(covered, remembered->ids);
  EXPECT_TRUE(starts.contains(5)) << "time gap";
  EXPECT_TRUE(starts.contains(7)) << "session";
  EXPECT_EQ(boundaries.front(), "start");
  const nlohmann::json first = Fields(episodes.front());
  EXPECT_EQ(first["start"], "2024-05-10T12:00:00Z");
  EXPECT_THAT(first["speakers"], ElementsAre("Mia", "Leo"));
  EXPECT_EQ(first["sentences"][0]["text"], "On 10 May 2024, Mia and Leo talked.");
  // "last March" is made absolute in the quote.
  EXPECT_NE(first["narrative"].get<std::string>().find("last March [March 2024]"),
            std::string::npos)
      << first["narrative"];
  // The Berlin fact belongs to the first episode.
  EXPECT_EQ(first["facts"].size(), 1u);
}

TEST(ConsolidateTest, SecondRunChangesNothing) {
  testing::TempDir dir;
  std::unique_ptr<Engine> engine = testing::OpenOrDie(testing::TestOptions(dir));
  const Scope scope = testing::S("user:mia");
  ASSERT_THAT(engine->Remember(scope, Conversation()), IsOk());
  StatusOr<ConsolidateResult> first = engine->Consolidate(scope);
  ASSERT_THAT(first, IsOk());
  EXPECT_GT(first->written, 0u);
  const auto before = Consolidated(*engine, scope);
  StatusOr<ConsolidateResult> second = engine->Consolidate(scope);
  ASSERT_THAT(second, IsOk());
  EXPECT_EQ(second->written, 0u);
  EXPECT_EQ(second->superseded, 0u);
  EXPECT_EQ(second->episodes, first->episodes);
  EXPECT_EQ(Consolidated(*engine, scope), before);
}

TEST(ConsolidateTest, IncrementalEqualsFromScratch) {
  const std::vector<Turn> turns = Conversation();
  const Scope scope = testing::S("user:mia");

  testing::TempDir scratch_dir;
  std::unique_ptr<Engine> scratch = testing::OpenOrDie(testing::TestOptions(scratch_dir));
  ASSERT_THAT(scratch->Remember(scope, turns), IsOk());
  ASSERT_THAT(scratch->Consolidate(scope), IsOk());

  testing::TempDir steps_dir;
  std::unique_ptr<Engine> steps = testing::OpenOrDie(testing::TestOptions(steps_dir));
  // Consolidate after each of a few batches; the cuts fall inside episodes.
  const std::size_t cuts[] = {3, 6, 9, turns.size()};
  std::size_t done = 0;
  for (const std::size_t cut : cuts) {
    ASSERT_THAT(steps->Remember(scope, std::span(turns).subspan(done, cut - done)), IsOk());
    ASSERT_THAT(steps->Consolidate(scope), IsOk());
    done = cut;
  }
  EXPECT_EQ(Consolidated(*steps, scope), Consolidated(*scratch, scope));
  // The steps did replace grown episodes: superseded ones remain, with a successor.
  std::size_t superseded = 0;
  for (const Memory& episode : Nodes(*steps, scope, NodeKind::kEpisode, /*all=*/true)) {
    if (episode.status == NodeStatus::kSuperseded) ++superseded;
  }
  EXPECT_GT(superseded, 0u);
}

TEST(ConsolidateTest, EveryTurnsConsolidatesWhenABatchCrossesAMultiple) {
  testing::TempDir dir;
  EngineOptions options = testing::TestOptions(dir);
  options.config = Config();
  options.config->consolidate.every_turns = 4;
  std::unique_ptr<Engine> engine = testing::OpenOrDie(options);
  const Scope scope = testing::S("user:mia");
  const std::vector<Turn> turns = Conversation();
  std::vector<std::string> ids;
  for (std::size_t begin = 0; begin < turns.size(); begin += 3) {
    const std::size_t end = std::min(begin + 3, turns.size());
    StatusOr<RememberResult> remembered =
        engine->Remember(scope, std::span(turns).subspan(begin, end - begin));
    ASSERT_THAT(remembered, IsOk());
    ids.insert(ids.end(), remembered->ids.begin(), remembered->ids.end());
    if (begin == 0) {  // turns 1-3: no multiple of 4 crossed yet
      EXPECT_TRUE(Nodes(*engine, scope, NodeKind::kEpisode).empty());
    }
  }
  // Batches 4-6 and 7-9 crossed 4 and 8; 10-11 crossed nothing: the episodes cover turns 1-9.
  std::vector<std::string> covered;
  for (const Memory& episode : Nodes(*engine, scope, NodeKind::kEpisode)) {
    const nlohmann::json fields = Fields(episode);
    for (const auto& turn : fields["turns"]) covered.push_back(turn);
  }
  EXPECT_EQ(covered, std::vector<std::string>(ids.begin(), ids.begin() + 9));
}

TEST(ConsolidateTest, ProfileKeepsTheReplacedResidenceAsHistory) {
  testing::TempDir dir;
  std::unique_ptr<Engine> engine = testing::OpenOrDie(testing::TestOptions(dir));
  const Scope scope = testing::S("user:mia");
  StatusOr<RememberResult> remembered = engine->Remember(scope, Conversation());
  ASSERT_THAT(remembered, IsOk());
  ASSERT_THAT(engine->Consolidate(scope), IsOk());
  const std::vector<Memory> profiles = Nodes(*engine, scope, NodeKind::kProfile);
  ASSERT_FALSE(profiles.empty());
  const nlohmann::json mia = Fields(profiles.front());
  EXPECT_EQ(mia["name"], "Mia");
  EXPECT_EQ(mia["scope_user"], true);
  const nlohmann::json* residence = nullptr;
  for (const auto& slot : mia["explicit"]) {
    if (slot["predicate"] == "lives_in") residence = &slot;
  }
  ASSERT_NE(residence, nullptr) << mia.dump(2);
  EXPECT_EQ((*residence)["current"]["object"], "Munich");
  EXPECT_THAT((*residence)["current"]["turns"], ElementsAre(remembered->ids[7]));
  ASSERT_EQ((*residence)["history"].size(), 1u);
  EXPECT_EQ((*residence)["history"][0]["object"], "Berlin");
  EXPECT_EQ((*residence)["history"][0]["status"], "superseded");
  EXPECT_THAT((*residence)["history"][0]["turns"], ElementsAre(remembered->ids[0]));
}

}  // namespace
}  // namespace engram
