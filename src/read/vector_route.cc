// Vector route (see vector_route.h).
#include "read/vector_route.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

namespace engram::read {

StatusOr<std::vector<RouteCandidate>> VectorRoute::Run(const RouteContext& context) const {
  std::vector<RouteCandidate> candidates;
  if (context.query_vector.empty() || context.vector_indexes.empty()) return candidates;
  // A query without one content word of two or more characters (only stopwords, punctuation,
  // control characters or lone letters) asks nothing: its embedding would still have nearest
  // neighbours, but they would be noise.
  if (context.frame != nullptr) {
    bool has_word = false;
    for (const std::string& term : context.frame->terms) {
      if (term.size() < 2) continue;  // a lone letter or digit means nothing to embed
      for (const char c : term) {
        const auto byte = static_cast<unsigned char>(c);
        has_word = has_word || byte >= 0x80 || std::isalnum(byte);
      }
    }
    if (!has_word) return candidates;
  }
  // Each scope's index gives its best `limit`; the union is cut to the overall best `limit`.
  for (const index::VectorIndex* vector_index : context.vector_indexes) {
    ASSIGN_OR_RETURN(std::vector<index::VectorHit> hits,
                     vector_index->Search(context.query_vector, context.limit));
    for (const index::VectorHit& hit : hits) {
      char explanation[64];
      std::snprintf(explanation, sizeof explanation, "cosine=%.4f", hit.score);
      candidates.push_back({static_cast<std::int64_t>(hit.id), hit.score, explanation});
    }
  }
  std::sort(candidates.begin(), candidates.end(),
            [](const RouteCandidate& a, const RouteCandidate& b) {
              return a.score != b.score ? a.score > b.score : a.row < b.row;
            });
  if (candidates.size() > context.limit) candidates.resize(context.limit);
  return candidates;
}

}  // namespace engram::read
