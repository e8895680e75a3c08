// The optional LLM fact extractor (see extractor_llm.h).
#include "write/extractor_llm.h"

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

bool IsSpeakerWord(const std::string& normalized, const FactSource& source) {
  return normalized == "i" || normalized == "me" || normalized == "myself" ||
         normalized == "speaker" || normalized == "user" ||
         normalized == NormalizeFactText(source.speaker);
}

llm::ChatClientOptions ClientOptions(const LlmExtractorOptions& options) {
  llm::ChatClientOptions client;
  client.base_url = options.base_url;
  client.model = options.model;
  client.api_key = options.api_key;
  client.timeout = options.timeout;
  client.label = "llm extractor";
  return client;
}

}  // namespace

Status LlmExtractorOptions::Validate() const {
  RETURN_IF_ERROR(ClientOptions(*this).Validate());
  if (max_facts == 0) return Status::InvalidArgument("llm extractor: max_facts must be > 0");
  return Status::Ok();
}

StatusOr<std::unique_ptr<LlmFactExtractor>> LlmFactExtractor::Create(LlmExtractorOptions options) {
  RETURN_IF_ERROR(options.Validate());
  ASSIGN_OR_RETURN(std::unique_ptr<llm::ChatClient> client,
                   llm::ChatClient::Create(ClientOptions(options)));
  return std::unique_ptr<LlmFactExtractor>(
      new LlmFactExtractor(std::move(options), std::move(client)));
}

StatusOr<LlmExtraction> ParseLlmFacts(std::string_view content, const FactSource& source,
                                      std::size_t max_facts) {
  const nlohmann::json parsed =
      nlohmann::json::parse(llm::StripCodeFences(content), nullptr, /*allow_exceptions=*/false);
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
  llm::ChatRequest request;
  request.messages = {{"system", std::string(kInstructions)},
                      {"user", "Speaker: " + source.speaker + "\nDate: " +
                                   FormatTimestamp(source.event_time) + "\nTurn: " + source.text}};
  ASSIGN_OR_RETURN(const llm::ChatReply reply, client_->Complete(request));
  return ParseLlmFacts(reply.content, source, options_.max_facts);
}

}  // namespace engram::write
