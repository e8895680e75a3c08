// entities_command.cc: `engram entities --scope S` — the entities the write path resolved in a
// scope (people, places, organisations; speakers too): name, kind, how many memories mention
// them, and their identity links (accepted or pending same_as merges; `engram proposals`, alias
// `engram merges`, lists the proposals themselves).
//
// Reads through the public API only, with the reader REST and Python share (io/scope_records.h).
#include <memory>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "io/scope_records.h"

namespace engram::cli {
namespace {

struct EntitiesArgs {
  std::string scope;
};

int RunEntities(const EntitiesArgs& args, Console& console) {
  StatusOr<Scope> scope = Scope::Parse(args.scope);
  if (!scope.ok()) return console.UsageError("entities", "--scope: " + scope.status().message());
  StatusOr<std::unique_ptr<Engine>> engine = OpenEngine(console.global(), false);
  if (!engine.ok()) return console.Fail("entities", engine.status());
  StatusOr<std::vector<io::EntityRecord>> entities = io::LoadEntities(**engine, *scope);
  if (!entities.ok()) return console.Fail("entities", entities.status());
  const std::vector<io::EntityRecord>& lines = *entities;
  if (console.json()) {
    console.PrintJson(io::EntitiesDocument(*scope, lines));
    return ToInt(ExitCode::kOk);
  }
  if (!console.quiet()) {
    console.out() << lines.size() << (lines.size() == 1 ? " entity" : " entities") << " in "
                  << Printable(scope->ToString()) << "\n";
  }
  for (const io::EntityRecord& line : lines) {
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
