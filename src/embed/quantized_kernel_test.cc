// Tests for the int8 dense kernel: every CPU path gives the scalar path's bytes (including inputs
// that would saturate 16-bit pair sums), the result is close to the float product, and the
// activation quantisation maps its range as documented.
#include "embed/quantized_kernel.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

namespace engram::embed::internal {
namespace {

std::vector<float> RandomMatrix(std::size_t rows, std::size_t columns, float spread,
                                std::mt19937& random) {
  std::normal_distribution<float> normal(0.0f, spread);
  std::vector<float> values(rows * columns);
  for (float& value : values) value = normal(random);
  return values;
}

std::vector<float> RunKernel(SimdPath path, const std::vector<float>& input, std::size_t rows,
                             const QuantizedWeights& weights, const std::vector<float>& bias,
                             bool relu) {
  QuantizedRows quantized;
  QuantizeRows(path, input.data(), weights.input_width(), rows, weights.input_width(), quantized);
  std::vector<float> output(rows * weights.output_width(), -1.0f);
  DenseForwardInt8(path, quantized, weights, bias.data(), relu, output.data(),
                   weights.output_width());
  return output;
}

bool SameBytes(const std::vector<float>& left, const std::vector<float>& right) {
  return left.size() == right.size() &&
         std::memcmp(left.data(), right.data(), left.size() * sizeof(float)) == 0;
}

TEST(QuantizedKernelTest, EverySupportedPathGivesTheScalarPathsBytes) {
  std::mt19937 random(7);
  // 80 columns: one block of 4 panels and one single panel; 1..9 rows: every row-tile remainder.
  for (const std::size_t depth : {4u, 256u, 1536u}) {
    for (const std::size_t columns : {16u, 80u, 768u}) {
      const std::vector<float> kernel = RandomMatrix(depth, columns, 0.05f, random);
      const std::vector<float> bias = RandomMatrix(1, columns, 0.1f, random);
      QuantizedWeights weights;
      weights.Quantize(kernel.data(), depth, columns);
      for (const std::size_t rows : {1u, 2u, 3u, 4u, 5u, 9u}) {
        std::vector<float> input = RandomMatrix(rows, depth, 1.0f, random);
        input[0] += 6.0f;  // an outlier, as layer norms produce
        if (depth > 1) input[1] = -0.0f;
        for (const bool relu : {false, true}) {
          const std::vector<float> expected =
              RunKernel(SimdPath::kScalar, input, rows, weights, bias, relu);
          for (const SimdPath path : {SimdPath::kAvx2, SimdPath::kAvx512Vnni}) {
            if (!SimdPathSupported(path)) continue;
            EXPECT_TRUE(SameBytes(RunKernel(path, input, rows, weights, bias, relu), expected))
                << SimdPathName(path) << " depth " << depth << " columns " << columns << " rows "
                << rows << " relu " << relu;
          }
        }
      }
    }
  }
}

TEST(QuantizedKernelTest, ExtremeCodesDoNotSaturate) {
  // Codes 255 against weights ±127 everywhere: each 16-bit pair sum would be 2·255·127 > 2¹⁵.
  const std::size_t depth = 1536;
  const std::size_t columns = 32;
  std::vector<float> kernel(depth * columns);
  for (std::size_t index = 0; index < kernel.size(); ++index) {
    kernel[index] = (index / columns) % 2 == 0 ? 1.0f : (index % 3 == 0 ? -1.0f : 1.0f);
  }
  QuantizedWeights weights;
  weights.Quantize(kernel.data(), depth, columns);
  const std::vector<float> input(2 * depth, 1.0f);  // all at the top of the range: code 255
  const std::vector<float> bias(columns, 0.0f);
  const std::vector<float> expected = RunKernel(SimdPath::kScalar, input, 2, weights, bias, false);
  for (std::size_t column = 0; column < columns; ++column) {
    float exact = 0.0f;
    for (std::size_t row = 0; row < depth; ++row) exact += kernel[row * columns + column];
    EXPECT_NEAR(expected[column], exact, 1e-3f * depth) << column;
  }
  for (const SimdPath path : {SimdPath::kAvx2, SimdPath::kAvx512Vnni}) {
    if (!SimdPathSupported(path)) continue;
    EXPECT_TRUE(SameBytes(RunKernel(path, input, 2, weights, bias, false), expected))
        << SimdPathName(path);
  }
}

TEST(QuantizedKernelTest, StaysCloseToTheFloatProduct) {
  std::mt19937 random(11);
  const std::size_t depth = 512;
  const std::size_t columns = 64;
  const std::size_t rows = 6;
  const std::vector<float> kernel = RandomMatrix(depth, columns, 0.05f, random);
  const std::vector<float> bias = RandomMatrix(1, columns, 0.1f, random);
  const std::vector<float> input = RandomMatrix(rows, depth, 1.0f, random);
  QuantizedWeights weights;
  weights.Quantize(kernel.data(), depth, columns);
  const std::vector<float> output = RunKernel(BestSimdPath(), input, rows, weights, bias, false);
  for (std::size_t row = 0; row < rows; ++row) {
    double dot = 0.0;
    double norm_exact = 0.0;
    double norm_int8 = 0.0;
    for (std::size_t column = 0; column < columns; ++column) {
      double exact = bias[column];
      for (std::size_t k = 0; k < depth; ++k) {
        exact += static_cast<double>(input[row * depth + k]) * kernel[k * columns + column];
      }
      const double approximate = output[row * columns + column];
      dot += exact * approximate;
      norm_exact += exact * exact;
      norm_int8 += approximate * approximate;
    }
    EXPECT_GT(dot / std::sqrt(norm_exact * norm_int8), 0.999) << "row " << row;
  }
}

TEST(QuantizedKernelTest, ReluClampsNegativeOutputs) {
  std::mt19937 random(3);
  const std::vector<float> kernel = RandomMatrix(64, 16, 0.3f, random);
  const std::vector<float> bias(16, 0.0f);
  const std::vector<float> input = RandomMatrix(3, 64, 1.0f, random);
  QuantizedWeights weights;
  weights.Quantize(kernel.data(), 64, 16);
  const std::vector<float> plain = RunKernel(SimdPath::kScalar, input, 3, weights, bias, false);
  const std::vector<float> clamped = RunKernel(SimdPath::kScalar, input, 3, weights, bias, true);
  ASSERT_TRUE(std::any_of(plain.begin(), plain.end(), [](float value) { return value < 0.0f; }));
  for (std::size_t index = 0; index < plain.size(); ++index) {
    EXPECT_EQ(clamped[index], std::max(plain[index], 0.0f));
  }
}

TEST(QuantizedKernelTest, RowQuantisationMapsTheRangeOntoAllCodes) {
  const std::vector<float> row = {-2.0f, 0.0f, 0.5f, 3.1f, -0.01f, 1.0f, 2.0f, 0.0f};
  QuantizedRows quantized;
  QuantizeRows(SimdPath::kScalar, row.data(), row.size(), 1, row.size(), quantized);
  const float scale = quantized.scales[0];
  const std::int32_t zero_point = quantized.zero_points[0];
  EXPECT_FLOAT_EQ(scale, 5.1f / 255.0f);
  EXPECT_EQ(quantized.codes[0], 0);    // the minimum
  EXPECT_EQ(quantized.codes[3], 255);  // the maximum
  EXPECT_EQ(quantized.codes[1], zero_point);  // zero is exact
  for (std::size_t index = 0; index < row.size(); ++index) {
    const float decoded = scale * static_cast<float>(quantized.codes[index] - zero_point);
    EXPECT_LE(std::fabs(decoded - row[index]), 0.5f * scale + 1e-6f) << index;
  }

  const std::vector<float> zeros(8, 0.0f);  // an empty range: every code is the zero point
  QuantizeRows(SimdPath::kScalar, zeros.data(), zeros.size(), 1, zeros.size(), quantized);
  for (std::size_t index = 0; index < zeros.size(); ++index) {
    EXPECT_EQ(quantized.codes[index], quantized.zero_points[0]);
  }
}

TEST(QuantizedKernelTest, ScalarPathIsAlwaysSupportedAndBestIsSupported) {
  EXPECT_TRUE(SimdPathSupported(SimdPath::kScalar));
  EXPECT_TRUE(SimdPathSupported(BestSimdPath()));
}

}  // namespace
}  // namespace engram::embed::internal
