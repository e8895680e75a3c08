// Temporal expression parser and the lexeme scanner it shares with the signal detectors. The
// resolution rules are documented in temporal.h; this file implements them as small matchers,
// each of which looks at a bounded window of lexemes starting at one position.
#include "text/temporal.h"

#include <utf8proc.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "core/civil_date.h"

namespace engram::text {
namespace {

constexpr std::int64_t kMicrosPerSecond = 1'000'000;
constexpr std::int64_t kMicrosPerMinute = 60 * kMicrosPerSecond;
constexpr std::int64_t kMicrosPerHour = 60 * kMicrosPerMinute;
constexpr std::int64_t kMicrosPerDay = 24 * kMicrosPerHour;

// ---------------------------------------------------------------------------------------------
// Calendar arithmetic: day numbers from core/civil_date.h, months counted from year 0.

std::int64_t FloorDiv(std::int64_t a, std::int64_t b) {
  std::int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

using core::CivilFromDays;
using core::DaysFromCivil;
using core::DaysInMonth;
using core::WeekdayOf;
using Civil = core::CivilDate;

// Months counted from year 0: year * 12 + (month - 1).
std::int64_t MonthIndex(std::int64_t year, int month) { return year * 12 + (month - 1); }
std::int64_t MonthStartDay(std::int64_t month_index) {
  return DaysFromCivil(FloorDiv(month_index, 12),
                       static_cast<int>(month_index - FloorDiv(month_index, 12) * 12) + 1, 1);
}

const std::int64_t kMinDay = DaysFromCivil(1, 1, 1);
const std::int64_t kMaxDay = DaysFromCivil(10000, 1, 1);

// ---------------------------------------------------------------------------------------------
// Lexer helpers.

struct CodePoint {
  std::int32_t value = -1;  // -1: an invalid byte
  std::size_t length = 1;
};

CodePoint DecodeAt(std::string_view text, std::size_t pos, std::size_t limit) {
  const auto byte = static_cast<unsigned char>(text[pos]);
  if (byte < 0x80) return {byte, 1};
  utf8proc_int32_t code_point = -1;
  const utf8proc_ssize_t length =
      utf8proc_iterate(reinterpret_cast<const utf8proc_uint8_t*>(text.data() + pos),
                       static_cast<utf8proc_ssize_t>(limit - pos), &code_point);
  if (length <= 0) return {-1, 1};
  return {code_point, static_cast<std::size_t>(length)};
}

// Word equality with a first-byte fast path (most rule comparisons fail on the first byte).
inline bool SameWord(std::string_view a, std::string_view b) {
  return a.size() == b.size() && (a.empty() || (a[0] == b[0] && a == b));
}

bool IsAsciiDigit(std::int32_t c) { return c >= '0' && c <= '9'; }
bool IsAsciiAlpha(std::int32_t c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

bool IsSpaceCp(std::int32_t c) {
  if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') return true;
  if (c < 0x80) return false;
  const utf8proc_category_t category = utf8proc_category(c);
  return category == UTF8PROC_CATEGORY_ZS || category == UTF8PROC_CATEGORY_ZL ||
         category == UTF8PROC_CATEGORY_ZP;
}

bool IsLineBreak(std::int32_t c) { return c == '\n' || c == '\r' || c == 0x2028 || c == 0x2029; }

// Letters of any script, combining marks and non-ASCII digits join words.
bool IsLetterCp(std::int32_t c) {
  if (c < 0x80) return IsAsciiAlpha(c);
  switch (utf8proc_category(c)) {
    case UTF8PROC_CATEGORY_LU:
    case UTF8PROC_CATEGORY_LL:
    case UTF8PROC_CATEGORY_LT:
    case UTF8PROC_CATEGORY_LM:
    case UTF8PROC_CATEGORY_LO:
    case UTF8PROC_CATEGORY_MN:
    case UTF8PROC_CATEGORY_MC:
    case UTF8PROC_CATEGORY_ME:
    case UTF8PROC_CATEGORY_ND:
    case UTF8PROC_CATEGORY_NL:
    case UTF8PROC_CATEGORY_NO:
    case UTF8PROC_CATEGORY_CF:
      return true;
    default:
      return false;
  }
}

bool IsUpperCp(std::int32_t c) {
  if (c < 0x80) return c >= 'A' && c <= 'Z';
  const utf8proc_category_t category = utf8proc_category(c);
  return category == UTF8PROC_CATEGORY_LU || category == UTF8PROC_CATEGORY_LT;
}

bool IsApostropheCp(std::int32_t c) { return c == '\'' || c == 0x2019; }

// Suffixes split from a leading digit run: ordinals, clock, magnitudes, units, decades.
bool IsNumberSuffix(std::string_view s) {
  static constexpr std::array<std::string_view, 47> kSuffixes = {
      "st",  "nd", "rd",  "th",  "am",   "pm", "k",  "m",   "b",   "bn",  "mn", "km",
      "kg",  "g",  "mg",  "lb",  "lbs",  "oz", "mi", "ft",  "cm",  "mm",  "ml", "l",
      "h",   "hr", "hrs", "min", "mins", "s",  "ms", "gb",  "mb",  "kb",  "tb", "ghz",
      "mhz", "hz", "kw",  "kwh", "w",    "v",  "px", "mph", "kph", "yrs", "yr"};
  return std::find(kSuffixes.begin(), kSuffixes.end(), s) != kSuffixes.end();
}

std::string LowerAscii(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t pos = 0; pos < text.size(); ++pos) {
    const char c = text[pos];
    if (c >= 'A' && c <= 'Z') {
      out.push_back(static_cast<char>(c - 'A' + 'a'));
    } else if (c == '\xE2' && pos + 2 < text.size() && text[pos + 1] == '\x80' &&
               text[pos + 2] == '\x99') {
      out.push_back('\'');
      pos += 2;
    } else {
      out.push_back(c);
    }
  }
  return out;
}

bool IsTerminator(std::string_view punct) {
  return punct == "." || punct == "!" || punct == "?" || punct == "\xE2\x80\xA6";
}
bool IsClosingPunct(std::string_view punct) {
  return punct == "\"" || punct == "'" || punct == ")" || punct == "]" || punct == "\xE2\x80\x9D" ||
         punct == "\xE2\x80\x99" || punct == "\xC2\xBB";
}

// ---------------------------------------------------------------------------------------------
// Vocabulary.

struct MonthWord {
  std::string_view name;
  int month;
  bool abbreviation;
  bool ambiguous;  // also a common English word: needs a day, a year or a capital + cue
};

constexpr std::array<MonthWord, 24> kMonthWords = {{
    {"january", 1, false, false},   {"jan", 1, true, false},        {"february", 2, false, false},
    {"feb", 2, true, false},        {"march", 3, false, true},      {"mar", 3, true, false},
    {"april", 4, false, false},     {"apr", 4, true, false},        {"may", 5, false, true},
    {"june", 6, false, false},      {"jun", 6, true, false},        {"july", 7, false, false},
    {"jul", 7, true, false},        {"august", 8, false, true},     {"aug", 8, true, false},
    {"september", 9, false, false}, {"sep", 9, true, false},        {"sept", 9, true, false},
    {"october", 10, false, false},  {"oct", 10, true, false},       {"november", 11, false, false},
    {"nov", 11, true, false},       {"december", 12, false, false}, {"dec", 12, true, false},
}};

constexpr std::array<std::string_view, 7> kWeekdays = {
    "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"};

constexpr std::array<std::string_view, 21> kNumberWords = {
    "zero",     "one",     "two",     "three",     "four",     "five",     "six",
    "seven",    "eight",   "nine",    "ten",       "eleven",   "twelve",   "thirteen",
    "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"};

constexpr std::array<std::string_view, 21> kOrdinalWords = {
    "",           "first",     "second",    "third",       "fourth",     "fifth",      "sixth",
    "seventh",    "eighth",    "ninth",     "tenth",       "eleventh",   "twelfth",    "thirteenth",
    "fourteenth", "fifteenth", "sixteenth", "seventeenth", "eighteenth", "nineteenth", "twentieth"};

// Words before a month / season / year that make it a date.
bool IsDateCue(std::string_view word) {
  static constexpr std::array<std::string_view, 20> kCues = {
      "in",    "during",     "since",   "until",  "till",  "til",    "through",
      "by",    "from",       "to",      "before", "after", "around", "of",
      "early", "throughout", "between", "late",   "mid",   "circa"};
  return std::find(kCues.begin(), kCues.end(), word) != kCues.end();
}

bool IsSubjectPronoun(std::string_view word) {
  static constexpr std::array<std::string_view, 12> kPronouns = {
      "i", "you", "we", "they", "he", "she", "it", "who", "that", "which", "this", "one"};
  return std::find(kPronouns.begin(), kPronouns.end(), word) != kPronouns.end();
}

enum class Unit { kSecond, kMinute, kHour, kDay, kWeek, kFortnight, kMonth, kYear, kDecade };

std::optional<Unit> UnitOf(std::string_view word) {
  struct Entry {
    std::string_view word;
    Unit unit;
  };
  static constexpr std::array<Entry, 23> kUnits = {{
      {"second", Unit::kSecond},  {"seconds", Unit::kSecond}, {"secs", Unit::kSecond},
      {"minute", Unit::kMinute},  {"minutes", Unit::kMinute}, {"mins", Unit::kMinute},
      {"min", Unit::kMinute},     {"hour", Unit::kHour},      {"hours", Unit::kHour},
      {"hrs", Unit::kHour},       {"day", Unit::kDay},        {"days", Unit::kDay},
      {"week", Unit::kWeek},      {"weeks", Unit::kWeek},     {"fortnight", Unit::kFortnight},
      {"month", Unit::kMonth},    {"months", Unit::kMonth},   {"year", Unit::kYear},
      {"years", Unit::kYear},     {"yrs", Unit::kYear},       {"decade", Unit::kDecade},
      {"decades", Unit::kDecade}, {"wks", Unit::kWeek},
  }};
  for (const Entry& entry : kUnits) {
    if (entry.word == word) return entry.unit;
  }
  return std::nullopt;
}

enum class Season { kSpring, kSummer, kAutumn, kWinter };

std::optional<Season> SeasonOf(std::string_view word) {
  if (word == "spring") return Season::kSpring;
  if (word == "summer") return Season::kSummer;
  if (word == "autumn" || word == "fall") return Season::kAutumn;
  if (word == "winter") return Season::kWinter;
  return std::nullopt;
}

// First month of the season occurrence labelled `year` (winter Y starts in December Y).
std::int64_t SeasonStartMonth(Season season, std::int64_t year) {
  switch (season) {
    case Season::kSpring:
      return MonthIndex(year, 3);
    case Season::kSummer:
      return MonthIndex(year, 6);
    case Season::kAutumn:
      return MonthIndex(year, 9);
    case Season::kWinter:
      return MonthIndex(year, 12);
  }
  return MonthIndex(year, 3);
}

enum class Tense { kUnknown, kPast, kFuture };

// Part of the day as [begin, end) hours.
struct DayPart {
  int begin_hour;
  int end_hour;
};

std::optional<DayPart> DayPartOf(std::string_view word) {
  if (word == "morning") return DayPart{6, 12};
  if (word == "afternoon") return DayPart{12, 18};
  if (word == "evening" || word == "night") return DayPart{18, 24};
  return std::nullopt;
}

// Words that can start a temporal expression; every other word is skipped without running the
// matchers (the parser's hot path). Must stay a superset of the matchers' first words.
const std::unordered_set<std::string_view>& TriggerWords() {
  static const std::unordered_set<std::string_view>* const kWords = [] {
    auto* words = new std::unordered_set<std::string_view>{
        "the",     "last",    "this",    "next",     "coming", "past",   "previous",  "early",
        "mid",     "late",    "earlier", "later",    "year",   "today",  "yesterday", "tomorrow",
        "tmrw",    "tonight", "day",     "in",       "a",      "an",     "couple",    "few",
        "several", "noon",    "midday",  "midnight", "spring", "summer", "autumn",    "fall",
        "winter",  "twenty",  "thirty",  "thirtieth"};
    for (const MonthWord& month : kMonthWords) words->insert(month.name);
    for (const std::string_view weekday : kWeekdays) words->insert(weekday);
    for (const std::string_view number : kNumberWords) words->insert(number);
    for (const std::string_view ordinal : kOrdinalWords) {
      if (!ordinal.empty()) words->insert(ordinal);
    }
    return words;
  }();
  return *kWords;
}

bool IsTenseWord(std::string_view word, bool past) {
  static const std::unordered_set<std::string_view> kPast = {
      "was",     "were", "did",   "didn't", "had",       "hadn't", "wasn't",  "weren't", "went",
      "got",     "came", "saw",   "told",   "said",      "made",   "took",    "met",     "left",
      "bought",  "ate",  "drank", "ran",    "began",     "spent",  "felt",    "found",   "gave",
      "heard",   "kept", "knew",  "lost",   "paid",      "sent",   "slept",   "spoke",   "stood",
      "thought", "won",  "wrote", "ago",    "yesterday", "used",   "brought", "flew"};
  static const std::unordered_set<std::string_view> kFuture = {
      "will", "shall",    "gonna", "going", "tomorrow", "next",  "upcoming",
      "soon", "planning", "plan",  "plans", "won't",    "let's", "coming"};
  return past ? kPast.count(word) > 0 : kFuture.count(word) > 0;
}

// A candidate match: lexemes [first, last) and what they resolve to.
struct Match {
  std::size_t first = 0;
  std::size_t last = 0;  // one past the last lexeme
  std::int64_t from = 0;
  std::int64_t to = 0;
  Granularity granularity = Granularity::kDay;
  bool relative = false;
  bool time_of_day = false;  // a clock time without a day: from/to are offsets within a day
};

class Parser {
 public:
  Parser(std::string_view text, const std::vector<Lexeme>& lexemes, Timestamp reference)
      : text_(text), lx_(lexemes), n_(lexemes.size()) {
    const std::int64_t lowest = kMinDay * kMicrosPerDay;
    const std::int64_t highest = kMaxDay * kMicrosPerDay - 1;
    ref_ = std::clamp(reference.micros, lowest, highest);
    ref_day_ = FloorDiv(ref_, kMicrosPerDay);
    ref_civil_ = CivilFromDays(ref_day_);
    ref_weekday_ = WeekdayOf(ref_day_);
    ComputeTenses();
  }

  std::vector<TimeMention> Run() {
    std::vector<Match> matches;
    std::size_t index = 0;
    while (index < n_) {
      std::optional<Match> best = Best(index);
      if (!best) {
        ++index;
        continue;
      }
      ExtendWithDayPart(*best);
      index = best->last;
      matches.push_back(*best);
    }
    matches = Compose(matches);
    std::vector<TimeMention> mentions;
    mentions.reserve(matches.size());
    for (const Match& match : matches) {
      std::int64_t from = match.from;
      std::int64_t to = match.to;
      if (match.time_of_day) {
        from += ref_day_ * kMicrosPerDay;
        to += ref_day_ * kMicrosPerDay;
      }
      if (from < kMinDay * kMicrosPerDay || to > kMaxDay * kMicrosPerDay || from >= to) continue;
      TimeMention mention;
      mention.begin = lx_[match.first].begin;
      mention.end = lx_[match.last - 1].end;
      mention.surface = std::string(text_.substr(mention.begin, mention.end - mention.begin));
      mention.from = Timestamp{from};
      mention.to = Timestamp{to};
      mention.granularity = match.granularity;
      mention.relative = match.relative || match.time_of_day;
      mentions.push_back(std::move(mention));
    }
    return mentions;
  }

 private:
  // ----- lexeme predicates
  bool Word(std::size_t i, std::string_view word) const {
    return i < n_ && lx_[i].kind == LexemeKind::kWord && SameWord(lx_[i].lower, word);
  }
  bool Punct(std::size_t i, std::string_view punct) const {
    return i < n_ && lx_[i].kind == LexemeKind::kPunct && SameWord(lx_[i].lower, punct);
  }
  bool IsWordKind(std::size_t i) const { return i < n_ && lx_[i].kind == LexemeKind::kWord; }
  bool Adjacent(std::size_t i) const { return i < n_ && !lx_[i].space_before; }
  std::string_view Lower(std::size_t i) const {
    return i < n_ ? std::string_view(lx_[i].lower) : std::string_view();
  }
  // The previous lexeme's lower text when it is a word, else "".
  std::string_view PrevWord(std::size_t i) const {
    if (i == 0 || lx_[i - 1].kind != LexemeKind::kWord) return {};
    return lx_[i - 1].lower;
  }
  // Value of a number lexeme with at most `max_digits` digits, or -1.
  std::int64_t NumberValue(std::size_t i, std::size_t max_digits = 9) const {
    if (i >= n_ || lx_[i].kind != LexemeKind::kNumber) return -1;
    const std::string& digits = lx_[i].lower;
    if (digits.empty() || digits.size() > max_digits) return -1;
    std::int64_t value = 0;
    for (const char c : digits) value = value * 10 + (c - '0');
    return value;
  }
  std::size_t Digits(std::size_t i) const {
    return i < n_ && lx_[i].kind == LexemeKind::kNumber ? lx_[i].lower.size() : 0;
  }
  // True when lexeme i continues a number: ",ddd", ".d", ":d" glued to the previous number.
  bool ContinuesNumber(std::size_t i) const {
    if (i >= n_ || !Adjacent(i) || lx_[i].kind != LexemeKind::kPunct) return false;
    const std::string_view p = lx_[i].lower;
    if (p != "," && p != "." && p != ":" && p != "/") return false;
    return i + 1 < n_ && Adjacent(i + 1) && lx_[i + 1].kind == LexemeKind::kNumber;
  }

  const MonthWord* MonthAt(std::size_t i) const {
    if (!IsWordKind(i)) return nullptr;
    for (const MonthWord& month : kMonthWords) {
      if (month.name == lx_[i].lower) return &month;
    }
    return nullptr;
  }
  int WeekdayAt(std::size_t i) const {
    if (!IsWordKind(i)) return -1;
    for (std::size_t day = 0; day < kWeekdays.size(); ++day) {
      if (kWeekdays[day] == lx_[i].lower) return static_cast<int>(day);
    }
    return -1;
  }

  Tense TenseAt(std::size_t i) const { return i < n_ ? tense_[i] : Tense::kUnknown; }

  // ----- sentence tense (see temporal.h)
  void ComputeTenses() {
    tense_.assign(n_, Tense::kUnknown);
    ability_.assign(n_, 0);
    std::size_t start = 0;
    while (start < n_) {
      std::size_t stop = start + 1;
      while (stop < n_ && !lx_[stop].sentence_start) ++stop;
      bool past = false;
      bool future = false;
      for (std::size_t i = start; i < stop; ++i) {
        if (lx_[i].kind != LexemeKind::kWord) continue;
        const std::string_view w = lx_[i].lower;
        if (IsTenseWord(w, /*past=*/true)) past = true;
        if (IsTenseWord(w, /*past=*/false)) future = true;
        if (w.size() > 3 && w.substr(w.size() - 3) == "'ll") future = true;
        if (w.size() >= 5 && w.substr(w.size() - 2) == "ed" && w.substr(w.size() - 3) != "eed" &&
            i > start && IsSubjectPronoun(Lower(i - 1)) && Lower(i - 1) != "that" &&
            Lower(i - 1) != "which" && Lower(i - 1) != "this" && Lower(i - 1) != "one") {
          past = true;
        }
      }
      const Tense tense = past == future ? Tense::kUnknown : (past ? Tense::kPast : Tense::kFuture);
      bool ability = false;
      for (std::size_t i = start; i < stop; ++i) {
        ability = ability || Word(i, "can") || Word(i, "could") || Word(i, "able") ||
                  Word(i, "takes") || Word(i, "take");
      }
      for (std::size_t i = start; i < stop; ++i) {
        tense_[i] = tense;
        ability_[i] = ability ? 1 : 0;
      }
      start = stop;
    }
  }

  // ----- result builders
  Match DayMatch(std::size_t first, std::size_t last, std::int64_t day, bool relative) const {
    return {first,    last, day * kMicrosPerDay, (day + 1) * kMicrosPerDay, Granularity::kDay,
            relative, false};
  }
  Match DaysMatch(std::size_t first, std::size_t last, std::int64_t from_day, std::int64_t to_day,
                  Granularity granularity, bool relative) const {
    return {first,    last, from_day * kMicrosPerDay, to_day * kMicrosPerDay, granularity,
            relative, false};
  }
  Match MonthMatch(std::size_t first, std::size_t last, std::int64_t month_index,
                   bool relative) const {
    return DaysMatch(first, last, MonthStartDay(month_index), MonthStartDay(month_index + 1),
                     Granularity::kMonth, relative);
  }
  Match YearMatch(std::size_t first, std::size_t last, std::int64_t year, bool relative) const {
    return DaysMatch(first, last, DaysFromCivil(year, 1, 1), DaysFromCivil(year + 1, 1, 1),
                     Granularity::kYear, relative);
  }
  Match WeekMatch(std::size_t first, std::size_t last, std::int64_t day_in_week,
                  bool relative) const {
    const std::int64_t monday = day_in_week - WeekdayOf(day_in_week);
    return DaysMatch(first, last, monday, monday + 7, Granularity::kWeek, relative);
  }
  Match WeekendMatch(std::size_t first, std::size_t last, std::int64_t day_in_week,
                     bool relative) const {
    const std::int64_t monday = day_in_week - WeekdayOf(day_in_week);
    return DaysMatch(first, last, monday + 5, monday + 7, Granularity::kWeekend, relative);
  }
  Match SeasonMatch(std::size_t first, std::size_t last, Season season, std::int64_t year,
                    bool relative) const {
    const std::int64_t start = SeasonStartMonth(season, year);
    return DaysMatch(first, last, MonthStartDay(start), MonthStartDay(start + 3),
                     Granularity::kSeason, relative);
  }
  Match DecadeMatch(std::size_t first, std::size_t last, std::int64_t decade_start,
                    bool relative) const {
    return DaysMatch(first, last, DaysFromCivil(decade_start, 1, 1),
                     DaysFromCivil(decade_start + 10, 1, 1), Granularity::kDecade, relative);
  }

  std::int64_t RefMonthIndex() const { return MonthIndex(ref_civil_.year, ref_civil_.month); }

  // The month index of `month` chosen by the tense rule (temporal.h).
  std::int64_t MonthByTense(int month, Tense tense) const {
    const std::int64_t ref_month = RefMonthIndex();
    std::int64_t candidate = MonthIndex(ref_civil_.year, month);
    if (tense == Tense::kFuture) {
      if (candidate < ref_month) candidate += 12;
    } else {
      if (candidate > ref_month) candidate -= 12;
    }
    return candidate;
  }

  // The day number of (month, day) without a year, chosen by the tense rule; nullopt if the
  // date exists in none of the candidate years.
  std::optional<std::int64_t> DayByTense(int month, int day, Tense tense) const {
    std::optional<std::int64_t> past;
    std::optional<std::int64_t> future;
    for (std::int64_t year = ref_civil_.year - 4; year <= ref_civil_.year + 4; ++year) {
      if (day > DaysInMonth(year, month)) continue;
      const std::int64_t candidate = DaysFromCivil(year, month, day);
      if (candidate <= ref_day_) past = candidate;  // increasing: the last one is the latest
      if (candidate >= ref_day_ && !future) future = candidate;
    }
    if (tense == Tense::kPast) return past ? past : future;
    if (tense == Tense::kFuture) return future ? future : past;
    if (past && future) return (ref_day_ - *past) <= (*future - ref_day_) ? past : future;
    return past ? past : future;
  }

  // ----- the matchers; each returns the match starting at lexeme i, if any.
  std::optional<Match> Best(std::size_t i) const {
    std::optional<Match> best;
    auto consider = [&best](std::optional<Match> candidate) {
      if (candidate && candidate->last > candidate->first &&
          (!best || candidate->last > best->last)) {
        best = candidate;
      }
    };
    const Lexeme& lexeme = lx_[i];
    if (lexeme.kind == LexemeKind::kNumber) {
      consider(NumericDate(i));
      consider(DayMonth(i));
      consider(Year(i));
      consider(Ago(i));
      consider(Clock(i));
    } else if (lexeme.kind == LexemeKind::kWord) {
      if (TriggerWords().count(lexeme.lower) == 0) return best;
      consider(DayMonth(i));
      consider(OrdinalDay(i));
      consider(MonthFirst(i));
      consider(Year(i));
      consider(RelativeDay(i));
      consider(Weekday(i));
      consider(Ago(i));
      consider(InCount(i));
      consider(NamedPeriod(i));
      consider(SeasonExpr(i));
      consider(Clock(i));
    }
    return best;
  }

  // "2023-05-08", "2023-05-08T13:56:00Z", "05/08/2023", "25/12/23", "08.05.2023".
  std::optional<Match> NumericDate(std::size_t i) const {
    const std::size_t size = text_.size();
    std::size_t pos = lx_[i].begin;
    if (pos > 1) {
      const char before = text_[pos - 1];
      if ((before == '.' || before == '/' || before == '-' || before == ':') &&
          IsAsciiDigit(static_cast<unsigned char>(text_[pos - 2]))) {
        return std::nullopt;
      }
    }
    auto read_digits = [&](std::size_t& at, std::size_t max_digits, std::int64_t& value) {
      std::size_t count = 0;
      value = 0;
      while (at < size && IsAsciiDigit(static_cast<unsigned char>(text_[at])) &&
             count < max_digits + 1) {
        value = value * 10 + (text_[at] - '0');
        ++at;
        ++count;
      }
      return count;
    };
    std::int64_t first = 0;
    const std::size_t first_digits = read_digits(pos, 4, first);
    if (pos >= size) return std::nullopt;
    const char sep = text_[pos];
    if (sep != '-' && sep != '/' && sep != '.') return std::nullopt;
    ++pos;
    std::int64_t second = 0;
    const std::size_t second_digits = read_digits(pos, 2, second);
    if (second_digits < 1 || second_digits > 2 || pos >= size || text_[pos] != sep) {
      return std::nullopt;
    }
    ++pos;
    std::int64_t third = 0;
    const std::size_t third_digits = read_digits(pos, 4, third);
    std::int64_t year = 0;
    int month = 0;
    int day = 0;
    bool iso = false;
    if (first_digits == 4) {
      if (third_digits < 1 || third_digits > 2) return std::nullopt;
      year = first;
      month = static_cast<int>(second);
      day = static_cast<int>(third);
      iso = true;
    } else if (first_digits >= 1 && first_digits <= 2) {
      if (third_digits == 2 && sep == '/') {
        year = third < 70 ? 2000 + third : 1900 + third;
      } else if (third_digits == 4) {
        year = third;
      } else {
        return std::nullopt;
      }
      if (sep == '.') {
        day = static_cast<int>(first);
        month = static_cast<int>(second);
      } else if (first > 12 && second <= 12) {
        day = static_cast<int>(first);
        month = static_cast<int>(second);
      } else {
        month = static_cast<int>(first);
        day = static_cast<int>(second);
      }
    } else {
      return std::nullopt;
    }
    if (year < 1 || year > 9999 || month < 1 || month > 12 || day < 1 ||
        day > DaysInMonth(year, month)) {
      return std::nullopt;
    }
    // Not followed by more of a number ("1/2/2023/4", "2023-05-08.5").
    if (pos < size && (IsAsciiDigit(static_cast<unsigned char>(text_[pos])) ||
                       ((text_[pos] == sep || text_[pos] == '.') && pos + 1 < size &&
                        IsAsciiDigit(static_cast<unsigned char>(text_[pos + 1]))))) {
      return std::nullopt;
    }
    const std::int64_t day_number = DaysFromCivil(year, month, day);
    std::int64_t from = day_number * kMicrosPerDay;
    std::int64_t to = from + kMicrosPerDay;
    Granularity granularity = Granularity::kDay;
    if (iso) {
      std::size_t at = pos;
      if (at + 5 < size && (text_[at] == 'T' || text_[at] == 't' || text_[at] == ' ')) {
        ++at;
        std::int64_t hour = 0;
        std::int64_t minute = 0;
        std::int64_t second_of_minute = 0;
        bool has_seconds = false;
        if (read_digits(at, 2, hour) == 2 && at < size && text_[at] == ':' &&
            (++at, read_digits(at, 2, minute) == 2) && hour < 24 && minute < 60) {
          if (at + 2 < size && text_[at] == ':' &&
              IsAsciiDigit(static_cast<unsigned char>(text_[at + 1]))) {
            std::size_t sec_at = at + 1;
            if (read_digits(sec_at, 2, second_of_minute) == 2 && second_of_minute < 60) {
              has_seconds = true;
              at = sec_at;
              if (at + 1 < size && text_[at] == '.' &&
                  IsAsciiDigit(static_cast<unsigned char>(text_[at + 1]))) {
                ++at;
                while (at < size && IsAsciiDigit(static_cast<unsigned char>(text_[at]))) ++at;
              }
            }
          }
          std::int64_t offset_minutes = 0;
          if (at < size && (text_[at] == 'Z' || text_[at] == 'z')) {
            ++at;
          } else if (at + 2 < size && (text_[at] == '+' || text_[at] == '-')) {
            std::size_t off_at = at + 1;
            std::int64_t off_hours = 0;
            std::int64_t off_minutes = 0;
            if (read_digits(off_at, 2, off_hours) == 2) {
              if (off_at < size && text_[off_at] == ':') ++off_at;
              std::size_t mark = off_at;
              if (read_digits(off_at, 2, off_minutes) != 2) {
                off_at = mark;
                off_minutes = 0;
              }
              if (off_hours < 24 && off_minutes < 60) {
                offset_minutes = (off_hours * 60 + off_minutes) * (text_[at] == '-' ? -1 : 1);
                at = off_at;
              }
            }
          }
          from = day_number * kMicrosPerDay + hour * kMicrosPerHour + minute * kMicrosPerMinute +
                 second_of_minute * kMicrosPerSecond - offset_minutes * kMicrosPerMinute;
          to = from + (has_seconds ? kMicrosPerSecond : kMicrosPerMinute);
          granularity = has_seconds ? Granularity::kInstant : Granularity::kMinute;
          pos = at;
        }
      }
    }
    // Map the end byte back to a lexeme boundary.
    std::size_t last = i;
    while (last < n_ && lx_[last].begin < pos) ++last;
    if (last == i || lx_[last - 1].end != pos) return std::nullopt;
    return Match{i, last, from, to, granularity, false, false};
  }

  // Day number (1-31) at i as "8", "8th", or, after "the", "eighth"; returns {day, next}.
  std::optional<std::pair<int, std::size_t>> DayAt(std::size_t i, bool allow_words) const {
    if (i >= n_) return std::nullopt;
    if (lx_[i].kind == LexemeKind::kNumber) {
      const std::int64_t value = NumberValue(i, 2);
      if (value < 1 || value > 31) return std::nullopt;
      std::size_t next = i + 1;
      if (Adjacent(next) && IsWordKind(next)) {
        const std::string_view suffix = lx_[next].lower;
        if (suffix == "st" || suffix == "nd" || suffix == "rd" || suffix == "th") {
          ++next;
        } else {
          return std::nullopt;  // "8am", "5km"
        }
      }
      if (ContinuesNumber(next)) return std::nullopt;  // "8.5", "8:30", "8,000"
      if (Punct(next, "%")) return std::nullopt;
      return std::make_pair(static_cast<int>(value), next);
    }
    if (!allow_words || !IsWordKind(i)) return std::nullopt;
    for (std::size_t ordinal = 1; ordinal < kOrdinalWords.size(); ++ordinal) {
      if (lx_[i].lower == kOrdinalWords[ordinal]) {
        return std::make_pair(static_cast<int>(ordinal), i + 1);
      }
    }
    if ((lx_[i].lower == "twenty" || lx_[i].lower == "thirty") && Punct(i + 1, "-") &&
        Adjacent(i + 1) && Adjacent(i + 2)) {
      const int tens = lx_[i].lower == "twenty" ? 20 : 30;
      for (std::size_t ordinal = 1; ordinal <= 9; ++ordinal) {
        if (Word(i + 2, kOrdinalWords[ordinal]) && tens + static_cast<int>(ordinal) <= 31) {
          return std::make_pair(tens + static_cast<int>(ordinal), i + 3);
        }
      }
    }
    if (lx_[i].lower == "thirtieth") return std::make_pair(30, i + 1);
    return std::nullopt;
  }

  // A four-digit year 1000-2999 at i, optionally after a comma; returns {year, next}.
  std::optional<std::pair<std::int64_t, std::size_t>> YearAt(std::size_t i) const {
    std::size_t at = i;
    if (Punct(at, ",")) ++at;
    if (Digits(at) != 4) return std::nullopt;
    const std::int64_t year = NumberValue(at);
    if (year < 1000 || year > 2999) return std::nullopt;
    if (ContinuesNumber(at + 1) || Punct(at + 1, "%")) return std::nullopt;
    if (Adjacent(at + 1) && IsWordKind(at + 1)) return std::nullopt;  // "2023s", "2023km"
    return std::make_pair(year, at + 1);
  }

  // Month word at i usable with a day or year; consumes an abbreviation's dot.
  std::optional<std::pair<const MonthWord*, std::size_t>> MonthWordAt(std::size_t i) const {
    const MonthWord* month = MonthAt(i);
    if (month == nullptr) return std::nullopt;
    std::size_t next = i + 1;
    if (month->abbreviation && Punct(next, ".") && Adjacent(next)) ++next;
    // "I may 5 ...", "they march 3 miles": a verb after a subject pronoun. "this May" /
    // "that March" are months only when capitalised ("this may be ..." is a verb).
    if (month->ambiguous && IsSubjectPronoun(PrevWord(i))) {
      const bool demonstrative = PrevWord(i) == "this" || PrevWord(i) == "that";
      if (!demonstrative || !lx_[i].capitalized) return std::nullopt;
    }
    return std::make_pair(month, next);
  }

  // [the] Day [of] Month [,] [Year]: "8 May 2023", "the 8th of May", "8th May".
  std::optional<Match> DayMonth(std::size_t i) const {
    std::size_t at = i;
    bool has_the = false;
    if (Word(at, "the")) {
      has_the = true;
      ++at;
    }
    const auto day = DayAt(at, has_the);
    if (!day) return std::nullopt;
    at = day->second;
    bool has_of = false;
    if (Word(at, "of")) {
      has_of = true;
      ++at;
    }
    const auto month = MonthWordAt(at);
    if (!month) return std::nullopt;
    at = month->second;
    const auto year = YearAt(at);
    if (month->first->ambiguous && !lx_[at - 1].capitalized && !has_of && !year) {
      return std::nullopt;
    }
    if (year) {
      if (day->first > DaysInMonth(year->first, month->first->month)) return std::nullopt;
      return DayMatch(i, year->second, DaysFromCivil(year->first, month->first->month, day->first),
                      false);
    }
    const auto resolved = DayByTense(month->first->month, day->first, TenseAt(i));
    if (!resolved) return std::nullopt;
    return DayMatch(i, at, *resolved, true);
  }

  // "on the 15th", "by the 3rd", "until the twentieth": a day of a month chosen by the tense
  // rule (past: the most recent such day not after the reference; future: the next one not
  // before it; otherwise the closer one). Needs the preposition and an ordinal.
  std::optional<Match> OrdinalDay(std::size_t i) const {
    if (!Word(i, "the") || i == 0) return std::nullopt;
    const std::string_view cue = PrevWord(i);
    if (cue != "on" && cue != "by" && cue != "until" && cue != "till" && cue != "before" &&
        cue != "after" && cue != "since") {
      return std::nullopt;
    }
    const auto day = DayAt(i + 1, /*allow_words=*/true);
    if (!day) return std::nullopt;
    if (lx_[i + 1].kind == LexemeKind::kNumber && day->second == i + 2) return std::nullopt;
    if (MonthAt(day->second) != nullptr || Word(day->second, "of")) return std::nullopt;
    const std::int64_t ref_month = RefMonthIndex();
    std::optional<std::int64_t> past;
    std::optional<std::int64_t> future;
    for (std::int64_t month = ref_month - 2; month <= ref_month + 2; ++month) {
      const std::int64_t start = MonthStartDay(month);
      if (day->first > MonthStartDay(month + 1) - start) continue;
      const std::int64_t candidate = start + day->first - 1;
      if (candidate <= ref_day_) past = candidate;
      if (candidate >= ref_day_ && !future) future = candidate;
    }
    const Tense tense = TenseAt(i);
    std::optional<std::int64_t> chosen = past ? past : future;
    if (tense == Tense::kFuture && future) chosen = future;
    if (tense == Tense::kUnknown && past && future) {
      chosen = (ref_day_ - *past) <= (*future - ref_day_) ? past : future;
    }
    if (!chosen) return std::nullopt;
    return DayMatch(i, day->second, *chosen, true);
  }

  // Month-first forms: "May 8, 2023", "May 8th", "May the 8th", "May 2023", "May of 2023",
  // cue + month ("in June"), modifier + month ("last March"), "early/mid/late June".
  std::optional<Match> MonthFirst(std::size_t i) const {
    std::size_t at = i;
    std::string_view modifier;
    if (Word(at, "last") || Word(at, "this") || Word(at, "next") || Word(at, "coming") ||
        Word(at, "early") || Word(at, "mid") || Word(at, "late")) {
      modifier = lx_[at].lower;
      ++at;
      if (modifier == "mid" && Punct(at, "-") && Adjacent(at)) ++at;
    }
    const auto month = MonthWordAt(at);
    if (!month) return std::nullopt;
    const MonthWord& word = *month->first;
    const std::size_t month_lexeme = at;
    at = month->second;
    const Tense tense = TenseAt(i);
    if (modifier.empty()) {
      // Month Day [,] [Year]
      std::size_t day_at = at;
      bool has_the = false;
      if (Word(day_at, "the")) {
        has_the = true;
        ++day_at;
      }
      if (const auto day = DayAt(day_at, has_the); day) {
        // "May 8 2023" / "May 8, 2023"; a lone 4-digit number is a year, not a day.
        if (const auto year = YearAt(day->second); year) {
          if (day->first > DaysInMonth(year->first, word.month)) return std::nullopt;
          return DayMatch(i, year->second, DaysFromCivil(year->first, word.month, day->first),
                          false);
        }
        if (const auto resolved = DayByTense(word.month, day->first, tense); resolved) {
          return DayMatch(i, day->second, *resolved, true);
        }
        return std::nullopt;
      }
      // Month [,] [of] Year
      std::size_t year_at = at;
      if (Word(year_at, "of")) ++year_at;
      if (const auto year = YearAt(year_at); year) {
        return MonthMatch(i, year->second, MonthIndex(year->first, word.month), false);
      }
      // Cue + month: full names only; ambiguous ones need a capital.
      if (word.abbreviation || !IsDateCue(PrevWord(i))) return std::nullopt;
      if (word.ambiguous && !lx_[month_lexeme].capitalized) return std::nullopt;
      return MonthMatch(i, at, MonthByTense(word.month, tense), true);
    }
    if (word.abbreviation) return std::nullopt;
    if (word.ambiguous && !lx_[month_lexeme].capitalized) return std::nullopt;
    const std::int64_t ref_month = RefMonthIndex();
    if (modifier == "early" || modifier == "mid" || modifier == "late") {
      std::int64_t month_index = MonthByTense(word.month, tense);
      bool relative = true;
      std::size_t last = at;
      std::size_t year_at = at;
      if (Word(year_at, "of")) ++year_at;
      if (const auto year = YearAt(year_at); year) {
        month_index = MonthIndex(year->first, word.month);
        relative = false;
        last = year->second;
      }
      const std::int64_t start = MonthStartDay(month_index);
      const std::int64_t end = MonthStartDay(month_index + 1);
      if (modifier == "early")
        return DaysMatch(i, last, start, start + 10, Granularity::kVague, relative);
      if (modifier == "mid") {
        return DaysMatch(i, last, start + 10, start + 20, Granularity::kVague, relative);
      }
      return DaysMatch(i, last, start + 20, end, Granularity::kVague, relative);
    }
    std::int64_t candidate = MonthIndex(ref_civil_.year, word.month);
    if (modifier == "last") {
      while (candidate >= ref_month) candidate -= 12;
      while (candidate + 12 < ref_month) candidate += 12;
    } else if (modifier == "next" || modifier == "coming") {
      while (candidate <= ref_month) candidate += 12;
      while (candidate - 12 > ref_month) candidate -= 12;
    }
    return MonthMatch(i, at, candidate, true);
  }

  // Years and decades: "in 2022", "2022", "the year 2022", "1990s", "the 90s", "the '90s".
  std::optional<Match> Year(std::size_t i) const {
    std::size_t at = i;
    bool has_the = false;
    if (Word(at, "the")) {
      has_the = true;
      ++at;
    }
    // Decades.
    {
      std::size_t decade_at = at;
      bool apostrophe = false;
      if (has_the && (Punct(decade_at, "'") || Punct(decade_at, "\xE2\x80\x99"))) {
        apostrophe = true;
        ++decade_at;
      }
      const std::size_t digits = Digits(decade_at);
      if ((digits == 4 || digits == 2) && Word(decade_at + 1, "s") && Adjacent(decade_at + 1) &&
          (!apostrophe || Adjacent(decade_at))) {
        std::int64_t value = NumberValue(decade_at);
        if (value % 10 == 0) {
          if (digits == 2) {
            if (!has_the) return std::nullopt;
            value += value >= 30 ? 1900 : 2000;
          }
          if (value >= 1000 && value <= 2990) {
            return DecadeMatch(i, decade_at + 2, value, false);
          }
        }
      }
      if (apostrophe) return std::nullopt;
    }
    if (Word(at, "year")) ++at;
    const bool named_year = at > i + (has_the ? 1 : 0);
    if (has_the && !named_year) return std::nullopt;
    if (Digits(at) != 4) return std::nullopt;
    if (lx_[i].kind == LexemeKind::kWord && !has_the && !named_year) return std::nullopt;
    const std::int64_t year = NumberValue(at);
    if (year < 1000 || year > 2999) return std::nullopt;
    if (ContinuesNumber(at + 1) || Punct(at + 1, "%")) return std::nullopt;
    if (Adjacent(at + 1) && (IsWordKind(at + 1) || Punct(at + 1, "-"))) return std::nullopt;
    if (at > 0 && Adjacent(at) && lx_[at - 1].kind == LexemeKind::kPunct) {
      const std::string_view before = lx_[at - 1].lower;
      if (before == "$" || before == "#" || before == "," || before == "." ||
          before == "\xE2\x82\xAC" || before == "\xC2\xA3" || before == "-" || before == "/" ||
          before == ":") {
        return std::nullopt;
      }
    }
    if (!named_year) {
      const std::string_view prev = PrevWord(at);
      const bool cued = IsDateCue(prev) || prev == "year" || prev == "back" || prev == "since";
      if (!cued) {
        if (year < 1900 || year > 2099) return std::nullopt;
        // A following word that is not a verb / conjunction makes it a quantity.
        if (at + 1 < n_ && lx_[at + 1].kind != LexemeKind::kPunct) {
          static constexpr std::array<std::string_view, 16> kAfterYear = {
              "was",  "is",    "were", "has",     "had",   "will", "and",    "or",
              "when", "where", "to",   "through", "until", "vs",   "season", "edition"};
          if (lx_[at + 1].kind != LexemeKind::kWord ||
              std::find(kAfterYear.begin(), kAfterYear.end(), lx_[at + 1].lower) ==
                  kAfterYear.end()) {
            return std::nullopt;
          }
        }
        if (at + 1 < n_ && (Punct(at + 1, "%") || Punct(at + 1, ":"))) return std::nullopt;
      }
    }
    return YearMatch(i, at + 1, year, false);
  }

  // today, tonight, tomorrow, yesterday, the day before yesterday, the day after tomorrow,
  // this morning / afternoon / evening, last night, the other day.
  std::optional<Match> RelativeDay(std::size_t i) const {
    const std::string_view w = lx_[i].lower;
    if (w == "today") return DayMatch(i, i + 1, ref_day_, true);
    if (w == "yesterday") return DayMatch(i, i + 1, ref_day_ - 1, true);
    if (w == "tomorrow" || w == "tmrw") return DayMatch(i, i + 1, ref_day_ + 1, true);
    if (w == "tonight") {
      return Match{i,
                   i + 1,
                   ref_day_ * kMicrosPerDay + 18 * kMicrosPerHour,
                   (ref_day_ + 1) * kMicrosPerDay,
                   Granularity::kPartOfDay,
                   true,
                   false};
    }
    if (w == "last" && Word(i + 1, "night")) {
      return Match{i,
                   i + 2,
                   (ref_day_ - 1) * kMicrosPerDay + 18 * kMicrosPerHour,
                   ref_day_ * kMicrosPerDay + 6 * kMicrosPerHour,
                   Granularity::kPartOfDay,
                   true,
                   false};
    }
    if (w == "this" && i + 1 < n_) {
      if (const auto part = DayPartOf(lx_[i + 1].lower); part && lx_[i + 1].lower != "night") {
        return Match{i,
                     i + 2,
                     ref_day_ * kMicrosPerDay + part->begin_hour * kMicrosPerHour,
                     ref_day_ * kMicrosPerDay + part->end_hour * kMicrosPerHour,
                     Granularity::kPartOfDay,
                     true,
                     false};
      }
    }
    std::size_t at = i;
    if (w == "the") ++at;
    if (Word(at, "day") && (Word(at + 1, "before") || Word(at + 1, "after"))) {
      const bool before = Word(at + 1, "before");
      if (Word(at + 2, before ? "yesterday" : "tomorrow")) {
        return DayMatch(i, at + 3, ref_day_ + (before ? -2 : 2), true);
      }
    }
    if (w == "the" && Word(i + 1, "other") && Word(i + 2, "day")) {
      return DaysMatch(i, i + 3, ref_day_ - 7, ref_day_, Granularity::kVague, true);
    }
    return std::nullopt;
  }

  // [last|this|next|coming|past] weekday.
  std::optional<Match> Weekday(std::size_t i) const {
    std::size_t at = i;
    std::string_view modifier;
    if (Word(at, "last") || Word(at, "this") || Word(at, "next") || Word(at, "coming") ||
        Word(at, "past")) {
      modifier = lx_[at].lower;
      ++at;
    }
    const int weekday = WeekdayAt(at);
    if (weekday < 0) return std::nullopt;
    const int back = (ref_weekday_ - weekday + 7) % 7;  // 0..6 days back to that weekday
    std::int64_t day = 0;
    if (modifier == "last" || modifier == "past") {
      day = ref_day_ - (back == 0 ? 7 : back);
    } else if (modifier == "next" || modifier == "coming") {
      const int ahead = (weekday - ref_weekday_ + 7) % 7;
      day = ref_day_ + (ahead == 0 ? 7 : ahead);
    } else if (modifier == "this") {
      day = ref_day_ - ref_weekday_ + weekday;
    } else {
      const Tense tense = TenseAt(at);
      if (tense == Tense::kPast) {
        day = ref_day_ - (back == 0 ? 7 : back);
      } else if (tense == Tense::kFuture) {
        const int ahead = (weekday - ref_weekday_ + 7) % 7;
        day = ref_day_ + (ahead == 0 ? 7 : ahead);
      } else {
        day = back <= 3 ? ref_day_ - back : ref_day_ + (7 - back);
      }
    }
    return DayMatch(i, at + 1, day, true);
  }

  // A count at i: digits, "a"/"an", number words, "a couple (of)", "a few", "several".
  struct Count {
    std::int64_t low;
    std::int64_t high;
    std::size_t next;
  };
  std::optional<Count> CountAt(std::size_t i) const {
    if (i >= n_) return std::nullopt;
    if (lx_[i].kind == LexemeKind::kNumber) {
      const std::int64_t value = NumberValue(i, 3);
      if (value < 0 || ContinuesNumber(i + 1)) return std::nullopt;
      return Count{value, value, i + 1};
    }
    if (!IsWordKind(i)) return std::nullopt;
    const std::string_view w = lx_[i].lower;
    if (w == "a" || w == "an") {
      if (Word(i + 1, "couple")) return Count{2, 2, Word(i + 2, "of") ? i + 3 : i + 2};
      if (Word(i + 1, "few")) return Count{2, 5, i + 2};
      return Count{1, 1, i + 1};
    }
    if (w == "couple") return Count{2, 2, Word(i + 1, "of") ? i + 2 : i + 1};
    if (w == "few") return Count{2, 5, i + 1};
    if (w == "several") return Count{3, 7, i + 1};
    for (std::size_t value = 1; value < kNumberWords.size(); ++value) {
      if (w == kNumberWords[value]) {
        return Count{static_cast<std::int64_t>(value), static_cast<std::int64_t>(value), i + 1};
      }
    }
    return std::nullopt;
  }

  // The interval of the unit containing (reference shifted by `amount` units).
  std::pair<std::int64_t, std::int64_t> ShiftedUnit(Unit unit, std::int64_t amount) const {
    switch (unit) {
      case Unit::kSecond:
      case Unit::kMinute: {
        const std::int64_t step = unit == Unit::kSecond ? kMicrosPerSecond : kMicrosPerMinute;
        const std::int64_t at = FloorDiv(ref_ + amount * step, kMicrosPerMinute) * kMicrosPerMinute;
        return {at, at + kMicrosPerMinute};
      }
      case Unit::kHour: {
        const std::int64_t at =
            FloorDiv(ref_ + amount * kMicrosPerHour, kMicrosPerHour) * kMicrosPerHour;
        return {at, at + kMicrosPerHour};
      }
      case Unit::kDay:
        return {(ref_day_ + amount) * kMicrosPerDay, (ref_day_ + amount + 1) * kMicrosPerDay};
      case Unit::kWeek:
      case Unit::kFortnight: {
        const std::int64_t day = ref_day_ + amount * (unit == Unit::kWeek ? 7 : 14);
        const std::int64_t monday = day - WeekdayOf(day);
        return {monday * kMicrosPerDay, (monday + 7) * kMicrosPerDay};
      }
      case Unit::kMonth: {
        const std::int64_t month = RefMonthIndex() + amount;
        return {MonthStartDay(month) * kMicrosPerDay, MonthStartDay(month + 1) * kMicrosPerDay};
      }
      case Unit::kYear: {
        const std::int64_t year = ref_civil_.year + amount;
        return {DaysFromCivil(year, 1, 1) * kMicrosPerDay,
                DaysFromCivil(year + 1, 1, 1) * kMicrosPerDay};
      }
      case Unit::kDecade: {
        const std::int64_t year = FloorDiv(ref_civil_.year + amount * 10, 10) * 10;
        return {DaysFromCivil(year, 1, 1) * kMicrosPerDay,
                DaysFromCivil(year + 10, 1, 1) * kMicrosPerDay};
      }
    }
    return {0, 0};
  }

  static Granularity UnitGranularity(Unit unit) {
    switch (unit) {
      case Unit::kSecond:
      case Unit::kMinute:
        return Granularity::kMinute;
      case Unit::kHour:
        return Granularity::kHour;
      case Unit::kDay:
        return Granularity::kDay;
      case Unit::kWeek:
      case Unit::kFortnight:
        return Granularity::kWeek;
      case Unit::kMonth:
        return Granularity::kMonth;
      case Unit::kYear:
        return Granularity::kYear;
      case Unit::kDecade:
        return Granularity::kDecade;
    }
    return Granularity::kVague;
  }

  Match CountMatch(std::size_t first, std::size_t last, const Count& count, Unit unit,
                   int direction) const {
    if (count.low == count.high) {
      const auto [from, to] = ShiftedUnit(unit, direction * count.low);
      return Match{first, last, from, to, UnitGranularity(unit), true, false};
    }
    const auto near = ShiftedUnit(unit, direction * count.low);
    const auto far = ShiftedUnit(unit, direction * count.high);
    const std::int64_t from = std::min(near.first, far.first);
    const std::int64_t to = std::max(near.second, far.second);
    return Match{first, last, from, to, Granularity::kVague, true, false};
  }

  // "3 days ago", "two weeks back", "a few days ago", "3 days from now".
  std::optional<Match> Ago(std::size_t i) const {
    const auto count = CountAt(i);
    if (!count || count->next >= n_) return std::nullopt;
    const auto unit = UnitOf(lx_[count->next].lower);
    if (!unit || !IsWordKind(count->next)) return std::nullopt;
    const std::size_t after = count->next + 1;
    if (Word(after, "ago") || Word(after, "back") || Word(after, "earlier")) {
      return CountMatch(i, after + 1, *count, *unit, -1);
    }
    if (Word(after, "from") && (Word(after + 1, "now") || Word(after + 1, "today"))) {
      return CountMatch(i, after + 2, *count, *unit, +1);
    }
    return std::nullopt;
  }

  // "in 3 days", "in a few weeks", "in two hours" (not in past-tense sentences).
  std::optional<Match> InCount(std::size_t i) const {
    if (lx_[i].lower != "in" || TenseAt(i) == Tense::kPast) return std::nullopt;
    // "I can swim 2 km in 45 minutes", "done in 3 days": after an ability modal or a
    // quantity it is a duration.
    if (TenseAt(i) != Tense::kFuture && ability_[i]) return std::nullopt;
    if (i >= 2 && lx_[i - 2].kind == LexemeKind::kNumber && IsWordKind(i - 1)) return std::nullopt;
    const auto count = CountAt(i + 1);
    if (!count || count->next >= n_ || !IsWordKind(count->next)) return std::nullopt;
    const auto unit = UnitOf(lx_[count->next].lower);
    if (!unit) return std::nullopt;
    // "in a day or two" is fine; "in 3 days' time" too. "in 2 years of work" is a duration.
    if (Word(count->next + 1, "of")) return std::nullopt;
    return CountMatch(i, count->next + 1, *count, *unit, +1);
  }

  // (last|this|next|coming|past|previous) (week|weekend|month|year|decade); "this past week";
  // "the week before/after"; "the weekend"; "earlier/later this week".
  std::optional<Match> NamedPeriod(std::size_t i) const {
    std::size_t at = i;
    std::string_view modifier;
    std::string_view refinement;  // "earlier" / "later"
    if (Word(at, "earlier") || Word(at, "later")) {
      refinement = lx_[at].lower;
      ++at;
      if (!Word(at, "this")) return std::nullopt;
    }
    if (Word(at, "this") && Word(at + 1, "past")) {
      modifier = "last";
      at += 2;
    } else if (Word(at, "last") || Word(at, "this") || Word(at, "next") || Word(at, "coming") ||
               Word(at, "past") || Word(at, "previous")) {
      modifier = lx_[at].lower;
      if (modifier == "past" || modifier == "previous") modifier = "last";
      if (modifier == "coming") modifier = "next";
      ++at;
    } else if (Word(at, "the")) {
      modifier = "the";
      ++at;
    } else {
      return std::nullopt;
    }
    if (!IsWordKind(at)) return std::nullopt;
    const std::string_view period = lx_[at].lower;
    if (period != "week" && period != "weekend" && period != "month" && period != "year" &&
        period != "decade" && period != "day") {
      return std::nullopt;
    }
    std::int64_t offset = 0;
    std::size_t last = at + 1;
    if (modifier == "the") {
      if (Word(at + 1, "before") || Word(at + 1, "after")) {
        // Anchored on something else when a noun phrase follows ("the day after the party").
        const std::size_t next = at + 2;
        if (next < n_ &&
            (lx_[next].kind == LexemeKind::kNumber ||
             (IsWordKind(next) &&
              (lx_[next].capitalized || Lower(next) == "the" || Lower(next) == "a" ||
               Lower(next) == "my" || Lower(next) == "his" || Lower(next) == "her" ||
               Lower(next) == "our" || Lower(next) == "their" || Lower(next) == "that" ||
               Lower(next) == "this" || Lower(next) == "your" || Lower(next) == "an" ||
               Lower(next) == "yesterday" || Lower(next) == "tomorrow" || Lower(next) == "last" ||
               Lower(next) == "next")))) {
          return std::nullopt;
        }
        offset = Word(at + 1, "before") ? -1 : 1;
        last = at + 2;
      } else if (period == "weekend") {
        // "the weekend": by tense.
        const Tense tense = TenseAt(i);
        const std::int64_t monday = ref_day_ - ref_weekday_;
        std::int64_t saturday = monday + 5;
        if (tense == Tense::kPast && saturday > ref_day_) saturday -= 7;
        if (tense == Tense::kFuture && saturday + 2 <= ref_day_) saturday += 7;
        return WeekendMatch(i, at + 1, saturday, true);
      } else {
        return std::nullopt;
      }
    } else if (modifier == "last") {
      offset = -1;
    } else if (modifier == "next") {
      offset = 1;
    }
    if (period == "day") {
      if (modifier != "the") return std::nullopt;  // "last day", "this day" are not times
      return DayMatch(i, last, ref_day_ + offset, true);
    }
    if (period == "weekend") return WeekendMatch(i, last, ref_day_ + 7 * offset, true);
    Unit unit = Unit::kWeek;
    if (period == "month") unit = Unit::kMonth;
    if (period == "year") unit = Unit::kYear;
    if (period == "decade") unit = Unit::kDecade;
    auto [from, to] = ShiftedUnit(unit, offset);
    if (!refinement.empty()) {
      if (refinement == "earlier") {
        to = std::min(to, (ref_day_ + 1) * kMicrosPerDay);
      } else {
        from = std::max(from, ref_day_ * kMicrosPerDay);
      }
      return Match{i, last, from, to, Granularity::kVague, true, false};
    }
    return Match{i, last, from, to, UnitGranularity(unit), true, false};
  }

  // Seasons: "last summer", "this spring", "next winter", "in (the) summer", "summer 2023",
  // "(the) summer of 2023".
  std::optional<Match> SeasonExpr(std::size_t i) const {
    std::size_t at = i;
    std::string_view modifier;
    if (Word(at, "last") || Word(at, "this") || Word(at, "next") || Word(at, "coming") ||
        Word(at, "past")) {
      modifier = lx_[at].lower;
      ++at;
    } else if (Word(at, "the")) {
      ++at;
    }
    if (!IsWordKind(at)) return std::nullopt;
    const auto season = SeasonOf(lx_[at].lower);
    if (!season) return std::nullopt;
    // "fall" is also a verb: only with a modifier, a cue or a year.
    std::size_t year_at = at + 1;
    if (Word(year_at, "of")) ++year_at;
    if (const auto year = YearAt(year_at); year && modifier.empty()) {
      return SeasonMatch(i, year->second, *season, year->first, false);
    }
    const std::int64_t ref_month = RefMonthIndex();
    // Occurrence containing (or nearest to) the reference.
    auto occurrence_start = [&](std::int64_t label_year) {
      return SeasonStartMonth(*season, label_year);
    };
    if (!modifier.empty()) {
      if (modifier == "this") {
        std::int64_t label = ref_civil_.year;
        if (*season == Season::kWinter && ref_civil_.month <= 2) label -= 1;
        return SeasonMatch(i, at + 1, *season, label, true);
      }
      if (modifier == "last" || modifier == "past") {
        std::int64_t label = ref_civil_.year;
        while (occurrence_start(label) + 3 > ref_month) --label;
        return SeasonMatch(i, at + 1, *season, label, true);
      }
      std::int64_t label = ref_civil_.year - 1;
      while (occurrence_start(label) <= ref_month) ++label;
      return SeasonMatch(i, at + 1, *season, label, true);
    }
    // Bare season: needs a cue ("in (the) summer", "during the winter").
    const std::string_view cue = PrevWord(i);
    if (!IsDateCue(cue) || cue == "of" || cue == "to") return std::nullopt;
    if (lx_[at].lower == "fall" && !Word(i, "the")) return std::nullopt;
    const Tense tense = TenseAt(i);
    std::int64_t label = ref_civil_.year + 1;
    while (occurrence_start(label) > ref_month) --label;  // latest started by the reference
    const bool contains = occurrence_start(label) + 3 > ref_month;
    // Future tense and the latest occurrence is over: the next one. Otherwise the latest one
    // that has started (a running season stays itself whatever the tense).
    if (tense == Tense::kFuture && !contains) ++label;
    return SeasonMatch(i, at + 1, *season, label, true);
  }

  // Clock times: "3pm", "3 pm", "3 p.m.", "3:30 pm", "15:30", "15:30:10", "noon", "midnight",
  // "3 o'clock". A time alone is a time of day (combined with a day later).
  std::optional<Match> Clock(std::size_t i) const {
    if (lx_[i].kind == LexemeKind::kWord) {
      const std::string_view w = lx_[i].lower;
      if (w == "noon" || w == "midday") {
        return Match{i,    i + 1, 12 * kMicrosPerHour, 13 * kMicrosPerHour, Granularity::kHour,
                     true, true};
      }
      if (w == "midnight") {
        return Match{i, i + 1, 0, kMicrosPerHour, Granularity::kHour, true, true};
      }
      return std::nullopt;
    }
    if (i > 0 && Adjacent(i) &&
        (Punct(i - 1, ":") || Punct(i - 1, ".") || Punct(i - 1, ",") || Punct(i - 1, "/") ||
         Punct(i - 1, "$") || Punct(i - 1, "-"))) {
      return std::nullopt;
    }
    if (Digits(i) > 2) return std::nullopt;
    std::int64_t hour = NumberValue(i, 2);
    std::int64_t minute = 0;
    std::int64_t second = 0;
    bool has_minutes = false;
    bool has_seconds = false;
    std::size_t at = i + 1;
    if (Punct(at, ":") && Adjacent(at) && Adjacent(at + 1) && Digits(at + 1) == 2) {
      minute = NumberValue(at + 1);
      has_minutes = true;
      at += 2;
      if (Punct(at, ":") && Adjacent(at) && Adjacent(at + 1) && Digits(at + 1) == 2) {
        second = NumberValue(at + 1);
        has_seconds = true;
        at += 2;
      }
      if (ContinuesNumber(at)) return std::nullopt;
    } else if (ContinuesNumber(at)) {
      return std::nullopt;
    }
    // am / pm / a.m. / p.m. / o'clock
    int meridiem = 0;  // 1 am, 2 pm
    bool oclock = false;
    if (IsWordKind(at)) {
      const std::string_view w = lx_[at].lower;
      if (w == "am" || w == "pm") {
        meridiem = w == "am" ? 1 : 2;
        ++at;
      } else if ((w == "a" || w == "p") && Punct(at + 1, ".") && Adjacent(at + 1) &&
                 Word(at + 2, "m") && Adjacent(at + 2)) {
        meridiem = w == "a" ? 1 : 2;
        at += 3;
        if (Punct(at, ".") && Adjacent(at)) ++at;
      } else if (w == "o'clock") {
        oclock = true;
        ++at;
      }
    }
    if (meridiem != 0) {
      if (hour < 1 || hour > 12) return std::nullopt;
      if (meridiem == 1 && hour == 12) hour = 0;
      if (meridiem == 2 && hour != 12) hour += 12;
    } else if (oclock) {
      if (hour < 1 || hour > 12 || has_minutes) return std::nullopt;
    } else if (!has_minutes) {
      return std::nullopt;
    }
    if (hour > 23 || minute > 59 || second > 59) return std::nullopt;
    const std::int64_t start =
        hour * kMicrosPerHour + minute * kMicrosPerMinute + second * kMicrosPerSecond;
    if (has_seconds) {
      return Match{i, at, start, start + kMicrosPerSecond, Granularity::kInstant, true, true};
    }
    if (has_minutes) {
      return Match{i, at, start, start + kMicrosPerMinute, Granularity::kMinute, true, true};
    }
    return Match{i, at, start, start + kMicrosPerHour, Granularity::kHour, true, true};
  }

  // "yesterday morning", "Friday night", "tomorrow afternoon".
  void ExtendWithDayPart(Match& match) const {
    if (match.granularity != Granularity::kDay || match.time_of_day) return;
    if (match.last >= n_ || !IsWordKind(match.last)) return;
    const auto part = DayPartOf(lx_[match.last].lower);
    if (!part) return;
    match.to = match.from + part->end_hour * kMicrosPerHour;
    match.from += part->begin_hour * kMicrosPerHour;
    match.granularity = Granularity::kPartOfDay;
    match.last += 1;
  }

  // Joins a day with an adjacent clock time: "yesterday at 3pm", "3pm on Friday".
  std::vector<Match> Compose(const std::vector<Match>& matches) const {
    std::vector<Match> out;
    out.reserve(matches.size());
    auto joinable = [this](std::size_t from_lexeme, std::size_t to_lexeme) {
      if (to_lexeme < from_lexeme || to_lexeme - from_lexeme > 2) return false;
      for (std::size_t k = from_lexeme; k < to_lexeme; ++k) {
        const std::string_view w = lx_[k].lower;
        if (w != "," && w != "at" && w != "on" && w != "around" && w != "about" && w != "by") {
          return false;
        }
      }
      return true;
    };
    for (std::size_t k = 0; k < matches.size(); ++k) {
      const Match& current = matches[k];
      if (k + 1 < matches.size()) {
        const Match& next = matches[k + 1];
        const bool day_then_time =
            current.granularity == Granularity::kDay && !current.time_of_day && next.time_of_day;
        const bool time_then_day =
            current.time_of_day && next.granularity == Granularity::kDay && !next.time_of_day;
        if ((day_then_time || time_then_day) && joinable(current.last, next.first)) {
          const Match& day = day_then_time ? current : next;
          const Match& time = day_then_time ? next : current;
          Match joined = time;
          joined.first = current.first;
          joined.last = next.last;
          joined.from = day.from + time.from;
          joined.to = day.from + time.to;
          joined.relative = day.relative;
          joined.time_of_day = false;
          out.push_back(joined);
          ++k;
          continue;
        }
      }
      out.push_back(current);
    }
    return out;
  }

  std::string_view text_;
  const std::vector<Lexeme>& lx_;
  std::size_t n_;
  std::int64_t ref_ = 0;
  std::int64_t ref_day_ = 0;
  Civil ref_civil_;
  int ref_weekday_ = 0;
  std::vector<Tense> tense_;
  std::vector<std::uint8_t> ability_;  // the sentence has "can" / "could" / "able" / "take(s)"
};

}  // namespace

std::string_view GranularityName(Granularity granularity) {
  switch (granularity) {
    case Granularity::kInstant:
      return "instant";
    case Granularity::kMinute:
      return "minute";
    case Granularity::kHour:
      return "hour";
    case Granularity::kPartOfDay:
      return "part_of_day";
    case Granularity::kDay:
      return "day";
    case Granularity::kWeek:
      return "week";
    case Granularity::kWeekend:
      return "weekend";
    case Granularity::kMonth:
      return "month";
    case Granularity::kSeason:
      return "season";
    case Granularity::kYear:
      return "year";
    case Granularity::kDecade:
      return "decade";
    case Granularity::kVague:
      return "vague";
  }
  return "unknown";
}

std::string FormatInterval(Timestamp from, Timestamp to) {
  auto format = [](Timestamp time, bool date_only) {
    if (!date_only) return FormatTimestamp(time);
    const Civil civil = CivilFromDays(FloorDiv(time.micros, kMicrosPerDay));
    char buffer[32];
    std::snprintf(buffer, sizeof(buffer), "%04lld-%02d-%02d", static_cast<long long>(civil.year),
                  civil.month, civil.day);
    return std::string(buffer);
  };
  const bool date_only = from.micros % kMicrosPerDay == 0 && to.micros % kMicrosPerDay == 0;
  return format(from, date_only) + "/" + format(to, date_only);
}

std::vector<Lexeme> Lex(std::string_view text) {
  const std::size_t limit = std::min<std::size_t>(text.size(), 0xFFFFFFFFu);
  std::vector<Lexeme> lexemes;
  lexemes.reserve(limit / 5 + 4);
  bool space = true;
  bool newline = false;
  std::size_t pos = 0;
  auto push = [&](std::size_t begin, std::size_t end, LexemeKind kind) {
    Lexeme lexeme;
    lexeme.begin = static_cast<std::uint32_t>(begin);
    lexeme.end = static_cast<std::uint32_t>(end);
    lexeme.kind = kind;
    lexeme.space_before = space;
    lexeme.newline_before = newline;
    lexeme.lower = LowerAscii(text.substr(begin, end - begin));
    const CodePoint first = DecodeAt(text, begin, limit);
    lexeme.capitalized = first.value >= 0 && IsUpperCp(first.value);
    lexemes.push_back(std::move(lexeme));
    space = false;
    newline = false;
  };
  while (pos < limit) {
    const CodePoint cp = DecodeAt(text, pos, limit);
    if (cp.value >= 0 && IsSpaceCp(cp.value)) {
      space = true;
      if (IsLineBreak(cp.value)) newline = true;
      pos += cp.length;
      continue;
    }
    const bool digit = IsAsciiDigit(cp.value);
    if (cp.value >= 0 && (digit || IsLetterCp(cp.value) || cp.value == '_')) {
      const std::size_t begin = pos;
      bool has_letter = false;
      bool has_digit = false;
      bool has_other = false;  // '_' or apostrophe
      std::size_t first_non_digit = std::string_view::npos;
      while (pos < limit) {
        const CodePoint c = DecodeAt(text, pos, limit);
        if (c.value < 0) break;
        if (IsAsciiDigit(c.value)) {
          has_digit = true;
        } else if (IsLetterCp(c.value)) {
          has_letter = true;
        } else if (c.value == '_') {
          has_other = true;
        } else if (IsApostropheCp(c.value) && (has_letter || has_digit) && pos + c.length < limit) {
          const CodePoint after = DecodeAt(text, pos + c.length, limit);
          if (after.value < 0 || !IsLetterCp(after.value) || IsAsciiDigit(after.value)) break;
          has_other = true;
        } else {
          break;
        }
        if (first_non_digit == std::string_view::npos && !IsAsciiDigit(c.value)) {
          first_non_digit = pos;
        }
        pos += c.length;
      }
      if (!has_letter && !has_other) {
        push(begin, pos, LexemeKind::kNumber);
      } else if (!has_digit) {
        push(begin, pos,
             has_other && text.substr(begin, pos - begin).find('_') != std::string_view::npos
                 ? LexemeKind::kAlnum
                 : LexemeKind::kWord);
      } else if (digit && !has_other && first_non_digit != std::string_view::npos) {
        // Digits then letters: split off a known suffix ("8th", "3pm", "5km", "1990s").
        bool letters_only = true;
        for (std::size_t k = first_non_digit; k < pos; ++k) {
          if (!IsAsciiAlpha(static_cast<unsigned char>(text[k]))) letters_only = false;
        }
        const std::string suffix = LowerAscii(text.substr(first_non_digit, pos - first_non_digit));
        if (letters_only && IsNumberSuffix(suffix)) {
          push(begin, first_non_digit, LexemeKind::kNumber);
          push(first_non_digit, pos, LexemeKind::kWord);
        } else {
          push(begin, pos, LexemeKind::kAlnum);
        }
      } else {
        push(begin, pos, LexemeKind::kAlnum);
      }
      continue;
    }
    push(pos, pos + cp.length, LexemeKind::kPunct);
    pos += cp.length;
  }
  // Sentence starts: the first lexeme, after a line break, after . ! ? (not after a one-letter
  // word or a title such as "Dr.", and only when followed by a space), skipping closing quotes.
  bool pending = true;
  for (std::size_t index = 0; index < lexemes.size(); ++index) {
    Lexeme& lexeme = lexemes[index];
    if (lexeme.newline_before) pending = true;
    if (pending && !(lexeme.kind == LexemeKind::kPunct && IsClosingPunct(lexeme.lower))) {
      lexeme.sentence_start = true;
      pending = false;
    }
    if (lexeme.kind == LexemeKind::kPunct && IsTerminator(lexeme.lower)) {
      const bool followed_by_space = index + 1 >= lexemes.size() || lexemes[index + 1].space_before;
      bool abbreviation = false;
      if (lexeme.lower == "." && index > 0 && lexemes[index - 1].kind == LexemeKind::kWord) {
        const std::string_view before = lexemes[index - 1].lower;
        static constexpr std::array<std::string_view, 10> kTitles = {
            "mr", "mrs", "ms", "dr", "prof", "st", "vs", "jr", "sr", "mt"};
        // An initial ("J. Smith"), an inner dot of "e.g." / "i.e.", or a title.
        const bool initial = before.size() == 1 && lexemes[index - 1].capitalized;
        const bool dotted = before.size() == 1 && index >= 2 && lexemes[index - 2].lower == "." &&
                            !lexemes[index - 1].space_before;
        abbreviation =
            initial || dotted || std::find(kTitles.begin(), kTitles.end(), before) != kTitles.end();
      }
      if (followed_by_space && !abbreviation) pending = true;
    }
  }
  return lexemes;
}

std::vector<TimeMention> FindTimeExpressions(std::string_view text,
                                             const std::vector<Lexeme>& lexemes,
                                             Timestamp reference) {
  Parser parser(text, lexemes, reference);
  return parser.Run();
}

std::vector<TimeMention> FindTimeExpressions(std::string_view text, Timestamp reference) {
  const std::vector<Lexeme> lexemes = Lex(text);
  return FindTimeExpressions(text, lexemes, reference);
}

}  // namespace engram::text
