// The PostgreSQL backend of store::Store: the shared store (DESIGN §10).
//
// One database (or one schema of it, chosen with the URL's search_path option) holds the tables
// of schema version kLatestSchemaVersion (see migrations.cc): meta, scopes, nodes, edges,
// vectors, journal — the SQLite store's data model. Open it through store::OpenPostgresStore or
// store::OpenStore with a postgresql:// URL:
//
//   ASSIGN_OR_RETURN(std::unique_ptr<store::Store> store,
//                    store::OpenPostgresStore("postgresql://engram@db.internal/memory"));
//
// Connections: at most PostgresOptions::pool_size — one writer, the rest for reads, opened on
// demand and kept; a read waits for a free one when all are busy. A connection the server lost
// is dropped and replaced on next use.
//
// Writers: a write Transaction is one SQL transaction (READ COMMITTED) that holds a
// transaction-scoped advisory lock, so writes to one database are serialised across every
// process and server: per-scope sequence numbers stay gap-free and journal seqs are handed out
// in commit order (a follower reading the journal past its last seq never skips a commit).
// BeginWrite waits for another server's writer up to statement_timeout_ms (then kUnavailable
// or kDeadlineExceeded). Every call inside a transaction runs under a SAVEPOINT, so a failed call
// leaves the transaction as it was (PostgreSQL would otherwise abort all of it).
//
// Durability: a committed transaction is as durable as the server makes it (synchronous_commit,
// fsync: the server's settings). A client killed mid-transaction leaves nothing: the server rolls
// the open transaction back when the connection drops.
//
// Erase: EraseScopes deletes in one transaction, then rewrites the touched tables with
// VACUUM FULL (new files without the erased rows; the old files are unlinked) and runs
// CHECKPOINT. The write-ahead log (pg_wal) still holds the erased text until its segments are
// recycled and overwritten, and a base backup or WAL archive taken before keeps it: see
// docs/ARCHITECTURE.md.
//
// Thread-safety: as store.h says. Writes in this process are serialised by write_mutex_ (held by
// the open Transaction); reads each borrow a pooled connection and run in one REPEATABLE READ
// READ ONLY transaction (one snapshot per call). A thread holding a Transaction must not call
// BeginWrite or EraseScopes.
#ifndef ENGRAM_STORE_POSTGRES_POSTGRES_STORE_H_
#define ENGRAM_STORE_POSTGRES_POSTGRES_STORE_H_

#include <memory>
#include <string_view>

#include "engram/status.h"
#include "store/store.h"

namespace engram::store::postgres {

// Same as store::OpenPostgresStore.
StatusOr<std::unique_ptr<Store>> Open(std::string_view url, const PostgresOptions& options);

}  // namespace engram::store::postgres

#endif  // ENGRAM_STORE_POSTGRES_POSTGRES_STORE_H_
