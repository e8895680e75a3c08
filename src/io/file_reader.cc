// file_reader: plain and zstd-compressed input files and stdin, read whole or line by line.
#include "io/file_reader.h"

#include <sys/stat.h>
#include <zstd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>
#include <vector>

namespace engram::io {

// A stream of bytes: a file, stdin, or a decoder over another source.
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Reads up to `capacity` bytes into `out`; 0 means the end of the input.
  virtual StatusOr<std::size_t> Read(char* out, std::size_t capacity) = 0;
};

namespace {

constexpr std::size_t kChunkBytes = 256 * 1024;
constexpr unsigned char kZstdMagic[4] = {0x28, 0xB5, 0x2F, 0xFD};

std::string ErrnoText(int error) { return std::strerror(error); }

class FileSource final : public ByteSource {
 public:
  FileSource(std::FILE* file, bool owned, std::string name)
      : file_(file), owned_(owned), name_(std::move(name)) {}
  ~FileSource() override {
    if (owned_) std::fclose(file_);
  }
  FileSource(const FileSource&) = delete;
  FileSource& operator=(const FileSource&) = delete;

  static StatusOr<std::unique_ptr<ByteSource>> Open(std::string_view path) {
    const std::string name = DisplayName(path);
    if (path == kStdinPath) return std::make_unique<FileSource>(stdin, false, name);
    if (path.empty()) return Status::InvalidArgument("empty file name");
    const std::string path_string(path);
    struct stat info {};
    if (::stat(path_string.c_str(), &info) != 0) {
      const int error = errno;
      if (error == ENOENT || error == ENOTDIR) {
        return Status::NotFound(name + ": no such file");
      }
      return Status::Unavailable(name + ": cannot open: " + ErrnoText(error));
    }
    if (S_ISDIR(info.st_mode))
      return Status::InvalidArgument(name + ": is a directory, not a file");
    std::FILE* file = std::fopen(path_string.c_str(), "rb");
    if (file == nullptr) {
      return Status::Unavailable(name + ": cannot open: " + ErrnoText(errno));
    }
    return std::make_unique<FileSource>(file, true, name);
  }

  StatusOr<std::size_t> Read(char* out, std::size_t capacity) override {
    const std::size_t got = std::fread(out, 1, capacity, file_);
    if (got == 0 && std::ferror(file_)) {
      return Status::Unavailable(name_ + ": read failed: " + ErrnoText(errno));
    }
    return got;
  }

 private:
  std::FILE* file_;
  bool owned_;
  std::string name_;
};

// Replays bytes that were read ahead (to sniff the format), then continues with the source.
class PrefixSource final : public ByteSource {
 public:
  PrefixSource(std::string prefix, std::unique_ptr<ByteSource> source)
      : prefix_(std::move(prefix)), source_(std::move(source)) {}

  StatusOr<std::size_t> Read(char* out, std::size_t capacity) override {
    if (prefix_pos_ < prefix_.size()) {
      const std::size_t count = std::min(capacity, prefix_.size() - prefix_pos_);
      std::memcpy(out, prefix_.data() + prefix_pos_, count);
      prefix_pos_ += count;
      return count;
    }
    return source_->Read(out, capacity);
  }

 private:
  std::string prefix_;
  std::size_t prefix_pos_ = 0;
  std::unique_ptr<ByteSource> source_;
};

// Decompresses a zstd stream (one or more frames) with libzstd's streaming API.
class ZstdSource final : public ByteSource {
 public:
  ZstdSource(std::unique_ptr<ByteSource> compressed, std::string name)
      : compressed_(std::move(compressed)),
        name_(std::move(name)),
        context_(ZSTD_createDCtx()),
        input_buffer_(ZSTD_DStreamInSize()) {}
  ~ZstdSource() override { ZSTD_freeDCtx(context_); }
  ZstdSource(const ZstdSource&) = delete;
  ZstdSource& operator=(const ZstdSource&) = delete;

  StatusOr<std::size_t> Read(char* out, std::size_t capacity) override {
    if (context_ == nullptr) {
      return Status::ResourceExhausted(name_ + ": cannot allocate a zstd decoder");
    }
    ZSTD_outBuffer output{out, capacity, 0};
    while (output.pos < output.size) {
      if (input_.pos == input_.size && !flush_pending_) {
        if (compressed_eof_) break;
        ASSIGN_OR_RETURN(const std::size_t got,
                         compressed_->Read(input_buffer_.data(), input_buffer_.size()));
        if (got == 0) {
          compressed_eof_ = true;
          break;
        }
        input_ = ZSTD_inBuffer{input_buffer_.data(), got, 0};
      }
      const std::size_t result = ZSTD_decompressStream(context_, &output, &input_);
      if (ZSTD_isError(result)) {
        return Status::Corruption(name_ + ": corrupt zstd data (" + ZSTD_getErrorName(result) +
                                  ")");
      }
      // 0 means the current frame is complete and fully flushed.
      frame_open_ = result != 0;
      // A full output buffer may leave decoded bytes inside the decoder.
      flush_pending_ = output.pos == output.size;
      // Hand back what we have instead of waiting for more input.
      if (output.pos > 0 && input_.pos == input_.size && !flush_pending_) break;
    }
    if (output.pos == 0 && compressed_eof_ && frame_open_) {
      return Status::Corruption(name_ + ": truncated zstd stream (the input ends inside a frame)");
    }
    return output.pos;
  }

 private:
  std::unique_ptr<ByteSource> compressed_;
  std::string name_;
  ZSTD_DCtx* context_;
  std::vector<char> input_buffer_;
  ZSTD_inBuffer input_{nullptr, 0, 0};
  bool compressed_eof_ = false;
  bool frame_open_ = false;
  bool flush_pending_ = false;
};

bool EndsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

// Opens `path` and wraps it in a zstd decoder when the name or the first bytes say so.
StatusOr<std::unique_ptr<ByteSource>> OpenSource(std::string_view path) {
  const std::string name = DisplayName(path);
  ASSIGN_OR_RETURN(std::unique_ptr<ByteSource> file, FileSource::Open(path));
  std::string head(sizeof(kZstdMagic), '\0');
  std::size_t head_size = 0;
  while (head_size < head.size()) {
    ASSIGN_OR_RETURN(const std::size_t got,
                     file->Read(head.data() + head_size, head.size() - head_size));
    if (got == 0) break;
    head_size += got;
  }
  head.resize(head_size);
  const bool zstd = HasZstdMagic(head);
  if (!zstd && EndsWith(path, ".zst")) {
    return Status::Corruption(name +
                              ": not a zstd stream (a .zst file must start with the zstd magic "
                              "number 28 B5 2F FD)");
  }
  std::unique_ptr<ByteSource> source =
      std::make_unique<PrefixSource>(std::move(head), std::move(file));
  if (zstd) source = std::make_unique<ZstdSource>(std::move(source), name);
  return source;
}

}  // namespace

bool HasZstdMagic(std::string_view bytes) {
  if (bytes.size() < sizeof(kZstdMagic)) return false;
  for (std::size_t byte_idx = 0; byte_idx < sizeof(kZstdMagic); ++byte_idx) {
    if (static_cast<unsigned char>(bytes[byte_idx]) != kZstdMagic[byte_idx]) return false;
  }
  return true;
}

std::string DisplayName(std::string_view path) {
  if (path == kStdinPath) return "<stdin>";
  return std::string(path);
}

StatusOr<std::string> ReadFile(std::string_view path, const ReadOptions& options) {
  ASSIGN_OR_RETURN(std::unique_ptr<ByteSource> source, OpenSource(path));
  std::string content;
  while (true) {
    const std::size_t old_size = content.size();
    content.resize(old_size + kChunkBytes);
    ASSIGN_OR_RETURN(const std::size_t got, source->Read(content.data() + old_size, kChunkBytes));
    content.resize(old_size + got);
    if (got == 0) break;
    if (content.size() > options.max_bytes) {
      return Status::ResourceExhausted(DisplayName(path) + ": larger than the limit of " +
                                       std::to_string(options.max_bytes) + " bytes");
    }
  }
  return content;
}

LineReader::LineReader(std::unique_ptr<ByteSource> source, std::string name, Options options)
    : source_(std::move(source)), name_(std::move(name)), options_(options) {}

LineReader::~LineReader() = default;

StatusOr<std::unique_ptr<LineReader>> LineReader::Open(std::string_view path, Options options) {
  ASSIGN_OR_RETURN(std::unique_ptr<ByteSource> source, OpenSource(path));
  return std::unique_ptr<LineReader>(new LineReader(std::move(source), DisplayName(path), options));
}

Status LineReader::Fill() {
  if (buffer_pos_ > 0) {
    buffer_.erase(0, buffer_pos_);
    buffer_pos_ = 0;
  }
  const std::size_t old_size = buffer_.size();
  buffer_.resize(old_size + kChunkBytes);
  StatusOr<std::size_t> got = source_->Read(buffer_.data() + old_size, kChunkBytes);
  if (!got.ok()) {
    buffer_.resize(old_size);
    return got.status();
  }
  buffer_.resize(old_size + *got);
  if (*got == 0) eof_ = true;
  return Status::Ok();
}

StatusOr<bool> LineReader::Next(std::string* line) {
  line->clear();
  std::size_t scanned = 0;  // bytes after buffer_pos_ known to hold no '\n'
  while (true) {
    const std::size_t newline = buffer_.find('\n', buffer_pos_ + scanned);
    if (newline != std::string::npos) {
      line->assign(buffer_, buffer_pos_, newline - buffer_pos_);
      buffer_pos_ = newline + 1;
      break;
    }
    scanned = buffer_.size() - buffer_pos_;
    if (scanned > options_.max_line_bytes + 1) {
      return Status::ResourceExhausted(name_ + " line " + std::to_string(line_number_ + 1) +
                                       ": longer than the limit of " +
                                       std::to_string(options_.max_line_bytes) + " bytes");
    }
    if (eof_) {
      if (scanned == 0) return false;
      line->assign(buffer_, buffer_pos_, scanned);
      buffer_pos_ = buffer_.size();
      break;
    }
    RETURN_IF_ERROR(Fill());
  }
  ++line_number_;
  if (line_number_ == 1 && line->compare(0, 3, "\xEF\xBB\xBF") == 0) line->erase(0, 3);
  if (!line->empty() && line->back() == '\r') line->pop_back();
  if (line->size() > options_.max_line_bytes) {
    return Status::ResourceExhausted(name_ + " line " + std::to_string(line_number_) +
                                     ": longer than the limit of " +
                                     std::to_string(options_.max_line_bytes) + " bytes");
  }
  return true;
}

}  // namespace engram::io
