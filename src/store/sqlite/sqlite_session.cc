// SQLite's sql::Session (see sqlite_session.h).
#include "store/sqlite/sqlite_session.h"

#include <sqlite3.h>

#include <utility>

#include "store/backend_common.h"

#include "store/sql/records.h"

namespace engram::store::sqlite {

std::string_view BlobText(std::span<const std::byte> blob) {
  return std::string_view(reinterpret_cast<const char*>(blob.data()), blob.size());
}

void BindParams(Statement& stmt, const sql::Params& params) {
  int index = 0;
  for (const sql::Params::Value& value : params.values()) {
    ++index;
    switch (value.kind) {
      case sql::Params::Kind::kNull:
        stmt.BindNull(index);
        break;
      case sql::Params::Kind::kInt:
        stmt.BindInt(index, value.number);
        break;
      case sql::Params::Kind::kText:
        stmt.BindText(index, value.text);
        break;
      case sql::Params::Kind::kBytes:
        stmt.BindBlob(index, std::as_bytes(std::span<const char>(value.text)));
        break;
    }
  }
}

std::string StatementRows::DumpValue(int column) const {
  switch (stmt_.ColumnType(column)) {
    case SQLITE_NULL:
      return "null";
    case SQLITE_INTEGER:
      return std::to_string(stmt_.ColumnInt(column));
    case SQLITE_BLOB:
      return HexDumpBytes(BlobText(stmt_.ColumnBlob(column)));
    default:
      return QuoteDumpText(stmt_.ColumnText(column));
  }
}

Status SqliteSession::Exec(std::string_view sql, std::string_view operation) {
  return conn_.Exec(sql, operation);
}

StatusOr<std::unique_ptr<sql::Rows>> SqliteSession::Query(std::string_view sql,
                                                          const sql::Params& params,
                                                          std::string_view operation) {
  ASSIGN_OR_RETURN(Statement stmt, conn_.Prepare(sql, operation));
  BindParams(stmt, params);
  return std::unique_ptr<sql::Rows>(std::make_unique<StatementRows>(std::move(stmt)));
}

StatusOr<std::int64_t> SqliteSession::Execute(std::string_view sql, const sql::Params& params,
                                              std::string_view operation) {
  ASSIGN_OR_RETURN(Statement stmt, conn_.Prepare(sql, operation));
  BindParams(stmt, params);
  RETURN_IF_ERROR(stmt.Run());
  return conn_.Changes();
}

void SqliteSession::AddLimit(sql::Params& params, std::size_t limit) const {
  params.Int(limit == 0 ? -1 : static_cast<std::int64_t>(limit));  // LIMIT -1: none
}

StatusOr<std::vector<EdgeRecord>> SqliteSession::EdgesOf(std::string_view node_id,
                                                         EdgeDirection direction,
                                                         std::string_view type) {
  // Separate texts with and without the type so the (src, type) / (dst, type) indexes are used
  // in full: a scope node can have millions of outgoing `contains` edges.
  using sql::kEdgeColumns;
  using sql::Sql;
  static const std::string kOutgoing =
      Sql("SELECT ", kEdgeColumns, " FROM edges WHERE src = ?1 ORDER BY row_id");
  static const std::string kOutgoingTyped =
      Sql("SELECT ", kEdgeColumns, " FROM edges WHERE src = ?1 AND type = ?2 ORDER BY row_id");
  static const std::string kIncoming =
      Sql("SELECT ", kEdgeColumns, " FROM edges WHERE dst = ?1 ORDER BY row_id");
  static const std::string kIncomingTyped =
      Sql("SELECT ", kEdgeColumns, " FROM edges WHERE dst = ?1 AND type = ?2 ORDER BY row_id");
  static const std::string kBoth =
      Sql("SELECT ", kEdgeColumns, " FROM edges WHERE src = ?1 OR dst = ?1 ORDER BY row_id");
  static const std::string kBothTyped =
      Sql("SELECT ", kEdgeColumns,
          " FROM edges WHERE (src = ?1 AND type = ?2) OR (dst = ?1 AND type = ?2) "
          "ORDER BY row_id");
  const bool typed = !type.empty();
  const std::string* text = typed ? &kBothTyped : &kBoth;
  if (direction == EdgeDirection::kOutgoing) text = typed ? &kOutgoingTyped : &kOutgoing;
  if (direction == EdgeDirection::kIncoming) text = typed ? &kIncomingTyped : &kIncoming;
  sql::Params params;
  params.Text(node_id);
  if (typed) params.Text(type);
  return sql::QueryRows<EdgeRecord>(*this, *text, params, "edges of node", sql::ReadEdge);
}

StatusOr<std::vector<TurnAnalysisRecord>> SqliteSession::TurnAnalyses(
    std::span<const std::int64_t> turn_rows) {
  std::vector<TurnAnalysisRecord> records;
  for (const std::int64_t row : turn_rows) {
    ASSIGN_OR_RETURN(Statement stmt,
                     conn_.Prepare("SELECT format, analysis FROM turn_analysis WHERE turn_row = ?1",
                                   "get turn analyses"));
    stmt.BindInt(1, row);
    ASSIGN_OR_RETURN(const bool has_row, stmt.Step());
    if (!has_row) continue;
    records.push_back({.turn_row = row,
                       .format = static_cast<int>(stmt.ColumnInt(0)),
                       .bytes = stmt.ColumnText(1)});
  }
  return records;
}

}  // namespace engram::store::sqlite
