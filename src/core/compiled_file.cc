// Compiled caches of data files (see compiled_file.h).
#include "core/compiled_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bit>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <utility>

#include "core/files.h"
#include "core/sha256.h"

namespace engram::core {
namespace {

// XXH64's primes.
constexpr std::uint64_t kPrime1 = 0x9E3779B185EBCA87ULL;
constexpr std::uint64_t kPrime2 = 0xC2B2AE3D27D4EB4FULL;
constexpr std::uint64_t kPrime3 = 0x165667B19E3779F9ULL;

std::uint64_t LoadWord(const std::byte* at) {
  std::uint64_t word = 0;
  std::memcpy(&word, at, sizeof(word));
  return word;
}

std::uint64_t Round(std::uint64_t lane, std::uint64_t word) {
  return std::rotl(lane + word * kPrime2, 31) * kPrime1;
}

}  // namespace

std::optional<MappedFile> MappedFile::Open(const std::string& path, Pages pages) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  struct stat info {};
  std::optional<MappedFile> mapped;
  if (::fstat(fd, &info) == 0 && S_ISREG(info.st_mode) && info.st_size > 0) {
    const auto size = static_cast<std::size_t>(info.st_size);
    const int flags = MAP_PRIVATE | (pages == Pages::kAllNow ? MAP_POPULATE : 0);
    void* mapping = ::mmap(nullptr, size, PROT_READ, flags, fd, 0);
    if (mapping != MAP_FAILED) mapped = MappedFile(static_cast<const std::byte*>(mapping), size);
  }
  ::close(fd);
  return mapped;
}

MappedFile::MappedFile(MappedFile&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
  if (this != &other) {
    if (data_ != nullptr) ::munmap(const_cast<std::byte*>(data_), size_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

MappedFile::~MappedFile() {
  if (data_ != nullptr) ::munmap(const_cast<std::byte*>(data_), size_);
}

Status WriteFileAtomically(const std::string& path, std::span<const std::byte> bytes) {
  const std::string temporary = path + "." + std::to_string(::getpid()) + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (out) {
      out.write(reinterpret_cast<const char*>(bytes.data()),
                static_cast<std::streamsize>(bytes.size()));
    }
    if (!out) {
      out.close();
      std::remove(temporary.c_str());
      return Status::Unavailable("cannot write " + temporary);
    }
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    std::remove(temporary.c_str());
    return Status::Unavailable("cannot rename " + temporary + " to " + path);
  }
  return Status::Ok();
}

std::uint64_t Checksum64(std::span<const std::byte> bytes) {
  std::uint64_t lanes[4] = {kPrime1 + kPrime2, kPrime2, 0, 0 - kPrime1};
  const std::byte* at = bytes.data();
  const std::byte* const end = at + bytes.size();
  for (; end - at >= 32; at += 32) {
    for (std::size_t lane = 0; lane < 4; ++lane) {
      lanes[lane] = Round(lanes[lane], LoadWord(at + 8 * lane));
    }
  }
  std::uint64_t hash = std::rotl(lanes[0], 1) + std::rotl(lanes[1], 7) + std::rotl(lanes[2], 12) +
                       std::rotl(lanes[3], 18);
  for (; end - at >= 8; at += 8) {
    hash = std::rotl(hash ^ Round(0, LoadWord(at)), 27) * kPrime1 + kPrime3;
  }
  for (; at < end; ++at) {
    hash = std::rotl(hash ^ (static_cast<std::uint64_t>(*at) * kPrime3), 11) * kPrime1;
  }
  hash ^= static_cast<std::uint64_t>(bytes.size());
  hash ^= hash >> 33;
  hash *= kPrime2;
  hash ^= hash >> 29;
  hash *= kPrime3;
  hash ^= hash >> 32;
  return hash;
}

std::array<std::uint8_t, 32> FingerprintFiles(std::string_view format,
                                              std::span<const std::string> paths,
                                              const std::string& digests_file) {
  Sha256 hash;
  hash.Update(format);
  hash.Update("\n");
  for (const std::string& path : paths) {
    struct stat info {};
    long long size = -1;
    long long modified = -1;
    if (::stat(path.c_str(), &info) == 0) {
      size = static_cast<long long>(info.st_size);
      modified = static_cast<long long>(info.st_mtim.tv_sec) * 1'000'000'000LL +
                 static_cast<long long>(info.st_mtim.tv_nsec);
    }
    hash.Update(std::filesystem::path(path).filename().string() + " " + std::to_string(size) + " " +
                std::to_string(modified) + "\n");
  }
  StatusOr<std::string> read = ReadWholeFile(digests_file, "checksums file");
  const std::string digests = read.ok() ? std::move(read).value() : std::string();
  hash.Update("digests " + std::to_string(digests.size()) + "\n");
  hash.Update(digests);
  return hash.Finish();
}

}  // namespace engram::core
