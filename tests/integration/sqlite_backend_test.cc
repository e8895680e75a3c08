// The backend suites (backend_suites.h) on the SQLite store, plus bad input only a store file
// can be given.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>

#include "backend_suites.h"
#include "engram/engine.h"
#include "engram/testing/status_matchers.h"
#include "test_util.h"

namespace engram {

ENGRAM_INSTANTIATE_BACKEND_SUITES(Sqlite, testing::SqliteBackend());

namespace {

using ::engram::testing::StatusIs;
using ::testing::HasSubstr;

TEST(SqliteBadInputTest, StoreThatIsNotADatabase) {
  testing::TempDir dir;
  const std::string path = dir.File("garbage.db");
  {
    FILE* file = fopen(path.c_str(), "wb");
    ASSERT_NE(file, nullptr);
    const std::string junk(8192, 'J');
    fwrite(junk.data(), 1, junk.size(), file);
    fclose(file);
  }
  EngineOptions options = testing::TestOptions(dir);
  options.store_path = path;
  EXPECT_THAT(Engine::Open(options), StatusIs(StatusCode::kCorruption, HasSubstr("garbage.db")));
  options.store_path = dir.File("absent.db");
  options.create_if_missing = false;
  EXPECT_THAT(Engine::Open(options), StatusIs(StatusCode::kNotFound));
}

}  // namespace
}  // namespace engram
