// Where engram keeps its data files (sentence-encoder model, lexicons).
#ifndef ENGRAM_CORE_PATHS_H_
#define ENGRAM_CORE_PATHS_H_

#include <string>
#include <string_view>

namespace engram::core {

// `configured` when non-empty; else $ENGRAM_DATA_DIR; else $XDG_DATA_HOME/engram; else
// $HOME/.local/share/engram; else ".engram-data". scripts/setup installs into the same place.
std::string ResolveDataDir(std::string_view configured);

}  // namespace engram::core

#endif  // ENGRAM_CORE_PATHS_H_
