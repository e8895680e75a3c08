// Weighted reciprocal rank fusion (see fusion.h).
#include "read/fusion.h"

#include <algorithm>
#include <map>

namespace engram::read {

std::vector<FusedCandidate> FuseWeightedRrf(std::span<const RouteRun> runs, double rrf_k) {
  std::map<std::int64_t, FusedCandidate> by_row;
  for (const RouteRun& run : runs) {
    for (std::size_t rank_idx = 0; rank_idx < run.candidates.size(); ++rank_idx) {
      const RouteCandidate& candidate = run.candidates[rank_idx];
      FusedCandidate& fused = by_row[candidate.row];
      fused.row = candidate.row;
      const std::size_t rank = rank_idx + 1;
      fused.fused_score += run.weight / (rrf_k + static_cast<double>(rank));
      fused.routes.push_back({run.route, rank, candidate.score, candidate.explanation});
    }
  }
  std::vector<FusedCandidate> fused;
  fused.reserve(by_row.size());
  for (auto& [row, candidate] : by_row) fused.push_back(std::move(candidate));
  std::stable_sort(fused.begin(), fused.end(), [](const FusedCandidate& a, const FusedCandidate& b) {
    if (a.fused_score != b.fused_score) return a.fused_score > b.fused_score;
    return a.row < b.row;
  });
  return fused;
}

}  // namespace engram::read
