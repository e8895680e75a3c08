// The SQLite side of the SQL store's seam (store/sql/session.h): a sql::Session over one
// sqlite::Connection, and sql::Rows over a prepared Statement. Statements are prepared once per
// connection (Connection's cache); the dialect's own statements (the edges of a node by index,
// analyses by row, LIMIT -1 for none) are here.
//
//   SqliteSession session(conn);
//   ASSIGN_OR_RETURN(const NodeRecord node, sql::RequireNode(session, id));
#ifndef ENGRAM_STORE_SQLITE_SQLITE_SESSION_H_
#define ENGRAM_STORE_SQLITE_SQLITE_SESSION_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engram/status.h"
#include "store/sql/session.h"
#include "store/sqlite/connection.h"
#include "store/sqlite/merkle_sqlite.h"
#include "store/store.h"

namespace engram::store::sqlite {

// A blob column's bytes as text.
std::string_view BlobText(std::span<const std::byte> blob);

// Binds `params` to ?1, ?2, ... of `stmt`.
void BindParams(Statement& stmt, const sql::Params& params);

// The rows of a prepared statement, stepped by Next().
class StatementRows final : public sql::Rows {
 public:
  explicit StatementRows(Statement stmt) : stmt_(std::move(stmt)) {}

  StatusOr<bool> Next() override { return stmt_.Step(); }
  bool IsNull(int column) const override { return stmt_.ColumnIsNull(column); }
  std::int64_t Int(int column) const override { return stmt_.ColumnInt(column); }
  std::string Text(int column) const override { return stmt_.ColumnText(column); }
  std::optional<Timestamp> Time(int column) const override { return stmt_.ColumnTime(column); }
  std::string Bytes(int column) const override {
    return std::string(BlobText(stmt_.ColumnBlob(column)));
  }
  int columns() const override { return stmt_.ColumnCount(); }
  std::string ColumnName(int column) const override { return stmt_.ColumnName(column); }
  // By storage class: null, an integer as digits, a blob as x'<hex>', anything else quoted.
  std::string DumpValue(int column) const override;

 private:
  Statement stmt_;
};

class SqliteSession final : public sql::Session {
 public:
  explicit SqliteSession(Connection& conn) : conn_(conn), merkle_tables_(conn) {}

  std::string_view backend() const override { return "sqlite"; }
  std::string location() const override { return "sqlite: " + conn_.path(); }
  Status Exec(std::string_view sql, std::string_view operation) override;
  StatusOr<std::unique_ptr<sql::Rows>> Query(std::string_view sql, const sql::Params& params,
                                             std::string_view operation) override;
  StatusOr<std::int64_t> Execute(std::string_view sql, const sql::Params& params,
                                 std::string_view operation) override;
  merkle::Tables& merkle_tables() override { return merkle_tables_; }

  std::string_view byte_order() const override { return ""; }  // BINARY: bytes already
  void AddLimit(sql::Params& params, std::size_t limit) const override;
  StatusOr<std::vector<EdgeRecord>> EdgesOf(std::string_view node_id, EdgeDirection direction,
                                            std::string_view type) override;
  StatusOr<std::vector<TurnAnalysisRecord>> TurnAnalyses(
      std::span<const std::int64_t> turn_rows) override;

  Connection& connection() { return conn_; }

 private:
  Connection& conn_;
  MerkleTables merkle_tables_;
};

}  // namespace engram::store::sqlite

#endif  // ENGRAM_STORE_SQLITE_SQLITE_SESSION_H_
