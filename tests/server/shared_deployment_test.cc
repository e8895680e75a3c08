// The shared deployment (issue 18): two `engram serve` processes on one PostgreSQL database of the
// tests' private cluster (tests/postgres), each on 127.0.0.1 with a port the kernel picks.
//
// - Sixteen concurrent clients write (each turn with an idempotency key, retried with the same key
//   after a failure) and recall through both servers for a bounded number of operations; a write
//   acknowledged by one server is recalled through the other at once. Afterwards every
//   acknowledged turn is stored exactly once and each scope's sequence numbers are 1..N.
// - The journal follower: with the fallback poll set to an hour, only the NOTIFY of a commit
//   can wake a server; its projections take in the other server's write without any request.
// - kill -9 of one server under load: clients move to the other server with the same idempotency
//   keys; no acknowledged turn is lost or doubled, and the restarted server serves them all.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>

#include <algorithm>
#include <condition_variable>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
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

constexpr int kClients = 16;
constexpr int kScopes = 4;  // client c writes to scope c % kScopes: four writers per scope

std::string ScopeOf(int client) { return "user:shared" + std::to_string(client % kScopes); }

// A word no other turn holds, so a recall for it has one right answer: "zq" and two letters per
// number ("zqbdac": client 13, operation 2).
std::string MarkerOf(int client, int op) {
  std::string marker = "zq";
  for (const int value : {client, op}) {
    marker += static_cast<char>('a' + value / 26);
    marker += static_cast<char>('a' + value % 26);
  }
  return marker;
}

struct Written {
  std::string scope;
  std::string text;
};

class SharedDeploymentTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ENGRAM_SKIP_WITHOUT_POSTGRES();
    StatusOr<std::string> url = postgres::DatabaseUrl(postgres::DatabaseNameFor(dir_.path()));
    ASSERT_THAT(url, IsOk());
    url_ = *url;
    // The hashing embedder needs no model files; an hour of fallback poll leaves the NOTIFY as
    // the only thing that wakes a follower within a test.
    std::ofstream config(dir_.File("config.toml"));
    config << "[embedder]\nkind = \"hashing\"\n[store]\nfollow_poll_ms = 3600000\n";
  }

  std::unique_ptr<ServeProcess> Serve(const std::string& name) {
    return std::make_unique<ServeProcess>(url_, dir_.File("config.toml"),
                                          dir_.File(name + ".log"));
  }

  // POSTs one turn with its idempotency key; true when the server acknowledged it (201, stored
  // now or already before under this key).
  static bool Write(int port, const Written& turn, const std::string& key) {
    httplib::Client client("127.0.0.1", port);
    client.set_read_timeout(30, 0);
    const Json body = {{"turns", Json::array({{{"text", turn.text}, {"idempotency_key", key}}})}};
    auto result = client.Post("/v1/scopes/" + turn.scope + "/memories", body.dump(),
                              "application/json");
    return result && result->status == 201;
  }

  // The recall of `query` in `scope` through the server at `port`, as text ("" on a failure).
  static std::string Recall(int port, const std::string& scope, const std::string& query) {
    httplib::Client client("127.0.0.1", port);
    client.set_read_timeout(30, 0);
    const Json body = {{"query", query}, {"k", 5}};
    auto result = client.Post("/v1/scopes/" + scope + "/recall", body.dump(), "application/json");
    if (!result || result->status != 200) return "";
    return result->body;
  }

  // Every turn of `scope` through the server at `port`: text -> copies, and the sequences.
  static void ListTurns(int port, const std::string& scope, std::map<std::string, int>* copies,
                        std::vector<std::int64_t>* sequences) {
    httplib::Client client("127.0.0.1", port);
    auto listed = client.Get("/v1/scopes/" + scope + "/memories?kind=turn&limit=1000");
    ASSERT_TRUE(listed);
    ASSERT_EQ(listed->status, 200) << listed->body;
    const Json page = Json::parse(listed->body);
    ASSERT_TRUE(page["next_after"].is_null()) << "more than one page";
    for (const Json& memory : page["memories"]) {
      ++(*copies)[memory["text"].get<std::string>()];
      sequences->push_back(memory["sequence"].get<std::int64_t>());
    }
  }

  // Through the server at `port`: every acknowledged turn once, nothing else, and each scope's
  // turns numbered 1..N without a gap or a repeat.
  static void ExpectExactlyOnce(int port, const std::map<std::string, Written>& acknowledged) {
    std::map<std::string, int> copies;
    for (int scope_idx = 0; scope_idx < kScopes; ++scope_idx) {
      std::vector<std::int64_t> sequences;
      ListTurns(port, ScopeOf(scope_idx), &copies, &sequences);
      std::sort(sequences.begin(), sequences.end());
      for (std::size_t seq_idx = 0; seq_idx < sequences.size(); ++seq_idx) {
        EXPECT_EQ(sequences[seq_idx], static_cast<std::int64_t>(seq_idx) + 1)
            << ScopeOf(scope_idx) << " through port " << port;
      }
    }
    for (const auto& [key, turn] : acknowledged) {
      EXPECT_EQ(copies[turn.text], 1) << key << " through port " << port;
    }
    for (const auto& [text, count] : copies) EXPECT_EQ(count, 1) << text;
    EXPECT_EQ(copies.size(), acknowledged.size()) << "turns stored that no client wrote";
  }

  // The journal seq a server's projections applied, from its /metrics (-2 when unreadable).
  static std::int64_t AppliedSeq(int port) {
    httplib::Client client("127.0.0.1", port);
    auto metrics = client.Get("/metrics");
    if (!metrics || metrics->status != 200) return -2;
    std::smatch match;
    if (!std::regex_search(metrics->body, match,
                           std::regex("\nengram_journal_applied_seq ([-0-9.e+]+)"))) {
      return -2;
    }
    return static_cast<std::int64_t>(std::stod(match[1]));
  }

  TempDir dir_{"engram_shared_deployment"};
  std::string url_;
};

TEST_F(SharedDeploymentTest, SixteenClientsThroughTwoServersStoreEachTurnOnceAndSeeEachOther) {
  constexpr int kOpsPerClient = 12;
  std::unique_ptr<ServeProcess> first = Serve("first");
  std::unique_ptr<ServeProcess> second = Serve("second");
  ASSERT_NE(first->port(), 0) << first->log();
  ASSERT_NE(second->port(), 0) << second->log();
  const int ports[2] = {first->port(), second->port()};

  std::mutex mutex;
  std::map<std::string, Written> acknowledged;  // by idempotency key
  std::vector<std::string> failures;
  std::vector<std::thread> clients;
  for (int client = 0; client < kClients; ++client) {
    clients.emplace_back([&, client] {
      for (int op = 0; op < kOpsPerClient; ++op) {
        const std::string marker = MarkerOf(client, op);
        const Written turn{ScopeOf(client), "Client " + std::to_string(client) + " noted " +
                                                marker + " at step " + std::to_string(op) + "."};
        const std::string key = "c" + std::to_string(client) + "-" + std::to_string(op);
        const int writer = (client + op) % 2;
        // A failed attempt may have been stored: the retry with the same key says so.
        bool acked = false;
        for (int attempt = 0; attempt < 3 && !acked; ++attempt) {
          acked = Write(ports[writer], turn, key);
        }
        {
          std::lock_guard<std::mutex> lock(mutex);
          if (!acked) {
            failures.push_back(key + ": not acknowledged after 3 attempts");
            continue;
          }
          acknowledged[key] = turn;
        }
        // The other server recalls it at once: Recall catches up with the journal first.
        if (op % 3 != 0) continue;
        const std::string recalled = Recall(ports[1 - writer], turn.scope, marker);
        if (recalled.find(turn.text) == std::string::npos) {
          std::lock_guard<std::mutex> lock(mutex);
          failures.push_back(key + ": not recalled through the other server: " +
                             recalled.substr(0, 300));
        }
      }
    });
  }
  for (std::thread& client : clients) client.join();
  EXPECT_THAT(failures, ::testing::IsEmpty());
  ASSERT_EQ(acknowledged.size(), static_cast<std::size_t>(kClients * kOpsPerClient));
  ExpectExactlyOnce(first->port(), acknowledged);
  ExpectExactlyOnce(second->port(), acknowledged);
  // The database agrees: one row per key.
  StatusOr<std::string> rows =
      postgres::RunSql(url_, "SELECT count(*) FROM nodes WHERE idempotency_key IS NOT NULL");
  ASSERT_THAT(rows, IsOk());
  EXPECT_EQ(*rows, std::to_string(kClients * kOpsPerClient));
}

TEST_F(SharedDeploymentTest, ANotifiedFollowerCatchesUpWithoutARequest) {
  std::unique_ptr<ServeProcess> first = Serve("first");
  std::unique_ptr<ServeProcess> second = Serve("second");
  ASSERT_NE(first->port(), 0) << first->log();
  ASSERT_NE(second->port(), 0) << second->log();
  const Written seed{"user:follow", "The seed turn loads the scope on both servers."};
  ASSERT_TRUE(Write(first->port(), seed, "seed"));
  ASSERT_THAT(Recall(second->port(), "user:follow", "seed"), HasSubstr("seed turn"));

  const Written later{"user:follow", "Priya keeps her zqfollow notebook in the blue drawer."};
  ASSERT_TRUE(Write(first->port(), later, "later"));
  StatusOr<std::string> last = postgres::RunSql(url_, "SELECT max(seq) FROM journal");
  ASSERT_THAT(last, IsOk());
  // No request reaches the second server meanwhile but /metrics, which reads no journal. The
  // fallback poll is an hour: only the commit's NOTIFY can wake its follower (bounded wait).
  std::int64_t applied = -2;
  for (int poll = 0; poll < 400 && applied < std::stoll(*last); ++poll) {
    applied = AppliedSeq(second->port());
    if (applied < std::stoll(*last)) ::usleep(50 * 1000);
  }
  EXPECT_GE(applied, std::stoll(*last)) << second->log();
  EXPECT_THAT(Recall(second->port(), "user:follow", "zqfollow"), HasSubstr("blue drawer"));
}

TEST_F(SharedDeploymentTest, KillNineOfOneServerUnderLoadLosesNoAcknowledgedTurn) {
  constexpr int kOpsPerClient = 10;
  constexpr std::size_t kKillAfter = 40;  // acknowledged turns before the SIGKILL
  std::unique_ptr<ServeProcess> first = Serve("first");
  std::unique_ptr<ServeProcess> second = Serve("second");
  ASSERT_NE(first->port(), 0) << first->log();
  ASSERT_NE(second->port(), 0) << second->log();
  const int first_port = first->port();
  const int second_port = second->port();

  std::mutex mutex;
  std::condition_variable enough;
  std::map<std::string, Written> acknowledged;
  std::vector<std::string> failures;
  int finished = 0;  // clients done
  std::vector<std::thread> clients;
  for (int client = 0; client < kClients; ++client) {
    clients.emplace_back([&, client] {
      // Even clients start on the first server (the one killed), odd ones on the second; after a
      // failed write a client moves to the second server and retries with the same key.
      int port = client % 2 == 0 ? first_port : second_port;
      for (int op = 0; op < kOpsPerClient; ++op) {
        const Written turn{ScopeOf(client), "Client " + std::to_string(client) + " kept " +
                                                MarkerOf(client, op) + " at step " +
                                                std::to_string(op) + "."};
        const std::string key = "k" + std::to_string(client) + "-" + std::to_string(op);
        bool acked = Write(port, turn, key);
        for (int attempt = 0; attempt < 3 && !acked; ++attempt) {
          port = second_port;
          acked = Write(port, turn, key);
        }
        std::lock_guard<std::mutex> lock(mutex);
        if (!acked) {
          failures.push_back(key + ": not acknowledged by either server");
          continue;
        }
        acknowledged[key] = turn;
        if (acknowledged.size() >= kKillAfter) enough.notify_all();
      }
      std::lock_guard<std::mutex> lock(mutex);
      ++finished;
      enough.notify_all();
    });
  }
  {
    // Bounded: the clients time their requests out, so they all finish even if nothing works.
    std::unique_lock<std::mutex> lock(mutex);
    enough.wait(lock, [&] { return acknowledged.size() >= kKillAfter || finished == kClients; });
    EXPECT_GE(acknowledged.size(), kKillAfter) << "the clients finished before the kill";
  }
  const int status = first->SignalAndWait(SIGKILL);
  EXPECT_TRUE(WIFSIGNALED(status));
  for (std::thread& client : clients) client.join();
  EXPECT_THAT(failures, ::testing::IsEmpty());
  EXPECT_EQ(acknowledged.size(), static_cast<std::size_t>(kClients * kOpsPerClient));

  // The survivor serves every acknowledged turn once.
  ExpectExactlyOnce(second_port, acknowledged);
  // A restarted first server catches up from the journal: the same turns, and recall finds a
  // turn that only the second server acknowledged after the kill.
  std::unique_ptr<ServeProcess> restarted = Serve("restarted");
  ASSERT_NE(restarted->port(), 0) << restarted->log();
  ExpectExactlyOnce(restarted->port(), acknowledged);
  const int last_op = kOpsPerClient - 1;
  const std::string key = "k1-" + std::to_string(last_op);
  ASSERT_TRUE(acknowledged.contains(key));
  EXPECT_THAT(Recall(restarted->port(), acknowledged[key].scope, MarkerOf(1, last_op)),
              HasSubstr(acknowledged[key].text));
}

}  // namespace
}  // namespace engram::testing
