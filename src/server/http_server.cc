// The HTTP server of `engram serve` (see http_server.h).
#include "server/http_server.h"

#include <httplib.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <iostream>
#include <random>
#include <thread>

#include "core/utf8.h"

namespace engram::server {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kListenBacklog = 1024;  // capped by the kernel's somaxconn

// httplib's task queue with a bound: enqueue waits while `limit` connections are already waiting
// for a worker, so a flood of connections cannot grow memory without bound.
class BoundedTaskQueue : public httplib::TaskQueue {
 public:
  BoundedTaskQueue(std::size_t threads, std::size_t limit) : limit_(limit == 0 ? 1 : limit) {
    for (std::size_t i = 0; i < (threads == 0 ? 1 : threads); ++i) {
      workers_.emplace_back([this] { Work(); });
    }
  }
  ~BoundedTaskQueue() override { shutdown(); }

  void enqueue(std::function<void()> fn) override {
    std::unique_lock<std::mutex> lock(mutex_);
    room_.wait(lock, [this] { return jobs_.size() < limit_ || stopping_; });
    if (stopping_) return;
    jobs_.push_back(std::move(fn));
    ready_.notify_one();
  }

  // Runs what is queued, then joins the workers.
  void shutdown() override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (stopping_ && workers_.empty()) return;
      stopping_ = true;
    }
    ready_.notify_all();
    room_.notify_all();
    for (std::thread& worker : workers_) {
      if (worker.joinable()) worker.join();
    }
    workers_.clear();
  }

 private:
  void Work() {
    for (;;) {
      std::function<void()> job;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        ready_.wait(lock, [this] { return !jobs_.empty() || stopping_; });
        if (jobs_.empty()) return;  // stopping and drained
        job = std::move(jobs_.front());
        jobs_.pop_front();
      }
      room_.notify_one();
      job();
    }
  }

  const std::size_t limit_;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::condition_variable room_;
  std::deque<std::function<void()>> jobs_;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

std::vector<std::string> SplitPath(const std::string& path) {
  std::vector<std::string> segments;
  std::size_t start = 1;
  if (path.empty() || path[0] != '/') return segments;
  while (start <= path.size()) {
    std::size_t slash = path.find('/', start);
    if (slash == std::string::npos) slash = path.size();
    segments.push_back(path.substr(start, slash - start));
    start = slash + 1;
  }
  return segments;
}

// Matches `path` against a Route pattern (see api.h); fills `params` on success.
bool MatchPattern(const std::vector<std::string>& pattern, const std::vector<std::string>& path,
                  std::map<std::string, std::string>* params) {
  std::size_t at = 0;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    const std::string& part = pattern[i];
    if (part == "{scope}") {
      std::string scope;
      while (at < path.size() && path[at].find(':') != std::string::npos) {
        scope += (scope.empty() ? "" : "/") + path[at];
        ++at;
      }
      if (scope.empty()) return false;
      (*params)["scope"] = scope;
      continue;
    }
    if (at >= path.size()) return false;
    if (part.size() > 2 && part.front() == '{' && part.back() == '}') {
      if (path[at].empty()) return false;
      (*params)[part.substr(1, part.size() - 2)] = path[at];
    } else if (part != path[at]) {
      return false;
    }
    ++at;
  }
  return at == path.size();
}

bool SaneRequestId(const std::string& id) {
  if (id.empty() || id.size() > 128) return false;
  for (const char c : id) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '-' || c == '_' || c == '.' || c == ':';
    if (!ok) return false;
  }
  return true;
}

std::string NewRequestId() {
  static std::atomic<std::uint64_t> counter{0};
  static const std::uint64_t salt = [] {
    std::random_device device;
    return (static_cast<std::uint64_t>(device()) << 32) ^ device();
  }();
  char buffer[40];
  std::snprintf(buffer, sizeof(buffer), "req-%08llx-%06llx",
                static_cast<unsigned long long>(salt & 0xFFFFFFFFull),
                static_cast<unsigned long long>(counter.fetch_add(1) + 1));
  return buffer;
}

std::string RequestIdFor(const httplib::Request& req) {
  const std::string incoming = req.get_header_value("X-Request-Id");
  return SaneRequestId(incoming) ? incoming : NewRequestId();
}

// Strips "Bearer " or "Token " (case-insensitive scheme); "" when the header has neither.
std::string CredentialFrom(const std::string& authorization) {
  auto has_scheme = [&](std::string_view scheme) {
    if (authorization.size() <= scheme.size()) return false;
    for (std::size_t i = 0; i < scheme.size(); ++i) {
      if (std::tolower(static_cast<unsigned char>(authorization[i])) != scheme[i]) return false;
    }
    return true;
  };
  std::string credential;
  if (has_scheme("bearer ")) {
    credential = authorization.substr(7);
  } else if (has_scheme("token ")) {
    credential = authorization.substr(6);
  }
  while (!credential.empty() && credential.front() == ' ') credential.erase(0, 1);
  while (!credential.empty() && credential.back() == ' ') credential.pop_back();
  return credential;
}

void WriteJson(httplib::Response& res, const ApiResponse& response) {
  res.status = response.status;
  if (response.status == 204) {
    res.body.clear();
    return;
  }
  res.set_content(io::Dump(response.body), "application/json");
}

}  // namespace

struct HttpServer::Impl {
  // Serves one request; returns the route label for metrics ("/v1/memories/{id}", "unmatched").
  std::string Serve(const httplib::Request& req, httplib::Response& res,
                    const std::string& request_id);

  HttpServer* owner = nullptr;
  httplib::Server http;
  int listen_socket = -1;  // the socket httplib binds, to widen its listen backlog
  std::vector<Route> routes;
  std::vector<std::vector<std::string>> route_segments;
  struct Mount {
    std::string path;
    RawHandler handler;
    bool public_mount = false;  // no authentication (MountPublic)
  };
  std::vector<Mount> raw_mounts;
  std::vector<std::function<std::vector<Gauge>()>> gauge_sources;  // AddGauges
  std::mutex log_mutex;
};

std::string HttpServer::Impl::Serve(const httplib::Request& req, httplib::Response& res,
                                    const std::string& request_id) {
  HttpServer& server = *owner;
  if (req.method == "GET" && req.path == "/healthz") {
    io::Json body = io::Json::object();
    body["status"] = "ok";
    // The background derivation (DESIGN §4): what is pending and its last failure, if any.
    if (StatusOr<DerivationStatus> derivation = server.engine_.Derivation(); derivation.ok()) {
      io::Json progress = io::Json::object();
      progress["pending_turns"] = derivation->pending_turns;
      progress["derived_turns"] = derivation->derived_turns;
      progress["failures"] = derivation->failures;
      if (!derivation->last_error.ok()) progress["last_error"] = derivation->last_error.ToString();
      body["derivation"] = std::move(progress);
    }
    WriteJson(res, {200, body});
    return req.path;
  }
  if (req.method == "GET" && req.path == "/readyz") {
    StatusOr<std::vector<ScopeInfo>> scopes = server.engine_.ListScopes();
    if (!scopes.ok()) {
      WriteJson(res, ErrorResponse(
                         Status::Unavailable("store not readable: " + scopes.status().message()),
                         request_id));
      return req.path;
    }
    io::Json body = io::Json::object();
    body["status"] = "ready";
    body["scopes"] = scopes->size();
    WriteJson(res, {200, body});
    return req.path;
  }
  if (req.method == "GET" && req.path == "/metrics") {
    std::vector<Gauge> gauges;
    if (!server.options_.store_path.empty()) {
      double bytes = 0;
      for (const char* suffix : {"", "-wal"}) {
        struct stat info;
        if (::stat((server.options_.store_path + suffix).c_str(), &info) == 0) {
          bytes += static_cast<double>(info.st_size);
        }
      }
      gauges.push_back({"engram_store_size_bytes", "Bytes of the store file and its WAL.", bytes});
    }
    StatusOr<std::vector<ScopeInfo>> scopes = server.engine_.ListScopes();
    if (scopes.ok()) {
      gauges.push_back(
          {"engram_scopes", "Scopes in the store.", static_cast<double>(scopes->size())});
    }
    if (StatusOr<DerivationStatus> derivation = server.engine_.Derivation(); derivation.ok()) {
      gauges.push_back({"engram_derivation_pending_turns",
                        "Turns stored but not yet embedded and derived.",
                        static_cast<double>(derivation->pending_turns)});
      gauges.push_back({"engram_derivation_failures",
                        "Derivation chunks that failed since the server started.",
                        static_cast<double>(derivation->failures)});
    }
    for (const auto& source : gauge_sources) {
      for (Gauge& gauge : source()) gauges.push_back(std::move(gauge));
    }
    res.status = 200;
    res.set_content(server.metrics_.Render(gauges), "text/plain; version=0.0.4");
    return req.path;
  }

  // Raw mounts (the MCP transport) and routes both need the caller's Access.
  auto authenticate = [&]() -> std::optional<auth::Access> {
    StatusOr<auth::Access> access = server.Authenticate(req.get_header_value("Authorization"));
    if (!access.ok()) {
      WriteJson(res, UnauthenticatedResponse(access.status().message(), request_id));
      res.set_header("WWW-Authenticate", "Bearer");
      return std::nullopt;
    }
    return *std::move(access);
  };

  for (const auto& [mount, handler, public_mount] : raw_mounts) {
    if (req.path != mount && req.path.rfind(mount + "/", 0) != 0) continue;
    std::optional<auth::Access> access =
        public_mount ? std::optional<auth::Access>(auth::Access::Granted({})) : authenticate();
    if (!access) return mount;
    RawRequest raw;
    raw.method = req.method;
    raw.path = req.path;
    for (const auto& [name, value] : req.headers) raw.headers.emplace(name, value);
    for (const auto& [name, value] : req.params) raw.query.emplace(name, value);
    raw.body = req.body;
    raw.access = &*access;
    raw.request_id = request_id;
    RawResponse response = handler(raw);
    res.status = response.status;
    for (const auto& [name, value] : response.headers) res.set_header(name, value);
    if (!response.body.empty() || !response.content_type.empty()) {
      res.set_content(response.body, response.content_type);
    }
    return mount;
  }

  // "/memories/" is "/memories": clients differ on trailing slashes.
  std::string path = req.path;
  if (path.size() > 1 && path.back() == '/') path.pop_back();
  const std::vector<std::string> segments = SplitPath(path);
  std::string allowed;  // methods of routes whose pattern matched, for 405
  std::string allowed_label;
  for (std::size_t i = 0; i < routes.size(); ++i) {
    std::map<std::string, std::string> params;
    if (!MatchPattern(route_segments[i], segments, &params)) continue;
    const Route& route = routes[i];
    if (route.method != req.method) {
      allowed += (allowed.empty() ? "" : ", ") + route.method;
      allowed_label = route.pattern;
      continue;
    }
    std::optional<auth::Access> access;
    if (route.pattern == "/v1/openapi.json") {
      access = auth::Access::Granted({});  // public document: no key needed, no rights given
    } else {
      access = authenticate();
      if (!access) return route.pattern;
    }
    ApiRequest request;
    request.method = req.method;
    request.path = req.path;
    request.path_params = std::move(params);
    for (const auto& [name, value] : req.params) request.query.emplace(name, value);
    request.body = req.body;
    request.access = &*access;
    request.request_id = request_id;
    WriteJson(res, route.handler(request));
    return route.pattern;
  }
  if (!allowed.empty()) {
    WriteJson(res,
              ErrorResponse(Status::InvalidArgument(req.method + " is not allowed on " +
                                                    allowed_label + " (allowed: " + allowed + ")"),
                            request_id));
    res.status = 405;
    res.set_header("Allow", allowed);
    return allowed_label;
  }
  WriteJson(res, ErrorResponse(
                     Status::NotFound("no route for " + req.method + " " +
                                      (req.path.size() > 200 ? req.path.substr(0, 200) : req.path)),
                     request_id));
  return "unmatched";
}

bool IsLoopbackHost(const std::string& host) {
  return host == "localhost" || host == "::1" || host == "[::1]" || host.rfind("127.", 0) == 0;
}

StatusOr<std::pair<std::string, int>> ParseListenAddress(const std::string& text) {
  const std::size_t colon = text.rfind(':');
  if (colon == std::string::npos) {
    return Status::InvalidArgument("--listen: expected host:port, got \"" + text + "\"");
  }
  std::string host = text.substr(0, colon);
  const std::string port_text = text.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  if (host.empty()) host = "127.0.0.1";
  if (port_text.empty() || port_text.size() > 5 ||
      port_text.find_first_not_of("0123456789") != std::string::npos ||
      std::stoi(port_text) > 65535) {
    return Status::InvalidArgument("--listen: the port must be a number from 0 to 65535, got \"" +
                                   port_text + "\"");
  }
  return std::make_pair(host, std::stoi(port_text));
}

HttpServer::HttpServer(Engine& engine, ServerOptions options, std::unique_ptr<auth::KeyFile> keys)
    : engine_(engine), options_(std::move(options)), impl_(std::make_unique<Impl>()) {
  impl_->owner = this;
  if (keys != nullptr) keys_ = std::shared_ptr<const auth::KeyFile>(std::move(keys));
}

HttpServer::~HttpServer() { Stop(); }

void HttpServer::AddRoutes(RouteList routes) {
  for (Route& route : routes) {
    impl_->route_segments.push_back(SplitPath(route.pattern));
    impl_->routes.push_back(std::move(route));
  }
}

void HttpServer::MountRaw(std::string path, RawHandler handler) {
  impl_->raw_mounts.push_back({std::move(path), std::move(handler), /*public_mount=*/false});
}

void HttpServer::MountPublic(std::string path, RawHandler handler) {
  impl_->raw_mounts.push_back({std::move(path), std::move(handler), /*public_mount=*/true});
}

void HttpServer::AddGauges(std::function<std::vector<Gauge>()> source) {
  impl_->gauge_sources.push_back(std::move(source));
}

bool HttpServer::authenticated() const {
  std::lock_guard<std::mutex> lock(keys_mutex_);
  return keys_ != nullptr;
}

StatusOr<auth::Access> HttpServer::Authenticate(const std::string& authorization) const {
  std::shared_ptr<const auth::KeyFile> keys;
  {
    std::lock_guard<std::mutex> lock(keys_mutex_);
    keys = keys_;
  }
  if (keys == nullptr) return auth::Access::Unrestricted();
  const std::string credential = CredentialFrom(authorization);
  if (credential.empty()) {
    return Status::FailedPrecondition(
        "missing API key: send \"Authorization: Bearer <key>\" (keys come from `engram keys "
        "create`)");
  }
  return keys->Authenticate(credential);
}

Status HttpServer::ReloadKeys() {
  if (options_.keys_path.empty()) return Status::FailedPrecondition("the server has no keys file");
  ASSIGN_OR_RETURN(auth::KeyFile keys, auth::KeyFile::Load(options_.keys_path));
  std::lock_guard<std::mutex> lock(keys_mutex_);
  keys_ = std::make_shared<const auth::KeyFile>(std::move(keys));
  return Status::Ok();
}

Status HttpServer::Bind() {
  if (!authenticated() && !IsLoopbackHost(options_.host)) {
    return Status::FailedPrecondition("refusing to listen on " + options_.host +
                                      " without --keys: an unauthenticated server may only bind "
                                      "a loopback address (127.0.0.1, ::1)");
  }
  httplib::Server& http = impl_->http;
  const std::size_t threads = options_.threads;
  const std::size_t queue_limit = options_.queue_limit;
  http.new_task_queue = [threads, queue_limit] {
    return new BoundedTaskQueue(threads, queue_limit);
  };
  http.set_payload_max_length(options_.max_body_bytes);
  http.set_read_timeout(options_.read_timeout_seconds, 0);
  http.set_write_timeout(options_.write_timeout_seconds, 0);
  http.set_keep_alive_timeout(options_.keep_alive_timeout_seconds);

  auto dispatch = [this](const httplib::Request& req, httplib::Response& res) {
    const auto started = Clock::now();
    const std::string request_id = RequestIdFor(req);
    std::string label = "unmatched";
    try {
      label = impl_->Serve(req, res, request_id);
    } catch (const std::exception& error) {
      WriteJson(res,
                ErrorResponse(Status::Internal(std::string("unexpected error: ") + error.what()),
                              request_id));
    } catch (...) {
      WriteJson(res, ErrorResponse(Status::Internal("unexpected error"), request_id));
    }
    res.set_header("X-Request-Id", request_id);
    const double seconds = std::chrono::duration<double>(Clock::now() - started).count();
    metrics_.RecordRequest(label, req.method, res.status, seconds);
    if (options_.log_requests) {
      char line[160];
      std::snprintf(line, sizeof(line), " %d %.1fms", res.status, seconds * 1000.0);
      std::string path = req.path.size() > 200 ? req.path.substr(0, 200) + "..." : req.path;
      for (char& c : path) {
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) c = '?';
      }
      std::lock_guard<std::mutex> lock(impl_->log_mutex);
      std::cerr << "engram: " << request_id << " " << req.method << " " << path << line << "\n";
    }
  };
  http.Get(".*", dispatch);
  http.Post(".*", dispatch);
  http.Put(".*", dispatch);
  http.Delete(".*", dispatch);
  http.Patch(".*", dispatch);
  http.Options(".*", dispatch);
  // Errors httplib answers itself (body too large, malformed request line, ...) get a JSON body
  // too; responses a handler already filled are left alone.
  http.set_error_handler(
      httplib::Server::HandlerWithResponse([](const httplib::Request& req, httplib::Response& res) {
        if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
        const std::string request_id = RequestIdFor(req);
        Status status = Status::InvalidArgument("malformed HTTP request");
        if (res.status == 413) {
          status = Status::ResourceExhausted("request body is larger than the server accepts");
        } else if (res.status == 404) {
          status = Status::NotFound("no such route");
        } else if (res.status >= 500) {
          status = Status::Internal("the server could not process the request");
        }
        ApiResponse response = ErrorResponse(status, request_id);
        const int code = res.status;
        res.set_content(io::Dump(response.body), "application/json");
        res.status = code;
        res.set_header("X-Request-Id", request_id);
        return httplib::Server::HandlerResponse::Handled;
      }));
  http.set_exception_handler(
      [](const httplib::Request& req, httplib::Response& res, std::exception_ptr) {
        WriteJson(res, ErrorResponse(Status::Internal("unexpected error"), RequestIdFor(req)));
      });

  // httplib listens with a backlog of 5, too short for a burst of clients (connections beyond it
  // can be reset): keep httplib's socket options and widen the backlog after binding. Accepted
  // sockets inherit TCP_NODELAY, so a response written as headers then body is not held back by
  // Nagle's algorithm waiting for the client's delayed ACK.
  http.set_socket_options([this](int socket) {
    int yes = 1;
    ::setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
    ::setsockopt(socket, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof(yes));
    impl_->listen_socket = socket;
  });
  int bound = -1;
  if (options_.port == 0) {
    bound = http.bind_to_any_port(options_.host);
  } else if (http.bind_to_port(options_.host, options_.port)) {
    bound = options_.port;
  }
  if (bound <= 0) {
    return Status::Unavailable("cannot listen on " + options_.host + ":" +
                               std::to_string(options_.port) +
                               " (address in use, or not an address of this machine)");
  }
  port_ = bound;
  if (impl_->listen_socket >= 0) ::listen(impl_->listen_socket, kListenBacklog);
  return Status::Ok();
}

Status HttpServer::Run() {
  if (port_ == 0) return Status::FailedPrecondition("HttpServer::Run before Bind");
  running_ = true;
  bool listened = true;
  if (!stop_requested_) listened = impl_->http.listen_after_bind();
  running_ = false;
  if (!listened && !stop_requested_) return Status::Unavailable("the listening socket failed");
  return Status::Ok();
}

void HttpServer::Stop() {
  if (impl_ == nullptr) return;
  stop_requested_ = true;
  // A Run that has not reached its accept loop yet would miss httplib's stop: wait for it (the
  // loop starts without blocking on anything) or for Run to return.
  while (running_ && !impl_->http.is_running()) std::this_thread::yield();
  impl_->http.stop();
}

}  // namespace engram::server
