// The layout of a turn's analysis row (TurnAnalysisRecord, schema v5), shared by the write path
// that produces it, the schema migration that converts a version 4 store's signal nodes into it,
// and the readers (consolidation, the active-memory run, `engram show`, the read path's
// answer-type adjustment).
//
// Format 1 is canonical JSON (keys sorted, nlohmann's dump):
//   {"content": {"divergence", "entity_count", "entity_norm", "information_density",
//                "sentiment", "sentiment_compound", "tokens"},          (absent: none computed)
//    "signals": [{"kind", "begin", "end", "value"?, "topic"?, "previous_value"?, "polarity"?,
//                 "uncertain"?, "confidence"?}, ...]}                    (text order, no repeats)
// A signal's surface is the turn's text between `begin` and `end` (byte offsets), so the text is
// stored once, in the turn. A date or time signal's `value` is its resolved interval
// "<from>/<to>" and its `topic` the granularity (text/signals.h).
#ifndef ENGRAM_STORE_TURN_ANALYSIS_H_
#define ENGRAM_STORE_TURN_ANALYSIS_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engram/status.h"
#include "store/store.h"

namespace engram::store {

inline constexpr int kTurnAnalysisFormat = 1;

// The format-1 row of one turn from the contents its analysis gave each signal (the JSON objects
// a version 4 store kept as `signal` nodes: {"turn", "kind", "surface", "begin", "end", ...,
// "from", "to", "granularity"}, and the one of kind "content"), in text order. Fields the row
// recomputes from the turn (turn, surface, from, to, granularity) are dropped; a repeated signal
// is kept once. kInvalidArgument when one is not a JSON object with a string "kind".
StatusOr<std::string> TurnAnalysisFromSignals(std::span<const std::string> signal_contents);

// One signal of a parsed row.
struct AnalysedSignal {
  std::string kind;  // text::SignalKindName: "date", "person", "preference", ...
  std::uint32_t begin = 0;
  std::uint32_t end = 0;
  std::string value;
  std::string topic;
  std::string previous_value;
  std::string polarity;  // "" when none
  bool uncertain = false;
  double confidence = 1.0;
  // A resolved date or time: the two halves of value "<from>/<to>"; "" otherwise.
  std::string from;
  std::string to;

  // The turn's text in [begin, end), "" when the span does not fit the text.
  std::string_view Surface(std::string_view turn_text) const;
};

// DMF's content signals of a parsed row (write/analysis_content.h).
struct AnalysedContent {
  double information_density = 0;
  double sentiment = 0;
  double sentiment_compound = 0;
  std::int64_t entity_count = 0;
  double entity_norm = 0;
  double divergence = 0;
  std::int64_t tokens = 0;
};

struct TurnAnalysis {
  std::vector<AnalysedSignal> signals;
  std::optional<AnalysedContent> content;
};

// Parses a stored row. kCorruption naming the turn row for a format this binary does not know or
// JSON that is not the layout above.
StatusOr<TurnAnalysis> ParseTurnAnalysis(const TurnAnalysisRecord& record);

}  // namespace engram::store

#endif  // ENGRAM_STORE_TURN_ANALYSIS_H_
