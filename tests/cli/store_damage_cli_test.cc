// The `engram` binary on damaged store files (issue 37; docs/RELIABILITY.md, "Damaged stores"):
// every command that opens the store refuses it naming the file, an ingest into it stores
// nothing, and `engram check` reports the damage; an intact store passes `engram check`.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>

#include "engram/testing/temp_dir.h"
#include "shell_runner.h"

namespace engram {
namespace {

namespace fs = std::filesystem;
using ::engram::testing::RunCli;
using ::engram::testing::ShellOutput;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using json = nlohmann::json;

const std::string kExample = std::string(ENGRAM_EXAMPLES_DIR) + "/conversation.jsonl";
constexpr int kExampleTurns = 60;
constexpr std::size_t kPageBytes = 4096;

std::string ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// SQLite's own verdict on the file: "ok", its first problem, or "error".
std::string SqliteIntegrityCheck(const std::string& path) {
  sqlite3* db = nullptr;
  std::string verdict = "error";
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &stmt, nullptr) == SQLITE_OK &&
        sqlite3_step(stmt) == SQLITE_ROW) {
      verdict = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
    }
    sqlite3_finalize(stmt);
  }
  sqlite3_close(db);
  return verdict;
}

class StoreDamageCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = (fs::path(temp_dir_.path()) / "engram.db").string();
    const ShellOutput ingested = Engram("-q ingest --scope user:priya '" + kExample + "'");
    ASSERT_EQ(ingested.exit_code, 0) << ingested.out;
    // The last connection's close folded the write-ahead log into the file.
    ASSERT_FALSE(fs::exists(store_ + "-wal") && fs::file_size(store_ + "-wal") > 0);
    second_turns_ = (fs::path(temp_dir_.path()) / "more.jsonl").string();
    std::ofstream(second_turns_) << "{\"text\": \"I adopted a cat called Miso.\"}\n";
  }

  ShellOutput Engram(const std::string& args, bool with_stderr = false) {
    return RunCli("--store '" + store_ + "' " + args, with_stderr);
  }

  // Overwrites 4 KB in the middle of the file: the first page from the middle on whose damage
  // SQLite's integrity_check finds (a free page holds nothing to damage), at most 32 pages on.
  void DamageTheMiddle() {
    const std::string intact = ReadBytes(store_);
    const std::size_t middle = intact.size() / kPageBytes / 2;
    for (std::size_t page = middle; page < middle + 32; ++page) {
      std::string damaged = intact;
      for (std::size_t byte_idx = 0; byte_idx < kPageBytes; ++byte_idx) {
        damaged[page * kPageBytes + byte_idx] = static_cast<char>((byte_idx * 131 + 7) % 251);
      }
      std::ofstream(store_, std::ios::binary | std::ios::trunc) << damaged;
      if (SqliteIntegrityCheck(store_) != "ok") return;
    }
    FAIL() << "no page from the middle on is one SQLite's integrity_check finds damaged";
  }

  // Every command that opens the store refuses it with exit 1, naming it; an ingest stores
  // nothing (the file's bytes do not change); `engram check` reports the damage.
  void ExpectRefusedAndReported() {
    const std::string before = ReadBytes(store_);
    for (const std::string& command :
         {std::string("list --scope user:priya"), std::string("recall --scope user:priya job"),
          std::string("scopes"), "ingest --scope user:priya '" + second_turns_ + "'",
          "ingest --scope user:priya '" + kExample + "'"}) {
      const ShellOutput result = Engram(command, /*with_stderr=*/true);
      EXPECT_EQ(result.exit_code, 1) << command << "\n" << result.out;
      EXPECT_THAT(result.out, HasSubstr(store_)) << command;
      EXPECT_THAT(result.out, HasSubstr("engram check")) << command;
    }
    EXPECT_EQ(ReadBytes(store_), before) << "a refused command changed the store file";
    EXPECT_FALSE(fs::exists(store_ + "-wal") && fs::file_size(store_ + "-wal") > 0);

    const ShellOutput check = Engram("--json check");
    EXPECT_EQ(check.exit_code, 1) << check.out;
    const json report = json::parse(check.out);
    EXPECT_EQ(report["ok"], false);
    EXPECT_EQ(report["file"]["ok"], false);
    EXPECT_THAT(report["file"]["problems"], Not(IsEmpty()));
    EXPECT_EQ(report["audit"]["ran"], false);
    const ShellOutput human = Engram("check", /*with_stderr=*/true);
    EXPECT_EQ(human.exit_code, 1);
    EXPECT_THAT(human.out, HasSubstr("DAMAGED"));
    EXPECT_THAT(human.out, HasSubstr("PROBLEMS FOUND"));
  }

  engram::testing::TempDir temp_dir_{"engram_damage_cli"};
  std::string store_;
  std::string second_turns_;
};

TEST_F(StoreDamageCliTest, AnIntactStorePassesCheck) {
  const ShellOutput check = Engram("--json check");
  ASSERT_EQ(check.exit_code, 0) << check.out;
  const json report = json::parse(check.out);
  EXPECT_EQ(report["ok"], true);
  EXPECT_EQ(report["backend"], "sqlite");
  EXPECT_EQ(report["file"]["check"], "integrity_check");
  EXPECT_EQ(report["file"]["ok"], true);
  EXPECT_THAT(report["file"]["problems"], IsEmpty());
  EXPECT_EQ(report["audit"]["ok"], true);
  ASSERT_EQ(report["audit"]["top_level_scopes"].size(), 1u);
  EXPECT_EQ(report["audit"]["top_level_scopes"][0]["scope"], "user:priya");
  // The scope's node and its turns at least.
  EXPECT_GE(report["audit"]["nodes"].get<int>(), kExampleTurns + 1);
  const ShellOutput human = Engram("check");
  EXPECT_EQ(human.exit_code, 0);
  EXPECT_THAT(human.out, HasSubstr("file       ok (integrity_check"));
  EXPECT_THAT(human.out, HasSubstr("audit      ok (1 scope"));
}

TEST_F(StoreDamageCliTest, AStoreOverwrittenInTheMiddleIsRefusedAndReported) {
  DamageTheMiddle();
  ExpectRefusedAndReported();
}

TEST_F(StoreDamageCliTest, ATruncatedStoreIsRefusedAndReported) {
  fs::resize_file(store_, fs::file_size(store_) / kPageBytes / 2 * kPageBytes);
  ASSERT_NE(SqliteIntegrityCheck(store_), "ok");
  ExpectRefusedAndReported();
}

TEST_F(StoreDamageCliTest, AFileThatIsNotSqliteIsRefusedAndReported) {
  std::ofstream(store_, std::ios::binary | std::ios::trunc)
      << std::string(3 * kPageBytes, 'x') << "\nnot a database\n";
  ExpectRefusedAndReported();
  const ShellOutput list = Engram("list --scope user:priya", /*with_stderr=*/true);
  EXPECT_THAT(list.out, HasSubstr("not a SQLite database"));
}

TEST_F(StoreDamageCliTest, CheckOfAMissingStoreIsNotFound) {
  const ShellOutput check =
      RunCli("--store '" + store_ + ".missing' check", /*with_stderr=*/true);
  EXPECT_EQ(check.exit_code, 3) << check.out;
  EXPECT_FALSE(fs::exists(store_ + ".missing"));
}

}  // namespace
}  // namespace engram
