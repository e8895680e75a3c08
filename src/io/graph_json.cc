// JSON shapes of the world graph's results (see graph_json.h).
#include "io/graph_json.h"

#include <algorithm>
#include <string>

namespace engram::io {

Json ToJson(const GraphNode& node) {
  Json out = Json::object();
  out["id"] = node.id;
  out["kind"] = NodeKindName(node.kind);
  out["scope"] = node.scope;
  out["text"] = node.text;
  out["status"] = NodeStatusName(node.status);
  out["valid_from"] = TimestampToJson(node.valid_from);
  out["valid_to"] = TimestampToJson(node.valid_to);
  return out;
}

Json ToJson(const GraphEdge& edge) {
  Json out = Json::object();
  out["id"] = edge.id;
  out["type"] = edge.type;
  out["src"] = edge.src;
  out["dst"] = edge.dst;
  out["scope"] = edge.scope;
  out["status"] = edge.status;
  out["valid_from"] = TimestampToJson(edge.valid_from);
  out["valid_to"] = TimestampToJson(edge.valid_to);
  out["ingested_at"] = TimestampToJson(edge.ingested_at);
  out["attrs"] = MetadataToJson(edge.attrs_json);
  return out;
}

Json ToJson(const NeighboursResult& result) {
  Json out = Json::object();
  out["node"] = ToJson(result.node);
  out["count"] = result.neighbours.size();
  Json list = Json::array();
  for (const GraphNeighbour& neighbour : result.neighbours) {
    Json entry = Json::object();
    entry["direction"] = GraphDirectionName(neighbour.direction);
    entry["edge"] = ToJson(neighbour.edge);
    entry["node"] = ToJson(neighbour.node);
    list.push_back(std::move(entry));
  }
  out["neighbours"] = std::move(list);
  out["truncated"] = result.truncated;
  return out;
}

Json ToJson(const PathsResult& result) {
  Json out = Json::object();
  out["from"] = result.from;
  out["to"] = result.to;
  out["count"] = result.paths.size();
  Json paths = Json::array();
  for (const GraphPath& path : result.paths) {
    Json entry = Json::object();
    entry["length"] = path.edges.size();
    entry["nodes"] = path.nodes;
    Json edges = Json::array();
    for (const GraphEdge& edge : path.edges) edges.push_back(ToJson(edge));
    entry["edges"] = std::move(edges);
    paths.push_back(std::move(entry));
  }
  out["paths"] = std::move(paths);
  Json nodes = Json::array();
  for (const GraphNode& node : result.nodes) nodes.push_back(ToJson(node));
  out["nodes"] = std::move(nodes);
  out["truncated"] = result.truncated;
  return out;
}

Json ToJson(const IdentityClassResult& result) {
  Json out = Json::object();
  out["entity"] = ToJson(result.entity);
  out["count"] = result.members.size();
  Json members = Json::array();
  for (const GraphNode& node : result.members) members.push_back(ToJson(node));
  out["members"] = std::move(members);
  Json edges = Json::array();
  for (const GraphEdge& edge : result.edges) edges.push_back(ToJson(edge));
  out["edges"] = std::move(edges);
  out["truncated"] = result.truncated;
  return out;
}

Json ToJson(const EdgeTypeInfo& type) {
  Json out = Json::object();
  out["name"] = type.name;
  out["builtin"] = type.builtin;
  out["single_valued"] = type.single_valued;
  out["symmetric"] = type.symmetric;
  out["transitive"] = type.transitive;
  return out;
}

Json EdgeTypesToJson(const std::vector<EdgeTypeInfo>& types) {
  Json out = Json::object();
  out["count"] = types.size();
  Json list = Json::array();
  for (const EdgeTypeInfo& type : types) list.push_back(ToJson(type));
  out["edge_types"] = std::move(list);
  return out;
}

StatusOr<std::vector<std::string>> ParseEdgeTypeList(std::string_view text) {
  std::vector<std::string> types;
  if (text.find_first_not_of(" \t") == std::string_view::npos) return types;
  std::size_t begin = 0;
  while (true) {
    const std::size_t comma = std::min(text.find(',', begin), text.size());
    std::string_view name = text.substr(begin, comma - begin);
    const std::size_t first = name.find_first_not_of(" \t");
    if (first == std::string_view::npos) {
      return Status::InvalidArgument("edge types: an empty name in \"" +
                                     std::string(text.substr(0, 96)) + "\"");
    }
    name = name.substr(first, name.find_last_not_of(" \t") - first + 1);
    types.emplace_back(name);
    if (types.size() > kMaxGraphEdgeTypes) {
      return Status::InvalidArgument("at most " + std::to_string(kMaxGraphEdgeTypes) +
                                     " edge types");
    }
    if (comma == text.size()) break;
    begin = comma + 1;
  }
  return types;
}

}  // namespace engram::io
