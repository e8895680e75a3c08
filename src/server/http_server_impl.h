// The inside of HttpServer (http_server.h), shared by its two halves: http_server.cc owns the
// sockets — the listening socket, one epoll event loop that reads and writes every connection,
// the deadlines, the caps on connections and the hand-off of whole requests to the worker pool —
// and http_dispatch.cc decides what a request may do and who answers it — admission from the
// head alone (Host, Origin, browser bodies, content coding, the API key), routing to a Route, a
// raw or public mount or the built-in /healthz, /readyz and /metrics, CORS, request ids and the
// access log. A Connection belongs to the loop; a Job (a whole request with the caller's Access)
// goes to a worker, and a Done (the serialised response) comes back to the loop.
//
// Internal to engram_server: include only from http_server.cc and http_dispatch.cc.
//
// Thread-safety: see each member's comment; the loop's state is touched by the loop thread only,
// `jobs` and `done` under their mutexes.
#ifndef ENGRAM_SERVER_HTTP_SERVER_IMPL_H_
#define ENGRAM_SERVER_HTTP_SERVER_IMPL_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "auth/access.h"
#include "server/api.h"
#include "server/http_server.h"
#include "server/http_wire.h"
#include "server/metrics.h"

namespace engram::server {

// One accepted connection; touched only by the event loop thread.
struct Connection {
  enum class State { kReading, kProcessing, kWriting, kLingering };
  std::uint64_t id = 0;
  int fd = -1;
  std::string peer;
  State state = State::kReading;
  RequestParser parser;
  std::string in;   // received, not yet parsed (a pipelined request)
  std::string out;  // the response being written
  std::size_t written = 0;
  bool close_after_write = false;
  bool watched = false;  // registered with epoll
  bool idle = true;      // between requests, nothing of the next one received
  std::chrono::steady_clock::time_point deadline;
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

  // --- dispatch (worker threads; http_dispatch.cc) ---
  std::string Serve(const HttpRequest& req, const std::string& body, const auth::Access& access,
                    HttpResponse& res, const std::string& request_id);
  HttpResponse Process(Job& job, const std::string& request_id, std::string* label);
  void Work();

  // --- admission and the access log of refusals (the event loop's thread; http_dispatch.cc) ---
  Admission Admit(const HttpRequest& req);
  void RecordRefusal(const HttpRequest* req, int status, const std::string& label,
                     const std::string& request_id);

  // --- the event loop (one thread; http_server.cc) ---
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
  void Expire(std::chrono::steady_clock::time_point now);
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
  std::chrono::steady_clock::time_point resume_accept;  // after EMFILE, accepting pauses briefly

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

// ---- shared by both halves (defined in http_dispatch.cc)

// A fresh request id: "req-<8 hex digits of a per-process salt>-<6 hex digits of a counter>".
std::string NewRequestId();
// The client's X-Request-Id when it is sane (at most 128 of [A-Za-z0-9-_.:]), else a fresh one.
std::string RequestIdFor(const HttpRequest& req);
// An API response as HTTP: its status and its JSON body (none for 204).
HttpResponse JsonResponse(const ApiResponse& response);

}  // namespace engram::server

#endif  // ENGRAM_SERVER_HTTP_SERVER_IMPL_H_
