// Reliability through the public API (issue 21): readers are never blocked by a writer, the cost
// of deriving one turn is bounded, long turns come back excerpted, scope names that look alike
// are one scope, and nothing links memories of unrelated scopes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sqlite3.h>

#include <string>
#include <vector>

#include "engram/config.h"
#include "engram/engine.h"
#include "engram/testing/status_matchers.h"
#include "store/store.h"
#include "test_util.h"

namespace engram {
namespace {

using ::engram::testing::IsOk;
using ::engram::testing::StatusIs;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::SizeIs;

EngineOptions LexicalOptions(const testing::TempDir& dir) {
  EngineOptions options = testing::TestOptions(dir);
  options.config = Config{};
  options.config->embedder.kind = "none";
  return options;
}

// A second connection holds the store's write lock (BEGIN IMMEDIATE, as a long Remember would)
// while another engine opens the store and reads: every read succeeds instead of waiting for the
// lock and failing with "database is locked".
TEST(ReaderWriterTest, OpenAndReadsSucceedWhileAnotherConnectionHoldsTheWriteLock) {
  testing::TempDir dir;
  const EngineOptions options = LexicalOptions(dir);
  {
    std::unique_ptr<Engine> writer = testing::OpenOrDie(options);
    ASSERT_THAT(writer->Remember(testing::S("user:bob"),
                                 std::vector<Turn>{testing::MakeTurn("Bob", "I moved to Lisbon last spring.")}),
                IsOk());
    ASSERT_THAT(writer->Remember(testing::S("user:mallory"),
                                 std::vector<Turn>{testing::MakeTurn("Mallory", "Nothing to see here.")}),
                IsOk());
  }
  StatusOr<std::unique_ptr<store::Store>> other = store::OpenSqliteStore(options.store_path);
  ASSERT_THAT(other, IsOk());
  StatusOr<std::unique_ptr<store::Transaction>> held = (*other)->BeginWrite();
  ASSERT_THAT(held, IsOk());

  StatusOr<std::unique_ptr<Engine>> reader = Engine::Open(options);
  ASSERT_THAT(reader, IsOk());
  StatusOr<ReadResult> recalled =
      (*reader)->Recall(testing::S("user:bob"), {.text = "Where did Bob move?"}, {});
  ASSERT_THAT(recalled, IsOk());
  ASSERT_THAT(recalled->items, ::testing::Not(::testing::IsEmpty()));
  EXPECT_THAT(recalled->items[0].text, HasSubstr("Lisbon"));
  StatusOr<std::vector<Memory>> listed = (*reader)->List(testing::S("user:bob"));
  ASSERT_THAT(listed, IsOk());
  EXPECT_THAT(*listed, SizeIs(1));
  StatusOr<std::vector<ScopeInfo>> scopes = (*reader)->ListScopes();
  ASSERT_THAT(scopes, IsOk());
  EXPECT_THAT(*scopes, SizeIs(2));
}


// A turn's signals are stored in its analysis row inside the write transaction (its resolved
// dates also as time-anchor nodes), so a long turn full of anchors must not derive without bound:
// the first [write] max_signals_per_turn signals are kept.
std::size_t StoredSignals(Engine& engine, const Scope& scope) {
  StatusOr<std::vector<Memory>> turns =
      engine.List(scope, {.limit = 100000, .kind = NodeKind::kTurn});
  EXPECT_THAT(turns, IsOk());
  if (!turns.ok()) return 0;
  std::size_t count = 0;
  for (const Memory& turn : *turns) {
    StatusOr<std::string> analysis = engine.Analysis(turn.id);
    EXPECT_THAT(analysis, IsOk());
    if (!analysis.ok() || analysis->empty()) continue;
    count += nlohmann::json::parse(*analysis)["signals"].size();
  }
  return count;
}

std::size_t SignalNodes(Engine& engine, const Scope& scope) {
  StatusOr<std::vector<Memory>> signals =
      engine.List(scope, {.limit = 100000, .kind = NodeKind::kSignal});
  EXPECT_THAT(signals, IsOk());
  return signals.ok() ? signals->size() : 0;
}

std::string RepeatedAnchors(std::size_t count) {
  std::string text;
  for (std::size_t repeat = 0; repeat < count; ++repeat) {
    text += "On 2024-01-01 Alice paid $5 at http://x.io/a; ";
  }
  return text;
}

TEST(DerivationBoundTest, ALongTurnYieldsAtMostMaxSignalsPerTurnSignalNodes) {
  testing::TempDir dir;
  EngineOptions options = LexicalOptions(dir);
  options.config->write.max_signals_per_turn = 10;
  std::unique_ptr<Engine> engine = testing::OpenOrDie(options);
  const Scope scope = testing::S("user:mallory");
  ASSERT_THAT(engine->Remember(scope, std::vector<Turn>{testing::MakeTurn(
                                          "Mallory", RepeatedAnchors(100))}),
              IsOk());
  EXPECT_EQ(StoredSignals(*engine, scope), 10u);
  EXPECT_LE(SignalNodes(*engine, scope), 10u);  // the dates among them
}

TEST(DerivationBoundTest, TheDefaultCapIsFiveHundredSignals) {
  testing::TempDir dir;
  std::unique_ptr<Engine> engine = testing::OpenOrDie(LexicalOptions(dir));
  const Scope scope = testing::S("user:mallory");
  ASSERT_THAT(engine->Remember(scope, std::vector<Turn>{testing::MakeTurn(
                                          "Mallory", RepeatedAnchors(400))}),
              IsOk());
  EXPECT_EQ(StoredSignals(*engine, scope), 500u);
  EXPECT_LE(SignalNodes(*engine, scope), 500u);
}

// A turn longer than the whole token budget, and the only match: it comes back as an excerpt
// around the matched word, marked with its byte offsets, not dropped.
TEST(LongTurnTest, AFortyKilobyteTurnThatIsTheOnlyMatchComesBackExcerpted) {
  testing::TempDir dir;
  std::unique_ptr<Engine> engine = testing::OpenOrDie(LexicalOptions(dir));
  std::string text;
  while (text.size() < 20000) text += "The weather report covered rain, wind and cloud again. ";
  text += "Last summer I finally visited Zanzibar with my sister. ";
  while (text.size() < 40000) text += "The weather report covered rain, wind and cloud again. ";
  const Scope scope = testing::S("user:alice");
  ASSERT_THAT(engine->Remember(scope, std::vector<Turn>{testing::MakeTurn("Alice", text)}), IsOk());
  StatusOr<ReadResult> result = engine->Recall(scope, {.text = "Who went to Zanzibar?"}, {});
  ASSERT_THAT(result, IsOk());
  ASSERT_THAT(result->items, SizeIs(1));
  const RecallItem& item = result->items[0];
  EXPECT_TRUE(item.excerpt);
  EXPECT_EQ(item.full_bytes, text.size());
  EXPECT_LE(item.text.size(), Config{}.recall.excerpt_bytes);
  EXPECT_THAT(item.text, HasSubstr("visited Zanzibar"));
  EXPECT_EQ(item.text, text.substr(item.excerpt_begin, item.excerpt_end - item.excerpt_begin));
  EXPECT_THAT(result->context, HasSubstr("visited Zanzibar"));
  EXPECT_THAT(result->context, HasSubstr("(excerpt, bytes "));
  EXPECT_EQ(result->diagnostics.dropped_by_budget, 0u);
}

// No edge links memories of scopes where neither contains the other: a merge proposal between
// user:alice and user:bob is refused (erasing bob would otherwise delete links stored under
// alice); between user:alice and user:alice/run:1 it is allowed.
TEST(ScopeLinkTest, SameAsIsRefusedAcrossUnrelatedScopesAndAllowedWithinATree) {
  testing::TempDir dir;
  std::unique_ptr<Engine> engine = testing::OpenOrDie(LexicalOptions(dir));
  auto remember = [&](const std::string& scope, const std::string& text) {
    StatusOr<RememberResult> result =
        engine->Remember(testing::S(scope), std::vector<Turn>{testing::MakeTurn("Ann", text)});
    EXPECT_THAT(result, IsOk());
    return result.ok() ? result->ids[0] : std::string();
  };
  const std::string alice = remember("user:alice", "My sister Kim lives in Oslo.");
  const std::string bob = remember("user:bob", "My sister Kim lives in Oslo.");
  const std::string alice_run = remember("user:alice/run:1", "Kim called from Oslo today.");

  StatusOr<MergeProposal> across = engine->ProposeSameAs(alice, bob, "same words");
  EXPECT_THAT(across, StatusIs(StatusCode::kFailedPrecondition));
  EXPECT_THAT(across.status().message(), HasSubstr("user:alice"));
  EXPECT_THAT(across.status().message(), HasSubstr("user:bob"));
  EXPECT_THAT(engine->ProposeSameAs(bob, alice, "same words"),
              StatusIs(StatusCode::kFailedPrecondition));

  StatusOr<MergeProposal> within = engine->ProposeSameAs(alice, alice_run, "same person");
  ASSERT_THAT(within, IsOk());
  EXPECT_THAT(engine->AcceptProposal(within->id), IsOk());
  EXPECT_THAT(engine->ProposeSameAs(alice_run, remember("user:alice", "Kim is back."), ""), IsOk());
}

// Every size key that drives a loop of recall has bounds; out of range is an error naming the
// key and its bounds.
TEST(ConfigBoundsTest, OutOfRangeSizesAreErrorsNamingKeyAndBounds) {
  const struct {
    std::string toml;
    std::string message;
  } cases[] = {
      {"[recall]\nneighbour_radius = 2000000000\n",
       "[recall] neighbour_radius is 2000000000; it must be in [0, 100]"},
      {"[recall]\nmax_items = 1000000\n",
       "[recall] max_items is 1000000; it must be in [1, 10000]"},
      {"[recall]\nroute_candidates = 0\n",
       "[recall] route_candidates is 0; it must be in [1, 10000]"},
      {"[recall]\nneighbour_seeds = 5000\n", "[recall] neighbour_seeds"},
      {"[recall]\nfragment_window = 1000\n", "[recall] fragment_window"},
      {"[vector]\nhnsw_search_expansion = 100000000\n", "[vector] hnsw_search_expansion"},
      {"[vector]\nhnsw_construction_expansion = 100000000\n",
       "[vector] hnsw_construction_expansion"},
  };
  for (const auto& test_case : cases) {
    StatusOr<Config> config = ParseConfig(test_case.toml, "engram.toml");
    EXPECT_THAT(config, StatusIs(StatusCode::kInvalidArgument)) << test_case.toml;
    EXPECT_THAT(config.status().message(), HasSubstr(test_case.message));
  }
  EXPECT_THAT(ParseConfig("[recall]\nneighbour_radius = 100\n", "engram.toml"), IsOk());
}

TEST(ConfigBoundsTest, ConfigFileNamingADirectoryIsAnError) {
  testing::TempDir dir;
  EXPECT_THAT(LoadConfigFile(dir.path()),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("is a directory")));
}

// Idempotency keys are the store's: a turn whose key its scope holds (or an earlier turn of the
// batch has) is recognised inside the write transaction, reported and not stored again; the key
// is not part of the turn's metadata, and another scope may use the same key.
TEST(IdempotencyKeyTest, ATurnWhoseKeyItsScopeHoldsIsReportedAndNotStoredAgain) {
  testing::TempDir dir;
  std::unique_ptr<Engine> engine = testing::OpenOrDie(LexicalOptions(dir));
  const auto keyed = [](const std::string& text, const std::string& key) {
    Turn turn = testing::MakeTurn("Ana", text);
    turn.metadata_json = R"({"source":"chat"})";
    turn.idempotency_key = key;
    return turn;
  };
  StatusOr<RememberResult> first =
      engine->Remember(testing::S("user:ana"), std::vector<Turn>{keyed("I moved to Lisbon.", "m1"),
                                                                 keyed("I moved to Lisbon.", "m1"),
                                                                 keyed("I adopted a cat.", "m2")});
  ASSERT_THAT(first, IsOk());
  EXPECT_THAT(first->already_stored, ::testing::ElementsAre(1u));
  ASSERT_THAT(first->ids, SizeIs(3));
  EXPECT_EQ(first->ids[1], first->ids[0]);
  EXPECT_EQ(first->first_sequence, 1);
  EXPECT_EQ(first->last_sequence, 2);

  StatusOr<RememberResult> second = engine->Remember(
      testing::S("user:ana"),
      std::vector<Turn>{keyed("I adopted a cat.", "m2"), keyed("I bought a bike.", "m3")});
  ASSERT_THAT(second, IsOk());
  EXPECT_THAT(second->already_stored, ::testing::ElementsAre(0u));
  EXPECT_EQ(second->ids[0], first->ids[2]);
  EXPECT_EQ(second->first_sequence, 3);
  EXPECT_EQ(second->last_sequence, 3);

  StatusOr<RememberResult> repeated =
      engine->Remember(testing::S("user:ana"), std::vector<Turn>{keyed("I bought a bike.", "m3")});
  ASSERT_THAT(repeated, IsOk());
  EXPECT_THAT(repeated->already_stored, ::testing::ElementsAre(0u));
  EXPECT_EQ(repeated->first_sequence, 0);  // nothing stored

  StatusOr<std::vector<Memory>> turns = engine->List(testing::S("user:ana"));
  ASSERT_THAT(turns, IsOk());
  ASSERT_THAT(*turns, SizeIs(3));
  for (const Memory& turn : *turns) EXPECT_EQ(turn.metadata_json, R"({"source":"chat"})");

  StatusOr<RememberResult> other = engine->Remember(
      testing::S("user:bob"), std::vector<Turn>{keyed("I moved to Lisbon.", "m1")});
  ASSERT_THAT(other, IsOk());
  EXPECT_THAT(other->already_stored, ::testing::IsEmpty());
}

TEST(IdempotencyKeyTest, ABlankOrControlCharacterKeyIsRefusedNamingTheTurn) {
  testing::TempDir dir;
  std::unique_ptr<Engine> engine = testing::OpenOrDie(LexicalOptions(dir));
  Turn blank = testing::MakeTurn("Ana", "Hello.");
  blank.idempotency_key = "   ";
  EXPECT_THAT(
      engine->Remember(testing::S("user:ana"), std::vector<Turn>{blank}),
      StatusIs(StatusCode::kInvalidArgument, HasSubstr("turn 0: idempotency_key is blank")));
  Turn control = testing::MakeTurn("Ana", "Hello.");
  control.idempotency_key = "a\x01b";
  EXPECT_THAT(engine->Remember(testing::S("user:ana"), std::vector<Turn>{control}),
              StatusIs(StatusCode::kInvalidArgument,
                       HasSubstr("idempotency_key contains a control character")));
  Turn too_long = testing::MakeTurn("Ana", "Hello.");
  too_long.idempotency_key = std::string(257, 'k');
  EXPECT_THAT(engine->Remember(testing::S("user:ana"), std::vector<Turn>{too_long}),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("idempotency_key is 257 bytes")));
}

// A fact is valid only while its evidence is: retiring the one turn it came from hides it from
// recall, which still shows it when retired memories are asked for.
TEST(EvidenceVisibilityTest, AFactWhoseOnlyEvidenceTurnIsRetiredIsHiddenFromRecall) {
  testing::TempDir dir;
  std::unique_ptr<Engine> engine = testing::OpenOrDie(LexicalOptions(dir));
  const Scope scope = testing::S("user:mia");
  StatusOr<RememberResult> stored = engine->Remember(
      scope, std::vector<Turn>{testing::MakeTurn("Mia", "I moved to Berlin last March.", "s1",
                                                 "2024-05-10T12:00:00Z"),
                               testing::MakeTurn("Mia", "Do you know a good bakery around here?",
                                                 "s1", "2024-05-10T12:05:00Z")});
  ASSERT_THAT(stored, IsOk());
  ListOptions fact_kind;
  fact_kind.kind = NodeKind::kFact;
  StatusOr<std::vector<Memory>> facts = engine->List(scope, fact_kind);
  ASSERT_THAT(facts, IsOk());
  ASSERT_THAT(*facts, SizeIs(1));
  const std::string fact_id = facts->front().id;
  ASSERT_THAT(facts->front().provenance, ::testing::ElementsAre(stored->ids[0]));
  const auto recalled_ids = [&](bool include_retired) {
    RecallOptions options;
    options.include_retired = include_retired;
    options.routes = {"facts"};  // alone: packing would otherwise fold the fact into its turn
    StatusOr<ReadResult> result = engine->Recall(scope, {.text = "Where does Mia live?"}, options);
    EXPECT_THAT(result, IsOk());
    std::vector<std::string> ids;
    if (result.ok()) {
      for (const RecallItem& item : result->items) ids.push_back(item.id);
    }
    return ids;
  };
  ASSERT_THAT(recalled_ids(false), ::testing::Contains(fact_id));

  ASSERT_THAT(engine->Retire(stored->ids[0], "wrong city"), IsOk());
  EXPECT_THAT(recalled_ids(false), ::testing::Not(::testing::Contains(fact_id)));
  EXPECT_THAT(recalled_ids(true), ::testing::Contains(fact_id));
  // The fact itself is untouched: still active in the store, its evidence withdrawn.
  StatusOr<Memory> fact = engine->Get(fact_id);
  ASSERT_THAT(fact, IsOk());
  EXPECT_EQ(fact->status, NodeStatus::kActive);
}

// Amend carries an empty replacement metadata's old value over, unless asked to clear it.
TEST(AmendMetadataTest, ClearMetadataStoresTheReplacementsEmptyMetadata) {
  testing::TempDir dir;
  std::unique_ptr<Engine> engine = testing::OpenOrDie(LexicalOptions(dir));
  Turn turn = testing::MakeTurn("Ana", "I moved to Lisbon.");
  turn.metadata_json = R"({"source":"chat"})";
  StatusOr<RememberResult> stored =
      engine->Remember(testing::S("user:ana"), std::vector<Turn>{turn});
  ASSERT_THAT(stored, IsOk());
  Turn replacement = testing::MakeTurn("", "I moved to Porto.");
  replacement.metadata_json = "{}";
  StatusOr<AmendResult> carried = engine->Amend(stored->ids[0], replacement, "typo");
  ASSERT_THAT(carried, IsOk());
  StatusOr<Memory> carried_turn = engine->Get(carried->id);
  ASSERT_THAT(carried_turn, IsOk());
  EXPECT_EQ(carried_turn->metadata_json, R"({"source":"chat"})");

  replacement.text = "I moved to Braga.";
  StatusOr<AmendResult> cleared =
      engine->Amend(carried->id, replacement, "no source", {.clear_metadata = true});
  ASSERT_THAT(cleared, IsOk());
  StatusOr<Memory> cleared_turn = engine->Get(cleared->id);
  ASSERT_THAT(cleared_turn, IsOk());
  EXPECT_EQ(cleared_turn->metadata_json, "{}");
  EXPECT_EQ(cleared_turn->speaker, "Ana");  // the rest still carries over

  Turn keyed = testing::MakeTurn("", "I moved to Faro.");
  keyed.idempotency_key = "k";
  EXPECT_THAT(engine->Amend(cleared->id, keyed),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("idempotency_key")));
}

// An erase whose final write-ahead-log wipe fails (a reader holds an old snapshot) is committed:
// Erase says so, and the engine's state already follows it.
TEST(EraseWipeTest, AnEraseWhoseWalWipeFailsIsCommittedAndTheEngineFollowsIt) {
  testing::TempDir dir;
  const EngineOptions options = LexicalOptions(dir);
  std::unique_ptr<Engine> engine = testing::OpenOrDie(options);
  ASSERT_THAT(engine->Remember(testing::S("user:alice"),
                               std::vector<Turn>{testing::MakeTurn("Alice", "I moved to Lisbon.")}),
              IsOk());
  ASSERT_THAT(engine->Remember(testing::S("user:bob"),
                               std::vector<Turn>{testing::MakeTurn("Bob", "I moved to Lisbon.")}),
              IsOk());
  ASSERT_THAT(engine->Recall(testing::S("user:alice"), {.text = "Where did Alice move?"}),
              IsOk());  // builds alice's projections
  sqlite3* reader = nullptr;
  ASSERT_EQ(sqlite3_open_v2(options.store_path.c_str(), &reader, SQLITE_OPEN_READONLY, nullptr),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(reader, "BEGIN; SELECT count(*) FROM nodes;", nullptr, nullptr, nullptr),
            SQLITE_OK);
  const StatusOr<EraseResult> erased = engine->Erase(testing::S("user:alice"));
  sqlite3_exec(reader, "COMMIT", nullptr, nullptr, nullptr);
  sqlite3_close(reader);
  EXPECT_THAT(erased, StatusIs(StatusCode::kUnavailable, HasSubstr("the erase is committed")));

  EXPECT_THAT(engine->Recall(testing::S("user:alice"), {.text = "Where did Alice move?"}),
              StatusIs(StatusCode::kNotFound));
  StatusOr<std::vector<ScopeInfo>> scopes = engine->ListScopes();
  ASSERT_THAT(scopes, IsOk());
  ASSERT_THAT(*scopes, SizeIs(1));
  EXPECT_EQ((*scopes)[0].scope, "user:bob");
  StatusOr<RebuildReport> rebuilt = engine->RebuildIndex();
  ASSERT_THAT(rebuilt, IsOk());
  EXPECT_TRUE(rebuilt->matched_live_index);
  // A new scope of the same name starts empty.
  ASSERT_THAT(engine->Remember(testing::S("user:alice"),
                               std::vector<Turn>{testing::MakeTurn("Alice", "I like tea.")}),
              IsOk());
  StatusOr<ReadResult> recalled =
      engine->Recall(testing::S("user:alice"), {.text = "Where did Alice move?"});
  ASSERT_THAT(recalled, IsOk());
  for (const RecallItem& item : recalled->items) EXPECT_THAT(item.text, Not(HasSubstr("Lisbon")));
}

}  // namespace
}  // namespace engram
