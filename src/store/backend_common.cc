// Shared checks and encodings of the store backends (see backend_common.h).
#include "store/backend_common.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <nlohmann/json.hpp>

#include "store/journal.h"
#include "store/turn_analysis.h"

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

Status CheckTurnAnalysis(const TurnAnalysisRecord& record) {
  const std::string where = "put turn analysis of node row " + std::to_string(record.turn_row);
  if (record.format <= 0) {
    return Status::InvalidArgument(where + ": format " + std::to_string(record.format) +
                                   " (formats start at 1)");
  }
  return CheckTurnAnalysisBytes(record.format, record.bytes).WithContext(where);
}

Status CheckProjectionSnapshot(const ProjectionSnapshot& snapshot) {
  const std::string where = "put projection snapshot of scope " + std::to_string(snapshot.scope_id);
  if (snapshot.projection.empty() || snapshot.projection.size() > 64) {
    return Status::InvalidArgument(where + ": the projection name must be 1 to 64 bytes");
  }
  if (snapshot.key.size() > 1024) {
    return Status::InvalidArgument(where + ": the key is longer than 1024 bytes");
  }
  if (snapshot.item_count < 0 || snapshot.journal_seq < 0) {
    return Status::InvalidArgument(where + ": negative item count or journal seq");
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

namespace {

// IEEE-754 binary32 -> binary16, round to nearest, ties to even; overflow gives infinity (unit
// vectors never come near it), NaN stays NaN.
std::uint16_t ToHalf(float value) {
  const auto bits = std::bit_cast<std::uint32_t>(value);
  const auto sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000u);
  const std::uint32_t exponent = (bits >> 23) & 0xFFu;
  std::uint32_t mantissa = bits & 0x7FFFFFu;
  if (exponent == 0xFFu) {
    return static_cast<std::uint16_t>(sign | 0x7C00u | (mantissa != 0 ? 0x200u : 0u));
  }
  const int half_exponent = static_cast<int>(exponent) - 127 + 15;
  if (half_exponent >= 0x1F) return static_cast<std::uint16_t>(sign | 0x7C00u);
  if (half_exponent <= 0) {
    // Subnormal half (or zero): shift the mantissa with its implicit bit into place.
    if (half_exponent < -10) return sign;
    mantissa |= 0x800000u;
    const int shift = 14 - half_exponent;
    std::uint32_t half = mantissa >> shift;
    const std::uint32_t rest = mantissa & ((1u << shift) - 1u);
    const std::uint32_t halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (half & 1u) != 0)) ++half;
    return static_cast<std::uint16_t>(sign | half);
  }
  std::uint32_t half = (static_cast<std::uint32_t>(half_exponent) << 10) | (mantissa >> 13);
  const std::uint32_t rest = mantissa & 0x1FFFu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1u) != 0)) ++half;  // may carry into exp
  return static_cast<std::uint16_t>(sign | half);
}

float FromHalf(std::uint16_t half) {
  const std::uint32_t sign = static_cast<std::uint32_t>(half & 0x8000u) << 16;
  const std::uint32_t exponent = (half >> 10) & 0x1Fu;
  std::uint32_t mantissa = half & 0x3FFu;
  if (exponent == 0) {
    if (mantissa == 0) return std::bit_cast<float>(sign);
    // Subnormal: value = mantissa × 2^-24, exact in float32.
    const float magnitude = static_cast<float>(mantissa) * 0x1p-24f;
    return sign != 0 ? -magnitude : magnitude;
  }
  if (exponent == 0x1F) return std::bit_cast<float>(sign | 0x7F800000u | (mantissa << 13));
  return std::bit_cast<float>(sign | ((exponent + 127 - 15) << 23) | (mantissa << 13));
}

}  // namespace

namespace {

// int8 layout: the scale (the largest magnitude, float32), then one signed code a value, then
// for an even dimension one zero byte, so the length is odd and never 2 × or 4 × dimension.
// A code q stands for q × scale / 127, computed in double and rounded once to float: the code
// ±127 gives the scale back exactly, so encoding a decoded vector again gives the same bytes.
constexpr double kInt8Max = 127.0;

std::size_t Int8Length(std::size_t dimension) {
  return dimension + 4 + (dimension % 2 == 0 ? 1 : 0);
}

void PutWord(std::uint32_t bits, std::size_t width, char* out) {
  for (std::size_t byte_idx = 0; byte_idx < width; ++byte_idx) {
    out[byte_idx] = static_cast<char>((bits >> (8 * byte_idx)) & 0xFF);
  }
}

std::uint32_t GetWord(const char* in, std::size_t width) {
  std::uint32_t bits = 0;
  for (std::size_t byte_idx = 0; byte_idx < width; ++byte_idx) {
    bits |= static_cast<std::uint32_t>(static_cast<unsigned char>(in[byte_idx])) << (8 * byte_idx);
  }
  return bits;
}

// Round to nearest, ties away from zero; non-finite values (PutVector refuses them) go to the
// nearest end or 0 for NaN.
std::int8_t Int8Code(float value, float scale) {
  if (!(scale > 0.0f) || std::isnan(value)) return 0;
  const double code = std::round(static_cast<double>(value) * kInt8Max / scale);
  return static_cast<std::int8_t>(std::clamp(code, -kInt8Max, kInt8Max));
}

float Int8Value(std::int8_t code, float scale) {
  return static_cast<float>(static_cast<double>(code) * static_cast<double>(scale) / kInt8Max);
}

float Int8Scale(std::span<const float> values) {
  float scale = 0.0f;
  for (const float value : values) {
    if (std::isfinite(value)) scale = std::max(scale, std::abs(value));
  }
  return scale;
}

}  // namespace

std::string_view VectorPrecisionName(VectorPrecision precision) {
  switch (precision) {
    case VectorPrecision::kFloat16:
      return "float16";
    case VectorPrecision::kInt8:
      return "int8";
    case VectorPrecision::kFloat32:
      break;
  }
  return "float32";
}

std::optional<VectorPrecision> VectorPrecisionNamed(std::string_view name) {
  for (const VectorPrecision precision :
       {VectorPrecision::kFloat32, VectorPrecision::kFloat16, VectorPrecision::kInt8}) {
    if (VectorPrecisionName(precision) == name) return precision;
  }
  return std::nullopt;
}

std::string EncodeVector(std::span<const float> values, VectorPrecision precision) {
  if (precision == VectorPrecision::kInt8) {
    std::string bytes(Int8Length(values.size()), '\0');
    const float scale = Int8Scale(values);
    PutWord(std::bit_cast<std::uint32_t>(scale), 4, bytes.data());
    for (std::size_t value_idx = 0; value_idx < values.size(); ++value_idx) {
      bytes[4 + value_idx] = static_cast<char>(Int8Code(values[value_idx], scale));
    }
    return bytes;
  }
  const bool half = precision == VectorPrecision::kFloat16;
  const std::size_t width = half ? 2 : 4;
  std::string bytes(values.size() * width, '\0');
  for (std::size_t value_idx = 0; value_idx < values.size(); ++value_idx) {
    const std::uint32_t bits = half ? ToHalf(values[value_idx])
                                    : std::bit_cast<std::uint32_t>(values[value_idx]);
    PutWord(bits, width, bytes.data() + value_idx * width);
  }
  return bytes;
}

Status DecodeVector(std::string_view bytes, std::int64_t dimension, std::int64_t row,
                    std::string_view backend, std::vector<float>* out) {
  const auto count = static_cast<std::size_t>(std::max<std::int64_t>(dimension, 0));
  if (dimension <= 0 || (bytes.size() != count * 4 && bytes.size() != count * 2 &&
                         bytes.size() != Int8Length(count))) {
    return Status::Corruption(std::string(backend) + ": the vector of node row " +
                              std::to_string(row) + " has " + std::to_string(bytes.size()) +
                              " bytes, not 4 × (float32), 2 × (float16) or 4 + 1 × (int8, "
                              "padded to an odd length) dimension " +
                              std::to_string(dimension));
  }
  out->resize(count);
  if (bytes.size() == Int8Length(count)) {
    const auto scale = std::bit_cast<float>(GetWord(bytes.data(), 4));
    for (std::size_t value_idx = 0; value_idx < count; ++value_idx) {
      (*out)[value_idx] = Int8Value(static_cast<std::int8_t>(bytes[4 + value_idx]), scale);
    }
    return Status::Ok();
  }
  const std::size_t width = bytes.size() / count;
  for (std::size_t value_idx = 0; value_idx < count; ++value_idx) {
    const std::uint32_t bits = GetWord(bytes.data() + value_idx * width, width);
    (*out)[value_idx] = width == 2 ? FromHalf(static_cast<std::uint16_t>(bits))
                                   : std::bit_cast<float>(bits);
  }
  return Status::Ok();
}

std::vector<float> StoredVectorValues(std::span<const float> values, VectorPrecision precision) {
  std::vector<float> stored(values.begin(), values.end());
  if (precision == VectorPrecision::kFloat16) {
    for (float& value : stored) value = FromHalf(ToHalf(value));
  } else if (precision == VectorPrecision::kInt8) {
    const float scale = Int8Scale(values);
    for (float& value : stored) value = Int8Value(Int8Code(value, scale), scale);
  }
  return stored;
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

namespace {

// `text` as a JSON string the way nlohmann::json's dump() writes one (the write path's
// serialiser): quote, backslash and control bytes escaped (\b \f \n \r \t, others \u00xx),
// every other byte as it is.
void AppendDumpedString(std::string& out, std::string_view text) {
  out += '"';
  std::size_t plain = 0;  // start of the bytes not yet appended, none of which needs escaping
  for (std::size_t at = 0; at < text.size(); ++at) {
    const char c = text[at];
    if (static_cast<unsigned char>(c) >= 0x20 && c != '"' && c != '\\') continue;
    out.append(text.data() + plain, at - plain);
    plain = at + 1;
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default: {
        const auto byte = static_cast<unsigned char>(c);
        out += "\\u00";
        out += kHex[byte >> 4];
        out += kHex[byte & 0xF];
      }
    }
  }
  out.append(text.data() + plain, text.size() - plain);
  out += '"';
}

}  // namespace

std::optional<std::string> TurnContentFromColumns(const NodeRecord& node) {
  if (node.kind != NodeKind::kTurn || !node.event_time.has_value()) return std::nullopt;
  if (node.metadata_json.empty() || node.metadata_json.front() != '{') return std::nullopt;
  // The one layout of a turn's content: write/capture.cc hashes these bytes into the turn's id,
  // and every read of a compact turn rebuilds them. It is what nlohmann::json's dump of the
  // object writes (keys in sorted order, no spaces), which earlier versions stored, written out
  // directly: parsing and dumping the metadata made reads a fifth slower. The stored metadata is
  // spliced in as it is (the write path stores it canonical, as dump() writes it); a turn
  // written another way keeps its own content, since StoredContentJson compares byte for byte.
  std::string out;
  out.reserve(node.text.size() + node.metadata_json.size() + node.speaker.size() +
              node.session_id.size() + 112);
  out += "{\"event_time\":";
  AppendDumpedString(out, FormatTimestamp(*node.event_time));
  out += ",\"metadata\":";
  out += node.metadata_json;
  out += ",\"role\":";
  AppendDumpedString(out, RoleName(node.role));
  out += ",\"sequence\":";
  out += std::to_string(node.sequence);
  out += ",\"session_id\":";
  AppendDumpedString(out, node.session_id);
  out += ",\"speaker\":";
  AppendDumpedString(out, node.speaker);
  out += ",\"text\":";
  AppendDumpedString(out, node.text);
  out += '}';
  return out;
}

std::string StoredContentJson(const NodeRecord& node) {
  if (node.kind == NodeKind::kTurn && !node.content_json.empty() &&
      node.content_json.front() == '{' && TurnContentFromColumns(node) == node.content_json) {
    return "";
  }
  if (node.content_json.empty() || node.content_json.front() == ' ') {
    return " " + node.content_json;
  }
  return node.content_json;
}

Status RestoreContentJson(NodeRecord& node, std::string_view backend) {
  if (!node.content_json.empty()) {
    if (node.content_json.front() == ' ') node.content_json.erase(0, 1);
    return Status::Ok();
  }
  std::optional<std::string> rebuilt = TurnContentFromColumns(node);
  if (!rebuilt.has_value()) {
    return Status::Corruption(std::string(backend) + ": node " + node.id +
                              " stores no content and its columns do not rebuild a turn's");
  }
  node.content_json = std::move(*rebuilt);
  return Status::Ok();
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
