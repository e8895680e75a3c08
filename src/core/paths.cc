// Data directory resolution (see paths.h).
#include "core/paths.h"

#include <cstdlib>

namespace engram::core {

std::string ResolveDataDir(std::string_view configured) {
  if (!configured.empty()) return std::string(configured);
  if (const char* dir = std::getenv("ENGRAM_DATA_DIR"); dir != nullptr && *dir != '\0') return dir;
  if (const char* xdg = std::getenv("XDG_DATA_HOME"); xdg != nullptr && *xdg != '\0') {
    return std::string(xdg) + "/engram";
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    return std::string(home) + "/.local/share/engram";
  }
  return ".engram-data";
}

}  // namespace engram::core
