// JournalFollower: keeps one server's projections current with a store that other servers write
// too (the shared deployment on PostgreSQL, DESIGN §10).
//
//   JournalFollower follower(engine, {.poll_interval = std::chrono::milliseconds(1000)});
//   follower.Start();   // a thread: wait for the journal to move, catch the projections up
//   ...
//   follower.Stop();    // (also on destruction) returns within ~100 ms
//
// The loop waits in Engine::WaitForJournal (PostgreSQL: LISTEN, woken by the NOTIFY each write
// transaction sends at commit; SQLite: polled) for at most `poll_interval`, and whenever the
// journal's last seq moved past the one it applied, calls Engine::CatchUp, which reads the
// journal — the truth; the notification is only a hint — and applies it to the loaded scopes'
// BM25, layout and vector projections. A recall then finds the projections current and does not
// pay the catch-up itself (it still checks the journal's last seq, and catches up when the
// follower has not yet: a write acknowledged by another server is always visible to the next
// recall here, the follower only moves the cost off the read path).
//
// Turns another server acknowledged but never derived (it was killed between the two phases)
// would wait for this server's next write: when a wait ends with the journal quiet (nothing
// committed for a whole `poll_interval`) and the store still holds pending turns, the follower
// wakes this engine's derivation worker (Engine::ResumeDerivation). A server that is deriving
// moves the journal with every chunk, so a quiet journal means nobody is; if two servers still
// meet on one chunk, the second finds the cursor moved inside its write transaction and
// derives nothing twice.
//
// A store error (the server restarting, a lost connection) is counted and reported through
// `on_error` once per outage; the loop retries after `poll_interval` and reports the recovery.
//
// Thread-safety: Start and Stop from one thread; stats() from any.
#ifndef ENGRAM_SERVER_JOURNAL_FOLLOWER_H_
#define ENGRAM_SERVER_JOURNAL_FOLLOWER_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>

#include "engram/engine.h"
#include "engram/status.h"

namespace engram::server {

struct FollowerOptions {
  // The longest wait between two checks of the journal when nothing wakes the follower
  // ([store] follow_poll_ms). Default: 1000 ms.
  std::chrono::milliseconds poll_interval{1000};
  // Called from the follower's thread when a wait or catch-up fails after a success (`status`
  // not ok) and when it succeeds again after a failure (`status` ok). Default: none.
  std::function<void(const Status& status)> on_error;
};

struct FollowerStats {
  std::uint64_t wakeups = 0;     // waits that returned a journal seq past the applied one
  std::uint64_t catch_ups = 0;   // successful Engine::CatchUp calls
  std::uint64_t errors = 0;      // failed waits or catch-ups
  std::uint64_t resumes = 0;     // quiet waits after which pending derivations were taken up
  std::int64_t applied_seq = -1;  // the last journal seq the projections applied (-1: none yet)
};

class JournalFollower {
 public:
  JournalFollower(Engine& engine, FollowerOptions options);
  ~JournalFollower();  // Stop()
  JournalFollower(const JournalFollower&) = delete;
  JournalFollower& operator=(const JournalFollower&) = delete;

  // Starts the thread (once).
  void Start();
  // Asks the thread to stop and joins it. Repeatable.
  void Stop();

  FollowerStats stats() const;

 private:
  void Run(std::stop_token stop);

  Engine& engine_;
  const FollowerOptions options_;
  mutable std::mutex stats_mutex_;
  FollowerStats stats_;  // guarded by stats_mutex_
  std::jthread thread_;
};

}  // namespace engram::server

#endif  // ENGRAM_SERVER_JOURNAL_FOLLOWER_H_
