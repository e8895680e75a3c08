// Fragment, session and temporal routes (see context_routes.h).
#include "read/context_routes.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <optional>
#include <string>

#include "read/fragment_top.h"
#include "read/word_neighbours.h"
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

// The recall's shared term scores, or `own`, built for this run, when the context has none.
RecallTerms& TermsOf(const RouteContext& context, std::optional<RecallTerms>& own) {
  if (context.terms != nullptr) return *context.terms;
  own.emplace(*context.layout, context.text_indexes, context.frame->terms, context.config->bm25);
  return *own;
}

}  // namespace

StatusOr<std::vector<RouteCandidate>> FragmentRoute::Run(const RouteContext& context) const {
  std::vector<RouteCandidate> candidates;
  if (context.layout == nullptr || context.frame->terms.empty()) return candidates;
  const TurnLayout& layout = *context.layout;
  SoftMatch soft;
  soft.threshold = context.config->recall.fragment_soft_match;
  const RecallConfig& recall = context.config->recall;
  soft.neighbours = WordNeighbours(context.word_vectors, context.word_neighbour_cache,
                                   context.text_indexes, context.frame->terms,
                                   {.threshold = recall.word_vector_match,
                                    .per_term = recall.word_vector_neighbours,
                                    .weight = recall.word_vector_weight,
                                    .absent_only = recall.word_vector_absent_only});
  const SoftMatch* const soft_match =
      soft.threshold > 0 || !soft.neighbours.empty() ? &soft : nullptr;
  std::optional<RecallTerms> own_terms;
  RecallTerms& terms = TermsOf(context, own_terms);
  const TermMatrix& matrix = terms.Matrix(soft_match);
  // Without soft matching the matrix may hold another route's soft matches: skip them.
  const TermSet set = soft_match != nullptr ? TermSet::kAll : TermSet::kExact;
  if (matrix.empty(set)) return candidates;
  const GroupingScores& own = terms.Turns(soft_match);
  FragmentOptions options;
  options.window = std::max<std::size_t>(1, context.config->recall.fragment_window);
  options.limit = context.limit;
  options.own_weight = context.config->recall.fragment_own_weight;
  const FragmentTop top = TopFragments(matrix, set, own, options, context.config->bm25);
  const auto& turns = layout.turns();
  for (const FragmentPick& pick : top.picks) {
    char own_text[64];
    std::snprintf(own_text, sizeof own_text, "; + %g x own %.2f", options.own_weight, pick.own);
    candidates.push_back({turns[pick.turn].row, pick.score,
                          "window " + SessionName(layout, turns[pick.turn].session) + " " +
                              SeqRange(layout, pick.window.begin, pick.window.end) + ": " +
                              ExplainUnit(top.windows.Explain(pick.window)) + own_text});
  }
  return candidates;
}

StatusOr<std::vector<RouteCandidate>> SessionRoute::Run(const RouteContext& context) const {
  std::vector<RouteCandidate> candidates;
  if (context.layout == nullptr || context.frame->terms.empty()) return candidates;
  const TurnLayout& layout = *context.layout;
  std::optional<RecallTerms> own_terms;
  RecallTerms& terms = TermsOf(context, own_terms);
  // The query's own terms: the shared matrix may hold the fragment route's soft matches.
  const TermMatrix& matrix = terms.Matrix(nullptr);
  if (matrix.empty(TermSet::kExact)) return candidates;
  // The sessions holding a query term (the others score 0), in session order.
  const GroupingScores sessions = matrix.ScoreSessions(context.config->bm25, TermSet::kExact);
  const std::vector<ScoredUnit>& session_scores = sessions.units();
  const GroupingScores& own = terms.Turns(nullptr);
  const auto own_score = [&own](std::size_t t) { return own.ScoreOf(t); };
  std::vector<std::size_t> session_order;  // indexes into session_scores
  for (std::size_t s = 0; s < session_scores.size(); ++s) {
    if (session_scores[s].score > 0) session_order.push_back(s);
  }
  // Each session listed adds at least one candidate, so only the best `limit` can be listed: a
  // partial sort under a total order gives the head a full sort gives.
  const std::size_t listed = std::min(session_order.size(), context.limit);
  std::partial_sort(session_order.begin(),
                    session_order.begin() + static_cast<std::ptrdiff_t>(listed),
                    session_order.end(), [&](std::size_t a, std::size_t b) {
                      if (session_scores[a].score != session_scores[b].score) {
                        return session_scores[a].score > session_scores[b].score;
                      }
                      return a < b;
                    });
  session_order.resize(listed);
  const auto& turns = layout.turns();
  const std::size_t per_session = context.config->recall.session_turns;
  for (std::size_t position = 0; position < session_order.size(); ++position) {
    const ScoredUnit& session = session_scores[session_order[position]];
    const Unit& unit = session.unit;
    std::vector<std::size_t> members;
    std::vector<double> member_score;  // own score by member offset in the session
    for (std::size_t t = unit.begin; t < unit.end; ++t) {
      members.push_back(t);
      member_score.push_back(own_score(t));
    }
    std::stable_sort(members.begin(), members.end(), [&](std::size_t a, std::size_t b) {
      // stable: sequence order among equals
      return member_score[a - unit.begin] > member_score[b - unit.begin];
    });
    if (per_session > 0 && members.size() > per_session) members.resize(per_session);
    const std::string head = "session " + SessionName(layout, turns[unit.begin].session) + " #" +
                             std::to_string(position + 1) + " (" +
                             std::to_string(unit.end - unit.begin) +
                             " turns): " + ExplainUnit(sessions.Explain(unit));
    for (const std::size_t t : members) {
      if (candidates.size() >= context.limit) return candidates;
      char own_text[48];
      std::snprintf(own_text, sizeof own_text, "; own %.2f", member_score[t - unit.begin]);
      candidates.push_back({turns[t].row, session.score, head + own_text});
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
    // The turns holding an anchor term, in layout order (the others score 0).
    const GroupingScores scores = matrix.ScoreTurns(context.config->bm25);
    std::optional<std::size_t> best;
    double best_score = 0;
    for (const ScoredUnit& scored : scores.units()) {
      const std::size_t t = scored.unit.begin;
      if (scored.score <= 0 || !turns[t].event_time) continue;
      if (!best || scored.score > best_score) {
        best = t;
        best_score = scored.score;
      }
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

namespace {

// A mentioned time as explained: "2024-10-17" for one whole day, else its interval.
std::string FormatMention(const MentionedTime& time) {
  constexpr std::int64_t kDay = std::int64_t{86'400} * 1'000'000;
  std::string interval = text::FormatInterval(time.from, time.to);
  if (time.to.micros - time.from.micros == kDay && interval.find('T') == std::string::npos) {
    interval.resize(interval.find('/'));
  }
  return interval;
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
  std::optional<RecallTerms> own_terms;
  const GroupingScores& own = TermsOf(context, own_terms).Turns(nullptr);
  // A turn is found by its event time inside a window or, with [recall] temporal_mentions, by
  // a time its text names inside a window of the time constraints (the first windows; an event
  // anchor's window is open on one side and would take every named time after the event).
  constexpr std::size_t kByEventTime = std::numeric_limits<std::size_t>::max();
  struct Found {
    std::size_t turn = 0;
    std::size_t window = 0;              // the first window holding it
    std::size_t mention = kByEventTime;  // the named time that put it there, if not its time
  };
  std::vector<Found> mentioned;  // by turn, one each: its first window, then first named time
  if (context.config->recall.temporal_mentions) {
    for (std::size_t w = 0; w < context.frame->time_constraints.size(); ++w) {
      for (const TurnLayout::MentionRef& ref :
           layout.MentionsOverlapping(windows[w].from, windows[w].to)) {
        mentioned.push_back({ref.turn, w, ref.mention});
      }
    }
    std::stable_sort(mentioned.begin(), mentioned.end(),
                     [](const Found& a, const Found& b) { return a.turn < b.turn; });
    mentioned.erase(std::unique(mentioned.begin(), mentioned.end(),
                                [](const Found& a, const Found& b) { return a.turn == b.turn; }),
                    mentioned.end());
  }
  const auto mentioned_at = [&mentioned](std::size_t t) -> const Found* {
    const auto at =
        std::lower_bound(mentioned.begin(), mentioned.end(), t,
                         [](const Found& found, std::size_t turn) { return found.turn < turn; });
    return at != mentioned.end() && at->turn == t ? &*at : nullptr;
  };
  const auto candidate = [&](const Found& found, double score) {
    char own_text[48];
    std::snprintf(own_text, sizeof own_text, "; own bm25 %.2f", score);
    const LayoutTurn& turn = turns[found.turn];
    if (found.mention == kByEventTime) {
      return RouteCandidate{turn.row, score,
                            "event time " + FormatTimestamp(*turn.event_time) + " " +
                                windows[found.window].why + own_text};
    }
    const MentionedTime& time = turn.mentioned_times[found.mention];
    const std::string said =
        turn.event_time ? "; said " + FormatTimestamp(*turn.event_time) : std::string();
    return RouteCandidate{turn.row, score,
                          "mentions " + FormatMention(time) + " ('" + time.surface + "') " +
                              windows[found.window].why + said + own_text};
  };
  // The first window holding turn t's event time, if any.
  const auto window_of_time = [&](std::size_t t) -> std::optional<std::size_t> {
    if (!turns[t].event_time) return std::nullopt;
    const std::int64_t at = turns[t].event_time->micros;
    for (std::size_t w = 0; w < windows.size(); ++w) {
      const TimeWindow& window = windows[w];
      if (window.from.micros < window.to.micros && window.from.micros <= at &&
          at < window.to.micros) {
        return w;
      }
    }
    return std::nullopt;
  };
  // When at least `limit` turns inside a window score above 0, the turns that score nothing
  // cannot make the head: rank only the scored turns (the query's postings), not every turn of
  // the windows (a window open on one side holds a share of the whole scope).
  {
    struct Scored {
      Found found;
      double score = 0;
    };
    std::vector<Scored> scored;
    bool exact = true;  // no scored turn inside a window scores 0 or less
    for (const ScoredUnit& unit : own.units()) {
      const std::size_t t = unit.unit.begin;
      std::optional<Found> found;
      if (const auto w = window_of_time(t)) {
        found = Found{t, *w, kByEventTime};
      } else if (const Found* by_mention = mentioned_at(t)) {
        found = *by_mention;
      }
      if (!found) continue;
      if (unit.score <= 0) exact = false;
      scored.push_back({*found, unit.score});
    }
    if (exact && scored.size() >= context.limit) {
      const std::size_t kept = context.limit;
      std::partial_sort(scored.begin(), scored.begin() + static_cast<std::ptrdiff_t>(kept),
                        scored.end(), [](const Scored& a, const Scored& b) {
                          if (a.score != b.score) return a.score > b.score;
                          return a.found.turn < b.found.turn;
                        });
      for (std::size_t i = 0; i < kept; ++i) {
        candidates.push_back(candidate(scored[i].found, scored[i].score));
      }
      return candidates;
    }
  }
  // The turns inside some window by event time, then those naming a time inside one, each with
  // the first window holding it; by turn, a turn's event time before its named times.
  std::vector<Found> found;
  for (std::size_t w = 0; w < windows.size(); ++w) {
    for (const std::size_t t : layout.TurnsBetween(windows[w].from, windows[w].to)) {
      found.push_back({t, w, kByEventTime});
    }
  }
  const bool one_source = windows.size() == 1 && mentioned.empty();
  found.insert(found.end(), mentioned.begin(), mentioned.end());
  if (found.empty()) return candidates;
  if (!one_source) {  // one window's turns come ascending already
    std::stable_sort(found.begin(), found.end(),
                     [](const Found& a, const Found& b) { return a.turn < b.turn; });
  }
  std::vector<Found> inside;
  for (const Found& entry : found) {
    if (!inside.empty() && inside.back().turn == entry.turn) continue;
    inside.push_back(entry);
  }
  std::vector<double> own_score(inside.size(), 0.0);
  for (std::size_t i = 0; i < inside.size(); ++i) own_score[i] = own.ScoreOf(inside[i].turn);
  // The best `limit` by own score, layout order among equals (a partial sort under that total
  // order: the head a stable sort would give).
  std::vector<std::size_t> order(inside.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  const std::size_t kept = std::min(order.size(), context.limit);
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(kept), order.end(),
                    [&](std::size_t a, std::size_t b) {
                      if (own_score[a] != own_score[b]) return own_score[a] > own_score[b];
                      return a < b;
                    });
  order.resize(kept);
  for (const std::size_t i : order) candidates.push_back(candidate(inside[i], own_score[i]));
  return candidates;
}

}  // namespace engram::read
