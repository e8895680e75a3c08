// Packing, rendering and answer instructions (see packing.h).
#include "read/packing.h"

#include <algorithm>
#include <set>
#include <utility>

namespace engram::read {
namespace {

constexpr std::string_view kHeader = "Memories (evidence from earlier conversations):";

std::string ShortTime(Timestamp time) {
  std::string iso = FormatTimestamp(time);  // 2023-05-08T13:56:00Z
  return iso.substr(0, 10) + " " + iso.substr(11, 5);
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
    const std::size_t tokens = CountTokens(line);
    if (used + tokens > token_budget) {
      ++result.dropped_by_budget;
      continue;
    }
    used += tokens;
    item.tokens = tokens;
    if (turn) {
      packed_turns.insert(item.id);
      packed_texts.emplace(item.speaker, item.text);
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
