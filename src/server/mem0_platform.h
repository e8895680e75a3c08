// mem0_platform: the routes of mem0's platform (hosted) API, so `MemoryClient` of the npm and
// Python `mem0ai` packages works against `engram serve` with `host` pointed at it and an engram
// API key as its `Authorization: Token` (any token without --keys, on loopback). They are
// transport-free like the self-hosted routes (mem0_api.h), and most of them are those routes
// with the platform's request shapes mapped onto them: one identifiers-to-scopes mapping, one
// filter language (mem0_filter.h), one add with its ADD / UPDATE / NONE events.
//
//   engram::server::Mem0PlatformApi platform(*engine, {});  // must outlive the server
//   http.AddRoutes(engram::server::CombineRoutes(v1.Routes(), platform.Routes()));
//
// What differs from mem0's platform (docs/API.md, "mem0-compatible routes"): add answers at once
// with the stored memories' events (the platform queues them and answers with an event id);
// app_id, categories, timestamps, expiration dates and reference dates are refused with a 422
// naming the field (engram would otherwise silently ignore what they ask for); options that only
// steer mem0's LLM or its result format are accepted and ignored. Errors are FastAPI's
// {"detail": ...} bodies, as on the self-hosted routes.
//
// Thread-safety: as Mem0Api, the handlers keep no state besides the engine and the options.
#ifndef ENGRAM_SERVER_MEM0_PLATFORM_H_
#define ENGRAM_SERVER_MEM0_PLATFORM_H_

#include <cstddef>

#include "engram/engine.h"
#include "server/api.h"
#include "server/mem0_api.h"

namespace engram::server {

struct Mem0PlatformOptions {
  // The self-hosted routes' limits, which the platform routes share.
  Mem0Options mem0;
  // Entries per page of POST /v3/memories/ and GET /v1/entities/ when the query gives no
  // page_size. Default: 100.
  std::size_t default_page_size = 100;
  // Largest page_size accepted (a larger one is a 422). Default: 1000.
  std::size_t max_page_size = 1000;
  // Memories one PUT or DELETE /v1/batch/ may name (more is a 422). Default: 1000 (mem0's).
  std::size_t max_batch = 1000;
};

class Mem0PlatformApi {
 public:
  // `engine` must outlive this object.
  Mem0PlatformApi(Engine& engine, Mem0PlatformOptions options);

  // Every platform route, handlers bound to this object. Two of them, GET /v1/memories/{id} and
  // GET /v1/memories/{id}/history, are also native routes: mount them with CombineRoutes.
  RouteList Routes();

  // GET /v1/ping/ -> {"status": "ok", ...}: the key works.
  ApiResponse Ping(const ApiRequest& request);
  // POST /v3/memories/add/ (and v1's POST /v1/memories/): {"messages", "user_id"?, "agent_id"?,
  // "run_id"?, "metadata"?, "infer"?} -> the self-hosted add's {"results": [{"id", "memory",
  // "event"}]}.
  ApiResponse Add(const ApiRequest& request);
  // POST /v3/memories/search/ (v2's and v1's too): {"query", "filters", "top_k"?, "threshold"?,
  // "metadata"?} -> {"results": [...]}. The identifiers come from the filters (or the body).
  ApiResponse Search(const ApiRequest& request);
  // POST /v3/memories/?page=&page_size= (v2's too): {"filters", "start_date"?, "end_date"?}
  // -> {"count", "next", "previous", "results"}: the identifiers' active memories that pass the
  // filters, in the order they were added.
  ApiResponse List(const ApiRequest& request);
  // GET /v1/memories/{id}/: the memory, or its current version when it was updated.
  ApiResponse Get(const ApiRequest& request);
  // PUT /v1/memories/{id}/: {"text"?, "metadata"?} (one at least) -> the updated memory.
  ApiResponse Update(const ApiRequest& request);
  // DELETE /v1/memories/{id}/ -> retires the memory.
  ApiResponse Delete(const ApiRequest& request);
  // GET /v1/memories/{id}/history/ -> the self-hosted route's history.
  ApiResponse History(const ApiRequest& request);
  // DELETE /v1/memories/?user_id=&agent_id=&run_id= -> the self-hosted delete-all.
  ApiResponse DeleteAll(const ApiRequest& request);
  // GET /v1/entities/?page=&page_size= -> {"count", "next", "previous", "results": [{"id",
  // "name", "type", "total_memories", "created_at", "updated_at", ...}]}: every user, agent and
  // run with active memories the caller may read.
  ApiResponse Entities(const ApiRequest& request);
  // DELETE /v1/entities/{entity_type}/{entity_id}/ (v2's too): delete-all of that identifier.
  ApiResponse DeleteEntity(const ApiRequest& request);
  // PUT /v1/batch/ {"memories": [{"memory_id", "text", "metadata"?}]} and DELETE /v1/batch/
  // {"memories": [{"memory_id"}]}: every entry is checked (exists, may be changed, named once)
  // before any is applied; then each is an update or a delete.
  ApiResponse BatchUpdate(const ApiRequest& request);
  ApiResponse BatchDelete(const ApiRequest& request);

 private:
  ApiResponse Batch(const ApiRequest& request, bool update);

  Engine& engine_;
  Mem0PlatformOptions options_;
  Mem0Api self_hosted_;
};

// The routes `engram serve` mounts: `native` (the /v1 API) and the platform's. Where a platform
// route has a native route's method and pattern (GET /v1/memories/{id} and its /history), one
// route serves both: mem0's clients always end those paths with '/', so a request whose path
// ends with '/' gets mem0's answer and one without it the native answer.
RouteList CombineRoutes(RouteList native, RouteList platform);

}  // namespace engram::server

#endif  // ENGRAM_SERVER_MEM0_PLATFORM_H_
