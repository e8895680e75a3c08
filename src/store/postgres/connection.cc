// libpq wrapper of the PostgreSQL store (see connection.h), and the store URL helpers of store.h.
#include "store/postgres/connection.h"

#include <libpq-fe.h>
#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <utility>

#include "store/store.h"

namespace engram::store {

bool IsPostgresUrl(std::string_view location) {
  return location.starts_with("postgresql://") || location.starts_with("postgres://");
}

std::string RedactStoreLocation(std::string_view location) {
  if (!IsPostgresUrl(location)) return std::string(location);
  std::string out(location);
  // user:PASSWORD@ in the authority (which ends at the first '/' or '?').
  const std::size_t authority = out.find("://") + 3;
  const std::size_t authority_end = std::min(out.find('/', authority), out.find('?', authority));
  const std::size_t at = out.rfind('@', authority_end == std::string::npos ? out.size() - 1
                                                                            : authority_end - 1);
  if (at != std::string::npos && at >= authority &&
      (authority_end == std::string::npos || at < authority_end)) {
    const std::size_t colon = out.find(':', authority);
    if (colon != std::string::npos && colon < at) out.replace(colon + 1, at - colon - 1, "***");
  }
  // password=... among the query parameters.
  const std::size_t query = out.find('?');
  for (std::size_t pos = query; pos != std::string::npos && pos < out.size();
       pos = out.find('&', pos + 1)) {
    constexpr std::string_view kKey = "password=";
    if (out.compare(pos + 1, kKey.size(), kKey) != 0) continue;
    const std::size_t value = pos + 1 + kKey.size();
    const std::size_t value_end = std::min(out.find('&', value), out.size());
    out.replace(value, value_end - value, "***");
  }
  return out;
}

}  // namespace engram::store

namespace engram::store::postgres {

// ----- Params ----------------------------------------------------------------------------------

Params& Params::Text(std::string_view value) {
  values_.emplace_back(std::string(value));
  binary_.push_back(0);
  return *this;
}

Params& Params::TextOrNull(std::string_view value) {
  return value.empty() ? Null() : Text(value);
}

Params& Params::Int(std::int64_t value) { return Text(std::to_string(value)); }

Params& Params::Bool(bool value) { return Text(value ? "true" : "false"); }

Params& Params::Null() {
  values_.emplace_back(std::nullopt);
  binary_.push_back(0);
  return *this;
}

Params& Params::Time(std::optional<Timestamp> value) {
  return value.has_value() ? Int(value->micros) : Null();
}

Params& Params::Bytes(std::string_view value) {
  values_.emplace_back(std::string(value));
  binary_.push_back(1);
  return *this;
}

Params& Params::IntArray(const std::vector<std::int64_t>& values) {
  std::string text = "{";
  for (std::size_t value_idx = 0; value_idx < values.size(); ++value_idx) {
    if (value_idx > 0) text += ',';
    text += std::to_string(values[value_idx]);
  }
  text += '}';
  return Text(text);
}

Params& Params::TextArray(const std::vector<std::string>& values) {
  std::string text = "{";
  for (std::size_t value_idx = 0; value_idx < values.size(); ++value_idx) {
    if (value_idx > 0) text += ',';
    text += '"';
    for (const char c : values[value_idx]) {
      if (c == '"' || c == '\\') text += '\\';
      text += c;
    }
    text += '"';
  }
  text += '}';
  return Text(text);
}

// ----- Result ----------------------------------------------------------------------------------

Result::Result(Result&& other) noexcept : result_(std::exchange(other.result_, nullptr)) {}

Result& Result::operator=(Result&& other) noexcept {
  if (this != &other) {
    if (result_ != nullptr) PQclear(result_);
    result_ = std::exchange(other.result_, nullptr);
  }
  return *this;
}

Result::~Result() {
  if (result_ != nullptr) PQclear(result_);
}

int Result::size() const { return PQntuples(result_); }
int Result::columns() const { return PQnfields(result_); }
std::string_view Result::ColumnName(int column) const { return PQfname(result_, column); }
bool Result::IsNull(int row, int column) const { return PQgetisnull(result_, row, column) != 0; }

std::string_view Result::Text(int row, int column) const {
  return std::string_view(PQgetvalue(result_, row, column),
                          static_cast<std::size_t>(PQgetlength(result_, row, column)));
}

std::int64_t Result::Int(int row, int column) const {
  const std::string_view text = Text(row, column);
  std::int64_t value = 0;
  std::from_chars(text.data(), text.data() + text.size(), value);
  return value;
}

std::optional<Timestamp> Result::Time(int row, int column) const {
  if (IsNull(row, column)) return std::nullopt;
  return Timestamp{Int(row, column)};
}

bool Result::IsBytea(int column) const {
  constexpr Oid kByteaOid = 17;
  return PQftype(result_, column) == kByteaOid;
}

std::string Result::Bytes(int row, int column) const {
  const std::string_view text = Text(row, column);  // "\x0a1b..."
  if (text.size() < 2 || text[0] != '\\' || text[1] != 'x') return std::string();
  const auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return c - 'A' + 10;
  };
  std::string bytes((text.size() - 2) / 2, '\0');
  for (std::size_t byte_idx = 0; byte_idx < bytes.size(); ++byte_idx) {
    bytes[byte_idx] = static_cast<char>(nibble(text[2 + 2 * byte_idx]) * 16 +
                                        nibble(text[3 + 2 * byte_idx]));
  }
  return bytes;
}

std::int64_t Result::AffectedRows() const {
  const std::string_view text = PQcmdTuples(result_);
  std::int64_t value = 0;
  std::from_chars(text.data(), text.data() + text.size(), value);
  return value;
}

// ----- Connection ------------------------------------------------------------------------------

namespace {

std::string Trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  // libpq puts one line per attempted address; keep them on one line.
  std::replace(text.begin(), text.end(), '\n', ' ');
  return text;
}

bool Contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

}  // namespace

Connection::Connection(pg_conn* conn, std::string display_name, std::string password)
    : conn_(conn), display_name_(std::move(display_name)), password_(std::move(password)) {}

Connection::~Connection() {
  if (conn_ != nullptr) PQfinish(conn_);
}

std::string Connection::Scrub(std::string text) const {
  if (password_.empty()) return text;
  for (std::size_t pos = text.find(password_); pos != std::string::npos;
       pos = text.find(password_, pos + 3)) {
    text.replace(pos, password_.size(), "***");
  }
  return text;
}

StatusOr<std::unique_ptr<Connection>> Connection::Open(const ConnectSettings& settings) {
  const std::string display = RedactStoreLocation(settings.url);
  // The password, only to scrub it from whatever libpq says back.
  std::string password;
  char* parse_error = nullptr;
  PQconninfoOption* parsed = PQconninfoParse(settings.url.c_str(), &parse_error);
  if (parsed == nullptr) {
    std::string why = parse_error != nullptr ? Trimmed(parse_error) : "out of memory";
    if (parse_error != nullptr) PQfreemem(parse_error);
    // libpq quotes the part it could not parse, which may be the password: then it is left out.
    if (display != settings.url) why = "it holds a password, so libpq's message is not shown";
    return Status::InvalidArgument("postgres: the store URL " + display + " is malformed (" + why +
                                   ")");
  }
  for (PQconninfoOption* option = parsed; option->keyword != nullptr; ++option) {
    if (std::string_view(option->keyword) == "password" && option->val != nullptr) {
      password = option->val;
    }
  }
  PQconninfoFree(parsed);

  const std::string timeout = std::to_string(std::max<std::size_t>(settings.connect_timeout_seconds, 1));
  const char* keywords[] = {"dbname", "connect_timeout", "fallback_application_name",
                            "client_encoding", nullptr};
  const char* values[] = {settings.url.c_str(), timeout.c_str(), "engram", "UTF8", nullptr};
  PGconn* raw = PQconnectdbParams(keywords, values, /*expand_dbname=*/1);
  auto conn = std::unique_ptr<Connection>(new Connection(raw, display, std::move(password)));
  if (raw == nullptr) return Status::ResourceExhausted("postgres: out of memory connecting");
  if (PQstatus(raw) != CONNECTION_OK) {
    const std::string why = conn->Scrub(Trimmed(PQerrorMessage(raw)));
    if (Contains(why, "password authentication failed") || Contains(why, "no password supplied") ||
        Contains(why, "authentication failed") || Contains(why, "pg_hba.conf")) {
      return Status::FailedPrecondition(
          "postgres: the server of " + display + " refused the login (" + why +
          "): check the user and password in the store URL (or PGPASSWORD / ~/.pgpass) and the "
          "server's pg_hba.conf");
    }
    if (Contains(why, "role \"") && Contains(why, "does not exist")) {
      return Status::FailedPrecondition("postgres: " + display + ": " + why +
                                        ": create the role (createuser) or fix the user in the "
                                        "store URL");
    }
    if (Contains(why, "database \"") && Contains(why, "does not exist")) {
      return Status::NotFound("postgres: " + display + ": " + why +
                              ": create the database first (createdb) or fix its name in the "
                              "store URL");
    }
    return Status::Unavailable("postgres: cannot reach the server of " + display + " (" + why +
                               "): is PostgreSQL running there, and are the host, port or socket "
                               "directory in the store URL right?");
  }
  PQsetNoticeProcessor(raw, [](void*, const char*) {}, nullptr);
  RETURN_IF_ERROR(conn->Exec("SET statement_timeout = " +
                                 std::to_string(settings.statement_timeout_ms) +
                                 "; SET TimeZone = 'UTC'; SET client_min_messages = warning",
                             "set up the session"));
  return conn;
}

namespace {

// Frees every notification libpq has queued; how many there were.
int DrainNotifies(PGconn* conn) {
  int drained = 0;
  while (PGnotify* notify = PQnotifies(conn)) {
    PQfreemem(notify);
    ++drained;
  }
  return drained;
}

}  // namespace

Status Connection::DiscardNotifications() {
  if (PQconsumeInput(conn_) == 0) {
    return Status::Unavailable("postgres: listen for journal changes: " +
                               Scrub(Trimmed(PQerrorMessage(conn_))) + " (the connection to " +
                               display_name_ + " was lost)");
  }
  DrainNotifies(conn_);
  return Status::Ok();
}

StatusOr<bool> Connection::WaitForNotification(std::chrono::milliseconds timeout) {
  // Notifications may already be queued (they arrive with any result the connection reads).
  RETURN_IF_ERROR(healthy() ? Status::Ok()
                            : Status::Unavailable("postgres: listen for journal changes: the "
                                                  "connection to " +
                                                  display_name_ + " was lost"));
  if (PQconsumeInput(conn_) != 0 && DrainNotifies(conn_) > 0) return true;
  pollfd socket{.fd = PQsocket(conn_), .events = POLLIN, .revents = 0};
  if (socket.fd < 0) {
    return Status::Unavailable("postgres: listen for journal changes: the connection to " +
                               display_name_ + " has no socket");
  }
  const int ready = ::poll(&socket, 1, static_cast<int>(timeout.count()));
  if (ready < 0 && errno != EINTR) {
    return Status::Internal("postgres: listen for journal changes: poll failed: " +
                            std::string(std::strerror(errno)));
  }
  if (ready <= 0) return false;
  if (PQconsumeInput(conn_) == 0) {
    return Status::Unavailable("postgres: listen for journal changes: " +
                               Scrub(Trimmed(PQerrorMessage(conn_))) + " (the connection to " +
                               display_name_ + " was lost)");
  }
  return DrainNotifies(conn_) > 0;
}

bool Connection::healthy() const { return conn_ != nullptr && PQstatus(conn_) == CONNECTION_OK; }

bool Connection::in_failed_transaction() const {
  return conn_ != nullptr && PQtransactionStatus(conn_) == PQTRANS_INERROR;
}

Status Connection::ErrorOf(pg_result* result, std::string_view operation) const {
  const char* state_field = result != nullptr ? PQresultErrorField(result, PG_DIAG_SQLSTATE) : nullptr;
  const char* primary =
      result != nullptr ? PQresultErrorField(result, PG_DIAG_MESSAGE_PRIMARY) : nullptr;
  const std::string why =
      Scrub(Trimmed(primary != nullptr ? std::string(primary) : std::string(PQerrorMessage(conn_))));
  const std::string message = "postgres: " + std::string(operation) + ": " + why;
  if (!healthy()) {
    return Status::Unavailable(message + " (the connection to " + display_name_ + " was lost)");
  }
  const std::string_view state = state_field != nullptr ? state_field : "";
  const std::string_view state_class = state.substr(0, 2);
  if (state == "23505") return Status::AlreadyExists(message);
  if (state == "57014") {
    return Status::DeadlineExceeded(
        message + " (the statement ran longer than [store] statement_timeout_ms)");
  }
  if (state == "55P03" || state == "40001" || state == "40P01" || state_class == "57" ||
      state_class == "08") {
    return Status::Unavailable(message);
  }
  if (state_class == "53") return Status::ResourceExhausted(message);
  if (state == "42501") {
    return Status::FailedPrecondition(message + " (the store URL's role lacks this privilege)");
  }
  if (state == "P0001" || state_class == "25") return Status::FailedPrecondition(message);
  if (state_class == "22" || state_class == "23") return Status::InvalidArgument(message);
  return Status::Internal(message);
}

StatusOr<Result> Connection::Query(std::string_view sql, const Params& params,
                                   std::string_view operation) {
  std::vector<const char*> values;
  std::vector<int> lengths;
  values.reserve(params.values_.size());
  for (const std::optional<std::string>& value : params.values_) {
    values.push_back(value.has_value() ? value->data() : nullptr);
    lengths.push_back(value.has_value() ? static_cast<int>(value->size()) : 0);
  }
  // Each distinct statement text is prepared once per connection (parsed and analysed once;
  // PostgreSQL's plan cache decides between custom and generic plans), then executed by name.
  // The server re-plans a prepared statement by itself after DDL on the tables it reads (e.g. a
  // migration another process runs); what it cannot do is change a prepared statement's result
  // columns ("cached plan must not change result type", only for a `SELECT *` over an altered
  // table), and a pooler or a DISCARD may have dropped the statements. Either way the statements
  // are prepared again: at once when the failed execution left no transaction behind, else the
  // transaction fails (kUnavailable: retry it) and the next one prepares them anew.
  if (!stale_statements_.empty() && PQtransactionStatus(conn_) == PQTRANS_IDLE) DeallocateStale();
  for (int attempt = 0;; ++attempt) {
    auto prepared = prepared_.find(sql);
    if (prepared == prepared_.end()) {
      const std::string name = "engram_" + std::to_string(++statements_prepared_);
      const std::string text(sql);
      Result done(PQprepare(conn_, name.c_str(), text.c_str(), /*nParams=*/0,
                            /*paramTypes=*/nullptr));
      if (done.result_ == nullptr || PQresultStatus(done.result_) != PGRES_COMMAND_OK) {
        return ErrorOf(done.result_, operation);
      }
      prepared = prepared_.emplace(std::string(sql), name).first;
    }
    Result result(PQexecPrepared(conn_, prepared->second.c_str(), static_cast<int>(values.size()),
                                 values.data(), lengths.data(), params.binary_.data(),
                                 /*resultFormat=*/0));
    const ExecStatusType status = PQresultStatus(result.result_);
    if (result.result_ != nullptr && (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK)) {
      return result;
    }
    const char* state = result.result_ != nullptr
                            ? PQresultErrorField(result.result_, PG_DIAG_SQLSTATE)
                            : nullptr;
    const std::string_view sqlstate = state != nullptr ? state : "";
    // 0A000 is also "feature not supported" in general: only the plan cache's message counts.
    const bool stale =
        sqlstate == "26000" ||
        (sqlstate == "0A000" && std::string_view(PQresultErrorMessage(result.result_))
                                        .find("cached plan") != std::string_view::npos);
    if (!stale || !healthy()) return ErrorOf(result.result_, operation);
    // The schema changed (or the server forgot this session's statements): every statement is
    // prepared again, and the old ones (those the server still has) go once no transaction is
    // open.
    for (const auto& [text, name] : prepared_) stale_statements_.push_back(name);
    prepared_.clear();
    if (PQtransactionStatus(conn_) != PQTRANS_IDLE || attempt > 0) {
      return Status::Unavailable("postgres: " + std::string(operation) +
                                 ": the store's schema changed under a prepared statement (" +
                                 Scrub(Trimmed(PQresultErrorMessage(result.result_))) +
                                 "); it is prepared again on the next try");
    }
    DeallocateStale();
  }
}

void Connection::DeallocateStale() {
  for (const std::string& name : stale_statements_) {
    // Already gone when the server dropped it (26000): nothing to do either way.
    Result done(PQexec(conn_, ("DEALLOCATE " + name).c_str()));
    static_cast<void>(done);
  }
  stale_statements_.clear();
}

Status Connection::Exec(std::string_view sql, std::string_view operation) {
  const std::string text(sql);
  Result result(PQexec(conn_, text.c_str()));
  const ExecStatusType status = PQresultStatus(result.result_);
  if (result.result_ == nullptr ||
      (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK)) {
    return ErrorOf(result.result_, operation);
  }
  return Status::Ok();
}

StatusOr<std::optional<std::string>> Connection::QueryText(std::string_view sql,
                                                           const Params& params,
                                                           std::string_view operation) {
  ASSIGN_OR_RETURN(Result result, Query(sql, params, operation));
  if (result.size() == 0 || result.IsNull(0, 0)) return std::optional<std::string>();
  return std::optional<std::string>(std::string(result.Text(0, 0)));
}

}  // namespace engram::store::postgres
