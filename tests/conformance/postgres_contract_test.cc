// Runs the store contract against the PostgreSQL backend (on the tests' private cluster,
// tests/postgres; RunSql is its raw-SQL hook, for the schema checks every SQL backend shares),
// plus the checks only PostgreSQL can answer: erased text leaves the table files, a client
// killed mid-transaction leaves nothing, two stores on one database serialise the writers of one
// tenant (not of two) and see each other's commits, the journal numbers commits in commit order,
// and the errors for an unreachable server, refused credentials and a
// missing database.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <string>
#include <thread>

#include "core/ids.h"
#include "engram/testing/status_matchers.h"
#include "engram/testing/temp_dir.h"
#include "store/audit.h"
#include "store/store.h"
#include "tests/conformance/store_contract_test.h"
#include "tests/postgres/test_cluster.h"
#include "write/edge_registry.h"

namespace engram::store::conformance {
namespace {

using ::engram::testing::IsOk;
using ::engram::testing::IsOkAndHolds;
using ::engram::testing::StatusIs;
using ::engram::testing::postgres::DatabaseNameFor;
using ::engram::testing::postgres::DatabaseUrl;
using ::engram::testing::postgres::RunSql;
using ::engram::testing::postgres::SkipReason;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

// The store of a test directory: a database named after it on the test cluster.
StatusOr<std::unique_ptr<Store>> OpenPostgresInDir(const std::string& dir) {
  ASSIGN_OR_RETURN(const std::string url, DatabaseUrl(DatabaseNameFor(dir)));
  return OpenPostgresStore(url);
}

// The contract suite's raw-SQL hook: RunSql on the test directory's database.
StatusOr<std::string> PostgresRawSql(const std::string& dir, const std::string& sql) {
  ASSIGN_OR_RETURN(const std::string url, DatabaseUrl(DatabaseNameFor(dir)));
  return RunSql(url, sql);
}

ENGRAM_INSTANTIATE_STORE_CONTRACT(Postgres, "postgres", OpenPostgresInDir, SkipReason,
                                  PostgresRawSql);

// Every file under `dir` that contains `needle`, as paths relative to `dir`.
std::vector<std::string> FilesContaining(const std::filesystem::path& dir, std::string_view needle) {
  std::vector<std::string> found;
  std::error_code error;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, error);
       !error && it != std::filesystem::recursive_directory_iterator(); it.increment(error)) {
    if (!it->is_regular_file()) continue;
    std::error_code size_error;
    const std::uintmax_t size = it->file_size(size_error);
    if (size_error) continue;  // removed since it was listed
    std::string bytes(static_cast<std::size_t>(size), '\0');
    std::ifstream in(it->path(), std::ios::binary);
    in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    bytes.resize(static_cast<std::size_t>(in.gcount()));
    if (bytes.find(needle) != std::string::npos) {
      found.push_back(std::filesystem::relative(it->path(), dir).string());
    }
  }
  return found;
}

class PostgresStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ENGRAM_SKIP_WITHOUT_POSTGRES();
    StatusOr<std::string> url = DatabaseUrl(DatabaseNameFor(dir_));
    ASSERT_THAT(url, IsOk());
    url_ = *url;
  }

  std::unique_ptr<Store> Open(const PostgresOptions& options = {}) {
    StatusOr<std::unique_ptr<Store>> store = OpenPostgresStore(url_, options);
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

  static NodeRecord NewText(Transaction& txn, std::int64_t scope_id, std::string_view text) {
    NodeRecord node;
    node.scope_id = scope_id;
    node.sequence = txn.NextSequence(scope_id).value_or(0);
    node.text = std::string(text);
    node.content_json = "{\"text\":\"" + std::string(text) + "\"}";
    node.id = core::NodeId("turn", node.content_json, std::to_string(scope_id), node.sequence);
    return node;
  }

  static NodeRecord AddText(Store& store, std::int64_t scope_id, std::string_view text) {
    StatusOr<std::unique_ptr<Transaction>> txn = store.BeginWrite();
    EXPECT_THAT(txn, IsOk());
    NodeRecord node = NewText(**txn, scope_id, text);
    EXPECT_THAT((*txn)->InsertNode(node), IsOk());
    EXPECT_THAT((*txn)->Commit(), IsOk());
    return node;
  }

  engram::testing::TempDir temp_dir_{"engram_postgres_store"};
  std::string dir_ = temp_dir_.path();
  std::string url_;
};

TEST_F(PostgresStoreTest, BackendNameIsPostgresAndOpenStorePicksItByUrl) {
  StatusOr<std::unique_ptr<Store>> store = OpenStore(url_);
  ASSERT_THAT(store, IsOk());
  EXPECT_EQ((*store)->backend(), "postgres");
  const std::string postgres_scheme = "postgres://" + url_.substr(url_.find("://") + 3);
  StatusOr<std::unique_ptr<Store>> short_scheme = OpenStore(postgres_scheme);
  ASSERT_THAT(short_scheme, IsOk());
  EXPECT_EQ((*short_scheme)->backend(), "postgres");
}

TEST_F(PostgresStoreTest, DatabaseWithOtherTablesIsRefused) {
  ASSERT_THAT(RunSql(url_, "CREATE TABLE invoices(id int)"), IsOk());
  EXPECT_THAT(OpenPostgresStore(url_),
              StatusIs(StatusCode::kFailedPrecondition,
                       AllOf(HasSubstr("invoices"), HasSubstr("no engram store"))));
}

TEST_F(PostgresStoreTest, EmptyDatabaseWithoutCreateIsNotFound) {
  EXPECT_THAT(OpenPostgresStore(url_, {.create_if_missing = false}),
              StatusIs(StatusCode::kNotFound, HasSubstr("holds no engram store")));
  ASSERT_NE(Open(), nullptr);
  EXPECT_THAT(OpenPostgresStore(url_, {.create_if_missing = false}), IsOk());
}

TEST_F(PostgresStoreTest, MissingDatabaseIsNotFoundSayingToCreateIt) {
  std::string url = url_;
  url.replace(url.find("/t_"), 3, "/missing_");
  EXPECT_THAT(OpenPostgresStore(url),
              StatusIs(StatusCode::kNotFound, AllOf(HasSubstr("does not exist"), HasSubstr("createdb"))));
}

TEST_F(PostgresStoreTest, UnreachableServerIsUnavailableNamingTheUrl) {
  const std::string url = "postgresql:///engram?host=" + dir_ + "/no-server-here&user=engram";
  EXPECT_THAT(OpenPostgresStore(url, {.connect_timeout_seconds = 2}),
              StatusIs(StatusCode::kUnavailable,
                       AllOf(HasSubstr("cannot reach the server"), HasSubstr("no-server-here"),
                             HasSubstr("is PostgreSQL running"))));
}

TEST_F(PostgresStoreTest, RefusedPasswordIsFailedPreconditionAndNeverShowsThePassword) {
  ASSERT_THAT(RunSql(url_, "DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = "
                           "'engram_pw') THEN CREATE ROLE engram_pw LOGIN PASSWORD "
                           "'right-horse-battery'; END IF; END $$"),
              IsOk());
  // The wrong password in the URL's user info and as a query parameter.
  std::string in_user_info = url_;
  in_user_info.replace(in_user_info.find("://") + 3, 0, "engram_pw:s3cret-wrong-staple@");
  in_user_info.replace(in_user_info.find("user=engram"), 11, "user=engram_pw");
  const std::string in_query = url_.substr(0, url_.find("user=engram")) +
                               "user=engram_pw&password=s3cret-wrong-staple";
  for (const std::string& url : {in_user_info, in_query}) {
    StatusOr<std::unique_ptr<Store>> store = OpenPostgresStore(url);
    EXPECT_THAT(store, StatusIs(StatusCode::kFailedPrecondition,
                                AllOf(HasSubstr("refused the login"), HasSubstr("password"),
                                      Not(HasSubstr("s3cret-wrong-staple")))))
        << url;
  }
  EXPECT_EQ(RedactStoreLocation(in_query).find("s3cret"), std::string::npos);
}

TEST_F(PostgresStoreTest, AStoreWrittenWithEveryVectorPrecisionReadsEachVectorByItsForm) {
  ExpectMixedPrecisionVectorsReadBack([&](VectorPrecision precision) {
    return Open({.vector_precision = precision});
  });
}

TEST(PostgresUrlTest, RedactionHidesPasswordsOnly) {
  EXPECT_EQ(RedactStoreLocation("postgresql://ana:pa%40ss@db.example:5432/mem?sslmode=require"),
            "postgresql://ana:***@db.example:5432/mem?sslmode=require");
  EXPECT_EQ(RedactStoreLocation("postgres://db/mem?user=ana&password=hunter2&connect_timeout=3"),
            "postgres://db/mem?user=ana&password=***&connect_timeout=3");
  EXPECT_EQ(RedactStoreLocation("postgresql://ana@db/mem"), "postgresql://ana@db/mem");
  EXPECT_EQ(RedactStoreLocation("/var/lib/engram/p:w@d.db"), "/var/lib/engram/p:w@d.db");
  EXPECT_TRUE(IsPostgresUrl("postgresql://x"));
  EXPECT_TRUE(IsPostgresUrl("postgres://x"));
  EXPECT_FALSE(IsPostgresUrl("postgresql.db"));
}

TEST_F(PostgresStoreTest, EraseLeavesNoTraceOfTheTextInTheTableFiles) {
  const std::string marker = "zq-unique-marker-5be1d07c-erase-me";
  std::unique_ptr<Store> store = Open();
  ASSERT_NE(store, nullptr);
  const ScopeRecord alice = CreateScope(*store, "user:alice");
  const ScopeRecord bob = CreateScope(*store, "user:bob");
  {  // Bob's text over several pages, in one transaction.
    StatusOr<std::unique_ptr<Transaction>> txn = store->BeginWrite();
    ASSERT_THAT(txn, IsOk());
    for (int filler = 0; filler < 40; ++filler) {
      ASSERT_THAT((*txn)->InsertNode(NewText(**txn, bob.scope_id,
                                             "bob filler text " + std::to_string(filler) +
                                                 std::string(300, 'x'))),
                  IsOk());
    }
    ASSERT_THAT((*txn)->Commit(), IsOk());
  }
  // The marker last, so its row sits at the low end of its page, where pruning leaves bytes.
  AddText(*store, alice.scope_id, marker + " once");
  AddText(*store, alice.scope_id, marker + " and a long one " + std::string(4000, 'm'));
  ASSERT_THAT(RunSql(url_, "CHECKPOINT"), IsOk());
  StatusOr<std::string> data_dir = RunSql(url_, "SHOW data_directory");
  StatusOr<std::string> database_oid =
      RunSql(url_, "SELECT oid FROM pg_database WHERE datname = current_database()");
  ASSERT_THAT(data_dir, IsOk());
  ASSERT_THAT(database_oid, IsOk());
  const std::filesystem::path tables = std::filesystem::path(*data_dir) / "base" / *database_oid;
  ASSERT_FALSE(FilesContaining(tables, marker).empty()) << "the marker should be in the table files";

  const std::vector<std::int64_t> erase = {alice.scope_id};
  StatusOr<EraseCounts> counts = store->EraseScopes(erase);
  ASSERT_THAT(counts, IsOk());
  EXPECT_THAT(counts->wipe_status, IsOk());
  EXPECT_EQ(counts->nodes, 3u);  // the scope node and the two turns
  EXPECT_THAT(FilesContaining(tables, marker), ::testing::IsEmpty());
  EXPECT_FALSE(FilesContaining(tables, "bob filler text 39").empty());
  // The write-ahead log keeps the text until its segments are recycled and overwritten
  // (docs/ARCHITECTURE.md says so); record what is there rather than assert it.
  RecordProperty("marker_files_in_pg_wal",
                 static_cast<int>(FilesContaining(std::filesystem::path(*data_dir) / "pg_wal", marker).size()));
}

TEST_F(PostgresStoreTest, ClientKilledMidTransactionLeavesNothingAndFreesTheWriteLock) {
  ASSERT_NE(Open(), nullptr);
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // The child writes a scope and a turn, says so, and waits to be killed before committing.
    close(ready[0]);
    StatusOr<std::unique_ptr<Store>> store = OpenPostgresStore(url_);
    if (!store.ok()) _exit(1);
    StatusOr<std::unique_ptr<Transaction>> txn = (*store)->BeginWrite();
    if (!txn.ok()) _exit(2);
    StatusOr<ScopeRecord> scope = (*txn)->CreateScope(
        "user:doomed", core::ScopeNodeId("user:doomed"), 0, Timestamp::FromSeconds(1));
    if (!scope.ok()) _exit(3);
    if (!(*txn)->InsertNode(NewText(**txn, scope->scope_id, "never committed")).ok()) _exit(4);
    if (::write(ready[1], "w", 1) != 1) _exit(5);
    pause();
    _exit(0);
  }
  close(ready[1]);
  char byte = 0;
  ASSERT_EQ(::read(ready[0], &byte, 1), 1) << "the child did not get to its write";
  close(ready[0]);
  ASSERT_EQ(kill(child, SIGKILL), 0);
  int wait_status = 0;
  ASSERT_EQ(waitpid(child, &wait_status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(wait_status));

  std::unique_ptr<Store> store = Open({.statement_timeout_ms = 20000});
  ASSERT_NE(store, nullptr);
  StatusOr<std::optional<ScopeRecord>> doomed = store->FindScope("user:doomed");
  ASSERT_THAT(doomed, IsOk());
  EXPECT_FALSE(doomed->has_value());
  EXPECT_THAT(store->ReadJournal(0, 0), ::engram::testing::IsOkAndHolds(::testing::IsEmpty()));
  // The server dropped the dead client's lock: a new writer gets in.
  const ScopeRecord scope = CreateScope(*store, "user:doomed");
  EXPECT_GT(scope.scope_id, 0);
}

TEST_F(PostgresStoreTest, TwoStoresSerialiseTheWritersOfOneTenantAndSeeEachOthersCommits) {
  std::unique_ptr<Store> first = Open();
  std::unique_ptr<Store> second = Open();
  ASSERT_NE(first, nullptr);
  ASSERT_NE(second, nullptr);
  const ScopeRecord scope = CreateScope(*first, "user:shared");
  StatusOr<std::unique_ptr<Transaction>> open = first->BeginWrite();
  ASSERT_THAT(open, IsOk());
  const NodeRecord node = NewText(**open, scope.scope_id, "written through the first");
  ASSERT_THAT((*open)->InsertNode(node), IsOk());
  // The second store's transaction begins at once; its first call on the tenant waits for the
  // first's transaction (the tenant's advisory lock).
  StatusOr<std::unique_ptr<Transaction>> waiting = second->BeginWrite();
  ASSERT_THAT(waiting, IsOk());
  std::promise<void> sequenced;
  std::future<std::int64_t> second_write = std::async(std::launch::async, [&] {
    StatusOr<std::int64_t> sequence = (*waiting)->NextSequence(scope.scope_id);
    sequenced.set_value();
    if (!sequence.ok() || !(*waiting)->Commit().ok()) return std::int64_t{-1};
    return *sequence;
  });
  EXPECT_EQ(sequenced.get_future().wait_for(std::chrono::milliseconds(300)),
            std::future_status::timeout);
  EXPECT_THAT(second->GetNode(node.id), StatusIs(StatusCode::kNotFound));
  ASSERT_THAT((*open)->Commit(), IsOk());
  EXPECT_EQ(second_write.get(), 2);  // after the first's sequence 1: no gap, no repeat
  StatusOr<NodeRecord> seen = second->GetNode(node.id);
  ASSERT_THAT(seen, IsOk());
  EXPECT_EQ(seen->text, "written through the first");
}

TEST_F(PostgresStoreTest, WritersOfTwoTenantsRunSideBySideAndTheJournalFollowsCommitOrder) {
  std::unique_ptr<Store> first = Open();
  std::unique_ptr<Store> second = Open({.statement_timeout_ms = 20000});
  ASSERT_NE(first, nullptr);
  ASSERT_NE(second, nullptr);
  const ScopeRecord acme = CreateScope(*first, "user:acme");
  const ScopeRecord globex = CreateScope(*second, "user:globex");
  // The first writes to one tenant and stays open; the second writes to another, nested scope
  // included, and commits meanwhile (with the old database-wide lock it would have waited, and
  // here timed out).
  StatusOr<std::unique_ptr<Transaction>> open = first->BeginWrite();
  ASSERT_THAT(open, IsOk());
  const NodeRecord early = NewText(**open, acme.scope_id, "begun first, committed last");
  ASSERT_THAT((*open)->InsertNode(early), IsOk());
  NodeRecord late;
  {
    StatusOr<std::unique_ptr<Transaction>> txn = second->BeginWrite();
    ASSERT_THAT(txn, IsOk());
    StatusOr<ScopeRecord> nested =
        (*txn)->CreateScope("user:globex/run:7", core::ScopeNodeId("user:globex/run:7"),
                            globex.scope_id, Timestamp::FromSeconds(2));
    ASSERT_THAT(nested, IsOk());
    late = NewText(**txn, nested->scope_id, "begun second, committed first");
    ASSERT_THAT((*txn)->InsertNode(late), IsOk());
    ASSERT_THAT((*txn)->Commit(), IsOk());
  }
  // A follower reads up to here now...
  StatusOr<std::int64_t> read_up_to = second->LastJournalSeq();
  ASSERT_THAT(read_up_to, IsOk());
  StatusOr<std::vector<JournalEntry>> before = second->ReadJournal(0, 0);
  ASSERT_THAT(before, IsOk());
  ASSERT_FALSE(before->empty());
  EXPECT_EQ(before->back().seq, *read_up_to);
  EXPECT_EQ(before->back().target_id, late.id);
  // ...and the first's commit, though its insert came earlier, gets seqs after it: the follower
  // reading on from there misses nothing.
  ASSERT_THAT((*open)->Commit(), IsOk());
  StatusOr<std::vector<JournalEntry>> after = second->ReadJournal(*read_up_to, 0);
  ASSERT_THAT(after, IsOk());
  ASSERT_EQ(after->size(), 1U);
  EXPECT_EQ((*after)[0].target_id, early.id);
  EXPECT_EQ((*after)[0].scope_id, acme.scope_id);
  EXPECT_GT((*after)[0].seq, *read_up_to);
}

TEST_F(PostgresStoreTest, AJournalWaitWakesOnAnotherStoresCommitButNotOnARollback) {
  std::unique_ptr<Store> follower = Open();
  std::unique_ptr<Store> writer = Open();
  ASSERT_NE(follower, nullptr);
  ASSERT_NE(writer, nullptr);
  const ScopeRecord scope = CreateScope(*writer, "user:shared");
  StatusOr<std::int64_t> last = follower->LastJournalSeq();
  ASSERT_THAT(last, IsOk());
  // A rolled-back write sends no notification and leaves the journal as it was: the short wait
  // ends on its timeout with the same seq.
  {
    StatusOr<std::unique_ptr<Transaction>> txn = writer->BeginWrite();
    ASSERT_THAT(txn, IsOk());
    ASSERT_THAT((*txn)->InsertNode(NewText(**txn, scope.scope_id, "rolled back")), IsOk());
  }
  EXPECT_THAT(follower->WaitForJournal(*last, std::chrono::milliseconds(200)),
              IsOkAndHolds(*last));
  // A commit through the other store (its own connections) wakes an hour-long wait.
  std::future<StatusOr<std::int64_t>> waited = std::async(std::launch::async, [&] {
    return follower->WaitForJournal(*last, std::chrono::hours(1));
  });
  StatusOr<std::unique_ptr<Transaction>> txn = writer->BeginWrite();
  ASSERT_THAT(txn, IsOk());
  ASSERT_THAT((*txn)->InsertNode(NewText(**txn, scope.scope_id, "committed")), IsOk());
  ASSERT_THAT((*txn)->Commit(), IsOk());
  const StatusOr<std::int64_t> woken = waited.get();
  ASSERT_THAT(woken, IsOk());
  EXPECT_GT(*woken, *last);
  EXPECT_THAT(writer->LastJournalSeq(), IsOkAndHolds(*woken));
}

TEST_F(PostgresStoreTest, PreparedStatementsSurviveASchemaChangeByAnotherProcess) {
  // Every statement is prepared once per connection. DDL by another session (a migration) makes
  // the server re-plan them: reads that name their columns go on working at once.
  std::unique_ptr<Store> store = Open();
  ASSERT_NE(store, nullptr);
  CreateScope(*store, "user:alice");
  ASSERT_THAT(store->ListScopes(), IsOk());
  StatusOr<std::string> before = store->DumpCanonical();
  ASSERT_THAT(before, IsOk());
  ASSERT_THAT(RunSql(url_, "ALTER TABLE scopes ADD COLUMN note TEXT"), IsOk());
  ASSERT_THAT(RunSql(url_, "ALTER TABLE meta ADD COLUMN note TEXT"), IsOk());
  StatusOr<std::vector<ScopeRecord>> scopes = store->ListScopes();
  ASSERT_THAT(scopes, IsOk());
  ASSERT_EQ(scopes->size(), 1u);
  EXPECT_EQ((*scopes)[0].path, "user:alice");
  // The dump's `SELECT *` changed its result columns: inside its snapshot transaction the first
  // try fails, retryable and saying why; the next one prepares the statements again.
  EXPECT_THAT(store->DumpCanonical(),
              StatusIs(StatusCode::kUnavailable, HasSubstr("schema changed")));
  StatusOr<std::string> after = store->DumpCanonical();
  ASSERT_THAT(after, IsOk());
  EXPECT_NE(*after, *before);  // it has the new columns
}

TEST_F(PostgresStoreTest, StatementTimeoutIsDeadlineExceededNamingTheKey) {
  std::unique_ptr<Store> holder = Open();
  std::unique_ptr<Store> waiter = Open({.statement_timeout_ms = 200});
  ASSERT_NE(holder, nullptr);
  ASSERT_NE(waiter, nullptr);
  StatusOr<std::unique_ptr<Transaction>> open = holder->BeginWrite();
  ASSERT_THAT(open, IsOk());
  ASSERT_THAT((*open)->FindScope("user:busy"), IsOk());  // takes the tenant's lock
  StatusOr<std::unique_ptr<Transaction>> waiting = waiter->BeginWrite();
  ASSERT_THAT(waiting, IsOk());
  EXPECT_THAT((*waiting)->FindScope("user:busy/run:1"),
              StatusIs(StatusCode::kDeadlineExceeded, HasSubstr("statement_timeout_ms")));
}

// ----- Merkle audit (docs/AUDIT.md) -------------------------------------------------------------

// A turn whose id the audit can recompute: content-addressed by its scope's node id and its event
// time (as the write path makes them).
NodeRecord AuditedTurn(Transaction& txn, const ScopeRecord& scope, std::string_view text,
                       std::int64_t seconds) {
  NodeRecord node;
  node.kind = NodeKind::kTurn;
  node.scope_id = scope.scope_id;
  node.sequence = txn.NextSequence(scope.scope_id).value_or(0);
  node.text = std::string(text);
  node.content_json = "{\"text\":\"" + std::string(text) + "\"}";
  node.event_time = Timestamp::FromSeconds(seconds);
  node.ingested_at = Timestamp::FromSeconds(seconds);
  node.updated_at = node.ingested_at;
  node.id = core::NodeId("turn", node.content_json, scope.node_id, node.event_time->micros);
  return node;
}

// What a tamperer with access to the database does: drop the trigger that keeps content
// immutable and change one byte of a stored turn. The store's roots still hold the old content,
// so the audit names the memory.
TEST_F(PostgresStoreTest, AOneByteChangeWithTheTriggerDroppedFailsTheAuditNamingTheMemory) {
  std::unique_ptr<Store> store = Open();
  ASSERT_NE(store, nullptr);
  const ScopeRecord scope = CreateScope(*store, "user:alice");
  std::vector<NodeRecord> turns;
  {
    StatusOr<std::unique_ptr<Transaction>> txn = store->BeginWrite();
    ASSERT_THAT(txn, IsOk());
    for (const auto& [text, seconds] :
         {std::pair{"I live in Berlin.", 10}, std::pair{"My sister Maya works at Siemens.", 11},
          std::pair{"The project is called Bluebird.", 12}}) {
      turns.push_back(AuditedTurn(**txn, scope, text, seconds));
      ASSERT_THAT((*txn)->InsertNode(turns.back()), IsOk());
    }
    ASSERT_THAT((*txn)->Commit(), IsOk());
  }
  StatusOr<AuditReport> clean = AuditScope(*store, scope);
  ASSERT_THAT(clean, IsOk());
  EXPECT_TRUE(clean->ok) << (clean->mismatch ? clean->mismatch->reason : "");
  EXPECT_EQ(clean->root, store->GetMerkleState(scope.scope_id).value_or(MerkleState{}).root);

  ASSERT_THAT(RunSql(url_,
                     "DROP TRIGGER nodes_content_immutable ON nodes; "
                     "UPDATE nodes SET text = 'My sister Maya works at Siemenz.' "
                     "WHERE id = '" +
                         turns[1].id + "'"),
              IsOk());
  StatusOr<NodeRecord> changed = store->GetNode(turns[1].id);
  ASSERT_THAT(changed, IsOk());
  ASSERT_EQ(changed->text, "My sister Maya works at Siemenz.");
  StatusOr<AuditReport> audit = AuditScope(*store, scope);
  ASSERT_THAT(audit, IsOk());
  EXPECT_FALSE(audit->ok);
  ASSERT_TRUE(audit->mismatch.has_value());
  EXPECT_EQ(audit->mismatch->target_id, turns[1].id);
  EXPECT_EQ(audit->mismatch->kind, "node");
  EXPECT_EQ(audit->mismatch->scope, "user:alice");
  EXPECT_THAT(audit->mismatch->reason, HasSubstr("stored leaf hash"));
}

// Schema 5 moves a turn's signal nodes into its analysis row (turn_analysis_contract_test.cc).
TEST_F(PostgresStoreTest, MigratingAVersion4StoreMovesSignalNodesIntoAnalysisRows) {
  Version4Signals written;
  {
    std::unique_ptr<Store> store = Open();
    ASSERT_NE(store, nullptr);
    written = WriteVersion4Signals(*store);
  }
  ASSERT_THAT(RunSql(url_,
                     "DROP TABLE projection_snapshots; "
                     "ALTER TABLE merkle_leaves ALTER COLUMN hash TYPE TEXT "
                     "USING encode(hash, 'hex'); DROP TABLE turn_analysis; "
                     "UPDATE meta SET value = '4' WHERE key = 'schema_version'"),
              IsOk());
  std::unique_ptr<Store> store = Open();
  ASSERT_NE(store, nullptr);
  EXPECT_THAT(RunSql(url_, "SELECT value FROM meta WHERE key = 'schema_version'"),
              ::engram::testing::IsOkAndHolds(std::string("8")));
  ExpectMigratedToVersion5(*store, written);
}

// Schema 7 turns the analysis column into bytes and rewrites a version 6 store's JSON rows in
// format 2 where that gives the JSON back (turn_analysis_contract_test.cc).
TEST_F(PostgresStoreTest, MigratingAVersion6StoreCompactsItsAnalysisRows) {
  Version6Analyses written;
  {
    std::unique_ptr<Store> store = Open();
    ASSERT_NE(store, nullptr);
    written = WriteVersion6Analyses(*store);
  }
  ASSERT_THAT(RunSql(url_,
                     "DROP TABLE projection_snapshots; "
                     "ALTER TABLE turn_analysis ALTER COLUMN analysis TYPE TEXT "
                     "USING convert_from(analysis, 'UTF8'); "
                     "UPDATE meta SET value = '6' WHERE key = 'schema_version'"),
              IsOk());
  std::unique_ptr<Store> store = Open();
  ASSERT_NE(store, nullptr);
  EXPECT_THAT(RunSql(url_, "SELECT value FROM meta WHERE key = 'schema_version'"),
              ::engram::testing::IsOkAndHolds(std::string("8")));
  ExpectMigratedToVersion7(*store, written);
}

// Schema 6 converts a version 5 store as SQLite's does (sqlite_contract_test.cc): a turn in the
// write path's layout loses its stored copy of the text, empty content is kept behind a space,
// the leaf hashes become bytes, and ids, leaves and roots stay what they were.
TEST_F(PostgresStoreTest, MigratingAVersion5StoreStoresTurnTextOnceKeepingLeavesAndRoots) {
  NodeRecord turn;
  NodeRecord empty;
  MerkleState state_before;
  std::vector<MerkleLeaf> leaves_before;
  std::int64_t scope_id = 0;
  {
    std::unique_ptr<Store> store = Open();
    ASSERT_NE(store, nullptr);
    const ScopeRecord scope = CreateScope(*store, "user:alice");
    scope_id = scope.scope_id;
    StatusOr<std::unique_ptr<Transaction>> txn = store->BeginWrite();
    ASSERT_THAT(txn, IsOk());
    turn.scope_id = scope.scope_id;
    turn.sequence = (*txn)->NextSequence(scope.scope_id).value_or(0);
    turn.text = "The project is called Bluebird.";
    turn.speaker = "Alice";
    turn.session_id = "s1";
    turn.event_time = Timestamp::FromSeconds(1'700'000'000);
    turn.metadata_json = R"({"n":1})";
    turn.content_json =
        R"({"event_time":"2023-11-14T22:13:20Z","metadata":{"n":1},"role":"user","sequence":)" +
        std::to_string(turn.sequence) +
        R"(,"session_id":"s1","speaker":"Alice","text":"The project is called Bluebird."})";
    turn.id = core::NodeId("turn", turn.content_json, scope.node_id, turn.event_time->micros);
    ASSERT_THAT((*txn)->InsertNode(turn), IsOk());
    empty.kind = NodeKind::kFact;
    empty.scope_id = scope.scope_id;
    empty.id = core::NodeId("fact", "", scope.node_id, 0);
    ASSERT_THAT((*txn)->InsertNode(empty), IsOk());
    ASSERT_THAT((*txn)->Commit(), IsOk());
    EXPECT_THAT(
        RunSql(url_, "SELECT '[' || content_json || ']' FROM nodes WHERE id = '" + turn.id + "'"),
        ::engram::testing::IsOkAndHolds(std::string("[]")));
    state_before = store->GetMerkleState(scope_id).value_or(MerkleState{});
    leaves_before =
        store->GetMerkleLeaves(scope_id, MerkleLog::kNodes).value_or(std::vector<MerkleLeaf>{});
  }
  ASSERT_THAT(RunSql(url_,
                     "DROP TABLE projection_snapshots; "
                     "ALTER TABLE merkle_leaves ALTER COLUMN hash TYPE TEXT "
                     "USING encode(hash, 'hex'); "
                     "ALTER TABLE nodes DISABLE TRIGGER nodes_content_immutable; "
                     "UPDATE nodes SET content_json = substr(content_json, 2) "
                     "WHERE left(content_json, 1) = ' '; "
                     "UPDATE nodes SET content_json = '" +
                         turn.content_json + "' WHERE id = '" + turn.id +
                         "'; ALTER TABLE nodes ENABLE TRIGGER nodes_content_immutable; "
                         "ALTER TABLE turn_analysis ALTER COLUMN analysis TYPE TEXT "
                         "USING convert_from(analysis, 'UTF8'); "
                         "UPDATE meta SET value = '5' WHERE key = 'schema_version'"),
              IsOk());
  std::unique_ptr<Store> store = Open();
  ASSERT_NE(store, nullptr);
  EXPECT_THAT(RunSql(url_, "SELECT value FROM meta WHERE key = 'schema_version'"),
              ::engram::testing::IsOkAndHolds(std::string("8")));
  for (const NodeRecord& node : {turn, empty}) {
    StatusOr<NodeRecord> got = store->GetNode(node.id);
    ASSERT_THAT(got, IsOk());
    EXPECT_EQ(got->content_json, node.content_json);
  }
  StatusOr<MerkleState> state = store->GetMerkleState(scope_id);
  ASSERT_THAT(state, IsOk());
  EXPECT_EQ(state->root, state_before.root);
  StatusOr<std::vector<MerkleLeaf>> leaves = store->GetMerkleLeaves(scope_id, MerkleLog::kNodes);
  ASSERT_THAT(leaves, IsOk());
  ASSERT_EQ(leaves->size(), leaves_before.size());
  for (std::size_t i = 0; i < leaves->size(); ++i) {
    EXPECT_EQ((*leaves)[i].hash, leaves_before[i].hash);
  }
  EXPECT_THAT(
      RunSql(url_, "SELECT '[' || content_json || ']' FROM nodes WHERE id = '" + turn.id + "'"),
      ::engram::testing::IsOkAndHolds(std::string("[]")));
  EXPECT_THAT(
      RunSql(url_, "SELECT '[' || content_json || ']' FROM nodes WHERE id = '" + empty.id + "'"),
      ::engram::testing::IsOkAndHolds(std::string("[ ]")));
  EXPECT_THAT(RunSql(url_,
                     "SELECT string_agg(DISTINCT pg_typeof(hash)::text || "
                     "octet_length(hash), ',') FROM merkle_leaves"),
              ::engram::testing::IsOkAndHolds(std::string("bytea32")));
}

// Schema 4 adds the Merkle logs: a store migrated from version 3 gets the leaves and roots it
// would have had if it had kept them from the start.
TEST_F(PostgresStoreTest, MigratingAVersion3StoreBuildsTheMerkleLogsItWouldHaveKept) {
  struct Kept {
    std::int64_t scope_id;
    MerkleState state;
    std::vector<MerkleLeaf> nodes;
    std::vector<MerkleLeaf> edges;
  };
  std::vector<Kept> kept;
  {
    std::unique_ptr<Store> store = Open();
    ASSERT_NE(store, nullptr);
    const ScopeRecord alice = CreateScope(*store, "user:alice");
    const NodeRecord first = AddText(*store, alice.scope_id, "first");
    StatusOr<std::unique_ptr<Transaction>> txn = store->BeginWrite();
    ASSERT_THAT(txn, IsOk());
    StatusOr<ScopeRecord> run =
        (*txn)->CreateScope("user:alice/run:1", core::ScopeNodeId("user:alice/run:1"),
                            alice.scope_id, Timestamp::FromSeconds(2));
    ASSERT_THAT(run, IsOk());
    const NodeRecord nested = NewText(**txn, run->scope_id, "nested");
    ASSERT_THAT((*txn)->InsertNode(nested), IsOk());
    write::EdgeRegistry registry;
    ASSERT_THAT(registry.Register(write::MakePlainEdgeHandler("refers_to")), IsOk());
    ASSERT_THAT(registry.Apply(**txn, {.type = "refers_to",
                                       .src = nested.id,
                                       .dst = first.id,
                                       .now = Timestamp::FromSeconds(3)}),
                IsOk());
    ASSERT_THAT((*txn)->Commit(), IsOk());
    for (const std::int64_t scope_id : {alice.scope_id, run->scope_id}) {
      StatusOr<MerkleState> state = store->GetMerkleState(scope_id);
      ASSERT_THAT(state, IsOk());
      kept.push_back(
          {scope_id, *state,
           store->GetMerkleLeaves(scope_id, MerkleLog::kNodes).value_or(std::vector<MerkleLeaf>{}),
           store->GetMerkleLeaves(scope_id, MerkleLog::kEdges)
               .value_or(std::vector<MerkleLeaf>{})});
    }
    EXPECT_EQ(kept[0].state.node_count, 2);  // the scope node and "first"
    EXPECT_EQ(kept[1].state.node_count, 2);  // the scope node and "nested"
    EXPECT_EQ(kept[1].state.edge_count, 1);
  }
  ASSERT_THAT(RunSql(url_,
                     "DROP TABLE projection_snapshots; "
                     "DROP TABLE turn_analysis; DROP TABLE merkle_leaves; DROP TABLE merkle_roots; "
                     "UPDATE meta SET value = '3' WHERE key = 'schema_version'"),
              IsOk());
  std::unique_ptr<Store> store = Open();
  ASSERT_NE(store, nullptr);
  EXPECT_THAT(RunSql(url_, "SELECT value FROM meta WHERE key = 'schema_version'"),
              ::engram::testing::IsOkAndHolds(std::string("8")));
  for (const Kept& scope : kept) {
    StatusOr<MerkleState> state = store->GetMerkleState(scope.scope_id);
    ASSERT_THAT(state, IsOk());
    EXPECT_EQ(state->root, scope.state.root);
    EXPECT_EQ(state->node_root, scope.state.node_root);
    EXPECT_EQ(state->edge_root, scope.state.edge_root);
    EXPECT_EQ(state->node_count, scope.state.node_count);
    EXPECT_EQ(state->edge_count, scope.state.edge_count);
    for (const auto& [log, leaves] :
         {std::pair{MerkleLog::kNodes, &scope.nodes}, std::pair{MerkleLog::kEdges, &scope.edges}}) {
      StatusOr<std::vector<MerkleLeaf>> rebuilt = store->GetMerkleLeaves(scope.scope_id, log);
      ASSERT_THAT(rebuilt, IsOk());
      ASSERT_EQ(rebuilt->size(), leaves->size());
      for (std::size_t i = 0; i < leaves->size(); ++i) {
        EXPECT_EQ((*rebuilt)[i].target_id, (*leaves)[i].target_id);
        EXPECT_EQ((*rebuilt)[i].hash, (*leaves)[i].hash);
      }
    }
  }
}

}  // namespace
}  // namespace engram::store::conformance
