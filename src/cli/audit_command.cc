// `engram audit` (the Merkle audit of a scope, or the proof of one memory), `engram export` and
// `engram import` (a scope as JSON Lines with its root). docs/AUDIT.md describes the rules.
#include <iostream>
#include <memory>
#include <string>

#include "cli/cli.h"
#include "io/file_reader.h"
#include "io/file_writer.h"

namespace engram::cli {
namespace {

struct AuditArgs {
  std::string scope;
  std::string proof;
  std::string out;
  std::string file;
  std::string import_scope;
};

std::unique_ptr<Engine> Open(Console& console, std::string_view command, bool create,
                             int* exit_code) {
  StatusOr<std::unique_ptr<Engine>> engine = OpenEngine(console.global(), create);
  if (!engine.ok()) {
    *exit_code = console.Fail(command, engine.status());
    return nullptr;
  }
  return *std::move(engine);
}

io::Json ReportJson(const AuditReport& report) {
  io::Json json = {{"scope", report.scope},     {"ok", report.ok},
                   {"root", report.root},       {"stored_root", report.stored_root},
                   {"scopes", report.scopes},   {"nodes", report.nodes},
                   {"edges", report.edges},     {"mismatch", nullptr}};
  if (report.mismatch.has_value()) {
    json["mismatch"] = {{"scope", report.mismatch->scope},
                        {"id", report.mismatch->target_id},
                        {"kind", report.mismatch->kind},
                        {"reason", report.mismatch->reason}};
  }
  return json;
}

io::Json ProofJson(const MerkleProof& proof) {
  io::Json scopes = io::Json::array();
  for (const ProofScope& level : proof.scopes) {
    io::Json children = io::Json::array();
    for (const ProofScope::Child& child : level.children) {
      children.push_back({{"scope", child.scope}, {"root", child.root}});
    }
    scopes.push_back({{"scope", level.scope},
                      {"node_root", level.node_root},
                      {"node_count", level.node_count},
                      {"edge_root", level.edge_root},
                      {"edge_count", level.edge_count},
                      {"children", children},
                      {"root", level.root}});
  }
  return {{"id", proof.memory_id},       {"leaf_hash", proof.leaf_hash},
          {"leaf_index", proof.leaf_index}, {"leaf_count", proof.leaf_count},
          {"audit_path", proof.audit_path}, {"scopes", scopes},
          {"verified", proof.verified}};
}

int RunProof(const AuditArgs& args, Console& console) {
  constexpr std::string_view kCommand = "audit";
  int exit_code = 0;
  std::unique_ptr<Engine> engine = Open(console, kCommand, false, &exit_code);
  if (!engine) return exit_code;
  StatusOr<MerkleProof> proof = engine->Proof(args.proof);
  if (!proof.ok()) return console.Fail(kCommand, proof.status());
  if (console.json()) {
    console.PrintJson(ProofJson(*proof));
  } else {
    std::ostream& out = console.out();
    out << "memory " << proof->memory_id << "\n"
        << "  leaf " << proof->leaf_hash << " (" << proof->leaf_index + 1 << " of "
        << proof->leaf_count << " in the node log)\n";
    for (const std::string& step : proof->audit_path) out << "  path " << step << "\n";
    for (const ProofScope& level : proof->scopes) {
      out << "scope " << Printable(level.scope) << "\n"
          << "  nodes " << level.node_count << " root " << level.node_root << "\n"
          << "  edges " << level.edge_count << " root " << level.edge_root << "\n";
      for (const ProofScope::Child& child : level.children) {
        out << "  nested " << Printable(child.scope) << " " << child.root << "\n";
      }
      out << "  root " << level.root << "\n";
    }
    out << (proof->verified ? "verified" : "NOT verified: the path does not lead to the roots")
        << "\n";
  }
  return proof->verified ? ToInt(ExitCode::kOk) : ToInt(ExitCode::kError);
}

int RunAudit(const AuditArgs& args, Console& console) {
  constexpr std::string_view kCommand = "audit";
  if (args.scope.empty() == args.proof.empty()) {
    return console.UsageError(kCommand, "give either --scope S or --proof ID");
  }
  if (!args.proof.empty()) return RunProof(args, console);
  StatusOr<Scope> scope = Scope::Parse(args.scope);
  if (!scope.ok()) return console.UsageError(kCommand, "--scope: " + scope.status().message());
  int exit_code = 0;
  std::unique_ptr<Engine> engine = Open(console, kCommand, false, &exit_code);
  if (!engine) return exit_code;
  StatusOr<AuditReport> report = engine->Audit(*scope);
  if (!report.ok()) return console.Fail(kCommand, report.status());
  if (console.json()) {
    console.PrintJson(ReportJson(*report));
  } else {
    std::ostream& out = console.out();
    out << "scope  " << Printable(report->scope) << "\n"
        << "root   " << report->root << "\n"
        << "counts " << report->scopes << (report->scopes == 1 ? " scope, " : " scopes, ")
        << report->nodes << " nodes, " << report->edges << " edges\n";
    if (report->ok) {
      out << "ok: every memory, edge and root matches the stored root\n";
    } else {
      const AuditMismatch& mismatch = *report->mismatch;
      out << "MISMATCH in " << Printable(mismatch.scope) << ": " << mismatch.kind
          << (mismatch.target_id.empty() ? "" : " " + mismatch.target_id) << ": "
          << Printable(mismatch.reason) << "\n"
          << "stored root " << report->stored_root << "\n";
    }
  }
  if (!report->ok) {
    if (!console.json()) {
      console.err() << "engram: audit: " << Printable(report->scope) << " does not match its "
                    << "stored root\n";
    }
    return ToInt(ExitCode::kError);
  }
  return ToInt(ExitCode::kOk);
}

int RunExport(const AuditArgs& args, Console& console) {
  constexpr std::string_view kCommand = "export";
  StatusOr<Scope> scope = Scope::Parse(args.scope);
  if (!scope.ok()) return console.UsageError(kCommand, "--scope: " + scope.status().message());
  int exit_code = 0;
  std::unique_ptr<Engine> engine = Open(console, kCommand, false, &exit_code);
  if (!engine) return exit_code;
  std::string text;
  StatusOr<ExportSummary> summary = engine->Export(*scope, &text);
  if (!summary.ok()) return console.Fail(kCommand, summary.status());
  if (args.out.empty() || args.out == io::kStdinPath) {
    console.out() << text;
    console.out().flush();
    return ToInt(ExitCode::kOk);
  }
  if (Status written = io::WriteFile(args.out, text); !written.ok()) {
    return console.Fail(kCommand, written);
  }
  if (console.json()) {
    console.PrintJson({{"scope", summary->scope},
                       {"root", summary->root},
                       {"file", args.out},
                       {"scopes", summary->scopes},
                       {"nodes", summary->nodes},
                       {"edges", summary->edges},
                       {"vectors", summary->vectors}});
  } else {
    console.out() << "exported " << Printable(summary->scope) << " to " << Printable(args.out)
                  << ": " << summary->scopes << (summary->scopes == 1 ? " scope, " : " scopes, ")
                  << summary->nodes << " nodes, " << summary->edges << " edges, "
                  << summary->vectors << " vectors\nroot " << summary->root << "\n";
  }
  return ToInt(ExitCode::kOk);
}

int RunImport(const AuditArgs& args, Console& console) {
  constexpr std::string_view kCommand = "import";
  ImportOptions options;
  options.source_name = io::DisplayName(args.file);
  if (!args.import_scope.empty()) {
    StatusOr<Scope> scope = Scope::Parse(args.import_scope);
    if (!scope.ok()) return console.UsageError(kCommand, "--scope: " + scope.status().message());
    options.scope = *std::move(scope);
  }
  StatusOr<std::string> text = io::ReadFile(args.file);
  if (!text.ok()) return console.Fail(kCommand, text.status());
  int exit_code = 0;
  std::unique_ptr<Engine> engine = Open(console, kCommand, true, &exit_code);
  if (!engine) return exit_code;
  StatusOr<ImportSummary> summary = engine->Import(*text, options);
  if (!summary.ok()) return console.Fail(kCommand, summary.status());
  if (console.json()) {
    console.PrintJson({{"scope", summary->scope},
                       {"source_scope", summary->source_scope},
                       {"root", summary->root},
                       {"file_root", summary->file_root},
                       {"renamed", summary->renamed},
                       {"scopes", summary->scopes},
                       {"nodes", summary->nodes},
                       {"edges", summary->edges},
                       {"vectors", summary->vectors}});
  } else {
    console.out() << "imported " << Printable(summary->scope);
    if (summary->renamed) console.out() << " (from " << Printable(summary->source_scope) << ")";
    console.out() << ": " << summary->scopes << (summary->scopes == 1 ? " scope, " : " scopes, ")
                  << summary->nodes << " nodes, " << summary->edges << " edges, "
                  << summary->vectors << " vectors\nroot " << summary->root << "\n";
    if (summary->renamed) {
      console.out() << "(new ids under the new name; the file's root was " << summary->file_root
                    << ")\n";
    }
  }
  return ToInt(ExitCode::kOk);
}

}  // namespace

void AddAuditCommands(CLI::App& app, Console& console, CommandList* commands) {
  auto args = std::make_shared<AuditArgs>();

  CLI::App* audit = app.add_subcommand(
      "audit", "Recompute a scope's Merkle root from the store, or prove one memory's place in it");
  audit->footer(
      "engram audit --scope S     recomputes every id, leaf and root of S and its nested scopes\n"
      "                           and names the first memory that does not match (exit code 1)\n"
      "engram audit --proof ID    the path from a memory to its scope's root and every enclosing\n"
      "                           scope's root, verified\n");
  audit->add_option("--scope", args->scope, "Scope to audit (with its nested scopes)");
  audit->add_option("--proof", args->proof, "Memory id to prove")->check(IdValidator());
  commands->push_back({audit, [args, &console] { return RunAudit(*args, console); }});

  CLI::App* exporter = app.add_subcommand(
      "export", "Write a scope (and its nested scopes) as JSON Lines with its Merkle root");
  exporter->footer(
      "Turns, derived memories, edges, validity, status and vectors, in a fixed order; a file\n"
      "name ending in .zst is zstd-compressed. Without --out the lines go to stdout.\n");
  exporter->add_option("--scope", args->scope, "Scope to export")->required();
  exporter->add_option("--out", args->out, "Output file (.jsonl or .jsonl.zst)");
  commands->push_back({exporter, [args, &console] { return RunExport(*args, console); }});

  CLI::App* importer = app.add_subcommand(
      "import", "Read an export into this store, checking every id and the root (all or nothing)");
  importer->footer(
      "Under the file's scope name the ids and the root are the file's. With --scope NEW every\n"
      "id is recomputed for the new name and the new root is reported. A file that does not\n"
      "match its root, or is malformed, is refused naming the line; nothing is written.\n");
  importer->add_option("FILE", args->file, "Export file (.jsonl, .jsonl.zst, - for stdin)")
      ->required();
  importer->add_option("--scope", args->import_scope, "Import under this scope name instead");
  commands->push_back({importer, [args, &console] { return RunImport(*args, console); }});
}

}  // namespace engram::cli
