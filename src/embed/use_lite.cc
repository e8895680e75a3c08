// UseLiteEmbedder: loading the TF.js model files and the Eigen forward pass (see use_lite.h).
#include "embed/use_lite.h"

#include <Eigen/Core>
#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstring>
#include <exception>
#include <filesystem>
#include <limits>
#include <map>
#include <mutex>
#include <new>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <system_error>
#include <thread>
#include <type_traits>
#include <utility>

#include "core/compiled_file.h"
#include "core/files.h"
#include "core/sha256.h"
#include "embed/dense_kernel.h"
#include "embed/quantized_kernel.h"

namespace engram::embed {
namespace {

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using RowVector = Eigen::Matrix<float, 1, Eigen::Dynamic>;
using internal::PackedWeights;
using internal::QuantizedRows;
using internal::QuantizedWeights;

constexpr std::string_view kSetupHint = "run scripts/setup to (re)install the model";
constexpr std::string_view kModelJson = "model.json";
constexpr std::string_view kVocabJson = "vocab.json";
constexpr std::string_view kChecksums = "SHA256SUMS";

// Graph node names (model.json) of the weights the forward pass uses.
constexpr std::string_view kKona = "module_apply_default/Encoder_en/KonaTransformer/";
constexpr std::string_view kKonaVariables = "module/Encoder_en/KonaTransformer/";
constexpr std::string_view kTokenEmbeddings = "module/Embeddings_en";
constexpr std::string_view kPoolKernel = "module/Encoder_en/hidden_layers/tanh_layer_0/weights";
constexpr std::string_view kPoolBias = "module/Encoder_en/hidden_layers/tanh_layer_0/bias";
constexpr std::string_view kNormalizeEpsilon =
    "module_apply_default/Encoder_en/hidden_layers/l2_normalize/Maximum/y";

constexpr std::size_t kEmbeddingWidth = 256;
constexpr std::size_t kModelWidth = 512;
constexpr std::size_t kFeedForwardWidth = 1536;
constexpr std::size_t kHeadCount = 4;
constexpr std::size_t kLayerCount = 2;
constexpr std::size_t kMaxTokens = UseLiteEmbedder::kMaxTokens;

std::string Kona(std::string_view suffix) { return std::string(kKona) + std::string(suffix); }

std::string LayerName(std::string_view prefix, std::size_t layer, std::string_view suffix) {
  return std::string(prefix) + "Layer_" + std::to_string(layer) + "/TransformerLayer/" +
         std::string(suffix);
}

std::string FilePath(const std::string& directory, std::string_view name) {
  return (std::filesystem::path(directory) / std::filesystem::path(name)).string();
}

Status FileCorruption(const std::string& path, std::string_view problem) {
  return Status::Corruption("USE-lite model file " + path + " is damaged (" + std::string(problem) +
                            "); " + std::string(kSetupHint));
}

StatusOr<std::string> ReadModelFile(const std::string& path) {
  StatusOr<std::string> contents = core::ReadWholeFile(path, "USE-lite model file");
  if (contents.status().code() == StatusCode::kNotFound) {
    return Status::NotFound(contents.status().message() + "; " + std::string(kSetupHint));
  }
  return contents;
}

// One entry of the weights manifest: where a named tensor lives in its group's concatenated shards.
struct WeightEntry {
  std::size_t group = 0;
  std::size_t byte_offset = 0;
  std::size_t byte_size = 0;
  std::string dtype;
  std::vector<std::int64_t> shape;
  bool quantized = false;
};

struct WeightGroup {
  std::vector<std::string> paths;  // shard file names, in order
  std::size_t expected_bytes = 0;  // sum of the sizes of the group's weights
  std::string bytes;               // the shards concatenated
};

std::string ShapeString(const std::vector<std::int64_t>& shape) {
  std::string text = "[";
  for (std::size_t index = 0; index < shape.size(); ++index) {
    if (index > 0) text += ",";
    text += std::to_string(shape[index]);
  }
  return text + "]";
}

// Parses weightsManifest (TF.js format): groups of {paths, weights: [{name, shape, dtype}]}, each
// weight stored in manifest order, back to back, across the group's concatenated shards.
Status ParseManifest(const nlohmann::json& model, const std::string& model_json_path,
                     std::vector<WeightGroup>& groups,
                     std::map<std::string, WeightEntry>& weights) {
  if (!model.contains("weightsManifest") || !model["weightsManifest"].is_array() ||
      model["weightsManifest"].empty()) {
    return FileCorruption(model_json_path, "no weightsManifest");
  }
  for (const nlohmann::json& group_json : model["weightsManifest"]) {
    if (!group_json.is_object() || !group_json.contains("paths") ||
        !group_json["paths"].is_array() || !group_json.contains("weights") ||
        !group_json["weights"].is_array()) {
      return FileCorruption(model_json_path, "weightsManifest group without paths and weights");
    }
    WeightGroup group;
    for (const nlohmann::json& path : group_json["paths"]) {
      if (!path.is_string()) return FileCorruption(model_json_path, "shard path is not a string");
      const std::string& name = path.get_ref<const std::string&>();
      if (name.empty() || name.find('/') != std::string::npos ||
          name.find("..") != std::string::npos) {
        return FileCorruption(model_json_path, "unexpected shard path '" + name + "'");
      }
      group.paths.push_back(name);
    }
    std::size_t offset = 0;
    for (const nlohmann::json& weight : group_json["weights"]) {
      if (!weight.is_object() || !weight.contains("name") || !weight["name"].is_string() ||
          !weight.contains("shape") || !weight["shape"].is_array() || !weight.contains("dtype") ||
          !weight["dtype"].is_string()) {
        return FileCorruption(model_json_path, "weight entry without name, shape and dtype");
      }
      WeightEntry entry;
      entry.group = groups.size();
      entry.byte_offset = offset;
      entry.dtype = weight["dtype"].get<std::string>();
      std::size_t element_count = 1;
      for (const nlohmann::json& dimension : weight["shape"]) {
        if (!dimension.is_number_integer() || dimension.get<std::int64_t>() < 0) {
          return FileCorruption(model_json_path,
                                "bad shape for " + weight["name"].get<std::string>());
        }
        entry.shape.push_back(dimension.get<std::int64_t>());
        element_count *= static_cast<std::size_t>(dimension.get<std::int64_t>());
      }
      std::string stored_dtype = entry.dtype;
      if (weight.contains("quantization") && weight["quantization"].is_object()) {
        entry.quantized = true;
        stored_dtype = weight["quantization"].value("dtype", "");
      }
      std::size_t element_size = 0;
      if (stored_dtype == "float32" || stored_dtype == "int32") {
        element_size = 4;
      } else if (stored_dtype == "float16" || stored_dtype == "uint16") {
        element_size = 2;
      } else if (stored_dtype == "uint8" || stored_dtype == "bool") {
        element_size = 1;
      } else {
        return FileCorruption(model_json_path, "unsupported dtype '" + stored_dtype + "'");
      }
      entry.byte_size = element_count * element_size;
      offset += entry.byte_size;
      weights[weight["name"].get<std::string>()] = std::move(entry);
    }
    group.expected_bytes = offset;
    groups.push_back(std::move(group));
  }
  return Status::Ok();
}

// The digests of SHA256SUMS ("<hex>  <name>" lines, as written by fetch-models), by file name.
std::map<std::string, std::string> ParseChecksums(const std::string& text) {
  std::map<std::string, std::string> expected;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    std::string digest;
    std::string name;
    if (fields >> digest >> name) {
      if (!name.empty() && name[0] == '*') name.erase(0, 1);  // binary-mode marker
      expected[name] = digest;
    }
  }
  return expected;
}

// Verifies every file against SHA256SUMS.
Status VerifyChecksums(const std::string& directory,
                       const std::vector<std::pair<std::string, const std::string*>>& files) {
  const std::string checksums_path = FilePath(directory, kChecksums);
  ASSIGN_OR_RETURN(std::string checksums_text, ReadModelFile(checksums_path));
  const std::map<std::string, std::string> expected = ParseChecksums(checksums_text);
  for (const auto& [name, contents] : files) {
    const std::string path = FilePath(directory, name);
    const auto digest = expected.find(name);
    if (digest == expected.end()) {
      return FileCorruption(checksums_path, "it lists no checksum for " + name);
    }
    if (core::Sha256Hex(*contents) != digest->second) {
      return FileCorruption(path, "sha256 does not match " + std::string(kChecksums));
    }
  }
  return Status::Ok();
}

}  // namespace

std::string UseLiteModelDir(std::string_view data_dir) {
  return (std::filesystem::path(data_dir) / "models" / "use-lite").string();
}

// ---------------------------------------------------------------------------------------------
// Weights

namespace internal {

struct UseLiteModel {
  // A dense layer's kernel, TF's [input width × output width] (x·W): packed float32 or quantised
  // int8, as the model's precision says.
  struct DenseWeights {
    PackedWeights float32;
    QuantizedWeights int8;
  };

  // One pre-norm transformer layer.
  struct Layer {
    std::size_t width = 0;       // d_model of the layer's input (256, then 512)
    std::size_t head_width = 0;  // d_k = width / heads
    float attention_scale = 0;   // 1/√d_k, read from the graph
    RowVector norm_scale, norm_bias;
    DenseWeights qkv_kernel;  // [width × 3·width]: Q, K, V side by side
    RowVector qkv_bias;
    DenseWeights output_kernel;  // [width × 512]
    RowVector output_bias;
    DenseWeights residual_kernel;  // layer 0 only: projects the 256-wide input to 512
    RowVector residual_bias;
    RowVector ffn_norm_scale, ffn_norm_bias;
    DenseWeights ffn_in_kernel;  // [512 × 1536]
    RowVector ffn_in_bias;
    DenseWeights ffn_out_kernel;  // [1536 × 512]
    RowVector ffn_out_bias;
  };

  UseLiteModel(SentencePieceTokenizer tokenizer_in, UseLitePrecision precision_in,
               SimdPath kernel_path_in)
      : tokenizer(std::move(tokenizer_in)), precision(precision_in), kernel_path(kernel_path_in) {}

  SentencePieceTokenizer tokenizer;
  UseLitePrecision precision;
  SimdPath kernel_path;        // the int8 path
  RowMatrix token_embeddings;  // E: [8002 × 256]
  RowMatrix timing_signal;     // [kMaxTokens × 256]: sin(t·ω) then cos(t·ω)
  std::array<Layer, kLayerCount> layers;
  float layer_norm_epsilon = 0;  // ε
  PackedWeights pool_kernel;     // [512 × 512]
  RowVector pool_bias;
  float normalize_epsilon = 0;  // floor on the squared norm in the final L2 normalisation
};

}  // namespace internal

namespace {

// Reads named weights out of the shards, checking dtype and shape.
class WeightReader {
 public:
  WeightReader(const std::vector<WeightGroup>& groups,
               const std::map<std::string, WeightEntry>& weights, std::string model_json_path)
      : groups_(groups), weights_(weights), model_json_path_(std::move(model_json_path)) {}

  Status Matrix(const std::string& name, std::vector<std::int64_t> shape, std::size_t rows,
                std::size_t columns, RowMatrix& out) const {
    ASSIGN_OR_RETURN(const char* bytes, Find(name, "float32", shape));
    out.resize(static_cast<Eigen::Index>(rows), static_cast<Eigen::Index>(columns));
    std::memcpy(out.data(), bytes, rows * columns * sizeof(float));
    return Status::Ok();
  }

  Status Packed(const std::string& name, std::vector<std::int64_t> shape, std::size_t rows,
                std::size_t columns, PackedWeights& out) const {
    ASSIGN_OR_RETURN(const char* bytes, Find(name, "float32", shape));
    std::vector<float> row_major(rows * columns);
    std::memcpy(row_major.data(), bytes, row_major.size() * sizeof(float));
    out.Pack(row_major.data(), rows, columns);
    return Status::Ok();
  }

  // A dense layer's kernel in the form `precision` computes with.
  Status Dense(const std::string& name, std::vector<std::int64_t> shape, std::size_t rows,
               std::size_t columns, UseLitePrecision precision,
               internal::UseLiteModel::DenseWeights& out) const {
    if (precision == UseLitePrecision::kFloat32) {
      return Packed(name, std::move(shape), rows, columns, out.float32);
    }
    ASSIGN_OR_RETURN(const char* bytes, Find(name, "float32", shape));
    std::vector<float> row_major(rows * columns);
    std::memcpy(row_major.data(), bytes, row_major.size() * sizeof(float));
    out.int8.Quantize(row_major.data(), rows, columns);
    return Status::Ok();
  }

  Status Vector(const std::string& name, std::size_t size, RowVector& out) const {
    ASSIGN_OR_RETURN(const char* bytes, Find(name, "float32", {static_cast<std::int64_t>(size)}));
    out.resize(static_cast<Eigen::Index>(size));
    std::memcpy(out.data(), bytes, size * sizeof(float));
    return Status::Ok();
  }

  StatusOr<float> FloatScalar(const std::string& name) const {
    ASSIGN_OR_RETURN(const char* bytes, Find(name, "float32", {}));
    float value = 0;
    std::memcpy(&value, bytes, sizeof(value));
    return value;
  }

  StatusOr<std::int32_t> IntScalar(const std::string& name) const {
    ASSIGN_OR_RETURN(const char* bytes, Find(name, "int32", {}));
    std::int32_t value = 0;
    std::memcpy(&value, bytes, sizeof(value));
    return value;
  }

 private:
  StatusOr<const char*> Find(const std::string& name, std::string_view dtype,
                             const std::vector<std::int64_t>& shape) const {
    const auto weight = weights_.find(name);
    if (weight == weights_.end()) {
      return FileCorruption(model_json_path_, "weight " + name + " is not in its weightsManifest");
    }
    const WeightEntry& entry = weight->second;
    if (entry.dtype != dtype || entry.quantized) {
      return FileCorruption(model_json_path_, "weight " + name + " has dtype " + entry.dtype +
                                                  (entry.quantized ? " (quantized)" : "") +
                                                  ", expected " + std::string(dtype));
    }
    if (entry.shape != shape) {
      return FileCorruption(model_json_path_, "weight " + name + " has shape " +
                                                  ShapeString(entry.shape) + ", expected " +
                                                  ShapeString(shape));
    }
    return groups_[entry.group].bytes.data() + entry.byte_offset;
  }

  const std::vector<WeightGroup>& groups_;
  const std::map<std::string, WeightEntry>& weights_;
  std::string model_json_path_;
};

Status LoadLayer(const WeightReader& reader, std::size_t layer_index,
                 internal::UseLiteModel* model) {
  auto& layer = model->layers[layer_index];
  const std::size_t width = layer_index == 0 ? kEmbeddingWidth : kModelWidth;
  const auto width_dim = static_cast<std::int64_t>(width);
  const auto model_dim = static_cast<std::int64_t>(kModelWidth);
  const auto ffn_dim = static_cast<std::int64_t>(kFeedForwardWidth);
  const std::string encode = std::string(kKona) + "Encode/";
  const std::string stack = std::string(kKona) + "Encode/TransformerStack/";
  const std::string variables = std::string(kKonaVariables) + "Encode/";
  layer.width = width;
  layer.head_width = width / kHeadCount;

  ASSIGN_OR_RETURN(layer.attention_scale,
                   reader.FloatScalar(LayerName(stack, layer_index, "MultiheadAttention/mul/y")));
  RETURN_IF_ERROR(reader.Vector(
      LayerName(encode, layer_index,
                "layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat"),
      width, layer.norm_scale));
  RETURN_IF_ERROR(reader.Vector(
      LayerName(encode, layer_index,
                "layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat"),
      width, layer.norm_bias));
  RETURN_IF_ERROR(reader.Dense(
      LayerName(variables, layer_index, "MultiheadAttention/qkv_transform_single/kernel/part_0"),
      {1, 1, width_dim, 3 * width_dim}, width, 3 * width, model->precision, layer.qkv_kernel));
  RETURN_IF_ERROR(reader.Vector(
      LayerName(encode, layer_index,
                "MultiheadAttention/qkv_transform_single/bias/ConcatPartitions/concat"),
      3 * width, layer.qkv_bias));
  RETURN_IF_ERROR(reader.Dense(
      LayerName(variables, layer_index, "MultiheadAttention/output_transform_single/kernel/part_0"),
      {1, 1, width_dim, model_dim}, width, kModelWidth, model->precision, layer.output_kernel));
  RETURN_IF_ERROR(reader.Vector(
      LayerName(encode, layer_index,
                "MultiheadAttention/output_transform_single/bias/ConcatPartitions/concat"),
      kModelWidth, layer.output_bias));
  if (width != kModelWidth) {
    RETURN_IF_ERROR(reader.Dense(
        LayerName(encode, layer_index, "dense/kernel/ConcatPartitions/concat"),
        {width_dim, model_dim}, width, kModelWidth, model->precision, layer.residual_kernel));
    RETURN_IF_ERROR(
        reader.Vector(LayerName(encode, layer_index, "dense/bias/ConcatPartitions/concat"),
                      kModelWidth, layer.residual_bias));
  }
  RETURN_IF_ERROR(reader.Vector(
      LayerName(encode, layer_index,
                "FFN/layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat"),
      kModelWidth, layer.ffn_norm_scale));
  RETURN_IF_ERROR(reader.Vector(
      LayerName(encode, layer_index,
                "FFN/layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat"),
      kModelWidth, layer.ffn_norm_bias));
  RETURN_IF_ERROR(reader.Dense(LayerName(stack, layer_index, "FFN/conv1/Tensordot/Reshape_1"),
                               {model_dim, ffn_dim}, kModelWidth, kFeedForwardWidth,
                               model->precision, layer.ffn_in_kernel));
  RETURN_IF_ERROR(
      reader.Vector(LayerName(encode, layer_index, "FFN/conv1/bias/ConcatPartitions/concat"),
                    kFeedForwardWidth, layer.ffn_in_bias));
  RETURN_IF_ERROR(reader.Dense(LayerName(stack, layer_index, "FFN/conv2/Tensordot/Reshape_1"),
                               {ffn_dim, model_dim}, kFeedForwardWidth, kModelWidth,
                               model->precision, layer.ffn_out_kernel));
  RETURN_IF_ERROR(
      reader.Vector(LayerName(encode, layer_index, "FFN/conv2/bias/ConcatPartitions/concat"),
                    kModelWidth, layer.ffn_out_bias));
  return Status::Ok();
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Scratch buffers

namespace internal {

// Every buffer the forward pass of one group of texts needs (at most kMaxTokens token rows and
// kMaxTokens texts), allocated once and reused: the pass never allocates.
struct UseLiteWorkspace {
  UseLiteWorkspace()
      : input(kMaxTokens, kEmbeddingWidth),
        normed(kMaxTokens, kModelWidth),
        qkv(kMaxTokens, 3 * kModelWidth),
        heads(kMaxTokens, kModelWidth),
        projected(kMaxTokens, kModelWidth),
        hidden(kMaxTokens, kModelWidth),
        feed_forward(kMaxTokens, kFeedForwardWidth),
        pooled(kMaxTokens, kModelWidth),
        output(kMaxTokens, kModelWidth),
        scores(kMaxTokens) {
    quantized.codes.resize(kMaxTokens * kFeedForwardWidth);
    quantized.scales.resize(kMaxTokens);
    quantized.zero_points.resize(kMaxTokens);
  }

  RowMatrix input;          // x: token embeddings + timing signal, one row per token
  RowMatrix normed;         // LN(·) of the current sublayer's input
  RowMatrix qkv;            // Q | K | V
  RowMatrix heads;          // concatenated attention head outputs
  RowMatrix projected;      // a sublayer's output before it joins the residual stream
  RowMatrix hidden;         // h: the residual stream
  RowMatrix feed_forward;   // FFN hidden activations
  RowMatrix pooled;         // one row per text: mean of h over its tokens
  RowMatrix output;         // one row per text: tanh(pooled·W + b)
  RowVector scores;         // one query token's attention weights
  QuantizedRows quantized;  // int8 precision: the current dense layer's input, quantised
};

// Workspaces not in use; Embed calls borrow one per worker thread.
class UseLiteWorkspacePool {
 public:
  std::unique_ptr<UseLiteWorkspace> Acquire() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!free_.empty()) {
        std::unique_ptr<UseLiteWorkspace> workspace = std::move(free_.back());
        free_.pop_back();
        return workspace;
      }
    }
    return std::make_unique<UseLiteWorkspace>();
  }

  void Release(std::unique_ptr<UseLiteWorkspace> workspace) {
    std::lock_guard<std::mutex> lock(mutex_);
    free_.push_back(std::move(workspace));
  }

 private:
  std::mutex mutex_;
  std::vector<std::unique_ptr<UseLiteWorkspace>> free_;  // GUARDED_BY(mutex_)
};

}  // namespace internal

// ---------------------------------------------------------------------------------------------
// Forward pass
//
// Texts are encoded in groups: the token rows of several texts are stacked so that each weight
// matrix is streamed from memory once per group rather than once per text. Only the dense layers
// (row by row, see dense_kernel.h) and layer normalisation (row by row) see the stacked rows;
// attention and pooling run per text. Every operation's result for a row depends only on that
// row's text, so a text's vector is the same bits whatever group it lands in.

namespace {

using internal::UseLiteModel;
using internal::UseLiteWorkspace;

// One text of a group: its (validated) token ids and where its rows sit in the buffers.
struct GroupText {
  std::span<const std::int32_t> token_ids;
  std::size_t first_row = 0;
  std::size_t rows = 0;  // min(token count, kMaxTokens)
  std::vector<float>* vector = nullptr;
};

std::size_t Stride(const RowMatrix& matrix) { return static_cast<std::size_t>(matrix.cols()); }

typedef float Lanes8 __attribute__((vector_size(32)));
constexpr std::size_t kLanes = 8;

// out = input · W + b for the first `rows` rows of two workspace buffers, in the model's
// precision; then ReLU when `relu`.
void Dense(const UseLiteModel& model, const RowMatrix& input, std::size_t rows,
           const UseLiteModel::DenseWeights& weights, const RowVector& bias, bool relu,
           RowMatrix& output, UseLiteWorkspace& workspace) {
  if (model.precision == UseLitePrecision::kInt8) {
    internal::QuantizeRows(model.kernel_path, input.data(), Stride(input), rows,
                           weights.int8.input_width(), workspace.quantized);
    internal::DenseForwardInt8(model.kernel_path, workspace.quantized, weights.int8, bias.data(),
                               relu, output.data(), Stride(output));
    return;
  }
  internal::DenseForward(input.data(), Stride(input), rows, weights.float32, bias.data(),
                         output.data(), Stride(output));
  if (relu) {
    auto activations = output.topRows(static_cast<Eigen::Index>(rows));
    activations = activations.cwiseMax(0.0f);
  }
}

// out = scale ⊙ (x − mean) / √(var + ε) + bias over the first `width` columns, row by row, with
// sequential sums (population variance, as the graph's Mean ops compute it).
void LayerNorm(const RowMatrix& input, std::size_t rows, std::size_t width, const RowVector& scale,
               const RowVector& bias, float epsilon, RowMatrix& output) {
  for (std::size_t row = 0; row < rows; ++row) {
    const float* in = input.data() + row * Stride(input);
    float* out = output.data() + row * Stride(output);
    float sum = 0.0f;
    for (std::size_t column = 0; column < width; ++column) sum += in[column];
    const float mean = sum / static_cast<float>(width);
    float squares = 0.0f;
    for (std::size_t column = 0; column < width; ++column) {
      out[column] = in[column] - mean;
      squares += out[column] * out[column];
    }
    const float inverse_deviation = 1.0f / std::sqrt(squares / static_cast<float>(width) + epsilon);
    for (std::size_t column = 0; column < width; ++column) {
      out[column] = (scale[static_cast<Eigen::Index>(column)] * inverse_deviation) * out[column] +
                    bias[static_cast<Eigen::Index>(column)];
    }
  }
}

// Multi-head self-attention within each text (no padding, so no mask):
// heads = concat_h softmax(Q_h·K_hᵀ)·V_h, with Q already scaled by 1/√d_k.
void SelfAttention(const UseLiteModel::Layer& layer, std::span<const GroupText> texts,
                   UseLiteWorkspace& workspace) {
  const std::size_t width = layer.width;
  const std::size_t head_width = layer.head_width;
  const std::size_t qkv_stride = Stride(workspace.qkv);
  const std::size_t heads_stride = Stride(workspace.heads);
  float* scores = workspace.scores.data();
  for (const GroupText& text : texts) {
    const float* text_qkv = workspace.qkv.data() + text.first_row * qkv_stride;
    for (std::size_t head = 0; head < kHeadCount; ++head) {
      const std::size_t offset = head * head_width;
      for (std::size_t query_row = 0; query_row < text.rows; ++query_row) {
        const std::span<const float> query(text_qkv + query_row * qkv_stride + offset, head_width);
        float maximum = -std::numeric_limits<float>::infinity();
        for (std::size_t key_row = 0; key_row < text.rows; ++key_row) {
          const std::span<const float> key(text_qkv + key_row * qkv_stride + width + offset,
                                           head_width);
          scores[key_row] = Dot(query, key);
          maximum = std::max(maximum, scores[key_row]);
        }
        float sum = 0.0f;
        for (std::size_t key_row = 0; key_row < text.rows; ++key_row) {
          scores[key_row] = internal::ExpNonPositive(scores[key_row] - maximum);
          sum += scores[key_row];
        }
        float* out = workspace.heads.data() + (text.first_row + query_row) * heads_stride + offset;
        std::fill(out, out + head_width, 0.0f);
        for (std::size_t key_row = 0; key_row < text.rows; ++key_row) {
          const float weight = scores[key_row] / sum;
          const float* value = text_qkv + key_row * qkv_stride + 2 * width + offset;
          // out += weight · value, 8 columns at a time (head widths are multiples of 8); each
          // column is the same multiply and add as one at a time would be.
          for (std::size_t column = 0; column < head_width; column += kLanes) {
            Lanes8 sum_lanes;
            Lanes8 value_lanes;
            std::memcpy(&sum_lanes, out + column, sizeof(Lanes8));
            std::memcpy(&value_lanes, value + column, sizeof(Lanes8));
            sum_lanes += weight * value_lanes;
            std::memcpy(out + column, &sum_lanes, sizeof(Lanes8));
          }
        }
      }
    }
  }
}

// One transformer layer over all rows of the group; workspace.normed holds LN(x) of the layer's
// input on entry, workspace.hidden holds the layer's output on exit.
void TransformerLayer(const UseLiteModel& model, const UseLiteModel::Layer& layer,
                      std::span<const GroupText> texts, std::size_t rows,
                      UseLiteWorkspace& workspace) {
  const std::size_t width = layer.width;
  Dense(model, workspace.normed, rows, layer.qkv_kernel, layer.qkv_bias, false, workspace.qkv,
        workspace);
  for (std::size_t row = 0; row < rows; ++row) {  // the graph scales Q before Q·Kᵀ
    float* query = workspace.qkv.data() + row * Stride(workspace.qkv);
    for (std::size_t column = 0; column < width; ++column) query[column] *= layer.attention_scale;
  }
  SelfAttention(layer, texts, workspace);
  Dense(model, workspace.heads, rows, layer.output_kernel, layer.output_bias, false,
        workspace.projected, workspace);
  auto hidden = workspace.hidden.topRows(static_cast<Eigen::Index>(rows));
  hidden = workspace.projected.topRows(static_cast<Eigen::Index>(rows)) + hidden;

  // Feed-forward sublayer: h += W₂·ReLU(W₁·LN(h) + b₁) + b₂.
  LayerNorm(workspace.hidden, rows, kModelWidth, layer.ffn_norm_scale, layer.ffn_norm_bias,
            model.layer_norm_epsilon, workspace.normed);
  Dense(model, workspace.normed, rows, layer.ffn_in_kernel, layer.ffn_in_bias, true,
        workspace.feed_forward, workspace);
  Dense(model, workspace.feed_forward, rows, layer.ffn_out_kernel, layer.ffn_out_bias, false,
        workspace.projected, workspace);
  hidden = workspace.projected.topRows(static_cast<Eigen::Index>(rows)) + hidden;
}

// Encodes a group of texts whose rows (and count) fit in a workspace.
void ForwardGroup(const UseLiteModel& model, std::span<const GroupText> texts,
                  UseLiteWorkspace& workspace) {
  std::size_t rows = 0;
  for (const GroupText& text : texts) rows = std::max(rows, text.first_row + text.rows);

  // x_t = E[id_t] + (E[id_t] + timing_t): the graph adds the embedding to itself plus the signal.
  for (const GroupText& text : texts) {
    for (std::size_t position = 0; position < text.rows; ++position) {
      const auto embedding = model.token_embeddings.row(text.token_ids[position]);
      workspace.input.row(static_cast<Eigen::Index>(text.first_row + position)) =
          embedding + (embedding + model.timing_signal.row(static_cast<Eigen::Index>(position)));
    }
  }

  // Layer 0: 256 wide in, 512 out; the residual branch is a dense projection of x.
  const UseLiteModel::Layer& first = model.layers[0];
  LayerNorm(workspace.input, rows, first.width, first.norm_scale, first.norm_bias,
            model.layer_norm_epsilon, workspace.normed);
  Dense(model, workspace.input, rows, first.residual_kernel, first.residual_bias, false,
        workspace.hidden, workspace);
  TransformerLayer(model, first, texts, rows, workspace);

  // Layer 1: 512 wide, identity residual.
  const UseLiteModel::Layer& second = model.layers[1];
  LayerNorm(workspace.hidden, rows, second.width, second.norm_scale, second.norm_bias,
            model.layer_norm_epsilon, workspace.normed);
  TransformerLayer(model, second, texts, rows, workspace);

  // Mean over each text's tokens (÷ max(n, 1): an empty text pools to zero), tanh dense layer.
  for (std::size_t text_index = 0; text_index < texts.size(); ++text_index) {
    const GroupText& text = texts[text_index];
    float* pooled = workspace.pooled.data() + text_index * Stride(workspace.pooled);
    std::fill(pooled, pooled + kModelWidth, 0.0f);
    for (std::size_t row = text.first_row; row < text.first_row + text.rows; ++row) {
      const float* hidden = workspace.hidden.data() + row * Stride(workspace.hidden);
      for (std::size_t column = 0; column < kModelWidth; ++column) pooled[column] += hidden[column];
    }
    const auto count = static_cast<float>(std::max<std::size_t>(text.rows, 1));
    for (std::size_t column = 0; column < kModelWidth; ++column) pooled[column] /= count;
  }
  // The pooling layer stays float32 in every precision: one row per text, a negligible cost.
  internal::DenseForward(workspace.pooled.data(), Stride(workspace.pooled), texts.size(),
                         model.pool_kernel, model.pool_bias.data(), workspace.output.data(),
                         Stride(workspace.output));

  // L2 normalisation: x · rsqrt(max(Σx², floor)).
  for (std::size_t text_index = 0; text_index < texts.size(); ++text_index) {
    float* output = workspace.output.data() + text_index * Stride(workspace.output);
    float squared_norm = 0.0f;
    for (std::size_t column = 0; column < kModelWidth; ++column) {
      output[column] = std::tanh(output[column]);
      squared_norm += output[column] * output[column];
    }
    const float inverse_norm = 1.0f / std::sqrt(std::max(squared_norm, model.normalize_epsilon));
    std::vector<float>& vector = *texts[text_index].vector;
    for (std::size_t column = 0; column < kModelWidth; ++column) {
      vector[column] = output[column] * inverse_norm;
    }
  }
}

// Splits texts (token ids already computed) into groups of at most kMaxTokens rows and texts.
// `max_rows` < kMaxTokens makes smaller groups (to spread a small batch over threads).
std::vector<std::vector<GroupText>> MakeGroups(const std::vector<std::vector<std::int32_t>>& ids,
                                               std::vector<std::vector<float>>& vectors,
                                               std::size_t max_rows) {
  std::vector<std::vector<GroupText>> groups;
  std::vector<GroupText> current;
  std::size_t current_rows = 0;
  for (std::size_t text_index = 0; text_index < ids.size(); ++text_index) {
    const std::size_t rows = std::min(ids[text_index].size(), UseLiteEmbedder::kMaxTokens);
    if (!current.empty() &&
        (current_rows + rows > max_rows || current.size() == UseLiteEmbedder::kMaxTokens)) {
      groups.push_back(std::move(current));
      current.clear();
      current_rows = 0;
    }
    current.push_back({ids[text_index], current_rows, rows, &vectors[text_index]});
    current_rows += rows;
  }
  if (!current.empty()) groups.push_back(std::move(current));
  return groups;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// The compiled model (int8 precision): what Open computes from the TF.js files — the token
// embeddings, the timing signal, every layer's vectors and quantised kernels, the pooling layer —
// written once to <model dir>/compiled.bin and copied from it by later Opens, which then read
// only vocab.json (for the tokenizer) instead of parsing model.json, hashing 28 MB of shards and
// quantising the kernels. Layout (host byte order): a CompiledHeader, then each array of
// VisitModel's order as a 64-bit element count and its bytes, padded to 8. The header carries
// the fingerprint of the model files (core::FingerprintFiles over every file SHA256SUMS lists,
// and SHA256SUMS itself) and a checksum of the rest; a cache whose fingerprint, checksum, size or
// any array's length does not match is ignored and rebuilt. Only sources that passed the
// checksums are compiled, so a cache never holds unverified weights.

namespace {

constexpr char kCompiledMagic[8] = {'E', 'N', 'G', 'R', 'A', 'M', 'U', 'C'};
constexpr std::uint32_t kCompiledVersion = 1;
constexpr std::uint32_t kEndianMarker = 0x01020304;
constexpr std::string_view kCompiledFormat = "engram-use-lite-int8-image-v1";
constexpr std::string_view kCompiledFile = "compiled.bin";
constexpr std::size_t kVocabularyRows = 8002;  // 8,000 pieces + 2 unused rows, as trained

struct CompiledHeader {
  char magic[8];
  std::uint32_t version;
  std::uint32_t endian;
  std::uint8_t fingerprint[32];
  std::uint64_t payload_bytes;
  std::uint64_t checksum;
};
static_assert(sizeof(CompiledHeader) == 64 && std::is_trivially_copyable_v<CompiledHeader>);

// The fingerprint of the model files in `directory`; nullopt without a SHA256SUMS (no cache then).
std::optional<std::array<std::uint8_t, 32>> ModelFingerprint(const std::string& directory) {
  const std::string checksums_path = FilePath(directory, kChecksums);
  StatusOr<std::string> checksums = core::ReadWholeFile(checksums_path, "checksums file");
  if (!checksums.ok()) return std::nullopt;
  std::vector<std::string> paths;
  for (const auto& [name, digest] : ParseChecksums(*checksums)) {
    paths.push_back(FilePath(directory, name));
  }
  return core::FingerprintFiles(kCompiledFormat, paths, checksums_path);
}

// Appends arrays to an image.
class ImageWriter {
 public:
  ImageWriter() : bytes_(sizeof(CompiledHeader), '\0') {}

  Status Floats(float* data, std::size_t count) { return Put(data, count * sizeof(float)); }
  Status Matrix(RowMatrix& matrix, std::size_t rows, std::size_t columns) {
    return Put(matrix.data(), rows * columns * sizeof(float));
  }
  Status Vector(RowVector& vector, std::size_t size) {
    return Put(vector.data(), size * sizeof(float));
  }
  Status Quantized(QuantizedWeights& weights, std::size_t input_width, std::size_t output_width) {
    (void)input_width;
    (void)output_width;
    RETURN_IF_ERROR(Put(weights.codes().data(), weights.codes().size_bytes()));
    RETURN_IF_ERROR(Put(weights.scale_values().data(), weights.scale_values().size_bytes()));
    return Put(weights.column_sum_values().data(), weights.column_sum_values().size_bytes());
  }
  Status Packed(PackedWeights& weights, std::size_t input_width, std::size_t output_width) {
    (void)input_width;
    (void)output_width;
    return Put(weights.data().data(), weights.data().size_bytes());
  }

  // The image with its header.
  std::string Finish(const std::array<std::uint8_t, 32>& fingerprint) {
    CompiledHeader header{};
    std::memcpy(header.magic, kCompiledMagic, sizeof(kCompiledMagic));
    header.version = kCompiledVersion;
    header.endian = kEndianMarker;
    std::memcpy(header.fingerprint, fingerprint.data(), fingerprint.size());
    header.payload_bytes = bytes_.size() - sizeof(CompiledHeader);
    header.checksum = core::Checksum64(
        std::as_bytes(std::span(bytes_.data(), bytes_.size())).subspan(sizeof(CompiledHeader)));
    std::memcpy(bytes_.data(), &header, sizeof(header));
    return std::move(bytes_);
  }

 private:
  Status Put(const void* data, std::size_t size) {
    const std::uint64_t count = size;
    bytes_.append(reinterpret_cast<const char*>(&count), sizeof(count));
    bytes_.append(static_cast<const char*>(data), size);
    bytes_.resize((bytes_.size() + 7) / 8 * 8, '\0');
    return Status::Ok();
  }

  std::string bytes_;
};

// Reads the arrays of an image back, each checked against the length the model expects.
class ImageReader {
 public:
  explicit ImageReader(std::span<const std::byte> payload) : payload_(payload) {}

  Status Floats(float* data, std::size_t count) {
    ASSIGN_OR_RETURN(const std::byte* bytes, Take(count * sizeof(float)));
    std::memcpy(data, bytes, count * sizeof(float));
    return Status::Ok();
  }
  Status Matrix(RowMatrix& matrix, std::size_t rows, std::size_t columns) {
    matrix.resize(static_cast<Eigen::Index>(rows), static_cast<Eigen::Index>(columns));
    return Floats(matrix.data(), rows * columns);
  }
  Status Vector(RowVector& vector, std::size_t size) {
    vector.resize(static_cast<Eigen::Index>(size));
    return Floats(vector.data(), size);
  }
  Status Quantized(QuantizedWeights& weights, std::size_t input_width, std::size_t output_width) {
    const std::size_t cells = input_width * output_width;
    ASSIGN_OR_RETURN(const std::byte* codes, Take(cells));
    ASSIGN_OR_RETURN(const std::byte* scales, Take(output_width * sizeof(float)));
    ASSIGN_OR_RETURN(const std::byte* sums, Take(output_width * sizeof(std::int32_t)));
    std::vector<float> scale_values(output_width);
    std::memcpy(scale_values.data(), scales, output_width * sizeof(float));
    std::vector<std::int32_t> sum_values(output_width);
    std::memcpy(sum_values.data(), sums, output_width * sizeof(std::int32_t));
    weights.Restore(input_width, output_width,
                    std::span(reinterpret_cast<const std::int8_t*>(codes), cells), scale_values,
                    sum_values);
    return Status::Ok();
  }
  Status Packed(PackedWeights& weights, std::size_t input_width, std::size_t output_width) {
    std::vector<float> data(input_width * output_width);
    RETURN_IF_ERROR(Floats(data.data(), data.size()));
    weights.Restore(input_width, output_width, data);
    return Status::Ok();
  }
  bool AtEnd() const { return at_ == payload_.size(); }

 private:
  StatusOr<const std::byte*> Take(std::size_t size) {
    std::uint64_t count = 0;
    if (payload_.size() - at_ < sizeof(count)) {
      return Status::Corruption("compiled model is truncated");
    }
    std::memcpy(&count, payload_.data() + at_, sizeof(count));
    at_ += sizeof(count);
    if (count != size) return Status::Corruption("compiled model has an array of the wrong size");
    const std::size_t padded = (size + 7) / 8 * 8;
    if (payload_.size() - at_ < padded) return Status::Corruption("compiled model is truncated");
    const std::byte* bytes = payload_.data() + at_;
    at_ += padded;
    return bytes;
  }

  std::span<const std::byte> payload_;
  std::size_t at_ = 0;
};

// Visits every array of an int8 model in the image's order (ImageWriter writes them,
// ImageReader fills them).
template <typename Archive>
Status VisitModel(Archive& archive, internal::UseLiteModel& model) {
  RETURN_IF_ERROR(archive.Matrix(model.token_embeddings, kVocabularyRows, kEmbeddingWidth));
  RETURN_IF_ERROR(archive.Matrix(model.timing_signal, kMaxTokens, kEmbeddingWidth));
  for (std::size_t layer_index = 0; layer_index < kLayerCount; ++layer_index) {
    auto& layer = model.layers[layer_index];
    const std::size_t width = layer_index == 0 ? kEmbeddingWidth : kModelWidth;
    layer.width = width;
    layer.head_width = width / kHeadCount;
    RETURN_IF_ERROR(archive.Floats(&layer.attention_scale, 1));
    RETURN_IF_ERROR(archive.Vector(layer.norm_scale, width));
    RETURN_IF_ERROR(archive.Vector(layer.norm_bias, width));
    RETURN_IF_ERROR(archive.Quantized(layer.qkv_kernel.int8, width, 3 * width));
    RETURN_IF_ERROR(archive.Vector(layer.qkv_bias, 3 * width));
    RETURN_IF_ERROR(archive.Quantized(layer.output_kernel.int8, width, kModelWidth));
    RETURN_IF_ERROR(archive.Vector(layer.output_bias, kModelWidth));
    if (width != kModelWidth) {
      RETURN_IF_ERROR(archive.Quantized(layer.residual_kernel.int8, width, kModelWidth));
      RETURN_IF_ERROR(archive.Vector(layer.residual_bias, kModelWidth));
    }
    RETURN_IF_ERROR(archive.Vector(layer.ffn_norm_scale, kModelWidth));
    RETURN_IF_ERROR(archive.Vector(layer.ffn_norm_bias, kModelWidth));
    RETURN_IF_ERROR(archive.Quantized(layer.ffn_in_kernel.int8, kModelWidth, kFeedForwardWidth));
    RETURN_IF_ERROR(archive.Vector(layer.ffn_in_bias, kFeedForwardWidth));
    RETURN_IF_ERROR(archive.Quantized(layer.ffn_out_kernel.int8, kFeedForwardWidth, kModelWidth));
    RETURN_IF_ERROR(archive.Vector(layer.ffn_out_bias, kModelWidth));
  }
  RETURN_IF_ERROR(archive.Floats(&model.layer_norm_epsilon, 1));
  RETURN_IF_ERROR(archive.Packed(model.pool_kernel, kModelWidth, kModelWidth));
  RETURN_IF_ERROR(archive.Vector(model.pool_bias, kModelWidth));
  return archive.Floats(&model.normalize_epsilon, 1);
}

// The model of the image `bytes` when its header, fingerprint, checksum and arrays all hold.
StatusOr<std::unique_ptr<internal::UseLiteModel>> ModelFromImage(
    std::span<const std::byte> bytes, const std::array<std::uint8_t, 32>& fingerprint,
    SentencePieceTokenizer tokenizer, SimdPath kernel_path) {
  if (bytes.size() < sizeof(CompiledHeader)) return Status::Corruption("compiled model too short");
  CompiledHeader header;
  std::memcpy(&header, bytes.data(), sizeof(header));
  if (std::memcmp(header.magic, kCompiledMagic, sizeof(kCompiledMagic)) != 0 ||
      header.version != kCompiledVersion || header.endian != kEndianMarker ||
      header.payload_bytes != bytes.size() - sizeof(CompiledHeader)) {
    return Status::Corruption("not a compiled model of this format");
  }
  if (std::memcmp(header.fingerprint, fingerprint.data(), fingerprint.size()) != 0) {
    return Status::Corruption("compiled model of other model files");
  }
  const std::span<const std::byte> payload = bytes.subspan(sizeof(CompiledHeader));
  if (core::Checksum64(payload) != header.checksum) {
    return Status::Corruption("compiled model checksum mismatch");
  }
  if (tokenizer.vocabulary_size() > kVocabularyRows) {
    return Status::Corruption("more pieces than the compiled embedding table has rows");
  }
  auto model = std::make_unique<internal::UseLiteModel>(std::move(tokenizer),
                                                        UseLitePrecision::kInt8, kernel_path);
  ImageReader reader(payload);
  RETURN_IF_ERROR(VisitModel(reader, *model));
  if (!reader.AtEnd()) return Status::Corruption("compiled model has trailing bytes");
  return model;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// UseLiteEmbedder

UseLiteEmbedder::UseLiteEmbedder(std::unique_ptr<internal::UseLiteModel> model,
                                 const UseLiteOptions& options, bool from_cache)
    : model_(std::move(model)),
      workspaces_(std::make_unique<internal::UseLiteWorkspacePool>()),
      options_(options),
      from_cache_(from_cache) {}

UseLiteEmbedder::~UseLiteEmbedder() = default;

const SentencePieceTokenizer& UseLiteEmbedder::tokenizer() const { return model_->tokenizer; }

StatusOr<std::unique_ptr<UseLiteEmbedder>> UseLiteEmbedder::Open(std::string_view model_dir,
                                                                 const UseLiteOptions& options) {
  try {
    const std::string directory(model_dir);
    const std::string model_json_path = FilePath(directory, kModelJson);
    const std::string vocab_json_path = FilePath(directory, kVocabJson);
    const SimdPath kernel_path = options.kernel_path.value_or(BestSimdPath());
    if (!SimdPathSupported(kernel_path)) {
      return Status::InvalidArgument("this CPU cannot run the " +
                                     std::string(SimdPathName(kernel_path)) + " int8 kernel path");
    }

    // The compiled model, when it matches the files (any failure falls back to them).
    std::optional<std::array<std::uint8_t, 32>> fingerprint;
    if (options.precision == UseLitePrecision::kInt8 && options.compiled_cache) {
      fingerprint = ModelFingerprint(directory);
    }
    const std::string compiled_path = FilePath(directory, kCompiledFile);
    if (fingerprint.has_value()) {
      if (std::optional<core::MappedFile> mapped = core::MappedFile::Open(compiled_path)) {
        StatusOr<std::string> vocab_json = ReadModelFile(vocab_json_path);
        StatusOr<SentencePieceTokenizer> tokenizer =
            vocab_json.ok() ? SentencePieceTokenizer::FromVocabJson(*vocab_json)
                            : StatusOr<SentencePieceTokenizer>(vocab_json.status());
        if (tokenizer.ok()) {
          StatusOr<std::unique_ptr<internal::UseLiteModel>> model = ModelFromImage(
              mapped->bytes(), *fingerprint, std::move(tokenizer).value(), kernel_path);
          if (model.ok()) {
            return std::unique_ptr<UseLiteEmbedder>(
                new UseLiteEmbedder(std::move(model).value(), options, /*from_cache=*/true));
          }
        }
      }
    }

    ASSIGN_OR_RETURN(std::string model_json_text, ReadModelFile(model_json_path));
    nlohmann::json model_json;
    try {
      model_json = nlohmann::json::parse(model_json_text);
    } catch (const nlohmann::json::exception& error) {
      return FileCorruption(model_json_path, std::string("not valid JSON: ") + error.what());
    }
    if (!model_json.is_object()) return FileCorruption(model_json_path, "not a JSON object");
    std::vector<WeightGroup> groups;
    std::map<std::string, WeightEntry> weights;
    RETURN_IF_ERROR(ParseManifest(model_json, model_json_path, groups, weights));

    ASSIGN_OR_RETURN(std::string vocab_json_text, ReadModelFile(vocab_json_path));
    std::vector<std::vector<std::string>> shard_contents(groups.size());
    for (std::size_t group_index = 0; group_index < groups.size(); ++group_index) {
      for (const std::string& shard : groups[group_index].paths) {
        ASSIGN_OR_RETURN(std::string contents, ReadModelFile(FilePath(directory, shard)));
        shard_contents[group_index].push_back(std::move(contents));
      }
    }

    if (options.verify_checksums) {
      std::vector<std::pair<std::string, const std::string*>> files = {
          {std::string(kModelJson), &model_json_text}, {std::string(kVocabJson), &vocab_json_text}};
      for (std::size_t group_index = 0; group_index < groups.size(); ++group_index) {
        for (std::size_t shard = 0; shard < groups[group_index].paths.size(); ++shard) {
          files.emplace_back(groups[group_index].paths[shard], &shard_contents[group_index][shard]);
        }
      }
      RETURN_IF_ERROR(VerifyChecksums(directory, files));
    }

    // Concatenate each group's shards and check they hold exactly what the manifest describes.
    for (std::size_t group_index = 0; group_index < groups.size(); ++group_index) {
      WeightGroup& group = groups[group_index];
      const std::size_t expected_bytes = group.expected_bytes;
      std::size_t actual_bytes = 0;
      for (const std::string& contents : shard_contents[group_index])
        actual_bytes += contents.size();
      if (actual_bytes != expected_bytes) {
        // TF.js writes equal-sized shards except the last: blame the first short one.
        std::size_t blamed = group.paths.size() - 1;
        for (std::size_t shard = 0; shard + 1 < group.paths.size(); ++shard) {
          if (shard_contents[group_index][shard].size() != shard_contents[group_index][0].size()) {
            blamed = shard;
            break;
          }
        }
        return FileCorruption(FilePath(directory, group.paths[blamed]),
                              "the weight shards hold " + std::to_string(actual_bytes) +
                                  " bytes but model.json describes " +
                                  std::to_string(expected_bytes) + "; a shard is truncated");
      }
      group.bytes.clear();
      group.bytes.reserve(actual_bytes);
      for (std::string& contents : shard_contents[group_index]) {
        group.bytes += contents;
        std::string().swap(contents);
      }
    }

    StatusOr<SentencePieceTokenizer> tokenizer =
        SentencePieceTokenizer::FromVocabJson(vocab_json_text);
    if (!tokenizer.ok()) {
      return FileCorruption(vocab_json_path, tokenizer.status().message());
    }
    auto model = std::make_unique<internal::UseLiteModel>(std::move(tokenizer).value(),
                                                          options.precision, kernel_path);

    const WeightReader reader(groups, weights, model_json_path);
    const std::size_t vocabulary_rows = kVocabularyRows;
    RETURN_IF_ERROR(reader.Matrix(
        std::string(kTokenEmbeddings),
        {static_cast<std::int64_t>(vocabulary_rows), static_cast<std::int64_t>(kEmbeddingWidth)},
        vocabulary_rows, kEmbeddingWidth, model->token_embeddings));
    if (model->tokenizer.vocabulary_size() > vocabulary_rows) {
      return FileCorruption(vocab_json_path,
                            "more pieces than the model's embedding table has rows");
    }
    ASSIGN_OR_RETURN(const std::int32_t max_length,
                     reader.IntScalar(Kona("ClipToMaxLength/Less/y")));
    if (max_length != static_cast<std::int32_t>(kMaxTokens)) {
      return FileCorruption(model_json_path, "maximum length " + std::to_string(max_length) +
                                                 ", expected " + std::to_string(kMaxTokens));
    }
    ASSIGN_OR_RETURN(
        const std::int32_t heads,
        reader.IntScalar(Kona("Encode/TransformerStack/Layer_1/TransformerLayer/MultiheadAttention/"
                              "split_heads/split_last_dimension/Reshape/shape/2")));
    if (heads != static_cast<std::int32_t>(kHeadCount)) {
      return FileCorruption(model_json_path, std::to_string(heads) + " attention heads, expected " +
                                                 std::to_string(kHeadCount));
    }

    // Timing signal [sin(t·ω_i), cos(t·ω_i)] with ω from the graph (ω_i = 10⁴^(−i/127)).
    RowMatrix inverse_timescales;
    RETURN_IF_ERROR(reader.Matrix(
        Kona("Encode/TransformerStack/Layer_0/AddTimingSignal/TimingSignal/ExpandDims_1"),
        {1, static_cast<std::int64_t>(kEmbeddingWidth / 2)}, 1, kEmbeddingWidth / 2,
        inverse_timescales));
    model->timing_signal.resize(kMaxTokens, kEmbeddingWidth);
    for (std::size_t position = 0; position < kMaxTokens; ++position) {
      for (std::size_t channel = 0; channel < kEmbeddingWidth / 2; ++channel) {
        const float angle = static_cast<float>(position) *
                            inverse_timescales(0, static_cast<Eigen::Index>(channel));
        const auto row = static_cast<Eigen::Index>(position);
        model->timing_signal(row, static_cast<Eigen::Index>(channel)) =
            static_cast<float>(std::sin(static_cast<double>(angle)));
        model->timing_signal(row, static_cast<Eigen::Index>(channel + kEmbeddingWidth / 2)) =
            static_cast<float>(std::cos(static_cast<double>(angle)));
      }
    }

    for (std::size_t layer = 0; layer < kLayerCount; ++layer) {
      RETURN_IF_ERROR(LoadLayer(reader, layer, model.get()));
    }
    ASSIGN_OR_RETURN(model->layer_norm_epsilon,
                     reader.FloatScalar(Kona("Encode/TransformerStack/Layer_1/TransformerLayer/FFN/"
                                             "layer_prepostprocess/layer_norm/Cast/x")));
    RETURN_IF_ERROR(reader.Packed(
        std::string(kPoolKernel),
        {static_cast<std::int64_t>(kModelWidth), static_cast<std::int64_t>(kModelWidth)},
        kModelWidth, kModelWidth, model->pool_kernel));
    RETURN_IF_ERROR(reader.Vector(std::string(kPoolBias), kModelWidth, model->pool_bias));
    ASSIGN_OR_RETURN(model->normalize_epsilon, reader.FloatScalar(std::string(kNormalizeEpsilon)));

    // Compile the model for later Opens, from files that passed their checksums only; a failure
    // to write (a read-only directory) only means the next Open reads the files again.
    if (fingerprint.has_value() && options.verify_checksums) {
      ImageWriter writer;
      if (VisitModel(writer, *model).ok()) {
        const std::string image = writer.Finish(*fingerprint);
        (void)core::WriteFileAtomically(compiled_path,
                                        std::as_bytes(std::span(image.data(), image.size())));
      }
    }
    return std::unique_ptr<UseLiteEmbedder>(
        new UseLiteEmbedder(std::move(model), options, /*from_cache=*/false));
  } catch (const std::bad_alloc&) {
    return Status::ResourceExhausted("out of memory while loading the USE-lite model");
  } catch (const std::exception& error) {
    return Status::Internal(std::string("unexpected error while loading the USE-lite model: ") +
                            error.what());
  }
}

StatusOr<std::vector<float>> UseLiteEmbedder::EmbedTokenIds(
    std::span<const std::int32_t> token_ids) {
  const auto rows = static_cast<std::int32_t>(model_->token_embeddings.rows());
  for (std::int32_t token_id : token_ids) {
    if (token_id < 0 || token_id >= rows) {
      return Status::InvalidArgument("token id " + std::to_string(token_id) +
                                     " is outside the USE-lite vocabulary [0, " +
                                     std::to_string(rows) + ")");
    }
  }
  try {
    std::vector<float> vector(kDimension);
    const GroupText text{token_ids, 0, std::min(token_ids.size(), kMaxTokens), &vector};
    std::unique_ptr<internal::UseLiteWorkspace> workspace = workspaces_->Acquire();
    ForwardGroup(*model_, std::span<const GroupText>(&text, 1), *workspace);
    workspaces_->Release(std::move(workspace));
    return vector;
  } catch (const std::bad_alloc&) {
    return Status::ResourceExhausted("out of memory while embedding with USE-lite");
  }
}

StatusOr<std::vector<std::vector<float>>> UseLiteEmbedder::Embed(
    std::span<const std::string> texts) {
  try {
    std::vector<std::vector<float>> vectors(texts.size(), std::vector<float>(kDimension));
    if (texts.empty()) return vectors;
    std::vector<std::vector<std::int32_t>> token_ids(texts.size());
    std::size_t total_rows = 0;
    for (std::size_t text_index = 0; text_index < texts.size(); ++text_index) {
      token_ids[text_index] = model_->tokenizer.Encode(texts[text_index]);
      total_rows += std::min(token_ids[text_index].size(), kMaxTokens);
    }
    // Groups are at most kMaxTokens rows; a small batch is split so every worker gets some.
    const std::size_t worker_count =
        std::max<std::size_t>(1, std::min(options_.num_threads, texts.size()));
    const std::size_t group_rows =
        std::clamp<std::size_t>((total_rows + worker_count - 1) / worker_count, 1, kMaxTokens);
    const std::vector<std::vector<GroupText>> groups = MakeGroups(token_ids, vectors, group_rows);

    std::atomic<std::size_t> next_group{0};
    std::atomic<bool> failed{false};
    auto work = [&]() noexcept {
      try {
        std::unique_ptr<internal::UseLiteWorkspace> workspace = workspaces_->Acquire();
        for (std::size_t group = next_group.fetch_add(1); group < groups.size();
             group = next_group.fetch_add(1)) {
          ForwardGroup(*model_, groups[group], *workspace);
        }
        workspaces_->Release(std::move(workspace));
      } catch (...) {
        failed = true;
      }
    };
    std::vector<std::thread> helpers;
    for (std::size_t helper = 1; helper < std::min(worker_count, groups.size()); ++helper) {
      try {
        helpers.emplace_back(work);
      } catch (const std::system_error&) {
        break;  // no more threads available: the calling thread does the rest
      }
    }
    work();
    for (std::thread& helper : helpers) helper.join();
    if (failed) return Status::ResourceExhausted("out of memory while embedding with USE-lite");
    return vectors;
  } catch (const std::bad_alloc&) {
    return Status::ResourceExhausted("out of memory while embedding with USE-lite");
  }
}

}  // namespace engram::embed
