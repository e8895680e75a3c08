// ScopeGraph: what the write path derived for one scope, as the entity route, the fact route,
// the bridge stage and the chat context read it: its entity nodes (name, key, kind) grouped into
// equivalence classes by accepted (active) same_as edges, the turns linked to each entity by
// `mentions` (a name in the turn) and `refers_to` (a resolved reference: "you", "she", "there"),
// and its fact nodes with their subject / predicate / object, index terms and supporting turns
// (`derived_from`).
//
// ScopeGraphCache (journal_cache.h) keeps one graph per scope and follows the store's journal:
// new turns, entities, facts, links and supports and the state changes of facts are applied to
// the cached graph (ScopeGraph::Apply); an accepted or rejected same_as proposal, or any other
// state change of a link, reloads the scope. A recall therefore costs one journal query when
// nothing changed and a few row reads after a write.
//
//   ScopeGraphCache graphs;
//   ASSIGN_OR_RETURN(auto scope_graphs, graphs.Get(store, scope_ids, /*stem=*/true));
#ifndef ENGRAM_READ_SCOPE_GRAPH_H_
#define ENGRAM_READ_SCOPE_GRAPH_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engram/status.h"
#include "engram/types.h"
#include "read/journal_cache.h"
#include "store/store.h"

namespace engram::read {

struct GraphEntity {
  std::int64_t row = 0;
  std::string id;
  std::string name;             // as first written ("Caroline")
  std::string key;              // normalised name ("caroline")
  std::string kind;             // "person", "place", "organization"
  std::size_t class_index = 0;  // index into ScopeGraph::classes
  // The entity is a speaker of the scope: its key is a speaker's name or first name, or a
  // pending same_as proposal joins it to such an entity ("Mel" -> "Melanie"; not merged).
  bool speaker = false;
  friend bool operator==(const GraphEntity&, const GraphEntity&) = default;
};

// A turn linked to an entity class.
struct GraphLink {
  std::int64_t turn_row = 0;
  bool mentioned = false;  // a `mentions` edge (a name in the turn)
  bool referred = false;   // a `refers_to` edge (a resolved reference)
  friend bool operator==(const GraphLink&, const GraphLink&) = default;
};

// Entities joined by accepted same_as edges.
struct EntityClass {
  std::vector<std::size_t> members;  // indexes into ScopeGraph::entities, by row
  std::vector<GraphLink> links;      // by turn row, one per turn
  friend bool operator==(const EntityClass&, const EntityClass&) = default;
};

struct GraphFact {
  std::int64_t row = 0;
  std::string id;
  NodeStatus status = NodeStatus::kActive;
  std::optional<Timestamp> valid_from;
  std::optional<Timestamp> valid_to;
  Timestamp ingested_at;  // for as-of recalls (read/visibility.h)
  Timestamp updated_at;
  std::string text;         // the fact node's rendered statement
  std::string subject;      // as extracted ("Caroline", "user")
  std::string subject_key;  // normalised
  std::string predicate;    // "went_to"
  std::string object;
  std::string kind;       // write/extractor.h FactKind name
  bool has_time = false;  // the fact carries a time of its own ("last May")
  // Distinct index terms of the predicate and the object (the tokenizer of the BM25 route), sorted.
  std::vector<std::string> terms;
  // Supporting turns (derived_from), in sequence order.
  std::vector<std::string> support_ids;
  std::vector<std::int64_t> support_rows;
  friend bool operator==(const GraphFact&, const GraphFact&) = default;
};

struct ScopeGraph {
  std::int64_t scope_id = 0;
  std::size_t turn_count = 0;
  // Normalised names of the turns' speakers and their first words, sorted, without repeats.
  std::vector<std::string> speaker_keys;
  std::vector<GraphEntity> entities;  // by row
  std::vector<EntityClass> classes;   // by smallest member row
  std::vector<GraphFact> facts;       // by row

  // The rows of the scope's turns, ascending: each turn is counted once however often the
  // journal shows it.
  std::vector<std::int64_t> turn_rows;
  // What Apply needs to place new rows (lookups only, never iterated). The links and supports
  // name their turns by id, so turn_of_id holds every turn of the scope only while the scope has
  // entities or facts (`turns_mapped`); a scope without them (the write path derived none) is
  // loaded without building a map of all its turn ids, and its first entity or fact makes Apply
  // decline, so the scope is reloaded with the map.
  struct TurnRef {
    std::int64_t row = 0;
    std::int64_t sequence = 0;
    friend bool operator==(const TurnRef&, const TurnRef&) = default;
  };
  bool turns_mapped = false;
  std::unordered_map<std::string, TurnRef> turn_of_id;
  std::unordered_map<std::string, std::size_t> entity_of_id;  // index into entities
  std::unordered_map<std::string, std::size_t> fact_of_id;    // index into facts
  // Pending same_as proposals between two entities of the graph (entity indexes), by edge row.
  std::vector<std::pair<std::size_t, std::size_t>> pending_same_as;

  // Reads the scope's graph from the store: its entity and fact nodes, then its turns once (in
  // row order; only their ids, sequences and speakers are used), then the edges of the types
  // above when it has entities or facts. `stem` must be the BM25 tokenizer's setting, so fact
  // terms equal query terms.
  static StatusOr<ScopeGraph> Load(store::Store& store, std::int64_t scope_id, bool stem);

  // Applies the scope's journal rows written since the graph was loaded or last updated, oldest
  // first (JournalCache's contract): turns, entities and facts inserted, facts whose state
  // changed, and mentions / refers_to / derived_from / pending same_as edges inserted. Returns
  // false, leaving the graph unusable, for a row it cannot apply (an accepted same_as edge: a
  // merge; a state change of a link or a proposal; the first entity or fact of a graph loaded
  // without its turn map); the caller then reloads the scope.
  StatusOr<bool> Apply(store::Store& store, std::span<const store::JournalEntry> entries,
                       bool stem);

  friend bool operator==(const ScopeGraph&, const ScopeGraph&) = default;
};

// Per-scope ScopeGraph cache, following the store's journal; the settings are the BM25 stemming
// (a change empties it).
using ScopeGraphCache = JournalCache<ScopeGraph, bool>;

// Normalised key of a name as the question writes it: NormalizeForIndex, a final possessive
// "'s" dropped ("Caroline's" -> "caroline").
std::string NameKey(std::string_view name);

}  // namespace engram::read

#endif  // ENGRAM_READ_SCOPE_GRAPH_H_
