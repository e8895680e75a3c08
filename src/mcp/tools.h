// The nine memory tools of WorldDB §7 as MCP tools, and two for consolidation: their definitions
// (name, description, inputSchema, outputSchema, annotations) and how a call runs against the
// Engine.
//
//   memory_write        scope + turns -> ids              write right
//   memory_recall       scope + query -> context + items  read right
//   memory_list         scope, kind, limit, after         read right
//   memory_read         id -> memory (+ links, history)   read right on the memory's scope
//   memory_amend        id + text (+ reason) -> new id    write right
//   memory_retire       id (+ reason)                     write right
//   memory_retire_all   scope                             write right
//   memory_purge_scope  scope + confirm: true (erase)     erase right
//   memory_list_scopes  -> the scopes the caller may read read right
//   memory_consolidate  scope -> episodes, scenes, profiles write right
//   memory_structure    scope + what (episodes | scenes   read right
//                       | profile | foresight)
//
// Each tool's arguments are checked against one table that also yields its inputSchema, so the
// schema a client sees and the checks the server runs cannot drift apart. Results carry the
// io::ToJson shapes (the ones `engram --json` and the REST API print) as structuredContent, and
// the same JSON as one text content item for clients that read only text.
//
// A memory whose scope the caller may not read is reported as not found, never as forbidden.
#ifndef ENGRAM_MCP_TOOLS_H_
#define ENGRAM_MCP_TOOLS_H_

#include <nlohmann/json.hpp>
#include <string_view>

#include "auth/access.h"
#include "engram/engine.h"
#include "io/api_json.h"
#include "mcp/server.h"

namespace engram::mcp {

// The tools/list entries, in a fixed order.
io::Json ToolDefinitions(const ServerOptions& options);
bool IsKnownTool(std::string_view name);

// Runs the tool `name` (which IsKnownTool) with `arguments` (any JSON value; a non-object is an
// isError result). Returns a CallToolResult: {content, structuredContent, isError}.
io::Json CallTool(std::string_view name, const nlohmann::json& arguments, Engine& engine,
                  const auth::Access& access, const ServerOptions& options);

}  // namespace engram::mcp

#endif  // ENGRAM_MCP_TOOLS_H_
