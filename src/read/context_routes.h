// Routes that read the conversation's structure (DESIGN §5.3) through the TurnLayout:
//
//   fragment  KeyMem Path C until episodes and scenes exist: every window of `fragment_window`
//             consecutive turns of a session is scored as one BM25 document (turn_layout.h); a
//             turn scores its best window's score + fragment_own_weight × its own BM25, so a
//             window that matches as a whole brings in its turns that match nothing alone, after
//             the ones that do. Ties: own BM25, then row. Only the best `limit` turns are
//             looked for, by MaxScore skipping (fragment_top.h).
//   session   EverMemOS-style scene selection with sessions as scenes: sessions scored as BM25
//             documents; their turns follow in session order (best session first), within a
//             session by the turn's own BM25, then sequence. At most `session_turns` turns per
//             session (0 = all).
//   temporal  turns whose event time lies in a time constraint of the question (last May, in
//             2022): proposes nothing without one. Within the interval, by own BM25, then
//             sequence.
// All three propose nothing when the request has no layout.
#ifndef ENGRAM_READ_CONTEXT_ROUTES_H_
#define ENGRAM_READ_CONTEXT_ROUTES_H_

#include "read/route.h"

namespace engram::read {

class FragmentRoute final : public Route {
 public:
  static constexpr std::string_view kName = "fragment";
  std::string_view name() const override { return kName; }
  StatusOr<std::vector<RouteCandidate>> Run(const RouteContext& context) const override;
};

class SessionRoute final : public Route {
 public:
  static constexpr std::string_view kName = "session";
  std::string_view name() const override { return kName; }
  StatusOr<std::vector<RouteCandidate>> Run(const RouteContext& context) const override;
};

class TemporalRoute final : public Route {
 public:
  static constexpr std::string_view kName = "temporal";
  std::string_view name() const override { return kName; }
  StatusOr<std::vector<RouteCandidate>> Run(const RouteContext& context) const override;
};

}  // namespace engram::read

#endif  // ENGRAM_READ_CONTEXT_ROUTES_H_
