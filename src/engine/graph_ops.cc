// The world graph operations (see graph_ops.h and include/engram/graph.h).
#include "engine/graph_ops.h"

#include <algorithm>
#include <array>
#include <deque>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/ids.h"
#include "read/visibility.h"
#include "store/journal.h"

namespace engram {
namespace {

constexpr std::array<std::pair<GraphDirection, std::string_view>, 3> kDirections = {{
    {GraphDirection::kOutgoing, "out"},
    {GraphDirection::kIncoming, "in"},
    {GraphDirection::kBoth, "both"},
}};

}  // namespace

std::string_view GraphDirectionName(GraphDirection direction) {
  for (const auto& [value, name] : kDirections) {
    if (value == direction) return name;
  }
  return "both";
}

StatusOr<GraphDirection> ParseGraphDirection(std::string_view name) {
  if (name == "outgoing") return GraphDirection::kOutgoing;
  if (name == "incoming") return GraphDirection::kIncoming;
  for (const auto& [value, value_name] : kDirections) {
    if (value_name == name) return value;
  }
  return Status::InvalidArgument("unknown direction \"" + std::string(name.substr(0, 64)) +
                                 "\" (expected out, in or both)");
}

namespace graph_ops {
namespace {

// Largest attrs_json of a client edge.
constexpr std::size_t kMaxEdgeAttrsBytes = 16 * 1024;

Status CheckId(std::string_view field, std::string_view id) {
  if (core::LooksLikeId(id)) return Status::Ok();
  return Status::InvalidArgument(std::string(field) + " \"" + std::string(id.substr(0, 64)) +
                                 "\" is not a memory id (32 lowercase hex digits)");
}

Status NotFound(std::string_view id) {
  return Status::NotFound("memory " + std::string(id) + " not found");
}

// Options every query checks: limit, depth (paths) and edge types.
Status CheckOptions(const write::EdgeRegistry& registry, const GraphQueryOptions& options,
                    bool paths) {
  if (options.limit < 1 || options.limit > kMaxGraphLimit) {
    return Status::InvalidArgument("limit must be from 1 to " + std::to_string(kMaxGraphLimit) +
                                   ", got " + std::to_string(options.limit));
  }
  if (paths && (options.max_depth < 1 || options.max_depth > kMaxGraphDepth)) {
    return Status::InvalidArgument("max_depth must be from 1 to " + std::to_string(kMaxGraphDepth) +
                                   ", got " + std::to_string(options.max_depth));
  }
  if (options.edge_types.size() > kMaxGraphEdgeTypes) {
    return Status::InvalidArgument("at most " + std::to_string(kMaxGraphEdgeTypes) +
                                   " edge types, got " + std::to_string(options.edge_types.size()));
  }
  for (const std::string& type : options.edge_types) {
    if (!registry.HasType(type)) {
      std::string known;
      for (const std::string& name : registry.TypeNames()) {
        known += (known.empty() ? "" : ", ") + name;
      }
      return Status::InvalidArgument("unknown edge type \"" + type.substr(0, 64) +
                                     "\" (registered: " + known + ")");
    }
  }
  return Status::Ok();
}

store::EdgeDirection StoreDirection(GraphDirection direction) {
  switch (direction) {
    case GraphDirection::kOutgoing:
      return store::EdgeDirection::kOutgoing;
    case GraphDirection::kIncoming:
      return store::EdgeDirection::kIncoming;
    case GraphDirection::kBoth:
      break;
  }
  return store::EdgeDirection::kBoth;
}

GraphEdge ToGraphEdge(const store::EdgeRecord& edge, std::string scope) {
  return GraphEdge{.id = edge.id,
                   .type = edge.type,
                   .src = edge.src,
                   .dst = edge.dst,
                   .scope = std::move(scope),
                   .status = edge.status,
                   .valid_from = edge.valid_from,
                   .valid_to = edge.valid_to,
                   .ingested_at = edge.ingested_at,
                   .attrs_json = edge.attrs_json};
}

// One query's view of the store: memories and edges as the options' visibility shows them,
// each looked up once.
class GraphReader {
 public:
  GraphReader(const GraphContext& context, const GraphQueryOptions& options)
      : store_(context.store),
        options_(options),
        visibility_(&context.store,
                    RecallOptions{.include_retired = options.include_retired,
                                  .valid_at = options.valid_at,
                                  .known_at = options.known_at},
                    context.now) {}

  // The scope path of scope `scope_id` ("" when it is gone).
  StatusOr<std::string> ScopePath(std::int64_t scope_id) {
    const auto found = scope_paths_.find(scope_id);
    if (found != scope_paths_.end()) return found->second;
    ASSIGN_OR_RETURN(const std::optional<store::ScopeRecord> scope, store_.GetScope(scope_id));
    std::string path = scope.has_value() ? scope->path : "";
    scope_paths_.emplace(scope_id, path);
    return path;
  }

  // The start memory of a query: kNotFound for an unknown id, a scope node, or a memory of a
  // scope the caller may not read (one message for all, so nothing leaks). Its state is the one
  // recorded at known_at when the memory existed then.
  StatusOr<GraphNode> Start(std::string_view id) {
    StatusOr<store::NodeRecord> node = store_.GetNode(id);
    if (!node.ok()) {
      if (node.status().code() == StatusCode::kNotFound) return NotFound(id);
      return node.status();
    }
    if (node->kind == NodeKind::kScope) return NotFound(id);
    ASSIGN_OR_RETURN(const std::string scope, ScopePath(node->scope_id));
    if (!Readable(scope)) return NotFound(id);
    GraphNode start = ToGraphNode(*node, scope);
    ASSIGN_OR_RETURN(const std::optional<store::RecordedState> recorded,
                     visibility_.Recorded(read::ViewOf(*node)));
    if (recorded.has_value()) {
      start.status = recorded->status;
      start.valid_to = recorded->valid_to;
    }
    return start;
  }

  // The memory as the query shows it; nullopt when it is hidden (unknown, a scope node, of an
  // unreadable scope, or not visible under the options).
  StatusOr<std::optional<GraphNode>> Node(const std::string& id) {
    const auto found = nodes_.find(id);
    if (found != nodes_.end()) return found->second;
    ASSIGN_OR_RETURN(std::optional<GraphNode> shown, LoadNode(id));
    nodes_.emplace(id, shown);
    return shown;
  }

  // The edge as the query shows it (status and validity end as recorded at known_at); nullopt
  // when the options hide it.
  StatusOr<std::optional<GraphEdge>> Edge(const store::EdgeRecord& edge) {
    using Result = std::optional<GraphEdge>;
    ASSIGN_OR_RETURN(const std::optional<store::RecordedState> recorded, RecordedEdge(edge));
    if (!recorded.has_value()) return Result();
    // The recall's filters over the recorded state: the view's updated_at is its ingestion, so
    // Visibility takes the state as given rather than reading a memory's journal for it.
    const read::MemoryView view{.id = edge.id,
                                .kind = NodeKind::kFact,
                                .status = recorded->status,
                                .valid_from = edge.valid_from,
                                .valid_to = recorded->valid_to,
                                .ingested_at = edge.ingested_at,
                                .updated_at = edge.ingested_at};
    ASSIGN_OR_RETURN(const read::Verdict verdict, visibility_.Check(view));
    if (!verdict.shown()) return Result();
    ASSIGN_OR_RETURN(std::string scope, ScopePath(edge.scope_id));
    GraphEdge shown = ToGraphEdge(edge, std::move(scope));
    shown.status = std::string(NodeStatusName(recorded->status));
    shown.valid_to = recorded->valid_to;
    return Result(std::move(shown));
  }

  // The edges of `id` the options follow, in row order.
  StatusOr<std::vector<store::EdgeRecord>> EdgesOf(const std::string& id,
                                                   GraphDirection direction) {
    std::vector<store::EdgeRecord> edges;
    if (options_.edge_types.empty()) {
      ASSIGN_OR_RETURN(edges, store_.EdgesOf(id, StoreDirection(direction), ""));
    } else {
      const std::set<std::string> types(options_.edge_types.begin(), options_.edge_types.end());
      for (const std::string& type : types) {
        ASSIGN_OR_RETURN(std::vector<store::EdgeRecord> typed,
                         store_.EdgesOf(id, StoreDirection(direction), type));
        for (store::EdgeRecord& edge : typed) edges.push_back(std::move(edge));
      }
    }
    std::sort(edges.begin(), edges.end(),
              [](const store::EdgeRecord& a, const store::EdgeRecord& b) { return a.row < b.row; });
    return edges;
  }

 private:
  bool Readable(const std::string& scope) const {
    return !options_.readable_scope || (!scope.empty() && options_.readable_scope(scope));
  }

  GraphNode ToGraphNode(const store::NodeRecord& node, std::string scope) const {
    return GraphNode{.id = node.id,
                     .kind = node.kind,
                     .scope = std::move(scope),
                     .text = node.text,
                     .status = node.status,
                     .valid_from = node.valid_from,
                     .valid_to = node.valid_to};
  }

  StatusOr<std::optional<GraphNode>> LoadNode(const std::string& id) {
    using Result = std::optional<GraphNode>;
    StatusOr<store::NodeRecord> node = store_.GetNode(id);
    if (!node.ok()) {
      if (node.status().code() == StatusCode::kNotFound) return Result();
      return node.status();
    }
    if (node->kind == NodeKind::kScope) return Result();
    ASSIGN_OR_RETURN(std::string scope, ScopePath(node->scope_id));
    if (!Readable(scope)) return Result();
    ASSIGN_OR_RETURN(const read::Verdict verdict, visibility_.CheckWithEvidence(*node));
    if (!verdict.shown()) return Result();
    GraphNode shown = ToGraphNode(*node, std::move(scope));
    shown.status = verdict.status;
    shown.valid_to = verdict.valid_to;
    return Result(std::move(shown));
  }

  // The edge's status and validity end as recorded at known_at (its current ones without
  // known_at or when nothing changed since); nullopt when it was ingested after known_at. Read
  // back from the edge's journal entries, as Visibility::Recorded reads a memory's.
  StatusOr<std::optional<store::RecordedState>> RecordedEdge(const store::EdgeRecord& edge) {
    using Result = std::optional<store::RecordedState>;
    ASSIGN_OR_RETURN(const NodeStatus current, ParseNodeStatus(edge.status));
    const store::RecordedState now{current, edge.valid_to};
    const std::optional<Timestamp>& known_at = options_.known_at;
    if (!known_at.has_value()) return Result(now);
    if (edge.ingested_at > *known_at) return Result();
    if (edge.updated_at <= *known_at) return Result(now);
    std::optional<store::RecordedState> state;
    ASSIGN_OR_RETURN(const std::vector<store::JournalEntry> entries, store_.JournalFor(edge.id));
    for (const store::JournalEntry& entry : entries) {
      if (entry.at > *known_at) break;  // oldest first
      if (entry.op != store::JournalOp::kEdgeInserted &&
          entry.op != store::JournalOp::kEdgeUpdated) {
        continue;
      }
      ASSIGN_OR_RETURN(const std::optional<store::RecordedState> recorded,
                       store::ParseStateDetail(entry.detail));
      if (recorded.has_value()) state = *recorded;
    }
    // No entry at or before known_at (a journal cut short): the state it was inserted with,
    // which only a pending proposal does not share with an active edge.
    if (!state.has_value()) {
      state = store::RecordedState{
          current == NodeStatus::kPending || current == NodeStatus::kRejected ? current
                                                                              : NodeStatus::kActive,
          std::nullopt};
    }
    return Result(state);
  }

  store::Store& store_;
  const GraphQueryOptions& options_;
  read::Visibility visibility_;
  std::map<std::int64_t, std::string> scope_paths_;
  std::map<std::string, std::optional<GraphNode>> nodes_;
};

// One step of a path search: an edge the options show and the memory at its other end.
struct Step {
  GraphEdge edge;
  std::string other;
};

}  // namespace

StatusOr<NeighboursResult> Neighbours(const GraphContext& context, std::string_view id,
                                      const GraphQueryOptions& options) {
  RETURN_IF_ERROR(CheckId("id", id));
  RETURN_IF_ERROR(CheckOptions(context.registry, options, /*paths=*/false));
  GraphReader reader(context, options);
  NeighboursResult result;
  ASSIGN_OR_RETURN(result.node, reader.Start(id));
  ASSIGN_OR_RETURN(const std::vector<store::EdgeRecord> edges,
                   reader.EdgesOf(result.node.id, options.direction));
  std::size_t examined = 0;
  for (const store::EdgeRecord& edge : edges) {
    if (++examined > kMaxGraphExpansion) {
      result.truncated = true;
      break;
    }
    ASSIGN_OR_RETURN(std::optional<GraphEdge> shown, reader.Edge(edge));
    if (!shown.has_value()) continue;
    const bool outgoing = edge.src == result.node.id;
    ASSIGN_OR_RETURN(std::optional<GraphNode> other, reader.Node(outgoing ? edge.dst : edge.src));
    if (!other.has_value()) continue;
    if (result.neighbours.size() == options.limit) {
      result.truncated = true;
      break;
    }
    result.neighbours.push_back(GraphNeighbour{
        .edge = *std::move(shown),
        .node = *std::move(other),
        .direction = outgoing ? GraphDirection::kOutgoing : GraphDirection::kIncoming});
  }
  return result;
}

StatusOr<PathsResult> Paths(const GraphContext& context, std::string_view from, std::string_view to,
                            const GraphQueryOptions& options) {
  RETURN_IF_ERROR(CheckId("from", from));
  RETURN_IF_ERROR(CheckId("to", to));
  if (from == to) return Status::InvalidArgument("from and to are the same memory");
  RETURN_IF_ERROR(CheckOptions(context.registry, options, /*paths=*/true));
  GraphReader reader(context, options);
  ASSIGN_OR_RETURN(const GraphNode start, reader.Start(from));
  ASSIGN_OR_RETURN(const GraphNode end, reader.Start(to));
  PathsResult result;
  result.from = start.id;
  result.to = end.id;

  // The steps out of each memory, loaded once. The expansion budget counts every edge read.
  std::map<std::string, std::vector<Step>> steps_of;
  std::size_t examined = 0;
  bool exhausted = false;
  auto steps = [&](const std::string& id) -> StatusOr<const std::vector<Step>*> {
    const auto found = steps_of.find(id);
    if (found != steps_of.end()) return &found->second;
    std::vector<Step> out;
    ASSIGN_OR_RETURN(const std::vector<store::EdgeRecord> edges,
                     reader.EdgesOf(id, options.direction));
    for (const store::EdgeRecord& edge : edges) {
      if (++examined > kMaxGraphExpansion) {
        exhausted = true;
        break;
      }
      ASSIGN_OR_RETURN(std::optional<GraphEdge> shown, reader.Edge(edge));
      if (!shown.has_value()) continue;
      std::string other = edge.src == id ? edge.dst : edge.src;
      if (other == to) {
        out.push_back({*std::move(shown), std::move(other)});
        continue;
      }
      ASSIGN_OR_RETURN(const std::optional<GraphNode> node, reader.Node(other));
      if (node.has_value()) out.push_back({*std::move(shown), std::move(other)});
    }
    return &steps_of.emplace(id, std::move(out)).first->second;
  };

  // Depth-first over simple paths, each step in row order; a path ends when it reaches `to`.
  std::vector<GraphPath> found;
  GraphPath current;
  current.nodes.push_back(start.id);
  std::set<std::string> on_path = {start.id};
  std::size_t steps_taken = 0;
  std::function<Status(const std::string&)> walk = [&](const std::string& id) -> Status {
    if (exhausted) return Status::Ok();
    ASSIGN_OR_RETURN(const std::vector<Step>* out, steps(id));
    for (const Step& step : *out) {
      if (exhausted || ++steps_taken > kMaxGraphExpansion) {
        exhausted = true;
        return Status::Ok();
      }
      if (on_path.contains(step.other)) continue;
      current.nodes.push_back(step.other);
      current.edges.push_back(step.edge);
      if (step.other == result.to) {
        found.push_back(current);
      } else if (current.edges.size() < options.max_depth) {
        on_path.insert(step.other);
        RETURN_IF_ERROR(walk(step.other));
        on_path.erase(step.other);
      }
      current.nodes.pop_back();
      current.edges.pop_back();
    }
    return Status::Ok();
  };
  RETURN_IF_ERROR(walk(start.id));
  // Shortest first; among equals, the depth-first order (edges in row order).
  std::stable_sort(found.begin(), found.end(), [](const GraphPath& a, const GraphPath& b) {
    return a.edges.size() < b.edges.size();
  });
  result.truncated = exhausted || found.size() > options.limit;
  if (found.size() > options.limit) found.resize(options.limit);
  std::set<std::string> node_ids;
  for (const GraphPath& path : found) node_ids.insert(path.nodes.begin(), path.nodes.end());
  for (const std::string& id : node_ids) {
    if (id == start.id) {
      result.nodes.push_back(start);
    } else if (id == end.id) {
      result.nodes.push_back(end);
    } else {
      ASSIGN_OR_RETURN(const std::optional<GraphNode> node, reader.Node(id));
      if (node.has_value()) result.nodes.push_back(*node);
    }
  }
  result.paths = std::move(found);
  return result;
}

StatusOr<IdentityClassResult> IdentityClass(const GraphContext& context, std::string_view entity_id,
                                            const GraphQueryOptions& options) {
  RETURN_IF_ERROR(CheckId("id", entity_id));
  RETURN_IF_ERROR(CheckOptions(context.registry, {.limit = options.limit}, /*paths=*/false));
  GraphQueryOptions same_as = options;
  same_as.edge_types = {std::string(write::kSameAs)};
  GraphReader reader(context, same_as);
  IdentityClassResult result;
  ASSIGN_OR_RETURN(result.entity, reader.Start(entity_id));
  if (result.entity.kind != NodeKind::kEntity) {
    return Status::InvalidArgument("memory " + result.entity.id + " is a " +
                                   std::string(NodeKindName(result.entity.kind)) +
                                   ", not an entity: only entities have an identity class");
  }
  // Breadth-first over accepted same_as edges: a proposal pending or rejected (then) joins no one.
  std::map<std::string, GraphNode> members = {{result.entity.id, result.entity}};
  std::map<std::int64_t, GraphEdge> edges;  // by row
  std::deque<std::string> frontier = {result.entity.id};
  std::size_t examined = 0;
  while (!frontier.empty()) {
    const std::string current = std::move(frontier.front());
    frontier.pop_front();
    ASSIGN_OR_RETURN(const std::vector<store::EdgeRecord> links,
                     reader.EdgesOf(current, GraphDirection::kBoth));
    for (const store::EdgeRecord& link : links) {
      if (++examined > kMaxGraphExpansion) {
        result.truncated = true;
        frontier.clear();
        break;
      }
      ASSIGN_OR_RETURN(std::optional<GraphEdge> shown, reader.Edge(link));
      if (!shown.has_value() ||
          (shown->status != store::kEdgeActive && shown->status != store::kEdgeSuperseded &&
           shown->status != store::kEdgeRetired)) {
        continue;
      }
      const std::string& other = link.src == current ? link.dst : link.src;
      if (!members.contains(other)) {
        ASSIGN_OR_RETURN(const std::optional<GraphNode> node, reader.Node(other));
        if (!node.has_value()) continue;
        members.emplace(other, *node);
        frontier.push_back(other);
      }
      edges.emplace(link.row, *std::move(shown));
    }
  }
  for (auto& [id, node] : members) {
    if (result.members.size() == options.limit) {
      result.truncated = true;
      break;
    }
    result.members.push_back(std::move(node));
  }
  for (auto& [row, edge] : edges) result.edges.push_back(std::move(edge));
  return result;
}

Status RegisterConfiguredEdgeTypes(write::EdgeRegistry& registry, const Config& config) {
  StatusOr<std::vector<write::ClientEdgeType>> types =
      write::ParseClientEdgeTypes(config.graph.edge_types);
  if (!types.ok()) return types.status().WithContext("[graph] edge_types");
  for (const write::ClientEdgeType& type : *types) {
    RETURN_IF_ERROR(registry.RegisterClientType(type).WithContext("[graph] edge_types"));
  }
  return Status::Ok();
}

std::vector<EdgeTypeInfo> EdgeTypes(const write::EdgeRegistry& registry) {
  std::vector<EdgeTypeInfo> types;
  for (const std::string& name : registry.TypeNames()) {
    if (registry.ClientType(name) == nullptr) types.push_back({.name = name, .builtin = true});
  }
  for (const write::ClientEdgeType& type : registry.ClientTypes()) {
    types.push_back({.name = type.name,
                     .builtin = false,
                     .single_valued = type.single_valued,
                     .symmetric = type.symmetric,
                     .transitive = type.transitive});
  }
  return types;
}

StatusOr<GraphEdge> AddEdge(const GraphContext& context, const Scope& scope, const NewEdge& edge) {
  RETURN_IF_ERROR(scope.Validate());
  if (context.registry.ClientType(edge.type) == nullptr) {
    std::string declared;
    for (const write::ClientEdgeType& type : context.registry.ClientTypes()) {
      declared += (declared.empty() ? "" : ", ") + type.name;
    }
    const std::string why = context.registry.HasType(edge.type)
                                ? " is one of engram's own edge types, which only engram writes"
                                : " is not declared";
    return Status::InvalidArgument("edge type \"" + edge.type.substr(0, 64) + "\"" + why +
                                   " (declared in [graph] " +
                                   "edge_types: " + (declared.empty() ? "none" : declared) + ")");
  }
  RETURN_IF_ERROR(CheckId("src", edge.src));
  RETURN_IF_ERROR(CheckId("dst", edge.dst));
  if (edge.src == edge.dst) {
    return Status::InvalidArgument("src and dst are the same memory " + edge.src);
  }
  if (edge.attrs_json.size() > kMaxEdgeAttrsBytes) {
    return Status::InvalidArgument("attrs is " + std::to_string(edge.attrs_json.size()) +
                                   " bytes, more than the limit of " +
                                   std::to_string(kMaxEdgeAttrsBytes));
  }
  const nlohmann::json attrs =
      nlohmann::json::parse(edge.attrs_json, nullptr, /*allow_exceptions=*/false);
  if (attrs.is_discarded() || !attrs.is_object()) {
    return Status::InvalidArgument("attrs must be a JSON object");
  }
  const std::string scope_path = scope.ToString();
  ASSIGN_OR_RETURN(std::unique_ptr<store::Transaction> txn, context.store.BeginWrite());
  ASSIGN_OR_RETURN(const std::optional<store::ScopeRecord> record, txn->FindScope(scope_path));
  if (!record.has_value()) return Status::NotFound("scope " + scope_path + " does not exist");
  // Both endpoints must lie in the scope, a scope nested in it or one enclosing it; any other
  // memory is "not found", as an unknown id is.
  auto related = [&scope_path](std::string_view path) {
    auto contains = [](std::string_view outer, std::string_view inner) {
      return inner == outer || (inner.size() > outer.size() && inner.starts_with(outer) &&
                                inner[outer.size()] == '/');
    };
    return contains(scope_path, path) || contains(path, scope_path);
  };
  for (const auto& [field, id] :
       {std::pair<std::string_view, const std::string*>{"src", &edge.src}, {"dst", &edge.dst}}) {
    StatusOr<store::NodeRecord> node = txn->GetNode(*id);
    if (!node.ok() && node.status().code() != StatusCode::kNotFound) return node.status();
    bool visible = node.ok() && node->kind != NodeKind::kScope;
    if (visible) {
      ASSIGN_OR_RETURN(const std::optional<store::ScopeRecord> node_scope,
                       context.store.GetScope(node->scope_id));
      visible = node_scope.has_value() && related(node_scope->path);
    }
    if (!visible) {
      return Status::NotFound(std::string(field) + ": memory " + *id + " not found");
    }
  }
  write::EdgeRequest request;
  request.type = edge.type;
  request.src = edge.src;
  request.dst = edge.dst;
  request.scope_id = record->scope_id;
  request.attrs_json = attrs.dump();
  // Unset: the relation holds from when it is recorded, so a valid_at before it does not see it.
  request.valid_from = edge.valid_from.value_or(context.now);
  request.now = context.now;
  ASSIGN_OR_RETURN(const store::EdgeRecord inserted, context.registry.Apply(*txn, request));
  RETURN_IF_ERROR(txn->Commit());
  return ToGraphEdge(inserted, scope_path);
}

StatusOr<GraphEdge> GetEdge(const GraphContext& context, std::string_view edge_id) {
  if (!core::LooksLikeId(edge_id)) {
    return Status::InvalidArgument("\"" + std::string(edge_id.substr(0, 64)) +
                                   "\" is not an edge id (32 lowercase hex digits)");
  }
  StatusOr<store::EdgeRecord> edge = context.store.GetEdge(edge_id);
  if (!edge.ok()) {
    if (edge.status().code() == StatusCode::kNotFound) {
      return Status::NotFound("edge " + std::string(edge_id) + " not found");
    }
    return edge.status();
  }
  ASSIGN_OR_RETURN(const std::optional<store::ScopeRecord> scope,
                   context.store.GetScope(edge->scope_id));
  return ToGraphEdge(*edge, scope.has_value() ? scope->path : "");
}

Status RetireEdge(const GraphContext& context, std::string_view edge_id) {
  RETURN_IF_ERROR(GetEdge(context, edge_id).status());
  ASSIGN_OR_RETURN(std::unique_ptr<store::Transaction> txn, context.store.BeginWrite());
  RETURN_IF_ERROR(context.registry.RetireClientEdge(*txn, edge_id, context.now));
  return txn->Commit();
}

}  // namespace graph_ops
}  // namespace engram
