// The Parser's calendar expressions (temporal_parser.h): what names a place on the calendar —
// numeric dates, a day and a month, the month forms, the day of the month, years, decades and
// seasons. When the text leaves out the year (or the month), the reference and the sentence's
// tense pick the occurrence (the rules of temporal.h).
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>

#include "text/temporal_parser.h"

namespace engram::text::temporal_detail {

// The month index of `month` chosen by the tense rule (temporal.h).
std::int64_t Parser::MonthByTense(int month, Tense tense) const {
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
std::optional<std::int64_t> Parser::DayByTense(int month, int day, Tense tense) const {
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

// "2023-05-08", "2023-05-08T13:56:00Z", "05/08/2023", "25/12/23", "08.05.2023".
std::optional<Match> Parser::NumericDate(std::size_t i) const {
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
std::optional<std::pair<int, std::size_t>> Parser::DayAt(std::size_t i, bool allow_words) const {
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
std::optional<std::pair<std::int64_t, std::size_t>> Parser::YearAt(std::size_t i) const {
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
std::optional<std::pair<const MonthWord*, std::size_t>> Parser::MonthWordAt(std::size_t i) const {
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
std::optional<Match> Parser::DayMonth(std::size_t i) const {
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
std::optional<Match> Parser::OrdinalDay(std::size_t i) const {
  if (!Word(i, "the")) return std::nullopt;
  const std::string_view cue = PrevWord(i);
  const bool cued = cue == "on" || cue == "by" || cue == "until" || cue == "till" ||
                    cue == "before" || cue == "after" || cue == "since";
  // A clause that opens with a numeric ordinal and goes on with a verb or ends names a day:
  // "the 9th it is", "The 12th works for me", "ok, the 3rd then".
  const bool clause_start = lx_[i].sentence_start || (i > 0 && Punct(i - 1, ","));
  if (!cued && !clause_start) return std::nullopt;
  const auto day = DayAt(i + 1, /*allow_words=*/true);
  if (!day) return std::nullopt;
  if (lx_[i + 1].kind == LexemeKind::kNumber && day->second == i + 2) return std::nullopt;
  if (MonthAt(day->second) != nullptr || Word(day->second, "of")) return std::nullopt;
  if (!cued) {
    if (lx_[i + 1].kind != LexemeKind::kNumber) return std::nullopt;
    const std::size_t next = day->second;
    const bool closes = next >= n_ || lx_[next].kind == LexemeKind::kPunct || Word(next, "it") ||
                        Word(next, "is") || Word(next, "works") || Word(next, "then") ||
                        Word(next, "would") || Word(next, "suits");
    if (!closes) return std::nullopt;
  }
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
std::optional<Match> Parser::MonthFirst(std::size_t i) const {
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
        return DayMatch(i, year->second, DaysFromCivil(year->first, word.month, day->first), false);
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
  // "last march" in lower case is a month where a sentence or clause ends with it ("since last
  // march"); elsewhere ("the last march of the war") it is the noun.
  if (word.ambiguous && !lx_[month_lexeme].capitalized &&
      (PrevWord(i) == "the" || (at < n_ && lx_[at].kind != LexemeKind::kPunct))) {
    return std::nullopt;
  }
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
  } else if (tense == Tense::kFuture && candidate < ref_month) {
    candidate += 12;  // "this June" in a sentence about the future, said after June: the next one
  }
  return MonthMatch(i, at, candidate, true);
}

// Years and decades: "in 2022", "2022", "the year 2022", "1990s", "the 90s", "the '90s".
std::optional<Match> Parser::Year(std::size_t i) const {
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

// Seasons: "last summer", "this spring", "next winter", "in (the) summer", "summer 2023",
// "(the) summer of 2023".
std::optional<Match> Parser::SeasonExpr(std::size_t i) const {
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

std::optional<std::size_t> Parser::RangeConnector(std::size_t i, std::size_t range_start) const {
  if (Word(i, "to") || Word(i, "until") || Word(i, "till") || Word(i, "through") ||
      Word(i, "thru") || Punct(i, "-") || Punct(i, "\xE2\x80\x93")) {
    return i + 1;
  }
  if (Word(i, "and") && PrevWord(range_start) == "between") return i + 1;
  return std::nullopt;
}

// "17 to 21 October", "2-5 September 2024", "between 3 and 5 May": the first day takes the
// month and year the second one resolves to, and the match is the whole span.
std::optional<Match> Parser::DayRange(std::size_t i) const {
  const auto first_day = DayAt(i, /*allow_words=*/false);
  if (!first_day) return std::nullopt;
  const auto next = RangeConnector(first_day->second, i);
  if (!next) return std::nullopt;
  const std::optional<Match> end = DayMonth(*next);
  if (!end || end->granularity != Granularity::kDay) return std::nullopt;
  const std::int64_t end_day = FloorDiv(end->from, kMicrosPerDay);
  const int end_of_month = CivilFromDays(end_day).day;
  if (first_day->first >= end_of_month) return std::nullopt;
  return DaysMatch(i, end->last, end_day - (end_of_month - first_day->first), end_day + 1,
                   Granularity::kDay, end->relative);
}

// "October 17 to 21", "October 17-21, 2024": the month's days from the first to the second.
std::optional<Match> Parser::MonthDayRange(std::size_t i) const {
  const auto month = MonthWordAt(i);
  if (!month) return std::nullopt;
  const auto first_day = DayAt(month->second, /*allow_words=*/false);
  if (!first_day) return std::nullopt;
  const auto next = RangeConnector(first_day->second, i);
  if (!next) return std::nullopt;
  const auto last_day = DayAt(*next, /*allow_words=*/false);
  if (!last_day || last_day->first <= first_day->first) return std::nullopt;
  if (MonthAt(last_day->second) != nullptr) return std::nullopt;  // "May 30 to 2 June"
  const int month_number = month->first->month;
  if (const auto year = YearAt(last_day->second); year) {
    if (last_day->first > DaysInMonth(year->first, month_number)) return std::nullopt;
    const std::int64_t start = DaysFromCivil(year->first, month_number, first_day->first);
    return DaysMatch(i, year->second, start, start + (last_day->first - first_day->first) + 1,
                     Granularity::kDay, false);
  }
  const auto start = DayByTense(month_number, first_day->first, TenseAt(i));
  if (!start) return std::nullopt;
  if (last_day->first > DaysInMonth(CivilFromDays(*start).year, month_number)) {
    return std::nullopt;
  }
  return DaysMatch(i, last_day->second, *start, *start + (last_day->first - first_day->first) + 1,
                   Granularity::kDay, true);
}

// Holidays on a fixed day: Christmas (Eve / Day), Boxing Day, New Year's Eve / Day,
// Valentine's Day, St Patrick's Day, Halloween. Without a modifier the tense picks the
// occurrence as for "13 October"; "last" / "next" follow "last March" / "next March" (the
// holiday's month strictly before / after the reference month).
std::optional<Match> Parser::Holiday(std::size_t i) const {
  std::size_t at = i;
  std::string_view modifier;
  if (Word(at, "last") || Word(at, "this") || Word(at, "next")) {
    modifier = lx_[at].lower;
    ++at;
  }
  int month = 0;
  int day = 0;
  std::size_t last = at;
  if (Word(at, "christmas")) {
    month = 12;
    day = 25;
    last = at + 1;
    if (Word(at + 1, "eve")) {
      day = 24;
      last = at + 2;
    } else if (Word(at + 1, "day")) {
      last = at + 2;
    }
  } else if (Word(at, "boxing") && Word(at + 1, "day")) {
    month = 12;
    day = 26;
    last = at + 2;
  } else if (Word(at, "new") && (Word(at + 1, "year's") || Word(at + 1, "years")) &&
             (Word(at + 2, "eve") || Word(at + 2, "day"))) {
    month = Word(at + 2, "eve") ? 12 : 1;
    day = Word(at + 2, "eve") ? 31 : 1;
    last = at + 3;
  } else if ((Word(at, "valentine's") || Word(at, "valentines")) && Word(at + 1, "day")) {
    month = 2;
    day = 14;
    last = at + 2;
  } else if ((Word(at, "st") || Word(at, "saint")) && Word(at + 1, "patrick's") &&
             Word(at + 2, "day")) {
    month = 3;
    day = 17;
    last = at + 3;
  } else if (Word(at, "halloween")) {
    month = 10;
    day = 31;
    last = at + 1;
  } else {
    return std::nullopt;
  }
  if (modifier == "last" || modifier == "next") {
    std::int64_t candidate = MonthIndex(ref_civil_.year, month);
    const std::int64_t ref_month = RefMonthIndex();
    if (modifier == "last") {
      while (candidate >= ref_month) candidate -= 12;
    } else {
      while (candidate <= ref_month) candidate += 12;
    }
    return DayMatch(i, last, MonthStartDay(candidate) + day - 1, true);
  }
  Tense tense = TenseAt(i);
  if (modifier == "this" && tense == Tense::kUnknown) tense = Tense::kFuture;
  const auto resolved = DayByTense(month, day, tense);
  if (!resolved) return std::nullopt;
  return DayMatch(i, last, *resolved, true);
}

}  // namespace engram::text::temporal_detail
