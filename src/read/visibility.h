// Which memories a recall may show, and why each hidden one is hidden (DESIGN §5, WorldDB's two
// time axes). Today's recall shows active memories still valid at the query time, and a derived
// memory only while one of its evidence turns is shown. The as-of options ask the store's past:
//
//   RecallOptions::valid_at  what was true then: memories whose validity [valid_from, valid_to)
//                            covers the time, superseded and retired ones included when they were
//                            valid then (rejected and pending ones never, unless include_retired);
//   RecallOptions::known_at  what engram knew then: only memories ingested at or before the time,
//                            each with the status and validity end the store had recorded by then
//                            (a memory retired or superseded later was still active), read back
//                            from the journal.
//
//   Visibility visibility(&store, options, query_time);
//   ASSIGN_OR_RETURN(Verdict verdict, visibility.CheckWithEvidence(node));
//   if (!verdict.shown()) ...  // verdict.filter ("known_at", "valid_at", ...), verdict.reason
//
// Thread-safety: const methods only read the store; a Visibility may be shared by routes.
#ifndef ENGRAM_READ_VISIBILITY_H_
#define ENGRAM_READ_VISIBILITY_H_

#include <optional>
#include <string>
#include <string_view>

#include "engram/options.h"
#include "engram/status.h"
#include "engram/types.h"
#include "store/journal.h"
#include "store/store.h"

namespace engram::read {

// What the filters read of a memory (a store node, or a fact of the scope graph).
struct MemoryView {
  std::string_view id;
  NodeKind kind = NodeKind::kTurn;
  NodeStatus status = NodeStatus::kActive;
  std::optional<Timestamp> valid_from;
  std::optional<Timestamp> valid_to;
  Timestamp ingested_at;
  Timestamp updated_at;
};
MemoryView ViewOf(const store::NodeRecord& node);
struct GraphFact;  // read/scope_graph.h
MemoryView ViewOfFact(const GraphFact& fact);

// Names of the filters, as diagnostics count them.
inline constexpr std::string_view kFilterKnownAt = "known_at";    // ingested after known_at
inline constexpr std::string_view kFilterValidAt = "valid_at";    // validity does not cover it
inline constexpr std::string_view kFilterStatus = "status";       // retired, superseded, ...
inline constexpr std::string_view kFilterValidity = "validity";   // ended by the query time
inline constexpr std::string_view kFilterEvidence = "evidence";   // no evidence turn is shown
inline constexpr std::string_view kFilterMissing = "missing";     // no longer in the store

// A filter's decision about one memory.
struct Verdict {
  std::string filter;  // empty: shown; else one of the kFilter* names
  std::string reason;  // e.g. "ingested 2024-06-01T09:00:00Z, after known_at 2024-05-01T00:00:00Z"
  // The memory's status and validity end as recorded at known_at (the current ones without it).
  NodeStatus status = NodeStatus::kActive;
  std::optional<Timestamp> valid_to;
  bool shown() const { return filter.empty(); }
};

class Visibility {
 public:
  // `store` may be null only when options.known_at is unset (nothing is read back) and evidence
  // is not checked.
  Visibility(store::Store* store, const RecallOptions& options, Timestamp query_time);

  // Foresight filtering (EverMemOS §3.5): a plan or temporary state (a fact of kind foresight)
  // whose window ended by the query time is hidden like any expired memory, unless the question
  // asks about the past ("what did she plan?"); then it is kept. Off by default.
  void KeepExpiredForesight(bool keep) { keep_expired_foresight_ = keep; }

  // True when valid_at or known_at is set.
  bool as_of() const { return valid_at_.has_value() || known_at_.has_value(); }
  const std::optional<Timestamp>& valid_at() const { return valid_at_; }
  const std::optional<Timestamp>& known_at() const { return known_at_; }

  // The memory's status and validity end as the store had recorded them at known_at (its current
  // ones without known_at, or when nothing changed since); nullopt when it was ingested after
  // known_at. Reads the memory's journal only when it changed after known_at.
  StatusOr<std::optional<store::RecordedState>> Recorded(const MemoryView& memory) const;

  // The filters on the memory itself, in order: known_at, then (with valid_at) status rejected /
  // pending and valid_at, else status and validity at the query time (both skipped with
  // include_retired).
  StatusOr<Verdict> Check(const MemoryView& memory) const;

  // Check, then for a derived memory its evidence: hidden ("evidence") when it has derived_from
  // turns (known by known_at) and Check shows none of them (with valid_at, a turn said after
  // valid_at counts: only one withdrawn by then does not). Skipped with include_retired unless
  // an as-of option is set.
  StatusOr<Verdict> CheckWithEvidence(const store::NodeRecord& node) const;

 private:
  store::Store* store_;
  bool include_retired_;
  std::optional<Timestamp> valid_at_;
  std::optional<Timestamp> known_at_;
  Timestamp query_time_;
  bool keep_expired_foresight_ = false;
};

}  // namespace engram::read

#endif  // ENGRAM_READ_VISIBILITY_H_
