// Word-vector soft matches for the lexical routes (issue 22): the index terms of the searched
// scopes that GloVe word vectors (lexicon/word_vectors.h) put close to a query term, as
// SoftNeighbour entries for TermMatrix (turn_layout.h), where each counts as its query term with
// its BM25 contribution scaled by the cosine similarity: "dog" answers "pet", "piano" answers
// "guitar", "hike" answers "camp": words a question and its evidence do not share. Related is
// not synonymous ("hobbi" and "paint" are only 0.3 apart), hence the threshold.
//
// The search runs over each scope's vocabulary gathered once (lexicon::VocabularyVectors: the
// index terms' int8 codes, contiguous) and kept by a WordNeighbourCache between recalls, so a
// recall neither looks its scopes' terms up in the word vectors again nor computes a float dot
// product for every term: it gives the exhaustive search's neighbours (WordVectors::Neighbours
// over the terms as strings), with the same similarities, at a fraction of its cost.
//
// Thread-safety: WordNeighbours is a pure function of its arguments but for the cache, which
// is thread-safe.
#ifndef ENGRAM_READ_WORD_NEIGHBOURS_H_
#define ENGRAM_READ_WORD_NEIGHBOURS_H_

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "index/bm25/bm25_index.h"
#include "lexicon/word_vectors.h"
#include "read/turn_layout.h"

namespace engram::read {

// Which neighbours WordNeighbours returns and how much each weighs ([recall] word_vector_*).
struct WordNeighbourSettings {
  static constexpr double kDefaultMaxDfShare = 0.01;  // max_df_share's default (below)
  // A neighbour in at most this many searched turns is never left out for being common: in a
  // scope under a few hundred turns a share would leave out every word it holds twice, and
  // there a neighbour's postings cost nothing.
  static constexpr std::uint64_t kAlwaysKeptDf = 3;

  double threshold = 0;       // least cosine similarity; 0 = no neighbours
  std::size_t per_term = 3;   // neighbours kept per query term
  // A neighbour's SoftNeighbour::similarity is its cosine × this, so it counts for less than
  // the query term itself (the bench README's expansion used 0.5). In (0, 1].
  double weight = 1.0;
  // Neighbours only for the query terms that no index term of the searched scopes equals: a
  // word the memory already holds is matched as itself, the expansion fills only what is
  // missing ("pet" in a conversation that only ever says "dog").
  bool absent_only = false;
  // A neighbour held by more than this share of the searched turns (and by more than
  // kAlwaysKeptDf of them) is left out (1 = none left out). Such a word tells few turns apart:
  // its idf is low, and scaled by cosine x `weight` it adds little to any turn's score, but its
  // postings (a share of every turn) enter the recall's term matrix, per-turn scores and
  // fragment head, so with common neighbours a recall would cost what a query several times
  // longer costs, growing with the scope. The share is of the turns of the searched indexes
  // (sum of document frequencies over sum of documents), the statistics BM25 weighs the term by.
  // The default, 1 % (idf below about ln 100), was chosen by cost: on the scale benchmark's scope,
  // where every word is common, 5 % still cost 1.29x recall CPU at 100,000 turns and 2 % 1.13x, 1
  // % 1.01x (docs/BENCHMARKS.md, word vectors bounded by document frequency).
  double max_df_share = kDefaultMaxDfShare;
};

// The vocabularies of BM25 indexes (their terms that have a word vector), gathered on first use
// and kept for the next recalls. Each use checks the index's terms against those gathered, in
// one pass comparing strings (Bm25Index::ForEachTerm's order): the same terms → the kept
// vocabulary; the same terms followed by new ones (terms only added since) → a copy extended by
// the new terms; anything else (a term gone, an id reused) → gathered anew. Entries are keyed by
// the index's address, which that check makes safe to reuse. At most `max_terms` index terms
// are kept over all entries, the least recently used entry dropped first (the one in use is
// always kept).
//
// Thread-safety: every method may run concurrently; a vocabulary handed out is immutable and
// stays valid while held.
class WordNeighbourCache {
 public:
  // About 150 bytes a term (its int8 codes, bounds and text): 2M terms, ~300 MB.
  static constexpr std::size_t kDefaultMaxTerms = std::size_t{1} << 21;

  // What the cache did, for tests and explanations.
  struct Stats {
    std::uint64_t reused = 0;    // the kept vocabulary, unchanged
    std::uint64_t extended = 0;  // the kept vocabulary and the terms added since
    std::uint64_t gathered = 0;  // gathered from scratch (first use, or terms gone)
    std::uint64_t evicted = 0;   // entries dropped to stay under max_terms
  };

  explicit WordNeighbourCache(std::size_t max_terms = kDefaultMaxTerms)
      : max_terms_(max_terms) {}

  // `index`'s vocabulary for `vectors` as of now. Cost: one pass over the index's terms, plus a
  // word-vector lookup per term added since the last use (every term when gathered anew). The
  // index must not change during the call.
  std::shared_ptr<const lexicon::VocabularyVectors> VocabularyOf(
      const index::Bm25Index& index, const lexicon::WordVectors& vectors);

  Stats stats() const;

 private:
  // One index's terms as gathered; immutable once in the map.
  struct Vocabulary {
    explicit Vocabulary(const lexicon::WordVectors& vectors) : rows(vectors) {}
    std::string_view TermAt(std::size_t at) const {
      const std::size_t begin = at == 0 ? 0 : ends[at - 1];
      return std::string_view(text).substr(begin, ends[at] - begin);
    }
    void Add(std::string_view term);

    std::string text;                 // every index term, in ForEachTerm order, concatenated
    std::vector<std::uint32_t> ends;  // where each term ends in `text`
    lexicon::VocabularyVectors rows;  // the terms that have a vector
  };
  struct Entry {
    std::shared_ptr<const Vocabulary> vocabulary;
    std::uint64_t last_use = 0;
  };

  const std::size_t max_terms_;
  mutable std::mutex mutex_;
  std::map<const index::Bm25Index*, Entry> entries_;  // guarded by mutex_
  std::size_t kept_terms_ = 0;                        // guarded by mutex_
  std::uint64_t uses_ = 0;                            // guarded by mutex_
  Stats stats_;                                       // guarded by mutex_
};

// For each distinct query term (in order; with `absent_only`, only those absent from the
// vocabulary), the at most `per_term` terms of `indexes`' vocabulary with cosine similarity at
// least `threshold` (best first, ties by the smaller term), each with similarity = cosine ×
// `weight`, less those above `max_df_share` (left out after the search: a query term may then
// have fewer than `per_term`; with several indexes the share is of all their documents); none
// when `threshold` is 0 or `vectors` is null. A query term is never a neighbour. The
// vocabularies come from `cache` when given (gathered for this call otherwise).
// Cost with a cache that holds the indexes: a pass over the vocabulary comparing terms, and an
// int8 dot product per vocabulary term with a vector and searched query term.
std::vector<SoftNeighbour> WordNeighbours(const lexicon::WordVectors* vectors,
                                          WordNeighbourCache* cache,
                                          std::span<const index::Bm25Index* const> indexes,
                                          std::span<const std::string> query_terms,
                                          const WordNeighbourSettings& settings);

}  // namespace engram::read

#endif  // ENGRAM_READ_WORD_NEIGHBOURS_H_
