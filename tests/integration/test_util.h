// Helpers shared by the integration suites: engines with a fixed clock in a temporary directory
// (TempDir: engram/testing/temp_dir.h), turn builders, raw file reads.
#ifndef ENGRAM_TESTS_INTEGRATION_TEST_UTIL_H_
#define ENGRAM_TESTS_INTEGRATION_TEST_UTIL_H_

#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "engram/engine.h"
#include "engram/testing/temp_dir.h"

namespace engram::testing {

// Options for a store in `dir` with a clock fixed at 2024-01-01T00:00:00Z stepping 1 ms per call.
EngineOptions TestOptions(const TempDir& dir, const std::string& name = "engram.db");

// Where a suite parameterised over store backends (backend_suites.h) keeps its stores.
struct StoreBackend {
  std::string name;  // test-name suffix: letters, digits and '_' only
  // The location of store `name` of the test directory `dir` (a file in it, or a database named
  // after both); the same arguments give the same store.
  std::function<std::string(const TempDir& dir, const std::string& name)> locate;
  // Why the backend cannot be tested here; "" (or unset) when it can.
  std::function<std::string()> skip_reason;
};
inline void PrintTo(const StoreBackend& backend, std::ostream* os) { *os << backend.name; }

// SQLite: the file `name` in `dir`.
StoreBackend SqliteBackend();

// TestOptions with the store where `backend` puts it.
EngineOptions TestOptions(const StoreBackend& backend, const TempDir& dir,
                          const std::string& name = "engram.db");

std::unique_ptr<Engine> OpenOrDie(const EngineOptions& options);

Turn MakeTurn(std::string speaker, std::string text, std::string session = "s1",
              std::string event_time = "2023-05-08T13:56:00Z");

Scope S(const std::string& text);  // Scope::Parse or die

// The whole file, or "" if it does not exist.
std::string ReadFileBytes(const std::string& path);

// Ids of the items of a recall, in rank order.
std::vector<std::string> ItemIds(const ReadResult& result);

}  // namespace engram::testing

#endif  // ENGRAM_TESTS_INTEGRATION_TEST_UTIL_H_
