// The HTTP server of `engram serve` (see http_server.h).
#include "server/http_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <iostream>
#include <random>
#include <thread>
#include <unordered_map>

#include "server/http_wire.h"

namespace engram::server {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kListenBacklog = 1024;  // capped by the kernel's somaxconn
constexpr std::uint64_t kListenToken = 0;
constexpr std::uint64_t kWakeToken = 1;
constexpr std::size_t kReadChunk = 64 * 1024;
// After an error response that closes the connection, what the client still sends is read and
// dropped for this long (at most), so the kernel does not reset the connection before the client
// has read the response.
constexpr auto kLingerTime = std::chrono::seconds(2);
constexpr std::size_t kMaxLingerBytes = 16 * 1024 * 1024;

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

std::string RequestIdFor(const HttpRequest& req) {
  const std::string incoming = req.Header("X-Request-Id").value_or("");
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

HttpResponse JsonResponse(const ApiResponse& response) {
  HttpResponse out;
  out.status = response.status;
  if (response.status == 204) {
    out.content_type.clear();
    return out;
  }
  out.body = io::Dump(response.body);
  return out;
}

std::string Printable(std::string text) {
  if (text.size() > 200) text = text.substr(0, 200) + "...";
  for (char& c : text) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) c = '?';
  }
  return text;
}

bool IsStateChanging(const std::string& method) {
  return method != "GET" && method != "HEAD" && method != "OPTIONS";
}

// Whether a Content-Type is one a browser page may send cross-site without a CORS preflight
// (form, multipart, text): refused from browsers on state-changing requests.
bool IsSimpleFormType(const std::optional<std::string>& content_type) {
  if (!content_type) return false;
  std::string media = content_type->substr(0, content_type->find(';'));
  for (char& c : media) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  while (!media.empty() && media.back() == ' ') media.pop_back();
  while (!media.empty() && media.front() == ' ') media.erase(0, 1);
  return media == "application/x-www-form-urlencoded" || media == "multipart/form-data" ||
         media.rfind("text/", 0) == 0;
}

std::string PeerAddress(const sockaddr_storage& address) {
  char text[INET6_ADDRSTRLEN] = {0};
  if (address.ss_family == AF_INET) {
    ::inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(&address)->sin_addr, text,
                sizeof(text));
  } else if (address.ss_family == AF_INET6) {
    ::inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(&address)->sin6_addr, text,
                sizeof(text));
  }
  return text;
}

}  // namespace

// One accepted connection; touched only by the event loop thread.
struct Connection {
  enum class State { kReading, kProcessing, kWriting, kLingering };
  std::uint64_t id = 0;
  int fd = -1;
  std::string peer;
  State state = State::kReading;
  RequestParser parser;
  std::string in;        // received, not yet parsed (a pipelined request)
  std::string out;       // the response being written
  std::size_t written = 0;
  bool close_after_write = false;
  bool watched = false;  // registered with epoll
  bool idle = true;      // between requests, nothing of the next one received
  Clock::time_point deadline;
  std::optional<auth::Access> access;  // decided when the head arrived
  std::string route_label;             // for metrics of a response the loop answers itself
  std::size_t lingered = 0;

  explicit Connection(HttpLimits limits) : parser(limits) {}
};

struct HttpServer::Impl {
  // A whole request for a worker.
  struct Job {
    std::uint64_t connection = 0;
    HttpRequest request;
    auth::Access access;
    std::chrono::steady_clock::time_point started;
  };
  // A worker's response for the loop to write.
  struct Done {
    std::uint64_t connection = 0;
    std::string bytes;
    bool keep_alive = false;
  };
  // What the head of a request asks for, decided before its body is read.
  struct Admission {
    bool ok = true;
    HttpResponse refusal;
    std::string label = "unmatched";
    std::optional<auth::Access> access;
  };

  // --- dispatch (worker threads) ---
  std::string Serve(const HttpRequest& req, const std::string& body, const auth::Access& access,
                    HttpResponse& res, const std::string& request_id);
  HttpResponse Process(Job& job, const std::string& request_id, std::string* label);
  void Work();

  // --- the event loop (one thread) ---
  Admission Admit(const HttpRequest& req);
  void Loop();
  void Accept();
  void ReadFrom(Connection& connection);
  void Advance(Connection& connection);
  void Respond(Connection& connection, HttpResponse response, bool keep_alive);
  void WriteTo(Connection& connection);
  void Linger(Connection& connection);
  void Watch(Connection& connection, std::uint32_t events);
  void Unwatch(Connection& connection);
  void Close(std::uint64_t id);
  void Finished();
  void Expire(Clock::time_point now);
  void RecordRefusal(const HttpRequest* req, int status, const std::string& label,
                     const std::string& request_id);
  void Wake();

  HttpServer* owner = nullptr;
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
  OriginPolicy policy;
  HttpLimits limits;

  int listen_fd = -1;
  int epoll_fd = -1;
  int wake_fd = -1;
  bool accepting = true;
  Clock::time_point resume_accept;  // after EMFILE, accepting pauses briefly

  std::unordered_map<std::uint64_t, std::unique_ptr<Connection>> connections;
  std::unordered_map<std::string, std::size_t> per_client;
  std::uint64_t next_id = 2;  // 0 and 1 are the listening socket's and the wake-up's tokens

  std::mutex jobs_mutex;
  std::condition_variable jobs_ready;
  std::deque<Job> jobs;
  bool workers_stopping = false;
  std::vector<std::thread> workers;

  std::mutex done_mutex;
  std::deque<Done> done;

  // For /metrics (the loop writes them, workers read them).
  std::atomic<std::size_t> open_connections{0};
  std::atomic<std::uint64_t> refused_connections{0};
};

std::string HttpServer::Impl::Serve(const HttpRequest& req, const std::string& body,
                                    const auth::Access& access, HttpResponse& res,
                                    const std::string& request_id) {
  HttpServer& server = *owner;
  // HEAD is GET without the body (SerializeResponse leaves it out).
  const std::string method = req.method == "HEAD" ? "GET" : req.method;
  if (method == "GET" && req.path == "/healthz") {
    io::Json out = io::Json::object();
    out["status"] = "ok";
    // The background derivation (DESIGN §4): what is pending and its last failure, if any.
    if (StatusOr<DerivationStatus> derivation = server.engine_.Derivation(); derivation.ok()) {
      io::Json progress = io::Json::object();
      progress["pending_turns"] = derivation->pending_turns;
      progress["derived_turns"] = derivation->derived_turns;
      progress["failures"] = derivation->failures;
      if (!derivation->last_error.ok()) progress["last_error"] = derivation->last_error.ToString();
      out["derivation"] = std::move(progress);
    }
    res = JsonResponse({200, out});
    return req.path;
  }
  if (method == "GET" && req.path == "/readyz") {
    StatusOr<std::vector<ScopeInfo>> scopes = server.engine_.ListScopes();
    if (!scopes.ok()) {
      res = JsonResponse(ErrorResponse(
          Status::Unavailable("store not readable: " + scopes.status().message()), request_id));
      return req.path;
    }
    io::Json out = io::Json::object();
    out["status"] = "ready";
    out["scopes"] = scopes->size();
    res = JsonResponse({200, out});
    return req.path;
  }
  if (method == "GET" && req.path == "/metrics") {
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
    gauges.push_back({"engram_http_open_connections", "Client connections open now.",
                      static_cast<double>(open_connections.load())});
    gauges.push_back({"engram_http_refused_connections",
                      "Connections refused (503) for the per-address or total cap.",
                      static_cast<double>(refused_connections.load())});
    for (const auto& source : gauge_sources) {
      for (Gauge& gauge : source()) gauges.push_back(std::move(gauge));
    }
    res.status = 200;
    res.content_type = "text/plain; version=0.0.4";
    res.body = server.metrics_.Render(gauges);
    return req.path;
  }

  for (const auto& [mount, handler, public_mount] : raw_mounts) {
    if (req.path != mount && req.path.rfind(mount + "/", 0) != 0) continue;
    RawRequest raw;
    raw.method = req.method;
    raw.path = req.path;
    for (const auto& [name, value] : req.headers) raw.headers.emplace(name, value);
    for (const auto& [name, value] : req.query) raw.query.emplace(name, value);
    raw.body = body;
    raw.access = &access;
    raw.request_id = request_id;
    RawResponse response = handler(raw);
    res.status = response.status;
    res.headers = std::move(response.headers);
    res.content_type = std::move(response.content_type);
    res.body = std::move(response.body);
    if (res.content_type.empty() && !res.body.empty()) res.content_type = "text/plain";
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
    if (route.method != method) {
      allowed += (allowed.empty() ? "" : ", ") + route.method;
      allowed_label = route.pattern;
      continue;
    }
    ApiRequest request;
    request.method = method;
    request.path = req.path;
    request.path_params = std::move(params);
    for (const auto& [name, value] : req.query) request.query.emplace(name, value);
    request.body = body;
    request.access = &access;
    request.request_id = request_id;
    res = JsonResponse(route.handler(request));
    return route.pattern;
  }
  if (!allowed.empty()) {
    res = JsonResponse(
        ErrorResponse(Status::InvalidArgument(req.method + " is not allowed on " + allowed_label +
                                              " (allowed: " + allowed + ")"),
                      request_id));
    res.status = 405;
    res.headers.emplace_back("Allow", allowed);
    return allowed_label;
  }
  res = JsonResponse(ErrorResponse(
      Status::NotFound("no route for " + req.method + " " +
                       (req.path.size() > 200 ? req.path.substr(0, 200) : req.path)),
      request_id));
  return "unmatched";
}

HttpServer::Impl::Admission HttpServer::Impl::Admit(const HttpRequest& req) {
  Admission admission;
  auto refuse = [&](int status, const Status& why) {
    admission.ok = false;
    admission.refusal = JsonResponse(ErrorResponse(why, ""));
    admission.refusal.status = status;
    admission.label = "refused";
    return admission;
  };
  // DNS rebinding: a page that pointed its own name at this machine sends that name as Host.
  if (Status host = policy.CheckHost(req.Header("Host")); !host.ok()) {
    return refuse(403, Status::FailedPrecondition(host.message()));
  }
  const std::optional<std::string> origin = req.Header("Origin");
  if (Status allowed = policy.CheckOrigin(origin); !allowed.ok()) {
    return refuse(403, Status::FailedPrecondition(allowed.message()));
  }
  if (IsStateChanging(req.method)) {
    // Browsers say where a request comes from; a cross-site one without an Origin we could
    // check, or one carrying a form or text body (which needs no CORS preflight), is refused.
    const std::string fetch_site = req.Header("Sec-Fetch-Site").value_or("");
    const bool cross = fetch_site == "cross-site" || fetch_site == "same-site";
    if (cross && !origin) {
      return refuse(403, Status::FailedPrecondition(
                             "a cross-site browser request without an Origin is refused"));
    }
    const bool from_browser = origin.has_value() || !fetch_site.empty();
    if (from_browser && fetch_site != "same-origin" && IsSimpleFormType(req.Header("Content-Type"))) {
      return refuse(403, Status::FailedPrecondition(
                             "a web page may only send JSON to this server (Content-Type: "
                             "application/json); form and text bodies are refused"));
    }
  }
  if (req.method == "OPTIONS" && origin && req.Header("Access-Control-Request-Method")) {
    admission.access = auth::Access::Granted({});  // a CORS preflight: no key, nothing granted
    return admission;
  }
  if (const std::optional<std::string> coding = req.Header("Content-Encoding")) {
    StatusOr<std::string> probe = DecodeContent(*coding, std::string(), 0);
    if (!probe.ok() && probe.status().code() == StatusCode::kInvalidArgument &&
        probe.status().message().rfind("unsupported", 0) == 0) {
      return refuse(415, probe.status());
    }
  }

  // Which requests need no key: the probes, public mounts and the OpenAPI document.
  const std::string method = req.method == "HEAD" ? "GET" : req.method;
  bool public_request = method == "GET" && (req.path == "/healthz" || req.path == "/readyz" ||
                                            req.path == "/metrics");
  for (const Mount& mount : raw_mounts) {
    if (req.path == mount.path || req.path.rfind(mount.path + "/", 0) == 0) {
      public_request = mount.public_mount;
      break;
    }
  }
  std::string path = req.path;
  if (path.size() > 1 && path.back() == '/') path.pop_back();
  if (path == "/v1/openapi.json") public_request = true;
  if (public_request) {
    admission.access = auth::Access::Granted({});  // no key needed, no rights given
    return admission;
  }
  std::optional<std::string> authorization = req.Header("Authorization");
  StatusOr<auth::Access> access = owner->Authenticate(authorization.value_or(""));
  if (!access.ok()) {
    admission.ok = false;
    admission.refusal = JsonResponse(UnauthenticatedResponse(access.status().message(), ""));
    admission.refusal.headers.emplace_back("WWW-Authenticate", "Bearer");
    admission.label = "refused";
    return admission;
  }
  admission.access = *std::move(access);
  return admission;
}

HttpResponse HttpServer::Impl::Process(Job& job, const std::string& request_id,
                                       std::string* label) {
  HttpRequest& req = job.request;
  HttpResponse res;
  const std::optional<std::string> origin = req.Header("Origin");
  if (req.method == "OPTIONS" && origin && req.Header("Access-Control-Request-Method")) {
    // A CORS preflight from an allowed origin (Admit refused the others).
    res.status = 204;
    res.content_type.clear();
    res.headers = {
        {"Access-Control-Allow-Origin", *origin},
        {"Access-Control-Allow-Methods", "GET, POST, PUT, PATCH, DELETE, OPTIONS"},
        {"Access-Control-Allow-Headers",
         "Authorization, Content-Type, X-Request-Id, Mcp-Session-Id, MCP-Protocol-Version, "
         "Last-Event-ID"},
        {"Access-Control-Max-Age", "600"},
        {"Vary", "Origin"},
    };
    *label = "preflight";
  } else {
    // Decompressed only now: after authentication, streamed, capped again when decoded.
    StatusOr<std::string> body = DecodeContent(req.Header("Content-Encoding").value_or(""),
                                               std::move(req.body), owner->options_.max_body_bytes);
    if (!body.ok()) {
      res = JsonResponse(ErrorResponse(body.status(), request_id));
      *label = "unmatched";
    } else {
      try {
        *label = Serve(req, *body, job.access, res, request_id);
      } catch (const std::exception& error) {
        res = JsonResponse(ErrorResponse(
            Status::Internal(std::string("unexpected error: ") + error.what()), request_id));
      } catch (...) {
        res = JsonResponse(ErrorResponse(Status::Internal("unexpected error"), request_id));
      }
    }
    if (origin) {
      res.headers.emplace_back("Access-Control-Allow-Origin", *origin);
      res.headers.emplace_back("Access-Control-Expose-Headers", "X-Request-Id, Mcp-Session-Id");
      res.headers.emplace_back("Vary", "Origin");
    }
  }
  res.headers.emplace_back("X-Request-Id", request_id);
  return res;
}

void HttpServer::Impl::Work() {
  for (;;) {
    Job job;
    {
      std::unique_lock<std::mutex> lock(jobs_mutex);
      jobs_ready.wait(lock, [this] { return !jobs.empty() || workers_stopping; });
      if (jobs.empty()) return;  // stopping and drained
      job = std::move(jobs.front());
      jobs.pop_front();
    }
    const std::string request_id = RequestIdFor(job.request);
    std::string label = "unmatched";
    HttpResponse res = Process(job, request_id, &label);
    const double seconds = std::chrono::duration<double>(Clock::now() - job.started).count();
    owner->metrics_.RecordRequest(label, job.request.method, res.status, seconds);
    if (owner->options_.log_requests) {
      char line[160];
      std::snprintf(line, sizeof(line), " %d %.1fms", res.status, seconds * 1000.0);
      std::lock_guard<std::mutex> lock(log_mutex);
      std::cerr << "engram: " << request_id << " " << Printable(job.request.method) << " "
                << Printable(job.request.path) << line << "\n";
    }
    const bool keep_alive = job.request.keep_alive && !owner->stop_requested_;
    Done finished{job.connection,
                  SerializeResponse(res, job.request.method == "HEAD", keep_alive), keep_alive};
    {
      std::lock_guard<std::mutex> lock(done_mutex);
      done.push_back(std::move(finished));
    }
    Wake();
  }
}

void HttpServer::Impl::Wake() {
  if (wake_fd < 0) return;
  const std::uint64_t one = 1;
  ssize_t ignored = ::write(wake_fd, &one, sizeof(one));
  (void)ignored;
}

void HttpServer::Impl::RecordRefusal(const HttpRequest* req, int status, const std::string& label,
                                     const std::string& request_id) {
  const std::string method = req != nullptr && !req->method.empty() ? req->method : "-";
  owner->metrics_.RecordRequest(label, method, status, 0.0);
  if (owner->options_.log_requests) {
    std::lock_guard<std::mutex> lock(log_mutex);
    std::cerr << "engram: " << request_id << " " << Printable(method) << " "
              << Printable(req != nullptr && !req->path.empty() ? req->path : "-") << " "
              << status << " (refused before the body)\n";
  }
}

void HttpServer::Impl::Watch(Connection& connection, std::uint32_t events) {
  epoll_event event{};
  event.events = events;
  event.data.u64 = connection.id;
  ::epoll_ctl(epoll_fd, connection.watched ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, connection.fd, &event);
  connection.watched = true;
}

void HttpServer::Impl::Unwatch(Connection& connection) {
  if (!connection.watched) return;
  ::epoll_ctl(epoll_fd, EPOLL_CTL_DEL, connection.fd, nullptr);
  connection.watched = false;
}

void HttpServer::Impl::Close(std::uint64_t id) {
  const auto found = connections.find(id);
  if (found == connections.end()) return;
  Connection& connection = *found->second;
  Unwatch(connection);
  ::close(connection.fd);
  const auto client = per_client.find(connection.peer);
  if (client != per_client.end() && --client->second == 0) per_client.erase(client);
  connections.erase(found);
  open_connections = connections.size();
}

void HttpServer::Impl::Accept() {
  const ServerOptions& options = owner->options_;
  for (int accepted = 0; accepted < 64; ++accepted) {
    sockaddr_storage address{};
    socklen_t length = sizeof(address);
    const int fd = ::accept4(listen_fd, reinterpret_cast<sockaddr*>(&address), &length,
                             SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
        // Out of descriptors: stop watching the listening socket for a moment instead of
        // spinning on it (the kernel's backlog holds the waiting clients).
        ::epoll_ctl(epoll_fd, EPOLL_CTL_DEL, listen_fd, nullptr);
        accepting = false;
        resume_accept = Clock::now() + std::chrono::milliseconds(100);
      }
      return;  // EAGAIN: nothing more waiting
    }
    int yes = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof(yes));
    const std::string peer = PeerAddress(address);
    auto refuse = [&](const char* why) {
      HttpResponse busy;
      busy.status = 503;
      busy.headers.emplace_back("Retry-After", "1");
      busy.body = io::Dump(ErrorResponse(Status::Unavailable(why), "").body);
      const std::string bytes = SerializeResponse(busy, false, false);
      ssize_t ignored = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
      (void)ignored;
      ::close(fd);
      ++refused_connections;
      owner->metrics_.RecordRequest("refused", "-", 503, 0.0);
    };
    const auto client = per_client.find(peer);
    if (client != per_client.end() && client->second >= options.max_connections_per_client) {
      refuse("too many connections from this address");
      continue;
    }
    if (connections.size() >= options.max_connections) {
      // The oldest idle connection (nothing of a request received) makes room.
      Connection* oldest = nullptr;
      for (auto& [id, open] : connections) {
        if (open->state != Connection::State::kReading || !open->idle) continue;
        if (oldest == nullptr || open->deadline < oldest->deadline ||
            (open->deadline == oldest->deadline && open->id < oldest->id)) {
          oldest = open.get();
        }
      }
      if (oldest == nullptr) {
        refuse("the server has too many open connections");
        continue;
      }
      Close(oldest->id);
    }
    auto connection = std::make_unique<Connection>(limits);
    connection->id = next_id++;
    connection->fd = fd;
    connection->peer = peer;
    connection->deadline = Clock::now() + std::chrono::seconds(options.read_timeout_seconds);
    ++per_client[peer];
    Watch(*connection, EPOLLIN);
    connections.emplace(connection->id, std::move(connection));
    open_connections = connections.size();
  }
}

void HttpServer::Impl::ReadFrom(Connection& connection) {
  const std::uint64_t id = connection.id;
  char buffer[kReadChunk];
  for (;;) {
    const ssize_t got = ::recv(connection.fd, buffer, sizeof(buffer), 0);
    if (got > 0) {
      connection.in.append(buffer, static_cast<std::size_t>(got));
      Advance(connection);
      if (connections.count(id) == 0 || connection.state != Connection::State::kReading) return;
      continue;
    }
    if (got < 0 && errno == EINTR) continue;
    if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    // The client closed (or the connection broke): a request half received is dropped.
    Close(id);
    return;
  }
}

void HttpServer::Impl::Advance(Connection& connection) {
  while (connection.state == Connection::State::kReading) {
    if (connection.in.empty() && !connection.parser.started()) return;
    const bool was_started = connection.parser.started();
    std::size_t used = 0;
    const ParseState state = connection.parser.Feed(connection.in, &used);
    connection.in.erase(0, used);
    if (!was_started && connection.parser.started()) {
      // The whole request must arrive within the read timeout of its first byte.
      connection.idle = false;
      connection.deadline =
          Clock::now() + std::chrono::seconds(owner->options_.read_timeout_seconds);
    }
    switch (state) {
      case ParseState::kNeedMore:
        return;
      case ParseState::kError: {
        const int status = connection.parser.error_status();
        const Status why = status == 413 || status == 431 || status == 414
                               ? Status::ResourceExhausted(connection.parser.error_message())
                               : Status::InvalidArgument(connection.parser.error_message());
        const std::string request_id = NewRequestId();
        HttpResponse refusal = JsonResponse(ErrorResponse(why, request_id));
        refusal.status = status;
        refusal.headers.emplace_back("X-Request-Id", request_id);
        RecordRefusal(&connection.parser.request(), status, "unmatched", request_id);
        Respond(connection, std::move(refusal), /*keep_alive=*/false);
        return;
      }
      case ParseState::kHeadersComplete: {
        const HttpRequest& request = connection.parser.request();
        Admission admission = Admit(request);
        if (!admission.ok) {
          const std::string request_id = RequestIdFor(request);
          // The error body names the request id the response carries.
          if (admission.refusal.body.find("\"request_id\"") != std::string::npos) {
            io::Json body = io::Json::parse(admission.refusal.body, nullptr, false);
            if (body.is_object() && body.contains("error") && body["error"].is_object()) {
              body["error"]["request_id"] = request_id;
              admission.refusal.body = io::Dump(body);
            }
          }
          admission.refusal.headers.emplace_back("X-Request-Id", request_id);
          RecordRefusal(&request, admission.refusal.status, admission.label, request_id);
          Respond(connection, std::move(admission.refusal), /*keep_alive=*/false);
          return;
        }
        connection.access = std::move(admission.access);
        if (request.expect_continue) {
          static constexpr char kContinue[] = "HTTP/1.1 100 Continue\r\n\r\n";
          ssize_t ignored = ::send(connection.fd, kContinue, sizeof(kContinue) - 1,
                                   MSG_NOSIGNAL | MSG_DONTWAIT);
          (void)ignored;
        }
        continue;
      }
      case ParseState::kComplete: {
        std::size_t waiting = 0;
        {
          std::lock_guard<std::mutex> lock(jobs_mutex);
          waiting = jobs.size();
        }
        if (waiting >= owner->options_.queue_limit) {
          // Every worker is busy and the queue is full: refuse now rather than let it grow.
          const std::string request_id = RequestIdFor(connection.parser.request());
          HttpResponse busy = JsonResponse(ErrorResponse(
              Status::Unavailable("the server is busy: " + std::to_string(waiting) +
                                  " requests are waiting for a worker; retry shortly"),
              request_id));
          busy.headers.emplace_back("Retry-After", "1");
          busy.headers.emplace_back("X-Request-Id", request_id);
          RecordRefusal(&connection.parser.request(), busy.status, "unmatched", request_id);
          Respond(connection, std::move(busy), /*keep_alive=*/false);
          return;
        }
        Unwatch(connection);
        connection.state = Connection::State::kProcessing;
        Job job{connection.id, std::move(connection.parser.request()),
                connection.access.value_or(auth::Access::Granted({})), Clock::now()};
        connection.access.reset();
        {
          std::lock_guard<std::mutex> lock(jobs_mutex);
          jobs.push_back(std::move(job));
        }
        jobs_ready.notify_one();
        return;
      }
    }
  }
}

void HttpServer::Impl::Respond(Connection& connection, HttpResponse response, bool keep_alive) {
  connection.out = SerializeResponse(response, connection.parser.request().method == "HEAD",
                                     keep_alive);
  connection.written = 0;
  connection.close_after_write = !keep_alive;
  connection.state = Connection::State::kWriting;
  connection.deadline =
      Clock::now() + std::chrono::seconds(owner->options_.write_timeout_seconds);
  WriteTo(connection);
}

void HttpServer::Impl::WriteTo(Connection& connection) {
  const std::uint64_t id = connection.id;
  while (connection.written < connection.out.size()) {
    const ssize_t sent = ::send(connection.fd, connection.out.data() + connection.written,
                                connection.out.size() - connection.written, MSG_NOSIGNAL);
    if (sent > 0) {
      connection.written += static_cast<std::size_t>(sent);
      continue;
    }
    if (sent < 0 && errno == EINTR) continue;
    if (sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      Watch(connection, EPOLLOUT);
      return;
    }
    Close(id);
    return;
  }
  connection.out.clear();
  connection.written = 0;
  if (connection.close_after_write || owner->stop_requested_) {
    // Lingering close: stop sending, drop what the client still sends for a moment, so its
    // kernel does not see a reset before it has read the response.
    ::shutdown(connection.fd, SHUT_WR);
    connection.state = Connection::State::kLingering;
    connection.deadline = Clock::now() + kLingerTime;
    connection.in.clear();
    Watch(connection, EPOLLIN);
    Linger(connection);
    return;
  }
  connection.state = Connection::State::kReading;
  connection.idle = true;
  connection.parser.Reset();
  connection.deadline =
      Clock::now() + std::chrono::seconds(owner->options_.keep_alive_timeout_seconds);
  Watch(connection, EPOLLIN);
  if (!connection.in.empty()) Advance(connection);  // a pipelined request
}

void HttpServer::Impl::Linger(Connection& connection) {
  char buffer[kReadChunk];
  for (;;) {
    const ssize_t got = ::recv(connection.fd, buffer, sizeof(buffer), 0);
    if (got > 0) {
      connection.lingered += static_cast<std::size_t>(got);
      if (connection.lingered > kMaxLingerBytes) break;
      continue;
    }
    if (got < 0 && errno == EINTR) continue;
    if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    break;
  }
  Close(connection.id);
}

void HttpServer::Impl::Finished() {
  std::deque<Done> finished;
  {
    std::lock_guard<std::mutex> lock(done_mutex);
    finished.swap(done);
  }
  for (Done& response : finished) {
    const auto found = connections.find(response.connection);
    if (found == connections.end()) continue;
    Connection& connection = *found->second;
    connection.out = std::move(response.bytes);
    connection.written = 0;
    connection.close_after_write = !response.keep_alive;
    connection.state = Connection::State::kWriting;
    connection.deadline =
        Clock::now() + std::chrono::seconds(owner->options_.write_timeout_seconds);
    WriteTo(connection);
  }
}

void HttpServer::Impl::Expire(Clock::time_point now) {
  std::vector<std::uint64_t> expired;
  for (const auto& [id, connection] : connections) {
    if (connection->state != Connection::State::kProcessing && now >= connection->deadline) {
      expired.push_back(id);
    }
  }
  for (const std::uint64_t id : expired) {
    const auto found = connections.find(id);
    if (found == connections.end()) continue;
    Connection& connection = *found->second;
    if (connection.state == Connection::State::kReading && connection.parser.started()) {
      // A request that did not arrive whole in time: 408, and the connection is closed.
      const std::string request_id = NewRequestId();
      HttpResponse timeout = JsonResponse(ErrorResponse(
          Status::DeadlineExceeded("the request did not arrive within " +
                                   std::to_string(owner->options_.read_timeout_seconds) +
                                   " seconds"),
          request_id));
      timeout.status = 408;
      timeout.headers.emplace_back("X-Request-Id", request_id);
      RecordRefusal(&connection.parser.request(), 408, "unmatched", request_id);
      Respond(connection, std::move(timeout), /*keep_alive=*/false);
      continue;
    }
    Close(id);  // idle past the keep-alive timeout, a response not taken, a lingering close
  }
}

void HttpServer::Impl::Loop() {
  epoll_event events[64];
  bool stop_seen = false;
  for (;;) {
    if (owner->stop_requested_ && !stop_seen) {
      stop_seen = true;
      // Stop accepting; drop connections with nothing in flight (a request still arriving was
      // never acknowledged). Requests being served finish and their responses are sent.
      if (listen_fd >= 0) {
        ::epoll_ctl(epoll_fd, EPOLL_CTL_DEL, listen_fd, nullptr);
        ::close(listen_fd);
        listen_fd = -1;
      }
      std::vector<std::uint64_t> idle;
      for (const auto& [id, connection] : connections) {
        if (connection->state == Connection::State::kReading ||
            connection->state == Connection::State::kLingering) {
          idle.push_back(id);
        }
      }
      for (const std::uint64_t id : idle) Close(id);
    }
    if (stop_seen) {
      bool busy = false;
      for (const auto& [id, connection] : connections) {
        busy = busy || connection->state == Connection::State::kProcessing ||
               connection->state == Connection::State::kWriting;
      }
      if (!busy) break;
    }
    const Clock::time_point now = Clock::now();
    long long timeout_ms = 1000;
    for (const auto& [id, connection] : connections) {
      if (connection->state == Connection::State::kProcessing) continue;
      const long long until =
          std::chrono::duration_cast<std::chrono::milliseconds>(connection->deadline - now)
              .count() +
          1;
      timeout_ms = std::min(timeout_ms, std::max(0LL, until));
    }
    if (!accepting) timeout_ms = std::min(timeout_ms, 100LL);
    const int ready = ::epoll_wait(epoll_fd, events, 64, static_cast<int>(timeout_ms));
    for (int i = 0; i < ready; ++i) {
      const std::uint64_t token = events[i].data.u64;
      if (token == kListenToken) {
        if (listen_fd >= 0) Accept();
        continue;
      }
      if (token == kWakeToken) {
        std::uint64_t count = 0;
        ssize_t ignored = ::read(wake_fd, &count, sizeof(count));
        (void)ignored;
        Finished();
        continue;
      }
      const auto found = connections.find(token);
      if (found == connections.end()) continue;
      Connection& connection = *found->second;
      switch (connection.state) {
        case Connection::State::kReading:
          ReadFrom(connection);
          break;
        case Connection::State::kWriting:
          WriteTo(connection);
          break;
        case Connection::State::kLingering:
          Linger(connection);
          break;
        case Connection::State::kProcessing:
          break;
      }
    }
    Expire(Clock::now());
    if (!accepting && listen_fd >= 0 && Clock::now() >= resume_accept) {
      epoll_event event{};
      event.events = EPOLLIN;
      event.data.u64 = kListenToken;
      ::epoll_ctl(epoll_fd, EPOLL_CTL_ADD, listen_fd, &event);
      accepting = true;
    }
  }
  std::vector<std::uint64_t> remaining;
  for (const auto& [id, connection] : connections) remaining.push_back(id);
  for (const std::uint64_t id : remaining) Close(id);
}

bool IsLoopbackHost(const std::string& host) { return IsLoopbackName(host); }

StatusOr<std::pair<std::string, int>> ParseListenAddress(const std::string& text) {
  const std::size_t colon = text.rfind(':');
  if (colon == std::string::npos) {
    return Status::InvalidArgument("--listen: expected host:port, got \"" + text + "\"");
  }
  std::string host = text.substr(0, colon);
  const std::string port_text = text.substr(colon + 1);
  const bool bracketed = host.size() >= 2 && host.front() == '[' && host.back() == ']';
  if (bracketed) host = host.substr(1, host.size() - 2);
  if (host.empty()) host = "127.0.0.1";
  if (port_text.empty() || port_text.size() > 5 ||
      port_text.find_first_not_of("0123456789") != std::string::npos ||
      std::stoi(port_text) > 65535) {
    return Status::InvalidArgument("--listen: the port must be a number from 0 to 65535, got \"" +
                                   port_text + "\"");
  }
  const bool ipv6 = host.find(':') != std::string::npos;
  if ((ipv6 && !bracketed) || !ParseAuthority(ipv6 ? "[" + host + "]" : host)) {
    return Status::InvalidArgument("--listen: \"" + host +
                                   "\" is not a host name or address (IPv6 in brackets: "
                                   "[::1]:8420)");
  }
  return std::make_pair(host, std::stoi(port_text));
}

HttpServer::HttpServer(Engine& engine, ServerOptions options, std::unique_ptr<auth::KeyFile> keys)
    : engine_(engine), options_(std::move(options)), impl_(std::make_unique<Impl>()) {
  impl_->owner = this;
  if (keys != nullptr) keys_ = std::shared_ptr<const auth::KeyFile>(std::move(keys));
}

HttpServer::~HttpServer() {
  Stop();
  if (impl_ == nullptr) return;
  for (int* fd : {&impl_->listen_fd, &impl_->epoll_fd, &impl_->wake_fd}) {
    if (*fd >= 0) ::close(*fd);
    *fd = -1;
  }
}

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
  if (keys == nullptr) {
    return options_.allow_admin ? auth::Access::Unrestricted()
                                : auth::Access::UnrestrictedWithoutAdmin();
  }
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
  if (impl_->listen_fd >= 0) return Status::FailedPrecondition("HttpServer::Bind called twice");
  OriginPolicy& policy = impl_->policy;
  policy.allowed_hosts = options_.allowed_hosts;
  policy.allowed_origins = options_.allowed_origins;
  // With keys on a network address every caller presents a key, which a rebound page cannot:
  // any Host will do unless names were given.
  policy.any_host =
      authenticated() && !IsLoopbackHost(options_.host) && options_.allowed_hosts.empty();
  RETURN_IF_ERROR(policy.Validate());
  impl_->limits.max_body_bytes = options_.max_body_bytes;
  impl_->limits.max_header_bytes = options_.max_header_bytes;
  impl_->limits.max_header_count = options_.max_header_count;

  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string port_text = std::to_string(options_.port);
  const std::string unavailable = "cannot listen on " + options_.host + ":" + port_text +
                                  " (address in use, or not an address of this machine)";
  if (::getaddrinfo(options_.host.c_str(), port_text.c_str(), &hints, &found) != 0) {
    return Status::Unavailable(unavailable);
  }
  int fd = -1;
  for (addrinfo* candidate = found; candidate != nullptr; candidate = candidate->ai_next) {
    fd = ::socket(candidate->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) continue;
    int yes = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
    if (::bind(fd, candidate->ai_addr, candidate->ai_addrlen) == 0 &&
        ::listen(fd, kListenBacklog) == 0) {
      break;
    }
    ::close(fd);
    fd = -1;
  }
  ::freeaddrinfo(found);
  if (fd < 0) return Status::Unavailable(unavailable);
  sockaddr_storage bound{};
  socklen_t length = sizeof(bound);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &length);
  port_ = bound.ss_family == AF_INET6
              ? ntohs(reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port)
              : ntohs(reinterpret_cast<sockaddr_in*>(&bound)->sin_port);

  impl_->listen_fd = fd;
  impl_->epoll_fd = ::epoll_create1(EPOLL_CLOEXEC);
  impl_->wake_fd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (impl_->epoll_fd < 0 || impl_->wake_fd < 0) {
    return Status::Unavailable(std::string("cannot set up the event loop: ") +
                               std::strerror(errno));
  }
  epoll_event event{};
  event.events = EPOLLIN;
  event.data.u64 = kListenToken;
  ::epoll_ctl(impl_->epoll_fd, EPOLL_CTL_ADD, fd, &event);
  event.data.u64 = kWakeToken;
  ::epoll_ctl(impl_->epoll_fd, EPOLL_CTL_ADD, impl_->wake_fd, &event);
  return Status::Ok();
}

Status HttpServer::Run() {
  if (port_ == 0) return Status::FailedPrecondition("HttpServer::Run before Bind");
  running_ = true;
  if (!stop_requested_) {
    const std::size_t threads = options_.threads == 0 ? 1 : options_.threads;
    for (std::size_t i = 0; i < threads; ++i) {
      impl_->workers.emplace_back([this] { impl_->Work(); });
    }
    impl_->Loop();
    {
      std::lock_guard<std::mutex> lock(impl_->jobs_mutex);
      impl_->workers_stopping = true;
    }
    impl_->jobs_ready.notify_all();
    for (std::thread& worker : impl_->workers) worker.join();
    impl_->workers.clear();
  }
  running_ = false;
  return Status::Ok();
}

void HttpServer::Stop() {
  if (impl_ == nullptr) return;
  stop_requested_ = true;
  impl_->Wake();
}

}  // namespace engram::server
