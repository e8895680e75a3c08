// HTTP/1.1 on the wire (see http_wire.h).
#include "server/http_wire.h"

#include <zlib.h>

#include <algorithm>
#include <cstdint>

namespace engram::server {
namespace {

constexpr std::size_t kMaxChunkSizeLine = 1024;  // hex size and extensions
constexpr std::size_t kRatioCheckAfter = 1024 * 1024;

char Lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

std::string LowerCopy(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = Lower(c);
  return out;
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (Lower(a[i]) != Lower(b[i])) return false;
  }
  return true;
}

// RFC 9110 token characters (method, header names).
bool IsTokenChar(char c) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
  switch (c) {
    case '!': case '#': case '$': case '%': case '&': case '\'': case '*': case '+': case '-':
    case '.': case '^': case '_': case '`': case '|': case '~':
      return true;
    default:
      return false;
  }
}

std::string_view Trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Splits "a=1&b=2" into decoded pairs. kInvalidArgument on broken percent-encoding.
Status ParseQuery(std::string_view query, std::multimap<std::string, std::string>* out) {
  while (!query.empty()) {
    const std::size_t amp = query.find('&');
    const std::string_view item = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (item.empty()) continue;
    const std::size_t eq = item.find('=');
    ASSIGN_OR_RETURN(std::string name, PercentDecode(item.substr(0, eq), true));
    std::string value;
    if (eq != std::string_view::npos) {
      ASSIGN_OR_RETURN(value, PercentDecode(item.substr(eq + 1), true));
    }
    out->emplace(std::move(name), std::move(value));
  }
  return Status::Ok();
}

// A decimal port of 1 to 5 digits, at most 65535.
std::optional<int> ParsePort(std::string_view text) {
  if (text.empty() || text.size() > 5) return std::nullopt;
  int port = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    port = port * 10 + (c - '0');
  }
  if (port > 65535) return std::nullopt;
  return port;
}

// A host name or IPv4 address: letters, digits, '-', '.', '_' (no '@', '/', spaces, '%').
bool IsRegName(std::string_view host) {
  if (host.empty() || host.size() > 253) return false;
  return std::all_of(host.begin(), host.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_';
  });
}

}  // namespace

std::optional<std::string> HttpRequest::Header(std::string_view name) const {
  for (const auto& [field, value] : headers) {
    if (EqualsIgnoreCase(field, name)) return value;
  }
  return std::nullopt;
}

std::size_t HttpRequest::HeaderCount(std::string_view name) const {
  return static_cast<std::size_t>(std::count_if(
      headers.begin(), headers.end(),
      [&](const auto& header) { return EqualsIgnoreCase(header.first, name); }));
}

StatusOr<std::string> PercentDecode(std::string_view text, bool plus_is_space) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '%') {
      const int high = i + 1 < text.size() ? HexValue(text[i + 1]) : -1;
      const int low = i + 2 < text.size() ? HexValue(text[i + 2]) : -1;
      if (high < 0 || low < 0) {
        return Status::InvalidArgument("broken percent-encoding: '%' needs two hex digits");
      }
      out.push_back(static_cast<char>(high * 16 + low));
      i += 2;
    } else if (c == '+' && plus_is_space) {
      out.push_back(' ');
    } else {
      out.push_back(c);
    }
  }
  return out;
}

RequestParser::RequestParser(HttpLimits limits) : limits_(limits) {}

void RequestParser::Reset() {
  phase_ = Phase::kHead;
  request_ = HttpRequest();
  line_.clear();
  remaining_ = 0;
  started_ = false;
  error_status_ = 0;
  error_message_.clear();
}

ParseState RequestParser::Fail(int status, std::string message) {
  error_status_ = status;
  error_message_ = std::move(message);
  phase_ = Phase::kDone;
  return ParseState::kError;
}

namespace {

// The length of the request line at the start of `head` without its line end; while the line
// has not ended, the bytes so far (less a final CR, which may begin the CRLF).
std::size_t RequestLineLength(std::string_view head) {
  std::size_t length = std::min(head.find('\n'), head.size());
  if (length > 0 && head[length - 1] == '\r') --length;
  return length;
}

}  // namespace

ParseState RequestParser::Feed(std::string_view input, std::size_t* consumed) {
  *consumed = 0;
  if (error_status_ != 0) return ParseState::kError;
  std::size_t at = 0;
  while (true) {
    switch (phase_) {
      case Phase::kHead: {
        // Blank lines before a request line are ignored (RFC 9112 §2.2).
        while (!started_ && at < input.size() && (input[at] == '\r' || input[at] == '\n')) ++at;
        if (at == input.size()) {
          *consumed = at;
          return ParseState::kNeedMore;
        }
        started_ = true;
        // Append up to the end of the head ("\r\n\r\n" or "\n\n"), searching only new bytes.
        const std::size_t old_size = line_.size();
        const std::size_t room = limits_.max_header_bytes + 4 - std::min(old_size, limits_.max_header_bytes + 4);
        const std::size_t take = std::min(room, input.size() - at);
        line_.append(input.substr(at, take));
        std::size_t end = std::string::npos;
        for (std::size_t i = old_size >= 3 ? old_size - 3 : 0; i < line_.size(); ++i) {
          if (line_[i] != '\n') continue;
          if (i + 2 < line_.size() && line_[i + 1] == '\r' && line_[i + 2] == '\n') {
            end = i + 3;
            break;
          }
          if (i + 1 < line_.size() && line_[i + 1] == '\n') {
            end = i + 2;
            break;
          }
        }
        // The same checks in the same order whether the head came whole or in pieces: the
        // request line (414), then the head's size (431), then the rest (ParseHead).
        if (RequestLineLength(line_) > limits_.max_request_line_bytes) {
          return Fail(414, "the request line is longer than " +
                               std::to_string(limits_.max_request_line_bytes) + " bytes");
        }
        if (end == std::string::npos) {
          // Without its end in the first max_header_bytes + 4 bytes, the head is too large.
          if (line_.size() >= limits_.max_header_bytes + 4) {
            return Fail(431, "the request header is larger than " +
                                 std::to_string(limits_.max_header_bytes) + " bytes");
          }
          *consumed = at + take;
          return ParseState::kNeedMore;
        }
        if (end > limits_.max_header_bytes + 4) {
          return Fail(431, "the request header is larger than " +
                               std::to_string(limits_.max_header_bytes) + " bytes");
        }
        // Bytes after the head belong to the body or the next request: give them back.
        at += take - (line_.size() - end);
        line_.resize(end);
        const ParseState head = ParseHead();
        line_.clear();
        *consumed = at;
        if (head == ParseState::kError) return head;
        const ParseState body = StartBody();
        if (body == ParseState::kError) return body;
        return ParseState::kHeadersComplete;
      }
      case Phase::kBody: {
        const std::size_t take = std::min(remaining_, input.size() - at);
        request_.body.append(input.substr(at, take));
        at += take;
        remaining_ -= take;
        *consumed = at;
        if (remaining_ > 0) return ParseState::kNeedMore;
        phase_ = Phase::kDone;
        return ParseState::kComplete;
      }
      case Phase::kChunkSize: {
        const std::size_t newline = input.find('\n', at);
        const std::size_t take = (newline == std::string_view::npos ? input.size() : newline + 1) - at;
        line_.append(input.substr(at, take));
        at += take;
        *consumed = at;
        if (line_.size() > kMaxChunkSizeLine) return Fail(400, "a chunk-size line is too long");
        if (line_.empty() || line_.back() != '\n') return ParseState::kNeedMore;
        std::string_view size_line(line_);
        size_line.remove_suffix(1);
        if (!size_line.empty() && size_line.back() == '\r') size_line.remove_suffix(1);
        const std::size_t semicolon = size_line.find(';');
        const std::string_view hex = Trim(size_line.substr(0, semicolon));
        if (hex.empty() || hex.size() > 15) return Fail(400, "malformed chunk size");
        std::uint64_t size = 0;
        for (const char c : hex) {
          const int digit = HexValue(c);
          if (digit < 0) return Fail(400, "malformed chunk size");
          size = size * 16 + static_cast<std::uint64_t>(digit);
        }
        line_.clear();
        if (size == 0) {
          phase_ = Phase::kTrailers;
          continue;
        }
        if (size > limits_.max_body_bytes - request_.body.size()) {
          return Fail(413, "the request body is larger than " +
                               std::to_string(limits_.max_body_bytes) + " bytes");
        }
        remaining_ = static_cast<std::size_t>(size);
        phase_ = Phase::kChunkData;
        continue;
      }
      case Phase::kChunkData: {
        const std::size_t take = std::min(remaining_, input.size() - at);
        request_.body.append(input.substr(at, take));
        at += take;
        remaining_ -= take;
        *consumed = at;
        if (remaining_ > 0) return ParseState::kNeedMore;
        phase_ = Phase::kChunkDataEnd;
        continue;
      }
      case Phase::kChunkDataEnd: {
        // The CRLF after a chunk's data (a bare LF is tolerated); any other byte is an error
        // as soon as it arrives.
        while (at < input.size() && phase_ == Phase::kChunkDataEnd) {
          const char c = input[at++];
          if (c == '\n') {
            line_.clear();
            phase_ = Phase::kChunkSize;
          } else if (c == '\r' && line_.empty()) {
            line_ = "\r";
          } else {
            *consumed = at;
            return Fail(400, "a chunk's data is not followed by CRLF");
          }
        }
        *consumed = at;
        if (phase_ == Phase::kChunkDataEnd) return ParseState::kNeedMore;
        continue;
      }
      case Phase::kTrailers: {
        // Trailer fields are read and dropped, up to an empty line; bounded like the head.
        const std::size_t newline = input.find('\n', at);
        const std::size_t take = (newline == std::string_view::npos ? input.size() : newline + 1) - at;
        line_.append(input.substr(at, take));
        at += take;
        *consumed = at;
        if (line_.size() > limits_.max_header_bytes) {
          return Fail(431, "the chunked body's trailer is larger than " +
                               std::to_string(limits_.max_header_bytes) + " bytes");
        }
        if (line_.empty() || line_.back() != '\n') return ParseState::kNeedMore;
        // line_ holds complete trailer lines; the last one ends here.
        std::string_view last(line_);
        last.remove_suffix(1);
        if (!last.empty() && last.back() == '\r') last.remove_suffix(1);
        const std::size_t previous = last.rfind('\n');
        const std::string_view final_line =
            previous == std::string_view::npos ? last : last.substr(previous + 1);
        if (!final_line.empty()) {
          // Another trailer field; read on, or wait for more bytes.
          if (at == input.size()) return ParseState::kNeedMore;
          continue;
        }
        line_.clear();
        phase_ = Phase::kDone;
        return ParseState::kComplete;
      }
      case Phase::kDone:
        *consumed = at;
        return ParseState::kComplete;
    }
  }
}

ParseState RequestParser::ParseHead() {
  std::vector<std::string_view> lines;
  std::string_view head(line_);
  while (!head.empty()) {
    const std::size_t newline = head.find('\n');
    std::string_view line = head.substr(0, newline);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    head = newline == std::string_view::npos ? std::string_view() : head.substr(newline + 1);
  }
  while (!lines.empty() && lines.back().empty()) lines.pop_back();
  if (lines.empty()) return Fail(400, "empty request");

  // Request line: METHOD SP request-target SP HTTP-version.
  const std::string_view request_line = lines[0];
  if (request_line.size() > limits_.max_request_line_bytes) {
    return Fail(414, "the request line is longer than " +
                         std::to_string(limits_.max_request_line_bytes) + " bytes");
  }
  const std::size_t first_space = request_line.find(' ');
  const std::size_t last_space = request_line.rfind(' ');
  if (first_space == std::string_view::npos || first_space == last_space) {
    return Fail(400, "malformed request line");
  }
  const std::string_view method = request_line.substr(0, first_space);
  const std::string_view target =
      request_line.substr(first_space + 1, last_space - first_space - 1);
  const std::string_view version = request_line.substr(last_space + 1);
  if (method.empty() || !std::all_of(method.begin(), method.end(), IsTokenChar)) {
    return Fail(400, "malformed request method");
  }
  if (version == "HTTP/1.1") {
    request_.version_minor = 1;
  } else if (version == "HTTP/1.0") {
    request_.version_minor = 0;
  } else if (version.size() == 8 && version.substr(0, 5) == "HTTP/") {
    return Fail(505, "HTTP version not supported: only HTTP/1.0 and HTTP/1.1");
  } else {
    return Fail(400, "malformed request line");
  }
  request_.method = std::string(method);
  request_.target = std::string(target);
  if (target.empty() || target.front() != '/') {
    if (!(target == "*" && method == "OPTIONS")) {
      return Fail(400, "the request target must be a path starting with '/'");
    }
  }
  for (const char c : target) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte <= 0x20 || byte == 0x7F || byte >= 0x80 || c == '#') {
      return Fail(400, "the request target has a character that must be percent-encoded");
    }
  }
  const std::size_t question = target.find('?');
  StatusOr<std::string> path = PercentDecode(target.substr(0, question), false);
  if (!path.ok()) return Fail(400, "request path: " + path.status().message());
  if (path->find('\0') != std::string::npos) return Fail(400, "the request path holds a NUL byte");
  request_.path = *std::move(path);
  if (question != std::string_view::npos) {
    const Status query = ParseQuery(target.substr(question + 1), &request_.query);
    if (!query.ok()) return Fail(400, "query string: " + query.message());
  }

  // Header fields: name ":" OWS value OWS.
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const std::string_view line = lines[i];
    if (line.empty()) continue;
    if (line.front() == ' ' || line.front() == '\t') {
      return Fail(400, "obsolete line folding in the request header");
    }
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos || colon == 0) {
      return Fail(400, "malformed header field");
    }
    const std::string_view name = line.substr(0, colon);
    if (!std::all_of(name.begin(), name.end(), IsTokenChar)) {
      return Fail(400, "malformed header field name");
    }
    const std::string_view value = Trim(line.substr(colon + 1));
    for (const char c : value) {
      const auto byte = static_cast<unsigned char>(c);
      if ((byte < 0x20 && c != '\t') || byte == 0x7F) {
        return Fail(400, "a control character in header field " + std::string(name));
      }
    }
    if (request_.headers.size() == limits_.max_header_count) {
      return Fail(431, "more than " + std::to_string(limits_.max_header_count) +
                           " header fields");
    }
    request_.headers.emplace_back(std::string(name), std::string(value));
  }

  // Connection semantics: 1.1 keeps the connection unless told to close, 1.0 the opposite.
  const std::string connection = LowerCopy(request_.Header("Connection").value_or(""));
  request_.keep_alive = request_.version_minor == 1
                            ? connection.find("close") == std::string::npos
                            : connection.find("keep-alive") != std::string::npos;
  const std::optional<std::string> expect = request_.Header("Expect");
  if (expect) {
    if (!EqualsIgnoreCase(Trim(*expect), "100-continue")) {
      return Fail(417, "unsupported Expect: only 100-continue");
    }
    request_.expect_continue = request_.version_minor == 1;
  }
  return ParseState::kHeadersComplete;
}

ParseState RequestParser::StartBody() {
  const std::size_t encodings = request_.HeaderCount("Transfer-Encoding");
  const std::size_t lengths = request_.HeaderCount("Content-Length");
  if (encodings > 0) {
    // Both framings at once is how requests are smuggled past proxies: refuse it.
    if (lengths > 0) return Fail(400, "both Transfer-Encoding and Content-Length");
    if (request_.version_minor == 0) return Fail(400, "Transfer-Encoding in an HTTP/1.0 request");
    if (encodings > 1 || !EqualsIgnoreCase(Trim(*request_.Header("Transfer-Encoding")), "chunked")) {
      return Fail(501, "unsupported Transfer-Encoding: only \"chunked\"");
    }
    phase_ = Phase::kChunkSize;
    return ParseState::kHeadersComplete;
  }
  std::optional<std::uint64_t> length;
  for (const auto& [name, value] : request_.headers) {
    if (!EqualsIgnoreCase(name, "Content-Length")) continue;
    const std::string_view digits = Trim(value);
    if (digits.empty() || digits.size() > 18 ||
        !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      return Fail(400, "malformed Content-Length");
    }
    std::uint64_t parsed = 0;
    for (const char c : digits) parsed = parsed * 10 + static_cast<std::uint64_t>(c - '0');
    if (length && *length != parsed) return Fail(400, "conflicting Content-Length values");
    length = parsed;
  }
  if (length && *length > limits_.max_body_bytes) {
    return Fail(413, "the request body is larger than " + std::to_string(limits_.max_body_bytes) +
                         " bytes");
  }
  remaining_ = length ? static_cast<std::size_t>(*length) : 0;
  phase_ = remaining_ > 0 ? Phase::kBody : Phase::kDone;
  return ParseState::kHeadersComplete;
}

std::string_view ReasonPhrase(int status) {
  switch (status) {
    case 100: return "Continue";
    case 200: return "OK";
    case 201: return "Created";
    case 202: return "Accepted";
    case 204: return "No Content";
    case 304: return "Not Modified";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 406: return "Not Acceptable";
    case 408: return "Request Timeout";
    case 409: return "Conflict";
    case 410: return "Gone";
    case 411: return "Length Required";
    case 413: return "Content Too Large";
    case 414: return "URI Too Long";
    case 415: return "Unsupported Media Type";
    case 417: return "Expectation Failed";
    case 421: return "Misdirected Request";
    case 422: return "Unprocessable Content";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    case 505: return "HTTP Version Not Supported";
    default: return "Unknown";
  }
}

std::string SerializeResponse(const HttpResponse& response, bool head_request, bool keep_alive) {
  std::string out = "HTTP/1.1 " + std::to_string(response.status) + " " +
                    std::string(ReasonPhrase(response.status)) + "\r\n";
  const bool no_body =
      (response.status >= 100 && response.status < 200) || response.status == 204 ||
      response.status == 304;
  for (const auto& [name, value] : response.headers) {
    out += name + ": " + value + "\r\n";
  }
  if (!no_body) {
    if (!response.content_type.empty()) out += "Content-Type: " + response.content_type + "\r\n";
    out += "Content-Length: " + std::to_string(response.body.size()) + "\r\n";
  }
  if (response.status >= 200) out += keep_alive ? "Connection: keep-alive\r\n" : "Connection: close\r\n";
  out += "\r\n";
  if (!no_body && !head_request) out += response.body;
  return out;
}

StatusOr<std::string> DecodeContent(std::string_view encoding, std::string body,
                                    std::size_t max_bytes, std::size_t max_ratio) {
  const std::string coding = LowerCopy(Trim(encoding));
  if (coding.empty() || coding == "identity") {
    if (body.size() > max_bytes) {
      return Status::ResourceExhausted("the request body is larger than " +
                                       std::to_string(max_bytes) + " bytes");
    }
    return body;
  }
  if (coding != "gzip" && coding != "x-gzip" && coding != "deflate") {
    return Status::InvalidArgument("unsupported Content-Encoding \"" + std::string(Trim(encoding)) +
                                 "\": send gzip, deflate or identity");
  }
  z_stream stream{};
  // 15 + 32: zlib or gzip, detected from the header; raw deflate is retried below.
  if (inflateInit2(&stream, 15 + 32) != Z_OK) return Status::Internal("zlib: cannot initialise");
  std::string out;
  const std::size_t ratio_cap =
      body.size() > max_bytes / std::max<std::size_t>(max_ratio, 1) ? max_bytes
                                                                     : body.size() * max_ratio;
  stream.next_in = reinterpret_cast<Bytef*>(body.data());
  stream.avail_in = static_cast<uInt>(body.size());
  char buffer[64 * 1024];
  int result = Z_OK;
  while (result != Z_STREAM_END) {
    stream.next_out = reinterpret_cast<Bytef*>(buffer);
    stream.avail_out = sizeof(buffer);
    result = inflate(&stream, Z_NO_FLUSH);
    if (result != Z_OK && result != Z_STREAM_END && result != Z_BUF_ERROR) break;
    const std::size_t produced = sizeof(buffer) - stream.avail_out;
    out.append(buffer, produced);
    if (out.size() > max_bytes) {
      inflateEnd(&stream);
      return Status::ResourceExhausted("the decompressed request body is larger than " +
                                       std::to_string(max_bytes) + " bytes");
    }
    if (out.size() > kRatioCheckAfter && out.size() > ratio_cap) {
      inflateEnd(&stream);
      return Status::ResourceExhausted(
          "the request body decompresses to more than " + std::to_string(max_ratio) +
          " times its size");
    }
    if (result == Z_BUF_ERROR && produced == 0) break;  // input ended early
  }
  inflateEnd(&stream);
  if (result != Z_STREAM_END) {
    return Status::InvalidArgument("the request body is not valid " + coding + " data");
  }
  return out;
}

// --- Host and Origin ---------------------------------------------------------------------------

bool IsLoopbackName(std::string_view host) {
  const std::string lower = LowerCopy(host);
  if (lower == "localhost" || lower == "::1" || lower == "[::1]") return true;
  // Four decimal numbers 0-255, the first 127.
  int parts = 0;
  std::size_t at = 0;
  int first = -1;
  while (at <= lower.size()) {
    const std::size_t dot = lower.find('.', at);
    const std::string_view part =
        std::string_view(lower).substr(at, dot == std::string::npos ? std::string::npos : dot - at);
    if (part.empty() || part.size() > 3 ||
        !std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      return false;
    }
    const int value = std::stoi(std::string(part));
    if (value > 255) return false;
    if (parts == 0) first = value;
    ++parts;
    if (dot == std::string::npos) break;
    at = dot + 1;
  }
  return parts == 4 && first == 127;
}

std::optional<HostPort> ParseAuthority(std::string_view authority) {
  HostPort out;
  std::string_view rest = authority;
  if (rest.empty()) return std::nullopt;
  if (rest.front() == '[') {
    const std::size_t close = rest.find(']');
    if (close == std::string_view::npos || close < 2) return std::nullopt;
    const std::string_view inside = rest.substr(1, close - 1);
    if (!std::all_of(inside.begin(), inside.end(), [](char c) {
          return HexValue(c) >= 0 || c == ':' || c == '.';
        })) {
      return std::nullopt;
    }
    out.host = "[" + LowerCopy(inside) + "]";
    rest.remove_prefix(close + 1);
  } else {
    const std::size_t colon = rest.find(':');
    out.host = LowerCopy(rest.substr(0, colon));
    if (!IsRegName(out.host)) return std::nullopt;
    rest = colon == std::string_view::npos ? std::string_view() : rest.substr(colon);
  }
  if (!rest.empty()) {
    if (rest.front() != ':') return std::nullopt;
    out.port = ParsePort(rest.substr(1));
    if (!out.port) return std::nullopt;
  }
  return out;
}

std::string WebOrigin::ToString() const {
  std::string out = scheme + "://" + host;
  const int default_port = scheme == "https" ? 443 : 80;
  if (port != default_port) out += ":" + std::to_string(port);
  return out;
}

std::optional<WebOrigin> ParseOrigin(std::string_view origin) {
  const std::string lower = LowerCopy(Trim(origin));
  WebOrigin out;
  std::string_view rest;
  if (lower.rfind("http://", 0) == 0) {
    out.scheme = "http";
    rest = std::string_view(lower).substr(7);
  } else if (lower.rfind("https://", 0) == 0) {
    out.scheme = "https";
    rest = std::string_view(lower).substr(8);
  } else {
    return std::nullopt;  // "null", file:, chrome-extension:, ...
  }
  if (!rest.empty() && rest.back() == '/') rest.remove_suffix(1);
  const std::optional<HostPort> authority = ParseAuthority(rest);
  if (!authority) return std::nullopt;
  out.host = authority->host;
  out.port = authority->port.value_or(out.scheme == "https" ? 443 : 80);
  return out;
}

Status OriginPolicy::CheckHost(const std::optional<std::string>& host) const {
  if (any_host) return Status::Ok();
  if (!host) {
    return Status::InvalidArgument("the request has no Host header");
  }
  const std::optional<HostPort> parsed = ParseAuthority(Trim(*host));
  if (!parsed) return Status::InvalidArgument("malformed Host header");
  if (IsLoopbackName(parsed->host)) return Status::Ok();
  for (const std::string& allowed : allowed_hosts) {
    const std::optional<HostPort> entry = ParseAuthority(allowed);
    if (!entry || entry->host != parsed->host) continue;
    if (!entry->port || entry->port == parsed->port) return Status::Ok();
  }
  return Status::InvalidArgument(
      "Host \"" + parsed->host +
      "\" is not a name of this server: only loopback names and --allow-host names are accepted "
      "(a web page may have pointed its own name at this machine)");
}

Status OriginPolicy::CheckOrigin(const std::optional<std::string>& origin) const {
  if (!origin) return Status::Ok();  // not sent by a browser
  const std::optional<WebOrigin> parsed = ParseOrigin(*origin);
  if (!parsed) {
    return Status::InvalidArgument("Origin \"" + origin->substr(0, 100) +
                                   "\" is not allowed: a browser page from an opaque or "
                                   "non-web origin may not call this server");
  }
  if (IsLoopbackName(parsed->host)) return Status::Ok();
  for (const std::string& allowed : allowed_origins) {
    const std::optional<WebOrigin> entry = ParseOrigin(allowed);
    if (entry && entry->ToString() == parsed->ToString()) return Status::Ok();
  }
  return Status::InvalidArgument("Origin " + parsed->ToString() +
                                 " is not allowed: a web page may only call this server from a "
                                 "loopback origin or one given with --allow-origin");
}

Status OriginPolicy::Validate() const {
  for (const std::string& host : allowed_hosts) {
    if (!ParseAuthority(host)) {
      return Status::InvalidArgument("--allow-host: \"" + host +
                                     "\" is not a host name or host:port");
    }
  }
  for (const std::string& origin : allowed_origins) {
    if (!ParseOrigin(origin)) {
      return Status::InvalidArgument("--allow-origin: \"" + origin +
                                     "\" is not an origin such as https://app.example.com");
    }
  }
  return Status::Ok();
}

}  // namespace engram::server
