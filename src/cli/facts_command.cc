// facts_command.cc: `engram facts --scope S [--all]` — the facts the write path derived in a
// scope: by default the current ones (status active; with --valid-at T those valid at T,
// superseded since or not; with --known-at T as engram had recorded them by T), with --all also
// superseded, contradicted (pending), retired and rejected ones, with --rejected only the
// candidates the validator rejected (each with the failed check and the reason). Each fact shows
// its subject, predicate and object, its validity, the turns it stands on and its supersession
// chain (what it replaced, what replaced it, what it corrects or contradicts).
//
// Reads through the public API only, with the reader REST and Python share (io/scope_records.h).
#include <memory>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "io/scope_records.h"

namespace engram::cli {
namespace {

struct FactsArgs {
  std::string scope;
  bool all = false;
  bool rejected = false;
  AsOfFlags as_of;
};

std::string Join(const std::vector<std::string>& ids) {
  std::string out;
  for (const std::string& id : ids) out += (out.empty() ? "" : ",") + id;
  return out;
}

void Print(const io::FactRecord& line, Console& console) {
  const Memory& memory = line.memory;
  std::ostream& out = console.out();
  out << memory.id << "  " << NodeStatusName(memory.status) << "  "
      << Printable(io::StringField(line.fields, "kind")) << "  "
      << Printable(io::StringField(line.fields, "subject")) << " | "
      << Printable(io::StringField(line.fields, "predicate"))
      << (io::StringField(line.fields, "polarity") == "-" ? " (not)" : "") << " | "
      << Printable(io::StringField(line.fields, "object"));
  const auto uncertain = line.fields.find("uncertain");
  if (uncertain != line.fields.end() && uncertain->is_boolean() && uncertain->get<bool>()) {
    out << "  (uncertain)";
  }
  out << "\n    valid " << TimeOrDash(memory.valid_from) << " .. "
      << (memory.valid_to ? FormatTimestamp(*memory.valid_to) : std::string("(open)"));
  if (line.fields.contains("time") && line.fields["time"].is_object()) {
    out << "  time \"" << Printable(io::StringField(line.fields["time"], "text")) << "\"";
  }
  out << "  turns " << Join(memory.provenance) << "\n";
  if (line.fields.contains("rejected") && line.fields["rejected"].is_object()) {
    out << "    rejected (" << Printable(io::StringField(line.fields["rejected"], "check"))
        << "): " << Printable(io::StringField(line.fields["rejected"], "reason")) << "\n";
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
  io::FactsFilter filter;
  filter.all = args.all;
  filter.rejected = args.rejected;
  filter.valid_at = as_of->valid_at;
  filter.known_at = as_of->known_at;
  StatusOr<std::vector<io::FactRecord>> facts = io::LoadFacts(**engine, *scope, filter);
  if (!facts.ok()) return console.Fail("facts", facts.status());
  const std::vector<io::FactRecord>& lines = *facts;
  if (console.json()) {
    console.PrintJson(io::FactsDocument(*scope, filter, lines));
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
  for (const io::FactRecord& line : lines) Print(line, console);
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
