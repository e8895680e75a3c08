// BM25 route (see bm25_route.h).
#include "read/bm25_route.h"

namespace engram::read {

StatusOr<std::vector<RouteCandidate>> Bm25Route::Run(const RouteContext& context) const {
  std::vector<RouteCandidate> candidates;
  if (context.frame->terms.empty() || context.text_indexes.empty()) return candidates;
  const std::vector<index::Bm25Hit> hits = index::Bm25Index::Search(
      context.text_indexes, context.frame->terms, context.config->bm25, context.limit);
  candidates.reserve(hits.size());
  for (const index::Bm25Hit& hit : hits) {
    candidates.push_back(
        {static_cast<std::int64_t>(hit.doc), hit.score, hit.Explain()});
  }
  return candidates;
}

}  // namespace engram::read
