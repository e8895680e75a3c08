// qa_prompts: the prompts of the QA harness (qa.h) and the reading of the judge's verdict.
//
// A prompt is a template; these placeholders are replaced, any other text (JSON braces
// included) is sent as written:
//   {question} {gold_answer} {answer} {context} {question_date} {category}
// {answer} is the answer model's reply (judge prompts only); {context} the packed context of
// the user recall. Every prompt is sent as one user message.
//
// The built-in prompts are written for engram, following the criteria of the published
// protocols; docs/BENCHMARKS.md says where each differs from the original text. A user who has
// the original prompts can pass them as a file: plain text (one template for every category),
// or a JSON object of templates by category with a "default" entry, e.g.
//   {"default": "...", "temporal-reasoning": "...", "abstention": "..."}
// (LongMemEval's abstention questions use the "abstention" entry, whatever their type).
//
// Thread-safety: pure functions and immutable values.
#ifndef ENGRAM_EVAL_QA_PROMPTS_H_
#define ENGRAM_EVAL_QA_PROMPTS_H_

#include <map>
#include <string>
#include <string_view>

#include "engram/status.h"
#include "eval/bench.h"

namespace engram::eval::qa {

enum class PromptRole { kAnswer, kJudge };

// Templates by category, with a default.
struct PromptSet {
  std::string source;  // "built-in locomo answer", or the file's path
  std::string default_template;
  std::map<std::string, std::string, std::less<>> by_category;

  const std::string& For(std::string_view category) const;
};

// The built-in prompts of `dataset` ("locomo" or "longmemeval").
PromptSet BuiltInPrompts(std::string_view dataset, PromptRole role);

// A prompt file (see above). kNotFound for a missing file; kInvalidArgument naming the file for
// a JSON object without "default" or with a non-string entry, and for a template missing a
// placeholder the role needs ({question} and {context} to answer; {question}, {answer} to judge).
StatusOr<PromptSet> LoadPromptFile(const std::string& path, PromptRole role);

// The category whose template judges `question`: "abstention" for LongMemEval's abstention
// questions, else its category.
std::string JudgeCategory(const QaQuestion& question);

// `prompt` with the placeholders filled from `question` and `answer`.
std::string Render(std::string_view prompt, const QaQuestion& question, std::string_view answer);

// The judge's verdict: a JSON object whose "label" is CORRECT or WRONG (the LoCoMo judge's
// form, fenced or not), else the first or the last word of the reply when it is yes / correct
// (true) or no / wrong / incorrect (false). kInvalidArgument quoting the reply otherwise.
StatusOr<bool> ParseVerdict(std::string_view reply);

}  // namespace engram::eval::qa

#endif  // ENGRAM_EVAL_QA_PROMPTS_H_
