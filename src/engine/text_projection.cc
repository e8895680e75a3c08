// Text projection maintenance: BM25 indexes and turn layouts (see text_projection.h).
#include "engine/text_projection.h"

#include <chrono>

namespace engram {

StatusOr<TextProjection::ScopeProjection> TextProjection::Build(std::int64_t scope_id) {
  ScopeProjection built;
  built.index = std::make_unique<index::Bm25Index>();
  // Turns in row order, which is their sequence order within the scope.
  Status scan_status = store_->ScanNodes(
      scope_id, NodeKind::kTurn, [&](const store::NodeRecord& node) {
        const std::vector<std::string> terms = read::DocumentTerms(*tokenizer_, node);
        built.index->Add(static_cast<std::uint64_t>(node.row), terms);
        built.layout.Append(
            read::TurnLayout::TurnOf(node, static_cast<std::uint32_t>(terms.size())));
        return true;
      });
  RETURN_IF_ERROR(scan_status);
  return built;
}

Status TextProjection::CatchUp() {
  if (applied_journal_seq_ < 0) {
    ASSIGN_OR_RETURN(applied_journal_seq_, store_->LastJournalSeq());
    return Status::Ok();
  }
  ASSIGN_OR_RETURN(std::vector<store::JournalEntry> entries,
                   store_->ReadJournal(applied_journal_seq_, 0));
  // Advanced only once every entry is applied: a catch-up that fails part way (a read error) is
  // redone in full by the next call, and applying an entry twice is harmless.
  std::int64_t applied_seq = applied_journal_seq_;
  std::vector<std::int64_t> rows;
  for (const store::JournalEntry& entry : entries) {
    applied_seq = entry.seq;
    if (entry.op == store::JournalOp::kScopeErased) {
      scopes_.erase(entry.scope_id);
    } else if (entry.op == store::JournalOp::kNodeInserted && scopes_.count(entry.scope_id)) {
      rows.push_back(entry.target_row);
    }
  }
  if (!rows.empty()) {
    ASSIGN_OR_RETURN(std::vector<store::NodeRecord> nodes, store_->GetNodesByRow(rows));
    for (const store::NodeRecord& node : nodes) {
      if (node.kind != NodeKind::kTurn) continue;
      auto found = scopes_.find(node.scope_id);
      if (found == scopes_.end()) continue;
      const std::vector<std::string> terms = read::DocumentTerms(*tokenizer_, node);
      found->second.index->Add(static_cast<std::uint64_t>(node.row), terms);
      // A turn applied before (a scan that saw it, or a catch-up redone) is in the layout.
      if (!found->second.layout.IndexOf(node.row).has_value()) {
        found->second.layout.Append(
            read::TurnLayout::TurnOf(node, static_cast<std::uint32_t>(terms.size())));
      }
    }
  }
  applied_journal_seq_ = applied_seq;
  return Status::Ok();
}

StatusOr<std::vector<const index::Bm25Index*>> TextProjection::IndexesFor(
    std::span<const std::int64_t> scope_ids) {
  RETURN_IF_ERROR(CatchUp());
  std::vector<const index::Bm25Index*> result;
  for (const std::int64_t scope_id : scope_ids) {
    auto found = scopes_.find(scope_id);
    if (found == scopes_.end()) {
      // Build from the store. A write committed during the scan is also in the journal after
      // applied_journal_seq_; re-adding a document replaces it, and the layout skips a turn it
      // already holds, so applying it again is harmless.
      ASSIGN_OR_RETURN(ScopeProjection built, Build(scope_id));
      found = scopes_.emplace(scope_id, std::move(built)).first;
    }
    result.push_back(found->second.index.get());
  }
  return result;
}

std::optional<std::vector<const index::Bm25Index*>> TextProjection::LoadedIndexes(
    std::span<const std::int64_t> scope_ids) const {
  std::vector<const index::Bm25Index*> result;
  result.reserve(scope_ids.size());
  for (const std::int64_t scope_id : scope_ids) {
    auto found = scopes_.find(scope_id);
    if (found == scopes_.end()) return std::nullopt;
    result.push_back(found->second.index.get());
  }
  return result;
}

std::optional<std::vector<const read::TurnLayout*>> TextProjection::LoadedLayouts(
    std::span<const std::int64_t> scope_ids) const {
  std::vector<const read::TurnLayout*> result;
  result.reserve(scope_ids.size());
  for (const std::int64_t scope_id : scope_ids) {
    auto found = scopes_.find(scope_id);
    if (found == scopes_.end()) return std::nullopt;
    result.push_back(&found->second.layout);
  }
  return result;
}

StatusOr<RebuildReport> TextProjection::RebuildAll() {
  const auto started = std::chrono::steady_clock::now();
  RETURN_IF_ERROR(CatchUp());
  ASSIGN_OR_RETURN(std::vector<store::ScopeRecord> scopes, store_->ListScopes());
  RebuildReport report;
  std::map<std::int64_t, ScopeProjection> rebuilt;
  for (const store::ScopeRecord& scope : scopes) {
    ASSIGN_OR_RETURN(ScopeProjection projection, Build(scope.scope_id));
    ++report.scopes;
    report.documents += projection.index->doc_count();
    report.terms += projection.index->term_count();
    auto live = scopes_.find(scope.scope_id);
    if (live != scopes_.end() && (!live->second.index->SameContent(*projection.index) ||
                                  !live->second.layout.SameContent(projection.layout))) {
      report.matched_live_index = false;
    }
    rebuilt.emplace(scope.scope_id, std::move(projection));
  }
  scopes_ = std::move(rebuilt);
  report.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return report;
}

}  // namespace engram
