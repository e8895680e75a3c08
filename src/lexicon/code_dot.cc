// Integer dot products of int8 word-vector codes (see code_dot.h).
#include "lexicon/code_dot.h"

#include <algorithm>
#include <cstring>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define ENGRAM_LEXICON_X86 1
#endif

namespace engram::lexicon::internal {
namespace {

constexpr std::size_t kGroupBytes = kGroup * kPanelRows;  // one group of a panel: 64 bytes

void PanelDotsScalar(const std::int8_t* queries, std::size_t query_count,
                     const std::int8_t* panels, std::size_t panel_count, std::size_t width,
                     std::int32_t* out) {
  const std::size_t panel_bytes = width * kPanelRows;
  for (std::size_t panel = 0; panel < panel_count; ++panel) {
    const std::int8_t* codes = panels + panel * panel_bytes;
    for (std::size_t query = 0; query < query_count; ++query) {
      const std::int8_t* query_codes = queries + query * width;
      std::int32_t sums[kPanelRows] = {};
      for (std::size_t group = 0; group < width / kGroup; ++group) {
        const std::int8_t* group_codes = codes + group * kGroupBytes;
        for (std::size_t row = 0; row < kPanelRows; ++row) {
          for (std::size_t index = 0; index < kGroup; ++index) {
            sums[row] += static_cast<std::int32_t>(query_codes[group * kGroup + index]) *
                         static_cast<std::int32_t>(group_codes[row * kGroup + index]);
          }
        }
      }
      std::memcpy(out + (panel * query_count + query) * kPanelRows, sums, sizeof sums);
    }
  }
}

std::int32_t LoadGroup(const void* codes) {
  std::int32_t group;
  std::memcpy(&group, codes, sizeof group);
  return group;
}

#if defined(ENGRAM_LEXICON_X86)

#define ENGRAM_AVX2_TARGET __attribute__((target("avx2")))
#define ENGRAM_AVX512_TARGET __attribute__((target("avx512f,avx512bw,avx512vnni")))

// |q| · (r with q's signs) = q · r bytewise; |q|, |r| ≤ 127, so vpmaddubsw's pair sums
// (≤ 2 · 127²) never saturate int16. A 32-byte half of a group holds 8 rows.
ENGRAM_AVX2_TARGET void PanelDotsAvx2(const std::int8_t* queries, std::size_t query_count,
                                      const std::int8_t* panels, std::size_t panel_count,
                                      std::size_t width, std::int32_t* out) {
  const std::size_t panel_bytes = width * kPanelRows;
  const std::size_t groups = width / kGroup;
  const __m256i ones = _mm256_set1_epi16(1);
  for (std::size_t panel = 0; panel < panel_count; ++panel) {
    const std::int8_t* codes = panels + panel * panel_bytes;
    for (std::size_t query = 0; query < query_count; ++query) {
      const std::int8_t* query_codes = queries + query * width;
      __m256i low = _mm256_setzero_si256();   // rows 0-7
      __m256i high = _mm256_setzero_si256();  // rows 8-15
      for (std::size_t group = 0; group < groups; ++group) {
        const __m256i q = _mm256_set1_epi32(LoadGroup(query_codes + group * kGroup));
        const __m256i magnitude = _mm256_abs_epi8(q);
        const std::int8_t* group_codes = codes + group * kGroupBytes;
        const __m256i first = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(group_codes));
        const __m256i second =
            _mm256_loadu_si256(reinterpret_cast<const __m256i*>(group_codes + 32));
        low = _mm256_add_epi32(
            low, _mm256_madd_epi16(_mm256_maddubs_epi16(magnitude, _mm256_sign_epi8(first, q)),
                                   ones));
        high = _mm256_add_epi32(
            high, _mm256_madd_epi16(_mm256_maddubs_epi16(magnitude, _mm256_sign_epi8(second, q)),
                                    ones));
      }
      std::int32_t* sums = out + (panel * query_count + query) * kPanelRows;
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(sums), low);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(sums + 8), high);
    }
  }
}

// GCC 12's AVX-512 headers fill unused mask-merge operands with _mm512_undefined_*(), which
// -Wuninitialized reports falsely once inlined here.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

// vpdpbusd multiplies unsigned by signed bytes: the query codes come offset by 128 into
// [1, 255], and 128 · Σ r is taken back per row. Up to four queries share each panel load.
ENGRAM_AVX512_TARGET void PanelDotsAvx512(const std::uint8_t* offset_queries,
                                          std::size_t query_count, const std::int8_t* panels,
                                          const std::int32_t* row_sums, std::size_t panel_count,
                                          std::size_t width, std::int32_t* out) {
  constexpr std::size_t kQueriesAtOnce = 4;
  const std::size_t panel_bytes = width * kPanelRows;
  const std::size_t groups = width / kGroup;
  for (std::size_t panel = 0; panel < panel_count; ++panel) {
    const std::int8_t* codes = panels + panel * panel_bytes;
    const __m512i offset = _mm512_slli_epi32(_mm512_loadu_si512(row_sums + panel * kPanelRows), 7);
    for (std::size_t first = 0; first < query_count; first += kQueriesAtOnce) {
      const std::size_t count = std::min(kQueriesAtOnce, query_count - first);
      __m512i sums[kQueriesAtOnce] = {_mm512_setzero_si512(), _mm512_setzero_si512(),
                                      _mm512_setzero_si512(), _mm512_setzero_si512()};
      for (std::size_t group = 0; group < groups; ++group) {
        const __m512i rows = _mm512_loadu_si512(codes + group * kGroupBytes);
#pragma GCC unroll 4
        for (std::size_t q = 0; q < kQueriesAtOnce; ++q) {
          if (q < count) {
            const __m512i broadcast = _mm512_set1_epi32(
                LoadGroup(offset_queries + (first + q) * width + group * kGroup));
            sums[q] = _mm512_dpbusd_epi32(sums[q], broadcast, rows);
          }
        }
      }
      for (std::size_t q = 0; q < count; ++q) {
        _mm512_storeu_si512(out + (panel * query_count + first + q) * kPanelRows,
                            _mm512_sub_epi32(sums[q], offset));
      }
    }
  }
}

#pragma GCC diagnostic pop

#endif  // ENGRAM_LEXICON_X86

}  // namespace

void PanelDots(SimdPath path, const std::int8_t* queries, std::size_t query_count,
               const std::int8_t* panels, const std::int32_t* row_sums, std::size_t panel_count,
               std::size_t width, std::int32_t* out) {
  switch (path) {
#if defined(ENGRAM_LEXICON_X86)
    case SimdPath::kAvx512Vnni: {
      std::vector<std::uint8_t> offset_queries(query_count * width);
      for (std::size_t i = 0; i < offset_queries.size(); ++i) {
        offset_queries[i] = static_cast<std::uint8_t>(queries[i] + 128);
      }
      PanelDotsAvx512(offset_queries.data(), query_count, panels, row_sums, panel_count, width,
                      out);
      return;
    }
    case SimdPath::kAvx2:
      PanelDotsAvx2(queries, query_count, panels, panel_count, width, out);
      return;
#else
    case SimdPath::kAvx512Vnni:
    case SimdPath::kAvx2:
#endif
    case SimdPath::kScalar:
      break;
  }
  PanelDotsScalar(queries, query_count, panels, panel_count, width, out);
}

}  // namespace engram::lexicon::internal
