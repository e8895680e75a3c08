// The fragment route's head, exhaustive and by MaxScore (see fragment_top.h).
#include "read/fragment_top.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <numeric>

namespace engram::read {
namespace {

// Bounds are sums of the same non-negative terms as the scores they bound, added in another
// order: a bound is taken below a threshold only when it stays below after this relative slack,
// far above the rounding of a few additions.
constexpr double kBoundSlack = 1e-9;

// Picks best first: by score, then own score, then row (a total order: rows are distinct).
class PickOrder {
 public:
  explicit PickOrder(const TurnLayout& layout) : turns_(&layout.turns()) {}
  bool operator()(const FragmentPick& a, const FragmentPick& b) const {
    if (a.score != b.score) return a.score > b.score;
    if (a.own != b.own) return a.own > b.own;
    return (*turns_)[a.turn].row < (*turns_)[b.turn].row;
  }

 private:
  const std::vector<LayoutTurn>* turns_;
};

FragmentTop Exhaustive(const TermMatrix& matrix, TermSet set, const GroupingScores& own,
                       const FragmentOptions& options, const Bm25Config& config) {
  FragmentTop top;
  top.windows = matrix.ScoreWindows(options.window, config, set);
  const std::vector<ScoredUnit>& units = top.windows.units();
  top.windows_visited = units.size();
  top.windows_scored = units.size();
  // Each turn's best window (the first among equals); turns in no scoring window are left out.
  // The windows come by begin, and so by end (same-length windows inside a session, sessions
  // one after another): the turns a window shares with the windows before it are the last picks,
  // the others are new ones after them, so the picks come out by turn.
  std::vector<FragmentPick>& picks = top.picks;
  const std::vector<ScoredUnit>& own_units = own.units();
  std::size_t own_at = 0;  // own is sorted by turn, as are the picks
  for (const ScoredUnit& scored : units) {
    if (scored.score <= 0) continue;
    const std::size_t seen_end = picks.empty() ? 0 : picks.back().turn + 1;
    for (std::size_t t = scored.unit.begin; t < std::min(scored.unit.end, seen_end); ++t) {
      FragmentPick& pick = picks[picks.size() - (seen_end - t)];
      if (scored.score > pick.window_score) {
        pick.window = scored.unit;
        pick.window_score = scored.score;
      }
    }
    for (std::size_t t = std::max(scored.unit.begin, seen_end); t < scored.unit.end; ++t) {
      while (own_at < own_units.size() && own_units[own_at].unit.begin < t) ++own_at;
      const double own_score = own_at < own_units.size() && own_units[own_at].unit.begin == t
                                   ? own_units[own_at].score
                                   : 0.0;
      picks.push_back({t, scored.unit, scored.score, own_score, 0});
    }
  }
  for (FragmentPick& pick : picks) pick.score = pick.window_score + options.own_weight * pick.own;
  // Only the best `limit` are kept: a partial sort under a total order gives the same head.
  const std::size_t kept = std::min(picks.size(), options.limit);
  std::partial_sort(picks.begin(), picks.begin() + static_cast<std::ptrdiff_t>(kept), picks.end(),
                    PickOrder(matrix.layout()));
  picks.resize(kept);
  return top;
}

// The first index at or after `at` in `postings` whose turn is at least `turn` (postings by turn).
std::size_t Gallop(std::span<const TermMatrix::Posting> postings, std::size_t at,
                   std::size_t turn) {
  if (at >= postings.size() || postings[at].turn >= turn) return at;
  std::size_t step = 1;  // postings[at] is before `turn`; so is postings[at + step / 2] below
  while (at + step < postings.size() && postings[at + step].turn < turn) step *= 2;
  const auto by_turn = [](const TermMatrix::Posting& posting, std::size_t value) {
    return posting.turn < value;
  };
  const auto first = postings.begin() + static_cast<std::ptrdiff_t>(at + step / 2);
  const auto last =
      postings.begin() + static_cast<std::ptrdiff_t>(std::min(at + step + 1, postings.size()));
  return static_cast<std::size_t>(std::lower_bound(first, last, turn, by_turn) -
                                  postings.begin());
}

// The score of `unit` over `terms` as TermMatrix::ScoreWindows adds it: the contributions in term
// order. O(terms × log postings).
double WindowScore(const TurnLayout& layout, std::span<const TermMatrix::Term> terms,
                   std::span<const index::Bm25TermWeight* const> weights, const Unit& unit) {
  const auto length = static_cast<std::uint32_t>(layout.LengthOf(unit.begin, unit.end));
  double score = 0;
  for (std::size_t term_idx = 0; term_idx < terms.size(); ++term_idx) {
    const std::vector<TermMatrix::Posting>& postings = terms[term_idx].postings;
    std::uint32_t tf = 0;
    for (std::size_t at = Gallop(postings, 0, unit.begin);
         at < postings.size() && postings[at].turn < unit.end; ++at) {
      tf += postings[at].term_frequency;
    }
    if (tf == 0) continue;
    const double contribution = terms[term_idx].scale * weights[term_idx]->Score(tf, length);
    score += contribution;
  }
  return score;
}

// What one term can add to a pick: its largest contribution to a window's score and to a turn's
// own score. For each posting, the postings in the `window` turns up to it (inside its session)
// are all a window whose last posting it is can sum, and no window holding its turn is shorter
// than the shortest of those that hold it; a session of at most `window` turns is its one unit.
struct TermBound {
  double window = 0;
  double turn = 0;
};

// A bound on what a term adds to the windows beginning in one block: its largest summed term
// frequency there against the shortest window (Score grows with tf and falls with the length,
// so Score(most, shortest) bounds every pair, rounding included).
struct BlockBound {
  std::size_t block = 0;
  std::uint32_t most_tf = 0;
  std::uint64_t shortest = ~std::uint64_t{0};
};

// `blocks` (empty on entry) receives the term's block bounds for the blocks of 2^block_bits
// window begins holding one of its windows, by block; with block_bits negative it is left empty.
TermBound BoundOf(const TurnLayout& layout, const TermMatrix::Term& term, std::size_t window,
                  const index::Bm25TermWeight& window_weight,
                  const index::Bm25TermWeight& turn_weight, int block_bits,
                  std::vector<BlockBound>& blocks) {
  index::Bm25ScoreMax window_max(window_weight);
  index::Bm25ScoreMax turn_max(turn_weight);
  std::size_t run_begin = 0;    // the first posting sharing a window with the current one
  std::uint32_t run_tf = 0;     // the term frequencies of postings [run_begin, current]
  for (const TermMatrix::Posting& posting : term.postings) {
    const auto [first, last] = layout.WindowBeginsOf(posting.turn, window);
    while (term.postings[run_begin].turn < first) {
      run_tf -= term.postings[run_begin++].term_frequency;
    }
    run_tf += posting.term_frequency;
    const Unit first_unit = layout.WindowAt(first, window);  // the others: [begin, begin + window)
    std::uint64_t shortest = layout.LengthOf(first_unit.begin, first_unit.end);
    for (std::size_t begin = first + 1; begin <= last; ++begin) {
      shortest = std::min(shortest, layout.LengthOf(begin, begin + window));
    }
    window_max.Offer(run_tf, static_cast<std::uint32_t>(shortest));
    turn_max.Offer(posting.term_frequency,
                   static_cast<std::uint32_t>(layout.LengthOf(posting.turn, posting.turn + 1)));
    if (block_bits < 0) continue;
    // Both ends of [first, last] ascend from posting to posting: the blocks touched are the
    // last one or two kept, or new ones after them.
    for (std::size_t b = first >> block_bits; b <= last >> block_bits; ++b) {
      std::size_t at = blocks.size();
      while (at > 0 && blocks[at - 1].block > b) --at;
      if (at == 0 || blocks[at - 1].block != b) {
        blocks.insert(blocks.begin() + static_cast<std::ptrdiff_t>(at), BlockBound{b});
        ++at;
      }
      BlockBound& bound = blocks[at - 1];
      bound.most_tf = std::max(bound.most_tf, run_tf);
      bound.shortest = std::min(bound.shortest, shortest);
    }
  }
  // The scale is ≥ 0, so the largest scaled contribution is the scaled largest one.
  return {term.scale * window_max.Max(), term.scale * turn_max.Max()};
}

FragmentTop Skipping(const TermMatrix& matrix, TermSet set, const GroupingScores& own,
                     const FragmentOptions& options, const Bm25Config& config) {
  const TurnLayout& layout = matrix.layout();
  const std::size_t window = std::max<std::size_t>(1, options.window);
  const double own_weight = options.own_weight;
  const std::span<const TermMatrix::Term> terms = matrix.terms(set);
  const std::size_t term_count = terms.size();
  FragmentTop top;
  top.windows = matrix.WindowWeights(window, config, set);
  if (term_count == 0 || options.limit == 0) return top;
  std::vector<const index::Bm25TermWeight*> weights(term_count);
  std::vector<double> pick_bounds(term_count);    // window + own_weight × turn
  std::vector<double> window_bounds(term_count);
  // Block bounds: per block of 2^block_bits window begins and term, a bound on the term's
  // contribution to a window beginning there (block by block, term by term); per block, the sum
  // of its terms' plus own_weight × the best own score of a turn such a window holds.
  const std::size_t turn_count = layout.turns().size();
  const int block_bits = options.block_bits;
  const std::size_t block_count =
      block_bits < 0 ? 0 : ((turn_count >> block_bits) + 1);
  std::vector<double> block_window(term_count * block_count, 0.0);
  std::vector<BlockBound> term_blocks;
  for (std::size_t term_idx = 0; term_idx < term_count; ++term_idx) {
    const auto& window_weight = top.windows.weight(term_idx);
    const auto& turn_weight = own.weight(term_idx);
    if (!window_weight || !turn_weight) return Exhaustive(matrix, set, own, options, config);
    weights[term_idx] = &*window_weight;
    term_blocks.clear();
    const TermBound bound = BoundOf(layout, terms[term_idx], window, *window_weight,
                                    *turn_weight, block_bits, term_blocks);
    for (const BlockBound& block : term_blocks) {
      block_window[block.block * term_count + term_idx] =
          terms[term_idx].scale *
          window_weight->Score(block.most_tf, static_cast<std::uint32_t>(block.shortest));
    }
    window_bounds[term_idx] = bound.window;
    pick_bounds[term_idx] = bound.window + own_weight * bound.turn;
  }
  // The terms by pick bound, ascending; the first `skippable` are the non-essential ones, whose
  // bounds sum below the threshold.
  std::vector<std::size_t> by_bound(term_count);
  std::iota(by_bound.begin(), by_bound.end(), 0);
  std::stable_sort(by_bound.begin(), by_bound.end(), [&](std::size_t a, std::size_t b) {
    return pick_bounds[a] < pick_bounds[b];
  });
  std::vector<double> pick_prefix(term_count + 1, 0.0);  // bound sums of by_bound's prefixes
  std::vector<double> window_prefix(term_count + 1, 0.0);
  for (std::size_t rank = 0; rank < term_count; ++rank) {
    pick_prefix[rank + 1] = pick_prefix[rank] + pick_bounds[by_bound[rank]];
    window_prefix[rank + 1] = window_prefix[rank] + window_bounds[by_bound[rank]];
  }
  const std::vector<ScoredUnit>& own_units = own.units();
  std::vector<double> block_pick(block_count, 0.0);
  if (block_count > 0) {
    // A window beginning at b holds turns of [b, b + window): turn t is in windows beginning in
    // [t + 1 - window, t].
    std::vector<double> block_own(block_count, 0.0);
    for (const ScoredUnit& scored : own_units) {
      const std::size_t t = scored.unit.begin;
      const std::size_t first = t + 1 >= window ? t + 1 - window : 0;
      for (std::size_t b = first >> block_bits; b <= t >> block_bits; ++b) {
        block_own[b] = std::max(block_own[b], scored.score);
      }
    }
    for (std::size_t b = 0; b < block_count; ++b) {
      double bound = 0;
      for (std::size_t term_idx = 0; term_idx < term_count; ++term_idx) {
        bound += block_window[b * term_count + term_idx];
      }
      block_pick[b] = bound + own_weight * block_own[b];
    }
  }
  std::size_t skippable = 0;
  const auto below = [](double bound, double threshold) {
    return bound * (1 + kBoundSlack) < threshold;
  };

  // The best picks so far, the worst at the front once there are `limit` of them: its score is
  // the threshold θ, at most the limit-th best score of the full ranking.
  const PickOrder order(layout);
  std::vector<FragmentPick> head;
  head.reserve(options.limit);
  double first_threshold = -std::numeric_limits<double>::infinity();
  double threshold = first_threshold;
  const auto finish = [&](FragmentPick pick) {
    pick.score = pick.window_score + own_weight * pick.own;
    if (head.size() < options.limit) {
      head.push_back(pick);
      std::push_heap(head.begin(), head.end(), order);
      if (head.size() < options.limit) return;
    } else if (order(pick, head.front())) {
      std::pop_heap(head.begin(), head.end(), order);
      head.back() = pick;
      std::push_heap(head.begin(), head.end(), order);
    } else {
      return;
    }
    threshold = std::max(first_threshold, head.front().score);
    while (skippable < term_count && below(pick_prefix[skippable + 1], threshold)) ++skippable;
  };

  // Cursors, all moving forward: per term, the posting whose windows are enumerated next, and the
  // first posting at or after the window being scored; the own scores by turn.
  std::vector<std::size_t> enumerated(term_count, 0);
  std::vector<std::size_t> scored_at(term_count, 0);
  std::size_t own_at = 0;
  // The first begin at or after `from` of a window holding term `term_idx`, or npos.
  constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();
  const auto next_window = [&](std::size_t term_idx, std::size_t from) {
    const std::vector<TermMatrix::Posting>& postings = terms[term_idx].postings;
    std::size_t& at = enumerated[term_idx];
    at = Gallop(postings, at, from);  // a window beginning at `from` or later holds no turn before
    for (; at < postings.size(); ++at) {
      const auto [first, last] = layout.WindowBeginsOf(postings[at].turn, window);
      if (std::max(first, from) <= last) return std::max(first, from);
    }
    return kNone;
  };
  std::vector<std::uint32_t> frequency(term_count);
  const auto frequency_in = [&](std::size_t term_idx, const Unit& unit) {
    const std::vector<TermMatrix::Posting>& postings = terms[term_idx].postings;
    std::size_t& at = scored_at[term_idx];
    at = Gallop(postings, at, unit.begin);
    std::uint32_t tf = 0;
    for (std::size_t p = at; p < postings.size() && postings[p].turn < unit.end; ++p) {
      tf += postings[p].term_frequency;
    }
    return tf;
  };
  const auto own_of = [&](std::size_t turn) {
    std::size_t at = own_at;
    while (at < own_units.size() && own_units[at].unit.begin < turn) ++at;
    return at < own_units.size() && own_units[at].unit.begin == turn ? own_units[at].score : 0.0;
  };

  // A first threshold: the turns with the best own scores (2 × limit of them) are likely to be in
  // the head. Each one's windows, scored exactly, give it a pick score that its best window can
  // only raise, so the limit-th best of those is at most the limit-th best of the full ranking.
  if (own_units.size() >= options.limit) {
    // The best own scores, the worst of them at the front of a heap (a pass over the scored
    // turns that mostly compares with the front).
    const std::size_t seed_count = std::min(own_units.size(), 2 * options.limit);
    const auto by_own = [](const ScoredUnit* a, const ScoredUnit* b) {
      return a->score != b->score ? a->score > b->score : a->unit.begin < b->unit.begin;
    };
    std::vector<const ScoredUnit*> seeds;
    seeds.reserve(seed_count);
    for (const ScoredUnit& scored : own_units) {
      if (seeds.size() < seed_count) {
        seeds.push_back(&scored);
        std::push_heap(seeds.begin(), seeds.end(), by_own);
      } else if (scored.score > seeds.front()->score) {
        std::pop_heap(seeds.begin(), seeds.end(), by_own);
        seeds.back() = &scored;
        std::push_heap(seeds.begin(), seeds.end(), by_own);
      }
    }
    std::vector<double> seed_scores;
    for (const ScoredUnit* seed : seeds) {
      const double own_score = seed->score;
      const std::size_t turn = seed->unit.begin;
      const auto [first, last] = layout.WindowBeginsOf(turn, window);
      double best = 0;
      for (std::size_t begin = first; begin <= last; ++begin) {
        best = std::max(best, WindowScore(layout, terms, weights, layout.WindowAt(begin, window)));
        ++top.windows_scored;
      }
      seed_scores.push_back(best + own_weight * own_score);
    }
    std::nth_element(seed_scores.begin(),
                     seed_scores.begin() + static_cast<std::ptrdiff_t>(options.limit - 1),
                     seed_scores.end(), std::greater<>());
    first_threshold = seed_scores[options.limit - 1];
    threshold = first_threshold;
    while (skippable < term_count && below(pick_prefix[skippable + 1], first_threshold)) {
      ++skippable;
    }
  }

  // Turns picked from the windows scored so far that a later window may still hold, by turn
  // (a run of consecutive turns: each scored window adds the turns after the last one).
  std::vector<FragmentPick> open;
  std::size_t from = 0;
  while (true) {
    // Blocks whose windows cannot reach θ are passed over whole.
    if (block_count > 0 && threshold > -std::numeric_limits<double>::infinity()) {
      while (from < turn_count && below(block_pick[from >> block_bits], threshold)) {
        from = ((from >> block_bits) + 1) << block_bits;
      }
    }
    std::size_t begin = kNone;
    for (std::size_t rank = skippable; rank < term_count; ++rank) {
      begin = std::min(begin, next_window(by_bound[rank], from));
    }
    if (begin == kNone) break;
    from = begin + 1;
    const Unit unit = layout.WindowAt(begin, window);
    const auto length = static_cast<std::uint32_t>(layout.LengthOf(unit.begin, unit.end));
    ++top.windows_visited;
    while (own_at < own_units.size() && own_units[own_at].unit.begin < unit.begin) ++own_at;
    // Bound: the essential terms' contributions, the others' bounds (in the window's block when
    // there are blocks), the best own score.
    double bound = window_prefix[skippable];
    if (block_count > 0) {
      bound = 0;
      for (std::size_t rank = 0; rank < skippable; ++rank) {
        bound += block_window[(begin >> block_bits) * term_count + by_bound[rank]];
      }
    }
    for (std::size_t rank = skippable; rank < term_count; ++rank) {
      const std::size_t term_idx = by_bound[rank];
      frequency[term_idx] = frequency_in(term_idx, unit);
      if (frequency[term_idx] == 0) continue;
      bound += terms[term_idx].scale * weights[term_idx]->Score(frequency[term_idx], length);
    }
    double best_own = 0;
    const bool bounded = threshold > -std::numeric_limits<double>::infinity();
    if (bounded) {
      for (std::size_t t = unit.begin; t < unit.end; ++t) best_own = std::max(best_own, own_of(t));
      if (below(bound + own_weight * best_own, threshold)) continue;
    }
    for (std::size_t rank = 0; rank < skippable; ++rank) {
      frequency[by_bound[rank]] = frequency_in(by_bound[rank], unit);
    }
    // The score as TermMatrix::ScoreWindows adds it: the terms' contributions in term order.
    double score = 0;
    for (std::size_t term_idx = 0; term_idx < term_count; ++term_idx) {
      if (frequency[term_idx] == 0) continue;
      const double contribution =
          terms[term_idx].scale * weights[term_idx]->Score(frequency[term_idx], length);
      score += contribution;
    }
    ++top.windows_scored;
    if (score <= 0) continue;
    // The same bound with the exact score: a window whose turns cannot reach θ from it opens no
    // pick and lifts none (a turn whose best window it is stays below θ either way).
    if (bounded && below(score + own_weight * best_own, threshold)) continue;
    std::size_t finished = 0;
    while (finished < open.size() && open[finished].turn < unit.begin) finish(open[finished++]);
    open.erase(open.begin(), open.begin() + static_cast<std::ptrdiff_t>(finished));
    for (FragmentPick& pick : open) {
      if (score > pick.window_score) {
        pick.window = unit;
        pick.window_score = score;
      }
    }
    for (std::size_t t = open.empty() ? unit.begin : open.back().turn + 1; t < unit.end; ++t) {
      open.push_back({t, unit, score, own_of(t), 0});
    }
  }
  for (const FragmentPick& pick : open) finish(pick);
  std::sort_heap(head.begin(), head.end(), order);
  top.picks = std::move(head);
  return top;
}

}  // namespace

FragmentTop TopFragments(const TermMatrix& matrix, TermSet set, const GroupingScores& own,
                         const FragmentOptions& options, const Bm25Config& config) {
  if (options.search == FragmentSearch::kExhaustive || options.own_weight < 0) {
    return Exhaustive(matrix, set, own, options, config);
  }
  return Skipping(matrix, set, own, options, config);
}

}  // namespace engram::read
