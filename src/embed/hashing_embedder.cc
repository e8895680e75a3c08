// HashingEmbedder (see hashing_embedder.h).
#include "embed/hashing_embedder.h"

#include <algorithm>
#include <cstdint>
#include <new>

namespace engram::embed {
namespace {

constexpr std::uint64_t kFnvPrime = 0x100000001b3ULL;
// Feature prefixes keep a unigram "a b" apart from the bigram of "a" and "b".
constexpr std::string_view kUnigramPrefix = "u\x1f";
constexpr std::string_view kBigramPrefix = "b\x1f";
constexpr std::string_view kEmptyFeature = "e\x1f<empty>";

bool IsWordByte(unsigned char byte) {
  return (byte >= '0' && byte <= '9') || (byte >= 'a' && byte <= 'z') ||
         (byte >= 'A' && byte <= 'Z') || byte >= 0x80;
}

std::vector<std::string> Words(std::string_view text) {
  std::vector<std::string> words;
  std::string current;
  for (char character : text) {
    const auto byte = static_cast<unsigned char>(character);
    if (IsWordByte(byte)) {
      current.push_back(byte >= 'A' && byte <= 'Z' ? static_cast<char>(byte - 'A' + 'a')
                                                   : character);
    } else if (!current.empty()) {
      words.push_back(std::move(current));
      current.clear();
    }
  }
  if (!current.empty()) words.push_back(std::move(current));
  return words;
}

// Adds ±1 to the feature's bucket; the sign comes from the top bit of the same hash.
void AddFeature(std::uint64_t hash, std::vector<float>& vector) {
  const std::size_t bucket = static_cast<std::size_t>(hash % vector.size());
  vector[bucket] += (hash >> 63) != 0 ? -1.0f : 1.0f;
}

}  // namespace

std::uint64_t Fnv1a64(std::string_view bytes, std::uint64_t hash) {
  for (char character : bytes) {
    hash ^= static_cast<unsigned char>(character);
    hash *= kFnvPrime;
  }
  return hash;
}

StatusOr<std::unique_ptr<HashingEmbedder>> HashingEmbedder::Create(std::size_t dimension) {
  if (dimension == 0) return Status::InvalidArgument("hashing embedder dimension must be > 0");
  return std::unique_ptr<HashingEmbedder>(new HashingEmbedder(dimension));
}

std::string HashingEmbedder::model_id() const { return "hashing-" + std::to_string(dimension_); }

std::vector<float> HashingEmbedder::EmbedOne(std::string_view text) const {
  std::vector<float> vector(dimension_, 0.0f);
  const std::vector<std::string> words = Words(text);
  for (std::size_t index = 0; index < words.size(); ++index) {
    AddFeature(Fnv1a64(words[index], Fnv1a64(kUnigramPrefix)), vector);
    if (index + 1 < words.size()) {
      const std::uint64_t first = Fnv1a64(words[index], Fnv1a64(kBigramPrefix));
      AddFeature(Fnv1a64(words[index + 1], Fnv1a64(" ", first)), vector);
    }
  }
  // Features can cancel out (or there are none): fall back to the fixed empty feature.
  if (!L2Normalize(vector)) {
    std::fill(vector.begin(), vector.end(), 0.0f);
    AddFeature(Fnv1a64(kEmptyFeature), vector);
    L2Normalize(vector);
  }
  return vector;
}

StatusOr<std::vector<std::vector<float>>> HashingEmbedder::Embed(
    std::span<const std::string> texts) {
  try {
    std::vector<std::vector<float>> vectors;
    vectors.reserve(texts.size());
    for (const std::string& text : texts) vectors.push_back(EmbedOne(text));
    return vectors;
  } catch (const std::bad_alloc&) {
    return Status::ResourceExhausted("out of memory in the hashing embedder");
  }
}

}  // namespace engram::embed
