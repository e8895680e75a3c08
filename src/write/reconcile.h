// Reconciliation of validated facts with the scope's current facts (DESIGN §4 step 5, WorldDB §3:
// every change goes through an edge handler).
//
// Facts live in slots. A single-valued predicate (lives_in, works_at, diet, favorite_*, ...) has
// one slot per (scope, subject, predicate); every other predicate has one slot per (scope,
// subject, predicate, object), so its slot holds one current polarity ("likes olives" vs "does
// not like olives"). A negated fact of a single-valued predicate ("I no longer live in Paris")
// sits in the object's slot and ends the single-valued slot's current fact when that names the
// same object. For a new fact N and the slot's current fact C (active, validity still open):
//   - same object and polarity: N is the same belief again; no new node, C gains a derived_from
//     edge to N's turn (more evidence);
//   - N comes from an explicit correction ("actually", "I meant"): N `corrects` C and N
//     `supersedes` C;
//   - N starts later than C (valid_from; for equal times without a time expression in either,
//     the later turn): N supersedes C, which the handler closes at N's valid_from;
//   - N starts earlier than C: N is history; C supersedes N (N closes where C starts);
//   - otherwise (the same start and a time expression on either side): the claims conflict. N is
//     stored pending, with a `contradicts` edge to C.
// Past-state facts (lived_in, worked_at, ...) about a single-valued slot end its current fact
// when that names the same object ("I used to live in Paris" while Paris is the current
// residence: the past fact supersedes it, closing it at the turn's event time); otherwise, like
// events, they are stored without reconciliation beyond the duplicate check.
// A fact with an explicit correction target (FactToStore::corrects_id: "No, I meant Munich"
// inherits the slot of the speaker's latest fact, see CorrectionTargets) corrects and supersedes
// that fact too, whatever its slot.
// A fact whose candidate names a time gets an `at_time` edge to the turn's date / time signal
// with that surface (the signal node the analysis stage wrote for the turn).
// Rejected candidates (AddRejected) are stored as `fact` nodes with status rejected, the
// validator's check and reason in their content, and a derived_from edge to their turn; they take
// no part in reconciliation and recall never shows them (it shows active nodes only).
// Invariant (tested): per single-valued slot at most one active fact at any valid time.
//
// Thread-safety: a FactReconciler belongs to one transaction.
#ifndef ENGRAM_WRITE_RECONCILE_H_
#define ENGRAM_WRITE_RECONCILE_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engram/status.h"
#include "engram/types.h"
#include "store/store.h"
#include "write/edge_registry.h"
#include "write/extractor.h"
#include "write/validator.h"

namespace engram::write {

// What reconciling one fact did.
enum class ReconcileOutcome {
  kInserted,      // a new fact, nothing to reconcile with
  kReinforced,    // the same belief again: evidence edge added, no node
  kSuperseded,    // new fact closed the slot's previous one
  kCorrected,     // as kSuperseded, through an explicit correction (corrects + supersedes)
  kHistory,       // new fact is older than the current one and was closed by it
  kContradicted,  // stored pending with a contradicts edge
};
std::string_view ReconcileOutcomeName(ReconcileOutcome outcome);

// A fact ready for the store: the candidate plus its validity and provenance.
struct FactToStore {
  FactCandidate candidate;
  bool from_correction = false;
  std::optional<Timestamp> valid_from;
  std::optional<Timestamp> valid_to;
  // An explicit correction's target fact (an inherited slot), or "" when none.
  std::string corrects_id;
};

// A recent fact an explicit correction without a fact of its own may attach to.
struct CorrectionTarget {
  std::string id;
  FactCandidate slot;  // subject, predicate, kind, single_valued of the target (object cleared)
  std::string object;  // the target's object as written
};

// The slot key: "<subject>|<predicate>" or "<subject>|<predicate>|<object>" (normalised).
std::string SlotKey(const FactCandidate& candidate);

// The fact node's canonical content JSON; with `rejected`, the validator's verdict is kept in it
// as {"rejected": {"check", "reason"}}.
std::string FactContentJson(const FactToStore& fact, std::string_view turn_id,
                            const Verdict* rejected = nullptr);

// Human-readable statement of a fact ("Caroline lives in Berlin", "Caroline does not like
// olives"), stored as the fact node's text.
std::string RenderFact(const FactCandidate& candidate);

class FactReconciler {
 public:
  FactReconciler(store::Transaction& txn, const EdgeRegistry& registry,
                 const store::ScopeRecord& scope, Timestamp now)
      : txn_(txn), registry_(registry), scope_(scope), now_(now) {}

  // Stores `fact` from `turn` and reconciles it with the scope's facts. The scope's active facts
  // are read once, on the first call, and followed in memory afterwards.
  StatusOr<ReconcileOutcome> Add(const store::NodeRecord& turn, const FactToStore& fact);

  // Stores a candidate the validator rejected, with the verdict (see above). A repeat of the
  // same candidate from the same turn is not stored twice.
  Status AddRejected(const store::NodeRecord& turn, const FactToStore& fact,
                     const Verdict& verdict);

  // The open current-state facts of `turn`'s speaker stated at most `window_turns` sequence
  // numbers before `turn`, newest first: what an explicit correction without a fact of its own
  // ("No, I meant Munich") may correct.
  StatusOr<std::vector<CorrectionTarget>> CorrectionTargets(const store::NodeRecord& turn,
                                                            std::size_t window_turns);

 private:
  struct Current {
    std::string id;
    FactCandidate slot;          // subject, predicate, kind, single_valued, past (object cleared)
    std::string written_object;  // the object as written
    std::string speaker;         // the fact's turn's speaker
    std::size_t order = 0;       // load / insertion order
    std::string object;          // normalised
    bool negated = false;
    bool has_time = false;
    std::int64_t sequence = 0;
    std::optional<Timestamp> valid_from;
    bool open = true;  // validity not closed
  };

  // The fact node `fact` from `turn` becomes (with the verdict kept in its content when rejected).
  store::NodeRecord FactNode(const store::NodeRecord& turn, const FactToStore& fact,
                             const Verdict* rejected, NodeStatus status) const;
  Status Load();
  Status Link(std::string_view type, std::string_view src, std::string_view dst,
              std::string_view reason, std::optional<Timestamp> valid_from = std::nullopt);
  // Closes `old_fact` of `slot` by `new_id` (supersedes new -> old), optionally as a correction,
  // at `close_at` when given (else at the new fact's valid_from).
  Status Supersede(const std::string& new_id, Current& old_fact, bool correction,
                   std::optional<Timestamp> close_at = std::nullopt);
  // at_time edges from a new fact to the turn's time signals its candidate's time names.
  Status LinkTimes(const std::string& fact_id, const store::NodeRecord& turn,
                   const FactCandidate& candidate);

  store::Transaction& txn_;
  const EdgeRegistry& registry_;
  const store::ScopeRecord& scope_;
  Timestamp now_;
  bool loaded_ = false;
  // Slot key -> active facts, in row order.
  std::map<std::string, std::vector<Current>, std::less<>> slots_;
  std::size_t next_order_ = 0;
};

}  // namespace engram::write

#endif  // ENGRAM_WRITE_RECONCILE_H_
