// A fresh directory for one test, removed with everything in it when the object goes away: the
// one temporary-directory fixture of engram's test suites.
//
//   engram::testing::TempDir dir("engram_io_test");        // /tmp/engram_io_test_Ab12Cd
//   options.store_path = dir.File("engram.db");             // a path inside it
//   const std::string input = dir.File("turns.jsonl", "{\"text\": \"hi\"}\n");  // written
//
// As a fixture member, declare it before anything that uses its path. A test that takes the owner's
// permissions away from the directory gets them back before removal. Creation failing (no writable
// temporary directory) aborts: no test can run without it.
#ifndef ENGRAM_TESTING_TEMP_DIR_H_
#define ENGRAM_TESTING_TEMP_DIR_H_

#include <stdlib.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <system_error>

namespace engram::testing {

class TempDir {
 public:
  explicit TempDir(std::string_view prefix = "engram_test") {
    std::string pattern =
        (std::filesystem::temp_directory_path() / (std::string(prefix) + "_XXXXXX")).string();
    if (::mkdtemp(pattern.data()) == nullptr) {
      std::perror("engram::testing::TempDir: mkdtemp");
      std::abort();
    }
    path_ = std::move(pattern);
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::permissions(path_, std::filesystem::perms::owner_all,
                                 std::filesystem::perm_options::add, ignored);
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }

  // The path of `name` inside the directory (nothing is created).
  std::string File(std::string_view name) const {
    return (std::filesystem::path(path_) / name).string();
  }

  // Writes `content` to `name` inside the directory (bytes as given) and returns its path.
  std::string File(std::string_view name, std::string_view content) const {
    const std::string path = File(name);
    std::ofstream out(path, std::ios::binary);
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    return path;
  }

 private:
  std::string path_;
};

}  // namespace engram::testing

#endif  // ENGRAM_TESTING_TEMP_DIR_H_
