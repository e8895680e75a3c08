// Vector route (see vector_route.h).
#include "read/vector_route.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <set>

#include "embed/embedder.h"
#include "read/turn_layout.h"

namespace engram::read {
namespace {

// The layout index of the turn just before (step -1) or after (+1) turn `at` in its session
// (the layout's, as the neighbour expansion reads it) when it holds the adjacent sequence
// number, or nullopt.
std::optional<std::size_t> Adjacent(const TurnLayout& layout, std::size_t at, int step) {
  const LayoutSession& session = layout.sessions()[layout.SessionOf(at)];
  if (step < 0 ? at == session.begin : at + 1 >= session.end) return std::nullopt;
  const std::size_t other = step < 0 ? at - 1 : at + 1;
  if (layout.turns()[other].sequence != layout.turns()[at].sequence + step) return std::nullopt;
  return other;
}

// The turns of one index the query is nearest to, each scored with the turn before it (see
// vector_route.h): the index's best 2 x limit by their own vectors and the turn after each.
// With unit vectors o (the turn's), b (the one before) and q (the query), the cosine of q with
// o + w b is (q.o + w q.b) / sqrt(1 + w^2 + 2 w o.b): three dot products, the first two often
// known from the search already.
StatusOr<std::vector<RouteCandidate>> WithTurnBefore(const index::VectorIndex& vector_index,
                                                     const RouteContext& context, double weight) {
  const TurnLayout& layout = *context.layout;
  ASSIGN_OR_RETURN(const std::vector<index::VectorHit> hits,
                   vector_index.Search(context.query_vector, 2 * context.limit));
  std::map<std::int64_t, double> score_of;  // q.v of the rows scored so far
  for (const index::VectorHit& hit : hits) score_of[static_cast<std::int64_t>(hit.id)] = hit.score;
  std::vector<float> query(context.query_vector.begin(), context.query_vector.end());
  double query_norm = 0;
  for (const float value : query) query_norm += double{value} * value;
  for (float& value : query) value = static_cast<float>(value / std::sqrt(query_norm));
  const auto score = [&](std::int64_t row) -> std::optional<double> {
    if (const auto found = score_of.find(row); found != score_of.end()) return found->second;
    const std::optional<float> computed =
        vector_index.ScoreOf(query, static_cast<std::uint64_t>(row));
    if (computed.has_value()) score_of.emplace(row, *computed);
    return computed;
  };

  std::set<std::int64_t> rows;
  for (const index::VectorHit& hit : hits) {
    const auto row = static_cast<std::int64_t>(hit.id);
    rows.insert(row);
    if (const std::optional<std::size_t> at = layout.IndexOf(row)) {
      if (const std::optional<std::size_t> after = Adjacent(layout, *at, +1)) {
        rows.insert(layout.turns()[*after].row);
      }
    }
  }
  std::vector<RouteCandidate> candidates;
  for (const std::int64_t row : rows) {  // ascending: a fixed order
    const std::optional<double> own = score(row);
    if (!own.has_value()) continue;
    double combined = *own;
    bool with_before = false;
    if (const std::optional<std::size_t> at = layout.IndexOf(row)) {
      if (const std::optional<std::size_t> previous = Adjacent(layout, *at, -1)) {
        const std::int64_t before_row = layout.turns()[*previous].row;
        const std::optional<double> before = score(before_row);
        const std::optional<float> between = vector_index.Similarity(
            static_cast<std::uint64_t>(row), static_cast<std::uint64_t>(before_row));
        const double norm_squared =
            between.has_value() ? 1 + weight * weight + 2 * weight * *between : 0;
        if (before.has_value() && norm_squared > 0) {
          combined = (*own + weight * *before) / std::sqrt(norm_squared);
          with_before = true;
        }
      }
    }
    char explanation[96];
    std::snprintf(explanation, sizeof explanation,
                  with_before ? "cosine=%.4f with the turn before it" : "cosine=%.4f", combined);
    candidates.push_back({row, combined, explanation});
  }
  return candidates;
}

}  // namespace

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
  const double context_weight = context.config != nullptr && context.layout != nullptr
                                    ? context.config->recall.vector_context
                                    : 0.0;
  // Each scope's index gives its best `limit`; the union is cut to the overall best `limit`.
  for (const index::VectorIndex* vector_index : context.vector_indexes) {
    if (context_weight > 0) {
      ASSIGN_OR_RETURN(std::vector<RouteCandidate> scored,
                       WithTurnBefore(*vector_index, context, context_weight));
      candidates.insert(candidates.end(), scored.begin(), scored.end());
      continue;
    }
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
