// HashingEmbedder: a deterministic feature-hashing embedder for fast unit tests.
//
// Word unigrams and bigrams are hashed (64-bit FNV-1a) into D buckets with a hash-derived sign
// (the "hashing trick"), then the vector is L2-normalised. Texts sharing words get a positive
// cosine; there is no notion of meaning. Tests of the vector route, the store's model-id checks and
// the index use it where loading USE-lite (28 MB, ~0.3 s) would be wasteful.
//
// Words are maximal runs of ASCII letters and digits and of non-ASCII bytes (so accented and CJK
// text forms words); ASCII letters are lower-cased; everything else separates words. A text with
// no words maps to the bucket of a fixed "<empty>" feature, so every vector has unit norm.
//
//   ASSIGN_OR_RETURN(auto embedder, HashingEmbedder::Create(256));   // model_id "hashing-256"
#ifndef ENGRAM_EMBED_HASHING_EMBEDDER_H_
#define ENGRAM_EMBED_HASHING_EMBEDDER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "embed/embedder.h"
#include "engram/status.h"

namespace engram::embed {

// Immutable and stateless: thread-safe. Output depends only on the text and the dimension.
class HashingEmbedder final : public Embedder {
 public:
  static constexpr std::size_t kDefaultDimension = 256;

  // InvalidArgument when dimension is 0.
  static StatusOr<std::unique_ptr<HashingEmbedder>> Create(
      std::size_t dimension = kDefaultDimension);

  std::string model_id() const override;  // "hashing-<D>"
  std::size_t dimension() const override { return dimension_; }
  StatusOr<std::vector<std::vector<float>>> Embed(std::span<const std::string> texts) override;

  // The vector of one text.
  std::vector<float> EmbedOne(std::string_view text) const;

 private:
  explicit HashingEmbedder(std::size_t dimension) : dimension_(dimension) {}

  std::size_t dimension_;
};

// 64-bit FNV-1a of `bytes`, continuing from `hash` (default: the FNV offset basis).
std::uint64_t Fnv1a64(std::string_view bytes, std::uint64_t hash = 0xcbf29ce484222325ULL);

}  // namespace engram::embed

#endif  // ENGRAM_EMBED_HASHING_EMBEDDER_H_
