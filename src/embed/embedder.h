// engram::embed::Embedder: the interface every text embedder implements.
//
// The vector route of the read path (DESIGN §5) and the vector index projection need one thing
// from a model: "turn these texts into unit vectors of a fixed dimension, the same way every
// time". Three implementations exist:
//   - UseLiteEmbedder (use_lite.h): the built-in Universal Sentence Encoder lite, offline, 512-d.
//   - OpenAiEmbedder (openai_embedder.h): any OpenAI-compatible /v1/embeddings HTTP endpoint.
//   - HashingEmbedder (hashing_embedder.h): feature hashing, for fast deterministic unit tests.
//
//   ASSIGN_OR_RETURN(std::unique_ptr<Embedder> embedder, UseLiteEmbedder::Open(model_dir));
//   ASSIGN_OR_RETURN(auto vectors, embedder->Embed(texts));   // vectors[i] ↔ texts[i]
//   float similarity = Cosine(vectors[0], vectors[1]);
//
// The store records model_id() and dimension() next to every vector and refuses to mix vectors
// from different models.
#ifndef ENGRAM_EMBED_EMBEDDER_H_
#define ENGRAM_EMBED_EMBEDDER_H_

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "engram/status.h"

namespace engram::embed {

// Contract of every implementation:
//   - Embed returns exactly one vector per input text, in input order, each of dimension()
//     floats with unit L2 norm (an empty or unknown text still gets a unit vector).
//   - Deterministic: the same text gives the same bytes on the same build and machine, whatever
//     else is in the batch (network-backed embedders are as deterministic as their server).
//   - Thread-safe: Embed, model_id and dimension may be called concurrently on one instance.
//   - Never throws; failures come back as a Status naming what to fix.
class Embedder {
 public:
  virtual ~Embedder();

  // Identifies the vector space, e.g. "use-lite@0.2.0", "hashing-256", "openai:<model>". Vectors
  // with different ids must never be compared.
  virtual std::string model_id() const = 0;

  // Number of floats in every vector Embed returns.
  virtual std::size_t dimension() const = 0;

  // One L2-normalised vector per text. An empty span gives an empty result.
  virtual StatusOr<std::vector<std::vector<float>>> Embed(std::span<const std::string> texts) = 0;
};

// Inner product of two vectors of equal length, summed in a fixed order (so it gives the same bits
// wherever the vectors live in memory). For unit vectors this is the cosine similarity.
float Dot(std::span<const float> a, std::span<const float> b);

// Cosine similarity; 0 when either vector is all zeros. Lengths must match.
float Cosine(std::span<const float> a, std::span<const float> b);

// Scales `vector` to unit L2 norm. Returns false (and leaves it unchanged) when its norm is zero
// or not finite.
bool L2Normalize(std::span<float> vector);

}  // namespace engram::embed

#endif  // ENGRAM_EMBED_EMBEDDER_H_
