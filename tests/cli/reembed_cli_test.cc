// End-to-end test of `engram reembed`: a store written with one embedder is refused under another
// (naming both and the command), reembed migrates it with progress on stderr, a second run is a
// no-op with the same outcome, and the store then opens normally.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "engram/testing/temp_dir.h"
#include "shell_runner.h"

namespace engram {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

using Output = testing::ShellOutput;
using testing::RunCli;

class ReembedCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = "--store '" + Path("engram.db") + "' ";
    std::ofstream(Path("wide.toml")) << "[embedder]\nkind = \"hashing\"\n";
    std::ofstream(Path("narrow.toml")) << "[embedder]\nkind = \"hashing\"\nhashing_dimension = 64\n";
    std::ofstream(Path("turns.jsonl"))
        << R"({"speaker": "Mia", "text": "The dentist moved my appointment to Tuesday."})" << "\n"
        << R"({"speaker": "Sam", "text": "The bakery on the corner sells rye bread."})" << "\n"
        << R"({"speaker": "Mia", "text": "Our team won the chess tournament."})" << "\n";
    const Output ingest = RunCli(store_ + "--quiet --config '" + Path("wide.toml") +
                                 "' ingest --scope user:mia '" + Path("turns.jsonl") + "'");
    ASSERT_EQ(ingest.exit_code, 0) << ingest.out;
  }

  std::string Path(const std::string& name) const { return (fs::path(dir_) / name).string(); }
  std::string Narrow() const { return store_ + "--config '" + Path("narrow.toml") + "' "; }

  engram::testing::TempDir temp_dir_{"engram_reembed_cli"};
  std::string dir_ = temp_dir_.path();
  std::string store_;
};

TEST_F(ReembedCliTest, OtherEmbedderIsRefusedUntilReembedMigratesTheStore) {
  const Output refused = RunCli(Narrow() + "recall --scope user:mia 'chess'", true);
  EXPECT_EQ(refused.exit_code, 1) << refused.out;
  EXPECT_THAT(refused.out, HasSubstr("hashing-256"));
  EXPECT_THAT(refused.out, HasSubstr("hashing-64"));
  EXPECT_THAT(refused.out, HasSubstr("engram reembed"));

  const Output progress = RunCli(Narrow() + "reembed", true);
  ASSERT_EQ(progress.exit_code, 0) << progress.out;
  EXPECT_THAT(progress.out, HasSubstr("reembed: 3/3 turns"));
  EXPECT_THAT(progress.out, HasSubstr("re-embedded 3 turn(s) with hashing-64 (was hashing-256)"));

  // Idempotent: a second run re-embeds the same turns into the same space.
  const Output again = RunCli(Narrow() + "--json reembed");
  ASSERT_EQ(again.exit_code, 0) << again.out;
  const nlohmann::json json = nlohmann::json::parse(again.out, nullptr, false);
  ASSERT_TRUE(json.is_object()) << again.out;
  EXPECT_EQ(json["previous_model"], "hashing-64");
  EXPECT_EQ(json["model"], "hashing-64");
  EXPECT_EQ(json["dimension"], 64);
  EXPECT_EQ(json["turns"], 3);

  const Output recall = RunCli(Narrow() + "--json recall --scope user:mia 'chess tournament'");
  ASSERT_EQ(recall.exit_code, 0) << recall.out;
  EXPECT_THAT(recall.out, HasSubstr("chess tournament"));
  // And the old configuration is now the refused one.
  const Output old = RunCli(store_ + "--config '" + Path("wide.toml") + "' list --scope user:mia");
  EXPECT_EQ(old.exit_code, 1);
}

TEST_F(ReembedCliTest, MissingStoreIsNotFound) {
  const Output missing =
      RunCli("--store '" + Path("nothing-here.db") + "' reembed", true);
  EXPECT_EQ(missing.exit_code, 3) << missing.out;
  EXPECT_FALSE(fs::exists(Path("nothing-here.db")));
}

}  // namespace
}  // namespace engram
