// Versioned schema migrations of the SQLite store.
//
// The `meta` table holds `schema_version`. At open, every migration newer than the stored version
// runs, in order, inside one transaction, and the version is updated in the same transaction; a
// crash during migration leaves the old schema intact. A store written by a newer engram (version
// above kLatestSchemaVersion) is refused with kFailedPrecondition rather than misread.
//
// To change the schema, append the new version's DDL to the list in migrations.cc (never edit a
// released one), its description to store/sql/migration_steps.cc, and bump kLatestSchemaVersion.
// The data steps both backends run alike are in store/sql/migration_steps.*.
#ifndef ENGRAM_STORE_SQLITE_MIGRATIONS_H_
#define ENGRAM_STORE_SQLITE_MIGRATIONS_H_

#include <cstdint>
#include <string_view>

#include "engram/status.h"
#include "store/sqlite/connection.h"

namespace engram::store::sqlite {

inline constexpr std::int64_t kLatestSchemaVersion = 8;

// The store's schema version: 0 for an empty database. kFailedPrecondition for a database that
// has tables but no engram `meta` table (not an engram store).
StatusOr<std::int64_t> ReadSchemaVersion(Connection& connection);

// Brings the schema to kLatestSchemaVersion. The version is read first without the write lock, so
// opening an up-to-date store never waits for (or blocks) a writer; only when a migration is due
// does it run, in one IMMEDIATE transaction. kFailedPrecondition when the stored version is newer
// than this binary knows.
Status ApplyMigrations(Connection& connection);

// For a store opened read-only (`read_only_reason` says why it cannot be written): checks in a
// read transaction that its schema is kLatestSchemaVersion, which is all a read-only store can
// be read at. kFailedPrecondition naming the versions when it is newer, or older and so needs a
// migration this connection cannot write.
Status CheckSchemaReadOnly(Connection& connection, std::string_view read_only_reason);

}  // namespace engram::store::sqlite

#endif  // ENGRAM_STORE_SQLITE_MIGRATIONS_H_
