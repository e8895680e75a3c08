// Compiled caches of data files: a read-only mapping of a cache file, an atomic write of one, a
// fast checksum that catches a damaged one, and a fingerprint of the source files it was
// compiled from. The lexicons, the word vectors and the sentence encoder compile their sources
// once into such a file next to them, so that later processes map the result instead of parsing
// and recomputing it.
//
//   const std::array<std::uint8_t, 32> fingerprint = FingerprintFiles("engram-x-v1", {source});
//   if (std::optional<MappedFile> cache = MappedFile::Open(cache_path)) { ...check, use... }
//   WriteFileAtomically(cache_path, image);  // a failure only means no cache next time
//
// Thread-safety: a MappedFile is immutable; the functions are pure functions of the file system.
#ifndef ENGRAM_CORE_COMPILED_FILE_H_
#define ENGRAM_CORE_COMPILED_FILE_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "engram/status.h"

namespace engram::core {

// A regular file mapped read-only for the life of the object. Move-only.
class MappedFile {
 public:
  // Whether Open maps every page at once (a reader that checksums the whole file) or as they
  // are touched (a reader that looks up a few entries).
  enum class Pages { kOnDemand, kAllNow };

  // The mapping of `path`; nullopt when it is missing, empty or cannot be mapped.
  static std::optional<MappedFile> Open(const std::string& path, Pages pages = Pages::kAllNow);

  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  // The file's bytes; the address is page-aligned.
  std::span<const std::byte> bytes() const { return {data_, size_}; }

 private:
  MappedFile(const std::byte* data, std::size_t size) : data_(data), size_(size) {}
  const std::byte* data_ = nullptr;
  std::size_t size_ = 0;
};

// Writes `bytes` to a temporary file beside `path` and renames it over `path`, so a reader sees
// the old file or the whole new one. kUnavailable naming the file when it cannot be written (the
// temporary file is removed).
Status WriteFileAtomically(const std::string& path, std::span<const std::byte> bytes);

// A 64-bit checksum of `bytes` (four XXH64-style multiply-rotate lanes over 8-byte words in host
// order, then the tail and the length): it detects accidental damage — a flipped bit, a torn or
// truncated write — at memory speed; it is not a cryptographic digest.
std::uint64_t Checksum64(std::span<const std::byte> bytes);

// SHA-256 over `format` and, for each of `paths` in order, the path's file name, size and
// modification time (nanoseconds), and the text of `digests_file` (the SHA256SUMS that pinned
// the sources; empty when there is none). A cache records the fingerprint of its sources and is
// used only while they still have it: a replaced or re-installed source, or a compiler with a new
// `format`, makes a new fingerprint. A path that cannot be read about counts as missing
// (size and time -1).
std::array<std::uint8_t, 32> FingerprintFiles(std::string_view format,
                                              std::span<const std::string> paths,
                                              const std::string& digests_file);

}  // namespace engram::core

#endif  // ENGRAM_CORE_COMPILED_FILE_H_
