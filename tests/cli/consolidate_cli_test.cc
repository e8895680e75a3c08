// End-to-end test of `engram consolidate`, `engram episodes`, `engram scenes` and
// `engram profile`: a user who moved from Berlin to Munich ends up with Munich as the current
// residence and Berlin in its history, each linked to the turn that said it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "engram/testing/temp_dir.h"
#include "shell_runner.h"

namespace engram {
namespace {

namespace fs = std::filesystem;

using Output = testing::ShellOutput;
using testing::RunCli;

class ConsolidateCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = "--store '" + (fs::path(dir_) / "engram.db").string() + "' ";
    const std::string input = (fs::path(dir_) / "turns.jsonl").string();
    std::ofstream(input)
        << R"({"speaker": "Mia", "text": "I moved to Berlin last March.", "session_id": "s1", "event_time": "2024-05-10T12:00:00Z"})"
        << "\n"
        << R"({"speaker": "Mia", "text": "Is the museum open on Mondays?", "session_id": "s1", "event_time": "2024-05-10T12:01:00Z"})"
        << "\n"
        << R"({"speaker": "Mia", "text": "I actually live in Munich now.", "session_id": "s2", "event_time": "2024-07-20T09:00:00Z"})"
        << "\n"
        << R"({"speaker": "Mia", "text": "I'm flying to Rome next week.", "session_id": "s2", "event_time": "2024-07-20T09:05:00Z"})"
        << "\n";
    const Output ingest = RunCli(store_ + "--json ingest --scope user:mia '" + input + "'");
    ASSERT_EQ(ingest.exit_code, 0) << ingest.out;
  }
  // The ids of the scope's turns, in order.
  std::vector<std::string> TurnIds() {
    const Output list = RunCli(store_ + "--json list --scope user:mia --kind turn");
    EXPECT_EQ(list.exit_code, 0) << list.out;
    std::vector<std::string> ids;
    const nlohmann::json json = nlohmann::json::parse(list.out);
    for (const auto& memory : json["memories"]) ids.push_back(memory["id"]);
    return ids;
  }

  engram::testing::TempDir temp_dir_{"engram_consolidate_cli"};
  std::string dir_ = temp_dir_.path();
  std::string store_;
};

TEST_F(ConsolidateCliTest, ProfileShowsMunichWithBerlinInItsHistory) {
  const Output consolidate = RunCli(store_ + "--json consolidate --scope user:mia");
  ASSERT_EQ(consolidate.exit_code, 0) << consolidate.out;
  const nlohmann::json result = nlohmann::json::parse(consolidate.out);
  EXPECT_EQ(result["turns"], 4);
  EXPECT_EQ(result["episodes"], 2);  // one per session
  EXPECT_EQ(result["profiles"], 1);

  const std::vector<std::string> turns = TurnIds();
  ASSERT_EQ(turns.size(), 4u);
  const Output profile = RunCli(store_ + "--json profile --scope user:mia");
  ASSERT_EQ(profile.exit_code, 0) << profile.out;
  const nlohmann::json json = nlohmann::json::parse(profile.out);
  ASSERT_EQ(json["count"], 1);
  const nlohmann::json& mia = json["people"][0];
  EXPECT_EQ(mia["name"], "Mia");
  EXPECT_EQ(mia["scope_user"], true);
  ASSERT_EQ(mia["explicit"].size(), 1u) << mia.dump(2);
  const nlohmann::json& residence = mia["explicit"][0];
  EXPECT_EQ(residence["predicate"], "lives_in");
  EXPECT_EQ(residence["current"]["object"], "Munich");
  EXPECT_EQ(residence["current"]["turns"], nlohmann::json::array({turns[2]}));
  ASSERT_EQ(residence["history"].size(), 1u);
  EXPECT_EQ(residence["history"][0]["object"], "Berlin");
  EXPECT_EQ(residence["history"][0]["turns"], nlohmann::json::array({turns[0]}));

  const Output human = RunCli(store_ + "profile --scope user:mia");
  ASSERT_EQ(human.exit_code, 0);
  EXPECT_THAT(human.out, ::testing::HasSubstr("lives_in: Munich"));
  EXPECT_THAT(human.out, ::testing::HasSubstr("before: Berlin"));
}

TEST_F(ConsolidateCliTest, EpisodesAndScenesList) {
  ASSERT_EQ(RunCli(store_ + "--quiet consolidate --scope user:mia").exit_code, 0);
  const Output episodes = RunCli(store_ + "--json episodes --scope user:mia");
  ASSERT_EQ(episodes.exit_code, 0) << episodes.out;
  const nlohmann::json json = nlohmann::json::parse(episodes.out);
  ASSERT_EQ(json["count"], 2);
  EXPECT_EQ(json["episodes"][0]["session"], "s1");
  EXPECT_EQ(json["episodes"][0]["turns"].size(), 2u);
  EXPECT_EQ(json["episodes"][1]["boundary"], "session");
  EXPECT_EQ(json["episodes"][0]["status"], "active");

  const Output scenes = RunCli(store_ + "--json scenes --scope user:mia");
  ASSERT_EQ(scenes.exit_code, 0) << scenes.out;
  const nlohmann::json scene_json = nlohmann::json::parse(scenes.out);
  ASSERT_GE(scene_json["count"].get<int>(), 1);
  std::size_t members = 0;
  for (const auto& scene : scene_json["scenes"]) members += scene["episodes"].size();
  EXPECT_EQ(members, 2u);  // every episode in exactly one scene
}

TEST_F(ConsolidateCliTest, ShowListsTheTurnsEpisodeAndSceneOnceConsolidated) {
  const std::vector<std::string> turns = TurnIds();
  ASSERT_EQ(turns.size(), 4u);
  const Output before = RunCli(store_ + "--json show " + turns[3]);
  ASSERT_EQ(before.exit_code, 0) << before.out;
  EXPECT_EQ(nlohmann::json::parse(before.out)["episodes"], nlohmann::json::array());

  ASSERT_EQ(RunCli(store_ + "--quiet consolidate --scope user:mia").exit_code, 0);
  const nlohmann::json listed =
      nlohmann::json::parse(RunCli(store_ + "--json episodes --scope user:mia").out);
  const nlohmann::json scenes =
      nlohmann::json::parse(RunCli(store_ + "--json scenes --scope user:mia").out);
  const Output shown = RunCli(store_ + "--json show " + turns[3]);
  ASSERT_EQ(shown.exit_code, 0) << shown.out;
  const nlohmann::json json = nlohmann::json::parse(shown.out);
  ASSERT_EQ(json["episodes"].size(), 1u) << json.dump(2);
  const nlohmann::json& episode = json["episodes"][0];
  EXPECT_EQ(episode["id"], listed["episodes"][1]["id"]);  // the second session's episode
  EXPECT_EQ(episode["turns"], 2);
  ASSERT_EQ(episode["scenes"].size(), 1u);
  std::string scene_of_episode;
  for (const auto& scene : scenes["scenes"]) {
    for (const auto& member : scene["episodes"]) {
      if (member == episode["id"]) scene_of_episode = scene["id"];
    }
  }
  EXPECT_EQ(episode["scenes"][0]["id"], scene_of_episode);

  const Output human = RunCli(store_ + "show " + turns[3]);
  ASSERT_EQ(human.exit_code, 0);
  EXPECT_THAT(human.out, ::testing::HasSubstr("episode\n  " + episode["id"].get<std::string>()));
  EXPECT_THAT(human.out, ::testing::HasSubstr("scene " + scene_of_episode));
}

TEST_F(ConsolidateCliTest, UnknownScopeAndBadScopeAreClearErrors) {
  const Output unknown = RunCli(store_ + "consolidate --scope user:nobody", /*with_stderr=*/true);
  EXPECT_EQ(unknown.exit_code, 3);
  EXPECT_THAT(unknown.out, ::testing::HasSubstr("user:nobody"));
  const Output json_unknown = RunCli(store_ + "--json episodes --scope user:nobody");
  EXPECT_EQ(json_unknown.exit_code, 3);
  EXPECT_TRUE(nlohmann::json::parse(json_unknown.out).contains("error"));
  const Output bad = RunCli(store_ + "profile --scope 'nonsense'");
  EXPECT_EQ(bad.exit_code, 2);
  const Output bad_time =
      RunCli(store_ + "foresight --scope user:mia --at 'next tuesday'", /*with_stderr=*/true);
  EXPECT_EQ(bad_time.exit_code, 2);
  EXPECT_THAT(bad_time.out, ::testing::HasSubstr("--at"));
}

TEST_F(ConsolidateCliTest, ForesightIsListedWhileValid) {
  const Output during = RunCli(store_ + "--json foresight --scope user:mia --at 2024-07-21T00:00:00Z");
  ASSERT_EQ(during.exit_code, 0) << during.out;
  const nlohmann::json valid = nlohmann::json::parse(during.out);
  ASSERT_EQ(valid["count"], 1) << valid.dump(2);
  const nlohmann::json& plan = valid["foresight"][0];
  EXPECT_EQ(plan["predicate"], "plans_to");
  EXPECT_EQ(plan["validity"], "valid");
  EXPECT_EQ(plan["turns"], nlohmann::json::array({TurnIds()[3]}));
  const std::string valid_to = plan["valid_to"];

  // At its end it has expired: hidden, and marked so with --all.
  const Output after = RunCli(store_ + "--json foresight --scope user:mia --at " + valid_to);
  ASSERT_EQ(after.exit_code, 0);
  EXPECT_EQ(nlohmann::json::parse(after.out)["count"], 0);
  const Output all = RunCli(store_ + "--json foresight --all --scope user:mia --at " + valid_to);
  ASSERT_EQ(all.exit_code, 0);
  const nlohmann::json every = nlohmann::json::parse(all.out);
  ASSERT_EQ(every["count"], 1);
  EXPECT_EQ(every["foresight"][0]["validity"], "expired");
}

TEST_F(ConsolidateCliTest, RecallInChatModeShowsTheProfileAndValidForesight) {
  ASSERT_EQ(RunCli(store_ + "consolidate --scope user:mia").exit_code, 0);
  const std::vector<std::string> turns = TurnIds();
  ASSERT_EQ(turns.size(), 4u);
  const Output during = RunCli(store_ +
                               "--json recall --scope user:mia --mode chat "
                               "--at 2024-07-21T00:00:00Z 'What is coming up?'");
  ASSERT_EQ(during.exit_code, 0) << during.out;
  const nlohmann::json result = nlohmann::json::parse(during.out);
  EXPECT_EQ(result["mode"], "chat");
  bool residence = false;
  bool plan = false;
  for (const auto& line : result["chat"]) {
    if (line["section"] == "profile" && line["text"].get<std::string>().find("Munich") !=
                                            std::string::npos) {
      residence = true;
      EXPECT_EQ(line["evidence"], nlohmann::json::array({turns[2]}));
    }
    if (line["section"] == "foresight") {
      plan = true;
      EXPECT_EQ(line["evidence"], nlohmann::json::array({turns[3]}));
    }
  }
  EXPECT_TRUE(residence) << result.dump(2);
  EXPECT_TRUE(plan) << result.dump(2);
  EXPECT_THAT(result["context"].get<std::string>(), ::testing::StartsWith("Profile of Mia:"));

  // A month later the plan is over: the profile stays, the foresight is gone.
  const Output later = RunCli(store_ +
                              "--json recall --scope user:mia --mode chat "
                              "--at 2024-08-30T00:00:00Z 'What is coming up?'");
  ASSERT_EQ(later.exit_code, 0) << later.out;
  for (const auto& line : nlohmann::json::parse(later.out)["chat"]) {
    EXPECT_EQ(line["section"], "profile");
  }

  // The human output lists the lines; an unknown mode is a usage error naming the choices.
  const Output human =
      RunCli(store_ + "recall --scope user:mia --mode chat --at 2024-07-21T00:00:00Z 'plans?'");
  ASSERT_EQ(human.exit_code, 0) << human.out;
  EXPECT_THAT(human.out, ::testing::HasSubstr("profile - lives in: Munich (before: Berlin)"));
  const Output bad =
      RunCli(store_ + "recall --scope user:mia --mode gossip 'plans?'", /*with_stderr=*/true);
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.out, ::testing::HasSubstr("--mode: unknown context mode \"gossip\""));
  EXPECT_THAT(bad.out, ::testing::HasSubstr("evidence, chat"));
}

}  // namespace
}  // namespace engram
