// GoogleTest matchers for engram::Status and engram::StatusOr<T>.
//
//   EXPECT_THAT(engine->Recall(scope, query, {}), IsOk());
//   EXPECT_THAT(store->GetNode("nope"), StatusIs(StatusCode::kNotFound));
//   EXPECT_THAT(ParseScope("user:ann"), IsOkAndHolds(Field(&Scope::kind, ScopeKind::kUser)));
//   EXPECT_THAT(status, StatusIs(StatusCode::kInvalidArgument, HasSubstr("line 3")));
//
// Prefer checking the specific expected error code over a bare "not OK".
#ifndef ENGRAM_TESTING_STATUS_MATCHERS_H_
#define ENGRAM_TESTING_STATUS_MATCHERS_H_

#include <gmock/gmock.h>

#include <ostream>
#include <string>

#include "engram/status.h"

namespace engram {

inline void PrintTo(const Status& status, std::ostream* os) { *os << status.ToString(); }

template <typename T>
void PrintTo(const StatusOr<T>& status_or, std::ostream* os) {
  if (status_or.ok()) {
    *os << "OK holding a value";
  } else {
    *os << status_or.status().ToString();
  }
}

namespace testing {
namespace internal {

inline const Status& GetStatus(const Status& status) { return status; }
template <typename T>
const Status& GetStatus(const StatusOr<T>& status_or) {
  return status_or.status();
}

}  // namespace internal

MATCHER(IsOk, "is OK") {
  const Status& status = internal::GetStatus(arg);
  if (!status.ok()) *result_listener << "whose status is " << status.ToString();
  return status.ok();
}

MATCHER_P(StatusIs, code,
          std::string("has status code ") + std::string(StatusCodeName(code))) {
  const Status& status = internal::GetStatus(arg);
  *result_listener << "whose status is " << status.ToString();
  return status.code() == code;
}

MATCHER_P2(StatusIs, code, message_matcher,
           std::string("has status code ") + std::string(StatusCodeName(code)) +
               " and a message that " +
               ::testing::DescribeMatcher<std::string>(message_matcher)) {
  const Status& status = internal::GetStatus(arg);
  *result_listener << "whose status is " << status.ToString();
  return status.code() == code &&
         ::testing::Matches(message_matcher)(status.message());
}

MATCHER_P(IsOkAndHolds, value_matcher, "is OK and holds a matching value") {
  if (!arg.ok()) {
    *result_listener << "whose status is " << arg.status().ToString();
    return false;
  }
  return ::testing::ExplainMatchResult(value_matcher, *arg, result_listener);
}

}  // namespace testing
}  // namespace engram

#endif  // ENGRAM_TESTING_STATUS_MATCHERS_H_
