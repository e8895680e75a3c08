// End-to-end test of `engram bench locomo --flat`: the flat BM25 baseline in one flag, shown in
// the table header and recorded in the report's config; combined with --routes it is a usage
// error.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

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

using Output = testing::ShellOutput;
using testing::RunCli;

// One conversation, one session, two questions with evidence.
constexpr char kTinyLocomo[] = R"([{
  "sample_id": "conv-x",
  "conversation": {
    "speaker_a": "Ann", "speaker_b": "Bob",
    "session_1_date_time": "1:00 pm on 8 May, 2023",
    "session_1": [
      {"speaker": "Ann", "dia_id": "D1:1", "text": "I adopted a puppy named Biscuit."},
      {"speaker": "Bob", "dia_id": "D1:2", "text": "Congratulations on the new puppy!"},
      {"speaker": "Ann", "dia_id": "D1:3", "text": "We walk along the river every morning."}
    ]
  },
  "qa": [
    {"question": "What is the name of the puppy?", "answer": "Biscuit", "evidence": ["D1:1"],
     "category": 4},
    {"question": "Where do they walk?", "answer": "river", "evidence": ["D1:3"], "category": 4}
  ]
}])";

class BenchCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::ofstream(Path("tiny.json")) << kTinyLocomo;
  }
  std::string Path(const std::string& name) const { return (fs::path(dir_) / name).string(); }

  engram::testing::TempDir temp_dir_{"engram_bench_cli"};
  std::string dir_ = temp_dir_.path();
};

TEST_F(BenchCliTest, FlatRunsTheBaselineAndRecordsIt) {
  const Output table = RunCli("-q bench locomo --data '" + Path("tiny.json") + "' --flat --json '" +
                              Path("report.json") + "'");
  ASSERT_EQ(table.exit_code, 0) << table.out;
  EXPECT_THAT(table.out, HasSubstr("2 questions evaluated, routes bm25 (flat baseline)"));

  std::ifstream in(Path("report.json"));
  const nlohmann::json report = nlohmann::json::parse(in);
  EXPECT_EQ(report["config"]["flat"], true);
  EXPECT_EQ(report["config"]["routes"], nlohmann::json::parse(R"(["bm25"])"));
  EXPECT_EQ(report["config"]["settings"]["bm25"]["stem"], false);
  EXPECT_EQ(report["config"]["planner"]["enabled"], false);
  EXPECT_EQ(report["config"]["embedder"], "none");
  // q1: "name" does not match "named" unstemmed, the shorter puppy turn D1:2 ranks first (MRR
  // 1/2); q2: D1:3 is the only turn with "walk" (MRR 1).
  EXPECT_DOUBLE_EQ(report["metrics"]["mrr@30"].get<double>(), 0.75);
}

TEST_F(BenchCliTest, FlatWithRoutesIsAUsageError) {
  const Output refused =
      RunCli("-q bench locomo --data '" + Path("tiny.json") + "' --flat --routes bm25", true);
  EXPECT_EQ(refused.exit_code, 2) << refused.out;
  EXPECT_THAT(refused.out, HasSubstr("--flat"));
  EXPECT_THAT(refused.out, HasSubstr("--routes"));
}

TEST_F(BenchCliTest, ReuseWithoutStoreIsAUsageError) {
  const Output refused = RunCli("-q bench locomo --data '" + Path("tiny.json") + "' --reuse", true);
  EXPECT_EQ(refused.exit_code, 2) << refused.out;
  EXPECT_THAT(refused.out, HasSubstr("--reuse needs --store"));
}

}  // namespace
}  // namespace engram
