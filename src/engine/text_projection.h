// The text projection of the store (DESIGN §1.5): per scope, the BM25 index of its turns and its
// turn layout (sessions, speakers, neighbours: read/turn_layout.h), built from the store on first
// use and kept current by following the store's journal. Because it follows the journal, writes
// by other processes or servers sharing the store are picked up too. A recall therefore reads no
// turn from the store to search or lay out its scope.
#ifndef ENGRAM_ENGINE_TEXT_PROJECTION_H_
#define ENGRAM_ENGINE_TEXT_PROJECTION_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "engram/engine.h"
#include "index/bm25/bm25_index.h"
#include "read/turn_layout.h"
#include "store/store.h"
#include "text/tokenizer.h"

namespace engram {

// Not thread-safe: the engine guards it with its projection mutex (a shared_mutex): the const
// methods under a shared lock, everything else under an exclusive one.
class TextProjection {
 public:
  TextProjection(store::Store* store, const text::Tokenizer* tokenizer)
      : store_(store), tokenizer_(tokenizer) {}

  // Applies journal entries committed since the last call to the loaded scopes.
  Status CatchUp();

  // Indexes of the given scopes, loading those not yet loaded. Valid until the next call that
  // changes the projection.
  StatusOr<std::vector<const index::Bm25Index*>> IndexesFor(
      std::span<const std::int64_t> scope_ids);

  // The loaded indexes / layouts of the given scopes, without loading or catching up; nullopt
  // when one of them is not loaded. Valid until the next call that changes the projection.
  std::optional<std::vector<const index::Bm25Index*>> LoadedIndexes(
      std::span<const std::int64_t> scope_ids) const;
  std::optional<std::vector<const read::TurnLayout*>> LoadedLayouts(
      std::span<const std::int64_t> scope_ids) const;

  // The last journal entry applied (-1 before the first CatchUp).
  std::int64_t applied_journal_seq() const { return applied_journal_seq_; }

  void Drop(std::int64_t scope_id) { scopes_.erase(scope_id); }

  // Rebuilds every scope's index and layout from the store, compares each with the live one
  // (when loaded) and keeps the rebuilt one.
  StatusOr<RebuildReport> RebuildAll();

 private:
  struct ScopeProjection {
    std::unique_ptr<index::Bm25Index> index;
    read::TurnLayout layout;
  };

  StatusOr<ScopeProjection> Build(std::int64_t scope_id);

  store::Store* store_;
  const text::Tokenizer* tokenizer_;
  std::map<std::int64_t, ScopeProjection> scopes_;
  std::int64_t applied_journal_seq_ = -1;  // -1: not initialised yet
};

}  // namespace engram

#endif  // ENGRAM_ENGINE_TEXT_PROJECTION_H_
