// The SQLite schema, as an ordered list of migrations (see migrations.h).
//
// Times are INTEGER microseconds since the Unix epoch (UTC); an unset optional time is NULL.
// Row numbers use AUTOINCREMENT so a row (or journal seq) is never handed out twice, even after
// EraseScopes deleted the highest ones: projections key documents by row and follow the journal
// by seq.
#include "store/sqlite/migrations.h"

#include <array>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "store/backend_common.h"
#include "store/merkle.h"
#include "store/sql/migration_steps.h"
#include "store/sqlite/merkle_sqlite.h"
#include "store/sqlite/sqlite_session.h"
#include "store/turn_analysis.h"

namespace engram::store::sqlite {
namespace {

constexpr std::string_view kSchemaV1 = R"sql(
CREATE TABLE meta (
  key   TEXT PRIMARY KEY NOT NULL,
  value TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE scopes (
  scope_id        INTEGER PRIMARY KEY AUTOINCREMENT,
  node_id         TEXT NOT NULL,
  path            TEXT NOT NULL,
  parent_scope_id INTEGER REFERENCES scopes(scope_id),  -- NULL for a top-level scope
  last_sequence   INTEGER NOT NULL DEFAULT 0,
  created_at      INTEGER NOT NULL
);
CREATE UNIQUE INDEX scopes_by_path ON scopes(path);
CREATE UNIQUE INDEX scopes_by_node_id ON scopes(node_id);
CREATE INDEX scopes_by_parent ON scopes(parent_scope_id);

CREATE TABLE nodes (
  row_id        INTEGER PRIMARY KEY AUTOINCREMENT,
  id            TEXT NOT NULL,
  kind          TEXT NOT NULL,
  scope_id      INTEGER NOT NULL REFERENCES scopes(scope_id),
  content_json  TEXT NOT NULL,
  text          TEXT NOT NULL,
  role          TEXT NOT NULL,
  speaker       TEXT NOT NULL,
  session_id    TEXT NOT NULL,
  sequence      INTEGER NOT NULL,
  event_time    INTEGER,
  metadata_json TEXT NOT NULL,
  status        TEXT NOT NULL,
  valid_from    INTEGER,
  valid_to      INTEGER,
  ingested_at   INTEGER NOT NULL,
  updated_at    INTEGER NOT NULL
);
CREATE UNIQUE INDEX nodes_by_id ON nodes(id);
CREATE INDEX nodes_by_scope_sequence ON nodes(scope_id, sequence);

-- Content is immutable: only status, valid_from, valid_to and updated_at may change.
CREATE TRIGGER nodes_content_immutable BEFORE UPDATE ON nodes
WHEN NEW.row_id IS NOT OLD.row_id OR NEW.id IS NOT OLD.id OR NEW.kind IS NOT OLD.kind
  OR NEW.scope_id IS NOT OLD.scope_id OR NEW.content_json IS NOT OLD.content_json
  OR NEW.text IS NOT OLD.text OR NEW.role IS NOT OLD.role OR NEW.speaker IS NOT OLD.speaker
  OR NEW.session_id IS NOT OLD.session_id OR NEW.sequence IS NOT OLD.sequence
  OR NEW.event_time IS NOT OLD.event_time OR NEW.metadata_json IS NOT OLD.metadata_json
  OR NEW.ingested_at IS NOT OLD.ingested_at
BEGIN
  SELECT RAISE(ABORT, 'engram: node content is immutable (only status and validity may change)');
END;

CREATE TABLE edges (
  row_id      INTEGER PRIMARY KEY AUTOINCREMENT,
  id          TEXT NOT NULL,
  type        TEXT NOT NULL,
  src         TEXT NOT NULL REFERENCES nodes(id),
  dst         TEXT NOT NULL REFERENCES nodes(id),
  scope_id    INTEGER NOT NULL REFERENCES scopes(scope_id),
  attrs_json  TEXT NOT NULL,
  status      TEXT NOT NULL,
  valid_from  INTEGER,
  valid_to    INTEGER,
  ingested_at INTEGER NOT NULL,
  updated_at  INTEGER NOT NULL
);
CREATE UNIQUE INDEX edges_by_id ON edges(id);
CREATE INDEX edges_by_src ON edges(src, type);
CREATE INDEX edges_by_dst ON edges(dst, type);
CREATE INDEX edges_by_scope ON edges(scope_id, type);

CREATE TRIGGER edges_content_immutable BEFORE UPDATE ON edges
WHEN NEW.row_id IS NOT OLD.row_id OR NEW.id IS NOT OLD.id OR NEW.type IS NOT OLD.type
  OR NEW.src IS NOT OLD.src OR NEW.dst IS NOT OLD.dst OR NEW.scope_id IS NOT OLD.scope_id
  OR NEW.attrs_json IS NOT OLD.attrs_json OR NEW.ingested_at IS NOT OLD.ingested_at
BEGIN
  SELECT RAISE(ABORT, 'engram: edge content is immutable (only status and validity may change)');
END;

-- scope_id has no foreign key: kScopeErased tombstones outlive their scope.
CREATE TABLE journal (
  seq        INTEGER PRIMARY KEY AUTOINCREMENT,
  scope_id   INTEGER NOT NULL,
  op         TEXT NOT NULL,
  target_id  TEXT NOT NULL,
  target_row INTEGER NOT NULL,
  at         INTEGER NOT NULL,
  detail     TEXT NOT NULL
);
CREATE INDEX journal_by_target ON journal(target_id);
CREATE INDEX journal_by_scope ON journal(scope_id);
)sql";

// Vectors: one embedding per node, made by the embedder recorded in meta (embedder_model_id,
// embedder_dimension). A blob holds `dimension` IEEE-754 float32 values, little-endian. A store
// that already holds turns was written without vectors: it records the embedder "none", so an
// engine configured with a real embedder asks for `engram reembed` instead of mixing.
constexpr std::string_view kSchemaV2 = R"sql(
CREATE TABLE vectors (
  node_row  INTEGER PRIMARY KEY REFERENCES nodes(row_id),
  model_id  TEXT NOT NULL,
  dimension INTEGER NOT NULL,
  vector    BLOB NOT NULL
);

INSERT INTO meta(key, value)
  SELECT 'embedder_model_id', 'none' WHERE EXISTS (SELECT 1 FROM nodes WHERE kind = 'turn');
INSERT INTO meta(key, value)
  SELECT 'embedder_dimension', '0' WHERE EXISTS (SELECT 1 FROM nodes WHERE kind = 'turn');
)sql";

// Idempotency keys: a turn's key in its own column, unique within its scope, so a repeated write
// is recognised inside the write transaction. Until now `engram ingest` kept the key in the turn's
// metadata ("idempotency_key"): it moves out of metadata_json and the content's "metadata" into
// the column (the earliest turn of a scope keeps a key held twice; later ones lose it), so
// metadata is the user's own again. Content is otherwise immutable: the trigger is dropped for the
// move and recreated covering the new column. Node ids stay as they were.
constexpr std::string_view kSchemaV3 = R"sql(
DROP TRIGGER nodes_content_immutable;
ALTER TABLE nodes ADD COLUMN idempotency_key TEXT;

UPDATE nodes SET idempotency_key = json_extract(metadata_json, '$.idempotency_key')
WHERE row_id IN (
  SELECT min(row_id) FROM nodes
  WHERE kind = 'turn' AND json_valid(metadata_json)
    AND json_type(metadata_json, '$.idempotency_key') = 'text'
    AND json_extract(metadata_json, '$.idempotency_key') <> ''
  GROUP BY scope_id, json_extract(metadata_json, '$.idempotency_key'));

UPDATE nodes SET
  metadata_json = json_remove(metadata_json, '$.idempotency_key'),
  content_json = CASE WHEN json_valid(content_json)
                      THEN json_remove(content_json, '$.metadata.idempotency_key')
                      ELSE content_json END
WHERE kind = 'turn' AND json_valid(metadata_json)
  AND json_type(metadata_json, '$.idempotency_key') = 'text';

CREATE UNIQUE INDEX nodes_by_idempotency_key ON nodes(scope_id, idempotency_key)
  WHERE idempotency_key IS NOT NULL;

CREATE TRIGGER nodes_content_immutable BEFORE UPDATE ON nodes
WHEN NEW.row_id IS NOT OLD.row_id OR NEW.id IS NOT OLD.id OR NEW.kind IS NOT OLD.kind
  OR NEW.scope_id IS NOT OLD.scope_id OR NEW.content_json IS NOT OLD.content_json
  OR NEW.text IS NOT OLD.text OR NEW.role IS NOT OLD.role OR NEW.speaker IS NOT OLD.speaker
  OR NEW.session_id IS NOT OLD.session_id OR NEW.sequence IS NOT OLD.sequence
  OR NEW.event_time IS NOT OLD.event_time OR NEW.metadata_json IS NOT OLD.metadata_json
  OR NEW.ingested_at IS NOT OLD.ingested_at OR NEW.idempotency_key IS NOT OLD.idempotency_key
BEGIN
  SELECT RAISE(ABORT, 'engram: node content is immutable (only status and validity may change)');
END;
)sql";

// The Merkle audit (store/merkle.h, docs/AUDIT.md): per scope one leaf row per node and per
// edge, in the scope's row order, and the frontiers of the two logs with the scope root. The
// hashes are SHA-256, which SQL cannot compute: ApplyMigrations fills both tables for the scopes
// a store already holds (merkle::Backfill) in the same transaction.
constexpr std::string_view kSchemaV4 = R"sql(
CREATE TABLE merkle_leaves (
  scope_id  INTEGER NOT NULL,
  log       TEXT NOT NULL,     -- 'node' or 'edge'
  idx       INTEGER NOT NULL,  -- 0-based position in the log
  target_id TEXT NOT NULL,     -- the node or edge id
  hash      TEXT NOT NULL,     -- the leaf hash, 64 hex digits
  PRIMARY KEY (scope_id, log, idx)
) WITHOUT ROWID;

CREATE TABLE merkle_roots (
  scope_id      INTEGER PRIMARY KEY,
  node_count    INTEGER NOT NULL,
  node_frontier TEXT NOT NULL,  -- perfect-subtree roots of the node log, largest first, hex
  edge_count    INTEGER NOT NULL,
  edge_frontier TEXT NOT NULL,
  root          TEXT NOT NULL   -- the scope root, 64 hex digits
);
)sql";

// A compact store: a turn's signals and content signals move from one `signal` node each (with a
// derived_from edge and journal rows) into one row per turn (store/turn_analysis.h). The rows of
// a store's existing turns are built from their signal nodes by ApplyMigrations (JSON is
// reshaped in C++, the one place that knows the layout); then the signal nodes go, except the
// date and time nodes that at_time and refers_to edges point at (the graph's time anchors), and
// so do the derived_from edges of signal nodes and every journal row about what is deleted. The
// Merkle logs are rebuilt (merkle::Backfill), since nodes and edges left them.
constexpr std::string_view kSchemaV5 = R"sql(
CREATE TABLE turn_analysis (
  turn_row INTEGER PRIMARY KEY REFERENCES nodes(row_id),
  format   INTEGER NOT NULL,
  analysis TEXT NOT NULL
);
)sql";

// After the rows are built: what the v4 signal nodes leave behind goes.
constexpr std::string_view kDropSignalNodes = R"sql(
CREATE TEMP TABLE v5_dropped_nodes AS
  SELECT row_id, id FROM nodes n WHERE kind = 'signal' AND NOT EXISTS (
    SELECT 1 FROM edges e WHERE e.dst = n.id AND e.type IN ('at_time', 'refers_to'));
CREATE TEMP TABLE v5_dropped_edges AS
  SELECT id FROM edges
  WHERE (type = 'derived_from' AND src IN (SELECT id FROM nodes WHERE kind = 'signal'))
     OR src IN (SELECT id FROM temp.v5_dropped_nodes)
     OR dst IN (SELECT id FROM temp.v5_dropped_nodes);
DELETE FROM journal WHERE target_id IN (SELECT id FROM temp.v5_dropped_nodes)
                       OR target_id IN (SELECT id FROM temp.v5_dropped_edges);
DELETE FROM edges WHERE id IN (SELECT id FROM temp.v5_dropped_edges);
DELETE FROM vectors WHERE node_row IN (SELECT row_id FROM temp.v5_dropped_nodes);
DELETE FROM nodes WHERE id IN (SELECT id FROM temp.v5_dropped_nodes);
DROP TABLE temp.v5_dropped_nodes;
DROP TABLE temp.v5_dropped_edges;
)sql";

// Compact rows: a turn's text stored once and the Merkle leaf hashes as their 32 bytes. A turn
// whose content_json is exactly what its columns rebuild stores "" there (StoredContentJson,
// store/backend_common.h): ConvertToSchema6 rewrites the nodes a store holds that way, with the
// content trigger dropped for it and recreated as schema 3 made it, and copies the leaves into
// the new table (SQLite before 3.41 has no unhex(), so the copy is C++). Node ids, leaf hashes
// and roots do not change.
constexpr std::string_view kSchemaV6 = R"sql(
ALTER TABLE merkle_leaves RENAME TO merkle_leaves_v5;
CREATE TABLE merkle_leaves (
  scope_id  INTEGER NOT NULL,
  log       TEXT NOT NULL,     -- 'node' or 'edge'
  idx       INTEGER NOT NULL,  -- 0-based position in the log
  target_id TEXT NOT NULL,     -- the node or edge id
  hash      BLOB NOT NULL,     -- the leaf hash, 32 bytes
  PRIMARY KEY (scope_id, log, idx)
) WITHOUT ROWID;
)sql";

// The content trigger of schema 3, which ConvertToSchema6 recreates after its rewrite.
constexpr std::string_view kNodesContentImmutable = R"sql(
CREATE TRIGGER nodes_content_immutable BEFORE UPDATE ON nodes
WHEN NEW.row_id IS NOT OLD.row_id OR NEW.id IS NOT OLD.id OR NEW.kind IS NOT OLD.kind
  OR NEW.scope_id IS NOT OLD.scope_id OR NEW.content_json IS NOT OLD.content_json
  OR NEW.text IS NOT OLD.text OR NEW.role IS NOT OLD.role OR NEW.speaker IS NOT OLD.speaker
  OR NEW.session_id IS NOT OLD.session_id OR NEW.sequence IS NOT OLD.sequence
  OR NEW.event_time IS NOT OLD.event_time OR NEW.metadata_json IS NOT OLD.metadata_json
  OR NEW.ingested_at IS NOT OLD.ingested_at OR NEW.idempotency_key IS NOT OLD.idempotency_key
BEGIN
  SELECT RAISE(ABORT, 'engram: node content is immutable (only status and validity may change)');
END;
)sql";

// Compact rows again: a turn's analysis row in format 2 (store/turn_analysis.h: codes and
// varints instead of JSON field names, a value equal to its span kept as the span) wherever that
// gives the format-1 JSON back byte for byte, and a Merkle leaf's target id as its 16 bytes when
// it is 32 lowercase hex digits (every id engram makes; other ids stay text: see
// merkle_sqlite.cc). ConvertToSchema7 rewrites the rows a store holds. The columns keep their
// declared types: SQLite stores the bytes as BLOBs in them. Ids, leaves and roots do not change.
constexpr std::string_view kSchemaV7 = "";

// Projection snapshots (store.h ProjectionSnapshot): a projection's saved state per scope (the
// vector projection's HNSW graph), so a new process loads it instead of rebuilding. Not
// evidence: no journal rows, no Merkle leaves, not in the canonical dump or exports. A rowid
// table: its rows are megabytes, which SQLite keeps better in overflow pages of a rowid table.
constexpr std::string_view kSchemaV8 = R"sql(
CREATE TABLE projection_snapshots (
  scope_id    INTEGER NOT NULL REFERENCES scopes(scope_id),
  projection  TEXT NOT NULL,     -- e.g. 'vector.hnsw'
  key         TEXT NOT NULL,     -- what it was built for; a reader ignores another key
  journal_seq INTEGER NOT NULL,  -- the journal position the projection had applied
  item_count  INTEGER NOT NULL,  -- items covered (vectors of a graph)
  data        BLOB NOT NULL,
  PRIMARY KEY (scope_id, projection)
);
)sql";

// The DDL of schema version n at [n - 1].
constexpr std::array<std::string_view, 8> kSchemaSql = {
    kSchemaV1, kSchemaV2, kSchemaV3, kSchemaV4, kSchemaV5, kSchemaV6, kSchemaV7, kSchemaV8,
};
static_assert(static_cast<std::int64_t>(kSchemaSql.size()) == kLatestSchemaVersion);

// Schema 5: the analysis rows of the turns a version 4 store holds, from their signal nodes
// (found through their derived_from edges), then the signal nodes' removal (kDropSignalNodes).
Status ConvertSignalNodes(Connection& connection) {
  SqliteSession session(connection);
  RETURN_IF_ERROR(sql::BuildAnalysisRows(session));
  return connection.Exec(kDropSignalNodes, "migrate to schema 5: drop signal nodes");
}

// Schema 6: the leaves copied with their hashes as bytes, and every node whose stored content
// differs from StoredContentJson's (compactable turns, and contents that are empty or start with
// a space) rewritten, in batches of row ids.
Status ConvertToSchema6(Connection& connection) {
  {
    ASSIGN_OR_RETURN(Statement leaves,
                     connection.Prepare("SELECT scope_id, log, idx, target_id, hash "
                                        "FROM merkle_leaves_v5 ORDER BY scope_id, log, idx",
                                        "migrate to schema 6: read merkle leaves"));
    while (true) {
      ASSIGN_OR_RETURN(const bool has_row, leaves.Step());
      if (!has_row) break;
      ASSIGN_OR_RETURN(
          const merkle::Hash hash,
          merkle::FromHex(leaves.ColumnText(4), "merkle leaf of " + leaves.ColumnText(3)));
      ASSIGN_OR_RETURN(Statement insert,
                       connection.Prepare("INSERT INTO merkle_leaves(scope_id, log, idx, "
                                          "target_id, hash) VALUES(?1, ?2, ?3, ?4, ?5)",
                                          "migrate to schema 6: write merkle leaf"));
      insert.BindInt(1, leaves.ColumnInt(0));
      insert.BindText(2, leaves.ColumnText(1));
      insert.BindInt(3, leaves.ColumnInt(2));
      insert.BindText(4, leaves.ColumnText(3));
      insert.BindBlob(5, std::as_bytes(std::span<const std::uint8_t>(hash)));
      RETURN_IF_ERROR(insert.Run());
    }
  }
  RETURN_IF_ERROR(
      connection.Exec("DROP TABLE merkle_leaves_v5; DROP TRIGGER IF EXISTS nodes_content_immutable",
                      "migrate to schema 6: drop the old leaves"));
  SqliteSession session(connection);
  RETURN_IF_ERROR(sql::StoreTurnTextOnce(session));
  return connection.Exec(kNodesContentImmutable, "migrate to schema 6: recreate the trigger");
}

// Schema 7: every format-1 analysis row that format 2 gives back byte for byte rewritten in
// format 2 (TurnAnalysisRow), in batches of turn rows; the others stay JSON.
Status ConvertToSchema7(Connection& connection) {
  SqliteSession session(connection);
  return sql::CompactAnalysisRows(session);
}

// Schema 7: the leaves whose target id is text rewritten through MerkleTables' own binding (hex
// ids become bytes), in batches of their keys.
Status CompactLeafTargets(Connection& connection) {
  std::int64_t scope_id = -1;
  std::string log;
  std::int64_t idx = -1;
  while (true) {
    ASSIGN_OR_RETURN(Statement read,
                     connection.Prepare("SELECT scope_id, log, idx, target_id FROM merkle_leaves "
                                        "WHERE (scope_id, log, idx) > (?1, ?2, ?3) AND "
                                        "typeof(target_id) = 'text' "
                                        "ORDER BY scope_id, log, idx LIMIT 4096",
                                        "migrate to schema 7: read merkle leaves"));
    read.BindInt(1, scope_id);
    read.BindText(2, log);
    read.BindInt(3, idx);
    struct Leaf {
      std::int64_t scope_id;
      std::string log;
      std::int64_t idx;
      std::string target_id;
    };
    std::vector<Leaf> leaves;
    while (true) {
      ASSIGN_OR_RETURN(const bool has_row, read.Step());
      if (!has_row) break;
      leaves.push_back(
          {read.ColumnInt(0), read.ColumnText(1), read.ColumnInt(2), read.ColumnText(3)});
    }
    if (leaves.empty()) return Status::Ok();
    for (const Leaf& leaf : leaves) {
      ASSIGN_OR_RETURN(Statement update,
                       connection.Prepare("UPDATE merkle_leaves SET target_id = ?4 WHERE "
                                          "scope_id = ?1 AND log = ?2 AND idx = ?3",
                                          "migrate to schema 7: write a leaf's target id"));
      update.BindInt(1, leaf.scope_id);
      update.BindText(2, leaf.log);
      update.BindInt(3, leaf.idx);
      BindMerkleTargetId(update, 4, leaf.target_id);
      RETURN_IF_ERROR(update.Run());
    }
    scope_id = leaves.back().scope_id;
    log = leaves.back().log;
    idx = leaves.back().idx;
  }
}

}  // namespace


StatusOr<std::int64_t> ReadSchemaVersion(Connection& connection) {
  ASSIGN_OR_RETURN(
      const std::optional<std::string> has_meta,
      connection.QueryText("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'meta'",
                           "read schema version"));
  if (!has_meta.has_value()) {
    ASSIGN_OR_RETURN(const std::optional<std::string> any_table,
                     connection.QueryText("SELECT name FROM sqlite_master WHERE type = 'table' "
                                          "ORDER BY name LIMIT 1",
                                          "read schema version"));
    if (any_table.has_value()) {
      return Status::FailedPrecondition("sqlite: " + connection.path() +
                                        " is a SQLite database but not an engram store (it has "
                                        "table \"" +
                                        *any_table + "\" and no meta table)");
    }
    return 0;
  }
  ASSIGN_OR_RETURN(const std::optional<std::string> version,
                   connection.QueryText("SELECT value FROM meta WHERE key = 'schema_version'",
                                        "read schema version"));
  if (!version.has_value()) {
    return Status::Corruption("sqlite: " + connection.path() +
                              ": meta table has no schema_version");
  }
  std::int64_t parsed = 0;
  for (const char c : *version) {
    if (c < '0' || c > '9' || parsed > 1'000'000) {
      return Status::Corruption("sqlite: " + connection.path() + ": bad schema_version \"" +
                                version->substr(0, 32) + "\"");
    }
    parsed = parsed * 10 + (c - '0');
  }
  if (version->empty()) {
    return Status::Corruption("sqlite: " + connection.path() + ": empty schema_version");
  }
  return parsed;
}

namespace {

Status CheckNotNewer(const Connection& connection, std::int64_t current) {
  if (current <= kLatestSchemaVersion) return Status::Ok();
  return Status::FailedPrecondition(
      "sqlite: store " + connection.path() + " has schema version " + std::to_string(current) +
      " but this engram binary supports at most version " + std::to_string(kLatestSchemaVersion) +
      "; open it with a newer engram");
}

}  // namespace

Status ApplyMigrations(Connection& connection) {
  // Check first in a read transaction: in WAL mode it runs alongside another connection's write
  // transaction, so opening an up-to-date store never waits for a writer.
  {
    ScopedSqlTransaction read(connection, "BEGIN DEFERRED");
    RETURN_IF_ERROR(read.status());
    ASSIGN_OR_RETURN(const std::int64_t current, ReadSchemaVersion(connection));
    RETURN_IF_ERROR(CheckNotNewer(connection, current));
    RETURN_IF_ERROR(read.Commit());
    if (current == kLatestSchemaVersion) return Status::Ok();
  }
  // A migration is needed: take the write lock and read the version again (another process may
  // have migrated in between).
  ScopedSqlTransaction txn(connection, "BEGIN IMMEDIATE");
  RETURN_IF_ERROR(txn.status());
  ASSIGN_OR_RETURN(const std::int64_t current, ReadSchemaVersion(connection));
  RETURN_IF_ERROR(CheckNotNewer(connection, current));
  if (current == kLatestSchemaVersion) return txn.Commit();
  for (std::int64_t version = current + 1; version <= kLatestSchemaVersion; ++version) {
    RETURN_IF_ERROR(connection.Exec(kSchemaSql[static_cast<std::size_t>(version - 1)],
                                    "migrate to schema version " + std::to_string(version) + " (" +
                                        std::string(sql::MigrationDescription(version)) + ")"));
  }
  if (current >= 1 && current < 5) RETURN_IF_ERROR(ConvertSignalNodes(connection));
  if (current < 6) RETURN_IF_ERROR(ConvertToSchema6(connection));
  if (current < 7) {
    RETURN_IF_ERROR(ConvertToSchema7(connection));
    RETURN_IF_ERROR(CompactLeafTargets(connection));
  }
  if (current < 5) {
    // Schema 4 added the logs; schema 5 removed nodes and edges from them: rebuilt either way.
    MerkleTables tables(connection);
    RETURN_IF_ERROR(merkle::Backfill(tables).WithContext("migrate to schema " +
                                                         std::to_string(kLatestSchemaVersion)));
  }
  SqliteSession session(connection);
  RETURN_IF_ERROR(sql::WriteSchemaVersion(session, kLatestSchemaVersion));
  return txn.Commit();
}

Status CheckSchemaReadOnly(Connection& connection, std::string_view read_only_reason) {
  ScopedSqlTransaction read(connection, "BEGIN DEFERRED");
  RETURN_IF_ERROR(read.status());
  ASSIGN_OR_RETURN(const std::int64_t current, ReadSchemaVersion(connection));
  RETURN_IF_ERROR(CheckNotNewer(connection, current));
  RETURN_IF_ERROR(read.Commit());
  if (current == kLatestSchemaVersion) return Status::Ok();
  const std::string state = current == 0 ? "is an empty database, not an engram store yet"
                                         : "has schema version " + std::to_string(current);
  return Status::FailedPrecondition(
      "sqlite: store " + connection.path() + " " + state + "; this engram reads version " +
      std::to_string(kLatestSchemaVersion) +
      ", and bringing it there needs a write, but the store "
      "is read-only (" +
      std::string(read_only_reason) + "): open it once from a writable location to migrate it");
}

}  // namespace engram::store::sqlite
