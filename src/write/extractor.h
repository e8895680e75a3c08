// Fact extraction (DESIGN §4 step 4, Eywa Tier 1, DMF memory cards): turns a captured turn into
// candidate facts. Candidates are not yet facts: each one goes through the validator
// (validator.h) and, if accepted, through reconciliation (reconcile.h).
//
// The rule-based extractor reads the turn with the Tier-0 detectors of text/signals.h (memory
// acts, anchors, entities, hedging) and text/temporal.h (times resolved against the turn's event
// time) and adds its own patterns for what the acts do not cover: events with a time, plans and
// temporary states (foresight), relations between people, technical facts and statements about a
// named third person. It never guesses beyond the words of the turn: every object is a span of
// the text.
//
//   FactSource source = AnalyzeFactSource("I moved to Berlin last March.", "Caroline",
//                                         Role::kUser, reference);
//   std::vector<FactCandidate> candidates = ExtractRuleFacts(source, {});
//   // {subject "Caroline", predicate "lives_in", object "Berlin", kind state,
//   //  time "last March" [2024-03-01, 2024-04-01), valid_from 2024-03-01}
//
// Subjects: the speaker (first person "I" / "we") unless the sentence names another person
// ("my sister Anna lives in Porto": subject Anna). An unnamed speaker is its role ("user").
//
// Thread-safety: pure functions.
#ifndef ENGRAM_WRITE_EXTRACTOR_H_
#define ENGRAM_WRITE_EXTRACTOR_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engram/types.h"
#include "text/signals.h"
#include "text/temporal.h"
#include "write/turn_text.h"

namespace engram::write {

// DESIGN §3 fact kinds.
enum class FactKind {
  kProfile,     // identity, origin, name, birthday, "my X is Y"
  kPreference,  // likes, dislikes, favourites
  kConstraint,  // allergies, diets, instructions, budgets, limitations
  kState,       // residence, employer, occupation, study, possessions, status, habits
  kEvent,       // something that happened at a time
  kRelation,    // "my sister Anna"
  kTechnical,   // tools and versions in use, settings
  kForesight,   // plans and temporary states, with a validity window
};
std::string_view FactKindName(FactKind kind);  // "profile", "preference", ...
StatusOr<FactKind> ParseFactKind(std::string_view name);

// A time the fact is anchored to, as resolved from the turn.
struct FactTime {
  std::string text;  // the expression as written ("last March")
  Timestamp from;    // half-open [from, to)
  Timestamp to;
  std::string granularity;  // text::GranularityName
  friend bool operator==(const FactTime&, const FactTime&) = default;
};

// Acts of a sentence that decide whether its statements are assertions (V_act).
struct SentenceInfo {
  std::uint32_t begin = 0;  // byte span in the turn text
  std::uint32_t end = 0;
  bool question = false;            // ends with '?' or opens like one without an end mark
  bool hypothetical = false;        // "if", "would", "wish", "imagine", "suppose", ...
  bool hearsay = false;             // "I heard", "she said", "apparently", "according to", ...
  bool request = false;             // "can you ...", "could you ...", "would you ..."
  bool negated_imperative = false;  // opens with "don't" / "never" / "do not" (an instruction)
  bool hedged = false;              // "I think", "maybe", "probably" (signals' uncertain flag)
  bool correction = false;          // "actually", "I meant", "correction", ...
};

// A turn prepared for extraction and validation.
struct FactSource {
  std::string text;
  std::string speaker;  // display name of the speaker: the turn's speaker, else its role name
  Role role = Role::kUser;
  Timestamp event_time;
  std::vector<text::Lexeme> lexemes;
  std::vector<SentenceInfo> sentences;
  std::vector<text::Signal> signals;
  std::vector<text::TimeMention> times;

  // Index of the sentence containing byte `at` (the last sentence if past the end).
  std::size_t SentenceAt(std::uint32_t at) const;
};

// `shared`: the turn's analysis (write/turn_text.h) whose lexemes and signals (with the
// gazetteer) the source reuses; null: they are computed here, without a gazetteer.
FactSource AnalyzeFactSource(std::string_view text, std::string_view speaker, Role role,
                             Timestamp event_time, const TurnText* shared = nullptr);

// One candidate fact. Objects are spans of the turn (the rule extractor) or whatever another
// extractor proposed (the validator checks them against the turn).
struct FactCandidate {
  std::string subject;  // display name ("Caroline", "Anna")
  bool subject_is_speaker = true;
  std::string predicate;  // snake_case: lives_in, works_at, likes, allergic_to, went_to, ...
  std::string object;     // as written in the turn ("Berlin", "spicy food")
  FactKind kind = FactKind::kState;
  bool negated = false;    // polarity -: "doesn't like", "not using", "don't ..."
  bool uncertain = false;  // hedged sentence: kept, flagged
  bool past = false;       // a state that held before the turn ("used to", "lived in")
  // The object is a name the entity detector found even though it is not capitalised ("my wife
  // sophie"): the validator accepts it where it asks for a name.
  bool object_is_name = false;
  // A single-valued slot (lives_in, works_at, ...; predicates.h IsSingleValued) holds one current
  // value per subject; other predicates hold one current polarity per (subject, predicate,
  // object).
  bool single_valued = false;
  std::optional<FactTime> time;
  std::uint32_t begin = 0;  // supporting span in the turn text
  std::uint32_t end = 0;
  std::string extractor = "rule";

  friend bool operator==(const FactCandidate&, const FactCandidate&) = default;
};

struct RuleExtractorOptions {
  // Longest object kept, in words; longer ones are cut at this many words. Default: 8.
  std::size_t max_object_words = 8;
};

// Candidates of every sentence, in text order. Deterministic.
std::vector<FactCandidate> ExtractRuleFacts(const FactSource& source,
                                            const RuleExtractorOptions& options = {});

// Lower-cased, accent-free, single-spaced form used to compare subjects and objects.
std::string NormalizeFactText(std::string_view text);

}  // namespace engram::write

#endif  // ENGRAM_WRITE_EXTRACTOR_H_
