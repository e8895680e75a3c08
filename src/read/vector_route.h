// The vector route: cosine similarity between the query's embedding and the stored turn
// embeddings of the searched scopes (src/index/vector projections). Proposes nothing when the
// store has no embedder ([embedder] kind = "none"), the query has no vector, or the query has no
// content word (its nearest neighbours would be noise).
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
