// Typed signal detectors (see signals.h for the contract and the value formats). The detectors
// run in a fixed order over one lexeme array (text/temporal.h Lex): byte-level scanners for
// URLs, e-mails, IPs, UUIDs, versions and identifiers claim their lexemes first, then temporal
// expressions, then numbers (money, percent, quantities, plain numbers), then capitalised
// entities; memory acts are matched last, per sentence, over a word stream in which
// contractions are expanded ("don't" -> "do not").
#include "text/signals.h"

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

#include "text/normalize.h"
#include "text/word_stream.h"

namespace engram::text {
namespace {

bool IsDigitByte(char c) { return c >= '0' && c <= '9'; }
bool IsAlphaByte(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsAlnumByte(char c) { return IsDigitByte(c) || IsAlphaByte(c); }
bool IsHexByte(char c) {
  return IsDigitByte(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
bool IsUpperByte(char c) { return c >= 'A' && c <= 'Z'; }

// Word equality with a first-byte fast path: most comparisons in the rule tables fail on the
// first byte or the length, so memcmp is rarely reached.
inline bool SameWord(std::string_view a, std::string_view b) {
  return a.size() == b.size() && (a.empty() || (a[0] == b[0] && a == b));
}

bool In(std::string_view word, std::initializer_list<std::string_view> list) {
  for (const std::string_view candidate : list) {
    if (SameWord(word, candidate)) return true;
  }
  return false;
}

template <std::size_t N>
bool InArray(std::string_view word, const std::array<std::string_view, N>& list) {
  for (const std::string_view candidate : list) {
    if (SameWord(word, candidate)) return true;
  }
  return false;
}

std::string ToLower(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

// Collapses runs of white space to one space and trims; drops trailing punctuation.
std::string CleanValue(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  bool space = false;
  for (const char c : text) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      space = !out.empty();
      continue;
    }
    if (space) out.push_back(' ');
    space = false;
    out.push_back(c);
  }
  while (!out.empty() && In(std::string_view(&out.back(), 1), {".", ",", ";", ":", "!", "?"})) {
    out.pop_back();
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

// ---------------------------------------------------------------------------------------------
// Exact decimals: digits * 10^exponent.

struct Decimal {
  std::string digits = "0";
  int exponent = 0;
  bool negative = false;
};

Decimal DecimalFromInt(std::int64_t value) { return Decimal{std::to_string(value), 0, false}; }

std::string FormatDecimal(Decimal number) {
  std::string digits = number.digits;
  int exponent = number.exponent;
  while (digits.size() > 1 && digits.front() == '0') digits.erase(digits.begin());
  while (exponent < 0 && digits.size() > 1 && digits.back() == '0') {
    digits.pop_back();
    ++exponent;
  }
  if (digits == "0") return "0";
  std::string out;
  if (exponent >= 0) {
    out = digits + std::string(static_cast<std::size_t>(exponent), '0');
  } else {
    const std::size_t fraction = static_cast<std::size_t>(-exponent);
    if (digits.size() <= fraction) digits.insert(0, fraction - digits.size() + 1, '0');
    out =
        digits.substr(0, digits.size() - fraction) + "." + digits.substr(digits.size() - fraction);
  }
  return number.negative ? "-" + out : out;
}

// ---------------------------------------------------------------------------------------------
// Vocabulary.

struct Currency {
  std::string_view word;
  std::string_view code;
};

// Symbols (before or after the amount).
constexpr std::array<Currency, 9> kCurrencySymbols = {{
    {"$", "USD"},
    {"\xE2\x82\xAC", "EUR"},  // €
    {"\xC2\xA3", "GBP"},      // £
    {"\xC2\xA5", "JPY"},      // ¥
    {"\xE2\x82\xB9", "INR"},  // ₹
    {"\xE2\x82\xA9", "KRW"},  // ₩
    {"\xE2\x82\xBD", "RUB"},  // ₽
    {"\xE2\x82\xBF", "BTC"},  // ₿
    {"\xEF\xBC\x84", "USD"},  // fullwidth $
}};

// Words and codes after the amount ("20 dollars", "5 EUR"); codes also before ("USD 500").
constexpr std::array<Currency, 27> kCurrencyWords = {{
    {"dollars", "USD"}, {"dollar", "USD"},   {"bucks", "USD"},  {"usd", "USD"},  {"euros", "EUR"},
    {"euro", "EUR"},    {"eur", "EUR"},      {"gbp", "GBP"},    {"quid", "GBP"}, {"yen", "JPY"},
    {"jpy", "JPY"},     {"yuan", "CNY"},     {"rmb", "CNY"},    {"cny", "CNY"},  {"rupees", "INR"},
    {"rupee", "INR"},   {"inr", "INR"},      {"francs", "CHF"}, {"chf", "CHF"},  {"cad", "CAD"},
    {"aud", "AUD"},     {"pesos", "MXN"},    {"mxn", "MXN"},    {"won", "KRW"},  {"btc", "BTC"},
    {"bitcoin", "BTC"}, {"bitcoins", "BTC"},
}};

constexpr std::array<std::string_view, 9> kCurrencyCodes = {"usd", "eur", "gbp", "jpy", "cad",
                                                            "aud", "chf", "cny", "inr"};

struct UnitWord {
  std::string_view word;
  std::string_view symbol;
};

constexpr std::array<UnitWord, 78> kUnits = {{
    {"km", "km"},
    {"kilometer", "km"},
    {"kilometers", "km"},
    {"kilometre", "km"},
    {"kilometres", "km"},
    {"m", "m"},
    {"meter", "m"},
    {"meters", "m"},
    {"metre", "m"},
    {"metres", "m"},
    {"cm", "cm"},
    {"centimeters", "cm"},
    {"centimetres", "cm"},
    {"mm", "mm"},
    {"millimeters", "mm"},
    {"mi", "mi"},
    {"mile", "mi"},
    {"miles", "mi"},
    {"ft", "ft"},
    {"foot", "ft"},
    {"feet", "ft"},
    {"inch", "in"},
    {"inches", "in"},
    {"yards", "yd"},
    {"kg", "kg"},
    {"kgs", "kg"},
    {"kilo", "kg"},
    {"kilos", "kg"},
    {"kilogram", "kg"},
    {"kilograms", "kg"},
    {"g", "g"},
    {"gram", "g"},
    {"grams", "g"},
    {"mg", "mg"},
    {"lb", "lb"},
    {"lbs", "lb"},
    {"pound", "lb"},
    {"pounds", "lb"},
    {"oz", "oz"},
    {"ounces", "oz"},
    {"tons", "t"},
    {"tonnes", "t"},
    {"l", "L"},
    {"liter", "L"},
    {"liters", "L"},
    {"litre", "L"},
    {"litres", "L"},
    {"ml", "mL"},
    {"gallons", "gal"},
    {"h", "h"},
    {"hr", "h"},
    {"hrs", "h"},
    {"hour", "h"},
    {"hours", "h"},
    {"min", "min"},
    {"mins", "min"},
    {"minute", "min"},
    {"minutes", "min"},
    {"s", "s"},
    {"sec", "s"},
    {"secs", "s"},
    {"second", "s"},
    {"seconds", "s"},
    {"ms", "ms"},
    {"day", "d"},
    {"days", "d"},
    {"week", "wk"},
    {"weeks", "wk"},
    {"month", "mo"},
    {"months", "mo"},
    {"year", "yr"},
    {"years", "yr"},
    {"yr", "yr"},
    {"yrs", "yr"},
    {"mph", "mph"},
    {"kph", "km/h"},
    {"calories", "kcal"},
    {"kcal", "kcal"},
}};

// Units whose abbreviation only counts when glued to the number ("5m", "3s", "2h").
bool NeedsAdjacency(std::string_view word) { return In(word, {"m", "s", "h", "g", "l"}); }

constexpr std::array<std::string_view, 9> kDataUnits = {"gb",  "mb", "kb", "tb", "ghz",
                                                        "mhz", "hz", "kw", "kwh"};

std::string_view DataUnitSymbol(std::string_view word) {
  if (word == "gb") return "GB";
  if (word == "mb") return "MB";
  if (word == "kb") return "KB";
  if (word == "tb") return "TB";
  if (word == "ghz") return "GHz";
  if (word == "mhz") return "MHz";
  if (word == "hz") return "Hz";
  if (word == "kw") return "kW";
  if (word == "kwh") return "kWh";
  return {};
}

constexpr std::array<std::string_view, 20> kSmallNumbers = {
    "zero",     "one",     "two",     "three",     "four",     "five",    "six",
    "seven",    "eight",   "nine",    "ten",       "eleven",   "twelve",  "thirteen",
    "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"};
constexpr std::array<std::string_view, 10> kTens = {
    "", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"};

constexpr std::array<std::string_view, 46> kProducts = {
    "python", "java",   "node",   "nodejs",     "ios",      "android",    "windows", "macos",
    "ubuntu", "debian", "fedora", "centos",     "postgres", "postgresql", "mysql",   "sqlite",
    "gcc",    "clang",  "php",    "ruby",       "perl",     "rust",       "react",   "angular",
    "vue",    "django", "rails",  "kubernetes", "docker",   "chrome",     "firefox", "safari",
    "excel",  "iphone", "ipad",   "qt",         "cuda",     "tensorflow", "pytorch", "numpy",
    "pandas", "linux",  "kernel", "openssl",    "llvm",     "cmake"};

constexpr std::array<std::string_view, 27> kTlds = {
    "com", "org", "net", "io", "dev", "ai", "app", "edu", "gov", "co", "uk", "de",   "fr", "es",
    "it",  "nl",  "eu",  "us", "ca",  "au", "jp",  "ru",  "ch",  "me", "tv", "info", "xyz"};

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

// ---------------------------------------------------------------------------------------------
// Memory-act word stream.

struct ActWord {
  std::string_view text;    // lower case, contractions expanded; views the lexeme or a literal
  std::uint32_t begin = 0;  // byte span of the lexeme it came from
  std::uint32_t end = 0;
  bool clause_start = false;  // first word after , ; : ( — or at sentence start
};

struct Sentence {
  std::uint32_t begin = 0;  // byte span, terminator included
  std::uint32_t end = 0;
  std::vector<ActWord> words;
  bool question_mark = false;
  bool hedged = false;
};

// The words w[from, to) joined by single spaces.
std::string JoinWords(const std::vector<ActWord>& w, std::size_t from, std::size_t to) {
  std::string out;
  for (std::size_t k = from; k < to && k < w.size(); ++k) {
    if (k > from) out.push_back(' ');
    out.append(w[k].text);
  }
  return out;
}

bool IsSubject(std::string_view word) { return word == "i" || word == "we"; }

bool IsPronounValue(std::string_view value) {
  return In(value, {"it", "that", "this", "them", "those", "these", "him", "her", "you", "one",
                    "so", "too", "either", "", "much", "a lot", "it a lot"});
}

// How far (in words) a cue looks for its partner ("no longer X ... now Y"); keeps every rule
// bounded so that detection stays linear in the text.
constexpr std::size_t kMaxCueDistance = 16;

class Detector {
 public:
  Detector(std::string_view text, Timestamp reference, const SignalOptions& options)
      : text_(text.substr(0, std::min<std::size_t>(text.size(), 0xFFFFFFFFu))),
        reference_(reference),
        options_(options),
        lx_(Lex(text_)),
        n_(lx_.size()),
        claimed_(lx_.size(), 0),
        opaque_(lx_.size(), 0) {}

  std::vector<Signal> Run() {
    DetectSchemeUrls();
    DetectEmails();
    DetectBareDomains();
    DetectIpAddresses();
    DetectUuids();
    DetectVersions();
    DetectIdentifiers();
    opaque_ = claimed_;
    DetectTimes();
    DetectNumbers();
    BuildSentences();
    if (options_.detect_entities) DetectEntities();
    DetectQuotes();
    if (options_.detect_memory_acts) DetectActs();
    ApplyHedges();
    std::stable_sort(signals_.begin(), signals_.end(), [](const Signal& a, const Signal& b) {
      if (a.begin != b.begin) return a.begin < b.begin;
      if (a.end != b.end) return a.end < b.end;
      return static_cast<int>(a.kind) < static_cast<int>(b.kind);
    });
    return std::move(signals_);
  }

 private:
  // ----- lexeme access
  bool Word(std::size_t i, std::string_view word) const {
    return i < n_ && lx_[i].kind == LexemeKind::kWord && SameWord(lx_[i].lower, word);
  }
  bool Punct(std::size_t i, std::string_view punct) const {
    return i < n_ && lx_[i].kind == LexemeKind::kPunct && SameWord(lx_[i].lower, punct);
  }
  bool Adjacent(std::size_t i) const { return i < n_ && !lx_[i].space_before; }
  bool IsKind(std::size_t i, LexemeKind kind) const { return i < n_ && lx_[i].kind == kind; }
  char ByteAt(std::size_t pos) const { return pos < text_.size() ? text_[pos] : '\0'; }

  // Index of the first lexeme whose begin is >= byte.
  std::size_t LexemeAt(std::size_t byte) const {
    const auto it = std::lower_bound(
        lx_.begin(), lx_.end(), byte,
        [](const Lexeme& lexeme, std::size_t value) { return lexeme.begin < value; });
    return static_cast<std::size_t>(it - lx_.begin());
  }

  bool RangeFree(std::size_t begin, std::size_t end) const {
    for (std::size_t i = LexemeAt(begin); i < n_ && lx_[i].begin < end; ++i) {
      if (claimed_[i]) return false;
    }
    // A lexeme that starts before `begin` but reaches into the range.
    const std::size_t first = LexemeAt(begin);
    if (first > 0 && lx_[first - 1].end > begin && claimed_[first - 1]) return false;
    return true;
  }

  void Claim(std::size_t begin, std::size_t end) {
    std::size_t i = LexemeAt(begin);
    if (i > 0 && lx_[i - 1].end > begin) --i;
    for (; i < n_ && lx_[i].begin < end; ++i) claimed_[i] = 1;
  }

  Signal& Add(SignalKind kind, std::size_t begin, std::size_t end, std::string value,
              std::string topic = {}, float confidence = 1.0f) {
    Signal signal;
    signal.kind = kind;
    signal.begin = static_cast<std::uint32_t>(begin);
    signal.end = static_cast<std::uint32_t>(end);
    signal.surface = std::string(text_.substr(begin, end - begin));
    signal.value = std::move(value);
    signal.topic = std::move(topic);
    signal.confidence = confidence;
    signals_.push_back(std::move(signal));
    return signals_.back();
  }

  Signal& AddAnchor(SignalKind kind, std::size_t begin, std::size_t end, std::string value,
                    std::string topic = {}, float confidence = 1.0f) {
    Claim(begin, end);
    return Add(kind, begin, end, std::move(value), std::move(topic), confidence);
  }

  // Byte boundary test: the character before `pos` is not part of a word.
  bool WordBoundaryBefore(std::size_t pos) const {
    return pos == 0 || !(IsAlnumByte(text_[pos - 1]) || text_[pos - 1] == '_');
  }
  bool WordBoundaryAfter(std::size_t pos) const {
    return pos >= text_.size() || !(IsAlnumByte(text_[pos]) || text_[pos] == '_');
  }

  // Extends a URL from `pos` to the first white space / bracket-less end, then trims.
  std::size_t UrlEnd(std::size_t pos) const {
    while (pos < text_.size()) {
      const char c = text_[pos];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '<' || c == '>' || c == '"' ||
          c == '`' || c == '{' || c == '}' || c == '|' || c == '\\') {
        break;
      }
      // Curly quotes and no-break space end a URL.
      if (c == '\xE2' && pos + 2 < text_.size() && text_[pos + 1] == '\x80' &&
          (text_[pos + 2] == '\x9C' || text_[pos + 2] == '\x9D' || text_[pos + 2] == '\x98' ||
           text_[pos + 2] == '\x99')) {
        break;
      }
      if (c == '\xC2' && pos + 1 < text_.size() && text_[pos + 1] == '\xA0') break;
      ++pos;
    }
    return pos;
  }
  std::size_t TrimUrl(std::size_t begin, std::size_t end) const {
    while (end > begin) {
      const char c = text_[end - 1];
      if (c == '.' || c == ',' || c == ';' || c == ':' || c == '!' || c == '?' || c == '\'' ||
          c == '*') {
        --end;
        continue;
      }
      if (c == ')' || c == ']') {
        const char open = c == ')' ? '(' : '[';
        const std::string_view body = text_.substr(begin, end - begin);
        if (std::count(body.begin(), body.end(), open) < std::count(body.begin(), body.end(), c)) {
          --end;
          continue;
        }
      }
      break;
    }
    return end;
  }
  std::string UrlValue(std::size_t begin, std::size_t end) const {
    std::string value(text_.substr(begin, end - begin));
    std::size_t host_start = value.find("://");
    host_start = host_start == std::string::npos ? 0 : host_start + 3;
    std::size_t host_end = value.find_first_of("/?#", host_start);
    if (host_end == std::string::npos) host_end = value.size();
    for (std::size_t k = 0; k < host_end; ++k) {
      if (value[k] >= 'A' && value[k] <= 'Z') value[k] = static_cast<char>(value[k] - 'A' + 'a');
    }
    return value;
  }

  // ----- phase A: byte-level anchors
  void DetectSchemeUrls() {
    for (std::size_t i = 0; i < n_; ++i) {
      if (claimed_[i] || lx_[i].kind != LexemeKind::kWord) continue;
      const std::string_view w = lx_[i].lower;
      const std::size_t begin = lx_[i].begin;
      std::size_t body = 0;
      if (In(w, {"http", "https", "ftp", "ftps", "ws", "wss", "sftp"}) &&
          text_.substr(lx_[i].end, 3) == "://") {
        body = lx_[i].end + 3;
      } else if (w == "www" && ByteAt(lx_[i].end) == '.' && IsAlnumByte(ByteAt(lx_[i].end + 1))) {
        body = lx_[i].end + 1;
      } else {
        continue;
      }
      if (!WordBoundaryBefore(begin)) continue;
      const std::size_t end = TrimUrl(begin, UrlEnd(body));
      if (end <= body) continue;
      AddAnchor(SignalKind::kUrl, begin, end, UrlValue(begin, end));
      i = LexemeAt(end) - 1;
    }
  }

  void DetectEmails() {
    for (std::size_t i = 1; i + 1 < n_; ++i) {
      if (claimed_[i] || !Punct(i, "@") || !Adjacent(i) || !Adjacent(i + 1)) continue;
      std::size_t begin = lx_[i].begin;
      auto local_char = [](char c) {
        return IsAlnumByte(c) || c == '.' || c == '_' || c == '%' || c == '+' || c == '-';
      };
      while (begin > 0 && local_char(text_[begin - 1])) --begin;
      while (begin < lx_[i].begin && text_[begin] == '.') ++begin;
      if (begin == lx_[i].begin) continue;
      std::size_t end = lx_[i].end;
      while (end < text_.size() &&
             (IsAlnumByte(text_[end]) || text_[end] == '.' || text_[end] == '-')) {
        ++end;
      }
      while (end > lx_[i].end && (text_[end - 1] == '.' || text_[end - 1] == '-')) --end;
      const std::string_view domain = text_.substr(lx_[i].end, end - lx_[i].end);
      const std::size_t dot = domain.rfind('.');
      if (dot == std::string_view::npos || dot == 0 || domain.size() - dot - 1 < 2) continue;
      bool tld_alpha = true;
      for (const char c : domain.substr(dot + 1)) tld_alpha = tld_alpha && IsAlphaByte(c);
      if (!tld_alpha || !RangeFree(begin, end)) continue;
      AddAnchor(SignalKind::kEmail, begin, end, ToLower(text_.substr(begin, end - begin)));
    }
  }

  void DetectBareDomains() {
    for (std::size_t i = 0; i < n_; ++i) {
      if (claimed_[i] || (lx_[i].kind != LexemeKind::kWord && lx_[i].kind != LexemeKind::kAlnum)) {
        continue;
      }
      const std::size_t begin = lx_[i].begin;
      if (!WordBoundaryBefore(begin) ||
          (begin > 0 &&
           (text_[begin - 1] == '.' || text_[begin - 1] == '@' || text_[begin - 1] == '/'))) {
        continue;
      }
      std::size_t end = begin;
      std::size_t labels = 1;
      std::size_t last_dot = std::string_view::npos;
      while (end < text_.size() && (IsAlnumByte(text_[end]) || text_[end] == '-' ||
                                    (text_[end] == '.' && IsAlnumByte(ByteAt(end + 1))))) {
        if (text_[end] == '.') {
          ++labels;
          last_dot = end;
        }
        ++end;
      }
      if (labels < 2 || last_dot == std::string_view::npos) continue;
      const std::string tld = ToLower(text_.substr(last_dot + 1, end - last_dot - 1));
      if (!InArray(tld, kTlds)) continue;
      if (!WordBoundaryAfter(end)) continue;
      if (ByteAt(end) == '/') end = TrimUrl(begin, UrlEnd(end));
      if (!RangeFree(begin, end)) continue;
      AddAnchor(SignalKind::kUrl, begin, end, UrlValue(begin, end));
      i = LexemeAt(end) - 1;
    }
  }

  // Reads an IPv4 address at pos; returns its end or npos.
  std::size_t ScanIpv4(std::size_t pos) const {
    for (int part = 0; part < 4; ++part) {
      if (part > 0) {
        if (ByteAt(pos) != '.') return std::string_view::npos;
        ++pos;
      }
      std::size_t digits = 0;
      int value = 0;
      while (IsDigitByte(ByteAt(pos)) && digits < 4) {
        value = value * 10 + (text_[pos] - '0');
        ++pos;
        ++digits;
      }
      if (digits == 0 || digits > 3 || value > 255) return std::string_view::npos;
    }
    if (IsDigitByte(ByteAt(pos)) || (ByteAt(pos) == '.' && IsDigitByte(ByteAt(pos + 1)))) {
      return std::string_view::npos;
    }
    return pos;
  }

  // Reads an IPv6 address at pos; returns its end or npos.
  std::size_t ScanIpv6(std::size_t pos) const {
    const std::size_t begin = pos;
    while (pos < text_.size() && (IsHexByte(text_[pos]) || text_[pos] == ':')) ++pos;
    if (pos < text_.size() && (IsAlnumByte(text_[pos]) || text_[pos] == '_')) {
      return std::string_view::npos;
    }
    std::string_view candidate = text_.substr(begin, pos - begin);
    // A trailing single ':' is punctuation ("at fe80::1:").
    if (candidate.size() >= 2 && candidate.back() == ':' &&
        candidate[candidate.size() - 2] != ':') {
      candidate.remove_suffix(1);
    }
    if (candidate.find(":::") != std::string_view::npos) return std::string_view::npos;
    const std::size_t double_colon = candidate.find("::");
    const bool compressed = double_colon != std::string_view::npos;
    if (compressed && candidate.find("::", double_colon + 1) != std::string_view::npos) {
      return std::string_view::npos;
    }
    std::size_t groups = 0;
    std::size_t first_group_size = 0;
    std::size_t colons = 0;
    std::size_t run = 0;
    for (const char c : candidate) {
      if (c == ':') {
        ++colons;
        if (run > 0) {
          if (groups == 0) first_group_size = run;
          ++groups;
        }
        run = 0;
      } else {
        if (++run > 4) return std::string_view::npos;
      }
    }
    if (run > 0) {
      if (groups == 0) first_group_size = run;
      ++groups;
    }
    if (colons < 2) return std::string_view::npos;
    if (!compressed && groups != 8) return std::string_view::npos;
    if (compressed && groups > 7) return std::string_view::npos;
    if (compressed && groups < 3 && double_colon != 0 && first_group_size < 2) {
      return std::string_view::npos;
    }
    if (compressed && groups == 0) return std::string_view::npos;
    return begin + candidate.size();
  }

  void DetectIpAddresses() {
    for (std::size_t i = 0; i < n_; ++i) {
      if (claimed_[i]) continue;
      const std::size_t begin = lx_[i].begin;
      if (begin > 0 &&
          (IsAlnumByte(text_[begin - 1]) || text_[begin - 1] == '.' || text_[begin - 1] == ':')) {
        continue;
      }
      std::size_t end = std::string_view::npos;
      std::string topic;
      if (lx_[i].kind == LexemeKind::kNumber) {
        end = ScanIpv4(begin);
        topic = "v4";
      }
      if (end == std::string_view::npos &&
          (lx_[i].kind != LexemeKind::kPunct || lx_[i].lower == ":")) {
        end = ScanIpv6(begin);
        topic = "v6";
      }
      if (end == std::string_view::npos) continue;
      // CIDR suffix.
      if (ByteAt(end) == '/' && IsDigitByte(ByteAt(end + 1))) {
        std::size_t cidr = end + 1;
        while (IsDigitByte(ByteAt(cidr)) && cidr - end <= 3) ++cidr;
        if (!IsAlnumByte(ByteAt(cidr))) end = cidr;
      }
      if (!RangeFree(begin, end)) continue;
      std::string value(text_.substr(begin, end - begin));
      if (topic == "v6") value = ToLower(value);
      AddAnchor(SignalKind::kIpAddress, begin, end, std::move(value), topic);
      i = LexemeAt(end) - 1;
    }
  }

  void DetectUuids() {
    static constexpr std::array<std::size_t, 5> kGroups = {8, 4, 4, 4, 12};
    for (std::size_t i = 0; i < n_; ++i) {
      if (claimed_[i] || lx_[i].kind == LexemeKind::kPunct) continue;
      const std::size_t begin = lx_[i].begin;
      if (!WordBoundaryBefore(begin)) continue;
      std::size_t pos = begin;
      bool ok = true;
      for (std::size_t group = 0; group < kGroups.size() && ok; ++group) {
        if (group > 0) {
          if (ByteAt(pos) != '-') {
            ok = false;
            break;
          }
          ++pos;
        }
        for (std::size_t k = 0; k < kGroups[group]; ++k, ++pos) {
          if (!IsHexByte(ByteAt(pos))) {
            ok = false;
            break;
          }
        }
      }
      if (!ok || !WordBoundaryAfter(pos) || ByteAt(pos) == '-') continue;
      AddAnchor(SignalKind::kIdentifier, begin, pos, ToLower(text_.substr(begin, pos - begin)),
                "uuid");
      i = LexemeAt(pos) - 1;
    }
  }

  // Reads "1", "1.2", "1.2.3" (+ "-beta.1" pre-release when dotted) at pos; returns the end and
  // the number of dot-separated parts.
  std::pair<std::size_t, int> ScanDotted(std::size_t pos, bool allow_prerelease) const {
    int parts = 0;
    while (IsDigitByte(ByteAt(pos))) {
      ++parts;
      while (IsDigitByte(ByteAt(pos))) ++pos;
      if (ByteAt(pos) == '.' && IsDigitByte(ByteAt(pos + 1))) {
        ++pos;
      } else {
        break;
      }
    }
    if (allow_prerelease && parts >= 2 && ByteAt(pos) == '-' && IsAlphaByte(ByteAt(pos + 1))) {
      std::size_t at = pos + 1;
      while (IsAlnumByte(ByteAt(at)) || (ByteAt(at) == '.' && IsAlnumByte(ByteAt(at + 1)))) ++at;
      const std::string tag = ToLower(text_.substr(pos + 1, at - pos - 1));
      if (tag.rfind("alpha", 0) == 0 || tag.rfind("beta", 0) == 0 || tag.rfind("rc", 0) == 0 ||
          tag.rfind("dev", 0) == 0 || tag.rfind("pre", 0) == 0 || tag.rfind("snapshot", 0) == 0) {
        pos = at;
      }
    }
    return {pos, parts};
  }

  // "d.d.dddd" is a European date, not a version.
  bool LooksLikeDottedDate(std::size_t begin, std::size_t end) const {
    const std::string_view s = text_.substr(begin, end - begin);
    const std::size_t first = s.find('.');
    const std::size_t last = s.rfind('.');
    return first != last && first <= 2 && s.size() - last - 1 == 4 &&
           s.find('.', first + 1) == last;
  }

  void DetectVersions() {
    for (std::size_t i = 0; i < n_; ++i) {
      if (claimed_[i]) continue;
      const Lexeme& lexeme = lx_[i];
      const std::size_t begin = lexeme.begin;
      // v1.2.3 / V2
      if (lexeme.kind == LexemeKind::kAlnum && (text_[begin] == 'v' || text_[begin] == 'V') &&
          IsDigitByte(ByteAt(begin + 1)) && WordBoundaryBefore(begin)) {
        const auto [end, parts] = ScanDotted(begin + 1, true);
        if (parts >= 1 && WordBoundaryAfter(end) && RangeFree(begin, end)) {
          AddAnchor(SignalKind::kVersion, begin, end,
                    std::string(text_.substr(begin + 1, end - begin - 1)));
          i = LexemeAt(end) - 1;
          continue;
        }
      }
      // "version 2", "ver. 3.1", "release 1.4"; known product + number ("Python 3.11").
      if (lexeme.kind == LexemeKind::kWord) {
        const std::string_view w = lexeme.lower;
        const bool keyword = In(w, {"version", "ver", "release", "firmware", "build"});
        const bool product = InArray(w, kProducts);
        std::size_t next = i + 1;
        if (keyword && Punct(next, ".") && Adjacent(next)) ++next;
        if ((keyword || product) && IsKind(next, LexemeKind::kNumber) && (lx_[next].space_before)) {
          const auto [end, parts] = ScanDotted(lx_[next].begin, true);
          const bool ok = (keyword && w != "build") || parts >= 2 || (product && parts >= 1);
          if (ok && WordBoundaryAfter(end) && ByteAt(end) != '%' && RangeFree(begin, end)) {
            std::string number(text_.substr(lx_[next].begin, end - lx_[next].begin));
            std::string value = product ? std::string(w) + " " + number : number;
            AddAnchor(SignalKind::kVersion, begin, end, std::move(value));
            i = LexemeAt(end) - 1;
            continue;
          }
        }
      }
      // Bare dotted versions with three or more parts: "1.2.3", "2.0.1-rc1".
      if (lexeme.kind == LexemeKind::kNumber &&
          !(begin > 0 && (text_[begin - 1] == '.' || IsAlnumByte(text_[begin - 1])))) {
        const auto [end, parts] = ScanDotted(begin, true);
        if (parts >= 3 && WordBoundaryAfter(end) && !LooksLikeDottedDate(begin, end) &&
            RangeFree(begin, end)) {
          AddAnchor(SignalKind::kVersion, begin, end,
                    std::string(text_.substr(begin, end - begin)));
          i = LexemeAt(end) - 1;
        }
      }
    }
  }

  void DetectIdentifiers() {
    for (std::size_t i = 0; i < n_; ++i) {
      if (claimed_[i]) continue;
      const Lexeme& lexeme = lx_[i];
      const std::string_view raw = text_.substr(lexeme.begin, lexeme.end - lexeme.begin);
      // Ticket ids: "ABC-123", "JIRA-42", "A1-7".
      if ((lexeme.kind == LexemeKind::kWord || lexeme.kind == LexemeKind::kAlnum) &&
          raw.size() >= 2 && raw.size() <= 10 && IsUpperByte(raw[0]) && Punct(i + 1, "-") &&
          Adjacent(i + 1) && Adjacent(i + 2) && IsKind(i + 2, LexemeKind::kNumber) &&
          !claimed_[i + 2] && WordBoundaryAfter(lx_[i + 2].end) &&
          std::all_of(raw.begin(), raw.end(),
                      [](char c) { return IsUpperByte(c) || IsDigitByte(c); })) {
        AddAnchor(SignalKind::kIdentifier, lexeme.begin, lx_[i + 2].end,
                  std::string(text_.substr(lexeme.begin, lx_[i + 2].end - lexeme.begin)), "ticket");
        i += 2;
        continue;
      }
      // Phone-like digit groups joined by '-' ("555-0100", "+1-202-555-0143"); date shapes
      // (4-2-2, 2-2-4) are left to the temporal parser.
      if (lexeme.kind == LexemeKind::kNumber ||
          (Punct(i, "+") && IsKind(i + 1, LexemeKind::kNumber) && Adjacent(i + 1))) {
        std::size_t k = lexeme.kind == LexemeKind::kNumber ? i : i + 1;
        std::vector<std::size_t> groups = {lx_[k].lower.size()};
        while (Punct(k + 1, "-") && Adjacent(k + 1) && Adjacent(k + 2) &&
               IsKind(k + 2, LexemeKind::kNumber) && !claimed_[k + 2]) {
          k += 2;
          groups.push_back(lx_[k].lower.size());
        }
        std::size_t digits = 0;
        bool short_group = false;
        for (const std::size_t group : groups) {
          digits += group;
          short_group = short_group || group < 2;
        }
        const bool date_shape =
            groups.size() == 3 && ((groups[0] == 4 && groups[1] <= 2 && groups[2] <= 2) ||
                                   (groups[0] <= 2 && groups[1] <= 2 && groups[2] == 4));
        if (groups.size() >= 2 && digits >= 7 && !short_group && !date_shape &&
            WordBoundaryBefore(lexeme.begin) && WordBoundaryAfter(lx_[k].end) &&
            !(lexeme.begin > 0 && text_[lexeme.begin - 1] == '-')) {
          AddAnchor(SignalKind::kIdentifier, lexeme.begin, lx_[k].end,
                    std::string(text_.substr(lexeme.begin, lx_[k].end - lexeme.begin)), "phone");
          i = k;
          continue;
        }
      }
      // Issue references: "#42".
      if (Punct(i, "#") && Adjacent(i + 1) && IsKind(i + 1, LexemeKind::kNumber) &&
          WordBoundaryBefore(lexeme.begin) && !claimed_[i + 1] &&
          WordBoundaryAfter(lx_[i + 1].end)) {
        AddAnchor(SignalKind::kIdentifier, lexeme.begin, lx_[i + 1].end,
                  std::string(text_.substr(lexeme.begin, lx_[i + 1].end - lexeme.begin)), "issue");
        ++i;
        continue;
      }
      if (lexeme.kind != LexemeKind::kAlnum) continue;
      std::size_t digits = 0;
      std::size_t hex_letters = 0;
      std::size_t letters = 0;
      bool upper = false;
      bool all_hex = true;
      bool underscore = false;
      for (const char c : raw) {
        if (IsDigitByte(c)) ++digits;
        if (IsAlphaByte(c)) ++letters;
        if (IsUpperByte(c)) upper = true;
        if (c == '_') underscore = true;
        if (IsHexByte(c)) {
          if (!IsDigitByte(c)) ++hex_letters;
        } else {
          all_hex = false;
        }
      }
      if (raw.size() > 2 && raw[0] == '0' && (raw[1] == 'x' || raw[1] == 'X')) {
        bool hex_tail = raw.size() > 2;
        for (const char c : raw.substr(2)) hex_tail = hex_tail && IsHexByte(c);
        if (hex_tail) {
          AddAnchor(SignalKind::kIdentifier, lexeme.begin, lexeme.end, ToLower(raw), "hex");
          continue;
        }
      }
      if (all_hex && raw.size() >= 7 && raw.size() <= 64 && digits > 0 && hex_letters > 0) {
        AddAnchor(SignalKind::kIdentifier, lexeme.begin, lexeme.end, ToLower(raw), "hash");
        continue;
      }
      if (raw.size() >= 4 &&
          ((digits > 0 && letters > 0 && (upper || digits >= 3)) || (underscore && letters > 0))) {
        AddAnchor(SignalKind::kIdentifier, lexeme.begin, lexeme.end, std::string(raw), "code");
      }
    }
  }

  // ----- phase B: dates and times
  void DetectTimes() {
    for (const TimeMention& mention : FindTimeExpressions(text_, lx_, reference_)) {
      if (!RangeFree(mention.begin, mention.end)) continue;
      const bool clock = mention.granularity == Granularity::kInstant ||
                         mention.granularity == Granularity::kMinute ||
                         mention.granularity == Granularity::kHour ||
                         mention.granularity == Granularity::kPartOfDay;
      AddAnchor(clock ? SignalKind::kTime : SignalKind::kDate, mention.begin, mention.end,
                FormatInterval(mention.from, mention.to),
                std::string(GranularityName(mention.granularity)));
      time_spans_.emplace_back(mention.begin, mention.end);
    }
  }

  // ----- phase C: numbers
  struct Numeral {
    Decimal value;
    std::size_t next = 0;  // lexeme after the number
    bool ordinal = false;
    bool weak = false;  // "one": a number only before a unit or currency
  };

  // Digits with thousands separators and a decimal part: "1,250.50".
  std::optional<Numeral> ParseNumeral(std::size_t i) const {
    if (!IsKind(i, LexemeKind::kNumber) || claimed_[i]) return std::nullopt;
    Numeral numeral;
    std::string digits = lx_[i].lower;
    std::size_t next = i + 1;
    if (digits.size() <= 3) {
      while (Punct(next, ",") && Adjacent(next) && Adjacent(next + 1) &&
             IsKind(next + 1, LexemeKind::kNumber) && lx_[next + 1].lower.size() == 3 &&
             !claimed_[next + 1]) {
        digits += lx_[next + 1].lower;
        next += 2;
      }
    }
    int exponent = 0;
    if (Punct(next, ".") && Adjacent(next) && Adjacent(next + 1) &&
        IsKind(next + 1, LexemeKind::kNumber) && !claimed_[next + 1]) {
      digits += lx_[next + 1].lower;
      exponent = -static_cast<int>(lx_[next + 1].lower.size());
      next += 2;
    }
    if (digits.size() > 30) return std::nullopt;
    numeral.value = Decimal{digits, exponent, false};
    if (Adjacent(next) && IsKind(next, LexemeKind::kWord) &&
        In(lx_[next].lower, {"st", "nd", "rd", "th"})) {
      numeral.ordinal = true;
      ++next;
    }
    numeral.next = next;
    return numeral;
  }

  // Number words: "three", "twenty-five", "a hundred", "two thousand and five", "a dozen".
  std::optional<Numeral> ParseNumberWords(std::size_t i) const {
    std::int64_t total = 0;
    std::int64_t current = 0;
    std::size_t at = i;
    std::size_t words = 0;
    bool last_was_number = false;
    auto small_value = [](std::string_view w) -> int {
      for (std::size_t k = 0; k < kSmallNumbers.size(); ++k) {
        if (w == kSmallNumbers[k]) return static_cast<int>(k);
      }
      return -1;
    };
    auto tens_value = [](std::string_view w) -> int {
      for (std::size_t k = 2; k < kTens.size(); ++k) {
        if (w == kTens[k]) return static_cast<int>(k) * 10;
      }
      return -1;
    };
    if ((Word(at, "a") || Word(at, "an")) &&
        (Word(at + 1, "hundred") || Word(at + 1, "thousand") || Word(at + 1, "million") ||
         Word(at + 1, "billion") || Word(at + 1, "dozen"))) {
      current = 1;
      ++at;
      last_was_number = true;
    }
    while (at < n_ && lx_[at].kind == LexemeKind::kWord && !claimed_[at]) {
      const std::string_view w = lx_[at].lower;
      if (const int small = small_value(w); small >= 0) {
        if (last_was_number && current % 100 != 0 && current >= 10) break;
        current += small;
        last_was_number = true;
      } else if (const int tens = tens_value(w); tens >= 0) {
        if (last_was_number && current % 100 != 0) break;
        current += tens;
        last_was_number = true;
        if (Punct(at + 1, "-") && Adjacent(at + 1) && Adjacent(at + 2) &&
            small_value(Lower(at + 2)) > 0 && small_value(Lower(at + 2)) < 10) {
          current += small_value(Lower(at + 2));
          at += 2;
        }
      } else if (w == "dozen" && last_was_number) {
        current *= 12;
      } else if (w == "hundred" && last_was_number) {
        current *= 100;
      } else if ((w == "thousand" || w == "million" || w == "billion") && last_was_number) {
        const std::int64_t scale = w == "thousand" ? 1000 : (w == "million" ? 1000000 : 1000000000);
        total += current * scale;
        current = 0;
        last_was_number = false;
      } else if (w == "and" && words > 0 && (total > 0 || current >= 100) &&
                 (small_value(Lower(at + 1)) > 0 || tens_value(Lower(at + 1)) > 0)) {
        last_was_number = false;
      } else {
        break;
      }
      ++words;
      ++at;
      if (total > 1'000'000'000'000LL) return std::nullopt;
    }
    if (words == 0) return std::nullopt;
    // Do not end on "and".
    while (at > i && Word(at - 1, "and")) --at;
    Numeral numeral;
    numeral.value = DecimalFromInt(total + current);
    numeral.next = at;
    numeral.weak = words == 1 && (Word(i, "one") || Word(i, "zero"));
    return numeral;
  }

  std::string_view Lower(std::size_t i) const {
    return i < n_ ? std::string_view(lx_[i].lower) : std::string_view();
  }

  // Scale after a number: thousand / million / billion words, glued k / m / bn.
  int ScaleAt(std::size_t& at, bool money_context) const {
    if (at >= n_ || lx_[at].kind != LexemeKind::kWord || claimed_[at]) return 0;
    const std::string_view w = lx_[at].lower;
    int power = 0;
    if (w == "thousand") power = 3;
    if (w == "million") power = 6;
    if (w == "billion") power = 9;
    if (w == "trillion") power = 12;
    if (Adjacent(at)) {
      if (w == "k") power = 3;
      if (w == "bn") power = 9;
      if (money_context && (w == "m" || w == "mn")) power = 6;
      if (money_context && w == "b") power = 9;
    }
    if (power > 0) ++at;
    return power;
  }

  std::optional<std::string_view> CurrencySymbolAt(std::size_t i) const {
    if (!IsKind(i, LexemeKind::kPunct)) return std::nullopt;
    for (const Currency& currency : kCurrencySymbols) {
      if (currency.word == lx_[i].lower) return currency.code;
    }
    return std::nullopt;
  }

  // Currency after an amount at lexeme `at`; advances `at` past it.
  std::optional<std::string_view> CurrencyAfter(std::size_t& at) const {
    if (at >= n_ || claimed_[at]) return std::nullopt;
    if (const auto symbol = CurrencySymbolAt(at); symbol) {
      ++at;
      return symbol;
    }
    if (lx_[at].kind != LexemeKind::kWord) return std::nullopt;
    const std::string_view w = lx_[at].lower;
    // "canadian dollars", "australian dollars", "us dollars".
    if ((w == "canadian" || w == "australian" || w == "us" || w == "american") &&
        (Word(at + 1, "dollars") || Word(at + 1, "dollar"))) {
      at += 2;
      return w == "canadian" ? "CAD" : (w == "australian" ? "AUD" : "USD");
    }
    if (w == "pounds" && Word(at + 1, "sterling")) {
      at += 2;
      return "GBP";
    }
    if (w == "british" && Word(at + 1, "pounds")) {
      at += 2;
      return "GBP";
    }
    for (const Currency& currency : kCurrencyWords) {
      if (currency.word == w) {
        ++at;
        return currency.code;
      }
    }
    return std::nullopt;
  }

  void DetectNumbers() {
    for (std::size_t i = 0; i < n_; ++i) {
      if (claimed_[i]) continue;
      const std::size_t start = i;
      // Currency before the amount: "$1,250", "US$5", "€3.50", "USD 500".
      std::string_view prefix_code;  // empty: none
      std::size_t at = i;
      if (const auto symbol = CurrencySymbolAt(at); symbol) {
        prefix_code = *symbol;
        ++at;
      } else if (IsKind(at, LexemeKind::kWord) && In(lx_[at].lower, {"us", "c", "a", "au", "ca"}) &&
                 Punct(at + 1, "$") && Adjacent(at + 1)) {
        const std::string_view w = lx_[at].lower;
        prefix_code = w == "us" ? "USD" : (w == "c" || w == "ca" ? "CAD" : "AUD");
        at += 2;
      } else if (IsKind(at, LexemeKind::kWord) && lx_[at].capitalized &&
                 InArray(lx_[at].lower, kCurrencyCodes) && IsKind(at + 1, LexemeKind::kNumber)) {
        prefix_code = "USD";
        for (const Currency& currency : kCurrencyWords) {
          if (currency.word == lx_[at].lower) prefix_code = currency.code;
        }
        ++at;
      }
      if (!prefix_code.empty() && !(Adjacent(at) || IsKind(at - 1, LexemeKind::kWord))) {
        prefix_code = {};
        at = i;
      }
      bool negative = false;
      if (prefix_code.empty() && (Punct(at, "-") || Punct(at, "\xE2\x88\x92")) &&
          Adjacent(at + 1) && IsKind(at + 1, LexemeKind::kNumber) &&
          (at == 0 || lx_[at].space_before || lx_[at - 1].kind == LexemeKind::kPunct)) {
        negative = true;
        ++at;
      }
      std::optional<Numeral> numeral = ParseNumeral(at);
      bool from_words = false;
      if (!numeral && !negative) {
        numeral = ParseNumberWords(at);
        from_words = numeral.has_value();
      }
      if (!numeral) {
        i = start;  // a lone symbol or word
        continue;
      }
      numeral->value.negative = negative;
      at = numeral->next;

      std::size_t scale_at = at;
      // Glued "m" / "b" are read as million / billion here and undone just below when no
      // currency is involved ("5m" alone is five metres).
      int power = numeral->ordinal ? 0 : ScaleAt(scale_at, /*money_context=*/true);
      // A glued "m" / "b" after a bare number is a unit, unless a currency follows.
      if (prefix_code.empty() && power > 0 && Adjacent(at) && In(Lower(at), {"m", "mn", "b"})) {
        std::size_t probe = scale_at;
        if (!CurrencyAfter(probe)) {
          scale_at = at;
          power = 0;
        }
      }
      Decimal amount = numeral->value;
      amount.exponent += power;
      at = scale_at;
      const std::size_t number_end = at;
      // Money.
      if (!numeral->ordinal) {
        std::string_view code;
        std::size_t end = at;
        if (!prefix_code.empty()) {
          code = prefix_code;
        } else if (std::size_t probe = at; const auto suffix = CurrencyAfter(probe)) {
          code = *suffix;
          end = probe;
        } else if (Word(at, "cents") || Word(at, "cent")) {
          code = "USD";
          amount.exponent -= 2;
          end = at + 1;
        }
        if (!code.empty()) {
          const std::size_t begin = lx_[start].begin;
          AddAnchor(SignalKind::kMoney, begin, lx_[end - 1].end,
                    FormatDecimal(amount) + " " + std::string(code));
          i = end - 1;
          continue;
        }
      }
      if (numeral->ordinal) {
        if (numeral->weak) continue;
        AddAnchor(SignalKind::kNumber, lx_[start].begin, lx_[number_end - 1].end,
                  FormatDecimal(amount), "ordinal");
        i = number_end - 1;
        continue;
      }
      // Percent.
      if (Punct(at, "%") && !claimed_[at]) {
        AddAnchor(SignalKind::kPercent, lx_[start].begin, lx_[at].end, FormatDecimal(amount) + "%");
        i = at;
        continue;
      }
      if (Word(at, "percent") || Word(at, "pct") || (Word(at, "per") && Word(at + 1, "cent"))) {
        const std::size_t end = Word(at, "per") ? at + 1 : at;
        if (!claimed_[end]) {
          AddAnchor(SignalKind::kPercent, lx_[start].begin, lx_[end].end,
                    FormatDecimal(amount) + "%");
          i = end;
          continue;
        }
      }
      // Quantity.
      if (const auto unit = UnitAfter(at); unit) {
        AddAnchor(SignalKind::kQuantity, lx_[start].begin, lx_[unit->second - 1].end,
                  FormatDecimal(amount) + " " + unit->first);
        i = unit->second - 1;
        continue;
      }
      if (numeral->weak) continue;
      if (from_words && Word(start, "a")) continue;
      // Integers written with leading zeros ("007", "0100") keep them: they are codes.
      std::string value = FormatDecimal(amount);
      if (!from_words && numeral->value.exponent == 0 && numeral->value.digits.size() > 1 &&
          numeral->value.digits[0] == '0' && power == 0 && !negative) {
        value = numeral->value.digits;
      }
      AddAnchor(SignalKind::kNumber, lx_[start].begin, lx_[number_end - 1].end, std::move(value));
      i = number_end - 1;
    }
  }

  // A unit at lexeme `at`: returns {symbol, lexeme after the unit}.
  std::optional<std::pair<std::string, std::size_t>> UnitAfter(std::size_t at) const {
    if (at >= n_ || claimed_[at]) return std::nullopt;
    // Temperatures: "20°C", "20 °F", "20 degrees (celsius)".
    if (Punct(at, "\xC2\xB0")) {
      if (IsKind(at + 1, LexemeKind::kWord) && Adjacent(at + 1) &&
          (Lower(at + 1) == "c" || Lower(at + 1) == "f")) {
        return std::make_pair(std::string("\xC2\xB0") + (Lower(at + 1) == "c" ? "C" : "F"), at + 2);
      }
      return std::make_pair(std::string("\xC2\xB0"), at + 1);
    }
    if (lx_[at].kind != LexemeKind::kWord) return std::nullopt;
    const std::string_view w = lx_[at].lower;
    if (w == "degrees" || w == "degree") {
      if (Word(at + 1, "celsius") || Word(at + 1, "c")) {
        return std::make_pair(std::string("\xC2\xB0") + "C", at + 2);
      }
      if (Word(at + 1, "fahrenheit") || Word(at + 1, "f")) {
        return std::make_pair(std::string("\xC2\xB0") + "F", at + 2);
      }
      return std::make_pair(std::string("\xC2\xB0"), at + 1);
    }
    if (w == "km" && Punct(at + 1, "/") && Adjacent(at + 1) && Word(at + 2, "h") &&
        Adjacent(at + 2)) {
      return std::make_pair(std::string("km/h"), at + 3);
    }
    if (InArray(w, kDataUnits)) {
      return std::make_pair(std::string(DataUnitSymbol(w)), at + 1);
    }
    for (const UnitWord& unit : kUnits) {
      if (unit.word == w) {
        if (NeedsAdjacency(w) && !Adjacent(at)) return std::nullopt;
        return std::make_pair(std::string(unit.symbol), at + 1);
      }
    }
    return std::nullopt;
  }

  // ----- quoted strings (may contain other anchors; they do not claim)
  void DetectQuotes() {
    struct QuotePair {
      std::string_view open;
      std::string_view close;
    };
    static constexpr std::array<QuotePair, 5> kPairs = {{
        {"\"", "\""},
        {"\xE2\x80\x9C", "\xE2\x80\x9D"},  // “ ”
        {"\xE2\x80\x98", "\xE2\x80\x99"},  // ‘ ’
        {"`", "`"},
        {"'", "'"},
    }};
    constexpr std::size_t kMaxQuoteBytes = 300;
    for (std::size_t i = 0; i < n_; ++i) {
      if (lx_[i].kind != LexemeKind::kPunct) continue;
      const QuotePair* pair = nullptr;
      for (const QuotePair& candidate : kPairs) {
        if (lx_[i].lower == candidate.open) pair = &candidate;
      }
      if (pair == nullptr) continue;
      const bool straight = pair->open == pair->close;
      // An opening quote starts a word: not glued to a letter on its left, glued on its right.
      if (i + 1 >= n_ || !Adjacent(i + 1)) continue;
      if (straight && i > 0 && Adjacent(i) && lx_[i - 1].kind != LexemeKind::kPunct) continue;
      std::size_t close = std::string_view::npos;
      for (std::size_t k = i + 1; k < n_ && lx_[k].begin - lx_[i].end <= kMaxQuoteBytes; ++k) {
        if (lx_[k].newline_before) break;
        if (lx_[k].kind == LexemeKind::kPunct && lx_[k].lower == pair->close) {
          // A closing quote ends a word: glued on its left, not glued to a word on its right.
          if (!Adjacent(k)) {
            if (straight) continue;
          }
          if (k + 1 < n_ && Adjacent(k + 1) && lx_[k + 1].kind != LexemeKind::kPunct) continue;
          close = k;
          break;
        }
      }
      if (close == std::string_view::npos || close == i + 1) continue;
      const std::size_t inner_begin = lx_[i].end;
      const std::size_t inner_end = lx_[close].begin;
      Add(SignalKind::kQuotedString, lx_[i].begin, lx_[close].end,
          CleanValue(text_.substr(inner_begin, inner_end - inner_begin)));
      i = close;
    }
  }

  // ----- sentences and the act word stream
  void BuildSentences() {
    Sentence current;
    bool clause_start = true;
    std::vector<std::string_view> expanded;
    auto flush = [&]() {
      if (!current.words.empty() || current.question_mark) sentences_.push_back(current);
      current = Sentence();
      clause_start = true;
    };
    for (std::size_t i = 0; i < n_; ++i) {
      const Lexeme& lexeme = lx_[i];
      if (lexeme.sentence_start && i > 0) flush();
      if (current.words.empty() && !current.question_mark && current.end == 0) {
        current.begin = lexeme.begin;
      }
      current.end = lexeme.end;
      if (lexeme.kind == LexemeKind::kPunct) {
        if (opaque_[i]) continue;  // '?' or '.' inside a URL, '-' inside an id
        const std::string_view p = lexeme.lower;
        // "2,000" / "3.5": a separator glued on both sides does not end a clause.
        if ((p == "," || p == ".") && !lexeme.space_before && i + 1 < n_ &&
            !lx_[i + 1].space_before && lx_[i + 1].kind == LexemeKind::kNumber) {
          continue;
        }
        if (p == "?") current.question_mark = true;
        if (In(p, {",", ";", ":", "(", ")", "\xE2\x80\x94", "\xE2\x80\x93", "!", "?", "."}) ||
            (p == "-" && lexeme.space_before)) {
          clause_start = true;
        }
        continue;
      }
      expanded.clear();
      ExpandContraction(lexeme.lower,
                        current.words.empty() ? std::string_view() : current.words.back().text,
                        expanded);
      for (const std::string_view word : expanded) {
        ActWord act;
        act.text = word;
        act.begin = lexeme.begin;
        act.end = lexeme.end;
        act.clause_start = clause_start;
        clause_start = false;
        current.words.push_back(std::move(act));
      }
    }
    flush();
    for (Sentence& sentence : sentences_) sentence.hedged = IsHedged(sentence.words);
  }

  static bool IsHedged(const std::vector<ActWord>& words) {
    for (std::size_t k = 0; k < words.size(); ++k) {
      const std::string_view w = words[k].text;
      const std::string_view prev = k > 0 ? std::string_view(words[k - 1].text) : "";
      const std::string_view next = k + 1 < words.size() ? std::string_view(words[k + 1].text) : "";
      if (In(w, {"maybe", "probably", "perhaps", "possibly", "might", "unsure", "apparently",
                 "presumably", "likely", "seems", "seem", "guess", "supposedly"})) {
        return true;
      }
      if (IsSubject(prev) && In(w, {"think", "believe", "suppose", "reckon", "assume"})) {
        return true;
      }
      if (w == "not" && next == "sure") return true;
      if ((w == "kind" || w == "sort") && next == "of") return true;
      if (prev == "i" && w == "feel" && next == "like") return true;
      if (w == "could" && next == "be") return true;
    }
    return false;
  }

  // ----- phase D: entities
  // time_spans_ is sorted and non-overlapping (temporal mentions come in text order).
  bool InTimeSpan(std::size_t byte) const {
    const auto it = std::upper_bound(
        time_spans_.begin(), time_spans_.end(), byte,
        [](std::size_t value, const std::pair<std::uint32_t, std::uint32_t>& span) {
          return value < span.first;
        });
    return it != time_spans_.begin() && byte < std::prev(it)->second;
  }

  void DetectEntities() {
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
      if (!is_name_word(i)) {
        // Gazetteer-known acronyms ("NASA", "UK").
        if (options_.gazetteer != nullptr && i < n_ && !claimed_[i] &&
            lx_[i].kind == LexemeKind::kWord && lx_[i].capitalized && !headline[i]) {
          const std::string key =
              NormalizeForIndex(text_.substr(lx_[i].begin, lx_[i].end - lx_[i].begin));
          if (const auto kind = options_.gazetteer->Lookup(key); kind) {
            EmitEntity(*kind, i, i + 1, 0.9f);
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

  void ClassifyEntity(std::size_t first, std::size_t last) {
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
    if (options_.gazetteer != nullptr) {
      const std::string key =
          NormalizeForIndex(text_.substr(lx_[first].begin, lx_[last - 1].end - lx_[first].begin));
      if (const auto kind = options_.gazetteer->Lookup(key); kind) {
        EmitEntity(*kind, first, last, 0.9f);
        return;
      }
    }
    if (IsTitle(title)) return EmitEntity(EntityKind::kPerson, first, last, 0.9f);
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
      return EmitEntity(EntityKind::kPerson, first, last, 0.7f);
    }
    {
      std::size_t before = first;
      if (before > 0 && Punct(before - 1, ",")) --before;
      if (before > 0 && lx_[before - 1].kind == LexemeKind::kWord &&
          In(lx_[before - 1].lower, {"hi", "hey", "hello", "thanks", "thank", "dear", "bye",
                                     "congrats", "congratulations", "sorry", "morning"})) {
        return EmitEntity(EntityKind::kPerson, first, last, 0.6f);
      }
    }
    if (words >= 2 && IsOrgSuffix(tail)) {
      return EmitEntity(EntityKind::kOrganization, first, last, 0.8f);
    }
    if (words >= 3 && IsOrgHead(head) && Word(first + 1, "of")) {
      return EmitEntity(EntityKind::kOrganization, first, last, 0.8f);
    }
    if (words >= 2 && IsPlaceSuffix(tail)) return EmitEntity(EntityKind::kPlace, first, last, 0.8f);
    // "Kristin Hannah": a first name the gazetteer knows (no common word) and a surname.
    if (options_.gazetteer != nullptr && (words == 2 || words == 3) &&
        options_.gazetteer->Lookup(head) == EntityKind::kPerson) {
      return EmitEntity(EntityKind::kPerson, first, last, 0.8f);
    }
    if (IsKinship(prev) && (prev2 == "my" || prev2 == "our" || prev2 == "his" || prev2 == "her" ||
                            prev2 == "their" || prev2 == "your")) {
      return EmitEntity(EntityKind::kPerson, first, last, 0.8f);
    }
    if (In(prev, {"at", "for", "by", "joined"}) &&
        In(prev2, {"work", "works", "worked", "working", "job", "intern", "interning", "hired",
                   "employed", "i", "we"})) {
      if (prev != "at" || prev2 != "i") {
        return EmitEntity(EntityKind::kOrganization, first, last, 0.7f);
      }
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
      return EmitEntity(EntityKind::kPlace, first, last, prev == "in" || motion ? 0.6f : 0.5f);
    }
    if (prev == "at") return EmitEntity(EntityKind::kPlace, first, last, 0.5f);
    if (In(prev, {"met", "with", "named", "called", "told", "asked", "thanked", "married", "dating",
                  "hugged", "texted", "messaged", "emailed", "invited", "and"})) {
      if (sentence_initial && words == 1) return;
      return EmitEntity(EntityKind::kPerson, first, last,
                        prev == "and" || prev == "with" ? 0.4f : 0.6f);
    }
    if (In(next, {"said", "says", "told", "asked", "thinks", "wants", "went", "is", "was", "and",
                  "has", "had", "loves", "likes", "called", "texted"}) ||
        (last < n_ && lx_[last - 1].lower.size() > 2 &&
         lx_[last - 1].lower.substr(lx_[last - 1].lower.size() - 2) == "'s")) {
      if (sentence_initial && words == 1) return;  // "Growth was 12%"
      return EmitEntity(EntityKind::kPerson, first, last, 0.5f);
    }
    if (sentence_initial) return;  // "Running is fun": no evidence either way
    EmitEntity(EntityKind::kPerson, first, last, 0.3f);
  }

  void EmitEntity(EntityKind kind, std::size_t first, std::size_t last, float confidence) {
    if (confidence < options_.min_entity_confidence) return;
    std::size_t begin = lx_[first].begin;
    std::size_t end = lx_[last - 1].end;
    // Drop a possessive "'s" / "’s".
    const std::string_view tail = lx_[last - 1].lower;
    if (tail.size() > 2 && tail.substr(tail.size() - 2) == "'s") {
      end -= text_.substr(end - 4, 4) == "\xE2\x80\x99s" ? 4 : 2;
    }
    SignalKind signal_kind = SignalKind::kPerson;
    if (kind == EntityKind::kPlace) signal_kind = SignalKind::kPlace;
    if (kind == EntityKind::kOrganization) signal_kind = SignalKind::kOrganization;
    AddAnchor(signal_kind, begin, end, CleanValue(text_.substr(begin, end - begin)), {},
              confidence);
  }

  // ----- phase E: memory acts
  struct ActContext {
    const Sentence& sentence;
    const std::vector<ActWord>& w;
    bool Is(std::size_t k, std::string_view word) const {
      return k < w.size() && w[k].text == word;
    }
    std::string_view At(std::size_t k) const {
      return k < w.size() ? std::string_view(w[k].text) : std::string_view();
    }
  };

  // The value phrase starting at word k: up to the clause end, a clause-starting conjunction,
  // a time expression or max_value_words. Leading determiners are dropped. Returns the
  // normalised value and the byte end of the phrase (0 when empty).
  std::pair<std::string, std::uint32_t> ValueFrom(const ActContext& ctx, std::size_t k,
                                                  bool stop_at_time = true) const {
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

  Signal& AddAct(SignalKind kind, std::uint32_t begin, std::uint32_t end, std::string value,
                 std::string topic, Polarity polarity = Polarity::kNone, float confidence = 1.0f) {
    Signal& signal = Add(kind, begin, end, std::move(value), std::move(topic), confidence);
    signal.polarity = polarity;
    return signal;
  }

  // Byte end of an act: its value's end, else the cue's last word.
  static std::uint32_t ActEnd(std::uint32_t value_end, const ActWord& cue_last) {
    return std::max(value_end, cue_last.end);
  }

  void DetectActs() {
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

  // Skips adverbs from k.
  static std::size_t SkipAdverbs(const ActContext& ctx, std::size_t k) {
    while (k < ctx.w.size() && IsAdverb(ctx.w[k].text)) ++k;
    if (ctx.Is(k, "kind") && ctx.Is(k + 1, "of")) k += 2;
    if (ctx.Is(k, "sort") && ctx.Is(k + 1, "of")) k += 2;
    return k;
  }

  // Negation after a subject: "do not", "did not", "does not", "never", "no longer", "am not".
  static std::size_t SkipNegation(const ActContext& ctx, std::size_t k, bool& negated) {
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

  void DetectPreferences(const ActContext& ctx) {
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

  void DetectConstraints(const ActContext& ctx) {
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

  // A state pattern at word k (the verb after the subject): residence, employer, occupation,
  // identity, status, possession. Returns {topic, value start word, last cue word} or nullopt.
  struct StateCue {
    std::string topic;
    std::size_t value_start;
    std::size_t cue_last;
  };
  std::optional<StateCue> StateAt(const ActContext& ctx, std::size_t k, bool& past) const {
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

  void DetectStates(const ActContext& ctx) {
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
             word == "anymore" ? Polarity::kNegative : Polarity::kNone, 0.6f);
      break;
    }
  }

  void DetectCorrections(const ActContext& ctx) {
    const auto& w = ctx.w;
    for (std::size_t s = 0; s < w.size(); ++s) {
      std::size_t cue_last = s;
      float confidence = 1.0f;
      const std::string_view word = w[s].text;
      if (word == "actually") {
        confidence = w[s].clause_start ? 1.0f : 0.7f;
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

  void DetectReplacements(const ActContext& ctx) {
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

  void DetectDecisions(const ActContext& ctx) {
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

  // Sentence-level phrase match: the words of `phrase` at word k.
  static bool PhraseAt(const ActContext& ctx, std::size_t k,
                       std::initializer_list<std::string_view> phrase) {
    for (const std::string_view word : phrase) {
      if (!ctx.Is(k, word)) return false;
      ++k;
    }
    return true;
  }

  void DetectApprovalsAndRejections(const ActContext& ctx) {
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

  void DetectQuery(const ActContext& ctx) {
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

  void DetectAck() {
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

  // Sentences are in text order and disjoint: find each signal's sentence by binary search.
  void ApplyHedges() {
    for (Signal& signal : signals_) {
      const auto it = std::upper_bound(
          sentences_.begin(), sentences_.end(), signal.begin,
          [](std::uint32_t value, const Sentence& sentence) { return value < sentence.begin; });
      if (it == sentences_.begin()) continue;
      const Sentence& sentence = *std::prev(it);
      if (signal.begin < sentence.end) signal.uncertain = sentence.hedged;
    }
  }

  std::string_view text_;
  Timestamp reference_;
  const SignalOptions& options_;
  std::vector<Lexeme> lx_;
  std::size_t n_;
  std::vector<std::uint8_t> claimed_;
  std::vector<std::uint8_t> opaque_;  // inside a URL / e-mail / IP / version / identifier
  std::vector<std::pair<std::uint32_t, std::uint32_t>> time_spans_;
  std::vector<Sentence> sentences_;
  std::vector<Signal> signals_;
};

constexpr std::array<std::string_view, 26> kSignalKindNames = {
    "date",       "time",       "money",        "percent",    "quantity",   "number",
    "version",    "url",        "email",        "ip_address", "identifier", "quoted_string",
    "person",     "place",      "organization", "preference", "constraint", "current_state",
    "past_state", "correction", "replacement",  "decision",   "approval",   "rejection",
    "query_like", "ack_like"};

}  // namespace

std::string_view SignalKindName(SignalKind kind) {
  const auto index = static_cast<std::size_t>(kind);
  return index < kSignalKindNames.size() ? kSignalKindNames[index] : "unknown";
}

StatusOr<SignalKind> ParseSignalKind(std::string_view name) {
  for (std::size_t index = 0; index < kSignalKindNames.size(); ++index) {
    if (kSignalKindNames[index] == name) return static_cast<SignalKind>(index);
  }
  return Status::InvalidArgument("unknown signal kind '" + std::string(name) + "'");
}

bool IsMemoryAct(SignalKind kind) {
  return static_cast<int>(kind) >= static_cast<int>(SignalKind::kPreference);
}

std::string_view PolarityName(Polarity polarity) {
  switch (polarity) {
    case Polarity::kNone:
      return "";
    case Polarity::kPositive:
      return "+";
    case Polarity::kNegative:
      return "-";
  }
  return "";
}

std::vector<Signal> DetectSignals(std::string_view text, Timestamp reference,
                                  const SignalOptions& options) {
  Detector detector(text, reference, options);
  return detector.Run();
}

}  // namespace engram::text
