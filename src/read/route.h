// Retrieval routes (DESIGN §5.3): each route proposes ranked candidates with its own score and
// an explanation. Fusion (fusion.h) combines the routes; nothing else ranks.
#ifndef ENGRAM_READ_ROUTE_H_
#define ENGRAM_READ_ROUTE_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engram/config.h"
#include "engram/status.h"
#include "index/bm25/bm25_index.h"
#include "index/vector/vector_index.h"
#include "read/query_frame.h"
#include "read/turn_layout.h"
#include "store/store.h"

namespace engram::lexicon {
class WordVectors;
}  // namespace engram::lexicon

namespace engram::read {

class Visibility;
class WordNeighbourCache;

// A candidate proposed by one route. `row` is the node's store row (the index document key).
struct RouteCandidate {
  std::int64_t row = 0;
  double score = 0;
  std::string explanation;
};

// What a route may read. Every pointer outlives the Run call.
struct RouteContext {
  const QueryFrame* frame = nullptr;
  const Config* config = nullptr;
  // BM25 projections of the scopes being searched (the asked scope and its nested scopes).
  std::span<const index::Bm25Index* const> text_indexes;
  // Vector projections of the same scopes (empty when the store has no embedder) and the
  // query's embedding (empty when there is none).
  std::span<const index::VectorIndex* const> vector_indexes;
  std::span<const float> query_vector;
  // The searched scopes' turns in conversation order (sessions, neighbours); null when the
  // request has no store.
  const TurnLayout* layout = nullptr;
  // The query's terms over `layout`, shared by the routes that score them (one TermMatrix per
  // recall); null when the request has no layout, or when each route is to build its own.
  RecallTerms* terms = nullptr;
  // The store and the searched scope ids, for routes that read nodes or edges (entity graph,
  // facts); null / empty when the request has none.
  store::Store* store = nullptr;
  std::span<const std::int64_t> scope_ids;
  // Candidates a route may return at most.
  std::size_t limit = 100;
  // The recall's visibility filters; a route that reads memories' status (facts) asks it under
  // an as-of recall. May be null.
  const Visibility* visibility = nullptr;
  // GloVe word vectors for the lexical routes' soft matches ([recall] word_vector_match); null
  // when off.
  const lexicon::WordVectors* word_vectors = nullptr;
  // The scopes' vocabularies gathered for word_vectors, kept between recalls; null: each
  // recall gathers its own.
  WordNeighbourCache* word_neighbour_cache = nullptr;
};

// Thread-safety: Run is const and may be called concurrently.
class Route {
 public:
  virtual ~Route() = default;
  virtual std::string_view name() const = 0;
  // Candidates best first; ties broken by row ascending.
  virtual StatusOr<std::vector<RouteCandidate>> Run(const RouteContext& context) const = 0;
};

}  // namespace engram::read

#endif  // ENGRAM_READ_ROUTE_H_
