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
#include <array>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <mutex>
#include <new>
#include <random>
#include <sstream>
#include <string>

#include "core/sha256.h"
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

namespace {

// The graph format SaveGraph writes (all integers are LEB128 varints unless said otherwise):
//   magic       8 bytes "EHNSWG01"
//   options     dimension, max_neighbors, construction_expansion, seed
//   count       nodes (internal ids 0 .. count-1, in insertion order)
//   top         maxlevel + 1 (0 for an empty graph), then the entry point's internal id
//   generators  the level generator's and the update generator's states, each a string
//               (varint length, then the std::default_random_engine's text form)
//   per node    the id as a zigzag delta from the previous node's id (0 before the first),
//               level << 1 | deleted, then for each layer 0 .. level: the link count and the
//               linked internal ids, in hnswlib's order (the order a search walks them)
//   checksum    32 bytes: SHA-256 of everything before it
constexpr std::string_view kGraphMagic = "EHNSWG01";
constexpr std::size_t kChecksumBytes = 32;

void PutVarint(std::string& out, std::uint64_t value) {
  while (value >= 0x80) {
    out.push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
}

void PutString(std::string& out, std::string_view value) {
  PutVarint(out, value.size());
  out.append(value);
}

// Reads the graph format; every read checks the bounds and remembers the first failure.
class GraphReader {
 public:
  explicit GraphReader(std::string_view bytes) : bytes_(bytes) {}

  std::uint64_t Varint() {
    std::uint64_t value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos_ >= bytes_.size()) return Fail("ends inside a number");
      const auto byte = static_cast<std::uint8_t>(bytes_[pos_++]);
      value |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) return value;
    }
    return Fail("holds a number longer than 64 bits");
  }

  std::string_view String() {
    const std::uint64_t size = Varint();
    if (!ok_) return {};
    if (size > bytes_.size() - pos_) {
      Fail("ends inside a string");
      return {};
    }
    const std::string_view value = bytes_.substr(pos_, size);
    pos_ += size;
    return value;
  }

  std::uint64_t Fail(std::string_view why) {
    if (ok_) error_ = std::string(why) + " at byte " + std::to_string(pos_);
    ok_ = false;
    pos_ = bytes_.size();
    return 0;
  }

  bool ok() const { return ok_; }
  bool at_end() const { return pos_ == bytes_.size(); }
  const std::string& error() const { return error_; }

 private:
  std::string_view bytes_;
  std::size_t pos_ = 0;
  bool ok_ = true;
  std::string error_;
};

std::string GeneratorState(const std::default_random_engine& generator) {
  std::ostringstream out;
  out << generator;
  return out.str();
}

bool SetGeneratorState(std::default_random_engine& generator, std::string_view state) {
  std::istringstream in{std::string(state)};
  in >> generator;
  return !in.fail();
}

Status GraphCorruption(const std::string& why) { return Status::Corruption("hnsw graph: " + why); }

}  // namespace

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
  if (missing_vectors_ > 0) {
    return Status::FailedPrecondition("hnsw: " + std::to_string(missing_vectors_) +
                                      " loaded nodes still wait for their vectors");
  }
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
  if (missing_vectors_ > 0) {
    return Status::FailedPrecondition("hnsw: " + std::to_string(missing_vectors_) +
                                      " loaded nodes still wait for their vectors");
  }
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

std::optional<float> HnswIndex::ScoreOf(std::span<const float> normalized, std::uint64_t id) const {
  std::shared_lock lock(mutex_);
  const auto existing = ids_.find(id);
  if (existing == ids_.end() || !existing->second || missing_vectors_ > 0) return std::nullopt;
  try {
    const std::vector<float> stored =
        graph_->hnsw.getDataByLabel<float>(static_cast<hnswlib::labeltype>(id));
    return embed::Dot(normalized, stored);
  } catch (const std::exception&) {
    return std::nullopt;  // hnswlib throws for an id it does not hold
  }
}

std::optional<std::vector<float>> HnswIndex::VectorOf(std::uint64_t id) const {
  std::shared_lock lock(mutex_);
  const auto existing = ids_.find(id);
  if (existing == ids_.end() || !existing->second || missing_vectors_ > 0) return std::nullopt;
  try {
    return graph_->hnsw.getDataByLabel<float>(static_cast<hnswlib::labeltype>(id));
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::optional<float> HnswIndex::Similarity(std::uint64_t a, std::uint64_t b) const {
  std::shared_lock lock(mutex_);
  const auto first = ids_.find(a);
  const auto second = ids_.find(b);
  if (first == ids_.end() || !first->second || second == ids_.end() || !second->second ||
      missing_vectors_ > 0) {
    return std::nullopt;
  }
  try {
    const std::vector<float> x =
        graph_->hnsw.getDataByLabel<float>(static_cast<hnswlib::labeltype>(a));
    const std::vector<float> y =
        graph_->hnsw.getDataByLabel<float>(static_cast<hnswlib::labeltype>(b));
    return embed::Dot(x, y);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

StatusOr<std::string> HnswIndex::SaveGraph() const {
  std::shared_lock lock(mutex_);
  if (missing_vectors_ > 0) {
    return Status::FailedPrecondition("hnsw: cannot save a graph whose " +
                                      std::to_string(missing_vectors_) +
                                      " loaded nodes still wait for their vectors");
  }
  const hnswlib::HierarchicalNSW<float>& hnsw = graph_->hnsw;
  const std::size_t count = hnsw.cur_element_count;
  std::string out;
  out.reserve(64 + count * (4 + 40 * 3));
  out.append(kGraphMagic);
  PutVarint(out, options_.dimension);
  PutVarint(out, options_.max_neighbors);
  PutVarint(out, options_.construction_expansion);
  PutVarint(out, options_.seed);
  PutVarint(out, count);
  PutVarint(out, count == 0 ? 0 : static_cast<std::uint64_t>(hnsw.maxlevel_ + 1));
  PutVarint(out, count == 0 ? 0 : hnsw.enterpoint_node_);
  PutString(out, GeneratorState(hnsw.level_generator_));
  PutString(out, GeneratorState(hnsw.update_probability_generator_));
  std::uint64_t previous_id = 0;
  for (std::size_t node = 0; node < count; ++node) {
    const auto internal = static_cast<hnswlib::tableint>(node);
    const std::uint64_t id = hnsw.getExternalLabel(internal);
    const std::uint64_t delta = id - previous_id;  // modulo 2^64, read back the same way
    PutVarint(out,
              (delta << 1) ^ static_cast<std::uint64_t>(static_cast<std::int64_t>(delta) >> 63));
    previous_id = id;
    const int level = hnsw.element_levels_[node];
    PutVarint(out,
              (static_cast<std::uint64_t>(level) << 1) | (hnsw.isMarkedDeleted(internal) ? 1 : 0));
    for (int layer = 0; layer <= level; ++layer) {
      const hnswlib::linklistsizeint* list = hnsw.get_linklist_at_level(internal, layer);
      const unsigned short links = hnsw.getListCount(const_cast<hnswlib::linklistsizeint*>(list));
      PutVarint(out, links);
      const auto* linked = reinterpret_cast<const hnswlib::tableint*>(list + 1);
      for (unsigned short link = 0; link < links; ++link) PutVarint(out, linked[link]);
    }
  }
  core::Sha256 checksum;
  checksum.Update(out);
  const std::array<std::uint8_t, 32> digest = checksum.Finish();
  out.append(reinterpret_cast<const char*>(digest.data()), digest.size());
  return out;
}

std::vector<std::uint64_t> HnswIndex::IdsInInsertionOrder() const {
  std::shared_lock lock(mutex_);
  const hnswlib::HierarchicalNSW<float>& hnsw = graph_->hnsw;
  std::vector<std::uint64_t> ids(hnsw.cur_element_count);
  for (std::size_t node = 0; node < ids.size(); ++node) {
    ids[node] = hnsw.getExternalLabel(static_cast<hnswlib::tableint>(node));
  }
  return ids;
}

StatusOr<std::unique_ptr<HnswIndex>> HnswIndex::LoadGraph(const HnswOptions& options,
                                                          std::string_view graph) {
  RETURN_IF_ERROR(options.Validate());
  if (graph.size() < kGraphMagic.size() + kChecksumBytes) {
    return GraphCorruption("only " + std::to_string(graph.size()) + " bytes");
  }
  if (graph.substr(0, kGraphMagic.size()) != kGraphMagic) {
    return GraphCorruption("does not start with " + std::string(kGraphMagic));
  }
  const std::string_view body = graph.substr(0, graph.size() - kChecksumBytes);
  core::Sha256 checksum;
  checksum.Update(body);
  const std::array<std::uint8_t, 32> digest = checksum.Finish();
  if (std::memcmp(digest.data(), graph.data() + body.size(), kChecksumBytes) != 0) {
    return GraphCorruption("checksum mismatch over " + std::to_string(graph.size()) + " bytes");
  }
  GraphReader reader(body.substr(kGraphMagic.size()));
  const std::uint64_t dimension = reader.Varint();
  const std::uint64_t max_neighbors = reader.Varint();
  const std::uint64_t construction_expansion = reader.Varint();
  const std::uint64_t seed = reader.Varint();
  if (!reader.ok()) return GraphCorruption(reader.error());
  if (dimension != options.dimension || max_neighbors != options.max_neighbors ||
      construction_expansion != options.construction_expansion || seed != options.seed) {
    return Status::FailedPrecondition(
        "hnsw graph: built with dimension " + std::to_string(dimension) + ", M " +
        std::to_string(max_neighbors) + ", efConstruction " +
        std::to_string(construction_expansion) + ", seed " + std::to_string(seed) +
        "; the index is configured with " + std::to_string(options.dimension) + ", " +
        std::to_string(options.max_neighbors) + ", " +
        std::to_string(options.construction_expansion) + ", " + std::to_string(options.seed));
  }
  const std::uint64_t count = reader.Varint();
  const std::uint64_t top = reader.Varint();
  const std::uint64_t entry_point = reader.Varint();
  const std::string_view level_state = reader.String();
  const std::string_view update_state = reader.String();
  if (!reader.ok()) return GraphCorruption(reader.error());
  // Every node takes at least two bytes: a bound before anything is allocated.
  if (count > body.size() / 2) {
    return GraphCorruption("claims " + std::to_string(count) + " nodes in " +
                           std::to_string(body.size()) + " bytes");
  }
  if ((count == 0) != (top == 0) || (count > 0 && entry_point >= count)) {
    return GraphCorruption("entry point " + std::to_string(entry_point) + " at level " +
                           std::to_string(top) + " does not fit " + std::to_string(count) +
                           " nodes");
  }
  HnswOptions sized = options;
  sized.initial_capacity = std::max<std::size_t>(options.initial_capacity, count);
  ASSIGN_OR_RETURN(std::unique_ptr<HnswIndex> index, Create(sized));
  hnswlib::HierarchicalNSW<float>& hnsw = index->graph_->hnsw;
  if (!SetGeneratorState(hnsw.level_generator_, level_state) ||
      !SetGeneratorState(hnsw.update_probability_generator_, update_state)) {
    return GraphCorruption("a level generator state does not parse");
  }
  const std::size_t max_level = top == 0 ? 0 : top - 1;
  std::uint64_t previous_id = 0;
  std::vector<hnswlib::tableint> links;
  try {
    for (std::uint64_t node = 0; node < count; ++node) {
      const auto internal = static_cast<hnswlib::tableint>(node);
      const std::uint64_t zigzag = reader.Varint();
      const std::uint64_t id =
          previous_id + ((zigzag >> 1) ^ (~(zigzag & 1) + 1));  // undoes the zigzag delta
      previous_id = id;
      const std::uint64_t level_and_deleted = reader.Varint();
      const std::uint64_t level = level_and_deleted >> 1;
      if (!reader.ok()) return GraphCorruption(reader.error());
      if (level > max_level) {
        return GraphCorruption("node " + std::to_string(node) + " at level " +
                               std::to_string(level) + " above the top level " +
                               std::to_string(max_level));
      }
      if (hnsw.label_lookup_.count(id) > 0) {
        return GraphCorruption("id " + std::to_string(id) + " appears twice");
      }
      // Installed node by node, so hnswlib's destructor frees what a failure leaves behind.
      std::memset(
          hnsw.data_level0_memory_ + node * hnsw.size_data_per_element_ + hnsw.offsetLevel0_, 0,
          hnsw.size_data_per_element_);
      hnsw.element_levels_[node] = static_cast<int>(level);
      if (level > 0) {
        hnsw.linkLists_[node] =
            static_cast<char*>(std::malloc(hnsw.size_links_per_element_ * level + 1));
        if (hnsw.linkLists_[node] == nullptr) throw std::bad_alloc();
        std::memset(hnsw.linkLists_[node], 0, hnsw.size_links_per_element_ * level + 1);
      }
      hnsw.cur_element_count = node + 1;
      hnsw.setExternalLabel(internal, static_cast<hnswlib::labeltype>(id));
      hnsw.label_lookup_[id] = internal;
      for (std::uint64_t layer = 0; layer <= level; ++layer) {
        const std::uint64_t link_count = reader.Varint();
        const std::size_t capacity = layer == 0 ? hnsw.maxM0_ : hnsw.maxM_;
        if (!reader.ok()) return GraphCorruption(reader.error());
        if (link_count > capacity) {
          return GraphCorruption("node " + std::to_string(node) + " has " +
                                 std::to_string(link_count) + " links on layer " +
                                 std::to_string(layer) + " (at most " + std::to_string(capacity) +
                                 ")");
        }
        hnswlib::linklistsizeint* list =
            hnsw.get_linklist_at_level(internal, static_cast<int>(layer));
        hnsw.setListCount(list, static_cast<unsigned short>(link_count));
        auto* linked = reinterpret_cast<hnswlib::tableint*>(list + 1);
        for (std::uint64_t link = 0; link < link_count; ++link) {
          const std::uint64_t target = reader.Varint();
          if (!reader.ok()) return GraphCorruption(reader.error());
          if (target >= count) {
            return GraphCorruption("node " + std::to_string(node) + " links to node " +
                                   std::to_string(target) + " of " + std::to_string(count));
          }
          linked[link] = static_cast<hnswlib::tableint>(target);
        }
      }
      if ((level_and_deleted & 1) != 0) hnsw.markDeletedInternal(internal);
    }
  } catch (const std::bad_alloc&) {
    return Status::ResourceExhausted("hnsw: out of memory loading a graph of " +
                                     std::to_string(count) + " nodes");
  } catch (const std::exception& error) {
    return Status::Internal(std::string("hnsw: loading a graph failed: ") + error.what());
  }
  if (!reader.at_end()) return GraphCorruption("has bytes after its last node");
  if (count > 0) {
    hnsw.maxlevel_ = static_cast<int>(max_level);
    hnsw.enterpoint_node_ = static_cast<hnswlib::tableint>(entry_point);
    if (static_cast<std::uint64_t>(hnsw.element_levels_[entry_point]) != max_level) {
      return GraphCorruption("the entry point is not on the top level");
    }
  }
  for (std::uint64_t node = 0; node < count; ++node) {
    const auto internal = static_cast<hnswlib::tableint>(node);
    const bool deleted = hnsw.isMarkedDeleted(internal);
    index->ids_[hnsw.getExternalLabel(internal)] = !deleted;
    if (!deleted) ++index->live_count_;
  }
  index->restored_.assign(count, false);
  index->missing_vectors_ = count;
  return index;
}

Status HnswIndex::RestoreVector(std::uint64_t id, std::span<const float> vector) {
  ASSIGN_OR_RETURN(std::vector<float> normalized,
                   NormalizedCopy(vector, options_.dimension, "vector"));
  std::unique_lock lock(mutex_);
  hnswlib::HierarchicalNSW<float>& hnsw = graph_->hnsw;
  const auto found = hnsw.label_lookup_.find(static_cast<hnswlib::labeltype>(id));
  if (found == hnsw.label_lookup_.end() || found->second >= restored_.size()) {
    return Status::NotFound("vector id " + std::to_string(id) + " is not in the loaded graph");
  }
  if (restored_[found->second]) {
    return Status::AlreadyExists("vector id " + std::to_string(id) + " has its vector already");
  }
  std::memcpy(hnsw.getDataByInternalId(found->second), normalized.data(), hnsw.data_size_);
  restored_[found->second] = true;
  --missing_vectors_;
  return Status::Ok();
}

std::size_t HnswIndex::missing_vectors() const {
  std::shared_lock lock(mutex_);
  return missing_vectors_;
}

}  // namespace engram::index
