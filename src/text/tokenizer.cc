// Tokenizer: a single pass over the code points of the text that finds word spans, then
// normalisation, possessive and stopword handling and stemming per word (rules in tokenizer.h).
#include "text/tokenizer.h"

#include <utf8proc.h>

#include <algorithm>
#include <limits>

#include "text/stemmer.h"
#include "text/stopwords.h"

namespace engram::text {
namespace {

enum class CharClass {
  kLetter,      // L*
  kDigit,       // N*
  kMark,        // M*: joins a word, never starts one
  kIdeograph,   // Han ideograph: a token on its own
  kApostrophe,  // ' U+2019 U+FF07: joins between a letter/digit and a letter
  kPeriod,      // '.': joins between two digits
  kComma,       // ',': a thousands separator between a digit and exactly three digits
  kFormat,      // Cf: skipped inside a word
  kSeparator,   // everything else, including invalid bytes
};

struct CodePoint {
  CharClass char_class = CharClass::kSeparator;
  std::size_t length = 1;  // bytes
};

bool IsHanIdeograph(utf8proc_int32_t code_point) {
  return (code_point >= 0x3400 && code_point <= 0x4DBF) ||  // extension A
         (code_point >= 0x4E00 && code_point <= 0x9FFF) ||  // unified ideographs
         (code_point >= 0xF900 && code_point <= 0xFAFF) ||  // compatibility ideographs
         (code_point >= 0x20000 && code_point <= 0x3134F);  // extensions B-H, supplement
}

// Decodes and classifies the code point at text[pos] (pos < text.size()).
CodePoint Classify(std::string_view text, std::size_t pos) {
  const auto byte = static_cast<unsigned char>(text[pos]);
  if (byte < 0x80) {
    if ((byte >= 'a' && byte <= 'z') || (byte >= 'A' && byte <= 'Z')) return {CharClass::kLetter};
    if (byte >= '0' && byte <= '9') return {CharClass::kDigit};
    if (byte == '\'') return {CharClass::kApostrophe};
    if (byte == '.') return {CharClass::kPeriod};
    if (byte == ',') return {CharClass::kComma};
    return {CharClass::kSeparator};
  }
  utf8proc_int32_t code_point = 0;
  const utf8proc_ssize_t length =
      utf8proc_iterate(reinterpret_cast<const utf8proc_uint8_t*>(text.data() + pos),
                       static_cast<utf8proc_ssize_t>(text.size() - pos), &code_point);
  if (length <= 0) return {CharClass::kSeparator, 1};
  const auto size = static_cast<std::size_t>(length);
  if (code_point == 0x2019 || code_point == 0xFF07) return {CharClass::kApostrophe, size};
  if (code_point == 0x200B) return {CharClass::kSeparator, size};  // zero-width space (a Cf)
  if (IsHanIdeograph(code_point)) return {CharClass::kIdeograph, size};
  switch (utf8proc_category(code_point)) {
    case UTF8PROC_CATEGORY_LU:
    case UTF8PROC_CATEGORY_LL:
    case UTF8PROC_CATEGORY_LT:
    case UTF8PROC_CATEGORY_LM:
    case UTF8PROC_CATEGORY_LO:
      return {CharClass::kLetter, size};
    case UTF8PROC_CATEGORY_ND:
    case UTF8PROC_CATEGORY_NL:
    case UTF8PROC_CATEGORY_NO:
      return {CharClass::kDigit, size};
    case UTF8PROC_CATEGORY_MN:
    case UTF8PROC_CATEGORY_MC:
    case UTF8PROC_CATEGORY_ME:
      return {CharClass::kMark, size};
    case UTF8PROC_CATEGORY_CF:
      return {CharClass::kFormat, size};
    default:
      return {CharClass::kSeparator, size};
  }
}

CharClass ClassAt(std::string_view text, std::size_t pos) {
  return pos < text.size() ? Classify(text, pos).char_class : CharClass::kSeparator;
}

bool IsAsciiDigit(char ch) { return ch >= '0' && ch <= '9'; }

// True if text[pos] is followed by exactly three ASCII digits and then no further digit.
bool ThreeDigitGroupFollows(std::string_view text, std::size_t pos) {
  if (pos + 4 > text.size()) return false;
  for (std::size_t offset = 1; offset <= 3; ++offset) {
    if (!IsAsciiDigit(text[pos + offset])) return false;
  }
  return pos + 4 == text.size() || ClassAt(text, pos + 4) != CharClass::kDigit;
}

// Byte offset of the start of the last apostrophe in `raw`, or npos.
std::size_t LastApostrophe(std::string_view raw) {
  std::size_t best = std::string_view::npos;
  for (const std::string_view apostrophe : {std::string_view("'"), std::string_view("\xE2\x80\x99"),
                                            std::string_view("\xEF\xBC\x87")}) {
    const std::size_t pos = raw.rfind(apostrophe);
    if (pos != std::string_view::npos && (best == std::string_view::npos || pos > best)) {
      best = pos;
    }
  }
  return best;
}

bool IsStemmable(std::string_view word) {
  return std::all_of(word.begin(), word.end(),
                     [](char ch) { return (ch >= 'a' && ch <= 'z') || ch == '\''; });
}

}  // namespace

void Tokenizer::EmitWord(std::string_view text, std::size_t begin, std::size_t end,
                         std::vector<Token>& tokens) const {
  std::string word = NormalizeForIndex(text.substr(begin, end - begin), options_.normalize);
  if (word.find(',') != std::string::npos) std::erase(word, ',');  // thousands separators
  if (word.size() > 2 && word.ends_with("'s")) {
    word.resize(word.size() - 2);
    const std::size_t apostrophe = LastApostrophe(text.substr(begin, end - begin));
    if (apostrophe != std::string_view::npos) end = begin + apostrophe;
  }
  if (word.empty() || word.size() > options_.max_token_bytes) return;
  if (options_.drop_stopwords && IsStopword(word)) return;
  std::string term = options_.stem && IsStemmable(word) ? StemEnglish(word) : word;
  if (term.empty()) term = word;
  tokens.push_back(Token{std::move(term), std::move(word), static_cast<std::uint32_t>(begin),
                         static_cast<std::uint32_t>(end)});
}

std::vector<Token> Tokenizer::Tokenize(std::string_view text) const {
  if (text.size() > std::numeric_limits<std::uint32_t>::max()) {
    text = text.substr(0, std::numeric_limits<std::uint32_t>::max());
  }
  std::vector<Token> tokens;
  bool in_word = false;
  std::size_t word_begin = 0;
  std::size_t word_end = 0;  // end of the last letter, digit or mark of the current word
  CharClass last_class = CharClass::kSeparator;  // kLetter or kDigit: the word's last one
  const auto finish_word = [&] {
    if (in_word) EmitWord(text, word_begin, word_end, tokens);
    in_word = false;
  };

  std::size_t pos = 0;
  while (pos < text.size()) {
    const CodePoint current = Classify(text, pos);
    const std::size_t next = pos + current.length;
    switch (current.char_class) {
      case CharClass::kLetter:
      case CharClass::kDigit:
        if (!in_word) {
          in_word = true;
          word_begin = pos;
        }
        word_end = next;
        last_class = current.char_class;
        break;
      case CharClass::kMark:
        if (in_word) word_end = next;  // a mark outside a word (after an emoji, say) is dropped
        break;
      case CharClass::kIdeograph:
        finish_word();
        EmitWord(text, pos, next, tokens);
        break;
      case CharClass::kApostrophe:
        if (!(in_word && word_end == pos && ClassAt(text, next) == CharClass::kLetter)) {
          finish_word();
        }
        break;
      case CharClass::kPeriod:
        if (!(in_word && word_end == pos && last_class == CharClass::kDigit &&
              ClassAt(text, next) == CharClass::kDigit)) {
          finish_word();
        }
        break;
      case CharClass::kComma:
        if (!(in_word && word_end == pos && last_class == CharClass::kDigit &&
              ThreeDigitGroupFollows(text, pos))) {
          finish_word();
        }
        break;
      case CharClass::kFormat:
        break;  // inside a word: skipped (NormalizeForIndex removes it); outside: ignored
      case CharClass::kSeparator:
        finish_word();
        break;
    }
    pos = next;
  }
  finish_word();
  return tokens;
}

std::vector<std::string> Tokenizer::Terms(std::string_view text) const {
  std::vector<Token> tokens = Tokenize(text);
  std::vector<std::string> terms;
  terms.reserve(tokens.size());
  for (Token& token : tokens) terms.push_back(std::move(token.term));
  return terms;
}

}  // namespace engram::text
