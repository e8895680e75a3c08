// The PostgreSQL side of the SQL store's seam (store/sql/session.h): a sql::Session over one
// postgres::Connection, and sql::Rows over a Result. The shared statements' ?n parameters are
// sent as $n (PostgresText: rewritten once per statement text); the dialect's own statements
// (the edges of a node in one text per direction, id lists as bigint[]) are here.
//
//   PostgresSession session(conn);
//   ASSIGN_OR_RETURN(const NodeRecord node, sql::RequireNode(session, id));
#ifndef ENGRAM_STORE_POSTGRES_POSTGRES_SESSION_H_
#define ENGRAM_STORE_POSTGRES_POSTGRES_SESSION_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engram/status.h"
#include "store/postgres/connection.h"
#include "store/postgres/merkle_postgres.h"
#include "store/sql/session.h"
#include "store/store.h"

namespace engram::store::postgres {

// `sql` with every ?n parameter written $n. Thread-safe; the result lives as long as the process.
const std::string& PostgresText(std::string_view sql);

// The rows of a Result, one after the other.
class ResultRows final : public sql::Rows {
 public:
  explicit ResultRows(Result result) : result_(std::move(result)) {}

  StatusOr<bool> Next() override {
    ++row_;
    return row_ < result_.size();
  }
  bool IsNull(int column) const override { return result_.IsNull(row_, column); }
  std::int64_t Int(int column) const override { return result_.Int(row_, column); }
  std::string Text(int column) const override { return std::string(result_.Text(row_, column)); }
  std::optional<Timestamp> Time(int column) const override { return result_.Time(row_, column); }
  std::string Bytes(int column) const override { return result_.Bytes(row_, column); }
  int columns() const override { return result_.columns(); }
  std::string ColumnName(int column) const override {
    return std::string(result_.ColumnName(column));
  }
  // Null, a bytea column as x'<hex>', anything else (integers too) as quoted text.
  std::string DumpValue(int column) const override;

 private:
  Result result_;
  int row_ = -1;
};

class PostgresSession final : public sql::Session {
 public:
  explicit PostgresSession(Connection& conn) : conn_(conn), merkle_tables_(conn) {}

  std::string_view backend() const override { return "postgres"; }
  std::string location() const override { return "postgres: " + conn_.display_name(); }
  Status Exec(std::string_view sql, std::string_view operation) override;
  StatusOr<std::unique_ptr<sql::Rows>> Query(std::string_view sql, const sql::Params& params,
                                             std::string_view operation) override;
  StatusOr<std::int64_t> Execute(std::string_view sql, const sql::Params& params,
                                 std::string_view operation) override;
  merkle::Tables& merkle_tables() override { return merkle_tables_; }

  // Byte order whatever the database's collation, as SQLite's.
  std::string_view byte_order() const override { return " COLLATE \"C\""; }
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

}  // namespace engram::store::postgres

#endif  // ENGRAM_STORE_POSTGRES_POSTGRES_SESSION_H_
