// Several writers on one SQLite store file (issue 37, "database is locked"): each store object
// has its own connections, so they contend for SQLite's file lock as processes do. SQLite's busy
// handler polls, and a writer that commits and begins again at once takes the lock ahead of one
// asleep in the handler; BeginWrite keeps waiting while other writers commit, and gives up
// (kUnavailable) only after a whole busy timeout in which nobody did.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "engram/testing/status_matchers.h"
#include "engram/testing/temp_dir.h"
#include "store/store.h"

namespace engram::store {
namespace {

using ::engram::testing::IsOk;
using ::engram::testing::StatusIs;

constexpr int kWriters = 3;
constexpr int kTransactionsPerWriter = 40;

TEST(SqliteWritersTest, BackToBackWritersNeverStarveAnotherPastItsBusyTimeout) {
  engram::testing::TempDir dir{"engram_writers"};
  const std::string path = dir.path() + "/engram.db";
  // A busy timeout a few transactions long: without waiting on while others commit, the writer
  // that keeps losing the lock to back-to-back writers runs out of it.
  const SqliteOptions options{.durable_commits = false, .busy_timeout_ms = 100};
  std::vector<std::unique_ptr<Store>> stores;
  for (int writer_idx = 0; writer_idx < kWriters; ++writer_idx) {
    StatusOr<std::unique_ptr<Store>> store = OpenSqliteStore(path, options);
    ASSERT_THAT(store, IsOk());
    stores.push_back(*std::move(store));
  }
  std::vector<Status> failures(kWriters);
  std::vector<std::thread> threads;
  for (int writer_idx = 0; writer_idx < kWriters; ++writer_idx) {
    threads.emplace_back([&, writer_idx] {
      for (int txn_idx = 0; txn_idx < kTransactionsPerWriter; ++txn_idx) {
        const Status written = [&]() -> Status {
          ASSIGN_OR_RETURN(std::unique_ptr<Transaction> txn, stores[writer_idx]->BeginWrite());
          RETURN_IF_ERROR(txn->SetMeta(
              "engine.test.writer" + std::to_string(writer_idx) + "." + std::to_string(txn_idx), "x"));
          // Holds the lock as a derivation chunk does, then commits and begins again at once.
          std::this_thread::sleep_for(std::chrono::milliseconds(15));
          return txn->Commit();
        }();
        if (!written.ok()) {
          failures[writer_idx] = written;
          return;
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int writer_idx = 0; writer_idx < kWriters; ++writer_idx) {
    EXPECT_THAT(failures[writer_idx], IsOk()) << "writer " << writer_idx;
  }
  StatusOr<std::vector<std::pair<std::string, std::string>>> written = stores[0]->ListMeta("engine.test.");
  ASSERT_THAT(written, IsOk());
  EXPECT_EQ(written->size(), static_cast<std::size_t>(kWriters * kTransactionsPerWriter));
}

TEST(SqliteWritersTest, AWriterHoldingTheLockWithoutCommittingMakesOthersUnavailable) {
  engram::testing::TempDir dir{"engram_writers"};
  const std::string path = dir.path() + "/engram.db";
  const SqliteOptions options{.busy_timeout_ms = 50};
  StatusOr<std::unique_ptr<Store>> holder = OpenSqliteStore(path, options);
  ASSERT_THAT(holder, IsOk());
  StatusOr<std::unique_ptr<Store>> waiter = OpenSqliteStore(path, options);
  ASSERT_THAT(waiter, IsOk());
  StatusOr<std::unique_ptr<Transaction>> held = (*holder)->BeginWrite();
  ASSERT_THAT(held, IsOk());
  EXPECT_THAT((*waiter)->BeginWrite(), StatusIs(StatusCode::kUnavailable));
}

}  // namespace
}  // namespace engram::store
