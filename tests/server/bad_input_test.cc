// Hostile and malformed requests: each gets its specific status and an error naming the field
// or problem, and none of them stores anything.
#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>

#include "server_fixture.h"

namespace engram::testing {
namespace {

using ::testing::HasSubstr;

class ServerBadInputTest : public ::testing::Test {
 protected:
  ServerBadInputTest() : server_(Options()) {}

  static TestServerOptions Options() {
    TestServerOptions options;
    options.max_body_bytes = 64 * 1024;
    options.limits.max_turns_per_request = 5;
    options.limits.max_query_bytes = 100;
    options.limits.max_k = 50;
    options.limits.max_token_budget = 1000;
    return options;
  }

  // POSTs `body` to `path`; expects `status` and an error message containing `names`.
  void ExpectRejected(const std::string& path, const std::string& body, int status,
                      const std::string& names) {
    HttpResult result = server_.Call("POST", path, body);
    EXPECT_EQ(result.status, status) << body.substr(0, 200) << " -> " << result.raw;
    ASSERT_TRUE(result.body.is_object()) << result.raw;
    ASSERT_TRUE(result.body.contains("error")) << result.raw;
    EXPECT_THAT(result.body["error"]["message"].get<std::string>(), HasSubstr(names))
        << body.substr(0, 200);
    EXPECT_EQ(result.body["error"]["request_id"], result.request_id);
  }

  void ExpectNothingStored() {
    HttpResult scopes = server_.Call("GET", "/v1/scopes");
    ASSERT_EQ(scopes.status, 200);
    EXPECT_EQ(scopes.body["count"], 0) << scopes.raw;
  }

  TestServer server_;
};

constexpr char kMemories[] = "/v1/scopes/user:x/memories";
constexpr char kRecall[] = "/v1/scopes/user:x/recall";

TEST_F(ServerBadInputTest, MalformedBodiesAreRejectedNamingTheProblem) {
  ExpectRejected(kMemories, "", 400, "empty");
  ExpectRejected(kMemories, "{", 400, "not valid JSON");
  ExpectRejected(kMemories, R"({"turns": [{"text": "a"}]} trailing)", 400, "not valid JSON");
  ExpectRejected(kMemories, "[1, 2]", 400, "JSON object");
  ExpectRejected(kMemories, R"({"turns": [{"text": "a"}], "turns": []})", 400, "\"turns\"");
  ExpectRejected(kMemories, R"({"turns": [{"text": "a", "text": "b"}]})", 400, "\"text\"");
  ExpectRejected(kMemories, "{\"turns\": [{\"text\": \"caf\xC3\x28\"}]}", 400, "UTF-8");
  ExpectRejected(kMemories, std::string(100, '[') + std::string(100, ']'), 400, "nested");
  ExpectNothingStored();
}

TEST_F(ServerBadInputTest, WrongTypesAndUnknownFieldsNameTheField) {
  ExpectRejected(kMemories, R"({"turns": "text"})", 400, "\"turns\"");
  ExpectRejected(kMemories, R"({"turns": []})", 400, "\"turns\"");
  ExpectRejected(kMemories, R"({"turns": [{"text": "a"}], "scope": "user:y"})", 400, "\"scope\"");
  ExpectRejected(kMemories, R"({"turns": [{"text": "a"}, {"txt": "b"}]})", 400, "turns[1]");
  ExpectRejected(kMemories, R"({"turns": [{"text": "a"}, {"txt": "b"}]})", 400, "\"txt\"");
  ExpectRejected(kMemories, R"({"turns": [{"text": 5}]})", 400, "\"text\"");
  ExpectRejected(kMemories, R"({"turns": [{"text": "a", "role": "bot"}]})", 400, "\"role\"");
  ExpectRejected(kMemories, R"({"turns": [{"text": "a", "event_time": "yesterday"}]})", 400,
                 "\"event_time\"");
  ExpectRejected(kMemories, R"({"turns": [{"text": "a", "metadata": [1]}]})", 400, "\"metadata\"");
  ExpectRejected(kMemories, R"({"turns": [3]})", 400, "turns[0]");
  // A valid first turn does not get stored when a later one is bad.
  ExpectRejected(kMemories, R"({"turns": [{"text": "good"}, {"text": ""}]})", 400, "turns[1]");
  ExpectNothingStored();
}

TEST_F(ServerBadInputTest, NumbersOutOfRangeAreRejectedNamingTheField) {
  ASSERT_EQ(server_.Call("POST", kMemories, R"({"turns": [{"text": "Some text."}]})").status, 201);
  ExpectRejected(kRecall, R"({"query": "x", "k": -1})", 400, "\"k\"");
  ExpectRejected(kRecall, R"({"query": "x", "k": 1e300})", 400, "\"k\"");
  ExpectRejected(kRecall, R"({"query": "x", "k": 1180591620717411303424})", 400, "\"k\"");
  ExpectRejected(kRecall, R"({"query": "x", "k": 2.5})", 400, "\"k\"");
  // Metadata would be stored rounded: refused, naming where the integer is.
  ExpectRejected(kMemories,
                 R"({"turns": [{"text": "a"}, {"text": "b", "metadata": {"ids": [1, 2, 36893488147419103232]}}]})",
                 400, "\"turns[1].metadata.ids[2]\" holds the integer 36893488147419103232");
  ExpectRejected(kRecall, R"({"query": "x", "k": "3"})", 400, "\"k\"");
  ExpectRejected(kRecall, R"({"query": "x", "k": 51})", 400, "\"k\"");
  ExpectRejected(kRecall, R"({"query": "x", "token_budget": 1001})", 400, "\"token_budget\"");
  ExpectRejected(kRecall, R"({"query": "x", "token_budget": 18446744073709551615})", 400,
                 "\"token_budget\"");
  ExpectRejected(kRecall, R"({"query": "x", "route_weights": {"bm25": -1}})", 400,
                 "\"route_weights\"");
  ExpectRejected(kRecall, R"({"query": "x", "route_weights": {"bm25": 1e308}})", 400,
                 "\"route_weights\"");
  ExpectRejected(kRecall, R"({"query": "x", "use_planner": "yes"})", 400, "\"use_planner\"");
  ExpectRejected(kRecall, R"({"query": "x", "policy": "lenient"})", 400, "\"policy\"");
  ExpectRejected(kRecall, R"({"query": "x", "mode": "gossip"})", 400, "\"mode\"");
  ExpectRejected(kRecall, R"({"query": "x", "mode": 1})", 400, "\"mode\"");
  ExpectRejected(kRecall, R"({"query": "x", "packing": "size"})", 400, "\"packing\"");
  ExpectRejected(kRecall, R"({"query": "x", "packing": true})", 400, "\"packing\"");
  ExpectRejected(kRecall, R"({"query": "x", "query_time": "noon"})", 400, "\"query_time\"");
  ExpectRejected(kRecall, R"({"query": "x", "valid_at": "April"})", 400, "\"valid_at\"");
  ExpectRejected(kRecall, R"({"query": "x", "known_at": 20240501})", 400, "\"known_at\"");
  ExpectRejected(kRecall, R"({"query": "x", "routes": "bm25"})", 400, "\"routes\"");
  ExpectRejected(kRecall, R"({"query": "x", "explain": 1})", 400, "\"explain\"");
  ExpectRejected(kRecall, R"({"quer": "x"})", 400, "\"quer\"");
  ExpectRejected(kRecall, R"({"k": 3})", 400, "\"query\"");
  ExpectRejected(kRecall, R"({"query": ")" + std::string(101, 'a') + R"("})", 400, "\"query\"");
  HttpResult list = server_.Call("GET", "/v1/scopes/user:x/memories?limit=-1");
  EXPECT_EQ(list.status, 400);
  EXPECT_THAT(list.raw, HasSubstr("\\\"limit\\\""));
  list = server_.Call("GET", "/v1/scopes/user:x/memories?after=99999999999999999999999");
  EXPECT_EQ(list.status, 400);
  EXPECT_THAT(list.raw, HasSubstr("\\\"after\\\""));
  list = server_.Call("GET", "/v1/scopes/user:x/memories?kind=scope");
  EXPECT_EQ(list.status, 400);
  EXPECT_THAT(list.raw, HasSubstr("\\\"kind\\\""));
  list = server_.Call("GET", "/v1/scopes/user:x/memories?colour=red");
  EXPECT_EQ(list.status, 400);
  EXPECT_THAT(list.raw, HasSubstr("\\\"colour\\\""));
}

TEST_F(ServerBadInputTest, LimitsOnSizeAndCountAreEnforced) {
  // More turns than max_turns_per_request: 413 naming the limit.
  std::string turns = R"({"turns": [)";
  for (int i = 0; i < 6; ++i) turns += std::string(i ? "," : "") + R"({"text": "t"})";
  turns += "]}";
  ExpectRejected(kMemories, turns, 413, "\"turns\"");
  // A body over max_body_bytes: 413 with a JSON error.
  const std::string huge = R"({"turns": [{"text": ")" + std::string(70 * 1024, 'a') + R"("}]})";
  HttpResult result = server_.Call("POST", kMemories, huge);
  EXPECT_EQ(result.status, 413);
  ASSERT_TRUE(result.body.is_object()) << result.raw;
  EXPECT_EQ(result.body["error"]["code"], "RESOURCE_EXHAUSTED");
  EXPECT_FALSE(result.request_id.empty());
  ExpectNothingStored();
}

TEST_F(ServerBadInputTest, BadScopesInPathsAreRejected) {
  HttpResult result =
      server_.Call("POST", "/v1/scopes/planet:x/memories", R"({"turns": [{"text": "a"}]})");
  EXPECT_EQ(result.status, 400);
  EXPECT_THAT(result.raw, HasSubstr("scope"));
  HttpResult erase = server_.Call("DELETE", "/v1/scopes/user:x", R"({"confirm": 1})");
  EXPECT_EQ(erase.status, 400);
  EXPECT_THAT(erase.raw, HasSubstr("\\\"confirm\\\""));
  ExpectNothingStored();
}

TEST_F(ServerBadInputTest, ConsolidationRoutesRejectBadInput) {
  // Unknown scope: 404 naming it, for the run and each listing.
  HttpResult unknown = server_.Call("POST", "/v1/scopes/user:nobody/consolidate", "");
  EXPECT_EQ(unknown.status, 404) << unknown.raw;
  EXPECT_THAT(unknown.raw, HasSubstr("user:nobody"));
  for (const char* listing : {"episodes", "scenes", "profile", "foresight"}) {
    HttpResult listed =
        server_.Call("GET", std::string("/v1/scopes/user:nobody/") + listing);
    EXPECT_EQ(listed.status, 404) << listing << ": " << listed.raw;
  }
  // Malformed and unexpected bodies, a bad scope, oversized bodies.
  ExpectRejected("/v1/scopes/user:x/consolidate", "{", 400, "not valid JSON");
  ExpectRejected("/v1/scopes/user:x/consolidate", "[]", 400, "JSON object");
  ExpectRejected("/v1/scopes/user:x/consolidate", R"({"scope": "user:x"})", 400,
                 "unknown field \"scope\"");
  ExpectRejected("/v1/scopes/planet:x/consolidate", "", 400, "scope");
  HttpResult huge = server_.Call("POST", "/v1/scopes/user:x/consolidate",
                                 R"({"x": ")" + std::string(70 * 1024, 'a') + R"("})");
  EXPECT_EQ(huge.status, 413);
  ASSERT_TRUE(huge.body.is_object()) << huge.raw;
  EXPECT_EQ(huge.body["error"]["code"], "RESOURCE_EXHAUSTED");
  // Bad query parameters name themselves.
  HttpResult at = server_.Call("GET", "/v1/scopes/user:x/foresight?at=tomorrow");
  EXPECT_EQ(at.status, 400);
  EXPECT_THAT(at.raw, HasSubstr("\\\"at\\\""));
  HttpResult all = server_.Call("GET", "/v1/scopes/user:x/episodes?all=maybe");
  EXPECT_EQ(all.status, 400);
  EXPECT_THAT(all.raw, HasSubstr("\\\"all\\\""));
  HttpResult extra = server_.Call("GET", "/v1/scopes/user:x/scenes?colour=red");
  EXPECT_EQ(extra.status, 400);
  EXPECT_THAT(extra.raw, HasSubstr("colour"));
  ExpectNothingStored();
}

// A client that promises a body and stalls is cut off by the read timeout, its half request is
// not stored, and the other clients are served meanwhile.
TEST(ServerSlowClientTest, StalledRequestIsCutOffAndStoresNothing) {
  TestServerOptions options;
  options.threads = 2;
  options.read_timeout_seconds = 1;
  TestServer server(options);
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(server.port()));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
  const std::string partial =
      "POST /v1/scopes/user:slow/memories HTTP/1.1\r\nHost: x\r\nContent-Type: "
      "application/json\r\nContent-Length: 100\r\n\r\n{\"turns\": [{\"text\": \"sl";
  ASSERT_EQ(::send(fd, partial.data(), partial.size(), 0), static_cast<ssize_t>(partial.size()));
  // Served while the slow client holds a worker.
  EXPECT_EQ(server.Call("GET", "/healthz").status, 200);
  // The server gives up on the stalled request and closes the connection (recv returns 0 after
  // whatever error response it sent). Bounded: the socket's own receive timeout.
  timeval limit{.tv_sec = 60, .tv_usec = 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof(limit));
  std::string received;
  char buffer[1024];
  ssize_t got = 0;
  while ((got = ::recv(fd, buffer, sizeof(buffer), 0)) > 0) received.append(buffer, got);
  EXPECT_EQ(got, 0) << "the connection was not closed";
  // Whatever came back is not a success: its status line is not "HTTP/1.1 2xx" (a bare search for
  // "201" would also match the random request id).
  EXPECT_EQ(received.rfind("HTTP/1.1 2", 0), std::string::npos) << received;
  ::close(fd);
  HttpResult scopes = server.Call("GET", "/v1/scopes");
  EXPECT_EQ(scopes.body["count"], 0) << scopes.raw;
}

}  // namespace
}  // namespace engram::testing
