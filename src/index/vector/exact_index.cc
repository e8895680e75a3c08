// ExactIndex (see exact_index.h).
#include "index/vector/exact_index.h"

#include <algorithm>
#include <exception>
#include <mutex>
#include <new>
#include <string>

#include "embed/embedder.h"

namespace engram::index {

StatusOr<std::unique_ptr<ExactIndex>> ExactIndex::Create(std::size_t dimension) {
  if (dimension == 0) return Status::InvalidArgument("exact index: dimension must be > 0");
  return std::unique_ptr<ExactIndex>(new ExactIndex(dimension));
}

Status ExactIndex::Add(std::uint64_t id, std::span<const float> vector) {
  ASSIGN_OR_RETURN(std::vector<float> normalized, NormalizedCopy(vector, dimension_, "vector"));
  std::unique_lock lock(mutex_);
  try {
    const auto existing = slot_of_.find(id);
    if (existing != slot_of_.end()) {
      if (live_[existing->second]) {
        return Status::AlreadyExists("vector id " + std::to_string(id) + " is already indexed");
      }
      std::copy(normalized.begin(), normalized.end(),
                vectors_.begin() + static_cast<std::ptrdiff_t>(existing->second * dimension_));
      live_[existing->second] = true;
    } else {
      vectors_.insert(vectors_.end(), normalized.begin(), normalized.end());
      ids_.push_back(id);
      live_.push_back(true);
      slot_of_.emplace(id, ids_.size() - 1);
    }
  } catch (const std::bad_alloc&) {
    return Status::ResourceExhausted("exact index: out of memory adding vector " +
                                     std::to_string(id));
  }
  ++live_count_;
  return Status::Ok();
}

Status ExactIndex::Remove(std::uint64_t id) {
  std::unique_lock lock(mutex_);
  const auto existing = slot_of_.find(id);
  if (existing == slot_of_.end() || !live_[existing->second]) {
    return Status::NotFound("vector id " + std::to_string(id) + " is not indexed");
  }
  live_[existing->second] = false;
  --live_count_;
  return Status::Ok();
}

StatusOr<std::vector<VectorHit>> ExactIndex::Search(std::span<const float> query, std::size_t k,
                                                    const VectorFilter& filter) const {
  ASSIGN_OR_RETURN(std::vector<float> normalized, NormalizedCopy(query, dimension_, "query"));
  std::shared_lock lock(mutex_);
  std::vector<VectorHit> best;  // a heap whose front is the worst of the best k
  if (k == 0) return best;
  try {
    best.reserve(std::min(k, live_count_) + 1);
    const auto worse_first = [](const VectorHit& a, const VectorHit& b) {
      return RanksBefore(a, b);
    };
    for (std::size_t slot = 0; slot < ids_.size(); ++slot) {
      if (!live_[slot] || (filter && !filter(ids_[slot]))) continue;
      const VectorHit hit{
          ids_[slot],
          embed::Dot(normalized, std::span<const float>(&vectors_[slot * dimension_], dimension_))};
      if (best.size() < k) {
        best.push_back(hit);
        std::push_heap(best.begin(), best.end(), worse_first);
      } else if (RanksBefore(hit, best.front())) {
        std::pop_heap(best.begin(), best.end(), worse_first);
        best.back() = hit;
        std::push_heap(best.begin(), best.end(), worse_first);
      }
    }
    std::sort(best.begin(), best.end(), RanksBefore);
  } catch (const std::bad_alloc&) {
    return Status::ResourceExhausted("exact index: out of memory while searching");
  } catch (const std::exception& error) {  // thrown by the caller's filter
    return Status::Internal(std::string("exact index: search filter threw: ") + error.what());
  }
  return best;
}

std::size_t ExactIndex::size() const {
  std::shared_lock lock(mutex_);
  return live_count_;
}

bool ExactIndex::Contains(std::uint64_t id) const {
  std::shared_lock lock(mutex_);
  const auto existing = slot_of_.find(id);
  return existing != slot_of_.end() && live_[existing->second];
}

std::optional<float> ExactIndex::ScoreOf(std::span<const float> normalized,
                                         std::uint64_t id) const {
  std::shared_lock lock(mutex_);
  const auto existing = slot_of_.find(id);
  if (existing == slot_of_.end() || !live_[existing->second]) return std::nullopt;
  return embed::Dot(normalized, std::span<const float>(vectors_).subspan(
                                    existing->second * dimension_, dimension_));
}

std::optional<std::vector<float>> ExactIndex::VectorOf(std::uint64_t id) const {
  std::shared_lock lock(mutex_);
  const auto existing = slot_of_.find(id);
  if (existing == slot_of_.end() || !live_[existing->second]) return std::nullopt;
  const auto begin = vectors_.begin() + static_cast<std::ptrdiff_t>(existing->second * dimension_);
  return std::vector<float>(begin, begin + static_cast<std::ptrdiff_t>(dimension_));
}

std::optional<float> ExactIndex::Similarity(std::uint64_t a, std::uint64_t b) const {
  std::shared_lock lock(mutex_);
  const auto first = slot_of_.find(a);
  const auto second = slot_of_.find(b);
  if (first == slot_of_.end() || second == slot_of_.end() || !live_[first->second] ||
      !live_[second->second]) {
    return std::nullopt;
  }
  const std::span<const float> all(vectors_);
  return embed::Dot(all.subspan(first->second * dimension_, dimension_),
                    all.subspan(second->second * dimension_, dimension_));
}

}  // namespace engram::index
