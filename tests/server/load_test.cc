// Concurrency: 32 client threads mixing remember and recall against one server for a fixed number
// of operations each. Zero errors; every acknowledged turn is stored exactly once; sequence
// numbers are unique within each scope.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "server_fixture.h"

namespace engram::testing {
namespace {

using Json = nlohmann::json;

TEST(ServerLoadTest, ConcurrentRememberAndRecallLoseAndDuplicateNothing) {
  constexpr int kClients = 32;
  constexpr int kOperationsPerClient = 8;
  constexpr int kScopes = 4;
  TestServerOptions options;
  options.threads = 8;
  TestServer server(options);

  std::mutex mutex;
  std::map<std::string, std::string> acknowledged;  // text -> id
  std::vector<std::string> errors;
  std::vector<std::thread> clients;
  for (int client = 0; client < kClients; ++client) {
    clients.emplace_back([&, client] {
      for (int op = 0; op < kOperationsPerClient; ++op) {
        const std::string scope = "app:load/user:u" + std::to_string((client + op) % kScopes);
        if ((client + op) % 3 == 2) {
          HttpResult result = server.Call("POST", "/v1/scopes/" + scope + "/recall",
                                          R"({"query": "note from client", "k": 5})");
          // A scope nobody has written to yet is a 404; anything else must succeed.
          if (result.status != 200 && result.status != 404) {
            std::lock_guard<std::mutex> lock(mutex);
            errors.push_back("recall " + std::to_string(result.status) + " " + result.error + " " +
                             result.raw);
          }
          continue;
        }
        const std::string text = "Note from client " + std::to_string(client) + " op " +
                                 std::to_string(op) + " marker c" + std::to_string(client) + "o" +
                                 std::to_string(op) + ".";
        HttpResult result = server.Call("POST", "/v1/scopes/" + scope + "/memories",
                                        R"({"turns": [{"text": ")" + text + R"("}]})");
        std::lock_guard<std::mutex> lock(mutex);
        if (result.status != 201) {
          errors.push_back("remember " + std::to_string(result.status) + " " + result.error + " " +
                           result.raw);
        } else {
          acknowledged[text] = result.body["ids"][0].get<std::string>();
        }
      }
    });
  }
  for (std::thread& client : clients) client.join();
  EXPECT_TRUE(errors.empty()) << errors.size() << " errors, first: " << errors.front();

  std::map<std::string, int> stored;  // text -> copies
  for (int s = 0; s < kScopes; ++s) {
    const std::string scope = "app:load/user:u" + std::to_string(s);
    std::set<std::int64_t> sequences;
    std::string after = "0";
    for (int page = 0; page < 100; ++page) {
      HttpResult list =
          server.Call("GET", "/v1/scopes/" + scope + "/memories?limit=50&after=" + after);
      ASSERT_EQ(list.status, 200) << list.raw;
      for (const Json& memory : list.body["memories"]) {
        ++stored[memory["text"].get<std::string>()];
        EXPECT_TRUE(sequences.insert(memory["sequence"].get<std::int64_t>()).second)
            << "sequence " << memory["sequence"] << " repeated in " << scope;
      }
      if (list.body["next_after"].is_null()) break;
      after = list.body["next_after"].dump();
    }
  }
  const int expected_writes = [] {
    int writes = 0;
    for (int client = 0; client < kClients; ++client) {
      for (int op = 0; op < kOperationsPerClient; ++op) writes += (client + op) % 3 != 2;
    }
    return writes;
  }();
  EXPECT_EQ(static_cast<int>(acknowledged.size()), expected_writes);
  for (const auto& [text, id] : acknowledged) {
    EXPECT_EQ(stored[text], 1) << text;
  }
  EXPECT_EQ(stored.size(), acknowledged.size());
}

}  // namespace
}  // namespace engram::testing
