// Unit tests of the rule extractor and the validator (extractor.h, validator.h) and of the
// validity PrepareFact gives.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "write/extractor.h"
#include "write/facts.h"
#include "write/validator.h"

namespace engram::write {
namespace {

Timestamp T(const char* text) { return *ParseTimestamp(text); }

const Timestamp kReference = *ParseTimestamp("2024-05-10T12:00:00Z");

std::vector<FactCandidate> Extract(const std::string& text, const std::string& speaker = "Mia") {
  return ExtractRuleFacts(AnalyzeFactSource(text, speaker, Role::kUser, kReference));
}

// "subject|predicate|object|+/-" of every accepted candidate.
std::vector<std::string> Accepted(const std::string& text, const std::string& speaker = "Mia") {
  const FactSource source = AnalyzeFactSource(text, speaker, Role::kUser, kReference);
  std::vector<std::string> out;
  for (const FactCandidate& candidate : ExtractRuleFacts(source)) {
    if (!ValidateFact(candidate, source).accepted) continue;
    out.push_back(candidate.subject + "|" + candidate.predicate + "|" + candidate.object + "|" +
                  (candidate.negated ? "-" : "+"));
  }
  return out;
}

Verdict VerdictOf(const std::string& text, const std::string& predicate) {
  const FactSource source = AnalyzeFactSource(text, "Mia", Role::kUser, kReference);
  for (const FactCandidate& candidate : ExtractRuleFacts(source)) {
    if (candidate.predicate == predicate) return ValidateFact(candidate, source);
  }
  ADD_FAILURE() << "no " << predicate << " candidate in: " << text;
  return Verdict{};
}

TEST(ExtractorTest, ResidenceWithTimeStartsAtTheTime) {
  const std::vector<FactCandidate> facts = Extract("I moved to Berlin last March.");
  ASSERT_EQ(facts.size(), 1u);
  EXPECT_EQ(facts[0].subject, "Mia");
  EXPECT_EQ(facts[0].predicate, "lives_in");
  EXPECT_EQ(facts[0].object, "Berlin");
  EXPECT_TRUE(facts[0].single_valued);
  ASSERT_TRUE(facts[0].time.has_value());
  EXPECT_EQ(facts[0].time->text, "last March");
  const FactSource source =
      AnalyzeFactSource("I moved to Berlin last March.", "Mia", Role::kUser, kReference);
  const FactToStore prepared = PrepareFact(facts[0], source, WriteConfig{});
  EXPECT_EQ(prepared.valid_from, T("2024-03-01"));
  EXPECT_FALSE(prepared.valid_to.has_value());
}

TEST(ExtractorTest, PreferencesKeepPolarityAndSplitLists) {
  EXPECT_THAT(Accepted("I love sushi but I don't like olives."),
              ::testing::ElementsAre("Mia|likes|sushi|+", "Mia|likes|olives|-"));
  EXPECT_THAT(Accepted("I'm allergic to peanuts and shellfish."),
              ::testing::ElementsAre("Mia|allergic_to|peanuts|+", "Mia|allergic_to|shellfish|+"));
}

TEST(ExtractorTest, RelationAndNamedThirdPerson) {
  EXPECT_THAT(Accepted("My sister Anna lives in Porto."),
              ::testing::ElementsAre("Mia|sister|Anna|+", "Anna|lives_in|Porto|+"));
}

TEST(ExtractorTest, EventWithoutATimeKeepsTheTurnsTime) {
  EXPECT_THAT(Accepted("We adopted a puppy last week."),
              ::testing::ElementsAre("Mia|adopted|puppy|+"));
  // The time is implicit: it happened by the time it was told.
  EXPECT_THAT(Accepted("We adopted a puppy."), ::testing::ElementsAre("Mia|adopted|puppy|+"));
  const FactSource source =
      AnalyzeFactSource("We adopted a puppy.", "Mia", Role::kUser, kReference);
  const std::vector<FactCandidate> facts = ExtractRuleFacts(source);
  ASSERT_EQ(facts.size(), 1u);
  EXPECT_FALSE(facts[0].time.has_value());
  EXPECT_EQ(PrepareFact(facts[0], source, WriteConfig{}).valid_from, kReference);
}

TEST(ExtractorTest, BeingANounIsAJobWithAWorkplaceAndADietWhenItIsOne) {
  EXPECT_THAT(Accepted("I'm a data analyst at Barclays in Canary Wharf."),
              ::testing::Contains("Mia|works_as|data analyst|+"));
  EXPECT_THAT(Accepted("I'm a vegetarian, have been for 10 years."),
              ::testing::ElementsAre("Mia|diet|vegetarian|+"));
  EXPECT_THAT(Accepted("Meera is a doctor at Guy's Hospital."),
              ::testing::Contains("Meera|works_as|doctor|+"));
  // Without a workplace "be a N" stays what a person is.
  EXPECT_THAT(Accepted("I'm a nurse."), ::testing::ElementsAre("Mia|is_a|nurse|+"));
  EXPECT_THAT(Accepted("Meera is a doctor."), ::testing::IsEmpty());
}

TEST(ExtractorTest, StartingAJobIsEmploymentFromItsTime) {
  EXPECT_THAT(Accepted("I started a new job at Siemens last month!"),
              ::testing::ElementsAre("Mia|works_at|Siemens|+"));
  EXPECT_THAT(Accepted("Last week I started working for Bosch."),
              ::testing::ElementsAre("Mia|works_at|Bosch|+"));
  const FactSource source = AnalyzeFactSource("I started a new job at Siemens last month!", "Mia",
                                              Role::kUser, kReference);
  const std::vector<FactCandidate> facts = ExtractRuleFacts(source);
  ASSERT_EQ(facts.size(), 1u);
  EXPECT_EQ(PrepareFact(facts[0], source, WriteConfig{}).valid_from, T("2024-04-01"));
  // Starting something else stays an event.
  EXPECT_THAT(Accepted("I started a pottery class last week."),
              ::testing::ElementsAre("Mia|started|pottery class|+"));
}

TEST(ExtractorTest, PlansAreForesightWithAWindow) {
  const std::string text = "I'm flying to Rome next week.";
  const FactSource source = AnalyzeFactSource(text, "Mia", Role::kUser, kReference);
  const std::vector<FactCandidate> facts = ExtractRuleFacts(source);
  ASSERT_EQ(facts.size(), 1u);
  EXPECT_EQ(facts[0].predicate, "plans_to");
  EXPECT_EQ(facts[0].kind, FactKind::kForesight);
  const FactToStore prepared = PrepareFact(facts[0], source, WriteConfig{});
  EXPECT_EQ(prepared.valid_from, kReference);
  EXPECT_EQ(prepared.valid_to, T("2024-05-20"));  // end of next ISO week

  const std::string undated = "I'm going to learn Spanish.";
  const FactSource undated_source = AnalyzeFactSource(undated, "Mia", Role::kUser, kReference);
  const std::vector<FactCandidate> plans = ExtractRuleFacts(undated_source);
  ASSERT_EQ(plans.size(), 1u);
  EXPECT_EQ(plans[0].object, "learn Spanish");
  WriteConfig config;
  config.foresight_days = 10;
  EXPECT_EQ(PrepareFact(plans[0], undated_source, config).valid_to, T("2024-05-20T12:00:00Z"));
}

TEST(ExtractorTest, TechnicalFactsAndNegation) {
  EXPECT_THAT(Accepted("We're using Python 3.11 for the backend."),
              ::testing::ElementsAre("Mia|uses|Python 3.11|+"));
  EXPECT_THAT(Accepted("I'm not using Docker anymore."),
              ::testing::ElementsAre("Mia|uses|Docker|-"));
  EXPECT_THAT(Accepted("We switched from MySQL to Postgres."),
              ::testing::ElementsAre("Mia|uses|Postgres|+", "Mia|uses|MySQL|-"));
}

TEST(ExtractorTest, PastStatesAreClosedAtTheTurn) {
  const std::string text = "I used to live in Paris.";
  const FactSource source = AnalyzeFactSource(text, "Mia", Role::kUser, kReference);
  const std::vector<FactCandidate> facts = ExtractRuleFacts(source);
  ASSERT_EQ(facts.size(), 1u);
  EXPECT_EQ(facts[0].predicate, "lived_in");
  EXPECT_TRUE(facts[0].past);
  const FactToStore prepared = PrepareFact(facts[0], source, WriteConfig{});
  EXPECT_FALSE(prepared.valid_from.has_value());
  EXPECT_EQ(prepared.valid_to, kReference);
}

TEST(ExtractorTest, UnnamedSpeakerIsItsRole) {
  const FactSource source = AnalyzeFactSource("I live in Oslo.", "", Role::kUser, kReference);
  const std::vector<FactCandidate> facts = ExtractRuleFacts(source);
  ASSERT_EQ(facts.size(), 1u);
  EXPECT_EQ(facts[0].subject, "user");
  EXPECT_TRUE(ValidateFact(facts[0], source).accepted);
}

TEST(ValidatorTest, ActRejectsQuestionsHypotheticalsHearsayAndRequests) {
  struct Case {
    const char* text;
    const char* predicate;
    const char* reason;
  };
  for (const Case& c : {Case{"Do you think I live in Berlin?", "lives_in", "question"},
                        Case{"Imagine I lived in Rome.", "lived_in", "hypothetical"},
                        Case{"I heard that I work at Google now.", "works_at", "hearsay"},
                        Case{"Can you remember I live in Berlin.", "lives_in", "request"}}) {
    const Verdict verdict = VerdictOf(c.text, c.predicate);
    EXPECT_FALSE(verdict.accepted) << c.text;
    EXPECT_EQ(verdict.failed, FactCheck::kAct) << c.text;
    EXPECT_EQ(verdict.reason, c.reason) << c.text;
  }
}

TEST(ValidatorTest, HedgedClaimsPassFlaggedUncertain) {
  const FactSource source =
      AnalyzeFactSource("I think I prefer tea, maybe.", "Mia", Role::kUser, kReference);
  const std::vector<FactCandidate> facts = ExtractRuleFacts(source);
  ASSERT_EQ(facts.size(), 1u);
  EXPECT_TRUE(facts[0].uncertain);
  EXPECT_TRUE(ValidateFact(facts[0], source).accepted);
}

TEST(ValidatorTest, SupportAndAnchorsAgainstTheTurn) {
  const FactSource source =
      AnalyzeFactSource("I moved to Berlin last March.", "Mia", Role::kUser, kReference);
  FactCandidate candidate;
  candidate.subject = "Mia";
  candidate.predicate = "lives_in";
  candidate.object = "Munich";  // invented
  candidate.single_valued = true;
  candidate.extractor = "llm";
  Verdict verdict = ValidateFact(candidate, source);
  EXPECT_FALSE(verdict.accepted);
  EXPECT_EQ(verdict.failed, FactCheck::kSupport);

  candidate.object = "berlin";  // support holds, but a place needs its written name
  verdict = ValidateFact(candidate, source);
  EXPECT_FALSE(verdict.accepted);
  EXPECT_EQ(verdict.failed, FactCheck::kHard);

  candidate.object = "Berlin";
  EXPECT_TRUE(ValidateFact(candidate, source).accepted);

  candidate.subject = "Tom";  // not the speaker and not in the turn
  candidate.subject_is_speaker = false;
  verdict = ValidateFact(candidate, source);
  EXPECT_FALSE(verdict.accepted);
  EXPECT_EQ(verdict.failed, FactCheck::kSubject);

  candidate.subject = "she";
  verdict = ValidateFact(candidate, source);
  EXPECT_FALSE(verdict.accepted);
  EXPECT_EQ(verdict.failed, FactCheck::kSubject);
}

TEST(ValidatorTest, NumbersMustBeVerbatim) {
  const FactSource source =
      AnalyzeFactSource("We're using Python 3.11 for the backend.", "Mia", Role::kUser,
                        kReference);
  FactCandidate candidate;
  candidate.subject = "Mia";
  candidate.predicate = "uses";
  candidate.kind = FactKind::kTechnical;
  candidate.object = "Python 3.12";
  const Verdict verdict = ValidateFact(candidate, source, {.min_support = 0.5});
  EXPECT_FALSE(verdict.accepted);
  EXPECT_EQ(verdict.failed, FactCheck::kHard);
}

TEST(ValidatorTest, CountsPerCheck) {
  ValidationCounts counts;
  counts.Add(Verdict{});
  counts.Add(Verdict{false, FactCheck::kAct, "question"});
  counts.Add(Verdict{false, FactCheck::kAct, "hearsay"});
  EXPECT_EQ(counts.candidates, 3u);
  EXPECT_EQ(counts.accepted, 1u);
  EXPECT_EQ(counts.rejected[static_cast<std::size_t>(FactCheck::kAct)], 2u);
  EXPECT_EQ(FactCheckName(FactCheck::kHard), "hard");
}

TEST(ExtractorTest, DeterministicAndUnicodeSafe) {
  const std::string text = "Ich wohne in Zürich. I live in Zürich now and I love crème brûlée.";
  EXPECT_EQ(Extract(text), Extract(text));
  EXPECT_THAT(Accepted(text),
              ::testing::ElementsAre("Mia|lives_in|Zürich|+", "Mia|likes|crème brûlée|+"));
  // Invalid UTF-8 never crashes.
  EXPECT_NO_FATAL_FAILURE(Extract(std::string("I live in \xff\xfe Berlin.")));
}

}  // namespace
}  // namespace engram::write
