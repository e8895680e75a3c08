// Streamable HTTP for the MCP server (see http_transport.h).
#include "mcp/http_transport.h"

#include <sys/random.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <optional>
#include <utility>

namespace engram::mcp {
namespace {

using nlohmann::json;

std::string Lower(std::string_view text) {
  std::string lower(text);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower;
}

std::optional<std::string> Header(const HttpCall& call, std::string_view name) {
  const auto found = call.headers.find(name);
  if (found == call.headers.end()) return std::nullopt;
  return found->second;
}

HttpResult JsonResult(int status, const io::Json& body) {
  HttpResult result;
  result.status = status;
  result.headers["Content-Type"] = "application/json";
  result.body = io::Dump(body);
  return result;
}

// A transport-level refusal, with a JSON-RPC error body so clients can tell it from a proxy's.
HttpResult Refuse(int status, int code, std::string_view message, const io::Json& data = nullptr) {
  return JsonResult(status, McpServer::ErrorReply(nullptr, code, message, data));
}

bool IsLoopbackHostName(std::string_view host) {
  const std::string lower = Lower(host);
  return lower == "localhost" || lower == "127.0.0.1" || lower == "[::1]" || lower == "::1";
}

// "localhost:8080" -> "localhost"; "[::1]:80" -> "[::1]".
std::string_view HostWithoutPort(std::string_view host) {
  if (!host.empty() && host.front() == '[') {
    const std::size_t close = host.find(']');
    return close == std::string_view::npos ? host : host.substr(0, close + 1);
  }
  const std::size_t colon = host.find(':');
  return colon == std::string_view::npos ? host : host.substr(0, colon);
}

// Whether `authority` ("host" or "host:port", lowercase) names a loopback host and nothing else:
// "localhost:80@evil.example" (userinfo) and "127.0.0.1.evil.example" do not.
bool IsLoopbackAuthority(std::string_view authority) {
  const std::string_view host = HostWithoutPort(authority);
  if (!IsLoopbackHostName(host)) return false;
  const std::string_view rest = authority.substr(host.size());
  if (rest.empty()) return true;
  if (rest.front() != ':' || rest.size() < 2 || rest.size() > 6) return false;
  return rest.substr(1).find_first_not_of("0123456789") == std::string_view::npos;
}

bool MediaTypeIs(std::string_view value, std::string_view type) {
  const std::string lower = Lower(value);
  const std::size_t end = lower.find(';');
  std::string_view media = std::string_view(lower).substr(0, end);
  while (!media.empty() && media.back() == ' ') media.remove_suffix(1);
  while (!media.empty() && media.front() == ' ') media.remove_prefix(1);
  return media == type;
}

// True when an Accept header admits a JSON reply (absent counts as yes).
bool AcceptsJson(const std::optional<std::string>& accept) {
  if (!accept || accept->empty()) return true;
  std::string_view rest = *accept;
  while (!rest.empty()) {
    const std::size_t comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    if (MediaTypeIs(item, "application/json") || MediaTypeIs(item, "application/*") ||
        MediaTypeIs(item, "*/*")) {
      return true;
    }
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return false;
}

}  // namespace

bool CaseInsensitiveLess::operator()(std::string_view a, std::string_view b) const {
  return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) <
           std::tolower(static_cast<unsigned char>(y));
  });
}

std::string RandomSessionId() {
  std::array<unsigned char, 16> bytes{};
  std::size_t filled = 0;
  while (filled < bytes.size()) {
    const ssize_t got = getrandom(bytes.data() + filled, bytes.size() - filled, 0);
    if (got > 0) filled += static_cast<std::size_t>(got);
  }
  std::string id;
  for (unsigned char byte : bytes) {
    char hex[3];
    std::snprintf(hex, sizeof(hex), "%02x", byte);
    id += hex;
  }
  return id;
}

std::string SessionOwner(const auth::Access& access) {
  if (access.unrestricted()) return "local";
  if (!access.key_id().empty()) return "key:" + access.key_id();
  std::string owner = "grants:";
  for (const auth::Grant& grant : access.grants()) {
    owner += grant.prefix.ToString() + "=" + auth::RightsToString(grant.rights) + ";";
  }
  return owner;
}

HttpTransport::HttpTransport(const McpServer& server, HttpOptions options)
    : server_(server), options_(std::move(options)) {}

std::size_t HttpTransport::session_count() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return sessions_.size();
}

bool HttpTransport::HostAllowed(const HttpCall& call) const {
  if (!options_.check_host) return true;
  const std::optional<std::string> host = Header(call, "Host");
  if (!host) return true;  // HTTP/1.0 and in-process callers send none
  if (IsLoopbackAuthority(Lower(*host))) return true;
  for (const std::string& allowed : options_.allowed_hosts) {
    if (Lower(allowed) == Lower(*host) || Lower(allowed) == Lower(HostWithoutPort(*host))) {
      return true;
    }
  }
  return false;
}

bool HttpTransport::OriginAllowed(const HttpCall& call) const {
  const std::optional<std::string> origin = Header(call, "Origin");
  if (!origin) return true;  // not a browser
  for (const std::string& allowed : options_.allowed_origins) {
    if (Lower(allowed) == Lower(*origin)) return true;
  }
  const std::string lower = Lower(*origin);
  for (std::string_view scheme : {"http://", "https://"}) {
    if (lower.rfind(scheme, 0) == 0) {
      // An origin is scheme://host[:port] exactly: no path, no userinfo.
      return IsLoopbackAuthority(std::string_view(lower).substr(scheme.size()));
    }
  }
  return false;  // "null" and other schemes
}

HttpResult HttpTransport::Handle(const HttpCall& call, const auth::Access& access) {
  if (!HostAllowed(call)) {
    return Refuse(403, error_code::kInvalidRequest,
                  "Host header not allowed: only loopback names are accepted");
  }
  if (!OriginAllowed(call)) {
    return Refuse(403, error_code::kInvalidRequest, "Origin not allowed");
  }
  if (call.method == "POST") return Post(call, access);
  if (call.method == "DELETE") return Delete(call, access);
  // GET included: this server opens no server-to-client stream, as it never sends requests or
  // notifications of its own.
  HttpResult result;
  result.status = 405;
  result.headers["Allow"] = "POST, DELETE";
  return result;
}

HttpResult HttpTransport::Delete(const HttpCall& call, const auth::Access& access) {
  const std::optional<std::string> id = Header(call, "Mcp-Session-Id");
  if (!id) return Refuse(400, error_code::kInvalidRequest, "Mcp-Session-Id header is required");
  std::lock_guard<std::mutex> lock(mutex_);
  const auto found = sessions_.find(*id);
  // Another caller's session is answered as one that does not exist.
  if (found == sessions_.end() || found->second.owner != SessionOwner(access)) {
    return Refuse(404, error_code::kInvalidRequest, "session not found");
  }
  sessions_.erase(found);
  HttpResult result;
  result.status = 204;
  return result;
}

StatusOr<std::string> HttpTransport::OpenSession(const Session& session,
                                                 const auth::Access& access) {
  const std::string owner = SessionOwner(access);
  const std::size_t total_cap = std::max<std::size_t>(options_.max_sessions, 1);
  const std::size_t owner_cap =
      access.unrestricted()
          ? total_cap
          : std::clamp<std::size_t>(options_.max_sessions_per_key, 1, total_cap);
  const std::string id = RandomSessionId();
  std::lock_guard<std::mutex> lock(mutex_);
  // The caller's own sessions, least recently used first; only these may be ended here.
  std::vector<std::pair<std::uint64_t, std::string>> own;
  for (const auto& [session_id, entry] : sessions_) {
    if (entry.owner == owner) own.emplace_back(entry.last_used, session_id);
  }
  std::sort(own.begin(), own.end());
  std::size_t own_idx = 0;
  while (own_idx < own.size() &&
         (own.size() - own_idx >= owner_cap || sessions_.size() >= total_cap)) {
    sessions_.erase(own[own_idx].second);
    ++own_idx;
  }
  if (sessions_.size() >= total_cap) {
    return Status::ResourceExhausted(
        "too many open MCP sessions: all " + std::to_string(total_cap) +
        " are held by other callers; try again once one ends");
  }
  sessions_[id] = SessionEntry{.session = session, .owner = owner, .last_used = ++use_counter_};
  return id;
}

HttpResult HttpTransport::Post(const HttpCall& call, const auth::Access& access) {
  const std::optional<std::string> content_type = Header(call, "Content-Type");
  if (!content_type || !MediaTypeIs(*content_type, "application/json")) {
    return Refuse(415, error_code::kInvalidRequest, "Content-Type must be application/json");
  }
  if (!AcceptsJson(Header(call, "Accept"))) {
    return Refuse(406, error_code::kInvalidRequest,
                  "Accept must admit application/json (this server answers with JSON)");
  }
  if (call.body.size() > server_.options().max_message_bytes) {
    return Refuse(
        413, error_code::kInvalidRequest,
        "message is larger than " + std::to_string(server_.options().max_message_bytes) + " bytes");
  }
  ParsedMessage parsed = server_.Parse(call.body);
  if (!parsed.value) return JsonResult(400, *parsed.error_reply);
  const json& message = *parsed.value;

  std::string method;
  if (message.is_object()) {
    const auto found = message.find("method");
    if (found != message.end() && found->is_string()) method = found->get<std::string>();
  }
  const auto reply_with = [](std::optional<io::Json> reply, int status) {
    if (!reply) {
      HttpResult accepted;
      accepted.status = 202;
      return accepted;
    }
    return JsonResult(status, *reply);
  };
  if (!message.is_object() || method.empty()) {
    // Batches, non-objects, responses and messages without a method: the core answers or drops
    // them; an error reply is a bad request.
    Session scratch;
    std::optional<io::Json> reply = server_.Handle(message, scratch, access);
    return reply_with(std::move(reply), reply && reply->contains("error") ? 400 : 200);
  }

  const std::optional<std::string> header_version = Header(call, "MCP-Protocol-Version");
  const std::string meta_version = McpServer::RequestProtocolVersion(message, Session{});

  if (method == "initialize") {
    Session session;
    std::optional<io::Json> reply = server_.Handle(message, session, access);
    if (!reply || !reply->contains("result")) {
      return reply_with(std::move(reply), 400);
    }
    StatusOr<std::string> session_id = OpenSession(session, access);
    if (!session_id.ok()) {
      return Refuse(503, error_code::kInternalError, session_id.status().message());
    }
    HttpResult result = JsonResult(200, *reply);
    result.headers["Mcp-Session-Id"] = *session_id;
    return result;
  }

  if (header_version && !IsSupportedProtocolVersion(*header_version)) {
    io::Json data = io::Json::object();
    data["supported"] = SupportedProtocolVersions();
    data["requested"] = *header_version;
    return Refuse(400, error_code::kUnsupportedProtocolVersion,
                  "unsupported MCP-Protocol-Version: " + *header_version, data);
  }

  const bool stateless = method == "server/discover" ||
                         (header_version && *header_version == kProtocol20260728) ||
                         meta_version == kProtocol20260728;
  if (stateless) {
    // 2026-07-28: routing headers, when sent, must say what the body says.
    const std::optional<std::string> header_method = Header(call, "Mcp-Method");
    if (header_method && *header_method != method) {
      return Refuse(400, error_code::kHeaderMismatch,
                    "Mcp-Method header does not match the body's method");
    }
    const std::optional<std::string> header_name = Header(call, "Mcp-Name");
    if (header_name && method == "tools/call") {
      const json& params = message.contains("params") ? message["params"] : json::object();
      const bool matches = params.is_object() && params.contains("name") &&
                           params["name"].is_string() && params["name"] == *header_name;
      if (!matches) {
        return Refuse(400, error_code::kHeaderMismatch,
                      "Mcp-Name header does not match the body's tool name");
      }
    }
    Session session;
    if (header_version) session.protocol_version = *header_version;
    return reply_with(server_.Handle(message, session, access), 200);
  }

  const std::optional<std::string> session_id = Header(call, "Mcp-Session-Id");
  if (!session_id) {
    return Refuse(400, error_code::kInvalidRequest,
                  "Mcp-Session-Id header is required: send initialize first");
  }
  Session session;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto found = sessions_.find(*session_id);
    // Another caller's session is answered as one that does not exist: no hint that it does.
    if (found == sessions_.end() || found->second.owner != SessionOwner(access)) {
      return Refuse(404, error_code::kInvalidRequest,
                    "session not found (it ended or was never opened): initialize again");
    }
    found->second.last_used = ++use_counter_;
    session = found->second.session;
  }
  if (header_version && *header_version != session.protocol_version) {
    return Refuse(400, error_code::kUnsupportedProtocolVersion,
                  "MCP-Protocol-Version " + *header_version +
                      " differs from the version this session negotiated, " +
                      session.protocol_version);
  }
  std::optional<io::Json> reply = server_.Handle(message, session, access);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto found = sessions_.find(*session_id);
    if (found != sessions_.end() && found->second.owner == SessionOwner(access)) {
      found->second.session = session;
    }
  }
  return reply_with(std::move(reply), 200);
}

}  // namespace engram::mcp
