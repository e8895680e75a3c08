// The consolidation pass (DESIGN §4 step 6 and §7, EverMemOS phases I-II): reads a scope's
// active turns, their stored analysis (content-signal divergence, time signals, mentions,
// references) and facts, and writes what they add up to as derived nodes:
//   - `episode` nodes (episodes.h), each `derived_from` its turns and `mentions` its entities;
//   - `scene` nodes (scenes.h), each `derived_from` its member episodes;
//   - `profile` nodes (profile.h), one per person, each `derived_from` the facts it shows.
// Every node's content is a pure function of the store's turns, analysis and facts, and its id
// is content-addressed with the time of its evidence (not the clock), so a second pass over an
// unchanged scope writes nothing (idempotent) and a pass after more turns leaves the store's
// active episodes, scenes and profiles exactly as a pass over everything from scratch would.
// A node whose content changed (the last episode grew, a scene gained a member, a profile a
// value) is replaced by its successor through a `supersedes` edge, so nothing vanishes: the old
// one stays, superseded, with its history; one with no successor (its turns were retired) is
// retired.
//
//   Consolidator consolidator(store, registry, config.consolidate);
//   ASSIGN_OR_RETURN(auto txn, store.BeginWrite());
//   ASSIGN_OR_RETURN(ConsolidateResult result, consolidator.Run(*txn, scope, now));
//   RETURN_IF_ERROR(txn->Commit());
//
// Node contents (also each node's metadata, so Engine::List shows them):
//   episode  {turns, first_sequence, last_sequence, start, end, session, boundary, speakers,
//             entities [{id, name}], facts, foresight, narrative, sentences [{turn, text}]}
//   scene    {episodes, start, end, keywords, summary [{turn, text}], centroid}
//   profile  {name, scope_user, speaker, explicit [{predicate, current, history}], traits [...]}
//
// Thread-safety: a Consolidator is immutable; Run needs the caller's write transaction.
#ifndef ENGRAM_CONSOLIDATE_CONSOLIDATOR_H_
#define ENGRAM_CONSOLIDATE_CONSOLIDATOR_H_

#include "engram/config.h"
#include "engram/options.h"
#include "engram/status.h"
#include "store/store.h"
#include "write/edge_registry.h"

namespace engram::consolidate {

class Consolidator {
 public:
  Consolidator(store::Store& store, const write::EdgeRegistry& registry,
               const ConsolidateConfig& config)
      : store_(store), registry_(registry), config_(config) {}

  // Consolidates scope `scope` (its own nodes, not nested scopes) inside `txn`. `now` is the
  // transaction time of the nodes and edges it writes.
  StatusOr<ConsolidateResult> Run(store::Transaction& txn, const store::ScopeRecord& scope,
                                  Timestamp now) const;

 private:
  store::Store& store_;  // read-only: the turns' vectors (not visible through a Transaction)
  const write::EdgeRegistry& registry_;
  const ConsolidateConfig& config_;
};

}  // namespace engram::consolidate

#endif  // ENGRAM_CONSOLIDATE_CONSOLIDATOR_H_
