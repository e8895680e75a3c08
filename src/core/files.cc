// ReadWholeFile (see files.h).
#include "core/files.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>
#include <utility>

namespace engram::core {

StatusOr<std::string> ReadWholeFile(const std::string& path, std::string_view what) {
  const std::string named = std::string(what) + " " + path;
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) {
    return Status::NotFound(named + " is missing");
  }
  std::ifstream stream(path, std::ios::binary);
  if (!stream) return Status::Unavailable("cannot open " + named);
  std::ostringstream contents;
  contents << stream.rdbuf();
  if (stream.bad()) return Status::Unavailable("cannot read " + named);
  return std::move(contents).str();
}

}  // namespace engram::core
