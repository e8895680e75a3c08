// End-to-end test of `engram context` on a long run (300 synthetic turns written by the test):
// the context stays within its budget, and every turn the active window keeps is shown with its
// survival score, tier and the reason it is kept, readable and in --json; bad requests are clear
// errors with the documented exit codes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "engram/testing/temp_dir.h"
#include "shell_runner.h"

namespace engram {
namespace {

namespace fs = std::filesystem;

using Output = testing::ShellOutput;
using testing::RunCli;
using ::testing::HasSubstr;

constexpr int kTurns = 300;

class ContextCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const fs::path dir(dir_);
    // The hashing embedder keeps the ingest of 300 turns fast; divergence is still computed.
    std::ofstream(dir / "engram.toml") << "[embedder]\nkind = \"hashing\"\n";
    store_ = "--store '" + (dir / "engram.db").string() + "' --config '" +
             (dir / "engram.toml").string() + "' ";
    const std::string input = (dir / "turns.jsonl").string();
    std::ofstream out(input);
    const char* kinds[] = {
        "Do not deploy service %d on Fridays.",
        "I prefer the blue dashboard for team %d.",
        "ok thanks",
        "Which report did team %d send yesterday?",
        "We talked about lunch and the weather for a while, item %d.",
        "Actually, the meeting for project %d is on Tuesday, not Monday.",
        "I'm currently working on the billing module number %d with Priya in Lisbon.",
    };
    for (int i = 0; i < kTurns; ++i) {
      char text[200];
      std::snprintf(text, sizeof(text), kinds[i % 7], i);
      char time[40];
      std::snprintf(time, sizeof(time), "2024-05-%02dT%02d:%02d:00Z", 1 + i / 100, 8 + (i / 60) % 10,
                    i % 60);
      out << nlohmann::json{{"speaker", i % 2 == 0 ? "Ana" : "Bot"},
                            {"role", i % 2 == 0 ? "user" : "assistant"},
                            {"text", text},
                            {"session_id", "s1"},
                            {"event_time", time}}
                 .dump()
          << "\n";
    }
    out.close();
    const Output ingest = RunCli(store_ + "--quiet ingest --scope user:ana/run:long '" + input + "'");
    ASSERT_EQ(ingest.exit_code, 0) << ingest.out;
  }

  engram::testing::TempDir temp_dir_{"engram_context_cli"};
  std::string dir_ = temp_dir_.path();
  std::string store_;
};

TEST_F(ContextCliTest, JsonKeepsTheBudgetAndExplainsEveryKeptTurn) {
  for (const int budget : {300, 1500, 6096}) {
    SCOPED_TRACE("budget " + std::to_string(budget));
    const Output context =
        RunCli(store_ + "--json context --scope user:ana/run:long --budget " +
               std::to_string(budget) + " 'Which module is Priya working on?'");
    ASSERT_EQ(context.exit_code, 0) << context.out;
    const nlohmann::json json = nlohmann::json::parse(context.out);
    EXPECT_EQ(json["run_turns"], kTurns);
    EXPECT_EQ(json["token_budget"], budget);
    EXPECT_LE(json["context_tokens"].get<int>(), budget);
    EXPECT_LE(json["window_tokens"].get<int>(), json["window_budget"].get<int>());
    EXPECT_EQ(json["last_sweep"], kTurns);  // a sweep every 5 interactions
    ASSERT_FALSE(json["window"].empty());
    // A long run: old turns left the window by hard-kill, and all of them are accounted for.
    const nlohmann::json& left = json["left_window"];
    EXPECT_GT(left["hard_killed"].get<int>(), 0);
    EXPECT_EQ(left["hard_killed"].get<std::size_t>() + left["pruned"].get<std::size_t>() +
                  left["too_large"].get<std::size_t>() + left["inactive"].get<std::size_t>() +
                  json["window"].size(),
              static_cast<std::size_t>(kTurns));
    int window_tokens = 0;
    for (const nlohmann::json& turn : json["window"]) {
      EXPECT_GT(turn["omega"].get<double>(), 0);
      EXPECT_LE(turn["omega_eff"].get<double>(), turn["omega"].get<double>());
      EXPECT_THAT(turn["tier"].get<std::string>(),
                  ::testing::AnyOf("healthy", "unstable", "critical"));
      EXPECT_THAT(turn["reason"].get<std::string>(),
                  ::testing::AnyOf("within_budget", "healthy", "outranks_pruned"));
      EXPECT_FALSE(turn["explanation"].get<std::string>().empty());
      window_tokens += turn["tokens"].get<int>();
    }
    EXPECT_LE(window_tokens, json["window_tokens"].get<int>());
    // The context text holds the window's turns after the recalled memory.
    const std::string text = json["context"];
    EXPECT_THAT(text, HasSubstr("=== ACTIVE CONVERSATION ==="));
    if (!json["recalled"].empty()) {
      EXPECT_LT(text.find("=== LONG-TERM MEMORY (RECALLED) ==="),
                text.find("=== ACTIVE CONVERSATION ==="));
    }
  }
}

TEST_F(ContextCliTest, ReadableOutputShowsOmegaTierAndReasonPerTurn) {
  const Output json_output = RunCli(store_ +
                                    "--json context --scope user:ana/run:long --budget 800 "
                                    "'Which services should not be deployed?'");
  ASSERT_EQ(json_output.exit_code, 0) << json_output.out;
  const nlohmann::json json = nlohmann::json::parse(json_output.out);
  const Output human = RunCli(store_ +
                              "context --scope user:ana/run:long --budget 800 "
                              "'Which services should not be deployed?'");
  ASSERT_EQ(human.exit_code, 0) << human.out;
  EXPECT_THAT(human.out, HasSubstr("of 800 tokens"));
  EXPECT_THAT(human.out, HasSubstr("active window: " + std::to_string(json["window"].size())));
  // One line per kept turn, with its interaction, Ω, Ω_eff, tier and reason, then why.
  for (const nlohmann::json& turn : json["window"]) {
    std::ostringstream line;
    char omega[64];
    std::snprintf(omega, sizeof(omega), "Ω %.4f  Ω_eff %.4f  ", turn["omega"].get<double>(),
                  turn["omega_eff"].get<double>());
    line << "#" << turn["interaction"].get<int>() << "  " << omega
         << turn["tier"].get<std::string>() << "  kept: " << turn["reason"].get<std::string>();
    EXPECT_THAT(human.out, HasSubstr(line.str()));
  }
  const std::size_t whys = [&] {
    std::size_t count = 0;
    for (std::size_t at = human.out.find("    why: "); at != std::string::npos;
         at = human.out.find("    why: ", at + 1)) {
      ++count;
    }
    return count;
  }();
  EXPECT_EQ(whys, json["window"].size());

  // --context prints the context alone.
  const Output only = RunCli(store_ +
                             "context --context --scope user:ana/run:long --budget 800 "
                             "'Which services should not be deployed?'");
  ASSERT_EQ(only.exit_code, 0);
  EXPECT_EQ(only.out, json["context"].get<std::string>() + "\n");
}

TEST_F(ContextCliTest, BadRequestsAreClearErrors) {
  const Output unknown =
      RunCli(store_ + "context --scope user:ana/run:nope 'rules?'", /*with_stderr=*/true);
  EXPECT_EQ(unknown.exit_code, 3);
  EXPECT_THAT(unknown.out, HasSubstr("user:ana/run:nope"));
  const Output not_run = RunCli(store_ + "context --scope user:ana 'rules?'", true);
  EXPECT_EQ(not_run.exit_code, 1);
  EXPECT_THAT(not_run.out, HasSubstr("run scope"));
  const Output zero = RunCli(store_ + "context --scope user:ana/run:long --budget 0 'rules?'", true);
  EXPECT_EQ(zero.exit_code, 2);
  EXPECT_THAT(zero.out, HasSubstr("--budget"));
  const Output huge =
      RunCli(store_ + "context --scope user:ana/run:long --budget 99999999 'rules?'", true);
  EXPECT_EQ(huge.exit_code, 1);
  EXPECT_THAT(huge.out, HasSubstr("token budget 99999999"));
  const Output empty = RunCli(store_ + "--json context --scope user:ana/run:long ' '");
  EXPECT_EQ(empty.exit_code, 1);
  EXPECT_THAT(empty.out, HasSubstr("query is empty"));
  EXPECT_TRUE(nlohmann::json::parse(empty.out).contains("error"));
  const Output bad_scope = RunCli(store_ + "context --scope 'nonsense' 'rules?'", true);
  EXPECT_EQ(bad_scope.exit_code, 2);
}

}  // namespace
}  // namespace engram
