// ingest_command.cc: `engram ingest` — stores turns from JSONL files (into --scope) or imports
// the LoCoMo / LongMemEval benchmark files (one scope per conversation / question).
//
// Every input is parsed and every turn validated (write::ValidateTurn, the check Remember makes)
// before anything is stored, so a malformed line, field or turn in any format stores nothing.
// Then each scope's turns go to the engine in one Remember call, which is all-or-nothing per
// scope; if a later scope still fails (a store error), the scopes before it stay stored and the
// error says so.
//
// Idempotency: every turn carries an idempotency key (Turn::idempotency_key, kept apart from its
// metadata): the JSONL field "idempotency_key" when given, else derived as the first 128 bits
// (hex) of SHA-256 over the length-prefixed scope, the turn's position in its input (JSONL: its
// line; LoCoMo and LongMemEval: its 1-based index in its conversation or question), role,
// speaker, session id, event time and text. The key depends on what the input says, not on
// where it came from: the file's name, its compression (.zst) or stdin give the same keys, so a
// renamed or compressed copy of an ingested file stores nothing new. (Keys of engram before
// this rule, "engram-ingest-v1", also hashed the file's name: a file ingested with them is
// stored once more by its first ingest under this rule.) The engine recognises a key its scope
// already holds (or that an earlier turn of the input had) inside the write transaction and does
// not store the turn again but reports it, counted here as "already stored": re-running an
// import after a failure, twice, or in two processes at once stores each turn once.
//
// Two phases (DESIGN §4): every scope is acknowledged as soon as its turns are stored and
// searchable by BM25 (RememberWait::kIndexed); the engine's worker embeds and derives them in the
// background meanwhile, and the command waits for it before exiting (unless --no-wait: the next
// engine to open the store resumes the derivation), with progress lines for both phases.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <future>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cli/cli.h"
#include "engine/derive_worker.h"
#include "core/sha256.h"
#include "engram/config.h"
#include "io/file_reader.h"
#include "io/locomo.h"
#include "io/longmemeval.h"
#include "io/turns_jsonl.h"
#include "write/capture.h"

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
  bool no_wait = false;  // exit once acknowledged, leaving the derivation pending
};

// The turns of one scope: one Remember call.
struct Batch {
  Scope scope;
  std::vector<Turn> turns;
  std::size_t skipped_blank_turns = 0;  // blank benchmark turns the importer left out
  std::vector<std::string> origins;     // where turns[i] came from, for errors ("a.jsonl line 3")
};

// ", N derived" (or "" when the engine cannot say), for progress lines.
std::string DerivedSoFar(Engine& engine) {
  StatusOr<DerivationStatus> derivation = engine.Derivation();
  if (!derivation.ok()) return "";
  return ", " + std::to_string(derivation->derived_turns) + " derived (" +
         std::to_string(derivation->pending_turns) + " pending)";
}

// The derived idempotency key (see the file comment): the scope, the turn's position in its input
// and its content; never the input's name.
std::string DerivedKey(const Scope& scope, std::string_view position, const Turn& turn) {
  const std::string scope_text = scope.ToString();
  const std::string time = turn.event_time ? FormatTimestamp(*turn.event_time) : "";
  std::string material = "engram-ingest-v2";
  for (const std::string_view part :
       {std::string_view(scope_text), position, RoleName(turn.role),
        std::string_view(turn.speaker), std::string_view(turn.session_id), std::string_view(time),
        std::string_view(turn.text)}) {
    material += "\n" + std::to_string(part.size()) + ":";
    material += part;
  }
  return core::Sha256Hex(material).substr(0, 32);
}

// Adds the turn to the batch with its idempotency key: `given`, else derived.
void AddTurn(Batch& batch, Turn turn, std::string origin, std::string given,
             std::string_view position) {
  turn.idempotency_key = given.empty() ? DerivedKey(batch.scope, position, turn) : std::move(given);
  batch.turns.push_back(std::move(turn));
  batch.origins.push_back(std::move(origin));
}

// Validates every turn of every batch as Remember would, naming the turn's origin.
Status ValidateBatches(const std::vector<Batch>& batches, const Config& config) {
  for (const Batch& batch : batches) {
    RETURN_IF_ERROR(batch.scope.Validate().WithContext(batch.scope.ToString()));
    if (batch.turns.size() > config.limits.max_batch_turns) {
      return Status::InvalidArgument(batch.scope.ToString() + " has " +
                                     std::to_string(batch.turns.size()) + " turns; at most " +
                                     std::to_string(config.limits.max_batch_turns) +
                                     " are allowed per scope ([limits] max_batch_turns)");
    }
    for (std::size_t turn_idx = 0; turn_idx < batch.turns.size(); ++turn_idx) {
      const StatusOr<std::string> valid = write::ValidateTurn(batch.turns[turn_idx], config.limits);
      if (!valid.ok()) {
        return Status(valid.status().code(),
                      batch.origins[turn_idx] + ": " + valid.status().message());
      }
    }
  }
  return Status::Ok();
}

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::string Fixed(double value, int decimals) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.*f", decimals, value);
  return buffer;
}

// The limits turns are checked against before the engine sees them.
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
    for (std::size_t turn_idx = 0; turn_idx < parsed.turns.size(); ++turn_idx) {
      const std::string line = std::to_string(parsed.line_numbers[turn_idx]);
      AddTurn(batch, std::move(parsed.turns[turn_idx]), io::DisplayName(file) + " line " + line,
              std::move(parsed.idempotency_keys[turn_idx]), "line " + line);
    }
  }
  batches->push_back(std::move(batch));
  return Status::Ok();
}

// One benchmark conversation (or question) as a batch; turn i is named "turn i+1" of its scope.
Status AddConversation(const std::string& file, Scope scope, std::vector<Turn> turns,
                       std::size_t skipped_blank_turns, std::vector<Batch>* batches) {
  Batch batch{std::move(scope), {}, skipped_blank_turns};
  const std::string prefix = io::DisplayName(file) + ": " + batch.scope.ToString() + " turn ";
  for (std::size_t turn_idx = 0; turn_idx < turns.size(); ++turn_idx) {
    const std::string position = std::to_string(turn_idx + 1);
    AddTurn(batch, std::move(turns[turn_idx]), prefix + position, "", "turn " + position);
  }
  batches->push_back(std::move(batch));
  return Status::Ok();
}

Status LoadLocomo(const IngestArgs& args, std::vector<Batch>* batches) {
  for (const std::string& file : args.files) {
    ASSIGN_OR_RETURN(std::vector<io::LocomoConversation> conversations, io::ReadLocomo(file));
    for (io::LocomoConversation& conversation : conversations) {
      RETURN_IF_ERROR(AddConversation(file, std::move(conversation.scope),
                                      std::move(conversation.turns),
                                      conversation.skipped_blank_turns, batches));
    }
  }
  return Status::Ok();
}

Status LoadLongMemEval(const IngestArgs& args, std::vector<Batch>* batches) {
  for (const std::string& file : args.files) {
    ASSIGN_OR_RETURN(const std::string text, io::ReadFile(file));
    RETURN_IF_ERROR(io::ForEachLongMemEval(
        text, io::DisplayName(file), [&](io::LongMemEvalInstance&& instance) {
          return AddConversation(file, std::move(instance.scope), std::move(instance.turns),
                                 instance.skipped_blank_turns, batches);
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
  StatusOr<Config> config = LoadLimits(console.global());
  if (!config.ok()) return console.Fail(kCommand, config.status());
  if (jsonl) {
    StatusOr<Scope> scope = Scope::Parse(args.scope);
    if (!scope.ok()) return console.UsageError(kCommand, "--scope: " + scope.status().message());
    if (Status status = LoadJsonl(args, *scope, *config, &batches); !status.ok()) {
      return console.Fail(kCommand, status);
    }
  } else {
    const Status status =
        args.format == "locomo" ? LoadLocomo(args, &batches) : LoadLongMemEval(args, &batches);
    if (!status.ok()) return console.Fail(kCommand, status);
  }
  // The whole input is valid before the first write.
  if (Status status = ValidateBatches(batches, *config); !status.ok()) {
    return console.Fail(kCommand, status.WithContext("nothing was stored"));
  }

  // With --no-wait nothing is derived here: the next engine to open the store does it all.
  StatusOr<std::unique_ptr<Engine>> engine =
      OpenEngine(console.global(), true, /*background_derivation=*/!args.no_wait);
  if (!engine.ok()) return console.Fail(kCommand, engine.status());
  std::size_t skipped_blank_turns = 0;
  for (const Batch& batch : batches) skipped_blank_turns += batch.skipped_blank_turns;
  if (skipped_blank_turns > 0) {
    console.Note("ingest: skipped " + std::to_string(skipped_blank_turns) +
                 " blank turn(s) of the input (text that is only white space)");
  }

  io::Json scopes = io::Json::array();
  std::size_t already_stored = 0;
  std::size_t total_turns = 0;
  std::size_t stored_scopes = 0;
  Clock::time_point last_progress = Clock::now();
  std::size_t last_progress_done = 0;
  for (std::size_t batch_idx = 0; batch_idx < batches.size(); ++batch_idx) {
    const Batch& batch = batches[batch_idx];
    io::Json entry = io::Json::object();
    entry["scope"] = batch.scope.ToString();
    entry["turns"] = 0;
    entry["already_stored"] = 0;
    entry["first_sequence"] = nullptr;
    entry["last_sequence"] = nullptr;
    if (batch.turns.empty()) {
      console.Note("engram: ingest: " + batch.scope.ToString() + ": no turns in the input");
      scopes.push_back(std::move(entry));
      continue;
    }
    StatusOr<RememberResult> result =
        (*engine)->Remember(batch.scope, batch.turns, {.wait = RememberWait::kIndexed});
    if (!result.ok() && RetryAfterSeconds(result.status()).has_value()) {
      // Back-pressure ([write] max_pending_turns): the backlog is at its limit. An import waits
      // for the derivation to catch up, then stores the scope.
      console.Note("ingest: " + result.status().message() +
                   "; waiting for the derivation to catch up");
      if (Status derived = (*engine)->WaitForDerivation(); !derived.ok()) {
        return console.Fail(kCommand, derived.WithContext("waiting for the derivation"));
      }
      result = (*engine)->Remember(batch.scope, batch.turns, {.wait = RememberWait::kIndexed});
    }
    if (!result.ok()) {
      std::string context = batch.scope.ToString() + " (nothing of this scope was stored";
      if (stored_scopes > 0) {
        context += "; the " + std::to_string(stored_scopes) + " scope(s) before it were";
      }
      context += ")";
      return console.Fail(kCommand, result.status().WithContext(context));
    }
    const std::size_t stored = batch.turns.size() - result->already_stored.size();
    already_stored += result->already_stored.size();
    entry["turns"] = stored;
    entry["already_stored"] = result->already_stored.size();
    if (stored > 0) {
      ++stored_scopes;
      total_turns += stored;
      entry["first_sequence"] = result->first_sequence;
      entry["last_sequence"] = result->last_sequence;
    }
    scopes.push_back(std::move(entry));
    const std::size_t done = batch_idx + 1;
    if (batches.size() > 1 && done < batches.size() &&
        (done - last_progress_done >= kProgressEveryScopes ||
         std::chrono::duration<double>(Clock::now() - last_progress).count() >= kProgressSeconds)) {
      console.Note("ingest: " + std::to_string(done) + "/" + std::to_string(batches.size()) +
                   " scopes, " + std::to_string(total_turns) + " turns acknowledged" +
                   DerivedSoFar(**engine) + ", " + Fixed(SecondsSince(start), 1) + " s");
      last_progress = Clock::now();
      last_progress_done = done;
    }
  }

  // Phase one is done: every turn is stored and searchable by BM25.
  const double acknowledged_seconds = SecondsSince(start);
  std::int64_t pending_turns = 0;
  if (!args.no_wait) {
    // Phase two: wait for the worker, with a progress line every kProgressSeconds.
    std::future<Status> derived =
        std::async(std::launch::async, [&engine] { return (*engine)->WaitForDerivation(); });
    while (derived.wait_for(std::chrono::duration<double>(kProgressSeconds)) !=
           std::future_status::ready) {
      console.Note("ingest: " + std::to_string(total_turns) + " turns acknowledged" +
                   DerivedSoFar(**engine) + ", " + Fixed(SecondsSince(start), 1) + " s");
    }
    if (Status status = derived.get(); !status.ok()) {
      return console.Fail(kCommand, status.WithContext(
                                        "every turn is stored, but deriving facts from them "
                                        "failed; the derivation resumes when the store is "
                                        "opened again"));
    }
  } else if (StatusOr<DerivationStatus> derivation = (*engine)->Derivation(); derivation.ok()) {
    pending_turns = derivation->pending_turns;
  }
  const double seconds = SecondsSince(start);
  const double turns_per_second = seconds > 0 ? static_cast<double>(total_turns) / seconds : 0;
  const double acknowledged_per_second =
      acknowledged_seconds > 0 ? static_cast<double>(total_turns) / acknowledged_seconds : 0;
  if (console.json()) {
    io::Json json = io::Json::object();
    json["format"] = args.format;
    io::Json files = io::Json::array();
    for (const std::string& file : args.files) files.push_back(io::DisplayName(file));
    json["files"] = std::move(files);
    json["scopes"] = std::move(scopes);
    json["turns"] = total_turns;
    json["already_stored"] = already_stored;
    json["skipped_blank_turns"] = skipped_blank_turns;
    // seconds / turns_per_second: until everything was derived (or, with --no-wait,
    // acknowledged); acknowledged_*: until the last turn was stored and searchable by BM25.
    json["seconds"] = seconds;
    json["turns_per_second"] = turns_per_second;
    json["acknowledged_seconds"] = acknowledged_seconds;
    json["acknowledged_turns_per_second"] = acknowledged_per_second;
    json["pending_turns"] = pending_turns;
    console.PrintJson(json);
  } else if (!console.global().quiet) {
    console.out() << "ingested " << total_turns << " turns into " << stored_scopes
                  << (stored_scopes == 1 ? " scope" : " scopes");
    if (stored_scopes == 1 && batches.size() == 1) {
      console.out() << " (" << Printable(batches[0].scope.ToString()) << ")";
    }
    console.out() << " in " << Fixed(seconds, 2) << " s (" << Fixed(turns_per_second, 0)
                  << " turns/s; acknowledged in " << Fixed(acknowledged_seconds, 2) << " s, "
                  << Fixed(acknowledged_per_second, 0) << " turns/s)";
    if (args.no_wait && pending_turns > 0) {
      console.out() << "; " << pending_turns
                    << " turn(s) await derivation, which resumes when the store is next opened";
    }
    if (already_stored > 0) {
      console.out() << "; " << already_stored << " turn(s) already stored, not stored again";
    }
    console.out() << "\n";
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
      "be zstd-compressed (.zst); '-' reads stdin. Every input is parsed and every turn checked\n"
      "before anything is stored, so a bad line or turn in any format stores nothing; each scope\n"
      "is stored all-or-nothing. Each turn carries an idempotency key (the JSONL field\n"
      "\"idempotency_key\", else derived from the scope, the turn's position and content, not\n"
      "the file's name), so ingesting a file again, or a renamed or .zst copy of it, stores only\n"
      "what is new and reports the rest as already stored. Turns are acknowledged once stored and searchable by keyword; their embeddings\n"
      "and derived facts follow in the background, and ingest waits for them before it exits\n"
      "(progress lines on stderr) unless --no-wait. -q prints no summary.\n");
  command->add_option("--scope", args->scope, "Scope of the turns (jsonl only), e.g. user:alice");
  command->add_option("--format", args->format, "Input format (default jsonl)")
      ->check(CLI::IsMember({"jsonl", "locomo", "longmemeval"}));
  command->add_option("FILE", args->files, "Input files ('-' = stdin)")->required();
  command->add_flag("--no-wait", args->no_wait,
                    "Exit once every turn is stored and searchable; the derivation resumes when "
                    "the store is next opened");
  commands->push_back({command, [args, &console] { return RunIngest(*args, console); }});
}

}  // namespace engram::cli
