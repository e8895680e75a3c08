// Ranking features (see rank_features.h).
#include "read/rank_features.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <numeric>

namespace engram::read {
namespace {

constexpr double kMissing = std::numeric_limits<double>::quiet_NaN();
constexpr double kMicrosPerDay = 86'400.0 * 1'000'000.0;

std::vector<std::string> BuildNames() {
  std::vector<std::string> names;
  for (std::string_view route : kFeatureRoutes) {
    names.push_back(std::string(route) + "_rr");
    names.push_back(std::string(route) + "_score");
    names.push_back(std::string(route) + "_weight");
  }
  for (const char* name : {"routes", "fused_rank", "fused_ratio", "rank", "score_ratio"}) {
    names.emplace_back(name);
  }
  for (std::string_view adjustment : kFeatureAdjustments) {
    names.push_back(std::string(adjustment) + "_factor");
    names.push_back(std::string(adjustment) + "_bonus");
  }
  for (const char* name :
       {"kind", "shape", "answer_type", "tense", "names", "asked_speakers", "query_terms",
        "time_constraints", "first_person", "current", "negated", "length", "term_share",
        "idf_share", "question_share", "prev_question_share", "next_question_share",
        "best_distance", "same_session_best", "session_position", "conversation_position",
        "speaker_asked", "role_user", "digits", "capitalised", "mentioned_times", "time_match",
        "age_days"}) {
    names.emplace_back(name);
  }
  return names;
}

// Runs of ASCII digits in `text`.
double DigitRuns(std::string_view text) {
  double runs = 0;
  bool in_run = false;
  for (const char c : text) {
    const bool digit = std::isdigit(static_cast<unsigned char>(c)) != 0;
    if (digit && !in_run) ++runs;
    in_run = digit;
  }
  return runs;
}

// Words starting with an ASCII capital that do not open a sentence ("I" left out): names,
// places, titles.
double CapitalisedWords(std::string_view text) {
  double count = 0;
  bool sentence_start = true;
  std::size_t index = 0;
  while (index < text.size()) {
    const auto c = static_cast<unsigned char>(text[index]);
    if (std::isspace(c)) {
      ++index;
      continue;
    }
    const std::size_t begin = index;
    while (index < text.size() && !std::isspace(static_cast<unsigned char>(text[index]))) {
      ++index;
    }
    const std::string_view word = text.substr(begin, index - begin);
    const auto first = static_cast<unsigned char>(word.front());
    if (!sentence_start && std::isupper(first) && word != "I" && word.rfind("I'", 0) != 0) {
      ++count;
    }
    const char last = word.back();
    sentence_start = last == '.' || last == '!' || last == '?';
  }
  return count;
}

bool Overlaps(Timestamp from, Timestamp to, const TimeConstraint& constraint) {
  return from < constraint.to && constraint.from < to;
}

}  // namespace

const std::vector<std::string>& FeatureNames() {
  static const std::vector<std::string> kNames = BuildNames();
  return kNames;
}

std::vector<FeatureVector> ExtractFeatures(std::span<const Ranked> ranked, std::size_t depth,
                                           const FeatureInput& input) {
  depth = std::min(depth, ranked.size());
  std::vector<FeatureVector> rows;
  if (depth == 0) return rows;
  const QueryFrame& frame = *input.frame;
  const TurnLayout* layout = input.layout;
  const std::size_t width = FeatureNames().size();

  // Rank by the fused score alone (best first, ties by row as fusion breaks them), over the
  // whole list so a candidate's fused rank does not depend on the depth.
  std::vector<std::size_t> by_fused(ranked.size());
  std::iota(by_fused.begin(), by_fused.end(), 0);
  std::sort(by_fused.begin(), by_fused.end(), [&](std::size_t a, std::size_t b) {
    if (ranked[a].fused.fused_score != ranked[b].fused.fused_score) {
      return ranked[a].fused.fused_score > ranked[b].fused.fused_score;
    }
    return ranked[a].fused.row < ranked[b].fused.row;
  });
  std::vector<double> fused_rank(ranked.size());
  for (std::size_t rank = 0; rank < by_fused.size(); ++rank) {
    fused_rank[by_fused[rank]] = static_cast<double>(rank + 1);
  }
  const double best_fused = ranked[by_fused.front()].fused.fused_score;
  const double best_score = ranked.front().score;

  const std::span<const index::Bm25QueryTerm> terms = input.query_terms;
  double idf_total = 0;
  for (const index::Bm25QueryTerm& term : terms) idf_total += term.idf;

  // The best-ranked turn, for the distance features.
  std::optional<std::size_t> best_turn;
  if (layout != nullptr) {
    for (std::size_t index = 0; index < depth && !best_turn; ++index) {
      best_turn = layout->IndexOf(ranked[index].fused.row);
    }
  }
  const double turn_count =
      layout != nullptr ? static_cast<double>(std::max<std::size_t>(1, layout->turns().size()))
                        : 1.0;

  rows.reserve(depth);
  for (std::size_t index = 0; index < depth; ++index) {
    const Ranked& candidate = ranked[index];
    FeatureVector row;
    row.reserve(width);

    for (std::string_view route : kFeatureRoutes) {
      const auto found =
          std::find_if(candidate.fused.routes.begin(), candidate.fused.routes.end(),
                       [&](const RouteScore& score) { return score.route == route; });
      const bool proposed = found != candidate.fused.routes.end() && found->rank > 0;
      row.push_back(proposed ? 1.0 / static_cast<double>(found->rank) : 0.0);
      row.push_back(proposed ? found->score : kMissing);
      double weight = 0;
      if (input.route_weights != nullptr) {
        const auto ran = input.route_weights->find(std::string(route));
        if (ran != input.route_weights->end()) weight = ran->second;
      }
      row.push_back(weight);
    }
    double routes = 0;
    for (const RouteScore& score : candidate.fused.routes) routes += score.rank > 0 ? 1 : 0;
    row.push_back(routes);
    row.push_back(fused_rank[index]);
    row.push_back(best_fused > 0 ? candidate.fused.fused_score / best_fused : 0.0);
    row.push_back(static_cast<double>(index + 1));
    row.push_back(best_score > 0 ? candidate.score / best_score : 0.0);

    for (std::string_view name : kFeatureAdjustments) {
      double factor = 1;
      double bonus = 0;
      for (const Adjustment& adjustment : candidate.adjustments) {
        if (adjustment.name != name) continue;
        factor *= adjustment.factor;
        bonus += adjustment.bonus;
      }
      row.push_back(factor);
      row.push_back(bonus);
    }

    const store::NodeRecord* node = nullptr;
    if (input.nodes != nullptr) {
      const auto found = input.nodes->find(candidate.fused.row);
      if (found != input.nodes->end()) node = found->second;
    }
    row.push_back(node != nullptr ? static_cast<double>(node->kind) : kMissing);
    row.push_back(static_cast<double>(frame.shape));
    row.push_back(static_cast<double>(frame.answer_type));
    row.push_back(static_cast<double>(frame.tense));
    row.push_back(static_cast<double>(frame.names.size()));
    row.push_back(static_cast<double>(frame.asked_speakers.size()));
    row.push_back(static_cast<double>(terms.size()));
    row.push_back(static_cast<double>(frame.time_constraints.size()));
    row.push_back(frame.first_person ? 1.0 : 0.0);
    row.push_back(frame.current ? 1.0 : 0.0);
    row.push_back(frame.negated ? 1.0 : 0.0);

    const std::optional<std::size_t> turn =
        layout != nullptr ? layout->IndexOf(candidate.fused.row) : std::nullopt;
    const LayoutTurn* layout_turn = turn ? &layout->turns()[*turn] : nullptr;
    const std::size_t at = turn.value_or(0);
    row.push_back(layout_turn != nullptr ? static_cast<double>(layout_turn->length) : kMissing);

    double held = 0;
    double held_idf = 0;
    for (const index::Bm25QueryTerm& term : terms) {
      if (!index::AnyHolds(input.text_indexes, term.term,
                           static_cast<std::uint64_t>(candidate.fused.row))) {
        continue;
      }
      ++held;
      held_idf += term.idf;
    }
    row.push_back(terms.empty() ? kMissing : held / static_cast<double>(terms.size()));
    row.push_back(idf_total > 0 ? held_idf / idf_total : kMissing);

    if (layout_turn != nullptr) {
      const LayoutSession& session = layout->sessions()[layout_turn->session];
      row.push_back(layout_turn->question_share);
      row.push_back(at > session.begin ? layout->turns()[at - 1].question_share : 0.0);
      row.push_back(at + 1 < session.end ? layout->turns()[at + 1].question_share : 0.0);
      if (best_turn) {
        const double distance = std::abs(static_cast<double>(at) -
                                         static_cast<double>(*best_turn));
        row.push_back(distance);
        row.push_back(layout->turns()[*best_turn].session == layout_turn->session ? 1.0 : 0.0);
      } else {
        row.push_back(kMissing);
        row.push_back(kMissing);
      }
      row.push_back(static_cast<double>(at - session.begin) /
                    static_cast<double>(std::max<std::size_t>(1, session.end - session.begin)));
      row.push_back(static_cast<double>(at) / turn_count);
      const bool asked =
          std::find(frame.asked_speakers.begin(), frame.asked_speakers.end(),
                    layout_turn->speaker) != frame.asked_speakers.end();
      row.push_back(asked ? 1.0 : 0.0);
      row.push_back(layout_turn->role == Role::kUser ? 1.0 : 0.0);
    } else {
      for (int column = 0; column < 9; ++column) row.push_back(kMissing);
    }

    if (node != nullptr) {
      row.push_back(DigitRuns(node->text));
      row.push_back(CapitalisedWords(node->text));
    } else {
      row.push_back(kMissing);
      row.push_back(kMissing);
    }
    row.push_back(layout_turn != nullptr
                      ? static_cast<double>(layout_turn->mentioned_times.size())
                      : kMissing);

    const bool has_time = node != nullptr && node->event_time.has_value();
    const Timestamp time = has_time ? *node->event_time : Timestamp{};
    if (frame.time_constraints.empty()) {
      row.push_back(kMissing);
    } else {
      bool match = false;
      for (const TimeConstraint& constraint : frame.time_constraints) {
        if (has_time && Overlaps(time, Timestamp{time.micros + 1}, constraint)) match = true;
        if (layout_turn != nullptr) {
          for (const MentionedTime& mentioned : layout_turn->mentioned_times) {
            if (Overlaps(mentioned.from, mentioned.to, constraint)) match = true;
          }
        }
      }
      row.push_back(match ? 1.0 : 0.0);
    }
    row.push_back(has_time ? static_cast<double>(frame.query_time.micros - time.micros) /
                             kMicrosPerDay
                       : kMissing);
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace engram::read
