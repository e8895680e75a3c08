// The recall pipeline (DESIGN §5): query frame → plan → routes → fusion → filters → packing →
// ReadResult. Deterministic and LLM-free: the same store, query and options give the same result.
#ifndef ENGRAM_READ_RECALL_H_
#define ENGRAM_READ_RECALL_H_

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "engram/config.h"
#include "engram/options.h"
#include "engram/read_result.h"
#include "read/entity_route.h"
#include "read/learned_ranker.h"
#include "read/query_frame.h"
#include "read/route.h"
#include "read/scope_structure.h"
#include "store/store.h"

namespace engram::read {

// Everything one recall needs; the engine fills it in. Pointers outlive RunRecall.
struct RecallRequest {
  QueryFrame frame;
  const Config* config = nullptr;
  // k / token_budget already resolved to non-zero values, pack_by_value to the config's when
  // the caller left it unset (unset here = false).
  RecallOptions options;
  std::vector<const index::Bm25Index*> text_indexes;
  // The searched scopes' turn layouts from the engine's projection, one per scope id in the same
  // order; empty = RunRecall loads the layout from the store.
  std::vector<const TurnLayout*> layouts;
  // Vector projections of the searched scopes and the query embedding (both empty without an
  // embedder); the vector route reads them.
  std::vector<const index::VectorIndex*> vector_indexes;
  std::vector<float> query_vector;
  // The store and the scope ids being searched (the asked scope, plus nested ones when asked),
  // for routes and stages that read nodes or edges directly (neighbour turns, entity graph).
  store::Store* store = nullptr;
  std::vector<std::int64_t> scope_ids;
  // Loads node records by store row (the document keys the routes return).
  std::function<StatusOr<std::vector<store::NodeRecord>>(std::span<const std::int64_t>)>
      load_nodes;
  // Scope path of a scope id, for the items.
  std::function<std::string(std::int64_t)> scope_path;
  // The tokenizer the frame's terms came from (the answerability echo share); may be null.
  const text::Tokenizer* tokenizer = nullptr;
  // Word vectors for the fragment route's soft matches; null when [recall] word_vector_match is 0
  // or they are not installed (then `word_vectors_missing` says so, and the diagnostics'
  // warnings repeat it).
  const lexicon::WordVectors* word_vectors = nullptr;
  std::string word_vectors_missing;
  // Why the frame has no WordNet synonyms although the keyword route runs and weighs them
  // ([recall] keyword_synonym_weight > 0): the lexicons are not installed. "" otherwise.
  std::string synonyms_missing;
  // Their cache of the scopes' vocabularies (read/word_neighbours.h); may be null.
  WordNeighbourCache* word_neighbour_cache = nullptr;
  // The learned ranker when [recall] ranker = "learned" and its model loaded; null keeps the
  // fused order (then `ranker_missing` says why, when the config asked for it).
  const LearnedRanker* ranker = nullptr;
  std::string ranker_missing;
};

// Route registry of the read path: every route engram knows, by name.
class Routes {
 public:
  static Routes Default();  // bm25 today; more routes join with later issues
  const Route* Find(std::string_view name) const;
  std::vector<std::string> Names() const;
  // The per-scope entity graphs the entity and fact routes read (the bridge stage reads them too).
  const std::shared_ptr<ScopeGraphCache>& graphs() const { return graphs_; }
  // The per-scope episodes, scenes and profiles the scene route and the chat context read.
  const std::shared_ptr<ScopeStructureCache>& structures() const { return structures_; }

 private:
  std::vector<std::unique_ptr<Route>> routes_;
  std::shared_ptr<ScopeGraphCache> graphs_;
  std::shared_ptr<ScopeStructureCache> structures_;
};

// Runs the pipeline. Unknown route names in options.routes are kInvalidArgument.
StatusOr<ReadResult> RunRecall(const RecallRequest& request, const Routes& routes);

// The item for a stored node (no scores yet).
RecallItem ItemFromNode(const store::NodeRecord& node, std::string scope_path);

}  // namespace engram::read

#endif  // ENGRAM_READ_RECALL_H_
