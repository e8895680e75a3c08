// Ranking features: one fixed-order vector of numbers per recall candidate, computed from what
// the earlier stages already know (each route's rank and score, fusion, the adjustments, the
// query frame) and a few cheap, deterministic facts about the candidate's text and its place in
// the conversation. The learned ranker (read/learned_ranker.h) scores these vectors; the bench
// trace writes them (`engram bench ... --trace`) so the model can be retrained from the repo
// (bench/train_ranker.py).
//
//   const std::vector<std::string>& names = FeatureNames();    // the column names, in order
//   FeatureInput input{&frame, layout, &plan_weights, text_indexes, query_terms, &node_by_row};
//   std::vector<FeatureVector> rows = ExtractFeatures(ranked, depth, input);
//
// A missing value (a route that did not propose the candidate, a turn feature of a fact) is NaN;
// the model's trees send it down each split's learned default branch. The list is versioned by
// kFeatureSetVersion: adding, removing or reordering a feature bumps it, and a model trained on
// another version is not used (the fused order is kept, with a warning).
//
// Features:
//   per route r of kFeatureRoutes: r_rr (1 / rank; 0 when r did not propose it), r_score (the
//     route's own score; NaN when absent), r_weight (the plan's weight of r; 0 when r did not run)
//   routes            number of routes that proposed the candidate
//   fused_rank        1-based rank by the fused score alone (before any adjustment)
//   fused_ratio       fused score / the best fused score
//   rank              1-based rank after the adjustments (the fused order the ranker re-orders)
//   score_ratio       adjusted score / the best adjusted score
//   per adjustment a of kFeatureAdjustments: a_factor (product of its factors; 1 = none),
//     a_bonus (sum of its bonuses; 0 = none)
//   kind              NodeKind as a number (turn 1, fact 4, episode 5, scene 6, ...)
//   shape, answer_type, tense   the query frame's enums as numbers
//   names, asked_speakers, query_terms, time_constraints   counts from the query frame
//   first_person, current, negated                       the frame's flags (0 / 1)
//   length            the turn's indexed length in terms (NaN for non-turns)
//   term_share        share of the question's distinct terms the candidate is indexed under
//   idf_share         the same, weighted by each term's idf
//   question_share    share of the turn's words in questions (DMF's query-like cue)
//   prev_question_share   the same for the turn before it in its session (0 at a session start)
//   next_question_share   the same for the turn after it (0 at a session end)
//   best_distance     turns between it and the best-ranked turn (NaN when either is no turn)
//   same_session_best 1 when it is in the best-ranked turn's session
//   session_position  its index within its session / the session's length, in [0, 1)
//   conversation_position  its index within the searched turns / their number, in [0, 1)
//   speaker_asked     1 when its speaker is one the question names
//   role_user         1 when its role is user
//   digits, capitalised   number of digit runs / of capitalised words after a sentence's first
//   mentioned_times   number of times its text names
//   time_match        1 when its time or a time it names falls in a time constraint of the
//                     question, 0 when not, NaN when the question has none
//   age_days          days between its time and the query time (NaN without a time)
#ifndef ENGRAM_READ_RANK_FEATURES_H_
#define ENGRAM_READ_RANK_FEATURES_H_

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "index/bm25/bm25_index.h"
#include "read/adjust.h"
#include "read/query_frame.h"
#include "read/turn_layout.h"
#include "store/store.h"

namespace engram::read {

// Bumped whenever FeatureNames() changes.
inline constexpr int kFeatureSetVersion = 1;

inline constexpr std::string_view kFeatureRoutes[] = {
    "bm25", "keyword", "vector", "fragment", "session", "temporal", "entity", "facts", "scene"};
inline constexpr std::string_view kFeatureAdjustments[] = {
    "person", "answerability", "neighbour", "bridge", "answer_type", "coverage"};

using FeatureVector = std::vector<double>;

// The column names, in the order of every FeatureVector.
const std::vector<std::string>& FeatureNames();

// What the extractor reads. Pointers outlive the call; layout may be null (no store), then the
// turn features are NaN.
struct FeatureInput {
  const QueryFrame* frame = nullptr;
  const TurnLayout* layout = nullptr;
  // The plan's weight of each route that ran.
  const std::map<std::string, double>* route_weights = nullptr;
  std::span<const index::Bm25Index* const> text_indexes;
  // The question's distinct terms with their idf over text_indexes (index::WeighQueryTerms).
  std::span<const index::Bm25QueryTerm> query_terms;
  // The loaded nodes of the candidates, by store row (a candidate not in it gets NaN text
  // features).
  const std::unordered_map<std::int64_t, const store::NodeRecord*>* nodes = nullptr;
};

// Feature vectors of ranked[0, depth): `ranked` best first after the adjustments.
std::vector<FeatureVector> ExtractFeatures(std::span<const Ranked> ranked, std::size_t depth,
                                           const FeatureInput& input);

}  // namespace engram::read

#endif  // ENGRAM_READ_RANK_FEATURES_H_
