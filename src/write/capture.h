// Capture (DESIGN §4 step 1, Eywa Tier 0): validate turns and store them verbatim.
//
// Validation runs over the whole batch before anything is written, and the writes happen in the
// caller's transaction, so a batch is stored entirely or not at all.
#ifndef ENGRAM_WRITE_CAPTURE_H_
#define ENGRAM_WRITE_CAPTURE_H_

#include <span>
#include <string>
#include <vector>

#include "engram/config.h"
#include "engram/options.h"
#include "engram/status.h"
#include "engram/types.h"
#include "store/store.h"
#include "write/edge_registry.h"

namespace engram::write {

inline constexpr std::size_t kMaxSpeakerBytes = 256;
inline constexpr std::size_t kMaxSessionIdBytes = 256;
inline constexpr std::size_t kMaxMetadataDepth = 32;
inline constexpr std::size_t kMaxIdempotencyKeyBytes = 256;

// Checks a turn: text non-blank valid UTF-8 within limits.max_turn_bytes; speaker, session id and
// idempotency key valid UTF-8 without control characters, within their limits (a key that is
// not empty must not be blank); metadata a JSON object of at most
// limits.max_metadata_bytes and kMaxMetadataDepth nesting. Returns the canonical metadata JSON.
// Errors are kInvalidArgument and say what is wrong; the caller adds which turn.
StatusOr<std::string> ValidateTurn(const Turn& turn, const LimitsConfig& limits);

// Finds the scope, creating it and any missing ancestors (each linked to its parent by a
// `contains` edge).
StatusOr<store::ScopeRecord> EnsureScope(store::Transaction& txn, const EdgeRegistry& registry,
                                         const Scope& scope, Timestamp now);

// Stores already validated turns (canonical metadata in `metadata`, parallel to `turns`) in
// `txn`: one `turn` node each with the next sequence number of the scope, linked from the scope
// by `contains`. A turn without event time gets `now`. A turn whose idempotency key the scope
// holds (this transaction's earlier writes included) is not stored: its index goes to
// `already_stored` and ids[i] is the stored turn's id.

StatusOr<RememberResult> CaptureTurns(store::Transaction& txn, const EdgeRegistry& registry,
                                      const store::ScopeRecord& scope,
                                      std::span<const Turn> turns,
                                      std::span<const std::string> metadata, Timestamp now);

}  // namespace engram::write

#endif  // ENGRAM_WRITE_CAPTURE_H_
