// Schema v4's Merkle tables, kept in the write transactions (see merkle_sqlite.h).
#include "store/sqlite/merkle_sqlite.h"

#include <algorithm>
#include <string>

namespace engram::store::sqlite {
namespace {

using merkle::Hash;
using merkle::LogFrontier;

Status InsertLeaf(Connection& conn, std::int64_t scope_id, MerkleLog log, std::int64_t index,
                  std::string_view target_id, std::string_view hash) {
  ASSIGN_OR_RETURN(Statement stmt,
                   conn.Prepare("INSERT INTO merkle_leaves(scope_id, log, idx, target_id, hash) "
                                "VALUES(?1, ?2, ?3, ?4, ?5)",
                                "append merkle leaf"));
  stmt.BindInt(1, scope_id);
  stmt.BindText(2, MerkleLogName(log));
  stmt.BindInt(3, index);
  stmt.BindText(4, target_id);
  stmt.BindText(5, hash);
  return stmt.Run();
}

struct StoredLogs {
  LogFrontier nodes;
  LogFrontier edges;
  std::string root;
};

StatusOr<std::optional<StoredLogs>> ReadLogs(Connection& conn, std::int64_t scope_id) {
  ASSIGN_OR_RETURN(Statement stmt,
                   conn.Prepare("SELECT node_count, node_frontier, edge_count, edge_frontier, root "
                                "FROM merkle_roots WHERE scope_id = ?1",
                                "read merkle state"));
  stmt.BindInt(1, scope_id);
  ASSIGN_OR_RETURN(const bool has_row, stmt.Step());
  if (!has_row) return std::optional<StoredLogs>();
  StoredLogs logs;
  ASSIGN_OR_RETURN(logs.nodes, LogFrontier::Parse(stmt.ColumnInt(0), stmt.ColumnText(1)));
  ASSIGN_OR_RETURN(logs.edges, LogFrontier::Parse(stmt.ColumnInt(2), stmt.ColumnText(3)));
  logs.root = stmt.ColumnText(4);
  return std::optional<StoredLogs>(std::move(logs));
}

Status WriteLogs(Connection& conn, std::int64_t scope_id, const LogFrontier& nodes,
                 const LogFrontier& edges) {
  // The root is recomputed by RecomputeScopeRoots right after; until then it holds the empty
  // root so a reader inside this transaction never sees a stale value as current.
  ASSIGN_OR_RETURN(
      Statement stmt,
      conn.Prepare("INSERT INTO merkle_roots(scope_id, node_count, node_frontier, edge_count, "
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

StatusOr<std::int64_t> ParentOf(Connection& conn, std::int64_t scope_id) {
  ASSIGN_OR_RETURN(Statement stmt,
                   conn.Prepare("SELECT parent_scope_id FROM scopes WHERE scope_id = ?1",
                                "merkle: read parent scope"));
  stmt.BindInt(1, scope_id);
  ASSIGN_OR_RETURN(const bool has_row, stmt.Step());
  if (!has_row) {
    return Status::NotFound("merkle: scope " + std::to_string(scope_id) + " does not exist");
  }
  return stmt.ColumnIsNull(0) ? std::int64_t{0} : stmt.ColumnInt(0);
}

// Rebuilds one log of a scope from the leaf hashes given (in order), replacing its stored leaves.
StatusOr<LogFrontier> RewriteLog(Connection& conn, std::int64_t scope_id, MerkleLog log,
                                 const std::vector<std::pair<std::string, std::string>>& leaves) {
  ASSIGN_OR_RETURN(Statement clear,
                   conn.Prepare("DELETE FROM merkle_leaves WHERE scope_id = ?1 AND log = ?2",
                                "merkle: clear log"));
  clear.BindInt(1, scope_id);
  clear.BindText(2, MerkleLogName(log));
  RETURN_IF_ERROR(clear.Run());
  LogFrontier frontier;
  for (const auto& [target_id, hash_hex] : leaves) {
    ASSIGN_OR_RETURN(const Hash hash, merkle::FromHex(hash_hex, "merkle leaf"));
    RETURN_IF_ERROR(InsertLeaf(conn, scope_id, log, frontier.size(), target_id, hash_hex));
    frontier.Append(hash);
  }
  return frontier;
}

}  // namespace

StatusOr<MerkleWriter::Logs*> MerkleWriter::Load(std::int64_t scope_id) {
  auto found = touched_.find(scope_id);
  if (found != touched_.end()) return &found->second;
  ASSIGN_OR_RETURN(std::optional<StoredLogs> stored, ReadLogs(conn_, scope_id));
  Logs logs;
  if (stored.has_value()) {
    logs.nodes = std::move(stored->nodes);
    logs.edges = std::move(stored->edges);
  }
  return &touched_.emplace(scope_id, std::move(logs)).first->second;
}

Status MerkleWriter::Append(std::int64_t scope_id, MerkleLog log, std::string_view target_id,
                            const Hash& leaf) {
  ASSIGN_OR_RETURN(Logs* const logs, Load(scope_id));
  LogFrontier& frontier = log == MerkleLog::kNodes ? logs->nodes : logs->edges;
  RETURN_IF_ERROR(
      InsertLeaf(conn_, scope_id, log, frontier.size(), target_id, merkle::ToHex(leaf)));
  frontier.Append(leaf);
  return Status::Ok();
}

Status MerkleWriter::AppendNode(const NodeRecord& node) {
  return Append(node.scope_id, MerkleLog::kNodes, node.id, merkle::NodeLeafHash(node));
}

Status MerkleWriter::AppendEdge(const EdgeRecord& edge) {
  return Append(edge.scope_id, MerkleLog::kEdges, edge.id, merkle::EdgeLeafHash(edge));
}

Status MerkleWriter::Flush() {
  if (touched_.empty()) return Status::Ok();
  std::set<std::int64_t> scopes;
  for (const auto& [scope_id, logs] : touched_) {
    RETURN_IF_ERROR(WriteLogs(conn_, scope_id, logs.nodes, logs.edges));
    scopes.insert(scope_id);
  }
  touched_.clear();
  return RecomputeScopeRoots(conn_, scopes);
}

Status RecomputeScopeRoots(Connection& conn, const std::set<std::int64_t>& scopes) {
  // Every scope to recompute with its depth; children before parents.
  std::map<std::int64_t, int> depth;
  for (const std::int64_t start : scopes) {
    std::vector<std::int64_t> chain;
    for (std::int64_t scope = start; scope != 0 && !depth.contains(scope);) {
      chain.push_back(scope);
      ASSIGN_OR_RETURN(scope, ParentOf(conn, scope));
      if (chain.size() > 64) return Status::Corruption("merkle: scope parents form a cycle");
    }
    // Depth of the first scope already known (or -1 above the top), then count down the chain.
    int base = -1;
    if (!chain.empty()) {
      ASSIGN_OR_RETURN(const std::int64_t above, ParentOf(conn, chain.back()));
      if (above != 0) base = depth.at(above);
    }
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) depth[*it] = ++base;
  }
  std::vector<std::pair<int, std::int64_t>> order;
  for (const auto& [scope, level] : depth) order.emplace_back(-level, scope);
  std::sort(order.begin(), order.end());
  for (const auto& [negative_level, scope_id] : order) {
    ASSIGN_OR_RETURN(std::optional<StoredLogs> logs, ReadLogs(conn, scope_id));
    if (!logs.has_value()) {
      return Status::Corruption("merkle: scope " + std::to_string(scope_id) +
                                " has no merkle logs");
    }
    ASSIGN_OR_RETURN(Statement children,
                     conn.Prepare("SELECT s.path, r.root FROM scopes s LEFT JOIN merkle_roots r "
                                  "ON r.scope_id = s.scope_id WHERE s.parent_scope_id = ?1 "
                                  "ORDER BY s.path",
                                  "merkle: read nested scope roots"));
    children.BindInt(1, scope_id);
    std::vector<merkle::ChildRoot> child_roots;
    while (true) {
      ASSIGN_OR_RETURN(const bool has_row, children.Step());
      if (!has_row) break;
      const std::string path = children.ColumnText(0);
      StatusOr<Hash> root = merkle::FromHex(children.ColumnText(1), "root of scope " + path);
      if (!root.ok()) return Status::Corruption("merkle: " + root.status().message());
      child_roots.push_back({path, *root});
    }
    const Hash root = merkle::ScopeRoot(logs->nodes.Root(), logs->nodes.size(),
                                        logs->edges.Root(), logs->edges.size(), child_roots);
    ASSIGN_OR_RETURN(Statement update,
                     conn.Prepare("UPDATE merkle_roots SET root = ?2 WHERE scope_id = ?1",
                                  "merkle: write scope root"));
    update.BindInt(1, scope_id);
    update.BindText(2, merkle::ToHex(root));
    RETURN_IF_ERROR(update.Run());
  }
  return Status::Ok();
}

Status MerkleAfterErase(Connection& conn, const std::vector<std::int64_t>& erased,
                        const std::set<std::int64_t>& edge_scopes,
                        const std::set<std::int64_t>& parents) {
  for (const std::int64_t scope_id : erased) {
    for (const std::string_view sql : {"DELETE FROM merkle_leaves WHERE scope_id = ?1",
                                       "DELETE FROM merkle_roots WHERE scope_id = ?1"}) {
      ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(sql, "merkle: drop erased scope"));
      stmt.BindInt(1, scope_id);
      RETURN_IF_ERROR(stmt.Run());
    }
  }
  for (const std::int64_t scope_id : edge_scopes) {
    // The surviving edges' leaves, in their old order: a log stays in row order.
    ASSIGN_OR_RETURN(Statement read,
                     conn.Prepare("SELECT l.target_id, l.hash FROM merkle_leaves l WHERE "
                                  "l.scope_id = ?1 AND l.log = 'edge' AND EXISTS (SELECT 1 FROM "
                                  "edges e WHERE e.id = l.target_id) ORDER BY l.idx",
                                  "merkle: surviving edge leaves"));
    read.BindInt(1, scope_id);
    std::vector<std::pair<std::string, std::string>> kept;
    while (true) {
      ASSIGN_OR_RETURN(const bool has_row, read.Step());
      if (!has_row) break;
      kept.emplace_back(read.ColumnText(0), read.ColumnText(1));
    }
    ASSIGN_OR_RETURN(std::optional<StoredLogs> logs, ReadLogs(conn, scope_id));
    if (!logs.has_value()) {
      return Status::Corruption("merkle: scope " + std::to_string(scope_id) +
                                " has no merkle logs");
    }
    ASSIGN_OR_RETURN(const LogFrontier edges, RewriteLog(conn, scope_id, MerkleLog::kEdges, kept));
    RETURN_IF_ERROR(WriteLogs(conn, scope_id, logs->nodes, edges));
  }
  std::set<std::int64_t> recompute = edge_scopes;
  recompute.insert(parents.begin(), parents.end());
  return RecomputeScopeRoots(conn, recompute);
}

Status BackfillMerkle(Connection& conn) {
  RETURN_IF_ERROR(conn.Exec("DELETE FROM merkle_leaves; DELETE FROM merkle_roots",
                            "merkle backfill: clear"));
  std::vector<std::int64_t> scope_ids;
  {
    ASSIGN_OR_RETURN(Statement stmt, conn.Prepare("SELECT scope_id FROM scopes ORDER BY scope_id",
                                                  "merkle backfill: list scopes"));
    while (true) {
      ASSIGN_OR_RETURN(const bool has_row, stmt.Step());
      if (!has_row) break;
      scope_ids.push_back(stmt.ColumnInt(0));
    }
  }
  for (const std::int64_t scope_id : scope_ids) {
    std::vector<std::pair<std::string, std::string>> node_leaves;
    {
      ASSIGN_OR_RETURN(Statement stmt,
                       conn.Prepare("SELECT id, kind, content_json, text, role, speaker, "
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
        node_leaves.emplace_back(node.id, merkle::ToHex(merkle::NodeLeafHash(node)));
      }
    }
    std::vector<std::pair<std::string, std::string>> edge_leaves;
    {
      ASSIGN_OR_RETURN(Statement stmt,
                       conn.Prepare("SELECT id, type, src, dst, attrs_json FROM edges "
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
        edge_leaves.emplace_back(edge.id, merkle::ToHex(merkle::EdgeLeafHash(edge)));
      }
    }
    ASSIGN_OR_RETURN(const LogFrontier nodes,
                     RewriteLog(conn, scope_id, MerkleLog::kNodes, node_leaves));
    ASSIGN_OR_RETURN(const LogFrontier edges,
                     RewriteLog(conn, scope_id, MerkleLog::kEdges, edge_leaves));
    RETURN_IF_ERROR(WriteLogs(conn, scope_id, nodes, edges));
  }
  return RecomputeScopeRoots(conn, {scope_ids.begin(), scope_ids.end()});
}

StatusOr<MerkleState> QueryMerkleState(Connection& conn, std::int64_t scope_id) {
  ASSIGN_OR_RETURN(std::optional<StoredLogs> logs, ReadLogs(conn, scope_id));
  if (!logs.has_value()) {
    return Status::NotFound("merkle state: scope " + std::to_string(scope_id) +
                            " has no merkle logs (unknown scope)");
  }
  MerkleState state;
  state.node_count = logs->nodes.size();
  state.node_root = merkle::ToHex(logs->nodes.Root());
  state.edge_count = logs->edges.size();
  state.edge_root = merkle::ToHex(logs->edges.Root());
  state.root = logs->root;
  return state;
}

StatusOr<std::vector<MerkleLeaf>> QueryMerkleLeaves(Connection& conn, std::int64_t scope_id,
                                                    MerkleLog log) {
  ASSIGN_OR_RETURN(Statement stmt,
                   conn.Prepare("SELECT idx, target_id, hash FROM merkle_leaves WHERE scope_id = "
                                "?1 AND log = ?2 ORDER BY idx",
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

}  // namespace engram::store::sqlite
