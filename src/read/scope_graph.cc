// The per-scope graph and its journal updates (see scope_graph.h).
#include "read/scope_graph.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <numeric>
#include <set>
#include <unordered_set>

#include "text/normalize.h"
#include "text/tokenizer.h"

namespace engram::read {
namespace {

using json = nlohmann::json;

// The edge types the graph reads.
constexpr std::string_view kMentions = "mentions";
constexpr std::string_view kRefersTo = "refers_to";
constexpr std::string_view kDerivedFrom = "derived_from";
constexpr std::string_view kSameAs = "same_as";

std::string StringField(const json& object, const char* key) {
  if (!object.is_object()) return "";
  const auto found = object.find(key);
  return found != object.end() && found->is_string() ? found->get<std::string>() : "";
}

// The first word of a normalised key ("sara bareilles" -> "sara").

bool Has(std::span<const std::string> sorted, std::string_view value) {
  return std::binary_search(sorted.begin(), sorted.end(), value,
                            [](std::string_view a, std::string_view b) { return a < b; });
}

std::size_t Find(std::vector<std::size_t>& parent, std::size_t x) {
  while (parent[x] != x) {
    parent[x] = parent[parent[x]];
    x = parent[x];
  }
  return x;
}

// Adds a turn's speaker (and its first word) to the sorted speaker keys.
void AddSpeaker(std::vector<std::string>& speaker_keys, std::string_view speaker) {
  if (speaker.empty()) return;
  const std::string key = NameKey(speaker);
  for (const std::string_view value : {text::FirstKeyWord(key), std::string_view(key)}) {
    const auto at = std::lower_bound(speaker_keys.begin(), speaker_keys.end(), value);
    if (at == speaker_keys.end() || *at != value) speaker_keys.emplace(at, value);
  }
}

GraphEntity EntityOf(const store::NodeRecord& node) {
  const json content = json::parse(node.content_json, nullptr, /*allow_exceptions=*/false);
  GraphEntity entity;
  entity.row = node.row;
  entity.id = node.id;
  entity.name = StringField(content, "name");
  if (entity.name.empty()) entity.name = node.text;
  entity.key = StringField(content, "key");
  if (entity.key.empty()) entity.key = NameKey(entity.name);
  entity.kind = StringField(content, "kind");
  return entity;
}

void SetFactState(GraphFact& fact, const store::NodeRecord& node) {
  fact.status = node.status;
  fact.valid_from = node.valid_from;
  fact.valid_to = node.valid_to;
  fact.ingested_at = node.ingested_at;
  fact.updated_at = node.updated_at;
}

GraphFact FactOf(const store::NodeRecord& node, const text::Tokenizer& tokenizer) {
  const json content = json::parse(node.content_json, nullptr, /*allow_exceptions=*/false);
  GraphFact fact;
  fact.row = node.row;
  fact.id = node.id;
  SetFactState(fact, node);
  fact.text = node.text;
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
  return fact;
}

// Sets every entity's speaker flag: its key is a speaker key, or a pending proposal joins it to
// an entity whose key is one.
void MarkSpeakers(ScopeGraph& graph) {
  for (GraphEntity& entity : graph.entities) {
    entity.speaker = Has(graph.speaker_keys, entity.key);
  }
  for (const auto& [a, b] : graph.pending_same_as) {
    GraphEntity& first = graph.entities[a];
    GraphEntity& second = graph.entities[b];
    if (Has(graph.speaker_keys, first.key)) second.speaker = true;
    if (Has(graph.speaker_keys, second.key)) first.speaker = true;
  }
}

// Records that `turn` mentions (or refers to) an entity of `entity_class`; links stay by turn row.
void AddLink(EntityClass& entity_class, const ScopeGraph::TurnRef& turn, std::string_view type) {
  auto at = std::lower_bound(
      entity_class.links.begin(), entity_class.links.end(), turn.row,
      [](const GraphLink& link, std::int64_t row) { return link.turn_row < row; });
  if (at == entity_class.links.end() || at->turn_row != turn.row) {
    at = entity_class.links.insert(at, GraphLink{.turn_row = turn.row});
  }
  (type == kMentions ? at->mentioned : at->referred) = true;
}

// Adds a supporting turn to a fact; supports stay by (sequence, row), each turn once.
void AddSupport(GraphFact& fact, const ScopeGraph::TurnRef& turn, const std::string& turn_id,
                const std::unordered_map<std::string, ScopeGraph::TurnRef>& turn_of_id) {
  if (std::find(fact.support_ids.begin(), fact.support_ids.end(), turn_id) !=
      fact.support_ids.end()) {
    return;
  }
  std::size_t position = fact.support_ids.size();
  while (position > 0) {
    const ScopeGraph::TurnRef& before = turn_of_id.at(fact.support_ids[position - 1]);
    if (before.sequence < turn.sequence ||
        (before.sequence == turn.sequence && before.row < turn.row)) {
      break;
    }
    --position;
  }
  fact.support_ids.insert(fact.support_ids.begin() + static_cast<std::ptrdiff_t>(position),
                          turn_id);
  fact.support_rows.insert(fact.support_rows.begin() + static_cast<std::ptrdiff_t>(position),
                           turn.row);
}

// The word after "kind=" or "type=" at the start of a journal detail ("kind=fact status=..."),
// or "" when the detail does not start with it.
std::string_view DetailWord(std::string_view detail, std::string_view prefix) {
  if (!detail.starts_with(prefix)) return "";
  detail.remove_prefix(prefix.size());
  return detail.substr(0, detail.find(' '));
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

  RETURN_IF_ERROR(store.ScanNodes(scope_id, NodeKind::kEntity, [&](const store::NodeRecord& node) {
    graph.entity_of_id[node.id] = graph.entities.size();
    graph.entities.push_back(EntityOf(node));
    return true;
  }));

  const text::Tokenizer tokenizer({.stem = stem});
  RETURN_IF_ERROR(store.ScanNodes(scope_id, NodeKind::kFact, [&](const store::NodeRecord& node) {
    graph.fact_of_id[node.id] = graph.facts.size();
    graph.facts.push_back(FactOf(node, tokenizer));
    return true;
  }));

  // The turns: counted, their speakers' keys made once per distinct speaker, and mapped by id
  // only when links or supports may name them.
  graph.turns_mapped = !graph.entities.empty() || !graph.facts.empty();
  std::unordered_set<std::string> speakers_seen;  // lookups only, never iterated
  RETURN_IF_ERROR(store.ScanNodes(scope_id, NodeKind::kTurn, [&](const store::NodeRecord& node) {
    graph.turn_rows.push_back(node.row);  // row order: ascending
    if (graph.turns_mapped) graph.turn_of_id[node.id] = {node.row, node.sequence};
    if (!speakers_seen.contains(node.speaker)) {
      speakers_seen.insert(node.speaker);
      AddSpeaker(graph.speaker_keys, node.speaker);
    }
    return true;
  }));
  graph.turn_count = graph.turn_rows.size();

  // The edges below link an entity (same_as, mentions, refers_to) or a fact (derived_from) of
  // the scope; a scope without entities or facts has none to read (reading a scope's edges of
  // one type visits every edge of its nodes: at 100,000 turns most of a first recall's cost).
  // Speakers: by key, then through pending same_as proposals to a speaker's entity.
  std::vector<store::EdgeRecord> same_as;
  if (!graph.entities.empty()) {
    ASSIGN_OR_RETURN(same_as, store.EdgesInScope(scope_id, kSameAs));
  }
  for (const store::EdgeRecord& edge : same_as) {
    if (edge.status != "pending") continue;
    const auto a = graph.entity_of_id.find(edge.src);
    const auto b = graph.entity_of_id.find(edge.dst);
    if (a == graph.entity_of_id.end() || b == graph.entity_of_id.end()) continue;
    graph.pending_same_as.emplace_back(a->second, b->second);
  }
  MarkSpeakers(graph);

  // Equivalence classes: accepted same_as edges (status active).
  std::vector<std::size_t> parent(graph.entities.size());
  std::iota(parent.begin(), parent.end(), 0);
  for (const store::EdgeRecord& edge : same_as) {
    if (edge.status != "active") continue;
    const auto a = graph.entity_of_id.find(edge.src);
    const auto b = graph.entity_of_id.find(edge.dst);
    if (a == graph.entity_of_id.end() || b == graph.entity_of_id.end()) continue;
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
  for (const std::string_view type : {kMentions, kRefersTo}) {
    if (graph.entities.empty()) break;
    ASSIGN_OR_RETURN(std::vector<store::EdgeRecord> edges, store.EdgesInScope(scope_id, type));
    for (const store::EdgeRecord& edge : edges) {
      if (edge.status != "active") continue;
      const auto entity = graph.entity_of_id.find(edge.dst);
      const auto turn = graph.turn_of_id.find(edge.src);
      if (entity == graph.entity_of_id.end() || turn == graph.turn_of_id.end()) continue;
      AddLink(graph.classes[graph.entities[entity->second].class_index], turn->second, type);
    }
  }

  // Supporting turns of the facts.
  std::vector<store::EdgeRecord> derived;
  if (!graph.facts.empty()) {
    ASSIGN_OR_RETURN(derived, store.EdgesInScope(scope_id, kDerivedFrom));
  }
  for (const store::EdgeRecord& edge : derived) {
    if (edge.status != "active") continue;
    const auto fact = graph.fact_of_id.find(edge.src);
    const auto turn = graph.turn_of_id.find(edge.dst);
    if (fact == graph.fact_of_id.end() || turn == graph.turn_of_id.end()) continue;
    AddSupport(graph.facts[fact->second], turn->second, edge.dst, graph.turn_of_id);
  }
  return graph;
}

StatusOr<bool> ScopeGraph::Apply(store::Store& store, std::span<const store::JournalEntry> entries,
                                 bool stem) {
  // Read what the rows are about first: the inserted turns, entities and facts and every node
  // whose state changed (one batch), and the inserted edges of the types the graph reads.
  std::vector<std::int64_t> rows;
  std::map<std::string, store::EdgeRecord> edges;
  for (const store::JournalEntry& entry : entries) {
    if (entry.op == store::JournalOp::kNodeInserted) {
      const std::string_view kind = DetailWord(entry.detail, "kind=");
      if (kind.empty() || kind == NodeKindName(NodeKind::kTurn) ||
          kind == NodeKindName(NodeKind::kEntity) || kind == NodeKindName(NodeKind::kFact)) {
        rows.push_back(entry.target_row);
      }
    } else if (entry.op == store::JournalOp::kNodeUpdated) {
      if (fact_of_id.contains(entry.target_id)) rows.push_back(entry.target_row);
    } else if (entry.op == store::JournalOp::kEdgeInserted ||
               entry.op == store::JournalOp::kEdgeUpdated) {
      const std::string_view type = DetailWord(entry.detail, "type=");
      if (entry.op == store::JournalOp::kEdgeInserted && !type.empty() && type != kMentions &&
          type != kRefersTo && type != kDerivedFrom && type != kSameAs) {
        continue;
      }
      StatusOr<store::EdgeRecord> edge = store.GetEdge(entry.target_id);
      if (!edge.ok()) {
        if (edge.status().code() == StatusCode::kNotFound) return false;  // erased since
        return edge.status();
      }
      edges.emplace(entry.target_id, std::move(edge).value());
    }
  }
  std::sort(rows.begin(), rows.end());
  rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
  ASSIGN_OR_RETURN(const std::vector<store::NodeRecord> nodes, store.GetNodesByRow(rows));
  std::map<std::int64_t, const store::NodeRecord*> node_of_row;
  for (const store::NodeRecord& node : nodes) node_of_row[node.row] = &node;

  const text::Tokenizer tokenizer({.stem = stem});
  for (const store::JournalEntry& entry : entries) {
    switch (entry.op) {
      case store::JournalOp::kNodeInserted:
      case store::JournalOp::kNodeUpdated: {
        const auto found = node_of_row.find(entry.target_row);
        if (found == node_of_row.end()) continue;  // another kind, or erased since
        const store::NodeRecord& node = *found->second;
        if (node.scope_id != scope_id) continue;
        if (node.kind == NodeKind::kTurn) {
          const auto at = std::lower_bound(turn_rows.begin(), turn_rows.end(), node.row);
          if (at != turn_rows.end() && *at == node.row) continue;  // counted already
          turn_rows.insert(at, node.row);
          if (turns_mapped) turn_of_id[node.id] = {node.row, node.sequence};
          ++turn_count;
          AddSpeaker(speaker_keys, node.speaker);
        } else if (node.kind == NodeKind::kEntity) {
          if (entity_of_id.contains(node.id)) continue;
          if (!turns_mapped) return false;  // reloaded with the turn map
          if (!entities.empty() && node.row < entities.back().row) return false;
          GraphEntity entity = EntityOf(node);
          entity.class_index = classes.size();
          classes.push_back(EntityClass{.members = {entities.size()}});
          entity_of_id[node.id] = entities.size();
          entities.push_back(std::move(entity));
        } else if (node.kind == NodeKind::kFact) {
          const auto known = fact_of_id.find(node.id);
          if (known != fact_of_id.end()) {
            SetFactState(facts[known->second], node);
            continue;
          }
          if (!facts.empty() && node.row < facts.back().row) return false;
          if (!turns_mapped) return false;  // reloaded with the turn map
          fact_of_id[node.id] = facts.size();
          facts.push_back(FactOf(node, tokenizer));
        }
        break;
      }
      case store::JournalOp::kEdgeInserted: {
        const auto found = edges.find(entry.target_id);
        if (found == edges.end()) continue;  // a type the graph does not read
        const store::EdgeRecord& edge = found->second;
        if (edge.type == kSameAs) {
          if (edge.status == "active") return false;  // a merge: classes are rebuilt by a reload
          if (edge.status != "pending") continue;
          const auto a = entity_of_id.find(edge.src);
          const auto b = entity_of_id.find(edge.dst);
          if (a == entity_of_id.end() || b == entity_of_id.end()) continue;
          const std::pair<std::size_t, std::size_t> pair(a->second, b->second);
          if (std::find(pending_same_as.begin(), pending_same_as.end(), pair) ==
              pending_same_as.end()) {
            pending_same_as.push_back(pair);
          }
        } else if (edge.type == kMentions || edge.type == kRefersTo) {
          if (edge.status != "active") continue;
          const auto entity = entity_of_id.find(edge.dst);
          const auto turn = turn_of_id.find(edge.src);
          if (entity == entity_of_id.end() || turn == turn_of_id.end()) continue;
          AddLink(classes[entities[entity->second].class_index], turn->second, edge.type);
        } else if (edge.type == kDerivedFrom) {
          if (edge.status != "active") continue;
          const auto fact = fact_of_id.find(edge.src);
          const auto turn = turn_of_id.find(edge.dst);
          if (fact == fact_of_id.end() || turn == turn_of_id.end()) continue;
          AddSupport(facts[fact->second], turn->second, edge.dst, turn_of_id);
        }
        break;
      }
      case store::JournalOp::kEdgeUpdated: {
        const auto found = edges.find(entry.target_id);
        if (found == edges.end()) continue;
        const std::string& type = found->second.type;
        // A proposal accepted or rejected, a link or support retired: not an append.
        if (type == kSameAs || type == kMentions || type == kRefersTo || type == kDerivedFrom) {
          return false;
        }
        break;
      }
      default:
        break;
    }
  }
  MarkSpeakers(*this);
  return true;
}

}  // namespace engram::read
