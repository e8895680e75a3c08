// Packed dense-layer kernel (see dense_kernel.h).
//
// Written with GCC/Clang vector extensions: an 8-float vector type that the compiler maps to one
// AVX register in the AVX2 build of the loop and to two SSE registers in the baseline one. The
// build must not enable -ffast-math or FP contraction for this file (CMakeLists.txt passes
// -ffp-contract=off), or the two builds could round differently. The build is chosen once per
// process with __builtin_cpu_supports rather than by ifunc (target_clones): an ifunc resolver
// runs before sanitizer runtimes initialise and crashed ThreadSanitizer builds at start-up.
#include "embed/dense_kernel.h"

#include <cassert>
#include <cstdint>
#include <cstring>

namespace engram::embed::internal {
namespace {

typedef float Lanes8 __attribute__((vector_size(32)));

constexpr std::size_t kPanel = PackedWeights::kPanelWidth;
constexpr std::size_t kRowTile = 4;  // rows computed together: each weight load serves 4 rows

inline void Load(Lanes8& vector, const float* source) {
  std::memcpy(&vector, source, sizeof(vector));
}
inline void Store(float* destination, const Lanes8& vector) {
  std::memcpy(destination, &vector, sizeof(vector));
}

}  // namespace

void PackedWeights::Pack(const float* row_major, std::size_t input_width,
                         std::size_t output_width) {
  assert(output_width % kPanel == 0);
  input_width_ = input_width;
  output_width_ = output_width;
  data_.assign(input_width * output_width, 0.0f);
  for (std::size_t panel_index = 0; panel_index < output_width / kPanel; ++panel_index) {
    for (std::size_t row = 0; row < input_width; ++row) {
      std::memcpy(&data_[(panel_index * input_width + row) * kPanel],
                  row_major + row * output_width + panel_index * kPanel, kPanel * sizeof(float));
    }
  }
}

namespace {

// The loop, inlined into each build below.
__attribute__((always_inline)) inline void DenseLoop(const float* input, std::size_t input_stride,
                                                     std::size_t rows,
                                                     const PackedWeights& weights,
                                                     const float* bias, float* output,
                                                     std::size_t output_stride) {
  const std::size_t depth = weights.input_width();
  const std::size_t panels = weights.output_width() / kPanel;
  for (std::size_t panel_index = 0; panel_index < panels; ++panel_index) {
    const float* panel = weights.panel(panel_index);
    const std::size_t column = panel_index * kPanel;
    Lanes8 bias_low;
    Lanes8 bias_high;
    Load(bias_low, bias + column);
    Load(bias_high, bias + column + 8);
    std::size_t row = 0;
    for (; row + kRowTile <= rows; row += kRowTile) {
      const float* in0 = input + row * input_stride;
      const float* in1 = in0 + input_stride;
      const float* in2 = in1 + input_stride;
      const float* in3 = in2 + input_stride;
      Lanes8 sum0_low = {}, sum0_high = {}, sum1_low = {}, sum1_high = {};
      Lanes8 sum2_low = {}, sum2_high = {}, sum3_low = {}, sum3_high = {};
      for (std::size_t k = 0; k < depth; ++k) {
        Lanes8 weight_low;
        Lanes8 weight_high;
        Load(weight_low, panel + k * kPanel);
        Load(weight_high, panel + k * kPanel + 8);
        sum0_low += in0[k] * weight_low;
        sum0_high += in0[k] * weight_high;
        sum1_low += in1[k] * weight_low;
        sum1_high += in1[k] * weight_high;
        sum2_low += in2[k] * weight_low;
        sum2_high += in2[k] * weight_high;
        sum3_low += in3[k] * weight_low;
        sum3_high += in3[k] * weight_high;
      }
      float* out0 = output + row * output_stride + column;
      Store(out0, sum0_low + bias_low);
      Store(out0 + 8, sum0_high + bias_high);
      Store(out0 + output_stride, sum1_low + bias_low);
      Store(out0 + output_stride + 8, sum1_high + bias_high);
      Store(out0 + 2 * output_stride, sum2_low + bias_low);
      Store(out0 + 2 * output_stride + 8, sum2_high + bias_high);
      Store(out0 + 3 * output_stride, sum3_low + bias_low);
      Store(out0 + 3 * output_stride + 8, sum3_high + bias_high);
    }
    for (; row < rows; ++row) {  // the same arithmetic, one row at a time
      const float* in = input + row * input_stride;
      Lanes8 sum_low = {}, sum_high = {};
      for (std::size_t k = 0; k < depth; ++k) {
        Lanes8 weight_low;
        Lanes8 weight_high;
        Load(weight_low, panel + k * kPanel);
        Load(weight_high, panel + k * kPanel + 8);
        sum_low += in[k] * weight_low;
        sum_high += in[k] * weight_high;
      }
      float* out = output + row * output_stride + column;
      Store(out, sum_low + bias_low);
      Store(out + 8, sum_high + bias_high);
    }
  }
}

using DenseFunction = void (*)(const float*, std::size_t, std::size_t, const PackedWeights&,
                               const float*, float*, std::size_t);

void DenseBaseline(const float* input, std::size_t input_stride, std::size_t rows,
                   const PackedWeights& weights, const float* bias, float* output,
                   std::size_t output_stride) {
  DenseLoop(input, input_stride, rows, weights, bias, output, output_stride);
}

#if defined(__x86_64__) || defined(__i386__)
__attribute__((target("avx2"))) void DenseAvx2(const float* input, std::size_t input_stride,
                                                std::size_t rows, const PackedWeights& weights,
                                                const float* bias, float* output,
                                                std::size_t output_stride) {
  DenseLoop(input, input_stride, rows, weights, bias, output, output_stride);
}
#endif

DenseFunction ChooseDense() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2")) return DenseAvx2;
#endif
  return DenseBaseline;
}

}  // namespace

void DenseForward(const float* input, std::size_t input_stride, std::size_t rows,
                  const PackedWeights& weights, const float* bias, float* output,
                  std::size_t output_stride) {
  static const DenseFunction chosen = ChooseDense();
  chosen(input, input_stride, rows, weights, bias, output, output_stride);
}

float ExpNonPositive(float x) {
  if (!(x >= -87.0f)) return 0.0f;
  constexpr float kLog2E = 1.44269504088896341f;
  constexpr float kLn2High = 0.693359375f;        // few significant bits: n·kLn2High is exact
  constexpr float kLn2Low = -2.12194440e-4f;      // ln 2 − kLn2High
  constexpr float kRoundMagic = 12582912.0f;      // 1.5·2²³: adding it rounds to an integer
  const float n = (x * kLog2E + kRoundMagic) - kRoundMagic;
  const float r = (x - n * kLn2High) - n * kLn2Low;
  float p = 1.0f / 5040.0f;
  p = p * r + 1.0f / 720.0f;
  p = p * r + 1.0f / 120.0f;
  p = p * r + 1.0f / 24.0f;
  p = p * r + 1.0f / 6.0f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  const auto exponent = static_cast<std::int32_t>(n) + 127;  // n ≥ −126: a normal power of 2
  const std::uint32_t bits = static_cast<std::uint32_t>(exponent) << 23;
  float power;
  std::memcpy(&power, &bits, sizeof(power));
  return p * power;
}

}  // namespace engram::embed::internal
