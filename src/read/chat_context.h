// The chat context mode (RecallOptions::mode = kChat; DESIGN §5.7, EverMemOS §3.4-3.5): the
// lines a recall puts before its evidence so the answer model knows who it is talking to and
// what is coming up.
//
//   1. People: the profiles (scope_structure.h, stored by the last consolidation) of the people
//      the question names (a name of the frame or an asked speaker equal to the profile's name or
//      its first word); when it names none, the profile of the user of a user: scope.
//   2. Profile lines, per person in that order: each explicit slot's current value with its
//      earlier values ("lives in: Munich (before: Berlin)"), then the traits as stored (most
//      evidence first), each with its evidence turn ids. A line is left out when none of its
//      facts is shown by the recall's filters (Visibility: retired or superseded since the
//      consolidation, not yet known at known_at) or its fact is not in the scope graph.
//   3. Foresight lines: the facts of kind foresight that the filters show and whose validity
//      covers the time t (valid_at, else the query time): valid_from <= t < valid_to, soonest end
//      first (then row), each with its supporting turns.
//   4. Budget: the lines are taken in that order while they fit `max_tokens` (a section header
//      counts with its first line; a line that does not fit is skipped and a later, shorter one
//      may still fit). The caller gives the evidence the budget these lines leave.
// Deterministic: a pure function of the cached graph and structure, the frame and the options.
#ifndef ENGRAM_READ_CHAT_CONTEXT_H_
#define ENGRAM_READ_CHAT_CONTEXT_H_

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "engram/read_result.h"
#include "engram/status.h"
#include "read/query_frame.h"
#include "read/scope_graph.h"
#include "read/scope_structure.h"
#include "read/visibility.h"

namespace engram::read {

struct ChatContext {
  std::vector<ChatLine> lines;  // in context order
  std::string text;             // headers and lines, "" when there are none
  std::size_t tokens = 0;       // CountTokens of the headers and lines taken
  std::string explanation;      // for Diagnostics::chat
};

// `graphs` and `structures` are the searched scopes' (same order); `at` is the time t above.
StatusOr<ChatContext> BuildChatContext(std::span<const std::shared_ptr<const ScopeGraph>> graphs,
                                       std::span<const std::shared_ptr<const ScopeStructure>> structures,
                                       const QueryFrame& frame, const Visibility& visibility,
                                       Timestamp at, std::size_t max_tokens);

}  // namespace engram::read

#endif  // ENGRAM_READ_CHAT_CONTEXT_H_
