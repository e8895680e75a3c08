// Replays every seed input (corpus/<target>/) and every input that once crashed a fuzzer
// (regressions/<target>/) through its fuzz target, in the normal build: a fixed crash that
// comes back fails the test suite, not only a fuzzing run.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "engram/config.h"
#include "engram/testing/status_matchers.h"
#include "fuzz_targets.h"
#include "io/locomo.h"

#ifndef ENGRAM_DEFAULT_SOURCE_DIR
#define ENGRAM_DEFAULT_SOURCE_DIR "."
#endif

namespace engram::fuzz {
namespace {

namespace fs = std::filesystem;

fs::path FuzzDir() {
  const char* source_dir = std::getenv("ENGRAM_SOURCE_DIR");
  return fs::path(source_dir != nullptr ? source_dir : ENGRAM_DEFAULT_SOURCE_DIR) / "tests" /
         "fuzz";
}

// The files of one folder, sorted by name (missing folder: none).
std::vector<fs::path> FilesIn(const fs::path& dir) {
  std::vector<fs::path> files;
  std::error_code error;
  for (fs::directory_iterator it(dir, error), end; !error && it != end; it.increment(error)) {
    if (it->is_regular_file()) files.push_back(it->path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string ReadBytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

class FuzzReplayTest : public ::testing::TestWithParam<FuzzTarget> {};

TEST_P(FuzzReplayTest, SeedAndRegressionInputsRunCleanly) {
  const FuzzTarget& target = GetParam();
  const std::vector<fs::path> seeds = FilesIn(FuzzDir() / "corpus" / std::string(target.name));
  const std::vector<fs::path> regressions =
      FilesIn(FuzzDir() / "regressions" / std::string(target.name));
  ASSERT_FALSE(seeds.empty()) << "no seed corpus for " << target.name << " in " << FuzzDir();
  for (const std::vector<fs::path>* files : {&seeds, &regressions}) {
    for (const fs::path& file : *files) {
      SCOPED_TRACE(file.string());
      const std::string bytes = ReadBytes(file);
      // A target aborts on a broken invariant; otherwise it returns 0.
      EXPECT_EQ(target.run(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()), 0);
    }
  }
  // Every target also takes empty input.
  EXPECT_EQ(target.run(nullptr, 0), 0);
}

INSTANTIATE_TEST_SUITE_P(AllTargets, FuzzReplayTest, ::testing::ValuesIn(kFuzzTargets),
                         [](const ::testing::TestParamInfo<FuzzTarget>& param_info) {
                           return std::string(param_info.param.name);
                         });

// Found by the config fuzzer: toml++ 3.3 runs into undefined behaviour on some non-ASCII
// characters (regressions/config/toml-unreachable-whitespace-u02e2.toml), so ParseConfig refuses
// them, naming the line and the character; a \u escape inside a string still writes one.
TEST(FuzzRegressionTest, ConfigRefusesCharactersTheTomlParserMishandles) {
  using ::engram::testing::IsOk;
  using ::engram::testing::StatusIs;
  EXPECT_THAT(ParseConfig("[bm25]\nk1 = 1.2\n[bm2\xcb\xa2]\n", "x.toml"),
              StatusIs(StatusCode::kInvalidArgument,
                       ::testing::HasSubstr("x.toml:3: character U+02E2 is not supported")));
  EXPECT_THAT(ParseConfig("# caf\xc3\xa9\n", "x.toml"),
              StatusIs(StatusCode::kInvalidArgument, ::testing::HasSubstr("U+00E9")));
  StatusOr<Config> escaped = ParseConfig("[embedder]\nmodel = \"caf\\u00e9\"\n", "x.toml");
  ASSERT_THAT(escaped, IsOk());
  EXPECT_EQ(escaped->embedder.model, "caf\xc3\xa9");
  // Characters outside those ranges are untouched (U+00A0 no-break space in a comment).
  EXPECT_THAT(ParseConfig("# a\xc2\xa0"
                          "b\n[bm25]\nk1 = 1.0\n",
                          "x.toml"),
              IsOk());
}

// Found by the LoCoMo fuzzer (regressions/locomo/session-number-leading-zero.json): a session
// key with a leading zero ("session_05") was read as session 5 and then looked up as
// "session_5", a key that does not exist (a use after free). Such keys are not sessions.
TEST(FuzzRegressionTest, LocomoSessionKeyWithLeadingZeroIsNotASession) {
  StatusOr<std::vector<io::LocomoConversation>> parsed = io::ParseLocomo(
      R"([{"sample_id": "c1", "conversation": {
            "session_05": [{"speaker": "Ann", "dia_id": "D5:1", "text": "Hi."}],
            "session_6": [{"speaker": "Bob", "dia_id": "D6:1", "text": "Hello."}]}}])",
      "x.json");
  ASSERT_THAT(parsed, ::engram::testing::IsOk());
  ASSERT_EQ(parsed->size(), 1u);
  ASSERT_EQ((*parsed)[0].turns.size(), 1u);
  EXPECT_EQ((*parsed)[0].turns[0].text, "Hello.");
}

}  // namespace
}  // namespace engram::fuzz
