// serve_command.cc: `engram serve` — the HTTP server over one engine: the native REST API /v1,
// /healthz, /readyz, /metrics (docs/API.md), and the web inspector at /ui/.
//
//   engram --store mem.db serve --listen 127.0.0.1:8420 --keys keys.json
//
// A journal follower (server/journal_follower.h) keeps the projections current with writes
// other servers make to a shared store. SIGTERM or SIGINT: stop accepting, finish the requests in flight, close the engine (and so the
// store), exit 0. SIGHUP: re-read the keys file (a bad file keeps the old keys). Without --keys
// every caller has full access and only a loopback address may be bound.
#include <pthread.h>
#include <signal.h>

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "auth/keys.h"
#include "cli/cli.h"
#include "mcp/http_transport.h"
#include "mcp/server.h"
#include "server/api_v1.h"
#include "server/http_server.h"
#include "server/journal_follower.h"
#include "server/mem0_api.h"
#include "server/mem0_platform.h"
#include "server/ui.h"

namespace engram::cli {
namespace {

struct ServeArgs {
  std::string listen = "127.0.0.1:8420";
  std::string keys;
  std::size_t threads = 8;
  std::size_t queue = 256;
  std::size_t max_body_bytes = 8 * 1024 * 1024;
  std::size_t max_turns = 1000;
  std::size_t max_k = 200;
  std::size_t max_token_budget = 100000;
  std::size_t max_query_bytes = 4096;
  int timeout_seconds = 10;
  int keep_alive_seconds = 5;
  std::size_t max_connections = 512;
  std::size_t max_connections_per_client = 64;
  std::vector<std::string> allowed_origins;
  std::vector<std::string> allowed_hosts;
  bool allow_admin = false;
  bool log_requests = false;
};

int RunServe(const ServeArgs& args, Console& console) {
  StatusOr<std::pair<std::string, int>> address = server::ParseListenAddress(args.listen);
  if (!address.ok()) return console.UsageError("serve", address.status().message());
  std::unique_ptr<auth::KeyFile> keys;
  if (!args.keys.empty()) {
    StatusOr<auth::KeyFile> loaded = auth::KeyFile::Load(args.keys);
    if (!loaded.ok()) return console.Fail("serve", loaded.status());
    keys = std::make_unique<auth::KeyFile>(*std::move(loaded));
  } else if (!server::IsLoopbackHost(address->first)) {
    return console.UsageError(
        "serve", "refusing to listen on " + address->first +
                     " without --keys: an unauthenticated server may only bind a loopback "
                     "address (create keys with `engram keys create`)");
  }

  // The signals are taken by one thread (sigwait), so block them before any thread starts.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGHUP);
  sigaddset(&signals, SIGUSR1);  // internal: ends the signal thread
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  StatusOr<std::unique_ptr<Engine>> engine = OpenEngine(console.global(), true);
  if (!engine.ok()) return console.Fail("serve", engine.status());
  // Other servers' writes to a shared store reach the projections before a recall asks.
  StatusOr<std::unique_ptr<server::JournalFollower>> follower =
      MakeJournalFollower(**engine, console, "serve");
  if (!follower.ok()) return console.Fail("serve", follower.status());
  int exit_code = ToInt(ExitCode::kOk);
  {
    server::ServerOptions options;
    options.host = address->first;
    options.port = address->second;
    options.threads = args.threads;
    options.queue_limit = args.queue;
    options.max_body_bytes = args.max_body_bytes;
    options.read_timeout_seconds = args.timeout_seconds;
    options.write_timeout_seconds = args.timeout_seconds;
    options.keep_alive_timeout_seconds = args.keep_alive_seconds;
    options.max_connections = args.max_connections;
    options.max_connections_per_client = args.max_connections_per_client;
    options.allowed_origins = args.allowed_origins;
    options.allowed_hosts = args.allowed_hosts;
    options.allow_admin = args.allow_admin;
    options.log_requests = args.log_requests;
    options.store_path = console.global().store;
    options.keys_path = args.keys;
    server::ApiLimits limits;
    limits.max_turns_per_request = args.max_turns;
    limits.max_k = args.max_k;
    limits.max_token_budget = args.max_token_budget;
    limits.max_query_bytes = args.max_query_bytes;
    server::HttpServer http(**engine, options, std::move(keys));
    server::V1Api v1(**engine, limits, &http.metrics());
    // mem0's platform routes (MemoryClient of the mem0ai packages) beside the native ones.
    server::Mem0PlatformApi mem0_platform(**engine, server::Mem0PlatformOptions{});
    http.AddRoutes(server::CombineRoutes(v1.Routes(), mem0_platform.Routes()));
    server::Mem0Api mem0(**engine, server::Mem0Options{});
    http.AddRoutes(mem0.Routes());
    // MCP at /mcp. The server has checked Host and Origin for every route already; the
    // transport checks them again with the same lists.
    const mcp::McpServer mcp_server(**engine);
    mcp::HttpTransport mcp_http(mcp_server, {.allowed_origins = args.allowed_origins,
                                             .allowed_hosts = args.allowed_hosts,
                                             .check_host = !http.authenticated() ||
                                                           !args.allowed_hosts.empty()});
    http.MountRaw("/mcp", [&mcp_http](const server::RawRequest& request) {
      return ServeMcpRequest(mcp_http, request);
    });
    // The web inspector's pages are public; the API calls they make carry the user's key.
    http.MountPublic("/ui", server::ServeUi);
    http.AddGauges([&follower = **follower] {
      const server::FollowerStats stats = follower.stats();
      return std::vector<server::Gauge>{
          {"engram_journal_applied_seq",
           "The last store journal seq this server's projections applied.",
           static_cast<double>(stats.applied_seq)},
          {"engram_journal_follower_wakeups",
           "Times the journal follower found new journal entries (own or other servers' writes).",
           static_cast<double>(stats.wakeups)},
          {"engram_journal_follower_errors",
           "Failed waits or catch-ups of the journal follower.", static_cast<double>(stats.errors)},
      };
    });
    Status bound = http.Bind();
    if (!bound.ok()) return console.Fail("serve", bound);
    if (!http.authenticated()) {
      console.err() << "engram: no --keys: requests are not authenticated (every caller has "
                       "full access; loopback only)\n";
    }
    const std::string origin =
        "http://" +
        (address->first.find(':') != std::string::npos ? "[" + address->first + "]"
                                                       : address->first) +
        ":" + std::to_string(http.port());
    console.err() << "engram: serving " << Printable(Engine::DisplayStoreLocation(console.global().store)) << " on " << origin
                  << "\nengram: web inspector at " << origin << "/ui/" << std::endl;

    std::thread signal_thread([&http, &signals, &console] {
      for (;;) {
        int received = 0;
        if (sigwait(&signals, &received) != 0) return;
        if (received == SIGHUP) {
          const Status reloaded = http.ReloadKeys();
          console.err() << "engram: SIGHUP: "
                        << (reloaded.ok() ? std::string("keys reloaded")
                                          : "keys not reloaded: " + reloaded.message())
                        << std::endl;
          continue;
        }
        if (received == SIGINT || received == SIGTERM) {
          console.err() << "engram: stopping (finishing requests in flight)" << std::endl;
          http.Stop();
        }
        return;
      }
    });
    (*follower)->Start();
    const Status ran = http.Run();
    (*follower)->Stop();
    pthread_kill(signal_thread.native_handle(), SIGUSR1);
    signal_thread.join();
    if (!ran.ok()) exit_code = console.Fail("serve", ran);
  }
  engine->reset();  // closes the store
  return exit_code;
}

}  // namespace

void AddServeCommand(CLI::App& app, Console& console, CommandList* commands) {
  auto args = std::make_shared<ServeArgs>();
  CLI::App* serve = app.add_subcommand(
      "serve", "Serve the store over HTTP: the REST API /v1, /healthz, /readyz, /metrics");
  serve->add_option("--listen", args->listen,
                    "host:port to listen on (default 127.0.0.1:8420; port 0 picks a free one)");
  serve->add_option("--keys", args->keys,
                    "API keys file (engram keys create); without it no authentication and "
                    "loopback only");
  serve->add_option("--threads", args->threads, "Worker threads (default 8)")
      ->check(CLI::Range(1, 256));
  serve
      ->add_option("--queue", args->queue,
                   "Whole requests waiting for a worker; more are 503 (default 256)")
      ->check(CLI::Range(1, 100000));
  serve
      ->add_option("--max-body-bytes", args->max_body_bytes,
                   "Largest request body; larger is 413 (default 8 MiB)")
      ->check(CLI::Range(1024, 1024 * 1024 * 1024));
  serve->add_option("--max-turns", args->max_turns, "Turns per remember request (default 1000)")
      ->check(CLI::Range(1, 100000));
  serve->add_option("--max-k", args->max_k, "Largest recall k (default 200)")
      ->check(CLI::Range(1, 100000));
  serve
      ->add_option("--max-token-budget", args->max_token_budget,
                   "Largest recall token_budget (default 100000)")
      ->check(CLI::Range(1, 10000000));
  serve
      ->add_option("--max-query-bytes", args->max_query_bytes,
                   "Longest recall query in bytes (default 4096)")
      ->check(CLI::Range(1, 1024 * 1024));
  serve
      ->add_option("--timeout", args->timeout_seconds,
                   "Seconds a client may take to send a whole request, or to read a response "
                   "(default 10)")
      ->check(CLI::Range(1, 3600));
  serve
      ->add_option("--keep-alive", args->keep_alive_seconds,
                   "Seconds an idle keep-alive connection stays open (default 5)")
      ->check(CLI::Range(1, 3600));
  serve
      ->add_option("--max-connections", args->max_connections,
                   "Connections open at once; over it the oldest idle one is closed, else 503 "
                   "(default 512)")
      ->check(CLI::Range(1, 100000));
  serve
      ->add_option("--max-connections-per-client", args->max_connections_per_client,
                   "Connections open at once from one client address; over it 503 (default 64)")
      ->check(CLI::Range(1, 100000));
  serve->add_option("--allow-origin", args->allowed_origins,
                    "A browser origin allowed to call the server besides loopback ones, e.g. "
                    "https://app.example.com (repeatable)");
  serve->add_option("--allow-host", args->allowed_hosts,
                    "A Host name (or host:port) accepted besides loopback names (repeatable); "
                    "with --keys on a network address any Host is accepted unless given");
  serve->add_flag("--allow-admin", args->allow_admin,
                  "Without --keys: let callers run server-wide admin operations (mem0's POST "
                  "/reset erases every scope; index rebuilds). Off by default");
  serve->add_flag("--log-requests", args->log_requests,
                  "One line per request on stderr: request id, method, path, status, time");
  commands->push_back({serve, [args, &console] { return RunServe(*args, console); }});
}

}  // namespace engram::cli
