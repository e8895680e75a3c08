// ingest_command.cc: `engram ingest` — stores turns from JSONL files (into --scope) or imports
// the LoCoMo / LongMemEval benchmark files (one scope per conversation / question).
//
// Every input is parsed completely before anything is stored, so a malformed line or field
// stores nothing. Then each scope's turns go to the engine in one Remember call, which is
// all-or-nothing per scope; if a later scope fails, the scopes before it stay stored and the
// error says so.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cli/cli.h"
#include "engram/config.h"
#include "io/file_reader.h"
#include "io/locomo.h"
#include "io/longmemeval.h"
#include "io/turns_jsonl.h"

namespace engram::cli {
namespace {

constexpr std::string_view kCommand = "ingest";
// A progress line on stderr after this many scopes, or after kProgressSeconds, whichever comes
// first since the last line.
constexpr std::size_t kProgressEveryScopes = 10;
constexpr double kProgressSeconds = 5.0;

struct IngestArgs {
  std::string scope;
  std::string format = "jsonl";
  std::vector<std::string> files;
};

// The turns of one scope: one Remember call.
struct Batch {
  Scope scope;
  std::vector<Turn> turns;
  std::size_t skipped_blank_turns = 0;  // blank benchmark turns the importer left out
};

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::string Fixed(double value, int decimals) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.*f", decimals, value);
  return buffer;
}

// The size limits JSONL turns are checked against before the engine sees them.
StatusOr<Config> LoadLimits(const GlobalOptions& global) {
  if (global.config.empty()) return Config();
  return LoadConfigFile(global.config);
}

Status LoadJsonl(const IngestArgs& args, const Scope& scope, const Config& config,
                 std::vector<Batch>* batches) {
  Batch batch{scope, {}};
  io::TurnsJsonlOptions options;
  options.max_text_bytes = config.limits.max_turn_bytes;
  options.max_metadata_bytes = config.limits.max_metadata_bytes;
  for (const std::string& file : args.files) {
    ASSIGN_OR_RETURN(io::ParsedTurns parsed, io::ReadTurnsJsonl(file, options));
    for (Turn& turn : parsed.turns) batch.turns.push_back(std::move(turn));
  }
  batches->push_back(std::move(batch));
  return Status::Ok();
}

Status LoadLocomo(const IngestArgs& args, std::vector<Batch>* batches) {
  for (const std::string& file : args.files) {
    ASSIGN_OR_RETURN(std::vector<io::LocomoConversation> conversations, io::ReadLocomo(file));
    for (io::LocomoConversation& conversation : conversations) {
      batches->push_back({std::move(conversation.scope), std::move(conversation.turns),
                          conversation.skipped_blank_turns});
    }
  }
  return Status::Ok();
}

Status LoadLongMemEval(const IngestArgs& args, std::vector<Batch>* batches) {
  for (const std::string& file : args.files) {
    ASSIGN_OR_RETURN(const std::string text, io::ReadFile(file));
    RETURN_IF_ERROR(io::ForEachLongMemEval(
        text, io::DisplayName(file), [&](io::LongMemEvalInstance&& instance) {
          batches->push_back(
              {std::move(instance.scope), std::move(instance.turns), instance.skipped_blank_turns});
          return Status::Ok();
        }));
  }
  return Status::Ok();
}

int RunIngest(const IngestArgs& args, Console& console) {
  const Clock::time_point start = Clock::now();
  if (args.files.empty()) return console.UsageError(kCommand, "no input FILE given");
  if (std::count(args.files.begin(), args.files.end(), std::string(io::kStdinPath)) > 1) {
    return console.UsageError(kCommand, "standard input (\"-\") can be read only once");
  }
  const bool jsonl = args.format == "jsonl";
  if (jsonl && args.scope.empty()) {
    return console.UsageError(kCommand,
                              "--format jsonl needs --scope, the scope the turns belong to "
                              "(e.g. --scope user:alice)");
  }
  if (!jsonl && !args.scope.empty()) {
    return console.UsageError(kCommand, "--scope is not used with --format " + args.format +
                                            ": every conversation or question gets its own scope");
  }

  std::vector<Batch> batches;
  if (jsonl) {
    StatusOr<Scope> scope = Scope::Parse(args.scope);
    if (!scope.ok()) return console.UsageError(kCommand, "--scope: " + scope.status().message());
    StatusOr<Config> config = LoadLimits(console.global());
    if (!config.ok()) return console.Fail(kCommand, config.status());
    if (Status status = LoadJsonl(args, *scope, *config, &batches); !status.ok()) {
      return console.Fail(kCommand, status);
    }
  } else {
    const Status status =
        args.format == "locomo" ? LoadLocomo(args, &batches) : LoadLongMemEval(args, &batches);
    if (!status.ok()) return console.Fail(kCommand, status);
  }

  StatusOr<std::unique_ptr<Engine>> engine = OpenEngine(console.global(), true);
  if (!engine.ok()) return console.Fail(kCommand, engine.status());

  std::size_t skipped_blank_turns = 0;
  for (const Batch& batch : batches) skipped_blank_turns += batch.skipped_blank_turns;
  if (skipped_blank_turns > 0) {
    console.Note("ingest: skipped " + std::to_string(skipped_blank_turns) +
                 " blank turn(s) of the input (text that is only white space)");
  }

  io::Json scopes = io::Json::array();
  std::size_t total_turns = 0;
  std::size_t stored_scopes = 0;
  Clock::time_point last_progress = Clock::now();
  std::size_t last_progress_done = 0;
  for (std::size_t batch_idx = 0; batch_idx < batches.size(); ++batch_idx) {
    const Batch& batch = batches[batch_idx];
    io::Json entry = io::Json::object();
    entry["scope"] = batch.scope.ToString();
    entry["turns"] = batch.turns.size();
    if (batch.turns.empty()) {
      console.Note("engram: ingest: " + batch.scope.ToString() + ": no turns in the input");
      entry["first_sequence"] = nullptr;
      entry["last_sequence"] = nullptr;
      scopes.push_back(std::move(entry));
      continue;
    }
    StatusOr<RememberResult> result = (*engine)->Remember(batch.scope, batch.turns);
    if (!result.ok()) {
      std::string context = batch.scope.ToString() + " (nothing of this scope was stored";
      if (stored_scopes > 0) {
        context += "; the " + std::to_string(stored_scopes) + " scope(s) before it were";
      }
      context += ")";
      return console.Fail(kCommand, result.status().WithContext(context));
    }
    ++stored_scopes;
    total_turns += batch.turns.size();
    entry["first_sequence"] = result->first_sequence;
    entry["last_sequence"] = result->last_sequence;
    scopes.push_back(std::move(entry));
    const std::size_t done = batch_idx + 1;
    if (batches.size() > 1 && done < batches.size() &&
        (done - last_progress_done >= kProgressEveryScopes ||
         std::chrono::duration<double>(Clock::now() - last_progress).count() >= kProgressSeconds)) {
      console.Note("ingest: " + std::to_string(done) + "/" + std::to_string(batches.size()) +
                   " scopes, " + std::to_string(total_turns) + " turns, " +
                   Fixed(SecondsSince(start), 1) + " s");
      last_progress = Clock::now();
      last_progress_done = done;
    }
  }

  const double seconds = SecondsSince(start);
  const double turns_per_second = seconds > 0 ? static_cast<double>(total_turns) / seconds : 0;
  if (console.json()) {
    io::Json json = io::Json::object();
    json["format"] = args.format;
    io::Json files = io::Json::array();
    for (const std::string& file : args.files) files.push_back(io::DisplayName(file));
    json["files"] = std::move(files);
    json["scopes"] = std::move(scopes);
    json["turns"] = total_turns;
    json["skipped_blank_turns"] = skipped_blank_turns;
    json["seconds"] = seconds;
    json["turns_per_second"] = turns_per_second;
    console.PrintJson(json);
  } else {
    console.out() << "ingested " << total_turns << " turns into " << stored_scopes
                  << (stored_scopes == 1 ? " scope" : " scopes");
    if (stored_scopes == 1 && batches.size() == 1) {
      console.out() << " (" << Printable(batches[0].scope.ToString()) << ")";
    }
    console.out() << " in " << Fixed(seconds, 2) << " s (" << Fixed(turns_per_second, 0)
                  << " turns/s)\n";
  }
  return ToInt(ExitCode::kOk);
}

}  // namespace

void AddIngestCommand(CLI::App& app, Console& console, CommandList* commands) {
  auto args = std::make_shared<IngestArgs>();
  CLI::App* command = app.add_subcommand("ingest", "Store conversation turns from files");
  command->footer(
      "JSONL (one {\"text\", \"role\", \"speaker\", \"session_id\", \"event_time\", \"metadata\"}\n"
      "object per line) goes into --scope. LoCoMo and LongMemEval files make one scope per\n"
      "conversation (world:locomo-<sample_id>) or question (world:lme-<question_id>). Files may\n"
      "be zstd-compressed (.zst); '-' reads stdin. Every input is parsed before anything is\n"
      "stored, so a bad line stores nothing; each scope is stored all-or-nothing.\n");
  command->add_option("--scope", args->scope, "Scope of the turns (jsonl only), e.g. user:alice");
  command->add_option("--format", args->format, "Input format (default jsonl)")
      ->check(CLI::IsMember({"jsonl", "locomo", "longmemeval"}));
  command->add_option("FILE", args->files, "Input files ('-' = stdin)")->required();
  commands->push_back({command, [args, &console] { return RunIngest(*args, console); }});
}

}  // namespace engram::cli
