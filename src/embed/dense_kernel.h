// Dense-layer kernel for the USE-lite forward pass: output = input · W + bias over pre-packed W.
//
// Why not Eigen's matrix product here: a text has only 5-128 tokens, and Eigen repacks the whole
// weight matrix (up to 512×1536) on every product; profiling showed 53% of the encoder's time in
// that packing (gemm_pack_lhs). PackedWeights packs each weight matrix once, at model load, into
// column panels that the kernel streams straight from memory.
//
// Determinism: every output is bias + Σ_k input[k]·W[k][j] with one accumulator, k ascending,
// separate multiply and add (no FMA contraction). So an output depends only on its own input row —
// not on how many rows are processed together, where they sit in memory, or which code path runs.
// The loop is compiled twice (AVX2 and baseline SSE2, chosen once per process from the CPU's
// features); both give identical bits. quantized_kernel.h is the faster int8 alternative.
#ifndef ENGRAM_EMBED_DENSE_KERNEL_H_
#define ENGRAM_EMBED_DENSE_KERNEL_H_

#include <cstddef>
#include <span>
#include <vector>

namespace engram::embed::internal {

// A [input_width × output_width] row-major matrix (TF's x·W layout) repacked as output_width/16
// panels, each holding 16 consecutive columns for every input row: panel p, row k, column c is at
// data[(p·input_width + k)·16 + c]. Immutable after Pack; safe to share between threads.
class PackedWeights {
 public:
  static constexpr std::size_t kPanelWidth = 16;

  // `output_width` must be a multiple of kPanelWidth (every USE-lite matrix is).
  void Pack(const float* row_major, std::size_t input_width, std::size_t output_width);

  std::size_t input_width() const { return input_width_; }
  std::size_t output_width() const { return output_width_; }
  const float* panel(std::size_t panel_index) const {
    return data_.data() + panel_index * input_width_ * kPanelWidth;
  }
  // The packed floats, and a matrix restored from them (the compiled model cache): the same
  // object as the Pack that produced them. `data` must hold input_width × output_width floats.
  std::span<const float> data() const { return data_; }
  void Restore(std::size_t input_width, std::size_t output_width, std::span<const float> data) {
    input_width_ = input_width;
    output_width_ = output_width;
    data_.assign(data.begin(), data.end());
  }

 private:
  std::vector<float> data_;
  std::size_t input_width_ = 0;
  std::size_t output_width_ = 0;
};

// For each of `rows` rows: output[r][j] = bias[j] + Σ_k input[r][k]·W[k][j] (see the file comment
// for the summation order). `input` has weights.input_width() floats per row, rows `input_stride`
// floats apart; likewise `output` with output_width() floats per row. Input and output must not
// overlap.
void DenseForward(const float* input, std::size_t input_stride, std::size_t rows,
                  const PackedWeights& weights, const float* bias, float* output,
                  std::size_t output_stride);

// e^x for x ≤ 0 (the softmax's arguments), from float multiplies and adds alone: glibc's expf
// has an FMA build that some CPUs select at run time and that may round differently, which would
// make a vector's bytes depend on the machine. x = n·ln 2 + r with |r| ≤ ln 2 / 2 (Cody–Waite
// split of ln 2), e^r by its degree-7 Taylor polynomial, scaled by 2ⁿ; relative error below
// 3·10⁻⁷. Returns 0 below −87 (under FLT_MIN).
float ExpNonPositive(float x);

}  // namespace engram::embed::internal

#endif  // ENGRAM_EMBED_DENSE_KERNEL_H_
