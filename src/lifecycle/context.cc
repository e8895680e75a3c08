// Engine::Context's assembly (see context.h).
#include "lifecycle/context.h"

#include <algorithm>
#include <set>

#include "core/utf8.h"
#include "read/packing.h"

namespace engram::lifecycle {
namespace {

Status CheckBudget(std::string_view name, std::size_t budget) {
  if (budget > kMaxContextTokens) {
    return Status::InvalidArgument(std::string(name) + " " + std::to_string(budget) +
                                   " is above the largest allowed, " +
                                   std::to_string(kMaxContextTokens));
  }
  return Status::Ok();
}

WindowTurn ToWindowTurn(const RunTurn& turn, const WindowEntry& entry) {
  WindowTurn out;
  out.id = turn.node.id;
  out.sequence = turn.node.sequence;
  out.interaction = turn.input.interaction;
  out.role = turn.node.role;
  out.speaker = turn.node.speaker;
  out.session_id = turn.node.session_id;
  out.event_time = turn.node.event_time;
  out.text = turn.node.text;
  out.tokens = turn.input.tokens;
  out.omega = entry.survival.omega;
  out.omega_raw = entry.survival.omega_raw;
  out.omega_eff = entry.omega_eff;
  out.prune_score = entry.prune_score;
  out.tier = std::string(TierName(entry.tier));
  out.signals = SignalNames(turn.input.signals);
  out.superseded = turn.input.superseded;
  out.reason = std::string(KeepReasonName(entry.reason));
  out.explanation = entry.explanation;
  return out;
}

// True when the window already shows `item`: it is one of the window's turns, or every turn of
// its evidence is.
bool InWindow(const RecallItem& item, const std::set<std::string>& window_ids) {
  if (window_ids.contains(item.id)) return true;
  if (item.provenance.empty()) return false;
  return std::all_of(item.provenance.begin(), item.provenance.end(),
                     [&](const std::string& id) { return window_ids.contains(id); });
}

}  // namespace

Status CheckContextRequest(const Scope& run, std::string_view query,
                           const ContextOptions& options, const Config& config) {
  RETURN_IF_ERROR(run.Validate());
  if (run.kind() != ScopeKind::kRun) {
    return Status::InvalidArgument("context needs a run scope (its last segment run:<name>), got " +
                                   run.ToString());
  }
  if (query.size() > config.limits.max_query_bytes) {
    return Status::InvalidArgument("query is " + std::to_string(query.size()) +
                                   " bytes; at most " +
                                   std::to_string(config.limits.max_query_bytes) +
                                   " are allowed ([limits] max_query_bytes)");
  }
  if (auto bad = core::FindInvalidUtf8(query)) {
    return Status::InvalidArgument("query is not valid UTF-8 (byte " + std::to_string(*bad) +
                                   ")");
  }
  if (core::IsBlank(query)) return Status::InvalidArgument("query is empty");
  RETURN_IF_ERROR(CheckBudget("token budget", options.token_budget));
  return CheckBudget("window budget", options.window_budget);
}

StatusOr<ContextPlan> PlanContext(store::Store& store, const store::ScopeRecord& run,
                                  const Config& config, const ContextOptions& options) {
  ContextPlan plan;
  plan.run = run.path;
  plan.token_budget =
      options.token_budget > 0 ? options.token_budget : config.active.context_tokens;
  std::size_t window_budget = options.window_budget;
  if (window_budget == 0) {
    window_budget = config.active.window_tokens;
    // A budget below the default context keeps the default split between recall and window.
    if (plan.token_budget < config.active.context_tokens) {
      window_budget = std::min(window_budget, plan.token_budget * config.active.window_tokens /
                                                  config.active.context_tokens);
    }
  }
  plan.window_budget = std::min(window_budget, plan.token_budget);
  ASSIGN_OR_RETURN(plan.turns, LoadRun(store, run));

  // The window's turns share its budget with its header line.
  const std::size_t header = CountTokens(kActiveHeader);
  const std::size_t for_turns = plan.window_budget > header ? plan.window_budget - header : 0;
  plan.window = SelectWindow(Inputs(plan.turns), for_turns, config.active);
  if (plan.window.kept > 0) {
    plan.window_section = std::string(kActiveHeader);
    for (std::size_t i = 0; i < plan.turns.size(); ++i) {
      if (plan.window.entries[i].fate != Fate::kKept) continue;
      plan.window_section += '\n';
      plan.window_section += plan.turns[i].line;
    }
    plan.window_tokens = CountTokens(plan.window_section);
  }

  // What is left, less the recalled section's header, goes to the recall; it needs room for its
  // own header and at least one token of memory.
  const std::size_t left = plan.token_budget - std::min(plan.token_budget, plan.window_tokens);
  const std::size_t recalled_header = CountTokens(kRecalledHeader);
  const std::size_t pack_header = CountTokens(read::Pack({}, left, 0).context);
  plan.recall_budget = left > recalled_header + pack_header ? left - recalled_header : 0;
  return plan;
}

ContextResult AssembleContext(const ContextPlan& plan, std::string_view query,
                              std::optional<ReadResult> recalled, std::string_view recalled_from,
                              const ContextOptions& options, const Config& config) {
  ContextResult result;
  result.run = plan.run;
  result.query = std::string(query);
  result.policy = std::string(AnswerPolicyName(options.policy));
  result.token_budget = plan.token_budget;
  result.window_budget = plan.window_budget;
  result.run_turns = plan.turns.size();
  result.last_sweep = plan.window.last_sweep;
  result.hard_killed = plan.window.hard_killed;
  result.pruned = plan.window.pruned;
  result.too_large = plan.window.too_large;
  result.inactive = plan.window.inactive;

  std::set<std::string> window_ids;
  for (std::size_t i = 0; i < plan.turns.size(); ++i) {
    if (plan.window.entries[i].fate != Fate::kKept) continue;
    result.window.push_back(ToWindowTurn(plan.turns[i], plan.window.entries[i]));
    window_ids.insert(plan.turns[i].node.id);
  }
  result.window_tokens = plan.window_tokens;

  std::string recalled_section;
  if (recalled.has_value()) {
    result.answer_instructions = recalled->answer_instructions;
    result.recalled_from = std::string(recalled_from);
    std::vector<RecallItem> items;
    for (RecallItem& item : recalled->items) {
      if (!InWindow(item, window_ids)) items.push_back(std::move(item));
    }
    const std::size_t max_items = options.k > 0 ? options.k : config.recall.max_items;
    read::PackResult packed = read::Pack(std::move(items), plan.recall_budget, max_items);
    recalled->items = std::move(packed.items);
    recalled->diagnostics.deduplicated += packed.deduplicated;
    if (!recalled->items.empty()) {
      recalled_section = std::string(kRecalledHeader) + "\n" + packed.context;
      recalled->context = std::move(packed.context);
      recalled->diagnostics.context_tokens = packed.context_tokens;
      result.recalled_tokens = CountTokens(recalled_section);
    } else {
      recalled->context.clear();
      recalled->diagnostics.context_tokens = 0;
    }
    result.recalled = std::move(*recalled);
  } else {
    result.answer_instructions = read::AnswerInstructions(options.policy);
  }

  result.context = recalled_section;
  if (!plan.window_section.empty()) {
    if (!result.context.empty()) result.context += '\n';
    result.context += plan.window_section;
  }
  result.context_tokens = CountTokens(result.context);
  return result;
}

}  // namespace engram::lifecycle
