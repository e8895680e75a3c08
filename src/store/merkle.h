// The Merkle audit structure of a store (WorldDB §2: content-addressed worlds; docs/AUDIT.md).
//
// Each scope keeps two append-only logs, one over its nodes and one over its edges, each in row
// (insertion) order, hashed as RFC 9162's Merkle tree: a leaf is SHA-256(0x00 ‖ leaf data), an
// interior node SHA-256(0x01 ‖ left ‖ right), the tree over n leaves splits at the largest power of
// two below n, and the empty tree is SHA-256(""). A log is kept as its frontier (the roots of its
// perfect subtrees, one per set bit of its size), so appending a leaf is O(log n).
//
// The scope root is SHA-256(0x02 ‖ node log root ‖ node count ‖ edge log root ‖ edge count ‖ for
// each nested scope in path order: path ‖ its scope root), so changing any memory changes the
// root of its scope and of every enclosing one. Status and validity are outside every hash; so are
// an edge's id and ingestion time (the edge id hashes its transaction time), so two stores that
// hold the same memories agree on their roots whenever they learned them.
//
// This file is store-neutral. Its second half keeps the logs in a store, the same way in every
// backend: each backend implements Tables (the SQL of its two tables: sqlite/merkle_sqlite.*,
// postgres/merkle_postgres.*), and the Writer, RecomputeRoots, AfterErase and Backfill below do
// the rest, so both backends store the same leaves and roots for the same data. The audit
// (audit.*) recomputes them from the records.
#ifndef ENGRAM_STORE_MERKLE_H_
#define ENGRAM_STORE_MERKLE_H_

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engram/status.h"
#include "store/store.h"

namespace engram::store::merkle {

using Hash = std::array<std::uint8_t, 32>;

// 64 lowercase hex digits, and back (kInvalidArgument naming `what` for anything else).
std::string ToHex(const Hash& hash);
StatusOr<Hash> FromHex(std::string_view hex, std::string_view what);

// The root of an empty log: SHA-256 of nothing.
Hash EmptyRoot();
Hash InteriorHash(const Hash& left, const Hash& right);

// Leaf hashes. A node's leaf covers its id and every immutable field (kind, content, text, role,
// speaker, session, sequence, event time, metadata); an edge's covers its type, endpoints and
// attributes. Row numbers, scope rows, ingestion times, idempotency keys, status and validity are
// left out.
Hash NodeLeafHash(const NodeRecord& node);
Hash EdgeLeafHash(const EdgeRecord& edge);

// An append-only log kept as its frontier.
class LogFrontier {
 public:
  void Append(const Hash& leaf);
  Hash Root() const;
  std::int64_t size() const { return size_; }
  // The frontier as concatenated hex, largest subtree first; Parse checks it against `size`.
  std::string Serialize() const;
  static StatusOr<LogFrontier> Parse(std::int64_t size, std::string_view text);

 private:
  std::int64_t size_ = 0;
  std::vector<Hash> peaks_;  // one per set bit of size_, largest subtree first
};

// RFC 9162 MTH over all the leaves at once (what the frontier's Root must equal).
Hash TreeRoot(std::span<const Hash> leaves);
// RFC 9162 PATH(index, leaves): the sibling hashes from the leaf up. index < leaves.size().
std::vector<Hash> InclusionPath(std::span<const Hash> leaves, std::size_t index);
// RFC 9162 §2.1.3.2: true when `path` leads from `leaf` at `index` of a tree of `size` leaves to
// `root`.
bool VerifyInclusion(const Hash& leaf, std::uint64_t index, std::uint64_t size,
                     std::span<const Hash> path, const Hash& root);

struct ChildRoot {
  std::string path;  // the nested scope's path
  Hash root;
};
// The scope root; `children` must be sorted by path (bytewise).
Hash ScopeRoot(const Hash& node_root, std::int64_t node_count, const Hash& edge_root,
               std::int64_t edge_count, std::span<const ChildRoot> children);

// ---------------------------------------------------------------------------------------------
// Keeping the logs in a store (schema v4 of either backend):
//
//   merkle_leaves(scope_id, log 'node'|'edge', idx, target_id, hash)  -- one row per leaf
//   merkle_roots(scope_id, node_count, node_frontier, edge_count, edge_frontier, root)

// One leaf row: the node or edge id and the leaf hash as hex.
struct LeafRow {
  std::string target_id;
  std::string hash;
};

// A scope's row of merkle_roots.
struct StoredLogs {
  LogFrontier nodes;
  LogFrontier edges;
  std::string root;  // hex; "" between WriteLogs and WriteRoot
};

// The rows of a scope the leaves are computed from, in row order (for Backfill).
struct ScopeRows {
  std::vector<NodeRecord> nodes;
  std::vector<EdgeRecord> edges;
};

// The statements a backend runs on the two tables (and the few reads of scopes, nodes and edges
// they need), inside the caller's transaction.
class Tables {
 public:
  virtual ~Tables() = default;
  // The scope's merkle_roots row, unset when it has none.
  virtual StatusOr<std::optional<StoredLogs>> ReadLogs(std::int64_t scope_id) = 0;
  // Inserts or replaces the scope's frontiers and counts, with the root "" until WriteRoot.
  virtual Status WriteLogs(std::int64_t scope_id, const LogFrontier& nodes,
                           const LogFrontier& edges) = 0;
  virtual Status WriteRoot(std::int64_t scope_id, const Hash& root) = 0;
  // Inserts `leaves` at positions first_index, first_index + 1, ... of the scope's log.
  virtual Status InsertLeaves(std::int64_t scope_id, MerkleLog log, std::int64_t first_index,
                              std::span<const LeafRow> leaves) = 0;
  virtual Status ClearLog(std::int64_t scope_id, MerkleLog log) = 0;
  // Deletes the scope's leaves and merkle_roots row.
  virtual Status DropScope(std::int64_t scope_id) = 0;
  // Deletes every leaf and root (before Backfill).
  virtual Status ClearAll() = 0;
  // The leaves of a log in log order.
  virtual StatusOr<std::vector<MerkleLeaf>> Leaves(std::int64_t scope_id, MerkleLog log) = 0;
  // The leaves of the scope's edge log whose edge still exists, in log order.
  virtual StatusOr<std::vector<LeafRow>> SurvivingEdgeLeaves(std::int64_t scope_id) = 0;
  // The parent scope (0 for a top-level one); kNotFound for an unknown scope.
  virtual StatusOr<std::int64_t> ParentOf(std::int64_t scope_id) = 0;
  // The nested scopes' paths and stored roots ("" when none), in any order.
  virtual StatusOr<std::vector<std::pair<std::string, std::string>>> NestedRoots(
      std::int64_t scope_id) = 0;
  // Every scope id, ascending, and a scope's nodes and edges in row order (for Backfill).
  virtual StatusOr<std::vector<std::int64_t>> AllScopes() = 0;
  virtual StatusOr<ScopeRows> RowsOf(std::int64_t scope_id) = 0;
};

// The leaves one write transaction appends. Append after the row's insert succeeded; Flush, just
// before COMMIT (or when the transaction reads its Merkle state), writes them after the scopes'
// stored leaves, stores the new frontiers and recomputes the roots of the touched scopes and of
// every scope enclosing them.
class Writer {
 public:
  void AppendNode(const NodeRecord& node);
  void AppendEdge(const EdgeRecord& edge);
  Status Flush(Tables& tables);

 private:
  struct Pending {
    std::vector<LeafRow> nodes;
    std::vector<LeafRow> edges;
  };
  std::map<std::int64_t, Pending> pending_;  // by scope id
};

// Recomputes the root of each scope in `scopes` and of every scope enclosing one, deepest first.
Status RecomputeRoots(Tables& tables, const std::set<std::int64_t>& scopes);

// Inside an erase's transaction, after the rows are deleted: drops the erased scopes' logs
// (`erased`), removes from the edge logs of `edge_scopes` the leaves of deleted edges (renumbering
// what remains) and recomputes the roots of those scopes and of `parents` (the surviving parents
// of erased scopes) and everything above them.
Status AfterErase(Tables& tables, std::span<const std::int64_t> erased,
                  const std::set<std::int64_t>& edge_scopes, const std::set<std::int64_t>& parents);

// The parents of the scopes `erased` that are not erased themselves (the `parents` of AfterErase).
std::set<std::int64_t> SurvivingParents(std::span<const ScopeRecord> erased);

// Builds every scope's logs and roots from its rows (migration to schema v4).
Status Backfill(Tables& tables);

// The stored state of a scope; kNotFound for a scope without logs.
StatusOr<MerkleState> StateOf(Tables& tables, std::int64_t scope_id);

}  // namespace engram::store::merkle

#endif  // ENGRAM_STORE_MERKLE_H_
