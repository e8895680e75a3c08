// Facts through the public API: Engine::Remember derives validated facts in the same transaction
// as the turns, reconciles them (supersedes / corrects / contradicts), and Engine::List / History
// show them with their provenance. Also: determinism of the derived facts, and a bad batch stores
// neither turns nor facts.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engram/engine.h"
#include "engram/testing/status_matchers.h"
#include "store/store.h"
#include "test_util.h"

namespace engram {
namespace {

using ::engram::testing::IsOk;
using ::engram::testing::StatusIs;

std::vector<Memory> Facts(Engine& engine, const std::string& scope) {
  ListOptions options;
  options.kind = NodeKind::kFact;
  options.limit = 0;
  StatusOr<std::vector<Memory>> facts = engine.List(testing::S(scope), options);
  EXPECT_THAT(facts, IsOk());
  return facts.ok() ? *facts : std::vector<Memory>{};
}

nlohmann::json Fields(const Memory& memory) { return nlohmann::json::parse(memory.metadata_json); }

const Memory* FindFact(const std::vector<Memory>& facts, const std::string& predicate,
                       const std::string& object) {
  for (const Memory& memory : facts) {
    const nlohmann::json fields = Fields(memory);
    if (fields["predicate"] == predicate && fields["object"] == object) return &memory;
  }
  return nullptr;
}

TEST(FactsIntegrationTest, MoveThenCorrectionLeavesOneCurrentResidence) {
  testing::TempDir dir;
  std::unique_ptr<Engine> engine = testing::OpenOrDie(testing::TestOptions(dir));
  const Scope scope = testing::S("user:mia");
  const Turn first = testing::MakeTurn("Mia", "I moved to Berlin last March.", "s1",
                                       "2024-05-10T12:00:00Z");
  const Turn filler = testing::MakeTurn("Mia", "Do you know a good bakery around here?", "s1",
                                        "2024-05-10T12:05:00Z");
  const Turn second = testing::MakeTurn("Mia", "I actually live in Munich now, I moved in June.",
                                        "s2", "2024-07-20T09:00:00Z");
  StatusOr<RememberResult> r1 = engine->Remember(scope, std::vector<Turn>{first, filler});
  ASSERT_THAT(r1, IsOk());
  StatusOr<RememberResult> r2 = engine->Remember(scope, std::vector<Turn>{second});
  ASSERT_THAT(r2, IsOk());

  const std::vector<Memory> facts = Facts(*engine, "user:mia");
  ASSERT_EQ(facts.size(), 2u);
  const Memory* berlin = FindFact(facts, "lives_in", "Berlin");
  const Memory* munich = FindFact(facts, "lives_in", "Munich");
  ASSERT_NE(berlin, nullptr);
  ASSERT_NE(munich, nullptr);
  EXPECT_EQ(munich->status, NodeStatus::kActive);
  EXPECT_EQ(berlin->status, NodeStatus::kSuperseded);
  EXPECT_EQ(berlin->valid_from, *ParseTimestamp("2024-03-01"));
  EXPECT_EQ(munich->valid_from, *ParseTimestamp("2024-06-01"));
  EXPECT_EQ(berlin->valid_to, munich->valid_from);
  EXPECT_FALSE(munich->valid_to.has_value());
  // Provenance: each fact points at the turn it came from.
  EXPECT_THAT(berlin->provenance, ::testing::ElementsAre(r1->ids[0]));
  EXPECT_THAT(munich->provenance, ::testing::ElementsAre(r2->ids[0]));
  EXPECT_EQ(berlin->sequence, 1);
  EXPECT_EQ(munich->sequence, 3);
  // The chain is visible in History.
  StatusOr<std::vector<HistoryEvent>> history = engine->History(berlin->id);
  ASSERT_THAT(history, IsOk());
  bool superseded_by_munich = false;
  for (const HistoryEvent& event : *history) {
    if (event.action == "supersedes (incoming)" && event.related_id == munich->id) {
      superseded_by_munich = true;
    }
  }
  EXPECT_TRUE(superseded_by_munich);
  // Facts are not turns: the default listing and recall candidates are unchanged.
  StatusOr<std::vector<Memory>> turns = engine->List(scope);
  ASSERT_THAT(turns, IsOk());
  EXPECT_EQ(turns->size(), 3u);
}

TEST(FactsIntegrationTest, AssistantTurnsAndQuestionsYieldNoActiveFacts) {
  testing::TempDir dir;
  std::unique_ptr<Engine> engine = testing::OpenOrDie(testing::TestOptions(dir));
  Turn assistant = testing::MakeTurn("", "I live in the cloud and I love helping.");
  assistant.role = Role::kAssistant;
  const Turn question = testing::MakeTurn("Mia", "Do you think I should move to Paris?");
  const Turn hearsay = testing::MakeTurn("Mia", "I heard that Tom works at Google.");
  ASSERT_THAT(
      engine->Remember(testing::S("user:mia"), std::vector<Turn>{assistant, question, hearsay}),
      IsOk());
  // The user's candidates are kept, rejected with the validator's reason; none is active.
  const std::vector<Memory> facts = Facts(*engine, "user:mia");
  EXPECT_FALSE(facts.empty());
  for (const Memory& fact : facts) {
    EXPECT_EQ(fact.status, NodeStatus::kRejected) << fact.text;
    EXPECT_EQ(Fields(fact)["rejected"]["check"], "act") << fact.text;
  }
  const Memory* google = FindFact(facts, "works_at", "Google");
  ASSERT_NE(google, nullptr);
  EXPECT_THAT(Fields(*google)["rejected"]["reason"].get<std::string>(),
              ::testing::HasSubstr("hearsay"));
}

TEST(FactsIntegrationTest, BadBatchStoresNoFacts) {
  testing::TempDir dir;
  std::unique_ptr<Engine> engine = testing::OpenOrDie(testing::TestOptions(dir));
  const Turn good = testing::MakeTurn("Mia", "I live in Oslo.");
  Turn bad = testing::MakeTurn("Mia", "I work at Acme.");
  bad.metadata_json = "[1, 2]";  // not an object
  EXPECT_THAT(engine->Remember(testing::S("user:mia"), std::vector<Turn>{good, bad}),
              StatusIs(StatusCode::kInvalidArgument));
  EXPECT_THAT(engine->List(testing::S("user:mia")), StatusIs(StatusCode::kNotFound));
  ASSERT_THAT(engine->Remember(testing::S("user:mia"), std::vector<Turn>{good}), IsOk());
  EXPECT_EQ(Facts(*engine, "user:mia").size(), 1u);
}

TEST(FactsIntegrationTest, FactsAreDeterministic) {
  const std::vector<std::string> texts = {
      "I moved to Berlin last March.", "I love sushi but I don't like olives.",
      "My sister Anna lives in Porto.", "We adopted a puppy last week.",
      "I'm going to learn Spanish.",   "Actually I live in Munich now.",
      "We switched from MySQL to Postgres.", "I'm allergic to peanuts."};
  std::string dumps[2];
  for (int run = 0; run < 2; ++run) {
    testing::TempDir dir;
    {
      std::unique_ptr<Engine> engine = testing::OpenOrDie(testing::TestOptions(dir));
      for (std::size_t text_idx = 0; text_idx < texts.size(); ++text_idx) {
        const Turn turn = testing::MakeTurn(
            "Mia", texts[text_idx], "s1",
            "2024-05-1" + std::to_string(text_idx) + "T12:00:00Z");
        ASSERT_THAT(engine->Remember(testing::S("user:mia"), std::vector<Turn>{turn}), IsOk());
      }
      EXPECT_GE(Facts(*engine, "user:mia").size(), 8u);
    }
    StatusOr<std::unique_ptr<store::Store>> store =
        store::OpenSqliteStore(dir.File("engram.db"), {.create_if_missing = false});
    ASSERT_THAT(store, IsOk());
    StatusOr<std::string> dump = (*store)->DumpCanonical();
    ASSERT_THAT(dump, IsOk());
    dumps[run] = *dump;
  }
  EXPECT_EQ(dumps[0], dumps[1]);
  EXPECT_NE(dumps[0].find("lives_in"), std::string::npos);
}

}  // namespace
}  // namespace engram
