// SHA-256 (FIPS 180-4), used for content addresses, Merkle roots and the model files' checksums.
// Dependency-free: the compression runs on the x86 SHA extensions where the CPU has them (about
// five times faster: opening the sentence encoder checks 28 MB of weights), portable C++
// elsewhere; both give the same digests.
#ifndef ENGRAM_CORE_SHA256_H_
#define ENGRAM_CORE_SHA256_H_

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace engram::core {

class Sha256 {
 public:
  // Which code compresses the blocks.
  enum class Path {
    kPortable,       // C++ after FIPS 180-4 §6.2
    kShaExtensions,  // x86-64 SHA-NI (SHA256RNDS2, SHA256MSG1/2) with SSE4.1
  };
  // Whether this CPU runs `path` (kPortable always), decided from the CPU's features.
  static bool Supported(Path path);

  Sha256();  // the fastest supported path
  // Tests and benchmarks choose the path (the portable one when `path` is not Supported).
  explicit Sha256(Path path);
  void Update(std::string_view data);
  std::array<std::uint8_t, 32> Finish();

 private:
  void Compress(const std::uint8_t* blocks, std::size_t count);

  Path path_;
  std::array<std::uint32_t, 8> state_;
  std::array<std::uint8_t, 64> buffer_{};
  std::size_t buffered_ = 0;
  std::uint64_t total_bytes_ = 0;
};

// Lowercase hex of the digest of `data`.
std::string Sha256Hex(std::string_view data);

}  // namespace engram::core

#endif  // ENGRAM_CORE_SHA256_H_
