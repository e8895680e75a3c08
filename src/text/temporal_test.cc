// Tests for the temporal expression parser (text/temporal.h): absolute and relative dates,
// the documented ambiguity rules, clock times, false-positive traps, odd input and speed.
#include "text/temporal.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace engram::text {
namespace {

using ::testing::IsEmpty;

Timestamp At(std::string_view iso) {
  StatusOr<Timestamp> parsed = ParseTimestamp(iso);
  EXPECT_TRUE(parsed.ok()) << iso;
  return parsed.ok() ? *parsed : Timestamp{};
}

// "surface=from/to granularity" for each mention, for readable expectations.
std::vector<std::string> Describe(std::string_view text, std::string_view reference) {
  std::vector<std::string> out;
  for (const TimeMention& mention : FindTimeExpressions(text, At(reference))) {
    out.push_back(mention.surface + "=" + FormatInterval(mention.from, mention.to) + " " +
                  std::string(GranularityName(mention.granularity)));
  }
  return out;
}

// The single mention's "from/to", or "" when there is not exactly one.
std::string Only(std::string_view text, std::string_view reference) {
  const std::vector<TimeMention> mentions = FindTimeExpressions(text, At(reference));
  if (mentions.size() != 1) return "count=" + std::to_string(mentions.size());
  return FormatInterval(mentions[0].from, mentions[0].to);
}

constexpr std::string_view kFriday = "2024-05-10T12:00:00Z";  // a Friday

TEST(TemporalTest, YesterdayOnTheMustHaveDate) {
  const std::vector<TimeMention> mentions =
      FindTimeExpressions("I went there yesterday.", At("2024-05-10T09:30:00Z"));
  ASSERT_EQ(mentions.size(), 1u);
  EXPECT_EQ(mentions[0].surface, "yesterday");
  EXPECT_EQ(mentions[0].from, At("2024-05-09"));
  EXPECT_EQ(mentions[0].to, At("2024-05-10"));
  EXPECT_EQ(mentions[0].granularity, Granularity::kDay);
  EXPECT_TRUE(mentions[0].relative);
  EXPECT_EQ(mentions[0].begin, 13u);
  EXPECT_EQ(mentions[0].end, 22u);
}

TEST(TemporalTest, LastMonthNameIsMostRecentStrictlyBeforeReferenceMonth) {
  EXPECT_EQ(Describe("I moved to Berlin last March", kFriday),
            std::vector<std::string>{"last March=2024-03-01/2024-04-01 month"});
  // The reference month itself is not "last May": that is a year earlier.
  EXPECT_EQ(Only("We met last May", kFriday), "2023-05-01/2023-06-01");
  EXPECT_EQ(Only("We met last December", kFriday), "2023-12-01/2024-01-01");
  EXPECT_EQ(Only("See you next March", kFriday), "2025-03-01/2025-04-01");
  EXPECT_EQ(Only("See you next June", kFriday), "2024-06-01/2024-07-01");
  EXPECT_EQ(Only("this June is busy", kFriday), "2024-06-01/2024-07-01");
}

TEST(TemporalTest, InMonthIsMostRecentNotAfterReferenceUnlessFuture) {
  EXPECT_EQ(Only("We went hiking in June", "2024-08-01T00:00:00Z"), "2024-06-01/2024-07-01");
  EXPECT_EQ(Only("We went hiking in June", "2024-06-15T00:00:00Z"), "2024-06-01/2024-07-01");
  EXPECT_EQ(Only("We went hiking in June", "2024-05-10T00:00:00Z"), "2023-06-01/2023-07-01");
  EXPECT_EQ(Only("We will go hiking in June", "2024-05-10T00:00:00Z"), "2024-06-01/2024-07-01");
  EXPECT_EQ(Only("since January", kFriday), "2024-01-01/2024-02-01");
}

TEST(TemporalTest, AbsoluteDates) {
  EXPECT_EQ(Only("on 8 May 2023", kFriday), "2023-05-08/2023-05-09");
  EXPECT_EQ(Only("on May 8, 2023", kFriday), "2023-05-08/2023-05-09");
  EXPECT_EQ(Only("on May 8 2023", kFriday), "2023-05-08/2023-05-09");
  EXPECT_EQ(Only("on the 8th of May, 2023", kFriday), "2023-05-08/2023-05-09");
  EXPECT_EQ(Only("2023-05-08", kFriday), "2023-05-08/2023-05-09");
  EXPECT_EQ(Only("2023/05/08", kFriday), "2023-05-08/2023-05-09");
  EXPECT_EQ(Only("Sept. 3, 2021", kFriday), "2021-09-03/2021-09-04");
  EXPECT_EQ(Only("Feb 29 2024", kFriday), "2024-02-29/2024-03-01");
  EXPECT_EQ(Only("the first of May 2022", kFriday), "2022-05-01/2022-05-02");
  EXPECT_EQ(Only("the twenty-first of June 2022", kFriday), "2022-06-21/2022-06-22");
  const std::vector<TimeMention> mentions = FindTimeExpressions("8 May 2023", At(kFriday));
  ASSERT_EQ(mentions.size(), 1u);
  EXPECT_FALSE(mentions[0].relative);
}

TEST(TemporalTest, InvalidCalendarDatesAreSkipped) {
  // The impossible day is dropped; the year alone still stands.
  EXPECT_EQ(Describe("Feb 30 2023", kFriday),
            std::vector<std::string>{"2023=2023-01-01/2024-01-01 year"});
  EXPECT_THAT(Describe("2023-02-29", kFriday), IsEmpty());
  EXPECT_THAT(Describe("2023-13-01", kFriday), IsEmpty());
  EXPECT_THAT(Describe("32/01/2023", kFriday), IsEmpty());
}

TEST(TemporalTest, NumericSlashDatesAreUsOrderUnlessFirstExceedsTwelve) {
  EXPECT_EQ(Only("05/08/2023", kFriday), "2023-05-08/2023-05-09");
  EXPECT_EQ(Only("25/12/2023", kFriday), "2023-12-25/2023-12-26");
  EXPECT_EQ(Only("12/25/2023", kFriday), "2023-12-25/2023-12-26");
  EXPECT_EQ(Only("5/8/23", kFriday), "2023-05-08/2023-05-09");
  EXPECT_EQ(Only("5/8/99", kFriday), "1999-05-08/1999-05-09");
  EXPECT_EQ(Only("08.05.2023", kFriday), "2023-05-08/2023-05-09");  // European dotted
  EXPECT_THAT(Describe("a ratio of 5/8", kFriday), IsEmpty());
  EXPECT_THAT(Describe("version 1.2.3", kFriday), IsEmpty());
}

TEST(TemporalTest, IsoDateTimeWithOffset) {
  EXPECT_EQ(Only("at 2023-05-08T13:56:00Z", kFriday), "2023-05-08T13:56:00Z/2023-05-08T13:56:01Z");
  EXPECT_EQ(Only("at 2023-05-08T13:56+02:00", kFriday),
            "2023-05-08T11:56:00Z/2023-05-08T11:57:00Z");
  EXPECT_EQ(Only("at 2023-05-08 13:56", kFriday), "2023-05-08T13:56:00Z/2023-05-08T13:57:00Z");
}

TEST(TemporalTest, DayMonthWithoutYearFollowsTense) {
  // Past tense: most recent not after the reference; future: first not before.
  EXPECT_EQ(Only("We met on May 8th", kFriday), "2024-05-08/2024-05-09");
  EXPECT_EQ(Only("We met on December 3rd", kFriday), "2023-12-03/2023-12-04");
  EXPECT_EQ(Only("We will meet on December 3rd", kFriday), "2024-12-03/2024-12-04");
  // No tense: closest (June 1 is 22 days ahead, vs 344 days back).
  EXPECT_EQ(Only("the party on June 1st", kFriday), "2024-06-01/2024-06-02");
  EXPECT_EQ(Only("the 8th of May", kFriday), "2024-05-08/2024-05-09");
}

TEST(TemporalTest, OrdinalDayOfMonthNeedsPrepositionAndOrdinal) {
  EXPECT_EQ(Only("It was due on the 3rd", kFriday), "2024-05-03/2024-05-04");
  // A present sentence speaks of what is scheduled: the next 3rd, not the closer one.
  EXPECT_EQ(Only("It is due on the 3rd", kFriday), "2024-06-03/2024-06-04");
  EXPECT_EQ(Only("on the 3rd then", kFriday), "2024-05-03/2024-05-04");  // no verb: closer
  EXPECT_EQ(Only("It will be due by the 3rd", kFriday), "2024-06-03/2024-06-04");
  EXPECT_EQ(Only("What about 10am on the 15th?", kFriday),
            "2024-05-15T10:00:00Z/2024-05-15T11:00:00Z");
  EXPECT_THAT(Describe("the 3rd time", kFriday), IsEmpty());
  // A clause opening with a numeric ordinal and a verb (or nothing) after it names a day.
  EXPECT_EQ(Only("yeah good call, the 9th it is", "2024-03-02T10:00:00Z"), "2024-03-09/2024-03-10");
  EXPECT_EQ(Only("The 12th works for me", kFriday), "2024-05-12/2024-05-13");
  EXPECT_THAT(Describe("The 3rd place went to Lee.", kFriday), IsEmpty());
  EXPECT_THAT(Describe("The third is fine", kFriday), IsEmpty());
  EXPECT_THAT(Describe("on the 3 sides", kFriday), IsEmpty());
}

TEST(TemporalTest, PresentAndFutureSentencesTakeTheNextOccurrence) {
  // Said on Saturday 2 March 2024.
  constexpr std::string_view kSaturday = "2024-03-02T10:00:00Z";
  EXPECT_EQ(Only("It's on 13 October", kSaturday), "2024-10-13/2024-10-14");
  EXPECT_EQ(Only("We met on 13 October", kSaturday), "2023-10-13/2023-10-14");
  EXPECT_EQ(Only("My birthday is on 1 March", kSaturday), "2025-03-01/2025-03-02");
  EXPECT_EQ(Only("I start a new shift pattern on monday", kSaturday), "2024-03-04/2024-03-05");
  EXPECT_EQ(Only("we have a gig on Friday", kSaturday), "2024-03-08/2024-03-09");
  EXPECT_EQ(Only("I'm taking a week off in February", kSaturday), "2025-02-01/2025-03-01");
  EXPECT_EQ(Only("My mum visited in February", kSaturday), "2024-02-01/2024-03-01");
  EXPECT_EQ(Only("I'm so tired, the trip is in June", kSaturday), "2024-06-01/2024-07-01");
  // "since" names a past time whatever the tense; "this Friday" said on a Saturday is the
  // coming one in a future sentence, the one gone in a past one.
  EXPECT_EQ(Only("My knee has been hurting since the weekend", "2024-02-28T10:00:00Z"),
            "2024-02-24/2024-02-26");
  EXPECT_EQ(Only("we've lived in this flat since last march", "2024-05-27T10:00:00Z"),
            "2024-03-01/2024-04-01");
  EXPECT_EQ(Only("The report is due this Friday", kSaturday), "2024-03-08/2024-03-09");
  EXPECT_EQ(Only("The report was due this Friday", kSaturday), "2024-03-01/2024-03-02");
  EXPECT_EQ(Only("We are getting married this June", "2024-07-31T10:00:00Z"),
            "2025-06-01/2025-07-01");
  // Past and future evidence together: the closer one.
  EXPECT_EQ(Only("She said I should rest until Wednesday", "2024-01-15T10:00:00Z"),
            "2024-01-17/2024-01-18");
  EXPECT_THAT(Describe("we talk every Monday", kSaturday), IsEmpty());
  EXPECT_EQ(Only("the last march of the war", kSaturday), "count=0");
}

TEST(TemporalTest, RangesKeepBothEnds) {
  constexpr std::string_view kSaturday = "2024-03-02T10:00:00Z";
  EXPECT_EQ(Describe("The festival is 17 to 21 October", kSaturday),
            std::vector<std::string>{"17 to 21 October=2024-10-17/2024-10-22 day"});
  EXPECT_EQ(Only("I have a conference from 2 to 5 September", kSaturday), "2024-09-02/2024-09-06");
  EXPECT_EQ(Only("I am away 3-7 May 2025", kSaturday), "2025-05-03/2025-05-08");
  EXPECT_EQ(Only("between 3 and 5 May", kSaturday), "2024-05-03/2024-05-06");
  EXPECT_EQ(Only("We are in Rome October 17-21, 2024", kSaturday), "2024-10-17/2024-10-22");
  EXPECT_EQ(Only("I'm off from Monday to Wednesday", kSaturday), "2024-03-04/2024-03-07");
  EXPECT_EQ(Only("I'm off from Friday to Tuesday", kSaturday), "2024-03-08/2024-03-13");
  EXPECT_EQ(Only("We will travel from 28 October to 3 November", kSaturday),
            "2024-10-28/2024-11-04");
  EXPECT_EQ(Only("We will be there from June to August", kSaturday), "2024-06-01/2024-09-01");
  // Without "from" two dates joined by "to" stay two dates; a backwards range is no range.
  EXPECT_EQ(Describe("moved it 3 May to 5 May", kSaturday).size(), 2u);
  EXPECT_EQ(Describe("It is 21 to 17 October", kSaturday),
            std::vector<std::string>{"17 October=2024-10-17/2024-10-18 day"});
}

TEST(TemporalTest, FixedDateHolidays) {
  EXPECT_EQ(Only("then New Year's Eve at my sister's", "2024-12-30T09:00:00Z"),
            "2024-12-31/2025-01-01");
  EXPECT_EQ(Only("we had a busy week before Christmas", "2024-12-30T09:00:00Z"),
            "2024-12-25/2024-12-26");
  EXPECT_EQ(Only("Last Christmas I spent too much", "2023-12-29T09:00:00Z"),
            "2022-12-25/2022-12-26");
  EXPECT_EQ(Only("valentine's day dinner with Meera", "2025-02-14T20:00:00Z"),
            "2025-02-14/2025-02-15");
  EXPECT_EQ(Only("What are you doing for Halloween?", "2024-03-02T10:00:00Z"),
            "2024-10-31/2024-11-01");
  EXPECT_THAT(Describe("a new year's resolution", kFriday), IsEmpty());
}

TEST(TemporalTest, MonthYearAndYears) {
  EXPECT_EQ(Describe("May 2023 and in 2022.", kFriday),
            (std::vector<std::string>{"May 2023=2023-05-01/2023-06-01 month",
                                      "2022=2022-01-01/2023-01-01 year"}));
  EXPECT_EQ(Only("2022 was a great year", kFriday), "2022-01-01/2023-01-01");
  EXPECT_EQ(Only("back in 1998", kFriday), "1998-01-01/1999-01-01");
  EXPECT_EQ(Only("the year 2019", kFriday), "2019-01-01/2020-01-01");
  EXPECT_EQ(Only("in the 1990s", kFriday), "1990-01-01/2000-01-01");
  EXPECT_EQ(Only("in the '80s", kFriday), "1980-01-01/1990-01-01");
  EXPECT_EQ(Only("March of 2021", kFriday), "2021-03-01/2021-04-01");
}

TEST(TemporalTest, NumbersThatAreNotYears) {
  EXPECT_THAT(Describe("I have 2000 followers", kFriday), IsEmpty());
  EXPECT_THAT(Describe("It costs $2023", kFriday), IsEmpty());
  EXPECT_THAT(Describe("about 2,023 people", kFriday), IsEmpty());
  EXPECT_THAT(Describe("room 1500", kFriday), IsEmpty());
}

TEST(TemporalTest, Weekdays) {
  // Reference: Friday 2024-05-10.
  EXPECT_EQ(Only("last Tuesday", kFriday), "2024-05-07/2024-05-08");
  EXPECT_EQ(Only("last Friday", kFriday), "2024-05-03/2024-05-04");
  EXPECT_EQ(Only("next Friday", kFriday), "2024-05-17/2024-05-18");
  EXPECT_EQ(Only("next Monday", kFriday), "2024-05-13/2024-05-14");
  EXPECT_EQ(Only("this Wednesday", kFriday), "2024-05-08/2024-05-09");
  // Bare weekday without tense: nearest within 3 days back / 3 ahead.
  EXPECT_EQ(Only("on Tuesday", kFriday), "2024-05-07/2024-05-08");
  EXPECT_EQ(Only("on Sunday", kFriday), "2024-05-12/2024-05-13");
  EXPECT_EQ(Only("on Friday", kFriday), "2024-05-10/2024-05-11");
  // Past tense: 1-7 days back; future: 1-7 ahead.
  EXPECT_EQ(Only("I went there on Sunday", kFriday), "2024-05-05/2024-05-06");
  EXPECT_EQ(Only("I will go there on Tuesday", kFriday), "2024-05-14/2024-05-15");
  EXPECT_THAT(Describe("I work Tuesdays", kFriday), IsEmpty());
}

TEST(TemporalTest, RelativeDays) {
  EXPECT_EQ(Only("today", kFriday), "2024-05-10/2024-05-11");
  EXPECT_EQ(Only("tomorrow", kFriday), "2024-05-11/2024-05-12");
  EXPECT_EQ(Only("the day before yesterday", kFriday), "2024-05-08/2024-05-09");
  EXPECT_EQ(Only("the day after tomorrow", kFriday), "2024-05-12/2024-05-13");
  EXPECT_EQ(Only("tonight", kFriday), "2024-05-10T18:00:00Z/2024-05-11T00:00:00Z");
  EXPECT_EQ(Only("this morning", kFriday), "2024-05-10T06:00:00Z/2024-05-10T12:00:00Z");
  EXPECT_EQ(Only("last night", kFriday), "2024-05-09T18:00:00Z/2024-05-10T06:00:00Z");
  EXPECT_EQ(Only("yesterday afternoon", kFriday), "2024-05-09T12:00:00Z/2024-05-09T18:00:00Z");
  EXPECT_EQ(Only("the other day", kFriday), "2024-05-03/2024-05-10");
}

TEST(TemporalTest, CountsAgoAndAhead) {
  EXPECT_EQ(Only("3 days ago", kFriday), "2024-05-07/2024-05-08");
  EXPECT_EQ(Only("three days ago", kFriday), "2024-05-07/2024-05-08");
  EXPECT_EQ(Only("a couple of days ago", kFriday), "2024-05-08/2024-05-09");
  // Weeks resolve to the ISO week containing the shifted day.
  EXPECT_EQ(Only("two weeks ago", kFriday), "2024-04-22/2024-04-29");
  EXPECT_EQ(Only("a week ago", kFriday), "2024-04-29/2024-05-06");
  EXPECT_EQ(Only("2 months ago", kFriday), "2024-03-01/2024-04-01");
  EXPECT_EQ(Only("twelve years ago", kFriday), "2012-01-01/2013-01-01");
  EXPECT_EQ(Only("3 hours ago", kFriday), "2024-05-10T09:00:00Z/2024-05-10T10:00:00Z");
  EXPECT_EQ(Only("in 3 days", kFriday), "2024-05-13/2024-05-14");
  EXPECT_EQ(Only("two weeks from now", kFriday), "2024-05-20/2024-05-27");
  // "in N days" in a past-tense sentence is a duration.
  EXPECT_THAT(Describe("I finished it in 3 days", kFriday), IsEmpty());
}

TEST(TemporalTest, VagueCountsCoverTheRange) {
  const std::vector<TimeMention> mentions = FindTimeExpressions("a few days ago", At(kFriday));
  ASSERT_EQ(mentions.size(), 1u);
  EXPECT_EQ(mentions[0].granularity, Granularity::kVague);
  // 2-5 days before 2024-05-10: May 5 .. May 8.
  EXPECT_EQ(FormatInterval(mentions[0].from, mentions[0].to), "2024-05-05/2024-05-09");
  // 3-7 weeks back: the ISO weeks of Mar 22 .. Apr 19.
  EXPECT_EQ(Only("several weeks ago", kFriday), "2024-03-18/2024-04-22");
}

TEST(TemporalTest, NamedPeriods) {
  EXPECT_EQ(Only("next week", kFriday), "2024-05-13/2024-05-20");
  EXPECT_EQ(Only("last week", kFriday), "2024-04-29/2024-05-06");
  EXPECT_EQ(Only("the week before", kFriday), "2024-04-29/2024-05-06");
  EXPECT_EQ(Only("this week", kFriday), "2024-05-06/2024-05-13");
  EXPECT_EQ(Only("next month", kFriday), "2024-06-01/2024-07-01");
  EXPECT_EQ(Only("last month", kFriday), "2024-04-01/2024-05-01");
  EXPECT_EQ(Only("last year", kFriday), "2023-01-01/2024-01-01");
  EXPECT_EQ(Only("this year", kFriday), "2024-01-01/2025-01-01");
  EXPECT_EQ(Only("earlier this year", kFriday), "2024-01-01/2024-05-11");
  // "the week after the party" is anchored on the party: not resolved.
  EXPECT_THAT(Describe("the week after the party", kFriday), IsEmpty());
}

TEST(TemporalTest, Weekends) {
  EXPECT_EQ(Only("this weekend", kFriday), "2024-05-11/2024-05-13");
  EXPECT_EQ(Only("last weekend", kFriday), "2024-05-04/2024-05-06");
  EXPECT_EQ(Only("this past weekend", kFriday), "2024-05-04/2024-05-06");
  EXPECT_EQ(Only("next weekend", kFriday), "2024-05-18/2024-05-20");
  EXPECT_EQ(Only("I relaxed over the weekend", kFriday), "2024-05-04/2024-05-06");
  EXPECT_EQ(Only("last weekend", "2024-05-12T10:00:00Z"), "2024-05-04/2024-05-06");  // Sunday
}

TEST(TemporalTest, SeasonsAreNorthernMeteorological) {
  EXPECT_EQ(Only("last summer", kFriday), "2023-06-01/2023-09-01");
  EXPECT_EQ(Only("last summer", "2024-10-01T00:00:00Z"), "2024-06-01/2024-09-01");
  EXPECT_EQ(Only("this spring", kFriday), "2024-03-01/2024-06-01");
  EXPECT_EQ(Only("next winter", kFriday), "2024-12-01/2025-03-01");
  EXPECT_EQ(Only("this winter", "2024-01-15T00:00:00Z"), "2023-12-01/2024-03-01");
  EXPECT_EQ(Only("in the summer of 2019", kFriday), "2019-06-01/2019-09-01");
  EXPECT_EQ(Only("We went to Spain in the summer", "2024-10-01T00:00:00Z"),
            "2024-06-01/2024-09-01");
  EXPECT_THAT(Describe("I don't want to fall", kFriday), IsEmpty());
}

TEST(TemporalTest, ClockTimesCombineWithDays) {
  EXPECT_EQ(
      Describe("yesterday at 3pm", kFriday),
      std::vector<std::string>{"yesterday at 3pm=2024-05-09T15:00:00Z/2024-05-09T16:00:00Z hour"});
  EXPECT_EQ(Only("3:30 pm tomorrow", kFriday), "2024-05-11T15:30:00Z/2024-05-11T15:31:00Z");
  EXPECT_EQ(Only("next Friday at 10 a.m.", kFriday), "2024-05-17T10:00:00Z/2024-05-17T11:00:00Z");
  EXPECT_EQ(Only("at 15:30", kFriday), "2024-05-10T15:30:00Z/2024-05-10T15:31:00Z");
  EXPECT_EQ(Only("at noon", kFriday), "2024-05-10T12:00:00Z/2024-05-10T13:00:00Z");
  EXPECT_EQ(Only("12am", kFriday), "2024-05-10T00:00:00Z/2024-05-10T01:00:00Z");
  EXPECT_EQ(Only("May 8, 2023 at 9:15pm", kFriday), "2023-05-08T21:15:00Z/2023-05-08T21:16:00Z");
  EXPECT_THAT(Describe("at 3", kFriday), IsEmpty());
  EXPECT_THAT(Describe("13pm", kFriday), IsEmpty());
  EXPECT_THAT(Describe("the score was 3:2", kFriday), IsEmpty());
}

TEST(TemporalTest, FalsePositiveTraps) {
  EXPECT_THAT(Describe("May I ask you something?", kFriday), IsEmpty());
  EXPECT_THAT(Describe("I may go there", kFriday), IsEmpty());
  EXPECT_THAT(Describe("They march on", kFriday), IsEmpty());
  EXPECT_THAT(Describe("march on", kFriday), IsEmpty());
  EXPECT_THAT(Describe("I'm having second thoughts", kFriday), IsEmpty());
  EXPECT_THAT(Describe("Will you come? I can do it. An august person.", kFriday), IsEmpty());
  EXPECT_THAT(Describe("June said hi", kFriday), IsEmpty());  // a name without a date cue
  EXPECT_THAT(Describe("wait a second", kFriday), IsEmpty());
  EXPECT_THAT(Describe("in may be", kFriday), IsEmpty());
  // Capitalised May with a cue or a number is a month.
  EXPECT_EQ(Only("We married in May", kFriday), "2024-05-01/2024-06-01");
  EXPECT_EQ(Only("may 5th, 2021", kFriday), "2021-05-05/2021-05-06");
}

TEST(TemporalTest, CaseInsensitiveAndUnicode) {
  EXPECT_EQ(Only("YESTERDAY", kFriday), "2024-05-09/2024-05-10");
  EXPECT_EQ(Only("Last Tuesday", kFriday), "2024-05-07/2024-05-08");
  EXPECT_EQ(Only("Ça s'est passé yesterday — très bien", kFriday), "2024-05-09/2024-05-10");
  EXPECT_EQ(Only("昨天 yesterday 🎉", kFriday), "2024-05-09/2024-05-10");
  // Byte offsets point into the original text.
  const std::string text = "Café — yesterday";
  const std::vector<TimeMention> mentions = FindTimeExpressions(text, At(kFriday));
  ASSERT_EQ(mentions.size(), 1u);
  EXPECT_EQ(text.substr(mentions[0].begin, mentions[0].end - mentions[0].begin), "yesterday");
}

TEST(TemporalTest, ReferenceNearEpochEdgesDoesNotOverflow) {
  EXPECT_EQ(Only("yesterday", "0001-01-02T00:00:00Z"), "0001-01-01/0001-01-02");
  EXPECT_THAT(Describe("yesterday", "0001-01-01T00:00:00Z"), IsEmpty());
  EXPECT_NO_FATAL_FAILURE(FindTimeExpressions("next year in 3 days", Timestamp{INT64_MAX}));
  EXPECT_NO_FATAL_FAILURE(FindTimeExpressions("last year 2 decades ago", Timestamp{INT64_MIN}));
}

TEST(TemporalTest, LexerKeepsAdjacencyAndSentences) {
  const std::vector<Lexeme> lexemes = Lex("Dr. Smith paid $5k on the 8th. Then he left!");
  std::vector<std::string> texts;
  for (const Lexeme& lexeme : lexemes) texts.push_back(lexeme.lower);
  EXPECT_EQ(texts, (std::vector<std::string>{"dr", ".", "smith", "paid", "$", "5", "k", "on", "the",
                                             "8", "th", ".", "then", "he", "left", "!"}));
  EXPECT_FALSE(lexemes[2].sentence_start);  // after "Dr."
  EXPECT_TRUE(lexemes[12].sentence_start);  // "Then"
  EXPECT_FALSE(lexemes[6].space_before);    // "k" glued to "5"
  EXPECT_EQ(lexemes[5].kind, LexemeKind::kNumber);
  EXPECT_EQ(Lex("mp3 A1B2 foo_bar")[0].kind, LexemeKind::kAlnum);
  EXPECT_EQ(Lex("don’t")[0].lower, "don't");
}

TEST(TemporalTest, ArbitraryBytesNeverCrashAndAreDeterministic) {
  std::mt19937 random(12345);
  const std::vector<std::string> pieces = {
      "May", " ",    "8",    "th",  ",",          "2023",         "/",    "-",    ".",   ":",
      "pm",  "last", "next", "ago", "days",       "\xE2\x80\x99", "\xFF", "\xC3", "the", "of",
      "in",  "12",   "'",    "0",   "99999999999"};
  for (int round = 0; round < 2000; ++round) {
    std::string text;
    const int length = static_cast<int>(random() % 40);
    for (int k = 0; k < length; ++k) text += pieces[random() % pieces.size()];
    const Timestamp reference{static_cast<std::int64_t>(random()) * 1'000'000'000};
    const std::vector<TimeMention> first = FindTimeExpressions(text, reference);
    EXPECT_EQ(first, FindTimeExpressions(text, reference)) << text;
    for (const TimeMention& mention : first) {
      EXPECT_LE(mention.end, text.size());
      EXPECT_LT(mention.from, mention.to);
    }
  }
}

// A long input (~600 KB) finds every repeat's two mentions, each resolved as in the short text
// (the time it takes is measured by BM_FindTimeExpressions in bench/micro_bench.cc).
TEST(TemporalTest, LongInputFindsEveryRepeat) {
  const std::string piece = "on May 8 2023 and 3 days ago, ";
  std::string text;
  for (int k = 0; k < 20000; ++k) text += piece;
  const std::vector<TimeMention> mentions = FindTimeExpressions(text, At(kFriday));
  const std::vector<TimeMention> one = FindTimeExpressions(piece, At(kFriday));
  ASSERT_EQ(one.size(), 2u);
  ASSERT_EQ(mentions.size(), 40000u);
  EXPECT_EQ(mentions.back().surface, one.back().surface);
  EXPECT_EQ(mentions.back().from, one.back().from);
  EXPECT_EQ(mentions.back().end, text.size() - piece.size() + one.back().end);
}

}  // namespace
}  // namespace engram::text
