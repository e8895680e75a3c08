// Int8 dense-layer kernel (see quantized_kernel.h).
//
// The build must not enable -ffast-math or FP contraction for this file (CMakeLists.txt passes
// -ffp-contract=off): the quantisation and dequantisation must be the same IEEE operations on
// every path. The integer sums may be computed in any order; they are exact.
#include "embed/quantized_kernel.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define ENGRAM_EMBED_X86 1
#endif

namespace engram::embed::internal {
namespace {

constexpr std::size_t kPanel = QuantizedWeights::kPanelWidth;
constexpr std::size_t kGroup = QuantizedWeights::kDepthGroup;
constexpr std::size_t kGroupBytes = kPanel * kGroup;  // one depth group of one panel: 64 bytes

// Rounds to the nearest integer, ties to even, for |value| < 2²²: adding 1.5·2²³ leaves no
// fraction bits, so the addition itself rounds (IEEE round-to-nearest-even).
inline std::int32_t RoundToInt(float value) {
  constexpr float kMagic = 12582912.0f;  // 1.5 · 2²³
  return static_cast<std::int32_t>((value + kMagic) - kMagic);
}

// Dequantises one row's 16 integer sums (columns [column, column + 16)) into `out`.
inline void Finish(const std::int32_t* sums, std::int32_t zero_point, float row_scale,
                   const QuantizedWeights& weights, std::size_t column, const float* bias,
                   bool relu, float* out) {
  const std::int32_t* column_sums = weights.column_sums() + column;
  const float* scales = weights.scales() + column;
  for (std::size_t lane = 0; lane < kPanel; ++lane) {
    const std::int32_t centred = sums[lane] - zero_point * column_sums[lane];
    float value = static_cast<float>(centred) * (row_scale * scales[lane]) + bias[column + lane];
    if (relu) value = value > 0.0f ? value : 0.0f;
    out[lane] = value;
  }
}

inline std::int32_t LoadGroup(const std::uint8_t* codes) {
  std::int32_t group;
  std::memcpy(&group, codes, sizeof(group));
  return group;
}

// ---------------------------------------------------------------------------------------------
// Portable path: one row, one panel at a time.

void KernelScalar(const QuantizedRows& input, const QuantizedWeights& weights, const float* bias,
                  bool relu, float* output, std::size_t output_stride) {
  const std::size_t depth = weights.input_width();
  const std::size_t panels = weights.output_width() / kPanel;
  for (std::size_t row = 0; row < input.rows; ++row) {
    const std::uint8_t* codes = input.codes.data() + row * depth;
    for (std::size_t panel_index = 0; panel_index < panels; ++panel_index) {
      const std::int8_t* panel = weights.panel(panel_index);
      std::int32_t sums[kPanel] = {};
      for (std::size_t group = 0; group < depth / kGroup; ++group) {
        const std::uint8_t* group_codes = codes + group * kGroup;
        const std::int8_t* group_weights = panel + group * kGroupBytes;
        for (std::size_t lane = 0; lane < kPanel; ++lane) {
          for (std::size_t index = 0; index < kGroup; ++index) {
            sums[lane] += static_cast<std::int32_t>(group_codes[index]) *
                          static_cast<std::int32_t>(group_weights[lane * kGroup + index]);
          }
        }
      }
      Finish(sums, input.zero_points[row], input.scales[row], weights, panel_index * kPanel, bias,
             relu, output + row * output_stride + panel_index * kPanel);
    }
  }
}

#if defined(ENGRAM_EMBED_X86)

// ---------------------------------------------------------------------------------------------
// AVX-512 VNNI: vpdpbusd adds four u8·s8 products into each int32 lane, 16 columns per register.
// A tile is kRows rows × kPanels panels (16 accumulators at 4 × 4), each weight load serving
// kRows rows and each code broadcast kPanels panels.

#define ENGRAM_AVX512_TARGET __attribute__((target("avx512f,avx512bw,avx512vnni")))

// GCC 12's AVX-512 headers fill unused mask-merge operands with _mm512_undefined_*(), which
// -Wuninitialized reports falsely once inlined here.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

template <std::size_t kRows, std::size_t kPanels>
ENGRAM_AVX512_TARGET inline void TileAvx512(const QuantizedRows& input,
                                            const QuantizedWeights& weights, std::size_t row,
                                            std::size_t first_panel, const float* bias, bool relu,
                                            float* output, std::size_t output_stride) {
  // The small loops are unrolled so that the accumulators live in registers.
  const std::size_t depth = weights.input_width();
  __m512i sums[kRows][kPanels];
#pragma GCC unroll 8
  for (std::size_t r = 0; r < kRows; ++r) {
#pragma GCC unroll 8
    for (std::size_t p = 0; p < kPanels; ++p) sums[r][p] = _mm512_setzero_si512();
  }
  const std::int8_t* panel = weights.panel(first_panel);
  const std::size_t panel_stride = depth * kPanel;  // bytes from one panel to the next
  const std::uint8_t* codes = input.codes.data() + row * depth;
  for (std::size_t group = 0; group < depth / kGroup; ++group) {
    __m512i panel_weights[kPanels];
#pragma GCC unroll 8
    for (std::size_t p = 0; p < kPanels; ++p) {
      panel_weights[p] = _mm512_loadu_si512(panel + p * panel_stride + group * kGroupBytes);
    }
#pragma GCC unroll 8
    for (std::size_t r = 0; r < kRows; ++r) {
      const __m512i broadcast = _mm512_set1_epi32(LoadGroup(codes + r * depth + group * kGroup));
#pragma GCC unroll 8
      for (std::size_t p = 0; p < kPanels; ++p) {
        sums[r][p] = _mm512_dpbusd_epi32(sums[r][p], broadcast, panel_weights[p]);
      }
    }
  }
  // Finish's arithmetic, 16 lanes at a time: the same IEEE operations in the same order, and
  // max(x, +0) returns +0 for ±0 and NaN exactly as Finish's comparison does.
  const __m512 zero = _mm512_setzero_ps();
#pragma GCC unroll 8
  for (std::size_t r = 0; r < kRows; ++r) {
    const __m512i zero_point = _mm512_set1_epi32(input.zero_points[row + r]);
    const __m512 row_scale = _mm512_set1_ps(input.scales[row + r]);
    float* out = output + (row + r) * output_stride;
#pragma GCC unroll 8
    for (std::size_t p = 0; p < kPanels; ++p) {
      const std::size_t column = (first_panel + p) * kPanel;
      const __m512i centred = _mm512_sub_epi32(
          sums[r][p],
          _mm512_mullo_epi32(zero_point, _mm512_loadu_si512(weights.column_sums() + column)));
      const __m512 scale = _mm512_mul_ps(row_scale, _mm512_loadu_ps(weights.scales() + column));
      __m512 value = _mm512_add_ps(_mm512_mul_ps(_mm512_cvtepi32_ps(centred), scale),
                                   _mm512_loadu_ps(bias + column));
      if (relu) value = _mm512_max_ps(value, zero);
      _mm512_storeu_ps(out + column, value);
    }
  }
}

template <std::size_t kPanels>
ENGRAM_AVX512_TARGET inline void PanelsAvx512(const QuantizedRows& input,
                                              const QuantizedWeights& weights,
                                              std::size_t first_panel, const float* bias,
                                              bool relu, float* output,
                                              std::size_t output_stride) {
  std::size_t row = 0;
  for (; row + 4 <= input.rows; row += 4) {
    TileAvx512<4, kPanels>(input, weights, row, first_panel, bias, relu, output, output_stride);
  }
  for (; row < input.rows; ++row) {
    TileAvx512<1, kPanels>(input, weights, row, first_panel, bias, relu, output, output_stride);
  }
}

ENGRAM_AVX512_TARGET void KernelAvx512(const QuantizedRows& input,
                                       const QuantizedWeights& weights, const float* bias,
                                       bool relu, float* output, std::size_t output_stride) {
  const std::size_t panels = weights.output_width() / kPanel;
  std::size_t panel = 0;
  for (; panel + 4 <= panels; panel += 4) {
    PanelsAvx512<4>(input, weights, panel, bias, relu, output, output_stride);
  }
  for (; panel < panels; ++panel) {
    PanelsAvx512<1>(input, weights, panel, bias, relu, output, output_stride);
  }
}

// QuantizeRows's range and codes for one row, 16 floats at a time: min and max are exact in any
// order, and each code is the same multiply, add, subtract and clamp as RoundToInt's.
ENGRAM_AVX512_TARGET void RangeAvx512(const float* in, std::size_t depth, float& low,
                                      float& high) {
  __m512 lows = _mm512_setzero_ps();
  __m512 highs = _mm512_setzero_ps();
  std::size_t column = 0;
  for (; column + 16 <= depth; column += 16) {
    const __m512 values = _mm512_loadu_ps(in + column);
    lows = _mm512_min_ps(lows, values);
    highs = _mm512_max_ps(highs, values);
  }
  low = std::min(0.0f, _mm512_reduce_min_ps(lows));
  high = std::max(0.0f, _mm512_reduce_max_ps(highs));
  for (; column < depth; ++column) {
    low = std::min(low, in[column]);
    high = std::max(high, in[column]);
  }
}

ENGRAM_AVX512_TARGET void CodesAvx512(const float* in, std::size_t depth, float inverse,
                                      std::int32_t zero_point, std::uint8_t* codes) {
  const __m512 magic = _mm512_set1_ps(12582912.0f);
  const __m512 scale = _mm512_set1_ps(inverse);
  const __m512i offset = _mm512_set1_epi32(zero_point);
  const __m512i lowest = _mm512_setzero_si512();
  const __m512i highest = _mm512_set1_epi32(255);
  std::size_t column = 0;
  for (; column + 16 <= depth; column += 16) {
    const __m512 scaled = _mm512_mul_ps(_mm512_loadu_ps(in + column), scale);
    const __m512 rounded = _mm512_sub_ps(_mm512_add_ps(scaled, magic), magic);
    __m512i code = _mm512_add_epi32(_mm512_cvttps_epi32(rounded), offset);
    code = _mm512_min_epi32(_mm512_max_epi32(code, lowest), highest);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(codes + column), _mm512_cvtepi32_epi8(code));
  }
  for (; column < depth; ++column) {
    codes[column] = static_cast<std::uint8_t>(
        std::clamp(RoundToInt(in[column] * inverse) + zero_point, 0, 255));
  }
}

#pragma GCC diagnostic pop

// ---------------------------------------------------------------------------------------------
// AVX2: codes and weights widened to 16 bits, vpmaddwd adds pairs of products into int32 lanes
// (at most 2 · 255 · 127, so nothing saturates). A register holds 4 columns × 2 pair sums; the
// pairs are added at the end. Tiles of 2 rows × 1 panel fit the 16 registers.

#define ENGRAM_AVX2_TARGET __attribute__((target("avx2")))

template <std::size_t kRows>
ENGRAM_AVX2_TARGET inline void TileAvx2(const QuantizedRows& input,
                                        const QuantizedWeights& weights, std::size_t row,
                                        std::size_t panel_index, const float* bias, bool relu,
                                        float* output, std::size_t output_stride) {
  constexpr std::size_t kQuarters = 4;  // 4 columns × 4 weights = 16 bytes each
  const std::size_t depth = weights.input_width();
  __m256i sums[kRows][kQuarters];
#pragma GCC unroll 8
  for (std::size_t r = 0; r < kRows; ++r) {
#pragma GCC unroll 8
    for (std::size_t q = 0; q < kQuarters; ++q) sums[r][q] = _mm256_setzero_si256();
  }
  const std::int8_t* panel = weights.panel(panel_index);
  const std::uint8_t* codes = input.codes.data() + row * depth;
  for (std::size_t group = 0; group < depth / kGroup; ++group) {
    __m256i quarter_weights[kQuarters];
#pragma GCC unroll 8
    for (std::size_t q = 0; q < kQuarters; ++q) {
      quarter_weights[q] = _mm256_cvtepi8_epi16(_mm_loadu_si128(
          reinterpret_cast<const __m128i*>(panel + group * kGroupBytes + q * 16)));
    }
#pragma GCC unroll 8
    for (std::size_t r = 0; r < kRows; ++r) {
      const __m256i broadcast = _mm256_cvtepu8_epi16(
          _mm_set1_epi32(LoadGroup(codes + r * depth + group * kGroup)));
#pragma GCC unroll 8
      for (std::size_t q = 0; q < kQuarters; ++q) {
        sums[r][q] = _mm256_add_epi32(sums[r][q], _mm256_madd_epi16(broadcast, quarter_weights[q]));
      }
    }
  }
  for (std::size_t r = 0; r < kRows; ++r) {
    alignas(32) std::int32_t pairs[2 * kPanel];
    for (std::size_t q = 0; q < kQuarters; ++q) {
      _mm256_store_si256(reinterpret_cast<__m256i*>(pairs + 8 * q), sums[r][q]);
    }
    std::int32_t lanes[kPanel];
    for (std::size_t lane = 0; lane < kPanel; ++lane) {
      lanes[lane] = pairs[2 * lane] + pairs[2 * lane + 1];
    }
    const std::size_t column = panel_index * kPanel;
    Finish(lanes, input.zero_points[row + r], input.scales[row + r], weights, column, bias, relu,
           output + (row + r) * output_stride + column);
  }
}

ENGRAM_AVX2_TARGET void KernelAvx2(const QuantizedRows& input, const QuantizedWeights& weights,
                                   const float* bias, bool relu, float* output,
                                   std::size_t output_stride) {
  const std::size_t panels = weights.output_width() / kPanel;
  for (std::size_t panel = 0; panel < panels; ++panel) {
    std::size_t row = 0;
    for (; row + 2 <= input.rows; row += 2) {
      TileAvx2<2>(input, weights, row, panel, bias, relu, output, output_stride);
    }
    for (; row < input.rows; ++row) {
      TileAvx2<1>(input, weights, row, panel, bias, relu, output, output_stride);
    }
  }
}

#endif  // ENGRAM_EMBED_X86

}  // namespace

void QuantizedWeights::Quantize(const float* row_major, std::size_t input_width,
                                std::size_t output_width) {
  assert(input_width % kGroup == 0 && output_width % kPanel == 0);
  input_width_ = input_width;
  output_width_ = output_width;
  codes_.assign(input_width * output_width, 0);
  scales_.assign(output_width, 1.0f);
  column_sums_.assign(output_width, 0);
  for (std::size_t column = 0; column < output_width; ++column) {
    float largest = 0.0f;
    for (std::size_t row = 0; row < input_width; ++row) {
      largest = std::max(largest, std::fabs(row_major[row * output_width + column]));
    }
    const float scale = largest > 0.0f ? largest / 127.0f : 1.0f;
    scales_[column] = scale;
    const std::size_t panel_index = column / kPanel;
    const std::size_t lane = column % kPanel;
    for (std::size_t row = 0; row < input_width; ++row) {
      const std::int32_t code =
          std::clamp(RoundToInt(row_major[row * output_width + column] / scale), -127, 127);
      column_sums_[column] += code;
      codes_[panel_index * input_width * kPanel + (row / kGroup) * kGroupBytes + lane * kGroup +
             row % kGroup] = static_cast<std::int8_t>(code);
    }
  }
}

void QuantizeRows(SimdPath path, const float* input, std::size_t stride, std::size_t rows,
                  std::size_t depth, QuantizedRows& out) {
#if defined(ENGRAM_EMBED_X86)
  const bool vector = path == SimdPath::kAvx512Vnni;
#else
  const bool vector = false;
  (void)path;
#endif
  out.rows = rows;
  out.depth = depth;
  if (out.codes.size() < rows * depth) out.codes.resize(rows * depth);
  if (out.scales.size() < rows) {
    out.scales.resize(rows);
    out.zero_points.resize(rows);
  }
  for (std::size_t row = 0; row < rows; ++row) {
    const float* in = input + row * stride;
    float low = 0.0f;
    float high = 0.0f;
#if defined(ENGRAM_EMBED_X86)
    if (vector) RangeAvx512(in, depth, low, high);
#endif
    if (!vector) {
      for (std::size_t column = 0; column < depth; ++column) {
        low = std::min(low, in[column]);
        high = std::max(high, in[column]);
      }
    }
    const float range = high - low;
    const float scale = range > 0.0f ? range / 255.0f : 1.0f;
    const float inverse = 1.0f / scale;
    const std::int32_t zero_point = std::clamp(RoundToInt(-low * inverse), 0, 255);
    std::uint8_t* codes = out.codes.data() + row * depth;
#if defined(ENGRAM_EMBED_X86)
    if (vector) CodesAvx512(in, depth, inverse, zero_point, codes);
#endif
    if (!vector) {
      for (std::size_t column = 0; column < depth; ++column) {
        codes[column] = static_cast<std::uint8_t>(
            std::clamp(RoundToInt(in[column] * inverse) + zero_point, 0, 255));
      }
    }
    out.scales[row] = scale;
    out.zero_points[row] = zero_point;
  }
}

void DenseForwardInt8(SimdPath path, const QuantizedRows& input, const QuantizedWeights& weights,
                      const float* bias, bool relu, float* output, std::size_t output_stride) {
  assert(input.depth == weights.input_width());
  switch (path) {
#if defined(ENGRAM_EMBED_X86)
    case SimdPath::kAvx512Vnni:
      KernelAvx512(input, weights, bias, relu, output, output_stride);
      return;
    case SimdPath::kAvx2:
      KernelAvx2(input, weights, bias, relu, output, output_stride);
      return;
#else
    case SimdPath::kAvx512Vnni:
    case SimdPath::kAvx2:
#endif
    case SimdPath::kScalar:
      KernelScalar(input, weights, bias, relu, output, output_stride);
      return;
  }
}

}  // namespace engram::embed::internal
