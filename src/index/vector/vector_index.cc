// VectorIndex's out-of-line destructor and the scoring helpers every vector index shares.
#include "index/vector/vector_index.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <string>

namespace engram::index {

VectorIndex::~VectorIndex() = default;

float InnerProduct(std::span<const float> a, std::span<const float> b) {
  constexpr std::size_t kLanes = 8;
  std::array<float, kLanes> partial{};
  const std::size_t size = std::min(a.size(), b.size());
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

StatusOr<std::vector<float>> NormalizedCopy(std::span<const float> vector, std::size_t dimension,
                                            std::string_view what) {
  if (vector.size() != dimension) {
    return Status::InvalidArgument(std::string(what) + " has " + std::to_string(vector.size()) +
                                   " dimensions, the index " + std::to_string(dimension));
  }
  for (float value : vector) {
    if (!std::isfinite(value)) {
      return Status::InvalidArgument(std::string(what) + " contains a non-finite value");
    }
  }
  std::vector<float> normalized(vector.begin(), vector.end());
  const float norm = std::sqrt(InnerProduct(normalized, normalized));
  if (!(norm > 0.0f) || !std::isfinite(norm)) {
    return Status::InvalidArgument(std::string(what) + " is all zeros (or too small to normalise)");
  }
  const float inverse = 1.0f / norm;
  for (float& value : normalized) value *= inverse;
  return normalized;
}

}  // namespace engram::index
