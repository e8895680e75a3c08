// Fuzz target of the configuration loader (src/config/config.cc ParseConfig): TOML text in,
// a validated Config or an error naming the problem out.
#include "engram/config.h"
#include "fuzz_targets.h"

namespace engram::fuzz {

int FuzzConfig(const std::uint8_t* data, std::size_t size) {
  StatusOr<Config> config = ParseConfig(AsText(data, size), "fuzz.toml");
  if (config.ok()) {
    // What the loader accepts, the engine accepts: it never returns an out-of-range value.
    FUZZ_CHECK(config->Validate().ok());
  } else {
    FUZZ_CHECK(!config.status().message().empty());
  }
  return 0;
}

}  // namespace engram::fuzz
