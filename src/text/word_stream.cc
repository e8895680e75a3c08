// The contraction expander and the adverb list of the shared word stream (see word_stream.h).
#include "text/word_stream.h"

#include <algorithm>
#include <array>
#include <utility>

namespace engram::text {
namespace {

template <std::size_t N>
bool Contains(const std::array<std::string_view, N>& list, std::string_view word) {
  return std::find(list.begin(), list.end(), word) != list.end();
}

struct Expansion {
  std::string_view word;
  std::string_view first;
  std::string_view second;
};

// Irregular contractions and the common apostrophe-less spellings of chat.
constexpr std::array<Expansion, 15> kIrregular = {{
    {"can't", "can", "not"},
    {"cannot", "can", "not"},
    {"won't", "will", "not"},
    {"shan't", "shall", "not"},
    {"let's", "let", "us"},
    {"dont", "do", "not"},
    {"cant", "can", "not"},
    {"didnt", "did", "not"},
    {"doesnt", "does", "not"},
    {"im", "i", "am"},
    {"isnt", "is", "not"},
    {"wasnt", "was", "not"},
    {"ive", "i", "have"},
    {"gonna", "going", "to"},
    {"wanna", "want", "to"},
}};

constexpr std::array<std::pair<std::string_view, std::string_view>, 5> kSuffixes = {
    {{"'m", "am"}, {"'re", "are"}, {"'ve", "have"}, {"'ll", "will"}, {"'d", "would"}}};

// Words after which "'s" is "is" ("it's"); after any other word it is a possessive.
constexpr std::array<std::string_view, 10> kIsBefore = {"it",    "that", "what", "there", "here",
                                                        "he",    "she",  "who",  "where", "how"};

constexpr std::array<std::string_view, 42> kAdverbs = {
    "really",     "also",       "just",       "absolutely", "totally",    "truly",
    "still",      "actually",   "definitely", "generally",  "usually",    "honestly",
    "personally", "always",     "kinda",      "sorta",      "seriously",  "simply",
    "very",       "much",       "now",        "currently",  "genuinely",  "mostly",
    "sometimes",  "even",       "already",    "only",       "probably",   "maybe",
    "perhaps",    "possibly",   "likely",     "apparently", "finally",    "recently",
    "officially", "first",      "last",       "eventually", "happily",    "luckily",
};

}  // namespace

void ExpandContraction(std::string_view word, std::string_view previous,
                       std::vector<std::string_view>& out) {
  for (const Expansion& expansion : kIrregular) {
    if (word == expansion.word) {
      out.push_back(expansion.first);
      out.push_back(expansion.second);
      return;
    }
  }
  if (word == "ain't") {
    out.push_back(previous == "i"                                               ? "am"
                  : (previous == "we" || previous == "you" || previous == "they") ? "are"
                                                                                  : "is");
    out.push_back("not");
    return;
  }
  const auto ends_with = [word](std::string_view suffix) {
    return word.size() > suffix.size() && word.ends_with(suffix);
  };
  if (ends_with("n't")) {
    out.push_back(word.substr(0, word.size() - 3));
    out.push_back("not");
    return;
  }
  for (const auto& [suffix, expansion] : kSuffixes) {
    if (ends_with(suffix)) {
      out.push_back(word.substr(0, word.size() - suffix.size()));
      out.push_back(expansion);
      return;
    }
  }
  if (ends_with("'s")) {
    const std::string_view base = word.substr(0, word.size() - 2);
    out.push_back(base);
    if (Contains(kIsBefore, base)) out.push_back("is");
    return;
  }
  out.push_back(word);
}

bool IsAdverb(std::string_view word) { return Contains(kAdverbs, word); }

}  // namespace engram::text
