// bench_command.cc: `engram bench` — the benchmark harness (src/eval, docs/BENCHMARKS.md):
//
//   engram bench locomo --data locomo10.json [--k 5,10,30] [--routes bm25 | --flat]
//                       [--json OUT] [--trace OUT.jsonl] [--store PATH [--reuse]] [--only ID,...]
//                       [--limit N]
//                       [--consolidate]
//   engram bench longmemeval --data longmemeval_s.json.zst [same flags; --k = turn cut-offs]
//                            [--abstention]  (the _abs questions, for the sufficiency report)
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
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "eval/bench.h"
#include "eval/perf.h"
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

bool Interactive(const Console& console) { return !console.quiet() && isatty(STDERR_FILENO); }

int RunDataset(std::string_view command, const DatasetArgs& args, Console& console, bool locomo) {
  if (args.flat && !args.routes.empty()) {
    return console.UsageError(
        command, "--flat runs only the bm25 route and cannot be combined with --routes");
  }
  if (args.reuse && args.store.empty()) {
    return console.UsageError(command, "--reuse needs --store (the store to recall over)");
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
  StatusOr<io::Json> report =
      locomo ? eval::RunLocomoBench(options) : eval::RunLongMemEvalBench(options);
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
