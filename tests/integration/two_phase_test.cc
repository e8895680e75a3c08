// Two-phase writes (DESIGN §4, src/engine/derive_worker.h), on every store backend
// (backend_suites.h): a non-blocking Remember returns once its turns are durable and searchable
// by BM25; the engine's worker embeds and derives them afterwards. These tests hold it to its
// promises: the final store content is the synchronous one, a crash between the phases loses no
// derivation, a recall made while the worker is behind finds the new turn, a failing derivation
// is reported (never dropped), and closing the engine keeps pending work in the store.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "backend_suites.h"
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

// The workload: two scopes, batches interleaved between them, with names, places, times,
// preferences and a correction, so every derivation stage writes something.
struct Batch {
  std::string scope;
  std::vector<Turn> turns;
};

std::vector<Batch> Workload() {
  const std::vector<std::vector<std::string>> texts = {
      {"My sister Maya moved to Porto last May.", "She works at a bakery near the river."},
      {"I love hiking in the Alps.", "We went to Zermatt two weeks ago."},
      {"Maya said the bakery opens at 7am on Saturdays.", "I prefer green tea in the morning."},
      {"Actually, I switched to black coffee.", "My budget for the trip is $1,200."},
      {"Remind me to call Maya next Friday.", "Ben is allergic to peanuts."},
      {"The Alps trip was in 2023.", "I don't like crowded trains."},
  };
  std::vector<Batch> batches;
  for (std::size_t batch_idx = 0; batch_idx < texts.size(); ++batch_idx) {
    Batch batch;
    batch.scope = batch_idx % 2 == 0 ? "user:ana/run:a" : "user:ben";
    for (std::size_t turn_idx = 0; turn_idx < texts[batch_idx].size(); ++turn_idx) {
      batch.turns.push_back(testing::MakeTurn(
          turn_idx % 2 == 0 ? "Ana" : "Ben", texts[batch_idx][turn_idx],
          "session-" + std::to_string(batch_idx / 2),
          "2023-05-0" + std::to_string(batch_idx + 1) + "T1" + std::to_string(turn_idx) +
              ":00:00Z"));
    }
    batches.push_back(std::move(batch));
  }
  return batches;
}

std::size_t WorkloadTurns() {
  std::size_t turns = 0;
  for (const Batch& batch : Workload()) turns += batch.turns.size();
  return turns;
}

void RememberAll(Engine& engine, RememberWait wait) {
  for (const Batch& batch : Workload()) {
    StatusOr<RememberResult> result =
        engine.Remember(testing::S(batch.scope), batch.turns, {.wait = wait});
    ASSERT_THAT(result, IsOk());
    EXPECT_EQ(result->derivation_pending, wait != RememberWait::kDerived);
  }
}

// What a synchronous and a two-phase run must agree on, read through the store interface:
// every node (id, kind, scope, content, sequence, status, validity, ingestion and update
// time), every edge (the same plus its endpoints and attributes), every vector (keyed by its
// node's id) and every turn's analysis row (keyed by the turn's id), each sorted by id; the
// journal as a sorted list of (scope, op, target, time, detail); and no derivation cursor left
// in the meta table. Not compared: row numbers, the
// journal's order and the Merkle logs (append-only in insertion order). The two runs insert the
// same rows in a different order — a synchronous run writes each batch's turns and then its
// derivations, a two-phase run writes turns of later batches before the derivations of earlier
// ones — so those follow the interleaving, while the content is the same.
std::string ContentDump(const std::string& location) {
  StatusOr<std::unique_ptr<store::Store>> opened = store::OpenStore(
      location, {.sqlite = {.create_if_missing = false}, .postgres = {.create_if_missing = false}});
  EXPECT_THAT(opened, IsOk());
  if (!opened.ok()) return "";
  store::Store& store = **opened;
  std::vector<std::string> lines;
  StatusOr<std::vector<store::ScopeRecord>> scopes = store.ListScopes();
  EXPECT_THAT(scopes, IsOk());
  for (const store::ScopeRecord& scope : *scopes) {
    std::map<std::int64_t, std::string> id_of_row;
    EXPECT_THAT(store.ScanNodes(scope.scope_id, std::nullopt,
                                [&](const store::NodeRecord& node) {
                                  id_of_row[node.row] = node.id;
                                  std::ostringstream line;
                                  line << "node " << node.id << " " << NodeKindName(node.kind)
                                       << " " << scope.path << " " << node.content_json << " "
                                       << node.sequence << " " << NodeStatusName(node.status)
                                       << " " << (node.valid_from ? node.valid_from->micros : -1)
                                       << " " << (node.valid_to ? node.valid_to->micros : -1)
                                       << " " << node.ingested_at.micros << " "
                                       << node.updated_at.micros;
                                  lines.push_back(line.str());
                                  return true;
                                }),
                IsOk());
    EXPECT_THAT(store.ScanEdges(scope.scope_id,
                                [&](const store::EdgeRecord& edge) {
                                  std::ostringstream line;
                                  line << "edge " << edge.id << " " << edge.type << " "
                                       << edge.src << " " << edge.dst << " " << scope.path << " "
                                       << edge.attrs_json << " " << edge.status << " "
                                       << (edge.valid_from ? edge.valid_from->micros : -1) << " "
                                       << (edge.valid_to ? edge.valid_to->micros : -1) << " "
                                       << edge.ingested_at.micros << " "
                                       << edge.updated_at.micros;
                                  lines.push_back(line.str());
                                  return true;
                                }),
                IsOk());
    // Each turn's analysis row (signals and DMF content signals, divergence included).
    std::vector<std::int64_t> turn_rows;
    for (const auto& [row, id] : id_of_row) turn_rows.push_back(row);
    StatusOr<std::vector<store::TurnAnalysisRecord>> analyses = store.GetTurnAnalyses(turn_rows);
    EXPECT_THAT(analyses, IsOk());
    if (analyses.ok()) {
      for (const store::TurnAnalysisRecord& analysis : *analyses) {
        lines.push_back("analysis " + id_of_row[analysis.turn_row] + " " +
                        std::to_string(analysis.format) + " " + analysis.bytes);
      }
    }
    EXPECT_THAT(store.ScanVectors(scope.scope_id,
                                  [&](std::int64_t row, std::span<const float> values) {
                                    std::ostringstream line;
                                    line << "vector " << id_of_row[row];
                                    for (const float value : values) line << " " << value;
                                    lines.push_back(line.str());
                                    return true;
                                  }),
                IsOk());
  }
  StatusOr<std::vector<store::JournalEntry>> journal = store.ReadJournal(0, 0);
  EXPECT_THAT(journal, IsOk());
  for (const store::JournalEntry& entry : *journal) {
    lines.push_back("journal " + std::to_string(entry.scope_id) + " " +
                    std::string(store::JournalOpName(entry.op)) + " " + entry.target_id + " " +
                    std::to_string(entry.at.micros) + " " + entry.detail);
  }
  StatusOr<std::vector<std::pair<std::string, std::string>>> cursors = store.ListMeta("engine.");
  EXPECT_THAT(cursors, IsOk());
  for (const auto& [key, value] : *cursors) lines.push_back("meta " + key + " " + value);
  std::sort(lines.begin(), lines.end());
  std::string dump;
  for (const std::string& line : lines) dump += line + "\n";
  return dump;
}

// The synchronous reference: every Remember waits for its derivation (with `config` when given).
std::string SynchronousDump(const testing::StoreBackend& backend,
                            const std::optional<Config>& config = std::nullopt) {
  testing::TempDir dir;
  {
    EngineOptions options = testing::TestOptions(backend, dir);
    options.config = config;
    std::unique_ptr<Engine> engine = testing::OpenOrDie(options);
    RememberAll(*engine, RememberWait::kDerived);
  }
  return ContentDump(backend.locate(dir, "engram.db"));
}

// Every table of the store, row numbers, journal order and Merkle logs included
// (Store::DumpCanonical: what the determinism test compares).
std::string CanonicalDump(const std::string& location) {
  StatusOr<std::unique_ptr<store::Store>> opened = store::OpenStore(
      location, {.sqlite = {.create_if_missing = false}, .postgres = {.create_if_missing = false}});
  EXPECT_THAT(opened, IsOk());
  if (!opened.ok()) return "";
  StatusOr<std::string> dump = (*opened)->DumpCanonical();
  EXPECT_THAT(dump, IsOk());
  return dump.ok() ? *dump : "";
}

std::size_t CountKind(Engine& engine, const std::string& scope, std::optional<NodeKind> kind) {
  StatusOr<std::vector<Memory>> listed =
      engine.List(testing::S(scope), {.limit = 10000, .kind = kind});
  EXPECT_THAT(listed, IsOk());
  return listed.ok() ? listed->size() : 0;
}

TEST_P(TwoPhaseWriteTest, BackgroundDerivationGivesTheSynchronousStoreContent) {
  const std::string reference = SynchronousDump(GetParam());
  ASSERT_THAT(reference, HasSubstr(" fact "));  // the workload derives facts
  ASSERT_THAT(reference, HasSubstr("vector "));
  {
    std::unique_ptr<Engine> engine = testing::OpenOrDie(Options());
    RememberAll(*engine, RememberWait::kIndexed);
    ASSERT_THAT(engine->WaitForDerivation(), IsOk());
    StatusOr<DerivationStatus> status = engine->Derivation();
    ASSERT_THAT(status, IsOk());
    EXPECT_EQ(status->pending_turns, 0);
    EXPECT_EQ(status->derived_turns, static_cast<std::int64_t>(WorkloadTurns()));
    EXPECT_THAT(status->last_error, IsOk());
    // The Merkle roots cover what was derived in the second phase.
    for (const char* scope : {"user:ana", "user:ben"}) {
      StatusOr<AuditReport> audit = engine->Audit(testing::S(scope));
      ASSERT_THAT(audit, IsOk());
      EXPECT_TRUE(audit->ok) << scope;
    }
  }
  EXPECT_EQ(ContentDump(GetParam().locate(dir_, "engram.db")), reference);
}

TEST_P(TwoPhaseWriteTest, DrainingInTheCallersThreadGivesTheSynchronousStoreContent) {
  const std::string reference = SynchronousDump(GetParam());
  {
    EngineOptions options = Options();
    options.background_derivation = false;
    std::unique_ptr<Engine> engine = testing::OpenOrDie(options);
    RememberAll(*engine, RememberWait::kDurable);
    ASSERT_THAT(engine->WaitForDerivation(), IsOk());
  }
  EXPECT_EQ(ContentDump(GetParam().locate(dir_, "engram.db")), reference);
}

// With half-float vectors the worker derives from the vectors as the store gives them back (DMF
// divergence reads earlier turns' stored vectors), as a synchronous write does.
TEST_P(TwoPhaseWriteTest, Float16VectorsGiveTheSynchronousStoreContent) {
  Config config;
  config.store.vector_precision = "float16";
  const std::string reference = SynchronousDump(GetParam(), config);
  ASSERT_THAT(reference, HasSubstr("vector "));
  {
    EngineOptions options = Options();
    options.config = config;
    std::unique_ptr<Engine> engine = testing::OpenOrDie(options);
    RememberAll(*engine, RememberWait::kIndexed);
    ASSERT_THAT(engine->WaitForDerivation(), IsOk());
  }
  EXPECT_EQ(ContentDump(GetParam().locate(dir_, "engram.db")), reference);
}

// The same with int8 vectors: rounding a read-back vector again gives the same codes and scale.
TEST_P(TwoPhaseWriteTest, Int8VectorsGiveTheSynchronousStoreContent) {
  Config config;
  config.store.vector_precision = "int8";
  const std::string reference = SynchronousDump(GetParam(), config);
  ASSERT_THAT(reference, HasSubstr("vector "));
  config.store.vector_precision = "float16";
  EXPECT_NE(reference, SynchronousDump(GetParam(), config));  // the precision reached the store
  config.store.vector_precision = "int8";
  {
    EngineOptions options = Options();
    options.config = config;
    std::unique_ptr<Engine> engine = testing::OpenOrDie(options);
    RememberAll(*engine, RememberWait::kIndexed);
    ASSERT_THAT(engine->WaitForDerivation(), IsOk());
  }
  EXPECT_EQ(ContentDump(GetParam().locate(dir_, "engram.db")), reference);
}

TEST_P(TwoPhaseWriteTest, CrashBetweenThePhasesResumesOnOpen) {
  const std::string reference = SynchronousDump(GetParam());
  // A child process acknowledges every write and dies without running any destructor: what it
  // left is the state of a crash right after the first phase.
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    EngineOptions options = Options();
    options.background_derivation = false;
    StatusOr<std::unique_ptr<Engine>> engine = Engine::Open(options);
    if (!engine.ok()) _exit(2);
    for (const Batch& batch : Workload()) {
      if (!(*engine)->Remember(testing::S(batch.scope), batch.turns,
                               {.wait = RememberWait::kDurable})
               .ok()) {
        _exit(3);
      }
    }
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 0);
  {
    // The pending work is in the store, nothing of it derived yet.
    EngineOptions options = Options();
    options.background_derivation = false;
    std::unique_ptr<Engine> engine = testing::OpenOrDie(options);
    StatusOr<DerivationStatus> pending = engine->Derivation();
    ASSERT_THAT(pending, IsOk());
    EXPECT_EQ(pending->pending_turns, static_cast<std::int64_t>(WorkloadTurns()));
    EXPECT_EQ(pending->pending_scopes, 2u);
    EXPECT_EQ(CountKind(*engine, "user:ben", NodeKind::kFact), 0u);
  }
  {
    // An engine with its worker resumes it.
    std::unique_ptr<Engine> engine = testing::OpenOrDie(Options());
    ASSERT_THAT(engine->WaitForDerivation(), IsOk());
  }
  EXPECT_EQ(ContentDump(GetParam().locate(dir_, "engram.db")), reference);
}

TEST_P(TwoPhaseWriteTest, RecallFindsANewTurnByBm25BeforeItIsDerived) {
  EngineOptions options = Options();
  options.background_derivation = false;  // the worker stays behind until asked
  std::unique_ptr<Engine> engine = testing::OpenOrDie(options);
  const Turn turn = testing::MakeTurn("Ana", "I adopted a greyhound called Pickle in Lisbon.");
  StatusOr<RememberResult> written =
      engine->Remember(testing::S("user:ana"), {&turn, 1}, {.wait = RememberWait::kIndexed});
  ASSERT_THAT(written, IsOk());
  EXPECT_TRUE(written->derivation_pending);
  // Stored, not derived: the turn is the scope's only memory and it has no vector yet.
  EXPECT_EQ(CountKind(*engine, "user:ana", std::nullopt), 1u);
  StatusOr<ReadResult> found = engine->Recall(testing::S("user:ana"),
                                              {.text = "What is the greyhound called?"},
                                              {.routes = {"bm25"}});
  ASSERT_THAT(found, IsOk());
  EXPECT_THAT(testing::ItemIds(*found), ::testing::Contains(written->ids.front()));

  ASSERT_THAT(engine->WaitForDerivation(), IsOk());
  EXPECT_GT(CountKind(*engine, "user:ana", std::nullopt), 1u);  // signals, entities, facts
  StatusOr<ReadResult> by_vector = engine->Recall(
      testing::S("user:ana"), {.text = "Which dog did Ana adopt?"}, {.routes = {"vector"}});
  ASSERT_THAT(by_vector, IsOk());
  EXPECT_THAT(testing::ItemIds(*by_vector), ::testing::Contains(written->ids.front()));
}

// A port on 127.0.0.1 that nothing listens on: bound to find a free one, then closed.
int ClosedLocalPort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(address);
  if (bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    close(fd);
    return 9;  // discard: nothing listens there either
  }
  close(fd);
  return ntohs(address.sin_port);
}

TEST_P(TwoPhaseWriteTest, AFailedDerivationIsReportedAndItsTurnsStayPending) {
  EngineOptions options = Options();
  Config config;
  config.embedder.kind = "openai";
  config.embedder.base_url = "http://127.0.0.1:" + std::to_string(ClosedLocalPort()) + "/v1";
  config.embedder.model = "unreachable";
  config.embedder.dimension = 8;
  config.embedder.max_retries = 0;
  config.embedder.timeout_ms = 2000;
  options.config = config;
  std::unique_ptr<Engine> engine = testing::OpenOrDie(options);
  const std::vector<Turn> turns = {testing::MakeTurn("Ana", "I moved to Porto."),
                                   testing::MakeTurn("Ben", "I stayed in Lyon.")};
  // The first phase needs no embedder: the write is acknowledged.
  ASSERT_THAT(engine->Remember(testing::S("user:ana"), turns, {.wait = RememberWait::kIndexed}),
              IsOk());
  const Status waited = engine->WaitForDerivation();
  EXPECT_THAT(waited, Not(IsOk()));
  EXPECT_THAT(waited.message(), HasSubstr("embedding turns"));
  StatusOr<DerivationStatus> status = engine->Derivation();
  ASSERT_THAT(status, IsOk());
  EXPECT_EQ(status->pending_turns, 2);
  EXPECT_GE(status->failures, 1);
  EXPECT_EQ(status->last_error.code(), waited.code());
  EXPECT_EQ(status->derived_turns, 0);
  // Still searchable by BM25, still pending after the engine closes.
  StatusOr<ReadResult> found =
      engine->Recall(testing::S("user:ana"), {.text = "Porto"}, {.routes = {"bm25"}});
  ASSERT_THAT(found, IsOk());
  EXPECT_FALSE(found->items.empty());
  engine.reset();
  options.background_derivation = false;
  engine = testing::OpenOrDie(options);
  status = engine->Derivation();
  ASSERT_THAT(status, IsOk());
  EXPECT_EQ(status->pending_turns, 2);
}

TEST_P(TwoPhaseWriteTest, ClosingTheEngineKeepsPendingWorkInTheStore) {
  const std::string reference = SynchronousDump(GetParam());
  {
    // Closed right after the writes: the destructor joins the worker wherever it was.
    std::unique_ptr<Engine> engine = testing::OpenOrDie(Options());
    RememberAll(*engine, RememberWait::kIndexed);
  }
  {
    EngineOptions options = Options();
    options.background_derivation = false;
    std::unique_ptr<Engine> engine = testing::OpenOrDie(options);
    StatusOr<DerivationStatus> status = engine->Derivation();
    ASSERT_THAT(status, IsOk());
    // Whatever the worker did not finish is recorded, nothing is lost or half-derived.
    EXPECT_LE(status->pending_turns, static_cast<std::int64_t>(WorkloadTurns()));
    ASSERT_THAT(engine->WaitForDerivation(), IsOk());
  }
  EXPECT_EQ(ContentDump(GetParam().locate(dir_, "engram.db")), reference);
}

TEST_P(TwoPhaseWriteTest, WithoutTheWorkerTheWorkWaitsForTheNextEngine) {
  const std::string reference = SynchronousDump(GetParam());
  {
    EngineOptions options = Options();
    options.background_derivation = false;
    std::unique_ptr<Engine> engine = testing::OpenOrDie(options);
    RememberAll(*engine, RememberWait::kIndexed);
  }
  {
    EngineOptions options = Options();
    options.background_derivation = false;
    std::unique_ptr<Engine> engine = testing::OpenOrDie(options);
    StatusOr<DerivationStatus> status = engine->Derivation();
    ASSERT_THAT(status, IsOk());
    EXPECT_EQ(status->pending_turns, static_cast<std::int64_t>(WorkloadTurns()));
  }
  {
    std::unique_ptr<Engine> engine = testing::OpenOrDie(Options());
    ASSERT_THAT(engine->WaitForDerivation(), IsOk());
  }
  EXPECT_EQ(ContentDump(GetParam().locate(dir_, "engram.db")), reference);
}

TEST_P(TwoPhaseWriteTest, OtherWritesApplyAfterThePendingDerivations) {
  // A synchronous run: remember, then retire the second turn of user:ben.
  testing::TempDir sync_dir;
  {
    std::unique_ptr<Engine> engine =
        testing::OpenOrDie(testing::TestOptions(GetParam(), sync_dir));
    RememberAll(*engine, RememberWait::kDerived);
    StatusOr<std::vector<Memory>> turns = engine->List(testing::S("user:ben"));
    ASSERT_THAT(turns, IsOk());
    ASSERT_THAT(engine->Retire((*turns)[1].id, "test"), IsOk());
  }
  {
    EngineOptions options = Options();
    options.background_derivation = false;
    std::unique_ptr<Engine> engine = testing::OpenOrDie(options);
    RememberAll(*engine, RememberWait::kIndexed);
    StatusOr<std::vector<Memory>> turns = engine->List(testing::S("user:ben"));
    ASSERT_THAT(turns, IsOk());
    // Retire derives the scope's pending turns first, then retires.
    ASSERT_THAT(engine->Retire((*turns)[1].id, "test"), IsOk());
    EXPECT_GT(CountKind(*engine, "user:ben", NodeKind::kFact), 0u);
    ASSERT_THAT(engine->WaitForDerivation(), IsOk());
  }
  EXPECT_EQ(ContentDump(GetParam().locate(dir_, "engram.db")),
            ContentDump(GetParam().locate(sync_dir, "engram.db")));
}

// Byte for byte, the store of a two-phase run is the synchronous one when the rows go in in the
// same order: each write's derivation commits before the next write's capture (here
// WaitForDerivation after each Remember; in a server, a worker that keeps up). When captures
// overtake the worker, row numbers, the journal's order and the Merkle logs follow the
// interleaving and only the content is the same (the tests above).
TEST_P(TwoPhaseWriteTest, DerivedBeforeTheNextWriteGivesTheSynchronousBytes) {
  testing::TempDir sync_dir;
  {
    std::unique_ptr<Engine> engine =
        testing::OpenOrDie(testing::TestOptions(GetParam(), sync_dir));
    RememberAll(*engine, RememberWait::kDerived);
  }
  {
    std::unique_ptr<Engine> engine = testing::OpenOrDie(Options());
    for (const Batch& batch : Workload()) {
      ASSERT_THAT(engine->Remember(testing::S(batch.scope), batch.turns,
                                   {.wait = RememberWait::kIndexed}),
                  IsOk());
      ASSERT_THAT(engine->WaitForDerivation(), IsOk());
    }
  }
  const std::string reference = CanonicalDump(GetParam().locate(sync_dir, "engram.db"));
  ASSERT_THAT(reference, HasSubstr("== merkle_leaves"));
  EXPECT_EQ(CanonicalDump(GetParam().locate(dir_, "engram.db")), reference);
}

// Two two-phase runs with the same interleaving of captures and derivations give the same bytes.
TEST_P(TwoPhaseWriteTest, SameInterleavingGivesIdenticalBytes) {
  const auto run = [&](const testing::TempDir& dir) {
    EngineOptions options = testing::TestOptions(GetParam(), dir);
    options.background_derivation = false;
    std::unique_ptr<Engine> engine = testing::OpenOrDie(options);
    RememberAll(*engine, RememberWait::kDurable);
    EXPECT_THAT(engine->WaitForDerivation(), IsOk());
  };
  testing::TempDir second_dir;
  run(dir_);
  run(second_dir);
  const std::string first = CanonicalDump(GetParam().locate(dir_, "engram.db"));
  ASSERT_THAT(first, HasSubstr("kind=\"fact\""));
  EXPECT_EQ(CanonicalDump(GetParam().locate(second_dir, "engram.db")), first);
}

}  // namespace
}  // namespace engram
