// The tests' private PostgreSQL cluster: started by scripts/pg-cluster as the ctest fixture
// `postgres_cluster` (tests/postgres/CMakeLists.txt), Unix socket only, thrown away afterwards.
//
//   TEST(MyPostgresTest, Works) {
//     ENGRAM_SKIP_WITHOUT_POSTGRES();
//     ASSERT_OK_AND_ASSIGN-style: StatusOr<std::string> url = DatabaseUrl("my_test_db");
//     ... store::OpenPostgresStore(*url) ...
//   }
//
// Without a cluster (the server binaries are missing, or the test binary was run outside ctest)
// the tests skip, naming why — unless ENGRAM_REQUIRE_POSTGRES=1, when they run and fail.
#ifndef ENGRAM_TESTS_POSTGRES_TEST_CLUSTER_H_
#define ENGRAM_TESTS_POSTGRES_TEST_CLUSTER_H_

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "engram/status.h"

namespace engram::testing::postgres {

// Why the PostgreSQL tests cannot run here; "" when they can, and always "" under
// ENGRAM_REQUIRE_POSTGRES=1 (the test then fails on the missing cluster instead of skipping).
std::string SkipReason();

// The URL of database `name` on the test cluster (role "engram", no password), created when
// missing. `name` must be a plain identifier ([a-z0-9_]).
StatusOr<std::string> DatabaseUrl(std::string_view name);

// A database name for a test's temporary directory: "t_" and 16 hex digits of a hash of its path,
// so one test's store is one database and reopening the directory reopens it.
std::string DatabaseNameFor(std::string_view dir);

// Runs `sql` on the database at `url`; the first column of the first row ("" without rows).
StatusOr<std::string> RunSql(const std::string& url, const std::string& sql);

}  // namespace engram::testing::postgres

#define ENGRAM_SKIP_WITHOUT_POSTGRES()                                                  \
  if (const std::string skip_reason = ::engram::testing::postgres::SkipReason();       \
      !skip_reason.empty())                                                              \
  GTEST_SKIP() << skip_reason

#endif  // ENGRAM_TESTS_POSTGRES_TEST_CLUSTER_H_
