// Embedder's out-of-line destructor and the small vector helpers shared by every embedder.
#include "embed/embedder.h"

#include <array>
#include <cassert>
#include <cmath>

namespace engram::embed {

Embedder::~Embedder() = default;

float Dot(std::span<const float> a, std::span<const float> b) {
  assert(a.size() == b.size());
  // Eight independent partial sums, combined in a fixed order: vectorisable by the compiler, and
  // the result does not depend on the alignment of either vector.
  constexpr std::size_t kLanes = 8;
  std::array<float, kLanes> partial{};
  const std::size_t size = a.size();
  const std::size_t vectorised = size - size % kLanes;
  for (std::size_t index = 0; index < vectorised; index += kLanes) {
    for (std::size_t lane = 0; lane < kLanes; ++lane) {
      partial[lane] += a[index + lane] * b[index + lane];
    }
  }
  float sum = ((partial[0] + partial[1]) + (partial[2] + partial[3])) +
              ((partial[4] + partial[5]) + (partial[6] + partial[7]));
  for (std::size_t index = vectorised; index < size; ++index) sum += a[index] * b[index];
  return sum;
}

float Cosine(std::span<const float> a, std::span<const float> b) {
  const float norm_product = std::sqrt(Dot(a, a)) * std::sqrt(Dot(b, b));
  if (!(norm_product > 0.0f)) return 0.0f;
  return Dot(a, b) / norm_product;
}

bool L2Normalize(std::span<float> vector) {
  const float norm = std::sqrt(Dot(vector, vector));
  if (!(norm > 0.0f) || !std::isfinite(norm)) return false;
  const float inverse = 1.0f / norm;
  for (float& value : vector) value *= inverse;
  return true;
}

}  // namespace engram::embed
