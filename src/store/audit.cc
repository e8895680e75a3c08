// The Merkle audit over the Store interface (see audit.h).
#include "store/audit.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

#include "core/ids.h"
#include "store/merkle.h"

namespace engram::store {
namespace {

using merkle::Hash;

// What one scope's logs recompute to.
struct ScopeLogs {
  ScopeRecord scope;
  MerkleState stored;
  merkle::LogFrontier nodes;
  merkle::LogFrontier edges;
  std::string root;  // filled bottom-up
};

class Auditor {
 public:
  explicit Auditor(Store& store) : store_(store) {}

  StatusOr<AuditReport> Run(const ScopeRecord& top) {
    AuditReport report;
    report.scope = top.path;
    ASSIGN_OR_RETURN(std::vector<ScopeRecord> tree, store_.ScopeTree(top.scope_id));
    std::sort(tree.begin(), tree.end(),
              [](const ScopeRecord& a, const ScopeRecord& b) { return a.path < b.path; });
    std::vector<ScopeLogs> logs;
    for (const ScopeRecord& scope : tree) {
      ScopeLogs scope_logs;
      scope_logs.scope = scope;
      ASSIGN_OR_RETURN(scope_logs.stored, store_.GetMerkleState(scope.scope_id));
      RETURN_IF_ERROR(AuditNodes(scope_logs, &report));
      RETURN_IF_ERROR(AuditEdges(scope_logs, &report));
      CompareLog(scope_logs.scope, "node", scope_logs.nodes, scope_logs.stored.node_count,
                 scope_logs.stored.node_root);
      CompareLog(scope_logs.scope, "edge", scope_logs.edges, scope_logs.stored.edge_count,
                 scope_logs.stored.edge_root);
      logs.push_back(std::move(scope_logs));
    }
    // Roots bottom-up: a nested scope's path sorts after its parent's, so reverse path order
    // meets every child before its parent.
    std::map<std::int64_t, std::vector<merkle::ChildRoot>> children;
    for (auto it = logs.rbegin(); it != logs.rend(); ++it) {
      std::vector<merkle::ChildRoot>& mine = children[it->scope.scope_id];
      std::sort(mine.begin(), mine.end(),
                [](const merkle::ChildRoot& a, const merkle::ChildRoot& b) {
                  return a.path < b.path;
                });
      const Hash root = merkle::ScopeRoot(it->nodes.Root(), it->nodes.size(), it->edges.Root(),
                                          it->edges.size(), mine);
      it->root = merkle::ToHex(root);
      children[it->scope.parent_scope_id].push_back({it->scope.path, root});
    }
    for (const ScopeLogs& scope_logs : logs) {
      if (scope_logs.root != scope_logs.stored.root) {
        Mismatch(scope_logs.scope, "scope", "",
                 "recomputed root " + scope_logs.root + " differs from the stored root " +
                     scope_logs.stored.root);
      }
    }
    report.scopes = static_cast<std::int64_t>(logs.size());
    report.root = logs.front().root;
    report.stored_root = logs.front().stored.root;
    report.mismatch = std::move(mismatch_);
    report.ok = !report.mismatch.has_value();
    return report;
  }

 private:
  Status AuditNodes(ScopeLogs& logs, AuditReport* report) {
    ASSIGN_OR_RETURN(const std::vector<MerkleLeaf> leaves,
                     store_.GetMerkleLeaves(logs.scope.scope_id, MerkleLog::kNodes));
    std::size_t position = 0;
    RETURN_IF_ERROR(store_.ScanNodes(logs.scope.scope_id, std::nullopt, [&](const NodeRecord& node) {
      const Hash leaf = merkle::NodeLeafHash(node);
      logs.nodes.Append(leaf);
      if (!NodeCreationTime(node, logs.scope.node_id).has_value()) {
        Mismatch(logs.scope, "node", node.id,
                 "its id does not match its content (kind, content, scope and time)");
      }
      CompareLeaf(logs.scope, "node", node.id, leaf, leaves, position);
      ++position;
      return true;
    }));
    ExtraLeaves(logs.scope, "node", leaves, position);
    report->nodes += static_cast<std::int64_t>(position);
    return Status::Ok();
  }

  Status AuditEdges(ScopeLogs& logs, AuditReport* report) {
    ASSIGN_OR_RETURN(const std::vector<MerkleLeaf> leaves,
                     store_.GetMerkleLeaves(logs.scope.scope_id, MerkleLog::kEdges));
    std::size_t position = 0;
    RETURN_IF_ERROR(store_.ScanEdges(logs.scope.scope_id, [&](const EdgeRecord& edge) {
      const Hash leaf = merkle::EdgeLeafHash(edge);
      logs.edges.Append(leaf);
      if (core::EdgeId(edge.type, edge.src, edge.dst, edge.ingested_at.micros) != edge.id) {
        Mismatch(logs.scope, "edge", edge.id,
                 "its id does not match its type, endpoints and time");
      }
      CompareLeaf(logs.scope, "edge", edge.id, leaf, leaves, position);
      ++position;
      return true;
    }));
    ExtraLeaves(logs.scope, "edge", leaves, position);
    report->edges += static_cast<std::int64_t>(position);
    return Status::Ok();
  }

  void CompareLeaf(const ScopeRecord& scope, std::string_view kind, const std::string& id,
                   const Hash& leaf, const std::vector<MerkleLeaf>& leaves, std::size_t position) {
    if (position >= leaves.size()) {
      Mismatch(scope, kind, id, "it has no leaf in the scope's " + std::string(kind) + " log");
    } else if (leaves[position].target_id != id) {
      Mismatch(scope, kind, id,
               "leaf " + std::to_string(position) + " of the scope's " + std::string(kind) +
                   " log is " + leaves[position].target_id + ", not this " + std::string(kind));
    } else if (leaves[position].hash != merkle::ToHex(leaf)) {
      Mismatch(scope, kind, id,
               "its content does not match its stored leaf hash (changed after it was written)");
    }
  }

  void ExtraLeaves(const ScopeRecord& scope, std::string_view kind,
                   const std::vector<MerkleLeaf>& leaves, std::size_t seen) {
    if (leaves.size() > seen) {
      Mismatch(scope, kind, leaves[seen].target_id,
               "the scope's " + std::string(kind) + " log has a leaf for it but the " +
                   std::string(kind) + " is not stored (removed)");
    }
  }

  void CompareLog(const ScopeRecord& scope, std::string_view kind,
                  const merkle::LogFrontier& recomputed, std::int64_t stored_count,
                  const std::string& stored_root) {
    if (recomputed.size() != stored_count || merkle::ToHex(recomputed.Root()) != stored_root) {
      Mismatch(scope, "scope", "",
               "the " + std::string(kind) + " log recomputes to " +
                   std::to_string(recomputed.size()) + " leaves with root " +
                   merkle::ToHex(recomputed.Root()) + ", the store holds " +
                   std::to_string(stored_count) + " with root " + stored_root);
    }
  }

  void Mismatch(const ScopeRecord& scope, std::string_view kind, std::string_view id,
                std::string reason) {
    if (mismatch_.has_value()) return;
    mismatch_ = AuditMismatch{.scope = scope.path,
                              .target_id = std::string(id),
                              .kind = std::string(kind),
                              .reason = std::move(reason)};
  }

  Store& store_;
  std::optional<AuditMismatch> mismatch_;
};

StatusOr<ProofScope> ProofLevel(Store& store, const ScopeRecord& scope) {
  ASSIGN_OR_RETURN(const MerkleState state, store.GetMerkleState(scope.scope_id));
  ProofScope level{.scope = scope.path,
                   .node_root = state.node_root,
                   .node_count = state.node_count,
                   .edge_root = state.edge_root,
                   .edge_count = state.edge_count,
                   .children = {},
                   .root = state.root};
  ASSIGN_OR_RETURN(const std::vector<ScopeRecord> tree, store.ScopeTree(scope.scope_id));
  for (const ScopeRecord& nested : tree) {
    if (nested.parent_scope_id != scope.scope_id) continue;
    ASSIGN_OR_RETURN(const MerkleState child, store.GetMerkleState(nested.scope_id));
    level.children.push_back({nested.path, child.root});
  }
  std::sort(level.children.begin(), level.children.end(),
            [](const ProofScope::Child& a, const ProofScope::Child& b) { return a.scope < b.scope; });
  return level;
}

}  // namespace

std::optional<std::int64_t> NodeCreationTime(const NodeRecord& node,
                                             std::string_view scope_node_id) {
  if (node.kind == NodeKind::kScope) {
    const bool matches = node.id == core::ScopeNodeId(node.text) &&
                         node.content_json == nlohmann::json{{"path", node.text}}.dump();
    return matches ? std::optional<std::int64_t>(0) : std::nullopt;
  }
  std::vector<std::int64_t> candidates;
  if (node.event_time.has_value()) candidates.push_back(node.event_time->micros);
  if (node.valid_from.has_value()) candidates.push_back(node.valid_from->micros);
  candidates.push_back(node.ingested_at.micros);
  candidates.push_back(0);
  for (const std::int64_t created : candidates) {
    if (core::NodeId(NodeKindName(node.kind), node.content_json, scope_node_id, created) ==
        node.id) {
      return created;
    }
  }
  return std::nullopt;
}

StatusOr<AuditReport> AuditScope(Store& store, const ScopeRecord& scope) {
  // Each store call reads its own snapshot: a writer committing between them can make a sound
  // store look inconsistent, so a mismatch is only reported once the journal stood still for a
  // whole pass.
  StatusOr<AuditReport> report = Status::Internal("audit: no pass ran");
  for (int pass = 0; pass < 3; ++pass) {
    ASSIGN_OR_RETURN(const std::int64_t before, store.LastJournalSeq());
    report = Auditor(store).Run(scope);
    if (!report.ok() || report->ok) return report;
    ASSIGN_OR_RETURN(const std::int64_t after, store.LastJournalSeq());
    if (after == before) return report;
  }
  return report;
}

StatusOr<MerkleProof> ProveNode(Store& store, std::string_view node_id) {
  ASSIGN_OR_RETURN(const NodeRecord node, store.GetNode(node_id));
  ASSIGN_OR_RETURN(std::optional<ScopeRecord> scope, store.GetScope(node.scope_id));
  if (!scope.has_value()) {
    return Status::Corruption("proof: memory " + node.id + " names scope " +
                              std::to_string(node.scope_id) + ", which does not exist");
  }
  ASSIGN_OR_RETURN(const std::vector<MerkleLeaf> leaves,
                   store.GetMerkleLeaves(scope->scope_id, MerkleLog::kNodes));
  std::vector<Hash> hashes;
  std::optional<std::size_t> index;
  for (const MerkleLeaf& leaf : leaves) {
    ASSIGN_OR_RETURN(const Hash hash, merkle::FromHex(leaf.hash, "stored leaf of " + leaf.target_id));
    if (leaf.target_id == node.id) index = hashes.size();
    hashes.push_back(hash);
  }
  if (!index.has_value()) {
    return Status::Corruption("proof: memory " + node.id + " has no leaf in the node log of " +
                              scope->path + " (run engram audit --scope " + scope->path + ")");
  }
  MerkleProof proof;
  proof.memory_id = node.id;
  proof.leaf_hash = merkle::ToHex(merkle::NodeLeafHash(node));
  proof.leaf_index = static_cast<std::int64_t>(*index);
  proof.leaf_count = static_cast<std::int64_t>(hashes.size());
  for (const Hash& step : merkle::InclusionPath(hashes, *index)) {
    proof.audit_path.push_back(merkle::ToHex(step));
  }
  while (scope.has_value()) {
    ASSIGN_OR_RETURN(ProofScope level, ProofLevel(store, *scope));
    proof.scopes.push_back(std::move(level));
    if (scope->parent_scope_id == 0) break;
    ASSIGN_OR_RETURN(scope, store.GetScope(scope->parent_scope_id));
  }
  proof.verified = VerifyProof(proof);
  return proof;
}

bool VerifyProof(const MerkleProof& proof) {
  if (proof.scopes.empty() || proof.leaf_index < 0 || proof.leaf_count <= 0) return false;
  const StatusOr<Hash> leaf = merkle::FromHex(proof.leaf_hash, "leaf");
  if (!leaf.ok()) return false;
  std::vector<Hash> path;
  for (const std::string& step : proof.audit_path) {
    StatusOr<Hash> hash = merkle::FromHex(step, "audit path");
    if (!hash.ok()) return false;
    path.push_back(*hash);
  }
  const ProofScope& own = proof.scopes.front();
  const StatusOr<Hash> node_root = merkle::FromHex(own.node_root, "node root");
  if (!node_root.ok() || own.node_count != proof.leaf_count ||
      !merkle::VerifyInclusion(*leaf, static_cast<std::uint64_t>(proof.leaf_index),
                               static_cast<std::uint64_t>(proof.leaf_count), path, *node_root)) {
    return false;
  }
  for (std::size_t i = 0; i < proof.scopes.size(); ++i) {
    const ProofScope& level = proof.scopes[i];
    const StatusOr<Hash> nodes = merkle::FromHex(level.node_root, "node root");
    const StatusOr<Hash> edges = merkle::FromHex(level.edge_root, "edge root");
    if (!nodes.ok() || !edges.ok()) return false;
    std::vector<merkle::ChildRoot> children;
    for (const ProofScope::Child& child : level.children) {
      StatusOr<Hash> root = merkle::FromHex(child.root, "child root");
      if (!root.ok()) return false;
      children.push_back({child.scope, *root});
    }
    if (!std::is_sorted(children.begin(), children.end(),
                        [](const merkle::ChildRoot& a, const merkle::ChildRoot& b) {
                          return a.path < b.path;
                        })) {
      return false;
    }
    const Hash root =
        merkle::ScopeRoot(*nodes, level.node_count, *edges, level.edge_count, children);
    if (merkle::ToHex(root) != level.root) return false;
    if (i > 0) {
      const ProofScope& below = proof.scopes[i - 1];
      const bool listed = std::any_of(
          level.children.begin(), level.children.end(), [&](const ProofScope::Child& child) {
            return child.scope == below.scope && child.root == below.root;
          });
      if (!listed) return false;
    }
  }
  return true;
}

}  // namespace engram::store
