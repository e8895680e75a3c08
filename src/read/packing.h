// Assembly (DESIGN §5.7): packing ranked items under a token budget, rendering the context, and
// the answer instructions of each policy (Eywa §4.6), which never enter the context.
#ifndef ENGRAM_READ_PACKING_H_
#define ENGRAM_READ_PACKING_H_

#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engram/options.h"
#include "engram/read_result.h"

namespace engram::read {

// An item's line stands alone as "[2023-05-08 13:56 · session_1] Caroline: text" (the window of
// Engine::Context lists turns so). In a packed context the stamp "[2023-05-08 13:56 · session_1]"
// ("[]" without time and session) heads a group and each item's body "Caroline: text" (an
// excerpt's marked as such; newlines as spaces) follows on a line of its own.
std::string RenderItemLine(const RecallItem& item);
std::string RenderItemStamp(const RecallItem& item);
std::string RenderItemBody(const RecallItem& item);

struct PackResult {
  std::vector<RecallItem> items;  // packed items, best first
  std::string context;
  std::size_t context_tokens = 0;
  std::size_t dropped_by_budget = 0;
  std::size_t deduplicated = 0;
  // Items examined and left out, best first, with why (Diagnostics::unpacked).
  std::vector<UnpackedItem> unpacked;
};

struct PackOptions {
  // Group the context by these speakers (set when the question names several people): each one's
  // items form a block, in this order, then everyone else's; each block in time order. Empty
  // (default): one block in time order.
  std::vector<std::string> group_speakers;
  // A turn whose line does not fit what is left of the budget and whose text is longer than
  // this is packed as an excerpt of at most this many bytes (RecallItem::excerpt) around the
  // densest run of `match_spans` (else from its start), if the excerpt fits. Default: 0 = never.
  std::size_t excerpt_bytes = 0;
  // The byte spans [begin, end) of a text that match the query, in text order; null = none.
  std::function<std::vector<std::pair<std::size_t, std::size_t>>(std::string_view)> match_spans;

  // Value packing (issue 22; [recall] pack_*). false (default): items in rank order while they
  // fit, at most max_items. true: see Pack.
  bool by_value = false;
  // Items scoring below this × the best item's score are left out ("floor"), unless some route
  // ranked them first. In [0, 1].
  double floor = 0;
  // An item's value is divided by 1 + this × the items already packed from its session (same
  // scope and session id; items without a session are never discounted). 0 = off.
  double session_discount = 0;
  // A turn next to a packed turn (same scope and session, sequence ± 1) gains this × the
  // packed turn's score (the largest such gain counts). 0 = off.
  double adjacent_share = 0;
  // Value per token divides by max(the item's tokens, this). At least 1.
  std::size_t min_tokens = 1;
  // The value, relative to the best item's score, is raised to this power before it is divided
  // by the tokens: value per token = best × (value / best)^score_power / max(tokens,
  // min_tokens). Above 1 a strong item's score weighs more against a short line's length.
  // 1 (default) = value per token as it is.
  double score_power = 1.0;
};

// The window [begin, end) of at most `max_bytes` bytes of `text` that holds the most of `spans`
// (sorted [begin, end) byte spans; ties: the earliest), widened evenly around them, on UTF-8
// character boundaries; [0, min(size, max_bytes)) when no span fits.
std::pair<std::size_t, std::size_t> ExcerptWindow(
    std::string_view text, std::span<const std::pair<std::size_t, std::size_t>> spans,
    std::size_t max_bytes);

// Rank packing (options.by_value false): takes items in rank order while they fit
// `token_budget` (an item that does not fit is skipped, or excerpted as `options` says, and
// later, smaller ones may still fit), at most `max_items`.
// Value packing (options.by_value true): the candidates are the items scoring at least
// options.floor × the best score, and every route's first candidate (`ranked` is best first; the
// rest are left out as "floor").
// First the best item is taken whatever its value per token, so a long best match is never
// crowded out by short weak lines (issue 37): whole if it fits, else as an excerpt as options
// say, else left out ("budget").
// Then, repeatedly, the candidate of most value per token is taken — value = score / (1 +
// session_discount × packed items of its session) + adjacent_share × the best score of a packed
// turn next to it, per token = value / max(its tokens, min_tokens), the value first taken to
// `score_power` relative to the best score (see PackOptions); ties go to the better rank —
// and packed if it fits (or its excerpt fits), else left out ("budget"), until max_items are
// packed or no candidate is left (those not taken are left out as "k"). Deterministic: the
// order of `ranked` (score, then id) decides every tie. The packed items are returned in rank
// order.
// Both modes:
// Duplicates are skipped and counted (`deduplicated`): a turn with the same speaker and text as a
// packed one, and a derived item (a fact) whose provenance turns are all packed already, since
// its evidence is in the context.
// The context lists the packed items in time order (event time, then scope and sequence), in
// speaker blocks as `options` asks, under a one-line header. Items of one block that share a
// stamp form a group (a session's turns, at the minute their session is dated): the stamp is
// written once, on its own line, before the group's bodies, where the group's first item falls.
// The budget charges what the context costs: an item's body, and its stamp when it opens a group
// (RecallItem::tokens says so per item); context_tokens == CountTokens(context) <= the budget.
PackResult Pack(std::vector<RecallItem> ranked, std::size_t token_budget, std::size_t max_items,
                const PackOptions& options = {});

std::string AnswerInstructions(AnswerPolicy policy);

}  // namespace engram::read

#endif  // ENGRAM_READ_PACKING_H_
