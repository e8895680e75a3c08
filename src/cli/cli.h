// cli.h: what the `engram` command's files share — global options, exit codes, the console that
// prints results and errors (human or --json), opening the engine, and the registration hooks
// of each command group (ingest_command.cc, recall_command.cc, memory_commands.cc,
// proposal_commands.cc).
//
// Each command group adds its CLI11 subcommands and, for each, a function that runs it after the
// whole command line has been parsed. Runners return the process exit code; they never throw.
#ifndef ENGRAM_CLI_CLI_H_
#define ENGRAM_CLI_CLI_H_

#include <CLI/CLI.hpp>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engram/engine.h"
#include "engram/status.h"
#include "engram/types.h"
#include "io/api_json.h"

namespace engram::server {
class JournalFollower;
struct RawRequest;
struct RawResponse;
}  // namespace engram::server
namespace engram::mcp {
class HttpTransport;
}  // namespace engram::mcp

namespace engram::cli {

// The process exit codes, documented in `engram --help` and src/cli/README.md.
enum class ExitCode : int {
  kOk = 0,        // success
  kError = 1,     // the engine (or an input file) reported an error
  kUsage = 2,     // bad flags, bad scope syntax, missing argument, refused without --yes
  kNotFound = 3,  // a scope, memory, proposal, store or input file does not exist
};

// The one place where a StatusCode becomes an exit code: kOk → 0, kNotFound → 3, others → 1.
// (Usage errors are found by the CLI itself, before any Status exists, and exit with kUsage.)
ExitCode ExitCodeFor(StatusCode code);

inline constexpr std::string_view kExitCodesHelp =
    "Exit codes: 0 success; 1 error reported by the engine or an input file (message on stderr,\n"
    "or {\"error\": {...}} on stdout with --json); 2 usage error (bad flags, bad scope syntax,\n"
    "missing argument, erase without --yes); 3 not found (scope, memory, proposal, store, file).";

struct GlobalOptions {
  std::string store = "engram.db";  // --store, $ENGRAM_STORE
  std::string data_dir;             // --data-dir
  std::string config;               // --config
  bool json = false;                // --json
  bool quiet = false;               // --quiet
};

// Prints results and errors the way the global options ask. Not thread-safe.
class Console {
 public:
  Console(const GlobalOptions& global, std::ostream& out, std::ostream& err)
      : global_(global), out_(out), err_(err) {}

  bool json() const { return global_.json; }
  bool quiet() const { return global_.quiet; }
  const GlobalOptions& global() const { return global_; }
  std::ostream& out() { return out_; }
  std::ostream& err() { return err_; }

  // Writes `value` (pretty-printed) and a newline to stdout.
  void PrintJson(const io::Json& value);
  // A packed context alone (`--context`): the text and a newline, or with --json
  // {"context", "answer_instructions"}.
  void PrintContext(const std::string& context, const std::string& answer_instructions);
  // A progress or notice line on stderr, unless --quiet.
  void Note(std::string_view line);

  // Reports the failure of `command` ("engram: <command>: <message>" on stderr, and with --json
  // {"error": ...} on stdout). Returns ExitCodeFor(status.code()).
  int Fail(std::string_view command, const Status& status);
  // Reports a usage error the same way (code INVALID_ARGUMENT in JSON). Returns kUsage.
  int UsageError(std::string_view command, std::string_view message);

 private:
  int Report(std::string_view command, const Status& status, ExitCode code);

  const GlobalOptions& global_;
  std::ostream& out_;
  std::ostream& err_;
};

inline int ToInt(ExitCode code) { return static_cast<int>(code); }

// "Did you mean": the word of a refused command line that names no command or flag, found by
// walking the arguments (without the program name) through `app`'s command tree as CLI11 reads
// them: a word where a command requires a subcommand, or a flag that neither the command nor
// (fallthrough) the commands above it define; a flag's value is skipped, and after "--" every
// word is an argument. Used after CLI11 refused the line, whose own message ("A subcommand is
// required", "--scope is required") would point away from a misspelt word.
//
//   engram recal ...            -> {"", "unknown command 'recal'; did you mean 'recall'?"}
//   engram recall --scop u:a q  -> {"recall", "unknown flag '--scop'; did you mean '--scope'?"}
struct UnknownWord {
  std::string command;  // the command it was given to: "" (engram itself), "recall", "keys create"
  std::string message;  // names the word, and the closest valid one when ClosestName finds one
};
std::optional<UnknownWord> FindUnknownWord(const CLI::App& app,
                                           const std::vector<std::string>& args);

// The name in `names` closest to `typed`: within kMaxSuggestionEdits edits (insert, delete,
// substitute, or swap two adjacent characters: the optimal string alignment distance) and fewer
// edits than `typed` has characters, or, for a `typed` of three characters or more, a name it
// begins. The fewest edits win; ties go to the name first in byte order. nullopt when none is.
inline constexpr std::size_t kMaxSuggestionEdits = 2;
std::optional<std::string> ClosestName(std::string_view typed,
                                       const std::vector<std::string>& names);

// Opens the engine with the global options. Commands that only read or change existing data
// pass create_if_missing = false, so a mistyped --store is kNotFound instead of a new file.
// background_derivation: EngineOptions::background_derivation (false for a command that leaves
// the second phase of its writes to the next engine).
StatusOr<std::unique_ptr<Engine>> OpenEngine(const GlobalOptions& global, bool create_if_missing,
                                             bool background_derivation = true);

// For a command that serves `engine` until stopped (serve, mcp --http): a journal follower
// (server/journal_follower.h) that keeps the engine's projections current with writes other
// processes make to the store, waiting at most [store] follow_poll_ms (from the --config file)
// between two checks; a failure and the recovery after it are reported on stderr, naming
// `command`. Not started yet. Errors: the --config file does not load.
StatusOr<std::unique_ptr<server::JournalFollower>> MakeJournalFollower(Engine& engine,
                                                                      Console& console,
                                                                      std::string_view command);

// For a command that serves MCP's streamable HTTP through server::HttpServer (serve, mcp
// --http): the request on the raw mount at /mcp, already past the server's Host, Origin and key
// checks, handled by `transport` with the caller's Access; any other path below /mcp is 404.
server::RawResponse ServeMcpRequest(mcp::HttpTransport& transport,
                                    const server::RawRequest& request);

// `text` made safe for a terminal: control characters (but newlines and tabs when
// `keep_newlines`) and invalid UTF-8 bytes become \xNN escapes.
std::string Printable(std::string_view text, bool keep_newlines = false);
// One line of at most `max_bytes` bytes (newlines shown as spaces), "..." when cut.
std::string Excerpt(std::string_view text, std::size_t max_bytes);
// ISO-8601, or "-" when unset.
std::string TimeOrDash(const std::optional<Timestamp>& time);

// The as-of flags of recall, facts and profile (RecallOptions::valid_at / known_at).
struct AsOfFlags {
  std::string valid_at;  // --valid-at, ISO-8601
  std::string known_at;  // --known-at, ISO-8601
  // Set by AddAsOfFlags: whether each flag was given (an empty value given is an error).
  CLI::Option* valid_at_option = nullptr;
  CLI::Option* known_at_option = nullptr;
};
void AddAsOfFlags(CLI::App* command, AsOfFlags* flags);
// Only --known-at (listings of derived nodes, whose validity is their build time).
void AddKnownAtFlag(CLI::App* command, AsOfFlags* flags);
// The parsed times; kInvalidArgument naming the flag ("--valid-at: ...") when one is malformed.
struct AsOfTimes {
  std::optional<Timestamp> valid_at;
  std::optional<Timestamp> known_at;
};
StatusOr<AsOfTimes> ParseAsOfFlags(const AsOfFlags& flags);

// CLI11 validators with short messages ("--k: must be a whole number >= 0, got \"-3\"").
CLI::Validator WholeNumber(long long min);
// A memory or proposal id: 32 lowercase hex digits.
CLI::Validator IdValidator();

// A registered subcommand and what runs it.
struct Command {
  CLI::App* app = nullptr;
  std::function<int()> run;
};
using CommandList = std::vector<Command>;

void AddIngestCommand(CLI::App& app, Console& console, CommandList* commands);
void AddRecallCommand(CLI::App& app, Console& console, CommandList* commands);
// context (context_command.cc)
void AddContextCommand(CLI::App& app, Console& console, CommandList* commands);
// show, list, history, scopes, retire, erase, rebuild-index
void AddMemoryCommands(CLI::App& app, Console& console, CommandList* commands);
// proposals, accept, reject, propose-same
void AddProposalCommands(CLI::App& app, Console& console, CommandList* commands);
// bench locomo, bench longmemeval, bench perf, bench explain (bench_command.cc)
void AddBenchCommands(CLI::App& app, Console& console, CommandList* commands);
// embed (embed_command.cc)
void AddEmbedCommand(CLI::App& app, Console& console, CommandList* commands);
// reembed (reembed_command.cc)
void AddReembedCommand(CLI::App& app, Console& console, CommandList* commands);
// facts (facts_command.cc)
void AddFactsCommand(CLI::App& app, Console& console, CommandList* commands);
// consolidate, episodes, scenes, profile (consolidate_command.cc)
void AddConsolidateCommands(CLI::App& app, Console& console, CommandList* commands);
// entities (entities_command.cc)
void AddEntitiesCommand(CLI::App& app, Console& console, CommandList* commands);
// graph neighbours, paths, identity, edge-types, add-edge, edge, retire-edge (graph_command.cc)
void AddGraphCommands(CLI::App& app, Console& console, CommandList* commands);
// serve (serve_command.cc)
void AddServeCommand(CLI::App& app, Console& console, CommandList* commands);
// keys create, keys list, keys revoke (keys_command.cc)
void AddKeysCommands(CLI::App& app, Console& console, CommandList* commands);
// mcp (mcp_command.cc)
void AddMcpCommand(CLI::App& app, Console& console, CommandList* commands);
// audit, export, import (audit_command.cc)
void AddAuditCommands(CLI::App& app, Console& console, CommandList* commands);
// amend (amend_command.cc)
void AddAmendCommand(CLI::App& app, Console& console, CommandList* commands);
// check (check_command.cc)
void AddCheckCommand(CLI::App& app, Console& console, CommandList* commands);
// status (status_command.cc)
void AddStatusCommand(CLI::App& app, Console& console, CommandList* commands);

}  // namespace engram::cli

#endif  // ENGRAM_CLI_CLI_H_
