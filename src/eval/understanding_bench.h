// understanding_bench: `engram bench understanding` — how often the write path understands a turn
// the way a careful human annotator does. It stores the labelled conversations of
// tests/data/understanding/ (format: that folder's README.md) through the engine, as a user's
// write would, reads back what derivation produced for each turn (facts, resolved times, entity
// mentions, references) and for each profile / foresight case (the consolidated profile, the
// foresight valid at the case's time), and scores it against the labels.
//
//   engram::eval::UnderstandingOptions options;
//   options.split = "dev";
//   ASSIGN_OR_RETURN(engram::io::Json report, engram::eval::RunUnderstandingBench(options));
//   engram::eval::PrintUnderstandingReport(report, std::cout);
//
// Matching rules (the README repeats them for annotators):
//   - Text is compared normalised: ASCII case folded, punctuation other than inner apostrophes,
//     hyphens, dots, '@', '&', '$' and '%' turned into spaces, leading articles and possessive
//     determiners ("a", "an", "the", "my", "our", "his", "her", "their", "your") dropped, spaces
//     collapsed.
//   - Facts: per turn, a predicted fact (accepted: status active or superseded; rejected
//     candidates are not facts) matches a label with the same predicate, subject, polarity and an
//     object equal to the label's object or one of its `object_alt`s. One-to-one, in label order.
//     Validity is scored apart, over matched facts whose label gives valid_from / valid_to: the
//     day of each end must be equal.
//   - Times: a label whose value is "vague" ("a few days ago") is not scored, and detections
//     overlapping it are ignored. Otherwise the labelled expression's span (its text in the turn, `occurrence` counting from 1)
//     must overlap a detected date / time signal's span, and both intervals, widened to whole days
//     (start floored, end ceiled to midnight UTC), must be equal; other detections inside the
//     same expression with the same days ("7pm" and "tonight" of "7pm tonight") are part of it. A labelled expression that
//     overlaps a detection with another value is a miss and that detection a false positive.
//   - Entities: a mention (span, type) matches a label with the same span (ASCII case-insensitive
//     text, overlapping position) and the same type.
//   - References: a person, place or time reference (addressee bindings to "you" are not scored)
//     matches a label whose span overlaps it and whose target names what it was bound to (the
//     entity's name, or its first word; a time's surface).
//   - Profile: each (person, predicate, value) of a consolidated profile — the current value of a
//     single-valued slot, or a trait — against the case's labels; values as fact objects.
//   - Foresight: each plan or temporary state active and valid at the case's `at` against the
//     case's labels, matched as facts.
// Every family reports tp, fp, fn, precision, recall and F1 per split, with the misses and the
// false positives listed by turn or case id; facts also per predicate, entities per type,
// references per kind. Deterministic: the engine's clock does not reach the scores.
#ifndef ENGRAM_EVAL_UNDERSTANDING_BENCH_H_
#define ENGRAM_EVAL_UNDERSTANDING_BENCH_H_

#include <cstddef>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "engram/status.h"
#include "engram/types.h"
#include "io/api_json.h"

namespace engram::eval {

// ---- labels -----------------------------------------------------------------------------------

struct LabelledFact {
  std::string subject;
  std::string predicate;
  std::string object;
  std::vector<std::string> object_alt;  // other acceptable wordings of the object
  bool negated = false;                 // "polarity": "-"
  std::string valid_from;               // "YYYY-MM-DD" or "" (not labelled)
  std::string valid_to;
};

struct LabelledSpan {
  std::string text;             // as written in the turn
  std::size_t occurrence = 1;   // which occurrence of `text` in the turn (from 1), counting
                                // matches with the same case first, then any case
  std::string value;            // times: "from/to"; entities: the type; references: the target
};

struct LabelledTurn {
  std::string id;  // "d01-03": unique in its file
  std::string conversation;
  std::string session;
  std::string speaker;
  Role role = Role::kUser;
  Timestamp time;
  std::string text;
  std::vector<LabelledFact> facts;
  std::vector<LabelledSpan> times;
  std::vector<LabelledSpan> entities;
  std::vector<LabelledSpan> references;
};

struct CaseTurn {
  std::string speaker;
  Role role = Role::kUser;
  Timestamp time;
  std::string text;
};

struct ProfileItem {
  std::string person;
  std::string predicate;
  std::string value;
  std::vector<std::string> value_alt;
  bool negated = false;  // "polarity": "-" (a dislike among the traits)
};

struct ProfileCase {
  std::string id;
  std::vector<CaseTurn> turns;
  Timestamp at;  // when the profile and the foresight are read
  std::vector<ProfileItem> profile;
  std::vector<LabelledFact> foresight;
};

// Reads a turns file (one labelled turn per line). kInvalidArgument naming the line and field for
// a malformed line, a duplicate id, or a labelled span that is not in its turn's text.
StatusOr<std::vector<LabelledTurn>> ReadLabelledTurns(const std::string& path);
// Reads a profile / foresight case file (one case per line), with the same checks.
StatusOr<std::vector<ProfileCase>> ReadProfileCases(const std::string& path);

// ---- what the engine produced -----------------------------------------------------------------

struct PredictedFact {
  std::string subject;
  std::string predicate;
  std::string object;
  bool negated = false;
  std::optional<Timestamp> valid_from;
  std::optional<Timestamp> valid_to;
};

struct PredictedSpan {
  std::size_t begin = 0;  // byte span in the turn's text
  std::size_t end = 0;
  std::string value;  // times: "from/to" (text::FormatInterval); entities: type; references:
                      // the target's text
  std::string kind;   // references: "person", "place", "time"; else empty
};

struct TurnOutput {
  std::vector<PredictedFact> facts;
  std::vector<PredictedSpan> times;
  std::vector<PredictedSpan> entities;
  std::vector<PredictedSpan> references;
};

struct CaseOutput {
  std::vector<ProfileItem> profile;
  std::vector<PredictedFact> foresight;
};

// ---- scoring (pure) ---------------------------------------------------------------------------

// Scores `outputs[i]` against `turns[i]`: {"turns", "facts": {overall, by_predicate, validity},
// "times", "entities": {overall, by_type}, "references": {overall, by_kind}}, each count object
// {tp, fp, fn, precision, recall, f1, misses, false_positives}. Sizes must be equal.
io::Json ScoreTurns(std::span<const LabelledTurn> turns, std::span<const TurnOutput> outputs);
// Scores profile and foresight: {"cases", "profile", "foresight"}.
io::Json ScoreProfileCases(std::span<const ProfileCase> cases, std::span<const CaseOutput> outputs);

// Day-widened interval of a time value "from/to" (each end a date or a timestamp):
// "2024-03-01T18:00:00Z/2024-03-02T06:00:00Z" -> "2024-03-01/2024-03-03". nullopt if malformed.
std::optional<std::string> DayInterval(std::string_view value);
// The normalised comparison form of a fact object, subject or name (see above).
std::string NormalizeLabelText(std::string_view text);

// ---- the run ----------------------------------------------------------------------------------

struct UnderstandingOptions {
  // Folder of the labelled sets. Default: "" = $ENGRAM_SOURCE_DIR/tests/data/understanding, else
  // the source tree's copy the binary was built from.
  std::string data_dir;
  // "dev", "test" or "all" (both, reported apart). Default: "all".
  std::string split = "all";
  // Only the first N conversations and N profile cases of each split. Default: 0 = all.
  std::size_t limit = 0;
  // TOML configuration (EngineOptions::config_file). Default: "" = built-in values.
  std::string config_file;
  // EngineOptions::data_dir (models, lexicons). Default: "".
  std::string engine_data_dir;
  // Progress bar destination. Default: nullptr = silent.
  std::ostream* progress = nullptr;
  bool progress_interactive = false;
};

// The folder RunUnderstandingBench reads when options.data_dir is empty.
std::string DefaultUnderstandingDataDir();

// Runs the write path over the split(s) in a temporary store and scores them:
// {"benchmark": "understanding", "data", "splits": {"dev": {...}, "test": {...}}}, each split
// {"turns": ScoreTurns(...), "cases": ScoreProfileCases(...)}. Errors: kNotFound for a missing
// file, kInvalidArgument for a malformed one or an unknown split, the engine's.
StatusOr<io::Json> RunUnderstandingBench(const UnderstandingOptions& options);

// The report as tables: per split and family P / R / F1, facts per predicate, then the misses and
// false positives (at most `max_listed` of each per family; 0 = all).
void PrintUnderstandingReport(const io::Json& report, std::ostream& out,
                              std::size_t max_listed = 10);

}  // namespace engram::eval

#endif  // ENGRAM_EVAL_UNDERSTANDING_BENCH_H_
