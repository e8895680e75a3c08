// Query frame construction (see query_frame.h).
#include "read/query_frame.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <set>
#include <span>

#include "text/stopwords.h"
#include "text/temporal.h"

namespace engram::read {
namespace {

// A word of the question: its text as written and normalised (text::NormalizeForIndex: lower
// case, accents stripped, the typographic apostrophe made ASCII), from the text module's
// tokenizer, so the cues see the same words as the index.
struct Word {
  std::string raw;
  std::string lower;
};

// The words of `text` in order: every token of the tokenizer with `options`, but neither stemmed
// nor without stopwords (the cues are mostly stopwords: "how many", "what are").
std::vector<Word> SplitWords(std::string_view text, const text::TokenizerOptions& options) {
  text::TokenizerOptions word_options = options;
  word_options.stem = false;
  word_options.drop_stopwords = false;
  std::vector<Word> words;
  for (text::Token& token : text::Tokenizer(word_options).Tokenize(text)) {
    // `end` is before a dropped possessive: "Caroline's" -> "Caroline".
    words.push_back({std::string(text.substr(token.begin, token.end - token.begin)),
                     std::move(token.word)});
  }
  return words;
}

// True if the words starting at `at` are `phrase` (space-separated, lower case).
bool PhraseAt(const std::vector<Word>& words, std::size_t at, std::string_view phrase) {
  std::size_t index = at;
  std::size_t pos = 0;
  while (pos <= phrase.size()) {
    const std::size_t space = phrase.find(' ', pos);
    const std::string_view part =
        phrase.substr(pos, space == std::string_view::npos ? std::string_view::npos : space - pos);
    if (index >= words.size() || words[index].lower != part) return false;
    ++index;
    if (space == std::string_view::npos) break;
    pos = space + 1;
  }
  return true;
}

// The first of `phrases` found anywhere in the question, or "".
std::string FindPhrase(const std::vector<Word>& words, std::span<const std::string_view> phrases) {
  for (std::size_t at = 0; at < words.size(); ++at) {
    for (const std::string_view phrase : phrases) {
      if (PhraseAt(words, at, phrase)) return std::string(phrase);
    }
  }
  return "";
}

constexpr std::array<std::string_view, 6> kCountCues = {"how many",  "how much", "how often",
                                                        "number of", "count",    "how frequently"};
constexpr std::array<std::string_view, 11> kWhenCues = {
    "when",       "what year",   "what month",   "what day",   "what date",  "what time",
    "which year", "which month", "how long ago", "since when", "what period"};
constexpr std::array<std::string_view, 11> kRecommendationCues = {
    "recommend", "recommendation", "recommendations", "suggest",  "suggestions", "any tips",
    "any ideas", "any advice",     "what should",     "should i", "suggestion"};
constexpr std::array<std::string_view, 7> kSummaryCues = {
    "summarize", "summarise", "summary", "recap", "overview", "tell me about", "been up to"};
constexpr std::array<std::string_view, 7> kOrderingCues = {
    "first", "earlier", "before or after", "in what order", "which came", "sooner", "order"};
constexpr std::array<std::string_view, 9> kCurrentCues = {"currently",  "current", "now",
                                                          "still",      "latest",  "most recent",
                                                          "these days", "anymore", "nowadays"};
constexpr std::array<std::string_view, 7> kInferenceCues = {
    "would", "could", "might", "likely", "probably", "why", "what if"};
constexpr std::array<std::string_view, 14> kAuxiliaries = {"is",   "are",  "was",    "were", "do",
                                                           "does", "did",  "has",    "have", "had",
                                                           "can",  "will", "should", "am"};
// Question forms that ask for several things; a wh-word before a plural noun does too
// (PluralWhPhrase).
constexpr std::array<std::string_view, 8> kListCues = {
    "what are", "what were", "which", "what kinds", "what kind", "what types", "list", "all"};
constexpr std::array<std::string_view, 7> kNegations = {"not",     "never", "no",    "without",
                                                        "nothing", "none",  "nobody"};
// First-person words (normalisation makes a typographic apostrophe ASCII: "I’m" is "i'm").
constexpr std::array<std::string_view, 13> kFirstPerson = {
    "i", "me", "my", "mine", "myself", "i'm", "i've", "i'd", "i'll", "we", "us", "our", "ourselves"};
// Irregular past tenses after "you" that make a question about what the other party said or did.
constexpr std::array<std::string_view, 14> kIrregularPast = {
    "said",    "told",   "gave",   "wrote", "made", "sent", "found",
    "thought", "taught", "showed", "shown", "put",  "got",  "did"};
// Capitalised words that are no names.
constexpr std::array<std::string_view, 40> kNotNames = {
    "i",        "i'm",    "i've",    "i'd",       "what",     "when",      "where",    "who",
    "whom",     "whose",  "why",     "how",       "which",    "january",   "february", "march",
    "april",    "may",    "june",    "july",      "august",   "september", "october",  "november",
    "december", "monday", "tuesday", "wednesday", "thursday", "friday",    "saturday", "sunday",
    "is",       "are",    "was",     "did",       "does",     "do",        "can",      "the"};

bool Contains(std::span<const std::string_view> list, std::string_view word) {
  return std::find(list.begin(), list.end(), word) != list.end();
}

// Endings of singular words that look like plurals ("glass", "bus", "analysis").
constexpr std::array<std::string_view, 3> kSingularEndings = {"ss", "us", "is"};

// A plural noun by its form: a word of four or more letters ending in "s" (not "ss", "us",
// "is"), or one of the irregular plurals below, and no stopword or auxiliary ("does", "has").
constexpr std::array<std::string_view, 7> kIrregularPlurals = {"people", "children", "men",
                                                               "women",  "feet",     "teeth",
                                                               "mice"};
bool LooksPlural(const std::string& word) {
  if (Contains(kIrregularPlurals, word)) return true;
  if (word.size() < 4 || !word.ends_with('s') || text::IsStopword(word)) return false;
  if (!std::all_of(word.begin(), word.end(),
                   [](unsigned char c) { return std::isalpha(c) != 0; })) {
    return false;
  }
  return std::none_of(kSingularEndings.begin(), kSingularEndings.end(),
                      [&](std::string_view ending) { return word.ends_with(ending); });
}

// "what books has Tim read?", "what new hobbies did she pick up?": "what" or "which", up to two
// modifiers, a plural noun and then the question's auxiliary; the wh-phrase names several things,
// so the answer is a list. The auxiliary right after the noun is what tells the plural noun
// ("what activities does") from a verb in the third person ("what makes Caroline happy?").
// Returns the plural noun, or "".
std::string PluralWhPhrase(const std::vector<Word>& words) {
  for (std::size_t wh = 0; wh < words.size(); ++wh) {
    if (words[wh].lower != "what" && words[wh].lower != "which") continue;
    for (std::size_t noun = wh + 1; noun < words.size() && noun <= wh + 3; ++noun) {
      if (noun + 1 < words.size() && Contains(kAuxiliaries, words[noun + 1].lower) &&
          LooksPlural(words[noun].lower)) {
        return words[noun].lower;
      }
      if (Contains(kAuxiliaries, words[noun].lower)) break;
    }
  }
  return "";
}

bool Capitalised(const std::string& raw) {
  return !raw.empty() && std::isupper(static_cast<unsigned char>(raw[0]));
}

constexpr std::array<std::string_view, 5> kNumberCues = {"how many", "how much", "how old",
                                                         "how long", "how far"};

constexpr std::array<std::string_view, 16> kTimeUnits = {
    "seconds", "minutes", "hours", "days", "weeks", "months", "years", "decades",
    "second",  "minute",  "hour",  "day",  "week",  "month",  "year",  "decade"};

AnswerType AnswerTypeOf(const QueryFrame& frame, const std::vector<Word>& words) {
  if (frame.shape == QueryShape::kWhen) return AnswerType::kTime;
  // "how many days / months ...": a span the evidence gives as dates, not as a number.
  for (std::size_t i = 0; i + 2 < words.size(); ++i) {
    if (words[i].lower == "how" && (words[i + 1].lower == "many" || words[i + 1].lower == "much") &&
        Contains(kTimeUnits, words[i + 2].lower)) {
      return AnswerType::kTime;
    }
  }
  if (!FindPhrase(words, kNumberCues).empty()) return AnswerType::kNumber;
  for (const Word& word : words) {
    if (word.lower == "where") return AnswerType::kPlace;
    if (word.lower == "who" || word.lower == "whom") return AnswerType::kPerson;
  }
  return AnswerType::kNone;
}

// "how many / much": the evidence states the amount as a number. Not "how long / old / often":
// their evidence says "for a long time", "years old", "often".
constexpr std::array<std::string_view, 2> kHowWords = {"many", "much"};
// A recommendation question that is a request to the other party ("can you suggest ...")
// rather than one about past recommendations ("what did Tim recommend to John?").
constexpr std::array<std::string_view, 9> kRequestOpenings = {
    "can you",   "could you",  "would you",     "will you", "any tips",
    "any ideas", "any advice", "what should i", "should i"};
constexpr std::array<std::string_view, 5> kElapsedWords = {"passed", "elapsed", "ago", "since",
                                                           "been"};

constexpr std::array<std::string_view, 10> kPastCues = {
    "did", "was", "were", "had", "ago", "passed", "last", "since", "yesterday", "used to"};
constexpr std::array<std::string_view, 10> kFutureCues = {
    "will",     "going to", "planning", "plan to", "plans to",
    "upcoming", "next",     "tomorrow", "gonna",   "scheduled"};

Tense TenseOf(const std::vector<Word>& words) {
  const bool past = !FindPhrase(words, kPastCues).empty();
  const bool future = !FindPhrase(words, kFutureCues).empty();
  if (past == future) return Tense::kUnknown;
  return past ? Tense::kPast : Tense::kFuture;
}

constexpr std::array<std::string_view, 16> kAnchorEnds = {
    "and", "or",  "but",  "when", "where", "while", "did",  "does",
    "do",  "was", "were", "is",   "are",   "has",   "have", "had"};

// QueryFrame::event_anchors (see there).
std::vector<EventAnchor> EventAnchors(const QueryFrame& frame, const std::vector<Word>& words,
                                      const text::Tokenizer& tokenizer) {
  std::vector<EventAnchor> anchors;
  for (std::size_t i = 0; i < words.size() && anchors.size() < kMaxEventAnchors; ++i) {
    const std::string& word = words[i].lower;
    std::size_t begin = i + 1;
    bool before = false;
    if (word == "before" || word == "until") {
      before = true;
    } else if (word == "prior" && i + 1 < words.size() && words[i + 1].lower == "to") {
      before = true;
      begin = i + 2;
    } else if (word != "after" && word != "since") {
      continue;
    }
    std::size_t end = begin;
    while (end < words.size() && end - begin < 4 && !Contains(kAnchorEnds, words[end].lower)) {
      ++end;
    }
    if (end == begin) continue;
    std::string event;
    for (std::size_t j = begin; j < end; ++j) event += (j > begin ? " " : "") + words[j].lower;
    // "before April 10, 2023": a date, already a time constraint (its surface holds the event's
    // first content word).
    std::size_t content = begin;
    while (content < end && text::IsStopword(words[content].lower)) ++content;
    if (content == end) continue;
    const bool dated = std::any_of(
        frame.time_constraints.begin(), frame.time_constraints.end(),
        [&](const TimeConstraint& constraint) {
          const std::vector<Word> surface = SplitWords(constraint.surface, tokenizer.options());
          return std::any_of(surface.begin(), surface.end(),
                             [&](const Word& part) { return part.lower == words[content].lower; });
        });
    if (dated) continue;
    EventAnchor anchor;
    anchor.before = before;
    anchor.terms = tokenizer.Terms(event);
    if (anchor.terms.empty()) continue;
    anchor.surface = (begin == i + 2 ? "prior to" : word) + " " + event;
    anchors.push_back(std::move(anchor));
  }
  return anchors;
}

// The words of `phrase` (space-separated, lower case).
void AddPhraseWords(std::string_view phrase, std::set<std::string>* out) {
  for (const Word& word : SplitWords(phrase, {})) out->insert(word.lower);
}

// QueryFrame::frame_words (see there): `shape_cue` is the cue phrase that decided the shape
// ("" for none), `current_cue` the currentness cue ("" for none).
std::vector<std::string> FrameWords(const QueryFrame& frame, const std::vector<Word>& words,
                                    std::string_view shape_cue, std::string_view current_cue) {
  std::set<std::string> chosen;
  const bool request = !FindPhrase(words, kRequestOpenings).empty();
  if ((frame.shape == QueryShape::kRecommendation && request) ||
      frame.shape == QueryShape::kSummary) {
    AddPhraseWords(shape_cue, &chosen);
  }
  AddPhraseWords(current_cue, &chosen);
  if (!words.empty() && Contains(kAuxiliaries, words.front().lower)) {
    chosen.insert(words.front().lower);
  }
  for (std::size_t i = 0; i + 1 < words.size(); ++i) {
    if (words[i].lower != "how" || !Contains(kHowWords, words[i + 1].lower)) continue;
    chosen.insert(words[i + 1].lower);
    if (i + 2 < words.size() && Contains(kTimeUnits, words[i + 2].lower)) {
      chosen.insert(words[i + 2].lower);
    }
  }
  if (frame.answer_type == AnswerType::kTime) {
    for (const Word& word : words) {
      if (Contains(kElapsedWords, word.lower)) chosen.insert(word.lower);
    }
  }
  std::vector<std::string> found;
  for (const Word& word : words) {
    if (chosen.contains(word.lower) && !text::IsStopword(word.lower) &&
        std::find(found.begin(), found.end(), word.lower) == found.end()) {
      found.push_back(word.lower);
    }
  }
  return found;
}

}  // namespace

std::string_view TenseName(Tense tense) {
  switch (tense) {
    case Tense::kUnknown:
      return "unknown";
    case Tense::kPast:
      return "past";
    case Tense::kFuture:
      return "future";
  }
  return "unknown";
}

std::string_view AnswerTypeName(AnswerType type) {
  switch (type) {
    case AnswerType::kNone:
      return "none";
    case AnswerType::kTime:
      return "time";
    case AnswerType::kNumber:
      return "number";
    case AnswerType::kPlace:
      return "place";
    case AnswerType::kPerson:
      return "person";
  }
  return "none";
}

std::string_view QueryShapeName(QueryShape shape) {
  switch (shape) {
    case QueryShape::kFactoid:
      return "factoid";
    case QueryShape::kList:
      return "list";
    case QueryShape::kCount:
      return "count";
    case QueryShape::kBoolean:
      return "boolean";
    case QueryShape::kWhen:
      return "when";
    case QueryShape::kOrdering:
      return "ordering";
    case QueryShape::kRecommendation:
      return "recommendation";
    case QueryShape::kInference:
      return "inference";
    case QueryShape::kSummary:
      return "summary";
    case QueryShape::kCurrentState:
      return "current_state";
  }
  return "factoid";
}

QueryFrame BuildQueryFrame(const text::Tokenizer& tokenizer, std::string_view query,
                           Timestamp query_time, const FrameOptions& options) {
  QueryFrame frame;
  frame.text = std::string(query);
  frame.query_time = query_time;

  const std::vector<Word> words = SplitWords(query, tokenizer.options());
  const auto decide = [&](QueryShape shape, std::string_view cue) {
    frame.shape = shape;
    frame.shape_reason = "\"" + std::string(cue) + "\"";
  };
  std::string cue;  // the cue that decided the shape (the last one looked for if none did)
  const std::string current_cue = FindPhrase(words, kCurrentCues);
  frame.current = !current_cue.empty();
  if (!(cue = FindPhrase(words, kCountCues)).empty()) {
    decide(QueryShape::kCount, cue);
  } else if (!(cue = FindPhrase(words, kWhenCues)).empty()) {
    decide(QueryShape::kWhen, cue);
  } else if (!(cue = FindPhrase(words, kRecommendationCues)).empty()) {
    decide(QueryShape::kRecommendation, cue);
  } else if (!(cue = FindPhrase(words, kSummaryCues)).empty()) {
    decide(QueryShape::kSummary, cue);
  } else if (!(cue = FindPhrase(words, kOrderingCues)).empty()) {
    decide(QueryShape::kOrdering, cue);
  } else if (frame.current) {
    decide(QueryShape::kCurrentState, current_cue);
  } else if (!(cue = FindPhrase(words, kInferenceCues)).empty()) {
    decide(QueryShape::kInference, cue);
  } else if (!words.empty() && Contains(kAuxiliaries, words.front().lower)) {
    decide(QueryShape::kBoolean, words.front().lower + " ...?");
  } else if (!(cue = FindPhrase(words, kListCues)).empty()) {
    decide(QueryShape::kList, cue);
  } else if (const std::string plural = PluralWhPhrase(words); !plural.empty()) {
    frame.shape = QueryShape::kList;
    frame.shape_reason = "wh-word + plural noun \"" + plural + "\"";
  } else {
    frame.shape = QueryShape::kFactoid;
    frame.shape_reason = "no cue";
  }

  for (const Word& word : words) {
    if (Contains(kNegations, word.lower) || word.lower.ends_with("n't")) {
      frame.negated = true;
      break;
    }
  }

  for (const Word& word : words) {
    if (Contains(kFirstPerson, word.lower)) {
      frame.first_person = true;
      break;
    }
  }
  // "... the restaurant you recommended", "you told me": the question is about what the other
  // party (the assistant) said, so it is not only about the user's own turns.
  for (std::size_t i = 0; i + 1 < words.size(); ++i) {
    if (words[i].lower != "you") continue;
    const std::string& verb = words[i + 1].lower;
    const bool regular_past = verb.size() > 3 && verb.ends_with("ed") && !verb.ends_with("eed");
    if (regular_past || Contains(kIrregularPast, verb)) {
      frame.about_other_party = true;
      break;
    }
  }

  // Names: capitalised words; the first word only when it is no question or auxiliary word.
  std::set<std::string> seen_names;
  for (std::size_t i = 0; i < words.size(); ++i) {
    const Word& word = words[i];
    if (!Capitalised(word.raw) || Contains(kNotNames, word.lower)) continue;
    if (i == 0 && (Contains(kAuxiliaries, word.lower))) continue;
    if (seen_names.insert(word.lower).second) frame.names.push_back(word.raw);
  }

  for (const text::TimeMention& mention : text::FindTimeExpressions(query, query_time)) {
    frame.time_constraints.push_back({mention.surface, mention.from, mention.to,
                                      std::string(text::GranularityName(mention.granularity))});
  }

  frame.event_anchors = EventAnchors(frame, words, tokenizer);
  frame.answer_type = AnswerTypeOf(frame, words);
  frame.tense = TenseOf(words);
  frame.frame_words = FrameWords(frame, words, cue, current_cue);

  const std::vector<text::Token> tokens = tokenizer.Tokenize(query);
  const auto is_frame_word = [&frame](const text::Token& token) {
    return std::find(frame.frame_words.begin(), frame.frame_words.end(), token.word) !=
           frame.frame_words.end();
  };
  const bool drop =
      options.drop_frame_words && !std::all_of(tokens.begin(), tokens.end(), is_frame_word);
  std::set<std::string> seen_terms;
  for (const text::Token& token : tokens) {
    if (drop && is_frame_word(token)) continue;
    frame.terms.push_back(token.term);
    if (seen_terms.insert(token.term).second) frame.keywords.push_back({token.word, token.term});
  }
  return frame;
}

namespace {

// The keyword's WordNet lemma, or "" when WordNet knows none of its forms.
std::string WordNetLemma(const lexicon::Lexicons& lexicons, const std::string& word) {
  using lexicon::WordClass;
  using lexicon::WordNetPos;
  std::vector<WordNetPos> order;
  switch (lexicons.Pos(word).primary) {
    case WordClass::kVerb:
      order.push_back(WordNetPos::kVerb);
      break;
    case WordClass::kAdjective:
      order.push_back(WordNetPos::kAdjective);
      break;
    case WordClass::kAdverb:
      order.push_back(WordNetPos::kAdverb);
      break;
    default:
      break;
  }
  for (WordNetPos pos :
       {WordNetPos::kNoun, WordNetPos::kVerb, WordNetPos::kAdjective, WordNetPos::kAdverb}) {
    if (std::find(order.begin(), order.end(), pos) == order.end()) order.push_back(pos);
  }
  for (WordNetPos pos : order) {
    std::string lemma = lexicons.Lemma(word, pos);
    if (lexicons.HasLemma(lemma, pos)) return lemma;
  }
  return "";
}

bool HasDigit(std::string_view word) {
  return std::any_of(word.begin(), word.end(),
                     [](unsigned char c) { return std::isdigit(c) != 0; });
}

}  // namespace

void AddSynonyms(QueryFrame& frame, const lexicon::Lexicons& lexicons,
                 const text::Tokenizer& tokenizer, std::size_t max_per_keyword) {
  std::set<std::string> keyword_terms;
  for (const Keyword& keyword : frame.keywords) keyword_terms.insert(keyword.term);
  std::set<std::string> names;
  for (const std::string& name : frame.names) {
    for (const text::Token& token : tokenizer.Tokenize(name)) names.insert(token.word);
  }
  for (Keyword& keyword : frame.keywords) {
    keyword.synonyms.clear();
    if (max_per_keyword == 0 || names.contains(keyword.word) || HasDigit(keyword.word)) continue;
    const std::string lemma = WordNetLemma(lexicons, keyword.word);
    if (lemma.empty()) continue;
    for (const std::string& synonym : lexicons.Synonyms(lemma)) {
      if (synonym.find_first_of(" _-") != std::string::npos) continue;  // single words only
      const std::vector<text::Token> tokens = tokenizer.Tokenize(synonym);
      if (tokens.size() != 1) continue;  // a stopword, or not one word
      const std::string& term = tokens.front().term;
      if (keyword_terms.contains(term) ||
          std::find(keyword.synonyms.begin(), keyword.synonyms.end(), term) !=
              keyword.synonyms.end()) {
        continue;
      }
      keyword.synonyms.push_back(term);
      if (keyword.synonyms.size() >= max_per_keyword) break;
    }
  }
}

std::string DescribeFrame(const QueryFrame& frame) {
  std::string out =
      "shape=" + std::string(QueryShapeName(frame.shape)) + " (" + frame.shape_reason + ")";
  if (!frame.names.empty()) {
    out += " names=";
    for (std::size_t i = 0; i < frame.names.size(); ++i) {
      out += (i ? "," : "") + frame.names[i];
    }
  }
  if (!frame.asked_speakers.empty()) {
    out += " speakers=";
    for (std::size_t i = 0; i < frame.asked_speakers.size(); ++i) {
      out += (i ? "," : "") + frame.asked_speakers[i];
    }
  }
  for (const TimeConstraint& constraint : frame.time_constraints) {
    out += " time=\"" + constraint.surface + "\"[" +
           text::FormatInterval(constraint.from, constraint.to) + "]";
  }
  for (const EventAnchor& anchor : frame.event_anchors) out += " event=\"" + anchor.surface + "\"";
  if (frame.current) out += " current";
  if (frame.negated) out += " negated";
  if (frame.first_person) out += " first_person";
  if (frame.about_other_party) out += " about_other_party";
  if (frame.answer_type != AnswerType::kNone) {
    out += " answer=" + std::string(AnswerTypeName(frame.answer_type));
  }
  if (frame.tense != Tense::kUnknown) out += " tense=" + std::string(TenseName(frame.tense));
  if (!frame.frame_words.empty()) {
    out += " frame_words=";
    for (std::size_t i = 0; i < frame.frame_words.size(); ++i) {
      out += (i ? "," : "") + frame.frame_words[i];
    }
  }
  out += " keywords=";
  for (std::size_t i = 0; i < frame.keywords.size(); ++i) {
    out += (i ? "," : "") + frame.keywords[i].term;
    const std::vector<std::string>& synonyms = frame.keywords[i].synonyms;
    if (synonyms.empty()) continue;
    out += "(";
    for (std::size_t j = 0; j < synonyms.size(); ++j) out += (j ? "," : "") + synonyms[j];
    out += ")";
  }
  return out;
}

}  // namespace engram::read
