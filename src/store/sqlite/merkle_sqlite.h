// The SQLite side of the Merkle audit (store/merkle.h, docs/AUDIT.md): schema v4's tables
//
//   merkle_leaves(scope_id, log 'node'|'edge', idx, target_id, hash)  -- one row per leaf
//   merkle_roots(scope_id, node_count, node_frontier, edge_count, edge_frontier, root)
//
// kept in the transaction of every write: each inserted node or edge appends its leaf, Flush (just
// before COMMIT) writes the touched scopes' frontiers and recomputes their roots and every
// enclosing scope's; AfterErase drops erased scopes' logs and rebuilds the edge logs that lost
// leaves; Backfill builds everything for a store migrated from schema v3.
#ifndef ENGRAM_STORE_SQLITE_MERKLE_SQLITE_H_
#define ENGRAM_STORE_SQLITE_MERKLE_SQLITE_H_

#include <cstdint>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "engram/status.h"
#include "store/merkle.h"
#include "store/sqlite/connection.h"
#include "store/store.h"

namespace engram::store::sqlite {

// The Merkle logs touched by one write transaction.
class MerkleWriter {
 public:
  explicit MerkleWriter(Connection& conn) : conn_(conn) {}

  // Append the leaf of a node / edge just inserted in the open transaction. Call each one as the
  // last statement of the insert's savepoint: the leaf row rolls back with it, and the in-memory
  // frontier only moves once the row is written.
  Status AppendNode(const NodeRecord& node);
  Status AppendEdge(const EdgeRecord& edge);
  // Writes the touched logs and recomputes the roots of their scopes and every enclosing scope.
  Status Flush();

 private:
  struct Logs {
    merkle::LogFrontier nodes;
    merkle::LogFrontier edges;
  };
  StatusOr<Logs*> Load(std::int64_t scope_id);
  Status Append(std::int64_t scope_id, MerkleLog log, std::string_view target_id,
                const merkle::Hash& leaf);

  Connection& conn_;
  std::map<std::int64_t, Logs> touched_;
};

// Recomputes the root of each scope in `scopes` and of every scope enclosing one, deepest first.
Status RecomputeScopeRoots(Connection& conn, const std::set<std::int64_t>& scopes);

// Inside EraseScopes' transaction, after the rows are deleted: drops the erased scopes' logs
// (`erased`), removes from the edge logs of `edge_scopes` the leaves of deleted edges (renumbering
// what remains) and recomputes the roots of those scopes and of `parents` (the surviving parents of
// erased scopes) and everything above them.
Status MerkleAfterErase(Connection& conn, const std::vector<std::int64_t>& erased,
                        const std::set<std::int64_t>& edge_scopes,
                        const std::set<std::int64_t>& parents);

// Builds every scope's logs and roots from its rows (migration to schema v4).
Status BackfillMerkle(Connection& conn);

StatusOr<MerkleState> QueryMerkleState(Connection& conn, std::int64_t scope_id);
StatusOr<std::vector<MerkleLeaf>> QueryMerkleLeaves(Connection& conn, std::int64_t scope_id,
                                                    MerkleLog log);

}  // namespace engram::store::sqlite

#endif  // ENGRAM_STORE_SQLITE_MERKLE_SQLITE_H_
