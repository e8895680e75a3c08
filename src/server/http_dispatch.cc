// The dispatching half of HttpServer (see http_server_impl.h): admission from a request's head,
// authentication, the built-in probes and metrics, routing to mounts and routes, the worker
// threads, CORS, request ids and the access log.
#include <sys/stat.h>

#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <exception>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "server/http_server.h"
#include "server/http_server_impl.h"
#include "server/http_wire.h"

namespace engram::server {
namespace {

using Clock = std::chrono::steady_clock;

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

}  // namespace

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

HttpResponse JsonResponse(const ApiResponse& response) {
  HttpResponse out;
  out.status = response.status;
  out.headers = response.headers;
  if (response.status == 204) {
    out.content_type.clear();
    return out;
  }
  out.body = io::Dump(response.body);
  return out;
}

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
      gauges.push_back({"engram_derivation_pending_scopes",
                        "Scopes holding turns not yet embedded and derived.",
                        static_cast<double>(derivation->pending_scopes)});
      gauges.push_back({"engram_derivation_derived_turns",
                        "Turns this server's derivation worker derived since it started.",
                        static_cast<double>(derivation->derived_turns)});
      gauges.push_back({"engram_derivation_failures",
                        "Derivation chunks that failed since the server started.",
                        static_cast<double>(derivation->failures)});
      gauges.push_back({"engram_derivation_max_pending_turns",
                        "Back-pressure limit ([write] max_pending_turns); 0 = unbounded.",
                        static_cast<double>(derivation->max_pending_turns)});
      gauges.push_back({"engram_derivation_refused_writes",
                        "Writes refused (503) since the server started because the backlog "
                        "reached the limit.",
                        static_cast<double>(derivation->refused_writes)});
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
  res = JsonResponse(
      ErrorResponse(Status::NotFound("no route for " + req.method + " " +
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
    if (from_browser && fetch_site != "same-origin" &&
        IsSimpleFormType(req.Header("Content-Type"))) {
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
  bool public_request = method == "GET" &&
                        (req.path == "/healthz" || req.path == "/readyz" || req.path == "/metrics");
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
    Done finished{job.connection, SerializeResponse(res, job.request.method == "HEAD", keep_alive),
                  keep_alive};
    {
      std::lock_guard<std::mutex> lock(done_mutex);
      done.push_back(std::move(finished));
    }
    Wake();
  }
}

void HttpServer::Impl::RecordRefusal(const HttpRequest* req, int status, const std::string& label,
                                     const std::string& request_id) {
  const std::string method = req != nullptr && !req->method.empty() ? req->method : "-";
  owner->metrics_.RecordRequest(label, method, status, 0.0);
  if (owner->options_.log_requests) {
    std::lock_guard<std::mutex> lock(log_mutex);
    std::cerr << "engram: " << request_id << " " << Printable(method) << " "
              << Printable(req != nullptr && !req->path.empty() ? req->path : "-") << " " << status
              << " (refused before the body)\n";
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

}  // namespace engram::server
