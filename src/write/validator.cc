// The fact validator (see validator.h).
#include "write/validator.h"

#include <algorithm>
#include <cctype>
#include <initializer_list>
#include <vector>

#include "text/stopwords.h"

namespace engram::write {
namespace {

bool In(std::string_view word, std::initializer_list<std::string_view> set) {
  return std::find(set.begin(), set.end(), word) != set.end();
}

std::vector<std::string> Words(std::string_view normalized) {
  std::vector<std::string> words;
  std::size_t pos = 0;
  while (pos < normalized.size()) {
    const std::size_t space = normalized.find(' ', pos);
    const std::size_t end = space == std::string_view::npos ? normalized.size() : space;
    if (end > pos) words.emplace_back(normalized.substr(pos, end - pos));
    pos = end + 1;
  }
  return words;
}

// Words of `text` as written (split at anything that is not a letter, digit or non-ASCII byte).
std::vector<std::string_view> RawWords(std::string_view text) {
  std::vector<std::string_view> words;
  std::size_t begin = 0;
  bool open = false;
  for (std::size_t pos = 0; pos <= text.size(); ++pos) {
    const bool inside =
        pos < text.size() && (static_cast<unsigned char>(text[pos]) >= 0x80 ||
                              std::isalnum(static_cast<unsigned char>(text[pos])));
    if (inside && !open) {
      begin = pos;
      open = true;
    } else if (!inside && open) {
      words.push_back(text.substr(begin, pos - begin));
      open = false;
    }
  }
  return words;
}

bool IsAnchor(std::string_view word) {
  if (word.empty()) return false;
  const unsigned char first = static_cast<unsigned char>(word[0]);
  return std::isdigit(first) || std::isupper(first);
}

// Every anchor word of `phrase` occurs verbatim as a word of `source`.
bool AnchorsVerbatim(std::string_view phrase, std::string_view source, std::string* missing) {
  const std::vector<std::string_view> source_words = RawWords(source);
  for (const std::string_view word : RawWords(phrase)) {
    if (!IsAnchor(word)) continue;
    if (std::find(source_words.begin(), source_words.end(), word) == source_words.end()) {
      *missing = std::string(word);
      return false;
    }
  }
  return true;
}

Verdict Reject(FactCheck check, std::string reason) {
  return Verdict{false, check, std::move(reason)};
}

}  // namespace

std::string_view FactCheckName(FactCheck check) {
  switch (check) {
    case FactCheck::kSupport: return "support";
    case FactCheck::kHard: return "hard";
    case FactCheck::kSubject: return "subject";
    case FactCheck::kAct: return "act";
  }
  return "support";
}

Verdict ValidateFact(const FactCandidate& candidate, const FactSource& source,
                     const ValidatorOptions& options) {
  // The sentence the candidate stands on; a candidate without a span is checked on the turn.
  const bool has_span = candidate.end > candidate.begin && candidate.end <= source.text.size();
  const SentenceInfo* sentence = nullptr;
  if (has_span && !source.sentences.empty()) {
    sentence = &source.sentences[source.SentenceAt(candidate.begin)];
  }
  const std::string_view scope_text =
      sentence != nullptr
          ? std::string_view(source.text).substr(sentence->begin, sentence->end - sentence->begin)
          : std::string_view(source.text);

  // V_act.
  if (sentence != nullptr) {
    if (sentence->question) return Reject(FactCheck::kAct, "question");
    if (sentence->hypothetical) return Reject(FactCheck::kAct, "hypothetical");
    if (sentence->hearsay) return Reject(FactCheck::kAct, "hearsay");
    // An instruction is a request by nature ("Please don't use emojis"); anything else inside
    // a request or a negated imperative is not asserted.
    if (candidate.predicate != "instruction") {
      if (sentence->request) return Reject(FactCheck::kAct, "request");
      if (sentence->negated_imperative) {
        return Reject(FactCheck::kAct, "inside a negated imperative");
      }
    }
  } else {
    // Whole-turn checks for candidates without a span.
    const bool any_assertion = std::any_of(
        source.sentences.begin(), source.sentences.end(), [](const SentenceInfo& info) {
          return !info.question && !info.hypothetical && !info.hearsay && !info.request;
        });
    if (!any_assertion) return Reject(FactCheck::kAct, "no assertion in the turn");
  }

  // V_subject.
  const std::string subject = NormalizeFactText(candidate.subject);
  if (subject.empty()) return Reject(FactCheck::kSubject, "empty subject");
  if (candidate.subject_is_speaker) {
    if (subject != NormalizeFactText(source.speaker)) {
      return Reject(FactCheck::kSubject, "subject is not the speaker");
    }
  } else {
    if (In(subject, {"he", "she", "they", "it", "him", "her", "them", "someone", "somebody",
                     "you", "i", "we", "this", "that"})) {
      return Reject(FactCheck::kSubject, "unresolved pronoun subject");
    }
    if (!IsAnchor(candidate.subject)) return Reject(FactCheck::kSubject, "subject is not a name");
    std::string missing;
    if (!AnchorsVerbatim(candidate.subject, source.text, &missing)) {
      return Reject(FactCheck::kSubject, "subject \"" + missing + "\" is not in the turn");
    }
  }

  // V_support.
  const std::string object = NormalizeFactText(candidate.object);
  if (object.empty()) return Reject(FactCheck::kSupport, "empty object");
  const std::vector<std::string> object_words = Words(object);
  const std::vector<std::string> source_words = Words(NormalizeFactText(scope_text));
  std::size_t content = 0;
  std::size_t found = 0;
  for (const std::string& word : object_words) {
    if (text::IsStopword(word) && object_words.size() > 1) continue;
    ++content;
    if (std::find(source_words.begin(), source_words.end(), word) != source_words.end()) ++found;
  }
  if (content == 0 || static_cast<double>(found) < options.min_support * content) {
    return Reject(FactCheck::kSupport, "object words not in the source (" +
                                          std::to_string(found) + " of " +
                                          std::to_string(content) + ")");
  }

  // V_hard.
  std::string missing;
  if (!AnchorsVerbatim(candidate.object, scope_text, &missing)) {
    return Reject(FactCheck::kHard, "anchor \"" + missing + "\" is not verbatim in the source");
  }
  if (object_words.size() > options.max_object_words) {
    return Reject(FactCheck::kHard, "object longer than " +
                                        std::to_string(options.max_object_words) + " words");
  }
  if (In(object, {"it", "that", "this", "them", "there", "one", "him", "her", "these", "those",
                  "something", "anything", "everything", "nothing", "you", "me", "us", "here"})) {
    return Reject(FactCheck::kHard, "object is a pronoun");
  }
  const std::string& predicate = candidate.predicate;
  if (In(predicate, {"lives_in", "lived_in", "from"}) && !candidate.negated &&
      !IsAnchor(candidate.object)) {
    return Reject(FactCheck::kHard, predicate + " needs a place name");
  }
  // An event without a time expression keeps its implicit time: it happened by the time it was
  // told ("I adopted a dog"), and the store dates it by the turn (write/facts.cc).
  if (candidate.kind == FactKind::kRelation && !IsAnchor(candidate.object) &&
      !candidate.object_is_name) {
    return Reject(FactCheck::kHard, "relation needs a name");
  }
  if (predicate == "budget" &&
      std::none_of(candidate.object.begin(), candidate.object.end(),
                   [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
    return Reject(FactCheck::kHard, "budget without an amount");
  }
  if (candidate.time.has_value() && candidate.time->to <= candidate.time->from) {
    return Reject(FactCheck::kHard, "empty time interval");
  }
  return Verdict{};
}

void ValidationCounts::Add(const Verdict& verdict) {
  ++candidates;
  if (verdict.accepted) {
    ++accepted;
  } else {
    ++rejected[static_cast<std::size_t>(verdict.failed)];
  }
}

ValidationCounts& ValidationCounts::operator+=(const ValidationCounts& other) {
  candidates += other.candidates;
  accepted += other.accepted;
  for (std::size_t check_idx = 0; check_idx < rejected.size(); ++check_idx) {
    rejected[check_idx] += other.rejected[check_idx];
  }
  return *this;
}

}  // namespace engram::write
