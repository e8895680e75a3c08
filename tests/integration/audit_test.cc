// The Merkle audit, proofs, export and import through the public API (docs/AUDIT.md): tampering
// with one stored byte is found and named, equal content gives equal roots, erase / retire /
// amend keep the stored roots equal to a recompute, and an export imports into a fresh store with
// the same ids and root, or is refused whole.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <string>
#include <vector>

#include "engram/engine.h"
#include "engram/testing/bench_data.h"
#include "engram/testing/status_matchers.h"
#include "io/api_json.h"
#include "io/locomo.h"
#include "store/audit.h"
#include "test_util.h"

namespace engram {
namespace {

using ::engram::testing::IsOk;
using ::engram::testing::IsOkAndHolds;
using ::engram::testing::MakeTurn;
using ::engram::testing::S;
using ::testing::HasSubstr;

EngineOptions Options(const testing::TempDir& dir, const std::string& name = "engram.db") {
  EngineOptions options = testing::TestOptions(dir, name);
  Config config;
  config.embedder.kind = "hashing";
  config.embedder.hashing_dimension = 32;
  options.config = config;
  return options;
}

std::vector<Turn> AliceTurns() {
  return {MakeTurn("Alice", "I live in Berlin.", "s1", "2024-03-01T10:00:00Z"),
          MakeTurn("Bob", "Nice, how is the weather there?", "s1", "2024-03-01T10:01:00Z"),
          MakeTurn("Alice", "My sister Maya works at Siemens.", "s1", "2024-03-01T10:02:00Z")};
}

std::vector<Turn> RunTurns() {
  return {MakeTurn("Alice", "The secret project is called Bluebird.", "r1", "2024-04-01T09:00:00Z"),
          MakeTurn("Alice", "I moved to Munich in June.", "r1", "2024-06-02T09:00:00Z")};
}

// A store holding user:alice and its nested run user:alice/run:1.
std::unique_ptr<Engine> Filled(const EngineOptions& options, std::vector<std::string>* ids) {
  std::unique_ptr<Engine> engine = testing::OpenOrDie(options);
  StatusOr<RememberResult> alice = engine->Remember(S("user:alice"), AliceTurns());
  StatusOr<RememberResult> run = engine->Remember(S("user:alice/run:1"), RunTurns());
  EXPECT_THAT(alice, IsOk());
  EXPECT_THAT(run, IsOk());
  if (ids != nullptr && alice.ok() && run.ok()) {
    *ids = alice->ids;
    ids->insert(ids->end(), run->ids.begin(), run->ids.end());
  }
  return engine;
}

AuditReport AuditOrDie(Engine& engine, const std::string& scope) {
  StatusOr<AuditReport> report = engine.Audit(S(scope));
  EXPECT_THAT(report, IsOk());
  return report.value_or(AuditReport{});
}

void Sql(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* error = nullptr;
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error);
  const std::string message = error != nullptr ? error : "";
  sqlite3_free(error);
  sqlite3_close(db);
  ASSERT_EQ(rc, SQLITE_OK) << message;
}

TEST(AuditTest, AFreshStorePassesWithTheStoredRoot) {
  testing::TempDir dir("engram_audit");
  std::unique_ptr<Engine> engine = Filled(Options(dir), nullptr);
  const AuditReport report = AuditOrDie(*engine, "user:alice");
  EXPECT_TRUE(report.ok) << report.mismatch->reason;
  EXPECT_EQ(report.root, report.stored_root);
  EXPECT_EQ(report.root.size(), 64u);
  EXPECT_EQ(report.scopes, 2);
  EXPECT_GT(report.nodes, 5);  // two scope nodes, five turns, their signals and entities
  EXPECT_GT(report.edges, 5);
  // The nested scope's root is part of its parent's: auditing it alone gives its own root.
  const AuditReport run = AuditOrDie(*engine, "user:alice/run:1");
  EXPECT_TRUE(run.ok);
  EXPECT_NE(run.root, report.root);
  EXPECT_EQ(engine->Audit(S("user:nobody")).status().code(), StatusCode::kNotFound);
}

// The roots depend on what a store holds, not on when it learned it: a second store fed the same
// turns a day later (another clock) has the same roots.
TEST(AuditTest, TwoStoresFedTheSameTurnsHaveTheSameRoots) {
  testing::TempDir dir("engram_audit");
  std::unique_ptr<Engine> first = Filled(Options(dir, "first.db"), nullptr);
  EngineOptions later = Options(dir, "second.db");
  later.clock = FixedClock(Timestamp::FromSeconds(1704067200 + 86400), 7000);
  std::unique_ptr<Engine> second = Filled(later, nullptr);
  EXPECT_EQ(AuditOrDie(*first, "user:alice").root, AuditOrDie(*second, "user:alice").root);
  EXPECT_EQ(AuditOrDie(*first, "user:alice/run:1").root,
            AuditOrDie(*second, "user:alice/run:1").root);
  // Different content, different root.
  testing::TempDir other_dir("engram_audit");
  std::unique_ptr<Engine> other = testing::OpenOrDie(Options(other_dir));
  const std::vector<Turn> paris = {MakeTurn("Alice", "I live in Paris.")};
  ASSERT_THAT(other->Remember(S("user:alice"), paris).status(), IsOk());
  EXPECT_NE(AuditOrDie(*other, "user:alice").root, AuditOrDie(*first, "user:alice").root);
}

// A turn written by the engine stores its text once: its content_json column is empty, rebuilt
// from the turn's columns on read (store/backend_common.h), and the audit passes on it.
TEST(AuditTest, TurnsWrittenByTheEngineStoreTheirTextOnce) {
  testing::TempDir dir("engram_audit");
  const EngineOptions options = Options(dir);
  std::vector<std::string> ids;
  Filled(options, &ids).reset();
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(options.store_path.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db,
                               "SELECT count(*), sum(content_json = '') FROM nodes "
                               "WHERE kind = 'turn'",
                               -1, &stmt, nullptr),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_step(stmt), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int64(stmt, 0), static_cast<std::int64_t>(ids.size()));
  EXPECT_EQ(sqlite3_column_int64(stmt, 1), static_cast<std::int64_t>(ids.size()));
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  std::unique_ptr<Engine> engine = testing::OpenOrDie(options);
  StatusOr<Memory> node = engine->Get(ids[3]);
  ASSERT_THAT(node, IsOk());
  EXPECT_EQ(node->text, "The secret project is called Bluebird.");
  EXPECT_TRUE(AuditOrDie(*engine, "user:alice").ok);
}

// A tamperer who drops the immutability trigger and changes one byte of a stored turn is caught,
// and the turn is named: whether the text column changes, another column the content is rebuilt
// from, or a content stored in full in place of the rebuilt one.
TEST(AuditTest, ChangingOneStoredByteFailsTheAuditNamingTheMemory) {
  for (const std::string change :
       {"text = replace(text, 'Bluebird', 'Bluebirb')", "speaker = speaker || 'x'",
        "content_json = '{\"text\":\"The secret project is called Bluebirb.\"}'"}) {
    SCOPED_TRACE(change);
    testing::TempDir dir("engram_audit");
    const EngineOptions options = Options(dir);
    std::vector<std::string> ids;
    Filled(options, &ids).reset();
    const std::string victim = ids[3];  // "The secret project is called Bluebird." in the run
    Sql(options.store_path, "DROP TRIGGER nodes_content_immutable; UPDATE nodes SET " + change +
                                " WHERE id = '" + victim + "'");
    std::unique_ptr<Engine> engine = testing::OpenOrDie(options);
    const AuditReport report = AuditOrDie(*engine, "user:alice");
    EXPECT_FALSE(report.ok);
    ASSERT_TRUE(report.mismatch.has_value());
    EXPECT_EQ(report.mismatch->target_id, victim);
    EXPECT_EQ(report.mismatch->kind, "node");
    EXPECT_EQ(report.mismatch->scope, "user:alice/run:1");
    EXPECT_EQ(report.stored_root, AuditOrDie(*engine, "user:alice").stored_root);
    // Its proof no longer verifies either: the leaf recomputed from the content is not the
    // stored one.
    StatusOr<MerkleProof> proof = engine->Proof(victim);
    ASSERT_THAT(proof, IsOk());
    EXPECT_FALSE(proof->verified);
  }
}

TEST(AuditTest, AnEdgeRewiredInTheStoreIsNamed) {
  testing::TempDir dir("engram_audit");
  const EngineOptions options = Options(dir);
  std::vector<std::string> ids;
  Filled(options, &ids).reset();
  Sql(options.store_path,
      "DROP TRIGGER edges_content_immutable; UPDATE edges SET dst = '" + ids[0] +
          "' WHERE row_id = (SELECT max(row_id) FROM edges WHERE type = 'derived_from' AND dst = '" +
          ids[2] + "')");
  std::unique_ptr<Engine> engine = testing::OpenOrDie(options);
  const AuditReport report = AuditOrDie(*engine, "user:alice");
  ASSERT_TRUE(report.mismatch.has_value());
  EXPECT_EQ(report.mismatch->kind, "edge");
  EXPECT_THAT(report.mismatch->reason, HasSubstr("id does not match"));
}

// Retire changes no root (status is outside the hash); amend appends a node (and edges), so the
// root changes; erasing a nested scope changes its parent's root to exactly what a store that
// never held the nested scope has. After each the stored roots equal a recompute.
TEST(AuditTest, RetireAmendAndEraseKeepTheRootsConsistent) {
  testing::TempDir dir("engram_audit");
  std::vector<std::string> ids;
  std::unique_ptr<Engine> engine = Filled(Options(dir), &ids);
  const std::string before = AuditOrDie(*engine, "user:alice").root;

  ASSERT_THAT(engine->Retire(ids[1], "off topic"), IsOk());
  AuditReport retired = AuditOrDie(*engine, "user:alice");
  EXPECT_TRUE(retired.ok);
  EXPECT_EQ(retired.root, before);

  Turn correction;
  correction.text = "I live in Hamburg.";
  ASSERT_THAT(engine->Amend(ids[0], correction, "moved").status(), IsOk());
  AuditReport amended = AuditOrDie(*engine, "user:alice");
  EXPECT_TRUE(amended.ok);
  EXPECT_NE(amended.root, before);
  EXPECT_EQ(amended.root, amended.stored_root);

  testing::TempDir plain_dir("engram_audit");
  std::unique_ptr<Engine> plain = testing::OpenOrDie(Options(plain_dir));
  ASSERT_THAT(plain->Remember(S("user:alice"), AliceTurns()).status(), IsOk());
  std::unique_ptr<Engine> nested = Filled(Options(dir, "nested.db"), nullptr);
  ASSERT_NE(AuditOrDie(*nested, "user:alice").root, AuditOrDie(*plain, "user:alice").root);
  ASSERT_THAT(nested->Erase(S("user:alice/run:1")).status(), IsOk());
  const AuditReport erased = AuditOrDie(*nested, "user:alice");
  EXPECT_TRUE(erased.ok);
  EXPECT_EQ(erased.scopes, 1);
  EXPECT_EQ(erased.root, AuditOrDie(*plain, "user:alice").root);
}

TEST(AuditTest, AProofLeadsFromAMemoryToEveryEnclosingRoot) {
  testing::TempDir dir("engram_audit");
  std::vector<std::string> ids;
  std::unique_ptr<Engine> engine = Filled(Options(dir), &ids);
  StatusOr<MerkleProof> proof = engine->Proof(ids[4]);
  ASSERT_THAT(proof, IsOk());
  EXPECT_TRUE(proof->verified);
  ASSERT_EQ(proof->scopes.size(), 2u);
  EXPECT_EQ(proof->scopes[0].scope, "user:alice/run:1");
  EXPECT_EQ(proof->scopes[1].scope, "user:alice");
  EXPECT_EQ(proof->scopes[0].root, AuditOrDie(*engine, "user:alice/run:1").root);
  EXPECT_EQ(proof->scopes[1].root, AuditOrDie(*engine, "user:alice").root);
  EXPECT_TRUE(store::VerifyProof(*proof));
  // Any changed step breaks it.
  MerkleProof forged = *proof;
  forged.leaf_index ^= 1;
  EXPECT_FALSE(store::VerifyProof(forged));
  forged = *proof;
  forged.scopes[0].children.push_back({"user:alice/run:1/run:x", proof->scopes[1].root});
  EXPECT_FALSE(store::VerifyProof(forged));
  forged = *proof;
  forged.scopes[1].children[0].root = proof->scopes[1].root;
  EXPECT_FALSE(store::VerifyProof(forged));
  EXPECT_EQ(engine->Proof("0123456789abcdef0123456789abcdef").status().code(),
            StatusCode::kNotFound);
}

// ---------------------------------------------------------------------------------------------
// Export and import.

std::string ExportOrDie(Engine& engine, const std::string& scope) {
  std::string text;
  StatusOr<ExportSummary> summary = engine.Export(S(scope), &text);
  EXPECT_THAT(summary, IsOk());
  return text;
}

// The text with the first occurrence of `from` replaced.
std::string Replace(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// 1-based number of the line holding `needle`.
std::size_t LineOf(const std::string& text, const std::string& needle) {
  const std::size_t at = text.find(needle);
  return at == std::string::npos
             ? 0
             : 1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + at, '\n'));
}

TEST(ExportImportTest, RoundTripReproducesIdsRootsAndBytes) {
  testing::TempDir dir("engram_export");
  std::vector<std::string> ids;
  std::unique_ptr<Engine> source = Filled(Options(dir, "source.db"), &ids);
  ASSERT_THAT(source->Retire(ids[1]), IsOk());
  const std::string text = ExportOrDie(*source, "user:alice");
  const std::string root = AuditOrDie(*source, "user:alice").root;
  EXPECT_THAT(text.substr(0, text.find('\n')), HasSubstr("\"root\":\"" + root + "\""));

  std::unique_ptr<Engine> target = testing::OpenOrDie(Options(dir, "target.db"));
  StatusOr<ImportSummary> imported = target->Import(text, {.source_name = "alice.jsonl"});
  ASSERT_THAT(imported, IsOk());
  EXPECT_FALSE(imported->renamed);
  EXPECT_EQ(imported->root, root);
  EXPECT_EQ(imported->scopes, 2);
  EXPECT_GT(imported->vectors, 0);
  const AuditReport audit = AuditOrDie(*target, "user:alice");
  EXPECT_TRUE(audit.ok);
  EXPECT_EQ(audit.root, root);
  for (const std::string& id : ids) {
    StatusOr<Memory> copy = target->Get(id);
    StatusOr<Memory> original = source->Get(id);
    ASSERT_THAT(copy, IsOk());
    EXPECT_EQ(copy->text, original->text);
    EXPECT_EQ(copy->status, original->status);  // the retired turn stays retired
    EXPECT_EQ(copy->valid_to, original->valid_to);
    // A turn's analysis row travels on its line.
    if (original->kind != NodeKind::kTurn) continue;
    StatusOr<std::string> analysis = source->Analysis(id);
    ASSERT_THAT(analysis, IsOk());
    EXPECT_FALSE(analysis->empty());
    EXPECT_THAT(target->Analysis(id), IsOkAndHolds(*analysis));
  }
  EXPECT_THAT(text, HasSubstr("\"analysis_format\":1"));
  EXPECT_EQ(ExportOrDie(*target, "user:alice"), text);
  // Recall finds the imported memories (the projections followed the import).
  StatusOr<ReadResult> recalled =
      target->Recall(S("user:alice"), {.text = "What is the secret project called?"},
                     {.include_nested = true});
  ASSERT_THAT(recalled, IsOk());
  ASSERT_FALSE(recalled->items.empty());
  EXPECT_THAT(recalled->context, HasSubstr("Bluebird"));
  // A second import of the same scope is refused; the store is unchanged.
  EXPECT_EQ(target->Import(text).status().code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(AuditOrDie(*target, "user:alice").root, root);
}

TEST(ExportImportTest, ImportUnderAnotherNameRecomputesIdsAndRoot) {
  testing::TempDir dir("engram_export");
  std::vector<std::string> ids;
  std::unique_ptr<Engine> engine = Filled(Options(dir), &ids);
  const std::string text = ExportOrDie(*engine, "user:alice");
  StatusOr<ImportSummary> imported = engine->Import(text, {.scope = S("user:carol")});
  ASSERT_THAT(imported, IsOk());
  EXPECT_TRUE(imported->renamed);
  EXPECT_EQ(imported->scope, "user:carol");
  EXPECT_EQ(imported->source_scope, "user:alice");
  EXPECT_NE(imported->root, imported->file_root);
  const AuditReport audit = AuditOrDie(*engine, "user:carol");
  EXPECT_TRUE(audit.ok) << audit.mismatch->reason;
  EXPECT_EQ(audit.root, imported->root);
  EXPECT_EQ(audit.scopes, 2);
  // The same turns, new ids: a turn's id is what remembering it in user:carol would give.
  StatusOr<std::vector<Memory>> carol = engine->List(S("user:carol"), {.kind = NodeKind::kTurn});
  ASSERT_THAT(carol, IsOk());
  ASSERT_EQ(carol->size(), 3u);
  EXPECT_EQ((*carol)[0].text, "I live in Berlin.");
  EXPECT_NE((*carol)[0].id, ids[0]);
  testing::TempDir fresh_dir("engram_export");
  std::unique_ptr<Engine> fresh = testing::OpenOrDie(Options(fresh_dir));
  StatusOr<RememberResult> direct = fresh->Remember(S("user:carol"), AliceTurns());
  ASSERT_THAT(direct, IsOk());
  EXPECT_EQ((*carol)[0].id, direct->ids[0]);
  // Exported again and imported into a fresh store under its new name, it keeps that root.
  testing::TempDir again_dir("engram_export");
  std::unique_ptr<Engine> again = testing::OpenOrDie(Options(again_dir));
  StatusOr<ImportSummary> copied = again->Import(ExportOrDie(*engine, "user:carol"));
  ASSERT_THAT(copied, IsOk());
  EXPECT_EQ(copied->root, imported->root);
}

TEST(ExportImportTest, ExportAfterEraseOfANestedScopeHoldsNoneOfItsText) {
  testing::TempDir dir("engram_export");
  std::unique_ptr<Engine> engine = Filled(Options(dir), nullptr);
  ASSERT_THAT(engine->Erase(S("user:alice/run:1")).status(), IsOk());
  const std::string text = ExportOrDie(*engine, "user:alice");
  EXPECT_EQ(text.find("Bluebird"), std::string::npos);
  EXPECT_EQ(text.find("Munich"), std::string::npos);
  EXPECT_EQ(text.find("run:1"), std::string::npos);
  EXPECT_NE(text.find("Berlin"), std::string::npos);
  testing::TempDir target_dir("engram_export");
  std::unique_ptr<Engine> target = testing::OpenOrDie(Options(target_dir));
  StatusOr<ImportSummary> imported = target->Import(text);
  ASSERT_THAT(imported, IsOk());
  EXPECT_EQ(imported->root, AuditOrDie(*engine, "user:alice").root);
}

// Every refused file leaves the target store as it was: no scope at all.
class RefusedImportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    source_ = Filled(Options(dir_, "source.db"), nullptr);
    text_ = ExportOrDie(*source_, "user:alice");
    target_ = testing::OpenOrDie(Options(dir_, "target.db"));
  }

  Status Import(const std::string& text) {
    Status status = target_->Import(text, {.source_name = "alice.jsonl"}).status();
    StatusOr<std::vector<ScopeInfo>> scopes = target_->ListScopes();
    EXPECT_THAT(scopes, IsOk());
    EXPECT_TRUE(scopes->empty()) << "a refused import wrote " << scopes->size() << " scopes";
    return status;
  }

  testing::TempDir dir_{"engram_export"};
  std::unique_ptr<Engine> source_;
  std::unique_ptr<Engine> target_;
  std::string text_;
};

TEST_F(RefusedImportTest, AChangedTurnIsRefusedNamingItsLine) {
  const std::size_t line = LineOf(text_, "Bluebird");
  const Status status = Import(Replace(text_, "called Bluebird", "called Redbird"));
  EXPECT_EQ(status.code(), StatusCode::kCorruption);
  EXPECT_THAT(status.message(), HasSubstr("alice.jsonl line " + std::to_string(line) + ":"));
  EXPECT_THAT(status.message(), HasSubstr("\"id\""));  // the content no longer gives the id
}

TEST_F(RefusedImportTest, AChangedDenormalisedFieldIsRefusedByItsLeaf) {
  // "text" repeats the content's text: changing only it leaves the id right but not the leaf.
  const std::string needle = "\"text\":\"The secret project is called Bluebird.\"";
  const std::size_t line = LineOf(text_, needle);
  const Status status =
      Import(Replace(text_, needle, "\"text\":\"The secret project is called Redbird.\""));
  EXPECT_EQ(status.code(), StatusCode::kCorruption);
  EXPECT_THAT(status.message(), HasSubstr("line " + std::to_string(line) + ":"));
  EXPECT_THAT(status.message(), HasSubstr("\"leaf\""));
}

TEST_F(RefusedImportTest, AForgedHeaderRootIsRefused) {
  const std::string header = text_.substr(0, text_.find('\n'));
  const std::size_t at = header.find("\"root\":\"") + 8;
  std::string forged = text_;
  forged[at] = forged[at] == '0' ? '1' : '0';
  const Status status = Import(forged);
  EXPECT_EQ(status.code(), StatusCode::kCorruption);
  EXPECT_THAT(status.message(), HasSubstr("recompute to root"));
}

TEST_F(RefusedImportTest, TruncatedFilesAreRefused) {
  const std::size_t last_line = text_.rfind('\n', text_.size() - 2);
  const Status dropped = Import(text_.substr(0, last_line + 1));
  EXPECT_EQ(dropped.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(dropped.message(), HasSubstr("truncated"));
  const Status cut = Import(text_.substr(0, text_.size() - 10));
  EXPECT_EQ(cut.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(cut.message(), HasSubstr("does not end in a newline"));
  EXPECT_EQ(Import("").code(), StatusCode::kInvalidArgument);
}

TEST_F(RefusedImportTest, MalformedAndHostileLinesNameTheLineAndField) {
  const std::size_t second = text_.find('\n') + 1;
  const std::string header = text_.substr(0, second);
  const struct {
    std::string text;
    std::string expected;
  } cases[] = {
      {"not json\n", "line 1: not a JSON object"},
      {Replace(header, "\"format\":\"engram-export\"", "\"format\":\"zip\""), "\"format\""},
      {Replace(header, "\"version\":1", "\"version\":7"), "\"version\""},
      {Replace(text_, "\"type\":\"scope\"", "\"type\":\"scope\",\"extra\":1"), "line 2: field \"extra\": unknown field"},
      {Replace(text_, "\"last_sequence\":", "\"last_sequence\":\"x\",\"was\":"), "line 2: field \"last_sequence\""},
      {Replace(text_, "\"kind\":\"turn\"", "\"kind\":\"poem\""), "field \"kind\""},
      {Replace(text_, "\"sequence\":1,", "\"sequence\":[[[[[[[[1]]]]]]]],"), "nests deeper"},
      {Replace(text_, "\"vector\":\"", "\"vector\":\"!!!!"), "field \"vector\""},
      {Replace(text_, "\"edge_type\":\"contains\"", "\"edge_type\":\"teleports\""),
       "field \"id\" does not match the edge's type"},
      {header + text_.substr(second, text_.find('\n', second) - second + 1), "declares"},
  };
  for (const auto& bad : cases) {
    SCOPED_TRACE(bad.expected);
    const Status status = Import(bad.text);
    EXPECT_FALSE(status.ok());
    EXPECT_THAT(status.message(), HasSubstr(bad.expected));
  }
}

// The done-when: one LoCoMo conversation exported and imported into a fresh store has the
// same audit root and gives the same recall JSON for 20 of its questions.
TEST(ExportImportTest, LocomoConversationRoundTripsWithTheSameRootAndRecalls) {
  const std::string path = testing::BenchDataFile("locomo_dev.json");
  ENGRAM_SKIP_WITHOUT_BENCH_FILE(path);
  StatusOr<std::vector<io::LocomoConversation>> conversations = io::ReadLocomo(path);
  ASSERT_THAT(conversations, IsOk());
  ASSERT_FALSE(conversations->empty());
  const io::LocomoConversation& conversation = conversations->front();
  StatusOr<Scope> scope = io::LocomoScope(conversation.sample_id);
  ASSERT_THAT(scope, IsOk());
  testing::TempDir dir("engram_export");
  std::unique_ptr<Engine> source = testing::OpenOrDie(Options(dir, "source.db"));
  ASSERT_THAT(source->Remember(*scope, conversation.turns).status(), IsOk());
  std::string text;
  ASSERT_THAT(source->Export(*scope, &text).status(), IsOk());
  std::unique_ptr<Engine> target = testing::OpenOrDie(Options(dir, "target.db"));
  StatusOr<ImportSummary> imported = target->Import(text);
  ASSERT_THAT(imported, IsOk());
  const AuditReport original = AuditOrDie(*source, scope->ToString());
  const AuditReport copy = AuditOrDie(*target, scope->ToString());
  EXPECT_TRUE(copy.ok);
  EXPECT_EQ(copy.root, original.root);
  EXPECT_EQ(imported->root, original.root);
  ASSERT_GE(conversation.questions.size(), 20u);
  for (std::size_t i = 0; i < 20; ++i) {
    // Both engines answer at the same "now" (their clocks advanced differently).
    const RecallQuery query{.text = conversation.questions[i].question,
                            .query_time = Timestamp::FromSeconds(1704067200)};
    StatusOr<ReadResult> before = source->Recall(*scope, query);
    StatusOr<ReadResult> after = target->Recall(*scope, query);
    ASSERT_THAT(before, IsOk());
    ASSERT_THAT(after, IsOk());
    io::Json a = io::ToJson(*before);
    io::Json b = io::ToJson(*after);
    // Everything but the measured times.
    for (io::Json* json : {&a, &b}) {
      json->erase("latency_ms");
      (*json)["diagnostics"].erase("timings");
    }
    EXPECT_EQ(a.dump(), b.dump()) << conversation.questions[i].question;
  }
}

}  // namespace
}  // namespace engram
