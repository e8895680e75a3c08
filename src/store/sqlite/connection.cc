// sqlite3 connection wrapper: Status mapping, statement cache, typed access (see connection.h).
#include "store/sqlite/connection.h"

#include <sqlite3.h>
#include <sys/statvfs.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>

namespace engram::store::sqlite {

namespace {

// Below this many free bytes on the store's file system, a failed write or open is put down to a
// full disk: SQLite needs room for the write-ahead log's frames and the 32 KiB shared-memory file.
constexpr std::uint64_t kFullDiskBytes = 64 * 1024;

// "; the disk holding <path> is full ..." when an I/O, open or full error happened on a file
// system with (almost) no free space, else "". Every change, an erase included, is first written
// to the write-ahead log, and opening the store creates its shared-memory file, so with no free
// space neither is possible: the message says what to do instead of only "disk I/O error".
std::string FullDiskHint(int rc, std::string_view path) {
  const int primary = rc & 0xFF;
  if (primary != SQLITE_FULL && primary != SQLITE_IOERR && primary != SQLITE_CANTOPEN) return "";
  std::filesystem::path directory = std::filesystem::path(std::string(path)).parent_path();
  if (directory.empty()) directory = ".";
  struct statvfs stats {};
  if (::statvfs(directory.c_str(), &stats) != 0) return "";
  const std::uint64_t free_bytes =
      static_cast<std::uint64_t>(stats.f_bavail) * static_cast<std::uint64_t>(stats.f_frsize);
  if (primary != SQLITE_FULL && free_bytes >= kFullDiskBytes) return "";
  return "; the disk holding the store has " + std::to_string(free_bytes) +
         " bytes free: SQLite needs free space for its write-ahead log (every change, an erase "
         "too, is written there first) and its shared-memory file; free space on that disk, or "
         "move the store with its -wal file to a disk with room, and retry";
}

}  // namespace

Status SqliteStatus(int rc, std::string_view message, std::string_view operation,
                    std::string_view path) {
  std::string text = "sqlite: " + std::string(operation) + ": " + std::string(message) + " (" +
                     std::string(path) + ")" + FullDiskHint(rc, path);
  switch (rc & 0xFF) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return Status::Unavailable(std::move(text) + "; another writer holds the database lock");
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
      return Status::Corruption(std::move(text));
    case SQLITE_CONSTRAINT:
      if (rc == SQLITE_CONSTRAINT_UNIQUE || rc == SQLITE_CONSTRAINT_PRIMARYKEY) {
        return Status::AlreadyExists(std::move(text));
      }
      return Status::FailedPrecondition(std::move(text));
    case SQLITE_FULL:
      return Status::ResourceExhausted(std::move(text));
    case SQLITE_IOERR:
    case SQLITE_CANTOPEN:
    case SQLITE_PERM:
    case SQLITE_READONLY:
    case SQLITE_NOLFS:
      return Status::Unavailable(std::move(text));
    default:
      return Status::Internal(std::move(text));
  }
}

void DamageRecord::Record(std::string_view message) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!first_.has_value()) first_ = std::string(message);
}

std::optional<std::string> DamageRecord::first() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return first_;
}

Statement::Statement(Connection* connection, sqlite3_stmt* stmt, bool* in_use,
                     std::string_view operation)
    : connection_(connection), stmt_(stmt), in_use_(in_use), operation_(operation) {}

Statement::Statement(Statement&& other) noexcept
    : connection_(other.connection_),
      stmt_(std::exchange(other.stmt_, nullptr)),
      in_use_(std::exchange(other.in_use_, nullptr)),
      operation_(std::move(other.operation_)),
      bind_rc_(other.bind_rc_) {}

Statement::~Statement() {
  if (stmt_ == nullptr) return;
  if (in_use_ != nullptr) {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
    *in_use_ = false;
  } else {
    sqlite3_finalize(stmt_);
  }
}

void Statement::BindInt(int index, std::int64_t value) {
  const int rc = sqlite3_bind_int64(stmt_, index, value);
  if (rc != SQLITE_OK && bind_rc_ == 0) bind_rc_ = rc;
}

void Statement::BindText(int index, std::string_view value) {
  // SQLITE_TRANSIENT: SQLite copies the bytes, so `value` need not outlive the statement.
  const int rc =
      sqlite3_bind_text64(stmt_, index, value.data(), value.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
  if (rc != SQLITE_OK && bind_rc_ == 0) bind_rc_ = rc;
}

void Statement::BindNull(int index) {
  const int rc = sqlite3_bind_null(stmt_, index);
  if (rc != SQLITE_OK && bind_rc_ == 0) bind_rc_ = rc;
}

void Statement::BindTime(int index, std::optional<Timestamp> value) {
  if (value.has_value()) {
    BindInt(index, value->micros);
  } else {
    BindNull(index);
  }
}

void Statement::BindBlob(int index, std::span<const std::byte> value) {
  const int rc = sqlite3_bind_blob64(stmt_, index, value.data(), value.size(), SQLITE_TRANSIENT);
  if (rc != SQLITE_OK && bind_rc_ == 0) bind_rc_ = rc;
}

StatusOr<bool> Statement::Step() {
  if (bind_rc_ != 0) return connection_->Error(bind_rc_, operation_ + " (bind)");
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return connection_->Error(rc, operation_);
}

Status Statement::Run() {
  while (true) {
    ASSIGN_OR_RETURN(const bool has_row, Step());
    if (!has_row) return Status::Ok();
  }
}

int Statement::ColumnCount() const { return sqlite3_column_count(stmt_); }

bool Statement::ColumnIsNull(int column) const {
  return sqlite3_column_type(stmt_, column) == SQLITE_NULL;
}

std::int64_t Statement::ColumnInt(int column) const { return sqlite3_column_int64(stmt_, column); }

std::string Statement::ColumnText(int column) const {
  const unsigned char* text = sqlite3_column_text(stmt_, column);
  if (text == nullptr) return std::string();
  const int size = sqlite3_column_bytes(stmt_, column);
  return std::string(reinterpret_cast<const char*>(text), static_cast<std::size_t>(size));
}

std::optional<Timestamp> Statement::ColumnTime(int column) const {
  if (ColumnIsNull(column)) return std::nullopt;
  return Timestamp{ColumnInt(column)};
}

std::span<const std::byte> Statement::ColumnBlob(int column) const {
  const void* data = sqlite3_column_blob(stmt_, column);
  if (data == nullptr) return {};
  const int size = sqlite3_column_bytes(stmt_, column);
  return {static_cast<const std::byte*>(data), static_cast<std::size_t>(size)};
}

std::string Statement::ColumnName(int column) const {
  const char* name = sqlite3_column_name(stmt_, column);
  return name == nullptr ? std::string() : std::string(name);
}

int Statement::ColumnType(int column) const { return sqlite3_column_type(stmt_, column); }

StatusOr<std::unique_ptr<Connection>> Connection::Open(const std::string& path, int flags,
                                                       int busy_timeout_ms,
                                                       const std::string& uri) {
  sqlite3* db = nullptr;
  const int rc = uri.empty() ? sqlite3_open_v2(path.c_str(), &db, flags, nullptr)
                             : sqlite3_open_v2(uri.c_str(), &db, flags | SQLITE_OPEN_URI, nullptr);
  if (rc != SQLITE_OK) {
    Status status =
        SqliteStatus(rc, db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc), "open", path);
    sqlite3_close_v2(db);
    return status;
  }
  std::unique_ptr<Connection> connection(new Connection(db, path));
  sqlite3_extended_result_codes(db, 1);
  const int timeout_rc = sqlite3_busy_timeout(db, busy_timeout_ms);
  if (timeout_rc != SQLITE_OK) return connection->Error(timeout_rc, "set busy timeout");
  return connection;
}

Connection::~Connection() {
  for (auto& [sql, cached] : cache_) sqlite3_finalize(cached.stmt);
  sqlite3_close_v2(db_);
}

Status Connection::Exec(std::string_view sql, std::string_view operation) {
  char* message = nullptr;
  const std::string sql_text(sql);
  const int rc = sqlite3_exec(db_, sql_text.c_str(), nullptr, nullptr, &message);
  if (rc == SQLITE_OK) return Status::Ok();
  Status status = Failure(sqlite3_extended_errcode(db_),
                          message != nullptr ? message : sqlite3_errstr(rc), operation);
  sqlite3_free(message);
  return status;
}

StatusOr<Statement> Connection::Prepare(std::string_view sql, std::string_view operation) {
  auto it = cache_.find(sql);
  if (it != cache_.end() && !it->second.in_use) {
    it->second.in_use = true;
    return Statement(this, it->second.stmt, &it->second.in_use, operation);
  }
  const bool cache_it = it == cache_.end();
  sqlite3_stmt* stmt = nullptr;
  const int rc = sqlite3_prepare_v3(db_, sql.data(), static_cast<int>(sql.size()),
                                    cache_it ? SQLITE_PREPARE_PERSISTENT : 0, &stmt, nullptr);
  if (rc != SQLITE_OK) {
    sqlite3_finalize(stmt);
    return Error(rc, std::string(operation) + " (prepare)");
  }
  if (!cache_it) return Statement(this, stmt, nullptr, operation);
  auto [slot, inserted] = cache_.emplace(std::string(sql), CachedStatement{stmt, true});
  return Statement(this, slot->second.stmt, &slot->second.in_use, operation);
}

StatusOr<std::optional<std::string>> Connection::QueryText(std::string_view sql,
                                                           std::string_view operation) {
  ASSIGN_OR_RETURN(Statement stmt, Prepare(sql, operation));
  ASSIGN_OR_RETURN(const bool has_row, stmt.Step());
  if (!has_row) return std::optional<std::string>();
  std::optional<std::string> value = stmt.ColumnText(0);
  RETURN_IF_ERROR(stmt.Run());
  return value;
}

Status Connection::Error(int rc, std::string_view operation) const {
  // sqlite3_errmsg describes the most recent failure on this connection; prefer the extended
  // code it recorded, which distinguishes e.g. UNIQUE from FOREIGN KEY constraint failures.
  const int extended = sqlite3_extended_errcode(db_);
  const int code = (extended & 0xFF) == (rc & 0xFF) ? extended : rc;
  return Failure(code, sqlite3_errmsg(db_), operation);
}

Status Connection::Failure(int code, std::string_view message, std::string_view operation) const {
  Status status = SqliteStatus(code, message, operation, path_);
  if (damage_record_ != nullptr && status.code() == StatusCode::kCorruption) {
    damage_record_->Record(status.message());
  }
  return status;
}

std::int64_t Connection::LastInsertRowId() const { return sqlite3_last_insert_rowid(db_); }

std::int64_t Connection::Changes() const { return sqlite3_changes64(db_); }

ScopedSqlTransaction::ScopedSqlTransaction(Connection& connection, std::string_view begin_sql)
    : connection_(connection) {
  status_ = connection_.Exec(begin_sql, "begin transaction");
  open_ = status_.ok();
}

ScopedSqlTransaction::~ScopedSqlTransaction() {
  if (open_) static_cast<void>(connection_.Exec("ROLLBACK", "rollback"));
}

Status ScopedSqlTransaction::Commit() {
  if (!open_) return Status::FailedPrecondition("sqlite: commit without an open transaction");
  open_ = false;
  Status status = connection_.Exec("COMMIT", "commit");
  if (!status.ok()) {
    static_cast<void>(connection_.Exec("ROLLBACK", "rollback after failed commit"));
  }
  return status;
}

}  // namespace engram::store::sqlite
