// The signal Detector shared by signals.cc and the signals_*.cc files: one object per DetectSignals
// call holding the text, its lexemes (text/temporal.h Lex), which lexemes an anchor claimed, the
// sentences with their act word stream, and the signals found so far. The detectors run in a
// fixed order over the one lexeme array: byte-level scanners for URLs, e-mails, IPs, UUIDs,
// versions and identifiers claim their lexemes first (signals_anchors.cc), then temporal
// expressions, then numbers (money, percent, quantities, plain numbers: signals_numbers.cc), then
// capitalised entities (signals_entities.cc); memory acts are matched last, per sentence, over a
// word stream in which contractions are expanded ("don't" -> "do not"; text/word_stream.h), in
// signals_acts.cc and signals_act_changes.cc.
//
// Internal to engram_text: include only from the signals*.cc files.
//
// Thread-safety: one Detector per call; not shared between threads.
#ifndef ENGRAM_TEXT_SIGNAL_DETECTOR_H_
#define ENGRAM_TEXT_SIGNAL_DETECTOR_H_

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

#include "text/normalize.h"
#include "text/signals.h"
#include "text/word_stream.h"

namespace engram::text::signals_detail {

inline bool IsDigitByte(char c) { return c >= '0' && c <= '9'; }

inline bool IsAlphaByte(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

inline bool IsAlnumByte(char c) { return IsDigitByte(c) || IsAlphaByte(c); }

inline bool IsUpperByte(char c) { return c >= 'A' && c <= 'Z'; }

// Word equality with a first-byte fast path: most comparisons in the rule tables fail on the
// first byte or the length, so memcmp is rarely reached.
inline bool SameWord(std::string_view a, std::string_view b) {
  return a.size() == b.size() && (a.empty() || (a[0] == b[0] && a == b));
}

inline bool In(std::string_view word, std::initializer_list<std::string_view> list) {
  for (const std::string_view candidate : list) {
    if (SameWord(word, candidate)) return true;
  }
  return false;
}

template <std::size_t N>
bool InArray(std::string_view word, const std::array<std::string_view, N>& list) {
  for (const std::string_view candidate : list) {
    if (SameWord(word, candidate)) return true;
  }
  return false;
}

// Collapses runs of white space to one space and trims; drops trailing punctuation.
inline std::string CleanValue(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  bool space = false;
  for (const char c : text) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      space = !out.empty();
      continue;
    }
    if (space) out.push_back(' ');
    space = false;
    out.push_back(c);
  }
  while (!out.empty() && In(std::string_view(&out.back(), 1), {".", ",", ";", ":", "!", "?"})) {
    out.pop_back();
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

struct Decimal {
  std::string digits = "0";
  int exponent = 0;
  bool negative = false;
};

struct Currency {
  std::string_view word;
  std::string_view code;
};

// Symbols (before or after the amount).
inline constexpr std::array<Currency, 9> kCurrencySymbols = {{
    {"$", "USD"},
    {"\xE2\x82\xAC", "EUR"},  // €
    {"\xC2\xA3", "GBP"},      // £
    {"\xC2\xA5", "JPY"},      // ¥
    {"\xE2\x82\xB9", "INR"},  // ₹
    {"\xE2\x82\xA9", "KRW"},  // ₩
    {"\xE2\x82\xBD", "RUB"},  // ₽
    {"\xE2\x82\xBF", "BTC"},  // ₿
    {"\xEF\xBC\x84", "USD"},  // fullwidth $
}};

struct ActWord {
  std::string_view text;    // lower case, contractions expanded; views the lexeme or a literal
  std::uint32_t begin = 0;  // byte span of the lexeme it came from
  std::uint32_t end = 0;
  bool clause_start = false;  // first word after , ; : ( — or at sentence start
};

struct Sentence {
  std::uint32_t begin = 0;  // byte span, terminator included
  std::uint32_t end = 0;
  std::vector<ActWord> words;
  bool question_mark = false;
  bool hedged = false;
};

// The words w[from, to) joined by single spaces.
inline std::string JoinWords(const std::vector<ActWord>& w, std::size_t from, std::size_t to) {
  std::string out;
  for (std::size_t k = from; k < to && k < w.size(); ++k) {
    if (k > from) out.push_back(' ');
    out.append(w[k].text);
  }
  return out;
}

inline bool IsSubject(std::string_view word) { return word == "i" || word == "we"; }

// How far (in words) a cue looks for its partner ("no longer X ... now Y"); keeps every rule
// bounded so that detection stays linear in the text.
inline constexpr std::size_t kMaxCueDistance = 16;

// Confidence of a memory act by its cue (signals.h: 1 unless said here).
inline constexpr float kBareCueConfidence = 0.6f;  // a bare cue word ("currently", "previously")
inline constexpr float kInnerActuallyConfidence = 0.7f;  // "actually" inside a clause

// One DetectSignals call. Invariants: lx_ holds Lex(text_) and n_ its size; claimed_[i] is set
// once an anchor covers lexeme i (anchors never overlap); opaque_ marks the lexemes inside a
// byte-level anchor, whose punctuation does not end a clause. Run() may be called once.
class Detector {
 public:
  Detector(std::string_view text, Timestamp reference, const SignalOptions& options)
      : text_(text.substr(0, std::min<std::size_t>(text.size(), 0xFFFFFFFFu))),
        reference_(reference),
        options_(options),
        lx_(Lex(text_)),
        n_(lx_.size()),
        claimed_(lx_.size(), 0),
        opaque_(lx_.size(), 0) {}

  std::vector<Signal> Run();

 private:
  // ----- lexeme access
  bool Word(std::size_t i, std::string_view word) const {
    return i < n_ && lx_[i].kind == LexemeKind::kWord && SameWord(lx_[i].lower, word);
  }

  bool Punct(std::size_t i, std::string_view punct) const {
    return i < n_ && lx_[i].kind == LexemeKind::kPunct && SameWord(lx_[i].lower, punct);
  }

  bool Adjacent(std::size_t i) const { return i < n_ && !lx_[i].space_before; }

  bool IsKind(std::size_t i, LexemeKind kind) const { return i < n_ && lx_[i].kind == kind; }

  char ByteAt(std::size_t pos) const { return pos < text_.size() ? text_[pos] : '\0'; }

  // Index of the first lexeme whose begin is >= byte.
  std::size_t LexemeAt(std::size_t byte) const {
    const auto it = std::lower_bound(
        lx_.begin(), lx_.end(), byte,
        [](const Lexeme& lexeme, std::size_t value) { return lexeme.begin < value; });
    return static_cast<std::size_t>(it - lx_.begin());
  }

  bool RangeFree(std::size_t begin, std::size_t end) const {
    for (std::size_t i = LexemeAt(begin); i < n_ && lx_[i].begin < end; ++i) {
      if (claimed_[i]) return false;
    }
    // A lexeme that starts before `begin` but reaches into the range.
    const std::size_t first = LexemeAt(begin);
    if (first > 0 && lx_[first - 1].end > begin && claimed_[first - 1]) return false;
    return true;
  }

  void Claim(std::size_t begin, std::size_t end) {
    std::size_t i = LexemeAt(begin);
    if (i > 0 && lx_[i - 1].end > begin) --i;
    for (; i < n_ && lx_[i].begin < end; ++i) claimed_[i] = 1;
  }

  Signal& Add(SignalKind kind, std::size_t begin, std::size_t end, std::string value,
              std::string topic = {}, float confidence = 1.0f);

  Signal& AddAnchor(SignalKind kind, std::size_t begin, std::size_t end, std::string value,
                    std::string topic = {}, float confidence = 1.0f) {
    Claim(begin, end);
    return Add(kind, begin, end, std::move(value), std::move(topic), confidence);
  }

  // Byte boundary test: the character before `pos` is not part of a word.
  bool WordBoundaryBefore(std::size_t pos) const {
    return pos == 0 || !(IsAlnumByte(text_[pos - 1]) || text_[pos - 1] == '_');
  }

  bool WordBoundaryAfter(std::size_t pos) const {
    return pos >= text_.size() || !(IsAlnumByte(text_[pos]) || text_[pos] == '_');
  }

  // Extends a URL from `pos` to the first white space / bracket-less end, then trims.
  std::size_t UrlEnd(std::size_t pos) const;

  std::size_t TrimUrl(std::size_t begin, std::size_t end) const;

  std::string UrlValue(std::size_t begin, std::size_t end) const;

  // ----- phase A: byte-level anchors
  void DetectSchemeUrls();

  void DetectEmails();

  void DetectBareDomains();

  // Reads an IPv4 address at pos; returns its end or npos.
  std::size_t ScanIpv4(std::size_t pos) const;

  // Reads an IPv6 address at pos; returns its end or npos.
  std::size_t ScanIpv6(std::size_t pos) const;

  void DetectIpAddresses();

  void DetectUuids();

  // Reads "1", "1.2", "1.2.3" (+ "-beta.1" pre-release when dotted) at pos; returns the end and
  // the number of dot-separated parts.
  std::pair<std::size_t, int> ScanDotted(std::size_t pos, bool allow_prerelease) const;

  // "d.d.dddd" is a European date, not a version.
  bool LooksLikeDottedDate(std::size_t begin, std::size_t end) const {
    const std::string_view s = text_.substr(begin, end - begin);
    const std::size_t first = s.find('.');
    const std::size_t last = s.rfind('.');
    return first != last && first <= 2 && s.size() - last - 1 == 4 &&
           s.find('.', first + 1) == last;
  }

  void DetectVersions();

  void DetectIdentifiers();

  // ----- phase B: dates and times
  void DetectTimes();

  // ----- phase C: numbers
  struct Numeral {
    Decimal value;
    std::size_t next = 0;  // lexeme after the number
    bool ordinal = false;
    bool weak = false;  // "one": a number only before a unit or currency
  };

  // Digits with thousands separators and a decimal part: "1,250.50".
  std::optional<Numeral> ParseNumeral(std::size_t i) const;

  // Number words: "three", "twenty-five", "a hundred", "two thousand and five", "a dozen".
  std::optional<Numeral> ParseNumberWords(std::size_t i) const;

  std::string_view Lower(std::size_t i) const {
    return i < n_ ? std::string_view(lx_[i].lower) : std::string_view();
  }

  // Scale after a number: thousand / million / billion words, glued k / m / bn.
  int ScaleAt(std::size_t& at, bool money_context) const;

  std::optional<std::string_view> CurrencySymbolAt(std::size_t i) const {
    if (!IsKind(i, LexemeKind::kPunct)) return std::nullopt;
    for (const Currency& currency : kCurrencySymbols) {
      if (currency.word == lx_[i].lower) return currency.code;
    }
    return std::nullopt;
  }

  // Currency after an amount at lexeme `at`; advances `at` past it.
  std::optional<std::string_view> CurrencyAfter(std::size_t& at) const;

  void DetectNumbers();

  // A unit at lexeme `at`: returns {symbol, lexeme after the unit}.
  std::optional<std::pair<std::string, std::size_t>> UnitAfter(std::size_t at) const;

  // ----- quoted strings (may contain other anchors; they do not claim)
  void DetectQuotes();

  // ----- sentences and the act word stream
  void BuildSentences();

  static bool IsHedged(const std::vector<ActWord>& words);

  // ----- phase D: entities
  // time_spans_ is sorted and non-overlapping (temporal mentions come in text order).
  bool InTimeSpan(std::size_t byte) const {
    const auto it = std::upper_bound(
        time_spans_.begin(), time_spans_.end(), byte,
        [](std::size_t value, const std::pair<std::uint32_t, std::uint32_t>& span) {
          return value < span.first;
        });
    return it != time_spans_.begin() && byte < std::prev(it)->second;
  }

  void DetectEntities();

  void ClassifyEntity(std::size_t first, std::size_t last);
  bool RoleBefore(std::size_t at) const;

  void EmitEntity(EntityKind kind, std::size_t first, std::size_t last, float confidence);

  // ----- phase E: memory acts
  struct ActContext {
    const Sentence& sentence;
    const std::vector<ActWord>& w;
    bool Is(std::size_t k, std::string_view word) const {
      return k < w.size() && w[k].text == word;
    }
    std::string_view At(std::size_t k) const {
      return k < w.size() ? std::string_view(w[k].text) : std::string_view();
    }
  };

  // The value phrase starting at word k: up to the clause end, a clause-starting conjunction,
  // a time expression or max_value_words. Leading determiners are dropped. Returns the
  // normalised value and the byte end of the phrase (0 when empty).
  std::pair<std::string, std::uint32_t> ValueFrom(const ActContext& ctx, std::size_t k,
                                                  bool stop_at_time = true) const;

  Signal& AddAct(SignalKind kind, std::uint32_t begin, std::uint32_t end, std::string value,
                 std::string topic, Polarity polarity = Polarity::kNone, float confidence = 1.0f) {
    Signal& signal = Add(kind, begin, end, std::move(value), std::move(topic), confidence);
    signal.polarity = polarity;
    return signal;
  }

  // Byte end of an act: its value's end, else the cue's last word.
  static std::uint32_t ActEnd(std::uint32_t value_end, const ActWord& cue_last) {
    return std::max(value_end, cue_last.end);
  }

  void DetectActs();

  // Skips adverbs from k.
  static std::size_t SkipAdverbs(const ActContext& ctx, std::size_t k) {
    while (k < ctx.w.size() && IsAdverb(ctx.w[k].text)) ++k;
    if (ctx.Is(k, "kind") && ctx.Is(k + 1, "of")) k += 2;
    if (ctx.Is(k, "sort") && ctx.Is(k + 1, "of")) k += 2;
    return k;
  }

  // Negation after a subject: "do not", "did not", "does not", "never", "no longer", "am not".
  static std::size_t SkipNegation(const ActContext& ctx, std::size_t k, bool& negated);

  void DetectPreferences(const ActContext& ctx);

  void DetectConstraints(const ActContext& ctx);

  // A state pattern at word k (the verb after the subject): residence, employer, occupation,
  // identity, status, possession. Returns {topic, value start word, last cue word} or nullopt.
  struct StateCue {
    std::string topic;
    std::size_t value_start;
    std::size_t cue_last;
  };

  std::optional<StateCue> StateAt(const ActContext& ctx, std::size_t k, bool& past) const;

  void DetectStates(const ActContext& ctx);

  void DetectCorrections(const ActContext& ctx);

  void DetectReplacements(const ActContext& ctx);

  void DetectDecisions(const ActContext& ctx);

  // Sentence-level phrase match: the words of `phrase` at word k.
  static bool PhraseAt(const ActContext& ctx, std::size_t k,
                       std::initializer_list<std::string_view> phrase) {
    for (const std::string_view word : phrase) {
      if (!ctx.Is(k, word)) return false;
      ++k;
    }
    return true;
  }

  void DetectApprovalsAndRejections(const ActContext& ctx);

  void DetectQuery(const ActContext& ctx);

  void DetectAck();

  // Sentences are in text order and disjoint: find each signal's sentence by binary search.
  void ApplyHedges() {
    for (Signal& signal : signals_) {
      const auto it = std::upper_bound(
          sentences_.begin(), sentences_.end(), signal.begin,
          [](std::uint32_t value, const Sentence& sentence) { return value < sentence.begin; });
      if (it == sentences_.begin()) continue;
      const Sentence& sentence = *std::prev(it);
      if (signal.begin < sentence.end) signal.uncertain = sentence.hedged;
    }
  }

  std::string_view text_;

  Timestamp reference_;

  const SignalOptions& options_;

  std::vector<Lexeme> lx_;

  std::size_t n_;

  std::vector<std::uint8_t> claimed_;

  std::vector<std::uint8_t> opaque_;  // inside a URL / e-mail / IP / version / identifier

  std::vector<std::pair<std::uint32_t, std::uint32_t>> time_spans_;

  std::vector<Sentence> sentences_;

  std::vector<Signal> signals_;
};

}  // namespace engram::text::signals_detail

#endif  // ENGRAM_TEXT_SIGNAL_DETECTOR_H_
