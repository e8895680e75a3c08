// The rule extractor shared by extractor.cc and the extractor_*.cc files: one Extractor per
// ExtractRuleFacts call walks the turn's sentences, builds each sentence's word stream
// (text/word_stream.h: contractions expanded) and runs the rule families on it, one file each:
// the memory acts of text/signals.h as facts (extractor_acts.cc), relations and statements about
// a named third person (extractor_people.cc), events with a time (extractor_events.cc), plans and
// temporary states (extractor_foresight.cc) and technical facts (extractor_technical.cc). Which
// predicates are single-valued, and their past forms, come from the predicate schema
// (predicates.h).
//
// Internal to engram_write: include only from the extractor*.cc files.
//
// Thread-safety: one Extractor per call; not shared between threads.
#ifndef ENGRAM_WRITE_RULE_EXTRACTOR_H_
#define ENGRAM_WRITE_RULE_EXTRACTOR_H_

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "text/normalize.h"
#include "text/word_stream.h"
#include "write/extractor.h"
#include "write/predicates.h"

namespace engram::write::rule_extractor {

inline bool In(std::string_view word, std::initializer_list<std::string_view> set) {
  return std::find(set.begin(), set.end(), word) != set.end();
}

// One word of a sentence after contractions are expanded ("I'm" -> "i" "am"). Both halves keep
// the byte span of the written word.
struct Word {
  std::string text;  // lower case
  std::uint32_t begin = 0;
  std::uint32_t end = 0;
  bool capitalized = false;
  bool punct = false;
  bool first = false;  // first word of the sentence
};

inline bool IsFirstPerson(std::string_view word) { return word == "i" || word == "we"; }

inline bool IsPronounObject(std::string_view normalized) {
  return In(normalized, {"it", "that", "this", "them", "there", "one", "him", "her", "these",
                         "those", "something", "anything", "everything", "nothing", "you",
                         "me", "us", "here", "so", "too", "a lot", "lot", "stuff", "things"});
}

inline std::string Snake(std::string_view normalized) {
  std::string out;
  for (const char c : normalized) out.push_back(c == ' ' ? '_' : c);
  return out;
}

// One ExtractRuleFacts call over `source` (which must outlive it). Run() walks the sentences in
// order; while a sentence is read, sentence_ points at it and words_ holds its word stream, and
// every rule appends candidates to out_, which Run() sorts by position and deduplicates.
class Extractor {
 public:
  Extractor(const FactSource& source, const RuleExtractorOptions& options)
      : source_(source), options_(options) {}

  std::vector<FactCandidate> Run();

 private:
  std::string_view At(std::size_t k) const {
    return k < words_.size() ? std::string_view(words_[k].text) : std::string_view();
  }

  bool Is(std::size_t k, std::string_view word) const { return At(k) == word; }

  std::size_t SkipAdverbs(std::size_t k) const {
    while (k < words_.size() && text::IsAdverb(words_[k].text)) ++k;
    return k;
  }

  bool InTime(std::uint32_t at) const {
    for (const text::TimeMention& time : source_.times) {
      if (at >= time.begin && at < time.end) return true;
    }
    return false;
  }

  // The object phrase from word k: articles skipped, up to a clause boundary, a stop word, a
  // time expression or max words. Returns the byte span, or {0, 0} when empty.
  std::pair<std::uint32_t, std::uint32_t> ObjectFrom(
      std::size_t k, std::initializer_list<std::string_view> extra_stops = {}) const;

  std::string Span(std::uint32_t begin, std::uint32_t end) const {
    return source_.text.substr(begin, end - begin);
  }

  // The first time mention of the sentence outside [begin, end).
  std::optional<FactTime> SentenceTime(std::uint32_t begin, std::uint32_t end) const {
    for (const text::TimeMention& time : source_.times) {
      if (time.begin < sentence_->begin || time.begin >= sentence_->end) continue;
      if (time.begin < end && time.end > begin) continue;
      return FactTime{time.surface, time.from, time.to,
                      std::string(text::GranularityName(time.granularity))};
    }
    return std::nullopt;
  }

  bool SentenceHedged() const { return sentence_->hedged; }

  FactCandidate& Add(std::string predicate, std::uint32_t obj_begin, std::uint32_t obj_end,
                     FactKind kind, std::uint32_t begin);

  // The byte span of the act's value inside the act's span: the shortest run of lexemes whose
  // normalised text equals the value. {0, 0} if none.
  std::pair<std::uint32_t, std::uint32_t> ValueSpan(const text::Signal& act) const;

  // Cuts [begin, end) before the first of `stops` after its first word ("Lisbon with my
  // husband" -> "Lisbon").
  std::pair<std::uint32_t, std::uint32_t> CutAt(
      std::uint32_t begin, std::uint32_t end,
      std::initializer_list<std::string_view> stops) const;

  // Splits "peanuts and shellfish" / "sushi, ramen" into parts of at most three words.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> SplitList(std::uint32_t begin,
                                                                 std::uint32_t end) const;

  bool ActInSentence(const text::Signal& signal) const {
    return signal.begin >= sentence_->begin && signal.begin < sentence_->end;
  }

  void FromActs();

  // "be a / an N" as a diet or a job where the grammar says so (extractor_acts.cc).
  bool Identity(std::uint32_t begin, std::uint32_t end, bool past, std::uint32_t subject_at);
  void State(const text::Signal& act, std::uint32_t begin, std::uint32_t end, bool past,
             bool negative);

  void Replacement(const text::Signal& act);

  // The capitalised name starting at word k (up to three words), as [k, end).
  std::size_t NameEnd(std::size_t k) const {
    std::size_t end = k;
    while (end < words_.size() && end - k < 3 && words_[end].capitalized && !words_[end].punct &&
           !IsFirstPerson(words_[end].text) && !(end == k && words_[end].first)) {
      ++end;
    }
    return end;
  }

  // "my sister Anna", "Anna is my sister".
  void Relations();

  bool IsPersonAt(std::uint32_t begin) const {
    for (const text::Signal& signal : source_.signals) {
      if (signal.kind == text::SignalKind::kPerson && signal.begin == begin) return true;
    }
    return false;
  }

  // "<Name> lives in X", "my sister Anna works at X", "Anna moved to X".
  void ThirdPerson();

  // First-person subject at k followed by adverbs: the index of the verb, or npos.
  // A first-person subject at k that opens a clause ("Yesterday I went", "..., and I went"), not
  // one inside a relative clause ("a post I made"): the index of its verb, or npos.
  std::size_t VerbAfterSubject(std::size_t k) const;

  // The word before byte `at` in the sentence ("" at the start or after punctuation).
  std::string_view WordBefore(std::uint32_t at) const {
    for (std::size_t word_idx = 0; word_idx < words_.size(); ++word_idx) {
      if (words_[word_idx].begin < at) continue;
      if (word_idx == 0 || words_[word_idx - 1].punct) return "";
      return words_[word_idx - 1].text;
    }
    return "";
  }

  // "I went to X", "we adopted a puppy", "I graduated from X" (+ a time, checked by the
  // validator).
  void Events();

  // "I'm going to X", "I will X", "I plan to X", "I'm moving to X next month".
  void Plans();

  // "I'm sick this week", "I'm on vacation until Friday", "I'm in Paris this weekend".
  void TemporaryStates();

  // "I have the flu", "Anna has asthma", "I had a cold last week" (extractor_acts.cc).
  void Health();

  // "I go climbing on Wednesdays", "I've been running every morning": a verb phrase with a
  // frequency adverbial is a routine (extractor_acts.cc).
  void Habits();

  // "my birthday is May 19", "Priya's birthday is on the 12th", "our anniversary is next
  // Friday" (extractor_acts.cc).
  void Occasions();

  // "I work for the NHS as a pharmacist": the role after "as" (extractor_acts.cc).
  void RoleAs();

  // The index of the word starting at byte `at`, or npos.
  std::size_t WordAt(std::uint32_t at) const {
    for (std::size_t word_idx = 0; word_idx < words_.size(); ++word_idx) {
      if (words_[word_idx].begin == at) return word_idx;
    }
    return std::string::npos;
  }

  // "I've lived in Leeds since 2012": a residence that still holds (extractor_acts.cc).
  void PerfectStates();

  // "I'm using Python 3.11", "we use Postgres", "I'm not using Docker", "set the timeout to 30s".
  void Technical();

  const FactSource& source_;

  const RuleExtractorOptions& options_;

  const SentenceInfo* sentence_ = nullptr;

  std::vector<Word> words_;

  std::vector<FactCandidate> out_;
};

}  // namespace engram::write::rule_extractor

#endif  // ENGRAM_WRITE_RULE_EXTRACTOR_H_
