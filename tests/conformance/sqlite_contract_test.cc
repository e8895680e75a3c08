// Runs the store contract against the SQLite backend (with RawDb as its raw-SQL hook, for the
// schema checks every SQL backend shares), plus the checks only SQLite can answer: erased text
// leaves the db and -wal files, migrations from old SQLite schemas, and foreign or damaged files
// are refused with the documented codes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "core/ids.h"
#include "engram/testing/status_matchers.h"
#include "engram/testing/temp_dir.h"
#include "store/store.h"
#include "tests/conformance/store_contract_test.h"

namespace engram::store::conformance {
namespace {

using ::engram::testing::IsOk;
using ::engram::testing::IsOkAndHolds;
using ::engram::testing::StatusIs;
using ::testing::HasSubstr;

StatusOr<std::unique_ptr<Store>> OpenSqliteInDir(const std::string& dir) {
  return OpenSqliteStore(dir + "/engram.db");
}


// Reads a whole file ("" when missing).
std::string ReadFileBytes(const std::string& path) {
  std::error_code error;
  const std::uintmax_t size = std::filesystem::file_size(path, error);
  if (error) return std::string();
  std::string bytes(static_cast<std::size_t>(size), '\0');
  std::ifstream in(path, std::ios::binary);
  in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  bytes.resize(static_cast<std::size_t>(in.gcount()));
  return bytes;
}

// A raw sqlite3 connection for poking at the file behind the store's back.
class RawDb {
 public:
  explicit RawDb(const std::string& path) {
    EXPECT_EQ(sqlite3_open(path.c_str(), &db_), SQLITE_OK);
  }
  ~RawDb() { sqlite3_close(db_); }
  RawDb(const RawDb&) = delete;
  RawDb& operator=(const RawDb&) = delete;

  // Returns the result code; the message goes to `error`.
  int Exec(const std::string& sql, std::string* error = nullptr) {
    char* message = nullptr;
    const int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &message);
    if (error != nullptr) *error = message != nullptr ? message : "";
    sqlite3_free(message);
    return rc;
  }

  // The first column of the first row as text ("" when there is none).
  std::string QueryText(const std::string& sql) {
    sqlite3_stmt* stmt = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db_, sql.c_str(), -1, &stmt, nullptr), SQLITE_OK) << sql;
    std::string value;
    if (stmt != nullptr && sqlite3_step(stmt) == SQLITE_ROW) {
      const unsigned char* text = sqlite3_column_text(stmt, 0);
      if (text != nullptr) value = reinterpret_cast<const char*>(text);
    }
    sqlite3_finalize(stmt);
    return value;
  }

 private:
  sqlite3* db_ = nullptr;
};

// The contract suite's raw-SQL hook: RawDb on the store's file.
StatusOr<std::string> SqliteRawSql(const std::string& dir, const std::string& sql) {
  RawDb raw(dir + "/engram.db");
  if (sql.rfind("SELECT", 0) == 0) return raw.QueryText(sql);
  std::string error;
  if (raw.Exec(sql, &error) != SQLITE_OK) return Status::Internal("sqlite: " + error);
  return std::string();
}

ENGRAM_INSTANTIATE_STORE_CONTRACT(Sqlite, "sqlite", OpenSqliteInDir, nullptr, SqliteRawSql);

// Takes a store's schema back from version 8 to 5: leaf hashes and target ids as hex text. (The
// turns these tests write keep their content, which is not the write path's layout.)
constexpr std::string_view kUndoSchema6 =
    "DROP TABLE projection_snapshots; "
    "UPDATE merkle_leaves SET hash = lower(hex(hash)); "
    "UPDATE merkle_leaves SET target_id = lower(hex(target_id)) WHERE typeof(target_id) = 'blob'; ";

// Takes a store's schema back from version 8 to 4: hex leaf hashes and target ids, no analysis
// rows.
constexpr std::string_view kUndoSchema5 =
    "DROP TABLE projection_snapshots; "
    "UPDATE merkle_leaves SET hash = lower(hex(hash)); "
    "UPDATE merkle_leaves SET target_id = lower(hex(target_id)) WHERE typeof(target_id) = 'blob'; "
    "DROP TABLE turn_analysis; ";

// Takes a store's schema back from version 8 to 3: no analysis rows, no Merkle tables.
constexpr std::string_view kUndoSchema4 =
    "DROP TABLE projection_snapshots; "
    "DROP TABLE turn_analysis; DROP TABLE merkle_leaves; DROP TABLE merkle_roots; ";

// Takes a store's schema back from version 8 to 2: what kUndoSchema4 drops, and no idempotency
// key column, no index, a content trigger of the earlier kind.
constexpr std::string_view kUndoSchema3 =
    "DROP TABLE projection_snapshots; "
    "DROP TABLE turn_analysis; DROP TABLE merkle_leaves; DROP TABLE merkle_roots; "
    "DROP INDEX nodes_by_idempotency_key; DROP TRIGGER nodes_content_immutable; "
    "ALTER TABLE nodes DROP COLUMN idempotency_key; "
    "CREATE TRIGGER nodes_content_immutable BEFORE UPDATE ON nodes "
    "WHEN NEW.text IS NOT OLD.text BEGIN SELECT RAISE(ABORT, 'immutable'); END; ";

class SqliteStoreTest : public ::testing::Test {
 protected:

  std::unique_ptr<Store> OpenStore() {
    StatusOr<std::unique_ptr<Store>> store = OpenSqliteStore(path_);
    EXPECT_THAT(store, IsOk());
    return store.ok() ? std::move(store).value() : nullptr;
  }

  static ScopeRecord CreateScope(Store& store, std::string_view path) {
    StatusOr<std::unique_ptr<Transaction>> txn = store.BeginWrite();
    EXPECT_THAT(txn, IsOk());
    StatusOr<ScopeRecord> scope =
        (*txn)->CreateScope(path, core::ScopeNodeId(path), 0, Timestamp::FromSeconds(1));
    EXPECT_THAT(scope, IsOk());
    EXPECT_THAT((*txn)->Commit(), IsOk());
    return scope.value_or(ScopeRecord{});
  }

  static NodeRecord AddText(Store& store, std::int64_t scope_id, std::string_view text) {
    StatusOr<std::unique_ptr<Transaction>> txn = store.BeginWrite();
    EXPECT_THAT(txn, IsOk());
    NodeRecord node;
    node.scope_id = scope_id;
    node.sequence = (*txn)->NextSequence(scope_id).value_or(0);
    node.text = std::string(text);
    node.content_json = "{\"text\":\"" + std::string(text) + "\"}";
    node.id = core::NodeId("turn", node.content_json, std::to_string(scope_id), node.sequence);
    EXPECT_THAT((*txn)->InsertNode(node), IsOk());
    EXPECT_THAT((*txn)->Commit(), IsOk());
    return node;
  }

  engram::testing::TempDir temp_dir_{"engram_sqlite_store"};
  std::string dir_ = temp_dir_.path();
  std::string path_ = dir_ + "/engram.db";
};

TEST_F(SqliteStoreTest, BackendNameIsSqlite) {
  std::unique_ptr<Store> store = OpenStore();
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(store->backend(), "sqlite");
}

TEST_F(SqliteStoreTest, EraseLeavesNoTraceOfTheTextInTheDatabaseOrWalFiles) {
  const std::string marker = "zq-unique-marker-7f3a9c1e-erase-me";
  std::unique_ptr<Store> store = OpenStore();
  ASSERT_NE(store, nullptr);
  const ScopeRecord alice = CreateScope(*store, "user:alice");
  const ScopeRecord bob = CreateScope(*store, "user:bob");
  for (int copy = 0; copy < 3; ++copy) {
    AddText(*store, alice.scope_id, marker + " copy " + std::to_string(copy));
  }
  // Enough of bob's text to spread over several pages, so erased pages are not just dropped.
  for (int filler = 0; filler < 200; ++filler) {
    AddText(*store, bob.scope_id,
            "bob filler text " + std::to_string(filler) + std::string(100, 'x'));
  }
  AddText(*store, alice.scope_id, marker + " last");
  const std::string before = ReadFileBytes(path_) + ReadFileBytes(path_ + "-wal");
  ASSERT_NE(before.find(marker), std::string::npos) << "the marker should be on disk";

  const std::vector<std::int64_t> erase = {alice.scope_id};
  ASSERT_THAT(store->EraseScopes(erase), IsOk());
  const std::string db_bytes = ReadFileBytes(path_);
  const std::string wal_bytes = ReadFileBytes(path_ + "-wal");
  EXPECT_EQ(db_bytes.find(marker), std::string::npos) << "erased text left in " << path_;
  EXPECT_EQ(wal_bytes.find(marker), std::string::npos) << "erased text left in the WAL";
  EXPECT_NE(db_bytes.find("bob filler text 199"), std::string::npos);

  // Still true after the store is closed.
  store.reset();
  const std::string closed = ReadFileBytes(path_) + ReadFileBytes(path_ + "-wal");
  EXPECT_EQ(closed.find(marker), std::string::npos);
}

// Schema 5 moves a turn's signal nodes into its analysis row (turn_analysis_contract_test.cc).
TEST_F(SqliteStoreTest, MigratingAVersion4StoreMovesSignalNodesIntoAnalysisRows) {
  Version4Signals written;
  {
    std::unique_ptr<Store> store = OpenStore();
    ASSERT_NE(store, nullptr);
    written = WriteVersion4Signals(*store);
  }
  {
    RawDb raw(path_);
    ASSERT_EQ(raw.Exec(std::string(kUndoSchema5) +
                       "UPDATE meta SET value = '4' WHERE key = 'schema_version'"),
              SQLITE_OK);
  }
  std::unique_ptr<Store> store = OpenStore();
  ASSERT_NE(store, nullptr);
  StatusOr<std::string> dump = store->DumpCanonical();
  ASSERT_THAT(dump, IsOk());
  EXPECT_THAT(*dump, HasSubstr("key=\"schema_version\" value=\"8\""));
  ExpectMigratedToVersion5(*store, written);
}

// Schema 7 rewrites a version 6 store's JSON analysis rows in format 2 where that gives the JSON
// back (turn_analysis_contract_test.cc); rows of schema 6 are JSON text, which schema 7 reads too.
TEST_F(SqliteStoreTest, MigratingAVersion6StoreCompactsItsAnalysisRows) {
  Version6Analyses written;
  {
    std::unique_ptr<Store> store = OpenStore();
    ASSERT_NE(store, nullptr);
    written = WriteVersion6Analyses(*store);
  }
  {
    RawDb raw(path_);
    ASSERT_EQ(raw.QueryText("SELECT group_concat(kind) FROM (SELECT typeof(analysis) AS kind "
                            "FROM turn_analysis ORDER BY turn_row)"),
              "text,text");
    ASSERT_EQ(raw.Exec("DROP TABLE projection_snapshots; "
                       "UPDATE meta SET value = '6' WHERE key = 'schema_version'"),
              SQLITE_OK);
  }
  std::unique_ptr<Store> store = OpenStore();
  ASSERT_NE(store, nullptr);
  StatusOr<std::string> dump = store->DumpCanonical();
  ASSERT_THAT(dump, IsOk());
  EXPECT_THAT(*dump, HasSubstr("key=\"schema_version\" value=\"8\""));
  ExpectMigratedToVersion7(*store, written);
  RawDb raw(path_);
  EXPECT_EQ(raw.QueryText("SELECT group_concat(kind) FROM (SELECT typeof(analysis) AS kind "
                          "FROM turn_analysis ORDER BY turn_row)"),
            "blob,text");
}

// A turn in the write path's layout (write/capture.cc): its content is what its columns rebuild.
NodeRecord RebuildableTurn(Transaction& txn, const ScopeRecord& scope, std::string_view text) {
  NodeRecord node;
  node.scope_id = scope.scope_id;
  node.sequence = txn.NextSequence(scope.scope_id).value_or(0);
  node.text = std::string(text);
  node.speaker = "Alice";
  node.session_id = "s1";
  node.event_time = Timestamp::FromSeconds(1'700'000'000);
  node.metadata_json = R"({"n":1})";
  node.content_json = R"({"event_time":"2023-11-14T22:13:20Z","metadata":{"n":1},"role":"user",)"
                      R"("sequence":)" +
                      std::to_string(node.sequence) +
                      R"(,"session_id":"s1","speaker":"Alice","text":")" + std::string(text) +
                      R"("})";
  node.id = core::NodeId("turn", node.content_json, scope.node_id, node.event_time->micros);
  return node;
}

// Schema 6 in the file: a rebuildable turn's text is stored once (content_json ""), other
// content as given, a leaf hash as 32 bytes.
TEST_F(SqliteStoreTest, ARebuildableTurnStoresItsTextOnceAndLeafHashesAreBytes) {
  std::unique_ptr<Store> store = OpenStore();
  ASSERT_NE(store, nullptr);
  const ScopeRecord scope = CreateScope(*store, "user:alice");
  StatusOr<std::unique_ptr<Transaction>> txn = store->BeginWrite();
  ASSERT_THAT(txn, IsOk());
  const NodeRecord turn = RebuildableTurn(**txn, scope, "I live in Berlin.");
  ASSERT_THAT((*txn)->InsertNode(turn), IsOk());
  ASSERT_THAT((*txn)->Commit(), IsOk());
  const NodeRecord other = AddText(*store, scope.scope_id, "kept as given");

  RawDb raw(path_);
  EXPECT_EQ(
      raw.QueryText("SELECT '[' || content_json || ']' FROM nodes WHERE id = '" + turn.id + "'"),
      "[]");
  EXPECT_EQ(raw.QueryText("SELECT content_json FROM nodes WHERE id = '" + other.id + "'"),
            other.content_json);
  EXPECT_EQ(raw.QueryText("SELECT group_concat(DISTINCT typeof(hash) || length(hash)) "
                          "FROM merkle_leaves"),
            "blob32");
  StatusOr<NodeRecord> got = store->GetNode(turn.id);
  ASSERT_THAT(got, IsOk());
  EXPECT_EQ(got->content_json, turn.content_json);
}

// Schema 6 converts a version 5 store: rebuildable turns lose their stored copy of the text,
// empty content is kept behind a space, the leaf hashes become bytes, and ids, leaves and roots
// stay what they were; the content trigger is back afterwards.
TEST_F(SqliteStoreTest, MigratingAVersion5StoreStoresTurnTextOnceKeepingLeavesAndRoots) {
  NodeRecord turn;
  NodeRecord empty;
  MerkleState state_before;
  std::vector<MerkleLeaf> leaves_before;
  std::int64_t scope_id = 0;
  {
    std::unique_ptr<Store> store = OpenStore();
    ASSERT_NE(store, nullptr);
    const ScopeRecord scope = CreateScope(*store, "user:alice");
    scope_id = scope.scope_id;
    StatusOr<std::unique_ptr<Transaction>> txn = store->BeginWrite();
    ASSERT_THAT(txn, IsOk());
    turn = RebuildableTurn(**txn, scope, "The project is called Bluebird.");
    ASSERT_THAT((*txn)->InsertNode(turn), IsOk());
    empty.kind = NodeKind::kFact;
    empty.scope_id = scope.scope_id;
    empty.id = core::NodeId("fact", "", scope.node_id, 0);
    ASSERT_THAT((*txn)->InsertNode(empty), IsOk());
    ASSERT_THAT((*txn)->Commit(), IsOk());
    StatusOr<MerkleState> state = store->GetMerkleState(scope_id);
    ASSERT_THAT(state, IsOk());
    state_before = *state;
    StatusOr<std::vector<MerkleLeaf>> leaves = store->GetMerkleLeaves(scope_id, MerkleLog::kNodes);
    ASSERT_THAT(leaves, IsOk());
    leaves_before = *leaves;
  }
  {
    // Back to how schema 5 stored them.
    RawDb raw(path_);
    std::string error;
    ASSERT_EQ(raw.Exec(std::string(kUndoSchema6) +
                           "DROP TRIGGER nodes_content_immutable; "
                           "UPDATE nodes SET content_json = substr(content_json, 2) "
                           "WHERE substr(content_json, 1, 1) = ' '; "
                           "UPDATE nodes SET content_json = '" +
                           turn.content_json + "' WHERE id = '" + turn.id +
                           "'; UPDATE meta SET value = '5' WHERE key = 'schema_version'",
                       &error),
              SQLITE_OK)
        << error;
    EXPECT_EQ(raw.QueryText("SELECT content_json FROM nodes WHERE id = '" + turn.id + "'"),
              turn.content_json);
  }
  std::unique_ptr<Store> store = OpenStore();
  ASSERT_NE(store, nullptr);
  StatusOr<std::string> dump = store->DumpCanonical();
  ASSERT_THAT(dump, IsOk());
  EXPECT_THAT(*dump, HasSubstr("key=\"schema_version\" value=\"8\""));
  for (const NodeRecord& node : {turn, empty}) {
    StatusOr<NodeRecord> got = store->GetNode(node.id);
    ASSERT_THAT(got, IsOk());
    EXPECT_EQ(got->content_json, node.content_json);
  }
  StatusOr<MerkleState> state = store->GetMerkleState(scope_id);
  ASSERT_THAT(state, IsOk());
  EXPECT_EQ(state->root, state_before.root);
  EXPECT_EQ(state->node_count, state_before.node_count);
  StatusOr<std::vector<MerkleLeaf>> leaves = store->GetMerkleLeaves(scope_id, MerkleLog::kNodes);
  ASSERT_THAT(leaves, IsOk());
  ASSERT_EQ(leaves->size(), leaves_before.size());
  for (std::size_t i = 0; i < leaves->size(); ++i) {
    EXPECT_EQ((*leaves)[i].target_id, leaves_before[i].target_id);
    EXPECT_EQ((*leaves)[i].hash, leaves_before[i].hash);
  }
  RawDb raw(path_);
  EXPECT_EQ(
      raw.QueryText("SELECT '[' || content_json || ']' FROM nodes WHERE id = '" + turn.id + "'"),
      "[]");
  EXPECT_EQ(
      raw.QueryText("SELECT '[' || content_json || ']' FROM nodes WHERE id = '" + empty.id + "'"),
      "[ ]");
  EXPECT_EQ(raw.QueryText("SELECT group_concat(DISTINCT typeof(hash)) FROM merkle_leaves"), "blob");
  std::string error;
  EXPECT_EQ(raw.Exec("UPDATE nodes SET text = 'x' WHERE id = '" + turn.id + "'", &error),
            SQLITE_CONSTRAINT);
  EXPECT_THAT(error, HasSubstr("immutable"));
}

// Schema 4 adds the Merkle logs: a store migrated from version 3 gets the leaves and roots it
// would have had if it had kept them from the start.
TEST_F(SqliteStoreTest, MigratingAVersion3StoreBuildsTheMerkleLogsItWouldHaveKept) {
  std::vector<MerkleState> kept;
  std::vector<std::vector<MerkleLeaf>> leaves;
  std::vector<std::int64_t> scope_ids;
  {
    std::unique_ptr<Store> store = OpenStore();
    ASSERT_NE(store, nullptr);
    const ScopeRecord alice = CreateScope(*store, "user:alice");
    AddText(*store, alice.scope_id, "first");
    AddText(*store, alice.scope_id, "second");
    StatusOr<std::unique_ptr<Transaction>> txn = store->BeginWrite();
    ASSERT_THAT(txn, IsOk());
    StatusOr<ScopeRecord> run = (*txn)->CreateScope(
        "user:alice/run:1", core::ScopeNodeId("user:alice/run:1"), alice.scope_id,
        Timestamp::FromSeconds(2));
    ASSERT_THAT(run, IsOk());
    ASSERT_THAT((*txn)->Commit(), IsOk());
    AddText(*store, run->scope_id, "nested");
    for (const std::int64_t scope_id : {alice.scope_id, run->scope_id}) {
      StatusOr<MerkleState> state = store->GetMerkleState(scope_id);
      ASSERT_THAT(state, IsOk());
      kept.push_back(*state);
      StatusOr<std::vector<MerkleLeaf>> node_leaves =
          store->GetMerkleLeaves(scope_id, MerkleLog::kNodes);
      ASSERT_THAT(node_leaves, IsOk());
      leaves.push_back(*node_leaves);
      scope_ids.push_back(scope_id);
    }
    EXPECT_EQ(kept[0].node_count, 3);  // the scope node and two texts
    EXPECT_EQ(kept[1].node_count, 2);
  }
  {
    RawDb raw(path_);
    ASSERT_EQ(raw.Exec(std::string(kUndoSchema4) +
                       "UPDATE meta SET value = '3' WHERE key = 'schema_version'"),
              SQLITE_OK);
  }
  std::unique_ptr<Store> store = OpenStore();
  ASSERT_NE(store, nullptr);
  for (std::size_t i = 0; i < scope_ids.size(); ++i) {
    StatusOr<MerkleState> state = store->GetMerkleState(scope_ids[i]);
    ASSERT_THAT(state, IsOk());
    EXPECT_EQ(state->root, kept[i].root);
    EXPECT_EQ(state->node_root, kept[i].node_root);
    EXPECT_EQ(state->node_count, kept[i].node_count);
    StatusOr<std::vector<MerkleLeaf>> node_leaves =
        store->GetMerkleLeaves(scope_ids[i], MerkleLog::kNodes);
    ASSERT_THAT(node_leaves, IsOk());
    ASSERT_EQ(node_leaves->size(), leaves[i].size());
    for (std::size_t j = 0; j < leaves[i].size(); ++j) {
      EXPECT_EQ((*node_leaves)[j].hash, leaves[i][j].hash);
      EXPECT_EQ((*node_leaves)[j].target_id, leaves[i][j].target_id);
    }
  }
}

// A store written before vectors existed (schema 1) that holds turns records the embedder "none"
// when migrated: its turns have no vectors. An empty one records nothing.
TEST_F(SqliteStoreTest, MigratingAVersion1StoreRecordsWhetherItHasTurnsWithoutVectors) {
  for (const bool with_turn : {false, true}) {
    SCOPED_TRACE(with_turn ? "with a turn" : "empty");
    const engram::testing::TempDir fresh("engram_sqlite_store");  // a new store each round
    path_ = fresh.File("engram.db");
    {
      std::unique_ptr<Store> store = OpenStore();
      ASSERT_NE(store, nullptr);
      if (with_turn) {
        const ScopeRecord scope = CreateScope(*store, "user:alice");
        AddText(*store, scope.scope_id, "written by version 1");
      }
    }
    {
      RawDb raw(path_);
      ASSERT_EQ(raw.Exec(std::string(kUndoSchema3) +
                         "DROP TABLE vectors; DELETE FROM meta WHERE key LIKE 'embedder_%'; "
                         "UPDATE meta SET value = '1' WHERE key = 'schema_version'"),
                SQLITE_OK);
    }
    std::unique_ptr<Store> store = OpenStore();
    ASSERT_NE(store, nullptr);
    if (with_turn) {
      EXPECT_THAT(store->GetEmbedder(),
                  IsOkAndHolds(std::optional<EmbedderRecord>(EmbedderRecord{"none", 0})));
    } else {
      EXPECT_THAT(store->GetEmbedder(), IsOkAndHolds(std::optional<EmbedderRecord>()));
    }
    StatusOr<std::string> dump = store->DumpCanonical();
    ASSERT_THAT(dump, IsOk());
    EXPECT_THAT(*dump, HasSubstr("key=\"schema_version\" value=\"8\""));
  }
}

// Schema 3 moves the idempotency keys `engram ingest` kept in a turn's metadata into their own
// column, unique per scope: metadata (and the content's copy of it) is the user's own again, a
// key held twice in a scope stays with its earliest turn, and the trigger still guards content.
TEST_F(SqliteStoreTest, MigratingAVersion2StoreMovesIdempotencyKeysOutOfMetadata) {
  {
    std::unique_ptr<Store> store = OpenStore();
    ASSERT_NE(store, nullptr);
    const ScopeRecord alice = CreateScope(*store, "user:alice");
    const ScopeRecord bob = CreateScope(*store, "user:bob");
    StatusOr<std::unique_ptr<Transaction>> txn = store->BeginWrite();
    ASSERT_THAT(txn, IsOk());
    const struct {
      std::int64_t scope_id;
      std::string text;
      std::string metadata;
    } turns[] = {
        {alice.scope_id, "first", R"({"idempotency_key":"k1","source":"chat"})"},
        {alice.scope_id, "again", R"({"idempotency_key":"k1"})"},
        {alice.scope_id, "plain", R"({"source":"mail"})"},
        {bob.scope_id, "bob's", R"({"idempotency_key":"k1"})"},
    };
    for (const auto& turn : turns) {
      NodeRecord node;
      node.scope_id = turn.scope_id;
      node.sequence = (*txn)->NextSequence(turn.scope_id).value_or(0);
      node.text = turn.text;
      node.metadata_json = turn.metadata;
      node.content_json = R"({"metadata":)" + turn.metadata + R"(,"text":")" + turn.text + R"("})";
      node.id = core::NodeId("turn", node.content_json, std::to_string(turn.scope_id), 0);
      ASSERT_THAT((*txn)->InsertNode(node), IsOk());
    }
    ASSERT_THAT((*txn)->Commit(), IsOk());
  }
  {
    // Back to schema 2: no column, no index, the version 1 trigger.
    RawDb raw(path_);
    std::string error;
    ASSERT_EQ(raw.Exec(std::string(kUndoSchema3) +
                           "UPDATE meta SET value = '2' WHERE key = 'schema_version'",
                       &error),
              SQLITE_OK)
        << error;
  }
  std::unique_ptr<Store> store = OpenStore();
  ASSERT_NE(store, nullptr);
  StatusOr<std::optional<ScopeRecord>> alice = store->FindScope("user:alice");
  StatusOr<std::optional<ScopeRecord>> bob = store->FindScope("user:bob");
  ASSERT_TRUE(alice.ok() && alice->has_value() && bob.ok() && bob->has_value());
  StatusOr<std::vector<NodeRecord>> alice_turns =
      store->ListNodes((*alice)->scope_id, {.kind = NodeKind::kTurn});
  StatusOr<std::vector<NodeRecord>> bob_turns =
      store->ListNodes((*bob)->scope_id, {.kind = NodeKind::kTurn});
  ASSERT_THAT(alice_turns, IsOk());
  ASSERT_THAT(bob_turns, IsOk());
  ASSERT_EQ(alice_turns->size(), 3u);
  ASSERT_EQ(bob_turns->size(), 1u);
  EXPECT_EQ((*alice_turns)[0].idempotency_key, "k1");
  EXPECT_EQ((*alice_turns)[0].metadata_json, R"({"source":"chat"})");
  EXPECT_EQ((*alice_turns)[0].content_json, R"({"metadata":{"source":"chat"},"text":"first"})");
  EXPECT_EQ((*alice_turns)[1].idempotency_key, "");  // k1 stays with the earliest turn
  EXPECT_EQ((*alice_turns)[1].metadata_json, "{}");
  EXPECT_EQ((*alice_turns)[2].idempotency_key, "");
  EXPECT_EQ((*alice_turns)[2].metadata_json, R"({"source":"mail"})");
  EXPECT_EQ((*bob_turns)[0].idempotency_key, "k1");  // unique per scope, not per store
  {
    StatusOr<std::unique_ptr<Transaction>> txn = store->BeginWrite();
    ASSERT_THAT(txn, IsOk());
    StatusOr<std::optional<NodeRecord>> found = (*txn)->FindTurnByKey((*alice)->scope_id, "k1");
    ASSERT_THAT(found, IsOk());
    ASSERT_TRUE(found->has_value());
    EXPECT_EQ((*found)->id, (*alice_turns)[0].id);
    NodeRecord repeated = (*alice_turns)[2];
    repeated.id = "another";
    repeated.sequence = 9;
    repeated.idempotency_key = "k1";
    EXPECT_THAT((*txn)->InsertNode(repeated), StatusIs(StatusCode::kAlreadyExists));
  }
  RawDb raw(path_);
  std::string error;
  EXPECT_EQ(raw.Exec("UPDATE nodes SET idempotency_key = 'k2' WHERE text = 'plain'", &error),
            SQLITE_CONSTRAINT);
  EXPECT_THAT(error, HasSubstr("immutable"));
}

TEST_F(SqliteStoreTest, ErasedVectorsLeaveTheFiles) {
  std::unique_ptr<Store> store = OpenStore();
  ASSERT_NE(store, nullptr);
  const ScopeRecord alice = CreateScope(*store, "user:alice");
  const ScopeRecord bob = CreateScope(*store, "user:bob");
  const NodeRecord erased = AddText(*store, alice.scope_id, "alice text");
  const NodeRecord kept = AddText(*store, bob.scope_id, "bob text");
  // 16 distinctive floats: their bytes form a pattern found nowhere else in the files.
  std::vector<float> pattern;
  for (int i = 0; i < 16; ++i) pattern.push_back(1.2345678f + static_cast<float>(i) * 0.0101f);
  {
    StatusOr<std::unique_ptr<Transaction>> txn = store->BeginWrite();
    ASSERT_THAT(txn, IsOk());
    ASSERT_THAT((*txn)->SetEmbedder({"model-a", 16}, Timestamp::FromSeconds(2)), IsOk());
    ASSERT_THAT((*txn)->PutVector(erased.id, "model-a", pattern), IsOk());
    std::vector<float> other(16, 0.25f);
    ASSERT_THAT((*txn)->PutVector(kept.id, "model-a", other), IsOk());
    ASSERT_THAT((*txn)->Commit(), IsOk());
  }
  const std::string needle(reinterpret_cast<const char*>(pattern.data()),
                           pattern.size() * sizeof(float));
  ASSERT_NE((ReadFileBytes(path_) + ReadFileBytes(path_ + "-wal")).find(needle), std::string::npos);
  const std::vector<std::int64_t> erase = {alice.scope_id};
  ASSERT_THAT(store->EraseScopes(erase), IsOk());
  EXPECT_EQ((ReadFileBytes(path_) + ReadFileBytes(path_ + "-wal")).find(needle), std::string::npos);
  EXPECT_THAT(store->CountVectors(bob.scope_id), IsOkAndHolds(1));
}

TEST_F(SqliteStoreTest, AStoreWrittenWithEveryVectorPrecisionReadsEachVectorByItsForm) {
  ExpectMixedPrecisionVectorsReadBack([&](VectorPrecision precision) -> std::unique_ptr<Store> {
    StatusOr<std::unique_ptr<Store>> store =
        OpenSqliteStore(path_, {.vector_precision = precision});
    EXPECT_THAT(store, IsOk());
    return store.ok() ? std::move(store).value() : nullptr;
  });
}

TEST_F(SqliteStoreTest, GarbageFileIsCorruptionNamingThePath) {
  {
    std::ofstream out(path_, std::ios::binary);
    for (int line = 0; line < 200; ++line) out << "this is not a database, line " << line << "\n";
  }
  EXPECT_THAT(OpenSqliteStore(path_), StatusIs(StatusCode::kCorruption, HasSubstr(path_)));
}

TEST_F(SqliteStoreTest, ForeignSqliteDatabaseIsRefused) {
  {
    RawDb raw(path_);
    ASSERT_EQ(raw.Exec("CREATE TABLE customers(id INTEGER PRIMARY KEY, name TEXT)"), SQLITE_OK);
  }
  EXPECT_THAT(OpenSqliteStore(path_),
              StatusIs(StatusCode::kFailedPrecondition, HasSubstr("not an engram store")));
}

TEST_F(SqliteStoreTest, MissingFileWithoutCreateIsNotFound) {
  EXPECT_THAT(OpenSqliteStore(path_, {.create_if_missing = false}),
              StatusIs(StatusCode::kNotFound, HasSubstr(path_)));
  EXPECT_FALSE(std::filesystem::exists(path_));
}

TEST_F(SqliteStoreTest, StoreUsesWriteAheadLogging) {
  OpenStore().reset();
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path_.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &stmt, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(stmt), SQLITE_ROW);
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0)), "wal");
  sqlite3_finalize(stmt);
  sqlite3_close(db);
}

TEST_F(SqliteStoreTest, NonDurableCommitsStillPersistAcrossReopen) {
  std::string node_id;
  {
    StatusOr<std::unique_ptr<Store>> store = OpenSqliteStore(path_, {.durable_commits = false});
    ASSERT_THAT(store, IsOk());
    const ScopeRecord scope = CreateScope(**store, "user:alice");
    node_id = AddText(**store, scope.scope_id, "kept").id;
  }
  std::unique_ptr<Store> store = OpenStore();
  ASSERT_NE(store, nullptr);
  EXPECT_THAT(store->GetNode(node_id), IsOk());
}

// A process killed with SIGKILL loses nothing it committed and nothing of the transaction it had
// open, with either synchronous setting (power loss is a different story; see sqlite_store.h).
TEST_F(SqliteStoreTest, KillDashNineKeepsCommittedWritesAndDropsTheOpenTransaction) {
  constexpr int kCommittedTurns = 20;
  for (const bool durable : {true, false}) {
    SCOPED_TRACE(durable ? "synchronous=FULL" : "synchronous=NORMAL");
    std::error_code error;
    std::filesystem::remove(path_, error);
    std::filesystem::remove(path_ + "-wal", error);
    std::filesystem::remove(path_ + "-shm", error);
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      // No gtest assertions in the child: report failure through the exit code.
      StatusOr<std::unique_ptr<Store>> store = OpenSqliteStore(path_, {.durable_commits = durable});
      if (!store.ok()) _exit(2);
      StatusOr<std::unique_ptr<Transaction>> txn = (*store)->BeginWrite();
      if (!txn.ok()) _exit(3);
      StatusOr<ScopeRecord> scope = (*txn)->CreateScope(
          "user:alice", core::ScopeNodeId("user:alice"), 0, Timestamp::FromSeconds(1));
      if (!scope.ok() || !(*txn)->Commit().ok()) _exit(4);
      for (int turn = 0; turn <= kCommittedTurns; ++turn) {
        txn = (*store)->BeginWrite();
        if (!txn.ok()) _exit(5);
        NodeRecord node;
        node.scope_id = scope->scope_id;
        node.id = "turn-" + std::to_string(turn);
        node.text = std::string(2000, 'a' + static_cast<char>(turn % 26));
        node.content_json = "{}";
        if (!(*txn)->NextSequence(scope->scope_id).ok() || !(*txn)->InsertNode(node).ok()) {
          _exit(6);
        }
        // The last transaction stays open when the process dies.
        if (turn < kCommittedTurns && !(*txn)->Commit().ok()) _exit(7);
      }
      raise(SIGKILL);
      _exit(8);
    }
    int wait_status = 0;
    ASSERT_EQ(waitpid(child, &wait_status, 0), child);
    ASSERT_TRUE(WIFSIGNALED(wait_status))
        << "child exited with " << (WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : -1);
    EXPECT_EQ(WTERMSIG(wait_status), SIGKILL);

    std::unique_ptr<Store> store = OpenStore();
    ASSERT_NE(store, nullptr);
    StatusOr<std::optional<ScopeRecord>> scope = store->FindScope("user:alice");
    ASSERT_THAT(scope, IsOk());
    ASSERT_TRUE(scope->has_value());
    EXPECT_EQ((*scope)->last_sequence, kCommittedTurns);
    EXPECT_THAT(store->CountNodes((*scope)->scope_id), IsOkAndHolds(kCommittedTurns + 1));
    EXPECT_THAT(store->GetNode("turn-" + std::to_string(kCommittedTurns - 1)), IsOk());
    EXPECT_THAT(store->GetNode("turn-" + std::to_string(kCommittedTurns)),
                StatusIs(StatusCode::kNotFound));
    // One journal entry per committed write: the scope and each committed turn.
    EXPECT_THAT(store->LastJournalSeq(), IsOkAndHolds(kCommittedTurns + 1));
  }
}

TEST_F(SqliteStoreTest, AWriterInAnotherConnectionMakesBeginWriteUnavailable) {
  StatusOr<std::unique_ptr<Store>> store = OpenSqliteStore(path_, {.busy_timeout_ms = 100});
  ASSERT_THAT(store, IsOk());
  RawDb other(path_);
  ASSERT_EQ(other.Exec("BEGIN IMMEDIATE"), SQLITE_OK);
  EXPECT_THAT((*store)->BeginWrite(), StatusIs(StatusCode::kUnavailable));
  ASSERT_EQ(other.Exec("ROLLBACK"), SQLITE_OK);
  EXPECT_THAT((*store)->BeginWrite(), IsOk());
}

}  // namespace
}  // namespace engram::store::conformance
