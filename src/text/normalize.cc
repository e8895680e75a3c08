// NormalizeForIndex: NFKC + case folding (+ mark stripping) through utf8proc_map.
#include "text/normalize.h"

#include <utf8proc.h>

#include <cstdlib>
#include <memory>

namespace engram::text {
namespace {

constexpr std::string_view kReplacementCharacter = "\xEF\xBF\xBD";  // U+FFFD
constexpr std::string_view kRightSingleQuote = "\xE2\x80\x99";      // U+2019

bool IsAscii(std::string_view text) {
  for (const char ch : text) {
    if (static_cast<unsigned char>(ch) >= 0x80) return false;
  }
  return true;
}

// For ASCII input NFKC, ignorable removal and mark stripping are the identity and case folding
// is ASCII tolower (utf8proc agrees byte for byte), so the common case skips utf8proc's
// allocation and decomposition.
std::string AsciiFold(std::string_view text) {
  std::string out(text);
  for (char& ch : out) {
    if (ch >= 'A' && ch <= 'Z') ch = static_cast<char>(ch - 'A' + 'a');
  }
  return out;
}

// U+2019 RIGHT SINGLE QUOTATION MARK -> "'", in place (the replacement is shorter).
void UnifyApostrophes(std::string& text) {
  if (text.find(kRightSingleQuote) == std::string::npos) return;
  std::size_t out = 0;
  for (std::size_t in = 0; in < text.size();) {
    if (std::string_view(text).substr(in, kRightSingleQuote.size()) == kRightSingleQuote) {
      text[out++] = '\'';
      in += kRightSingleQuote.size();
    } else {
      text[out++] = text[in++];
    }
  }
  text.resize(out);
}

struct FreeDeleter {
  void operator()(utf8proc_uint8_t* pointer) const { std::free(pointer); }
};

}  // namespace

std::string SanitizeUtf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  const auto* bytes = reinterpret_cast<const utf8proc_uint8_t*>(text.data());
  const auto size = static_cast<utf8proc_ssize_t>(text.size());
  utf8proc_ssize_t pos = 0;
  while (pos < size) {
    if (bytes[pos] < 0x80) {
      out.push_back(static_cast<char>(bytes[pos]));
      ++pos;
      continue;
    }
    utf8proc_int32_t code_point = 0;
    const utf8proc_ssize_t length = utf8proc_iterate(bytes + pos, size - pos, &code_point);
    if (length <= 0) {
      out.append(kReplacementCharacter);
      ++pos;
    } else {
      out.append(text.substr(static_cast<std::size_t>(pos), static_cast<std::size_t>(length)));
      pos += length;
    }
  }
  return out;
}

std::string NormalizeForIndex(std::string_view utf8, const NormalizeOptions& options) {
  if (IsAscii(utf8)) return AsciiFold(utf8);
  const std::string valid = SanitizeUtf8(utf8);
  int flags =
      UTF8PROC_STABLE | UTF8PROC_COMPOSE | UTF8PROC_COMPAT | UTF8PROC_CASEFOLD | UTF8PROC_IGNORE;
  if (options.strip_marks) flags |= UTF8PROC_STRIPMARK;
  utf8proc_uint8_t* mapped = nullptr;
  const utf8proc_ssize_t length = utf8proc_map(
      reinterpret_cast<const utf8proc_uint8_t*>(valid.data()),
      static_cast<utf8proc_ssize_t>(valid.size()), &mapped, static_cast<utf8proc_option_t>(flags));
  const std::unique_ptr<utf8proc_uint8_t, FreeDeleter> owner(mapped);
  if (length < 0 || mapped == nullptr) {
    // Only out-of-memory can get here once the input is valid UTF-8: fall back to a
    // deterministic, if weaker, normalisation rather than failing the caller.
    return AsciiFold(valid);
  }
  std::string out(reinterpret_cast<const char*>(mapped), static_cast<std::size_t>(length));
  UnifyApostrophes(out);
  return out;
}

std::vector<std::string_view> KeyWords(std::string_view key) {
  std::vector<std::string_view> words;
  std::size_t begin = 0;
  while (begin < key.size()) {
    std::size_t end = key.find(' ', begin);
    if (end == std::string_view::npos) end = key.size();
    if (end > begin) words.push_back(key.substr(begin, end - begin));
    begin = end + 1;
  }
  return words;
}

}  // namespace engram::text
