// The vector projection's HNSW snapshots (vector_projection.h): a graph saved by one projection
// and loaded by a later one is the graph a projection that never saw a snapshot builds, also
// after more vectors were stored; damaged snapshots and those of another embedder or graph
// configuration are not used.
#include "engine/vector_projection.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/ids.h"
#include "engram/testing/status_matchers.h"
#include "engram/testing/temp_dir.h"
#include "index/vector/hnsw_index.h"
#include "store/store.h"

namespace engram {
namespace {

using ::engram::testing::IsOk;
using ::engram::testing::IsOkAndHolds;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

constexpr std::size_t kDimension = 8;
const store::EmbedderRecord kEmbedder{"test-model", kDimension};

VectorConfig SmallGraphs() {
  VectorConfig config;
  config.exact_threshold = 20;
  config.hnsw_max_neighbors = 8;
  config.hnsw_construction_expansion = 40;
  config.hnsw_search_expansion = 32;
  return config;
}

std::vector<float> VectorOf(int turn) {
  std::mt19937_64 random(static_cast<std::uint64_t>(turn) + 1);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> vector(kDimension);
  for (float& value : vector) value = normal(random);
  return vector;
}

// One store with one scope whose turns carry vectors.
class ScopeStore {
 public:
  explicit ScopeStore(const std::string& path) {
    StatusOr<std::unique_ptr<store::Store>> opened = store::OpenSqliteStore(path);
    EXPECT_THAT(opened, IsOk());
    store_ = std::move(opened).value();
    StatusOr<std::unique_ptr<store::Transaction>> txn = store_->BeginWrite();
    EXPECT_THAT(txn, IsOk());
    EXPECT_THAT((*txn)->SetEmbedder(kEmbedder, Timestamp::FromSeconds(1)), IsOk());
    StatusOr<store::ScopeRecord> scope = (*txn)->CreateScope(
        "user:ana", core::ScopeNodeId("user:ana"), 0, Timestamp::FromSeconds(1));
    EXPECT_THAT(scope, IsOk());
    scope_id_ = scope->scope_id;
    EXPECT_THAT((*txn)->Commit(), IsOk());
  }

  // Stores turns [first, last) with their vectors, one transaction.
  void AddTurns(int first, int last) {
    StatusOr<std::unique_ptr<store::Transaction>> txn = store_->BeginWrite();
    ASSERT_THAT(txn, IsOk());
    for (int turn = first; turn < last; ++turn) {
      store::NodeRecord node;
      node.scope_id = scope_id_;
      node.sequence = (*txn)->NextSequence(scope_id_).value_or(0);
      node.text = "turn " + std::to_string(turn);
      node.content_json = "{\"text\":\"" + node.text + "\"}";
      node.id = core::NodeId("turn", node.content_json, "user:ana", node.sequence);
      node.ingested_at = Timestamp::FromSeconds(100 + turn);
      node.updated_at = node.ingested_at;
      ASSERT_THAT((*txn)->InsertNode(node), IsOk());
      ASSERT_THAT((*txn)->PutVector(node.id, kEmbedder.model_id, VectorOf(turn)), IsOk());
    }
    ASSERT_THAT((*txn)->Commit(), IsOk());
  }

  store::Store& store() { return *store_; }
  std::int64_t scope_id() const { return scope_id_; }

 private:
  std::unique_ptr<store::Store> store_;
  std::int64_t scope_id_ = 0;
};

// The scope's graph as SaveGraph writes it, and its answers to a few queries.
struct Observed {
  std::string graph;
  std::vector<std::vector<index::VectorHit>> hits;
};

Observed Observe(VectorProjection& projection, std::int64_t scope_id) {
  Observed observed;
  EXPECT_THAT(projection.CatchUp(), IsOk());
  const std::int64_t scopes[] = {scope_id};
  StatusOr<std::vector<const index::VectorIndex*>> indexes = projection.IndexesFor(scopes);
  EXPECT_THAT(indexes, IsOk());
  if (!indexes.ok() || indexes->size() != 1) return observed;
  EXPECT_TRUE(projection.UsesHnsw(scope_id));
  const auto* graph = static_cast<const index::HnswIndex*>(indexes->front());
  observed.graph = graph->SaveGraph().value_or(std::string());
  for (int query = 0; query < 8; ++query) {
    StatusOr<std::vector<index::VectorHit>> hits = graph->Search(VectorOf(10'000 + query), 10);
    EXPECT_THAT(hits, IsOk());
    observed.hits.push_back(hits.value_or(std::vector<index::VectorHit>{}));
  }
  return observed;
}

class VectorSnapshotTest : public ::testing::Test {
 protected:
  testing::TempDir dir_{"engram_vector_snapshot_test"};
};

TEST_F(VectorSnapshotTest, ReloadedAndGrownGraphEqualsOneNeverSnapshotted) {
  ScopeStore snapshotted(dir_.File("a.db"));
  ScopeStore control(dir_.File("b.db"));
  snapshotted.AddTurns(0, 300);
  control.AddTurns(0, 300);
  {
    VectorProjection first(&snapshotted.store(), SmallGraphs(), kEmbedder);
    const Observed built = Observe(first, snapshotted.scope_id());
    EXPECT_EQ(first.snapshot_stats().built, 1u);
    ASSERT_THAT(first.SaveSnapshots(), IsOk());
    EXPECT_EQ(first.snapshot_stats().saved, 1u);
    // Closing again writes nothing new: the graph did not grow.
    ASSERT_THAT(first.SaveSnapshots(), IsOk());
    EXPECT_EQ(first.snapshot_stats().saved, 1u);
  }
  StatusOr<std::optional<store::ProjectionSnapshot>> stored =
      snapshotted.store().GetProjectionSnapshot(snapshotted.scope_id(), kHnswSnapshotProjection);
  ASSERT_THAT(stored, IsOk());
  ASSERT_TRUE(stored->has_value());
  EXPECT_EQ((*stored)->item_count, 300);

  // Later turns, then a new process.
  snapshotted.AddTurns(300, 420);
  control.AddTurns(300, 420);
  VectorProjection reloaded(&snapshotted.store(), SmallGraphs(), kEmbedder);
  const Observed from_snapshot = Observe(reloaded, snapshotted.scope_id());
  EXPECT_EQ(reloaded.snapshot_stats().loaded, 1u);
  EXPECT_EQ(reloaded.snapshot_stats().built, 0u);
  EXPECT_THAT(reloaded.snapshot_stats().warnings, IsEmpty());

  VectorProjection never(&control.store(), SmallGraphs(), kEmbedder, {.enabled = false});
  const Observed built = Observe(never, control.scope_id());
  EXPECT_EQ(never.snapshot_stats().built, 1u);
  ASSERT_FALSE(built.graph.empty());
  EXPECT_EQ(from_snapshot.graph, built.graph);
  EXPECT_EQ(from_snapshot.hits, built.hits);
  ASSERT_THAT(built.hits, SizeIs(8));
  EXPECT_THAT(built.hits[0], SizeIs(10));

  // 120 new vectors: below the default 1,000, so closing keeps the older snapshot; with a lower
  // bar it is replaced by one covering all 420.
  ASSERT_THAT(reloaded.SaveSnapshots(), IsOk());
  EXPECT_EQ(reloaded.snapshot_stats().saved, 0u);
  VectorProjection eager(&snapshotted.store(), SmallGraphs(), kEmbedder, {.min_new_vectors = 100});
  const Observed again = Observe(eager, snapshotted.scope_id());
  EXPECT_EQ(again.graph, built.graph);
  ASSERT_THAT(eager.SaveSnapshots(), IsOk());
  EXPECT_EQ(eager.snapshot_stats().saved, 1u);
  stored =
      snapshotted.store().GetProjectionSnapshot(snapshotted.scope_id(), kHnswSnapshotProjection);
  ASSERT_THAT(stored, IsOk());
  ASSERT_TRUE(stored->has_value());
  EXPECT_EQ((*stored)->item_count, 420);
}

TEST_F(VectorSnapshotTest, DamagedSnapshotIsIgnoredWithAWarningAndRebuilt) {
  ScopeStore scope(dir_.File("a.db"));
  scope.AddTurns(0, 200);
  Observed expected;
  {
    VectorProjection first(&scope.store(), SmallGraphs(), kEmbedder);
    expected = Observe(first, scope.scope_id());
    ASSERT_THAT(first.SaveSnapshots(), IsOk());
  }
  StatusOr<std::optional<store::ProjectionSnapshot>> stored =
      scope.store().GetProjectionSnapshot(scope.scope_id(), kHnswSnapshotProjection);
  ASSERT_THAT(stored, IsOk());
  ASSERT_TRUE(stored->has_value());
  for (const bool truncate : {false, true}) {
    store::ProjectionSnapshot damaged = **stored;
    if (truncate) {
      damaged.data.resize(damaged.data.size() / 3);
    } else {
      damaged.data[damaged.data.size() / 2] ^= 0x10;
    }
    StatusOr<std::unique_ptr<store::Transaction>> txn = scope.store().BeginWrite();
    ASSERT_THAT(txn, IsOk());
    ASSERT_THAT((*txn)->PutProjectionSnapshot(damaged), IsOk());
    ASSERT_THAT((*txn)->Commit(), IsOk());

    VectorProjection reloaded(&scope.store(), SmallGraphs(), kEmbedder);
    const Observed rebuilt = Observe(reloaded, scope.scope_id());
    EXPECT_EQ(reloaded.snapshot_stats().loaded, 0u);
    EXPECT_EQ(reloaded.snapshot_stats().built, 1u);
    EXPECT_EQ(reloaded.snapshot_stats().ignored, 1u);
    ASSERT_THAT(reloaded.snapshot_stats().warnings, SizeIs(1));
    EXPECT_THAT(reloaded.snapshot_stats().warnings[0],
                AllOf(HasSubstr("ignored and rebuilt"), HasSubstr("CORRUPTION: hnsw graph")));
    EXPECT_EQ(rebuilt.graph, expected.graph);
    EXPECT_EQ(rebuilt.hits, expected.hits);
  }
}

TEST_F(VectorSnapshotTest, SnapshotOfAnotherGraphConfigurationOrEmbedderIsNotUsed) {
  ScopeStore scope(dir_.File("a.db"));
  scope.AddTurns(0, 150);
  {
    VectorProjection first(&scope.store(), SmallGraphs(), kEmbedder);
    Observe(first, scope.scope_id());
    ASSERT_THAT(first.SaveSnapshots(), IsOk());
  }
  VectorConfig wider = SmallGraphs();
  wider.hnsw_max_neighbors = 12;
  VectorProjection other_graph(&scope.store(), wider, kEmbedder);
  Observe(other_graph, scope.scope_id());
  EXPECT_EQ(other_graph.snapshot_stats().loaded, 0u);
  EXPECT_EQ(other_graph.snapshot_stats().ignored, 1u);
  EXPECT_THAT(other_graph.snapshot_stats().warnings, IsEmpty());

  // The same bytes recorded for another embedder's vectors.
  StatusOr<std::optional<store::ProjectionSnapshot>> stored =
      scope.store().GetProjectionSnapshot(scope.scope_id(), kHnswSnapshotProjection);
  ASSERT_THAT(stored, IsOk());
  ASSERT_TRUE(stored->has_value());
  store::ProjectionSnapshot foreign = **stored;
  foreign.key = "another-model dimension=8 M=8 efConstruction=40 seed=100";
  StatusOr<std::unique_ptr<store::Transaction>> txn = scope.store().BeginWrite();
  ASSERT_THAT(txn, IsOk());
  ASSERT_THAT((*txn)->PutProjectionSnapshot(foreign), IsOk());
  ASSERT_THAT((*txn)->Commit(), IsOk());
  VectorProjection reloaded(&scope.store(), SmallGraphs(), kEmbedder);
  Observe(reloaded, scope.scope_id());
  EXPECT_EQ(reloaded.snapshot_stats().loaded, 0u);
  EXPECT_EQ(reloaded.snapshot_stats().built, 1u);
  EXPECT_THAT(reloaded.snapshot_stats().warnings, IsEmpty());
}

}  // namespace
}  // namespace engram
