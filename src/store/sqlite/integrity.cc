// Damage checks of a SQLite store file (see integrity.h).
#include "store/sqlite/integrity.h"

#include <sqlite3.h>

#include <array>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace engram::store::sqlite {
namespace {

// The 100-byte header (https://www.sqlite.org/fileformat.html#the_database_header).
constexpr std::size_t kHeaderBytes = 100;
constexpr std::string_view kMagic{"SQLite format 3\0", 16};

// Tables whose own quick_check the sampled check runs whole: a few rows per scope at most.
constexpr std::array<std::string_view, 3> kSmallTables = {"meta", "scopes", "merkle_roots"};

bool IsDamage(const Status& status) { return status.code() == StatusCode::kCorruption; }

// Runs `sql` (a quick_check or integrity_check pragma) and appends every row that is not "ok".
// SQLite errors that say the file is damaged become problems too.
Status CollectPragmaRows(Connection& connection, const std::string& sql,
                         std::vector<std::string>* problems) {
  StatusOr<Statement> stmt = connection.Prepare(sql, "integrity check");
  if (!stmt.ok()) {
    if (!IsDamage(stmt.status())) return stmt.status();
    problems->push_back(stmt.status().message());
    return Status::Ok();
  }
  while (true) {
    StatusOr<bool> has_row = stmt->Step();
    if (!has_row.ok()) {
      if (!IsDamage(has_row.status())) return has_row.status();
      problems->push_back(has_row.status().message());
      return Status::Ok();
    }
    if (!*has_row) return Status::Ok();
    // A row may hold several lines, the first naming the database ("*** in database main ***").
    const std::string row = stmt->ColumnText(0);
    std::size_t begin = 0;
    while (begin <= row.size()) {
      std::size_t end = row.find('\n', begin);
      if (end == std::string::npos) end = row.size();
      const std::string line = row.substr(begin, end - begin);
      const bool heading = line.starts_with("*** in database ");
      if (!line.empty() && line != "ok" && !heading && problems->size() < kMaxReportedProblems) {
        problems->push_back(line);
      }
      begin = end + 1;
    }
  }
}

std::string Quoted(std::string_view name) {
  std::string out = "\"";
  for (const char c : name) {
    out += c;
    if (c == '"') out += '"';
  }
  return out + "\"";
}

// One index of a table, as the probes look its entries up.
struct ProbeIndex {
  std::string name;
  std::vector<std::string> columns;  // the indexed columns, in order
};

// One B-tree the sampled check probes: a rowid table and its indexes.
struct ProbeTable {
  std::string name;
  std::int64_t min_rowid = 0;
  std::int64_t max_rowid = 0;
  std::vector<ProbeIndex> indexes;
};

// A WITHOUT ROWID table: probed by its first primary-key column, an integer.
struct ProbeKeyedTable {
  std::string name;
  std::string key_column;
  std::int64_t min_key = 0;
  std::int64_t max_key = 0;
};

// The sampled check's state: what it found and what it has read.
class Sampler {
 public:
  Sampler(Connection& connection, std::uint64_t seed, IntegrityReport* report)
      : connection_(connection), random_(seed), report_(report) {}

  // Adds a damage status as a problem; returns any other error.
  Status Absorb(const Status& status) {
    if (status.ok()) return status;
    if (!IsDamage(status)) return status;
    if (report_->problems.size() < kMaxReportedProblems) report_->problems.push_back(status.message());
    return Status::Ok();
  }

  Status Run() {
    for (const std::string_view table : kSmallTables) {
      RETURN_IF_ERROR(CollectPragmaRows(connection_,
                                        "PRAGMA quick_check(" + Quoted(table) + ")",
                                        &report_->problems));
    }
    if (!report_->ok()) return Status::Ok();
    std::vector<ProbeTable> tables;
    std::vector<ProbeKeyedTable> keyed_tables;
    RETURN_IF_ERROR(Absorb(ListBtrees(&tables, &keyed_tables)));
    if (!report_->ok()) return Status::Ok();
    // Round-robin, so the byte budget is spread over every table.
    for (int probe_idx = 0; probe_idx < kProbesPerBtree; ++probe_idx) {
      for (const ProbeTable& table : tables) {
        if (bytes_read_ >= kProbeByteBudget || !report_->ok()) return Status::Ok();
        RETURN_IF_ERROR(Absorb(ProbeRow(table)));
      }
      for (const ProbeKeyedTable& table : keyed_tables) {
        if (bytes_read_ >= kProbeByteBudget || !report_->ok()) return Status::Ok();
        RETURN_IF_ERROR(Absorb(ProbeKeyed(table)));
      }
    }
    return Status::Ok();
  }

 private:
  bool IsSmall(std::string_view name) const {
    for (const std::string_view small : kSmallTables) {
      if (small == name) return true;
    }
    return false;
  }

  Status ListBtrees(std::vector<ProbeTable>* tables, std::vector<ProbeKeyedTable>* keyed_tables) {
    std::vector<std::pair<std::string, bool>> names;  // name, WITHOUT ROWID
    {
      ASSIGN_OR_RETURN(Statement stmt,
                       connection_.Prepare("SELECT name, sql FROM sqlite_schema WHERE type = "
                                           "'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
                                           "integrity check: list tables"));
      while (true) {
        ASSIGN_OR_RETURN(const bool has_row, stmt.Step());
        if (!has_row) break;
        std::string name = stmt.ColumnText(0);
        if (IsSmall(name)) continue;
        const bool without_rowid = stmt.ColumnText(1).find("WITHOUT ROWID") != std::string::npos;
        names.emplace_back(std::move(name), without_rowid);
      }
    }
    for (auto& [name, without_rowid] : names) {
      if (without_rowid) {
        ProbeKeyedTable table{name, "", 0, 0};
        ASSIGN_OR_RETURN(Statement info,
                         connection_.Prepare("SELECT name FROM pragma_table_info(?1) WHERE pk = 1",
                                             "integrity check: table info"));
        info.BindText(1, name);
        ASSIGN_OR_RETURN(const bool has_key, info.Step());
        if (!has_key) continue;
        table.key_column = info.ColumnText(0);
        ASSIGN_OR_RETURN(const std::optional<std::int64_t> min_key,
                         Extreme("min", table.key_column, name));
        ASSIGN_OR_RETURN(const std::optional<std::int64_t> max_key,
                         Extreme("max", table.key_column, name));
        if (!min_key.has_value() || !max_key.has_value()) continue;
        table.min_key = *min_key;
        table.max_key = *max_key;
        keyed_tables->push_back(std::move(table));
        continue;
      }
      ProbeTable table{name, 0, 0, {}};
      ASSIGN_OR_RETURN(const std::optional<std::int64_t> min_rowid, Extreme("min", "rowid", name));
      ASSIGN_OR_RETURN(const std::optional<std::int64_t> max_rowid, Extreme("max", "rowid", name));
      if (!min_rowid.has_value() || !max_rowid.has_value()) continue;  // an empty table
      table.min_rowid = *min_rowid;
      table.max_rowid = *max_rowid;
      ASSIGN_OR_RETURN(Statement list,
                       connection_.Prepare("SELECT name, partial FROM pragma_index_list(?1)",
                                           "integrity check: index list"));
      list.BindText(1, name);
      while (true) {
        ASSIGN_OR_RETURN(const bool has_row, list.Step());
        if (!has_row) break;
        if (list.ColumnInt(1) != 0) continue;  // a partial index lacks some rows
        ProbeIndex index{list.ColumnText(0), {}};
        ASSIGN_OR_RETURN(Statement info,
                         connection_.Prepare("SELECT cid, name FROM pragma_index_info(?1) "
                                             "ORDER BY seqno",
                                             "integrity check: index info"));
        info.BindText(1, index.name);
        bool plain = true;
        while (true) {
          ASSIGN_OR_RETURN(const bool has_column, info.Step());
          if (!has_column) break;
          if (info.ColumnInt(0) < 0) plain = false;  // an expression or the rowid
          index.columns.push_back(info.ColumnText(1));
        }
        if (plain && !index.columns.empty()) table.indexes.push_back(std::move(index));
      }
      tables->push_back(std::move(table));
    }
    return Status::Ok();
  }

  // min or max of an integer key column: one descent, as long as the query asks for nothing
  // else (min and max together scan the table). nullopt when the table is empty or the column
  // holds no integer there.
  StatusOr<std::optional<std::int64_t>> Extreme(std::string_view function, std::string_view column,
                                               std::string_view table) {
    const std::string sql = "SELECT " + std::string(function) + "(" +
                            (column == "rowid" ? std::string(column) : Quoted(column)) +
                            ") FROM " + Quoted(table);
    ASSIGN_OR_RETURN(Statement stmt, connection_.Prepare(sql, "integrity check: key range"));
    ASSIGN_OR_RETURN(const bool has_row, stmt.Step());
    if (!has_row || stmt.ColumnType(0) != SQLITE_INTEGER) return std::optional<std::int64_t>();
    return std::optional<std::int64_t>(stmt.ColumnInt(0));
  }

  std::int64_t Draw(std::int64_t low, std::int64_t high) {
    return std::uniform_int_distribution<std::int64_t>(low, high)(random_);
  }

  // Reads every column of the current row of `stmt` (overflow pages included).
  void ReadRow(Statement& stmt) {
    for (int column = 0; column < stmt.ColumnCount(); ++column) {
      bytes_read_ += stmt.ColumnBlob(column).size();
    }
  }

  // A descent to the first row at or after a random rowid, and its entry in every index.
  Status ProbeRow(const ProbeTable& table) {
    ++report_->probes;
    ASSIGN_OR_RETURN(Statement stmt,
                     connection_.Prepare("SELECT rowid, * FROM " + Quoted(table.name) +
                                             " WHERE rowid >= ?1 ORDER BY rowid LIMIT 1",
                                         "integrity check: probe " + table.name));
    stmt.BindInt(1, Draw(table.min_rowid, table.max_rowid));
    ASSIGN_OR_RETURN(const bool has_row, stmt.Step());
    if (!has_row) return Status::Ok();
    ReadRow(stmt);
    const std::int64_t rowid = stmt.ColumnInt(0);
    for (const ProbeIndex& index : table.indexes) {
      ++report_->probes;
      // A descent of the index to the row's value of its first column: the first entry at or
      // after it must hold that value (the row is there, so its entry must be).
      const std::string column = Quoted(index.columns.front());
      const std::string sql = "SELECT (SELECT " + column + " FROM " + Quoted(table.name) +
                              " INDEXED BY " + Quoted(index.name) + " WHERE " + column +
                              " >= v.value ORDER BY " + column + " LIMIT 1) IS v.value FROM "
                              "(SELECT " + column + " AS value FROM " + Quoted(table.name) +
                              " WHERE rowid = ?1) AS v";
      StatusOr<Statement> lookup = connection_.Prepare(sql, "integrity check: index " + index.name);
      if (!lookup.ok()) {
        if (IsDamage(lookup.status())) return lookup.status();
        continue;  // the planner cannot use this index so: not a sign of damage
      }
      lookup->BindInt(1, rowid);
      ASSIGN_OR_RETURN(const bool found, lookup->Step());
      if (found && lookup->ColumnInt(0) != 1) {
        report_->problems.push_back("row " + std::to_string(rowid) + " of " + table.name +
                                    " is missing from index " + index.name);
        return Status::Ok();
      }
    }
    return Status::Ok();
  }

  Status ProbeKeyed(const ProbeKeyedTable& table) {
    ++report_->probes;
    ASSIGN_OR_RETURN(Statement stmt,
                     connection_.Prepare("SELECT * FROM " + Quoted(table.name) + " WHERE " +
                                             Quoted(table.key_column) + " >= ?1 LIMIT 1",
                                         "integrity check: probe " + table.name));
    stmt.BindInt(1, Draw(table.min_key, table.max_key));
    ASSIGN_OR_RETURN(const bool has_row, stmt.Step());
    if (has_row) ReadRow(stmt);
    return Status::Ok();
  }

  Connection& connection_;
  std::mt19937_64 random_;
  IntegrityReport* report_;
  std::uint64_t bytes_read_ = 0;
};

}  // namespace

std::string_view IntegrityCheckName(IntegrityCheck check) {
  switch (check) {
    case IntegrityCheck::kHeader:
      return "header check";
    case IntegrityCheck::kQuick:
      return "quick_check";
    case IntegrityCheck::kSampled:
      return "sampled";
    case IntegrityCheck::kFull:
      return "integrity_check";
    case IntegrityCheck::kInUse:
      return "use";
  }
  return "unknown";
}

std::uint64_t StoreFileBytes(const std::string& path) {
  std::error_code error;
  std::uint64_t bytes = 0;
  for (const std::string& file : {path, path + "-wal"}) {
    const std::uintmax_t size = std::filesystem::file_size(file, error);
    if (!error) bytes += size;
  }
  return bytes;
}

StatusOr<std::string> HeaderProblem(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::Unavailable("sqlite: cannot read store file " + path);
  std::array<unsigned char, kHeaderBytes> header{};
  in.read(reinterpret_cast<char*>(header.data()), header.size());
  const std::size_t read = static_cast<std::size_t>(in.gcount());
  if (read == 0) return std::string();  // an empty file: a store not created yet
  if (read < kMagic.size() ||
      std::memcmp(header.data(), kMagic.data(), kMagic.size()) != 0) {
    return std::string("its first bytes are not SQLite's header: it is not a SQLite database");
  }
  if (read < kHeaderBytes) {
    return "it ends after " + std::to_string(read) +
           " bytes, inside SQLite's 100-byte header: the file is truncated";
  }
  // Page size: a power of two from 512 to 32768, or 1 for 65536.
  const unsigned page_size = (static_cast<unsigned>(header[16]) << 8) | header[17];
  const bool valid_page_size =
      page_size == 1 || (page_size >= 512 && page_size <= 32768 && (page_size & (page_size - 1)) == 0);
  if (!valid_page_size) {
    return "its header gives page size " + std::to_string(page_size) +
           ", which SQLite never writes: the header is damaged";
  }
  // The payload fractions are fixed at 64, 32 and 32.
  if (header[21] != 64 || header[22] != 32 || header[23] != 32) {
    return std::string("its header's fixed payload fractions are not 64/32/32: the header is damaged");
  }
  return std::string();
}

StatusOr<IntegrityReport> CheckAtOpen(Connection& connection, std::uint64_t file_bytes,
                                      std::uint64_t seed) {
  IntegrityReport report;
  report.file_bytes = file_bytes;
  // One read transaction: a consistent snapshot, alongside other processes' writers (WAL).
  ScopedSqlTransaction read(connection, "BEGIN DEFERRED");
  RETURN_IF_ERROR(read.status());
  if (file_bytes <= kQuickCheckMaxBytes) {
    report.check = IntegrityCheck::kQuick;
    RETURN_IF_ERROR(CollectPragmaRows(
        connection, "PRAGMA quick_check(" + std::to_string(kMaxReportedProblems) + ")",
        &report.problems));
  } else {
    report.check = IntegrityCheck::kSampled;
    Sampler sampler(connection, seed, &report);
    RETURN_IF_ERROR(sampler.Run());
  }
  Status committed = read.Commit();
  if (!committed.ok() && !IsDamage(committed)) return committed;
  return report;
}

StatusOr<IntegrityReport> CheckStoreFile(const std::string& path, int busy_timeout_ms) {
  std::error_code error;
  if (!std::filesystem::exists(path, error)) {
    return Status::NotFound("sqlite: store file " + path + " does not exist");
  }
  IntegrityReport report;
  report.check = IntegrityCheck::kFull;
  report.file_bytes = StoreFileBytes(path);
  ASSIGN_OR_RETURN(const std::string header, HeaderProblem(path));
  if (!header.empty()) {
    report.check = IntegrityCheck::kHeader;
    report.problems.push_back(header);
    return report;
  }
  StatusOr<std::unique_ptr<Connection>> connection =
      Connection::Open(path, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, busy_timeout_ms);
  if (!connection.ok()) {
    if (!IsDamage(connection.status())) return connection.status();
    report.problems.push_back(connection.status().message());
    return report;
  }
  RETURN_IF_ERROR(CollectPragmaRows(
      **connection, "PRAGMA integrity_check(" + std::to_string(kMaxReportedProblems) + ")",
      &report.problems));
  return report;
}

Status DamagedStoreError(std::string_view path, const IntegrityReport& report) {
  const std::string first = report.problems.empty() ? "" : report.problems.front();
  std::string text = "sqlite: store " + std::string(path);
  switch (report.check) {
    case IntegrityCheck::kHeader:
      text += " is damaged or not a SQLite database (" + first + ")";
      break;
    case IntegrityCheck::kInUse:
      text += " is damaged (SQLite reported: " + first + ")";
      break;
    default:
      text += " is damaged (" + std::string(IntegrityCheckName(report.check)) + " found " +
              std::to_string(report.problems.size()) +
              (report.problems.size() == 1 ? " problem" : " problems") + ", first: " + first +
              ")";
  }
  text += "; engram does not read from or write to a damaged store. Keep a copy of the file "
          "(with any -wal beside it), run `engram check` for the full report, and restore the "
          "store from a backup, or ingest into a new store and `engram import` your scope "
          "exports into it";
  return Status::Corruption(std::move(text));
}

}  // namespace engram::store::sqlite
