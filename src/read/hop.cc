// The follow-up recall (see hop.h).
#include "read/hop.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <string>

namespace engram::read {
namespace {

// `vector` scaled to unit length; empty when it is all zeros or not finite.
std::vector<float> Normalized(std::vector<double> vector) {
  double norm = 0;
  for (const double value : vector) norm += value * value;
  if (!(norm > 0) || !std::isfinite(norm)) return {};
  const double scale = 1.0 / std::sqrt(norm);
  std::vector<float> out(vector.size());
  for (std::size_t i = 0; i < vector.size(); ++i) out[i] = static_cast<float>(vector[i] * scale);
  return out;
}

}  // namespace

StatusOr<std::size_t> ApplyHop(std::vector<Ranked>& ranked,
                               std::span<const index::VectorIndex* const> indexes,
                               std::span<const float> query_vector, const TurnLayout& layout,
                               const HopSettings& settings) {
  if (settings.weight <= 0 || settings.seeds == 0 || settings.candidates == 0 || indexes.empty() ||
      query_vector.empty()) {
    return std::size_t{0};
  }
  // The seeds: the first turns of the list, with their positions (1-based ranks for the detail).
  std::vector<std::size_t> seeds;
  for (std::size_t i = 0; i < ranked.size() && seeds.size() < settings.seeds; ++i) {
    if (layout.IndexOf(ranked[i].fused.row).has_value()) seeds.push_back(i);
  }
  if (seeds.empty()) return std::size_t{0};
  const double top_score = ranked[seeds.front()].score;
  std::set<std::int64_t> seed_rows;
  std::string seed_ranks;
  for (const std::size_t seed : seeds) {
    seed_rows.insert(ranked[seed].fused.row);
    seed_ranks += (seed_ranks.empty() ? "" : ",") + std::to_string(seed + 1);
  }

  std::map<std::int64_t, float> cosine_of;  // hit row -> its cosine with the follow-up query
  for (const index::VectorIndex* vector_index : indexes) {
    if (vector_index == nullptr || vector_index->dimension() != query_vector.size()) continue;
    std::vector<double> sum(query_vector.size(), 0.0);
    double query_norm = 0;
    for (const float value : query_vector) query_norm += double{value} * value;
    if (!(query_norm > 0)) continue;
    for (std::size_t d = 0; d < sum.size(); ++d) sum[d] = query_vector[d] / std::sqrt(query_norm);
    std::vector<std::vector<float>> seed_vectors;
    for (const std::int64_t row : seed_rows) {
      if (auto stored = vector_index->VectorOf(static_cast<std::uint64_t>(row))) {
        seed_vectors.push_back(std::move(*stored));
      }
    }
    if (seed_vectors.empty()) continue;  // no seed in this scope
    for (const std::vector<float>& seed : seed_vectors) {
      for (std::size_t d = 0; d < sum.size(); ++d) sum[d] += double{seed[d]} / seed_vectors.size();
    }
    const std::vector<float> query = Normalized(std::move(sum));
    if (query.empty()) continue;
    ASSIGN_OR_RETURN(const std::vector<index::VectorHit> hits,
                     vector_index->Search(query, settings.candidates + seed_vectors.size()));
    std::size_t taken = 0;
    for (const index::VectorHit& hit : hits) {
      const auto row = static_cast<std::int64_t>(hit.id);
      if (seed_rows.contains(row) || !layout.IndexOf(row).has_value()) continue;
      if (taken++ == settings.candidates) break;
      cosine_of[row] = hit.score;
    }
  }
  float best = 0;
  for (const auto& [row, cosine] : cosine_of) best = std::max(best, cosine);
  if (!(best > 0)) return std::size_t{0};

  std::map<std::int64_t, std::size_t> position_of_row;
  for (std::size_t i = 0; i < ranked.size(); ++i) position_of_row[ranked[i].fused.row] = i;
  std::size_t added = 0;
  for (const auto& [row, cosine] : cosine_of) {  // ascending rows: a fixed order
    if (!(cosine > 0)) continue;
    const double bonus = settings.weight * top_score * (cosine / best);
    char detail[128];
    std::snprintf(detail, sizeof detail, " (cosine %.3f with them and the question): +%.4f", cosine,
                  bonus);
    added += AddBonus(
        ranked, position_of_row, row,
        {"hop", 1.0,
         "found via a follow-up search from the candidates ranked " + seed_ranks + detail, bonus});
  }
  return added;
}

}  // namespace engram::read
