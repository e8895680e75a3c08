// Assembly (DESIGN §5.7): packing ranked items under a token budget, rendering the context, and
// the answer instructions of each policy (Eywa §4.6), which never enter the context.
#ifndef ENGRAM_READ_PACKING_H_
#define ENGRAM_READ_PACKING_H_

#include <string>
#include <vector>

#include "engram/options.h"
#include "engram/read_result.h"

namespace engram::read {

// One rendered line of the context for an item: "[2023-05-08 13:56 · session_1] Caroline: text".
std::string RenderItemLine(const RecallItem& item);

struct PackResult {
  std::vector<RecallItem> items;  // packed items, best first
  std::string context;
  std::size_t context_tokens = 0;
  std::size_t dropped_by_budget = 0;
  std::size_t deduplicated = 0;
};

struct PackOptions {
  // Group the context by these speakers (set when the question names several people): each one's
  // items form a block, in this order, then everyone else's; each block in time order. Empty
  // (default): one block in time order.
  std::vector<std::string> group_speakers;
};

// Takes items in rank order while they fit `token_budget` (an item that does not fit is skipped
// and later, smaller ones may still fit), at most `max_items`. Duplicates are skipped and counted
// (`deduplicated`): a turn with the same speaker and text as a packed one, and a derived item
// (a fact) whose provenance turns are all packed already, since its evidence is in the context.
// The context lists the packed items in time order (event time, then scope and sequence), grouped
// as `options` asks, under a one-line header; its CountTokens() is at most the budget.
PackResult Pack(std::vector<RecallItem> ranked, std::size_t token_budget, std::size_t max_items,
                const PackOptions& options = {});

std::string AnswerInstructions(AnswerPolicy policy);

}  // namespace engram::read

#endif  // ENGRAM_READ_PACKING_H_
