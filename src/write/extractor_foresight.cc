// The foresight rule family of the rule extractor (rule_extractor.h): plans ("I plan to ...",
// "I'm going to ...") and temporary states ("I'm in Paris until Friday"), with their validity
// window.
#include "write/rule_extractor.h"

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

namespace engram::write::rule_extractor {

// "I'm going to X", "I will X", "I plan to X", "I'm moving to X next month".
void Extractor::Plans() {
  for (std::size_t k = 0; k < words_.size(); ++k) {
    const std::size_t v = VerbAfterSubject(k);
    if (v == std::string::npos) continue;
    std::size_t object = 0;
    if (In(At(v), {"am", "are"}) && Is(v + 1, "going") && Is(v + 2, "to")) {
      object = v + 3;
    } else if (In(At(v), {"am", "are"}) && In(At(v + 1), {"planning", "hoping"}) &&
               In(At(v + 2), {"to", "on"})) {
      object = v + 3;
    } else if (In(At(v), {"plan", "intend", "hope"}) && Is(v + 1, "to")) {
      object = v + 2;
    } else if (At(v) == "will" && !Is(v + 1, "not")) {
      // "I'll do that", "I'll keep you posted": a bare "will" is a plan only with a time
      // ahead ("I'll call the bank tomorrow").
      const std::optional<FactTime> time = SentenceTime(words_[v].begin, words_[v].end);
      if (!time.has_value() || time->to <= source_.event_time) continue;
      object = v + 1;
    } else if (In(At(v), {"am", "are"}) && v + 1 < words_.size() &&
               words_[v + 1].text.size() > 4 && words_[v + 1].text.ends_with("ing") &&
               !In(At(v + 1), {"going", "thinking", "feeling", "doing", "looking", "trying",
                               "planning", "hoping", "wondering"})) {
      // Present progressive with a future time: "I'm flying to Rome next week".
      const std::optional<FactTime> time = SentenceTime(words_[v + 1].begin,
                                                        words_[v + 1].end);
      if (!time.has_value() || time->from <= source_.event_time) continue;
      object = v + 1;
    } else {
      continue;
    }
    object = SkipAdverbs(object);
    if (object >= words_.size() ||
        In(At(object), {"be", "have", "not", "the", "a", "never", "always", "do", "keep",
                        "try", "let", "make", "see", "think", "start", "check", "get", "talk",
                        "tell", "remember", "forget", "miss", "need", "definitely"})) {
      continue;
    }
    auto [begin, end] = ObjectFrom(object, {"because", "since"});
    if (begin == end) continue;
    // A duration is not part of the plan: "going to Mallorca for two weeks".
    for (std::size_t w = object + 1; w + 2 < words_.size() && words_[w].begin < end; ++w) {
      const std::string_view count = At(w + 1);
      const bool number =
          In(count, {"a", "an", "one", "two", "three", "four", "five", "six", "seven", "eight",
                     "nine", "ten", "twelve", "few", "couple", "several"}) ||
          (!count.empty() && std::isdigit(static_cast<unsigned char>(count[0])));
      if (Is(w, "for") && number &&
          In(At(w + 2), {"day", "days", "night", "nights", "week", "weeks", "month", "months",
                         "year", "years", "weekend", "fortnight", "few", "couple"})) {
        end = words_[w - 1].end;
        break;
      }
    }
    std::string plan = NormalizeFactText(Span(begin, end));
    // "I'm going to Kyoto": a trip to a single place keeps its verb ("going to Kyoto").
    if (plan.find(' ') == std::string::npos && object == v + 3 && Is(v + 1, "going") &&
        words_[object].capitalized) {
      begin = words_[v + 1].begin;
      plan = NormalizeFactText(Span(begin, end));
    }
    if (IsPronounObject(plan) || plan.find(' ') == std::string::npos) continue;
    FactCandidate& fact = Add("plans_to", begin, end, FactKind::kForesight, words_[k].begin);
    if (fact.time.has_value() && fact.time->to <= source_.event_time) fact.time.reset();
  }
}

// "I'm sick this week", "I'm on vacation until Friday", "I'm in Paris this weekend".
void Extractor::TemporaryStates() {
  for (std::size_t k = 0; k < words_.size(); ++k) {
    if (!Is(k, "i") || !Is(k + 1, "am")) continue;
    const std::size_t a = SkipAdverbs(k + 2);
    std::size_t end_word = 0;
    if (Is(a, "off") && Is(a + 1, "to")) {
      // "I'm off to Ireland next month": a trip ahead.
      const auto [begin, end] = ObjectFrom(a + 2, {"for", "with", "because"});
      if (begin == end) continue;
      const std::optional<FactTime> time = SentenceTime(begin, end);
      if (!time.has_value() || time->to <= source_.event_time) continue;
      Add("plans_to", words_[a].begin, end, FactKind::kForesight, words_[k].begin);
      continue;
    }
    if (In(At(a), {"sick", "ill", "busy", "away", "traveling", "travelling",
                   "unavailable", "offline", "swamped", "injured"})) {
      end_word = a + 1;
    } else if (Is(a, "on") && In(At(a + 1), {"vacation", "holiday", "leave", "call"})) {
      end_word = a + 2;
    } else if (Is(a, "out") && Is(a + 1, "of") && In(At(a + 1 + 1), {"town", "office"})) {
      end_word = a + 3;
    } else if (Is(a, "in") && a + 1 < words_.size() && words_[a + 1].capitalized) {
      end_word = NameEnd(a + 1);
      if (end_word == a + 1) continue;
    } else {
      continue;
    }
    const std::uint32_t begin = words_[a].begin;
    const std::uint32_t end = words_[end_word - 1].end;
    const std::optional<FactTime> time = SentenceTime(begin, end);
    if (!time.has_value() || time->to <= source_.event_time) continue;
    Add("temporary_state", begin, end, FactKind::kForesight, words_[k].begin);
  }
}

}  // namespace engram::write::rule_extractor
