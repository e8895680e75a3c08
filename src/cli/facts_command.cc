// facts_command.cc: `engram facts --scope S [--all]` — the facts the write path derived in a
// scope: by default the current ones (status active; with --valid-at T those valid at T,
// superseded since or not; with --known-at T as engram had recorded them by T), with --all also
// superseded, contradicted (pending), retired and rejected ones, with --rejected only the
// candidates the validator rejected (each with the failed check and the reason). Each fact shows
// its subject, predicate and object, its validity, the turns it stands on and its supersession
// chain (what it replaced, what replaced it, what it corrects or contradicts).
//
// Reads through the public API only: Engine::List (kind fact; a fact's metadata holds its
// fields) and Engine::History (the supersedes / corrects / contradicts edges).
#include <memory>
#include <string>
#include <vector>

#include "cli/cli.h"

namespace engram::cli {
namespace {

struct FactsArgs {
  std::string scope;
  bool all = false;
  bool rejected = false;
  AsOfFlags as_of;
};

struct FactLine {
  Memory memory;
  io::Json fields;  // the fact's metadata (subject, predicate, object, ...)
  std::vector<std::string> supersedes;
  std::vector<std::string> superseded_by;
  std::vector<std::string> corrects;
  std::vector<std::string> corrected_by;
  std::vector<std::string> contradicts;
};

std::string Field(const io::Json& fields, const char* name) {
  const auto found = fields.find(name);
  if (found == fields.end() || !found->is_string()) return "";
  return found->get<std::string>();
}

// `known_at`: only the edges engram had recorded by then.
StatusOr<FactLine> Load(Engine& engine, Memory memory, const std::optional<Timestamp>& known_at) {
  FactLine line;
  line.fields = io::Json::parse(memory.metadata_json, nullptr, /*allow_exceptions=*/false);
  if (!line.fields.is_object()) line.fields = io::Json::object();
  ASSIGN_OR_RETURN(const std::vector<HistoryEvent> history, engine.History(memory.id));
  for (const HistoryEvent& event : history) {
    if (event.related_id.empty() || (known_at && event.at > *known_at)) continue;
    if (event.action == "supersedes") line.supersedes.push_back(event.related_id);
    if (event.action == "supersedes (incoming)") line.superseded_by.push_back(event.related_id);
    if (event.action == "corrects") line.corrects.push_back(event.related_id);
    if (event.action == "corrects (incoming)") line.corrected_by.push_back(event.related_id);
    if (event.action.rfind("contradicts", 0) == 0) line.contradicts.push_back(event.related_id);
  }
  line.memory = std::move(memory);
  return line;
}

io::Json ToJson(const FactLine& line) {
  const Memory& memory = line.memory;
  io::Json json = io::Json::object();
  json["id"] = memory.id;
  json["status"] = NodeStatusName(memory.status);
  json["sequence"] = memory.sequence;
  for (const char* name : {"kind", "subject", "predicate", "object", "polarity", "extractor"}) {
    json[name] = Field(line.fields, name);
  }
  json["uncertain"] = line.fields.value("uncertain", false);
  json["time"] = line.fields.contains("time") ? line.fields["time"] : io::Json(nullptr);
  json["text"] = memory.text;
  json["valid_from"] =
      memory.valid_from ? io::Json(FormatTimestamp(*memory.valid_from)) : io::Json(nullptr);
  json["valid_to"] =
      memory.valid_to ? io::Json(FormatTimestamp(*memory.valid_to)) : io::Json(nullptr);
  json["provenance"] = memory.provenance;
  json["supersedes"] = line.supersedes;
  json["superseded_by"] = line.superseded_by;
  json["corrects"] = line.corrects;
  json["corrected_by"] = line.corrected_by;
  json["contradicts"] = line.contradicts;
  json["rejected"] = line.fields.contains("rejected") && line.fields["rejected"].is_object()
                         ? line.fields["rejected"]
                         : io::Json(nullptr);
  return json;
}

std::string Join(const std::vector<std::string>& ids) {
  std::string out;
  for (const std::string& id : ids) out += (out.empty() ? "" : ",") + id;
  return out;
}

void Print(const FactLine& line, Console& console) {
  const Memory& memory = line.memory;
  std::ostream& out = console.out();
  out << memory.id << "  " << NodeStatusName(memory.status) << "  "
      << Printable(Field(line.fields, "kind")) << "  " << Printable(Field(line.fields, "subject"))
      << " | " << Printable(Field(line.fields, "predicate"))
      << (Field(line.fields, "polarity") == "-" ? " (not)" : "") << " | "
      << Printable(Field(line.fields, "object"));
  if (line.fields.value("uncertain", false)) out << "  (uncertain)";
  out << "\n    valid " << TimeOrDash(memory.valid_from) << " .. "
      << (memory.valid_to ? FormatTimestamp(*memory.valid_to) : std::string("(open)"));
  if (line.fields.contains("time") && line.fields["time"].is_object()) {
    out << "  time \"" << Printable(Field(line.fields["time"], "text")) << "\"";
  }
  out << "  turns " << Join(memory.provenance) << "\n";
  if (line.fields.contains("rejected") && line.fields["rejected"].is_object()) {
    out << "    rejected (" << Printable(Field(line.fields["rejected"], "check"))
        << "): " << Printable(Field(line.fields["rejected"], "reason")) << "\n";
  }
  const std::pair<const char*, const std::vector<std::string>*> chains[] = {
      {"supersedes", &line.supersedes},   {"superseded by", &line.superseded_by},
      {"corrects", &line.corrects},       {"corrected by", &line.corrected_by},
      {"contradicts", &line.contradicts},
  };
  for (const auto& [label, ids] : chains) {
    if (!ids->empty()) out << "    " << label << " " << Join(*ids) << "\n";
  }
}

int RunFacts(const FactsArgs& args, Console& console) {
  StatusOr<Scope> scope = Scope::Parse(args.scope);
  if (!scope.ok()) return console.UsageError("facts", "--scope: " + scope.status().message());
  StatusOr<AsOfTimes> as_of = ParseAsOfFlags(args.as_of);
  if (!as_of.ok()) return console.UsageError("facts", as_of.status().message());
  StatusOr<std::unique_ptr<Engine>> engine = OpenEngine(console.global(), false);
  if (!engine.ok()) return console.Fail("facts", engine.status());
  ListOptions options;
  options.kind = NodeKind::kFact;
  options.limit = 0;  // every fact
  options.include_retired = true;
  // As of a time: the facts engram knew by known_at, with the status recorded then; with
  // valid_at only those valid then (superseded since or not).
  options.known_at = as_of->known_at;
  options.valid_at = as_of->valid_at;
  StatusOr<std::vector<Memory>> memories = (*engine)->List(*scope, options);
  if (!memories.ok()) return console.Fail("facts", memories.status());
  const auto current = [&](NodeStatus status) {
    if (!as_of->valid_at.has_value()) return status == NodeStatus::kActive;
    return status != NodeStatus::kRejected && status != NodeStatus::kPending;
  };
  std::vector<FactLine> lines;
  for (Memory& memory : *memories) {
    if (args.rejected && memory.status != NodeStatus::kRejected) continue;
    if (!args.all && !args.rejected && !current(memory.status)) continue;
    StatusOr<FactLine> line = Load(**engine, std::move(memory), as_of->known_at);
    if (!line.ok()) return console.Fail("facts", line.status());
    lines.push_back(*std::move(line));
  }
  if (console.json()) {
    io::Json json = io::Json::object();
    json["scope"] = scope->ToString();
    json["all"] = args.all;
    json["rejected"] = args.rejected;
    json["valid_at"] = as_of->valid_at ? io::Json(FormatTimestamp(*as_of->valid_at)) : io::Json();
    json["known_at"] = as_of->known_at ? io::Json(FormatTimestamp(*as_of->known_at)) : io::Json();
    json["count"] = lines.size();
    io::Json list = io::Json::array();
    for (const FactLine& line : lines) list.push_back(ToJson(line));
    json["facts"] = std::move(list);
    console.PrintJson(json);
    return ToInt(ExitCode::kOk);
  }
  if (!console.quiet()) {
    console.out() << lines.size()
                  << (args.rejected ? " rejected"
                      : args.all    ? ""
                      : as_of->valid_at ? " valid"
                                    : " current")
                  << (lines.size() == 1 ? " fact" : " facts") << " in "
                  << Printable(scope->ToString());
    if (as_of->valid_at) console.out() << " at " << FormatTimestamp(*as_of->valid_at);
    if (as_of->known_at) console.out() << " as known at " << FormatTimestamp(*as_of->known_at);
    console.out() << "\n";
  }
  for (const FactLine& line : lines) Print(line, console);
  return ToInt(ExitCode::kOk);
}

}  // namespace

void AddFactsCommand(CLI::App& app, Console& console, CommandList* commands) {
  auto args = std::make_shared<FactsArgs>();
  CLI::App* facts = app.add_subcommand(
      "facts", "List the facts derived in a scope (current ones; --all adds replaced ones)");
  facts->add_option("--scope", args->scope, "Scope path, e.g. user:alice")->required();
  facts->add_flag("--all", args->all,
                  "Also superseded, contradicted (pending), retired and rejected facts");
  facts->add_flag("--rejected", args->rejected,
                  "Only the candidates the validator rejected, with the reason");
  AddAsOfFlags(facts, &args->as_of);
  commands->push_back({facts, [args, &console] { return RunFacts(*args, console); }});
}

}  // namespace engram::cli
