// Rule-based fact extraction (see extractor.h): the fact kinds, AnalyzeFactSource (sentences and
// their acts: questions, hypotheticals, hearsay, requests), ExtractRuleFacts and the Extractor's
// driver and shared helpers (rule_extractor.h): the word stream, object phrases and candidates.
#include "write/extractor.h"

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

#include "write/rule_extractor.h"

namespace engram::write::rule_extractor {
namespace {

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

}  // namespace

std::vector<FactCandidate> Extractor::Run() {
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
    Health();
    Habits();
    Occasions();
    RoleAs();
    PerfectStates();
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

// The object phrase from word k: articles skipped, up to a clause boundary, a stop word, a
// time expression or max words. Returns the byte span, or {0, 0} when empty.
std::pair<std::uint32_t, std::uint32_t> Extractor::ObjectFrom(
    std::size_t k, std::initializer_list<std::string_view> extra_stops) const {
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
    // A naming clause, a reflexive or an afterthought ends the object: "a dog called Rex",
    // "mango myself", "Kumasi originally".
    if (In(word.text, {"called", "named", "myself", "ourselves", "originally"})) break;
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

FactCandidate& Extractor::Add(std::string predicate, std::uint32_t obj_begin, std::uint32_t obj_end,
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
std::pair<std::uint32_t, std::uint32_t> Extractor::ValueSpan(const text::Signal& act) const {
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
std::pair<std::uint32_t, std::uint32_t> Extractor::CutAt(
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
std::vector<std::pair<std::uint32_t, std::uint32_t>> Extractor::SplitList(std::uint32_t begin,
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

}  // namespace engram::write::rule_extractor

namespace engram::write {
using rule_extractor::In;
using rule_extractor::PushExpanded;
using rule_extractor::Word;
using rule_extractor::Extractor;

namespace {
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
                             Timestamp event_time, const TurnText* shared) {
  FactSource source;
  source.text = std::string(text);
  source.speaker = speaker.empty() ? std::string(RoleName(role)) : std::string(speaker);
  source.role = role;
  source.event_time = event_time;
  if (shared != nullptr) {
    source.lexemes = shared->lexemes;
    source.signals = shared->signals;
  } else {
    source.lexemes = text::Lex(source.text);
    source.signals = text::DetectSignals(source.text, event_time);
  }
  source.times = text::FindTimeExpressions(source.text, source.lexemes, event_time);

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

