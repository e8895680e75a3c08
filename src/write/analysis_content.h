// DMF's scalar content signals of a turn (DMF §4.1-4.4, §4.6): information density, sentiment
// magnitude, the normalised entity count and semantic divergence.
//
//   ContentSignals signals = ComputeContentSignals(lexemes, lexicons, /*entity_count=*/2,
//                                                  /*entity_cap=*/5);
//
//   information_density  ID = |{w : pos(w) in {NOUN, PROPN, VERB, ADJ}}| / |tokens|, in [0, 1].
//                        Tokens are words, numbers and alphanumerics (text::Lex), punctuation is
//                        not. pos(w) is the first tag of the POS lexicon; auxiliaries (be, have,
//                        do) are not verbs here (DMF's parser tags them AUX), phatic words
//                        ("ok", "thanks", "yes", "hi", ...) are interjections; a word the lexicon
//                        does not know counts as a proper noun when capitalised and a noun
//                        otherwise; contractions ("don't", "I'm") are function words; numbers
//                        are not content. 0 for a turn without tokens.
//   sentiment_compound   VADER compound (lexicon/sentiment.h); sentiment = |compound|.
//   entity_norm          E_norm = min(E, E_cap) / E_cap (DMF eq. 4).
//   divergence           cosine distance to the centroid of the last W turn embeddings (DMF
//                        eq. 7); not computed here (0): the analysis stage (analysis.h), which
//                        has the embeddings, sets it.
//
// Thread-safety: pure functions.
#ifndef ENGRAM_WRITE_ANALYSIS_CONTENT_H_
#define ENGRAM_WRITE_ANALYSIS_CONTENT_H_

#include <cstddef>
#include <string_view>
#include <vector>

#include "lexicon/lexicon.h"
#include "text/temporal.h"

namespace engram::write {

struct ContentSignals {
  std::size_t tokens = 0;
  std::size_t content_tokens = 0;
  double information_density = 0.0;
  double sentiment_compound = 0.0;
  double sentiment = 0.0;  // |compound|
  std::size_t entity_count = 0;
  double entity_norm = 0.0;
  double divergence = 0.0;
};

ContentSignals ComputeContentSignals(std::string_view text,
                                     const std::vector<text::Lexeme>& lexemes,
                                     const lexicon::Lexicons& lexicons, std::size_t entity_count,
                                     std::size_t entity_cap);

}  // namespace engram::write

#endif  // ENGRAM_WRITE_ANALYSIS_CONTENT_H_
