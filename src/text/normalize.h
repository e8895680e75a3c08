// Unicode normalisation of text before it is indexed or matched: the one definition of "the same
// word" that the tokenizer, the BM25 route and every lexicon lookup share.
//
// NormalizeForIndex applies, in one utf8proc pass:
//   1. NFKC (compatibility composition): "ﬁ" -> "fi", fullwidth "ＡＢＣ" -> "abc", "①" -> "1";
//   2. full Unicode case folding: "Straße" -> "strasse", "ΣΊΣΥΦΟΣ" -> "σισυφοσ";
//   3. removal of default-ignorable code points (soft hyphen, zero-width joiners, variation
//      selectors);
//   4. optionally (on by default) removal of combining marks, so "café", "cafe\u0301" and "cafe"
//      are one word. The flag exists because mark stripping also removes vowel signs in Indic
//      scripts, which merges some distinct words there; callers that need them keep marks.
//   5. the typographic apostrophe U+2019 becomes ASCII "'" ("don’t" == "don't").
//
//   std::string key = engram::text::NormalizeForIndex("Café Straße");  // "cafe strasse"
//
// The input should be valid UTF-8 (entry points validate with core::IsValidUtf8). Invalid input
// never crashes: every byte that does not start a valid sequence becomes U+FFFD first, so the
// result is deterministic and itself valid UTF-8.
//
// Thread-safety: pure functions, safe to call from any number of threads.
#ifndef ENGRAM_TEXT_NORMALIZE_H_
#define ENGRAM_TEXT_NORMALIZE_H_

#include <string>
#include <string_view>
#include <vector>

namespace engram::text {

struct NormalizeOptions {
  // Remove combining marks (accents) after decomposition. Default: true.
  bool strip_marks = true;
};

// NFKC + case folding + ignorable removal (+ mark stripping). Idempotent: normalising a normalised
// string returns it unchanged.
std::string NormalizeForIndex(std::string_view utf8, const NormalizeOptions& options = {});

// Copy of `text` in which every byte that does not begin a valid UTF-8 sequence is replaced by
// U+FFFD; valid input is returned unchanged.
std::string SanitizeUtf8(std::string_view text);

// The space-separated words of a normalised key ("new york city" -> new, york, city), without
// empty words; views into `key`.
std::vector<std::string_view> KeyWords(std::string_view key);

// The first word of a normalised key ("new york city" -> "new"; a one-word key is itself).
inline std::string_view FirstKeyWord(std::string_view key) { return key.substr(0, key.find(' ')); }

}  // namespace engram::text

#endif  // ENGRAM_TEXT_NORMALIZE_H_
