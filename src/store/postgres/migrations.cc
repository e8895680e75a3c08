// The PostgreSQL schema, as an ordered list of migrations (see migrations.h).
//
// Times are BIGINT microseconds since the Unix epoch (UTC); an unset optional time is NULL. Row
// numbers and journal seqs are identity columns: never handed out twice, even after an erase (a
// rolled-back insert also uses one up, so rows may have gaps; they only ever increase).
// Vectors are bytea of little-endian float32 (store/backend_common.h), stored uncompressed.
#include "store/postgres/migrations.h"

#include <array>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "store/backend_common.h"
#include "store/postgres/merkle_postgres.h"
#include "store/postgres/postgres_session.h"
#include "store/sql/migration_steps.h"
#include "store/turn_analysis.h"

namespace engram::store::postgres {
namespace {

constexpr std::string_view kSchemaV1 = R"sql(
CREATE TABLE meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

CREATE TABLE scopes (
  scope_id        BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  node_id         TEXT NOT NULL,
  path            TEXT NOT NULL,
  parent_scope_id BIGINT REFERENCES scopes(scope_id),  -- NULL for a top-level scope
  last_sequence   BIGINT NOT NULL DEFAULT 0,
  created_at      BIGINT NOT NULL
);
CREATE UNIQUE INDEX scopes_by_path ON scopes(path);
CREATE UNIQUE INDEX scopes_by_node_id ON scopes(node_id);
CREATE INDEX scopes_by_parent ON scopes(parent_scope_id);

CREATE TABLE nodes (
  row_id        BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  id            TEXT NOT NULL,
  kind          TEXT NOT NULL,
  scope_id      BIGINT NOT NULL REFERENCES scopes(scope_id),
  content_json  TEXT NOT NULL,
  text          TEXT NOT NULL,
  role          TEXT NOT NULL,
  speaker       TEXT NOT NULL,
  session_id    TEXT NOT NULL,
  sequence      BIGINT NOT NULL,
  event_time    BIGINT,
  metadata_json TEXT NOT NULL,
  status        TEXT NOT NULL,
  valid_from    BIGINT,
  valid_to      BIGINT,
  ingested_at   BIGINT NOT NULL,
  updated_at    BIGINT NOT NULL
);
CREATE UNIQUE INDEX nodes_by_id ON nodes(id);
CREATE INDEX nodes_by_scope_sequence ON nodes(scope_id, sequence);

-- Content is immutable: only status, valid_from, valid_to and updated_at may change.
CREATE FUNCTION engram_nodes_content_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF ROW(NEW.row_id, NEW.id, NEW.kind, NEW.scope_id, NEW.content_json, NEW.text, NEW.role,
         NEW.speaker, NEW.session_id, NEW.sequence, NEW.event_time, NEW.metadata_json,
         NEW.ingested_at)
     IS DISTINCT FROM
     ROW(OLD.row_id, OLD.id, OLD.kind, OLD.scope_id, OLD.content_json, OLD.text, OLD.role,
         OLD.speaker, OLD.session_id, OLD.sequence, OLD.event_time, OLD.metadata_json,
         OLD.ingested_at) THEN
    RAISE EXCEPTION 'engram: node content is immutable (only status and validity may change)';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER nodes_content_immutable BEFORE UPDATE ON nodes
  FOR EACH ROW EXECUTE FUNCTION engram_nodes_content_immutable();

CREATE TABLE edges (
  row_id      BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  id          TEXT NOT NULL,
  type        TEXT NOT NULL,
  src         TEXT NOT NULL REFERENCES nodes(id),
  dst         TEXT NOT NULL REFERENCES nodes(id),
  scope_id    BIGINT NOT NULL REFERENCES scopes(scope_id),
  attrs_json  TEXT NOT NULL,
  status      TEXT NOT NULL,
  valid_from  BIGINT,
  valid_to    BIGINT,
  ingested_at BIGINT NOT NULL,
  updated_at  BIGINT NOT NULL
);
CREATE UNIQUE INDEX edges_by_id ON edges(id);
CREATE INDEX edges_by_src ON edges(src, type);
CREATE INDEX edges_by_dst ON edges(dst, type);
CREATE INDEX edges_by_scope ON edges(scope_id, type);

CREATE FUNCTION engram_edges_content_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF ROW(NEW.row_id, NEW.id, NEW.type, NEW.src, NEW.dst, NEW.scope_id, NEW.attrs_json,
         NEW.ingested_at)
     IS DISTINCT FROM
     ROW(OLD.row_id, OLD.id, OLD.type, OLD.src, OLD.dst, OLD.scope_id, OLD.attrs_json,
         OLD.ingested_at) THEN
    RAISE EXCEPTION 'engram: edge content is immutable (only status and validity may change)';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER edges_content_immutable BEFORE UPDATE ON edges
  FOR EACH ROW EXECUTE FUNCTION engram_edges_content_immutable();

-- scope_id has no foreign key: kScopeErased tombstones outlive their scope.
CREATE TABLE journal (
  seq        BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  scope_id   BIGINT NOT NULL,
  op         TEXT NOT NULL,
  target_id  TEXT NOT NULL,
  target_row BIGINT NOT NULL,
  at         BIGINT NOT NULL,
  detail     TEXT NOT NULL
);
CREATE INDEX journal_by_target ON journal(target_id);
CREATE INDEX journal_by_scope ON journal(scope_id);
)sql";

// Vectors: one embedding per node, made by the embedder recorded in meta (as in SQLite v2).
constexpr std::string_view kSchemaV2 = R"sql(
CREATE TABLE vectors (
  node_row  BIGINT PRIMARY KEY REFERENCES nodes(row_id),
  model_id  TEXT NOT NULL,
  dimension INTEGER NOT NULL,
  vector    BYTEA NOT NULL
);
ALTER TABLE vectors ALTER COLUMN vector SET STORAGE EXTERNAL;  -- floats do not compress

INSERT INTO meta(key, value)
  SELECT 'embedder_model_id', 'none' WHERE EXISTS (SELECT 1 FROM nodes WHERE kind = 'turn');
INSERT INTO meta(key, value)
  SELECT 'embedder_dimension', '0' WHERE EXISTS (SELECT 1 FROM nodes WHERE kind = 'turn');
)sql";

// Idempotency keys in their own column, unique within a scope (as in SQLite v3). No PostgreSQL
// store predates the column, so no key has to move out of metadata here.
constexpr std::string_view kSchemaV3 = R"sql(
ALTER TABLE nodes ADD COLUMN idempotency_key TEXT;
CREATE UNIQUE INDEX nodes_by_idempotency_key ON nodes(scope_id, idempotency_key)
  WHERE idempotency_key IS NOT NULL;

CREATE OR REPLACE FUNCTION engram_nodes_content_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF ROW(NEW.row_id, NEW.id, NEW.kind, NEW.scope_id, NEW.content_json, NEW.text, NEW.role,
         NEW.speaker, NEW.session_id, NEW.sequence, NEW.event_time, NEW.metadata_json,
         NEW.ingested_at, NEW.idempotency_key)
     IS DISTINCT FROM
     ROW(OLD.row_id, OLD.id, OLD.kind, OLD.scope_id, OLD.content_json, OLD.text, OLD.role,
         OLD.speaker, OLD.session_id, OLD.sequence, OLD.event_time, OLD.metadata_json,
         OLD.ingested_at, OLD.idempotency_key) THEN
    RAISE EXCEPTION 'engram: node content is immutable (only status and validity may change)';
  END IF;
  RETURN NEW;
END $$;
)sql";

// The Merkle audit (store/merkle.h, docs/AUDIT.md), the same tables as SQLite v4: per scope one
// leaf row per node and per edge, in the scope's row order, and the frontiers of the two logs with
// the scope root. SQL cannot compute the SHA-256 hashes: ApplyMigrations fills both tables for
// the scopes a store already holds (merkle::Backfill) in the same transaction.
constexpr std::string_view kSchemaV4 = R"sql(
CREATE TABLE merkle_leaves (
  scope_id  BIGINT NOT NULL,
  log       TEXT NOT NULL,    -- 'node' or 'edge'
  idx       BIGINT NOT NULL,  -- 0-based position in the log
  target_id TEXT NOT NULL,    -- the node or edge id
  hash      TEXT NOT NULL,    -- the leaf hash, 64 hex digits
  PRIMARY KEY (scope_id, log, idx)
);

CREATE TABLE merkle_roots (
  scope_id      BIGINT PRIMARY KEY,
  node_count    BIGINT NOT NULL,
  node_frontier TEXT NOT NULL,  -- perfect-subtree roots of the node log, largest first, hex
  edge_count    BIGINT NOT NULL,
  edge_frontier TEXT NOT NULL,
  root          TEXT NOT NULL   -- the scope root, 64 hex digits
);
)sql";

// A compact store, as SQLite's schema 5 (see sqlite/migrations.cc): one analysis row per turn
// (store/turn_analysis.h) instead of signal nodes; ApplyMigrations builds the rows of existing
// turns from their signal nodes, then kDropSignalNodes removes those nodes (but the date and time
// anchors that at_time and refers_to edges point at), the derived_from edges of signal nodes and
// the journal rows about them, and the Merkle logs are rebuilt.
constexpr std::string_view kSchemaV5 = R"sql(
CREATE TABLE turn_analysis (
  turn_row BIGINT PRIMARY KEY REFERENCES nodes(row_id),
  format   INTEGER NOT NULL,
  analysis TEXT NOT NULL
);
)sql";

constexpr std::string_view kDropSignalNodes = R"sql(
CREATE TEMP TABLE v5_dropped_nodes ON COMMIT DROP AS
  SELECT row_id, id FROM nodes n WHERE kind = 'signal' AND NOT EXISTS (
    SELECT 1 FROM edges e WHERE e.dst = n.id AND e.type IN ('at_time', 'refers_to'));
CREATE TEMP TABLE v5_dropped_edges ON COMMIT DROP AS
  SELECT id FROM edges
  WHERE (type = 'derived_from' AND src IN (SELECT id FROM nodes WHERE kind = 'signal'))
     OR src IN (SELECT id FROM v5_dropped_nodes)
     OR dst IN (SELECT id FROM v5_dropped_nodes);
DELETE FROM journal WHERE target_id IN (SELECT id FROM v5_dropped_nodes)
                       OR target_id IN (SELECT id FROM v5_dropped_edges);
DELETE FROM edges WHERE id IN (SELECT id FROM v5_dropped_edges);
DELETE FROM vectors WHERE node_row IN (SELECT row_id FROM v5_dropped_nodes);
DELETE FROM nodes WHERE id IN (SELECT id FROM v5_dropped_nodes);
)sql";

// Compact rows, as SQLite's schema 6 (see sqlite/migrations.cc): the Merkle leaf hashes as their
// 32 bytes, and a turn whose content_json is exactly what its columns rebuild stores "" there
// (StoredContentJson, store/backend_common.h); ConvertToSchema6 rewrites the nodes a store holds
// that way with the content trigger disabled. Node ids, leaf hashes and roots do not change.
constexpr std::string_view kSchemaV6 = R"sql(
ALTER TABLE merkle_leaves ALTER COLUMN hash TYPE BYTEA USING decode(hash, 'hex');
)sql";

// Compact analysis rows, as SQLite's schema 7 (see sqlite/migrations.cc): the analysis column
// becomes bytea (a format-1 row's JSON as its UTF-8 bytes), and ConvertToSchema7 rewrites every
// row that format 2 gives back byte for byte in format 2.
constexpr std::string_view kSchemaV7 = R"sql(
ALTER TABLE turn_analysis ALTER COLUMN analysis TYPE BYTEA USING convert_to(analysis, 'UTF8');
)sql";

// Projection snapshots, as SQLite's schema 8 (see sqlite/migrations.cc): a projection's saved
// state per scope (the vector projection's HNSW graph). Not evidence: no journal rows, no Merkle
// leaves, not in the canonical dump or exports; bytea stored uncompressed (varints and a
// checksum do not compress).
constexpr std::string_view kSchemaV8 = R"sql(
CREATE TABLE projection_snapshots (
  scope_id    BIGINT NOT NULL REFERENCES scopes(scope_id),
  projection  TEXT NOT NULL,
  key         TEXT NOT NULL,
  journal_seq BIGINT NOT NULL,
  item_count  BIGINT NOT NULL,
  data        BYTEA NOT NULL,
  PRIMARY KEY (scope_id, projection)
);
ALTER TABLE projection_snapshots ALTER COLUMN data SET STORAGE EXTERNAL;
)sql";

// The DDL of schema version n at [n - 1].
constexpr std::array<std::string_view, 8> kSchemaSql = {
    kSchemaV1, kSchemaV2, kSchemaV3, kSchemaV4, kSchemaV5, kSchemaV6, kSchemaV7, kSchemaV8,
};
static_assert(static_cast<std::int64_t>(kSchemaSql.size()) == kLatestSchemaVersion);

// Held (per database) while a migration runs: "engram" in ASCII, then 1.
constexpr std::int64_t kMigrationLockKey = 0x656e6772616d01;

Status CheckNotNewer(const Connection& connection, std::int64_t current) {
  if (current <= kLatestSchemaVersion) return Status::Ok();
  return Status::FailedPrecondition(
      "postgres: store " + connection.display_name() + " has schema version " +
      std::to_string(current) + " but this engram binary supports at most version " +
      std::to_string(kLatestSchemaVersion) + "; open it with a newer engram");
}

// Schema 5: the analysis rows of the turns a version 4 store holds, from their signal nodes
// (found through their derived_from edges), then the signal nodes' removal (kDropSignalNodes).
Status ConvertSignalNodes(Connection& connection) {
  PostgresSession session(connection);
  RETURN_IF_ERROR(sql::BuildAnalysisRows(session));
  return connection.Exec(kDropSignalNodes, "migrate to schema 5: drop signal nodes");
}

// Schema 6: every node whose stored content differs from StoredContentJson's (compactable turns,
// and contents that are empty or start with a space) rewritten, in batches of row ids.
Status ConvertToSchema6(Connection& connection) {
  RETURN_IF_ERROR(connection.Exec("ALTER TABLE nodes DISABLE TRIGGER nodes_content_immutable",
                                  "migrate to schema 6: disable the content trigger"));
  PostgresSession session(connection);
  RETURN_IF_ERROR(sql::StoreTurnTextOnce(session));
  return connection.Exec("ALTER TABLE nodes ENABLE TRIGGER nodes_content_immutable",
                         "migrate to schema 6: enable the content trigger");
}

}  // namespace

StatusOr<std::int64_t> ReadSchemaVersion(Connection& connection) {
  // One statement, so one snapshot answers both questions: a store another server is creating
  // appears all at once (its tables and meta commit together). The table names are read from the
  // catalog rather than by resolving 'meta' (to_regclass), which may answer from this session's
  // cache of the names it looked up before that commit: "no meta" beside the new tables.
  ASSIGN_OR_RETURN(Result tables,
                   connection.Query("SELECT coalesce(bool_or(table_name = 'meta'), false), "
                                    "min(table_name)::text FROM information_schema.tables "
                                    "WHERE table_schema = current_schema()",
                                    Params(), "read schema version"));
  const bool has_meta = tables.size() > 0 && tables.Text(0, 0) == "t";
  if (!has_meta) {
    if (tables.size() > 0 && !tables.IsNull(0, 1)) {
      return Status::FailedPrecondition(
          "postgres: " + connection.display_name() +
          " holds tables but no engram store (it has table \"" + std::string(tables.Text(0, 1)) +
          "\" and no meta table): use an empty database or schema for the store");
    }
    return 0;
  }
  ASSIGN_OR_RETURN(const std::optional<std::string> version,
                   connection.QueryText("SELECT value FROM meta WHERE key = 'schema_version'",
                                        Params(), "read schema version"));
  if (!version.has_value() || version->empty() || version->size() > 7 ||
      version->find_first_not_of("0123456789") != std::string::npos) {
    return Status::Corruption("postgres: " + connection.display_name() +
                              ": meta has no valid schema_version");
  }
  return std::stoll(*version);
}

Status ApplyMigrations(Connection& connection, bool create_if_missing) {
  // Check first without the lock: opening an up-to-date store never waits for another server.
  ASSIGN_OR_RETURN(std::int64_t current, ReadSchemaVersion(connection));
  RETURN_IF_ERROR(CheckNotNewer(connection, current));
  if (current == kLatestSchemaVersion) return Status::Ok();
  if (current == 0 && !create_if_missing) {
    return Status::NotFound("postgres: " + connection.display_name() +
                            " holds no engram store yet (a command that writes creates it)");
  }
  RETURN_IF_ERROR(connection.Exec("BEGIN", "migrate: begin"));
  const Status migrated = [&]() -> Status {
    ASSIGN_OR_RETURN(Result locked,
                     connection.Query("SELECT pg_advisory_xact_lock($1)",
                                      Params().Int(kMigrationLockKey), "migrate: lock"));
    static_cast<void>(locked);
    // Another server may have migrated while this one waited.
    ASSIGN_OR_RETURN(current, ReadSchemaVersion(connection));
    RETURN_IF_ERROR(CheckNotNewer(connection, current));
    PostgresSession session(connection);
    for (std::int64_t version = current + 1; version <= kLatestSchemaVersion; ++version) {
      RETURN_IF_ERROR(connection.Exec(kSchemaSql[static_cast<std::size_t>(version - 1)],
                                      "migrate to schema version " + std::to_string(version) +
                                          " (" + std::string(sql::MigrationDescription(version)) +
                                          ")"));
    }
    if (current >= 1 && current < 5) RETURN_IF_ERROR(ConvertSignalNodes(connection));
    if (current >= 1 && current < 6) RETURN_IF_ERROR(ConvertToSchema6(connection));
    if (current >= 1 && current < 7) RETURN_IF_ERROR(sql::CompactAnalysisRows(session));
    if (current < 5) {
      // Schema 4 added the logs; schema 5 removed nodes and edges from them: rebuilt either way.
      MerkleTables tables(connection);
      RETURN_IF_ERROR(merkle::Backfill(tables).WithContext(
          "migrate to schema version " + std::to_string(kLatestSchemaVersion)));
    }
    RETURN_IF_ERROR(sql::WriteSchemaVersion(session, kLatestSchemaVersion));
    return connection.Exec("COMMIT", "migrate: commit");
  }();
  if (!migrated.ok()) static_cast<void>(connection.Exec("ROLLBACK", "migrate: roll back"));
  return migrated;
}

}  // namespace engram::store::postgres
