// The memory-act rule family of the rule extractor (rule_extractor.h): the acts text/signals.h
// found in a sentence (preferences, constraints, current and past states, replacements) become
// candidate facts with the schema's predicates (predicates.h).
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
namespace {

// State topics of the memory acts and the predicates of their current facts; the past forms and
// which are single-valued come from the predicate schema (predicates.h).
struct Mapping {
  std::string_view topic;
  std::string_view current;
  FactKind kind;
};

constexpr std::array<Mapping, 8> kMappings = {{
    {"residence", "lives_in", FactKind::kState},
    {"employer", "works_at", FactKind::kState},
    {"occupation", "works_as", FactKind::kState},
    {"study", "studies", FactKind::kState},
    {"possession", "owns", FactKind::kState},
    {"identity", "is_a", FactKind::kProfile},
    {"origin", "from", FactKind::kProfile},
    {"habit", "habit", FactKind::kState},
}};

}  // namespace

void Extractor::FromActs() {
  for (const text::Signal& act : source_.signals) {
    if (!text::IsMemoryAct(act.kind) || !ActInSentence(act)) continue;
    // Bare cue words ("currently", "anymore") give vague acts; the patterns do better.
    if ((act.kind == text::SignalKind::kCurrentState ||
         act.kind == text::SignalKind::kPastState) &&
        act.confidence < 1.0f) {
      continue;
    }
    if (act.kind == text::SignalKind::kReplacement) {
      Replacement(act);
      continue;
    }
    const auto [begin, end] = ValueSpan(act);
    if (begin == end) continue;
    const bool negative = act.polarity == text::Polarity::kNegative;
    const std::string& topic = act.topic;
    switch (act.kind) {
      case text::SignalKind::kPreference: {
        if (topic.rfind("favorite ", 0) == 0) {
          Add("favorite_" + Snake(NormalizeFactText(topic.substr(9))), begin, end,
              FactKind::kPreference, act.begin);
        } else {
          // "Everyone we love was there": the object must not open with a verb or a clause.
          const std::string value = NormalizeFactText(Span(begin, end));
          const std::string first = value.substr(0, value.find(' '));
          if (In(first, {"was", "is", "are", "were", "be", "been", "that", "how", "when",
                         "what", "it", "to", "you", "him", "her", "them", "this", "your",
                         "i", "every", "each", "thought", "idea", "those", "these", "at", "in",
                         "on", "call", "with", "for", "so", "how", "where", "why"})) {
            break;
          }
          // Replies to the listener's output ("I like those suggestions", "I love the list").
          if (In(value, {"list", "suggestions", "suggestion", "idea", "ideas", "tips", "tip",
                         "advice", "recommendation", "recommendations", "playing", "one",
                         "help", "option", "options", "part", "answer", "sound", "way", "plan",
                         "breakdown", "question", "info", "information", "format", "approach",
                         "response", "explanation", "detail", "details", "look", "name"})) {
            break;
          }
          // A quotation after a colon is what was said, not what is liked.
          std::uint32_t before = begin;
          while (before > 0 && (source_.text[before - 1] == ' ' || source_.text[before - 1] == '"')) {
            --before;
          }
          if (before > 0 && source_.text[before - 1] == ':') break;
          const auto [like_begin, like_end] = CutAt(begin, end, {});
          const std::string liked = NormalizeFactText(Span(like_begin, like_end));
          const std::string last = liked.substr(liked.rfind(' ') + 1);
          if (In(last, {"them", "it", "him", "her", "this", "that"})) break;
          FactCandidate& fact =
              Add("likes", like_begin, like_end, FactKind::kPreference, act.begin);
          fact.negated = negative;
        }
        break;
      }
      case text::SignalKind::kConstraint: {
        if (topic == "allergy" || topic == "diet" || topic == "intolerance") {
          const std::string value = NormalizeFactText(act.value);
          if (topic == "diet" && In(value, {"vegan", "vegetarian", "pescatarian", "kosher",
                                            "halal", "diabetic", "celiac", "coeliac", "sober",
                                            "teetotal"})) {
            Add("diet", begin, end, FactKind::kConstraint, act.begin);
            break;
          }
          const std::string predicate = topic == "allergy"       ? "allergic_to"
                                        : topic == "intolerance" ? "intolerant_to"
                                                                 : "cannot_eat";
          // "I don't have big plans" is not a diet; "I can't have dairy" is.
          const std::string surface = " " + NormalizeFactText(act.surface) + " ";
          if (topic == "diet" && surface.find(" have ") != std::string::npos &&
              surface.find(" can t have ") == std::string::npos &&
              surface.find(" cannot have ") == std::string::npos &&
              surface.find(" can not have ") == std::string::npos) {
            break;
          }
          for (const auto& [part_begin, part_end] : SplitList(begin, end)) {
            Add(predicate, part_begin, part_end, FactKind::kConstraint, act.begin);
          }
        } else if (topic == "avoid") {
          Add("avoids", begin, end, FactKind::kConstraint, act.begin);
        } else if (topic == "limitation") {
          Add("cannot", begin, end, FactKind::kConstraint, act.begin);
        } else if (topic == "instruction") {
          // "Don't forget ...", "Don't worry ...": idioms, not standing instructions.
          const std::string value = NormalizeFactText(Span(begin, end));
          const std::string first = value.substr(0, value.find(' '));
          if (In(first, {"forget", "worry", "hesitate", "mind", "be", "stop", "give", "let",
                         "feel", "apologize", "sweat", "say", "up", "happy", "calm", "ready",
                         "there", "so", "such", "good", "nice", "fun", "great", "glad", "here",
                         "a", "the", "in", "on", "at", "love", "like", "enjoy", "have", "been",
                         "open", "down", "welcome", "grateful", "thankful", "proud", "full",
                         "worth", "fun", "nice", "amazing", "awesome", "cool", "there's"})) {
            break;
          }
          // An instruction opens with a plain verb: not "always admired ...", "never ever ...".
          if (first.ends_with("ed") || first.ends_with("ing") ||
              In(first, {"they", "ever", "we", "he", "she", "it", "i", "this", "that"})) {
            break;
          }
          // "You should come visit": advice to the listener, not an instruction.
          if (NormalizeFactText(act.surface).rfind("you ", 0) == 0) break;
          FactCandidate& fact = Add("instruction", begin, end, FactKind::kConstraint, act.begin);
          fact.negated = negative;
        } else if (topic == "budget") {
          Add("budget", begin, end, FactKind::kConstraint, act.begin);
        }
        break;
      }
      case text::SignalKind::kCurrentState:
      case text::SignalKind::kPastState:
        State(act, begin, end, act.kind == text::SignalKind::kPastState, negative);
        break;
      default:
        break;
    }
  }
}

// What "be a / an N" says when the schema has a closer slot than is_a (predicates.h): a diet
// ("I'm a vegetarian" -> diet), or a job, which grammar marks by its workplace ("I'm a data
// analyst at Barclays", "a nurse at St Mary's" -> works_as; was -> worked_as). Returns false
// when it is an identity (is_a).
bool Extractor::Identity(std::uint32_t begin, std::uint32_t end, bool past,
                         std::uint32_t subject_at) {
  const auto [noun_begin, noun_end] = CutAt(begin, end, {"at", "for", "with", "in", "and"});
  const std::string noun = NormalizeFactText(Span(noun_begin, noun_end));
  if (!past && In(noun, {"vegan", "vegetarian", "pescatarian", "flexitarian", "pescetarian"})) {
    Add("diet", noun_begin, noun_end, FactKind::kConstraint, subject_at);
    return true;
  }
  // The word that ended the noun phrase: "at" / "for" before a workplace.
  for (const text::Lexeme& lexeme : source_.lexemes) {
    if (lexeme.begin < noun_end || lexeme.end > end) continue;
    if (!In(lexeme.lower, {"at", "for"})) return false;
    FactCandidate& fact =
        Add(past ? "worked_as" : "works_as", noun_begin, noun_end, FactKind::kState, subject_at);
    fact.past = past;
    return true;
  }
  return false;
}

void Extractor::State(const text::Signal& act, std::uint32_t begin, std::uint32_t end, bool past,
           bool negative) {
  const std::string& topic = act.topic;
  // "since I was a boy", "when I lived in Paris": a subordinate clause, not a statement.
  if (In(WordBefore(act.begin), {"since", "when", "while", "until", "if", "as", "before",
                                 "after", "whenever", "once"})) {
    return;
  }
  // "I got a rejection letter": an event, not a possession.
  if (topic == "possession" && !past &&
      NormalizeFactText(act.surface).find(" got ") != std::string::npos) {
    return;
  }
  if (In(topic, {"residence", "employer", "origin", "occupation", "study"})) {
    std::tie(begin, end) = CutAt(begin, end, {"with", "for", "since", "because", "near", "as",
                                              "and", "until", "during", "but", "where"});
  }
  // "I had a picnic / a setback / a great day": "had" is an experience far more often than a
  // possession; only "owned" (or "used to own") says the speaker had something.
  if (topic == "possession" && past) {
    const std::string surface = " " + NormalizeFactText(act.surface) + " ";
    if (surface.find(" owned ") == std::string::npos && surface.find(" own ") == std::string::npos) {
      return;
    }
  }
  // "I have a meeting coming up": an appointment, not a possession; "I am a part of X".
  const std::string value = NormalizeFactText(Span(begin, end));
  if (topic == "possession" && value.find("coming up") != std::string::npos) return;
  if (topic == "identity" && value.rfind("part ", 0) == 0) return;
  if (topic == "study" && In(NormalizeFactText(Span(begin, end)),
                             {"hard", "a lot", "late", "all night", "together", "abroad"})) {
    return;
  }
  if (topic == "identity" && !negative && Identity(begin, end, past, act.begin)) return;
  for (const Mapping& mapping : kMappings) {
    if (topic != mapping.topic) continue;
    if (negative && !past) return;
    // "I no longer live in X": the state ended; a current negative of a single-valued slot.
    if (negative) {
      FactCandidate& fact =
          Add(std::string(mapping.current), begin, end, mapping.kind, act.begin);
      fact.negated = true;
      return;
    }
    if (mapping.topic == "habit" && !past) return;
    FactCandidate& fact = Add(past ? PastOf(mapping.current) : std::string(mapping.current),
                              begin, end, mapping.kind, act.begin);
    fact.past = past;
    return;
  }
  if (topic == "status") {
    const std::string status = NormalizeFactText(act.value);
    std::string predicate = "status";
    if (In(status, {"married", "single", "divorced", "engaged", "widowed", "separated"})) {
      predicate = "relationship_status";
    } else if (In(status, {"retired", "unemployed", "employed", "self employed"})) {
      predicate = "employment_status";
    }
    FactCandidate& fact =
        Add(past ? PastOf(predicate) : predicate, begin, end, FactKind::kState, act.begin);
    fact.past = past;
    return;
  }
  if (topic == "state" && negative) {
    // "I no longer eat meat": a habit that stopped.
    FactCandidate& fact = Add("habit", begin, end, FactKind::kState, act.begin);
    fact.negated = true;
    return;
  }
  // "my X is Y": a profile attribute of the speaker, unless X names a relative ("my sister
  // Emma is a nurse", handled by ThirdPerson) or is vague.
  const std::string attribute = NormalizeFactText(topic);
  if (attribute.empty() || attribute == "state" || attribute == "habit") return;
  const std::size_t spaces = std::count(attribute.begin(), attribute.end(), ' ');
  if (spaces > 1) return;
  // Only attributes a profile has; "my art is important to me" is an opinion, not a field.
  if (!IsProfileAttribute(Snake(attribute))) return;
  // The "my" must open its clause: "Representing diversity in my art is important".
  bool clause_start = false;
  for (std::size_t word_idx = 0; word_idx < words_.size(); ++word_idx) {
    if (words_[word_idx].begin != act.begin) continue;
    clause_start = word_idx == 0 || words_[word_idx - 1].punct ||
                   In(words_[word_idx - 1].text, {"and", "but", "so", "oh", "well", "also"});
    break;
  }
  if (!clause_start) return;
  FactCandidate& fact = Add(past ? PastOf(Snake(attribute)) : Snake(attribute), begin, end,
                            FactKind::kProfile, act.begin);
  fact.past = past;
}

void Extractor::Replacement(const text::Signal& act) {
  if (act.value.empty() || act.previous_value.empty()) return;
  const std::string surface = NormalizeFactText(act.surface);
  const std::string verb = surface.substr(0, surface.find(' '));
  const auto [begin, end] = ValueSpan(act);
  if (begin == end) return;
  if (In(verb, {"moved", "relocated", "moving"})) {
    Add("lives_in", begin, end, FactKind::kState, act.begin);
    return;
  }
  if (!In(verb, {"switched", "switch", "switching", "migrated", "migrate", "migrating",
                 "upgraded", "changed", "replaced", "replace", "swapped", "converted",
                 "transitioned"})) {
    return;
  }
  Add("uses", begin, end, FactKind::kTechnical, act.begin);
  text::Signal previous = act;
  previous.value = act.previous_value;
  const auto [old_begin, old_end] = ValueSpan(previous);
  if (old_begin != old_end) {
    FactCandidate& old = Add("uses", old_begin, old_end, FactKind::kTechnical, act.begin);
    old.negated = true;
  }
}

}  // namespace engram::write::rule_extractor
