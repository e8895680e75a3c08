// Tests for the compiled-cache helpers: mapping, atomic writes, the checksum and the source
// fingerprint.
#include "core/compiled_file.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "core/files.h"
#include "engram/testing/temp_dir.h"

namespace engram::core {
namespace {

std::span<const std::byte> Bytes(const std::string& text) {
  return std::as_bytes(std::span(text.data(), text.size()));
}

TEST(CompiledFileTest, WriteAtomicallyThenMapReadsTheSameBytes) {
  const engram::testing::TempDir dir("engram_compiled_file");
  const std::string path = dir.File("image.bin");
  EXPECT_FALSE(MappedFile::Open(path).has_value());  // missing
  ASSERT_TRUE(WriteFileAtomically(path, Bytes("first image")).ok());
  ASSERT_TRUE(WriteFileAtomically(path, Bytes("second, longer image")).ok());
  const std::optional<MappedFile> mapped = MappedFile::Open(path);
  ASSERT_TRUE(mapped.has_value());
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(mapped->bytes().data()),
                        mapped->bytes().size()),
            "second, longer image");
  // No temporary file is left beside it.
  std::size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    (void)entry;
    ++files;
  }
  EXPECT_EQ(files, 1u);
  dir.File("empty.bin", "");
  EXPECT_FALSE(MappedFile::Open(dir.File("empty.bin")).has_value());
}

TEST(CompiledFileTest, AnUnwritableDirectoryIsUnavailable) {
  const Status status = WriteFileAtomically("/nonexistent-dir/image.bin", Bytes("x"));
  EXPECT_EQ(status.code(), StatusCode::kUnavailable);
  EXPECT_NE(status.message().find("/nonexistent-dir/image.bin"), std::string::npos);
}

TEST(CompiledFileTest, ChecksumChangesWithAnyFlippedBitAndWithTheLength) {
  std::string text(1000, '\0');
  for (std::size_t index = 0; index < text.size(); ++index) {
    text[index] = static_cast<char>(index * 7);
  }
  const std::uint64_t original = Checksum64(Bytes(text));
  EXPECT_EQ(Checksum64(Bytes(text)), original);  // a pure function
  for (const std::size_t at : {0, 31, 32, 500, 992, 999}) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string flipped = text;
      flipped[at] = static_cast<char>(flipped[at] ^ (1 << bit));
      EXPECT_NE(Checksum64(Bytes(flipped)), original) << at << " bit " << bit;
    }
  }
  EXPECT_NE(Checksum64(Bytes(text + std::string(1, '\0'))), original);
  EXPECT_NE(Checksum64(Bytes(std::string())), Checksum64(Bytes(std::string(1, '\0'))));
}

TEST(CompiledFileTest, FingerprintFollowsTheSourcesTheDigestsAndTheFormat) {
  const engram::testing::TempDir dir("engram_compiled_fingerprint");
  const std::vector<std::string> paths = {dir.File("a.bin", "source a")};
  const std::string digests = dir.File("SHA256SUMS");
  const auto original = FingerprintFiles("format-v1", paths, digests);
  EXPECT_EQ(FingerprintFiles("format-v1", paths, digests), original);
  EXPECT_NE(FingerprintFiles("format-v2", paths, digests), original);
  dir.File("SHA256SUMS", "abc  a.bin\n");
  const auto with_digests = FingerprintFiles("format-v1", paths, digests);
  EXPECT_NE(with_digests, original);
  dir.File("a.bin", "source a, longer");
  EXPECT_NE(FingerprintFiles("format-v1", paths, digests), with_digests);
  std::filesystem::remove(paths.front());
  EXPECT_NE(FingerprintFiles("format-v1", paths, digests), with_digests);
}

}  // namespace
}  // namespace engram::core
