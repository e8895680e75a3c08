// Several `engram serve` processes on one PostgreSQL database of the tests' private cluster
// (tests/postgres), each on 127.0.0.1 with a port the kernel picks:
//
// - Three servers started together on an empty database all start and answer, and the schema
//   is created once; repeated over ten fresh databases.
// - Two servers write to many tenants at once (writers are serialised per tenant root, not per
//   database): every acknowledged turn is stored exactly once, each scope's sequence numbers are
//   1..N, the Merkle audit of every tenant passes, and each server recalls every turn the other
//   acknowledged (its journal follower missed none, though commits of different tenants
//   overlap).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "engram/testing/status_matchers.h"
#include "engram/testing/temp_dir.h"
#include "serve_process.h"
#include "tests/postgres/test_cluster.h"

namespace engram::testing {
namespace {

using ::testing::HasSubstr;
using Json = nlohmann::json;

class ScaleOutTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ENGRAM_SKIP_WITHOUT_POSTGRES();
    // The hashing embedder needs no model files.
    std::ofstream config(dir_.File("config.toml"));
    config << "[embedder]\nkind = \"hashing\"\n";
  }

  // A database of its own for `name`, created empty.
  std::string FreshDatabase(const std::string& name) {
    StatusOr<std::string> url = postgres::DatabaseUrl(postgres::DatabaseNameFor(dir_.File(name)));
    EXPECT_THAT(url, IsOk());
    return url.ok() ? *url : "";
  }

  std::unique_ptr<ServeProcess> Serve(const std::string& url, const std::string& name) {
    return std::make_unique<ServeProcess>(url, dir_.File("config.toml"), dir_.File(name + ".log"));
  }

  // POSTs one turn with its idempotency key; true when the server acknowledged it.
  static bool Write(int port, const std::string& scope, const std::string& text,
                    const std::string& key) {
    httplib::Client client("127.0.0.1", port);
    client.set_read_timeout(60, 0);
    const Json body = {{"turns", Json::array({{{"text", text}, {"idempotency_key", key}}})}};
    auto result = client.Post("/v1/scopes/" + scope + "/memories", body.dump(), "application/json");
    return result && result->status == 201;
  }

  static std::string Recall(int port, const std::string& scope, const std::string& query) {
    httplib::Client client("127.0.0.1", port);
    client.set_read_timeout(60, 0);
    const Json body = {{"query", query}, {"k", 5}};
    auto result = client.Post("/v1/scopes/" + scope + "/recall", body.dump(), "application/json");
    if (!result || result->status != 200) return "";
    return result->body;
  }

  // `engram audit --scope <scope>` on the store at `url`: its exit status and output.
  std::pair<int, std::string> Audit(const std::string& url, const std::string& scope) {
    const std::string command = std::string(ENGRAM_CLI_PATH) + " --store '" + url + "' --config '" +
                                dir_.File("config.toml") + "' audit --scope '" + scope + "' 2>&1";
    FILE* pipe = ::popen(command.c_str(), "r");
    if (pipe == nullptr) return {-1, "popen failed"};
    std::string output;
    char buffer[4096];
    while (std::fgets(buffer, sizeof buffer, pipe) != nullptr) output += buffer;
    const int status = ::pclose(pipe);
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
  }

  TempDir dir_{"engram_scale_out"};
};

TEST_F(ScaleOutTest, ThreeServersStartedTogetherOnAnEmptyDatabaseAllServe) {
  constexpr int kRounds = 10;
  constexpr int kServers = 3;
  for (int round = 0; round < kRounds; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    const std::string url = FreshDatabase("first_start_" + std::to_string(round));
    ASSERT_FALSE(url.empty());
    StatusOr<std::string> tables = postgres::RunSql(
        url, "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'");
    ASSERT_THAT(tables, IsOk());
    ASSERT_EQ(*tables, "0") << "the database is not empty";
    // Started at once: each constructor forks its server and then waits for it to listen.
    std::vector<std::unique_ptr<ServeProcess>> servers(kServers);
    std::vector<std::thread> starters;
    for (int server = 0; server < kServers; ++server) {
      starters.emplace_back([&, server] {
        servers[server] =
            Serve(url, "round" + std::to_string(round) + "_server" + std::to_string(server));
      });
    }
    for (std::thread& starter : starters) starter.join();
    for (int server = 0; server < kServers; ++server) {
      ASSERT_NE(servers[server]->port(), 0)
          << "server " << server << ": " << servers[server]->log();
      httplib::Client client("127.0.0.1", servers[server]->port());
      auto pong = client.Get("/v1/ping");
      ASSERT_TRUE(pong) << "server " << server;
      EXPECT_EQ(pong->status, 200) << "server " << server << ": " << pong->body;
    }
    // The schema exists once: one meta table with one schema version.
    StatusOr<std::string> versions =
        postgres::RunSql(url, "SELECT count(*) FROM meta WHERE key = 'schema_version'");
    ASSERT_THAT(versions, IsOk());
    EXPECT_EQ(*versions, "1");
    // And a write through one is read through another.
    ASSERT_TRUE(Write(servers[0]->port(), "user:first", "Ines stores zqstart in the attic.", "k"));
    EXPECT_THAT(Recall(servers[2]->port(), "user:first", "zqstart"), HasSubstr("attic"));
  }
}

TEST_F(ScaleOutTest, TwoServersWritingManyTenantsStoreEachTurnOnceInOrder) {
  constexpr int kTenants = 8;
  constexpr int kClients = 2 * kTenants;  // per tenant: one writes its root, one a nested scope
  constexpr int kOpsPerClient = 10;
  const std::string url = FreshDatabase("per_tenant_writes");
  ASSERT_FALSE(url.empty());
  std::unique_ptr<ServeProcess> first = Serve(url, "first");
  std::unique_ptr<ServeProcess> second = Serve(url, "second");
  ASSERT_NE(first->port(), 0) << first->log();
  ASSERT_NE(second->port(), 0) << second->log();
  const int ports[2] = {first->port(), second->port()};
  const auto tenant_of = [](int client) { return "user:tenant" + std::to_string(client % 8); };
  const auto scope_of = [&](int client) {
    return tenant_of(client) + (client < kTenants ? "" : "/run:nested");
  };

  struct Acked {
    std::string scope;
    std::string text;
    std::string marker;
    int server = 0;
  };
  std::mutex mutex;
  std::map<std::string, Acked> acknowledged;  // by idempotency key
  std::vector<std::string> failures;
  std::vector<std::thread> clients;
  for (int client = 0; client < kClients; ++client) {
    clients.emplace_back([&, client] {
      for (int op = 0; op < kOpsPerClient; ++op) {
        // Both servers write to every scope: the server alternates with the step.
        const int server = (client + op) % 2;
        const std::string marker = "zq" + std::string(1, static_cast<char>('a' + client)) +
                                   std::string(1, static_cast<char>('a' + op));
        const std::string text = "Writer " + std::to_string(client) + " filed " + marker +
                                 " under step " + std::to_string(op) + ".";
        const std::string key = "w" + std::to_string(client) + "-" + std::to_string(op);
        bool acked = false;
        for (int attempt = 0; attempt < 3 && !acked; ++attempt) {
          acked = Write(ports[server], scope_of(client), text, key);
        }
        std::lock_guard<std::mutex> lock(mutex);
        if (!acked) {
          failures.push_back(key + ": not acknowledged after 3 attempts");
          continue;
        }
        acknowledged[key] = Acked{scope_of(client), text, marker, server};
      }
    });
  }
  for (std::thread& client : clients) client.join();
  EXPECT_THAT(failures, ::testing::IsEmpty());
  ASSERT_EQ(acknowledged.size(), static_cast<std::size_t>(kClients * kOpsPerClient));

  // Each turn once, each scope numbered 1..N: read from the database itself.
  StatusOr<std::string> stored = postgres::RunSql(
      url, "SELECT count(*) FROM nodes WHERE kind = 'turn' AND idempotency_key IS NOT NULL");
  ASSERT_THAT(stored, IsOk());
  EXPECT_EQ(*stored, std::to_string(kClients * kOpsPerClient));
  StatusOr<std::string> distinct_texts =
      postgres::RunSql(url, "SELECT count(DISTINCT text) FROM nodes WHERE kind = 'turn'");
  ASSERT_THAT(distinct_texts, IsOk());
  EXPECT_EQ(*distinct_texts, std::to_string(kClients * kOpsPerClient));
  // A scope whose turn sequences are not exactly 1..count (a gap or a repeat).
  StatusOr<std::string> misnumbered = postgres::RunSql(
      url,
      "SELECT count(*) FROM (SELECT scope_id FROM nodes WHERE kind = 'turn' GROUP BY scope_id "
      "HAVING min(sequence) <> 1 OR max(sequence) <> count(*) "
      "OR count(DISTINCT sequence) <> count(*)) AS bad");
  ASSERT_THAT(misnumbered, IsOk());
  EXPECT_EQ(*misnumbered, "0");
  StatusOr<std::string> scopes_written =
      postgres::RunSql(url, "SELECT count(DISTINCT scope_id) FROM nodes WHERE kind = 'turn'");
  ASSERT_THAT(scopes_written, IsOk());
  EXPECT_EQ(*scopes_written, std::to_string(kClients));
  // Every scope's last sequence is its turn count: nothing was handed out twice or skipped.
  StatusOr<std::string> counters = postgres::RunSql(
      url,
      "SELECT count(*) FROM scopes s WHERE s.last_sequence <> (SELECT count(*) FROM nodes n "
      "WHERE n.scope_id = s.scope_id AND n.kind = 'turn')");
  ASSERT_THAT(counters, IsOk());
  EXPECT_EQ(*counters, "0");

  // The Merkle audit of every tenant (its nested scope included) matches the stored roots.
  for (int tenant = 0; tenant < kTenants; ++tenant) {
    const auto [status, output] = Audit(url, tenant_of(tenant));
    EXPECT_EQ(status, 0) << tenant_of(tenant) << ": " << output;
    EXPECT_THAT(output, HasSubstr("ok: every memory")) << tenant_of(tenant);
  }

  // Each server recalls every turn the other acknowledged: its follower applied every journal
  // entry, whatever order the tenants' commits overlapped in.
  for (const auto& [key, turn] : acknowledged) {
    const int other = ports[1 - turn.server];
    EXPECT_THAT(Recall(other, turn.scope, turn.marker), HasSubstr(turn.text))
        << key << " through port " << other;
  }
}

}  // namespace
}  // namespace engram::testing
