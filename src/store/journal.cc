// Journal op names and detail formatting shared by every store backend (see journal.h).
#include "store/journal.h"

#include <array>
#include <utility>

namespace engram::store {
namespace {

constexpr std::array<std::pair<JournalOp, std::string_view>, 8> kJournalOps = {{
    {JournalOp::kScopeCreated, "scope_created"},
    {JournalOp::kNodeInserted, "node_inserted"},
    {JournalOp::kNodeUpdated, "node_updated"},
    {JournalOp::kEdgeInserted, "edge_inserted"},
    {JournalOp::kEdgeUpdated, "edge_updated"},
    {JournalOp::kScopeErased, "scope_erased"},
    {JournalOp::kEmbedderSet, "embedder_set"},
    {JournalOp::kVectorStored, "vector_stored"},
}};

}  // namespace

std::string_view JournalOpName(JournalOp op) {
  for (const auto& [value, name] : kJournalOps) {
    if (value == op) return name;
  }
  return "unknown";
}

StatusOr<JournalOp> ParseJournalOp(std::string_view name) {
  for (const auto& [value, op_name] : kJournalOps) {
    if (op_name == name) return value;
  }
  return Status::Corruption("journal: unknown op \"" + std::string(name.substr(0, 64)) + "\"");
}

std::string StateDetail(std::string_view status, std::optional<Timestamp> valid_to,
                        std::string_view extra) {
  std::string detail = "status=" + std::string(status) + " valid_to=" +
                       (valid_to.has_value() ? FormatTimestamp(*valid_to) : std::string("none"));
  if (!extra.empty()) {
    detail += "; ";
    detail += extra;
  }
  return detail;
}

StatusOr<std::optional<RecordedState>> ParseStateDetail(std::string_view detail) {
  // The machine-readable prefix ends at the first "; " (StateDetail's extra part follows it).
  const std::string_view head = detail.substr(0, detail.find("; "));
  const auto field = [head](std::string_view name) -> std::optional<std::string_view> {
    std::size_t at = 0;
    while ((at = head.find(name, at)) != std::string_view::npos) {
      if (at == 0 || head[at - 1] == ' ') {
        const std::size_t begin = at + name.size();
        return head.substr(begin, head.find(' ', begin) - begin);
      }
      at += name.size();
    }
    return std::nullopt;
  };
  const std::optional<std::string_view> status = field("status=");
  if (!status.has_value()) return std::optional<RecordedState>();
  RecordedState state;
  StatusOr<NodeStatus> parsed = ParseNodeStatus(*status);
  if (!parsed.ok()) {
    return Status::Corruption("journal: unknown status in \"" + std::string(head.substr(0, 96)) +
                              "\"");
  }
  state.status = *parsed;
  const std::optional<std::string_view> valid_to = field("valid_to=");
  if (valid_to.has_value() && *valid_to != "none") {
    StatusOr<Timestamp> time = ParseTimestamp(*valid_to);
    if (!time.ok()) {
      return Status::Corruption("journal: bad valid_to in \"" +
                                std::string(head.substr(0, 96)) + "\"");
    }
    state.valid_to = *time;
  }
  return std::optional<RecordedState>(state);
}

bool IsEdgeStatus(std::string_view status) {
  return status == kEdgeActive || status == kEdgePending || status == kEdgeRejected ||
         status == kEdgeSuperseded || status == kEdgeRetired;
}

}  // namespace engram::store
