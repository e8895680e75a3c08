// JSON guards: nesting depth, integers beyond 64 bits (see json_depth.h).
#include "core/json_depth.h"

namespace engram::core {

std::size_t JsonNestingDepth(std::string_view text, std::size_t limit) {
  std::size_t depth = 0;
  std::size_t max_depth = 0;
  bool in_string = false;
  bool escaped = false;
  for (const char c : text) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    switch (c) {
      case '"':
        in_string = true;
        break;
      case '{':
      case '[':
        ++depth;
        if (depth > max_depth) {
          max_depth = depth;
          if (max_depth > limit) return limit + 1;
        }
        break;
      case '}':
      case ']':
        if (depth > 0) --depth;
        break;
      default:
        break;
    }
  }
  return max_depth;
}

std::optional<std::string_view> FindJsonIntegerBeyond64Bits(std::string_view text) {
  constexpr std::string_view kMaxUnsigned = "18446744073709551615";  // 2^64 - 1
  constexpr std::string_view kMaxNegative = "9223372036854775808";   // -(-2^63)
  const auto is_digit = [](char c) { return c >= '0' && c <= '9'; };
  bool in_string = false;
  bool escaped = false;
  for (std::size_t pos = 0; pos < text.size(); ++pos) {
    const char c = text[pos];
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
      continue;
    }
    if (c != '-' && !is_digit(c)) continue;
    // A number token: its sign, its integer digits, then whatever follows them.
    const std::size_t start = pos;
    const bool negative = c == '-';
    if (negative) ++pos;
    const std::size_t digits_start = pos;
    while (pos < text.size() && is_digit(text[pos])) ++pos;
    std::size_t end = pos;
    const bool integer =
        pos >= text.size() || (text[pos] != '.' && text[pos] != 'e' && text[pos] != 'E');
    // Skip the rest of a fraction or exponent, so its digits do not start another token.
    while (end < text.size() && (is_digit(text[end]) || text[end] == '.' || text[end] == 'e' ||
                                 text[end] == 'E' || text[end] == '+' || text[end] == '-')) {
      ++end;
    }
    std::string_view digits = text.substr(digits_start, pos - digits_start);
    while (digits.size() > 1 && digits.front() == '0') digits.remove_prefix(1);
    const std::string_view limit = negative ? kMaxNegative : kMaxUnsigned;
    // Same-length digit strings compare as numbers.
    if (integer &&
        (digits.size() > limit.size() || (digits.size() == limit.size() && digits > limit))) {
      return text.substr(start, pos - start);
    }
    pos = end - 1;  // the loop's ++pos moves past the token
  }
  return std::nullopt;
}

}  // namespace engram::core
