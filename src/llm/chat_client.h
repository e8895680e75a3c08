// chat_client: the one client of OpenAI-compatible chat-completions endpoints (Ollama, the
// llama.cpp server, vLLM, hosted APIs). The optional LLM fact extractor (write/), the optional
// LLM steps of recall and the end-to-end QA harness of `engram bench` (eval/) all send their
// requests through it, so timeouts, size bounds and error messages are the same everywhere.
//
// Request: POST base_url + "/chat/completions" with {"model", "messages", "temperature", and
// "max_tokens" / "seed" when set}. Reply: choices[0].message.content, the usage counts when the
// server reports them, and finish_reason.
//
//   llm::ChatClientOptions options;
//   options.base_url = "http://127.0.0.1:11434/v1";
//   options.model = "qwen2.5:7b-instruct";
//   ASSIGN_OR_RETURN(auto client, llm::ChatClient::Create(options));
//   llm::ChatRequest request;
//   request.messages = {{"user", "Say hello."}};
//   ASSIGN_OR_RETURN(llm::ChatReply reply, client->Complete(request));
//
// Errors of Complete: Unavailable (server unreachable, an HTTP error status, a reply larger than
// max_response_bytes, or a body that is not a chat-completions reply), DeadlineExceeded (no
// answer within the timeout). Messages start with options.label and name the URL.
//
// Thread-safety: immutable after Create; each Complete call opens its own connection, so one
// client may be shared by threads.
#ifndef ENGRAM_LLM_CHAT_CLIENT_H_
#define ENGRAM_LLM_CHAT_CLIENT_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engram/status.h"

namespace engram::llm {

struct ChatMessage {
  std::string role;  // "system", "user" or "assistant"
  std::string content;
};

struct ChatRequest {
  std::vector<ChatMessage> messages;
  // Sampling temperature. Default: 0 (deterministic settings).
  double temperature = 0;
  // Completion length limit sent as "max_tokens". Default: nullopt = not sent.
  std::optional<std::size_t> max_tokens;
  // Sent as "seed" for servers that support reproducible sampling. Default: nullopt = not sent.
  std::optional<std::int64_t> seed;
};

// Token counts as the server reports them ("usage"); `reported` is false when the reply had no
// usage object, and the counts are then 0.
struct ChatUsage {
  std::size_t prompt_tokens = 0;
  std::size_t completion_tokens = 0;
  bool reported = false;
};

struct ChatReply {
  std::string content;        // choices[0].message.content
  std::string finish_reason;  // "stop", "length", ... ("" when absent)
  ChatUsage usage;
};

struct ChatClientOptions {
  // Endpoint prefix; requests go to base_url + "/chat/completions". Default: Ollama here.
  std::string base_url = "http://127.0.0.1:11434/v1";
  // Model name sent in every request. Required.
  std::string model;
  // Sent as "Authorization: Bearer <key>" when not empty. Default: none.
  std::string api_key;
  // Time allowed to connect, to send the request and between bytes of the reply. Default: 60 s.
  std::chrono::milliseconds timeout{60000};
  // Replies larger than this are refused (Unavailable). Default: 8 MiB.
  std::size_t max_response_bytes = std::size_t{8} << 20;
  // Prefix of every error message, naming the caller ("llm extractor"). Default: "llm".
  std::string label = "llm";

  // InvalidArgument naming the first bad field.
  Status Validate() const;
};

class ChatClient {
 public:
  // Validates the options (FailedPrecondition for https:// when this build has no TLS); does
  // not contact the server.
  static StatusOr<std::unique_ptr<ChatClient>> Create(ChatClientOptions options);

  // One chat completion with options().model. Errors: see the file comment.
  StatusOr<ChatReply> Complete(const ChatRequest& request) const;

  const ChatClientOptions& options() const { return options_; }
  // base_url + "/chat/completions".
  const std::string& url() const { return url_; }

 private:
  ChatClient(ChatClientOptions options, std::string scheme_host_port, std::string path);

  ChatClientOptions options_;
  std::string scheme_host_port_;  // "http://127.0.0.1:11434"
  std::string path_;              // "/v1/chat/completions"
  std::string url_;
};

// The reply of a chat-completions body (exposed for tests): Unavailable naming `url` when the
// body is not JSON with a string choices[0].message.content. Missing or malformed usage leaves
// usage.reported false.
StatusOr<ChatReply> ParseChatReply(std::string_view body, const std::string& label,
                                   const std::string& url);

// "```json\n{...}\n```" -> "{...}": the text inside the first fenced block, or `content` when
// it has none. Models often fence the JSON they are asked for.
std::string_view StripCodeFences(std::string_view content);

}  // namespace engram::llm

#endif  // ENGRAM_LLM_CHAT_CLIENT_H_
