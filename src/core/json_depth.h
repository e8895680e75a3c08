// Cheap guards run before parsing untrusted JSON, scanning the text without parsing it: its
// nesting depth, so that hostile input ("[[[[...") is refused before a recursive parser or
// destructor sees it; and integers no 64-bit type holds, which nlohmann's parser would turn
// into doubles (rounded) without a word.
#ifndef ENGRAM_CORE_JSON_DEPTH_H_
#define ENGRAM_CORE_JSON_DEPTH_H_

#include <cstddef>
#include <optional>
#include <string_view>

namespace engram::core {

// Deepest nesting of objects and arrays (counted together) outside strings. Stops counting once
// the depth exceeds `limit` (returns limit + 1), so hostile input costs one pass at most.
std::size_t JsonNestingDepth(std::string_view text, std::size_t limit);

// The first integer literal outside strings (digits with an optional '-', no fraction or
// exponent) below -2^63 or above 2^64 - 1, as it is written; nullopt when there is none. JSON
// integers in [-2^63, 2^64 - 1] parse exactly (int64 or uint64) and are written back unchanged.
std::optional<std::string_view> FindJsonIntegerBeyond64Bits(std::string_view text);

}  // namespace engram::core

#endif  // ENGRAM_CORE_JSON_DEPTH_H_
