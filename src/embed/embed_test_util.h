// Test helpers shared by engram_embed_test: where the golden file and the installed model are.
#ifndef ENGRAM_EMBED_EMBED_TEST_UTIL_H_
#define ENGRAM_EMBED_EMBED_TEST_UTIL_H_

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "core/paths.h"
#include "embed/use_lite.h"

namespace engram::embed::testing {

// One sentence of tests/golden/use_lite_vectors.json (written by tools/use_reference).
struct GoldenCase {
  std::string text;
  std::vector<std::int32_t> token_ids;
  std::vector<float> vector;
};

inline std::string SourceDir() {
  if (const char* dir = std::getenv("ENGRAM_SOURCE_DIR"); dir != nullptr && *dir != '\0') {
    return dir;
  }
  return ENGRAM_DEFAULT_SOURCE_DIR;
}

inline std::string GoldenPath() { return SourceDir() + "/tests/golden/use_lite_vectors.json"; }

// Empty when the file is missing or unreadable (the caller's ASSERT reports it).
inline std::vector<GoldenCase> LoadGoldenCases() {
  std::ifstream stream(GoldenPath());
  if (!stream) return {};
  std::stringstream contents;
  contents << stream.rdbuf();
  const nlohmann::json golden = nlohmann::json::parse(contents.str(), nullptr, false);
  if (!golden.is_object() || !golden.contains("cases")) return {};
  std::vector<GoldenCase> cases;
  for (const nlohmann::json& item : golden["cases"]) {
    cases.push_back({item["text"].get<std::string>(),
                     item["token_ids"].get<std::vector<std::int32_t>>(),
                     item["vector"].get<std::vector<float>>()});
  }
  return cases;
}

// The model directory the engine would use: <data dir>/models/use-lite.
inline std::string InstalledModelDir() { return UseLiteModelDir(core::ResolveDataDir("")); }

inline constexpr char kInstallHint[] =
    "The USE-lite model is missing or damaged. Run scripts/setup (or scripts/fetch-models) first; it "
    "installs the model into $ENGRAM_DATA_DIR, $XDG_DATA_HOME/engram or "
    "~/.local/share/engram under models/use-lite.";

}  // namespace engram::embed::testing

#endif  // ENGRAM_EMBED_EMBED_TEST_UTIL_H_
