// The JSON-RPC and MCP lifecycle layer of the MCP server (see server.h); the tools are in
// tools.cc.
#include "mcp/server.h"

#include <exception>
#include <utility>

#include "core/json_depth.h"
#include "core/utf8.h"
#include "mcp/tools.h"
#include "server/api.h"

namespace engram::mcp {
namespace {

using nlohmann::json;

constexpr std::size_t kMaxDepth = 64;
// A string request id longer than this is refused (ids are echoed in every reply).
constexpr std::size_t kMaxIdBytes = 256;
// How long a client may cache what server/discover says (2026-07-28), in milliseconds.
constexpr std::int64_t kDiscoverTtlMs = 5 * 60 * 1000;

// What initialize and server/discover tell the model about the server; with a default scope,
// that the tools work in it.
std::string Instructions(const std::optional<Scope>& default_scope) {
  std::string text =
      "engram is a long-term memory for this conversation's user and agent. Store what is said "
      "with memory_write (verbatim turns";
  text += default_scope ? "; the tools work in scope " + default_scope->ToString() +
                              " unless a call names another"
                        : ", in a scope such as user:alice";
  text +=
      "); before answering a question that may depend on the past, call memory_recall with the "
      "question and answer from the returned context, following answer_instructions. Correct a "
      "stored turn with memory_amend; forget with memory_retire; memory_purge_scope erases for "
      "good.";
  return text;
}

// The request id as it must be echoed, or nullopt when the id is not a string or integer.
std::optional<io::Json> EchoId(const json& id) {
  if (id.is_string()) {
    if (id.get_ref<const std::string&>().size() > kMaxIdBytes) return std::nullopt;
    return io::Json(id.get<std::string>());
  }
  if (id.is_number_unsigned()) return io::Json(id.get<std::uint64_t>());
  if (id.is_number_integer()) return io::Json(id.get<std::int64_t>());
  return std::nullopt;
}

bool IsStateless(std::string_view version) { return version == kProtocol20260728; }

// Adds resultType where the stateless revision requires it on every result.
io::Json Finish(io::Json result, std::string_view version) {
  if (IsStateless(version) && result.is_object() && !result.contains("resultType")) {
    result["resultType"] = "complete";
  }
  return result;
}

}  // namespace

const std::vector<std::string>& SupportedProtocolVersions() {
  static const std::vector<std::string> versions = {std::string(kProtocol20250618),
                                                    std::string(kProtocol20251125),
                                                    std::string(kProtocol20260728)};
  return versions;
}

bool IsSupportedProtocolVersion(std::string_view version) {
  for (const std::string& supported : SupportedProtocolVersions()) {
    if (supported == version) return true;
  }
  return false;
}

bool IsSessionProtocolVersion(std::string_view version) {
  return version == kProtocol20250618 || version == kProtocol20251125;
}

std::optional<Scope> DefaultScope(const ServerOptions& options, const auth::Access& access) {
  if (options.default_scope) return options.default_scope;
  if (!options.default_scope_from_key || access.unrestricted() || access.grants().empty()) {
    return std::nullopt;
  }
  const Scope& prefix = access.grants().front().prefix;
  for (const auth::Grant& grant : access.grants()) {
    if (!(grant.prefix == prefix)) return std::nullopt;
  }
  // The root grant ('*') names every scope, so none in particular.
  if (prefix.empty()) return std::nullopt;
  return prefix;
}

McpServer::McpServer(Engine& engine, ServerOptions options)
    : engine_(engine), options_(std::move(options)) {}

io::Json McpServer::ErrorReply(const io::Json& id, int code, std::string_view message,
                               const io::Json& data) {
  io::Json error = io::Json::object();
  error["code"] = code;
  error["message"] = std::string(message);
  if (!data.is_null()) error["data"] = data;
  io::Json reply = io::Json::object();
  reply["jsonrpc"] = "2.0";
  reply["id"] = id;
  reply["error"] = std::move(error);
  return reply;
}

io::Json McpServer::ResultReply(const io::Json& id, io::Json result) {
  io::Json reply = io::Json::object();
  reply["jsonrpc"] = "2.0";
  reply["id"] = id;
  reply["result"] = std::move(result);
  return reply;
}

ParsedMessage McpServer::Parse(std::string_view text) const {
  ParsedMessage parsed;
  if (text.size() > options_.max_message_bytes) {
    parsed.error_reply =
        ErrorReply(nullptr, error_code::kInvalidRequest,
                   "message is " + std::to_string(text.size()) + " bytes; the limit is " +
                       std::to_string(options_.max_message_bytes));
    return parsed;
  }
  if (core::JsonNestingDepth(text, kMaxDepth + 1) > kMaxDepth) {
    parsed.error_reply =
        ErrorReply(nullptr, error_code::kInvalidRequest,
                   "message is nested deeper than " + std::to_string(kMaxDepth) + " levels");
    return parsed;
  }
  StatusOr<json> value = server::ParseJsonBody(text);
  if (!value.ok()) {
    std::string message = value.status().message();
    // ParseJsonBody speaks of a request body; here it is one JSON-RPC message.
    if (message.rfind("request body", 0) == 0) message.replace(0, 12, "message");
    parsed.error_reply = ErrorReply(nullptr, error_code::kParseError, message);
    return parsed;
  }
  parsed.value = *std::move(value);
  return parsed;
}

std::string McpServer::RequestProtocolVersion(const json& message, const Session& session) {
  if (message.is_object()) {
    const auto params = message.find("params");
    if (params != message.end() && params->is_object()) {
      const auto meta = params->find("_meta");
      if (meta != params->end() && meta->is_object()) {
        const auto version = meta->find(kMetaProtocolVersionKey);
        if (version != meta->end() && version->is_string()) return version->get<std::string>();
      }
    }
  }
  return session.protocol_version;
}

std::optional<io::Json> McpServer::Handle(const json& message, Session& session,
                                          const auth::Access& access) const {
  try {
    if (message.is_array()) {
      // JSON-RPC batches were removed from MCP in 2025-06-18; no revision this server speaks
      // allows them.
      return ErrorReply(nullptr, error_code::kInvalidRequest,
                        "JSON-RPC batches are not supported (MCP 2025-06-18 and later send one "
                        "message at a time)");
    }
    if (!message.is_object()) {
      return ErrorReply(nullptr, error_code::kInvalidRequest,
                        "a JSON-RPC message must be an object");
    }
    const auto id_field = message.find("id");
    const bool has_id = id_field != message.end();
    io::Json id = nullptr;
    if (has_id) {
      std::optional<io::Json> echoed = EchoId(*id_field);
      if (!echoed) {
        return ErrorReply(nullptr, error_code::kInvalidRequest,
                          "id must be a string (at most " + std::to_string(kMaxIdBytes) +
                              " bytes) or an integer");
      }
      id = *std::move(echoed);
    }
    const auto version = message.find("jsonrpc");
    if (version == message.end() || !version->is_string() || *version != "2.0") {
      return ErrorReply(id, error_code::kInvalidRequest, "jsonrpc must be \"2.0\"");
    }
    const auto method = message.find("method");
    if (method == message.end()) {
      // A response to a request of ours; this server sends none, so it is dropped.
      if (message.contains("result") || message.contains("error")) return std::nullopt;
      return ErrorReply(id, error_code::kInvalidRequest, "a request needs a method");
    }
    if (!method->is_string()) {
      return ErrorReply(id, error_code::kInvalidRequest, "method must be a string");
    }
    const auto params_field = message.find("params");
    static const json kNoParams = json::object();
    const json& params = params_field == message.end() ? kNoParams : *params_field;
    if (!params.is_object()) {
      // MCP's params are always objects (JSON-RPC's positional arrays are not used).
      if (!has_id) return std::nullopt;
      return ErrorReply(id, error_code::kInvalidParams, "params must be an object");
    }
    const std::string& name = method->get_ref<const std::string&>();
    if (!has_id) {
      // Notifications: nothing is answered, even for ones this server does not know.
      if (name == "notifications/initialized") session.initialized = true;
      return std::nullopt;
    }
    return Dispatch(name, params, session, access, id);
  } catch (const std::exception& error) {
    return ErrorReply(nullptr, error_code::kInternalError,
                      std::string("internal error: ") + error.what());
  }
}

io::Json McpServer::Dispatch(const std::string& method, const json& params, Session& session,
                             const auth::Access& access, const io::Json& id) const {
  if (method == "initialize") return Initialize(params, session, access, id);
  if (method == "server/discover") return Discover(id);

  // The revision this request speaks: its own _meta (stateless clients) or the session's.
  std::string version;
  const auto meta = params.find("_meta");
  if (meta != params.end() && meta->is_object()) {
    const auto requested = meta->find(kMetaProtocolVersionKey);
    if (requested != meta->end()) {
      if (!requested->is_string() || !IsSupportedProtocolVersion(requested->get<std::string>())) {
        io::Json data = io::Json::object();
        data["supported"] = SupportedProtocolVersions();
        data["requested"] =
            requested->is_string() ? io::Json(requested->get<std::string>()) : io::Json(nullptr);
        return ErrorReply(id, error_code::kUnsupportedProtocolVersion,
                          "unsupported protocol version", data);
      }
      version = requested->get<std::string>();
    }
  }
  if (version.empty()) version = session.protocol_version;

  if (method == "ping") return ResultReply(id, Finish(io::Json::object(), version));
  if (method == "tools/list") {
    const auto cursor = params.find("cursor");
    if (cursor != params.end() && !cursor->is_null()) {
      // Every tool fits on one page, so no cursor was ever handed out.
      return ErrorReply(id, error_code::kInvalidParams, "unknown cursor");
    }
    io::Json result = io::Json::object();
    result["tools"] = ToolDefinitions(options_, access);
    return ResultReply(id, Finish(std::move(result), version));
  }
  if (method == "tools/call") {
    const auto name = params.find("name");
    if (name == params.end() || !name->is_string()) {
      return ErrorReply(id, error_code::kInvalidParams, "tools/call needs params.name, a string");
    }
    const std::string& tool = name->get_ref<const std::string&>();
    if (!IsKnownTool(tool)) {
      return ErrorReply(
          id, error_code::kInvalidParams,
          "unknown tool: " + (core::IsValidUtf8(tool) && tool.size() <= 128 ? tool : "?") +
              " (tools/list names the tools)");
    }
    const auto arguments = params.find("arguments");
    static const json kNoArguments = json::object();
    const json& args =
        arguments == params.end() || arguments->is_null() ? kNoArguments : *arguments;
    if (!args.is_object()) {
      // The request itself is malformed (CallToolRequest's arguments are an object): a protocol
      // error, unlike an argument the tool refuses, which is a tool result with isError.
      return ErrorReply(id, error_code::kInvalidParams,
                        "tools/call params.arguments must be an object");
    }
    return ResultReply(id, Finish(CallTool(tool, args, engine_, access, options_), version));
  }
  return ErrorReply(
      id, error_code::kMethodNotFound,
      "method not found: " +
          (core::IsValidUtf8(method) && method.size() <= 128 ? method : std::string("?")));
}

io::Json McpServer::ServerInfo() const {
  io::Json info = io::Json::object();
  info["name"] = options_.name;
  info["title"] = "engram memory";
  info["version"] = options_.version;
  return info;
}

io::Json McpServer::Capabilities() const {
  io::Json tools = io::Json::object();
  tools["listChanged"] = false;
  io::Json capabilities = io::Json::object();
  capabilities["tools"] = std::move(tools);
  return capabilities;
}

io::Json McpServer::Initialize(const json& params, Session& session, const auth::Access& access,
                               const io::Json& id) const {
  const auto requested = params.find("protocolVersion");
  if (requested == params.end() || !requested->is_string()) {
    return ErrorReply(id, error_code::kInvalidParams,
                      "initialize needs params.protocolVersion, a string");
  }
  // The client's version when this server speaks it with a handshake; otherwise the latest
  // such version, which the client may accept or disconnect from.
  const std::string asked = requested->get<std::string>();
  session.protocol_version =
      IsSessionProtocolVersion(asked) ? asked : std::string(kLatestSessionProtocol);
  session.initialized = false;
  const auto client = params.find("clientInfo");
  if (client != params.end() && client->is_object()) {
    const auto client_name = client->find("name");
    if (client_name != client->end() && client_name->is_string()) {
      session.client_name = client_name->get<std::string>();
    }
  }
  io::Json result = io::Json::object();
  result["protocolVersion"] = session.protocol_version;
  result["capabilities"] = Capabilities();
  result["serverInfo"] = ServerInfo();
  result["instructions"] = Instructions(DefaultScope(options_, access));
  return ResultReply(id, std::move(result));
}

io::Json McpServer::Discover(const io::Json& id) const {
  io::Json result = io::Json::object();
  result["supportedVersions"] = SupportedProtocolVersions();
  result["capabilities"] = Capabilities();
  result["serverInfo"] = ServerInfo();
  // What is described here is the same for every caller (the default scope a caller's key
  // brings shows in its initialize and tools/list, never here).
  result["instructions"] = Instructions(options_.default_scope);
  result["cacheScope"] = "public";
  result["ttlMs"] = kDiscoverTtlMs;
  result["resultType"] = "complete";
  return ResultReply(id, std::move(result));
}

std::optional<std::string> McpServer::HandleMessage(std::string_view text, Session& session,
                                                    const auth::Access& access) const {
  ParsedMessage parsed = Parse(text);
  if (!parsed.value) return io::Dump(*parsed.error_reply);
  std::optional<io::Json> reply = Handle(*parsed.value, session, access);
  if (!reply) return std::nullopt;
  return io::Dump(*reply);
}

}  // namespace engram::mcp
