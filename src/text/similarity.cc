// Jaro–Winkler and the phonetic key (see similarity.h).
#include "text/similarity.h"

#include <algorithm>
#include <vector>

namespace engram::text {
namespace {

// Code points of UTF-8 text; an invalid byte stands for itself.
std::vector<char32_t> CodePoints(std::string_view text) {
  std::vector<char32_t> points;
  points.reserve(text.size());
  std::size_t at = 0;
  while (at < text.size()) {
    const auto lead = static_cast<unsigned char>(text[at]);
    std::size_t length = 1;
    char32_t point = lead;
    if (lead >= 0xf0) {
      length = 4;
      point = lead & 0x07u;
    } else if (lead >= 0xe0) {
      length = 3;
      point = lead & 0x0fu;
    } else if (lead >= 0xc0) {
      length = 2;
      point = lead & 0x1fu;
    }
    if (at + length > text.size()) length = 1;
    if (length == 1) {
      point = lead;
    } else {
      for (std::size_t next = 1; next < length; ++next) {
        point = (point << 6) | (static_cast<unsigned char>(text[at + next]) & 0x3fu);
      }
    }
    points.push_back(point);
    at += length;
  }
  return points;
}

char SoundexDigit(char letter) {
  switch (letter) {
    case 'B':
    case 'F':
    case 'P':
    case 'V':
      return '1';
    case 'C':
    case 'G':
    case 'J':
    case 'K':
    case 'Q':
    case 'S':
    case 'X':
    case 'Z':
      return '2';
    case 'D':
    case 'T':
      return '3';
    case 'L':
      return '4';
    case 'M':
    case 'N':
      return '5';
    case 'R':
      return '6';
    default:
      return '0';  // vowels, H, W, Y
  }
}

std::string WordKey(std::string_view word) {
  std::string letters;
  for (const char c : word) {
    if (c >= 'a' && c <= 'z') letters.push_back(static_cast<char>(c - 'a' + 'A'));
    if (c >= 'A' && c <= 'Z') letters.push_back(c);
  }
  if (letters.empty()) return "";
  std::string rewritten;
  for (std::size_t at = 0; at < letters.size(); ++at) {
    const char next = at + 1 < letters.size() ? letters[at + 1] : '\0';
    const char c = letters[at];
    if (c == 'P' && next == 'H') {
      rewritten.push_back('F');
      ++at;
    } else if (c == 'C' && next == 'K') {
      rewritten.push_back('K');
      ++at;
    } else if (c == 'K' && next == 'N') {
      rewritten.push_back('N');
      ++at;
    } else if (c == 'W' && next == 'R') {
      rewritten.push_back('R');
      ++at;
    } else {
      rewritten.push_back(c);
    }
  }
  std::string key(1, rewritten.front());
  char previous = SoundexDigit(rewritten.front());
  for (std::size_t at = 1; at < rewritten.size() && key.size() < 4; ++at) {
    const char c = rewritten[at];
    const char digit = SoundexDigit(c);
    if (c == 'H' || c == 'W') continue;  // do not separate equal codes
    if (digit != '0' && digit != previous) key.push_back(digit);
    previous = digit;
  }
  while (key.size() < 4) key.push_back('0');
  return key;
}

}  // namespace

double Jaro(std::string_view a, std::string_view b) {
  const std::vector<char32_t> left = CodePoints(a);
  const std::vector<char32_t> right = CodePoints(b);
  if (left.empty() && right.empty()) return 1.0;
  if (left.empty() || right.empty()) return 0.0;
  const std::size_t longest = std::max(left.size(), right.size());
  const std::size_t window = longest / 2 == 0 ? 0 : longest / 2 - 1;
  std::vector<bool> left_matched(left.size(), false);
  std::vector<bool> right_matched(right.size(), false);
  std::size_t matches = 0;
  for (std::size_t left_idx = 0; left_idx < left.size(); ++left_idx) {
    const std::size_t from = left_idx > window ? left_idx - window : 0;
    const std::size_t to = std::min(right.size(), left_idx + window + 1);
    for (std::size_t right_idx = from; right_idx < to; ++right_idx) {
      if (right_matched[right_idx] || left[left_idx] != right[right_idx]) continue;
      left_matched[left_idx] = true;
      right_matched[right_idx] = true;
      ++matches;
      break;
    }
  }
  if (matches == 0) return 0.0;
  std::size_t out_of_order = 0;
  std::size_t right_idx = 0;
  for (std::size_t left_idx = 0; left_idx < left.size(); ++left_idx) {
    if (!left_matched[left_idx]) continue;
    while (!right_matched[right_idx]) ++right_idx;
    if (left[left_idx] != right[right_idx]) ++out_of_order;
    ++right_idx;
  }
  const double m = static_cast<double>(matches);
  const double transpositions = static_cast<double>(out_of_order) / 2.0;
  return (m / static_cast<double>(left.size()) + m / static_cast<double>(right.size()) +
          (m - transpositions) / m) /
         3.0;
}

double JaroWinkler(std::string_view a, std::string_view b) {
  const double jaro = Jaro(a, b);
  if (jaro <= kWinklerBoostThreshold) return jaro;
  const std::vector<char32_t> left = CodePoints(a);
  const std::vector<char32_t> right = CodePoints(b);
  std::size_t prefix = 0;
  while (prefix < 4 && prefix < left.size() && prefix < right.size() &&
         left[prefix] == right[prefix]) {
    ++prefix;
  }
  return jaro + static_cast<double>(prefix) * kWinklerPrefixScale * (1.0 - jaro);
}

std::string PhoneticKey(std::string_view name) {
  std::string key;
  std::size_t start = 0;
  while (start <= name.size()) {
    std::size_t end = name.find(' ', start);
    if (end == std::string_view::npos) end = name.size();
    const std::string word = WordKey(name.substr(start, end - start));
    if (!word.empty()) {
      if (!key.empty()) key.push_back(' ');
      key += word;
    }
    start = end + 1;
  }
  return key;
}

}  // namespace engram::text
