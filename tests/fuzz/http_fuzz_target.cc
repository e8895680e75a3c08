// The HTTP request parser and body decoder of `engram serve` (src/server/http_wire.h), fed
// arbitrary bytes. Invariants: the parser never consumes more than it is given, the same bytes
// fed whole or in pieces parse to the same request, consuming as much (or fail with the same
// status), a body never exceeds its limit however it is framed, an error carries one of the
// statuses the parser documents, and a decoded body never exceeds the cap it was given.
#include <string>

#include "fuzz_targets.h"
#include "server/http_wire.h"

namespace engram::fuzz {
namespace {

struct Outcome {
  server::ParseState state = server::ParseState::kNeedMore;
  int error_status = 0;
  std::string method, path, body;
  std::size_t headers = 0;
  std::size_t consumed = 0;
};

// Feeds `input` in pieces of `piece` bytes (0 = whole) until a request completes or fails.
Outcome Parse(std::string_view input, std::size_t piece, const server::HttpLimits& limits) {
  server::RequestParser parser(limits);
  Outcome outcome;
  std::size_t at = 0;
  while (true) {
    const std::size_t available = input.size() - at;
    const std::size_t give = piece == 0 ? available : std::min(piece, available);
    std::size_t used = 0;
    const server::ParseState state = parser.Feed(input.substr(at, give), &used);
    FUZZ_CHECK(used <= give);
    at += used;
    if (state == server::ParseState::kHeadersComplete) continue;
    if (state == server::ParseState::kNeedMore && at < input.size()) continue;
    outcome.state = state;
    break;
  }
  outcome.consumed = at;
  outcome.error_status = parser.error_status();
  if (outcome.state == server::ParseState::kComplete) {
    outcome.method = parser.request().method;
    outcome.path = parser.request().path;
    outcome.body = parser.request().body;
    outcome.headers = parser.request().headers.size();
  }
  return outcome;
}

}  // namespace

int FuzzHttpRequest(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  server::HttpLimits limits;
  limits.max_request_line_bytes = 512;
  limits.max_header_bytes = 2048;
  limits.max_header_count = 16;
  limits.max_body_bytes = 4096;
  const std::size_t piece = 1 + data[0] % 17;
  const std::string_view input = AsText(data + 1, size - 1);

  const Outcome whole = Parse(input, 0, limits);
  const Outcome pieces = Parse(input, piece, limits);
  FUZZ_CHECK(whole.state == pieces.state);
  FUZZ_CHECK(whole.error_status == pieces.error_status);
  FUZZ_CHECK(whole.method == pieces.method && whole.path == pieces.path);
  FUZZ_CHECK(whole.body == pieces.body && whole.headers == pieces.headers);
  // After an error the connection is closed, so how far the parser read is not compared.
  if (whole.state != server::ParseState::kError) FUZZ_CHECK(whole.consumed == pieces.consumed);
  if (whole.state == server::ParseState::kComplete) {
    FUZZ_CHECK(whole.body.size() <= limits.max_body_bytes);
    FUZZ_CHECK(whole.headers <= limits.max_header_count);
  }
  if (whole.state == server::ParseState::kError) {
    const int status = whole.error_status;
    FUZZ_CHECK(status == 400 || status == 413 || status == 414 || status == 417 ||
               status == 431 || status == 501 || status == 505);
  }
  // The body as a compressed stream: decoding stops at the cap.
  for (const char* coding : {"gzip", "deflate"}) {
    StatusOr<std::string> decoded = server::DecodeContent(coding, std::string(input), 1024, 4);
    if (decoded.ok()) FUZZ_CHECK(decoded->size() <= 1024);
  }
  return 0;
}

}  // namespace engram::fuzz
