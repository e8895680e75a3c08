// SHA-256 (FIPS 180-4), used for content addresses. Small and dependency-free.
#ifndef ENGRAM_CORE_SHA256_H_
#define ENGRAM_CORE_SHA256_H_

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace engram::core {

class Sha256 {
 public:
  Sha256();
  void Update(std::string_view data);
  std::array<std::uint8_t, 32> Finish();

 private:
  void Block(const std::uint8_t* block);

  std::array<std::uint32_t, 8> state_;
  std::array<std::uint8_t, 64> buffer_{};
  std::size_t buffered_ = 0;
  std::uint64_t total_bytes_ = 0;
};

// Lowercase hex of the digest of `data`.
std::string Sha256Hex(std::string_view data);

}  // namespace engram::core

#endif  // ENGRAM_CORE_SHA256_H_
