// The migrations' shared data steps (see migration_steps.h).
#include "store/sql/migration_steps.h"

#include <array>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "store/backend_common.h"
#include "store/turn_analysis.h"

namespace engram::store::sql {

std::string_view MigrationDescription(std::int64_t version) {
  static constexpr std::array<std::string_view, 8> kDescriptions = {
      "scopes, nodes, edges, journal",
      "vectors and the recorded embedder",
      "idempotency keys in their own column, unique per scope",
      "merkle logs and scope roots",
      "one analysis row per turn instead of signal nodes",
      "turn text stored once, merkle leaf hashes as bytes",
      "compact turn analysis rows",
      "projection snapshots",
  };
  if (version < 1 || version > static_cast<std::int64_t>(kDescriptions.size())) return "";
  return kDescriptions[static_cast<std::size_t>(version - 1)];
}

Status BuildAnalysisRows(Session& session) {
  ASSIGN_OR_RETURN(std::unique_ptr<Rows> signals,
                   session.Query("SELECT t.row_id, s.content_json FROM nodes s "
                                 "JOIN edges e ON e.src = s.id AND e.type = 'derived_from' "
                                 "JOIN nodes t ON t.id = e.dst AND t.kind = 'turn' "
                                 "WHERE s.kind = 'signal' ORDER BY t.row_id, s.row_id",
                                 Params(), "migrate to schema 5: read signal nodes"));
  // All signal rows first: the inserts run on the same connection.
  std::vector<std::pair<std::int64_t, std::string>> rows;
  while (true) {
    ASSIGN_OR_RETURN(const bool has_row, signals->Next());
    if (!has_row) break;
    rows.emplace_back(signals->Int(0), signals->Text(1));
  }
  signals.reset();
  std::int64_t turn_row = 0;
  std::vector<std::string> contents;
  const auto flush = [&]() -> Status {
    if (contents.empty()) return Status::Ok();
    ASSIGN_OR_RETURN(const std::string analysis, TurnAnalysisFromSignals(contents));
    contents.clear();
    return session
        .Execute("INSERT INTO turn_analysis(turn_row, format, analysis) VALUES(?1, ?2, ?3)",
                 Params().Int(turn_row).Int(kTurnAnalysisJsonFormat).Text(analysis),
                 "migrate to schema 5: write analysis")
        .status();
  };
  for (auto& [row, content] : rows) {
    if (row != turn_row) {
      RETURN_IF_ERROR(flush());
      turn_row = row;
    }
    contents.push_back(std::move(content));
  }
  return flush();
}

Status StoreTurnTextOnce(Session& session) {
  std::int64_t after_row = 0;
  while (true) {
    ASSIGN_OR_RETURN(
        std::unique_ptr<Rows> read,
        session.Query("SELECT row_id, id, kind, content_json, text, role, speaker, session_id, "
                      "sequence, event_time, metadata_json FROM nodes WHERE row_id > ?1 AND "
                      "(kind = 'turn' OR content_json = '' OR substr(content_json, 1, 1) = ' ') "
                      "ORDER BY row_id LIMIT 1024",
                      Params().Int(after_row), "migrate to schema 6: read nodes"));
    std::vector<std::pair<std::int64_t, std::string>> rewrites;
    bool any = false;
    while (true) {
      ASSIGN_OR_RETURN(const bool has_row, read->Next());
      if (!has_row) break;
      any = true;
      after_row = read->Int(0);
      NodeRecord node;
      node.id = read->Text(1);
      ASSIGN_OR_RETURN(node.kind, ParseNodeKind(read->Text(2)));
      node.content_json = read->Text(3);
      node.text = read->Text(4);
      ASSIGN_OR_RETURN(node.role, ParseRole(read->Text(5)));
      node.speaker = read->Text(6);
      node.session_id = read->Text(7);
      node.sequence = read->Int(8);
      node.event_time = read->Time(9);
      node.metadata_json = read->Text(10);
      std::string stored = StoredContentJson(node);
      if (stored != node.content_json) rewrites.emplace_back(after_row, std::move(stored));
    }
    read.reset();
    if (!any) return Status::Ok();
    for (const auto& [row, stored] : rewrites) {
      RETURN_IF_ERROR(session
                          .Execute("UPDATE nodes SET content_json = ?2 WHERE row_id = ?1",
                                   Params().Int(row).Text(stored),
                                   "migrate to schema 6: store a turn's text once")
                          .status());
    }
  }
}

Status CompactAnalysisRows(Session& session) {
  std::int64_t after_row = 0;
  while (true) {
    ASSIGN_OR_RETURN(std::unique_ptr<Rows> read,
                     session.Query("SELECT a.turn_row, a.analysis, n.text FROM turn_analysis a "
                                   "JOIN nodes n ON n.row_id = a.turn_row "
                                   "WHERE a.turn_row > ?1 AND a.format = ?2 "
                                   "ORDER BY a.turn_row LIMIT 1024",
                                   Params().Int(after_row).Int(kTurnAnalysisJsonFormat),
                                   "migrate to schema 7: read analysis rows"));
    std::vector<TurnAnalysisRecord> compact;
    bool any = false;
    while (true) {
      ASSIGN_OR_RETURN(const bool has_row, read->Next());
      if (!has_row) break;
      any = true;
      after_row = read->Int(0);
      TurnAnalysisRecord row = TurnAnalysisRow(after_row, read->Bytes(1), read->Text(2));
      if (row.format == kTurnAnalysisCompactFormat) compact.push_back(std::move(row));
    }
    read.reset();
    if (!any) return Status::Ok();
    for (const TurnAnalysisRecord& row : compact) {
      RETURN_IF_ERROR(session
                          .Execute("UPDATE turn_analysis SET format = ?2, analysis = ?3 "
                                   "WHERE turn_row = ?1",
                                   Params().Int(row.turn_row).Int(row.format).Bytes(row.bytes),
                                   "migrate to schema 7: write a compact row")
                          .status());
    }
  }
}

Status WriteSchemaVersion(Session& session, std::int64_t version) {
  return session
      .Execute("INSERT INTO meta(key, value) VALUES('schema_version', ?1) "
               "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
               Params().Text(std::to_string(version)), "write schema version")
      .status();
}

}  // namespace engram::store::sql
