// Store-neutral helpers shared by every backend: journal op names and the journal detail format.
//
// Backends write journal rows with these names and details, so a projection (or the History API)
// reads the same text from SQLite and PostgreSQL:
//
//   JournalOpName(JournalOp::kNodeUpdated)          -> "node_updated"
//   StateDetail("superseded", valid_to, "by abc")  -> "status=superseded valid_to=2024-...Z; by
//   abc"
#ifndef ENGRAM_STORE_JOURNAL_H_
#define ENGRAM_STORE_JOURNAL_H_

#include <optional>
#include <string>
#include <string_view>

#include "engram/status.h"
#include "engram/types.h"
#include "store/store.h"

namespace engram::store {

// The inverse of JournalOpName; kCorruption for an unknown name (it came from stored data).
StatusOr<JournalOp> ParseJournalOp(std::string_view name);

// Detail of a kNodeUpdated / kEdgeUpdated entry: "status=<status> valid_to=<time|none>", followed
// by "; <extra>" when the caller gave extra text. The prefix is machine-readable; the extra part
// must never contain memory text.
std::string StateDetail(std::string_view status, std::optional<Timestamp> valid_to,
                        std::string_view extra);

// The state a kNodeUpdated detail records: the node's status and validity end after the change.
// Also read from a kNodeInserted detail ("kind=<kind> status=<status> valid_to=<time|none>"),
// which records the state the node was inserted with. nullopt when the detail holds no
// "status=" (an insertion journalled before the state was recorded there); kCorruption for a
// status or time that does not parse.
struct RecordedState {
  NodeStatus status = NodeStatus::kActive;
  std::optional<Timestamp> valid_to;
};
StatusOr<std::optional<RecordedState>> ParseStateDetail(std::string_view detail);

// Edge status strings (see EdgeRecord::status).
inline constexpr std::string_view kEdgeActive = "active";
inline constexpr std::string_view kEdgePending = "pending";
inline constexpr std::string_view kEdgeRejected = "rejected";
inline constexpr std::string_view kEdgeSuperseded = "superseded";
inline constexpr std::string_view kEdgeRetired = "retired";

// True for one of the five edge status strings above.
bool IsEdgeStatus(std::string_view status);

}  // namespace engram::store

#endif  // ENGRAM_STORE_JOURNAL_H_
