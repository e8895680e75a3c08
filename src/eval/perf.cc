// The synthetic performance workload (see perf.h).
#include "eval/perf.h"

#include <sys/resource.h>

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "core/paths.h"
#include "engine/derive_worker.h"
#include "engine/vector_projection.h"
#include "eval/bench_internal.h"
#include "eval/metrics.h"
#include "eval/primitives.h"
#include "eval/progress.h"
#include "eval/synthetic.h"
#include "store/store.h"

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

// Wall and thread-CPU milliseconds of a sample of calls.
struct Timings {
  std::vector<double> wall_ms;
  std::vector<double> cpu_ms;

  template <typename Call>
  Status Time(Call&& call) {
    const double cpu_started = internal::ThreadCpuMillis();
    const auto started = std::chrono::steady_clock::now();
    Status status = call();
    wall_ms.push_back(internal::MillisSince(started));
    cpu_ms.push_back(internal::ThreadCpuMillis() - cpu_started);
    return status;
  }

  Json ToJson() const {
    Json json = Json::object();
    Json wall = Json::object();
    wall["p50"] = Percentile(wall_ms, 50);
    wall["p95"] = Percentile(wall_ms, 95);
    wall["p99"] = Percentile(wall_ms, 99);
    wall["mean"] = Mean(wall_ms);
    json["latency_ms"] = std::move(wall);
    Json cpu = Json::object();
    cpu["p50"] = Percentile(cpu_ms, 50);
    cpu["p95"] = Percentile(cpu_ms, 95);
    cpu["p99"] = Percentile(cpu_ms, 99);
    json["cpu_ms"] = std::move(cpu);
    return json;
  }
};

// CPU time of the whole process (user + system, every thread), in seconds: the derivation
// worker's work is on another thread than the Remember calls.
double ProcessCpuSeconds() {
  struct rusage usage {};
  getrusage(RUSAGE_SELF, &usage);
  const auto seconds = [](const timeval& time) {
    return static_cast<double>(time.tv_sec) + static_cast<double>(time.tv_usec) / 1e6;
  };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

// One phase of the ingest: how long it took from the first Remember call, and the process's
// CPU time meanwhile.
Json PhaseJson(std::size_t turns, double seconds, double cpu_seconds) {
  Json json = Json::object();
  json["seconds"] = seconds;
  json["turns_per_s"] = seconds > 0 ? static_cast<double>(turns) / seconds : 0.0;
  json["cpu_seconds"] = cpu_seconds;
  return json;
}

// engram's figure divided by the primitive's (0 when the primitive took no measurable time).
double Ratio(double engram, double primitive) { return primitive > 0 ? engram / primitive : 0.0; }

// One timed question: the scope it asks and its text.
struct PerfQuestion {
  std::size_t scope_idx = 0;
  std::string text;
};

// The raw SQLite FTS5 search over the same turns and questions (eval/primitives.h).
StatusOr<Json> TimeFts5(const std::vector<std::vector<Turn>>& scope_turns,
                        const std::vector<PerfQuestion>& questions, std::size_t limit) {
  const auto build_started = std::chrono::steady_clock::now();
  ASSIGN_OR_RETURN(std::unique_ptr<Fts5Primitive> fts, Fts5Primitive::Create(scope_turns.size()));
  for (std::size_t scope_idx = 0; scope_idx < scope_turns.size(); ++scope_idx) {
    for (const Turn& turn : scope_turns[scope_idx]) {
      RETURN_IF_ERROR(fts->Add(scope_idx, turn.speaker, turn.text));
    }
  }
  RETURN_IF_ERROR(fts->Finish());
  const double build_seconds = internal::MillisSince(build_started) / 1000.0;
  Timings timings;
  std::size_t rows = 0;
  for (const PerfQuestion& question : questions) {
    RETURN_IF_ERROR(timings.Time([&]() -> Status {
      ASSIGN_OR_RETURN(const std::size_t found,
                       fts->Search(question.scope_idx, question.text, limit));
      rows += found;
      return Status::Ok();
    }));
  }
  Json json = timings.ToJson();
  json["what"] =
      "in-memory SQLite FTS5, one table per scope (speaker, text; tokenize 'porter unicode61'), "
      "the question's words minus stopwords ORed, ORDER BY bm25() LIMIT k, prepared once per "
      "scope, every row's rowid, text and score read";
  json["k"] = limit;
  json["rows_mean"] = questions.empty() ? 0.0 : static_cast<double>(rows) / questions.size();
  json["build_seconds"] = build_seconds;
  return json;
}

// The raw hnswlib search over the vectors engram's store holds (or, when the store holds none,
// hashing vectors of the same turns), queried with the same questions' vectors.
StatusOr<Json> TimeHnswlib(const std::string& store_path, const Config& config,
                           const std::string& data_dir, const std::vector<Scope>& scopes,
                           const std::vector<std::vector<Turn>>& scope_turns,
                           const std::vector<PerfQuestion>& questions) {
  Json json = Json::object();
  EmbedderConfig embedder_config = config.embedder;
  const bool stored_vectors = embedder_config.kind != "none";
  if (!stored_vectors) {
    embedder_config = EmbedderConfig{};
    embedder_config.kind = "hashing";
  }
  ASSIGN_OR_RETURN(std::unique_ptr<embed::Embedder> embedder,
                   OpenEmbedder(embedder_config, core::ResolveDataDir(data_dir)));
  if (embedder == nullptr) return Status::Internal("perf: no embedder for the hnswlib timing");
  json["vectors"] = stored_vectors
                        ? "the vectors engram's store holds (" + embedder->model_id() +
                              "), read back from the store; questions embedded by the same model"
                        : "the store holds no vectors ([embedder] kind \"none\"; engram's recall "
                          "ran no vector search): " +
                              embedder->model_id() +
                              " vectors of the same turns (speaker + text) and questions";
  HnswPrimitiveOptions options;
  options.dimension = embedder->dimension();
  options.max_neighbors = config.vector.hnsw_max_neighbors;
  options.construction_expansion = config.vector.hnsw_construction_expansion;
  options.search_expansion = config.vector.hnsw_search_expansion;
  ASSIGN_OR_RETURN(std::unique_ptr<HnswPrimitive> hnsw,
                   HnswPrimitive::Create(options, scopes.size()));

  const auto build_started = std::chrono::steady_clock::now();
  std::size_t vectors = 0;
  if (stored_vectors) {
    store::SqliteOptions store_options;
    store_options.create_if_missing = false;
    ASSIGN_OR_RETURN(std::unique_ptr<store::Store> store,
                     store::OpenSqliteStore(store_path, store_options));
    for (std::size_t scope_idx = 0; scope_idx < scopes.size(); ++scope_idx) {
      ASSIGN_OR_RETURN(const std::optional<store::ScopeRecord> record,
                       store->FindScope(scopes[scope_idx].ToString()));
      if (!record.has_value()) continue;
      Status added = Status::Ok();
      RETURN_IF_ERROR(store->ScanVectors(
          record->scope_id, [&](std::int64_t row, std::span<const float> values) {
            added = hnsw->Add(scope_idx, static_cast<std::uint64_t>(row), values);
            ++vectors;
            return added.ok();
          }));
      RETURN_IF_ERROR(added);
    }
  } else {
    for (std::size_t scope_idx = 0; scope_idx < scope_turns.size(); ++scope_idx) {
      std::vector<std::string> texts;
      for (const Turn& turn : scope_turns[scope_idx]) {
        texts.push_back(EmbeddingText(turn.speaker, turn.text));
      }
      ASSIGN_OR_RETURN(const std::vector<std::vector<float>> embedded, embedder->Embed(texts));
      for (std::size_t turn_idx = 0; turn_idx < embedded.size(); ++turn_idx) {
        RETURN_IF_ERROR(hnsw->Add(scope_idx, turn_idx, embedded[turn_idx]));
        ++vectors;
      }
    }
  }
  json["build_seconds"] = internal::MillisSince(build_started) / 1000.0;
  json["vectors_indexed"] = vectors;

  // Question vectors, embedded one at a time (what a recall does), timed apart from the search.
  Timings embedding;
  std::vector<std::vector<float>> query_vectors;
  for (const PerfQuestion& question : questions) {
    RETURN_IF_ERROR(embedding.Time([&]() -> Status {
      const std::string text = question.text;
      ASSIGN_OR_RETURN(std::vector<std::vector<float>> embedded,
                       embedder->Embed(std::span<const std::string>(&text, 1)));
      query_vectors.push_back(std::move(embedded.front()));
      return Status::Ok();
    }));
  }
  Timings timings;
  const std::size_t k = config.recall.route_candidates;
  for (std::size_t question_idx = 0; question_idx < questions.size(); ++question_idx) {
    RETURN_IF_ERROR(timings.Time([&]() -> Status {
      return hnsw->Search(questions[question_idx].scope_idx, query_vectors[question_idx], k)
          .status();
    }));
  }
  Json timed = timings.ToJson();
  for (auto field = timed.begin(); field != timed.end(); ++field) json[field.key()] = field.value();
  json["what"] =
      "hnswlib HierarchicalNSW<float>, inner-product space, one graph per scope, searchKnn(k) "
      "with engram's [vector] M, efConstruction and ef; the question's embedding is not included";
  json["k"] = k;
  json["dimension"] = options.dimension;
  json["max_neighbors"] = options.max_neighbors;
  json["construction_expansion"] = options.construction_expansion;
  json["search_expansion"] = options.search_expansion;
  json["query_embedding"] = embedding.ToJson();
  std::size_t largest_scope = 0;
  for (std::size_t scope_idx = 0; scope_idx < scopes.size(); ++scope_idx) {
    largest_scope = std::max(largest_scope, hnsw->size(scope_idx));
  }
  json["engram_vector_index"] =
      !stored_vectors ? "none"
      : largest_scope <= config.vector.exact_threshold
          ? "exact (every scope holds at most [vector] exact_threshold vectors)"
          : "hnsw for scopes above [vector] exact_threshold vectors";
  return json;
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
  bench_options.embedder_kind = options.embedder_kind;
  bench_options.data_dir = options.data_dir;
  ASSIGN_OR_RETURN(std::unique_ptr<internal::BenchStore> store,
                   internal::BenchStore::Open(bench_options));
  Engine& engine = store->engine();

  const std::size_t sessions =
      (options.memories + options.session_turns - 1) / options.session_turns;
  // The turns the workload gives each scope: session s (of min(session_turns, what is left)
  // turns) goes to scope s mod scopes.
  std::vector<std::int64_t> expected_turns(options.scopes, 0);
  for (std::size_t session_idx = 0; session_idx < sessions; ++session_idx) {
    expected_turns[session_idx % options.scopes] += static_cast<std::int64_t>(
        std::min(options.session_turns, options.memories - session_idx * options.session_turns));
  }
  ASSIGN_OR_RETURN(const std::vector<ScopeInfo> stored_scopes, engine.ListScopes());
  std::vector<Scope> scopes;
  std::size_t found_scopes = 0;
  for (std::size_t scope_idx = 0; scope_idx < options.scopes; ++scope_idx) {
    scopes.emplace_back(ScopeKind::kUser, "perf-" + std::to_string(scope_idx));
    const std::string path = scopes.back().ToString();
    const auto stored = std::find_if(stored_scopes.begin(), stored_scopes.end(),
                                     [&](const ScopeInfo& info) { return info.scope == path; });
    if (stored == stored_scopes.end()) continue;
    if (!options.reuse_store) {
      return Status::AlreadyExists("scope " + path +
                                   " already exists in the store; perf needs fresh scopes (or "
                                   "reuse_store to time recalls over them)");
    }
    if (stored->last_sequence != expected_turns[scope_idx]) {
      return Status::FailedPrecondition(
          "scope " + path + " holds " + std::to_string(stored->last_sequence) +
          " turns but the workload gives it " + std::to_string(expected_turns[scope_idx]) +
          "; reuse needs the store of the same --memories, --scopes, --session-turns and --seed");
    }
    ++found_scopes;
  }
  const bool reused = found_scopes > 0;
  if (reused && found_scopes != std::min(options.scopes, sessions)) {
    return Status::FailedPrecondition("only " + std::to_string(found_scopes) +
                                      " of the workload's perf scopes exist in the store; reuse "
                                      "needs all of them");
  }
  Progress progress(options.progress, options.progress_interactive, "perf", "sessions", sessions,
                    options.queries);
  SyntheticText text(options.seed);
  internal::IngestStats ingest;
  // The two phases of the ingest (acknowledged: the Remember calls; derived: the wait for the
  // worker added), in seconds of wall and process CPU time.
  double acknowledged_seconds = 0;
  double derived_seconds = 0;
  const double ingest_cpu_started = ProcessCpuSeconds();
  double acknowledged_cpu = 0;
  double derived_cpu = 0;
  // The calling thread's CPU time inside the Remember calls (without the worker's).
  double remember_cpu_seconds = 0;
  // The turns each scope got, for the raw primitives.
  std::vector<std::vector<Turn>> scope_turns(scopes.size());
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
    if (!reused) {
      const double cpu_started = internal::ThreadCpuMillis();
      const auto started = std::chrono::steady_clock::now();
      StatusOr<RememberResult> remembered =
          engine.Remember(scope, session, {.wait = options.ingest_wait});
      if (!remembered.ok() && RetryAfterSeconds(remembered.status()).has_value()) {
        // Back-pressure ([write] max_pending_turns): the backlog is at its limit. Like a client
        // told to retry, the workload waits for the derivation, then writes the session; the wait
        // counts in the acknowledged phase.
        RETURN_IF_ERROR(engine.WaitForDerivation().WithContext("perf: waiting for derivation"));
        remembered = engine.Remember(scope, session, {.wait = options.ingest_wait});
      }
      acknowledged_seconds += internal::MillisSince(started) / 1000.0;
      remember_cpu_seconds += (internal::ThreadCpuMillis() - cpu_started) / 1000.0;
      if (!remembered.ok()) return remembered.status().WithContext("perf: remembering");
      ingest.turns += turns;
    }
    std::vector<Turn>& kept = scope_turns[session_idx % scopes.size()];
    kept.insert(kept.end(), session.begin(), session.end());
  }

  if (!reused) {
    acknowledged_cpu = ProcessCpuSeconds() - ingest_cpu_started;
    // The second phase: embeddings and derivations of the acknowledged turns (with kDerived
    // writes there is nothing left, and the call returns at once).
    if (options.progress != nullptr && options.ingest_wait != RememberWait::kDerived) {
      *options.progress << "\nperf: " << ingest.turns << " turns acknowledged in "
                        << acknowledged_seconds << " s; waiting for the derivation worker"
                        << std::endl;
    }
    const auto started = std::chrono::steady_clock::now();
    RETURN_IF_ERROR(engine.WaitForDerivation().WithContext("perf: waiting for derivation"));
    derived_seconds = acknowledged_seconds + internal::MillisSince(started) / 1000.0;
    derived_cpu = ProcessCpuSeconds() - ingest_cpu_started;
    ingest.seconds = derived_seconds;
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
  std::vector<PerfQuestion> asked;
  for (std::size_t query_idx = 0; query_idx < options.queries; ++query_idx) {
    RecallQuery query{.text = questions.Question(), .query_time = query_time};
    asked.push_back({query_idx % used_scopes, query.text});
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
  workload["reused_store"] = reused;
  workload["ingest_timing"] =
      "acknowledged: the Remember calls; derived: plus the wait for the derivation worker; "
      "seconds: plus each scope's first recall, which builds its BM25 projection";
  workload["first_recall_seconds"] = ingest.first_recall_seconds;
  report["workload"] = std::move(workload);
  Json config = Json::object();
  config["engine_version"] = EngineVersion();
  config["config_file"] = options.config_file;
  config["recall"] = "default k and token budget, every route the planner picks";
  config["embedder"] = EmbedderModelId(store->config().embedder);
  report["config"] = std::move(config);
  if (reused) {
    Json reused_ingest = Json::object();
    reused_ingest["reused"] = true;
    reused_ingest["note"] = "the perf scopes were in the store already: no ingest was timed";
    reused_ingest["first_recall_seconds"] = ingest.first_recall_seconds;
    report["ingest"] = std::move(reused_ingest);
  } else {
    Json ingested = internal::IngestJson(ingest);
    ingested["wait"] = std::string(RememberWaitName(options.ingest_wait));
    ingested["acknowledged"] = PhaseJson(ingest.turns, acknowledged_seconds, acknowledged_cpu);
    ingested["acknowledged"]["remember_cpu_seconds"] = remember_cpu_seconds;
    ingested["derived"] = PhaseJson(ingest.turns, derived_seconds, derived_cpu);
    ingested["first_recall_seconds"] = ingest.first_recall_seconds;
    report["ingest"] = std::move(ingested);
  }
  Json latency = internal::LatencyJson(cost);
  latency["mean"] = Mean(cost.latency_ms);
  report["latency_ms"] = std::move(latency);
  report["cpu_ms"] = internal::CpuJson(cost);
  report["context_tokens"] = internal::ContextTokensJson(cost);

  const std::filesystem::path path = store->store_path();
  store->CloseEngine();
  const std::uintmax_t store_bytes =
      FileBytes(path) + FileBytes(path.string() + "-wal") + FileBytes(path.string() + "-shm");
  report["store_bytes"] = store_bytes;
  report["store_bytes_per_turn"] =
      static_cast<double>(store_bytes) / static_cast<double>(options.memories);

  // Opening the finished store: what a process pays before its first call (the BM25 projection
  // is built per scope on first use, timed above as part of ingest).
  EngineOptions reopen;
  reopen.store_path = path.string();
  reopen.config = store->config();
  reopen.data_dir = options.data_dir;
  reopen.create_if_missing = false;
  const auto open_started = std::chrono::steady_clock::now();
  StatusOr<std::unique_ptr<Engine>> reopened = Engine::Open(reopen);
  report["open_ms"] = internal::MillisSince(open_started);
  if (!reopened.ok()) return reopened.status().WithContext("perf: reopening the store");
  reopened->reset();

  // The primitives underneath, on the same turns and questions, and engram's ratio to them.
  const auto note = [&options](const char* line) {
    if (options.progress != nullptr) *options.progress << "perf: " << line << std::endl;
  };
  note("raw SQLite FTS5: building the tables and timing the same questions");
  ASSIGN_OR_RETURN(Json fts5,
                   TimeFts5(scope_turns, asked, store->config().recall.route_candidates));
  note("raw hnswlib: building the graphs from the same vectors and timing the same questions");
  ASSIGN_OR_RETURN(Json hnswlib, TimeHnswlib(path.string(), store->config(), options.data_dir,
                                             scopes, scope_turns, asked));
  Json primitives = Json::object();
  primitives["fts5"] = std::move(fts5);
  primitives["hnswlib"] = std::move(hnswlib);
  report["primitives"] = std::move(primitives);
  // engram's recall percentile divided by the primitive's, wall and CPU time.
  Json ratios = Json::object();
  for (const char* name : {"fts5", "hnswlib"}) {
    const Json& timed = report["primitives"][name];
    Json entry = Json::object();
    entry["latency_p50"] = Ratio(Percentile(cost.latency_ms, 50), timed["latency_ms"]["p50"]);
    entry["latency_p95"] = Ratio(Percentile(cost.latency_ms, 95), timed["latency_ms"]["p95"]);
    entry["cpu_p50"] = Ratio(Percentile(cost.cpu_ms, 50), timed["cpu_ms"]["p50"]);
    entry["cpu_p95"] = Ratio(Percentile(cost.cpu_ms, 95), timed["cpu_ms"]["p95"]);
    ratios[name] = std::move(entry);
  }
  // The measure: engram against both primitives together (a recall runs a lexical and
  // a vector search, then fuses, adjusts and packs).
  {
    const Json& fts = report["primitives"]["fts5"];
    const Json& hnsw = report["primitives"]["hnswlib"];
    const auto sum = [&](const char* kind, const char* percentile) {
      return fts[kind][percentile].get<double>() + hnsw[kind][percentile].get<double>();
    };
    Json entry = Json::object();
    entry["latency_p50"] = Ratio(Percentile(cost.latency_ms, 50), sum("latency_ms", "p50"));
    entry["latency_p95"] = Ratio(Percentile(cost.latency_ms, 95), sum("latency_ms", "p95"));
    entry["cpu_p50"] = Ratio(Percentile(cost.cpu_ms, 50), sum("cpu_ms", "p50"));
    entry["cpu_p95"] = Ratio(Percentile(cost.cpu_ms, 95), sum("cpu_ms", "p95"));
    ratios["fts5_plus_hnswlib"] = std::move(entry);
  }
  report["ratios"] = std::move(ratios);

  // Peak resident memory of the whole process (getrusage reports KiB on Linux).
  struct rusage usage {};
  getrusage(RUSAGE_SELF, &usage);
  report["peak_rss_bytes"] = static_cast<std::int64_t>(usage.ru_maxrss) * 1024;
  return report;
}

}  // namespace engram::eval
