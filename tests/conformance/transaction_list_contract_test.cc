// Contract of Transaction::ListNodes (the facts stage's lookup of a scope's current facts) and of
// the `corrects` edge type, run against every store backend.
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
using ::engram::testing::StatusIs;

std::vector<std::string> Texts(const std::vector<NodeRecord>& nodes) {
  std::vector<std::string> texts;
  for (const NodeRecord& node : nodes) texts.push_back(node.text);
  return texts;
}

TEST_P(StoreContractTest, TransactionListNodesSeesItsOwnWritesAndFilters) {
  const ScopeRecord scope = MakeScope("user:alice");
  const ScopeRecord other = MakeScope("user:bob");
  AddTurn(scope.scope_id, "committed turn", Timestamp::FromSeconds(10));
  AddTurn(other.scope_id, "other scope", Timestamp::FromSeconds(11));

  StatusOr<std::unique_ptr<Transaction>> txn = store_->BeginWrite();
  ASSERT_THAT(txn, IsOk());
  NodeRecord fact = NewTurn(**txn, scope.scope_id, "a fact", Timestamp::FromSeconds(12));
  fact.kind = NodeKind::kFact;
  ASSERT_THAT((*txn)->InsertNode(fact), IsOk());
  NodeRecord retired = NewTurn(**txn, scope.scope_id, "a retired fact", Timestamp::FromSeconds(13));
  retired.kind = NodeKind::kFact;
  ASSERT_THAT((*txn)->InsertNode(retired), IsOk());
  ASSERT_THAT((*txn)->UpdateNodeState(retired.id, NodeStatus::kRetired, std::nullopt,
                                      Timestamp::FromSeconds(14), ""),
              IsOk());

  // Every node of the scope (the scope node has sequence 0 and is left out), in sequence order.
  StatusOr<std::vector<NodeRecord>> all = (*txn)->ListNodes(scope.scope_id, {});
  ASSERT_THAT(all, IsOk());
  EXPECT_THAT(Texts(*all),
              ::testing::ElementsAre("committed turn", "a fact", "a retired fact"));
  NodeFilter facts;
  facts.kind = NodeKind::kFact;
  facts.include_inactive = false;
  StatusOr<std::vector<NodeRecord>> active_facts = (*txn)->ListNodes(scope.scope_id, facts);
  ASSERT_THAT(active_facts, IsOk());
  EXPECT_THAT(Texts(*active_facts), ::testing::ElementsAre("a fact"));
  NodeFilter limited;
  limited.limit = 1;
  limited.after_sequence = 1;
  StatusOr<std::vector<NodeRecord>> page = (*txn)->ListNodes(scope.scope_id, limited);
  ASSERT_THAT(page, IsOk());
  EXPECT_THAT(Texts(*page), ::testing::ElementsAre("a fact"));
  // Uncommitted writes are invisible outside the transaction.
  StatusOr<std::vector<NodeRecord>> outside = store_->ListNodes(scope.scope_id, facts);
  ASSERT_THAT(outside, IsOk());
  EXPECT_TRUE(outside->empty());
  ASSERT_THAT((*txn)->Commit(), IsOk());
  EXPECT_THAT((*txn)->ListNodes(scope.scope_id, {}), StatusIs(StatusCode::kFailedPrecondition));
}

TEST_P(EdgeRegistryContractTest, CorrectsIsRecordedOncePerOrderedPairWithoutSideEffects) {
  const ScopeRecord scope = MakeScope("user:alice");
  const NodeRecord old_node = AddTurn(scope.scope_id, "I live in Berlin", Timestamp::FromSeconds(10));
  const NodeRecord new_node =
      AddTurn(scope.scope_id, "Actually I live in Munich", Timestamp::FromSeconds(20));
  std::unique_ptr<write::EdgeRegistry> registry = write::EdgeRegistry::WithBuiltins();
  EXPECT_TRUE(registry->HasType(write::kCorrects));
  write::EdgeRequest request;
  request.type = std::string(write::kCorrects);
  request.src = new_node.id;
  request.dst = old_node.id;
  request.now = Timestamp::FromSeconds(30);
  {
    StatusOr<std::unique_ptr<Transaction>> txn = store_->BeginWrite();
    ASSERT_THAT(txn, IsOk());
    ASSERT_THAT(registry->Apply(**txn, request), IsOk());
    request.now = Timestamp::FromSeconds(31);
    EXPECT_THAT(registry->Apply(**txn, request), StatusIs(StatusCode::kAlreadyExists));
    ASSERT_THAT((*txn)->Commit(), IsOk());
  }
  StatusOr<NodeRecord> old_after = store_->GetNode(old_node.id);
  ASSERT_THAT(old_after, IsOk());
  EXPECT_EQ(old_after->status, NodeStatus::kActive);
  EXPECT_FALSE(old_after->valid_to.has_value());
}

}  // namespace
}  // namespace engram::store::conformance
