// bench: the retrieval-quality harness behind `engram bench locomo` and `engram bench
// longmemeval` (DESIGN §11). No LLM is involved: the measure is whether the turns the benchmark
// annotates as evidence reach the context, how high, and at what cost.
//
//   engram::eval::BenchOptions options;
//   options.data_path = "../shared/bench/locomo_dev.json";
//   options.trace_path = "locomo.trace.jsonl";
//   ASSIGN_OR_RETURN(engram::io::Json report, engram::eval::RunLocomoBench(options));
//   std::cout << engram::io::Dump(report, /*pretty=*/true);
//
// Protocol (docs/BENCHMARKS.md has the long form):
//   - Each conversation (LoCoMo) or question haystack (LongMemEval) is remembered into its own
//     fresh scope of one store (temporary unless store_path is set), one Remember call per
//     session, with the session dates as event times. Ingest throughput is timed around Remember.
//   - Each evaluated question is recalled at the query time of its dataset (LoCoMo: the date of
//     the conversation's last session; LongMemEval: question_date), three ways:
//       1. user recall: the engine's default k and token budget. Its context tokens and its
//          latency (measured in this process around Engine::Recall) are the reported cost.
//       2. evaluation recall: k = eval_k (the largest cut-off asked, at least the MRR / turn
//          cut-off) and a budget of kEvalTokenBudget tokens so packing never cuts the list.
//          The metrics are computed on its turn ranking (eval/metrics.h: provenance turns in
//          item order, duplicates removed).
//       3. trace recall (only with trace_path): k = kTraceK, same huge budget, so every fused
//          candidate of every route is returned; it tells "never retrieved" from "ranked out".
//   - The report is the JSON object of the issue: dataset, questions, config, metrics,
//     by_category, context_tokens, latency_ms, ingest.
// Runs are deterministic except for the timing fields.
#ifndef ENGRAM_EVAL_BENCH_H_
#define ENGRAM_EVAL_BENCH_H_

#include <cstddef>
#include <functional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "engram/config.h"
#include "engram/status.h"
#include "io/api_json.h"

namespace engram::eval {

// Token budget of the evaluation and trace recalls: large enough that packing never drops an
// item, so the evaluated list is the ranking itself.
inline constexpr std::size_t kEvalTokenBudget = 100'000'000;
// k of the trace recall: more than any route returns (Config::recall.route_candidates each).
inline constexpr std::size_t kTraceK = 10'000;
// LoCoMo's MRR is reported at this cut-off whatever --k says.
inline constexpr std::size_t kLocomoMrrCutoff = 30;
// LongMemEval's session-level cut-offs (the official protocol's k = 5, 10).
inline constexpr std::size_t kLongMemEvalSessionKs[] = {5, 10};

// One question as the end-to-end QA harness (qa.h) sees it: what to ask, the gold answer, and
// the packed context of the user recall (the engine's default k and token budget).
struct QaQuestion {
  std::string dataset;   // "locomo" or "longmemeval"
  std::string id;        // LoCoMo "conv-26:q17"; LongMemEval the question_id
  std::string category;  // LoCoMo category name ("multi-hop"); LongMemEval question_type
  std::string question;
  std::string gold_answer;    // LoCoMo category 5: the file's adversarial_answer
  std::string question_date;  // when the question is asked, as text
  std::string context;        // ReadResult::context of the user recall
  std::size_t context_tokens = 0;
  bool abstention = false;   // LongMemEval "_abs": the answer is not in the haystack
  bool in_retrieval = true;  // false: skipped by the retrieval metrics, recalled for QA only
};

struct BenchOptions {
  // Benchmark file, .json or .json.zst ("-" = stdin).
  std::string data_path;
  // Cut-offs. Default: empty = LoCoMo 5, 10, 30; LongMemEval turn level 10, 50.
  std::vector<std::size_t> ks;
  // Routes to run, by name. Default: empty = every route the planner picks.
  std::vector<std::string> routes;
  // The flat BM25 baseline (docs/BENCHMARKS.md): FlatBaseline() applied over the configuration
  // and only the "bm25" route. Must not be combined with `routes`. Default: false.
  bool flat = false;
  // Store to ingest into; its scopes must not exist yet. Default: "" = a temporary store in a
  // new directory under $TMPDIR, deleted at the end.
  std::string store_path;
  // With store_path: a conversation's scope that already exists there is recalled over as
  // stored instead of failing with kAlreadyExists, provided it holds exactly the file's turns
  // (kFailedPrecondition otherwise). For read-path experiments: the write configuration is the
  // one the store was built with, and the ingest figures cover only the scopes ingested now.
  // Default: false.
  bool reuse_store = false;
  // TOML configuration (EngineOptions::config_file). Default: "" = built-in values.
  std::string config_file;
  // Overrides the configuration's [embedder] kind when not empty ("hashing" for stores larger
  // than the built-in encoder can embed in time). Default: "".
  std::string embedder_kind;
  // EngineOptions::data_dir. Default: "".
  std::string data_dir;
  // Per-question JSONL trace. Default: "" = none (and no trace recall).
  std::string trace_path;
  // After each conversation's turns are stored (or reused), run Engine::Consolidate on its scope
  // (episodes, scenes, profiles: what the scene route reads), timed apart from the ingest.
  // Default: false.
  bool consolidate = false;
  // LongMemEval: also ingest the abstention questions' haystacks ("_abs" ids, whose answer is
  // not in them) and recall them for the sufficiency report only; they never enter the
  // retrieval metrics. Costs their ingest. Default: false (they are skipped).
  bool sufficiency = false;
  // Only these conversations (LoCoMo sample_id) or questions (LongMemEval question_id), in the
  // file's order: for reporting a held-out part of a file by itself. An id the file does not
  // hold, or an empty one, is kInvalidArgument naming it. Applied before `limit`. Default: empty
  // = all.
  std::vector<std::string> only;
  // Only the first N conversations (LoCoMo) or questions (LongMemEval). Default: 0 = all.
  std::size_t limit = 0;
  // End-to-end QA (qa.h): receives every question with its user recall's packed context, in
  // file order. With it set, the questions the retrieval metrics skip (LoCoMo questions without
  // evidence; LongMemEval abstention questions and questions without a has_answer user turn)
  // are ingested and recalled too, for it alone: the retrieval report is unchanged. Default:
  // empty = none.
  std::function<void(QaQuestion)> qa_sink;
  // Progress bar destination. Default: nullptr = silent.
  std::ostream* progress = nullptr;
  // Redraw one line with '\r' (a terminal) instead of writing log lines. Default: false.
  bool progress_interactive = false;
};

// engram's version as recorded in reports ("0.1.0").
std::string_view EngineVersion();

// The flat baseline's configuration: `config` with everything beyond plain BM25 over single
// turns switched off — no planner ([planner] enabled = false), no neighbour expansion
// (neighbour_weight 0), no person boost (1), no stemming ([bm25] stem = false) and no embedder
// (kind "none"). The BM25 constants, limits and write settings are left as they are. What it
// leaves is BM25 (k1, b) over one document per turn: speaker name plus text, lowercase word
// tokens, stopwords dropped.
Config FlatBaseline(Config config);
// The route the flat baseline runs.
inline constexpr std::string_view kFlatRoute = "bm25";

// The LoCoMo run. Errors: the file's (kNotFound, kInvalidArgument naming the field), the store's,
// kAlreadyExists when a conversation's scope already exists in store_path, kInvalidArgument for a
// zero cut-off, kUnavailable when the trace cannot be written.
StatusOr<io::Json> RunLocomoBench(const BenchOptions& options);

// The LongMemEval run (official retrieval protocol: abstention questions and questions without
// a has_answer user turn are skipped). Errors as for RunLocomoBench.
StatusOr<io::Json> RunLongMemEvalBench(const BenchOptions& options);

}  // namespace engram::eval

#endif  // ENGRAM_EVAL_BENCH_H_
