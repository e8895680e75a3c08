// The lexer (see lexer.h): code points decoded with utf8proc, runs of letters and digits grouped
// into words, numbers and alphanumerics, everything else one punctuation lexeme, then a second
// pass that marks where sentences start.
#include "text/lexer.h"

#include <utf8proc.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace engram::text {
namespace {

struct CodePoint {
  std::int32_t value = -1;  // -1: an invalid byte
  std::size_t length = 1;
};

CodePoint DecodeAt(std::string_view text, std::size_t pos, std::size_t limit) {
  const auto byte = static_cast<unsigned char>(text[pos]);
  if (byte < 0x80) return {byte, 1};
  utf8proc_int32_t code_point = -1;
  const utf8proc_ssize_t length =
      utf8proc_iterate(reinterpret_cast<const utf8proc_uint8_t*>(text.data() + pos),
                       static_cast<utf8proc_ssize_t>(limit - pos), &code_point);
  if (length <= 0) return {-1, 1};
  return {code_point, static_cast<std::size_t>(length)};
}

bool IsAsciiDigit(std::int32_t c) { return c >= '0' && c <= '9'; }
bool IsAsciiAlpha(std::int32_t c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

bool IsSpaceCp(std::int32_t c) {
  if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') return true;
  if (c < 0x80) return false;
  const utf8proc_category_t category = utf8proc_category(c);
  return category == UTF8PROC_CATEGORY_ZS || category == UTF8PROC_CATEGORY_ZL ||
         category == UTF8PROC_CATEGORY_ZP;
}

bool IsLineBreak(std::int32_t c) { return c == '\n' || c == '\r' || c == 0x2028 || c == 0x2029; }

// Letters of any script, combining marks and non-ASCII digits join words.
bool IsLetterCp(std::int32_t c) {
  if (c < 0x80) return IsAsciiAlpha(c);
  switch (utf8proc_category(c)) {
    case UTF8PROC_CATEGORY_LU:
    case UTF8PROC_CATEGORY_LL:
    case UTF8PROC_CATEGORY_LT:
    case UTF8PROC_CATEGORY_LM:
    case UTF8PROC_CATEGORY_LO:
    case UTF8PROC_CATEGORY_MN:
    case UTF8PROC_CATEGORY_MC:
    case UTF8PROC_CATEGORY_ME:
    case UTF8PROC_CATEGORY_ND:
    case UTF8PROC_CATEGORY_NL:
    case UTF8PROC_CATEGORY_NO:
    case UTF8PROC_CATEGORY_CF:
      return true;
    default:
      return false;
  }
}

bool IsUpperCp(std::int32_t c) {
  if (c < 0x80) return c >= 'A' && c <= 'Z';
  const utf8proc_category_t category = utf8proc_category(c);
  return category == UTF8PROC_CATEGORY_LU || category == UTF8PROC_CATEGORY_LT;
}

bool IsApostropheCp(std::int32_t c) { return c == '\'' || c == 0x2019; }

// Suffixes split from a leading digit run: ordinals, clock, magnitudes, units, decades.
bool IsNumberSuffix(std::string_view s) {
  static constexpr std::array<std::string_view, 47> kSuffixes = {
      "st",  "nd", "rd",  "th",  "am",   "pm", "k",  "m",   "b",   "bn",  "mn", "km",
      "kg",  "g",  "mg",  "lb",  "lbs",  "oz", "mi", "ft",  "cm",  "mm",  "ml", "l",
      "h",   "hr", "hrs", "min", "mins", "s",  "ms", "gb",  "mb",  "kb",  "tb", "ghz",
      "mhz", "hz", "kw",  "kwh", "w",    "v",  "px", "mph", "kph", "yrs", "yr"};
  return std::find(kSuffixes.begin(), kSuffixes.end(), s) != kSuffixes.end();
}

std::string LowerAscii(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t pos = 0; pos < text.size(); ++pos) {
    const char c = text[pos];
    if (c >= 'A' && c <= 'Z') {
      out.push_back(static_cast<char>(c - 'A' + 'a'));
    } else if (c == '\xE2' && pos + 2 < text.size() && text[pos + 1] == '\x80' &&
               text[pos + 2] == '\x99') {
      out.push_back('\'');
      pos += 2;
    } else {
      out.push_back(c);
    }
  }
  return out;
}

bool IsTerminator(std::string_view punct) {
  return punct == "." || punct == "!" || punct == "?" || punct == "\xE2\x80\xA6";
}
bool IsClosingPunct(std::string_view punct) {
  return punct == "\"" || punct == "'" || punct == ")" || punct == "]" || punct == "\xE2\x80\x9D" ||
         punct == "\xE2\x80\x99" || punct == "\xC2\xBB";
}

}  // namespace

std::vector<Lexeme> Lex(std::string_view text) {
  const std::size_t limit = std::min<std::size_t>(text.size(), 0xFFFFFFFFu);
  std::vector<Lexeme> lexemes;
  lexemes.reserve(limit / 5 + 4);
  bool space = true;
  bool newline = false;
  std::size_t pos = 0;
  auto push = [&](std::size_t begin, std::size_t end, LexemeKind kind) {
    Lexeme lexeme;
    lexeme.begin = static_cast<std::uint32_t>(begin);
    lexeme.end = static_cast<std::uint32_t>(end);
    lexeme.kind = kind;
    lexeme.space_before = space;
    lexeme.newline_before = newline;
    lexeme.lower = LowerAscii(text.substr(begin, end - begin));
    const CodePoint first = DecodeAt(text, begin, limit);
    lexeme.capitalized = first.value >= 0 && IsUpperCp(first.value);
    lexemes.push_back(std::move(lexeme));
    space = false;
    newline = false;
  };
  while (pos < limit) {
    const CodePoint cp = DecodeAt(text, pos, limit);
    if (cp.value >= 0 && IsSpaceCp(cp.value)) {
      space = true;
      if (IsLineBreak(cp.value)) newline = true;
      pos += cp.length;
      continue;
    }
    const bool digit = IsAsciiDigit(cp.value);
    if (cp.value >= 0 && (digit || IsLetterCp(cp.value) || cp.value == '_')) {
      const std::size_t begin = pos;
      bool has_letter = false;
      bool has_digit = false;
      bool has_other = false;  // '_' or apostrophe
      std::size_t first_non_digit = std::string_view::npos;
      while (pos < limit) {
        const CodePoint c = DecodeAt(text, pos, limit);
        if (c.value < 0) break;
        if (IsAsciiDigit(c.value)) {
          has_digit = true;
        } else if (IsLetterCp(c.value)) {
          has_letter = true;
        } else if (c.value == '_') {
          has_other = true;
        } else if (IsApostropheCp(c.value) && (has_letter || has_digit) && pos + c.length < limit) {
          const CodePoint after = DecodeAt(text, pos + c.length, limit);
          if (after.value < 0 || !IsLetterCp(after.value) || IsAsciiDigit(after.value)) break;
          has_other = true;
        } else {
          break;
        }
        if (first_non_digit == std::string_view::npos && !IsAsciiDigit(c.value)) {
          first_non_digit = pos;
        }
        pos += c.length;
      }
      if (!has_letter && !has_other) {
        push(begin, pos, LexemeKind::kNumber);
      } else if (!has_digit) {
        push(begin, pos,
             has_other && text.substr(begin, pos - begin).find('_') != std::string_view::npos
                 ? LexemeKind::kAlnum
                 : LexemeKind::kWord);
      } else if (digit && !has_other && first_non_digit != std::string_view::npos) {
        // Digits then letters: split off a known suffix ("8th", "3pm", "5km", "1990s").
        bool letters_only = true;
        for (std::size_t k = first_non_digit; k < pos; ++k) {
          if (!IsAsciiAlpha(static_cast<unsigned char>(text[k]))) letters_only = false;
        }
        const std::string suffix = LowerAscii(text.substr(first_non_digit, pos - first_non_digit));
        if (letters_only && IsNumberSuffix(suffix)) {
          push(begin, first_non_digit, LexemeKind::kNumber);
          push(first_non_digit, pos, LexemeKind::kWord);
        } else {
          push(begin, pos, LexemeKind::kAlnum);
        }
      } else {
        push(begin, pos, LexemeKind::kAlnum);
      }
      continue;
    }
    push(pos, pos + cp.length, LexemeKind::kPunct);
    pos += cp.length;
  }
  // Sentence starts: the first lexeme, after a line break, after . ! ? (not after a one-letter
  // word or a title such as "Dr.", and only when followed by a space), skipping closing quotes.
  bool pending = true;
  for (std::size_t index = 0; index < lexemes.size(); ++index) {
    Lexeme& lexeme = lexemes[index];
    if (lexeme.newline_before) pending = true;
    if (pending && !(lexeme.kind == LexemeKind::kPunct && IsClosingPunct(lexeme.lower))) {
      lexeme.sentence_start = true;
      pending = false;
    }
    if (lexeme.kind == LexemeKind::kPunct && IsTerminator(lexeme.lower)) {
      const bool followed_by_space = index + 1 >= lexemes.size() || lexemes[index + 1].space_before;
      bool abbreviation = false;
      if (lexeme.lower == "." && index > 0 && lexemes[index - 1].kind == LexemeKind::kWord) {
        const std::string_view before = lexemes[index - 1].lower;
        static constexpr std::array<std::string_view, 10> kTitles = {
            "mr", "mrs", "ms", "dr", "prof", "st", "vs", "jr", "sr", "mt"};
        // An initial ("J. Smith"), an inner dot of "e.g." / "i.e.", or a title.
        const bool initial = before.size() == 1 && lexemes[index - 1].capitalized;
        const bool dotted = before.size() == 1 && index >= 2 && lexemes[index - 2].lower == "." &&
                            !lexemes[index - 1].space_before;
        abbreviation =
            initial || dotted || std::find(kTitles.begin(), kTitles.end(), before) != kTitles.end();
      }
      if (followed_by_space && !abbreviation) pending = true;
    }
  }
  return lexemes;
}

}  // namespace engram::text
