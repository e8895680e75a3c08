// Shared checks and encodings of the store backends (see backend_common.h).
#include "store/backend_common.h"

#include <bit>
#include <cmath>

#include "store/journal.h"

namespace engram::store {

Status CheckEmbedderRecord(const EmbedderRecord& embedder) {
  if (embedder.model_id.empty()) {
    return Status::InvalidArgument("set embedder: empty model id");
  }
  if ((embedder.model_id == "none") != (embedder.dimension == 0)) {
    return Status::InvalidArgument("set embedder: model " + embedder.model_id +
                                   " with dimension " + std::to_string(embedder.dimension) +
                                   " (only model \"none\" has dimension 0)");
  }
  return Status::Ok();
}

Status CheckVector(const std::optional<EmbedderRecord>& recorded, std::string_view model_id,
                   std::span<const float> values) {
  if (!recorded.has_value() || recorded->model_id == "none") {
    return Status::FailedPrecondition(
        "put vector: the store records no embedder (call SetEmbedder first)");
  }
  if (model_id != recorded->model_id) {
    return Status::FailedPrecondition("put vector: the vector is from model " +
                                      std::string(model_id) + " but the store holds vectors of " +
                                      recorded->model_id);
  }
  if (values.size() != recorded->dimension) {
    return Status::FailedPrecondition(
        "put vector: the vector has " + std::to_string(values.size()) + " values but " +
        recorded->model_id + " vectors have " + std::to_string(recorded->dimension));
  }
  for (std::size_t value_idx = 0; value_idx < values.size(); ++value_idx) {
    if (!std::isfinite(values[value_idx])) {
      return Status::InvalidArgument("put vector: value " + std::to_string(value_idx) +
                                     " is not a finite number");
    }
  }
  return Status::Ok();
}

Status CheckEngineMetaKey(std::string_view key) {
  constexpr std::size_t kMaxMetaKeyBytes = 256;
  if (!key.starts_with("engine.") || key.size() > kMaxMetaKeyBytes) {
    return Status::InvalidArgument("meta key \"" + std::string(key.substr(0, 64)) +
                                   "\" is not an engine key (\"engine.\" + at most 249 bytes)");
  }
  return Status::Ok();
}

Status CheckNewEdge(const EdgeRecord& record) {
  if (record.id.empty()) return Status::InvalidArgument("insert edge: empty id");
  if (record.type.empty()) return Status::InvalidArgument("insert edge: empty type");
  if (!IsEdgeStatus(record.status)) {
    return Status::InvalidArgument("insert edge: unknown status \"" + record.status.substr(0, 32) +
                                   "\"");
  }
  return Status::Ok();
}

Status CheckEdgeStatus(std::string_view status) {
  if (IsEdgeStatus(status)) return Status::Ok();
  return Status::InvalidArgument("update edge: unknown status \"" +
                                 std::string(status.substr(0, 32)) + "\"");
}

StatusOr<std::optional<EmbedderRecord>> EmbedderFromMeta(const std::optional<std::string>& model_id,
                                                         const std::optional<std::string>& dimension,
                                                         std::string_view where) {
  if (!model_id.has_value()) return std::optional<EmbedderRecord>();
  EmbedderRecord record;
  record.model_id = *model_id;
  std::size_t parsed = 0;
  bool valid = dimension.has_value() && !dimension->empty() && dimension->size() <= 9;
  for (const char c : dimension.value_or("")) {
    if (c < '0' || c > '9') valid = false;
    if (valid) parsed = parsed * 10 + static_cast<std::size_t>(c - '0');
  }
  if (!valid) {
    return Status::Corruption(std::string(where) +
                              ": meta has embedder_model_id but no valid embedder_dimension");
  }
  record.dimension = parsed;
  return std::optional<EmbedderRecord>(std::move(record));
}

std::string EncodeVector(std::span<const float> values) {
  std::string bytes(values.size() * 4, '\0');
  for (std::size_t value_idx = 0; value_idx < values.size(); ++value_idx) {
    const auto bits = std::bit_cast<std::uint32_t>(values[value_idx]);
    for (int byte_idx = 0; byte_idx < 4; ++byte_idx) {
      bytes[value_idx * 4 + byte_idx] = static_cast<char>((bits >> (8 * byte_idx)) & 0xFF);
    }
  }
  return bytes;
}

Status DecodeVector(std::string_view bytes, std::int64_t dimension, std::int64_t row,
                    std::string_view backend, std::vector<float>* out) {
  if (dimension <= 0 || bytes.size() != static_cast<std::size_t>(dimension) * 4) {
    return Status::Corruption(std::string(backend) + ": the vector of node row " +
                              std::to_string(row) + " has " + std::to_string(bytes.size()) +
                              " bytes, not 4 × dimension " + std::to_string(dimension));
  }
  out->resize(static_cast<std::size_t>(dimension));
  for (std::size_t value_idx = 0; value_idx < out->size(); ++value_idx) {
    std::uint32_t bits = 0;
    for (int byte_idx = 0; byte_idx < 4; ++byte_idx) {
      bits |= static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[value_idx * 4 + byte_idx]))
              << (8 * byte_idx);
    }
    (*out)[value_idx] = std::bit_cast<float>(bits);
  }
  return Status::Ok();
}

namespace {
constexpr char kHex[] = "0123456789abcdef";
}  // namespace

std::string QuoteDumpText(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (byte < 0x20 || byte == 0x7F) {
          out += "\\x";
          out += kHex[byte >> 4];
          out += kHex[byte & 0xF];
        } else {
          out += c;
        }
    }
  }
  out += '"';
  return out;
}

std::string HexDumpBytes(std::string_view bytes) {
  std::string out = "x'";
  for (const char c : bytes) {
    const auto value = static_cast<unsigned char>(c);
    out += kHex[value >> 4];
    out += kHex[value & 0xF];
  }
  out += '\'';
  return out;
}

}  // namespace engram::store
