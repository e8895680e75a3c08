// The follow-up recall (a second hop, EverMemOS's and Eywa's multi-round retrieval without an
// LLM): a question that gathers ("What activities does Melanie do?", "How many plants did I
// buy?") is answered by several turns in several sessions, and the question's words find only
// some of them; the others read like the evidence already found, not like the question. So the
// best candidates of the first pass lead to a second search of the scope's vectors:
//
//   seeds   the first `seeds` turns of the ranked list;
//   query   the question's embedding plus the mean of the seeds' stored vectors, normalised
//           (the question and what answered it weigh alike), one search per searched scope that
//           holds a seed, the best `candidates` hits each;
//   bonus   every hit that is no seed gets + weight × the first seed's score × its cosine over
//           the best hit's (so the best follow-up hit gets weight × the best score); a hit no
//           route found joins the list with the bonus as its score.
//
// An Adjustment named "hop" says which seeds led to the turn and its cosine. The planner's rule
// for the question's shape sets the weight (`hop` in [planner.<shape>]); 0 = off.
#ifndef ENGRAM_READ_HOP_H_
#define ENGRAM_READ_HOP_H_

#include <cstddef>
#include <span>
#include <vector>

#include "engram/status.h"
#include "index/vector/vector_index.h"
#include "read/adjust.h"
#include "read/turn_layout.h"

namespace engram::read {

struct HopSettings {
  double weight = 0;            // 0 = off
  std::size_t seeds = 3;        // first-pass turns whose vectors lead the second search
  std::size_t candidates = 20;  // hits taken from each scope's second search
};

// `ranked` must be sorted; `indexes` are the searched scopes' vector projections (empty: no
// vectors, nothing to do) and `query_vector` the question's embedding. Returns the number of turns
// added; leaves the list unsorted.
StatusOr<std::size_t> ApplyHop(std::vector<Ranked>& ranked,
                               std::span<const index::VectorIndex* const> indexes,
                               std::span<const float> query_vector, const TurnLayout& layout,
                               const HopSettings& settings);

}  // namespace engram::read

#endif  // ENGRAM_READ_HOP_H_
