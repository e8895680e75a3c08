// Civil (proleptic Gregorian) calendar arithmetic: day numbers counted from 1970-01-01 and back,
// leap years, month lengths and weekdays. The one place engram does calendar arithmetic: the
// timestamp parser and formatter (core/time.cc) and the temporal expression parser
// (text/temporal.cc) both call it.
//
// The conversions are Howard Hinnant's algorithms ("chrono-Compatible Low-Level Date
// Algorithms"), exact for every year representable in std::int64_t days.
//
//   const std::int64_t day = engram::core::DaysFromCivil(2024, 3, 1);   // 19783
//   const engram::core::CivilDate date = engram::core::CivilFromDays(day);  // {2024, 3, 1}
//   engram::core::WeekdayOf(day);                                       // 4 (Friday)
//
// Thread-safety: pure functions.
#ifndef ENGRAM_CORE_CIVIL_DATE_H_
#define ENGRAM_CORE_CIVIL_DATE_H_

#include <cstdint>

namespace engram::core {

struct CivilDate {
  std::int64_t year = 1970;
  int month = 1;  // 1..12
  int day = 1;    // 1..31

  friend bool operator==(const CivilDate&, const CivilDate&) = default;
};

// Days since 1970-01-01 of year-month-day (month 1..12, day 1..31; not range-checked).
constexpr std::int64_t DaysFromCivil(std::int64_t year, int month, int day) {
  year -= month <= 2 ? 1 : 0;
  const std::int64_t era = (year >= 0 ? year : year - 399) / 400;
  const std::int64_t year_of_era = year - era * 400;
  const std::int64_t day_of_year = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
  const std::int64_t day_of_era =
      year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  return era * 146097 + day_of_era - 719468;
}

// The date of day number `days` (days since 1970-01-01).
constexpr CivilDate CivilFromDays(std::int64_t days) {
  days += 719468;
  const std::int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const std::int64_t day_of_era = days - era * 146097;
  const std::int64_t year_of_era =
      (day_of_era - day_of_era / 1460 + day_of_era / 36524 - day_of_era / 146096) / 365;
  const std::int64_t day_of_year =
      day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
  const std::int64_t shifted_month = (5 * day_of_year + 2) / 153;  // 0 = March
  const int day = static_cast<int>(day_of_year - (153 * shifted_month + 2) / 5 + 1);
  const int month = static_cast<int>(shifted_month < 10 ? shifted_month + 3 : shifted_month - 9);
  return {year_of_era + era * 400 + (month <= 2 ? 1 : 0), month, day};
}

constexpr bool IsLeapYear(std::int64_t year) {
  return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
}

// Days in `month` (1..12) of `year`.
constexpr int DaysInMonth(std::int64_t year, int month) {
  constexpr int kDays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month == 2 && IsLeapYear(year) ? 29 : kDays[month - 1];
}

// 0 = Monday ... 6 = Sunday for day number `days` (1970-01-01 was a Thursday).
constexpr int WeekdayOf(std::int64_t days) { return static_cast<int>(((days % 7) + 7 + 3) % 7); }

}  // namespace engram::core

#endif  // ENGRAM_CORE_CIVIL_DATE_H_
