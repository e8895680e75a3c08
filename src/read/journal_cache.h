// JournalCache: a per-scope read cache that follows the store's journal (DESIGN §1.5: a
// projection, rebuildable from the store, never the only copy of anything).
//
// The read path keeps two such caches: the scope graph of the entity and fact routes
// (entity_route.h ScopeGraph) and the episodes, scenes and profiles of the scene route and the
// chat context (scope_structure.h ScopeStructure). A recall asks for the values of its scopes;
// the cache reads the journal rows written since its last call (one query when nothing changed)
// and hands each cached scope's new rows to the value's Apply, which updates it in place when the
// rows are simple appends (new turns, entities, links, facts, state changes of facts, episodes,
// scenes, profiles) and answers false otherwise (an accepted merge, an edge whose state changed):
// that scope is then reloaded from the store on demand. An erased scope is dropped; a journal
// gap of more than kMaxJournalRead rows (a bulk ingest) drops every scope, since reloading is
// then cheaper than reading every row.
//
//   JournalCache<ScopeGraph> graphs;
//   ASSIGN_OR_RETURN(auto values, graphs.Get(store, scope_ids, /*settings=*/stem));
//
// A Value provides
//   static StatusOr<Value> Load(store::Store&, std::int64_t scope_id, const Settings&);
//   StatusOr<bool> Apply(store::Store&, std::span<const store::JournalEntry>, const Settings&);
// where Apply gets the scope's rows oldest first, must be idempotent (a row may be applied to a
// value loaded after it was written), and leaves the value equal to a Load at the same journal
// position whenever it returns true (tests compare the two).
//
// Thread-safety: Get may be called concurrently (one mutex); the values handed out are immutable:
// a value some caller still holds is copied before it is updated (copy on write).
#ifndef ENGRAM_READ_JOURNAL_CACHE_H_
#define ENGRAM_READ_JOURNAL_CACHE_H_

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <utility>
#include <vector>

#include "engram/status.h"
#include "store/store.h"

namespace engram::read {

// What a cache did since it was made (for tests and diagnostics).
struct JournalCacheStats {
  std::size_t loads = 0;     // scopes read from the store (first use or after a drop)
  std::size_t applied = 0;   // scopes updated in place from their journal rows
  std::size_t dropped = 0;   // scopes dropped: Apply declined, erased, or a bulk journal gap
  friend bool operator==(const JournalCacheStats&, const JournalCacheStats&) = default;
};

template <typename Value, typename Settings>
class JournalCache {
 public:
  // Journal rows read at most per call; a longer gap drops every cached scope.
  static constexpr std::size_t kMaxJournalRead = 4096;

  // The values of `scope_ids`, in that order, up to date with the journal. One cache serves one
  // store: a different store pointer or different settings empty it first.
  StatusOr<std::vector<std::shared_ptr<const Value>>> Get(store::Store& store,
                                                          std::span<const std::int64_t> scope_ids,
                                                          const Settings& settings) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (store_ != &store || !(settings_ == settings)) {
      values_.clear();
      store_ = &store;
      settings_ = settings;
      applied_journal_seq_ = -1;
    }
    Status caught_up = CatchUp(store);
    if (!caught_up.ok()) {
      // Part of the cache may be ahead of applied_journal_seq_: start again from the store.
      stats_.dropped += values_.size();
      values_.clear();
      applied_journal_seq_ = -1;
      return caught_up;
    }
    std::vector<std::shared_ptr<const Value>> result;
    result.reserve(scope_ids.size());
    for (const std::int64_t scope_id : scope_ids) {
      auto found = values_.find(scope_id);
      if (found == values_.end()) {
        // Rows committed while this loads are after applied_journal_seq_ and are applied again
        // by the next call; Apply is idempotent.
        ASSIGN_OR_RETURN(Value loaded, Value::Load(store, scope_id, settings));
        ++stats_.loads;
        found = values_.emplace(scope_id, std::make_shared<Value>(std::move(loaded))).first;
      }
      result.push_back(found->second);
    }
    return result;
  }

  JournalCacheStats stats() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return stats_;
  }

 private:
  Status CatchUp(store::Store& store) {
    ASSIGN_OR_RETURN(const std::int64_t last_seq, store.LastJournalSeq());
    if (last_seq == applied_journal_seq_) return Status::Ok();
    if (values_.empty() || applied_journal_seq_ < 0 || last_seq < applied_journal_seq_) {
      stats_.dropped += values_.size();
      values_.clear();
      applied_journal_seq_ = last_seq;
      return Status::Ok();
    }
    ASSIGN_OR_RETURN(const std::vector<store::JournalEntry> entries,
                     store.ReadJournal(applied_journal_seq_, kMaxJournalRead));
    if (entries.size() >= kMaxJournalRead) {
      stats_.dropped += values_.size();
      values_.clear();
      applied_journal_seq_ = last_seq;
      return Status::Ok();
    }
    // Each cached scope's rows, oldest first; an erased scope is dropped.
    std::map<std::int64_t, std::vector<store::JournalEntry>> by_scope;
    for (const store::JournalEntry& entry : entries) {
      if (!values_.contains(entry.scope_id)) continue;
      if (entry.op == store::JournalOp::kScopeErased) {
        values_.erase(entry.scope_id);
        by_scope.erase(entry.scope_id);
        ++stats_.dropped;
        continue;
      }
      by_scope[entry.scope_id].push_back(entry);
    }
    for (const auto& [scope_id, scope_entries] : by_scope) {
      std::shared_ptr<Value>& value = values_.at(scope_id);
      // Copy on write: a recall may still read the value it was handed.
      if (value.use_count() > 1) value = std::make_shared<Value>(*value);
      ASSIGN_OR_RETURN(const bool applied, value->Apply(store, scope_entries, settings_));
      if (applied) {
        ++stats_.applied;
      } else {
        values_.erase(scope_id);
        ++stats_.dropped;
      }
    }
    applied_journal_seq_ = entries.empty() ? last_seq : std::max(last_seq, entries.back().seq);
    return Status::Ok();
  }

  mutable std::mutex mutex_;
  store::Store* store_ = nullptr;          // GUARDED_BY(mutex_)
  Settings settings_{};                    // GUARDED_BY(mutex_)
  std::int64_t applied_journal_seq_ = -1;  // GUARDED_BY(mutex_); -1: nothing read yet
  std::map<std::int64_t, std::shared_ptr<Value>> values_;  // GUARDED_BY(mutex_)
  JournalCacheStats stats_;                                // GUARDED_BY(mutex_)
};

}  // namespace engram::read

#endif  // ENGRAM_READ_JOURNAL_CACHE_H_
