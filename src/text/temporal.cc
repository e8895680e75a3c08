// Temporal expressions (see temporal.h): the public entry points, and the Parser's driver — the
// sentence tenses, the longest match at each position, parts of the day and day + clock time
// joins. The matchers are in temporal_calendar.cc and temporal_relative.cc (temporal_parser.h).
#include "text/temporal.h"

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "core/civil_date.h"
#include "text/lexer.h"
#include "text/temporal_parser.h"

namespace engram::text {
namespace temporal_detail {
namespace {

// Words that can start a temporal expression; every other word is skipped without running the
// matchers (the parser's hot path). Must stay a superset of the matchers' first words.
const std::unordered_set<std::string_view>& TriggerWords() {
  static const std::unordered_set<std::string_view>* const kWords = [] {
    auto* words = new std::unordered_set<std::string_view>{
        "the",       "last",      "this",   "next",    "coming",      "past",       "previous",
        "early",     "mid",       "late",   "earlier", "later",       "year",       "today",
        "yesterday", "tomorrow",  "tmrw",   "tonight", "day",         "in",         "a",
        "an",        "couple",    "few",    "several", "noon",        "midday",     "midnight",
        "spring",    "summer",    "autumn", "fall",    "winter",      "twenty",     "thirty",
        "thirtieth", "christmas", "boxing", "new",     "valentine's", "valentines", "st",
        "saint",     "halloween"};
    for (const MonthWord& month : kMonthWords) words->insert(month.name);
    for (const std::string_view weekday : kWeekdays) words->insert(weekday);
    for (const std::string_view number : kNumberWords) words->insert(number);
    for (const std::string_view ordinal : kOrdinalWords) {
      if (!ordinal.empty()) words->insert(ordinal);
    }
    return words;
  }();
  return *kWords;
}

// Past evidence: past forms of common irregular verbs, "ago", "yesterday", "used (to)".
bool IsPastWord(std::string_view word) {
  static const std::unordered_set<std::string_view> kPast = {
      "was",       "were",       "did",     "didn't", "had",      "hadn't", "wasn't", "weren't",
      "went",      "got",        "came",    "saw",    "told",     "said",   "made",   "took",
      "met",       "left",       "bought",  "ate",    "drank",    "ran",    "began",  "spent",
      "felt",      "found",      "gave",    "heard",  "kept",     "knew",   "lost",   "paid",
      "sent",      "slept",      "spoke",   "stood",  "thought",  "won",    "wrote",  "ago",
      "yesterday", "used",       "brought", "flew",   "couldn't", "broke",  "caught", "chose",
      "drove",     "fell",       "forgot",  "grew",   "held",     "meant",  "rode",   "sang",
      "sat",       "sold",       "taught",  "threw",  "woke",     "wore",   "became", "built",
      "swam",      "understood", "fought",  "led",    "lent",     "stole",  "sought", "shook"};
  return kPast.count(word) > 0;
}

// Future evidence: the future auxiliaries, the modals that look ahead ("might", "should",
// "can", "need", "want") and words that announce a plan.
bool IsFutureWord(std::string_view word) {
  static const std::unordered_set<std::string_view> kFuture = {
      "will",  "shall", "gonna",  "going", "tomorrow", "next",  "upcoming", "soon", "planning",
      "plan",  "plans", "won't",  "let's", "coming",   "might", "should",   "must", "can",
      "can't", "cant",  "cannot", "need",  "needs",    "want",  "wants",    "hope", "hoping"};
  return kFuture.count(word) > 0;
}

// Present evidence: the present forms of "be", "have" and "do" and their contractions with a
// subject ("it's", "we're", "I've").
bool IsPresentWord(std::string_view word) {
  static const std::unordered_set<std::string_view> kPresent = {
      "am",    "is",      "are",     "isn't",  "aren't", "have",  "has",     "do",     "does",
      "don't", "doesn't", "i'm",     "im",     "you're", "we're", "they're", "it's",   "he's",
      "she's", "that's",  "there's", "what's", "i've",   "we've", "you've",  "they've"};
  return kPresent.count(word) > 0;
}

// Words after which an "-ed" word is an adjective or a participle, not a past verb: "I'm
// tired", "is scheduled", "a detailed plan", "so excited".
bool IsParticipleContext(std::string_view word) {
  static const std::unordered_set<std::string_view> kContext = {
      "am",      "is",     "are",    "be",      "been",   "being", "get",  "gets",   "getting",
      "feel",    "feels",  "seem",   "seems",   "look",   "looks", "so",   "very",   "really",
      "too",     "quite",  "pretty", "more",    "most",   "a",     "an",   "the",    "my",
      "your",    "his",    "her",    "our",     "their",  "i'm",   "im",   "you're", "we're",
      "they're", "he's",   "she's",  "it's",    "that's", "not",   "all",  "fully",  "bit",
      "isn't",   "aren't", "become", "becomes", "stay",   "stays", "keep", "keeps",  "still"};
  return kContext.count(word) > 0;
}

// A regular past verb: a lower-case word of five or more letters in "-ed" (not "-eed", not
// "hundred") outside a participle context.
bool IsRegularPast(const Lexeme& word, std::string_view previous, bool sentence_start) {
  const std::string_view w = word.lower;
  if (w.size() < 5 || w.substr(w.size() - 2) != "ed" || w.substr(w.size() - 3) == "eed") {
    return false;
  }
  if (w == "hundred") return false;
  if (word.capitalized && !sentence_start) return false;  // a name: "Alfred"
  return !IsParticipleContext(previous);
}

}  // namespace

std::vector<TimeMention> Parser::Run() {
  std::vector<Match> matches;
  std::size_t index = 0;
  while (index < n_) {
    std::optional<Match> best = Best(index);
    if (!best) {
      ++index;
      continue;
    }
    ExtendWithDayPart(*best);
    index = best->last;
    matches.push_back(*best);
  }
  matches = Compose(matches);
  std::vector<TimeMention> mentions;
  mentions.reserve(matches.size());
  for (const Match& match : matches) {
    std::int64_t from = match.from;
    std::int64_t to = match.to;
    if (match.time_of_day) {
      from += ref_day_ * kMicrosPerDay;
      to += ref_day_ * kMicrosPerDay;
    }
    if (from < kMinDay * kMicrosPerDay || to > kMaxDay * kMicrosPerDay || from >= to) continue;
    TimeMention mention;
    mention.begin = lx_[match.first].begin;
    mention.end = lx_[match.last - 1].end;
    mention.surface = std::string(text_.substr(mention.begin, mention.end - mention.begin));
    mention.from = Timestamp{from};
    mention.to = Timestamp{to};
    mention.granularity = match.granularity;
    mention.relative = match.relative || match.time_of_day;
    mentions.push_back(std::move(mention));
  }
  return mentions;
}

void Parser::ComputeTenses() {
  tense_.assign(n_, Tense::kUnknown);
  ability_.assign(n_, 0);
  std::size_t start = 0;
  while (start < n_) {
    std::size_t stop = start + 1;
    while (stop < n_ && !lx_[stop].sentence_start) ++stop;
    bool past = false;
    bool future = false;
    bool present = false;
    for (std::size_t i = start; i < stop; ++i) {
      if (lx_[i].kind != LexemeKind::kWord) continue;
      const std::string_view w = lx_[i].lower;
      const std::string_view previous = i > start ? Lower(i - 1) : std::string_view();
      if (IsPastWord(w)) past = true;
      if (IsFutureWord(w)) future = true;
      if (IsPresentWord(w)) present = true;
      if (w.size() > 3 && w.substr(w.size() - 3) == "'ll") future = true;
      if (IsRegularPast(lx_[i], previous, i == start)) past = true;
      // A subject pronoun and a plain verb: "I start on Monday", "they have a gig".
      if ((previous == "i" || previous == "we" || previous == "you" || previous == "they") &&
          w.size() >= 2 && !IsPastWord(w) && w.substr(w.size() - 2) != "ed") {
        present = true;
      }
    }
    // Past evidence decides unless the sentence also announces the future (then neither wins);
    // a present sentence speaks of what is scheduled ("It's on 13 October", "we have a gig on
    // Friday"): it reads like the future. No verb at all leaves the tense unknown.
    Tense tense = Tense::kUnknown;
    if (past && !future) {
      tense = Tense::kPast;
    } else if (future && !past) {
      tense = Tense::kFuture;
    } else if (!past && !future && present) {
      tense = Tense::kFuture;
    }
    bool ability = false;
    for (std::size_t i = start; i < stop; ++i) {
      ability = ability || Word(i, "can") || Word(i, "could") || Word(i, "able") ||
                Word(i, "takes") || Word(i, "take");
    }
    for (std::size_t i = start; i < stop; ++i) {
      tense_[i] = tense;
      ability_[i] = ability ? 1 : 0;
    }
    // "since <time>" names a time already past, whatever the sentence's tense ("I've been ill
    // since Monday", "we've lived here since last March").
    for (std::size_t i = start; i + 1 < stop; ++i) {
      if (!Word(i, "since")) continue;
      for (std::size_t k = i + 1; k < stop && k <= i + 4; ++k) tense_[k] = Tense::kPast;
    }
    start = stop;
  }
}

std::optional<Match> Parser::Best(std::size_t i) const {
  std::optional<Match> best;
  auto consider = [&best](std::optional<Match> candidate) {
    if (candidate && candidate->last > candidate->first &&
        (!best || candidate->last > best->last)) {
      best = candidate;
    }
  };
  const Lexeme& lexeme = lx_[i];
  if (lexeme.kind == LexemeKind::kNumber) {
    consider(NumericDate(i));
    consider(DayMonth(i));
    consider(DayRange(i));
    consider(Year(i));
    consider(Ago(i));
    consider(Clock(i));
  } else if (lexeme.kind == LexemeKind::kWord) {
    if (TriggerWords().count(lexeme.lower) == 0) return best;
    consider(DayMonth(i));
    consider(OrdinalDay(i));
    consider(MonthFirst(i));
    consider(MonthDayRange(i));
    consider(Holiday(i));
    consider(Year(i));
    consider(RelativeDay(i));
    consider(Weekday(i));
    consider(Ago(i));
    consider(InCount(i));
    consider(NamedPeriod(i));
    consider(SeasonExpr(i));
    consider(Clock(i));
  }
  return best;
}

// "yesterday morning", "Friday night", "tomorrow afternoon".
void Parser::ExtendWithDayPart(Match& match) const {
  if (match.granularity != Granularity::kDay || match.time_of_day) return;
  if (match.last >= n_ || !IsWordKind(match.last)) return;
  const auto part = DayPartOf(lx_[match.last].lower);
  if (!part) return;
  // "Friday night" runs to six the next morning, as "last night" does.
  const int end_hour = lx_[match.last].lower == "night" ? 30 : part->end_hour;
  match.to = match.from + end_hour * kMicrosPerHour;
  match.from += part->begin_hour * kMicrosPerHour;
  match.granularity = Granularity::kPartOfDay;
  match.last += 1;
}

// "from Monday to Wednesday", "17 October - 2 November", "between June and August": two days
// (or two months) joined by a range connector become one match spanning both. A word connector
// ("to", "until") needs "from" or "between" before the first end; an end weekday that resolved
// before the start is the one of the week after.
std::optional<Match> Parser::JoinRange(const Match& start, const Match& end) const {
  if (start.time_of_day || end.time_of_day || start.granularity != end.granularity) {
    return std::nullopt;
  }
  if (start.granularity != Granularity::kDay && start.granularity != Granularity::kMonth) {
    return std::nullopt;
  }
  if (end.first != start.last + 1) return std::nullopt;
  if (RangeConnector(start.last, start.first) != end.first) return std::nullopt;
  const std::string_view before = PrevWord(start.first);
  const bool marked = before == "from" || before == "between";
  if (!marked && lx_[start.last].kind != LexemeKind::kPunct && !Word(start.last, "through")) {
    return std::nullopt;
  }
  Match joined = start;
  joined.last = end.last;
  joined.to = end.to;
  joined.relative = start.relative || end.relative;
  if (end.from <= start.from && WeekdayAt(end.last - 1) >= 0) joined.to += 7 * kMicrosPerDay;
  if (joined.to <= start.to) return std::nullopt;
  return joined;
}

// Joins a day with an adjacent clock time: "yesterday at 3pm", "3pm on Friday".
std::vector<Match> Parser::Compose(const std::vector<Match>& matches) const {
  std::vector<Match> out;
  out.reserve(matches.size());
  auto joinable = [this](std::size_t from_lexeme, std::size_t to_lexeme) {
    if (to_lexeme < from_lexeme || to_lexeme - from_lexeme > 2) return false;
    for (std::size_t k = from_lexeme; k < to_lexeme; ++k) {
      const std::string_view w = lx_[k].lower;
      if (w != "," && w != "at" && w != "on" && w != "around" && w != "about" && w != "by") {
        return false;
      }
    }
    return true;
  };
  for (std::size_t k = 0; k < matches.size(); ++k) {
    const Match& current = matches[k];
    if (k + 1 < matches.size()) {
      if (std::optional<Match> range = JoinRange(current, matches[k + 1]); range) {
        out.push_back(*range);
        ++k;
        continue;
      }
    }
    if (k + 1 < matches.size()) {
      const Match& next = matches[k + 1];
      const bool day_then_time =
          current.granularity == Granularity::kDay && !current.time_of_day && next.time_of_day;
      const bool time_then_day =
          current.time_of_day && next.granularity == Granularity::kDay && !next.time_of_day;
      if ((day_then_time || time_then_day) && joinable(current.last, next.first)) {
        const Match& day = day_then_time ? current : next;
        const Match& time = day_then_time ? next : current;
        Match joined = time;
        joined.first = current.first;
        joined.last = next.last;
        joined.from = day.from + time.from;
        joined.to = day.from + time.to;
        joined.relative = day.relative;
        joined.time_of_day = false;
        out.push_back(joined);
        ++k;
        continue;
      }
    }
    out.push_back(current);
  }
  return out;
}

}  // namespace temporal_detail

std::string_view GranularityName(Granularity granularity) {
  switch (granularity) {
    case Granularity::kInstant:
      return "instant";
    case Granularity::kMinute:
      return "minute";
    case Granularity::kHour:
      return "hour";
    case Granularity::kPartOfDay:
      return "part_of_day";
    case Granularity::kDay:
      return "day";
    case Granularity::kWeek:
      return "week";
    case Granularity::kWeekend:
      return "weekend";
    case Granularity::kMonth:
      return "month";
    case Granularity::kSeason:
      return "season";
    case Granularity::kYear:
      return "year";
    case Granularity::kDecade:
      return "decade";
    case Granularity::kVague:
      return "vague";
  }
  return "unknown";
}

std::string FormatInterval(Timestamp from, Timestamp to) {
  using temporal_detail::FloorDiv;
  using temporal_detail::kMicrosPerDay;
  auto format = [](Timestamp time, bool date_only) {
    if (!date_only) return FormatTimestamp(time);
    const core::CivilDate civil = core::CivilFromDays(FloorDiv(time.micros, kMicrosPerDay));
    char buffer[32];
    std::snprintf(buffer, sizeof(buffer), "%04lld-%02d-%02d", static_cast<long long>(civil.year),
                  civil.month, civil.day);
    return std::string(buffer);
  };
  const bool date_only = from.micros % kMicrosPerDay == 0 && to.micros % kMicrosPerDay == 0;
  return format(from, date_only) + "/" + format(to, date_only);
}

std::vector<TimeMention> FindTimeExpressions(std::string_view text,
                                             const std::vector<Lexeme>& lexemes,
                                             Timestamp reference) {
  temporal_detail::Parser parser(text, lexemes, reference);
  return parser.Run();
}

std::vector<TimeMention> FindTimeExpressions(std::string_view text, Timestamp reference) {
  const std::vector<Lexeme> lexemes = Lex(text);
  return FindTimeExpressions(text, lexemes, reference);
}

}  // namespace engram::text
