// Reading a whole file into memory, with errors that name the file: the one implementation
// behind the lexicon loader, the sentence-encoder model loader and the API keys file.
//
//   ASSIGN_OR_RETURN(const std::string text, core::ReadWholeFile(path, "lexicon file"));
//
// Thread-safety: a pure function of the file system.
#ifndef ENGRAM_CORE_FILES_H_
#define ENGRAM_CORE_FILES_H_

#include <string>
#include <string_view>

#include "engram/status.h"

namespace engram::core {

// The bytes of the regular file at `path`. kNotFound "<what> <path> is missing" when there is no
// regular file there; kUnavailable "cannot open <what> <path>" / "cannot read <what> <path>" when
// it exists but cannot be read.
StatusOr<std::string> ReadWholeFile(const std::string& path, std::string_view what);

}  // namespace engram::core

#endif  // ENGRAM_CORE_FILES_H_
