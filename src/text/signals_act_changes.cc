// The Detector's memory acts that change or answer something (signal_detector.h, phase E, part 2):
// corrections, replacements, decisions, approvals and rejections, query-like sentences and
// ack-like turns.
#include "text/signal_detector.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_set>
#include <utility>
#include <vector>

namespace engram::text::signals_detail {

void Detector::DetectCorrections(const ActContext& ctx) {
  const auto& w = ctx.w;
  for (std::size_t s = 0; s < w.size(); ++s) {
    std::size_t cue_last = s;
    float confidence = 1.0f;
    const std::string_view word = w[s].text;
    if (word == "actually") {
      confidence = w[s].clause_start ? 1.0f : kInnerActuallyConfidence;
    } else if (word == "correction") {
    } else if (word == "i" && ctx.Is(s + 1, "meant")) {
      cue_last = s + 1;
    } else if (word == "i" && ctx.Is(s + 1, "mean") && w[s].clause_start) {
      cue_last = s + 1;
    } else if (word == "no" && ctx.Is(s + 1, "wait")) {
      cue_last = s + 1;
    } else if (word == "wait" && ctx.Is(s + 1, "no") && w[s].clause_start) {
      cue_last = s + 1;
    } else if (word == "scratch" && ctx.Is(s + 1, "that")) {
      cue_last = s + 1;
    } else if (word == "i" && ctx.Is(s + 1, "misspoke")) {
      cue_last = s + 1;
    } else if (word == "to" && ctx.Is(s + 1, "clarify")) {
      cue_last = s + 1;
    } else if (word == "let" && ctx.Is(s + 1, "me") && ctx.Is(s + 2, "correct")) {
      cue_last = s + 2;
    } else if (In(word, {"that", "this"}) && ctx.Is(s + 1, "is") &&
               (ctx.Is(s + 2, "wrong") || ctx.Is(s + 2, "incorrect") ||
                (ctx.Is(s + 2, "not") && In(ctx.At(s + 3), {"right", "correct", "true"})))) {
      cue_last = ctx.Is(s + 2, "not") ? s + 3 : s + 2;
    } else {
      continue;
    }
    std::size_t start = cue_last + 1;
    // "Actually, I meant X" / "no wait, it's X": skip a second cue and filler.
    if (ctx.Is(start, "i") && In(ctx.At(start + 1), {"meant", "mean"})) {
      cue_last = start + 1;
      start += 2;
    }
    while (start < w.size() && In(w[start].text, {"it", "is", "was", "that", "no"}) &&
           start <= cue_last + 2) {
      ++start;
    }
    const auto [value, value_end] = ValueFrom(ctx, start, /*stop_at_time=*/false);
    AddAct(SignalKind::kCorrection, w[s].begin, ActEnd(value_end, w[cue_last]), value,
           "correction", Polarity::kNone, confidence);
    return;  // one correction per sentence
  }
}

void Detector::DetectReplacements(const ActContext& ctx) {
  const auto& w = ctx.w;
  for (std::size_t s = 0; s < w.size(); ++s) {
    const std::string_view word = w[s].text;
    // "switched from X to Y"
    if (In(word, {"switched", "switch", "switching", "moved", "changed", "change", "went",
                  "migrated", "migrate", "migrating", "upgraded", "converted", "transitioned",
                  "swapped", "moving", "changing"}) &&
        ctx.Is(s + 1, "from")) {
      std::size_t to = s + 2;
      while (to < w.size() && to - s < 8 && !ctx.Is(to, "to") && !w[to].clause_start) ++to;
      if (!ctx.Is(to, "to") || to == s + 2) continue;
      const std::string previous = CleanValue(
          NormalizeForIndex(text_.substr(w[s + 2].begin, w[to - 1].end - w[s + 2].begin)));
      const auto [value, value_end] = ValueFrom(ctx, to + 1);
      Signal& signal = AddAct(SignalKind::kReplacement, w[s].begin, ActEnd(value_end, w[to]),
                              value, "replacement");
      signal.previous_value = previous;
      return;
    }
    // "replaced X with Y"
    if (In(word, {"replaced", "replace", "replacing", "swapped", "swap"})) {
      std::size_t with = s + 1;
      while (with < w.size() && with - s < 8 && !In(w[with].text, {"with", "by", "for"}) &&
             !w[with].clause_start) {
        ++with;
      }
      if (with >= w.size() || with == s + 1 || !In(w[with].text, {"with", "by", "for"})) {
        continue;
      }
      const std::string previous = CleanValue(
          NormalizeForIndex(text_.substr(w[s + 1].begin, w[with - 1].end - w[s + 1].begin)));
      const auto [value, value_end] = ValueFrom(ctx, with + 1);
      Signal& signal = AddAct(SignalKind::kReplacement, w[s].begin, ActEnd(value_end, w[with]),
                              value, "replacement");
      signal.previous_value = previous;
      return;
    }
    // "Y instead of X", "Y rather than X"
    if ((word == "instead" && ctx.Is(s + 1, "of")) ||
        (word == "rather" && ctx.Is(s + 1, "than"))) {
      const auto [previous, previous_end] = ValueFrom(ctx, s + 2);
      // Y: up to three words before the cue, stopping at a verb / subject.
      std::size_t y = s;
      while (y > 0 && s - y < 3 && !w[y].clause_start && !IsSubject(w[y - 1].text) &&
             !In(w[y - 1].text,
                 {"will", "would", "use",   "using",  "take",   "get",     "have",   "want",
                  "go",   "with",  "chose", "choose", "picked", "ordered", "prefer", "is",
                  "are",  "am",    "be",    "drink",  "eat",    "buy",     "bought", "went"})) {
        --y;
      }
      std::string value;
      std::uint32_t end = ActEnd(previous_end, w[s + 1]);
      if (y < s) {
        value =
            CleanValue(NormalizeForIndex(text_.substr(w[y].begin, w[s - 1].end - w[y].begin)));
      } else {
        // "Instead of X, I'll take Y": the new value is the next clause's object.
        std::size_t next = s + 2;
        while (next < w.size() && !w[next].clause_start) ++next;
        while (next < w.size() && (IsSubject(w[next].text) ||
                                   In(w[next].text, {"will", "would", "am", "are", "shall"}))) {
          ++next;
        }
        if (next < w.size()) {
          const auto [next_value, next_end] = ValueFrom(ctx, next);
          value = next_value;
          end = std::max(end, next_end);
        }
      }
      const std::uint32_t begin = y < s ? w[y].begin : w[s].begin;
      Signal& signal = AddAct(SignalKind::kReplacement, begin, end, value, "replacement");
      signal.previous_value = previous;
      return;
    }
    if (word == "instead" && w[s].clause_start) {
      const auto [value, value_end] = ValueFrom(ctx, s + 1);
      AddAct(SignalKind::kReplacement, w[s].begin, ActEnd(value_end, w[s]), value, "replacement");
      return;
    }
    // "no longer X ... now Y" / "not X anymore, now Y"
    if (((word == "no" && ctx.Is(s + 1, "longer")) || word == "anymore")) {
      for (std::size_t k = s + 1; k < w.size() && k - s <= kMaxCueDistance; ++k) {
        if (w[k].text != "now") continue;
        std::size_t value_start = k + 1;
        while (value_start < w.size() &&
               (IsSubject(w[value_start].text) ||
                In(w[value_start].text, {"am", "is", "are", "do", "i"}))) {
          ++value_start;
        }
        const auto [value, value_end] = ValueFrom(ctx, value_start);
        std::size_t old_start = word == "no" ? s + 2 : s;
        std::string previous;
        if (word == "no") {
          previous = ValueFrom(ctx, old_start).first;
        }
        Signal& signal = AddAct(SignalKind::kReplacement, w[s].begin, ActEnd(value_end, w[k]),
                                value, "replacement");
        signal.previous_value = previous;
        return;
      }
    }
    // "not X but Y"
    if (word == "not" && s > 0 &&
        !In(w[s - 1].text, {"do", "does", "did", "can", "will", "would", "should", "could", "am",
                            "is", "are", "was", "were", "have", "has"})) {
      for (std::size_t k = s + 1; k < w.size() && k - s <= 5; ++k) {
        if (w[k].text != "but") continue;
        if (k == s + 1) break;
        const std::string previous = CleanValue(
            NormalizeForIndex(text_.substr(w[s + 1].begin, w[k - 1].end - w[s + 1].begin)));
        const auto [value, value_end] = ValueFrom(ctx, k + 1);
        if (value.empty()) break;
        Signal& signal = AddAct(SignalKind::kReplacement, w[s].begin, ActEnd(value_end, w[k]),
                                value, "replacement");
        signal.previous_value = previous;
        return;
      }
    }
  }
}

void Detector::DetectDecisions(const ActContext& ctx) {
  const auto& w = ctx.w;
  for (std::size_t s = 0; s < w.size(); ++s) {
    std::size_t object = 0;
    std::size_t cue_last = 0;
    if (IsSubject(w[s].text) || (w[s].text == "let" && ctx.Is(s + 1, "us"))) {
      std::size_t k = w[s].text == "let" ? s + 2 : SkipAdverbs(ctx, s + 1);
      if (In(ctx.At(k), {"have", "finally", "just"})) k = SkipAdverbs(ctx, k + 1);
      if (ctx.Is(k, "have")) ++k;
      if (In(ctx.At(k), {"decided", "decide", "chose", "chosen", "picked", "opted", "settled",
                         "went", "go", "going", "will", "are", "am"})) {
        std::size_t a = k;
        if (In(ctx.At(a), {"will", "are", "am"})) {
          ++a;
          if (ctx.Is(a, "going")) ++a;
          if (ctx.Is(a, "to")) ++a;
          if (!ctx.Is(a, "go")) continue;
        }
        if (ctx.Is(a, "going")) {
          if (!ctx.Is(a + 1, "with")) continue;
          object = a + 2;
          cue_last = a + 1;
        } else if (In(ctx.At(a), {"decided", "decide"})) {
          object = a + 1;
          cue_last = a;
          if (In(ctx.At(object), {"to", "on", "that", "against"})) {
            cue_last = object;
            ++object;
          }
        } else if (In(ctx.At(a), {"opted", "settled"}) && In(ctx.At(a + 1), {"for", "on"})) {
          object = a + 2;
          cue_last = a + 1;
        } else if (In(ctx.At(a), {"went", "go"}) && ctx.Is(a + 1, "with")) {
          object = a + 2;
          cue_last = a + 1;
        } else if (In(ctx.At(a), {"chose", "chosen", "picked"})) {
          object = a + 1;
          cue_last = a;
        } else {
          continue;
        }
      } else {
        continue;
      }
    } else if (w[s].text == "decision" && w[s].clause_start) {
      object = s + 1;
      cue_last = s;
    } else {
      continue;
    }
    const auto [value, value_end] = ValueFrom(ctx, object, /*stop_at_time=*/false);
    AddAct(SignalKind::kDecision, w[s].begin, ActEnd(value_end, w[cue_last]), value, "decision");
    return;
  }
}

void Detector::DetectApprovalsAndRejections(const ActContext& ctx) {
  const auto& w = ctx.w;
  if (w.empty() || ctx.sentence.question_mark) return;
  struct Phrase {
    std::initializer_list<std::string_view> words;
    SignalKind kind;
    std::size_t max_sentence_words;  // 0: any length
  };
  static const std::array<Phrase, 42> kPhrases = {{
      {{"sounds", "good"}, SignalKind::kApproval, 0},
      {{"sounds", "great"}, SignalKind::kApproval, 0},
      {{"sounds", "perfect"}, SignalKind::kApproval, 0},
      {{"sounds", "like", "a", "plan"}, SignalKind::kApproval, 0},
      {{"yes", "let", "us"}, SignalKind::kApproval, 0},
      {{"let", "us", "do", "it"}, SignalKind::kApproval, 0},
      {{"let", "us", "do", "that"}, SignalKind::kApproval, 0},
      {{"approved"}, SignalKind::kApproval, 0},
      {{"i", "approve"}, SignalKind::kApproval, 0},
      {{"go", "ahead"}, SignalKind::kApproval, 0},
      {{"lgtm"}, SignalKind::kApproval, 0},
      {{"looks", "good"}, SignalKind::kApproval, 0},
      {{"works", "for", "me"}, SignalKind::kApproval, 0},
      {{"that", "works"}, SignalKind::kApproval, 0},
      {{"i", "agree"}, SignalKind::kApproval, 0},
      {{"agreed"}, SignalKind::kApproval, 4},
      {{"yes", "please"}, SignalKind::kApproval, 0},
      {{"ship", "it"}, SignalKind::kApproval, 0},
      {{"perfect"}, SignalKind::kApproval, 3},
      {{"deal"}, SignalKind::kApproval, 2},
      {{"absolutely"}, SignalKind::kApproval, 2},
      {{"yes"}, SignalKind::kApproval, 3},
      {{"yeah"}, SignalKind::kApproval, 3},
      {{"yep"}, SignalKind::kApproval, 3},
      {{"no", "thanks"}, SignalKind::kRejection, 0},
      {{"no", "thank", "you"}, SignalKind::kRejection, 0},
      {{"let", "us", "not"}, SignalKind::kRejection, 0},
      {{"i", "do", "not", "want"}, SignalKind::kRejection, 0},
      {{"not", "interested"}, SignalKind::kRejection, 0},
      {{"i", "would", "rather", "not"}, SignalKind::kRejection, 0},
      {{"i", "disagree"}, SignalKind::kRejection, 0},
      {{"that", "will", "not", "work"}, SignalKind::kRejection, 0},
      {{"that", "does", "not", "work"}, SignalKind::kRejection, 0},
      {{"rejected"}, SignalKind::kRejection, 0},
      {{"i", "reject"}, SignalKind::kRejection, 0},
      {{"nope"}, SignalKind::kRejection, 3},
      {{"no", "way"}, SignalKind::kRejection, 3},
      {{"not", "that", "one"}, SignalKind::kRejection, 0},
      {{"i", "do", "not", "think", "so"}, SignalKind::kRejection, 0},
      {{"no"}, SignalKind::kRejection, 3},
      {{"not", "really"}, SignalKind::kRejection, 3},
      {{"please", "do", "not"}, SignalKind::kRejection, 0},
  }};
  // First words of the phrases: other words skip the phrase table.
  static const std::unordered_set<std::string_view> kFirstWords = [] {
    std::unordered_set<std::string_view> words;
    for (const Phrase& phrase : kPhrases) words.insert(*phrase.words.begin());
    return words;
  }();
  bool approval = false;
  bool rejection = false;
  for (std::size_t s = 0; s < w.size(); ++s) {
    if (kFirstWords.count(w[s].text) == 0) continue;
    for (const Phrase& phrase : kPhrases) {
      const bool done = phrase.kind == SignalKind::kApproval ? approval : rejection;
      if (done) continue;
      if (phrase.max_sentence_words != 0 && w.size() > phrase.max_sentence_words) continue;
      if (phrase.max_sentence_words != 0 && s != 0) continue;  // short forms lead the sentence
      if (!PhraseAt(ctx, s, phrase.words)) continue;
      // "no" followed by "longer" / "wait" / "problem" is something else.
      if (phrase.words.size() == 1 && *phrase.words.begin() == "no" &&
          In(ctx.At(s + 1), {"longer", "wait", "problem", "worries", "idea"})) {
        continue;
      }
      const std::size_t cue_last = s + phrase.words.size() - 1;
      std::string value;
      std::uint32_t end = w[cue_last].end;
      if (PhraseAt(ctx, s, {"i", "do", "not", "want"})) {
        std::size_t object = cue_last + 1;
        if (ctx.Is(object, "to")) ++object;
        const auto [object_value, object_end] = ValueFrom(ctx, object);
        value = object_value;
        end = ActEnd(object_end, w[cue_last]);
      } else {
        value = JoinWords(w, s, cue_last + 1);
      }
      AddAct(phrase.kind, w[s].begin, end, value,
             phrase.kind == SignalKind::kApproval ? "approval" : "rejection",
             phrase.kind == SignalKind::kApproval ? Polarity::kPositive : Polarity::kNegative);
      if (phrase.kind == SignalKind::kApproval) {
        approval = true;
      } else {
        rejection = true;
      }
    }
  }
}

void Detector::DetectQuery(const ActContext& ctx) {
  const auto& w = ctx.w;
  if (w.empty()) return;
  const std::string_view first = w[0].text;
  std::string value;
  if (In(first, {"what", "when", "where", "who", "whom", "whose", "which", "why", "how"})) {
    const std::string_view next = ctx.At(1);
    const bool inverted =
        In(next, {"is",    "are",   "was",    "were", "do",   "does", "did",  "can",  "could",
                  "will",  "would", "should", "has",  "have", "had",  "many", "much", "long",
                  "often", "about", "far",    "old",  "time", "kind", "type", "if",   "else"}) ||
        first == "why" || first == "who";
    if (ctx.sentence.question_mark || inverted) value = std::string(first);
  } else if (In(first, {"do", "does", "did", "is", "are", "was", "were", "can", "could", "will",
                        "would", "should", "shall", "have", "has", "may", "might", "am"}) &&
             In(ctx.At(1), {"you", "i", "we", "they", "he", "she", "it", "there", "this", "that",
                            "the", "your", "my", "anyone", "someone"})) {
    value = "yes_no";
  } else if (ctx.sentence.question_mark) {
    value = "other";
  }
  if (value.empty()) return;
  Add(SignalKind::kQueryLike, ctx.sentence.begin, ctx.sentence.end, value, "question");
}

void Detector::DetectAck() {
  std::size_t words = 0;
  for (const Sentence& sentence : sentences_) words += sentence.words.size();
  if (words == 0 || words > options_.max_ack_words) return;
  for (const Sentence& sentence : sentences_) {
    const ActContext ctx{sentence, sentence.words};
    const auto& w = sentence.words;
    for (std::size_t s = 0; s < w.size(); ++s) {
      std::size_t cue_last = s;
      const std::string_view word = w[s].text;
      if (In(word, {"ok",     "okay",    "k",          "kk",        "thanks",  "thx",
                    "ty",     "cool",    "great",      "nice",      "awesome", "sure",
                    "noted",  "alright", "understood", "perfect",   "hi",      "hello",
                    "hey",    "bye",     "cheers",     "np",        "yep",     "yup",
                    "gotcha", "lol",     "wow",        "excellent", "roger",   "goodbye"})) {
      } else if (PhraseAt(ctx, s, {"thank", "you"}) || PhraseAt(ctx, s, {"got", "it"}) ||
                 PhraseAt(ctx, s, {"will", "do"}) || PhraseAt(ctx, s, {"no", "problem"}) ||
                 PhraseAt(ctx, s, {"sounds", "good"}) || PhraseAt(ctx, s, {"all", "right"}) ||
                 PhraseAt(ctx, s, {"makes", "sense"})) {
        cue_last = s + 1;
      } else {
        continue;
      }
      const std::string value = JoinWords(w, s, cue_last + 1);
      Add(SignalKind::kAckLike, w[s].begin, w[cue_last].end, value, "social");
      return;
    }
  }
}

}  // namespace engram::text::signals_detail
