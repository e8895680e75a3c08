// llm_recall: the optional LLM loop of recall ([recall] llm_loop, docs/LLM_RECALL.md), off by
// default. Engine::Recall runs the deterministic recall first and hands its result here; the
// loop asks an OpenAI-compatible chat-completions endpoint (llm/chat_client.h) whether the
// packed context answers the question and, when not, for sub-questions and answer keywords,
// recalls those too, and merges what they find into the result. Optionally the model reorders
// the best items. Bounded: at most [recall] llm_rounds check requests plus one rerank request.
//
// Every model output is validated before it is used: the check reply must be one JSON object
// of the documented shape within the configured counts and lengths, a rerank may only name
// candidate ids, each once. Item text always comes from memory, never from the model. A failed
// request (endpoint down, HTTP error, timeout) or a reply that fails validation leaves the
// result as it was, plus one warning naming the step: never an error.
//
// Merge: the first recall's packed items and each follow-up recall's packed items are
// interleaved by rank (the first recall's item of each rank before the follow-ups' of the same
// rank, the follow-ups in the order the model gave them), duplicates by id dropped, and packed
// again in that order under the same token budget and item limit (read::Pack, rank packing, no
// speaker blocks or excerpts beyond those the recalls made). An item only a follow-up found
// carries the adjustment "llm" saying which sub-question found it. The sufficiency verdict stays
// the read path's judgement of the first recall; the model's is in Diagnostics::llm.
//
// Thread-safety: immutable after Create; Run may be called from several threads at once.
#ifndef ENGRAM_ENGINE_LLM_RECALL_H_
#define ENGRAM_ENGINE_LLM_RECALL_H_

#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engram/config.h"
#include "engram/read_result.h"
#include "engram/status.h"
#include "llm/chat_client.h"

namespace engram {

// Bounds of one sub-question and of one keyword, in bytes.
inline constexpr std::size_t kMaxLlmQueryBytes = 300;
inline constexpr std::size_t kMaxLlmKeywordBytes = 64;

// What the check request returned, validated.
struct LlmCheck {
  bool sufficient = false;
  std::vector<std::string> queries;
  std::vector<std::string> keywords;
};

// Parses the check reply: one JSON object (optionally in a code fence) with a boolean
// "sufficient" and optional arrays of strings "queries" (at most max_queries, each 1 to
// kMaxLlmQueryBytes bytes, not blank) and "keywords" (at most max_keywords, each 1 to
// kMaxLlmKeywordBytes bytes, not blank); other keys are ignored. InvalidArgument saying what is
// wrong otherwise.
StatusOr<LlmCheck> ParseLlmCheck(std::string_view content, std::size_t max_queries,
                                 std::size_t max_keywords);

// Parses the rerank reply: one JSON object {"order": [ids]} naming only ids of `candidates`,
// each at most once, at least one. The result is the full new order of `candidates`: the named
// ids in the model's order, then the others in their old order. InvalidArgument otherwise.
StatusOr<std::vector<std::string>> ParseLlmRerank(std::string_view content,
                                                  std::span<const std::string> candidates);

// The merge order (see the file comment): `lists` interleaved by rank, duplicates by id dropped.
// `found_via[i]` is the explanation added to an item first found in lists[i] (i > 0); lists[0]'s
// items are taken as they are.
std::vector<RecallItem> InterleaveByRank(const std::vector<std::vector<RecallItem>>& lists,
                                         const std::vector<std::string>& found_via);

class LlmRecall {
 public:
  // One more recall of the same scope with the same options for another question (the loop
  // does not run in it).
  using RecallFn = std::function<StatusOr<ReadResult>(const std::string& question)>;

  // Null when [recall] llm_loop is off. InvalidArgument naming the [recall] key when the
  // endpoint settings are unusable; the API key is read from the environment variable
  // llm_api_key_env names. Does not contact the endpoint.
  static StatusOr<std::unique_ptr<LlmRecall>> Create(const RecallConfig& config);

  // Runs the loop over `first`, the deterministic recall of `question` with item limit `k`;
  // returns the result to give back, with Diagnostics::llm filled in. Never fails.
  ReadResult Run(const std::string& question, ReadResult first, std::size_t k,
                 const RecallFn& recall) const;

 private:
  LlmRecall(const RecallConfig& config, std::unique_ptr<llm::ChatClient> client);

  // One request; counts it, its tokens and its time in `diagnostics`.
  StatusOr<std::string> Ask(const std::string& system, const std::string& user,
                            LlmDiagnostics& diagnostics) const;

  RecallConfig config_;
  std::unique_ptr<llm::ChatClient> client_;
};

}  // namespace engram

#endif  // ENGRAM_ENGINE_LLM_RECALL_H_
