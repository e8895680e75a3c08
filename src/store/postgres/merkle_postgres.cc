// Schema v4's Merkle tables in PostgreSQL (see merkle_postgres.h).
#include "store/postgres/merkle_postgres.h"

#include <string_view>

#include "store/backend_common.h"

namespace engram::store::postgres {
namespace {

using merkle::LeafRow;
using merkle::LogFrontier;

Status Run(Connection& conn, std::string_view sql, const Params& params,
           std::string_view operation) {
  ASSIGN_OR_RETURN(Result done, conn.Query(sql, params, operation));
  static_cast<void>(done);
  return Status::Ok();
}

// A stored enum name that does not parse means the data was damaged or written by something else.
template <typename T>
StatusOr<T> StoredName(StatusOr<T> parsed, std::string_view what, std::string_view id) {
  if (parsed.ok()) return parsed;
  return Status::Corruption("postgres: merkle backfill: " + std::string(what) + " of " +
                            std::string(id) + ": " + parsed.status().message());
}

}  // namespace

StatusOr<std::optional<merkle::StoredLogs>> MerkleTables::ReadLogs(std::int64_t scope_id) {
  ASSIGN_OR_RETURN(Result rows,
                   conn_.Query("SELECT node_count, node_frontier, edge_count, edge_frontier, root "
                               "FROM merkle_roots WHERE scope_id = $1",
                               Params().Int(scope_id), "read merkle state"));
  if (rows.size() == 0) return std::optional<merkle::StoredLogs>();
  merkle::StoredLogs logs;
  ASSIGN_OR_RETURN(logs.nodes, LogFrontier::Parse(rows.Int(0, 0), rows.Text(0, 1)));
  ASSIGN_OR_RETURN(logs.edges, LogFrontier::Parse(rows.Int(0, 2), rows.Text(0, 3)));
  logs.root = rows.Text(0, 4);
  return std::optional<merkle::StoredLogs>(std::move(logs));
}

Status MerkleTables::WriteLogs(std::int64_t scope_id, const LogFrontier& nodes,
                               const LogFrontier& edges) {
  return Run(conn_,
             "INSERT INTO merkle_roots(scope_id, node_count, node_frontier, edge_count, "
             "edge_frontier, root) VALUES($1, $2, $3, $4, $5, '') "
             "ON CONFLICT(scope_id) DO UPDATE SET node_count = excluded.node_count, "
             "node_frontier = excluded.node_frontier, edge_count = excluded.edge_count, "
             "edge_frontier = excluded.edge_frontier, root = ''",
             Params()
                 .Int(scope_id)
                 .Int(nodes.size())
                 .Text(nodes.Serialize())
                 .Int(edges.size())
                 .Text(edges.Serialize()),
             "write merkle logs");
}

Status MerkleTables::WriteRoot(std::int64_t scope_id, const merkle::Hash& root) {
  return Run(conn_, "UPDATE merkle_roots SET root = $2 WHERE scope_id = $1",
             Params().Int(scope_id).Text(merkle::ToHex(root)), "merkle: write scope root");
}

Status MerkleTables::InsertLeaves(std::int64_t scope_id, MerkleLog log, std::int64_t first_index,
                                  std::span<const LeafRow> leaves) {
  if (leaves.empty()) return Status::Ok();
  // One statement for all the leaves: their ids and hashes travel as two arrays.
  std::vector<std::string> target_ids;
  std::vector<std::string> hashes;
  target_ids.reserve(leaves.size());
  hashes.reserve(leaves.size());
  for (const LeafRow& leaf : leaves) {
    target_ids.push_back(leaf.target_id);
    hashes.push_back(leaf.hash);
  }
  return Run(conn_,
             "INSERT INTO merkle_leaves(scope_id, log, idx, target_id, hash) "
             "SELECT $1, $2, $3::bigint + ord - 1, target_id, decode(hash, 'hex') "
             "FROM unnest($4::text[], $5::text[]) WITH ORDINALITY AS leaf(target_id, hash, ord)",
             Params()
                 .Int(scope_id)
                 .Text(MerkleLogName(log))
                 .Int(first_index)
                 .TextArray(target_ids)
                 .TextArray(hashes),
             "append merkle leaves");
}

Status MerkleTables::ClearLog(std::int64_t scope_id, MerkleLog log) {
  return Run(conn_, "DELETE FROM merkle_leaves WHERE scope_id = $1 AND log = $2",
             Params().Int(scope_id).Text(MerkleLogName(log)), "merkle: clear log");
}

Status MerkleTables::DropScope(std::int64_t scope_id) {
  RETURN_IF_ERROR(Run(conn_, "DELETE FROM merkle_leaves WHERE scope_id = $1",
                      Params().Int(scope_id), "merkle: drop erased scope"));
  return Run(conn_, "DELETE FROM merkle_roots WHERE scope_id = $1", Params().Int(scope_id),
             "merkle: drop erased scope");
}

Status MerkleTables::ClearAll() {
  return conn_.Exec("DELETE FROM merkle_leaves; DELETE FROM merkle_roots", "merkle: clear");
}

StatusOr<std::vector<MerkleLeaf>> MerkleTables::Leaves(std::int64_t scope_id, MerkleLog log) {
  ASSIGN_OR_RETURN(
      Result rows,
      conn_.Query("SELECT idx, target_id, encode(hash, 'hex') FROM merkle_leaves "
                  "WHERE scope_id = $1 AND log = $2 ORDER BY idx",
                  Params().Int(scope_id).Text(MerkleLogName(log)), "read merkle leaves"));
  std::vector<MerkleLeaf> leaves;
  leaves.reserve(static_cast<std::size_t>(rows.size()));
  for (int row = 0; row < rows.size(); ++row) {
    leaves.push_back(MerkleLeaf{.index = rows.Int(row, 0),
                                .target_id = std::string(rows.Text(row, 1)),
                                .hash = std::string(rows.Text(row, 2))});
  }
  return leaves;
}

StatusOr<std::vector<LeafRow>> MerkleTables::SurvivingEdgeLeaves(std::int64_t scope_id) {
  ASSIGN_OR_RETURN(
      Result rows,
      conn_.Query("SELECT l.target_id, encode(l.hash, 'hex') FROM merkle_leaves l WHERE "
                  "l.scope_id = $1 AND l.log = 'edge' AND EXISTS (SELECT 1 FROM "
                  "edges e WHERE e.id = l.target_id) ORDER BY l.idx",
                  Params().Int(scope_id), "merkle: surviving edge leaves"));
  std::vector<LeafRow> kept;
  for (int row = 0; row < rows.size(); ++row) {
    kept.push_back({std::string(rows.Text(row, 0)), std::string(rows.Text(row, 1))});
  }
  return kept;
}

StatusOr<std::int64_t> MerkleTables::ParentOf(std::int64_t scope_id) {
  ASSIGN_OR_RETURN(Result rows,
                   conn_.Query("SELECT parent_scope_id FROM scopes WHERE scope_id = $1",
                               Params().Int(scope_id), "merkle: read parent scope"));
  if (rows.size() == 0) {
    return Status::NotFound("merkle: scope " + std::to_string(scope_id) + " does not exist");
  }
  return rows.Int(0, 0);  // 0 when NULL
}

StatusOr<std::vector<std::pair<std::string, std::string>>> MerkleTables::NestedRoots(
    std::int64_t scope_id) {
  ASSIGN_OR_RETURN(Result rows,
                   conn_.Query("SELECT s.path, r.root FROM scopes s LEFT JOIN merkle_roots r "
                               "ON r.scope_id = s.scope_id WHERE s.parent_scope_id = $1",
                               Params().Int(scope_id), "merkle: read nested scope roots"));
  std::vector<std::pair<std::string, std::string>> nested;
  for (int row = 0; row < rows.size(); ++row) {
    nested.emplace_back(rows.Text(row, 0), rows.Text(row, 1));
  }
  return nested;
}

StatusOr<std::vector<std::int64_t>> MerkleTables::AllScopes() {
  ASSIGN_OR_RETURN(Result rows, conn_.Query("SELECT scope_id FROM scopes ORDER BY scope_id",
                                            Params(), "merkle backfill: list scopes"));
  std::vector<std::int64_t> scope_ids;
  for (int row = 0; row < rows.size(); ++row) scope_ids.push_back(rows.Int(row, 0));
  return scope_ids;
}

StatusOr<merkle::ScopeRows> MerkleTables::RowsOf(std::int64_t scope_id) {
  merkle::ScopeRows scope_rows;
  ASSIGN_OR_RETURN(Result nodes,
                   conn_.Query("SELECT id, kind, content_json, text, role, speaker, session_id, "
                               "sequence, event_time, metadata_json FROM nodes "
                               "WHERE scope_id = $1 ORDER BY row_id",
                               Params().Int(scope_id), "merkle backfill: read nodes"));
  for (int row = 0; row < nodes.size(); ++row) {
    NodeRecord node;
    node.id = nodes.Text(row, 0);
    ASSIGN_OR_RETURN(node.kind, StoredName(ParseNodeKind(nodes.Text(row, 1)), "kind", node.id));
    node.content_json = nodes.Text(row, 2);
    node.text = nodes.Text(row, 3);
    ASSIGN_OR_RETURN(node.role, StoredName(ParseRole(nodes.Text(row, 4)), "role", node.id));
    node.speaker = nodes.Text(row, 5);
    node.session_id = nodes.Text(row, 6);
    node.sequence = nodes.Int(row, 7);
    node.event_time = nodes.Time(row, 8);
    node.metadata_json = nodes.Text(row, 9);
    RETURN_IF_ERROR(RestoreContentJson(node, "postgres"));
    scope_rows.nodes.push_back(std::move(node));
  }
  ASSIGN_OR_RETURN(Result edges,
                   conn_.Query("SELECT id, type, src, dst, attrs_json FROM edges "
                               "WHERE scope_id = $1 ORDER BY row_id",
                               Params().Int(scope_id), "merkle backfill: read edges"));
  for (int row = 0; row < edges.size(); ++row) {
    EdgeRecord edge;
    edge.id = edges.Text(row, 0);
    edge.type = edges.Text(row, 1);
    edge.src = edges.Text(row, 2);
    edge.dst = edges.Text(row, 3);
    edge.attrs_json = edges.Text(row, 4);
    scope_rows.edges.push_back(std::move(edge));
  }
  return scope_rows;
}

}  // namespace engram::store::postgres
