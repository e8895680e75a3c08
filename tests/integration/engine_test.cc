// The engine through its public API: remember, recall with provenance and explanations,
// retire, history, erase (with the secure-delete check on the raw files), nested scopes, merge
// proposals, and incremental-versus-rebuilt index equality.
#include "engram/engine.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <random>

#include "engram/testing/status_matchers.h"
#include "store/store.h"
#include "test_util.h"

namespace engram {
namespace {

using ::engram::testing::IsOk;
using ::engram::testing::IsOkAndHolds;
using ::engram::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::SizeIs;

class EngineTest : public ::testing::Test {
 protected:
  // Lexical behaviour of the API, without vectors (tests/integration/vector_test.cc has those).
  void SetUp() override { engine_ = testing::OpenOrDie(Options()); }

  // Every engine of these tests opens the store alike (the store records its embedder).
  EngineOptions Options() {
    EngineOptions options = testing::TestOptions(dir_);
    options.config = Config{};
    options.config->embedder.kind = "none";
    return options;
  }

  std::vector<std::string> RememberOrDie(const Scope& scope, const std::vector<Turn>& turns) {
    StatusOr<RememberResult> result = engine_->Remember(scope, turns);
    EXPECT_THAT(result, IsOk());
    return result.ok() ? result->ids : std::vector<std::string>{};
  }

  ReadResult RecallOrDie(const Scope& scope, const std::string& query, RecallOptions options = {}) {
    StatusOr<ReadResult> result = engine_->Recall(scope, {.text = query}, options);
    EXPECT_THAT(result, IsOk());
    return result.ok() ? *result : ReadResult{};
  }

  testing::TempDir dir_;
  std::unique_ptr<Engine> engine_;
};

std::vector<Turn> SampleTurns() {
  return {
      testing::MakeTurn("Caroline", "I went to the LGBTQ support group yesterday.", "s1",
                        "2023-05-08T13:56:00Z"),
      testing::MakeTurn("Melanie", "That sounds great! I painted a sunrise last week.", "s1",
                        "2023-05-08T13:57:00Z"),
      testing::MakeTurn("Caroline", "I am researching adoption agencies for my family.", "s2",
                        "2023-05-25T10:00:00Z"),
      testing::MakeTurn("Melanie", "My kids loved the camping trip to the mountains.", "s2",
                        "2023-05-25T10:01:00Z"),
  };
}

TEST_F(EngineTest, RememberAssignsSequenceNumbersAndContentAddresses) {
  const Scope scope = testing::S("user:alice");
  StatusOr<RememberResult> first = engine_->Remember(scope, SampleTurns());
  ASSERT_THAT(first, IsOk());
  EXPECT_THAT(first->ids, SizeIs(4));
  EXPECT_EQ(first->first_sequence, 1);
  EXPECT_EQ(first->last_sequence, 4);
  StatusOr<RememberResult> second = engine_->Remember(scope, std::vector<Turn>{SampleTurns()[0]});
  ASSERT_THAT(second, IsOk());
  EXPECT_EQ(second->first_sequence, 5);
  // The same words said again are a new turn (new sequence number, new id).
  EXPECT_NE(second->ids[0], first->ids[0]);

  StatusOr<Memory> memory = engine_->Get(first->ids[2]);
  ASSERT_THAT(memory, IsOk());
  EXPECT_EQ(memory->text, "I am researching adoption agencies for my family.");
  EXPECT_EQ(memory->speaker, "Caroline");
  EXPECT_EQ(memory->session_id, "s2");
  EXPECT_EQ(memory->sequence, 3);
  EXPECT_EQ(memory->scope, "user:alice");
  EXPECT_EQ(FormatTimestamp(*memory->event_time), "2023-05-25T10:00:00Z");
  EXPECT_EQ(memory->status, NodeStatus::kActive);
  EXPECT_THAT(memory->provenance, ElementsAre(first->ids[2]));
}

TEST_F(EngineTest, RecallRanksByBm25WithProvenanceAndExplanations) {
  const Scope scope = testing::S("user:alice");
  const std::vector<std::string> ids = RememberOrDie(scope, SampleTurns());
  // The BM25 route alone: its rank and score are the whole fused score.
  ReadResult bm25 =
      RecallOrDie(scope, "When did Caroline go to the LGBTQ support group?", {.routes = {"bm25"}});
  ASSERT_THAT(bm25.items, Not(IsEmpty()));
  const RecallItem& top = bm25.items[0];
  EXPECT_EQ(top.id, ids[0]);
  EXPECT_THAT(top.provenance, ElementsAre(ids[0]));
  ASSERT_THAT(top.routes, SizeIs(1));
  EXPECT_EQ(top.routes[0].route, "bm25");
  EXPECT_EQ(top.routes[0].rank, 1u);
  EXPECT_GT(top.routes[0].score, 0);
  EXPECT_THAT(top.routes[0].explanation, HasSubstr("lgbtq"));
  // RRF with the default k = 15 and weight 1: rank 1 scores 1/16.
  EXPECT_DOUBLE_EQ(top.fused_score, 1.0 / 16.0);
  ReadResult result = RecallOrDie(scope, "When did Caroline go to the LGBTQ support group?");
  ASSERT_THAT(result.items, Not(IsEmpty()));
  EXPECT_EQ(result.items[0].id, ids[0]);
  EXPECT_THAT(result.context, HasSubstr("Caroline: I went to the LGBTQ support group"));
  EXPECT_THAT(result.context, HasSubstr("2023-05-08"));
  EXPECT_THAT(result.answer_instructions, Not(IsEmpty()));
  EXPECT_THAT(result.context, Not(HasSubstr(result.answer_instructions)));
  EXPECT_EQ(result.policy, "balanced");
  // Every known route runs by default; this store has no embedder, so the vector route is empty,
  // and the question has no time expression, so the temporal route is too.
  ASSERT_THAT(result.diagnostics.routes, SizeIs(7));
  EXPECT_EQ(result.diagnostics.routes[0].route, "bm25");
  EXPECT_GT(result.diagnostics.routes[0].candidates, 0u);
  EXPECT_EQ(result.diagnostics.routes[1].route, "vector");
  EXPECT_EQ(result.diagnostics.routes[1].candidates, 0u);
  EXPECT_EQ(result.diagnostics.routes[2].route, "fragment");
  EXPECT_GT(result.diagnostics.routes[2].candidates, 0u);
  EXPECT_EQ(result.diagnostics.routes[3].route, "session");
  EXPECT_EQ(result.diagnostics.routes[4].route, "temporal");
  EXPECT_EQ(result.diagnostics.routes[4].candidates, 0u);
  EXPECT_EQ(result.diagnostics.routes[5].route, "entity");
  EXPECT_EQ(result.diagnostics.routes[6].route, "facts");
  EXPECT_THAT(result.diagnostics.frame, HasSubstr("shape=when"));
  EXPECT_THAT(result.diagnostics.frame, HasSubstr("speakers=Caroline"));
  EXPECT_EQ(result.diagnostics.context_tokens, CountTokens(result.context));
  // The recall's time covers its stages, which run one after another within it.
  double stages_ms = 0;
  for (const StageTiming& timing : result.diagnostics.timings) stages_ms += timing.ms;
  ASSERT_FALSE(result.diagnostics.timings.empty());
  EXPECT_LE(stages_ms, result.latency_ms + 1e-6);
}

// WordNet synonyms enter the query frame only when the keyword route runs (its weight is 0 by
// default; the route is the only reader of synonyms).
TEST_F(EngineTest, SynonymsAreLookedUpOnlyForTheKeywordRoute) {
  RememberOrDie(testing::S("user:alice"),
                {testing::MakeTurn("alice", "I bought a new car last week.")});
  const ReadResult plain = RecallOrDie(testing::S("user:alice"), "Which car did I buy?");
  EXPECT_THAT(plain.diagnostics.frame, HasSubstr("keywords=car,buy"));
  RecallOptions with_keyword;
  with_keyword.route_weights = {{"bm25", 1.0}, {"keyword", 0.5}};
  const ReadResult expanded =
      RecallOrDie(testing::S("user:alice"), "Which car did I buy?", with_keyword);
  EXPECT_THAT(expanded.diagnostics.frame, HasSubstr("car(auto,automobil"));
  EXPECT_THAT(expanded.diagnostics.warnings, IsEmpty());  // the lexicons are installed
  RecallOptions named;
  named.routes = {"keyword"};
  EXPECT_THAT(
      RecallOrDie(testing::S("user:alice"), "Which car did I buy?", named).diagnostics.frame,
      HasSubstr("car(auto,automobil"));
}

// Without the lexicons (the write path's analysis, which needs them, off), a recall whose keyword
// route runs and weighs synonyms runs without them and warns; one that does not use them does not.
TEST(EngineWithoutLexiconsTest, TheKeywordRouteWithoutSynonymsIsAWarning) {
  testing::TempDir dir;
  testing::TempDir no_data;
  EngineOptions options = testing::TestOptions(dir);
  Config config;
  config.embedder.kind = "none";
  config.write.facts = false;
  config.write.signals = false;
  config.write.entities = false;
  config.recall.word_vector_match = 0;  // only the synonyms are missing
  options.config = config;
  options.data_dir = no_data.path();
  auto engine = testing::OpenOrDie(options);
  const std::vector<Turn> turns = {testing::MakeTurn("alice", "I bought a new car last week.")};
  ASSERT_THAT(engine->Remember(testing::S("user:alice"), turns), IsOk());
  const RecallQuery question{.text = "Which automobile did I buy?"};
  auto keyword = engine->Recall(testing::S("user:alice"), question, {.routes = {"keyword"}});
  ASSERT_THAT(keyword, IsOk());
  ASSERT_THAT(keyword->diagnostics.warnings, SizeIs(1));
  EXPECT_THAT(keyword->diagnostics.warnings[0], ::testing::StartsWith("synonym matches off: "));
  EXPECT_THAT(keyword->diagnostics.warnings[0], HasSubstr("scripts/fetch-lexicons"));
  auto bm25 = engine->Recall(testing::S("user:alice"), question, {.routes = {"bm25"}});
  ASSERT_THAT(bm25, IsOk());
  EXPECT_THAT(bm25->diagnostics.warnings, IsEmpty());
}

TEST_F(EngineTest, AnswerPoliciesDiffer) {
  const Scope scope = testing::S("user:alice");
  RememberOrDie(scope, SampleTurns());
  ReadResult strict = RecallOrDie(scope, "camping", {.policy = AnswerPolicy::kStrict});
  ReadResult advanced = RecallOrDie(scope, "camping", {.policy = AnswerPolicy::kAdvanced});
  EXPECT_NE(strict.answer_instructions, advanced.answer_instructions);
  EXPECT_EQ(strict.context, advanced.context);
  EXPECT_EQ(strict.policy, "strict");
}

TEST_F(EngineTest, TokenBudgetAndKLimitThePackedItems) {
  const Scope scope = testing::S("user:alice");
  std::vector<Turn> turns;
  for (int turn_idx = 0; turn_idx < 40; ++turn_idx) {
    turns.push_back(testing::MakeTurn("Bob", "garden tomatoes note number " +
                                                 std::to_string(turn_idx) +
                                                 " about watering and sunlight"));
  }
  RememberOrDie(scope, turns);
  ReadResult few = RecallOrDie(scope, "garden tomatoes", {.k = 5});
  EXPECT_THAT(few.items, SizeIs(5));
  ReadResult tight = RecallOrDie(scope, "garden tomatoes", {.k = 40, .token_budget = 60});
  EXPECT_LE(tight.diagnostics.context_tokens, 60u);
  EXPECT_EQ(tight.diagnostics.context_tokens, CountTokens(tight.context));
  EXPECT_GT(tight.diagnostics.dropped_by_budget, 0u);
  EXPECT_LT(tight.items.size(), 40u);
  EXPECT_FALSE(tight.items.empty());
}

TEST_F(EngineTest, RetireHidesFromRecallButKeepsHistory) {
  const Scope scope = testing::S("user:alice");
  const std::vector<std::string> ids = RememberOrDie(scope, SampleTurns());
  ASSERT_THAT(engine_->Retire(ids[3], "user asked"), IsOk());
  ReadResult result = RecallOrDie(scope, "camping trip mountains");
  for (const RecallItem& item : result.items) EXPECT_NE(item.id, ids[3]);
  EXPECT_GT(result.diagnostics.filtered_out, 0u);

  ReadResult with_retired = RecallOrDie(scope, "camping trip mountains", {.include_retired = true});
  ASSERT_THAT(with_retired.items, Not(IsEmpty()));
  EXPECT_EQ(with_retired.items[0].id, ids[3]);
  EXPECT_EQ(with_retired.items[0].status, NodeStatus::kRetired);

  StatusOr<Memory> memory = engine_->Get(ids[3]);
  ASSERT_THAT(memory, IsOk());
  EXPECT_EQ(memory->status, NodeStatus::kRetired);
  EXPECT_TRUE(memory->valid_to.has_value());

  StatusOr<std::vector<HistoryEvent>> history = engine_->History(ids[3]);
  ASSERT_THAT(history, IsOk());
  ASSERT_THAT(*history, SizeIs(2));
  EXPECT_EQ((*history)[0].action, "created");
  EXPECT_EQ((*history)[1].action, "retired");
  EXPECT_THAT((*history)[1].detail, HasSubstr("user asked"));

  EXPECT_THAT(engine_->Retire(ids[3]), StatusIs(StatusCode::kFailedPrecondition));
  EXPECT_THAT(engine_->List(scope), IsOkAndHolds(SizeIs(4)));
  EXPECT_THAT(engine_->List(scope, {.include_retired = false}), IsOkAndHolds(SizeIs(3)));
}

TEST_F(EngineTest, RetireAllCoversNestedScopes) {
  RememberOrDie(testing::S("user:alice"), SampleTurns());
  RememberOrDie(testing::S("user:alice/run:1"), {testing::MakeTurn("Alice", "camping again")});
  RememberOrDie(testing::S("user:bob"), {testing::MakeTurn("Bob", "camping with Bob")});
  // Every active memory of the two scopes: 5 turns and what the write path derived from them.
  std::size_t memories = 0;
  for (const char* path : {"user:alice", "user:alice/run:1"}) {
    StatusOr<std::vector<Memory>> listed =
        engine_->List(testing::S(path), {.limit = 100000, .kind = std::nullopt});
    ASSERT_THAT(listed, IsOk());
    memories += listed->size();
  }
  EXPECT_GE(memories, 5u);
  EXPECT_THAT(engine_->RetireAll(testing::S("user:alice")), IsOkAndHolds(memories));
  EXPECT_THAT(RecallOrDie(testing::S("user:alice"), "camping").items, IsEmpty());
  EXPECT_THAT(RecallOrDie(testing::S("user:bob"), "camping").items, SizeIs(1));
}

TEST_F(EngineTest, NestedScopesAreSearchedFromTheParentOnly) {
  RememberOrDie(testing::S("user:alice/run:1"), {testing::MakeTurn("Alice", "kayak lessons")});
  RememberOrDie(testing::S("user:alice/run:2"), {testing::MakeTurn("Alice", "kayak rental")});
  RememberOrDie(testing::S("user:bob"), {testing::MakeTurn("Bob", "kayak for Bob")});
  EXPECT_THAT(RecallOrDie(testing::S("user:alice"), "kayak").items, SizeIs(2));
  EXPECT_THAT(RecallOrDie(testing::S("user:alice"), "kayak", {.include_nested = false}).items,
              IsEmpty());
  ReadResult run = RecallOrDie(testing::S("user:alice/run:2"), "kayak");
  ASSERT_THAT(run.items, SizeIs(1));
  EXPECT_EQ(run.items[0].scope, "user:alice/run:2");
  StatusOr<std::vector<ScopeInfo>> scopes = engine_->ListScopes();
  ASSERT_THAT(scopes, IsOk());
  std::vector<std::string> paths;
  for (const ScopeInfo& info : *scopes) paths.push_back(info.scope);
  EXPECT_THAT(paths, ElementsAre("user:alice", "user:alice/run:1", "user:alice/run:2", "user:bob"));
}

TEST_F(EngineTest, EraseRemovesEverythingOfTheScopeAndWipesTheFile) {
  const std::string marker = "zebra-quokka-7b1f-unique-marker";
  const Scope secret = testing::S("user:secret");
  const std::vector<std::string> ids =
      RememberOrDie(secret, {testing::MakeTurn("Sam", "my locker code is " + marker),
                             testing::MakeTurn("Sam", "and my bank is " + marker + " too")});
  RememberOrDie(testing::S("user:secret/run:9"), {testing::MakeTurn("Sam", "nested " + marker)});
  const std::vector<std::string> kept =
      RememberOrDie(testing::S("user:other"), {testing::MakeTurn("Ola", "locker at the gym")});
  ASSERT_THAT(engine_->Retire(ids[1]), IsOk());
  ASSERT_THAT(RecallOrDie(secret, "locker code").items, Not(IsEmpty()));

  const std::string db = dir_.File("engram.db");
  const std::string before = testing::ReadFileBytes(db) + testing::ReadFileBytes(db + "-wal");
  EXPECT_NE(before.find(marker), std::string::npos);

  StatusOr<EraseResult> erased = engine_->Erase(secret);
  ASSERT_THAT(erased, IsOk());
  EXPECT_EQ(erased->scopes, 2u);
  EXPECT_GE(erased->nodes, 3u);

  const std::string after = testing::ReadFileBytes(db) + testing::ReadFileBytes(db + "-wal");
  EXPECT_EQ(after.find(marker), std::string::npos) << "erased text still in the store files";
  EXPECT_THAT(engine_->Get(ids[0]), StatusIs(StatusCode::kNotFound));
  EXPECT_THAT(engine_->History(ids[1]), StatusIs(StatusCode::kNotFound));
  EXPECT_THAT(engine_->Recall(secret, {.text = "locker code"}), StatusIs(StatusCode::kNotFound));
  EXPECT_THAT(engine_->List(testing::S("user:secret/run:9")), StatusIs(StatusCode::kNotFound));
  ReadResult other = RecallOrDie(testing::S("user:other"), "locker");
  ASSERT_THAT(other.items, SizeIs(1));
  EXPECT_EQ(other.items[0].id, kept[0]);
  StatusOr<std::vector<ScopeInfo>> scopes = engine_->ListScopes();
  ASSERT_THAT(scopes, IsOk());
  ASSERT_THAT(*scopes, SizeIs(1));
  EXPECT_EQ((*scopes)[0].scope, "user:other");

  // Reopening shows the same: nothing of the erased scope comes back.
  engine_.reset();
  engine_ = testing::OpenOrDie(Options());
  EXPECT_THAT(engine_->Get(ids[0]), StatusIs(StatusCode::kNotFound));
  EXPECT_THAT(RecallOrDie(testing::S("user:other"), "locker").items, SizeIs(1));
  // The scope can be used afresh.
  EXPECT_THAT(engine_->Remember(secret, std::vector<Turn>{testing::MakeTurn("Sam", "a new start")}),
              IsOk());
}

TEST_F(EngineTest, MergeProposalsArePendingUntilAccepted) {
  const Scope scope = testing::S("world:people");
  const std::vector<std::string> ids =
      RememberOrDie(scope, {testing::MakeTurn("A", "Jon"), testing::MakeTurn("B", "Jonathan"),
                            testing::MakeTurn("C", "Johnny")});
  StatusOr<MergeProposal> ab = engine_->ProposeSameAs(ids[0], ids[1], "similar names");
  ASSERT_THAT(ab, IsOk());
  EXPECT_EQ(ab->status, "pending");
  EXPECT_THAT(engine_->EquivalenceClass(ids[0]), IsOkAndHolds(ElementsAre(ids[0])));
  ASSERT_THAT(engine_->AcceptProposal(ab->id), IsOk());
  StatusOr<MergeProposal> bc = engine_->ProposeSameAs(ids[1], ids[2], "");
  ASSERT_THAT(bc, IsOk());
  ASSERT_THAT(engine_->AcceptProposal(bc->id), IsOk());
  std::vector<std::string> all = {ids[0], ids[1], ids[2]};
  std::sort(all.begin(), all.end());
  EXPECT_THAT(engine_->EquivalenceClass(ids[2]), IsOkAndHolds(all));
  EXPECT_THAT(engine_->AcceptProposal(ab->id), StatusIs(StatusCode::kFailedPrecondition));
  StatusOr<std::vector<MergeProposal>> proposals = engine_->ListProposals(scope);
  ASSERT_THAT(proposals, IsOk());
  // The two made here, among the resolver's own proposals for the names in the turns.
  std::vector<MergeProposal> manual;
  for (const MergeProposal& proposal : *proposals) {
    if (proposal.id == ab->id || proposal.id == bc->id) manual.push_back(proposal);
  }
  ASSERT_THAT(manual, SizeIs(2));
  EXPECT_EQ(manual[0].status, "accepted");
  EXPECT_EQ(manual[0].reason, "similar names");
}

TEST_F(EngineTest, RebuiltIndexEqualsIncrementalIndex) {
  const Scope scope = testing::S("world:rebuild");
  // Several batches, so the live index is maintained incrementally across commits.
  const std::vector<std::string> words = {"apple", "banana",  "cherry", "delta",
                                          "echo",  "foxtrot", "golf",   "hotel"};
  for (int batch = 0; batch < 6; ++batch) {
    std::vector<Turn> turns;
    for (int turn_idx = 0; turn_idx < 7; ++turn_idx) {
      std::string text;
      for (int word_idx = 0; word_idx < 5; ++word_idx) {
        text += words[(batch * 7 + turn_idx * 3 + word_idx * word_idx) % words.size()] + " ";
      }
      turns.push_back(testing::MakeTurn("P" + std::to_string(turn_idx % 3), text));
    }
    RememberOrDie(scope, turns);
    // Load the scope's index early so later batches are applied incrementally.
    if (batch == 0) RecallOrDie(scope, "apple");
  }
  std::vector<std::vector<std::string>> before;
  for (const char* query : {"apple banana", "cherry golf hotel", "delta", "echo foxtrot"}) {
    before.push_back(testing::ItemIds(RecallOrDie(scope, query, {.k = 20})));
  }
  StatusOr<RebuildReport> report = engine_->RebuildIndex();
  ASSERT_THAT(report, IsOk());
  EXPECT_TRUE(report->matched_live_index);
  EXPECT_EQ(report->documents, 42u);
  std::vector<std::vector<std::string>> after;
  for (const char* query : {"apple banana", "cherry golf hotel", "delta", "echo foxtrot"}) {
    after.push_back(testing::ItemIds(RecallOrDie(scope, query, {.k = 20})));
  }
  EXPECT_EQ(before, after);
  EXPECT_THAT(before[0], Not(IsEmpty()));
}

// Everything a recall returns that the projections decide: items with their scores and route
// explanations (the fragment and session routes print the units' BM25), and the context.
std::string Describe(const ReadResult& result) {
  std::string out;
  char number[64];
  for (const RecallItem& item : result.items) {
    std::snprintf(number, sizeof number, " %.17g %.17g", item.fused_score, item.score);
    out += item.id + number + "\n";
    for (const RouteScore& route : item.routes) {
      std::snprintf(number, sizeof number, " #%zu %.17g ", route.rank, route.score);
      out += "  " + route.route + number + route.explanation + "\n";
    }
    for (const Adjustment& adjustment : item.adjustments) {
      out += "  " + adjustment.name + ": " + adjustment.detail + "\n";
    }
  }
  return out + result.context;
}

// The projections (BM25 index and turn layout per scope) follow the journal through random
// remembers, retires, amends and erases over nested scopes (deterministic seed): recalls on the
// live engine equal those of an engine that builds every projection from the store, and a
// rebuild finds the live projections equal to the rebuilt ones.
TEST_F(EngineTest, ProjectionsFollowingTheJournalEqualARebuildAfterRandomWrites) {
  std::mt19937 random(17);
  const auto pick = [&random](std::size_t n) {
    return std::uniform_int_distribution<std::size_t>(0, n - 1)(random);
  };
  const std::vector<Scope> scopes = {testing::S("user:rand"), testing::S("user:rand/run:a"),
                                     testing::S("user:rand/run:b"), testing::S("user:other")};
  const std::vector<std::string> words = {"apple", "banana", "cherry", "delta", "echo",
                                          "foxtrot", "golf", "hotel", "why?", "yes."};
  const auto random_text = [&] {
    std::string text;
    for (std::size_t word = 1 + pick(8); word > 0; --word) text += words[pick(words.size())] + " ";
    return text;
  };
  std::vector<std::string> active;  // turn ids that may be retired or amended
  for (int op = 0; op < 120; ++op) {
    const Scope& scope = scopes[pick(scopes.size())];
    const std::size_t kind = pick(20);
    if (kind < 10 || active.empty()) {
      std::vector<Turn> turns;
      for (std::size_t turn_idx = 1 + pick(4); turn_idx > 0; --turn_idx) {
        const std::string day = std::to_string(10 + pick(18));
        turns.push_back(testing::MakeTurn(pick(2) ? "Ann" : "Bob", random_text(),
                                          "s" + std::to_string(pick(3)),
                                          "2023-05-" + day + "T10:00:00Z"));
      }
      StatusOr<RememberResult> result = engine_->Remember(scope, turns);
      ASSERT_THAT(result, IsOk());
      active.insert(active.end(), result->ids.begin(), result->ids.end());
    } else if (kind < 13) {
      const std::size_t at = pick(active.size());
      ASSERT_THAT(engine_->Retire(active[at], "test"), IsOk());
      active.erase(active.begin() + static_cast<std::ptrdiff_t>(at));
    } else if (kind < 15) {
      const std::size_t at = pick(active.size());
      StatusOr<AmendResult> amended =
          engine_->Amend(active[at], testing::MakeTurn("", random_text()), "test");
      ASSERT_THAT(amended, IsOk());
      active[at] = amended->id;
    } else if (kind == 15) {
      if (engine_->Erase(scope).ok()) {
        // Ids of erased turns may stay in `active`: skip them when they fail below.
        std::vector<std::string> kept;
        for (const std::string& id : active) {
          if (engine_->Get(id).ok()) kept.push_back(id);
        }
        active = std::move(kept);
      }
    } else {
      // Recalls load the scopes' projections, so later writes are applied incrementally.
      StatusOr<ReadResult> recalled = engine_->Recall(
          scope, {.text = random_text()}, {.include_nested = pick(2) == 0});
      if (!recalled.ok()) {
        EXPECT_THAT(recalled, StatusIs(StatusCode::kNotFound));  // an erased scope
      }
    }
  }
  std::unique_ptr<Engine> fresh = testing::OpenOrDie(Options());
  std::size_t compared = 0;
  for (const Scope& scope : scopes) {
    for (int query_idx = 0; query_idx < 6; ++query_idx) {
      const std::string query = random_text();
      const RecallOptions options{.include_nested = query_idx % 2 == 0};
      StatusOr<ReadResult> live = engine_->Recall(scope, {.text = query}, options);
      StatusOr<ReadResult> rebuilt = fresh->Recall(scope, {.text = query}, options);
      ASSERT_EQ(live.ok(), rebuilt.ok()) << scope.ToString();
      if (!live.ok()) continue;
      EXPECT_EQ(Describe(*live), Describe(*rebuilt)) << scope.ToString() << ": " << query;
      compared += live->items.size();
    }
  }
  EXPECT_GT(compared, 20u);
  StatusOr<RebuildReport> report = engine_->RebuildIndex();
  ASSERT_THAT(report, IsOk());
  EXPECT_TRUE(report->matched_live_index);
}

TEST_F(EngineTest, WritesFromAnotherEngineOnTheSameStoreAreSeen) {
  const Scope scope = testing::S("user:shared");
  RememberOrDie(scope, {testing::MakeTurn("A", "first note about violins")});
  ASSERT_THAT(RecallOrDie(scope, "violins").items, SizeIs(1));
  std::unique_ptr<Engine> other = testing::OpenOrDie(Options());
  ASSERT_THAT(other->Remember(
                  scope, std::vector<Turn>{testing::MakeTurn("B", "second note about violins")}),
              IsOk());
  EXPECT_THAT(RecallOrDie(scope, "violins").items, SizeIs(2));
}

TEST_F(EngineTest, StoreSurvivesReopen) {
  const Scope scope = testing::S("user:alice");
  const std::vector<std::string> ids = RememberOrDie(scope, SampleTurns());
  engine_.reset();
  engine_ = testing::OpenOrDie(Options());
  ReadResult result = RecallOrDie(scope, "adoption agencies");
  ASSERT_THAT(result.items, Not(IsEmpty()));
  EXPECT_EQ(result.items[0].id, ids[2]);
  StatusOr<RememberResult> more =
      engine_->Remember(scope, std::vector<Turn>{testing::MakeTurn("A", "later")});
  ASSERT_THAT(more, IsOk());
  EXPECT_EQ(more->first_sequence, 5);
}

}  // namespace
}  // namespace engram
