// file_writer: whole files, plain or zstd-compressed, replaced atomically (see file_writer.h).
#include "io/file_writer.h"

#include <zstd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

namespace engram::io {

Status WriteFile(std::string_view path, std::string_view bytes) {
  const std::string name(path);
  std::string compressed;
  std::string_view data = bytes;
  if (name.ends_with(".zst")) {
    compressed.resize(ZSTD_compressBound(bytes.size()));
    const std::size_t size =
        ZSTD_compress(compressed.data(), compressed.size(), bytes.data(), bytes.size(), 3);
    if (ZSTD_isError(size)) {
      return Status::Internal(name + ": zstd compression failed: " + ZSTD_getErrorName(size));
    }
    compressed.resize(size);
    data = compressed;
  }
  const std::string temporary = name + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) return Status::FailedPrecondition(name + ": cannot create " + temporary);
    out.write(data.data(), static_cast<std::streamsize>(data.size()));
    out.flush();
    if (!out) {
      std::error_code ignored;
      std::filesystem::remove(temporary, ignored);
      return Status::Unavailable(name + ": writing failed (disk full?)");
    }
  }
  std::error_code error;
  std::filesystem::rename(temporary, name, error);
  if (error) {
    std::filesystem::remove(temporary, error);
    return Status::FailedPrecondition(name + ": cannot replace the file: " + error.message());
  }
  return Status::Ok();
}

}  // namespace engram::io
