// The store contract for vectors: the recorded embedder, storing, replacing, scanning and erasing
// node embeddings. Part of StoreContractTest, so every backend runs it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/ids.h"
#include "engram/testing/status_matchers.h"
#include "tests/conformance/store_contract_test.h"

namespace engram::store::conformance {
namespace {

using ::engram::testing::IsOk;
using ::engram::testing::IsOkAndHolds;
using ::engram::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Optional;

const EmbedderRecord kModelA{"model-a", 3};
const EmbedderRecord kModelB{"model-b", 2};

Timestamp At(std::int64_t seconds) { return Timestamp::FromSeconds(seconds); }

// Every (row, values) pair ScanVectors visits.
std::vector<VectorRecord> Scan(Store& store, std::int64_t scope_id) {
  std::vector<VectorRecord> records;
  EXPECT_THAT(store.ScanVectors(scope_id,
                                [&](std::int64_t row, std::span<const float> values) {
                                  records.push_back({row, {values.begin(), values.end()}});
                                  return true;
                                }),
              IsOk());
  return records;
}

std::vector<std::int64_t> Rows(const std::vector<VectorRecord>& records) {
  std::vector<std::int64_t> rows;
  for (const VectorRecord& record : records) rows.push_back(record.row);
  return rows;
}

Status SetEmbedder(Store& store, const EmbedderRecord& embedder) {
  ASSIGN_OR_RETURN(std::unique_ptr<Transaction> txn, store.BeginWrite());
  RETURN_IF_ERROR(txn->SetEmbedder(embedder, At(500)));
  return txn->Commit();
}

Status PutVector(Store& store, const NodeRecord& node, std::string_view model,
                 std::vector<float> values) {
  ASSIGN_OR_RETURN(std::unique_ptr<Transaction> txn, store.BeginWrite());
  RETURN_IF_ERROR(txn->PutVector(node.id, model, values));
  return txn->Commit();
}

TEST_P(StoreContractTest, AVectorWriteIsJournalledAtItsNodesIngestionTime) {
  const ScopeRecord alice = MakeScope("user:alice");
  const NodeRecord turn = AddTurn(alice.scope_id, "a one", At(200));
  ASSERT_THAT(SetEmbedder(*store_, kModelA), IsOk());
  ASSERT_THAT(PutVector(*store_, turn, "model-a", {1.0f, 0.0f, 0.0f}), IsOk());
  StatusOr<std::vector<JournalEntry>> journal = store_->ReadJournal(0, 0);
  ASSERT_THAT(journal, IsOk());
  ASSERT_FALSE(journal->empty());
  const JournalEntry& entry = journal->back();
  EXPECT_EQ(entry.op, JournalOp::kVectorStored);
  EXPECT_EQ(entry.scope_id, alice.scope_id);
  EXPECT_EQ(entry.target_id, turn.id);
  EXPECT_EQ(entry.target_row, turn.row);
  EXPECT_EQ(entry.at, turn.ingested_at);
}

TEST_P(StoreContractTest, EngineMetaEntriesAreWrittenListedAndDeletedInTransactions) {
  {
    StatusOr<std::unique_ptr<Transaction>> txn = store_->BeginWrite();
    ASSERT_THAT(txn, IsOk());
    EXPECT_THAT((*txn)->GetMeta("engine.derive.b"), IsOkAndHolds(std::optional<std::string>()));
    ASSERT_THAT((*txn)->SetMeta("engine.derive.b", "7"), IsOk());
    ASSERT_THAT((*txn)->SetMeta("engine.derive.a", "3"), IsOk());
    ASSERT_THAT((*txn)->SetMeta("engine.other", "x"), IsOk());
    EXPECT_THAT((*txn)->GetMeta("engine.derive.b"), IsOkAndHolds(Optional(std::string("7"))));
    // Not committed: nothing is visible outside the transaction.
    EXPECT_THAT(store_->ListMeta("engine.derive."), IsOkAndHolds(IsEmpty()));
    ASSERT_THAT((*txn)->Commit(), IsOk());
  }
  using Entry = std::pair<std::string, std::string>;
  EXPECT_THAT(store_->ListMeta("engine.derive."),
              IsOkAndHolds(ElementsAre(Entry{"engine.derive.a", "3"}, Entry{"engine.derive.b", "7"})));
  {
    StatusOr<std::unique_ptr<Transaction>> txn = store_->BeginWrite();
    ASSERT_THAT(txn, IsOk());
    ASSERT_THAT((*txn)->SetMeta("engine.derive.a", "4"), IsOk());
    ASSERT_THAT((*txn)->DeleteMeta("engine.derive.b"), IsOk());
    ASSERT_THAT((*txn)->DeleteMeta("engine.derive.missing"), IsOk());
    ASSERT_THAT((*txn)->Commit(), IsOk());
  }
  Reopen();
  EXPECT_THAT(store_->ListMeta("engine.derive."),
              IsOkAndHolds(ElementsAre(Entry{"engine.derive.a", "4"})));
  // The store's own entries are out of reach.
  StatusOr<std::unique_ptr<Transaction>> txn = store_->BeginWrite();
  ASSERT_THAT(txn, IsOk());
  EXPECT_THAT((*txn)->GetMeta("schema_version"), StatusIs(StatusCode::kInvalidArgument));
  EXPECT_THAT((*txn)->SetMeta("embedder_model_id", "x"),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("engine.")));
  EXPECT_THAT((*txn)->DeleteMeta("schema_version"), StatusIs(StatusCode::kInvalidArgument));
  EXPECT_THAT(store_->ListMeta(""), StatusIs(StatusCode::kInvalidArgument));
}

TEST_P(StoreContractTest, FreshStoreRecordsNoEmbedder) {
  EXPECT_THAT(store_->GetEmbedder(), IsOkAndHolds(std::optional<EmbedderRecord>()));
}

TEST_P(StoreContractTest, RecordedEmbedderPersistsAndIsJournalled) {
  ASSERT_THAT(SetEmbedder(*store_, kModelA), IsOk());
  EXPECT_THAT(store_->GetEmbedder(), IsOkAndHolds(Optional(kModelA)));
  StatusOr<std::vector<JournalEntry>> journal = store_->ReadJournal(0, 0);
  ASSERT_THAT(journal, IsOk());
  ASSERT_FALSE(journal->empty());
  EXPECT_EQ(journal->back().op, JournalOp::kEmbedderSet);
  EXPECT_EQ(journal->back().target_id, "model-a");
  EXPECT_EQ(journal->back().scope_id, 0);
  Reopen();
  EXPECT_THAT(store_->GetEmbedder(), IsOkAndHolds(Optional(kModelA)));
}

TEST_P(StoreContractTest, BadEmbedderRecordsAreInvalidArgument) {
  StatusOr<std::unique_ptr<Transaction>> txn = store_->BeginWrite();
  ASSERT_THAT(txn, IsOk());
  EXPECT_THAT((*txn)->SetEmbedder({"", 3}, At(1)), StatusIs(StatusCode::kInvalidArgument));
  EXPECT_THAT((*txn)->SetEmbedder({"model-a", 0}, At(1)),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("model-a")));
  EXPECT_THAT((*txn)->SetEmbedder({"none", 4}, At(1)), StatusIs(StatusCode::kInvalidArgument));
  EXPECT_THAT((*txn)->SetEmbedder({"none", 0}, At(1)), IsOk());
  EXPECT_THAT((*txn)->GetEmbedder(), IsOkAndHolds(Optional(EmbedderRecord{"none", 0})));
}

TEST_P(StoreContractTest, VectorsRoundTripByScopeAndByRow) {
  const ScopeRecord alice = MakeScope("user:alice");
  const ScopeRecord bob = MakeScope("user:bob");
  const NodeRecord a1 = AddTurn(alice.scope_id, "a one", At(200));
  const NodeRecord b1 = AddTurn(bob.scope_id, "b one", At(201));
  const NodeRecord a2 = AddTurn(alice.scope_id, "a two", At(202));
  ASSERT_THAT(SetEmbedder(*store_, kModelA), IsOk());
  // The smallest positive float and a negative zero survive the trip bit for bit.
  const float tiny = std::numeric_limits<float>::denorm_min();
  ASSERT_THAT(PutVector(*store_, a2, "model-a", {0.5f, -0.25f, tiny}), IsOk());
  ASSERT_THAT(PutVector(*store_, a1, "model-a", {1.0f, 0.0f, -0.0f}), IsOk());
  ASSERT_THAT(PutVector(*store_, b1, "model-a", {0.0f, 1.0f, 0.0f}), IsOk());

  const std::vector<VectorRecord> scanned = Scan(*store_, alice.scope_id);
  ASSERT_THAT(Rows(scanned), ElementsAre(a1.row, a2.row));
  EXPECT_THAT(scanned[0].values, ElementsAre(1.0f, 0.0f, 0.0f));
  EXPECT_TRUE(std::signbit(scanned[0].values[2]));
  EXPECT_THAT(scanned[1].values, ElementsAre(0.5f, -0.25f, tiny));
  EXPECT_THAT(store_->CountVectors(alice.scope_id), IsOkAndHolds(2));
  EXPECT_THAT(store_->CountVectors(bob.scope_id), IsOkAndHolds(1));

  const std::vector<std::int64_t> rows = {b1.row, 999999, a1.row};
  StatusOr<std::vector<VectorRecord>> by_row = store_->GetVectorsByRow(rows);
  ASSERT_THAT(by_row, IsOk());
  EXPECT_THAT(Rows(*by_row), ElementsAre(b1.row, a1.row));
  EXPECT_THAT((*by_row)[0].values, ElementsAre(0.0f, 1.0f, 0.0f));

  Reopen();
  EXPECT_THAT(Rows(Scan(*store_, alice.scope_id)), ElementsAre(a1.row, a2.row));
}

TEST_P(StoreContractTest, PutVectorReplacesTheNodesVector) {
  const ScopeRecord scope = MakeScope("user:alice");
  const NodeRecord node = AddTurn(scope.scope_id, "text", At(200));
  ASSERT_THAT(SetEmbedder(*store_, kModelA), IsOk());
  ASSERT_THAT(PutVector(*store_, node, "model-a", {1, 0, 0}), IsOk());
  ASSERT_THAT(PutVector(*store_, node, "model-a", {0, 0, 1}), IsOk());
  const std::vector<VectorRecord> scanned = Scan(*store_, scope.scope_id);
  ASSERT_EQ(scanned.size(), 1u);
  EXPECT_THAT(scanned[0].values, ElementsAre(0.0f, 0.0f, 1.0f));
}

TEST_P(StoreContractTest, PutVectorChecksTheRecordedEmbedderAndStoresNothingOnError) {
  const ScopeRecord scope = MakeScope("user:alice");
  const NodeRecord node = AddTurn(scope.scope_id, "text", At(200));
  EXPECT_THAT(PutVector(*store_, node, "model-a", {1, 0, 0}),
              StatusIs(StatusCode::kFailedPrecondition, HasSubstr("no embedder")));
  ASSERT_THAT(SetEmbedder(*store_, kModelA), IsOk());
  EXPECT_THAT(PutVector(*store_, node, "model-b", {1, 0, 0}),
              StatusIs(StatusCode::kFailedPrecondition,
                       ::testing::AllOf(HasSubstr("model-b"), HasSubstr("model-a"))));
  EXPECT_THAT(PutVector(*store_, node, "model-a", {1, 0}),
              StatusIs(StatusCode::kFailedPrecondition, HasSubstr("2 values")));
  EXPECT_THAT(PutVector(*store_, node, "model-a", {1, std::nanf(""), 0}),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("value 1")));
  NodeRecord unknown = node;
  unknown.id = std::string(32, 'f');
  EXPECT_THAT(PutVector(*store_, unknown, "model-a", {1, 0, 0}),
              StatusIs(StatusCode::kNotFound));
  EXPECT_THAT(Scan(*store_, scope.scope_id), IsEmpty());
}

TEST_P(StoreContractTest, ChangingTheEmbedderDropsEveryVectorAndRollsBackWithTheTransaction) {
  const ScopeRecord scope = MakeScope("user:alice");
  const NodeRecord node = AddTurn(scope.scope_id, "text", At(200));
  ASSERT_THAT(SetEmbedder(*store_, kModelA), IsOk());
  ASSERT_THAT(PutVector(*store_, node, "model-a", {1, 0, 0}), IsOk());
  {
    // Not committed: the old embedder and its vectors stay.
    StatusOr<std::unique_ptr<Transaction>> txn = store_->BeginWrite();
    ASSERT_THAT(txn, IsOk());
    ASSERT_THAT((*txn)->SetEmbedder(kModelB, At(600)), IsOk());
    ASSERT_THAT((*txn)->PutVector(node.id, "model-b", std::vector<float>{0, 1}), IsOk());
  }
  EXPECT_THAT(store_->GetEmbedder(), IsOkAndHolds(Optional(kModelA)));
  EXPECT_THAT(store_->CountVectors(scope.scope_id), IsOkAndHolds(1));
  // Re-recording the same embedder keeps the vectors.
  ASSERT_THAT(SetEmbedder(*store_, kModelA), IsOk());
  EXPECT_THAT(store_->CountVectors(scope.scope_id), IsOkAndHolds(1));
  ASSERT_THAT(SetEmbedder(*store_, kModelB), IsOk());
  EXPECT_THAT(store_->GetEmbedder(), IsOkAndHolds(Optional(kModelB)));
  EXPECT_THAT(store_->CountVectors(scope.scope_id), IsOkAndHolds(0));
}

TEST_P(StoreContractTest, EraseScopesRemovesTheirVectorsOnly) {
  const ScopeRecord alice = MakeScope("user:alice");
  const ScopeRecord child = MakeScope("user:alice/work", alice.scope_id);
  const ScopeRecord bob = MakeScope("user:bob");
  const NodeRecord a = AddTurn(alice.scope_id, "a", At(200));
  const NodeRecord c = AddTurn(child.scope_id, "c", At(201));
  const NodeRecord b = AddTurn(bob.scope_id, "b", At(202));
  ASSERT_THAT(SetEmbedder(*store_, kModelA), IsOk());
  for (const NodeRecord* node : {&a, &c, &b}) {
    ASSERT_THAT(PutVector(*store_, *node, "model-a", {0, 0, 1}), IsOk());
  }
  const std::vector<std::int64_t> erase = {alice.scope_id};
  ASSERT_THAT(store_->EraseScopes(erase), IsOk());
  const std::vector<std::int64_t> rows = {a.row, c.row, b.row};
  StatusOr<std::vector<VectorRecord>> left = store_->GetVectorsByRow(rows);
  ASSERT_THAT(left, IsOk());
  EXPECT_THAT(Rows(*left), ElementsAre(b.row));
  EXPECT_THAT(store_->CountVectors(bob.scope_id), IsOkAndHolds(1));
  // The recorded embedder is a property of the store, not of a scope.
  EXPECT_THAT(store_->GetEmbedder(), IsOkAndHolds(Optional(kModelA)));
}

TEST_P(StoreContractTest, ScanVectorsStopsWhenAsked) {
  const ScopeRecord scope = MakeScope("user:alice");
  ASSERT_THAT(SetEmbedder(*store_, kModelA), IsOk());
  for (int i = 0; i < 3; ++i) {
    const NodeRecord node = AddTurn(scope.scope_id, "t" + std::to_string(i), At(200 + i));
    ASSERT_THAT(PutVector(*store_, node, "model-a", {1, 0, 0}), IsOk());
  }
  int visited = 0;
  ASSERT_THAT(store_->ScanVectors(scope.scope_id,
                                  [&](std::int64_t, std::span<const float>) {
                                    return ++visited < 2;
                                  }),
              IsOk());
  EXPECT_EQ(visited, 2);
}

Status PutSnapshot(Store& store, const ProjectionSnapshot& snapshot) {
  ASSIGN_OR_RETURN(std::unique_ptr<Transaction> txn, store.BeginWrite());
  RETURN_IF_ERROR(txn->PutProjectionSnapshot(snapshot));
  return txn->Commit();
}

ProjectionSnapshot Snapshot(std::int64_t scope_id, std::string data) {
  return {.scope_id = scope_id,
          .projection = "vector.hnsw",
          .key = "model-a/3",
          .journal_seq = 7,
          .item_count = 2,
          .data = std::move(data)};
}

// Snapshot bytes the way a projection writes them: any byte, NULs and high bytes included.
std::string SnapshotBytes(std::size_t size) {
  std::string bytes(size, '\0');
  for (std::size_t i = 0; i < size; ++i) bytes[i] = static_cast<char>((i * 131 + 7) % 256);
  return bytes;
}

TEST_P(StoreContractTest, ProjectionSnapshotsRoundTripAndAreReplaced) {
  const ScopeRecord scope = MakeScope("user:alice");
  EXPECT_THAT(store_->GetProjectionSnapshot(scope.scope_id, "vector.hnsw"),
              IsOkAndHolds(::testing::Eq(std::nullopt)));
  const ProjectionSnapshot first = Snapshot(scope.scope_id, SnapshotBytes(70'000));
  ASSERT_THAT(PutSnapshot(*store_, first), IsOk());
  StatusOr<std::optional<ProjectionSnapshot>> got =
      store_->GetProjectionSnapshot(scope.scope_id, "vector.hnsw");
  ASSERT_THAT(got, IsOk());
  ASSERT_TRUE(got->has_value());
  EXPECT_EQ((*got)->key, "model-a/3");
  EXPECT_EQ((*got)->journal_seq, 7);
  EXPECT_EQ((*got)->item_count, 2);
  EXPECT_EQ((*got)->data, first.data);
  EXPECT_THAT(store_->GetProjectionSnapshot(scope.scope_id, "other"),
              IsOkAndHolds(::testing::Eq(std::nullopt)));

  ProjectionSnapshot second = Snapshot(scope.scope_id, "short");
  second.journal_seq = 9;
  second.item_count = 3;
  ASSERT_THAT(PutSnapshot(*store_, second), IsOk());
  got = store_->GetProjectionSnapshot(scope.scope_id, "vector.hnsw");
  ASSERT_THAT(got, IsOk());
  ASSERT_TRUE(got->has_value());
  EXPECT_EQ((*got)->data, "short");
  EXPECT_EQ((*got)->journal_seq, 9);
  EXPECT_EQ((*got)->item_count, 3);
}

TEST_P(StoreContractTest, ProjectionSnapshotsAreCheckedAndNotEvidence) {
  const ScopeRecord scope = MakeScope("user:alice");
  StatusOr<std::string> before = store_->DumpCanonical();
  ASSERT_THAT(before, IsOk());
  StatusOr<std::int64_t> journal = store_->LastJournalSeq();
  ASSERT_THAT(journal, IsOk());
  StatusOr<MerkleState> merkle = store_->GetMerkleState(scope.scope_id);
  ASSERT_THAT(merkle, IsOk());
  ASSERT_THAT(PutSnapshot(*store_, Snapshot(scope.scope_id, "graph bytes SNAPSHOT-MARKER")),
              IsOk());
  // Not in the canonical dump, not journalled, not in the Merkle logs.
  EXPECT_THAT(store_->DumpCanonical(), IsOkAndHolds(*before));
  EXPECT_THAT(store_->LastJournalSeq(), IsOkAndHolds(*journal));
  StatusOr<MerkleState> after = store_->GetMerkleState(scope.scope_id);
  ASSERT_THAT(after, IsOk());
  EXPECT_EQ(after->root, merkle->root);

  EXPECT_THAT(PutSnapshot(*store_, Snapshot(scope.scope_id + 1000, "x")),
              StatusIs(StatusCode::kNotFound, HasSubstr("scope")));
  ProjectionSnapshot unnamed = Snapshot(scope.scope_id, "x");
  unnamed.projection = "";
  EXPECT_THAT(PutSnapshot(*store_, unnamed), StatusIs(StatusCode::kInvalidArgument));
  ProjectionSnapshot negative = Snapshot(scope.scope_id, "x");
  negative.item_count = -1;
  EXPECT_THAT(PutSnapshot(*store_, negative), StatusIs(StatusCode::kInvalidArgument));
  StatusOr<std::optional<ProjectionSnapshot>> kept =
      store_->GetProjectionSnapshot(scope.scope_id, "vector.hnsw");
  ASSERT_THAT(kept, IsOk());
  ASSERT_TRUE(kept->has_value());
  EXPECT_EQ((*kept)->data, "graph bytes SNAPSHOT-MARKER");
}

TEST_P(StoreContractTest, ErasingAScopeOrChangingTheEmbedderDropsSnapshots) {
  const ScopeRecord alice = MakeScope("user:alice");
  const ScopeRecord child = MakeScope("user:alice/work", alice.scope_id);
  const ScopeRecord bob = MakeScope("user:bob");
  ASSERT_THAT(SetEmbedder(*store_, kModelA), IsOk());
  for (const ScopeRecord* scope : {&alice, &child, &bob}) {
    ASSERT_THAT(PutSnapshot(*store_, Snapshot(scope->scope_id, "g" + scope->path)), IsOk());
  }
  const std::vector<std::int64_t> erase = {alice.scope_id};
  ASSERT_THAT(store_->EraseScopes(erase), IsOk());
  EXPECT_THAT(store_->GetProjectionSnapshot(alice.scope_id, "vector.hnsw"),
              IsOkAndHolds(::testing::Eq(std::nullopt)));
  EXPECT_THAT(store_->GetProjectionSnapshot(child.scope_id, "vector.hnsw"),
              IsOkAndHolds(::testing::Eq(std::nullopt)));
  StatusOr<std::optional<ProjectionSnapshot>> kept =
      store_->GetProjectionSnapshot(bob.scope_id, "vector.hnsw");
  ASSERT_THAT(kept, IsOk());
  EXPECT_TRUE(kept->has_value());
  // Recording an embedder, even the same one again (reembed replaces every vector), drops every
  // graph over the old vectors.
  ASSERT_THAT(SetEmbedder(*store_, kModelA), IsOk());
  EXPECT_THAT(store_->GetProjectionSnapshot(bob.scope_id, "vector.hnsw"),
              IsOkAndHolds(::testing::Eq(std::nullopt)));
  ASSERT_THAT(PutSnapshot(*store_, Snapshot(bob.scope_id, "g")), IsOk());
  ASSERT_THAT(SetEmbedder(*store_, kModelB), IsOk());
  EXPECT_THAT(store_->GetProjectionSnapshot(bob.scope_id, "vector.hnsw"),
              IsOkAndHolds(::testing::Eq(std::nullopt)));
}

}  // namespace
}  // namespace engram::store::conformance

namespace engram::store::conformance {

void ExpectMixedPrecisionVectorsReadBack(
    const std::function<std::unique_ptr<Store>(VectorPrecision)>& open) {
  const std::vector<VectorPrecision> precisions = {
      VectorPrecision::kFloat32, VectorPrecision::kFloat16, VectorPrecision::kInt8,
      VectorPrecision::kFloat16};
  std::vector<std::vector<float>> written;
  std::vector<std::int64_t> rows;
  std::int64_t scope_id = 0;
  for (std::size_t step = 0; step < precisions.size(); ++step) {
    std::unique_ptr<Store> store = open(precisions[step]);
    ASSERT_NE(store, nullptr);
    StatusOr<std::unique_ptr<Transaction>> txn = store->BeginWrite();
    ASSERT_THAT(txn, IsOk());
    if (step == 0) {
      StatusOr<ScopeRecord> scope =
          (*txn)->CreateScope("user:mixed", core::ScopeNodeId("user:mixed"), 0, At(1));
      ASSERT_THAT(scope, IsOk());
      scope_id = scope->scope_id;
      ASSERT_THAT((*txn)->SetEmbedder({"model-a", 5}, At(2)), IsOk());
    }
    NodeRecord node;
    node.kind = NodeKind::kTurn;
    node.scope_id = scope_id;
    StatusOr<std::int64_t> sequence = (*txn)->NextSequence(scope_id);
    ASSERT_THAT(sequence, IsOk());
    node.sequence = *sequence;
    node.text = "turn " + std::to_string(step);
    node.content_json = "{\"text\":\"" + node.text + "\"}";
    node.id = core::NodeId("turn", node.content_json, std::to_string(scope_id), node.sequence);
    node.ingested_at = At(10 + static_cast<std::int64_t>(step));
    node.updated_at = node.ingested_at;
    StatusOr<std::int64_t> row = (*txn)->InsertNode(node);
    ASSERT_THAT(row, IsOk());
    rows.push_back(*row);
    const float shift = 0.01f * static_cast<float>(step);
    written.push_back({0.61f + shift, -0.2f, 0.0333f, -0.7f + shift, 0.3f});
    ASSERT_THAT((*txn)->PutVector(node.id, "model-a", written.back()), IsOk());
    ASSERT_THAT((*txn)->Commit(), IsOk());
  }
  for (const VectorPrecision reader : {VectorPrecision::kFloat32, VectorPrecision::kInt8}) {
    std::unique_ptr<Store> store = open(reader);
    ASSERT_NE(store, nullptr);
    const std::vector<VectorRecord> scanned = Scan(*store, scope_id);
    ASSERT_EQ(Rows(scanned), rows);
    for (std::size_t step = 0; step < precisions.size(); ++step) {
      EXPECT_EQ(scanned[step].values, StoredVectorValues(written[step], precisions[step]))
          << "turn " << step << " stored as " << VectorPrecisionName(precisions[step]);
    }
    // The three forms give three different readings of nearly the same values.
    EXPECT_EQ(scanned[0].values, written[0]);
    EXPECT_NE(scanned[1].values, written[1]);
    EXPECT_NE(scanned[2].values, StoredVectorValues(written[2], VectorPrecision::kFloat16));
    StatusOr<std::vector<VectorRecord>> by_row = store->GetVectorsByRow(rows);
    ASSERT_THAT(by_row, IsOk());
    ASSERT_EQ(by_row->size(), rows.size());
    for (const VectorRecord& record : *by_row) {
      for (const VectorRecord& seen : scanned) {
        if (seen.row == record.row) {
          EXPECT_EQ(record.values, seen.values) << record.row;
        }
      }
    }
  }
}

}  // namespace engram::store::conformance
