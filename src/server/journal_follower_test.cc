// The journal follower: another engine's writes reach this engine's projections without a write
// here, and turns another engine acknowledged but left underived are taken up once the journal
// goes quiet.
#include "server/journal_follower.h"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "engram/engine.h"
#include "engram/testing/temp_dir.h"

namespace engram::server {
namespace {

using namespace std::chrono_literals;

class JournalFollowerTest : public ::testing::Test {
 protected:
  std::unique_ptr<Engine> Open(bool background_derivation) {
    EngineOptions options;
    options.store_path = dir_.path() + "/engram.db";
    options.config = Config{};
    options.config->embedder.kind = "hashing";  // vectors without the model files
    options.background_derivation = background_derivation;
    StatusOr<std::unique_ptr<Engine>> engine = Engine::Open(options);
    EXPECT_TRUE(engine.ok()) << engine.status();
    return engine.ok() ? std::move(engine).value() : nullptr;
  }

  static Turn MakeTurn(std::string text) {
    Turn turn;
    turn.speaker = "Ana";
    turn.session_id = "s1";
    turn.text = std::move(text);
    return turn;
  }

  // Polls `done` every 20 ms for at most 30 s (bounded: a broken follower fails, not hangs).
  template <typename Done>
  static bool Eventually(Done done) {
    for (int attempt = 0; attempt < 1500; ++attempt) {
      if (done()) return true;
      std::this_thread::sleep_for(20ms);
    }
    return done();
  }

  engram::testing::TempDir dir_{"engram_follower_test"};
};

TEST_F(JournalFollowerTest, TakesUpTurnsAnotherEngineAcknowledgedAndNeverDerived) {
  // The follower's engine opens first, so its own start-up resume finds nothing to do.
  std::unique_ptr<Engine> server = Open(/*background_derivation=*/true);
  ASSERT_NE(server, nullptr);
  const Scope scope = *Scope::Parse("user:ana");
  const Turn first = MakeTurn("I keep the spare keys in the blue drawer.");
  ASSERT_TRUE(server->Remember(scope, {&first, 1}).ok());

  // Another engine (a server about to be killed) acknowledges turns and never derives them.
  {
    std::unique_ptr<Engine> other = Open(/*background_derivation=*/false);
    ASSERT_NE(other, nullptr);
    const Turn turns[] = {MakeTurn("My sister Maya moved to Porto in May."),
                          MakeTurn("We adopted a greyhound called Pickle.")};
    StatusOr<RememberResult> written =
        other->Remember(scope, turns, {.wait = RememberWait::kIndexed});
    ASSERT_TRUE(written.ok()) << written.status();
    ASSERT_TRUE(written->derivation_pending);
  }
  StatusOr<DerivationStatus> before = server->Derivation();
  ASSERT_TRUE(before.ok()) << before.status();
  ASSERT_EQ(before->pending_turns, 2);

  JournalFollower follower(*server, {.poll_interval = 50ms});
  follower.Start();
  EXPECT_TRUE(Eventually([&] {
    StatusOr<DerivationStatus> now = server->Derivation();
    return now.ok() && now->pending_turns == 0;
  })) << "the pending turns were never derived";
  follower.Stop();
  EXPECT_GE(follower.stats().resumes, 1u);
  EXPECT_EQ(server->Derivation()->failures, 0);
  // Derived: the vector route finds a turn written by the other engine.
  StatusOr<ReadResult> found =
      server->Recall(scope, {.text = "Where did Maya move?"}, {.routes = {"vector"}});
  ASSERT_TRUE(found.ok()) << found.status();
  bool porto = false;
  for (const RecallItem& item : found->items) {
    porto = porto || item.text.find("Porto") != std::string::npos;
  }
  EXPECT_TRUE(porto);
}

TEST_F(JournalFollowerTest, CatchesUpAnotherEnginesWritesWithoutAWriteHere) {
  std::unique_ptr<Engine> server = Open(/*background_derivation=*/true);
  ASSERT_NE(server, nullptr);
  JournalFollower follower(*server, {.poll_interval = 50ms});
  follower.Start();
  // The other engine writes only once the follower has caught up and waits on the journal: a
  // write before its first catch-up would be applied by that catch-up, with no wakeup.
  ASSERT_TRUE(Eventually([&] { return follower.stats().catch_ups >= 1; }))
      << "the follower never caught up at start";
  const std::int64_t applied_before = follower.stats().applied_seq;
  {
    std::unique_ptr<Engine> other = Open(/*background_derivation=*/true);
    ASSERT_NE(other, nullptr);
    const Turn turn = MakeTurn("The boiler was serviced on Tuesday.");
    ASSERT_TRUE(other->Remember(*Scope::Parse("user:ana"), {&turn, 1}).ok());
  }
  EXPECT_TRUE(Eventually([&] {
    const FollowerStats stats = follower.stats();
    return stats.wakeups >= 1 && stats.applied_seq > applied_before;
  })) << "the follower never caught up";
  follower.Stop();
  EXPECT_EQ(follower.stats().errors, 0u);
}

}  // namespace
}  // namespace engram::server
