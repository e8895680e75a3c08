// RFC 9162-style Merkle logs and the scope root (see merkle.h).
#include "store/merkle.h"

#include <algorithm>
#include <bit>
#include <tuple>
#include <utility>

#include "core/sha256.h"

namespace engram::store::merkle {
namespace {

constexpr char kLeafPrefix = '\x00';
constexpr char kInteriorPrefix = '\x01';
constexpr char kScopePrefix = '\x02';

// Length-prefixed, like the content addresses of core/ids.cc, so no two field lists collide.
void Field(core::Sha256& hasher, std::string_view field) {
  hasher.Update(std::to_string(field.size()) + ":");
  hasher.Update(field);
}

std::string_view Bytes(const Hash& hash) {
  return {reinterpret_cast<const char*>(hash.data()), hash.size()};
}

std::string TimeField(const std::optional<Timestamp>& time) {
  return time.has_value() ? std::to_string(time->micros) : std::string();
}

// Largest power of two strictly below n (n >= 2).
std::size_t SplitPoint(std::size_t n) { return std::bit_floor(n - 1); }

}  // namespace

std::string ToHex(const Hash& hash) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(hash.size() * 2);
  for (const std::uint8_t byte : hash) {
    out += kHex[byte >> 4];
    out += kHex[byte & 0xF];
  }
  return out;
}

StatusOr<Hash> FromHex(std::string_view hex, std::string_view what) {
  Hash hash{};
  const auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  if (hex.size() != hash.size() * 2) {
    return Status::InvalidArgument(std::string(what) + ": expected 64 lowercase hex digits, got " +
                                   std::to_string(hex.size()) + " characters");
  }
  for (std::size_t i = 0; i < hash.size(); ++i) {
    const int high = nibble(hex[2 * i]);
    const int low = nibble(hex[2 * i + 1]);
    if (high < 0 || low < 0) {
      return Status::InvalidArgument(std::string(what) + ": not lowercase hex");
    }
    hash[i] = static_cast<std::uint8_t>(high << 4 | low);
  }
  return hash;
}

Hash EmptyRoot() { return core::Sha256().Finish(); }

Hash InteriorHash(const Hash& left, const Hash& right) {
  core::Sha256 hasher;
  hasher.Update(std::string_view(&kInteriorPrefix, 1));
  hasher.Update(Bytes(left));
  hasher.Update(Bytes(right));
  return hasher.Finish();
}

Hash NodeLeafHash(const NodeRecord& node) {
  core::Sha256 hasher;
  hasher.Update(std::string_view(&kLeafPrefix, 1));
  Field(hasher, "node");
  Field(hasher, node.id);
  Field(hasher, NodeKindName(node.kind));
  Field(hasher, node.content_json);
  Field(hasher, node.text);
  Field(hasher, RoleName(node.role));
  Field(hasher, node.speaker);
  Field(hasher, node.session_id);
  Field(hasher, std::to_string(node.sequence));
  Field(hasher, TimeField(node.event_time));
  Field(hasher, node.metadata_json);
  return hasher.Finish();
}

Hash EdgeLeafHash(const EdgeRecord& edge) {
  core::Sha256 hasher;
  hasher.Update(std::string_view(&kLeafPrefix, 1));
  Field(hasher, "edge");
  Field(hasher, edge.type);
  Field(hasher, edge.src);
  Field(hasher, edge.dst);
  Field(hasher, edge.attrs_json);
  return hasher.Finish();
}

void LogFrontier::Append(const Hash& leaf) {
  peaks_.push_back(leaf);
  // Adding one to size_ carries through its trailing ones: each carry merges two equal subtrees.
  for (std::int64_t carry = size_; (carry & 1) != 0; carry >>= 1) {
    const Hash right = peaks_.back();
    peaks_.pop_back();
    peaks_.back() = InteriorHash(peaks_.back(), right);
  }
  ++size_;
}

Hash LogFrontier::Root() const {
  if (peaks_.empty()) return EmptyRoot();
  Hash root = peaks_.back();
  for (std::size_t i = peaks_.size() - 1; i-- > 0;) root = InteriorHash(peaks_[i], root);
  return root;
}

std::string LogFrontier::Serialize() const {
  std::string out;
  for (const Hash& peak : peaks_) out += ToHex(peak);
  return out;
}

StatusOr<LogFrontier> LogFrontier::Parse(std::int64_t size, std::string_view text) {
  if (size < 0) return Status::Corruption("merkle frontier: negative size");
  const std::size_t peaks = std::popcount(static_cast<std::uint64_t>(size));
  if (text.size() != peaks * 64) {
    return Status::Corruption("merkle frontier: " + std::to_string(size) + " leaves need " +
                              std::to_string(peaks) + " subtree roots, found " +
                              std::to_string(text.size()) + " hex digits");
  }
  LogFrontier frontier;
  frontier.size_ = size;
  for (std::size_t i = 0; i < peaks; ++i) {
    StatusOr<Hash> peak = FromHex(text.substr(i * 64, 64), "merkle frontier");
    if (!peak.ok()) return Status::Corruption(peak.status().message());
    frontier.peaks_.push_back(*peak);
  }
  return frontier;
}

Hash TreeRoot(std::span<const Hash> leaves) {
  if (leaves.empty()) return EmptyRoot();
  if (leaves.size() == 1) return leaves[0];
  const std::size_t k = SplitPoint(leaves.size());
  return InteriorHash(TreeRoot(leaves.first(k)), TreeRoot(leaves.subspan(k)));
}

std::vector<Hash> InclusionPath(std::span<const Hash> leaves, std::size_t index) {
  std::vector<Hash> path;
  // Iterative PATH(m, D[n]): descend, collecting the other side's root; reversed at the end so
  // the path runs from the leaf up.
  while (leaves.size() > 1) {
    const std::size_t k = SplitPoint(leaves.size());
    if (index < k) {
      path.push_back(TreeRoot(leaves.subspan(k)));
      leaves = leaves.first(k);
    } else {
      path.push_back(TreeRoot(leaves.first(k)));
      leaves = leaves.subspan(k);
      index -= k;
    }
  }
  return {path.rbegin(), path.rend()};
}

bool VerifyInclusion(const Hash& leaf, std::uint64_t index, std::uint64_t size,
                     std::span<const Hash> path, const Hash& root) {
  if (index >= size) return false;
  std::uint64_t fn = index;
  std::uint64_t sn = size - 1;
  Hash r = leaf;
  for (const Hash& p : path) {
    if (sn == 0) return false;
    if ((fn & 1) != 0 || fn == sn) {
      r = InteriorHash(p, r);
      if ((fn & 1) == 0) {
        while ((fn & 1) == 0 && fn != 0) {
          fn >>= 1;
          sn >>= 1;
        }
      }
    } else {
      r = InteriorHash(r, p);
    }
    fn >>= 1;
    sn >>= 1;
  }
  return sn == 0 && r == root;
}

Hash ScopeRoot(const Hash& node_root, std::int64_t node_count, const Hash& edge_root,
               std::int64_t edge_count, std::span<const ChildRoot> children) {
  core::Sha256 hasher;
  hasher.Update(std::string_view(&kScopePrefix, 1));
  hasher.Update(Bytes(node_root));
  Field(hasher, std::to_string(node_count));
  hasher.Update(Bytes(edge_root));
  Field(hasher, std::to_string(edge_count));
  for (const ChildRoot& child : children) {
    Field(hasher, child.path);
    hasher.Update(Bytes(child.root));
  }
  return hasher.Finish();
}

// ---------------------------------------------------------------------------------------------
// Keeping the logs in a store.

namespace {

StatusOr<StoredLogs> RequireLogs(Tables& tables, std::int64_t scope_id) {
  ASSIGN_OR_RETURN(std::optional<StoredLogs> logs, tables.ReadLogs(scope_id));
  if (!logs.has_value()) {
    return Status::Corruption("merkle: scope " + std::to_string(scope_id) + " has no merkle logs");
  }
  return std::move(*logs);
}

// Replaces one log of a scope by `leaves` (in order) and returns its frontier.
StatusOr<LogFrontier> RewriteLog(Tables& tables, std::int64_t scope_id, MerkleLog log,
                                 std::span<const LeafRow> leaves) {
  RETURN_IF_ERROR(tables.ClearLog(scope_id, log));
  RETURN_IF_ERROR(tables.InsertLeaves(scope_id, log, 0, leaves));
  LogFrontier frontier;
  for (const LeafRow& leaf : leaves) {
    ASSIGN_OR_RETURN(const Hash hash, FromHex(leaf.hash, "merkle leaf of " + leaf.target_id));
    frontier.Append(hash);
  }
  return frontier;
}

}  // namespace

void Writer::AppendNode(const NodeRecord& node) {
  pending_[node.scope_id].nodes.push_back({node.id, ToHex(NodeLeafHash(node))});
}

void Writer::AppendEdge(const EdgeRecord& edge) {
  pending_[edge.scope_id].edges.push_back({edge.id, ToHex(EdgeLeafHash(edge))});
}

Status Writer::Flush(Tables& tables) {
  if (pending_.empty()) return Status::Ok();
  std::map<std::int64_t, Pending> pending;
  pending.swap(pending_);
  std::set<std::int64_t> scopes;
  for (const auto& [scope_id, leaves] : pending) {
    ASSIGN_OR_RETURN(std::optional<StoredLogs> stored, tables.ReadLogs(scope_id));
    StoredLogs logs = stored.has_value() ? std::move(*stored) : StoredLogs{};
    for (const auto& [log, rows, frontier] :
         {std::tuple{MerkleLog::kNodes, &leaves.nodes, &logs.nodes},
          std::tuple{MerkleLog::kEdges, &leaves.edges, &logs.edges}}) {
      if (rows->empty()) continue;
      RETURN_IF_ERROR(tables.InsertLeaves(scope_id, log, frontier->size(), *rows));
      for (const LeafRow& row : *rows) {
        ASSIGN_OR_RETURN(const Hash hash, FromHex(row.hash, "merkle leaf of " + row.target_id));
        frontier->Append(hash);
      }
    }
    RETURN_IF_ERROR(tables.WriteLogs(scope_id, logs.nodes, logs.edges));
    scopes.insert(scope_id);
  }
  return RecomputeRoots(tables, scopes);
}

Status RecomputeRoots(Tables& tables, const std::set<std::int64_t>& scopes) {
  // Every scope to recompute with its depth; children before parents.
  std::map<std::int64_t, int> depth;
  for (const std::int64_t start : scopes) {
    std::vector<std::int64_t> chain;
    for (std::int64_t scope = start; scope != 0 && !depth.contains(scope);) {
      chain.push_back(scope);
      ASSIGN_OR_RETURN(scope, tables.ParentOf(scope));
      if (chain.size() > 64) return Status::Corruption("merkle: scope parents form a cycle");
    }
    // Depth of the first scope already known (or -1 above the top), then count down the chain.
    int base = -1;
    if (!chain.empty()) {
      ASSIGN_OR_RETURN(const std::int64_t above, tables.ParentOf(chain.back()));
      if (above != 0) base = depth.at(above);
    }
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) depth[*it] = ++base;
  }
  std::vector<std::pair<int, std::int64_t>> order;
  for (const auto& [scope, level] : depth) order.emplace_back(-level, scope);
  std::sort(order.begin(), order.end());
  for (const auto& [negative_level, scope_id] : order) {
    ASSIGN_OR_RETURN(const StoredLogs logs, RequireLogs(tables, scope_id));
    using NestedRoot = std::pair<std::string, std::string>;  // path, root as hex
    ASSIGN_OR_RETURN(std::vector<NestedRoot> nested, tables.NestedRoots(scope_id));
    std::sort(nested.begin(), nested.end());  // bytewise by path (paths are unique)
    std::vector<ChildRoot> children;
    for (const auto& [path, root_hex] : nested) {
      StatusOr<Hash> root = FromHex(root_hex, "root of scope " + path);
      if (!root.ok()) return Status::Corruption("merkle: " + root.status().message());
      children.push_back({path, *root});
    }
    RETURN_IF_ERROR(
        tables.WriteRoot(scope_id, ScopeRoot(logs.nodes.Root(), logs.nodes.size(),
                                             logs.edges.Root(), logs.edges.size(), children)));
  }
  return Status::Ok();
}

Status AfterErase(Tables& tables, std::span<const std::int64_t> erased,
                  const std::set<std::int64_t>& edge_scopes,
                  const std::set<std::int64_t>& parents) {
  for (const std::int64_t scope_id : erased) RETURN_IF_ERROR(tables.DropScope(scope_id));
  for (const std::int64_t scope_id : edge_scopes) {
    // The surviving edges' leaves, in their old order: a log stays in row order.
    ASSIGN_OR_RETURN(const std::vector<LeafRow> kept, tables.SurvivingEdgeLeaves(scope_id));
    ASSIGN_OR_RETURN(const StoredLogs logs, RequireLogs(tables, scope_id));
    ASSIGN_OR_RETURN(const LogFrontier edges,
                     RewriteLog(tables, scope_id, MerkleLog::kEdges, kept));
    RETURN_IF_ERROR(tables.WriteLogs(scope_id, logs.nodes, edges));
  }
  std::set<std::int64_t> recompute = edge_scopes;
  recompute.insert(parents.begin(), parents.end());
  return RecomputeRoots(tables, recompute);
}

std::set<std::int64_t> SurvivingParents(std::span<const ScopeRecord> erased) {
  std::set<std::int64_t> parents;
  for (const ScopeRecord& scope : erased) parents.insert(scope.parent_scope_id);
  for (const ScopeRecord& scope : erased) parents.erase(scope.scope_id);
  parents.erase(0);
  return parents;
}

Status Backfill(Tables& tables) {
  RETURN_IF_ERROR(tables.ClearAll());
  ASSIGN_OR_RETURN(const std::vector<std::int64_t> scope_ids, tables.AllScopes());
  for (const std::int64_t scope_id : scope_ids) {
    ASSIGN_OR_RETURN(const ScopeRows rows, tables.RowsOf(scope_id));
    std::vector<LeafRow> node_leaves;
    for (const NodeRecord& node : rows.nodes) {
      node_leaves.push_back({node.id, ToHex(NodeLeafHash(node))});
    }
    std::vector<LeafRow> edge_leaves;
    for (const EdgeRecord& edge : rows.edges) {
      edge_leaves.push_back({edge.id, ToHex(EdgeLeafHash(edge))});
    }
    ASSIGN_OR_RETURN(const LogFrontier nodes,
                     RewriteLog(tables, scope_id, MerkleLog::kNodes, node_leaves));
    ASSIGN_OR_RETURN(const LogFrontier edges,
                     RewriteLog(tables, scope_id, MerkleLog::kEdges, edge_leaves));
    RETURN_IF_ERROR(tables.WriteLogs(scope_id, nodes, edges));
  }
  return RecomputeRoots(tables, {scope_ids.begin(), scope_ids.end()});
}

StatusOr<MerkleState> StateOf(Tables& tables, std::int64_t scope_id) {
  ASSIGN_OR_RETURN(std::optional<StoredLogs> logs, tables.ReadLogs(scope_id));
  if (!logs.has_value()) {
    return Status::NotFound("merkle state: scope " + std::to_string(scope_id) +
                            " has no merkle logs (unknown scope)");
  }
  MerkleState state;
  state.node_count = logs->nodes.size();
  state.node_root = ToHex(logs->nodes.Root());
  state.edge_count = logs->edges.size();
  state.edge_root = ToHex(logs->edges.Root());
  state.root = logs->root;
  return state;
}

}  // namespace engram::store::merkle

namespace engram::store {

std::string_view MerkleLogName(MerkleLog log) { return log == MerkleLog::kNodes ? "node" : "edge"; }

}  // namespace engram::store
