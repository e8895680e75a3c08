// ExactIndex: brute-force cosine search over every stored vector.
//
// Exact by construction, so it is the reference HnswIndex is measured against, and the right
// choice for small collections (a scan of 10^4 512-d vectors takes about a millisecond). Search
// cost grows linearly with the number of vectors.
//
//   ASSIGN_OR_RETURN(auto index, ExactIndex::Create(512));
#ifndef ENGRAM_INDEX_VECTOR_EXACT_INDEX_H_
#define ENGRAM_INDEX_VECTOR_EXACT_INDEX_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <shared_mutex>
#include <span>
#include <unordered_map>
#include <vector>

#include "engram/status.h"
#include "index/vector/vector_index.h"

namespace engram::index {

// Invariants: slot i holds ids_[i] and vectors_[i·dimension, (i+1)·dimension) (unit length);
// slot_of_ maps every id ever added to its slot; live_[i] says whether slot i is searchable;
// live_count_ == count(live_). A removed id keeps its slot, reused if it is added again.
// Thread-safety: see VectorIndex (a shared_mutex guards all state).
class ExactIndex final : public VectorIndex {
 public:
  // InvalidArgument when dimension is 0.
  static StatusOr<std::unique_ptr<ExactIndex>> Create(std::size_t dimension);

  std::size_t dimension() const override { return dimension_; }
  Status Add(std::uint64_t id, std::span<const float> vector) override;
  Status Remove(std::uint64_t id) override;
  StatusOr<std::vector<VectorHit>> Search(std::span<const float> query, std::size_t k,
                                          const VectorFilter& filter = {}) const override;
  std::size_t size() const override;
  bool Contains(std::uint64_t id) const override;
  std::optional<float> ScoreOf(std::span<const float> normalized, std::uint64_t id) const override;
  std::optional<float> Similarity(std::uint64_t a, std::uint64_t b) const override;
  std::optional<std::vector<float>> VectorOf(std::uint64_t id) const override;

 private:
  explicit ExactIndex(std::size_t dimension) : dimension_(dimension) {}

  const std::size_t dimension_;
  mutable std::shared_mutex mutex_;
  std::vector<float> vectors_;                              // GUARDED_BY(mutex_)
  std::vector<std::uint64_t> ids_;                          // GUARDED_BY(mutex_)
  std::vector<bool> live_;                                  // GUARDED_BY(mutex_)
  std::unordered_map<std::uint64_t, std::size_t> slot_of_;  // GUARDED_BY(mutex_); lookups only
  std::size_t live_count_ = 0;                              // GUARDED_BY(mutex_)
};

}  // namespace engram::index

#endif  // ENGRAM_INDEX_VECTOR_EXACT_INDEX_H_
