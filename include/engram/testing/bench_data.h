// The development benchmark files for tests that read them (the LoCoMo and LongMemEval importers,
// the CLI on a real conversation), and what such a test does when a file is not there.
//
//   TEST(LocomoTest, ImportsTheDevelopmentFile) {
//     const std::string path = engram::testing::BenchDataFile("locomo_dev.json");
//     ENGRAM_SKIP_WITHOUT_BENCH_FILE(path);
//     ...
//   }
//
// The folder is $ENGRAM_BENCH_DATA when set, else the build's ENGRAM_BENCH_DATA_DIR (a CMake
// cache variable; default: shared/bench beside the source tree). A fresh clone has no such folder:
// the test is skipped with a message naming the missing file. With ENGRAM_REQUIRE_BENCH_DATA=1
// (what the CI sets) a missing file fails the test instead, so the CI never passes on skips.
#ifndef ENGRAM_TESTING_BENCH_DATA_H_
#define ENGRAM_TESTING_BENCH_DATA_H_

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>

#ifndef ENGRAM_BENCH_DATA_DIR
#define ENGRAM_BENCH_DATA_DIR "../shared/bench"
#endif

namespace engram::testing {

// The path of the benchmark file `name` (whether or not it exists).
inline std::string BenchDataFile(std::string_view name) {
  const char* env = std::getenv("ENGRAM_BENCH_DATA");
  return (std::filesystem::path(env != nullptr ? env : ENGRAM_BENCH_DATA_DIR) / name).string();
}

// True when ENGRAM_REQUIRE_BENCH_DATA is "1": a missing benchmark file is a failure.
inline bool BenchDataRequired() {
  const char* env = std::getenv("ENGRAM_REQUIRE_BENCH_DATA");
  return env != nullptr && std::string_view(env) == "1";
}

}  // namespace engram::testing

// Skips the current test, naming `path`, when the file does not exist; fails it instead when
// ENGRAM_REQUIRE_BENCH_DATA=1. Use at the top level of a test body (it returns from it).
#define ENGRAM_SKIP_WITHOUT_BENCH_FILE(path)                                              \
  do {                                                                                    \
    const std::string engram_bench_file_ = (path);                                        \
    if (!std::filesystem::exists(engram_bench_file_)) {                                   \
      if (::engram::testing::BenchDataRequired()) {                                       \
        FAIL() << engram_bench_file_                                                      \
               << " not found and ENGRAM_REQUIRE_BENCH_DATA=1 (set ENGRAM_BENCH_DATA or " \
                  "-DENGRAM_BENCH_DATA_DIR to the folder holding the benchmark files)";   \
      }                                                                                   \
      GTEST_SKIP() << engram_bench_file_                                                  \
                   << " not found: benchmark data is not beside this clone (set "         \
                      "ENGRAM_BENCH_DATA or -DENGRAM_BENCH_DATA_DIR; "                    \
                      "ENGRAM_REQUIRE_BENCH_DATA=1 makes this a failure)";                \
    }                                                                                     \
  } while (false)

#endif  // ENGRAM_TESTING_BENCH_DATA_H_
