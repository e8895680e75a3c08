// The vector side of the engine: the embedder chosen by [embedder], and the vector projection of
// the store (DESIGN §1.5) — one in-memory VectorIndex per scope over the stored turn embeddings,
// built from the store on first use and kept current by following the store's journal, like
// TextProjection. A scope with at most [vector] exact_threshold vectors is searched exactly
// (ExactIndex); a larger one through an HNSW graph (HnswIndex).
//
// Building a graph costs about 0.35 ms a vector (36 s at 100,000), so it is kept between
// processes: SaveSnapshots (the engine calls it when it closes, and right after a recall that
// built a graph from the vectors: HasUnsavedBuild) stores each loaded graph that
// grew by VectorSnapshotPolicy::min_new_vectors since its last snapshot as the scope's
// ProjectionSnapshot "vector.hnsw" (store.h: links, levels and the level generator's state; the
// vectors stay in the vectors table), and the first use of the scope in a later process loads it:
// the graph, then the scope's vectors from the store, and the vectors stored since inserted in row
// order. A snapshot is used only when it is the graph a build over the scope's first n vectors
// makes (ids in ascending row order, every one still stored, no later row among them), so the
// loaded graph is the one this process would have built itself, byte for byte. A snapshot of
// another embedder or graph configuration is ignored; a damaged one is ignored with a warning on
// stderr and the graph is rebuilt.
//
//   ASSIGN_OR_RETURN(std::unique_ptr<embed::Embedder> embedder,
//                    OpenEmbedder(config.embedder, core::ResolveDataDir(options.data_dir)));
//   VectorProjection projection(store, config.vector, ConfiguredEmbedder(config.embedder));
//   ASSIGN_OR_RETURN(auto indexes, projection.IndexesFor(scope_ids));
#ifndef ENGRAM_ENGINE_VECTOR_PROJECTION_H_
#define ENGRAM_ENGINE_VECTOR_PROJECTION_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "embed/embedder.h"
#include "engram/config.h"
#include "engram/status.h"
#include "index/vector/hnsw_index.h"
#include "index/vector/vector_index.h"
#include "store/store.h"

namespace engram {

// The embedder record [embedder] stands for, without loading any model: model id and dimension
// ({"none", 0} for kind "none"). This is what the store must have recorded.
store::EmbedderRecord ConfiguredEmbedder(const EmbedderConfig& config);

// Builds the embedder of [embedder]; nullptr for kind "none". use-lite loads its model from
// `<data_dir>/models/use-lite` (NotFound / Corruption naming the file and scripts/setup). Does
// not contact an openai server.
StatusOr<std::unique_ptr<embed::Embedder>> OpenEmbedder(const EmbedderConfig& config,
                                                        std::string_view data_dir);

// The text a turn is embedded by. One function for Remember and reembed, so a turn's vector never
// depends on which of them wrote it.
std::string EmbeddingText(std::string_view speaker, std::string_view text);

struct VectorRebuildReport {
  std::size_t scopes = 0;
  std::size_t vectors = 0;
  bool matched_live_index = true;  // every loaded index held the same rows as the rebuilt one
};

// How the vector projection keeps its HNSW graphs between processes.
struct VectorSnapshotPolicy {
  // Load stored graphs instead of rebuilding them, and let SaveSnapshots write them. Default: on.
  bool enabled = true;
  // SaveSnapshots writes a scope's graph when no usable snapshot of it is stored or the graph holds
  // at least this many vectors more than the stored one (a later load inserts those itself, at
  // ~0.35 ms each). Default: 1000.
  std::size_t min_new_vectors = 1000;
};

// What happened to snapshots since the projection was made (tests, diagnostics).
struct VectorSnapshotStats {
  std::size_t loaded = 0;             // graphs loaded from a snapshot
  std::size_t built = 0;              // graphs built from the vectors (no usable snapshot)
  std::size_t ignored = 0;            // snapshots not used (another key, damaged, or not a prefix)
  std::size_t saved = 0;              // snapshots written by SaveSnapshots
  std::vector<std::string> warnings;  // why a damaged snapshot or a failed save was ignored
};

// The projection name of the HNSW graph snapshots (store::ProjectionSnapshot::projection).
inline constexpr std::string_view kHnswSnapshotProjection = "vector.hnsw";

// Not thread-safe: the engine serialises access with its projection mutex.
class VectorProjection {
 public:
  // `expected`: the configured embedder (ConfiguredEmbedder); dimension > 0.
  VectorProjection(store::Store* store, const VectorConfig& config, store::EmbedderRecord expected,
                   VectorSnapshotPolicy snapshots = {})
      : store_(store),
        config_(config),
        expected_(std::move(expected)),
        snapshot_policy_(snapshots) {}

  // Writes the snapshot of every loaded HNSW graph that VectorSnapshotPolicy says is due, each in
  // its own short write transaction (not journalled: a projection, not evidence). A graph whose
  // ids were not added in ascending row order (vectors stored out of order while it was loaded)
  // is not written: a later build would not give it back. Errors are returned after trying every
  // scope; the snapshots written stay.
  Status SaveSnapshots();

  const VectorSnapshotStats& snapshot_stats() const { return snapshot_stats_; }

  // True when a loaded graph was built from the vectors (no usable snapshot was stored) and
  // SaveSnapshots has not been called since: saving it soon spares a process that dies before
  // it closes the whole build. False when snapshots are off or the projection is not usable.
  bool HasUnsavedBuild() const;

  // The key a snapshot of this projection is stored under: the embedder and the graph's
  // parameters. A stored snapshot with another key is ignored.
  std::string SnapshotKey() const;

  // Applies journal entries committed since the last call to the loaded scopes: new turns' vectors
  // are added; an erased scope is dropped; a kEmbedderSet entry (reembed, possibly by another
  // process) drops every scope and re-reads the store's recorded embedder.
  Status CatchUp();

  // False while the store records an embedder other than `expected` (its vectors are not
  // comparable with the query's): IndexesFor then returns no index.
  bool usable() const { return usable_; }

  // Indexes of the given scopes, loading those not yet loaded (a scope without vectors gets an
  // empty index); empty when !usable(). Valid until the next call that changes the projection.
  StatusOr<std::vector<const index::VectorIndex*>> IndexesFor(
      std::span<const std::int64_t> scope_ids);

  // The loaded indexes of the given scopes without loading or catching up (empty when
  // !usable()); nullopt when one of them is not loaded. Valid until the next call that changes
  // the projection.
  std::optional<std::vector<const index::VectorIndex*>> LoadedIndexes(
      std::span<const std::int64_t> scope_ids) const;

  // The last journal entry applied (-1 before the first CatchUp).
  std::int64_t applied_journal_seq() const { return applied_journal_seq_; }

  void Drop(std::int64_t scope_id) { indexes_.erase(scope_id); }
  void DropAll() { indexes_.clear(); }

  // Rebuilds every loaded scope's index from the store and checks it holds the same rows.
  StatusOr<VectorRebuildReport> RebuildAll();

  // True when the scope is loaded and searched through HNSW (tests, diagnostics).
  bool UsesHnsw(std::int64_t scope_id) const;

 private:
  struct Loaded {
    std::unique_ptr<index::VectorIndex> index;
    bool hnsw = false;
    // HNSW: vectors the stored snapshot covers (-1: none usable is stored).
    std::int64_t snapshot_items = -1;
    // HNSW: built from the vectors by this process, and SaveSnapshots not called since.
    bool unsaved_build = false;
  };

  // use_snapshot: load the scope's stored graph when it is usable (VectorSnapshotPolicy).
  StatusOr<Loaded> Build(std::int64_t scope_id, bool use_snapshot);
  index::HnswOptions GraphOptions(std::size_t capacity) const;
  // The scope's stored graph with its vectors and the vectors stored after it; nullopt (with
  // stats updated) when no usable snapshot is stored.
  StatusOr<std::optional<Loaded>> LoadSnapshot(std::int64_t scope_id, std::int64_t count);
  void Warn(std::string message);

  store::Store* store_;
  Status ReadRecordedEmbedder();

  VectorConfig config_;
  store::EmbedderRecord expected_;
  VectorSnapshotPolicy snapshot_policy_;
  VectorSnapshotStats snapshot_stats_;
  bool usable_ = true;
  std::map<std::int64_t, Loaded> indexes_;
  std::int64_t applied_journal_seq_ = -1;  // -1: not initialised yet
};

}  // namespace engram

#endif  // ENGRAM_ENGINE_VECTOR_PROJECTION_H_
