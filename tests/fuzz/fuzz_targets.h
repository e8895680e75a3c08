// The fuzz targets: one function per input surface, each taking arbitrary bytes. libFuzzer
// binaries (built with ENGRAM_FUZZ=ON by scripts/fuzz) call one of them from
// LLVMFuzzerTestOneInput; the replay test (fuzz_replay_test.cc) runs every seed and regression
// input through all of them in the normal test suite.
//
// A target never fails for bad input (errors are expected); it aborts, through FUZZ_CHECK, when
// an invariant the code promises does not hold, so the fuzzer reports it like a crash.
#ifndef ENGRAM_TESTS_FUZZ_FUZZ_TARGETS_H_
#define ENGRAM_TESTS_FUZZ_FUZZ_TARGETS_H_

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ostream>
#include <string_view>

#define FUZZ_CHECK(condition)                                                                \
  do {                                                                                       \
    if (!(condition)) {                                                                      \
      std::fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #condition); \
      std::abort();                                                                          \
    }                                                                                        \
  } while (false)

namespace engram::fuzz {

using FuzzFunction = int (*)(const std::uint8_t* data, std::size_t size);

int FuzzTurnsJsonl(const std::uint8_t* data, std::size_t size);
int FuzzLocomo(const std::uint8_t* data, std::size_t size);
int FuzzLongMemEval(const std::uint8_t* data, std::size_t size);
int FuzzTemporal(const std::uint8_t* data, std::size_t size);
int FuzzSignals(const std::uint8_t* data, std::size_t size);
int FuzzQueryFrame(const std::uint8_t* data, std::size_t size);
int FuzzConfig(const std::uint8_t* data, std::size_t size);
int FuzzHttpRequest(const std::uint8_t* data, std::size_t size);

struct FuzzTarget {
  std::string_view name;  // also the folder of its corpus and regression inputs
  FuzzFunction run;
};

inline constexpr FuzzTarget kFuzzTargets[] = {
    {"turns_jsonl", FuzzTurnsJsonl}, {"locomo", FuzzLocomo},   {"longmemeval", FuzzLongMemEval},
    {"temporal", FuzzTemporal},      {"signals", FuzzSignals}, {"query_frame", FuzzQueryFrame},
    {"config", FuzzConfig},          {"http_request", FuzzHttpRequest},
};

// Names the target in test output (gtest's default prints the struct's bytes).
inline void PrintTo(const FuzzTarget& target, std::ostream* out) { *out << target.name; }

inline std::string_view AsText(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

}  // namespace engram::fuzz

#endif  // ENGRAM_TESTS_FUZZ_FUZZ_TARGETS_H_
