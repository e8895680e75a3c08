// HnswIndex: approximate cosine search with a Hierarchical Navigable Small World graph (hnswlib).
//
// Malkov & Yashunin, "Efficient and robust approximate nearest neighbor search using Hierarchical
// Navigable Small World graphs" (2018). Each vector is a node linked to about M near neighbours on
// each of a few layers; a search walks greedily down the layers and then explores a candidate list
// of size ef on the bottom one. Recall against ExactIndex is tested (vector_index_test.cc:
// recall@10 >= 0.99 on 20,000 random 64-d vectors with the default options).
//
// Wraps hnswlib 0.6 (Debian's libhnswlib-dev): its exceptions become Status values, deletion is
// hnswlib's mark-delete, the graph grows by doubling its capacity, and the level generator is
// seeded from the options, so the same sequence of Add calls builds the same graph.
//
// The graph can be saved without its vectors (SaveGraph: links, levels, entry point and the
// state of the level generator, ~0.1-0.3 KB a node at M = 32) and loaded back (LoadGraph, then
// RestoreVector for every id from wherever the vectors live): the loaded index searches like the
// saved one and later Add calls build the same graph as they would have in the saved index.
//
//   HnswOptions options;
//   options.dimension = 512;
//   ASSIGN_OR_RETURN(auto index, HnswIndex::Create(options));
#ifndef ENGRAM_INDEX_VECTOR_HNSW_INDEX_H_
#define ENGRAM_INDEX_VECTOR_HNSW_INDEX_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <shared_mutex>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engram/status.h"
#include "index/vector/vector_index.h"

namespace engram::index {

struct HnswOptions {
  // Length of every vector. Required.
  std::size_t dimension = 0;
  // Links per node on each upper layer ("M" in the HNSW paper; 2·M on the bottom layer). More
  // links: better recall, more memory (8·M bytes per node) and slower inserts. Default: 32.
  std::size_t max_neighbors = 32;
  // Candidate list size while inserting ("efConstruction"). Default: 200.
  std::size_t construction_expansion = 200;
  // Candidate list size while searching ("ef"); raised to k when k is larger. Default: 256.
  // Measured recall@10 against ExactIndex (efConstruction 200):
  //   100,000 USE-lite vectors: M=16: 0.968 (ef 128), 0.990 (ef 256); M=32: 0.993 (ef 128),
  //     0.999 (ef 256, ~4 ms per query on one core; exact search ~24 ms).
  //   20,000 random 64-d unit vectors (a hard case): M=16: 0.89 (ef 128), 0.97 (ef 256);
  //     M=32: 0.98 (ef 128), 0.9985 (ef 256).
  std::size_t search_expansion = 256;
  // Nodes allocated up front; the graph doubles its capacity when full. Default: 1024.
  std::size_t initial_capacity = 1024;
  // Seed of the random level assignment ("mL·(−ln U)" in the paper). Default: 100.
  std::uint64_t seed = 100;

  // InvalidArgument naming the first bad field.
  Status Validate() const;
};

// Invariants: every id ever added is an hnswlib label; ids_ maps it to whether it is live
// (a removed id is mark-deleted in the graph); live_count_ == count of live ids.
// Thread-safety: see VectorIndex (a shared_mutex guards the graph; concurrent searches are safe in
// hnswlib).
class HnswIndex final : public VectorIndex {
 public:
  static StatusOr<std::unique_ptr<HnswIndex>> Create(const HnswOptions& options);
  ~HnswIndex() override;

  std::size_t dimension() const override { return options_.dimension; }
  Status Add(std::uint64_t id, std::span<const float> vector) override;
  Status Remove(std::uint64_t id) override;
  // With a filter, searches again with a larger candidate list (×4 each time, up to every node)
  // until k hits pass the filter, so a selective filter costs up to an exhaustive graph walk.
  StatusOr<std::vector<VectorHit>> Search(std::span<const float> query, std::size_t k,
                                          const VectorFilter& filter = {}) const override;
  std::size_t size() const override;
  bool Contains(std::uint64_t id) const override;
  std::optional<float> ScoreOf(std::span<const float> normalized, std::uint64_t id) const override;
  std::optional<float> Similarity(std::uint64_t a, std::uint64_t b) const override;
  std::optional<std::vector<float>> VectorOf(std::uint64_t id) const override;

  const HnswOptions& options() const { return options_; }

  // The graph without its vectors, in the format LoadGraph reads (hnsw_index.cc documents the
  // bytes; a SHA-256 of the rest closes it). The same graph gives the same bytes.
  // FailedPrecondition while vectors are missing (a loaded graph not yet restored).
  StatusOr<std::string> SaveGraph() const;

  // Every id ever added (removed ones included), in the order they were first added.
  std::vector<std::uint64_t> IdsInInsertionOrder() const;

  // An index with the graph SaveGraph wrote and no vectors yet: call RestoreVector for every id
  // (IdsInInsertionOrder) before anything else; until then Add and Search are
  // FailedPrecondition. Corruption for bytes that are not a complete graph (size, checksum, a link
  // or level out of range); FailedPrecondition when the graph was built with another dimension,
  // max_neighbors, construction_expansion or seed than `options`.
  static StatusOr<std::unique_ptr<HnswIndex>> LoadGraph(const HnswOptions& options,
                                                        std::string_view graph);

  // Gives a loaded node its vector (normalised, as Add stores it). NotFound for an id the graph
  // does not hold, AlreadyExists when it has its vector already, InvalidArgument as Add.
  Status RestoreVector(std::uint64_t id, std::span<const float> vector);

  // Nodes of a loaded graph still waiting for RestoreVector (0 for an index built by Add).
  std::size_t missing_vectors() const;

 private:
  struct Graph;  // hnswlib types, kept out of this header (hnswlib.h defines non-inline functions)

  HnswIndex(const HnswOptions& options, std::unique_ptr<Graph> graph);

  const HnswOptions options_;
  mutable std::shared_mutex mutex_;
  std::unique_ptr<Graph> graph_;                 // GUARDED_BY(mutex_)
  std::unordered_map<std::uint64_t, bool> ids_;  // GUARDED_BY(mutex_); id → live; lookups only
  std::size_t live_count_ = 0;                   // GUARDED_BY(mutex_)
  // Loaded by LoadGraph: which internal nodes still wait for their vector (empty otherwise).
  std::vector<bool> restored_;       // GUARDED_BY(mutex_)
  std::size_t missing_vectors_ = 0;  // GUARDED_BY(mutex_)
};

}  // namespace engram::index

#endif  // ENGRAM_INDEX_VECTOR_HNSW_INDEX_H_
