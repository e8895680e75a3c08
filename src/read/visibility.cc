// The recall's visibility filters, as-of included (see visibility.h).
#include "read/visibility.h"

#include <vector>

#include <nlohmann/json.hpp>

#include "read/scope_graph.h"

namespace engram::read {
namespace {

std::string At(Timestamp time) { return FormatTimestamp(time); }

// A fact of kind foresight (a plan or a temporary state with a validity window, write/facts.h).
bool IsForesight(const store::NodeRecord& node) {
  if (node.kind != NodeKind::kFact) return false;
  const nlohmann::json content = nlohmann::json::parse(node.content_json, nullptr, false);
  return content.is_object() && content.value("kind", "") == "foresight";
}

}  // namespace

MemoryView ViewOfFact(const GraphFact& fact) {
  return {.id = fact.id,
          .kind = NodeKind::kFact,
          .status = fact.status,
          .valid_from = fact.valid_from,
          .valid_to = fact.valid_to,
          .ingested_at = fact.ingested_at,
          .updated_at = fact.updated_at};
}

MemoryView ViewOf(const store::NodeRecord& node) {
  return {.id = node.id,
          .kind = node.kind,
          .status = node.status,
          .valid_from = node.valid_from,
          .valid_to = node.valid_to,
          .ingested_at = node.ingested_at,
          .updated_at = node.updated_at};
}

Visibility::Visibility(store::Store* store, const RecallOptions& options, Timestamp query_time)
    : store_(store),
      include_retired_(options.include_retired),
      valid_at_(options.valid_at),
      known_at_(options.known_at),
      query_time_(query_time) {}

StatusOr<std::optional<store::RecordedState>> Visibility::Recorded(const MemoryView& memory) const {
  using Result = std::optional<store::RecordedState>;
  const store::RecordedState current{memory.status, memory.valid_to};
  if (!known_at_.has_value()) return Result(current);
  if (memory.ingested_at > *known_at_) return Result();
  if (memory.updated_at <= *known_at_) return Result(current);
  if (store_ == nullptr) {
    return Status::Internal("visibility: known_at needs the store to read the journal");
  }
  // The last state the journal recorded at or before known_at. A store that journalled
  // insertions without their state (before it recorded them) gives an inserted memory the status
  // it must have kept (rejected and pending ones are never reopened), else active, and an open
  // validity.
  store::RecordedState state{memory.status == NodeStatus::kRejected ||
                                     memory.status == NodeStatus::kPending
                                 ? memory.status
                                 : NodeStatus::kActive,
                             std::nullopt};
  ASSIGN_OR_RETURN(const std::vector<store::JournalEntry> entries, store_->JournalFor(memory.id));
  for (const store::JournalEntry& entry : entries) {
    if (entry.at > *known_at_) break;  // oldest first
    if (entry.op != store::JournalOp::kNodeInserted && entry.op != store::JournalOp::kNodeUpdated) {
      continue;
    }
    ASSIGN_OR_RETURN(const std::optional<store::RecordedState> recorded,
                     store::ParseStateDetail(entry.detail));
    if (recorded.has_value()) state = *recorded;
  }
  return Result(state);
}

StatusOr<Verdict> Visibility::Check(const MemoryView& memory) const {
  Verdict verdict;
  ASSIGN_OR_RETURN(const std::optional<store::RecordedState> recorded, Recorded(memory));
  if (!recorded.has_value()) {
    verdict.filter = kFilterKnownAt;
    verdict.reason =
        "ingested " + At(memory.ingested_at) + ", after known_at " + At(*known_at_);
    verdict.status = memory.status;
    verdict.valid_to = memory.valid_to;
    return verdict;
  }
  verdict.status = recorded->status;
  verdict.valid_to = recorded->valid_to;
  const std::string recorded_note =
      known_at_.has_value() ? " (as recorded at known_at " + At(*known_at_) + ")" : "";
  if (valid_at_.has_value()) {
    if (!include_retired_ &&
        (verdict.status == NodeStatus::kRejected || verdict.status == NodeStatus::kPending)) {
      verdict.filter = kFilterStatus;
      verdict.reason = "status " + std::string(NodeStatusName(verdict.status)) + recorded_note;
    } else if (memory.valid_from.has_value() && *valid_at_ < *memory.valid_from) {
      verdict.filter = kFilterValidAt;
      verdict.reason =
          "valid from " + At(*memory.valid_from) + ", after valid_at " + At(*valid_at_);
    } else if (verdict.valid_to.has_value() && *verdict.valid_to <= *valid_at_) {
      verdict.filter = kFilterValidAt;
      verdict.reason = "valid until " + At(*verdict.valid_to) + ", not after valid_at " +
                       At(*valid_at_) + recorded_note;
    }
    return verdict;
  }
  if (include_retired_) return verdict;
  if (verdict.status != NodeStatus::kActive) {
    verdict.filter = kFilterStatus;
    verdict.reason = "status " + std::string(NodeStatusName(verdict.status)) + recorded_note;
  } else if (verdict.valid_to.has_value() && *verdict.valid_to <= query_time_) {
    verdict.filter = kFilterValidity;
    verdict.reason = "valid until " + At(*verdict.valid_to) + ", not after the query time " +
                     At(query_time_) + recorded_note;
  }
  return verdict;
}

// A derived memory (fact, signal, entity) is valid only while its evidence is (DESIGN §3): hidden
// when it has evidence turns and none of them is shown, e.g. the one turn it came from was retired
// or amended. A memory without recorded evidence turns stays visible.
StatusOr<Verdict> Visibility::CheckWithEvidence(const store::NodeRecord& node) const {
  ASSIGN_OR_RETURN(Verdict verdict, Check(ViewOf(node)));
  if (verdict.filter == kFilterValidity && keep_expired_foresight_ && IsForesight(node)) {
    verdict.filter.clear();
    verdict.reason.clear();
  }
  if (!verdict.shown() || node.kind == NodeKind::kTurn || store_ == nullptr ||
      (include_retired_ && !as_of())) {
    return verdict;
  }
  ASSIGN_OR_RETURN(const std::vector<store::EdgeRecord> edges,
                   store_->EdgesOf(node.id, store::EdgeDirection::kOutgoing, "derived_from"));
  bool has_evidence = false;
  for (const store::EdgeRecord& edge : edges) {
    if (edge.status != store::kEdgeActive) continue;
    if (known_at_.has_value() && edge.ingested_at > *known_at_) continue;
    StatusOr<store::NodeRecord> evidence = store_->GetNode(edge.dst);
    if (!evidence.ok()) {
      if (evidence.status().code() == StatusCode::kNotFound) continue;
      return evidence.status();
    }
    if (evidence->kind != NodeKind::kTurn) continue;
    // With valid_at, evidence counts unless it had been withdrawn (retired, amended) by then: a
    // turn said after valid_at may still tell what held at valid_at ("I moved to Berlin last
    // March", said in May, is evidence for April).
    MemoryView evidence_view = ViewOf(*evidence);
    if (valid_at_.has_value()) evidence_view.valid_from.reset();
    ASSIGN_OR_RETURN(const Verdict evidence_verdict, Check(evidence_view));
    if (evidence_verdict.shown()) return verdict;
    has_evidence = true;
  }
  if (has_evidence) {
    verdict.filter = kFilterEvidence;
    verdict.reason = "none of its evidence turns is shown";
  }
  return verdict;
}

}  // namespace engram::read
