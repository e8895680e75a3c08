// HnswIndex over hnswlib (see hnsw_index.h). The only file that includes hnswlib: its hnswlib.h
// defines non-inline functions, so a second includer would break the link.
#include "index/vector/hnsw_index.h"

// hnswlib 0.6's SSE code prefetches through the entry one past the end of a neighbour list. The
// value only feeds a prefetch hint, so this is harmless, but AddressSanitizer reports the read;
// sanitizer builds therefore use hnswlib's plain (non-SSE) code paths.
#if defined(__SANITIZE_ADDRESS__)
#define NO_MANUAL_VECTORIZATION
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NO_MANUAL_VECTORIZATION
#endif
#endif
#include <hnswlib/hnswlib.h>

#include <algorithm>
#include <exception>
#include <mutex>
#include <new>
#include <string>

#include "embed/embedder.h"

namespace engram::index {

struct HnswIndex::Graph {
  explicit Graph(const HnswOptions& options)
      : space(options.dimension),
        hnsw(&space, options.initial_capacity, options.max_neighbors,
             options.construction_expansion, static_cast<std::size_t>(options.seed)) {
    hnsw.setEf(options.search_expansion);
  }

  hnswlib::InnerProductSpace space;  // distance = 1 − inner product
  hnswlib::HierarchicalNSW<float> hnsw;
};

Status HnswOptions::Validate() const {
  if (dimension == 0) return Status::InvalidArgument("hnsw: dimension must be > 0");
  if (max_neighbors < 2) return Status::InvalidArgument("hnsw: max_neighbors (M) must be >= 2");
  if (max_neighbors > 1000) {
    return Status::InvalidArgument("hnsw: max_neighbors (M) must be <= 1000");
  }
  if (construction_expansion == 0) {
    return Status::InvalidArgument("hnsw: construction_expansion (efConstruction) must be > 0");
  }
  if (search_expansion == 0) {
    return Status::InvalidArgument("hnsw: search_expansion (ef) must be > 0");
  }
  if (initial_capacity == 0) return Status::InvalidArgument("hnsw: initial_capacity must be > 0");
  return Status::Ok();
}

HnswIndex::HnswIndex(const HnswOptions& options, std::unique_ptr<Graph> graph)
    : options_(options), graph_(std::move(graph)) {}

HnswIndex::~HnswIndex() = default;

StatusOr<std::unique_ptr<HnswIndex>> HnswIndex::Create(const HnswOptions& options) {
  RETURN_IF_ERROR(options.Validate());
  try {
    return std::unique_ptr<HnswIndex>(new HnswIndex(options, std::make_unique<Graph>(options)));
  } catch (const std::bad_alloc&) {
    return Status::ResourceExhausted("hnsw: out of memory creating the index");
  } catch (const std::exception& error) {
    return Status::ResourceExhausted(std::string("hnsw: cannot create the index: ") + error.what());
  }
}

Status HnswIndex::Add(std::uint64_t id, std::span<const float> vector) {
  ASSIGN_OR_RETURN(std::vector<float> normalized,
                   NormalizedCopy(vector, options_.dimension, "vector"));
  std::unique_lock lock(mutex_);
  const auto existing = ids_.find(id);
  if (existing != ids_.end() && existing->second) {
    return Status::AlreadyExists("vector id " + std::to_string(id) + " is already indexed");
  }
  try {
    hnswlib::HierarchicalNSW<float>& hnsw = graph_->hnsw;
    if (existing == ids_.end() && hnsw.cur_element_count >= hnsw.max_elements_) {
      hnsw.resizeIndex(std::max<std::size_t>(1, hnsw.max_elements_) * 2);
    }
    // For a removed id, hnswlib un-deletes the node and moves it to the new vector.
    hnsw.addPoint(normalized.data(), static_cast<hnswlib::labeltype>(id));
    ids_[id] = true;
  } catch (const std::bad_alloc&) {
    return Status::ResourceExhausted("hnsw: out of memory adding vector " + std::to_string(id));
  } catch (const std::exception& error) {
    return Status::Internal("hnsw: adding vector " + std::to_string(id) +
                            " failed: " + error.what());
  }
  ++live_count_;
  return Status::Ok();
}

Status HnswIndex::Remove(std::uint64_t id) {
  std::unique_lock lock(mutex_);
  const auto existing = ids_.find(id);
  if (existing == ids_.end() || !existing->second) {
    return Status::NotFound("vector id " + std::to_string(id) + " is not indexed");
  }
  try {
    graph_->hnsw.markDelete(static_cast<hnswlib::labeltype>(id));
  } catch (const std::exception& error) {
    return Status::Internal("hnsw: removing vector " + std::to_string(id) +
                            " failed: " + error.what());
  }
  existing->second = false;
  --live_count_;
  return Status::Ok();
}

StatusOr<std::vector<VectorHit>> HnswIndex::Search(std::span<const float> query, std::size_t k,
                                                   const VectorFilter& filter) const {
  ASSIGN_OR_RETURN(std::vector<float> normalized,
                   NormalizedCopy(query, options_.dimension, "query"));
  std::shared_lock lock(mutex_);
  std::vector<VectorHit> hits;
  if (k == 0 || live_count_ == 0) return hits;
  try {
    const hnswlib::HierarchicalNSW<float>& hnsw = graph_->hnsw;
    const std::size_t nodes = hnsw.cur_element_count;
    std::size_t candidates = std::min(k, nodes);
    while (true) {
      hits.clear();
      auto found = hnsw.searchKnn(normalized.data(), candidates);  // farthest first
      while (!found.empty()) {
        const std::uint64_t id = found.top().second;
        found.pop();
        if (filter && !filter(id)) continue;
        // Rescore with the shared embed::Dot so scores and ties match ExactIndex exactly.
        const std::vector<float> stored = hnsw.getDataByLabel<float>(id);
        hits.push_back({id, embed::Dot(normalized, stored)});
      }
      if (hits.size() >= k || !filter || candidates >= nodes) break;
      candidates = std::min(nodes, candidates * 4);
    }
  } catch (const std::bad_alloc&) {
    return Status::ResourceExhausted("hnsw: out of memory while searching");
  } catch (const std::exception& error) {
    return Status::Internal(std::string("hnsw: search failed: ") + error.what());
  }
  std::sort(hits.begin(), hits.end(), RanksBefore);
  if (hits.size() > k) hits.resize(k);
  return hits;
}

std::size_t HnswIndex::size() const {
  std::shared_lock lock(mutex_);
  return live_count_;
}

bool HnswIndex::Contains(std::uint64_t id) const {
  std::shared_lock lock(mutex_);
  const auto existing = ids_.find(id);
  return existing != ids_.end() && existing->second;
}

}  // namespace engram::index
