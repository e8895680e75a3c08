// A libpq connection with errors as Status, for the PostgreSQL store.
//
//   ASSIGN_OR_RETURN(std::unique_ptr<Connection> conn, Connection::Open(settings));
//   ASSIGN_OR_RETURN(Result rows, conn->Query("SELECT id FROM nodes WHERE row_id = $1",
//                                             Params().Int(row), "get node"));
//   if (rows.size() > 0) use(rows.Text(0, 0));
//
// Parameters travel separately from the SQL text (never spliced into it); bytes go in binary
// format. Each statement text is prepared on the server once per connection (and again after
// a schema change made its result columns stale: see Query). Results come back in text format:
// integers are parsed, bytea is decoded from hex.
// Errors map the server's SQLSTATE to a StatusCode (unique violation -> kAlreadyExists, statement
// timeout -> kDeadlineExceeded, a lost connection -> kUnavailable, ...) and name the operation.
// No message carries the password: the server and libpq never echo it, and anything libpq says
// about the connection string is scrubbed of it.
//
// Thread-safety: a Connection is used by one thread at a time (the store's pool hands it out).
#ifndef ENGRAM_STORE_POSTGRES_CONNECTION_H_
#define ENGRAM_STORE_POSTGRES_CONNECTION_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engram/status.h"
#include "engram/types.h"

struct pg_conn;
struct pg_result;

namespace engram::store::postgres {

struct ConnectSettings {
  std::string url;                          // as the user gave it (may hold a password)
  std::size_t connect_timeout_seconds = 10;
  std::size_t statement_timeout_ms = 30000;  // 0 = none
};

// Query parameters, in $1, $2, ... order.
class Params {
 public:
  Params& Text(std::string_view value);
  // Text, or NULL for an empty value.
  Params& TextOrNull(std::string_view value);
  Params& Int(std::int64_t value);
  Params& Bool(bool value);
  Params& Null();
  Params& Time(std::optional<Timestamp> value);  // microseconds, NULL when unset
  Params& Bytes(std::string_view value);         // bytea, sent in binary
  Params& IntArray(const std::vector<std::int64_t>& values);  // bigint[] as '{1,2,3}'
  Params& TextArray(const std::vector<std::string>& values);  // text[] as '{"a","b"}'

  std::size_t size() const { return values_.size(); }

 private:
  friend class Connection;
  std::vector<std::optional<std::string>> values_;
  std::vector<int> binary_;
};

// A query's rows (owns the PGresult).
class Result {
 public:
  Result(Result&& other) noexcept;
  Result& operator=(Result&& other) noexcept;
  Result(const Result&) = delete;
  Result& operator=(const Result&) = delete;
  ~Result();

  int size() const;  // rows
  int columns() const;
  std::string_view ColumnName(int column) const;
  bool IsNull(int row, int column) const;
  std::string_view Text(int row, int column) const;  // "" for NULL
  std::int64_t Int(int row, int column) const;       // 0 for NULL
  std::optional<Timestamp> Time(int row, int column) const;
  // A bytea column, decoded from its hex text form.
  std::string Bytes(int row, int column) const;
  bool IsBytea(int column) const;
  // Rows an INSERT / UPDATE / DELETE touched.
  std::int64_t AffectedRows() const;

 private:
  friend class Connection;
  explicit Result(pg_result* result) : result_(result) {}
  pg_result* result_ = nullptr;
};

class Connection {
 public:
  // Connects and sets the session up (statement_timeout, UTC, quiet notices). Errors say what
  // to do: kUnavailable (server unreachable, timed out), kFailedPrecondition (credentials
  // refused, role missing), kNotFound (database missing), kInvalidArgument (malformed URL).
  static StatusOr<std::unique_ptr<Connection>> Open(const ConnectSettings& settings);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Runs one statement with parameters; `operation` names it in errors. kUnavailable inside a
  // transaction when a schema change by another session altered the statement's result columns
  // (the transaction is aborted; the next one prepares the statements again).
  StatusOr<Result> Query(std::string_view sql, const Params& params, std::string_view operation);
  // Runs one or more statements without parameters (DDL, BEGIN, VACUUM, ...).
  Status Exec(std::string_view sql, std::string_view operation);
  // The first column of the first row, if any row.
  StatusOr<std::optional<std::string>> QueryText(std::string_view sql, const Params& params,
                                                 std::string_view operation);

  // LISTEN/NOTIFY. Consumes what the server sent and discards the notifications received so far;
  // kUnavailable when the connection is lost.
  Status DiscardNotifications();
  // Waits up to `timeout` for a notification on a channel this connection LISTENs on; true when
  // one (or more, all consumed) arrived, false on timeout. kUnavailable when the connection is lost.
  StatusOr<bool> WaitForNotification(std::chrono::milliseconds timeout);

  // False once the server connection is lost; such a connection is dropped, not reused.
  bool healthy() const;
  // True inside a transaction that a failed statement aborted (it can only roll back).
  bool in_failed_transaction() const;
  // The store's URL with any password replaced by "***".
  const std::string& display_name() const { return display_name_; }

 private:
  Connection(pg_conn* conn, std::string display_name, std::string password);
  Status ErrorOf(pg_result* result, std::string_view operation) const;
  std::string Scrub(std::string text) const;

  pg_conn* conn_ = nullptr;
  // DEALLOCATEs stale_statements_ (outside a transaction only: a failure there would abort it).
  void DeallocateStale();

  // Statement text -> name of the server-side prepared statement (Query prepares on first use).
  std::map<std::string, std::string, std::less<>> prepared_;
  std::uint64_t statements_prepared_ = 0;  // names them: engram_1, engram_2, ...
  // Prepared statements dropped from prepared_ after the server refused one (a schema change),
  // to DEALLOCATE.
  std::vector<std::string> stale_statements_;
  std::string display_name_;
  std::string password_;  // only to scrub it from messages
};

}  // namespace engram::store::postgres

#endif  // ENGRAM_STORE_POSTGRES_CONNECTION_H_
