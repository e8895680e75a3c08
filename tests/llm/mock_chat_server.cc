// The scripted chat-completions server for tests (see mock_chat_server.h).
#include "mock_chat_server.h"

#include <httplib.h>

#include <chrono>
#include <utility>

namespace engram::testing {

MockReply MockReply::Content(std::string content, std::size_t prompt_tokens,
                             std::size_t completion_tokens) {
  MockReply reply;
  reply.content = std::move(content);
  reply.prompt_tokens = prompt_tokens;
  reply.completion_tokens = completion_tokens;
  return reply;
}

MockReply MockReply::HttpError(int status) {
  MockReply reply;
  reply.kind = Kind::kHttpError;
  reply.status = status;
  return reply;
}

MockReply MockReply::Malformed(std::string body) {
  MockReply reply;
  reply.kind = Kind::kMalformed;
  reply.content = std::move(body);
  return reply;
}

MockReply MockReply::Hang() {
  MockReply reply;
  reply.kind = Kind::kHang;
  return reply;
}

struct MockChatServer::State {
  httplib::Server server;
  mutable std::mutex mutex;
  std::condition_variable released;
  bool stopping = false;
  Responder responder;
  MockReply default_reply = MockReply::Content("ok");
  std::vector<nlohmann::json> bodies;
};

MockChatServer::MockChatServer(std::string path_prefix)
    : state_(std::make_unique<State>()), path_prefix_(std::move(path_prefix)) {
  State* state = state_.get();
  state->server.Post(path_prefix_ + "/chat/completions", [state](const httplib::Request& request,
                                                                 httplib::Response& response) {
    std::unique_lock lock(state->mutex);
    nlohmann::json body = nlohmann::json::parse(request.body, nullptr, false);
    if (body.is_discarded()) body = request.body;
    state->bodies.push_back(body);
    const MockReply reply = state->responder ? state->responder(body) : state->default_reply;
    switch (reply.kind) {
      case MockReply::Kind::kContent: {
        nlohmann::json completion = {
            {"id", "mock-" + std::to_string(state->bodies.size())},
            {"object", "chat.completion"},
            {"model", body.is_object() ? body.value("model", "") : ""},
            {"choices",
             {{{"index", 0},
               {"message", {{"role", "assistant"}, {"content", reply.content}}},
               {"finish_reason", "stop"}}}}};
        if (reply.usage) {
          completion["usage"] = {{"prompt_tokens", reply.prompt_tokens},
                                 {"completion_tokens", reply.completion_tokens},
                                 {"total_tokens", reply.prompt_tokens + reply.completion_tokens}};
        }
        response.set_content(completion.dump(), "application/json");
        return;
      }
      case MockReply::Kind::kHttpError:
        response.status = reply.status;
        response.set_content(R"({"error":{"message":"scripted failure"}})", "application/json");
        return;
      case MockReply::Kind::kMalformed:
        response.set_content(reply.content, "application/json");
        return;
      case MockReply::Kind::kHang:
        state->released.wait(lock, [state] { return state->stopping; });
        response.status = 503;
        response.set_content("{}", "application/json");
        return;
    }
  });
  port_ = state->server.bind_to_any_port("127.0.0.1");
  thread_ = std::thread([state] { state->server.listen_after_bind(); });
  // Bounded wait for the listening thread (a few seconds at most).
  for (int attempt = 0; attempt < 5000 && !state->server.is_running(); ++attempt) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

MockChatServer::~MockChatServer() {
  {
    std::lock_guard lock(state_->mutex);
    state_->stopping = true;
  }
  state_->released.notify_all();
  state_->server.stop();
  if (thread_.joinable()) thread_.join();
}

std::string MockChatServer::base_url() const {
  return "http://127.0.0.1:" + std::to_string(port_) + path_prefix_;
}

void MockChatServer::SetResponder(Responder responder) {
  std::lock_guard lock(state_->mutex);
  state_->responder = std::move(responder);
}

void MockChatServer::SetDefault(MockReply reply) {
  std::lock_guard lock(state_->mutex);
  state_->default_reply = std::move(reply);
}

std::size_t MockChatServer::requests() const {
  std::lock_guard lock(state_->mutex);
  return state_->bodies.size();
}

std::vector<nlohmann::json> MockChatServer::request_bodies() const {
  std::lock_guard lock(state_->mutex);
  return state_->bodies;
}

std::string LastMessage(const nlohmann::json& request) {
  if (!request.is_object() || !request.contains("messages") || !request["messages"].is_array() ||
      request["messages"].empty()) {
    return "";
  }
  const nlohmann::json& last = request["messages"].back();
  if (!last.is_object() || !last.contains("content") || !last["content"].is_string()) return "";
  return last["content"].get<std::string>();
}

}  // namespace engram::testing
