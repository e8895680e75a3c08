// The end-to-end QA harness (see qa.h).
#include "eval/qa.h"

#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>
#include <vector>

#include "core/files.h"
#include "core/sha256.h"
#include "eval/qa_prompts.h"
#include "llm/chat_client.h"

namespace engram::eval {
namespace {

using io::Json;
using qa::PromptRole;
using qa::PromptSet;

// Completion limits when the options leave them at 0.
constexpr std::size_t kDefaultAnswerTokens = 200;
constexpr std::size_t kDefaultJudgeTokens = 100;
// Failures listed with their messages in the report.
constexpr std::size_t kListedFailures = 20;
// Progress lines: every this many questions, and the last.
constexpr std::size_t kProgressEvery = 25;

constexpr std::string_view kLocomoProtocol =
    "LoCoMo LLM-judge J-score: one binary CORRECT/WRONG judgment of the generated answer against "
    "the gold answer, lenient on wording, strict on facts and dates; categories 1-4 (5, "
    "adversarial, excluded unless asked); accuracy = correct / judged";
constexpr std::string_view kLongMemEvalProtocol =
    "LongMemEval per-type judging: yes/no against the gold answer; temporal-reasoning tolerates "
    "off-by-one counts, knowledge-update takes the latest value, single-session-preference "
    "follows the rubric, abstention questions are correct when the answer declines; all 500 "
    "questions' types, abstention included; accuracy = correct / judged";

bool IsHttpUrl(const std::string& url) {
  return url.rfind("http://", 0) == 0 || url.rfind("https://", 0) == 0;
}

Status CheckPrice(double price, const char* field) {
  if (!std::isfinite(price) || price < 0) {
    return Status::InvalidArgument(std::string("qa: ") + field +
                                   " must be a price >= 0 in dollars per million tokens");
  }
  return Status::Ok();
}

// The judge's settings with the answerer's filled in where left empty (qa.h).
QaModel EffectiveJudge(const QaOptions& options) {
  QaModel judge = options.judge;
  const bool same_endpoint = judge.base_url.empty() && judge.model.empty();
  if (judge.base_url.empty()) judge.base_url = options.answer.base_url;
  if (judge.model.empty()) judge.model = options.answer.model;
  if (judge.api_key.empty() && (same_endpoint || judge.base_url == options.answer.base_url)) {
    judge.api_key = options.answer.api_key;
  }
  if (same_endpoint && judge.price_in_per_million == 0 && judge.price_out_per_million == 0) {
    judge.price_in_per_million = options.answer.price_in_per_million;
    judge.price_out_per_million = options.answer.price_out_per_million;
  }
  if (judge.max_tokens == 0) judge.max_tokens = kDefaultJudgeTokens;
  return judge;
}

QaModel EffectiveAnswer(const QaOptions& options) {
  QaModel answer = options.answer;
  if (answer.max_tokens == 0) answer.max_tokens = kDefaultAnswerTokens;
  return answer;
}

// One role's client, prompts and settings.
struct Role {
  std::string name;  // "answer", "judge"
  QaModel model;
  std::unique_ptr<llm::ChatClient> client;
  PromptSet prompts;
};

StatusOr<Role> MakeRole(std::string name, const QaModel& model, PromptRole prompt_role,
                        std::string_view dataset, std::chrono::milliseconds timeout) {
  Role role;
  role.name = std::move(name);
  role.model = model;
  llm::ChatClientOptions client;
  client.base_url = model.base_url;
  client.model = model.model;
  client.api_key = model.api_key;
  client.timeout = timeout;
  client.label = "qa " + role.name;
  ASSIGN_OR_RETURN(role.client, llm::ChatClient::Create(client));
  if (model.prompt_file.empty()) {
    role.prompts = qa::BuiltInPrompts(dataset, prompt_role);
  } else {
    ASSIGN_OR_RETURN(role.prompts, qa::LoadPromptFile(model.prompt_file, prompt_role));
  }
  return role;
}

struct Setup {
  Role answer;
  Role judge;
};

StatusOr<Setup> Prepare(const QaOptions& options, std::string_view dataset) {
  RETURN_IF_ERROR(options.Validate());
  Setup setup;
  ASSIGN_OR_RETURN(setup.answer, MakeRole("answer", EffectiveAnswer(options), PromptRole::kAnswer,
                                          dataset, options.timeout));
  ASSIGN_OR_RETURN(setup.judge, MakeRole("judge", EffectiveJudge(options), PromptRole::kJudge,
                                         dataset, options.timeout));
  return setup;
}

// The hash that keys a request's outcome in the answers file: everything that decides the
// reply (model, limits, seed, the prompt as sent).
std::string RequestKey(const Role& role, const QaOptions& options, const std::string& prompt) {
  Json key = Json::object();
  key["model"] = role.model.model;
  key["max_tokens"] = role.model.max_tokens;
  key["temperature"] = 0;
  key["seed"] = options.seed ? Json(*options.seed) : Json(nullptr);
  key["prompt"] = prompt;
  return core::Sha256Hex(key.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace))
      .substr(0, 16);
}

// Fields of an answers-file line, which a user may have edited: a field of another type reads
// as absent instead of throwing.
std::string StringField(const Json& json, const char* key) {
  const auto found = json.find(key);
  return found != json.end() && found->is_string() ? found->get<std::string>() : std::string();
}
std::size_t CountField(const Json& json, const char* key) {
  const auto found = json.find(key);
  return found != json.end() && found->is_number_unsigned() ? found->get<std::size_t>() : 0;
}
Json ObjectField(const Json& json, const char* key) {
  const auto found = json.find(key);
  return found != json.end() && found->is_object() ? *found : Json::object();
}

struct Usage {
  std::size_t requests = 0;
  std::size_t prompt_tokens = 0;
  std::size_t completion_tokens = 0;
  std::size_t without_usage = 0;
  void Add(const Json& usage) {
    if (!usage.is_object()) return;
    ++requests;
    prompt_tokens += CountField(usage, "prompt_tokens");
    completion_tokens += CountField(usage, "completion_tokens");
    const auto reported = usage.find("reported");
    if (reported == usage.end() || !reported->is_boolean() || !reported->get<bool>()) {
      ++without_usage;
    }
  }
  Json ToJson() const {
    Json json = Json::object();
    json["requests"] = requests;
    json["prompt_tokens"] = prompt_tokens;
    json["completion_tokens"] = completion_tokens;
    json["replies_without_usage"] = without_usage;
    return json;
  }
  double Cost(const QaModel& model) const {
    return (static_cast<double>(prompt_tokens) * model.price_in_per_million +
            static_cast<double>(completion_tokens) * model.price_out_per_million) /
           1e6;
  }
};

Json UsageJson(const llm::ChatUsage& usage) {
  Json json = Json::object();
  json["prompt_tokens"] = usage.prompt_tokens;
  json["completion_tokens"] = usage.completion_tokens;
  json["reported"] = usage.reported;
  return json;
}

// The answers file's lines by question id (the last line of an id wins). Lines that are not
// JSON objects with a question_id (a run killed mid-write) are counted and ignored.
struct AnswersFile {
  std::map<std::string, Json> by_id;
  std::size_t bad_lines = 0;
};

StatusOr<AnswersFile> ReadAnswers(const std::string& path) {
  AnswersFile file;
  if (path.empty() || !std::filesystem::exists(path)) return file;
  ASSIGN_OR_RETURN(const std::string text, core::ReadWholeFile(path, "answers file"));
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    Json parsed = Json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!parsed.is_object() || !parsed.contains("question_id") ||
        !parsed["question_id"].is_string()) {
      ++file.bad_lines;
      continue;
    }
    const std::string id = parsed["question_id"].get<std::string>();
    file.by_id[id] = std::move(parsed);
  }
  return file;
}

// Serialises what the workers share: the answers file, the failure streak, progress.
class RunState {
 public:
  RunState(const QaOptions& options, std::size_t total) : options_(options), total_(total) {}

  Status OpenAnswers() {
    if (options_.answers_path.empty()) return Status::Ok();
    out_.open(options_.answers_path, std::ios::out | std::ios::app | std::ios::binary);
    if (!out_)
      return Status::Unavailable("qa: cannot write the answers file " + options_.answers_path);
    return Status::Ok();
  }

  // Appends one question's line (when there is an answers file and `line` is not null: a
  // question reused whole is not written again) and reports progress.
  void Record(const Json* line, bool failed) {
    std::lock_guard lock(mutex_);
    if (out_.is_open() && line != nullptr) {
      out_ << line->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
      out_.flush();
      if (!out_ && stop_.ok()) {
        stop_ =
            Status::Unavailable("qa: cannot append to the answers file " + options_.answers_path);
      }
    }
    ++done_;
    if (failed) ++failed_;
    if (options_.progress != nullptr &&
        (done_ == 1 || done_ % kProgressEvery == 0 || done_ == total_)) {
      *options_.progress << "qa " << done_ << "/" << total_ << " questions, " << failed_
                         << " with a failure\n";
      options_.progress->flush();
    }
  }

  // One request's outcome: a success ends the failure streak, a failure extends it and, at
  // max_consecutive_failures, stops the run.
  void Request(const Role& role, const Status& status) {
    std::lock_guard lock(mutex_);
    if (status.ok()) {
      streak_ = 0;
      return;
    }
    ++streak_;
    if (streak_ >= options_.max_consecutive_failures && stop_.ok()) {
      stop_ = Status::Unavailable(
          "qa: stopped after " + std::to_string(streak_) + " failed requests in a row (is " +
          role.client->url() + " up and serving model '" + role.model.model +
          "'?); the last: " + std::string(status.message()) +
          (options_.answers_path.empty()
               ? ""
               : "; outcomes so far are in " + options_.answers_path + ", a rerun resumes"));
    }
  }

  bool stopped() {
    std::lock_guard lock(mutex_);
    return !stop_.ok();
  }
  Status stop_status() {
    std::lock_guard lock(mutex_);
    return stop_;
  }

 private:
  const QaOptions& options_;
  const std::size_t total_;
  std::mutex mutex_;
  std::ofstream out_;
  std::size_t done_ = 0;
  std::size_t failed_ = 0;
  std::size_t streak_ = 0;
  Status stop_ = Status::Ok();
};

// One question through answer and judge, reusing what `previous` (its answers-file line, or
// null) already holds for the same keys. Returns the question's new line.
Json AnswerAndJudge(const Setup& setup, const QaOptions& options, const QaQuestion& question,
                    const Json* previous, RunState& state, bool* reused_all) {
  Json line = Json::object();
  line["question_id"] = question.id;
  line["dataset"] = question.dataset;
  line["category"] = question.category;
  if (question.abstention) line["abstention"] = true;
  const std::string answer_prompt =
      qa::Render(setup.answer.prompts.For(question.category), question, "");
  const std::string answer_key = RequestKey(setup.answer, options, answer_prompt);
  line["answer_key"] = answer_key;
  line["context_tokens"] = question.context_tokens;

  bool answer_reused = false;
  std::string answer;
  if (previous != nullptr && StringField(*previous, "answer_key") == answer_key &&
      previous->contains("answer") && (*previous)["answer"].is_string()) {
    answer = (*previous)["answer"].get<std::string>();
    line["answer"] = answer;
    line["answer_usage"] = ObjectField(*previous, "answer_usage");
    line["answer_usage"]["fresh"] = false;
    answer_reused = true;
  } else {
    llm::ChatRequest request;
    request.messages = {{"user", answer_prompt}};
    request.max_tokens = setup.answer.model.max_tokens;
    request.seed = options.seed;
    StatusOr<llm::ChatReply> reply = setup.answer.client->Complete(request);
    state.Request(setup.answer, reply.status());
    if (!reply.ok()) {
      line["answer"] = nullptr;
      line["answer_error"] = std::string(reply.status().message());
      line["verdict"] = nullptr;
      *reused_all = false;
      return line;
    }
    answer = reply->content;
    line["answer"] = answer;
    line["answer_usage"] = UsageJson(reply->usage);
    line["answer_usage"]["fresh"] = true;
  }

  const std::string judge_prompt =
      qa::Render(setup.judge.prompts.For(qa::JudgeCategory(question)), question, answer);
  const std::string judge_key = RequestKey(setup.judge, options, judge_prompt);
  line["judge_key"] = judge_key;
  if (answer_reused && StringField(*previous, "judge_key") == judge_key &&
      previous->contains("verdict") && (*previous)["verdict"].is_boolean()) {
    line["verdict"] = (*previous)["verdict"];
    line["judge_reply"] = StringField(*previous, "judge_reply");
    line["judge_usage"] = ObjectField(*previous, "judge_usage");
    line["judge_usage"]["fresh"] = false;
    *reused_all = true;
    return line;
  }
  *reused_all = false;
  llm::ChatRequest request;
  request.messages = {{"user", judge_prompt}};
  request.max_tokens = setup.judge.model.max_tokens;
  request.seed = options.seed;
  StatusOr<llm::ChatReply> reply = setup.judge.client->Complete(request);
  StatusOr<bool> verdict = reply.ok() ? qa::ParseVerdict(reply->content) : reply.status();
  if (reply.ok()) {
    line["judge_reply"] = reply->content;
    line["judge_usage"] = UsageJson(reply->usage);
    line["judge_usage"]["fresh"] = true;
  }
  if (!verdict.ok() && reply.ok()) {
    verdict = Status::Unavailable("qa judge: " + std::string(verdict.status().message()));
  }
  state.Request(setup.judge, verdict.status());
  if (!verdict.ok()) {
    line["verdict"] = nullptr;
    line["judge_error"] = std::string(verdict.status().message());
    return line;
  }
  line["verdict"] = *verdict;
  return line;
}

struct Tally {
  std::size_t questions = 0;
  std::size_t judged = 0;
  std::size_t correct = 0;
  std::size_t failed = 0;
  void Add(const Json& line) {
    ++questions;
    const Json& verdict = line["verdict"];
    if (verdict.is_boolean()) {
      ++judged;
      if (verdict.get<bool>()) ++correct;
    } else {
      ++failed;
    }
  }
  Json ToJson() const {
    Json json = Json::object();
    json["questions"] = questions;
    json["judged"] = judged;
    json["correct"] = correct;
    json["failed"] = failed;
    json["accuracy"] = judged == 0
                           ? Json(nullptr)
                           : Json(static_cast<double>(correct) / static_cast<double>(judged));
    return json;
  }
};

Json ModelJson(const Role& role) {
  Json json = Json::object();
  json["url"] = role.client->url();
  json["model"] = role.model.model;
  json["prompt"] = role.prompts.source;
  json["max_tokens"] = role.model.max_tokens;
  json["price_in_per_million"] = role.model.price_in_per_million;
  json["price_out_per_million"] = role.model.price_out_per_million;
  return json;
}

}  // namespace

Status QaOptions::Validate() const {
  if (answer.base_url.empty()) {
    return Status::InvalidArgument("qa: the answer endpoint is required (--answer-with URL)");
  }
  if (!IsHttpUrl(answer.base_url)) {
    return Status::InvalidArgument(
        "qa: the answer endpoint must start with http:// or https:// "
        "(got '" +
        answer.base_url + "')");
  }
  if (answer.model.empty()) {
    return Status::InvalidArgument("qa: the answer model is required (--answer-model NAME)");
  }
  if (!judge.base_url.empty() && !IsHttpUrl(judge.base_url)) {
    return Status::InvalidArgument(
        "qa: the judge endpoint must start with http:// or https:// "
        "(got '" +
        judge.base_url + "')");
  }
  RETURN_IF_ERROR(CheckPrice(answer.price_in_per_million, "the answer's input price"));
  RETURN_IF_ERROR(CheckPrice(answer.price_out_per_million, "the answer's output price"));
  RETURN_IF_ERROR(CheckPrice(judge.price_in_per_million, "the judge's input price"));
  RETURN_IF_ERROR(CheckPrice(judge.price_out_per_million, "the judge's output price"));
  if (timeout.count() <= 0) return Status::InvalidArgument("qa: the timeout must be > 0");
  if (concurrency == 0) return Status::InvalidArgument("qa: concurrency must be >= 1");
  if (max_consecutive_failures == 0) {
    return Status::InvalidArgument("qa: max_consecutive_failures must be >= 1");
  }
  return Status::Ok();
}

StatusOr<io::Json> RunQa(const QaOptions& options, std::span<const QaQuestion> all) {
  const std::string dataset = all.empty() ? "locomo" : all.front().dataset;
  ASSIGN_OR_RETURN(const Setup setup, Prepare(options, dataset));
  std::vector<const QaQuestion*> questions;
  std::size_t excluded = 0;
  for (const QaQuestion& question : all) {
    if (question.dataset == "locomo" && question.category == "adversarial" &&
        !options.include_adversarial) {
      ++excluded;
      continue;
    }
    questions.push_back(&question);
  }
  ASSIGN_OR_RETURN(const AnswersFile previous, ReadAnswers(options.answers_path));
  RunState state(options, questions.size());
  RETURN_IF_ERROR(state.OpenAnswers());

  std::vector<Json> lines(questions.size());
  std::vector<char> reused(questions.size(), 0);  // not vector<bool>: workers write neighbours
  std::atomic<std::size_t> next{0};
  const auto work = [&] {
    for (std::size_t idx = next++; idx < questions.size() && !state.stopped(); idx = next++) {
      const QaQuestion& question = *questions[idx];
      const auto found = previous.by_id.find(question.id);
      bool reused_all = false;
      Json line = AnswerAndJudge(setup, options, question,
                                 found == previous.by_id.end() ? nullptr : &found->second, state,
                                 &reused_all);
      const bool failed = !line["verdict"].is_boolean();
      state.Record(reused_all ? nullptr : &line, failed);
      lines[idx] = std::move(line);
      reused[idx] = reused_all;
    }
  };
  const std::size_t workers =
      std::min(options.concurrency, std::max<std::size_t>(questions.size(), 1));
  std::vector<std::thread> threads;
  for (std::size_t worker = 1; worker < workers; ++worker) threads.emplace_back(work);
  work();
  for (std::thread& thread : threads) thread.join();
  RETURN_IF_ERROR(state.stop_status());

  Tally overall;
  Tally abstention;
  std::map<std::string, Tally> by_category;
  Usage answer_usage;
  Usage judge_usage;
  std::size_t fresh_requests = 0;
  std::size_t resumed = 0;
  std::size_t answer_failed = 0;
  std::size_t judge_failed = 0;
  double context_tokens = 0;
  Json failures = Json::array();
  for (std::size_t idx = 0; idx < questions.size(); ++idx) {
    const Json& line = lines[idx];
    overall.Add(line);
    by_category[questions[idx]->category].Add(line);
    if (questions[idx]->abstention) abstention.Add(line);
    if (reused[idx]) ++resumed;
    context_tokens += static_cast<double>(questions[idx]->context_tokens);
    for (const char* role : {"answer", "judge"}) {
      const auto usage = line.find(std::string(role) + "_usage");
      if (usage == line.end()) continue;
      (std::string_view(role) == "answer" ? answer_usage : judge_usage).Add(*usage);
      if (usage->value("fresh", false)) ++fresh_requests;
    }
    for (const char* role : {"answer", "judge"}) {
      const auto error = line.find(std::string(role) + "_error");
      if (error == line.end()) continue;
      ++(std::string_view(role) == "answer" ? answer_failed : judge_failed);
      if (failures.size() < kListedFailures) {
        Json failure = Json::object();
        failure["question_id"] = questions[idx]->id;
        failure["role"] = role;
        failure["error"] = *error;
        failures.push_back(std::move(failure));
      }
    }
  }

  Json report = Json::object();
  report["protocol"] = dataset == "locomo" ? kLocomoProtocol : kLongMemEvalProtocol;
  report["answer"] = ModelJson(setup.answer);
  report["judge"] = ModelJson(setup.judge);
  report["temperature"] = 0;
  report["seed"] = options.seed ? Json(*options.seed) : Json(nullptr);
  report["concurrency"] = options.concurrency;
  report["timeout_ms"] = options.timeout.count();
  const Json totals = overall.ToJson();
  for (auto entry = totals.begin(); entry != totals.end(); ++entry) report[entry.key()] = *entry;
  report["accuracy_over_all"] =
      overall.questions == 0
          ? Json(nullptr)
          : Json(static_cast<double>(overall.correct) / static_cast<double>(overall.questions));
  report["excluded"] = excluded;
  if (excluded > 0) report["excluded_why"] = "LoCoMo category 5 (adversarial), as published";
  Json categories = Json::object();
  for (const auto& [category, tally] : by_category) categories[category] = tally.ToJson();
  report["by_category"] = std::move(categories);
  if (dataset == "longmemeval") report["abstention"] = abstention.ToJson();
  Json failed = Json::object();
  failed["answer"] = answer_failed;
  failed["judge"] = judge_failed;
  report["failures_by_role"] = std::move(failed);
  report["failures"] = std::move(failures);
  report["resumed"] = resumed;
  report["requests_this_run"] = fresh_requests;
  report["context_tokens_mean"] =
      questions.empty() ? 0.0 : context_tokens / static_cast<double>(questions.size());
  Json tokens = Json::object();
  tokens["answer"] = answer_usage.ToJson();
  tokens["judge"] = judge_usage.ToJson();
  report["tokens"] = std::move(tokens);
  Json cost = Json::object();
  const double answer_cost = answer_usage.Cost(setup.answer.model);
  const double judge_cost = judge_usage.Cost(setup.judge.model);
  cost["answer_usd"] = answer_cost;
  cost["judge_usd"] = judge_cost;
  cost["total_usd"] = answer_cost + judge_cost;
  cost["per_question_usd"] =
      questions.empty() ? 0.0 : (answer_cost + judge_cost) / static_cast<double>(questions.size());
  cost["note"] =
      "from the token counts the endpoints report (all questions, resumed ones too) "
      "and the given prices";
  report["cost"] = std::move(cost);
  report["answers_file"] =
      options.answers_path.empty() ? Json(nullptr) : Json(options.answers_path);
  report["answers_file_bad_lines"] = previous.bad_lines;
  return report;
}

StatusOr<io::Json> RunBenchWithQa(BenchDataset dataset, BenchOptions bench,
                                  const QaOptions& options) {
  const std::string name = dataset == BenchDataset::kLocomo ? "locomo" : "longmemeval";
  RETURN_IF_ERROR(Prepare(options, name).status());
  if (!options.answers_path.empty()) {
    // Refuse an answers file that cannot be written before the retrieval run, not after it.
    std::ofstream probe(options.answers_path, std::ios::out | std::ios::app | std::ios::binary);
    if (!probe) {
      return Status::Unavailable("qa: cannot write the answers file " + options.answers_path);
    }
  }
  std::vector<QaQuestion> questions;
  bench.qa_sink = [&questions](QaQuestion question) { questions.push_back(std::move(question)); };
  ASSIGN_OR_RETURN(io::Json report, dataset == BenchDataset::kLocomo ? RunLocomoBench(bench)
                                                                     : RunLongMemEvalBench(bench));
  ASSIGN_OR_RETURN(io::Json qa_report, RunQa(options, questions));
  report["qa"] = std::move(qa_report);
  return report;
}

}  // namespace engram::eval
