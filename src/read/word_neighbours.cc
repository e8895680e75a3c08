// Word-vector soft matches (see word_neighbours.h).
#include "read/word_neighbours.h"

#include <algorithm>
#include <string_view>

namespace engram::read {

std::vector<SoftNeighbour> WordNeighbours(const lexicon::WordVectors* vectors,
                                          std::span<const index::Bm25Index* const> indexes,
                                          std::span<const std::string> query_terms,
                                          const WordNeighbourSettings& settings) {
  std::vector<SoftNeighbour> result;
  if (vectors == nullptr || settings.threshold <= 0 || settings.per_term == 0 ||
      query_terms.empty()) {
    return result;
  }
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
  // The searched terms; a query term is never a neighbour, searched or not (it is matched as
  // itself), so with absent_only the query's other terms are left out of the vocabulary.
  std::vector<std::string> searched = distinct;
  if (settings.absent_only) {
    std::erase_if(searched, [&indexes](const std::string& term) {
      return std::any_of(indexes.begin(), indexes.end(), [&term](const index::Bm25Index* index) {
        return index != nullptr && !index->Postings(term).empty();
      });
    });
    if (searched.empty()) return result;
    std::erase_if(vocabulary, [&distinct](std::string_view term) {
      return std::find(distinct.begin(), distinct.end(), term) != distinct.end();
    });
  }
  const std::vector<std::vector<lexicon::WordNeighbour>> neighbours =
      vectors->Neighbours(searched, vocabulary, settings.threshold, settings.per_term);
  for (std::size_t q = 0; q < searched.size(); ++q) {
    for (const lexicon::WordNeighbour& neighbour : neighbours[q]) {
      result.push_back({searched[q], neighbour.term, neighbour.similarity * settings.weight});
    }
  }
  return result;
}

}  // namespace engram::read
