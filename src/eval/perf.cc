// The synthetic performance workload (see perf.h).
#include "eval/perf.h"

#include <sys/resource.h>

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "eval/bench_internal.h"
#include "eval/metrics.h"
#include "eval/progress.h"
#include "eval/synthetic.h"

namespace engram::eval {
namespace {

using io::Json;

// 2023-01-01T00:00:00Z: the first synthetic session.
constexpr Timestamp kStart = Timestamp::FromSeconds(1672531200);
constexpr std::int64_t kDayMicros = 86'400'000'000;

std::uintmax_t FileBytes(const std::filesystem::path& path) {
  std::error_code error;
  const std::uintmax_t size = std::filesystem::file_size(path, error);
  return error ? 0 : size;
}

}  // namespace

StatusOr<io::Json> RunPerf(const PerfOptions& options) {
  if (options.memories == 0 || options.scopes == 0 || options.session_turns == 0 ||
      options.queries == 0) {
    return Status::InvalidArgument(
        "perf: memories, scopes, session turns and queries must be >= 1");
  }
  BenchOptions bench_options;
  bench_options.store_path = options.store_path;
  bench_options.config_file = options.config_file;
  bench_options.data_dir = options.data_dir;
  ASSIGN_OR_RETURN(std::unique_ptr<internal::BenchStore> store,
                   internal::BenchStore::Open(bench_options));
  Engine& engine = store->engine();

  std::vector<Scope> scopes;
  for (std::size_t scope_idx = 0; scope_idx < options.scopes; ++scope_idx) {
    scopes.emplace_back(ScopeKind::kUser, "perf-" + std::to_string(scope_idx));
    StatusOr<std::vector<Memory>> existing = engine.List(scopes.back(), {.limit = 1});
    if (existing.ok()) {
      return Status::AlreadyExists("scope " + scopes.back().ToString() +
                                   " already exists in the store; perf needs fresh scopes");
    }
  }

  const std::size_t sessions =
      (options.memories + options.session_turns - 1) / options.session_turns;
  Progress progress(options.progress, options.progress_interactive, "perf", "sessions", sessions,
                    options.queries);
  SyntheticText text(options.seed);
  internal::IngestStats ingest;
  std::size_t remaining = options.memories;
  for (std::size_t session_idx = 0; session_idx < sessions; ++session_idx) {
    const std::size_t turns = std::min(remaining, options.session_turns);
    remaining -= turns;
    const Scope& scope = scopes[session_idx % scopes.size()];
    const std::vector<Turn> session = text.Session(
        turns, "session_" + std::to_string(session_idx / scopes.size() + 1),
        Timestamp{kStart.micros + static_cast<std::int64_t>(session_idx) * kDayMicros});
    // One progress line per 5% of the sessions is plenty.
    if (sessions < 20 || session_idx % (sessions / 20) == 0) {
      progress.StartGroup("session " + std::to_string(session_idx + 1));
    }
    const auto started = std::chrono::steady_clock::now();
    StatusOr<RememberResult> remembered = engine.Remember(scope, session);
    ingest.seconds += internal::MillisSince(started) / 1000.0;
    if (!remembered.ok()) return remembered.status().WithContext("perf: remembering");
    ingest.turns += turns;
  }

  const Timestamp query_time{kStart.micros + static_cast<std::int64_t>(sessions) * kDayMicros};
  // Each scope's first recall builds its BM25 projection (the engine loads indexes lazily): it
  // is timed as part of ingest (the turns are not searchable before), not as recall latency.
  SyntheticText questions(options.seed ^ 0x5EED5EED5EED5EEDULL);
  const std::size_t used_scopes = std::min(scopes.size(), sessions);
  for (std::size_t scope_idx = 0; scope_idx < used_scopes; ++scope_idx) {
    const auto started = std::chrono::steady_clock::now();
    StatusOr<ReadResult> warm_up = engine.Recall(
        scopes[scope_idx], {.text = questions.Question(), .query_time = query_time}, {});
    const double seconds = internal::MillisSince(started) / 1000.0;
    ingest.seconds += seconds;
    ingest.first_recall_seconds += seconds;
    if (!warm_up.ok()) return warm_up.status().WithContext("perf: first recall");
  }
  internal::CostStats cost;
  for (std::size_t query_idx = 0; query_idx < options.queries; ++query_idx) {
    RecallQuery query{.text = questions.Question(), .query_time = query_time};
    internal::Recalls recalls;
    const double cpu_started = internal::ThreadCpuMillis();
    const auto started = std::chrono::steady_clock::now();
    StatusOr<ReadResult> result = engine.Recall(scopes[query_idx % used_scopes], query, {});
    recalls.user_ms = internal::MillisSince(started);
    recalls.user_cpu_ms = internal::ThreadCpuMillis() - cpu_started;
    if (!result.ok()) return result.status().WithContext("perf: recall");
    recalls.user = std::move(result).value();
    cost.Add(recalls);
    progress.QuestionDone();
  }
  progress.Finish();

  Json report = Json::object();
  Json workload = Json::object();
  workload["memories"] = options.memories;
  workload["scopes"] = options.scopes;
  workload["session_turns"] = options.session_turns;
  workload["sessions"] = sessions;
  workload["queries"] = options.queries;
  workload["seed"] = options.seed;
  workload["ingest_timing"] =
      "Remember calls plus each scope's first recall, which builds its BM25 projection";
  workload["first_recall_seconds"] = ingest.first_recall_seconds;
  report["workload"] = std::move(workload);
  Json config = Json::object();
  config["engine_version"] = EngineVersion();
  config["config_file"] = options.config_file;
  config["recall"] = "default k and token budget, every route the planner picks";
  config["embedder"] = "none";
  report["config"] = std::move(config);
  report["ingest"] = internal::IngestJson(ingest);
  Json latency = internal::LatencyJson(cost);
  latency["mean"] = Mean(cost.latency_ms);
  report["latency_ms"] = std::move(latency);
  report["cpu_ms"] = internal::CpuJson(cost);
  report["context_tokens"] = internal::ContextTokensJson(cost);

  const std::filesystem::path path = store->store_path();
  store->CloseEngine();
  report["store_bytes"] =
      FileBytes(path) + FileBytes(path.string() + "-wal") + FileBytes(path.string() + "-shm");

  // Opening the finished store: what a process pays before its first call (the BM25 projection
  // is built per scope on first use, timed above as part of ingest).
  EngineOptions reopen;
  reopen.store_path = path.string();
  reopen.config_file = options.config_file;
  reopen.data_dir = options.data_dir;
  reopen.create_if_missing = false;
  const auto open_started = std::chrono::steady_clock::now();
  StatusOr<std::unique_ptr<Engine>> reopened = Engine::Open(reopen);
  report["open_ms"] = internal::MillisSince(open_started);
  if (!reopened.ok()) return reopened.status().WithContext("perf: reopening the store");
  reopened->reset();

  // Peak resident memory of the whole process (getrusage reports KiB on Linux).
  struct rusage usage {};
  getrusage(RUSAGE_SELF, &usage);
  report["peak_rss_bytes"] = static_cast<std::int64_t>(usage.ru_maxrss) * 1024;
  return report;
}

}  // namespace engram::eval
