// The QA harness's prompts and verdicts (see qa_prompts.h). The wording is engram's own; the
// criteria follow LoCoMo's LLM-judge J-score as mem0's paper reports it and LongMemEval's
// per-type judging rules (docs/BENCHMARKS.md lists the differences).
#include "eval/qa_prompts.h"

#include <cctype>
#include <nlohmann/json.hpp>
#include <vector>

#include "core/files.h"
#include "llm/chat_client.h"

namespace engram::eval::qa {
namespace {

constexpr std::string_view kLocomoAnswer =
    "You answer questions about a long conversation between two people. Below are memories "
    "retrieved from that conversation; each shows when it was said.\n\n"
    "Memories:\n{context}\n\n"
    "Question (asked on {question_date}): {question}\n\n"
    "How to answer:\n"
    "- Use only the memories above. When they disagree, the most recent one counts.\n"
    "- Turn relative times (\"last week\", \"yesterday\") into dates, counted from the date the "
    "memory was said.\n"
    "- Be brief: a short phrase of a few words, not a full sentence, unless the question asks "
    "for more.\n"
    "- When the memories do not state the answer, give the answer they best support.\n\n"
    "Answer:";

constexpr std::string_view kLocomoJudge =
    "You grade an answer to a question about a conversation. Compare the generated answer with "
    "the gold answer and label it CORRECT or WRONG.\n\n"
    "Question: {question}\n"
    "Gold answer: {gold_answer}\n"
    "Generated answer: {answer}\n\n"
    "Rules:\n"
    "- Be generous about wording and length: a generated answer that states what the gold "
    "answer states is CORRECT even when it is longer, worded differently or adds harmless "
    "detail.\n"
    "- Be strict about facts: another person, place, thing, number or event is WRONG, and so is "
    "an answer that says it does not know.\n"
    "- Dates and times: the same date or period written another way (\"May 7th\" for \"7 May "
    "2023\", \"the week before 9 June\" for \"early June\") is CORRECT; another date is WRONG.\n\n"
    "Reply with a JSON object only, one sentence of reasoning first: "
    "{\"reasoning\": \"...\", \"label\": \"CORRECT\"} or {\"reasoning\": \"...\", \"label\": "
    "\"WRONG\"}.";

// LoCoMo category 5 (only with QaOptions::include_adversarial): the question asks about
// something the conversation never says; {gold_answer} is the file's adversarial_answer, the
// answer a careless reader would give.
constexpr std::string_view kLocomoJudgeAdversarial =
    "You grade an answer to a trick question about a conversation. The conversation never says "
    "what the question asks; a careless reader would answer \"{gold_answer}\".\n\n"
    "Question: {question}\n"
    "Generated answer: {answer}\n\n"
    "Label it CORRECT if the generated answer says the conversation does not mention it, or that "
    "the information is not available. Label it WRONG if it gives an answer as if it were known, "
    "above all \"{gold_answer}\".\n\n"
    "Reply with a JSON object only, one sentence of reasoning first: "
    "{\"reasoning\": \"...\", \"label\": \"CORRECT\"} or {\"reasoning\": \"...\", \"label\": "
    "\"WRONG\"}.";

constexpr std::string_view kLongMemEvalAnswer =
    "Below are excerpts of your earlier chat sessions with a user, retrieved from memory, each "
    "with its date. The current date is {question_date}.\n\n"
    "{context}\n\n"
    "Answer the user's question using these excerpts. When the question is about time, reason "
    "from the dates of the excerpts and the current date. When the excerpts do not hold the "
    "information needed, say that you do not know instead of guessing.\n\n"
    "Question: {question}\n"
    "Answer:";

// The LongMemEval judge: a common frame and one rule per question type.
constexpr std::string_view kLongMemEvalJudgeHead =
    "Decide whether a model's response answers a question correctly.\n\n"
    "Question: {question}\n"
    "Correct answer: {gold_answer}\n"
    "Model response: {answer}\n\n";
constexpr std::string_view kLongMemEvalJudgeBase =
    "Say yes if the response contains the correct answer or an equivalent of it, also when it "
    "shows its reasoning or intermediate steps. Say no if it gives another answer, or only part "
    "of what the correct answer requires.";
constexpr std::string_view kLongMemEvalJudgeTemporal =
    " A difference of one in a count of days, weeks or months (18 days where 19 are expected) "
    "is not an error.";
constexpr std::string_view kLongMemEvalJudgeUpdate =
    " The correct answer is the latest value. A response that also mentions earlier values is "
    "correct as long as the answer it gives is the latest value.";
constexpr std::string_view kLongMemEvalJudgeTail = "\n\nReply with one word: yes or no.";
constexpr std::string_view kLongMemEvalJudgePreference =
    "Decide whether a model's response to a user meets a rubric.\n\n"
    "Question: {question}\n"
    "Rubric (what a good, personalised response does): {gold_answer}\n"
    "Model response: {answer}\n\n"
    "Say yes if the response recalls and uses the user's personal information the way the "
    "rubric describes; it need not cover every point of the rubric. Say no if it ignores that "
    "information or contradicts it.\n\n"
    "Reply with one word: yes or no.";
constexpr std::string_view kLongMemEvalJudgeAbstention =
    "A question was asked that cannot be answered from the user's chat history.\n\n"
    "Question: {question}\n"
    "Why it cannot be answered: {gold_answer}\n"
    "Model response: {answer}\n\n"
    "Say yes if the response recognises that it cannot answer: it says the information is not "
    "available or was never mentioned, or that it does not know. Say no if it answers as if the "
    "information were known.\n\n"
    "Reply with one word: yes or no.";

bool Contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

Status CheckPlaceholders(std::string_view prompt, PromptRole role, const std::string& path,
                         std::string_view entry) {
  const std::vector<std::string_view> needed =
      role == PromptRole::kAnswer ? std::vector<std::string_view>{"{question}", "{context}"}
                                  : std::vector<std::string_view>{"{question}", "{answer}"};
  for (const std::string_view placeholder : needed) {
    if (!Contains(prompt, placeholder)) {
      return Status::InvalidArgument(
          "prompt file " + path + (entry.empty() ? "" : " entry \"" + std::string(entry) + "\"") +
          " has no " + std::string(placeholder) + " placeholder (a " +
          (role == PromptRole::kAnswer ? "answer" : "judge") + " prompt needs it)");
    }
  }
  return Status::Ok();
}

// Lowercase ASCII words of `text`.
std::vector<std::string> Words(std::string_view text) {
  std::vector<std::string> words;
  std::string word;
  for (const char c : text) {
    if (std::isalpha(static_cast<unsigned char>(c))) {
      word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!word.empty()) {
      words.push_back(std::move(word));
      word.clear();
    }
  }
  if (!word.empty()) words.push_back(std::move(word));
  return words;
}

std::optional<bool> WordVerdict(const std::string& word) {
  if (word == "yes" || word == "correct") return true;
  if (word == "no" || word == "wrong" || word == "incorrect") return false;
  return std::nullopt;
}

}  // namespace

const std::string& PromptSet::For(std::string_view category) const {
  const auto found = by_category.find(category);
  return found == by_category.end() ? default_template : found->second;
}

PromptSet BuiltInPrompts(std::string_view dataset, PromptRole role) {
  PromptSet set;
  const bool locomo = dataset == "locomo";
  set.source = std::string("built-in ") + (locomo ? "locomo" : "longmemeval") +
               (role == PromptRole::kAnswer ? " answer" : " judge");
  if (role == PromptRole::kAnswer) {
    set.default_template = locomo ? kLocomoAnswer : kLongMemEvalAnswer;
    return set;
  }
  if (locomo) {
    set.default_template = kLocomoJudge;
    set.by_category["adversarial"] = kLocomoJudgeAdversarial;
    return set;
  }
  const auto judge = [](std::string_view rule) {
    return std::string(kLongMemEvalJudgeHead) + std::string(kLongMemEvalJudgeBase) +
           std::string(rule) + std::string(kLongMemEvalJudgeTail);
  };
  set.default_template = judge("");
  set.by_category["temporal-reasoning"] = judge(kLongMemEvalJudgeTemporal);
  set.by_category["knowledge-update"] = judge(kLongMemEvalJudgeUpdate);
  set.by_category["single-session-preference"] = kLongMemEvalJudgePreference;
  set.by_category["abstention"] = kLongMemEvalJudgeAbstention;
  return set;
}

StatusOr<PromptSet> LoadPromptFile(const std::string& path, PromptRole role) {
  ASSIGN_OR_RETURN(const std::string text, core::ReadWholeFile(path, "prompt file"));
  PromptSet set;
  set.source = path;
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && text[first] == '{') {
    const nlohmann::json parsed = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (parsed.is_object()) {
      for (auto entry = parsed.begin(); entry != parsed.end(); ++entry) {
        if (!entry->is_string()) {
          return Status::InvalidArgument("prompt file " + path + ": entry \"" + entry.key() +
                                         "\" is not a string");
        }
        RETURN_IF_ERROR(CheckPlaceholders(entry->get<std::string>(), role, path, entry.key()));
        if (entry.key() == "default") {
          set.default_template = entry->get<std::string>();
        } else {
          set.by_category[entry.key()] = entry->get<std::string>();
        }
      }
      if (set.default_template.empty()) {
        return Status::InvalidArgument("prompt file " + path +
                                       ": a JSON object of prompts needs a \"default\" entry");
      }
      return set;
    }
    // Not a JSON object: a plain template that happens to start with a brace.
  }
  RETURN_IF_ERROR(CheckPlaceholders(text, role, path, ""));
  set.default_template = text;
  return set;
}

std::string JudgeCategory(const QaQuestion& question) {
  return question.abstention ? "abstention" : question.category;
}

std::string Render(std::string_view prompt, const QaQuestion& question, std::string_view answer) {
  const std::pair<std::string_view, std::string_view> values[] = {
      {"{question}", question.question},
      {"{gold_answer}", question.gold_answer},
      {"{answer}", answer},
      {"{context}", question.context},
      {"{question_date}", question.question_date},
      {"{category}", question.category}};
  std::string out;
  out.reserve(prompt.size() + question.context.size());
  std::size_t at = 0;
  while (at < prompt.size()) {
    bool replaced = false;
    if (prompt[at] == '{') {
      for (const auto& [placeholder, value] : values) {
        if (prompt.substr(at, placeholder.size()) == placeholder) {
          out += value;
          at += placeholder.size();
          replaced = true;
          break;
        }
      }
    }
    if (!replaced) out += prompt[at++];
  }
  return out;
}

StatusOr<bool> ParseVerdict(std::string_view reply) {
  const std::string_view body = llm::StripCodeFences(reply);
  const nlohmann::json parsed = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_object()) {
    for (const char* field : {"label", "verdict"}) {
      const auto found = parsed.find(field);
      if (found == parsed.end() || !found->is_string()) continue;
      const std::vector<std::string> words = Words(found->get<std::string>());
      if (words.size() == 1) {
        if (const std::optional<bool> verdict = WordVerdict(words[0])) return *verdict;
      }
    }
  }
  const std::vector<std::string> words = Words(reply);
  if (!words.empty()) {
    if (const std::optional<bool> verdict = WordVerdict(words.front())) return *verdict;
    if (const std::optional<bool> verdict = WordVerdict(words.back())) return *verdict;
  }
  return Status::InvalidArgument("the judge's reply holds no verdict (CORRECT/WRONG or yes/no): '" +
                                 std::string(reply.substr(0, 120)) + "'");
}

}  // namespace engram::eval::qa
