// `engram bench locomo --answer-with URL` end to end against the scripted local chat server: a
// complete report in text and in --json (QA accuracy beside the retrieval figures, tokens,
// cost), a rerun that asks the server nothing again, an endpoint that is down failing with a
// clear message, and bad flags refused as usage errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "engram/testing/temp_dir.h"
#include "mock_chat_server.h"
#include "shell_runner.h"

namespace engram {
namespace {

namespace fs = std::filesystem;
using ::engram::testing::LastMessage;
using ::engram::testing::MockChatServer;
using ::engram::testing::MockReply;
using ::engram::testing::RunCli;
using ::testing::HasSubstr;

// One conversation: two single-hop questions with evidence, one without (answered for QA
// only) and one adversarial (left out of the J-score).
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
    {"question": "Where do they walk?", "answer": "river", "evidence": ["D1:3"], "category": 4},
    {"question": "When did Ann adopt the puppy?", "answer": "May 2023", "evidence": [],
     "category": 2},
    {"question": "What did Bob name his puppy?", "adversarial_answer": "Biscuit",
     "evidence": ["D1:1"], "category": 5}
  ]
}])";

std::string Between(const std::string& text, const std::string& open, const std::string& close) {
  const std::size_t start = text.find(open);
  if (start == std::string::npos) return "";
  const std::size_t from = start + open.size();
  return text.substr(from, text.find(close, from) - from);
}

// Answers "Biscuit" and "river" correctly and the date wrongly; the judge compares strings.
MockReply Model(const nlohmann::json& request) {
  const std::string prompt = LastMessage(request);
  if (prompt.find("Gold answer:") != std::string::npos) {
    const bool same =
        Between(prompt, "Gold answer: ", "\n") == Between(prompt, "Generated answer: ", "\n");
    return MockReply::Content(same ? R"({"label": "CORRECT"})" : R"({"label": "WRONG"})", 60, 8);
  }
  if (prompt.find("name of the puppy") != std::string::npos) {
    return MockReply::Content("Biscuit", 120, 4);
  }
  if (prompt.find("walk") != std::string::npos) return MockReply::Content("river", 120, 4);
  return MockReply::Content("June 2022", 120, 4);
}

class QaCliTest : public ::testing::Test {
 protected:
  void SetUp() override { std::ofstream(Path("tiny.json")) << kTinyLocomo; }
  std::string Path(const std::string& name) const { return (fs::path(dir_) / name).string(); }
  std::string Bench(const std::string& flags) const {
    return "-q bench locomo --data '" + Path("tiny.json") + "' " + flags;
  }

  MockChatServer server_;
  engram::testing::TempDir temp_dir_{"engram_qa_cli"};
  std::string dir_ = temp_dir_.path();
};

TEST_F(QaCliTest, AnswerWithProducesACompleteReportAndResumes) {
  server_.SetResponder(Model);
  const std::string flags = "--answer-with " + server_.base_url() +
                            " --answer-model mock --price-in 2 --price-out 10 --answers '" +
                            Path("answers.jsonl") + "' --json '" + Path("report.json") + "'";
  const testing::ShellOutput table = RunCli(Bench(flags));
  ASSERT_EQ(table.exit_code, 0) << table.out;
  EXPECT_EQ(server_.requests(), 6u);  // three questions, answer + judge each
  EXPECT_THAT(table.out, HasSubstr("3 questions evaluated"));  // the retrieval table as before
  EXPECT_THAT(table.out, HasSubstr("end-to-end QA (LoCoMo J-score): answer mock at " +
                                   server_.base_url() + "/chat/completions"));
  EXPECT_THAT(table.out, HasSubstr("excluded: 1 (LoCoMo category 5"));
  EXPECT_THAT(table.out, HasSubstr("tokens (answer): 360 in, 12 out, 3 replies"));
  EXPECT_THAT(table.out, HasSubstr("failures: answer 0, judge 0"));

  std::ifstream in(Path("report.json"));
  const nlohmann::json report = nlohmann::json::parse(in);
  const nlohmann::json& qa = report["qa"];
  EXPECT_EQ(qa["questions"], 3);
  EXPECT_EQ(qa["judged"], 3);
  EXPECT_EQ(qa["correct"], 2);
  EXPECT_DOUBLE_EQ(qa["by_category"]["single-hop"]["accuracy"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(qa["by_category"]["temporal"]["accuracy"].get<double>(), 0.0);
  // (360·2 + 12·10 + 180·2 + 24·10) / 1e6 dollars.
  EXPECT_DOUBLE_EQ(qa["cost"]["total_usd"].get<double>(), 1440e-6);
  EXPECT_EQ(qa["answers_file"], Path("answers.jsonl"));
  // The retrieval report is unchanged beside it: the question without evidence is not in it.
  EXPECT_EQ(report["questions"], 3);  // two single-hop + the adversarial one, with evidence
  EXPECT_TRUE(report["metrics"].contains("recall@10"));

  // Rerun: everything comes from the answers file.
  const testing::ShellOutput again = RunCli(Bench(flags));
  ASSERT_EQ(again.exit_code, 0) << again.out;
  EXPECT_EQ(server_.requests(), 6u);
  EXPECT_THAT(again.out, HasSubstr("requests this run: 0; resumed: 3 questions"));

  // --json on the command: the report with its qa object on stdout.
  const testing::ShellOutput json = RunCli("--json " + Bench(flags));
  ASSERT_EQ(json.exit_code, 0) << json.out;
  EXPECT_EQ(nlohmann::json::parse(json.out)["qa"]["correct"], 2);
}

TEST_F(QaCliTest, EndpointThatIsDownFailsWithAClearMessage) {
  server_.SetDefault(MockReply::HttpError(500));
  const testing::ShellOutput failed =
      RunCli(Bench("--answer-with " + server_.base_url() + " --answer-model mock --max-failures 2"),
             /*with_stderr=*/true);
  EXPECT_EQ(failed.exit_code, 1) << failed.out;
  EXPECT_THAT(failed.out, HasSubstr("stopped after 2 failed requests in a row"));
  EXPECT_THAT(failed.out, HasSubstr("HTTP 500"));
  EXPECT_EQ(server_.requests(), 2u);
}

TEST_F(QaCliTest, BadFlagsAreUsageErrors) {
  const std::string url = server_.base_url();
  const auto refused = [&](const std::string& flags, const std::string& message) {
    const testing::ShellOutput output = RunCli(Bench(flags), /*with_stderr=*/true);
    EXPECT_EQ(output.exit_code, 2) << flags << "\n" << output.out;
    EXPECT_THAT(output.out, HasSubstr(message)) << flags;
  };
  refused("--answer-with " + url, "answer model is required");
  refused("--answer-with ftp://example --answer-model m", "must start with http://");
  refused("--answer-with " + url + " --answer-model m --price-in -1", "price");
  refused("--answer-model m", "need --answer-with");
  refused("--answer-with " + url + " --answer-model m --judge-with localhost:1", "judge endpoint");
  refused("--answer-with " + url + " --answer-model m --llm-timeout 0", "--llm-timeout");
  EXPECT_EQ(server_.requests(), 0u);
}

}  // namespace
}  // namespace engram
