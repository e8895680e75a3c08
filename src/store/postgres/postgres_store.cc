// PostgreSQL implementation of store::Store and store::Transaction (see postgres_store.h).
//
// The reads and writes both SQL backends run alike are sql::SqlStore's and sql::SqlTransaction's
// (store/sql/sql_store.h), over PostgresSession (postgres_session.h). This file holds what
// PostgreSQL does its own way: inserts and state changes of one round trip each (their checks
// and journal entry in the statement), a write transaction's caches, its advisory locks (one per
// tenant root it touches, and the journal lock with its commit), the journal rows it stages until
// that commit numbers them, the NOTIFY sent with every commit, LISTEN for WaitForJournal, id lists
// as bigint[], erase with VACUUM FULL, the dump, and the connection pool.
#include "store/postgres/postgres_store.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/ids.h"
#include "store/backend_common.h"
#include "store/journal.h"
#include "store/merkle.h"
#include "store/postgres/connection.h"
#include "store/postgres/merkle_postgres.h"
#include "store/postgres/migrations.h"
#include "store/postgres/postgres_session.h"
#include "store/sql/records.h"
#include "store/sql/sql_store.h"

namespace engram::store::postgres {
namespace {

using sql::kEdgeColumns;
using sql::kNodeColumns;
using sql::kScopeColumns;
using sql::Sql;

// The advisory locks (what each protects: README.md). Transaction-level, so a commit, a rollback
// or a lost connection releases them.
//
// The journal lock, per database ("engram" in ASCII, then 2): taken by a write transaction only
// for its commit, to number its staged journal rows, so journal seqs follow commit order (an
// erase too).
constexpr std::int64_t kJournalLockKey = 0x656e6772616d02;
// The embedder lock ("engram", then 3): held by a transaction recording the embedder.
constexpr std::int64_t kEmbedderLockKey = 0x656e6772616d03;
// Tenant locks are pairs of int4 keys (a space of their own): this class ("engr") and a hash of
// the tenant root's path (TenantLockId).
constexpr std::int32_t kTenantLockClass = 0x656e6772;

// A write transaction's journal rows, staged on the writer connection (a temporary table) in the
// order they were written; the commit copies them into the journal in that order under the
// journal lock, which is when they get their seqs, and deletes them. Not ON COMMIT DELETE ROWS:
// that truncation invalidates every prepared statement naming the table at every commit (each
// write then re-plans its statements, several milliseconds); no index, so the deleted rows cost
// only heap space, given back by a TRUNCATE every kTruncatePendingEvery transactions.
constexpr std::string_view kCreateJournalPending =
    "CREATE TEMPORARY TABLE IF NOT EXISTS journal_pending ("
    "id BIGINT GENERATED ALWAYS AS IDENTITY, scope_id BIGINT NOT NULL, op TEXT NOT NULL, "
    "target_id TEXT NOT NULL, target_row BIGINT NOT NULL, at BIGINT NOT NULL, "
    "detail TEXT NOT NULL)";
constexpr std::int64_t kTruncatePendingEvery = 1024;

// The channel every write transaction NOTIFYs at commit (PostgreSQL delivers a NOTIFY only when
// its transaction commits, and never one of a rolled-back transaction); WaitForJournal LISTENs.
constexpr std::string_view kJournalChannel = "engram_journal";
// The end of CommitWriteSql.
constexpr std::string_view kNotifyAndCommit = "NOTIFY engram_journal; COMMIT";
// Sent as the last statements of a write transaction, in one round trip: the journal lock, the
// staged journal rows numbered in their order, the NOTIFY and the COMMIT (which releases the lock
// once the commit is visible, so a later commit's seqs are all larger).
const std::string& CommitWriteSql() {
  static const std::string kSql =
      "SELECT pg_advisory_xact_lock(" + std::to_string(kJournalLockKey) +
      "); INSERT INTO journal(scope_id, op, target_id, target_row, at, detail) "
      "SELECT scope_id, op, target_id, target_row, at, detail FROM journal_pending ORDER BY id; "
      "DELETE FROM journal_pending; " +
      std::string(kNotifyAndCommit);
  return kSql;
}

// The tenant root of a scope path: its first segment ("user:acme" of "user:acme/run:7").
std::string_view TenantRoot(std::string_view path) { return path.substr(0, path.find('/')); }

// The second key of a tenant root's lock: FNV-1a of its path. Two roots that share a hash share a
// lock (their writers wait for each other, nothing worse).
std::int32_t TenantLockId(std::string_view root) {
  std::uint32_t hash = 2166136261U;
  for (const char byte : root) {
    hash ^= static_cast<std::uint8_t>(byte);
    hash *= 16777619U;
  }
  return static_cast<std::int32_t>(hash);
}

// Scope id -> tenant root, filled as write transactions meet scopes (a scope's path never
// changes and an id is never handed out twice, so an entry never goes stale). Shared by the
// store's transactions; guarded by its own mutex.
class TenantRoots {
 public:
  std::optional<std::string> Find(std::int64_t scope_id) const {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto found = roots_.find(scope_id);
    if (found == roots_.end()) return std::nullopt;
    return found->second;
  }
  void Remember(std::int64_t scope_id, std::string_view path) {
    std::lock_guard<std::mutex> lock(mutex_);
    roots_.insert_or_assign(scope_id, std::string(TenantRoot(path)));
  }

 private:
  mutable std::mutex mutex_;
  std::map<std::int64_t, std::string> roots_;
};

// Makes `conn` fit to be the writer: its journal_pending table.
Status PrepareWriter(Connection& conn) {
  return conn.Exec(kCreateJournalPending, "create the journal staging table");
}

// A node insert, $1..$17 (sql::NodeParams), inserting nothing when scope $3 does not exist.
constexpr std::string_view kInsertNodeIfScope =
    "INSERT INTO nodes(id, kind, scope_id, content_json, text, role, speaker, session_id, "
    "sequence, event_time, metadata_json, status, valid_from, valid_to, ingested_at, updated_at, "
    "idempotency_key) SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, "
    "$16, $17 WHERE EXISTS(SELECT 1 FROM scopes WHERE scope_id = $3)";

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

// While the transaction is open, the writer connection is inside a transaction (and
// sql::SqlTransaction holds the store's write mutex). Before a call reads or writes what belongs to
// a scope, the transaction takes the lock of the scope's tenant root (the first segment of its
// path), once per root: what one tenant's scopes hold (sequences, Merkle logs and roots, which
// climb to the root, idempotency keys, derivation cursors) changes under that lock only, so writers
// of different tenants run side by side, on one server or several. Its journal rows are staged
// (journal_pending) and numbered by the commit under the journal lock.
//
// An insert is one statement whose conditions are the checks (known scope and nodes, ON CONFLICT
// DO NOTHING for a taken id or idempotency key) and which writes the row and its journal entry
// together (a data-modifying WITH): one round trip. When it inserts nothing, a second query says
// which check refused it; a refused call writes nothing. A statement the server fails
// anyway (a lost connection, a constraint the checks do not cover) makes PostgreSQL abort the
// whole transaction: every later call fails and Commit() rolls back and says so, so nothing of
// a failed transaction is ever committed.
class PostgresTransaction final : public sql::SqlTransaction {
 public:
  PostgresTransaction(std::unique_lock<std::mutex> lock, Connection& conn,
                      VectorPrecision vector_precision, TenantRoots& roots)
      : SqlTransaction(std::move(lock), std::make_unique<PostgresSession>(conn), vector_precision),
        conn_(conn),
        roots_(roots) {}

  StatusOr<std::int64_t> InsertNode(const NodeRecord& record) override {
    RETURN_IF_ERROR(CheckOpen());
    if (record.id.empty()) return Status::InvalidArgument("insert node: empty id");
    RETURN_IF_ERROR(LockScope(record.scope_id));
    // One round trip: the row goes in only when its scope exists and neither its id nor its
    // idempotency key is taken (ON CONFLICT DO NOTHING: a refused insert does not abort the
    // transaction), and its journal entry with it. No row back: say which check refused it.
    static const std::string kSql =
        "WITH inserted AS (" + std::string(kInsertNodeIfScope) +
        " ON CONFLICT DO NOTHING RETURNING row_id) INSERT INTO journal_pending(scope_id, op, "
        "target_id, "
        "target_row, at, detail) SELECT $3, $18, $1, row_id, $15, $19 FROM inserted "
        "RETURNING target_row";
    sql::Params params = sql::NodeParams(record);
    params.Text(JournalOpName(JournalOp::kNodeInserted))
        .Text("kind=" + std::string(NodeKindName(record.kind)) + " " +
              StateDetail(NodeStatusName(record.status), record.valid_to, ""));
    ASSIGN_OR_RETURN(std::unique_ptr<sql::Rows> inserted,
                     session().Query(kSql, params, "insert node"));
    ASSIGN_OR_RETURN(const bool has_row, inserted->Next());
    if (!has_row) return RefusedNode(record);
    merkle_writer().AppendNode(record);
    const std::int64_t row = inserted->Int(0);
    NodeRecord stored = record;
    stored.row = row;
    nodes_.insert_or_assign(stored.id, std::move(stored));
    edges_of_.insert_or_assign(record.id, std::vector<EdgeRecord>());  // a new node has none yet
    return row;
  }

  StatusOr<NodeRecord> GetNode(std::string_view id) override {
    RETURN_IF_ERROR(CheckOpen());
    if (const auto cached = nodes_.find(id); cached != nodes_.end()) return cached->second;
    ASSIGN_OR_RETURN(NodeRecord node, sql::RequireNode(session(), id));
    // Read again when the lock of its tenant was just taken: it may have changed meanwhile.
    ASSIGN_OR_RETURN(const bool newly_locked, LockRootOf(node.scope_id));
    if (newly_locked) {
      ASSIGN_OR_RETURN(node, sql::RequireNode(session(), id));
    }
    nodes_.emplace(node.id, node);
    return node;
  }

  Status UpdateNodeState(std::string_view id, NodeStatus status, std::optional<Timestamp> valid_to,
                         Timestamp updated_at, std::string_view journal_detail) override {
    RETURN_IF_ERROR(CheckOpen());
    RETURN_IF_ERROR(LockNodeScope(id));
    ASSIGN_OR_RETURN(
        Result journalled,
        conn_.Query("WITH updated AS (UPDATE nodes SET status = $2, valid_to = $3, "
                    "updated_at = $4 WHERE id = $1 RETURNING row_id, scope_id) "
                    "INSERT INTO journal_pending(scope_id, op, target_id, target_row, at, "
                    "detail) SELECT scope_id, $5, $1, row_id, $4, $6 FROM updated RETURNING id",
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
    RETURN_IF_ERROR(LockScope(record.scope_id));
    // One round trip, as InsertNode: inserted only when both nodes and the scope exist and the
    // id is new; no row back means a check refused it.
    static const std::string kSql =
        "WITH inserted AS (INSERT INTO edges(id, type, src, dst, scope_id, attrs_json, status, "
        "valid_from, valid_to, ingested_at, updated_at) "
        "SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11 "
        "WHERE EXISTS(SELECT 1 FROM nodes WHERE id = $3) "
        "AND EXISTS(SELECT 1 FROM nodes WHERE id = $4) "
        "AND EXISTS(SELECT 1 FROM scopes WHERE scope_id = $5) "
        "ON CONFLICT DO NOTHING RETURNING row_id) "
        "INSERT INTO journal_pending(scope_id, op, target_id, target_row, at, detail) "
        "SELECT $5, $12, $1, row_id, $10, $13 FROM inserted RETURNING target_row";
    sql::Params params = sql::EdgeParams(record);
    params.Text(JournalOpName(JournalOp::kEdgeInserted))
        .Text("type=" + record.type + " status=" + record.status);
    ASSIGN_OR_RETURN(std::unique_ptr<sql::Rows> inserted,
                     session().Query(kSql, params, "insert edge"));
    ASSIGN_OR_RETURN(const bool has_row, inserted->Next());
    if (!has_row) return RefusedEdge(record);
    merkle_writer().AppendEdge(record);
    EdgeRecord stored = record;
    stored.row = inserted->Int(0);
    for (const std::string* end : {&record.src, &record.dst}) {
      if (end == &record.dst && record.dst == record.src) break;
      if (const auto known = edges_of_.find(*end); known != edges_of_.end()) {
        known->second.push_back(stored);
      }
    }
    return stored.row;
  }

  Status UpdateEdgeState(const EdgeWriteKey& /*key*/, std::string_view id, std::string_view status,
                         std::optional<Timestamp> valid_to, Timestamp updated_at) override {
    RETURN_IF_ERROR(CheckOpen());
    RETURN_IF_ERROR(CheckEdgeStatus(status));
    RETURN_IF_ERROR(
        LockScopeOfRow("SELECT s.path, s.scope_id FROM edges e JOIN scopes s ON "
                       "s.scope_id = e.scope_id WHERE e.id = $1",
                       Params().Text(id), "update edge state: find its scope"));
    // The detail is StateDetail(status, valid_to, "type=<type>"), its type read in the statement.
    ASSIGN_OR_RETURN(
        Result journalled,
        conn_.Query("WITH updated AS (UPDATE edges SET status = $2, valid_to = $3, "
                    "updated_at = $4 WHERE id = $1 RETURNING row_id, scope_id, type, src, dst), "
                    "journalled AS (INSERT INTO journal_pending(scope_id, op, target_id, "
                    "target_row, at, detail) SELECT scope_id, $5, $1, row_id, $4, "
                    "$6 || '; type=' || type FROM updated RETURNING id) "
                    "SELECT j.id, u.src, u.dst FROM journalled j CROSS JOIN updated u",
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
    if (known == edges_of_.end()) return session().EdgesOf(node_id, direction, type);
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

  Status PutVector(std::string_view node_id, std::string_view model_id,
                   std::span<const float> values) override {
    RETURN_IF_ERROR(CheckOpen());
    // The embedder is read once per transaction (SetEmbedder refreshes it). One statement stores
    // the vector by the node's id and journals it (kVectorStored, at = the node's ingestion
    // time); no row back means the node does not exist.
    ASSIGN_OR_RETURN(const std::optional<EmbedderRecord> embedder, RecordedEmbedder());
    RETURN_IF_ERROR(CheckVector(embedder, model_id, values));
    RETURN_IF_ERROR(LockNodeScope(node_id));
    ASSIGN_OR_RETURN(
        Result stored,
        conn_.Query("WITH node AS (SELECT row_id, scope_id, ingested_at FROM nodes WHERE id = $1), "
                    "stored AS (INSERT INTO vectors(node_row, model_id, dimension, vector) "
                    "SELECT row_id, $2, $3, $4 FROM node "
                    "ON CONFLICT(node_row) DO UPDATE SET model_id = excluded.model_id, "
                    "dimension = excluded.dimension, vector = excluded.vector "
                    "RETURNING node_row) "
                    "INSERT INTO journal_pending(scope_id, op, target_id, target_row, at, detail) "
                    "SELECT n.scope_id, $5, $1, n.row_id, n.ingested_at, $6 "
                    "FROM node n JOIN stored s ON s.node_row = n.row_id RETURNING id",
                    Params()
                        .Text(node_id)
                        .Text(model_id)
                        .Int(static_cast<std::int64_t>(values.size()))
                        .Bytes(EncodeVector(values, vector_precision()))
                        .Text(JournalOpName(JournalOp::kVectorStored))
                        .Text("model=" + std::string(model_id)),
                    "put vector"));
    if (stored.size() == 0) {
      return Status::NotFound("node " + std::string(node_id.substr(0, 64)) + " does not exist");
    }
    return Status::Ok();
  }

  Status PutTurnAnalysis(const TurnAnalysisRecord& record) override {
    RETURN_IF_ERROR(CheckOpen());
    RETURN_IF_ERROR(CheckTurnAnalysis(record));
    RETURN_IF_ERROR(
        LockScopeOfRow("SELECT s.path, s.scope_id FROM nodes n JOIN scopes s ON "
                       "s.scope_id = n.scope_id WHERE n.row_id = $1",
                       Params().Int(record.turn_row), "put turn analysis: find its scope"));
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

 protected:
  // COMMIT of an aborted transaction rolls back without an error: say so instead.
  Status CheckCommittable() override {
    if (!conn_.in_failed_transaction()) return Status::Ok();
    return Status::FailedPrecondition(
        "postgres: commit write transaction: an earlier statement of the transaction failed, so "
        "nothing was committed");
  }
  std::string_view commit_sql() const override { return CommitWriteSql(); }
  std::string_view journal_table() const override { return "journal_pending"; }

  Status LockScopePath(std::string_view path) override {
    return LockRoot(TenantRoot(path)).status();
  }

  Status LockScope(std::int64_t scope_id) override { return LockRootOf(scope_id).status(); }

  // An engine key ending in a node id (the derivation cursor of a scope: "engine.derive.<scope
  // node id>") locks that node's tenant root; other keys lock nothing (their row is locked by the
  // write itself).
  Status LockMetaKey(std::string_view key) override {
    const std::size_t dot = key.rfind('.');
    if (dot == std::string_view::npos || !core::LooksLikeId(key.substr(dot + 1))) {
      return Status::Ok();
    }
    return LockNodeScope(key.substr(dot + 1));
  }

  Status LockEmbedder() override {
    if (embedder_locked_) return Status::Ok();
    RETURN_IF_ERROR(conn_
                        .Query("SELECT pg_advisory_xact_lock($1)", Params().Int(kEmbedderLockKey),
                               "set embedder: wait for another server recording one")
                        .status());
    embedder_locked_ = true;
    return Status::Ok();
  }

 private:
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

  // Takes the lock of tenant root `root` unless this transaction holds it; true when it took it
  // now (and so may have waited for another writer of the tenant to commit).
  StatusOr<bool> LockRoot(std::string_view root) {
    const std::int32_t lock_id = TenantLockId(root);
    if (!held_roots_.insert(lock_id).second) return false;
    const Status locked =
        conn_
            .Query("SELECT pg_advisory_xact_lock($1, $2)",
                   Params().Int(kTenantLockClass).Int(lock_id),
                   "wait for the other writers of tenant " + std::string(root.substr(0, 200)))
            .status();
    if (!locked.ok()) {
      held_roots_.erase(lock_id);
      return locked;
    }
    return true;
  }

  // LockRoot for the tenant of scope `scope_id` (nothing for an unknown scope: the call it
  // precedes says so).
  StatusOr<bool> LockRootOf(std::int64_t scope_id) {
    if (const std::optional<std::string> root = roots_.Find(scope_id); root.has_value()) {
      return LockRoot(*root);
    }
    ASSIGN_OR_RETURN(const std::optional<std::string> path,
                     conn_.QueryText("SELECT path FROM scopes WHERE scope_id = $1",
                                     Params().Int(scope_id), "find the scope's tenant"));
    if (!path.has_value()) return false;
    roots_.Remember(scope_id, *path);
    return LockRoot(TenantRoot(*path));
  }

  // LockRoot for the tenant of node `id` (nothing for an unknown node).
  Status LockNodeScope(std::string_view id) {
    if (const auto cached = nodes_.find(id); cached != nodes_.end()) {
      return LockRootOf(cached->second.scope_id).status();
    }
    return LockScopeOfRow(
        "SELECT s.path, s.scope_id FROM nodes n JOIN scopes s ON "
        "s.scope_id = n.scope_id WHERE n.id = $1",
        Params().Text(id), "find the node's scope");
  }

  // LockRoot for the scope `sql` finds (its path and id; nothing when it finds none).
  Status LockScopeOfRow(std::string_view sql, const Params& params, std::string_view operation) {
    ASSIGN_OR_RETURN(const Result found, conn_.Query(sql, params, operation));
    if (found.size() == 0) return Status::Ok();
    roots_.Remember(found.Int(0, 1), found.Text(0, 0));
    return LockRoot(TenantRoot(found.Text(0, 0))).status();
  }

  Connection& conn_;
  TenantRoots& roots_;
  std::set<std::int32_t> held_roots_;  // the tenant locks this transaction holds
  bool embedder_locked_ = false;
  // What this transaction knows without asking the server; it holds the lock of the tenant of
  // every node it read or wrote, so nothing else changes these rows meanwhile. Nodes read or
  // inserted here (kept current by UpdateNodeState), and for each node inserted here every edge
  // touching it (none at first, then each InsertEdge; kept current by UpdateEdgeState), in row
  // order.
  std::map<std::string, NodeRecord, std::less<>> nodes_;
  std::map<std::string, std::vector<EdgeRecord>, std::less<>> edges_of_;
};

// ---------------------------------------------------------------------------------------------
// Store.

class PostgresStore final : public sql::SqlStore {
 public:
  PostgresStore(ConnectSettings settings, PostgresOptions options,
                std::unique_ptr<Connection> writer)
      : settings_(std::move(settings)), options_(options), writer_(std::move(writer)) {}

  std::string_view backend() const override { return "postgres"; }

  StatusOr<std::unique_ptr<Transaction>> BeginWrite() override {
    std::unique_lock<std::mutex> lock(write_mutex_);
    RETURN_IF_ERROR(EnsureWriter());
    if (++transactions_begun_ % kTruncatePendingEvery == 0) {
      RETURN_IF_ERROR(writer_->Exec("TRUNCATE journal_pending", "empty the journal staging table"));
    }
    // No lock yet: the transaction takes its tenants' locks as it meets their scopes.
    RETURN_IF_ERROR(writer_->Exec("BEGIN", "begin write transaction"));
    return std::unique_ptr<Transaction>(std::make_unique<PostgresTransaction>(
        std::move(lock), *writer_, options_.vector_precision, tenant_roots_));
  }

  StatusOr<std::vector<NodeRecord>> GetNodesByRow(std::span<const std::int64_t> rows) override {
    return WithReader([&](Connection& conn) -> StatusOr<std::vector<NodeRecord>> {
      // One query for all rows, then put them in the order given.
      static const std::string kSql =
          Sql("SELECT ", kNodeColumns, " FROM nodes WHERE row_id = ANY($1::bigint[])");
      ASSIGN_OR_RETURN(Result found,
                       conn.Query(kSql, Params().IntArray({rows.begin(), rows.end()}),
                                  "get nodes by row"));
      PostgresSession session(conn);
      ResultRows found_rows(std::move(found));
      ASSIGN_OR_RETURN(std::vector<NodeRecord> unordered, sql::CollectNodes(session, found_rows));
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

  StatusOr<std::vector<EdgeRecord>> EdgesInScope(std::int64_t scope_id,
                                                 std::string_view type) override {
    return ReadValue<std::vector<EdgeRecord>>(ReadMode::kStatement, [&](sql::Session& session) {
      static const std::string kSql =
          Sql("SELECT ", kEdgeColumns,
              " FROM edges WHERE row_id IN (SELECT e.row_id FROM nodes n JOIN edges e ON e.src = "
              "n.id WHERE n.scope_id = $1 UNION SELECT e.row_id FROM nodes n JOIN edges e ON "
              "e.dst = n.id WHERE n.scope_id = $1) AND ($2 = '' OR type = $2) ORDER BY row_id");
      return sql::QueryRows<EdgeRecord>(session, kSql, sql::Params().Int(scope_id).Text(type),
                                        "edges in scope", sql::ReadEdge);
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
    PostgresSession session(*listener_);
    const auto last_seq = [&]() {
      return sql::QueryInt(session, kLastSeq, sql::Params(), "last journal seq");
    };
    ASSIGN_OR_RETURN(std::int64_t last, last_seq());
    while (last <= after_seq && !stop.stop_requested()) {
      const auto now = std::chrono::steady_clock::now();
      if (now >= deadline) {
        return last_seq();
      }
      const auto slice = std::min<std::chrono::milliseconds>(
          kStopCheck, std::chrono::ceil<std::chrono::milliseconds>(deadline - now));
      ASSIGN_OR_RETURN(const bool notified, listener_->WaitForNotification(slice));
      if (notified) {
        ASSIGN_OR_RETURN(last, last_seq());
      }
    }
    return last;
  }

  // As ScanRows: `visit` runs with no connection held.
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

  StatusOr<EraseCounts> EraseScopes(std::span<const std::int64_t> scope_ids) override;

 protected:
  // The identity sequences are left out of the dump: PostgreSQL does not roll them back with a
  // transaction, so a rolled-back write would change the dump without changing the data.

  // The rows are read first and `visit` runs after the read connection went back to the pool,
  // so a visitor may call the store again without waiting for a connection it holds itself.
  Status ScanRows(std::string_view sql, const sql::Params& params, std::string_view operation,
                  const std::function<StatusOr<bool>(const sql::Rows&)>& visit) override {
    ASSIGN_OR_RETURN(std::unique_ptr<sql::Rows> rows,
                     ReadValue<std::unique_ptr<sql::Rows>>(
                         ReadMode::kStatement, [&](sql::Session& session) {
                           return session.Query(sql, params, operation);
                         }));
    return sql::VisitRows(*rows, visit);
  }

  std::string_view scan_nodes_sql() const override {
    static const std::string kSql =
        Sql("SELECT ", kNodeColumns,
            " FROM nodes WHERE scope_id = $1 AND ($2::text IS NULL OR kind = $2) ORDER BY row_id");
    return kSql;
  }

  // A read of one statement in autocommit mode (PostgreSQL runs it on one snapshot of the last
  // commit anyway: one round trip instead of three); several in one snapshot transaction.
  Status Read(ReadMode mode, const std::function<Status(sql::Session&)>& fn) override {
    const auto run = [&](Connection& conn) {
      PostgresSession session(conn);
      return fn(session);
    };
    return mode == ReadMode::kSnapshot ? WithSnapshot(run) : WithReader(run);
  }

 private:
  // Reconnects the writer when the server dropped it (with its journal_pending table). Called
  // with write_mutex_ held.
  Status EnsureWriter() {
    if (writer_ != nullptr && writer_->healthy()) return Status::Ok();
    writer_.reset();
    ASSIGN_OR_RETURN(std::unique_ptr<Connection> opened, Connection::Open(settings_));
    RETURN_IF_ERROR(PrepareWriter(*opened));
    writer_ = std::move(opened);
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
  TenantRoots tenant_roots_;
  // Held by the open Transaction (or EraseScopes); guards writer_.
  std::mutex write_mutex_;
  std::unique_ptr<Connection> writer_;
  std::int64_t transactions_begun_ = 0;  // on writer_'s connections, for kTruncatePendingEvery
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
  PostgresSession session(conn);
  EraseCounts counts;
  // The erase itself, in one transaction: all of it or (on an error) none of it.
  const Status erased = [&]() -> Status {
    RETURN_IF_ERROR(conn.Exec("BEGIN", "erase scopes: begin"));
    // The tenants of the scopes named (erasing a scope changes its parents' roots, up to the
    // tenant root), in one order. Its tombstones are staged and numbered by the commit under the
    // journal lock, like every write transaction's journal rows.
    ASSIGN_OR_RETURN(Result paths,
                     conn.Query("SELECT path FROM scopes WHERE scope_id = ANY($1::bigint[])",
                                Params().IntArray({scope_ids.begin(), scope_ids.end()}),
                                "erase scopes: find their tenants"));
    std::set<std::int32_t> tenant_locks;
    for (int row = 0; row < paths.size(); ++row) {
      tenant_locks.insert(TenantLockId(TenantRoot(paths.Text(row, 0))));
    }
    for (const std::int32_t lock_id : tenant_locks) {
      RETURN_IF_ERROR(conn.Query("SELECT pg_advisory_xact_lock($1, $2)",
                                 Params().Int(kTenantLockClass).Int(lock_id),
                                 "erase scopes: wait for the other writers of the tenant")
                          .status());
    }
    RETURN_IF_ERROR(sql::RequireScopes(session, scope_ids));
    // The scopes named and every scope nested in them, in scope_id order.
    static const std::string kTreeSql =
        Sql("WITH RECURSIVE tree(id) AS (SELECT unnest($1::bigint[]) UNION "
            "SELECT s.scope_id FROM scopes s JOIN tree ON s.parent_scope_id = tree.id) SELECT ",
            kScopeColumns, " FROM scopes WHERE scope_id IN (SELECT id FROM tree) ORDER BY scope_id");
    ASSIGN_OR_RETURN(Result tree_result,
                     conn.Query(kTreeSql, Params().IntArray({scope_ids.begin(), scope_ids.end()}),
                                "erase scopes: collect nested scopes"));
    ResultRows tree_rows(std::move(tree_result));
    ASSIGN_OR_RETURN(const std::vector<ScopeRecord> tree,
                     sql::CollectRows<ScopeRecord>(tree_rows, sql::ReadScope));
    // The tree's ids as one bigint[] parameter.
    std::string ids = "{";
    for (const ScopeRecord& scope : tree) {
      if (ids.size() > 1) ids += ',';
      ids += std::to_string(scope.scope_id);
    }
    ids += '}';
    ASSIGN_OR_RETURN(counts, sql::EraseRows(session, tree, " = ANY(?1::bigint[])",
                                            sql::Params().Text(ids), "journal_pending"));
    return conn.Exec(CommitWriteSql(), "erase scopes: commit");
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
  RETURN_IF_ERROR(PrepareWriter(*writer));
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
