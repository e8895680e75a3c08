// Which integer SIMD path this CPU runs (see simd_path.h).
#include "core/simd_path.h"

namespace engram {

std::string_view SimdPathName(SimdPath path) {
  switch (path) {
    case SimdPath::kScalar:
      return "scalar";
    case SimdPath::kAvx2:
      return "avx2";
    case SimdPath::kAvx512Vnni:
      return "avx512-vnni";
  }
  return "unknown";
}

bool SimdPathSupported(SimdPath path) {
  switch (path) {
    case SimdPath::kScalar:
      return true;
#if defined(__x86_64__) || defined(__i386__)
    case SimdPath::kAvx2:
      __builtin_cpu_init();
      return __builtin_cpu_supports("avx2");
    case SimdPath::kAvx512Vnni:
      __builtin_cpu_init();
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
             __builtin_cpu_supports("avx512vnni");
#else
    case SimdPath::kAvx2:
    case SimdPath::kAvx512Vnni:
      return false;
#endif
  }
  return false;
}

SimdPath BestSimdPath() {
  static const SimdPath best = [] {
    if (SimdPathSupported(SimdPath::kAvx512Vnni)) return SimdPath::kAvx512Vnni;
    if (SimdPathSupported(SimdPath::kAvx2)) return SimdPath::kAvx2;
    return SimdPath::kScalar;
  }();
  return best;
}

}  // namespace engram
