// The store contract: behaviour every store::Store backend must show (see store_contract_test.h).
//
// Edges are written through write::EdgeRegistry, the only holder of the EdgeWriteKey; the edge
// semantics themselves are tested in edge_registry_contract_test.cc.
#include "tests/conformance/store_contract_test.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <future>
#include <stop_token>
#include <thread>
#include <vector>

#include "core/ids.h"
#include "store/journal.h"
#include "engram/testing/status_matchers.h"
#include "store/audit.h"
#include "store/merkle.h"
#include "write/edge_registry.h"

namespace engram::store::conformance {

using ::engram::testing::IsOk;
using ::engram::testing::IsOkAndHolds;
using ::engram::testing::StatusIs;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::Eq;
using ::testing::Field;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::Optional;
using ::testing::SizeIs;

std::string BackendName(const ::testing::TestParamInfo<BackendParam>& info) {
  return info.param.name;
}

void StoreContractTest::SetUp() {
  if (GetParam().skip_reason) {
    if (const std::string reason = GetParam().skip_reason(); !reason.empty()) {
      GTEST_SKIP() << reason;
    }
  }
  StatusOr<std::unique_ptr<Store>> opened = GetParam().factory(dir_);
  ASSERT_THAT(opened, IsOk());
  store_ = std::move(opened).value();
}

void StoreContractTest::TearDown() {
  store_.reset();
}

void StoreContractTest::Reopen() {
  store_.reset();
  StatusOr<std::unique_ptr<Store>> opened = GetParam().factory(dir_);
  ASSERT_THAT(opened, IsOk());
  store_ = std::move(opened).value();
}

ScopeRecord StoreContractTest::MakeScope(std::string_view path, std::int64_t parent_scope_id) {
  StatusOr<std::unique_ptr<Transaction>> txn = store_->BeginWrite();
  EXPECT_THAT(txn, IsOk());
  if (!txn.ok()) return {};
  StatusOr<ScopeRecord> scope = (*txn)->CreateScope(path, core::ScopeNodeId(path), parent_scope_id,
                                                    Timestamp::FromSeconds(100));
  EXPECT_THAT(scope, IsOk());
  EXPECT_THAT((*txn)->Commit(), IsOk());
  return scope.ok() ? *scope : ScopeRecord{};
}

NodeRecord StoreContractTest::NewTurn(Transaction& txn, std::int64_t scope_id,
                                      std::string_view text, Timestamp at) {
  NodeRecord node;
  StatusOr<std::int64_t> sequence = txn.NextSequence(scope_id);
  EXPECT_THAT(sequence, IsOk());
  node.sequence = sequence.value_or(0);
  node.kind = NodeKind::kTurn;
  node.scope_id = scope_id;
  node.text = std::string(text);
  node.content_json = "{\"text\":\"" + std::string(text) + "\"}";
  node.id = core::NodeId("turn", node.content_json, std::to_string(scope_id), at.micros);
  node.role = Role::kUser;
  node.speaker = "Alice";
  node.session_id = "s1";
  node.event_time = at;
  node.ingested_at = at;
  node.updated_at = at;
  return node;
}

NodeRecord StoreContractTest::AddTurn(std::int64_t scope_id, std::string_view text, Timestamp at) {
  StatusOr<std::unique_ptr<Transaction>> txn = store_->BeginWrite();
  EXPECT_THAT(txn, IsOk());
  if (!txn.ok()) return {};
  NodeRecord node = NewTurn(**txn, scope_id, text, at);
  StatusOr<std::int64_t> row = (*txn)->InsertNode(node);
  EXPECT_THAT(row, IsOk());
  node.row = row.value_or(0);
  EXPECT_THAT((*txn)->Commit(), IsOk());
  return node;
}

namespace {

Timestamp At(std::int64_t seconds) { return Timestamp::FromSeconds(seconds); }

std::vector<std::string> Ids(const std::vector<NodeRecord>& nodes) {
  std::vector<std::string> ids;
  for (const NodeRecord& node : nodes) ids.push_back(node.id);
  return ids;
}

std::vector<std::string> EdgeIds(const std::vector<EdgeRecord>& edges) {
  std::vector<std::string> ids;
  for (const EdgeRecord& edge : edges) ids.push_back(edge.id);
  return ids;
}

std::vector<JournalOp> Ops(const std::vector<JournalEntry>& entries) {
  std::vector<JournalOp> ops;
  for (const JournalEntry& entry : entries) ops.push_back(entry.op);
  return ops;
}

// ----- Scopes ---------------------------------------------------------------------------------

TEST_P(StoreContractTest, CreateScopeIsFoundAndIsAScopeNode) {
  const ScopeRecord alice = MakeScope("user:alice");
  EXPECT_GT(alice.scope_id, 0);
  EXPECT_EQ(alice.path, "user:alice");
  EXPECT_EQ(alice.parent_scope_id, 0);
  EXPECT_EQ(alice.last_sequence, 0);
  EXPECT_EQ(alice.created_at, At(100));

  EXPECT_THAT(store_->FindScope("user:alice"),
              IsOkAndHolds(Optional(Field(&ScopeRecord::scope_id, alice.scope_id))));
  EXPECT_THAT(store_->GetScope(alice.scope_id),
              IsOkAndHolds(Optional(Field(&ScopeRecord::path, "user:alice"))));
  EXPECT_THAT(store_->FindScope("user:bob"), IsOkAndHolds(Eq(std::nullopt)));
  EXPECT_THAT(store_->GetScope(alice.scope_id + 100), IsOkAndHolds(Eq(std::nullopt)));

  StatusOr<NodeRecord> node = store_->GetNode(core::ScopeNodeId("user:alice"));
  ASSERT_THAT(node, IsOk());
  EXPECT_EQ(node->kind, NodeKind::kScope);
  EXPECT_EQ(node->scope_id, alice.scope_id);
  EXPECT_EQ(node->text, "user:alice");
  EXPECT_EQ(node->content_json, "{\"path\":\"user:alice\"}");
  EXPECT_EQ(node->status, NodeStatus::kActive);
}

TEST_P(StoreContractTest, TransactionFindsItsOwnNewScope) {
  StatusOr<std::unique_ptr<Transaction>> txn = store_->BeginWrite();
  ASSERT_THAT(txn, IsOk());
  ASSERT_THAT((*txn)->CreateScope("app:crm", core::ScopeNodeId("app:crm"), 0, At(1)), IsOk());
  EXPECT_THAT((*txn)->FindScope("app:crm"),
              IsOkAndHolds(Optional(Field(&ScopeRecord::path, "app:crm"))));
  EXPECT_THAT(store_->FindScope("app:crm"), IsOkAndHolds(Eq(std::nullopt)));
  ASSERT_THAT((*txn)->Commit(), IsOk());
  EXPECT_THAT(store_->FindScope("app:crm"), IsOkAndHolds(Not(Eq(std::nullopt))));
}

TEST_P(StoreContractTest, DuplicateScopePathIsAlreadyExists) {
  MakeScope("user:alice");
  StatusOr<std::unique_ptr<Transaction>> txn = store_->BeginWrite();
  ASSERT_THAT(txn, IsOk());
  EXPECT_THAT((*txn)->CreateScope("user:alice", core::ScopeNodeId("user:alice"), 0, At(2)),
              StatusIs(StatusCode::kAlreadyExists, HasSubstr("user:alice")));
  // The transaction stays usable after a failed call.
  EXPECT_THAT((*txn)->CreateScope("user:bob", core::ScopeNodeId("user:bob"), 0, At(2)), IsOk());
  EXPECT_THAT((*txn)->Commit(), IsOk());
  EXPECT_THAT(store_->ListScopes(), IsOkAndHolds(SizeIs(2)));
}

TEST_P(StoreContractTest, UnknownParentScopeIsNotFound) {
  StatusOr<std::unique_ptr<Transaction>> txn = store_->BeginWrite();
  ASSERT_THAT(txn, IsOk());
  EXPECT_THAT((*txn)->CreateScope("user:a/run:1", core::ScopeNodeId("user:a/run:1"), 999, At(1)),
              StatusIs(StatusCode::kNotFound));
}

TEST_P(StoreContractTest, ListScopesIsOrderedByPath) {
  MakeScope("user:carol");
  MakeScope("app:zeta");
  MakeScope("user:alice");
  StatusOr<std::vector<ScopeRecord>> scopes = store_->ListScopes();
  ASSERT_THAT(scopes, IsOk());
  ASSERT_THAT(*scopes, SizeIs(3));
  EXPECT_EQ((*scopes)[0].path, "app:zeta");
  EXPECT_EQ((*scopes)[1].path, "user:alice");
  EXPECT_EQ((*scopes)[2].path, "user:carol");
}

TEST_P(StoreContractTest, ScopeTreeHoldsNestedScopesInIdOrder) {
  const ScopeRecord app = MakeScope("app:crm");
  const ScopeRecord user = MakeScope("app:crm/user:alice", app.scope_id);
  const ScopeRecord other = MakeScope("app:other");
  const ScopeRecord run = MakeScope("app:crm/user:alice/run:1", user.scope_id);
  const ScopeRecord run2 = MakeScope("app:crm/user:alice/run:2", user.scope_id);
  EXPECT_EQ(run.parent_scope_id, user.scope_id);

  StatusOr<std::vector<ScopeRecord>> tree = store_->ScopeTree(app.scope_id);
  ASSERT_THAT(tree, IsOk());
  std::vector<std::int64_t> ids;
  for (const ScopeRecord& scope : *tree) ids.push_back(scope.scope_id);
  EXPECT_THAT(ids, ElementsAre(app.scope_id, user.scope_id, run.scope_id, run2.scope_id));

  StatusOr<std::vector<ScopeRecord>> leaf = store_->ScopeTree(run.scope_id);
  ASSERT_THAT(leaf, IsOk());
  ASSERT_THAT(*leaf, SizeIs(1));
  EXPECT_EQ((*leaf)[0].scope_id, run.scope_id);
  EXPECT_THAT(store_->ScopeTree(other.scope_id + 1000), StatusIs(StatusCode::kNotFound));
}

TEST_P(StoreContractTest, SequenceNumbersAreMonotonicPerScopeAndIndependent) {
  const ScopeRecord a = MakeScope("user:a");
  const ScopeRecord b = MakeScope("user:b");
  {
    StatusOr<std::unique_ptr<Transaction>> txn = store_->BeginWrite();
    ASSERT_THAT(txn, IsOk());
    EXPECT_THAT((*txn)->NextSequence(a.scope_id), IsOkAndHolds(1));
    EXPECT_THAT((*txn)->NextSequence(a.scope_id), IsOkAndHolds(2));
    EXPECT_THAT((*txn)->NextSequence(b.scope_id), IsOkAndHolds(1));
    EXPECT_THAT((*txn)->NextSequence(a.scope_id), IsOkAndHolds(3));
    EXPECT_THAT((*txn)->NextSequence(b.scope_id + a.scope_id + 100),
                StatusIs(StatusCode::kNotFound));
    ASSERT_THAT((*txn)->Commit(), IsOk());
  }
  {
    // A rolled-back transaction hands its numbers out again.
    StatusOr<std::unique_ptr<Transaction>> txn = store_->BeginWrite();
    ASSERT_THAT(txn, IsOk());
    EXPECT_THAT((*txn)->NextSequence(a.scope_id), IsOkAndHolds(4));
  }
  StatusOr<std::unique_ptr<Transaction>> txn = store_->BeginWrite();
  ASSERT_THAT(txn, IsOk());
  EXPECT_THAT((*txn)->NextSequence(a.scope_id), IsOkAndHolds(4));
  EXPECT_THAT((*txn)->NextSequence(b.scope_id), IsOkAndHolds(2));
  ASSERT_THAT((*txn)->Commit(), IsOk());
  EXPECT_THAT(store_->GetScope(a.scope_id),
              IsOkAndHolds(Optional(Field(&ScopeRecord::last_sequence, 4))));
}

// ----- Nodes ----------------------------------------------------------------------------------

TEST_P(StoreContractTest, InsertedNodeRoundTripsEveryField) {
  const ScopeRecord scope = MakeScope("user:alice");
  NodeRecord node;
  node.id = core::NodeId("fact", "{\"x\":1}", "1", 7);
  node.kind = NodeKind::kFact;
  node.scope_id = scope.scope_id;
  node.content_json = "{\"x\":1}";
  node.text = "Alice lives in Lisbon\nsince \"2024\" \xc3\xa9";
  node.role = Role::kAssistant;
  node.speaker = "Bot";
  node.session_id = "session-9";
  node.sequence = 42;
  node.event_time = At(1'700'000'000);
  node.metadata_json = "{\"source\":\"test\"}";
  node.status = NodeStatus::kPending;
  node.valid_from = At(1'600'000'000);
  node.valid_to = At(1'800'000'000);
  node.ingested_at = Timestamp{1'700'000'000'123'456};
  node.updated_at = Timestamp{1'700'000'000'654'321};

  StatusOr<std::unique_ptr<Transaction>> txn = store_->BeginWrite();
  ASSERT_THAT(txn, IsOk());
  StatusOr<std::int64_t> row = (*txn)->InsertNode(node);
  ASSERT_THAT(row, IsOk());
  EXPECT_GT(*row, 0);
  ASSERT_THAT((*txn)->Commit(), IsOk());

  StatusOr<NodeRecord> got = store_->GetNode(node.id);
  ASSERT_THAT(got, IsOk());
  EXPECT_EQ(got->row, *row);
  EXPECT_EQ(got->id, node.id);
  EXPECT_EQ(got->kind, node.kind);
  EXPECT_EQ(got->scope_id, node.scope_id);
  EXPECT_EQ(got->content_json, node.content_json);
  EXPECT_EQ(got->text, node.text);
  EXPECT_EQ(got->role, node.role);
  EXPECT_EQ(got->speaker, node.speaker);
  EXPECT_EQ(got->session_id, node.session_id);
  EXPECT_EQ(got->sequence, node.sequence);
  EXPECT_EQ(got->event_time, node.event_time);
  EXPECT_EQ(got->metadata_json, node.metadata_json);
  EXPECT_EQ(got->status, node.status);
  EXPECT_EQ(got->valid_from, node.valid_from);
  EXPECT_EQ(got->valid_to, node.valid_to);
  EXPECT_EQ(got->ingested_at, node.ingested_at);
  EXPECT_EQ(got->updated_at, node.updated_at);
}

// Schema 6 stores a turn's content empty when the turn's columns rebuild it (the write path's
// layout) and any other content as given (behind a space when it is empty or starts with one):
// either way a read returns the content inserted, byte for byte, the leaves are those of the
// inserted content and the audit passes.
TEST_P(StoreContractTest, NodeContentReadsBackAsInsertedWhateverItsLayout) {
  const ScopeRecord scope = MakeScope("user:alice");
  const Timestamp at = Timestamp::FromSeconds(1'700'000'000);
  StatusOr<std::unique_ptr<Transaction>> txn = store_->BeginWrite();
  ASSERT_THAT(txn, IsOk());
  std::vector<NodeRecord> written;
  // The write path's layout: keys in order, the metadata object, the event time in UTC.
  NodeRecord rebuilt = NewTurn(**txn, scope.scope_id, "I live in \"Berlin\".", at);
  rebuilt.metadata_json = R"({"source":"chat"})";
  rebuilt.content_json =
      R"({"event_time":"2023-11-14T22:13:20Z","metadata":{"source":"chat"},"role":"user",)"
      R"("sequence":)" +
      std::to_string(rebuilt.sequence) +
      R"(,"session_id":"s1","speaker":"Alice","text":"I live in \"Berlin\"."})";
  rebuilt.id = core::NodeId("turn", rebuilt.content_json, scope.node_id, at.micros);
  written.push_back(rebuilt);
  for (const std::string& content :
       {std::string(), std::string(" {}"), std::string("  "), rebuilt.content_json + " "}) {
    NodeRecord other = NewTurn(**txn, scope.scope_id, "other " + content, at);
    other.content_json = content;
    other.id = core::NodeId("turn", "other" + std::to_string(other.sequence), scope.node_id, 0);
    written.push_back(other);
  }
  NodeRecord fact = NewTurn(**txn, scope.scope_id, "a fact", at);
  fact.kind = NodeKind::kFact;
  fact.content_json = "";
  fact.id = core::NodeId("fact", "empty", scope.node_id, 0);
  written.push_back(fact);
  for (const NodeRecord& node : written) ASSERT_THAT((*txn)->InsertNode(node), IsOk());
  ASSERT_THAT((*txn)->Commit(), IsOk());

  for (int pass = 0; pass < 2; ++pass) {
    SCOPED_TRACE(pass == 0 ? "as written" : "reopened");
    for (const NodeRecord& node : written) {
      StatusOr<NodeRecord> got = store_->GetNode(node.id);
      ASSERT_THAT(got, IsOk());
      EXPECT_EQ(got->content_json, node.content_json);
      EXPECT_EQ(got->text, node.text);
    }
    StatusOr<std::vector<NodeRecord>> listed =
        store_->ListNodes(scope.scope_id, {.kind = NodeKind::kTurn});
    ASSERT_THAT(listed, IsOk());
    ASSERT_EQ(listed->size(), 5u);
    EXPECT_EQ((*listed)[0].content_json, rebuilt.content_json);
    StatusOr<std::vector<MerkleLeaf>> leaves =
        store_->GetMerkleLeaves(scope.scope_id, MerkleLog::kNodes);
    ASSERT_THAT(leaves, IsOk());
    ASSERT_EQ(leaves->size(), written.size() + 1);  // and the scope node
    EXPECT_EQ((*leaves)[1].target_id, rebuilt.id);
    EXPECT_EQ((*leaves)[1].hash, merkle::ToHex(merkle::NodeLeafHash(rebuilt)));
    EXPECT_EQ((*leaves)[1].hash.size(), 64u);
    Reopen();
  }
}

TEST_P(StoreContractTest, UnsetOptionalTimesStayUnset) {
  const ScopeRecord scope = MakeScope("user:alice");
  StatusOr<std::unique_ptr<Transaction>> txn = store_->BeginWrite();
  ASSERT_THAT(txn, IsOk());
  NodeRecord node = NewTurn(**txn, scope.scope_id, "hello", At(5));
  node.event_time.reset();
  ASSERT_THAT((*txn)->InsertNode(node), IsOk());
  ASSERT_THAT((*txn)->Commit(), IsOk());
  StatusOr<NodeRecord> got = store_->GetNode(node.id);
  ASSERT_THAT(got, IsOk());
  EXPECT_EQ(got->event_time, std::nullopt);
  EXPECT_EQ(got->valid_from, std::nullopt);
  EXPECT_EQ(got->valid_to, std::nullopt);
}

TEST_P(StoreContractTest, DuplicateNodeIdIsAlreadyExists) {
  const ScopeRecord scope = MakeScope("user:alice");
  const NodeRecord first = AddTurn(scope.scope_id, "hello", At(10));
  StatusOr<std::unique_ptr<Transaction>> txn = store_->BeginWrite();
  ASSERT_THAT(txn, IsOk());
  NodeRecord again = first;
  again.text = "different text, same id";
  EXPECT_THAT((*txn)->InsertNode(again), StatusIs(StatusCode::kAlreadyExists, HasSubstr(first.id)));
  ASSERT_THAT((*txn)->Commit(), IsOk());
  EXPECT_THAT(store_->GetNode(first.id), IsOkAndHolds(Field(&NodeRecord::text, "hello")));
}

TEST_P(StoreContractTest, UnknownNodeIsNotFound) {
  EXPECT_THAT(store_->GetNode("00000000000000000000000000000000"), StatusIs(StatusCode::kNotFound));
  StatusOr<std::unique_ptr<Transaction>> txn = store_->BeginWrite();
  ASSERT_THAT(txn, IsOk());
  EXPECT_THAT((*txn)->GetNode("nope"), StatusIs(StatusCode::kNotFound));
  EXPECT_THAT((*txn)->UpdateNodeState("nope", NodeStatus::kRetired, At(1), At(1), ""),
              StatusIs(StatusCode::kNotFound));
}

TEST_P(StoreContractTest, NodeInUnknownScopeIsNotFound) {
  StatusOr<std::unique_ptr<Transaction>> txn = store_->BeginWrite();
  ASSERT_THAT(txn, IsOk());
  NodeRecord node;
  node.id = "n1";
  node.scope_id = 77;
  EXPECT_THAT((*txn)->InsertNode(node), StatusIs(StatusCode::kNotFound, HasSubstr("77")));
}

TEST_P(StoreContractTest, RowsIncreaseInInsertionOrder) {
  const ScopeRecord a = MakeScope("user:a");
  const ScopeRecord b = MakeScope("user:b");
  const NodeRecord n1 = AddTurn(a.scope_id, "one", At(1));
  const NodeRecord n2 = AddTurn(b.scope_id, "two", At(2));
  const NodeRecord n3 = AddTurn(a.scope_id, "three", At(3));
  EXPECT_LT(n1.row, n2.row);
  EXPECT_LT(n2.row, n3.row);
}

// As-of recall reads the state a memory had at a past time back from the journal: its
// insertion records the state it was inserted with, each update the state after it.
TEST_P(StoreContractTest, JournalRecordsTheStateOfEveryInsertionAndUpdate) {
  const ScopeRecord scope = MakeScope("user:alice");
  NodeRecord node;
  node.kind = NodeKind::kFact;
  node.scope_id = scope.scope_id;
  node.content_json = R"({"object":"Lisbon"})";
  node.id = core::NodeId("fact", node.content_json, scope.node_id, 0);
  node.text = "visits Lisbon";
  node.sequence = 1;
  node.status = NodeStatus::kPending;
  node.valid_from = At(10);
  node.valid_to = At(90);
  node.ingested_at = At(20);
  node.updated_at = At(20);
  {
    StatusOr<std::unique_ptr<Transaction>> txn = store_->BeginWrite();
    ASSERT_THAT(txn, IsOk());
    ASSERT_THAT((*txn)->InsertNode(node), IsOk());
    ASSERT_THAT((*txn)->UpdateNodeState(node.id, NodeStatus::kRetired, At(40), At(50), "why"),
                IsOk());
    ASSERT_THAT((*txn)->Commit(), IsOk());
  }
  StatusOr<std::vector<JournalEntry>> journal = store_->JournalFor(node.id);
  ASSERT_THAT(journal, IsOk());
  ASSERT_THAT(*journal, SizeIs(2));
  EXPECT_EQ((*journal)[0].op, JournalOp::kNodeInserted);
  EXPECT_THAT(ParseStateDetail((*journal)[0].detail),
              IsOkAndHolds(Optional(AllOf(Field(&RecordedState::status, NodeStatus::kPending),
                                          Field(&RecordedState::valid_to, Optional(At(90)))))));
  EXPECT_THAT(ParseStateDetail((*journal)[1].detail),
              IsOkAndHolds(Optional(AllOf(Field(&RecordedState::status, NodeStatus::kRetired),
                                          Field(&RecordedState::valid_to, Optional(At(40)))))));
  // An insertion journalled before the state was recorded there has none; a bad one is corrupt.
  EXPECT_THAT(ParseStateDetail("kind=fact"), IsOkAndHolds(Eq(std::nullopt)));
  EXPECT_THAT(ParseStateDetail("status=gone valid_to=none"),
              StatusIs(StatusCode::kCorruption, HasSubstr("status")));
  EXPECT_THAT(ParseStateDetail("status=active valid_to=yesterday"),
              StatusIs(StatusCode::kCorruption, HasSubstr("valid_to")));
}

TEST_P(StoreContractTest, UpdateNodeStateChangesOnlyState) {
  const ScopeRecord scope = MakeScope("user:alice");
  const NodeRecord before = AddTurn(scope.scope_id, "I live in Porto", At(10));
  {
    StatusOr<std::unique_ptr<Transaction>> txn = store_->BeginWrite();
    ASSERT_THAT(txn, IsOk());
    ASSERT_THAT((*txn)->UpdateNodeState(before.id, NodeStatus::kRetired, At(50), At(60),
                                        "reason=user request"),
                IsOk());
    EXPECT_THAT((*txn)->GetNode(before.id),
                IsOkAndHolds(Field(&NodeRecord::status, NodeStatus::kRetired)));
    ASSERT_THAT((*txn)->Commit(), IsOk());
  }
  StatusOr<NodeRecord> after = store_->GetNode(before.id);
  ASSERT_THAT(after, IsOk());
  EXPECT_EQ(after->status, NodeStatus::kRetired);
  EXPECT_EQ(after->valid_to, At(50));
  EXPECT_EQ(after->updated_at, At(60));
  EXPECT_EQ(after->row, before.row);
  EXPECT_EQ(after->id, before.id);
  EXPECT_EQ(after->text, before.text);
  EXPECT_EQ(after->content_json, before.content_json);
  EXPECT_EQ(after->sequence, before.sequence);
  EXPECT_EQ(after->scope_id, before.scope_id);
  EXPECT_EQ(after->ingested_at, before.ingested_at);
  EXPECT_EQ(after->event_time, before.event_time);
  EXPECT_EQ(after->valid_from, before.valid_from);

  StatusOr<std::vector<JournalEntry>> journal = store_->JournalFor(before.id);
  ASSERT_THAT(journal, IsOk());
  ASSERT_THAT(*journal, SizeIs(2));
  EXPECT_EQ((*journal)[1].op, JournalOp::kNodeUpdated);
  EXPECT_EQ((*journal)[1].at, At(60));
  EXPECT_EQ((*journal)[1].target_row, before.row);
  EXPECT_THAT((*journal)[1].detail, HasSubstr("status=retired"));
  EXPECT_THAT((*journal)[1].detail, HasSubstr("valid_to=1970-01-01T00:00:50Z"));
  EXPECT_THAT((*journal)[1].detail, HasSubstr("reason=user request"));

  // Clearing valid_to is a state change too.
  StatusOr<std::unique_ptr<Transaction>> txn = store_->BeginWrite();
  ASSERT_THAT(txn, IsOk());
  ASSERT_THAT((*txn)->UpdateNodeState(before.id, NodeStatus::kActive, std::nullopt, At(70), ""),
              IsOk());
  ASSERT_THAT((*txn)->Commit(), IsOk());
  EXPECT_THAT(store_->GetNode(before.id),
              IsOkAndHolds(Field(&NodeRecord::valid_to, Eq(std::nullopt))));
}

// ----- Transactions ---------------------------------------------------------------------------

TEST_P(StoreContractTest, UncommittedWritesAreInvisibleAndRolledBackOnDestruction) {
  const ScopeRecord scope = MakeScope("user:alice");
  StatusOr<std::int64_t> journal_before = store_->LastJournalSeq();
  ASSERT_THAT(journal_before, IsOk());
  StatusOr<std::string> dump_before = store_->DumpCanonical();
  ASSERT_THAT(dump_before, IsOk());
  std::string node_id;
  {
    StatusOr<std::unique_ptr<Transaction>> txn = store_->BeginWrite();
    ASSERT_THAT(txn, IsOk());
    ASSERT_THAT((*txn)->CreateScope("user:bob", core::ScopeNodeId("user:bob"), 0, At(3)), IsOk());
    NodeRecord node = NewTurn(**txn, scope.scope_id, "never committed", At(4));
    node_id = node.id;
    ASSERT_THAT((*txn)->InsertNode(node), IsOk());
    ASSERT_THAT((*txn)->UpdateNodeState(core::ScopeNodeId("user:alice"), NodeStatus::kRetired,
                                        At(5), At(5), ""),
                IsOk());
    EXPECT_THAT((*txn)->GetNode(node_id), IsOk());
    EXPECT_THAT(store_->GetNode(node_id), StatusIs(StatusCode::kNotFound));
  }  // destroyed without Commit()
  EXPECT_THAT(store_->GetNode(node_id), StatusIs(StatusCode::kNotFound));
  EXPECT_THAT(store_->FindScope("user:bob"), IsOkAndHolds(Eq(std::nullopt)));
  EXPECT_THAT(store_->LastJournalSeq(), IsOkAndHolds(*journal_before));
  EXPECT_THAT(store_->DumpCanonical(), IsOkAndHolds(*dump_before));
}

TEST_P(StoreContractTest, TransactionIsClosedAfterCommit) {
  const ScopeRecord scope = MakeScope("user:alice");
  StatusOr<std::unique_ptr<Transaction>> txn = store_->BeginWrite();
  ASSERT_THAT(txn, IsOk());
  ASSERT_THAT((*txn)->Commit(), IsOk());
  EXPECT_THAT((*txn)->Commit(), StatusIs(StatusCode::kFailedPrecondition));
  EXPECT_THAT((*txn)->NextSequence(scope.scope_id), StatusIs(StatusCode::kFailedPrecondition));
  // The next writer is not blocked by the committed (but still alive) transaction.
  StatusOr<std::unique_ptr<Transaction>> next = store_->BeginWrite();
  EXPECT_THAT(next, IsOk());
}

// ----- Journal --------------------------------------------------------------------------------

TEST_P(StoreContractTest, JournalRecordsEveryWriteInOrder) {
  write::EdgeRegistry registry;
  ASSERT_THAT(registry.Register(write::MakePlainEdgeHandler("refers_to")), IsOk());
  const ScopeRecord scope = MakeScope("user:alice");
  // Texts no journal word contains ("none" holds "one"): the journal must never repeat them.
  const NodeRecord n1 = AddTurn(scope.scope_id, "quokka", At(10));
  const NodeRecord n2 = AddTurn(scope.scope_id, "axolotl", At(11));
  std::string edge_id;
  {
    StatusOr<std::unique_ptr<Transaction>> txn = store_->BeginWrite();
    ASSERT_THAT(txn, IsOk());
    StatusOr<EdgeRecord> edge =
        registry.Apply(**txn, {.type = "refers_to", .src = n2.id, .dst = n1.id, .now = At(12)});
    ASSERT_THAT(edge, IsOk());
    edge_id = edge->id;
    ASSERT_THAT((*txn)->UpdateNodeState(n1.id, NodeStatus::kRetired, At(13), At(13), ""), IsOk());
    ASSERT_THAT((*txn)->Commit(), IsOk());
  }
  StatusOr<std::vector<JournalEntry>> journal = store_->ReadJournal(0, 0);
  ASSERT_THAT(journal, IsOk());
  EXPECT_THAT(Ops(*journal), ElementsAre(JournalOp::kScopeCreated, JournalOp::kNodeInserted,
                                         JournalOp::kNodeInserted, JournalOp::kEdgeInserted,
                                         JournalOp::kNodeUpdated));
  for (std::size_t i = 1; i < journal->size(); ++i) {
    EXPECT_LT((*journal)[i - 1].seq, (*journal)[i].seq);
  }
  for (const JournalEntry& entry : *journal) EXPECT_EQ(entry.scope_id, scope.scope_id);
  EXPECT_EQ((*journal)[0].target_id, scope.node_id);
  EXPECT_EQ((*journal)[0].target_row, 0);
  EXPECT_EQ((*journal)[1].target_id, n1.id);
  EXPECT_EQ((*journal)[1].target_row, n1.row);
  EXPECT_EQ((*journal)[1].at, At(10));
  EXPECT_EQ((*journal)[2].target_id, n2.id);
  EXPECT_EQ((*journal)[3].target_id, edge_id);
  EXPECT_EQ((*journal)[4].target_id, n1.id);
  for (const JournalEntry& entry : *journal) {
    EXPECT_THAT(entry.detail, Not(HasSubstr("quokka")));
    EXPECT_THAT(entry.detail, Not(HasSubstr("axolotl")));
  }

  EXPECT_THAT(store_->LastJournalSeq(), IsOkAndHolds(journal->back().seq));
  StatusOr<std::vector<JournalEntry>> tail = store_->ReadJournal((*journal)[1].seq, 2);
  ASSERT_THAT(tail, IsOk());
  EXPECT_THAT(Ops(*tail), ElementsAre(JournalOp::kNodeInserted, JournalOp::kEdgeInserted));
  EXPECT_THAT(store_->ReadJournal(journal->back().seq, 0), IsOkAndHolds(IsEmpty()));

  StatusOr<std::vector<JournalEntry>> for_n1 = store_->JournalFor(n1.id);
  ASSERT_THAT(for_n1, IsOk());
  EXPECT_THAT(Ops(*for_n1), ElementsAre(JournalOp::kNodeInserted, JournalOp::kNodeUpdated));
  EXPECT_THAT(store_->JournalFor(edge_id), IsOkAndHolds(SizeIs(1)));
}

TEST_P(StoreContractTest, EmptyStoreHasEmptyJournal) {
  EXPECT_THAT(store_->LastJournalSeq(), IsOkAndHolds(0));
  EXPECT_THAT(store_->ReadJournal(0, 0), IsOkAndHolds(IsEmpty()));
}

// ----- Listing --------------------------------------------------------------------------------

TEST_P(StoreContractTest, ListNodesOrdersBySequenceThenRowAndFilters) {
  const ScopeRecord scope = MakeScope("user:alice");
  const ScopeRecord other = MakeScope("user:bob");
  StatusOr<std::unique_ptr<Transaction>> txn = store_->BeginWrite();
  ASSERT_THAT(txn, IsOk());
  auto insert = [&](std::string_view id, NodeKind kind, std::int64_t sequence,
                    std::int64_t scope_id) {
    NodeRecord node;
    node.id = std::string(id);
    node.kind = kind;
    node.scope_id = scope_id;
    node.content_json = "{}";
    node.sequence = sequence;
    EXPECT_THAT((*txn)->InsertNode(node), IsOk());
  };
  insert("n3", NodeKind::kTurn, 3, scope.scope_id);
  insert("n1", NodeKind::kTurn, 1, scope.scope_id);
  insert("f2", NodeKind::kFact, 2, scope.scope_id);
  insert("n2", NodeKind::kTurn, 2, scope.scope_id);
  insert("x1", NodeKind::kTurn, 1, other.scope_id);
  ASSERT_THAT((*txn)->UpdateNodeState("n3", NodeStatus::kRetired, At(1), At(1), ""), IsOk());
  ASSERT_THAT((*txn)->Commit(), IsOk());

  // The scope node has sequence 0 and so is not listed by default (after_sequence = 0).
  EXPECT_THAT(Ids(store_->ListNodes(scope.scope_id, {}).value()),
              ElementsAre("n1", "f2", "n2", "n3"));
  EXPECT_THAT(Ids(store_->ListNodes(scope.scope_id, {.kind = NodeKind::kTurn}).value()),
              ElementsAre("n1", "n2", "n3"));
  EXPECT_THAT(Ids(store_->ListNodes(scope.scope_id, {.after_sequence = 1}).value()),
              ElementsAre("f2", "n2", "n3"));
  EXPECT_THAT(Ids(store_->ListNodes(scope.scope_id, {.limit = 2}).value()),
              ElementsAre("n1", "f2"));
  EXPECT_THAT(Ids(store_->ListNodes(scope.scope_id, {.include_inactive = false}).value()),
              ElementsAre("n1", "f2", "n2"));
  EXPECT_THAT(Ids(store_->ListNodes(scope.scope_id, {.after_sequence = -1}).value()),
              ElementsAre(scope.node_id, "n1", "f2", "n2", "n3"));
  EXPECT_THAT(Ids(store_->ListNodes(other.scope_id, {}).value()), ElementsAre("x1"));
}

TEST_P(StoreContractTest, ScanNodesVisitsInRowOrderAndStopsWhenAsked) {
  const ScopeRecord scope = MakeScope("user:alice");
  const NodeRecord n1 = AddTurn(scope.scope_id, "one", At(1));
  const NodeRecord n2 = AddTurn(scope.scope_id, "two", At(2));
  const NodeRecord n3 = AddTurn(scope.scope_id, "three", At(3));
  std::vector<std::string> seen;
  ASSERT_THAT(store_->ScanNodes(scope.scope_id, NodeKind::kTurn,
                                [&](const NodeRecord& node) {
                                  seen.push_back(node.id);
                                  return true;
                                }),
              IsOk());
  EXPECT_THAT(seen, ElementsAre(n1.id, n2.id, n3.id));
  seen.clear();
  ASSERT_THAT(store_->ScanNodes(scope.scope_id, std::nullopt,
                                [&](const NodeRecord& node) {
                                  seen.push_back(node.id);
                                  return seen.size() < 2;
                                }),
              IsOk());
  EXPECT_THAT(seen, ElementsAre(scope.node_id, n1.id));
  // CountNodes counts every node of the scope, the scope node included.
  EXPECT_THAT(store_->CountNodes(scope.scope_id), IsOkAndHolds(4));
  EXPECT_THAT(store_->CountNodes(scope.scope_id + 100), IsOkAndHolds(0));
}

TEST_P(StoreContractTest, ScanNodesKeepsRowOrderWhateverTheSequencesAndOtherScopes) {
  // Rows whose sequence order is not their row order, another scope's nodes between them, and
  // every status: the scan still visits the scope's nodes of the kind asked, by row, with all
  // their columns.
  const ScopeRecord scope = MakeScope("user:alice");
  const ScopeRecord other = MakeScope("user:bob");
  StatusOr<std::unique_ptr<Transaction>> txn = store_->BeginWrite();
  ASSERT_THAT(txn, IsOk());
  auto insert = [&](std::string_view id, NodeKind kind, std::int64_t sequence,
                    std::int64_t scope_id) {
    NodeRecord node;
    node.id = std::string(id);
    node.kind = kind;
    node.scope_id = scope_id;
    node.content_json = "{}";
    node.text = "text of " + std::string(id);
    node.speaker = "speaker of " + std::string(id);
    node.sequence = sequence;
    EXPECT_THAT((*txn)->InsertNode(node), IsOk());
  };
  insert("n3", NodeKind::kTurn, 3, scope.scope_id);
  insert("x1", NodeKind::kTurn, 1, other.scope_id);
  insert("n1", NodeKind::kTurn, 1, scope.scope_id);
  insert("e1", NodeKind::kEntity, 0, scope.scope_id);
  insert("x2", NodeKind::kTurn, 2, other.scope_id);
  insert("n2", NodeKind::kTurn, 2, scope.scope_id);
  insert("f1", NodeKind::kFact, 1, scope.scope_id);
  ASSERT_THAT((*txn)->UpdateNodeState("n1", NodeStatus::kRetired, At(1), At(1), ""), IsOk());
  ASSERT_THAT((*txn)->Commit(), IsOk());

  const auto scan = [&](std::int64_t scope_id, std::optional<NodeKind> kind) {
    std::vector<std::string> seen;
    EXPECT_THAT(store_->ScanNodes(scope_id, kind,
                                  [&](const NodeRecord& node) {
                                    EXPECT_EQ(node.text, "text of " + node.id);
                                    EXPECT_EQ(node.speaker, "speaker of " + node.id);
                                    seen.push_back(node.id);
                                    return true;
                                  }),
                IsOk());
    return seen;
  };
  EXPECT_THAT(scan(scope.scope_id, NodeKind::kTurn), ElementsAre("n3", "n1", "n2"));
  EXPECT_THAT(scan(scope.scope_id, NodeKind::kEntity), ElementsAre("e1"));
  EXPECT_THAT(scan(scope.scope_id, NodeKind::kFact), ElementsAre("f1"));
  EXPECT_THAT(scan(other.scope_id, NodeKind::kTurn), ElementsAre("x1", "x2"));
  EXPECT_THAT(scan(other.scope_id, NodeKind::kFact), IsEmpty());
  EXPECT_THAT(scan(scope.scope_id + other.scope_id + 100, std::nullopt), IsEmpty());
}

TEST_P(StoreContractTest, GetNodesByRowKeepsTheGivenOrderAndSkipsUnknownRows) {
  const ScopeRecord scope = MakeScope("user:alice");
  const NodeRecord n1 = AddTurn(scope.scope_id, "one", At(1));
  const NodeRecord n2 = AddTurn(scope.scope_id, "two", At(2));
  const NodeRecord n3 = AddTurn(scope.scope_id, "three", At(3));
  const std::vector<std::int64_t> rows = {n3.row, 99999, n1.row, n2.row};
  EXPECT_THAT(Ids(store_->GetNodesByRow(rows).value()), ElementsAre(n3.id, n1.id, n2.id));
  // A row given twice comes back twice, where it was asked.
  const std::vector<std::int64_t> repeated = {n2.row, n1.row, n2.row};
  EXPECT_THAT(Ids(store_->GetNodesByRow(repeated).value()), ElementsAre(n2.id, n1.id, n2.id));
  EXPECT_THAT(store_->GetNodesByRow({}), IsOkAndHolds(IsEmpty()));
}

// ----- Edges ----------------------------------------------------------------------------------

TEST_P(StoreContractTest, EdgesOfFollowsDirectionAndTypeFilter) {
  write::EdgeRegistry registry;
  ASSERT_THAT(registry.Register(write::MakePlainEdgeHandler("refers_to")), IsOk());
  ASSERT_THAT(registry.Register(write::MakePlainEdgeHandler("mentions")), IsOk());
  const ScopeRecord scope = MakeScope("user:alice");
  const NodeRecord a = AddTurn(scope.scope_id, "a", At(1));
  const NodeRecord b = AddTurn(scope.scope_id, "b", At(2));
  const NodeRecord c = AddTurn(scope.scope_id, "c", At(3));
  StatusOr<std::unique_ptr<Transaction>> txn = store_->BeginWrite();
  ASSERT_THAT(txn, IsOk());
  auto apply = [&](std::string_view type, const NodeRecord& src, const NodeRecord& dst) {
    StatusOr<EdgeRecord> edge = registry.Apply(
        **txn, {.type = std::string(type), .src = src.id, .dst = dst.id, .now = At(10)});
    EXPECT_THAT(edge, IsOk());
    return edge.ok() ? edge->id : std::string();
  };
  const std::string ab = apply("refers_to", a, b);
  const std::string ca = apply("refers_to", c, a);
  const std::string am = apply("mentions", a, c);
  EXPECT_THAT(EdgeIds((*txn)->EdgesOf(a.id, EdgeDirection::kOutgoing, "").value()),
              ElementsAre(ab, am));
  ASSERT_THAT((*txn)->Commit(), IsOk());

  EXPECT_THAT(EdgeIds(store_->EdgesOf(a.id, EdgeDirection::kOutgoing, "").value()),
              ElementsAre(ab, am));
  EXPECT_THAT(EdgeIds(store_->EdgesOf(a.id, EdgeDirection::kIncoming, "").value()),
              ElementsAre(ca));
  EXPECT_THAT(EdgeIds(store_->EdgesOf(a.id, EdgeDirection::kBoth, "").value()),
              ElementsAre(ab, ca, am));
  EXPECT_THAT(EdgeIds(store_->EdgesOf(a.id, EdgeDirection::kBoth, "refers_to").value()),
              ElementsAre(ab, ca));
  EXPECT_THAT(EdgeIds(store_->EdgesOf(a.id, EdgeDirection::kOutgoing, "mentions").value()),
              ElementsAre(am));
  EXPECT_THAT(store_->EdgesOf(b.id, EdgeDirection::kOutgoing, "").value(), IsEmpty());
  EXPECT_THAT(EdgeIds(store_->EdgesInScope(scope.scope_id, "refers_to").value()),
              ElementsAre(ab, ca));
  EXPECT_THAT(EdgeIds(store_->EdgesInScope(scope.scope_id, "").value()), ElementsAre(ab, ca, am));

  StatusOr<EdgeRecord> edge = store_->GetEdge(ab);
  ASSERT_THAT(edge, IsOk());
  EXPECT_EQ(edge->type, "refers_to");
  EXPECT_EQ(edge->src, a.id);
  EXPECT_EQ(edge->dst, b.id);
  EXPECT_EQ(edge->scope_id, scope.scope_id);
  EXPECT_EQ(edge->status, "active");
  EXPECT_EQ(edge->attrs_json, "{}");
  EXPECT_EQ(edge->ingested_at, At(10));
  EXPECT_GT(edge->row, 0);
  EXPECT_THAT(store_->GetEdge("nope"), StatusIs(StatusCode::kNotFound));
}

TEST_P(StoreContractTest, EdgesInScopeIncludesEdgesWithOneEndpointInTheScope) {
  write::EdgeRegistry registry;
  ASSERT_THAT(registry.Register(write::MakePlainEdgeHandler("refers_to")), IsOk());
  const ScopeRecord alice = MakeScope("user:alice");
  // Edges join related scopes only (write/edge_registry.h): bob's run sits inside alice.
  const ScopeRecord bob = MakeScope("user:alice/run:bob", alice.scope_id);
  const NodeRecord a = AddTurn(alice.scope_id, "a", At(1));
  const NodeRecord b = AddTurn(bob.scope_id, "b", At(2));
  const NodeRecord b2 = AddTurn(bob.scope_id, "b2", At(3));
  StatusOr<std::unique_ptr<Transaction>> txn = store_->BeginWrite();
  ASSERT_THAT(txn, IsOk());
  StatusOr<EdgeRecord> cross =
      registry.Apply(**txn, {.type = "refers_to", .src = b.id, .dst = a.id, .now = At(5)});
  StatusOr<EdgeRecord> local =
      registry.Apply(**txn, {.type = "refers_to", .src = b.id, .dst = b2.id, .now = At(5)});
  ASSERT_THAT(cross, IsOk());
  ASSERT_THAT(local, IsOk());
  ASSERT_THAT((*txn)->Commit(), IsOk());
  EXPECT_EQ(cross->scope_id, bob.scope_id);  // scope 0 in the request: the src's scope
  EXPECT_THAT(EdgeIds(store_->EdgesInScope(alice.scope_id, "refers_to").value()),
              ElementsAre(cross->id));
  EXPECT_THAT(EdgeIds(store_->EdgesInScope(bob.scope_id, "refers_to").value()),
              ElementsAre(cross->id, local->id));
}

// ----- Erase ----------------------------------------------------------------------------------

TEST_P(StoreContractTest, EraseScopesRemovesTheTreeAndLeavesOtherScopesAlone) {
  write::EdgeRegistry registry;
  ASSERT_THAT(registry.Register(write::MakePlainEdgeHandler("refers_to")), IsOk());
  // Edges join related scopes only (write/edge_registry.h): "bob" is the app scope around alice.
  const ScopeRecord bob = MakeScope("app:bob");
  const ScopeRecord alice = MakeScope("app:bob/user:alice", bob.scope_id);
  const ScopeRecord run = MakeScope("app:bob/user:alice/run:1", alice.scope_id);
  const NodeRecord a1 = AddTurn(alice.scope_id, "alice secret one", At(1));
  const NodeRecord r1 = AddTurn(run.scope_id, "alice secret in run", At(2));
  const NodeRecord b1 = AddTurn(bob.scope_id, "bob keeps this", At(3));
  const NodeRecord b2 = AddTurn(bob.scope_id, "bob keeps this too", At(4));
  std::string cross_edge;
  std::string bob_edge;
  std::string alice_edge;
  {
    StatusOr<std::unique_ptr<Transaction>> txn = store_->BeginWrite();
    ASSERT_THAT(txn, IsOk());
    // An edge written in bob's scope that points at alice's memory must go too.
    StatusOr<EdgeRecord> cross =
        registry.Apply(**txn, {.type = "refers_to", .src = b1.id, .dst = a1.id, .now = At(5)});
    StatusOr<EdgeRecord> local =
        registry.Apply(**txn, {.type = "refers_to", .src = b2.id, .dst = b1.id, .now = At(5)});
    StatusOr<EdgeRecord> inner =
        registry.Apply(**txn, {.type = "refers_to", .src = r1.id, .dst = a1.id, .now = At(5)});
    ASSERT_THAT(cross, IsOk());
    ASSERT_THAT(local, IsOk());
    ASSERT_THAT(inner, IsOk());
    cross_edge = cross->id;
    bob_edge = local->id;
    alice_edge = inner->id;
    ASSERT_THAT((*txn)->Commit(), IsOk());
  }
  StatusOr<std::int64_t> seq_before = store_->LastJournalSeq();
  ASSERT_THAT(seq_before, IsOk());

  const std::vector<std::int64_t> erase = {alice.scope_id};
  StatusOr<EraseCounts> counts = store_->EraseScopes(erase);
  ASSERT_THAT(counts, IsOk());
  EXPECT_EQ(counts->scopes, 2u);
  EXPECT_EQ(counts->nodes, 4u);  // two scope nodes and two turns
  EXPECT_EQ(counts->edges, 2u);
  // scope_created x2, node_inserted x2, edge_inserted x2.
  EXPECT_EQ(counts->journal_entries, 6u);

  EXPECT_THAT(store_->FindScope("app:bob/user:alice"), IsOkAndHolds(Eq(std::nullopt)));
  EXPECT_THAT(store_->FindScope("app:bob/user:alice/run:1"), IsOkAndHolds(Eq(std::nullopt)));
  EXPECT_THAT(store_->GetNode(a1.id), StatusIs(StatusCode::kNotFound));
  EXPECT_THAT(store_->GetNode(r1.id), StatusIs(StatusCode::kNotFound));
  EXPECT_THAT(store_->GetNode(alice.node_id), StatusIs(StatusCode::kNotFound));
  EXPECT_THAT(store_->GetEdge(cross_edge), StatusIs(StatusCode::kNotFound));
  EXPECT_THAT(store_->GetEdge(alice_edge), StatusIs(StatusCode::kNotFound));
  EXPECT_THAT(store_->JournalFor(a1.id), IsOkAndHolds(IsEmpty()));
  EXPECT_THAT(store_->JournalFor(cross_edge), IsOkAndHolds(IsEmpty()));

  // Bob is untouched.
  EXPECT_THAT(store_->FindScope("app:bob"), IsOkAndHolds(Not(Eq(std::nullopt))));
  EXPECT_THAT(store_->GetNode(b1.id), IsOkAndHolds(Field(&NodeRecord::text, "bob keeps this")));
  EXPECT_THAT(store_->GetNode(b2.id), IsOk());
  EXPECT_THAT(store_->GetEdge(bob_edge), IsOk());
  EXPECT_THAT(store_->JournalFor(b1.id), IsOkAndHolds(SizeIs(1)));
  EXPECT_THAT(store_->CountNodes(bob.scope_id), IsOkAndHolds(3));

  // One tombstone per erased scope, after everything that was there before, without text.
  StatusOr<std::vector<JournalEntry>> tail = store_->ReadJournal(*seq_before, 0);
  ASSERT_THAT(tail, IsOk());
  ASSERT_THAT(*tail, SizeIs(2));
  EXPECT_EQ((*tail)[0].op, JournalOp::kScopeErased);
  EXPECT_EQ((*tail)[0].scope_id, alice.scope_id);
  EXPECT_EQ((*tail)[1].op, JournalOp::kScopeErased);
  EXPECT_EQ((*tail)[1].scope_id, run.scope_id);
  for (const JournalEntry& entry : *tail) EXPECT_THAT(entry.detail, Not(HasSubstr("secret")));

  StatusOr<std::string> dump = store_->DumpCanonical();
  ASSERT_THAT(dump, IsOk());
  EXPECT_THAT(*dump, Not(HasSubstr("secret")));
  EXPECT_THAT(*dump, HasSubstr("bob keeps this"));

  // Rows are never reused after an erase.
  const NodeRecord b3 = AddTurn(bob.scope_id, "new", At(9));
  EXPECT_GT(b3.row, r1.row);
}

TEST_P(StoreContractTest, EraseUnknownScopeIsNotFoundAndErasesNothing) {
  const ScopeRecord alice = MakeScope("user:alice");
  const std::vector<std::int64_t> erase = {alice.scope_id, alice.scope_id + 100};
  EXPECT_THAT(store_->EraseScopes(erase), StatusIs(StatusCode::kNotFound));
  EXPECT_THAT(store_->FindScope("user:alice"), IsOkAndHolds(Not(Eq(std::nullopt))));
}

// ----- The schema, through the backend's own client (BackendParam::raw_sql) ----------------------

// Skips the test when the backend has no raw-SQL hook.
#define SKIP_WITHOUT_RAW_SQL()                                               \
  if (!GetParam().raw_sql) GTEST_SKIP() << GetParam().name << " has no raw-SQL hook"

TEST_P(StoreContractTest, TriggerRefusesRawContentUpdatesButAllowsStateChanges) {
  SKIP_WITHOUT_RAW_SQL();
  const ScopeRecord alice = MakeScope("user:alice");
  const NodeRecord node = AddTurn(alice.scope_id, "original words", At(1));
  for (const std::string column_update :
       {"text = 'rewritten'", "content_json = '{}'", "id = 'other'", "kind = 'fact'",
        "sequence = 99", "metadata_json = '{\"a\":1}'", "event_time = 5", "speaker = 'Mallory'",
        "ingested_at = 7", "idempotency_key = 'k'"}) {
    EXPECT_THAT(GetParam().raw_sql(dir_, "UPDATE nodes SET " + column_update + " WHERE id = '" +
                                             node.id + "'"),
                StatusIs(StatusCode::kInternal, HasSubstr("immutable")))
        << column_update;
  }
  EXPECT_THAT(GetParam().raw_sql(dir_, "UPDATE nodes SET status = 'retired', valid_to = 5, "
                                       "updated_at = 6 WHERE id = '" + node.id + "'"),
              IsOk());
  StatusOr<NodeRecord> after = store_->GetNode(node.id);
  ASSERT_THAT(after, IsOk());
  EXPECT_EQ(after->text, "original words");
  EXPECT_EQ(after->status, NodeStatus::kRetired);
}

TEST_P(StoreContractTest, FreshStoreIsAtTheLatestSchemaVersion) {
  SKIP_WITHOUT_RAW_SQL();
  EXPECT_THAT(GetParam().raw_sql(dir_, "SELECT value FROM meta WHERE key = 'schema_version'"),
              IsOkAndHolds(std::string("8")));
  StatusOr<std::string> dump = store_->DumpCanonical();
  ASSERT_THAT(dump, IsOk());
  EXPECT_THAT(*dump, HasSubstr("key=\"schema_version\" value=\"8\""));
}

TEST_P(StoreContractTest, NewerSchemaVersionIsFailedPreconditionNamingBothVersions) {
  SKIP_WITHOUT_RAW_SQL();
  store_.reset();
  ASSERT_THAT(GetParam().raw_sql(dir_, "UPDATE meta SET value = '99' WHERE key = 'schema_version'"),
              IsOk());
  EXPECT_THAT(GetParam().factory(dir_),
              StatusIs(StatusCode::kFailedPrecondition,
                       AllOf(HasSubstr("schema version 99"), HasSubstr("at most version 8"),
                             HasSubstr("newer engram"))));
}

#undef SKIP_WITHOUT_RAW_SQL

// ----- Persistence and determinism ------------------------------------------------------------

TEST_P(StoreContractTest, ReopenedStoreHoldsTheSameData) {
  const ScopeRecord alice = MakeScope("user:alice");
  const NodeRecord n1 = AddTurn(alice.scope_id, "persist me", At(1));
  StatusOr<std::string> before = store_->DumpCanonical();
  ASSERT_THAT(before, IsOk());
  Reopen();
  EXPECT_THAT(store_->DumpCanonical(), IsOkAndHolds(*before));
  EXPECT_THAT(store_->GetNode(n1.id), IsOkAndHolds(Field(&NodeRecord::text, "persist me")));
  // Sequences continue where they were.
  StatusOr<std::unique_ptr<Transaction>> txn = store_->BeginWrite();
  ASSERT_THAT(txn, IsOk());
  EXPECT_THAT((*txn)->NextSequence(alice.scope_id), IsOkAndHolds(2));
}

TEST_P(StoreContractTest, SameWritesGiveTheSameDump) {
  auto workload = [this](Store& store) {
    StatusOr<std::unique_ptr<Transaction>> txn = store.BeginWrite();
    EXPECT_THAT(txn, IsOk());
    StatusOr<ScopeRecord> scope =
        (*txn)->CreateScope("user:alice", core::ScopeNodeId("user:alice"), 0, At(1));
    EXPECT_THAT(scope, IsOk());
    for (int turn_index = 0; turn_index < 5; ++turn_index) {
      NodeRecord node = NewTurn(**txn, scope->scope_id, "turn " + std::to_string(turn_index),
                                At(10 + turn_index));
      EXPECT_THAT((*txn)->InsertNode(node), IsOk());
    }
    EXPECT_THAT((*txn)->Commit(), IsOk());
    return store.DumpCanonical();
  };
  StatusOr<std::string> first = workload(*store_);
  ASSERT_THAT(first, IsOk());
  // The same workload on a second, fresh store.
  const engram::testing::TempDir other_dir("engram_store_contract");
  StatusOr<std::unique_ptr<Store>> other = GetParam().factory(other_dir.path());
  ASSERT_THAT(other, IsOk());
  EXPECT_THAT(workload(**other), IsOkAndHolds(*first));
}

// ----- Concurrency ----------------------------------------------------------------------------

TEST_P(StoreContractTest, ReadsRunWhileAWriteTransactionIsOpen) {
  const ScopeRecord alice = MakeScope("user:alice");
  const NodeRecord committed = AddTurn(alice.scope_id, "committed", At(1));
  StatusOr<std::unique_ptr<Transaction>> txn = store_->BeginWrite();
  ASSERT_THAT(txn, IsOk());
  NodeRecord pending = NewTurn(**txn, alice.scope_id, "pending", At(2));
  ASSERT_THAT((*txn)->InsertNode(pending), IsOk());

  std::vector<std::future<bool>> readers;
  for (int reader_index = 0; reader_index < 4; ++reader_index) {
    readers.push_back(std::async(std::launch::async, [&] {
      for (int read_index = 0; read_index < 20; ++read_index) {
        if (!store_->GetNode(committed.id).ok()) return false;
        if (store_->GetNode(pending.id).status().code() != StatusCode::kNotFound) return false;
        StatusOr<std::vector<NodeRecord>> listed = store_->ListNodes(alice.scope_id, {});
        if (!listed.ok() || listed->size() != 1) return false;
      }
      return true;
    }));
  }
  for (std::future<bool>& reader : readers) {
    ASSERT_EQ(reader.wait_for(std::chrono::seconds(20)), std::future_status::ready)
        << "a read blocked behind the open write transaction";
    EXPECT_TRUE(reader.get());
  }
  ASSERT_THAT((*txn)->Commit(), IsOk());
  EXPECT_THAT(store_->GetNode(pending.id), IsOk());
}

TEST_P(StoreContractTest, BeginWriteWaitsForTheOpenTransaction) {
  const ScopeRecord alice = MakeScope("user:alice");
  StatusOr<std::unique_ptr<Transaction>> first = store_->BeginWrite();
  ASSERT_THAT(first, IsOk());
  ASSERT_THAT((*first)->NextSequence(alice.scope_id), IsOkAndHolds(1));
  std::atomic<bool> second_began = false;
  std::future<StatusOr<std::int64_t>> second = std::async(std::launch::async, [&] {
    StatusOr<std::unique_ptr<Transaction>> txn = store_->BeginWrite();
    if (!txn.ok()) return StatusOr<std::int64_t>(txn.status());
    second_began = true;
    StatusOr<std::int64_t> sequence = (*txn)->NextSequence(alice.scope_id);
    if (!sequence.ok()) return sequence;
    Status committed = (*txn)->Commit();
    if (!committed.ok()) return StatusOr<std::int64_t>(committed);
    return sequence;
  });
  EXPECT_EQ(second.wait_for(std::chrono::milliseconds(200)), std::future_status::timeout);
  EXPECT_FALSE(second_began.load());
  ASSERT_THAT((*first)->Commit(), IsOk());
  ASSERT_EQ(second.wait_for(std::chrono::seconds(20)), std::future_status::ready);
  // The second writer saw the first one's committed sequence number.
  EXPECT_THAT(second.get(), IsOkAndHolds(2));
}

// ----- Merkle audit (docs/AUDIT.md) -------------------------------------------------------------

// Memories written in `store`: "app:bob" holding b1, b2 and, unless `without_alice`, the nested
// "app:bob/user:alice" holding a1 and a2, with an edge a2 -> a1 in alice's log and b1 -> a1 in
// bob's, then b2 -> b1 in bob's. Node ids hash the scope path (not its row), so two stores agree
// on them and the audit recomputes them. The turns are made by `turn` (the fixture's NewTurn).
struct MerkleWrites {
  ScopeRecord bob;
  ScopeRecord alice;
  NodeRecord a1;
};

using TurnMaker =
    std::function<NodeRecord(Transaction&, std::int64_t, std::string_view, Timestamp)>;

MerkleWrites WriteMerkleScenario(Store& store, const TurnMaker& turn, bool without_alice) {
  MerkleWrites writes;
  write::EdgeRegistry registry;
  EXPECT_THAT(registry.Register(write::MakePlainEdgeHandler("refers_to")), IsOk());
  StatusOr<std::unique_ptr<Transaction>> txn = store.BeginWrite();
  EXPECT_THAT(txn, IsOk());
  if (!txn.ok()) return writes;
  Transaction& t = **txn;
  const auto insert = [&](std::int64_t scope_id, std::string_view path, std::string_view text,
                          std::int64_t seconds) {
    NodeRecord node = turn(t, scope_id, text, At(seconds));
    node.id = core::NodeId("turn", node.content_json, core::ScopeNodeId(path), At(seconds).micros);
    EXPECT_THAT(t.InsertNode(node), IsOk());
    return node;
  };
  const auto link = [&](const NodeRecord& src, const NodeRecord& dst) {
    EXPECT_THAT(
        registry.Apply(t, {.type = "refers_to", .src = src.id, .dst = dst.id, .now = At(9)}),
        IsOk());
  };
  writes.bob =
      t.CreateScope("app:bob", core::ScopeNodeId("app:bob"), 0, At(1)).value_or(ScopeRecord{});
  const NodeRecord b1 = insert(writes.bob.scope_id, "app:bob", "bob's first words", 2);
  if (!without_alice) {
    const std::string path = "app:bob/user:alice";
    writes.alice = t.CreateScope(path, core::ScopeNodeId(path), writes.bob.scope_id, At(3))
                       .value_or(ScopeRecord{});
    writes.a1 = insert(writes.alice.scope_id, path, "alice lives in Berlin", 4);
    const NodeRecord a2 = insert(writes.alice.scope_id, path, "alice's sister is Maya", 5);
    link(a2, writes.a1);
    link(b1, writes.a1);
  }
  const NodeRecord b2 = insert(writes.bob.scope_id, "app:bob", "bob's second words", 6);
  link(b2, b1);
  EXPECT_THAT(t.Commit(), IsOk());
  return writes;
}

// Both logs' leaves and the state of a scope, for comparing two stores.
struct MerkleSnapshot {
  MerkleState state;
  std::vector<MerkleLeaf> nodes;
  std::vector<MerkleLeaf> edges;
};

MerkleSnapshot Snapshot(Store& store, std::int64_t scope_id) {
  MerkleSnapshot snapshot;
  StatusOr<MerkleState> state = store.GetMerkleState(scope_id);
  EXPECT_THAT(state, IsOk());
  snapshot.state = state.value_or(MerkleState{});
  snapshot.nodes =
      store.GetMerkleLeaves(scope_id, MerkleLog::kNodes).value_or(std::vector<MerkleLeaf>{});
  snapshot.edges =
      store.GetMerkleLeaves(scope_id, MerkleLog::kEdges).value_or(std::vector<MerkleLeaf>{});
  return snapshot;
}

void ExpectSameMerkle(const MerkleSnapshot& actual, const MerkleSnapshot& expected) {
  EXPECT_EQ(actual.state.root, expected.state.root);
  EXPECT_EQ(actual.state.node_root, expected.state.node_root);
  EXPECT_EQ(actual.state.node_count, expected.state.node_count);
  EXPECT_EQ(actual.state.edge_root, expected.state.edge_root);
  EXPECT_EQ(actual.state.edge_count, expected.state.edge_count);
  for (const auto& [got, want] :
       {std::pair{&actual.nodes, &expected.nodes}, std::pair{&actual.edges, &expected.edges}}) {
    ASSERT_EQ(got->size(), want->size());
    for (std::size_t i = 0; i < got->size(); ++i) {
      EXPECT_EQ((*got)[i].index, static_cast<std::int64_t>(i));
      EXPECT_EQ((*got)[i].target_id, (*want)[i].target_id);
      EXPECT_EQ((*got)[i].hash, (*want)[i].hash);
    }
  }
}

TEST_P(StoreContractTest, MerkleRootsAreThoseASqliteStoreKeepsForTheSameWrites) {
  const TurnMaker turn = [this](Transaction& txn, std::int64_t scope_id, std::string_view text,
                                Timestamp at) { return NewTurn(txn, scope_id, text, at); };
  StatusOr<std::unique_ptr<Store>> reference = OpenSqliteStore(dir_ + "/reference.db");
  ASSERT_THAT(reference, IsOk());
  const MerkleWrites here = WriteMerkleScenario(*store_, turn, false);
  const MerkleWrites there = WriteMerkleScenario(**reference, turn, false);
  const MerkleSnapshot bob = Snapshot(*store_, here.bob.scope_id);
  const MerkleSnapshot alice = Snapshot(*store_, here.alice.scope_id);
  ExpectSameMerkle(bob, Snapshot(**reference, there.bob.scope_id));
  ExpectSameMerkle(alice, Snapshot(**reference, there.alice.scope_id));
  EXPECT_EQ(bob.state.node_count, 3);  // its scope node, b1, b2
  EXPECT_EQ(bob.state.edge_count, 2);  // b1 -> a1, b2 -> b1
  EXPECT_EQ(alice.state.node_count, 3);
  EXPECT_EQ(alice.state.edge_count, 1);
  EXPECT_NE(bob.state.root, alice.state.root);

  // The audit recomputes the same roots from the records.
  StatusOr<AuditReport> audit = AuditScope(*store_, here.bob);
  ASSERT_THAT(audit, IsOk());
  EXPECT_TRUE(audit->ok) << (audit->mismatch ? audit->mismatch->reason : "");
  EXPECT_EQ(audit->root, bob.state.root);
  EXPECT_EQ(audit->scopes, 2);

  // Status and validity are outside every hash: retiring a memory keeps the roots.
  {
    StatusOr<std::unique_ptr<Transaction>> txn = store_->BeginWrite();
    ASSERT_THAT(txn, IsOk());
    ASSERT_THAT((*txn)->UpdateNodeState(here.a1.id, NodeStatus::kRetired, At(20), At(20), ""),
                IsOk());
    ASSERT_THAT((*txn)->Commit(), IsOk());
  }
  EXPECT_EQ(Snapshot(*store_, here.bob.scope_id).state.root, bob.state.root);

  // A write inside a transaction moves the roots of its scope and every enclosing one; the
  // transaction sees them before it commits, and the commit stores exactly those.
  StatusOr<std::unique_ptr<Transaction>> txn = store_->BeginWrite();
  ASSERT_THAT(txn, IsOk());
  NodeRecord more = NewTurn(**txn, here.alice.scope_id, "alice moved to Munich", At(30));
  ASSERT_THAT((*txn)->InsertNode(more), IsOk());
  StatusOr<MerkleState> inside = (*txn)->GetMerkleState(here.bob.scope_id);
  ASSERT_THAT(inside, IsOk());
  EXPECT_NE(inside->root, bob.state.root);
  EXPECT_EQ(inside->node_count, bob.state.node_count);  // bob's own log did not move
  EXPECT_THAT((*txn)->GetMerkleState(999), StatusIs(StatusCode::kNotFound));
  ASSERT_THAT((*txn)->Commit(), IsOk());
  EXPECT_EQ(Snapshot(*store_, here.bob.scope_id).state.root, inside->root);
  EXPECT_EQ(Snapshot(*store_, here.alice.scope_id).state.node_count, 4);
  EXPECT_THAT(store_->GetMerkleState(999), StatusIs(StatusCode::kNotFound));
}

TEST_P(StoreContractTest, EraseLeavesTheParentTheRootOfAStoreThatNeverHeldTheScope) {
  const TurnMaker turn = [this](Transaction& txn, std::int64_t scope_id, std::string_view text,
                                Timestamp at) { return NewTurn(txn, scope_id, text, at); };
  StatusOr<std::unique_ptr<Store>> reference = OpenSqliteStore(dir_ + "/reference.db");
  ASSERT_THAT(reference, IsOk());
  const MerkleWrites here = WriteMerkleScenario(*store_, turn, false);
  const MerkleWrites never = WriteMerkleScenario(**reference, turn, true);
  const MerkleSnapshot before = Snapshot(*store_, here.bob.scope_id);

  const std::vector<std::int64_t> erase = {here.alice.scope_id};
  ASSERT_THAT(store_->EraseScopes(erase), IsOk());
  const MerkleSnapshot after = Snapshot(*store_, here.bob.scope_id);
  EXPECT_NE(after.state.root, before.state.root);
  EXPECT_EQ(after.state.edge_count, 1);  // b1 -> a1 went with a1
  ExpectSameMerkle(after, Snapshot(**reference, never.bob.scope_id));
  EXPECT_THAT(store_->GetMerkleState(here.alice.scope_id), StatusIs(StatusCode::kNotFound));
  EXPECT_THAT(store_->GetMerkleLeaves(here.alice.scope_id, MerkleLog::kNodes),
              IsOkAndHolds(IsEmpty()));
  StatusOr<AuditReport> audit = AuditScope(*store_, here.bob);
  ASSERT_THAT(audit, IsOk());
  EXPECT_TRUE(audit->ok) << (audit->mismatch ? audit->mismatch->reason : "");
}

TEST_P(StoreContractTest, ScanEdgesVisitsTheScopesEdgesInRowOrderUntilToldToStop) {
  const TurnMaker turn = [this](Transaction& txn, std::int64_t scope_id, std::string_view text,
                                Timestamp at) { return NewTurn(txn, scope_id, text, at); };
  const MerkleWrites writes = WriteMerkleScenario(*store_, turn, false);
  std::vector<EdgeRecord> seen;
  ASSERT_THAT(store_->ScanEdges(writes.bob.scope_id,
                                [&](const EdgeRecord& edge) {
                                  seen.push_back(edge);
                                  return true;
                                }),
              IsOk());
  ASSERT_THAT(seen, SizeIs(2));
  EXPECT_LT(seen[0].row, seen[1].row);
  EXPECT_EQ(seen[0].dst, writes.a1.id);  // b1 -> a1 was written first
  for (const EdgeRecord& edge : seen) EXPECT_EQ(edge.scope_id, writes.bob.scope_id);
  int visits = 0;
  ASSERT_THAT(store_->ScanEdges(writes.bob.scope_id,
                                [&](const EdgeRecord&) {
                                  ++visits;
                                  return false;
                                }),
              IsOk());
  EXPECT_EQ(visits, 1);
}

TEST_P(StoreContractTest, AdvanceSequenceRaisesTheLastSequenceButNeverLowersIt) {
  const ScopeRecord scope = MakeScope("user:alice");
  StatusOr<std::unique_ptr<Transaction>> txn = store_->BeginWrite();
  ASSERT_THAT(txn, IsOk());
  ASSERT_THAT((*txn)->AdvanceSequence(scope.scope_id, 10), IsOk());
  EXPECT_THAT((*txn)->NextSequence(scope.scope_id), IsOkAndHolds(11));
  ASSERT_THAT((*txn)->AdvanceSequence(scope.scope_id, 3), IsOk());
  EXPECT_THAT((*txn)->NextSequence(scope.scope_id), IsOkAndHolds(12));
  EXPECT_THAT((*txn)->AdvanceSequence(999, 5), StatusIs(StatusCode::kNotFound));
  ASSERT_THAT((*txn)->Commit(), IsOk());
  EXPECT_THAT(store_->GetScope(scope.scope_id),
              IsOkAndHolds(Optional(Field(&ScopeRecord::last_sequence, 12))));
}

TEST_P(StoreContractTest, ARefusedDuplicateIdempotencyKeyLeavesTheTransactionUsable) {
  const ScopeRecord scope = MakeScope("user:alice");
  StatusOr<std::unique_ptr<Transaction>> txn = store_->BeginWrite();
  ASSERT_THAT(txn, IsOk());
  NodeRecord first = NewTurn(**txn, scope.scope_id, "first", At(10));
  first.idempotency_key = "key-1";
  ASSERT_THAT((*txn)->InsertNode(first), IsOk());
  NodeRecord twin = NewTurn(**txn, scope.scope_id, "twin", At(11));
  twin.idempotency_key = "key-1";
  EXPECT_THAT((*txn)->InsertNode(twin), StatusIs(StatusCode::kAlreadyExists));
  const NodeRecord third = NewTurn(**txn, scope.scope_id, "third", At(12));
  ASSERT_THAT((*txn)->InsertNode(third), IsOk());
  ASSERT_THAT((*txn)->Commit(), IsOk());
  EXPECT_THAT(store_->GetNode(first.id), IsOk());
  EXPECT_THAT(store_->GetNode(third.id), IsOk());
  EXPECT_THAT(store_->GetNode(twin.id), StatusIs(StatusCode::kNotFound));
}

TEST_P(StoreContractTest, ATransactionReadsBackWhatItWroteAndChanged) {
  // Reads inside a transaction see its own inserts and state changes (a backend may answer them
  // without asking its server again).
  const ScopeRecord scope = MakeScope("user:alice");
  StatusOr<std::unique_ptr<Transaction>> txn = store_->BeginWrite();
  ASSERT_THAT(txn, IsOk());
  const NodeRecord turn = NewTurn(**txn, scope.scope_id, "hello", At(10));
  ASSERT_THAT((*txn)->InsertNode(turn), IsOk());
  EXPECT_THAT((*txn)->EdgesOf(turn.id, EdgeDirection::kBoth, ""), IsOkAndHolds(IsEmpty()));
  ASSERT_THAT((*txn)->UpdateNodeState(turn.id, NodeStatus::kRetired, At(20), At(20), ""), IsOk());
  StatusOr<NodeRecord> got = (*txn)->GetNode(turn.id);
  ASSERT_THAT(got, IsOk());
  EXPECT_EQ(got->status, NodeStatus::kRetired);
  EXPECT_EQ(got->valid_to, At(20));
  EXPECT_EQ(got->text, "hello");
  EXPECT_GT(got->row, 0);
  ASSERT_THAT((*txn)->Commit(), IsOk());
  StatusOr<NodeRecord> stored = store_->GetNode(turn.id);
  ASSERT_THAT(stored, IsOk());
  EXPECT_EQ(stored->row, got->row);
  EXPECT_EQ(stored->status, NodeStatus::kRetired);
}

TEST_P(StoreContractTest, JournalWaitReturnsAtOnceWhenAheadAndTheLastSeqOnTimeout) {
  MakeScope("user:alice");
  StatusOr<std::int64_t> last = store_->LastJournalSeq();
  ASSERT_THAT(last, IsOk());
  ASSERT_GT(*last, 0);
  EXPECT_THAT(store_->WaitForJournal(*last - 1, std::chrono::minutes(10)), IsOkAndHolds(*last));
  EXPECT_THAT(store_->WaitForJournal(*last, std::chrono::milliseconds(30)), IsOkAndHolds(*last));
}

TEST_P(StoreContractTest, JournalWaitWakesOnACommitFromAnotherThread) {
  const ScopeRecord scope = MakeScope("user:alice");
  StatusOr<std::int64_t> last = store_->LastJournalSeq();
  ASSERT_THAT(last, IsOk());
  // Without a wake-up the wait ends after its minute with the old seq, and the test fails.
  std::future<StatusOr<std::int64_t>> waited = std::async(std::launch::async, [&] {
    return store_->WaitForJournal(*last, std::chrono::minutes(1));
  });
  AddTurn(scope.scope_id, "hello", At(10));
  const StatusOr<std::int64_t> woken = waited.get();
  ASSERT_THAT(woken, IsOk());
  EXPECT_GT(*woken, *last);
}

TEST_P(StoreContractTest, AStopRequestEndsAJournalWait) {
  MakeScope("user:alice");
  StatusOr<std::int64_t> last = store_->LastJournalSeq();
  ASSERT_THAT(last, IsOk());
  std::stop_source stop;
  stop.request_stop();
  // An hour-long wait that ignored the request would outlast the test's timeout.
  EXPECT_THAT(store_->WaitForJournal(*last, std::chrono::hours(1), stop.get_token()),
              IsOkAndHolds(*last));
}

}  // namespace
}  // namespace engram::store::conformance
