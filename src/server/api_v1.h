// V1Api: the native REST API, `/v1/...`, covering the Engine API (engine.h) with the JSON shapes
// of io/api_json.h. docs/API.md documents each route; GET /v1/openapi.json describes them.
//
//   engram::server::V1Api api(*engine, engram::server::ApiLimits{}, &server.metrics());
//   server.AddRoutes(api.Routes());
//
// Scopes appear in paths in their Scope::ToString form, segments percent-encoded as needed:
// /v1/scopes/app:crm/user:alice/memories (the '/' between scope segments may also be sent as
// %2F). Every handler checks the caller's Access against each scope it touches, including the
// scope of each memory id it reads: a memory the caller may not read is 404, never 403.
//
// Bad input is 400 naming the field: malformed JSON, a wrong type, an unknown field, a negative,
// fractional or out-of-range number, a value over a limit of ApiLimits. Nothing is stored on any
// error (a batch of turns is validated whole before Remember, which is atomic too).
//
// Thread-safety: the handlers may run concurrently (the Engine serialises writes).
#ifndef ENGRAM_SERVER_API_V1_H_
#define ENGRAM_SERVER_API_V1_H_

#include <cstddef>
#include <set>
#include <string>
#include <string_view>

#include "auth/access.h"
#include "engram/engine.h"
#include "server/api.h"
#include "server/metrics.h"

namespace engram::server {

// Request limits of the REST routes (the body size limit is ServerOptions::max_body_bytes).
struct ApiLimits {
  // Turns in one POST /v1/scopes/{scope}/memories. Default: 1000.
  std::size_t max_turns_per_request = 1000;
  // Bytes of a recall query. Default: 4096.
  std::size_t max_query_bytes = 4096;
  // Largest recall k. Default: 200.
  std::size_t max_k = 200;
  // Largest recall token_budget. Default: 100000.
  std::size_t max_token_budget = 100000;
  // Largest ?limit= of a memory listing. Default: 1000.
  std::size_t max_list_limit = 1000;
  // Memories one timeline page examines at most while filtering (TimelineFilter::max_scanned),
  // so a filter that matches rarely in a large scope still answers quickly. Default: 10000.
  std::size_t max_timeline_scan = 10000;
};

// The memory `id` if the caller may read it. kNotFound ("memory <id> not found") both for an
// unknown id and for a memory of a scope the caller cannot read; kInvalidArgument for a
// malformed id. For the other route groups (mem0, MCP) too.
StatusOr<Memory> ReadableMemory(Engine& engine, const auth::Access& access, std::string_view id);

class V1Api {
 public:
  explicit V1Api(Engine& engine, ApiLimits limits = {}, Metrics* metrics = nullptr)
      : engine_(engine), limits_(limits), metrics_(metrics) {}

  // Every /v1 route, GET /v1/openapi.json included.
  RouteList Routes();

  // The handlers, public so tests can call them without HTTP.
  ApiResponse Remember(const ApiRequest& request);
  ApiResponse ListMemories(const ApiRequest& request);
  ApiResponse Timeline(const ApiRequest& request);
  ApiResponse Recall(const ApiRequest& request);
  ApiResponse Context(const ApiRequest& request);
  ApiResponse RetireAll(const ApiRequest& request);
  ApiResponse EraseScope(const ApiRequest& request);
  ApiResponse ListScopes(const ApiRequest& request);
  ApiResponse Facts(const ApiRequest& request);
  ApiResponse Entities(const ApiRequest& request);
  // Consolidation (Engine::Consolidate) and what it stored: episodes, scenes, profiles, and the
  // foresight valid at a time (server/scope_views.h).
  ApiResponse Consolidate(const ApiRequest& request);
  ApiResponse Episodes(const ApiRequest& request);
  ApiResponse Scenes(const ApiRequest& request);
  ApiResponse Profile(const ApiRequest& request);
  ApiResponse Foresight(const ApiRequest& request);
  ApiResponse ListProposals(const ApiRequest& request);
  ApiResponse GetMemory(const ApiRequest& request);
  ApiResponse History(const ApiRequest& request);
  ApiResponse Links(const ApiRequest& request);
  ApiResponse Retire(const ApiRequest& request);
  ApiResponse Amend(const ApiRequest& request);
  ApiResponse Propose(const ApiRequest& request);
  ApiResponse AcceptProposal(const ApiRequest& request);
  ApiResponse RejectProposal(const ApiRequest& request);
  // The world graph (engram/graph.h): queries from a memory the caller may read (404 otherwise),
  // naming only memories it may read; client edges of the types declared in [graph] edge_types.
  ApiResponse Neighbours(const ApiRequest& request);
  ApiResponse Paths(const ApiRequest& request);
  ApiResponse IdentityClass(const ApiRequest& request);
  ApiResponse EdgeTypes(const ApiRequest& request);
  ApiResponse AddEdge(const ApiRequest& request);
  ApiResponse GetEdge(const ApiRequest& request);
  ApiResponse RetireEdge(const ApiRequest& request);
  ApiResponse RebuildIndex(const ApiRequest& request);
  ApiResponse Info(const ApiRequest& request);
  ApiResponse OpenApi(const ApiRequest& request);

 private:
  ApiResponse DecideProposal(const ApiRequest& request, bool accept);
  ApiResponse ConsolidatedListing(const ApiRequest& request, NodeKind kind);
  // The query parameters every graph query takes, into *options.
  Status GraphQuery(const ApiRequest& request, const std::set<std::string>& allowed,
                    GraphQueryOptions* options) const;
  // The edge `id` if the caller may read it and both its ends: kNotFound otherwise.
  StatusOr<GraphEdge> ReadableEdge(const ApiRequest& request, std::string_view id);

  Engine& engine_;
  ApiLimits limits_;
  Metrics* metrics_;
};

}  // namespace engram::server

#endif  // ENGRAM_SERVER_API_V1_H_
