// Tests of `engram bench understanding` (understanding_bench.h): the scoring on hand-made labels
// and outputs whose right and wrong answers are known, so every count is asserted exactly; the
// readers' checks; and one run through the engine over a two-file sample.
#include "eval/understanding_bench.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "engram/testing/status_matchers.h"
#include "engram/testing/temp_dir.h"

namespace engram::eval {
namespace {

using ::engram::testing::IsOk;
using ::engram::testing::StatusIs;
using ::testing::HasSubstr;

Timestamp At(const char* text) { return *ParseTimestamp(text); }

TEST(UnderstandingNormalizeTest, FoldsCaseDropsDeterminersAndPunctuation) {
  EXPECT_EQ(NormalizeLabelText("  The Pottery-Class!  "), "pottery-class");
  EXPECT_EQ(NormalizeLabelText("my sister's Car"), "sister's car");
  EXPECT_EQ(NormalizeLabelText("a new job, at Siemens."), "new job at siemens");
  EXPECT_EQ(NormalizeLabelText("$1,250"), "$1 250");
}

TEST(UnderstandingDayIntervalTest, WidensToWholeDays) {
  EXPECT_EQ(DayInterval("2024-03-01/2024-04-01"), "2024-03-01/2024-04-01");
  EXPECT_EQ(DayInterval("2024-03-01T18:00:00Z/2024-03-02T06:00:00Z"), "2024-03-01/2024-03-03");
  EXPECT_EQ(DayInterval("2024-03-02T15:00:00Z/2024-03-02T16:00:00Z"), "2024-03-02/2024-03-03");
  EXPECT_EQ(DayInterval("2024-02-29/2024-02-29"), "2024-02-29/2024-03-01");  // an instant
  EXPECT_EQ(DayInterval("2024-03-01"), std::nullopt);
  EXPECT_EQ(DayInterval("2024-03-05/2024-03-01"), std::nullopt);
}

// Two turns with known right and wrong outputs:
//   t1 "My sister Anna moved to Porto last March. She loves it there."
//      labels: facts (Mia sister Anna), (Anna lives_in Porto, valid_from 2024-03-01);
//              time "last March"; entities Anna person, Porto place; refs She -> Anna,
//              there -> Porto.
//      outputs: sister Anna (right), Anna lives_in Porto with valid_from 2024-03-10 (matched, its
//               validity wrong), Mia likes it (false positive); "last March" right; Anna person
//               (right), Porto typed person (wrong: a miss and a false positive); She -> Anna
//               (right), there not resolved (miss).
//   t2 "it's on 13 October, the party with Thai food"
//      labels: no facts; time "13 October" = 2024-10-13; no entities; no references.
//      outputs: "13 October" = 2023-10-13 (wrong: miss and false positive); Thai tagged person
//               (false positive); no facts.
std::vector<LabelledTurn> HandTurns() {
  LabelledTurn first;
  first.id = "t1";
  first.conversation = "c1";
  first.speaker = "Mia";
  first.time = At("2024-05-10T12:00:00Z");
  first.text = "My sister Anna moved to Porto last March. She loves it there.";
  first.facts = {{.subject = "Mia", .predicate = "sister", .object = "Anna"},
                 {.subject = "Anna",
                  .predicate = "lives_in",
                  .object = "Porto",
                  .valid_from = "2024-03-01"}};
  first.times = {{.text = "last March", .value = "2024-03-01/2024-04-01"}};
  first.entities = {{.text = "Anna", .value = "person"}, {.text = "Porto", .value = "place"}};
  first.references = {{.text = "She", .value = "Anna"}, {.text = "there", .value = "Porto"}};
  LabelledTurn second;
  second.id = "t2";
  second.conversation = "c1";
  second.speaker = "Mia";
  second.time = At("2024-03-02T10:00:00Z");
  second.text = "it's on 13 October, the party with Thai food";
  second.times = {{.text = "13 October", .value = "2024-10-13/2024-10-14"}};
  return {first, second};
}

std::vector<TurnOutput> HandOutputs() {
  TurnOutput first;
  first.facts = {{.subject = "Mia", .predicate = "sister", .object = "Anna"},
                 {.subject = "Anna",
                  .predicate = "lives_in",
                  .object = "porto",
                  .valid_from = At("2024-03-10T00:00:00Z")},
                 {.subject = "Mia", .predicate = "likes", .object = "it"}};
  first.times = {{.begin = 30, .end = 40, .value = "2024-03-01/2024-04-01"}};
  first.entities = {{.begin = 10, .end = 14, .value = "person"},
                    {.begin = 24, .end = 29, .value = "person"}};
  first.references = {{.begin = 42, .end = 45, .value = "Anna", .kind = "person"}};
  TurnOutput second;
  second.times = {{.begin = 8, .end = 18, .value = "2023-10-13/2023-10-14"}};
  second.entities = {{.begin = 35, .end = 39, .value = "person"}};
  return {first, second};
}

TEST(UnderstandingScoreTest, CountsKnownRightAndWrongOutputs) {
  const std::vector<LabelledTurn> turns = HandTurns();
  const std::vector<TurnOutput> outputs = HandOutputs();
  const io::Json score = ScoreTurns(turns, outputs);
  EXPECT_EQ(score["turns"], 2);

  const io::Json& facts = score["facts"];
  EXPECT_EQ(facts["tp"], 2);
  EXPECT_EQ(facts["fp"], 1);
  EXPECT_EQ(facts["fn"], 0);
  EXPECT_DOUBLE_EQ(facts["precision"].get<double>(), 0.6667);
  EXPECT_DOUBLE_EQ(facts["recall"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(facts["f1"].get<double>(), 0.8);
  EXPECT_EQ(facts["by_predicate"]["lives_in"]["tp"], 1);
  EXPECT_EQ(facts["by_predicate"]["likes"]["fp"], 1);
  EXPECT_EQ(facts["validity"]["checked"], 1);
  EXPECT_EQ(facts["validity"]["correct"], 0);
  EXPECT_EQ(facts["validity"]["errors"][0]["actual"], "2024-03-10");
  ASSERT_EQ(facts["false_positives"].size(), 1u);
  EXPECT_EQ(facts["false_positives"][0]["actual"], "Mia likes it");

  const io::Json& times = score["times"];
  EXPECT_EQ(times["tp"], 1);
  EXPECT_EQ(times["fp"], 1);
  EXPECT_EQ(times["fn"], 1);
  EXPECT_EQ(times["detected"], 2);
  EXPECT_DOUBLE_EQ(times["value_accuracy"].get<double>(), 0.5);
  ASSERT_EQ(times["misses"].size(), 1u);
  EXPECT_EQ(times["misses"][0]["turn"], "t2");
  EXPECT_EQ(times["misses"][0]["expected"], "2024-10-13/2024-10-14");
  EXPECT_EQ(times["misses"][0]["actual"], "2023-10-13/2023-10-14");

  const io::Json& entities = score["entities"];
  EXPECT_EQ(entities["tp"], 1);
  EXPECT_EQ(entities["fp"], 2);  // Porto as a person, Thai as a person
  EXPECT_EQ(entities["fn"], 1);  // Porto as a place
  EXPECT_DOUBLE_EQ(entities["precision"].get<double>(), 0.3333);
  EXPECT_EQ(entities["by_type"]["person"]["tp"], 1);
  EXPECT_EQ(entities["by_type"]["person"]["fp"], 2);
  EXPECT_EQ(entities["by_type"]["place"]["fn"], 1);
  EXPECT_EQ(entities["typing"]["span_matched"], 2);
  EXPECT_EQ(entities["typing"]["type_right"], 1);

  const io::Json& references = score["references"];
  EXPECT_EQ(references["tp"], 1);
  EXPECT_EQ(references["fp"], 0);
  EXPECT_EQ(references["fn"], 1);
  EXPECT_DOUBLE_EQ(references["accuracy"].get<double>(), 0.5);
  EXPECT_EQ(references["by_kind"]["place"]["fn"], 1);
  EXPECT_EQ(references["misses"][0]["text"], "there");
}

TEST(UnderstandingScoreTest, AnExpressionDetectedInPiecesIsOneRightAnswer) {
  LabelledTurn turn;
  turn.id = "t";
  turn.time = At("2024-03-02T10:00:00Z");
  turn.text = "dinner at 7pm tonight, then lunch on Friday";
  turn.times = {{.text = "7pm tonight", .value = "2024-03-02T19:00:00Z/2024-03-02T20:00:00Z"},
                {.text = "Friday", .value = "2024-03-08/2024-03-09"}};
  TurnOutput output;
  output.times = {{.begin = 10, .end = 13, .value = "2024-03-02T19:00:00Z/2024-03-02T20:00:00Z"},
                  {.begin = 14, .end = 21, .value = "2024-03-02T18:00:00Z/2024-03-03T00:00:00Z"},
                  {.begin = 37, .end = 43, .value = "2024-03-01/2024-03-02"}};
  const io::Json score = ScoreTurns(std::vector{turn}, std::vector{output});
  EXPECT_EQ(score["times"]["tp"], 1);
  EXPECT_EQ(score["times"]["fp"], 1);  // Friday a week early
  EXPECT_EQ(score["times"]["fn"], 1);
  EXPECT_EQ(score["times"]["false_positives"][0]["text"], "Friday");
}

TEST(UnderstandingScoreTest, PolarityAndObjectAlternativesDecideAMatch) {
  LabelledTurn turn;
  turn.id = "t";
  turn.text = "I don't like olives but I love sushi rolls";
  turn.facts = {{.subject = "Mia", .predicate = "likes", .object = "olives", .negated = true},
                {.subject = "Mia",
                 .predicate = "likes",
                 .object = "sushi",
                 .object_alt = {"sushi rolls"}}};
  TurnOutput output;
  output.facts = {{.subject = "mia", .predicate = "likes", .object = "olives"},  // wrong polarity
                  {.subject = "Mia", .predicate = "likes", .object = "Sushi Rolls"}};
  const io::Json score = ScoreTurns(std::vector{turn}, std::vector{output});
  EXPECT_EQ(score["facts"]["tp"], 1);
  EXPECT_EQ(score["facts"]["fp"], 1);
  EXPECT_EQ(score["facts"]["fn"], 1);
  EXPECT_EQ(score["facts"]["misses"][0]["expected"], "Mia NOT likes olives");
}

TEST(UnderstandingScoreTest, ProfileAndForesightCounts) {
  ProfileCase entry;
  entry.id = "p1";
  entry.profile = {{.person = "Mia", .predicate = "lives_in", .value = "Munich"},
                   {.person = "Mia", .predicate = "works_at", .value = "Siemens"},
                   {.person = "Mia", .predicate = "likes", .value = "olives", .negated = true}};
  entry.foresight = {{.subject = "Mia", .predicate = "plans_to", .object = "fly to Rome",
                      .object_alt = {"flying to Rome"}}};
  CaseOutput output;
  output.profile = {{.person = "Mia", .predicate = "lives_in", .value = "Berlin"},
                    {.person = "mia", .predicate = "works_at", .value = "siemens"},
                    {.person = "Mia", .predicate = "likes", .value = "olives", .negated = true}};
  output.foresight = {{.subject = "Mia", .predicate = "plans_to", .object = "flying to Rome"},
                      {.subject = "Mia", .predicate = "temporary_state", .object = "sick"}};
  const io::Json score = ScoreProfileCases(std::vector{entry}, std::vector{output});
  EXPECT_EQ(score["cases"], 1);
  EXPECT_EQ(score["profile"]["tp"], 2);
  EXPECT_EQ(score["profile"]["fp"], 1);
  EXPECT_EQ(score["profile"]["fn"], 1);
  EXPECT_EQ(score["profile"]["misses"][0]["expected"], "Mia lives_in Munich");
  EXPECT_EQ(score["profile"]["by_predicate"]["lives_in"]["fn"], 1);
  EXPECT_EQ(score["foresight"]["tp"], 1);
  EXPECT_EQ(score["foresight"]["fp"], 1);
  EXPECT_EQ(score["foresight"]["fn"], 0);
}

void WriteFile(const std::filesystem::path& path, const std::string& content) {
  std::ofstream out(path);
  out << content;
}

TEST(UnderstandingReadTest, RefusesASpanThatIsNotInTheText) {
  engram::testing::TempDir dir("understanding");
  const std::filesystem::path path = std::filesystem::path(dir.path()) / "turns_dev.jsonl";
  WriteFile(path,
            R"({"id": "a", "conversation": "c", "speaker": "Mia", "time": "2024-05-10T12:00:00Z",)"
            R"( "text": "I went home yesterday", "facts": [], "times": [{"text": "today",)"
            R"( "value": "2024-05-10/2024-05-11"}], "entities": [], "references": []})"
            "\n");
  EXPECT_THAT(ReadLabelledTurns(path.string()).status(),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr(":1: times: \"today\"")));
}

TEST(UnderstandingReadTest, RefusesDuplicateIdsAndBadValues) {
  engram::testing::TempDir dir("understanding");
  const std::filesystem::path path = std::filesystem::path(dir.path()) / "turns_dev.jsonl";
  const std::string line =
      R"({"id": "a", "conversation": "c", "speaker": "Mia", "time": "2024-05-10T12:00:00Z",)"
      R"( "text": "I went home yesterday", "facts": [], "times": [{"text": "yesterday",)"
      R"( "value": "2024-05-09/2024-05-10"}], "entities": [], "references": []})";
  WriteFile(path, line + "\n" + line + "\n");
  EXPECT_THAT(ReadLabelledTurns(path.string()).status(),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr(":2: duplicate id a")));
  WriteFile(path, R"({"id": "a", "conversation": "c", "speaker": "Mia", "time": "2024-05-10",)"
                  R"( "text": "x", "facts": [{"subject": "Mia", "predicate": "p", "object": "o",)"
                  R"( "valid_from": "March"}], "times": [], "entities": [], "references": []})"
                  "\n");
  EXPECT_THAT(ReadLabelledTurns(path.string()).status(),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("valid_from must be a date")));
}

// The repository's sets parse: every span is in its turn, every value well-formed, and the two
// halves hold what the README promises.
TEST(UnderstandingReadTest, TheRepositorySetsParse) {
  const std::filesystem::path dir = DefaultUnderstandingDataDir();
  std::size_t turns = 0;
  std::size_t cases = 0;
  for (const char* split : {"dev", "test"}) {
    StatusOr<std::vector<LabelledTurn>> labelled =
        ReadLabelledTurns((dir / (std::string("turns_") + split + ".jsonl")).string());
    ASSERT_THAT(labelled.status(), IsOk());
    turns += labelled->size();
    StatusOr<std::vector<ProfileCase>> profile =
        ReadProfileCases((dir / (std::string("profile_") + split + ".jsonl")).string());
    ASSERT_THAT(profile.status(), IsOk());
    cases += profile->size();
  }
  EXPECT_GE(turns, 400u);
  EXPECT_GE(cases, 100u);
}

// One run through the engine over a sample whose labels the write path is known to get right
// (the facts and signals golden files hold the same sentences) plus one label it cannot match,
// so the figures are computed from what the engine stored.
TEST(UnderstandingRunTest, ScoresWhatTheEngineStored) {
  engram::testing::TempDir dir("understanding");
  WriteFile(
      std::filesystem::path(dir.path()) / "turns_dev.jsonl",
      R"({"id": "s1", "conversation": "c1", "speaker": "Mia", "time": "2024-05-10T12:00:00Z",)"
      R"( "text": "I moved to Berlin last March.", "facts": [{"subject": "Mia", "predicate":)"
      R"( "lives_in", "object": "Berlin", "valid_from": "2024-03-01"}], "times": [{"text":)"
      R"( "last March", "value": "2024-03-01/2024-04-01"}], "entities": [{"text": "Berlin",)"
      R"( "type": "place"}], "references": []})"
      "\n"
      R"({"id": "s2", "conversation": "c1", "speaker": "Mia", "time": "2024-05-10T12:01:00Z",)"
      R"( "text": "It cost $1,250 yesterday.", "facts": [{"subject": "Mia", "predicate":)"
      R"( "paid", "object": "$1,250"}], "times": [{"text": "yesterday", "value":)"
      R"( "2024-05-09/2024-05-10"}], "entities": [], "references": []})"
      "\n");
  WriteFile(std::filesystem::path(dir.path()) / "profile_dev.jsonl",
            R"({"id": "p1", "at": "2024-05-10T13:00:00Z", "turns": [{"speaker": "Mia", "time":)"
            R"( "2024-05-10T12:00:00Z", "text": "I'm vegan."}], "profile": [{"person": "Mia",)"
            R"( "predicate": "diet", "value": "vegan"}], "foresight": []})"
            "\n");
  UnderstandingOptions options;
  options.data_dir = dir.path();
  options.split = "dev";
  StatusOr<io::Json> report = RunUnderstandingBench(options);
  if (!report.ok() && report.status().code() == StatusCode::kFailedPrecondition) {
    GTEST_SKIP() << report.status().message();
  }
  ASSERT_THAT(report.status(), IsOk());
  EXPECT_FALSE((*report)["splits"].contains("test"));
  const io::Json& turns = (*report)["splits"]["dev"]["turns"];
  EXPECT_EQ(turns["turns"], 2);
  EXPECT_EQ(turns["facts"]["tp"], 1);
  EXPECT_EQ(turns["facts"]["fn"], 1);  // "paid" is no predicate of the rule extractor
  EXPECT_EQ(turns["facts"]["misses"][0]["expected"], "Mia paid $1,250");
  EXPECT_EQ(turns["facts"]["validity"]["correct"], 1);
  EXPECT_EQ(turns["times"]["tp"], 2);
  EXPECT_EQ(turns["times"]["fn"], 0);
  EXPECT_EQ(turns["entities"]["by_type"]["place"]["tp"], 1);
  const io::Json& cases = (*report)["splits"]["dev"]["cases"];
  EXPECT_EQ(cases["cases"], 1);
  EXPECT_EQ(cases["profile"]["tp"], 1);
  EXPECT_EQ(cases["profile"]["fn"], 0);

  options.split = "both";
  EXPECT_THAT(RunUnderstandingBench(options).status(),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("--split")));
}

}  // namespace
}  // namespace engram::eval
