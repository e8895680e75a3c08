// engram::index::VectorIndex: nearest-neighbour search over embedding vectors by cosine similarity.
//
// The vector route of the read path asks "which stored items are most similar to this query
// vector?". The index is a projection (DESIGN §1.5): rebuilt from the vectors in the store, never
// the only copy. Two implementations share this interface and one contract test suite:
//   - ExactIndex (exact_index.h): brute force; exact, the reference in recall tests, fine up to
//     ~10^5 vectors.
//   - HnswIndex (hnsw_index.h): hnswlib's HNSW graph; approximate, sub-linear.
//
//   ASSIGN_OR_RETURN(auto index, HnswIndex::Create({.dimension = 512}));
//   RETURN_IF_ERROR(index->Add(node_id, vector));
//   ASSIGN_OR_RETURN(std::vector<VectorHit> hits, index->Search(query, 10));
//   // hits[0].id is the most similar item, hits[0].score its cosine similarity.
#ifndef ENGRAM_INDEX_VECTOR_VECTOR_INDEX_H_
#define ENGRAM_INDEX_VECTOR_VECTOR_INDEX_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "engram/status.h"

namespace engram::index {

// One search result.
struct VectorHit {
  std::uint64_t id = 0;
  float score = 0.0f;  // cosine similarity of the query and the stored vector, in [-1, 1]

  friend bool operator==(const VectorHit&, const VectorHit&) = default;
};

// Restricts a search to ids for which it returns true (scope, validity time, kind, ...). Called on
// the searching thread, possibly more than once per id.
using VectorFilter = std::function<bool(std::uint64_t id)>;

// Contract of every implementation (checked by vector_index_test.cc against both):
//   - Vectors are stored L2-normalised, so scores are cosine similarities; the score of an id is
//     embed::Dot(normalised query, normalised vector) (embed/embedder.h: summed in a fixed
//     order), whichever index.
//   - Results are ordered by score descending, ties broken by id ascending; deterministic.
//   - Thread-safety: Search, size, dimension and Contains may run concurrently with each other;
//     Add and Remove take an exclusive lock (they may be called from any thread).
//   - Never throws; errors are Status values.
class VectorIndex {
 public:
  virtual ~VectorIndex();

  // Length every vector must have.
  virtual std::size_t dimension() const = 0;

  // Stores `vector` (normalised) under `id`. An id that was removed may be added again.
  // InvalidArgument: wrong length, a non-finite value, or all zeros. AlreadyExists: `id` is live.
  virtual Status Add(std::uint64_t id, std::span<const float> vector) = 0;

  // Marks `id` deleted: no later Search returns it. NotFound when `id` is not live.
  virtual Status Remove(std::uint64_t id) = 0;

  // The (up to) k live ids most similar to `query` that pass `filter` (all when empty), best
  // first. InvalidArgument: wrong length, non-finite or all-zero query. k == 0 gives no hits.
  virtual StatusOr<std::vector<VectorHit>> Search(std::span<const float> query, std::size_t k,
                                                  const VectorFilter& filter = {}) const = 0;

  // Number of live ids.
  virtual std::size_t size() const = 0;

  // True when `id` is live.
  virtual bool Contains(std::uint64_t id) const = 0;

  // embed::Dot of `normalized` (the caller's, already of unit length and of dimension() floats)
  // with the stored vector of a live `id`: its score as Search gives it. nullopt when `id` is not
  // live.
  virtual std::optional<float> ScoreOf(std::span<const float> normalized,
                                       std::uint64_t id) const = 0;
  // embed::Dot of the stored vectors of two live ids (their cosine); nullopt when either is not.
  virtual std::optional<float> Similarity(std::uint64_t a, std::uint64_t b) const = 0;
  // A copy of the stored (unit-length) vector of a live `id`; nullopt when it is not live.
  virtual std::optional<std::vector<float>> VectorOf(std::uint64_t id) const = 0;
};

// Checks length and values, then returns the L2-normalised copy of `vector`. `what` names the
// argument in error messages ("vector", "query").
StatusOr<std::vector<float>> NormalizedCopy(std::span<const float> vector, std::size_t dimension,
                                            std::string_view what);

// True when hit `a` ranks before hit `b`: higher score, then lower id.
inline bool RanksBefore(const VectorHit& a, const VectorHit& b) {
  return a.score != b.score ? a.score > b.score : a.id < b.id;
}

}  // namespace engram::index

#endif  // ENGRAM_INDEX_VECTOR_VECTOR_INDEX_H_
