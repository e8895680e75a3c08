// Tokenizer: splits text into normalised, stemmed index terms with byte offsets into the original.
//
// Everything that matches words (the BM25 route, keyword vocabularies, the query frame) uses this
// one tokenizer, so a word written into memory and the same word in a question become the same
// term. Rules, in order:
//   - Segmentation by Unicode general category (utf8proc): letters (L*), numbers (N*) and,
//     inside a word, combining marks (M*) form words; everything else (spaces, punctuation,
//     symbols, emoji, controls, invalid bytes) separates them. Format characters (Cf: soft
//     hyphen, zero-width joiners) inside a word are skipped without splitting it.
//   - An apostrophe (' U+2019 U+FF07) between a letter or digit and a letter stays inside the
//     word: "don't", "o'brien". A final possessive "'s" is dropped: "Caroline's" -> "caroline",
//     "it's" -> "it" (then a stopword). Hyphens split: "well-known" -> "well", "known".
//   - Numbers stay whole: a '.' between two digits is kept ("3.5", "1.2.3", "v2.0"); a ','
//     between a digit and exactly three digits is a thousands separator and is removed from the
//     term ("3,500" -> "3500"), any other ',' splits ("1,2" -> "1", "2").
//   - Han ideographs (CJK unified and compatibility ideographs) are one token each; kana and
//     hangul runs form words like any other letters.
//   - Each word is normalised (NormalizeForIndex: NFKC, case folding, marks stripped).
//   - Optionally stopwords are dropped (text/stopwords.h; tested on the unstemmed word).
//   - Words longer than max_token_bytes after normalisation are dropped (hashes, base64 blobs).
//   - Optionally the word is stemmed with Snowball english (Porter2). Only words made of ASCII
//     letters and apostrophes are stemmed: numbers, identifiers with digits ("mp3") and
//     non-English scripts are kept as they are.
//
//   engram::text::Tokenizer tokenizer;
//   for (const engram::text::Token& token : tokenizer.Tokenize("Caroline's running club")) {
//     // {"carolin","caroline",0,8}, {"run","running",11,18}, {"club","club",19,23}
//   }
//
// Thread-safety: a Tokenizer is immutable after construction; Tokenize() and Terms() are const and
// may run concurrently from any number of threads. Stemming uses one thread_local libstemmer
// instance per calling thread (StemEnglish in text/stemmer.h), created on the thread's first use.
#ifndef ENGRAM_TEXT_TOKENIZER_H_
#define ENGRAM_TEXT_TOKENIZER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "text/normalize.h"

namespace engram::text {

struct Token {
  std::string term;     // normalised and stemmed: what the index stores
  std::string word;     // normalised, not stemmed (possessive "'s" removed)
  std::uint32_t begin;  // byte offset of the word's first byte in the original text
  std::uint32_t end;    // one past its last byte (before a dropped possessive "'s")

  friend bool operator==(const Token&, const Token&) = default;
};

struct TokenizerOptions {
  // Stem words with Snowball english. Default: true.
  bool stem = true;
  // Drop English stopwords. Default: true.
  bool drop_stopwords = true;
  // Drop words whose normalised form is longer than this many bytes. Default: 64.
  std::size_t max_token_bytes = 64;
  // How each word is normalised. Default: marks stripped.
  NormalizeOptions normalize = {};
};

class Tokenizer {
 public:
  using Options = TokenizerOptions;

  Tokenizer() = default;
  explicit Tokenizer(const Options& options) : options_(options) {}

  // The tokens of `text` in order of appearance. Invalid UTF-8 bytes are separators. Texts longer
  // than 4 GiB are tokenised up to the 4 GiB mark only (offsets are 32-bit; engram's limits keep
  // turns far below that).
  std::vector<Token> Tokenize(std::string_view text) const;

  // Only the terms of Tokenize(text), in order (repeats included).
  std::vector<std::string> Terms(std::string_view text) const;

  const Options& options() const { return options_; }

 private:
  // Turns the raw word text[begin, end) into a token appended to `tokens`, unless it is dropped.
  void EmitWord(std::string_view text, std::size_t begin, std::size_t end,
                std::vector<Token>& tokens) const;

  Options options_;
};

}  // namespace engram::text

#endif  // ENGRAM_TEXT_TOKENIZER_H_
