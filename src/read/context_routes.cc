// Fragment, session and temporal routes (see context_routes.h).
#include "read/context_routes.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <optional>
#include <string>

#include "text/temporal.h"

namespace engram::read {
namespace {

std::string SeqRange(const TurnLayout& layout, std::size_t begin, std::size_t end) {
  const std::vector<LayoutTurn>& turns = layout.turns();
  return "seq " + std::to_string(turns[begin].sequence) + "-" +
         std::to_string(turns[end - 1].sequence);
}

std::string SessionName(const TurnLayout& layout, std::size_t session) {
  const std::string& id = layout.sessions()[session].session_id;
  return id.empty() ? "session #" + std::to_string(session + 1) : id;
}

}  // namespace

StatusOr<std::vector<RouteCandidate>> FragmentRoute::Run(const RouteContext& context) const {
  std::vector<RouteCandidate> candidates;
  if (context.layout == nullptr || context.frame->terms.empty()) return candidates;
  const TurnLayout& layout = *context.layout;
  SoftMatch soft;
  soft.threshold = context.config->recall.fragment_soft_match;
  const TermMatrix matrix(layout, context.text_indexes, context.frame->terms,
                          soft.threshold > 0 ? &soft : nullptr);
  if (matrix.empty()) return candidates;
  const std::size_t window = std::max<std::size_t>(1, context.config->recall.fragment_window);
  std::vector<Unit> units;
  for (const LayoutSession& session : layout.sessions()) {
    if (session.end - session.begin <= window) {
      units.push_back({session.begin, session.end});
      continue;
    }
    for (std::size_t begin = session.begin; begin + window <= session.end; ++begin) {
      units.push_back({begin, begin + window});
    }
  }
  const std::vector<UnitScore> unit_scores = matrix.Score(units, context.config->bm25);
  const std::vector<UnitScore> own = matrix.ScoreTurns(context.config->bm25);
  const std::size_t n = layout.turns().size();
  std::vector<std::size_t> best(n, units.size());  // units.size() = none
  for (std::size_t u = 0; u < units.size(); ++u) {
    if (unit_scores[u].score <= 0) continue;
    for (std::size_t t = units[u].begin; t < units[u].end; ++t) {
      if (best[t] == units.size() || unit_scores[u].score > unit_scores[best[t]].score) best[t] = u;
    }
  }
  std::vector<std::size_t> order;
  std::vector<double> score(n, 0);
  const double own_weight = context.config->recall.fragment_own_weight;
  for (std::size_t t = 0; t < n; ++t) {
    if (best[t] == units.size()) continue;
    order.push_back(t);
    score[t] = unit_scores[best[t]].score + own_weight * own[t].score;
  }
  const auto& turns = layout.turns();
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (score[a] != score[b]) return score[a] > score[b];
    if (own[a].score != own[b].score) return own[a].score > own[b].score;
    return turns[a].row < turns[b].row;
  });
  if (order.size() > context.limit) order.resize(context.limit);
  for (const std::size_t t : order) {
    const Unit& unit = units[best[t]];
    char own_text[64];
    std::snprintf(own_text, sizeof own_text, "; + %g x own %.2f", own_weight, own[t].score);
    candidates.push_back({turns[t].row, score[t],
                          "window " + SessionName(layout, turns[t].session) + " " +
                              SeqRange(layout, unit.begin, unit.end) + ": " +
                              ExplainUnit(unit_scores[best[t]]) + own_text});
  }
  return candidates;
}

StatusOr<std::vector<RouteCandidate>> SessionRoute::Run(const RouteContext& context) const {
  std::vector<RouteCandidate> candidates;
  if (context.layout == nullptr || context.frame->terms.empty()) return candidates;
  const TurnLayout& layout = *context.layout;
  const TermMatrix matrix(layout, context.text_indexes, context.frame->terms);
  if (matrix.empty()) return candidates;
  std::vector<Unit> units;
  for (const LayoutSession& session : layout.sessions())
    units.push_back({session.begin, session.end});
  const std::vector<UnitScore> session_scores = matrix.Score(units, context.config->bm25);
  const std::vector<UnitScore> own = matrix.ScoreTurns(context.config->bm25);
  std::vector<std::size_t> session_order;
  for (std::size_t s = 0; s < units.size(); ++s) {
    if (session_scores[s].score > 0) session_order.push_back(s);
  }
  std::sort(session_order.begin(), session_order.end(), [&](std::size_t a, std::size_t b) {
    if (session_scores[a].score != session_scores[b].score) {
      return session_scores[a].score > session_scores[b].score;
    }
    return a < b;
  });
  const auto& turns = layout.turns();
  const std::size_t per_session = context.config->recall.session_turns;
  for (std::size_t position = 0; position < session_order.size(); ++position) {
    const std::size_t s = session_order[position];
    std::vector<std::size_t> members;
    for (std::size_t t = units[s].begin; t < units[s].end; ++t) members.push_back(t);
    std::stable_sort(members.begin(), members.end(), [&](std::size_t a, std::size_t b) {
      return own[a].score > own[b].score;  // stable: sequence order among equals
    });
    if (per_session > 0 && members.size() > per_session) members.resize(per_session);
    const std::string head = "session " + SessionName(layout, s) + " #" +
                             std::to_string(position + 1) + " (" +
                             std::to_string(units[s].end - units[s].begin) +
                             " turns): " + ExplainUnit(session_scores[s]);
    for (const std::size_t t : members) {
      if (candidates.size() >= context.limit) return candidates;
      char own_text[48];
      std::snprintf(own_text, sizeof own_text, "; own %.2f", own[t].score);
      candidates.push_back({turns[t].row, session_scores[s].score, head + own_text});
    }
  }
  return candidates;
}

namespace {

// A span of event times the temporal route searches: [from, to), and why.
struct TimeWindow {
  Timestamp from{std::numeric_limits<std::int64_t>::min()};
  Timestamp to{std::numeric_limits<std::int64_t>::max()};
  std::string why;
};

// The windows of the frame's time constraints, then of its event anchors that some turn dates
// (the turn whose own BM25 over the anchor's terms is highest; the earliest among equals): a
// turn at the anchor's time is on both sides ("after the accident" may be told in the same
// session as the accident).
std::vector<TimeWindow> Windows(const RouteContext& context) {
  std::vector<TimeWindow> windows;
  for (const TimeConstraint& constraint : context.frame->time_constraints) {
    windows.push_back({constraint.from, constraint.to,
                       "in \"" + constraint.surface + "\" " +
                           text::FormatInterval(constraint.from, constraint.to)});
  }
  const auto& turns = context.layout->turns();
  for (const EventAnchor& anchor : context.frame->event_anchors) {
    const TermMatrix matrix(*context.layout, context.text_indexes, anchor.terms);
    const std::vector<UnitScore> scores = matrix.ScoreTurns(context.config->bm25);
    std::optional<std::size_t> best;
    for (std::size_t t = 0; t < scores.size() && t < turns.size(); ++t) {
      if (scores[t].score <= 0 || !turns[t].event_time) continue;
      if (!best || scores[t].score > scores[*best].score) best = t;
    }
    if (!best) continue;
    const Timestamp at = *turns[*best].event_time;
    TimeWindow window;
    if (anchor.before) {
      window.to = Timestamp{at.micros + 1};
    } else {
      window.from = at;
    }
    window.why = "\"" + anchor.surface +
                 "\": " + (anchor.before ? "at or before " : "at or after ") + FormatTimestamp(at) +
                 " (seq " + std::to_string(turns[*best].sequence) +
                 ", the best match of the event)";
    windows.push_back(std::move(window));
  }
  return windows;
}

}  // namespace

StatusOr<std::vector<RouteCandidate>> TemporalRoute::Run(const RouteContext& context) const {
  std::vector<RouteCandidate> candidates;
  if (context.layout == nullptr ||
      (context.frame->time_constraints.empty() && context.frame->event_anchors.empty())) {
    return candidates;
  }
  const std::vector<TimeWindow> windows = Windows(context);
  if (windows.empty()) return candidates;
  const TurnLayout& layout = *context.layout;
  const auto& turns = layout.turns();
  std::vector<std::size_t> inside;
  std::vector<std::size_t> window_of;
  for (std::size_t t = 0; t < turns.size(); ++t) {
    if (!turns[t].event_time) continue;
    for (std::size_t w = 0; w < windows.size(); ++w) {
      if (windows[w].from <= *turns[t].event_time && *turns[t].event_time < windows[w].to) {
        inside.push_back(t);
        window_of.push_back(w);
        break;
      }
    }
  }
  if (inside.empty()) return candidates;
  const TermMatrix matrix(layout, context.text_indexes, context.frame->terms);
  const std::vector<UnitScore> own = matrix.ScoreTurns(context.config->bm25);
  std::vector<std::size_t> order(inside.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const double sa = own.empty() ? 0 : own[inside[a]].score;
    const double sb = own.empty() ? 0 : own[inside[b]].score;
    return sa > sb;
  });
  if (order.size() > context.limit) order.resize(context.limit);
  for (const std::size_t i : order) {
    const std::size_t t = inside[i];
    const double score = own.empty() ? 0 : own[t].score;
    char own_text[48];
    std::snprintf(own_text, sizeof own_text, "; own bm25 %.2f", score);
    candidates.push_back({turns[t].row, score,
                          "event time " + FormatTimestamp(*turns[t].event_time) + " " +
                              windows[window_of[i]].why + own_text});
  }
  return candidates;
}

}  // namespace engram::read
