// The `engram` command on a PostgreSQL store: the store URL given as --store or ENGRAM_STORE
// works for ingest, recall and erase exactly as a store file does, and nothing it prints shows
// the password. Runs on the tests' private cluster (tests/postgres), skipped without one.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "engram/testing/status_matchers.h"
#include "engram/testing/temp_dir.h"
#include "tests/cli/shell_runner.h"
#include "tests/postgres/test_cluster.h"

namespace engram {
namespace {

using ::engram::testing::IsOk;
using ::engram::testing::RunCli;
using ::engram::testing::RunShell;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

class PostgresCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ENGRAM_SKIP_WITHOUT_POSTGRES();
    StatusOr<std::string> url =
        testing::postgres::DatabaseUrl(testing::postgres::DatabaseNameFor(dir_.path()));
    ASSERT_THAT(url, IsOk());
    url_ = *url;
  }

  testing::TempDir dir_{"engram_postgres_cli"};
  std::string url_;
  const std::string example_ = std::string(ENGRAM_EXAMPLES_DIR) + "/conversation.jsonl";
};

TEST_F(PostgresCliTest, IngestRecallAndEraseThroughAStoreUrl) {
  const std::string store = "--store '" + url_ + "' ";
  const testing::ShellOutput ingest =
      RunCli(store + "--json ingest --scope user:priya '" + example_ + "'");
  ASSERT_EQ(ingest.exit_code, 0) << ingest.out;
  EXPECT_GT(nlohmann::json::parse(ingest.out)["turns"].get<int>(), 0);

  // The same store through ENGRAM_STORE.
  const testing::ShellOutput recall =
      RunShell("ENGRAM_STORE='" + url_ + "' " + testing::CliCommand() +
               " recall --json --scope user:priya --k 5 'Where is Priya moving?'");
  ASSERT_EQ(recall.exit_code, 0) << recall.out;
  const nlohmann::json result = nlohmann::json::parse(recall.out);
  ASSERT_FALSE(result["items"].empty());
  EXPECT_THAT(result.dump(), HasSubstr("Rotterdam"));

  const testing::ShellOutput erased =
      RunCli(store + "--json erase --scope user:priya --yes");
  ASSERT_EQ(erased.exit_code, 0) << erased.out;
  const testing::ShellOutput after = RunCli(store + "recall --scope user:priya Rotterdam", true);
  EXPECT_NE(after.exit_code, 0);
  EXPECT_THAT(after.out, HasSubstr("user:priya"));
}

TEST_F(PostgresCliTest, UnreachableServerErrorShowsTheUrlWithoutThePassword) {
  const std::string url =
      "postgresql://priya:open-sesame-42@/engram?host=" + dir_.path() + "/nowhere";
  const testing::ShellOutput output = RunCli("--store '" + url + "' scopes", true);
  EXPECT_NE(output.exit_code, 0);
  EXPECT_THAT(output.out, AllOf(HasSubstr("cannot reach the server"),
                                HasSubstr("postgresql://priya:***@"),
                                Not(HasSubstr("open-sesame-42"))));
}

}  // namespace
}  // namespace engram
