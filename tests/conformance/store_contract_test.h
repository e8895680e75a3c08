// The store contract suite: one set of tests that every store::Store backend must pass
// (DESIGN §10; STYLE "one contract suite for SQLite and PostgreSQL").
//
// A backend joins the suite with one line in its own test file (inside
// namespace engram::store::conformance):
//
//   ENGRAM_INSTANTIATE_STORE_CONTRACT(Sqlite, "sqlite",
//       [](const std::string& dir) { return store::OpenSqliteStore(dir + "/engram.db"); });
//
// A backend that needs a server passes a third argument, a function saying why it cannot be
// tested here ("" when it can), and its tests skip naming that reason. A SQL backend passes a
// fourth, its RawSql hook, for the checks of the schema itself.
//
// The factory opens the store that lives in `dir` (a fresh empty directory per test); called again
// with the same dir it must open the same store again (the persistence tests reopen).
// The suites: StoreContractTest (scopes, nodes, edges, journal, erase, persistence, concurrency)
// and EdgeRegistryContractTest (edge handler semantics through the registry).
#ifndef ENGRAM_TESTS_CONFORMANCE_STORE_CONTRACT_TEST_H_
#define ENGRAM_TESTS_CONFORMANCE_STORE_CONTRACT_TEST_H_

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>

#include "engram/status.h"
#include "engram/testing/temp_dir.h"
#include "store/store.h"

namespace engram::store::conformance {

using StoreFactory = std::function<StatusOr<std::unique_ptr<Store>>(const std::string& dir)>;

// Runs `sql` on the store in `dir` with the backend's own client, behind the store's back: the
// text of the first column of the first row ("" when there is none), or kInternal with the
// database's message. For the checks of the schema itself (triggers, the version in meta) that
// every SQL backend must pass: a schema change touches those tests in one file.
using RawSql =
    std::function<StatusOr<std::string>(const std::string& dir, const std::string& sql)>;

struct BackendParam {
  std::string name;  // test-name suffix: letters, digits and '_' only
  StoreFactory factory;
  // Why the backend cannot be tested here ("" = it can); a non-empty reason skips every test.
  std::function<std::string()> skip_reason;
  // The raw-SQL hook; unset: the tests that need it are skipped.
  RawSql raw_sql;
};

inline void PrintTo(const BackendParam& param, std::ostream* os) { *os << param.name; }

// Gives every test a fresh directory (removed after the test) and an open store. Not thread-safe (one fixture per test).
class StoreContractTest : public ::testing::TestWithParam<BackendParam> {
 protected:
  void SetUp() override;
  void TearDown() override;

  // Closes store_ and opens the store in dir_ again through the factory.
  void Reopen();

  // Creates a scope in its own committed transaction; node id = core::ScopeNodeId(path).
  ScopeRecord MakeScope(std::string_view path, std::int64_t parent_scope_id = 0);
  // A turn record in `scope_id` with the next sequence number taken in `txn`.
  NodeRecord NewTurn(Transaction& txn, std::int64_t scope_id, std::string_view text, Timestamp at);
  // Inserts a turn in its own committed transaction; returns the stored record.
  NodeRecord AddTurn(std::int64_t scope_id, std::string_view text, Timestamp at);

  engram::testing::TempDir temp_dir_{"engram_store_contract"};
  std::string dir_ = temp_dir_.path();
  std::unique_ptr<Store> store_;
};

// Same fixture; the edge-handler tests live in their own suite for readable output.
class EdgeRegistryContractTest : public StoreContractTest {};

std::string BackendName(const ::testing::TestParamInfo<BackendParam>& info);

// The schema 4 -> 5 conversion (turn_analysis_contract_test.cc): WriteVersion4Signals writes a
// turn with the signal nodes, derived_from edges and at_time edge the analysis stage of schema 4
// wrote; a backend's test takes the store back to schema 4 with its SQL (drops turn_analysis, sets
// schema_version 4), reopens it and calls ExpectMigratedToVersion5.
struct Version4Signals {
  ScopeRecord scope;
  std::string turn_id;
  std::int64_t turn_row = 0;
  std::string money_id;
  std::string date_id;
  std::string content_id;
  std::string at_time_id;
};
Version4Signals WriteVersion4Signals(Store& store);
void ExpectMigratedToVersion5(Store& store, const Version4Signals& written);

// The schema 6 -> 7 conversion (turn_analysis_contract_test.cc): WriteVersion6Analyses writes
// turns with format-1 (JSON) analysis rows, one that format 2 can hold and one it cannot; a
// backend's test takes the store back to schema 6 with its SQL (the analysis column as text, sets
// schema_version 6), reopens it and calls ExpectMigratedToVersion7.
struct Version6Analyses {
  ScopeRecord scope;
  std::int64_t compact_row = 0;  // a row format 2 holds
  std::string compact_text;      // its turn's text
  std::string compact_json;
  std::int64_t kept_row = 0;  // a row that stays JSON
  std::string kept_json;
  MerkleState merkle;  // the scope's Merkle state before
};
Version6Analyses WriteVersion6Analyses(Store& store);
void ExpectMigratedToVersion7(Store& store, const Version6Analyses& written);

// A store written with each vector precision in turn (`open` opens the one store with the
// precision given) reads every vector back as it was stored, by its own stored form
// (vector_contract_test.cc; each backend's own test file calls it with its options).
void ExpectMixedPrecisionVectorsReadBack(
    const std::function<std::unique_ptr<Store>(VectorPrecision)>& open);

}  // namespace engram::store::conformance

// Instantiates both contract suites for one backend. Use it inside
// namespace engram::store::conformance (GoogleTest needs the unqualified suite names).
// `skip_reason` (optional; nullptr when it always can) says why the backend cannot be tested
// here ("" = it can); `raw_sql` (optional) is its RawSql hook.
#define ENGRAM_INSTANTIATE_STORE_CONTRACT(prefix, name, factory, ...)                      \
  INSTANTIATE_TEST_SUITE_P(prefix, StoreContractTest,                                      \
                           ::testing::Values(BackendParam{name, factory __VA_OPT__(, ) __VA_ARGS__}),  \
                           BackendName);                                                   \
  INSTANTIATE_TEST_SUITE_P(prefix, EdgeRegistryContractTest,                               \
                           ::testing::Values(BackendParam{name, factory __VA_OPT__(, ) __VA_ARGS__}),  \
                           BackendName)

#endif  // ENGRAM_TESTS_CONFORMANCE_STORE_CONTRACT_TEST_H_
