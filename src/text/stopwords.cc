// The English stopword list; see stopwords.h for what is in it, what is left out and why.
#include "text/stopwords.h"

#include <algorithm>
#include <array>

namespace engram::text {
namespace {

// Sorted bytewise (checked by a test) so IsStopword can binary-search.
constexpr std::array<std::string_view, 144> kEnglishStopwords = {
    "a",       "about",     "above",   "after",   "again",      "all",   "also",     "am",
    "an",      "and",       "any",     "are",     "as",         "at",    "be",       "because",
    "been",    "before",    "being",   "below",   "between",    "both",  "but",      "by",
    "could",   "did",       "do",      "does",    "doing",      "down",  "during",   "each",
    "few",     "for",       "from",    "further", "had",        "has",   "have",     "having",
    "he",      "he'd",      "he'll",   "her",     "here",       "hers",  "herself",  "him",
    "himself", "his",       "how",     "i",       "i'd",        "i'll",  "i'm",      "i've",
    "if",      "in",        "into",    "is",      "it",         "its",   "itself",   "just",
    "me",      "might",     "more",    "most",    "must",       "my",    "myself",   "of",
    "off",     "on",        "once",    "only",    "or",         "other", "ought",    "our",
    "ours",    "ourselves", "out",     "over",    "own",        "same",  "shall",    "she",
    "she'd",   "she'll",    "should",  "so",      "some",       "such",  "than",     "that",
    "the",     "their",     "theirs",  "them",    "themselves", "then",  "there",    "these",
    "they",    "they'd",    "they'll", "they're", "they've",    "this",  "those",    "through",
    "to",      "too",       "under",   "until",   "up",         "very",  "was",      "we",
    "we'd",    "we'll",     "we're",   "we've",   "were",       "what",  "when",     "where",
    "which",   "while",     "who",     "whom",    "why",        "with",  "would",    "you",
    "you'd",   "you'll",    "you're",  "you've",  "your",       "yours", "yourself", "yourselves",
};

}  // namespace

bool IsStopword(std::string_view normalized_word) {
  const auto words = EnglishStopwords();
  return std::binary_search(words.begin(), words.end(), normalized_word);
}

std::span<const std::string_view> EnglishStopwords() { return kEnglishStopwords; }

}  // namespace engram::text
