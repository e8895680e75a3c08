// The predicate schema both fact extractors share: the rule extractor (extractor.h) and the LLM
// extractor (extractor_llm.h) ask it which predicates are single-valued, and reconciliation
// (reconcile.h) asks it which current predicate a past state speaks about. One table, so a
// predicate means the same whichever extractor proposed it.
//
//   IsSingleValued("lives_in");          // true: one current residence per subject
//   IsSingleValued("likes");             // false: one current polarity per (subject, object)
//   PastOf("lives_in");                  // "lived_in"
//   SingleValuedCurrentOf("lived_in");   // "lives_in"
//
// Single-valued means a subject holds one current value of the slot, so a newer value supersedes
// the old one: residence (lives_in), employer (works_at), occupation (works_as), what one studies
// (studies: one course of study at a time), origin (from: where a person comes from does not
// accumulate), relationship and employment status, diet, budget, a favourite of a kind
// (favorite_<kind>), a setting (setting_<name>) and the attributes a profile has (name, birthday,
// hometown, ...).
//
// Occupation and identity (one schema for both extractors): works_as is the job slot,
// single-valued, past form worked_as: "I work as a translator", and "be a N" where the grammar
// names a workplace ("I'm a data analyst at Barclays", "Meera is a doctor at Guy's Hospital").
// is_a (past was_a) is what a person is otherwise ("I'm a nurse", "I'm a morning person"): a
// trait, multi-valued, never superseded by a new job. A diet said as a noun ("I'm a
// vegetarian") is diet. The rule extractor cannot tell a job from a trait without a workplace,
// so "I'm a nurse" stays is_a (a documented miss against labels that read it as a job).
//
// Thread-safety: pure functions over constant tables.
#ifndef ENGRAM_WRITE_PREDICATES_H_
#define ENGRAM_WRITE_PREDICATES_H_

#include <optional>
#include <string>
#include <string_view>

namespace engram::write {

// True for a predicate with one current value per subject (see above).
bool IsSingleValued(std::string_view predicate);

// The predicate of the same state when it held before the turn: "lives_in" -> "lived_in",
// "owns" -> "owned", "is_a" -> "was_a", "habit" -> "used_to", "from" -> "from" (origin does not
// end), any other -> "was_<predicate>" ("relationship_status" -> "was_relationship_status").
std::string PastOf(std::string_view current);

// The inverse of PastOf for single-valued predicates: the current predicate a past state speaks
// about ("lived_in" -> "lives_in", "was_relationship_status" -> "relationship_status"); unset
// when the current predicate is not single-valued ("owned", "used_to", "was_a").
std::optional<std::string> SingleValuedCurrentOf(std::string_view past_predicate);

// True for an attribute a profile has, snake_case ("birthday", "phone_number"): "my X is Y" about
// one of these is a profile fact.
bool IsProfileAttribute(std::string_view attribute);

}  // namespace engram::write

#endif  // ENGRAM_WRITE_PREDICATES_H_
