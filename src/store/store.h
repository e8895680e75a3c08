// The Store: engram's single source of truth (DESIGN §3, §10).
//
// A store holds scopes, nodes and edges with content addresses, immutable content and mutable
// status / bitemporal validity, plus a journal of every change that projections (BM25, vectors,
// graph adjacency) follow. Backends: SQLite (embedded default, sqlite/) and PostgreSQL (the shared
// store, postgres/); OpenStore picks one from the store's location.
// One contract suite (tests/conformance/) runs against every backend.
//
// Writes happen inside a Transaction: all of it commits or none of it does. Every insert and
// state change appends a journal entry in the same transaction, so a projection that reads the
// journal after a commit (or after a crash) sees exactly the committed changes.
//
// Edges can only be written through the edge handler registry (src/write/edge_registry.h): the
// edge-writing methods take an EdgeWriteKey, which only engram::write::EdgeRegistry can create
// (WorldDB's "never appends" rule: no code path adds an edge without its type's semantics).
//
// Thread-safety: a Store may be used from several threads. At most one write Transaction is open
// at a time (BeginWrite blocks until the previous one ends); reads may run concurrently with it
// and see the last committed state.
#ifndef ENGRAM_STORE_STORE_H_
#define ENGRAM_STORE_STORE_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "engram/status.h"
#include "engram/types.h"

namespace engram::write {
class EdgeRegistry;
}  // namespace engram::write

namespace engram::store {

// Passkey: only the edge handler registry may construct one.
class EdgeWriteKey {
 private:
  friend class engram::write::EdgeRegistry;
  EdgeWriteKey() = default;
};

struct ScopeRecord {
  std::int64_t scope_id = 0;         // store-local row number, > 0
  std::string node_id;               // content address of the scope node
  std::string path;                  // Scope::ToString(), unique
  std::int64_t parent_scope_id = 0;  // 0 for a top-level scope
  std::int64_t last_sequence = 0;    // highest sequence number handed out in this scope
  Timestamp created_at;
};

// A node row. `row` is assigned by the store on insert, increasing in insertion order; index
// projections use it as their document key.
struct NodeRecord {
  std::int64_t row = 0;
  std::string id;  // content address (core::NodeId)
  NodeKind kind = NodeKind::kTurn;
  std::int64_t scope_id = 0;  // the scope it was written to ("parent world")
  std::string content_json;   // canonical JSON of the immutable content
  // Immutable fields, denormalised from the content for indexing and filtering.
  std::string text;
  Role role = Role::kUser;
  std::string speaker;
  std::string session_id;
  std::int64_t sequence = 0;  // per-scope interaction index
  std::optional<Timestamp> event_time;
  std::string metadata_json = "{}";
  // The turn's idempotency key (Turn::idempotency_key); "" = none. Unique within a scope: a
  // second turn with a key the scope holds is kAlreadyExists.
  std::string idempotency_key;
  // Mutable state.
  NodeStatus status = NodeStatus::kActive;
  std::optional<Timestamp> valid_from;
  std::optional<Timestamp> valid_to;
  Timestamp ingested_at;
  Timestamp updated_at;
};

// Edge status strings: "active", "pending" (same_as proposals), "rejected", "superseded",
// "retired".
struct EdgeRecord {
  std::int64_t row = 0;
  std::string id;  // content address (core::EdgeId)
  std::string type;
  std::string src;  // node id
  std::string dst;  // node id
  std::int64_t scope_id = 0;
  std::string attrs_json = "{}";  // immutable attributes (reason, resolver score, ...)
  std::string status = "active";
  std::optional<Timestamp> valid_from;
  std::optional<Timestamp> valid_to;
  Timestamp ingested_at;
  Timestamp updated_at;
};

enum class JournalOp {
  kScopeCreated,
  kNodeInserted,
  kNodeUpdated,  // status or validity changed
  kEdgeInserted,
  kEdgeUpdated,
  kScopeErased,  // tombstone left by EraseScopes; carries no content
  // Transaction::SetEmbedder recorded the store's embedder (scope_id 0, target_id the model id):
  // stored vectors may have been replaced, so vector projections reload.
  kEmbedderSet,
  // Transaction::PutVector stored a node's embedding (scope_id and target of the node, at = the
  // node's ingestion time): a vector written after its node (the derivation worker embeds turns
  // after they were acknowledged) reaches the vector projections through this entry.
  kVectorStored,
};
std::string_view JournalOpName(JournalOp op);

struct JournalEntry {
  std::int64_t seq = 0;  // increasing, assigned by the store
  std::int64_t scope_id = 0;
  JournalOp op = JournalOp::kNodeInserted;
  std::string target_id;        // node, edge or scope node id
  std::int64_t target_row = 0;  // node or edge row (0 for scopes)
  Timestamp at;
  std::string detail;  // e.g. "status=retired valid_to=2024-01-01T00:00:00Z"; never memory text
};

enum class EdgeDirection { kOutgoing, kIncoming, kBoth };

struct NodeFilter {
  std::optional<NodeKind> kind = std::nullopt;  // all kinds when unset
  // Only sequence > this. Nodes with sequence 0 (the scope node, and any node written without a
  // sequence number) are therefore left out by default; pass -1 to include them.
  std::int64_t after_sequence = 0;
  std::size_t limit = 0;         // 0 = no limit
  bool include_inactive = true;  // false: only status active
};

// The embedder whose vectors a store holds (Transaction::SetEmbedder). Every stored vector was
// made by this model; vectors of different models are never mixed in one store.
struct EmbedderRecord {
  std::string model_id;       // e.g. "use-lite@0.2.0"; "none": turns are stored without vectors
  std::size_t dimension = 0;  // floats per vector; 0 with model "none"

  friend bool operator==(const EmbedderRecord&, const EmbedderRecord&) = default;
};

// One node's stored embedding.
struct VectorRecord {
  std::int64_t row = 0;  // the node's row
  std::vector<float> values;
};

// A turn's analysis (schema 5; compact rows since schema 7): its Tier-0 signals and DMF content
// signals, derived deterministically from the turn's text by the write path's analysis stage and
// stored as one row per turn instead of a node, edge and journal row per signal. It is a
// projection of the turn, not evidence: it is not journalled (the turn's kNodeInserted entry, in
// the same transaction, tells readers it exists) and not covered by the Merkle logs; erasing the
// turn's scope erases it. The write path owns the format (store/turn_analysis.h: canonical JSON,
// or its compact binary form); the store keeps the bytes as they are given.
struct TurnAnalysisRecord {
  std::int64_t turn_row = 0;  // the turn's node row
  int format = 0;             // the layout of `bytes`, > 0 (store/turn_analysis.h)
  std::string bytes;          // format 1: canonical JSON; format 2: the compact binary row
};

// A projection's saved state (schema 8), so that a new process loads it instead of rebuilding
// the projection from the rows: today the vector projection's HNSW graph of a scope (links and
// levels, not the vectors, which stay in `vectors`). A projection, not evidence: not journalled,
// not in the Merkle logs, the canonical dump or exports; erasing its scope deletes it, and
// recording an embedder (Transaction::SetEmbedder, also the same one again) deletes every one. The
// projection owns the bytes and checks them when it reads them back; the store keeps them as given.
struct ProjectionSnapshot {
  std::int64_t scope_id = 0;
  std::string projection;        // which projection, e.g. "vector.hnsw"; one snapshot per scope
  std::string key;               // what it was built for (embedder, parameters); others ignore it
  std::int64_t journal_seq = 0;  // the store's journal the projection had applied when saved
  std::int64_t item_count = 0;   // items it covers (the vectors of a graph)
  std::string data;
};

// The Merkle audit (merkle.h, docs/AUDIT.md). Every backend keeps, per scope, an append-only log
// over its nodes and one over its edges (each in row order) and the scope root over both logs and
// the nested scopes' roots, updated in the transaction of every write and of EraseScopes. Hashes
// are 64 lowercase hex digits.
enum class MerkleLog { kNodes, kEdges };
std::string_view MerkleLogName(MerkleLog log);  // "node", "edge"

struct MerkleLeaf {
  std::int64_t index = 0;  // 0-based position in the log
  std::string target_id;   // the node or edge id
  std::string hash;        // merkle::NodeLeafHash / EdgeLeafHash as stored
};

struct MerkleState {
  std::int64_t node_count = 0;
  std::string node_root;  // root of the node log
  std::int64_t edge_count = 0;
  std::string edge_root;  // root of the edge log
  std::string root;       // the scope root
};

struct EraseCounts {
  std::size_t scopes = 0;
  std::size_t nodes = 0;
  std::size_t edges = 0;
  std::size_t journal_entries = 0;
  // Not ok when the erase is committed but wiping freed space afterwards failed: erased text may
  // remain in the store's files until the next checkpoint. The message says so.
  Status wipe_status;
};

// Operations available inside a write transaction. Reads see the transaction's own writes.
// Destroying a Transaction without Commit() rolls it back.
class Transaction {
 public:
  virtual ~Transaction() = default;

  virtual StatusOr<std::optional<ScopeRecord>> FindScope(std::string_view path) = 0;
  // kAlreadyExists if the path exists; kNotFound if parent_scope_id is set and unknown.
  // Also inserts the scope's node (kind scope, id node_id, content_json {"path":"<path>"},
  // text = path, scope_id = the new scope's own id, sequence 0) and journals kScopeCreated.
  virtual StatusOr<ScopeRecord> CreateScope(std::string_view path, std::string_view node_id,
                                            std::int64_t parent_scope_id, Timestamp created_at) = 0;
  // Increments and returns the scope's sequence number.
  virtual StatusOr<std::int64_t> NextSequence(std::int64_t scope_id) = 0;

  // Inserts a node (record.row is ignored) and returns its row. kAlreadyExists if the id exists.
  virtual StatusOr<std::int64_t> InsertNode(const NodeRecord& record) = 0;
  virtual StatusOr<NodeRecord> GetNode(std::string_view id) = 0;
  // The turn of the scope holding this idempotency key (seeing this transaction's writes), if
  // any. `key` must not be empty.
  virtual StatusOr<std::optional<NodeRecord>> FindTurnByKey(std::int64_t scope_id,
                                                            std::string_view key) = 0;
  // Changes the mutable state of a node; content never changes. kNotFound for an unknown id.
  // The kNodeUpdated journal detail is "status=<status> valid_to=<time|none>", followed by
  // "; <journal_detail>" when journal_detail is not empty (see store/journal.h StateDetail).
  virtual Status UpdateNodeState(std::string_view id, NodeStatus status,
                                 std::optional<Timestamp> valid_to, Timestamp updated_at,
                                 std::string_view journal_detail) = 0;

  virtual StatusOr<std::int64_t> InsertEdge(const EdgeWriteKey& key, const EdgeRecord& record) = 0;
  virtual StatusOr<EdgeRecord> GetEdge(std::string_view id) = 0;
  virtual Status UpdateEdgeState(const EdgeWriteKey& key, std::string_view id,
                                 std::string_view status, std::optional<Timestamp> valid_to,
                                 Timestamp updated_at) = 0;
  // Edges touching `node_id`, optionally of one type ("" = all), ordered by row.
  virtual StatusOr<std::vector<EdgeRecord>> EdgesOf(std::string_view node_id,
                                                    EdgeDirection direction,
                                                    std::string_view type) = 0;
  // Store::ListNodes inside the transaction (sees its own writes): nodes of one scope ordered by
  // (sequence, row). The facts stage uses it to find the scope's current facts.
  virtual StatusOr<std::vector<NodeRecord>> ListNodes(std::int64_t scope_id,
                                                      const NodeFilter& filter) = 0;

  // Records the store's embedder and journals kEmbedderSet (at = `at`). When the model id or the
  // dimension differs from the recorded one, every stored vector is deleted in the same
  // transaction (vectors of different models must never be compared). InvalidArgument for an
  // empty model id, or a dimension of 0 with a model other than "none" (or not 0 with "none").
  virtual Status SetEmbedder(const EmbedderRecord& embedder, Timestamp at) = 0;
  // The recorded embedder, seeing this transaction's writes; unset when none was recorded.
  virtual StatusOr<std::optional<EmbedderRecord>> GetEmbedder() = 0;
  // Stores (or replaces) the embedding of node `node_id`, made by model `model_id`. Values are
  // stored as they are given (callers pass unit vectors). NotFound for an unknown node;
  // FailedPrecondition when no embedder is recorded or `model_id` / the length differ from it;
  // InvalidArgument for a non-finite value. Journalled as kVectorStored (at = the node's
  // ingestion time, so the entry does not depend on when the vector was written).
  virtual Status PutVector(std::string_view node_id, std::string_view model_id,
                           std::span<const float> values) = 0;

  // Stores (or replaces) the analysis of the turn at record.turn_row. NotFound when that row is
  // not a turn; InvalidArgument for a format <= 0 or `bytes` that are not what the format says
  // (CheckTurnAnalysisBytes: a complete compact row under format 2, a JSON object otherwise).
  virtual Status PutTurnAnalysis(const TurnAnalysisRecord& record) = 0;
  // The analyses of these turn rows (seeing this transaction's writes), in the order given;
  // rows without one are skipped.
  virtual StatusOr<std::vector<TurnAnalysisRecord>> GetTurnAnalyses(
      std::span<const std::int64_t> turn_rows) = 0;

  // Stores (or replaces) the scope's snapshot of `snapshot.projection`. NotFound for an unknown
  // scope; InvalidArgument for an empty projection name or a negative count or seq.
  virtual Status PutProjectionSnapshot(const ProjectionSnapshot& snapshot) = 0;

  // The Merkle state of a scope as this transaction's writes leave it (its logs and roots are
  // brought up to date first). kNotFound for an unknown scope.
  virtual StatusOr<MerkleState> GetMerkleState(std::int64_t scope_id) = 0;

  // The engine's bookkeeping in the store's `meta` table (e.g. the derivation cursors of
  // engine/derive_worker.h), seeing this transaction's writes. Keys must start with "engine."
  // (kInvalidArgument otherwise): the store's own entries (schema version, embedder) are not
  // reachable here. Values are text.
  virtual StatusOr<std::optional<std::string>> GetMeta(std::string_view key) = 0;
  virtual Status SetMeta(std::string_view key, std::string_view value) = 0;
  // Removes the entry; removing a missing one is not an error.
  virtual Status DeleteMeta(std::string_view key) = 0;

  // Raises the scope's last handed-out sequence number to `last_sequence` (never lowers it), so an
  // imported scope goes on numbering after its imported turns. kNotFound for an unknown scope.
  virtual Status AdvanceSequence(std::int64_t scope_id, std::int64_t last_sequence) = 0;

  // Makes every write durable (see docs/ARCHITECTURE.md for the durability promise). Before the
  // commit it brings the Merkle roots of every scope written to (and of the scopes enclosing
  // them) up to date.
  virtual Status Commit() = 0;
};

class Store {
 public:
  virtual ~Store() = default;

  // "sqlite", "postgres".
  virtual std::string_view backend() const = 0;

  // Opens the single write transaction; blocks while another is open.
  virtual StatusOr<std::unique_ptr<Transaction>> BeginWrite() = 0;

  virtual StatusOr<std::optional<ScopeRecord>> FindScope(std::string_view path) = 0;
  virtual StatusOr<std::optional<ScopeRecord>> GetScope(std::int64_t scope_id) = 0;
  virtual StatusOr<std::vector<ScopeRecord>> ListScopes() = 0;  // ordered by path
  // The scope and every scope nested in it, ordered by scope_id.
  virtual StatusOr<std::vector<ScopeRecord>> ScopeTree(std::int64_t scope_id) = 0;

  virtual StatusOr<NodeRecord> GetNode(std::string_view id) = 0;
  // The nodes with these rows, in the order given; unknown rows are skipped.
  virtual StatusOr<std::vector<NodeRecord>> GetNodesByRow(std::span<const std::int64_t> rows) = 0;
  // Nodes of one scope ordered by (sequence, row).
  virtual StatusOr<std::vector<NodeRecord>> ListNodes(std::int64_t scope_id,
                                                      const NodeFilter& filter) = 0;
  // Calls `visit` for every node of the scope in row order until it returns false.
  virtual Status ScanNodes(std::int64_t scope_id, std::optional<NodeKind> kind,
                           const std::function<bool(const NodeRecord&)>& visit) = 0;
  // Every node whose scope_id is this scope, the scope node included.
  virtual StatusOr<std::int64_t> CountNodes(std::int64_t scope_id) = 0;

  virtual StatusOr<EdgeRecord> GetEdge(std::string_view id) = 0;
  virtual StatusOr<std::vector<EdgeRecord>> EdgesOf(std::string_view node_id,
                                                    EdgeDirection direction,
                                                    std::string_view type) = 0;
  // Edges of one type ("" = all) whose src or dst lies in the scope, ordered by row.
  virtual StatusOr<std::vector<EdgeRecord>> EdgesInScope(std::int64_t scope_id,
                                                         std::string_view type) = 0;

  // Calls `visit` for every edge written to this scope (EdgeRecord::scope_id) in row order until
  // it returns false.
  virtual Status ScanEdges(std::int64_t scope_id,
                           const std::function<bool(const EdgeRecord&)>& visit) = 0;

  // The stored Merkle state of a scope; kNotFound for an unknown scope.
  virtual StatusOr<MerkleState> GetMerkleState(std::int64_t scope_id) = 0;
  // The stored leaves of one of the scope's logs, in log order.
  virtual StatusOr<std::vector<MerkleLeaf>> GetMerkleLeaves(std::int64_t scope_id,
                                                            MerkleLog log) = 0;

  // Journal entries with seq > after_seq, oldest first, at most `limit` (0 = all).
  virtual StatusOr<std::vector<JournalEntry>> ReadJournal(std::int64_t after_seq,
                                                          std::size_t limit) = 0;
  // Journal entries about one node or edge, oldest first.
  virtual StatusOr<std::vector<JournalEntry>> JournalFor(std::string_view target_id) = 0;
  virtual StatusOr<std::int64_t> LastJournalSeq() = 0;
  // Waits until the journal holds an entry with seq > after_seq (another connection, process or
  // server committed a write), `timeout` passes or `stop` is requested, and returns the last
  // journal seq then (<= after_seq when nothing new was committed). It is a wake-up only: the
  // journal itself is the truth, so a caller reads it (ReadJournal) after any return.
  // PostgreSQL LISTENs on its own connection for the NOTIFY every write transaction sends at
  // commit, and checks the journal when woken or when the timeout passes; SQLite polls
  // LastJournalSeq. A stop request is seen within 100 ms.
  virtual StatusOr<std::int64_t> WaitForJournal(std::int64_t after_seq,
                                                std::chrono::milliseconds timeout,
                                                std::stop_token stop = {}) = 0;

  // The recorded embedder (Transaction::SetEmbedder); unset when none was recorded.
  virtual StatusOr<std::optional<EmbedderRecord>> GetEmbedder() = 0;
  // Committed engine entries of the meta table (Transaction::SetMeta) whose key starts with
  // `prefix` (which must start with "engine."), ordered by key.
  virtual StatusOr<std::vector<std::pair<std::string, std::string>>> ListMeta(
      std::string_view prefix) = 0;
  // Calls `visit` with every stored vector of the scope's nodes, in row order, until it returns
  // false. The span is valid only during the call.
  virtual Status ScanVectors(std::int64_t scope_id,
                             const std::function<bool(std::int64_t row,
                                                      std::span<const float> values)>& visit) = 0;
  // The stored vectors of these node rows, in the order given; rows without a vector are skipped.
  virtual StatusOr<std::vector<VectorRecord>> GetVectorsByRow(
      std::span<const std::int64_t> rows) = 0;
  // Number of stored vectors of the scope's nodes.
  virtual StatusOr<std::int64_t> CountVectors(std::int64_t scope_id) = 0;

  // The stored analyses of these turn rows (TurnAnalysisRecord), in the order given; rows
  // without one are skipped.
  virtual StatusOr<std::vector<TurnAnalysisRecord>> GetTurnAnalyses(
      std::span<const std::int64_t> turn_rows) = 0;

  // The scope's committed snapshot of `projection` (ProjectionSnapshot), if one is stored.
  virtual StatusOr<std::optional<ProjectionSnapshot>> GetProjectionSnapshot(
      std::int64_t scope_id, std::string_view projection) = 0;

  // Hard-deletes the scopes and every scope nested in them, their nodes, their vectors, turn
  // analyses and projection snapshots, every edge touching those nodes or lying in those scopes,
  // and the journal rows about any of these; leaves one kScopeErased tombstone per erased scope (at
  // = the store's latest journal time, so erasing reads no clock; detail has counts only); then
  // wipes freed space so the store's files no longer contain the erased content. kNotFound for an
  // unknown scope id (nothing is erased). An error means nothing was erased; when only the final
  // wipe fails, the counts are returned with wipe_status set. Takes the write lock: do not call it
  // while holding a Transaction.
  virtual StatusOr<EraseCounts> EraseScopes(std::span<const std::int64_t> scope_ids) = 0;

  // A canonical text dump of every table (for determinism tests and debugging).
  virtual StatusOr<std::string> DumpCanonical() = 0;
};

// How a store writes a vector's values (`[store] vector_precision`): float32 (4 bytes a value),
// float16 (IEEE half, 2 bytes a value) or int8 (one signed byte a value plus a float32 scale
// per vector). A store may hold every form; a read tells them apart by their length.
enum class VectorPrecision { kFloat32, kFloat16, kInt8 };

// "float32", "float16", "int8"; VectorPrecisionNamed is the inverse (nullopt for another name).
std::string_view VectorPrecisionName(VectorPrecision precision);
std::optional<VectorPrecision> VectorPrecisionNamed(std::string_view name);

struct SqliteOptions {
  // Create the file if missing. Default: true; when false a missing file is kNotFound.
  bool create_if_missing = true;
  // PRAGMA synchronous: true = FULL (a committed transaction survives power loss, given an
  // honest fsync), false = NORMAL (survives a process crash; the last commits may be lost on power
  // loss). Default: true.
  bool durable_commits = true;
  // How long a writer waits for another process's lock before kUnavailable. Default: 5000 ms.
  int busy_timeout_ms = 5000;
  // How PutVector stores a vector (VectorPrecision); vectors of every form are read back as
  // float32, each by its own stored form. Default: float32.
  VectorPrecision vector_precision = VectorPrecision::kFloat32;
};

StatusOr<std::unique_ptr<Store>> OpenSqliteStore(std::string_view path,
                                                 const SqliteOptions& options = {});

// Connection settings of a PostgreSQL store ([store] in the configuration).
struct PostgresOptions {
  // Create the schema in a database that holds none yet. Default: true; when false an empty
  // database is kNotFound. The database itself must exist (createdb).
  bool create_if_missing = true;
  // Connections the store keeps at most: one for the writer, the rest for reads. Default: 4.
  std::size_t pool_size = 4;
  // How long opening a connection may take before kUnavailable, in seconds (libpq's
  // connect_timeout; 1 counts as 2). Default: 10.
  std::size_t connect_timeout_seconds = 10;
  // The server cancels a statement running longer than this (statement_timeout), in
  // milliseconds; 0 = no limit. Also bounds how long BeginWrite waits for another server's
  // writer. Default: 30000.
  std::size_t statement_timeout_ms = 30000;
  // As SqliteOptions::vector_precision. Default: float32.
  VectorPrecision vector_precision = VectorPrecision::kFloat32;
};

// A PostgreSQL store at `url` (postgresql://user@host:port/dbname?..., or postgres://; every
// libpq URI form works, e.g. ?host=/run/postgresql for a Unix socket). Errors name the server
// and what to do: kUnavailable for a server that cannot be reached, kFailedPrecondition for
// refused credentials or a schema version newer than this binary, kNotFound for a missing
// database (or, with create_if_missing false, a database without a store). The password never
// appears in a message.
StatusOr<std::unique_ptr<Store>> OpenPostgresStore(std::string_view url,
                                                   const PostgresOptions& options = {});

// The values a read gives back for `values` stored with `precision`: float32 `values` itself;
// float16 each value rounded to the nearest IEEE half (ties to even); int8 each value rounded to
// the nearest of the 255 steps code × scale / 127 (code in [-127, 127], ties away from zero),
// scale = the vector's largest magnitude. Storing the result again stores the same bytes.
std::vector<float> StoredVectorValues(std::span<const float> values, VectorPrecision precision);

// True when `location` names a PostgreSQL store (postgresql:// or postgres://).
bool IsPostgresUrl(std::string_view location);

// `location` fit for messages and logs: a URL's password (user:PASSWORD@ or password=...) is
// replaced by "***"; a file path is returned as it is.
std::string RedactStoreLocation(std::string_view location);

// Settings of every backend; OpenStore passes each backend its own.
struct StoreOptions {
  SqliteOptions sqlite;
  PostgresOptions postgres;
};

// Opens the store at `location`: a PostgreSQL store for a postgresql:// or postgres:// URL, else
// the SQLite file at that path.
StatusOr<std::unique_ptr<Store>> OpenStore(std::string_view location,
                                           const StoreOptions& options = {});

}  // namespace engram::store

#endif  // ENGRAM_STORE_STORE_H_
