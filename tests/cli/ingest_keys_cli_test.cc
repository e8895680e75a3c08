// `engram ingest` idempotency keys and concurrent ingests (issue 37): a derived key depends on the
// scope and the turn (its position and content), not on the input's name, compression or stdin,
// so a renamed or compressed copy stores nothing new; several processes ingesting into one SQLite
// store at once all succeed and store every turn once.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <zstd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>

#include "engram/testing/temp_dir.h"
#include "shell_runner.h"

namespace engram {
namespace {

namespace fs = std::filesystem;
using ::engram::testing::CliCommand;
using ::engram::testing::RunCli;
using ::engram::testing::RunShell;
using ::engram::testing::ShellOutput;
using ::testing::HasSubstr;
using json = nlohmann::json;

const std::string kExample = std::string(ENGRAM_EXAMPLES_DIR) + "/conversation.jsonl";
constexpr int kExampleTurns = 60;

std::string ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

class IngestKeysCliTest : public ::testing::Test {
 protected:
  std::string Path(const std::string& name) const {
    return (fs::path(temp_dir_.path()) / name).string();
  }

  ShellOutput Engram(const std::string& args, bool with_stderr = false) {
    return RunCli("--store '" + store_ + "' " + args, with_stderr);
  }

  int CountTurns(const std::string& scope) {
    const ShellOutput result = Engram("--json list --scope '" + scope + "' --limit 100000");
    if (result.exit_code != 0) return -1;
    return json::parse(result.out).value("count", -1);
  }

  engram::testing::TempDir temp_dir_{"engram_keys_cli"};
  std::string store_ = Path("engram.db");
};

TEST_F(IngestKeysCliTest, ARenamedCompressedOrPipedCopyOfAFileStoresNothingNew) {
  const ShellOutput first = Engram("--json ingest --scope user:priya '" + kExample + "'");
  ASSERT_EQ(first.exit_code, 0) << first.out;
  ASSERT_EQ(json::parse(first.out)["turns"], kExampleTurns);

  const std::string plain = ReadBytes(kExample);
  const std::string renamed = Path("renamed-chat.jsonl");
  std::ofstream(renamed, std::ios::binary) << plain;
  std::string compressed(ZSTD_compressBound(plain.size()), '\0');
  compressed.resize(
      ZSTD_compress(compressed.data(), compressed.size(), plain.data(), plain.size(), 3));
  const std::string zst = Path("conversation.jsonl.zst");
  std::ofstream(zst, std::ios::binary) << compressed;

  for (const std::string& input :
       {"'" + renamed + "'", "'" + zst + "'", std::string("- < '") + kExample + "'"}) {
    const ShellOutput again = Engram("--json ingest --scope user:priya " + input);
    ASSERT_EQ(again.exit_code, 0) << input << "\n" << again.out;
    const json summary = json::parse(again.out);
    EXPECT_EQ(summary["turns"], 0) << input;
    EXPECT_EQ(summary["already_stored"], kExampleTurns) << input;
  }
  const ShellOutput human = Engram("ingest --scope user:priya '" + zst + "'");
  ASSERT_EQ(human.exit_code, 0);
  EXPECT_THAT(human.out, HasSubstr("ingested 0 turns"));
  EXPECT_THAT(human.out, HasSubstr("60 turn(s) already stored"));
  EXPECT_EQ(CountTurns("user:priya"), kExampleTurns);
}

TEST_F(IngestKeysCliTest, TheSameFileIntoAnotherScopeIsStoredThere) {
  ASSERT_EQ(Engram("-q ingest --scope user:priya '" + kExample + "'").exit_code, 0);
  const ShellOutput other = Engram("--json ingest --scope user:tom '" + kExample + "'");
  ASSERT_EQ(other.exit_code, 0) << other.out;
  EXPECT_EQ(json::parse(other.out)["turns"], kExampleTurns);
  EXPECT_EQ(CountTurns("user:tom"), kExampleTurns);
}

TEST_F(IngestKeysCliTest, AnEditedTurnIsANewTurn) {
  ASSERT_EQ(Engram("-q ingest --scope user:priya '" + kExample + "'").exit_code, 0);
  std::string edited = ReadBytes(kExample);
  const std::string from = "Northwind Logistics";
  ASSERT_NE(edited.find(from), std::string::npos);
  edited.replace(edited.find(from), from.size(), "Southwind Logistics");
  const std::string path = Path("edited.jsonl");
  std::ofstream(path, std::ios::binary) << edited;
  const ShellOutput again = Engram("--json ingest --scope user:priya '" + path + "'");
  ASSERT_EQ(again.exit_code, 0) << again.out;
  EXPECT_EQ(json::parse(again.out)["turns"], 1);
  EXPECT_EQ(json::parse(again.out)["already_stored"], kExampleTurns - 1);
}

// Three processes at once, each with its own file into one scope and all with the example into
// another, in two rounds on one store: every process exits 0 and every turn is stored once.
TEST_F(IngestKeysCliTest, ThreeProcessesIngestingIntoOneStoreAtOnceAllSucceed) {
  constexpr int kProcesses = 3;
  constexpr int kTurnsPerFile = 40;
  constexpr int kRounds = 2;
  for (int round = 0; round < kRounds; ++round) {
    std::string script;
    for (int process = 0; process < kProcesses; ++process) {
      const std::string file =
          Path("r" + std::to_string(round) + "p" + std::to_string(process) + ".jsonl");
      std::ofstream out(file);
      for (int turn = 0; turn < kTurnsPerFile; ++turn) {
        out << "{\"text\": \"Round " << round << " process " << process << " turn " << turn
            << ": I met Ana in Lisbon to talk about the " << turn * 7
            << " euro budget.\", \"speaker\": \"Ann\", \"event_time\": \"2024-05-"
            << (turn % 20 + 10) << "T10:00:00Z\"}\n";
      }
      out.close();
      const std::string engram = CliCommand() + " --store '" + store_ + "' -q ingest ";
      script += "(" + engram + "--scope user:shared '" + file + "' && " + engram +
                "--scope user:priya '" + kExample + "') >'" + Path("out" + std::to_string(process)) +
                "' 2>&1 & p" + std::to_string(process) + "=$!; ";
    }
    script += "wait $p0; r0=$?; wait $p1; r1=$?; wait $p2; r2=$?; echo \"$r0 $r1 $r2\"";
    const ShellOutput result = RunShell(script);
    EXPECT_EQ(result.out, "0 0 0\n")
        << "round " << round << ": " << ReadBytes(Path("out0")) << ReadBytes(Path("out1"))
        << ReadBytes(Path("out2"));
  }
  EXPECT_EQ(CountTurns("user:shared"), kProcesses * kTurnsPerFile * kRounds);
  EXPECT_EQ(CountTurns("user:priya"), kExampleTurns);
  const ShellOutput check = Engram("--json check");
  EXPECT_EQ(check.exit_code, 0) << check.out;
}

}  // namespace
}  // namespace engram
