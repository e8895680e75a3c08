// HttpServer: the HTTP/1.1 server of `engram serve` (cpp-httplib). It owns no engine state: route
// groups (the native /v1 API, the mem0-compatible API) register Route lists, the MCP transport
// mounts a raw handler, and the server does what is common to all of them: a bounded worker pool,
// body-size limits and timeouts, authentication (API keys → auth::Access), X-Request-Id, JSON
// errors, the access log, /healthz, /readyz and /metrics.
//
//   engram::server::HttpServer server(*engine, options, std::move(keys));
//   server.AddRoutes(engram::server::V1Api(*engine, limits, &server.metrics()).Routes());
//   RETURN_IF_ERROR(server.Bind());   // refuses a non-loopback address without keys
//   server.Run();                     // until Stop() (from a signal thread, a test, ...)
//
// Authentication: with a keys file, every route but /healthz, /readyz, /metrics,
// /v1/openapi.json and public mounts (the /ui pages) needs `Authorization: Bearer <key>` (or `Token
// <key>`); a missing, unknown or revoked key is 401. Without one, every caller gets
// Access::Unrestricted() and Bind refuses any address but loopback.
//
// Thread-safety: AddRoutes, MountRaw, MountPublic and AddGauges before Bind; Stop and ReloadKeys from any
// thread.
#ifndef ENGRAM_SERVER_HTTP_SERVER_H_
#define ENGRAM_SERVER_HTTP_SERVER_H_

#include <atomic>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "auth/access.h"
#include "auth/keys.h"
#include "engram/engine.h"
#include "engram/status.h"
#include "server/api.h"
#include "server/metrics.h"

namespace engram::server {

struct ServerOptions {
  // Address to bind. Default: loopback. Anything else needs a keys file.
  std::string host = "127.0.0.1";
  // TCP port; 0 picks a free one (HttpServer::port() says which). Default: 8420.
  int port = 8420;
  // Worker threads serving connections. Default: 8.
  std::size_t threads = 8;
  // Accepted connections waiting for a worker; when full the accept loop waits (the kernel's
  // listen backlog holds the rest). Default: 256.
  std::size_t queue_limit = 256;
  // Largest request body accepted; a larger one is 413. Default: 8 MiB.
  std::size_t max_body_bytes = 8 * 1024 * 1024;
  // Seconds a client may take to send a request / to read the response, and to keep an idle
  // keep-alive connection open. Defaults: 10, 10, 5.
  int read_timeout_seconds = 10;
  int write_timeout_seconds = 10;
  int keep_alive_timeout_seconds = 5;
  // One line per request on stderr (request id, method, path, status, milliseconds). Default: off.
  bool log_requests = false;
  // The store file, for the engram_store_size_bytes gauge. Default: "" = no gauge.
  std::string store_path;
  // The keys file ReloadKeys re-reads. Default: "" = no keys (unauthenticated, loopback only).
  std::string keys_path;
};

// A request to a raw mount (the MCP streamable-HTTP transport): everything HTTP, already
// authenticated.
struct RawRequest {
  std::string method;
  std::string path;
  std::multimap<std::string, std::string> headers;  // names as the client sent them
  std::multimap<std::string, std::string> query;
  std::string body;
  const auth::Access* access = nullptr;  // never null when the handler runs
  std::string request_id;
};

struct RawResponse {
  int status = 200;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string content_type = "application/json";
  std::string body;
};

using RawHandler = std::function<RawResponse(const RawRequest&)>;

// Whether `host` is a loopback address ("127.0.0.1", "127.x.y.z", "::1", "localhost").
bool IsLoopbackHost(const std::string& host);

// Parses "host:port" ("127.0.0.1:8420", "[::1]:0", ":8420" = loopback). kInvalidArgument naming
// the problem.
StatusOr<std::pair<std::string, int>> ParseListenAddress(const std::string& text);

class HttpServer {
 public:
  // `keys` null: unauthenticated (Access::Unrestricted for every caller, loopback only).
  HttpServer(Engine& engine, ServerOptions options, std::unique_ptr<auth::KeyFile> keys);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  void AddRoutes(RouteList routes);
  // Serves every method at exactly `path` (and below it: `path` + "/...") with `handler`.
  void MountRaw(std::string path, RawHandler handler);
  // As MountRaw, without authentication: for pages that hold no data (the web inspector's static
  // files); RawRequest::access is Access::Granted({}) there, which grants nothing.
  void MountPublic(std::string path, RawHandler handler);

  // More gauges for /metrics, sampled on every render (e.g. the journal follower's).
  void AddGauges(std::function<std::vector<Gauge>()> source);

  // Binds the listening socket. kFailedPrecondition for a non-loopback host without keys;
  // kUnavailable when the address cannot be bound.
  Status Bind();
  // The bound port (after Bind).
  int port() const { return port_; }
  // Serves until Stop. In-flight requests finish before it returns.
  Status Run();
  // Stops accepting; Run returns once the workers are idle. Safe from any thread, repeatable.
  void Stop();
  // Re-reads options.keys_path; the old keys stay in force when the file is bad.
  Status ReloadKeys();

  Metrics& metrics() { return metrics_; }
  bool authenticated() const;

  // The caller's Access for an Authorization header value, as every route gets it:
  // kFailedPrecondition ("missing API key" / "unknown or revoked API key") means 401.
  StatusOr<auth::Access> Authenticate(const std::string& authorization) const;

  struct Impl;

 private:
  Engine& engine_;
  ServerOptions options_;
  mutable std::mutex keys_mutex_;
  std::shared_ptr<const auth::KeyFile> keys_;  // guarded by keys_mutex_; null = no auth
  Metrics metrics_;
  int port_ = 0;
  std::atomic<bool> stop_requested_{false};
  std::atomic<bool> running_{false};  // inside Run
  std::unique_ptr<Impl> impl_;
};

}  // namespace engram::server

#endif  // ENGRAM_SERVER_HTTP_SERVER_H_
