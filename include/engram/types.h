// Value types of engram's public API: time stamps, scopes, turns and stored memories.
//
//   engram::Scope scope = *engram::Scope::Parse("user:alice/run:2024-05-01");
//   engram::Turn turn;
//   turn.role = engram::Role::kUser;
//   turn.speaker = "Alice";
//   turn.text = "I moved to Lisbon last month.";
//   turn.event_time = *engram::ParseTimestamp("2024-05-01T10:00:00Z");
#ifndef ENGRAM_TYPES_H_
#define ENGRAM_TYPES_H_

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engram/status.h"

namespace engram {

// A point in time: microseconds since the Unix epoch, UTC.
struct Timestamp {
  std::int64_t micros = 0;

  static constexpr Timestamp FromSeconds(std::int64_t seconds) {
    return Timestamp{seconds * 1'000'000};
  }
  friend constexpr auto operator<=>(const Timestamp&, const Timestamp&) = default;
};

// Parses ISO-8601 / RFC 3339 forms: "2023-05-08", "2023-05-08T13:56", "2023-05-08T13:56:00Z",
// "2023-05-08 13:56:00.250+02:00". A time without an offset is UTC. kInvalidArgument otherwise.
StatusOr<Timestamp> ParseTimestamp(std::string_view text);
// "2023-05-08T13:56:00Z"; fractional seconds are written only when non-zero.
std::string FormatTimestamp(Timestamp time);

// Who a memory belongs to (DESIGN §3). Scopes nest: "app:crm/user:alice/run:42".
enum class ScopeKind { kUser, kAgent, kApp, kRun, kWorld };
std::string_view ScopeKindName(ScopeKind kind);  // "user", "agent", ...
StatusOr<ScopeKind> ParseScopeKind(std::string_view name);

struct ScopeSegment {
  ScopeKind kind = ScopeKind::kWorld;
  std::string name;
  friend bool operator==(const ScopeSegment&, const ScopeSegment&) = default;
};

// A scope path. Invariant after Parse/Validate: at least one segment; every name is non-empty
// valid UTF-8 of at most kMaxNameBytes bytes in Unicode NFKC, without surrounding white space,
// '/', control characters or invisible ones (format characters such as zero-width joiners and
// bidirectional controls, and other default-ignorable code points), and without letters of two
// of the scripts Latin, Greek and Cyrillic (whose letters look alike: "a" U+0061, "а" U+0430;
// Unicode TS #39's single-script rule); a name wholly in Greek or Cyrillic is fine, and digits,
// punctuation and other scripts mix with any. Parse trims each kind and name and normalises
// names to NFKC, so "user:alice " and "user:alice", a decomposed and a composed "é", or a
// fullwidth "ａlice" (U+FF41) and "alice", are one scope; an invisible character or a mixed-script
// name ("user:аlice" with a Cyrillic "а") is refused, not changed.
class Scope {
 public:
  static constexpr std::size_t kMaxNameBytes = 200;
  static constexpr std::size_t kMaxDepth = 8;

  Scope() = default;
  Scope(ScopeKind kind, std::string name);

  // "kind:name" segments joined by '/'. kInvalidArgument naming the bad segment otherwise.
  static StatusOr<Scope> Parse(std::string_view text);

  Scope Child(ScopeKind kind, std::string name) const;
  std::optional<Scope> Parent() const;
  const std::vector<ScopeSegment>& path() const { return path_; }
  bool empty() const { return path_.empty(); }
  ScopeKind kind() const;           // of the innermost segment
  const std::string& name() const;  // of the innermost segment
  std::string ToString() const;     // the form Parse accepts
  Status Validate() const;

  friend bool operator==(const Scope&, const Scope&) = default;

 private:
  std::vector<ScopeSegment> path_;
};

enum class Role { kUser, kAssistant, kSystem, kTool };
std::string_view RoleName(Role role);  // "user", "assistant", "system", "tool"
StatusOr<Role> ParseRole(std::string_view name);

// One conversation turn or observation, as the agent wrote it. Stored verbatim and never changed.
struct Turn {
  Role role = Role::kUser;
  std::string speaker;     // who spoke ("Caroline"); empty means unnamed
  std::string text;        // non-empty valid UTF-8; size limit in Config::limits
  std::string session_id;  // the conversation session it belongs to; may be empty
  std::optional<Timestamp> event_time;  // when it happened; unset means "when it was ingested"
  std::string metadata_json = "{}";     // a JSON object, stored canonically (sorted keys)
  // Makes a repeated write recognisable: a turn whose key its scope already holds (or an earlier
  // turn of the same batch has) is not stored again, and Remember reports it in
  // RememberResult::already_stored. Checked inside the write transaction, unique per scope in the
  // store, so two writers storing the same keyed turn at once store it once. "" = no key; else at
  // most 256 bytes of UTF-8 without control characters, not blank. Not part of metadata.
  std::string idempotency_key;
};

// Node types of the graph (DESIGN §3).
enum class NodeKind { kScope, kTurn, kSignal, kEntity, kFact, kEpisode, kScene, kProfile, kSummary };
std::string_view NodeKindName(NodeKind kind);
StatusOr<NodeKind> ParseNodeKind(std::string_view name);

// Lifecycle of a node or edge. Content is immutable; status and validity are not.
enum class NodeStatus { kActive, kSuperseded, kRetired, kRejected, kPending };
std::string_view NodeStatusName(NodeStatus status);
StatusOr<NodeStatus> ParseNodeStatus(std::string_view name);

// A stored memory as the API returns it (Get, List).
struct Memory {
  std::string id;  // content address: 32 lowercase hex digits
  NodeKind kind = NodeKind::kTurn;
  std::string scope;  // Scope::ToString() of the scope it was written to
  std::string text;
  Role role = Role::kUser;
  std::string speaker;
  std::string session_id;
  std::int64_t sequence = 0;  // per-scope, monotonic, starting at 1
  std::optional<Timestamp> event_time;
  std::string metadata_json = "{}";
  NodeStatus status = NodeStatus::kActive;
  std::optional<Timestamp> valid_from;
  std::optional<Timestamp> valid_to;  // unset: still valid
  Timestamp ingested_at;              // when engram learned it (transaction time)
  Timestamp updated_at;               // last change of status or validity
  std::vector<std::string> provenance;  // evidence turn ids; a turn is its own evidence
};

// One entry of a memory's history (History).
struct HistoryEvent {
  Timestamp at;               // transaction time of the change
  std::string action;         // "created", "retired", "superseded", "contradicted", ...
  NodeStatus status = NodeStatus::kActive;  // status after the change
  std::optional<Timestamp> valid_to;        // validity end after the change
  std::string related_id;     // the other node of a supersedes / contradicts edge, if any
  std::string detail;
};

// How the answer instructions of a recall treat the context (RecallOptions::policy).
enum class AnswerPolicy { kStrict, kBalanced, kAdvanced };
std::string_view AnswerPolicyName(AnswerPolicy policy);
StatusOr<AnswerPolicy> ParseAnswerPolicy(std::string_view name);

// What a recall's context holds (RecallOptions::mode): "evidence", the recalled memories only;
// "chat", the person's profile and the valid foresight before them (DESIGN §5.7).
enum class ContextMode { kEvidence, kChat };
std::string_view ContextModeName(ContextMode mode);
StatusOr<ContextMode> ParseContextMode(std::string_view name);

}  // namespace engram

#endif  // ENGRAM_TYPES_H_
