// Word-vector soft matches (see word_neighbours.h).
#include "read/word_neighbours.h"

#include <algorithm>
#include <string_view>

namespace engram::read {

std::vector<SoftNeighbour> WordNeighbours(const lexicon::WordVectors* vectors,
                                          std::span<const index::Bm25Index* const> indexes,
                                          std::span<const std::string> query_terms,
                                          double threshold, std::size_t per_term) {
  std::vector<SoftNeighbour> result;
  if (vectors == nullptr || threshold <= 0 || per_term == 0 || query_terms.empty()) return result;
  std::vector<std::string> distinct;
  for (const std::string& term : query_terms) {
    if (std::find(distinct.begin(), distinct.end(), term) == distinct.end()) {
      distinct.push_back(term);
    }
  }
  // The index terms stay valid while the recall holds its indexes.
  std::vector<std::string_view> vocabulary;
  for (const index::Bm25Index* index : indexes) {
    if (index == nullptr) continue;
    index->ForEachTerm([&vocabulary](std::string_view term) { vocabulary.push_back(term); });
  }
  const std::vector<std::vector<lexicon::WordNeighbour>> neighbours =
      vectors->Neighbours(distinct, vocabulary, threshold, per_term);
  for (std::size_t q = 0; q < distinct.size(); ++q) {
    for (const lexicon::WordNeighbour& neighbour : neighbours[q]) {
      result.push_back({distinct[q], neighbour.term, neighbour.similarity});
    }
  }
  return result;
}

}  // namespace engram::read
