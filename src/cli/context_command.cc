// context_command.cc: `engram context` — a run's context for a question: the recalled long-term
// memory followed by the run's active window (Engine::Context), with every window turn's
// survival score, tier and the reason it is kept (or, with --context, only the context; with
// --json, the whole ContextResult).
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "engram/options.h"

namespace engram::cli {
namespace {

constexpr std::string_view kCommand = "context";

struct ContextArgs {
  std::string scope;
  std::size_t budget = 0;
  std::size_t window_budget = 0;
  std::size_t k = 0;
  std::string policy = "balanced";
  bool run_only = false;
  bool context_only = false;
  std::vector<std::string> query_words;
};

std::string Fixed(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.4f", value);
  return buffer;
}

void PrintContext(const ContextResult& result, Console& console) {
  std::ostream& out = console.out();
  if (!console.quiet()) {
    out << "context of " << Printable(result.run) << " for \""
        << Excerpt(Printable(result.query), 120) << "\": " << result.context_tokens << " of "
        << result.token_budget << " tokens (recalled " << result.recalled_tokens << ", window "
        << result.window_tokens << " of " << result.window_budget << ")\n";
    out << "run: " << result.run_turns << " turns; window keeps " << result.window.size()
        << "; left the window: " << result.hard_killed << " hard-killed (last sweep at interaction "
        << result.last_sweep << "), " << result.pruned << " pruned by the budget, "
        << result.too_large << " too large, " << result.inactive << " retired or amended\n";
  }
  out << "\nrecalled from " << (result.recalled_from.empty() ? "-" : Printable(result.recalled_from))
      << ": " << result.recalled.items.size()
      << (result.recalled.items.size() == 1 ? " item\n" : " items\n");
  std::size_t rank = 0;
  for (const RecallItem& item : result.recalled.items) {
    out << "  " << ++rank << ". [" << NodeKindName(item.kind) << "] score " << Fixed(item.score)
        << "  " << Printable(item.scope) << " seq " << item.sequence << "  "
        << Excerpt(Printable(item.text), 100) << "\n";
  }
  out << "\nactive window: " << result.window.size()
      << (result.window.size() == 1 ? " turn\n" : " turns\n");
  for (const WindowTurn& turn : result.window) {
    out << "  #" << turn.interaction << "  Ω " << Fixed(turn.omega) << "  Ω_eff "
        << Fixed(turn.omega_eff) << "  " << turn.tier << "  kept: " << turn.reason;
    if (!turn.signals.empty()) {
      out << "  [";
      for (std::size_t i = 0; i < turn.signals.size(); ++i) {
        out << (i > 0 ? ", " : "") << turn.signals[i];
      }
      out << "]";
    }
    if (turn.superseded) out << "  (superseded)";
    out << "\n    " << (turn.speaker.empty() ? std::string(RoleName(turn.role))
                                              : Printable(turn.speaker))
        << ": " << Excerpt(Printable(turn.text), 100) << "\n";
    out << "    why: " << Printable(turn.explanation) << "\n";
  }
}

int RunContext(const ContextArgs& args, Console& console) {
  StatusOr<Scope> scope = Scope::Parse(args.scope);
  if (!scope.ok()) return console.UsageError(kCommand, "--scope: " + scope.status().message());
  RecallQuery query;
  for (const std::string& word : args.query_words) {
    if (!query.text.empty()) query.text += ' ';
    query.text += word;
  }
  ContextOptions options;
  options.token_budget = args.budget;
  options.window_budget = args.window_budget;
  options.k = args.k;
  options.recall_enclosing = !args.run_only;
  StatusOr<AnswerPolicy> policy = ParseAnswerPolicy(args.policy);
  if (!policy.ok()) return console.UsageError(kCommand, "--policy: " + policy.status().message());
  options.policy = *policy;

  StatusOr<std::unique_ptr<Engine>> engine = OpenEngine(console.global(), false);
  if (!engine.ok()) return console.Fail(kCommand, engine.status());
  StatusOr<ContextResult> result = (*engine)->Context(*scope, query, options);
  if (!result.ok()) return console.Fail(kCommand, result.status());

  // What the recall behind the recalled section could not do, as `engram recall` says it.
  for (const std::string& warning : result->recalled.diagnostics.warnings) {
    console.Note("engram context: warning: " + warning);
  }
  if (args.context_only) {
    console.PrintContext(result->context, result->answer_instructions);
  } else if (console.json()) {
    console.PrintJson(io::ToJson(*result));
  } else {
    PrintContext(*result, console);
  }
  return ToInt(ExitCode::kOk);
}

}  // namespace

void AddContextCommand(CLI::App& app, Console& console, CommandList* commands) {
  auto args = std::make_shared<ContextArgs>();
  CLI::App* command = app.add_subcommand(
      "context", "A run's context: recalled memory, then the run's active window (DMF)");
  command->footer(
      "Prints the recalled items and every turn the run's active window keeps, with its\n"
      "survival score (Ω), decayed score (Ω_eff), tier and the reason it is kept; --context\n"
      "prints only the context, --json the whole result. The scope's last segment must be\n"
      "run:<name>. Unknown scope: exit 3.\n");
  command->add_option("--scope", args->scope, "The run (e.g. user:alice/run:42)")->required();
  command
      ->add_option("--budget", args->budget,
                   "Tokens of the whole context, in [1, 1000000] (default: config, 6096)")
      ->check(WholeNumber(1));
  command
      ->add_option("--window-budget", args->window_budget,
                   "Tokens the active window may take, >= 1 (default: config, 4096, or its "
                   "share of a smaller --budget)")
      ->check(WholeNumber(1));
  command->add_option("-k,--k", args->k, "Recalled items at most, >= 1 (default: config, 10)")
      ->check(WholeNumber(1));
  command->add_option("--policy", args->policy, "Answer policy (default balanced)")
      ->check(CLI::IsMember({"strict", "balanced", "advanced"}));
  command->add_flag("--run-only", args->run_only,
                    "Recall from the run alone, not from its enclosing scope");
  command->add_flag("--context", args->context_only, "Print only the context");
  command->add_option("QUERY", args->query_words, "The question (several words are joined)")
      ->required();
  commands->push_back({command, [args, &console] { return RunContext(*args, console); }});
}

}  // namespace engram::cli
