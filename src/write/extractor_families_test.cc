// Unit tests of the everyday-conversation rule families of the rule extractor: relations with
// modifiers and naming clauses, pets, occasions ahead read as plans, health, routines from
// frequency adverbials, birthdays and dated occasions, roles after "as", workplaces after "a N
// at X", the present perfect of residence and durations cut from plans.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "write/extractor.h"
#include "write/validator.h"

namespace engram::write {
namespace {

using ::testing::Contains;
using ::testing::Not;

const Timestamp kReference = *ParseTimestamp("2024-05-10T12:00:00Z");

// "subject|predicate|object|+/-" of every accepted candidate.
std::vector<std::string> Accepted(const std::string& text, const std::string& speaker = "Noor") {
  const FactSource source = AnalyzeFactSource(text, speaker, Role::kUser, kReference);
  std::vector<std::string> out;
  for (const FactCandidate& candidate : ExtractRuleFacts(source)) {
    if (!ValidateFact(candidate, source).accepted) continue;
    out.push_back(candidate.subject + "|" + candidate.predicate + "|" + candidate.object + "|" +
                  (candidate.negated ? "-" : "+"));
  }
  return out;
}

TEST(ExtractorFamiliesTest, RelationWithModifierAndPluralPossessive) {
  EXPECT_THAT(Accepted("My older brother Tariq fixes bikes."), Contains("Noor|brother|Tariq|+"));
  EXPECT_THAT(Accepted("Our daughter Lina starts school soon."), Contains("Noor|daughter|Lina|+"));
}

TEST(ExtractorFamiliesTest, RelationNamedByACallingClause) {
  EXPECT_THAT(Accepted("My tutor is called Benedikt and he is strict."),
              Contains("Noor|tutor|Benedikt|+"));
}

TEST(ExtractorFamiliesTest, RelationSpellingVariantsShareASlot) {
  EXPECT_THAT(Accepted("My neighbour Gustav grows tomatoes."), Contains("Noor|neighbor|Gustav|+"));
  EXPECT_THAT(Accepted("My manager Ilse approved the leave."), Contains("Noor|boss|Ilse|+"));
}

TEST(ExtractorFamiliesTest, PetNamedAfterAVerbOfHaving) {
  const std::vector<std::string> facts = Accepted("We got a puppy named Waffles in spring.");
  EXPECT_THAT(facts, Contains("Noor|dog|Waffles|+"));
  // The naming clause is not part of what was got.
  EXPECT_THAT(facts, Not(Contains("Noor|owns|puppy named Waffles|+")));
}

TEST(ExtractorFamiliesTest, OccasionAheadIsAPlanNotAPossession) {
  const std::vector<std::string> facts = Accepted("I have a job interview on Monday.");
  EXPECT_THAT(facts, Contains("Noor|plans_to|job interview|+"));
  EXPECT_THAT(facts, Not(Contains("Noor|owns|job interview|+")));
}

TEST(ExtractorFamiliesTest, ConditionsAreHealthNotPossessions) {
  EXPECT_THAT(Accepted("I have a nasty cough."), Contains("Noor|has_condition|cough|+"));
  EXPECT_THAT(Accepted("I had tonsillitis in March."),
              Contains("Noor|had_condition|tonsillitis|+"));
  EXPECT_THAT(Accepted("I have a red bicycle."), Not(Contains("Noor|has_condition|bicycle|+")));
}

TEST(ExtractorFamiliesTest, FrequencyAdverbialMakesARoutine) {
  EXPECT_THAT(Accepted("I swim laps every Thursday."),
              Contains("Noor|habit|swim laps every Thursday|+"));
  EXPECT_THAT(Accepted("I go bouldering on Fridays with friends."),
              Contains("Noor|habit|bouldering on Fridays|+"));
  EXPECT_THAT(Accepted("I call my grandmother twice a week."),
              Contains("Noor|habit|call my grandmother twice a week|+"));
  // No frequency, no routine.
  for (const std::string& fact : Accepted("I swim laps at the lido.")) {
    EXPECT_EQ(fact.find("|habit|"), std::string::npos) << fact;
  }
}

TEST(ExtractorFamiliesTest, BirthdayKeepsTheDateAsSaid) {
  EXPECT_THAT(Accepted("My birthday is October 3."), Contains("Noor|birthday|October 3|+"));
  EXPECT_THAT(Accepted("Omar's birthday is on 14 June."), Contains("Omar|birthday|14 June|+"));
}

TEST(ExtractorFamiliesTest, DatedOccasionIsAnEventWithItsDay) {
  const FactSource source =
      AnalyzeFactSource("Our anniversary is next Tuesday.", "Noor", Role::kUser, kReference);
  bool found = false;
  for (const FactCandidate& candidate : ExtractRuleFacts(source)) {
    if (candidate.predicate != "has_event") continue;
    found = true;
    EXPECT_EQ(candidate.object, "anniversary");
    ASSERT_TRUE(candidate.time.has_value());
    EXPECT_EQ(candidate.time->from, *ParseTimestamp("2024-05-14"));
  }
  EXPECT_TRUE(found);
}

TEST(ExtractorFamiliesTest, RoleAfterAsInAClauseAboutWork) {
  EXPECT_THAT(Accepted("I work for a charity as a fundraiser."),
              Contains("Noor|works_as|fundraiser|+"));
}

TEST(ExtractorFamiliesTest, JobNounAtAWorkplaceGivesTheWorkplace) {
  const std::vector<std::string> facts = Accepted("I'm a paramedic at Westfield Hospital.");
  EXPECT_THAT(facts, Contains("Noor|works_as|paramedic|+"));
  EXPECT_THAT(facts, Contains("Noor|works_at|Westfield Hospital|+"));
}

TEST(ExtractorFamiliesTest, PresentPerfectResidenceWithSinceStillHolds) {
  EXPECT_THAT(Accepted("I've lived in Galway since 2015."), Contains("Noor|lives_in|Galway|+"));
  EXPECT_THAT(Accepted("I lived in Galway for two years."),
              Not(Contains("Noor|lives_in|Galway|+")));
}

TEST(ExtractorFamiliesTest, DurationIsCutFromAPlan) {
  EXPECT_THAT(Accepted("I'm going to Crete for ten days in June."),
              Not(Contains("Noor|plans_to|Crete for ten days|+")));
  EXPECT_THAT(Accepted("I'm going to Crete for a week in June."),
              Contains("Noor|plans_to|going to Crete|+"));
}

TEST(ExtractorFamiliesTest, ReflexiveAndNamingClauseAreNotPartOfTheObject) {
  EXPECT_THAT(Accepted("I really love olives myself."), Contains("Noor|likes|olives|+"));
  EXPECT_THAT(Accepted("I have a parrot called Kiwi."), Contains("Noor|owns|parrot|+"));
}

TEST(ExtractorFamiliesTest, PrepositionalPhraseIsNotAnEventObject) {
  for (const std::string& fact : Accepted("We met at college in 2009.")) {
    EXPECT_EQ(fact.find("|met|"), std::string::npos) << fact;
  }
}

}  // namespace
}  // namespace engram::write
