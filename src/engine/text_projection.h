// The BM25 projection of the store (DESIGN §1.5): one in-memory index per scope, built from the
// store on first use and kept current by following the store's journal. Because it follows the
// journal, writes by other processes or servers sharing the store are picked up too.
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
#include "store/store.h"
#include "text/tokenizer.h"

namespace engram {

// Not thread-safe: the engine guards it with its projection mutex (a shared_mutex): the const
// methods under a shared lock, everything else under an exclusive one.
class TextProjection {
 public:
  TextProjection(store::Store* store, const text::Tokenizer* tokenizer)
      : store_(store), tokenizer_(tokenizer) {}

  // The terms a node is indexed under: its speaker's name and its text.
  std::vector<std::string> DocumentTerms(const store::NodeRecord& node) const;

  // Applies journal entries committed since the last call to the loaded scopes.
  Status CatchUp();

  // Indexes of the given scopes, loading those not yet loaded. Valid until the next call that
  // changes the projection.
  StatusOr<std::vector<const index::Bm25Index*>> IndexesFor(
      std::span<const std::int64_t> scope_ids);

  // The loaded indexes of the given scopes, without loading or catching up; nullopt when one of
  // them is not loaded. Valid until the next call that changes the projection.
  std::optional<std::vector<const index::Bm25Index*>> LoadedIndexes(
      std::span<const std::int64_t> scope_ids) const;

  // The last journal entry applied (-1 before the first CatchUp).
  std::int64_t applied_journal_seq() const { return applied_journal_seq_; }

  void Drop(std::int64_t scope_id) { indexes_.erase(scope_id); }

  // Rebuilds every scope's index from the store, compares each with the live one (when loaded)
  // and keeps the rebuilt one.
  StatusOr<RebuildReport> RebuildAll();

 private:
  StatusOr<std::unique_ptr<index::Bm25Index>> Build(std::int64_t scope_id);

  store::Store* store_;
  const text::Tokenizer* tokenizer_;
  std::map<std::int64_t, std::unique_ptr<index::Bm25Index>> indexes_;
  std::int64_t applied_journal_seq_ = -1;  // -1: not initialised yet
};

}  // namespace engram

#endif  // ENGRAM_ENGINE_TEXT_PROJECTION_H_
