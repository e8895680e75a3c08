// The Detector's entity candidates (signal_detector.h, phase D): capitalised runs classified as
// person, place or organisation by the gazetteer, titles, suffixes and context cues, each with a
// confidence (the levels are named below).
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

// Confidence of an entity candidate by the evidence that named it (signals.h lists the levels).
constexpr float kKnownNameConfidence = 0.9f;        // the gazetteer, or a title ("Dr. Smith")
constexpr float kSpeakerTagConfidence = 0.7f;       // "Melanie: ..." at the start of a line
constexpr float kStructureConfidence = 0.8f;        // a suffix ("Acme Inc", "Lake Tahoe"), a
                                                    // known first name and a surname, or a
                                                    // relative's name ("my friend Anna")
constexpr float kEmployerCueConfidence = 0.7f;      // "work at Google"
constexpr float kStrongContextConfidence = 0.6f;    // direct address ("Thanks, Caroline"),
                                                    // "in Berlin", "moved to Berlin", "met Anna"
constexpr float kWeakContextConfidence = 0.5f;      // "at X", "to X", "Anna said"
constexpr float kListedPersonConfidence = 0.4f;     // "with Anna", "and Anna"
constexpr float kCapitalisationConfidence = 0.3f;   // capitalisation alone


// Sentence-initial capitalised words that never start a name.
bool IsCommonStarter(std::string_view lower) {
  static constexpr std::array<std::string_view, 96> kStarters = {
      "i",        "i'm",   "i've",    "i'll",     "i'd",       "a",      "an",       "the",
      "this",     "that",  "these",   "those",    "my",        "our",    "your",     "his",
      "her",      "their", "its",     "we",       "you",       "he",     "she",      "they",
      "it",       "it's",  "there",   "here",     "what",      "when",   "where",    "who",
      "why",      "how",   "which",   "yes",      "no",        "not",    "ok",       "okay",
      "hi",       "hello", "hey",     "thanks",   "thank",     "please", "sorry",    "well",
      "so",       "and",   "but",     "or",       "if",        "then",   "also",     "just",
      "actually", "maybe", "perhaps", "probably", "yesterday", "today",  "tomorrow", "tonight",
      "last",     "next",  "on",      "in",       "at",        "after",  "before",   "since",
      "for",      "from",  "to",      "with",     "do",        "does",   "did",      "is",
      "are",      "was",   "were",    "can",      "could",     "will",   "would",    "should",
      "let's",    "great", "cool",    "nice",     "sure",      "good",   "wow",      "oh"};
  return InArray(lower, kStarters);
}

// Capitalised words that are never (part of) a name.
bool IsNeverName(std::string_view lower) {
  if (In(lower,
         {"mondays", "tuesdays", "wednesdays", "thursdays", "fridays", "saturdays", "sundays"})) {
    return true;
  }
  static constexpr std::array<std::string_view, 33> kNever = {
      "i",         "i'm",      "i've",     "i'll",     "i'd",    "monday",  "tuesday",
      "wednesday", "thursday", "friday",   "saturday", "sunday", "january", "february",
      "march",     "april",    "may",      "june",     "july",   "august",  "september",
      "october",   "november", "december", "ok",       "okay",   "yes",     "no",
      "hi",        "hello",    "thanks",   "dear",     "mr"};
  return InArray(lower, kNever);
}

bool IsOrgSuffix(std::string_view lower) {
  return In(
      lower,
      {"inc",          "ltd",     "llc",      "corp",       "corporation", "company",    "co",
       "gmbh",         "ag",      "plc",      "group",      "bank",        "university", "college",
       "institute",    "school",  "hospital", "foundation", "association", "agency",     "labs",
       "technologies", "systems", "airlines", "partners",   "studios",     "academy",    "society",
       "club",         "council", "ministry", "department", "museum",      "library",    "church"});
}

bool IsOrgHead(std::string_view lower) {
  return In(lower, {"university", "bank", "institute", "college", "museum", "department",
                    "ministry", "church", "school"});
}

bool IsPlaceSuffix(std::string_view lower) {
  return In(lower,
            {"city",  "street", "st",       "avenue",    "ave",    "road",    "rd",      "park",
             "lake",  "river",  "mountain", "mountains", "beach",  "island",  "islands", "county",
             "state", "valley", "bay",      "square",    "bridge", "airport", "station", "coast",
             "falls", "canyon", "desert",   "village",   "town",   "heights", "hills"});
}

bool IsTitle(std::string_view lower) {
  return In(lower, {"mr", "mrs", "ms", "dr", "prof", "mister", "miss", "sir", "madam", "aunt",
                    "uncle", "professor", "doctor", "coach", "captain"});
}

bool IsKinship(std::string_view lower) {
  return In(
      lower,
      {"friend",      "brother",   "sister",     "mom",      "mum",      "mother",    "dad",
       "father",      "wife",      "husband",    "son",      "daughter", "boss",      "colleague",
       "partner",     "boyfriend", "girlfriend", "cousin",   "grandma",  "grandpa",   "grandmother",
       "grandfather", "neighbor",  "neighbour",  "roommate", "coworker", "teacher",   "manager",
       "fiance",      "fiancee",   "niece",      "nephew",   "mentor",   "therapist", "bestie",
       "buddy",       "kid",       "child",      "baby",     "dog",      "cat"});
}

bool IsPetNoun(std::string_view lower) {
  return In(lower, {"dog", "cat", "puppy", "kitten", "pup", "hamster", "rabbit", "parrot", "horse",
                    "pony", "tortoise", "turtle", "budgie", "goldfish"});
}

}  // namespace

void Detector::DetectEntities() {
  // Headline-case sentences ("I Love New York City") say nothing through capitals.
  std::vector<std::uint8_t> headline(n_, 0);
  for (std::size_t start = 0; start < n_;) {
    std::size_t stop = start + 1;
    while (stop < n_ && !lx_[stop].sentence_start) ++stop;
    std::size_t words = 0;
    std::size_t capitals = 0;
    for (std::size_t k = start; k < stop; ++k) {
      if (lx_[k].kind != LexemeKind::kWord) continue;
      ++words;
      if (lx_[k].capitalized) ++capitals;
    }
    if (words >= 4 && capitals * 10 > words * 7) {
      for (std::size_t k = start; k < stop; ++k) headline[k] = 1;
    }
    start = stop;
  }
  auto is_capitalized_word = [&](std::size_t k) {
    return k < n_ && lx_[k].kind == LexemeKind::kWord && lx_[k].capitalized;
  };
  auto is_name_word = [&](std::size_t k) {
    if (k >= n_ || claimed_[k] || lx_[k].kind != LexemeKind::kWord || !lx_[k].capitalized ||
        headline[k]) {
      return false;
    }
    const std::string_view raw = text_.substr(lx_[k].begin, lx_[k].end - lx_[k].begin);
    const bool all_caps = raw.size() >= 2 && std::all_of(raw.begin(), raw.end(), [](char c) {
                            return !IsAlphaByte(c) || IsUpperByte(c);
                          });
    if (all_caps) return false;
    if (IsTitle(lx_[k].lower) && (Punct(k + 1, ".") || is_capitalized_word(k + 1))) return false;
    // Function words capitalised after a colon or quote ("Melanie: That's great").
    std::string_view base = lx_[k].lower;
    if (const std::size_t apostrophe = base.find('\''); apostrophe != std::string_view::npos) {
      base = base.substr(0, apostrophe);
    }
    if (!lx_[k].sentence_start && IsCommonStarter(base) && base != "will") return false;
    return !IsNeverName(lx_[k].lower);
  };
  for (std::size_t i = 0; i < n_; ++i) {
    // A name written in lower case right after a possessive kinship noun ("my wife sophie",
    // "my best friend jake") is a person when the gazetteer knows it as a given name.
    if (options_.gazetteer != nullptr && !claimed_[i] && lx_[i].kind == LexemeKind::kWord &&
        !lx_[i].capitalized && i >= 2 && IsKinship(lx_[i - 1].lower) &&
        !In(lx_[i - 1].lower, {"dog", "cat"}) &&
        (In(lx_[i - 2].lower, {"my", "our", "his", "her", "their"}) ||
         (i >= 3 && In(lx_[i - 3].lower, {"my", "our", "his", "her", "their"}))) &&
        !IsNeverName(lx_[i].lower) &&
        options_.gazetteer->Lookup(lx_[i].lower) == EntityKind::kPerson) {
      EmitEntity(EntityKind::kPerson, i, i + 1, kStructureConfidence);
      continue;
    }
    if (!is_name_word(i)) {
      // Gazetteer-known acronyms ("NASA", "UK").
      if (options_.gazetteer != nullptr && i < n_ && !claimed_[i] &&
          lx_[i].kind == LexemeKind::kWord && lx_[i].capitalized && !headline[i] &&
          !IsNeverName(lx_[i].lower)) {
        const std::string key =
            NormalizeForIndex(text_.substr(lx_[i].begin, lx_[i].end - lx_[i].begin));
        if (const auto kind = options_.gazetteer->Lookup(key); kind) {
          EmitEntity(*kind, i, i + 1, kKnownNameConfidence);
        }
      }
      continue;
    }
    // Grow the run: capitalised words, glued hyphens ("Jean-Luc"), inner connectors
    // ("Bank of America", "Johnson & Johnson").
    std::size_t last = i + 1;
    while (last < n_) {
      if (is_name_word(last) && lx_[last].space_before) {
        ++last;
      } else if (Punct(last, "-") && Adjacent(last) && Adjacent(last + 1) &&
                 is_name_word(last + 1)) {
        last += 2;
      } else if ((Word(last, "of") || Word(last, "de") || Word(last, "van") ||
                  Word(last, "von") || Word(last, "der") || Word(last, "del") ||
                  Word(last, "la") || Punct(last, "&")) &&
                 is_name_word(last + 1)) {
        last += 2;
      } else {
        break;
      }
      if (last - i > 8) break;
    }
    std::size_t first = i;
    // Sentence-initial common words are dropped ("Yesterday John ..." -> "John").
    if (lx_[first].sentence_start &&
        (IsCommonStarter(lx_[first].lower) ||
         (options_.gazetteer != nullptr && last - first >= 2 &&
          options_.gazetteer->IsSentenceStarter(lx_[first].lower)))) {
      ++first;
      while (first < last && !is_name_word(first)) ++first;
      if (first >= last) {
        i = last - 1;
        continue;
      }
    }
    ClassifyEntity(first, last);
    i = last - 1;
  }
}

void Detector::ClassifyEntity(std::size_t first, std::size_t last) {
  const std::string_view head = lx_[first].lower;
  const std::string_view tail = lx_[last - 1].lower;
  const std::string_view prev = first > 0 && lx_[first - 1].kind == LexemeKind::kWord
                                    ? std::string_view(lx_[first - 1].lower)
                                    : std::string_view();
  const std::string_view prev2 = first > 1 && lx_[first - 2].kind == LexemeKind::kWord
                                     ? std::string_view(lx_[first - 2].lower)
                                     : std::string_view();
  // "Dr. Smith": the title is before the name (maybe with a dot).
  std::string_view title = prev;
  if (first > 1 && Punct(first - 1, ".") && lx_[first - 2].kind == LexemeKind::kWord) {
    title = lx_[first - 2].lower;
  }
  const std::string_view next = Lower(last);
  const bool sentence_initial = lx_[first].sentence_start;
  const std::size_t words = last - first;
  // "Hi", "Thai", "English": a lone word the lexicons know as an interjection or a proper
  // adjective names no one, unless a title names it ("Dr. English").
  if (words == 1 && options_.gazetteer != nullptr && !IsTitle(title) &&
      options_.gazetteer->IsNonNameWord(
          NormalizeForIndex(text_.substr(lx_[first].begin, lx_[first].end - lx_[first].begin)))) {
    return;
  }
  if (options_.gazetteer != nullptr) {
    const std::string key =
        NormalizeForIndex(text_.substr(lx_[first].begin, lx_[last - 1].end - lx_[first].begin));
    if (const auto kind = options_.gazetteer->Lookup(key); kind) {
      // The syntax decides between the gazetteer's readings of an ambiguous word: a locative
      // preposition selects a place ("lived in Salvador", "the flat in York"), a possessive
      // kinship noun a person ("his girlfriend Ama").
      const bool kin = IsKinship(prev) && In(prev2, {"my", "our", "his", "her", "their", "your"});
      if (*kind == EntityKind::kPerson && !kin && In(prev, {"in", "near"})) {
        EmitEntity(EntityKind::kPlace, first, last, kStrongContextConfidence);
      } else if (*kind != EntityKind::kPerson && kin) {
        EmitEntity(EntityKind::kPerson, first, last, kStructureConfidence);
      } else {
        EmitEntity(*kind, first, last, kKnownNameConfidence);
      }
      return;
    }
  }
  // A pet's name ("a cat called Mochi", "my dog Rex"): engram has no type for animals, and a
  // pet is not a person.
  if (In(prev, {"called", "named"}) && IsPetNoun(prev2)) return;
  if (IsPetNoun(prev) && words == 1) return;
  if (IsTitle(title)) return EmitEntity(EntityKind::kPerson, first, last, kKnownNameConfidence);
  // Speaker tags at the start of a line ("Melanie: ...") and direct address ("Thanks,
  // Caroline", "Hi Mel").
  const bool line_start = first == 0 || lx_[first].newline_before;
  if (line_start && words <= 2 && Punct(last, ":") && Adjacent(last) &&
      !In(lx_[first].lower,
          {"correction", "note",   "notes",   "update",   "edit",     "docs",      "ps",
           "re",         "fyi",    "summary", "question", "answer",   "todo",      "warning",
           "error",      "tip",    "example", "step",     "reminder", "important", "decision",
           "subject",    "source", "update",  "agenda",   "status",   "result",    "results",
           "output",     "input",  "reason",  "problem",  "solution", "context",   "goal",
           "task",       "title",  "topic",   "date",     "time",     "location",  "address",
           "phone",      "email",  "name",    "hint",     "caution",  "info",      "conclusion",
           "background"})) {
    return EmitEntity(EntityKind::kPerson, first, last, kSpeakerTagConfidence);
  }
  {
    std::size_t before = first;
    if (before > 0 && Punct(before - 1, ",")) --before;
    if (before > 0 && lx_[before - 1].kind == LexemeKind::kWord &&
        In(lx_[before - 1].lower, {"hi", "hey", "hello", "thanks", "thank", "dear", "bye",
                                   "congrats", "congratulations", "sorry", "morning"})) {
      return EmitEntity(EntityKind::kPerson, first, last, kStrongContextConfidence);
    }
  }
  if (words >= 2 && IsOrgSuffix(tail)) {
    return EmitEntity(EntityKind::kOrganization, first, last, kStructureConfidence);
  }
  if (words >= 3 && IsOrgHead(head) && Word(first + 1, "of")) {
    return EmitEntity(EntityKind::kOrganization, first, last, kStructureConfidence);
  }
  if (words >= 2 && IsPlaceSuffix(tail)) {
    return EmitEntity(EntityKind::kPlace, first, last, kStructureConfidence);
  }
  // "Kristin Hannah": a first name the gazetteer knows (no common word) and a surname.
  if (options_.gazetteer != nullptr && (words == 2 || words == 3) &&
      options_.gazetteer->Lookup(head) == EntityKind::kPerson) {
    return EmitEntity(EntityKind::kPerson, first, last, kStructureConfidence);
  }
  if (IsKinship(prev) && (prev2 == "my" || prev2 == "our" || prev2 == "his" || prev2 == "her" ||
                          prev2 == "their" || prev2 == "your")) {
    return EmitEntity(EntityKind::kPerson, first, last, kStructureConfidence);
  }
  if (In(prev, {"at", "for", "by", "joined"}) &&
      In(prev2, {"work", "works", "worked", "working", "job", "intern", "interning", "hired",
                 "employed", "i", "we"})) {
    if (prev != "at" || prev2 != "i") {
      return EmitEntity(EntityKind::kOrganization, first, last, kEmployerCueConfidence);
    }
  }
  if (In(prev, {"at", "for"}) && RoleBefore(first - 1)) {
    return EmitEntity(EntityKind::kOrganization, first, last, kEmployerCueConfidence);
  }
  const bool motion = In(
      prev2, {"moved",      "move",     "moving",    "went",       "go",   "going",     "goes",
              "travelled",  "traveled", "traveling", "travelling", "flew", "fly",       "flying",
              "drove",      "drive",    "driving",   "trip",       "back", "relocated", "came",
              "come",       "comes",    "returned",  "headed",     "road", "vacation",  "holiday",
              "visit",      "arrived",  "am",        "i'm",        "is",   "are",       "was",
              "originally", "born",     "flight",    "train",      "bus",  "live",      "lived",
              "living",     "stay",     "stayed"});
  if (In(prev, {"in", "near", "visit", "visited", "visiting", "around", "across", "towards",
                "toward", "through", "via"}) ||
      (In(prev, {"to", "from", "into"}) && motion)) {
    return EmitEntity(EntityKind::kPlace, first, last,
                      prev == "in" || motion ? kStrongContextConfidence : kWeakContextConfidence);
  }
  if (prev == "at") return EmitEntity(EntityKind::kPlace, first, last, kWeakContextConfidence);
  if (In(prev, {"met", "with", "named", "called", "told", "asked", "thanked", "married", "dating",
                "hugged", "texted", "messaged", "emailed", "invited", "and"})) {
    if (sentence_initial && words == 1) return;
    return EmitEntity(EntityKind::kPerson, first, last,
                      prev == "and" || prev == "with" ? kListedPersonConfidence
                                                      : kStrongContextConfidence);
  }
  if (In(next, {"said", "says", "told", "asked", "thinks", "wants", "went", "is", "was", "and",
                "has", "had", "loves", "likes", "called", "texted"}) ||
      (last < n_ && lx_[last - 1].lower.size() > 2 &&
       lx_[last - 1].lower.substr(lx_[last - 1].lower.size() - 2) == "'s")) {
    if (sentence_initial && words == 1) return;  // "Growth was 12%"
    return EmitEntity(EntityKind::kPerson, first, last, kWeakContextConfidence);
  }
  if (sentence_initial) return;  // "Running is fun": no evidence either way
  EmitEntity(EntityKind::kPerson, first, last, kCapitalisationConfidence);
}

// Whether the clause before the preposition at `at` says someone holds a role there, which
// makes what follows an employer: a work word ("I work in sales at Unilever", "my first job
// was at Bosch") or a copula with an indefinite noun phrase ("I'm a data analyst at Barclays",
// "she is a nurse at St Mary's"). Looks back at most six words, not across punctuation.
bool Detector::RoleBefore(std::size_t at) const {
  std::size_t seen = 0;
  for (std::size_t k = at; k > 0 && seen < 6; --k, ++seen) {
    const Lexeme& word = lx_[k - 1];
    if (word.kind != LexemeKind::kWord) return false;
    if (In(word.lower, {"work", "works", "worked", "working", "job", "employed", "intern",
                        "interning", "internship", "hired", "career", "shift", "shifts"})) {
      return true;
    }
    if (In(word.lower, {"a", "an"}) && k >= 2 && lx_[k - 2].kind == LexemeKind::kWord) {
      const std::string_view verb = lx_[k - 2].lower;
      if (In(verb, {"am", "is", "was", "are", "were", "be", "been"}) || verb.ends_with("'m") ||
          verb.ends_with("'s") || verb.ends_with("'re")) {
        return true;
      }
    }
  }
  return false;
}

void Detector::EmitEntity(EntityKind kind, std::size_t first, std::size_t last, float confidence) {
  if (confidence < options_.min_entity_confidence) return;
  // A title written out in full is part of a person's name ("Professor Hart"); an
  // abbreviation with its dot is not ("Dr. Okafor" -> "Okafor").
  if (kind == EntityKind::kPerson && first > 0 && lx_[first - 1].capitalized &&
      In(lx_[first - 1].lower, {"professor", "doctor", "captain", "sir", "aunt", "uncle"})) {
    --first;
  }
  std::size_t begin = lx_[first].begin;
  std::size_t end = lx_[last - 1].end;
  // Drop a possessive "'s" / "’s".
  const std::string_view tail = lx_[last - 1].lower;
  if (tail.size() > 2 && tail.substr(tail.size() - 2) == "'s") {
    end -= end >= 4 && text_.substr(end - 4, 4) == "\xE2\x80\x99s" ? 4 : 2;
  }
  SignalKind signal_kind = SignalKind::kPerson;
  if (kind == EntityKind::kPlace) signal_kind = SignalKind::kPlace;
  if (kind == EntityKind::kOrganization) signal_kind = SignalKind::kOrganization;
  AddAnchor(signal_kind, begin, end, CleanValue(text_.substr(begin, end - begin)), {},
            confidence);
}

}  // namespace engram::text::signals_detail
