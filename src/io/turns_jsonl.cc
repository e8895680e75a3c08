// turns_jsonl: parses JSONL turns, one object per line, all-or-nothing.
#include "io/turns_jsonl.h"

#include <memory>
#include <utility>

#include "core/json_depth.h"
#include "core/utf8.h"
#include "io/file_reader.h"
#include "io/json_util.h"

namespace engram::io {
namespace {

using nlohmann::json;

constexpr std::string_view kFields =
    "text, role, speaker, session_id, event_time, metadata, idempotency_key";
constexpr std::size_t kMaxIdempotencyKeyBytes = 256;

Status FieldMustBe(std::string_view field, std::string_view expected, const json& value) {
  return Status::InvalidArgument("\"" + std::string(field) + "\" must be " + std::string(expected) +
                                 ", got " + std::string(internal::JsonTypeName(value)));
}

// An optional string field; null and absent leave *out unchanged.
Status OptionalString(const json& object, std::string_view field, std::string* out) {
  const auto it = object.find(field);
  if (it == object.end() || it->is_null()) return Status::Ok();
  if (!it->is_string()) return FieldMustBe(field, "a string", *it);
  *out = it->get<std::string>();
  return Status::Ok();
}

bool IsBlankLine(std::string_view line) {
  for (const char c : line) {
    if (c != ' ' && c != '\t' && c != '\r' && c != '\f' && c != '\v') return false;
  }
  return true;
}

// Parses one non-blank line and prefixes errors with "<source> line N: ".
Status ParseLine(std::string_view line, std::size_t line_number, const std::string& source,
                 const TurnsJsonlOptions& options, ParsedTurns* parsed) {
  std::string idempotency_key;
  StatusOr<Turn> turn = ParseTurnObject(line, options, &idempotency_key);
  if (!turn.ok()) {
    return Status(turn.status().code(),
                  source + " line " + std::to_string(line_number) + ": " + turn.status().message());
  }
  parsed->turns.push_back(*std::move(turn));
  parsed->line_numbers.push_back(line_number);
  parsed->idempotency_keys.push_back(std::move(idempotency_key));
  return Status::Ok();
}

}  // namespace

StatusOr<Turn> ParseTurnJson(std::string_view json_text, const TurnsJsonlOptions& options) {
  return ParseTurnObject(json_text, options, nullptr);
}

StatusOr<Turn> ParseTurnObject(std::string_view json_text, const TurnsJsonlOptions& options,
                               std::string* idempotency_key) {
  if (const auto bad_byte = core::FindInvalidUtf8(json_text); bad_byte.has_value()) {
    return Status::InvalidArgument("invalid UTF-8 at byte " + std::to_string(*bad_byte + 1));
  }
  ASSIGN_OR_RETURN(const json object,
                   internal::ParseJson(json_text, /*single_line=*/true, options.max_nesting_depth));
  if (!object.is_object()) {
    return Status::InvalidArgument("expected a JSON object (a turn), got " +
                                   std::string(internal::JsonTypeName(object)));
  }
  for (const auto& [key, value] : object.items()) {
    if (key != "text" && key != "role" && key != "speaker" && key != "session_id" &&
        key != "event_time" && key != "metadata" && key != "idempotency_key") {
      return Status::InvalidArgument("unknown field \"" + internal::Truncate(key, 64) +
                                     "\" (a turn has " + std::string(kFields) + ")");
    }
  }

  Turn turn;
  const auto text = object.find("text");
  if (text == object.end()) {
    return Status::InvalidArgument("\"text\" is missing (every turn needs a non-empty string)");
  }
  if (!text->is_string() || core::IsBlank(text->get_ref<const std::string&>())) {
    return Status::InvalidArgument("\"text\" must be a non-empty string");
  }
  turn.text = text->get<std::string>();
  if (options.max_text_bytes > 0 && turn.text.size() > options.max_text_bytes) {
    return Status::InvalidArgument(
        "\"text\" is " + std::to_string(turn.text.size()) + " bytes, more than the limit of " +
        std::to_string(options.max_text_bytes) + " (limits.max_turn_bytes)");
  }

  std::string role = "user";
  RETURN_IF_ERROR(OptionalString(object, "role", &role));
  StatusOr<Role> parsed_role = ParseRole(role);
  if (!parsed_role.ok()) {
    return Status::InvalidArgument("\"role\" must be one of user, assistant, system, tool; got \"" +
                                   internal::Truncate(role, 64) + "\"");
  }
  turn.role = *parsed_role;

  RETURN_IF_ERROR(OptionalString(object, "speaker", &turn.speaker));
  RETURN_IF_ERROR(OptionalString(object, "session_id", &turn.session_id));

  if (const auto time = object.find("event_time"); time != object.end() && !time->is_null()) {
    if (!time->is_string()) return FieldMustBe("event_time", "an ISO-8601 string", *time);
    StatusOr<Timestamp> parsed_time = ParseTimestamp(time->get_ref<const std::string&>());
    if (!parsed_time.ok()) {
      return Status::InvalidArgument("bad \"event_time\": " + parsed_time.status().message());
    }
    turn.event_time = *parsed_time;
  }

  std::string key;
  RETURN_IF_ERROR(OptionalString(object, "idempotency_key", &key));
  if (object.contains("idempotency_key") && !object["idempotency_key"].is_null() &&
      (core::IsBlank(key) || key.size() > kMaxIdempotencyKeyBytes)) {
    return Status::InvalidArgument("\"idempotency_key\" must be a non-empty string of at most " +
                                   std::to_string(kMaxIdempotencyKeyBytes) + " bytes");
  }
  turn.idempotency_key = key;
  if (idempotency_key != nullptr) *idempotency_key = std::move(key);

  if (const auto metadata = object.find("metadata");
      metadata != object.end() && !metadata->is_null()) {
    if (!metadata->is_object()) return FieldMustBe("metadata", "a JSON object", *metadata);
    // The parser has read such an integer as a double (rounded); the other fields are strings by
    // now, so an integer literal in the line is in the metadata.
    if (const auto big = core::FindJsonIntegerBeyond64Bits(json_text)) {
      return Status::InvalidArgument(
          "\"metadata\" holds the integer " + internal::Truncate(*big, 64) +
          ", outside the 64-bit range [-2^63, 2^64 - 1]; write it as a string to keep it exactly");
    }
    turn.metadata_json = metadata->dump();  // nlohmann::json objects are key-sorted
    if (options.max_metadata_bytes > 0 && turn.metadata_json.size() > options.max_metadata_bytes) {
      return Status::InvalidArgument(
          "\"metadata\" is " + std::to_string(turn.metadata_json.size()) +
          " bytes, more than the limit of " + std::to_string(options.max_metadata_bytes) +
          " (limits.max_metadata_bytes)");
    }
  }
  return turn;
}

StatusOr<ParsedTurns> ParseTurnsJsonl(std::string_view text, const TurnsJsonlOptions& options) {
  const std::string source = options.source_name.empty() ? "<input>" : options.source_name;
  ParsedTurns parsed;
  std::size_t line_number = 0;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++line_number;
    if (line_number == 1 && line.substr(0, 3) == "\xEF\xBB\xBF") line.remove_prefix(3);
    if (IsBlankLine(line)) continue;
    RETURN_IF_ERROR(ParseLine(line, line_number, source, options, &parsed));
  }
  return parsed;
}

StatusOr<ParsedTurns> ReadTurnsJsonl(std::string_view path, const TurnsJsonlOptions& options) {
  ASSIGN_OR_RETURN(std::unique_ptr<LineReader> reader, LineReader::Open(path));
  const std::string source = options.source_name.empty() ? reader->name() : options.source_name;
  ParsedTurns parsed;
  std::string line;
  while (true) {
    ASSIGN_OR_RETURN(const bool got_line, reader->Next(&line));
    if (!got_line) break;
    if (IsBlankLine(line)) continue;
    RETURN_IF_ERROR(ParseLine(line, reader->line_number(), source, options, &parsed));
  }
  return parsed;
}

}  // namespace engram::io
