// Adjustments after fusion (DESIGN §5.5): each changes a candidate's score and leaves an
// Adjustment in it (read_result.h: s -> s × factor + bonus) that says why.
//
//   person     turns spoken by a speaker the question names: × [recall] person_boost.
//   neighbour  the turns within neighbour_radius of one of the best neighbour_seeds candidates,
//              in the same session, get + neighbour_weight × neighbour_decay^(distance-1) × the
//              seed's score (the largest bonus over seeds; bonuses are computed from the scores
//              before any of them is added, so they never chain). Turns no route proposed join
//              the list with that bonus as their score. The reply right after a seed that
//              mostly asks (its answerability share >= 0.5) gets neighbour_answer_weight instead.
//   answerability  turns between peers that ask: × (1 - question_penalty × share), where share
//              is the echo share when a tokenizer and query terms are given and the turn holds
//              some of the query's terms (the share of those term occurrences that lie in its
//              sentences ending with "?": the turn matches because it asks about the topic, so
//              the reply holds the answer), else the question share of its words.
//   answer type  when the question asks for a time, number, place or person (QueryFrame::
//              answer_type), the turns among the best answer_type_depth candidates that hold one
//              (a date or time expression; a number, quantity, amount or percentage; a place or
//              person mention of confidence >= 0.5, text/signals.h; read from the turn's stored
//              analysis row, not re-detected) × answer_type_boost.
#ifndef ENGRAM_READ_ADJUST_H_
#define ENGRAM_READ_ADJUST_H_

#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "engram/config.h"
#include "store/turn_analysis.h"
#include "engram/read_result.h"
#include "read/fusion.h"
#include "read/query_frame.h"
#include "read/turn_layout.h"
#include "text/tokenizer.h"

namespace engram::read {

// A candidate between fusion and loading.
struct Ranked {
  FusedCandidate fused;
  double score = 0;  // fused score after the adjustments so far
  std::vector<Adjustment> adjustments;
  // The share ApplyAnswerability used (-1: not computed); the neighbour stage reads it.
  double asks = -1;
};

// Best first, ties by row ascending.
void SortRanked(std::vector<Ranked>& ranked);

// Person adjustment: multiplies by `boost` the turns spoken by a speaker the question names,
// or, when it names none and speaks in the first person, by `first_person_boost` the turns of
// role user (if the memory holds turns of other roles too).
void ApplyPersonBoost(std::vector<Ranked>& ranked, const TurnLayout& layout,
                      std::span<const std::string> asked_speakers, bool first_person, double boost,
                      double first_person_boost);

// Answerability: × (1 - config.question_penalty × share) on turns that ask (see above).
// `tokenizer` may be null (then the question share is used). The query terms' occurrences in a
// turn's whole text are read from its BM25 document in `indexes` (DocumentTerms: its speaker's
// terms, then its text's) when one of them holds it, else counted by tokenising the text; only
// its asking sentences are tokenised then.
void ApplyAnswerability(std::vector<Ranked>& ranked, const TurnLayout& layout,
                        const RecallConfig& config, const text::Tokenizer* tokenizer = nullptr,
                        std::span<const std::string> query_terms = {},
                        std::span<const index::Bm25Index* const> indexes = {});

// The text and event time of a candidate turn; false when the row is no turn.
using TurnText = std::function<bool(std::int64_t row, std::string_view* text, Timestamp* time)>;

// Answer type: `ranked` must be sorted (the first answer_type_depth are examined). Leaves it
// unsorted. With a time answer type and a known `tense`, a date counts only when it does not lie
// on the other side of its turn's time: a past question is not answered by "next month", a
// future one not by "last week" ("today", "this month" and clock times always count).
// `stored` gives a turn's stored analysis (its signals, detected once at write time with the
// gazetteer: store/turn_analysis.h), or null; a turn without one has its text's signals detected
// here. An unset `stored` detects for every turn. A person or place answers only when it is more
// than `given_names` (the names the question gives and the conversation's speakers): every word
// of it among theirs (case-insensitive) does not answer "who did John go with?" ("Thanks, John!").
using StoredAnalysis = std::function<const store::TurnAnalysis*(std::int64_t row)>;
void ApplyAnswerType(std::vector<Ranked>& ranked, AnswerType type, const TurnText& turn_text,
                     const RecallConfig& config, Tense tense = Tense::kUnknown,
                     const StoredAnalysis& stored = {},
                     std::span<const std::string> given_names = {});

// Coverage: × (1 + config.coverage_weight × c) on the turns of `layout` among the first
// answer_type_depth candidates, c = the idf of the query terms the turn holds (its postings in
// `indexes`, the BM25 indexes of its text) / the idf of all of them: Lucene's classic coord
// factor, weighted. `ranked` must be sorted; leaves it unsorted. Terms are distinct; with fewer
// than two nothing changes (every matching turn would gain alike).
void ApplyCoverage(std::vector<Ranked>& ranked, std::span<const index::Bm25QueryTerm> terms,
                   const TurnLayout& layout, std::span<const index::Bm25Index* const> indexes,
                   const RecallConfig& config);

// Adds `adjustment.bonus` to the candidate of `row` and records `adjustment` in it; a row not in
// `ranked` is appended with the bonus as its score. `position_of_row` maps the rows of `ranked` to
// their positions and is kept up to date. Returns true when the row was appended.
bool AddBonus(std::vector<Ranked>& ranked, std::map<std::int64_t, std::size_t>& position_of_row,
              std::int64_t row, Adjustment adjustment);

// `ranked` must be sorted (seeds are its first turns). Returns the number of turns added.
// Leaves the list unsorted.
std::size_t ExpandNeighbours(std::vector<Ranked>& ranked, const TurnLayout& layout,
                             const RecallConfig& config);

}  // namespace engram::read

#endif  // ENGRAM_READ_ADJUST_H_
