// The libFuzzer entry point of one fuzz target, chosen at compile time by ENGRAM_FUZZ_FUNCTION
// (tests/fuzz/CMakeLists.txt builds one binary per target when ENGRAM_FUZZ is on).
#include "fuzz_targets.h"

#ifndef ENGRAM_FUZZ_FUNCTION
#error "ENGRAM_FUZZ_FUNCTION must name a function of fuzz_targets.h"
#endif

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return engram::fuzz::ENGRAM_FUZZ_FUNCTION(data, size);
}
