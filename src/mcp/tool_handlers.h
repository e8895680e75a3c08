// How each of the fourteen tools runs against the Engine (tools.h lists them): one function per
// tool from a Call whose arguments tools.cc has checked against the tool's specs and whose target
// (the scope, or the memory an id names) it has resolved, with the caller's right on it checked.
// Each returns the tool's output — the JSON tools.cc sends as structuredContent and as the text
// item — or an error status, which becomes an isError result.
//
//   Call call{.args = arguments, .engine = engine, .access = access, .options = options};
//   call.scope = *scope;  // the tool's target, right checked
//   StatusOr<io::Json> output = RunRecall(call);
//
// Internal to engram_mcp. Thread-safety: as the Engine; a Call is one request's.
#ifndef ENGRAM_MCP_TOOL_HANDLERS_H_
#define ENGRAM_MCP_TOOL_HANDLERS_H_

#include <cstdint>
#include <nlohmann/json.hpp>

#include "auth/access.h"
#include "engram/engine.h"
#include "engram/status.h"
#include "engram/types.h"
#include "io/api_json.h"
#include "mcp/server.h"

namespace engram::mcp {

// Longest speaker name memory_write's turns and memory_amend take.
inline constexpr std::int64_t kMaxSpeakerBytes = 1024;

// One call, with its target resolved and the caller's right on it checked.
struct Call {
  const nlohmann::json& args;
  Engine& engine;
  const auth::Access& access;
  const ServerOptions& options;
  Scope scope;     // Target::kScope
  Memory memory;   // Target::kMemory
  GraphEdge edge;  // Target::kEdge
};

using Runner = StatusOr<io::Json> (*)(const Call& call);

StatusOr<io::Json> RunWrite(const Call& call);        // memory_write
StatusOr<io::Json> RunRecall(const Call& call);       // memory_recall
StatusOr<io::Json> RunList(const Call& call);         // memory_list
StatusOr<io::Json> RunRead(const Call& call);         // memory_read
StatusOr<io::Json> RunAmend(const Call& call);        // memory_amend
StatusOr<io::Json> RunRetire(const Call& call);       // memory_retire
StatusOr<io::Json> RunRetireAll(const Call& call);    // memory_retire_all
StatusOr<io::Json> RunPurgeScope(const Call& call);   // memory_purge_scope
StatusOr<io::Json> RunListScopes(const Call& call);   // memory_list_scopes
StatusOr<io::Json> RunConsolidate(const Call& call);  // memory_consolidate
StatusOr<io::Json> RunStructure(const Call& call);    // memory_structure
StatusOr<io::Json> RunGraph(const Call& call);        // memory_graph
StatusOr<io::Json> RunLink(const Call& call);         // memory_link
StatusOr<io::Json> RunUnlink(const Call& call);       // memory_unlink

}  // namespace engram::mcp

#endif  // ENGRAM_MCP_TOOL_HANDLERS_H_
