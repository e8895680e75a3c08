// The entity-graph route (DESIGN §5.3, WorldDB §4 entity lane).
//
// The route reads the per-scope graph of scope_graph.h (ScopeGraph, kept by a ScopeGraphCache
// that follows the store's journal); the fact route (fact_route.h) reads the same graph.
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

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engram/status.h"
#include "read/route.h"
#include "read/scope_graph.h"

namespace engram::read {

class EntityRoute final : public Route {
 public:
  static constexpr std::string_view kName = "entity";
  explicit EntityRoute(std::shared_ptr<ScopeGraphCache> cache) : cache_(std::move(cache)) {}
  std::string_view name() const override { return kName; }
  StatusOr<std::vector<RouteCandidate>> Run(const RouteContext& context) const override;

 private:
  std::shared_ptr<ScopeGraphCache> cache_;
};

}  // namespace engram::read

#endif  // ENGRAM_READ_ENTITY_ROUTE_H_
