// mem0_api: handlers of mem0's self-hosted REST routes, so a client written for mem0's server
// works unchanged against `engram serve`. They are transport-free (ApiRequest in, ApiResponse
// out, see api.h); the HTTP server mounts Routes() next to the native /v1 routes.
//
//   engram::server::Mem0Api mem0(*engine, {});  // must outlive the server that mounts it
//   for (const engram::server::Mem0Route& route : mem0.Routes()) {
//     // route.method "PUT", route.pattern "/memories/{memory_id}", route.handler(request)
//   }
//
// Identifiers become scopes: user_id "alice" is `user:alice`, agent_id `agent:<id>`, run_id
// `run:<id>`, nested in that order (`user:alice/agent:bot/run:7`). A write goes to the most
// specific scope its identifiers name; a search covers that scope and every scope nested in it,
// so a search by user_id alone finds what was written with user_id and run_id; list and
// delete-all match the identifiers field by field, as mem0 does (agent_id alone reaches the
// agent's memories under every user). docs/MEM0.md has the whole mapping and every difference
// from mem0.
//
// Responses use mem0's shapes ({"results": [...]}, {"message": ...}) and FastAPI's errors:
// {"detail": "..."} for 400 / 403 / 404 / 413 and {"detail": [{"loc", "msg", "type"}]} for 422
// validation errors, `loc` naming the field. What engram adds (provenance, route scores and
// explanations, scopes, statuses) is under a separate "engram" key of each item. Nothing is
// stored when a request fails.
//
// Thread-safety: the handlers keep no state besides the engine reference and the options; they
// may run concurrently (the engine serialises writes).
#ifndef ENGRAM_SERVER_MEM0_API_H_
#define ENGRAM_SERVER_MEM0_API_H_

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engram/engine.h"
#include "server/api.h"
#include "server/mem0_filter.h"

namespace engram::server {

struct Mem0Options {
  // Search results when the request gives neither top_k nor limit. Default: 100 (mem0's).
  std::size_t default_top_k = 100;
  // Largest top_k / limit accepted (a larger one is a 422). Default: 1000.
  std::size_t max_top_k = 1000;
  // Memories recalled before `filters` and `threshold` are applied, when either is given; the
  // first top_k that pass are returned. Default: 200.
  std::size_t filter_window = 200;
  // Largest request body accepted (a larger one is a 413). Default: 4 MiB.
  std::size_t max_body_bytes = 4 * 1024 * 1024;
  // Messages per POST /memories at most (more is a 422). Default: 1000.
  std::size_t max_messages = 1000;
  // Entries GET /memories returns when the query gives no `limit`. Default: 100 (mem0's).
  std::size_t default_list_limit = 100;
  // DELETE /memories erases the identifiers' scope (hard delete, needs the erase right) instead
  // of retiring its memories (kept, hidden, needs the write right). Default: false.
  bool delete_all_erases = false;
};

// A mem0 route is a Route (api.h): method, pattern with `{name}` parameters the server copies
// into ApiRequest::path_params, and the handler.
using Mem0Route = Route;

class Mem0Api {
 public:
  // `engine` must outlive this object.
  Mem0Api(Engine& engine, Mem0Options options);

  // The nine routes of mem0's self-hosted server, handlers bound to this object.
  RouteList Routes();

  // POST /memories: {"messages": [{"role", "content", "name"?}], "user_id"?, "agent_id"?,
  // "run_id"?, "metadata"?, "infer"?} -> {"results": [{"id", "memory", "event", ...}]}, one per
  // message: with infer (the default) NONE for a message identical to an active memory of the
  // scope (not stored again), UPDATE for one whose derived fact supersedes a stored memory's
  // ("previous_memory"), else ADD; without infer every message is stored, ADD.
  ApiResponse AddMemories(const ApiRequest& request);
  // POST /search: {"query", identifiers, "top_k"? | "limit"?, "threshold"?, "filters"?}
  // -> {"results": [{"id", "memory", "hash", "metadata", "score", ...}]}.
  ApiResponse Search(const ApiRequest& request);
  // GET /memories?user_id=&agent_id=&run_id=&limit= -> {"results": [...]}: the active memories
  // of every scope with the identifiers, in the order they were added.
  ApiResponse ListMemories(const ApiRequest& request);
  // GET /memories/{memory_id}: the memory, or its current version when it was updated.
  ApiResponse GetMemory(const ApiRequest& request);
  // PUT /memories/{memory_id}: {"text" | "data": "...", "metadata"?} -> Engine::Amend.
  ApiResponse UpdateMemory(const ApiRequest& request);
  // DELETE /memories/{memory_id} -> Engine::Retire.
  ApiResponse DeleteMemory(const ApiRequest& request);
  // GET /memories/{memory_id}/history -> [{"id", "memory_id", "old_memory", "new_memory",
  // "event", "created_at", ...}], oldest first, over the memory's whole update chain.
  ApiResponse History(const ApiRequest& request);
  // DELETE /memories?user_id=&agent_id=&run_id= -> Engine::RetireAll (or Erase, see options) of
  // every scope with the identifiers: exactly what GET /memories lists for them.
  ApiResponse DeleteAll(const ApiRequest& request);
  // POST /reset: erases every scope. Server administrators only.
  ApiResponse Reset(const ApiRequest& request);

 private:
  Engine& engine_;
  Mem0Options options_;
};

}  // namespace engram::server

#endif  // ENGRAM_SERVER_MEM0_API_H_
