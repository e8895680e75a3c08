// A cheap guard run before parsing untrusted JSON: its nesting depth, counted without parsing,
// so that hostile input ("[[[[...") is refused before a recursive parser or destructor sees it.
#ifndef ENGRAM_CORE_JSON_DEPTH_H_
#define ENGRAM_CORE_JSON_DEPTH_H_

#include <cstddef>
#include <string_view>

namespace engram::core {

// Deepest nesting of objects and arrays (counted together) outside strings. Stops counting once
// the depth exceeds `limit` (returns limit + 1), so hostile input costs one pass at most.
std::size_t JsonNestingDepth(std::string_view text, std::size_t limit);

}  // namespace engram::core

#endif  // ENGRAM_CORE_JSON_DEPTH_H_
