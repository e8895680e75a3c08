// The embedder factory and the vector projection (see vector_projection.h).
#include "engine/vector_projection.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <utility>

#include "embed/hashing_embedder.h"
#include "embed/openai_embedder.h"
#include "embed/use_lite.h"
#include "index/vector/exact_index.h"
#include "index/vector/hnsw_index.h"

namespace engram {

store::EmbedderRecord ConfiguredEmbedder(const EmbedderConfig& config) {
  if (config.kind == "use-lite") {
    return {std::string(embed::UseLiteEmbedder::kModelId), embed::UseLiteEmbedder::kDimension};
  }
  if (config.kind == "openai") return {"openai:" + config.model, config.dimension};
  if (config.kind == "hashing") {
    return {"hashing-" + std::to_string(config.hashing_dimension), config.hashing_dimension};
  }
  return {"none", 0};
}

std::string EmbedderModelId(const EmbedderConfig& config) {
  return ConfiguredEmbedder(config).model_id;
}

StatusOr<std::unique_ptr<embed::Embedder>> OpenEmbedder(const EmbedderConfig& config,
                                                        std::string_view data_dir) {
  std::unique_ptr<embed::Embedder> embedder;
  if (config.kind == "none") return embedder;
  if (config.kind == "use-lite") {
    embed::UseLiteOptions options;
    options.num_threads = config.threads;
    options.verify_checksums = config.verify_checksums;
    options.precision = config.precision == "float32" ? embed::UseLitePrecision::kFloat32
                                                      : embed::UseLitePrecision::kInt8;
    ASSIGN_OR_RETURN(embedder,
                     embed::UseLiteEmbedder::Open(embed::UseLiteModelDir(data_dir), options));
  } else if (config.kind == "hashing") {
    ASSIGN_OR_RETURN(embedder, embed::HashingEmbedder::Create(config.hashing_dimension));
  } else if (config.kind == "openai") {
    embed::OpenAiEmbedderOptions options;
    options.base_url = config.base_url;
    options.model = config.model;
    options.dimension = config.dimension;
    options.timeout = std::chrono::milliseconds(config.timeout_ms);
    options.max_retries = config.max_retries;
    options.batch_size = config.batch_size;
    if (!config.api_key_env.empty()) {
      const char* key = std::getenv(config.api_key_env.c_str());
      if (key == nullptr || *key == '\0') {
        return Status::InvalidArgument("[embedder] api_key_env names $" + config.api_key_env +
                                       ", which is not set");
      }
      options.api_key = key;
    }
    ASSIGN_OR_RETURN(embedder, embed::OpenAiEmbedder::Create(std::move(options)));
  } else {
    return Status::InvalidArgument("[embedder] kind \"" + config.kind + "\" is not known");
  }
  const store::EmbedderRecord expected = ConfiguredEmbedder(config);
  if (embedder->model_id() != expected.model_id || embedder->dimension() != expected.dimension) {
    return Status::Internal("embedder reports " + embedder->model_id() + " (" +
                            std::to_string(embedder->dimension()) + "-d), expected " +
                            expected.model_id);
  }
  return embedder;
}

std::string EmbeddingText(std::string_view /*speaker*/, std::string_view text) {
  return std::string(text);
}

Status VectorProjection::ReadRecordedEmbedder() {
  ASSIGN_OR_RETURN(const std::optional<store::EmbedderRecord> recorded, store_->GetEmbedder());
  // Nothing recorded yet: the first vectors written will be the configured embedder's.
  usable_ = !recorded.has_value() || *recorded == expected_;
  return Status::Ok();
}

index::HnswOptions VectorProjection::GraphOptions(std::size_t capacity) const {
  index::HnswOptions options;
  options.dimension = expected_.dimension;
  options.max_neighbors = config_.hnsw_max_neighbors;
  options.construction_expansion = config_.hnsw_construction_expansion;
  options.search_expansion = config_.hnsw_search_expansion;
  options.initial_capacity = capacity;
  return options;
}

std::string VectorProjection::SnapshotKey() const {
  const index::HnswOptions options = GraphOptions(1);
  return expected_.model_id + " dimension=" + std::to_string(expected_.dimension) +
         " M=" + std::to_string(options.max_neighbors) +
         " efConstruction=" + std::to_string(options.construction_expansion) +
         " seed=" + std::to_string(options.seed);
}

void VectorProjection::Warn(std::string message) {
  std::cerr << "engram: warning: " << message << "\n";
  snapshot_stats_.warnings.push_back(std::move(message));
}

StatusOr<VectorProjection::Loaded> VectorProjection::Build(std::int64_t scope_id,
                                                           bool use_snapshot) {
  ASSIGN_OR_RETURN(const std::int64_t count, store_->CountVectors(scope_id));
  Loaded loaded;
  loaded.hnsw = static_cast<std::size_t>(count) > config_.exact_threshold;
  if (loaded.hnsw && use_snapshot && snapshot_policy_.enabled) {
    ASSIGN_OR_RETURN(std::optional<Loaded> restored, LoadSnapshot(scope_id, count));
    if (restored.has_value()) {
      ++snapshot_stats_.loaded;
      return std::move(*restored);
    }
  }
  if (loaded.hnsw) {
    ++snapshot_stats_.built;
    loaded.unsaved_build = true;
    ASSIGN_OR_RETURN(loaded.index, index::HnswIndex::Create(
                                       GraphOptions(static_cast<std::size_t>(count) + 1024)));
  } else {
    ASSIGN_OR_RETURN(loaded.index, index::ExactIndex::Create(expected_.dimension));
  }
  Status added = Status::Ok();
  RETURN_IF_ERROR(store_->ScanVectors(scope_id, [&](std::int64_t row, std::span<const float> v) {
    added = loaded.index->Add(static_cast<std::uint64_t>(row), v);
    return added.ok();
  }));
  RETURN_IF_ERROR(added.WithContext("vector projection of scope " + std::to_string(scope_id)));
  return loaded;
}

StatusOr<std::optional<VectorProjection::Loaded>> VectorProjection::LoadSnapshot(
    std::int64_t scope_id, std::int64_t count) {
  ASSIGN_OR_RETURN(std::optional<store::ProjectionSnapshot> snapshot,
                   store_->GetProjectionSnapshot(scope_id, kHnswSnapshotProjection));
  if (!snapshot.has_value()) return std::optional<Loaded>();
  const std::string where = "the stored HNSW graph of scope " + std::to_string(scope_id);
  // Another embedder's or configuration's graph, or one over more vectors than are stored now:
  // not this projection's, and no damage either.
  if (snapshot->key != SnapshotKey() || snapshot->item_count > count) {
    ++snapshot_stats_.ignored;
    return std::optional<Loaded>();
  }
  StatusOr<std::unique_ptr<index::HnswIndex>> graph = index::HnswIndex::LoadGraph(
      GraphOptions(static_cast<std::size_t>(count) + 1024), snapshot->data);
  if (!graph.ok()) {
    ++snapshot_stats_.ignored;
    Warn(where + " is ignored and rebuilt: " + graph.status().ToString());
    return std::optional<Loaded>();
  }
  index::HnswIndex& hnsw = **graph;
  const std::vector<std::uint64_t> ids = hnsw.IdsInInsertionOrder();
  const bool ascending =
      std::adjacent_find(ids.begin(), ids.end(),
                         [](std::uint64_t a, std::uint64_t b) { return a >= b; }) == ids.end();
  if (!ascending || static_cast<std::int64_t>(ids.size()) != snapshot->item_count) {
    ++snapshot_stats_.ignored;
    Warn(where + " is ignored and rebuilt: its ids are not the ascending rows it claims (" +
         std::to_string(ids.size()) + " ids, " + std::to_string(snapshot->item_count) +
         " recorded)");
    return std::optional<Loaded>();
  }
  // The graph's own vectors first, then every vector stored after its last row, in row order:
  // the insertions a build over all of them makes after its first ids.size().
  const std::uint64_t last_id = ids.empty() ? 0 : ids.back();
  std::string mismatch;
  Status failed = Status::Ok();
  RETURN_IF_ERROR(store_->ScanVectors(scope_id, [&](std::int64_t row, std::span<const float> v) {
    const auto id = static_cast<std::uint64_t>(row);
    if (!ids.empty() && id <= last_id) {
      const Status restored = hnsw.RestoreVector(id, v);
      if (restored.code() == StatusCode::kNotFound) {
        mismatch = "row " + std::to_string(row) + " is stored but not in the graph";
        return false;
      }
      failed = restored;
      return failed.ok();
    }
    if (hnsw.missing_vectors() > 0) {
      mismatch = std::to_string(hnsw.missing_vectors()) + " of its rows have no stored vector";
      return false;
    }
    failed = hnsw.Add(id, v);
    return failed.ok();
  }));
  RETURN_IF_ERROR(failed.WithContext("vector projection of scope " + std::to_string(scope_id)));
  if (mismatch.empty() && hnsw.missing_vectors() > 0) {
    mismatch = std::to_string(hnsw.missing_vectors()) + " of its rows have no stored vector";
  }
  if (!mismatch.empty()) {
    // Not damage: the scope's vectors changed under an old snapshot. Rebuilt, and saved again.
    ++snapshot_stats_.ignored;
    return std::optional<Loaded>();
  }
  Loaded loaded;
  loaded.hnsw = true;
  loaded.snapshot_items = snapshot->item_count;
  loaded.index = std::move(*graph);
  return std::optional<Loaded>(std::move(loaded));
}

bool VectorProjection::HasUnsavedBuild() const {
  if (!snapshot_policy_.enabled || !usable_) return false;
  return std::any_of(indexes_.begin(), indexes_.end(),
                     [](const auto& entry) { return entry.second.unsaved_build; });
}

Status VectorProjection::SaveSnapshots() {
  if (!snapshot_policy_.enabled || !usable_) return Status::Ok();
  Status first_error = Status::Ok();
  for (auto& [scope_id, loaded] : indexes_) {
    if (!loaded.hnsw) continue;
    loaded.unsaved_build = false;  // tried once: a store that refuses the write is not asked again
    const auto* graph = static_cast<const index::HnswIndex*>(loaded.index.get());
    const std::vector<std::uint64_t> ids = graph->IdsInInsertionOrder();
    const auto items = static_cast<std::int64_t>(ids.size());
    if (loaded.snapshot_items >= 0 &&
        items <
            loaded.snapshot_items + static_cast<std::int64_t>(snapshot_policy_.min_new_vectors)) {
      continue;
    }
    const bool ascending =
        std::adjacent_find(ids.begin(), ids.end(),
                           [](std::uint64_t a, std::uint64_t b) { return a >= b; }) == ids.end();
    if (!ascending) continue;
    const Status saved = [&]() -> Status {
      ASSIGN_OR_RETURN(std::string data, graph->SaveGraph());
      store::ProjectionSnapshot snapshot;
      snapshot.scope_id = scope_id;
      snapshot.projection = std::string(kHnswSnapshotProjection);
      snapshot.key = SnapshotKey();
      snapshot.journal_seq = std::max<std::int64_t>(0, applied_journal_seq_);
      snapshot.item_count = items;
      snapshot.data = std::move(data);
      ASSIGN_OR_RETURN(std::unique_ptr<store::Transaction> txn, store_->BeginWrite());
      RETURN_IF_ERROR(txn->PutProjectionSnapshot(snapshot));
      return txn->Commit();
    }();
    if (saved.ok()) {
      loaded.snapshot_items = items;
      ++snapshot_stats_.saved;
    } else if (first_error.ok()) {
      first_error = saved.WithContext("saving the HNSW graph of scope " + std::to_string(scope_id));
    }
  }
  return first_error;
}

Status VectorProjection::CatchUp() {
  if (applied_journal_seq_ < 0) {
    ASSIGN_OR_RETURN(applied_journal_seq_, store_->LastJournalSeq());
    return ReadRecordedEmbedder();
  }
  ASSIGN_OR_RETURN(std::vector<store::JournalEntry> entries,
                   store_->ReadJournal(applied_journal_seq_, 0));
  // Advanced only once every entry is applied: a catch-up that fails part way (a read error) is
  // redone in full by the next call, and applying an entry twice is harmless.
  std::int64_t applied_seq = applied_journal_seq_;
  bool embedder_set = false;
  std::vector<std::int64_t> rows;
  std::map<std::int64_t, std::int64_t> scope_of_row;
  for (const store::JournalEntry& entry : entries) {
    applied_seq = entry.seq;
    if (entry.op == store::JournalOp::kEmbedderSet) {
      // Vectors were replaced: everything loaded so far is stale, including rows gathered above.
      indexes_.clear();
      rows.clear();
      scope_of_row.clear();
      embedder_set = true;
    } else if (entry.op == store::JournalOp::kScopeErased) {
      indexes_.erase(entry.scope_id);
    } else if ((entry.op == store::JournalOp::kNodeInserted ||
                entry.op == store::JournalOp::kVectorStored) &&
               indexes_.count(entry.scope_id) && !scope_of_row.count(entry.target_row)) {
      // A turn's vector is written with it (a synchronous write) or later by the derivation
      // worker (kVectorStored); either entry may come first, each row is read once.
      rows.push_back(entry.target_row);
      scope_of_row[entry.target_row] = entry.scope_id;
    }
  }
  if (embedder_set) RETURN_IF_ERROR(ReadRecordedEmbedder());
  if (rows.empty() || !usable_) {
    applied_journal_seq_ = applied_seq;
    return Status::Ok();
  }
  ASSIGN_OR_RETURN(std::vector<store::VectorRecord> vectors, store_->GetVectorsByRow(rows));
  for (const store::VectorRecord& record : vectors) {
    auto found = indexes_.find(scope_of_row[record.row]);
    if (found == indexes_.end()) continue;
    Loaded& loaded = found->second;
    const auto id = static_cast<std::uint64_t>(record.row);
    // Loaded while this write was committing: the scan already saw it.
    if (loaded.index->Contains(id)) continue;
    if (!loaded.hnsw && loaded.index->size() >= config_.exact_threshold) {
      // Past the threshold: reload as an HNSW graph on next use (it reads this vector too).
      indexes_.erase(found);
      continue;
    }
    RETURN_IF_ERROR(loaded.index->Add(id, record.values));
  }
  applied_journal_seq_ = applied_seq;
  return Status::Ok();
}

StatusOr<std::vector<const index::VectorIndex*>> VectorProjection::IndexesFor(
    std::span<const std::int64_t> scope_ids) {
  RETURN_IF_ERROR(CatchUp());
  std::vector<const index::VectorIndex*> result;
  if (!usable_) return result;
  for (const std::int64_t scope_id : scope_ids) {
    auto found = indexes_.find(scope_id);
    if (found == indexes_.end()) {
      ASSIGN_OR_RETURN(Loaded built, Build(scope_id, /*use_snapshot=*/true));
      found = indexes_.emplace(scope_id, std::move(built)).first;
    }
    result.push_back(found->second.index.get());
  }
  return result;
}

std::optional<std::vector<const index::VectorIndex*>> VectorProjection::LoadedIndexes(
    std::span<const std::int64_t> scope_ids) const {
  std::vector<const index::VectorIndex*> result;
  if (!usable_) return result;
  result.reserve(scope_ids.size());
  for (const std::int64_t scope_id : scope_ids) {
    auto found = indexes_.find(scope_id);
    if (found == indexes_.end()) return std::nullopt;
    result.push_back(found->second.index.get());
  }
  return result;
}

StatusOr<VectorRebuildReport> VectorProjection::RebuildAll() {
  RETURN_IF_ERROR(CatchUp());
  VectorRebuildReport report;
  std::map<std::int64_t, Loaded> rebuilt;
  for (auto& [scope_id, live] : indexes_) {
    // From the vectors alone: this is the check of the loaded graphs, snapshots included.
    ASSIGN_OR_RETURN(Loaded index, Build(scope_id, /*use_snapshot=*/false));
    ++report.scopes;
    report.vectors += index.index->size();
    bool same = index.index->size() == live.index->size();
    if (same) {
      Status scanned = store_->ScanVectors(scope_id, [&](std::int64_t row, std::span<const float>) {
        same = live.index->Contains(static_cast<std::uint64_t>(row));
        return same;
      });
      RETURN_IF_ERROR(scanned);
    }
    if (!same) report.matched_live_index = false;
    rebuilt.emplace(scope_id, std::move(index));
  }
  indexes_ = std::move(rebuilt);
  return report;
}

bool VectorProjection::UsesHnsw(std::int64_t scope_id) const {
  auto found = indexes_.find(scope_id);
  return found != indexes_.end() && found->second.hnsw;
}

}  // namespace engram
