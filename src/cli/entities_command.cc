// entities_command.cc: `engram entities --scope S` — the entities the write path resolved in a
// scope (people, places, organisations; speakers too): name, kind, how many memories mention
// them, and their identity links (accepted or pending same_as merges; `engram proposals`, alias
// `engram merges`, lists the proposals themselves).
//
// Reads through the public API only: Engine::List (kind entity; an entity's metadata holds its
// name and kind) and Engine::History (incoming mentions and same_as edges).
#include <memory>
#include <string>
#include <vector>

#include "cli/cli.h"

namespace engram::cli {
namespace {

struct EntitiesArgs {
  std::string scope;
};

struct EntityLine {
  Memory memory;
  std::string name;
  std::string kind;
  std::size_t mentions = 0;
  std::vector<std::string> same_as;  // the other entity of each same_as edge, either direction
};

std::string Field(const io::Json& fields, const char* name) {
  const auto found = fields.find(name);
  if (found == fields.end() || !found->is_string()) return "";
  return found->get<std::string>();
}

StatusOr<EntityLine> Load(Engine& engine, Memory memory) {
  EntityLine line;
  io::Json fields = io::Json::parse(memory.metadata_json, nullptr, /*allow_exceptions=*/false);
  if (!fields.is_object()) fields = io::Json::object();
  line.name = Field(fields, "name");
  if (line.name.empty()) line.name = memory.text;
  line.kind = Field(fields, "kind");
  ASSIGN_OR_RETURN(const std::vector<HistoryEvent> history, engine.History(memory.id));
  for (const HistoryEvent& event : history) {
    if (event.action == "mentions (incoming)") ++line.mentions;
    if (event.action.rfind("same_as", 0) == 0 && !event.related_id.empty()) {
      line.same_as.push_back(event.related_id);
    }
  }
  line.memory = std::move(memory);
  return line;
}

int RunEntities(const EntitiesArgs& args, Console& console) {
  StatusOr<Scope> scope = Scope::Parse(args.scope);
  if (!scope.ok()) return console.UsageError("entities", "--scope: " + scope.status().message());
  StatusOr<std::unique_ptr<Engine>> engine = OpenEngine(console.global(), false);
  if (!engine.ok()) return console.Fail("entities", engine.status());
  ListOptions options;
  options.kind = NodeKind::kEntity;
  options.limit = 0;  // every entity
  options.include_retired = false;
  StatusOr<std::vector<Memory>> memories = (*engine)->List(*scope, options);
  if (!memories.ok()) return console.Fail("entities", memories.status());
  std::vector<EntityLine> lines;
  for (Memory& memory : *memories) {
    StatusOr<EntityLine> line = Load(**engine, std::move(memory));
    if (!line.ok()) return console.Fail("entities", line.status());
    lines.push_back(*std::move(line));
  }
  if (console.json()) {
    io::Json json = io::Json::object();
    json["scope"] = scope->ToString();
    json["count"] = lines.size();
    io::Json list = io::Json::array();
    for (const EntityLine& line : lines) {
      io::Json entity = io::Json::object();
      entity["id"] = line.memory.id;
      entity["name"] = line.name;
      entity["kind"] = line.kind;
      entity["mentions"] = line.mentions;
      entity["same_as"] = line.same_as;
      entity["first_seen"] = line.memory.valid_from
                                 ? io::Json(FormatTimestamp(*line.memory.valid_from))
                                 : io::Json(nullptr);
      entity["provenance"] = line.memory.provenance;
      list.push_back(std::move(entity));
    }
    json["entities"] = std::move(list);
    console.PrintJson(json);
    return ToInt(ExitCode::kOk);
  }
  if (!console.quiet()) {
    console.out() << lines.size() << (lines.size() == 1 ? " entity" : " entities") << " in "
                  << Printable(scope->ToString()) << "\n";
  }
  for (const EntityLine& line : lines) {
    console.out() << line.memory.id << "  " << Printable(line.kind.empty() ? "-" : line.kind)
                  << "  " << Printable(line.name) << "  mentions " << line.mentions
                  << "  first seen " << TimeOrDash(line.memory.valid_from) << "\n";
    for (const std::string& other : line.same_as) console.out() << "    same_as " << other << "\n";
  }
  return ToInt(ExitCode::kOk);
}

}  // namespace

void AddEntitiesCommand(CLI::App& app, Console& console, CommandList* commands) {
  auto args = std::make_shared<EntitiesArgs>();
  CLI::App* entities = app.add_subcommand(
      "entities", "List the entities resolved in a scope, with mention counts and merges");
  entities->add_option("--scope", args->scope, "Scope path, e.g. user:alice")->required();
  commands->push_back({entities, [args, &console] { return RunEntities(*args, console); }});
}

}  // namespace engram::cli
