// qa: the end-to-end QA harness behind `engram bench locomo|longmemeval --answer-with URL`.
// Each question's packed context (the user recall's, bench.h) goes to an answer model with a
// documented prompt; a judge model then says whether the answer matches the gold answer, under
// the rules of the dataset's published protocol (qa_prompts.h): LoCoMo's LLM-judge J-score, a
// binary CORRECT / WRONG lenient on wording and strict on facts and dates, categories 1-4 (the
// adversarial category 5 is excluded, as the published figures do); LongMemEval's per-type
// judging (temporal off-by-one tolerance, the latest value for knowledge updates, a rubric for
// preferences, abstention recognised as such). Both models are any OpenAI-compatible
// chat-completions endpoint (llm/chat_client.h).
//
//   QaOptions qa;
//   qa.answer.base_url = "http://127.0.0.1:11434/v1";
//   qa.answer.model = "qwen2.5:7b-instruct";
//   qa.answers_path = "locomo.answers.jsonl";
//   ASSIGN_OR_RETURN(io::Json report, RunBenchWithQa(BenchDataset::kLocomo, bench, qa));
//   // report["qa"]: accuracy overall and per category, tokens and cost per role, failures.
//
// Resumable: every question's outcome is appended to answers_path as one JSON line, keyed by
// the question id, a hash of the answer settings (model, prompt, sampling, the context sent)
// and a hash of the judge settings. A rerun reuses a line whose keys match (an answered and
// judged question costs nothing again; an answered one whose judging failed or changed is only
// judged), and asks again what failed. The last line of a question wins.
//
// Failures (HTTP errors, timeouts, malformed replies, a judge reply without a verdict) are
// counted per role and listed with their messages; they are not scored. After
// max_consecutive_failures failed requests in a row the run stops with kUnavailable naming the
// endpoint and the last error, keeping what was written, so an endpoint that is down fails
// fast instead of timing out question after question.
//
// Deterministic settings: temperature 0 and, when given, a fixed seed; answers are reported in
// question order whatever the concurrency.
#ifndef ENGRAM_EVAL_QA_H_
#define ENGRAM_EVAL_QA_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <span>
#include <string>

#include "engram/status.h"
#include "eval/bench.h"
#include "io/api_json.h"

namespace engram::eval {

// One model endpoint and its prices.
struct QaModel {
  // Endpoint prefix; requests go to base_url + "/chat/completions". Required for the answerer;
  // the judge's defaults to the answerer's.
  std::string base_url;
  // Model name. Required for the answerer; the judge's defaults to the answerer's.
  std::string model;
  // Bearer token. Default: none.
  std::string api_key;
  // Prompt template file (qa_prompts.h: placeholders, or a JSON object of templates per
  // category). Default: "" = the built-in prompt of the dataset.
  std::string prompt_file;
  // Completion length limit per request. Default: answer 200, judge 100.
  std::size_t max_tokens = 0;
  // US dollars per million prompt (input) and completion (output) tokens, for the cost
  // estimate. Default: 0 = free (a local model).
  double price_in_per_million = 0;
  double price_out_per_million = 0;
};

struct QaOptions {
  QaModel answer;
  // Empty base_url / model: the answerer's endpoint and model. Prices and key likewise default
  // to the answerer's when the judge's base_url and model are both empty.
  QaModel judge;
  // Sent as "seed" when set. Default: none.
  std::optional<std::int64_t> seed;
  // Per request: connect, send and wait between bytes of the reply. Default: 120 s.
  std::chrono::milliseconds timeout{120000};
  // Requests in flight at once. Default: 1.
  std::size_t concurrency = 1;
  // JSONL file of per-question outcomes, appended to and reused by reruns (see above).
  // Default: "" = none (nothing is resumable).
  std::string answers_path;
  // Failed requests in a row after which the run stops. Default: 5.
  std::size_t max_consecutive_failures = 5;
  // LoCoMo: also answer and judge category 5 (adversarial: the conversation does not hold the
  // answer; correct is saying so, judged by its own prompt with the file's adversarial_answer
  // as the trap). Default: false, as the published J-scores.
  bool include_adversarial = false;
  // Progress lines ("qa 12/200 ..."). Default: nullptr = silent.
  std::ostream* progress = nullptr;

  // kInvalidArgument naming the first bad field (a URL that is not http(s), a missing model, a
  // negative or non-finite price, zero concurrency or timeout).
  Status Validate() const;
};

// Answers and judges `questions` (bench.h QaQuestion, all of one dataset) and returns the
// report's "qa" object: "protocol", "answer" / "judge" (endpoint, model, prompt), "questions",
// "judged", "correct", "accuracy", "by_category" (questions, judged, correct, accuracy, failed),
// "abstention" (LongMemEval), "failed" {"answer", "judge"}, "failures" (the first 20 with
// their messages), "resumed", "tokens" and "cost" per role, "answers_file".
// Errors: options' kInvalidArgument, prompt files' kNotFound / kInvalidArgument, kUnavailable
// when answers_path cannot be written or the endpoint fails max_consecutive_failures times in
// a row.
StatusOr<io::Json> RunQa(const QaOptions& options, std::span<const QaQuestion> questions);

enum class BenchDataset { kLocomo, kLongMemEval };

// The retrieval run of `dataset` (RunLocomoBench / RunLongMemEvalBench) with every question
// collected through BenchOptions::qa_sink, then RunQa over them; the QA report is added to the
// retrieval report as "qa". The options are checked before anything is ingested.
StatusOr<io::Json> RunBenchWithQa(BenchDataset dataset, BenchOptions bench,
                                  const QaOptions& options);

}  // namespace engram::eval

#endif  // ENGRAM_EVAL_QA_H_
