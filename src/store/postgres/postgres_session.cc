// PostgreSQL's sql::Session (see postgres_session.h).
#include "store/postgres/postgres_session.h"

#include <cctype>
#include <map>
#include <mutex>

#include "store/backend_common.h"
#include "store/sql/records.h"

namespace engram::store::postgres {
namespace {

Params ToPostgres(const sql::Params& params) {
  Params out;
  for (const sql::Params::Value& value : params.values()) {
    switch (value.kind) {
      case sql::Params::Kind::kNull:
        out.Null();
        break;
      case sql::Params::Kind::kInt:
        out.Int(value.number);
        break;
      case sql::Params::Kind::kText:
        out.Text(value.text);
        break;
      case sql::Params::Kind::kBytes:
        out.Bytes(value.text);
        break;
    }
  }
  return out;
}

}  // namespace

const std::string& PostgresText(std::string_view sql) {
  static std::mutex mutex;
  static std::map<std::string, std::string, std::less<>> texts;
  std::lock_guard<std::mutex> lock(mutex);
  if (const auto known = texts.find(sql); known != texts.end()) return known->second;
  std::string text(sql);
  for (std::size_t at = 0; at + 1 < text.size(); ++at) {
    if (text[at] == '?' && std::isdigit(static_cast<unsigned char>(text[at + 1])) != 0) {
      text[at] = '$';
    }
  }
  return texts.emplace(std::string(sql), std::move(text)).first->second;
}

std::string ResultRows::DumpValue(int column) const {
  if (result_.IsNull(row_, column)) return "null";
  if (result_.IsBytea(column)) return HexDumpBytes(result_.Bytes(row_, column));
  return QuoteDumpText(result_.Text(row_, column));
}

Status PostgresSession::Exec(std::string_view sql, std::string_view operation) {
  return conn_.Exec(sql, operation);
}

StatusOr<std::unique_ptr<sql::Rows>> PostgresSession::Query(std::string_view sql,
                                                            const sql::Params& params,
                                                            std::string_view operation) {
  ASSIGN_OR_RETURN(Result result, conn_.Query(PostgresText(sql), ToPostgres(params), operation));
  return std::unique_ptr<sql::Rows>(std::make_unique<ResultRows>(std::move(result)));
}

StatusOr<std::int64_t> PostgresSession::Execute(std::string_view sql, const sql::Params& params,
                                                std::string_view operation) {
  ASSIGN_OR_RETURN(Result result, conn_.Query(PostgresText(sql), ToPostgres(params), operation));
  return result.AffectedRows();
}

void PostgresSession::AddLimit(sql::Params& params, std::size_t limit) const {
  if (limit == 0) {
    params.Null();  // LIMIT NULL: no limit
  } else {
    params.Int(static_cast<std::int64_t>(limit));
  }
}

StatusOr<std::vector<EdgeRecord>> PostgresSession::EdgesOf(std::string_view node_id,
                                                           EdgeDirection direction,
                                                           std::string_view type) {
  // One text per direction; `$2 = ''` keeps the typed and untyped forms in one.
  using sql::kEdgeColumns;
  using sql::Sql;
  static const std::string kOutgoing =
      Sql("SELECT ", kEdgeColumns,
          " FROM edges WHERE src = $1 AND ($2 = '' OR type = $2) ORDER BY row_id");
  static const std::string kIncoming =
      Sql("SELECT ", kEdgeColumns,
          " FROM edges WHERE dst = $1 AND ($2 = '' OR type = $2) ORDER BY row_id");
  static const std::string kBoth =
      Sql("SELECT ", kEdgeColumns,
          " FROM edges WHERE (src = $1 OR dst = $1) AND ($2 = '' OR type = $2) ORDER BY row_id");
  const std::string* text = &kBoth;
  if (direction == EdgeDirection::kOutgoing) text = &kOutgoing;
  if (direction == EdgeDirection::kIncoming) text = &kIncoming;
  return sql::QueryRows<EdgeRecord>(*this, *text, sql::Params().Text(node_id).Text(type),
                                    "edges of node", sql::ReadEdge);
}

StatusOr<std::vector<TurnAnalysisRecord>> PostgresSession::TurnAnalyses(
    std::span<const std::int64_t> turn_rows) {
  std::vector<TurnAnalysisRecord> records;
  if (turn_rows.empty()) return records;
  ASSIGN_OR_RETURN(Result found,
                   conn_.Query("SELECT turn_row, format, analysis FROM turn_analysis "
                               "WHERE turn_row = ANY($1::bigint[])",
                               Params().IntArray({turn_rows.begin(), turn_rows.end()}),
                               "get turn analyses"));
  std::map<std::int64_t, int> by_row;
  for (int row = 0; row < found.size(); ++row) by_row[found.Int(row, 0)] = row;
  for (const std::int64_t turn_row : turn_rows) {
    const auto it = by_row.find(turn_row);
    if (it == by_row.end()) continue;
    records.push_back({.turn_row = turn_row,
                       .format = static_cast<int>(found.Int(it->second, 1)),
                       .bytes = found.Bytes(it->second, 2)});
  }
  return records;
}

}  // namespace engram::store::postgres
