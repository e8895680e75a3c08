// Int8 dense-layer kernel for the USE-lite forward pass: output = dequantise(codes · Q) + bias.
//
// Weights are quantised once, at model load, per output column and symmetrically:
// W[k][j] ≈ weight_scale[j] · Q[k][j], Q in [−127, 127]. Activations are quantised per row and
// asymmetrically (QuantizeRows): x[k] ≈ row_scale · (code[k] − zero_point), code in [0, 255].
// The product is then an integer sum, exact in int32 (|Σ| ≤ 1536 · 255 · 127 < 2³¹):
//   acc[j]    = Σ_k code[k] · Q[k][j]
//   output[j] = float(acc[j] − zero_point · Σ_k Q[k][j]) · (row_scale · weight_scale[j]) + bias[j]
// (then max(·, 0) when asked for ReLU), with separate IEEE multiply and add (no FMA).
//
// Determinism across CPUs: three code paths compute acc — AVX-512 VNNI (vpdpbusd), AVX2 (vpmaddwd
// on codes and weights widened to 16 bits, which cannot saturate) and portable scalar C++ — and
// integer addition is exact in any order, so every path gives the same acc; the quantisation and
// the dequantisation above are the same IEEE operations on every path. A vector is therefore the
// same bytes on every x86-64 machine, whichever path its CPU runs (tested path against path).
// The path is chosen once per process from the CPU's features, without ifunc (so sanitizer
// runtimes that start after ifunc resolution still work).
#ifndef ENGRAM_EMBED_QUANTIZED_KERNEL_H_
#define ENGRAM_EMBED_QUANTIZED_KERNEL_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "core/simd_path.h"

namespace engram::embed::internal {

// A [input_width × output_width] row-major float matrix (TF's x·W layout) quantised per column
// and repacked as output_width/16 panels of 16 columns; within a panel, each group of 4
// consecutive input rows holds 64 bytes: column c's 4 weights at [c·4, c·4 + 4). Immutable after
// Quantize; safe to share between threads.
class QuantizedWeights {
 public:
  static constexpr std::size_t kPanelWidth = 16;
  static constexpr std::size_t kDepthGroup = 4;

  // `input_width` must be a multiple of kDepthGroup and `output_width` of kPanelWidth (every
  // USE-lite matrix is).
  void Quantize(const float* row_major, std::size_t input_width, std::size_t output_width);

  std::size_t input_width() const { return input_width_; }
  std::size_t output_width() const { return output_width_; }
  const std::int8_t* panel(std::size_t panel_index) const {
    return codes_.data() + panel_index * input_width_ * kPanelWidth;
  }
  const float* scales() const { return scales_.data(); }
  const std::int32_t* column_sums() const { return column_sums_.data(); }

  // The quantised form, and weights restored from it (the compiled model cache): the same object
  // as the Quantize that produced it. The spans must hold input_width × output_width codes and
  // output_width scales and sums.
  std::span<const std::int8_t> codes() const { return codes_; }
  std::span<const float> scale_values() const { return scales_; }
  std::span<const std::int32_t> column_sum_values() const { return column_sums_; }
  void Restore(std::size_t input_width, std::size_t output_width,
               std::span<const std::int8_t> codes, std::span<const float> scales,
               std::span<const std::int32_t> column_sums) {
    input_width_ = input_width;
    output_width_ = output_width;
    codes_.assign(codes.begin(), codes.end());
    scales_.assign(scales.begin(), scales.end());
    column_sums_.assign(column_sums.begin(), column_sums.end());
  }

 private:
  std::vector<std::int8_t> codes_;
  std::vector<float> scales_;              // weight_scale[j]
  std::vector<std::int32_t> column_sums_;  // Σ_k Q[k][j]
  std::size_t input_width_ = 0;
  std::size_t output_width_ = 0;
};

// Rows of activations quantised to unsigned 8-bit codes, each row with its own scale and zero
// point. Buffers grow on demand and are reused.
struct QuantizedRows {
  std::vector<std::uint8_t> codes;  // rows × depth
  std::vector<float> scales;
  std::vector<std::int32_t> zero_points;
  std::size_t rows = 0;
  std::size_t depth = 0;
};

// Quantises `rows` rows of `depth` floats (rows `stride` floats apart): the row's range
// [min(x, 0), max(x, 0)] is mapped onto [0, 255] (0 exactly representable), codes rounded to
// nearest, ties to even. Every path gives the same codes.
void QuantizeRows(SimdPath path, const float* input, std::size_t stride, std::size_t rows,
                  std::size_t depth, QuantizedRows& out);

// output[r][j] as in the file comment, for every row of `input` (input.depth must equal
// weights.input_width()); `output` rows are `output_stride` floats apart.
void DenseForwardInt8(SimdPath path, const QuantizedRows& input, const QuantizedWeights& weights,
                      const float* bias, bool relu, float* output, std::size_t output_stride);

}  // namespace engram::embed::internal

#endif  // ENGRAM_EMBED_QUANTIZED_KERNEL_H_
