// The vector route: cosine similarity between the query's embedding and the stored turn
// embeddings of the searched scopes (src/index/vector projections). Proposes nothing when the
// store has no embedder ([embedder] kind = "none"), the query has no vector, or the query has no
// content word (its nearest neighbours would be noise).
//
// With [recall] vector_context w > 0 and a turn layout, a turn is scored by the cosine of the
// query with its own vector plus w x the vector of the turn just before it in its session (the
// previous sequence number), normalised: a short reply ("Yeah, I play clarinet!") is found by
// what it answers, and a question's speaker is near the reply it got. The index is searched
// for twice the route's limit; those turns and the turn after each are rescored so. The stored
// vectors stay each turn's own.
#ifndef ENGRAM_READ_VECTOR_ROUTE_H_
#define ENGRAM_READ_VECTOR_ROUTE_H_

#include "read/route.h"

namespace engram::read {

class VectorRoute final : public Route {
 public:
  static constexpr std::string_view kName = "vector";
  std::string_view name() const override { return kName; }
  StatusOr<std::vector<RouteCandidate>> Run(const RouteContext& context) const override;
};

}  // namespace engram::read

#endif  // ENGRAM_READ_VECTOR_ROUTE_H_
