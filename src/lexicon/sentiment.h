// Rule-based sentiment in the manner of VADER (Hutto & Gilbert 2014): the valences of the VADER
// lexicon, adjusted for degree words, negation, contrast ("but"), capitalised emphasis and
// exclamation marks, summed and squashed into the compound score in [-1, 1]. DMF §4.2 uses
// |compound| as a turn's sentiment magnitude.
//
//   double compound = engram::lexicon::SentimentCompound(lexicons, "The food was really good!");
//   // about 0.6; "not good" is negative, "good but slow" weighs the clause after "but" more.
//
// Rules (the constants are the published VADER ones):
//   - a token's valence comes from the lexicon (lower-cased; surrounding punctuation stripped
//     unless the token itself, an emoticon, is in the lexicon); single letters are ignored;
//   - an ALL-CAPS word in a text that is not all caps gets +/-0.733;
//   - a degree word within the three tokens before shifts the valence by +/-0.293, scaled 1,
//     0.95, 0.9 by distance ("very good", "barely good");
//   - a negation ("not", "never", "n't", "no", ...) within the three tokens before multiplies the
//     valence by -0.74;
//   - words before "but" weigh 0.5, words after it 1.5;
//   - exclamation marks (at most four) add 0.292 each in the direction of the sum;
//   - compound = sum / sqrt(sum^2 + 15), clamped to [-1, 1].
// Not implemented: idioms, "least", "kind of" as one unit, question-mark emphasis.
//
// Thread-safety: a pure function of its arguments.
#ifndef ENGRAM_LEXICON_SENTIMENT_H_
#define ENGRAM_LEXICON_SENTIMENT_H_

#include <string_view>

#include "lexicon/lexicon.h"

namespace engram::lexicon {

double SentimentCompound(const Lexicons& lexicons, std::string_view text);

}  // namespace engram::lexicon

#endif  // ENGRAM_LEXICON_SENTIMENT_H_
