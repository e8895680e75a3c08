// One SQL store over a dialect seam: store::Store and store::Transaction written once for every
// SQL backend, over a sql::Session (session.h) per connection.
//
// SqlStore holds the reads both dialects run alike (scopes, nodes and edges by id, the journal,
// the Merkle state, meta, counts); SqlTransaction the writes they do alike (scopes, sequences,
// meta, the embedder, projection snapshots, the Merkle flush before COMMIT). A backend derives
// from both and adds what is truly its own: how it lends out connections (SqlStore::Read), how a
// write transaction begins and ends, the inserts and state changes it tunes for its server,
// scans, erase and the canonical dump. The same pattern as merkle::Tables: shared logic here,
// each backend's SQL behind a small interface.
//
//   class SqliteStore final : public sql::SqlStore {
//     Status Read(ReadMode mode, const std::function<Status(sql::Session&)>& fn) override;
//     ...
//   };
//
// Thread-safety: as store.h says; a SqlTransaction holds the store's write lock (`lock`) until
// Commit() or destruction.
#ifndef ENGRAM_STORE_SQL_SQL_STORE_H_
#define ENGRAM_STORE_SQL_SQL_STORE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engram/status.h"
#include "store/merkle.h"
#include "store/sql/session.h"
#include "store/store.h"

namespace engram::store::sql {

// Invariant: while open, the session's connection is inside the backend's write transaction and
// the store's write mutex is held. After Commit() (or a failed commit) it is closed and the mutex
// released; destroying an open transaction rolls it back.
class SqlTransaction : public Transaction {
 public:
  // `vector_precision`: how PutVector stores a vector (SqliteOptions / PostgresOptions).
  SqlTransaction(std::unique_lock<std::mutex> lock, std::unique_ptr<Session> session,
                 VectorPrecision vector_precision);
  ~SqlTransaction() override;
  SqlTransaction(const SqlTransaction&) = delete;
  SqlTransaction& operator=(const SqlTransaction&) = delete;

  StatusOr<std::optional<ScopeRecord>> FindScope(std::string_view path) override;
  StatusOr<ScopeRecord> CreateScope(std::string_view path, std::string_view node_id,
                                    std::int64_t parent_scope_id, Timestamp created_at) override;
  StatusOr<std::int64_t> NextSequence(std::int64_t scope_id) override;
  StatusOr<NodeRecord> GetNode(std::string_view id) override;
  StatusOr<std::optional<NodeRecord>> FindTurnByKey(std::int64_t scope_id,
                                                    std::string_view key) override;
  StatusOr<EdgeRecord> GetEdge(std::string_view id) override;
  StatusOr<std::vector<EdgeRecord>> EdgesOf(std::string_view node_id, EdgeDirection direction,
                                            std::string_view type) override;
  StatusOr<std::vector<NodeRecord>> ListNodes(std::int64_t scope_id,
                                              const NodeFilter& filter) override;
  Status SetEmbedder(const EmbedderRecord& embedder, Timestamp at) override;
  StatusOr<std::optional<EmbedderRecord>> GetEmbedder() override;
  StatusOr<std::vector<TurnAnalysisRecord>> GetTurnAnalyses(
      std::span<const std::int64_t> turn_rows) override;
  Status PutProjectionSnapshot(const ProjectionSnapshot& snapshot) override;
  StatusOr<MerkleState> GetMerkleState(std::int64_t scope_id) override;
  StatusOr<std::optional<std::string>> GetMeta(std::string_view key) override;
  Status SetMeta(std::string_view key, std::string_view value) override;
  Status DeleteMeta(std::string_view key) override;
  Status AdvanceSequence(std::int64_t scope_id, std::int64_t last_sequence) override;
  Status Commit() override;

 protected:
  // kFailedPrecondition once the transaction was committed (or its commit failed).
  Status CheckOpen() const;
  Session& session() { return *session_; }
  merkle::Writer& merkle_writer() { return merkle_; }
  VectorPrecision vector_precision() const { return vector_precision_; }
  // The recorded embedder, read once per transaction (SetEmbedder reads it again).
  StatusOr<std::optional<EmbedderRecord>> RecordedEmbedder();

  // Runs `fn` so that when it fails nothing it wrote remains and the transaction goes on as
  // before (SQLite: under a SAVEPOINT). The default runs it as it is: for a backend whose
  // statements each check before they write.
  virtual Status Atomically(const std::function<Status()>& fn);
  // Asked first by Commit(): an error commits nothing (PostgreSQL: an earlier statement failed).
  virtual Status CheckCommittable();
  // The statements that commit (after the Merkle flush). Default: "COMMIT".
  virtual std::string_view commit_sql() const;
  // The table the shared writes append journal rows to. Default: "journal".
  virtual std::string_view journal_table() const;

  // Called before a call reads or writes what belongs to a scope, so that a backend whose write
  // transactions run side by side can serialise those that touch one scope tree: the scope by
  // its path (FindScope, CreateScope) or id (sequences, node lists, idempotency keys, the Merkle
  // state); an engine meta key (GetMeta, SetMeta, DeleteMeta); the recorded embedder
  // (SetEmbedder). The defaults do nothing: for a backend whose write transaction already
  // excludes every other writer (SQLite).
  virtual Status LockScopePath(std::string_view path);
  virtual Status LockScope(std::int64_t scope_id);
  virtual Status LockMetaKey(std::string_view key);
  virtual Status LockEmbedder();

 private:
  std::unique_lock<std::mutex> lock_;
  const std::unique_ptr<Session> session_;
  const VectorPrecision vector_precision_;
  merkle::Writer merkle_;  // the leaves appended, written by Flush before COMMIT
  // The recorded embedder as last read (unset: read it on the next call).
  std::optional<std::optional<EmbedderRecord>> embedder_;
  bool open_ = true;
};

class SqlStore : public Store {
 public:
  StatusOr<std::optional<ScopeRecord>> FindScope(std::string_view path) override;
  StatusOr<std::optional<ScopeRecord>> GetScope(std::int64_t scope_id) override;
  StatusOr<std::vector<ScopeRecord>> ListScopes() override;
  StatusOr<std::vector<ScopeRecord>> ScopeTree(std::int64_t scope_id) override;
  StatusOr<NodeRecord> GetNode(std::string_view id) override;
  StatusOr<std::vector<NodeRecord>> ListNodes(std::int64_t scope_id,
                                              const NodeFilter& filter) override;
  StatusOr<std::int64_t> CountNodes(std::int64_t scope_id) override;
  StatusOr<EdgeRecord> GetEdge(std::string_view id) override;
  StatusOr<std::vector<EdgeRecord>> EdgesOf(std::string_view node_id, EdgeDirection direction,
                                            std::string_view type) override;
  StatusOr<MerkleState> GetMerkleState(std::int64_t scope_id) override;
  StatusOr<std::vector<MerkleLeaf>> GetMerkleLeaves(std::int64_t scope_id,
                                                    MerkleLog log) override;
  StatusOr<std::vector<JournalEntry>> ReadJournal(std::int64_t after_seq,
                                                  std::size_t limit) override;
  StatusOr<std::vector<JournalEntry>> JournalFor(std::string_view target_id) override;
  StatusOr<std::int64_t> LastJournalSeq() override;
  StatusOr<std::optional<EmbedderRecord>> GetEmbedder() override;
  StatusOr<std::vector<std::pair<std::string, std::string>>> ListMeta(
      std::string_view prefix) override;
  StatusOr<std::int64_t> CountVectors(std::int64_t scope_id) override;
  StatusOr<std::vector<TurnAnalysisRecord>> GetTurnAnalyses(
      std::span<const std::int64_t> turn_rows) override;
  StatusOr<std::optional<ProjectionSnapshot>> GetProjectionSnapshot(
      std::int64_t scope_id, std::string_view projection) override;
  Status ScanNodes(std::int64_t scope_id, std::optional<NodeKind> kind,
                   const std::function<bool(const NodeRecord&)>& visit) override;
  Status ScanEdges(std::int64_t scope_id,
                   const std::function<bool(const EdgeRecord&)>& visit) override;
  // Every table of the schema in key order, then backend_dump_tables(), in one snapshot.
  StatusOr<std::string> DumpCanonical() override;

 protected:
  // A table of the canonical dump and the ORDER BY that lists its rows.
  struct DumpTable {
    std::string_view name;
    std::string_view order_by;
  };
  // Runs `sql` on a read connection and calls `visit` with each row until it returns false: the
  // scans. Whether `visit` runs while the connection is held is the backend's (see its header).
  virtual Status ScanRows(std::string_view sql, const Params& params, std::string_view operation,
                          const std::function<StatusOr<bool>(const Rows&)>& visit) = 0;
  // ScanNodes' statement: the nodes (kNodeColumns) of scope ?1 of kind ?2 (every kind when NULL)
  // in row order.
  virtual std::string_view scan_nodes_sql() const = 0;
  // The backend's own tables the dump lists after the schema's. Default: none.
  virtual std::span<const DumpTable> backend_dump_tables() const;

  // kStatement: a read of one statement; kSnapshot: several statements that must all see the
  // same commit.
  enum class ReadMode { kStatement, kSnapshot };
  // Runs `fn` on a read connection's session, which sees the last committed state (one snapshot
  // for the call with kSnapshot); returns fn's error, if any, else the read's.
  virtual Status Read(ReadMode mode, const std::function<Status(Session&)>& fn) = 0;

  // Read() for a value: `fn(session)` returns T or StatusOr<T>.
  template <typename T, typename Fn>
  StatusOr<T> ReadValue(ReadMode mode, Fn&& fn) {
    std::optional<StatusOr<T>> result;
    const Status read = Read(mode, [&](Session& session) -> Status {
      result.emplace(fn(session));
      return result->status();
    });
    if (!read.ok()) return read;
    return std::move(*result);
  }
};

}  // namespace engram::store::sql

#endif  // ENGRAM_STORE_SQL_SQL_STORE_H_
