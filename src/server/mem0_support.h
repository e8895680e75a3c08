// mem0_support: what the mem0 route handlers share (mem0_api.cc, the self-hosted routes, and
// mem0_platform.cc, the platform routes): FastAPI's error bodies, body and field checks, the
// identifiers-to-scope mapping, rights, the mem0 shape of a memory and the update chain. Not a
// public interface: only the mem0 handlers include it.
//
//   std::optional<ApiResponse> failed = ParseObjectBody(request, max_bytes, &body);
//   MEM0_RETURN_IF_ERROR(ScopeOf(ids, &scope));  // returns the error response, if any
//
// Every function is stateless and may run concurrently.
#ifndef ENGRAM_SERVER_MEM0_SUPPORT_H_
#define ENGRAM_SERVER_MEM0_SUPPORT_H_

#include <cstddef>
#include <exception>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "engram/engine.h"
#include "server/api.h"
#include "server/mem0_filter.h"

namespace engram::server::mem0_support {

// Returns the error response a helper produced, if any.
#define MEM0_RETURN_IF_ERROR(expr)                     \
  do {                                                 \
    if (std::optional<ApiResponse> failed_ = (expr)) { \
      return *std::move(failed_);                      \
    }                                                  \
  } while (false)

// Longest chain of updates History and CurrentMemory follow.
constexpr std::size_t kMaxUpdateChain = 256;

constexpr std::string_view kMissingIdentifier =
    "At least one identifier (user_id, agent_id, run_id) is required.";
constexpr std::string_view kMemoryNotFound = "Memory not found";

using Identifiers = Mem0Identifiers;

// ---------------------------------------------------------------------------------------------
// Error bodies: FastAPI's shapes.

// {"detail": message} with `status`.
ApiResponse Detail(int status, std::string message);
// A 422 validation error: {"detail": [{"loc": [...], "msg": "...", "type": "..."}]}.
ApiResponse Invalid(std::vector<io::Json> loc, std::string message, std::string type);
// A 422 on a body field: loc ["body", field], msg "field: message".
ApiResponse InvalidField(std::string_view field, std::string message, std::string type);
// A handler's last resort: an exception (from the JSON library, an allocation) is a 500.
ApiResponse Unexpected(const std::exception& error);
// An engine failure as {"detail": message} with HttpStatusFor's status.
ApiResponse EngineError(const Status& status);

// "object", "array", "string", "number", ... for messages.
std::string_view TypeName(const nlohmann::json& value);

// ---------------------------------------------------------------------------------------------
// Request bodies.

// Parses the body as a JSON object, whatever its Content-Type: 413 when larger than
// `max_bytes`, 422 when not JSON or not an object.
std::optional<ApiResponse> ParseObjectBody(const ApiRequest& request, std::size_t max_bytes,
                                           nlohmann::json* body);
// Refuses a key that is neither `known` nor `ignored` (mem0 options engram accepts and does not
// need), naming it.
std::optional<ApiResponse> CheckFields(const nlohmann::json& body,
                                       const std::set<std::string_view>& known,
                                       const std::set<std::string_view>& ignored);
// An optional string field: absent and null leave `out` empty.
std::optional<ApiResponse> OptionalString(const nlohmann::json& body, std::string_view field,
                                          std::optional<std::string>* out);
// An optional positive integer field no larger than `max`.
std::optional<ApiResponse> OptionalCount(const nlohmann::json& body, std::string_view field,
                                         std::size_t max, std::optional<std::size_t>* out);

// ---------------------------------------------------------------------------------------------
// Identifiers, scopes and rights.

// mem0 treats an empty identifier as absent.
void DropEmpty(Identifiers* ids);
// user_id / agent_id / run_id of a body (422 when one is not a string).
std::optional<ApiResponse> IdentifiersFromBody(const nlohmann::json& body, Identifiers* ids);
// user_id / agent_id / run_id of the query string.
Identifiers IdentifiersFromQuery(const ApiRequest& request);
// The scope the identifiers name: user, then agent, then run, nested in that order. 400 when
// none is given or one is not a valid scope name (naming the field).
std::optional<ApiResponse> ScopeOf(const Identifiers& ids, Scope* scope);
// The stored scopes holding memories of the identifiers of `named` (a field match: each
// identifier it gives is the scope's, whatever else the scope has), in path order.
StatusOr<std::vector<Scope>> ScopesWithIdentifiers(Engine& engine, const Scope& named);
// 403 {"detail"} unless the caller holds `right` on `scope`.
std::optional<ApiResponse> RequireRight(const ApiRequest& request, const Scope& scope,
                                        auth::Right right);
// Whether the caller may read the scope at `scope_path`.
bool MayRead(const ApiRequest& request, std::string_view scope_path);

// ---------------------------------------------------------------------------------------------
// Memories.

// mem0's `hash`: engram's is SHA-256 of the text (first 128 bits), not mem0's MD5. Opaque.
std::string TextHash(std::string_view text);
// A memory in mem0's shape; `score` for search results. engram's own fields go under "engram".
io::Json Mem0Item(const Memory& memory, std::optional<double> score);
// The path parameter naming a memory ("memory_id", else "id"); "" when there is none.
std::string MemoryIdParam(const ApiRequest& request);
// The memory `id`, as the caller may see it: 404 when it does not exist, is malformed or lies in
// a scope the caller cannot read (never 403, so ids reveal nothing about other tenants).
std::optional<ApiResponse> ReadableMemory(Engine& engine, const ApiRequest& request,
                                          std::string_view id, Memory* memory);
// The neighbour of `id` along supersedes edges ("src supersedes dst"): its successor (the
// memory that superseded it) when `forward`, else its predecessor. "" when there is none.
StatusOr<std::string> UpdateNeighbour(Engine& engine, std::string_view id, bool forward);
// The current version of a memory: an updated (superseded) memory resolves to the memory that
// replaced it, so a mem0 id keeps naming "the same memory" across updates. 404 when the current
// version is retired (deleted) or was never readable.
std::optional<ApiResponse> CurrentMemory(Engine& engine, const ApiRequest& request,
                                         std::string_view id, Memory* memory);

}  // namespace engram::server::mem0_support

#endif  // ENGRAM_SERVER_MEM0_SUPPORT_H_
