// The derivation worker's scheduling: captures come first (derive_worker.h). The worker runs here
// with every derivation stage off and no embedder, so a derived chunk only moves its scope's
// cursor; what is tested is when the worker takes the write lock, not what it derives (that is
// tests/integration/two_phase_test.cc).
#include "engine/derive_worker.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "engram/config.h"
#include "engram/testing/status_matchers.h"
#include "engram/testing/temp_dir.h"
#include "store/store.h"
#include "write/capture.h"
#include "write/derive.h"
#include "write/edge_registry.h"

namespace engram {
namespace {

using ::engram::testing::IsOk;
using ::engram::testing::StatusIs;
using ::testing::HasSubstr;

class DeriveWorkerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    StatusOr<std::unique_ptr<store::Store>> opened = store::OpenSqliteStore(dir_.File("e.db"));
    ASSERT_THAT(opened, IsOk());
    store_ = std::move(opened).value();
    WriteConfig off;
    off.signals = false;
    off.entities = false;
    off.facts = false;
    StatusOr<std::unique_ptr<write::Deriver>> deriver = write::Deriver::Open(off, dir_.path());
    ASSERT_THAT(deriver, IsOk());
    deriver_ = std::move(deriver).value();
  }

  // Stores `count` turns in scope "user:ana" as a non-blocking Remember's first phase does.
  void CaptureTurns(int count) {
    StatusOr<std::unique_ptr<store::Transaction>> txn = store_->BeginWrite();
    ASSERT_THAT(txn, IsOk());
    const Timestamp now = Timestamp::FromSeconds(1'700'000'000);
    StatusOr<store::ScopeRecord> scope =
        write::EnsureScope(**txn, *registry_, *Scope::Parse("user:ana"), now);
    ASSERT_THAT(scope, IsOk());
    std::vector<Turn> turns;
    std::vector<std::string> metadata;
    for (int turn_idx = 0; turn_idx < count; ++turn_idx) {
      turns.push_back(Turn{.speaker = "Ana", .text = "turn " + std::to_string(turn_idx)});
      metadata.push_back("{}");
    }
    StatusOr<RememberResult> captured =
        write::CaptureTurns(**txn, *registry_, *scope, turns, metadata, now);
    ASSERT_THAT(captured, IsOk());
    ASSERT_THAT(MarkPending(**txn, *scope, captured->first_sequence), IsOk());
    ASSERT_THAT((*txn)->Commit(), IsOk());
  }

  // Blocks until the worker has started waiting for a capture in flight (DeriveWorkerDeps::
  // on_yield), so a test knows the worker reached that point instead of sleeping for it.
  void WaitUntilYielding() {
    std::unique_lock lock(yield_mutex_);
    yield_cv_.wait(lock, [this] { return yielded_; });
  }

  DeriveWorkerDeps Deps(std::int64_t yield_backlog) {
    DeriveWorkerDeps deps;
    deps.on_yield = [this] {
      {
        std::lock_guard lock(yield_mutex_);
        yielded_ = true;
      }
      yield_cv_.notify_all();
    };
    deps.store = store_.get();
    deps.registry = registry_.get();
    deps.deriver = deriver_.get();
    deps.write_mutex = &write_mutex_;
    deps.yield_backlog = yield_backlog;
    return deps;
  }

  std::int64_t PendingTurns() {
    StatusOr<DeriveProgress> progress = DeriveWorker(Deps(0)).Progress();
    EXPECT_THAT(progress, IsOk());
    return progress.ok() ? progress->pending_turns : -1;
  }

  engram::testing::TempDir dir_{"engram_derive_worker_test"};
  std::unique_ptr<store::Store> store_;
  std::unique_ptr<write::EdgeRegistry> registry_ = write::EdgeRegistry::WithBuiltins();
  std::unique_ptr<write::Deriver> deriver_;
  std::mutex write_mutex_;
  std::mutex yield_mutex_;
  std::condition_variable yield_cv_;
  bool yielded_ = false;
};

TEST_F(DeriveWorkerTest, LeavesTheWriteLockToACaptureInFlight) {
  CaptureTurns(3);
  ASSERT_EQ(PendingTurns(), 3);
  DeriveWorker worker(Deps(/*yield_backlog=*/1'000));
  worker.CaptureStarted();
  worker.Notify();
  // The worker has found the work and waits for the capture: it derived nothing before it.
  WaitUntilYielding();
  EXPECT_EQ(PendingTurns(), 3);
  worker.CaptureFinished(0);
  ASSERT_THAT(worker.WaitIdle(), IsOk());
  EXPECT_EQ(PendingTurns(), 0);
}

TEST_F(DeriveWorkerTest, DerivesOnceTheBacklogIsReachedEvenWhileCapturesGoOn) {
  CaptureTurns(3);
  DeriveWorker worker(Deps(/*yield_backlog=*/3));
  worker.CaptureStarted();
  worker.CaptureFinished(3);  // the capture above: three turns to derive, the backlog
  worker.CaptureStarted();    // and another capture in flight through the whole wait
  ASSERT_THAT(worker.WaitIdle(), IsOk());
  EXPECT_EQ(PendingTurns(), 0);
  worker.CaptureFinished(0);
}

TEST_F(DeriveWorkerTest, BelowTheBacklogACaptureInFlightHoldsTheWorkerBack) {
  CaptureTurns(3);
  DeriveWorker worker(Deps(/*yield_backlog=*/4));
  worker.CaptureStarted();
  worker.CaptureFinished(3);
  worker.CaptureStarted();
  worker.Notify();
  WaitUntilYielding();
  EXPECT_EQ(PendingTurns(), 3);
  worker.CaptureFinished(0);
  ASSERT_THAT(worker.WaitIdle(), IsOk());
  EXPECT_EQ(PendingTurns(), 0);
}

TEST_F(DeriveWorkerTest, WithoutABacklogTheWorkerNeverYields) {
  CaptureTurns(2);
  DeriveWorker worker(Deps(/*yield_backlog=*/0));
  worker.CaptureStarted();
  ASSERT_THAT(worker.WaitIdle(), IsOk());
  EXPECT_EQ(PendingTurns(), 0);
  worker.CaptureFinished(0);
}

TEST_F(DeriveWorkerTest, ClosingWhileYieldingKeepsThePendingTurns) {
  CaptureTurns(2);
  {
    DeriveWorker worker(Deps(/*yield_backlog=*/1'000));
    worker.CaptureStarted();
    worker.Notify();
    WaitUntilYielding();
  }  // the destructor stops the worker while it waits for the capture
  EXPECT_EQ(PendingTurns(), 2);
}

// Back-pressure ([write] max_pending_turns): Admit refuses at the limit, the progress reports the
// backlog, and once the backlog is derived writes are admitted again.
TEST_F(DeriveWorkerTest, AdmitRefusesAtTheLimitUntilTheBacklogIsDerived) {
  DeriveWorkerDeps deps = Deps(/*yield_backlog=*/0);
  deps.background = false;  // WaitIdle derives in this thread
  deps.max_pending_turns = 5;
  DeriveWorker worker(deps);
  EXPECT_THAT(worker.Admit(), IsOk());
  worker.CaptureStarted();
  CaptureTurns(4);
  worker.CaptureFinished(4);
  EXPECT_THAT(worker.Admit(), IsOk());  // 4 pending, under 5
  worker.CaptureStarted();
  CaptureTurns(3);
  worker.CaptureFinished(3);
  const Status refused = worker.Admit();  // 7 pending
  EXPECT_THAT(refused, StatusIs(StatusCode::kUnavailable));
  EXPECT_THAT(refused.message(), HasSubstr("7 turns await derivation"));
  EXPECT_THAT(refused.message(), HasSubstr("[write] max_pending_turns = 5"));
  EXPECT_EQ(RetryAfterSeconds(refused), 1);  // nothing derived yet: the least hint
  StatusOr<DeriveProgress> progress = worker.Progress();
  ASSERT_THAT(progress, IsOk());
  EXPECT_EQ(progress->pending_turns, 7);
  EXPECT_EQ(progress->pending_scopes, 1u);
  EXPECT_EQ(progress->derived_turns, 0);
  EXPECT_EQ(progress->refused_writes, 1);
  EXPECT_EQ(progress->max_pending_turns, 5);

  ASSERT_THAT(worker.WaitIdle(), IsOk());
  EXPECT_THAT(worker.Admit(), IsOk());
  progress = worker.Progress();
  ASSERT_THAT(progress, IsOk());
  EXPECT_EQ(progress->pending_turns, 0);
  EXPECT_EQ(progress->pending_scopes, 0u);
  EXPECT_EQ(progress->derived_turns, 7);
  EXPECT_EQ(progress->refused_writes, 1);
}

TEST_F(DeriveWorkerTest, AdmitCountsTurnsPendingBeforeTheEngineOpenedOnceItReadsTheStore) {
  CaptureTurns(6);  // left by an earlier engine
  DeriveWorkerDeps deps = Deps(/*yield_backlog=*/0);
  deps.background = false;
  deps.max_pending_turns = 5;
  DeriveWorker worker(deps);
  ASSERT_THAT(worker.Progress(), IsOk());  // what the engine does when it opens
  EXPECT_THAT(worker.Admit(), StatusIs(StatusCode::kUnavailable));
  // Without a limit nothing is refused.
  DeriveWorkerDeps unbounded = Deps(/*yield_backlog=*/0);
  unbounded.background = false;
  DeriveWorker open_worker(unbounded);
  ASSERT_THAT(open_worker.Progress(), IsOk());
  EXPECT_THAT(open_worker.Admit(), IsOk());
}

TEST(RetryAfterSecondsTest, ReadsTheHintOfAnUnavailableStatusOnly) {
  EXPECT_EQ(RetryAfterSeconds(Status::Unavailable("write refused: x; retry after 12 s")), 12);
  EXPECT_EQ(RetryAfterSeconds(Status::Internal("write refused: x; retry after 12 s")),
            std::nullopt);
  EXPECT_EQ(RetryAfterSeconds(Status::Unavailable("store not readable")), std::nullopt);
  EXPECT_EQ(RetryAfterSeconds(Status::Unavailable("x; retry after 0 s")), std::nullopt);
  EXPECT_EQ(RetryAfterSeconds(Status::Unavailable("x; retry after 3 seconds")), std::nullopt);
}

}  // namespace
}  // namespace engram
