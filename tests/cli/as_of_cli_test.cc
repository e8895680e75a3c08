// End-to-end test of as-of recall through the `engram` binary (issue: "what was true then, what
// engram knew then"): "I live in Berlin" said in March and ingested by one run, "I moved to
// Munich" said in June and ingested by a later run. `recall --valid-at` April answers Berlin,
// a recall now Munich, `recall --known-at` the time between the two runs Berlin; `facts` takes
// the same flags; malformed times are usage errors naming the flag.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engram/testing/temp_dir.h"
#include "shell_runner.h"

namespace engram {
namespace {

namespace fs = std::filesystem;

using Output = testing::ShellOutput;
using testing::RunCli;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr const char* kQuestion = "'Where do I live?'";

class AsOfCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = "--store '" + (fs::path(dir_) / "engram.db").string() + "' ";
    Ingest("berlin.jsonl",
           R"({"speaker": "Mia", "session_id": "s1", "text": "I live in Berlin.", "event_time": "2024-03-10T10:00:00Z"})");
    // What engram knew between the two runs: everything the first run stored.
    const nlohmann::json first = Json("list --scope user:mia --kind all");
    for (const nlohmann::json& memory : first["memories"]) {
      const std::string ingested = memory["ingested_at"];
      if (ingested > between_) between_ = ingested;
    }
    ASSERT_FALSE(between_.empty());
    Ingest("munich.jsonl",
           R"({"speaker": "Mia", "session_id": "s2", "text": "I moved to Munich.", "event_time": "2024-06-15T10:00:00Z"})");
  }

  void Ingest(const std::string& name, const std::string& line) {
    const std::string input = (fs::path(dir_) / name).string();
    std::ofstream(input) << line << "\n";
    const Output ingest = RunCli(store_ + "--quiet ingest --scope user:mia '" + input + "'");
    ASSERT_EQ(ingest.exit_code, 0) << ingest.out;
  }

  nlohmann::json Json(const std::string& args) {
    const Output output = RunCli(store_ + "--json " + args);
    EXPECT_EQ(output.exit_code, 0) << args << "\n" << output.out;
    return nlohmann::json::parse(output.out, nullptr, /*allow_exceptions=*/false);
  }

  // Texts of the recall's items of one kind ("turn", "fact"), in rank order.
  static std::vector<std::string> Texts(const nlohmann::json& result, const std::string& kind) {
    std::vector<std::string> texts;
    for (const nlohmann::json& item : result["items"]) {
      if (item["kind"] == kind) texts.push_back(item["text"]);
    }
    return texts;
  }

  engram::testing::TempDir temp_dir_{"engram_as_of_cli"};
  std::string dir_ = temp_dir_.path();
  std::string store_;
  std::string between_;  // the latest ingestion time of the first run
};

TEST_F(AsOfCliTest, ValidInAprilAnswersBerlin) {
  const nlohmann::json april =
      Json(std::string("recall --scope user:mia --valid-at 2024-04-01T00:00:00Z ") + kQuestion);
  ASSERT_FALSE(april["items"].empty());
  EXPECT_THAT(april["items"][0]["text"].get<std::string>(), HasSubstr("Berlin"));
  EXPECT_THAT(april["items"].dump(), Not(HasSubstr("Munich")));
  EXPECT_GE(april["diagnostics"]["filtered_by"]["valid_at"].get<int>(), 1);
}

TEST_F(AsOfCliTest, ValidNowAnswersMunich) {
  // The facts route alone: with every route the turn "I moved to Munich" may be packed instead
  // of the fact it supports (the packing leaves out an item whose evidence it holds already).
  const nlohmann::json now =
      Json(std::string("recall --scope user:mia --routes facts ") + kQuestion);
  const std::vector<std::string> facts = Texts(now, "fact");
  ASSERT_FALSE(facts.empty());
  EXPECT_THAT(facts.front(), HasSubstr("Munich"));
  for (const std::string& fact : facts) EXPECT_THAT(fact, Not(HasSubstr("Berlin")));
}

TEST_F(AsOfCliTest, ARecallNowPutsMunichFirstAndSaysWhatSupersededBerlin) {
  const nlohmann::json now = Json(std::string("recall --scope user:mia ") + kQuestion);
  ASSERT_GE(now["items"].size(), 2u);
  EXPECT_THAT(now["items"][0]["text"].get<std::string>(), HasSubstr("Munich"));
  const nlohmann::json& berlin = now["items"][1];
  EXPECT_EQ(berlin["text"], "I live in Berlin.");
  EXPECT_EQ(berlin["superseded_by"]["text"], "I moved to Munich.");
  EXPECT_EQ(berlin["superseded_by"]["time"], "2024-06-15T10:00:00Z");
  EXPECT_THAT(now["context"].get<std::string>(),
              HasSubstr("I live in Berlin. (superseded 2024-06-15: I moved to Munich.)"));
  // The human output says it too.
  const Output text = RunCli(store_ + "recall --scope user:mia " + kQuestion);
  ASSERT_EQ(text.exit_code, 0) << text.out;
  EXPECT_THAT(text.out, HasSubstr("superseded 2024-06-15T10:00:00Z by "));
  EXPECT_THAT(text.out, HasSubstr(": I moved to Munich.\n"));
}

TEST_F(AsOfCliTest, KnownBeforeTheMunichTurnArrivedAnswersBerlin) {
  const nlohmann::json then =
      Json("recall --scope user:mia --known-at " + between_ + " " + kQuestion);
  ASSERT_FALSE(then["items"].empty());
  EXPECT_THAT(then["items"][0]["text"].get<std::string>(), HasSubstr("Berlin"));
  EXPECT_THAT(then["items"].dump(), Not(HasSubstr("Munich")));
  for (const nlohmann::json& item : then["items"]) EXPECT_EQ(item["status"], "active");
  EXPECT_GE(then["diagnostics"]["filtered_by"]["known_at"].get<int>(), 1);
}

TEST_F(AsOfCliTest, ExplainSaysWhichFilterHidWhat) {
  const Output explained = RunCli(store_ + "recall --explain --scope user:mia --valid-at " +
                                  "2024-04-01T00:00:00Z " + kQuestion);
  ASSERT_EQ(explained.exit_code, 0) << explained.out;
  EXPECT_THAT(explained.out, HasSubstr("filtered: valid_at "));
  EXPECT_THAT(explained.out, HasSubstr("by valid_at: valid from 2024-06-15T10:00:00Z, after "
                                       "valid_at 2024-04-01T00:00:00Z"));
}

TEST_F(AsOfCliTest, FactsTakeTheSameFlags) {
  const nlohmann::json april = Json("facts --scope user:mia --valid-at 2024-04-01T00:00:00Z");
  ASSERT_EQ(april["count"], 1);
  EXPECT_EQ(april["facts"][0]["object"], "Berlin");
  EXPECT_EQ(april["facts"][0]["status"], "superseded");
  EXPECT_EQ(april["valid_at"], "2024-04-01T00:00:00Z");

  const nlohmann::json then = Json("facts --scope user:mia --known-at " + between_);
  ASSERT_EQ(then["count"], 1);
  EXPECT_EQ(then["facts"][0]["object"], "Berlin");
  EXPECT_EQ(then["facts"][0]["status"], "active");
  EXPECT_TRUE(then["facts"][0]["valid_to"].is_null());
  EXPECT_TRUE(then["facts"][0]["superseded_by"].empty());  // recorded later

  const nlohmann::json now = Json("facts --scope user:mia");
  ASSERT_EQ(now["count"], 1);
  EXPECT_EQ(now["facts"][0]["object"], "Munich");
}

// A profile is rebuilt by each consolidation (the old one retired): --known-at shows the one
// engram held then.
TEST_F(AsOfCliTest, ProfileKnownAtShowsTheProfileEngramHeldThen) {
  const std::string scope = "--scope user:leo";
  const std::string input = (fs::path(dir_) / "leo.jsonl").string();
  std::ofstream(input)
      << R"({"speaker": "Leo", "session_id": "s1", "text": "I live in Berlin.", "event_time": "2024-03-10T10:00:00Z"})"
      << "\n";
  ASSERT_EQ(RunCli(store_ + "--quiet ingest " + scope + " '" + input + "'").exit_code, 0);
  ASSERT_EQ(RunCli(store_ + "--quiet consolidate " + scope).exit_code, 0);
  std::string consolidated;
  const nlohmann::json stored = Json("list --kind all " + scope);
  for (const nlohmann::json& memory : stored["memories"]) {
    const std::string ingested = memory["ingested_at"];
    if (ingested > consolidated) consolidated = ingested;
  }
  std::ofstream(input)
      << R"({"speaker": "Leo", "session_id": "s2", "text": "I moved to Munich.", "event_time": "2024-06-15T10:00:00Z"})"
      << "\n";
  ASSERT_EQ(RunCli(store_ + "--quiet ingest " + scope + " '" + input + "'").exit_code, 0);
  ASSERT_EQ(RunCli(store_ + "--quiet consolidate " + scope).exit_code, 0);

  const auto residence = [](const nlohmann::json& profile) {
    EXPECT_EQ(profile["count"], 1) << profile.dump(2);
    return profile["people"][0]["explicit"][0]["current"]["object"];
  };
  EXPECT_EQ(residence(Json("profile " + scope)), "Munich");
  const nlohmann::json then = Json("profile " + scope + " --known-at " + consolidated);
  EXPECT_EQ(residence(then), "Berlin");
  EXPECT_EQ(then["people"][0]["status"], "active");
}

TEST_F(AsOfCliTest, MalformedTimesAreUsageErrorsNamingTheFlag) {
  for (const std::string& command :
       {std::string("recall --scope user:mia --valid-at April ") + kQuestion,
        std::string("recall --scope user:mia --known-at 2024-13-01T00:00:00Z ") + kQuestion,
        std::string("facts --scope user:mia --valid-at yesterday"),
        std::string("facts --scope user:mia --known-at ''"),
        std::string("profile --scope user:mia --known-at 2024-05-01T25:00:00Z")}) {
    const Output output = RunCli(store_ + command, /*with_stderr=*/true);
    EXPECT_EQ(output.exit_code, 2) << command << "\n" << output.out;
    const std::string flag = command.find("--valid-at") != std::string::npos ? "--valid-at"
                                                                               : "--known-at";
    EXPECT_THAT(output.out, HasSubstr(flag + ": ")) << command;
  }
}

}  // namespace
}  // namespace engram
