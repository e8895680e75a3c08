// cli.cc: the console (results, errors, exit codes), opening the engine, terminal-safe text.
#include "cli/cli.h"

#include <strings.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ostream>
#include <tuple>
#include <vector>

#include "core/ids.h"
#include "core/utf8.h"
#include "engram/config.h"
#include "mcp/http_transport.h"
#include "server/http_server.h"
#include "server/journal_follower.h"

namespace engram::cli {
namespace {

constexpr std::size_t kMaxMessageBytes = 2000;

std::string Hex(unsigned char byte) {
  char buffer[8];
  std::snprintf(buffer, sizeof(buffer), "\\x%02X", byte);
  return buffer;
}

// Length of the UTF-8 sequence a lead byte starts, or 0 for a byte that cannot start one.
std::size_t SequenceLength(unsigned char lead) {
  if (lead >= 0xC2 && lead <= 0xDF) return 2;
  if (lead >= 0xE0 && lead <= 0xEF) return 3;
  if (lead >= 0xF0 && lead <= 0xF4) return 4;
  return 0;
}

// Optimal string alignment distance: the fewest insertions, deletions, substitutions and swaps
// of two adjacent characters that turn `a` into `b` (no substring is edited twice).
std::size_t EditDistance(std::string_view a, std::string_view b) {
  // rows[i][j]: the distance between a's first i and b's first j characters.
  std::vector<std::vector<std::size_t>> rows(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t a_len = 0; a_len <= a.size(); ++a_len) rows[a_len][0] = a_len;
  for (std::size_t b_len = 0; b_len <= b.size(); ++b_len) rows[0][b_len] = b_len;
  for (std::size_t a_len = 1; a_len <= a.size(); ++a_len) {
    for (std::size_t b_len = 1; b_len <= b.size(); ++b_len) {
      const std::size_t substitution = a[a_len - 1] == b[b_len - 1] ? 0 : 1;
      std::size_t best = std::min({rows[a_len - 1][b_len] + 1, rows[a_len][b_len - 1] + 1,
                                   rows[a_len - 1][b_len - 1] + substitution});
      if (a_len > 1 && b_len > 1 && a[a_len - 1] == b[b_len - 2] && a[a_len - 2] == b[b_len - 1]) {
        best = std::min(best, rows[a_len - 2][b_len - 2] + 1);
      }
      rows[a_len][b_len] = best;
    }
  }
  return rows[a.size()][b.size()];
}

// The option of `command`, or (fallthrough) of a command above it, that `matches`.
template <typename Matches>
const CLI::Option* FindOption(const CLI::App* command, const Matches& matches) {
  for (const CLI::App* level = command; level != nullptr; level = level->get_parent()) {
    for (const CLI::Option* option : level->get_options()) {
      if (option->nonpositional() && matches(*option)) return option;
    }
  }
  return nullptr;
}

// The long names ("scope", not "--scope") of the flags `command` accepts, its own and above.
std::vector<std::string> LongFlagNames(const CLI::App* command) {
  std::vector<std::string> names;
  for (const CLI::App* level = command; level != nullptr; level = level->get_parent()) {
    for (const CLI::Option* option : level->get_options()) {
      names.insert(names.end(), option->get_lnames().begin(), option->get_lnames().end());
    }
  }
  return names;
}

const CLI::App* FindSubcommand(const CLI::App* command, const std::string& word) {
  for (const CLI::App* subcommand : command->get_subcommands({})) {
    if (subcommand->check_name(word)) return subcommand;
  }
  return nullptr;
}

bool HasPositionals(const CLI::App* command) {
  return !command->get_options([](const CLI::Option* option) { return option->get_positional(); })
              .empty();
}

// "keys create" for engram's `keys create`, "" for engram itself.
std::string CommandPath(const CLI::App* command) {
  std::string path;
  for (; command != nullptr && command->get_parent() != nullptr; command = command->get_parent()) {
    path = command->get_name() + (path.empty() ? "" : " " + path);
  }
  return path;
}

// How many of the words after args[index] the value-taking `option` there consumes: its minimum,
// then up to its maximum words that are neither flags nor subcommands of `command`.
std::size_t ValuesTaken(const CLI::Option& option, const CLI::App* command,
                        const std::vector<std::string>& args, std::size_t index) {
  const auto min = static_cast<std::size_t>(std::max(0, option.get_items_expected_min()));
  const auto max = static_cast<std::size_t>(std::max(0, option.get_items_expected_max()));
  std::size_t taken = 0;
  while (taken < max && index + 1 + taken < args.size()) {
    const std::string& next = args[index + 1 + taken];
    const bool word = next.empty() || next[0] != '-' || next.size() == 1;
    if (taken >= min && (!word || FindSubcommand(command, next) != nullptr)) break;
    ++taken;
  }
  return taken;
}

bool LooksLikeNumber(std::string_view word) {
  return word.size() > 1 && word[0] == '-' &&
         word.find_first_not_of("0123456789.", 1) == std::string_view::npos;
}

UnknownWord Unknown(const CLI::App* command, std::string_view kind, std::string_view word,
                    std::string_view stem, const std::vector<std::string>& names,
                    std::string_view prefix) {
  UnknownWord unknown{CommandPath(command), "unknown " + std::string(kind) + " '" +
                                                Excerpt(Printable(word), 64) + "'"};
  if (std::optional<std::string> closest = ClosestName(stem, names)) {
    unknown.message += "; did you mean '" + std::string(prefix) + *closest + "'?";
  }
  return unknown;
}

}  // namespace

std::optional<std::string> ClosestName(std::string_view typed,
                                       const std::vector<std::string>& names) {
  std::optional<std::string> best;
  std::size_t best_edits = 0;
  for (const std::string& name : names) {
    // Longer than the name by more edits than allowed: neither close nor its beginning (and a
    // huge word costs nothing).
    if (typed.size() > name.size() + kMaxSuggestionEdits) continue;
    const std::size_t edits = EditDistance(typed, name);
    const bool close = edits <= kMaxSuggestionEdits && edits < typed.size();
    const bool begun = typed.size() >= 3 && name.size() > typed.size() &&
                       name.compare(0, typed.size(), typed) == 0;
    if (!close && !begun) continue;
    if (!best || edits < best_edits || (edits == best_edits && name < *best)) {
      best = name;
      best_edits = edits;
    }
  }
  return best;
}

std::optional<UnknownWord> FindUnknownWord(const CLI::App& app,
                                           const std::vector<std::string>& args) {
  const CLI::App* command = &app;
  for (std::size_t index = 0; index < args.size(); ++index) {
    const std::string& arg = args[index];
    if (arg == "--") break;  // the rest are arguments
    if (arg.size() > 2 && arg.compare(0, 2, "--") == 0) {
      const std::size_t equals = arg.find('=');
      const std::string name = arg.substr(2, equals == std::string::npos ? equals : equals - 2);
      const CLI::Option* option = FindOption(command, [&name](const CLI::Option& candidate) {
        const auto& names = candidate.get_lnames();
        return std::find(names.begin(), names.end(), name) != names.end();
      });
      if (option == nullptr) {
        return Unknown(command, "flag", "--" + name, name, LongFlagNames(command), "--");
      }
      if (equals == std::string::npos) index += ValuesTaken(*option, command, args, index);
      continue;
    }
    if (arg.size() > 1 && arg[0] == '-' && !LooksLikeNumber(arg)) {
      const std::string name(1, arg[1]);
      const CLI::Option* option = FindOption(command, [&name](const CLI::Option& candidate) {
        const auto& names = candidate.get_snames();
        return std::find(names.begin(), names.end(), name) != names.end();
      });
      if (option == nullptr) {
        // "-scope" is perhaps a long flag written with one dash.
        return Unknown(command, "flag", arg, arg.substr(1), LongFlagNames(command), "--");
      }
      // "-k 5" takes the next word; "-k5" and grouped flags ("-qk") hold their own.
      if (arg.size() == 2) index += ValuesTaken(*option, command, args, index);
      continue;
    }
    if (const CLI::App* subcommand = FindSubcommand(command, arg)) {
      command = subcommand;
      continue;
    }
    if (command->get_require_subcommand_min() > 0 && !HasPositionals(command)) {
      std::vector<std::string> names;
      for (const CLI::App* subcommand : command->get_subcommands({})) {
        names.push_back(subcommand->get_name());
        names.insert(names.end(), subcommand->get_aliases().begin(),
                     subcommand->get_aliases().end());
      }
      return Unknown(command, "command", arg, arg, names, "");
    }
    // Otherwise an argument of `command`.
  }
  return std::nullopt;
}

ExitCode ExitCodeFor(StatusCode code) {
  switch (code) {
    case StatusCode::kOk:
      return ExitCode::kOk;
    case StatusCode::kNotFound:
      return ExitCode::kNotFound;
    default:
      return ExitCode::kError;
  }
}

void Console::PrintJson(const io::Json& value) { out_ << io::Dump(value, /*pretty=*/true) << "\n"; }

void Console::PrintContext(const std::string& context, const std::string& answer_instructions) {
  if (json()) {
    io::Json json = io::Json::object();
    json["context"] = context;
    json["answer_instructions"] = answer_instructions;
    PrintJson(json);
  } else {
    out_ << context;
    if (!context.empty() && context.back() != '\n') out_ << "\n";
  }
}

void Console::Note(std::string_view line) {
  if (!global_.quiet) err_ << Printable(line) << "\n";
}

int Console::Fail(std::string_view command, const Status& status) {
  return Report(command, status, ExitCodeFor(status.code()));
}

int Console::UsageError(std::string_view command, std::string_view message) {
  return Report(command, Status::InvalidArgument(std::string(message)), ExitCode::kUsage);
}

int Console::Report(std::string_view command, const Status& status, ExitCode code) {
  std::string message = status.message();
  if (message.size() > kMaxMessageBytes) message = Excerpt(message, kMaxMessageBytes);
  // With --json the error is one JSON object on stdout, and nothing on stderr.
  if (global_.json) {
    PrintJson(io::ErrorToJson(Status(status.code(), message)));
    return ToInt(code);
  }
  err_ << "engram: ";
  if (!command.empty()) err_ << command << ": ";
  err_ << Printable(message);
  if (code == ExitCode::kUsage) {
    err_ << "\n(run 'engram " << (command.empty() ? "" : std::string(command) + " ")
         << "--help' for usage)";
  }
  err_ << "\n";
  return ToInt(code);
}

StatusOr<std::unique_ptr<Engine>> OpenEngine(const GlobalOptions& global, bool create_if_missing,
                                             bool background_derivation) {
  EngineOptions options;
  options.background_derivation = background_derivation;
  options.store_path = global.store;
  options.data_dir = global.data_dir;
  options.config_file = global.config;
  options.create_if_missing = create_if_missing;
  return Engine::Open(options);
}

StatusOr<std::unique_ptr<server::JournalFollower>> MakeJournalFollower(Engine& engine,
                                                                      Console& console,
                                                                      std::string_view command) {
  // The engine read the same file (EngineOptions::config_file), so it loads here as there.
  Config config;
  if (!console.global().config.empty()) {
    ASSIGN_OR_RETURN(config, LoadConfigFile(console.global().config));
  }
  server::FollowerOptions options;
  options.poll_interval = std::chrono::milliseconds(config.store.follow_poll_ms);
  options.on_error = [&console, name = std::string(command)](const Status& status) {
    console.err() << "engram " << name << ": following the store's journal: "
                  << (status.ok() ? std::string("resumed") : status.ToString()) << std::endl;
  };
  return std::make_unique<server::JournalFollower>(engine, std::move(options));
}

server::RawResponse ServeMcpRequest(mcp::HttpTransport& transport,
                                    const server::RawRequest& request) {
  server::RawResponse response;
  if (request.path != "/mcp") {
    response.status = 404;
    response.body = R"({"error":{"code":"NOT_FOUND","message":"the MCP endpoint is /mcp"}})";
    return response;
  }
  mcp::HttpCall call{.method = request.method, .body = request.body};
  for (const auto& [name, value] : request.headers) call.headers.emplace(name, value);
  mcp::HttpResult result = transport.Handle(call, *request.access);
  response.status = result.status;
  response.content_type = "";
  for (const auto& [name, value] : result.headers) {
    if (strcasecmp(name.c_str(), "Content-Type") == 0) {
      response.content_type = value;
    } else {
      response.headers.emplace_back(name, value);
    }
  }
  response.body = std::move(result.body);
  return response;
}

std::string Printable(std::string_view text, bool keep_newlines) {
  std::string out;
  out.reserve(text.size());
  std::size_t pos = 0;
  while (pos < text.size()) {
    const auto byte = static_cast<unsigned char>(text[pos]);
    if (byte < 0x80) {
      const bool control = byte < 0x20 || byte == 0x7F;
      if (!control || (keep_newlines && (byte == '\n' || byte == '\t'))) {
        out += static_cast<char>(byte);
      } else {
        out += Hex(byte);
      }
      ++pos;
      continue;
    }
    const std::size_t length = SequenceLength(byte);
    const bool c1_control =
        byte == 0xC2 && pos + 1 < text.size() && static_cast<unsigned char>(text[pos + 1]) < 0xA0;
    if (length > 0 && pos + length <= text.size() && !c1_control &&
        core::IsValidUtf8(text.substr(pos, length))) {
      out.append(text.substr(pos, length));
      pos += length;
    } else {
      out += Hex(byte);
      ++pos;
    }
  }
  return out;
}

std::string Excerpt(std::string_view text, std::size_t max_bytes) {
  std::string line;
  line.reserve(std::min(text.size(), max_bytes + 3));
  for (const char c : text) {
    if (line.size() >= max_bytes) break;
    line += (c == '\n' || c == '\r' || c == '\t') ? ' ' : c;
  }
  if (line.size() < text.size()) {
    // Do not end inside a UTF-8 character.
    while (!line.empty() && (static_cast<unsigned char>(line.back()) & 0xC0) == 0x80) {
      line.pop_back();
    }
    if (!line.empty() && static_cast<unsigned char>(line.back()) >= 0xC0) line.pop_back();
    line += "...";
  }
  return line;
}

CLI::Validator WholeNumber(long long min) {
  return CLI::Validator(
      [min](std::string& value) -> std::string {
        std::size_t used = 0;
        long long number = 0;
        try {
          number = std::stoll(value, &used);
        } catch (const std::exception&) {
          used = 0;
        }
        if (used == 0 || used != value.size() || number < min) {
          return "must be a whole number >= " + std::to_string(min) + ", got \"" +
                 Excerpt(Printable(value), 40) + "\"";
        }
        return std::string();
      },
      "INT>=" + std::to_string(min));
}

CLI::Validator IdValidator() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        if (core::LooksLikeId(value)) return std::string();
        return "\"" + Excerpt(Printable(value), 40) + "\" is not an id (32 lowercase hex digits)";
      },
      "ID");
}

std::string TimeOrDash(const std::optional<Timestamp>& time) {
  return time.has_value() ? FormatTimestamp(*time) : "-";
}

void AddAsOfFlags(CLI::App* command, AsOfFlags* flags) {
  flags->valid_at_option = command->add_option(
      "--valid-at", flags->valid_at,
      "What was true then: only memories valid at this ISO-8601 time, superseded ones included");
  AddKnownAtFlag(command, flags);
}

void AddKnownAtFlag(CLI::App* command, AsOfFlags* flags) {
  flags->known_at_option = command->add_option(
      "--known-at", flags->known_at,
      "What engram knew then: only memories ingested by this ISO-8601 time, with the status they "
      "had then");
}

StatusOr<AsOfTimes> ParseAsOfFlags(const AsOfFlags& flags) {
  AsOfTimes times;
  for (const auto& [flag, text, field] :
       {std::tuple{flags.valid_at_option, &flags.valid_at, &times.valid_at},
        std::tuple{flags.known_at_option, &flags.known_at, &times.known_at}}) {
    if (flag == nullptr || flag->count() == 0) continue;
    StatusOr<Timestamp> time = ParseTimestamp(*text);
    if (!time.ok()) {
      return Status::InvalidArgument(flag->get_name() + ": " + time.status().message());
    }
    *field = *time;
  }
  return times;
}

}  // namespace engram::cli
