// graph_command.cc: `engram graph ...` — the world graph (include/engram/graph.h):
//
//   engram graph neighbours ID [--types T,..] [--direction out|in|both] [--limit N]
//   engram graph paths FROM TO [--max-depth N] [--types ...] [--direction ...] [--limit N]
//   engram graph identity ENTITY_ID [--limit N]
//   engram graph edge-types
//   engram graph add-edge --scope S --type T SRC DST [--attrs JSON] [--valid-from TIME]
//   engram graph edge EDGE_ID
//   engram graph retire-edge EDGE_ID
//
// The queries take --valid-at / --known-at (as recall and facts) and --include-retired. With
// --json each prints the JSON REST answers (io/graph_json.h). Reads and writes through the public
// API only.
#include <memory>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "io/graph_json.h"

namespace engram::cli {
namespace {

struct GraphArgs {
  std::string id;
  std::string to;
  std::string types;
  std::string direction = "both";
  std::size_t limit = 100;
  std::size_t max_depth = 2;
  bool include_retired = false;
  AsOfFlags as_of;
  // add-edge
  std::string scope;
  std::string type;
  std::string src;
  std::string dst;
  std::string attrs = "{}";
  std::string valid_from;
};

// The query options of the flags; kInvalidArgument naming the flag.
StatusOr<GraphQueryOptions> QueryOptions(const GraphArgs& args) {
  GraphQueryOptions options;
  StatusOr<std::vector<std::string>> types = io::ParseEdgeTypeList(args.types);
  if (!types.ok()) return Status::InvalidArgument("--types: " + types.status().message());
  options.edge_types = *std::move(types);
  StatusOr<GraphDirection> direction = ParseGraphDirection(args.direction);
  if (!direction.ok())
    return Status::InvalidArgument("--direction: " + direction.status().message());
  options.direction = *direction;
  options.limit = args.limit;
  options.max_depth = args.max_depth;
  options.include_retired = args.include_retired;
  ASSIGN_OR_RETURN(const AsOfTimes as_of, ParseAsOfFlags(args.as_of));
  options.valid_at = as_of.valid_at;
  options.known_at = as_of.known_at;
  return options;
}

std::string Describe(const GraphNode& node) {
  return node.id + "  " + std::string(NodeKindName(node.kind)) + "  " +
         std::string(NodeStatusName(node.status)) + "  " + Printable(Excerpt(node.text, 80));
}

std::string Describe(const GraphEdge& edge) {
  return edge.type + " " + edge.id + " (" + edge.status + ", valid " + TimeOrDash(edge.valid_from) +
         " .. " + (edge.valid_to ? FormatTimestamp(*edge.valid_to) : std::string("(open)")) + ")";
}

// Runs one graph command: parses the query flags, opens the engine, runs `query`, prints the
// JSON with --json and `print` otherwise.
template <typename Result, typename Query, typename Print>
int RunQuery(std::string_view command, const GraphArgs& args, Console& console, Query query,
             Print print) {
  StatusOr<GraphQueryOptions> options = QueryOptions(args);
  if (!options.ok()) return console.UsageError(command, options.status().message());
  StatusOr<std::unique_ptr<Engine>> engine = OpenEngine(console.global(), false);
  if (!engine.ok()) return console.Fail(command, engine.status());
  StatusOr<Result> result = query(**engine, *options);
  if (!result.ok()) return console.Fail(command, result.status());
  if (console.json()) {
    console.PrintJson(io::ToJson(*result));
  } else {
    print(*result);
  }
  return ToInt(ExitCode::kOk);
}

int RunNeighbours(const GraphArgs& args, Console& console) {
  return RunQuery<NeighboursResult>(
      "graph neighbours", args, console,
      [&](Engine& engine, const GraphQueryOptions& options) {
        return engine.Neighbours(args.id, options);
      },
      [&](const NeighboursResult& result) {
        if (!console.quiet()) {
          console.out() << result.neighbours.size()
                        << (result.neighbours.size() == 1 ? " neighbour" : " neighbours")
                        << (result.truncated ? " (more not shown)" : "") << " of "
                        << Describe(result.node) << "\n";
        }
        for (const GraphNeighbour& neighbour : result.neighbours) {
          console.out() << (neighbour.direction == GraphDirection::kOutgoing ? "-> " : "<- ")
                        << Describe(neighbour.node) << "\n    " << Describe(neighbour.edge) << "\n";
        }
      });
}

int RunPaths(const GraphArgs& args, Console& console) {
  return RunQuery<PathsResult>(
      "graph paths", args, console,
      [&](Engine& engine, const GraphQueryOptions& options) {
        return engine.Paths(args.id, args.to, options);
      },
      [&](const PathsResult& result) {
        if (!console.quiet()) {
          console.out() << result.paths.size() << (result.paths.size() == 1 ? " path" : " paths")
                        << (result.truncated ? " (more not shown)" : "") << " from " << result.from
                        << " to " << result.to << "\n";
        }
        for (const GraphPath& path : result.paths) {
          console.out() << path.nodes.front();
          for (std::size_t step = 0; step < path.edges.size(); ++step) {
            const bool forward = path.edges[step].src == path.nodes[step];
            console.out() << (forward ? " -" : " <-") << path.edges[step].type
                          << (forward ? "-> " : "- ") << path.nodes[step + 1];
          }
          console.out() << "\n";
        }
        for (const GraphNode& node : result.nodes) console.out() << "  " << Describe(node) << "\n";
      });
}

int RunIdentity(const GraphArgs& args, Console& console) {
  return RunQuery<IdentityClassResult>(
      "graph identity", args, console,
      [&](Engine& engine, const GraphQueryOptions& options) {
        return engine.IdentityClass(args.id, options);
      },
      [&](const IdentityClassResult& result) {
        if (!console.quiet()) {
          console.out() << result.members.size()
                        << (result.members.size() == 1 ? " member" : " members")
                        << " in the identity class of " << result.entity.id << "\n";
        }
        for (const GraphNode& node : result.members) console.out() << Describe(node) << "\n";
        for (const GraphEdge& edge : result.edges) {
          console.out() << "  " << edge.src << " same_as " << edge.dst << "  " << Describe(edge)
                        << "\n";
        }
      });
}

int RunEdgeTypes(Console& console) {
  StatusOr<std::unique_ptr<Engine>> engine = OpenEngine(console.global(), false);
  if (!engine.ok()) return console.Fail("graph edge-types", engine.status());
  const std::vector<EdgeTypeInfo> types = (*engine)->EdgeTypes();
  if (console.json()) {
    console.PrintJson(io::EdgeTypesToJson(types));
    return ToInt(ExitCode::kOk);
  }
  for (const EdgeTypeInfo& type : types) {
    console.out() << type.name << "  " << (type.builtin ? "engram" : "client")
                  << (type.single_valued ? "  single_valued" : "")
                  << (type.symmetric ? "  symmetric" : "")
                  << (type.transitive ? "  transitive" : "") << "\n";
  }
  return ToInt(ExitCode::kOk);
}

int PrintEdge(const GraphEdge& edge, Console& console) {
  if (console.json()) {
    console.PrintJson(io::ToJson(edge));
  } else {
    console.out() << edge.src << " -" << edge.type << "-> " << edge.dst << "  in "
                  << Printable(edge.scope) << "\n    " << Describe(edge) << "\n";
  }
  return ToInt(ExitCode::kOk);
}

int RunAddEdge(const GraphArgs& args, Console& console) {
  constexpr std::string_view kCommand = "graph add-edge";
  StatusOr<Scope> scope = Scope::Parse(args.scope);
  if (!scope.ok()) return console.UsageError(kCommand, "--scope: " + scope.status().message());
  NewEdge edge{.type = args.type, .src = args.src, .dst = args.dst, .attrs_json = args.attrs};
  if (!args.valid_from.empty()) {
    StatusOr<Timestamp> valid_from = ParseTimestamp(args.valid_from);
    if (!valid_from.ok()) {
      return console.UsageError(kCommand, "--valid-from: " + valid_from.status().message());
    }
    edge.valid_from = *valid_from;
  }
  StatusOr<std::unique_ptr<Engine>> engine = OpenEngine(console.global(), false);
  if (!engine.ok()) return console.Fail(kCommand, engine.status());
  StatusOr<GraphEdge> added = (*engine)->AddEdge(*scope, edge);
  if (!added.ok()) return console.Fail(kCommand, added.status());
  return PrintEdge(*added, console);
}

int RunShowEdge(const GraphArgs& args, Console& console) {
  StatusOr<std::unique_ptr<Engine>> engine = OpenEngine(console.global(), false);
  if (!engine.ok()) return console.Fail("graph edge", engine.status());
  StatusOr<GraphEdge> edge = (*engine)->GetEdge(args.id);
  if (!edge.ok()) return console.Fail("graph edge", edge.status());
  return PrintEdge(*edge, console);
}

int RunRetireEdge(const GraphArgs& args, Console& console) {
  StatusOr<std::unique_ptr<Engine>> engine = OpenEngine(console.global(), false);
  if (!engine.ok()) return console.Fail("graph retire-edge", engine.status());
  if (Status status = (*engine)->RetireEdge(args.id); !status.ok()) {
    return console.Fail("graph retire-edge", status);
  }
  StatusOr<GraphEdge> edge = (*engine)->GetEdge(args.id);
  if (!edge.ok()) return console.Fail("graph retire-edge", edge.status());
  return PrintEdge(*edge, console);
}

// The flags every query takes.
void AddQueryFlags(CLI::App* command, GraphArgs* args, bool typed) {
  if (typed) {
    command->add_option("--types", args->types,
                        "Edge types to follow, comma-separated (default: every type)");
    command->add_option("--direction", args->direction, "out, in or both (default both)");
  }
  command->add_option("--limit", args->limit, "Results at most, 1 to 1000 (default 100)")
      ->check(WholeNumber(1));
  command->add_flag("--include-retired", args->include_retired,
                    "Also retired, superseded, pending and rejected edges and memories");
  AddAsOfFlags(command, &args->as_of);
}

}  // namespace

void AddGraphCommands(CLI::App& app, Console& console, CommandList* commands) {
  // One set of arguments per subcommand: AddAsOfFlags records which command's flags were given.
  auto args = std::make_shared<GraphArgs>();
  CLI::App* graph = app.add_subcommand(
      "graph", "Query the world graph (neighbours, paths, identity) and add or retire edges");
  graph->require_subcommand(1);

  CLI::App* neighbours =
      graph->add_subcommand("neighbours", "A memory's edges and the memories at their other end");
  neighbours->add_option("ID", args->id, "Memory id (32 hex digits)")
      ->required()
      ->check(IdValidator());
  AddQueryFlags(neighbours, args.get(), /*typed=*/true);
  commands->push_back({neighbours, [args, &console] { return RunNeighbours(*args, console); }});

  args = std::make_shared<GraphArgs>();
  CLI::App* paths = graph->add_subcommand("paths", "Simple paths between two memories");
  paths->add_option("FROM", args->id, "Memory id the paths start at")
      ->required()
      ->check(IdValidator());
  paths->add_option("TO", args->to, "Memory id the paths end at")->required()->check(IdValidator());
  paths->add_option("--max-depth", args->max_depth, "Edges per path at most, 1 to 4 (default 2)")
      ->check(WholeNumber(1));
  AddQueryFlags(paths, args.get(), /*typed=*/true);
  commands->push_back({paths, [args, &console] { return RunPaths(*args, console); }});

  args = std::make_shared<GraphArgs>();
  CLI::App* identity = graph->add_subcommand(
      "identity", "An entity's identity class (entities joined by accepted same_as merges)");
  identity->add_option("ID", args->id, "Entity id (32 hex digits)")
      ->required()
      ->check(IdValidator());
  AddQueryFlags(identity, args.get(), /*typed=*/false);
  commands->push_back({identity, [args, &console] { return RunIdentity(*args, console); }});

  CLI::App* types = graph->add_subcommand(
      "edge-types", "Every registered edge type: engram's own and those of [graph] edge_types");
  commands->push_back({types, [&console] { return RunEdgeTypes(console); }});

  CLI::App* add =
      graph->add_subcommand("add-edge", "Add an edge of a type declared in [graph] edge_types");
  add->add_option("--scope", args->scope, "Scope the edge is written in, e.g. user:alice")
      ->required();
  add->add_option("--type", args->type, "Edge type (declared in [graph] edge_types)")->required();
  add->add_option("SRC", args->src, "Source memory id")->required()->check(IdValidator());
  add->add_option("DST", args->dst, "Destination memory id")->required()->check(IdValidator());
  add->add_option("--attrs", args->attrs, "Attributes: a JSON object (default {})");
  add->add_option("--valid-from", args->valid_from, "When the relation starts to hold (ISO-8601)");
  commands->push_back({add, [args, &console] { return RunAddEdge(*args, console); }});

  args = std::make_shared<GraphArgs>();
  CLI::App* show = graph->add_subcommand("edge", "Show one edge");
  show->add_option("ID", args->id, "Edge id (32 hex digits)")->required()->check(IdValidator());
  commands->push_back({show, [args, &console] { return RunShowEdge(*args, console); }});

  args = std::make_shared<GraphArgs>();
  CLI::App* retire = graph->add_subcommand("retire-edge", "Retire a client edge");
  retire->add_option("ID", args->id, "Edge id (32 hex digits)")->required()->check(IdValidator());
  commands->push_back({retire, [args, &console] { return RunRetireEdge(*args, console); }});
}

}  // namespace engram::cli
