// UTF-8 validation used at every entry point (turn text, queries, scope names, metadata).
#ifndef ENGRAM_CORE_UTF8_H_
#define ENGRAM_CORE_UTF8_H_

#include <cstddef>
#include <optional>
#include <string_view>

namespace engram::core {

// Byte offset of the first invalid UTF-8 sequence (overlong forms, surrogates and code points
// above U+10FFFF are invalid), or nullopt when the whole text is valid.
std::optional<std::size_t> FindInvalidUtf8(std::string_view text);
inline bool IsValidUtf8(std::string_view text) { return !FindInvalidUtf8(text).has_value(); }

// True when the text is only white space (ASCII or Unicode space separators) or empty.
bool IsBlank(std::string_view text);

}  // namespace engram::core

#endif  // ENGRAM_CORE_UTF8_H_
