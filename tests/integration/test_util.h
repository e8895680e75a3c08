// Helpers shared by the integration suites: engines with a fixed clock in a temporary directory
// (TempDir: engram/testing/temp_dir.h), turn builders, raw file reads.
#ifndef ENGRAM_TESTS_INTEGRATION_TEST_UTIL_H_
#define ENGRAM_TESTS_INTEGRATION_TEST_UTIL_H_

#include <memory>
#include <string>
#include <vector>

#include "engram/engine.h"
#include "engram/testing/temp_dir.h"

namespace engram::testing {

// Options for a store in `dir` with a clock fixed at 2024-01-01T00:00:00Z stepping 1 ms per call.
EngineOptions TestOptions(const TempDir& dir, const std::string& name = "engram.db");

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
