// Derivation after capture (DESIGN §4 steps 2-5): signals and times, entities and references,
// facts and their reconciliation, all deterministic and inside the capture's transaction, so a
// batch's turns and everything derived from them commit together or not at all.
//
// Each stage lives in its own file and is switched by the [write] section of the config:
//   - analysis (signal nodes, at_time edges, DMF content signals, entities, references),
//   - facts (rule-based extraction, validation, reconciliation through the edge handlers).
#ifndef ENGRAM_WRITE_DERIVE_H_
#define ENGRAM_WRITE_DERIVE_H_

#include <span>
#include <string>

#include "engram/config.h"
#include "engram/status.h"
#include "engram/types.h"
#include "store/store.h"
#include "write/edge_registry.h"

namespace engram::embed {
class Embedder;
}  // namespace engram::embed

namespace engram::write {

struct DeriveContext {
  const WriteConfig* config = nullptr;          // required
  const store::ScopeRecord* scope = nullptr;    // the scope the turns were captured into
  embed::Embedder* embedder = nullptr;          // optional; null when the store has no vectors
  Timestamp now;                                // ingestion time of the batch
};

// Derives what the enabled stages produce for freshly captured turns (`turn_ids`, in capture
// order) and writes it through `txn` / `registry`. Deterministic: the same store state and
// turns give the same nodes and edges.
Status DeriveFromTurns(store::Transaction& txn, const EdgeRegistry& registry,
                       std::span<const std::string> turn_ids, const DeriveContext& context);

}  // namespace engram::write

#endif  // ENGRAM_WRITE_DERIVE_H_
