// The engine's vectors through the public API: Remember embeds turns in the same transaction,
// the store records its embedder and refuses another one, Reembed migrates, Erase removes
// vectors, the vector projection follows other engines' writes and switches to HNSW past the
// threshold, and the built-in encoder finds a paraphrase BM25 cannot.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/paths.h"
#include "embed/use_lite.h"
#include "engine/vector_projection.h"
#include "engram/engine.h"
#include "engram/testing/status_matchers.h"
#include "store/store.h"
#include "test_util.h"

namespace engram {
namespace {

using ::engram::testing::IsOk;
using ::engram::testing::StatusIs;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

Config WithEmbedder(const std::string& kind, std::size_t hashing_dimension = 256) {
  Config config;
  config.embedder.kind = kind;
  config.embedder.hashing_dimension = hashing_dimension;
  return config;
}

EngineOptions Options(const testing::TempDir& dir, const Config& config) {
  EngineOptions options = testing::TestOptions(dir);
  options.config = config;
  return options;
}

// One session per turn, so recall's neighbour expansion (which lifts the turns next to a good
// candidate in its session) leaves the vector route's order alone.
std::vector<Turn> Turns(const std::vector<std::string>& texts) {
  std::vector<Turn> turns;
  for (std::size_t i = 0; i < texts.size(); ++i) {
    turns.push_back(testing::MakeTurn(i % 2 ? "Ben" : "Ana", texts[i], "session of " + texts[i]));
  }
  return turns;
}

RecallOptions VectorOnly(std::size_t k = 1) {
  RecallOptions options;
  options.routes = {"vector"};
  options.k = k;
  return options;
}

// Number of stored vectors of a scope and the recorded embedder, read from the closed store.
struct StoredVectors {
  std::int64_t count = 0;
  std::string model_id;
};
StoredVectors ReadStored(const std::string& path, const std::string& scope) {
  StoredVectors stored;
  StatusOr<std::unique_ptr<store::Store>> store = store::OpenSqliteStore(path);
  EXPECT_THAT(store, IsOk());
  if (!store.ok()) return stored;
  StatusOr<std::optional<store::EmbedderRecord>> embedder = (*store)->GetEmbedder();
  EXPECT_THAT(embedder, IsOk());
  if (embedder.ok() && embedder->has_value()) stored.model_id = (*embedder)->model_id;
  StatusOr<std::optional<store::ScopeRecord>> record = (*store)->FindScope(scope);
  EXPECT_THAT(record, IsOk());
  if (record.ok() && record->has_value()) {
    stored.count = (*store)->CountVectors((*record)->scope_id).value_or(-1);
  }
  return stored;
}

const std::vector<std::string> kTexts = {
    "The hiking boots arrived with a broken lace",
    "Sourdough starter needs feeding every morning",
    "Quarterly tax forms are due next week",
    "The piano recital moved to the town hall",
};

TEST(VectorTest, RememberStoresOneVectorPerTurnAndTheVectorRouteFindsThem) {
  testing::TempDir dir;
  {
    std::unique_ptr<Engine> engine = testing::OpenOrDie(Options(dir, WithEmbedder("hashing")));
    EXPECT_EQ(engine->embedder_id(), "hashing-256");
    StatusOr<RememberResult> remembered = engine->Remember(testing::S("user:ana"), Turns(kTexts));
    ASSERT_THAT(remembered, IsOk());
    StatusOr<ReadResult> result =
        engine->Recall(testing::S("user:ana"), {.text = "feeding the sourdough starter"},
                       VectorOnly());
    ASSERT_THAT(result, IsOk());
    EXPECT_THAT(testing::ItemIds(*result), ElementsAre(remembered->ids[1]));
    ASSERT_FALSE(result->items.empty());
    ASSERT_FALSE(result->items[0].routes.empty());
    EXPECT_EQ(result->items[0].routes[0].route, "vector");
    EXPECT_THAT(result->items[0].routes[0].explanation, HasSubstr("cosine="));
  }
  const StoredVectors stored = ReadStored(dir.File("engram.db"), "user:ana");
  EXPECT_EQ(stored.count, 4);
  EXPECT_EQ(stored.model_id, "hashing-256");
}

// [recall] vector_context: a reply that shares no word with the question is found through the
// turn it answers, the turn just before it in its session; 0 scores each turn alone.
TEST(VectorTest, AReplyIsFoundThroughTheTurnBeforeIt) {
  const std::vector<Turn> turns = {
      testing::MakeTurn("Ana", "Which instrument did you learn as a child?", "s1"),
      testing::MakeTurn("Ben", "The clarinet, every afternoon after school", "s1"),
      testing::MakeTurn("Ana", "Did you learn to plant tomatoes in the garden?", "s2"),
      testing::MakeTurn("Ben", "Quarterly tax forms are due next week", "s3")};
  for (const double context : {1.0, 0.0}) {
    SCOPED_TRACE("vector_context " + std::to_string(context));
    testing::TempDir dir;
    Config config = WithEmbedder("hashing");
    config.recall.vector_context = context;
    // The route's own order: no stage after fusion that lifts a question's neighbours, lowers a
    // question or favours the named speaker.
    config.recall.neighbour_weight = 0;
    config.recall.neighbour_answer_weight = 0;
    config.recall.question_penalty = 0;
    config.recall.person_boost = 1.0;
    std::unique_ptr<Engine> engine = testing::OpenOrDie(Options(dir, config));
    StatusOr<RememberResult> remembered = engine->Remember(testing::S("user:ana"), turns);
    ASSERT_THAT(remembered, IsOk());
    StatusOr<ReadResult> result =
        engine->Recall(testing::S("user:ana"),
                       {.text = "which instrument did Ana learn as a child"}, VectorOnly(4));
    ASSERT_THAT(result, IsOk());
    const std::vector<std::string> ids = testing::ItemIds(*result);
    ASSERT_EQ(ids.size(), 4u);
    EXPECT_EQ(ids[0], remembered->ids[0]);
    const auto reply = std::find(ids.begin(), ids.end(), remembered->ids[1]);
    ASSERT_NE(reply, ids.end());
    const std::string& explanation = result->items[reply - ids.begin()].routes[0].explanation;
    if (context > 0) {
      EXPECT_EQ(reply - ids.begin(), 1);
      EXPECT_THAT(explanation, HasSubstr("with the turn before it"));
    } else {
      EXPECT_GT(reply - ids.begin(), 1);  // it shares no word with the question
      EXPECT_THAT(explanation, ::testing::Not(HasSubstr("turn before")));
    }
  }
}

TEST(VectorTest, DefaultRecallFusesBm25AndVectorRoutes) {
  testing::TempDir dir;
  std::unique_ptr<Engine> engine = testing::OpenOrDie(Options(dir, WithEmbedder("hashing")));
  ASSERT_THAT(engine->Remember(testing::S("user:ana"), Turns(kTexts)), IsOk());
  StatusOr<ReadResult> result =
      engine->Recall(testing::S("user:ana"), {.text = "when are the tax forms due?"});
  ASSERT_THAT(result, IsOk());
  std::vector<std::string> routes;
  for (const RouteDiagnostics& route : result->diagnostics.routes) routes.push_back(route.route);
  EXPECT_THAT(routes, ::testing::IsSupersetOf({"bm25", "vector"}));
  for (const RouteDiagnostics& route : result->diagnostics.routes) {
    if (route.route == "vector") {
      EXPECT_EQ(route.candidates, 4u);
    }
  }
}

TEST(VectorTest, OpeningWithAnotherEmbedderIsFailedPreconditionNamingBothAndReembed) {
  testing::TempDir dir;
  {
    std::unique_ptr<Engine> engine = testing::OpenOrDie(Options(dir, WithEmbedder("hashing")));
    ASSERT_THAT(engine->Remember(testing::S("user:ana"), Turns(kTexts)), IsOk());
  }
  EXPECT_THAT(Engine::Open(Options(dir, WithEmbedder("hashing", 64))),
              StatusIs(StatusCode::kFailedPrecondition,
                       AllOf(HasSubstr("hashing-256"), HasSubstr("hashing-64"),
                             HasSubstr("engram reembed"))));
  EXPECT_THAT(Engine::Open(Options(dir, WithEmbedder("none"))),
              StatusIs(StatusCode::kFailedPrecondition,
                       AllOf(HasSubstr("hashing-256"), HasSubstr("\"none\""))));
}

TEST(VectorTest, StoreWrittenWithoutEmbedderNeedsReembedForOne) {
  testing::TempDir dir;
  {
    std::unique_ptr<Engine> engine = testing::OpenOrDie(Options(dir, WithEmbedder("none")));
    EXPECT_EQ(engine->embedder_id(), "none");
    ASSERT_THAT(engine->Remember(testing::S("user:ana"), Turns(kTexts)), IsOk());
    // BM25 still answers; the vector route proposes nothing.
    StatusOr<ReadResult> result =
        engine->Recall(testing::S("user:ana"), {.text = "piano recital"}, {});
    ASSERT_THAT(result, IsOk());
    ASSERT_FALSE(result->items.empty());
    StatusOr<ReadResult> vector_only =
        engine->Recall(testing::S("user:ana"), {.text = "piano recital"}, VectorOnly());
    ASSERT_THAT(vector_only, IsOk());
    EXPECT_THAT(vector_only->items, IsEmpty());
  }
  EXPECT_EQ(ReadStored(dir.File("engram.db"), "user:ana").model_id, "none");
  EXPECT_THAT(Engine::Open(Options(dir, WithEmbedder("hashing"))),
              StatusIs(StatusCode::kFailedPrecondition, HasSubstr("engram reembed")));
}

TEST(VectorTest, ReembedMigratesTheStoreAndIsIdempotent) {
  testing::TempDir dir;
  std::vector<std::string> ids;
  {
    std::unique_ptr<Engine> engine = testing::OpenOrDie(Options(dir, WithEmbedder("hashing")));
    StatusOr<RememberResult> first = engine->Remember(testing::S("user:ana"), Turns(kTexts));
    ASSERT_THAT(first, IsOk());
    ids = first->ids;
    ASSERT_THAT(engine->Remember(testing::S("user:ben/run:1"),
                                 Turns({"The garden beds need fresh compost"})),
                IsOk());
  }
  EngineOptions options = Options(dir, WithEmbedder("hashing", 64));
  options.check_embedder = false;
  std::string first_recall;
  for (int round = 0; round < 2; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    std::unique_ptr<Engine> engine = testing::OpenOrDie(options);
    // Before the migration the mismatched engine refuses writes and recalls without vectors.
    if (round == 0) {
      EXPECT_THAT(engine->Remember(testing::S("user:ana"), Turns({"one more"})),
                  StatusIs(StatusCode::kFailedPrecondition, HasSubstr("engram reembed")));
      StatusOr<ReadResult> before =
          engine->Recall(testing::S("user:ana"), {.text = "tax forms"}, VectorOnly());
      ASSERT_THAT(before, IsOk());
      EXPECT_THAT(before->items, IsEmpty());
    }
    std::vector<std::pair<std::size_t, std::size_t>> progress;
    StatusOr<ReembedResult> result = engine->Reembed(
        [&](std::size_t done, std::size_t total) { progress.emplace_back(done, total); });
    ASSERT_THAT(result, IsOk());
    EXPECT_EQ(result->previous_model_id, round == 0 ? "hashing-256" : "hashing-64");
    EXPECT_EQ(result->model_id, "hashing-64");
    EXPECT_EQ(result->dimension, 64u);
    EXPECT_EQ(result->turns, 5u);
    ASSERT_FALSE(progress.empty());
    EXPECT_EQ(progress.back(), std::make_pair(std::size_t{5}, std::size_t{5}));
    StatusOr<ReadResult> after =
        engine->Recall(testing::S("user:ana"), {.text = "tax forms due"}, VectorOnly());
    ASSERT_THAT(after, IsOk());
    EXPECT_THAT(testing::ItemIds(*after), ElementsAre(ids[2]));
    if (round == 0) first_recall = after->context;
    EXPECT_EQ(after->context, first_recall);
  }
  EXPECT_EQ(ReadStored(dir.File("engram.db"), "user:ana").count, 4);
  // Now a normal open with the new embedder works, and writes embed with it.
  std::unique_ptr<Engine> engine = testing::OpenOrDie(Options(dir, WithEmbedder("hashing", 64)));
  EXPECT_THAT(engine->Remember(testing::S("user:ana"), Turns({"one more"})), IsOk());
}

TEST(VectorTest, ABatchWithABadTurnStoresNoVectors) {
  testing::TempDir dir;
  {
    std::unique_ptr<Engine> engine = testing::OpenOrDie(Options(dir, WithEmbedder("hashing")));
    ASSERT_THAT(engine->Remember(testing::S("user:ana"), Turns({"first turn"})), IsOk());
    std::vector<Turn> batch = Turns({"fine", "also fine"});
    batch[1].text = std::string("bad \xff utf8");
    EXPECT_THAT(engine->Remember(testing::S("user:ana"), batch),
                StatusIs(StatusCode::kInvalidArgument));
    EXPECT_THAT(engine->Remember(testing::S("user:bob"), batch),
                StatusIs(StatusCode::kInvalidArgument));
  }
  EXPECT_EQ(ReadStored(dir.File("engram.db"), "user:ana").count, 1);
}

TEST(VectorTest, EraseRemovesTheScopesVectors) {
  testing::TempDir dir;
  {
    std::unique_ptr<Engine> engine = testing::OpenOrDie(Options(dir, WithEmbedder("hashing")));
    ASSERT_THAT(engine->Remember(testing::S("user:ana"), Turns(kTexts)), IsOk());
    ASSERT_THAT(engine->Remember(testing::S("user:ana/run:1"), Turns({"nested turn"})), IsOk());
    ASSERT_THAT(engine->Remember(testing::S("user:ben"), Turns({"kept turn"})), IsOk());
    ASSERT_THAT(engine->Recall(testing::S("user:ana"), {.text = "piano"}, VectorOnly()), IsOk());
    ASSERT_THAT(engine->Erase(testing::S("user:ana")), IsOk());
    StatusOr<ReadResult> kept =
        engine->Recall(testing::S("user:ben"), {.text = "kept turn"}, VectorOnly());
    ASSERT_THAT(kept, IsOk());
    EXPECT_EQ(kept->items.size(), 1u);
  }
  StatusOr<std::unique_ptr<store::Store>> store = store::OpenSqliteStore(dir.File("engram.db"));
  ASSERT_THAT(store, IsOk());
  StatusOr<std::string> dump = (*store)->DumpCanonical();
  ASSERT_THAT(dump, IsOk());
  // One vector row left: ben's.
  const std::string table = dump->substr(dump->find("== vectors"));
  EXPECT_EQ(std::count(table.begin(), table.begin() + table.find("\n== ") + 1, '\n'), 2);
  EXPECT_EQ(ReadStored(dir.File("engram.db"), "user:ben").count, 1);
}

TEST(VectorTest, TheProjectionFollowsWritesOfAnotherEngine) {
  testing::TempDir dir;
  std::unique_ptr<Engine> reader = testing::OpenOrDie(Options(dir, WithEmbedder("hashing")));
  std::unique_ptr<Engine> writer = testing::OpenOrDie(Options(dir, WithEmbedder("hashing")));
  ASSERT_THAT(writer->Remember(testing::S("user:ana"), Turns({kTexts[0]})), IsOk());
  ASSERT_THAT(reader->Recall(testing::S("user:ana"), {.text = "hiking"}, VectorOnly()), IsOk());
  StatusOr<RememberResult> later = writer->Remember(testing::S("user:ana"), Turns({kTexts[3]}));
  ASSERT_THAT(later, IsOk());
  StatusOr<ReadResult> result =
      reader->Recall(testing::S("user:ana"), {.text = "piano recital town hall"}, VectorOnly());
  ASSERT_THAT(result, IsOk());
  EXPECT_THAT(testing::ItemIds(*result), ElementsAre(later->ids[0]));
}

TEST(VectorTest, ScopesPastTheExactThresholdAreSearchedThroughHnswWithTheSameAnswers) {
  std::vector<std::string> texts;
  for (int i = 0; i < 40; ++i) {
    texts.push_back("note number " + std::to_string(i) + " about topic" + std::to_string(i * 7));
  }
  auto top_ids = [&](std::size_t threshold) {
    testing::TempDir dir;
    Config config = WithEmbedder("hashing", 4096);  // wide enough that no two words collide
    config.vector.exact_threshold = threshold;
    std::unique_ptr<Engine> engine = testing::OpenOrDie(Options(dir, config));
    // Load the projection with the first half, then grow it past the threshold.
    EXPECT_THAT(engine->Remember(testing::S("user:ana"),
                                 Turns({texts.begin(), texts.begin() + 20})),
                IsOk());
    EXPECT_THAT(engine->Recall(testing::S("user:ana"), {.text = "note"}, VectorOnly()), IsOk());
    EXPECT_THAT(engine->Remember(testing::S("user:ana"), Turns({texts.begin() + 20, texts.end()})),
                IsOk());
    std::vector<std::string> tops;
    for (const int probe : {3, 17, 31, 39}) {
      StatusOr<ReadResult> result = engine->Recall(
          testing::S("user:ana"), {.text = "topic" + std::to_string(probe * 7)}, VectorOnly());
      EXPECT_THAT(result, IsOk());
      if (result.ok() && !result->items.empty()) tops.push_back(result->items[0].text);
    }
    StatusOr<RebuildReport> rebuilt = engine->RebuildIndex();
    EXPECT_THAT(rebuilt, IsOk());
    if (rebuilt.ok()) {
      EXPECT_TRUE(rebuilt->matched_live_index);
    }
    return tops;
  };
  const std::vector<std::string> exact = top_ids(1000);
  EXPECT_THAT(exact, ElementsAre(texts[3], texts[17], texts[31], texts[39]));
  EXPECT_EQ(top_ids(25), exact);  // crosses the threshold after loading
  EXPECT_EQ(top_ids(5), exact);   // HNSW from the first load
}

// Vectors covered by the stored HNSW graph of `scope` in the store at `path` (-1: none stored,
// -2: no such scope or the store did not open).
std::int64_t StoredSnapshotItems(const std::string& path, std::string_view scope = "user:ana") {
  StatusOr<std::unique_ptr<store::Store>> store = store::OpenSqliteStore(path);
  EXPECT_THAT(store, IsOk());
  if (!store.ok()) return -2;
  StatusOr<std::optional<store::ScopeRecord>> record = (*store)->FindScope(scope);
  if (!record.ok() || !record->has_value()) return -2;
  StatusOr<std::optional<store::ProjectionSnapshot>> snapshot =
      (*store)->GetProjectionSnapshot((*record)->scope_id, kHnswSnapshotProjection);
  EXPECT_THAT(snapshot, IsOk());
  return snapshot.ok() && snapshot->has_value() ? (*snapshot)->item_count : -1;
}

// The HNSW graph a closing engine keeps (vector_projection.h): the next process loads it, adds the
// turns stored since, and recalls exactly what a process that built the graph itself recalls.
TEST(VectorTest, AClosedEnginesGraphIsLoadedByTheNextAndRecallsTheSame) {
  std::vector<std::string> texts;
  for (int i = 0; i < 150; ++i) {
    texts.push_back("entry " + std::to_string(i) + " about subject" + std::to_string(i * 13 % 97) +
                    " and item" + std::to_string(i % 11));
  }
  Config config = WithEmbedder("hashing", 64);
  config.vector.exact_threshold = 20;
  config.vector.hnsw_max_neighbors = 8;
  config.vector.hnsw_construction_expansion = 40;
  // Two processes: 120 turns and a recall (the graph is built and kept), then 30 more turns and
  // the recalls compared. `discard` makes the second process build its own graph.
  const auto run = [&](const testing::TempDir& dir, bool discard) {
    {
      std::unique_ptr<Engine> engine = testing::OpenOrDie(Options(dir, config));
      EXPECT_THAT(
          engine->Remember(testing::S("user:ana"), Turns({texts.begin(), texts.begin() + 120})),
          IsOk());
      EXPECT_THAT(engine->Recall(testing::S("user:ana"), {.text = "subject5"}, VectorOnly()),
                  IsOk());
    }
    EXPECT_EQ(StoredSnapshotItems(dir.File("engram.db")), 120);
    if (discard) {
      // Recorded for another embedder: not this projection's, so the next process builds.
      StatusOr<std::unique_ptr<store::Store>> store = store::OpenSqliteStore(dir.File("engram.db"));
      EXPECT_THAT(store, IsOk());
      StatusOr<std::optional<store::ScopeRecord>> scope = (*store)->FindScope("user:ana");
      EXPECT_THAT(scope, IsOk());
      StatusOr<std::optional<store::ProjectionSnapshot>> snapshot =
          (*store)->GetProjectionSnapshot((*scope)->scope_id, kHnswSnapshotProjection);
      EXPECT_THAT(snapshot, IsOk());
      store::ProjectionSnapshot foreign = **snapshot;
      foreign.key = "another embedder";
      StatusOr<std::unique_ptr<store::Transaction>> txn = (*store)->BeginWrite();
      EXPECT_THAT(txn, IsOk());
      EXPECT_THAT((*txn)->PutProjectionSnapshot(foreign), IsOk());
      EXPECT_THAT((*txn)->Commit(), IsOk());
    }
    std::vector<std::pair<std::string, double>> recalled;
    {
      std::unique_ptr<Engine> engine = testing::OpenOrDie(Options(dir, config));
      EXPECT_THAT(
          engine->Remember(testing::S("user:ana"), Turns({texts.begin() + 120, texts.end()})),
          IsOk());
      for (const int probe : {3, 40, 77, 121, 149}) {
        StatusOr<ReadResult> result =
            engine->Recall(testing::S("user:ana"), {.text = texts[probe]}, VectorOnly(10));
        EXPECT_THAT(result, IsOk());
        if (!result.ok()) continue;
        for (const RecallItem& item : result->items) recalled.emplace_back(item.id, item.score);
      }
    }
    return recalled;
  };
  testing::TempDir kept_dir;
  testing::TempDir built_dir;
  const auto from_snapshot = run(kept_dir, /*discard=*/false);
  const auto built = run(built_dir, /*discard=*/true);
  EXPECT_EQ(from_snapshot.size(), 50u);
  EXPECT_EQ(from_snapshot, built);
  // The loaded graph grew by 30 turns, under the 1,000 that make a new snapshot worth writing;
  // the process that built its own wrote one over all 150.
  EXPECT_EQ(StoredSnapshotItems(kept_dir.File("engram.db")), 120);
  EXPECT_EQ(StoredSnapshotItems(built_dir.File("engram.db")), 150);
  // Not evidence: the two stores' canonical dumps are equal.
  StatusOr<std::unique_ptr<store::Store>> kept = store::OpenSqliteStore(kept_dir.File("engram.db"));
  StatusOr<std::unique_ptr<store::Store>> rebuilt =
      store::OpenSqliteStore(built_dir.File("engram.db"));
  ASSERT_THAT(kept, IsOk());
  ASSERT_THAT(rebuilt, IsOk());
  StatusOr<std::string> kept_dump = (*kept)->DumpCanonical();
  ASSERT_THAT(kept_dump, IsOk());
  EXPECT_THAT((*rebuilt)->DumpCanonical(), ::engram::testing::IsOkAndHolds(*kept_dump));
}

// A graph a recall built from the vectors is stored right after that recall, before the engine
// closes: a process killed later (no destructor runs) has not lost the build.
TEST(VectorTest, AGraphARecallBuiltIsStoredBeforeTheEngineCloses) {
  std::vector<std::string> texts;
  for (int i = 0; i < 60; ++i) texts.push_back("entry " + std::to_string(i) + " about topic");
  Config config = WithEmbedder("hashing", 64);
  config.vector.exact_threshold = 20;
  testing::TempDir dir;
  std::unique_ptr<Engine> engine = testing::OpenOrDie(Options(dir, config));
  ASSERT_THAT(engine->Remember(testing::S("user:ana"), Turns(texts)), IsOk());
  EXPECT_EQ(StoredSnapshotItems(dir.File("engram.db")), -1);  // no recall yet: no graph
  ASSERT_THAT(engine->Recall(testing::S("user:ana"), {.text = "topic"}, VectorOnly()), IsOk());
  EXPECT_EQ(StoredSnapshotItems(dir.File("engram.db")), 60);  // the engine is still open
  // A scope searched exactly (at most exact_threshold vectors) gets none.
  ASSERT_THAT(engine->Remember(testing::S("user:bo"), Turns({texts.begin(), texts.begin() + 5})),
              IsOk());
  ASSERT_THAT(engine->Recall(testing::S("user:bo"), {.text = "topic"}, VectorOnly()), IsOk());
  EXPECT_EQ(StoredSnapshotItems(dir.File("engram.db"), "user:bo"), -1);
}

TEST(VectorTest, MissingModelIsAClearErrorNamingTheFileAndSetup) {
  testing::TempDir dir;
  EXPECT_THAT(OpenEmbedder(WithEmbedder("use-lite").embedder, dir.File("no-data-here")),
              StatusIs(StatusCode::kNotFound,
                       AllOf(HasSubstr("no-data-here/models/use-lite"), HasSubstr("scripts/setup"))));
}

// The built-in encoder finds a paraphrase that shares no word with the question.
TEST(VectorTest, UseLiteFindsAParaphraseBm25Misses) {
  const std::string model_dir = embed::UseLiteModelDir(core::ResolveDataDir(""));
  if (!std::filesystem::exists(model_dir + "/model.json")) {
    GTEST_SKIP() << "USE-lite is not installed in " << model_dir << " (run scripts/setup)";
  }
  testing::TempDir dir;
  std::unique_ptr<Engine> engine = testing::OpenOrDie(Options(dir, WithEmbedder("use-lite")));
  StatusOr<RememberResult> remembered = engine->Remember(
      testing::S("user:ana"),
      Turns({"I'm seeing the tooth doctor on Tuesday", "The quarterly report is finished",
             "We adopted a kitten from the shelter", "My flight to Lisbon leaves at noon"}));
  ASSERT_THAT(remembered, IsOk());
  const RecallQuery query{.text = "dentist appointment"};
  RecallOptions bm25_only;
  bm25_only.routes = {"bm25"};
  StatusOr<ReadResult> bm25 = engine->Recall(testing::S("user:ana"), query, bm25_only);
  ASSERT_THAT(bm25, IsOk());
  EXPECT_THAT(bm25->items, IsEmpty());
  StatusOr<ReadResult> vector = engine->Recall(testing::S("user:ana"), query, VectorOnly());
  ASSERT_THAT(vector, IsOk());
  EXPECT_THAT(testing::ItemIds(*vector), ElementsAre(remembered->ids[0]));
}

}  // namespace
}  // namespace engram
