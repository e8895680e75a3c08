// `engram status` and back-pressure from the command line: the backlog an `ingest --no-wait`
// leaves, against [write] max_pending_turns; an ingest that meets the limit waits for the
// derivation and then stores its scope; a bad limit is refused naming the key.
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

using ::testing::HasSubstr;
using testing::RunCli;

class StatusCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const fs::path dir(dir_.path());
    std::ofstream(dir / "engram.toml")
        << "[embedder]\nkind = \"hashing\"\n[write]\nmax_pending_turns = 3\n";
    common_ = "--store '" + (dir / "engram.db").string() + "' --config '" +
              (dir / "engram.toml").string() + "' ";
    for (const char* name : {"first.jsonl", "second.jsonl"}) {
      std::ofstream out(dir / name);
      for (int turn = 0; turn < 4; ++turn) {
        out << nlohmann::json{{"speaker", "Ana"},
                              {"text", std::string(name) + " turn " + std::to_string(turn)}}
                   .dump()
            << "\n";
      }
    }
  }

  nlohmann::json Status() {
    const testing::ShellOutput output = RunCli("--json " + common_ + "status");
    EXPECT_EQ(output.exit_code, 0) << output.out;
    return nlohmann::json::parse(output.out, nullptr, false);
  }

  std::string File(const std::string& name) { return "'" + dir_.File(name) + "'"; }

  engram::testing::TempDir dir_{"engram_status_cli_test"};
  std::string common_;
};

TEST_F(StatusCliTest, ShowsTheBacklogAgainstTheLimitAndIngestWaitsAtTheLimit) {
  const testing::ShellOutput first =
      RunCli(common_ + "ingest --no-wait --scope user:ana " + File("first.jsonl"), true);
  ASSERT_EQ(first.exit_code, 0) << first.out;
  nlohmann::json status = Status();
  EXPECT_EQ(status["pending_turns"], 4);
  EXPECT_EQ(status["pending_scopes"], 1);
  EXPECT_EQ(status["max_pending_turns"], 3);
  EXPECT_EQ(status["accepting"], false);
  const testing::ShellOutput human = RunCli(common_ + "status");
  EXPECT_EQ(human.exit_code, 0);
  EXPECT_THAT(human.out, HasSubstr("pending turns   4 in 1 scope (limit 3 reached"));

  // Four turns await derivation, one more than the limit: this ingest derives them first, then
  // stores its own four.
  const testing::ShellOutput second =
      RunCli(common_ + "ingest --no-wait --scope user:bo " + File("second.jsonl"), true);
  ASSERT_EQ(second.exit_code, 0) << second.out;
  EXPECT_THAT(second.out, HasSubstr("max_pending_turns = 3"));
  EXPECT_THAT(second.out, HasSubstr("waiting for the derivation to catch up"));
  status = Status();
  EXPECT_EQ(status["pending_turns"], 4);  // user:bo's, user:ana's are derived
  EXPECT_EQ(status["pending_scopes"], 1);

  // Looking derives nothing.
  EXPECT_EQ(Status()["pending_turns"], 4);
}

TEST_F(StatusCliTest, ALimitOutsideItsRangeIsRefusedNamingTheKey) {
  std::ofstream(dir_.File("bad.toml")) << "[write]\nmax_pending_turns = -1\n";
  const testing::ShellOutput bad = RunCli(
      "--store '" + dir_.File("engram.db") + "' --config " + File("bad.toml") + " status", true);
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_THAT(bad.out, HasSubstr("max_pending_turns"));
  // 0 is allowed: no limit.
  std::ofstream(dir_.File("off.toml")) << "[embedder]\nkind = \"hashing\"\n"
                                          "[write]\nmax_pending_turns = 0\n";
  ASSERT_EQ(RunCli("--store '" + dir_.File("engram.db") + "' --config " + File("off.toml") +
                       " ingest --no-wait --scope user:ana " + File("first.jsonl"),
                   true)
                .exit_code,
            0);
  const testing::ShellOutput unlimited = RunCli("--json --store '" + dir_.File("engram.db") +
                                                "' --config " + File("off.toml") + " status");
  const nlohmann::json status = nlohmann::json::parse(unlimited.out, nullptr, false);
  EXPECT_EQ(status["max_pending_turns"], 0);
  EXPECT_EQ(status["accepting"], true);
}

}  // namespace
}  // namespace engram
