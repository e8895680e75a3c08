// SentencePiece unigram segmentation exactly as Universal Sentence Encoder lite's tokenizer does
// it.
//
// USE-lite's token ids must match the ones the model was trained with, so this reproduces the
// reference JavaScript tokenizer (@energetic-ai/embeddings 0.2.0, same algorithm as
// @tensorflow-models/universal-sentence-encoder), quirks included:
//   1. The text is NFKC-normalised. If the result is non-empty, "▁" (U+2581) is prepended and every
//      U+0020 space becomes "▁"; other white space (tab, newline) is kept and is usually unknown.
//   2. Pieces are the vocab.json entries from index 6 on (0 is "�" = unknown, 1-5 are reserved and
//      never produced). A token id is the entry's index in vocab.json; when a piece occurs twice,
//      the later entry wins. A null score (vocab.json has 7, all pieces containing ':') counts as
//      0, as JavaScript's `null + x` does.
//   3. At every position, the pieces that start there are found by walking a trie of code points;
//      when none matches, the single character becomes the unknown id 0 with score 0.
//   4. Viterbi over piece scores, visiting end positions left to right and, for each, start
//      positions left to right; a candidate replaces the best one when the best is exactly 0 (the
//      reference's "unset" marker) or the candidate's total is >= it (so later candidates win
//      ties). Totals are double sums of the float64 scores, as in JavaScript.
//   5. The best path is read back from the end; consecutive unknown ids collapse into one.
// Input that is not valid UTF-8 has each bad sequence replaced by U+FFFD (which is unknown) first.
//
//   ASSIGN_OR_RETURN(auto tokenizer, SentencePieceTokenizer::FromVocabJson(vocab_json_text));
//   std::vector<std::int32_t> ids = tokenizer.Encode("Hello world.");  // {341, 4125, 311, 6}
#ifndef ENGRAM_EMBED_SENTENCEPIECE_H_
#define ENGRAM_EMBED_SENTENCEPIECE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engram/status.h"

namespace engram::embed {

// Immutable after construction; Encode is const and safe to call from many threads at once.
class SentencePieceTokenizer {
 public:
  // The id of the unknown piece ("�", vocab.json index 0).
  static constexpr std::int32_t kUnknownId = 0;
  // vocab.json entries 0..5 are special and never produced by segmentation.
  static constexpr std::int32_t kReservedCount = 6;

  // Parses vocab.json: a JSON array of [piece, score] pairs. Corruption when it is not one.
  static StatusOr<SentencePieceTokenizer> FromVocabJson(std::string_view vocab_json);

  // Token ids of `text` (possibly empty: only the empty string gives no ids). Not truncated.
  std::vector<std::int32_t> Encode(std::string_view text) const;

  // Number of vocab.json entries (ids are in [0, vocabulary_size())).
  std::size_t vocabulary_size() const { return piece_lengths_.size(); }

 private:
  // Trie over code points. Node 0 is the root. A node ends a piece when piece_id >= 0.
  struct TrieNode {
    std::int32_t piece_id = -1;
    double score = 0.0;
  };
  // One candidate piece in the Viterbi lattice.
  struct Candidate {
    std::uint32_t start = 0;
    std::uint32_t length = 0;  // in code points
    std::int32_t piece_id = 0;
    double score = 0.0;
  };

  SentencePieceTokenizer() = default;
  void Insert(const std::u32string& piece, double score, std::int32_t piece_id);
  std::int32_t Child(std::int32_t node, char32_t code_point) const;

  std::vector<TrieNode> nodes_;
  // (parent node << 21) | code point → child node. Only looked up, never iterated.
  std::unordered_map<std::uint64_t, std::int32_t> children_;
  // Length of each vocab.json piece in UTF-16 code units: how far the reference steps back over a
  // piece when reading the best path (matters only for "�" and would for astral pieces).
  std::vector<std::uint32_t> piece_lengths_;
};

// NFKC normalisation of UTF-8 text as a sequence of code points (invalid UTF-8 → U+FFFD).
std::u32string NormalizeNfkc(std::string_view text);

}  // namespace engram::embed

#endif  // ENGRAM_EMBED_SENTENCEPIECE_H_
