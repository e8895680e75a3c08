// The layout of a turn's analysis row (TurnAnalysisRecord), shared by the write path that
// produces it, the schema migrations that convert older stores, export / import, and the readers
// (consolidation, the active-memory run, `engram show`, the read path's answer-type adjustment).
//
// Format 1 (schema 5) is canonical JSON (keys sorted, nlohmann's dump):
//   {"content": {"divergence", "entity_count", "entity_norm", "information_density",
//                "sentiment", "sentiment_compound", "tokens"},          (absent: none computed)
//    "signals": [{"kind", "begin", "end", "value"?, "topic"?, "previous_value"?, "polarity"?,
//                 "uncertain"?, "confidence"?}, ...]}                    (text order, no repeats)
// A signal's surface is the turn's text between `begin` and `end` (byte offsets), so the text is
// stored once, in the turn. A date or time signal's `value` is its resolved interval
// "<from>/<to>" and its `topic` the granularity (text/signals.h).
//
// Format 2 (schema 7) is the same fields in bytes, written whenever it gives the format-1 JSON
// back byte for byte (TurnAnalysisRow checks by decoding; anything else stays format 1):
//   header     1 byte: bit 0 = content present (other bits 0)
//   content    1 byte: which of the seven keys are present (bit i = key i in the order above),
//              then each present key's number
//   signals    varint count, then per signal:
//     kind       varint: 1.. a name of kKinds below, 0 = the name follows as a string
//     flags      1 byte: bits 0-1 value (0 absent, 1 the text's span [begin, end), 2 a string
//                follows), 2 topic, 3 previous_value, 4 polarity, 5 uncertain present,
//                6 uncertain's value, 7 confidence
//     begin      zigzag varint, the difference from the previous signal's begin (0 first)
//     length     varint, end - begin
//     then, when flagged: value string; topic varint (1.. kTopics, 0 = a string follows);
//     previous_value string; polarity 1 byte (1 "+", 2 "-", 0 = a string follows);
//     confidence number
//   string     varint length, then the bytes
//   number     1 byte tag, then: 0 an unsigned integer (varint), 1 a negative integer n
//              (varint of -(n + 1)), 2 + d (d = 0..9) a JSON float equal to k / 10^d (zigzag
//              varint k: 0.7 is tag 3, k 7), 12 a float as its 8 IEEE-754 bytes, little-endian
// A confidence in tenths takes two bytes, a Round4 content signal three or four. The code
// tables are part of the format: new names are appended, never reordered.
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

inline constexpr int kTurnAnalysisJsonFormat = 1;
inline constexpr int kTurnAnalysisCompactFormat = 2;

// The format-1 row of one turn from the contents its analysis gave each signal (the JSON objects
// a version 4 store kept as `signal` nodes: {"turn", "kind", "surface", "begin", "end", ...,
// "from", "to", "granularity"}, and the one of kind "content"), in text order. Fields the row
// recomputes from the turn (turn, surface, from, to, granularity) are dropped; a repeated signal
// is kept once. kInvalidArgument when one is not a JSON object with a string "kind".
StatusOr<std::string> TurnAnalysisFromSignals(std::span<const std::string> signal_contents);

// The row to store for a turn whose text is `turn_text`, from its format-1 JSON: format 2 when
// those bytes decode to the same JSON byte for byte, else the JSON itself as format 1 (a key or
// type the compact form has no place for). `turn_row` is copied into the record.
TurnAnalysisRecord TurnAnalysisRow(std::int64_t turn_row, std::string json,
                                   std::string_view turn_text);

// The format-1 JSON of a stored row: as stored for format 1, rebuilt for format 2 (the turn's
// text gives the values stored as spans). kCorruption naming the turn row for a row that does not
// decode or a format this binary does not know.
StatusOr<std::string> TurnAnalysisJson(const TurnAnalysisRecord& record,
                                       std::string_view turn_text);

// Transaction::PutTurnAnalysis's check of a row's bytes: a complete format-2 row under format 2
// (every varint, string and number inside the bytes, nothing after them), a JSON object under
// any other format. kInvalidArgument saying what is wrong.
Status CheckTurnAnalysisBytes(int format, std::string_view bytes);

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

// Parses a stored row of the turn whose text is `turn_text` (format 2 keeps a value equal to the
// signal's span as the span). kCorruption naming the turn row for a format this binary does not
// know, JSON that is not the layout above, or bytes that do not decode (truncated, a varint
// running past the end or over 64 bits, a span outside the text, bytes left over).
StatusOr<TurnAnalysis> ParseTurnAnalysis(const TurnAnalysisRecord& record,
                                         std::string_view turn_text);

}  // namespace engram::store

#endif  // ENGRAM_STORE_TURN_ANALYSIS_H_
