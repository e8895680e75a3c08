// main.cc: the `engram` command — global options, subcommand dispatch, `version`, and the
// boundary where every CLI11 or other exception becomes a message and an exit code.
//
//   engram --store mem.db ingest --scope user:alice examples/conversation.jsonl
//   engram --store mem.db recall --scope user:alice "Where does Maya live?"
//
// Global options may also follow the subcommand (`engram recall --store mem.db ...`).
#include <exception>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "cli/cli.h"

#ifndef ENGRAM_VERSION
#define ENGRAM_VERSION "unknown"
#endif

namespace engram::cli {
namespace {

void AddVersionCommand(CLI::App& app, Console& console, CommandList* commands) {
  CLI::App* command = app.add_subcommand("version", "Print engram's version");
  commands->push_back({command, [&console] {
                         if (console.json()) {
                           io::Json json = io::Json::object();
                           json["name"] = "engram";
                           json["version"] = ENGRAM_VERSION;
                           console.PrintJson(json);
                         } else {
                           console.out() << "engram " << ENGRAM_VERSION << "\n";
                         }
                         return ToInt(ExitCode::kOk);
                       }});
}

int Run(int argc, char** argv) {
  GlobalOptions global;
  Console console(global, std::cout, std::cerr);
  CLI::App app(
      "engram: long-term memory for AI agents. Stores conversation turns verbatim and "
      "recalls a ranked, explained, provenance-carrying context for a question.",
      "engram");
  app.footer(
      std::string(kExitCodesHelp) +
      "\nScopes are kind:name, nested with '/': user:alice, app:crm/user:alice/run:42\n"
      "(kinds: user, agent, app, run, world). Names are trimmed and compared in Unicode NFC;\n"
      "invisible characters (zero-width, bidirectional controls) are refused.\n");
  app.require_subcommand(1);
  app.fallthrough();  // global options may come after the subcommand
  app.set_version_flag("--version", std::string("engram ") + ENGRAM_VERSION);
  app.add_option("--store", global.store,
                 "Store: a SQLite file (default engram.db) or a postgresql:// URL")
      ->envname("ENGRAM_STORE");
  app.add_option("--data-dir", global.data_dir,
                 "Directory of engram's data files (default $ENGRAM_DATA_DIR, "
                 "$XDG_DATA_HOME/engram or ~/.local/share/engram)");
  app.add_option("--config", global.config, "TOML configuration file (default: built-in values)");
  app.add_flag("--json", global.json,
               "Machine-readable JSON on stdout (errors too, not on stderr)");
  app.add_flag("-q,--quiet", global.quiet, "No progress, headers or hints");

  CommandList commands;
  AddIngestCommand(app, console, &commands);
  AddRecallCommand(app, console, &commands);
  AddContextCommand(app, console, &commands);
  AddMemoryCommands(app, console, &commands);
  AddProposalCommands(app, console, &commands);
  AddBenchCommands(app, console, &commands);
  AddEmbedCommand(app, console, &commands);
  AddReembedCommand(app, console, &commands);
  AddFactsCommand(app, console, &commands);
  AddConsolidateCommands(app, console, &commands);
  AddEntitiesCommand(app, console, &commands);
  AddGraphCommands(app, console, &commands);
  AddServeCommand(app, console, &commands);
  AddKeysCommands(app, console, &commands);
  AddMcpCommand(app, console, &commands);
  AddAuditCommands(app, console, &commands);
  AddAmendCommand(app, console, &commands);
  AddCheckCommand(app, console, &commands);
  AddStatusCommand(app, console, &commands);
  AddVersionCommand(app, console, &commands);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    // --help and --version arrive here too, as "errors" with exit code 0.
    if (error.get_exit_code() == 0) return app.exit(error);
    // A misspelt command or flag explains whatever CLI11 reports after it ("A subcommand is
    // required", "--scope is required"): name the word, and what it was likely meant to be.
    const std::vector<std::string> args(argv + 1, argv + argc);
    if (std::optional<UnknownWord> unknown = FindUnknownWord(app, args)) {
      return console.UsageError(unknown->command, unknown->message);
    }
    std::string command;
    for (const CLI::App* subcommand : app.get_subcommands()) command = subcommand->get_name();
    return console.UsageError(command, error.what());
  }
  for (const Command& command : commands) {
    if (command.app->parsed()) return command.run();
  }
  return console.UsageError("", "a command is required");
}

}  // namespace
}  // namespace engram::cli

int main(int argc, char** argv) {
  try {
    return engram::cli::Run(argc, argv);
  } catch (const std::exception& error) {
    std::cerr << "engram: internal error: " << error.what() << "\n";
  } catch (...) {
    std::cerr << "engram: internal error: unknown exception\n";
  }
  return static_cast<int>(engram::cli::ExitCode::kError);
}
