// Engine::Context through the public API: recalled memory from the run's enclosing scope, then
// the run's active window, under one token budget; turns that leave the window stay in
// long-term memory; bad requests are clear errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "engram/engine.h"
#include "engram/testing/status_matchers.h"
#include "test_util.h"

namespace engram {
namespace {

using ::engram::testing::IsOk;
using ::engram::testing::MakeTurn;
using ::engram::testing::S;
using ::engram::testing::StatusIs;
using ::testing::HasSubstr;

class ContextTest : public ::testing::Test {
 protected:
  void SetUp() override {
    EngineOptions options = testing::TestOptions(dir_);
    options.config = Config{};
    options.config->embedder.kind = "hashing";
    engine_ = testing::OpenOrDie(options);
    // An earlier run of the same user, and the run the context is for.
    const std::vector<Turn> earlier = {
        MakeTurn("Ana", "My sister Maya lives in Porto and teaches chemistry.", "r0",
                 "2024-03-01T10:00:00Z")};
    ASSERT_THAT(engine_->Remember(S("user:ana/run:r0"), earlier).status(), IsOk());
    std::vector<Turn> turns;
    for (int i = 0; i < 60; ++i) {
      // On the run's topic: DMF's divergence term penalises a turn far from the recent
      // centroid, so a constraint after 60 off-topic turns would score below them and leave.
      turns.push_back(MakeTurn("Ana",
                               "Filler remark number " + std::to_string(i) +
                                   " about this project and the external APIs we looked at.",
                               "r1", "2024-04-01T11:00:00Z"));
    }
    turns.push_back(
        MakeTurn("Ana", "Do not use external APIs in this project.", "r1", "2024-04-01T12:00:00Z"));
    turns.push_back(MakeTurn("Ana", "ok thanks", "r1", "2024-04-01T12:01:00Z"));
    turns.push_back(MakeTurn("Ana", "The parser must finish in linear time on every input.",
                             "r1", "2024-04-01T12:02:00Z"));
    ASSERT_THAT(engine_->Remember(S("user:ana/run:r1"), turns).status(), IsOk());
  }

  StatusOr<ContextResult> Context(const std::string& query, ContextOptions options = {}) {
    return engine_->Context(S("user:ana/run:r1"), {.text = query}, options);
  }

  testing::TempDir dir_{"engram_context"};
  std::unique_ptr<Engine> engine_;
};

TEST_F(ContextTest, RecalledMemoryThenTheWindowUnderOneBudget) {
  StatusOr<ContextResult> result = Context("Where does Maya live?");
  ASSERT_THAT(result.status(), IsOk());
  EXPECT_EQ(result->run, "user:ana/run:r1");
  EXPECT_EQ(result->recalled_from, "user:ana");
  EXPECT_EQ(result->token_budget, 6096u);   // [active] context_tokens
  EXPECT_EQ(result->window_budget, 4096u);  // [active] window_tokens
  EXPECT_EQ(result->run_turns, 63u);
  // The earlier run's turn is recalled; the recalled section comes first.
  ASSERT_FALSE(result->recalled.items.empty());
  bool porto = false;
  for (const RecallItem& item : result->recalled.items) {
    porto |= item.text.find("Porto") != std::string::npos;
  }
  EXPECT_TRUE(porto);
  const std::size_t recalled_at = result->context.find("=== LONG-TERM MEMORY (RECALLED) ===");
  const std::size_t active_at = result->context.find("=== ACTIVE CONVERSATION ===");
  ASSERT_NE(recalled_at, std::string::npos);
  ASSERT_NE(active_at, std::string::npos);
  EXPECT_LT(recalled_at, active_at);
  EXPECT_EQ(result->context_tokens, CountTokens(result->context));
  EXPECT_LE(result->context_tokens, result->token_budget);
  // No recalled item repeats a window turn.
  std::set<std::string> window_ids;
  for (const WindowTurn& turn : result->window) window_ids.insert(turn.id);
  for (const RecallItem& item : result->recalled.items) {
    EXPECT_FALSE(window_ids.contains(item.id)) << item.text;
  }
  // Every window turn has its scores, tier and reason; conversation order.
  std::int64_t previous = 0;
  for (const WindowTurn& turn : result->window) {
    EXPECT_GT(turn.omega, 0);
    EXPECT_LE(turn.omega_eff, turn.omega);
    EXPECT_THAT(turn.tier, ::testing::AnyOf("healthy", "unstable", "critical"));
    EXPECT_FALSE(turn.reason.empty());
    EXPECT_FALSE(turn.explanation.empty());
    EXPECT_GT(turn.interaction, previous);
    previous = turn.interaction;
  }
}

// The constraint is recent (3 turns from the end): under a window of 200 tokens, older filler
// turns leave (pruned, or hard-killed once decayed) and it stays.
TEST_F(ContextTest, TightWindowKeepsTheConstraintAndTheTurnsStayInMemory) {
  StatusOr<ContextResult> result =
      Context("What are the project rules?", {.token_budget = 400, .window_budget = 200});
  ASSERT_THAT(result.status(), IsOk());
  EXPECT_LE(result->window_tokens, 200u);
  EXPECT_LE(result->context_tokens, 400u);
  EXPECT_GT(result->pruned + result->hard_killed, 0u);
  const WindowTurn* constraint = nullptr;
  for (const WindowTurn& turn : result->window) {
    if (turn.text.starts_with("Do not use external APIs")) constraint = &turn;
  }
  ASSERT_NE(constraint, nullptr) << result->context;
  EXPECT_THAT(constraint->signals, ::testing::Contains("constraint"));
  // A filler turn that left the window is still in long-term memory.
  StatusOr<std::vector<Memory>> turns = engine_->List(S("user:ana/run:r1"), {.limit = 1000});
  ASSERT_THAT(turns.status(), IsOk());
  std::set<std::string> window_ids;
  for (const WindowTurn& turn : result->window) window_ids.insert(turn.id);
  std::size_t outside = 0;
  for (const Memory& memory : *turns) {
    if (window_ids.contains(memory.id)) continue;
    ++outside;
    EXPECT_THAT(engine_->Get(memory.id).status(), IsOk());
  }
  EXPECT_EQ(outside, 63u - result->window.size());
}

TEST_F(ContextTest, ASmallerBudgetKeepsTheDefaultSplit) {
  // 600 tokens: the window's default share is 600 × 4096 / 6096 = 403 (integer division).
  StatusOr<ContextResult> result = Context("Where does Maya live?", {.token_budget = 600});
  ASSERT_THAT(result.status(), IsOk());
  EXPECT_EQ(result->window_budget, 403u);
  EXPECT_LE(result->window_tokens, 403u);
  EXPECT_LE(result->context_tokens, 600u);
  EXPECT_FALSE(result->recalled.items.empty());  // the rest went to the recall
  // An explicit window budget is taken as given (up to the whole budget).
  result = Context("Where does Maya live?", {.token_budget = 600, .window_budget = 5000});
  ASSERT_THAT(result.status(), IsOk());
  EXPECT_EQ(result->window_budget, 600u);
}

TEST_F(ContextTest, SameStoreSameContext) {
  StatusOr<ContextResult> first = Context("Where does Maya live?", {.token_budget = 900});
  StatusOr<ContextResult> second = Context("Where does Maya live?", {.token_budget = 900});
  ASSERT_THAT(first.status(), IsOk());
  ASSERT_THAT(second.status(), IsOk());
  EXPECT_EQ(first->context, second->context);
  ASSERT_EQ(first->window.size(), second->window.size());
  for (std::size_t i = 0; i < first->window.size(); ++i) {
    EXPECT_EQ(first->window[i].id, second->window[i].id);
    EXPECT_EQ(first->window[i].omega_eff, second->window[i].omega_eff);
  }
}

TEST_F(ContextTest, RetiredTurnsLeaveTheWindow) {
  StatusOr<ContextResult> before = Context("rules?");
  ASSERT_THAT(before.status(), IsOk());
  ASSERT_FALSE(before->window.empty());
  const std::string retired = before->window.back().id;
  ASSERT_THAT(engine_->Retire(retired, "test"), IsOk());
  StatusOr<ContextResult> after = Context("rules?");
  ASSERT_THAT(after.status(), IsOk());
  EXPECT_EQ(after->inactive, 1u);
  for (const WindowTurn& turn : after->window) EXPECT_NE(turn.id, retired);
}

TEST_F(ContextTest, RunOnlyRecallsFromTheRun) {
  StatusOr<ContextResult> result =
      Context("Where does Maya live?", {.recall_enclosing = false});
  ASSERT_THAT(result.status(), IsOk());
  EXPECT_EQ(result->recalled_from, "user:ana/run:r1");
  for (const RecallItem& item : result->recalled.items) {
    EXPECT_EQ(item.text.find("Porto"), std::string::npos);
  }
}

TEST_F(ContextTest, BadRequestsAreClearErrors) {
  EXPECT_THAT(engine_->Context(S("user:ana"), {.text = "rules?"}).status(),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("run scope")));
  EXPECT_THAT(engine_->Context(S("user:ana/run:nope"), {.text = "rules?"}).status(),
              StatusIs(StatusCode::kNotFound, HasSubstr("user:ana/run:nope")));
  EXPECT_THAT(Context("   ").status(),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("query is empty")));
  EXPECT_THAT(Context("rules?", {.token_budget = 2'000'000}).status(),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("token budget 2000000")));
  EXPECT_THAT(Context("rules?", {.window_budget = 2'000'000}).status(),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("window budget")));
  // A budget too small for anything gives an empty context, not an error.
  StatusOr<ContextResult> tiny = Context("rules?", {.token_budget = 1});
  ASSERT_THAT(tiny.status(), IsOk());
  EXPECT_EQ(tiny->context, "");
  EXPECT_TRUE(tiny->window.empty());
}

}  // namespace
}  // namespace engram
