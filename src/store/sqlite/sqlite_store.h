// The SQLite backend of store::Store: engram's embedded default (DESIGN §10).
//
// One database file in WAL mode holds the tables of schema version kLatestSchemaVersion (see
// migrations.cc): meta, scopes, nodes, edges, journal. Open it through store::OpenSqliteStore:
//
//   ASSIGN_OR_RETURN(std::unique_ptr<store::Store> store,
//                    store::OpenSqliteStore(data_dir + "/engram.db", {.durable_commits = true}));
//   ASSIGN_OR_RETURN(std::unique_ptr<store::Transaction> txn, store->BeginWrite());
//   ... txn->InsertNode(record) ...
//   RETURN_IF_ERROR(txn->Commit());
//
// Connections and pragmas: one writer connection (journal_mode=WAL, foreign_keys=ON,
// secure_delete=ON, synchronous=FULL or NORMAL per SqliteOptions::durable_commits, busy_timeout)
// and a pool of read-only connections, each with its own prepared-statement cache.
//
// Durability: with durable_commits (synchronous=FULL) a committed transaction survives a process
// kill and a power loss (given a disk that honours fsync). With synchronous=NORMAL a committed
// transaction survives a process kill (kill -9); on power loss the most recent commits may be
// lost, but the database is never corrupted and never holds half a transaction.
//
// Thread-safety: a SqliteStore may be shared by threads. Writes are serialised by write_mutex_:
// BeginWrite takes it and the Transaction holds it until Commit() or destruction, EraseScopes takes
// it for its duration. Store reads each borrow a read connection from the pool and run in their
// own read transaction, so they see the last committed state (one consistent snapshot per call)
// and run alongside an open write transaction. Consequences: a thread holding a Transaction must
// not call BeginWrite or EraseScopes (deadlock); EraseScopes' checkpoint waits (up to the busy
// timeout) for reads in progress, so do not call it from inside a ScanNodes callback. A
// Transaction must not outlive its Store. Other processes may open the same file; SQLite's
// locks serialise writers across processes (BeginWrite waits up to busy_timeout_ms, then
// kUnavailable).
#ifndef ENGRAM_STORE_SQLITE_SQLITE_STORE_H_
#define ENGRAM_STORE_SQLITE_SQLITE_STORE_H_

#include <memory>
#include <string_view>

#include "engram/status.h"
#include "store/store.h"

namespace engram::store::sqlite {

// Same as store::OpenSqliteStore. A missing file with create_if_missing=false -> kNotFound; a file
// that is not a SQLite database -> kCorruption naming the path; a store with a newer schema
// version -> kFailedPrecondition; a SQLite database that is not an engram store ->
// kFailedPrecondition.
StatusOr<std::unique_ptr<Store>> Open(std::string_view path, const SqliteOptions& options);

}  // namespace engram::store::sqlite

#endif  // ENGRAM_STORE_SQLITE_SQLITE_STORE_H_
