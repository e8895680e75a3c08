// Rule-based fact extraction (see extractor.h).
#include "write/extractor.h"

#include <algorithm>
#include <cctype>
#include <array>
#include <initializer_list>
#include <tuple>
#include <utility>

#include "text/normalize.h"
#include "text/word_stream.h"
#include "write/predicates.h"

namespace engram::write {
namespace {

bool In(std::string_view word, std::initializer_list<std::string_view> set) {
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

// Appends the words of `lexeme` (text/word_stream.h: contractions expanded) to `out`; only the
// first keeps the lexeme's capitalisation.
void PushExpanded(const text::Lexeme& lexeme, bool first, std::vector<Word>& out) {
  std::vector<std::string_view> parts;
  const std::string_view previous =
      out.empty() || out.back().punct ? std::string_view() : std::string_view(out.back().text);
  text::ExpandContraction(lexeme.lower, previous, parts);
  bool capitalized = lexeme.capitalized;
  for (const std::string_view part : parts) {
    out.push_back(Word{std::string(part), lexeme.begin, lexeme.end, capitalized,
                       lexeme.kind == text::LexemeKind::kPunct, first});
    capitalized = false;
    first = false;
  }
}

bool IsFirstPerson(std::string_view word) { return word == "i" || word == "we"; }

bool IsPronounObject(std::string_view normalized) {
  return In(normalized, {"it", "that", "this", "them", "there", "one", "him", "her", "these",
                         "those", "something", "anything", "everything", "nothing", "you",
                         "me", "us", "here", "so", "too", "a lot", "lot", "stuff", "things"});
}

constexpr std::array<std::string_view, 33> kRelations = {
    "sister",  "brother",  "mother",  "mom",       "mum",         "father",     "dad",
    "son",     "daughter", "husband", "wife",      "partner",     "boyfriend",  "girlfriend",
    "friend",  "cousin",   "aunt",    "uncle",     "grandmother", "grandma",    "grandfather",
    "grandpa", "niece",    "nephew",  "boss",      "colleague",   "coworker",   "roommate",
    "fiance",  "fiancee",  "dog",     "cat",       "neighbor",
};

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

std::string Snake(std::string_view normalized) {
  std::string out;
  for (const char c : normalized) out.push_back(c == ' ' ? '_' : c);
  return out;
}

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

class Extractor {
 public:
  Extractor(const FactSource& source, const RuleExtractorOptions& options)
      : source_(source), options_(options) {}

  std::vector<FactCandidate> Run() {
    for (std::size_t sentence_idx = 0; sentence_idx < source_.sentences.size(); ++sentence_idx) {
      sentence_ = &source_.sentences[sentence_idx];
      words_.clear();
      bool first = true;
      for (const text::Lexeme& lexeme : source_.lexemes) {
        if (lexeme.begin < sentence_->begin || lexeme.begin >= sentence_->end) continue;
        PushExpanded(lexeme, first, words_);
        first = false;
      }
      FromActs();
      Relations();
      ThirdPerson();
      Events();
      Plans();
      TemporaryStates();
      Technical();
    }
    std::stable_sort(out_.begin(), out_.end(), [](const FactCandidate& a, const FactCandidate& b) {
      return a.begin < b.begin;
    });
    // One candidate per (subject, predicate, object, polarity): rules may overlap.
    std::vector<FactCandidate> unique;
    for (FactCandidate& candidate : out_) {
      const bool seen = std::any_of(unique.begin(), unique.end(), [&](const FactCandidate& kept) {
        return kept.predicate == candidate.predicate && kept.negated == candidate.negated &&
               NormalizeFactText(kept.subject) == NormalizeFactText(candidate.subject) &&
               NormalizeFactText(kept.object) == NormalizeFactText(candidate.object);
      });
      if (!seen) unique.push_back(std::move(candidate));
    }
    return unique;
  }

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
      std::size_t k, std::initializer_list<std::string_view> extra_stops = {}) const {
    // A particle before the object: "finished up my writing".
    if (Is(k, "back") && In(At(k + 1), {"up", "out"})) ++k;
    if (In(At(k), {"up", "off", "out"}) && k + 1 < words_.size() && !words_[k + 1].punct &&
        !InTime(words_[k + 1].begin) && !In(At(k + 1), {"for", "with", "to", "and"})) {
      ++k;
    }
    // "your recommendation", "your turtles": the listener's, out of context here; "met him":
    // a pronoun this stage cannot resolve; "made sure", "a week later": not objects.
    while (k < words_.size() && In(words_[k].text, {"a", "an", "the", "some"})) ++k;
    if (In(At(k), {"your", "him", "her", "them", "it", "me", "us", "you", "this", "that", "sure",
                   "week", "day", "month", "year", "time", "while"})) {
      return {0, 0};
    }
    std::size_t stop = k;
    std::size_t count = 0;
    while (stop < words_.size() && count < options_.max_object_words) {
      const Word& word = words_[stop];
      if (word.punct) {
        // Inner hyphens, dots and apostrophes join ("self-employed", "Node.js", "3.11").
        const bool joins = stop > k && stop + 1 < words_.size() && !words_[stop + 1].punct &&
                           words_[stop].begin == words_[stop - 1].end &&
                           words_[stop + 1].begin == words_[stop].end &&
                           In(word.text, {"-", ".", "'", "+", "#", "/"});
        if (!joins) break;
        ++stop;
        continue;
      }
      if (InTime(word.begin)) break;
      if (In(word.text, {"but", "because", "although", "though", "so", "when", "while", "if",
                         "since", "unless", "which", "who", "that", "and", "or", "as", "than",
                         "now", "anymore", "too", "either", "again", "lately", "right",
                         "these", "currently", "nowadays", "yet", "until", "till", "before",
                         "after", "during", "lol", "haha", "though", "i", "we", "you", "he",
                         "she", "they", "it", "is", "was", "are", "were", "will", "would"})) {
        break;
      }
      if (In(word.text, extra_stops)) break;
      ++stop;
      ++count;
    }
    // Trailing prepositions and fillers.
    while (stop > k && (words_[stop - 1].punct ||
                        In(words_[stop - 1].text, {"the", "a", "an", "of", "to", "with", "for",
                                                   "like", "some", "any", "more",
                                                   "in", "at", "on", "by", "from", "my", "very",
                                                   "really", "so", "much", "about", "into"}))) {
      --stop;
    }
    if (stop == k) return {0, 0};
    return {words_[k].begin, words_[stop - 1].end};
  }

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
                     FactKind kind, std::uint32_t begin) {
    FactCandidate candidate;
    candidate.subject = source_.speaker;
    candidate.subject_is_speaker = true;
    candidate.predicate = std::move(predicate);
    candidate.object = Span(obj_begin, obj_end);
    candidate.kind = kind;
    candidate.uncertain = SentenceHedged();
    candidate.begin = std::min(begin, obj_begin);
    candidate.end = obj_end;
    candidate.time = SentenceTime(obj_begin, obj_end);
    candidate.single_valued = IsSingleValued(candidate.predicate);
    out_.push_back(std::move(candidate));
    return out_.back();
  }

  // The byte span of the act's value inside the act's span: the shortest run of lexemes whose
  // normalised text equals the value. {0, 0} if none.
  std::pair<std::uint32_t, std::uint32_t> ValueSpan(const text::Signal& act) const {
    const std::string target = NormalizeFactText(act.value);
    if (target.empty()) return {0, 0};
    std::vector<const text::Lexeme*> inside;
    for (const text::Lexeme& lexeme : source_.lexemes) {
      if (lexeme.begin >= act.begin && lexeme.end <= act.end) inside.push_back(&lexeme);
    }
    for (std::size_t first = 0; first < inside.size(); ++first) {
      if (inside[first]->kind == text::LexemeKind::kPunct) continue;
      for (std::size_t last = first; last < inside.size(); ++last) {
        const std::string candidate =
            NormalizeFactText(Span(inside[first]->begin, inside[last]->end));
        if (candidate == target) {
          // Keep a currency sign written right before the amount ("$2,000").
          std::uint32_t begin = inside[first]->begin;
          if (first > 0 && inside[first - 1]->end == begin &&
              In(inside[first - 1]->lower, {"$", "€", "£", "¥"})) {
            begin = inside[first - 1]->begin;
          }
          return {begin, inside[last]->end};
        }
        if (candidate.size() > target.size()) break;
      }
    }
    return {0, 0};
  }

  // Cuts [begin, end) before the first of `stops` after its first word ("Lisbon with my
  // husband" -> "Lisbon").
  std::pair<std::uint32_t, std::uint32_t> CutAt(
      std::uint32_t begin, std::uint32_t end,
      std::initializer_list<std::string_view> stops) const {
    std::uint32_t last_end = begin;
    bool first = true;
    for (const text::Lexeme& lexeme : source_.lexemes) {
      if (lexeme.begin < begin || lexeme.end > end) continue;
      if (!first && In(lexeme.lower, stops)) break;
      if (!first && lexeme.kind == text::LexemeKind::kPunct &&
          (In(lexeme.lower, {",", ";", ":", "!", "?", "(", ")"}) ||
           (In(lexeme.lower, {"-", "–", "—"}) &&
            (lexeme.end >= source_.text.size() || source_.text[lexeme.end] == ' ')))) {
        break;
      }
      first = false;
      last_end = lexeme.end;
    }
    return {begin, last_end};
  }

  // Splits "peanuts and shellfish" / "sushi, ramen" into parts of at most three words.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> SplitList(std::uint32_t begin,
                                                                 std::uint32_t end) const {
    std::vector<std::pair<std::uint32_t, std::uint32_t>> parts;
    std::uint32_t part_begin = 0;
    std::uint32_t part_end = 0;
    std::size_t words = 0;
    bool open = false;
    for (const text::Lexeme& lexeme : source_.lexemes) {
      if (lexeme.begin < begin || lexeme.end > end) continue;
      const bool separator = lexeme.lower == "and" || lexeme.lower == "," || lexeme.lower == "or";
      if (separator) {
        if (open) parts.emplace_back(part_begin, part_end);
        open = false;
        words = 0;
        continue;
      }
      if (!open) {
        part_begin = lexeme.begin;
        open = true;
      }
      part_end = lexeme.end;
      if (lexeme.kind != text::LexemeKind::kPunct) ++words;
      if (words > 3) return {{begin, end}};
    }
    if (open) parts.emplace_back(part_begin, part_end);
    if (parts.empty()) return {{begin, end}};
    return parts;
  }

  bool ActInSentence(const text::Signal& signal) const {
    return signal.begin >= sentence_->begin && signal.begin < sentence_->end;
  }

  void FromActs() {
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

  void State(const text::Signal& act, std::uint32_t begin, std::uint32_t end, bool past,
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
      const std::string value = NormalizeFactText(act.value);
      std::string predicate = "status";
      if (In(value, {"married", "single", "divorced", "engaged", "widowed", "separated"})) {
        predicate = "relationship_status";
      } else if (In(value, {"retired", "unemployed", "employed", "self employed"})) {
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

  void Replacement(const text::Signal& act) {
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
  void Relations() {
    for (std::size_t k = 0; k + 2 < words_.size(); ++k) {
      if (words_[k].text == "my" && IsRelationWord(words_[k + 1].text)) {
        const std::size_t name_end = NameEnd(k + 2);
        if (name_end == k + 2) continue;
        std::uint32_t name_stop = words_[name_end - 1].end;
        // "my daughter Sara's birthday": the name without the possessive.
        const std::string_view last = std::string_view(source_.text).substr(
            words_[name_end - 1].begin, name_stop - words_[name_end - 1].begin);
        if (last.ends_with("'s") || last.ends_with("\u2019s")) {
          name_stop -= last.ends_with("'s") ? 2 : 4;
        }
        FactCandidate& fact = Add(words_[k + 1].text, words_[k + 2].begin, name_stop,
                                  FactKind::kRelation, words_[k].begin);
        fact.time.reset();
      }
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

  bool IsPersonAt(std::uint32_t begin) const {
    for (const text::Signal& signal : source_.signals) {
      if (signal.kind == text::SignalKind::kPerson && signal.begin == begin) return true;
    }
    return false;
  }

  // "<Name> lives in X", "my sister Anna works at X", "Anna moved to X".
  void ThirdPerson() {
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
      } else if (verb == "is" && In(At(v + 1), {"a", "an"}) && after_relation) {
        predicate = "is_a";
        object = v + 2;
      } else {
        continue;
      }
      const auto [begin, end] =
          ObjectFrom(object, {"with", "for", "near", "since", "in", "at", "on"});
      if (begin == end) continue;
      FactCandidate& fact = Add(predicate, begin, end,
                                predicate == "is_a" ? FactKind::kProfile : FactKind::kState,
                                words_[k].begin);
      fact.subject = Span(words_[k].begin, words_[name_end - 1].end);
      fact.subject_is_speaker = false;
      fact.past = past;
      k = name_end;
    }
  }

  // First-person subject at k followed by adverbs: the index of the verb, or npos.
  // A first-person subject at k that opens a clause ("Yesterday I went", "..., and I went"), not
  // one inside a relative clause ("a post I made"): the index of its verb, or npos.
  std::size_t VerbAfterSubject(std::size_t k) const {
    if (!IsFirstPerson(At(k))) return std::string::npos;
    if (k > 0 && !words_[k - 1].punct && !InTime(words_[k - 1].begin) &&
        !In(words_[k - 1].text,
            {"and", "but", "so", "then", "also", "actually", "recently", "finally", "just",
             "anyway", "well", "oh", "yeah", "yes", "wow", "haha", "lol", "hey", "because",
             "cause", "since", "when", "while", "after", "before", "now", "today", "tonight",
             "yesterday", "tomorrow", "lately", "anyways", "btw", "ok", "okay", "plus", "though",
             "honestly", "basically", "sometimes", "usually", "guess", "think", "hopefully"})) {
      return std::string::npos;
    }
    return SkipAdverbs(k + 1);
  }

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
  void Events() {
    struct EventVerb {
      std::string_view verb;
      std::string_view particle;  // required next word, or empty
      std::string_view predicate;
    };
    static constexpr std::array<EventVerb, 36> kVerbs = {{
        {"went", "to", "went_to"},          {"visited", "", "visited"},
        {"adopted", "", "adopted"},         {"bought", "", "bought"},
        {"started", "", "started"},         {"joined", "", "joined"},
        {"finished", "", "finished"},       {"graduated", "from", "graduated_from"},
        {"attended", "", "attended"},       {"ran", "", "ran"},
        {"met", "", "met"},                 {"traveled", "to", "traveled_to"},
        {"travelled", "to", "traveled_to"}, {"flew", "to", "flew_to"},
        {"married", "", "married"},         {"celebrated", "", "celebrated"},
        {"won", "", "won"},                 {"lost", "", "lost"},
        {"painted", "", "painted"},         {"hosted", "", "hosted"},
        {"volunteered", "at", "volunteered_at"}, {"watched", "", "watched"},
        {"read", "", "read"},               {"saw", "", "saw"},
        {"quit", "", "quit"},               {"left", "", "left"},
        {"completed", "", "completed"},     {"published", "", "published"},
        {"signed", "up", "signed_up"},      {"took", "", "took"},
        {"organized", "", "organized"},     {"launched", "", "launched"},
        {"sold", "", "sold"},               {"received", "", "received"},
        {"gave", "", "gave"},               {"made", "", "made"},
    }};
    for (std::size_t k = 0; k < words_.size(); ++k) {
      const std::size_t v = VerbAfterSubject(k);
      if (v == std::string::npos || v >= words_.size()) continue;
      for (const EventVerb& event : kVerbs) {
        if (words_[v].text != event.verb) continue;
        std::size_t object = v + 1;
        if (!event.particle.empty()) {
          if (!Is(object, event.particle)) break;
          ++object;
          if (event.particle == "up" && Is(object, "for")) ++object;
        }
        const auto [begin, end] = ObjectFrom(object, {"with", "for", "because", "since"});
        if (begin == end) break;
        const std::string what = NormalizeFactText(Span(begin, end));
        if (IsPronounObject(what) ||
            In(what, {"up", "out", "down", "back", "off", "over", "around", "in", "on", "home",
                      "there", "by", "through", "away", "along", "together"})) {
          break;
        }
        Add(std::string(event.predicate), begin, end, FactKind::kEvent, words_[k].begin);
        break;
      }
    }
  }

  // "I'm going to X", "I will X", "I plan to X", "I'm moving to X next month".
  void Plans() {
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
      const auto [begin, end] = ObjectFrom(object, {"because", "since"});
      if (begin == end) continue;
      const std::string plan = NormalizeFactText(Span(begin, end));
      if (IsPronounObject(plan) || plan.find(' ') == std::string::npos) continue;
      FactCandidate& fact = Add("plans_to", begin, end, FactKind::kForesight, words_[k].begin);
      if (fact.time.has_value() && fact.time->to <= source_.event_time) fact.time.reset();
    }
  }

  // "I'm sick this week", "I'm on vacation until Friday", "I'm in Paris this weekend".
  void TemporaryStates() {
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

  // "I'm using Python 3.11", "we use Postgres", "I'm not using Docker", "set the timeout to 30s".
  void Technical() {
    for (std::size_t k = 0; k < words_.size(); ++k) {
      const std::size_t v0 = VerbAfterSubject(k);
      if (v0 == std::string::npos) continue;
      std::size_t v = v0;
      bool negated = false;
      if (In(At(v), {"am", "are"})) ++v;
      if (In(At(v), {"do", "am", "are"}) && Is(v + 1, "not")) {
        negated = true;
        v += 2;
      } else if (Is(v, "not")) {
        negated = true;
        ++v;
      } else if (Is(v, "no") && Is(v + 1, "longer")) {
        negated = true;
        v += 2;
      } else if (Is(v, "stopped") && Is(v + 1, "using")) {
        negated = true;
        v += 1;
      }
      const bool progressive = v > v0 && (In(At(v0), {"am", "are"}));
      if (!(In(At(v), {"use", "using", "run", "running"}) ||
            (progressive && Is(v, "using")))) {
        // "set the X to Y"
        if (!negated && In(At(v), {"set", "changed"}) && v + 1 < words_.size()) {
          std::size_t x = v + 1;
          if (In(At(x), {"the", "my", "our"})) ++x;
          std::size_t to = x;
          while (to < words_.size() && to - x < 3 && !Is(to, "to")) ++to;
          if (!Is(to, "to") || to == x) continue;
          const auto [begin, end] = ObjectFrom(to + 1, {"for", "because"});
          if (begin == end) continue;
          std::string setting = NormalizeFactText(Span(words_[x].begin, words_[to - 1].end));
          Add("setting_" + Snake(setting), begin, end,
                                    FactKind::kTechnical, words_[k].begin);
        }
        continue;
      }
      if (In(At(v), {"use", "run"}) && In(At(v0), {"am", "are"})) continue;
      const auto [begin, end] = ObjectFrom(v + 1, {"for", "to", "with", "on", "at", "in"});
      if (begin == end) continue;
      const std::string object = NormalizeFactText(Span(begin, end));
      if (IsPronounObject(object)) continue;
      // Tools have names: require a capital, a digit or a version signal in the object, so "I
      // use my phone" or "running late" stay out.
      bool named = false;
      for (const Word& word : words_) {
        if (word.begin >= begin && word.end <= end && !word.punct &&
            (word.capitalized || std::isdigit(static_cast<unsigned char>(word.text[0])))) {
          named = true;
        }
      }
      if (!named) continue;
      FactCandidate& fact = Add("uses", begin, end, FactKind::kTechnical, words_[k].begin);
      fact.negated = negated;
      fact.time.reset();
    }
  }

  const FactSource& source_;
  const RuleExtractorOptions& options_;
  const SentenceInfo* sentence_ = nullptr;
  std::vector<Word> words_;
  std::vector<FactCandidate> out_;
};

bool StartsQuestion(std::string_view word) {
  return In(word, {"do", "does", "did", "are", "is", "was", "were", "can", "could", "would",
                   "will", "have", "has", "what", "where", "when", "who", "why", "how", "which",
                   "should", "shall", "am", "whose", "whom"});
}

}  // namespace

std::string_view FactKindName(FactKind kind) {
  switch (kind) {
    case FactKind::kProfile: return "profile";
    case FactKind::kPreference: return "preference";
    case FactKind::kConstraint: return "constraint";
    case FactKind::kState: return "state";
    case FactKind::kEvent: return "event";
    case FactKind::kRelation: return "relation";
    case FactKind::kTechnical: return "technical";
    case FactKind::kForesight: return "foresight";
  }
  return "state";
}

StatusOr<FactKind> ParseFactKind(std::string_view name) {
  for (const FactKind kind :
       {FactKind::kProfile, FactKind::kPreference, FactKind::kConstraint, FactKind::kState,
        FactKind::kEvent, FactKind::kRelation, FactKind::kTechnical, FactKind::kForesight}) {
    if (FactKindName(kind) == name) return kind;
  }
  return Status::InvalidArgument("unknown fact kind \"" + std::string(name.substr(0, 32)) +
                                 "\" (profile, preference, constraint, state, event, relation, "
                                 "technical, foresight)");
}

std::string NormalizeFactText(std::string_view text) {
  const std::string normalized = text::NormalizeForIndex(text);
  std::string out;
  out.reserve(normalized.size());
  bool space = false;
  for (const char c : normalized) {
    const unsigned char byte = static_cast<unsigned char>(c);
    const bool keep = byte >= 0x80 || std::isalnum(byte) || c == '.' || c == '+' || c == '#';
    if (!keep) {
      space = !out.empty();
      continue;
    }
    if (space) out.push_back(' ');
    space = false;
    out.push_back(c);
  }
  // A trailing dot is punctuation, not part of a version ("Berlin." -> "berlin").
  while (!out.empty() && out.back() == '.') out.pop_back();
  return out;
}

std::size_t FactSource::SentenceAt(std::uint32_t at) const {
  for (std::size_t sentence_idx = 0; sentence_idx < sentences.size(); ++sentence_idx) {
    if (at < sentences[sentence_idx].end) return sentence_idx;
  }
  return sentences.empty() ? 0 : sentences.size() - 1;
}

FactSource AnalyzeFactSource(std::string_view text, std::string_view speaker, Role role,
                             Timestamp event_time) {
  FactSource source;
  source.text = std::string(text);
  source.speaker = speaker.empty() ? std::string(RoleName(role)) : std::string(speaker);
  source.role = role;
  source.event_time = event_time;
  source.lexemes = text::Lex(source.text);
  source.times = text::FindTimeExpressions(source.text, source.lexemes, event_time);
  source.signals = text::DetectSignals(source.text, event_time);

  // Sentences from the lexer's sentence starts.
  for (std::size_t lexeme_idx = 0; lexeme_idx < source.lexemes.size(); ++lexeme_idx) {
    const text::Lexeme& lexeme = source.lexemes[lexeme_idx];
    if (lexeme.sentence_start || source.sentences.empty()) {
      source.sentences.push_back(SentenceInfo{lexeme.begin, lexeme.end});
    }
    source.sentences.back().end = lexeme.end;
  }
  for (SentenceInfo& sentence : source.sentences) {
    std::vector<Word> words;
    bool first = true;
    for (const text::Lexeme& lexeme : source.lexemes) {
      if (lexeme.begin < sentence.begin || lexeme.begin >= sentence.end) continue;
      PushExpanded(lexeme, first, words);
      first = false;
    }
    if (words.empty()) continue;
    // Quotes and brackets before the first word do not count.
    std::size_t start = 0;
    while (start < words.size() && words[start].punct) ++start;
    const std::string_view opener =
        start < words.size() ? std::string_view(words[start].text) : std::string_view();
    const std::string_view second =
        start + 1 < words.size() ? std::string_view(words[start + 1].text) : std::string_view();
    const std::string_view third =
        start + 2 < words.size() ? std::string_view(words[start + 2].text) : std::string_view();
    bool has_end_mark = false;
    for (const Word& word : words) {
      if (word.text == "?") sentence.question = true;
      if (word.text == "." || word.text == "!") has_end_mark = true;
    }
    if (!has_end_mark && StartsQuestion(opener) &&
        In(second, {"you", "i", "we", "he", "she", "they", "it", "there", "your", "that"})) {
      sentence.question = true;
    }
    if (In(opener, {"can", "could", "would", "will"}) && second == "you") sentence.request = true;
    if (opener == "please" && !In(second, {"note", "remember"})) sentence.request = true;
    if ((opener == "do" && second == "not") || opener == "never" ||
        (opener == "please" && ((second == "do" && third == "not") || second == "never"))) {
      sentence.negated_imperative = true;
    }
    for (std::size_t word_idx = 0; word_idx < words.size(); ++word_idx) {
      const std::string_view w = words[word_idx].text;
      const std::string_view prev = word_idx > 0 ? std::string_view(words[word_idx - 1].text) : "";
      const std::string_view next =
          word_idx + 1 < words.size() ? std::string_view(words[word_idx + 1].text) : "";
      if (In(w, {"if", "imagine", "suppose", "supposing", "wish", "wished", "hypothetically",
                 "unless", "whether", "pretend", "dream", "dreamt", "dreamed", "fantasize"})) {
        sentence.hypothetical = true;
      }
      if (In(w, {"would", "could", "might"}) && next != "you") sentence.hypothetical = true;
      if (w == "what" && next == "if") sentence.hypothetical = true;
      if (In(w, {"heard", "hear", "says", "said", "apparently", "rumor", "rumour", "rumored",
                 "supposedly", "allegedly", "claims", "claimed", "reportedly"})) {
        sentence.hearsay = true;
      }
      if (w == "according" && next == "to") sentence.hearsay = true;
      if (In(w, {"told", "tells", "tell"}) && In(next, {"me", "us", "everyone", "people"}) &&
          prev != "i") {
        sentence.hearsay = true;
      }
      if (w == "they" && next == "say") sentence.hearsay = true;
      if (In(w, {"maybe", "probably", "perhaps", "possibly", "unsure", "presumably", "likely",
                 "seems", "guess"}) ||
          (In(prev, {"i", "we"}) && In(w, {"think", "believe", "suppose", "reckon"})) ||
          (w == "not" && next == "sure")) {
        sentence.hedged = true;
      }
      if (In(w, {"actually", "correction", "misspoke"}) || (w == "i" && next == "meant") ||
          (w == "scratch" && next == "that")) {
        sentence.correction = true;
      }
    }
  }
  for (const text::Signal& signal : source.signals) {
    if (!signal.uncertain) continue;
    const std::size_t sentence_idx = source.SentenceAt(signal.begin);
    if (sentence_idx < source.sentences.size()) source.sentences[sentence_idx].hedged = true;
  }
  return source;
}

std::vector<FactCandidate> ExtractRuleFacts(const FactSource& source,
                                            const RuleExtractorOptions& options) {
  return Extractor(source, options).Run();
}

}  // namespace engram::write
