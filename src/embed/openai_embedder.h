// OpenAiEmbedder: an Embedder backed by any OpenAI-compatible POST /v1/embeddings endpoint.
//
// For users with a stronger model than the built-in USE-lite (DESIGN §8): Ollama, llama.cpp
// server, vLLM, text-embeddings-inference or a hosted API. Texts go out in batches of
// `batch_size` as {"model", "input": [...], "encoding_format": "float"}; the reply's
// data[i].embedding (placed by data[i].index) is checked for count, dimension and finite numbers,
// then L2-normalised. 429 and 5xx replies, connection failures and timeouts are retried with
// exponential backoff (honouring Retry-After); other failures come back at once as a Status.
//
// http:// and https:// URLs work. https relies on cpp-httplib's OpenSSL support: Debian's
// libcpp-httplib is built with it, and its pkg-config file defines CPPHTTPLIB_OPENSSL_SUPPORT
// (which must be defined alike in every translation unit that includes httplib.h, as it changes
// class layouts: link PkgConfig targets from pkg-config, never include httplib.h bare). Server
// certificates are verified against the system's CA store. Without OpenSSL support an https URL
// is refused with FailedPrecondition.
//
//   OpenAiEmbedderOptions options;
//   options.base_url = "http://127.0.0.1:11434/v1";  // Ollama
//   options.model = "nomic-embed-text";
//   options.dimension = 768;
//   ASSIGN_OR_RETURN(auto embedder, OpenAiEmbedder::Create(options));
#ifndef ENGRAM_EMBED_OPENAI_EMBEDDER_H_
#define ENGRAM_EMBED_OPENAI_EMBEDDER_H_

#include <chrono>
#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "embed/embedder.h"
#include "engram/status.h"

namespace engram::embed {

struct OpenAiEmbedderOptions {
  // Endpoint prefix; requests go to base_url + "/embeddings". Default: Ollama on this machine.
  std::string base_url = "http://127.0.0.1:11434/v1";
  // Model name sent in every request. Required.
  std::string model;
  // Length of the vectors the model returns; replies of another length are rejected. Required.
  std::size_t dimension = 0;
  // Sent as "Authorization: Bearer <key>". Default (empty): $ENGRAM_EMBEDDINGS_API_KEY, else
  // $OPENAI_API_KEY, else no Authorization header.
  std::string api_key;
  // Time allowed to connect, to send a request and to wait for its reply. Default: 30 s.
  std::chrono::milliseconds timeout{30000};
  // Retries after a 429 or 5xx reply, a connection failure or a timeout. Default: 3.
  std::size_t max_retries = 3;
  // Wait before the first retry, doubled for each further one, capped at max_backoff. A reply's
  // Retry-After (seconds) is honoured up to max_backoff. Defaults: 500 ms and 8 s.
  std::chrono::milliseconds initial_backoff{500};
  std::chrono::milliseconds max_backoff{8000};
  // Texts per request. Default: 64.
  std::size_t batch_size = 64;
  // Also send "dimensions": dimension (for models that can shorten their output, such as
  // text-embedding-3-*; other servers may reject the field). Default: false.
  bool send_dimensions = false;
  // The embedder's model_id(). Default (empty): "openai:<model>".
  std::string model_id;

  // InvalidArgument naming the first bad field.
  Status Validate() const;
};

// Thread-safety: immutable after Create; each Embed call uses its own connection, so concurrent
// calls are safe. Never throws: exceptions from JSON or HTTP handling become Status values.
class OpenAiEmbedder final : public Embedder {
 public:
  // Validates the options (InvalidArgument; FailedPrecondition for an https URL when built without
  // OpenSSL). Does not contact the server.
  static StatusOr<std::unique_ptr<OpenAiEmbedder>> Create(OpenAiEmbedderOptions options);

  std::string model_id() const override;
  std::size_t dimension() const override { return options_.dimension; }

  // Errors: Unavailable (server unreachable, 429/5xx after all retries, or a malformed reply),
  // DeadlineExceeded (timed out on the last attempt), FailedPrecondition (wrong vector dimension,
  // or 401/403: check the API key), NotFound (404: wrong base_url or model), InvalidArgument
  // (another 4xx, e.g. an input the model refuses). Messages include the URL and the server's
  // error text.
  StatusOr<std::vector<std::vector<float>>> Embed(std::span<const std::string> texts) override;

 private:
  struct Endpoint {
    bool https = false;
    std::string host;
    int port = 80;
    std::string path;  // e.g. "/v1/embeddings"
  };

  OpenAiEmbedder(OpenAiEmbedderOptions options, Endpoint endpoint)
      : options_(std::move(options)), endpoint_(std::move(endpoint)) {}

  OpenAiEmbedderOptions options_;
  Endpoint endpoint_;
};

}  // namespace engram::embed

#endif  // ENGRAM_EMBED_OPENAI_EMBEDDER_H_
