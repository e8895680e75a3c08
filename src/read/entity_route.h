// The entity-graph route (DESIGN §5.3, WorldDB §4 entity lane) and the per-scope graph it reads.
//
// ScopeGraph: what the write path derived for one scope, read once from the store and cached:
// its entity nodes (name, key, kind) grouped into equivalence classes by accepted (active)
// same_as edges, the turns linked to each entity by `mentions` (a name in the turn) and
// `refers_to` (a resolved reference: "you", "she", "there"), and its fact nodes with their
// subject / predicate / object, index terms and supporting turns (`derived_from`). The fact route
// (fact_route.h) reads the same graph. ScopeGraphCache keeps one graph per scope and drops a
// scope's graph when the store's journal shows a change in that scope, so a recall costs one
// journal query when nothing changed.
//
// EntityRoute ("entity"): resolves the entities the question asks about and proposes the turns
// linked to them.
//   1. Asked entities: every name of the frame (capitalised words, "Caroline's" -> caroline)
//      is matched against the searched scopes' entity keys: equal key; for a multi-word key,
//      every word of the key among the names ("Grand Canyon"); for a multi-word person, its
//      first word ("Sara" -> "Sara Bareilles", WorldDB's alias tier). The match takes the whole
//      same_as class of the entity (pending proposals are not followed: nothing merges
//      silently).
//   2. Specificity: a class linked to df of the N turns of the searched scopes weighs
//      w = ln(1 + N / df), so a rare entity (3 turns) outweighs a speaker (~190 of 419 turns).
//   3. A turn's score is the sum of w over the asked classes that link it ("turns matching several
//      asked entities rank first") + [recall] entity_lexical_weight × the turn's own BM25 for the
//      question's terms other than the names (which orders the turns of one entity).
//   4. Speakers: an entity whose key is a speaker's name (or its first word), or that a pending
//      same_as proposal joins to one ("Mel" -> "Melanie"), is linked to nearly every turn of the
//      other speaker ("you", "Mel"), and the speaker's own turns are lifted by the person
//      adjustment already. A speaker's class therefore only adds its weight to turns that an
//      asked non-speaker entity links too; a turn linked to asked speakers alone is not
//      proposed. (Measured: proposing those turns when they also match a query term, i.e. BM25
//      restricted to the turns that address the speaker, lost 1-2 points of LoCoMo R@10 and MRR,
//      docs/BENCHMARKS.md.)
// Ties: row ascending. Proposes nothing without a store, without names, or when no name
// resolves.
#ifndef ENGRAM_READ_ENTITY_ROUTE_H_
#define ENGRAM_READ_ENTITY_ROUTE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engram/status.h"
#include "engram/types.h"
#include "read/route.h"
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
};

// A turn linked to an entity class.
struct GraphLink {
  std::int64_t turn_row = 0;
  bool mentioned = false;  // a `mentions` edge (a name in the turn)
  bool referred = false;   // a `refers_to` edge (a resolved reference)
};

// Entities joined by accepted same_as edges.
struct EntityClass {
  std::vector<std::size_t> members;  // indexes into ScopeGraph::entities, by row
  std::vector<GraphLink> links;      // by turn row, one per turn
};

struct GraphFact {
  std::int64_t row = 0;
  std::string id;
  NodeStatus status = NodeStatus::kActive;
  std::optional<Timestamp> valid_from;
  std::optional<Timestamp> valid_to;
  Timestamp ingested_at;  // for as-of recalls (read/visibility.h)
  Timestamp updated_at;
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
};

struct ScopeGraph {
  std::int64_t scope_id = 0;
  std::size_t turn_count = 0;
  // Normalised names of the turns' speakers and their first words, sorted, without repeats.
  std::vector<std::string> speaker_keys;
  std::vector<GraphEntity> entities;  // by row
  std::vector<EntityClass> classes;   // by smallest member row
  std::vector<GraphFact> facts;       // by row

  // Reads the scope's graph from the store. `stem` must be the BM25 tokenizer's setting, so fact
  // terms equal query terms.
  static StatusOr<ScopeGraph> Load(store::Store& store, std::int64_t scope_id, bool stem);
};

// Per-scope ScopeGraph cache, invalidated by the store's journal. One cache serves one store
// (the Routes of one engine); a different store pointer empties it.
// Thread-safety: Get may be called concurrently; graphs handed out are immutable.
class ScopeGraphCache {
 public:
  StatusOr<std::vector<std::shared_ptr<const ScopeGraph>>> Get(
      store::Store& store, std::span<const std::int64_t> scope_ids, bool stem);

 private:
  std::mutex mutex_;
  store::Store* store_ = nullptr;  // GUARDED_BY(mutex_)
  bool stem_ = true;
  std::int64_t applied_journal_seq_ = -1;  // -1: nothing loaded yet
  std::map<std::int64_t, std::shared_ptr<const ScopeGraph>> graphs_;
};

class EntityRoute final : public Route {
 public:
  static constexpr std::string_view kName = "entity";
  explicit EntityRoute(std::shared_ptr<ScopeGraphCache> cache) : cache_(std::move(cache)) {}
  std::string_view name() const override { return kName; }
  StatusOr<std::vector<RouteCandidate>> Run(const RouteContext& context) const override;

 private:
  std::shared_ptr<ScopeGraphCache> cache_;
};

// Normalised key of a name as the question writes it: NormalizeForIndex, a final possessive
// "'s" dropped ("Caroline's" -> "caroline").
std::string NameKey(std::string_view name);

}  // namespace engram::read

#endif  // ENGRAM_READ_ENTITY_ROUTE_H_
