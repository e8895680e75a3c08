// SQLite implementation of store::Store and store::Transaction (see sqlite_store.h).
//
// The reads and writes both SQL backends run alike are sql::SqlStore's and sql::SqlTransaction's
// (store/sql/sql_store.h), over SqliteSession (sqlite_session.h). This file holds what SQLite
// does its own way: writes checked statement by statement inside a SAVEPOINT (so a failed call
// leaves the open transaction exactly as it was before the call), BEGIN IMMEDIATE among
// processes, scans through the scope's covering index, erase with a WAL checkpoint, the dump,
// and opening a file (read-only when it cannot be written).
#include "store/sqlite/sqlite_store.h"

#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "store/backend_common.h"
#include "store/journal.h"
#include "store/sql/records.h"
#include "store/sql/sql_store.h"
#include "store/sqlite/connection.h"
#include "store/sqlite/integrity.h"
#include "store/sqlite/merkle_sqlite.h"
#include "store/sqlite/migrations.h"
#include "store/sqlite/sqlite_session.h"
#include "store/turn_analysis.h"

namespace engram::store::sqlite {
namespace {

using sql::kEdgeColumns;
using sql::kNodeColumns;
using sql::kScopeColumns;
using sql::Sql;

// Runs `fn` inside a SAVEPOINT: on error everything `fn` did is undone and the enclosing
// transaction continues as before. The savepoint statements are prepared once (Connection's
// cache) rather than parsed again for every inserted row.
Status RunCached(Connection& conn, std::string_view sql, std::string_view operation) {
  ASSIGN_OR_RETURN(Statement statement, conn.Prepare(sql, operation));
  return statement.Run();
}

Status InSavepoint(Connection& conn, const std::function<Status()>& fn) {
  RETURN_IF_ERROR(RunCached(conn, "SAVEPOINT engram_op", "savepoint"));
  Status result = fn();
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

// The writer connection is inside BEGIN IMMEDIATE while the transaction is open. Each write
// checks what it needs (a known scope, nodes, a new id) with a read first, inside a SAVEPOINT.
class SqliteTransaction final : public sql::SqlTransaction {
 public:
  SqliteTransaction(std::unique_lock<std::mutex> lock, Connection& conn,
                    VectorPrecision vector_precision)
      : SqlTransaction(std::move(lock), std::make_unique<SqliteSession>(conn), vector_precision),
        conn_(conn) {}

  StatusOr<std::int64_t> InsertNode(const NodeRecord& record) override {
    RETURN_IF_ERROR(CheckOpen());
    if (record.id.empty()) return Status::InvalidArgument("insert node: empty id");
    std::int64_t row = 0;
    RETURN_IF_ERROR(Atomically([&]() -> Status {
      ASSIGN_OR_RETURN(const std::optional<NodeRecord> existing,
                       sql::QueryNode(session(), record.id));
      if (existing.has_value()) {
        return Status::AlreadyExists("node " + record.id + " already exists");
      }
      ASSIGN_OR_RETURN(const std::optional<ScopeRecord> scope,
                       sql::QueryScopeById(session(), record.scope_id));
      if (!scope.has_value()) {
        return Status::NotFound("insert node " + record.id + ": scope " +
                                std::to_string(record.scope_id) + " does not exist");
      }
      ASSIGN_OR_RETURN(row, sql::InsertNodeRow(session(), record));
      RETURN_IF_ERROR(sql::AppendJournal(
          session(), record.scope_id, JournalOp::kNodeInserted, record.id, row,
          record.ingested_at,
          "kind=" + std::string(NodeKindName(record.kind)) + " " +
              StateDetail(NodeStatusName(record.status), record.valid_to, "")));
      merkle_writer().AppendNode(record);
      return Status::Ok();
    }));
    return row;
  }

  Status UpdateNodeState(std::string_view id, NodeStatus status, std::optional<Timestamp> valid_to,
                         Timestamp updated_at, std::string_view journal_detail) override {
    RETURN_IF_ERROR(CheckOpen());
    return Atomically([&]() -> Status {
      ASSIGN_OR_RETURN(const NodeRecord node, sql::RequireNode(session(), id));
      RETURN_IF_ERROR(session()
                          .Execute("UPDATE nodes SET status = ?2, valid_to = ?3, "
                                   "updated_at = ?4 WHERE id = ?1",
                                   sql::Params()
                                       .Text(id)
                                       .Text(NodeStatusName(status))
                                       .Time(valid_to)
                                       .Int(updated_at.micros),
                                   "update node state")
                          .status());
      return sql::AppendJournal(session(), node.scope_id, JournalOp::kNodeUpdated, node.id,
                                node.row, updated_at,
                                StateDetail(NodeStatusName(status), valid_to, journal_detail));
    });
  }

  StatusOr<std::int64_t> InsertEdge(const EdgeWriteKey& /*key*/,
                                    const EdgeRecord& record) override {
    RETURN_IF_ERROR(CheckOpen());
    RETURN_IF_ERROR(CheckNewEdge(record));
    std::int64_t row = 0;
    RETURN_IF_ERROR(Atomically([&]() -> Status {
      ASSIGN_OR_RETURN(const std::optional<EdgeRecord> existing,
                       sql::QueryEdge(session(), record.id));
      if (existing.has_value()) {
        return Status::AlreadyExists("edge " + record.id + " already exists");
      }
      const std::pair<std::string_view, std::string_view> endpoints[] = {{"src", record.src},
                                                                         {"dst", record.dst}};
      for (const auto& [role, node_id] : endpoints) {
        ASSIGN_OR_RETURN(const std::optional<NodeRecord> node, sql::QueryNode(session(), node_id));
        if (!node.has_value()) {
          return Status::NotFound("insert " + record.type + " edge: " + std::string(role) +
                                  " node " + std::string(node_id.substr(0, 64)) +
                                  " does not exist");
        }
      }
      ASSIGN_OR_RETURN(const std::optional<ScopeRecord> scope,
                       sql::QueryScopeById(session(), record.scope_id));
      if (!scope.has_value()) {
        return Status::NotFound("insert " + record.type + " edge: scope " +
                                std::to_string(record.scope_id) + " does not exist");
      }
      ASSIGN_OR_RETURN(row, sql::QueryInt(session(),
                                          "INSERT INTO edges(id, type, src, dst, scope_id, "
                                          "attrs_json, status, valid_from, valid_to, ingested_at, "
                                          "updated_at) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, "
                                          "?10, ?11) RETURNING row_id",
                                          sql::EdgeParams(record), "insert edge"));
      RETURN_IF_ERROR(sql::AppendJournal(session(), record.scope_id, JournalOp::kEdgeInserted,
                                         record.id, row, record.ingested_at,
                                         "type=" + record.type + " status=" + record.status));
      merkle_writer().AppendEdge(record);
      return Status::Ok();
    }));
    return row;
  }

  Status UpdateEdgeState(const EdgeWriteKey& /*key*/, std::string_view id, std::string_view status,
                         std::optional<Timestamp> valid_to, Timestamp updated_at) override {
    RETURN_IF_ERROR(CheckOpen());
    RETURN_IF_ERROR(CheckEdgeStatus(status));
    return Atomically([&]() -> Status {
      ASSIGN_OR_RETURN(const EdgeRecord edge, sql::RequireEdge(session(), id));
      RETURN_IF_ERROR(session()
                          .Execute("UPDATE edges SET status = ?2, valid_to = ?3, "
                                   "updated_at = ?4 WHERE id = ?1",
                                   sql::Params().Text(id).Text(status).Time(valid_to).Int(
                                       updated_at.micros),
                                   "update edge state")
                          .status());
      return sql::AppendJournal(session(), edge.scope_id, JournalOp::kEdgeUpdated, edge.id,
                                edge.row, updated_at,
                                StateDetail(status, valid_to, "type=" + edge.type));
    });
  }

  Status PutVector(std::string_view node_id, std::string_view model_id,
                   std::span<const float> values) override {
    RETURN_IF_ERROR(CheckOpen());
    ASSIGN_OR_RETURN(const std::optional<EmbedderRecord> embedder, RecordedEmbedder());
    RETURN_IF_ERROR(CheckVector(embedder, model_id, values));
    ASSIGN_OR_RETURN(const NodeRecord node, sql::RequireNode(session(), node_id));
    RETURN_IF_ERROR(session()
                        .Execute("INSERT INTO vectors(node_row, model_id, dimension, vector) "
                                 "VALUES(?1, ?2, ?3, ?4) ON CONFLICT(node_row) DO UPDATE SET "
                                 "model_id = excluded.model_id, dimension = excluded.dimension, "
                                 "vector = excluded.vector",
                                 sql::Params()
                                     .Int(node.row)
                                     .Text(model_id)
                                     .Int(static_cast<std::int64_t>(values.size()))
                                     .Bytes(EncodeVector(values, vector_precision())),
                                 "put vector")
                        .status());
    return sql::AppendJournal(session(), node.scope_id, JournalOp::kVectorStored, node.id,
                              node.row, node.ingested_at, "model=" + std::string(model_id));
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
    sql::Params params;
    params.Int(record.turn_row).Int(record.format);
    if (record.format == kTurnAnalysisCompactFormat) {
      params.Bytes(record.bytes);  // bytes, not text
    } else {
      params.Text(record.bytes);
    }
    return session()
        .Execute("INSERT INTO turn_analysis(turn_row, format, analysis) VALUES(?1, ?2, ?3) "
                 "ON CONFLICT(turn_row) DO UPDATE SET format = excluded.format, "
                 "analysis = excluded.analysis",
                 params, "put turn analysis")
        .status();
  }

 protected:
  Status Atomically(const std::function<Status()>& fn) override { return InSavepoint(conn_, fn); }

 private:
  Connection& conn_;
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


class SqliteStore final : public sql::SqlStore {
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
        std::make_unique<SqliteTransaction>(std::move(lock), *writer_, options_.vector_precision));
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
      StatementRows found(std::move(stmt));
      std::vector<std::optional<NodeRecord>> by_position(rows.size());
      while (true) {
        ASSIGN_OR_RETURN(const bool has_row, found.Next());
        if (!has_row) break;
        const auto at = static_cast<std::size_t>(found.Int(0));
        ASSIGN_OR_RETURN(NodeRecord node, sql::ReadNode(found, "sqlite", 1));
        if (at < by_position.size()) by_position[at] = std::move(node);
      }
      std::vector<NodeRecord> nodes;
      nodes.reserve(rows.size());
      for (std::optional<NodeRecord>& node : by_position) {
        if (node.has_value()) nodes.push_back(std::move(*node));
      }
      return nodes;
    });
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
      sql::Params params;
      params.Int(scope_id);
      if (!type.empty()) params.Text(type);
      SqliteSession session(conn);
      return sql::QueryRows<EdgeRecord>(session, type.empty() ? kAllTypes : kOneType, params,
                                        "edges in scope", sql::ReadEdge);
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

  StatusOr<EraseCounts> EraseScopes(std::span<const std::int64_t> scope_ids) override;

 protected:
  // SQLite's AUTOINCREMENT counters: a rolled-back insert does not move them.
  std::span<const DumpTable> backend_dump_tables() const override {
    static constexpr DumpTable kTables[] = {{"sqlite_sequence", "name"}};
    return kTables;
  }

  // `visit` runs while the rows are stepped, inside the read transaction: do not call
  // EraseScopes from it (its checkpoint would wait for this read).
  Status ScanRows(std::string_view sql, const sql::Params& params, std::string_view operation,
                  const std::function<StatusOr<bool>(const sql::Rows&)>& visit) override {
    return WithReader([&](Connection& conn) -> Status {
      SqliteSession session(conn);
      ASSIGN_OR_RETURN(std::unique_ptr<sql::Rows> rows, session.Query(sql, params, operation));
      return sql::VisitRows(*rows, visit);
    });
  }

  std::string_view scan_nodes_sql() const override {
    // The scope's rows come from the covering index on (scope_id, sequence), sorted as row
    // ids alone; a plain `WHERE scope_id = ?1 ORDER BY row_id` sorts the whole rows (texts
    // included) in a temporary B-tree instead: at 100,000 turns most of the scan's cost.
    static const std::string kSql =
        Sql("SELECT ", kNodeColumns,
            " FROM nodes WHERE row_id IN (SELECT row_id FROM nodes WHERE scope_id = ?1) "
            "AND (?2 IS NULL OR kind = ?2) ORDER BY row_id");
    return kSql;
  }

  Status Read(ReadMode /*mode: every read is one read transaction*/,
              const std::function<Status(sql::Session&)>& fn) override {
    return WithReader([&](Connection& conn) {
      SqliteSession session(conn);
      return fn(session);
    });
  }

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
  SqliteSession session(*writer_);
  EraseCounts counts;
  // The erase itself, in one transaction: all of it or (on an error) none of it.
  const Status erased = [&]() -> Status {
    // Takes the lock as BeginWrite does; the ScopedSqlTransaction's BEGIN is then a no-op
    // ("BEGIN" inside a transaction is an error, so it opens with a SAVEPOINT instead).
    RETURN_IF_ERROR(BeginImmediate(*writer_, "erase scopes: begin"));
    ScopedSqlTransaction txn(*writer_, "SAVEPOINT erase_scopes");
    if (!txn.status().ok()) static_cast<void>(writer_->Exec("ROLLBACK", "erase scopes: rollback"));
    RETURN_IF_ERROR(txn.status());
    RETURN_IF_ERROR(sql::RequireScopes(session, scope_ids));
    // The scopes named and every scope nested in them, in scope_id order, in a temporary table.
    RETURN_IF_ERROR(writer_->Exec(
        "CREATE TEMP TABLE IF NOT EXISTS erase_scope_ids(scope_id INTEGER PRIMARY KEY); "
        "DELETE FROM temp.erase_scope_ids",
        "erase scopes: prepare"));
    for (const std::int64_t scope_id : scope_ids) {
      RETURN_IF_ERROR(session
                          .Execute("INSERT OR IGNORE INTO temp.erase_scope_ids(scope_id) "
                                   "VALUES(?1)",
                                   sql::Params().Int(scope_id), "erase scopes: collect scopes")
                          .status());
    }
    RETURN_IF_ERROR(writer_->Exec(
        "INSERT OR IGNORE INTO temp.erase_scope_ids(scope_id) "
        "WITH RECURSIVE tree(id) AS (SELECT scope_id FROM temp.erase_scope_ids UNION "
        "SELECT s.scope_id FROM scopes s JOIN tree ON s.parent_scope_id = tree.id) "
        "SELECT id FROM tree",
        "erase scopes: collect nested scopes"));
    static const std::string kTreeSql =
        Sql("SELECT ", kScopeColumns,
            " FROM scopes WHERE scope_id IN temp.erase_scope_ids ORDER BY scope_id");
    ASSIGN_OR_RETURN(const std::vector<ScopeRecord> tree,
                     sql::QueryRows<ScopeRecord>(session, kTreeSql, sql::Params(),
                                                 "erase scopes: list", sql::ReadScope));
    ASSIGN_OR_RETURN(counts,
                     sql::EraseRows(session, tree, " IN temp.erase_scope_ids", sql::Params()));
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
