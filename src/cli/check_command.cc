// `engram check`: is the store intact? Two checks, both reported (docs/RELIABILITY.md, "Damaged
// stores"):
//   1. the database file: SQLite's full `PRAGMA integrity_check` (every page, every B-tree, every
//      index against its table), run on a read connection of its own, so it reports a store that
//      no longer opens too; a PostgreSQL store has no file of engram's to check (the server
//      checks its own pages, with data checksums when the cluster has them enabled), so the
//      Merkle audit is its check;
//   2. the Merkle audit (`engram audit`, docs/AUDIT.md) of every top-level scope, which
//      recomputes every id, leaf and root of it and its nested scopes from the stored rows.
// Exit code 0 when both pass, 1 when either finds a problem (or cannot run: a store that does
// not open cannot be audited), 3 when the store does not exist.
#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "store/sqlite/integrity.h"
#include "store/store.h"

namespace engram::cli {
namespace {

constexpr std::string_view kCommand = "check";

// The file half of the check.
struct FileCheck {
  bool ran = false;  // false for PostgreSQL
  store::sqlite::IntegrityReport report;
};

// The audit half: one report per top-level scope, or why it could not run.
struct AuditCheck {
  bool ran = false;
  std::string error;  // set when the store did not open or an audit failed to run
  std::vector<AuditReport> reports;
  bool ok() const {
    if (!ran || !error.empty()) return false;
    for (const AuditReport& report : reports) {
      if (!report.ok) return false;
    }
    return true;
  }
};

// The scopes no listed scope contains: auditing them audits every scope once.
std::vector<Scope> TopLevelScopes(const std::vector<ScopeInfo>& scopes) {
  std::set<std::string> listed;
  for (const ScopeInfo& info : scopes) listed.insert(info.scope);
  std::vector<Scope> top;
  for (const ScopeInfo& info : scopes) {
    StatusOr<Scope> scope = Scope::Parse(info.scope);
    if (!scope.ok()) continue;
    bool nested = false;
    for (std::optional<Scope> parent = scope->Parent(); parent.has_value() && !nested;
         parent = parent->Parent()) {
      nested = listed.count(parent->ToString()) > 0;
    }
    if (!nested) top.push_back(*std::move(scope));
  }
  return top;
}

AuditCheck RunAudits(Console& console) {
  AuditCheck check;
  StatusOr<std::unique_ptr<Engine>> engine =
      OpenEngine(console.global(), /*create_if_missing=*/false, /*background_derivation=*/false);
  if (!engine.ok()) {
    check.error = "the store does not open: " + engine.status().ToString();
    return check;
  }
  check.ran = true;
  StatusOr<std::vector<ScopeInfo>> scopes = (*engine)->ListScopes();
  if (!scopes.ok()) {
    check.error = "listing the scopes failed: " + scopes.status().ToString();
    return check;
  }
  for (const Scope& scope : TopLevelScopes(*scopes)) {
    StatusOr<AuditReport> report = (*engine)->Audit(scope);
    if (!report.ok()) {
      check.error = "auditing " + scope.ToString() + " failed: " + report.status().ToString();
      return check;
    }
    check.reports.push_back(*std::move(report));
  }
  return check;
}

io::Json FileJson(const std::string& store, const FileCheck& file) {
  if (!file.ran) {
    return {{"check", "none"},
            {"ok", nullptr},
            {"note", "a PostgreSQL store: the server checks its own pages (data checksums when "
                     "the cluster has them); the Merkle audit checks engram's rows"}};
  }
  return {{"check", std::string(store::sqlite::IntegrityCheckName(file.report.check))},
          {"ok", file.report.ok()},
          {"file", store},
          {"bytes", file.report.file_bytes},
          {"problems", file.report.problems}};
}

io::Json AuditJson(const AuditCheck& audit) {
  io::Json scopes = io::Json::array();
  std::int64_t nodes = 0;
  std::int64_t edges = 0;
  std::int64_t scope_count = 0;
  for (const AuditReport& report : audit.reports) {
    io::Json entry = {{"scope", report.scope},   {"ok", report.ok},
                      {"root", report.root},     {"stored_root", report.stored_root},
                      {"scopes", report.scopes}, {"nodes", report.nodes},
                      {"edges", report.edges},   {"mismatch", nullptr}};
    if (report.mismatch.has_value()) {
      entry["mismatch"] = {{"scope", report.mismatch->scope},
                           {"id", report.mismatch->target_id},
                           {"kind", report.mismatch->kind},
                           {"reason", report.mismatch->reason}};
    }
    scopes.push_back(std::move(entry));
    nodes += report.nodes;
    edges += report.edges;
    scope_count += report.scopes;
  }
  return {{"ok", audit.ok()},
          {"ran", audit.ran},
          {"error", audit.error.empty() ? io::Json(nullptr) : io::Json(audit.error)},
          {"scopes", scope_count},
          {"nodes", nodes},
          {"edges", edges},
          {"top_level_scopes", scopes}};
}

void PrintHuman(std::ostream& out, const std::string& store, const FileCheck& file,
                const AuditCheck& audit) {
  out << "store      " << Printable(store) << "\n";
  if (!file.ran) {
    out << "file       not checked: a PostgreSQL store (the server checks its own pages)\n";
  } else if (file.report.ok()) {
    out << "file       ok (" << store::sqlite::IntegrityCheckName(file.report.check) << ", "
        << file.report.file_bytes << " bytes)\n";
  } else {
    out << "file       DAMAGED (" << store::sqlite::IntegrityCheckName(file.report.check)
        << " found " << file.report.problems.size()
        << (file.report.problems.size() == 1 ? " problem" : " problems") << ")\n";
    for (const std::string& problem : file.report.problems) {
      out << "  " << Printable(problem) << "\n";
    }
  }
  if (!audit.error.empty()) {
    out << "audit      NOT RUN: " << Printable(audit.error) << "\n";
  } else {
    std::int64_t nodes = 0;
    std::int64_t edges = 0;
    std::int64_t scopes = 0;
    for (const AuditReport& report : audit.reports) {
      nodes += report.nodes;
      edges += report.edges;
      scopes += report.scopes;
    }
    out << "audit      " << (audit.ok() ? "ok" : "MISMATCH") << " (" << scopes
        << (scopes == 1 ? " scope, " : " scopes, ") << nodes << " nodes, " << edges
        << " edges)\n";
    for (const AuditReport& report : audit.reports) {
      if (report.ok || !report.mismatch.has_value()) continue;
      const AuditMismatch& mismatch = *report.mismatch;
      out << "  " << Printable(mismatch.scope) << ": " << mismatch.kind
          << (mismatch.target_id.empty() ? "" : " " + mismatch.target_id) << ": "
          << Printable(mismatch.reason) << "\n";
    }
  }
}

int RunCheck(Console& console) {
  const std::string& store = console.global().store;
  FileCheck file;
  if (!store::IsPostgresUrl(store)) {
    file.ran = true;
    StatusOr<store::sqlite::IntegrityReport> report =
        store::sqlite::CheckStoreFile(store, store::SqliteOptions().busy_timeout_ms);
    if (!report.ok()) return console.Fail(kCommand, report.status());
    file.report = *std::move(report);
  }
  // A damaged file is not opened again for the audit: the open would refuse it.
  AuditCheck audit;
  if (file.ran && !file.report.ok()) {
    audit.error = "the store file is damaged, so its rows cannot be audited";
  } else {
    audit = RunAudits(console);
  }
  const bool ok = (!file.ran || file.report.ok()) && audit.ok();
  const std::string shown = store::RedactStoreLocation(store);
  if (console.json()) {
    console.PrintJson({{"store", shown},
                       {"backend", file.ran ? "sqlite" : "postgresql"},
                       {"ok", ok},
                       {"file", FileJson(shown, file)},
                       {"audit", AuditJson(audit)}});
  } else {
    PrintHuman(console.out(), shown, file, audit);
    console.out() << (ok ? "ok\n" : "PROBLEMS FOUND\n");
  }
  if (!ok && !console.json()) {
    console.err() << "engram: check: " << Printable(shown)
                  << " has problems; restore it from a backup, or import your scope exports "
                     "into a new store (docs/RELIABILITY.md, \"Damaged stores\")\n";
  }
  return ok ? ToInt(ExitCode::kOk) : ToInt(ExitCode::kError);
}

}  // namespace

void AddCheckCommand(CLI::App& app, Console& console, CommandList* commands) {
  CLI::App* check = app.add_subcommand(
      "check", "Check the store for damage: SQLite's integrity check and the Merkle audit");
  check->footer(
      "Runs PRAGMA integrity_check over the whole SQLite file (every page, B-tree and index)\n"
      "and the Merkle audit of every scope (engram audit). A PostgreSQL store gets the audit\n"
      "only: the server checks its own pages. Exit code 1 when either finds a problem.\n");
  commands->push_back({check, [&console] { return RunCheck(console); }});
}

}  // namespace engram::cli
