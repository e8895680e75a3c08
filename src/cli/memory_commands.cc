// memory_commands.cc: inspecting and forgetting — `show`, `list`, `history`, `scopes`,
// `retire` (one memory, or --all of a scope), `erase` (hard delete, needs --yes) and
// `rebuild-index`.
#include <cstdio>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli.h"

namespace engram::cli {
namespace {

struct MemoryArgs {
  std::string id;
  std::string scope;
  std::size_t limit = 100;
  std::int64_t after = 0;
  std::string kind = "turn";
  std::string reason;
  bool all = false;
  bool yes = false;
};

// Opens the engine (never creating a store) or reports why not; nullptr after a report.
std::unique_ptr<Engine> Open(Console& console, std::string_view command, int* exit_code) {
  StatusOr<std::unique_ptr<Engine>> engine = OpenEngine(console.global(), false);
  if (!engine.ok()) {
    *exit_code = console.Fail(command, engine.status());
    return nullptr;
  }
  return *std::move(engine);
}

void PrintMemory(const Memory& memory, Console& console) {
  std::ostream& out = console.out();
  const auto row = [&out](std::string_view label, std::string_view value) {
    out << label;
    for (std::size_t pad = label.size(); pad < 12; ++pad) out << ' ';
    out << value << "\n";
  };
  row("id", memory.id);
  row("kind", NodeKindName(memory.kind));
  row("scope", Printable(memory.scope));
  row("sequence", std::to_string(memory.sequence));
  row("status", NodeStatusName(memory.status));
  row("role", RoleName(memory.role));
  row("speaker", memory.speaker.empty() ? "-" : Printable(memory.speaker));
  row("session", memory.session_id.empty() ? "-" : Printable(memory.session_id));
  row("event time", TimeOrDash(memory.event_time));
  row("valid", TimeOrDash(memory.valid_from) + " .. " +
                   (memory.valid_to.has_value() ? FormatTimestamp(*memory.valid_to) : "(open)"));
  row("ingested", FormatTimestamp(memory.ingested_at));
  row("updated", FormatTimestamp(memory.updated_at));
  row("metadata", Printable(memory.metadata_json));
  std::string provenance;
  for (const std::string& id : memory.provenance)
    provenance += (provenance.empty() ? "" : " ") + id;
  row("provenance", provenance.empty() ? "-" : Printable(provenance));
  out << "text\n";
  std::istringstream lines(Printable(memory.text, /*keep_newlines=*/true));
  for (std::string line; std::getline(lines, line);) out << "  " << line << "\n";
}

int RunShow(const MemoryArgs& args, Console& console) {
  int exit_code = 0;
  std::unique_ptr<Engine> engine = Open(console, "show", &exit_code);
  if (!engine) return exit_code;
  StatusOr<Memory> memory = engine->Get(args.id);
  if (!memory.ok()) return console.Fail("show", memory.status());
  if (console.json()) {
    console.PrintJson(io::ToJson(*memory));
  } else {
    PrintMemory(*memory, console);
  }
  return ToInt(ExitCode::kOk);
}

int RunList(const MemoryArgs& args, Console& console) {
  StatusOr<Scope> scope = Scope::Parse(args.scope);
  if (!scope.ok()) return console.UsageError("list", "--scope: " + scope.status().message());
  int exit_code = 0;
  std::unique_ptr<Engine> engine = Open(console, "list", &exit_code);
  if (!engine) return exit_code;
  ListOptions options;
  options.limit = args.limit;
  options.after_sequence = args.after;
  if (args.kind == "all") {
    options.kind = std::nullopt;
  } else {
    StatusOr<NodeKind> kind = ParseNodeKind(args.kind);
    if (!kind.ok()) {
      return console.UsageError("list", "--kind: " + kind.status().message() + " (or \"all\")");
    }
    options.kind = *kind;
  }
  StatusOr<std::vector<Memory>> memories = engine->List(*scope, options);
  if (!memories.ok()) return console.Fail("list", memories.status());
  if (console.json()) {
    io::Json json = io::Json::object();
    json["scope"] = scope->ToString();
    json["count"] = memories->size();
    io::Json list = io::Json::array();
    for (const Memory& memory : *memories) list.push_back(io::ToJson(memory));
    json["memories"] = std::move(list);
    console.PrintJson(json);
    return ToInt(ExitCode::kOk);
  }
  std::ostream& out = console.out();
  if (!console.quiet()) {
    out << memories->size() << (memories->size() == 1 ? " memory" : " memories") << " in "
        << Printable(scope->ToString());
    if (args.after > 0) out << " after sequence " << args.after;
    out << "\n";
  }
  for (const Memory& memory : *memories) {
    char sequence[32];
    std::snprintf(sequence, sizeof(sequence), "%6lld", static_cast<long long>(memory.sequence));
    out << sequence << "  " << memory.id << "  " << NodeStatusName(memory.status) << "  "
        << TimeOrDash(memory.event_time) << "  "
        << (memory.speaker.empty() ? "-" : Printable(memory.speaker)) << ": "
        << Excerpt(Printable(memory.text), 100) << "\n";
  }
  if (!console.quiet() && !memories->empty() && memories->size() == args.limit) {
    out << "(more may follow: --after " << memories->back().sequence << ")\n";
  }
  return ToInt(ExitCode::kOk);
}

int RunHistory(const MemoryArgs& args, Console& console) {
  int exit_code = 0;
  std::unique_ptr<Engine> engine = Open(console, "history", &exit_code);
  if (!engine) return exit_code;
  StatusOr<std::vector<HistoryEvent>> events = engine->History(args.id);
  if (!events.ok()) return console.Fail("history", events.status());
  if (console.json()) {
    io::Json json = io::Json::object();
    json["id"] = args.id;
    io::Json list = io::Json::array();
    for (const HistoryEvent& event : *events) list.push_back(io::ToJson(event));
    json["events"] = std::move(list);
    console.PrintJson(json);
    return ToInt(ExitCode::kOk);
  }
  for (const HistoryEvent& event : *events) {
    console.out() << FormatTimestamp(event.at) << "  " << Printable(event.action) << "  -> "
                  << NodeStatusName(event.status);
    if (event.valid_to.has_value())
      console.out() << "  valid to " << FormatTimestamp(*event.valid_to);
    if (!event.related_id.empty()) console.out() << "  related " << Printable(event.related_id);
    if (!event.detail.empty()) console.out() << "  (" << Printable(event.detail) << ")";
    console.out() << "\n";
  }
  return ToInt(ExitCode::kOk);
}

int RunScopes(Console& console) {
  int exit_code = 0;
  std::unique_ptr<Engine> engine = Open(console, "scopes", &exit_code);
  if (!engine) return exit_code;
  StatusOr<std::vector<ScopeInfo>> scopes = engine->ListScopes();
  if (!scopes.ok()) return console.Fail("scopes", scopes.status());
  if (console.json()) {
    io::Json json = io::Json::object();
    io::Json list = io::Json::array();
    for (const ScopeInfo& scope : *scopes) list.push_back(io::ToJson(scope));
    json["scopes"] = std::move(list);
    console.PrintJson(json);
    return ToInt(ExitCode::kOk);
  }
  if (!console.quiet()) {
    console.out() << scopes->size() << (scopes->size() == 1 ? " scope" : " scopes") << "\n";
  }
  for (const ScopeInfo& scope : *scopes) {
    console.out() << Printable(scope.scope) << "  " << scope.memories << " memories, last sequence "
                  << scope.last_sequence << "\n";
  }
  return ToInt(ExitCode::kOk);
}

int RunRetire(const MemoryArgs& args, Console& console) {
  constexpr std::string_view kCommand = "retire";
  if (args.all) {
    if (!args.id.empty()) {
      return console.UsageError(kCommand, "give either an ID or --all --scope S, not both");
    }
    if (args.scope.empty()) return console.UsageError(kCommand, "--all needs --scope");
  } else {
    if (args.id.empty())
      return console.UsageError(kCommand, "an ID (or --all --scope S) is required");
    if (!args.scope.empty()) return console.UsageError(kCommand, "--scope is used only with --all");
  }
  std::optional<Scope> scope;
  if (args.all) {
    StatusOr<Scope> parsed = Scope::Parse(args.scope);
    if (!parsed.ok()) return console.UsageError(kCommand, "--scope: " + parsed.status().message());
    scope = *std::move(parsed);
  }
  int exit_code = 0;
  std::unique_ptr<Engine> engine = Open(console, kCommand, &exit_code);
  if (!engine) return exit_code;
  io::Json json = io::Json::object();
  if (args.all) {
    StatusOr<std::size_t> retired = engine->RetireAll(*scope);
    if (!retired.ok()) return console.Fail(kCommand, retired.status());
    json["scope"] = scope->ToString();
    json["retired"] = *retired;
    if (!console.json()) {
      console.out() << "retired " << *retired << (*retired == 1 ? " memory" : " memories") << " in "
                    << Printable(scope->ToString()) << "\n";
    }
  } else {
    if (Status status = engine->Retire(args.id, args.reason); !status.ok()) {
      return console.Fail(kCommand, status);
    }
    json["id"] = args.id;
    json["retired"] = true;
    json["reason"] = args.reason;
    if (!console.json()) console.out() << "retired " << Printable(args.id) << "\n";
  }
  if (console.json()) console.PrintJson(json);
  return ToInt(ExitCode::kOk);
}

int RunErase(const MemoryArgs& args, Console& console) {
  constexpr std::string_view kCommand = "erase";
  StatusOr<Scope> scope = Scope::Parse(args.scope);
  if (!scope.ok()) return console.UsageError(kCommand, "--scope: " + scope.status().message());
  if (!args.yes) {
    return console.UsageError(kCommand, "erase permanently deletes " + scope->ToString() +
                                            ", its nested scopes and all their memories; "
                                            "add --yes to confirm");
  }
  int exit_code = 0;
  std::unique_ptr<Engine> engine = Open(console, kCommand, &exit_code);
  if (!engine) return exit_code;
  StatusOr<EraseResult> result = engine->Erase(*scope);
  if (!result.ok()) return console.Fail(kCommand, result.status());
  if (console.json()) {
    io::Json json = io::Json::object();
    json["scope"] = scope->ToString();
    json["erased"] = io::ToJson(*result);
    console.PrintJson(json);
  } else {
    console.out() << "erased " << Printable(scope->ToString()) << ": " << result->scopes
                  << " scope(s), " << result->nodes << " node(s), " << result->edges
                  << " edge(s)\n";
  }
  return ToInt(ExitCode::kOk);
}

int RunRebuildIndex(Console& console) {
  constexpr std::string_view kCommand = "rebuild-index";
  int exit_code = 0;
  std::unique_ptr<Engine> engine = Open(console, kCommand, &exit_code);
  if (!engine) return exit_code;
  StatusOr<RebuildReport> report = engine->RebuildIndex();
  if (!report.ok()) return console.Fail(kCommand, report.status());
  if (console.json()) {
    console.PrintJson(io::ToJson(*report));
    return ToInt(ExitCode::kOk);
  }
  char seconds[32];
  std::snprintf(seconds, sizeof(seconds), "%.2f", report->seconds);
  console.out() << "rebuilt the index of " << report->scopes << " scope(s): " << report->documents
                << " documents, " << report->terms << " terms in " << seconds << " s\n";
  if (!report->matched_live_index) {
    console.out() << "the rebuilt index differed from the live one; the rebuilt one is now used\n";
  }
  return ToInt(ExitCode::kOk);
}

}  // namespace

void AddMemoryCommands(CLI::App& app, Console& console, CommandList* commands) {
  auto args = std::make_shared<MemoryArgs>();

  CLI::App* show = app.add_subcommand("show", "Show one memory by id");
  show->add_option("ID", args->id, "Memory id (32 hex digits)")->required()->check(IdValidator());
  commands->push_back({show, [args, &console] { return RunShow(*args, console); }});

  CLI::App* list = app.add_subcommand("list", "List the memories of a scope in sequence order");
  list->add_option("--scope", args->scope, "Scope to list (exactly this scope)")->required();
  list->add_option("--limit", args->limit, "Entries at most (default 100)")->check(WholeNumber(1));
  list->add_option("--after", args->after, "Only memories after this sequence number (paging)")
      ->check(WholeNumber(0));
  list->add_option("--kind", args->kind,
                   "Only this kind: turn (default), signal, entity, fact, ... or all");
  commands->push_back({list, [args, &console] { return RunList(*args, console); }});

  CLI::App* history = app.add_subcommand("history", "Show a memory's changes, oldest first");
  history->add_option("ID", args->id, "Memory id")->required()->check(IdValidator());
  commands->push_back({history, [args, &console] { return RunHistory(*args, console); }});

  CLI::App* scopes = app.add_subcommand("scopes", "List every scope with its memory count");
  commands->push_back({scopes, [&console] { return RunScopes(console); }});

  CLI::App* retire = app.add_subcommand("retire", "Retire a memory, or every memory of a scope");
  retire->footer(
      "A retired memory is kept (list, show, history) but hidden from recall.\n"
      "engram retire ID [--reason R]    or    engram retire --all --scope S\n");
  retire->add_option("ID", args->id, "Memory id")->check(IdValidator());
  retire->add_option("--reason", args->reason, "Why (kept in the history)");
  retire->add_flag("--all", args->all, "Retire every active memory of --scope");
  retire->add_option("--scope", args->scope, "Scope for --all");
  commands->push_back({retire, [args, &console] { return RunRetire(*args, console); }});

  CLI::App* erase = app.add_subcommand("erase", "Permanently delete a scope (needs --yes)");
  erase->footer(
      "Deletes the scope, its nested scopes, their memories, edges and index entries, and wipes\n"
      "the freed pages. Without --yes nothing happens and the exit code is 2.\n");
  erase->add_option("--scope", args->scope, "Scope to erase")->required();
  erase->add_flag("--yes", args->yes, "Confirm the deletion");
  commands->push_back({erase, [args, &console] { return RunErase(*args, console); }});

  CLI::App* rebuild =
      app.add_subcommand("rebuild-index", "Rebuild the indexes from the store and verify them");
  commands->push_back({rebuild, [&console] { return RunRebuildIndex(console); }});
}

}  // namespace engram::cli
