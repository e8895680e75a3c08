// The second phase of a write (DESIGN §4): embedding and derivation of turns that Remember has
// already made durable and searchable by BM25.
//
// A non-blocking Remember commits its turns and a cursor in the store's meta table, in the same
// transaction: `engine.derive.<scope node id>` = the highest sequence number of the scope whose
// turns are derived. Turns after the cursor are pending. The cursor is the only record of
// pending work, so a crash between the phases loses nothing: the next engine to open the store
// (or another server sharing a PostgreSQL store) finds the cursor and resumes. The key is the
// scope's node id, not its row number, so a scope created after an erase never inherits a stale
// cursor; a cursor whose scope is gone is removed.
//
// The worker derives in the order a synchronous run would: scope by scope (scopes do not read
// each other's derivations), each scope's turns in sequence order, in chunks of turns captured
// at the same instant (one Remember call, or several at the same clock reading), with the
// capture's own time as "now". So the derived nodes and edges do not depend on when the worker
// runs: they are the ones a synchronous Remember writes (tests/integration/two_phase_test.cc).
// Byte for byte (row numbers, the journal's order, the Merkle logs) the store is the
// synchronous one when each capture's derivation commits before the next capture, as it does
// when the worker keeps up; when captures overtake it, rows are numbered and logged in the order
// they were committed — later turns before earlier derivations — which no worker can undo
// without holding writes back until the derivation is done (a synchronous write). Two runs with
// the same interleaving give the same bytes.
//
// Captures come first. The write lock is shared with Remember's first phase, and a chunk holds it
// for the whole derivation of its turns, so a capture arriving meanwhile would wait for work it
// did not ask for. The engine tells the worker when a capture begins and ends
// (CaptureStarted / CaptureFinished); before the worker embeds a chunk (the encoder would take
// the cores from the captures) and again before it takes the lock for it, it waits while a
// capture is in flight or one ended less than `capture_quiet` ago — captures streaming in (an
// import, a busy server) are acknowledged at the speed of the capture alone and derived when
// they pause. The wait ends once `yield_backlog` turns await derivation (the turns this engine
// captured and has not derived yet), so under a stream that never pauses derivation lags by at
// most about that many turns, and the two then take turns on the lock.
//
// One chunk: read the cursor and the pending turns (committed reads), yield to captures, embed
// the turns with no lock held, yield to captures again, then take the engine's write mutex and
// the store's write transaction, re-read the cursor and the pending turns inside it (another
// engine on the same PostgreSQL store may have derived them meanwhile: then the chunk is dropped
// and planned again), store the vectors, derive, advance the cursor (or remove it when no turn
// is left), commit. Each transaction covers one chunk, so writers and the worker take turns on
// the write lock.
//
//   DeriveWorker worker(deps);
//   worker.Start();   // resumes pending work found in the store
//   ... Remember commits turns with MarkPending, then worker.Notify() ...
//   RETURN_IF_ERROR(worker.WaitIdle());  // everything derived, or the worker's error
//
// Thread-safety: Notify, WaitIdle and status may be called from any thread. DrainScopeLocked and
// DrainAllLocked run a drain in the calling thread and require the caller to hold
// deps.write_mutex. The destructor stops the thread between two chunks (an open chunk is rolled
// back) and joins it; pending work stays recorded in the store.
#ifndef ENGRAM_ENGINE_DERIVE_WORKER_H_
#define ENGRAM_ENGINE_DERIVE_WORKER_H_

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "embed/embedder.h"
#include "engram/status.h"
#include "engram/types.h"
#include "store/store.h"
#include "write/derive.h"
#include "write/edge_registry.h"

namespace engram {

// Turns derived per transaction at most. Small enough that a writer waits at most one chunk for
// the write lock; large enough that the encoder gets useful batches.
inline constexpr std::size_t kDeriveChunkTurns = 64;

// Turns awaiting derivation past which the worker stops yielding the write lock to captures.
// At the built-in encoder's ~2 ms of CPU a derived turn on the target machine this is a lag of
// about ten seconds of derivation.
inline constexpr std::int64_t kDeriveYieldBacklog = 5'000;

// The meta key of a scope's derivation cursor.
std::string DeriveCursorKey(std::string_view scope_node_id);

// Inside the capture's transaction: records that the scope's turns from `first_sequence` on
// await derivation (keeps an existing, lower cursor). Call it only for turns this transaction
// stored.
Status MarkPending(store::Transaction& txn, const store::ScopeRecord& scope,
                   std::int64_t first_sequence);

// What the worker needs from the engine.
struct DeriveWorkerDeps {
  store::Store* store = nullptr;
  const write::EdgeRegistry* registry = nullptr;
  const write::Deriver* deriver = nullptr;
  // The engine's write mutex: held around every write transaction of the worker.
  std::mutex* write_mutex = nullptr;
  // The store's embedder model id; "none" = no vectors.
  std::string model_id = "none";
  // The turns' vectors (EmbeddingText of each), aligned with the texts.
  std::function<StatusOr<std::vector<std::vector<float>>>(std::span<const std::string>)> embed;
  // The embedder for the resolver's embedding tier; nullptr without one.
  std::function<StatusOr<embed::Embedder*>()> resolver_embedder;
  // Called after each commit, with write_mutex held (projection catch-up).
  std::function<void()> after_commit;
  // False: no thread; WaitIdle derives in the calling thread (EngineOptions::
  // background_derivation).
  bool background = true;
  // Captures come first (see the top of this file): the worker yields the write lock to captures
  // while fewer than this many turns await derivation; 0 = never yields.
  std::int64_t yield_backlog = kDeriveYieldBacklog;
  // How long after a capture ends the worker still leaves the lock to the next one.
  std::chrono::milliseconds capture_quiet{2};
  // Called each time the worker starts waiting for a capture in flight (with the worker's own
  // lock held: it must not call back into the worker). A test's way to know the worker reached
  // that point without sleeping; unset in the engine.
  std::function<void()> on_yield;
  // Back-pressure ([write] max_pending_turns): Admit refuses a capture while this many turns or
  // more await derivation; 0 = never refuses.
  std::int64_t max_pending_turns = 0;
  // Called with write_mutex held once a scope has no pending turn left, with the first and last
  // sequence numbers this drain derived and the capture time of its last chunk ([consolidate]
  // every_turns).
  std::function<void(const store::ScopeRecord& scope, std::int64_t first_sequence,
                     std::int64_t last_sequence, Timestamp now)>
      after_caught_up;
};

// Progress of the derivation (Engine::DerivationStatus mirrors it).
struct DeriveProgress {
  std::int64_t pending_turns = 0;  // turns stored and not derived yet, store-wide
  std::size_t pending_scopes = 0;
  std::int64_t derived_turns = 0;      // turns this engine derived since it opened
  std::int64_t failures = 0;           // chunks that failed since the engine opened
  Status last_error;                   // the last failure; Ok once a later pass succeeded
  std::int64_t refused_writes = 0;     // captures Admit refused since the engine opened
  std::int64_t max_pending_turns = 0;  // the back-pressure limit; 0 = none
};

class DeriveWorker {
 public:
  explicit DeriveWorker(DeriveWorkerDeps deps);
  ~DeriveWorker();
  DeriveWorker(const DeriveWorker&) = delete;
  DeriveWorker& operator=(const DeriveWorker&) = delete;

  // Starts the thread if it is not running (and deps.background); it looks for pending work at
  // once.
  void Start();
  // New pending work was committed: starts the thread if needed and wakes it.
  void Notify();
  // Waits until a pass of the worker that began after this call has derived everything that was
  // pending when it began, and returns Ok; or returns the error of a chunk that failed during
  // that time (the turns stay pending; a later Notify or WaitIdle tries them again). While
  // other threads keep capturing, the pass yields to them (captures come first), so this waits
  // for a pause in their writes or for the backlog bound. Without deps.background: derives
  // everything pending in the calling thread.
  Status WaitIdle();
  // Pending turns (read from the store) and the worker's counters.
  StatusOr<DeriveProgress> Progress();

  // Back-pressure, before a capture: kUnavailable while max_pending_turns or
  // more turns await derivation, its message naming the backlog, the limit and a retry-after
  // hint ("retry after N s", N in [1, 60]: the turns over the limit at the rate this engine has
  // derived at, 1 before it has derived any; RetryAfterSeconds reads it back). The count is the
  // store's pending turns as of the last Progress (the engine reads it at open), plus the turns
  // captured since, minus those derived since; captures admitted concurrently may each add one
  // batch past the limit. Ok without a limit.
  Status Admit();

  // A capture (the first phase of a Remember) is about to take the write lock / has released it,
  // leaving `pending_turns` new turns to derive. Every CaptureStarted is followed by one
  // CaptureFinished, also when the capture failed (pending_turns 0). CaptureScope pairs them.
  void CaptureStarted();
  void CaptureFinished(std::int64_t pending_turns);

  // With deps.write_mutex held: derives everything pending in these scopes / in the store, in
  // the calling thread (what another write does first, so it applies after the derivations of
  // earlier turns, as in a synchronous run).
  Status DrainScopeLocked(const store::ScopeRecord& scope);
  Status DrainAllLocked();

 private:
  enum class ChunkOutcome { kDerived, kNothingPending, kReplan };

  // What a derived chunk covered.
  struct Chunk {
    store::ScopeRecord scope;
    std::int64_t first_sequence = 0;
    std::int64_t last_sequence = 0;
    Timestamp now;
    bool caught_up = false;  // no turn of the scope is pending after it
  };

  struct Plan {
    std::string key;
    std::int64_t cursor = 0;
    std::vector<store::NodeRecord> turns;
    std::vector<std::vector<float>> vectors;
  };

  void Run();
  // One pass over every cursor of the store; stops early when asked to stop.
  Status Pass();
  // Derives the scope's pending turns chunk by chunk. lock_held: the caller holds write_mutex.
  Status DrainKey(const std::string& key, bool lock_held);
  StatusOr<ChunkOutcome> DeriveChunk(const std::string& key, bool lock_held, Chunk* chunk);
  StatusOr<std::optional<Plan>> PlanChunk(const std::string& key,
                                          const std::optional<std::string>& cursor_text,
                                          store::Transaction* txn);
  bool stopping();
  // Before the worker takes the write lock for a chunk: waits while captures come first. False
  // when the worker is stopping meanwhile (the chunk is left pending).
  bool YieldToCaptures();

  DeriveWorkerDeps deps_;
  std::mutex mutex_;
  std::condition_variable wake_;      // the thread waits on it for work
  std::condition_variable idle_;      // WaitIdle waits on it for a finished pass
  std::condition_variable captures_;  // YieldToCaptures waits on it for captures to pause
  bool stop_ = false;                 // guarded by mutex_
  bool requested_ = false;            // guarded by mutex_: work was notified since the pass began
  std::int64_t passes_started_ = 0;   // guarded by mutex_
  std::int64_t passes_finished_ = 0;  // guarded by mutex_
  Status last_pass_status_;           // guarded by mutex_: the result of the last finished pass
  std::int64_t derived_turns_ = 0;    // guarded by mutex_
  std::int64_t failures_ = 0;         // guarded by mutex_
  Status last_error_;                 // guarded by mutex_
  int captures_in_flight_ = 0;        // guarded by mutex_
  std::chrono::steady_clock::time_point last_capture_end_;  // guarded by mutex_
  std::int64_t backlog_ = 0;  // guarded by mutex_: turns captured here and not derived yet
  // guarded by mutex_: the store's pending turns (as of the last Progress, plus captures, minus
  // derivations since), what Admit compares with the limit
  std::int64_t pending_estimate_ = 0;
  std::int64_t refused_writes_ = 0;  // guarded by mutex_
  // guarded by mutex_: when this engine derived its first chunk (the rate of the retry hint)
  std::optional<std::chrono::steady_clock::time_point> first_derived_;
  std::thread thread_;  // started by Start(); joined by the destructor
};

// Marks one capture for the worker: CaptureStarted on construction, CaptureFinished on
// destruction with the turns set by Pending (0 unless set, as after a failed capture). Declare it
// before the write lock's guard, so that it finishes after the lock is released.
class CaptureScope {
 public:
  explicit CaptureScope(DeriveWorker& worker) : worker_(worker) { worker_.CaptureStarted(); }
  ~CaptureScope() { worker_.CaptureFinished(pending_turns_); }
  CaptureScope(const CaptureScope&) = delete;
  CaptureScope& operator=(const CaptureScope&) = delete;
  void Pending(std::int64_t turns) { pending_turns_ = turns; }

 private:
  DeriveWorker& worker_;
  std::int64_t pending_turns_ = 0;
};

// The retry-after hint of a Status from DeriveWorker::Admit (its message's "retry after N s"),
// in seconds; nullopt for any other status.
std::optional<int> RetryAfterSeconds(const Status& status);

}  // namespace engram

#endif  // ENGRAM_ENGINE_DERIVE_WORKER_H_
