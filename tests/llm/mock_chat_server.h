// A scripted OpenAI-compatible chat-completions server for tests: cpp-httplib on 127.0.0.1, on a
// port the kernel picks, answering POST <base>/chat/completions. Nothing leaves the machine.
//
// Each request is answered by the test's responder, a function of the request's JSON body (so
// replies stay deterministic however many requests run at once), or, when none is set, with
// the default reply. A reply can be content with usage counts, an HTTP error status, a body
// that is not JSON, or a hang: no answer until the server stops, which a client with a
// timeout sees as a slow server without the test sleeping.
//
//   MockChatServer server;
//   server.SetResponder([](const nlohmann::json& request) {
//     return MockReply::Content("Biscuit");
//   });
//   options.base_url = server.base_url();   // "http://127.0.0.1:<port>/v1"
//   ... run the code under test ...
//   EXPECT_EQ(server.requests(), 2u);
//
// Thread-safety: every member may be called from any thread; the responder runs on the
// server's threads under the server's lock, so it needs no locking of its own.
#ifndef ENGRAM_TESTS_LLM_MOCK_CHAT_SERVER_H_
#define ENGRAM_TESTS_LLM_MOCK_CHAT_SERVER_H_

#include <condition_variable>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

namespace engram::testing {

struct MockReply {
  enum class Kind {
    kContent,    // a well-formed completion with `content` and usage counts
    kHttpError,  // `status` with a small JSON error body
    kMalformed,  // HTTP 200 with `content` sent as the raw body (not a completion)
    kHang,       // no answer until the server stops
  };
  Kind kind = Kind::kContent;
  std::string content;
  int status = 200;
  std::size_t prompt_tokens = 10;
  std::size_t completion_tokens = 2;
  bool usage = true;  // false: the reply has no "usage" object

  static MockReply Content(std::string content, std::size_t prompt_tokens = 10,
                           std::size_t completion_tokens = 2);
  static MockReply HttpError(int status);
  static MockReply Malformed(std::string body);
  static MockReply Hang();
};

class MockChatServer {
 public:
  using Responder = std::function<MockReply(const nlohmann::json& request)>;

  // Binds 127.0.0.1 on a free port and starts serving; `path_prefix` is the part of the base URL
  // after the host ("/v1").
  explicit MockChatServer(std::string path_prefix = "/v1");
  // Releases hanging replies, then stops the server and joins its thread.
  ~MockChatServer();
  MockChatServer(const MockChatServer&) = delete;
  MockChatServer& operator=(const MockChatServer&) = delete;

  // "http://127.0.0.1:<port>" + path_prefix.
  std::string base_url() const;
  int port() const { return port_; }

  void SetResponder(Responder responder);
  // The reply when no responder is set. Default: MockReply::Content("ok").
  void SetDefault(MockReply reply);

  // Requests received so far (every POST to the completions path, whatever was answered).
  std::size_t requests() const;
  // Their bodies, parsed (a body that is not JSON is kept as a JSON string), in arrival order.
  std::vector<nlohmann::json> request_bodies() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
  std::string path_prefix_;
  int port_ = 0;
  std::thread thread_;
};

// The text of the last message of a chat-completions request ("" when there is none).
std::string LastMessage(const nlohmann::json& request);

}  // namespace engram::testing

#endif  // ENGRAM_TESTS_LLM_MOCK_CHAT_SERVER_H_
