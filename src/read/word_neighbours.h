// Word-vector soft matches for the lexical routes (issue 22): the index terms of the searched
// scopes that GloVe word vectors (lexicon/word_vectors.h) put close to a query term, as
// SoftNeighbour entries for TermMatrix (turn_layout.h), where each counts as its query term with
// its BM25 contribution scaled by the cosine similarity: "dog" answers "pet", "piano" answers
// "guitar", "hike" answers "camp": words a question and its evidence do not share. Related is
// not synonymous ("hobbi" and "paint" are only 0.3 apart), hence the threshold.
//
// Thread-safety: a pure function of its arguments.
#ifndef ENGRAM_READ_WORD_NEIGHBOURS_H_
#define ENGRAM_READ_WORD_NEIGHBOURS_H_

#include <span>
#include <string>
#include <vector>

#include "index/bm25/bm25_index.h"
#include "lexicon/word_vectors.h"
#include "read/turn_layout.h"

namespace engram::read {

// For each distinct query term (in order), the at most `per_term` terms of `indexes`' vocabulary
// with cosine similarity at least `threshold` (best first, ties by the smaller term); none when
// `threshold` is 0 or `vectors` is null. Cost: one pass over the vocabulary plus a 100-d dot
// product per vocabulary term and query term.
std::vector<SoftNeighbour> WordNeighbours(const lexicon::WordVectors* vectors,
                                          std::span<const index::Bm25Index* const> indexes,
                                          std::span<const std::string> query_terms,
                                          double threshold, std::size_t per_term);

}  // namespace engram::read

#endif  // ENGRAM_READ_WORD_NEIGHBOURS_H_
