// memory_commands.cc: inspecting and forgetting — `show` (a turn with the signals, times,
// entities, references and facts the write path derived from it), `list`, `history`, `scopes`,
// `retire` (one memory, or --all of a scope), `erase` (hard delete, needs --yes) and
// `rebuild-index`.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "io/scope_records.h"

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

std::string Field(const io::Json& fields, const char* name) {
  const auto found = fields.find(name);
  if (found == fields.end()) return "";
  if (found->is_string()) return found->get<std::string>();
  if (found->is_null()) return "";
  return found->dump();
}

io::Json TimeJson(const std::optional<Timestamp>& time) {
  return time.has_value() ? io::Json(FormatTimestamp(*time)) : io::Json(nullptr);
}

// What the write path derived from one turn: its signals and content signals from its analysis
// row (Engine::Analysis), the rest through its edges (Engine::Links): facts point at the turn
// through derived_from; the turn points at its times (at_time), entities (mentions) and resolved
// references (refers_to). Once the scope is
// consolidated, its active episode points at it through derived_from too, and the episode's
// active scene at the episode.
struct TurnDetail {
  io::Json signals = io::Json::array();     // {kind, text, begin, end, value}
  io::Json content = nullptr;               // the DMF content signals
  io::Json times = io::Json::array();       // {id, text, from, to, granularity, via}
  io::Json entities = io::Json::array();    // {id, name, kind, spans, tier, score}
  io::Json references = io::Json::array();  // {surface, begin, end, kind, target, target_text}
  io::Json facts = io::Json::array();       // {id, status, subject, predicate, object, ...}
  io::Json episodes = io::Json::array();    // {id, start, end, turns, narrative, scenes}
};

// The active scenes holding episode `id` (incoming derived_from): {id, keywords, episodes}.
StatusOr<io::Json> ScenesOf(Engine& engine, const std::string& episode_id) {
  io::Json scenes = io::Json::array();
  ASSIGN_OR_RETURN(const std::vector<Link> links, engine.Links(episode_id));
  for (const Link& link : links) {
    if (link.type != "derived_from" || link.dst != episode_id) continue;
    ASSIGN_OR_RETURN(const Memory scene, engine.Get(link.src));
    if (scene.kind != NodeKind::kScene || scene.status != NodeStatus::kActive) continue;
    const io::Json fields = io::ParseObject(scene.metadata_json);
    io::Json entry = io::Json::object();
    entry["id"] = scene.id;
    entry["keywords"] = fields.contains("keywords") ? fields["keywords"] : io::Json::array();
    entry["episodes"] = fields.contains("episodes") && fields["episodes"].is_array()
                            ? fields["episodes"].size()
                            : 0;
    scenes.push_back(std::move(entry));
  }
  return scenes;
}

StatusOr<TurnDetail> LoadTurnDetail(Engine& engine, const Memory& turn) {
  TurnDetail detail;
  // Signals and content signals: the turn's analysis row (spans into its text).
  ASSIGN_OR_RETURN(const std::string analysis, engine.Analysis(turn.id));
  if (!analysis.empty()) {
    const io::Json row = io::ParseObject(analysis);
    if (row.contains("content") && row["content"].is_object()) detail.content = row["content"];
    if (row.contains("signals") && row["signals"].is_array()) {
      for (const io::Json& fields : row["signals"]) {
        if (!fields.is_object()) continue;
        const std::size_t begin = fields.value("begin", 0u);
        const std::size_t end = fields.value("end", 0u);
        io::Json signal = io::Json::object();
        signal["kind"] = Field(fields, "kind");
        signal["text"] = begin <= end && end <= turn.text.size()
                             ? turn.text.substr(begin, end - begin)
                             : std::string();
        signal["begin"] = begin;
        signal["end"] = end;
        signal["value"] = fields.contains("value") ? fields["value"] : io::Json(nullptr);
        detail.signals.push_back(std::move(signal));
      }
    }
  }
  ASSIGN_OR_RETURN(const std::vector<Link> links, engine.Links(turn.id));
  for (const Link& link : links) {
    const bool outgoing = link.src == turn.id;
    const std::string& other_id = outgoing ? link.dst : link.src;
    if (link.type == "derived_from" && !outgoing) {
      ASSIGN_OR_RETURN(const Memory derived, engine.Get(other_id));
      const io::Json fields = io::ParseObject(derived.metadata_json);
      if (derived.kind == NodeKind::kFact) {
        io::Json fact = io::Json::object();
        fact["id"] = derived.id;
        fact["status"] = NodeStatusName(derived.status);
        for (const char* name : {"kind", "subject", "predicate", "object", "polarity"}) {
          fact[name] = Field(fields, name);
        }
        fact["valid_from"] = TimeJson(derived.valid_from);
        fact["valid_to"] = TimeJson(derived.valid_to);
        fact["text"] = derived.text;
        if (fields.contains("rejected") && fields["rejected"].is_object()) {
          fact["rejected"] = fields["rejected"];
        }
        detail.facts.push_back(std::move(fact));
      } else if (derived.kind == NodeKind::kEpisode && derived.status == NodeStatus::kActive) {
        io::Json episode = io::Json::object();
        episode["id"] = derived.id;
        episode["start"] = Field(fields, "start");
        episode["end"] = Field(fields, "end");
        episode["turns"] = fields.contains("turns") && fields["turns"].is_array()
                               ? fields["turns"].size()
                               : 0;
        episode["narrative"] = derived.text;
        ASSIGN_OR_RETURN(episode["scenes"], ScenesOf(engine, derived.id));
        detail.episodes.push_back(std::move(episode));
      }
    } else if (link.type == "at_time" && outgoing) {
      ASSIGN_OR_RETURN(const Memory time, engine.Get(other_id));
      const io::Json fields = io::ParseObject(time.metadata_json);
      const io::Json attrs = io::ParseObject(link.attrs_json);
      io::Json entry = io::Json::object();
      entry["id"] = time.id;
      entry["text"] = Field(fields, "surface");
      entry["from"] = Field(fields, "from");
      entry["to"] = Field(fields, "to");
      entry["granularity"] = Field(fields, "granularity");
      entry["via"] = attrs.contains("via") ? attrs["via"] : io::Json("signal");
      detail.times.push_back(std::move(entry));
    } else if (link.type == "mentions" && outgoing) {
      ASSIGN_OR_RETURN(const Memory entity, engine.Get(other_id));
      const io::Json fields = io::ParseObject(entity.metadata_json);
      const io::Json attrs = io::ParseObject(link.attrs_json);
      io::Json entry = io::Json::object();
      entry["id"] = entity.id;
      entry["name"] = fields.contains("name") ? Field(fields, "name") : entity.text;
      entry["kind"] = Field(fields, "kind");
      entry["spans"] = attrs.contains("spans") ? attrs["spans"] : io::Json::array();
      entry["tier"] = Field(attrs, "tier");
      entry["score"] = attrs.contains("score") ? attrs["score"] : io::Json(nullptr);
      detail.entities.push_back(std::move(entry));
    } else if (link.type == "refers_to" && outgoing) {
      ASSIGN_OR_RETURN(const Memory target, engine.Get(other_id));
      const io::Json attrs = io::ParseObject(link.attrs_json);
      if (!attrs.contains("references") || !attrs["references"].is_array()) continue;
      for (const io::Json& reference : attrs["references"]) {
        if (!reference.is_object()) continue;
        io::Json entry = io::Json::object();
        entry["surface"] = Field(reference, "surface");
        entry["begin"] = reference.value("begin", 0);
        entry["end"] = reference.value("end", 0);
        entry["kind"] = Field(reference, "kind");
        entry["target"] = target.id;
        entry["target_kind"] = NodeKindName(target.kind);
        entry["target_text"] = target.text;
        detail.references.push_back(std::move(entry));
      }
    }
  }
  std::stable_sort(detail.references.begin(), detail.references.end(),
                   [](const io::Json& a, const io::Json& b) {
                     return a.value("begin", 0) < b.value("begin", 0);
                   });
  return detail;
}

std::string Span(const io::Json& entry) {
  return "[" + std::to_string(entry.value("begin", 0)) + ", " +
         std::to_string(entry.value("end", 0)) + ")";
}

void PrintTurnDetail(const TurnDetail& detail, Console& console) {
  std::ostream& out = console.out();
  out << "signals (" << detail.signals.size() << ")\n";
  for (const io::Json& signal : detail.signals) {
    std::string kind = Field(signal, "kind");
    kind.resize(std::max<std::size_t>(kind.size(), 14), ' ');
    out << "  " << Printable(kind) << "\"" << Printable(Field(signal, "text")) << "\"  "
        << Span(signal);
    if (!signal["value"].is_null()) out << "  " << Printable(Field(signal, "value"));
    out << "\n";
  }
  out << "times (" << detail.times.size() << ")\n";
  for (const io::Json& time : detail.times) {
    out << "  \"" << Printable(Field(time, "text")) << "\"  " << Printable(Field(time, "from"))
        << " .. " << Printable(Field(time, "to")) << "  " << Printable(Field(time, "granularity"));
    if (Field(time, "via") != "signal") out << "  (via " << Printable(Field(time, "via")) << ")";
    out << "\n";
  }
  out << "entities (" << detail.entities.size() << ")\n";
  for (const io::Json& entity : detail.entities) {
    out << "  " << Printable(Field(entity, "kind")) << "  " << Printable(Field(entity, "name"))
        << "  " << Field(entity, "id");
    if (!Field(entity, "tier").empty()) out << "  (" << Printable(Field(entity, "tier")) << ")";
    out << "\n";
  }
  out << "references (" << detail.references.size() << ")\n";
  for (const io::Json& reference : detail.references) {
    out << "  \"" << Printable(Field(reference, "surface")) << "\"  " << Span(reference) << "  "
        << Printable(Field(reference, "kind")) << " -> "
        << Printable(Excerpt(Field(reference, "target_text"), 60)) << "  "
        << Field(reference, "target") << "\n";
  }
  out << "facts (" << detail.facts.size() << ")\n";
  for (const io::Json& fact : detail.facts) {
    out << "  " << Field(fact, "id") << "  " << Printable(Field(fact, "status")) << "  "
        << Printable(Field(fact, "subject")) << " | " << Printable(Field(fact, "predicate"))
        << (Field(fact, "polarity") == "-" ? " (not)" : "") << " | "
        << Printable(Field(fact, "object")) << "  valid "
        << (fact["valid_from"].is_null() ? "-" : Field(fact, "valid_from")) << " .. "
        << (fact["valid_to"].is_null() ? "(open)" : Field(fact, "valid_to"));
    if (fact.contains("rejected")) {
      out << "  rejected (" << Printable(Field(fact["rejected"], "check"))
          << "): " << Printable(Field(fact["rejected"], "reason"));
    }
    out << "\n";
  }
  if (!detail.episodes.empty()) {
    out << "episode\n";
    for (const io::Json& episode : detail.episodes) {
      out << "  " << Field(episode, "id") << "  " << Printable(Field(episode, "start")) << " .. "
          << Printable(Field(episode, "end")) << "  " << episode.value("turns", 0) << " turns\n    "
          << Printable(Excerpt(Field(episode, "narrative"), 200)) << "\n";
      for (const io::Json& scene : episode["scenes"]) {
        std::string keywords;
        for (const io::Json& keyword : scene["keywords"]) {
          if (keyword.is_string()) {
            keywords += (keywords.empty() ? "" : ", ") + keyword.get<std::string>();
          }
        }
        out << "  scene " << Field(scene, "id") << "  " << scene.value("episodes", 0)
            << " episodes  keywords: " << Printable(keywords) << "\n";
      }
    }
  }
  if (!detail.content.is_null()) {
    out << "content     ";
    bool first = true;
    for (const char* name : {"information_density", "sentiment", "entity_norm", "divergence"}) {
      if (!detail.content.contains(name)) continue;
      out << (first ? "" : " ") << name << "=" << detail.content[name].dump();
      first = false;
    }
    out << "\n";
  }
}

int RunShow(const MemoryArgs& args, Console& console) {
  int exit_code = 0;
  std::unique_ptr<Engine> engine = Open(console, "show", &exit_code);
  if (!engine) return exit_code;
  StatusOr<Memory> memory = engine->Get(args.id);
  if (!memory.ok()) return console.Fail("show", memory.status());
  std::optional<TurnDetail> detail;
  if (memory->kind == NodeKind::kTurn) {
    StatusOr<TurnDetail> loaded = LoadTurnDetail(*engine, *memory);
    if (!loaded.ok()) return console.Fail("show", loaded.status());
    detail = *std::move(loaded);
  }
  if (console.json()) {
    io::Json json = io::ToJson(*memory);
    if (detail.has_value()) {
      json["signals"] = detail->signals;
      json["content_signals"] = detail->content;
      json["times"] = detail->times;
      json["entities"] = detail->entities;
      json["references"] = detail->references;
      json["facts"] = detail->facts;
      json["episodes"] = detail->episodes;
    }
    console.PrintJson(json);
  } else {
    PrintMemory(*memory, console);
    if (detail.has_value()) PrintTurnDetail(*detail, console);
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
  StatusOr<io::MemoryPage> page = io::ListPage(*engine, *scope, options);
  if (!page.ok()) return console.Fail("list", page.status());
  const std::vector<Memory>* memories = &page->memories;
  if (console.json()) {
    io::Json json = io::Json::object();
    json["scope"] = scope->ToString();
    json["count"] = memories->size();
    io::Json list = io::Json::array();
    for (const Memory& memory : *memories) list.push_back(io::ToJson(memory));
    json["memories"] = std::move(list);
    json["next_after"] = page->next_after ? io::Json(*page->next_after) : io::Json(nullptr);
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
  if (!console.quiet() && page->next_after.has_value()) {
    out << "(more follow: --after " << *page->next_after << ")\n";
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

  CLI::App* show = app.add_subcommand(
      "show",
      "Show one memory by id (a turn with its signals, times, entities, references, facts)");
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
