// perf: `engram bench perf --memories N` — the synthetic performance workload. Builds a
// deterministic store of N turns (eval/synthetic.h) spread over several scopes, then asks a fixed
// set of questions, and reports ingest throughput, recall latency percentiles and the store's
// size on disk; then times the primitives underneath on the same turns and questions (a raw
// SQLite FTS5 query and a raw hnswlib search, eval/primitives.h) and reports engram's recall
// latency as a ratio to each.
//
//   PerfOptions options;
//   options.memories = 10'000;
//   ASSIGN_OR_RETURN(io::Json report, RunPerf(options));
//
// Sizes the issue asks for (the hashing embedder beyond what the built-in encoder can embed in
// time on a small machine): --memories 10000 --scopes 1; --memories 100000 --scopes 1 and
// --scopes 10; --memories 1000000 --scopes 100.
//
// Workload: sessions of `session_turns` turns (one Remember call each), session s going to scope
// user:perf-<s mod scopes>, one day apart, written with `ingest_wait`; then the wait for the
// derivation worker; then one first recall per scope (it builds the scope's BM25 projection and
// is counted as ingest time); then `queries` recalls at default settings, query q on scope q mod
// scopes, each timed in this process around Engine::Recall. Store size = the SQLite file plus
// its -wal and -shm files after the engine is closed.
#ifndef ENGRAM_EVAL_PERF_H_
#define ENGRAM_EVAL_PERF_H_

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>

#include "engram/options.h"
#include "engram/status.h"
#include "io/api_json.h"

namespace engram::eval {

struct PerfOptions {
  // Turns to store. Default: 2,000 (a minute or less with the built-in encoder).
  std::size_t memories = 2'000;
  // Scopes the turns are spread over. Default: 10.
  std::size_t scopes = 10;
  // Turns per session (per Remember call). Default: 20.
  std::size_t session_turns = 20;
  // Recalls timed. Default: 500.
  std::size_t queries = 500;
  // Generator seed. Default: 42.
  std::uint64_t seed = 42;
  // How far each Remember call goes before it returns (RememberOptions::wait). Default: kIndexed,
  // what the server and `engram ingest` do: the writes are acknowledged once the turns are stored
  // and searchable by BM25, the engine's worker embeds and derives them in the background, and
  // the workload then waits for it (Engine::WaitForDerivation), so the report gives both times.
  // kDerived: synchronous writes (each call embeds and derives its turns before it returns).
  RememberWait ingest_wait = RememberWait::kIndexed;
  // As in BenchOptions: store (default temporary), config file, [embedder] kind override, data
  // dir, progress output.
  std::string store_path;
  std::string config_file;
  std::string embedder_kind;
  std::string data_dir;
  // With store_path: when every perf scope exists there already and holds exactly the turns the
  // workload gives it (its last sequence number), skip the Remember calls and time the recalls
  // and primitives over the stored turns (the same seed generates the same turns). For
  // before/after comparisons of the read path on one large store. Default: false.
  bool reuse_store = false;
  std::ostream* progress = nullptr;
  bool progress_interactive = false;
};

// {"workload": {...}, "config": {...}, "ingest": {turns, seconds, turns_per_s, wait,
//  acknowledged: {seconds, turns_per_s, cpu_seconds, remember_cpu_seconds},
//  derived: {seconds, turns_per_s, cpu_seconds},
//  first_recall_seconds},
//  "latency_ms": {p50, p95, p99, mean} (wall time), "cpu_ms": {p50, p95, p99} (the recalling
//  thread's CPU time, robust to a loaded machine), "context_tokens": {mean, p50, p95},
//  "store_bytes": N, "open_ms", "peak_rss_bytes",
//  "primitives": {"fts5": {...}, "hnswlib": {...}} (each: what, k, latency_ms {p50, p95, p99,
//  mean}, cpu_ms, build_seconds; hnswlib also the vectors it holds, their dimension, M, ef and
//  the question embedding's time), "ratios": {"fts5"|"hnswlib": {latency_p50, latency_p95,
//  cpu_p50, cpu_p95}} (engram's percentile / the primitive's)}.
// The hnswlib graphs hold the vectors engram's store holds; with [embedder] kind "none" the store
// has none and the graphs hold hashing-embedder vectors of the same turns instead (the report's
// "vectors" says which). "store_bytes_per_turn" divides store_bytes by the workload's turns;
// "ratios" also holds "fts5_plus_hnswlib": engram's percentile / (FTS5's + hnswlib's), the
// issue's target measure. In "ingest": "acknowledged" times the Remember calls (until the last
// one returned), "derived" adds the wait for the derivation worker (equal to acknowledged up to
// that call's overhead with wait kDerived), each with the process's CPU time (user + system,
// every thread: the worker's too), and "acknowledged" also "remember_cpu_seconds" (the calling
// thread's CPU time inside the Remember calls); "seconds" and "turns_per_s" add each scope's first recall to
// "derived" (until every turn is derived and searchable: the figure earlier reports gave).
// With reuse_store and the scopes stored, "ingest" says {"reused": true}
// and no throughput.
// kInvalidArgument for zero memories, scopes, session_turns or queries;
// kAlreadyExists when a perf scope exists in store_path (without reuse_store);
// kFailedPrecondition when reuse_store finds some perf scopes but not exactly the workload's.
StatusOr<io::Json> RunPerf(const PerfOptions& options);

}  // namespace engram::eval

#endif  // ENGRAM_EVAL_PERF_H_
