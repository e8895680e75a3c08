// api_json: JSON encodings of engram's API types, shared by `engram --json`, the REST server and
// the MCP tools so every interface speaks the same shapes.
//
//   std::cout << engram::io::Dump(engram::io::ToJson(read_result), /*pretty=*/true);
//
// Conventions: keys appear in a fixed order (the order below, not alphabetical); timestamps are
// ISO-8601 strings ("2023-05-08T13:56:00Z") or null when unset; enums are their lowercase names
// ("turn", "active", "user"); a memory's metadata is embedded as a JSON object (not a string);
// errors are {"error": {"code": "NOT_FOUND", "message": "..."}}. Output is deterministic: the
// same value always gives the same bytes.
#ifndef ENGRAM_IO_API_JSON_H_
#define ENGRAM_IO_API_JSON_H_

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "engram/engine.h"
#include "engram/options.h"
#include "engram/read_result.h"
#include "engram/status.h"
#include "engram/types.h"

namespace engram::io {

// A JSON value whose object keys keep their insertion order.
using Json = nlohmann::ordered_json;

// An ISO-8601 string, or null.
Json TimestampToJson(const std::optional<Timestamp>& time);
// The stored metadata as an object; text that is not a JSON object (or is nested deeper than
// 64 levels) is kept as a string.
Json MetadataToJson(std::string_view metadata_json);
// Stored JSON (a derived node's metadata, an edge's attributes) read as an object: {} when it is
// not one. For reading fields; MetadataToJson is for showing the metadata.
Json ParseObject(std::string_view text);
// A string field of `object`, or "" when it is absent or not a string.
std::string StringField(const Json& object, std::string_view name);

Json ToJson(const Turn& turn);
Json ToJson(const Memory& memory);
Json ToJson(const HistoryEvent& event);
Json ToJson(const RouteScore& route);
Json ToJson(const Adjustment& adjustment);
Json ToJson(const RelatedClaim& claim);
Json ToJson(const RecallItem& item);
Json ToJson(const Diagnostics& diagnostics);
Json ToJson(const Sufficiency& sufficiency);
Json ToJson(const ReadResult& result);
// A recall without how it was reached (REST and MCP without "explain"): the items keep their
// ranking and packing but lose their routes and adjustments; the diagnostics keep only their
// warnings, so a degraded recall still says so.
Json ToJsonWithoutExplanations(const ReadResult& result);
// Removes "routes" and "adjustments" from each item of a JSON array of recall items.
void DropExplanations(Json& items);
Json ToJson(const WindowTurn& turn);
Json ToJson(const ContextResult& result);
Json ToJson(const ScopeInfo& scope);
Json ToJson(const MergeProposal& proposal);
Json ToJson(const RememberResult& result);
Json ToJson(const EraseResult& result);
Json ToJson(const RebuildReport& report);

// A recall request's packing name (RecallOptions::pack_by_value): "value" → true, "rank" →
// false; anything else is InvalidArgument naming the allowed values.
StatusOr<bool> ParsePacking(std::string_view name);

// {"error": {"code": "NOT_FOUND", "message": "..."}}. An OK status gives code "OK".
Json ErrorToJson(const Status& status);

// Serialises `value`: compact on one line, or indented by two spaces when `pretty`. Never
// throws: invalid UTF-8 in a string is replaced by U+FFFD.
std::string Dump(const Json& value, bool pretty = false);

}  // namespace engram::io

#endif  // ENGRAM_IO_API_JSON_H_
