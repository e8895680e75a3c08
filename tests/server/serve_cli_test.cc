// The built `engram` binary: `engram keys create|list|revoke`, `engram serve` refusing a public
// address without keys, serving with keys and stopping cleanly on SIGTERM, MCP sessions at /mcp
// bound to the key that opened them, and SIGKILL under load followed by a restart: every
// acknowledged turn is there exactly once and the rebuilt index matches the live one.
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <fstream>
#include <map>
#include <mutex>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "serve_process.h"
#include "server_fixture.h"

#ifndef ENGRAM_CLI_PATH
#error "ENGRAM_CLI_PATH must name the engram binary"
#endif

namespace engram::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using Json = nlohmann::json;

struct Ran {
  int exit_code = -1;
  std::string out;  // stdout, then stderr
};

// Runs `engram <args>` (the caller quotes) through the shell, stdout and stderr together.
Ran RunCli(const std::string& args) {
  Ran ran;
  const std::string command = std::string("'") + ENGRAM_CLI_PATH + "' " + args + " 2>&1";
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return ran;
  char buffer[4096];
  std::size_t read = 0;
  while ((read = std::fread(buffer, 1, sizeof(buffer), pipe)) > 0) ran.out.append(buffer, read);
  const int status = ::pclose(pipe);
  if (WIFEXITED(status)) ran.exit_code = WEXITSTATUS(status);
  return ran;
}

std::string ReadAll(const std::string& path) { return ReadWholeFile(path); }

// `engram serve` on the test's store file (serve-<generation>.log holds its stderr).
class ServeOnFile : public ServeProcess {
 public:
  ServeOnFile(const TempDir& dir, const std::vector<std::string>& extra, int generation)
      : ServeProcess(dir.File("engram.db"), dir.File("config.toml"),
                     dir.File("serve-" + std::to_string(generation) + ".log"), extra) {}
};

class ServeCliTest : public ::testing::Test {
 protected:
  ServeCliTest() {
    std::ofstream config(dir_.File("config.toml"));
    config << "[embedder]\nkind = \"hashing\"\n";
  }
  std::string Store() const {
    return "--store '" + dir_.File("engram.db") + "' --config '" + dir_.File("config.toml") + "'";
  }
  TempDir dir_;
};

TEST_F(ServeCliTest, KeysCreateListRevoke) {
  const std::string keys = "'" + dir_.File("keys.json") + "'";
  Ran created = RunCli("keys create --keys " + keys +
                       " --scope app:crm --rights read,write --name crm-backend");
  ASSERT_EQ(created.exit_code, 0) << created.out;
  std::smatch match;
  ASSERT_TRUE(std::regex_search(created.out, match, std::regex("egk_[0-9a-f]{64}"))) << created.out;
  const std::string secret = match[0];
  ASSERT_TRUE(std::regex_search(created.out, match, std::regex("key (k_[0-9a-f]{12}) created")))
      << created.out;
  const std::string id = match[1];
  struct stat info;
  ASSERT_EQ(::stat(dir_.File("keys.json").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u);
  EXPECT_THAT(ReadAll(dir_.File("keys.json")), Not(HasSubstr(secret)));

  Ran listed = RunCli("keys list --keys " + keys);
  ASSERT_EQ(listed.exit_code, 0) << listed.out;
  EXPECT_THAT(listed.out, HasSubstr(id));
  EXPECT_THAT(listed.out, HasSubstr("active"));
  EXPECT_THAT(listed.out, HasSubstr("app:crm"));
  EXPECT_THAT(listed.out, HasSubstr("read,write"));
  EXPECT_THAT(listed.out, Not(HasSubstr(secret)));

  Ran revoked = RunCli("keys revoke --keys " + keys + " " + id);
  ASSERT_EQ(revoked.exit_code, 0) << revoked.out;
  EXPECT_THAT(RunCli("keys list --keys " + keys).out, HasSubstr("revoked"));
  EXPECT_EQ(RunCli("keys revoke --keys " + keys + " k_000000000000").exit_code, 3);
  Ran bad_rights = RunCli("keys create --keys " + keys + " --scope app:crm --rights read,fly");
  EXPECT_EQ(bad_rights.exit_code, 2);
  EXPECT_THAT(bad_rights.out, HasSubstr("fly"));
}

TEST_F(ServeCliTest, RefusesAPublicAddressWithoutKeys) {
  Ran refused = RunCli(Store() + " serve --listen 0.0.0.0:0");
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_THAT(refused.out, HasSubstr("refusing to listen on 0.0.0.0 without --keys"));
}

TEST_F(ServeCliTest, ServesWithKeysAndStopsCleanlyOnSigterm) {
  Ran created = RunCli("keys create --keys '" + dir_.File("keys.json") +
                       "' --scope user:alice --rights read,write");
  ASSERT_EQ(created.exit_code, 0) << created.out;
  std::smatch match;
  ASSERT_TRUE(std::regex_search(created.out, match, std::regex("egk_[0-9a-f]{64}")));
  const std::string secret = match[0];
  ServeOnFile serve(dir_, {"--keys", dir_.File("keys.json"), "--log-requests"}, 0);
  ASSERT_NE(serve.port(), 0) << serve.log();
  httplib::Client client("127.0.0.1", serve.port());
  auto anonymous = client.Get("/v1/scopes");
  ASSERT_TRUE(anonymous);
  EXPECT_EQ(anonymous->status, 401);
  httplib::Headers headers = {{"Authorization", "Bearer " + secret}};
  auto written =
      client.Post("/v1/scopes/user:alice/memories", headers,
                  R"({"turns": [{"text": "Served by a child process."}]})", "application/json");
  ASSERT_TRUE(written);
  EXPECT_EQ(written->status, 201) << written->body;
  const int status = serve.SignalAndWait(SIGTERM);
  ASSERT_TRUE(WIFEXITED(status)) << serve.log();
  EXPECT_EQ(WEXITSTATUS(status), 0) << serve.log();
  EXPECT_THAT(serve.log(), HasSubstr("POST /v1/scopes/user:alice/memories 201"));
  // The store was closed cleanly: the CLI reads the turn.
  Ran listed = RunCli(Store() + " --json list --scope user:alice");
  EXPECT_EQ(listed.exit_code, 0) << listed.out;
  EXPECT_THAT(listed.out, HasSubstr("Served by a child process."));
}

TEST_F(ServeCliTest, McpSessionsAtSlashMcpBelongToTheKeyThatOpenedThem) {
  const std::string keys = dir_.File("keys.json");
  auto create_key = [&](const std::string& scope) {
    Ran created = RunCli("keys create --keys '" + keys + "' --scope " + scope + " --rights read");
    EXPECT_EQ(created.exit_code, 0) << created.out;
    std::smatch match;
    EXPECT_TRUE(std::regex_search(created.out, match, std::regex("egk_[0-9a-f]{64}")));
    return match.empty() ? std::string() : std::string(match[0]);
  };
  const std::string alice = create_key("user:alice");
  const std::string bob = create_key("user:bob");
  ServeOnFile serve(dir_, {"--keys", keys}, 0);
  ASSERT_NE(serve.port(), 0) << serve.log();
  httplib::Client client("127.0.0.1", serve.port());
  const std::string initialize =
      R"({"jsonrpc": "2.0", "id": 1, "method": "initialize",)"
      R"( "params": {"protocolVersion": "2025-11-25"}})";
  const std::string ping = R"({"jsonrpc": "2.0", "id": 2, "method": "ping"})";
  // POST /mcp as `key`, in `session` when not empty: the status and the session id returned.
  auto post = [&](const std::string& key, const std::string& session, const std::string& body) {
    httplib::Headers headers = {{"Authorization", "Bearer " + key},
                                {"Accept", "application/json"}};
    if (!session.empty()) headers.emplace("Mcp-Session-Id", session);
    auto result = client.Post("/mcp", headers, body, "application/json");
    EXPECT_TRUE(result);
    if (!result) return std::pair<int, std::string>(0, "");
    return std::pair<int, std::string>(result->status,
                                       result->get_header_value("Mcp-Session-Id"));
  };
  auto end = [&](const std::string& key, const std::string& session) {
    auto result = client.Delete(
        "/mcp", {{"Authorization", "Bearer " + key}, {"Mcp-Session-Id", session}});
    EXPECT_TRUE(result);
    return result ? result->status : 0;
  };

  const auto [opened, alice_session] = post(alice, "", initialize);
  ASSERT_EQ(opened, 200);
  ASSERT_EQ(alice_session.size(), 32u);
  // Bob opens as many sessions as the whole server holds (64): he ends only his own.
  std::vector<std::string> bob_sessions;
  for (int open_idx = 0; open_idx < 64; ++open_idx) {
    const auto [status, session] = post(bob, "", initialize);
    ASSERT_EQ(status, 200) << "session " << open_idx;
    bob_sessions.push_back(session);
  }
  EXPECT_EQ(post(alice, alice_session, ping).first, 200);
  EXPECT_EQ(post(bob, bob_sessions.front(), ping).first, 404);  // past bob's 16
  EXPECT_EQ(post(bob, bob_sessions.back(), ping).first, 200);
  // Bob can neither use nor end alice's session: to him it does not exist.
  EXPECT_EQ(post(bob, alice_session, ping).first, 404);
  EXPECT_EQ(end(bob, alice_session), 404);
  EXPECT_EQ(post(alice, alice_session, ping).first, 200);
  EXPECT_EQ(end(alice, alice_session), 204);
  EXPECT_EQ(post(alice, alice_session, ping).first, 404);
}

TEST_F(ServeCliTest, SigkillUnderLoadKeepsEveryAcknowledgedTurn) {
  constexpr int kClients = 4;
  constexpr int kTurnsPerClient = 40;
  constexpr int kKillAfter = 30;            // acknowledged turns before the SIGKILL
  std::map<std::string, int> acknowledged;  // text -> 1
  {
    ServeOnFile serve(dir_, {}, 1);
    ASSERT_NE(serve.port(), 0) << serve.log();
    std::mutex mutex;
    std::condition_variable enough;
    std::vector<std::thread> clients;
    for (int c = 0; c < kClients; ++c) {
      clients.emplace_back([&, c] {
        httplib::Client client("127.0.0.1", serve.port());
        for (int i = 0; i < kTurnsPerClient; ++i) {
          const std::string text =
              "Turn " + std::to_string(i) + " of client " + std::to_string(c) + ".";
          auto result =
              client.Post("/v1/scopes/user:k" + std::to_string(c % 2) + "/memories",
                          R"({"turns": [{"text": ")" + text + R"("}]})", "application/json");
          if (!result) return;  // the server is gone
          if (result->status != 201) continue;
          std::lock_guard<std::mutex> lock(mutex);
          acknowledged[text] = 1;
          if (static_cast<int>(acknowledged.size()) >= kKillAfter) enough.notify_all();
        }
      });
    }
    {
      std::unique_lock<std::mutex> lock(mutex);
      enough.wait(lock, [&] { return static_cast<int>(acknowledged.size()) >= kKillAfter; });
    }
    const int status = serve.SignalAndWait(SIGKILL);
    EXPECT_TRUE(WIFSIGNALED(status));
    for (std::thread& client : clients) client.join();
  }
  ASSERT_GE(static_cast<int>(acknowledged.size()), kKillAfter);

  ServeOnFile again(dir_, {}, 2);
  ASSERT_NE(again.port(), 0) << again.log();
  httplib::Client client("127.0.0.1", again.port());
  std::map<std::string, int> stored;
  for (int s = 0; s < 2; ++s) {
    auto listed = client.Get("/v1/scopes/user:k" + std::to_string(s) + "/memories?limit=1000");
    ASSERT_TRUE(listed);
    ASSERT_EQ(listed->status, 200) << listed->body;
    const Json page = Json::parse(listed->body);
    for (const Json& memory : page["memories"]) {
      ++stored[memory["text"].get<std::string>()];
    }
  }
  for (const auto& [text, one] : acknowledged) EXPECT_EQ(stored[text], 1) << text;
  for (const auto& [text, copies] : stored) EXPECT_EQ(copies, 1) << text;
  const int status = again.SignalAndWait(SIGTERM);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << again.log();

  Ran rebuilt = RunCli(Store() + " --json rebuild-index");
  ASSERT_EQ(rebuilt.exit_code, 0) << rebuilt.out;
  EXPECT_THAT(rebuilt.out, HasSubstr("\"matched_live_index\": true"));
}

}  // namespace
}  // namespace engram::testing
