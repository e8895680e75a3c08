// Fusion of route results by weighted reciprocal rank fusion (Eywa eq. 2, DESIGN §5.4):
//   fused(d) = Σ_routes weight_r / (k + rank_r(d)),  rank 1-based, k = Config::recall.rrf_k.
#ifndef ENGRAM_READ_FUSION_H_
#define ENGRAM_READ_FUSION_H_

#include <span>
#include <string>
#include <vector>

#include "engram/read_result.h"
#include "read/route.h"

namespace engram::read {

struct RouteRun {
  std::string route;
  double weight = 1.0;
  std::vector<RouteCandidate> candidates;  // best first
};

struct FusedCandidate {
  std::int64_t row = 0;
  double fused_score = 0;
  std::vector<RouteScore> routes;  // in the order of `runs`
};

// Best first; ties broken by row ascending. Routes with weight 0 still report their ranks but
// add nothing to the fused score.
std::vector<FusedCandidate> FuseWeightedRrf(std::span<const RouteRun> runs, double rrf_k);

}  // namespace engram::read

#endif  // ENGRAM_READ_FUSION_H_
