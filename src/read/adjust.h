// Adjustments after fusion (DESIGN §5.5): each changes a candidate's score and leaves an
// Adjustment in it (read_result.h: s -> s × factor + bonus) that says why.
//
//   person     turns spoken by a speaker the question names: × [recall] person_boost.
//   neighbour  the turns within neighbour_radius of one of the best neighbour_seeds candidates,
//              in the same session, get + neighbour_weight × neighbour_decay^(distance-1) × the
//              seed's score (the largest bonus over seeds; bonuses are computed from the scores
//              before any of them is added, so they never chain). Turns no route proposed join
//              the list with that bonus as their score. The reply right after a seed that
//              mostly asks (question share >= 0.5) gets neighbour_answer_weight instead.
//   answerability  turns that ask: × (1 - question_penalty × question share).
#ifndef ENGRAM_READ_ADJUST_H_
#define ENGRAM_READ_ADJUST_H_

#include <span>
#include <string>
#include <vector>

#include "engram/config.h"
#include "engram/read_result.h"
#include "read/fusion.h"
#include "read/turn_layout.h"

namespace engram::read {

// A candidate between fusion and loading.
struct Ranked {
  FusedCandidate fused;
  double score = 0;  // fused score after the adjustments so far
  std::vector<Adjustment> adjustments;
};

// Best first, ties by row ascending.
void SortRanked(std::vector<Ranked>& ranked);

// Person adjustment: multiplies by `boost` the turns spoken by a speaker the question names,
// or, when it names none and speaks in the first person, by `first_person_boost` the turns of
// role user (if the memory holds turns of other roles too).
void ApplyPersonBoost(std::vector<Ranked>& ranked, const TurnLayout& layout,
                      std::span<const std::string> asked_speakers, bool first_person, double boost,
                      double first_person_boost);

// Answerability: × (1 - config.question_penalty × question share) on turns that ask.
void ApplyAnswerability(std::vector<Ranked>& ranked, const TurnLayout& layout,
                        const RecallConfig& config);

// `ranked` must be sorted (seeds are its first turns). Returns the number of turns added.
// Leaves the list unsorted.
std::size_t ExpandNeighbours(std::vector<Ranked>& ranked, const TurnLayout& layout,
                             const RecallConfig& config);

}  // namespace engram::read

#endif  // ENGRAM_READ_ADJUST_H_
