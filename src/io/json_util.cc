// json_util: parse-error messages and type names for engram_io's JSON readers.
#include "io/json_util.h"

#include "core/json_depth.h"

namespace engram::io::internal {

std::string Truncate(std::string_view text, std::size_t max_bytes) {
  if (text.size() <= max_bytes) return std::string(text);
  std::size_t cut = max_bytes;
  // Back up to the start of a UTF-8 character (continuation bytes are 10xxxxxx).
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return std::string(text.substr(0, cut)) + "...";
}

std::string DescribeJsonError(const nlohmann::json::exception& error, bool single_line) {
  std::string_view what = error.what();
  // Drop "[json.exception.parse_error.101] ".
  if (const std::size_t bracket = what.find("] "); bracket != std::string_view::npos) {
    what.remove_prefix(bracket + 2);
  }
  std::string where;
  constexpr std::string_view kParseErrorAt = "parse error at ";
  if (what.substr(0, kParseErrorAt.size()) == kParseErrorAt) {
    what.remove_prefix(kParseErrorAt.size());
    const std::size_t colon = what.find(": ");
    if (colon != std::string_view::npos) {
      where = std::string(what.substr(0, colon));
      what.remove_prefix(colon + 2);
    }
    if (single_line && where.substr(0, 8) == "line 1, ") where.erase(0, 8);
  } else if (what.substr(0, 13) == "parse error: ") {
    what.remove_prefix(13);
  }
  std::string message = Truncate(what, 240);
  if (!where.empty()) message += " (" + where + ")";
  return message;
}

StatusOr<nlohmann::json> ParseJson(std::string_view text, bool single_line, std::size_t max_depth) {
  if (core::JsonNestingDepth(text, max_depth) > max_depth) {
    return Status::InvalidArgument("JSON nested deeper than " + std::to_string(max_depth) +
                                   " levels");
  }
  DuplicateKeyFinder duplicates;
  nlohmann::json value;
  try {
    value = nlohmann::json::parse(text, [&duplicates](int /*depth*/,
                                                      nlohmann::json::parse_event_t event,
                                                      nlohmann::json& parsed) {
      duplicates.Observe(event, parsed);
      return true;
    });
  } catch (const nlohmann::json::exception& error) {
    return Status::InvalidArgument("invalid JSON: " + DescribeJsonError(error, single_line));
  } catch (const std::exception& error) {
    return Status::InvalidArgument(std::string("invalid JSON: ") + error.what());
  }
  if (!duplicates.duplicate().empty()) {
    return Status::InvalidArgument("invalid JSON: the key \"" + Truncate(duplicates.duplicate(), 64) +
                                   "\" appears twice in one object");
  }
  return value;
}

void DuplicateKeyFinder::Observe(nlohmann::json::parse_event_t event,
                                 const nlohmann::json& parsed) {
  switch (event) {
    case nlohmann::json::parse_event_t::object_start:
      open_objects_.emplace_back();
      break;
    case nlohmann::json::parse_event_t::object_end:
      if (!open_objects_.empty()) open_objects_.pop_back();
      break;
    case nlohmann::json::parse_event_t::key:
      if (!open_objects_.empty() && duplicate_.empty() && parsed.is_string() &&
          !open_objects_.back().insert(parsed.get<std::string>()).second) {
        duplicate_ = parsed.get<std::string>();
      }
      break;
    default:
      break;
  }
}

std::string_view JsonTypeName(const nlohmann::json& value) {
  switch (value.type()) {
    case nlohmann::json::value_t::null:
      return "null";
    case nlohmann::json::value_t::object:
      return "an object";
    case nlohmann::json::value_t::array:
      return "an array";
    case nlohmann::json::value_t::string:
      return "a string";
    case nlohmann::json::value_t::boolean:
      return "a boolean";
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned:
    case nlohmann::json::value_t::number_float:
      return "a number";
    case nlohmann::json::value_t::binary:
      return "binary data";
    case nlohmann::json::value_t::discarded:
      return "nothing";
  }
  return "unknown";
}

}  // namespace engram::io::internal
