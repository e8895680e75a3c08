// Packing, rendering and answer instructions (see packing.h).
#include "read/packing.h"

#include <algorithm>
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

std::string RenderItemLine(const RecallItem& item) {
  std::string line = "[";
  if (item.event_time) line += ShortTime(*item.event_time);
  if (!item.session_id.empty()) {
    if (item.event_time) line += " · ";
    line += item.session_id;
  }
  line += "] ";
  line += item.speaker.empty() ? std::string(RoleName(item.role)) : item.speaker;
  line += ": ";
  if (item.excerpt) {
    line += "(excerpt, bytes " + std::to_string(item.excerpt_begin) + "-" +
            std::to_string(item.excerpt_end) + " of " + std::to_string(item.full_bytes) + ") ";
  }
  // One line per item: newlines inside the text become spaces.
  for (const char c : item.text) line += (c == '\n' || c == '\r') ? ' ' : c;
  return line;
}

PackResult Pack(std::vector<RecallItem> ranked, std::size_t token_budget, std::size_t max_items,
                const PackOptions& options) {
  PackResult result;
  std::size_t used = CountTokens(kHeader);
  std::vector<std::pair<std::size_t, std::string>> lines;      // (packed index, line)
  std::set<std::string> packed_turns;                          // ids
  std::set<std::pair<std::string, std::string>> packed_texts;  // (speaker, text) of turns
  for (RecallItem& item : ranked) {
    if (result.items.size() >= max_items) break;
    const bool turn = item.kind == NodeKind::kTurn;
    const bool duplicate =
        turn ? packed_texts.contains({item.speaker, item.text})
             : !item.provenance.empty() &&
                   std::all_of(item.provenance.begin(), item.provenance.end(),
                               [&](const std::string& id) { return packed_turns.contains(id); });
    if (duplicate) {
      ++result.deduplicated;
      continue;
    }
    std::string line = RenderItemLine(item);
    std::size_t tokens = CountTokens(line);
    if (used + tokens > token_budget && turn && options.excerpt_bytes > 0 &&
        item.text.size() > options.excerpt_bytes) {
      RecallItem excerpt = ExcerptOf(item, options.excerpt_bytes, options);
      std::string excerpt_line = RenderItemLine(excerpt);
      const std::size_t excerpt_tokens = CountTokens(excerpt_line);
      if (used + excerpt_tokens <= token_budget) {
        packed_texts.emplace(item.speaker, item.text);
        item = std::move(excerpt);
        line = std::move(excerpt_line);
        tokens = excerpt_tokens;
      }
    }
    if (used + tokens > token_budget) {
      ++result.dropped_by_budget;
      continue;
    }
    used += tokens;
    item.tokens = tokens;
    if (turn) {
      packed_turns.insert(item.id);
      if (!item.excerpt) packed_texts.emplace(item.speaker, item.text);
    }
    lines.emplace_back(result.items.size(), std::move(line));
    result.items.push_back(std::move(item));
  }
  if (result.items.empty()) return result;
  const auto group_of = [&](const RecallItem& item) {
    const auto& speakers = options.group_speakers;
    return static_cast<std::size_t>(std::find(speakers.begin(), speakers.end(), item.speaker) -
                                    speakers.begin());
  };
  std::stable_sort(lines.begin(), lines.end(), [&](const auto& a, const auto& b) {
    const RecallItem& x = result.items[a.first];
    const RecallItem& y = result.items[b.first];
    if (const std::size_t gx = group_of(x), gy = group_of(y); gx != gy) return gx < gy;
    const Timestamp tx = x.event_time.value_or(Timestamp{0});
    const Timestamp ty = y.event_time.value_or(Timestamp{0});
    if (tx != ty) return tx < ty;
    if (x.scope != y.scope) return x.scope < y.scope;
    return x.sequence < y.sequence;
  });
  result.context = std::string(kHeader);
  for (const auto& [index, line] : lines) {
    result.context += '\n';
    result.context += line;
  }
  result.context_tokens = used;
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
      " Each memory starts with the date it was recorded; resolve relative dates such as "
      "\"yesterday\" or \"last week\" against that date, not against today.";
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
