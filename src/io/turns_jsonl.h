// turns_jsonl: the JSONL turn format of `engram ingest --format jsonl` (and later REST bulk
// import). One JSON object per line:
//
//   {"text": "I moved to Lisbon.", "role": "user", "speaker": "Ana", "session_id": "s1",
//    "event_time": "2024-05-01T10:00:00Z", "metadata": {"source": "chat"}}
//
// Only "text" is required (a non-empty string). "role" is user | assistant | system | tool
// (default user); "speaker" and "session_id" are strings; "event_time" is an ISO-8601 string (see
// engram::ParseTimestamp); "metadata" is a JSON object, stored canonically (sorted keys). null
// means "not given" for every optional field. "idempotency_key" (a non-empty string of at most
// 256 bytes) names the turn for repeated imports and becomes Turn::idempotency_key: the engine
// stores a turn whose key the scope already holds only once. Any other field is an error, so a
// typo such as "speker" never goes unnoticed. Blank lines are skipped.
//
// Atomicity: the whole input is parsed before a caller stores anything. ParseTurnsJsonl and
// ReadTurnsJsonl return every turn or the first error, naming the 1-based line and the problem
// ("turns.jsonl line 3: \"text\" must be a non-empty string"); a caller that stores only on
// success (as `engram ingest` does) therefore stores nothing from a file with a bad line N.
#ifndef ENGRAM_IO_TURNS_JSONL_H_
#define ENGRAM_IO_TURNS_JSONL_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "engram/status.h"
#include "engram/types.h"

namespace engram::io {

struct TurnsJsonlOptions {
  // How the input is named in errors. Default: "" = the path (ReadTurnsJsonl) or "<input>".
  std::string source_name;
  // Longest "text" accepted, in bytes (engine: Config::limits.max_turn_bytes). Default: 0 = no
  // limit here; the engine still enforces its own.
  std::size_t max_text_bytes = 0;
  // Longest canonical metadata JSON accepted, in bytes (Config::limits.max_metadata_bytes).
  // Default: 0 = no limit here.
  std::size_t max_metadata_bytes = 0;
  // Deepest JSON nesting accepted on a line (the turn object itself is level 1). Default: 32.
  std::size_t max_nesting_depth = 32;
};

// Turns in input order, with the line each came from.
struct ParsedTurns {
  std::vector<Turn> turns;
  std::vector<std::size_t> line_numbers;  // 1-based; line_numbers[i] is the line of turns[i]
  std::vector<std::string> idempotency_keys;  // "idempotency_key" of turns[i], "" = not given
};

// Parses one turn object. Errors are kInvalidArgument and say what is wrong without a location
// ("\"role\" must be one of user, assistant, system, tool, got \"bot\"").
StatusOr<Turn> ParseTurnJson(std::string_view json_text, const TurnsJsonlOptions& options = {});

// ParseTurnJson, also returning the "idempotency_key" field ("" when absent) in *idempotency_key
// (may be null).
StatusOr<Turn> ParseTurnObject(std::string_view json_text, const TurnsJsonlOptions& options,
                               std::string* idempotency_key);

// Parses a whole JSONL text; all turns or the first error ("<source> line N: <problem>").
StatusOr<ParsedTurns> ParseTurnsJsonl(std::string_view text, const TurnsJsonlOptions& options = {});

// Streams `path` (plain, .zst, or "-" for stdin) line by line and parses it like
// ParseTurnsJsonl. File errors come from LineReader (kNotFound, kCorruption, ...).
StatusOr<ParsedTurns> ReadTurnsJsonl(std::string_view path, const TurnsJsonlOptions& options = {});

}  // namespace engram::io

#endif  // ENGRAM_IO_TURNS_JSONL_H_
