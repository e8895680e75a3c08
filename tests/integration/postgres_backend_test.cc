// The backend suites (backend_suites.h) on the PostgreSQL store, against the tests' private
// cluster (tests/postgres): each test's stores are databases named after its directory. Plus
// what only a store URL can get wrong, through the public API.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "backend_suites.h"
#include "engram/engine.h"
#include "engram/testing/status_matchers.h"
#include "test_util.h"
#include "tests/postgres/test_cluster.h"

namespace engram {
namespace {

using ::engram::testing::IsOk;
using ::engram::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

testing::StoreBackend PostgresBackend() {
  return testing::StoreBackend{
      "postgres",
      [](const testing::TempDir& dir, const std::string& name) {
        StatusOr<std::string> url =
            testing::postgres::DatabaseUrl(testing::postgres::DatabaseNameFor(dir.File(name)));
        EXPECT_THAT(url, IsOk());
        return url.value_or("postgresql:///no-test-cluster");
      },
      testing::postgres::SkipReason};
}

}  // namespace

ENGRAM_INSTANTIATE_BACKEND_SUITES(Postgres, PostgresBackend());

namespace {

TEST(PostgresEngineTest, RememberAndRecallThroughAStoreUrlAndAnotherEngineSeesTheWrite) {
  ENGRAM_SKIP_WITHOUT_POSTGRES();
  testing::TempDir dir;
  EngineOptions options = testing::TestOptions(PostgresBackend(), dir);
  std::unique_ptr<Engine> writer = testing::OpenOrDie(options);
  const Scope scope = testing::S("user:ana");
  ASSERT_THAT(writer->Remember(scope, std::vector<Turn>{testing::MakeTurn(
                                          "Ana", "My sourdough starter is called Bubbles")}),
              IsOk());
  std::unique_ptr<Engine> reader = testing::OpenOrDie(options);
  StatusOr<ReadResult> recalled = reader->Recall(scope, {.text = "sourdough starter name"});
  ASSERT_THAT(recalled, IsOk());
  ASSERT_FALSE(recalled->items.empty());
  EXPECT_THAT(recalled->context, HasSubstr("Bubbles"));
}

TEST(PostgresEngineTest, ErrorsNameTheUrlWithoutItsPassword) {
  testing::TempDir dir;
  EngineOptions options = testing::TestOptions(dir);
  options.store_path = "postgresql://ana:hunter2-secret@/engram?host=" + dir.path() + "/nowhere";
  Config config;
  config.store.connect_timeout_seconds = 2;
  options.config = config;
  EXPECT_THAT(Engine::Open(options),
              StatusIs(StatusCode::kUnavailable,
                       AllOf(HasSubstr("postgresql://ana:***@/engram"), Not(HasSubstr("hunter2")))));
  EXPECT_EQ(Engine::DisplayStoreLocation(options.store_path).find("hunter2"), std::string::npos);
}

}  // namespace
}  // namespace engram
