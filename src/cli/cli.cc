// cli.cc: the console (results, errors, exit codes), opening the engine, terminal-safe text.
#include "cli/cli.h"

#include <strings.h>

#include <chrono>
#include <cstdio>
#include <ostream>
#include <tuple>

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

}  // namespace

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
