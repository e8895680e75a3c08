// The chat-completions client (see chat_client.h).
#include "llm/chat_client.h"

#include <httplib.h>

#include <nlohmann/json.hpp>
#include <utility>

namespace engram::llm {
namespace {

bool StartsWith(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

// Error bodies are quoted in messages up to this many bytes.
constexpr std::size_t kQuotedBody = 200;

std::size_t CountField(const nlohmann::json& usage, const char* field) {
  const auto found = usage.find(field);
  if (found == usage.end() || !found->is_number_unsigned()) return 0;
  return found->get<std::size_t>();
}

}  // namespace

Status ChatClientOptions::Validate() const {
  if (model.empty()) return Status::InvalidArgument(label + ": model is required");
  if (!StartsWith(base_url, "http://") && !StartsWith(base_url, "https://")) {
    return Status::InvalidArgument(label + ": base_url must start with http:// or https:// (got '" +
                                   base_url + "')");
  }
  const std::size_t authority = base_url.find("://") + 3;
  if (authority >= base_url.size() || base_url[authority] == '/') {
    return Status::InvalidArgument(label + ": base_url names no host (got '" + base_url + "')");
  }
  if (timeout.count() <= 0) return Status::InvalidArgument(label + ": timeout must be > 0");
  if (max_response_bytes == 0) {
    return Status::InvalidArgument(label + ": max_response_bytes must be > 0");
  }
  return Status::Ok();
}

ChatClient::ChatClient(ChatClientOptions options, std::string scheme_host_port, std::string path)
    : options_(std::move(options)),
      scheme_host_port_(std::move(scheme_host_port)),
      path_(std::move(path)),
      url_(scheme_host_port_ + path_) {}

StatusOr<std::unique_ptr<ChatClient>> ChatClient::Create(ChatClientOptions options) {
  RETURN_IF_ERROR(options.Validate());
#ifndef CPPHTTPLIB_OPENSSL_SUPPORT
  if (StartsWith(options.base_url, "https://")) {
    return Status::FailedPrecondition(options.label + ": " + options.base_url +
                                      " uses https, but this build's cpp-httplib has no OpenSSL "
                                      "support; use an http:// endpoint (or a local proxy)");
  }
#endif
  const std::string& base = options.base_url;
  const std::size_t authority = base.find("://") + 3;
  const std::size_t slash = base.find('/', authority);
  std::string scheme_host_port = base.substr(0, slash);
  std::string path = slash == std::string::npos ? "" : base.substr(slash);
  while (!path.empty() && path.back() == '/') path.pop_back();
  path += "/chat/completions";
  {
    httplib::Client probe(scheme_host_port);
    if (!probe.is_valid()) {
      return Status::InvalidArgument(options.label + ": cannot use " + base +
                                     " (not a valid http(s) address)");
    }
  }
  return std::unique_ptr<ChatClient>(
      new ChatClient(std::move(options), std::move(scheme_host_port), std::move(path)));
}

StatusOr<ChatReply> ParseChatReply(std::string_view body, const std::string& label,
                                   const std::string& url) {
  const nlohmann::json reply = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  const nlohmann::json* content = nullptr;
  const nlohmann::json* choice = nullptr;
  if (reply.is_object() && reply.contains("choices") && reply["choices"].is_array() &&
      !reply["choices"].empty() && reply["choices"][0].is_object()) {
    choice = &reply["choices"][0];
    const auto message = choice->find("message");
    if (message != choice->end() && message->is_object()) {
      const auto found = message->find("content");
      if (found != message->end() && found->is_string()) content = &*found;
    }
  }
  if (content == nullptr) {
    return Status::Unavailable(label + ": " + url + " sent no choices[0].message.content: " +
                               std::string(body.substr(0, kQuotedBody)));
  }
  ChatReply result;
  result.content = content->get<std::string>();
  if (const auto finish = choice->find("finish_reason");
      finish != choice->end() && finish->is_string()) {
    result.finish_reason = finish->get<std::string>();
  }
  if (const auto usage = reply.find("usage"); usage != reply.end() && usage->is_object()) {
    result.usage.prompt_tokens = CountField(*usage, "prompt_tokens");
    result.usage.completion_tokens = CountField(*usage, "completion_tokens");
    result.usage.reported =
        usage->contains("prompt_tokens") || usage->contains("completion_tokens");
  }
  return result;
}

StatusOr<ChatReply> ChatClient::Complete(const ChatRequest& request) const {
  nlohmann::json messages = nlohmann::json::array();
  for (const ChatMessage& message : request.messages) {
    messages.push_back({{"role", message.role}, {"content", message.content}});
  }
  nlohmann::json body = {{"model", options_.model},
                         {"messages", std::move(messages)},
                         {"temperature", request.temperature}};
  if (request.max_tokens.has_value()) body["max_tokens"] = *request.max_tokens;
  if (request.seed.has_value()) body["seed"] = *request.seed;
  const std::string& label = options_.label;
  try {
    httplib::Client client(scheme_host_port_);
    const auto timeout = std::chrono::duration_cast<std::chrono::microseconds>(options_.timeout);
    client.set_connection_timeout(timeout);
    client.set_read_timeout(timeout);
    client.set_write_timeout(timeout);

    httplib::Request http_request;
    http_request.method = "POST";
    http_request.path = path_;
    http_request.headers = {{"Accept", "application/json"}};
    if (!options_.api_key.empty()) {
      http_request.headers.emplace("Authorization", "Bearer " + options_.api_key);
    }
    http_request.headers.emplace("Content-Type", "application/json");
    http_request.body = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    std::string received;
    bool too_large = false;
    http_request.content_receiver = [&](const char* data, std::size_t length, std::uint64_t,
                                        std::uint64_t) {
      if (received.size() + length > options_.max_response_bytes) {
        too_large = true;
        return false;
      }
      received.append(data, length);
      return true;
    };
    const httplib::Result result = client.send(http_request);
    if (too_large) {
      return Status::Unavailable(label + ": " + url_ + " sent a reply larger than " +
                                 std::to_string(options_.max_response_bytes) + " bytes");
    }
    if (!result) {
      const httplib::Error error = result.error();
      if (error == httplib::Error::ConnectionTimeout || error == httplib::Error::Read) {
        return Status::DeadlineExceeded(label + ": " + url_ + " did not answer within " +
                                        std::to_string(options_.timeout.count()) + " ms (" +
                                        httplib::to_string(error) + ")");
      }
      return Status::Unavailable(label + ": cannot reach " + url_ + ": " +
                                 httplib::to_string(error));
    }
    if (result->status < 200 || result->status >= 300) {
      return Status::Unavailable(label + ": " + url_ + " answered HTTP " +
                                 std::to_string(result->status) + ": " +
                                 received.substr(0, kQuotedBody));
    }
    return ParseChatReply(received, label, url_);
  } catch (const std::exception& error) {
    return Status::Unavailable(label + ": " + url_ + ": " + error.what());
  }
}

std::string_view StripCodeFences(std::string_view content) {
  const std::size_t open = content.find("```");
  if (open == std::string_view::npos) return content;
  std::size_t start = content.find('\n', open);
  if (start == std::string_view::npos) return content;
  ++start;
  const std::size_t close = content.find("```", start);
  return content.substr(start,
                        close == std::string_view::npos ? std::string_view::npos : close - start);
}

}  // namespace engram::llm
