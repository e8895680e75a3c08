// The wire code of the HTTP server: parsing under limits, framing attacks, body decoding caps,
// and the Host / Origin rules, checked without sockets.
#include "server/http_wire.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <zlib.h>

#include <string>

#include "engram/testing/status_matchers.h"
#include "server/http_server.h"

namespace engram::server {
namespace {

using ::engram::testing::StatusIs;
using ::testing::HasSubstr;

HttpLimits SmallLimits() {
  HttpLimits limits;
  limits.max_request_line_bytes = 256;
  limits.max_header_bytes = 1024;
  limits.max_header_count = 8;
  limits.max_body_bytes = 100;
  return limits;
}

struct Parsed {
  ParseState state = ParseState::kNeedMore;
  HttpRequest request;
  int error_status = 0;
  std::string error;
  std::size_t consumed = 0;
};

// Feeds `input` `piece` bytes at a time (0 = all at once) until the request completes or fails.
Parsed Parse(std::string_view input, std::size_t piece = 0, HttpLimits limits = SmallLimits()) {
  RequestParser parser(limits);
  Parsed out;
  std::size_t at = 0;
  for (;;) {
    const std::size_t give = piece == 0 ? input.size() - at : std::min(piece, input.size() - at);
    std::size_t used = 0;
    const ParseState state = parser.Feed(input.substr(at, give), &used);
    at += used;
    if (state == ParseState::kHeadersComplete) continue;
    if (state == ParseState::kNeedMore && at < input.size()) continue;
    out.state = state;
    break;
  }
  out.consumed = at;
  out.request = parser.request();
  out.error_status = parser.error_status();
  out.error = parser.error_message();
  return out;
}

std::string Compress(const std::string& data, int window_bits) {
  z_stream stream{};
  deflateInit2(&stream, Z_BEST_COMPRESSION, Z_DEFLATED, window_bits, 9, Z_DEFAULT_STRATEGY);
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

TEST(HttpWireTest, ParsesARequestWithDecodedPathQueryAndBody) {
  const std::string wire =
      "POST /v1/scopes/user%3Aalice/recall?k=3&q=a+b%21&flag HTTP/1.1\r\n"
      "Host: 127.0.0.1:8420\r\nContent-Length: 7\r\nX-Custom:  spaced value \r\n\r\n"
      "{\"a\":1}";
  for (std::size_t piece : {0, 1, 3, 7}) {
    const Parsed parsed = Parse(wire, piece);
    ASSERT_EQ(parsed.state, ParseState::kComplete) << piece << ": " << parsed.error;
    EXPECT_EQ(parsed.request.method, "POST");
    EXPECT_EQ(parsed.request.path, "/v1/scopes/user:alice/recall");
    EXPECT_EQ(parsed.request.body, "{\"a\":1}");
    EXPECT_EQ(parsed.request.Header("x-custom"), "spaced value");
    EXPECT_EQ(parsed.request.query.find("q")->second, "a b!");
    EXPECT_EQ(parsed.request.query.find("k")->second, "3");
    EXPECT_EQ(parsed.request.query.count("flag"), 1u);
    EXPECT_TRUE(parsed.request.keep_alive);
    EXPECT_EQ(parsed.consumed, wire.size());
  }
}

TEST(HttpWireTest, APostWithoutBodyOrContentTypeIsAWholeRequest) {
  const Parsed parsed = Parse("POST /reset HTTP/1.1\r\nHost: localhost\r\n\r\n");
  ASSERT_EQ(parsed.state, ParseState::kComplete) << parsed.error;
  EXPECT_TRUE(parsed.request.body.empty());
}

TEST(HttpWireTest, PipelinedRequestsAreParsedOneAtATime) {
  const std::string first = "GET /a HTTP/1.1\r\nHost: x\r\n\r\n";
  const std::string second = "GET /b HTTP/1.0\r\nHost: x\r\n\r\n";
  const Parsed parsed = Parse(first + second);
  ASSERT_EQ(parsed.state, ParseState::kComplete);
  EXPECT_EQ(parsed.request.path, "/a");
  EXPECT_EQ(parsed.consumed, first.size());
  const Parsed next = Parse(second);
  EXPECT_EQ(next.request.path, "/b");
  EXPECT_FALSE(next.request.keep_alive);  // HTTP/1.0 without keep-alive
}

TEST(HttpWireTest, ChunkedBodiesAreDecodedAndCountedAgainstTheLimit) {
  const std::string chunked =
      "POST /m HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
      "5;name=value\r\nhello\r\n6\r\n world\r\n0\r\nTrailer-Field: t\r\n\r\n";
  for (std::size_t piece : {0, 1, 2, 5}) {
    const Parsed parsed = Parse(chunked, piece);
    ASSERT_EQ(parsed.state, ParseState::kComplete) << piece << ": " << parsed.error;
    EXPECT_EQ(parsed.request.body, "hello world");
    EXPECT_EQ(parsed.consumed, chunked.size());
  }
  // Many small chunks over the limit: 413 although no single chunk is large.
  std::string many = "POST /m HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n";
  for (int i = 0; i < 30; ++i) many += "5\r\naaaaa\r\n";
  many += "0\r\n\r\n";
  const Parsed over = Parse(many);
  EXPECT_EQ(over.state, ParseState::kError);
  EXPECT_EQ(over.error_status, 413);
  // One announced chunk over the limit: refused before its bytes arrive.
  const Parsed huge = Parse(
      "POST /m HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nfffffffffff\r\n");
  EXPECT_EQ(huge.error_status, 413);
  const Parsed bad = Parse("POST /m HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n");
  EXPECT_EQ(bad.error_status, 400);
  // A chunk's data longer than its size says: refused at the first byte past it, whether the
  // bytes come at once or one at a time.
  const std::string overlong =
      "POST /m HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n0\r\n\r\n";
  for (std::size_t piece : {0, 1, 3}) {
    const Parsed parsed = Parse(overlong, piece);
    EXPECT_EQ(parsed.state, ParseState::kError) << piece;
    EXPECT_EQ(parsed.error_status, 400) << piece;
    EXPECT_EQ(parsed.consumed, overlong.find("c\r\n0") + 1) << piece;
  }
}

TEST(HttpWireTest, FramingThatSmugglesOrOverflowsIsRefused) {
  struct Case {
    std::string wire;
    int status;
    std::string names;
  };
  const std::string long_header = "X-Long: " + std::string(1100, 'a') + "\r\n";
  std::string many_headers;
  for (int i = 0; i < 9; ++i) many_headers += "X-" + std::to_string(i) + ": v\r\n";
  const Case cases[] = {
      {"POST / HTTP/1.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n", 400,
       "both"},
      {"POST / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", 501, "Transfer-Encoding"},
      {"POST / HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n", 400, "conflicting"},
      {"POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n", 400, "Content-Length"},
      {"POST / HTTP/1.1\r\nContent-Length: 101\r\n\r\n", 413, "larger"},
      {"GET / HTTP/1.1\r\n" + long_header + "\r\n", 431, "header"},
      {"GET / HTTP/1.1\r\n" + many_headers + "\r\n", 431, "header fields"},
      {"GET /" + std::string(300, 'a') + " HTTP/1.1\r\n\r\n", 414, "request line"},
      {"GET / HTTP/1.1\r\nX: a\r\n b\r\n\r\n", 400, "folding"},
      {"GET / HTTP/1.1\r\nX : a\r\n\r\n", 400, "header field name"},
      {"GET / HTTP/2.0\r\n\r\n", 505, "version"},
      {"GET http://evil.example/ HTTP/1.1\r\n\r\n", 400, "path"},
      {"GET /a%zz HTTP/1.1\r\n\r\n", 400, "percent"},
      {"GET /a%00b HTTP/1.1\r\n\r\n", 400, "NUL"},
      {"GET / HTTP/1.1\r\nX: a\x01" "b\r\n\r\n", 400, "control"},
      {"GET / HTTP/1.1\r\nExpect: 200-ok\r\n\r\n", 417, "Expect"},
  };
  for (const Case& c : cases) {
    const Parsed parsed = Parse(c.wire);
    EXPECT_EQ(parsed.state, ParseState::kError) << c.wire;
    EXPECT_EQ(parsed.error_status, c.status) << c.wire << " -> " << parsed.error;
    EXPECT_THAT(parsed.error, HasSubstr(c.names)) << c.wire;
  }
}

TEST(HttpWireTest, LimitsAtTheirEdgeGiveOneAnswerWholeOrInPieces) {
  // A request line of exactly the limit (its CRLF not counted) and one byte more; a head of
  // exactly the limit (its final CRLF CRLF not counted) and one byte more.
  const std::string line_at = "GET /" + std::string(256 - 14, 'a') + " HTTP/1.1";
  ASSERT_EQ(line_at.size(), 256u);
  const std::string line_over = "GET /" + std::string(256 - 13, 'a') + " HTTP/1.1";
  std::string head_at = "GET / HTTP/1.1\r\nX: ";
  head_at += std::string(1024 - head_at.size(), 'v');
  const std::string head_over = head_at + "v";
  const struct {
    std::string wire;
    int status;  // 0 = complete
  } cases[] = {
      {line_at + "\r\n\r\n", 0},
      {line_over + "\r\n\r\n", 414},
      {head_at + "\r\n\r\n", 0},
      {head_over + "\r\n\r\n", 431},
  };
  for (const auto& c : cases) {
    for (std::size_t piece : {0, 1, 7, 255, 256, 257}) {
      const Parsed parsed = Parse(c.wire, piece);
      EXPECT_EQ(parsed.error_status, c.status) << c.wire.size() << " bytes, pieces of " << piece;
      EXPECT_EQ(parsed.state, c.status == 0 ? ParseState::kComplete : ParseState::kError);
    }
  }
}

TEST(HttpWireTest, AHeadThatNeverEndsIsCutAtItsLimit) {
  // Header bytes streamed without the blank line: 431 once past the limit, not a growing buffer.
  RequestParser parser(SmallLimits());
  std::size_t used = 0;
  ASSERT_EQ(parser.Feed("GET / HTTP/1.1\r\n", &used), ParseState::kNeedMore);
  ParseState state = ParseState::kNeedMore;
  for (int i = 0; i < 100 && state == ParseState::kNeedMore; ++i) {
    state = parser.Feed("X-Filler: aaaaaaaaaaaaaaaaaaaa\r\n", &used);
  }
  EXPECT_EQ(state, ParseState::kError);
  EXPECT_EQ(parser.error_status(), 431);
}

TEST(HttpWireTest, ExpectContinueIsReported) {
  const Parsed parsed =
      Parse("POST / HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\nok");
  ASSERT_EQ(parsed.state, ParseState::kComplete);
  EXPECT_TRUE(parsed.request.expect_continue);
}

TEST(HttpWireTest, CompressedBodiesAreDecodedUnderACap) {
  const std::string text = "{\"turns\": [{\"text\": \"compressed text\"}]}";
  EXPECT_THAT(DecodeContent("gzip", Compress(text, 15 + 16), 1000), 
              ::engram::testing::IsOkAndHolds(text));
  EXPECT_THAT(DecodeContent("deflate", Compress(text, 15), 1000),
              ::engram::testing::IsOkAndHolds(text));
  EXPECT_THAT(DecodeContent("", text, 1000), ::engram::testing::IsOkAndHolds(text));
  // A bomb: 64 MiB of zeros compress to about 64 KiB; decoding stops at the cap.
  const std::string bomb = Compress(std::string(64 * 1024 * 1024, '\0'), 15 + 16);
  ASSERT_LT(bomb.size(), 128u * 1024);
  EXPECT_THAT(DecodeContent("gzip", bomb, 8 * 1024 * 1024),
              StatusIs(StatusCode::kResourceExhausted));
  // Within the size cap but past the ratio: refused too.
  const std::string dense = Compress(std::string(4 * 1024 * 1024, 'a'), 15 + 16);
  EXPECT_THAT(DecodeContent("gzip", dense, 64 * 1024 * 1024, 100),
              StatusIs(StatusCode::kResourceExhausted));
  EXPECT_THAT(DecodeContent("gzip", "not gzip at all", 1000),
              StatusIs(StatusCode::kInvalidArgument));
  const StatusOr<std::string> unknown = DecodeContent("br", "x", 1000);
  EXPECT_THAT(unknown, StatusIs(StatusCode::kInvalidArgument));
  EXPECT_THAT(unknown.status().message(), HasSubstr("unsupported"));
}

TEST(HttpWireTest, LoopbackNamesAreExact) {
  for (const char* name : {"localhost", "LOCALHOST", "127.0.0.1", "127.1.2.3", "::1", "[::1]"}) {
    EXPECT_TRUE(IsLoopbackName(name)) << name;
  }
  for (const char* name : {"127.0.0.1.evil.example", "localhost.evil.example", "127.0.0",
                           "127.0.0.256", "0.0.0.0", "128.0.0.1", "evil.example", "",
                           "127.0.0.1:80"}) {
    EXPECT_FALSE(IsLoopbackName(name)) << name;
  }
  EXPECT_FALSE(IsLoopbackHost("127.0.0.1.evil.example"));
  // --listen takes a host that is a name or an address, and says so otherwise.
  EXPECT_THAT(ParseListenAddress("evil host:0"), StatusIs(StatusCode::kInvalidArgument));
  EXPECT_THAT(ParseListenAddress("a@b:0"), StatusIs(StatusCode::kInvalidArgument));
  EXPECT_THAT(ParseListenAddress("::1:0"), StatusIs(StatusCode::kInvalidArgument));
  ASSERT_TRUE(ParseListenAddress("[::1]:0").ok());
  EXPECT_EQ(ParseListenAddress("[::1]:0")->first, "::1");
}

TEST(HttpWireTest, OriginsAreParsedStrictly) {
  EXPECT_FALSE(ParseOrigin("null").has_value());
  EXPECT_FALSE(ParseOrigin("file://").has_value());
  EXPECT_FALSE(ParseOrigin("http://localhost:80@evil.example").has_value());
  EXPECT_FALSE(ParseOrigin("http://localhost/path").has_value());
  ASSERT_TRUE(ParseOrigin("HTTP://LocalHost:3000").has_value());
  EXPECT_EQ(ParseOrigin("HTTP://LocalHost:3000")->ToString(), "http://localhost:3000");
  EXPECT_EQ(ParseOrigin("https://app.example.com:443")->ToString(), "https://app.example.com");
}

TEST(HttpWireTest, OriginPolicyAcceptsLoopbackAndListedOnly) {
  OriginPolicy policy;
  policy.allowed_origins = {"https://app.example.com"};
  policy.allowed_hosts = {"memory.example.com"};
  EXPECT_TRUE(policy.CheckOrigin(std::nullopt).ok());
  EXPECT_TRUE(policy.CheckOrigin("http://localhost:3000").ok());
  EXPECT_TRUE(policy.CheckOrigin("http://[::1]:8420").ok());
  EXPECT_TRUE(policy.CheckOrigin("https://app.example.com").ok());
  EXPECT_THAT(policy.CheckOrigin("http://evil.example"), StatusIs(StatusCode::kInvalidArgument));
  EXPECT_THAT(policy.CheckOrigin("http://localhost:80@evil.example"),
              StatusIs(StatusCode::kInvalidArgument));
  EXPECT_THAT(policy.CheckOrigin("null"), StatusIs(StatusCode::kInvalidArgument));
  EXPECT_THAT(policy.CheckOrigin("http://127.0.0.1.evil.example"),
              StatusIs(StatusCode::kInvalidArgument));

  EXPECT_TRUE(policy.CheckHost("127.0.0.1:8420").ok());
  EXPECT_TRUE(policy.CheckHost("localhost").ok());
  EXPECT_TRUE(policy.CheckHost("[::1]:8420").ok());
  EXPECT_TRUE(policy.CheckHost("memory.example.com:443").ok());
  EXPECT_THAT(policy.CheckHost("evil.example:8420"), StatusIs(StatusCode::kInvalidArgument));
  EXPECT_THAT(policy.CheckHost("localhost.evil.example"), StatusIs(StatusCode::kInvalidArgument));
  EXPECT_THAT(policy.CheckHost("user@localhost"), StatusIs(StatusCode::kInvalidArgument));
  EXPECT_THAT(policy.CheckHost(std::nullopt), StatusIs(StatusCode::kInvalidArgument));
  policy.any_host = true;
  EXPECT_TRUE(policy.CheckHost("evil.example").ok());

  OriginPolicy bad;
  bad.allowed_origins = {"app.example.com"};
  EXPECT_THAT(bad.Validate(), StatusIs(StatusCode::kInvalidArgument));
}

TEST(HttpWireTest, ResponsesCarryLengthAndConnection) {
  HttpResponse response;
  response.status = 404;
  response.body = "{}";
  const std::string wire = SerializeResponse(response, false, true);
  EXPECT_EQ(wire.rfind("HTTP/1.1 404 Not Found\r\n", 0), 0u);
  EXPECT_THAT(wire, HasSubstr("Content-Length: 2\r\n"));
  EXPECT_THAT(wire, HasSubstr("Connection: keep-alive\r\n"));
  EXPECT_EQ(wire.substr(wire.size() - 2), "{}");
  const std::string head = SerializeResponse(response, true, false);
  EXPECT_THAT(head, HasSubstr("Content-Length: 2\r\n"));
  EXPECT_THAT(head, HasSubstr("Connection: close\r\n"));
  EXPECT_EQ(head.substr(head.size() - 4), "\r\n\r\n");
}

}  // namespace
}  // namespace engram::server
