// VectorIndex's out-of-line destructor and the scoring helpers every vector index shares.
#include "index/vector/vector_index.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "embed/embedder.h"

namespace engram::index {

VectorIndex::~VectorIndex() = default;

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
  const float norm = std::sqrt(embed::Dot(normalized, normalized));
  if (!(norm > 0.0f) || !std::isfinite(norm)) {
    return Status::InvalidArgument(std::string(what) + " is all zeros (or too small to normalise)");
  }
  const float inverse = 1.0f / norm;
  for (float& value : normalized) value *= inverse;
  return normalized;
}

}  // namespace engram::index
