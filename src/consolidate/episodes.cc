// Episode segmentation and narratives (see episodes.h).
#include "consolidate/episodes.h"

#include <algorithm>
#include <set>

#include "text/temporal.h"
#include "text/tokenizer.h"

namespace engram::consolidate {
namespace {

constexpr std::int64_t kMicrosPerMinute = 60'000'000;

// A question quotes less of what happened than a statement: its score is divided by this.
constexpr double kQuestionDiscount = 2.0;

// Sentence spans [begin, end) of `text`, from the lexer's sentence starts, extended to the end
// of the sentence's closing punctuation.
std::vector<std::pair<std::uint32_t, std::uint32_t>> Sentences(std::string_view text) {
  const std::vector<text::Lexeme> lexemes = text::Lex(text);
  std::vector<std::pair<std::uint32_t, std::uint32_t>> spans;
  for (const text::Lexeme& lexeme : lexemes) {
    if (lexeme.sentence_start || spans.empty()) spans.emplace_back(lexeme.begin, lexeme.end);
    spans.back().second = lexeme.end;
  }
  return spans;
}

// `text`[begin, end) with the annotations inside it inserted in brackets after their spans,
// trimmed of surrounding white space.
std::string Annotated(std::string_view text, std::uint32_t begin, std::uint32_t end,
                      std::span<const Annotation> annotations) {
  std::string out;
  std::uint32_t at = begin;
  for (const Annotation& annotation : annotations) {
    if (annotation.begin < begin || annotation.end > end || annotation.begin < at) continue;
    out.append(text.substr(at, annotation.end - at));
    out += " [" + annotation.note + "]";
    at = annotation.end;
  }
  out.append(text.substr(at, end - at));
  const std::size_t first = out.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return "";
  const std::size_t last = out.find_last_not_of(" \t\r\n");
  std::string trimmed = out.substr(first, last - first + 1);
  // One line: a quoted sentence never spans line breaks.
  std::replace(trimmed.begin(), trimmed.end(), '\n', ' ');
  std::replace(trimmed.begin(), trimmed.end(), '\r', ' ');
  return trimmed;
}

std::string JoinNames(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t name_idx = 0; name_idx < names.size(); ++name_idx) {
    if (name_idx > 0) out += name_idx + 1 == names.size() ? " and " : ", ";
    out += names[name_idx];
  }
  return out;
}

std::string Capitalized(std::string text) {
  if (!text.empty() && text[0] >= 'a' && text[0] <= 'z') text[0] = static_cast<char>(text[0] - 32);
  return text;
}

}  // namespace

std::string_view BoundaryName(Boundary boundary) {
  switch (boundary) {
    case Boundary::kStart:
      return "start";
    case Boundary::kSession:
      return "session";
    case Boundary::kTimeGap:
      return "time_gap";
    case Boundary::kTopic:
      return "topic";
    case Boundary::kLength:
      return "length";
  }
  return "start";
}

double TermOverlap(std::span<const std::string> terms, std::span<const std::string> context) {
  if (terms.empty()) return 1.0;
  std::size_t shared = 0;
  for (const std::string& term : terms) {
    if (std::binary_search(context.begin(), context.end(), term)) ++shared;
  }
  return static_cast<double>(shared) / static_cast<double>(terms.size());
}

std::vector<EpisodeSpan> SegmentEpisodes(std::span<const TurnView> turns,
                                         const ConsolidateConfig& config, bool use_divergence) {
  std::vector<EpisodeSpan> spans;
  if (turns.empty()) return spans;
  const std::int64_t max_gap =
      static_cast<std::int64_t>(config.episode_gap_minutes) * kMicrosPerMinute;
  spans.push_back({.begin = 0, .end = 1, .boundary = Boundary::kStart});
  for (std::size_t turn_idx = 1; turn_idx < turns.size(); ++turn_idx) {
    const TurnView& turn = turns[turn_idx];
    const TurnView& previous = turns[turn_idx - 1];
    EpisodeSpan& current = spans.back();
    std::optional<Boundary> boundary;
    if (turn.session_id != previous.session_id) {
      boundary = Boundary::kSession;
    } else if (turn.time.micros - previous.time.micros > max_gap) {
      boundary = Boundary::kTimeGap;
    } else if (current.size() >= config.episode_max_turns) {
      boundary = Boundary::kLength;
    } else if (current.size() >= config.episode_min_turns &&
               turn.terms.size() >= config.topic_min_terms &&
               (!use_divergence || (turn.divergence.has_value() &&
                                    *turn.divergence >= config.topic_divergence))) {
      std::set<std::string> context;
      const std::size_t window_begin =
          std::max(current.begin, turn_idx - std::min(turn_idx, config.topic_window));
      for (std::size_t context_idx = window_begin; context_idx < turn_idx; ++context_idx) {
        context.insert(turns[context_idx].terms.begin(), turns[context_idx].terms.end());
      }
      const std::vector<std::string> sorted(context.begin(), context.end());
      if (TermOverlap(turn.terms, sorted) <= config.topic_overlap) boundary = Boundary::kTopic;
    }
    if (boundary.has_value()) {
      spans.push_back({.begin = turn_idx, .end = turn_idx + 1, .boundary = *boundary});
    } else {
      current.end = turn_idx + 1;
    }
  }
  return spans;
}

std::string HumanDate(Timestamp time) {
  static constexpr const char* kMonths[] = {"January", "February", "March",     "April",
                                            "May",     "June",     "July",      "August",
                                            "September", "October", "November", "December"};
  const std::string iso = FormatTimestamp(time);  // "2023-05-08T13:56:00Z"; years 1-9999
  const std::size_t dash = iso.find('-', 1);
  if (dash == std::string::npos || iso.size() < dash + 6) return iso;
  const std::string year = iso.substr(0, dash);
  const int month = std::stoi(iso.substr(dash + 1, 2));
  const int day = std::stoi(iso.substr(dash + 4, 2));
  if (month < 1 || month > 12) return iso;
  return std::to_string(day) + " " + kMonths[month - 1] + " " + year;
}

std::string SpeakerName(const TurnView& turn) {
  if (!turn.speaker.empty()) return turn.speaker;
  switch (turn.role) {
    case Role::kUser:
      return "the user";
    case Role::kAssistant:
      return "the assistant";
    case Role::kSystem:
      return "the system";
    case Role::kTool:
      return "a tool";
  }
  return "the user";
}

Narrative RenderNarrative(std::span<const TurnView> turns, std::size_t max_sentences) {
  Narrative narrative;
  if (turns.empty()) return narrative;
  static const text::Tokenizer tokenizer;

  std::vector<std::string> speakers;
  for (const TurnView& turn : turns) {
    const std::string name = SpeakerName(turn);
    if (std::find(speakers.begin(), speakers.end(), name) == speakers.end()) {
      speakers.push_back(name);
    }
  }
  const std::string first_day = HumanDate(turns.front().time);
  const std::string last_day = HumanDate(turns.back().time);
  std::string opening = "On " + first_day;
  if (last_day != first_day) opening = "From " + first_day + " to " + last_day;
  opening += ", " + JoinNames(speakers) + (turns.size() == 1 ? " spoke." : " talked.");
  narrative.sentences.push_back({.turn_id = turns.front().id, .text = opening});

  // Candidate sentences, scored by their distinct content terms.
  struct Candidate {
    std::size_t turn_idx;
    std::uint32_t begin;
    std::uint32_t end;
    double score;
  };
  std::vector<Candidate> candidates;
  for (std::size_t turn_idx = 0; turn_idx < turns.size(); ++turn_idx) {
    const TurnView& turn = turns[turn_idx];
    for (const auto& [begin, end] : Sentences(turn.text)) {
      std::set<std::string> terms;
      for (const text::Token& token :
           tokenizer.Tokenize(std::string_view(turn.text).substr(begin, end - begin))) {
        terms.insert(token.term);
      }
      if (terms.empty()) continue;
      double score = static_cast<double>(terms.size());
      if (turn.text.substr(begin, end - begin).find('?') != std::string::npos) {
        score /= kQuestionDiscount;
      }
      candidates.push_back({turn_idx, begin, end, score});
    }
  }
  std::vector<std::size_t> order(candidates.size());
  for (std::size_t idx = 0; idx < order.size(); ++idx) order[idx] = idx;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return candidates[a].score > candidates[b].score;
  });
  if (order.size() > max_sentences) order.resize(max_sentences);
  std::sort(order.begin(), order.end());  // conversation order

  std::string date_said = first_day;
  for (const std::size_t candidate_idx : order) {
    const Candidate& candidate = candidates[candidate_idx];
    const TurnView& turn = turns[candidate.turn_idx];
    const std::string quote =
        Annotated(turn.text, candidate.begin, candidate.end, turn.annotations);
    std::string sentence;
    const std::string day = HumanDate(turn.time);
    if (day != date_said) {
      sentence = "On " + day + ", " + SpeakerName(turn) + " said: \"" + quote + "\"";
      date_said = day;
    } else {
      sentence = Capitalized(SpeakerName(turn)) + " said: \"" + quote + "\"";
    }
    narrative.sentences.push_back({.turn_id = turn.id, .text = std::move(sentence)});
  }
  for (const NarrativeSentence& sentence : narrative.sentences) {
    if (!narrative.text.empty()) narrative.text += " ";
    narrative.text += sentence.text;
  }
  return narrative;
}

}  // namespace engram::consolidate
