// End-to-end test of `engram facts`: ingest a small conversation where the speaker moves, then
// list current facts and, with --all, the superseded one with its turns and chain.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "engram/testing/temp_dir.h"
#include "shell_runner.h"

namespace engram {
namespace {

namespace fs = std::filesystem;

using Output = testing::ShellOutput;
using testing::RunCli;

class FactsCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = "--store '" + (fs::path(dir_) / "engram.db").string() + "' ";
    const std::string input = (fs::path(dir_) / "turns.jsonl").string();
    std::ofstream(input)
        << R"({"speaker": "Mia", "text": "I moved to Berlin last March.", "event_time": "2024-05-10T12:00:00Z"})"
        << "\n"
        << R"({"speaker": "Mia", "text": "Is the museum open on Mondays?", "event_time": "2024-05-10T12:01:00Z"})"
        << "\n"
        << R"({"speaker": "Mia", "text": "I actually live in Munich now, I moved in June.", "event_time": "2024-07-20T09:00:00Z"})"
        << "\n";
    const Output ingest = RunCli(store_ + "--quiet ingest --scope user:mia '" + input + "'");
    ASSERT_EQ(ingest.exit_code, 0) << ingest.out;
  }

  engram::testing::TempDir temp_dir_{"engram_facts_cli"};
  std::string dir_ = temp_dir_.path();
  std::string store_;
};

TEST_F(FactsCliTest, CurrentFactsShowMunichOnly) {
  const Output current = RunCli(store_ + "--json facts --scope user:mia");
  ASSERT_EQ(current.exit_code, 0) << current.out;
  const nlohmann::json json = nlohmann::json::parse(current.out);
  ASSERT_EQ(json["count"], 1);
  const nlohmann::json& fact = json["facts"][0];
  EXPECT_EQ(fact["subject"], "Mia");
  EXPECT_EQ(fact["predicate"], "lives_in");
  EXPECT_EQ(fact["object"], "Munich");
  EXPECT_EQ(fact["status"], "active");
  EXPECT_EQ(fact["valid_from"], "2024-06-01T00:00:00Z");
  EXPECT_EQ(fact["provenance"].size(), 1u);
  EXPECT_EQ(fact["supersedes"].size(), 1u);
  EXPECT_EQ(fact["corrects"].size(), 1u);

  const Output human = RunCli(store_ + "facts --scope user:mia");
  ASSERT_EQ(human.exit_code, 0);
  EXPECT_THAT(human.out, ::testing::HasSubstr("1 current fact in user:mia"));
  EXPECT_THAT(human.out, ::testing::HasSubstr("Mia | lives_in | Munich"));
  EXPECT_THAT(human.out, ::testing::Not(::testing::HasSubstr("Berlin")));
}

TEST_F(FactsCliTest, AllShowsTheSupersededFactWithItsTurnAndChain) {
  const Output all = RunCli(store_ + "--json facts --all --scope user:mia");
  ASSERT_EQ(all.exit_code, 0) << all.out;
  const nlohmann::json json = nlohmann::json::parse(all.out);
  ASSERT_EQ(json["count"], 2);
  const nlohmann::json& berlin = json["facts"][0];
  const nlohmann::json& munich = json["facts"][1];
  EXPECT_EQ(berlin["object"], "Berlin");
  EXPECT_EQ(berlin["status"], "superseded");
  EXPECT_EQ(berlin["valid_to"], "2024-06-01T00:00:00Z");
  EXPECT_EQ(berlin["superseded_by"], nlohmann::json::array({munich["id"]}));
  EXPECT_EQ(berlin["corrected_by"], nlohmann::json::array({munich["id"]}));
  ASSERT_EQ(berlin["provenance"].size(), 1u);
  EXPECT_NE(berlin["provenance"][0], munich["provenance"][0]);

  const Output turn = RunCli(store_ + "--json show " + berlin["provenance"][0].get<std::string>());
  ASSERT_EQ(turn.exit_code, 0);
  EXPECT_THAT(turn.out, ::testing::HasSubstr("I moved to Berlin last March."));
}

TEST_F(FactsCliTest, EntitiesListsSpeakerAndPlacesWithMentionCounts) {
  const Output listed = RunCli(store_ + "--json entities --scope user:mia");
  ASSERT_EQ(listed.exit_code, 0) << listed.out;
  const nlohmann::json json = nlohmann::json::parse(listed.out);
  std::map<std::string, nlohmann::json> by_name;
  for (const nlohmann::json& entity : json["entities"]) by_name[entity["name"]] = entity;
  EXPECT_EQ(json["count"], by_name.size());
  ASSERT_TRUE(by_name.count("Berlin"));
  ASSERT_TRUE(by_name.count("Munich"));
  EXPECT_EQ(by_name["Berlin"]["kind"], "place");
  EXPECT_EQ(by_name["Berlin"]["mentions"], 1);
  EXPECT_EQ(by_name["Munich"]["kind"], "place");
  EXPECT_EQ(by_name["Munich"]["first_seen"], "2024-07-20T09:00:00Z");
  ASSERT_TRUE(by_name.count("Mia"));
  EXPECT_EQ(by_name["Mia"]["kind"], "person");

  const Output human = RunCli(store_ + "entities --scope user:mia");
  ASSERT_EQ(human.exit_code, 0);
  EXPECT_THAT(human.out, ::testing::HasSubstr(json["count"].dump() + " entities in user:mia"));
  EXPECT_THAT(human.out, ::testing::HasSubstr("place  Munich  mentions 1"));
}

TEST_F(FactsCliTest, MergesIsAnAliasOfProposals) {
  const Output merges = RunCli(store_ + "--json merges --scope user:mia");
  const Output proposals = RunCli(store_ + "--json proposals --scope user:mia");
  ASSERT_EQ(merges.exit_code, 0) << merges.out;
  EXPECT_EQ(merges.out, proposals.out);
  EXPECT_EQ(RunCli(store_ + "merges --scope user:nobody 2>/dev/null").exit_code, 3);
}

TEST_F(FactsCliTest, UnknownScopeIsNotFoundAndBadScopeIsUsage) {
  EXPECT_EQ(RunCli(store_ + "entities --scope user:nobody 2>/dev/null").exit_code, 3);
  EXPECT_EQ(RunCli(store_ + "entities --scope 'not a scope' 2>/dev/null").exit_code, 2);
  EXPECT_EQ(RunCli(store_ + "entities 2>/dev/null").exit_code, 2);
  EXPECT_EQ(RunCli(store_ + "facts --scope user:nobody 2>/dev/null").exit_code, 3);
  EXPECT_EQ(RunCli(store_ + "facts --scope 'not a scope' 2>/dev/null").exit_code, 2);
}

}  // namespace
}  // namespace engram
