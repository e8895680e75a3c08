// The integration suites that run against every store backend: bad input (nothing stored
// half-way), determinism (same input, same store bytes and recalls) and two-phase writes (the
// derivation worker gives the synchronous content, survives a crash between the phases). Each backend's test binary
// instantiates them once:
//
//   ENGRAM_INSTANTIATE_BACKEND_SUITES(Sqlite, testing::SqliteBackend());
//
// (sqlite_backend_test.cc here; postgres_backend_test.cc for the PostgreSQL store.)
#ifndef ENGRAM_TESTS_INTEGRATION_BACKEND_SUITES_H_
#define ENGRAM_TESTS_INTEGRATION_BACKEND_SUITES_H_

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "engram/engine.h"
#include "test_util.h"

namespace engram {

// A test directory and a backend; skips when the backend cannot be tested here.
class BackendTest : public ::testing::TestWithParam<testing::StoreBackend> {
 protected:
  void SetUp() override {
    if (GetParam().skip_reason) {
      if (const std::string reason = GetParam().skip_reason(); !reason.empty()) {
        GTEST_SKIP() << reason;
      }
    }
  }

  EngineOptions Options(const std::string& name = "engram.db") const {
    return testing::TestOptions(GetParam(), dir_, name);
  }

  testing::TempDir dir_;
};

class BadInputTest : public BackendTest {
 protected:
  void SetUp() override;
  // Remembers one good turn, then `bad` in a batch of three; expects kInvalidArgument naming
  // turn 1 and `what`, and that only the first good turn is stored.
  void ExpectRejected(const Turn& bad, const std::string& what);

  std::unique_ptr<Engine> engine_;
  int calls_ = 0;
};

class DeterminismTest : public BackendTest {};

// Two-phase writes: non-blocking Remember and the derivation worker (two_phase_test.cc).
class TwoPhaseWriteTest : public BackendTest {};

inline std::string BackendSuiteName(const ::testing::TestParamInfo<testing::StoreBackend>& info) {
  return info.param.name;
}

}  // namespace engram

#define ENGRAM_INSTANTIATE_BACKEND_SUITES(prefix, backend)                                     \
  INSTANTIATE_TEST_SUITE_P(prefix, BadInputTest, ::testing::Values(backend), BackendSuiteName); \
  INSTANTIATE_TEST_SUITE_P(prefix, DeterminismTest, ::testing::Values(backend), BackendSuiteName); \
  INSTANTIATE_TEST_SUITE_P(prefix, TwoPhaseWriteTest, ::testing::Values(backend), BackendSuiteName)

#endif  // ENGRAM_TESTS_INTEGRATION_BACKEND_SUITES_H_
