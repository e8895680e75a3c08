// The seam between the SQL store (sql_store.*) and a database backend: one connection as the
// shared statements use it. The shared code writes each statement once, with numbered parameters
// ?1, ?2, ... (SQLite's spelling; the PostgreSQL session turns them into $1, $2, ...), binds typed
// Params and reads rows through Rows; what a dialect spells its own way (the "no limit" value, id
// lists, byte-order collation, the index-friendly edge lookups) is a method of the session.
//
//   ASSIGN_OR_RETURN(std::unique_ptr<Rows> rows,
//                    session.Query("SELECT path FROM scopes WHERE scope_id = ?1",
//                                  Params().Int(scope_id), "get scope"));
//   ASSIGN_OR_RETURN(const bool has_row, rows->Next());
//   if (has_row) path = rows->Text(0);
//
// Backends: sqlite/sqlite_session.* (over sqlite::Connection) and postgres/postgres_session.*
// (over postgres::Connection). Thread-safety: a session and its rows are used by one thread at a
// time, like the connection beneath them.
#ifndef ENGRAM_STORE_SQL_SESSION_H_
#define ENGRAM_STORE_SQL_SESSION_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engram/status.h"
#include "engram/types.h"
#include "store/merkle.h"
#include "store/store.h"

namespace engram::store::sql {

// Query parameters, in ?1, ?2, ... order, each with its type.
class Params {
 public:
  enum class Kind { kNull, kInt, kText, kBytes };
  struct Value {
    Kind kind = Kind::kNull;
    std::int64_t number = 0;  // kInt
    std::string text;         // kText, kBytes
  };

  Params& Int(std::int64_t value);
  Params& Text(std::string_view value);
  // Text, or NULL for an empty value.
  Params& TextOrNull(std::string_view value);
  Params& Null();
  Params& Time(std::optional<Timestamp> value);  // microseconds, NULL when unset
  Params& Bytes(std::string_view value);         // a blob (SQLite) / bytea (PostgreSQL)

  std::span<const Value> values() const { return values_; }

 private:
  std::vector<Value> values_;
};

// The rows of one statement, read forward one at a time. Column accessors read the current row
// (after Next() returned true).
class Rows {
 public:
  virtual ~Rows() = default;
  // Advances to the next row: false when there is none.
  virtual StatusOr<bool> Next() = 0;
  virtual bool IsNull(int column) const = 0;
  virtual std::int64_t Int(int column) const = 0;                // 0 for NULL
  virtual std::string Text(int column) const = 0;                // "" for NULL
  virtual std::optional<Timestamp> Time(int column) const = 0;   // unset for NULL
  virtual std::string Bytes(int column) const = 0;               // a blob / bytea column

  // For the canonical dump: the row's columns, their names, and a value as the dump writes it
  // (null, x'<hex>' for bytes, quoted text; each dialect by the types it has).
  virtual int columns() const = 0;
  virtual std::string ColumnName(int column) const = 0;
  virtual std::string DumpValue(int column) const = 0;
};

// One connection of a backend.
class Session {
 public:
  virtual ~Session() = default;

  // "sqlite", "postgres": the prefix of corruption messages.
  virtual std::string_view backend() const = 0;
  // The store, fit for messages ("sqlite: <path>", "postgres: <url without password>").
  virtual std::string location() const = 0;

  // Runs one or more statements without parameters or rows (BEGIN, ROLLBACK, a whole-table
  // DELETE, ...).
  virtual Status Exec(std::string_view sql, std::string_view operation) = 0;
  // Runs one statement and returns its rows (the changes are made before the first row).
  virtual StatusOr<std::unique_ptr<Rows>> Query(std::string_view sql, const Params& params,
                                                std::string_view operation) = 0;
  // Runs one statement to its end and returns how many rows it inserted, updated or deleted.
  virtual StatusOr<std::int64_t> Execute(std::string_view sql, const Params& params,
                                         std::string_view operation) = 0;

  // The Merkle tables on this connection (merkle::Tables in the backend's SQL).
  virtual merkle::Tables& merkle_tables() = 0;

  // ----- What the dialects spell differently.

  // The text after `ORDER BY <text column>` that orders by bytes, whatever the collation.
  virtual std::string_view byte_order() const = 0;
  // Appends the parameter of `LIMIT ?n`: `limit`, or the dialect's "no limit" for 0.
  virtual void AddLimit(Params& params, std::size_t limit) const = 0;
  // Store::EdgesOf.
  virtual StatusOr<std::vector<EdgeRecord>> EdgesOf(std::string_view node_id,
                                                    EdgeDirection direction,
                                                    std::string_view type) = 0;
  // Store::GetTurnAnalyses: the stored analyses of these turn rows, in the order given.
  virtual StatusOr<std::vector<TurnAnalysisRecord>> TurnAnalyses(
      std::span<const std::int64_t> turn_rows) = 0;
};

}  // namespace engram::store::sql

#endif  // ENGRAM_STORE_SQL_SESSION_H_
