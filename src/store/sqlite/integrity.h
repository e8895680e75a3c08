// Damage checks of a SQLite store file: the cheap one every open runs, and the full one of
// `engram check`.
//
// Every open checks the file's 100-byte header (SQLite's magic string, a valid page size, the
// fixed payload fractions) and then the database itself:
//   - a store of at most kQuickCheckMaxBytes (the file and its write-ahead log) runs
//     `PRAGMA quick_check`, which reads every page once and checks every B-tree's structure
//     (no index-against-table comparison; that is integrity_check's extra work);
//   - a larger store runs a bounded, sampled check: `PRAGMA quick_check(<table>)` of the small
//     tables (meta, scopes, merkle_roots; the schema table is read by every open), then
//     kProbesPerBtree probes of every other table, each a descent from the root to a random row,
//     read whole (its overflow pages too), and for every index of the table a descent to that
//     row's value, which must be there, up to kProbeByteBudget bytes read. The probes are drawn
//     anew at every open. Damage in a page they do not reach is found later, by the read that
//     reaches it (the store then refuses writes), or by `engram check`.
// A damaged store is refused with kCorruption naming the file and what to do (DamagedStoreError).
//
//   ASSIGN_OR_RETURN(IntegrityReport report, CheckAtOpen(connection, file_bytes, seed));
//   if (!report.ok()) return DamagedStoreError(path, report);
//
// `CheckStoreFile` runs the full `PRAGMA integrity_check` on a read connection of its own and
// reports what it finds instead of failing, so `engram check` can print it.
#ifndef ENGRAM_STORE_SQLITE_INTEGRITY_H_
#define ENGRAM_STORE_SQLITE_INTEGRITY_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engram/status.h"
#include "store/sqlite/connection.h"

namespace engram::store::sqlite {

// Up to this size (store file + write-ahead log) an open runs `PRAGMA quick_check` over the whole
// store. It reads every page, about 1.1 ms per MB with the file in the page cache (10 ms for the
// 8.5 MB LoCoMo dev store, 227 ms for a 206 MB LongMemEval store; docs/RELIABILITY.md), so this
// bounds it near 70 ms. Larger stores get the sampled check (3 ms on the 206 MB store).
inline constexpr std::uint64_t kQuickCheckMaxBytes = 64ull << 20;  // 64 MiB
// Rows probed per table (and so index entries looked up per index) by the sampled check.
inline constexpr int kProbesPerBtree = 32;
// The sampled check stops probing once it has read this many bytes of row data: projection
// snapshots and vectors are large rows.
inline constexpr std::uint64_t kProbeByteBudget = 16ull << 20;  // 16 MiB
// integrity_check and quick_check stop after this many problems.
inline constexpr int kMaxReportedProblems = 100;

enum class IntegrityCheck {
  kHeader,   // the file's 100-byte header alone
  kQuick,    // PRAGMA quick_check over the whole store
  kSampled,  // small tables' quick_check and random probes of the others (large stores)
  kFull,     // PRAGMA integrity_check (engram check)
  kInUse,    // none: SQLite reported damage while the store was in use
};
std::string_view IntegrityCheckName(IntegrityCheck check);  // "quick_check", "sampled", ...

// What one check ran and found.
struct IntegrityReport {
  IntegrityCheck check = IntegrityCheck::kQuick;
  std::vector<std::string> problems;  // SQLite's wording, at most kMaxReportedProblems; empty = ok
  std::uint64_t file_bytes = 0;       // the store file and its write-ahead log
  std::int64_t probes = 0;            // kSampled: rows and index entries looked up
  bool ok() const { return problems.empty(); }
};

// The header of the file at `path`: "" when its first 100 bytes are a SQLite header (or the file
// is empty: a store not created yet), else what is wrong, for a message ("its first bytes are
// not SQLite's header: not a SQLite database"). kUnavailable when the file cannot be read.
StatusOr<std::string> HeaderProblem(const std::string& path);

// The open-time check on `connection` (the store's connection, outside any transaction): a
// quick_check when `file_bytes` <= kQuickCheckMaxBytes, else the sampled check with probes drawn
// from `seed`. A SQLite error that says the file is damaged (SQLITE_CORRUPT, SQLITE_NOTADB) is a
// problem of the report; other errors (I/O, busy) are returned.
StatusOr<IntegrityReport> CheckAtOpen(Connection& connection, std::uint64_t file_bytes,
                                      std::uint64_t seed);

// The full check of the store file at `path` (its header, then `PRAGMA integrity_check` on a
// read-only connection): damage is reported, not returned. kNotFound for a missing file; other
// errors (cannot open, busy) as Status.
StatusOr<IntegrityReport> CheckStoreFile(const std::string& path, int busy_timeout_ms);

// The error that refuses a damaged store: kCorruption naming the file, the check and its first
// problems, and what to do.
Status DamagedStoreError(std::string_view path, const IntegrityReport& report);

// Bytes of the store file at `path` and its write-ahead log (0 for a missing file).
std::uint64_t StoreFileBytes(const std::string& path);

}  // namespace engram::store::sqlite

#endif  // ENGRAM_STORE_SQLITE_INTEGRITY_H_
