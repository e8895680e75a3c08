// The entity-graph route (see entity_route.h).
#include "read/entity_route.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <utility>

#include "text/normalize.h"
#include "text/tokenizer.h"

namespace engram::read {
namespace {

bool Has(std::span<const std::string> sorted, std::string_view value) {
  return std::binary_search(sorted.begin(), sorted.end(), value,
                            [](std::string_view a, std::string_view b) { return a < b; });
}

// Does an entity with this key (and kind) answer to the asked names (sorted keys)?
bool EntityMatches(const GraphEntity& entity, std::span<const std::string> asked) {
  if (entity.key.empty()) return false;
  if (Has(asked, entity.key)) return true;
  const std::vector<std::string_view> words = text::KeyWords(entity.key);
  if (words.size() < 2) return false;
  if (entity.kind == "person" && Has(asked, words.front())) return true;
  return std::all_of(words.begin(), words.end(),
                     [&](std::string_view word) { return Has(asked, word); });
}

}  // namespace

StatusOr<std::vector<RouteCandidate>> EntityRoute::Run(const RouteContext& context) const {
  std::vector<RouteCandidate> candidates;
  if (context.store == nullptr || context.scope_ids.empty() || context.frame->names.empty()) {
    return candidates;
  }
  std::vector<std::string> asked;
  for (const std::string& name : context.frame->names) {
    std::string key = NameKey(name);
    if (!key.empty()) asked.push_back(std::move(key));
  }
  std::sort(asked.begin(), asked.end());
  asked.erase(std::unique(asked.begin(), asked.end()), asked.end());
  if (asked.empty()) return candidates;

  ASSIGN_OR_RETURN(std::vector<std::shared_ptr<const ScopeGraph>> graphs,
                   cache_->Get(*context.store, context.scope_ids, context.config->bm25.stem));

  std::size_t turn_count = 0;
  for (const auto& graph : graphs) turn_count += graph->turn_count;
  if (turn_count == 0) return candidates;
  struct Accumulated {
    double entity_score = 0;
    bool specific = false;  // linked to an asked class that is no speaker
    std::string explanation;
  };
  std::map<std::int64_t, Accumulated> by_row;
  for (const auto& graph : graphs) {
    for (const EntityClass& entity_class : graph->classes) {
      const GraphEntity* matched = nullptr;
      bool speaker = false;
      for (const std::size_t member : entity_class.members) {
        const GraphEntity& entity = graph->entities[member];
        if (matched == nullptr && EntityMatches(entity, asked)) matched = &entity;
        if (entity.speaker) speaker = true;
      }
      if (matched == nullptr || entity_class.links.empty()) continue;
      const double df = static_cast<double>(entity_class.links.size());
      const double weight = std::log(1.0 + static_cast<double>(turn_count) / df);
      char head[160];
      std::snprintf(head, sizeof head, "%s%s (df %zu of %zu, w %.2f", matched->name.c_str(),
                    speaker ? " [speaker]" : "", entity_class.links.size(), turn_count, weight);
      for (const GraphLink& link : entity_class.links) {
        Accumulated& accumulated = by_row[link.turn_row];
        accumulated.entity_score += weight;
        accumulated.specific = accumulated.specific || !speaker;
        if (!accumulated.explanation.empty()) accumulated.explanation += " + ";
        accumulated.explanation += head;
        accumulated.explanation += link.mentioned
                                       ? (link.referred ? ", mentions, refers_to)" : ", mentions)")
                                       : ", refers_to)";
      }
    }
  }

  // Own BM25 of the linked turns for the question's terms other than the names (a turn that
  // mentions a name holds it anyway), for the lexical part of the score; worked out only when
  // some turn is linked to an asked entity that is no speaker.
  if (std::none_of(by_row.begin(), by_row.end(),
                   [](const auto& entry) { return entry.second.specific; })) {
    return candidates;
  }
  const text::Tokenizer tokenizer({.stem = context.config->bm25.stem});
  std::vector<std::string> name_terms;
  for (const std::string& name : context.frame->names) {
    for (std::string& term : tokenizer.Terms(name)) name_terms.push_back(std::move(term));
  }
  std::vector<std::string> content_terms;
  for (const std::string& term : context.frame->terms) {
    if (std::find(name_terms.begin(), name_terms.end(), term) == name_terms.end()) {
      content_terms.push_back(term);
    }
  }
  std::optional<TermMatrix> matrix;
  std::optional<GroupingScores> own;  // the turns holding a content term
  if (context.layout != nullptr && !content_terms.empty()) {
    matrix.emplace(*context.layout, context.text_indexes, content_terms);
    if (!matrix->empty()) own = matrix->ScoreTurns(context.config->bm25);
  }
  const auto own_score = [&](std::int64_t row) -> double {
    if (!own) return 0;
    const std::optional<std::size_t> index = context.layout->IndexOf(row);
    return index ? own->ScoreOf(*index) : 0;
  };

  struct Scored {
    std::int64_t row;
    double score;
    double own;
  };
  std::vector<Scored> scored;
  for (const auto& [row, accumulated] : by_row) {
    const double lexical = own_score(row);
    if (!accumulated.specific) continue;  // linked to asked speakers only
    scored.push_back(
        {row, accumulated.entity_score + context.config->recall.entity_lexical_weight * lexical,
         lexical});
  }
  std::sort(scored.begin(), scored.end(), [](const Scored& a, const Scored& b) {
    if (a.score != b.score) return a.score > b.score;
    return a.row < b.row;
  });
  if (scored.size() > context.limit) scored.resize(context.limit);
  candidates.reserve(scored.size());
  for (const Scored& entry : scored) {
    char lexical[64];
    std::snprintf(lexical, sizeof lexical, "; + %g x own bm25 %.2f (names left out)",
                  context.config->recall.entity_lexical_weight, entry.own);
    candidates.push_back(
        {entry.row, entry.score, "entities " + by_row[entry.row].explanation + lexical});
  }
  return candidates;
}

}  // namespace engram::read
