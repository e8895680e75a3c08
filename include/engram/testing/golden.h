// Golden files (tests/golden/): every run checks the code's output against the file and never
// writes it. Rewriting is an explicit step taken by hand:
//
//   ENGRAM_UPDATE_GOLDEN=1 build/src/write/engram_write_test --gtest_filter='*Golden*'
//   git diff tests/golden/        # review the change, then commit it with the code
//
// With ENGRAM_UPDATE_GOLDEN=1 a golden test writes the file from the code's output and is reported
// as skipped (naming the file), so an update run never counts as a pass.
#ifndef ENGRAM_TESTING_GOLDEN_H_
#define ENGRAM_TESTING_GOLDEN_H_

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

namespace engram::testing {

// True when ENGRAM_UPDATE_GOLDEN is "1".
inline bool UpdateGoldenRequested() {
  const char* env = std::getenv("ENGRAM_UPDATE_GOLDEN");
  return env != nullptr && std::string_view(env) == "1";
}

// 1-based number of the first line where `a` and `b` differ (a line past the shorter one when one
// is a prefix of the other), or 0 when they are equal.
inline std::size_t FirstDifferentLine(std::string_view a, std::string_view b) {
  if (a == b) return 0;
  std::size_t line = 1;
  for (std::size_t pos = 0; pos < a.size() && pos < b.size() && a[pos] == b[pos]; ++pos) {
    if (a[pos] == '\n') ++line;
  }
  return line;
}

// The text of line `number` (1-based) of `text`, or "(end of file)".
inline std::string LineOf(std::string_view text, std::size_t number) {
  std::size_t begin = 0;
  for (std::size_t line = 1; line < number; ++line) {
    begin = text.find('\n', begin);
    if (begin == std::string_view::npos) return "(end of file)";
    ++begin;
  }
  if (begin >= text.size()) return "(end of file)";
  const std::size_t end = text.find('\n', begin);
  return std::string(text.substr(begin, end == std::string_view::npos ? end : end - begin));
}

// Checks `actual` against the golden file at `path` (whole-file, byte for byte): a mismatch fails
// the test naming the file and the first differing line. Under ENGRAM_UPDATE_GOLDEN=1 writes
// `actual` to `path` instead and skips the test. Call it last in a test body.
inline void CheckGoldenFile(const std::string& path, const std::string& actual) {
  if (UpdateGoldenRequested()) {
    std::ofstream out(path, std::ios::binary);
    out << actual;
    ASSERT_TRUE(out.good()) << "cannot write " << path;
    GTEST_SKIP() << "ENGRAM_UPDATE_GOLDEN=1: rewrote " << path << " (review git diff)";
  }
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in.is_open()) << "missing golden file " << path
                            << " (ENGRAM_UPDATE_GOLDEN=1 writes it from the code's output)";
  std::stringstream expected;
  expected << in.rdbuf();
  const std::size_t line = FirstDifferentLine(expected.str(), actual);
  EXPECT_EQ(line, 0u) << path << " differs from the code's output at line " << line
                      << "\n  golden: " << LineOf(expected.str(), line)
                      << "\n  actual: " << LineOf(actual, line)
                      << "\nIf the change is intended, rerun with ENGRAM_UPDATE_GOLDEN=1 and "
                         "review git diff tests/golden/.";
}

}  // namespace engram::testing

#endif  // ENGRAM_TESTING_GOLDEN_H_
