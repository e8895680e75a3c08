// BM25 (Okapi, Robertson & Zaragoza 2009): the scoring function alone, with its constants named.
//
// For a query term t and a document d of length dl (in terms) in a collection of N documents of
// average length avgdl, where t occurs tf times in d and in df documents overall:
//
//   idf(t)      = ln(1 + (N - df + 0.5) / (df + 0.5))
//   score(t, d) = idf(t) * tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl))
//
// The idf is Lucene's variant (BM25Similarity since Lucene 8): the "1 +" inside the logarithm keeps
// it positive even for terms in more than half of the documents, where the classic Robertson–Spärck
// Jones idf ln((N - df + 0.5) / (df + 0.5)) turns negative and would make a match lower a score.
// k1 ("term-frequency saturation") and b ("length normalisation") come from engram::Bm25Config;
// their defaults (1.2, 0.75) live there and nowhere else.
//
//   const double idf = engram::index::Bm25Idf(/*doc_count=*/3, /*doc_frequency=*/1);
//   const engram::index::Bm25TermWeight weight(idf, /*query_count=*/1, /*average_length=*/4.0,
//                                              engram::Bm25Config{});
//   const double contribution = weight.Score(/*term_frequency=*/1, /*doc_length=*/3);
//
// Thread-safety: pure functions and an immutable value type.
#ifndef ENGRAM_INDEX_BM25_BM25_H_
#define ENGRAM_INDEX_BM25_BM25_H_

#include <cstdint>

#include "engram/config.h"

namespace engram::index {

// The 0.5 added to the document frequency and its complement in the idf ("Robertson–Spärck Jones
// smoothing").
inline constexpr double kBm25IdfSmoothing = 0.5;

// idf(t) above. doc_frequency is clamped to doc_count; the result is > 0 whenever doc_count > 0.
double Bm25Idf(std::uint64_t doc_count, std::uint64_t doc_frequency);

// The textbook form of score(t, d) above. A non-positive average_length (an empty collection)
// disables length normalisation. Reference for tests; search uses Bm25TermWeight.
double Bm25TermScore(double idf, double term_frequency, double doc_length, double average_length,
                     const Bm25Config& config);

// score(t, d) for one query term with everything that does not depend on the document folded
// into constants, like tantivy's Bm25Weight:
//   Score(tf, dl) = weight * tf / (tf + norm_base + norm_slope * dl)
// with weight = query_count * idf * (k1 + 1), norm_base = k1 * (1 - b), norm_slope = k1 * b /
// avgdl. Equal to query_count * Bm25TermScore(...) up to floating-point rounding (a few ulps).
// Search and explanation both use this class, so an explanation sums to exactly the score it
// explains.
class Bm25TermWeight {
 public:
  // query_count: how many times the term occurs in the query (each occurrence counts).
  Bm25TermWeight(double idf, double query_count, double average_length, const Bm25Config& config);

  double Score(std::uint32_t term_frequency, std::uint32_t doc_length) const {
    const double tf = term_frequency;
    return weight_ * tf / (tf + norm_base_ + norm_slope_ * static_cast<double>(doc_length));
  }

 private:
  double weight_;      // query_count * idf * (k1 + 1)
  double norm_base_;   // k1 * (1 - b), or k1 when avgdl <= 0 (dl / avgdl taken as 1)
  double norm_slope_;  // k1 * b / avgdl, or 0 when avgdl <= 0
};

// The largest Score(tf, dl) over the pairs offered, for MaxScore bounds, at the cost of a compare
// per pair instead of a division: Score grows with tf and falls with dl (and so do its rounded
// operations), so the largest is Score(tf, shortest dl offered with that tf) for some tf. Equal,
// bit for bit, to the maximum of Score over the pairs.
class Bm25ScoreMax {
 public:
  explicit Bm25ScoreMax(const Bm25TermWeight& weight) : weight_(weight) {
    for (std::uint32_t& length : shortest_) length = kNone;
  }

  void Offer(std::uint32_t term_frequency, std::uint32_t doc_length) {
    if (term_frequency < kTracked) {
      shortest_[term_frequency] = doc_length < shortest_[term_frequency]
                                      ? doc_length
                                      : shortest_[term_frequency];
    } else {
      const double score = weight_.Score(term_frequency, doc_length);
      if (score > rare_max_) rare_max_ = score;
    }
  }

  // 0 when nothing was offered.
  double Max() const {
    double max = rare_max_;
    for (std::uint32_t tf = 0; tf < kTracked; ++tf) {
      if (shortest_[tf] == kNone) continue;
      const double score = weight_.Score(tf, shortest_[tf]);
      if (score > max) max = score;
    }
    return max;
  }

 private:
  static constexpr std::uint32_t kTracked = 16;  // term frequencies kept by shortest dl
  static constexpr std::uint32_t kNone = ~std::uint32_t{0};
  const Bm25TermWeight& weight_;
  std::uint32_t shortest_[kTracked];
  double rare_max_ = 0;
};

}  // namespace engram::index

#endif  // ENGRAM_INDEX_BM25_BM25_H_
