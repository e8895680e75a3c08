// Tests for OpenAiEmbedder against a local httplib::Server speaking the /v1/embeddings protocol:
// success, batching, retry after 500, giving up, malformed JSON, wrong dimension, timeout, auth.
#include "embed/openai_embedder.h"

#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "embed/hashing_embedder.h"
#include "engram/testing/status_matchers.h"

namespace engram::embed {
namespace {

using ::engram::testing::IsOk;
using ::engram::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr std::size_t kDimension = 16;

// What the fake server does with a request.
enum class Behaviour {
  kServe,            // answer correctly (data in reverse order, with indices)
  kFailOnceWith500,  // 500 on the first request, then serve
  kAlways503,        // 503 every time
  kMalformedJson,    // 200 with a body that is not JSON
  kWrongDimension,   // 200 with vectors of kDimension + 1
  kTooFewVectors,    // 200 with one vector less than asked for
  kSlow,             // sleep past the client's timeout, then serve
  kUnauthorized,     // 401 with an OpenAI-style error body
};

class FakeEmbeddingsServer {
 public:
  FakeEmbeddingsServer() {
    server_.Post("/v1/embeddings",
                 [this](const httplib::Request& request, httplib::Response& response) {
                   Handle(request, response);
                 });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~FakeEmbeddingsServer() {
    server_.stop();
    thread_.join();
  }

  std::string base_url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/v1"; }
  void set_behaviour(Behaviour behaviour) { behaviour_ = behaviour; }
  std::vector<std::size_t> batch_sizes() {
    std::lock_guard<std::mutex> lock(mutex_);
    return batch_sizes_;
  }
  std::string last_authorization() {
    std::lock_guard<std::mutex> lock(mutex_);
    return last_authorization_;
  }
  int requests() const { return requests_; }

 private:
  void Handle(const httplib::Request& request, httplib::Response& response) {
    const int request_number = ++requests_;
    const nlohmann::json body = nlohmann::json::parse(request.body);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      batch_sizes_.push_back(body["input"].size());
      last_authorization_ = request.get_header_value("Authorization");
    }
    const Behaviour behaviour = behaviour_;
    if (behaviour == Behaviour::kAlways503 ||
        (behaviour == Behaviour::kFailOnceWith500 && request_number == 1)) {
      response.status = behaviour == Behaviour::kAlways503 ? 503 : 500;
      response.set_content(R"({"error":{"message":"overloaded"}})", "application/json");
      return;
    }
    if (behaviour == Behaviour::kUnauthorized) {
      response.status = 401;
      response.set_content(R"({"error":{"message":"Incorrect API key provided"}})",
                           "application/json");
      return;
    }
    if (behaviour == Behaviour::kMalformedJson) {
      response.set_content("{\"data\": [", "application/json");
      return;
    }
    if (behaviour == Behaviour::kSlow) std::this_thread::sleep_for(std::chrono::milliseconds(800));
    const std::size_t dimension =
        behaviour == Behaviour::kWrongDimension ? kDimension + 1 : kDimension;
    auto hashing = HashingEmbedder::Create(dimension);
    nlohmann::json data = nlohmann::json::array();
    std::size_t count = body["input"].size();
    if (behaviour == Behaviour::kTooFewVectors) --count;
    for (std::size_t index = count; index-- > 0;) {  // reverse order: the client must use "index"
      std::vector<float> vector = (*hashing)->EmbedOne(body["input"][index].get<std::string>());
      for (float& value : vector) value *= 3.0f;  // not normalised: the client must normalise
      data.push_back({{"object", "embedding"}, {"index", index}, {"embedding", vector}});
    }
    response.set_content(
        nlohmann::json({{"object", "list"}, {"data", data}, {"model", body["model"]}}).dump(),
        "application/json");
  }

  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  std::atomic<Behaviour> behaviour_{Behaviour::kServe};
  std::atomic<int> requests_{0};
  std::mutex mutex_;
  std::vector<std::size_t> batch_sizes_;  // GUARDED_BY(mutex_)
  std::string last_authorization_;        // GUARDED_BY(mutex_)
};

// A port on 127.0.0.1 that nothing listens on: bound (without listen) and released.
int UnusedPort() {
  const int socket_fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  socklen_t length = sizeof(address);
  int port = 0;
  if (::bind(socket_fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0 &&
      ::getsockname(socket_fd, reinterpret_cast<sockaddr*>(&address), &length) == 0) {
    port = ntohs(address.sin_port);
  }
  ::close(socket_fd);
  return port;
}

class OpenAiEmbedderTest : public ::testing::Test {
 protected:
  OpenAiEmbedderOptions Options() {
    OpenAiEmbedderOptions options;
    options.base_url = server_.base_url();
    options.model = "test-model";
    options.dimension = kDimension;
    options.api_key = "secret-key";
    options.timeout = std::chrono::milliseconds(2000);
    options.initial_backoff = std::chrono::milliseconds(1);
    options.max_backoff = std::chrono::milliseconds(5);
    return options;
  }

  std::unique_ptr<OpenAiEmbedder> Make(const OpenAiEmbedderOptions& options) {
    StatusOr<std::unique_ptr<OpenAiEmbedder>> embedder = OpenAiEmbedder::Create(options);
    EXPECT_THAT(embedder, IsOk());
    return std::move(embedder).value();
  }

  static std::vector<float> Expected(const std::string& text) {
    return (*HashingEmbedder::Create(kDimension))->EmbedOne(text);
  }

  FakeEmbeddingsServer server_;
};

TEST_F(OpenAiEmbedderTest, EmbedsAndNormalisesInInputOrder) {
  const auto embedder = Make(Options());
  EXPECT_EQ(embedder->model_id(), "openai:test-model");
  EXPECT_EQ(embedder->dimension(), kDimension);
  const std::vector<std::string> texts = {"alpha beta", "gamma", "delta epsilon zeta"};
  StatusOr<std::vector<std::vector<float>>> vectors = embedder->Embed(texts);
  ASSERT_THAT(vectors, IsOk());
  ASSERT_EQ(vectors->size(), texts.size());
  for (std::size_t index = 0; index < texts.size(); ++index) {
    const std::vector<float> expected = Expected(texts[index]);
    ASSERT_EQ((*vectors)[index].size(), kDimension);
    for (std::size_t dimension = 0; dimension < kDimension; ++dimension) {
      EXPECT_NEAR((*vectors)[index][dimension], expected[dimension], 1e-6f);
    }
  }
  EXPECT_EQ(server_.last_authorization(), "Bearer secret-key");
  EXPECT_THAT(server_.batch_sizes(), ElementsAre(3));
}

TEST_F(OpenAiEmbedderTest, SplitsIntoBatches) {
  OpenAiEmbedderOptions options = Options();
  options.batch_size = 4;
  const auto embedder = Make(options);
  std::vector<std::string> texts;
  for (int index = 0; index < 10; ++index) texts.push_back("text number " + std::to_string(index));
  StatusOr<std::vector<std::vector<float>>> vectors = embedder->Embed(texts);
  ASSERT_THAT(vectors, IsOk());
  ASSERT_EQ(vectors->size(), 10u);
  EXPECT_THAT(server_.batch_sizes(), ElementsAre(4, 4, 2));
  for (std::size_t index = 0; index < texts.size(); ++index) {
    EXPECT_NEAR(Cosine((*vectors)[index], Expected(texts[index])), 1.0f, 1e-6f) << index;
  }
}

TEST_F(OpenAiEmbedderTest, EmptyInputMakesNoRequest) {
  const auto embedder = Make(Options());
  StatusOr<std::vector<std::vector<float>>> vectors = embedder->Embed({});
  ASSERT_THAT(vectors, IsOk());
  EXPECT_TRUE(vectors->empty());
  EXPECT_EQ(server_.requests(), 0);
}

TEST_F(OpenAiEmbedderTest, RetriesAfterServerError) {
  server_.set_behaviour(Behaviour::kFailOnceWith500);
  const auto embedder = Make(Options());
  const std::vector<std::string> texts = {"retry me"};
  StatusOr<std::vector<std::vector<float>>> vectors = embedder->Embed(texts);
  ASSERT_THAT(vectors, IsOk());
  EXPECT_EQ(server_.requests(), 2);
}

TEST_F(OpenAiEmbedderTest, GivesUpAfterMaxRetries) {
  server_.set_behaviour(Behaviour::kAlways503);
  OpenAiEmbedderOptions options = Options();
  options.max_retries = 2;
  const auto embedder = Make(options);
  const std::vector<std::string> texts = {"never"};
  EXPECT_THAT(embedder->Embed(texts),
              StatusIs(StatusCode::kUnavailable, HasSubstr("503: overloaded (attempt 3 of 3)")));
  EXPECT_EQ(server_.requests(), 3);
}

TEST_F(OpenAiEmbedderTest, MalformedJsonIsUnavailable) {
  server_.set_behaviour(Behaviour::kMalformedJson);
  const auto embedder = Make(Options());
  const std::vector<std::string> texts = {"x"};
  EXPECT_THAT(embedder->Embed(texts), StatusIs(StatusCode::kUnavailable, HasSubstr("not JSON")));
  EXPECT_EQ(server_.requests(), 1);  // a malformed reply is not retried
}

TEST_F(OpenAiEmbedderTest, WrongDimensionIsFailedPrecondition) {
  server_.set_behaviour(Behaviour::kWrongDimension);
  const auto embedder = Make(Options());
  const std::vector<std::string> texts = {"x"};
  EXPECT_THAT(embedder->Embed(texts),
              StatusIs(StatusCode::kFailedPrecondition, HasSubstr("17-dimensional")));
}

TEST_F(OpenAiEmbedderTest, WrongVectorCountIsUnavailable) {
  server_.set_behaviour(Behaviour::kTooFewVectors);
  const auto embedder = Make(Options());
  const std::vector<std::string> texts = {"x", "y"};
  EXPECT_THAT(embedder->Embed(texts),
              StatusIs(StatusCode::kUnavailable, HasSubstr("1 embeddings for 2 inputs")));
}

TEST_F(OpenAiEmbedderTest, TimeoutIsDeadlineExceeded) {
  server_.set_behaviour(Behaviour::kSlow);
  OpenAiEmbedderOptions options = Options();
  options.timeout = std::chrono::milliseconds(200);
  options.max_retries = 1;
  const auto embedder = Make(options);
  const std::vector<std::string> texts = {"slow"};
  EXPECT_THAT(embedder->Embed(texts),
              StatusIs(StatusCode::kDeadlineExceeded, HasSubstr("timed out")));
  EXPECT_EQ(server_.requests(), 2);
}

TEST_F(OpenAiEmbedderTest, UnauthorizedIsFailedPreconditionWithoutRetry) {
  server_.set_behaviour(Behaviour::kUnauthorized);
  const auto embedder = Make(Options());
  const std::vector<std::string> texts = {"x"};
  EXPECT_THAT(embedder->Embed(texts),
              StatusIs(StatusCode::kFailedPrecondition, HasSubstr("Incorrect API key")));
  EXPECT_EQ(server_.requests(), 1);
}

TEST_F(OpenAiEmbedderTest, WrongPathIsNotFound) {
  OpenAiEmbedderOptions options = Options();
  options.base_url = server_.base_url() + "/nope";
  const auto embedder = Make(options);
  const std::vector<std::string> texts = {"x"};
  EXPECT_THAT(embedder->Embed(texts), StatusIs(StatusCode::kNotFound, HasSubstr("404")));
}

TEST_F(OpenAiEmbedderTest, UnreachableServerIsUnavailable) {
  OpenAiEmbedderOptions options = Options();
  options.base_url = "http://127.0.0.1:" + std::to_string(UnusedPort()) + "/v1";
  options.max_retries = 1;
  const auto embedder = Make(options);
  const std::vector<std::string> texts = {"x"};
  EXPECT_THAT(embedder->Embed(texts),
              StatusIs(StatusCode::kUnavailable, HasSubstr("cannot reach")));
}

TEST_F(OpenAiEmbedderTest, ValidatesOptions) {
  OpenAiEmbedderOptions options = Options();
  options.model = "";
  EXPECT_THAT(OpenAiEmbedder::Create(options),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("model")));
  options = Options();
  options.dimension = 0;
  EXPECT_THAT(OpenAiEmbedder::Create(options), StatusIs(StatusCode::kInvalidArgument));
  options = Options();
  options.base_url = "ftp://example.org";
  EXPECT_THAT(OpenAiEmbedder::Create(options), StatusIs(StatusCode::kInvalidArgument));
  options = Options();
  options.base_url = "https://api.openai.com/v1";
#ifdef CPPHTTPLIB_OPENSSL_SUPPORT
  EXPECT_THAT(OpenAiEmbedder::Create(options), IsOk());
#else
  EXPECT_THAT(OpenAiEmbedder::Create(options),
              StatusIs(StatusCode::kFailedPrecondition, HasSubstr("https")));
#endif
  options = Options();
  options.base_url = "http://127.0.0.1:99999/v1";
  EXPECT_THAT(OpenAiEmbedder::Create(options),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("port")));
  options = Options();
  options.model_id = "my-space";
  EXPECT_EQ(Make(options)->model_id(), "my-space");
}

}  // namespace
}  // namespace engram::embed
