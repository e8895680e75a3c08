// The lexer: splits a text into lexemes — words, numbers, mixed letters and digits, and single
// punctuation marks — each with its byte span, an ASCII lower-cased copy, whether it is
// capitalised, what precedes it (white space, a line break) and whether it starts a sentence.
// Every rule-based reader of a turn reads these lexemes: the temporal parser (temporal.h), the
// signal detectors (signals.h), the write path's fact extractor, reference resolver and content
// signals (over the lexemes write/turn_text.h keeps per turn) and consolidation's sentence spans.
//
// It is not a tokenizer for indexing (tokenizer.h is): it keeps punctuation, case and adjacency,
// which the hand-written rules need ("3pm" vs "3 pm", "Dr." vs the end of a sentence).
//
//   for (const engram::text::Lexeme& lexeme : engram::text::Lex("Dr. Smith paid $5k.")) { ... }
//   // "dr" word (capitalised, sentence start), "." punct, "smith" word (capitalised, no
//   // sentence start: "Dr." is a title), "paid" word, "$" punct, "5" number, "k" word (no
//   // space before), "." punct
//
// Deterministic, no std::regex, linear in the text. Thread-safety: a pure function.
#ifndef ENGRAM_TEXT_LEXER_H_
#define ENGRAM_TEXT_LEXER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace engram::text {

enum class LexemeKind : std::uint8_t {
  kWord,    // letters (any script) with inner apostrophes: "don't", "Zürich"
  kNumber,  // ASCII digits only: "2023" (separators and decimals are separate lexemes)
  kAlnum,   // letters and digits or '_' mixed: "mp3", "A1B2", "foo_bar"
  kPunct,   // one punctuation or symbol code point: "," "$" "“" "€"
};

struct Lexeme {
  std::uint32_t begin = 0;  // byte span in the text
  std::uint32_t end = 0;
  LexemeKind kind = LexemeKind::kWord;
  bool capitalized = false;     // starts with an upper-case letter
  bool space_before = false;    // white space (or the start of the text) precedes it
  bool newline_before = false;  // a line break precedes it
  bool sentence_start = false;  // first lexeme of a sentence (after . ! ? or a line break)
  std::string lower;            // ASCII lower-cased text; U+2019 becomes '
};

// Splits `text` into lexemes. A digit run directly followed by a known suffix ("8th", "3pm",
// "5km", "5k", "1990s") becomes a number and an adjacent word. Invalid UTF-8 bytes are
// punctuation. Texts beyond 4 GiB are scanned up to that mark.
std::vector<Lexeme> Lex(std::string_view text);

}  // namespace engram::text

#endif  // ENGRAM_TEXT_LEXER_H_
