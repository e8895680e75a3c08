// Capture: turn validation and storage (see capture.h).
#include "write/capture.h"

#include <nlohmann/json.hpp>

#include "core/ids.h"
#include "core/json_depth.h"
#include "core/utf8.h"
#include "store/backend_common.h"

namespace engram::write {
namespace {

Status CheckLabel(std::string_view value, std::string_view what, std::size_t max_bytes) {
  if (value.size() > max_bytes) {
    return Status::InvalidArgument(std::string(what) + " is " + std::to_string(value.size()) +
                                   " bytes; at most " + std::to_string(max_bytes) + " are allowed");
  }
  if (auto bad = core::FindInvalidUtf8(value)) {
    return Status::InvalidArgument(std::string(what) + " is not valid UTF-8 (byte " +
                                   std::to_string(*bad) + ")");
  }
  for (const char c : value) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) {
      return Status::InvalidArgument(std::string(what) + " contains a control character");
    }
  }
  return Status::Ok();
}

}  // namespace

StatusOr<std::string> ValidateTurn(const Turn& turn, const LimitsConfig& limits) {
  if (turn.text.size() > limits.max_turn_bytes) {
    return Status::InvalidArgument("text is " + std::to_string(turn.text.size()) +
                                   " bytes; at most " + std::to_string(limits.max_turn_bytes) +
                                   " are allowed ([limits] max_turn_bytes)");
  }
  if (auto bad = core::FindInvalidUtf8(turn.text)) {
    return Status::InvalidArgument("text is not valid UTF-8 (byte " + std::to_string(*bad) + ")");
  }
  if (core::IsBlank(turn.text)) return Status::InvalidArgument("text is empty");
  if (turn.text.find('\0') != std::string::npos) {
    return Status::InvalidArgument("text contains a NUL character");
  }
  RETURN_IF_ERROR(CheckLabel(turn.speaker, "speaker", kMaxSpeakerBytes));
  RETURN_IF_ERROR(CheckLabel(turn.session_id, "session_id", kMaxSessionIdBytes));
  RETURN_IF_ERROR(CheckLabel(turn.idempotency_key, "idempotency_key", kMaxIdempotencyKeyBytes));
  if (!turn.idempotency_key.empty() && core::IsBlank(turn.idempotency_key)) {
    return Status::InvalidArgument("idempotency_key is blank");
  }

  const std::string_view metadata =
      turn.metadata_json.empty() ? std::string_view("{}") : std::string_view(turn.metadata_json);
  if (metadata.size() > limits.max_metadata_bytes) {
    return Status::InvalidArgument("metadata is " + std::to_string(metadata.size()) +
                                   " bytes; at most " + std::to_string(limits.max_metadata_bytes) +
                                   " are allowed");
  }
  if (auto bad = core::FindInvalidUtf8(metadata)) {
    return Status::InvalidArgument("metadata is not valid UTF-8 (byte " + std::to_string(*bad) +
                                   ")");
  }
  if (core::JsonNestingDepth(metadata, kMaxMetadataDepth) > kMaxMetadataDepth) {
    return Status::InvalidArgument("metadata nests deeper than " +
                                   std::to_string(kMaxMetadataDepth) + " levels");
  }
  // nlohmann would read such an integer as a double and write it back rounded.
  if (const auto big = core::FindJsonIntegerBeyond64Bits(metadata)) {
    return Status::InvalidArgument(
        "metadata holds the integer " + std::string(big->substr(0, 64)) +
        ", outside the 64-bit range [-2^63, 2^64 - 1]; write it as a string to keep it exactly");
  }
  nlohmann::json parsed = nlohmann::json::parse(metadata, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) return Status::InvalidArgument("metadata is not valid JSON");
  if (!parsed.is_object()) return Status::InvalidArgument("metadata must be a JSON object");
  try {
    return parsed.dump();
  } catch (const nlohmann::json::exception& error) {
    return Status::InvalidArgument(std::string("metadata cannot be encoded: ") + error.what());
  }
}

StatusOr<store::ScopeRecord> EnsureScope(store::Transaction& txn, const EdgeRegistry& registry,
                                         const Scope& scope, Timestamp now) {
  ASSIGN_OR_RETURN(std::optional<store::ScopeRecord> existing, txn.FindScope(scope.ToString()));
  if (existing.has_value()) return *existing;
  std::int64_t parent_id = 0;
  std::string parent_node;
  if (std::optional<Scope> parent = scope.Parent()) {
    ASSIGN_OR_RETURN(store::ScopeRecord parent_record, EnsureScope(txn, registry, *parent, now));
    parent_id = parent_record.scope_id;
    parent_node = parent_record.node_id;
  }
  const std::string path = scope.ToString();
  ASSIGN_OR_RETURN(store::ScopeRecord record,
                   txn.CreateScope(path, core::ScopeNodeId(path), parent_id, now));
  if (parent_id != 0) {
    EdgeRequest request;
    request.type = "contains";
    request.src = parent_node;
    request.dst = record.node_id;
    request.scope_id = parent_id;
    request.now = now;
    RETURN_IF_ERROR(registry.Apply(txn, request).status());
  }
  return record;
}

StatusOr<RememberResult> CaptureTurns(store::Transaction& txn, const EdgeRegistry& registry,
                                      const store::ScopeRecord& scope, std::span<const Turn> turns,
                                      std::span<const std::string> metadata, Timestamp now) {
  RememberResult result;
  result.ids.reserve(turns.size());
  for (std::size_t turn_idx = 0; turn_idx < turns.size(); ++turn_idx) {
    const Turn& turn = turns[turn_idx];
    if (!turn.idempotency_key.empty()) {
      ASSIGN_OR_RETURN(const std::optional<store::NodeRecord> stored,
                       txn.FindTurnByKey(scope.scope_id, turn.idempotency_key));
      if (stored.has_value()) {
        result.ids.push_back(stored->id);
        result.already_stored.push_back(turn_idx);
        continue;
      }
    }
    ASSIGN_OR_RETURN(std::int64_t sequence, txn.NextSequence(scope.scope_id));
    const Timestamp event_time = turn.event_time.value_or(now);

    store::NodeRecord node;
    node.kind = NodeKind::kTurn;
    node.scope_id = scope.scope_id;
    node.text = turn.text;
    node.role = turn.role;
    node.speaker = turn.speaker;
    node.session_id = turn.session_id;
    node.sequence = sequence;
    node.event_time = event_time;
    node.metadata_json = metadata[turn_idx];
    // The turn's content, laid out by the store's one writer of it (the stores keep a turn
    // whose content is exactly this as its columns only): the id hashes these bytes.
    std::optional<std::string> content = store::TurnContentFromColumns(node);
    if (!content.has_value()) {
      return Status::Internal("turn " + std::to_string(turn_idx) + " has no content layout");
    }
    node.content_json = *std::move(content);
    node.id = core::NodeId("turn", node.content_json, scope.node_id, event_time.micros);
    node.idempotency_key = turn.idempotency_key;
    node.status = NodeStatus::kActive;
    node.valid_from = event_time;
    node.ingested_at = now;
    node.updated_at = now;
    RETURN_IF_ERROR(txn.InsertNode(node).status());

    EdgeRequest contains;
    contains.type = "contains";
    contains.src = scope.node_id;
    contains.dst = node.id;
    contains.scope_id = scope.scope_id;
    contains.now = now;
    RETURN_IF_ERROR(registry.Apply(txn, contains).status());

    if (result.first_sequence == 0) result.first_sequence = sequence;
    result.last_sequence = sequence;
    result.ids.push_back(node.id);
  }
  return result;
}

}  // namespace engram::write
