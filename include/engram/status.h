// engram::Status and engram::StatusOr<T>: how every public entry point reports failure.
//
// engram never throws across its API. A call returns a Status (or a StatusOr<T> holding either a
// value or a non-OK Status) whose code says what kind of failure it was and whose message says, in
// words a user can act on, what was wrong:
//
//   engram::StatusOr<std::unique_ptr<engram::Engine>> engine = engram::Engine::Open(options);
//   if (!engine.ok()) {
//     std::cerr << engine.status() << "\n";  // "NOT_FOUND: store file ... does not exist"
//     return 1;
//   }
//
// Inside the implementation, RETURN_IF_ERROR and ASSIGN_OR_RETURN keep the plumbing short.
#ifndef ENGRAM_STATUS_H_
#define ENGRAM_STATUS_H_

#include <cstdlib>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>

namespace engram {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument = 1,     // the caller's input is wrong; retrying the same call will fail again
  kNotFound = 2,            // a named scope, node, file or proposal does not exist
  kAlreadyExists = 3,       // something that must be unique exists already
  kFailedPrecondition = 4,  // the system is not in a state where the call can run
  kCorruption = 5,          // stored data or a data file is damaged
  kUnavailable = 6,         // a dependency (disk, server, model file) cannot be reached now
  kDeadlineExceeded = 7,    // the call ran out of time
  kInternal = 8,            // a bug in engram
  kResourceExhausted = 9,   // a size or count limit was exceeded
};

// "INVALID_ARGUMENT", "NOT_FOUND", ...
std::string_view StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;  // OK
  Status(StatusCode code, std::string message);

  static Status Ok() { return Status(); }
  static Status InvalidArgument(std::string message) {
    return Status(StatusCode::kInvalidArgument, std::move(message));
  }
  static Status NotFound(std::string message) {
    return Status(StatusCode::kNotFound, std::move(message));
  }
  static Status AlreadyExists(std::string message) {
    return Status(StatusCode::kAlreadyExists, std::move(message));
  }
  static Status FailedPrecondition(std::string message) {
    return Status(StatusCode::kFailedPrecondition, std::move(message));
  }
  static Status Corruption(std::string message) {
    return Status(StatusCode::kCorruption, std::move(message));
  }
  static Status Unavailable(std::string message) {
    return Status(StatusCode::kUnavailable, std::move(message));
  }
  static Status DeadlineExceeded(std::string message) {
    return Status(StatusCode::kDeadlineExceeded, std::move(message));
  }
  static Status Internal(std::string message) {
    return Status(StatusCode::kInternal, std::move(message));
  }
  static Status ResourceExhausted(std::string message) {
    return Status(StatusCode::kResourceExhausted, std::move(message));
  }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

  // "OK" or "<CODE>: <message>".
  std::string ToString() const;

  // Returns a copy whose message is "<context>: <message>"; OK stays OK.
  Status WithContext(std::string_view context) const;

  friend bool operator==(const Status& a, const Status& b) {
    return a.code_ == b.code_ && a.message_ == b.message_;
  }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

std::ostream& operator<<(std::ostream& os, const Status& status);

// Either a T or a non-OK Status. Accessing the value of a non-OK StatusOr is a programmer error
// and aborts with the status printed.
template <typename T>
class [[nodiscard]] StatusOr {
 public:
  // A non-OK status. Passing an OK status is a programmer error; it becomes kInternal.
  StatusOr(Status status)  // NOLINT(google-explicit-constructor)
      : status_(status.ok() ? Status::Internal("StatusOr constructed from an OK status")
                            : std::move(status)) {}
  StatusOr(const T& value) : value_(value) {}  // NOLINT(google-explicit-constructor)
  StatusOr(T&& value) : value_(std::move(value)) {}  // NOLINT(google-explicit-constructor)
  template <typename U,
            typename = std::enable_if_t<std::is_constructible_v<T, U&&> &&
                                        !std::is_same_v<std::decay_t<U>, T> &&
                                        !std::is_same_v<std::decay_t<U>, Status> &&
                                        !std::is_same_v<std::decay_t<U>, StatusOr<T>>>>
  StatusOr(U&& value) : value_(T(std::forward<U>(value))) {}  // NOLINT

  bool ok() const { return value_.has_value(); }
  const Status& status() const& {
    static const Status* const kOk = new Status();
    return ok() ? *kOk : status_;
  }
  Status status() && { return ok() ? Status() : std::move(status_); }

  const T& value() const& {
    CheckOk();
    return *value_;
  }
  T& value() & {
    CheckOk();
    return *value_;
  }
  T&& value() && {
    CheckOk();
    return std::move(*value_);
  }
  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }

  template <typename U>
  T value_or(U&& fallback) const& {
    return ok() ? *value_ : static_cast<T>(std::forward<U>(fallback));
  }

 private:
  void CheckOk() const;

  Status status_;
  std::optional<T> value_;
};

namespace internal {
[[noreturn]] void DieBecauseOfStatus(const Status& status);
}  // namespace internal

template <typename T>
void StatusOr<T>::CheckOk() const {
  if (!value_.has_value()) internal::DieBecauseOfStatus(status_);
}

namespace internal {
inline Status AsStatus(const Status& status) { return status; }
inline Status AsStatus(Status&& status) { return std::move(status); }
template <typename T>
Status AsStatus(const StatusOr<T>& status_or) {
  return status_or.status();
}
}  // namespace internal

}  // namespace engram

#define ENGRAM_STATUS_CONCAT_INNER_(a, b) a##b
#define ENGRAM_STATUS_CONCAT_(a, b) ENGRAM_STATUS_CONCAT_INNER_(a, b)

// Evaluates `expr` (a Status or StatusOr); returns its Status from the enclosing function if not OK.
#define RETURN_IF_ERROR(expr) \
  ENGRAM_RETURN_IF_ERROR_IMPL_(ENGRAM_STATUS_CONCAT_(engram_status_, __COUNTER__), expr)
#define ENGRAM_RETURN_IF_ERROR_IMPL_(tmp, expr)                  \
  do {                                                           \
    ::engram::Status tmp = ::engram::internal::AsStatus((expr)); \
    if (!tmp.ok()) return tmp;                                   \
  } while (false)

// ASSIGN_OR_RETURN(lhs, expr): evaluates `expr` (a StatusOr<T>); on error returns its Status,
// otherwise move-assigns the value to `lhs` (which may be a declaration: `auto x`).
#define ASSIGN_OR_RETURN(lhs, expr) \
  ENGRAM_ASSIGN_OR_RETURN_IMPL_(ENGRAM_STATUS_CONCAT_(engram_statusor_, __COUNTER__), lhs, expr)
#define ENGRAM_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                  \
  if (!tmp.ok()) return std::move(tmp).status();      \
  lhs = std::move(tmp).value()

#endif  // ENGRAM_STATUS_H_
