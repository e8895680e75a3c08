// PostgreSQL implementation of store::Store and store::Transaction (see postgres_store.h).
//
// The queries mirror the SQLite backend's (store/sqlite/sqlite_store.cc) in PostgreSQL's dialect:
// $n parameters, identity columns returned by INSERT ... RETURNING, `= ANY($1::bigint[])` for id
// lists. Row mapping and the queries shared by the store and its transactions sit at the top.
#include "store/postgres/postgres_store.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "store/backend_common.h"
#include "store/journal.h"
#include "store/merkle.h"
#include "store/postgres/connection.h"
#include "store/postgres/merkle_postgres.h"
#include "store/postgres/migrations.h"

namespace engram::store::postgres {
namespace {

// Held by every write transaction (per database): "engram" in ASCII, then 2.
constexpr std::int64_t kWriteLockKey = 0x656e6772616d02;

// The channel every write transaction NOTIFYs at commit (PostgreSQL delivers a NOTIFY only when
// its transaction commits, and never one of a rolled-back transaction); WaitForJournal LISTENs.
constexpr std::string_view kJournalChannel = "engram_journal";
// Sent as the last statements of a write transaction: one round trip for both.
constexpr std::string_view kNotifyAndCommit = "NOTIFY engram_journal; COMMIT";

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

ScopeRecord ReadScope(const Result& rows, int row) {
  ScopeRecord scope;
  scope.scope_id = rows.Int(row, 0);
  scope.node_id = rows.Text(row, 1);
  scope.path = rows.Text(row, 2);
  scope.parent_scope_id = rows.Int(row, 3);  // 0 when NULL
  scope.last_sequence = rows.Int(row, 4);
  scope.created_at = Timestamp{rows.Int(row, 5)};
  return scope;
}

// A stored enum name that does not parse means the data was damaged or written by something else.
template <typename T>
StatusOr<T> StoredName(StatusOr<T> parsed, std::string_view what, std::string_view id) {
  if (parsed.ok()) return parsed;
  return Status::Corruption("postgres: " + std::string(what) + " of " + std::string(id) + ": " +
                            parsed.status().message());
}

StatusOr<NodeRecord> ReadNode(const Result& rows, int row) {
  NodeRecord node;
  node.row = rows.Int(row, 0);
  node.id = rows.Text(row, 1);
  ASSIGN_OR_RETURN(node.kind, StoredName(ParseNodeKind(rows.Text(row, 2)), "kind", node.id));
  node.scope_id = rows.Int(row, 3);
  node.content_json = rows.Text(row, 4);
  node.text = rows.Text(row, 5);
  ASSIGN_OR_RETURN(node.role, StoredName(ParseRole(rows.Text(row, 6)), "role", node.id));
  node.speaker = rows.Text(row, 7);
  node.session_id = rows.Text(row, 8);
  node.sequence = rows.Int(row, 9);
  node.event_time = rows.Time(row, 10);
  node.metadata_json = rows.Text(row, 11);
  ASSIGN_OR_RETURN(node.status,
                   StoredName(ParseNodeStatus(rows.Text(row, 12)), "status", node.id));
  node.valid_from = rows.Time(row, 13);
  node.valid_to = rows.Time(row, 14);
  node.ingested_at = Timestamp{rows.Int(row, 15)};
  node.updated_at = Timestamp{rows.Int(row, 16)};
  node.idempotency_key = rows.Text(row, 17);  // "" when NULL
  RETURN_IF_ERROR(RestoreContentJson(node, "postgres"));
  return node;
}

EdgeRecord ReadEdge(const Result& rows, int row) {
  EdgeRecord edge;
  edge.row = rows.Int(row, 0);
  edge.id = rows.Text(row, 1);
  edge.type = rows.Text(row, 2);
  edge.src = rows.Text(row, 3);
  edge.dst = rows.Text(row, 4);
  edge.scope_id = rows.Int(row, 5);
  edge.attrs_json = rows.Text(row, 6);
  edge.status = rows.Text(row, 7);
  edge.valid_from = rows.Time(row, 8);
  edge.valid_to = rows.Time(row, 9);
  edge.ingested_at = Timestamp{rows.Int(row, 10)};
  edge.updated_at = Timestamp{rows.Int(row, 11)};
  return edge;
}

StatusOr<JournalEntry> ReadJournalEntry(const Result& rows, int row) {
  JournalEntry entry;
  entry.seq = rows.Int(row, 0);
  entry.scope_id = rows.Int(row, 1);
  ASSIGN_OR_RETURN(entry.op, ParseJournalOp(rows.Text(row, 2)));
  entry.target_id = rows.Text(row, 3);
  entry.target_row = rows.Int(row, 4);
  entry.at = Timestamp{rows.Int(row, 5)};
  entry.detail = rows.Text(row, 6);
  return entry;
}

// Maps every row with `read` (which returns T or StatusOr<T>).
template <typename T, typename ReadFn>
StatusOr<std::vector<T>> CollectRows(const Result& rows, ReadFn read) {
  std::vector<T> out;
  out.reserve(static_cast<std::size_t>(rows.size()));
  for (int row = 0; row < rows.size(); ++row) {
    ASSIGN_OR_RETURN(T value, StatusOr<T>(read(rows, row)));
    out.push_back(std::move(value));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Queries shared by Store (read connections) and Transaction (the writer connection).

StatusOr<std::optional<ScopeRecord>> QueryScopeByPath(Connection& conn, std::string_view path) {
  static const std::string kSql = Sql("SELECT ", kScopeColumns, " FROM scopes WHERE path = $1");
  ASSIGN_OR_RETURN(Result rows, conn.Query(kSql, Params().Text(path), "find scope"));
  if (rows.size() == 0) return std::optional<ScopeRecord>();
  return std::optional<ScopeRecord>(ReadScope(rows, 0));
}

StatusOr<std::optional<ScopeRecord>> QueryScopeById(Connection& conn, std::int64_t scope_id) {
  static const std::string kSql = Sql("SELECT ", kScopeColumns, " FROM scopes WHERE scope_id = $1");
  ASSIGN_OR_RETURN(Result rows, conn.Query(kSql, Params().Int(scope_id), "get scope"));
  if (rows.size() == 0) return std::optional<ScopeRecord>();
  return std::optional<ScopeRecord>(ReadScope(rows, 0));
}

StatusOr<std::optional<NodeRecord>> QueryNode(Connection& conn, std::string_view id) {
  static const std::string kSql = Sql("SELECT ", kNodeColumns, " FROM nodes WHERE id = $1");
  ASSIGN_OR_RETURN(Result rows, conn.Query(kSql, Params().Text(id), "get node"));
  if (rows.size() == 0) return std::optional<NodeRecord>();
  ASSIGN_OR_RETURN(NodeRecord node, ReadNode(rows, 0));
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
  static const std::string kSql = Sql("SELECT ", kEdgeColumns, " FROM edges WHERE id = $1");
  ASSIGN_OR_RETURN(Result rows, conn.Query(kSql, Params().Text(id), "get edge"));
  if (rows.size() == 0) return std::optional<EdgeRecord>();
  return std::optional<EdgeRecord>(ReadEdge(rows, 0));
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
  // One text per direction; `$2 = ''` keeps the typed and untyped forms in one.
  static const std::string kOutgoing =
      Sql("SELECT ", kEdgeColumns,
          " FROM edges WHERE src = $1 AND ($2 = '' OR type = $2) ORDER BY row_id");
  static const std::string kIncoming =
      Sql("SELECT ", kEdgeColumns,
          " FROM edges WHERE dst = $1 AND ($2 = '' OR type = $2) ORDER BY row_id");
  static const std::string kBoth =
      Sql("SELECT ", kEdgeColumns,
          " FROM edges WHERE (src = $1 OR dst = $1) AND ($2 = '' OR type = $2) ORDER BY row_id");
  const std::string* sql = &kBoth;
  if (direction == EdgeDirection::kOutgoing) sql = &kOutgoing;
  if (direction == EdgeDirection::kIncoming) sql = &kIncoming;
  ASSIGN_OR_RETURN(Result rows, conn.Query(*sql, Params().Text(node_id).Text(type), "edges of node"));
  return CollectRows<EdgeRecord>(rows, ReadEdge);
}

StatusOr<std::vector<NodeRecord>> QueryListNodes(Connection& conn, std::int64_t scope_id,
                                                 const NodeFilter& filter) {
  static const std::string kSql =
      Sql("SELECT ", kNodeColumns,
          " FROM nodes WHERE scope_id = $1 AND sequence > $2 AND ($3::text IS NULL OR kind = $3) "
          "AND ($4::boolean OR status = 'active') ORDER BY sequence, row_id LIMIT $5::bigint");
  Params params;
  params.Int(scope_id).Int(filter.after_sequence);
  if (filter.kind.has_value()) {
    params.Text(NodeKindName(*filter.kind));
  } else {
    params.Null();
  }
  params.Bool(filter.include_inactive);
  if (filter.limit == 0) {
    params.Null();  // LIMIT NULL: no limit
  } else {
    params.Int(static_cast<std::int64_t>(filter.limit));
  }
  ASSIGN_OR_RETURN(Result rows, conn.Query(kSql, params, "list nodes"));
  return CollectRows<NodeRecord>(rows, ReadNode);
}

StatusOr<std::int64_t> QueryInt(Connection& conn, std::string_view sql, const Params& params,
                                std::string_view operation) {
  ASSIGN_OR_RETURN(Result rows, conn.Query(sql, params, operation));
  if (rows.size() == 0 || rows.IsNull(0, 0)) return std::int64_t{0};
  return rows.Int(0, 0);
}

StatusOr<std::optional<EmbedderRecord>> QueryEmbedder(Connection& conn) {
  ASSIGN_OR_RETURN(Result rows,
                   conn.Query("SELECT key, value FROM meta WHERE key IN ('embedder_model_id', "
                              "'embedder_dimension')",
                              Params(), "read recorded embedder"));
  std::optional<std::string> model_id;
  std::optional<std::string> dimension;
  for (int row = 0; row < rows.size(); ++row) {
    (rows.Text(row, 0) == "embedder_model_id" ? model_id : dimension) = rows.Text(row, 1);
  }
  return EmbedderFromMeta(model_id, dimension, "postgres: " + conn.display_name());
}

Status AppendJournal(Connection& conn, std::int64_t scope_id, JournalOp op,
                     std::string_view target_id, std::int64_t target_row, Timestamp at,
                     std::string_view detail) {
  ASSIGN_OR_RETURN(Result done,
                   conn.Query("INSERT INTO journal(scope_id, op, target_id, target_row, at, "
                              "detail) VALUES($1, $2, $3, $4, $5, $6)",
                              Params()
                                  .Int(scope_id)
                                  .Text(JournalOpName(op))
                                  .Text(target_id)
                                  .Int(target_row)
                                  .Int(at.micros)
                                  .Text(detail),
                              "append journal entry"));
  static_cast<void>(done);
  return Status::Ok();
}

// The stored analyses of these turn rows, in the order given (TurnAnalysisRecord).
StatusOr<std::vector<TurnAnalysisRecord>> QueryTurnAnalyses(Connection& conn,
                                                             std::span<const std::int64_t> rows) {
  std::vector<TurnAnalysisRecord> records;
  if (rows.empty()) return records;
  ASSIGN_OR_RETURN(Result found,
                   conn.Query("SELECT turn_row, format, analysis FROM turn_analysis "
                              "WHERE turn_row = ANY($1::bigint[])",
                              Params().IntArray({rows.begin(), rows.end()}),
                              "get turn analyses"));
  std::map<std::int64_t, int> by_row;
  for (int row = 0; row < found.size(); ++row) by_row[found.Int(row, 0)] = row;
  for (const std::int64_t turn_row : rows) {
    const auto it = by_row.find(turn_row);
    if (it == by_row.end()) continue;
    records.push_back({.turn_row = turn_row,
                       .format = static_cast<int>(found.Int(it->second, 1)),
                       .bytes = found.Bytes(it->second, 2)});
  }
  return records;
}

Status Run(Connection& conn, std::string_view sql, const Params& params,
           std::string_view operation) {
  ASSIGN_OR_RETURN(Result done, conn.Query(sql, params, operation));
  static_cast<void>(done);
  return Status::Ok();
}

// The columns of a node insert, $1..$17, and their values (shared by the plain insert of a
// scope's node and the journalled insert of InsertNode).
constexpr std::string_view kInsertNode =
    "INSERT INTO nodes(id, kind, scope_id, content_json, text, role, speaker, session_id, "
    "sequence, event_time, metadata_json, status, valid_from, valid_to, ingested_at, updated_at, "
    "idempotency_key) VALUES($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, "
    "$16, $17)";

// As kInsertNode, inserting nothing when scope $3 does not exist.
constexpr std::string_view kInsertNodeIfScope =
    "INSERT INTO nodes(id, kind, scope_id, content_json, text, role, speaker, session_id, "
    "sequence, event_time, metadata_json, status, valid_from, valid_to, ingested_at, updated_at, "
    "idempotency_key) SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, "
    "$16, $17 WHERE EXISTS(SELECT 1 FROM scopes WHERE scope_id = $3)";

Params NodeParams(const NodeRecord& record) {
  Params params;
  params.Text(record.id)
      .Text(NodeKindName(record.kind))
      .Int(record.scope_id)
      .Text(StoredContentJson(record))
      .Text(record.text)
      .Text(RoleName(record.role))
      .Text(record.speaker)
      .Text(record.session_id)
      .Int(record.sequence)
      .Time(record.event_time)
      .Text(record.metadata_json)
      .Text(NodeStatusName(record.status))
      .Time(record.valid_from)
      .Time(record.valid_to)
      .Int(record.ingested_at.micros)
      .Int(record.updated_at.micros)
      .TextOrNull(record.idempotency_key);
  return params;
}

// One row of booleans ("t" / "f") from a query of EXISTS(...) columns.
StatusOr<std::vector<bool>> QueryExists(Connection& conn, std::string_view sql,
                                        const Params& params, std::string_view operation) {
  ASSIGN_OR_RETURN(Result rows, conn.Query(sql, params, operation));
  std::vector<bool> exists;
  for (int column = 0; column < rows.columns(); ++column) {
    exists.push_back(rows.size() > 0 && rows.Text(0, column) == "t");
  }
  return exists;
}

// ---------------------------------------------------------------------------------------------
// Transaction.

// Invariant: while open_, the writer connection is inside a transaction holding the write
// advisory lock, and lock_ holds the store's write mutex. After Commit() (or a failed commit)
// open_ is false and the mutex is released.
//
// An insert is one statement whose conditions are the checks (known scope and nodes, ON CONFLICT
// DO NOTHING for a taken id or idempotency key) and which writes the row and its journal entry
// together (a data-modifying WITH): one round trip. When it inserts nothing, a second query says
// which check refused it; a refused call writes nothing. A statement the server fails
// anyway (a lost connection, a constraint the checks do not cover) makes PostgreSQL abort the
// whole transaction: every later call fails and Commit() rolls back and says so, so nothing of
// a failed transaction is ever committed.
class PostgresTransaction final : public Transaction {
 public:
  // `vector_precision`: how PutVector stores a vector (SqliteOptions / PostgresOptions).
  PostgresTransaction(std::unique_lock<std::mutex> lock, Connection& conn,
                      VectorPrecision vector_precision)
      : lock_(std::move(lock)),
        conn_(conn),
        vector_precision_(vector_precision),
        merkle_tables_(conn) {}

  ~PostgresTransaction() override {
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
    {
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
      Params params;
      params.Text(node_id).Text(path);
      if (parent_scope_id != 0) {
        params.Int(parent_scope_id);
      } else {
        params.Null();
      }
      params.Int(created_at.micros);
      ASSIGN_OR_RETURN(const std::int64_t scope_id,
                       QueryInt(conn_,
                                "INSERT INTO scopes(node_id, path, parent_scope_id, "
                                "last_sequence, created_at) VALUES($1, $2, $3, 0, $4) "
                                "RETURNING scope_id",
                                params, "create scope"));
      ScopeRecord scope;
      scope.scope_id = scope_id;
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
      RETURN_IF_ERROR(Run(conn_, kInsertNode, NodeParams(node), "insert scope node"));
      RETURN_IF_ERROR(AppendJournal(conn_, scope.scope_id, JournalOp::kScopeCreated, node_id, 0,
                                    created_at, "scope created"));
      merkle_.AppendNode(node);
      return scope;
    }
  }

  StatusOr<std::int64_t> NextSequence(std::int64_t scope_id) override {
    RETURN_IF_ERROR(CheckOpen());
    ASSIGN_OR_RETURN(Result rows,
                     conn_.Query("UPDATE scopes SET last_sequence = last_sequence + 1 "
                                 "WHERE scope_id = $1 RETURNING last_sequence",
                                 Params().Int(scope_id), "next sequence"));
    if (rows.size() == 0) {
      return Status::NotFound("next sequence: scope " + std::to_string(scope_id) +
                              " does not exist");
    }
    return rows.Int(0, 0);
  }

  StatusOr<std::int64_t> InsertNode(const NodeRecord& record) override {
    RETURN_IF_ERROR(CheckOpen());
    if (record.id.empty()) return Status::InvalidArgument("insert node: empty id");
    // One round trip: the row goes in only when its scope exists and neither its id nor its
    // idempotency key is taken (ON CONFLICT DO NOTHING: a refused insert does not abort the
    // transaction), and its journal entry with it. No row back: say which check refused it.
    static const std::string kSql =
        "WITH inserted AS (" + std::string(kInsertNodeIfScope) +
        " ON CONFLICT DO NOTHING RETURNING row_id) INSERT INTO journal(scope_id, op, target_id, "
        "target_row, at, detail) SELECT $3, $18, $1, row_id, $15, $19 FROM inserted "
        "RETURNING target_row";
    Params params = NodeParams(record);
    params.Text(JournalOpName(JournalOp::kNodeInserted))
        .Text("kind=" + std::string(NodeKindName(record.kind)) + " " +
              StateDetail(NodeStatusName(record.status), record.valid_to, ""));
    ASSIGN_OR_RETURN(Result inserted, conn_.Query(kSql, params, "insert node"));
    if (inserted.size() == 0) return RefusedNode(record);
    merkle_.AppendNode(record);
    const std::int64_t row = inserted.Int(0, 0);
    NodeRecord stored = record;
    stored.row = row;
    nodes_.insert_or_assign(stored.id, std::move(stored));
    edges_of_.insert_or_assign(record.id, std::vector<EdgeRecord>());  // a new node has none yet
    return row;
  }

  StatusOr<NodeRecord> GetNode(std::string_view id) override {
    RETURN_IF_ERROR(CheckOpen());
    if (const auto cached = nodes_.find(id); cached != nodes_.end()) return cached->second;
    ASSIGN_OR_RETURN(NodeRecord node, RequireNode(conn_, id));
    nodes_.emplace(node.id, node);
    return node;
  }

  StatusOr<std::optional<NodeRecord>> FindTurnByKey(std::int64_t scope_id,
                                                    std::string_view key) override {
    RETURN_IF_ERROR(CheckOpen());
    if (key.empty()) return Status::InvalidArgument("find turn by key: empty key");
    static const std::string kSql =
        Sql("SELECT ", kNodeColumns, " FROM nodes WHERE scope_id = $1 AND idempotency_key = $2");
    ASSIGN_OR_RETURN(Result rows, conn_.Query(kSql, Params().Int(scope_id).Text(key),
                                              "find turn by idempotency key"));
    if (rows.size() == 0) return std::optional<NodeRecord>();
    ASSIGN_OR_RETURN(NodeRecord node, ReadNode(rows, 0));
    return std::optional<NodeRecord>(std::move(node));
  }

  Status UpdateNodeState(std::string_view id, NodeStatus status, std::optional<Timestamp> valid_to,
                         Timestamp updated_at, std::string_view journal_detail) override {
    RETURN_IF_ERROR(CheckOpen());
    ASSIGN_OR_RETURN(
        Result journalled,
        conn_.Query("WITH updated AS (UPDATE nodes SET status = $2, valid_to = $3, "
                    "updated_at = $4 WHERE id = $1 RETURNING row_id, scope_id) "
                    "INSERT INTO journal(scope_id, op, target_id, target_row, at, detail) "
                    "SELECT scope_id, $5, $1, row_id, $4, $6 FROM updated RETURNING seq",
                    Params()
                        .Text(id)
                        .Text(NodeStatusName(status))
                        .Time(valid_to)
                        .Int(updated_at.micros)
                        .Text(JournalOpName(JournalOp::kNodeUpdated))
                        .Text(StateDetail(NodeStatusName(status), valid_to, journal_detail)),
                    "update node state"));
    if (journalled.size() == 0) {
      return Status::NotFound("node " + std::string(id.substr(0, 64)) + " does not exist");
    }
    if (const auto cached = nodes_.find(id); cached != nodes_.end()) {
      cached->second.status = status;
      cached->second.valid_to = valid_to;
      cached->second.updated_at = updated_at;
    }
    return Status::Ok();
  }

  StatusOr<std::int64_t> InsertEdge(const EdgeWriteKey& /*key*/,
                                    const EdgeRecord& record) override {
    RETURN_IF_ERROR(CheckOpen());
    RETURN_IF_ERROR(CheckNewEdge(record));
    // One round trip, as InsertNode: inserted only when both nodes and the scope exist and the
    // id is new; no row back means a check refused it.
    ASSIGN_OR_RETURN(
        Result inserted,
        conn_.Query("WITH inserted AS (INSERT INTO edges(id, type, src, dst, scope_id, "
                    "attrs_json, status, valid_from, valid_to, ingested_at, updated_at) "
                    "SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11 "
                    "WHERE EXISTS(SELECT 1 FROM nodes WHERE id = $3) "
                    "AND EXISTS(SELECT 1 FROM nodes WHERE id = $4) "
                    "AND EXISTS(SELECT 1 FROM scopes WHERE scope_id = $5) "
                    "ON CONFLICT DO NOTHING RETURNING row_id) "
                    "INSERT INTO journal(scope_id, op, target_id, target_row, at, detail) "
                    "SELECT $5, $12, $1, row_id, $10, $13 FROM inserted RETURNING target_row",
                    Params()
                        .Text(record.id)
                        .Text(record.type)
                        .Text(record.src)
                        .Text(record.dst)
                        .Int(record.scope_id)
                        .Text(record.attrs_json)
                        .Text(record.status)
                        .Time(record.valid_from)
                        .Time(record.valid_to)
                        .Int(record.ingested_at.micros)
                        .Int(record.updated_at.micros)
                        .Text(JournalOpName(JournalOp::kEdgeInserted))
                        .Text("type=" + record.type + " status=" + record.status),
                    "insert edge"));
    if (inserted.size() == 0) return RefusedEdge(record);
    merkle_.AppendEdge(record);
    EdgeRecord stored = record;
    stored.row = inserted.Int(0, 0);
    for (const std::string* end : {&record.src, &record.dst}) {
      if (end == &record.dst && record.dst == record.src) break;
      if (const auto known = edges_of_.find(*end); known != edges_of_.end()) {
        known->second.push_back(stored);
      }
    }
    return stored.row;
  }

  StatusOr<EdgeRecord> GetEdge(std::string_view id) override {
    RETURN_IF_ERROR(CheckOpen());
    return RequireEdge(conn_, id);
  }

  Status UpdateEdgeState(const EdgeWriteKey& /*key*/, std::string_view id, std::string_view status,
                         std::optional<Timestamp> valid_to, Timestamp updated_at) override {
    RETURN_IF_ERROR(CheckOpen());
    RETURN_IF_ERROR(CheckEdgeStatus(status));
    // The detail is StateDetail(status, valid_to, "type=<type>"), its type read in the statement.
    ASSIGN_OR_RETURN(
        Result journalled,
        conn_.Query("WITH updated AS (UPDATE edges SET status = $2, valid_to = $3, "
                    "updated_at = $4 WHERE id = $1 RETURNING row_id, scope_id, type, src, dst), "
                    "journalled AS (INSERT INTO journal(scope_id, op, target_id, target_row, at, "
                    "detail) SELECT scope_id, $5, $1, row_id, $4, $6 || '; type=' || type "
                    "FROM updated RETURNING seq) "
                    "SELECT j.seq, u.src, u.dst FROM journalled j CROSS JOIN updated u",
                    Params()
                        .Text(id)
                        .Text(status)
                        .Time(valid_to)
                        .Int(updated_at.micros)
                        .Text(JournalOpName(JournalOp::kEdgeUpdated))
                        .Text(StateDetail(status, valid_to, "")),
                    "update edge state"));
    if (journalled.size() == 0) {
      return Status::NotFound("edge " + std::string(id.substr(0, 64)) + " does not exist");
    }
    for (const std::string_view end : {journalled.Text(0, 1), journalled.Text(0, 2)}) {
      const auto known = edges_of_.find(end);
      if (known == edges_of_.end()) continue;
      for (EdgeRecord& edge : known->second) {
        if (edge.id != id) continue;
        edge.status = std::string(status);
        edge.valid_to = valid_to;
        edge.updated_at = updated_at;
      }
    }
    return Status::Ok();
  }

  StatusOr<std::vector<EdgeRecord>> EdgesOf(std::string_view node_id, EdgeDirection direction,
                                            std::string_view type) override {
    RETURN_IF_ERROR(CheckOpen());
    const auto known = edges_of_.find(node_id);
    if (known == edges_of_.end()) return QueryEdgesOf(conn_, node_id, direction, type);
    std::vector<EdgeRecord> edges;
    for (const EdgeRecord& edge : known->second) {
      const bool outgoing = edge.src == node_id;
      const bool incoming = edge.dst == node_id;
      if (direction == EdgeDirection::kOutgoing && !outgoing) continue;
      if (direction == EdgeDirection::kIncoming && !incoming) continue;
      if (!type.empty() && edge.type != type) continue;
      edges.push_back(edge);
    }
    return edges;
  }

  StatusOr<std::vector<NodeRecord>> ListNodes(std::int64_t scope_id,
                                              const NodeFilter& filter) override {
    RETURN_IF_ERROR(CheckOpen());
    return QueryListNodes(conn_, scope_id, filter);
  }

  Status SetEmbedder(const EmbedderRecord& embedder, Timestamp at) override {
    RETURN_IF_ERROR(CheckOpen());
    RETURN_IF_ERROR(CheckEmbedderRecord(embedder));
    {
      ASSIGN_OR_RETURN(const std::optional<EmbedderRecord> previous, QueryEmbedder(conn_));
      if (previous.has_value() && *previous != embedder) {
        RETURN_IF_ERROR(conn_.Exec("DELETE FROM vectors", "set embedder: drop old vectors"));
      }
      // Recording an embedder (again: reembed) precedes new vectors: graphs over the old ones
      // would describe vectors that are gone or replaced.
      RETURN_IF_ERROR(conn_.Exec("DELETE FROM projection_snapshots",
                                 "set embedder: drop projection snapshots"));
      embedder_.reset();  // read again by the next PutVector
      RETURN_IF_ERROR(Run(conn_,
                          "INSERT INTO meta(key, value) VALUES('embedder_model_id', $1), "
                          "('embedder_dimension', $2) "
                          "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                          Params().Text(embedder.model_id).Int(
                              static_cast<std::int64_t>(embedder.dimension)),
                          "set embedder"));
      return AppendJournal(conn_, 0, JournalOp::kEmbedderSet, embedder.model_id, 0, at,
                           "dimension=" + std::to_string(embedder.dimension));
    }
  }

  StatusOr<std::optional<EmbedderRecord>> GetEmbedder() override {
    RETURN_IF_ERROR(CheckOpen());
    return QueryEmbedder(conn_);
  }

  Status PutVector(std::string_view node_id, std::string_view model_id,
                   std::span<const float> values) override {
    RETURN_IF_ERROR(CheckOpen());
    // The embedder is read once per transaction (SetEmbedder refreshes it). One statement stores
    // the vector by the node's id and journals it (kVectorStored, at = the node's ingestion
    // time); no row back means the node does not exist.
    if (!embedder_.has_value()) {
      ASSIGN_OR_RETURN(const std::optional<EmbedderRecord> recorded, QueryEmbedder(conn_));
      embedder_.emplace(recorded);
    }
    RETURN_IF_ERROR(CheckVector(*embedder_, model_id, values));
    ASSIGN_OR_RETURN(
        Result stored,
        conn_.Query("WITH node AS (SELECT row_id, scope_id, ingested_at FROM nodes WHERE id = $1), "
                    "stored AS (INSERT INTO vectors(node_row, model_id, dimension, vector) "
                    "SELECT row_id, $2, $3, $4 FROM node "
                    "ON CONFLICT(node_row) DO UPDATE SET model_id = excluded.model_id, "
                    "dimension = excluded.dimension, vector = excluded.vector "
                    "RETURNING node_row) "
                    "INSERT INTO journal(scope_id, op, target_id, target_row, at, detail) "
                    "SELECT n.scope_id, $5, $1, n.row_id, n.ingested_at, $6 "
                    "FROM node n JOIN stored s ON s.node_row = n.row_id RETURNING seq",
                    Params()
                        .Text(node_id)
                        .Text(model_id)
                        .Int(static_cast<std::int64_t>(values.size()))
                        .Bytes(EncodeVector(values, vector_precision_))
                        .Text(JournalOpName(JournalOp::kVectorStored))
                        .Text("model=" + std::string(model_id)),
                    "put vector"));
    if (stored.size() == 0) {
      return Status::NotFound("node " + std::string(node_id.substr(0, 64)) + " does not exist");
    }
    return Status::Ok();
  }

  StatusOr<std::optional<std::string>> GetMeta(std::string_view key) override {
    RETURN_IF_ERROR(CheckOpen());
    RETURN_IF_ERROR(CheckEngineMetaKey(key));
    ASSIGN_OR_RETURN(Result rows, conn_.Query("SELECT value FROM meta WHERE key = $1",
                                              Params().Text(key), "read meta"));
    if (rows.size() == 0) return std::optional<std::string>();
    return std::optional<std::string>(std::string(rows.Text(0, 0)));
  }

  Status SetMeta(std::string_view key, std::string_view value) override {
    RETURN_IF_ERROR(CheckOpen());
    RETURN_IF_ERROR(CheckEngineMetaKey(key));
    return Run(conn_,
               "INSERT INTO meta(key, value) VALUES($1, $2) "
               "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
               Params().Text(key).Text(value), "write meta");
  }

  Status DeleteMeta(std::string_view key) override {
    RETURN_IF_ERROR(CheckOpen());
    RETURN_IF_ERROR(CheckEngineMetaKey(key));
    return Run(conn_, "DELETE FROM meta WHERE key = $1", Params().Text(key), "delete meta");
  }

  Status PutTurnAnalysis(const TurnAnalysisRecord& record) override {
    RETURN_IF_ERROR(CheckOpen());
    RETURN_IF_ERROR(CheckTurnAnalysis(record));
    // One statement: written only when the row is a turn; no row back means it is not.
    ASSIGN_OR_RETURN(
        Result stored,
        conn_.Query("INSERT INTO turn_analysis(turn_row, format, analysis) "
                    "SELECT row_id, $2, $3 FROM nodes WHERE row_id = $1 AND kind = $4 "
                    "ON CONFLICT(turn_row) DO UPDATE SET format = excluded.format, "
                    "analysis = excluded.analysis RETURNING turn_row",
                    Params()
                        .Int(record.turn_row)
                        .Int(record.format)
                        .Bytes(record.bytes)
                        .Text(NodeKindName(NodeKind::kTurn)),
                    "put turn analysis"));
    if (stored.size() == 0) {
      return Status::NotFound("put turn analysis: node row " + std::to_string(record.turn_row) +
                              " is not a turn");
    }
    return Status::Ok();
  }

  StatusOr<std::vector<TurnAnalysisRecord>> GetTurnAnalyses(
      std::span<const std::int64_t> turn_rows) override {
    RETURN_IF_ERROR(CheckOpen());
    return QueryTurnAnalyses(conn_, turn_rows);
  }

  Status PutProjectionSnapshot(const ProjectionSnapshot& snapshot) override {
    RETURN_IF_ERROR(CheckOpen());
    RETURN_IF_ERROR(CheckProjectionSnapshot(snapshot));
    // One statement: written only when the scope exists; no row back means it does not.
    ASSIGN_OR_RETURN(
        Result stored,
        conn_.Query("INSERT INTO projection_snapshots(scope_id, projection, key, journal_seq, "
                    "item_count, data) SELECT scope_id, $2, $3, $4, $5, $6 FROM scopes "
                    "WHERE scope_id = $1 ON CONFLICT(scope_id, projection) DO UPDATE SET "
                    "key = excluded.key, journal_seq = excluded.journal_seq, "
                    "item_count = excluded.item_count, data = excluded.data RETURNING scope_id",
                    Params()
                        .Int(snapshot.scope_id)
                        .Text(snapshot.projection)
                        .Text(snapshot.key)
                        .Int(snapshot.journal_seq)
                        .Int(snapshot.item_count)
                        .Bytes(snapshot.data),
                    "put projection snapshot"));
    if (stored.size() == 0) {
      return Status::NotFound("put projection snapshot: scope " +
                              std::to_string(snapshot.scope_id) + " does not exist");
    }
    return Status::Ok();
  }

  StatusOr<MerkleState> GetMerkleState(std::int64_t scope_id) override {
    RETURN_IF_ERROR(CheckOpen());
    RETURN_IF_ERROR(merkle_.Flush(merkle_tables_));
    return merkle::StateOf(merkle_tables_, scope_id);
  }

  Status AdvanceSequence(std::int64_t scope_id, std::int64_t last_sequence) override {
    RETURN_IF_ERROR(CheckOpen());
    ASSIGN_OR_RETURN(Result rows,
                     conn_.Query("UPDATE scopes SET last_sequence = GREATEST(last_sequence, $2) "
                                 "WHERE scope_id = $1 RETURNING scope_id",
                                 Params().Int(scope_id).Int(last_sequence), "advance sequence"));
    if (rows.size() == 0) {
      return Status::NotFound("advance sequence: scope " + std::to_string(scope_id) +
                              " does not exist");
    }
    return Status::Ok();
  }

  Status Commit() override {
    RETURN_IF_ERROR(CheckOpen());
    open_ = false;
    // COMMIT of an aborted transaction rolls back without an error: say so instead. The Merkle
    // roots of the scopes written to are brought up to date first, in the transaction.
    Status status = conn_.in_failed_transaction()
                        ? Status::FailedPrecondition(
                              "postgres: commit write transaction: an earlier statement of the "
                              "transaction failed, so nothing was committed")
                        : merkle_.Flush(merkle_tables_);
    if (status.ok()) status = conn_.Exec(kNotifyAndCommit, "commit write transaction");
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

  // Why InsertNode inserted nothing (its checks, read after the fact; nothing was written).
  Status RefusedNode(const NodeRecord& record) {
    ASSIGN_OR_RETURN(const std::vector<bool> exists,
                     QueryExists(conn_,
                                 "SELECT EXISTS(SELECT 1 FROM nodes WHERE id = $1), "
                                 "EXISTS(SELECT 1 FROM scopes WHERE scope_id = $2)",
                                 Params().Text(record.id).Int(record.scope_id), "insert node"));
    if (exists[0]) return Status::AlreadyExists("node " + record.id + " already exists");
    if (!exists[1]) {
      return Status::NotFound("insert node " + record.id + ": scope " +
                              std::to_string(record.scope_id) + " does not exist");
    }
    return Status::AlreadyExists("insert node " + record.id + ": scope " +
                                 std::to_string(record.scope_id) +
                                 " already holds a turn with idempotency key \"" +
                                 record.idempotency_key + "\"");
  }

  // Why InsertEdge inserted nothing.
  Status RefusedEdge(const EdgeRecord& record) {
    ASSIGN_OR_RETURN(const std::vector<bool> exists,
                     QueryExists(conn_,
                                 "SELECT EXISTS(SELECT 1 FROM edges WHERE id = $1), "
                                 "EXISTS(SELECT 1 FROM nodes WHERE id = $2), "
                                 "EXISTS(SELECT 1 FROM nodes WHERE id = $3), "
                                 "EXISTS(SELECT 1 FROM scopes WHERE scope_id = $4)",
                                 Params()
                                     .Text(record.id)
                                     .Text(record.src)
                                     .Text(record.dst)
                                     .Int(record.scope_id),
                                 "insert edge"));
    if (exists[0]) return Status::AlreadyExists("edge " + record.id + " already exists");
    const std::pair<std::string_view, std::string_view> endpoints[] = {{"src", record.src},
                                                                       {"dst", record.dst}};
    for (std::size_t end_idx = 0; end_idx < 2; ++end_idx) {
      if (exists[1 + end_idx]) continue;
      const auto& [role, node_id] = endpoints[end_idx];
      return Status::NotFound("insert " + record.type + " edge: " + std::string(role) + " node " +
                              std::string(node_id.substr(0, 64)) + " does not exist");
    }
    if (!exists[3]) {
      return Status::NotFound("insert " + record.type + " edge: scope " +
                              std::to_string(record.scope_id) + " does not exist");
    }
    return Status::Internal("postgres: insert edge " + record.id +
                            ": the server inserted nothing, yet every check passes");
  }

  std::unique_lock<std::mutex> lock_;
  Connection& conn_;
  const VectorPrecision vector_precision_;
  // What this transaction knows without asking the server; it holds the write lock, so nothing
  // else changes these rows meanwhile. Nodes read or inserted here (kept current by
  // UpdateNodeState), and for each node inserted here every edge touching it (none at first,
  // then each InsertEdge; kept current by UpdateEdgeState), in row order.
  std::map<std::string, NodeRecord, std::less<>> nodes_;
  std::map<std::string, std::vector<EdgeRecord>, std::less<>> edges_of_;
  // The recorded embedder as PutVector last read it (unset: read it on the next call).
  std::optional<std::optional<EmbedderRecord>> embedder_;
  MerkleTables merkle_tables_;
  merkle::Writer merkle_;  // the leaves appended, written by Flush before COMMIT
  bool open_ = true;
};

// ---------------------------------------------------------------------------------------------
// Store.

class PostgresStore final : public Store {
 public:
  PostgresStore(ConnectSettings settings, PostgresOptions options,
                std::unique_ptr<Connection> writer)
      : settings_(std::move(settings)), options_(options), writer_(std::move(writer)) {}

  std::string_view backend() const override { return "postgres"; }

  StatusOr<std::unique_ptr<Transaction>> BeginWrite() override {
    std::unique_lock<std::mutex> lock(write_mutex_);
    RETURN_IF_ERROR(EnsureWriter());
    RETURN_IF_ERROR(writer_->Exec("BEGIN", "begin write transaction"));
    StatusOr<Result> locked = writer_->Query("SELECT pg_advisory_xact_lock($1)",
                                             Params().Int(kWriteLockKey),
                                             "wait for the other writers of the database");
    if (!locked.ok()) {
      static_cast<void>(writer_->Exec("ROLLBACK", "roll back write transaction"));
      return locked.status();
    }
    return std::unique_ptr<Transaction>(
        std::make_unique<PostgresTransaction>(std::move(lock), *writer_,
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
      // COLLATE "C": byte order, as SQLite's, whatever the database's collation.
      static const std::string kSql =
          Sql("SELECT ", kScopeColumns, " FROM scopes ORDER BY path COLLATE \"C\"");
      ASSIGN_OR_RETURN(Result rows, conn.Query(kSql, Params(), "list scopes"));
      return CollectRows<ScopeRecord>(rows, ReadScope);
    });
  }

  StatusOr<std::vector<ScopeRecord>> ScopeTree(std::int64_t scope_id) override {
    return WithReader([&](Connection& conn) -> StatusOr<std::vector<ScopeRecord>> {
      static const std::string kSql =
          Sql("WITH RECURSIVE tree(id) AS (SELECT scope_id FROM scopes WHERE scope_id = $1 "
              "UNION SELECT s.scope_id FROM scopes s JOIN tree ON s.parent_scope_id = tree.id) "
              "SELECT ",
              kScopeColumns, " FROM scopes WHERE scope_id IN (SELECT id FROM tree) ORDER BY scope_id");
      ASSIGN_OR_RETURN(Result rows, conn.Query(kSql, Params().Int(scope_id), "scope tree"));
      ASSIGN_OR_RETURN(std::vector<ScopeRecord> scopes, CollectRows<ScopeRecord>(rows, ReadScope));
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
      // One query for all rows, then put them in the order given.
      static const std::string kSql =
          Sql("SELECT ", kNodeColumns, " FROM nodes WHERE row_id = ANY($1::bigint[])");
      ASSIGN_OR_RETURN(Result found,
                       conn.Query(kSql, Params().IntArray({rows.begin(), rows.end()}),
                                  "get nodes by row"));
      ASSIGN_OR_RETURN(std::vector<NodeRecord> unordered, CollectRows<NodeRecord>(found, ReadNode));
      std::map<std::int64_t, std::size_t> by_row;
      for (std::size_t node_idx = 0; node_idx < unordered.size(); ++node_idx) {
        by_row[unordered[node_idx].row] = node_idx;
      }
      std::vector<NodeRecord> nodes;
      nodes.reserve(rows.size());
      for (const std::int64_t row : rows) {
        const auto it = by_row.find(row);
        if (it != by_row.end()) nodes.push_back(unordered[it->second]);
      }
      return nodes;
    });
  }

  StatusOr<std::vector<NodeRecord>> ListNodes(std::int64_t scope_id,
                                              const NodeFilter& filter) override {
    return WithReader([&](Connection& conn) { return QueryListNodes(conn, scope_id, filter); });
  }

  // The rows are read first and `visit` runs after the read connection went back to the pool,
  // so a visitor may call the store again without waiting for a connection it holds itself.
  Status ScanNodes(std::int64_t scope_id, std::optional<NodeKind> kind,
                   const std::function<bool(const NodeRecord&)>& visit) override {
    static const std::string kSql =
        Sql("SELECT ", kNodeColumns,
            " FROM nodes WHERE scope_id = $1 AND ($2::text IS NULL OR kind = $2) ORDER BY row_id");
    Params params;
    params.Int(scope_id);
    if (kind.has_value()) {
      params.Text(NodeKindName(*kind));
    } else {
      params.Null();
    }
    ASSIGN_OR_RETURN(const Result rows, WithReader([&](Connection& conn) {
                       return conn.Query(kSql, params, "scan nodes");
                     }));
    for (int row = 0; row < rows.size(); ++row) {
      ASSIGN_OR_RETURN(const NodeRecord node, ReadNode(rows, row));
      if (!visit(node)) return Status::Ok();
    }
    return Status::Ok();
  }

  StatusOr<std::int64_t> CountNodes(std::int64_t scope_id) override {
    return WithReader([&](Connection& conn) {
      return QueryInt(conn, "SELECT count(*) FROM nodes WHERE scope_id = $1",
                      Params().Int(scope_id), "count nodes");
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
      static const std::string kSql =
          Sql("SELECT ", kEdgeColumns,
              " FROM edges WHERE row_id IN (SELECT e.row_id FROM nodes n JOIN edges e ON e.src = "
              "n.id WHERE n.scope_id = $1 UNION SELECT e.row_id FROM nodes n JOIN edges e ON "
              "e.dst = n.id WHERE n.scope_id = $1) AND ($2 = '' OR type = $2) ORDER BY row_id");
      ASSIGN_OR_RETURN(Result rows,
                       conn.Query(kSql, Params().Int(scope_id).Text(type), "edges in scope"));
      return CollectRows<EdgeRecord>(rows, ReadEdge);
    });
  }

  // As ScanNodes: `visit` runs with no connection held.
  Status ScanEdges(std::int64_t scope_id,
                   const std::function<bool(const EdgeRecord&)>& visit) override {
    static const std::string kSql =
        Sql("SELECT ", kEdgeColumns, " FROM edges WHERE scope_id = $1 ORDER BY row_id");
    ASSIGN_OR_RETURN(const Result rows, WithReader([&](Connection& conn) {
                       return conn.Query(kSql, Params().Int(scope_id), "scan edges");
                     }));
    for (int row = 0; row < rows.size(); ++row) {
      if (!visit(ReadEdge(rows, row))) return Status::Ok();
    }
    return Status::Ok();
  }

  StatusOr<MerkleState> GetMerkleState(std::int64_t scope_id) override {
    return WithSnapshot([&](Connection& conn) {
      MerkleTables tables(conn);
      return merkle::StateOf(tables, scope_id);
    });
  }

  StatusOr<std::vector<MerkleLeaf>> GetMerkleLeaves(std::int64_t scope_id, MerkleLog log) override {
    return WithReader([&](Connection& conn) { return MerkleTables(conn).Leaves(scope_id, log); });
  }

  StatusOr<std::vector<JournalEntry>> ReadJournal(std::int64_t after_seq,
                                                  std::size_t limit) override {
    return WithReader([&](Connection& conn) -> StatusOr<std::vector<JournalEntry>> {
      static const std::string kSql = Sql("SELECT ", kJournalColumns,
                                          " FROM journal WHERE seq > $1 ORDER BY seq LIMIT "
                                          "$2::bigint");
      Params params;
      params.Int(after_seq);
      if (limit == 0) {
        params.Null();
      } else {
        params.Int(static_cast<std::int64_t>(limit));
      }
      ASSIGN_OR_RETURN(Result rows, conn.Query(kSql, params, "read journal"));
      return CollectRows<JournalEntry>(rows, ReadJournalEntry);
    });
  }

  StatusOr<std::vector<JournalEntry>> JournalFor(std::string_view target_id) override {
    return WithReader([&](Connection& conn) -> StatusOr<std::vector<JournalEntry>> {
      static const std::string kSql =
          Sql("SELECT ", kJournalColumns, " FROM journal WHERE target_id = $1 ORDER BY seq");
      ASSIGN_OR_RETURN(Result rows, conn.Query(kSql, Params().Text(target_id), "journal for target"));
      return CollectRows<JournalEntry>(rows, ReadJournalEntry);
    });
  }

  StatusOr<std::int64_t> LastJournalSeq() override {
    return WithReader([&](Connection& conn) {
      return QueryInt(conn, "SELECT max(seq) FROM journal", Params(), "last journal seq");
    });
  }

  StatusOr<std::optional<EmbedderRecord>> GetEmbedder() override {
    return WithReader([&](Connection& conn) { return QueryEmbedder(conn); });
  }

  StatusOr<std::vector<std::pair<std::string, std::string>>> ListMeta(
      std::string_view prefix) override {
    RETURN_IF_ERROR(CheckEngineMetaKey(prefix));
    return WithReader(
        [&](Connection& conn) -> StatusOr<std::vector<std::pair<std::string, std::string>>> {
          ASSIGN_OR_RETURN(Result rows,
                           conn.Query("SELECT key, value FROM meta WHERE left(key, $2::int) = $1 "
                                      "ORDER BY key COLLATE \"C\"",
                                      Params().Text(prefix).Int(
                                          static_cast<std::int64_t>(prefix.size())),
                                      "list meta"));
          std::vector<std::pair<std::string, std::string>> entries;
          for (int row = 0; row < rows.size(); ++row) {
            entries.emplace_back(std::string(rows.Text(row, 0)), std::string(rows.Text(row, 1)));
          }
          return entries;
        });
  }

  // On the listener connection (opened on first use, LISTENing on kJournalChannel): LISTEN is in
  // force before the journal's last seq is read, so a commit after that read sends a notification
  // this wait receives. The seq is read again on each notification and when the timeout passes
  // (the fallback poll). One waiter at a time: others wait for listen_mutex_.
  StatusOr<std::int64_t> WaitForJournal(std::int64_t after_seq, std::chrono::milliseconds timeout,
                                        std::stop_token stop) override {
    constexpr std::chrono::milliseconds kStopCheck{100};
    static const std::string kLastSeq = "SELECT max(seq) FROM journal";
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    std::lock_guard<std::mutex> lock(listen_mutex_);
    if (listener_ == nullptr || !listener_->healthy()) {
      listener_.reset();
      ASSIGN_OR_RETURN(std::unique_ptr<Connection> opened, Connection::Open(settings_));
      RETURN_IF_ERROR(opened->Exec("LISTEN " + std::string(kJournalChannel),
                                   "listen for journal changes"));
      listener_ = std::move(opened);
    }
    RETURN_IF_ERROR(listener_->DiscardNotifications());
    ASSIGN_OR_RETURN(std::int64_t last,
                     QueryInt(*listener_, kLastSeq, Params(), "last journal seq"));
    while (last <= after_seq && !stop.stop_requested()) {
      const auto now = std::chrono::steady_clock::now();
      if (now >= deadline) {
        return QueryInt(*listener_, kLastSeq, Params(), "last journal seq");
      }
      const auto slice = std::min<std::chrono::milliseconds>(
          kStopCheck, std::chrono::ceil<std::chrono::milliseconds>(deadline - now));
      ASSIGN_OR_RETURN(const bool notified, listener_->WaitForNotification(slice));
      if (notified) {
        ASSIGN_OR_RETURN(last, QueryInt(*listener_, kLastSeq, Params(), "last journal seq"));
      }
    }
    return last;
  }

  // As ScanNodes: `visit` runs with no connection held.
  Status ScanVectors(
      std::int64_t scope_id,
      const std::function<bool(std::int64_t row, std::span<const float> values)>& visit) override {
    ASSIGN_OR_RETURN(const Result rows, WithReader([&](Connection& conn) {
                       return conn.Query("SELECT v.node_row, v.dimension, v.vector FROM vectors v "
                                         "JOIN nodes n ON n.row_id = v.node_row "
                                         "WHERE n.scope_id = $1 ORDER BY v.node_row",
                                         Params().Int(scope_id), "scan vectors");
                     }));
    std::vector<float> values;
    for (int row = 0; row < rows.size(); ++row) {
      const std::int64_t node_row = rows.Int(row, 0);
      RETURN_IF_ERROR(
          DecodeVector(rows.Bytes(row, 2), rows.Int(row, 1), node_row, "postgres", &values));
      if (!visit(node_row, values)) return Status::Ok();
    }
    return Status::Ok();
  }

  StatusOr<std::vector<VectorRecord>> GetVectorsByRow(std::span<const std::int64_t> rows) override {
    return WithReader([&](Connection& conn) -> StatusOr<std::vector<VectorRecord>> {
      ASSIGN_OR_RETURN(Result found,
                       conn.Query("SELECT node_row, dimension, vector FROM vectors "
                                  "WHERE node_row = ANY($1::bigint[])",
                                  Params().IntArray({rows.begin(), rows.end()}),
                                  "get vectors by row"));
      std::map<std::int64_t, int> by_row;
      for (int row = 0; row < found.size(); ++row) by_row[found.Int(row, 0)] = row;
      std::vector<VectorRecord> records;
      for (const std::int64_t node_row : rows) {
        const auto it = by_row.find(node_row);
        if (it == by_row.end()) continue;
        VectorRecord record;
        record.row = node_row;
        RETURN_IF_ERROR(DecodeVector(found.Bytes(it->second, 2), found.Int(it->second, 1),
                                     node_row, "postgres", &record.values));
        records.push_back(std::move(record));
      }
      return records;
    });
  }

  StatusOr<std::int64_t> CountVectors(std::int64_t scope_id) override {
    return WithReader([&](Connection& conn) {
      return QueryInt(conn,
                      "SELECT count(*) FROM vectors v JOIN nodes n ON n.row_id = v.node_row "
                      "WHERE n.scope_id = $1",
                      Params().Int(scope_id), "count vectors");
    });
  }

  StatusOr<std::vector<TurnAnalysisRecord>> GetTurnAnalyses(
      std::span<const std::int64_t> turn_rows) override {
    return WithReader([&](Connection& conn) { return QueryTurnAnalyses(conn, turn_rows); });
  }

  StatusOr<std::optional<ProjectionSnapshot>> GetProjectionSnapshot(
      std::int64_t scope_id, std::string_view projection) override {
    ASSIGN_OR_RETURN(const Result rows, WithReader([&](Connection& conn) {
                       return conn.Query(
                           "SELECT key, journal_seq, item_count, data FROM "
                           "projection_snapshots WHERE scope_id = $1 AND "
                           "projection = $2",
                           Params().Int(scope_id).Text(projection), "get projection snapshot");
                     }));
    if (rows.size() == 0) return std::optional<ProjectionSnapshot>();
    ProjectionSnapshot snapshot;
    snapshot.scope_id = scope_id;
    snapshot.projection = std::string(projection);
    snapshot.key = rows.Text(0, 0);
    snapshot.journal_seq = rows.Int(0, 1);
    snapshot.item_count = rows.Int(0, 2);
    snapshot.data = std::string(rows.Bytes(0, 3));
    return std::optional<ProjectionSnapshot>(std::move(snapshot));
  }

  StatusOr<EraseCounts> EraseScopes(std::span<const std::int64_t> scope_ids) override;

  StatusOr<std::string> DumpCanonical() override;

 private:
  // Reconnects the writer when the server dropped it. Called with write_mutex_ held.
  Status EnsureWriter() {
    if (writer_ != nullptr && writer_->healthy()) return Status::Ok();
    writer_.reset();
    ASSIGN_OR_RETURN(writer_, Connection::Open(settings_));
    return Status::Ok();
  }

  // Runs `fn(connection)` on a pooled read connection in autocommit mode: for reads of one
  // statement, which PostgreSQL runs on one snapshot of the last commit anyway, so they cost one
  // round trip instead of three.
  template <typename Fn>
  auto WithReader(Fn&& fn) -> decltype(fn(std::declval<Connection&>())) {
    ASSIGN_OR_RETURN(std::unique_ptr<Connection> conn, AcquireReader());
    auto result = fn(*conn);
    ReleaseReader(std::move(conn));
    return result;
  }

  // As WithReader, inside one REPEATABLE READ READ ONLY transaction: for reads of several
  // statements, which must all see the same commit.
  template <typename Fn>
  auto WithSnapshot(Fn&& fn) -> decltype(fn(std::declval<Connection&>())) {
    ASSIGN_OR_RETURN(std::unique_ptr<Connection> conn, AcquireReader());
    auto result = [&]() -> decltype(fn(std::declval<Connection&>())) {
      RETURN_IF_ERROR(
          conn->Exec("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", "begin read"));
      auto inner = fn(*conn);
      if (!inner.ok()) {
        static_cast<void>(conn->Exec("ROLLBACK", "end read"));
        return inner;
      }
      RETURN_IF_ERROR(conn->Exec("COMMIT", "end read"));
      return inner;
    }();
    ReleaseReader(std::move(conn));
    return result;
  }

  // An idle read connection, a new one while the pool has room, or else the next one released.
  StatusOr<std::unique_ptr<Connection>> AcquireReader() {
    {
      std::unique_lock<std::mutex> lock(pool_mutex_);
      const std::size_t max_readers = std::max<std::size_t>(options_.pool_size, 2) - 1;
      pool_released_.wait(lock, [&] { return !idle_readers_.empty() || open_readers_ < max_readers; });
      if (!idle_readers_.empty()) {
        std::unique_ptr<Connection> conn = std::move(idle_readers_.back());
        idle_readers_.pop_back();
        return conn;
      }
      ++open_readers_;
    }
    StatusOr<std::unique_ptr<Connection>> opened = Connection::Open(settings_);
    if (!opened.ok()) ReleaseReader(nullptr);
    return opened;
  }

  // Returns a read connection to the pool; a lost one (or nullptr) frees its slot.
  void ReleaseReader(std::unique_ptr<Connection> conn) {
    {
      std::lock_guard<std::mutex> lock(pool_mutex_);
      if (conn != nullptr && conn->healthy()) {
        idle_readers_.push_back(std::move(conn));
      } else {
        --open_readers_;
      }
    }
    pool_released_.notify_one();
  }

  const ConnectSettings settings_;
  const PostgresOptions options_;
  // Held by the open Transaction (or EraseScopes); guards writer_.
  std::mutex write_mutex_;
  std::unique_ptr<Connection> writer_;
  // Guards idle_readers_ and open_readers_; never held while a query runs.
  std::mutex pool_mutex_;
  std::condition_variable pool_released_;
  std::vector<std::unique_ptr<Connection>> idle_readers_;
  std::size_t open_readers_ = 0;  // idle or lent out
  // Held by WaitForJournal; guards listener_ (a connection LISTENing on kJournalChannel, outside
  // the pool: it is opened on the first wait and not counted in pool_size).
  std::mutex listen_mutex_;
  std::unique_ptr<Connection> listener_;
};

StatusOr<EraseCounts> PostgresStore::EraseScopes(std::span<const std::int64_t> scope_ids) {
  std::lock_guard<std::mutex> lock(write_mutex_);
  RETURN_IF_ERROR(EnsureWriter());
  Connection& conn = *writer_;
  EraseCounts counts;
  // The erase itself, in one transaction: all of it or (on an error) none of it.
  const Status erased = [&]() -> Status {
    RETURN_IF_ERROR(conn.Exec("BEGIN", "erase scopes: begin"));
    ASSIGN_OR_RETURN(Result locked, conn.Query("SELECT pg_advisory_xact_lock($1)",
                                               Params().Int(kWriteLockKey),
                                               "erase scopes: wait for the other writers"));
    static_cast<void>(locked);
    for (const std::int64_t scope_id : scope_ids) {
      ASSIGN_OR_RETURN(const std::optional<ScopeRecord> scope, QueryScopeById(conn, scope_id));
      if (!scope.has_value()) {
        return Status::NotFound("erase scopes: scope " + std::to_string(scope_id) +
                                " does not exist");
      }
    }
    // The scopes named and every scope nested in them, in scope_id order.
    static const std::string kTreeSql =
        Sql("WITH RECURSIVE tree(id) AS (SELECT unnest($1::bigint[]) UNION "
            "SELECT s.scope_id FROM scopes s JOIN tree ON s.parent_scope_id = tree.id) SELECT ",
            kScopeColumns, " FROM scopes WHERE scope_id IN (SELECT id FROM tree) ORDER BY scope_id");
    ASSIGN_OR_RETURN(Result tree_rows,
                     conn.Query(kTreeSql, Params().IntArray({scope_ids.begin(), scope_ids.end()}),
                                "erase scopes: collect nested scopes"));
    ASSIGN_OR_RETURN(const std::vector<ScopeRecord> tree,
                     CollectRows<ScopeRecord>(tree_rows, ReadScope));
    std::vector<std::int64_t> ids;
    for (const ScopeRecord& scope : tree) ids.push_back(scope.scope_id);
    // Tombstones carry the store's latest transaction time: erasing reads no clock.
    ASSIGN_OR_RETURN(const std::int64_t latest_at,
                     QueryInt(conn, "SELECT max(at) FROM journal", Params(), "erase scopes: time"));
    // The Merkle logs that change: surviving scopes holding an edge that touches an erased node,
    // and the surviving parents of erased scopes (their nested scopes change).
    std::set<std::int64_t> merkle_edge_scopes;
    {
      ASSIGN_OR_RETURN(
          Result rows,
          conn.Query("SELECT DISTINCT scope_id FROM edges WHERE "
                     "NOT (scope_id = ANY($1::bigint[])) AND (src IN (SELECT id FROM "
                     "nodes WHERE scope_id = ANY($1::bigint[])) OR dst IN (SELECT id "
                     "FROM nodes WHERE scope_id = ANY($1::bigint[])))",
                     Params().IntArray(ids), "erase scopes: find changed merkle logs"));
      for (int row = 0; row < rows.size(); ++row) merkle_edge_scopes.insert(rows.Int(row, 0));
    }
    std::map<std::int64_t, std::int64_t> nodes_per_scope;
    {
      ASSIGN_OR_RETURN(Result rows, conn.Query("SELECT scope_id, count(*) FROM nodes WHERE "
                                               "scope_id = ANY($1::bigint[]) GROUP BY scope_id",
                                               Params().IntArray(ids), "erase scopes: count nodes"));
      for (int row = 0; row < rows.size(); ++row) nodes_per_scope[rows.Int(row, 0)] = rows.Int(row, 1);
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
        {"DELETE FROM journal WHERE scope_id = ANY($1::bigint[]) "
         "OR target_id IN (SELECT id FROM nodes WHERE scope_id = ANY($1::bigint[])) "
         "OR target_id IN (SELECT e.id FROM edges e WHERE e.scope_id = ANY($1::bigint[]) "
         "OR e.src IN (SELECT id FROM nodes WHERE scope_id = ANY($1::bigint[])) "
         "OR e.dst IN (SELECT id FROM nodes WHERE scope_id = ANY($1::bigint[])))",
         &counts.journal_entries},
        {"DELETE FROM edges WHERE scope_id = ANY($1::bigint[]) "
         "OR src IN (SELECT id FROM nodes WHERE scope_id = ANY($1::bigint[])) "
         "OR dst IN (SELECT id FROM nodes WHERE scope_id = ANY($1::bigint[]))",
         &counts.edges},
        {"DELETE FROM vectors WHERE node_row IN (SELECT row_id FROM nodes WHERE "
         "scope_id = ANY($1::bigint[]))",
         &erased_vectors},
        {"DELETE FROM turn_analysis WHERE turn_row IN (SELECT row_id FROM nodes WHERE "
         "scope_id = ANY($1::bigint[]))",
         &erased_analyses},
        {"DELETE FROM projection_snapshots WHERE scope_id = ANY($1::bigint[])", &erased_snapshots},
        {"DELETE FROM nodes WHERE scope_id = ANY($1::bigint[])", &counts.nodes},
        {"DELETE FROM scopes WHERE scope_id = ANY($1::bigint[])", &counts.scopes},
    };
    for (const Step& step : steps) {
      ASSIGN_OR_RETURN(Result done, conn.Query(step.sql, Params().IntArray(ids), "erase scopes: delete"));
      *step.count = static_cast<std::size_t>(done.AffectedRows());
    }
    MerkleTables merkle_tables(conn);
    RETURN_IF_ERROR(
        merkle::AfterErase(merkle_tables, ids, merkle_edge_scopes, merkle::SurvivingParents(tree)));
    for (const ScopeRecord& scope : tree) {
      RETURN_IF_ERROR(AppendJournal(
          conn, scope.scope_id, JournalOp::kScopeErased, scope.node_id, 0, Timestamp{latest_at},
          "erased nodes=" + std::to_string(nodes_per_scope[scope.scope_id])));
    }
    return conn.Exec(kNotifyAndCommit, "erase scopes: commit");
  }();
  if (!erased.ok()) {
    static_cast<void>(conn.Exec("ROLLBACK", "erase scopes: roll back"));
    return Status(erased.code(), "nothing was erased: " + erased.message());
  }
  // A DELETE only marks rows dead; plain VACUUM frees their space but leaves their bytes in the
  // page until reused. VACUUM FULL writes each table (and its TOAST table and indexes) into new
  // files and unlinks the old ones; CHECKPOINT then lets the server recycle the WAL segments
  // that still hold the text. A failure from here on comes after the commit: say so.
  const Status wiped = [&]() -> Status {
    RETURN_IF_ERROR(conn.Exec("SET statement_timeout = 0", "erase scopes: lift the timeout"));
    const Status vacuumed = conn.Exec(
        "VACUUM (FULL) journal, edges, vectors, turn_analysis, projection_snapshots, nodes, "
        "scopes, merkle_leaves, merkle_roots",
        "erase scopes: rewrite the tables (VACUUM FULL)");
    const Status checkpointed =
        vacuumed.ok() ? conn.Exec("CHECKPOINT", "erase scopes: CHECKPOINT (needs superuser or "
                                                "the pg_checkpoint role)")
                      : vacuumed;
    RETURN_IF_ERROR(conn.Exec("SET statement_timeout = " +
                                  std::to_string(settings_.statement_timeout_ms),
                              "erase scopes: restore the timeout"));
    return checkpointed;
  }();
  if (!wiped.ok()) {
    counts.wipe_status = Status(
        wiped.code(),
        "postgres: erase scopes: the erase is committed, but wiping the freed space failed; "
        "erased text may remain in the table files until the next VACUUM FULL, and in the "
        "write-ahead log until it is recycled: " +
            wiped.message());
  }
  return counts;
}

StatusOr<std::string> PostgresStore::DumpCanonical() {
  return WithSnapshot([&](Connection& conn) -> StatusOr<std::string> {
    struct Table {
      std::string_view name;
      std::string_view order_by;
    };
    static constexpr Table kTables[] = {
        {"meta", "key COLLATE \"C\""},
        {"scopes", "scope_id"},
        {"nodes", "row_id"},
        {"edges", "row_id"},
        {"vectors", "node_row"},
        {"turn_analysis", "turn_row"},
        {"journal", "seq"},
        {"merkle_leaves", "scope_id, log COLLATE \"C\", idx"},
        {"merkle_roots", "scope_id"},
    };
    std::string out;
    for (const Table& table : kTables) {
      out += "== ";
      out += table.name;
      out += '\n';
      ASSIGN_OR_RETURN(Result rows, conn.Query("SELECT * FROM " + std::string(table.name) +
                                                   " ORDER BY " + std::string(table.order_by),
                                               Params(), "dump table"));
      for (int row = 0; row < rows.size(); ++row) {
        for (int column = 0; column < rows.columns(); ++column) {
          if (column > 0) out += ' ';
          out += rows.ColumnName(column);
          out += '=';
          if (rows.IsNull(row, column)) {
            out += "null";
          } else if (rows.IsBytea(column)) {
            out += HexDumpBytes(rows.Bytes(row, column));
          } else {
            out += QuoteDumpText(rows.Text(row, column));
          }
        }
        out += '\n';
      }
    }
    // The identity sequences are left out: PostgreSQL does not roll them back with a
    // transaction, so a rolled-back write would change the dump without changing the data.
    return out;
  });
}

}  // namespace

StatusOr<std::unique_ptr<Store>> Open(std::string_view url, const PostgresOptions& options) {
  if (!IsPostgresUrl(url)) {
    return Status::InvalidArgument("postgres: \"" + RedactStoreLocation(url) +
                                   "\" is not a postgresql:// or postgres:// URL");
  }
  ConnectSettings settings;
  settings.url = std::string(url);
  settings.connect_timeout_seconds = options.connect_timeout_seconds;
  settings.statement_timeout_ms = options.statement_timeout_ms;
  ASSIGN_OR_RETURN(std::unique_ptr<Connection> writer, Connection::Open(settings));
  RETURN_IF_ERROR(ApplyMigrations(*writer, options.create_if_missing));
  return std::unique_ptr<Store>(
      std::make_unique<PostgresStore>(std::move(settings), options, std::move(writer)));
}

}  // namespace engram::store::postgres

namespace engram::store {

StatusOr<std::unique_ptr<Store>> OpenPostgresStore(std::string_view url,
                                                   const PostgresOptions& options) {
  return postgres::Open(url, options);
}

StatusOr<std::unique_ptr<Store>> OpenStore(std::string_view location, const StoreOptions& options) {
  if (IsPostgresUrl(location)) return OpenPostgresStore(location, options.postgres);
  return OpenSqliteStore(location, options.sqlite);
}

}  // namespace engram::store
