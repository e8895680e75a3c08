// mcp_command.cc: `engram mcp` — engram's MCP server for one local agent host.
//
//   engram --store memory.db mcp                       # stdio: what MCP hosts launch
//   engram --store memory.db mcp --http 127.0.0.1:0    # streamable HTTP on a loopback port
//   engram --store memory.db mcp --scope user:alice    # the tools work in user:alice
//
// stdio: newline-delimited JSON-RPC messages on stdin, replies on stdout (nothing else is ever
// written there), notes on stderr; exits 0 at end of input, closing the store. HTTP: serves
// POST/GET/DELETE at /mcp on a loopback address only (`engram serve` is the networked server),
// prints "engram mcp: listening on http://HOST:PORT/mcp" on stderr once bound, and stops on
// SIGINT or SIGTERM; meanwhile a journal follower takes other processes' writes to the store into
// the projections ([store] follow_poll_ms, server/journal_follower.h). stdio serves the caller
// with every right (auth::Access::Unrestricted); HTTP, like a keyless `engram serve`, with every
// right but the server-wide admin ones, and only to requests whose Host is a loopback name and
// whose Origin, if any, is loopback or --allow-origin. With --scope, a tool call that names no
// scope works in that one (mcp::ServerOptions::default_scope), so the host pins the user's scope
// and the model needs no scope names.
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "auth/access.h"
#include "cli/cli.h"
#include "mcp/http_transport.h"
#include "mcp/server.h"
#include "server/http_server.h"
#include "server/journal_follower.h"

namespace engram::cli {
namespace {

struct McpArgs {
  std::string http;   // "host:port"; empty: stdio
  std::string scope;  // the tools' default scope; empty: none
  std::vector<std::string> allowed_origins;
  std::size_t max_sessions = 64;
};

// Reads newline-terminated lines of at most `max_bytes` bytes; a longer line is skipped whole
// and reported as too long, so one hostile line cannot exhaust memory.
class LineReader {
 public:
  LineReader(std::FILE* in, std::size_t max_bytes) : in_(in), max_bytes_(max_bytes) {}

  // Next line (without its "\n" or "\r\n") or nullopt at end of input; *too_long when the line
  // exceeded the limit (its text is then empty).
  std::optional<std::string> Next(bool* too_long) {
    std::string line;
    *too_long = false;
    int c = 0;
    bool any = false;
    while ((c = getc_unlocked(in_)) != EOF) {  // one reader thread: no locking needed
      any = true;
      if (c == '\n') break;
      if (*too_long) continue;
      if (line.size() >= max_bytes_) {
        *too_long = true;
        line.clear();
        line.shrink_to_fit();
        continue;
      }
      line.push_back(static_cast<char>(c));
    }
    if (!any) return std::nullopt;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    return line;
  }

 private:
  std::FILE* in_;
  std::size_t max_bytes_;
};

int ServeStdio(const mcp::McpServer& server, Console& console) {
  const auth::Access access = auth::Access::Unrestricted();
  mcp::Session session;
  LineReader reader(stdin, server.options().max_message_bytes);
  console.Note("engram mcp: serving " + Engine::DisplayStoreLocation(console.global().store) +
               " over stdio");
  bool too_long = false;
  while (std::optional<std::string> line = reader.Next(&too_long)) {
    std::optional<std::string> reply;
    if (too_long) {
      reply = io::Dump(mcp::McpServer::ErrorReply(
          nullptr, mcp::error_code::kInvalidRequest,
          "message is longer than " + std::to_string(server.options().max_message_bytes) +
              " bytes"));
    } else {
      if (line->find_first_not_of(" \t") == std::string::npos) continue;
      reply = server.HandleMessage(*line, session, access);
    }
    if (reply) {
      std::fwrite(reply->data(), 1, reply->size(), stdout);
      std::fputc('\n', stdout);
      std::fflush(stdout);
    }
  }
  return ToInt(ExitCode::kOk);
}

// `engine` is the one `server` serves; a journal follower keeps its projections current with
// other processes' writes to the store meanwhile (as in `engram serve`). The HTTP server is
// `engram serve`'s (server/http_server.h), with only /mcp mounted: the same request limits,
// timeouts, connection caps and Host and Origin checks.
int ServeHttp(Engine& engine, const mcp::McpServer& server, const McpArgs& args,
              Console& console) {
  StatusOr<std::pair<std::string, int>> address = server::ParseListenAddress(args.http);
  if (!address.ok()) return console.UsageError("mcp", "--http: " + address.status().message());
  if (!server::IsLoopbackHost(address->first)) {
    return console.UsageError("mcp",
                              "--http binds loopback addresses only (127.0.0.1, localhost, ::1); "
                              "use `engram serve` to serve a network");
  }

  StatusOr<std::unique_ptr<server::JournalFollower>> follower =
      MakeJournalFollower(engine, console, "mcp");
  if (!follower.ok()) return console.Fail("mcp", follower.status());

  // SIGINT and SIGTERM are taken by a waiting thread, which stops the server; every other
  // thread (the server's pool included) has them blocked.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  server::ServerOptions options;
  options.host = address->first;
  options.port = address->second;
  options.max_body_bytes = server.options().max_message_bytes;
  options.allowed_origins = args.allowed_origins;
  server::HttpServer http(engine, options, /*keys=*/nullptr);
  mcp::HttpTransport transport(
      server, {.max_sessions = args.max_sessions, .allowed_origins = args.allowed_origins});
  http.MountRaw("/mcp", [&transport](const server::RawRequest& request) {
    return ServeMcpRequest(transport, request);
  });
  const Status bound = http.Bind();
  if (!bound.ok()) return console.Fail("mcp", bound);

  std::atomic<bool> stopping = false;
  std::thread stopper([&http, &stop_signals, &stopping] {
    int received = 0;
    sigwait(&stop_signals, &received);
    stopping = true;
    http.Stop();
  });
  const std::string shown_host =
      address->first.find(':') == std::string::npos ? address->first : "[" + address->first + "]";
  // Always printed (not a --quiet note): tests and scripts read the port from it.
  console.err() << "engram mcp: listening on http://" << shown_host << ":" << http.port()
                << "/mcp" << std::endl;
  (*follower)->Start();
  const Status ran = http.Run();
  (*follower)->Stop();
  // Wake the stopper if the server ended on its own (the signal stays blocked everywhere else).
  if (!stopping) kill(getpid(), SIGTERM);
  stopper.join();
  return ran.ok() ? ToInt(ExitCode::kOk) : console.Fail("mcp", ran);
}

}  // namespace

void AddMcpCommand(CLI::App& app, Console& console, CommandList* commands) {
  auto args = std::make_shared<McpArgs>();
  CLI::App* command = app.add_subcommand(
      "mcp",
      "Serve the memory to an MCP host (Claude Desktop, Cursor, ...): JSON-RPC on stdin/stdout, "
      "or streamable HTTP with --http");
  command->add_option("--http", args->http,
                      "Serve streamable HTTP at http://HOST:PORT/mcp instead of stdio "
                      "(loopback only; port 0 picks a free one)");
  command->add_option("--allow-origin", args->allowed_origins,
                      "With --http: a browser Origin to accept besides loopback ones (repeatable)");
  command->add_option("--scope", args->scope,
                      "The scope the tools work in when a call names none (e.g. user:alice): "
                      "the model then needs no scope names");
  command
      ->add_option("--max-sessions", args->max_sessions,
                   "With --http: sessions open at once at most (default 64)")
      ->check(WholeNumber(1));
  commands->push_back({command, [&console, args] {
                         mcp::ServerOptions options;
                         if (!args->scope.empty()) {
                           StatusOr<Scope> scope = Scope::Parse(args->scope);
                           if (!scope.ok()) {
                             return console.UsageError("mcp",
                                                       "--scope: " + scope.status().message());
                           }
                           options.default_scope = *std::move(scope);
                         }
                         StatusOr<std::unique_ptr<Engine>> engine =
                             OpenEngine(console.global(), /*create_if_missing=*/true);
                         if (!engine.ok()) return console.Fail("mcp", engine.status());
                         const mcp::McpServer server(**engine, std::move(options));
                         if (args->http.empty()) return ServeStdio(server, console);
                         return ServeHttp(**engine, server, *args, console);
                       }});
}

}  // namespace engram::cli
