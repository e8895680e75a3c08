// `engram amend ID "new text" --reason R`: a corrected turn that supersedes the old one
// (Engine::Amend; the old turn stays, superseded, with its history).
#include <memory>
#include <string>

#include "cli/cli.h"

namespace engram::cli {
namespace {

struct AmendArgs {
  std::string id;
  std::string text;
  std::string reason;
  std::string speaker;
  std::string event_time;
};

int RunAmend(const AmendArgs& args, Console& console) {
  constexpr std::string_view kCommand = "amend";
  Turn replacement;
  replacement.text = args.text;
  replacement.speaker = args.speaker;
  if (!args.event_time.empty()) {
    StatusOr<Timestamp> time = ParseTimestamp(args.event_time);
    if (!time.ok()) return console.UsageError(kCommand, "--time: " + time.status().message());
    replacement.event_time = *time;
  }
  StatusOr<std::unique_ptr<Engine>> engine = OpenEngine(console.global(), false);
  if (!engine.ok()) return console.Fail(kCommand, engine.status());
  StatusOr<AmendResult> amended = (*engine)->Amend(args.id, replacement, args.reason);
  if (!amended.ok()) return console.Fail(kCommand, amended.status());
  if (console.json()) {
    console.PrintJson({{"id", amended->id},
                       {"superseded_id", amended->superseded_id},
                       {"sequence", amended->sequence},
                       {"reason", args.reason}});
  } else {
    console.out() << "amended " << amended->superseded_id << " -> " << amended->id
                  << " (sequence " << amended->sequence << ")\n";
  }
  return ToInt(ExitCode::kOk);
}

}  // namespace

void AddAmendCommand(CLI::App& app, Console& console, CommandList* commands) {
  auto args = std::make_shared<AmendArgs>();
  CLI::App* amend =
      app.add_subcommand("amend", "Correct a turn: store the new text, superseding the old turn");
  amend->footer(
      "The old turn stays (superseded, with its history) and recall shows the new one. Its\n"
      "session and role are kept; speaker, time and metadata carry over unless given.\n");
  amend->add_option("ID", args->id, "Id of the turn to correct")->required()->check(IdValidator());
  amend->add_option("TEXT", args->text, "The corrected text")->required();
  amend->add_option("--reason", args->reason, "Why (kept on the supersedes edge)");
  amend->add_option("--speaker", args->speaker, "Speaker of the correction (default: the old one)");
  amend->add_option("--time", args->event_time, "Event time (default: the old turn's)");
  commands->push_back({amend, [args, &console] { return RunAmend(*args, console); }});
}

}  // namespace engram::cli
