// English stopwords: function words dropped before indexing because they carry no topic.
//
// The list (stopwords.cc) holds 144 articles, pronouns, auxiliaries, prepositions, conjunctions
// and a few determiners and adverbs, in normalised form (text/normalize.h). Deliberately NOT
// stopwords, because a memory engine needs them:
//   - negations: "not", "no", "never", "nor", "none", "nothing", "neither", "without",
//     "against" and contractions such as "don't", "isn't", "can't": "I do not eat meat" and
//     "I eat meat" must not index alike;
//   - words that are also names or content words: "may" (the month), "will" (the name), "us"
//     (the country), "can" (the noun).
// Frequent words that survive are down-weighted by BM25's idf anyway.
//
//   if (engram::text::IsStopword("the")) { ... }
//
// Thread-safety: immutable static data; safe from any thread.
#ifndef ENGRAM_TEXT_STOPWORDS_H_
#define ENGRAM_TEXT_STOPWORDS_H_

#include <span>
#include <string_view>

namespace engram::text {

// True if the normalised, unstemmed word is an English stopword.
bool IsStopword(std::string_view normalized_word);

// The whole list, sorted bytewise, without duplicates.
std::span<const std::string_view> EnglishStopwords();

}  // namespace engram::text

#endif  // ENGRAM_TEXT_STOPWORDS_H_
