// The SQLite side of the Merkle audit (store/merkle.h, docs/AUDIT.md): the statements on schema
// v4's tables merkle_leaves and merkle_roots. What is stored when (append on every insert, roots
// before COMMIT, erase, backfill) is merkle::Writer's and its companions', shared with PostgreSQL.
//
//   MerkleTables tables(conn);
//   RETURN_IF_ERROR(writer.Flush(tables));   // just before COMMIT
#ifndef ENGRAM_STORE_SQLITE_MERKLE_SQLITE_H_
#define ENGRAM_STORE_SQLITE_MERKLE_SQLITE_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "engram/status.h"
#include "store/merkle.h"
#include "store/sqlite/connection.h"
#include "store/store.h"

namespace engram::store::sqlite {

// Binds a Merkle leaf's target id as schema 7 stores it: an id of 32 lowercase hex digits as its
// 16 bytes (a BLOB), any other id as text; readers turn a BLOB back into hex digits.
void BindMerkleTargetId(Statement& stmt, int index, std::string_view id);

class MerkleTables final : public merkle::Tables {
 public:
  explicit MerkleTables(Connection& conn) : conn_(conn) {}

  StatusOr<std::optional<merkle::StoredLogs>> ReadLogs(std::int64_t scope_id) override;
  Status WriteLogs(std::int64_t scope_id, const merkle::LogFrontier& nodes,
                   const merkle::LogFrontier& edges) override;
  Status WriteRoot(std::int64_t scope_id, const merkle::Hash& root) override;
  Status InsertLeaves(std::int64_t scope_id, MerkleLog log, std::int64_t first_index,
                      std::span<const merkle::LeafRow> leaves) override;
  Status ClearLog(std::int64_t scope_id, MerkleLog log) override;
  Status DropScope(std::int64_t scope_id) override;
  Status ClearAll() override;
  StatusOr<std::vector<MerkleLeaf>> Leaves(std::int64_t scope_id, MerkleLog log) override;
  StatusOr<std::vector<merkle::LeafRow>> SurvivingEdgeLeaves(std::int64_t scope_id) override;
  StatusOr<std::int64_t> ParentOf(std::int64_t scope_id) override;
  StatusOr<std::vector<std::pair<std::string, std::string>>> NestedRoots(
      std::int64_t scope_id) override;
  StatusOr<std::vector<std::int64_t>> AllScopes() override;
  StatusOr<merkle::ScopeRows> RowsOf(std::int64_t scope_id) override;

 private:
  Connection& conn_;
};

}  // namespace engram::store::sqlite

#endif  // ENGRAM_STORE_SQLITE_MERKLE_SQLITE_H_
