// A word-vector file (word_vectors.h layout) built in memory, for the tests of the lexicon and
// of the read path's word-vector soft matches.
#ifndef ENGRAM_LEXICON_WORD_VECTORS_TEST_UTIL_H_
#define ENGRAM_LEXICON_WORD_VECTORS_TEST_UTIL_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace engram::lexicon {

inline void PutU32(std::string& out, std::uint32_t value) {
  for (int shift = 0; shift < 32; shift += 8) out.push_back(static_cast<char>(value >> shift));
}

// The bytes of a word-vector file (word_vectors.h) of `words` with their vectors, quantised as
// scripts/convert-word-vectors.js does.
inline std::string VectorFile(
    const std::vector<std::pair<std::string, std::vector<double>>>& words) {
  const std::uint32_t dimensions = static_cast<std::uint32_t>(words.front().second.size());
  std::string out = "ENGRAMWV";
  PutU32(out, 1);
  PutU32(out, dimensions);
  PutU32(out, static_cast<std::uint32_t>(words.size()));
  PutU32(out, 0);
  std::string codes;
  for (const auto& [word, vector] : words) {
    double norm = 0;
    for (const double x : vector) norm += x * x;
    norm = std::sqrt(norm);
    double largest = 0;
    for (const double x : vector) largest = std::max(largest, std::abs(x / norm));
    const float scale = static_cast<float>(largest / 127);
    std::uint32_t bits;
    std::memcpy(&bits, &scale, 4);
    PutU32(out, bits);
    for (const double x : vector) {
      codes.push_back(static_cast<char>(std::lround(x / norm / scale)));
    }
  }
  out += codes;
  for (const auto& [word, vector] : words) {
    out.push_back(static_cast<char>(word.size()));
    out += word;
  }
  return out;
}

}  // namespace engram::lexicon

#endif  // ENGRAM_LEXICON_WORD_VECTORS_TEST_UTIL_H_
