// file_writer: writing a whole output file, zstd-compressed when its name ends in ".zst".
#ifndef ENGRAM_IO_FILE_WRITER_H_
#define ENGRAM_IO_FILE_WRITER_H_

#include <string_view>

#include "engram/status.h"

namespace engram::io {

// Writes `bytes` to `path` through a temporary file in the same directory renamed over it, so a
// reader never sees half a file; a name ending in ".zst" gets one zstd frame (level 3, the same
// bytes for the same input). Errors name the file.
Status WriteFile(std::string_view path, std::string_view bytes);

}  // namespace engram::io

#endif  // ENGRAM_IO_FILE_WRITER_H_
