// TurnLayout: the turns of the searched scopes in conversation order, grouped into sessions, so
// the read path can reason about neighbours, windows (fragments) and sessions. The engine keeps
// one per loaded scope as a projection that follows the store's journal (Append), so a recall
// reads no turn from the store to lay out its scope; Load builds one from the store directly
// (turn nodes only: every store has them, whatever the write path derived).
//
// Sessions are maximal runs of consecutive turns (by sequence, within one scope) that share a
// session id; turns without a session id form runs of their own the same way.
//
// TermMatrix: the term frequencies of a query's terms in every turn of a layout, read from the
// BM25 projections' posting lists, so that any grouping of consecutive turns (a window, a
// session) can be scored as one BM25 document ("unit"): its term frequencies and length are the
// sums over its turns, and N, avgdl and df are counted over the units of the grouping.
#ifndef ENGRAM_READ_TURN_LAYOUT_H_
#define ENGRAM_READ_TURN_LAYOUT_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "engram/config.h"
#include "engram/status.h"
#include "engram/types.h"
#include "index/bm25/bm25_index.h"
#include "store/store.h"

namespace engram::read {

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

class TurnLayout {
 public:
  // Turns of `scope_ids` (every status: the visibility filter decides later), ordered by scope id
  // (as given) then sequence.
  static StatusOr<TurnLayout> Load(store::Store& store, std::span<const std::int64_t> scope_ids);
  // For tests: turns given in conversation order.
  static TurnLayout FromTurns(std::vector<LayoutTurn> turns);
  // The layout entry of a stored turn.
  static LayoutTurn TurnOf(const store::NodeRecord& node);
  // The layouts one after the other (scopes in the order given), as Load would lay them out.
  static TurnLayout Concat(std::span<const TurnLayout* const> parts);

  // Adds a turn after the last one (the next turn of the same scope in sequence order, or the
  // first of another scope), extending the last session when it continues it.
  void Append(LayoutTurn turn);
  // Same turns, in the same order, with the same fields (the projection's rebuild check).
  bool SameContent(const TurnLayout& other) const;

  const std::vector<LayoutTurn>& turns() const { return turns_; }
  const std::vector<LayoutSession>& sessions() const { return sessions_; }
  // Index of the turn with this store row, or nullopt when it is no turn of the layout.
  std::optional<std::size_t> IndexOf(std::int64_t row) const;
  // Distinct speakers, sorted.
  const std::vector<std::string>& Speakers() const { return speakers_; }

 private:
  void Group();

  std::vector<LayoutTurn> turns_;
  std::vector<LayoutSession> sessions_;
  std::unordered_map<std::int64_t, std::size_t> index_of_row_;  // lookups only, never iterated
  std::vector<std::string> speakers_;                           // distinct, sorted
};

// A unit: the consecutive turns [begin, end) of a layout scored as one document.
struct Unit {
  std::size_t begin = 0;
  std::size_t end = 0;
};

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
struct SoftMatch {
  double threshold = 0.92;
  std::size_t min_length = 5;
  std::size_t per_term = 2;
  std::size_t max_query_terms = 32;
};

class TermMatrix {
 public:
  // `soft`: add soft matches (nullptr: exact terms only).
  TermMatrix(const TurnLayout& layout, std::span<const index::Bm25Index* const> indexes,
             std::span<const std::string> query_terms, const SoftMatch* soft = nullptr);

  // BM25 of every unit with collection statistics over `units` (N = units, avgdl = mean unit
  // length, df = units holding the term). Units need not cover the layout.
  std::vector<UnitScore> Score(std::span<const Unit> units, const Bm25Config& config) const;
  // Like Score(), each turn as its own unit.
  std::vector<UnitScore> ScoreTurns(const Bm25Config& config) const;
  bool empty() const { return terms_.empty(); }

 private:
  struct Term {
    std::string term;  // as explained: the index term, or "query~index" for a soft match
    std::uint32_t query_count = 0;
    double scale = 1.0;                    // a soft match's similarity
    std::vector<std::uint32_t> prefix_tf;  // prefix sums over the layout's turns (size n + 1)
  };
  std::vector<Term> terms_;
  std::vector<std::uint64_t> prefix_length_;  // prefix sums of turn lengths (size n + 1)
  std::size_t turn_count_ = 0;
};

// "bm25 5.21 = lisbon(tf 2, 3.10) + moved(tf 1, 2.11)".
std::string ExplainUnit(const UnitScore& score);

}  // namespace engram::read

#endif  // ENGRAM_READ_TURN_LAYOUT_H_
