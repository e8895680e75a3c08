// OpenAiEmbedder: HTTP client for OpenAI-compatible /v1/embeddings (see openai_embedder.h).
#include "embed/openai_embedder.h"

#include <httplib.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <exception>
#include <new>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>
#include <utility>

namespace engram::embed {
namespace {

using Clock = std::chrono::steady_clock;
constexpr std::size_t kMaxErrorExcerpt = 300;

std::string Excerpt(std::string_view text) {
  if (text.size() <= kMaxErrorExcerpt) return std::string(text);
  return std::string(text.substr(0, kMaxErrorExcerpt)) + "...";
}

// The server's own error message: {"error": {"message": ...}} (OpenAI), {"error": "..."} (Ollama),
// else the start of the body.
std::string ServerMessage(const std::string& body) {
  try {
    const nlohmann::json reply = nlohmann::json::parse(body);
    if (reply.is_object() && reply.contains("error")) {
      const nlohmann::json& error = reply["error"];
      if (error.is_string()) return Excerpt(error.get<std::string>());
      if (error.is_object() && error.contains("message") && error["message"].is_string()) {
        return Excerpt(error["message"].get<std::string>());
      }
    }
  } catch (const std::exception&) {
    // not JSON: fall through to the raw body
  }
  return Excerpt(body);
}

std::string EnvOrEmpty(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? std::string() : std::string(value);
}

}  // namespace

Status OpenAiEmbedderOptions::Validate() const {
  if (base_url.empty()) return Status::InvalidArgument("openai embedder: base_url is empty");
  if (model.empty()) return Status::InvalidArgument("openai embedder: model is empty");
  if (dimension == 0) return Status::InvalidArgument("openai embedder: dimension must be > 0");
  if (timeout.count() <= 0) return Status::InvalidArgument("openai embedder: timeout must be > 0");
  if (batch_size == 0) return Status::InvalidArgument("openai embedder: batch_size must be > 0");
  if (initial_backoff.count() < 0 || max_backoff.count() < 0) {
    return Status::InvalidArgument("openai embedder: backoff durations must be >= 0");
  }
  return Status::Ok();
}

StatusOr<std::unique_ptr<OpenAiEmbedder>> OpenAiEmbedder::Create(OpenAiEmbedderOptions options) {
  RETURN_IF_ERROR(options.Validate());
  std::string_view url = options.base_url;
  constexpr std::string_view kHttp = "http://";
  constexpr std::string_view kHttps = "https://";
  Endpoint endpoint;
  if (url.substr(0, kHttps.size()) == kHttps) {
#ifdef CPPHTTPLIB_OPENSSL_SUPPORT
    endpoint.https = true;
    endpoint.port = 443;
    url.remove_prefix(kHttps.size());
#else
    return Status::FailedPrecondition(
        "openai embedder: " + options.base_url +
        " uses https, but this engram build's cpp-httplib has no OpenSSL support; use an "
        "http:// endpoint or a local TLS-terminating proxy");
#endif
  } else if (url.substr(0, kHttp.size()) == kHttp) {
    url.remove_prefix(kHttp.size());
  } else {
    return Status::InvalidArgument(
        "openai embedder: base_url must start with http:// or "
        "https:// (got '" +
        options.base_url + "')");
  }
  const std::size_t slash = url.find('/');
  std::string_view authority = url.substr(0, slash);
  std::string path = slash == std::string_view::npos ? "" : std::string(url.substr(slash));
  while (!path.empty() && path.back() == '/') path.pop_back();
  endpoint.path = path + "/embeddings";
  std::string_view port_text;
  if (!authority.empty() && authority.front() == '[') {  // IPv6 literal: [::1]:8080
    const std::size_t close = authority.find(']');
    if (close == std::string_view::npos) {
      return Status::InvalidArgument("openai embedder: bad host in base_url " + options.base_url);
    }
    endpoint.host = std::string(authority.substr(1, close - 1));
    if (close + 1 < authority.size() && authority[close + 1] == ':') {
      port_text = authority.substr(close + 2);
    }
  } else {
    const std::size_t colon = authority.rfind(':');
    endpoint.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) port_text = authority.substr(colon + 1);
  }
  if (endpoint.host.empty()) {
    return Status::InvalidArgument("openai embedder: no host in base_url " + options.base_url);
  }
  if (!port_text.empty()) {
    int port = 0;
    for (char digit : port_text) {
      if (digit < '0' || digit > '9' || port > 65535) {
        return Status::InvalidArgument("openai embedder: bad port in base_url " + options.base_url);
      }
      port = port * 10 + (digit - '0');
    }
    if (port <= 0 || port > 65535) {
      return Status::InvalidArgument("openai embedder: bad port in base_url " + options.base_url);
    }
    endpoint.port = port;
  }
  if (options.api_key.empty()) options.api_key = EnvOrEmpty("ENGRAM_EMBEDDINGS_API_KEY");
  if (options.api_key.empty()) options.api_key = EnvOrEmpty("OPENAI_API_KEY");
  return std::unique_ptr<OpenAiEmbedder>(
      new OpenAiEmbedder(std::move(options), std::move(endpoint)));
}

std::string OpenAiEmbedder::model_id() const {
  return options_.model_id.empty() ? "openai:" + options_.model : options_.model_id;
}

namespace {

// Parses and checks one reply: `count` embeddings of `dimension` finite numbers, placed by index.
StatusOr<std::vector<std::vector<float>>> ParseReply(const std::string& body, std::size_t count,
                                                     std::size_t dimension,
                                                     const std::string& url) {
  const std::string invalid = "invalid reply from the embeddings server at " + url + ": ";
  nlohmann::json reply;
  try {
    reply = nlohmann::json::parse(body);
  } catch (const nlohmann::json::exception& error) {
    return Status::Unavailable(invalid + "not JSON (" + error.what() + ")");
  }
  if (!reply.is_object() || !reply.contains("data") || !reply["data"].is_array()) {
    return Status::Unavailable(invalid + "no \"data\" array");
  }
  const nlohmann::json& data = reply["data"];
  if (data.size() != count) {
    return Status::Unavailable(invalid + std::to_string(data.size()) + " embeddings for " +
                               std::to_string(count) + " inputs");
  }
  std::vector<std::vector<float>> vectors(count);
  std::vector<bool> filled(count, false);
  for (std::size_t position = 0; position < count; ++position) {
    const nlohmann::json& item = data[position];
    if (!item.is_object() || !item.contains("embedding") || !item["embedding"].is_array()) {
      return Status::Unavailable(invalid + "data[" + std::to_string(position) +
                                 "] has no \"embedding\" array");
    }
    std::size_t index = position;
    if (item.contains("index")) {
      if (!item["index"].is_number_integer() || item["index"].get<std::int64_t>() < 0 ||
          item["index"].get<std::uint64_t>() >= count) {
        return Status::Unavailable(invalid + "data[" + std::to_string(position) +
                                   "] has a bad \"index\"");
      }
      index = item["index"].get<std::size_t>();
    }
    if (filled[index]) {
      return Status::Unavailable(invalid + "two embeddings for input " + std::to_string(index));
    }
    const nlohmann::json& embedding = item["embedding"];
    if (embedding.size() != dimension) {
      return Status::FailedPrecondition(
          "the embeddings server at " + url + " returned " + std::to_string(embedding.size()) +
          "-dimensional vectors but the embedder is configured for dimension " +
          std::to_string(dimension) + "; fix the configured dimension or model");
    }
    std::vector<float>& vector = vectors[index];
    vector.reserve(dimension);
    for (const nlohmann::json& value : embedding) {
      if (!value.is_number() || !std::isfinite(value.get<double>())) {
        return Status::Unavailable(invalid + "embedding " + std::to_string(index) +
                                   " contains a value that is not a finite number");
      }
      vector.push_back(value.get<float>());
    }
    if (!L2Normalize(vector)) {
      return Status::Unavailable(invalid + "embedding " + std::to_string(index) + " is all zeros");
    }
    filled[index] = true;
  }
  return vectors;
}

}  // namespace

StatusOr<std::vector<std::vector<float>>> OpenAiEmbedder::Embed(
    std::span<const std::string> texts) {
  std::vector<std::vector<float>> vectors;
  if (texts.empty()) return vectors;
  const bool ipv6 = endpoint_.host.find(':') != std::string::npos;
  const std::string scheme_host_port = std::string(endpoint_.https ? "https://" : "http://") +
                                       (ipv6 ? "[" + endpoint_.host + "]" : endpoint_.host) + ":" +
                                       std::to_string(endpoint_.port);
  const std::string url = scheme_host_port + endpoint_.path;
  try {
    vectors.reserve(texts.size());
    httplib::Client client(scheme_host_port);
    if (!client.is_valid()) {
      return Status::InvalidArgument("openai embedder: cannot use " + url);
    }
    const auto timeout = std::chrono::duration_cast<std::chrono::microseconds>(options_.timeout);
    client.set_connection_timeout(timeout);
    client.set_read_timeout(timeout);
    client.set_write_timeout(timeout);
    client.set_keep_alive(true);
    httplib::Headers headers = {{"Accept", "application/json"}};
    if (!options_.api_key.empty()) {
      headers.emplace("Authorization", "Bearer " + options_.api_key);
    }

    for (std::size_t batch_start = 0; batch_start < texts.size();
         batch_start += options_.batch_size) {
      const std::size_t batch_count = std::min(options_.batch_size, texts.size() - batch_start);
      nlohmann::json request = {{"model", options_.model},
                                {"input", nlohmann::json::array()},
                                {"encoding_format", "float"}};
      for (std::size_t index = 0; index < batch_count; ++index) {
        request["input"].push_back(texts[batch_start + index]);
      }
      if (options_.send_dimensions) request["dimensions"] = options_.dimension;
      // Invalid UTF-8 in a text is sent as U+FFFD rather than failing the batch.
      const std::string body =
          request.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);

      std::chrono::milliseconds backoff = options_.initial_backoff;
      Status last_error;
      std::optional<std::vector<std::vector<float>>> batch_vectors;
      for (std::size_t attempt = 0; attempt <= options_.max_retries; ++attempt) {
        if (attempt > 0) {
          std::this_thread::sleep_for(backoff);
          backoff = std::min(backoff * 2, options_.max_backoff);
        }
        const Clock::time_point started = Clock::now();
        const httplib::Result result =
            client.Post(endpoint_.path, headers, body, "application/json");
        const std::string attempts = " (attempt " + std::to_string(attempt + 1) + " of " +
                                     std::to_string(options_.max_retries + 1) + ")";
        if (!result) {
          const httplib::Error error = result.error();
          if (error == httplib::Error::ConnectionTimeout ||
              ((error == httplib::Error::Read || error == httplib::Error::Write) &&
               Clock::now() - started >= options_.timeout)) {
            last_error = Status::DeadlineExceeded(
                "embeddings request to " + url + " timed out after " +
                std::to_string(options_.timeout.count()) + " ms" + attempts);
          } else {
            last_error = Status::Unavailable("cannot reach the embeddings server at " + url + ": " +
                                             httplib::to_string(error) + attempts);
          }
          continue;
        }
        const int http_status = result->status;
        if (http_status >= 200 && http_status < 300) {
          ASSIGN_OR_RETURN(auto parsed,
                           ParseReply(result->body, batch_count, options_.dimension, url));
          batch_vectors = std::move(parsed);
          break;
        }
        const std::string detail = "embeddings server at " + url + " answered HTTP " +
                                   std::to_string(http_status) + ": " + ServerMessage(result->body);
        if (http_status == 429 || http_status >= 500) {
          last_error = Status::Unavailable(detail + attempts);
          if (result->has_header("Retry-After")) {
            const std::string retry_after = result->get_header_value("Retry-After");
            char* end = nullptr;
            const long seconds = std::strtol(retry_after.c_str(), &end, 10);
            if (end != retry_after.c_str() && seconds >= 0) {
              backoff = std::min(options_.max_backoff,
                                 std::max(backoff, std::chrono::milliseconds(seconds * 1000)));
            }
          }
          continue;
        }
        if (http_status == 401 || http_status == 403) {
          return Status::FailedPrecondition(
              detail + " (check the API key: ENGRAM_EMBEDDINGS_API_KEY or OPENAI_API_KEY)");
        }
        if (http_status == 404) {
          return Status::NotFound(detail + " (check base_url and model)");
        }
        return Status::InvalidArgument(detail);
      }
      if (!batch_vectors.has_value()) return last_error;
      for (std::vector<float>& vector : *batch_vectors) vectors.push_back(std::move(vector));
    }
    return vectors;
  } catch (const std::bad_alloc&) {
    return Status::ResourceExhausted("out of memory while calling the embeddings server at " + url);
  } catch (const std::exception& error) {
    return Status::Unavailable("embeddings request to " + url + " failed: " + error.what());
  }
}

}  // namespace engram::embed
