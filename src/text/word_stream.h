// The word stream the rule-based readers of a turn share: the signal detectors' memory acts
// (signals.h) and the rule fact extractor (write/extractor.h) both read lexemes (temporal.h Lex)
// as lower-case words with contractions expanded ("don't" -> "do" "not", "I'm" -> "i" "am"),
// and skip the same adverbs between a subject and its verb ("I really love", "we finally moved").
// One expander and one adverb list, so the two readers cannot disagree about what a turn says.
//
//   std::vector<std::string_view> words;
//   ExpandContraction("don't", "", words);   // {"do", "not"}
//   ExpandContraction("ain't", "i", words);  // {"am", "not"}: the verb agrees with the subject
//
// Thread-safety: pure functions.
#ifndef ENGRAM_TEXT_WORD_STREAM_H_
#define ENGRAM_TEXT_WORD_STREAM_H_

#include <string_view>
#include <vector>

namespace engram::text {

// Appends the words of the lower-cased written word `word` to `out`: a contraction becomes its
// two words ("can't" -> "can" "not", "we're" -> "we" "are", "gonna" -> "going" "to", the
// apostrophe-less "dont" / "im" / "ive" likewise); "'s" after a pronoun or wh-word is "is"
// ("it's" -> "it" "is"), after anything else a possessive that is dropped ("anna's" -> "anna");
// any other word is appended as it is. "ain't" takes the verb of `previous`, the word before it
// ("i" -> "am", "we" / "you" / "they" -> "are", else "is"). The appended views point into `word`
// or at static literals.
void ExpandContraction(std::string_view word, std::string_view previous,
                       std::vector<std::string_view>& out);

// True for an adverb that may stand between a subject and its verb or before an object
// ("really", "also", "finally", "currently", "probably", ...); the rules skip it.
bool IsAdverb(std::string_view word);

}  // namespace engram::text

#endif  // ENGRAM_TEXT_WORD_STREAM_H_
