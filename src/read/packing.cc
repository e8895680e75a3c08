// Packing, rendering and answer instructions (see packing.h).
#include "read/packing.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <utility>

namespace engram::read {
namespace {

constexpr std::string_view kHeader = "Memories (evidence from earlier conversations):";

std::string ShortTime(Timestamp time) {
  std::string iso = FormatTimestamp(time);  // 2023-05-08T13:56:00Z
  return iso.substr(0, 10) + " " + iso.substr(11, 5);
}

bool IsContinuationByte(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// `item` reduced to an excerpt of at most `max_bytes` around its query matches.
RecallItem ExcerptOf(const RecallItem& item, std::size_t max_bytes, const PackOptions& options) {
  std::vector<std::pair<std::size_t, std::size_t>> spans;
  if (options.match_spans) spans = options.match_spans(item.text);
  const auto [begin, end] = ExcerptWindow(item.text, spans, max_bytes);
  RecallItem excerpt = item;
  excerpt.text = item.text.substr(begin, end - begin);
  excerpt.excerpt = true;
  excerpt.excerpt_begin = begin;
  excerpt.excerpt_end = end;
  excerpt.full_bytes = item.text.size();
  return excerpt;
}

}  // namespace

std::string RenderItemStamp(const RecallItem& item) {
  std::string stamp = "[";
  if (item.event_time) stamp += ShortTime(*item.event_time);
  if (!item.session_id.empty()) {
    if (item.event_time) stamp += " · ";
    stamp += item.session_id;
  }
  stamp += "]";
  return stamp;
}

std::string RenderItemBody(const RecallItem& item) {
  std::string body = item.speaker.empty() ? std::string(RoleName(item.role)) : item.speaker;
  body += ": ";
  if (item.excerpt) {
    body += "(excerpt, bytes " + std::to_string(item.excerpt_begin) + "-" +
            std::to_string(item.excerpt_end) + " of " + std::to_string(item.full_bytes) + ") ";
  }
  // One line per item: newlines inside the text become spaces.
  for (const char c : item.text) body += (c == '\n' || c == '\r') ? ' ' : c;
  // What the memory holds now, beside a stale claim; what contradicts a claim (current_state.h).
  const auto date = [](const std::optional<Timestamp>& time) {
    return time.has_value() ? FormatTimestamp(*time).substr(0, 10) + ": " : std::string();
  };
  if (item.superseded_by.has_value()) {
    body += " (superseded " + date(item.superseded_by->time) + item.superseded_by->text + ")";
  }
  for (const RelatedClaim& conflict : item.conflicts) {
    body += " (contradicted " + date(conflict.time) + conflict.text + ")";
  }
  return body;
}

std::string RenderItemLine(const RecallItem& item) {
  return RenderItemStamp(item) + " " + RenderItemBody(item);
}

namespace {

// An item's line in two parts, with their token counts: the stamp its group shares and the body.
// CountTokens(stamp + " " + body) == stamp_tokens + body_tokens: the stamp ends in ']', which
// ends a word run, so the counts add.
struct Line {
  explicit Line(const RecallItem& item)
      : stamp(RenderItemStamp(item)),
        body(RenderItemBody(item)),
        stamp_tokens(CountTokens(stamp)),
        body_tokens(CountTokens(body)) {}
  std::size_t tokens() const { return stamp_tokens + body_tokens; }

  std::string stamp;
  std::string body;
  std::size_t stamp_tokens;
  std::size_t body_tokens;
};

// The state both packing modes share: the budget used, the duplicate checks, the lines. The
// context lists each group of items (same speaker block, same stamp) under one stamp line, so an
// item costs its body, plus its stamp when it opens a group.
class Packer {
 public:
  Packer(std::size_t token_budget, const PackOptions& options)
      : budget_(token_budget), options_(options), used_(CountTokens(kHeader)) {}

  bool IsDuplicate(const RecallItem& item) const {
    if (item.kind == NodeKind::kTurn) return packed_texts_.contains({item.speaker, item.text});
    return !item.provenance.empty() &&
           std::all_of(item.provenance.begin(), item.provenance.end(),
                       [&](const std::string& id) { return packed_turns_.contains(id); });
  }

  // Packs `item` (ranked at 1-based `rank`) whole, or as an excerpt when it does not fit whole
  // and options say so. Returns false, leaving nothing changed, when neither fits.
  bool TryPack(RecallItem& item, std::size_t rank, Line line) {
    const bool turn = item.kind == NodeKind::kTurn;
    std::pair<std::size_t, std::string> group{BlockOf(item), line.stamp};
    const std::size_t stamp_cost = group_sizes_.contains(group) ? 0 : line.stamp_tokens;
    if (used_ + stamp_cost + line.body_tokens > budget_ && turn && options_.excerpt_bytes > 0 &&
        item.text.size() > options_.excerpt_bytes) {
      RecallItem excerpt = ExcerptOf(item, options_.excerpt_bytes, options_);
      Line excerpt_line(excerpt);
      if (used_ + stamp_cost + excerpt_line.body_tokens <= budget_) {
        packed_texts_.emplace(item.speaker, item.text);
        item = std::move(excerpt);
        line = std::move(excerpt_line);
      }
    }
    if (used_ + stamp_cost + line.body_tokens > budget_) return false;
    used_ += stamp_cost + line.body_tokens;
    ++group_sizes_[std::move(group)];
    if (turn) {
      packed_turns_.insert(item.id);
      if (!item.excerpt) packed_texts_.emplace(item.speaker, item.text);
    }
    packed_.push_back({rank, std::move(line), std::move(item)});
    return true;
  }

  std::size_t packed_count() const { return packed_.size(); }

  // Takes out the packed non-turn items (facts) whose every evidence turn was packed after them,
  // as duplicates: value packing may take a short fact before its long turn.
  void DropCoveredItems(PackResult& result) {
    std::erase_if(packed_, [&](const Packed& packed) {
      const RecallItem& item = packed.item;
      if (item.kind == NodeKind::kTurn || !IsDuplicate(item)) return false;
      used_ -= packed.line.body_tokens;
      const auto group = group_sizes_.find({BlockOf(item), packed.line.stamp});
      if (--group->second == 0) {
        used_ -= packed.line.stamp_tokens;
        group_sizes_.erase(group);
      }
      ++result.deduplicated;
      result.unpacked.push_back({item.id, packed.rank, "duplicate"});
      return true;
    });
  }

  // The packed items best rank first, and the context in time order, grouped as options say:
  // each group's stamp on a line of its own, its items' bodies under it.
  void Finish(PackResult& result) {
    std::sort(packed_.begin(), packed_.end(),
              [](const Packed& a, const Packed& b) { return a.rank < b.rank; });
    if (packed_.empty()) return;
    std::vector<Packed*> in_time(packed_.size());
    for (std::size_t packed_idx = 0; packed_idx < packed_.size(); ++packed_idx) {
      in_time[packed_idx] = &packed_[packed_idx];
    }
    std::stable_sort(in_time.begin(), in_time.end(), [&](const Packed* a, const Packed* b) {
      const RecallItem& x = a->item;
      const RecallItem& y = b->item;
      if (const std::size_t gx = BlockOf(x), gy = BlockOf(y); gx != gy) return gx < gy;
      const Timestamp tx = x.event_time.value_or(Timestamp{0});
      const Timestamp ty = y.event_time.value_or(Timestamp{0});
      if (tx != ty) return tx < ty;
      if (x.scope != y.scope) return x.scope < y.scope;
      return x.sequence < y.sequence;
    });
    // A group's items together, where its first item falls (items of two sessions stamped with
    // the same minute may interleave in time; the group's stamp is then printed once).
    std::map<std::pair<std::size_t, std::string>, std::size_t> group_order;
    std::vector<std::pair<std::size_t, Packed*>> lines;  // (group, item), in time order
    lines.reserve(in_time.size());
    for (Packed* packed : in_time) {
      const auto group =
          group_order.try_emplace({BlockOf(packed->item), packed->line.stamp}, group_order.size());
      lines.emplace_back(group.first->second, packed);
    }
    std::stable_sort(lines.begin(), lines.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    result.context = std::string(kHeader);
    for (std::size_t line_idx = 0; line_idx < lines.size(); ++line_idx) {
      auto& [group, packed] = lines[line_idx];
      packed->item.tokens = packed->line.body_tokens;
      if (line_idx == 0 || lines[line_idx - 1].first != group) {
        result.context += '\n';
        result.context += packed->line.stamp;
        packed->item.tokens += packed->line.stamp_tokens;
      }
      result.context += '\n';
      result.context += packed->line.body;
    }
    result.context_tokens = used_;
    result.items.reserve(packed_.size());
    for (Packed& packed : packed_) result.items.push_back(std::move(packed.item));
  }

 private:
  struct Packed {
    std::size_t rank;
    Line line;
    RecallItem item;
  };

  // The speaker block an item's line goes in: the index of its speaker in group_speakers, or
  // their count (everyone else).
  std::size_t BlockOf(const RecallItem& item) const {
    const auto& speakers = options_.group_speakers;
    return static_cast<std::size_t>(std::find(speakers.begin(), speakers.end(), item.speaker) -
                                    speakers.begin());
  }

  std::size_t budget_;
  const PackOptions& options_;
  std::size_t used_;
  std::vector<Packed> packed_;
  std::map<std::pair<std::size_t, std::string>, std::size_t> group_sizes_;  // items per group
  std::set<std::string> packed_turns_;                                      // ids
  std::set<std::pair<std::string, std::string>> packed_texts_;  // (speaker, text) of turns
};

void PackByRank(std::vector<RecallItem>& ranked, std::size_t max_items, Packer& packer,
                PackResult& result) {
  std::size_t rank = 0;
  for (RecallItem& item : ranked) {
    ++rank;
    if (packer.packed_count() >= max_items) break;
    if (packer.IsDuplicate(item)) {
      ++result.deduplicated;
      result.unpacked.push_back({item.id, rank, "duplicate"});
      continue;
    }
    if (!packer.TryPack(item, rank, Line(item))) {
      ++result.dropped_by_budget;
      result.unpacked.push_back({item.id, rank, "budget"});
    }
  }
}

void PackByValue(std::vector<RecallItem>& ranked, std::size_t max_items,
                 const PackOptions& options, Packer& packer, PackResult& result) {
  struct Candidate {
    std::size_t rank;  // 1-based
    Line line;
    bool first = false;  // the best item: packed first
    double gain = 0;     // adjacency gain from packed neighbours
    bool open = true;
  };
  const double best = ranked.empty() ? 0.0 : ranked.front().score;
  const double floor = best > 0 ? options.floor * best : -std::numeric_limits<double>::infinity();
  std::vector<Candidate> candidates;
  for (std::size_t item_idx = 0; item_idx < ranked.size(); ++item_idx) {
    const RecallItem& item = ranked[item_idx];
    // A route's best candidate is exempt: fusion favours items that several routes propose, so
    // the only route that knows an item (a fact from the facts route) must still reach the context.
    const bool route_best = std::any_of(item.routes.begin(), item.routes.end(),
                                        [](const RouteScore& route) { return route.rank == 1; });
    if (item.score < floor && !route_best) {
      result.unpacked.push_back({item.id, item_idx + 1, "floor"});
      continue;
    }
    candidates.push_back({item_idx + 1, Line(item), item_idx == 0});
  }
  // The floor's entries so far are in rank order; the picks' (duplicate, budget) come next.
  const std::size_t floor_end = result.unpacked.size();
  const auto session_of = [&](const RecallItem& item) {
    return item.session_id.empty() ? std::string() : item.scope + '\x1f' + item.session_id;
  };
  std::map<std::string, std::size_t> packed_per_session;
  const auto value_of = [&](const Candidate& candidate) {
    const RecallItem& item = ranked[candidate.rank - 1];
    double value = item.score;
    if (options.session_discount > 0) {
      const std::string session = session_of(item);
      if (!session.empty()) {
        const auto found = packed_per_session.find(session);
        const double packed = found == packed_per_session.end() ? 0.0 : found->second;
        value /= 1.0 + options.session_discount * packed;
      }
    }
    value += candidate.gain;
    if (options.score_power != 1.0 && best > 0) {
      value = best * std::pow(std::max(0.0, value) / best, options.score_power);
    }
    return value;
  };
  // Takes `pick` out of the candidates and packs it (whole, else as an excerpt, Packer::TryPack)
  // unless it is a duplicate or does not fit.
  const auto take = [&](Candidate* pick) {
    pick->open = false;
    RecallItem& item = ranked[pick->rank - 1];
    if (packer.IsDuplicate(item)) {
      ++result.deduplicated;
      result.unpacked.push_back({item.id, pick->rank, "duplicate"});
      return;
    }
    const std::string id = item.id;
    const std::string session = session_of(item);
    const bool turn = item.kind == NodeKind::kTurn;
    const std::string scope = item.scope;
    const std::string session_id = item.session_id;
    const std::int64_t sequence = item.sequence;
    const double score = item.score;
    if (!packer.TryPack(item, pick->rank, std::move(pick->line))) {
      ++result.dropped_by_budget;
      result.unpacked.push_back({id, pick->rank, "budget"});
      return;
    }
    if (!session.empty()) ++packed_per_session[session];
    if (turn && options.adjacent_share > 0 && !session_id.empty()) {
      for (Candidate& candidate : candidates) {
        if (!candidate.open) continue;
        const RecallItem& other = ranked[candidate.rank - 1];
        if (other.kind == NodeKind::kTurn && other.scope == scope &&
            other.session_id == session_id &&
            (other.sequence == sequence + 1 || other.sequence + 1 == sequence)) {
          candidate.gain = std::max(candidate.gain, options.adjacent_share * score);
        }
      }
    }
  };
  // First the best item, whatever its value per token: a long best match would otherwise come
  // after every short line of some value and be left out by k (issue 37); too long for the
  // budget, it is packed as its excerpt. (Each route's first item packed ahead as well spent the
  // budget on long weak turns: LongMemEval dev evidence all 1.000 -> 0.959.)
  for (Candidate& candidate : candidates) {
    if (packer.packed_count() >= max_items) break;
    if (candidate.first) take(&candidate);
  }
  // Then the rest by value per token.
  const double min_tokens = static_cast<double>(std::max<std::size_t>(1, options.min_tokens));
  while (packer.packed_count() < max_items) {
    Candidate* pick = nullptr;
    double pick_density = 0;
    for (Candidate& candidate : candidates) {
      if (!candidate.open) continue;
      const double density =
          value_of(candidate) / std::max(min_tokens, static_cast<double>(candidate.line.tokens()));
      if (pick == nullptr || density > pick_density) {  // ties: the earlier (better) rank
        pick = &candidate;
        pick_density = density;
      }
    }
    if (pick == nullptr) break;
    take(pick);
  }
  packer.DropCoveredItems(result);
  // By rank (each item is listed once, so ranks are distinct): the floor's entries and the
  // candidates left open are in rank order already; only the picks left out, at most k plus the
  // duplicates met, are sorted, then the three runs are merged.
  const auto by_rank = [](const UnpackedItem& a, const UnpackedItem& b) { return a.rank < b.rank; };
  std::vector<UnpackedItem>& unpacked = result.unpacked;
  const auto picks_begin = unpacked.begin() + static_cast<std::ptrdiff_t>(floor_end);
  std::sort(picks_begin, unpacked.end(), by_rank);
  std::inplace_merge(unpacked.begin(), picks_begin, unpacked.end(), by_rank);
  const std::size_t taken_end = unpacked.size();
  for (const Candidate& candidate : candidates) {
    if (candidate.open) unpacked.push_back({ranked[candidate.rank - 1].id, candidate.rank, "k"});
  }
  std::inplace_merge(unpacked.begin(), unpacked.begin() + static_cast<std::ptrdiff_t>(taken_end),
                     unpacked.end(), by_rank);
}

}  // namespace

PackResult Pack(std::vector<RecallItem> ranked, std::size_t token_budget, std::size_t max_items,
                const PackOptions& options) {
  PackResult result;
  Packer packer(token_budget, options);
  if (options.by_value) {
    PackByValue(ranked, max_items, options, packer, result);
  } else {
    PackByRank(ranked, max_items, packer, result);
  }
  packer.Finish(result);
  return result;
}

std::pair<std::size_t, std::size_t> ExcerptWindow(
    std::string_view text, std::span<const std::pair<std::size_t, std::size_t>> spans,
    std::size_t max_bytes) {
  const std::size_t size = text.size();
  if (size <= max_bytes) return {0, size};
  // The densest run: for each span as the first, how many following spans end inside the window.
  std::size_t best_first = 0, best_last = 0, best_count = 0;
  for (std::size_t first = 0; first < spans.size(); ++first) {
    std::size_t last = first;
    while (last + 1 < spans.size() && spans[last + 1].second <= spans[first].first + max_bytes) {
      ++last;
    }
    const bool fits = spans[first].second - spans[first].first <= max_bytes;
    if (fits && last - first + 1 > best_count) {
      best_count = last - first + 1;
      best_first = first;
      best_last = last;
    }
  }
  std::size_t begin = 0;
  if (best_count > 0) {
    const std::size_t covered = spans[best_last].second - spans[best_first].first;
    const std::size_t slack = max_bytes - covered;
    begin = spans[best_first].first - std::min(spans[best_first].first, slack / 2);
    begin = std::min(begin, size - max_bytes);
  }
  std::size_t end = begin + max_bytes;
  // Whole characters only: the begin moves forward and the end back to a character start.
  while (begin < end && IsContinuationByte(text[begin])) ++begin;
  while (end > begin && end < size && IsContinuationByte(text[end])) --end;
  return {begin, end};
}

std::string AnswerInstructions(AnswerPolicy policy) {
  constexpr std::string_view kDates =
      " Memories are listed under the date they were recorded (in brackets, with their "
      "session); resolve relative dates such as \"yesterday\" or \"last week\" against that "
      "date, not against today.";
  std::string text;
  switch (policy) {
    case AnswerPolicy::kStrict:
      text =
          "Answer only from what the memories state directly. If they do not state the answer, "
          "say that you do not know. Do not guess and do not use outside knowledge.";
      break;
    case AnswerPolicy::kBalanced:
      text =
          "Answer from the memories. You may draw clear implications from one strong memory or "
          "from several consistent ones, but do not add outside knowledge. If the memories do "
          "not support an answer, say so.";
      break;
    case AnswerPolicy::kAdvanced:
      text =
          "Use the memories as your evidence. You may reason cautiously beyond them and bridge "
          "with ordinary common knowledge when the memories give specific support; say when an "
          "answer is an inference rather than stated.";
      break;
  }
  text += kDates;
  return text;
}

}  // namespace engram::read
