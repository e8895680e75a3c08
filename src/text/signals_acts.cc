// The Detector's memory acts that state what holds (signal_detector.h, phase E, part 1): the value
// phrase of a cue, preferences, constraints and current / past states, per sentence over the
// word stream of text/word_stream.h.
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
namespace {

bool IsPronounValue(std::string_view value) {
  return In(value, {"it", "that", "this", "them", "those", "these", "him", "her", "you", "one",
                    "so", "too", "either", "", "much", "a lot", "it a lot"});
}

}  // namespace

// The value phrase starting at word k: up to the clause end, a clause-starting conjunction,
// a time expression or max_value_words. Leading determiners are dropped. Returns the
// normalised value and the byte end of the phrase (0 when empty).
std::pair<std::string, std::uint32_t> Detector::ValueFrom(const ActContext& ctx, std::size_t k,
                                                bool stop_at_time) const {
  const auto& w = ctx.w;
  while (k < w.size() && In(w[k].text, {"a", "an", "the", "my", "some", "our", "any"}) &&
         !(k + 1 < w.size() && w[k + 1].clause_start)) {
    ++k;
  }
  std::size_t stop = k;
  std::size_t count = 0;
  while (stop < w.size() && count < options_.max_value_words) {
    const std::string_view word = w[stop].text;
    if (stop > k && w[stop].clause_start) break;
    if (In(word, {"but",     "because", "although", "though",  "so",        "when",     "while",
                  "if",      "since",   "unless",   "whereas", "cause",     "cuz",      "too",
                  "anymore", "either",  "instead",  "now",     "currently", "nowadays", "lately",
                  "these",   "again",   "which",    "who",     "rather",    "than",     "over",
                  "as",      "maybe",   "probably", "perhaps", "though",    "please"})) {
      break;
    }
    if (word == "i" && stop > k) break;  // "jazz I think"
    if (word == "and" && stop + 1 < w.size() &&
        In(w[stop + 1].text, {"i", "we", "he", "she", "they", "you", "it", "then", "that"})) {
      break;
    }
    if (stop_at_time && InTimeSpan(w[stop].begin)) break;
    ++stop;
    ++count;
  }
  if (stop == k) return {std::string(), 0};
  // Trim trailing fillers.
  while (stop > k &&
         In(w[stop - 1].text,
            {"a",    "lot",    "very", "much", "really", "so",    "please", "though", "lol",
             "haha", "anyway", "the",  "and",  "or",     "of",    "to",     "with",   "for",
             "in",   "at",     "on",   "by",   "from",   "about", "into"})) {
    if ((w[stop - 1].text == "lot" || w[stop - 1].text == "much") && stop - 1 > k &&
        In(w[stop - 2].text, {"a", "very", "so"})) {
      stop -= 2;
      continue;
    }
    if (w[stop - 1].text == "lot" || w[stop - 1].text == "much") break;
    --stop;
  }
  if (stop == k) return {std::string(), 0};
  std::uint32_t begin = w[k].begin;
  const std::uint32_t end = w[stop - 1].end;
  // Keep a currency symbol glued to the value ("$500").
  if (const std::size_t lexeme = LexemeAt(begin);
      lexeme > 0 && Adjacent(lexeme) && CurrencySymbolAt(lexeme - 1)) {
    begin = lx_[lexeme - 1].begin;
  }
  std::string value = CleanValue(NormalizeForIndex(text_.substr(begin, end - begin)));
  if (IsPronounValue(value)) value.clear();
  return {value, end};
}

void Detector::DetectActs() {
  for (const Sentence& sentence : sentences_) {
    const ActContext ctx{sentence, sentence.words};
    DetectPreferences(ctx);
    DetectConstraints(ctx);
    DetectStates(ctx);
    DetectCorrections(ctx);
    DetectReplacements(ctx);
    DetectDecisions(ctx);
    DetectApprovalsAndRejections(ctx);
    DetectQuery(ctx);
  }
  DetectAck();
}

// Negation after a subject: "do not", "did not", "does not", "never", "no longer", "am not".
std::size_t Detector::SkipNegation(const ActContext& ctx, std::size_t k, bool& negated) {
  k = SkipAdverbs(ctx, k);
  if (In(ctx.At(k), {"do", "did", "does"}) && ctx.Is(k + 1, "not")) {
    negated = !negated;
    k += 2;
  } else if (ctx.Is(k, "never")) {
    negated = !negated;
    k += 1;
  } else if (ctx.Is(k, "no") && ctx.Is(k + 1, "longer")) {
    negated = !negated;
    k += 2;
  } else if (In(ctx.At(k), {"do", "did", "does"})) {
    k += 1;  // emphatic "I do like"
  }
  return SkipAdverbs(ctx, k);
}

void Detector::DetectPreferences(const ActContext& ctx) {
  const auto& w = ctx.w;
  for (std::size_t s = 0; s < w.size(); ++s) {
    // "my favorite X is Y"
    if (w[s].text == "my" && (ctx.Is(s + 1, "favorite") || ctx.Is(s + 1, "favourite"))) {
      std::size_t k = s + 2;
      std::size_t topic_end = k;
      while (topic_end < w.size() && topic_end - k < 3 &&
             !In(w[topic_end].text, {"is", "are", "was", "were"})) {
        ++topic_end;
      }
      if (topic_end < w.size() && topic_end > k && In(w[topic_end].text, {"is", "are"})) {
        const std::string topic = "favorite " + JoinWords(w, k, topic_end);
        const auto [value, value_end] = ValueFrom(ctx, topic_end + 1);
        AddAct(SignalKind::kPreference, w[s].begin, ActEnd(value_end, w[topic_end]), value, topic,
               Polarity::kPositive);
        s = topic_end;
        continue;
      }
    }
    if (!IsSubject(w[s].text)) continue;
    bool negated = false;
    std::size_t k = SkipNegation(ctx, s + 1, negated);
    // "would like/love (to)" is a request, not a preference; "would rather X" is one.
    if (ctx.Is(k, "would") || ctx.Is(k, "will")) {
      if (ctx.Is(k + 1, "rather") && !ctx.Is(k + 2, "not")) {
        const std::size_t object = In(ctx.At(k + 2), {"have", "take", "get"}) ? k + 3 : k + 2;
        const auto [value, value_end] = ValueFrom(ctx, object);
        AddAct(SignalKind::kPreference, w[s].begin, ActEnd(value_end, w[k + 1]), value,
               "preference", Polarity::kPositive);
      }
      continue;
    }
    const std::string_view verb = ctx.At(k);
    Polarity polarity = Polarity::kNone;
    std::size_t object = k + 1;
    if (In(verb, {"love", "loves", "loved", "like", "likes", "liked", "prefer", "prefers",
                  "preferred", "enjoy", "enjoys", "enjoyed", "adore", "adored"})) {
      polarity = Polarity::kPositive;
    } else if (In(verb,
                  {"hate", "hated", "dislike", "disliked", "detest", "loathe", "despise"})) {
      polarity = Polarity::kNegative;
    } else if (verb == "can" && ctx.Is(k + 1, "not") && ctx.Is(k + 2, "stand")) {
      polarity = Polarity::kNegative;
      object = k + 3;
    } else if (In(verb, {"am", "was", "are"})) {
      std::size_t a = k + 1;
      bool state_negated = negated;
      if (ctx.Is(a, "not")) {
        state_negated = !state_negated;
        ++a;
      }
      a = SkipAdverbs(ctx, a);
      if (ctx.Is(a, "a") || ctx.Is(a, "an")) ++a;
      if (In(ctx.At(a), {"big", "huge", "great", "massive"})) ++a;
      if (ctx.Is(a, "fan") && ctx.Is(a + 1, "of")) {
        object = a + 2;
      } else if (In(ctx.At(a), {"into", "obsessed"})) {
        object = ctx.Is(a, "obsessed") && ctx.Is(a + 1, "with") ? a + 2 : a + 1;
      } else if (ctx.Is(a, "fond") && ctx.Is(a + 1, "of")) {
        object = a + 2;
      } else if (In(ctx.At(a), {"crazy", "passionate"}) && ctx.Is(a + 1, "about")) {
        object = a + 2;
      } else {
        continue;
      }
      negated = state_negated;
      polarity = Polarity::kPositive;
    } else {
      continue;
    }
    if (negated) {
      polarity = polarity == Polarity::kPositive ? Polarity::kNegative : Polarity::kPositive;
    }
    // "I like that you ..." / "I like how ..." are not preferences about a thing.
    if (In(ctx.At(object), {"that", "how", "when", "what"}) &&
        !(object + 1 < w.size() && w[object + 1].clause_start)) {
      continue;
    }
    if (ctx.Is(object, "to")) ++object;  // "I like to hike" -> "hike"
    const auto [value, value_end] = ValueFrom(ctx, object);
    AddAct(SignalKind::kPreference, w[s].begin, ActEnd(value_end, w[object - 1]), value,
           "preference", polarity);
    s = object - 1;
  }
}

void Detector::DetectConstraints(const ActContext& ctx) {
  const auto& w = ctx.w;
  for (std::size_t s = 0; s < w.size(); ++s) {
    // "allergic to X" (with or without "I'm").
    if (w[s].text == "allergic" && ctx.Is(s + 1, "to") && !(s > 0 && ctx.Is(s - 1, "not"))) {
      const std::size_t start = s >= 2 && IsSubject(w[s - 2].text) ? s - 2 : s;
      const auto [value, value_end] = ValueFrom(ctx, s + 2);
      AddAct(SignalKind::kConstraint, w[start].begin, ActEnd(value_end, w[s + 1]), value,
             "allergy", Polarity::kNegative);
      continue;
    }
    if (IsSubject(w[s].text)) {
      std::size_t k = SkipAdverbs(ctx, s + 1);
      // "I am vegan", "I'm lactose intolerant".
      if (ctx.Is(k, "am") && !ctx.Is(k + 1, "not")) {
        const std::size_t a = SkipAdverbs(ctx, k + 1);
        if (In(ctx.At(a), {"vegan", "vegetarian", "pescatarian", "kosher", "halal", "diabetic",
                           "celiac", "coeliac", "sober", "teetotal"})) {
          AddAct(SignalKind::kConstraint, w[s].begin, w[a].end, std::string(ctx.At(a)), "diet",
                 Polarity::kNegative);
          continue;
        }
        if (In(ctx.At(a), {"lactose", "gluten"}) && ctx.Is(a + 1, "intolerant")) {
          AddAct(SignalKind::kConstraint, w[s].begin, w[a + 1].end, std::string(ctx.At(a)),
                 "intolerance", Polarity::kNegative);
          continue;
        }
      }
      // "I can't / don't / never / must not / shouldn't eat|drink|have X", "I avoid X".
      bool negated = false;
      std::size_t v = k;
      if (In(ctx.At(v), {"can", "could", "must", "should", "do", "will"}) &&
          ctx.Is(v + 1, "not")) {
        negated = true;
        v += 2;
      } else if (ctx.Is(v, "never")) {
        negated = true;
        v += 1;
      } else if (ctx.Is(v, "am") && ctx.Is(v + 1, "not") && ctx.Is(v + 2, "allowed") &&
                 ctx.Is(v + 3, "to")) {
        negated = true;
        v += 4;
      }
      v = SkipAdverbs(ctx, v);
      if (negated && In(ctx.At(v), {"eat", "drink", "have", "consume", "tolerate", "digest"})) {
        const auto [value, value_end] = ValueFrom(ctx, v + 1);
        AddAct(SignalKind::kConstraint, w[s].begin, ActEnd(value_end, w[v]), value, "diet",
               Polarity::kNegative);
        continue;
      }
      if (!negated && In(ctx.At(v), {"avoid", "avoiding"})) {
        const auto [value, value_end] = ValueFrom(ctx, v + 1);
        AddAct(SignalKind::kConstraint, w[s].begin, ActEnd(value_end, w[v]), value, "avoid",
               Polarity::kNegative);
        continue;
      }
      if (negated && In(ctx.At(v), {"work", "travel", "drive", "meet", "fly", "use", "do"}) &&
          !ctx.Is(v - 1, "never")) {
        const auto [value, value_end] = ValueFrom(ctx, v);
        AddAct(SignalKind::kConstraint, w[s].begin, ActEnd(value_end, w[v]), value, "limitation",
               Polarity::kNegative);
        continue;
      }
    }
    // Budgets: "my budget is $500", "a budget of 2k".
    if (w[s].text == "budget" && (ctx.Is(s + 1, "is") || ctx.Is(s + 1, "of"))) {
      const auto [value, value_end] = ValueFrom(ctx, s + 2, /*stop_at_time=*/false);
      if (!value.empty()) {
        AddAct(SignalKind::kConstraint, w[s].begin, ActEnd(value_end, w[s + 1]), value, "budget",
               Polarity::kNone);
      }
      continue;
    }
    // Imperatives at clause start: "Don't use X", "Never call me before 9", "Always reply in
    // English", "Make sure to ...", "Please avoid ...".
    if (w[s].clause_start) {
      std::size_t k = s;
      if (ctx.Is(k, "please")) ++k;
      Polarity polarity = Polarity::kNone;
      std::size_t object = k;
      if (ctx.Is(k, "do") && ctx.Is(k + 1, "not") && !IsSubject(ctx.At(k + 2)) &&
          !In(ctx.At(k + 2), {"you", "worry", "mind", "know", "think", "have", "get"})) {
        polarity = Polarity::kNegative;
        object = k + 2;
      } else if (ctx.Is(k, "never") && !IsSubject(ctx.At(k + 1)) &&
                 !In(ctx.At(k + 1), {"mind", "again", "been", "have", "had", "ever"})) {
        polarity = Polarity::kNegative;
        object = k + 1;
      } else if (ctx.Is(k, "avoid")) {
        polarity = Polarity::kNegative;
        object = k + 1;
      } else if (ctx.Is(k, "always") && !IsSubject(ctx.At(k + 1))) {
        polarity = Polarity::kPositive;
        object = k + 1;
      } else if (ctx.Is(k, "make") && ctx.Is(k + 1, "sure") && !ctx.Is(k - 1, "i")) {
        polarity = Polarity::kPositive;
        object = ctx.Is(k + 2, "to") ? k + 3 : k + 2;
      } else if (ctx.Is(k, "you") && In(ctx.At(k + 1), {"must", "should"})) {
        const bool neg = ctx.Is(k + 2, "not");
        polarity = neg ? Polarity::kNegative : Polarity::kPositive;
        object = neg ? k + 3 : k + 2;
      }
      if (polarity != Polarity::kNone && object < w.size()) {
        const auto [value, value_end] = ValueFrom(ctx, object, /*stop_at_time=*/false);
        if (!value.empty()) {
          AddAct(SignalKind::kConstraint, w[s].begin, value_end, value, "instruction", polarity);
          s = object;
        }
      }
    }
  }
}

std::optional<Detector::StateCue> Detector::StateAt(const ActContext& ctx, std::size_t k, bool& past) const {
  const std::string_view verb = ctx.At(k);
  if (In(verb, {"live", "lives", "lived", "living", "reside", "resided", "stay", "stayed"}) &&
      (ctx.Is(k + 1, "in") || ctx.Is(k + 1, "at"))) {
    if (verb == "lived" || verb == "resided" || verb == "stayed") past = true;
    return StateCue{"residence", k + 2, k + 1};
  }
  if (In(verb, {"moved", "relocated"}) && ctx.Is(k + 1, "to")) {
    return StateCue{"residence", k + 2, k + 1};  // a move states the new residence
  }
  if (In(verb, {"work", "works", "worked", "working"}) &&
      (ctx.Is(k + 1, "at") || ctx.Is(k + 1, "for"))) {
    if (verb == "worked") past = true;
    return StateCue{"employer", k + 2, k + 1};
  }
  if (In(verb, {"work", "worked", "working"}) && ctx.Is(k + 1, "as")) {
    if (verb == "worked") past = true;
    return StateCue{"occupation", k + 2, k + 1};
  }
  if (In(verb, {"study", "studied", "studying", "major", "majored", "majoring"})) {
    if (verb == "studied" || verb == "majored") past = true;
    const std::size_t value = ctx.Is(k + 1, "in") ? k + 2 : k + 1;
    return StateCue{"study", value, value - 1};
  }
  if (In(verb, {"own", "owned", "drive", "drove"})) {
    if (verb == "owned" || verb == "drove") past = true;
    return StateCue{"possession", k + 1, k};
  }
  if (In(verb, {"am", "was", "be", "been"})) {
    if (verb == "was") past = true;
    std::size_t a = k + 1;
    if (ctx.Is(a, "not")) return std::nullopt;
    a = SkipAdverbs(ctx, a);
    if (In(ctx.At(a), {"based", "located"}) && ctx.Is(a + 1, "in")) {
      return StateCue{"residence", a + 2, a + 1};
    }
    if (ctx.Is(a, "from")) return StateCue{"origin", a + 1, a};
    if (In(ctx.At(a), {"married", "single", "divorced", "engaged", "pregnant", "retired",
                       "unemployed", "widowed", "separated", "employed", "self-employed"})) {
      return StateCue{"status", a, a};
    }
    if ((ctx.Is(a, "a") || ctx.Is(a, "an")) &&
        !In(ctx.At(a + 1), {"bit", "little", "lot", "fan", "big", "huge", "few", "couple"})) {
      return StateCue{"identity", a + 1, a};
    }
    if (In(ctx.At(a), {"working", "living", "studying"})) return StateAt(ctx, a, past);
    return std::nullopt;
  }
  if (In(verb, {"have", "has", "had", "got"}) &&
      !In(ctx.At(k + 1), {"to", "been", "had", "got", "not", "no", "never"})) {
    if (verb == "had") past = true;
    std::size_t a = k + 1;
    const bool counted =
        In(ctx.At(a), {"a", "an", "two", "three", "four", "five", "one"}) ||
        (a < ctx.w.size() && !ctx.w[a].text.empty() && IsDigitByte(ctx.w[a].text[0]));
    if (!counted) return std::nullopt;
    if (In(ctx.At(a + 1),
           {"question", "idea",   "feeling", "problem", "issue", "look",  "try",
            "chance",   "minute", "second",  "bit",     "great", "good",  "nice",
            "lot",      "few",    "couple",  "meeting", "call",  "blast", "moment"})) {
      return std::nullopt;
    }
    return StateCue{"possession", a, k};
  }
  return std::nullopt;
}

void Detector::DetectStates(const ActContext& ctx) {
  const auto& w = ctx.w;
  bool specific = false;
  for (std::size_t s = 0; s < w.size(); ++s) {
    // "my X is Y" / "my X was Y" (not "my favorite": a preference).
    if (w[s].text == "my" && !In(ctx.At(s + 1), {"favorite", "favourite", "budget"})) {
      std::size_t k = s + 1;
      while (k < w.size() && k - s <= 3 && !In(w[k].text, {"is", "are", "was", "were"}) &&
             !w[k].clause_start) {
        ++k;
      }
      if (k < w.size() && k > s + 1 && k - s <= 3 &&
          In(w[k].text, {"is", "are", "was", "were"}) && !ctx.Is(k + 1, "not")) {
        const std::string topic = JoinWords(w, s + 1, k);
        const bool was = In(w[k].text, {"was", "were"});
        const auto [value, value_end] = ValueFrom(ctx, k + 1);
        if (!value.empty() && !In(value, {"good", "fine", "great", "ok", "okay"})) {
          AddAct(was ? SignalKind::kPastState : SignalKind::kCurrentState, w[s].begin,
                 ActEnd(value_end, w[k]), value, topic);
          specific = true;
          s = k;
          continue;
        }
      }
    }
    if (!IsSubject(w[s].text)) continue;
    std::size_t k = SkipAdverbs(ctx, s + 1);
    bool past = false;
    // "I used to X": past state; the topic comes from X when it is a state pattern.
    if (ctx.Is(k, "used") && ctx.Is(k + 1, "to")) {
      bool ignored = false;
      const auto cue = StateAt(ctx, k + 2, ignored);
      const std::size_t value_start = cue ? cue->value_start : k + 2;
      const auto [value, value_end] = ValueFrom(ctx, value_start);
      AddAct(SignalKind::kPastState, w[s].begin,
             ActEnd(value_end, w[cue ? cue->cue_last : k + 1]), value,
             cue ? cue->topic : "habit");
      specific = true;
      s = k + 1;
      continue;
    }
    if (ctx.Is(k, "no") && ctx.Is(k + 1, "longer")) {
      bool ignored = false;
      const std::size_t verb_at = SkipAdverbs(ctx, k + 2);
      const auto cue = StateAt(ctx, verb_at, ignored);
      const std::size_t value_start = cue ? cue->value_start : verb_at;
      const auto [value, value_end] = ValueFrom(ctx, value_start);
      AddAct(SignalKind::kPastState, w[s].begin,
             ActEnd(value_end, w[cue ? cue->cue_last : k + 1]), value, cue ? cue->topic : "state",
             Polarity::kNegative);
      specific = true;
      s = k + 1;
      continue;
    }
    const auto cue = StateAt(ctx, k, past);
    if (!cue) continue;
    const auto [value, value_end] = ValueFrom(ctx, cue->value_start);
    if (value.empty()) continue;
    AddAct(past ? SignalKind::kPastState : SignalKind::kCurrentState, w[s].begin,
           ActEnd(value_end, w[cue->cue_last]), value, cue->topic);
    specific = true;
    s = cue->cue_last;
  }
  if (specific) return;
  // Bare cue words: "currently", "right now", "these days", "nowadays" / "previously",
  // "formerly", "back then", "in the past", "anymore".
  for (std::size_t s = 0; s < w.size(); ++s) {
    const std::string_view word = w[s].text;
    SignalKind kind = SignalKind::kCurrentState;
    std::size_t cue_last = s;
    if (In(word, {"currently", "nowadays"})) {
    } else if (word == "right" && ctx.Is(s + 1, "now")) {
      cue_last = s + 1;
    } else if (word == "these" && ctx.Is(s + 1, "days")) {
      cue_last = s + 1;
    } else if (word == "at" && ctx.Is(s + 1, "the") && ctx.Is(s + 2, "moment")) {
      cue_last = s + 2;
    } else if (In(word, {"previously", "formerly", "anymore"})) {
      kind = SignalKind::kPastState;
    } else if (word == "back" && ctx.Is(s + 1, "then")) {
      kind = SignalKind::kPastState;
      cue_last = s + 1;
    } else if (word == "in" && ctx.Is(s + 1, "the") && ctx.Is(s + 2, "past")) {
      kind = SignalKind::kPastState;
      cue_last = s + 2;
    } else {
      continue;
    }
    // Value: the clause without its subject and auxiliaries, cue removed.
    std::size_t start = cue_last + 1;
    if (word == "anymore") {
      start = s;
      while (start > 0 && !w[start].clause_start && s - start < kMaxCueDistance) --start;
    }
    while (start < w.size() &&
           (IsSubject(w[start].text) ||
            In(w[start].text, {"am", "is", "are", "was", "were", "do", "not", "have", "has"}))) {
      ++start;
    }
    std::string value;
    std::uint32_t value_end = 0;
    if (word == "anymore") {
      std::size_t stop = s;
      if (stop > start) {
        value = CleanValue(
            NormalizeForIndex(text_.substr(w[start].begin, w[stop - 1].end - w[start].begin)));
        value_end = w[stop - 1].end;
      }
    } else {
      std::tie(value, value_end) = ValueFrom(ctx, start);
    }
    const std::uint32_t begin =
        std::min(w[s].begin, word == "anymore" && start < w.size() ? w[start].begin : w[s].begin);
    AddAct(kind, begin, ActEnd(value_end, w[cue_last]), value, "state",
           word == "anymore" ? Polarity::kNegative : Polarity::kNone, kBareCueConfidence);
    break;
  }
}

}  // namespace engram::text::signals_detail
