// Derivation after capture (DESIGN §4 steps 2-5): signals and times, entities and references,
// facts and their reconciliation, all deterministic and inside the capture's transaction, so a
// batch's turns and everything derived from them commit together or not at all.
//
// Each turn's text is analysed once (write/turn_text.h: lexemes, signals with the gazetteer) and
// handed to two stages, each in its own files and switched by the [write] section of the config:
//   - analysis.h: the turn's analysis row (signals, DMF content signals), time anchors and
//     at_time edges, entities, references;
//   - facts.h: rule-based facts, validation, reconciliation through the edge handlers.
// Derived nodes carry the scope and the sequence number of the turn they come from, and a
// `derived_from` edge to it.
#ifndef ENGRAM_WRITE_DERIVE_H_
#define ENGRAM_WRITE_DERIVE_H_

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engram/config.h"
#include "engram/status.h"
#include "engram/types.h"
#include "store/store.h"
#include "write/edge_registry.h"
#include "write/turn_text.h"

namespace engram::embed {
class Embedder;
}  // namespace engram::embed

namespace engram::write {

struct AnalysisResources;  // analysis.h: lexicons and whatever else the analysis stage loads

struct DeriveContext {
  const store::ScopeRecord* scope = nullptr;  // the scope the turns were captured into
  embed::Embedder* embedder = nullptr;        // optional; null when the store has no vectors
  Timestamp now;                              // ingestion time of the batch
  // The turns' embeddings, aligned with the turn ids given to Derive; empty without an embedder.
  std::span<const std::vector<float>> turn_vectors;
  // Committed reads (the embeddings of the scope's earlier turns, for DMF divergence); may be
  // null, and then earlier batches' turns have no embeddings here.
  store::Store* store = nullptr;
  // The turns' text analyses (write/turn_text.h), aligned with the turn ids given to Derive:
  // Deriver::Derive computes them once and every stage reads them. Empty: a stage called on its
  // own analyses each turn itself.
  std::span<const TurnText> texts;
};

// Thread-safety: Derive is const and may run concurrently on different transactions.
class Deriver {
 public:
  // Loads what the enabled stages need from `data_dir` (lexicons). Errors name the missing file
  // and the set-up command that installs it.
  static StatusOr<std::unique_ptr<Deriver>> Open(const WriteConfig& config,
                                                 std::string_view data_dir);
  ~Deriver();

  // Derives what the enabled stages produce for freshly captured turns (`turn_ids`, in capture
  // order) and writes it through `txn` / `registry`. Deterministic: the same store state and
  // turns give the same nodes and edges.
  Status Derive(store::Transaction& txn, const EdgeRegistry& registry,
                std::span<const std::string> turn_ids, const DeriveContext& context) const;

 private:
  Deriver() = default;
  WriteConfig config_;
  std::shared_ptr<const AnalysisResources> resources_;
};

}  // namespace engram::write

#endif  // ENGRAM_WRITE_DERIVE_H_
