// Word vectors (see word_vectors.h).
#include "lexicon/word_vectors.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <type_traits>
#include <unordered_map>
#include <utility>

#include "core/compiled_file.h"
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
  const WordVectors* vectors;
  bool operator()(const std::pair<float, std::uint32_t>& a,
                  const std::pair<float, std::uint32_t>& b) const {
    return a.first != b.first ? a.first > b.first
                              : vectors->TermView(a.second) < vectors->TermView(b.second);
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
  const std::uint32_t row = vectors_->FindRow(term);
  if (row == WordVectors::kNoRow) return false;
  const std::size_t width = vectors_->code_width_;
  const std::size_t at = rows_.size() % internal::kPanelRows;  // in its panel
  if (at == 0) {                                               // a new panel, all zeros
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

// ---------------------------------------------------------------------------------------------
// The compiled image: what Open builds from the file, and what the cache holds byte for byte.
//
// Host byte order (the endian marker refuses an image from another one). The header (ImageHeader)
// is followed by sections, each starting at a multiple of 8 bytes: the vectors (float, stems x
// dimensions), the codes' scales, errors and norms (double, stems each), their sums (int32,
// stems), the term offsets (uint32, stems + 1), the hash slots (uint32), the codes (int8, stems x
// code width), the terms' bytes, and the sample: word offsets (uint32, samples + 1), the row each
// word's stem has (uint32, samples; kNoRow for a word without one) and the words' bytes. The
// checksum covers everything after the header.

namespace {

constexpr char kImageMagic[8] = {'E', 'N', 'G', 'R', 'A', 'M', 'W', 'C'};
constexpr std::uint32_t kImageVersion = 1;
constexpr std::uint32_t kEndianMarker = 0x01020304;
// Names the image format in the source fingerprint: a new format never reads an old cache.
constexpr std::string_view kImageFormat = "engram-word-vectors-image-v1";
constexpr std::string_view kCacheSuffix = ".compiled";
// The sampled words whose stems an Open from the cache checks against the tokenizer: the first
// kSampleHead (the most frequent words, among them the stopwords) and every kSampleStride-th.
constexpr std::size_t kSampleHead = 512;
constexpr std::size_t kSampleStride = 97;
constexpr std::uint32_t kNoSampleRow = 0xFFFFFFFF;

struct ImageHeader {
  char magic[8];
  std::uint32_t version;
  std::uint32_t endian;
  std::uint8_t fingerprint[32];
  std::uint32_t dimensions;
  std::uint32_t stems;
  std::uint32_t code_width;
  std::uint32_t slots;
  std::uint32_t samples;
  std::uint32_t term_bytes;
  std::uint32_t sample_bytes;
  std::uint32_t reserved;
  std::uint64_t checksum;
};
static_assert(sizeof(ImageHeader) == 88 && std::is_trivially_copyable_v<ImageHeader>);

// Byte offsets of the sections of an image with `header`'s counts.
struct ImageLayout {
  std::size_t vectors, scales, errors, norms, sums, term_offsets, slots, codes, terms,
      sample_offsets, sample_rows, sample_words, total;

  explicit ImageLayout(const ImageHeader& header) {
    std::size_t at = sizeof(ImageHeader);
    const auto place = [&at](std::size_t bytes) {
      at = (at + 7) / 8 * 8;
      const std::size_t start = at;
      at += bytes;
      return start;
    };
    const std::size_t stems = header.stems;
    vectors = place(stems * header.dimensions * sizeof(float));
    scales = place(stems * sizeof(double));
    errors = place(stems * sizeof(double));
    norms = place(stems * sizeof(double));
    sums = place(stems * sizeof(std::int32_t));
    term_offsets = place((stems + 1) * sizeof(std::uint32_t));
    slots = place(std::size_t{header.slots} * sizeof(std::uint32_t));
    codes = place(stems * header.code_width);
    terms = place(header.term_bytes);
    sample_offsets = place((std::size_t{header.samples} + 1) * sizeof(std::uint32_t));
    sample_rows = place(std::size_t{header.samples} * sizeof(std::uint32_t));
    sample_words = place(header.sample_bytes);
    total = (at + 7) / 8 * 8;
  }
};

// FNV-1a, 64 bits: the hash of the image's term table (fixed, so an image reads the same in
// every build).
std::uint64_t TermHash(std::string_view term) {
  std::uint64_t hash = 14695981039346656037ULL;
  for (const char c : term) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ULL;
  }
  return hash;
}

template <typename T>
std::span<const T> Section(std::span<const std::byte> bytes, std::size_t offset,
                           std::size_t count) {
  return {reinterpret_cast<const T*>(bytes.data() + offset), count};
}

template <typename T>
void Put(std::vector<std::uint64_t>& image, std::size_t offset, const std::vector<T>& values) {
  if (!values.empty()) {
    std::memcpy(reinterpret_cast<std::byte*>(image.data()) + offset, values.data(),
                values.size() * sizeof(T));
  }
}

std::string CorruptSource(const std::string& path, const std::string& what) {
  return "word vectors file " + path + " is damaged: " + what +
         " (reinstall it with scripts/fetch-models)";
}

// Reads and checks the word-vector file `bytes` (from `path`) and compiles its stems into an
// image carrying `fingerprint`.
StatusOr<std::vector<std::uint64_t>> CompileImage(const std::string& path, const std::string& bytes,
                                                  const std::array<std::uint8_t, 32>& fingerprint) {
  const auto corrupt = [&path](const std::string& what) {
    return Status::Corruption(CorruptSource(path, what));
  };
  if (bytes.size() < kHeaderBytes) return corrupt("shorter than its header");
  if (std::string_view(bytes.data(), kMagic.size()) != kMagic) return corrupt("wrong magic");
  if (const std::uint32_t version = ReadU32(bytes, 8); version != kVersion) {
    return corrupt("version " + std::to_string(version) + ", expected " + std::to_string(kVersion));
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
  const text::Tokenizer tokenizer;
  std::unordered_map<std::string, std::uint32_t> rows;  // stem -> row, while compiling
  std::vector<std::string> terms;                       // by row
  std::vector<std::uint32_t> word_rows(count, kNoSampleRow);
  std::vector<double> sums;  // by row, dimensions each
  for (std::uint32_t w = 0; w < count; ++w) {
    const float scale = ReadF32(bytes, scales_at + std::size_t{w} * 4);
    if (!std::isfinite(scale) || scale <= 0) {
      return corrupt("word " + std::to_string(w) + " has a bad scale");
    }
    std::vector<std::string> stems = tokenizer.Terms(words[w]);
    if (stems.size() != 1) continue;  // a stopword
    auto [found, added] = rows.try_emplace(stems.front(), static_cast<std::uint32_t>(terms.size()));
    if (added) {
      terms.push_back(std::move(stems.front()));
      sums.resize(sums.size() + dimensions, 0.0);
    }
    word_rows[w] = found->second;
    double* sum = sums.data() + std::size_t{found->second} * dimensions;
    const double weight = 1.0 / (static_cast<double>(w) + 1.0);
    const auto* codes =
        reinterpret_cast<const signed char*>(bytes.data() + codes_at + std::size_t{w} * dimensions);
    for (std::size_t i = 0; i < dimensions; ++i) {
      sum[i] += weight * static_cast<double>(codes[i]) * static_cast<double>(scale);
    }
  }
  const std::size_t stems = terms.size();
  std::vector<float> vectors(sums.size());
  for (std::size_t row = 0; row < stems; ++row) {
    const double* sum = sums.data() + row * dimensions;
    double norm = 0;
    for (std::size_t i = 0; i < dimensions; ++i) norm += sum[i] * sum[i];
    norm = std::sqrt(norm);
    float* out = vectors.data() + row * dimensions;
    for (std::size_t i = 0; i < dimensions; ++i) {
      out[i] = norm > 0 ? static_cast<float>(sum[i] / norm) : 0.0f;
    }
  }

  // Each row's int8 codes and their bounds (see word_vectors.h).
  const std::size_t code_width =
      (dimensions + internal::kGroup - 1) / internal::kGroup * internal::kGroup;
  std::vector<std::int8_t> codes(stems * code_width, 0);
  std::vector<std::int32_t> code_sums(stems, 0);
  std::vector<double> code_scales(stems, 0);
  std::vector<double> code_errors(stems, 0);
  std::vector<double> code_norms(stems, 0);
  // Rounding the error and norm up by far more than their double arithmetic can be off.
  constexpr double kUp = 1 + 1e-9;
  for (std::size_t row = 0; row < stems; ++row) {
    const float* vector = vectors.data() + row * dimensions;
    double largest = 0;
    for (std::size_t i = 0; i < dimensions; ++i) {
      largest = std::max(largest, std::abs(static_cast<double>(vector[i])));
    }
    if (largest == 0) continue;  // a zero row: codes 0, no error
    const double scale = largest / 127;
    std::int8_t* row_codes = codes.data() + row * code_width;
    std::int32_t code_sum = 0;
    double error = 0;
    double norm = 0;
    for (std::size_t i = 0; i < dimensions; ++i) {
      const double code = std::clamp(std::round(vector[i] / scale), -127.0, 127.0);
      row_codes[i] = static_cast<std::int8_t>(code);
      code_sum += static_cast<std::int32_t>(code);
      const double rest = static_cast<double>(vector[i]) - scale * code;
      error += rest * rest;
      norm += scale * code * scale * code;
    }
    code_sums[row] = code_sum;
    code_scales[row] = scale;
    code_errors[row] = std::sqrt(error) * kUp;
    code_norms[row] = std::sqrt(norm) * kUp;
  }

  // The terms, their hash table and the sample.
  std::vector<std::uint32_t> term_offsets = {0};
  std::string term_bytes;
  for (const std::string& term : terms) {
    term_bytes += term;
    term_offsets.push_back(static_cast<std::uint32_t>(term_bytes.size()));
  }
  std::size_t slot_count = 2;
  while (slot_count < 2 * stems) slot_count *= 2;
  std::vector<std::uint32_t> slots(slot_count, 0);
  for (std::size_t row = 0; row < stems; ++row) {
    std::size_t slot = TermHash(terms[row]) & (slot_count - 1);
    while (slots[slot] != 0) slot = (slot + 1) & (slot_count - 1);
    slots[slot] = static_cast<std::uint32_t>(row + 1);
  }
  std::vector<std::uint32_t> sample_offsets = {0};
  std::vector<std::uint32_t> sample_rows;
  std::string sample_bytes;
  for (std::size_t w = 0; w < count; ++w) {
    if (w >= kSampleHead && w % kSampleStride != 0) continue;
    sample_bytes += words[w];
    sample_offsets.push_back(static_cast<std::uint32_t>(sample_bytes.size()));
    sample_rows.push_back(word_rows[w]);
  }

  ImageHeader header{};
  std::memcpy(header.magic, kImageMagic, sizeof(kImageMagic));
  header.version = kImageVersion;
  header.endian = kEndianMarker;
  std::memcpy(header.fingerprint, fingerprint.data(), fingerprint.size());
  header.dimensions = dimensions;
  header.stems = static_cast<std::uint32_t>(stems);
  header.code_width = static_cast<std::uint32_t>(code_width);
  header.slots = static_cast<std::uint32_t>(slot_count);
  header.samples = static_cast<std::uint32_t>(sample_rows.size());
  header.term_bytes = static_cast<std::uint32_t>(term_bytes.size());
  header.sample_bytes = static_cast<std::uint32_t>(sample_bytes.size());
  const ImageLayout layout(header);
  std::vector<std::uint64_t> image(layout.total / 8, 0);
  Put(image, layout.vectors, vectors);
  Put(image, layout.scales, code_scales);
  Put(image, layout.errors, code_errors);
  Put(image, layout.norms, code_norms);
  Put(image, layout.sums, code_sums);
  Put(image, layout.term_offsets, term_offsets);
  Put(image, layout.slots, slots);
  Put(image, layout.codes, codes);
  Put(image, layout.terms, std::vector<char>(term_bytes.begin(), term_bytes.end()));
  Put(image, layout.sample_offsets, sample_offsets);
  Put(image, layout.sample_rows, sample_rows);
  Put(image, layout.sample_words, std::vector<char>(sample_bytes.begin(), sample_bytes.end()));
  const auto all = std::as_bytes(std::span(image));
  header.checksum = core::Checksum64(all.subspan(sizeof(ImageHeader)));
  std::memcpy(image.data(), &header, sizeof(header));
  return image;
}

}  // namespace

struct WordVectors::Image {
  std::optional<core::MappedFile> mapped;  // the cache, or
  std::vector<std::uint64_t> owned;        // an image built in memory
  std::span<const std::byte> bytes() const {
    return mapped ? mapped->bytes() : std::as_bytes(std::span(owned));
  }
};

Status WordVectors::View(std::span<const std::byte> bytes,
                         const std::array<std::uint8_t, 32>& fingerprint, bool from_cache) {
  const auto damaged = [](const std::string& what) {
    return Status::Corruption("word vectors image: " + what);
  };
  if (bytes.size() < sizeof(ImageHeader)) return damaged("shorter than its header");
  ImageHeader header;
  std::memcpy(&header, bytes.data(), sizeof(header));
  if (std::memcmp(header.magic, kImageMagic, sizeof(kImageMagic)) != 0 ||
      header.version != kImageVersion || header.endian != kEndianMarker) {
    return damaged("not an image of this format");
  }
  if (std::memcmp(header.fingerprint, fingerprint.data(), fingerprint.size()) != 0) {
    return damaged("compiled from another source");
  }
  if (header.dimensions == 0 || header.dimensions > kMaxDimensions ||
      header.code_width !=
          (header.dimensions + internal::kGroup - 1) / internal::kGroup * internal::kGroup) {
    return damaged("bad dimensions");
  }
  if (header.slots <= header.stems || !std::has_single_bit(header.slots)) {
    return damaged("bad hash table size");
  }
  const ImageLayout layout(header);
  if (layout.total != bytes.size()) return damaged("wrong size");
  if (from_cache && core::Checksum64(bytes.subspan(sizeof(ImageHeader))) != header.checksum) {
    return damaged("checksum mismatch");
  }
  const std::size_t stems = header.stems;
  const auto term_offsets = Section<std::uint32_t>(bytes, layout.term_offsets, stems + 1);
  if (term_offsets.front() != 0 || term_offsets.back() != header.term_bytes ||
      !std::is_sorted(term_offsets.begin(), term_offsets.end())) {
    return damaged("bad term offsets");
  }
  const auto slots = Section<std::uint32_t>(bytes, layout.slots, header.slots);
  std::size_t filled = 0;
  for (const std::uint32_t slot : slots) {
    if (slot > stems) return damaged("hash slot out of range");
    filled += slot != 0 ? 1 : 0;
  }
  if (filled != stems) return damaged("hash table does not hold every term");

  dimensions_ = header.dimensions;
  count_ = stems;
  code_width_ = header.code_width;
  vectors_ = Section<float>(bytes, layout.vectors, stems * dimensions_);
  code_scales_ = Section<double>(bytes, layout.scales, stems);
  code_errors_ = Section<double>(bytes, layout.errors, stems);
  code_norms_ = Section<double>(bytes, layout.norms, stems);
  code_sums_ = Section<std::int32_t>(bytes, layout.sums, stems);
  term_offsets_ = term_offsets;
  slots_ = slots;
  codes_ = Section<std::int8_t>(bytes, layout.codes, stems * code_width_);
  terms_blob_ = std::string_view(reinterpret_cast<const char*>(bytes.data() + layout.terms),
                                 header.term_bytes);

  if (from_cache) {
    // The sampled words must still get the stems they got when the image was compiled.
    const auto offsets = Section<std::uint32_t>(bytes, layout.sample_offsets, header.samples + 1);
    const auto rows = Section<std::uint32_t>(bytes, layout.sample_rows, header.samples);
    const std::string_view words(reinterpret_cast<const char*>(bytes.data() + layout.sample_words),
                                 header.sample_bytes);
    if (offsets.front() != 0 || offsets.back() != header.sample_bytes ||
        !std::is_sorted(offsets.begin(), offsets.end())) {
      return damaged("bad sample offsets");
    }
    const text::Tokenizer tokenizer;
    for (std::size_t sample = 0; sample < header.samples; ++sample) {
      const std::vector<std::string> stems_now =
          tokenizer.Terms(words.substr(offsets[sample], offsets[sample + 1] - offsets[sample]));
      const bool matches = rows[sample] == kNoSampleRow
                               ? stems_now.size() != 1
                               : rows[sample] < stems && stems_now.size() == 1 &&
                                     stems_now.front() == TermView(rows[sample]);
      if (!matches) return damaged("the tokenizer stems a sampled word differently");
    }
  }
  return Status::Ok();
}

std::uint32_t WordVectors::FindRow(std::string_view term_text) const {
  if (slots_.empty()) return kNoRow;
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t slot = TermHash(term_text) & mask;; slot = (slot + 1) & mask) {
    const std::uint32_t entry = slots_[slot];
    if (entry == 0) return kNoRow;
    if (TermView(entry - 1) == term_text) return entry - 1;
  }
}

std::string WordVectors::CachePath(const std::string& path) {
  return path + std::string(kCacheSuffix);
}

StatusOr<std::shared_ptr<const WordVectors>> WordVectors::Open(const std::string& path,
                                                               Cache cache) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) {
    return Status::FailedPrecondition("word vectors file " + path +
                                      " is missing; install it with scripts/fetch-models");
  }
  const std::string digests = (std::filesystem::path(path).parent_path() / "SHA256SUMS").string();
  const std::array<std::uint8_t, 32> fingerprint =
      core::FingerprintFiles(kImageFormat, std::span(&path, 1), digests);
  const std::string cache_path = CachePath(path);
  if (cache == Cache::kUse) {
    if (std::optional<core::MappedFile> mapped = core::MappedFile::Open(cache_path)) {
      auto image = std::make_shared<Image>();
      image->mapped = std::move(mapped);
      auto vectors = std::shared_ptr<WordVectors>(new WordVectors());
      if (vectors->View(image->bytes(), fingerprint, /*from_cache=*/true).ok()) {
        vectors->image_ = std::move(image);
        vectors->from_cache_ = true;
        return std::shared_ptr<const WordVectors>(std::move(vectors));
      }
    }
  }
  ASSIGN_OR_RETURN(const std::string bytes, core::ReadWholeFile(path, "word vectors file"));
  auto image = std::make_shared<Image>();
  ASSIGN_OR_RETURN(image->owned, CompileImage(path, bytes, fingerprint));
  if (cache == Cache::kUse) {
    // A failure (a read-only directory) only means the next Open compiles again.
    (void)core::WriteFileAtomically(cache_path, image->bytes());
  }
  auto vectors = std::shared_ptr<WordVectors>(new WordVectors());
  RETURN_IF_ERROR(vectors->View(image->bytes(), fingerprint, /*from_cache=*/false));
  vectors->image_ = std::move(image);
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
  const std::uint32_t row = FindRow(term);
  if (row == kNoRow) return {};
  return {Row(row), dimensions_};
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
    const std::uint32_t row = FindRow(term);
    if (row == kNoRow) continue;
    if (std::find(query_terms.begin(), query_terms.end(), term) != query_terms.end()) continue;
    rows.push_back(row);
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
    const Better better{this};
    const std::size_t kept = std::min(per_term, close.size());
    std::partial_sort(close.begin(), close.begin() + static_cast<std::ptrdiff_t>(kept), close.end(),
                      better);
    for (std::size_t i = 0; i < kept; ++i) {
      result[q].push_back(
          {std::string(TermView(close[i].second)), static_cast<double>(close[i].first)});
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
    const std::uint32_t row = FindRow(query_terms[q]);
    if (row == kNoRow) continue;
    query_rows.push_back(row);
    positions.push_back(q);
  }
  const std::size_t searched = query_rows.size();
  if (searched == 0) return result;
  // The rows that are never neighbours: the query terms' and the excluded terms'.
  std::vector<std::uint32_t> excluded_rows = query_rows;
  for (const std::string& term : excluded) {
    if (const std::uint32_t row = FindRow(term); row != kNoRow) excluded_rows.push_back(row);
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
            if (std::find(excluded_rows.begin(), excluded_rows.end(), row) != excluded_rows.end()) {
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
  const Better better{this};
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
    std::partial_sort(close.begin(), close.begin() + static_cast<std::ptrdiff_t>(kept), close.end(),
                      better);
    std::vector<WordNeighbour>& neighbours = result[positions[j]];
    for (std::size_t i = 0; i < kept; ++i) {
      neighbours.push_back(
          {std::string(TermView(close[i].second)), static_cast<double>(close[i].first)});
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
