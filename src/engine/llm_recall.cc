#include "engine/llm_recall.h"

#include <chrono>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <set>
#include <utility>

#include "core/utf8.h"
#include "read/packing.h"

namespace engram {
namespace {

using Json = nlohmann::json;

constexpr std::string_view kCheckSystem =
    "You check whether memories retrieved for a question contain its answer. Reply with one JSON "
    "object and nothing else: {\"sufficient\": true or false, \"queries\": [strings], "
    "\"keywords\": [strings]}. \"sufficient\" is true only when the memories state the answer. "
    "When it is false, \"queries\" holds at most {Q} short search questions that would find the "
    "missing evidence (split a question with several parts or hops into one question per part, "
    "using the names and things the memories mention), and \"keywords\" at most {K} words the "
    "answer or its evidence is likely to contain. Do not answer the question.";

constexpr std::string_view kRerankSystem =
    "You order memories by how directly they answer a question. Reply with one JSON object and "
    "nothing else: {\"order\": [ids]}, the ids of the memories below, the most useful first, "
    "each at most once.";

std::string Replace(std::string text, std::string_view from, const std::string& to) {
  const std::size_t at = text.find(from);
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// A JSON object from a model reply, or InvalidArgument.
StatusOr<Json> ParseObject(std::string_view content) {
  const std::string_view body = llm::StripCodeFences(content);
  Json json = Json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) return Status::InvalidArgument("the reply is not JSON");
  if (!json.is_object()) return Status::InvalidArgument("the reply is not a JSON object");
  return json;
}

// The array of strings at `key` (absent = empty), each 1 to max_bytes bytes and not blank, at
// most max_count of them.
StatusOr<std::vector<std::string>> StringList(const Json& object, const std::string& key,
                                              std::size_t max_count, std::size_t max_bytes) {
  std::vector<std::string> values;
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) return values;
  if (!it->is_array()) return Status::InvalidArgument("\"" + key + "\" is not an array");
  if (it->size() > max_count) {
    return Status::InvalidArgument("\"" + key + "\" has " + std::to_string(it->size()) +
                                   " entries; at most " + std::to_string(max_count) +
                                   " are allowed");
  }
  for (const Json& value : *it) {
    if (!value.is_string()) {
      return Status::InvalidArgument("\"" + key + "\" holds a value that is not a string");
    }
    std::string text = value.get<std::string>();
    if (core::IsBlank(text))
      return Status::InvalidArgument("\"" + key + "\" holds an empty string");
    if (text.size() > max_bytes || !core::IsValidUtf8(text)) {
      return Status::InvalidArgument("\"" + key + "\" holds a string longer than " +
                                     std::to_string(max_bytes) + " bytes");
    }
    values.push_back(std::move(text));
  }
  return values;
}

std::string Quoted(std::string_view text) { return "'" + std::string(text) + "'"; }

}  // namespace

StatusOr<LlmCheck> ParseLlmCheck(std::string_view content, std::size_t max_queries,
                                 std::size_t max_keywords) {
  ASSIGN_OR_RETURN(const Json object, ParseObject(content));
  const auto sufficient = object.find("sufficient");
  if (sufficient == object.end() || !sufficient->is_boolean()) {
    return Status::InvalidArgument("\"sufficient\" is missing or not true/false");
  }
  LlmCheck check;
  check.sufficient = sufficient->get<bool>();
  ASSIGN_OR_RETURN(check.queries, StringList(object, "queries", max_queries, kMaxLlmQueryBytes));
  ASSIGN_OR_RETURN(check.keywords,
                   StringList(object, "keywords", max_keywords, kMaxLlmKeywordBytes));
  return check;
}

StatusOr<std::vector<std::string>> ParseLlmRerank(std::string_view content,
                                                  std::span<const std::string> candidates) {
  ASSIGN_OR_RETURN(const Json object, ParseObject(content));
  const auto order = object.find("order");
  if (order == object.end() || !order->is_array() || order->empty()) {
    return Status::InvalidArgument("\"order\" is missing, not an array or empty");
  }
  const std::set<std::string> known(candidates.begin(), candidates.end());
  std::set<std::string> seen;
  std::vector<std::string> result;
  for (const Json& value : *order) {
    if (!value.is_string()) {
      return Status::InvalidArgument("\"order\" holds a value that is not a string");
    }
    const std::string id = value.get<std::string>();
    if (!known.contains(id)) {
      return Status::InvalidArgument("\"order\" names " + Quoted(id.substr(0, 64)) +
                                     ", which is not one of the candidates");
    }
    if (!seen.insert(id).second) {
      return Status::InvalidArgument("\"order\" names " + Quoted(id) + " twice");
    }
    result.push_back(id);
  }
  for (const std::string& id : candidates) {
    if (!seen.contains(id)) result.push_back(id);
  }
  return result;
}

std::vector<RecallItem> InterleaveByRank(const std::vector<std::vector<RecallItem>>& lists,
                                         const std::vector<std::string>& found_via) {
  std::vector<RecallItem> merged;
  std::set<std::string> seen;
  std::size_t longest = 0;
  for (const auto& list : lists) longest = std::max(longest, list.size());
  for (std::size_t rank = 0; rank < longest; ++rank) {
    for (std::size_t list = 0; list < lists.size(); ++list) {
      if (rank >= lists[list].size()) continue;
      const RecallItem& item = lists[list][rank];
      if (!seen.insert(item.id).second) continue;
      merged.push_back(item);
      if (list > 0 && list < found_via.size()) {
        merged.back().adjustments.push_back(
            Adjustment{.name = "llm", .factor = 1.0, .detail = found_via[list], .bonus = 0});
      }
    }
  }
  return merged;
}

StatusOr<std::unique_ptr<LlmRecall>> LlmRecall::Create(const RecallConfig& config) {
  if (!config.llm_loop) return std::unique_ptr<LlmRecall>();
  if (config.llm_model.empty()) {
    return Status::InvalidArgument("[recall] llm_model is required when llm_loop = true");
  }
  llm::ChatClientOptions options;
  options.base_url = config.llm_base_url;
  options.model = config.llm_model;
  options.timeout = std::chrono::milliseconds(config.llm_timeout_ms);
  options.label = "llm recall";
  if (!config.llm_api_key_env.empty()) {
    if (const char* key = std::getenv(config.llm_api_key_env.c_str()); key != nullptr) {
      options.api_key = key;
    }
  }
  auto client = llm::ChatClient::Create(options);
  if (!client.ok()) {
    return Status(client.status().code(),
                  "[recall] llm_base_url / llm_model: " + client.status().message());
  }
  return std::unique_ptr<LlmRecall>(new LlmRecall(config, *std::move(client)));
}

LlmRecall::LlmRecall(const RecallConfig& config, std::unique_ptr<llm::ChatClient> client)
    : config_(config), client_(std::move(client)) {}

StatusOr<std::string> LlmRecall::Ask(const std::string& system, const std::string& user,
                                     LlmDiagnostics& diagnostics) const {
  llm::ChatRequest request;
  request.messages = {{"system", system}, {"user", user}};
  request.max_tokens = config_.llm_max_tokens;
  const auto started = std::chrono::steady_clock::now();
  StatusOr<llm::ChatReply> reply = client_->Complete(request);
  diagnostics.ms +=
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  ++diagnostics.calls;
  if (!reply.ok()) return reply.status();
  if (reply->usage.reported) {
    diagnostics.prompt_tokens += reply->usage.prompt_tokens;
    diagnostics.completion_tokens += reply->usage.completion_tokens;
  } else {
    ++diagnostics.usage_missing;
  }
  return std::move(reply->content);
}

ReadResult LlmRecall::Run(const std::string& question, ReadResult first, std::size_t k,
                          const RecallFn& recall) const {
  const auto started = std::chrono::steady_clock::now();
  ReadResult result = std::move(first);
  Diagnostics& diagnostics = result.diagnostics;
  LlmDiagnostics& llm = diagnostics.llm;
  llm.ran = true;
  auto fail = [&](std::string_view step, const Status& status) {
    llm.steps.push_back(std::string(step) + " failed: " + status.message());
    diagnostics.warnings.push_back("llm " + std::string(step) + " failed, " +
                                   "the deterministic result stands for it: " + status.message());
  };

  if (result.mode != "evidence") {
    llm.steps.push_back("skipped: the LLM loop works on evidence-mode contexts only");
    return result;
  }
  if (config_.llm_skip_sufficient && result.sufficiency.verdict == "sufficient") {
    llm.steps.push_back("skipped: the read path's verdict is sufficient");
    return result;
  }

  const std::string check_system =
      Replace(Replace(std::string(kCheckSystem), "{Q}", std::to_string(config_.llm_max_queries)),
              "{K}", std::to_string(config_.llm_max_keywords));
  std::set<std::string> asked = {question};
  for (std::size_t round = 0; round < config_.llm_rounds; ++round) {
    const std::string user = "Question: " + question + "\n\nMemories:\n" +
                             (result.context.empty() ? std::string("(none)") : result.context);
    StatusOr<std::string> content = Ask(check_system, user, llm);
    if (!content.ok()) {
      fail("check", content.status());
      break;
    }
    StatusOr<LlmCheck> check =
        ParseLlmCheck(*content, config_.llm_max_queries, config_.llm_max_keywords);
    if (!check.ok()) {
      fail("check", Status::InvalidArgument("malformed reply: " + check.status().message()));
      break;
    }
    llm.steps.push_back("check: " + std::string(check->sufficient ? "sufficient" : "insufficient") +
                        "; " + std::to_string(check->queries.size()) + " sub-questions, " +
                        std::to_string(check->keywords.size()) + " keywords");
    if (check->sufficient) break;

    // The follow-up questions: each sub-question, then the keywords as one query.
    std::vector<std::pair<std::string, std::string>> follow_ups;  // query, found-via text
    for (const std::string& query : check->queries) {
      follow_ups.emplace_back(query, "found via: LLM sub-question " + Quoted(query));
    }
    if (!check->keywords.empty()) {
      std::string joined;
      for (const std::string& keyword : check->keywords) {
        joined += (joined.empty() ? "" : " ") + keyword;
      }
      follow_ups.emplace_back(joined, "found via: LLM answer keywords " + Quoted(joined));
    }
    std::vector<std::vector<RecallItem>> lists = {result.items};
    std::vector<std::string> found_via = {""};
    std::set<std::string> known;
    for (const RecallItem& item : result.items) known.insert(item.id);
    std::size_t new_items = 0;
    for (const auto& [query, via] : follow_ups) {
      if (!asked.insert(query).second) continue;  // asked already, nothing new to find
      StatusOr<ReadResult> found = recall(query);
      if (!found.ok()) {
        fail("recall " + Quoted(query), found.status());
        continue;
      }
      std::size_t added = 0;
      for (const RecallItem& item : found->items) added += known.insert(item.id).second ? 1 : 0;
      llm.steps.push_back("recall " + Quoted(query) + ": " + std::to_string(added) + " new items");
      new_items += added;
      lists.push_back(std::move(found->items));
      found_via.push_back(via);
    }
    if (new_items == 0) break;

    // Pack the merged items again under the first recall's budget and item limit.
    read::PackResult packed = read::Pack(InterleaveByRank(lists, found_via),
                                         diagnostics.token_budget, k, read::PackOptions{});
    result.items = std::move(packed.items);
    result.context = std::move(packed.context);
    diagnostics.context_tokens = packed.context_tokens;
    diagnostics.dropped_by_budget = packed.dropped_by_budget;
    diagnostics.deduplicated = packed.deduplicated;
    diagnostics.unpacked = std::move(packed.unpacked);
  }

  if (config_.llm_rerank_top > 0 && result.items.size() >= 2) {
    const std::size_t top = std::min(config_.llm_rerank_top, result.items.size());
    std::vector<std::string> candidates;
    std::string user = "Question: " + question + "\n\nMemories:\n";
    for (std::size_t i = 0; i < top; ++i) {
      candidates.push_back(result.items[i].id);
      user += "[" + result.items[i].id + "] " + read::RenderItemBody(result.items[i]) + "\n";
    }
    StatusOr<std::string> content = Ask(std::string(kRerankSystem), user, llm);
    if (!content.ok()) {
      fail("rerank", content.status());
    } else if (StatusOr<std::vector<std::string>> order = ParseLlmRerank(*content, candidates);
               !order.ok()) {
      fail("rerank", Status::InvalidArgument("malformed reply: " + order.status().message()));
    } else {
      std::vector<RecallItem> reordered;
      for (const std::string& id : *order) {
        for (std::size_t i = 0; i < top; ++i) {
          if (result.items[i].id == id) reordered.push_back(std::move(result.items[i]));
        }
      }
      std::move(reordered.begin(), reordered.end(), result.items.begin());
      llm.steps.push_back("rerank: reordered the best " + std::to_string(top) + " items");
    }
  }

  diagnostics.timings.push_back(StageTiming{
      .stage = "llm",
      .ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started)
                .count()});
  return result;
}

}  // namespace engram
