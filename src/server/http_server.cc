// The HTTP server of `engram serve` (see http_server.h): the socket half (http_server_impl.h) —
// binding, the epoll event loop over every connection, deadlines and connection caps, the
// hand-off of whole requests to the workers and the writing of their responses — and the
// server's lifecycle (Bind, Run, Stop). What a request may do and who answers it is
// http_dispatch.cc.
#include "server/http_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "server/http_server_impl.h"
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

void HttpServer::Impl::Wake() {
  if (wake_fd < 0) return;
  const std::uint64_t one = 1;
  ssize_t ignored = ::write(wake_fd, &one, sizeof(one));
  (void)ignored;
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
          ssize_t ignored =
              ::send(connection.fd, kContinue, sizeof(kContinue) - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
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
  connection.out =
      SerializeResponse(response, connection.parser.request().method == "HEAD", keep_alive);
  connection.written = 0;
  connection.close_after_write = !keep_alive;
  connection.state = Connection::State::kWriting;
  connection.deadline = Clock::now() + std::chrono::seconds(owner->options_.write_timeout_seconds);
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
  port_ = bound.ss_family == AF_INET6 ? ntohs(reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port)
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
