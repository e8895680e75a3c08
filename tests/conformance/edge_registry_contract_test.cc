// Edge handler semantics (WorldDB Table 2, DESIGN §3) through write::EdgeRegistry, run against
// every store backend: the registry's rules must hold whatever store sits underneath.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/ids.h"
#include "engram/testing/status_matchers.h"
#include "tests/conformance/store_contract_test.h"
#include "write/edge_registry.h"

namespace engram::store::conformance {
namespace {

using ::engram::testing::IsOk;
using ::engram::testing::IsOkAndHolds;
using ::engram::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::Field;
using ::testing::HasSubstr;
using ::testing::Optional;
using ::testing::SizeIs;
using write::EdgeRegistry;
using write::EdgeRequest;

Timestamp At(std::int64_t seconds) { return Timestamp::FromSeconds(seconds); }

class EdgeFixture {
 public:
  explicit EdgeFixture(Store& store) : store_(store), registry_(EdgeRegistry::WithBuiltins()) {}

  // Applies one edge in its own transaction; commits only on success.
  StatusOr<EdgeRecord> Apply(EdgeRequest request) {
    ASSIGN_OR_RETURN(std::unique_ptr<Transaction> txn, store_.BeginWrite());
    ASSIGN_OR_RETURN(EdgeRecord edge, registry_->Apply(*txn, request));
    RETURN_IF_ERROR(txn->Commit());
    return edge;
  }
  Status Accept(std::string_view edge_id, Timestamp now) {
    ASSIGN_OR_RETURN(std::unique_ptr<Transaction> txn, store_.BeginWrite());
    RETURN_IF_ERROR(registry_->AcceptProposal(*txn, edge_id, now));
    return txn->Commit();
  }
  Status Reject(std::string_view edge_id, Timestamp now) {
    ASSIGN_OR_RETURN(std::unique_ptr<Transaction> txn, store_.BeginWrite());
    RETURN_IF_ERROR(registry_->RejectProposal(*txn, edge_id, now));
    return txn->Commit();
  }
  EdgeRegistry& registry() { return *registry_; }

 private:
  Store& store_;
  std::unique_ptr<EdgeRegistry> registry_;
};

// A fact node with an optional validity start, in its own transaction.
NodeRecord AddFact(Store& store, std::int64_t scope_id, std::string_view text,
                   std::optional<Timestamp> valid_from, std::optional<Timestamp> valid_to) {
  NodeRecord node;
  node.kind = NodeKind::kFact;
  node.scope_id = scope_id;
  node.text = std::string(text);
  node.content_json = "{\"text\":\"" + std::string(text) + "\"}";
  node.id = core::NodeId("fact", node.content_json, std::to_string(scope_id), 1);
  node.valid_from = valid_from;
  node.valid_to = valid_to;
  node.ingested_at = At(1);
  node.updated_at = At(1);
  StatusOr<std::unique_ptr<Transaction>> txn = store.BeginWrite();
  EXPECT_THAT(txn, IsOk());
  if (!txn.ok()) return node;
  StatusOr<std::int64_t> row = (*txn)->InsertNode(node);
  EXPECT_THAT(row, IsOk());
  node.row = row.value_or(0);
  EXPECT_THAT((*txn)->Commit(), IsOk());
  return node;
}

TEST_P(EdgeRegistryContractTest, EdgeIdIsTheContentAddressAndFieldsAreStored) {
  EdgeFixture edges(*store_);
  const ScopeRecord scope = MakeScope("user:alice");
  const NodeRecord fact = AddFact(*store_, scope.scope_id, "likes tea", std::nullopt, std::nullopt);
  const NodeRecord turn = AddTurn(scope.scope_id, "I like tea", At(2));
  StatusOr<EdgeRecord> edge = edges.Apply({.type = "derived_from",
                                           .src = fact.id,
                                           .dst = turn.id,
                                           .attrs_json = "{\"span\":[2,5]}",
                                           .valid_from = At(3),
                                           .now = At(4)});
  ASSERT_THAT(edge, IsOk());
  EXPECT_EQ(edge->id, core::EdgeId("derived_from", fact.id, turn.id, At(4).micros));
  StatusOr<EdgeRecord> stored = store_->GetEdge(edge->id);
  ASSERT_THAT(stored, IsOk());
  EXPECT_EQ(stored->row, edge->row);
  EXPECT_EQ(stored->status, "active");
  EXPECT_EQ(stored->attrs_json, "{\"span\":[2,5]}");
  EXPECT_EQ(stored->valid_from, At(3));
  EXPECT_EQ(stored->valid_to, std::nullopt);
  EXPECT_EQ(stored->ingested_at, At(4));
  EXPECT_EQ(stored->updated_at, At(4));
  EXPECT_EQ(stored->scope_id, scope.scope_id);
  // The same provenance link twice is refused.
  EXPECT_THAT(edges.Apply({.type = "derived_from", .src = fact.id, .dst = turn.id, .now = At(5)}),
              StatusIs(StatusCode::kAlreadyExists));
}

TEST_P(EdgeRegistryContractTest, ContainsLinksAScopeNodeToAMember) {
  EdgeFixture edges(*store_);
  const ScopeRecord alice = MakeScope("user:alice");
  const ScopeRecord run = MakeScope("user:alice/run:1", alice.scope_id);
  const ScopeRecord bob = MakeScope("user:bob");
  const NodeRecord turn = AddTurn(alice.scope_id, "hello", At(2));
  const NodeRecord other = AddTurn(alice.scope_id, "world", At(3));
  EXPECT_THAT(edges.Apply({.type = "contains", .src = alice.node_id, .dst = turn.id, .now = At(4)}),
              IsOkAndHolds(Field(&EdgeRecord::status, "active")));
  // No edge joins unrelated scopes, not even contains.
  EXPECT_THAT(edges.Apply({.type = "contains", .src = bob.node_id, .dst = turn.id, .now = At(4)}),
              StatusIs(StatusCode::kFailedPrecondition, HasSubstr("user:bob")));
  EXPECT_THAT(
      edges.Apply({.type = "contains", .src = alice.node_id, .dst = run.node_id, .now = At(4)}),
      IsOk());
  EXPECT_THAT(edges.Apply({.type = "contains", .src = other.id, .dst = turn.id, .now = At(4)}),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("not a scope node")));
  EXPECT_THAT(edges.Apply({.type = "contains", .src = alice.node_id, .dst = turn.id, .now = At(5)}),
              StatusIs(StatusCode::kAlreadyExists));
}

TEST_P(EdgeRegistryContractTest, SupersedesClosesTheOldNodeAtTheNewNodesValidFrom) {
  EdgeFixture edges(*store_);
  const ScopeRecord scope = MakeScope("user:alice");
  const NodeRecord old_fact =
      AddFact(*store_, scope.scope_id, "lives in Porto", At(100), std::nullopt);
  const NodeRecord new_fact =
      AddFact(*store_, scope.scope_id, "lives in Lisbon", At(500), std::nullopt);
  StatusOr<EdgeRecord> edge =
      edges.Apply({.type = "supersedes", .src = new_fact.id, .dst = old_fact.id, .now = At(900)});
  ASSERT_THAT(edge, IsOk());
  EXPECT_EQ(edge->valid_from, At(500));
  StatusOr<NodeRecord> old_after = store_->GetNode(old_fact.id);
  ASSERT_THAT(old_after, IsOk());
  EXPECT_EQ(old_after->status, NodeStatus::kSuperseded);
  EXPECT_EQ(old_after->valid_to, At(500));
  EXPECT_EQ(old_after->valid_from, At(100));
  EXPECT_EQ(old_after->updated_at, At(900));
  EXPECT_EQ(old_after->text, "lives in Porto");
  EXPECT_THAT(store_->GetNode(new_fact.id),
              IsOkAndHolds(Field(&NodeRecord::status, NodeStatus::kActive)));
  StatusOr<std::vector<JournalEntry>> journal = store_->JournalFor(old_fact.id);
  ASSERT_THAT(journal, IsOk());
  ASSERT_THAT(*journal, SizeIs(2));
  EXPECT_EQ(journal->back().op, JournalOp::kNodeUpdated);
  EXPECT_THAT(journal->back().detail, HasSubstr("status=superseded"));
  EXPECT_THAT(journal->back().detail, HasSubstr(new_fact.id));
}

TEST_P(EdgeRegistryContractTest, SupersedesUsesNowWhenTheNewNodeHasNoValidFrom) {
  EdgeFixture edges(*store_);
  const ScopeRecord scope = MakeScope("user:alice");
  const NodeRecord old_fact = AddFact(*store_, scope.scope_id, "old", At(100), std::nullopt);
  const NodeRecord new_fact = AddFact(*store_, scope.scope_id, "new", std::nullopt, std::nullopt);
  ASSERT_THAT(
      edges.Apply({.type = "supersedes", .src = new_fact.id, .dst = old_fact.id, .now = At(700)}),
      IsOk());
  EXPECT_THAT(store_->GetNode(old_fact.id),
              IsOkAndHolds(Field(&NodeRecord::valid_to, Optional(At(700)))));
}

TEST_P(EdgeRegistryContractTest, SupersedesTightensALaterValidTo) {
  EdgeFixture edges(*store_);
  const ScopeRecord scope = MakeScope("user:alice");
  const NodeRecord old_fact = AddFact(*store_, scope.scope_id, "old", At(100), At(1000));
  const NodeRecord new_fact = AddFact(*store_, scope.scope_id, "new", At(400), std::nullopt);
  ASSERT_THAT(
      edges.Apply({.type = "supersedes", .src = new_fact.id, .dst = old_fact.id, .now = At(900)}),
      IsOk());
  EXPECT_THAT(store_->GetNode(old_fact.id),
              IsOkAndHolds(Field(&NodeRecord::valid_to, Optional(At(400)))));
}

TEST_P(EdgeRegistryContractTest, SupersedesNeverExtendsAnEarlierValidTo) {
  EdgeFixture edges(*store_);
  const ScopeRecord scope = MakeScope("user:alice");
  const NodeRecord old_fact = AddFact(*store_, scope.scope_id, "old", At(100), At(300));
  const NodeRecord new_fact = AddFact(*store_, scope.scope_id, "new", At(400), std::nullopt);
  ASSERT_THAT(
      edges.Apply({.type = "supersedes", .src = new_fact.id, .dst = old_fact.id, .now = At(900)}),
      IsOk());
  StatusOr<NodeRecord> old_after = store_->GetNode(old_fact.id);
  ASSERT_THAT(old_after, IsOk());
  EXPECT_EQ(old_after->valid_to, At(300));
  EXPECT_EQ(old_after->status, NodeStatus::kSuperseded);
}

// Found by the graph property test: a correction ingested out of order (the new node begins
// before the old one) closed the old node before it began.
TEST_P(EdgeRegistryContractTest, SupersedesNeverClosesTheOldNodeBeforeItBegan) {
  EdgeFixture edges(*store_);
  const ScopeRecord scope = MakeScope("user:alice");
  const NodeRecord old_fact = AddFact(*store_, scope.scope_id, "old", At(500), std::nullopt);
  const NodeRecord new_fact = AddFact(*store_, scope.scope_id, "new", At(200), std::nullopt);
  StatusOr<EdgeRecord> edge =
      edges.Apply({.type = "supersedes", .src = new_fact.id, .dst = old_fact.id, .now = At(900)});
  ASSERT_THAT(edge, IsOk());
  EXPECT_EQ(edge->valid_from, At(500));
  StatusOr<NodeRecord> old_after = store_->GetNode(old_fact.id);
  ASSERT_THAT(old_after, IsOk());
  EXPECT_EQ(old_after->valid_from, At(500));
  EXPECT_EQ(old_after->valid_to, At(500));
  EXPECT_EQ(old_after->status, NodeStatus::kSuperseded);
}

TEST_P(EdgeRegistryContractTest, SupersedesRefusesCycles) {
  EdgeFixture edges(*store_);
  const ScopeRecord scope = MakeScope("user:alice");
  const NodeRecord a = AddFact(*store_, scope.scope_id, "a", std::nullopt, std::nullopt);
  const NodeRecord b = AddFact(*store_, scope.scope_id, "b", std::nullopt, std::nullopt);
  const NodeRecord c = AddFact(*store_, scope.scope_id, "c", std::nullopt, std::nullopt);
  ASSERT_THAT(edges.Apply({.type = "supersedes", .src = b.id, .dst = a.id, .now = At(10)}), IsOk());
  ASSERT_THAT(edges.Apply({.type = "supersedes", .src = c.id, .dst = b.id, .now = At(20)}), IsOk());
  StatusOr<std::int64_t> seq_before = store_->LastJournalSeq();
  ASSERT_THAT(seq_before, IsOk());
  // Direct: b already supersedes a.
  EXPECT_THAT(edges.Apply({.type = "supersedes", .src = a.id, .dst = b.id, .now = At(30)}),
              StatusIs(StatusCode::kFailedPrecondition, HasSubstr("cycle")));
  // Transitive: c supersedes b supersedes a.
  EXPECT_THAT(edges.Apply({.type = "supersedes", .src = a.id, .dst = c.id, .now = At(30)}),
              StatusIs(StatusCode::kFailedPrecondition, HasSubstr("cycle")));
  EXPECT_THAT(store_->LastJournalSeq(), IsOkAndHolds(*seq_before));
  EXPECT_THAT(store_->GetNode(c.id), IsOkAndHolds(Field(&NodeRecord::status, NodeStatus::kActive)));
}

TEST_P(EdgeRegistryContractTest, ContradictsKeepsBothNodesActiveAndIsRecordedOncePerPair) {
  EdgeFixture edges(*store_);
  const ScopeRecord scope = MakeScope("user:alice");
  const NodeRecord a = AddFact(*store_, scope.scope_id, "is vegan", At(10), std::nullopt);
  const NodeRecord b = AddFact(*store_, scope.scope_id, "eats fish", At(20), std::nullopt);
  StatusOr<EdgeRecord> edge =
      edges.Apply({.type = "contradicts", .src = b.id, .dst = a.id, .now = At(30)});
  ASSERT_THAT(edge, IsOk());
  EXPECT_EQ(edge->status, "active");
  for (const NodeRecord& node : {a, b}) {
    StatusOr<NodeRecord> after = store_->GetNode(node.id);
    ASSERT_THAT(after, IsOk());
    EXPECT_EQ(after->status, NodeStatus::kActive);
    EXPECT_EQ(after->valid_to, std::nullopt);
    EXPECT_EQ(after->updated_at, node.updated_at);
  }
  EXPECT_THAT(edges.Apply({.type = "contradicts", .src = b.id, .dst = a.id, .now = At(31)}),
              StatusIs(StatusCode::kAlreadyExists));
  EXPECT_THAT(edges.Apply({.type = "contradicts", .src = a.id, .dst = b.id, .now = At(32)}),
              StatusIs(StatusCode::kAlreadyExists));
}

TEST_P(EdgeRegistryContractTest, AcceptedSameAsIsSymmetricAndTransitive) {
  EdgeFixture edges(*store_);
  const ScopeRecord scope = MakeScope("user:alice");
  const NodeRecord a = AddFact(*store_, scope.scope_id, "Bob", std::nullopt, std::nullopt);
  const NodeRecord b = AddFact(*store_, scope.scope_id, "Robert", std::nullopt, std::nullopt);
  const NodeRecord c = AddFact(*store_, scope.scope_id, "Bobby", std::nullopt, std::nullopt);
  const NodeRecord d = AddFact(*store_, scope.scope_id, "Dana", std::nullopt, std::nullopt);
  StatusOr<EdgeRecord> ab =
      edges.Apply({.type = "same_as", .src = a.id, .dst = b.id, .now = At(10)});
  ASSERT_THAT(ab, IsOk());
  EXPECT_EQ(ab->status, "pending");
  // Pending proposals merge nothing.
  EXPECT_THAT(EdgeRegistry::EquivalenceClass(*store_, a.id), IsOkAndHolds(ElementsAre(a.id)));
  // A second proposal for the same pair, either way, is refused while the first is pending.
  EXPECT_THAT(edges.Apply({.type = "same_as", .src = b.id, .dst = a.id, .now = At(11)}),
              StatusIs(StatusCode::kAlreadyExists));

  ASSERT_THAT(edges.Accept(ab->id, At(12)), IsOk());
  EXPECT_THAT(store_->GetEdge(ab->id), IsOkAndHolds(Field(&EdgeRecord::status, "active")));
  EXPECT_THAT(store_->GetEdge(ab->id), IsOkAndHolds(Field(&EdgeRecord::updated_at, At(12))));
  EXPECT_THAT(edges.Apply({.type = "same_as", .src = a.id, .dst = b.id, .now = At(13)}),
              StatusIs(StatusCode::kAlreadyExists));

  StatusOr<EdgeRecord> cb =
      edges.Apply({.type = "same_as", .src = c.id, .dst = b.id, .now = At(14)});
  ASSERT_THAT(cb, IsOk());
  ASSERT_THAT(edges.Accept(cb->id, At(15)), IsOk());

  std::vector<std::string> expected = {a.id, b.id, c.id};
  std::sort(expected.begin(), expected.end());
  for (const NodeRecord& member : {a, b, c}) {
    EXPECT_THAT(EdgeRegistry::EquivalenceClass(*store_, member.id), IsOkAndHolds(expected))
        << "class of " << member.text;
  }
  EXPECT_THAT(EdgeRegistry::EquivalenceClass(*store_, d.id), IsOkAndHolds(ElementsAre(d.id)));
  EXPECT_THAT(EdgeRegistry::EquivalenceClass(*store_, "nope"), StatusIs(StatusCode::kNotFound));
}

TEST_P(EdgeRegistryContractTest, ProposalsCanBeRejectedAndResolvedOnlyOnce) {
  EdgeFixture edges(*store_);
  const ScopeRecord scope = MakeScope("user:alice");
  const NodeRecord a = AddFact(*store_, scope.scope_id, "Paris", std::nullopt, std::nullopt);
  const NodeRecord b = AddFact(*store_, scope.scope_id, "Paris, Texas", std::nullopt, std::nullopt);
  StatusOr<EdgeRecord> proposal =
      edges.Apply({.type = "same_as", .src = a.id, .dst = b.id, .now = At(10)});
  ASSERT_THAT(proposal, IsOk());
  ASSERT_THAT(edges.Reject(proposal->id, At(11)), IsOk());
  EXPECT_THAT(store_->GetEdge(proposal->id), IsOkAndHolds(Field(&EdgeRecord::status, "rejected")));
  EXPECT_THAT(EdgeRegistry::EquivalenceClass(*store_, a.id), IsOkAndHolds(ElementsAre(a.id)));
  EXPECT_THAT(edges.Accept(proposal->id, At(12)), StatusIs(StatusCode::kFailedPrecondition));
  EXPECT_THAT(edges.Reject(proposal->id, At(12)), StatusIs(StatusCode::kFailedPrecondition));

  // After a rejection the pair may be proposed again; accepting twice fails.
  StatusOr<EdgeRecord> again =
      edges.Apply({.type = "same_as", .src = b.id, .dst = a.id, .now = At(20)});
  ASSERT_THAT(again, IsOk());
  ASSERT_THAT(edges.Accept(again->id, At(21)), IsOk());
  EXPECT_THAT(edges.Accept(again->id, At(22)), StatusIs(StatusCode::kFailedPrecondition));

  EXPECT_THAT(edges.Accept("00000000000000000000000000000000", At(23)),
              StatusIs(StatusCode::kNotFound));
  StatusOr<EdgeRecord> contradiction =
      edges.Apply({.type = "contradicts", .src = a.id, .dst = b.id, .now = At(24)});
  ASSERT_THAT(contradiction, IsOk());
  EXPECT_THAT(edges.Accept(contradiction->id, At(25)), StatusIs(StatusCode::kInvalidArgument));

  StatusOr<std::vector<JournalEntry>> journal = store_->JournalFor(proposal->id);
  ASSERT_THAT(journal, IsOk());
  ASSERT_THAT(*journal, SizeIs(2));
  EXPECT_EQ((*journal)[1].op, JournalOp::kEdgeUpdated);
  EXPECT_THAT((*journal)[1].detail, HasSubstr("status=rejected"));
}

TEST_P(EdgeRegistryContractTest, CommonChecksRejectBadRequests) {
  EdgeFixture edges(*store_);
  const ScopeRecord scope = MakeScope("user:alice");
  const NodeRecord a = AddFact(*store_, scope.scope_id, "a", std::nullopt, std::nullopt);
  const NodeRecord b = AddFact(*store_, scope.scope_id, "b", std::nullopt, std::nullopt);
  EXPECT_THAT(edges.Apply({.type = "teleports_to", .src = a.id, .dst = b.id, .now = At(1)}),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("unknown edge type")));
  EXPECT_THAT(edges.Apply({.type = "", .src = a.id, .dst = b.id, .now = At(1)}),
              StatusIs(StatusCode::kInvalidArgument));
  for (const char* type : {"contains", "derived_from", "supersedes", "contradicts", "same_as"}) {
    EXPECT_THAT(edges.Apply({.type = type, .src = a.id, .dst = a.id, .now = At(1)}),
                StatusIs(StatusCode::kInvalidArgument))
        << type;
    EXPECT_THAT(edges.Apply({.type = type, .src = "missing", .dst = b.id, .now = At(1)}),
                StatusIs(StatusCode::kNotFound, HasSubstr("src")))
        << type;
    EXPECT_THAT(edges.Apply({.type = type, .src = a.id, .dst = "missing", .now = At(1)}),
                StatusIs(StatusCode::kNotFound, HasSubstr("dst")))
        << type;
  }
  EXPECT_THAT(
      edges.Apply(
          {.type = "derived_from", .src = a.id, .dst = b.id, .attrs_json = "[1,2]", .now = At(1)}),
      StatusIs(StatusCode::kInvalidArgument, HasSubstr("attrs_json")));
  EXPECT_THAT(edges.Apply({.type = "derived_from",
                           .src = a.id,
                           .dst = b.id,
                           .attrs_json = "{not json",
                           .now = At(1)}),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("attrs_json")));
  EXPECT_THAT(store_->EdgesOf(a.id, EdgeDirection::kBoth, ""), IsOkAndHolds(SizeIs(0)));
}

TEST_P(EdgeRegistryContractTest, CustomTypesRegisterOnce) {
  EdgeFixture edges(*store_);
  EXPECT_THAT(edges.registry().Register(write::MakePlainEdgeHandler("supersedes")),
              StatusIs(StatusCode::kAlreadyExists));
  EXPECT_THAT(edges.registry().Register(nullptr), StatusIs(StatusCode::kInvalidArgument));
  ASSERT_THAT(edges.registry().Register(write::MakePlainEdgeHandler("cites")), IsOk());
  EXPECT_TRUE(edges.registry().HasType("cites"));
  const ScopeRecord scope = MakeScope("user:alice");
  const NodeRecord a = AddFact(*store_, scope.scope_id, "a", std::nullopt, std::nullopt);
  const NodeRecord b = AddFact(*store_, scope.scope_id, "b", std::nullopt, std::nullopt);
  EXPECT_THAT(edges.Apply({.type = "cites", .src = a.id, .dst = b.id, .now = At(1)}),
              IsOkAndHolds(Field(&EdgeRecord::type, "cites")));
}

}  // namespace
}  // namespace engram::store::conformance
