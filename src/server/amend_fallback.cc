// amend_fallback: a weak stand-in for Engine::Amend, so the server links on a branch where the
// engine does not define it yet. The engine's own definition, when linked, takes precedence.
// src/server/CMakeLists.txt compiles it only while no src/engine source defines Engine::Amend.
#include "engram/engine.h"

namespace engram {

__attribute__((weak)) StatusOr<AmendResult> Engine::Amend(std::string_view, const Turn&,
                                                          std::string_view) {
  return Status::Unavailable("amend is not available in this build");
}

}  // namespace engram
