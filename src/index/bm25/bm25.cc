// BM25 scoring function; formulas and their sources in bm25.h.
#include "index/bm25/bm25.h"

#include <algorithm>
#include <cmath>

namespace engram::index {

double Bm25Idf(std::uint64_t doc_count, std::uint64_t doc_frequency) {
  const double n = static_cast<double>(doc_count);
  const double df = static_cast<double>(std::min(doc_frequency, doc_count));
  return std::log(1.0 + (n - df + kBm25IdfSmoothing) / (df + kBm25IdfSmoothing));
}

double Bm25TermScore(double idf, double term_frequency, double doc_length, double average_length,
                     const Bm25Config& config) {
  const double length_ratio = average_length > 0 ? doc_length / average_length : 1.0;
  return idf * term_frequency * (config.k1 + 1) /
         (term_frequency + config.k1 * (1 - config.b + config.b * length_ratio));
}

Bm25TermWeight::Bm25TermWeight(double idf, double query_count, double average_length,
                               const Bm25Config& config)
    : weight_(query_count * idf * (config.k1 + 1)),
      norm_base_(average_length > 0 ? config.k1 * (1 - config.b) : config.k1),
      norm_slope_(average_length > 0 ? config.k1 * config.b / average_length : 0.0) {}

}  // namespace engram::index
