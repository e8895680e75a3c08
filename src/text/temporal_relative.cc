// The Parser's relative expressions (temporal_parser.h): what counts from the reference —
// today / yesterday / tonight, weekdays, "3 days ago" and "in two weeks", named periods ("last
// week", "the weekend", "earlier this month") and clock times, which temporal.cc joins with a
// day or applies to the reference day.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>

#include "text/temporal_parser.h"

namespace engram::text::temporal_detail {

// today, tonight, tomorrow, yesterday, the day before yesterday, the day after tomorrow,
// this morning / afternoon / evening, last night, the other day.
std::optional<Match> Parser::RelativeDay(std::size_t i) const {
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
std::optional<Match> Parser::Weekday(std::size_t i) const {
  std::size_t at = i;
  std::string_view modifier;
  if (Word(at, "last") || Word(at, "this") || Word(at, "next") || Word(at, "coming") ||
      Word(at, "past")) {
    modifier = lx_[at].lower;
    ++at;
  }
  const int weekday = WeekdayAt(at);
  if (weekday < 0) return std::nullopt;
  // "every Monday", "each Friday": a frequency, not a day.
  if (modifier.empty() && (PrevWord(at) == "every" || PrevWord(at) == "each")) return std::nullopt;
  const int back = (ref_weekday_ - weekday + 7) % 7;  // 0..6 days back to that weekday
  std::int64_t day = 0;
  if (modifier == "last" || modifier == "past") {
    day = ref_day_ - (back == 0 ? 7 : back);
  } else if (modifier == "next" || modifier == "coming") {
    const int ahead = (weekday - ref_weekday_ + 7) % 7;
    day = ref_day_ + (ahead == 0 ? 7 : ahead);
  } else if (modifier == "this") {
    // The day of the reference's ISO week; a sentence about the future means the coming one
    // when that day is already over ("this Friday" said on a Saturday).
    day = ref_day_ - ref_weekday_ + weekday;
    if (day < ref_day_ && TenseAt(at) == Tense::kFuture) day += 7;
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

std::optional<Parser::Count> Parser::CountAt(std::size_t i) const {
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
std::pair<std::int64_t, std::int64_t> Parser::ShiftedUnit(Unit unit, std::int64_t amount) const {
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

Granularity Parser::UnitGranularity(Unit unit) {
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

Match Parser::CountMatch(std::size_t first, std::size_t last, const Count& count, Unit unit,
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
std::optional<Match> Parser::Ago(std::size_t i) const {
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
std::optional<Match> Parser::InCount(std::size_t i) const {
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
std::optional<Match> Parser::NamedPeriod(std::size_t i) const {
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
      if (next < n_ && (lx_[next].kind == LexemeKind::kNumber ||
                        (IsWordKind(next) &&
                         (lx_[next].capitalized || Lower(next) == "the" || Lower(next) == "a" ||
                          Lower(next) == "my" || Lower(next) == "his" || Lower(next) == "her" ||
                          Lower(next) == "our" || Lower(next) == "their" || Lower(next) == "that" ||
                          Lower(next) == "this" || Lower(next) == "your" || Lower(next) == "an" ||
                          Lower(next) == "yesterday" || Lower(next) == "tomorrow" ||
                          Lower(next) == "last" || Lower(next) == "next")))) {
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

// Clock times: "3pm", "3 pm", "3 p.m.", "3:30 pm", "15:30", "15:30:10", "noon", "midnight",
// "3 o'clock". A time alone is a time of day (combined with a day later).
std::optional<Match> Parser::Clock(std::size_t i) const {
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

}  // namespace engram::text::temporal_detail
