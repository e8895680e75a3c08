// file_reader: how engram's importers and the CLI read input files.
//
// Reads a whole file or streams it line by line. Files compressed with zstd are decompressed on the
// fly with libzstd's streaming API, recognised by their ".zst" extension or by the zstd magic
// number, so `engram ingest turns.jsonl.zst` and `engram ingest - < turns.jsonl.zst` both work.
// The path "-" means standard input.
//
//   ASSIGN_OR_RETURN(std::string text, engram::io::ReadFile("locomo.json"));
//
//   ASSIGN_OR_RETURN(auto reader, engram::io::LineReader::Open("turns.jsonl.zst"));
//   std::string line;
//   while (true) {
//     ASSIGN_OR_RETURN(bool got_line, reader->Next(&line));
//     if (!got_line) break;
//     ... reader->line_number() ...
//   }
//
// Errors name the file: a missing file is kNotFound, a damaged or truncated zstd stream is
// kCorruption, an input over the size limit is kResourceExhausted, any other read failure is
// kUnavailable.
#ifndef ENGRAM_IO_FILE_READER_H_
#define ENGRAM_IO_FILE_READER_H_

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "engram/status.h"

namespace engram::io {

// The path that means standard input.
inline constexpr std::string_view kStdinPath = "-";

// True when `bytes` starts with the zstd frame magic number (28 B5 2F FD).
bool HasZstdMagic(std::string_view bytes);

// How `path` is named in messages: the path itself, or "<stdin>" for "-".
std::string DisplayName(std::string_view path);

struct ReadOptions {
  // Largest (decompressed) input accepted; a larger one is kResourceExhausted. Default: 1 GiB.
  std::size_t max_bytes = std::size_t{1} << 30;
};

// The whole content of `path` ("-" = stdin), decompressed when it is zstd.
StatusOr<std::string> ReadFile(std::string_view path, const ReadOptions& options = {});

class ByteSource;

// Streams the lines of a file ("-" = stdin), decompressing zstd input on the fly. A line ends at
// '\n'; the '\n' and a '\r' before it are removed, and so is a UTF-8 byte-order mark at the start
// of the input. The last line needs no '\n'.
//
// Not thread-safe: one reader per thread.
class LineReader {
 public:
  struct Options {
    // Longest line accepted; a longer one is kResourceExhausted naming its line. Default: 64 MiB.
    std::size_t max_line_bytes = std::size_t{64} << 20;
  };

  static StatusOr<std::unique_ptr<LineReader>> Open(std::string_view path, Options options);
  static StatusOr<std::unique_ptr<LineReader>> Open(std::string_view path) {
    return Open(path, Options());
  }
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  // Reads the next line into *line. Returns true when a line was read, false at the end of the
  // input (and leaves *line empty).
  StatusOr<bool> Next(std::string* line);

  // 1-based number of the line Next last returned (0 before the first).
  std::size_t line_number() const { return line_number_; }
  // The file's name for messages (see DisplayName).
  const std::string& name() const { return name_; }

 private:
  LineReader(std::unique_ptr<ByteSource> source, std::string name, Options options);
  Status Fill();

  std::unique_ptr<ByteSource> source_;
  std::string name_;
  Options options_;
  std::string buffer_;  // bytes read but not yet returned, from buffer_pos_ on
  std::size_t buffer_pos_ = 0;
  bool eof_ = false;
  std::size_t line_number_ = 0;
};

}  // namespace engram::io

#endif  // ENGRAM_IO_FILE_READER_H_
