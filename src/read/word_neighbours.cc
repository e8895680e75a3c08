// Word-vector soft matches (see word_neighbours.h).
#include "read/word_neighbours.h"

#include <algorithm>
#include <string_view>

namespace engram::read {

void WordNeighbourCache::Vocabulary::Add(std::string_view term) {
  text.append(term);
  ends.push_back(static_cast<std::uint32_t>(text.size()));
  rows.Add(term);
}

std::shared_ptr<const lexicon::VocabularyVectors> WordNeighbourCache::VocabularyOf(
    const index::Bm25Index& index, const lexicon::WordVectors& vectors) {
  std::shared_ptr<const Vocabulary> kept;
  {
    std::lock_guard lock(mutex_);
    if (const auto found = entries_.find(&index); found != entries_.end()) {
      kept = found->second.vocabulary;
    }
  }
  // Compare the index's terms with the kept ones; collect the terms after them.
  enum class Check { kSame, kExtended, kDiffers };
  Check check = Check::kDiffers;
  std::vector<std::string_view> added;
  if (kept != nullptr && &kept->rows.vectors() == &vectors) {
    const std::size_t kept_count = kept->ends.size();
    std::size_t matched = 0;
    bool differs = false;
    index.ForEachTerm([&](std::string_view term) {
      if (differs) return;
      if (matched < kept_count) {
        if (term == kept->TermAt(matched)) {
          ++matched;
        } else {
          differs = true;
        }
      } else {
        added.push_back(term);
      }
    });
    if (!differs && matched == kept_count) check = added.empty() ? Check::kSame : Check::kExtended;
  }
  std::shared_ptr<const Vocabulary> current;
  if (check == Check::kSame) {
    current = kept;
  } else {
    auto built = check == Check::kExtended ? std::make_shared<Vocabulary>(*kept)
                                           : std::make_shared<Vocabulary>(vectors);
    if (check == Check::kExtended) {
      for (const std::string_view term : added) built->Add(term);
    } else {
      index.ForEachTerm([&built](std::string_view term) { built->Add(term); });
    }
    current = std::move(built);
  }

  std::lock_guard lock(mutex_);
  ++uses_;
  switch (check) {
    case Check::kSame:
      ++stats_.reused;
      break;
    case Check::kExtended:
      ++stats_.extended;
      break;
    case Check::kDiffers:
      ++stats_.gathered;
      break;
  }
  Entry& entry = entries_[&index];
  if (entry.vocabulary != nullptr) kept_terms_ -= entry.vocabulary->ends.size();
  entry.vocabulary = current;
  entry.last_use = uses_;
  kept_terms_ += current->ends.size();
  while (kept_terms_ > max_terms_ && entries_.size() > 1) {
    auto oldest = entries_.end();
    for (auto it = entries_.begin(); it != entries_.end(); ++it) {
      if (it->first == &index) continue;
      if (oldest == entries_.end() || it->second.last_use < oldest->second.last_use) oldest = it;
    }
    kept_terms_ -= oldest->second.vocabulary->ends.size();
    entries_.erase(oldest);
    ++stats_.evicted;
  }
  // The vocabulary's rows, sharing its ownership.
  return std::shared_ptr<const lexicon::VocabularyVectors>(current, &current->rows);
}

WordNeighbourCache::Stats WordNeighbourCache::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

std::vector<SoftNeighbour> WordNeighbours(const lexicon::WordVectors* vectors,
                                          WordNeighbourCache* cache,
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
  // The searched terms; a query term is never a neighbour, searched or not (it is matched as
  // itself).
  std::vector<std::string> searched = distinct;
  if (settings.absent_only) {
    std::erase_if(searched, [&indexes](const std::string& term) {
      return std::any_of(indexes.begin(), indexes.end(), [&term](const index::Bm25Index* index) {
        return index != nullptr && !index->Postings(term).empty();
      });
    });
    if (searched.empty()) return result;
  }
  // Each index's vocabulary: kept by the cache, or gathered for this call.
  std::vector<std::shared_ptr<const lexicon::VocabularyVectors>> held;
  for (const index::Bm25Index* index : indexes) {
    if (index == nullptr) continue;
    if (cache != nullptr) {
      held.push_back(cache->VocabularyOf(*index, *vectors));
    } else {
      auto gathered = std::make_shared<lexicon::VocabularyVectors>(*vectors);
      index->ForEachTerm([&gathered](std::string_view term) { gathered->Add(term); });
      held.push_back(std::move(gathered));
    }
  }
  std::vector<const lexicon::VocabularyVectors*> vocabularies;
  for (const auto& vocabulary : held) vocabularies.push_back(vocabulary.get());
  const std::vector<std::vector<lexicon::WordNeighbour>> neighbours =
      vectors->Neighbours(searched, vocabularies, settings.threshold, settings.per_term, distinct);
  // The common neighbours left out: df over the searched indexes' documents.
  std::uint64_t documents = 0;
  for (const index::Bm25Index* index : indexes) {
    if (index != nullptr) documents += index->doc_count();
  }
  const auto too_common = [&](const std::string& term) {
    if (settings.max_df_share >= 1) return false;
    std::uint64_t df = 0;
    for (const index::Bm25Index* index : indexes) {
      if (index != nullptr) df += index->DocumentFrequency(term);
    }
    return df > WordNeighbourSettings::kAlwaysKeptDf &&
           static_cast<double>(df) > settings.max_df_share * static_cast<double>(documents);
  };
  for (std::size_t q = 0; q < searched.size(); ++q) {
    for (const lexicon::WordNeighbour& neighbour : neighbours[q]) {
      if (too_common(neighbour.term)) continue;
      result.push_back({searched[q], neighbour.term, neighbour.similarity * settings.weight});
    }
  }
  return result;
}

}  // namespace engram::read
