// Turn layout and unit scoring (see turn_layout.h).
#include "read/turn_layout.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

#include "index/bm25/bm25.h"
#include "text/similarity.h"

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

StatusOr<TurnLayout> TurnLayout::Load(store::Store& store,
                                      std::span<const std::int64_t> scope_ids) {
  TurnLayout layout;
  store::NodeFilter filter;
  filter.kind = NodeKind::kTurn;
  filter.include_inactive = true;
  for (const std::int64_t scope_id : scope_ids) {
    ASSIGN_OR_RETURN(std::vector<store::NodeRecord> nodes, store.ListNodes(scope_id, filter));
    for (const store::NodeRecord& node : nodes) layout.turns_.push_back(TurnOf(node));
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

LayoutTurn TurnLayout::TurnOf(const store::NodeRecord& node) {
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
  index_of_row_.emplace(turn.row, turn_idx);
  if (!turn.speaker.empty()) {
    auto at = std::lower_bound(speakers_.begin(), speakers_.end(), turn.speaker);
    if (at == speakers_.end() || *at != turn.speaker) speakers_.insert(at, turn.speaker);
  }
  turns_.push_back(std::move(turn));
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
        a.event_time != b.event_time || a.session != b.session) {
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
  speakers_.clear();
  turns_.reserve(turns.size());
  index_of_row_.reserve(turns.size());
  for (LayoutTurn& turn : turns) Append(std::move(turn));
}

std::optional<std::size_t> TurnLayout::IndexOf(std::int64_t row) const {
  const auto found = index_of_row_.find(row);
  if (found == index_of_row_.end()) return std::nullopt;
  return found->second;
}


TermMatrix::TermMatrix(const TurnLayout& layout, std::span<const index::Bm25Index* const> indexes,
                       std::span<const std::string> query_terms, const SoftMatch* soft)
    : turn_count_(layout.turns().size()) {
  const std::vector<LayoutTurn>& turns = layout.turns();
  prefix_length_.assign(turn_count_ + 1, 0);
  for (std::size_t i = 0; i < turn_count_; ++i) {
    std::uint32_t length = 0;
    for (const index::Bm25Index* index : indexes) {
      if (index == nullptr) continue;
      if (auto found = index->DocLength(static_cast<std::uint64_t>(turns[i].row))) {
        length = *found;
        break;
      }
    }
    prefix_length_[i + 1] = prefix_length_[i] + length;
  }
  // Per layout turn, the term frequencies of `term` in `indexes`; empty when no turn holds it.
  const auto frequencies = [&](std::string_view term) {
    std::vector<std::uint32_t> tf(turn_count_, 0);
    bool any = false;
    for (const index::Bm25Index* index : indexes) {
      if (index == nullptr) continue;
      for (const index::Bm25Posting& posting : index->Postings(term)) {
        if (auto at = layout.IndexOf(static_cast<std::int64_t>(posting.doc))) {
          tf[*at] = posting.term_frequency;
          any = true;
        }
      }
    }
    if (!any) tf.clear();
    return tf;
  };
  const auto add = [&](std::string name, std::uint32_t query_count, double scale,
                       const std::vector<std::uint32_t>& tf) {
    Term term;
    term.term = std::move(name);
    term.query_count = query_count;
    term.scale = scale;
    term.prefix_tf.assign(turn_count_ + 1, 0);
    for (std::size_t i = 0; i < turn_count_; ++i) term.prefix_tf[i + 1] = term.prefix_tf[i] + tf[i];
    terms_.push_back(std::move(term));
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
    const std::vector<std::uint32_t> tf = frequencies(query_term);
    if (!tf.empty()) add(query_term, count, 1.0, tf);
  }
  if (soft == nullptr || soft->per_term == 0) return;
  for (std::size_t q = 0; q < unique.size() && q < soft->max_query_terms; ++q) {
    const auto& [query_term, count] = unique[q];
    if (query_term.size() < soft->min_length) continue;
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
      const std::vector<std::uint32_t> tf = frequencies(term);
      if (tf.empty()) continue;
      add(query_term + "~" + term, count, similarity, tf);
      ++taken;
    }
  }
}

std::vector<UnitScore> TermMatrix::Score(std::span<const Unit> units,
                                         const Bm25Config& config) const {
  std::vector<UnitScore> scores(units.size());
  if (units.empty() || terms_.empty()) return scores;
  std::uint64_t total_length = 0;
  for (const Unit& unit : units)
    total_length += prefix_length_[unit.end] - prefix_length_[unit.begin];
  const double average_length =
      static_cast<double>(total_length) / static_cast<double>(units.size());
  for (const Term& term : terms_) {
    std::uint64_t df = 0;
    for (const Unit& unit : units) {
      if (term.prefix_tf[unit.end] != term.prefix_tf[unit.begin]) ++df;
    }
    if (df == 0) continue;
    const index::Bm25TermWeight weight(index::Bm25Idf(units.size(), df), term.query_count,
                                       average_length, config);
    for (std::size_t u = 0; u < units.size(); ++u) {
      const std::uint32_t tf = term.prefix_tf[units[u].end] - term.prefix_tf[units[u].begin];
      if (tf == 0) continue;
      const auto length =
          static_cast<std::uint32_t>(prefix_length_[units[u].end] - prefix_length_[units[u].begin]);
      const double contribution = term.scale * weight.Score(tf, length);
      scores[u].score += contribution;
      scores[u].terms.push_back({term.term, tf, contribution});
    }
  }
  return scores;
}

std::vector<UnitScore> TermMatrix::ScoreTurns(const Bm25Config& config) const {
  std::vector<Unit> units(turn_count_);
  for (std::size_t i = 0; i < turn_count_; ++i) units[i] = {i, i + 1};
  return Score(units, config);
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
