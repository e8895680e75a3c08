// The fact validator (Eywa §4.3: V = V_support ∧ V_hard ∧ V_subject ∧ V_act). Every candidate,
// whatever extractor proposed it, passes here before it may become a fact node.
//
//   V_support  the object's content words occur in the candidate's sentence (or, for candidates
//              without a span, the turn): overlap >= ValidatorOptions::min_support;
//   V_hard     anchors are verbatim: every number and capitalised word of the object (and of a
//              named subject) occurs in the turn as written; type constraints hold: a residence
//              or origin is a proper name, foresight has a validity end, a budget has a
//              number, the object is not a bare pronoun and not too long (an event without a
//              time expression keeps its implicit time: the turn's, write/facts.cc);
//   V_subject  the subject is the speaker, or a capitalised name written in the turn;
//   V_act      the candidate's sentence is an assertion: not a question, not hypothetical, not
//              hearsay, not a request to the listener, and not inside a negated imperative (an
//              instruction may be one).
// Hedged sentences pass (the candidate keeps uncertain = true); negation is the candidate's.
//
// Thread-safety: pure functions.
#ifndef ENGRAM_WRITE_VALIDATOR_H_
#define ENGRAM_WRITE_VALIDATOR_H_

#include <array>
#include <cstddef>
#include <string>
#include <string_view>

#include "write/extractor.h"

namespace engram::write {

enum class FactCheck { kSupport, kHard, kSubject, kAct };
std::string_view FactCheckName(FactCheck check);  // "support", "hard", "subject", "act"

struct ValidatorOptions {
  // V_support: least fraction of the object's content words found in the source. Default: 0.6.
  double min_support = 0.6;
  // V_hard: most words in an object. Default: 12.
  std::size_t max_object_words = 12;
};

struct Verdict {
  bool accepted = true;
  FactCheck failed = FactCheck::kSupport;  // meaningful when !accepted
  std::string reason;                      // why, for diagnostics
};

Verdict ValidateFact(const FactCandidate& candidate, const FactSource& source,
                     const ValidatorOptions& options = {});

// Counts of candidates seen, accepted and rejected per check (diagnostics).
struct ValidationCounts {
  std::size_t candidates = 0;
  std::size_t accepted = 0;
  std::array<std::size_t, 4> rejected = {};  // indexed by FactCheck

  void Add(const Verdict& verdict);
  ValidationCounts& operator+=(const ValidationCounts& other);
};

}  // namespace engram::write

#endif  // ENGRAM_WRITE_VALIDATOR_H_
