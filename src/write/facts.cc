// Facts stage (see facts.h).
#include "write/facts.h"

#include <cctype>
#include <cstdlib>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <utility>

#include "write/analysis.h"
#include "write/extractor_llm.h"

namespace engram::write {
namespace {

constexpr std::int64_t kMicrosPerDay = 86'400'000'000;

// The span of a correction signal's value as written in the turn: the longest tail of the
// signal's span that normalises to the value ("No, I meant Munich" -> "Munich").
std::optional<std::pair<std::uint32_t, std::uint32_t>> WrittenValueSpan(
    const FactSource& source, const text::Signal& signal) {
  const std::string wanted = NormalizeFactText(signal.value);
  if (wanted.empty() || signal.end > source.text.size()) return std::nullopt;
  for (const text::Lexeme& lexeme : source.lexemes) {
    if (lexeme.begin < signal.begin || lexeme.begin >= signal.end) continue;
    if (lexeme.kind != text::LexemeKind::kWord && lexeme.kind != text::LexemeKind::kNumber &&
        lexeme.kind != text::LexemeKind::kAlnum) {
      continue;
    }
    const std::string_view tail =
        std::string_view(source.text).substr(lexeme.begin, signal.end - lexeme.begin);
    if (NormalizeFactText(tail) == wanted) {
      std::uint32_t end = signal.end;
      while (end > lexeme.begin && std::ispunct(static_cast<unsigned char>(source.text[end - 1]))) {
        --end;
      }
      return std::make_pair(lexeme.begin, end);
    }
  }
  return std::nullopt;
}

// Whether a bare correction's value can stand in for the target fact's object: no negation ("not
// that simple" corrects nothing); a name for a name ("Munich" for "Berlin"); otherwise a noun
// phrase, its last word a noun and never an adjective by the POS lexicon ("capers" for "olives",
// not "great" or "fine").
// Without lexicons only a capitalised value passes.
bool CanReplace(std::string_view value, std::string_view target_object,
                const lexicon::Lexicons* lexicons) {
  const std::vector<text::Lexeme> words = text::Lex(value);
  if (words.empty()) return false;
  for (const text::Lexeme& word : words) {
    if (word.lower == "not" || word.lower == "no" || word.lower == "never" ||
        word.lower == "nothing" || word.lower == "none" || word.lower.ends_with("n't")) {
      return false;
    }
  }
  const std::vector<text::Lexeme> target = text::Lex(target_object);
  const bool target_is_name = !target.empty() && target.front().capitalized;
  if (target_is_name || lexicons == nullptr) return words.front().capitalized;
  const text::Lexeme& last = words.back();
  if (last.kind != text::LexemeKind::kWord) return false;
  const lexicon::PosInfo pos = lexicons->Pos(last.lower);
  if (!pos.found) return last.capitalized;
  // A word that can also be an adjective ("fine", "cool") is too often an assessment.
  return (pos.primary == lexicon::WordClass::kNoun ||
          pos.primary == lexicon::WordClass::kProperNoun) &&
         !pos.Has(lexicon::WordClass::kAdjective);
}

}  // namespace

FactToStore PrepareFact(const FactCandidate& candidate, const FactSource& source,
                        const WriteConfig& config) {
  FactToStore fact;
  fact.candidate = candidate;
  const Timestamp turn_time = source.event_time;
  if (!source.sentences.empty() && candidate.end > candidate.begin) {
    fact.from_correction = source.sentences[source.SentenceAt(candidate.begin)].correction;
  }
  const std::optional<FactTime>& time = candidate.time;
  switch (candidate.kind) {
    case FactKind::kEvent:
      fact.valid_from = time.has_value() ? time->from : turn_time;
      break;
    case FactKind::kForesight:
      fact.valid_from = turn_time;
      fact.valid_to =
          time.has_value() && time->to > turn_time
              ? time->to
              : Timestamp{turn_time.micros +
                          static_cast<std::int64_t>(config.foresight_days) * kMicrosPerDay};
      break;
    default:
      if (candidate.past) {
        if (time.has_value() && time->from < turn_time) {
          fact.valid_from = time->from;
          fact.valid_to = std::min(time->to, turn_time);
        } else {
          fact.valid_to = turn_time;
        }
      } else if ((candidate.kind == FactKind::kState || candidate.kind == FactKind::kTechnical) &&
                 time.has_value() && time->from <= turn_time) {
        fact.valid_from = time->from;  // "I moved to Berlin last March"
      } else {
        fact.valid_from = turn_time;
      }
      break;
  }
  return fact;
}

Status DeriveFacts(store::Transaction& txn, const EdgeRegistry& registry,
                   std::span<const std::string> turn_ids, const WriteConfig& config,
                   const AnalysisResources* resources, const DeriveContext& context,
                   FactStats* stats) {
  if (context.scope == nullptr) return Status::InvalidArgument("facts: no scope");
  FactStats local;
  FactReconciler reconciler(txn, registry, *context.scope, context.now);
  ValidatorOptions validator;
  validator.min_support = config.fact_min_support;
  std::unique_ptr<LlmFactExtractor> llm;
  if (config.llm_facts) {
    LlmExtractorOptions options;
    options.base_url = config.llm_base_url;
    options.model = config.llm_model;
    options.timeout = std::chrono::milliseconds(config.llm_timeout_ms);
    if (!config.llm_api_key_env.empty()) {
      if (const char* key = std::getenv(config.llm_api_key_env.c_str()); key != nullptr) {
        options.api_key = key;
      }
    }
    ASSIGN_OR_RETURN(llm, LlmFactExtractor::Create(options));
  }
  for (std::size_t turn_idx = 0; turn_idx < turn_ids.size(); ++turn_idx) {
    ASSIGN_OR_RETURN(const store::NodeRecord turn, txn.GetNode(turn_ids[turn_idx]));
    if (turn.kind != NodeKind::kTurn || turn.role != Role::kUser) continue;
    ++local.turns;
    const FactSource source = AnalyzeFactSource(
        turn.text, turn.speaker, turn.role, turn.event_time.value_or(context.now),
        turn_idx < context.texts.size() ? &context.texts[turn_idx] : nullptr);
    std::vector<FactCandidate> candidates = ExtractRuleFacts(source);
    if (llm != nullptr) {
      StatusOr<LlmExtraction> proposed = llm->Extract(source);
      if (proposed.ok()) {
        local.llm_skipped += proposed->skipped;
        for (FactCandidate& candidate : proposed->candidates) {
          candidates.push_back(std::move(candidate));
        }
      } else {
        ++local.llm_errors;
      }
    }
    // Sentences with an accepted fact of their own.
    std::vector<bool> has_fact(source.sentences.size(), false);
    for (const FactCandidate& candidate : candidates) {
      const Verdict verdict = ValidateFact(candidate, source, validator);
      local.validation.Add(verdict);
      if (!verdict.accepted) {
        RETURN_IF_ERROR(
            reconciler.AddRejected(turn, PrepareFact(candidate, source, config), verdict));
        continue;
      }
      if (!source.sentences.empty() && candidate.end > candidate.begin) {
        has_fact[source.SentenceAt(candidate.begin)] = true;
      }
      ASSIGN_OR_RETURN(const ReconcileOutcome outcome,
                       reconciler.Add(turn, PrepareFact(candidate, source, config)));
      ++local.outcomes[static_cast<std::size_t>(outcome)];
    }
    // An explicit correction without a fact of its own ("No, I meant Munich") inherits the slot
    // of the speaker's latest fact it validates against, within the reference TTL.
    for (const text::Signal& signal : source.signals) {
      if (signal.kind != text::SignalKind::kCorrection || signal.value.empty()) continue;
      if (!source.sentences.empty() && has_fact[source.SentenceAt(signal.begin)]) continue;
      const auto span = WrittenValueSpan(source, signal);
      if (!span.has_value()) continue;
      ASSIGN_OR_RETURN(const std::vector<CorrectionTarget> targets,
                       reconciler.CorrectionTargets(turn, config.reference_ttl_turns));
      const std::string value = source.text.substr(span->first, span->second - span->first);
      for (const CorrectionTarget& target : targets) {
        if (!CanReplace(value, target.object,
                        resources != nullptr ? resources->lexicons.get() : nullptr)) {
          continue;
        }
        FactCandidate candidate = target.slot;
        candidate.object = value;
        candidate.begin = span->first;
        candidate.end = span->second;
        candidate.negated = false;
        candidate.past = false;
        candidate.uncertain = signal.uncertain;
        candidate.time.reset();
        candidate.extractor = "rule";
        const Verdict verdict = ValidateFact(candidate, source, validator);
        if (!verdict.accepted) continue;  // not this slot's kind of value: try an older fact
        local.validation.Add(verdict);
        FactToStore fact = PrepareFact(candidate, source, config);
        fact.from_correction = true;
        fact.corrects_id = target.id;
        ASSIGN_OR_RETURN(const ReconcileOutcome outcome, reconciler.Add(turn, fact));
        ++local.outcomes[static_cast<std::size_t>(outcome)];
        break;
      }
    }
  }
  if (stats != nullptr) {
    stats->turns += local.turns;
    stats->validation += local.validation;
    stats->llm_errors += local.llm_errors;
    stats->llm_skipped += local.llm_skipped;
    for (std::size_t outcome_idx = 0; outcome_idx < local.outcomes.size(); ++outcome_idx) {
      stats->outcomes[outcome_idx] += local.outcomes[outcome_idx];
    }
  }
  return Status::Ok();
}

Status DeriveFacts(store::Transaction& txn, const EdgeRegistry& registry,
                   std::span<const std::string> turn_ids, const WriteConfig& config,
                   const AnalysisResources* resources, const DeriveContext& context) {
  return DeriveFacts(txn, registry, turn_ids, config, resources, context, nullptr);
}

}  // namespace engram::write
