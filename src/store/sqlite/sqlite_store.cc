// SQLite implementation of store::Store and store::Transaction (see sqlite_store.h).
//
// Reads and writes share the row-mapping helpers at the top of this file; every SQL text is a
// constant, prepared once per connection and cached. Multi-statement writes run inside a SAVEPOINT
// so a failed call leaves the open transaction exactly as it was before the call.
#include "store/turn_analysis.h"
#include "store/sqlite/sqlite_store.h"

#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <bit>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <mutex>
#include <random>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "store/backend_common.h"
#include "store/journal.h"
#include "store/sqlite/connection.h"
#include "store/sqlite/integrity.h"
#include "store/sqlite/merkle_sqlite.h"
#include "store/sqlite/migrations.h"

namespace engram::store::sqlite {
namespace {

// ---------------------------------------------------------------------------------------------
// Row mapping.

constexpr std::string_view kScopeColumns =
    "scope_id, node_id, path, parent_scope_id, last_sequence, created_at";
constexpr std::string_view kNodeColumns =
    "row_id, id, kind, scope_id, content_json, text, role, speaker, session_id, sequence, "
    "event_time, metadata_json, status, valid_from, valid_to, ingested_at, updated_at, "
    "idempotency_key";
constexpr std::string_view kEdgeColumns =
    "row_id, id, type, src, dst, scope_id, attrs_json, status, valid_from, valid_to, ingested_at, "
    "updated_at";
constexpr std::string_view kJournalColumns = "seq, scope_id, op, target_id, target_row, at, detail";

std::string Sql(std::string_view head, std::string_view columns, std::string_view tail) {
  return std::string(head) + std::string(columns) + std::string(tail);
}

ScopeRecord ReadScope(const Statement& stmt) {
  ScopeRecord scope;
  scope.scope_id = stmt.ColumnInt(0);
  scope.node_id = stmt.ColumnText(1);
  scope.path = stmt.ColumnText(2);
  scope.parent_scope_id = stmt.ColumnIsNull(3) ? 0 : stmt.ColumnInt(3);
  scope.last_sequence = stmt.ColumnInt(4);
  scope.created_at = Timestamp{stmt.ColumnInt(5)};
  return scope;
}

// A stored enum name that does not parse means the file was damaged or written by something else.
template <typename T>
StatusOr<T> StoredName(StatusOr<T> parsed, std::string_view what, std::string_view id) {
  if (parsed.ok()) return parsed;
  return Status::Corruption("sqlite: " + std::string(what) + " of " + std::string(id) + ": " +
                            parsed.status().message());
}

// The node whose columns (kNodeColumns) start at column `first`.
StatusOr<NodeRecord> ReadNodeAt(const Statement& stmt, int first) {
  NodeRecord node;
  node.row = stmt.ColumnInt(first + 0);
  node.id = stmt.ColumnText(first + 1);
  ASSIGN_OR_RETURN(node.kind,
                   StoredName(ParseNodeKind(stmt.ColumnText(first + 2)), "kind", node.id));
  node.scope_id = stmt.ColumnInt(first + 3);
  node.content_json = stmt.ColumnText(first + 4);
  node.text = stmt.ColumnText(first + 5);
  ASSIGN_OR_RETURN(node.role, StoredName(ParseRole(stmt.ColumnText(first + 6)), "role", node.id));
  node.speaker = stmt.ColumnText(first + 7);
  node.session_id = stmt.ColumnText(first + 8);
  node.sequence = stmt.ColumnInt(first + 9);
  node.event_time = stmt.ColumnTime(first + 10);
  node.metadata_json = stmt.ColumnText(first + 11);
  ASSIGN_OR_RETURN(node.status,
                   StoredName(ParseNodeStatus(stmt.ColumnText(first + 12)), "status", node.id));
  node.valid_from = stmt.ColumnTime(first + 13);
  node.valid_to = stmt.ColumnTime(first + 14);
  node.ingested_at = Timestamp{stmt.ColumnInt(first + 15)};
  node.updated_at = Timestamp{stmt.ColumnInt(first + 16)};
  node.idempotency_key = stmt.ColumnText(first + 17);  // "" when NULL
  RETURN_IF_ERROR(RestoreContentJson(node, "sqlite"));
  return node;
}

StatusOr<NodeRecord> ReadNode(const Statement& stmt) { return ReadNodeAt(stmt, 0); }

EdgeRecord ReadEdge(const Statement& stmt) {
  EdgeRecord edge;
  edge.row = stmt.ColumnInt(0);
  edge.id = stmt.ColumnText(1);
  edge.type = stmt.ColumnText(2);
  edge.src = stmt.ColumnText(3);
  edge.dst = stmt.ColumnText(4);
  edge.scope_id = stmt.ColumnInt(5);
  edge.attrs_json = stmt.ColumnText(6);
  edge.status = stmt.ColumnText(7);
  edge.valid_from = stmt.ColumnTime(8);
  edge.valid_to = stmt.ColumnTime(9);
  edge.ingested_at = Timestamp{stmt.ColumnInt(10)};
  edge.updated_at = Timestamp{stmt.ColumnInt(11)};
  return edge;
}

StatusOr<JournalEntry> ReadJournalEntry(const Statement& stmt) {
  JournalEntry entry;
  entry.seq = stmt.ColumnInt(0);
  entry.scope_id = stmt.ColumnInt(1);
  ASSIGN_OR_RETURN(entry.op, ParseJournalOp(stmt.ColumnText(2)));
  entry.target_id = stmt.ColumnText(3);
  entry.target_row = stmt.ColumnInt(4);
  entry.at = Timestamp{stmt.ColumnInt(5)};
  entry.detail = stmt.ColumnText(6);
  return entry;
}

// Steps `stmt` to the end, mapping every row with `read` (which returns T or StatusOr<T>).
template <typename T, typename ReadFn>
StatusOr<std::vector<T>> CollectRows(Statement& stmt, ReadFn read) {
  std::vector<T> rows;
  while (true) {
    ASSIGN_OR_RETURN(const bool has_row, stmt.Step());
    if (!has_row) return rows;
    ASSIGN_OR_RETURN(T row, StatusOr<T>(read(stmt)));
    rows.push_back(std::move(row));
  }
}

// ---------------------------------------------------------------------------------------------
// Queries shared by Store (read connections) and Transaction (the writer connection).

StatusOr<std::optional<ScopeRecord>> QueryScopeByPath(Connection& conn, std::string_view path) {
  static const std::string kSql = Sql("SELECT ", kScopeColumns, " FROM scopes WHERE path = ?1");
  ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kSql, "find scope"));
  stmt.BindText(1, path);
  ASSIGN_OR_RETURN(const bool has_row, stmt.Step());
  if (!has_row) return std::optional<ScopeRecord>();
  return std::optional<ScopeRecord>(ReadScope(stmt));
}

StatusOr<std::optional<ScopeRecord>> QueryScopeById(Connection& conn, std::int64_t scope_id) {
  static const std::string kSql = Sql("SELECT ", kScopeColumns, " FROM scopes WHERE scope_id = ?1");
  ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kSql, "get scope"));
  stmt.BindInt(1, scope_id);
  ASSIGN_OR_RETURN(const bool has_row, stmt.Step());
  if (!has_row) return std::optional<ScopeRecord>();
  return std::optional<ScopeRecord>(ReadScope(stmt));
}

StatusOr<std::optional<NodeRecord>> QueryNode(Connection& conn, std::string_view id) {
  static const std::string kSql = Sql("SELECT ", kNodeColumns, " FROM nodes WHERE id = ?1");
  ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kSql, "get node"));
  stmt.BindText(1, id);
  ASSIGN_OR_RETURN(const bool has_row, stmt.Step());
  if (!has_row) return std::optional<NodeRecord>();
  ASSIGN_OR_RETURN(NodeRecord node, ReadNode(stmt));
  return std::optional<NodeRecord>(std::move(node));
}

StatusOr<NodeRecord> RequireNode(Connection& conn, std::string_view id) {
  ASSIGN_OR_RETURN(std::optional<NodeRecord> node, QueryNode(conn, id));
  if (!node.has_value()) {
    return Status::NotFound("node " + std::string(id.substr(0, 64)) + " does not exist");
  }
  return std::move(*node);
}

StatusOr<std::optional<EdgeRecord>> QueryEdge(Connection& conn, std::string_view id) {
  static const std::string kSql = Sql("SELECT ", kEdgeColumns, " FROM edges WHERE id = ?1");
  ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kSql, "get edge"));
  stmt.BindText(1, id);
  ASSIGN_OR_RETURN(const bool has_row, stmt.Step());
  if (!has_row) return std::optional<EdgeRecord>();
  return std::optional<EdgeRecord>(ReadEdge(stmt));
}

StatusOr<EdgeRecord> RequireEdge(Connection& conn, std::string_view id) {
  ASSIGN_OR_RETURN(std::optional<EdgeRecord> edge, QueryEdge(conn, id));
  if (!edge.has_value()) {
    return Status::NotFound("edge " + std::string(id.substr(0, 64)) + " does not exist");
  }
  return std::move(*edge);
}

StatusOr<std::vector<EdgeRecord>> QueryEdgesOf(Connection& conn, std::string_view node_id,
                                               EdgeDirection direction, std::string_view type) {
  // Separate texts with and without the type so the (src, type) / (dst, type) indexes are used
  // in full: a scope node can have millions of outgoing `contains` edges.
  static const std::string kOutgoing =
      Sql("SELECT ", kEdgeColumns, " FROM edges WHERE src = ?1 ORDER BY row_id");
  static const std::string kOutgoingTyped =
      Sql("SELECT ", kEdgeColumns, " FROM edges WHERE src = ?1 AND type = ?2 ORDER BY row_id");
  static const std::string kIncoming =
      Sql("SELECT ", kEdgeColumns, " FROM edges WHERE dst = ?1 ORDER BY row_id");
  static const std::string kIncomingTyped =
      Sql("SELECT ", kEdgeColumns, " FROM edges WHERE dst = ?1 AND type = ?2 ORDER BY row_id");
  static const std::string kBoth =
      Sql("SELECT ", kEdgeColumns, " FROM edges WHERE src = ?1 OR dst = ?1 ORDER BY row_id");
  static const std::string kBothTyped =
      Sql("SELECT ", kEdgeColumns,
          " FROM edges WHERE (src = ?1 AND type = ?2) OR (dst = ?1 AND type = ?2) "
          "ORDER BY row_id");
  const bool typed = !type.empty();
  const std::string* sql = typed ? &kBothTyped : &kBoth;
  if (direction == EdgeDirection::kOutgoing) sql = typed ? &kOutgoingTyped : &kOutgoing;
  if (direction == EdgeDirection::kIncoming) sql = typed ? &kIncomingTyped : &kIncoming;
  ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(*sql, "edges of node"));
  stmt.BindText(1, node_id);
  if (typed) stmt.BindText(2, type);
  return CollectRows<EdgeRecord>(stmt, ReadEdge);
}

// Nodes of one scope ordered by (sequence, row), filtered as NodeFilter says; shared by the store
// and its transactions.
StatusOr<std::vector<NodeRecord>> QueryListNodes(Connection& conn, std::int64_t scope_id,
                                                 const NodeFilter& filter) {
  static const std::string kSql =
      Sql("SELECT ", kNodeColumns,
          " FROM nodes WHERE scope_id = ?1 AND sequence > ?2 AND (?3 IS NULL OR kind = ?3) "
          "AND (?4 = 1 OR status = 'active') ORDER BY sequence, row_id LIMIT ?5");
  ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kSql, "list nodes"));
  stmt.BindInt(1, scope_id);
  stmt.BindInt(2, filter.after_sequence);
  if (filter.kind.has_value()) {
    stmt.BindText(3, NodeKindName(*filter.kind));
  } else {
    stmt.BindNull(3);
  }
  stmt.BindInt(4, filter.include_inactive ? 1 : 0);
  stmt.BindInt(5, filter.limit == 0 ? -1 : static_cast<std::int64_t>(filter.limit));
  return CollectRows<NodeRecord>(stmt, ReadNode);
}

StatusOr<std::int64_t> QueryInt(Connection& conn, std::string_view sql, std::string_view operation,
                                std::int64_t bind_value) {
  ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(sql, operation));
  if (bind_value != 0) stmt.BindInt(1, bind_value);
  ASSIGN_OR_RETURN(const bool has_row, stmt.Step());
  if (!has_row || stmt.ColumnIsNull(0)) return std::int64_t{0};
  return stmt.ColumnInt(0);
}

// The stored analyses of these turn rows, in the order given (TurnAnalysisRecord).
StatusOr<std::vector<TurnAnalysisRecord>> QueryTurnAnalyses(Connection& conn,
                                                             std::span<const std::int64_t> rows) {
  std::vector<TurnAnalysisRecord> records;
  for (const std::int64_t row : rows) {
    ASSIGN_OR_RETURN(Statement stmt,
                     conn.Prepare("SELECT format, analysis FROM turn_analysis WHERE turn_row = ?1",
                                  "get turn analyses"));
    stmt.BindInt(1, row);
    ASSIGN_OR_RETURN(const bool has_row, stmt.Step());
    if (!has_row) continue;
    records.push_back({.turn_row = row,
                       .format = static_cast<int>(stmt.ColumnInt(0)),
                       .bytes = stmt.ColumnText(1)});
  }
  return records;
}

// A blob column's bytes as text (vectors are decoded from it).
std::string_view BlobText(std::span<const std::byte> blob) {
  return std::string_view(reinterpret_cast<const char*>(blob.data()), blob.size());
}

StatusOr<std::optional<EmbedderRecord>> QueryEmbedder(Connection& conn) {
  ASSIGN_OR_RETURN(const std::optional<std::string> model_id,
                   conn.QueryText("SELECT value FROM meta WHERE key = 'embedder_model_id'",
                                  "read recorded embedder"));
  if (!model_id.has_value()) return std::optional<EmbedderRecord>();
  ASSIGN_OR_RETURN(const std::optional<std::string> dimension,
                   conn.QueryText("SELECT value FROM meta WHERE key = 'embedder_dimension'",
                                  "read recorded embedder"));
  return EmbedderFromMeta(model_id, dimension, "sqlite: " + conn.path());
}

Status AppendJournal(Connection& conn, std::int64_t scope_id, JournalOp op,
                     std::string_view target_id, std::int64_t target_row, Timestamp at,
                     std::string_view detail) {
  ASSIGN_OR_RETURN(Statement stmt,
                   conn.Prepare("INSERT INTO journal(scope_id, op, target_id, target_row, at, "
                                "detail) VALUES(?1, ?2, ?3, ?4, ?5, ?6)",
                                "append journal entry"));
  stmt.BindInt(1, scope_id);
  stmt.BindText(2, JournalOpName(op));
  stmt.BindText(3, target_id);
  stmt.BindInt(4, target_row);
  stmt.BindInt(5, at.micros);
  stmt.BindText(6, detail);
  return stmt.Run();
}

// Runs `fn` inside a SAVEPOINT: on error everything `fn` did is undone and the enclosing
// transaction continues as before. `fn` returns Status or StatusOr<T>.
// The savepoint statements are prepared once (Connection's cache) rather than parsed again for
// every inserted row.
Status RunCached(Connection& conn, std::string_view sql, std::string_view operation) {
  ASSIGN_OR_RETURN(Statement statement, conn.Prepare(sql, operation));
  return statement.Run();
}

template <typename Fn>
auto InSavepoint(Connection& conn, Fn&& fn) -> decltype(fn()) {
  RETURN_IF_ERROR(RunCached(conn, "SAVEPOINT engram_op", "savepoint"));
  auto result = fn();
  if (!result.ok()) {
    static_cast<void>(
        conn.Exec("ROLLBACK TO engram_op; RELEASE engram_op", "roll back failed operation"));
    return result;
  }
  RETURN_IF_ERROR(RunCached(conn, "RELEASE engram_op", "release savepoint"));
  return result;
}

// ---------------------------------------------------------------------------------------------
// Transaction.

// Invariant: while open_, the writer connection is inside BEGIN IMMEDIATE and lock_ holds the
// store's write mutex. After Commit() or a failed commit, open_ is false and the lock is released.
class SqliteTransaction final : public Transaction {
 public:
  // `vector_precision`: how PutVector stores a vector (SqliteOptions / PostgresOptions).
  SqliteTransaction(std::unique_lock<std::mutex> lock, Connection& conn,
                    VectorPrecision vector_precision)
      : lock_(std::move(lock)),
        conn_(conn),
        vector_precision_(vector_precision),
        merkle_tables_(conn) {}

  ~SqliteTransaction() override {
    if (open_) static_cast<void>(conn_.Exec("ROLLBACK", "roll back write transaction"));
  }

  StatusOr<std::optional<ScopeRecord>> FindScope(std::string_view path) override {
    RETURN_IF_ERROR(CheckOpen());
    return QueryScopeByPath(conn_, path);
  }

  StatusOr<ScopeRecord> CreateScope(std::string_view path, std::string_view node_id,
                                    std::int64_t parent_scope_id, Timestamp created_at) override {
    RETURN_IF_ERROR(CheckOpen());
    if (path.empty()) return Status::InvalidArgument("create scope: empty path");
    if (node_id.empty()) return Status::InvalidArgument("create scope: empty node id");
    std::string content_json;
    try {
      content_json = nlohmann::json{{"path", std::string(path)}}.dump();
    } catch (const nlohmann::json::exception& error) {
      return Status::InvalidArgument("create scope: path is not valid UTF-8: " +
                                     std::string(error.what()));
    }
    return InSavepoint(conn_, [&]() -> StatusOr<ScopeRecord> {
      ASSIGN_OR_RETURN(const std::optional<ScopeRecord> existing, QueryScopeByPath(conn_, path));
      if (existing.has_value()) {
        return Status::AlreadyExists("scope " + std::string(path) + " already exists");
      }
      if (parent_scope_id != 0) {
        ASSIGN_OR_RETURN(const std::optional<ScopeRecord> parent,
                         QueryScopeById(conn_, parent_scope_id));
        if (!parent.has_value()) {
          return Status::NotFound("create scope " + std::string(path) + ": parent scope " +
                                  std::to_string(parent_scope_id) + " does not exist");
        }
      }
      ASSIGN_OR_RETURN(Statement insert,
                       conn_.Prepare("INSERT INTO scopes(node_id, path, parent_scope_id, "
                                     "last_sequence, created_at) VALUES(?1, ?2, ?3, 0, ?4)",
                                     "create scope"));
      insert.BindText(1, node_id);
      insert.BindText(2, path);
      if (parent_scope_id != 0) {
        insert.BindInt(3, parent_scope_id);
      } else {
        insert.BindNull(3);
      }
      insert.BindInt(4, created_at.micros);
      RETURN_IF_ERROR(insert.Run());
      ScopeRecord scope;
      scope.scope_id = conn_.LastInsertRowId();
      scope.node_id = std::string(node_id);
      scope.path = std::string(path);
      scope.parent_scope_id = parent_scope_id;
      scope.created_at = created_at;

      NodeRecord node;
      node.id = scope.node_id;
      node.kind = NodeKind::kScope;
      node.scope_id = scope.scope_id;
      node.content_json = content_json;
      node.text = scope.path;
      node.ingested_at = created_at;
      node.updated_at = created_at;
      ASSIGN_OR_RETURN(const std::int64_t node_row, InsertNodeRow(node));
      static_cast<void>(node_row);
      RETURN_IF_ERROR(AppendJournal(conn_, scope.scope_id, JournalOp::kScopeCreated, node_id, 0,
                                    created_at, "scope created"));
      merkle_.AppendNode(node);
      return scope;
    });
  }

  StatusOr<std::int64_t> NextSequence(std::int64_t scope_id) override {
    RETURN_IF_ERROR(CheckOpen());
    ASSIGN_OR_RETURN(Statement stmt,
                     conn_.Prepare("UPDATE scopes SET last_sequence = last_sequence + 1 "
                                   "WHERE scope_id = ?1 RETURNING last_sequence",
                                   "next sequence"));
    stmt.BindInt(1, scope_id);
    ASSIGN_OR_RETURN(const bool has_row, stmt.Step());
    if (!has_row) {
      return Status::NotFound("next sequence: scope " + std::to_string(scope_id) +
                              " does not exist");
    }
    const std::int64_t sequence = stmt.ColumnInt(0);
    RETURN_IF_ERROR(stmt.Run());
    return sequence;
  }

  StatusOr<std::int64_t> InsertNode(const NodeRecord& record) override {
    RETURN_IF_ERROR(CheckOpen());
    if (record.id.empty()) return Status::InvalidArgument("insert node: empty id");
    return InSavepoint(conn_, [&]() -> StatusOr<std::int64_t> {
      ASSIGN_OR_RETURN(const std::optional<NodeRecord> existing, QueryNode(conn_, record.id));
      if (existing.has_value()) {
        return Status::AlreadyExists("node " + record.id + " already exists");
      }
      ASSIGN_OR_RETURN(const std::optional<ScopeRecord> scope,
                       QueryScopeById(conn_, record.scope_id));
      if (!scope.has_value()) {
        return Status::NotFound("insert node " + record.id + ": scope " +
                                std::to_string(record.scope_id) + " does not exist");
      }
      ASSIGN_OR_RETURN(const std::int64_t row, InsertNodeRow(record));
      RETURN_IF_ERROR(AppendJournal(conn_, record.scope_id, JournalOp::kNodeInserted, record.id,
                                    row, record.ingested_at,
                                    "kind=" + std::string(NodeKindName(record.kind)) + " " +
                                        StateDetail(NodeStatusName(record.status),
                                                    record.valid_to, "")));
      merkle_.AppendNode(record);
      return row;
    });
  }

  StatusOr<NodeRecord> GetNode(std::string_view id) override {
    RETURN_IF_ERROR(CheckOpen());
    return RequireNode(conn_, id);
  }

  StatusOr<std::optional<NodeRecord>> FindTurnByKey(std::int64_t scope_id,
                                                    std::string_view key) override {
    RETURN_IF_ERROR(CheckOpen());
    if (key.empty()) return Status::InvalidArgument("find turn by key: empty key");
    static const std::string kSql =
        Sql("SELECT ", kNodeColumns, " FROM nodes WHERE scope_id = ?1 AND idempotency_key = ?2");
    ASSIGN_OR_RETURN(Statement stmt, conn_.Prepare(kSql, "find turn by idempotency key"));
    stmt.BindInt(1, scope_id);
    stmt.BindText(2, key);
    ASSIGN_OR_RETURN(const bool has_row, stmt.Step());
    if (!has_row) return std::optional<NodeRecord>();
    ASSIGN_OR_RETURN(NodeRecord node, ReadNode(stmt));
    return std::optional<NodeRecord>(std::move(node));
  }

  Status UpdateNodeState(std::string_view id, NodeStatus status, std::optional<Timestamp> valid_to,
                         Timestamp updated_at, std::string_view journal_detail) override {
    RETURN_IF_ERROR(CheckOpen());
    return InSavepoint(conn_, [&]() -> Status {
      ASSIGN_OR_RETURN(const NodeRecord node, RequireNode(conn_, id));
      ASSIGN_OR_RETURN(Statement stmt, conn_.Prepare("UPDATE nodes SET status = ?2, valid_to = ?3, "
                                                     "updated_at = ?4 WHERE id = ?1",
                                                     "update node state"));
      stmt.BindText(1, id);
      stmt.BindText(2, NodeStatusName(status));
      stmt.BindTime(3, valid_to);
      stmt.BindInt(4, updated_at.micros);
      RETURN_IF_ERROR(stmt.Run());
      return AppendJournal(conn_, node.scope_id, JournalOp::kNodeUpdated, node.id, node.row,
                           updated_at,
                           StateDetail(NodeStatusName(status), valid_to, journal_detail));
    });
  }

  StatusOr<std::int64_t> InsertEdge(const EdgeWriteKey& /*key*/,
                                    const EdgeRecord& record) override {
    RETURN_IF_ERROR(CheckOpen());
    RETURN_IF_ERROR(CheckNewEdge(record));
    return InSavepoint(conn_, [&]() -> StatusOr<std::int64_t> {
      ASSIGN_OR_RETURN(const std::optional<EdgeRecord> existing, QueryEdge(conn_, record.id));
      if (existing.has_value()) {
        return Status::AlreadyExists("edge " + record.id + " already exists");
      }
      const std::pair<std::string_view, std::string_view> endpoints[] = {{"src", record.src},
                                                                         {"dst", record.dst}};
      for (const auto& [role, node_id] : endpoints) {
        ASSIGN_OR_RETURN(const std::optional<NodeRecord> node, QueryNode(conn_, node_id));
        if (!node.has_value()) {
          return Status::NotFound("insert " + record.type + " edge: " + std::string(role) +
                                  " node " + std::string(node_id.substr(0, 64)) +
                                  " does not exist");
        }
      }
      ASSIGN_OR_RETURN(const std::optional<ScopeRecord> scope,
                       QueryScopeById(conn_, record.scope_id));
      if (!scope.has_value()) {
        return Status::NotFound("insert " + record.type + " edge: scope " +
                                std::to_string(record.scope_id) + " does not exist");
      }
      ASSIGN_OR_RETURN(
          Statement stmt,
          conn_.Prepare("INSERT INTO edges(id, type, src, dst, scope_id, attrs_json, status, "
                        "valid_from, valid_to, ingested_at, updated_at) "
                        "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
                        "insert edge"));
      stmt.BindText(1, record.id);
      stmt.BindText(2, record.type);
      stmt.BindText(3, record.src);
      stmt.BindText(4, record.dst);
      stmt.BindInt(5, record.scope_id);
      stmt.BindText(6, record.attrs_json);
      stmt.BindText(7, record.status);
      stmt.BindTime(8, record.valid_from);
      stmt.BindTime(9, record.valid_to);
      stmt.BindInt(10, record.ingested_at.micros);
      stmt.BindInt(11, record.updated_at.micros);
      RETURN_IF_ERROR(stmt.Run());
      const std::int64_t row = conn_.LastInsertRowId();
      RETURN_IF_ERROR(AppendJournal(conn_, record.scope_id, JournalOp::kEdgeInserted, record.id,
                                    row, record.ingested_at,
                                    "type=" + record.type + " status=" + record.status));
      merkle_.AppendEdge(record);
      return row;
    });
  }

  StatusOr<EdgeRecord> GetEdge(std::string_view id) override {
    RETURN_IF_ERROR(CheckOpen());
    return RequireEdge(conn_, id);
  }

  Status UpdateEdgeState(const EdgeWriteKey& /*key*/, std::string_view id, std::string_view status,
                         std::optional<Timestamp> valid_to, Timestamp updated_at) override {
    RETURN_IF_ERROR(CheckOpen());
    RETURN_IF_ERROR(CheckEdgeStatus(status));
    return InSavepoint(conn_, [&]() -> Status {
      ASSIGN_OR_RETURN(const EdgeRecord edge, RequireEdge(conn_, id));
      ASSIGN_OR_RETURN(Statement stmt, conn_.Prepare("UPDATE edges SET status = ?2, valid_to = ?3, "
                                                     "updated_at = ?4 WHERE id = ?1",
                                                     "update edge state"));
      stmt.BindText(1, id);
      stmt.BindText(2, status);
      stmt.BindTime(3, valid_to);
      stmt.BindInt(4, updated_at.micros);
      RETURN_IF_ERROR(stmt.Run());
      return AppendJournal(conn_, edge.scope_id, JournalOp::kEdgeUpdated, edge.id, edge.row,
                           updated_at, StateDetail(status, valid_to, "type=" + edge.type));
    });
  }

  StatusOr<std::vector<EdgeRecord>> EdgesOf(std::string_view node_id, EdgeDirection direction,
                                            std::string_view type) override {
    RETURN_IF_ERROR(CheckOpen());
    return QueryEdgesOf(conn_, node_id, direction, type);
  }

  StatusOr<std::vector<NodeRecord>> ListNodes(std::int64_t scope_id,
                                              const NodeFilter& filter) override {
    RETURN_IF_ERROR(CheckOpen());
    return QueryListNodes(conn_, scope_id, filter);
  }

  Status SetEmbedder(const EmbedderRecord& embedder, Timestamp at) override {
    RETURN_IF_ERROR(CheckOpen());
    RETURN_IF_ERROR(CheckEmbedderRecord(embedder));
    return InSavepoint(conn_, [&]() -> Status {
      ASSIGN_OR_RETURN(const std::optional<EmbedderRecord> previous, QueryEmbedder(conn_));
      if (previous.has_value() && *previous != embedder) {
        RETURN_IF_ERROR(conn_.Exec("DELETE FROM vectors", "set embedder: drop old vectors"));
      }
      // Recording an embedder (again: reembed) precedes new vectors: graphs over the old ones
      // would describe vectors that are gone or replaced.
      RETURN_IF_ERROR(conn_.Exec("DELETE FROM projection_snapshots",
                                 "set embedder: drop projection snapshots"));
      ASSIGN_OR_RETURN(Statement stmt,
                       conn_.Prepare("INSERT INTO meta(key, value) VALUES(?1, ?2) "
                                     "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                                     "set embedder"));
      stmt.BindText(1, "embedder_model_id");
      stmt.BindText(2, embedder.model_id);
      RETURN_IF_ERROR(stmt.Run());
      ASSIGN_OR_RETURN(Statement dim,
                       conn_.Prepare("INSERT INTO meta(key, value) VALUES(?1, ?2) "
                                     "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                                     "set embedder"));
      dim.BindText(1, "embedder_dimension");
      dim.BindText(2, std::to_string(embedder.dimension));
      RETURN_IF_ERROR(dim.Run());
      return AppendJournal(conn_, 0, JournalOp::kEmbedderSet, embedder.model_id, 0, at,
                           "dimension=" + std::to_string(embedder.dimension));
    });
  }

  StatusOr<std::optional<EmbedderRecord>> GetEmbedder() override {
    RETURN_IF_ERROR(CheckOpen());
    return QueryEmbedder(conn_);
  }

  Status PutVector(std::string_view node_id, std::string_view model_id,
                   std::span<const float> values) override {
    RETURN_IF_ERROR(CheckOpen());
    ASSIGN_OR_RETURN(const std::optional<EmbedderRecord> embedder, QueryEmbedder(conn_));
    RETURN_IF_ERROR(CheckVector(embedder, model_id, values));
    ASSIGN_OR_RETURN(const NodeRecord node, RequireNode(conn_, node_id));
    ASSIGN_OR_RETURN(Statement stmt,
                     conn_.Prepare("INSERT INTO vectors(node_row, model_id, dimension, vector) "
                                   "VALUES(?1, ?2, ?3, ?4) ON CONFLICT(node_row) DO UPDATE SET "
                                   "model_id = excluded.model_id, dimension = excluded.dimension, "
                                   "vector = excluded.vector",
                                   "put vector"));
    stmt.BindInt(1, node.row);
    stmt.BindText(2, model_id);
    stmt.BindInt(3, static_cast<std::int64_t>(values.size()));
    const std::string bytes = EncodeVector(values, vector_precision_);
    stmt.BindBlob(4, std::as_bytes(std::span<const char>(bytes)));
    RETURN_IF_ERROR(stmt.Run());
    return AppendJournal(conn_, node.scope_id, JournalOp::kVectorStored, node.id, node.row,
                         node.ingested_at, "model=" + std::string(model_id));
  }

  StatusOr<std::optional<std::string>> GetMeta(std::string_view key) override {
    RETURN_IF_ERROR(CheckOpen());
    RETURN_IF_ERROR(CheckEngineMetaKey(key));
    ASSIGN_OR_RETURN(Statement stmt,
                     conn_.Prepare("SELECT value FROM meta WHERE key = ?1", "read meta"));
    stmt.BindText(1, key);
    ASSIGN_OR_RETURN(const bool has_row, stmt.Step());
    if (!has_row) return std::optional<std::string>();
    return std::optional<std::string>(stmt.ColumnText(0));
  }

  Status SetMeta(std::string_view key, std::string_view value) override {
    RETURN_IF_ERROR(CheckOpen());
    RETURN_IF_ERROR(CheckEngineMetaKey(key));
    ASSIGN_OR_RETURN(Statement stmt,
                     conn_.Prepare("INSERT INTO meta(key, value) VALUES(?1, ?2) "
                                   "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                                   "write meta"));
    stmt.BindText(1, key);
    stmt.BindText(2, value);
    return stmt.Run();
  }

  Status DeleteMeta(std::string_view key) override {
    RETURN_IF_ERROR(CheckOpen());
    RETURN_IF_ERROR(CheckEngineMetaKey(key));
    ASSIGN_OR_RETURN(Statement stmt,
                     conn_.Prepare("DELETE FROM meta WHERE key = ?1", "delete meta"));
    stmt.BindText(1, key);
    return stmt.Run();
  }

  Status PutTurnAnalysis(const TurnAnalysisRecord& record) override {
    RETURN_IF_ERROR(CheckOpen());
    RETURN_IF_ERROR(CheckTurnAnalysis(record));
    ASSIGN_OR_RETURN(Statement kind,
                     conn_.Prepare("SELECT kind FROM nodes WHERE row_id = ?1", "put turn analysis"));
    kind.BindInt(1, record.turn_row);
    ASSIGN_OR_RETURN(const bool has_row, kind.Step());
    if (!has_row || kind.ColumnText(0) != NodeKindName(NodeKind::kTurn)) {
      return Status::NotFound("put turn analysis: node row " + std::to_string(record.turn_row) +
                              " is not a turn");
    }
    ASSIGN_OR_RETURN(Statement stmt,
                     conn_.Prepare("INSERT INTO turn_analysis(turn_row, format, analysis) "
                                   "VALUES(?1, ?2, ?3) ON CONFLICT(turn_row) DO UPDATE SET "
                                   "format = excluded.format, analysis = excluded.analysis",
                                   "put turn analysis"));
    stmt.BindInt(1, record.turn_row);
    stmt.BindInt(2, record.format);
    if (record.format == kTurnAnalysisCompactFormat) {
      stmt.BindBlob(3, std::as_bytes(std::span<const char>(record.bytes)));  // bytes, not text
    } else {
      stmt.BindText(3, record.bytes);
    }
    return stmt.Run();
  }

  StatusOr<std::vector<TurnAnalysisRecord>> GetTurnAnalyses(
      std::span<const std::int64_t> turn_rows) override {
    RETURN_IF_ERROR(CheckOpen());
    return QueryTurnAnalyses(conn_, turn_rows);
  }

  Status PutProjectionSnapshot(const ProjectionSnapshot& snapshot) override {
    RETURN_IF_ERROR(CheckOpen());
    RETURN_IF_ERROR(CheckProjectionSnapshot(snapshot));
    ASSIGN_OR_RETURN(const std::optional<ScopeRecord> scope,
                     QueryScopeById(conn_, snapshot.scope_id));
    if (!scope.has_value()) {
      return Status::NotFound("put projection snapshot: scope " +
                              std::to_string(snapshot.scope_id) + " does not exist");
    }
    ASSIGN_OR_RETURN(
        Statement stmt,
        conn_.Prepare("INSERT INTO projection_snapshots(scope_id, projection, key, journal_seq, "
                      "item_count, data) VALUES(?1, ?2, ?3, ?4, ?5, ?6) "
                      "ON CONFLICT(scope_id, projection) DO UPDATE SET key = excluded.key, "
                      "journal_seq = excluded.journal_seq, item_count = excluded.item_count, "
                      "data = excluded.data",
                      "put projection snapshot"));
    stmt.BindInt(1, snapshot.scope_id);
    stmt.BindText(2, snapshot.projection);
    stmt.BindText(3, snapshot.key);
    stmt.BindInt(4, snapshot.journal_seq);
    stmt.BindInt(5, snapshot.item_count);
    stmt.BindBlob(6, std::as_bytes(std::span<const char>(snapshot.data)));
    return stmt.Run();
  }

  StatusOr<MerkleState> GetMerkleState(std::int64_t scope_id) override {
    RETURN_IF_ERROR(CheckOpen());
    RETURN_IF_ERROR(merkle_.Flush(merkle_tables_));
    return merkle::StateOf(merkle_tables_, scope_id);
  }

  Status AdvanceSequence(std::int64_t scope_id, std::int64_t last_sequence) override {
    RETURN_IF_ERROR(CheckOpen());
    ASSIGN_OR_RETURN(const std::optional<ScopeRecord> scope, QueryScopeById(conn_, scope_id));
    if (!scope.has_value()) {
      return Status::NotFound("advance sequence: scope " + std::to_string(scope_id) +
                              " does not exist");
    }
    ASSIGN_OR_RETURN(Statement stmt,
                     conn_.Prepare("UPDATE scopes SET last_sequence = max(last_sequence, ?2) "
                                   "WHERE scope_id = ?1",
                                   "advance sequence"));
    stmt.BindInt(1, scope_id);
    stmt.BindInt(2, last_sequence);
    return stmt.Run();
  }

  Status Commit() override {
    RETURN_IF_ERROR(CheckOpen());
    open_ = false;
    Status status = merkle_.Flush(merkle_tables_);
    if (status.ok()) status = conn_.Exec("COMMIT", "commit write transaction");
    if (!status.ok()) {
      static_cast<void>(conn_.Exec("ROLLBACK", "roll back after failed commit"));
    }
    lock_.unlock();
    return status;
  }

 private:
  Status CheckOpen() const {
    if (!open_) {
      return Status::FailedPrecondition(
          "store transaction is no longer open (it was committed or its commit failed)");
    }
    return Status::Ok();
  }

  StatusOr<std::int64_t> InsertNodeRow(const NodeRecord& record) {
    ASSIGN_OR_RETURN(
        Statement stmt,
        conn_.Prepare("INSERT INTO nodes(id, kind, scope_id, content_json, text, role, speaker, "
                      "session_id, sequence, event_time, metadata_json, status, valid_from, "
                      "valid_to, ingested_at, updated_at, idempotency_key) "
                      "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, "
                      "?16, ?17)",
                      "insert node"));
    stmt.BindText(1, record.id);
    stmt.BindText(2, NodeKindName(record.kind));
    stmt.BindInt(3, record.scope_id);
    stmt.BindText(4, StoredContentJson(record));
    stmt.BindText(5, record.text);
    stmt.BindText(6, RoleName(record.role));
    stmt.BindText(7, record.speaker);
    stmt.BindText(8, record.session_id);
    stmt.BindInt(9, record.sequence);
    stmt.BindTime(10, record.event_time);
    stmt.BindText(11, record.metadata_json);
    stmt.BindText(12, NodeStatusName(record.status));
    stmt.BindTime(13, record.valid_from);
    stmt.BindTime(14, record.valid_to);
    stmt.BindInt(15, record.ingested_at.micros);
    stmt.BindInt(16, record.updated_at.micros);
    if (record.idempotency_key.empty()) {
      stmt.BindNull(17);
    } else {
      stmt.BindText(17, record.idempotency_key);
    }
    RETURN_IF_ERROR(stmt.Run());
    return conn_.LastInsertRowId();
  }

  std::unique_lock<std::mutex> lock_;
  Connection& conn_;
  const VectorPrecision vector_precision_;
  MerkleTables merkle_tables_;
  merkle::Writer merkle_;  // the leaves appended, written by Flush before COMMIT
  bool open_ = true;
};

// How many busy timeouts in a row BeginImmediate waits while other writers keep committing.
constexpr int kMaxBusyRounds = 24;

// PRAGMA data_version: changes when another connection commits.
StatusOr<std::int64_t> DataVersion(Connection& conn) {
  ASSIGN_OR_RETURN(const std::optional<std::string> version,
                   conn.QueryText("PRAGMA data_version", "read data version"));
  return version.has_value() ? std::stoll(*version) : 0;
}

// BEGIN IMMEDIATE on `conn` (outside a transaction), waiting for other processes' writers.
// SQLite's busy handler sleeps and polls, so a writer that commits and begins again at once
// takes the lock ahead of one asleep in the handler: with three processes deriving chunk after
// chunk, one could wait out its whole busy timeout while the others took turns, and fail with
// "database is locked" although the store was never stuck. So a busy timeout that ran out while
// another writer committed (data_version moved) is waited again, up to kMaxBusyRounds times; only
// a whole busy timeout without any commit by others (a writer holding the lock that long) is
// kUnavailable.
Status BeginImmediate(Connection& conn, std::string_view operation) {
  std::optional<std::int64_t> last_version;
  for (int round = 0;; ++round) {
    Status begun = conn.Exec("BEGIN IMMEDIATE", operation);
    if (begun.code() != StatusCode::kUnavailable ||
        (sqlite3_extended_errcode(conn.db()) & 0xFF) != SQLITE_BUSY || round == kMaxBusyRounds) {
      return begun;
    }
    ASSIGN_OR_RETURN(const std::int64_t version, DataVersion(conn));
    if (last_version.has_value() && version == *last_version) return begun;
    last_version = version;
  }
}

// ---------------------------------------------------------------------------------------------
// Store.

class SqliteStore final : public Store {
 public:
  // A writable store: `writer` is open read-write; readers open `path`.
  SqliteStore(std::string path, SqliteOptions options, std::unique_ptr<Connection> writer)
      : path_(std::move(path)), options_(options), writer_(std::move(writer)) {
    writer_->set_damage_record(damage_);
  }
  // A read-only store: no writer; readers open `reader_uri`, and every write is refused naming
  // `read_only_reason`.
  SqliteStore(std::string path, SqliteOptions options, std::string reader_uri,
              std::string read_only_reason)
      : path_(std::move(path)),
        options_(options),
        reader_uri_(std::move(reader_uri)),
        read_only_reason_(std::move(read_only_reason)) {}

  std::string_view backend() const override { return "sqlite"; }

  StatusOr<std::unique_ptr<Transaction>> BeginWrite() override {
    if (writer_ == nullptr) return ReadOnlyError();
    RETURN_IF_ERROR(RefuseIfDamaged());
    std::unique_lock<std::mutex> lock(write_mutex_);
    RETURN_IF_ERROR(BeginImmediate(*writer_, "begin write transaction"));
    return std::unique_ptr<Transaction>(
        std::make_unique<SqliteTransaction>(std::move(lock), *writer_,
                                           options_.vector_precision));
  }

  StatusOr<std::optional<ScopeRecord>> FindScope(std::string_view path) override {
    return WithReader([&](Connection& conn) { return QueryScopeByPath(conn, path); });
  }

  StatusOr<std::optional<ScopeRecord>> GetScope(std::int64_t scope_id) override {
    return WithReader([&](Connection& conn) { return QueryScopeById(conn, scope_id); });
  }

  StatusOr<std::vector<ScopeRecord>> ListScopes() override {
    return WithReader([&](Connection& conn) -> StatusOr<std::vector<ScopeRecord>> {
      static const std::string kSql = Sql("SELECT ", kScopeColumns, " FROM scopes ORDER BY path");
      ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kSql, "list scopes"));
      return CollectRows<ScopeRecord>(stmt, ReadScope);
    });
  }

  StatusOr<std::vector<ScopeRecord>> ScopeTree(std::int64_t scope_id) override {
    return WithReader([&](Connection& conn) -> StatusOr<std::vector<ScopeRecord>> {
      static const std::string kSql =
          Sql("WITH RECURSIVE tree(id) AS (SELECT scope_id FROM scopes WHERE scope_id = ?1 "
              "UNION SELECT s.scope_id FROM scopes s JOIN tree ON s.parent_scope_id = tree.id) "
              "SELECT ",
              kScopeColumns, " FROM scopes WHERE scope_id IN tree ORDER BY scope_id");
      ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kSql, "scope tree"));
      stmt.BindInt(1, scope_id);
      ASSIGN_OR_RETURN(std::vector<ScopeRecord> scopes, CollectRows<ScopeRecord>(stmt, ReadScope));
      if (scopes.empty()) {
        return Status::NotFound("scope tree: scope " + std::to_string(scope_id) +
                                " does not exist");
      }
      return scopes;
    });
  }

  StatusOr<NodeRecord> GetNode(std::string_view id) override {
    return WithReader([&](Connection& conn) { return RequireNode(conn, id); });
  }

  StatusOr<std::vector<NodeRecord>> GetNodesByRow(std::span<const std::int64_t> rows) override {
    return WithReader([&](Connection& conn) -> StatusOr<std::vector<NodeRecord>> {
      // One statement for all rows: json_each walks the array and each row is a rowid seek.
      static const std::string kSql =
          Sql("SELECT wanted.key, n.* FROM json_each(?1) AS wanted JOIN (SELECT ", kNodeColumns,
              " FROM nodes) AS n ON n.row_id = wanted.value");
      std::string array = "[";
      for (const std::int64_t row : rows) {
        if (array.size() > 1) array += ',';
        array += std::to_string(row);
      }
      array += ']';
      ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kSql, "get nodes by row"));
      stmt.BindText(1, array);
      std::vector<std::optional<NodeRecord>> found(rows.size());
      while (true) {
        ASSIGN_OR_RETURN(const bool has_row, stmt.Step());
        if (!has_row) break;
        const auto at = static_cast<std::size_t>(stmt.ColumnInt(0));
        ASSIGN_OR_RETURN(NodeRecord node, ReadNodeAt(stmt, 1));
        if (at < found.size()) found[at] = std::move(node);
      }
      std::vector<NodeRecord> nodes;
      nodes.reserve(rows.size());
      for (std::optional<NodeRecord>& node : found) {
        if (node.has_value()) nodes.push_back(std::move(*node));
      }
      return nodes;
    });
  }

  StatusOr<std::vector<NodeRecord>> ListNodes(std::int64_t scope_id,
                                              const NodeFilter& filter) override {
    return WithReader([&](Connection& conn) { return QueryListNodes(conn, scope_id, filter); });
  }

  Status ScanNodes(std::int64_t scope_id, std::optional<NodeKind> kind,
                   const std::function<bool(const NodeRecord&)>& visit) override {
    return WithReader([&](Connection& conn) -> Status {
      // The scope's rows come from the covering index on (scope_id, sequence), sorted as row
      // ids alone; a plain `WHERE scope_id = ?1 ORDER BY row_id` sorts the whole rows (texts
      // included) in a temporary B-tree instead: at 100,000 turns most of the scan's cost.
      static const std::string kSql =
          Sql("SELECT ", kNodeColumns,
              " FROM nodes WHERE row_id IN (SELECT row_id FROM nodes WHERE scope_id = ?1) "
              "AND (?2 IS NULL OR kind = ?2) ORDER BY row_id");
      ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kSql, "scan nodes"));
      stmt.BindInt(1, scope_id);
      if (kind.has_value()) {
        stmt.BindText(2, NodeKindName(*kind));
      } else {
        stmt.BindNull(2);
      }
      while (true) {
        ASSIGN_OR_RETURN(const bool has_row, stmt.Step());
        if (!has_row) return Status::Ok();
        ASSIGN_OR_RETURN(const NodeRecord node, ReadNode(stmt));
        if (!visit(node)) return Status::Ok();
      }
    });
  }

  StatusOr<std::int64_t> CountNodes(std::int64_t scope_id) override {
    return WithReader([&](Connection& conn) {
      return QueryInt(conn, "SELECT count(*) FROM nodes WHERE scope_id = ?1", "count nodes",
                      scope_id);
    });
  }

  StatusOr<EdgeRecord> GetEdge(std::string_view id) override {
    return WithReader([&](Connection& conn) { return RequireEdge(conn, id); });
  }

  StatusOr<std::vector<EdgeRecord>> EdgesOf(std::string_view node_id, EdgeDirection direction,
                                            std::string_view type) override {
    return WithReader(
        [&](Connection& conn) { return QueryEdgesOf(conn, node_id, direction, type); });
  }

  StatusOr<std::vector<EdgeRecord>> EdgesInScope(std::int64_t scope_id,
                                                 std::string_view type) override {
    return WithReader([&](Connection& conn) -> StatusOr<std::vector<EdgeRecord>> {
      static const std::string kAllTypes =
          Sql("SELECT ", kEdgeColumns,
              " FROM edges WHERE row_id IN (SELECT e.row_id FROM nodes n JOIN edges e ON e.src = "
              "n.id WHERE n.scope_id = ?1 UNION SELECT e.row_id FROM nodes n JOIN edges e ON "
              "e.dst = n.id WHERE n.scope_id = ?1) ORDER BY row_id");
      // With a type, each node's edges of that type are sought in the (src, type) and (dst, type)
      // indexes, instead of visiting every edge of the node (the scope node's `contains` edge to
      // each of its turns among them) and filtering.
      static const std::string kOneType =
          Sql("SELECT ", kEdgeColumns,
              " FROM edges WHERE row_id IN (SELECT e.row_id FROM nodes n JOIN edges e ON e.src = "
              "n.id AND e.type = ?2 WHERE n.scope_id = ?1 UNION SELECT e.row_id FROM nodes n JOIN "
              "edges e ON e.dst = n.id AND e.type = ?2 WHERE n.scope_id = ?1) ORDER BY row_id");
      ASSIGN_OR_RETURN(Statement stmt,
                       conn.Prepare(type.empty() ? kAllTypes : kOneType, "edges in scope"));
      stmt.BindInt(1, scope_id);
      if (!type.empty()) stmt.BindText(2, type);
      return CollectRows<EdgeRecord>(stmt, ReadEdge);
    });
  }

  Status ScanEdges(std::int64_t scope_id,
                   const std::function<bool(const EdgeRecord&)>& visit) override {
    return WithReader([&](Connection& conn) -> Status {
      static const std::string kSql =
          Sql("SELECT ", kEdgeColumns, " FROM edges WHERE scope_id = ?1 ORDER BY row_id");
      ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kSql, "scan edges"));
      stmt.BindInt(1, scope_id);
      while (true) {
        ASSIGN_OR_RETURN(const bool has_row, stmt.Step());
        if (!has_row) return Status::Ok();
        if (!visit(ReadEdge(stmt))) return Status::Ok();
      }
    });
  }

  StatusOr<MerkleState> GetMerkleState(std::int64_t scope_id) override {
    return WithReader([&](Connection& conn) {
      MerkleTables tables(conn);
      return merkle::StateOf(tables, scope_id);
    });
  }

  StatusOr<std::vector<MerkleLeaf>> GetMerkleLeaves(std::int64_t scope_id,
                                                    MerkleLog log) override {
    return WithReader([&](Connection& conn) { return MerkleTables(conn).Leaves(scope_id, log); });
  }

  StatusOr<std::vector<JournalEntry>> ReadJournal(std::int64_t after_seq,
                                                  std::size_t limit) override {
    return WithReader([&](Connection& conn) -> StatusOr<std::vector<JournalEntry>> {
      static const std::string kSql =
          Sql("SELECT ", kJournalColumns, " FROM journal WHERE seq > ?1 ORDER BY seq LIMIT ?2");
      ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kSql, "read journal"));
      stmt.BindInt(1, after_seq);
      stmt.BindInt(2, limit == 0 ? -1 : static_cast<std::int64_t>(limit));
      return CollectRows<JournalEntry>(stmt, ReadJournalEntry);
    });
  }

  StatusOr<std::vector<JournalEntry>> JournalFor(std::string_view target_id) override {
    return WithReader([&](Connection& conn) -> StatusOr<std::vector<JournalEntry>> {
      static const std::string kSql =
          Sql("SELECT ", kJournalColumns, " FROM journal WHERE target_id = ?1 ORDER BY seq");
      ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kSql, "journal for target"));
      stmt.BindText(1, target_id);
      return CollectRows<JournalEntry>(stmt, ReadJournalEntry);
    });
  }

  StatusOr<std::int64_t> LastJournalSeq() override {
    return WithReader([&](Connection& conn) {
      return QueryInt(conn, "SELECT max(seq) FROM journal", "last journal seq", 0);
    });
  }

  // SQLite has no notifications: the journal's last seq is read every 100 ms (one indexed
  // lookup on a pooled read connection).
  StatusOr<std::int64_t> WaitForJournal(std::int64_t after_seq, std::chrono::milliseconds timeout,
                                        std::stop_token stop) override {
    constexpr std::chrono::milliseconds kPollInterval{100};
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      ASSIGN_OR_RETURN(const std::int64_t last, LastJournalSeq());
      const auto now = std::chrono::steady_clock::now();
      if (last > after_seq || now >= deadline || stop.stop_requested()) return last;
      std::this_thread::sleep_for(
          std::min<std::chrono::steady_clock::duration>(kPollInterval, deadline - now));
    }
  }

  StatusOr<std::optional<EmbedderRecord>> GetEmbedder() override {
    return WithReader([&](Connection& conn) { return QueryEmbedder(conn); });
  }

  StatusOr<std::vector<std::pair<std::string, std::string>>> ListMeta(
      std::string_view prefix) override {
    RETURN_IF_ERROR(CheckEngineMetaKey(prefix));
    return WithReader(
        [&](Connection& conn) -> StatusOr<std::vector<std::pair<std::string, std::string>>> {
          ASSIGN_OR_RETURN(Statement stmt,
                           conn.Prepare("SELECT key, value FROM meta WHERE substr(key, 1, ?2) = ?1 "
                                        "ORDER BY key",
                                        "list meta"));
          stmt.BindText(1, prefix);
          stmt.BindInt(2, static_cast<std::int64_t>(prefix.size()));
          std::vector<std::pair<std::string, std::string>> entries;
          while (true) {
            ASSIGN_OR_RETURN(const bool has_row, stmt.Step());
            if (!has_row) return entries;
            entries.emplace_back(stmt.ColumnText(0), stmt.ColumnText(1));
          }
        });
  }

  Status ScanVectors(
      std::int64_t scope_id,
      const std::function<bool(std::int64_t row, std::span<const float> values)>& visit) override {
    return WithReader([&](Connection& conn) -> Status {
      ASSIGN_OR_RETURN(Statement stmt,
                       // As in ScanNodes: row ids from the scope's index, no sort of the blobs.
                       conn.Prepare("SELECT node_row, dimension, vector FROM vectors "
                                    "WHERE node_row IN (SELECT row_id FROM nodes WHERE "
                                    "scope_id = ?1) ORDER BY node_row",
                                    "scan vectors"));
      stmt.BindInt(1, scope_id);
      std::vector<float> values;
      while (true) {
        ASSIGN_OR_RETURN(const bool has_row, stmt.Step());
        if (!has_row) return Status::Ok();
        const std::int64_t row = stmt.ColumnInt(0);
        RETURN_IF_ERROR(
            DecodeVector(BlobText(stmt.ColumnBlob(2)), stmt.ColumnInt(1), row, "sqlite", &values));
        if (!visit(row, values)) return Status::Ok();
      }
    });
  }

  StatusOr<std::vector<VectorRecord>> GetVectorsByRow(std::span<const std::int64_t> rows) override {
    return WithReader([&](Connection& conn) -> StatusOr<std::vector<VectorRecord>> {
      std::vector<VectorRecord> records;
      for (const std::int64_t row : rows) {
        ASSIGN_OR_RETURN(Statement stmt,
                         conn.Prepare("SELECT dimension, vector FROM vectors WHERE node_row = ?1",
                                      "get vectors by row"));
        stmt.BindInt(1, row);
        ASSIGN_OR_RETURN(const bool has_row, stmt.Step());
        if (!has_row) continue;
        VectorRecord record;
        record.row = row;
        RETURN_IF_ERROR(DecodeVector(BlobText(stmt.ColumnBlob(1)), stmt.ColumnInt(0), row, "sqlite",
                                     &record.values));
        records.push_back(std::move(record));
      }
      return records;
    });
  }

  StatusOr<std::int64_t> CountVectors(std::int64_t scope_id) override {
    return WithReader([&](Connection& conn) {
      return QueryInt(conn,
                      "SELECT count(*) FROM vectors v JOIN nodes n ON n.row_id = v.node_row "
                      "WHERE n.scope_id = ?1",
                      "count vectors", scope_id);
    });
  }

  StatusOr<std::vector<TurnAnalysisRecord>> GetTurnAnalyses(
      std::span<const std::int64_t> turn_rows) override {
    return WithReader([&](Connection& conn) { return QueryTurnAnalyses(conn, turn_rows); });
  }

  StatusOr<std::optional<ProjectionSnapshot>> GetProjectionSnapshot(
      std::int64_t scope_id, std::string_view projection) override {
    return WithReader([&](Connection& conn) -> StatusOr<std::optional<ProjectionSnapshot>> {
      ASSIGN_OR_RETURN(Statement stmt,
                       conn.Prepare("SELECT key, journal_seq, item_count, data FROM "
                                    "projection_snapshots WHERE scope_id = ?1 AND projection = ?2",
                                    "get projection snapshot"));
      stmt.BindInt(1, scope_id);
      stmt.BindText(2, projection);
      ASSIGN_OR_RETURN(const bool has_row, stmt.Step());
      if (!has_row) return std::optional<ProjectionSnapshot>();
      ProjectionSnapshot snapshot;
      snapshot.scope_id = scope_id;
      snapshot.projection = std::string(projection);
      snapshot.key = stmt.ColumnText(0);
      snapshot.journal_seq = stmt.ColumnInt(1);
      snapshot.item_count = stmt.ColumnInt(2);
      snapshot.data = std::string(BlobText(stmt.ColumnBlob(3)));
      return std::optional<ProjectionSnapshot>(std::move(snapshot));
    });
  }

  StatusOr<EraseCounts> EraseScopes(std::span<const std::int64_t> scope_ids) override;

  StatusOr<std::string> DumpCanonical() override;

 private:
  // Runs `fn(connection)` on a pooled read connection inside one read transaction (a consistent
  // snapshot of the last commit).
  template <typename Fn>
  auto WithReader(Fn&& fn) -> decltype(fn(std::declval<Connection&>())) {
    ASSIGN_OR_RETURN(std::unique_ptr<Connection> conn, AcquireReader());
    auto result = [&]() -> decltype(fn(std::declval<Connection&>())) {
      ScopedSqlTransaction read(*conn, "BEGIN DEFERRED");
      RETURN_IF_ERROR(read.status());
      auto inner = fn(*conn);
      if (!inner.ok()) return inner;
      RETURN_IF_ERROR(read.Commit());
      return inner;
    }();
    ReleaseReader(std::move(conn));
    return result;
  }

  StatusOr<std::unique_ptr<Connection>> AcquireReader() {
    {
      std::lock_guard<std::mutex> lock(pool_mutex_);
      if (!idle_readers_.empty()) {
        std::unique_ptr<Connection> conn = std::move(idle_readers_.back());
        idle_readers_.pop_back();
        return conn;
      }
    }
    ASSIGN_OR_RETURN(std::unique_ptr<Connection> conn,
                     Connection::Open(path_, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX,
                                      options_.busy_timeout_ms, reader_uri_));
    conn->set_damage_record(damage_);
    return conn;
  }

  // kCorruption once any connection of this store met a SQLite error saying the file is damaged:
  // a write into a damaged file could spread the damage, so none is started.
  Status RefuseIfDamaged() const {
    const std::optional<std::string> damage = damage_->first();
    if (!damage.has_value()) return Status::Ok();
    IntegrityReport report;
    report.check = IntegrityCheck::kInUse;
    report.problems.push_back(*damage);
    return DamagedStoreError(path_, report);
  }

  Status ReadOnlyError() const {
    return Status::FailedPrecondition(
        "sqlite: store " + path_ + " is read-only (" + read_only_reason_ +
        "): it can be read, but nothing can be written to it; to change it, open it from a "
        "writable location (or copy it, with any " +
        path_ + "-wal, to one)");
  }

  void ReleaseReader(std::unique_ptr<Connection> conn) {
    std::lock_guard<std::mutex> lock(pool_mutex_);
    idle_readers_.push_back(std::move(conn));
  }

  const std::string path_;
  const SqliteOptions options_;
  // Read-only store: the URI readers open ("" = path_) and why no write is possible; writer_ is
  // null.
  const std::string reader_uri_;
  const std::string read_only_reason_;
  // Held by the open Transaction (or EraseScopes); guards writer_.
  std::mutex write_mutex_;
  std::unique_ptr<Connection> writer_;
  // What the connections met of damage (shared with them).
  const std::shared_ptr<DamageRecord> damage_ = std::make_shared<DamageRecord>();
  // Guards idle_readers_; never held while a query runs.
  std::mutex pool_mutex_;
  std::vector<std::unique_ptr<Connection>> idle_readers_;
};

StatusOr<EraseCounts> SqliteStore::EraseScopes(std::span<const std::int64_t> scope_ids) {
  if (writer_ == nullptr) return ReadOnlyError();
  RETURN_IF_ERROR(RefuseIfDamaged());
  std::lock_guard<std::mutex> lock(write_mutex_);
  EraseCounts counts;
  // The erase itself, in one transaction: all of it or (on an error) none of it.
  const Status erased = [&]() -> Status {
    // Takes the lock as BeginWrite does; the ScopedSqlTransaction's BEGIN is then a no-op
    // ("BEGIN" inside a transaction is an error, so it opens with a SAVEPOINT instead).
    RETURN_IF_ERROR(BeginImmediate(*writer_, "erase scopes: begin"));
    ScopedSqlTransaction txn(*writer_, "SAVEPOINT erase_scopes");
    if (!txn.status().ok()) static_cast<void>(writer_->Exec("ROLLBACK", "erase scopes: rollback"));
    RETURN_IF_ERROR(txn.status());
    // The scopes named and every scope nested in them, in scope_id order.
    std::vector<ScopeRecord> tree;
    {
      RETURN_IF_ERROR(writer_->Exec(
          "CREATE TEMP TABLE IF NOT EXISTS erase_scope_ids(scope_id INTEGER PRIMARY KEY); "
          "DELETE FROM temp.erase_scope_ids",
          "erase scopes: prepare"));
      for (const std::int64_t scope_id : scope_ids) {
        ASSIGN_OR_RETURN(const std::optional<ScopeRecord> scope,
                         QueryScopeById(*writer_, scope_id));
        if (!scope.has_value()) {
          return Status::NotFound("erase scopes: scope " + std::to_string(scope_id) +
                                  " does not exist");
        }
        ASSIGN_OR_RETURN(Statement add,
                         writer_->Prepare("INSERT OR IGNORE INTO temp.erase_scope_ids(scope_id) "
                                          "VALUES(?1)",
                                          "erase scopes: collect scopes"));
        add.BindInt(1, scope_id);
        RETURN_IF_ERROR(add.Run());
      }
      RETURN_IF_ERROR(writer_->Exec(
          "INSERT OR IGNORE INTO temp.erase_scope_ids(scope_id) "
          "WITH RECURSIVE tree(id) AS (SELECT scope_id FROM temp.erase_scope_ids UNION "
          "SELECT s.scope_id FROM scopes s JOIN tree ON s.parent_scope_id = tree.id) "
          "SELECT id FROM tree",
          "erase scopes: collect nested scopes"));
      static const std::string kSql =
          Sql("SELECT ", kScopeColumns,
              " FROM scopes WHERE scope_id IN temp.erase_scope_ids ORDER BY scope_id");
      ASSIGN_OR_RETURN(Statement list, writer_->Prepare(kSql, "erase scopes: list"));
      ASSIGN_OR_RETURN(tree, CollectRows<ScopeRecord>(list, ReadScope));
    }
    // Tombstones carry the store's latest transaction time, so erasing stays deterministic (the
    // store reads no clock).
    ASSIGN_OR_RETURN(const std::int64_t latest_at,
                     QueryInt(*writer_, "SELECT max(at) FROM journal", "erase scopes: time", 0));
    // The Merkle logs that change: surviving scopes holding an edge that touches an erased node,
    // and the surviving parents of erased scopes (their nested scopes change).
    std::set<std::int64_t> merkle_edge_scopes;
    std::set<std::int64_t> merkle_parents;
    {
      ASSIGN_OR_RETURN(
          Statement stmt,
          writer_->Prepare("SELECT DISTINCT scope_id FROM edges WHERE scope_id NOT IN "
                           "temp.erase_scope_ids AND (src IN (SELECT id FROM nodes WHERE scope_id "
                           "IN temp.erase_scope_ids) OR dst IN (SELECT id FROM nodes WHERE "
                           "scope_id IN temp.erase_scope_ids))",
                           "erase scopes: find changed merkle logs"));
      while (true) {
        ASSIGN_OR_RETURN(const bool has_row, stmt.Step());
        if (!has_row) break;
        merkle_edge_scopes.insert(stmt.ColumnInt(0));
      }
      merkle_parents = merkle::SurvivingParents(tree);
    }
    std::map<std::int64_t, std::int64_t> nodes_per_scope;
    {
      ASSIGN_OR_RETURN(Statement stmt,
                       writer_->Prepare("SELECT scope_id, count(*) FROM nodes WHERE scope_id IN "
                                        "temp.erase_scope_ids GROUP BY scope_id",
                                        "erase scopes: count nodes"));
      while (true) {
        ASSIGN_OR_RETURN(const bool has_row, stmt.Step());
        if (!has_row) break;
        nodes_per_scope[stmt.ColumnInt(0)] = stmt.ColumnInt(1);
      }
    }
    // Order matters: the journal, edge and vector deletions find their rows through the nodes.
    std::size_t erased_vectors = 0;
    std::size_t erased_analyses = 0;
    std::size_t erased_snapshots = 0;
    struct Step {
      std::string_view sql;
      std::size_t* count;
    };
    const Step steps[] = {
        {"DELETE FROM journal WHERE scope_id IN temp.erase_scope_ids "
         "OR target_id IN (SELECT id FROM nodes WHERE scope_id IN temp.erase_scope_ids) "
         "OR target_id IN (SELECT e.id FROM edges e WHERE e.scope_id IN temp.erase_scope_ids "
         "OR e.src IN (SELECT id FROM nodes WHERE scope_id IN temp.erase_scope_ids) "
         "OR e.dst IN (SELECT id FROM nodes WHERE scope_id IN temp.erase_scope_ids))",
         &counts.journal_entries},
        {"DELETE FROM edges WHERE scope_id IN temp.erase_scope_ids "
         "OR src IN (SELECT id FROM nodes WHERE scope_id IN temp.erase_scope_ids) "
         "OR dst IN (SELECT id FROM nodes WHERE scope_id IN temp.erase_scope_ids)",
         &counts.edges},
        {"DELETE FROM vectors WHERE node_row IN (SELECT row_id FROM nodes WHERE scope_id IN "
         "temp.erase_scope_ids)",
         &erased_vectors},
        {"DELETE FROM turn_analysis WHERE turn_row IN (SELECT row_id FROM nodes WHERE scope_id "
         "IN temp.erase_scope_ids)",
         &erased_analyses},
        {"DELETE FROM projection_snapshots WHERE scope_id IN temp.erase_scope_ids",
         &erased_snapshots},
        {"DELETE FROM nodes WHERE scope_id IN temp.erase_scope_ids", &counts.nodes},
        {"DELETE FROM scopes WHERE scope_id IN temp.erase_scope_ids", &counts.scopes},
    };
    for (const Step& step : steps) {
      ASSIGN_OR_RETURN(Statement stmt, writer_->Prepare(step.sql, "erase scopes: delete"));
      RETURN_IF_ERROR(stmt.Run());
      *step.count = static_cast<std::size_t>(writer_->Changes());
    }
    std::vector<std::int64_t> erased_ids;
    for (const ScopeRecord& scope : tree) erased_ids.push_back(scope.scope_id);
    MerkleTables merkle_tables(*writer_);
    RETURN_IF_ERROR(
        merkle::AfterErase(merkle_tables, erased_ids, merkle_edge_scopes, merkle_parents));
    for (const ScopeRecord& scope : tree) {
      RETURN_IF_ERROR(AppendJournal(
          *writer_, scope.scope_id, JournalOp::kScopeErased, scope.node_id, 0, Timestamp{latest_at},
          "erased nodes=" + std::to_string(nodes_per_scope[scope.scope_id])));
    }
    RETURN_IF_ERROR(writer_->Exec("DELETE FROM temp.erase_scope_ids", "erase scopes: clean up"));
    return txn.Commit();
  }();
  if (!erased.ok()) {
    return Status(erased.code(), "nothing was erased: " + erased.message());
  }
  // The deleted rows were zeroed in their pages (secure_delete), but older copies of those pages
  // still sit in the WAL. Copy the WAL back into the database and truncate it to zero bytes.
  // A failure from here on comes after the commit: the caller must learn that the erase happened.
  const auto committed = [this](const Status& status) {
    return Status(status.code(),
                  "sqlite: erase scopes: the erase is committed, but wiping the write-ahead log "
                  "failed; erased text may remain in " +
                      path_ + "-wal until the next checkpoint: " + status.message());
  };
  StatusOr<Statement> checkpoint =
      writer_->Prepare("PRAGMA wal_checkpoint(TRUNCATE)", "erase scopes: checkpoint");
  if (!checkpoint.ok()) {
    counts.wipe_status = committed(checkpoint.status());
    return counts;
  }
  const StatusOr<bool> has_row = checkpoint->Step();
  if (!has_row.ok()) {
    counts.wipe_status = committed(has_row.status());
  } else if (*has_row && checkpoint->ColumnInt(0) != 0) {
    counts.wipe_status = Status::Unavailable(
        "sqlite: erase scopes: the erase is committed, but readers kept the write-ahead log from "
        "being wiped; erased text may remain in " +
        path_ + "-wal until the next checkpoint");
  }
  return counts;
}

StatusOr<std::string> SqliteStore::DumpCanonical() {
  return WithReader([&](Connection& conn) -> StatusOr<std::string> {
    struct Table {
      std::string_view name;
      std::string_view order_by;
    };
    static constexpr Table kTables[] = {
        {"meta", "key"},
        {"scopes", "scope_id"},
        {"nodes", "row_id"},
        {"edges", "row_id"},
        {"vectors", "node_row"},
        {"turn_analysis", "turn_row"},
        {"journal", "seq"},
        {"merkle_leaves", "scope_id, log, idx"},
        {"merkle_roots", "scope_id"},
        {"sqlite_sequence", "name"},
    };
    std::string out;
    for (const Table& table : kTables) {
      out += "== ";
      out += table.name;
      out += '\n';
      const std::string sql =
          "SELECT * FROM " + std::string(table.name) + " ORDER BY " + std::string(table.order_by);
      ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(sql, "dump table"));
      while (true) {
        ASSIGN_OR_RETURN(const bool has_row, stmt.Step());
        if (!has_row) break;
        for (int column = 0; column < stmt.ColumnCount(); ++column) {
          if (column > 0) out += ' ';
          out += stmt.ColumnName(column);
          out += '=';
          switch (stmt.ColumnType(column)) {
            case SQLITE_NULL:
              out += "null";
              break;
            case SQLITE_INTEGER:
              out += std::to_string(stmt.ColumnInt(column));
              break;
            case SQLITE_BLOB:
              out += HexDumpBytes(BlobText(stmt.ColumnBlob(column)));
              break;
            default:
              out += QuoteDumpText(stmt.ColumnText(column));
          }
        }
        out += '\n';
      }
    }
    return out;
  });
}

// Why the store at `path` cannot be written, or "" when it can: SQLite writes the file and
// creates its write-ahead log and shared-memory files beside it. (As root, permission bits do
// not stop a write; a read-only file system does.)
std::string NotWritableReason(const std::string& path, bool exists) {
  namespace fs = std::filesystem;
  fs::path directory = fs::path(path).parent_path();
  if (directory.empty()) directory = ".";
  if (exists && ::access(path.c_str(), W_OK) != 0) {
    if (errno == EROFS) return "it is on a read-only file system";
    if (errno == EACCES || errno == EPERM) return "the file is not writable";
  }
  if (::access(directory.c_str(), W_OK) != 0) {
    if (errno == EROFS)
      return "its directory " + directory.string() + " is on a read-only file system";
    if (errno == EACCES || errno == EPERM) {
      return "its directory " + directory.string() +
             " is not writable, and SQLite keeps its write-ahead log beside the store";
    }
  }
  return "";
}

// "file:<path>" with every byte but unreserved ones and '/' percent-encoded (SQLite URI names).
std::string FileUri(std::string_view path) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string uri = "file:";
  for (const char c : path) {
    const auto byte = static_cast<unsigned char>(c);
    if (std::isalnum(byte) != 0 || c == '/' || c == '-' || c == '.' || c == '_' || c == '~') {
      uri += c;
    } else {
      uri += '%';
      uri += kHex[byte >> 4];
      uri += kHex[byte & 0xF];
    }
  }
  return uri;
}

// The open-time damage check (integrity.h) on `connection`: kCorruption naming the file and what
// to do when it finds damage. Different opens probe different rows of a large store.
Status CheckUndamaged(Connection& connection, const std::string& path) {
  ASSIGN_OR_RETURN(const IntegrityReport report,
                   CheckAtOpen(connection, StoreFileBytes(path), std::random_device()()));
  if (!report.ok()) return DamagedStoreError(path, report);
  return Status::Ok();
}

// Opens an existing store that cannot be written (`reason` says why) for reading. A WAL-mode
// database is read through its shared-memory file (-shm): `mode=ro` uses it when it exists (a
// writer elsewhere has it open) or can be created. When neither holds, the file is read as
// immutable, which is right only when no writer uses it and its write-ahead log holds nothing:
// a non-empty -wal is refused.
StatusOr<std::unique_ptr<Store>> OpenReadOnly(const std::string& path, const SqliteOptions& options,
                                              const std::string& reason) {
  namespace fs = std::filesystem;
  const auto check = [&](const std::string& uri) -> Status {
    ASSIGN_OR_RETURN(std::unique_ptr<Connection> conn,
                     Connection::Open(path, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX,
                                      options.busy_timeout_ms, uri));
    RETURN_IF_ERROR(CheckUndamaged(*conn, path));
    return CheckSchemaReadOnly(*conn, reason);
  };
  const std::string shared_uri = FileUri(path) + "?mode=ro";
  Status shared = check(shared_uri);
  if (shared.ok()) {
    return std::unique_ptr<Store>(std::make_unique<SqliteStore>(path, options, shared_uri, reason));
  }
  std::error_code error;
  if (shared.code() == StatusCode::kFailedPrecondition || fs::exists(path + "-shm", error)) {
    return shared;
  }
  const std::uintmax_t wal_bytes =
      fs::exists(path + "-wal", error) ? fs::file_size(path + "-wal", error) : 0;
  if (wal_bytes > 0 && !error) {
    return Status::FailedPrecondition(
        "sqlite: store " + path + " is read-only (" + reason + ") and its write-ahead log " + path +
        "-wal holds " + std::to_string(wal_bytes) +
        " bytes not yet copied into it; reading them needs " + path +
        "-shm, which cannot be created here: open the store once from a writable location (or "
        "copy it with its -wal file to one) to fold the log into it");
  }
  const std::string immutable_uri = shared_uri + "&immutable=1";
  RETURN_IF_ERROR(check(immutable_uri));
  return std::unique_ptr<Store>(
      std::make_unique<SqliteStore>(path, options, immutable_uri, reason));
}

}  // namespace

StatusOr<std::unique_ptr<Store>> Open(std::string_view path, const SqliteOptions& options) {
  const std::string path_text(path);
  if (path_text.empty() || path_text == ":memory:" || path_text.front() == '\0') {
    return Status::InvalidArgument(
        "sqlite: the store needs a file path (WAL mode and read connections need a file)");
  }
  std::error_code error;
  const bool exists = std::filesystem::exists(path_text, error);
  if (!exists && !options.create_if_missing) {
    return Status::NotFound("sqlite: store file " + path_text + " does not exist");
  }
  if (exists && std::filesystem::is_directory(path_text, error)) {
    return Status::InvalidArgument("sqlite: store path " + path_text + " is a directory");
  }
  // An empty file is no store: only a command that may create one turns it into one.
  if (exists && !options.create_if_missing && std::filesystem::file_size(path_text, error) == 0 &&
      !error) {
    return Status::FailedPrecondition("sqlite: " + path_text +
                                      " is an empty file, not an engram store");
  }
  // A file that is not SQLite is refused before SQLite reads it (and before anything writes it).
  if (exists) {
    ASSIGN_OR_RETURN(const std::string header_problem, HeaderProblem(path_text));
    if (!header_problem.empty()) {
      IntegrityReport report;
      report.check = IntegrityCheck::kHeader;
      report.problems.push_back(header_problem);
      return DamagedStoreError(path_text, report);
    }
  }
  if (const std::string reason = NotWritableReason(path_text, exists); !reason.empty()) {
    if (!exists) {
      return Status::FailedPrecondition("sqlite: cannot create store " + path_text + ": " + reason);
    }
    return OpenReadOnly(path_text, options, reason);
  }
  int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX;
  if (options.create_if_missing) flags |= SQLITE_OPEN_CREATE;
  ASSIGN_OR_RETURN(std::unique_ptr<Connection> writer,
                   Connection::Open(path_text, flags, options.busy_timeout_ms));
  auto not_a_store = [&](const Status& status) {
    if (status.code() == StatusCode::kCorruption) {
      IntegrityReport report;
      report.check = IntegrityCheck::kInUse;
      report.problems.push_back(status.message());
      return DamagedStoreError(path_text, report);
    }
    return status;
  };
  StatusOr<std::optional<std::string>> mode =
      writer->QueryText("PRAGMA journal_mode=WAL", "set journal mode");
  if (!mode.ok()) return not_a_store(mode.status());
  if (!mode->has_value() || **mode != "wal") {
    return Status::Unavailable("sqlite: " + path_text + ": could not switch to WAL mode (got \"" +
                               mode->value_or("") + "\")");
  }
  RETURN_IF_ERROR(writer->Exec(
      options.durable_commits ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=NORMAL",
      "set synchronous"));
  RETURN_IF_ERROR(writer->Exec("PRAGMA foreign_keys=ON", "enable foreign keys"));
  RETURN_IF_ERROR(writer->Exec("PRAGMA secure_delete=ON", "enable secure delete"));
  // Temporary tables (EraseScopes' id list) stay in memory, never in a temp file.
  RETURN_IF_ERROR(writer->Exec("PRAGMA temp_store=MEMORY", "set temp store"));
  // Before any migration writes to it.
  RETURN_IF_ERROR(CheckUndamaged(*writer, path_text));
  Status migrated = ApplyMigrations(*writer);
  if (!migrated.ok()) return not_a_store(migrated);
  return std::unique_ptr<Store>(
      std::make_unique<SqliteStore>(path_text, options, std::move(writer)));
}

}  // namespace engram::store::sqlite

namespace engram::store {

StatusOr<std::unique_ptr<Store>> OpenSqliteStore(std::string_view path,
                                                 const SqliteOptions& options) {
  return sqlite::Open(path, options);
}

}  // namespace engram::store
