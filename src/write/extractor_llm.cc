// The optional LLM fact extractor (see extractor_llm.h).
#include "write/extractor_llm.h"

#include <httplib.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "write/predicates.h"

namespace engram::write {
namespace {

constexpr std::string_view kInstructions =
    "You extract durable facts that a chat turn states about its speaker or about people the "
    "turn names. Reply with JSON only, no prose: {\"facts\": [{\"subject\": string, "
    "\"predicate\": snake_case string such as lives_in, works_at, likes, allergic_to, went_to, "
    "plans_to, uses, sister, \"object\": words copied verbatim from the turn, \"kind\": one of "
    "profile, preference, constraint, state, event, relation, technical, foresight, "
    "\"polarity\": \"+\" or \"-\"}]}. For first-person statements the subject is the speaker's "
    "name. Never add facts from questions, hypotheticals or hearsay. Reply {\"facts\": []} when "
    "the turn states no fact.";

// "```json\n{...}\n```" -> "{...}".
std::string_view StripFences(std::string_view content) {
  const std::size_t open = content.find("```");
  if (open == std::string_view::npos) return content;
  std::size_t start = content.find('\n', open);
  if (start == std::string_view::npos) return content;
  ++start;
  const std::size_t close = content.find("```", start);
  return content.substr(start, close == std::string_view::npos ? std::string_view::npos
                                                               : close - start);
}

bool IsSpeakerWord(const std::string& normalized, const FactSource& source) {
  return normalized == "i" || normalized == "me" || normalized == "myself" ||
         normalized == "speaker" || normalized == "user" ||
         normalized == NormalizeFactText(source.speaker);
}

}  // namespace

Status LlmExtractorOptions::Validate() const {
  if (model.empty()) return Status::InvalidArgument("llm extractor: model is required");
  if (base_url.rfind("http://", 0) != 0 && base_url.rfind("https://", 0) != 0) {
    return Status::InvalidArgument("llm extractor: base_url must start with http:// or https:// "
                                   "(got '" + base_url + "')");
  }
  if (timeout.count() <= 0) return Status::InvalidArgument("llm extractor: timeout must be > 0");
  if (max_facts == 0) return Status::InvalidArgument("llm extractor: max_facts must be > 0");
  return Status::Ok();
}

StatusOr<std::unique_ptr<LlmFactExtractor>> LlmFactExtractor::Create(LlmExtractorOptions options) {
  RETURN_IF_ERROR(options.Validate());
#ifndef CPPHTTPLIB_OPENSSL_SUPPORT
  if (options.base_url.rfind("https://", 0) == 0) {
    return Status::FailedPrecondition("llm extractor: " + options.base_url +
                                      " uses https, but this build's cpp-httplib has no OpenSSL "
                                      "support; use an http:// endpoint");
  }
#endif
  return std::unique_ptr<LlmFactExtractor>(new LlmFactExtractor(std::move(options)));
}

StatusOr<LlmExtraction> ParseLlmFacts(std::string_view content, const FactSource& source,
                                      std::size_t max_facts) {
  const nlohmann::json parsed =
      nlohmann::json::parse(StripFences(content), nullptr, /*allow_exceptions=*/false);
  const nlohmann::json* list = nullptr;
  if (parsed.is_array()) {
    list = &parsed;
  } else if (parsed.is_object() && parsed.contains("facts") && parsed["facts"].is_array()) {
    list = &parsed["facts"];
  }
  if (list == nullptr) {
    return Status::Unavailable("llm extractor: the reply is not a JSON list of facts: " +
                               std::string(content.substr(0, 120)));
  }
  LlmExtraction extraction;
  for (const nlohmann::json& entry : *list) {
    const auto text = [&](const char* field) -> std::string {
      if (!entry.is_object() || !entry.contains(field) || !entry[field].is_string()) return "";
      return entry[field].get<std::string>();
    };
    FactCandidate candidate;
    candidate.extractor = "llm";
    candidate.subject = text("subject");
    candidate.predicate = NormalizeFactText(text("predicate"));
    std::replace(candidate.predicate.begin(), candidate.predicate.end(), ' ', '_');
    candidate.object = text("object");
    StatusOr<FactKind> kind = ParseFactKind(text("kind"));
    if (candidate.subject.empty() || candidate.predicate.empty() || candidate.object.empty() ||
        !kind.ok()) {
      ++extraction.skipped;
      continue;
    }
    candidate.kind = *kind;
    candidate.negated = text("polarity") == "-";
    if (IsSpeakerWord(NormalizeFactText(candidate.subject), source)) {
      candidate.subject = source.speaker;
      candidate.subject_is_speaker = true;
    } else {
      candidate.subject_is_speaker = false;
    }
    candidate.single_valued = IsSingleValued(candidate.predicate);
    if (candidate.kind == FactKind::kEvent && source.times.size() == 1) {
      const text::TimeMention& time = source.times.front();
      candidate.time = FactTime{time.surface, time.from, time.to,
                                std::string(text::GranularityName(time.granularity))};
    }
    if (extraction.candidates.size() < max_facts) {
      extraction.candidates.push_back(std::move(candidate));
    }
  }
  return extraction;
}

StatusOr<LlmExtraction> LlmFactExtractor::Extract(const FactSource& source) const {
  const std::string& base = options_.base_url;
  const std::size_t authority = base.find("://") + 3;
  const std::size_t slash = base.find('/', authority);
  const std::string scheme_host_port = base.substr(0, slash);
  std::string path = slash == std::string::npos ? "" : base.substr(slash);
  while (!path.empty() && path.back() == '/') path.pop_back();
  path += "/chat/completions";
  const std::string url = scheme_host_port + path;

  const nlohmann::json request = {
      {"model", options_.model},
      {"temperature", 0},
      {"messages",
       {{{"role", "system"}, {"content", kInstructions}},
        {{"role", "user"},
         {"content", "Speaker: " + source.speaker + "\nDate: " +
                         FormatTimestamp(source.event_time) + "\nTurn: " + source.text}}}}};
  const std::string body = request.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  try {
    httplib::Client client(scheme_host_port);
    if (!client.is_valid()) return Status::InvalidArgument("llm extractor: cannot use " + url);
    const auto timeout = std::chrono::duration_cast<std::chrono::microseconds>(options_.timeout);
    client.set_connection_timeout(timeout);
    client.set_read_timeout(timeout);
    client.set_write_timeout(timeout);
    httplib::Headers headers = {{"Accept", "application/json"}};
    if (!options_.api_key.empty()) headers.emplace("Authorization", "Bearer " + options_.api_key);
    const httplib::Result result = client.Post(path, headers, body, "application/json");
    if (!result) {
      const httplib::Error error = result.error();
      if (error == httplib::Error::ConnectionTimeout || error == httplib::Error::Read) {
        return Status::DeadlineExceeded("llm extractor: " + url + " did not answer within " +
                                        std::to_string(options_.timeout.count()) + " ms (" +
                                        httplib::to_string(error) + ")");
      }
      return Status::Unavailable("llm extractor: cannot reach " + url + ": " +
                                 httplib::to_string(error));
    }
    if (result->status < 200 || result->status >= 300) {
      return Status::Unavailable("llm extractor: " + url + " answered HTTP " +
                                 std::to_string(result->status) + ": " +
                                 result->body.substr(0, 200));
    }
    const nlohmann::json reply =
        nlohmann::json::parse(result->body, nullptr, /*allow_exceptions=*/false);
    if (!reply.is_object() || !reply.contains("choices") || !reply["choices"].is_array() ||
        reply["choices"].empty() || !reply["choices"][0].is_object() ||
        !reply["choices"][0].contains("message") ||
        !reply["choices"][0]["message"].is_object() ||
        !reply["choices"][0]["message"].contains("content") ||
        !reply["choices"][0]["message"]["content"].is_string()) {
      return Status::Unavailable("llm extractor: " + url +
                                 " sent no choices[0].message.content: " +
                                 result->body.substr(0, 200));
    }
    return ParseLlmFacts(reply["choices"][0]["message"]["content"].get<std::string>(), source,
                         options_.max_facts);
  } catch (const std::exception& error) {
    return Status::Unavailable(std::string("llm extractor: ") + error.what());
  }
}

}  // namespace engram::write
