// proposal_commands.cc: identity merges (`same_as` edges) — `proposals` lists a scope's merge
// proposals, `propose-same` stages one, `accept` and `reject` decide one.
#include <memory>
#include <string>
#include <vector>

#include "cli/cli.h"

namespace engram::cli {
namespace {

struct ProposalArgs {
  std::string scope;
  std::string id;
  std::string a;
  std::string b;
  std::string reason;
};

void PrintProposal(const MergeProposal& proposal, Console& console) {
  console.out() << proposal.id << "  " << Printable(proposal.status) << "  "
                << Printable(proposal.a) << " = " << Printable(proposal.b);
  if (!proposal.reason.empty()) console.out() << "  (" << Printable(proposal.reason) << ")";
  console.out() << "\n";
}

int RunProposals(const ProposalArgs& args, Console& console) {
  StatusOr<Scope> scope = Scope::Parse(args.scope);
  if (!scope.ok()) return console.UsageError("proposals", "--scope: " + scope.status().message());
  StatusOr<std::unique_ptr<Engine>> engine = OpenEngine(console.global(), false);
  if (!engine.ok()) return console.Fail("proposals", engine.status());
  StatusOr<std::vector<MergeProposal>> proposals = (*engine)->ListProposals(*scope);
  if (!proposals.ok()) return console.Fail("proposals", proposals.status());
  if (console.json()) {
    io::Json json = io::Json::object();
    json["scope"] = scope->ToString();
    io::Json list = io::Json::array();
    for (const MergeProposal& proposal : *proposals) list.push_back(io::ToJson(proposal));
    json["proposals"] = std::move(list);
    console.PrintJson(json);
    return ToInt(ExitCode::kOk);
  }
  if (!console.quiet()) {
    console.out() << proposals->size() << (proposals->size() == 1 ? " proposal" : " proposals")
                  << " in " << Printable(scope->ToString()) << "\n";
  }
  for (const MergeProposal& proposal : *proposals) PrintProposal(proposal, console);
  return ToInt(ExitCode::kOk);
}

// accept / reject: the same shape, a different engine call.
int RunDecision(const ProposalArgs& args, Console& console, bool accept) {
  const std::string_view command = accept ? "accept" : "reject";
  StatusOr<std::unique_ptr<Engine>> engine = OpenEngine(console.global(), false);
  if (!engine.ok()) return console.Fail(command, engine.status());
  const Status status =
      accept ? (*engine)->AcceptProposal(args.id) : (*engine)->RejectProposal(args.id);
  if (!status.ok()) return console.Fail(command, status);
  if (console.json()) {
    io::Json json = io::Json::object();
    json["id"] = args.id;
    json["status"] = accept ? "accepted" : "rejected";
    console.PrintJson(json);
  } else {
    console.out() << (accept ? "accepted " : "rejected ") << Printable(args.id) << "\n";
  }
  return ToInt(ExitCode::kOk);
}

int RunProposeSame(const ProposalArgs& args, Console& console) {
  StatusOr<std::unique_ptr<Engine>> engine = OpenEngine(console.global(), false);
  if (!engine.ok()) return console.Fail("propose-same", engine.status());
  StatusOr<MergeProposal> proposal = (*engine)->ProposeSameAs(args.a, args.b, args.reason);
  if (!proposal.ok()) return console.Fail("propose-same", proposal.status());
  if (console.json()) {
    console.PrintJson(io::ToJson(*proposal));
  } else {
    PrintProposal(*proposal, console);
  }
  return ToInt(ExitCode::kOk);
}

}  // namespace

void AddProposalCommands(CLI::App& app, Console& console, CommandList* commands) {
  auto args = std::make_shared<ProposalArgs>();

  CLI::App* proposals = app.add_subcommand(
      "proposals", "List the merge proposals of a scope (alias: merges)");
  proposals->alias("merges");
  proposals->add_option("--scope", args->scope, "Scope")->required();
  commands->push_back({proposals, [args, &console] { return RunProposals(*args, console); }});

  CLI::App* accept = app.add_subcommand("accept", "Accept a pending merge proposal");
  accept->add_option("ID", args->id, "Proposal id")->required()->check(IdValidator());
  commands->push_back({accept, [args, &console] { return RunDecision(*args, console, true); }});

  CLI::App* reject = app.add_subcommand("reject", "Reject a pending merge proposal");
  reject->add_option("ID", args->id, "Proposal id")->required()->check(IdValidator());
  commands->push_back({reject, [args, &console] { return RunDecision(*args, console, false); }});

  CLI::App* propose =
      app.add_subcommand("propose-same", "Propose that memories A and B are the same thing");
  propose->footer("The proposal stays pending until accepted or rejected.\n");
  propose->add_option("A", args->a, "First memory id")->required()->check(IdValidator());
  propose->add_option("B", args->b, "Second memory id")->required()->check(IdValidator());
  propose->add_option("--reason", args->reason, "Why they are the same");
  commands->push_back({propose, [args, &console] { return RunProposeSame(*args, console); }});
}

}  // namespace engram::cli
