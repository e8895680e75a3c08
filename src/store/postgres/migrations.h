// Versioned schema migrations of the PostgreSQL store: the same data model and the same version
// numbers as the SQLite store (store/sqlite/migrations.h), written in PostgreSQL's dialect. The
// whole schema lives in migrations.cc, one constant per version, so a change to the data model
// is ported there next to its SQLite twin.
//
// At open, every migration newer than the stored `meta.schema_version` runs in one transaction
// that holds an advisory lock, so two servers opening a fresh database migrate it once. A
// database of a newer version is refused with kFailedPrecondition rather than misread.
#ifndef ENGRAM_STORE_POSTGRES_MIGRATIONS_H_
#define ENGRAM_STORE_POSTGRES_MIGRATIONS_H_

#include <cstdint>

#include "engram/status.h"
#include "store/postgres/connection.h"

namespace engram::store::postgres {

inline constexpr std::int64_t kLatestSchemaVersion = 8;

// The schema version in the connection's current schema: 0 when it holds no table.
// kFailedPrecondition for a schema with tables but no engram `meta` table (not an engram store).
StatusOr<std::int64_t> ReadSchemaVersion(Connection& connection);

// Brings the schema to kLatestSchemaVersion (only when create_if_missing, for an empty one:
// kNotFound otherwise). kFailedPrecondition naming both versions when it is newer.
Status ApplyMigrations(Connection& connection, bool create_if_missing);

}  // namespace engram::store::postgres

#endif  // ENGRAM_STORE_POSTGRES_MIGRATIONS_H_
