// mcp::HttpTransport: MCP's streamable HTTP transport as a transport-free handler. An HTTP server
// (`engram serve` at /mcp, or `engram mcp --http`) hands it each request to the MCP endpoint
// as an HttpCall and writes back the HttpResult; the handler never sees a socket, so it is
// tested by calling it directly.
//
//   engram::mcp::HttpTransport transport(server);
//   engram::mcp::HttpResult result = transport.Handle(
//       {.method = "POST", .headers = {{"Content-Type", "application/json"}}, .body = text},
//       engram::auth::Access::Unrestricted());
//
// What it does, per request:
//   - Host and Origin: a request whose Host is not a loopback name (localhost, 127.0.0.1,
//     [::1]) or whose Origin is present and not a loopback origin is refused with 403, unless
//     listed in HttpOptions (DNS-rebinding protection).
//   - POST with one JSON-RPC message: a request gets 200 with an application/json reply; a
//     notification or response gets 202 and no body. `initialize` opens a session and returns
//     its id in Mcp-Session-Id; later requests of 2025-06-18 / 2025-11-25 clients must carry it
//     (400 without, 404 for an unknown or ended one) and, if they send MCP-Protocol-Version,
//     the session's version (400 otherwise). Requests of 2026-07-28 clients (the header or
//     params._meta says so) and server/discover need no session; their Mcp-Method and Mcp-Name
//     headers, when sent, must match the body (400, error -32020).
//   - GET: 405 (this server opens no server-to-client stream). DELETE with a session id ends
//     the session (204; 404 if unknown). Other methods: 405.
// Sessions belong to the caller that opened them: its API key (auth::Access::key_id), or the
// unrestricted local caller. A request or DELETE naming another caller's session is answered
// exactly as for a session that does not exist (404), so a session id reveals nothing to
// another key and ending one takes its owner's key. Sessions are bounded per caller
// (HttpOptions::max_sessions_per_key) and in all (HttpOptions::max_sessions); opening one more
// ends the caller's own least recently used session, never another caller's: a caller holding
// none while the other callers' sessions fill the table is refused (503) until one ends.
// Session ids are 128 random bits from the operating system, in hex.
//
// Thread-safety: Handle may be called from any number of threads; the session table is guarded
// by a mutex and the McpServer is thread-safe.
#ifndef ENGRAM_MCP_HTTP_TRANSPORT_H_
#define ENGRAM_MCP_HTTP_TRANSPORT_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "auth/access.h"
#include "engram/status.h"
#include "mcp/server.h"

namespace engram::mcp {

// Header names compare case-insensitively.
struct CaseInsensitiveLess {
  bool operator()(std::string_view a, std::string_view b) const;
  using is_transparent = void;
};
using HttpHeaders = std::map<std::string, std::string, CaseInsensitiveLess>;

struct HttpCall {
  std::string method;  // "POST", "GET", "DELETE", ...
  HttpHeaders headers;
  std::string body;
};

struct HttpResult {
  int status = 200;
  HttpHeaders headers;  // Content-Type, Mcp-Session-Id, Allow, ...
  std::string body;
};

struct HttpOptions {
  // Sessions open at once at most, all callers together. Default: 64.
  std::size_t max_sessions = 64;
  // Sessions one API key holds at most; opening one more ends that key's least recently used.
  // Not applied to the unrestricted caller (a server without keys, `engram mcp --http`): being
  // the only caller there, it is bounded by max_sessions alone. Default: 16.
  std::size_t max_sessions_per_key = 16;
  // Origins accepted besides loopback ones, exactly as browsers send them
  // ("https://app.example.com"). Default: none.
  std::vector<std::string> allowed_origins;
  // Host header values (host or host:port) accepted besides loopback names. A server bound to
  // a non-loopback address must list the names clients reach it by. Default: none.
  std::vector<std::string> allowed_hosts;
  // Check the Host header at all. A server that authenticates every caller with an API key may
  // turn it off (a rebound browser request cannot present the key). Default: true.
  bool check_host = true;
};

class HttpTransport {
 public:
  explicit HttpTransport(const McpServer& server, HttpOptions options = {});

  HttpResult Handle(const HttpCall& call, const auth::Access& access);

  std::size_t session_count() const;

 private:
  struct SessionEntry {
    Session session;
    std::string owner;            // SessionOwner of the caller that opened it
    std::uint64_t last_used = 0;  // a counter, not a clock: least recently used is smallest
  };

  HttpResult Post(const HttpCall& call, const auth::Access& access);
  HttpResult Delete(const HttpCall& call, const auth::Access& access);
  bool HostAllowed(const HttpCall& call) const;
  bool OriginAllowed(const HttpCall& call) const;
  // Adds `session` for the caller, first ending the caller's own least recently used sessions
  // as the caps require. kUnavailable when the table is full of other callers' sessions.
  StatusOr<std::string> OpenSession(const Session& session, const auth::Access& access);

  const McpServer& server_;
  HttpOptions options_;
  mutable std::mutex mutex_;
  std::map<std::string, SessionEntry> sessions_;  // GUARDED_BY(mutex_)
  std::uint64_t use_counter_ = 0;                 // GUARDED_BY(mutex_)
};

// 32 hex digits from the operating system's random source.
std::string RandomSessionId();

// Who owns the sessions a caller opens: "key:<id>" for an API key, "local" for the
// unrestricted caller, and for grants made in code without a key id a description of the grants
// (so two such callers with different grants never share sessions).
std::string SessionOwner(const auth::Access& access);

}  // namespace engram::mcp

#endif  // ENGRAM_MCP_HTTP_TRANSPORT_H_
