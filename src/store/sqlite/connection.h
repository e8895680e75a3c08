// A thin RAII layer over one sqlite3 connection: errors as Status, a prepared-statement cache and
// typed binding / column access. Used only by the SQLite backend.
//
//   ASSIGN_OR_RETURN(Statement stmt, conn.Prepare("SELECT text FROM nodes WHERE id = ?1", "get"));
//   stmt.BindText(1, id);
//   ASSIGN_OR_RETURN(bool has_row, stmt.Step());
//   if (has_row) text = stmt.ColumnText(0);
//
// Thread-safety: a Connection and its Statements are used by one thread at a time (the store hands
// each connection to one caller at a time); they do no locking of their own.
#ifndef ENGRAM_STORE_SQLITE_CONNECTION_H_
#define ENGRAM_STORE_SQLITE_CONNECTION_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "engram/status.h"
#include "engram/types.h"

struct sqlite3;
struct sqlite3_stmt;

namespace engram::store::sqlite {

// Maps a SQLite result code to a Status whose message names the operation and the file:
// BUSY/LOCKED -> kUnavailable, CORRUPT/NOTADB -> kCorruption, UNIQUE/PRIMARY KEY constraint ->
// kAlreadyExists, other constraints (foreign key, trigger) -> kFailedPrecondition, FULL ->
// kResourceExhausted, I/O and open errors -> kUnavailable, anything else -> kInternal.
Status SqliteStatus(int rc, std::string_view message, std::string_view operation,
                    std::string_view path);

class Connection;

// The first SQLite error a store's connections met that says the file is damaged
// (SQLITE_CORRUPT, SQLITE_NOTADB): the store refuses writes from then on. Thread-safe; shared by
// the store and its connections.
class DamageRecord {
 public:
  void Record(std::string_view message);
  // The first recorded message, or nullopt when no damage was met.
  std::optional<std::string> first() const;

 private:
  mutable std::mutex mutex_;
  std::optional<std::string> first_;  // guarded by mutex_
};

// A statement ready to bind and step. Move-only. A cached statement is reset and its bindings
// cleared when the handle is destroyed, so it can be reused; an uncached one is finalized.
// Binding errors are remembered and reported by the next Step()/Run().
class Statement {
 public:
  Statement(Statement&& other) noexcept;
  Statement& operator=(Statement&&) = delete;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement();

  void BindInt(int index, std::int64_t value);
  void BindText(int index, std::string_view value);
  void BindNull(int index);
  void BindTime(int index, std::optional<Timestamp> value);    // NULL when unset
  void BindBlob(int index, std::span<const std::byte> value);  // copied by SQLite

  // Advances: true when a row is available, false when done.
  StatusOr<bool> Step();
  // Steps until done, ignoring rows.
  Status Run();

  int ColumnCount() const;
  bool ColumnIsNull(int column) const;
  std::int64_t ColumnInt(int column) const;
  std::string ColumnText(int column) const;
  std::optional<Timestamp> ColumnTime(int column) const;  // unset when NULL
  // The column's bytes; valid until the next Step or the statement's destruction.
  std::span<const std::byte> ColumnBlob(int column) const;
  std::string ColumnName(int column) const;
  int ColumnType(int column) const;  // SQLITE_INTEGER, SQLITE_TEXT, ...

 private:
  friend class Connection;
  Statement(Connection* connection, sqlite3_stmt* stmt, bool* in_use, std::string_view operation);

  Connection* connection_;
  sqlite3_stmt* stmt_;
  bool* in_use_;  // the cache slot's flag; nullptr for an uncached statement
  std::string operation_;
  int bind_rc_ = 0;  // first failing sqlite3_bind_* result, 0 if none
};

// One open sqlite3 connection. Invariant: db_ is open for the object's lifetime.
class Connection {
 public:
  // flags: SQLITE_OPEN_* flags. Sets extended result codes and the busy timeout. With a
  // non-empty `uri` ("file:...?mode=ro"), opens that URI (SQLITE_OPEN_URI is added) and still
  // names `path` in errors.
  static StatusOr<std::unique_ptr<Connection>> Open(const std::string& path, int flags,
                                                    int busy_timeout_ms,
                                                    const std::string& uri = "");
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Runs one or more statements without results.
  Status Exec(std::string_view sql, std::string_view operation);
  // A cached prepared statement for `sql`. If the cached one is in use (nested use), a fresh
  // uncached statement is returned instead.
  StatusOr<Statement> Prepare(std::string_view sql, std::string_view operation);
  // Runs a single-row query and returns the text of the first column of the first row (nullopt
  // when there is no row). Used for PRAGMAs.
  StatusOr<std::optional<std::string>> QueryText(std::string_view sql, std::string_view operation);

  // The Status for a failed call on this connection, with sqlite3_errmsg.
  Status Error(int rc, std::string_view operation) const;

  // From now on, a failure of this connection that says the file is damaged is recorded in
  // `record` (nullptr: not recorded).
  void set_damage_record(std::shared_ptr<DamageRecord> record) {
    damage_record_ = std::move(record);
  }

  std::int64_t LastInsertRowId() const;
  std::int64_t Changes() const;
  sqlite3* db() const { return db_; }
  const std::string& path() const { return path_; }

 private:
  struct CachedStatement {
    sqlite3_stmt* stmt = nullptr;
    bool in_use = false;
  };

  Connection(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}

  // The status of a failure with `code`; records damage in damage_record_.
  Status Failure(int code, std::string_view message, std::string_view operation) const;

  sqlite3* db_;
  std::string path_;
  std::shared_ptr<DamageRecord> damage_record_;
  // Keyed by SQL text. std::map keeps the slots' addresses stable.
  std::map<std::string, CachedStatement, std::less<>> cache_;
};

// Runs BEGIN on construction (the caller checks status()) and ROLLBACK on destruction unless
// Commit() succeeded. For multi-statement reads on a read connection and store-level writes.
class ScopedSqlTransaction {
 public:
  ScopedSqlTransaction(Connection& connection, std::string_view begin_sql);
  ~ScopedSqlTransaction();
  ScopedSqlTransaction(const ScopedSqlTransaction&) = delete;
  ScopedSqlTransaction& operator=(const ScopedSqlTransaction&) = delete;

  const Status& status() const { return status_; }
  Status Commit();

 private:
  Connection& connection_;
  Status status_;
  bool open_ = false;
};

}  // namespace engram::store::sqlite

#endif  // ENGRAM_STORE_SQLITE_CONNECTION_H_
