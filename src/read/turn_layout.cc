// Turn layout and unit scoring (see turn_layout.h).
#include "read/turn_layout.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>

#include "index/bm25/bm25.h"
#include "text/similarity.h"
#include "text/temporal.h"

namespace engram::read {

float QuestionShare(std::string_view text) {
  std::size_t words = 0;
  std::size_t asking = 0;
  std::size_t sentence_words = 0;
  bool in_word = false;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    const bool word_byte = std::isalnum(byte) || byte >= 0x80 || c == '\'';
    if (word_byte && !in_word) ++sentence_words;
    in_word = word_byte;
    if (c == '?' || c == '.' || c == '!' || c == '\n') {
      words += sentence_words;
      if (c == '?') asking += sentence_words;
      sentence_words = 0;
    }
  }
  words += sentence_words;  // an unterminated last sentence asks nothing
  return words == 0 ? 0.0f : static_cast<float>(asking) / static_cast<float>(words);
}

std::string AskingSentences(std::string_view text) {
  std::string asking;
  std::size_t begin = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c != '?' && c != '.' && c != '!' && c != '\n') continue;
    if (c == '?') {
      if (!asking.empty()) asking += ' ';
      asking.append(text.substr(begin, i + 1 - begin));
    }
    begin = i + 1;
  }
  return asking;
}

std::vector<MentionedTime> MentionedTimes(std::string_view text,
                                          const std::optional<Timestamp>& event_time) {
  std::vector<MentionedTime> times;
  for (text::TimeMention& mention :
       text::FindTimeExpressions(text, event_time.value_or(Timestamp{0}))) {
    if (mention.relative && !event_time) continue;
    if (!(mention.from < mention.to)) continue;
    times.push_back({mention.from, mention.to, std::move(mention.surface)});
  }
  return times;
}

std::vector<std::string> DocumentTerms(const text::Tokenizer& tokenizer,
                                       const store::NodeRecord& node) {
  std::vector<std::string> terms;
  if (!node.speaker.empty()) terms = tokenizer.Terms(node.speaker);
  std::vector<std::string> text_terms = tokenizer.Terms(node.text);
  terms.insert(terms.end(), std::make_move_iterator(text_terms.begin()),
               std::make_move_iterator(text_terms.end()));
  return terms;
}

StatusOr<TurnLayout> TurnLayout::Load(store::Store& store,
                                      std::span<const std::int64_t> scope_ids,
                                      const text::Tokenizer& tokenizer) {
  TurnLayout layout;
  store::NodeFilter filter;
  filter.kind = NodeKind::kTurn;
  filter.include_inactive = true;
  for (const std::int64_t scope_id : scope_ids) {
    ASSIGN_OR_RETURN(std::vector<store::NodeRecord> nodes, store.ListNodes(scope_id, filter));
    for (const store::NodeRecord& node : nodes) {
      const auto length = static_cast<std::uint32_t>(DocumentTerms(tokenizer, node).size());
      layout.turns_.push_back(TurnOf(node, length));
    }
  }
  layout.Group();
  return layout;
}

TurnLayout TurnLayout::FromTurns(std::vector<LayoutTurn> turns) {
  TurnLayout layout;
  layout.turns_ = std::move(turns);
  layout.Group();
  return layout;
}

LayoutTurn TurnLayout::TurnOf(const store::NodeRecord& node, std::uint32_t length) {
  LayoutTurn turn;
  turn.row = node.row;
  turn.scope_id = node.scope_id;
  turn.sequence = node.sequence;
  turn.session_id = node.session_id;
  turn.speaker = node.speaker;
  turn.role = node.role;
  turn.question_share = QuestionShare(node.text);
  if (turn.question_share > 0) turn.asking_text = node.text;
  turn.event_time = node.event_time;
  turn.mentioned_times = MentionedTimes(node.text, node.event_time);
  turn.length = length;
  return turn;
}

TurnLayout TurnLayout::Concat(std::span<const TurnLayout* const> parts) {
  TurnLayout layout;
  std::size_t total = 0;
  for (const TurnLayout* part : parts) total += part->turns_.size();
  layout.turns_.reserve(total);
  for (const TurnLayout* part : parts) {
    layout.turns_.insert(layout.turns_.end(), part->turns_.begin(), part->turns_.end());
  }
  layout.Group();
  return layout;
}

void TurnLayout::Append(LayoutTurn turn) {
  const std::size_t turn_idx = turns_.size();
  const bool continues = turn_idx > 0 && turns_.back().scope_id == turn.scope_id &&
                         turns_.back().session_id == turn.session_id;
  if (!continues) sessions_.push_back({turn_idx, turn_idx, turn.session_id});
  sessions_.back().end = turn_idx + 1;
  turn.session = sessions_.size() - 1;
  session_of_.push_back(static_cast<std::uint32_t>(turn.session));
  rows_ascending_ = rows_ascending_ && (rows_.empty() || rows_.back() < turn.row);
  if (dense_rows_) {
    if (rows_.empty()) first_row_ = turn.row;
    const std::int64_t offset = turn.row - first_row_;
    // Rows ascend; the array stays within 4 entries a turn (and small layouts may be sparse).
    const bool fits = rows_ascending_ && turn_idx < kNoTurn &&
                      offset < 4 * static_cast<std::int64_t>(turn_idx + 1) + 1024;
    if (fits) {
      index_by_row_.resize(static_cast<std::size_t>(offset) + 1, kNoTurn);
      index_by_row_[static_cast<std::size_t>(offset)] = static_cast<std::uint32_t>(turn_idx);
    } else {
      // From now on rows map through the hash map, which then takes the turns so far.
      dense_rows_ = false;
      index_by_row_ = {};
      index_of_row_.reserve(turns_.capacity());
      for (std::size_t i = 0; i < rows_.size(); ++i) index_of_row_.emplace(rows_[i], i);
    }
  }
  if (!dense_rows_) index_of_row_.emplace(turn.row, turn_idx);
  rows_.push_back(turn.row);
  if (!turn.speaker.empty()) {
    auto at = std::lower_bound(speakers_.begin(), speakers_.end(), turn.speaker);
    if (at == speakers_.end() || *at != turn.speaker) speakers_.insert(at, turn.speaker);
  }
  prefix_length_.push_back(prefix_length_.back() + turn.length);
  prefix_prefix_.push_back(prefix_prefix_.back() + prefix_length_.back());
  if (turn.event_time) {
    // Turns mostly arrive in time order: the insertion point is then the end.
    const std::pair<std::int64_t, std::size_t> key{turn.event_time->micros, turn_idx};
    by_time_.insert(std::upper_bound(by_time_.begin(), by_time_.end(), key), key);
  }
  for (std::size_t mention = 0; mention < turn.mentioned_times.size(); ++mention) {
    const MentionedTime& time = turn.mentioned_times[mention];
    max_mention_length_ = std::max(max_mention_length_, time.to.micros - time.from.micros);
    mention_tail_.push_back({time.from.micros, turn_idx, mention});
  }
  const auto tail_limit = std::max<std::size_t>(
      64, static_cast<std::size_t>(std::sqrt(static_cast<double>(by_mention_.size()))));
  if (mention_tail_.size() > tail_limit) {
    std::sort(mention_tail_.begin(), mention_tail_.end());
    const auto middle = static_cast<std::ptrdiff_t>(by_mention_.size());
    by_mention_.insert(by_mention_.end(), mention_tail_.begin(), mention_tail_.end());
    std::inplace_merge(by_mention_.begin(), by_mention_.begin() + middle, by_mention_.end());
    mention_tail_.clear();
  }
  ++role_turns_[static_cast<std::size_t>(turn.role)];
  turns_.push_back(std::move(turn));
}

std::uint64_t TurnLayout::WindowLengthSum(std::size_t window) const {
  std::uint64_t total = 0;
  for (const LayoutSession& session : sessions_) {
    if (session.end - session.begin <= window) {
      total += LengthOf(session.begin, session.end);
      continue;
    }
    // Sum over b in [begin, end - window] of prefix_length_[b + window] - prefix_length_[b].
    const std::size_t last = session.end - window;
    total += (prefix_prefix_[session.end + 1] - prefix_prefix_[session.begin + window]) -
             (prefix_prefix_[last + 1] - prefix_prefix_[session.begin]);
  }
  return total;
}

std::size_t TurnLayout::WindowCount(std::size_t window) const {
  std::size_t count = 0;
  for (const LayoutSession& session : sessions_) {
    const std::size_t size = session.end - session.begin;
    count += size <= window ? 1 : size - window + 1;
  }
  return count;
}

std::vector<std::size_t> TurnLayout::TurnsBetween(Timestamp from, Timestamp to) const {
  std::vector<std::size_t> found;
  if (!(from < to)) return found;
  auto at = std::lower_bound(by_time_.begin(), by_time_.end(),
                             std::pair<std::int64_t, std::size_t>{from.micros, 0});
  for (; at != by_time_.end() && at->first < to.micros; ++at) found.push_back(at->second);
  std::sort(found.begin(), found.end());
  return found;
}

std::vector<TurnLayout::MentionRef> TurnLayout::MentionsOverlapping(Timestamp from,
                                                                    Timestamp to) const {
  std::vector<MentionRef> found;
  if (!(from < to)) return found;
  // A named time lasting at most min(window, longest) that overlaps the window starts after
  // from - that length. (Unsigned: to - from of an unbounded window does not fit an int64.)
  const std::uint64_t span =
      static_cast<std::uint64_t>(to.micros) - static_cast<std::uint64_t>(from.micros);
  const auto reach =
      static_cast<std::int64_t>(std::min(span, static_cast<std::uint64_t>(max_mention_length_)));
  const std::int64_t earliest = from.micros >= std::numeric_limits<std::int64_t>::min() + reach
                                    ? from.micros - reach
                                    : std::numeric_limits<std::int64_t>::min();
  const auto take = [&](const MentionKey& key) {
    const MentionedTime& time = turns_[key.turn].mentioned_times[key.mention];
    if (time.from.micros < to.micros && from.micros < time.to.micros &&
        static_cast<std::uint64_t>(time.to.micros - time.from.micros) <= span) {
      found.push_back({key.turn, key.mention});
    }
  };
  for (auto at =
           std::lower_bound(by_mention_.begin(), by_mention_.end(), MentionKey{earliest, 0, 0});
       at != by_mention_.end() && at->from < to.micros; ++at) {
    take(*at);
  }
  for (const MentionKey& key : mention_tail_) take(key);
  std::sort(found.begin(), found.end(), [](const MentionRef& a, const MentionRef& b) {
    return a.turn != b.turn ? a.turn < b.turn : a.mention < b.mention;
  });
  return found;
}

bool TurnLayout::SameContent(const TurnLayout& other) const {
  if (turns_.size() != other.turns_.size() || sessions_.size() != other.sessions_.size()) {
    return false;
  }
  for (std::size_t turn_idx = 0; turn_idx < turns_.size(); ++turn_idx) {
    const LayoutTurn& a = turns_[turn_idx];
    const LayoutTurn& b = other.turns_[turn_idx];
    if (a.row != b.row || a.scope_id != b.scope_id || a.sequence != b.sequence ||
        a.session_id != b.session_id || a.speaker != b.speaker || a.role != b.role ||
        a.question_share != b.question_share || a.asking_text != b.asking_text ||
        a.event_time != b.event_time || a.mentioned_times != b.mentioned_times ||
        a.length != b.length || a.session != b.session) {
      return false;
    }
  }
  return speakers_ == other.speakers_;
}

void TurnLayout::Group() {
  std::vector<LayoutTurn> turns = std::move(turns_);
  turns_.clear();
  sessions_.clear();
  index_of_row_.clear();
  rows_.clear();
  session_of_.clear();
  rows_ascending_ = true;
  dense_rows_ = true;
  first_row_ = 0;
  index_by_row_.clear();
  speakers_.clear();
  prefix_length_ = {0};
  prefix_prefix_ = {0, 0};
  by_time_.clear();
  by_mention_.clear();
  mention_tail_.clear();
  max_mention_length_ = 0;
  role_turns_ = {};
  turns_.reserve(turns.size());
  rows_.reserve(turns.size());
  session_of_.reserve(turns.size());
  for (LayoutTurn& turn : turns) Append(std::move(turn));
}

std::optional<std::size_t> TurnLayout::IndexOf(std::int64_t row) const {
  if (dense_rows_) {
    if (row < first_row_ || row - first_row_ >= static_cast<std::int64_t>(index_by_row_.size())) {
      return std::nullopt;
    }
    const std::uint32_t found = index_by_row_[static_cast<std::size_t>(row - first_row_)];
    if (found == kNoTurn) return std::nullopt;
    return std::size_t{found};
  }
  const auto found = index_of_row_.find(row);
  if (found == index_of_row_.end()) return std::nullopt;
  return found->second;
}


const ScoredUnit* GroupingScores::Find(std::size_t begin) const {
  const auto at = std::lower_bound(
      units_.begin(), units_.end(), begin,
      [](const ScoredUnit& unit, std::size_t value) { return unit.unit.begin < value; });
  return at != units_.end() && at->unit.begin == begin ? &*at : nullptr;
}

UnitScore GroupingScores::Explain(const Unit& unit) const {
  UnitScore score;
  const auto length = static_cast<std::uint32_t>(matrix_->layout_->LengthOf(unit.begin, unit.end));
  for (std::size_t term_idx = 0; term_idx < weights_.size(); ++term_idx) {
    if (!weights_[term_idx]) continue;
    const TermMatrix::Term& term = matrix_->terms_[term_idx];
    const std::uint32_t tf = TermMatrix::FrequencyIn(term, unit);
    if (tf == 0) continue;
    const double contribution = term.scale * weights_[term_idx]->Score(tf, length);
    score.score += contribution;
    score.terms.push_back({term.term, tf, contribution});
  }
  return score;
}

std::uint32_t TermMatrix::FrequencyIn(const Term& term, const Unit& unit) {
  auto at = std::lower_bound(
      term.postings.begin(), term.postings.end(), unit.begin,
      [](const Posting& posting, std::size_t turn) { return posting.turn < turn; });
  std::uint32_t tf = 0;
  for (; at != term.postings.end() && at->turn < unit.end; ++at) tf += at->term_frequency;
  return tf;
}

TermMatrix::TermMatrix(const TurnLayout& layout, std::span<const index::Bm25Index* const> indexes,
                       std::span<const std::string> query_terms, const SoftMatch* soft)
    : layout_(&layout) {
  // The layout turns holding `term` in `indexes`, by turn; empty when none does.
  std::size_t index_count = 0;
  for (const index::Bm25Index* index : indexes) index_count += index != nullptr ? 1 : 0;
  const auto postings = [&](std::string_view term) {
    std::vector<Posting> found;
    std::size_t most = 0;  // the postings there can be: sized once
    for (const index::Bm25Index* index : indexes) {
      if (index != nullptr) most += index->Postings(term).size();
    }
    found.reserve(std::min(most, layout.turns().size()));
    for (const index::Bm25Index* index : indexes) {
      if (index == nullptr) continue;
      layout.ForEachTurnOf(index->Postings(term),
                           [&found](std::size_t turn, const index::Bm25Posting& posting) {
                             found.push_back(
                                 {static_cast<std::uint32_t>(turn), posting.term_frequency});
                           });
    }
    // Postings come by store row: with one index over a layout whose rows ascend they come by
    // turn; otherwise the layout's turns mostly are in row order too.
    if (index_count > 1 || !layout.rows_ascending()) {
      const auto by_turn = [](const Posting& a, const Posting& b) { return a.turn < b.turn; };
      if (!std::is_sorted(found.begin(), found.end(), by_turn)) {
        std::sort(found.begin(), found.end(), by_turn);
      }
    }
    return found;
  };
  const auto add = [&](std::string name, std::uint32_t query_count, double scale,
                       std::vector<Posting> found) {
    terms_.push_back({std::move(name), query_count, scale, std::move(found)});
  };
  std::vector<std::pair<std::string, std::uint32_t>> unique;  // query term, count
  for (const std::string& query_term : query_terms) {
    auto existing = std::find_if(unique.begin(), unique.end(),
                                 [&](const auto& entry) { return entry.first == query_term; });
    if (existing != unique.end()) {
      ++existing->second;
    } else {
      unique.emplace_back(query_term, 1);
    }
  }
  for (const auto& [query_term, count] : unique) {
    std::vector<Posting> found = postings(query_term);
    if (!found.empty()) add(query_term, count, 1.0, std::move(found));
  }
  exact_terms_ = terms_.size();
  if (soft == nullptr) return;
  // The `per_term` index terms closest to `query_term` by Jaro–Winkler.
  const auto add_jaro_winkler = [&](const std::string& query_term, std::uint32_t count) {
    std::vector<std::pair<double, std::string>> close;  // similarity, index term
    for (const index::Bm25Index* index : indexes) {
      if (index == nullptr) continue;
      index->ForEachTerm([&](std::string_view term) {
        if (term.size() < soft->min_length || term.front() != query_term.front() ||
            term.size() + 2 < query_term.size() || query_term.size() + 2 < term.size()) {
          return;
        }
        if (std::any_of(unique.begin(), unique.end(),
                        [&](const auto& entry) { return entry.first == term; })) {
          return;
        }
        const double similarity = text::JaroWinkler(query_term, term);
        if (similarity < soft->threshold) return;
        if (std::none_of(close.begin(), close.end(),
                         [&](const auto& entry) { return entry.second == term; })) {
          close.emplace_back(similarity, std::string(term));
        }
      });
    }
    std::sort(close.begin(), close.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    std::size_t taken = 0;
    for (const auto& [similarity, term] : close) {
      if (taken >= soft->per_term) break;
      std::vector<Posting> found = postings(term);
      if (found.empty()) continue;
      add(query_term + "~" + term, count, similarity, std::move(found));
      ++taken;
    }
  };
  for (std::size_t q = 0; q < unique.size() && q < soft->max_query_terms; ++q) {
    const auto& [query_term, count] = unique[q];
    if (soft->threshold > 0 && soft->per_term > 0 && query_term.size() >= soft->min_length) {
      add_jaro_winkler(query_term, count);
    }
    for (const SoftNeighbour& neighbour : soft->neighbours) {
      if (neighbour.query_term != query_term) continue;
      const std::string name = query_term + "~" + neighbour.term;
      if (std::any_of(terms_.begin(), terms_.end(),
                      [&](const Term& term) { return term.term == name; })) {
        continue;
      }
      std::vector<Posting> found = postings(neighbour.term);
      if (!found.empty()) add(name, count, neighbour.similarity, std::move(found));
    }
  }
}

std::vector<UnitScore> TermMatrix::Score(std::span<const Unit> units,
                                         const Bm25Config& config) const {
  std::vector<UnitScore> scores(units.size());
  if (units.empty() || terms_.empty()) return scores;
  std::uint64_t total_length = 0;
  for (const Unit& unit : units) total_length += layout_->LengthOf(unit.begin, unit.end);
  const double average_length =
      static_cast<double>(total_length) / static_cast<double>(units.size());
  std::vector<std::uint32_t> tf(units.size());
  for (const Term& term : terms_) {
    std::uint64_t df = 0;
    for (std::size_t u = 0; u < units.size(); ++u) {
      tf[u] = FrequencyIn(term, units[u]);
      if (tf[u] != 0) ++df;
    }
    if (df == 0) continue;
    const index::Bm25TermWeight weight(index::Bm25Idf(units.size(), df), term.query_count,
                                       average_length, config);
    for (std::size_t u = 0; u < units.size(); ++u) {
      if (tf[u] == 0) continue;
      const auto length =
          static_cast<std::uint32_t>(layout_->LengthOf(units[u].begin, units[u].end));
      const double contribution = term.scale * weight.Score(tf[u], length);
      scores[u].score += contribution;
      scores[u].terms.push_back({term.term, tf[u], contribution});
    }
  }
  return scores;
}

template <typename UnitsOfTurn>
GroupingScores TermMatrix::ScoreSparse(std::size_t unit_count, std::uint64_t total_length,
                                       const UnitsOfTurn& units_of_turn,
                                       const Bm25Config& config, TermSet set) const {
  GroupingScores scores;
  scores.matrix_ = this;
  scores.weights_.resize(terms_.size());
  if (unit_count == 0 || terms_.empty()) return scores;
  const double average_length =
      static_cast<double>(total_length) / static_cast<double>(unit_count);
  struct Hit {
    Unit unit;
    std::uint32_t term_frequency = 0;
  };
  std::vector<Hit> hits;           // one term's units, by begin
  std::vector<ScoredUnit> merged;  // the units of the terms so far, by begin
  std::vector<ScoredUnit>& result = scores.units_;
  const std::size_t term_count = set == TermSet::kAll ? terms_.size() : exact_terms_;
  for (std::size_t term_idx = 0; term_idx < term_count; ++term_idx) {
    const Term& term = terms_[term_idx];
    // One hit per unit holding the term, its frequencies summed. The postings are by turn and
    // each turn's units come by begin, so a unit visited again is one of the last few hits
    // (the windows a turn shares with the turns before it): the hits stay sorted without a sort.
    hits.clear();
    for (const Posting& posting : term.postings) {
      units_of_turn(posting.turn, [&](Unit unit) {
        std::size_t at = hits.size();
        while (at > 0 && hits[at - 1].unit.begin > unit.begin) --at;
        if (at > 0 && hits[at - 1].unit.begin == unit.begin) {
          hits[at - 1].term_frequency += posting.term_frequency;
        } else {
          hits.insert(hits.begin() + static_cast<std::ptrdiff_t>(at),
                      Hit{unit, posting.term_frequency});
        }
      });
    }
    if (hits.empty()) continue;
    const index::Bm25TermWeight weight(index::Bm25Idf(unit_count, hits.size()), term.query_count,
                                       average_length, config);
    scores.weights_[term_idx] = weight;
    // Merge into the units so far; a unit's contributions are added in term order.
    merged.clear();
    merged.reserve(result.size() + hits.size());
    std::size_t kept = 0;
    for (const Hit& hit : hits) {
      while (kept < result.size() && result[kept].unit.begin < hit.unit.begin) {
        merged.push_back(result[kept++]);
      }
      const auto length =
          static_cast<std::uint32_t>(layout_->LengthOf(hit.unit.begin, hit.unit.end));
      const double contribution = term.scale * weight.Score(hit.term_frequency, length);
      if (kept < result.size() && result[kept].unit.begin == hit.unit.begin) {
        merged.push_back({hit.unit, result[kept++].score + contribution});
      } else {
        merged.push_back({hit.unit, contribution});
      }
    }
    merged.insert(merged.end(), result.begin() + static_cast<std::ptrdiff_t>(kept), result.end());
    result.swap(merged);
  }
  return scores;
}

template <typename UnitOfTurn>
GroupingScores TermMatrix::ScorePartition(std::size_t unit_count, std::uint64_t total_length,
                                          const UnitOfTurn& unit_of_turn,
                                          const Bm25Config& config, TermSet set,
                                          GroupingScores* exact) const {
  // One merge of the terms' postings, unit by unit: each unit's contributions are added in term
  // order as ScoreSparse adds them, without merging the scores so far once per term.
  GroupingScores scores;
  scores.matrix_ = this;
  scores.weights_.resize(terms_.size());
  if (exact != nullptr) {
    exact->matrix_ = this;
    exact->weights_.assign(terms_.size(), std::nullopt);
    exact->units_.clear();
  }
  if (unit_count == 0 || terms_.empty()) return scores;
  const double average_length =
      static_cast<double>(total_length) / static_cast<double>(unit_count);
  const std::span<const Term> set_terms = terms(set);
  const std::size_t turn_count = layout_->turns().size();
  std::vector<std::size_t> at(set_terms.size(), 0);  // each term's next posting
  std::size_t next = turn_count;  // the first turn of the next unit holding a posting
  std::size_t total_postings = 0;
  for (std::size_t term_idx = 0; term_idx < set_terms.size(); ++term_idx) {
    const std::vector<Posting>& postings = set_terms[term_idx].postings;
    std::uint64_t frequency = 0;  // units holding the term
    std::size_t counted_end = 0;  // the units before it are counted
    for (const Posting& posting : postings) {
      if (posting.turn < counted_end) continue;
      ++frequency;
      counted_end = unit_of_turn(posting.turn).end;
    }
    if (frequency == 0) continue;
    scores.weights_[term_idx] =
        index::Bm25TermWeight(index::Bm25Idf(unit_count, frequency),
                              set_terms[term_idx].query_count, average_length, config);
    next = std::min(next, unit_of_turn(postings.front().turn).begin);
    total_postings += postings.size();
  }
  std::vector<ScoredUnit>& result = scores.units_;
  result.reserve(std::min(total_postings, unit_count));  // the units holding a posting, at most
  // The query's own terms come first: a unit's score after them is its TermSet::kExact score,
  // the same additions in the same order.
  const std::size_t exact_count = exact == nullptr ? 0 : std::min(exact_terms_, set_terms.size());
  if (exact != nullptr) {
    std::copy(scores.weights_.begin(),
              scores.weights_.begin() + static_cast<std::ptrdiff_t>(exact_count),
              exact->weights_.begin());
    std::size_t exact_postings = 0;
    for (std::size_t term_idx = 0; term_idx < exact_count; ++term_idx) {
      exact_postings += set_terms[term_idx].postings.size();
    }
    exact->units_.reserve(std::min(exact_postings, unit_count));
  }
  while (next < turn_count) {
    const Unit unit = unit_of_turn(next);
    const auto length = static_cast<std::uint32_t>(layout_->LengthOf(unit.begin, unit.end));
    double score = 0;
    bool exact_hit = false;  // some query term of its own is in the unit
    std::size_t following = turn_count;
    for (std::size_t term_idx = 0; term_idx < set_terms.size(); ++term_idx) {
      if (term_idx == exact_count && exact_hit) exact->units_.push_back({unit, score});
      const std::vector<Posting>& postings = set_terms[term_idx].postings;
      std::size_t& cursor = at[term_idx];
      std::uint32_t tf = 0;
      while (cursor < postings.size() && postings[cursor].turn < unit.end) {
        tf += postings[cursor++].term_frequency;
      }
      if (cursor < postings.size()) {
        following = std::min<std::size_t>(following, postings[cursor].turn);
      }
      if (tf == 0) continue;
      exact_hit = exact_hit || term_idx < exact_count;
      const double contribution =
          set_terms[term_idx].scale * scores.weights_[term_idx]->Score(tf, length);
      score += contribution;
    }
    if (exact_count == set_terms.size() && exact_hit) exact->units_.push_back({unit, score});
    result.push_back({unit, score});
    next = following == turn_count ? turn_count : unit_of_turn(following).begin;
  }
  return scores;
}

GroupingScores TermMatrix::ScoreTurns(const Bm25Config& config, TermSet set) const {
  const std::size_t turn_count = layout_->turns().size();
  return ScorePartition(
      turn_count, layout_->LengthOf(0, turn_count),
      [](std::size_t turn) { return Unit{turn, turn + 1}; }, config, set);
}

std::pair<GroupingScores, GroupingScores> TermMatrix::ScoreTurnsOfBothSets(
    const Bm25Config& config) const {
  const std::size_t turn_count = layout_->turns().size();
  GroupingScores exact;
  GroupingScores all = ScorePartition(
      turn_count, layout_->LengthOf(0, turn_count),
      [](std::size_t turn) { return Unit{turn, turn + 1}; }, config, TermSet::kAll, &exact);
  return {std::move(all), std::move(exact)};
}

GroupingScores TermMatrix::ScoreSessions(const Bm25Config& config, TermSet set) const {
  const TurnLayout& layout = *layout_;
  return ScorePartition(
      layout.sessions().size(), layout.LengthOf(0, layout.turns().size()),
      [&layout](std::size_t turn) {
        const LayoutSession& session = layout.sessions()[layout.SessionOf(turn)];
        return Unit{session.begin, session.end};
      },
      config, set);
}

GroupingScores TermMatrix::ScoreWindows(std::size_t window, const Bm25Config& config,
                                        TermSet set) const {
  const TurnLayout& layout = *layout_;
  window = std::max<std::size_t>(1, window);
  return ScoreSparse(
      layout.WindowCount(window), layout.WindowLengthSum(window),
      [&layout, window](std::size_t turn, const auto& visit) {
        const auto [first, last] = layout.WindowBeginsOf(turn, window);
        for (std::size_t begin = first; begin <= last; ++begin) {
          visit(layout.WindowAt(begin, window));
        }
      },
      config, set);
}

GroupingScores TermMatrix::WindowWeights(std::size_t window, const Bm25Config& config,
                                         TermSet set) const {
  const TurnLayout& layout = *layout_;
  window = std::max<std::size_t>(1, window);
  GroupingScores scores;
  scores.matrix_ = this;
  scores.weights_.resize(terms_.size());
  const std::size_t unit_count = layout.WindowCount(window);
  if (unit_count == 0 || terms_.empty()) return scores;
  const double average_length = static_cast<double>(layout.WindowLengthSum(window)) /
                                static_cast<double>(unit_count);
  const std::span<const Term> set_terms = terms(set);
  for (std::size_t term_idx = 0; term_idx < set_terms.size(); ++term_idx) {
    const Term& term = set_terms[term_idx];
    // A posting's windows are a run of begins [first, last] (a short session: its one unit);
    // the runs of postings by turn ascend at both ends, so their union is counted run by run.
    std::uint64_t frequency = 0;   // windows holding the term
    std::size_t counted_end = 0;   // the begins below it are counted
    for (const Posting& posting : term.postings) {
      auto [first, last] = layout.WindowBeginsOf(posting.turn, window);
      first = std::max(first, counted_end);
      if (first > last) continue;
      frequency += last - first + 1;
      counted_end = last + 1;
    }
    scores.weights_[term_idx] = index::Bm25TermWeight(
        index::Bm25Idf(unit_count, frequency), term.query_count, average_length, config);
  }
  return scores;
}

RecallTerms::RecallTerms(const TurnLayout& layout,
                         std::span<const index::Bm25Index* const> indexes,
                         std::span<const std::string> query_terms, const Bm25Config& config)
    : layout_(&layout), indexes_(indexes), query_terms_(query_terms), config_(config) {}

RecallTerms::Entry& RecallTerms::EntryFor(const SoftMatch* soft) {
  for (const std::unique_ptr<Entry>& entry : entries_) {
    if (soft == nullptr || entry->soft == *soft) return *entry;
  }
  entries_.push_back(std::unique_ptr<Entry>(new Entry{
      soft == nullptr ? std::nullopt : std::optional<SoftMatch>(*soft),
      TermMatrix(*layout_, indexes_, query_terms_, soft),
      {}}));
  return *entries_.back();
}

const TermMatrix& RecallTerms::Matrix(const SoftMatch* soft) {
  const std::lock_guard<std::mutex> lock(mutex_);
  return EntryFor(soft).matrix;
}

const GroupingScores& RecallTerms::Turns(const SoftMatch* soft) {
  const std::lock_guard<std::mutex> lock(mutex_);
  Entry& entry = EntryFor(soft);
  // Without soft matches in the matrix the two term sets score alike: one computation.
  const TermSet set =
      soft != nullptr && entry.matrix.has_soft_terms() ? TermSet::kAll : TermSet::kExact;
  std::optional<GroupingScores>& turns = entry.turns[static_cast<std::size_t>(set)];
  if (turns) return *turns;
  if (entry.matrix.has_soft_terms()) {
    // The routes ask for both sets (the fragment route with its soft matches, the others
    // without): one pass gives both.
    auto [all, exact] = entry.matrix.ScoreTurnsOfBothSets(config_);
    entry.turns[static_cast<std::size_t>(TermSet::kAll)] = std::move(all);
    entry.turns[static_cast<std::size_t>(TermSet::kExact)] = std::move(exact);
  } else {
    turns = entry.matrix.ScoreTurns(config_, set);
  }
  return *turns;
}

std::string ExplainUnit(const UnitScore& score) {
  char buffer[96];
  std::snprintf(buffer, sizeof buffer, "bm25 %.2f =", score.score);
  std::string out = buffer;
  for (std::size_t i = 0; i < score.terms.size(); ++i) {
    std::snprintf(buffer, sizeof buffer, "(tf %u, %.2f)", score.terms[i].term_frequency,
                  score.terms[i].contribution);
    out += (i ? " + " : " ") + score.terms[i].term + buffer;
  }
  return out;
}

}  // namespace engram::read
