// engram::CountTokens (include/engram/read_result.h): the token estimate behind every budget.
//
// Rule: each maximal run of letters/digits (any non-ASCII byte counts as a letter byte) costs
// ceil(bytes / 4) tokens; each other non-space character costs one token. English prose comes out
// within about 10% of GPT-style BPE counts; the rule is cheap, deterministic and documented.
#include <string_view>

#include "engram/read_result.h"

namespace engram {

std::size_t CountTokens(std::string_view text) {
  std::size_t tokens = 0;
  std::size_t run = 0;
  for (const char ch : text) {
    const unsigned char c = static_cast<unsigned char>(ch);
    const bool word = c >= 0x80 || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
                      (c >= 'A' && c <= 'Z') || c == '_' || c == '\'';
    if (word) {
      ++run;
      continue;
    }
    tokens += (run + 3) / 4;
    run = 0;
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') ++tokens;
  }
  tokens += (run + 3) / 4;
  return tokens;
}

}  // namespace engram
