// Content addressing: SHA-256 over length-prefixed fields, truncated to 128 bits.
#include "core/ids.h"

#include "core/sha256.h"

namespace engram::core {
namespace {

void Field(Sha256& hasher, std::string_view field) {
  const std::string length = std::to_string(field.size()) + ":";
  hasher.Update(length);
  hasher.Update(field);
}

std::string Truncated(Sha256& hasher) {
  const auto digest = hasher.Finish();
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(kIdHexDigits);
  for (std::size_t i = 0; i < kIdHexDigits / 2; ++i) {
    out += kHex[digest[i] >> 4];
    out += kHex[digest[i] & 0xF];
  }
  return out;
}

}  // namespace

std::string NodeId(std::string_view type, std::string_view canonical_content,
                   std::string_view parent_scope_id, std::int64_t created_at_micros) {
  Sha256 hasher;
  Field(hasher, "node");
  Field(hasher, type);
  Field(hasher, canonical_content);
  Field(hasher, parent_scope_id);
  Field(hasher, std::to_string(created_at_micros));
  return Truncated(hasher);
}

std::string EdgeId(std::string_view type, std::string_view src, std::string_view dst,
                   std::int64_t created_at_micros) {
  Sha256 hasher;
  Field(hasher, "edge");
  Field(hasher, type);
  Field(hasher, src);
  Field(hasher, dst);
  Field(hasher, std::to_string(created_at_micros));
  return Truncated(hasher);
}

std::string ScopeNodeId(std::string_view scope_path) {
  return NodeId("scope", scope_path, "", 0);
}

bool LooksLikeId(std::string_view text) {
  if (text.size() != kIdHexDigits) return false;
  for (const char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

}  // namespace engram::core
