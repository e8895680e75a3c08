// The BM25 route: Okapi BM25 over the turn text of the searched scopes (src/index/bm25).
#ifndef ENGRAM_READ_BM25_ROUTE_H_
#define ENGRAM_READ_BM25_ROUTE_H_

#include "read/route.h"

namespace engram::read {

class Bm25Route final : public Route {
 public:
  static constexpr std::string_view kName = "bm25";
  std::string_view name() const override { return kName; }
  StatusOr<std::vector<RouteCandidate>> Run(const RouteContext& context) const override;
};

}  // namespace engram::read

#endif  // ENGRAM_READ_BM25_ROUTE_H_
