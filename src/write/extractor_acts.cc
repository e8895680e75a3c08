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

// Nouns of scheduled occasions: "I have a dentist appointment tomorrow" is a plan, not a
// possession.
bool IsOccasionNoun(std::string_view word) {
  return In(word, {"appointment",  "meeting",    "conference", "interview", "exam",      "dinner",
                   "lunch",        "party",      "date",       "wedding",   "class",     "lesson",
                   "session",      "flight",     "trip",       "gig",       "concert",   "match",
                   "presentation", "deadline",   "shift",      "surgery",   "operation", "checkup",
                   "check-up",     "reunion",    "workshop",   "course",    "rehearsal", "recital",
                   "competition",  "tournament", "race"});
}

// Illnesses and lasting conditions one "has": "I have the flu", "she has asthma".
bool IsConditionNoun(std::string_view word) {
  return In(word,
            {"flu",        "cold",        "cough",        "fever",     "covid",    "migraine",
             "migraines",  "headache",    "asthma",       "diabetes",  "eczema",   "arthritis",
             "bronchitis", "tonsillitis", "pneumonia",    "infection", "insomnia", "anxiety",
             "depression", "adhd",        "autism",       "epilepsy",  "celiac",   "coeliac",
             "hayfever",   "sinusitis",   "concussion",   "shingles",  "measles",  "chickenpox",
             "norovirus",  "cancer",      "hypertension", "psoriasis", "acne",     "tinnitus",
             "sciatica"});
}

// Words that may stand between "have" and a condition: "the flu", "a bad cold".
bool IsConditionModifier(std::string_view word) {
  return In(word, {"the", "a", "an", "bad", "terrible", "awful", "mild", "nasty", "chronic",
                   "severe", "slight", "stomach", "chest", "sinus", "ear", "throat", "some"});
}

// Time units a duration names ("for two weeks").
bool IsDurationUnit(std::string_view word) {
  return In(word, {"day", "days", "night", "nights", "week", "weeks", "month", "months", "year",
                   "years", "hour", "hours", "weekend", "fortnight"});
}

bool IsNumberWord(std::string_view word) {
  return !word.empty() && (std::isdigit(static_cast<unsigned char>(word[0])) ||
                           In(word, {"a", "an", "one", "two", "three", "four", "five", "six",
                                     "seven", "eight", "nine", "ten", "few", "couple", "several"}));
}

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
          // "I'm not a fan of mango myself": the reflexive is emphasis, not part of the object.
          const auto [like_begin, like_end] = CutAt(begin, end, {"myself", "ourselves"});
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
    // The workplace itself: "a data analyst at Barclays" -> works_at Barclays.
    const std::size_t preposition = WordAt(lexeme.begin);
    if (preposition != std::string::npos) {
      const auto [place_begin, place_end] =
          ObjectFrom(preposition + 1, {"in", "near", "with", "since", "for", "on"});
      if (place_begin != place_end) {
        FactCandidate& workplace = Add(past ? "worked_at" : "works_at", place_begin, place_end,
                                       FactKind::kState, subject_at);
        workplace.past = past;
      }
    }
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
  // "I have a cat called Mochi": the naming clause is not part of what is owned.
  if (topic == "possession") std::tie(begin, end) = CutAt(begin, end, {"called", "named"});
  if (In(topic, {"residence", "employer", "origin", "occupation", "study"})) {
    std::tie(begin, end) = CutAt(begin, end,
                                 {"with", "for", "since", "because", "near", "as", "and", "until",
                                  "during", "but", "where", "originally"});
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
  if (topic == "possession" && !past && !negative) {
    // The head noun: the last word before a preposition ("a team dinner at Lotus").
    const auto [head_begin, head_end] =
        CutAt(begin, end, {"at", "in", "with", "on", "for", "tomorrow", "today", "tonight"});
    const std::string phrase = NormalizeFactText(Span(head_begin, head_end));
    const std::string head = phrase.substr(phrase.rfind(' ') + 1);
    // "I have the flu": health (Health below), not a possession.
    if (IsConditionNoun(head)) return;
    if (IsOccasionNoun(head)) {
      Add("plans_to", begin, end, FactKind::kForesight, act.begin);
      return;
    }
  }
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

// "I have the flu", "Anna has asthma", "I had a cold last week": has_condition, or
// had_condition for the past tense. The subject is the speaker or a named person.
void Extractor::Health() {
  for (std::size_t k = 0; k + 1 < words_.size(); ++k) {
    std::size_t v = VerbAfterSubject(k);
    std::string subject;
    if (v == std::string::npos) {
      if (!words_[k].capitalized || words_[k].punct || !IsPersonAt(words_[k].begin)) continue;
      subject = Span(words_[k].begin, words_[k].end);
      v = SkipAdverbs(k + 1);
    }
    std::size_t at = v;
    if (In(At(at), {"have", "has"}) && Is(at + 1, "got")) ++at;
    const std::string_view verb = At(at);
    if (!In(verb, {"have", "has", "had", "got", "caught", "get"})) continue;
    const bool past = In(verb, {"had", "caught"});
    std::size_t noun = at + 1;
    while (noun < words_.size() && noun - at <= 3 && IsConditionModifier(At(noun))) ++noun;
    if (!IsConditionNoun(At(noun))) continue;
    FactCandidate& fact = Add(past ? "had_condition" : "has_condition", words_[noun].begin,
                              words_[noun].end, FactKind::kState, words_[k].begin);
    fact.past = past;
    if (!subject.empty()) {
      fact.subject = subject;
      fact.subject_is_speaker = false;
    }
  }
}

// "I go climbing on Wednesdays", "I do a long run every sunday", "I've been running every
// morning since January": a first-person verb phrase ending in a frequency adverbial ("every
// <unit>", "each <unit>", "on <weekday>s", "twice a week") is a routine; the object is the verb
// phrase through the adverbial. Light verbs are dropped ("go climbing" -> "climbing", "do a
// long run" -> "long run").
void Extractor::Habits() {
  for (std::size_t k = 0; k + 2 < words_.size(); ++k) {
    if (!Is(k, "i")) continue;
    std::size_t v = VerbAfterSubject(k);
    if (v == std::string::npos || v >= words_.size()) continue;
    if (In(At(v), {"have", "has"}) && Is(v + 1, "been") && At(v + 2).ends_with("ing")) v += 2;
    if (Is(v, "go") && At(v + 1).ends_with("ing")) ++v;
    if (Is(v, "do") && In(At(v + 1), {"a", "an", "the", "some", "my"})) ++v;
    if (In(At(v), {"am",   "is",    "are",  "was",   "were",   "be",   "have",  "has", "had",
                   "will", "would", "can",  "could", "should", "must", "might", "do",  "did",
                   "not",  "think", "feel", "need",  "want",   "get",  "see",   "talk"})) {
      continue;
    }
    // The frequency adverbial closing the phrase, within ten words of the verb and the clause.
    std::size_t phrase_end = 0;
    for (std::size_t w = v + 1; w < words_.size() && w - v <= 10; ++w) {
      if (words_[w].punct || In(At(w), {"but", "because", "so", "and", "since", "which"})) break;
      if (In(At(w), {"every", "each"}) && w + 1 < words_.size() && !words_[w + 1].punct) {
        phrase_end = w + 2;
        // "every Tuesday evening": a part of the day may follow.
        if (In(At(phrase_end), {"morning", "afternoon", "evening", "night"})) ++phrase_end;
        break;
      }
      if (Is(w, "on") && w + 1 < words_.size() && words_[w + 1].text.size() > 6 &&
          words_[w + 1].text.ends_with("days")) {
        phrase_end = w + 2;
        break;
      }
      if (In(At(w), {"once", "twice"}) && In(At(w + 1), {"a", "per"}) &&
          IsDurationUnit(At(w + 2))) {
        phrase_end = w + 3;
        break;
      }
    }
    if (phrase_end == 0) continue;
    std::size_t start = v;
    while (start < phrase_end && In(At(start), {"a", "an", "the", "some", "my"})) ++start;
    if (start >= phrase_end) continue;
    Add("habit", words_[start].begin, words_[phrase_end - 1].end, FactKind::kState,
        words_[k].begin);
  }
}

// "my birthday is May 19", "Priya's birthday is on the 12th": birthday, the date as said; "our
// anniversary is next Friday": has_event, dated by the time expression.
void Extractor::Occasions() {
  for (std::size_t k = 1; k + 1 < words_.size(); ++k) {
    const bool birthday = Is(k, "birthday");
    if (!birthday && !In(At(k), {"anniversary", "wedding", "graduation"})) continue;
    std::string subject;
    const std::string_view owner =
        std::string_view(source_.text)
            .substr(words_[k - 1].begin, words_[k - 1].end - words_[k - 1].begin);
    if (In(At(k - 1), {"my", "our"})) {
      subject = source_.speaker;
    } else if (words_[k - 1].capitalized && (owner.ends_with("'s") || owner.ends_with("\u2019s"))) {
      subject = std::string(owner.substr(0, owner.size() - (owner.ends_with("'s") ? 2 : 4)));
    } else {
      continue;
    }
    std::size_t at = k + 1;
    if (!Is(at, "is")) continue;
    ++at;
    if (Is(at, "on")) ++at;
    if (at >= words_.size()) continue;
    const text::TimeMention* when = nullptr;
    for (const text::TimeMention& time : source_.times) {
      if (time.begin == words_[at].begin) when = &time;
    }
    if (when == nullptr) continue;
    FactCandidate& fact =
        birthday ? Add("birthday", when->begin, when->end, FactKind::kProfile, words_[k - 1].begin)
                 : Add("has_event", words_[k].begin, words_[k].end, FactKind::kEvent,
                       words_[k - 1].begin);
    if (birthday) {
      fact.time.reset();
    } else {
      fact.time = FactTime{when->surface, when->from, when->to,
                           std::string(text::GranularityName(when->granularity))};
    }
    fact.subject = subject;
    fact.subject_is_speaker = subject == source_.speaker;
  }
}

// "I work for the NHS as a pharmacist", "I worked at Bosch as an engineer": the role after
// "as" in a clause about work.
void Extractor::RoleAs() {
  for (std::size_t k = 0; k + 3 < words_.size(); ++k) {
    const std::size_t v = VerbAfterSubject(k);
    if (v == std::string::npos || !In(At(v), {"work", "worked", "works"})) continue;
    for (std::size_t w = v + 1; w + 2 < words_.size() && w - v <= 8; ++w) {
      if (words_[w].punct) break;
      if (!Is(w, "as") || !In(At(w + 1), {"a", "an"})) continue;
      const auto [begin, end] = ObjectFrom(w + 2, {"at", "for", "in", "with", "since"});
      if (begin == end) break;
      const bool past = Is(v, "worked");
      FactCandidate& fact =
          Add(past ? "worked_as" : "works_as", begin, end, FactKind::kState, words_[k].begin);
      fact.past = past;
      break;
    }
  }
}

// "I've lived in Leeds since 2012", "we have lived in Porto for ten years": the present perfect
// of residence with "since" or "for" says the state still holds (lives_in, from the time given).
void Extractor::PerfectStates() {
  for (std::size_t k = 0; k + 4 < words_.size(); ++k) {
    const std::size_t v = VerbAfterSubject(k);
    if (v == std::string::npos || !In(At(v), {"have", "has"}) || !Is(v + 1, "lived") ||
        !In(At(v + 2), {"in", "at"})) {
      continue;
    }
    bool lasting = false;
    for (std::size_t w = v + 3; w < words_.size(); ++w) {
      lasting = lasting || In(At(w), {"since", "for"});
    }
    if (!lasting) continue;
    const auto [begin, end] = ObjectFrom(v + 3, {"since", "for", "with", "near"});
    if (begin == end) continue;
    Add("lives_in", begin, end, FactKind::kState, words_[k].begin);
  }
}

}  // namespace engram::write::rule_extractor
