// consolidate_command.cc: `engram consolidate --scope S` builds the scope's episodes, scenes and
// profiles (Engine::Consolidate); `engram episodes|scenes|profile --scope S [--all]` list what
// the last consolidation stored — by default the current (active) nodes, with --all also the
// ones later runs superseded or retired. `engram foresight --scope S [--at TIME] [--all]` lists
// the plans and temporary states the facts stage found that are valid at TIME (default now:
// EverMemOS's foresight filtering, t in [valid_from, valid_to)), with --all every one of them
// marked upcoming, valid or expired.
//
// Reads through the public API only: Engine::List with kind episode / scene / profile / fact
// (each node's metadata holds its fields, src/consolidate/consolidator.h, write/reconcile.h).
#include <memory>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "engram/clock.h"
#include "server/scope_views.h"

namespace engram::cli {
namespace {

struct ConsolidateArgs {
  std::string scope;
};

struct ListArgs {
  std::string scope;
  bool all = false;
  AsOfFlags as_of;  // only --known-at: the nodes the consolidations had stored by then
};

struct ForesightArgs {
  std::string scope;
  std::string at;  // ISO-8601; "" = now
  bool all = false;
};

std::size_t Count(const io::Json& fields, const char* name) {
  const auto found = fields.find(name);
  return found != fields.end() && found->is_array() ? found->size() : 0;
}

int RunConsolidate(const ConsolidateArgs& args, Console& console) {
  StatusOr<Scope> scope = Scope::Parse(args.scope);
  if (!scope.ok()) return console.UsageError("consolidate", "--scope: " + scope.status().message());
  StatusOr<std::unique_ptr<Engine>> engine = OpenEngine(console.global(), false);
  if (!engine.ok()) return console.Fail("consolidate", engine.status());
  StatusOr<ConsolidateResult> result = (*engine)->Consolidate(*scope);
  if (!result.ok()) return console.Fail("consolidate", result.status());
  if (console.json()) {
    console.PrintJson(server::ConsolidateResultView(*scope, *result));
    return ToInt(ExitCode::kOk);
  }
  if (!console.quiet()) {
    console.out() << "consolidated " << Printable(scope->ToString()) << ": " << result->turns
                  << " turns, " << result->episodes << " episodes, " << result->scenes
                  << " scenes, " << result->profiles << " profiles (" << result->written
                  << " written, " << result->superseded << " superseded)\n";
  }
  return ToInt(ExitCode::kOk);
}

// The scope's nodes of `kind` (active ones, or all with `all`); with `known_at`, those stored
// by then with the status they had then.
StatusOr<std::vector<Memory>> ListKind(Engine& engine, const Scope& scope, NodeKind kind,
                                       bool all, std::optional<Timestamp> known_at = std::nullopt) {
  ListOptions options;
  options.kind = kind;
  options.limit = 0;
  options.include_retired = true;
  options.known_at = known_at;
  ASSIGN_OR_RETURN(std::vector<Memory> memories, engine.List(scope, options));
  std::vector<Memory> kept;
  for (Memory& memory : memories) {
    if (all || memory.status == NodeStatus::kActive) kept.push_back(std::move(memory));
  }
  return kept;
}

// Runs a listing command: `what` names the command and the listing ("episodes", "scenes",
// "profile" -> "people"); --json prints server::ConsolidatedView, `print` prints a node for
// humans.
int RunListing(std::string_view command, const ListArgs& args, NodeKind kind,
               std::string_view array_name, Console& console,
               const std::function<void(const Memory&, const io::Json&, std::ostream&)>& print) {
  StatusOr<Scope> scope = Scope::Parse(args.scope);
  if (!scope.ok()) return console.UsageError(command, "--scope: " + scope.status().message());
  StatusOr<AsOfTimes> as_of = ParseAsOfFlags(args.as_of);
  if (!as_of.ok()) return console.UsageError(command, as_of.status().message());
  StatusOr<std::unique_ptr<Engine>> engine = OpenEngine(console.global(), false);
  if (!engine.ok()) return console.Fail(command, engine.status());
  if (console.json()) {
    StatusOr<io::Json> view =
        server::ConsolidatedView(**engine, *scope, kind, args.all, as_of->known_at);
    if (!view.ok()) return console.Fail(command, view.status());
    console.PrintJson(*view);
    return ToInt(ExitCode::kOk);
  }
  StatusOr<std::vector<Memory>> memories =
      ListKind(**engine, *scope, kind, args.all, as_of->known_at);
  if (!memories.ok()) return console.Fail(command, memories.status());
  if (!console.quiet()) {
    console.out() << memories->size() << " " << array_name << " in "
                  << Printable(scope->ToString());
    if (memories->empty()) {
      console.out() << " (run `engram consolidate --scope " << Printable(scope->ToString())
                    << "` to build them)";
    }
    console.out() << "\n";
  }
  for (const Memory& memory : *memories)
    print(memory, io::ParseObject(memory.metadata_json), console.out());
  return ToInt(ExitCode::kOk);
}

int RunEpisodes(const ListArgs& args, Console& console) {
  return RunListing("episodes", args, NodeKind::kEpisode, "episodes", console,
                    [](const Memory& memory, const io::Json& fields, std::ostream& out) {
                      out << memory.id << "  " << NodeStatusName(memory.status) << "  "
                          << Printable(io::StringField(fields, "start")) << " .. "
                          << Printable(io::StringField(fields, "end")) << "  "
                          << Count(fields, "turns") << " turns  ("
                          << Printable(io::StringField(fields, "boundary")) << ")  facts "
                          << Count(fields, "facts") << "  foresight " << Count(fields, "foresight")
                          << "\n    " << Printable(memory.text) << "\n";
                    });
}

int RunScenes(const ListArgs& args, Console& console) {
  return RunListing(
      "scenes", args, NodeKind::kScene, "scenes", console,
      [](const Memory& memory, const io::Json& fields, std::ostream& out) {
        std::string keywords;
        if (fields.contains("keywords") && fields["keywords"].is_array()) {
          for (const io::Json& keyword : fields["keywords"]) {
            if (keyword.is_string()) keywords += (keywords.empty() ? "" : ", ") + keyword.get<std::string>();
          }
        }
        out << memory.id << "  " << NodeStatusName(memory.status) << "  "
            << Printable(io::StringField(fields, "start")) << " .. "
            << Printable(io::StringField(fields, "end")) << "  " << Count(fields, "episodes")
            << " episodes\n    keywords: " << Printable(keywords) << "\n    "
            << Printable(memory.text) << "\n";
      });
}

void PrintValue(const io::Json& value, std::ostream& out) {
  out << Printable(io::StringField(value, "object")) << " ["
      << Printable(io::StringField(value, "status")) << ", "
      << (value.contains("valid_from") && value["valid_from"].is_string()
              ? Printable(value["valid_from"].get<std::string>())
              : std::string("-"))
      << " .. "
      << (value.contains("valid_to") && value["valid_to"].is_string()
              ? Printable(value["valid_to"].get<std::string>())
              : std::string("(open)"))
      << ", turns";
  if (value.contains("turns") && value["turns"].is_array()) {
    for (const io::Json& turn : value["turns"]) {
      if (turn.is_string()) out << " " << turn.get<std::string>();
    }
  }
  out << "]";
}

int RunProfile(const ListArgs& args, Console& console) {
  return RunListing("profile", args, NodeKind::kProfile, "people", console,
                    [](const Memory& memory, const io::Json& fields, std::ostream& out) {
                      out << Printable(io::StringField(fields, "name")) << "  " << memory.id << "  "
                          << NodeStatusName(memory.status)
                          << (fields.value("scope_user", false) ? "  (the scope's user)" : "")
                          << "\n";
                      if (fields.contains("explicit") && fields["explicit"].is_array()) {
                        for (const io::Json& slot : fields["explicit"]) {
                          out << "    " << Printable(io::StringField(slot, "predicate")) << ": ";
                          if (slot.contains("current") && slot["current"].is_object()) {
                            PrintValue(slot["current"], out);
                          } else {
                            out << "(no current value)";
                          }
                          out << "\n";
                          if (slot.contains("history") && slot["history"].is_array()) {
                            for (const io::Json& value : slot["history"]) {
                              out << "      before: ";
                              PrintValue(value, out);
                              out << "\n";
                            }
                          }
                        }
                      }
                      if (fields.contains("traits") && fields["traits"].is_array()) {
                        for (const io::Json& trait : fields["traits"]) {
                          out << "    trait " << Printable(io::StringField(trait, "kind")) << ": "
                              << (io::StringField(trait, "polarity") == "-" ? "not " : "")
                              << Printable(io::StringField(trait, "predicate")) << " "
                              << Printable(io::StringField(trait, "object")) << " (x"
                              << trait.value("count", 0) << ")\n";
                        }
                      }
                    });
}

int RunForesight(const ForesightArgs& args, Console& console) {
  StatusOr<Scope> scope = Scope::Parse(args.scope);
  if (!scope.ok()) return console.UsageError("foresight", "--scope: " + scope.status().message());
  Timestamp at = SystemClock()->Now();
  if (!args.at.empty()) {
    StatusOr<Timestamp> parsed = ParseTimestamp(args.at);
    if (!parsed.ok()) return console.UsageError("foresight", "--at: " + parsed.status().message());
    at = *parsed;
  }
  StatusOr<std::unique_ptr<Engine>> engine = OpenEngine(console.global(), false);
  if (!engine.ok()) return console.Fail("foresight", engine.status());
  StatusOr<io::Json> view = server::ForesightView(**engine, *scope, at, args.all);
  if (!view.ok()) return console.Fail("foresight", view.status());
  if (console.json()) {
    console.PrintJson(*view);
    return ToInt(ExitCode::kOk);
  }
  const io::Json& kept = (*view)["foresight"];
  if (!console.quiet()) {
    console.out() << kept.size() << (args.all ? "" : " valid") << " foresight in "
                  << Printable(scope->ToString()) << " at " << FormatTimestamp(at) << "\n";
  }
  const auto time_or = [](const io::Json& item, const char* name, const char* none) {
    return item[name].is_string() ? Printable(item[name].get<std::string>()) : std::string(none);
  };
  for (const io::Json& item : kept) {
    console.out() << io::StringField(item, "id") << "  " << io::StringField(item, "validity")
                  << "  " << time_or(item, "valid_from", "-") << " .. "
                  << time_or(item, "valid_to", "(open)") << "\n    "
                  << Printable(io::StringField(item, "text")) << "\n";
  }
  return ToInt(ExitCode::kOk);
}

}  // namespace

void AddConsolidateCommands(CLI::App& app, Console& console, CommandList* commands) {
  auto consolidate_args = std::make_shared<ConsolidateArgs>();
  CLI::App* consolidate = app.add_subcommand(
      "consolidate", "Build a scope's episodes, scenes and profiles from its turns and facts");
  consolidate->add_option("--scope", consolidate_args->scope, "Scope path, e.g. user:alice")
      ->required();
  commands->push_back(
      {consolidate, [consolidate_args, &console] { return RunConsolidate(*consolidate_args, console); }});

  struct Listing {
    const char* name;
    const char* help;
    int (*run)(const ListArgs&, Console&);
  };
  const Listing listings[] = {
      {"episodes", "List a scope's episodes: time span, turns, facts and narrative", RunEpisodes},
      {"scenes", "List a scope's scenes: member episodes, keywords and summary", RunScenes},
      {"profile", "Show each person's profile: current facts with history, and traits",
       RunProfile},
  };
  auto foresight_args = std::make_shared<ForesightArgs>();
  CLI::App* foresight = app.add_subcommand(
      "foresight", "List plans and temporary states valid at a time (default now)");
  foresight->add_option("--scope", foresight_args->scope, "Scope path, e.g. user:alice")
      ->required();
  foresight->add_option("--at", foresight_args->at,
                        "ISO-8601 time to check validity at (default: now)");
  foresight->add_flag("--all", foresight_args->all,
                      "Every plan and temporary state, marked upcoming, valid or expired");
  commands->push_back(
      {foresight, [foresight_args, &console] { return RunForesight(*foresight_args, console); }});

  for (const Listing& listing : listings) {
    auto args = std::make_shared<ListArgs>();
    CLI::App* sub = app.add_subcommand(listing.name, listing.help);
    sub->add_option("--scope", args->scope, "Scope path, e.g. user:alice")->required();
    sub->add_flag("--all", args->all, "Also the ones later consolidations superseded or retired");
    AddKnownAtFlag(sub, &args->as_of);
    auto run = listing.run;
    commands->push_back({sub, [args, run, &console] { return run(*args, console); }});
  }
}

}  // namespace engram::cli
