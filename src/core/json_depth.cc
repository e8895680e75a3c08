// JSON nesting-depth guard (see json_depth.h).
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

}  // namespace engram::core
