// The world graph as an API: read-only queries over the typed edges engram stores (neighbours of a
// memory, paths between two memories, the identity class of an entity), each as of a time, and
// client-declared edge types a client adds and retires (Engine::AddEdge / RetireEdge).
//
//   engram::GraphQueryOptions options;
//   options.edge_types = {"mentions"};
//   options.direction = engram::GraphDirection::kIncoming;
//   options.valid_at = *engram::ParseTimestamp("2024-03-01");
//   ASSIGN_OR_RETURN(engram::NeighboursResult who, engine->Neighbours(lena_entity_id, options));
//   for (const engram::GraphNeighbour& neighbour : who.neighbours) ...  // the turns naming Lena
//
// Visibility is the recall's (read/visibility.h): without an as-of option a query follows active
// edges to active memories still valid now; `valid_at` follows edges and memories whose validity
// covers the time (superseded and retired ones included when they held then); `known_at` follows
// only what was recorded by then, with the status it had then. Scope nodes are not memories and
// are never followed. Every query is bounded: at most `limit` results, at most kMaxGraphDepth edges
// per path and kMaxGraphExpansion edges examined (a result cut short says so in `truncated`).
// Results come in a deterministic order (edges in the order the store wrote them, paths shortest
// first), so the same store and options give the same answer.
#ifndef ENGRAM_GRAPH_H_
#define ENGRAM_GRAPH_H_

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engram/status.h"
#include "engram/types.h"

namespace engram {

// Results a graph query returns at most (GraphQueryOptions::limit).
inline constexpr std::size_t kMaxGraphLimit = 1000;
// Edges per path at most (GraphQueryOptions::max_depth).
inline constexpr std::size_t kMaxGraphDepth = 4;
// Edges one query examines at most; beyond it the result is cut short (`truncated`).
inline constexpr std::size_t kMaxGraphExpansion = 20000;
// Edge types one query may name at most.
inline constexpr std::size_t kMaxGraphEdgeTypes = 32;

// Which edges of a memory a query follows: those leaving it (src), those arriving (dst), or both.
enum class GraphDirection { kOutgoing, kIncoming, kBoth };
std::string_view GraphDirectionName(GraphDirection direction);  // "out", "in", "both"
// "out", "in" or "both" (also "outgoing", "incoming"); kInvalidArgument otherwise.
StatusOr<GraphDirection> ParseGraphDirection(std::string_view name);

struct GraphQueryOptions {
  // Edge types to follow; empty = every type. Each must be a registered type, engram's own or
  // one declared in [graph] edge_types (kInvalidArgument naming it otherwise). Default: empty.
  std::vector<std::string> edge_types;
  // Default: both.
  GraphDirection direction = GraphDirection::kBoth;
  // As RecallOptions::valid_at / known_at. Default: unset (what holds now).
  std::optional<Timestamp> valid_at;
  std::optional<Timestamp> known_at;
  // Without an as-of option, follow retired, superseded, pending and rejected edges and memories
  // too. Default: false.
  bool include_retired = false;
  // Neighbours, paths or class members returned at most, 1..kMaxGraphLimit. Default: 100.
  std::size_t limit = 100;
  // Paths: edges per path at most, 1..kMaxGraphDepth. Default: 2.
  std::size_t max_depth = 2;
  // When set, memories of scopes it returns false for are treated as absent (a server passes the
  // caller's read grants, so a result names nothing of another tenant; the start memory of such
  // a scope is kNotFound like an unknown id). Default: unset = every scope.
  std::function<bool(std::string_view scope)> readable_scope;
};

// A memory as a graph query shows it: enough to name it; Engine::Get gives the rest.
struct GraphNode {
  std::string id;
  NodeKind kind = NodeKind::kTurn;
  std::string scope;  // Scope::ToString() of its scope
  std::string text;   // a turn's text, an entity's name, a fact's sentence, ...
  NodeStatus status = NodeStatus::kActive;  // as recorded at known_at when set
  std::optional<Timestamp> valid_from;
  std::optional<Timestamp> valid_to;  // as recorded at known_at when set
};

// An edge as a graph query shows it.
struct GraphEdge {
  std::string id;
  std::string type;
  std::string src;
  std::string dst;
  std::string scope;              // Scope::ToString() of the scope it was written in
  std::string status = "active";  // as recorded at known_at when set
  std::optional<Timestamp> valid_from;
  std::optional<Timestamp> valid_to;  // as recorded at known_at when set
  Timestamp ingested_at;
  std::string attrs_json = "{}";
};

struct GraphNeighbour {
  GraphEdge edge;
  GraphNode node;                                        // the memory at the edge's other end
  GraphDirection direction = GraphDirection::kOutgoing;  // kOutgoing: the edge leaves the start
};

struct NeighboursResult {
  GraphNode node;  // the start memory
  std::vector<GraphNeighbour> neighbours;
  bool truncated = false;  // more neighbours matched than `limit`
};

// One path: nodes[0] is the start, nodes.back() the end, edges[i] joins nodes[i] and nodes[i+1]
// (in either direction, as GraphQueryOptions::direction allows).
struct GraphPath {
  std::vector<std::string> nodes;
  std::vector<GraphEdge> edges;
};

struct PathsResult {
  std::string from;
  std::string to;
  // Simple paths (no memory twice) of at most max_depth edges, shortest first, then in the order
  // of their edges' rows.
  std::vector<GraphPath> paths;
  std::vector<GraphNode> nodes;  // every memory on a returned path, sorted by id
  bool truncated = false;        // more paths than `limit`, or kMaxGraphExpansion reached
};

struct IdentityClassResult {
  GraphNode entity;                // the entity asked about
  std::vector<GraphNode> members;  // the entity and every entity joined to it, sorted by id
  std::vector<GraphEdge> edges;    // the accepted same_as edges joining them, in row order
  bool truncated = false;          // more members than `limit`
};

// The semantics of a client-declared edge type ([graph] edge_types).
struct EdgeTypeInfo {
  std::string name;
  bool builtin = false;        // one of engram's own types (not writable through AddEdge)
  bool single_valued = false;  // a new edge supersedes the source's previous edge of the type
  bool symmetric = false;      // a -> b also means b -> a (stored once, src < dst)
  bool transitive = false;     // a -> b -> c implies a -> c (recorded; the consolidator derives)
};

// An edge a client adds (Engine::AddEdge).
struct NewEdge {
  std::string type;               // a type declared in [graph] edge_types
  std::string src;                // memory id
  std::string dst;                // memory id
  std::string attrs_json = "{}";  // a JSON object of at most 16 KiB, stored with the edge
  // When the relation starts to hold; unset = from when it is added.
  std::optional<Timestamp> valid_from;
};

}  // namespace engram

#endif  // ENGRAM_GRAPH_H_
