// The people rule family of the rule extractor (rule_extractor.h): relations ("my sister Anna")
// and states of a named third person ("Anna lives in Porto").
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

constexpr std::array<std::string_view, 42> kRelations = {
    "sister",    "brother",  "mother",  "mom",        "mum",         "father",    "dad",
    "son",       "daughter", "husband", "wife",       "partner",     "boyfriend", "girlfriend",
    "friend",    "cousin",   "aunt",    "uncle",      "grandmother", "grandma",   "grandfather",
    "grandpa",   "niece",    "nephew",  "boss",       "colleague",   "coworker",  "roommate",
    "fiance",    "fiancee",  "dog",     "cat",        "neighbor",    "neighbour", "flatmate",
    "housemate", "teacher",  "coach",   "supervisor", "manager",     "mentor",    "tutor",
};

// The schema's name for a relation word: spelling variants and near-synonyms share one slot
// ("neighbour" -> neighbor, "manager" -> boss).
std::string CanonicalRelation(std::string_view word) {
  if (word == "neighbour") return "neighbor";
  if (word == "manager") return "boss";
  return std::string(word);
}

// Adjectives that may stand between the possessive and the relation word without changing the
// relation: "my best friend Arjun", "my older sister Kasia".
bool IsRelationModifier(std::string_view word) {
  return In(word, {"best", "older", "younger", "little", "big", "elder", "eldest", "oldest",
                   "youngest", "twin", "baby", "new", "old", "closest", "dear"});
}

// Capitalised words that open sentences without being names.
bool IsCommonOpener(std::string_view word) {
  return In(word, {"everyone", "everybody", "nobody", "someone", "somebody", "he", "she", "they",
                   "it", "this", "that", "there", "my", "our", "his", "her", "their", "the", "a",
                   "an", "one", "who", "what", "which", "people", "mom", "dad", "mum", "you",
                   "your", "each", "every", "no", "anyone", "if", "when", "so", "and", "but",
                   "then", "now", "today", "yesterday", "tomorrow", "also", "maybe", "apparently",
                   "actually", "honestly", "yeah", "yes", "well", "oh", "wow", "hey", "hi"});
}

bool IsRelationWord(std::string_view word) {
  return std::find(kRelations.begin(), kRelations.end(), word) != kRelations.end();
}

}  // namespace

// "my sister Anna", "Anna is my sister".
void Extractor::Relations() {
  for (std::size_t k = 0; k + 2 < words_.size(); ++k) {
    if (!In(words_[k].text, {"my", "our"})) continue;
    std::size_t rel = k + 1;
    if (IsRelationModifier(At(rel))) ++rel;
    if (!IsRelationWord(At(rel))) continue;
    // "my cat called Mochi", "my boss is called Priya", "our dog named Rex".
    std::size_t name_at = rel + 1;
    if (In(At(name_at), {"called", "named"})) {
      ++name_at;
    } else if (Is(name_at, "is") && In(At(name_at + 1), {"called", "named"})) {
      name_at += 2;
    }
    std::size_t name_end = NameEnd(name_at);
    // A name written in lower case ("my wife sophie") counts when the entity detector read it
    // as a person.
    bool lower_case_name = false;
    if (name_end == name_at && name_at < words_.size() && !words_[name_at].punct &&
        IsPersonAt(words_[name_at].begin)) {
      name_end = name_at + 1;
      lower_case_name = true;
    }
    if (name_end == name_at) continue;
    std::uint32_t name_stop = words_[name_end - 1].end;
    // "my daughter Sara's birthday": the name without the possessive.
    const std::string_view last =
        std::string_view(source_.text)
            .substr(words_[name_end - 1].begin, name_stop - words_[name_end - 1].begin);
    if (last.ends_with("'s") || last.ends_with("\u2019s")) {
      name_stop -= last.ends_with("'s") ? 2 : 4;
    }
    FactCandidate& fact = Add(CanonicalRelation(At(rel)), words_[name_at].begin, name_stop,
                              FactKind::kRelation, words_[k].begin);
    fact.time.reset();
    fact.object_is_name = lower_case_name;
  }
  // "a cat called Mochi", "a rescue dog named Pixel" after a verb of having: the speaker's pet.
  for (std::size_t k = 1; k + 2 < words_.size(); ++k) {
    if (!In(At(k), {"dog", "cat", "puppy", "kitten"}) || !In(At(k + 1), {"called", "named"})) {
      continue;
    }
    // The verb within four words before the noun, its subject the speaker right before it.
    bool had = false;
    for (std::size_t verb = k; verb > 1 && k - verb < 5; --verb) {
      if (In(At(verb - 1), {"have", "has", "got", "adopted", "bought", "rescued", "own"})) {
        had = IsFirstPerson(At(verb - 2));
        break;
      }
    }
    if (!had) continue;
    const std::size_t name_end = NameEnd(k + 2);
    if (name_end == k + 2) continue;
    FactCandidate& fact =
        Add(std::string(In(At(k), {"dog", "puppy"}) ? "dog" : "cat"), words_[k + 2].begin,
            words_[name_end - 1].end, FactKind::kRelation, words_[k].begin);
    fact.time.reset();
  }
  for (std::size_t k = 0; k + 3 < words_.size(); ++k) {
    // "Tom is my brother": the name may open the sentence.
    if (k > 0 && words_[k - 1].capitalized && !words_[k - 1].punct) continue;
    std::size_t name_end = k;
    while (name_end < words_.size() && name_end - k < 3 && words_[name_end].capitalized &&
           !words_[name_end].punct && !IsFirstPerson(words_[name_end].text) &&
           !IsCommonOpener(words_[name_end].text)) {
      ++name_end;
    }
    if (name_end == k) continue;
    if (Is(name_end, "is") && Is(name_end + 1, "my") && IsRelationWord(At(name_end + 2))) {
      FactCandidate& fact = Add(std::string(At(name_end + 2)), words_[k].begin,
                                words_[name_end - 1].end, FactKind::kRelation, words_[k].begin);
      fact.end = words_[name_end + 2].end;
      fact.time.reset();
    }
  }
}

// "<Name> lives in X", "my sister Anna works at X", "Anna moved to X".
void Extractor::ThirdPerson() {
  for (std::size_t k = 0; k < words_.size(); ++k) {
    if (!words_[k].capitalized || words_[k].punct || IsFirstPerson(words_[k].text)) continue;
    const bool after_relation = k >= 2 && Is(k - 2, "my") && IsRelationWord(At(k - 1));
    // A name opening the sentence is not tagged by the entity detector without a gazetteer;
    // the verb pattern after it is the cue.
    const bool opener = words_[k].first && !IsCommonOpener(words_[k].text);
    if (!after_relation && !opener && !IsPersonAt(words_[k].begin)) continue;
    std::size_t name_end = k;
    while (name_end < words_.size() && name_end - k < 3 && words_[name_end].capitalized &&
           !words_[name_end].punct) {
      ++name_end;
    }
    std::size_t v = SkipAdverbs(name_end);
    std::string predicate;
    std::size_t object = 0;
    bool past = false;
    const std::string_view verb = At(v);
    if (In(verb, {"lives", "lived"}) && In(At(v + 1), {"in", "at"})) {
      predicate = verb == "lived" ? "lived_in" : "lives_in";
      past = verb == "lived";
      object = v + 2;
    } else if (verb == "moved" && Is(v + 1, "to")) {
      predicate = "lives_in";
      object = v + 2;
    } else if (In(verb, {"works", "worked"}) && In(At(v + 1), {"at", "for"})) {
      predicate = verb == "worked" ? "worked_at" : "works_at";
      past = verb == "worked";
      object = v + 2;
    } else if (In(verb, {"works", "worked"}) && Is(v + 1, "as")) {
      predicate = verb == "worked" ? "worked_as" : "works_as";
      past = verb == "worked";
      object = v + 2;
    } else if (verb == "is" && In(At(v + 1), {"a", "an"})) {
      predicate = "is_a";
      object = v + 2;
    } else {
      continue;
    }
    const auto [begin, end] =
        ObjectFrom(object, {"with", "for", "near", "since", "in", "at", "on"});
    if (begin == end) continue;
    // "Meera is a doctor at Guy's Hospital": a workplace makes it a job (extractor_acts.cc,
    // Identity); otherwise "is a" is read only after a relation ("my husband Kenji is a chef").
    std::size_t after = v + 2;
    while (after < words_.size() && words_[after].begin < end) ++after;
    if (predicate == "is_a" && In(At(after), {"at", "for"})) {
      predicate = "works_as";
    } else if (predicate == "is_a" && !after_relation) {
      continue;
    }
    FactCandidate& fact = Add(predicate, begin, end,
                              predicate == "is_a" ? FactKind::kProfile : FactKind::kState,
                              words_[k].begin);
    fact.subject = Span(words_[k].begin, words_[name_end - 1].end);
    fact.subject_is_speaker = false;
    fact.past = past;
    // "Meera is a doctor at Guy's Hospital": the workplace as well.
    if (predicate == "works_as" && verb == "is") {
      const auto [place_begin, place_end] =
          ObjectFrom(after + 1, {"in", "near", "with", "since", "for", "on"});
      if (place_begin != place_end) {
        FactCandidate& workplace =
            Add("works_at", place_begin, place_end, FactKind::kState, words_[k].begin);
        workplace.subject = Span(words_[k].begin, words_[name_end - 1].end);
        workplace.subject_is_speaker = false;
      }
    }
    k = name_end;
  }
}

}  // namespace engram::write::rule_extractor
