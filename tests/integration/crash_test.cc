// Crash safety: kill -9 a process in the middle of a long ingest, reopen the store, and check
// that it is consistent, that every acknowledged batch is there in full, that no batch is there
// in part, and that the index rebuilt from the store answers like the live one.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <map>
#include <string>

#include "engram/engine.h"
#include "engram/testing/status_matchers.h"
#include "test_util.h"

namespace engram {
namespace {

using ::engram::testing::IsOk;

constexpr int kBatchSize = 25;

TEST(CrashTest, KillDuringIngestLosesNoAcknowledgedBatch) {
  testing::TempDir dir;
  const std::string store_path = dir.File("crash.db");
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    dup2(pipe_fds[1], STDOUT_FILENO);
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    execl(ENGRAM_CRASH_WRITER_PATH, ENGRAM_CRASH_WRITER_PATH, store_path.c_str(),
          std::to_string(kBatchSize).c_str(), "100000", static_cast<char*>(nullptr));
    _exit(127);
  }
  close(pipe_fds[1]);
  FILE* acks = fdopen(pipe_fds[0], "r");
  ASSERT_NE(acks, nullptr);
  int last_ack = -1;
  char line[64];
  // Let it acknowledge a good number of batches, then kill it mid-flight.
  while (last_ack < 40 && std::fgets(line, sizeof(line), acks) != nullptr) {
    std::sscanf(line, "ack %d", &last_ack);
  }
  ASSERT_EQ(kill(child, SIGKILL), 0);
  // Acks already written before the kill count as acknowledged too.
  while (std::fgets(line, sizeof(line), acks) != nullptr) std::sscanf(line, "ack %d", &last_ack);
  std::fclose(acks);
  int wait_status = 0;
  ASSERT_EQ(waitpid(child, &wait_status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(wait_status)) << "writer ended before it was killed";
  ASSERT_GE(last_ack, 40);

  EngineOptions options;
  options.store_path = store_path;
  options.create_if_missing = false;
  std::unique_ptr<Engine> engine = testing::OpenOrDie(options);
  const Scope scope(ScopeKind::kWorld, "crash");
  StatusOr<std::vector<Memory>> memories = engine->List(scope, {.limit = 1000000});
  ASSERT_THAT(memories, IsOk());
  std::map<std::string, int> per_batch;
  std::int64_t expected_sequence = 1;
  for (const Memory& memory : *memories) {
    EXPECT_EQ(memory.sequence, expected_sequence++) << "sequence numbers have a gap";
    ++per_batch[memory.session_id];
  }
  // Every acknowledged batch is complete; no batch is partial.
  for (int batch = 0; batch <= last_ack; ++batch) {
    EXPECT_EQ(per_batch["batch-" + std::to_string(batch)], kBatchSize) << "batch " << batch;
  }
  for (const auto& [session, count] : per_batch) EXPECT_EQ(count, kBatchSize) << session;
  EXPECT_EQ(memories->size() % kBatchSize, 0u);

  // The index answers the same before and after a rebuild from the store.
  const std::string query = "crashword" + std::to_string(last_ack);
  StatusOr<ReadResult> before =
      engine->Recall(scope, {.text = query}, {.k = 50, .routes = {"bm25"}});
  ASSERT_THAT(before, IsOk());
  EXPECT_EQ(before->items.size(), static_cast<std::size_t>(kBatchSize));
  StatusOr<RebuildReport> report = engine->RebuildIndex();
  ASSERT_THAT(report, IsOk());
  EXPECT_TRUE(report->matched_live_index);
  EXPECT_EQ(report->documents, memories->size());
  StatusOr<ReadResult> after =
      engine->Recall(scope, {.text = query}, {.k = 50, .routes = {"bm25"}});
  ASSERT_THAT(after, IsOk());
  EXPECT_EQ(testing::ItemIds(*before), testing::ItemIds(*after));
  // The store accepts writes again.
  EXPECT_THAT(engine->Remember(scope, std::vector<Turn>{testing::MakeTurn("w", "after the crash")}), IsOk());
}

}  // namespace
}  // namespace engram
