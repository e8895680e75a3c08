// The temporal Parser shared by temporal.cc and the temporal_*.cc files: one object per
// FindTimeExpressions call holding the text, its lexemes (text/lexer.h), the reference time
// (the utterance's: as a day number, a civil date and a weekday) and each lexeme's sentence
// tense. Each matcher looks at a bounded window of lexemes from one position and returns what it
// recognises already resolved against the reference; the driver in temporal.cc keeps the longest
// match at each position, extends a day with a part of the day and joins a day with a clock time.
// The matchers live in two files by what the expression names:
//   temporal_calendar.cc  a place on the calendar: numeric dates, day and month, month forms
//                         ("May 2023", "in June", "last March", "early June"), the day of the
//                         month ("on the 15th"), years, decades and seasons; the reference picks
//                         the occurrence when the year (or month) is left out
//   temporal_relative.cc  a distance from the reference: today / yesterday / tonight, weekdays,
//                         counts ("3 days ago", "in two weeks"), named periods ("last week",
//                         "the weekend") and clock times
//
// Internal to engram_text: include only from the temporal*.cc files.
//
// Thread-safety: one Parser per call; not shared between threads.
#ifndef ENGRAM_TEXT_TEMPORAL_PARSER_H_
#define ENGRAM_TEXT_TEMPORAL_PARSER_H_

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/civil_date.h"
#include "engram/types.h"
#include "text/lexer.h"
#include "text/temporal.h"

namespace engram::text::temporal_detail {

inline constexpr std::int64_t kMicrosPerSecond = 1'000'000;
inline constexpr std::int64_t kMicrosPerMinute = 60 * kMicrosPerSecond;
inline constexpr std::int64_t kMicrosPerHour = 60 * kMicrosPerMinute;
inline constexpr std::int64_t kMicrosPerDay = 24 * kMicrosPerHour;

// ---------------------------------------------------------------------------------------------
// Calendar arithmetic: day numbers from core/civil_date.h, months counted from year 0.

inline std::int64_t FloorDiv(std::int64_t a, std::int64_t b) {
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
inline std::int64_t MonthIndex(std::int64_t year, int month) { return year * 12 + (month - 1); }
inline std::int64_t MonthStartDay(std::int64_t month_index) {
  return DaysFromCivil(FloorDiv(month_index, 12),
                       static_cast<int>(month_index - FloorDiv(month_index, 12) * 12) + 1, 1);
}

inline constexpr std::int64_t kMinDay = DaysFromCivil(1, 1, 1);
inline constexpr std::int64_t kMaxDay = DaysFromCivil(10000, 1, 1);

// ---------------------------------------------------------------------------------------------
// Lexeme helpers.

// Word equality with a first-byte fast path (most rule comparisons fail on the first byte).
inline bool SameWord(std::string_view a, std::string_view b) {
  return a.size() == b.size() && (a.empty() || (a[0] == b[0] && a == b));
}

inline bool IsAsciiDigit(std::int32_t c) { return c >= '0' && c <= '9'; }

// ---------------------------------------------------------------------------------------------
// Vocabulary.

struct MonthWord {
  std::string_view name;
  int month;
  bool abbreviation;
  bool ambiguous;  // also a common English word: needs a day, a year or a capital + cue
};

inline constexpr std::array<MonthWord, 24> kMonthWords = {{
    {"january", 1, false, false},   {"jan", 1, true, false},        {"february", 2, false, false},
    {"feb", 2, true, false},        {"march", 3, false, true},      {"mar", 3, true, false},
    {"april", 4, false, false},     {"apr", 4, true, false},        {"may", 5, false, true},
    {"june", 6, false, false},      {"jun", 6, true, false},        {"july", 7, false, false},
    {"jul", 7, true, false},        {"august", 8, false, true},     {"aug", 8, true, false},
    {"september", 9, false, false}, {"sep", 9, true, false},        {"sept", 9, true, false},
    {"october", 10, false, false},  {"oct", 10, true, false},       {"november", 11, false, false},
    {"nov", 11, true, false},       {"december", 12, false, false}, {"dec", 12, true, false},
}};

inline constexpr std::array<std::string_view, 7> kWeekdays = {
    "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"};

inline constexpr std::array<std::string_view, 21> kNumberWords = {
    "zero",     "one",     "two",     "three",     "four",     "five",     "six",
    "seven",    "eight",   "nine",    "ten",       "eleven",   "twelve",   "thirteen",
    "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"};

inline constexpr std::array<std::string_view, 21> kOrdinalWords = {
    "",           "first",     "second",    "third",       "fourth",     "fifth",      "sixth",
    "seventh",    "eighth",    "ninth",     "tenth",       "eleventh",   "twelfth",    "thirteenth",
    "fourteenth", "fifteenth", "sixteenth", "seventeenth", "eighteenth", "nineteenth", "twentieth"};

// Words before a month / season / year that make it a date.
inline bool IsDateCue(std::string_view word) {
  static constexpr std::array<std::string_view, 20> kCues = {
      "in",    "during",     "since",   "until",  "till",  "til",    "through",
      "by",    "from",       "to",      "before", "after", "around", "of",
      "early", "throughout", "between", "late",   "mid",   "circa"};
  return std::find(kCues.begin(), kCues.end(), word) != kCues.end();
}

inline bool IsSubjectPronoun(std::string_view word) {
  static constexpr std::array<std::string_view, 12> kPronouns = {
      "i", "you", "we", "they", "he", "she", "it", "who", "that", "which", "this", "one"};
  return std::find(kPronouns.begin(), kPronouns.end(), word) != kPronouns.end();
}

enum class Unit { kSecond, kMinute, kHour, kDay, kWeek, kFortnight, kMonth, kYear, kDecade };

inline std::optional<Unit> UnitOf(std::string_view word) {
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

inline std::optional<Season> SeasonOf(std::string_view word) {
  if (word == "spring") return Season::kSpring;
  if (word == "summer") return Season::kSummer;
  if (word == "autumn" || word == "fall") return Season::kAutumn;
  if (word == "winter") return Season::kWinter;
  return std::nullopt;
}

// First month of the season occurrence labelled `year` (winter Y starts in December Y).
inline std::int64_t SeasonStartMonth(Season season, std::int64_t year) {
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

inline std::optional<DayPart> DayPartOf(std::string_view word) {
  if (word == "morning") return DayPart{6, 12};
  if (word == "afternoon") return DayPart{12, 18};
  if (word == "evening" || word == "night") return DayPart{18, 24};
  return std::nullopt;
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

  // The time expressions of the text, in order and non-overlapping (temporal.cc).
  std::vector<TimeMention> Run();

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

  // ----- the driver (temporal.cc)
  // Sentence tense (see temporal.h) and whether the sentence states an ability.
  void ComputeTenses();
  // The longest match starting at lexeme i, if any.
  std::optional<Match> Best(std::size_t i) const;
  void ExtendWithDayPart(Match& match) const;
  std::vector<Match> Compose(const std::vector<Match>& matches) const;
  std::optional<Match> JoinRange(const Match& start, const Match& end) const;

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

  // ----- calendar expressions (temporal_calendar.cc); a matcher returns the match starting at
  // lexeme i, if any.
  std::int64_t MonthByTense(int month, Tense tense) const;
  std::optional<std::int64_t> DayByTense(int month, int day, Tense tense) const;
  std::optional<Match> NumericDate(std::size_t i) const;
  std::optional<std::pair<int, std::size_t>> DayAt(std::size_t i, bool allow_words) const;
  std::optional<std::pair<std::int64_t, std::size_t>> YearAt(std::size_t i) const;
  std::optional<std::pair<const MonthWord*, std::size_t>> MonthWordAt(std::size_t i) const;
  std::optional<Match> DayMonth(std::size_t i) const;
  std::optional<Match> OrdinalDay(std::size_t i) const;
  std::optional<Match> MonthFirst(std::size_t i) const;
  std::optional<Match> Year(std::size_t i) const;
  std::optional<Match> SeasonExpr(std::size_t i) const;
  // Ranges inside one month: "17 to 21 October", "October 17-21, 2024".
  std::optional<Match> DayRange(std::size_t i) const;
  std::optional<Match> MonthDayRange(std::size_t i) const;
  // The lexeme after a range connector at i ("to", "-", "until", ...; "and" after "between"
  // at `range_start`), or nullopt.
  std::optional<std::size_t> RangeConnector(std::size_t i, std::size_t range_start) const;
  // Fixed-date holidays: "Christmas", "New Year's Eve", "last Halloween".
  std::optional<Match> Holiday(std::size_t i) const;

  // ----- relative expressions (temporal_relative.cc)
  std::optional<Match> RelativeDay(std::size_t i) const;
  std::optional<Match> Weekday(std::size_t i) const;
  // A count at i: digits, "a"/"an", number words, "a couple (of)", "a few", "several".
  struct Count {
    std::int64_t low;
    std::int64_t high;
    std::size_t next;
  };
  std::optional<Count> CountAt(std::size_t i) const;
  std::pair<std::int64_t, std::int64_t> ShiftedUnit(Unit unit, std::int64_t amount) const;
  static Granularity UnitGranularity(Unit unit);
  Match CountMatch(std::size_t first, std::size_t last, const Count& count, Unit unit,
                   int direction) const;
  std::optional<Match> Ago(std::size_t i) const;
  std::optional<Match> InCount(std::size_t i) const;
  std::optional<Match> NamedPeriod(std::size_t i) const;
  std::optional<Match> Clock(std::size_t i) const;

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

}  // namespace engram::text::temporal_detail

#endif  // ENGRAM_TEXT_TEMPORAL_PARSER_H_
