// The SQL store's shared reads and writes (see sql_store.h).
#include "store/sql/sql_store.h"

#include <nlohmann/json.hpp>

#include "store/backend_common.h"
#include "store/sql/records.h"

namespace engram::store::sql {

// ---------------------------------------------------------------------------------------------
// SqlTransaction.

SqlTransaction::SqlTransaction(std::unique_lock<std::mutex> lock, std::unique_ptr<Session> session,
                               VectorPrecision vector_precision)
    : lock_(std::move(lock)), session_(std::move(session)), vector_precision_(vector_precision) {}

SqlTransaction::~SqlTransaction() {
  if (open_) static_cast<void>(session_->Exec("ROLLBACK", "roll back write transaction"));
}

Status SqlTransaction::CheckOpen() const {
  if (!open_) {
    return Status::FailedPrecondition(
        "store transaction is no longer open (it was committed or its commit failed)");
  }
  return Status::Ok();
}

Status SqlTransaction::Atomically(const std::function<Status()>& fn) { return fn(); }

Status SqlTransaction::CheckCommittable() { return Status::Ok(); }

std::string_view SqlTransaction::commit_sql() const { return "COMMIT"; }

std::string_view SqlTransaction::journal_table() const { return "journal"; }

Status SqlTransaction::LockScopePath(std::string_view /*path*/) { return Status::Ok(); }

Status SqlTransaction::LockScope(std::int64_t /*scope_id*/) { return Status::Ok(); }

Status SqlTransaction::LockMetaKey(std::string_view /*key*/) { return Status::Ok(); }

Status SqlTransaction::LockEmbedder() { return Status::Ok(); }

StatusOr<std::optional<EmbedderRecord>> SqlTransaction::RecordedEmbedder() {
  if (!embedder_.has_value()) {
    ASSIGN_OR_RETURN(const std::optional<EmbedderRecord> recorded, QueryEmbedder(*session_));
    embedder_.emplace(recorded);
  }
  return *embedder_;
}

StatusOr<std::optional<ScopeRecord>> SqlTransaction::FindScope(std::string_view path) {
  RETURN_IF_ERROR(CheckOpen());
  RETURN_IF_ERROR(LockScopePath(path));
  return QueryScopeByPath(*session_, path);
}

StatusOr<ScopeRecord> SqlTransaction::CreateScope(std::string_view path, std::string_view node_id,
                                                  std::int64_t parent_scope_id,
                                                  Timestamp created_at) {
  RETURN_IF_ERROR(CheckOpen());
  if (path.empty()) return Status::InvalidArgument("create scope: empty path");
  if (node_id.empty()) return Status::InvalidArgument("create scope: empty node id");
  RETURN_IF_ERROR(LockScopePath(path));
  std::string content_json;
  try {
    content_json = nlohmann::json{{"path", std::string(path)}}.dump();
  } catch (const nlohmann::json::exception& error) {
    return Status::InvalidArgument("create scope: path is not valid UTF-8: " +
                                   std::string(error.what()));
  }
  ScopeRecord scope;
  RETURN_IF_ERROR(Atomically([&]() -> Status {
    ASSIGN_OR_RETURN(const std::optional<ScopeRecord> existing, QueryScopeByPath(*session_, path));
    if (existing.has_value()) {
      return Status::AlreadyExists("scope " + std::string(path) + " already exists");
    }
    if (parent_scope_id != 0) {
      ASSIGN_OR_RETURN(const std::optional<ScopeRecord> parent,
                       QueryScopeById(*session_, parent_scope_id));
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
    ASSIGN_OR_RETURN(scope.scope_id,
                     QueryInt(*session_,
                              "INSERT INTO scopes(node_id, path, parent_scope_id, last_sequence, "
                              "created_at) VALUES(?1, ?2, ?3, 0, ?4) RETURNING scope_id",
                              params, "create scope"));
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
    ASSIGN_OR_RETURN(const std::int64_t node_row, InsertNodeRow(*session_, node));
    static_cast<void>(node_row);
    RETURN_IF_ERROR(AppendJournal(*session_, scope.scope_id, JournalOp::kScopeCreated, node_id, 0,
                                  created_at, "scope created", journal_table()));
    merkle_.AppendNode(node);
    return Status::Ok();
  }));
  return scope;
}

StatusOr<std::int64_t> SqlTransaction::NextSequence(std::int64_t scope_id) {
  RETURN_IF_ERROR(CheckOpen());
  RETURN_IF_ERROR(LockScope(scope_id));
  ASSIGN_OR_RETURN(std::unique_ptr<Rows> rows,
                   session_->Query("UPDATE scopes SET last_sequence = last_sequence + 1 "
                                   "WHERE scope_id = ?1 RETURNING last_sequence",
                                   Params().Int(scope_id), "next sequence"));
  ASSIGN_OR_RETURN(bool has_row, rows->Next());
  if (!has_row) {
    return Status::NotFound("next sequence: scope " + std::to_string(scope_id) +
                            " does not exist");
  }
  const std::int64_t sequence = rows->Int(0);
  while (has_row) {
    ASSIGN_OR_RETURN(has_row, rows->Next());
  }
  return sequence;
}

StatusOr<NodeRecord> SqlTransaction::GetNode(std::string_view id) {
  RETURN_IF_ERROR(CheckOpen());
  return RequireNode(*session_, id);
}

StatusOr<std::optional<NodeRecord>> SqlTransaction::FindTurnByKey(std::int64_t scope_id,
                                                                  std::string_view key) {
  RETURN_IF_ERROR(CheckOpen());
  if (key.empty()) return Status::InvalidArgument("find turn by key: empty key");
  RETURN_IF_ERROR(LockScope(scope_id));
  static const std::string kSql =
      Sql("SELECT ", kNodeColumns, " FROM nodes WHERE scope_id = ?1 AND idempotency_key = ?2");
  ASSIGN_OR_RETURN(std::unique_ptr<Rows> rows,
                   session_->Query(kSql, Params().Int(scope_id).Text(key),
                                   "find turn by idempotency key"));
  ASSIGN_OR_RETURN(const bool has_row, rows->Next());
  if (!has_row) return std::optional<NodeRecord>();
  ASSIGN_OR_RETURN(NodeRecord node, ReadNode(*rows, session_->backend()));
  return std::optional<NodeRecord>(std::move(node));
}

StatusOr<EdgeRecord> SqlTransaction::GetEdge(std::string_view id) {
  RETURN_IF_ERROR(CheckOpen());
  return RequireEdge(*session_, id);
}

StatusOr<std::vector<EdgeRecord>> SqlTransaction::EdgesOf(std::string_view node_id,
                                                          EdgeDirection direction,
                                                          std::string_view type) {
  RETURN_IF_ERROR(CheckOpen());
  return session_->EdgesOf(node_id, direction, type);
}

StatusOr<std::vector<NodeRecord>> SqlTransaction::ListNodes(std::int64_t scope_id,
                                                            const NodeFilter& filter) {
  RETURN_IF_ERROR(CheckOpen());
  RETURN_IF_ERROR(LockScope(scope_id));
  return sql::ListNodes(*session_, scope_id, filter);
}

Status SqlTransaction::SetEmbedder(const EmbedderRecord& embedder, Timestamp at) {
  RETURN_IF_ERROR(CheckOpen());
  RETURN_IF_ERROR(CheckEmbedderRecord(embedder));
  RETURN_IF_ERROR(LockEmbedder());
  embedder_.reset();  // read again by the next PutVector, whatever happens here
  return Atomically([&]() -> Status {
    ASSIGN_OR_RETURN(const std::optional<EmbedderRecord> previous, QueryEmbedder(*session_));
    if (previous.has_value() && *previous != embedder) {
      RETURN_IF_ERROR(session_->Exec("DELETE FROM vectors", "set embedder: drop old vectors"));
    }
    // Recording an embedder (again: reembed) precedes new vectors: graphs over the old ones
    // would describe vectors that are gone or replaced.
    RETURN_IF_ERROR(session_->Exec("DELETE FROM projection_snapshots",
                                   "set embedder: drop projection snapshots"));
    ASSIGN_OR_RETURN(const std::int64_t written,
                     session_->Execute("INSERT INTO meta(key, value) VALUES('embedder_model_id', "
                                       "?1), ('embedder_dimension', ?2) "
                                       "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                                       Params().Text(embedder.model_id).Text(
                                           std::to_string(embedder.dimension)),
                                       "set embedder"));
    static_cast<void>(written);
    return AppendJournal(*session_, 0, JournalOp::kEmbedderSet, embedder.model_id, 0, at,
                         "dimension=" + std::to_string(embedder.dimension), journal_table());
  });
}

StatusOr<std::optional<EmbedderRecord>> SqlTransaction::GetEmbedder() {
  RETURN_IF_ERROR(CheckOpen());
  return QueryEmbedder(*session_);
}

StatusOr<std::vector<TurnAnalysisRecord>> SqlTransaction::GetTurnAnalyses(
    std::span<const std::int64_t> turn_rows) {
  RETURN_IF_ERROR(CheckOpen());
  return session_->TurnAnalyses(turn_rows);
}

Status SqlTransaction::PutProjectionSnapshot(const ProjectionSnapshot& snapshot) {
  RETURN_IF_ERROR(CheckOpen());
  RETURN_IF_ERROR(CheckProjectionSnapshot(snapshot));
  // One statement: written only when the scope exists; no row back means it does not.
  ASSIGN_OR_RETURN(
      const std::int64_t stored,
      QueryInt(*session_,
               "INSERT INTO projection_snapshots(scope_id, projection, key, journal_seq, "
               "item_count, data) SELECT scope_id, ?2, ?3, ?4, ?5, ?6 FROM scopes "
               "WHERE scope_id = ?1 ON CONFLICT(scope_id, projection) DO UPDATE SET "
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
  if (stored == 0) {
    return Status::NotFound("put projection snapshot: scope " + std::to_string(snapshot.scope_id) +
                            " does not exist");
  }
  return Status::Ok();
}

StatusOr<MerkleState> SqlTransaction::GetMerkleState(std::int64_t scope_id) {
  RETURN_IF_ERROR(CheckOpen());
  RETURN_IF_ERROR(LockScope(scope_id));
  RETURN_IF_ERROR(merkle_.Flush(session_->merkle_tables()));
  return merkle::StateOf(session_->merkle_tables(), scope_id);
}

StatusOr<std::optional<std::string>> SqlTransaction::GetMeta(std::string_view key) {
  RETURN_IF_ERROR(CheckOpen());
  RETURN_IF_ERROR(CheckEngineMetaKey(key));
  RETURN_IF_ERROR(LockMetaKey(key));
  ASSIGN_OR_RETURN(std::unique_ptr<Rows> rows,
                   session_->Query("SELECT value FROM meta WHERE key = ?1", Params().Text(key),
                                   "read meta"));
  ASSIGN_OR_RETURN(const bool has_row, rows->Next());
  if (!has_row) return std::optional<std::string>();
  return std::optional<std::string>(rows->Text(0));
}

Status SqlTransaction::SetMeta(std::string_view key, std::string_view value) {
  RETURN_IF_ERROR(CheckOpen());
  RETURN_IF_ERROR(CheckEngineMetaKey(key));
  RETURN_IF_ERROR(LockMetaKey(key));
  return session_
      ->Execute("INSERT INTO meta(key, value) VALUES(?1, ?2) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                Params().Text(key).Text(value), "write meta")
      .status();
}

Status SqlTransaction::DeleteMeta(std::string_view key) {
  RETURN_IF_ERROR(CheckOpen());
  RETURN_IF_ERROR(CheckEngineMetaKey(key));
  RETURN_IF_ERROR(LockMetaKey(key));
  return session_->Execute("DELETE FROM meta WHERE key = ?1", Params().Text(key), "delete meta")
      .status();
}

Status SqlTransaction::AdvanceSequence(std::int64_t scope_id, std::int64_t last_sequence) {
  RETURN_IF_ERROR(CheckOpen());
  RETURN_IF_ERROR(LockScope(scope_id));
  ASSIGN_OR_RETURN(const std::int64_t changed,
                   session_->Execute("UPDATE scopes SET last_sequence = CASE WHEN "
                                     "last_sequence < ?2 THEN ?2 ELSE last_sequence END "
                                     "WHERE scope_id = ?1",
                                     Params().Int(scope_id).Int(last_sequence),
                                     "advance sequence"));
  if (changed == 0) {
    return Status::NotFound("advance sequence: scope " + std::to_string(scope_id) +
                            " does not exist");
  }
  return Status::Ok();
}

Status SqlTransaction::Commit() {
  RETURN_IF_ERROR(CheckOpen());
  open_ = false;
  // The Merkle roots of the scopes written to are brought up to date first, in the transaction.
  Status status = CheckCommittable();
  if (status.ok()) status = merkle_.Flush(session_->merkle_tables());
  if (status.ok()) status = session_->Exec(commit_sql(), "commit write transaction");
  if (!status.ok()) {
    static_cast<void>(session_->Exec("ROLLBACK", "roll back after failed commit"));
  }
  lock_.unlock();
  return status;
}

// ---------------------------------------------------------------------------------------------
// SqlStore.

StatusOr<std::optional<ScopeRecord>> SqlStore::FindScope(std::string_view path) {
  return ReadValue<std::optional<ScopeRecord>>(
      ReadMode::kStatement, [&](Session& session) { return QueryScopeByPath(session, path); });
}

StatusOr<std::optional<ScopeRecord>> SqlStore::GetScope(std::int64_t scope_id) {
  return ReadValue<std::optional<ScopeRecord>>(
      ReadMode::kStatement, [&](Session& session) { return QueryScopeById(session, scope_id); });
}

StatusOr<std::vector<ScopeRecord>> SqlStore::ListScopes() {
  return ReadValue<std::vector<ScopeRecord>>(ReadMode::kStatement, [&](Session& session) {
    return QueryRows<ScopeRecord>(
        session, Sql("SELECT ", kScopeColumns, " FROM scopes ORDER BY path") +
                     std::string(session.byte_order()),
        Params(), "list scopes", ReadScope);
  });
}

StatusOr<std::vector<ScopeRecord>> SqlStore::ScopeTree(std::int64_t scope_id) {
  return ReadValue<std::vector<ScopeRecord>>(
      ReadMode::kStatement, [&](Session& session) -> StatusOr<std::vector<ScopeRecord>> {
        static const std::string kSql =
            Sql("WITH RECURSIVE tree(id) AS (SELECT scope_id FROM scopes WHERE scope_id = ?1 "
                "UNION SELECT s.scope_id FROM scopes s JOIN tree ON s.parent_scope_id = tree.id) "
                "SELECT ",
                kScopeColumns,
                " FROM scopes WHERE scope_id IN (SELECT id FROM tree) ORDER BY scope_id");
        ASSIGN_OR_RETURN(std::vector<ScopeRecord> scopes,
                         QueryRows<ScopeRecord>(session, kSql, Params().Int(scope_id),
                                                "scope tree", ReadScope));
        if (scopes.empty()) {
          return Status::NotFound("scope tree: scope " + std::to_string(scope_id) +
                                  " does not exist");
        }
        return scopes;
      });
}

StatusOr<NodeRecord> SqlStore::GetNode(std::string_view id) {
  return ReadValue<NodeRecord>(ReadMode::kStatement,
                               [&](Session& session) { return RequireNode(session, id); });
}

StatusOr<std::vector<NodeRecord>> SqlStore::ListNodes(std::int64_t scope_id,
                                                      const NodeFilter& filter) {
  return ReadValue<std::vector<NodeRecord>>(
      ReadMode::kStatement,
      [&](Session& session) { return sql::ListNodes(session, scope_id, filter); });
}

StatusOr<std::int64_t> SqlStore::CountNodes(std::int64_t scope_id) {
  return ReadValue<std::int64_t>(ReadMode::kStatement, [&](Session& session) {
    return QueryInt(session, "SELECT count(*) FROM nodes WHERE scope_id = ?1",
                    Params().Int(scope_id), "count nodes");
  });
}

StatusOr<EdgeRecord> SqlStore::GetEdge(std::string_view id) {
  return ReadValue<EdgeRecord>(ReadMode::kStatement,
                               [&](Session& session) { return RequireEdge(session, id); });
}

StatusOr<std::vector<EdgeRecord>> SqlStore::EdgesOf(std::string_view node_id,
                                                    EdgeDirection direction,
                                                    std::string_view type) {
  return ReadValue<std::vector<EdgeRecord>>(ReadMode::kStatement, [&](Session& session) {
    return session.EdgesOf(node_id, direction, type);
  });
}

Status SqlStore::ScanNodes(std::int64_t scope_id, std::optional<NodeKind> kind,
                           const std::function<bool(const NodeRecord&)>& visit) {
  Params params;
  params.Int(scope_id);
  if (kind.has_value()) {
    params.Text(NodeKindName(*kind));
  } else {
    params.Null();
  }
  return ScanRows(scan_nodes_sql(), params, "scan nodes", [&](const Rows& row) -> StatusOr<bool> {
    ASSIGN_OR_RETURN(const NodeRecord node, ReadNode(row, backend()));
    return visit(node);
  });
}

Status SqlStore::ScanEdges(std::int64_t scope_id,
                           const std::function<bool(const EdgeRecord&)>& visit) {
  static const std::string kSql =
      Sql("SELECT ", kEdgeColumns, " FROM edges WHERE scope_id = ?1 ORDER BY row_id");
  return ScanRows(kSql, Params().Int(scope_id), "scan edges",
                  [&](const Rows& row) -> StatusOr<bool> { return visit(ReadEdge(row)); });
}

StatusOr<MerkleState> SqlStore::GetMerkleState(std::int64_t scope_id) {
  return ReadValue<MerkleState>(ReadMode::kSnapshot, [&](Session& session) {
    return merkle::StateOf(session.merkle_tables(), scope_id);
  });
}

StatusOr<std::vector<MerkleLeaf>> SqlStore::GetMerkleLeaves(std::int64_t scope_id, MerkleLog log) {
  return ReadValue<std::vector<MerkleLeaf>>(ReadMode::kStatement, [&](Session& session) {
    return session.merkle_tables().Leaves(scope_id, log);
  });
}

StatusOr<std::vector<JournalEntry>> SqlStore::ReadJournal(std::int64_t after_seq,
                                                          std::size_t limit) {
  return ReadValue<std::vector<JournalEntry>>(ReadMode::kStatement, [&](Session& session) {
    static const std::string kSql =
        Sql("SELECT ", kJournalColumns, " FROM journal WHERE seq > ?1 ORDER BY seq LIMIT ?2");
    Params params;
    params.Int(after_seq);
    session.AddLimit(params, limit);
    return QueryRows<JournalEntry>(session, kSql, params, "read journal", ReadJournalEntry);
  });
}

StatusOr<std::vector<JournalEntry>> SqlStore::JournalFor(std::string_view target_id) {
  return ReadValue<std::vector<JournalEntry>>(ReadMode::kStatement, [&](Session& session) {
    static const std::string kSql =
        Sql("SELECT ", kJournalColumns, " FROM journal WHERE target_id = ?1 ORDER BY seq");
    return QueryRows<JournalEntry>(session, kSql, Params().Text(target_id), "journal for target",
                                   ReadJournalEntry);
  });
}

StatusOr<std::int64_t> SqlStore::LastJournalSeq() {
  return ReadValue<std::int64_t>(ReadMode::kStatement, [&](Session& session) {
    return QueryInt(session, "SELECT max(seq) FROM journal", Params(), "last journal seq");
  });
}

StatusOr<std::optional<EmbedderRecord>> SqlStore::GetEmbedder() {
  return ReadValue<std::optional<EmbedderRecord>>(
      ReadMode::kStatement, [&](Session& session) { return QueryEmbedder(session); });
}

StatusOr<std::vector<std::pair<std::string, std::string>>> SqlStore::ListMeta(
    std::string_view prefix) {
  using Entry = std::pair<std::string, std::string>;
  RETURN_IF_ERROR(CheckEngineMetaKey(prefix));
  return ReadValue<std::vector<Entry>>(ReadMode::kStatement, [&](Session& session) {
    return QueryRows<Entry>(
        session,
        "SELECT key, value FROM meta WHERE substr(key, 1, ?2) = ?1 ORDER BY key" +
            std::string(session.byte_order()),
        Params().Text(prefix).Int(static_cast<std::int64_t>(prefix.size())), "list meta",
        [](const Rows& row) { return Entry(row.Text(0), row.Text(1)); });
  });
}

StatusOr<std::int64_t> SqlStore::CountVectors(std::int64_t scope_id) {
  return ReadValue<std::int64_t>(ReadMode::kStatement, [&](Session& session) {
    return QueryInt(session,
                    "SELECT count(*) FROM vectors v JOIN nodes n ON n.row_id = v.node_row "
                    "WHERE n.scope_id = ?1",
                    Params().Int(scope_id), "count vectors");
  });
}

StatusOr<std::vector<TurnAnalysisRecord>> SqlStore::GetTurnAnalyses(
    std::span<const std::int64_t> turn_rows) {
  return ReadValue<std::vector<TurnAnalysisRecord>>(
      ReadMode::kStatement, [&](Session& session) { return session.TurnAnalyses(turn_rows); });
}

StatusOr<std::optional<ProjectionSnapshot>> SqlStore::GetProjectionSnapshot(
    std::int64_t scope_id, std::string_view projection) {
  return ReadValue<std::optional<ProjectionSnapshot>>(
      ReadMode::kStatement,
      [&](Session& session) -> StatusOr<std::optional<ProjectionSnapshot>> {
        ASSIGN_OR_RETURN(std::unique_ptr<Rows> rows,
                         session.Query("SELECT key, journal_seq, item_count, data FROM "
                                       "projection_snapshots WHERE scope_id = ?1 AND "
                                       "projection = ?2",
                                       Params().Int(scope_id).Text(projection),
                                       "get projection snapshot"));
        ASSIGN_OR_RETURN(const bool has_row, rows->Next());
        if (!has_row) return std::optional<ProjectionSnapshot>();
        ProjectionSnapshot snapshot;
        snapshot.scope_id = scope_id;
        snapshot.projection = std::string(projection);
        snapshot.key = rows->Text(0);
        snapshot.journal_seq = rows->Int(1);
        snapshot.item_count = rows->Int(2);
        snapshot.data = rows->Bytes(3);
        return std::optional<ProjectionSnapshot>(std::move(snapshot));
      });
}

std::span<const SqlStore::DumpTable> SqlStore::backend_dump_tables() const { return {}; }

StatusOr<std::string> SqlStore::DumpCanonical() {
  return ReadValue<std::string>(ReadMode::kSnapshot, [&](Session& session) -> StatusOr<std::string> {
    const std::string byte_order(session.byte_order());
    const std::string meta_order = "key" + byte_order;
    const std::string leaf_order = "scope_id, log" + byte_order + ", idx";
    std::vector<DumpTable> tables = {
        {"meta", meta_order},
        {"scopes", "scope_id"},
        {"nodes", "row_id"},
        {"edges", "row_id"},
        {"vectors", "node_row"},
        {"turn_analysis", "turn_row"},
        {"journal", "seq"},
        {"merkle_leaves", leaf_order},
        {"merkle_roots", "scope_id"},
    };
    for (const DumpTable& table : backend_dump_tables()) tables.push_back(table);
    std::string out;
    for (const DumpTable& table : tables) {
      out += "== ";
      out += table.name;
      out += '\n';
      ASSIGN_OR_RETURN(std::unique_ptr<Rows> rows,
                       session.Query("SELECT * FROM " + std::string(table.name) + " ORDER BY " +
                                         std::string(table.order_by),
                                     Params(), "dump table"));
      while (true) {
        ASSIGN_OR_RETURN(const bool has_row, rows->Next());
        if (!has_row) break;
        for (int column = 0; column < rows->columns(); ++column) {
          if (column > 0) out += ' ';
          out += rows->ColumnName(column);
          out += '=';
          out += rows->DumpValue(column);
        }
        out += '\n';
      }
    }
    return out;
  });
}

}  // namespace engram::store::sql
