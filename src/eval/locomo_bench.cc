// `engram bench locomo`: LoCoMo turn-level retrieval (see bench.h and docs/BENCHMARKS.md).
//
// Evaluated questions: every question, of all five categories, with at least one valid evidence
// id after cleaning (io::CleanLocomoEvidence). Per question, on the evaluation recall's turn
// ranking mapped to dia_ids: Recall@k = |evidence ∩ top k| / |evidence|, Hit@k, MRR@30. Evidence
// ids that name no turn of the conversation stay in the denominator and are counted in
// config.data.evidence_ids_not_in_conversation.
#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "eval/bench.h"
#include "eval/bench_internal.h"
#include "eval/metrics.h"
#include "eval/progress.h"
#include "io/locomo.h"

namespace engram::eval {
namespace {

using internal::TurnInfo;
using internal::TurnTable;
using io::Json;

constexpr int kAdversarialCategory = 5;

std::string_view CategoryName(int category) {
  switch (category) {
    case 1:
      return "multi-hop";
    case 2:
      return "temporal";
    case 3:
      return "open-domain";
    case 4:
      return "single-hop";
    case 5:
      return "adversarial";
    default:
      return "other";
  }
}

// The conversation's "now": the date of its last dated session (the last turn with a time).
std::optional<Timestamp> LastSessionTime(const io::LocomoConversation& conversation) {
  for (auto turn = conversation.turns.rbegin(); turn != conversation.turns.rend(); ++turn) {
    if (turn->event_time.has_value()) return turn->event_time;
  }
  return std::nullopt;
}

std::string DiaId(const Turn& turn) {
  const nlohmann::json metadata =
      nlohmann::json::parse(turn.metadata_json, nullptr, /*allow_exceptions=*/false);
  if (!metadata.is_object()) return "";
  const auto found = metadata.find("dia_id");
  if (found == metadata.end() || !found->is_string()) return "";
  return found->get<std::string>();
}

std::vector<std::pair<std::string, double>> QuestionMetrics(const std::vector<std::string>& ranking,
                                                            const std::vector<std::string>& gold,
                                                            const std::vector<std::size_t>& ks) {
  std::vector<std::pair<std::string, double>> values;
  for (const std::size_t k : ks) {
    values.emplace_back("recall@" + std::to_string(k), RecallAtK(ranking, gold, k));
  }
  for (const std::size_t k : ks) {
    values.emplace_back("hit@" + std::to_string(k), HitAtK(ranking, gold, k));
  }
  values.emplace_back("mrr@" + std::to_string(kLocomoMrrCutoff),
                      MrrAtK(ranking, gold, kLocomoMrrCutoff));
  return values;
}

Json ValuesJson(const std::vector<std::pair<std::string, double>>& values) {
  Json json = Json::object();
  for (const auto& [key, value] : values) json[key] = value;
  return json;
}

}  // namespace

StatusOr<io::Json> RunLocomoBench(const BenchOptions& options) {
  RETURN_IF_ERROR(internal::CheckOptions(options));
  ASSIGN_OR_RETURN(const std::vector<std::size_t> ks,
                   internal::NormalizeKs(options.ks, {5, 10, 30}));
  const std::size_t eval_k = std::max(ks.back(), kLocomoMrrCutoff);
  ASSIGN_OR_RETURN(std::vector<io::LocomoConversation> conversations,
                   io::ReadLocomo(options.data_path));
  if (!options.only.empty()) {
    std::set<std::string> ids;
    for (const io::LocomoConversation& conversation : conversations) {
      ids.insert(conversation.sample_id);
    }
    RETURN_IF_ERROR(internal::CheckOnlyIds(options, ids, "conversation"));
    const std::set<std::string> only(options.only.begin(), options.only.end());
    std::erase_if(conversations, [&](const io::LocomoConversation& conversation) {
      return !only.contains(conversation.sample_id);
    });
  }
  if (options.limit > 0 && conversations.size() > options.limit) {
    conversations.resize(options.limit);
  }
  std::size_t questions_in_file = 0;
  std::size_t evaluable = 0;
  for (const io::LocomoConversation& conversation : conversations) {
    questions_in_file += conversation.questions.size();
    for (const io::LocomoQuestion& question : conversation.questions) {
      if (!question.evidence.empty()) ++evaluable;
    }
  }

  ASSIGN_OR_RETURN(std::unique_ptr<internal::BenchStore> store,
                   internal::BenchStore::Open(options));
  ASSIGN_OR_RETURN(std::unique_ptr<internal::TraceWriter> trace,
                   internal::TraceWriter::Open(options.trace_path));
  Progress progress(options.progress, options.progress_interactive, "locomo", "conversations",
                    conversations.size(), evaluable);
  internal::AskSettings settings;
  settings.routes = internal::RoutesToRun(options);
  settings.eval_k = eval_k;
  settings.trace = !options.trace_path.empty();

  internal::MetricSums overall;
  std::map<int, internal::MetricSums> by_category;
  internal::ContextSums context_overall;
  std::map<int, internal::ContextSums> context_by_category;
  internal::SufficiencySums sufficiency_no_evidence;
  internal::SufficiencySums sufficiency_answerable;
  std::map<std::string, internal::SufficiencySums> sufficiency_by_category;
  internal::CostStats cost;
  internal::IngestStats ingest;
  std::optional<ReadResult> first_recall;
  std::size_t skipped_without_evidence = 0;
  std::size_t missing_evidence = 0;

  for (const io::LocomoConversation& conversation : conversations) {
    progress.StartGroup(conversation.sample_id);
    ASSIGN_OR_RETURN(std::vector<std::string> ids,
                     internal::IngestOrReuse(store->engine(), conversation.scope,
                                             conversation.turns, options.reuse_store, &ingest));
    if (options.consolidate) {
      RETURN_IF_ERROR(internal::ConsolidateScope(store->engine(), conversation.scope, &ingest));
    }
    TurnTable turns;
    std::map<std::string, TurnInfo> by_key;
    for (std::size_t turn_idx = 0; turn_idx < ids.size(); ++turn_idx) {
      const Turn& turn = conversation.turns[turn_idx];
      TurnInfo info{DiaId(turn), turn.session_id, turn.speaker, turn.text};
      if (info.key.empty()) info.key = ids[turn_idx];
      by_key.emplace(info.key, info);
      turns.emplace(ids[turn_idx], std::move(info));
    }
    RecallQuery query;
    query.query_time = LastSessionTime(conversation);

    for (std::size_t question_idx = 0; question_idx < conversation.questions.size();
         ++question_idx) {
      const io::LocomoQuestion& question = conversation.questions[question_idx];
      const std::string question_id =
          conversation.sample_id + ":q" + std::to_string(question_idx + 1);
      query.text = question.question;
      const auto to_qa = [&](const internal::Recalls& recalls, bool in_retrieval) {
        if (!options.qa_sink) return;
        QaQuestion qa;
        qa.dataset = "locomo";
        qa.id = question_id;
        qa.category = CategoryName(question.category);
        qa.question = question.question;
        qa.gold_answer = question.category == kAdversarialCategory ? question.adversarial_answer
                                                                   : question.answer;
        qa.question_date = query.query_time ? FormatTimestamp(*query.query_time) : "";
        qa.context = recalls.user.context;
        qa.context_tokens = recalls.user.diagnostics.context_tokens;
        qa.in_retrieval = in_retrieval;
        options.qa_sink(std::move(qa));
      };
      if (question.evidence.empty()) {
        ++skipped_without_evidence;
        if (options.qa_sink) {
          // Recalled for the QA harness only: without evidence there is nothing to rank.
          StatusOr<internal::Recalls> recalls =
              internal::Ask(store->engine(), conversation.scope, query, settings);
          if (!recalls.ok()) return recalls.status().WithContext("question " + question_id);
          to_qa(*recalls, /*in_retrieval=*/false);
        }
        continue;
      }
      for (const std::string& evidence : question.evidence) {
        if (!by_key.contains(evidence)) ++missing_evidence;
      }
      StatusOr<internal::Recalls> recalls =
          internal::Ask(store->engine(), conversation.scope, query, settings);
      if (!recalls.ok()) return recalls.status().WithContext("question " + question_id);
      if (!first_recall.has_value()) first_recall = recalls->user;
      to_qa(*recalls, /*in_retrieval=*/true);

      std::vector<std::string> ranking = internal::KeyRanking(recalls->eval.items, turns);
      if (ranking.size() > eval_k) ranking.resize(eval_k);
      const auto values = QuestionMetrics(ranking, question.evidence, ks);
      overall.Add(values);
      by_category[question.category].Add(values);
      cost.Add(*recalls);
      // Evidence in the user recall's context. The answer proxy skips category 5: an
      // adversarial question has no answer in the file, only the distractor it must refuse.
      const EvidenceInContext evidence =
          EvidenceIn(internal::KeyRanking(recalls->user.items, turns), question.evidence);
      std::optional<bool> answer_in_context;
      if (question.category != kAdversarialCategory && !question.answer.empty()) {
        answer_in_context = AnswerInText(question.answer, recalls->user.context);
      }
      const std::vector<std::string> fates =
          settings.trace ? internal::ContextFates(*recalls, turns, question.evidence)
                         : std::vector<std::string>{};
      const double tokens = static_cast<double>(recalls->user.diagnostics.context_tokens);
      context_overall.Add(evidence, tokens, answer_in_context, fates);
      context_by_category[question.category].Add(evidence, tokens, answer_in_context, fates);
      // Sufficiency: category 5 (adversarial) asks what the conversation does not hold.
      (question.category == kAdversarialCategory ? sufficiency_no_evidence : sufficiency_answerable)
          .Add(recalls->user.sufficiency);
      sufficiency_by_category[std::string(CategoryName(question.category))].Add(
          recalls->user.sufficiency);

      if (settings.trace) {
        Json line = Json::object();
        line["question_id"] = question_id;
        line["dataset"] = "locomo";
        line["conversation"] = conversation.sample_id;
        line["scope"] = conversation.scope.ToString();
        line["category"] = question.category;
        line["category_name"] = CategoryName(question.category);
        line["question"] = question.question;
        line["answer"] = question.answer;
        if (!question.adversarial_answer.empty()) {
          line["adversarial_answer"] = question.adversarial_answer;
        }
        line["evidence"] = question.evidence;
        line["query_time"] = io::TimestampToJson(query.query_time);
        line["eval_k"] = eval_k;
        line["metrics"] = ValuesJson(values);
        line["answer_in_context"] =
            answer_in_context.has_value() ? Json(*answer_in_context) : Json(nullptr);
        const std::optional<std::size_t> first_rank = FirstRelevantRank(ranking, question.evidence);
        line["first_gold_rank"] = first_rank ? Json(*first_rank) : Json(nullptr);
        internal::AddTraceRecall(line, *recalls, turns, question.evidence, eval_k, by_key);
        RETURN_IF_ERROR(trace->Write(line));
      }
      progress.QuestionDone();
    }
  }
  progress.Finish();
  RETURN_IF_ERROR(trace->Close());

  Json report = Json::object();
  report["dataset"] = "locomo";
  report["questions"] = overall.count();
  Json config =
      internal::ConfigJson(*store, options, ks, eval_k, first_recall ? &*first_recall : nullptr);
  Json data = Json::object();
  data["file"] = options.data_path;
  data["conversations"] = conversations.size();
  if (!options.only.empty()) data["only"] = options.only;
  data["questions_in_file"] = questions_in_file;
  data["questions_without_evidence"] = skipped_without_evidence;
  data["evidence_ids_not_in_conversation"] = missing_evidence;
  data["query_time"] = "date of the conversation's last session";
  data["answer_in_context"] =
      "gold answer in the user recall's context after LoCoMo's normalisation (lowercase, "
      "punctuation and a/an/the/and removed); category 5 (adversarial) not scored";
  data["first_recall_seconds"] = ingest.first_recall_seconds;
  config["data"] = std::move(data);
  report["config"] = std::move(config);
  report["metrics"] = overall.Averages();
  Json categories = Json::object();
  for (const auto& [category, sums] : by_category) {
    Json entry = Json::object();
    entry["category"] = category;
    entry["questions"] = sums.count();
    entry["metrics"] = sums.Averages();
    entry["context"] = context_by_category[category].ToJson(/*score_answers=*/true, settings.trace);
    categories[std::string(CategoryName(category))] = std::move(entry);
  }
  report["by_category"] = std::move(categories);
  report["context"] = context_overall.ToJson(/*score_answers=*/true, settings.trace);
  report["sufficiency"] = internal::SufficiencyReport(
      sufficiency_no_evidence, sufficiency_answerable, sufficiency_by_category);
  report["context_tokens"] = internal::ContextTokensJson(cost);
  report["latency_ms"] = internal::LatencyJson(cost);
  report["ingest"] = internal::IngestJson(ingest);
  return report;
}

}  // namespace engram::eval
