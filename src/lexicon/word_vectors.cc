// Word vectors (see word_vectors.h).
#include "lexicon/word_vectors.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <mutex>
#include <utility>

#include "core/files.h"
#include "text/tokenizer.h"

namespace engram::lexicon {
namespace {

constexpr std::string_view kMagic = "ENGRAMWV";
constexpr std::uint32_t kVersion = 1;
constexpr std::size_t kHeaderBytes = 24;
constexpr std::uint32_t kMaxDimensions = 1024;

std::uint32_t ReadU32(const std::string& bytes, std::size_t at) {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data() + at);
  return static_cast<std::uint32_t>(p[0]) | static_cast<std::uint32_t>(p[1]) << 8 |
         static_cast<std::uint32_t>(p[2]) << 16 | static_cast<std::uint32_t>(p[3]) << 24;
}

float ReadF32(const std::string& bytes, std::size_t at) {
  return std::bit_cast<float>(ReadU32(bytes, at));
}

// The dot product in a fixed order (four partial sums the compiler can keep in vector lanes).
float Dot(const float* a, const float* b, std::size_t n) {
  float sums[4] = {0, 0, 0, 0};
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    for (std::size_t lane = 0; lane < 4; ++lane) sums[lane] += a[i + lane] * b[i + lane];
  }
  for (; i < n; ++i) sums[0] += a[i] * b[i];
  return (sums[0] + sums[1]) + (sums[2] + sums[3]);
}

// Dot's rounding error is below d · 2⁻²⁴ for unit vectors (6.2e-5 at the largest d, 1024), and
// the bounds' float arithmetic (a few roundings of values below 1.1, each within 2⁻²⁴ of them)
// is off by less than 1e-6: a pair whose bound falls short of the threshold by more than this
// cannot reach it in Dot.
constexpr double kBoundMargin = 1e-3;

// The better of two (similarity, row) candidates: the higher similarity, then the smaller term.
struct Better {
  const std::vector<std::string>* terms;
  bool operator()(const std::pair<float, std::uint32_t>& a,
                  const std::pair<float, std::uint32_t>& b) const {
    return a.first != b.first ? a.first > b.first : (*terms)[a.second] < (*terms)[b.second];
  }
};

// A pair the integer pass could not rule out: bounds on its float similarity.
struct Candidate {
  float lower = 0;
  float upper = 0;
  std::uint32_t row = 0;
};

}  // namespace

VocabularyVectors::VocabularyVectors(const WordVectors& vectors) : vectors_(&vectors) {}

bool VocabularyVectors::Add(std::string_view term) {
  const auto found = vectors_->rows_.find(term);
  if (found == vectors_->rows_.end()) return false;
  const std::uint32_t row = found->second;
  const std::size_t width = vectors_->code_width_;
  const std::size_t at = rows_.size() % internal::kPanelRows;  // in its panel
  if (at == 0) {  // a new panel, all zeros
    panels_.resize(panels_.size() + width * internal::kPanelRows, 0);
    sums_.resize(sums_.size() + internal::kPanelRows, 0);
    scales_.resize(scales_.size() + internal::kPanelRows, 0);
    errors_.resize(errors_.size() + internal::kPanelRows, 0);
  }
  std::int8_t* panel = panels_.data() + panels_.size() - width * internal::kPanelRows;
  const std::int8_t* codes = vectors_->Codes(row);
  for (std::size_t group = 0; group < width / internal::kGroup; ++group) {
    std::memcpy(panel + internal::PanelOffset(at, group * internal::kGroup),
                codes + group * internal::kGroup, internal::kGroup);
  }
  sums_[rows_.size()] = vectors_->code_sums_[row];
  scales_[rows_.size()] = static_cast<float>(vectors_->code_scales_[row]);
  errors_[rows_.size()] = static_cast<float>(vectors_->code_errors_[row]);
  rows_.push_back(row);
  return true;
}

StatusOr<std::shared_ptr<const WordVectors>> WordVectors::Open(const std::string& path) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) {
    return Status::FailedPrecondition("word vectors file " + path +
                                      " is missing; install it with scripts/fetch-models");
  }
  ASSIGN_OR_RETURN(const std::string bytes, core::ReadWholeFile(path, "word vectors file"));
  const auto corrupt = [&path](const std::string& what) {
    return Status::Corruption("word vectors file " + path + " is damaged: " + what +
                              " (reinstall it with scripts/fetch-models)");
  };
  if (bytes.size() < kHeaderBytes) return corrupt("shorter than its header");
  if (std::string_view(bytes.data(), kMagic.size()) != kMagic) return corrupt("wrong magic");
  if (const std::uint32_t version = ReadU32(bytes, 8); version != kVersion) {
    return corrupt("version " + std::to_string(version) + ", expected " +
                   std::to_string(kVersion));
  }
  const std::uint32_t dimensions = ReadU32(bytes, 12);
  const std::uint32_t count = ReadU32(bytes, 16);
  if (dimensions == 0 || dimensions > kMaxDimensions) {
    return corrupt("dimensions " + std::to_string(dimensions) + " outside 1.." +
                   std::to_string(kMaxDimensions));
  }
  if (count == 0) return corrupt("no words");
  const std::size_t scales_at = kHeaderBytes;
  const std::size_t codes_at = scales_at + std::size_t{count} * 4;
  const std::size_t words_at = codes_at + std::size_t{count} * dimensions;
  if (bytes.size() < words_at) return corrupt("truncated before its words");

  // The words, each a length byte and a-z.
  std::vector<std::string_view> words;
  words.reserve(count);
  std::size_t at = words_at;
  for (std::uint32_t w = 0; w < count; ++w) {
    if (at >= bytes.size()) return corrupt("truncated in word " + std::to_string(w));
    const std::size_t length = static_cast<unsigned char>(bytes[at++]);
    if (length == 0 || at + length > bytes.size()) {
      return corrupt("word " + std::to_string(w) + " has a bad length");
    }
    const std::string_view word(bytes.data() + at, length);
    if (!std::all_of(word.begin(), word.end(), [](char c) { return c >= 'a' && c <= 'z'; })) {
      return corrupt("word " + std::to_string(w) + " is not made of letters a-z");
    }
    words.push_back(word);
    at += length;
  }
  if (at != bytes.size()) return corrupt("bytes after the last word");

  // Each stem's vector: the 1 / (rank + 1) weighted sum of its words' vectors, then unit length.
  auto vectors = std::shared_ptr<WordVectors>(new WordVectors());
  vectors->dimensions_ = dimensions;
  const text::Tokenizer tokenizer;
  std::vector<double> sums;  // by row, dimensions each
  for (std::uint32_t w = 0; w < count; ++w) {
    const float scale = ReadF32(bytes, scales_at + std::size_t{w} * 4);
    if (!std::isfinite(scale) || scale <= 0) {
      return corrupt("word " + std::to_string(w) + " has a bad scale");
    }
    const std::vector<std::string> terms = tokenizer.Terms(words[w]);
    if (terms.size() != 1) continue;  // a stopword
    auto [found, added] = vectors->rows_.try_emplace(
        terms.front(), static_cast<std::uint32_t>(vectors->terms_.size()));
    if (added) {
      vectors->terms_.push_back(terms.front());
      sums.resize(sums.size() + dimensions, 0.0);
    }
    double* sum = sums.data() + std::size_t{found->second} * dimensions;
    const double weight = 1.0 / (static_cast<double>(w) + 1.0);
    const auto* codes = reinterpret_cast<const signed char*>(bytes.data() + codes_at +
                                                             std::size_t{w} * dimensions);
    for (std::size_t i = 0; i < dimensions; ++i) {
      sum[i] += weight * static_cast<double>(codes[i]) * static_cast<double>(scale);
    }
  }
  vectors->vectors_.resize(sums.size());
  for (std::size_t row = 0; row < vectors->terms_.size(); ++row) {
    const double* sum = sums.data() + row * dimensions;
    double norm = 0;
    for (std::size_t i = 0; i < dimensions; ++i) norm += sum[i] * sum[i];
    norm = std::sqrt(norm);
    float* out = vectors->vectors_.data() + row * dimensions;
    for (std::size_t i = 0; i < dimensions; ++i) {
      out[i] = norm > 0 ? static_cast<float>(sum[i] / norm) : 0.0f;
    }
  }
  vectors->Quantise();
  return std::shared_ptr<const WordVectors>(std::move(vectors));
}

void WordVectors::Quantise() {
  code_width_ = (dimensions_ + internal::kGroup - 1) / internal::kGroup * internal::kGroup;
  const std::size_t count = terms_.size();
  codes_.assign(count * code_width_, 0);
  code_sums_.assign(count, 0);
  code_scales_.assign(count, 0);
  code_errors_.assign(count, 0);
  code_norms_.assign(count, 0);
  // Rounding the error and norm up by far more than their double arithmetic can be off.
  constexpr double kUp = 1 + 1e-9;
  for (std::size_t row = 0; row < count; ++row) {
    const float* vector = Row(row);
    double largest = 0;
    for (std::size_t i = 0; i < dimensions_; ++i) {
      largest = std::max(largest, std::abs(static_cast<double>(vector[i])));
    }
    if (largest == 0) continue;  // a zero row: codes 0, no error
    const double scale = largest / 127;
    std::int8_t* codes = codes_.data() + row * code_width_;
    std::int32_t code_sum = 0;
    double error = 0;
    double norm = 0;
    for (std::size_t i = 0; i < dimensions_; ++i) {
      const double code = std::clamp(std::round(vector[i] / scale), -127.0, 127.0);
      codes[i] = static_cast<std::int8_t>(code);
      code_sum += static_cast<std::int32_t>(code);
      const double rest = static_cast<double>(vector[i]) - scale * code;
      error += rest * rest;
      norm += scale * code * scale * code;
    }
    code_sums_[row] = code_sum;
    code_scales_[row] = scale;
    code_errors_[row] = std::sqrt(error) * kUp;
    code_norms_[row] = std::sqrt(norm) * kUp;
  }
}

StatusOr<std::shared_ptr<const WordVectors>> WordVectors::Load(std::string_view data_dir) {
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<const WordVectors>, std::less<>> loaded;
  std::lock_guard lock(mutex);
  if (const auto found = loaded.find(data_dir); found != loaded.end()) return found->second;
  const std::string path = (std::filesystem::path(data_dir) / kWordVectorsFile).string();
  ASSIGN_OR_RETURN(std::shared_ptr<const WordVectors> vectors, Open(path));
  loaded.emplace(std::string(data_dir), vectors);
  return vectors;
}

std::span<const float> WordVectors::Find(std::string_view term) const {
  const auto found = rows_.find(term);
  if (found == rows_.end()) return {};
  return {Row(found->second), dimensions_};
}

double WordVectors::Similarity(std::string_view a, std::string_view b) const {
  const std::span<const float> x = Find(a);
  const std::span<const float> y = Find(b);
  if (x.empty() || y.empty()) return 0;
  return Dot(x.data(), y.data(), dimensions_);
}

std::vector<std::vector<WordNeighbour>> WordVectors::Neighbours(
    std::span<const std::string> query_terms, std::span<const std::string_view> vocabulary,
    double threshold, std::size_t per_term) const {
  std::vector<std::vector<WordNeighbour>> result(query_terms.size());
  if (per_term == 0 || query_terms.empty()) return result;
  // The vocabulary's rows, each once, leaving out the query terms.
  std::vector<std::uint32_t> rows;
  rows.reserve(vocabulary.size());
  for (const std::string_view term : vocabulary) {
    const auto found = rows_.find(term);
    if (found == rows_.end()) continue;
    if (std::find(query_terms.begin(), query_terms.end(), term) != query_terms.end()) continue;
    rows.push_back(found->second);
  }
  std::sort(rows.begin(), rows.end());
  rows.erase(std::unique(rows.begin(), rows.end()), rows.end());

  std::vector<std::pair<float, std::uint32_t>> close;  // similarity, row
  for (std::size_t q = 0; q < query_terms.size(); ++q) {
    const auto earlier = std::find(query_terms.begin(), query_terms.begin() + q, query_terms[q]);
    if (earlier != query_terms.begin() + q) {
      result[q] = result[static_cast<std::size_t>(earlier - query_terms.begin())];
      continue;
    }
    const std::span<const float> query = Find(query_terms[q]);
    if (query.empty()) continue;
    close.clear();
    for (const std::uint32_t row : rows) {
      const float similarity = Dot(query.data(), Row(row), dimensions_);
      if (similarity >= threshold) close.emplace_back(similarity, row);
    }
    const Better better{&terms_};
    const std::size_t kept = std::min(per_term, close.size());
    std::partial_sort(close.begin(), close.begin() + static_cast<std::ptrdiff_t>(kept),
                      close.end(), better);
    for (std::size_t i = 0; i < kept; ++i) {
      result[q].push_back({terms_[close[i].second], static_cast<double>(close[i].first)});
    }
  }
  return result;
}

std::vector<std::vector<WordNeighbour>> WordVectors::Neighbours(
    std::span<const std::string> query_terms,
    std::span<const VocabularyVectors* const> vocabularies, double threshold, std::size_t per_term,
    std::span<const std::string> excluded, SimdPath path) const {
  std::vector<std::vector<WordNeighbour>> result(query_terms.size());
  if (per_term == 0 || query_terms.empty()) return result;
  // The searched rows: each distinct query term with a vector, at its first position.
  std::vector<std::uint32_t> query_rows;
  std::vector<std::size_t> positions;  // in query_terms, by searched term
  for (std::size_t q = 0; q < query_terms.size(); ++q) {
    if (std::find(query_terms.begin(), query_terms.begin() + q, query_terms[q]) !=
        query_terms.begin() + q) {
      continue;
    }
    const auto found = rows_.find(query_terms[q]);
    if (found == rows_.end()) continue;
    query_rows.push_back(found->second);
    positions.push_back(q);
  }
  const std::size_t searched = query_rows.size();
  if (searched == 0) return result;
  // The rows that are never neighbours: the query terms' and the excluded terms'.
  std::vector<std::uint32_t> excluded_rows = query_rows;
  for (const std::string& term : excluded) {
    if (const auto found = rows_.find(term); found != rows_.end()) {
      excluded_rows.push_back(found->second);
    }
  }
  std::vector<std::int8_t> query_codes(searched * code_width_);
  // Per searched term: its scale, its norm, and its part of every pair's bound: error_q ·
  // max ||w|| and the margin.
  std::vector<float> query_scale(searched);
  std::vector<float> query_norm(searched);
  std::vector<float> query_slack(searched);
  for (std::size_t j = 0; j < searched; ++j) {
    std::copy_n(Codes(query_rows[j]), code_width_, query_codes.begin() + j * code_width_);
    query_scale[j] = static_cast<float>(code_scales_[query_rows[j]]);
    query_norm[j] = static_cast<float>(code_norms_[query_rows[j]]);
    query_slack[j] = static_cast<float>(code_errors_[query_rows[j]] * (1 + 1e-5) + kBoundMargin);
  }

  // First pass: every pair's integer estimate, in blocks of panels (so the sums stay in cache);
  // the pairs whose upper bound reaches the threshold are candidates.
  constexpr std::size_t kRows = internal::kPanelRows;
  constexpr std::size_t kBlockPanels = 16;
  std::vector<std::int32_t> dots(kBlockPanels * searched * kRows);
  std::vector<std::vector<Candidate>> candidates(searched);
  for (const VocabularyVectors* vocabulary : vocabularies) {
    if (vocabulary == nullptr || vocabulary->vectors_ != this) continue;
    const std::size_t panel_count = (vocabulary->size() + kRows - 1) / kRows;
    for (std::size_t begin = 0; begin < panel_count; begin += kBlockPanels) {
      const std::size_t count = std::min(kBlockPanels, panel_count - begin);
      internal::PanelDots(path, query_codes.data(), searched,
                          vocabulary->panels_.data() + begin * code_width_ * kRows,
                          vocabulary->sums_.data() + begin * kRows, count, code_width_,
                          dots.data());
      for (std::size_t panel = 0; panel < count; ++panel) {
        const std::size_t first_row = (begin + panel) * kRows;
        const float* scales = vocabulary->scales_.data() + first_row;
        const float* errors = vocabulary->errors_.data() + first_row;
        for (std::size_t j = 0; j < searched; ++j) {
          const std::int32_t* sums = dots.data() + (panel * searched + j) * kRows;
          const float scale = query_scale[j];
          const float norm = query_norm[j];
          const auto least = static_cast<float>(threshold) - query_slack[j];
          // The panel's 16 estimates and upper bounds at once (vectorised); most panels have
          // no candidate.
          float estimates[kRows];
          float radii[kRows];
          int reached = 0;
          for (std::size_t k = 0; k < kRows; ++k) {
            estimates[k] = static_cast<float>(sums[k]) * (scale * scales[k]);
            radii[k] = norm * errors[k];
            reached |= estimates[k] + radii[k] >= least ? 1 : 0;
          }
          if (reached == 0) continue;
          for (std::size_t k = 0; k < kRows; ++k) {
            if (estimates[k] + radii[k] < least || first_row + k >= vocabulary->size()) continue;
            const std::uint32_t row = vocabulary->rows_[first_row + k];
            if (std::find(excluded_rows.begin(), excluded_rows.end(), row) !=
                excluded_rows.end()) {
              continue;
            }
            const float radius = radii[k] + query_slack[j];
            candidates[j].push_back({estimates[k] - radius, estimates[k] + radius, row});
          }
        }
      }
    }
  }

  // Second pass, per searched term: the float similarity of the candidates that can be among
  // its best `per_term`.
  const Better better{&terms_};
  std::vector<std::pair<float, std::uint32_t>> close;  // similarity, row
  for (std::size_t j = 0; j < searched; ++j) {
    std::vector<Candidate>& found = candidates[j];
    // A row in several vocabularies is one candidate.
    std::sort(found.begin(), found.end(),
              [](const Candidate& a, const Candidate& b) { return a.row < b.row; });
    found.erase(std::unique(found.begin(), found.end(),
                            [](const Candidate& a, const Candidate& b) { return a.row == b.row; }),
                found.end());
    // `per_term` candidates certain to be neighbours (lower bound at the threshold) whose lower
    // bounds are all at least `floor` leave out every candidate whose upper bound is below it:
    // its similarity is lower than theirs.
    float floor = -std::numeric_limits<float>::infinity();
    std::vector<float> certain;
    for (const Candidate& candidate : found) {
      if (candidate.lower >= threshold) certain.push_back(candidate.lower);
    }
    if (certain.size() >= per_term) {
      std::nth_element(certain.begin(), certain.begin() + static_cast<std::ptrdiff_t>(per_term - 1),
                       certain.end(), std::greater<>());
      floor = certain[per_term - 1];
    }
    close.clear();
    for (const Candidate& candidate : found) {
      if (candidate.upper < floor) continue;
      const float similarity = Dot(Row(query_rows[j]), Row(candidate.row), dimensions_);
      if (similarity >= threshold) close.emplace_back(similarity, candidate.row);
    }
    const std::size_t kept = std::min(per_term, close.size());
    std::partial_sort(close.begin(), close.begin() + static_cast<std::ptrdiff_t>(kept),
                      close.end(), better);
    std::vector<WordNeighbour>& neighbours = result[positions[j]];
    for (std::size_t i = 0; i < kept; ++i) {
      neighbours.push_back({terms_[close[i].second], static_cast<double>(close[i].first)});
    }
  }
  // A repeated query term gets its first occurrence's list.
  for (std::size_t q = 0; q < query_terms.size(); ++q) {
    const auto first = std::find(query_terms.begin(), query_terms.begin() + q, query_terms[q]);
    if (first != query_terms.begin() + q) {
      result[q] = result[static_cast<std::size_t>(first - query_terms.begin())];
    }
  }
  return result;
}

}  // namespace engram::lexicon
