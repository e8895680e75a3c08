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

// Which neighbours WordNeighbours returns and how much each weighs ([recall] word_vector_*).
struct WordNeighbourSettings {
  double threshold = 0;       // least cosine similarity; 0 = no neighbours
  std::size_t per_term = 3;   // neighbours kept per query term
  // A neighbour's SoftNeighbour::similarity is its cosine × this, so it counts for less than
  // the query term itself (the bench README's expansion used 0.5). In (0, 1].
  double weight = 1.0;
  // Neighbours only for the query terms that no index term of the searched scopes equals: a
  // word the memory already holds is matched as itself, the expansion fills only what is
  // missing ("pet" in a conversation that only ever says "dog").
  bool absent_only = false;
};

// For each distinct query term (in order; with `absent_only`, only those absent from the
// vocabulary), the at most `per_term` terms of `indexes`' vocabulary with cosine similarity at
// least `threshold` (best first, ties by the smaller term), each with similarity = cosine ×
// `weight`; none when `threshold` is 0 or `vectors` is null. Cost: one pass over the vocabulary
// plus a 100-d dot product per vocabulary term and searched query term.
std::vector<SoftNeighbour> WordNeighbours(const lexicon::WordVectors* vectors,
                                          std::span<const index::Bm25Index* const> indexes,
                                          std::span<const std::string> query_terms,
                                          const WordNeighbourSettings& settings);

}  // namespace engram::read

#endif  // ENGRAM_READ_WORD_NEIGHBOURS_H_
