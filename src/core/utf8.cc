// UTF-8 validation (RFC 3629).
#include "core/utf8.h"

#include <cstdint>

namespace engram::core {

std::optional<std::size_t> FindInvalidUtf8(std::string_view text) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t size = text.size();
  std::size_t pos = 0;
  while (pos < size) {
    const unsigned char lead = bytes[pos];
    if (lead < 0x80) {
      ++pos;
      continue;
    }
    std::size_t length = 0;
    std::uint32_t code_point = 0;
    if ((lead & 0xE0) == 0xC0) {
      length = 2;
      code_point = lead & 0x1F;
    } else if ((lead & 0xF0) == 0xE0) {
      length = 3;
      code_point = lead & 0x0F;
    } else if ((lead & 0xF8) == 0xF0) {
      length = 4;
      code_point = lead & 0x07;
    } else {
      return pos;
    }
    if (pos + length > size) return pos;
    for (std::size_t i = 1; i < length; ++i) {
      if ((bytes[pos + i] & 0xC0) != 0x80) return pos;
      code_point = (code_point << 6) | (bytes[pos + i] & 0x3F);
    }
    const bool overlong = (length == 2 && code_point < 0x80) ||
                          (length == 3 && code_point < 0x800) ||
                          (length == 4 && code_point < 0x10000);
    if (overlong || code_point > 0x10FFFF || (code_point >= 0xD800 && code_point <= 0xDFFF)) {
      return pos;
    }
    pos += length;
  }
  return std::nullopt;
}

bool IsBlank(std::string_view text) {
  std::size_t pos = 0;
  while (pos < text.size()) {
    const unsigned char c = static_cast<unsigned char>(text[pos]);
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
      ++pos;
    } else if (text.substr(pos, 2) == "\xC2\xA0") {  // no-break space
      pos += 2;
    } else if (text.substr(pos, 3) == "\xE3\x80\x80" ||  // ideographic space
               (text.substr(pos, 2) == "\xE2\x80" && pos + 2 < text.size() &&
                static_cast<unsigned char>(text[pos + 2]) <= 0x8B)) {  // U+2000..U+200B
      pos += 3;
    } else {
      return false;
    }
  }
  return true;
}

}  // namespace engram::core
