// The optional LLM fact extractor (DESIGN §4 step 4: "an optional LLM extractor produces
// candidates too"): asks an OpenAI-compatible chat-completions endpoint (Ollama, llama.cpp
// server, vLLM, a hosted API) for the facts a turn states, as JSON, and returns them as
// candidates. It is off by default ([write] llm_facts) and never trusted: every candidate goes
// through the same validator as the rule extractor's (validator.h), so an invented anchor, a
// paraphrased object or a fact about someone the turn does not name is rejected.
//
// Request: POST base_url + "/chat/completions" with {"model", "temperature": 0, "messages":
// [system instructions, the turn with its speaker and date]}. Expected reply content: a JSON
// object {"facts": [{"subject", "predicate", "object", "kind", "polarity"}]} (a bare array, or
// either inside ``` fences, is accepted too). Entries missing a field or of the wrong type are
// skipped and counted; a reply that is not such JSON at all is an error.
//
//   LlmExtractorOptions options;
//   options.model = "qwen2.5:7b-instruct";
//   ASSIGN_OR_RETURN(auto extractor, LlmFactExtractor::Create(options));
//   ASSIGN_OR_RETURN(LlmExtraction extraction, extractor->Extract(source));
//
// The HTTP and JSON plumbing is llm::ChatClient's (llm/chat_client.h); this file owns the
// prompt and the reading of the facts.
//
// Thread-safety: immutable after Create; each Extract call uses its own connection.
#ifndef ENGRAM_WRITE_EXTRACTOR_LLM_H_
#define ENGRAM_WRITE_EXTRACTOR_LLM_H_

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "engram/status.h"
#include "llm/chat_client.h"
#include "write/extractor.h"

namespace engram::write {

struct LlmExtractorOptions {
  // Endpoint prefix; requests go to base_url + "/chat/completions". Default: Ollama here.
  std::string base_url = "http://127.0.0.1:11434/v1";
  // Model name sent in every request. Required.
  std::string model;
  // Sent as "Authorization: Bearer <key>" when not empty. Default: none.
  std::string api_key;
  // Time allowed to connect, to send the request and to wait for the reply. Default: 60 s.
  std::chrono::milliseconds timeout{60000};
  // Candidates kept per turn at most (the rest are dropped). Default: 20.
  std::size_t max_facts = 20;

  // InvalidArgument naming the first bad field.
  Status Validate() const;
};

struct LlmExtraction {
  std::vector<FactCandidate> candidates;  // extractor "llm", no span
  std::size_t skipped = 0;                // malformed entries of the reply
};

class LlmFactExtractor {
 public:
  // Validates the options; does not contact the server.
  static StatusOr<std::unique_ptr<LlmFactExtractor>> Create(LlmExtractorOptions options);

  // The candidates the model proposes for the turn. Subjects "I", "me" or the speaker's name
  // become the speaker. An event gets the turn's time expression when the turn has exactly one.
  // Errors: Unavailable (server unreachable, an HTTP error status, or a reply that is not the
  // expected JSON), DeadlineExceeded (timed out).
  StatusOr<LlmExtraction> Extract(const FactSource& source) const;

 private:
  LlmFactExtractor(LlmExtractorOptions options, std::unique_ptr<llm::ChatClient> client)
      : options_(std::move(options)), client_(std::move(client)) {}
  LlmExtractorOptions options_;
  std::unique_ptr<llm::ChatClient> client_;
};

// Parses the content of a chat-completions reply into candidates for `source` (exposed for
// tests). Unavailable when the content is not the expected JSON.
StatusOr<LlmExtraction> ParseLlmFacts(std::string_view content, const FactSource& source,
                                      std::size_t max_facts);

}  // namespace engram::write

#endif  // ENGRAM_WRITE_EXTRACTOR_LLM_H_
