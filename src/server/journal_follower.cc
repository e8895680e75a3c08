// The journal follower of `engram serve` (see journal_follower.h).
#include "server/journal_follower.h"

#include <algorithm>
#include <condition_variable>
#include <utility>

namespace engram::server {

JournalFollower::JournalFollower(Engine& engine, FollowerOptions options)
    : engine_(engine), options_(std::move(options)) {}

JournalFollower::~JournalFollower() { Stop(); }

void JournalFollower::Start() {
  if (thread_.joinable()) return;
  thread_ = std::jthread([this](std::stop_token stop) { Run(std::move(stop)); });
}

void JournalFollower::Stop() {
  if (!thread_.joinable()) return;
  thread_.request_stop();
  thread_.join();
}

FollowerStats JournalFollower::stats() const {
  std::lock_guard<std::mutex> lock(stats_mutex_);
  return stats_;
}

void JournalFollower::Run(std::stop_token stop) {
  bool failing = false;
  // Reports a failure once per outage, and the recovery.
  const auto outcome = [&](const Status& status) {
    if (!status.ok()) {
      std::lock_guard<std::mutex> lock(stats_mutex_);
      ++stats_.errors;
    }
    if (status.ok() == !failing) return;
    failing = !status.ok();
    if (options_.on_error) options_.on_error(status);
  };
  // Sleeps `duration` unless a stop is requested first.
  const auto pause = [&](std::chrono::milliseconds duration) {
    std::mutex mutex;
    std::condition_variable_any woken;
    std::unique_lock<std::mutex> lock(mutex);
    woken.wait_for(lock, stop, duration, [] { return false; });
  };

  // The journal seq the projections are current with, and the last one a wait saw (the
  // projections may report less, e.g. on an empty journal: waiting from `seen` keeps the loop
  // from spinning on such a difference).
  std::int64_t applied = -1;
  std::int64_t seen = -1;
  bool caught_up = false;  // whether `applied` is current as of the last wait
  while (!stop.stop_requested()) {
    if (!caught_up) {
      StatusOr<std::int64_t> seq = engine_.CatchUp();
      outcome(seq.status());
      if (!seq.ok()) {
        pause(options_.poll_interval);
        continue;
      }
      applied = std::max(*seq, seen);
      caught_up = true;
      std::lock_guard<std::mutex> lock(stats_mutex_);
      ++stats_.catch_ups;
      stats_.applied_seq = applied;
    }
    StatusOr<std::int64_t> last = engine_.WaitForJournal(applied, options_.poll_interval, stop);
    outcome(last.status());
    if (!last.ok()) {
      pause(options_.poll_interval);
      continue;
    }
    if (*last > applied) {
      seen = *last;
      caught_up = false;
      std::lock_guard<std::mutex> lock(stats_mutex_);
      ++stats_.wakeups;
    } else if (!stop.stop_requested()) {
      // A quiet journal: derivations left pending by a server that stopped are nobody's.
      StatusOr<DerivationStatus> derivation = engine_.Derivation();
      outcome(derivation.status());
      if (derivation.ok() && derivation->pending_turns > 0) {
        engine_.ResumeDerivation();
        std::lock_guard<std::mutex> lock(stats_mutex_);
        ++stats_.resumes;
      }
    }
  }
}

}  // namespace engram::server
