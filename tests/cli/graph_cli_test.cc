// End-to-end test of `engram graph` through the built binary: Mia's turns about her sister Lena,
// a client "owns" edge (single-valued, declared in the --config file's [graph] edge_types) added
// twice so the second supersedes the first, and the queries as of the first edge's time and now;
// bad input (malformed ids, unknown types, too deep a path, an undeclared type) exits 2 or 1 with
// a message naming the problem, and an edge to another user's memory is "not found" (exit 3).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engram/testing/temp_dir.h"
#include "shell_runner.h"

namespace engram {
namespace {

namespace fs = std::filesystem;

using Output = testing::ShellOutput;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::RunCli;

class GraphCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string config = (fs::path(dir_) / "engram.toml").string();
    std::ofstream(config) << "[embedder]\nkind = \"none\"\n\n[graph]\n"
                          << "edge_types = \"owns:single_valued, knows\"\n";
    base_ = "--store '" + (fs::path(dir_) / "engram.db").string() + "' --config '" + config + "' ";
    Ingest(
        "user:mia", "mia.jsonl",
        R"({"speaker": "Mia", "session_id": "s1", "text": "My sister Lena lives in Porto.", "event_time": "2024-03-10T09:00:00Z"}
{"speaker": "Mia", "session_id": "s1", "text": "I sold my old bicycle last week.", "event_time": "2024-03-10T09:01:00Z"}
{"speaker": "Mia", "session_id": "s1", "text": "The blue car needs new tyres.", "event_time": "2024-03-10T09:02:00Z"})");
    Ingest("user:bob", "bob.jsonl", R"({"speaker": "Bob", "text": "Bob likes chess."})");
    const nlohmann::json turns = Json("list --scope user:mia");
    for (const nlohmann::json& memory : turns["memories"]) turns_.push_back(memory["id"]);
    ASSERT_EQ(turns_.size(), 3u);
    const nlohmann::json entities = Json("entities --scope user:mia");
    for (const nlohmann::json& entity : entities["entities"]) {
      if (entity["name"] == "Lena") lena_ = entity["id"];
    }
    ASSERT_FALSE(lena_.empty());
    bob_ = Json("list --scope user:bob")["memories"][0]["id"];
  }

  void Ingest(const std::string& scope, const std::string& name, const std::string& lines) {
    const std::string input = (fs::path(dir_) / name).string();
    std::ofstream(input) << lines << "\n";
    const Output ingest = RunCli(base_ + "--quiet ingest --scope " + scope + " '" + input + "'");
    ASSERT_EQ(ingest.exit_code, 0) << ingest.out;
  }

  nlohmann::json Json(const std::string& args) {
    const Output output = RunCli(base_ + "--json " + args);
    EXPECT_EQ(output.exit_code, 0) << args << "\n" << output.out;
    return nlohmann::json::parse(output.out, nullptr, /*allow_exceptions=*/false);
  }

  // Ids at the other end of `graph neighbours` with these flags.
  std::vector<std::string> Owned(const std::string& flags) {
    const nlohmann::json result =
        Json("graph neighbours " + lena_ + " --types owns --direction out " + flags);
    std::vector<std::string> ids;
    for (const nlohmann::json& neighbour : result["neighbours"]) {
      ids.push_back(neighbour["node"]["id"]);
    }
    return ids;
  }

  engram::testing::TempDir temp_dir_{"engram_graph_cli"};
  std::string dir_ = temp_dir_.path();
  std::string base_;
  std::vector<std::string> turns_;
  std::string lena_;
  std::string bob_;
};

TEST_F(GraphCliTest, SingleValuedEdgeAnswersAsOfItsTime) {
  const nlohmann::json bicycle = Json("graph add-edge --scope user:mia --type owns " + lena_ + " " +
                                      turns_[1] + " --attrs '{\"note\": \"hers\"}'");
  EXPECT_EQ(bicycle["type"], "owns");
  EXPECT_EQ(bicycle["status"], "active");
  EXPECT_EQ(bicycle["attrs"]["note"], "hers");
  const std::string first_added = bicycle["ingested_at"];
  const nlohmann::json car =
      Json("graph add-edge --scope user:mia --type owns " + lena_ + " " + turns_[2]);
  EXPECT_THAT(Owned(""), ElementsAre(turns_[2]));
  EXPECT_THAT(Owned("--valid-at " + first_added), ElementsAre(turns_[1]));
  EXPECT_THAT(Owned("--known-at " + first_added), ElementsAre(turns_[1]));
  EXPECT_THAT(Owned("--include-retired"), ElementsAre(turns_[1], turns_[2]));
  EXPECT_EQ(Json("graph edge " + bicycle["id"].get<std::string>())["status"], "superseded");

  const nlohmann::json retired = Json("graph retire-edge " + car["id"].get<std::string>());
  EXPECT_EQ(retired["status"], "retired");
  EXPECT_TRUE(Owned("").empty());
  // The human form names the edge.
  const Output shown = RunCli(base_ + "graph neighbours " + lena_ + " --include-retired");
  EXPECT_EQ(shown.exit_code, 0);
  EXPECT_THAT(shown.out, HasSubstr("owns"));
}

TEST_F(GraphCliTest, PathsAndIdentity) {
  ASSERT_EQ(Json("graph add-edge --scope user:mia --type knows " + lena_ + " " + turns_[1])["type"],
            "knows");
  const nlohmann::json paths =
      Json("graph paths " + turns_[0] + " " + turns_[1] + " --types mentions,knows --max-depth 2");
  ASSERT_EQ(paths["count"], 1);
  EXPECT_THAT(paths["paths"][0]["nodes"].get<std::vector<std::string>>(),
              ElementsAre(turns_[0], lena_, turns_[1]));
  const nlohmann::json identity = Json("graph identity " + lena_);
  EXPECT_EQ(identity["count"], 1);
  EXPECT_EQ(identity["members"][0]["id"], lena_);
  const nlohmann::json types = Json("graph edge-types");
  bool owns_single = false;
  for (const nlohmann::json& type : types["edge_types"]) {
    if (type["name"] == "owns") owns_single = type["single_valued"];
  }
  EXPECT_TRUE(owns_single);
}

TEST_F(GraphCliTest, BadInputNamesTheProblem) {
  const Output malformed = RunCli(base_ + "graph neighbours not-an-id", /*with_stderr=*/true);
  EXPECT_EQ(malformed.exit_code, 2);
  const Output unknown_type =
      RunCli(base_ + "graph neighbours " + lena_ + " --types no_such_type", true);
  EXPECT_EQ(unknown_type.exit_code, 1);
  EXPECT_THAT(unknown_type.out, HasSubstr("no_such_type"));
  const Output deep =
      RunCli(base_ + "graph paths " + turns_[0] + " " + turns_[1] + " --max-depth 9", true);
  EXPECT_EQ(deep.exit_code, 1);
  EXPECT_THAT(deep.out, HasSubstr("max_depth"));
  const Output empty_type = RunCli(base_ + "graph neighbours " + lena_ + " --types 'a,,b'", true);
  EXPECT_EQ(empty_type.exit_code, 2);
  const Output undeclared = RunCli(
      base_ + "graph add-edge --scope user:mia --type likes " + lena_ + " " + turns_[1], true);
  EXPECT_EQ(undeclared.exit_code, 1);
  EXPECT_THAT(undeclared.out, HasSubstr("likes"));
  const Output builtin = RunCli(
      base_ + "graph add-edge --scope user:mia --type mentions " + turns_[1] + " " + lena_, true);
  EXPECT_EQ(builtin.exit_code, 1);
  EXPECT_THAT(builtin.out, HasSubstr("engram's own"));
  const Output bad_attrs = RunCli(base_ + "graph add-edge --scope user:mia --type knows " + lena_ +
                                      " " + turns_[1] + " --attrs '[1]'",
                                  true);
  EXPECT_EQ(bad_attrs.exit_code, 1);
  EXPECT_THAT(bad_attrs.out, HasSubstr("attrs"));
  // Nothing was stored by the refused edges.
  EXPECT_EQ(Json("graph neighbours " + lena_ + " --types knows,owns")["count"], 0);
}

TEST_F(GraphCliTest, AnotherUsersMemoryIsNotFound) {
  const Output foreign =
      RunCli(base_ + "--json graph add-edge --scope user:mia --type knows " + lena_ + " " + bob_);
  EXPECT_EQ(foreign.exit_code, 3);
  const nlohmann::json error = nlohmann::json::parse(foreign.out, nullptr, false);
  EXPECT_EQ(error["error"]["code"], "NOT_FOUND");
  const Output unknown = RunCli(base_ + "--json graph neighbours " + std::string(32, 'a'));
  EXPECT_EQ(unknown.exit_code, 3);
  EXPECT_EQ(Json("graph neighbours " + lena_ + " --types knows")["count"], 0);
}

}  // namespace
}  // namespace engram
