// The facts stage of derivation (DESIGN §4 steps 4-5): rule-based fact extraction (extractor.h),
// the validator (validator.h: support, hard constraints, subject, act) and reconciliation with
// the scope's facts through the edge handlers (reconcile.h: supersedes, corrects, contradicts).
//
// Each accepted candidate becomes a `fact` node in the turn's scope with the turn's sequence
// number, event time, speaker and session, a `derived_from` edge to the turn, and content JSON
// {subject, predicate, object, kind, polarity, uncertain, past, single_valued, slot, time,
// valid_from, valid_to, extractor, correction, turn, span, corrects?}. Its validity: a state from
// the time the turn gives for it ("I moved to Berlin last March": 2024-03-01) or else the turn's
// event time; an event from its time; a past state over the time given or up to the turn; a plan or
// temporary state from the turn to the end of its time or `foresight_days` later. Rejected
// candidates are stored as fact nodes with status rejected and the validator's check and reason
// (reconcile.h: AddRejected); FactStats counts them per check.
//
// An explicit correction that yields no fact of its own ("No, I meant Munich" right after "I
// moved to Berlin") inherits the slot of the speaker's most recent open fact, at most
// reference_ttl_turns turns back, that the corrected value validates against: the new fact
// corrects and supersedes it.
//
// Only user turns are read: what an assistant, system or tool says is not a fact about the user.
// With [write] llm_facts the LLM extractor (extractor_llm.h) proposes candidates too, after the
// rules' and through the same validator; a failed request is counted and the turn keeps its rule
// facts.
#ifndef ENGRAM_WRITE_FACTS_H_
#define ENGRAM_WRITE_FACTS_H_

#include <array>
#include <span>
#include <string>

#include "write/derive.h"
#include "write/extractor.h"
#include "write/reconcile.h"
#include "write/validator.h"

namespace engram::write {

// What the stage did over one call (diagnostics and tests).
struct FactStats {
  std::size_t turns = 0;  // turns read (user turns)
  ValidationCounts validation;
  std::array<std::size_t, 6> outcomes = {};  // indexed by ReconcileOutcome
  std::size_t llm_errors = 0;                // turns whose LLM request failed ([write] llm_facts)
  std::size_t llm_skipped = 0;               // malformed entries in LLM replies
};

// The validity a fact gets (see above), given the turn's event time.
FactToStore PrepareFact(const FactCandidate& candidate, const FactSource& source,
                        const WriteConfig& config);

// Extracts, validates and reconciles facts from the captured turns. `resources` may be null.
// `stats` may be null.
Status DeriveFacts(store::Transaction& txn, const EdgeRegistry& registry,
                   std::span<const std::string> turn_ids, const WriteConfig& config,
                   const AnalysisResources* resources, const DeriveContext& context,
                   FactStats* stats);

// As above without statistics (the signature derive.cc calls).
Status DeriveFacts(store::Transaction& txn, const EdgeRegistry& registry,
                   std::span<const std::string> turn_ids, const WriteConfig& config,
                   const AnalysisResources* resources, const DeriveContext& context);

}  // namespace engram::write

#endif  // ENGRAM_WRITE_FACTS_H_
