// Typed signal detectors (see signals.h for the contract and the value formats): the signal
// kind names, DetectSignals and the Detector's driver (signal_detector.h) — the phase order, the
// sentence and act word stream, quoted strings and the hedging of whole sentences.
#include "text/signals.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_set>
#include <utility>
#include <vector>

#include "text/signal_detector.h"

namespace engram::text::signals_detail {

std::vector<Signal> Detector::Run() {
  DetectSchemeUrls();
  DetectEmails();
  DetectBareDomains();
  DetectIpAddresses();
  DetectUuids();
  DetectVersions();
  DetectIdentifiers();
  opaque_ = claimed_;
  DetectTimes();
  DetectNumbers();
  BuildSentences();
  if (options_.detect_entities) DetectEntities();
  DetectQuotes();
  if (options_.detect_memory_acts) DetectActs();
  ApplyHedges();
  std::stable_sort(signals_.begin(), signals_.end(), [](const Signal& a, const Signal& b) {
    if (a.begin != b.begin) return a.begin < b.begin;
    if (a.end != b.end) return a.end < b.end;
    return static_cast<int>(a.kind) < static_cast<int>(b.kind);
  });
  return std::move(signals_);
}

Signal& Detector::Add(SignalKind kind, std::size_t begin, std::size_t end, std::string value,
            std::string topic, float confidence) {
  Signal signal;
  signal.kind = kind;
  signal.begin = static_cast<std::uint32_t>(begin);
  signal.end = static_cast<std::uint32_t>(end);
  signal.surface = std::string(text_.substr(begin, end - begin));
  signal.value = std::move(value);
  signal.topic = std::move(topic);
  signal.confidence = confidence;
  signals_.push_back(std::move(signal));
  return signals_.back();
}

// ----- quoted strings (may contain other anchors; they do not claim)
void Detector::DetectQuotes() {
  struct QuotePair {
    std::string_view open;
    std::string_view close;
  };
  static constexpr std::array<QuotePair, 5> kPairs = {{
      {"\"", "\""},
      {"\xE2\x80\x9C", "\xE2\x80\x9D"},  // “ ”
      {"\xE2\x80\x98", "\xE2\x80\x99"},  // ‘ ’
      {"`", "`"},
      {"'", "'"},
  }};
  constexpr std::size_t kMaxQuoteBytes = 300;
  for (std::size_t i = 0; i < n_; ++i) {
    if (lx_[i].kind != LexemeKind::kPunct) continue;
    const QuotePair* pair = nullptr;
    for (const QuotePair& candidate : kPairs) {
      if (lx_[i].lower == candidate.open) pair = &candidate;
    }
    if (pair == nullptr) continue;
    const bool straight = pair->open == pair->close;
    // An opening quote starts a word: not glued to a letter on its left, glued on its right.
    if (i + 1 >= n_ || !Adjacent(i + 1)) continue;
    if (straight && i > 0 && Adjacent(i) && lx_[i - 1].kind != LexemeKind::kPunct) continue;
    std::size_t close = std::string_view::npos;
    for (std::size_t k = i + 1; k < n_ && lx_[k].begin - lx_[i].end <= kMaxQuoteBytes; ++k) {
      if (lx_[k].newline_before) break;
      if (lx_[k].kind == LexemeKind::kPunct && lx_[k].lower == pair->close) {
        // A closing quote ends a word: glued on its left, not glued to a word on its right.
        if (!Adjacent(k)) {
          if (straight) continue;
        }
        if (k + 1 < n_ && Adjacent(k + 1) && lx_[k + 1].kind != LexemeKind::kPunct) continue;
        close = k;
        break;
      }
    }
    if (close == std::string_view::npos || close == i + 1) continue;
    const std::size_t inner_begin = lx_[i].end;
    const std::size_t inner_end = lx_[close].begin;
    Add(SignalKind::kQuotedString, lx_[i].begin, lx_[close].end,
        CleanValue(text_.substr(inner_begin, inner_end - inner_begin)));
    i = close;
  }
}

// ----- sentences and the act word stream
void Detector::BuildSentences() {
  Sentence current;
  bool clause_start = true;
  std::vector<std::string_view> expanded;
  auto flush = [&]() {
    if (!current.words.empty() || current.question_mark) sentences_.push_back(current);
    current = Sentence();
    clause_start = true;
  };
  for (std::size_t i = 0; i < n_; ++i) {
    const Lexeme& lexeme = lx_[i];
    if (lexeme.sentence_start && i > 0) flush();
    if (current.words.empty() && !current.question_mark && current.end == 0) {
      current.begin = lexeme.begin;
    }
    current.end = lexeme.end;
    if (lexeme.kind == LexemeKind::kPunct) {
      if (opaque_[i]) continue;  // '?' or '.' inside a URL, '-' inside an id
      const std::string_view p = lexeme.lower;
      // "2,000" / "3.5": a separator glued on both sides does not end a clause.
      if ((p == "," || p == ".") && !lexeme.space_before && i + 1 < n_ &&
          !lx_[i + 1].space_before && lx_[i + 1].kind == LexemeKind::kNumber) {
        continue;
      }
      if (p == "?") current.question_mark = true;
      if (In(p, {",", ";", ":", "(", ")", "\xE2\x80\x94", "\xE2\x80\x93", "!", "?", "."}) ||
          (p == "-" && lexeme.space_before)) {
        clause_start = true;
      }
      continue;
    }
    expanded.clear();
    ExpandContraction(lexeme.lower,
                      current.words.empty() ? std::string_view() : current.words.back().text,
                      expanded);
    for (const std::string_view word : expanded) {
      ActWord act;
      act.text = word;
      act.begin = lexeme.begin;
      act.end = lexeme.end;
      act.clause_start = clause_start;
      clause_start = false;
      current.words.push_back(std::move(act));
    }
  }
  flush();
  for (Sentence& sentence : sentences_) sentence.hedged = IsHedged(sentence.words);
}

bool Detector::IsHedged(const std::vector<ActWord>& words) {
  for (std::size_t k = 0; k < words.size(); ++k) {
    const std::string_view w = words[k].text;
    const std::string_view prev = k > 0 ? std::string_view(words[k - 1].text) : "";
    const std::string_view next = k + 1 < words.size() ? std::string_view(words[k + 1].text) : "";
    if (In(w, {"maybe", "probably", "perhaps", "possibly", "might", "unsure", "apparently",
               "presumably", "likely", "seems", "seem", "guess", "supposedly"})) {
      return true;
    }
    if (IsSubject(prev) && In(w, {"think", "believe", "suppose", "reckon", "assume"})) {
      return true;
    }
    if (w == "not" && next == "sure") return true;
    if ((w == "kind" || w == "sort") && next == "of") return true;
    if (prev == "i" && w == "feel" && next == "like") return true;
    if (w == "could" && next == "be") return true;
  }
  return false;
}

}  // namespace engram::text::signals_detail

namespace engram::text {
namespace {

constexpr std::array<std::string_view, 26> kSignalKindNames = {
    "date",       "time",       "money",        "percent",    "quantity",   "number",
    "version",    "url",        "email",        "ip_address", "identifier", "quoted_string",
    "person",     "place",      "organization", "preference", "constraint", "current_state",
    "past_state", "correction", "replacement",  "decision",   "approval",   "rejection",
    "query_like", "ack_like"};

}  // namespace

std::string_view SignalKindName(SignalKind kind) {
  const auto index = static_cast<std::size_t>(kind);
  return index < kSignalKindNames.size() ? kSignalKindNames[index] : "unknown";
}

StatusOr<SignalKind> ParseSignalKind(std::string_view name) {
  for (std::size_t index = 0; index < kSignalKindNames.size(); ++index) {
    if (kSignalKindNames[index] == name) return static_cast<SignalKind>(index);
  }
  return Status::InvalidArgument("unknown signal kind '" + std::string(name) + "'");
}

bool IsMemoryAct(SignalKind kind) {
  return static_cast<int>(kind) >= static_cast<int>(SignalKind::kPreference);
}

std::string_view PolarityName(Polarity polarity) {
  switch (polarity) {
    case Polarity::kNone:
      return "";
    case Polarity::kPositive:
      return "+";
    case Polarity::kNegative:
      return "-";
  }
  return "";
}

std::vector<Signal> DetectSignals(std::string_view text, Timestamp reference,
                                  const SignalOptions& options) {
  signals_detail::Detector detector(text, reference, options);
  return detector.Run();
}

}  // namespace engram::text

