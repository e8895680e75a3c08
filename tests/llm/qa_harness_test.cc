// The end-to-end QA harness (eval/qa.h) against the scripted local chat server: a complete
// report (accuracy per category, tokens, cost), resuming from the answers file, failures
// counted with their messages, an endpoint that is down stopping the run, the same report at
// any concurrency, and LongMemEval's per-type judging rules reaching the judge.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "engram/testing/status_matchers.h"
#include "engram/testing/temp_dir.h"
#include "eval/qa.h"
#include "eval/qa_prompts.h"
#include "mock_chat_server.h"

namespace engram::eval {
namespace {

using ::engram::testing::IsOk;
using ::engram::testing::LastMessage;
using ::engram::testing::MockChatServer;
using ::engram::testing::MockReply;
using ::engram::testing::StatusIs;
using ::testing::HasSubstr;

QaQuestion Locomo(std::string id, std::string category, std::string question, std::string gold) {
  QaQuestion qa;
  qa.dataset = "locomo";
  qa.id = std::move(id);
  qa.category = std::move(category);
  qa.question = std::move(question);
  qa.gold_answer = std::move(gold);
  qa.question_date = "2023-05-08T13:00:00Z";
  qa.context = "[2023-05-08] Ann: I adopted a puppy named Biscuit.";
  qa.context_tokens = 40;
  return qa;
}

std::string Between(const std::string& text, const std::string& open, const std::string& close) {
  const std::size_t start = text.find(open);
  if (start == std::string::npos) return "";
  const std::size_t from = start + open.size();
  return text.substr(from, text.find(close, from) - from);
}

// Answers by a table keyed by a word of the question; judges CORRECT when the generated answer
// equals the gold answer. Answer replies use 100 + 5 tokens, judge replies 50 + 10.
MockChatServer::Responder ScriptedModel(std::map<std::string, MockReply> answers) {
  return [answers](const nlohmann::json& request) {
    const std::string prompt = LastMessage(request);
    if (prompt.find("Gold answer:") != std::string::npos) {
      const bool same =
          Between(prompt, "Gold answer: ", "\n") == Between(prompt, "Generated answer: ", "\n");
      return MockReply::Content(std::string(R"({"reasoning": "compared", "label": ")") +
                                    (same ? "CORRECT" : "WRONG") + "\"}",
                                50, 10);
    }
    const std::string question = Between(prompt, "): ", "\n");
    for (const auto& [word, reply] : answers) {
      if (question.find(word) != std::string::npos) return reply;
    }
    return MockReply::Content("I do not know", 100, 5);
  };
}

class QaHarnessTest : public ::testing::Test {
 protected:
  QaOptions Options() const {
    QaOptions options;
    options.answer.base_url = server_.base_url();
    options.answer.model = "mock-answer";
    options.answer.price_in_per_million = 1.0;
    options.answer.price_out_per_million = 2.0;
    options.timeout = std::chrono::seconds(5);
    options.answers_path = answers_;
    return options;
  }
  std::vector<QaQuestion> Questions() const {
    return {Locomo("conv-x:q1", "single-hop", "What is the puppy called?", "Biscuit"),
            Locomo("conv-x:q2", "single-hop", "Where do they walk?", "by the river"),
            Locomo("conv-x:q3", "multi-hop", "Which city did Ann move to?", "Lyon"),
            Locomo("conv-x:q4", "adversarial", "What did Bob's puppy eat?", "kibble")};
  }
  static std::map<std::string, MockReply> GoodAnswers() {
    return {{"puppy called", MockReply::Content("Biscuit", 100, 5)},
            {"walk", MockReply::Content("by the river", 100, 5)},
            {"city", MockReply::Content("Paris", 100, 5)}};
  }

  MockChatServer server_;
  engram::testing::TempDir temp_dir_{"engram_qa_harness"};
  std::string answers_ = (std::filesystem::path(temp_dir_.path()) / "answers.jsonl").string();
};

TEST_F(QaHarnessTest, ReportsAccuracyPerCategoryTokensAndCost) {
  server_.SetResponder(ScriptedModel(GoodAnswers()));
  StatusOr<io::Json> report = RunQa(Options(), Questions());
  ASSERT_THAT(report.status(), IsOk());
  const io::Json& qa = *report;
  // Category 5 is left out as published; q3's answer is wrong.
  EXPECT_EQ(qa["questions"], 3);
  EXPECT_EQ(qa["excluded"], 1);
  EXPECT_EQ(qa["judged"], 3);
  EXPECT_EQ(qa["correct"], 2);
  EXPECT_DOUBLE_EQ(qa["accuracy"].get<double>(), 2.0 / 3.0);
  EXPECT_DOUBLE_EQ(qa["by_category"]["single-hop"]["accuracy"].get<double>(), 1.0);
  EXPECT_EQ(qa["by_category"]["single-hop"]["questions"], 2);
  EXPECT_DOUBLE_EQ(qa["by_category"]["multi-hop"]["accuracy"].get<double>(), 0.0);
  EXPECT_FALSE(qa["by_category"].contains("adversarial"));
  EXPECT_EQ(qa["tokens"]["answer"]["requests"], 3);
  EXPECT_EQ(qa["tokens"]["answer"]["prompt_tokens"], 300);
  EXPECT_EQ(qa["tokens"]["answer"]["completion_tokens"], 15);
  EXPECT_EQ(qa["tokens"]["judge"]["prompt_tokens"], 150);
  EXPECT_EQ(qa["tokens"]["judge"]["completion_tokens"], 30);
  // The judge is the answer model, so it takes its prices: (300·1 + 15·2 + 150·1 + 30·2) / 1e6.
  EXPECT_DOUBLE_EQ(qa["cost"]["total_usd"].get<double>(), 540e-6);
  EXPECT_DOUBLE_EQ(qa["cost"]["answer_usd"].get<double>(), 330e-6);
  EXPECT_EQ(qa["failures_by_role"]["answer"], 0);
  EXPECT_EQ(qa["requests_this_run"], 6);
  EXPECT_EQ(qa["answer"]["model"], "mock-answer");
  EXPECT_EQ(qa["judge"]["model"], "mock-answer");
  EXPECT_EQ(qa["answer"]["prompt"], "built-in locomo answer");
  EXPECT_EQ(server_.requests(), 6u);
  // Deterministic settings: every request at temperature 0 with the question's context.
  for (const nlohmann::json& request : server_.request_bodies()) {
    EXPECT_EQ(request["temperature"], 0.0);
    EXPECT_FALSE(request.contains("seed"));
  }
  EXPECT_THAT(LastMessage(server_.request_bodies()[0]), HasSubstr("puppy named Biscuit"));
}

TEST_F(QaHarnessTest, AdversarialQuestionsAreJudgedAsTrickQuestionsWhenIncluded) {
  server_.SetResponder(ScriptedModel(GoodAnswers()));
  QaOptions options = Options();
  options.include_adversarial = true;
  StatusOr<io::Json> report = RunQa(options, Questions());
  ASSERT_THAT(report.status(), IsOk());
  EXPECT_EQ((*report)["questions"], 4);
  EXPECT_EQ((*report)["excluded"], 0);
  EXPECT_EQ((*report)["by_category"]["adversarial"]["questions"], 1);
  bool trick_prompt = false;
  for (const nlohmann::json& request : server_.request_bodies()) {
    const std::string prompt = LastMessage(request);
    if (prompt.find("Bob's puppy eat") != std::string::npos &&
        prompt.find("trick question") != std::string::npos &&
        prompt.find("\"kibble\"") != std::string::npos) {
      trick_prompt = true;
    }
  }
  EXPECT_TRUE(trick_prompt);
}

TEST_F(QaHarnessTest, RerunReusesTheAnswersFileAndAsksOnlyWhatChanged) {
  server_.SetResponder(ScriptedModel(GoodAnswers()));
  ASSERT_THAT(RunQa(Options(), Questions()).status(), IsOk());
  ASSERT_EQ(server_.requests(), 6u);

  StatusOr<io::Json> again = RunQa(Options(), Questions());
  ASSERT_THAT(again.status(), IsOk());
  EXPECT_EQ(server_.requests(), 6u);  // nothing asked again
  EXPECT_EQ((*again)["resumed"], 3);
  EXPECT_EQ((*again)["requests_this_run"], 0);
  EXPECT_EQ((*again)["correct"], 2);
  // Resumed answers keep their token counts, so the cost covers the whole set.
  EXPECT_DOUBLE_EQ((*again)["cost"]["total_usd"].get<double>(), 540e-6);

  // Another judge prompt: the answers are reused, only the judge is asked again.
  const std::string prompt = (std::filesystem::path(temp_dir_.path()) / "judge.txt").string();
  std::ofstream(prompt) << "Question: {question}\nGold answer: {gold_answer}\nGenerated answer: "
                           "{answer}\nSay CORRECT or WRONG.";
  QaOptions options = Options();
  options.judge.prompt_file = prompt;
  StatusOr<io::Json> rejudged = RunQa(options, Questions());
  ASSERT_THAT(rejudged.status(), IsOk());
  EXPECT_EQ(server_.requests(), 9u);
  EXPECT_EQ((*rejudged)["requests_this_run"], 3);
  EXPECT_EQ((*rejudged)["judge"]["prompt"], prompt);

  // A seed changes the answer settings: everything is asked again, with the seed.
  options.seed = 42;
  ASSERT_THAT(RunQa(options, Questions()).status(), IsOk());
  EXPECT_EQ(server_.requests(), 15u);
  EXPECT_EQ(server_.request_bodies().back()["seed"], 42);
}

TEST_F(QaHarnessTest, DamagedAnswersFileLinesAreAskedAgain) {
  server_.SetResponder(ScriptedModel(GoodAnswers()));
  // A truncated line, a line of other types, and a line for q2 whose answer is not a string.
  std::ofstream(answers_) << "{\"question_id\": \"conv-x:q1\", \"answ\n"
                          << R"({"question_id": "conv-x:q2", "answer_key": 7, "answer": ["x"],)"
                          << R"( "verdict": "yes", "answer_usage": "many"})"
                          << "\n"
                          << "[1, 2]\n";
  StatusOr<io::Json> report = RunQa(Options(), Questions());
  ASSERT_THAT(report.status(), IsOk());
  EXPECT_EQ((*report)["answers_file_bad_lines"], 2);
  EXPECT_EQ((*report)["resumed"], 0);
  EXPECT_EQ((*report)["correct"], 2);
  EXPECT_EQ(server_.requests(), 6u);
}

TEST_F(QaHarnessTest, FailuresAreCountedWithTheirMessagesAndRetriedOnRerun) {
  std::map<std::string, MockReply> answers = GoodAnswers();
  answers["puppy called"] = MockReply::HttpError(500);
  answers["walk"] = MockReply::Malformed("<html>proxy error</html>");
  answers["city"] = MockReply::Hang();
  server_.SetResponder(ScriptedModel(answers));
  QaOptions options = Options();
  options.timeout = std::chrono::milliseconds(300);
  options.max_consecutive_failures = 10;
  std::vector<QaQuestion> questions = Questions();
  questions.push_back(Locomo("conv-x:q5", "temporal", "When did Ann adopt?", "May 2023"));
  StatusOr<io::Json> report = RunQa(options, questions);
  ASSERT_THAT(report.status(), IsOk());
  const io::Json& qa = *report;
  EXPECT_EQ(qa["questions"], 4);
  EXPECT_EQ(qa["judged"], 1);  // q5 ("I do not know", judged WRONG)
  EXPECT_EQ(qa["correct"], 0);
  EXPECT_EQ(qa["failures_by_role"]["answer"], 3);
  EXPECT_EQ(qa["failures_by_role"]["judge"], 0);
  EXPECT_DOUBLE_EQ(qa["accuracy_over_all"].get<double>(), 0.0);
  ASSERT_EQ(qa["failures"].size(), 3u);
  EXPECT_THAT(qa["failures"][0]["error"].get<std::string>(), HasSubstr("HTTP 500"));
  EXPECT_THAT(qa["failures"][1]["error"].get<std::string>(),
              HasSubstr("no choices[0].message.content: <html>proxy error"));
  EXPECT_THAT(qa["failures"][2]["error"].get<std::string>(),
              HasSubstr("did not answer within 300 ms"));
  EXPECT_EQ(qa["by_category"]["single-hop"]["failed"], 2);

  // The endpoint recovers: only the three failed questions are asked again.
  server_.SetResponder(ScriptedModel(GoodAnswers()));
  const std::size_t before = server_.requests();
  StatusOr<io::Json> rerun = RunQa(options, questions);
  ASSERT_THAT(rerun.status(), IsOk());
  EXPECT_EQ(server_.requests() - before, 6u);
  EXPECT_EQ((*rerun)["judged"], 4);
  EXPECT_EQ((*rerun)["correct"], 2);
  EXPECT_EQ((*rerun)["resumed"], 1);
}

TEST_F(QaHarnessTest, JudgeReplyWithoutVerdictIsAJudgeFailure) {
  server_.SetResponder([](const nlohmann::json& request) {
    return LastMessage(request).find("Gold answer:") != std::string::npos
               ? MockReply::Content("It depends on how you look at it.")
               : MockReply::Content("Biscuit");
  });
  const std::vector<QaQuestion> one = {Questions()[0]};
  StatusOr<io::Json> report = RunQa(Options(), one);
  ASSERT_THAT(report.status(), IsOk());
  EXPECT_EQ((*report)["judged"], 0);
  EXPECT_EQ((*report)["failures_by_role"]["judge"], 1);
  EXPECT_THAT((*report)["failures"][0]["error"].get<std::string>(), HasSubstr("no verdict"));
}

TEST_F(QaHarnessTest, EndpointThatIsDownStopsTheRunAfterTheFailureLimit) {
  server_.SetDefault(MockReply::HttpError(503));
  QaOptions options = Options();
  options.max_consecutive_failures = 3;
  std::vector<QaQuestion> questions;
  for (int idx = 0; idx < 10; ++idx) {
    questions.push_back(Locomo("conv-x:q" + std::to_string(idx), "single-hop", "Q?", "A"));
  }
  const Status status = RunQa(options, questions).status();
  EXPECT_THAT(status, StatusIs(StatusCode::kUnavailable));
  EXPECT_THAT(status.message(), HasSubstr("stopped after 3 failed requests in a row"));
  EXPECT_THAT(status.message(), HasSubstr(server_.base_url() + "/chat/completions"));
  EXPECT_THAT(status.message(), HasSubstr("HTTP 503"));
  EXPECT_EQ(server_.requests(), 3u);
  // What was asked is in the answers file, for the rerun.
  std::ifstream in(answers_);
  std::size_t lines = 0;
  for (std::string line; std::getline(in, line);) ++lines;
  EXPECT_EQ(lines, 3u);
}

TEST_F(QaHarnessTest, ConcurrencyGivesTheSameReport) {
  server_.SetResponder(ScriptedModel(GoodAnswers()));
  std::vector<QaQuestion> questions;
  for (int round = 0; round < 3; ++round) {
    for (QaQuestion question : Questions()) {
      question.id += "-" + std::to_string(round);
      questions.push_back(std::move(question));
    }
  }
  QaOptions serial = Options();
  serial.answers_path.clear();
  QaOptions parallel = serial;
  parallel.concurrency = 3;
  StatusOr<io::Json> one = RunQa(serial, questions);
  StatusOr<io::Json> three = RunQa(parallel, questions);
  ASSERT_THAT(one.status(), IsOk());
  ASSERT_THAT(three.status(), IsOk());
  EXPECT_EQ((*one)["by_category"], (*three)["by_category"]);
  EXPECT_EQ((*one)["tokens"], (*three)["tokens"]);
  EXPECT_EQ((*three)["correct"], 6);
}

TEST_F(QaHarnessTest, LongMemEvalJudgesEachTypeByItsRule) {
  std::vector<QaQuestion> questions;
  const auto add = [&](std::string id, std::string type, bool abstention) {
    QaQuestion qa;
    qa.dataset = "longmemeval";
    qa.id = std::move(id);
    qa.category = std::move(type);
    qa.question = "Question of " + qa.id + "?";
    qa.gold_answer = "gold of " + qa.id;
    qa.question_date = "2023/05/30 (Tue) 23:40";
    qa.context = "context of " + qa.id;
    qa.abstention = abstention;
    questions.push_back(std::move(qa));
  };
  add("t1", "temporal-reasoning", false);
  add("k1", "knowledge-update", false);
  add("p1", "single-session-preference", false);
  add("m1_abs", "multi-session", true);
  add("u1", "single-session-user", false);
  server_.SetResponder([](const nlohmann::json& request) {
    const std::string prompt = LastMessage(request);
    if (prompt.find("Model response:") == std::string::npos) return MockReply::Content("42");
    return MockReply::Content(prompt.find("u1") != std::string::npos ? "No." : "Yes");
  });
  StatusOr<io::Json> report = RunQa(Options(), questions);
  ASSERT_THAT(report.status(), IsOk());
  EXPECT_EQ((*report)["judged"], 5);
  EXPECT_EQ((*report)["correct"], 4);
  EXPECT_EQ((*report)["abstention"]["questions"], 1);
  EXPECT_EQ((*report)["abstention"]["correct"], 1);
  EXPECT_EQ((*report)["by_category"]["multi-session"]["questions"], 1);
  EXPECT_EQ((*report)["excluded"], 0);
  std::map<std::string, std::string> judge_prompts;
  for (const nlohmann::json& request : server_.request_bodies()) {
    const std::string prompt = LastMessage(request);
    if (prompt.find("Model response:") == std::string::npos) {
      EXPECT_THAT(prompt, HasSubstr("The current date is 2023/05/30 (Tue) 23:40"));
      continue;
    }
    for (const char* id : {"t1", "k1", "p1", "m1_abs", "u1"}) {
      if (prompt.find(std::string("Question of ") + id + "?") != std::string::npos) {
        judge_prompts[id] = prompt;
      }
    }
  }
  ASSERT_EQ(judge_prompts.size(), 5u);
  EXPECT_THAT(judge_prompts["t1"], HasSubstr("18 days where 19 are expected"));
  EXPECT_THAT(judge_prompts["k1"], HasSubstr("latest value"));
  EXPECT_THAT(judge_prompts["p1"], HasSubstr("Rubric"));
  EXPECT_THAT(judge_prompts["m1_abs"], HasSubstr("cannot be answered"));
  EXPECT_THAT(judge_prompts["u1"], ::testing::Not(HasSubstr("latest value")));
  EXPECT_THAT(judge_prompts["u1"], HasSubstr("Model response: 42"));
}

// Three LongMemEval questions: q1 is scored by retrieval; q2_abs (abstention) and q3 (no
// has_answer user turn) are skipped by it and recalled for QA only.
constexpr char kLongMemEvalFile[] = R"([
{"question_id": "q1", "question_type": "multi-session",
 "question": "Where did I buy the red bicycle?", "answer": "flea market",
 "question_date": "2023/06/01 (Thu) 10:00",
 "haystack_session_ids": ["s1", "s2"],
 "haystack_dates": ["2023/05/01 (Mon) 09:00", "2023/05/02 (Tue) 09:00"],
 "haystack_sessions": [
   [{"role": "user", "content": "I got a red bicycle at the flea market.", "has_answer": true},
    {"role": "assistant", "content": "Nice find!"}],
   [{"role": "user", "content": "Can you suggest a pasta recipe?"},
    {"role": "assistant", "content": "Try carbonara with eggs."}]],
 "answer_session_ids": ["s1"]},
{"question_id": "q2_abs", "question_type": "multi-session",
 "question": "Where did I buy the blue car?", "answer": "You did not mention a blue car.",
 "question_date": "2023/06/01 (Thu) 10:00",
 "haystack_session_ids": ["s1"], "haystack_dates": ["2023/05/01 (Mon) 09:00"],
 "haystack_sessions": [[{"role": "user", "content": "Hello there."}]],
 "answer_session_ids": []},
{"question_id": "q3", "question_type": "single-session-assistant",
 "question": "What did you recommend?", "answer": "carbonara",
 "question_date": "2023/06/01 (Thu) 10:00",
 "haystack_session_ids": ["s1"], "haystack_dates": ["2023/05/01 (Mon) 09:00"],
 "haystack_sessions": [[{"role": "user", "content": "Recipe please."},
                        {"role": "assistant", "content": "Carbonara.", "has_answer": true}]],
 "answer_session_ids": ["s1"]}
])";

TEST_F(QaHarnessTest, LongMemEvalBenchAnswersEveryQuestionAndKeepsTheRetrievalReport) {
  server_.SetResponder([](const nlohmann::json& request) {
    const std::string prompt = LastMessage(request);
    if (prompt.find("Model response:") != std::string::npos) return MockReply::Content("yes");
    if (prompt.find("red bicycle at the flea market") != std::string::npos) {
      return MockReply::Content("At the flea market.");
    }
    return MockReply::Content("I do not know.");
  });
  const std::string data = (std::filesystem::path(temp_dir_.path()) / "lme.json").string();
  std::ofstream(data) << kLongMemEvalFile;
  BenchOptions bench;
  bench.data_path = data;
  bench.routes = {"bm25", "fragment", "session", "temporal"};
  StatusOr<io::Json> report = RunBenchWithQa(BenchDataset::kLongMemEval, bench, Options());
  ASSERT_THAT(report.status(), IsOk());
  // Retrieval as without QA: one question scored, the other two skipped.
  EXPECT_EQ((*report)["questions"], 1);
  EXPECT_EQ((*report)["config"]["data"]["skipped_abstention"], 1);
  EXPECT_EQ((*report)["config"]["data"]["skipped_no_answer_user_turn"], 1);
  // QA: all three, the abstention one judged by the abstention rule.
  const io::Json& qa = (*report)["qa"];
  EXPECT_EQ(qa["questions"], 3);
  EXPECT_EQ(qa["correct"], 3);
  EXPECT_EQ(qa["abstention"]["questions"], 1);
  EXPECT_EQ(qa["by_category"]["multi-session"]["questions"], 2);
  EXPECT_EQ(qa["by_category"]["single-session-assistant"]["questions"], 1);
  EXPECT_THAT(qa["protocol"].get<std::string>(), HasSubstr("LongMemEval"));
  bool abstention_rule = false;
  for (const nlohmann::json& request : server_.request_bodies()) {
    const std::string prompt = LastMessage(request);
    if (prompt.find("blue car") != std::string::npos &&
        prompt.find("cannot be answered") != std::string::npos) {
      abstention_rule = true;
    }
  }
  EXPECT_TRUE(abstention_rule);
}

TEST_F(QaHarnessTest, BadQaOptionsFailBeforeAnythingIsIngested) {
  QaOptions options = Options();
  options.answer.price_out_per_million = -3;
  BenchOptions bench;
  bench.data_path = "/nonexistent/file.json";  // would be kNotFound if it were read first
  const Status status = RunBenchWithQa(BenchDataset::kLocomo, bench, options).status();
  EXPECT_THAT(status, StatusIs(StatusCode::kInvalidArgument));
  EXPECT_THAT(status.message(), HasSubstr("output price"));

  options.answer.price_out_per_million = 0;
  options.answers_path = "/nonexistent/dir/answers.jsonl";
  const Status unwritable = RunBenchWithQa(BenchDataset::kLocomo, bench, options).status();
  EXPECT_THAT(unwritable, StatusIs(StatusCode::kUnavailable));
  EXPECT_THAT(unwritable.message(), HasSubstr("cannot write the answers file"));
}

TEST(QaOptionsTest, BadOptionsNameTheProblem) {
  QaOptions options;
  EXPECT_THAT(options.Validate(), StatusIs(StatusCode::kInvalidArgument));
  options.answer.base_url = "localhost:11434";
  options.answer.model = "m";
  EXPECT_THAT(options.Validate().message(), HasSubstr("must start with http://"));
  options.answer.base_url = "http://127.0.0.1:1/v1";
  options.answer.model.clear();
  EXPECT_THAT(options.Validate().message(), HasSubstr("answer model is required"));
  options.answer.model = "m";
  options.answer.price_in_per_million = -1;
  EXPECT_THAT(options.Validate().message(), HasSubstr("input price"));
  options.answer.price_in_per_million = 0;
  options.concurrency = 0;
  EXPECT_THAT(options.Validate().message(), HasSubstr("concurrency"));
  options.concurrency = 1;
  EXPECT_THAT(options.Validate(), IsOk());
}

TEST(QaPromptsTest, VerdictsAreReadFromJsonOrTheFirstOrLastWord) {
  EXPECT_THAT(qa::ParseVerdict(R"({"reasoning": "same", "label": "CORRECT"})"),
              ::engram::testing::IsOkAndHolds(true));
  EXPECT_THAT(qa::ParseVerdict("```json\n{\"label\": \"WRONG\"}\n```"),
              ::engram::testing::IsOkAndHolds(false));
  EXPECT_THAT(qa::ParseVerdict("Yes."), ::engram::testing::IsOkAndHolds(true));
  EXPECT_THAT(qa::ParseVerdict("no"), ::engram::testing::IsOkAndHolds(false));
  EXPECT_THAT(qa::ParseVerdict("The answer names another city, so: WRONG"),
              ::engram::testing::IsOkAndHolds(false));
  EXPECT_THAT(qa::ParseVerdict("Hard to say"), StatusIs(StatusCode::kInvalidArgument));
  EXPECT_THAT(qa::ParseVerdict(""), StatusIs(StatusCode::kInvalidArgument));
}

TEST(QaPromptsTest, PromptFilesArePlainTextOrTemplatesPerCategory) {
  engram::testing::TempDir dir{"engram_qa_prompts"};
  const std::string path = (std::filesystem::path(dir.path()) / "judge.json").string();
  std::ofstream(path) << R"({"default": "Q {question} A {answer}",
                             "abstention": "ABS {question} {answer}"})";
  StatusOr<qa::PromptSet> set = qa::LoadPromptFile(path, qa::PromptRole::kJudge);
  ASSERT_THAT(set.status(), IsOk());
  EXPECT_EQ(set->For("abstention"), "ABS {question} {answer}");
  EXPECT_EQ(set->For("temporal-reasoning"), "Q {question} A {answer}");
  QaQuestion question = Locomo("q", "single-hop", "Who?", "Ann");
  EXPECT_EQ(qa::Render(set->For("x"), question, "Bob"), "Q Who? A Bob");

  std::ofstream(path) << R"({"abstention": "ABS {question} {answer}"})";
  EXPECT_THAT(qa::LoadPromptFile(path, qa::PromptRole::kJudge).status().message(),
              HasSubstr("\"default\""));
  std::ofstream(path) << "Answer {question} from memory.";
  EXPECT_THAT(qa::LoadPromptFile(path, qa::PromptRole::kAnswer).status().message(),
              HasSubstr("no {context} placeholder"));
  EXPECT_THAT(qa::LoadPromptFile(path + ".missing", qa::PromptRole::kAnswer).status(),
              StatusIs(StatusCode::kNotFound));
}

}  // namespace
}  // namespace engram::eval
