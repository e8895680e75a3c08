// The integer SIMD code paths of engram's int8 kernels (the sentence encoder's dense layers,
// embed/quantized_kernel.h; the word-vector code dot products, lexicon/code_dot.h), and which of
// them this CPU runs. Each kernel computes the same exact integer sums on every path, so the
// choice changes speed, never results.
#ifndef ENGRAM_CORE_SIMD_PATH_H_
#define ENGRAM_CORE_SIMD_PATH_H_

#include <string_view>

namespace engram {

enum class SimdPath {
  kScalar,      // portable C++
  kAvx2,        // x86-64 with AVX2
  kAvx512Vnni,  // x86-64 with AVX-512 F/BW and VNNI
};

// "scalar", "avx2", "avx512-vnni".
std::string_view SimdPathName(SimdPath path);
// Whether this CPU runs `path` (kScalar always; the others only on x86-64 with those features).
bool SimdPathSupported(SimdPath path);
// The fastest path this CPU supports, decided once per process (thread-safe), from the CPU's
// features rather than through ifunc (sanitizer runtimes that start after ifunc resolution
// still work).
SimdPath BestSimdPath();

}  // namespace engram

#endif  // ENGRAM_CORE_SIMD_PATH_H_
