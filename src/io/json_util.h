// json_util: the few things every JSON reader in engram_io needs — a nesting-depth guard that
// runs before nlohmann's parser sees hostile input, a finder of keys repeated in one object
// (nlohmann silently keeps the last), JSON parse errors turned into short messages, and type
// names for "must be a string, got array" errors. Internal to engram_io and the server's body
// parser.
#ifndef ENGRAM_IO_JSON_UTIL_H_
#define ENGRAM_IO_JSON_UTIL_H_

#include <cstddef>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "engram/status.h"

namespace engram::io::internal {

// Deepest input nesting any engram_io reader accepts (objects and arrays, counted together;
// core::JsonNestingDepth measures it).
inline constexpr std::size_t kMaxJsonDepth = 64;

// Follows nlohmann's parser-callback events and remembers the first key that appears twice in one
// object. Feed it every event (Observe) from a parser callback; after parsing, duplicate() is the
// repeated key, or empty.
class DuplicateKeyFinder {
 public:
  void Observe(nlohmann::json::parse_event_t event, const nlohmann::json& parsed);
  const std::string& duplicate() const { return duplicate_; }

 private:
  std::vector<std::set<std::string>> open_objects_;  // keys of each open object, innermost last
  std::string duplicate_;
};

// Parses `text` as JSON. Errors are kInvalidArgument: "invalid JSON: <what and where>",
// "JSON nested deeper than 64 levels", or "invalid JSON: the key "k" appears twice in one
// object". `single_line` drops the (always 1) line number.
StatusOr<nlohmann::json> ParseJson(std::string_view text, bool single_line,
                                   std::size_t max_depth = kMaxJsonDepth);

// "[json.exception.parse_error.101] parse error at line 1, column 5: syntax error ..." becomes
// "syntax error ... (line 1, column 5)"; at most ~300 bytes.
std::string DescribeJsonError(const nlohmann::json::exception& error, bool single_line);

// "string", "number", "object", ... for messages.
std::string_view JsonTypeName(const nlohmann::json& value);

// `text` cut to at most `max_bytes` bytes at a UTF-8 character boundary, "..." appended if cut.
std::string Truncate(std::string_view text, std::size_t max_bytes);

}  // namespace engram::io::internal

#endif  // ENGRAM_IO_JSON_UTIL_H_
