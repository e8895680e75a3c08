// Damaged SQLite store files (docs/RELIABILITY.md, "Damaged stores"): the open-time check
// (store/sqlite/integrity.h) refuses them with kCorruption naming the file, both its forms find
// damage SQLite's own integrity_check finds, an intact store passes both, and a store whose
// reads met damage refuses writes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>

#include "engram/testing/status_matchers.h"
#include "engram/testing/temp_dir.h"
#include "store/sqlite/connection.h"
#include "store/sqlite/integrity.h"
#include "store/store.h"

namespace engram::store::sqlite {
namespace {

using ::engram::testing::IsOk;
using ::engram::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

constexpr std::size_t kPageBytes = 4096;  // SQLite's default page size, which the store keeps

// A raw sqlite3 connection, behind the store's back.
class RawDb {
 public:
  explicit RawDb(const std::string& path) { EXPECT_EQ(sqlite3_open(path.c_str(), &db_), SQLITE_OK); }
  ~RawDb() { sqlite3_close(db_); }
  RawDb(const RawDb&) = delete;
  RawDb& operator=(const RawDb&) = delete;

  int Exec(const std::string& sql) { return sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, nullptr); }

  // The first column of the first row as text; "" when there is none or the query fails.
  std::string QueryText(const std::string& sql) {
    sqlite3_stmt* stmt = nullptr;
    std::string value;
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &stmt, nullptr) == SQLITE_OK &&
        sqlite3_step(stmt) == SQLITE_ROW) {
      const unsigned char* text = sqlite3_column_text(stmt, 0);
      if (text != nullptr) value = reinterpret_cast<const char*>(text);
    }
    sqlite3_finalize(stmt);
    return value;
  }

 private:
  sqlite3* db_ = nullptr;
};

// SQLite's own verdict on the file: "ok" or its first problem.
std::string IntegrityCheck(const std::string& path) {
  RawDb raw(path);
  const std::string verdict = raw.QueryText("PRAGMA integrity_check");
  return verdict.empty() ? "error" : verdict;
}

void OverwritePage(const std::string& path, std::uint64_t page_number) {
  std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
  file.seekp(static_cast<std::streamoff>((page_number - 1) * kPageBytes));
  std::string garbage(kPageBytes, '\0');
  for (std::size_t byte_idx = 0; byte_idx < garbage.size(); ++byte_idx) {
    garbage[byte_idx] = static_cast<char>((byte_idx * 131 + 7) % 251);
  }
  file.write(garbage.data(), static_cast<std::streamsize>(garbage.size()));
}

class SqliteDamageTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = dir_.path() + "/engram.db";
    // A store with 3,000 rows of a few hundred bytes in nodes and journal: some 200 pages.
    {
      StatusOr<std::unique_ptr<Store>> store = OpenSqliteStore(path_);
      ASSERT_THAT(store, IsOk());
    }
    RawDb raw(path_);
    ASSERT_EQ(raw.Exec("INSERT INTO scopes(node_id, path, created_at) VALUES ('s', 'user:a', 0)"),
              SQLITE_OK);
    ASSERT_EQ(raw.Exec("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n "
                       "WHERE i < 3000) "
                       "INSERT INTO nodes(id, kind, scope_id, content_json, text, role, speaker, "
                       "session_id, sequence, metadata_json, status, ingested_at, updated_at) "
                       "SELECT printf('%032x', i), 'turn', 1, '', printf('turn %d ', i) || "
                       "hex(randomblob(120)), 'user', 'ann', '', i, '{}', 'active', i, i FROM n"),
              SQLITE_OK);
    ASSERT_EQ(raw.Exec("INSERT INTO journal(scope_id, op, target_id, target_row, at, detail) "
                       "SELECT 1, 'node_inserted', id, row_id, 0, hex(randomblob(60)) FROM nodes"),
              SQLITE_OK);
    ASSERT_EQ(raw.Exec("PRAGMA wal_checkpoint(TRUNCATE)"), SQLITE_OK);
  }

  std::uint64_t PageCount() const { return std::filesystem::file_size(path_) / kPageBytes; }

  // Overwrites one page in the middle of the file that SQLite's integrity_check then finds
  // damaged (a free page holds nothing to damage), looking at most 32 pages past the middle.
  void DamageTheMiddle() {
    const std::uint64_t middle = PageCount() / 2;
    const std::string intact = path_ + ".intact";
    std::filesystem::copy_file(path_, intact);
    for (std::uint64_t page = middle; page < middle + 32; ++page) {
      OverwritePage(path_, page);
      if (IntegrityCheck(path_) != "ok") return;
      std::filesystem::copy_file(intact, path_, std::filesystem::copy_options::overwrite_existing);
    }
    FAIL() << "no page from " << middle << " on is one integrity_check misses when damaged";
  }

  std::uint64_t RootPageOf(const std::string& table) {
    RawDb raw(path_);
    return std::stoull(raw.QueryText("SELECT rootpage FROM sqlite_schema WHERE name = '" + table +
                                     "'"));
  }

  StatusOr<IntegrityReport> CheckOpen(std::uint64_t file_bytes) {
    ASSIGN_OR_RETURN(std::unique_ptr<Connection> connection,
                     Connection::Open(path_, SQLITE_OPEN_READONLY, 5000));
    return CheckAtOpen(*connection, file_bytes, /*seed=*/7);
  }

  engram::testing::TempDir dir_{"engram_damage"};
  std::string path_;
};

TEST_F(SqliteDamageTest, BothOpenChecksPassAnIntactStore) {
  ASSERT_EQ(IntegrityCheck(path_), "ok");
  StatusOr<IntegrityReport> quick = CheckOpen(StoreFileBytes(path_));
  ASSERT_THAT(quick, IsOk());
  EXPECT_EQ(quick->check, IntegrityCheck::kQuick);
  EXPECT_THAT(quick->problems, IsEmpty());
  StatusOr<IntegrityReport> sampled = CheckOpen(kQuickCheckMaxBytes + 1);
  ASSERT_THAT(sampled, IsOk());
  EXPECT_EQ(sampled->check, IntegrityCheck::kSampled);
  EXPECT_THAT(sampled->problems, IsEmpty());
  // Every probe of nodes and journal found its row, and every index entry of it.
  EXPECT_GE(sampled->probes, 2 * kProbesPerBtree);
  EXPECT_THAT(OpenSqliteStore(path_), IsOk());
}

TEST_F(SqliteDamageTest, APageOverwrittenInTheMiddleIsCorruptionNamingTheFileAndWhatToDo) {
  DamageTheMiddle();
  const StatusOr<std::unique_ptr<Store>> store = OpenSqliteStore(path_);
  EXPECT_THAT(store, StatusIs(StatusCode::kCorruption,
                              AllOf(HasSubstr(path_), HasSubstr("is damaged"),
                                    HasSubstr("quick_check"), HasSubstr("engram check"),
                                    HasSubstr("backup"))));
  StatusOr<IntegrityReport> full = CheckStoreFile(path_, 5000);
  ASSERT_THAT(full, IsOk());
  EXPECT_EQ(full->check, IntegrityCheck::kFull);
  EXPECT_THAT(full->problems, Not(IsEmpty()));
}

TEST_F(SqliteDamageTest, TheSampledCheckFindsADamagedInteriorPage) {
  // Every probe of the nodes table passes through its root page.
  OverwritePage(path_, RootPageOf("nodes"));
  ASSERT_NE(IntegrityCheck(path_), "ok");
  StatusOr<IntegrityReport> sampled = CheckOpen(kQuickCheckMaxBytes + 1);
  ASSERT_THAT(sampled, IsOk());
  EXPECT_EQ(sampled->check, IntegrityCheck::kSampled);
  EXPECT_THAT(sampled->problems, Not(IsEmpty()));
}

TEST_F(SqliteDamageTest, TheSampledCheckFindsADamagedIndex) {
  OverwritePage(path_, RootPageOf("nodes_by_id"));
  ASSERT_NE(IntegrityCheck(path_), "ok");
  StatusOr<IntegrityReport> sampled = CheckOpen(kQuickCheckMaxBytes + 1);
  ASSERT_THAT(sampled, IsOk());
  EXPECT_THAT(sampled->problems, Not(IsEmpty()));
}

TEST_F(SqliteDamageTest, ATruncatedStoreIsCorruption) {
  std::filesystem::resize_file(path_, (PageCount() / 2) * kPageBytes);
  EXPECT_THAT(OpenSqliteStore(path_),
              StatusIs(StatusCode::kCorruption, AllOf(HasSubstr(path_), HasSubstr("damaged"))));
  std::filesystem::resize_file(path_, 60);  // inside the header
  EXPECT_THAT(OpenSqliteStore(path_),
              StatusIs(StatusCode::kCorruption, AllOf(HasSubstr(path_), HasSubstr("truncated"))));
}

TEST_F(SqliteDamageTest, AFileThatIsNotSqliteIsCorruptionAndLeftAsItWas) {
  const std::string text = "name,city\nann,Lisbon\n";
  std::ofstream(path_, std::ios::binary | std::ios::trunc) << text;
  EXPECT_THAT(OpenSqliteStore(path_),
              StatusIs(StatusCode::kCorruption,
                       AllOf(HasSubstr(path_), HasSubstr("not a SQLite database"))));
  std::ifstream in(path_, std::ios::binary);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), text);
  StatusOr<IntegrityReport> full = CheckStoreFile(path_, 5000);
  ASSERT_THAT(full, IsOk());
  EXPECT_EQ(full->check, IntegrityCheck::kHeader);
  EXPECT_THAT(full->problems, Not(IsEmpty()));
}

TEST_F(SqliteDamageTest, AStoreWhoseReadMetDamageRefusesWrites) {
  StatusOr<std::unique_ptr<Store>> store = OpenSqliteStore(path_);
  ASSERT_THAT(store, IsOk());
  // Damaged after the open's check: the next read of the nodes table (on a read connection that
  // has not cached its pages) meets the damage.
  OverwritePage(path_, RootPageOf("nodes"));
  StatusOr<std::optional<ScopeRecord>> scope = (*store)->FindScope("user:a");
  ASSERT_THAT(scope, IsOk());
  ASSERT_TRUE(scope->has_value());
  // By id: the id index, then a descent of the nodes table from its root.
  EXPECT_THAT((*store)->GetNode(std::string(31, '0') + "1"), StatusIs(StatusCode::kCorruption));
  EXPECT_THAT((*store)->BeginWrite(),
              StatusIs(StatusCode::kCorruption, AllOf(HasSubstr(path_), HasSubstr("damaged"))));
  const std::int64_t scope_ids[] = {(*scope)->scope_id};
  EXPECT_THAT((*store)->EraseScopes(scope_ids), StatusIs(StatusCode::kCorruption));
}

}  // namespace
}  // namespace engram::store::sqlite
