// The PostgreSQL side of the Merkle audit (store/merkle.h, docs/AUDIT.md): the statements on
// schema v4's tables merkle_leaves and merkle_roots, the same tables as SQLite's. What is stored
// when is merkle::Writer's and its companions', shared with the SQLite backend, so both keep the
// same leaves and roots for the same data.
#ifndef ENGRAM_STORE_POSTGRES_MERKLE_POSTGRES_H_
#define ENGRAM_STORE_POSTGRES_MERKLE_POSTGRES_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "engram/status.h"
#include "store/merkle.h"
#include "store/postgres/connection.h"
#include "store/store.h"

namespace engram::store::postgres {

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

}  // namespace engram::store::postgres

#endif  // ENGRAM_STORE_POSTGRES_MERKLE_POSTGRES_H_
