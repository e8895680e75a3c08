// engram's fourteen MCP tools: the nine memory tools of WorldDB §7, two for consolidation and
// three for the world graph. Their definitions (name, description, inputSchema, outputSchema,
// annotations) and how a call runs against the Engine.
//
//   memory_write        scope + turns -> ids              write right
//   memory_recall       scope + query -> context + refs   read right
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
//   memory_graph        id + what (neighbours | paths     read right on the memory's scope
//                       | identity), as of a time
//   memory_link         scope + type, src, dst -> edge    write right
//   memory_unlink       edge id -> retired edge           write right on the edge's scope
//
// Each tool's arguments are checked against one table that also yields its inputSchema, so the
// schema a client sees and the checks the server runs cannot drift apart; the same table names
// the right a tool needs and what it is checked on (the scope argument or the memory's scope).
// Results carry the io::ToJson shapes (the ones `engram --json` and the REST API print) as
// structuredContent, and the same JSON as one text content item for clients that read only text.
// memory_recall is the exception: its result is sized to the token budget, the packed context
// once and the items as references (id, score, provenance) without their text, in one text
// content item and no structuredContent (hosts differ in which of the two they show the model;
// with both, the context would be sent twice).
//
// Errors are tool results with isError and one text item "CODE: message": engram's status code,
// or PERMISSION_DENIED naming the right the caller lacks (as REST's 403). A memory whose scope
// the caller may not read is reported as not found, never as forbidden.
//
// tools.cc holds the table and the dispatch, tool_args.* the argument specs (schema and checks),
// tool_handlers.* what each tool does with the Engine.
#ifndef ENGRAM_MCP_TOOLS_H_
#define ENGRAM_MCP_TOOLS_H_

#include <nlohmann/json.hpp>
#include <string_view>

#include "auth/access.h"
#include "engram/engine.h"
#include "io/api_json.h"
#include "mcp/server.h"

namespace engram::mcp {

// The tools/list entries for `access`, in a fixed order: with a default scope (DefaultScope),
// `scope` is optional where a tool allows it and the descriptions name the default.
io::Json ToolDefinitions(const ServerOptions& options, const auth::Access& access);
bool IsKnownTool(std::string_view name);

// Runs the tool `name` (which IsKnownTool) with `arguments` (any JSON value; a non-object is an
// isError result). Returns a CallToolResult: {content, structuredContent, isError}
// (memory_recall: {content, isError}).
io::Json CallTool(std::string_view name, const nlohmann::json& arguments, Engine& engine,
                  const auth::Access& access, const ServerOptions& options);

}  // namespace engram::mcp

#endif  // ENGRAM_MCP_TOOLS_H_
