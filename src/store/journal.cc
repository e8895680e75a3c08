// Journal op names and detail formatting shared by every store backend (see journal.h).
#include "store/journal.h"

#include <array>
#include <utility>

namespace engram::store {
namespace {

constexpr std::array<std::pair<JournalOp, std::string_view>, 7> kJournalOps = {{
    {JournalOp::kScopeCreated, "scope_created"},
    {JournalOp::kNodeInserted, "node_inserted"},
    {JournalOp::kNodeUpdated, "node_updated"},
    {JournalOp::kEdgeInserted, "edge_inserted"},
    {JournalOp::kEdgeUpdated, "edge_updated"},
    {JournalOp::kScopeErased, "scope_erased"},
    {JournalOp::kEmbedderSet, "embedder_set"},
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

bool IsEdgeStatus(std::string_view status) {
  return status == kEdgeActive || status == kEdgePending || status == kEdgeRejected ||
         status == kEdgeSuperseded || status == kEdgeRetired;
}

}  // namespace engram::store
