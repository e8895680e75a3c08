// HttpServer: the HTTP/1.1 server of `engram serve` and `engram mcp --http`. It owns no engine
// state: route groups (the native /v1 API, the mem0-compatible API) register Route lists, the MCP
// transport mounts a raw handler, and the server does what is common to all of them: connections,
// limits and timeouts, the Host / Origin policy, authentication (API keys → auth::Access),
// X-Request-Id, JSON errors, the access log, /healthz, /readyz and /metrics.
//
//   engram::server::HttpServer server(*engine, options, std::move(keys));
//   server.AddRoutes(engram::server::V1Api(*engine, limits, &server.metrics()).Routes());
//   RETURN_IF_ERROR(server.Bind());   // refuses a non-loopback address without keys
//   server.Run();                     // until Stop() (from a signal thread, a test, ...)
//
// Connections: one event loop reads every connection without blocking and hands a request to the
// worker pool only once it has arrived whole, so slow or idle clients hold no worker. Each request
// must arrive whole (head and body) within `read_timeout_seconds` of its first byte (else 408 and
// the connection is closed), a response must be taken within `write_timeout_seconds`, an idle
// keep-alive connection is closed after `keep_alive_timeout_seconds`, and connections are capped
// per client address and in total (the oldest idle one makes room, else 503). The head is bounded
// (http_wire.h: HttpLimits) and checked when it arrives, before any body is read: Host and Origin,
// the key, the declared body size, the content coding. A body is capped however it is framed
// (Content-Length or chunked); a gzip / deflate body is decompressed only after authentication,
// streamed, and capped again when decoded.
//
// Browsers: a request whose Host is not a loopback name (or one given in `allowed_hosts`) is
// refused, which defeats DNS rebinding; one whose Origin is not loopback (or in
// `allowed_origins`) is refused; a state-changing request from a browser must declare a JSON body
// (form and text bodies are refused), so a cross-site page can send none without a CORS preflight,
// which the server answers only for allowed origins.
//
// Authentication: with a keys file, every route but /healthz, /readyz, /metrics,
// /v1/openapi.json and public mounts (the /ui pages) needs `Authorization: Bearer <key>` (or `Token
// <key>`); a missing, unknown or revoked key is 401. Without one, every caller gets
// Access::UnrestrictedWithoutAdmin() (Access::Unrestricted() with `allow_admin`, which server-wide
// operations such as mem0's /reset need) and Bind refuses any address but loopback.
//
// Thread-safety: AddRoutes, MountRaw, MountPublic and AddGauges before Bind; Stop and ReloadKeys
// from any thread.
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
  // Worker threads serving whole requests. Default: 8.
  std::size_t threads = 8;
  // Whole requests waiting for a worker; one more gets 503 with Retry-After. Default: 256.
  std::size_t queue_limit = 256;
  // Largest request body accepted, as sent and once decompressed; a larger one is 413.
  // Default: 8 MiB.
  std::size_t max_body_bytes = 8 * 1024 * 1024;
  // The request head: its bytes (request line and header fields) and its field count; over
  // either is 431. Defaults: 32 KiB, 100.
  std::size_t max_header_bytes = 32 * 1024;
  std::size_t max_header_count = 100;
  // Seconds a client may take to send one whole request (head and body, from its first byte) /
  // to read a response, and to keep an idle keep-alive connection open. Defaults: 10, 10, 5.
  int read_timeout_seconds = 10;
  int write_timeout_seconds = 10;
  int keep_alive_timeout_seconds = 5;
  // Connections open at once, in all and from one client address. Over the total the oldest idle
  // connection is closed to make room, else the new one gets 503; over the per-address cap the
  // new one gets 503. Defaults: 512, 64.
  std::size_t max_connections = 512;
  std::size_t max_connections_per_client = 64;
  // Host names (or host:port) accepted in the Host header besides loopback names, and browser
  // origins accepted besides loopback ones ("https://app.example.com"). A server with keys on a
  // non-loopback address accepts any Host unless `allowed_hosts` is given. Default: none.
  std::vector<std::string> allowed_hosts;
  std::vector<std::string> allowed_origins;
  // Without keys: whether callers may run server-wide admin operations (mem0's POST /reset,
  // which erases every scope; index rebuilds). Default: false.
  bool allow_admin = false;
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

// Whether `host` is a loopback address ("127.0.0.1", "127.x.y.z", "::1", "localhost");
// "127.0.0.1.evil.example" is not (http_wire.h: IsLoopbackName).
bool IsLoopbackHost(const std::string& host);

// Parses "host:port" ("127.0.0.1:8420", "[::1]:0", ":8420" = loopback). kInvalidArgument naming
// the problem: no port, a port out of range, a host that is not a name or an address.
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
  // kInvalidArgument for a bad allowed host or origin; kUnavailable when the address cannot be
  // bound.
  Status Bind();
  // The bound port (after Bind).
  int port() const { return port_; }
  // Serves until Stop. Requests already received finish and their responses are sent (each
  // within the write timeout) before it returns.
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
