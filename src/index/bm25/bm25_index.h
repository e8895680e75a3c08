// Bm25Index: the in-memory inverted index behind the BM25 recall route, one per scope.
//
// The index is a projection (DESIGN §1.5): the engine fills it from the store's rows, keeps it up
// to date after each commit, and can rebuild it from the store and compare the rebuild with
// SameContent(). Documents are identified by the store's row number (`doc`); their content is the
// list of index terms produced by text::Tokenizer (repeats count as term frequency).
//
// A recall over a scope with nested scopes searches the per-scope indexes together, with
// collection statistics summed across them (N = sum of document counts, avgdl = sum of lengths / N,
// df = sum of document frequencies), so the scores equal those of one index over the union:
//
//   engram::index::Bm25Index user_index, run_index;
//   user_index.Add(/*doc=*/1, tokenizer.Terms("Caroline moved to Lisbon"));
//   run_index.Add(/*doc=*/2, tokenizer.Terms("Lisbon is sunny"));
//   const std::array<const engram::index::Bm25Index*, 2> indexes = {&user_index, &run_index};
//   std::vector<engram::index::Bm25Hit> hits = engram::index::Bm25Index::Search(
//       indexes, tokenizer.Terms("where did Caroline move"), config.bm25, /*limit=*/10);
//   // hits[0].doc == 1, hits[0].Explain() ==
//   //   "bm25 1.28 = carolin(tf 1, df 1, idf 0.69, 0.64) + move(tf 1, df 1, idf 0.69, 0.64)
//   //    [dl 3, avgdl 2.50, N 2]"
//
// Search contract (determinism is part of it):
//   - Each occurrence of a term in the query counts (like Lucene's BooleanQuery of term clauses):
//     a term given twice contributes twice its single score. The explanation lists each distinct
//     term once, in order of first occurrence, with its query count.
//   - Results are ordered by score descending, ties by doc ascending; the order never depends on
//     hash-map iteration order.
//   - `accept` (optional) is asked about every matching doc before the top-`limit` cut; rejected
//     docs are never returned and never displace accepted ones. It is called at most once per
//     matching doc, in unspecified order, so its answers must not depend on that order.
//   - Over one index (the other entries of `indexes` null), the top `limit` come from MaxScore
//     (Turtle and Flood 1995): each term's largest contribution bounds what it can add, and once
//     `limit` docs are kept, a doc holding only terms whose bounds sum below the worst kept score
//     is never visited; the results, scores and explanations are those of scoring every matching
//     doc, to the last bit (each score adds its terms' contributions in query order either way).
//     Over several indexes every posting is scored.
//   - Indexes searched together should hold disjoint docs. If a doc is in several, it is scored
//     from one of them only (the first in `indexes` that holds a posting of its earliest-matching
//     query term) but counted in the statistics of each.
#ifndef ENGRAM_INDEX_BM25_BM25_INDEX_H_
#define ENGRAM_INDEX_BM25_BM25_INDEX_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engram/config.h"

namespace engram::index {

// One entry of a term's posting list.
struct Bm25Posting {
  std::uint64_t doc = 0;
  std::uint32_t term_frequency = 0;  // "tf": occurrences of the term in the doc (>= 1)
  std::uint32_t doc_length = 0;      // "dl": terms in the doc, copied here so scoring never looks
                                     // the doc up

  friend bool operator==(const Bm25Posting&, const Bm25Posting&) = default;
};

// How one query term contributed to a hit's score.
struct Bm25TermExplanation {
  std::string term;
  std::uint32_t query_count = 0;     // occurrences of the term in the query
  std::uint32_t term_frequency = 0;  // "tf" in the doc
  std::uint64_t doc_frequency = 0;   // "df", summed over the searched indexes
  double idf = 0;
  double contribution = 0;  // query_count * score(t, d)
};

struct Bm25Hit {
  std::uint64_t doc = 0;
  double score = 0;  // == sum of terms[i].contribution, added in this order
  std::uint32_t doc_length = 0;
  std::uint64_t doc_count = 0;             // "N" of the search
  double average_length = 0;               // "avgdl" of the search
  std::vector<Bm25TermExplanation> terms;  // matched query terms, in query order

  // "bm25 4.21 = lisbon(tf 1, df 2, idf 1.39, 2.10) + moved(tf 2, df 1, idf 0.98, 2.11)
  //  [dl 5, avgdl 4.33, N 3]"; a term given k > 1 times in the query shows "x<k>, " first.
  std::string Explain() const;
};

// What one Search did, for tests and benchmarks.
struct Bm25SearchStats {
  std::size_t docs_visited = 0;  // docs reached through the postings the search walked
  std::size_t docs_scored = 0;   // docs whose full score was computed
};

// Not internally synchronised: const methods (including Search) may run concurrently with each
// other; Add, Remove and Clear need exclusive access. Spans returned by Postings() are invalidated
// by the next mutation.
//
// Invariants: every posting list is non-empty and sorted by doc with no duplicates; a term has a
// posting for doc d iff d's term list contains it; total_length() is the sum of the lengths of the
// docs; each posting's doc_length equals its doc's length.
class Bm25Index {
 public:
  Bm25Index() = default;

  // Indexes `terms` (repeats included; their number is the doc's length) as the content of `doc`,
  // replacing its previous content if it was indexed already. Cost: O(distinct terms) when docs
  // arrive in increasing order, plus a posting-list insertion per term otherwise.
  void Add(std::uint64_t doc, std::span<const std::string> terms);

  // Removes `doc`; false if it was not indexed. Cost: one posting-list erase per distinct term.
  bool Remove(std::uint64_t doc);

  void Clear();

  bool Contains(std::uint64_t doc) const { return docs_.contains(doc); }
  // The doc's length in terms, or nullopt if it is not indexed.
  std::optional<std::uint32_t> DocLength(std::uint64_t doc) const;

  std::size_t doc_count() const { return docs_.size(); }
  std::uint64_t total_length() const { return total_length_; }
  // Distinct terms with at least one posting.
  std::size_t term_count() const { return term_ids_.size(); }
  std::size_t posting_count() const { return posting_count_; }
  // total_length() / doc_count(), or 0 when empty.
  double average_length() const;

  // Number of docs containing `term` (0 if none).
  std::size_t DocumentFrequency(std::string_view term) const { return Postings(term).size(); }
  // Whether `doc` contains `term`: a binary search of its posting list.
  bool Holds(std::string_view term, std::uint64_t doc) const;
  // Occurrences of `term` in `doc` (its posting's tf), 0 when it holds none.
  std::uint32_t TermFrequency(std::string_view term, std::uint64_t doc) const;
  // The posting list of `term`, sorted by doc; empty if the term is not indexed.
  std::span<const Bm25Posting> Postings(std::string_view term) const;
  // Calls `visit` with every term that has postings, in term-id order (the order terms were
  // first added, ids of removed terms reused).
  void ForEachTerm(const std::function<void(std::string_view term)>& visit) const;

  // True if both indexes hold the same docs with the same lengths and the same postings, whatever
  // the order of Add/Remove calls that built them.
  bool SameContent(const Bm25Index& other) const { return !FirstDifference(other).has_value(); }
  // A description of the first difference (smallest differing doc, then smallest differing
  // term, bytewise), or nullopt if SameContent. For logs when a rebuild check fails.
  std::optional<std::string> FirstDifference(const Bm25Index& other) const;

  // The best `limit` docs for `query_terms` across `indexes` (null entries are skipped); see the
  // file comment for the contract. Empty if the query has no indexed term or limit is 0.
  // Cost: O(postings of the query terms + k log limit), k = matching docs; over one index, one
  // pass over those postings for the bounds and a visit only of the docs the bounds cannot rule
  // out. `stats`, when given, receives what the search did.
  static std::vector<Bm25Hit> Search(std::span<const Bm25Index* const> indexes,
                                     std::span<const std::string> query_terms,
                                     const Bm25Config& config, std::size_t limit,
                                     const std::function<bool(std::uint64_t)>& accept = nullptr,
                                     Bm25SearchStats* stats = nullptr);

  // Search over this index alone.
  std::vector<Bm25Hit> Search(std::span<const std::string> query_terms, const Bm25Config& config,
                              std::size_t limit,
                              const std::function<bool(std::uint64_t)>& accept = nullptr) const;

 private:
  struct StringHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view text) const {
      return std::hash<std::string_view>{}(text);
    }
  };
  struct TermEntry {
    std::string term;                   // empty while the id is on free_term_ids_
    std::vector<Bm25Posting> postings;  // sorted by doc
  };
  struct DocEntry {
    std::uint32_t length = 0;
    std::vector<std::uint32_t> term_ids;  // distinct terms of the doc
  };

  std::uint32_t InternTerm(std::string_view term);
  void ReleaseTerm(std::uint32_t term_id);

  std::unordered_map<std::string, std::uint32_t, StringHash, std::equal_to<>> term_ids_;
  std::vector<TermEntry> terms_;              // indexed by term id
  std::vector<std::uint32_t> free_term_ids_;  // ids of terms that lost their last posting
  std::unordered_map<std::uint64_t, DocEntry> docs_;
  std::uint64_t total_length_ = 0;
  std::size_t posting_count_ = 0;
};

// A query term with its idf over indexes searched together.
struct Bm25QueryTerm {
  std::string term;
  double idf = 0;
};
// The distinct `terms` in order of first occurrence, each with its idf over `indexes` as one
// collection (N and df summed over them; null indexes skipped).
std::vector<Bm25QueryTerm> WeighQueryTerms(std::span<const std::string> terms,
                                           std::span<const Bm25Index* const> indexes);

// Whether one of `indexes` (null ones skipped) holds `term` for document `doc`.
bool AnyHolds(std::span<const Bm25Index* const> indexes, std::string_view term, std::uint64_t doc);

}  // namespace engram::index

#endif  // ENGRAM_INDEX_BM25_BM25_INDEX_H_
