// The chat context mode's profile and foresight lines (see chat_context.h).
#include "read/chat_context.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <set>
#include <string_view>
#include <utility>

#include "text/normalize.h"

namespace engram::read {
namespace {

struct Person {
  const StructureProfile* profile = nullptr;
  const ScopeGraph* graph = nullptr;  // the graph of the profile's scope
};

// "lives_in" -> "lives in".
std::string Words(std::string text) {
  std::replace(text.begin(), text.end(), '_', ' ');
  return text;
}

std::string EvidenceText(const std::vector<std::string>& turns) {
  std::string text = " [evidence:";
  for (std::size_t index = 0; index < turns.size(); ++index) {
    text += (index == 0 ? " " : ", ") + turns[index];
  }
  return text + "]";
}

std::string DayOf(Timestamp time) { return FormatTimestamp(time).substr(0, 10); }

// Is any of the facts shown by the recall's filters?
StatusOr<bool> AnyShown(const ScopeGraph& graph, const std::vector<std::string>& fact_ids,
                        const Visibility& visibility) {
  for (const std::string& fact_id : fact_ids) {
    const auto found = graph.fact_of_id.find(fact_id);
    if (found == graph.fact_of_id.end()) continue;
    ASSIGN_OR_RETURN(const Verdict verdict, visibility.Check(ViewOfFact(graph.facts[found->second])));
    if (verdict.shown()) return true;
  }
  return false;
}

// Takes lines while they fit the budget; a section header counts with its section's first line.
class Budget {
 public:
  explicit Budget(std::size_t max_tokens) : max_tokens_(max_tokens) {}

  // Adds `line` under `header`; false when it does not fit.
  bool Take(const std::string& header, ChatLine line, ChatContext& context) {
    const bool new_section = header != last_header_;
    const std::size_t header_tokens = new_section ? CountTokens(header) : 0;
    line.tokens = CountTokens(line.text);
    if (used_ + header_tokens + line.tokens > max_tokens_) return false;
    if (new_section) {
      if (!context.text.empty()) context.text += '\n';
      context.text += header;
      last_header_ = header;
    }
    context.text += "\n" + line.text;
    used_ += header_tokens + line.tokens;
    context.lines.push_back(std::move(line));
    return true;
  }
  std::size_t used() const { return used_; }

 private:
  std::size_t max_tokens_;
  std::size_t used_ = 0;
  std::string last_header_;
};

}  // namespace

StatusOr<ChatContext> BuildChatContext(
    std::span<const std::shared_ptr<const ScopeGraph>> graphs,
    std::span<const std::shared_ptr<const ScopeStructure>> structures, const QueryFrame& frame,
    const Visibility& visibility, Timestamp at, std::size_t max_tokens) {
  ChatContext context;

  // 1. People: the named ones, else the user of a user: scope.
  std::set<std::string> asked;
  for (const std::string& name : frame.names) asked.insert(NameKey(name));
  for (const std::string& speaker : frame.asked_speakers) asked.insert(NameKey(speaker));
  std::vector<Person> people;
  std::string chosen_by = "named in the question";
  for (std::size_t scope_idx = 0; scope_idx < structures.size(); ++scope_idx) {
    for (const StructureProfile& profile : structures[scope_idx]->profiles) {
      const std::string key = NameKey(profile.name);
      if (!key.empty() &&
          (asked.contains(key) || asked.contains(std::string(text::FirstKeyWord(key))))) {
        people.push_back({&profile, graphs[scope_idx].get()});
      }
    }
  }
  if (people.empty()) {
    chosen_by = "the scope's user";
    for (std::size_t scope_idx = 0; scope_idx < structures.size(); ++scope_idx) {
      for (const StructureProfile& profile : structures[scope_idx]->profiles) {
        if (profile.scope_user) people.push_back({&profile, graphs[scope_idx].get()});
      }
    }
  }

  // 2. Profile lines.
  Budget budget(max_tokens);
  std::size_t profile_lines = 0;
  std::size_t profile_taken = 0;
  std::string names;
  for (const Person& person : people) {
    const StructureProfile& profile = *person.profile;
    names += (names.empty() ? "" : ", ") + profile.name;
    const std::string header = "Profile of " + profile.name + ":";
    for (const ProfileLine& stored : profile.lines) {
      ASSIGN_OR_RETURN(const bool shown, AnyShown(*person.graph, stored.facts, visibility));
      if (!shown) continue;
      ++profile_lines;
      ChatLine line;
      line.section = "profile";
      line.person = profile.name;
      if (stored.trait) {
        line.text = "- " + std::string(stored.negated ? "not " : "") + Words(stored.predicate) +
                    ": " + stored.object + " (x" + std::to_string(stored.count) + ")";
      } else {
        line.memory_id = stored.facts.empty() ? "" : stored.facts.front();
        line.text = "- " + Words(stored.predicate) + ": " + stored.object;
        if (!stored.history.empty()) {
          line.text += " (before:";
          for (std::size_t index = 0; index < stored.history.size(); ++index) {
            line.text += (index == 0 ? " " : ", ") + stored.history[index];
          }
          line.text += ")";
        }
      }
      line.text += EvidenceText(stored.turns);
      line.evidence = stored.turns;
      if (budget.Take(header, std::move(line), context)) ++profile_taken;
    }
  }

  // 3. Foresight valid at `at`, soonest end first.
  std::vector<const GraphFact*> valid;
  for (const auto& graph : graphs) {
    for (const GraphFact& fact : graph->facts) {
      if (fact.kind != "foresight") continue;
      if (fact.valid_from.has_value() && at < *fact.valid_from) continue;
      if (fact.valid_to.has_value() && *fact.valid_to <= at) continue;
      ASSIGN_OR_RETURN(const Verdict verdict, visibility.Check(ViewOfFact(fact)));
      if (!verdict.shown()) continue;
      valid.push_back(&fact);
    }
  }
  std::stable_sort(valid.begin(), valid.end(), [](const GraphFact* a, const GraphFact* b) {
    const Timestamp end_a = a->valid_to.value_or(Timestamp{INT64_MAX});
    const Timestamp end_b = b->valid_to.value_or(Timestamp{INT64_MAX});
    if (end_a != end_b) return end_a < end_b;
    return a->row < b->row;
  });
  const std::string header = "Foresight valid on " + DayOf(at) + ":";
  std::size_t foresight_taken = 0;
  for (const GraphFact* fact : valid) {
    ChatLine line;
    line.section = "foresight";
    line.person = fact->subject;
    line.memory_id = fact->id;
    line.text = "- " + (fact->text.empty() ? fact->subject + " " + Words(fact->predicate) + " " +
                                                 fact->object
                                           : fact->text);
    if (fact->valid_to.has_value()) line.text += " (until " + DayOf(*fact->valid_to) + ")";
    line.text += EvidenceText(fact->support_ids);
    line.evidence = fact->support_ids;
    if (budget.Take(header, std::move(line), context)) ++foresight_taken;
  }

  context.tokens = budget.used();
  char counts[256];
  std::snprintf(counts, sizeof counts,
                ": %zu of %zu profile lines; foresight valid on %s: %zu of %zu; %zu of %zu tokens",
                profile_taken, profile_lines, DayOf(at).c_str(), foresight_taken, valid.size(),
                context.tokens, max_tokens);
  context.explanation = people.empty() ? "no profile (none named, no profile of a scope user)"
                                       : "profile of " + names + " (" + chosen_by + ")";
  context.explanation += counts;
  return context;
}

}  // namespace engram::read
