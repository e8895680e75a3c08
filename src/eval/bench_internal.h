// bench_internal: what the LoCoMo and LongMemEval runs share — the bench store, ingest by
// session, the three recalls of a question, cost statistics, the config record and the trace
// pieces built from ReadResults. Internal to src/eval (see bench.h for the protocol).
#ifndef ENGRAM_EVAL_BENCH_INTERNAL_H_
#define ENGRAM_EVAL_BENCH_INTERNAL_H_

#include <chrono>
#include <cstddef>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "engram/config.h"
#include "engram/engine.h"
#include "engram/options.h"
#include "engram/read_result.h"
#include "engram/status.h"
#include "eval/bench.h"
#include "eval/metrics.h"
#include "io/api_json.h"

namespace engram::eval::internal {

double MillisSince(std::chrono::steady_clock::time_point start);
// CPU time consumed by the calling thread, in milliseconds. Differences of it measure a call's
// own work, free of the waits a loaded machine adds to wall time.
double ThreadCpuMillis();

// kInvalidArgument for contradictory options (--flat with --routes) and an empty id in `only`.
Status CheckOptions(const BenchOptions& options);
// kInvalidArgument naming the ids of options.only that are not in `ids` (the file's
// conversations or questions, `what` in the message: "conversation", "question").
Status CheckOnlyIds(const BenchOptions& options, const std::set<std::string>& ids,
                    std::string_view what);
// The routes every recall of the run asks for: kFlatRoute under `flat`, else options.routes.
std::vector<std::string> RoutesToRun(const BenchOptions& options);

// The store of one run: options.store_path, or a new temporary directory removed by the
// destructor. Holds the engine and the configuration it was opened with (FlatBaseline() of the
// file's under options.flat).
class BenchStore {
 public:
  static StatusOr<std::unique_ptr<BenchStore>> Open(const BenchOptions& options);
  ~BenchStore();
  BenchStore(const BenchStore&) = delete;
  BenchStore& operator=(const BenchStore&) = delete;

  Engine& engine() { return *engine_; }
  // Closes the engine (so the store files are complete on disk); engine() is invalid after.
  void CloseEngine() { engine_.reset(); }
  const Config& config() const { return config_; }
  bool temporary() const { return !temp_dir_.empty(); }
  const std::string& store_path() const { return store_path_; }

 private:
  BenchStore() = default;

  std::string temp_dir_;  // empty when the caller chose the store
  std::string store_path_;
  Config config_;
  std::unique_ptr<Engine> engine_;
};

// How a benchmark turn is named and grouped.
struct TurnInfo {
  std::string key;      // LoCoMo dia_id "D1:3"; LongMemEval "<session_id>:<turn_index>"
  std::string session;  // LoCoMo "session_1"; LongMemEval the haystack session id
  std::string speaker;
  std::string text;
};
// Turn id → its benchmark identity. Ordered, so nothing depends on hash order.
using TurnTable = std::map<std::string, TurnInfo>;

struct IngestStats {
  std::size_t turns = 0;
  std::size_t reused_scopes = 0;  // scopes recalled over as stored (BenchOptions::reuse_store)
  // Until the turns are searchable: Remember calls plus the scope's first recall, which builds
  // its BM25 projection (the engine loads a scope's index lazily, on first use).
  double seconds = 0;
  double first_recall_seconds = 0;  // the part of `seconds` spent in first recalls
  // BenchOptions::consolidate: scopes consolidated and the time Engine::Consolidate took (not in
  // `seconds`).
  std::size_t consolidated_scopes = 0;
  std::size_t consolidated_turns = 0;
  double consolidate_seconds = 0;
};

// Engine::Consolidate on `scope`, timed into stats->consolidate_seconds.
Status ConsolidateScope(Engine& engine, const Scope& scope, IngestStats* stats);

// Remembers `turns` into `scope`, which must not exist yet (kAlreadyExists otherwise), one
// Remember call per run of consecutive turns with the same session_id, then runs one recall
// ("warm-up") so the scope's projection is built. Returns the turn ids in input order and adds
// to *stats.
StatusOr<std::vector<std::string>> IngestFresh(Engine& engine, const Scope& scope,
                                               std::span<const Turn> turns, IngestStats* stats);

// IngestFresh, except that when `reuse` is set and the scope exists, its stored turns are used
// as they are: they must be exactly `turns` (same count, and per position the same text,
// speaker and session id), else kFailedPrecondition naming the first difference. A reused scope
// gets the warm-up recall too (timed as a first recall); stats->reused_scopes counts it.
StatusOr<std::vector<std::string>> IngestOrReuse(Engine& engine, const Scope& scope,
                                                 std::span<const Turn> turns, bool reuse,
                                                 IngestStats* stats);

struct AskSettings {
  std::vector<std::string> routes;
  std::size_t eval_k = 30;
  bool trace = false;
};

// The three recalls of one question (bench.h).
struct Recalls {
  ReadResult user;
  double user_ms = 0;      // wall time around Engine::Recall of the user recall
  double user_cpu_ms = 0;  // this thread's CPU time in that call
  ReadResult eval;
  double eval_ms = 0;
  std::optional<ReadResult> trace;
};

StatusOr<Recalls> Ask(Engine& engine, const Scope& scope, const RecallQuery& query,
                      const AskSettings& settings);

// The provenance turns of `items`, mapped to their keys (unknown ids keep their id).
std::vector<std::string> KeyRanking(std::span<const RecallItem> items, const TurnTable& turns);
std::vector<std::string> ItemKeys(const RecallItem& item, const TurnTable& turns);

// Context tokens and latencies over the asked questions.
struct CostStats {
  std::vector<double> context_tokens;
  std::vector<double> latency_ms;
  std::vector<double> cpu_ms;
  void Add(const Recalls& recalls);
};

io::Json ContextTokensJson(const CostStats& cost);
io::Json LatencyJson(const CostStats& cost);
// {"p50", "p95", "p99"} of the user recalls' thread CPU time.
io::Json CpuJson(const CostStats& cost);
io::Json IngestJson(const IngestStats& ingest);

// Why each of `gold_keys` is or is not in the user recall's context (issue 22): "packed"; else
// the reason the packing gave for the best-ranked item holding it ("budget", "duplicate",
// "floor", "k"; Diagnostics::unpacked); else "k" when the widest recall (the trace recall, else
// the evaluation recall) ranks it, below the last item the packing examined; else
// "never_ranked" with a trace recall (no route proposed it, or a filter hid it) and
// "below_eval_k" without one.
std::vector<std::string> ContextFates(const Recalls& recalls, const TurnTable& turns,
                                      std::span<const std::string> gold_keys);

// The fates ContextFates gives a gold turn missing from the context, in report order.
inline constexpr std::string_view kMissedFates[] = {"budget", "duplicate",   "floor",
                                                    "k",      "never_ranked", "below_eval_k"};

// Evidence in the user recall's context (issue 22), summed over a group of questions.
class ContextSums {
 public:
  // One question: its evidence in the context, its context tokens, whether its gold answer
  // occurs in the context (nullopt: not scored for this question) and the ContextFates of its
  // gold turns (empty without them).
  void Add(const EvidenceInContext& evidence, double tokens, std::optional<bool> answer,
           std::span<const std::string> fates);
  std::size_t count() const { return count_; }
  // {"questions", "evidence_all", "evidence_any", "tokens_mean", "tokens_p95"}, then with
  // `score_answers` {"answer_questions", "answer_in_context" (null when none was scored)}, then
  // with `fates` {"missed_gold_turns": {fate: count} over kMissedFates}.
  io::Json ToJson(bool score_answers, bool fates) const;

 private:
  std::size_t count_ = 0;
  double all_ = 0;
  double any_ = 0;
  std::vector<double> tokens_;
  std::size_t answer_count_ = 0;
  std::size_t answer_found_ = 0;
  std::map<std::string, std::size_t, std::less<>> missed_;
};

// Sufficiency verdicts of the user recalls (issue 40) over a group of questions.
class SufficiencySums {
 public:
  void Add(const Sufficiency& sufficiency);
  std::size_t count() const { return sufficient_ + partial_ + insufficient_; }
  std::size_t insufficient() const { return insufficient_; }
  // {"questions", "sufficient", "partial", "insufficient", "insufficient_share"}.
  io::Json ToJson() const;

 private:
  std::size_t sufficient_ = 0;
  std::size_t partial_ = 0;
  std::size_t insufficient_ = 0;
};

// The sufficiency report: verdicts on questions whose evidence is absent from the memory
// (`no_evidence`) and on answerable ones, per category, and how well "insufficient" tells
// them apart: its precision (of the questions flagged, the share without evidence) and its
// recall (of the questions without evidence, the share flagged).
io::Json SufficiencyReport(const SufficiencySums& no_evidence, const SufficiencySums& answerable,
                           const std::map<std::string, SufficiencySums>& by_category);

// Metric averages in a fixed key order.
class MetricSums {
 public:
  // Adds one question's values, given as (key, value) in the order the output should list them.
  void Add(const std::vector<std::pair<std::string, double>>& values);
  std::size_t count() const { return count_; }
  io::Json Averages() const;

 private:
  std::vector<std::pair<std::string, double>> sums_;
  std::size_t count_ = 0;
};

// The "config" record: routes that ran and their weights, fusion and BM25 constants, budgets
// of the three recalls, embedder and engine version. `first` is the first user recall (its
// diagnostics say which routes ran), or nullptr when no question was asked.
io::Json ConfigJson(const BenchStore& store, const BenchOptions& options,
                    std::span<const std::size_t> ks, std::size_t eval_k, const ReadResult* first);

// The recall part of a trace line: plan, per-route candidates, fused list, evaluated ranking,
// items, packed context, timings, and the fate of each gold key ("packed", "in_top_k",
// "ranked_out", "never_retrieved").
io::Json TraceRecallJson(const Recalls& recalls, const TurnTable& turns,
                         std::span<const std::string> gold_keys, std::size_t eval_k);

// Adds TraceRecallJson's fields to the trace `line` and describes each of its "gold_turns" from
// `by_key` (session, speaker, text; "in_data" false when no stored turn has that key).
void AddTraceRecall(io::Json& line, const Recalls& recalls, const TurnTable& turns,
                    std::span<const std::string> gold_keys, std::size_t eval_k,
                    const std::map<std::string, TurnInfo>& by_key);

// Writes one JSON value per line; a null path writes nothing.
class TraceWriter {
 public:
  static StatusOr<std::unique_ptr<TraceWriter>> Open(const std::string& path);
  Status Write(const io::Json& line);
  Status Close();

 private:
  std::string path_;
  std::ofstream out_;
};

// Checks and sorts cut-offs; kInvalidArgument for a zero.
StatusOr<std::vector<std::size_t>> NormalizeKs(std::vector<std::size_t> ks,
                                               std::vector<std::size_t> defaults);

// A short excerpt of `text` for traces (whole when short).
std::string Excerpt(const std::string& text, std::size_t max_bytes);

}  // namespace engram::eval::internal

#endif  // ENGRAM_EVAL_BENCH_INTERNAL_H_
