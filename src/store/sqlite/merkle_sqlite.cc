// Schema v4's Merkle tables in SQLite (see merkle_sqlite.h).
#include "store/sqlite/merkle_sqlite.h"

#include <array>
#include <cstddef>
#include <span>
#include <string>
#include <string_view>

#include "core/ids.h"
#include "store/backend_common.h"

namespace engram::store::sqlite {
namespace {

using merkle::LeafRow;
using merkle::LogFrontier;

// A leaf's stored target id as the hex digits or text the Tables interface speaks.
constexpr std::string_view kTargetIdText =
    "CASE WHEN typeof(target_id) = 'blob' THEN lower(hex(target_id)) ELSE target_id END";

Status RunWithScope(Connection& conn, std::string_view sql, std::int64_t scope_id,
                    std::string_view operation) {
  ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(sql, operation));
  stmt.BindInt(1, scope_id);
  return stmt.Run();
}

}  // namespace

// A leaf's target id as stored (schema 7): an id of 32 lowercase hex digits (every id engram
// makes) as its 16 bytes, a BLOB; any other id as text. SQLite keeps the two storage classes
// apart, so the stored value always says which it is.
void BindMerkleTargetId(Statement& stmt, int index, std::string_view id) {
  if (!core::LooksLikeId(id)) {
    stmt.BindText(index, id);
    return;
  }
  const auto nibble = [](char c) { return c <= '9' ? c - '0' : c - 'a' + 10; };
  std::array<std::byte, 16> bytes;
  for (std::size_t byte_idx = 0; byte_idx < bytes.size(); ++byte_idx) {
    bytes[byte_idx] =
        static_cast<std::byte>(nibble(id[2 * byte_idx]) * 16 + nibble(id[2 * byte_idx + 1]));
  }
  stmt.BindBlob(index, bytes);
}

StatusOr<std::optional<merkle::StoredLogs>> MerkleTables::ReadLogs(std::int64_t scope_id) {
  ASSIGN_OR_RETURN(Statement stmt,
                   conn_.Prepare("SELECT node_count, node_frontier, edge_count, edge_frontier, "
                                 "root FROM merkle_roots WHERE scope_id = ?1",
                                 "read merkle state"));
  stmt.BindInt(1, scope_id);
  ASSIGN_OR_RETURN(const bool has_row, stmt.Step());
  if (!has_row) return std::optional<merkle::StoredLogs>();
  merkle::StoredLogs logs;
  ASSIGN_OR_RETURN(logs.nodes, LogFrontier::Parse(stmt.ColumnInt(0), stmt.ColumnText(1)));
  ASSIGN_OR_RETURN(logs.edges, LogFrontier::Parse(stmt.ColumnInt(2), stmt.ColumnText(3)));
  logs.root = stmt.ColumnText(4);
  return std::optional<merkle::StoredLogs>(std::move(logs));
}

Status MerkleTables::WriteLogs(std::int64_t scope_id, const LogFrontier& nodes,
                               const LogFrontier& edges) {
  ASSIGN_OR_RETURN(
      Statement stmt,
      conn_.Prepare("INSERT INTO merkle_roots(scope_id, node_count, node_frontier, edge_count, "
                    "edge_frontier, root) VALUES(?1, ?2, ?3, ?4, ?5, '') "
                    "ON CONFLICT(scope_id) DO UPDATE SET node_count = excluded.node_count, "
                    "node_frontier = excluded.node_frontier, edge_count = excluded.edge_count, "
                    "edge_frontier = excluded.edge_frontier, root = ''",
                    "write merkle logs"));
  stmt.BindInt(1, scope_id);
  stmt.BindInt(2, nodes.size());
  stmt.BindText(3, nodes.Serialize());
  stmt.BindInt(4, edges.size());
  stmt.BindText(5, edges.Serialize());
  return stmt.Run();
}

Status MerkleTables::WriteRoot(std::int64_t scope_id, const merkle::Hash& root) {
  ASSIGN_OR_RETURN(Statement stmt,
                   conn_.Prepare("UPDATE merkle_roots SET root = ?2 WHERE scope_id = ?1",
                                 "merkle: write scope root"));
  stmt.BindInt(1, scope_id);
  stmt.BindText(2, merkle::ToHex(root));
  return stmt.Run();
}

Status MerkleTables::InsertLeaves(std::int64_t scope_id, MerkleLog log, std::int64_t first_index,
                                  std::span<const LeafRow> leaves) {
  std::int64_t index = first_index;
  for (const LeafRow& leaf : leaves) {
    ASSIGN_OR_RETURN(const merkle::Hash hash,
                     merkle::FromHex(leaf.hash, "merkle leaf of " + leaf.target_id));
    ASSIGN_OR_RETURN(Statement stmt,
                     conn_.Prepare("INSERT INTO merkle_leaves(scope_id, log, idx, target_id, hash) "
                                   "VALUES(?1, ?2, ?3, ?4, ?5)",
                                   "append merkle leaf"));
    stmt.BindInt(1, scope_id);
    stmt.BindText(2, MerkleLogName(log));
    stmt.BindInt(3, index++);
    BindMerkleTargetId(stmt, 4, leaf.target_id);
    stmt.BindBlob(5, std::as_bytes(std::span<const std::uint8_t>(hash)));
    RETURN_IF_ERROR(stmt.Run());
  }
  return Status::Ok();
}

Status MerkleTables::ClearLog(std::int64_t scope_id, MerkleLog log) {
  ASSIGN_OR_RETURN(Statement clear,
                   conn_.Prepare("DELETE FROM merkle_leaves WHERE scope_id = ?1 AND log = ?2",
                                 "merkle: clear log"));
  clear.BindInt(1, scope_id);
  clear.BindText(2, MerkleLogName(log));
  return clear.Run();
}

Status MerkleTables::DropScope(std::int64_t scope_id) {
  RETURN_IF_ERROR(RunWithScope(conn_, "DELETE FROM merkle_leaves WHERE scope_id = ?1", scope_id,
                               "merkle: drop erased scope"));
  return RunWithScope(conn_, "DELETE FROM merkle_roots WHERE scope_id = ?1", scope_id,
                      "merkle: drop erased scope");
}

Status MerkleTables::ClearAll() {
  return conn_.Exec("DELETE FROM merkle_leaves; DELETE FROM merkle_roots", "merkle: clear");
}

StatusOr<std::vector<MerkleLeaf>> MerkleTables::Leaves(std::int64_t scope_id, MerkleLog log) {
  ASSIGN_OR_RETURN(
      Statement stmt,
      conn_.Prepare("SELECT idx, " + std::string(kTargetIdText) +
                        ", lower(hex(hash)) FROM merkle_leaves WHERE scope_id = ?1 AND log = ?2 "
                        "ORDER BY idx",
                    "read merkle leaves"));
  stmt.BindInt(1, scope_id);
  stmt.BindText(2, MerkleLogName(log));
  std::vector<MerkleLeaf> leaves;
  while (true) {
    ASSIGN_OR_RETURN(const bool has_row, stmt.Step());
    if (!has_row) break;
    leaves.push_back(MerkleLeaf{
        .index = stmt.ColumnInt(0), .target_id = stmt.ColumnText(1), .hash = stmt.ColumnText(2)});
  }
  return leaves;
}

StatusOr<std::vector<LeafRow>> MerkleTables::SurvivingEdgeLeaves(std::int64_t scope_id) {
  ASSIGN_OR_RETURN(
      Statement read,
      conn_.Prepare("SELECT " + std::string(kTargetIdText) +
                        ", lower(hex(hash)) FROM merkle_leaves WHERE scope_id = ?1 AND "
                        "log = 'edge' AND EXISTS (SELECT 1 FROM edges e WHERE e.id = " +
                        std::string(kTargetIdText) + ") ORDER BY idx",
                    "merkle: surviving edge leaves"));
  read.BindInt(1, scope_id);
  std::vector<LeafRow> kept;
  while (true) {
    ASSIGN_OR_RETURN(const bool has_row, read.Step());
    if (!has_row) break;
    kept.push_back({read.ColumnText(0), read.ColumnText(1)});
  }
  return kept;
}

StatusOr<std::int64_t> MerkleTables::ParentOf(std::int64_t scope_id) {
  ASSIGN_OR_RETURN(Statement stmt,
                   conn_.Prepare("SELECT parent_scope_id FROM scopes WHERE scope_id = ?1",
                                 "merkle: read parent scope"));
  stmt.BindInt(1, scope_id);
  ASSIGN_OR_RETURN(const bool has_row, stmt.Step());
  if (!has_row) {
    return Status::NotFound("merkle: scope " + std::to_string(scope_id) + " does not exist");
  }
  return stmt.ColumnIsNull(0) ? std::int64_t{0} : stmt.ColumnInt(0);
}

StatusOr<std::vector<std::pair<std::string, std::string>>> MerkleTables::NestedRoots(
    std::int64_t scope_id) {
  ASSIGN_OR_RETURN(Statement children,
                   conn_.Prepare("SELECT s.path, r.root FROM scopes s LEFT JOIN merkle_roots r "
                                 "ON r.scope_id = s.scope_id WHERE s.parent_scope_id = ?1",
                                 "merkle: read nested scope roots"));
  children.BindInt(1, scope_id);
  std::vector<std::pair<std::string, std::string>> nested;
  while (true) {
    ASSIGN_OR_RETURN(const bool has_row, children.Step());
    if (!has_row) break;
    nested.emplace_back(children.ColumnText(0), children.ColumnText(1));
  }
  return nested;
}

StatusOr<std::vector<std::int64_t>> MerkleTables::AllScopes() {
  ASSIGN_OR_RETURN(Statement stmt, conn_.Prepare("SELECT scope_id FROM scopes ORDER BY scope_id",
                                                 "merkle backfill: list scopes"));
  std::vector<std::int64_t> scope_ids;
  while (true) {
    ASSIGN_OR_RETURN(const bool has_row, stmt.Step());
    if (!has_row) break;
    scope_ids.push_back(stmt.ColumnInt(0));
  }
  return scope_ids;
}

StatusOr<merkle::ScopeRows> MerkleTables::RowsOf(std::int64_t scope_id) {
  merkle::ScopeRows rows;
  {
    ASSIGN_OR_RETURN(Statement stmt,
                     conn_.Prepare("SELECT id, kind, content_json, text, role, speaker, "
                                   "session_id, sequence, event_time, metadata_json FROM nodes "
                                   "WHERE scope_id = ?1 ORDER BY row_id",
                                   "merkle backfill: read nodes"));
    stmt.BindInt(1, scope_id);
    while (true) {
      ASSIGN_OR_RETURN(const bool has_row, stmt.Step());
      if (!has_row) break;
      NodeRecord node;
      node.id = stmt.ColumnText(0);
      ASSIGN_OR_RETURN(node.kind, ParseNodeKind(stmt.ColumnText(1)));
      node.content_json = stmt.ColumnText(2);
      node.text = stmt.ColumnText(3);
      ASSIGN_OR_RETURN(node.role, ParseRole(stmt.ColumnText(4)));
      node.speaker = stmt.ColumnText(5);
      node.session_id = stmt.ColumnText(6);
      node.sequence = stmt.ColumnInt(7);
      node.event_time = stmt.ColumnTime(8);
      node.metadata_json = stmt.ColumnText(9);
      RETURN_IF_ERROR(RestoreContentJson(node, "sqlite"));
      rows.nodes.push_back(std::move(node));
    }
  }
  ASSIGN_OR_RETURN(Statement stmt, conn_.Prepare("SELECT id, type, src, dst, attrs_json FROM edges "
                                                 "WHERE scope_id = ?1 ORDER BY row_id",
                                                 "merkle backfill: read edges"));
  stmt.BindInt(1, scope_id);
  while (true) {
    ASSIGN_OR_RETURN(const bool has_row, stmt.Step());
    if (!has_row) break;
    EdgeRecord edge;
    edge.id = stmt.ColumnText(0);
    edge.type = stmt.ColumnText(1);
    edge.src = stmt.ColumnText(2);
    edge.dst = stmt.ColumnText(3);
    edge.attrs_json = stmt.ColumnText(4);
    rows.edges.push_back(std::move(edge));
  }
  return rows;
}

}  // namespace engram::store::sqlite
