// Adjustments after fusion (see adjust.h).
#include "read/adjust.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <set>

#include "text/normalize.h"
#include "text/signals.h"

namespace engram::read {
namespace {

std::string Fixed(double value, int digits = 4) {
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, "%.*f", digits, value);
  return buffer;
}

// True when the turn after `index` in its session has the same role: a question between peers.
// A user's question to an assistant is a request that often carries the user's own facts ("can
// you suggest ...? By the way, I ..."), and the assistant's reply is advice, not evidence.
bool AddressedToPeer(const TurnLayout& layout, std::size_t index) {
  const auto& turns = layout.turns();
  const LayoutSession& session = layout.sessions()[turns[index].session];
  return index + 1 < session.end && turns[index + 1].role == turns[index].role;
}

// False when the date signal's interval (its value, "from/to": text/temporal.h FormatInterval)
// lies on the other side of `time` than `tense` asks for.
bool OnTheAskedSide(std::string_view value, Timestamp time, Tense tense) {
  if (tense == Tense::kUnknown) return true;
  const std::size_t slash = value.find('/');
  if (slash == std::string::npos) return true;
  const StatusOr<Timestamp> from = ParseTimestamp(value.substr(0, slash));
  const StatusOr<Timestamp> to = ParseTimestamp(value.substr(slash + 1));
  if (!from.ok() || !to.ok()) return true;
  return tense == Tense::kPast ? *from <= time : *to > time;
}

// Whether a signal of `kind` (its value, and for entities its confidence) answers `type`.
bool Answers(std::string_view kind, std::string_view value, double confidence, Timestamp time,
             AnswerType type, Tense tense) {
  switch (type) {
    case AnswerType::kTime:
      return kind == "time" || (kind == "date" && OnTheAskedSide(value, time, tense));
    case AnswerType::kNumber:
      return kind == "number" || kind == "quantity" || kind == "money" || kind == "percent";
    case AnswerType::kPlace:
      return kind == "place" && confidence >= 0.5;
    case AnswerType::kPerson:
      return kind == "person" && confidence >= 0.5;
    case AnswerType::kNone:
      break;
  }
  return false;
}

// The words of the names a question already gives (its own names, the conversation's speakers),
// normalised as the index normalises words: a person or place made only of them is not what the
// question asks for ("who did John go to yoga with?" is not answered by "Thanks, John!").
class GivenWords {
 public:
  explicit GivenWords(std::span<const std::string> names) {
    for (const std::string& name : names) {
      for (std::string& word : LowerWords(name)) words_.insert(std::move(word));
    }
  }
  bool Covers(std::string_view surface) const {
    if (words_.empty()) return false;
    const std::vector<std::string> words = LowerWords(surface);
    return !words.empty() && std::all_of(words.begin(), words.end(), [&](const std::string& word) {
      return words_.contains(word);
    });
  }

 private:
  // NormalizeForIndex (case folded, marks stripped), split at every ASCII character that is no
  // letter or digit: "Zoë's" -> zoe, s.
  static std::vector<std::string> LowerWords(std::string_view text) {
    std::vector<std::string> words;
    std::string word;
    for (const char c : text::NormalizeForIndex(text)) {
      const auto byte = static_cast<unsigned char>(c);
      if (std::isalnum(byte) != 0 || byte >= 0x80) {
        word.push_back(c);
      } else if (!word.empty()) {
        words.push_back(std::move(word));
        word.clear();
      }
    }
    if (!word.empty()) words.push_back(std::move(word));
    return words;
  }

  std::set<std::string> words_;
};

// The first thing of `type` the turn holds ("yesterday", "3 kids", "Paris"), or "": from its
// stored analysis when it has one, else detected in its text.
std::string AnswerEvidence(std::string_view text, Timestamp time, AnswerType type, Tense tense,
                           const store::TurnAnalysis* stored, const GivenWords& given) {
  if (stored != nullptr) {
    for (const store::AnalysedSignal& signal : stored->signals) {
      if (Answers(signal.kind, signal.value, signal.confidence, time, type, tense) &&
          !given.Covers(signal.Surface(text))) {
        return std::string(signal.Surface(text));
      }
    }
    return "";
  }
  text::SignalOptions options;
  options.detect_memory_acts = false;
  options.detect_entities = type == AnswerType::kPlace || type == AnswerType::kPerson;
  for (const text::Signal& signal : text::DetectSignals(text, time, options)) {
    if (Answers(text::SignalKindName(signal.kind), signal.value, signal.confidence, time, type,
                tense) &&
        !given.Covers(signal.surface)) {
      return signal.surface;
    }
  }
  return "";
}

}  // namespace

void SortRanked(std::vector<Ranked>& ranked) {
  std::stable_sort(ranked.begin(), ranked.end(), [](const Ranked& a, const Ranked& b) {
    if (a.score != b.score) return a.score > b.score;
    return a.fused.row < b.fused.row;
  });
}

void ApplyPersonBoost(std::vector<Ranked>& ranked, const TurnLayout& layout,
                      std::span<const std::string> asked_speakers, bool first_person, double boost,
                      double first_person_boost) {
  if (!asked_speakers.empty()) {
    if (boost == 1.0) return;
    for (Ranked& candidate : ranked) {
      const auto at = layout.IndexOf(candidate.fused.row);
      if (!at) continue;
      const std::string& speaker = layout.turns()[*at].speaker;
      if (std::find(asked_speakers.begin(), asked_speakers.end(), speaker) ==
          asked_speakers.end()) {
        continue;
      }
      candidate.score *= boost;
      candidate.adjustments.push_back(
          {"person", boost, "spoken by " + speaker + ", whom the question names", 0});
    }
    return;
  }
  // A first-person question is about the user asking: lift the user's turns, when the memory
  // also holds turns of other roles (an assistant's answers) to tell them apart from.
  if (!first_person || first_person_boost == 1.0) return;
  const bool has_other = layout.HasRole(Role::kAssistant) || layout.HasRole(Role::kSystem) ||
                         layout.HasRole(Role::kTool);
  if (!layout.HasRole(Role::kUser) || !has_other) return;
  for (Ranked& candidate : ranked) {
    const auto at = layout.IndexOf(candidate.fused.row);
    if (!at || layout.turns()[*at].role != Role::kUser) continue;
    candidate.score *= first_person_boost;
    candidate.adjustments.push_back({"person", first_person_boost,
                                     "said by the user, whom the first-person question is about",
                                     0});
  }
}

void ApplyAnswerability(std::vector<Ranked>& ranked, const TurnLayout& layout,
                        const RecallConfig& config, const text::Tokenizer* tokenizer,
                        std::span<const std::string> query_terms,
                        std::span<const index::Bm25Index* const> indexes) {
  if (config.question_penalty <= 0) return;
  const std::set<std::string, std::less<>> wanted(query_terms.begin(), query_terms.end());
  const auto matches = [&](std::string_view text) {
    std::size_t count = 0;
    for (const std::string& term : tokenizer->Terms(text)) count += wanted.contains(term);
    return count;
  };
  // The query terms' occurrences in the turn's text: its BM25 document's less its speaker's.
  std::map<std::string, std::size_t, std::less<>> in_speaker;  // by speaker
  const auto matches_in_text = [&](const LayoutTurn& turn) -> std::size_t {
    const auto row = static_cast<std::uint64_t>(turn.row);
    const auto holder = std::find_if(indexes.begin(), indexes.end(), [&](const auto* bm25) {
      return bm25 != nullptr && bm25->DocLength(row).has_value();
    });
    if (holder == indexes.end()) return matches(turn.asking_text);
    auto speaker = in_speaker.find(turn.speaker);
    if (speaker == in_speaker.end()) {
      speaker = in_speaker.emplace(turn.speaker, matches(turn.speaker)).first;
    }
    std::size_t count = 0;
    for (const std::string& term : wanted) count += (*holder)->TermFrequency(term, row);
    return count - std::min(count, speaker->second);
  };
  for (Ranked& candidate : ranked) {
    const auto at = layout.IndexOf(candidate.fused.row);
    if (!at) continue;
    const LayoutTurn& turn = layout.turns()[*at];
    if (turn.question_share <= 0 || !AddressedToPeer(layout, *at)) continue;
    double share = turn.question_share;
    std::string why = Fixed(100 * share, 0) + "% of its words ask a question";
    if (tokenizer != nullptr && !wanted.empty() && !turn.asking_text.empty()) {
      const std::size_t all = matches_in_text(turn);
      if (all > 0) {
        const std::size_t asking = matches(AskingSentences(turn.asking_text));
        share = static_cast<double>(asking) / static_cast<double>(all);
        why = std::to_string(asking) + " of its " + std::to_string(all) +
              " query-term matches are in a question";
      }
    }
    candidate.asks = share;
    if (share <= 0) continue;
    const double factor = 1.0 - config.question_penalty * share;
    candidate.score *= factor;
    candidate.adjustments.push_back({"answerability", factor, why + ": x " + Fixed(factor), 0});
  }
}

void ApplyAnswerType(std::vector<Ranked>& ranked, AnswerType type, const TurnText& turn_text,
                     const RecallConfig& config, Tense tense, const StoredAnalysis& stored,
                     std::span<const std::string> given_names) {
  if (type == AnswerType::kNone || config.answer_type_boost == 1.0) return;
  const GivenWords given(type == AnswerType::kPerson || type == AnswerType::kPlace
                             ? given_names
                             : std::span<const std::string>());
  const std::size_t depth = std::min(ranked.size(), config.answer_type_depth);
  for (std::size_t index = 0; index < depth; ++index) {
    Ranked& candidate = ranked[index];
    std::string_view text;
    Timestamp time;
    if (!turn_text(candidate.fused.row, &text, &time)) continue;
    const std::string evidence = AnswerEvidence(
        text, time, type, tense, stored ? stored(candidate.fused.row) : nullptr, given);
    if (evidence.empty()) continue;
    candidate.score *= config.answer_type_boost;
    candidate.adjustments.push_back({"answer_type", config.answer_type_boost,
                                     "holds a " + std::string(AnswerTypeName(type)) + " (\"" +
                                         evidence + "\"), which the question asks for",
                                     0});
  }
}

std::size_t ExpandNeighbours(std::vector<Ranked>& ranked, const TurnLayout& layout,
                             const RecallConfig& config) {
  if (config.neighbour_weight <= 0 || config.neighbour_radius == 0 || config.neighbour_seeds == 0) {
    return 0;
  }
  const auto& turns = layout.turns();
  struct Bonus {
    double value = 0;
    std::size_t seed = 0;  // layout index of the seed
    std::size_t distance = 0;
    double seed_score = 0;
    bool reply = false;  // the seed mostly asks and this is the next turn
  };
  std::map<std::size_t, Bonus> bonuses;  // layout index -> best bonus
  std::size_t seeds = 0;
  for (const Ranked& candidate : ranked) {
    if (seeds >= config.neighbour_seeds) break;
    const auto at = layout.IndexOf(candidate.fused.row);
    if (!at) continue;
    ++seeds;
    const LayoutSession& session = layout.sessions()[turns[*at].session];
    double factor = config.neighbour_weight;
    for (std::size_t distance = 1; distance <= config.neighbour_radius; ++distance) {
      for (const long side : {-1L, 1L}) {
        const long j = static_cast<long>(*at) + side * static_cast<long>(distance);
        if (j < static_cast<long>(session.begin) || j >= static_cast<long>(session.end)) continue;
        // The reply to a seed that mostly asks is where its answer is.
        const double asks = candidate.asks >= 0 ? candidate.asks : turns[*at].question_share;
        const bool reply =
            distance == 1 && side == 1 && asks >= 0.5 && AddressedToPeer(layout, *at);
        const double value =
            (reply ? std::max(factor, config.neighbour_answer_weight) : factor) * candidate.score;
        Bonus& bonus = bonuses[static_cast<std::size_t>(j)];
        if (value > bonus.value) bonus = {value, *at, distance, candidate.score, reply};
      }
      factor *= config.neighbour_decay;
    }
  }
  std::map<std::int64_t, std::size_t> position_of_row;
  for (std::size_t i = 0; i < ranked.size(); ++i) position_of_row[ranked[i].fused.row] = i;
  std::size_t added = 0;
  for (const auto& [index, bonus] : bonuses) {
    if (bonus.value <= 0) continue;
    added += AddBonus(ranked, position_of_row, turns[index].row,
                      {"neighbour", 1.0,
                       std::to_string(bonus.distance) + " turn" + (bonus.distance == 1 ? "" : "s") +
                           (bonus.reply ? " after the question at seq " : " from seq ") +
                           std::to_string(turns[bonus.seed].sequence) + " (score " +
                           Fixed(bonus.seed_score) + ") in its session: +" + Fixed(bonus.value),
                       bonus.value});
  }
  return added;
}

void ApplyCoverage(std::vector<Ranked>& ranked, std::span<const index::Bm25QueryTerm> terms,
                   const TurnLayout& layout, std::span<const index::Bm25Index* const> indexes,
                   const RecallConfig& config) {
  if (config.coverage_weight <= 0 || terms.size() < 2) return;
  double total = 0;
  for (const index::Bm25QueryTerm& term : terms) total += term.idf;
  if (total <= 0) return;
  const std::size_t depth = std::min(ranked.size(), config.answer_type_depth);
  for (std::size_t index = 0; index < depth; ++index) {
    Ranked& candidate = ranked[index];
    if (!layout.IndexOf(candidate.fused.row)) continue;
    const auto row = static_cast<std::uint64_t>(candidate.fused.row);
    double covered = 0;
    std::size_t count = 0;
    for (const index::Bm25QueryTerm& term : terms) {
      if (!index::AnyHolds(indexes, term.term, row)) continue;
      covered += term.idf;
      ++count;
    }
    if (count == 0) continue;
    const double factor = 1.0 + config.coverage_weight * covered / total;
    candidate.score *= factor;
    candidate.adjustments.push_back(
        {"coverage", factor,
         "holds " + std::to_string(count) + " of the question's " + std::to_string(terms.size()) +
             " terms (" + Fixed(100 * covered / total, 0) + "% of their idf): x " + Fixed(factor),
         0});
  }
}

bool AddBonus(std::vector<Ranked>& ranked, std::map<std::int64_t, std::size_t>& position_of_row,
              std::int64_t row, Adjustment adjustment) {
  const auto [found, appended] = position_of_row.try_emplace(row, ranked.size());
  if (appended) {
    ranked.push_back({});
    ranked.back().fused.row = row;
  }
  Ranked& target = ranked[found->second];
  target.score += adjustment.bonus;
  target.adjustments.push_back(std::move(adjustment));
  return appended;
}

}  // namespace engram::read
