// Temporal expression parser: finds dates, times and relative time expressions in a turn and
// resolves each one to an absolute half-open UTC interval, using the turn's event time as the
// reference (DESIGN §4.2, KeyMem "time points").
//
// Why: "yesterday", "last March" or "two weeks ago" mean nothing once the turn is read a month
// later; the write path stores the absolute interval next to the text so the temporal route and
// the narratives can use real dates. Everything is deterministic, hand-written (no std::regex)
// and runs in time linear in the text (every rule looks ahead a bounded number of lexemes).
//
//   using engram::text::FindTimeExpressions;
//   auto mentions = FindTimeExpressions("I moved to Berlin last March",
//                                       *engram::ParseTimestamp("2024-05-10T12:00:00Z"));
//   // mentions[0]: surface "last March", [2024-03-01, 2024-04-01), kMonth, relative = true
//
// Resolution rules (the choices a reader needs to know; the reference is taken in UTC):
//   - Numeric dates: "2023-05-08", "2023/05/08" are Y-M-D. "05/08/2023" and "05-08-2023" are
//     US order M/D/Y, except that D/M/Y is used when the first number is > 12 and the second is
//     <= 12 ("25/12/2023"). "08.05.2023" (dots, four-digit year) is European D.M.Y. Two-digit
//     years: 00-69 -> 20xx, 70-99 -> 19xx. "5/8" without a year is not a date (fractions, scores).
//   - Tense: each sentence is read as past, future or unknown, and the tense picks the
//     occurrence wherever the text leaves out a year, a month or a week. Past evidence: a past
//     verb (an irregular form such as "went", "met", or a lower-case "-ed" word not after a form
//     of "be", an intensifier or a determiner: "I'm tired" is not past), "ago", "yesterday".
//     Future evidence: "will", "'ll", "going", "gonna", "plan", "soon", "next", the modals that
//     look ahead ("might", "should", "can", "need", "want"). A present sentence without past
//     evidence ("It's on 13 October", "we have a gig on Friday", "I start on Monday", "we're
//     moving") speaks of what is scheduled and reads as the future (chrono-node's forwardDate). Past and future evidence together, or a sentence without a verb ("back on
//     Wednesday"), leave it unknown. "since <time>" is always past ("ill since Monday").
//   - A day and month without a year ("May 8th", "the 8th of May") take the year given by the
//     sentence tense: past tense -> the most recent such date not after the reference day;
//     future tense -> the first one not before it; otherwise the one closest to the reference
//     (ties: the past one).
//   - Ranges keep both ends, one mention spanning them: "17 to 21 October" (the first day takes
//     the second one's month and year), "October 17-21", "from Monday to Wednesday" (an end
//     weekday before the start is the one of the week after), "between June and August". A
//     word connector ("to", "until") needs "from" / "between" before two full dates; the range
//     keeps its ends' granularity (day or month).
//   - Fixed-date holidays (Christmas, Christmas Eve, Boxing Day, New Year's Eve / Day,
//     Valentine's Day, St Patrick's Day, Halloween) are days chosen like "13 October"; "last
//     Christmas" / "next Halloween" follow "last December" / "next October".
//   - A day of the month alone needs a preposition and an ordinal ("on the 15th", "by the 3rd"),
//     or a clause that opens with a numeric ordinal followed by a verb or nothing ("the 9th it
//     is", "The 12th works for me"): the month is chosen by the same tense rule (closest when
//     the tense is unknown).
//   - "in June" / "during June" / bare month with a cue: past or unknown tense -> the most recent
//     June not after the reference month; future tense -> the first June not before it.
//     "last June" = the most recent June strictly before the reference month (on 2024-05-10
//     "last March" is March 2024, "last May" is May 2023); "next June" = the first June strictly
//     after the reference month; "this June" = June of the reference year, or the coming June
//     when that one is over and the sentence is about the future.
//   - Weekdays: "last Tuesday" = the most recent Tuesday strictly before the reference day (1-7
//     days back); "next Friday" = the first Friday strictly after it (1-7 days ahead); "this
//     Friday" = the Friday of the reference's ISO week (Monday-Sunday), or, when that day is
//     over and the sentence is about the future, the coming one. A bare weekday ("on
//     Tuesday"): past-tense sentence -> 1-7 days back; future-tense -> 1-7 days ahead; otherwise
//     the nearest one within 3 days back (including today) or 3 days ahead. "every Tuesday" is
//     a frequency, not a day.
//   - Weeks are ISO weeks (Monday 00:00 to Monday 00:00). "last week" / "the week before" = the
//     week before the reference's week; "this week"; "next week" / "the week after". The same
//     "the <unit> before/after" rule holds for day, weekend, month and year, but only when no
//     noun phrase follows ("the day after the party" is anchored on the party: not resolved).
//   - Weekends are Saturday 00:00 to Monday 00:00. "this weekend" = the weekend of the reference's
//     ISO week; "last weekend" / "this past weekend" the one of the week before; "next weekend"
//     the one of the week after; "the weekend" / "over the weekend" follow the tense (past: the
//     most recent one that started before the reference day; future: the next one that has not
//     ended; otherwise this weekend).
//   - Seasons are northern-hemisphere meteorological seasons: spring = March-May, summer =
//     June-August, autumn/fall = September-November, winter = December-February; "winter 2023"
//     is December 2023 to February 2024. "last summer" = the most recent summer that ended on or
//     before the reference day; "next summer" = the first one that starts after it; "this
//     summer" = the one of the reference year (for winter: the one containing the reference, or
//     else the one starting in December of the reference year).
//   - "N units ago" / "N units back", "in N units" / "N units from now" (only when the sentence
//     is not in the past tense: "I did it in 3 days" is a duration): seconds and minutes resolve
//     to a minute, hours to an hour, days to a day, weeks to the ISO week containing the shifted
//     day, months to the calendar month, years to the calendar year, decades to the decade.
//     Vague counts resolve to kVague intervals covering the range: "a few" = 2-5, "several" =
//     3-7 ("a few days ago" on 2024-05-10 = [2024-05-05, 2024-05-09)). "a couple (of)" = 2.
//     Counts are digits, "a"/"an", or number words one..twenty.
//   - Parts of day: morning 06-12, afternoon 12-18, evening 18-24, night 18-06 ("tonight" =
//     today 18-24; "last night" = yesterday 18:00 to today 06:00; "Friday night" = Friday 18:00
//     to Saturday 06:00).
//   - Clock times: "3pm", "3 p.m.", "3:30 pm", "15:30", "noon", "midnight", "3 o'clock". h:mm
//     without am/pm is read as a 24-hour clock. A time next to a day expression ("yesterday at
//     3pm", "3pm on Friday") is combined with it; a time alone applies to the reference day.
//     Whole hours resolve to the hour (kHour), h:mm to the minute (kMinute), h:mm:ss to the
//     second (kInstant).
//   - Years: a four-digit number 1000-2999 after a cue ("in", "since", "by", "of", "year", ...)
//     is a year; a bare one needs 1900-2099 and must not be followed by a word that makes it a
//     quantity ("2000 followers"). "the 1990s" / "the 90s" / "the '90s" are decades.
// False-positive guards: "may" and "march" are months only with a day number or year next to
// them, or (capitalised) after a date cue ("in May", "last March"; lower case after
// last / next / this only where the clause ends: "since last march."); never right after a subject
// pronoun ("I may 5..."). Month abbreviations ("Jan", "Mar", "Sept.") need a day or a year.
// Weekday abbreviations are not recognised. "second" is a unit only after a count.
//
// The parser reads the lexemes of text/lexer.h; its driver is temporal.cc and its matchers are
// temporal_calendar.cc and temporal_relative.cc (temporal_parser.h, internal).
//
// Thread-safety: pure functions, safe to call from any number of threads.
#ifndef ENGRAM_TEXT_TEMPORAL_H_
#define ENGRAM_TEXT_TEMPORAL_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engram/types.h"
#include "text/lexer.h"

namespace engram::text {

// How precise a resolved interval is.
enum class Granularity {
  kInstant,    // a second: "2023-05-08T13:56:10Z"
  kMinute,     // "3:30 pm"
  kHour,       // "3pm", "two hours ago"
  kPartOfDay,  // "this morning", "tonight", "Friday night"
  kDay,        // "yesterday", "8 May 2023"
  kWeek,       // "next week", "two weeks ago"
  kWeekend,    // "this weekend"
  kMonth,      // "May 2023", "last March"
  kSeason,     // "last summer"
  kYear,       // "2022", "last year"
  kDecade,     // "the 1990s"
  kVague,      // "a few days ago": an interval covering the plausible range
};
// "instant", "minute", "hour", "part_of_day", "day", "week", "weekend", "month", "season",
// "year", "decade", "vague".
std::string_view GranularityName(Granularity granularity);

// One resolved time expression.
struct TimeMention {
  std::uint32_t begin = 0;  // byte span of the expression in the text (prepositions such as
  std::uint32_t end = 0;    // "on" / "in" are not part of it; "in" of "in 3 days" is)
  std::string surface;      // text[begin, end)
  Timestamp from;           // half-open interval [from, to) in UTC
  Timestamp to;
  Granularity granularity = Granularity::kDay;
  bool relative = false;  // the reference time was needed to resolve it

  friend bool operator==(const TimeMention&, const TimeMention&) = default;
};

// The time expressions of `text`, in order of appearance, non-overlapping (at each position the
// longest expression wins), resolved against `reference` (the turn's event time). Never fails:
// unparseable or out-of-range expressions (before year 1 or after 9999) are skipped.
std::vector<TimeMention> FindTimeExpressions(std::string_view text, Timestamp reference);

// "2024-05-09/2024-05-10" when both ends are midnights, else "2024-05-09T15:00:00Z/..." (ISO-8601
// intervals; each half parses with engram::ParseTimestamp).
std::string FormatInterval(Timestamp from, Timestamp to);

// FindTimeExpressions over lexemes already computed with Lex(text) (text/lexer.h), for callers
// that read the same lexemes for more than time expressions.
std::vector<TimeMention> FindTimeExpressions(std::string_view text,
                                             const std::vector<Lexeme>& lexemes,
                                             Timestamp reference);

}  // namespace engram::text

#endif  // ENGRAM_TEXT_TEMPORAL_H_
