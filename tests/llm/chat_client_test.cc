// llm::ChatClient against the scripted local server: the request it sends, content and usage
// read back, and each failure a clear error naming the URL (HTTP 500, a body that is not a
// completion, a reply over the size bound, a server that does not answer in time, nothing
// listening).
#include "llm/chat_client.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>

#include <string>

#include "engram/testing/status_matchers.h"
#include "mock_chat_server.h"

namespace engram::llm {
namespace {

using ::engram::testing::IsOk;
using ::engram::testing::MockChatServer;
using ::engram::testing::MockReply;
using ::engram::testing::StatusIs;
using ::testing::HasSubstr;

std::unique_ptr<ChatClient> MakeClient(const std::string& base_url,
                                       std::chrono::milliseconds timeout = std::chrono::seconds(5),
                                       std::size_t max_response_bytes = std::size_t{1} << 20) {
  ChatClientOptions options;
  options.base_url = base_url;
  options.model = "mock-model";
  options.api_key = "secret";
  options.timeout = timeout;
  options.max_response_bytes = max_response_bytes;
  options.label = "test";
  StatusOr<std::unique_ptr<ChatClient>> client = ChatClient::Create(options);
  EXPECT_THAT(client.status(), IsOk());
  return std::move(client).value();
}

ChatRequest Hello() {
  ChatRequest request;
  request.messages = {{"system", "Be brief."}, {"user", "Say hello."}};
  return request;
}

TEST(ChatClientTest, SendsTheRequestAndReadsContentAndUsage) {
  MockChatServer server;
  server.SetDefault(MockReply::Content("Hello.", 17, 3));
  ChatRequest request = Hello();
  request.max_tokens = 50;
  request.seed = 7;
  StatusOr<ChatReply> reply = MakeClient(server.base_url() + "/")->Complete(request);
  ASSERT_THAT(reply.status(), IsOk());
  EXPECT_EQ(reply->content, "Hello.");
  EXPECT_EQ(reply->finish_reason, "stop");
  EXPECT_TRUE(reply->usage.reported);
  EXPECT_EQ(reply->usage.prompt_tokens, 17u);
  EXPECT_EQ(reply->usage.completion_tokens, 3u);
  ASSERT_EQ(server.requests(), 1u);
  const nlohmann::json body = server.request_bodies()[0];
  EXPECT_EQ(body["model"], "mock-model");
  EXPECT_EQ(body["temperature"], 0.0);
  EXPECT_EQ(body["max_tokens"], 50);
  EXPECT_EQ(body["seed"], 7);
  ASSERT_EQ(body["messages"].size(), 2u);
  EXPECT_EQ(body["messages"][0]["role"], "system");
  EXPECT_EQ(body["messages"][1]["content"], "Say hello.");
}

TEST(ChatClientTest, OptionalFieldsAreLeftOutAndMissingUsageIsFlagged) {
  MockChatServer server;
  MockReply reply = MockReply::Content("Hi.");
  reply.usage = false;
  server.SetDefault(reply);
  StatusOr<ChatReply> answered = MakeClient(server.base_url())->Complete(Hello());
  ASSERT_THAT(answered.status(), IsOk());
  EXPECT_FALSE(answered->usage.reported);
  EXPECT_EQ(answered->usage.prompt_tokens, 0u);
  const nlohmann::json body = server.request_bodies()[0];
  EXPECT_FALSE(body.contains("max_tokens"));
  EXPECT_FALSE(body.contains("seed"));
}

TEST(ChatClientTest, HttpErrorIsUnavailableNamingTheStatusAndUrl) {
  MockChatServer server;
  server.SetDefault(MockReply::HttpError(500));
  const Status status = MakeClient(server.base_url())->Complete(Hello()).status();
  EXPECT_THAT(status, StatusIs(StatusCode::kUnavailable));
  EXPECT_THAT(status.message(), HasSubstr("HTTP 500"));
  EXPECT_THAT(status.message(), HasSubstr(server.base_url() + "/chat/completions"));
  EXPECT_THAT(status.message(), HasSubstr("test: "));
}

TEST(ChatClientTest, MalformedBodiesAreUnavailable) {
  MockChatServer server;
  for (const std::string body :
       {"this is not json", R"({"choices": []})", R"({"choices": [{"message": {"content": 3}}]})",
        R"({"error": "overloaded"})"}) {
    server.SetDefault(MockReply::Malformed(body));
    const Status status = MakeClient(server.base_url())->Complete(Hello()).status();
    EXPECT_THAT(status, StatusIs(StatusCode::kUnavailable)) << body;
    EXPECT_THAT(status.message(), HasSubstr("no choices[0].message.content")) << body;
  }
}

TEST(ChatClientTest, ReplyOverTheSizeBoundIsRefused) {
  MockChatServer server;
  server.SetDefault(MockReply::Content(std::string(4096, 'x')));
  const Status status =
      MakeClient(server.base_url(), std::chrono::seconds(5), 1024)->Complete(Hello()).status();
  EXPECT_THAT(status, StatusIs(StatusCode::kUnavailable));
  EXPECT_THAT(status.message(), HasSubstr("larger than 1024 bytes"));
}

TEST(ChatClientTest, ServerThatDoesNotAnswerInTimeIsDeadlineExceeded) {
  MockChatServer server;
  server.SetDefault(MockReply::Hang());
  const Status status =
      MakeClient(server.base_url(), std::chrono::milliseconds(300))->Complete(Hello()).status();
  EXPECT_THAT(status, StatusIs(StatusCode::kDeadlineExceeded));
  EXPECT_THAT(status.message(), HasSubstr("did not answer within 300 ms"));
}

TEST(ChatClientTest, NothingListeningIsAnError) {
  int port = 0;
  {
    httplib::Server probe;  // bound, never listened, then released
    port = probe.bind_to_any_port("127.0.0.1");
  }
  const Status status =
      MakeClient("http://127.0.0.1:" + std::to_string(port) + "/v1", std::chrono::seconds(2))
          ->Complete(Hello())
          .status();
  EXPECT_THAT(status, ::testing::AnyOf(StatusIs(StatusCode::kUnavailable),
                                       StatusIs(StatusCode::kDeadlineExceeded)));
  EXPECT_THAT(status.message(), HasSubstr("127.0.0.1:" + std::to_string(port)));
}

TEST(ChatClientOptionsTest, BadOptionsNameTheField) {
  ChatClientOptions options;
  options.label = "qa answer";
  EXPECT_THAT(ChatClient::Create(options).status(), StatusIs(StatusCode::kInvalidArgument));
  options.model = "m";
  options.base_url = "ftp://example";
  const Status scheme = ChatClient::Create(options).status();
  EXPECT_THAT(scheme, StatusIs(StatusCode::kInvalidArgument));
  EXPECT_THAT(scheme.message(), HasSubstr("qa answer: base_url must start with http://"));
  options.base_url = "http:///v1";
  EXPECT_THAT(ChatClient::Create(options).status(), StatusIs(StatusCode::kInvalidArgument));
  options.base_url = "http://127.0.0.1:1/v1";
  options.timeout = std::chrono::milliseconds(0);
  EXPECT_THAT(ChatClient::Create(options).status(), StatusIs(StatusCode::kInvalidArgument));
}

TEST(StripCodeFencesTest, ReturnsTheFencedBlock) {
  EXPECT_EQ(StripCodeFences("```json\n{\"a\": 1}\n```"), "{\"a\": 1}\n");
  EXPECT_EQ(StripCodeFences("{\"a\": 1}"), "{\"a\": 1}");
}

}  // namespace
}  // namespace engram::llm
