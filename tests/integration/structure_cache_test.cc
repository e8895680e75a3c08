// The read path's journal-following caches (read/journal_cache.h) against the store they follow:
// over a sequence of writes through the public API — turns with entities and facts, a same_as
// proposal, a correction that supersedes a fact, a retirement, consolidation passes that add and
// supersede episodes, scenes and profiles, an accepted merge — the scope graph
// (read/scope_graph.h) and the consolidated structure (read/scope_structure.h) the caches hold
// after each write equal ones loaded from scratch, and the caches got there by applying the
// journal rows (one load each) except where a row is not an append (the merge reloads).
#include <gtest/gtest.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engram/engine.h"
#include "engram/testing/status_matchers.h"
#include "read/scope_graph.h"
#include "read/scope_structure.h"
#include "store/store.h"
#include "test_util.h"

namespace engram {
namespace {

using ::engram::testing::IsOk;
using testing::MakeTurn;

class StructureCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    options_ = testing::TestOptions(dir_);
    engine_ = testing::OpenOrDie(options_);
    Remember(MakeTurn("Mia", "I moved to Berlin last March.", "s1", "2024-05-10T12:00:00Z"));
    auto store = store::OpenSqliteStore(options_.store_path);
    ASSERT_THAT(store.status(), IsOk());
    store_ = std::move(store).value();
    auto scope = store_->FindScope(scope_.ToString());
    ASSERT_THAT(scope.status(), IsOk());
    ASSERT_TRUE(scope->has_value());
    scope_ids_ = {(*scope)->scope_id};
  }

  void Remember(const Turn& turn) {
    ASSERT_THAT(engine_->Remember(scope_, std::vector<Turn>{turn}).status(), IsOk());
  }

  // The cached values equal fresh loads, part by part (so a failure names the part).
  void ExpectCachesMatchTheStore(const std::string& step) {
    SCOPED_TRACE(step);
    auto graphs = graph_cache_.Get(*store_, scope_ids_, /*stem=*/true);
    ASSERT_THAT(graphs.status(), IsOk());
    auto fresh_graph = read::ScopeGraph::Load(*store_, scope_ids_.front(), /*stem=*/true);
    ASSERT_THAT(fresh_graph.status(), IsOk());
    const read::ScopeGraph& cached = *graphs->front();
    EXPECT_EQ(cached.turn_count, fresh_graph->turn_count);
    EXPECT_EQ(cached.speaker_keys, fresh_graph->speaker_keys);
    EXPECT_TRUE(cached.entities == fresh_graph->entities);
    EXPECT_TRUE(cached.classes == fresh_graph->classes);
    EXPECT_TRUE(cached.facts == fresh_graph->facts);
    EXPECT_TRUE(cached.pending_same_as == fresh_graph->pending_same_as);
    EXPECT_TRUE(cached == *fresh_graph);

    auto structures = structure_cache_.Get(*store_, scope_ids_, {});
    ASSERT_THAT(structures.status(), IsOk());
    auto fresh_structure = read::ScopeStructure::Load(*store_, scope_ids_.front(), {});
    ASSERT_THAT(fresh_structure.status(), IsOk());
    const read::ScopeStructure& structure = *structures->front();
    EXPECT_TRUE(structure.episodes == fresh_structure->episodes);
    EXPECT_TRUE(structure.scenes == fresh_structure->scenes);
    EXPECT_TRUE(structure.profiles == fresh_structure->profiles);
    EXPECT_TRUE(structure == *fresh_structure);
  }

  // The id of the scope's entity named `name`.
  std::string EntityId(const std::string& name) {
    ListOptions list;
    list.kind = NodeKind::kEntity;
    list.limit = 0;
    StatusOr<std::vector<Memory>> entities = engine_->List(scope_, list);
    EXPECT_THAT(entities.status(), IsOk());
    if (!entities.ok()) return "";
    for (const Memory& entity : *entities) {
      const nlohmann::json fields = nlohmann::json::parse(entity.metadata_json, nullptr, false);
      if (fields.is_object() && fields.value("name", "") == name) return entity.id;
    }
    return "";
  }

  testing::TempDir dir_;
  EngineOptions options_;
  std::unique_ptr<Engine> engine_;
  std::unique_ptr<store::Store> store_;  // a second handle on the engine's store file
  const Scope scope_ = testing::S("user:mia");
  std::vector<std::int64_t> scope_ids_;
  read::ScopeGraphCache graph_cache_;
  read::ScopeStructureCache structure_cache_;
};

TEST_F(StructureCacheTest, IncrementalUpdatesEqualALoadFromScratch) {
  ExpectCachesMatchTheStore("first turn");
  Remember(MakeTurn("Leo", "How is Berlin treating you, Mia?", "s1", "2024-05-10T12:01:00Z"));
  ExpectCachesMatchTheStore("a question with names");
  Remember(MakeTurn("Mia", "I went hiking with Oliver near Potsdam yesterday.", "s1",
                    "2024-05-10T12:02:00Z"));
  ExpectCachesMatchTheStore("a new entity");
  Remember(MakeTurn("Leo", "Olly told me about the hike with Oliver!", "s1",
                    "2024-05-10T12:03:00Z"));
  ExpectCachesMatchTheStore("an alias");

  const std::string oliver = EntityId("Oliver");
  const std::string olly = EntityId("Olly");
  ASSERT_FALSE(oliver.empty());
  ASSERT_FALSE(olly.empty());
  StatusOr<MergeProposal> proposal = engine_->ProposeSameAs(olly, oliver, "nickname");
  ASSERT_THAT(proposal.status(), IsOk());
  ExpectCachesMatchTheStore("a pending proposal");

  ASSERT_THAT(engine_->Consolidate(scope_).status(), IsOk());
  ExpectCachesMatchTheStore("first consolidation");

  Remember(MakeTurn("Mia", "I actually live in Munich now.", "s2", "2024-06-20T20:00:00Z"));
  ExpectCachesMatchTheStore("a correction supersedes a fact");
  Remember(MakeTurn("Mia", "I am flying to Rome next Friday for a conference.", "s2",
                    "2024-06-20T20:01:00Z"));
  ExpectCachesMatchTheStore("a plan");
  ASSERT_THAT(engine_->Consolidate(scope_).status(), IsOk());
  ExpectCachesMatchTheStore("second consolidation");

  // Nothing reloaded so far: every change was applied from the journal.
  EXPECT_EQ(graph_cache_.stats().loads, 1u);
  EXPECT_EQ(graph_cache_.stats().dropped, 0u);
  EXPECT_GE(graph_cache_.stats().applied, 8u);
  EXPECT_EQ(structure_cache_.stats().loads, 1u);
  EXPECT_EQ(structure_cache_.stats().dropped, 0u);

  // A retired turn: its facts' state changes are applied too.
  ListOptions list;
  list.kind = NodeKind::kFact;
  list.include_retired = false;
  list.limit = 0;
  StatusOr<std::vector<Memory>> facts = engine_->List(scope_, list);
  ASSERT_THAT(facts.status(), IsOk());
  ASSERT_FALSE(facts->empty());
  ASSERT_THAT(engine_->Retire(facts->front().id, "test"), IsOk());
  ExpectCachesMatchTheStore("a retired fact");
  EXPECT_EQ(graph_cache_.stats().loads, 1u);

  // An accepted merge is not an append: the scope graph reloads, and still matches.
  ASSERT_THAT(engine_->AcceptProposal(proposal->id), IsOk());
  ExpectCachesMatchTheStore("an accepted merge");
  EXPECT_EQ(graph_cache_.stats().loads, 2u);
  EXPECT_EQ(graph_cache_.stats().dropped, 1u);
  Remember(MakeTurn("Leo", "Oliver said he will join you in Rome.", "s2", "2024-06-20T20:02:00Z"));
  ExpectCachesMatchTheStore("a turn after the merge");
  EXPECT_EQ(graph_cache_.stats().loads, 2u);
}

TEST_F(StructureCacheTest, AnErasedScopeIsDroppedAndReloadsEmpty) {
  ExpectCachesMatchTheStore("first turn");
  ASSERT_THAT(engine_->Erase(scope_).status(), IsOk());
  // The scope no longer exists; the caches drop it on the tombstone and a load finds nothing.
  auto graphs = graph_cache_.Get(*store_, scope_ids_, /*stem=*/true);
  ASSERT_THAT(graphs.status(), IsOk());
  EXPECT_EQ(graphs->front()->turn_count, 0u);
  EXPECT_TRUE(graphs->front()->entities.empty());
  EXPECT_EQ(graph_cache_.stats().dropped, 1u);
  EXPECT_EQ(graph_cache_.stats().loads, 2u);
}

}  // namespace
}  // namespace engram
