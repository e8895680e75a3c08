// mcp::McpServer: engram's Model Context Protocol server, free of any transport. It reads one
// JSON-RPC 2.0 message (text), answers it against an Engine on behalf of one caller (an
// auth::Access), and returns the reply text; the stdio loop (`engram mcp`) and the streamable
// HTTP handler (http_transport.h) only move bytes.
//
//   engram::mcp::McpServer server(*engine);
//   engram::mcp::Session session;
//   std::optional<std::string> reply = server.HandleMessage(
//       R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})", session,
//       engram::auth::Access::Unrestricted());
//
// Protocol versions: 2025-06-18 and 2025-11-25 (initialize / notifications/initialized,
// capabilities negotiated once per session) and the stateless 2026-07-28 revision, where every
// request carries its version in params._meta["io.modelcontextprotocol/protocolVersion"], there
// is no handshake, `server/discover` describes the server and every result carries
// `resultType: "complete"`. The server is liberal: a request is answered whether or not the
// session was initialized, so each request is self-contained.
//
// Tools: eleven, WorldDB's nine memory tools and two for consolidation (tools.h). A tool's
// failure (bad arguments, an engine error, a missing right) is a tool result with isError: true
// and a message a model can act on; only an unknown tool name or malformed call parameters
// (params.name not a string, params.arguments not an object) are JSON-RPC errors (-32602).
//
// Default scope: with ServerOptions::default_scope (`engram mcp --scope user:alice`), or for a
// caller whose API key grants one scope prefix, the tools' `scope` argument is optional (but for
// the two that wipe a whole scope) and tools/list says so, so a model needs no scope names.
//
// Thread-safety: the server is immutable after construction and Engine is thread-safe, so any
// number of threads may call HandleMessage at once, each with its own Session.
#ifndef ENGRAM_MCP_SERVER_H_
#define ENGRAM_MCP_SERVER_H_

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "auth/access.h"
#include "engram/engine.h"
#include "engram/types.h"
#include "io/api_json.h"

#ifndef ENGRAM_MCP_VERSION
#define ENGRAM_MCP_VERSION "unknown"
#endif

namespace engram::mcp {

// Protocol revisions this server speaks, oldest first.
inline constexpr std::string_view kProtocol20250618 = "2025-06-18";
inline constexpr std::string_view kProtocol20251125 = "2025-11-25";
inline constexpr std::string_view kProtocol20260728 = "2026-07-28";  // stateless
// The version an initialize that asks for an unknown (or stateless) revision is answered with.
inline constexpr std::string_view kLatestSessionProtocol = kProtocol20251125;
// Where a 2026-07-28 request carries its revision.
inline constexpr std::string_view kMetaProtocolVersionKey =
    "io.modelcontextprotocol/protocolVersion";

const std::vector<std::string>& SupportedProtocolVersions();
bool IsSupportedProtocolVersion(std::string_view version);
// True for revisions with initialize and sessions (2025-06-18, 2025-11-25).
bool IsSessionProtocolVersion(std::string_view version);

// JSON-RPC 2.0 and MCP error codes.
namespace error_code {
inline constexpr int kParseError = -32700;
inline constexpr int kInvalidRequest = -32600;
inline constexpr int kMethodNotFound = -32601;
inline constexpr int kInvalidParams = -32602;
inline constexpr int kInternalError = -32603;
// 2026-07-28: HTTP routing headers disagree with the body; the request's revision is unknown.
inline constexpr int kHeaderMismatch = -32020;
inline constexpr int kUnsupportedProtocolVersion = -32022;
}  // namespace error_code

struct ServerOptions {
  // serverInfo.name / .version. Default: "engram" and the library's version.
  std::string name = "engram";
  std::string version = ENGRAM_MCP_VERSION;
  // A message (one request, as bytes) longer than this is refused. Default: 4 MiB.
  std::size_t max_message_bytes = 4 * 1024 * 1024;
  // Items and memories one call may return at most (memory_list limit, memory_recall k).
  // Default: 1000 / 200.
  std::size_t max_list_limit = 1000;
  std::size_t max_recall_k = 200;
  // Turns one memory_write call may carry at most. Default: 1000.
  std::size_t max_turns_per_write = 1000;
  // The scope the tools work in when a call names none (`engram mcp --scope`). Default: none.
  std::optional<Scope> default_scope;
  // Without default_scope, a caller whose grants (auth::Access::grants, an API key's) all name
  // one scope prefix works in that scope when a call names none. Default: true.
  bool default_scope_from_key = true;
};

// The scope a call of `access` that names none works in: options.default_scope, else (with
// default_scope_from_key) the one prefix all of the caller's grants name; nullopt when there is
// neither (the unrestricted caller, a key on '*' or on several prefixes).
std::optional<Scope> DefaultScope(const ServerOptions& options, const auth::Access& access);

// What one connection (a stdio process, an HTTP session) has negotiated. Owned by the transport.
struct Session {
  std::string protocol_version;  // set by initialize; empty before (and for stateless clients)
  bool initialized = false;      // notifications/initialized received
  std::string client_name;       // clientInfo.name, for logs
};

// One parsed incoming message, or the error reply to send when it could not be read.
struct ParsedMessage {
  std::optional<nlohmann::json> value;
  std::optional<io::Json> error_reply;  // set when value is not
};

class McpServer {
 public:
  explicit McpServer(Engine& engine, ServerOptions options = {});

  // Reads `text` as one JSON-RPC message: size, UTF-8, nesting depth (64), syntax and duplicate
  // keys are checked before anything else sees it.
  ParsedMessage Parse(std::string_view text) const;

  // Answers one message. Returns the reply for a request (a result or an error), nothing for a
  // notification or a response. Never throws.
  std::optional<io::Json> Handle(const nlohmann::json& message, Session& session,
                                 const auth::Access& access) const;

  // Parse + Handle + serialisation: the reply text (one line, no newline), or nullopt.
  std::optional<std::string> HandleMessage(std::string_view text, Session& session,
                                           const auth::Access& access) const;

  // The revision a request speaks: params._meta's protocol version when present (stateless
  // clients), else the session's.
  static std::string RequestProtocolVersion(const nlohmann::json& message, const Session& session);

  const ServerOptions& options() const { return options_; }

  // JSON-RPC envelopes.
  static io::Json ErrorReply(const io::Json& id, int code, std::string_view message,
                             const io::Json& data = nullptr);
  static io::Json ResultReply(const io::Json& id, io::Json result);

 private:
  io::Json Dispatch(const std::string& method, const nlohmann::json& params, Session& session,
                    const auth::Access& access, const io::Json& id) const;
  io::Json Initialize(const nlohmann::json& params, Session& session, const auth::Access& access,
                      const io::Json& id) const;
  io::Json Discover(const io::Json& id) const;
  io::Json ServerInfo() const;
  io::Json Capabilities() const;

  Engine& engine_;
  ServerOptions options_;
};

}  // namespace engram::mcp

#endif  // ENGRAM_MCP_SERVER_H_
