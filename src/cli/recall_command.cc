// recall_command.cc: `engram recall` — asks the engine for the memories of a scope that answer a
// question and prints the ranked items with their scores, routes and provenance (or, with
// --context, only the packed context; with --json, the whole ReadResult).
#include <cstdio>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "engram/options.h"
#include "io/api_json.h"
#include "io/file_reader.h"

namespace engram::cli {
namespace {

constexpr std::string_view kCommand = "recall";
// Largest query read from stdin (the engine applies its own, smaller limit).
constexpr std::size_t kMaxStdinQueryBytes = 1 << 20;

struct RecallArgs {
  std::string scope;
  std::size_t k = 0;
  std::size_t budget = 0;
  std::vector<std::string> routes;
  std::string policy = "balanced";
  std::string mode = "evidence";
  std::string packing;  // "" = the config's
  bool include_retired = false;
  std::string at;
  AsOfFlags as_of;
  bool context_only = false;
  bool explain = false;
  std::vector<std::string> query_words;
};

std::string Score(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.4f", value);
  return buffer;
}

void PrintItems(const ReadResult& result, std::string_view scope, bool explain, Console& console) {
  std::ostream& out = console.out();
  if (!console.quiet()) {
    char latency[32];
    std::snprintf(latency, sizeof(latency), "%.1f", result.latency_ms);
    out << result.items.size() << (result.items.size() == 1 ? " item" : " items") << " from "
        << Printable(scope) << " for \"" << Excerpt(Printable(result.query), 120) << "\" (policy "
        << result.policy << ", " << result.diagnostics.context_tokens << " context tokens, "
        << latency << " ms)\n";
    if (result.sufficiency.verdict != "sufficient") {
      out << "sufficiency: " << result.sufficiency.verdict;
      for (const std::string& reason : result.sufficiency.reasons) {
        out << "; " << Printable(reason);
      }
      out << "\n";
    }
  }
  // Chat mode: the profile and foresight lines, as the context shows them.
  for (const ChatLine& line : result.chat) {
    out << line.section << " " << Printable(line.text) << "\n";
  }
  if (explain) {
    const Diagnostics& diagnostics = result.diagnostics;
    out << "frame: " << Printable(diagnostics.frame) << "\n";
    if (!diagnostics.chat.empty()) out << "chat: " << Printable(diagnostics.chat) << "\n";
    out << "plan: " << Printable(diagnostics.plan) << "\n";
    for (const std::string& warning : diagnostics.warnings) {
      out << "warning: " << Printable(warning) << "\n";
    }
    for (const RouteDiagnostics& route : diagnostics.routes) {
      out << "route " << Printable(route.route) << ": weight " << Score(route.weight) << ", "
          << route.candidates << " candidates";
      if (!route.error.empty()) out << ", error: " << Printable(route.error);
      out << "\n";
    }
    out << "fusion: weighted RRF, " << diagnostics.fused_candidates << " candidates; "
        << diagnostics.neighbours_added << " added as neighbours; " << diagnostics.bridged
        << " added by the entity bridge; " << diagnostics.filtered_out << " filtered out; "
        << diagnostics.dropped_by_budget << " dropped by the budget of " << diagnostics.token_budget
        << " tokens; " << diagnostics.deduplicated << " duplicates skipped\n";
    if (!diagnostics.ranker.empty()) out << "order: " << Printable(diagnostics.ranker) << "\n";
    if (diagnostics.superseded + diagnostics.successors_added + diagnostics.conflicted > 0) {
      out << "current state: " << diagnostics.superseded << " superseded, "
          << diagnostics.successors_added << " successors added, " << diagnostics.conflicted
          << " with conflicting claims\n";
    }
    if (!diagnostics.unpacked.empty()) {
      std::map<std::string, std::size_t> left_out;  // reason → items
      for (const UnpackedItem& item : diagnostics.unpacked) ++left_out[item.reason];
      out << "left out of the context:";
      for (const auto& [reason, count] : left_out) out << " " << reason << " " << count;
      out << "\n";
    }
    if (!diagnostics.filtered_by.empty()) {
      out << "filtered:";
      for (const auto& [filter, count] : diagnostics.filtered_by) {
        out << " " << filter << " " << count;
      }
      out << "\n";
    }
    for (const FilteredItem& filtered : diagnostics.filtered) {
      out << "  hidden " << (filtered.id.empty() ? "-" : filtered.id) << " by " << filtered.filter
          << ": " << Printable(filtered.reason) << "\n";
    }
  }
  std::size_t rank = 0;
  for (const RecallItem& item : result.items) {
    ++rank;
    out << "\n" << rank << ". [" << NodeKindName(item.kind) << "] score " << Score(item.score);
    if (!item.speaker.empty()) out << "  " << Printable(item.speaker);
    out << "  " << TimeOrDash(item.event_time);
    if (!item.session_id.empty()) out << "  " << Printable(item.session_id);
    out << "  seq " << item.sequence;
    if (item.status != NodeStatus::kActive) out << "  (" << NodeStatusName(item.status) << ")";
    out << "\n";
    std::istringstream lines(Printable(item.text, /*keep_newlines=*/true));
    for (std::string line; std::getline(lines, line);) out << "   " << line << "\n";
    if (item.excerpt) {
      out << "   (excerpt: bytes " << item.excerpt_begin << "-" << item.excerpt_end << " of "
          << item.full_bytes << ")\n";
    }
    if (item.superseded_by.has_value()) {
      out << "   superseded " << TimeOrDash(item.superseded_by->time) << " by "
          << Printable(item.superseded_by->statement) << ": "
          << Printable(item.superseded_by->text) << "\n";
    }
    for (const RelatedClaim& conflict : item.conflicts) {
      out << "   contradicted " << TimeOrDash(conflict.time) << " by "
          << Printable(conflict.statement) << ": " << Printable(conflict.text) << "\n";
    }
    out << "   routes:";
    if (item.routes.empty()) out << " -";
    for (const RouteScore& route : item.routes) {
      out << " " << Printable(route.route) << " #" << route.rank << " (" << Score(route.score)
          << ")";
    }
    out << "  fused " << Score(item.fused_score) << "\n";
    if (explain) {
      for (const RouteScore& route : item.routes) {
        out << "     " << Printable(route.route) << " #" << route.rank << " "
            << Printable(route.explanation) << "\n";
      }
    }
    for (const Adjustment& adjustment : item.adjustments) {
      out << "   adjusted: " << Printable(adjustment.name) << " x" << Score(adjustment.factor);
      if (adjustment.bonus != 0) out << " +" << Score(adjustment.bonus);
      if (!adjustment.detail.empty()) out << " (" << Printable(adjustment.detail) << ")";
      out << "\n";
    }
    if (item.metadata_json != "{}" && !item.metadata_json.empty()) {
      out << "   metadata: " << Excerpt(Printable(item.metadata_json), 200) << "\n";
    }
    out << "   id: " << item.id << "\n";
    out << "   provenance:";
    if (item.provenance.empty()) out << " -";
    for (const std::string& id : item.provenance) out << " " << Printable(id);
    out << "\n";
  }
  if (result.items.empty() && !console.quiet()) out << "no memories matched\n";
}

int RunRecall(const RecallArgs& args, Console& console) {
  StatusOr<Scope> scope = Scope::Parse(args.scope);
  if (!scope.ok()) return console.UsageError(kCommand, "--scope: " + scope.status().message());

  RecallQuery query;
  if (args.query_words.size() == 1 && args.query_words[0] == io::kStdinPath) {
    io::ReadOptions read_options;
    read_options.max_bytes = kMaxStdinQueryBytes;
    StatusOr<std::string> text = io::ReadFile(io::kStdinPath, read_options);
    if (!text.ok()) return console.Fail(kCommand, text.status());
    query.text = *std::move(text);
    while (!query.text.empty() && (query.text.back() == '\n' || query.text.back() == '\r')) {
      query.text.pop_back();
    }
  } else {
    for (const std::string& word : args.query_words) {
      if (!query.text.empty()) query.text += ' ';
      query.text += word;
    }
  }
  if (!args.at.empty()) {
    StatusOr<Timestamp> at = ParseTimestamp(args.at);
    if (!at.ok()) return console.UsageError(kCommand, "--at: " + at.status().message());
    query.query_time = *at;
  }

  RecallOptions options;
  StatusOr<AsOfTimes> as_of = ParseAsOfFlags(args.as_of);
  if (!as_of.ok()) return console.UsageError(kCommand, as_of.status().message());
  options.valid_at = as_of->valid_at;
  options.known_at = as_of->known_at;
  options.k = args.k;
  options.token_budget = args.budget;
  options.routes = args.routes;
  options.include_retired = args.include_retired;
  StatusOr<AnswerPolicy> policy = ParseAnswerPolicy(args.policy);
  if (!policy.ok()) return console.UsageError(kCommand, "--policy: " + policy.status().message());
  options.policy = *policy;
  StatusOr<ContextMode> mode = ParseContextMode(args.mode);
  if (!mode.ok()) return console.UsageError(kCommand, "--mode: " + mode.status().message());
  options.mode = *mode;
  if (!args.packing.empty()) {
    StatusOr<bool> by_value = io::ParsePacking(args.packing);
    if (!by_value.ok()) {
      return console.UsageError(kCommand, "--packing: " + by_value.status().message());
    }
    options.pack_by_value = *by_value;
  }

  StatusOr<std::unique_ptr<Engine>> engine = OpenEngine(console.global(), false);
  if (!engine.ok()) return console.Fail(kCommand, engine.status());
  StatusOr<ReadResult> result = (*engine)->Recall(*scope, query, options);
  if (!result.ok()) return console.Fail(kCommand, result.status());

  // What this recall could not do (word vectors or synonyms asked for but not installed, a
  // route that failed): said on stderr whatever the output, so a degraded answer is never silent.
  for (const std::string& warning : result->diagnostics.warnings) {
    console.Note("engram recall: warning: " + warning);
  }
  if (args.context_only) {
    console.PrintContext(result->context, result->answer_instructions);
  } else if (console.json()) {
    console.PrintJson(io::ToJson(*result));
  } else {
    PrintItems(*result, scope->ToString(), args.explain, console);
  }
  return ToInt(ExitCode::kOk);
}

}  // namespace

void AddRecallCommand(CLI::App& app, Console& console, CommandList* commands) {
  auto args = std::make_shared<RecallArgs>();
  CLI::App* command = app.add_subcommand("recall", "Recall the memories that answer a question");
  command->footer(
      "Prints the ranked items with their scores, the routes that found them and their\n"
      "provenance; --json prints the whole ReadResult, --context only the packed context.\n"
      "QUERY '-' reads the question from stdin. Unknown scope: exit 3. What the recall could\n"
      "not do (word vectors or lexicons not installed, a route that failed) is a warning on\n"
      "stderr.\n");
  command->add_option("--scope", args->scope, "Scope to search (nested scopes included)")
      ->required();
  command
      ->add_option("-k,--k", args->k,
                   "Items to return at most, >= 1 (default: config, 40 with value packing, 10 "
                   "with rank)")
      ->check(WholeNumber(1));
  command
      ->add_option("--budget", args->budget,
                   "Token budget of the packed context, >= 1 (default: config, 2000)")
      ->check(WholeNumber(1));
  command->add_option("--routes", args->routes, "Routes to run, comma-separated (e.g. bm25)")
      ->delimiter(',');
  command->add_option("--policy", args->policy, "Answer policy (default balanced)")
      ->check(CLI::IsMember({"strict", "balanced", "advanced"}));
  command->add_option("--mode", args->mode,
                      "Context mode: evidence (default), or chat (the person's profile and the "
                      "valid foresight before the evidence, each line with its evidence ids)");
  command->add_option("--packing", args->packing,
                      "How the context is chosen: value (by value per token above a score floor, "
                      "-k an upper bound) or rank (in rank order, at most -k) (default: config, "
                      "value)");
  command->add_flag("--include-retired", args->include_retired,
                    "Return retired and superseded memories too");
  command->add_option("--at", args->at,
                      "The question's \"now\", ISO-8601 (e.g. 2023-06-01T10:00:00Z)");
  AddAsOfFlags(command, &args->as_of);
  command->add_flag("--context", args->context_only, "Print only the packed context");
  command->add_flag("--explain", args->explain,
                    "Also print the query frame, the plan, and per item every route's rank, "
                    "score and explanation");
  command->add_option("QUERY", args->query_words, "The question (several words are joined)")
      ->required();
  commands->push_back({command, [args, &console] { return RunRecall(*args, console); }});
}

}  // namespace engram::cli
