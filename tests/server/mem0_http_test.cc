// mem0's routes over real HTTP, as `engram serve` mounts them: a mem0 client's add then search
// finds the stored memory with a score; list order, add's NONE event, update chains, deletes,
// search options, filter operators and delete-all by agent behave as mem0's; with keys a tenant
// sees nothing of another's.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "server_fixture.h"

namespace engram::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(ServerMem0Test, AddThenSearchReturnsTheMemoryWithAScore) {
  TestServer server;
  HttpResult added = server.Call(
      "POST", "/memories",
      R"({"messages": [{"role": "user", "content": "I am allergic to peanuts and shellfish."}],
          "user_id": "alice", "metadata": {"source": "chat"}})");
  ASSERT_EQ(added.status, 200) << added.raw;
  ASSERT_EQ(added.body["results"].size(), 1u);
  EXPECT_EQ(added.body["results"][0]["event"], "ADD");
  const std::string id = added.body["results"][0]["id"];

  HttpResult found = server.Call("POST", "/search",
                                 R"({"query": "What is Alice allergic to?", "user_id": "alice"})");
  ASSERT_EQ(found.status, 200) << found.raw;
  ASSERT_FALSE(found.body["results"].empty());
  const nlohmann::json& first = found.body["results"][0];
  EXPECT_EQ(first["id"], id);
  EXPECT_EQ(first["memory"], "I am allergic to peanuts and shellfish.");
  EXPECT_EQ(first["user_id"], "alice");
  EXPECT_EQ(first["metadata"]["source"], "chat");
  ASSERT_TRUE(first["score"].is_number());
  EXPECT_GT(first["score"].get<double>(), 0.0);
  // engram's additions sit under their own key.
  EXPECT_TRUE(first.contains("engram"));

  HttpResult missing = server.Call("POST", "/search", R"({"query": "anything"})");
  EXPECT_EQ(missing.status, 400);
  EXPECT_TRUE(missing.body.contains("detail")) << missing.raw;
}

TEST(ServerMem0Test, ListOrderUpdateChainsFiltersAndDeleteAllBehaveAsMem0s) {
  TestServer server;
  HttpResult added = server.Call("POST", "/memories", R"({"messages": [
      {"role": "user", "content": "I work at the bakery on Rua Augusta."},
      {"role": "assistant", "content": "Noted: the bakery on Rua Augusta."},
      {"role": "user", "content": "My sister works at the harbour."}],
      "user_id": "alice", "metadata": {"priority": 2}})");
  ASSERT_EQ(added.status, 200) << added.raw;
  ASSERT_EQ(added.body["results"].size(), 3u);
  const std::string first = added.body["results"][0]["id"];

  // One request's messages are listed in the order they were sent.
  HttpResult listed = server.Call("GET", "/memories?user_id=alice");
  ASSERT_EQ(listed.status, 200) << listed.raw;
  ASSERT_EQ(listed.body["results"].size(), 3u);
  for (std::size_t index = 0; index < 3; ++index) {
    EXPECT_EQ(listed.body["results"][index]["id"], added.body["results"][index]["id"]) << index;
  }

  // The same message again is mem0's NONE: not stored twice.
  HttpResult repeated = server.Call("POST", "/memories", R"({"messages": [
      {"role": "user", "content": "My sister works at the harbour."}],
      "user_id": "alice", "metadata": {"priority": 2}})");
  ASSERT_EQ(repeated.status, 200) << repeated.raw;
  EXPECT_EQ(repeated.body["results"][0]["event"], "NONE");
  EXPECT_EQ(repeated.body["results"][0]["id"], added.body["results"][2]["id"]);
  EXPECT_EQ(server.Call("GET", "/memories?user_id=alice").body["results"].size(), 3u);

  // The first id keeps naming the memory across updates; once deleted it is gone.
  HttpResult updated =
      server.Call("PUT", "/memories/" + first, R"({"text": "I work at the library."})");
  ASSERT_EQ(updated.status, 200) << updated.raw;
  HttpResult again = server.Call("PUT", "/memories/" + first, R"({"text": "I work at the zoo."})");
  ASSERT_EQ(again.status, 200) << again.raw;
  HttpResult current = server.Call("GET", "/memories/" + first);
  ASSERT_EQ(current.status, 200) << current.raw;
  EXPECT_EQ(current.body["memory"], "I work at the zoo.");
  EXPECT_EQ(current.body["id"], again.body["id"]);
  ASSERT_EQ(server.Call("DELETE", "/memories/" + first).status, 200);
  EXPECT_EQ(server.Call("GET", "/memories/" + first).status, 404);
  EXPECT_EQ(server.Call("PUT", "/memories/" + first, R"({"text": "x"})").status, 404);
  EXPECT_EQ(server.Call("DELETE", "/memories/" + first).status, 404);

  // mem0's search options are accepted; operators filter; identifiers may sit in filters.
  HttpResult found = server.Call("POST", "/search", R"({"query": "Where does my sister work?",
      "rerank": true, "keyword_search": false, "fields": ["memory"], "version": "v2",
      "filters": {"AND": [{"user_id": "alice"}, {"priority": {"gte": 2}},
                          {"role": {"in": ["user"]}}]}})");
  ASSERT_EQ(found.status, 200) << found.raw;
  ASSERT_EQ(found.body["results"].size(), 1u);
  EXPECT_EQ(found.body["results"][0]["memory"], "My sister works at the harbour.");
  HttpResult unknown = server.Call(
      "POST", "/search",
      R"({"query": "sister", "user_id": "alice", "filters": {"priority": {"between": [1, 3]}}})");
  EXPECT_EQ(unknown.status, 400);
  ASSERT_TRUE(unknown.body["detail"].is_string()) << unknown.raw;
  EXPECT_THAT(unknown.body["detail"].get<std::string>(),
              HasSubstr("filters.priority: unsupported operator \"between\""));

  // delete-all by agent alone reaches the agent's memories under the user.
  ASSERT_EQ(server
                .Call("POST", "/memories",
                      R"({"messages": "Bot: Alice likes early meetings.", "user_id": "alice",
                          "agent_id": "bot"})")
                .status,
            200);
  HttpResult deleted = server.Call("DELETE", "/memories?agent_id=bot");
  ASSERT_EQ(deleted.status, 200) << deleted.raw;
  EXPECT_EQ(deleted.body["engram"]["scopes"], nlohmann::json::array({"user:alice/agent:bot"}));
  HttpResult left = server.Call("GET", "/memories?user_id=alice");
  ASSERT_EQ(left.status, 200) << left.raw;
  EXPECT_EQ(left.body["results"].size(), 2u) << left.raw;
  EXPECT_THAT(left.raw, Not(HasSubstr("early meetings")));
}

TEST(ServerMem0Test, AKeyForAliceNeverSeesBobsMemories) {
  TestServer server(TestServerOptions{.with_keys = true});
  const std::string alice = server.AddKey("user:alice", "read,write");
  const std::string bob = server.AddKey("user:bob", "read,write");
  HttpResult bobs = server.Call(
      "POST", "/memories",
      R"({"messages": [{"role": "user", "content": "Bob's locker code is 4417."}], "user_id": "bob"})",
      bob);
  ASSERT_EQ(bobs.status, 200) << bobs.raw;
  const std::string bob_id = bobs.body["results"][0]["id"];
  ASSERT_EQ(server
                .Call("POST", "/memories",
                      R"({"messages": [{"role": "user", "content": "Alice's locker is blue."}],
                          "user_id": "alice"})",
                      alice)
                .status,
            200);

  HttpResult get = server.Call("GET", "/memories/" + bob_id, "", alice);
  EXPECT_EQ(get.status, 404);
  EXPECT_THAT(get.raw, Not(HasSubstr("4417")));
  HttpResult history = server.Call("GET", "/memories/" + bob_id + "/history", "", alice);
  EXPECT_EQ(history.status, 404);
  HttpResult update =
      server.Call("PUT", "/memories/" + bob_id, R"({"text": "Bob's locker code is 0000."})", alice);
  EXPECT_EQ(update.status, 404);
  HttpResult search_as_bob = server.Call(
      "POST", "/search", R"({"query": "What is the locker code?", "user_id": "bob"})", alice);
  EXPECT_EQ(search_as_bob.status, 403);
  EXPECT_THAT(search_as_bob.raw, Not(HasSubstr("4417")));
  HttpResult own = server.Call(
      "POST", "/search", R"({"query": "What is the locker code?", "user_id": "alice"})", alice);
  ASSERT_EQ(own.status, 200);
  EXPECT_THAT(own.raw, Not(HasSubstr("4417")));
  EXPECT_THAT(own.raw, HasSubstr("Alice's locker is blue."));
  EXPECT_EQ(server.Call("POST", "/reset", "", alice).status, 403);
  EXPECT_EQ(server.Call("GET", "/memories?user_id=alice").status, 401);
  // Bob's memory is untouched.
  HttpResult still = server.Call("GET", "/memories/" + bob_id, "", bob);
  ASSERT_EQ(still.status, 200);
  EXPECT_EQ(still.body["memory"], "Bob's locker code is 4417.");
}

}  // namespace
}  // namespace engram::testing
