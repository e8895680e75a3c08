// The world graph operations behind Engine::Neighbours, Paths, IdentityClass, AddEdge, GetEdge
// and RetireEdge (include/engram/graph.h). They read and write the store directly; engine.cc
// calls them with its store, its edge registry and the clock's time, holding its write mutex for
// the writes.
//
// Queries are read-only: each builds a GraphReader that applies the recall's visibility rules
// (read/visibility.h) to memories and, with the same rules, to edges (an edge's status as of
// known_at is read back from its journal entries, as a memory's is). Writes go through the edge
// registry like engram's own edges, in one transaction: all of it commits or none of it does.
//
// Internal to engram_engine. Thread-safety: as the store; the functions keep no state.
#ifndef ENGRAM_ENGINE_GRAPH_OPS_H_
#define ENGRAM_ENGINE_GRAPH_OPS_H_

#include <string_view>

#include "engram/config.h"
#include "engram/graph.h"
#include "engram/status.h"
#include "engram/types.h"
#include "store/store.h"
#include "write/edge_registry.h"

namespace engram::graph_ops {

// Registers the client edge types of config.graph.edge_types in `registry`. kInvalidArgument
// naming "[graph] edge_types" and the bad entry.
Status RegisterConfiguredEdgeTypes(write::EdgeRegistry& registry, const Config& config);

// What a graph operation works on.
struct GraphContext {
  store::Store& store;
  const write::EdgeRegistry& registry;
  Timestamp now;  // the query time (visibility without as-of) and a write's transaction time
};

StatusOr<NeighboursResult> Neighbours(const GraphContext& context, std::string_view id,
                                      const GraphQueryOptions& options);
StatusOr<PathsResult> Paths(const GraphContext& context, std::string_view from, std::string_view to,
                            const GraphQueryOptions& options);
StatusOr<IdentityClassResult> IdentityClass(const GraphContext& context, std::string_view entity_id,
                                            const GraphQueryOptions& options);

std::vector<EdgeTypeInfo> EdgeTypes(const write::EdgeRegistry& registry);
// Engine::AddEdge in one write transaction of its own; the caller holds the engine's write lock.
StatusOr<GraphEdge> AddEdge(const GraphContext& context, const Scope& scope, const NewEdge& edge);
StatusOr<GraphEdge> GetEdge(const GraphContext& context, std::string_view edge_id);
Status RetireEdge(const GraphContext& context, std::string_view edge_id);

}  // namespace engram::graph_ops

#endif  // ENGRAM_ENGINE_GRAPH_OPS_H_
