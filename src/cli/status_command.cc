// `engram status`: the store's derivation backlog, what `/metrics` shows a server's operator — the
// turns acknowledged and not yet embedded and derived (and the scopes holding them) against the
// back-pressure limit ([write] max_pending_turns). It opens the engine without the derivation
// worker, so looking derives nothing; the counters of a running server's worker (turns derived,
// writes refused, failures) are that server's, in its /metrics.
//
//   $ engram status
//   pending turns   1,204 in 3 scopes (limit 100,000)
//   $ engram --json status
//   {"pending_turns": 1204, "pending_scopes": 3, "max_pending_turns": 100000, "accepting": true}
//
// Exit code 0, also with a backlog at the limit (the store is fine; writes wait); 3 when the store
// does not exist.
#include <memory>
#include <string>

#include "cli/cli.h"

namespace engram::cli {
namespace {

constexpr std::string_view kCommand = "status";

// 1234567 -> "1,234,567".
std::string Grouped(std::int64_t value) {
  std::string digits = std::to_string(value < 0 ? -value : value);
  for (int at = static_cast<int>(digits.size()) - 3; at > 0; at -= 3) {
    digits.insert(static_cast<std::size_t>(at), ",");
  }
  return value < 0 ? "-" + digits : digits;
}

int RunStatus(Console& console) {
  StatusOr<std::unique_ptr<Engine>> engine =
      OpenEngine(console.global(), /*create_if_missing=*/false, /*background_derivation=*/false);
  if (!engine.ok()) return console.Fail(kCommand, engine.status());
  StatusOr<DerivationStatus> derivation = (*engine)->Derivation();
  if (!derivation.ok()) return console.Fail(kCommand, derivation.status());
  const std::int64_t limit = derivation->max_pending_turns;
  const bool accepting = limit <= 0 || derivation->pending_turns < limit;
  if (console.json()) {
    io::Json out = {{"pending_turns", derivation->pending_turns},
                    {"pending_scopes", derivation->pending_scopes},
                    {"max_pending_turns", limit},
                    {"accepting", accepting}};
    console.PrintJson(out);
    return ToInt(ExitCode::kOk);
  }
  std::ostream& out = console.out();
  out << "pending turns   " << Grouped(derivation->pending_turns) << " in "
      << Grouped(static_cast<std::int64_t>(derivation->pending_scopes)) << " scope"
      << (derivation->pending_scopes == 1 ? "" : "s");
  if (limit <= 0) {
    out << " (no limit: [write] max_pending_turns = 0)\n";
  } else if (accepting) {
    out << " (limit " << Grouped(limit) << ")\n";
  } else {
    out << " (limit " << Grouped(limit)
        << " reached: writes acknowledged before their derivation are refused until the "
           "backlog is derived)\n";
  }
  return ToInt(ExitCode::kOk);
}

}  // namespace

void AddStatusCommand(CLI::App& app, Console& console, CommandList* commands) {
  CLI::App* status = app.add_subcommand(
      "status", "Show the derivation backlog: turns awaiting derivation against the limit");
  status->footer(
      "Pending turns were acknowledged (stored and searchable by BM25) and await their embedding\n"
      "and derivation. While [write] max_pending_turns or more are pending, writes that would be\n"
      "acknowledged first are refused (Unavailable; HTTP 503 with Retry-After). Opening the\n"
      "store here derives nothing; a running server's counters are in its /metrics.\n");
  commands->push_back({status, [&console] { return RunStatus(console); }});
}

}  // namespace engram::cli
