// End-to-end tests of `engram audit` (a tampered byte fails it naming the memory; --proof),
// `engram export` / `engram import` (through a .zst file, refused when tampered) and
// `engram amend` (and its bad input).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

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
using ::testing::HasSubstr;
using testing::RunCli;

class AuditCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = (fs::path(dir_) / "engram.db").string();
    store_ = "--store '" + db_ + "' ";
    Ingest("user:mia",
           {R"({"speaker": "Mia", "session_id": "s1", "text": "I moved to Berlin last March.", "event_time": "2024-05-10T12:00:00Z"})",
            R"({"speaker": "Leo", "session_id": "s1", "text": "How do you like it?", "event_time": "2024-05-10T12:01:00Z"})"});
    Ingest("user:mia/run:7",
           {R"({"speaker": "Mia", "session_id": "r7", "text": "The launch code is Zebra.", "event_time": "2024-06-01T08:00:00Z"})"});
    turns_ = TurnIds("user:mia");
    run_turns_ = TurnIds("user:mia/run:7");
    ASSERT_EQ(turns_.size(), 2u);
    ASSERT_EQ(run_turns_.size(), 1u);
  }

  void Ingest(const std::string& scope, const std::vector<std::string>& lines) {
    const std::string input = (fs::path(dir_) / "turns.jsonl").string();
    std::ofstream out(input);
    for (const std::string& line : lines) out << line << "\n";
    out.close();
    const Output ingest = RunCli(store_ + "--quiet ingest --scope " + scope + " '" + input + "'");
    ASSERT_EQ(ingest.exit_code, 0) << ingest.out;
  }

  std::vector<std::string> TurnIds(const std::string& scope) {
    const Output listed = RunCli(store_ + "--json list --scope " + scope);
    EXPECT_EQ(listed.exit_code, 0) << listed.out;
    std::vector<std::string> ids;
    const nlohmann::json parsed = nlohmann::json::parse(listed.out);
    for (const nlohmann::json& memory : parsed["memories"]) {
      if (memory["kind"] == "turn") ids.push_back(memory["id"]);
    }
    return ids;
  }

  nlohmann::json Json(const std::string& args, int expected_exit = 0) {
    const Output output = RunCli(store_ + "--json " + args);
    EXPECT_EQ(output.exit_code, expected_exit) << output.out;
    return nlohmann::json::parse(output.out, nullptr, /*allow_exceptions=*/false);
  }

  engram::testing::TempDir temp_dir_{"engram_audit_cli"};
  std::string dir_ = temp_dir_.path();
  std::string db_;
  std::string store_;
  std::vector<std::string> turns_;
  std::vector<std::string> run_turns_;
};

TEST_F(AuditCliTest, AuditPassesThenFailsNamingTheTamperedMemory) {
  const Output clean = RunCli(store_ + "audit --scope user:mia");
  EXPECT_EQ(clean.exit_code, 0) << clean.out;
  EXPECT_THAT(clean.out, HasSubstr("ok: every memory"));
  EXPECT_THAT(clean.out, HasSubstr("2 scopes"));
  const nlohmann::json before = Json("audit --scope user:mia");
  EXPECT_EQ(before["ok"], true);
  EXPECT_EQ(before["root"], before["stored_root"]);

  // One byte of one turn, changed behind engram's back (the trigger that refuses it dropped).
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(db_.c_str(), &db), SQLITE_OK);
  const std::string sql =
      "DROP TRIGGER nodes_content_immutable; UPDATE nodes SET text = 'The launch code is Zebrb.' "
      "WHERE id = '" + run_turns_[0] + "'";
  ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);

  const Output tampered = RunCli(store_ + "audit --scope user:mia", /*with_stderr=*/true);
  EXPECT_EQ(tampered.exit_code, 1);
  EXPECT_THAT(tampered.out, HasSubstr("MISMATCH in user:mia/run:7: node " + run_turns_[0]));
  const nlohmann::json report = Json("audit --scope user:mia", 1);
  EXPECT_EQ(report["ok"], false);
  EXPECT_EQ(report["mismatch"]["id"], run_turns_[0]);
  EXPECT_EQ(report["stored_root"], before["root"]);
  EXPECT_NE(report["root"], before["root"]);
  // The untouched sibling scope's memories still prove, the tampered one does not.
  EXPECT_EQ(Json("audit --proof " + turns_[0])["verified"], true);
  EXPECT_EQ(Json("audit --proof " + run_turns_[0], 1)["verified"], false);
}

TEST_F(AuditCliTest, ProofRunsFromTheMemoryToEveryEnclosingRoot) {
  const nlohmann::json proof = Json("audit --proof " + run_turns_[0]);
  EXPECT_EQ(proof["verified"], true);
  ASSERT_EQ(proof["scopes"].size(), 2u);
  EXPECT_EQ(proof["scopes"][0]["scope"], "user:mia/run:7");
  EXPECT_EQ(proof["scopes"][1]["scope"], "user:mia");
  EXPECT_EQ(proof["scopes"][1]["root"], Json("audit --scope user:mia")["root"]);
  const Output text = RunCli(store_ + "audit --proof " + run_turns_[0]);
  EXPECT_EQ(text.exit_code, 0);
  EXPECT_THAT(text.out, HasSubstr("nested user:mia/run:7"));
  EXPECT_THAT(text.out, HasSubstr("verified"));
  EXPECT_EQ(RunCli(store_ + "audit").exit_code, 2);
  EXPECT_EQ(RunCli(store_ + "audit --proof 0123456789abcdef0123456789abcdef").exit_code, 3);
  EXPECT_EQ(RunCli(store_ + "audit --scope user:nobody").exit_code, 3);
}

TEST_F(AuditCliTest, ExportAndImportThroughZstdKeepTheRoot) {
  const std::string file = (fs::path(dir_) / "mia.jsonl.zst").string();
  const nlohmann::json exported = Json("export --scope user:mia --out '" + file + "'");
  const std::string root = Json("audit --scope user:mia")["root"];
  EXPECT_EQ(exported["root"], root);
  std::ifstream in(file, std::ios::binary);
  char magic[4] = {};
  in.read(magic, 4);
  EXPECT_EQ(std::string(magic, 4), std::string("\x28\xB5\x2F\xFD", 4));  // a zstd frame

  const std::string other = "--store '" + (fs::path(dir_) / "other.db").string() + "' ";
  const Output imported = RunCli(other + "--json import '" + file + "'");
  ASSERT_EQ(imported.exit_code, 0) << imported.out;
  EXPECT_EQ(nlohmann::json::parse(imported.out)["root"], root);
  const Output audited = RunCli(other + "--json audit --scope user:mia");
  EXPECT_EQ(nlohmann::json::parse(audited.out)["root"], root);
  // Again under another name: new ids, a new root, reported.
  const Output renamed = RunCli(other + "--json import '" + file + "' --scope user:zoe");
  ASSERT_EQ(renamed.exit_code, 0) << renamed.out;
  const nlohmann::json summary = nlohmann::json::parse(renamed.out);
  EXPECT_EQ(summary["renamed"], true);
  EXPECT_NE(summary["root"], root);
  EXPECT_EQ(summary["file_root"], root);
  // Stdout export is the same text, uncompressed.
  const Output plain = RunCli(store_ + "export --scope user:mia");
  EXPECT_EQ(plain.exit_code, 0);
  EXPECT_THAT(plain.out.substr(0, plain.out.find('\n')), HasSubstr(root));
}

TEST_F(AuditCliTest, ImportRefusesATamperedFileNamingTheLine) {
  const Output exported = RunCli(store_ + "export --scope user:mia");
  ASSERT_EQ(exported.exit_code, 0);
  std::string text = exported.out;
  // The turn's text (its line also carries the turn's analysis, which names "Zebra" too).
  const std::size_t at = text.find("is Zebra.");
  ASSERT_NE(at, std::string::npos);
  text[at + 7] = 'o';
  const std::size_t line = 1 + std::count(text.begin(), text.begin() + at, '\n');
  const std::string file = (fs::path(dir_) / "tampered.jsonl").string();
  std::ofstream(file) << text;
  const std::string other = "--store '" + (fs::path(dir_) / "other.db").string() + "' ";
  const Output refused = RunCli(other + "import '" + file + "'", /*with_stderr=*/true);
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_THAT(refused.out, HasSubstr("tampered.jsonl line " + std::to_string(line) + ":"));
  const Output scopes = RunCli(other + "--json scopes");
  EXPECT_EQ(nlohmann::json::parse(scopes.out)["scopes"].size(), 0u) << scopes.out;
}

TEST_F(AuditCliTest, AmendSupersedesTheTurnAndRefusesBadInput) {
  const nlohmann::json amended =
      Json("amend " + turns_[0] + " 'I moved to Hamburg last March.' --reason 'wrong city'");
  EXPECT_EQ(amended["superseded_id"], turns_[0]);
  EXPECT_EQ(amended["reason"], "wrong city");
  const std::string new_id = amended["id"];
  EXPECT_NE(new_id, turns_[0]);
  const nlohmann::json old_turn = Json("show " + turns_[0]);
  EXPECT_EQ(old_turn["status"], "superseded");
  const nlohmann::json new_turn = Json("show " + new_id);
  EXPECT_EQ(new_turn["text"], "I moved to Hamburg last March.");
  EXPECT_EQ(new_turn["speaker"], "Mia");  // carried over
  EXPECT_EQ(Json("audit --scope user:mia")["ok"], true);

  // Amending it again is refused: it is no longer active.
  const Output again = RunCli(store_ + "amend " + turns_[0] + " 'x'", /*with_stderr=*/true);
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_THAT(again.out, HasSubstr("superseded"));
  // A retired turn cannot be amended.
  ASSERT_EQ(RunCli(store_ + "retire " + turns_[1]).exit_code, 0);
  const Output retired = RunCli(store_ + "amend " + turns_[1] + " 'x'", /*with_stderr=*/true);
  EXPECT_EQ(retired.exit_code, 1);
  EXPECT_THAT(retired.out, HasSubstr("retired"));
  // Unknown id: not found; malformed id: usage; empty text: invalid.
  EXPECT_EQ(RunCli(store_ + "amend 0123456789abcdef0123456789abcdef 'x'").exit_code, 3);
  EXPECT_EQ(RunCli(store_ + "amend not-an-id 'x'").exit_code, 2);
  const Output empty = RunCli(store_ + "amend " + new_id + " ''", /*with_stderr=*/true);
  EXPECT_EQ(empty.exit_code, 1);
  EXPECT_THAT(empty.out, HasSubstr("text"));
  EXPECT_EQ(RunCli(store_ + "amend " + new_id).exit_code, 2);  // no text at all
}

}  // namespace
}  // namespace engram
