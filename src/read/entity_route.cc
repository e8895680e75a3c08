// The entity-graph route and the per-scope graph cache (see entity_route.h).
#include "read/entity_route.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <numeric>
#include <unordered_map>
#include <utility>

#include "text/normalize.h"
#include "text/tokenizer.h"

namespace engram::read {
namespace {

using json = nlohmann::json;

// A journal read longer than this after the last Get drops every cached graph instead of
// finding the scopes it touched (a bulk ingest: reloading is cheaper than reading it all).
constexpr std::size_t kMaxJournalRead = 4096;

std::string StringField(const json& object, const char* key) {
  if (!object.is_object()) return "";
  const auto found = object.find(key);
  return found != object.end() && found->is_string() ? found->get<std::string>() : "";
}

// The first word of a normalised key ("sara bareilles" -> "sara").
std::string_view FirstWord(std::string_view key) { return key.substr(0, key.find(' ')); }

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

std::size_t Find(std::vector<std::size_t>& parent, std::size_t x) {
  while (parent[x] != x) {
    parent[x] = parent[parent[x]];
    x = parent[x];
  }
  return x;
}

}  // namespace

std::string NameKey(std::string_view name) {
  std::string key = text::NormalizeForIndex(name);
  for (const std::string_view suffix : {std::string_view("'s"), std::string_view("\u2019s")}) {
    if (key.size() > suffix.size() && key.ends_with(suffix)) {
      key.resize(key.size() - suffix.size());
      break;
    }
  }
  return key;
}

StatusOr<ScopeGraph> ScopeGraph::Load(store::Store& store, std::int64_t scope_id, bool stem) {
  ScopeGraph graph;
  graph.scope_id = scope_id;

  struct TurnRef {
    std::int64_t row = 0;
    std::int64_t sequence = 0;
  };
  std::unordered_map<std::string, TurnRef> turn_of_id;  // lookups only, never iterated
  RETURN_IF_ERROR(store.ScanNodes(scope_id, NodeKind::kTurn, [&](const store::NodeRecord& node) {
    turn_of_id[node.id] = {node.row, node.sequence};
    if (!node.speaker.empty()) {
      std::string key = NameKey(node.speaker);
      graph.speaker_keys.emplace_back(FirstWord(key));
      graph.speaker_keys.push_back(std::move(key));
    }
    return true;
  }));
  graph.turn_count = turn_of_id.size();
  std::sort(graph.speaker_keys.begin(), graph.speaker_keys.end());
  graph.speaker_keys.erase(std::unique(graph.speaker_keys.begin(), graph.speaker_keys.end()),
                           graph.speaker_keys.end());

  std::unordered_map<std::string, std::size_t> entity_of_id;  // lookups only
  RETURN_IF_ERROR(store.ScanNodes(scope_id, NodeKind::kEntity, [&](const store::NodeRecord& node) {
    const json content = json::parse(node.content_json, nullptr, /*allow_exceptions=*/false);
    GraphEntity entity;
    entity.row = node.row;
    entity.id = node.id;
    entity.name = StringField(content, "name");
    if (entity.name.empty()) entity.name = node.text;
    entity.key = StringField(content, "key");
    if (entity.key.empty()) entity.key = NameKey(entity.name);
    entity.kind = StringField(content, "kind");
    entity_of_id[entity.id] = graph.entities.size();
    graph.entities.push_back(std::move(entity));
    return true;
  }));

  const text::Tokenizer tokenizer({.stem = stem});
  std::unordered_map<std::string, std::size_t> fact_of_id;  // lookups only
  RETURN_IF_ERROR(store.ScanNodes(scope_id, NodeKind::kFact, [&](const store::NodeRecord& node) {
    const json content = json::parse(node.content_json, nullptr, /*allow_exceptions=*/false);
    GraphFact fact;
    fact.row = node.row;
    fact.id = node.id;
    fact.status = node.status;
    fact.valid_from = node.valid_from;
    fact.valid_to = node.valid_to;
    fact.ingested_at = node.ingested_at;
    fact.updated_at = node.updated_at;
    fact.subject = StringField(content, "subject");
    fact.subject_key = NameKey(fact.subject);
    fact.predicate = StringField(content, "predicate");
    fact.object = StringField(content, "object");
    fact.kind = StringField(content, "kind");
    fact.has_time = content.is_object() && content.contains("time") && content["time"].is_object();
    std::string words = fact.predicate;
    std::replace(words.begin(), words.end(), '_', ' ');
    fact.terms = tokenizer.Terms(words + " " + fact.object);
    std::sort(fact.terms.begin(), fact.terms.end());
    fact.terms.erase(std::unique(fact.terms.begin(), fact.terms.end()), fact.terms.end());
    fact_of_id[fact.id] = graph.facts.size();
    graph.facts.push_back(std::move(fact));
    return true;
  }));

  // Speakers: by key, then through pending same_as proposals to a speaker's entity.
  for (GraphEntity& entity : graph.entities) {
    entity.speaker = Has(graph.speaker_keys, entity.key);
  }
  ASSIGN_OR_RETURN(std::vector<store::EdgeRecord> same_as, store.EdgesInScope(scope_id, "same_as"));
  for (const store::EdgeRecord& edge : same_as) {
    if (edge.status != "pending") continue;
    const auto a = entity_of_id.find(edge.src);
    const auto b = entity_of_id.find(edge.dst);
    if (a == entity_of_id.end() || b == entity_of_id.end()) continue;
    GraphEntity& first = graph.entities[a->second];
    GraphEntity& second = graph.entities[b->second];
    if (Has(graph.speaker_keys, first.key)) second.speaker = true;
    if (Has(graph.speaker_keys, second.key)) first.speaker = true;
  }

  // Equivalence classes: accepted same_as edges (status active).
  std::vector<std::size_t> parent(graph.entities.size());
  std::iota(parent.begin(), parent.end(), 0);
  for (const store::EdgeRecord& edge : same_as) {
    if (edge.status != "active") continue;
    const auto a = entity_of_id.find(edge.src);
    const auto b = entity_of_id.find(edge.dst);
    if (a == entity_of_id.end() || b == entity_of_id.end()) continue;
    const std::size_t root_a = Find(parent, a->second);
    const std::size_t root_b = Find(parent, b->second);
    // The smaller index (the older entity) stays the root.
    if (root_a != root_b) parent[std::max(root_a, root_b)] = std::min(root_a, root_b);
  }
  std::vector<std::size_t> class_of_root(graph.entities.size(), graph.entities.size());
  for (std::size_t index = 0; index < graph.entities.size(); ++index) {
    const std::size_t root = Find(parent, index);
    if (class_of_root[root] == graph.entities.size()) {
      class_of_root[root] = graph.classes.size();
      graph.classes.emplace_back();
    }
    graph.entities[index].class_index = class_of_root[root];
    graph.classes[class_of_root[root]].members.push_back(index);
  }

  // Links: turns that mention an entity or refer to it.
  std::vector<std::map<std::int64_t, GraphLink>> links(graph.classes.size());
  for (const std::string_view type :
       {std::string_view("mentions"), std::string_view("refers_to")}) {
    ASSIGN_OR_RETURN(std::vector<store::EdgeRecord> edges, store.EdgesInScope(scope_id, type));
    for (const store::EdgeRecord& edge : edges) {
      if (edge.status != "active") continue;
      const auto entity = entity_of_id.find(edge.dst);
      const auto turn = turn_of_id.find(edge.src);
      if (entity == entity_of_id.end() || turn == turn_of_id.end()) continue;
      GraphLink& link = links[graph.entities[entity->second].class_index][turn->second.row];
      link.turn_row = turn->second.row;
      (type == "mentions" ? link.mentioned : link.referred) = true;
    }
  }
  for (std::size_t index = 0; index < links.size(); ++index) {
    for (const auto& [row, link] : links[index]) graph.classes[index].links.push_back(link);
  }

  // Supporting turns of the facts.
  ASSIGN_OR_RETURN(std::vector<store::EdgeRecord> derived,
                   store.EdgesInScope(scope_id, "derived_from"));
  std::vector<std::vector<std::pair<TurnRef, std::string>>> support(graph.facts.size());
  for (const store::EdgeRecord& edge : derived) {
    if (edge.status != "active") continue;
    const auto fact = fact_of_id.find(edge.src);
    const auto turn = turn_of_id.find(edge.dst);
    if (fact == fact_of_id.end() || turn == turn_of_id.end()) continue;
    support[fact->second].push_back({turn->second, edge.dst});
  }
  for (std::size_t index = 0; index < graph.facts.size(); ++index) {
    auto& turns = support[index];
    std::sort(turns.begin(), turns.end(), [](const auto& a, const auto& b) {
      if (a.first.sequence != b.first.sequence) return a.first.sequence < b.first.sequence;
      return a.first.row < b.first.row;
    });
    for (const auto& [turn, id] : turns) {
      if (!graph.facts[index].support_ids.empty() && graph.facts[index].support_ids.back() == id) {
        continue;
      }
      graph.facts[index].support_ids.push_back(id);
      graph.facts[index].support_rows.push_back(turn.row);
    }
  }
  return graph;
}

StatusOr<std::vector<std::shared_ptr<const ScopeGraph>>> ScopeGraphCache::Get(
    store::Store& store, std::span<const std::int64_t> scope_ids, bool stem) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (store_ != &store || stem_ != stem) {
    graphs_.clear();
    store_ = &store;
    stem_ = stem;
    applied_journal_seq_ = -1;
  }
  ASSIGN_OR_RETURN(const std::int64_t last_seq, store.LastJournalSeq());
  if (last_seq != applied_journal_seq_) {
    if (!graphs_.empty()) {
      if (last_seq < applied_journal_seq_) {
        graphs_.clear();
      } else {
        ASSIGN_OR_RETURN(std::vector<store::JournalEntry> entries,
                         store.ReadJournal(applied_journal_seq_, kMaxJournalRead));
        if (entries.size() >= kMaxJournalRead) {
          graphs_.clear();
        } else {
          for (const store::JournalEntry& entry : entries) graphs_.erase(entry.scope_id);
        }
      }
    }
    applied_journal_seq_ = last_seq;
  }
  std::vector<std::shared_ptr<const ScopeGraph>> graphs;
  graphs.reserve(scope_ids.size());
  for (const std::int64_t scope_id : scope_ids) {
    auto found = graphs_.find(scope_id);
    if (found == graphs_.end()) {
      ASSIGN_OR_RETURN(ScopeGraph graph, ScopeGraph::Load(store, scope_id, stem));
      found = graphs_.emplace(scope_id, std::make_shared<const ScopeGraph>(std::move(graph))).first;
    }
    graphs.push_back(found->second);
  }
  return graphs;
}

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

  // Own BM25 of every turn of the layout for the question's terms other than the names (a turn
  // that mentions a name holds it anyway), for the lexical part of the score.
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
  std::vector<ScoredUnit> own;  // the turns holding a content term
  if (context.layout != nullptr && !content_terms.empty()) {
    const TermMatrix matrix(*context.layout, context.text_indexes, content_terms);
    if (!matrix.empty()) own = matrix.ScoreTurns(context.config->bm25);
  }
  const auto own_score = [&](std::int64_t row) -> double {
    if (own.empty()) return 0;
    const std::optional<std::size_t> index = context.layout->IndexOf(row);
    const UnitScore* found = index ? FindUnit(own, *index) : nullptr;
    return found != nullptr ? found->score : 0;
  };

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
