// `engram bench longmemeval`: LongMemEval retrieval under the official protocol (see bench.h,
// bench/README.md and docs/BENCHMARKS.md).
//
// Skipped: abstention questions (id ending in "_abs"; with BenchOptions::sufficiency recalled
// for the sufficiency report only) and questions without a has_answer user
// turn; their haystacks are not ingested. Per evaluated question, on the evaluation recall's
// turn ranking (top eval_k turns):
//   - session level, gold = answer_session_ids, ranking = sessions in order of first appearance
//     among the ranked turns: recall_any@k, recall_all@k, ndcg_any@k for k = 5, 10;
//   - turn level, gold = turns marked has_answer: recall_any@k, recall_all@k for the --k
//     cut-offs (default 10, 50).
#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "eval/bench.h"
#include "eval/bench_internal.h"
#include "eval/metrics.h"
#include "eval/progress.h"
#include "io/file_reader.h"
#include "io/longmemeval.h"

namespace engram::eval {
namespace {

using internal::TurnInfo;
using internal::TurnTable;
using io::Json;
using MetricValues = std::vector<std::pair<std::string, double>>;

struct TurnMetadata {
  std::string session_id;
  std::int64_t turn_index = 0;
  bool has_answer = false;
};

TurnMetadata ParseTurnMetadata(const Turn& turn) {
  TurnMetadata metadata;
  const nlohmann::json json =
      nlohmann::json::parse(turn.metadata_json, nullptr, /*allow_exceptions=*/false);
  if (!json.is_object()) return metadata;
  if (const auto found = json.find("session_id"); found != json.end() && found->is_string()) {
    metadata.session_id = found->get<std::string>();
  }
  if (const auto found = json.find("turn_index");
      found != json.end() && found->is_number_integer()) {
    metadata.turn_index = found->get<std::int64_t>();
  }
  if (const auto found = json.find("has_answer"); found != json.end() && found->is_boolean()) {
    metadata.has_answer = found->get<bool>();
  }
  return metadata;
}

// Approximate number of questions in the file, for the progress bar only.
std::size_t CountQuestions(std::string_view text) {
  constexpr std::string_view kField = "\"question_id\"";
  std::size_t count = 0;
  for (std::size_t at = text.find(kField); at != std::string_view::npos;
       at = text.find(kField, at + kField.size())) {
    ++count;
  }
  return count;
}

// The question ids of the file, read from its text the way CountQuestions counts them (a JSON
// string after each "question_id" key; an escaped character stands for itself).
std::set<std::string> QuestionIds(std::string_view text) {
  constexpr std::string_view kField = "\"question_id\"";
  std::set<std::string> ids;
  for (std::size_t at = text.find(kField); at != std::string_view::npos;
       at = text.find(kField, at + kField.size())) {
    std::size_t pos = at + kField.size();
    while (pos < text.size() && (text[pos] == ' ' || text[pos] == ':' || text[pos] == '\n' ||
                                 text[pos] == '\r' || text[pos] == '\t')) {
      ++pos;
    }
    if (pos >= text.size() || text[pos] != '"') continue;
    std::string id;
    for (++pos; pos < text.size() && text[pos] != '"'; ++pos) {
      if (text[pos] == '\\' && pos + 1 < text.size()) ++pos;
      id += text[pos];
    }
    ids.insert(std::move(id));
  }
  return ids;
}

Json ValuesJson(const MetricValues& values) {
  Json json = Json::object();
  for (const auto& [key, value] : values) json[key] = value;
  return json;
}

struct TypeSums {
  internal::MetricSums session;
  internal::MetricSums turn;
  Json Averages() const {
    Json json = Json::object();
    json["session"] = session.Averages();
    json["turn"] = turn.Averages();
    return json;
  }
};

}  // namespace

StatusOr<io::Json> RunLongMemEvalBench(const BenchOptions& options) {
  RETURN_IF_ERROR(internal::CheckOptions(options));
  ASSIGN_OR_RETURN(const std::vector<std::size_t> ks, internal::NormalizeKs(options.ks, {10, 50}));
  const std::size_t max_session_k =
      *std::max_element(std::begin(kLongMemEvalSessionKs), std::end(kLongMemEvalSessionKs));
  const std::size_t eval_k = std::max(ks.back(), max_session_k);
  ASSIGN_OR_RETURN(const std::string text, io::ReadFile(options.data_path));
  std::size_t expected = CountQuestions(text);
  const std::set<std::string> only(options.only.begin(), options.only.end());
  if (!only.empty()) {
    RETURN_IF_ERROR(internal::CheckOnlyIds(options, QuestionIds(text), "question"));
    expected = only.size();
  }
  if (options.limit > 0) expected = std::min(expected, options.limit);

  ASSIGN_OR_RETURN(std::unique_ptr<internal::BenchStore> store,
                   internal::BenchStore::Open(options));
  ASSIGN_OR_RETURN(std::unique_ptr<internal::TraceWriter> trace,
                   internal::TraceWriter::Open(options.trace_path));
  Progress progress(options.progress, options.progress_interactive, "longmemeval", "haystacks",
                    expected, expected);
  internal::AskSettings settings;
  settings.routes = internal::RoutesToRun(options);
  settings.eval_k = eval_k;
  settings.trace = !options.trace_path.empty();

  TypeSums overall;
  std::map<std::string, TypeSums> by_type;
  internal::ContextSums context_overall;
  std::map<std::string, internal::ContextSums> context_by_type;
  internal::SufficiencySums sufficiency_no_evidence;  // the abstention questions
  internal::SufficiencySums sufficiency_answerable;
  std::map<std::string, internal::SufficiencySums> sufficiency_by_type;
  internal::CostStats cost;
  internal::IngestStats ingest;
  std::optional<ReadResult> first_recall;
  std::size_t seen = 0;
  std::size_t skipped_abstention = 0;
  std::size_t skipped_no_answer_turn = 0;

  const auto visit = [&](io::LongMemEvalInstance&& instance) -> Status {
    if (options.limit > 0 && seen >= options.limit) return Status::Ok();
    if (!only.empty() && !only.contains(instance.question.question_id)) return Status::Ok();
    ++seen;
    const io::LongMemEvalQuestion& question = instance.question;
    progress.StartGroup(question.question_id);
    std::vector<TurnMetadata> metadata;
    metadata.reserve(instance.turns.size());
    bool has_user_answer = false;
    for (const Turn& turn : instance.turns) {
      metadata.push_back(ParseTurnMetadata(turn));
      if (metadata.back().has_answer && turn.role == Role::kUser) has_user_answer = true;
    }
    const auto to_qa = [&](const internal::Recalls& recalls, bool in_retrieval) {
      if (!options.qa_sink) return;
      QaQuestion qa;
      qa.dataset = "longmemeval";
      qa.id = question.question_id;
      qa.category = question.question_type;
      qa.question = question.question;
      qa.gold_answer = question.answer;
      qa.question_date = question.question_date_text;
      qa.context = recalls.user.context;
      qa.context_tokens = recalls.user.diagnostics.context_tokens;
      qa.abstention = question.abstention;
      qa.in_retrieval = in_retrieval;
      options.qa_sink(std::move(qa));
    };
    if ((question.abstention && options.sufficiency) ||
        (options.qa_sink && (question.abstention || !has_user_answer))) {
      // An abstention question asks what the haystack does not hold: recalled for the
      // sufficiency report and the QA harness only, never for the retrieval metrics; so is a
      // question without a has_answer user turn for the QA harness.
      ++(question.abstention ? skipped_abstention : skipped_no_answer_turn);
      ASSIGN_OR_RETURN(const std::vector<std::string> ids,
                       internal::IngestOrReuse(store->engine(), instance.scope, instance.turns,
                                               options.reuse_store, &ingest));
      if (options.consolidate && options.qa_sink) {
        // The QA answers every question from the same kind of memory.
        RETURN_IF_ERROR(internal::ConsolidateScope(store->engine(), instance.scope, &ingest));
      }
      RecallQuery query;
      query.text = question.question;
      query.query_time = question.question_date;
      StatusOr<internal::Recalls> recalls =
          internal::Ask(store->engine(), instance.scope, query, settings);
      if (!recalls.ok()) return recalls.status().WithContext("question " + question.question_id);
      if (question.abstention && options.sufficiency) {
        sufficiency_no_evidence.Add(recalls->user.sufficiency);
        sufficiency_by_type["abstention"].Add(recalls->user.sufficiency);
      }
      to_qa(*recalls, /*in_retrieval=*/false);
      progress.QuestionDone();
      return Status::Ok();
    }
    if (question.abstention || !has_user_answer) {
      ++(question.abstention ? skipped_abstention : skipped_no_answer_turn);
      progress.QuestionDone();
      return Status::Ok();
    }

    ASSIGN_OR_RETURN(std::vector<std::string> ids,
                     internal::IngestOrReuse(store->engine(), instance.scope, instance.turns,
                                             options.reuse_store, &ingest));
    if (options.consolidate) {
      RETURN_IF_ERROR(internal::ConsolidateScope(store->engine(), instance.scope, &ingest));
    }
    TurnTable turns;
    std::map<std::string, TurnInfo> by_key;
    std::vector<std::string> gold_turns;
    for (std::size_t turn_idx = 0; turn_idx < ids.size(); ++turn_idx) {
      const Turn& turn = instance.turns[turn_idx];
      const TurnMetadata& meta = metadata[turn_idx];
      TurnInfo info{meta.session_id + ":" + std::to_string(meta.turn_index), meta.session_id,
                    std::string(RoleName(turn.role)), turn.text};
      if (meta.has_answer) gold_turns.push_back(info.key);
      by_key.emplace(info.key, info);
      turns.emplace(ids[turn_idx], std::move(info));
    }

    RecallQuery query;
    query.text = question.question;
    query.query_time = question.question_date;
    StatusOr<internal::Recalls> recalls =
        internal::Ask(store->engine(), instance.scope, query, settings);
    if (!recalls.ok()) return recalls.status().WithContext("question " + question.question_id);
    if (!first_recall.has_value()) first_recall = recalls->user;
    to_qa(*recalls, /*in_retrieval=*/true);

    std::vector<std::string> turn_ids = TurnRanking(recalls->eval.items);
    if (turn_ids.size() > eval_k) turn_ids.resize(eval_k);
    const std::vector<std::string> ranking =
        MapRanking(turn_ids, [&turns](const std::string& id) -> std::optional<std::string> {
          const auto found = turns.find(id);
          if (found == turns.end()) return std::nullopt;
          return found->second.key;
        });
    const std::vector<std::string> sessions =
        GroupRanking(turn_ids, [&turns](const std::string& id) -> std::optional<std::string> {
          const auto found = turns.find(id);
          if (found == turns.end()) return std::nullopt;
          return found->second.session;
        });
    const std::vector<std::string>& gold_sessions = question.answer_session_ids;

    MetricValues session_values;
    for (const std::size_t k : kLongMemEvalSessionKs) {
      const std::string suffix = "@" + std::to_string(k);
      session_values.emplace_back("recall_any" + suffix, RecallAnyAtK(sessions, gold_sessions, k));
      session_values.emplace_back("recall_all" + suffix, RecallAllAtK(sessions, gold_sessions, k));
      session_values.emplace_back("ndcg_any" + suffix, NdcgAnyAtK(sessions, gold_sessions, k));
    }
    MetricValues turn_values;
    for (const std::size_t k : ks) {
      const std::string suffix = "@" + std::to_string(k);
      turn_values.emplace_back("recall_any" + suffix, RecallAnyAtK(ranking, gold_turns, k));
      turn_values.emplace_back("recall_all" + suffix, RecallAllAtK(ranking, gold_turns, k));
    }
    overall.session.Add(session_values);
    overall.turn.Add(turn_values);
    TypeSums& type_sums = by_type[question.question_type];
    type_sums.session.Add(session_values);
    type_sums.turn.Add(turn_values);
    cost.Add(*recalls);
    // Evidence in the user recall's context, gold = the has_answer turns. No answer proxy:
    // LongMemEval's answers are judged by a model and are mostly not strings of the evidence
    // (counts, durations, "The user would prefer ...").
    {
      const EvidenceInContext evidence =
          EvidenceIn(internal::KeyRanking(recalls->user.items, turns), gold_turns);
      const std::vector<std::string> fates =
          settings.trace ? internal::ContextFates(*recalls, turns, gold_turns)
                         : std::vector<std::string>{};
      const double tokens = static_cast<double>(recalls->user.diagnostics.context_tokens);
      context_overall.Add(evidence, tokens, std::nullopt, fates);
      context_by_type[question.question_type].Add(evidence, tokens, std::nullopt, fates);
      sufficiency_answerable.Add(recalls->user.sufficiency);
      sufficiency_by_type[question.question_type].Add(recalls->user.sufficiency);
    }

    if (settings.trace) {
      Json line = Json::object();
      line["question_id"] = question.question_id;
      line["dataset"] = "longmemeval";
      line["conversation"] = question.question_id;
      line["scope"] = instance.scope.ToString();
      line["category_name"] = question.question_type;
      line["question"] = question.question;
      line["answer"] = question.answer;
      line["question_date"] = question.question_date_text;
      line["query_time"] = io::TimestampToJson(query.query_time);
      line["evidence"] = gold_turns;
      line["answer_session_ids"] = gold_sessions;
      line["eval_k"] = eval_k;
      Json metrics = Json::object();
      metrics["session"] = ValuesJson(session_values);
      metrics["turn"] = ValuesJson(turn_values);
      line["metrics"] = std::move(metrics);
      const std::optional<std::size_t> first_rank = FirstRelevantRank(ranking, gold_turns);
      line["first_gold_rank"] = first_rank ? Json(*first_rank) : Json(nullptr);
      Json session_ranking = Json::array();
      for (const std::string& session : sessions) session_ranking.push_back(session);
      line["session_ranking"] = std::move(session_ranking);
      Json gold_session_ranks = Json::array();
      for (const std::string& session : gold_sessions) {
        Json entry = Json::object();
        entry["session"] = session;
        const auto found = std::find(sessions.begin(), sessions.end(), session);
        entry["session_rank"] = found == sessions.end()
                                    ? Json(nullptr)
                                    : Json(static_cast<std::size_t>(found - sessions.begin()) + 1);
        gold_session_ranks.push_back(std::move(entry));
      }
      line["gold_sessions"] = std::move(gold_session_ranks);
      internal::AddTraceRecall(line, *recalls, turns, gold_turns, eval_k, by_key);
      RETURN_IF_ERROR(trace->Write(line));
    }
    progress.QuestionDone();
    return Status::Ok();
  };
  RETURN_IF_ERROR(io::ForEachLongMemEval(text, io::DisplayName(options.data_path), visit));
  progress.Finish();
  RETURN_IF_ERROR(trace->Close());

  Json report = Json::object();
  report["dataset"] = "longmemeval";
  report["questions"] = overall.session.count();
  Json config =
      internal::ConfigJson(*store, options, ks, eval_k, first_recall ? &*first_recall : nullptr);
  Json session_ks = Json::array();
  for (const std::size_t k : kLongMemEvalSessionKs) session_ks.push_back(k);
  config["session_ks"] = std::move(session_ks);
  Json data = Json::object();
  data["file"] = options.data_path;
  data["questions_read"] = seen;
  if (!options.only.empty()) data["only"] = options.only;
  data["skipped_abstention"] = skipped_abstention;
  data["skipped_no_answer_user_turn"] = skipped_no_answer_turn;
  data["query_time"] = "question_date";
  data["answer_in_context"] =
      "not measured: answers are judged by a model and are mostly not strings of the evidence";
  data["first_recall_seconds"] = ingest.first_recall_seconds;
  config["data"] = std::move(data);
  report["config"] = std::move(config);
  report["metrics"] = overall.Averages();
  Json types = Json::object();
  for (const auto& [type, sums] : by_type) {
    Json entry = Json::object();
    entry["questions"] = sums.session.count();
    entry["metrics"] = sums.Averages();
    entry["context"] = context_by_type[type].ToJson(/*score_answers=*/false, settings.trace);
    types[type] = std::move(entry);
  }
  report["by_category"] = std::move(types);
  report["context"] = context_overall.ToJson(/*score_answers=*/false, settings.trace);
  report["sufficiency"] = internal::SufficiencyReport(sufficiency_no_evidence,
                                                      sufficiency_answerable, sufficiency_by_type);
  report["context_tokens"] = internal::ContextTokensJson(cost);
  report["latency_ms"] = internal::LatencyJson(cost);
  report["ingest"] = internal::IngestJson(ingest);
  return report;
}

}  // namespace engram::eval
