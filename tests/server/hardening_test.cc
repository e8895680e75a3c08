// The server as an attacker meets it (issue: server hardening): web pages on other origins and
// rebound names, bodies that grow past their limit by chunking or compression, floods of header
// bytes, and slow or idle connections that try to starve everyone else. Raw sockets, so every
// byte on the wire is the test's.
#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>
#include <zlib.h>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include "server_fixture.h"

namespace engram::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

// A client socket on 127.0.0.1, or bound first to `source` (another loopback address) so the
// server sees a different client address. -1 on failure.
int Connect(int port, const char* source = nullptr) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  if (source != nullptr) {
    sockaddr_in local{};
    local.sin_family = AF_INET;
    ::inet_pton(AF_INET, source, &local.sin_addr);
    if (::bind(fd, reinterpret_cast<sockaddr*>(&local), sizeof(local)) != 0) {
      ::close(fd);
      return -1;
    }
  }
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
    ::close(fd);
    return -1;
  }
  timeval limit{.tv_sec = 30, .tv_usec = 0};  // bounds every recv of the suite
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof(limit));
  return fd;
}

bool SendAll(int fd, const std::string& bytes) {
  std::size_t sent = 0;
  while (sent < bytes.size()) {
    const ssize_t n = ::send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return false;
    sent += static_cast<std::size_t>(n);
  }
  return true;
}

// Reads until the server closes the connection (or the receive timeout).
std::string ReadToClose(int fd) {
  std::string received;
  char buffer[4096];
  ssize_t got = 0;
  while ((got = ::recv(fd, buffer, sizeof(buffer), 0)) > 0) received.append(buffer, got);
  return received;
}

// Sends one request on a fresh connection and returns everything the server answered.
std::string Exchange(int port, const std::string& request) {
  const int fd = Connect(port);
  if (fd < 0) return "";
  SendAll(fd, request);
  ::shutdown(fd, SHUT_WR);
  std::string response = ReadToClose(fd);
  ::close(fd);
  return response;
}

std::string Post(const std::string& path, const std::string& body,
                 const std::string& extra_headers) {
  return "POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n" +
         extra_headers + "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

std::string Gzip(const std::string& data) {
  z_stream stream{};
  deflateInit2(&stream, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&stream, data.size()), '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  stream.avail_in = static_cast<uInt>(data.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  deflate(&stream, Z_FINISH);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  return out;
}

constexpr char kMemories[] = "/v1/scopes/user:alice/memories";
constexpr char kTurn[] = R"({"turns": [{"text": "Alice keeps her passport in the blue drawer."}]})";

std::size_t ScopeCount(TestServer& server) {
  HttpResult scopes = server.Call("GET", "/v1/scopes");
  return scopes.body.value("count", std::size_t{0});
}

TEST(ServerHardeningTest, CrossSitePagesCannotWriteEraseOrRead) {
  TestServer server;
  ASSERT_EQ(server.Call("POST", kMemories, kTurn).status, 201);
  const int port = server.port();
  // A page on another site posts a form or text (no CORS preflight needed): refused.
  EXPECT_THAT(Exchange(port, Post("/reset", "", "Origin: http://evil.example\r\n")),
              StartsWith("HTTP/1.1 403"));
  EXPECT_THAT(Exchange(port, Post(kMemories, kTurn,
                                  "Origin: http://evil.example\r\nContent-Type: text/plain\r\n")),
              StartsWith("HTTP/1.1 403"));
  EXPECT_THAT(Exchange(port, Post("/reset", "a=b",
                                  "Origin: http://localhost:80@evil.example\r\nContent-Type: "
                                  "application/x-www-form-urlencoded\r\n")),
              StartsWith("HTTP/1.1 403"));
  // A cross-site request that hides its Origin, and a loopback page sending a form.
  EXPECT_THAT(Exchange(port, Post(kMemories, kTurn, "Sec-Fetch-Site: cross-site\r\n")),
              StartsWith("HTTP/1.1 403"));
  EXPECT_THAT(Exchange(port, Post(kMemories, kTurn,
                                  "Origin: http://localhost:3000\r\nSec-Fetch-Site: same-site\r\n"
                                  "Content-Type: text/plain\r\n")),
              StartsWith("HTTP/1.1 403"));
  // DNS rebinding: the page's own name in Host reads nothing back.
  const std::string rebound = Exchange(
      port, "GET /v1/scopes/user:alice/memories HTTP/1.1\r\nHost: evil.example:" +
                std::to_string(port) + "\r\nConnection: close\r\n\r\n");
  EXPECT_THAT(rebound, StartsWith("HTTP/1.1 403"));
  EXPECT_THAT(rebound, ::testing::Not(HasSubstr("passport")));
  const std::string trailing = Exchange(
      port, "GET /v1/scopes HTTP/1.1\r\nHost: 127.0.0.1.evil.example\r\nConnection: close\r\n\r\n");
  EXPECT_THAT(trailing, StartsWith("HTTP/1.1 403"));
  // Nothing was erased or written by any of them.
  HttpResult listed = server.Call("GET", std::string(kMemories));
  ASSERT_EQ(listed.status, 200);
  EXPECT_EQ(listed.body["memories"].size(), 1u) << listed.raw;

  // A loopback page sending JSON is served, with CORS headers naming it; so is curl as people
  // type it (a form content type, no Origin: not a browser).
  const std::string loopback = Exchange(
      port, Post(kMemories, R"({"turns": [{"text": "From the local page."}]})",
                 "Origin: http://localhost:3000\r\nContent-Type: application/json\r\n"));
  EXPECT_THAT(loopback, StartsWith("HTTP/1.1 201"));
  EXPECT_THAT(loopback, HasSubstr("Access-Control-Allow-Origin: http://localhost:3000"));
  EXPECT_THAT(Exchange(port, Post(kMemories, R"({"turns": [{"text": "From curl."}]})",
                                  "Content-Type: application/x-www-form-urlencoded\r\n")),
              StartsWith("HTTP/1.1 201"));
  // CORS preflight: answered for loopback origins only.
  const std::string preflight =
      "OPTIONS /v1/scopes HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nOrigin: ";
  const std::string good =
      Exchange(port, preflight + "http://localhost:3000\r\nAccess-Control-Request-Method: POST\r\n\r\n");
  EXPECT_THAT(good, StartsWith("HTTP/1.1 204"));
  EXPECT_THAT(good, HasSubstr("Access-Control-Allow-Headers: Authorization, Content-Type"));
  EXPECT_THAT(Exchange(port, preflight +
                                 "http://evil.example\r\nAccess-Control-Request-Method: POST\r\n\r\n"),
              StartsWith("HTTP/1.1 403"));
}

TEST(ServerHardeningTest, ListedOriginsAreServed) {
  TestServerOptions options;
  options.allowed_origins = {"https://app.example.com"};
  TestServer server(options);
  EXPECT_THAT(Exchange(server.port(), Post(kMemories, kTurn,
                                           "Origin: https://app.example.com\r\nContent-Type: "
                                           "application/json\r\n")),
              StartsWith("HTTP/1.1 201"));
  EXPECT_THAT(Exchange(server.port(), Post(kMemories, kTurn,
                                           "Origin: https://app.example.com.evil.example\r\n"
                                           "Content-Type: application/json\r\n")),
              StartsWith("HTTP/1.1 403"));
}

TEST(ServerHardeningTest, ResetNeedsAdminEvenOnLoopback) {
  {
    TestServer server;
    ASSERT_EQ(server.Call("POST", kMemories, kTurn).status, 201);
    HttpResult reset = server.Call("POST", "/reset", "");
    EXPECT_EQ(reset.status, 403) << reset.raw;
    EXPECT_EQ(server.Call("POST", "/v1/admin/rebuild-index", "").status, 403);
    EXPECT_EQ(ScopeCount(server), 1u);
  }
  TestServerOptions options;
  options.allow_admin = true;
  TestServer server(options);
  ASSERT_EQ(server.Call("POST", kMemories, kTurn).status, 201);
  EXPECT_EQ(server.Call("POST", "/reset", "").status, 200);
  EXPECT_EQ(ScopeCount(server), 0u);
}

TEST(ServerHardeningTest, BodyLimitHoldsForChunkedAndCompressedBodies) {
  TestServerOptions options;
  options.max_body_bytes = 64 * 1024;
  options.with_keys = true;
  TestServer server(options);
  const std::string key = server.AddKey("*", "read,write");
  const std::string auth = "Authorization: Bearer " + key + "\r\n";
  const std::string big_text(70 * 1024, 'a');
  const std::string big = R"({"turns": [{"text": ")" + big_text + R"("}]})";

  // Chunked, 1 KiB at a time, past the limit: 413, nothing stored.
  std::string chunked = "POST /v1/scopes/user:alice/memories HTTP/1.1\r\nHost: localhost\r\n" +
                        auth + "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n";
  for (std::size_t at = 0; at < big.size(); at += 1024) {
    const std::string piece = big.substr(at, 1024);
    char size[16];
    std::snprintf(size, sizeof(size), "%zx\r\n", piece.size());
    chunked += size + piece + "\r\n";
  }
  chunked += "0\r\n\r\n";
  const std::string response = Exchange(server.port(), chunked);
  EXPECT_THAT(response, StartsWith("HTTP/1.1 413"));
  EXPECT_THAT(response, HasSubstr("RESOURCE_EXHAUSTED"));

  // A chunked body under the limit is stored.
  const std::string small = R"({"turns": [{"text": "Chunked and fine."}]})";
  char size[16];
  std::snprintf(size, sizeof(size), "%zx\r\n", small.size());
  EXPECT_THAT(Exchange(server.port(),
                       "POST /v1/scopes/user:alice/memories HTTP/1.1\r\nHost: localhost\r\n" +
                           auth + "Transfer-Encoding: chunked\r\n\r\n" + size + small +
                           "\r\n0\r\n\r\n"),
              StartsWith("HTTP/1.1 201"));

  // A gzip bomb without a key: 401 (refused when the head arrives, never inflated); with a key:
  // 413 once the decoded body passes the limit; a small gzip body is stored.
  const std::string bomb = Gzip(R"({"turns": [{"text": ")" + std::string(32 * 1024 * 1024, 'a') +
                                R"("}]})");
  ASSERT_LT(bomb.size(), 64u * 1024);
  const std::string bomb_headers = "Content-Type: application/json\r\nContent-Encoding: gzip\r\n";
  EXPECT_THAT(Exchange(server.port(), Post(kMemories, bomb, bomb_headers)),
              StartsWith("HTTP/1.1 401"));
  EXPECT_THAT(Exchange(server.port(), Post(kMemories, bomb, auth + bomb_headers)),
              StartsWith("HTTP/1.1 413"));
  EXPECT_THAT(Exchange(server.port(), Post(kMemories, Gzip(kTurn), auth + bomb_headers)),
              StartsWith("HTTP/1.1 201"));
  EXPECT_THAT(Exchange(server.port(),
                       Post(kMemories, kTurn, auth + "Content-Encoding: br\r\n")),
              StartsWith("HTTP/1.1 415"));

  // A declared length over the limit is refused before the body is sent.
  const int fd = Connect(server.port());
  ASSERT_GE(fd, 0);
  ASSERT_TRUE(SendAll(fd, "POST /v1/scopes/user:alice/memories HTTP/1.1\r\nHost: localhost\r\n" +
                              auth + "Content-Length: 1000000000\r\n\r\n"));
  EXPECT_THAT(ReadToClose(fd), StartsWith("HTTP/1.1 413"));
  ::close(fd);

  HttpResult listed = server.Call("GET", kMemories, "", key);
  ASSERT_EQ(listed.status, 200);
  EXPECT_EQ(listed.body["memories"].size(), 2u) << listed.raw;
}

TEST(ServerHardeningTest, HeaderFloodsAreCutBeforeAKeyIsChecked) {
  TestServerOptions options;
  options.with_keys = true;
  TestServer server(options);
  // 80 MB of header bytes are never read: the server answers 431 once past 32 KiB and closes.
  const int fd = Connect(server.port());
  ASSERT_GE(fd, 0);
  std::string head = "GET /v1/scopes HTTP/1.1\r\nHost: localhost\r\n";
  bool all_sent = SendAll(fd, head);
  const std::string filler = "X-Filler: " + std::string(1000, 'a') + "\r\n";
  int sent_lines = 0;
  for (; sent_lines < 80 * 1000 && all_sent; ++sent_lines) all_sent = SendAll(fd, filler);
  EXPECT_FALSE(all_sent) << "the server read " << sent_lines << " header lines";
  EXPECT_THAT(ReadToClose(fd), StartsWith("HTTP/1.1 431"));
  ::close(fd);
  // Too many fields, each small.
  std::string many = "GET /v1/scopes HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n";
  for (int i = 0; i < 150; ++i) many += "X-" + std::to_string(i) + ": v\r\n";
  EXPECT_THAT(Exchange(server.port(), many + "\r\n"), StartsWith("HTTP/1.1 431"));
}

TEST(ServerHardeningTest, SlowAndIdleClientsDoNotStopOthers) {
  TestServerOptions options;
  options.threads = 2;
  options.read_timeout_seconds = 2;
  options.max_connections_per_client = 64;
  TestServer server(options);
  // 50 idle connections and 50 that send half a request, from another client address.
  std::vector<int> attackers;
  for (int i = 0; i < 100; ++i) {
    const int fd = Connect(server.port(), "127.0.0.2");
    if (fd < 0) continue;
    if (i % 2 == 1) SendAll(fd, "POST /v1/scopes/user:slow/memories HTTP/1.1\r\nHost: local");
    attackers.push_back(fd);
  }
  ASSERT_EQ(attackers.size(), 100u);
  // An ordinary client is served while they hold their connections.
  for (int i = 0; i < 5; ++i) {
    HttpResult health = server.Call("GET", "/healthz");
    EXPECT_EQ(health.status, 200) << health.error;
  }
  // Past the per-address cap (64 of the 100), the extra connections were refused with 503.
  int refused = 0;
  for (const int fd : attackers) {
    char buffer[64];
    const ssize_t got = ::recv(fd, buffer, sizeof(buffer), MSG_DONTWAIT);
    if (got > 0 && std::string(buffer, got).rfind("HTTP/1.1 503", 0) == 0) ++refused;
  }
  EXPECT_EQ(refused, 36);
  for (const int fd : attackers) ::close(fd);

  // A client sending one byte at a time is cut off with 408 before its request completes: the
  // deadline covers the whole request, not each read.
  const int slow = Connect(server.port());
  ASSERT_GE(slow, 0);
  const std::string request = "GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Slow: " +
                              std::string(400, 'a') + "\r\n\r\n";
  std::size_t sent = 0;
  for (; sent < request.size(); ++sent) {
    if (!SendAll(slow, request.substr(sent, 1))) break;
    char probe[64];
    if (::recv(slow, probe, sizeof(probe), MSG_DONTWAIT | MSG_PEEK) > 0) break;
    ::usleep(20 * 1000);
  }
  EXPECT_LT(sent, request.size()) << "the slow request was never cut off";
  EXPECT_THAT(ReadToClose(slow), StartsWith("HTTP/1.1 408"));
  ::close(slow);
  EXPECT_EQ(server.Call("GET", "/healthz").status, 200);
}

TEST(ServerHardeningTest, AFullQueueIsAnsweredWith503RatherThanGrowing) {
  // One worker, held by a handler until the test lets it go; room for one waiting request.
  std::promise<void> entered;
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  TestServerOptions options;
  options.threads = 1;
  options.queue_limit = 1;
  std::atomic<bool> first{true};
  options.before_bind = [&entered, &first, released](server::HttpServer& http) {
    http.MountRaw("/block", [&entered, &first, released](const server::RawRequest&) {
      if (first.exchange(false)) entered.set_value();
      released.wait();
      server::RawResponse response;
      response.body = "{}";
      return response;
    });
  };
  TestServer server(options);
  // However the test ends, the worker is let go before the server stops.
  const std::shared_ptr<void> let_go(nullptr, [&release](void*) {
    try {
      release.set_value();
    } catch (const std::future_error&) {  // already let go
    }
  });
  const std::string request = "GET /block HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n";
  const int held = Connect(server.port());
  ASSERT_GE(held, 0);
  ASSERT_TRUE(SendAll(held, request));
  ASSERT_EQ(entered.get_future().wait_for(std::chrono::seconds(30)), std::future_status::ready);
  // Two more whole requests: one waits in the queue, the other finds it full.
  const int second = Connect(server.port());
  const int third = Connect(server.port());
  ASSERT_GE(second, 0);
  ASSERT_GE(third, 0);
  ASSERT_TRUE(SendAll(second, request));
  ASSERT_TRUE(SendAll(third, request));
  pollfd either[2] = {{second, POLLIN, 0}, {third, POLLIN, 0}};
  ASSERT_EQ(::poll(either, 2, 30 * 1000), 1) << "exactly one is answered while the worker is held";
  const int refused = (either[0].revents & POLLIN) != 0 ? second : third;
  const int queued = refused == second ? third : second;
  const std::string busy = ReadToClose(refused);
  EXPECT_THAT(busy, StartsWith("HTTP/1.1 503"));
  EXPECT_THAT(busy, HasSubstr("Retry-After: 1\r\n"));
  EXPECT_THAT(busy, HasSubstr("requests are waiting for a worker"));
  release.set_value();
  EXPECT_THAT(ReadToClose(held), StartsWith("HTTP/1.1 200"));
  EXPECT_THAT(ReadToClose(queued), StartsWith("HTTP/1.1 200"));
  for (const int fd : {held, second, third}) ::close(fd);
}

TEST(ServerHardeningTest, KeepAliveConnectionsServeSeveralRequestsAndPipelining) {
  TestServer server;
  const int fd = Connect(server.port());
  ASSERT_GE(fd, 0);
  const std::string one = "GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n";
  ASSERT_TRUE(SendAll(fd, one + one + "GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"));
  const std::string all = ReadToClose(fd);
  ::close(fd);
  std::size_t responses = 0;
  for (std::size_t at = all.find("HTTP/1.1 200"); at != std::string::npos;
       at = all.find("HTTP/1.1 200", at + 1)) {
    ++responses;
  }
  EXPECT_EQ(responses, 3u) << all;
  // HEAD has the GET's headers and no body.
  const std::string head = Exchange(server.port(),
                                    "HEAD /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
  EXPECT_THAT(head, StartsWith("HTTP/1.1 200"));
  EXPECT_EQ(head.substr(head.size() - 4), "\r\n\r\n");
  // Expect: 100-continue gets its interim answer, then the response.
  const std::string expect = Exchange(
      server.port(), Post(kMemories, kTurn, "Expect: 100-continue\r\nContent-Type: application/json\r\n"));
  EXPECT_THAT(expect, StartsWith("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201"));
}

}  // namespace
}  // namespace engram::testing
