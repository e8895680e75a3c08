// Graph invariants under random operation sequences (issue 23): a short seeded run checked after
// every few ops, determinism of the store across two runs of one seed, the kept regressions
// (regressions/*.ops) replayed, and the op text form and shrinker the long runs rely on.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "graph_check.h"
#include "graph_ops.h"

namespace engram::property {
namespace {

using ::testing::HasSubstr;

std::vector<Op> Generate(std::uint64_t seed, std::size_t count) {
  OpGenerator generator(seed);
  std::vector<Op> ops;
  for (std::size_t op_idx = 0; op_idx < count; ++op_idx) ops.push_back(generator.Next());
  return ops;
}

// The violations, and a shrunk reproduction of the first, as failure text.
std::string Report(const std::vector<Op>& ops, const RunResult& result) {
  std::string out;
  for (std::size_t idx = 0; idx < result.violations.size() && idx < 10; ++idx) {
    out += Describe(result.violations[idx]) + "\n";
  }
  if (result.violations.size() > 10) {
    out += "... and " + std::to_string(result.violations.size() - 10) + " more\n";
  }
  if (result.violations.empty()) return out;
  const Violation& first = result.violations.front();
  const std::vector<Op> failing(ops.begin(), ops.begin() + first.op_index + 1);
  const std::vector<Op> shrunk = Shrink(failing, first.invariant, /*max_replays=*/60);
  return out + "reproduction (" + std::to_string(shrunk.size()) + " ops; keep it in " +
         "tests/property/regressions/):\n# invariant: " + first.invariant + "\n" +
         FormatOps(shrunk);
}

// How many ops the short run makes: 1,500, the store-wide invariants checked every 10 (about 6 s
// of CPU; docs/RELIABILITY.md); ENGRAM_GRAPH_OPS overrides it for a local, longer run.
std::size_t ShortRunOps() {
  if (const char* env = std::getenv("ENGRAM_GRAPH_OPS"); env != nullptr) {
    return static_cast<std::size_t>(std::strtoull(env, nullptr, 10));
  }
  return 1500;
}

TEST(GraphPropertyTest, ShortRunHoldsEveryInvariant) {
  const std::vector<Op> ops = Generate(/*seed=*/23, ShortRunOps());
  const RunResult result = RunOps(ops, {.check_every = 10, .stop_at_first = true});
  ASSERT_TRUE(result.violations.empty()) << Report(ops, result);
  EXPECT_EQ(result.stats.ops_run, ops.size());
  // The run exercised every kind of op and the engine's refusals (not only the happy path).
  for (const char* name : {"remember", "retire", "retire_all", "erase", "propose", "accept",
                           "reject", "rebuild", "amend", "recall", "recall_as_of", "reopen"}) {
    EXPECT_GT(result.stats.op_counts.count(name), 0u) << name;
  }
  bool refused_cross_scope = false;
  for (const auto& [why, count] : result.stats.expected_refusals) {
    if (why.find("across unrelated scopes") != std::string::npos) refused_cross_scope = true;
  }
  EXPECT_TRUE(refused_cross_scope);
}

TEST(GraphPropertyTest, SameSeedGivesByteIdenticalStores) {
  const std::vector<Op> ops = Generate(/*seed=*/7, 400);
  const RunResult first = RunOps(ops, {.check_every = 0});
  const RunResult second = RunOps(ops, {.check_every = 0});
  ASSERT_TRUE(first.violations.empty()) << Report(ops, first);
  EXPECT_THAT(first.dump, HasSubstr("== nodes"));
  EXPECT_EQ(first.dump, second.dump) << "invariant determinism violated: two runs of seed 7 "
                                        "gave different stores";
  const RunResult other = RunOps(Generate(/*seed=*/8, 400), {.check_every = 0});
  EXPECT_NE(first.dump, other.dump);
}

TEST(GraphPropertyTest, KeptRegressionsReplayWithoutViolations) {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(ENGRAM_GRAPH_REGRESSIONS_DIR)) {
    if (entry.path().extension() == ".ops") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  ASSERT_FALSE(files.empty());
  for (const std::filesystem::path& file : files) {
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    const StatusOr<std::vector<Op>> ops = ParseOps(text.str());
    ASSERT_TRUE(ops.ok()) << file << ": " << ops.status();
    ASSERT_FALSE(ops->empty()) << file;
    const RunResult result = RunOps(*ops, {.check_every = 1, .stop_at_first = false});
    std::string failures;
    for (const Violation& violation : result.violations) failures += Describe(violation) + "\n";
    EXPECT_TRUE(result.violations.empty()) << file.filename() << ":\n" << failures;
  }
}

TEST(GraphPropertyTest, OpsSurviveTheirTextForm) {
  const std::vector<Op> ops = Generate(/*seed=*/3, 300);
  const std::string text = FormatOps(ops);
  const StatusOr<std::vector<Op>> parsed = ParseOps(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(FormatOps(*parsed), text);
  EXPECT_THAT(text, HasSubstr("  turn 2024-"));
}

TEST(GraphPropertyTest, BadOpTextIsRefusedNamingTheLine) {
  const StatusOr<std::vector<Op>> unknown = ParseOps("rebuild\n# note\nfly user:a\n");
  ASSERT_FALSE(unknown.ok());
  EXPECT_THAT(unknown.status().message(), HasSubstr("line 3: unknown op"));
  const StatusOr<std::vector<Op>> orphan = ParseOps("  turn - user Ana: hello\n");
  ASSERT_FALSE(orphan.ok());
  EXPECT_THAT(orphan.status().message(), HasSubstr("line 1: a turn outside a remember"));
  const StatusOr<std::vector<Op>> pick = ParseOps("retire twelve\n");
  ASSERT_FALSE(pick.ok());
  EXPECT_THAT(pick.status().message(), HasSubstr("bad pick"));
  const StatusOr<std::vector<Op>> time =
      ParseOps("recall_as_of user:a retired=0 nested=1 valid_at=April known_at=-: Where?\n");
  ASSERT_FALSE(time.ok());
  EXPECT_THAT(time.status().message(), HasSubstr("line 1: bad valid_at time"));
}

TEST(GraphPropertyTest, ShrinkerCutsAFailureDownToTheOpsThatCause) {
  // A stand-in failure: an erase of user:b followed later by a recall in user:b.
  const FailingOp failing = [](const std::vector<Op>& ops) -> std::optional<std::size_t> {
    bool erased = false;
    for (std::size_t op_idx = 0; op_idx < ops.size(); ++op_idx) {
      if (ops[op_idx].kind == OpKind::kErase && ops[op_idx].scope == "user:b") erased = true;
      if (erased && ops[op_idx].kind == OpKind::kRecall && ops[op_idx].scope == "user:b") {
        return op_idx;
      }
    }
    return std::nullopt;
  };
  std::vector<Op> ops = Generate(/*seed=*/11, 2000);
  ASSERT_TRUE(failing(ops).has_value());
  const std::vector<Op> shrunk = ShrinkWith(ops, failing, /*max_replays=*/2000);
  ASSERT_EQ(shrunk.size(), 2u) << FormatOps(shrunk);
  EXPECT_EQ(shrunk[0].kind, OpKind::kErase);
  EXPECT_EQ(shrunk[1].kind, OpKind::kRecall);
}

}  // namespace
}  // namespace engram::property
