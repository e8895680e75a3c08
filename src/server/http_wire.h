// http_wire.h: HTTP/1.1 on the wire for `engram serve` — an incremental request parser with a
// bound on every part of a request, the response's serialisation, request body decoding
// (gzip / deflate, capped) and the Host / Origin checks that keep web pages away from a local
// server. No sockets here: the server (http_server.cc) feeds the bytes it reads, and the fuzz
// target feeds arbitrary ones.
//
//   engram::server::RequestParser parser(limits);
//   std::size_t used = 0;
//   switch (parser.Feed(bytes, &used)) {
//     case ParseState::kHeadersComplete: /* check Host, Origin, the key; then Feed the rest */
//     case ParseState::kComplete: /* parser.request() holds method, path, query, body */
//     case ParseState::kError: /* parser.error_status(): 400, 413, 431, 501 or 505 */
//     case ParseState::kNeedMore: break;
//   }
//
// What the parser refuses (RFC 9112): a request line or header block over its limit (431), more
// header fields than allowed (431), obsolete line folding, whitespace before a field's colon,
// control characters, both Content-Length and Transfer-Encoding (request smuggling), differing
// Content-Length values, a transfer coding other than "chunked" (501), a body over the limit
// however it is framed (413, counted on the decoded chunked body), an HTTP version other than 1.0
// and 1.1 (505), and a target that is not a path (400) or whose percent-encoding is broken.
#ifndef ENGRAM_SERVER_HTTP_WIRE_H_
#define ENGRAM_SERVER_HTTP_WIRE_H_

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engram/status.h"

namespace engram::server {

struct HttpLimits {
  // The request line (method, target, version). Default: 8 KiB.
  std::size_t max_request_line_bytes = 8 * 1024;
  // The request line and every header field together (and, separately, a chunked body's
  // trailer fields). Default: 32 KiB.
  std::size_t max_header_bytes = 32 * 1024;
  // Header fields in one request. Default: 100.
  std::size_t max_header_count = 100;
  // The body as received: Content-Length, or the sum of the chunks. Default: 8 MiB.
  std::size_t max_body_bytes = 8 * 1024 * 1024;
};

struct HttpRequest {
  std::string method;  // "GET", "POST", ...
  std::string target;  // as sent: "/v1/scopes/user%3Aalice/recall?k=3"
  std::string path;    // percent-decoded, without the query: "/v1/scopes/user:alice/recall"
  std::multimap<std::string, std::string> query;  // decoded ('+' is a space), in order
  int version_minor = 1;                          // HTTP/1.<minor>
  // Header fields as sent (names keep their case; values trimmed), in order.
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;  // de-chunked, not yet decompressed
  bool keep_alive = true;
  bool expect_continue = false;  // "Expect: 100-continue"

  // The first value of a header (name compared case-insensitively).
  std::optional<std::string> Header(std::string_view name) const;
  // How many fields named `name` the request has.
  std::size_t HeaderCount(std::string_view name) const;
};

enum class ParseState {
  kNeedMore,         // everything given was consumed; more bytes are needed
  kHeadersComplete,  // the head is parsed (request() has all but the body); Feed again
  kComplete,         // a whole request; bytes after it (a pipelined request) were not consumed
  kError,            // error_status() / error_message() say why; the connection must close
};

// Parses one request at a time. Not thread-safe; one per connection.
class RequestParser {
 public:
  explicit RequestParser(HttpLimits limits);

  // Consumes a prefix of `input` and says how far it got. `*consumed` is set to the bytes used.
  ParseState Feed(std::string_view input, std::size_t* consumed);
  // Starts the next request (keeps the limits).
  void Reset();

  const HttpRequest& request() const { return request_; }
  HttpRequest& request() { return request_; }
  // Whether any byte of the current request has arrived (leading blank lines aside).
  bool started() const { return started_; }
  int error_status() const { return error_status_; }
  const std::string& error_message() const { return error_message_; }

 private:
  enum class Phase { kHead, kBody, kChunkSize, kChunkData, kChunkDataEnd, kTrailers, kDone };
  ParseState Fail(int status, std::string message);
  ParseState ParseHead();
  ParseState StartBody();

  HttpLimits limits_;
  Phase phase_ = Phase::kHead;
  HttpRequest request_;
  std::string line_;          // the head, a chunk-size line or the trailers, as they arrive
  std::size_t remaining_ = 0; // body or chunk bytes still to come
  bool started_ = false;
  int error_status_ = 0;
  std::string error_message_;
};

// Percent-decodes `text` ("%3A" -> ":"; with `plus_is_space` "+" -> " "). kInvalidArgument on a
// '%' not followed by two hex digits.
StatusOr<std::string> PercentDecode(std::string_view text, bool plus_is_space);

struct HttpResponse {
  int status = 200;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string content_type = "application/json";  // "" = no Content-Type (and no body)
  std::string body;
};

// The standard reason phrase of a status ("Not Found"), "Unknown" for others.
std::string_view ReasonPhrase(int status);
// Status line, headers (with Content-Length, Connection) and body; a HEAD response keeps its
// Content-Length but has no body, and 1xx / 204 / 304 have neither.
std::string SerializeResponse(const HttpResponse& response, bool head_request, bool keep_alive);

// Decodes a body sent with Content-Encoding `encoding` ("", "identity", "gzip", "x-gzip",
// "deflate"). The decoded size is capped at `max_bytes` and at `max_ratio` times the encoded size
// once past 1 MiB (kResourceExhausted, decoding stops there, so a small bomb never grows large);
// an unknown coding is kInvalidArgument starting "unsupported" (the server's 415), a damaged
// stream kInvalidArgument.
StatusOr<std::string> DecodeContent(std::string_view encoding, std::string body,
                                    std::size_t max_bytes, std::size_t max_ratio = 100);

// --- Host and Origin ---------------------------------------------------------------------------

// Whether `host` names this machine's loopback interface: "localhost", an IPv4 address in
// 127.0.0.0/8 written as four decimal numbers, or "::1" (bracketed or not). Case-insensitive.
// "127.0.0.1.evil.example" and "localhost.evil.example" are not.
bool IsLoopbackName(std::string_view host);

// A Host header or an origin's authority split into host (lower case, IPv6 kept in brackets) and
// port. nullopt when malformed: empty, user information ("a@b"), a path, spaces, a bad port.
struct HostPort {
  std::string host;
  std::optional<int> port;
};
std::optional<HostPort> ParseAuthority(std::string_view authority);

// An Origin header's scheme ("http" / "https"), host and port (the scheme's default when not
// written). nullopt for "null", other schemes, a path or user information
// ("http://localhost:80@evil.example").
struct WebOrigin {
  std::string scheme;
  std::string host;
  int port = 0;
  std::string ToString() const;  // "http://localhost:8420" (default ports left out)
};
std::optional<WebOrigin> ParseOrigin(std::string_view origin);

// Which Host headers and browser Origins a server accepts.
//  - Host: a loopback name (any port), a name in `allowed_hosts`, or anything when
//    `any_host` (a server that requires keys on a network address: a rebound page has no key).
//  - Origin (sent by browsers): absent (not a browser), an http(s) origin on a loopback name
//    (any port), or one listed in `allowed_origins`.
struct OriginPolicy {
  std::vector<std::string> allowed_hosts;    // "memory.example.com" or "memory.example.com:443"
  std::vector<std::string> allowed_origins;  // "https://app.example.com"
  bool any_host = false;

  // Each kInvalidArgument names the rule broken; the server answers 403 (421 for Host).
  Status CheckHost(const std::optional<std::string>& host) const;
  Status CheckOrigin(const std::optional<std::string>& origin) const;
  // Validates the lists (each an authority / an origin). kInvalidArgument naming a bad entry.
  Status Validate() const;
};

}  // namespace engram::server

#endif  // ENGRAM_SERVER_HTTP_WIRE_H_
