// TurnLayout: the turns of the searched scopes in conversation order, grouped into sessions, so
// the read path can reason about neighbours, windows (fragments) and sessions. The engine keeps
// one per loaded scope as a projection that follows the store's journal (Append), so a recall
// reads no turn from the store to lay out its scope; Load builds one from the store directly
// (turn nodes only: every store has them, whatever the write path derived).
//
// Sessions are maximal runs of consecutive turns (by sequence, within one scope) that share a
// session id; turns without a session id form runs of their own the same way.
//
// The layout also keeps what lets a recall read only the turns a query touches: prefix sums of
// the turns' BM25 document lengths (a unit's length in O(1), a grouping's total length in
// O(sessions)), the turns ordered by event time (the temporal route's windows), the times the
// turns' texts name ordered by their start (the temporal route's dates inside turns), and the
// roles present.
//
// TermMatrix: the term frequencies of a query's terms in the turns of a layout that hold them,
// read from the BM25 projections' posting lists, so that any grouping of consecutive turns (a
// window, a session) can be scored as one BM25 document ("unit"): its term frequencies and length
// are the sums over its turns, and N, avgdl and df are counted over the units of the grouping.
// Its cost follows the query terms' postings, not the size of the layout.
#ifndef ENGRAM_READ_TURN_LAYOUT_H_
#define ENGRAM_READ_TURN_LAYOUT_H_

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engram/config.h"
#include "engram/status.h"
#include "engram/types.h"
#include "index/bm25/bm25.h"
#include "index/bm25/bm25_index.h"
#include "store/store.h"
#include "text/tokenizer.h"

namespace engram::read {

// A time a turn's text names, resolved against the turn's event time by text/temporal.h (the
// resolver the write path's date and time signals come from): "on 17 October" in a turn of
// 2024-09-01 is [2024-10-17, 2024-10-18). A turn without an event time keeps only the absolute
// ones ("17 October 2024", not "yesterday").
struct MentionedTime {
  Timestamp from;  // half-open [from, to)
  Timestamp to;
  std::string surface;  // "17 October"

  friend bool operator==(const MentionedTime&, const MentionedTime&) = default;
};

// The times `text` names, for a turn said at `event_time` (MentionedTime).
std::vector<MentionedTime> MentionedTimes(std::string_view text,
                                          const std::optional<Timestamp>& event_time);

struct LayoutTurn {
  std::int64_t row = 0;
  std::int64_t scope_id = 0;
  std::int64_t sequence = 0;
  std::string session_id;
  std::string speaker;
  Role role = Role::kUser;
  // Share of the turn's words in sentences that end with "?" (0 = no question, 1 = only
  // questions): DMF's query-like cue, for the answerability adjustment (adjust.h).
  float question_share = 0;
  // The turn's text when it asks (question_share > 0), for the answerability adjustment's echo
  // share; empty otherwise.
  std::string asking_text;
  std::optional<Timestamp> event_time;
  // The times its text names, in text order.
  std::vector<MentionedTime> mentioned_times;
  // The turn's BM25 document length: the number of terms it is indexed under (DocumentTerms).
  std::uint32_t length = 0;
  std::size_t session = 0;  // index into TurnLayout::sessions()
};

struct LayoutSession {
  std::size_t begin = 0;  // turns [begin, end) of TurnLayout::turns()
  std::size_t end = 0;
  std::string session_id;
};

// Share of the words of `text` in sentences ending with "?" (sentences end at . ! ? or a line
// break); 0 for an empty text.
float QuestionShare(std::string_view text);

// The sentences of `text` that end with "?", joined by spaces (sentences as in QuestionShare).
std::string AskingSentences(std::string_view text);

// The terms a turn is indexed under in BM25: its speaker's name, then its text.
std::vector<std::string> DocumentTerms(const text::Tokenizer& tokenizer,
                                       const store::NodeRecord& node);

// A unit: the consecutive turns [begin, end) of a layout scored as one document.
struct Unit {
  std::size_t begin = 0;
  std::size_t end = 0;
};

class TurnLayout {
 public:
  // Turns of `scope_ids` (every status: the visibility filter decides later), ordered by scope id
  // (as given) then sequence, their lengths from `tokenizer` (DocumentTerms).
  static StatusOr<TurnLayout> Load(store::Store& store, std::span<const std::int64_t> scope_ids,
                                   const text::Tokenizer& tokenizer);
  // For tests: turns given in conversation order.
  static TurnLayout FromTurns(std::vector<LayoutTurn> turns);
  // The layout entry of a stored turn whose BM25 document has `length` terms.
  static LayoutTurn TurnOf(const store::NodeRecord& node, std::uint32_t length);
  // The layouts one after the other (scopes in the order given), as Load would lay them out.
  static TurnLayout Concat(std::span<const TurnLayout* const> parts);

  // Adds a turn after the last one (the next turn of the same scope in sequence order, or the
  // first of another scope), extending the last session when it continues it.
  void Append(LayoutTurn turn);
  // Same turns, in the same order, with the same fields (the projection's rebuild check).
  bool SameContent(const TurnLayout& other) const;

  const std::vector<LayoutTurn>& turns() const { return turns_; }
  const std::vector<LayoutSession>& sessions() const { return sessions_; }
  // turns()[turn].session, from a compact array.
  std::size_t SessionOf(std::size_t turn) const { return session_of_[turn]; }
  // Index of the turn with this store row, or nullopt when it is no turn of the layout.
  std::optional<std::size_t> IndexOf(std::int64_t row) const;
  // Calls visit(index, posting) for each posting of `postings` (sorted by doc, as the BM25
  // projections keep them) whose doc is the store row of a turn of the layout, in posting order.
  // When the layout's rows ascend densely (one scope written in order, its turns a large share
  // of the rows between its first and last: the usual case) this is an array lookup a posting;
  // when they ascend sparsely, a merge that gallops over the rows, O(postings x log(turns /
  // postings)); otherwise one IndexOf each.
  template <typename Visit>
  void ForEachTurnOf(std::span<const index::Bm25Posting> postings, const Visit& visit) const;
  // The turns' store rows ascend strictly (ForEachTurnOf then visits turns in ascending order).
  bool rows_ascending() const { return rows_ascending_; }
  // Distinct speakers, sorted.
  const std::vector<std::string>& Speakers() const { return speakers_; }
  // Whether some turn has role `role`.
  bool HasRole(Role role) const { return role_turns_[static_cast<std::size_t>(role)] > 0; }

  // Sum of the lengths of turns [begin, end).
  std::uint64_t LengthOf(std::size_t begin, std::size_t end) const {
    return prefix_length_[end] - prefix_length_[begin];
  }
  // Sum of the lengths of the windows [b, b + window) that lie inside one session, over every
  // session, a session of at most `window` turns counting as one window of itself (the units of
  // TermMatrix::ScoreWindows). O(sessions).
  std::uint64_t WindowLengthSum(std::size_t window) const;
  // Number of those windows. O(sessions).
  std::size_t WindowCount(std::size_t window) const;
  // The begins [first, last] of those windows that hold turn `turn` (a session of at most
  // `window` turns: its one unit, beginning at its first turn). For turns in ascending order both
  // ends ascend.
  std::pair<std::size_t, std::size_t> WindowBeginsOf(std::size_t turn, std::size_t window) const {
    const LayoutSession& session = sessions_[session_of_[turn]];
    if (session.end - session.begin <= window) return {session.begin, session.begin};
    return {turn + 1 >= session.begin + window ? turn + 1 - window : session.begin,
            std::min(turn, session.end - window)};
  }
  // The window beginning at `begin`, a begin WindowBeginsOf gives.
  Unit WindowAt(std::size_t begin, std::size_t window) const {
    const LayoutSession& session = sessions_[session_of_[begin]];
    if (session.end - session.begin <= window) return {session.begin, session.end};
    return {begin, begin + window};
  }

  // Indexes of the turns whose event time lies in [from, to), ascending. Cost: the turns
  // returned, plus a logarithm.
  std::vector<std::size_t> TurnsBetween(Timestamp from, Timestamp to) const;

  // A named time of a turn: turns()[turn].mentioned_times[mention].
  struct MentionRef {
    std::size_t turn = 0;
    std::size_t mention = 0;
    friend bool operator==(const MentionRef&, const MentionRef&) = default;
  };
  // The named times that overlap [from, to) and last at most as long (a day asked about is not
  // found by "this year"), by turn then mention. Cost: the named times starting in
  // [from - (to - from), to), a logarithm, and at most max(64, sqrt(named times)) more.
  std::vector<MentionRef> MentionsOverlapping(Timestamp from, Timestamp to) const;

 private:
  void Group();

  std::vector<LayoutTurn> turns_;
  std::vector<LayoutSession> sessions_;
  // Each row's turn index once the rows are not dense (below); empty while they are.
  std::unordered_map<std::int64_t, std::size_t> index_of_row_;  // lookups only, never iterated
  std::vector<std::int64_t> rows_;  // the store row of each turn, by index
  // While the rows ascend and turns are at least a quarter of the rows from the first to the
  // last: index_by_row_[row - first_row_] is the row's turn index, kNoTurn for another row.
  static constexpr std::uint32_t kNoTurn = ~std::uint32_t{0};
  bool dense_rows_ = true;
  std::int64_t first_row_ = 0;
  std::vector<std::uint32_t> index_by_row_;
  std::vector<std::uint32_t> session_of_;  // each turn's LayoutTurn::session, compactly
  bool rows_ascending_ = true;      // rows_ strictly ascending
  std::vector<std::string> speakers_;                           // distinct, sorted
  // prefix_length_[i] = sum of the lengths of turns [0, i); prefix_prefix_[i] = sum of
  // prefix_length_[0, i). Sizes n + 1 and n + 2.
  std::vector<std::uint64_t> prefix_length_ = {0};
  std::vector<std::uint64_t> prefix_prefix_ = {0, 0};
  // (event time, turn index) of the turns that have an event time, sorted.
  std::vector<std::pair<std::int64_t, std::size_t>> by_time_;
  // The named times by (start, turn, mention): a sorted part and a short unsorted tail of the
  // latest appended ones, merged into it when it outgrows max(64, sqrt(sorted)) (named times do
  // not arrive in time order: one insertion each would cost quadratic moves on a large scope).
  struct MentionKey {
    std::int64_t from = 0;
    std::size_t turn = 0;
    std::size_t mention = 0;
    friend auto operator<=>(const MentionKey&, const MentionKey&) = default;
  };
  std::vector<MentionKey> by_mention_;
  std::vector<MentionKey> mention_tail_;
  std::int64_t max_mention_length_ = 0;  // the longest named time, in microseconds
  std::array<std::size_t, 4> role_turns_ = {};  // turns per Role
};

template <typename Visit>
void TurnLayout::ForEachTurnOf(std::span<const index::Bm25Posting> postings,
                               const Visit& visit) const {
  if (dense_rows_) {
    for (const index::Bm25Posting& posting : postings) {
      if (posting.doc < static_cast<std::uint64_t>(first_row_)) continue;
      const std::uint64_t offset = posting.doc - static_cast<std::uint64_t>(first_row_);
      if (offset >= index_by_row_.size()) return;  // postings come by doc
      if (index_by_row_[offset] != kNoTurn) visit(std::size_t{index_by_row_[offset]}, posting);
    }
    return;
  }
  if (!rows_ascending_) {
    for (const index::Bm25Posting& posting : postings) {
      if (const auto at = IndexOf(static_cast<std::int64_t>(posting.doc))) visit(*at, posting);
    }
    return;
  }
  std::size_t at = 0;  // every row before it is below the current posting's doc
  for (const index::Bm25Posting& posting : postings) {
    const auto row = static_cast<std::int64_t>(posting.doc);
    // Gallop: double the step until a row at or past `row`, then search inside the last step.
    std::size_t step = 1;
    while (at + step < rows_.size() && rows_[at + step] < row) step *= 2;
    const auto first = rows_.begin() + static_cast<std::ptrdiff_t>(at + step / 2);
    const auto last =
        rows_.begin() + static_cast<std::ptrdiff_t>(std::min(at + step + 1, rows_.size()));
    at = static_cast<std::size_t>(std::lower_bound(first, last, row) - rows_.begin());
    if (at == rows_.size()) return;
    if (rows_[at] == row) visit(at, posting);
  }
}

struct UnitTermScore {
  std::string term;
  std::uint32_t term_frequency = 0;
  double contribution = 0;
};

struct UnitScore {
  double score = 0;
  std::vector<UnitTermScore> terms;  // matched terms, in query order
};

// Soft term matches (SoftTF-IDF, Cohen et al. 2003; KeyMem Path C): an index term that is not a
// query term but close to one counts as that query term, its BM25 contribution (with its own
// statistics) scaled by the similarity. Close: Jaro–Winkler (text/similarity.h) at least
// `threshold`, both terms at least `min_length` bytes, same first byte, lengths within 2; the
// `per_term` closest per query term (ties: the smaller term), for the first `max_query_terms`
// distinct query terms (each costs a pass over the vocabulary).
// Soft matches found by other means (word vectors, read/word_neighbours.h) join them: each
// `neighbours` entry counts as its query term, scaled by its similarity, after the Jaro–Winkler
// matches of that term and unless it is one already; `threshold` 0 turns Jaro–Winkler off.
struct SoftNeighbour {
  std::string query_term;
  std::string term;  // an index term
  double similarity = 0;

  friend bool operator==(const SoftNeighbour&, const SoftNeighbour&) = default;
};
struct SoftMatch {
  double threshold = 0.92;
  std::size_t min_length = 5;
  std::size_t per_term = 2;
  std::size_t max_query_terms = 32;
  std::vector<SoftNeighbour> neighbours;

  friend bool operator==(const SoftMatch&, const SoftMatch&) = default;
};

class TermMatrix;

// Which terms of a TermMatrix a grouping scores: all of them, or the query's own terms only (the
// soft matches skipped; the scores, to the last bit, of a matrix built without soft matches,
// since the soft matches come after the exact terms and a unit adds its contributions in term
// order).
enum class TermSet { kAll, kExact };

// A unit with its score, as the grouping scores of TermMatrix return them.
struct ScoredUnit {
  Unit unit;
  double score = 0;
};

// The scores of one grouping of a TermMatrix (each turn, each session, the windows): the units
// holding a query term, ordered by unit (the others score 0), with the grouping's term weights, so
// that a unit's matched terms are worked out only for the units a route explains. Refers to its
// TermMatrix, which must outlive it.
class GroupingScores {
 public:
  const std::vector<ScoredUnit>& units() const { return units_; }
  // The scored unit beginning at turn `begin`, or nullptr (it holds no query term). O(log units).
  const ScoredUnit* Find(std::size_t begin) const;
  // The score of the unit beginning at `begin`, 0 when it holds no query term.
  double ScoreOf(std::size_t begin) const {
    const ScoredUnit* found = Find(begin);
    return found == nullptr ? 0.0 : found->score;
  }
  // `unit`'s score with its matched terms, in query order (what ExplainUnit prints): the same
  // contributions, added in the same order, as the score in units(). Cost: terms x
  // log(postings).
  UnitScore Explain(const Unit& unit) const;
  // The grouping's BM25 weight of the matrix's term `term_idx` (TermMatrix::terms order);
  // nullopt when no unit of the grouping holds it, or the grouping left its term set out.
  const std::optional<index::Bm25TermWeight>& weight(std::size_t term_idx) const {
    return weights_[term_idx];
  }

 private:
  friend class TermMatrix;
  const TermMatrix* matrix_ = nullptr;
  // Per term of the matrix, its BM25 weight in the grouping; nullopt when no unit holds it.
  std::vector<std::optional<index::Bm25TermWeight>> weights_;
  std::vector<ScoredUnit> units_;
};

class TermMatrix {
 public:
  // A turn holding the term, with its term frequency there.
  struct Posting {
    std::uint32_t turn = 0;  // layout index (8 bytes a posting: the common terms' lists are long)
    std::uint32_t term_frequency = 0;
  };
  struct Term {
    std::string term;  // as explained: the index term, or "query~index" for a soft match
    std::uint32_t query_count = 0;
    double scale = 1.0;             // a soft match's similarity
    std::vector<Posting> postings;  // by turn, ascending; never empty
  };

  // `soft`: add soft matches (nullptr: exact terms only).
  TermMatrix(const TurnLayout& layout, std::span<const index::Bm25Index* const> indexes,
             std::span<const std::string> query_terms, const SoftMatch* soft = nullptr);

  // BM25 of every unit with collection statistics over `units` (N = units, avgdl = mean unit
  // length, df = units holding the term). Units need not cover the layout. Cost: units × terms ×
  // log(postings).
  std::vector<UnitScore> Score(std::span<const Unit> units, const Bm25Config& config) const;

  // The groupings the routes score, each unit of the grouping that holds a term with its score
  // (the others score 0), ordered by unit; the same scores as Score() over all of the grouping's
  // units, at a cost that follows the terms' postings (the grouping's N and total length come
  // from the layout): per posting, a visit of each unit holding its turn and a merge step, no
  // sort and no allocation per unit.
  // Each turn as its own unit.
  GroupingScores ScoreTurns(const Bm25Config& config, TermSet set = TermSet::kAll) const;
  // ScoreTurns over TermSet::kAll and over TermSet::kExact, the same scores to the last bit, in
  // one pass: {all, exact}.
  std::pair<GroupingScores, GroupingScores> ScoreTurnsOfBothSets(const Bm25Config& config) const;
  // Each session as one unit.
  GroupingScores ScoreSessions(const Bm25Config& config, TermSet set = TermSet::kAll) const;
  // The windows of `window` consecutive turns inside each session (a session of at most `window`
  // turns is one unit).
  GroupingScores ScoreWindows(std::size_t window, const Bm25Config& config,
                              TermSet set = TermSet::kAll) const;
  // No term of `set` occurs in the layout.
  bool empty(TermSet set = TermSet::kAll) const {
    return set == TermSet::kAll ? terms_.empty() : exact_terms_ == 0;
  }
  // Some soft match occurs in the layout (the two term sets differ).
  bool has_soft_terms() const { return exact_terms_ < terms_.size(); }
  // The terms of `set` that occur in the layout: the query's own terms in query order, then (for
  // TermSet::kAll) the soft matches. A unit adds its terms' contributions in this order.
  std::span<const Term> terms(TermSet set = TermSet::kAll) const {
    return {terms_.data(), set == TermSet::kAll ? terms_.size() : exact_terms_};
  }
  const TurnLayout& layout() const { return *layout_; }
  // The weights ScoreWindows(window, config, set) scores with, without scoring any window: its
  // units() are empty, Explain works. Each term's document frequency (the windows holding it) is
  // counted over its postings in O(1) each, with no visit of a window.
  GroupingScores WindowWeights(std::size_t window, const Bm25Config& config,
                               TermSet set = TermSet::kAll) const;

 private:
  // BM25 of the units holding a posting, over a grouping of `unit_count` units of
  // `total_length` terms in all; `units_of_turn(turn, visit)` calls visit(unit) for each unit of
  // the grouping that holds the turn (defined in turn_layout.cc, its only user).
  template <typename UnitsOfTurn>
  GroupingScores ScoreSparse(std::size_t unit_count, std::uint64_t total_length,
                             const UnitsOfTurn& units_of_turn, const Bm25Config& config,
                             TermSet set) const;

  // The same for a grouping whose units partition the turns (each turn, each session):
  // `unit_of_turn(turn)` is the unit holding the turn. One merge of the postings. With `exact`,
  // the same grouping over TermSet::kExact goes there too (`set` is then kAll).
  template <typename UnitOfTurn>
  GroupingScores ScorePartition(std::size_t unit_count, std::uint64_t total_length,
                                const UnitOfTurn& unit_of_turn, const Bm25Config& config,
                                TermSet set, GroupingScores* exact = nullptr) const;

  // The summed term frequency of `term` over the turns of `unit`. O(log postings).
  static std::uint32_t FrequencyIn(const Term& term, const Unit& unit);
  friend class GroupingScores;  // Explain reads the terms, their postings and the layout

  const TurnLayout* layout_;
  std::vector<Term> terms_;
  std::size_t exact_terms_ = 0;  // terms_[0, exact_terms_) are query terms, the rest soft matches
};

// One recall's query terms over its layout, shared by the routes that score them (fragment,
// session, temporal): the TermMatrix is built once, on first use, and the per-turn scores once
// per term set, instead of once per route. A route that asks for soft matches gets a matrix
// with them; one that does not scores the same matrix's exact terms (TermSet::kExact). A matrix
// with other soft-match settings than the first one asked is built beside it (never in one
// recall of the default routes). Thread-safe; the layout, indexes and terms must outlive it.
class RecallTerms {
 public:
  RecallTerms(const TurnLayout& layout, std::span<const index::Bm25Index* const> indexes,
              std::span<const std::string> query_terms, const Bm25Config& config);
  RecallTerms(const RecallTerms&) = delete;
  RecallTerms& operator=(const RecallTerms&) = delete;

  // The matrix of the query terms, with the soft matches of `soft` (nullptr: any matrix, whose
  // groupings the caller scores over TermSet::kExact).
  const TermMatrix& Matrix(const SoftMatch* soft);
  // Each turn as a unit (TermMatrix::ScoreTurns) over the query terms, and the soft matches of
  // `soft` unless it is nullptr; computed once per distinct result.
  const GroupingScores& Turns(const SoftMatch* soft);

 private:
  struct Entry {
    std::optional<SoftMatch> soft;  // the settings the matrix was built with
    TermMatrix matrix;
    std::array<std::optional<GroupingScores>, 2> turns;  // by TermSet
  };
  Entry& EntryFor(const SoftMatch* soft);  // under mutex_

  const TurnLayout* layout_;
  std::span<const index::Bm25Index* const> indexes_;
  std::span<const std::string> query_terms_;
  Bm25Config config_;
  std::mutex mutex_;
  std::vector<std::unique_ptr<Entry>> entries_;  // stable addresses: callers keep references
};

// "bm25 5.21 = lisbon(tf 2, 3.10) + moved(tf 1, 2.11)".
std::string ExplainUnit(const UnitScore& score);

}  // namespace engram::read

#endif  // ENGRAM_READ_TURN_LAYOUT_H_
