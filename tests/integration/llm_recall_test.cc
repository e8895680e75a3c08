// The optional LLM loop of recall (src/engine/llm_recall.h) through the public API, driven by a
// scripted chat-completions server on 127.0.0.1 (tests/llm/mock_chat_server.h): off by default
// no request is made; a sufficient verdict asks nothing; a scripted sub-question brings in a
// turn the first recall missed, explained as found via it, with the server's token counts in
// the diagnostics; every failure (malformed reply, HTTP 500, no reply within the timeout,
// endpoint down, oversized lists, invented rerank ids) gives the deterministic result plus a
// warning; bad settings are errors naming the key.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engram/engine.h"
#include "engram/testing/status_matchers.h"
#include "io/api_json.h"
#include "mock_chat_server.h"
#include "test_util.h"

namespace engram {
namespace {

using ::engram::testing::IsOk;
using ::engram::testing::MockChatServer;
using ::engram::testing::MockReply;
using ::testing::HasSubstr;

// The turn only a sub-question finds: none of the question's words is in it.
constexpr char kTarget[] = "Try the glazed pottery workshop in Lisbon on Friday evenings.";
constexpr char kQuestion[] = "What did Caroline's mentor recommend?";
constexpr char kSubQuestion[] = "Which pottery workshop in Lisbon?";

bool IsRerank(const nlohmann::json& request) {
  return request.dump().find("\\\"order\\\"") != std::string::npos;
}

class LlmRecallTest : public ::testing::Test {
 protected:
  Config LoopConfig() const {
    Config config;
    config.embedder.kind = "hashing";
    config.recall.llm_loop = true;
    config.recall.llm_model = "mock";
    config.recall.llm_base_url = server_.base_url();
    config.recall.llm_skip_sufficient = false;
    return config;
  }

  std::unique_ptr<Engine> Open(Config config) {
    EngineOptions options = testing::TestOptions(dir_);
    options.config = std::move(config);
    options.clock = FixedClock(*ParseTimestamp("2024-11-01T00:00:00Z"), 1000);
    std::unique_ptr<Engine> engine = testing::OpenOrDie(options);
    std::vector<Turn> turns;
    for (int index = 0; index < 8; ++index) {
      turns.push_back(testing::MakeTurn("Caroline",
                                        "My mentor would recommend reading book number " +
                                            std::to_string(index) + " to me, Caroline said.",
                                        "s" + std::to_string(index),
                                        "2024-05-0" + std::to_string(1 + index) + "T10:00:00Z"));
    }
    turns.push_back(testing::MakeTurn("Melanie", kTarget, "s9", "2024-05-09T11:00:00Z"));
    EXPECT_THAT(engine->Remember(scope_, turns), IsOk());
    EXPECT_THAT(engine->WaitForDerivation(), IsOk());
    return engine;
  }

  static ReadResult Recall(Engine& engine, const std::string& text, bool llm = true) {
    RecallOptions options;
    options.k = 3;
    options.llm_loop = llm;
    StatusOr<ReadResult> result = engine.Recall(scope_, {.text = text}, options);
    EXPECT_THAT(result, IsOk());
    return result.ok() ? *result : ReadResult{};
  }

  static bool HasTarget(const ReadResult& result) {
    return std::any_of(result.items.begin(), result.items.end(),
                       [](const RecallItem& item) { return item.text == kTarget; });
  }

  // The loop left the deterministic result as it was, and said why in one warning.
  static void ExpectDeterministic(const ReadResult& result, const ReadResult& deterministic,
                                  const std::string& warning) {
    EXPECT_EQ(testing::ItemIds(result), testing::ItemIds(deterministic));
    EXPECT_EQ(result.context, deterministic.context);
    ASSERT_EQ(result.diagnostics.warnings.size(), deterministic.diagnostics.warnings.size() + 1);
    EXPECT_THAT(result.diagnostics.warnings.back(), HasSubstr(warning));
  }

  inline static const Scope scope_ = *Scope::Parse("user:caroline");
  testing::TempDir dir_;
  MockChatServer server_;
};

TEST_F(LlmRecallTest, OffByDefaultMakesNoRequest) {
  Config config;
  config.embedder.kind = "hashing";
  config.recall.llm_base_url = server_.base_url();
  config.recall.llm_model = "mock";
  std::unique_ptr<Engine> engine = Open(config);
  const ReadResult result = Recall(*engine, kQuestion);
  EXPECT_EQ(server_.requests(), 0u);
  EXPECT_FALSE(result.diagnostics.llm.ran);
  EXPECT_TRUE(result.diagnostics.llm.steps.empty());
  EXPECT_FALSE(io::ToJson(result)["diagnostics"].contains("llm"));
}

TEST_F(LlmRecallTest, ASufficientVerdictAsksNothing) {
  Config config = LoopConfig();
  config.recall.llm_skip_sufficient = true;
  std::unique_ptr<Engine> engine = Open(config);
  const ReadResult result = Recall(*engine, "Where is the glazed pottery workshop?");
  ASSERT_EQ(result.sufficiency.verdict, "sufficient");
  EXPECT_EQ(server_.requests(), 0u);
  EXPECT_TRUE(result.diagnostics.llm.ran);
  EXPECT_EQ(result.diagnostics.llm.calls, 0u);
  EXPECT_THAT(result.diagnostics.llm.steps,
              ::testing::ElementsAre(HasSubstr("skipped: the read path's verdict")));
}

TEST_F(LlmRecallTest, ASubQuestionBringsInATurnTheFirstRecallMissed) {
  server_.SetResponder([](const nlohmann::json&) {
    return MockReply::Content(R"({"sufficient": false, "queries": [")" + std::string(kSubQuestion) +
                                  R"("], "keywords": []})",
                              123, 45);
  });
  std::unique_ptr<Engine> engine = Open(LoopConfig());
  const ReadResult deterministic = Recall(*engine, kQuestion, /*llm=*/false);
  ASSERT_FALSE(HasTarget(deterministic));
  EXPECT_EQ(server_.requests(), 0u);

  const ReadResult result = Recall(*engine, kQuestion);
  ASSERT_EQ(server_.requests(), 1u);
  // The request carried the question and the packed context.
  const std::string sent = testing::LastMessage(server_.request_bodies().front());
  EXPECT_THAT(sent, HasSubstr(kQuestion));
  EXPECT_THAT(sent, HasSubstr(deterministic.items.front().text));

  EXPECT_TRUE(HasTarget(result));
  EXPECT_THAT(result.context, HasSubstr(kTarget));
  EXPECT_LE(result.diagnostics.context_tokens, result.diagnostics.token_budget);
  EXPECT_LE(result.items.size(), 3u);
  for (const RecallItem& item : result.items) {
    if (item.text != kTarget) continue;
    ASSERT_FALSE(item.adjustments.empty());
    EXPECT_EQ(item.adjustments.back().name, "llm");
    EXPECT_EQ(item.adjustments.back().detail,
              "found via: LLM sub-question '" + std::string(kSubQuestion) + "'");
  }
  // The first recall's best item keeps its place.
  EXPECT_EQ(result.items.front().id, deterministic.items.front().id);
  // Cost: the server's usage counts.
  EXPECT_EQ(result.diagnostics.llm.calls, 1u);
  EXPECT_EQ(result.diagnostics.llm.prompt_tokens, 123u);
  EXPECT_EQ(result.diagnostics.llm.completion_tokens, 45u);
  EXPECT_EQ(result.diagnostics.llm.usage_missing, 0u);
  const io::Json json = io::ToJson(result)["diagnostics"]["llm"];
  EXPECT_EQ(json["calls"], 1);
  EXPECT_EQ(json["prompt_tokens"], 123);
  EXPECT_EQ(json["completion_tokens"], 45);
  EXPECT_EQ(result.diagnostics.warnings, deterministic.diagnostics.warnings);
  EXPECT_THAT(result.diagnostics.llm.steps,
              ::testing::ElementsAre(HasSubstr("check: insufficient; 1 sub-questions"),
                                     HasSubstr("new items")));
  // Same store, same script: the same result.
  EXPECT_EQ(testing::ItemIds(Recall(*engine, kQuestion)), testing::ItemIds(result));
}

TEST_F(LlmRecallTest, AnswerKeywordsAreRecalledAsOneQuery) {
  server_.SetDefault(MockReply::Content(
      R"({"sufficient": false, "queries": [], "keywords": ["glazed", "pottery"]})"));
  std::unique_ptr<Engine> engine = Open(LoopConfig());
  ASSERT_FALSE(HasTarget(Recall(*engine, kQuestion, false)));
  const ReadResult result = Recall(*engine, kQuestion);
  ASSERT_TRUE(HasTarget(result));
  for (const RecallItem& item : result.items) {
    if (item.text != kTarget) continue;
    ASSERT_FALSE(item.adjustments.empty());
    EXPECT_EQ(item.adjustments.back().detail, "found via: LLM answer keywords 'glazed pottery'");
  }
}

TEST_F(LlmRecallTest, EachRoundChecksTheMergedContextAgain) {
  server_.SetResponder([](const nlohmann::json& request) {
    // The second round sees the turn the first one found, and is satisfied.
    if (testing::LastMessage(request).find(kTarget) != std::string::npos) {
      return MockReply::Content(R"({"sufficient": true})", 20, 4);
    }
    return MockReply::Content(
        R"({"sufficient": false, "queries": [")" + std::string(kSubQuestion) + R"("]})", 10, 6);
  });
  Config config = LoopConfig();
  config.recall.llm_rounds = 3;
  std::unique_ptr<Engine> engine = Open(config);
  const ReadResult result = Recall(*engine, kQuestion);
  EXPECT_TRUE(HasTarget(result));
  EXPECT_EQ(server_.requests(), 2u);
  EXPECT_EQ(result.diagnostics.llm.calls, 2u);
  EXPECT_EQ(result.diagnostics.llm.prompt_tokens, 30u);
  EXPECT_EQ(result.diagnostics.llm.completion_tokens, 10u);
  EXPECT_THAT(result.diagnostics.llm.steps.back(), HasSubstr("check: sufficient"));
}

TEST_F(LlmRecallTest, AMalformedReplyLeavesTheDeterministicResult) {
  server_.SetDefault(MockReply::Content("I think you should look for pottery."));
  std::unique_ptr<Engine> engine = Open(LoopConfig());
  const ReadResult deterministic = Recall(*engine, kQuestion, false);
  ExpectDeterministic(Recall(*engine, kQuestion), deterministic,
                      "llm check failed, the deterministic result stands for it: malformed "
                      "reply: the reply is not JSON");
}

TEST_F(LlmRecallTest, AReplyThatIsNotACompletionLeavesTheDeterministicResult) {
  server_.SetDefault(MockReply::Malformed("{\"choices\": 7}"));
  std::unique_ptr<Engine> engine = Open(LoopConfig());
  const ReadResult deterministic = Recall(*engine, kQuestion, false);
  ExpectDeterministic(Recall(*engine, kQuestion), deterministic, "llm check failed");
}

TEST_F(LlmRecallTest, AnHttpErrorLeavesTheDeterministicResult) {
  server_.SetDefault(MockReply::HttpError(500));
  std::unique_ptr<Engine> engine = Open(LoopConfig());
  const ReadResult deterministic = Recall(*engine, kQuestion, false);
  const ReadResult result = Recall(*engine, kQuestion);
  ExpectDeterministic(result, deterministic, "500");
  EXPECT_EQ(result.diagnostics.llm.calls, 1u);
  EXPECT_EQ(result.diagnostics.llm.prompt_tokens, 0u);
}

TEST_F(LlmRecallTest, NoReplyWithinTheTimeoutLeavesTheDeterministicResult) {
  server_.SetDefault(MockReply::Hang());
  Config config = LoopConfig();
  config.recall.llm_timeout_ms = 200;
  std::unique_ptr<Engine> engine = Open(config);
  const ReadResult deterministic = Recall(*engine, kQuestion, false);
  ExpectDeterministic(Recall(*engine, kQuestion), deterministic, "llm check failed");
}

TEST_F(LlmRecallTest, AnEndpointThatIsDownLeavesTheDeterministicResult) {
  int port = 0;
  {
    MockChatServer closed;  // a port that was free and is closed again
    port = closed.port();
  }
  Config config = LoopConfig();
  config.recall.llm_base_url = "http://127.0.0.1:" + std::to_string(port) + "/v1";
  std::unique_ptr<Engine> engine = Open(config);
  const ReadResult deterministic = Recall(*engine, kQuestion, false);
  ExpectDeterministic(Recall(*engine, kQuestion), deterministic, "llm check failed");
}

TEST_F(LlmRecallTest, MoreSubQuestionsThanAllowedAreRefused) {
  server_.SetDefault(MockReply::Content(
      R"({"sufficient": false, "queries": ["a pottery", "b pottery", "c pottery", "d pottery"]})"));
  std::unique_ptr<Engine> engine = Open(LoopConfig());  // llm_max_queries 3
  const ReadResult deterministic = Recall(*engine, kQuestion, false);
  ExpectDeterministic(Recall(*engine, kQuestion), deterministic,
                      "\"queries\" has 4 entries; at most 3 are allowed");
}

TEST_F(LlmRecallTest, ARerankNamingAnUnknownIdIsIgnored) {
  server_.SetResponder([](const nlohmann::json& request) {
    if (IsRerank(request)) return MockReply::Content(R"({"order": ["t_invented"]})", 7, 3);
    return MockReply::Content(R"({"sufficient": true})", 11, 5);
  });
  Config config = LoopConfig();
  config.recall.llm_rerank_top = 3;
  std::unique_ptr<Engine> engine = Open(config);
  const ReadResult deterministic = Recall(*engine, kQuestion, false);
  const ReadResult result = Recall(*engine, kQuestion);
  ExpectDeterministic(result, deterministic, "\"order\" names 't_invented', which is not one");
  EXPECT_EQ(server_.requests(), 2u);
  EXPECT_EQ(result.diagnostics.llm.calls, 2u);
  EXPECT_EQ(result.diagnostics.llm.prompt_tokens, 18u);
  EXPECT_EQ(result.diagnostics.llm.completion_tokens, 8u);
}

TEST_F(LlmRecallTest, AValidRerankReordersTheItemsWithTheirOwnText) {
  std::vector<std::string> reversed;
  server_.SetResponder([&reversed](const nlohmann::json& request) {
    if (!IsRerank(request)) return MockReply::Content(R"({"sufficient": true})");
    nlohmann::json order = reversed;
    return MockReply::Content(nlohmann::json{{"order", order}}.dump());
  });
  Config config = LoopConfig();
  config.recall.llm_rerank_top = 3;
  std::unique_ptr<Engine> engine = Open(config);
  const ReadResult deterministic = Recall(*engine, kQuestion, false);
  ASSERT_GE(deterministic.items.size(), 2u);
  reversed = testing::ItemIds(deterministic);
  std::reverse(reversed.begin(), reversed.end());
  const ReadResult result = Recall(*engine, kQuestion);
  EXPECT_EQ(testing::ItemIds(result), reversed);
  EXPECT_EQ(result.context, deterministic.context);  // the same items, listed in time order
  for (const RecallItem& item : result.items) {
    const auto same = std::find_if(deterministic.items.begin(), deterministic.items.end(),
                                   [&](const RecallItem& other) { return other.id == item.id; });
    ASSERT_NE(same, deterministic.items.end());
    EXPECT_EQ(item.text, same->text);
  }
}

TEST_F(LlmRecallTest, BadSettingsAreErrorsNamingTheKey) {
  Config no_model = LoopConfig();
  no_model.recall.llm_model.clear();
  EngineOptions options = testing::TestOptions(dir_);
  options.config = no_model;
  StatusOr<std::unique_ptr<Engine>> opened = Engine::Open(options);
  ASSERT_FALSE(opened.ok());
  EXPECT_EQ(opened.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(opened.status().message(), HasSubstr("[recall] llm_model"));

  Config no_rounds = LoopConfig();
  no_rounds.recall.llm_rounds = 0;
  EXPECT_THAT(no_rounds.Validate().message(), HasSubstr("llm_rounds"));
  Config bad_url = LoopConfig();
  bad_url.recall.llm_base_url = "not a url";
  options.config = bad_url;
  opened = Engine::Open(options);
  ASSERT_FALSE(opened.ok());
  EXPECT_THAT(opened.status().message(), HasSubstr("[recall] llm_base_url"));
}

}  // namespace
}  // namespace engram
