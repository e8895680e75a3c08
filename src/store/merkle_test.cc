// The Merkle log (RFC 9162 tree hashing, frontier appends, inclusion proofs) and the scope root.
#include "store/merkle.h"

#include <gtest/gtest.h>

#include <vector>

#include "core/sha256.h"

namespace engram::store::merkle {
namespace {

Hash Leaf(int i) {
  core::Sha256 hasher;
  hasher.Update("leaf " + std::to_string(i));
  return hasher.Finish();
}

std::vector<Hash> Leaves(int n) {
  std::vector<Hash> leaves;
  for (int i = 0; i < n; ++i) leaves.push_back(Leaf(i));
  return leaves;
}

// RFC 9162 §2.1.1 written out for three leaves: MTH(d0, d1, d2) = H(0x01 ‖ H(0x01 ‖ d0 ‖ d1) ‖ d2),
// and the empty tree hashes to SHA-256 of nothing (e3b0c442...).
TEST(MerkleTest, TreeRootFollowsTheRfcSplitAtTheLargestPowerOfTwo) {
  const std::vector<Hash> leaves = Leaves(3);
  EXPECT_EQ(TreeRoot(leaves), InteriorHash(InteriorHash(leaves[0], leaves[1]), leaves[2]));
  EXPECT_EQ(ToHex(TreeRoot({})),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  const std::vector<Hash> five = Leaves(5);
  EXPECT_EQ(TreeRoot(five),
            InteriorHash(InteriorHash(InteriorHash(five[0], five[1]), InteriorHash(five[2], five[3])),
                         five[4]));
}

TEST(MerkleTest, FrontierAppendsGiveTheSameRootAsTheWholeTree) {
  const std::vector<Hash> leaves = Leaves(70);
  LogFrontier frontier;
  EXPECT_EQ(frontier.Root(), EmptyRoot());
  for (std::size_t n = 1; n <= leaves.size(); ++n) {
    frontier.Append(leaves[n - 1]);
    ASSERT_EQ(frontier.Root(), TreeRoot(std::span(leaves).first(n))) << "after " << n << " leaves";
    // A stored frontier reads back to the same log.
    StatusOr<LogFrontier> reread = LogFrontier::Parse(frontier.size(), frontier.Serialize());
    ASSERT_TRUE(reread.ok()) << reread.status();
    ASSERT_EQ(reread->Root(), frontier.Root());
  }
}

TEST(MerkleTest, FrontierOfTheWrongLengthIsCorruption) {
  LogFrontier frontier;
  for (int i = 0; i < 3; ++i) frontier.Append(Leaf(i));  // 3 = two perfect subtrees
  EXPECT_EQ(LogFrontier::Parse(4, frontier.Serialize()).status().code(), StatusCode::kCorruption);
  EXPECT_EQ(LogFrontier::Parse(3, frontier.Serialize().substr(2)).status().code(),
            StatusCode::kCorruption);
}

TEST(MerkleTest, EveryInclusionPathVerifiesAndNoOtherLeafOrIndexDoes) {
  for (int n = 1; n <= 33; ++n) {
    const std::vector<Hash> leaves = Leaves(n);
    const Hash root = TreeRoot(leaves);
    for (int m = 0; m < n; ++m) {
      const std::vector<Hash> path = InclusionPath(leaves, m);
      ASSERT_TRUE(VerifyInclusion(leaves[m], m, n, path, root)) << "n=" << n << " m=" << m;
      ASSERT_FALSE(VerifyInclusion(Leaf(1000), m, n, path, root)) << "n=" << n << " m=" << m;
      if (n > 1) {
        ASSERT_FALSE(VerifyInclusion(leaves[m], (m + 1) % n, n, path, root))
            << "n=" << n << " m=" << m;
      }
    }
  }
}

TEST(MerkleTest, LeafHashesCoverContentButNotStatusOrValidity) {
  NodeRecord node;
  node.id = "0123456789abcdef0123456789abcdef";
  node.content_json = R"({"text":"I live in Berlin"})";
  node.text = "I live in Berlin";
  const Hash original = NodeLeafHash(node);
  NodeRecord retired = node;
  retired.status = NodeStatus::kRetired;
  retired.valid_to = Timestamp::FromSeconds(5);
  retired.updated_at = Timestamp::FromSeconds(6);
  EXPECT_EQ(NodeLeafHash(retired), original);
  NodeRecord edited = node;
  edited.text = "I live in Berlim";
  EXPECT_NE(NodeLeafHash(edited), original);

  EdgeRecord edge{.id = "e", .type = "supersedes", .src = "a", .dst = "b"};
  EdgeRecord closed = edge;
  closed.status = "superseded";
  closed.valid_to = Timestamp::FromSeconds(9);
  closed.ingested_at = Timestamp::FromSeconds(3);  // the transaction time is outside too
  EXPECT_EQ(EdgeLeafHash(closed), EdgeLeafHash(edge));
  EdgeRecord other = edge;
  other.attrs_json = R"({"reason":"typo"})";
  EXPECT_NE(EdgeLeafHash(other), EdgeLeafHash(edge));
}

TEST(MerkleTest, ScopeRootChangesWithAnyLogOrNestedScope) {
  const Hash nodes = TreeRoot(Leaves(2));
  const Hash edges = EmptyRoot();
  const std::vector<ChildRoot> children = {{"user:a/run:1", Leaf(7)}, {"user:a/run:2", Leaf(8)}};
  const Hash root = ScopeRoot(nodes, 2, edges, 0, children);
  EXPECT_NE(ScopeRoot(nodes, 2, edges, 0, std::span(children).first(1)), root);
  std::vector<ChildRoot> changed = children;
  changed[1].root = Leaf(9);
  EXPECT_NE(ScopeRoot(nodes, 2, edges, 0, changed), root);
  EXPECT_NE(ScopeRoot(edges, 0, nodes, 2, children), root);  // logs are not interchangeable
  EXPECT_EQ(ScopeRoot(nodes, 2, edges, 0, children), root);
}

}  // namespace
}  // namespace engram::store::merkle
