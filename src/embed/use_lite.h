// UseLiteEmbedder: engram's built-in sentence encoder, Universal Sentence Encoder lite (DESIGN §8).
//
// Reads the TF.js files that scripts/fetch-models installs into <data>/models/use-lite/
// (model.json with its weightsManifest, group1-shard{1..7}of7, vocab.json, SHA256SUMS) — or the
// compiled model it writes beside them at the first int8 Open (compiled.bin, see
// UseLiteOptions::compiled_cache) — and runs its
// own forward pass (Eigen buffers; dense layers int8 in quantized_kernel.h by default or float32 in
// dense_kernel.h, see UseLitePrecision; 2 threads); no TensorFlow. What
// the graph in model.json computes, verified op by op against the original implementation
// (tests/golden/use_lite_vectors.json):
//   ids      = SentencePiece(text)[:128]       (sentencepiece.h; 128 from ClipToMaxLength)
//   x_t      = 2·E[id_t] + [sin(t·ω), cos(t·ω)]  E: 8002×256; ω: 128 inverse timescales (the graph
//                                               adds the embedding to itself, hence the 2)
//   layer 0  = pre-norm transformer, 4 heads of 64, input 256, residual projected 256→512:
//              h = Dense(x) + Attn(LN(x));  h += FFN(LN(h))     FFN: 512→1536, ReLU, →512
//   layer 1  = same with width 512, 4 heads of 128, identity residual
//   pooled   = mean of h over the tokens
//   output   = normalize(tanh(pooled·W + b))                   W: 512×512
// LN is layer normalisation with ε = 1e-6 (population variance); attention logits are scaled by
// 1/√(head width). A text with no tokens (only "") pools to zero and gets normalize(tanh(b)).
//
//   ASSIGN_OR_RETURN(auto embedder,
//                    UseLiteEmbedder::Open(UseLiteModelDir(core::ResolveDataDir(""))));
//   ASSIGN_OR_RETURN(auto vectors, embedder->Embed(texts));
#ifndef ENGRAM_EMBED_USE_LITE_H_
#define ENGRAM_EMBED_USE_LITE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/simd_path.h"
#include "embed/embedder.h"
#include "embed/quantized_kernel.h"
#include "embed/sentencepiece.h"
#include "engram/status.h"

namespace engram::embed {
namespace internal {
struct UseLiteModel;
struct UseLiteWorkspace;
class UseLiteWorkspacePool;
}  // namespace internal

// Arithmetic of the encoder's dense layers (all but the final pooling layer, which stays float32).
enum class UseLitePrecision {
  // int8 weights (per column) and activations (per row) with exact integer sums
  // (quantized_kernel.h): about 3–4× the float32 throughput; cosine ≥ 0.99 to the float32 vector
  // on the golden sentences; the same bytes whichever CPU path runs.
  kInt8,
  // The float32 reference pass (agrees with the original implementation to cosine ≥ 0.9999).
  kFloat32,
};

struct UseLiteOptions {
  // Worker threads for one Embed call with several texts; texts are spread over them. A single
  // text always runs on the calling thread. Default: 2 (DESIGN's target machine has 2 cores).
  std::size_t num_threads = 2;
  // Check every file against SHA256SUMS in the model directory (written by scripts/fetch-models)
  // before loading; costs about 0.1 s. Default: true.
  bool verify_checksums = true;
  // Default: kInt8.
  UseLitePrecision precision = UseLitePrecision::kInt8;
  // int8 precision: use the compiled model in the model directory (compiled.bin: the weights
  // already read, checked and quantised) when it matches the files, else build it from the files
  // (after their checksums, when verify_checksums is on) and write it for later Opens; false
  // reads the files every time and writes nothing. The vectors are the same bytes either way.
  // Default: true.
  bool compiled_cache = true;
  // The int8 code path; empty (the default) picks the fastest one the CPU supports. Every path
  // gives the same bytes; tests and benchmarks set it to compare them. Open fails with
  // InvalidArgument when the CPU lacks the path.
  std::optional<SimdPath> kernel_path;
};

// "<data_dir>/models/use-lite", where scripts/fetch-models installs the model.
std::string UseLiteModelDir(std::string_view data_dir);

// Thread-safety: immutable after Open; Embed may be called from many threads at once (each call
// borrows a scratch workspace from an internal pool, so buffers are reused across calls).
// Determinism: each text is encoded on its own, so its vector does not depend on the rest of the
// batch, the thread count or the thread that ran it; in int8 precision not on the CPU's kernel
// path either.
class UseLiteEmbedder final : public Embedder {
 public:
  static constexpr std::string_view kModelId = "use-lite@0.2.0";
  static constexpr std::size_t kDimension = 512;
  // Longest token sequence the model reads; later tokens are ignored (the graph's ClipToMaxLength).
  static constexpr std::size_t kMaxTokens = 128;

  // Loads the model from `model_dir`. NotFound when a file is missing and Corruption when one is
  // damaged (bad JSON, wrong size or checksum, missing or misshapen weight); both messages name
  // the file and say to run scripts/setup.
  static StatusOr<std::unique_ptr<UseLiteEmbedder>> Open(std::string_view model_dir,
                                                         const UseLiteOptions& options = {});

  ~UseLiteEmbedder() override;
  UseLiteEmbedder(const UseLiteEmbedder&) = delete;
  UseLiteEmbedder& operator=(const UseLiteEmbedder&) = delete;

  std::string model_id() const override { return std::string(kModelId); }
  std::size_t dimension() const override { return kDimension; }
  StatusOr<std::vector<std::vector<float>>> Embed(std::span<const std::string> texts) override;

  // The vector for already-tokenised input (ids beyond kMaxTokens are ignored). InvalidArgument
  // for an id outside the embedding table.
  StatusOr<std::vector<float>> EmbedTokenIds(std::span<const std::int32_t> token_ids);

  const SentencePieceTokenizer& tokenizer() const;
  // True when the weights came from the compiled model rather than from the TF.js files.
  bool from_cache() const { return from_cache_; }

 private:
  UseLiteEmbedder(std::unique_ptr<internal::UseLiteModel> model, const UseLiteOptions& options,
                  bool from_cache);

  std::unique_ptr<internal::UseLiteModel> model_;
  std::unique_ptr<internal::UseLiteWorkspacePool> workspaces_;
  UseLiteOptions options_;
  bool from_cache_ = false;
};

}  // namespace engram::embed

#endif  // ENGRAM_EMBED_USE_LITE_H_
