// The fragment route's ranking (context_routes.h) over a TermMatrix: every window of `window`
// consecutive turns of a session is scored as one BM25 document (TermMatrix::ScoreWindows), and a
// turn in a window holding a query term scores its best window's score (the first such window
// among equals) + own_weight × its own BM25 score; best first, ties by own score, then row. Only
// the best `limit` turns are wanted.
//
// Two searches give that head, the same turns with the same windows and scores to the last bit:
//   kExhaustive  scores every window holding a term and makes every turn of those windows a pick
//                (the reference the tests compare against);
//   kSkipping    MaxScore (Turtle and Flood 1995) over the windows in turn order. Each term gets
//                an upper bound on what it adds to a pick: its largest contribution to a window
//                (from the postings: the most it can sum in `window` turns against the shortest
//                window holding that turn) plus own_weight × its largest contribution to a turn.
//                Once `limit` turns have been picked, the k-th best pick score is a threshold θ
//                that only rises; the terms with the smallest bounds whose bounds sum below θ can
//                lift no window's turn into the head on their own, so only the windows holding one
//                of the other terms (the essential ones) are visited, and a visited window whose
//                essential terms' exact contributions plus the others' bounds plus own_weight × the
//                best own score among its turns stay below θ is not scored either; a scored window
//                whose exact score plus that own part stays below θ opens and lifts no pick. A
//                turn is picked only from the windows that reach θ so, and only the best `limit`
//                picks are kept. A term's bounds cost a compare per posting (index::Bm25ScoreMax).
//                Block bounds (block-max, Ding and Suel 2011) tighten them where scores vary:
//                the window begins are cut into blocks of 2^block_bits, each term gets a bound
//                on its contribution to a window beginning in each block (its largest summed tf
//                there against the shortest window; a division per block it touches), and
//                a block whose terms' bounds plus own_weight × the best own score of a turn its
//                windows hold stay below θ is passed over whole, without visiting its windows;
//                a visited window bounds its non-essential terms by their block bounds.
// Why it is exact: a turn whose best window was skipped scores below θ, which is at most the k-th
// best score; every turn of the true head has its best window scored, so its pick is exact and
// beats, strictly, whatever a skipped window would have given it.
//
// Example (the fragment route):
//   const GroupingScores& own = terms.Turns(soft);
//   FragmentTop top = TopFragments(matrix, set, own, {.window = 3, .limit = 100,
//                                                     .own_weight = 0.3}, config.bm25);
#ifndef ENGRAM_READ_FRAGMENT_TOP_H_
#define ENGRAM_READ_FRAGMENT_TOP_H_

#include <cstddef>
#include <vector>

#include "engram/config.h"
#include "read/turn_layout.h"

namespace engram::read {

enum class FragmentSearch { kExhaustive, kSkipping };

struct FragmentOptions {
  std::size_t window = 3;  // turns per window (a session of at most this many: one unit)
  std::size_t limit = 100;  // picks wanted
  double own_weight = 0.3;  // ≥ 0 (the skipping search falls back to the exhaustive one otherwise)
  // The skipping search's block bounds cover blocks of 2^block_bits window begins (negative: no
  // blocks).
  int block_bits = 5;
  FragmentSearch search = FragmentSearch::kSkipping;
};

// A turn with its best window.
struct FragmentPick {
  std::size_t turn = 0;  // layout index
  Unit window;
  double window_score = 0;
  double own = 0;    // the turn's own score (the `own` grouping)
  double score = 0;  // window_score + own_weight × own
};

struct FragmentTop {
  // The window grouping's weights: Explain(pick.window) gives a pick's window score with its
  // terms. Its units() are empty.
  GroupingScores windows;
  std::vector<FragmentPick> picks;  // best first, at most `limit`
  // What the search did: windows whose score was computed, and windows visited (a skipping
  // search bounds a visited window before it scores it; the exhaustive one scores every window
  // holding a term).
  std::size_t windows_scored = 0;
  std::size_t windows_visited = 0;
};

// The best `options.limit` turns of `matrix`'s layout by the fragment score over the terms of
// `set`. `own` is matrix's per-turn scores over the same terms (TermMatrix::ScoreTurns(config,
// set), or RecallTerms::Turns); `config` the BM25 parameters both were built with.
FragmentTop TopFragments(const TermMatrix& matrix, TermSet set, const GroupingScores& own,
                         const FragmentOptions& options, const Bm25Config& config);

}  // namespace engram::read

#endif  // ENGRAM_READ_FRAGMENT_TOP_H_
