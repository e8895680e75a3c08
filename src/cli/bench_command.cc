// bench_command.cc: `engram bench` — the benchmark harness (src/eval, docs/BENCHMARKS.md):
//
//   engram bench locomo --data locomo10.json [--k 5,10,30] [--routes bm25 | --flat]
//                       [--json OUT] [--trace OUT.jsonl] [--store PATH [--reuse]] [--only ID,...]
//                       [--limit N]
//                       [--consolidate]
//   engram bench longmemeval --data longmemeval_s.json.zst [same flags; --k = turn cut-offs]
//                            [--abstention]  (the _abs questions, for the sufficiency report)
//   either, end to end (eval/qa.h): --answer-with URL --answer-model NAME [--judge-with URL]
//       [--judge-model NAME] [--answers FILE.jsonl] [--answer-prompt FILE] [--judge-prompt FILE]
//       [--price-in USD --price-out USD] [--judge-price-in USD --judge-price-out USD]
//       [--concurrency N] [--llm-timeout S] [--seed N] [--max-failures N] [--adversarial]
//       API keys from ENGRAM_LLM_API_KEY (answer) and ENGRAM_JUDGE_API_KEY (judge).
//   engram bench perf [--memories 2000] [--scopes 10] [--queries 500] [--embedder hashing]
//                     [--wait indexed|durable|derived] [--json OUT] [--store PATH [--reuse]]
//   engram bench explain TRACE QUESTION_ID      (--json: the raw trace line)
//   engram bench understanding [--data DIR] [--split dev|test|all] [--limit N] [--json OUT]
//                              [--list N]   (the write path against tests/data/understanding)
//
// Results print as tables on stdout (the report JSON with the global --json); --json OUT after
// the subcommand also writes the report to a file. The progress bar goes to stderr (not with
// --quiet). Benchmark stores are temporary unless --store is given after the subcommand; the
// global --store is deliberately not used, so a benchmark never writes into a user's store.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "eval/bench.h"
#include "eval/perf.h"
#include "eval/qa.h"
#include "eval/trace_explain.h"
#include "eval/understanding_bench.h"

namespace engram::cli {
namespace {

struct DatasetArgs {
  std::string data;
  std::vector<std::size_t> ks;
  std::vector<std::string> routes;
  bool flat = false;
  std::string json_out;
  std::string trace;
  std::string store;
  bool reuse = false;
  bool consolidate = false;
  bool abstention = false;
  std::vector<std::string> only;
  std::size_t limit = 0;
  // End-to-end QA (eval/qa.h); off unless answer_with is set.
  std::string answer_with;
  std::string answer_model;
  std::string judge_with;
  std::string judge_model;
  std::string answers;
  std::string answer_prompt;
  std::string judge_prompt;
  double price_in = 0;
  double price_out = 0;
  double judge_price_in = 0;
  double judge_price_out = 0;
  std::size_t concurrency = 1;
  double llm_timeout_s = 120;
  std::optional<std::int64_t> seed;
  std::size_t max_failures = 5;
  bool adversarial = false;
};

struct PerfArgs {
  std::size_t memories = eval::PerfOptions{}.memories;
  std::size_t scopes = 10;
  std::size_t queries = 500;
  std::size_t session_turns = 20;
  std::uint64_t seed = 42;
  std::string json_out;
  std::string store;
  bool reuse = false;
  std::string embedder;
  std::string wait = "indexed";
};

struct ExplainArgs {
  std::string trace;
  std::string question_id;
};

std::string Fixed(double value, int decimals) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.*f", decimals, value);
  return buffer;
}

double Number(const io::Json& json, const char* key) {
  const auto found = json.find(key);
  return found != json.end() && found->is_number() ? found->get<double>() : 0.0;
}

Status WriteJsonFile(const std::string& path, const io::Json& report) {
  std::ofstream out(path, std::ios::out | std::ios::trunc | std::ios::binary);
  out << io::Dump(report, /*pretty=*/true) << "\n";
  out.close();
  if (!out) return Status::Unavailable("cannot write " + path);
  return Status::Ok();
}

// One table: a row per (label, metrics object), a column per metric key of the first row.
void PrintTable(const std::vector<std::pair<std::string, const io::Json*>>& rows,
                const std::vector<std::size_t>& counts, std::ostream& out) {
  if (rows.empty() || !rows[0].second->is_object()) return;
  std::vector<std::string> columns;
  for (auto entry = rows[0].second->begin(); entry != rows[0].second->end(); ++entry) {
    columns.push_back(entry.key());
  }
  char cell[64];
  std::snprintf(cell, sizeof(cell), "%-28s", "");
  out << cell;
  for (const std::string& column : columns) {
    std::snprintf(cell, sizeof(cell), " %13s", column.c_str());
    out << cell;
  }
  out << "      n\n";
  for (std::size_t row_idx = 0; row_idx < rows.size(); ++row_idx) {
    std::snprintf(cell, sizeof(cell), "%-28s", Printable(rows[row_idx].first).c_str());
    out << cell;
    for (const std::string& column : columns) {
      std::snprintf(cell, sizeof(cell), " %13s",
                    Fixed(Number(*rows[row_idx].second, column.c_str()), 3).c_str());
      out << cell;
    }
    std::snprintf(cell, sizeof(cell), " %6zu", counts[row_idx]);
    out << cell << "\n";
  }
}

// How often the user recalls said "insufficient", on questions without and with evidence.
void PrintSufficiency(const io::Json& sufficiency, std::ostream& out) {
  if (!sufficiency.is_object()) return;
  out << "\nsufficiency (user recall)      sufficient      partial  insufficient      n\n";
  const auto row = [&out](const std::string& name, const io::Json& counts) {
    char line[160];
    std::snprintf(line, sizeof line, "%-28s %12zu %12zu %13zu %6zu\n", name.c_str(),
                  counts["sufficient"].get<std::size_t>(), counts["partial"].get<std::size_t>(),
                  counts["insufficient"].get<std::size_t>(),
                  counts["questions"].get<std::size_t>());
    out << line;
  };
  row("no evidence in the memory", sufficiency["no_evidence"]);
  row("answerable", sufficiency["answerable"]);
  for (auto entry = sufficiency["by_category"].begin(); entry != sufficiency["by_category"].end();
       ++entry) {
    row("  " + entry.key(), *entry);
  }
  const auto share = [](const io::Json& value) {
    return value.is_null() ? std::string("-") : Fixed(value.get<double>(), 3);
  };
  out << "\"insufficient\": precision " << share(sufficiency["insufficient_precision"])
      << ", recall " << share(sufficiency["insufficient_recall"]) << "\n";
}

void PrintCost(const io::Json& report, std::ostream& out) {
  const io::Json& config = report["config"];
  const io::Json& tokens = report["context_tokens"];
  const io::Json& latency = report["latency_ms"];
  const io::Json& ingest = report["ingest"];
  const io::Json& user = config["recalls"]["user"];
  out << "\ncontext tokens (default k " << user["k"].dump() << ", budget "
      << user["token_budget"].dump() << "): mean " << Fixed(Number(tokens, "mean"), 1) << "  p50 "
      << Fixed(Number(tokens, "p50"), 0) << "  p95 " << Fixed(Number(tokens, "p95"), 0) << "\n";
  out << "recall latency (default settings): p50 " << Fixed(Number(latency, "p50"), 3)
      << " ms  p95 " << Fixed(Number(latency, "p95"), 3) << " ms  p99 "
      << Fixed(Number(latency, "p99"), 3) << " ms\n";
  out << "ingest: " << ingest["turns"].dump() << " turns in " << Fixed(Number(ingest, "seconds"), 2)
      << " s (" << Fixed(Number(ingest, "turns_per_s"), 0) << " turns/s)";
  if (Number(ingest, "reused_scopes") > 0) {
    out << "; " << ingest["reused_scopes"].dump() << " scopes reused as stored";
  }
  if (Number(ingest, "consolidated_scopes") > 0) {
    out << "; consolidated " << ingest["consolidated_scopes"].dump() << " scopes in "
        << Fixed(Number(ingest, "consolidate_seconds"), 2) << " s ("
        << Fixed(Number(ingest, "consolidate_seconds_per_1000_turns"), 2) << " s / 1,000 turns)";
  }
  out << "\n";
}

void PrintDatasetReport(const io::Json& report, std::ostream& out) {
  const io::Json& config = report["config"];
  std::string routes;
  for (const io::Json& route : config["routes"]) {
    routes += (routes.empty() ? "" : ",") + route.get<std::string>();
  }
  const bool locomo = report["dataset"] == "locomo";
  out << (locomo ? "LoCoMo" : "LongMemEval") << ": " << report["questions"].dump()
      << " questions evaluated, routes " << (routes.empty() ? "-" : routes)
      << (config.value("flat", false) ? " (flat baseline)" : "") << ", engram "
      << config["engine_version"].get<std::string>() << ", eval k "
      << config["recalls"]["eval"]["k"].dump() << "\n\n";
  const std::size_t total = report["questions"].get<std::size_t>();
  if (locomo) {
    std::vector<std::pair<std::string, const io::Json*>> rows = {{"overall", &report["metrics"]}};
    std::vector<std::size_t> counts = {total};
    for (auto entry = report["by_category"].begin(); entry != report["by_category"].end();
         ++entry) {
      rows.emplace_back(entry.key() + " (" + (*entry)["category"].dump() + ")",
                        &(*entry)["metrics"]);
      counts.push_back((*entry)["questions"].get<std::size_t>());
    }
    PrintTable(rows, counts, out);
  } else {
    for (const char* level : {"session", "turn"}) {
      out << level << " level:\n";
      std::vector<std::pair<std::string, const io::Json*>> rows = {
          {"overall", &report["metrics"][level]}};
      std::vector<std::size_t> counts = {total};
      for (auto entry = report["by_category"].begin(); entry != report["by_category"].end();
           ++entry) {
        rows.emplace_back(entry.key(), &(*entry)["metrics"][level]);
        counts.push_back((*entry)["questions"].get<std::size_t>());
      }
      PrintTable(rows, counts, out);
      out << "\n";
    }
  }
  PrintSufficiency(report["sufficiency"], out);
  PrintCost(report, out);
}

std::string Count(const io::Json& json, const char* key) {
  const auto found = json.find(key);
  return found != json.end() && found->is_number() ? found->dump() : "0";
}

std::string Share(const io::Json& value) {
  return value.is_number() ? Fixed(value.get<double>(), 3) : std::string("-");
}

// The QA section: accuracy per category beside the retrieval's evidence in the context, then
// failures, tokens and cost.
void PrintQaReport(const io::Json& report, std::ostream& out) {
  const io::Json& qa = report["qa"];
  const bool locomo = report["dataset"] == "locomo";
  out << "\nend-to-end QA (" << (locomo ? "LoCoMo J-score" : "LongMemEval judge") << "): answer "
      << qa["answer"]["model"].get<std::string>() << " at "
      << qa["answer"]["url"].get<std::string>() << ", judge "
      << qa["judge"]["model"].get<std::string>() << " at " << qa["judge"]["url"].get<std::string>()
      << "\n";
  char line[200];
  std::snprintf(line, sizeof line, "%-28s %9s %8s %8s %6s %14s\n", "", "accuracy", "judged",
                "failed", "n", "evidence_all");
  out << line;
  const auto row = [&](const std::string& name, const io::Json& tally, const io::Json* context) {
    const std::string evidence = context != nullptr && context->is_object()
                                     ? Share(context->value("evidence_all", io::Json()))
                                     : std::string("-");
    std::snprintf(line, sizeof line, "%-28s %9s %8s %8s %6s %14s\n", Printable(name).c_str(),
                  Share(tally["accuracy"]).c_str(), Count(tally, "judged").c_str(),
                  Count(tally, "failed").c_str(), Count(tally, "questions").c_str(),
                  evidence.c_str());
    out << line;
  };
  row("overall", qa, &report["context"]);
  for (auto entry = qa["by_category"].begin(); entry != qa["by_category"].end(); ++entry) {
    const auto retrieval = report["by_category"].find(entry.key());
    row("  " + entry.key(), *entry,
        retrieval == report["by_category"].end() ? nullptr : &(*retrieval)["context"]);
  }
  if (qa.contains("abstention")) row("  abstention (_abs)", qa["abstention"], nullptr);
  out << "accuracy = correct / judged; over all questions (failures as wrong): "
      << Share(qa["accuracy_over_all"])
      << "; evidence_all: every gold turn in the packed context\n";
  if (Number(qa, "excluded") > 0) {
    out << "excluded: " << qa["excluded"].dump() << " (" << qa.value("excluded_why", "") << ")\n";
  }
  const io::Json& failures = qa["failures_by_role"];
  out << "failures: answer " << Count(failures, "answer") << ", judge " << Count(failures, "judge")
      << "\n";
  for (const io::Json& failure : qa["failures"]) {
    out << "  " << failure["question_id"].get<std::string>() << " ("
        << failure["role"].get<std::string>() << "): " << failure["error"].get<std::string>()
        << "\n";
  }
  const io::Json& tokens = qa["tokens"];
  const io::Json& cost = qa["cost"];
  for (const char* role : {"answer", "judge"}) {
    out << "tokens (" << role << "): " << Count(tokens[role], "prompt_tokens") << " in, "
        << Count(tokens[role], "completion_tokens") << " out, " << Count(tokens[role], "requests")
        << " replies";
    if (Number(tokens[role], "replies_without_usage") > 0) {
      out << " (" << tokens[role]["replies_without_usage"].dump() << " without usage counts)";
    }
    out << "\n";
  }
  out << "cost: $" << Fixed(Number(cost, "total_usd"), 4) << " (answer $"
      << Fixed(Number(cost, "answer_usd"), 4) << ", judge $" << Fixed(Number(cost, "judge_usd"), 4)
      << "; $" << Fixed(Number(cost, "per_question_usd"), 6) << " per question); mean context "
      << Fixed(Number(qa, "context_tokens_mean"), 0) << " tokens\n";
  out << "requests this run: " << Count(qa, "requests_this_run")
      << "; resumed: " << Count(qa, "resumed") << " questions";
  if (qa["answers_file"].is_string())
    out << " (answers: " << qa["answers_file"].get<std::string>() << ")";
  out << "\n";
}

// The QA options of the flags; kInvalidArgument naming a bad one.
StatusOr<eval::QaOptions> QaOptionsFrom(const DatasetArgs& args, Console& console) {
  eval::QaOptions qa;
  qa.answer.base_url = args.answer_with;
  qa.answer.model = args.answer_model;
  qa.answer.prompt_file = args.answer_prompt;
  qa.answer.price_in_per_million = args.price_in;
  qa.answer.price_out_per_million = args.price_out;
  qa.judge.base_url = args.judge_with;
  qa.judge.model = args.judge_model;
  qa.judge.prompt_file = args.judge_prompt;
  qa.judge.price_in_per_million = args.judge_price_in;
  qa.judge.price_out_per_million = args.judge_price_out;
  if (const char* key = std::getenv("ENGRAM_LLM_API_KEY")) qa.answer.api_key = key;
  if (const char* key = std::getenv("ENGRAM_JUDGE_API_KEY")) qa.judge.api_key = key;
  qa.seed = args.seed;
  if (!(args.llm_timeout_s > 0) || args.llm_timeout_s > 86400) {
    return Status::InvalidArgument("--llm-timeout must be > 0 and at most 86400 seconds");
  }
  qa.timeout = std::chrono::milliseconds(static_cast<std::int64_t>(args.llm_timeout_s * 1000));
  qa.concurrency = args.concurrency;
  qa.answers_path = args.answers;
  qa.max_consecutive_failures = args.max_failures;
  qa.include_adversarial = args.adversarial;
  qa.progress = console.quiet() ? nullptr : &console.err();
  RETURN_IF_ERROR(qa.Validate());
  return qa;
}

bool Interactive(const Console& console) { return !console.quiet() && isatty(STDERR_FILENO); }

int RunDataset(std::string_view command, const DatasetArgs& args, Console& console, bool locomo) {
  if (args.flat && !args.routes.empty()) {
    return console.UsageError(
        command, "--flat runs only the bm25 route and cannot be combined with --routes");
  }
  if (args.reuse && args.store.empty()) {
    return console.UsageError(command, "--reuse needs --store (the store to recall over)");
  }
  const bool qa_flags = !args.answer_model.empty() || !args.judge_with.empty() ||
                        !args.judge_model.empty() || !args.answers.empty() ||
                        !args.answer_prompt.empty() || !args.judge_prompt.empty() ||
                        args.adversarial;
  if (args.answer_with.empty() && qa_flags) {
    return console.UsageError(command,
                              "the answer and judge flags need --answer-with URL (the answer "
                              "model's OpenAI-compatible endpoint)");
  }
  std::optional<eval::QaOptions> qa;
  if (!args.answer_with.empty()) {
    StatusOr<eval::QaOptions> parsed = QaOptionsFrom(args, console);
    if (!parsed.ok()) return console.UsageError(command, parsed.status().message());
    qa = std::move(parsed).value();
  }
  eval::BenchOptions options;
  options.data_path = args.data;
  options.ks = args.ks;
  options.routes = args.routes;
  options.flat = args.flat;
  options.store_path = args.store;
  options.reuse_store = args.reuse;
  options.consolidate = args.consolidate;
  options.sufficiency = args.abstention;
  options.config_file = console.global().config;
  options.data_dir = console.global().data_dir;
  options.trace_path = args.trace;
  options.only = args.only;
  options.limit = args.limit;
  options.progress = console.quiet() ? nullptr : &console.err();
  options.progress_interactive = Interactive(console);
  const eval::BenchDataset dataset =
      locomo ? eval::BenchDataset::kLocomo : eval::BenchDataset::kLongMemEval;
  StatusOr<io::Json> report = qa.has_value() ? eval::RunBenchWithQa(dataset, options, *qa)
                              : locomo       ? eval::RunLocomoBench(options)
                                             : eval::RunLongMemEvalBench(options);
  if (!report.ok()) return console.Fail(command, report.status());
  if (!args.json_out.empty()) {
    if (Status written = WriteJsonFile(args.json_out, *report); !written.ok()) {
      return console.Fail(command, written);
    }
  }
  if (console.json()) {
    console.PrintJson(*report);
  } else {
    PrintDatasetReport(*report, console.out());
    if (report->contains("qa")) PrintQaReport(*report, console.out());
    if (!args.json_out.empty()) console.out() << "report: " << args.json_out << "\n";
    if (!args.trace.empty()) console.out() << "trace: " << args.trace << "\n";
  }
  return ToInt(ExitCode::kOk);
}

int RunPerfCommand(const PerfArgs& args, Console& console) {
  eval::PerfOptions options;
  options.memories = args.memories;
  options.scopes = args.scopes;
  options.queries = args.queries;
  options.session_turns = args.session_turns;
  options.seed = args.seed;
  StatusOr<RememberWait> wait = ParseRememberWait(args.wait);
  if (!wait.ok()) return console.Fail("bench perf", wait.status());
  options.ingest_wait = *wait;
  options.store_path = args.store;
  options.reuse_store = args.reuse;
  options.embedder_kind = args.embedder;
  options.config_file = console.global().config;
  options.data_dir = console.global().data_dir;
  options.progress = console.quiet() ? nullptr : &console.err();
  options.progress_interactive = Interactive(console);
  StatusOr<io::Json> report = eval::RunPerf(options);
  if (!report.ok()) return console.Fail("bench perf", report.status());
  if (!args.json_out.empty()) {
    if (Status written = WriteJsonFile(args.json_out, *report); !written.ok()) {
      return console.Fail("bench perf", written);
    }
  }
  if (console.json()) {
    console.PrintJson(*report);
    return ToInt(ExitCode::kOk);
  }
  std::ostream& out = console.out();
  const io::Json& workload = (*report)["workload"];
  const io::Json& latency = (*report)["latency_ms"];
  out << "perf: " << workload["memories"].dump() << " turns in " << workload["scopes"].dump()
      << " scopes (" << workload["sessions"].dump() << " sessions, seed " << workload["seed"].dump()
      << "), " << workload["queries"].dump() << " recalls\n";
  if ((*report)["ingest"].contains("reused")) {
    out << "ingest: not timed (the perf scopes were in the store already)\n";
  } else {
    const io::Json& ingest = (*report)["ingest"];
    const auto phase = [&](const char* name) {
      const io::Json& timed = ingest[name];
      return Fixed(Number(timed, "turns_per_s"), 0) + " turns/s (" +
             Fixed(Number(timed, "seconds"), 2) + " s, CPU " +
             Fixed(Number(timed, "cpu_seconds"), 2) + " s)";
    };
    out << "ingest (writes wait " << ingest["wait"].get<std::string>() << "): acknowledged "
        << phase("acknowledged") << "; derived " << phase("derived") << "\n";
    out << "ingest: CPU in the Remember calls (the caller's thread): "
        << Fixed(Number(ingest["acknowledged"], "remember_cpu_seconds"), 2) << " s\n";
    out << "ingest with each scope's first recall: " << Fixed(Number(ingest, "turns_per_s"), 0)
        << " turns/s (" << Fixed(Number(ingest, "seconds"), 2) << " s)\n";
  }
  out << "recall latency: p50 " << Fixed(Number(latency, "p50"), 3) << " ms  p95 "
      << Fixed(Number(latency, "p95"), 3) << " ms  p99 " << Fixed(Number(latency, "p99"), 3)
      << " ms  mean " << Fixed(Number(latency, "mean"), 3) << " ms\n";
  const io::Json& cpu = (*report)["cpu_ms"];
  out << "recall CPU time: p50 " << Fixed(Number(cpu, "p50"), 3) << " ms  p95 "
      << Fixed(Number(cpu, "p95"), 3) << " ms  p99 " << Fixed(Number(cpu, "p99"), 3) << " ms\n";
  out << "store on disk: " << Fixed(Number(*report, "store_bytes") / (1024.0 * 1024.0), 1)
      << " MiB (" << Fixed(Number(*report, "store_bytes_per_turn"), 0) << " bytes per turn)\n";
  out << "open: " << Fixed(Number(*report, "open_ms"), 2) << " ms  peak RSS: "
      << Fixed(Number(*report, "peak_rss_bytes") / (1024.0 * 1024.0), 1) << " MiB\n";
  for (const char* name : {"fts5", "hnswlib"}) {
    const io::Json& primitive = (*report)["primitives"][name];
    const io::Json& ratio = (*report)["ratios"][name];
    out << "raw " << name << " (k " << primitive["k"].dump() << "): p50 "
        << Fixed(Number(primitive["latency_ms"], "p50"), 3) << " ms  p95 "
        << Fixed(Number(primitive["latency_ms"], "p95"), 3) << " ms; engram / " << name << ": p50 x"
        << Fixed(Number(ratio, "latency_p50"), 1) << "  p95 x"
        << Fixed(Number(ratio, "latency_p95"), 1) << " (CPU p50 x"
        << Fixed(Number(ratio, "cpu_p50"), 1) << ")\n";
  }
  const io::Json& both = (*report)["ratios"]["fts5_plus_hnswlib"];
  out << "engram / (fts5 + hnswlib): p50 x" << Fixed(Number(both, "latency_p50"), 1) << "  p95 x"
      << Fixed(Number(both, "latency_p95"), 1) << " (CPU p50 x" << Fixed(Number(both, "cpu_p50"), 1)
      << "  p95 x" << Fixed(Number(both, "cpu_p95"), 1) << ")\n";
  out << "hnswlib vectors: " << (*report)["primitives"]["hnswlib"]["vectors"].get<std::string>()
      << "\n";
  return ToInt(ExitCode::kOk);
}

void AddDatasetCommand(CLI::App& bench, std::string name, std::string description,
                       std::string k_help, bool locomo, Console& console, CommandList* commands) {
  auto args = std::make_shared<DatasetArgs>();
  CLI::App* command = bench.add_subcommand(name, description);
  command->add_option("--data", args->data, "Benchmark file (.json or .json.zst; '-' = stdin)")
      ->required();
  command->add_option("--k", args->ks, k_help)->delimiter(',')->check(WholeNumber(1));
  command
      ->add_option("--routes", args->routes,
                   "Routes to run, comma-separated (default: the planner's choice)")
      ->delimiter(',');
  command->add_flag("--flat", args->flat,
                    "The flat BM25 baseline: only the bm25 route, no planner, no neighbour "
                    "expansion, no person boost, no stemming, no embedder (not with --routes)");
  command->add_flag("--consolidate", args->consolidate,
                    "Consolidate each conversation's scope after storing it (episodes and scenes "
                    "for the scene route; timed apart)");
  if (!locomo) {
    command->add_flag("--abstention", args->abstention,
                      "Also ingest and recall the abstention questions (_abs), for the "
                      "sufficiency report only (never the retrieval metrics)");
  }
  command->add_option("--json", args->json_out, "Also write the report JSON to this file");
  command->add_option("--trace", args->trace, "Write a per-question trace (JSON lines) here");
  command->add_option("--store", args->store,
                      "Ingest into this store and keep it (default: a temporary store)");
  command->add_flag("--reuse", args->reuse,
                    "With --store: recall over scopes already there (they must hold exactly the "
                    "file's turns) instead of failing; for read-path experiments");
  command
      ->add_option("--only", args->only,
                   locomo ? "Only these conversations (sample_id, e.g. conv-42), comma-separated"
                          : "Only these questions (question_id), comma-separated")
      ->delimiter(',');
  command
      ->add_option("--limit", args->limit,
                   locomo ? "Only the first N conversations" : "Only the first N questions")
      ->check(WholeNumber(0));
  // End-to-end QA (eval/qa.h, docs/BENCHMARKS.md).
  const std::string qa_group = "End-to-end QA (any OpenAI-compatible endpoint)";
  command
      ->add_option("--answer-with", args->answer_with,
                   "Answer each question from its packed context with this chat-completions "
                   "endpoint (e.g. http://127.0.0.1:11434/v1) and judge the answers; API key from "
                   "ENGRAM_LLM_API_KEY")
      ->group(qa_group);
  command
      ->add_option("--answer-model", args->answer_model,
                   "Answer model (required with --answer-with)")
      ->group(qa_group);
  command
      ->add_option("--judge-with", args->judge_with,
                   "Judge endpoint (default: the answer endpoint); API key from "
                   "ENGRAM_JUDGE_API_KEY, else the answer's")
      ->group(qa_group);
  command->add_option("--judge-model", args->judge_model, "Judge model (default: the answer model)")
      ->group(qa_group);
  command
      ->add_option("--answers", args->answers,
                   "Append each question's answer and verdict here (JSON lines); a rerun with the "
                   "same settings reuses them and asks only what is missing or failed")
      ->group(qa_group);
  command
      ->add_option("--answer-prompt", args->answer_prompt,
                   "Answer prompt template file ({question} {context} {question_date} ...; "
                   "default: the built-in prompt, docs/BENCHMARKS.md)")
      ->group(qa_group);
  command
      ->add_option("--judge-prompt", args->judge_prompt,
                   "Judge prompt template file, or a JSON object of templates per category with "
                   "a \"default\" (default: the built-in judge of the dataset's protocol)")
      ->group(qa_group);
  command
      ->add_option("--price-in", args->price_in,
                   "Answer model: dollars per million input tokens (default 0)")
      ->group(qa_group);
  command
      ->add_option("--price-out", args->price_out,
                   "Answer model: dollars per million output tokens (default 0)")
      ->group(qa_group);
  command
      ->add_option("--judge-price-in", args->judge_price_in,
                   "Judge: dollars per million input tokens (default: --price-in when the judge "
                   "is the answer model, else 0)")
      ->group(qa_group);
  command
      ->add_option("--judge-price-out", args->judge_price_out,
                   "Judge: dollars per million output tokens (default as --judge-price-in)")
      ->group(qa_group);
  command->add_option("--concurrency", args->concurrency, "Requests in flight at once (default 1)")
      ->check(WholeNumber(1))
      ->group(qa_group);
  command->add_option("--llm-timeout", args->llm_timeout_s, "Seconds per request (default 120)")
      ->group(qa_group);
  command
      ->add_option("--seed", args->seed, "Seed sent with every request (temperature is always 0)")
      ->group(qa_group);
  command
      ->add_option("--max-failures", args->max_failures,
                   "Stop after this many failed requests in a row (default 5)")
      ->check(WholeNumber(1))
      ->group(qa_group);
  if (locomo) {
    command
        ->add_flag("--adversarial", args->adversarial,
                   "Also answer category 5 (adversarial), which published J-scores leave out")
        ->group(qa_group);
  }
  const std::string full_name = "bench " + name;
  commands->push_back({command, [args, &console, full_name, locomo] {
                         return RunDataset(full_name, *args, console, locomo);
                       }});
}

}  // namespace

void AddBenchCommands(CLI::App& app, Console& console, CommandList* commands) {
  CLI::App* bench = app.add_subcommand(
      "bench", "Benchmarks: retrieval quality (LoCoMo, LongMemEval) and performance");
  bench->require_subcommand(1);
  bench->footer(
      "Retrieval is measured on the turn ranking of each recall: the provenance turns of the\n"
      "items in rank order, duplicates removed. docs/BENCHMARKS.md describes the protocol.\n");
  AddDatasetCommand(*bench, "locomo", "LoCoMo turn-level Recall@k, Hit@k, MRR@30, cost and latency",
                    "Cut-offs, comma-separated (default 5,10,30)", /*locomo=*/true, console,
                    commands);
  AddDatasetCommand(*bench, "longmemeval",
                    "LongMemEval session- and turn-level recall_any/all@k, NDCG, cost, latency",
                    "Turn-level cut-offs, comma-separated (default 10,50); session level "
                    "is always 5,10",
                    /*locomo=*/false, console, commands);

  auto perf_args = std::make_shared<PerfArgs>();
  CLI::App* perf = bench->add_subcommand(
      "perf", "Synthetic workload: ingest turns/s, recall latency, store size");
  perf->add_option("--memories", perf_args->memories,
                   "Turns to store (default 2000; the issue's sizes: 10000, 100000, 1000000)")
      ->check(WholeNumber(1));
  perf->add_option("--scopes", perf_args->scopes, "Scopes to spread them over (default 10)")
      ->check(WholeNumber(1));
  perf->add_option("--queries", perf_args->queries, "Recalls to time (default 500)")
      ->check(WholeNumber(1));
  perf->add_option("--session-turns", perf_args->session_turns,
                   "Turns per session, one Remember call each (default 20)")
      ->check(WholeNumber(1));
  perf->add_option("--seed", perf_args->seed, "Generator seed (default 42)");
  perf->add_option("--json", perf_args->json_out, "Also write the report JSON to this file");
  perf->add_option("--store", perf_args->store,
                   "Build the store here and keep it (default: a temporary store)");
  perf->add_flag("--reuse", perf_args->reuse,
                 "With --store: time recalls over perf scopes already there (built by the same "
                 "--memories, --scopes, --session-turns and --seed) instead of failing");
  perf->add_option("--wait", perf_args->wait,
                   "How far each Remember goes before it returns (default indexed: the report "
                   "gives acknowledged and derived ingest; derived: synchronous writes)")
      ->check(CLI::IsMember({"durable", "indexed", "derived"}));
  perf->add_option("--embedder", perf_args->embedder,
                   "Override [embedder] kind (hashing: for sizes the built-in encoder cannot "
                   "embed in time)");
  commands->push_back(
      {perf, [perf_args, &console] { return RunPerfCommand(*perf_args, console); }});

  auto explain_args = std::make_shared<ExplainArgs>();
  CLI::App* explain = bench->add_subcommand("explain",
                                            "Explain one question of a trace: where each gold turn "
                                            "was lost (never retrieved, ranked out, packed)");
  explain->add_option("TRACE", explain_args->trace, "Trace file written by --trace")->required();
  explain
      ->add_option("QUESTION_ID", explain_args->question_id,
                   "Question id (LoCoMo: conv-26:q17; LongMemEval: the question_id)")
      ->required();
  commands->push_back({explain, [explain_args, &console] {
                         StatusOr<io::Json> line = eval::FindTraceQuestion(
                             explain_args->trace, explain_args->question_id);
                         if (!line.ok()) return console.Fail("bench explain", line.status());
                         if (console.json()) {
                           console.PrintJson(*line);  // the raw trace line
                           return ToInt(ExitCode::kOk);
                         }
                         const Status status = eval::ExplainTraceLine(*line, console.out());
                         if (!status.ok()) return console.Fail("bench explain", status);
                         return ToInt(ExitCode::kOk);
                       }});

  // bench understanding: the write path scored against labelled conversations (src/eval's
  // understanding_bench.h has the matching rules).
  struct UnderstandingArgs {
    std::string data;
    std::string split = "all";
    std::size_t limit = 0;
    std::size_t list = 10;
    std::string json_out;
  };
  auto understanding_args = std::make_shared<UnderstandingArgs>();
  CLI::App* understanding = bench->add_subcommand(
      "understanding",
      "Write-path understanding: facts, times, entities, references, profile and foresight "
      "against labelled conversations (P / R / F1, misses listed)");
  understanding->add_option("--data", understanding_args->data,
                            "Folder of the labelled sets (default: the source tree's "
                            "tests/data/understanding)");
  understanding->add_option("--split", understanding_args->split, "dev, test or all (default all)")
      ->check(CLI::IsMember({"dev", "test", "all"}));
  understanding->add_option("--limit", understanding_args->limit,
                            "Only the first N conversations and N cases of each split")
      ->check(WholeNumber(0));
  understanding->add_option("--list", understanding_args->list,
                            "Misses and false positives listed per family (default 10; 0 = all)")
      ->check(WholeNumber(0));
  understanding->add_option("--json", understanding_args->json_out,
                            "Also write the report JSON to this file");
  commands->push_back({understanding, [understanding_args, &console] {
                         eval::UnderstandingOptions options;
                         options.data_dir = understanding_args->data;
                         options.split = understanding_args->split;
                         options.limit = understanding_args->limit;
                         options.config_file = console.global().config;
                         options.engine_data_dir = console.global().data_dir;
                         options.progress = console.quiet() ? nullptr : &console.err();
                         options.progress_interactive = Interactive(console);
                         StatusOr<io::Json> report = eval::RunUnderstandingBench(options);
                         if (!report.ok()) {
                           return console.Fail("bench understanding", report.status());
                         }
                         if (!understanding_args->json_out.empty()) {
                           if (Status written =
                                   WriteJsonFile(understanding_args->json_out, *report);
                               !written.ok()) {
                             return console.Fail("bench understanding", written);
                           }
                         }
                         if (console.json()) {
                           console.PrintJson(*report);
                         } else {
                           eval::PrintUnderstandingReport(*report, console.out(),
                                                          understanding_args->list);
                         }
                         return ToInt(ExitCode::kOk);
                       }});
}

}  // namespace engram::cli
