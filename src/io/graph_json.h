// graph_json: the JSON shapes of the world graph's results (include/engram/graph.h), shared by
// `engram graph --json`, the REST routes, the MCP tools and Python's to_dict, so every interface
// speaks the same shapes (docs/API.md documents them). Conventions as api_json.h: keys in a
// fixed order, times ISO-8601 or null, enums by their lowercase names, attributes as objects.
//
//   std::cout << engram::io::Dump(engram::io::ToJson(neighbours), /*pretty=*/true);
#ifndef ENGRAM_IO_GRAPH_JSON_H_
#define ENGRAM_IO_GRAPH_JSON_H_

#include <string_view>
#include <vector>

#include "engram/graph.h"
#include "engram/status.h"
#include "io/api_json.h"

namespace engram::io {

// {"id", "kind", "scope", "text", "status", "valid_from", "valid_to"}
Json ToJson(const GraphNode& node);
// {"id", "type", "src", "dst", "scope", "status", "valid_from", "valid_to", "ingested_at",
//  "attrs"}
Json ToJson(const GraphEdge& edge);
// {"node", "count", "neighbours": [{"direction": "out"|"in", "edge", "node"}], "truncated"}
Json ToJson(const NeighboursResult& result);
// {"from", "to", "count", "paths": [{"length", "nodes": [ids], "edges": [edge]}], "nodes":
//  [node], "truncated"}
Json ToJson(const PathsResult& result);
// {"entity", "count", "members": [node], "edges": [edge], "truncated"}
Json ToJson(const IdentityClassResult& result);
// {"name", "builtin", "single_valued", "symmetric", "transitive"}
Json ToJson(const EdgeTypeInfo& type);
// {"count", "edge_types": [type]}
Json EdgeTypesToJson(const std::vector<EdgeTypeInfo>& types);

// Edge types written as one comma-separated list ("mentions,refers_to"); blanks around names
// are ignored; "" = every type. kInvalidArgument for an empty name between commas or more than
// kMaxGraphEdgeTypes names.
StatusOr<std::vector<std::string>> ParseEdgeTypeList(std::string_view text);

}  // namespace engram::io

#endif  // ENGRAM_IO_GRAPH_JSON_H_
