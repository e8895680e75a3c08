// The LLM fact extractor against a local chat-completions test server returning canned replies:
// well-formed facts pass the validator unless they invent anchors; malformed JSON, HTTP errors
// and an unreachable server are clear errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>

#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "engram/testing/status_matchers.h"
#include "write/extractor_llm.h"
#include "write/validator.h"

namespace engram::write {
namespace {

using ::engram::testing::IsOk;
using ::engram::testing::StatusIs;

// A chat-completions server whose next reply content (or HTTP status) the test sets.
class FakeChatServer {
 public:
  FakeChatServer() {
    server_.Post("/v1/chat/completions",
                 [this](const httplib::Request& request, httplib::Response& response) {
                   std::lock_guard lock(mutex_);
                   last_request_ = request.body;
                   response.status = status_;
                   const nlohmann::json reply = {
                       {"choices", {{{"message", {{"role", "assistant"}, {"content", content_}}}}}}};
                   response.set_content(status_ == 200 ? reply.dump() : "{\"error\":\"boom\"}",
                                        "application/json");
                 });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~FakeChatServer() {
    server_.stop();
    thread_.join();
  }
  void Reply(std::string content, int status = 200) {
    std::lock_guard lock(mutex_);
    content_ = std::move(content);
    status_ = status;
  }
  std::string last_request() {
    std::lock_guard lock(mutex_);
    return last_request_;
  }
  std::string base_url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/v1"; }

 private:
  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  std::mutex mutex_;
  std::string content_;
  int status_ = 200;
  std::string last_request_;
};

const Timestamp kReference = *ParseTimestamp("2024-05-10T12:00:00Z");

class LlmExtractorTest : public ::testing::Test {
 protected:
  std::unique_ptr<LlmFactExtractor> Make() {
    LlmExtractorOptions options;
    options.base_url = server_.base_url();
    options.model = "test-model";
    options.timeout = std::chrono::milliseconds(5000);
    auto extractor = LlmFactExtractor::Create(options);
    EXPECT_THAT(extractor.status(), IsOk());
    return std::move(extractor).value();
  }
  FakeChatServer server_;
};

TEST_F(LlmExtractorTest, ValidFactsPassAndInventedAnchorsAreRejected) {
  server_.Reply(R"({"facts": [
      {"subject": "I", "predicate": "lives_in", "object": "Berlin", "kind": "state", "polarity": "+"},
      {"subject": "Mia", "predicate": "lives_in", "object": "Munich", "kind": "state", "polarity": "+"},
      {"subject": "Mia", "predicate": "works_at", "object": "Acme GmbH", "kind": "state"},
      {"subject": "Tom", "predicate": "likes", "object": "Berlin", "kind": "preference"},
      {"subject": "Mia", "predicate": "adopted", "object": "cat", "kind": "event"},
      {"subject": "Mia", "object": "no predicate", "kind": "state"},
      "not an object"]})");
  const FactSource source = AnalyzeFactSource(
      "I moved to Berlin last March and we adopted a cat.", "Mia", Role::kUser, kReference);
  StatusOr<LlmExtraction> extraction = Make()->Extract(source);
  ASSERT_THAT(extraction.status(), IsOk());
  EXPECT_EQ(extraction->skipped, 2u);
  ASSERT_EQ(extraction->candidates.size(), 5u);
  std::vector<std::string> verdicts;
  for (const FactCandidate& candidate : extraction->candidates) {
    EXPECT_EQ(candidate.extractor, "llm");
    const Verdict verdict = ValidateFact(candidate, source);
    verdicts.push_back(candidate.object + ":" +
                       (verdict.accepted ? "ok" : std::string(FactCheckName(verdict.failed))));
  }
  EXPECT_THAT(verdicts, ::testing::ElementsAre("Berlin:ok", "Munich:support", "Acme GmbH:support",
                                               "Berlin:subject", "cat:ok"));
  EXPECT_TRUE(extraction->candidates[0].subject_is_speaker);
  EXPECT_EQ(extraction->candidates[0].subject, "Mia");
  ASSERT_TRUE(extraction->candidates[4].time.has_value());
  EXPECT_EQ(extraction->candidates[4].time->text, "last March");
  // The request carries the model, the speaker and the turn.
  const nlohmann::json request = nlohmann::json::parse(server_.last_request());
  EXPECT_EQ(request["model"], "test-model");
  EXPECT_THAT(request["messages"][1]["content"].get<std::string>(),
              ::testing::HasSubstr("Speaker: Mia"));
}

TEST_F(LlmExtractorTest, FencedArrayIsAccepted) {
  server_.Reply("```json\n[{\"subject\": \"Mia\", \"predicate\": \"likes\", \"object\": "
                "\"olives\", \"kind\": \"preference\", \"polarity\": \"-\"}]\n```");
  const FactSource source =
      AnalyzeFactSource("I really don't like olives.", "Mia", Role::kUser, kReference);
  StatusOr<LlmExtraction> extraction = Make()->Extract(source);
  ASSERT_THAT(extraction.status(), IsOk());
  ASSERT_EQ(extraction->candidates.size(), 1u);
  EXPECT_TRUE(extraction->candidates[0].negated);
  EXPECT_TRUE(ValidateFact(extraction->candidates[0], source).accepted);
}

TEST(ParseLlmFactsTest, SingleValuedSlotsComeFromThePredicateSchema) {
  // The same schema as the rule extractor: origin and what one studies hold one current value.
  const FactSource source = AnalyzeFactSource("I'm from Oslo and I study law and I like tea.",
                                              "Mia", Role::kUser, kReference);
  StatusOr<LlmExtraction> extraction = ParseLlmFacts(
      R"({"facts": [{"subject": "Mia", "predicate": "from", "object": "Oslo", "kind": "profile"},
                    {"subject": "Mia", "predicate": "studies", "object": "law", "kind": "state"},
                    {"subject": "Mia", "predicate": "likes", "object": "tea",
                     "kind": "preference"}]})",
      source, 10);
  ASSERT_THAT(extraction.status(), IsOk());
  ASSERT_EQ(extraction->candidates.size(), 3u);
  EXPECT_TRUE(extraction->candidates[0].single_valued);
  EXPECT_TRUE(extraction->candidates[1].single_valued);
  EXPECT_FALSE(extraction->candidates[2].single_valued);
}

TEST_F(LlmExtractorTest, MalformedRepliesAndErrorsAreUnavailable) {
  const FactSource source = AnalyzeFactSource("I live in Oslo.", "Mia", Role::kUser, kReference);
  server_.Reply("Sure! Mia lives in Oslo.");
  EXPECT_THAT(Make()->Extract(source).status(), StatusIs(StatusCode::kUnavailable));
  server_.Reply("{\"facts\": {\"subject\": \"Mia\"}}");
  EXPECT_THAT(Make()->Extract(source).status(), StatusIs(StatusCode::kUnavailable));
  server_.Reply("", 500);
  EXPECT_THAT(Make()->Extract(source).status(), StatusIs(StatusCode::kUnavailable));
}

TEST(LlmExtractorOptionsTest, BadOptionsAndUnreachableServer) {
  LlmExtractorOptions options;
  EXPECT_THAT(LlmFactExtractor::Create(options).status(),
              StatusIs(StatusCode::kInvalidArgument));  // no model
  options.model = "m";
  options.base_url = "ftp://example";
  EXPECT_THAT(LlmFactExtractor::Create(options).status(),
              StatusIs(StatusCode::kInvalidArgument));
  // A port nothing listens on: bound, never listened, then released.
  int port = 0;
  {
    httplib::Server probe;
    port = probe.bind_to_any_port("127.0.0.1");
  }
  options.base_url = "http://127.0.0.1:" + std::to_string(port) + "/v1";
  options.timeout = std::chrono::milliseconds(2000);
  auto extractor = LlmFactExtractor::Create(options);
  ASSERT_THAT(extractor.status(), IsOk());
  const FactSource source = AnalyzeFactSource("I live in Oslo.", "Mia", Role::kUser, kReference);
  EXPECT_THAT((*extractor)->Extract(source).status(),
              ::testing::AnyOf(StatusIs(StatusCode::kUnavailable),
                               StatusIs(StatusCode::kDeadlineExceeded)));
}

}  // namespace
}  // namespace engram::write
