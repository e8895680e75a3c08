// The Detector's numbers (signal_detector.h, phase C): numerals and number words, money with its
// currency, percentages, quantities with their unit symbol, and plain numbers and ordinals, with
// the currency and unit vocabularies they read.
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

}  // namespace

// Digits with thousands separators and a decimal part: "1,250.50".
std::optional<Detector::Numeral> Detector::ParseNumeral(std::size_t i) const {
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
std::optional<Detector::Numeral> Detector::ParseNumberWords(std::size_t i) const {
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

// Scale after a number: thousand / million / billion words, glued k / m / bn.
int Detector::ScaleAt(std::size_t& at, bool money_context) const {
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

// Currency after an amount at lexeme `at`; advances `at` past it.
std::optional<std::string_view> Detector::CurrencyAfter(std::size_t& at) const {
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

void Detector::DetectNumbers() {
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
std::optional<std::pair<std::string, std::size_t>> Detector::UnitAfter(std::size_t at) const {
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

}  // namespace engram::text::signals_detail
