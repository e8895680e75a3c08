// Word vectors (see word_vectors.h).
#include "lexicon/word_vectors.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
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

}  // namespace

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
  return std::shared_ptr<const WordVectors>(std::move(vectors));
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
    const auto better = [this](const auto& a, const auto& b) {
      return a.first != b.first ? a.first > b.first : terms_[a.second] < terms_[b.second];
    };
    const std::size_t kept = std::min(per_term, close.size());
    std::partial_sort(close.begin(), close.begin() + static_cast<std::ptrdiff_t>(kept),
                      close.end(), better);
    for (std::size_t i = 0; i < kept; ++i) {
      result[q].push_back({terms_[close[i].second], static_cast<double>(close[i].first)});
    }
  }
  return result;
}

}  // namespace engram::lexicon
