// The mem0-compatible handlers of mem0's self-hosted server called directly on a real engine:
// shapes and values of every route, the identifier-to-scope mapping, updates as supersession,
// deletes as retirement, delete-all by each kind of identifier, list order, reset, cross-tenant
// isolation and every bad-input path. The delete-all cases of tests/mem0/delete_all_cases.json
// and the add-event cases of tests/mem0/add_event_cases.json are shared with the Python facade's
// tests, so the two give the same answers. Filters: mem0_filter_test.cc.
#include "server/mem0_api.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "server/mem0_test_fixture.h"

namespace engram::server {
namespace {

using engram::testing::IsOk;
using engram::testing::StatusIs;
using io::Json;
using mem0_testing::DetailLoc;
using mem0_testing::DetailText;
using mem0_testing::Key;
using mem0_testing::kMissingIdentifier;
using mem0_testing::Mem0ApiTest;
using mem0_testing::SharedCases;
using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;
using ::testing::StartsWith;
using ::testing::UnorderedElementsAre;
using ::testing::UnorderedElementsAreArray;

TEST_F(Mem0ApiTest, AddThenSearchReturnsTheStoredMemoryWithAScore) {
  ApiResponse added =
      Add({{"messages", {{{"role", "user"}, {"content", "I moved to Lisbon last month."}}}},
           {"user_id", "alice"},
           {"metadata", {{"category", "travel"}}}});
  ASSERT_EQ(added.status, 200) << added.body.dump();
  ASSERT_THAT(added.body["results"], SizeIs(1));
  const Json& result = added.body["results"][0];
  EXPECT_EQ(result["event"], "ADD");
  EXPECT_EQ(result["memory"], "I moved to Lisbon last month.");
  EXPECT_EQ(result["role"], "user");
  EXPECT_EQ(result["actor_id"], "user");
  EXPECT_EQ(result["engram"]["scope"], "user:alice");
  const std::string id = result["id"];
  EXPECT_THAT(id, SizeIs(32));

  ApiResponse found = Search({{"query", "moved to Lisbon"}, {"user_id", "alice"}});
  ASSERT_EQ(found.status, 200) << found.body.dump();
  ASSERT_THAT(found.body["results"], SizeIs(1));
  const Json& item = found.body["results"][0];
  EXPECT_EQ(item["id"], id);
  EXPECT_EQ(item["memory"], "I moved to Lisbon last month.");
  EXPECT_THAT(item["hash"].get<std::string>(), SizeIs(32));
  EXPECT_EQ(item["metadata"], Json({{"category", "travel"}}));
  EXPECT_TRUE(item["score"].is_number());
  EXPECT_GT(item["score"].get<double>(), 0.0);
  EXPECT_EQ(item["user_id"], "alice");
  EXPECT_FALSE(item.contains("agent_id"));
  const Memory stored = engine_->Get(id).value();
  EXPECT_EQ(item["created_at"], FormatTimestamp(stored.ingested_at));
  EXPECT_EQ(item["updated_at"], FormatTimestamp(stored.updated_at));
  EXPECT_EQ(item["engram"]["scope"], "user:alice");
  EXPECT_EQ(item["engram"]["provenance"], Json::array({id}));
  ASSERT_FALSE(item["engram"]["routes"].empty());
  EXPECT_THAT(item["engram"]["routes"][0]["explanation"].get<std::string>(), HasSubstr("lisbon"));
  EXPECT_EQ(found.body["engram"]["scope"], "user:alice");
}

TEST_F(Mem0ApiTest, IdentifiersNestUserAgentRunAndSearchesIncludeNestedScopes) {
  ApiResponse added = Add({{"messages",
                            {{{"role", "assistant"},
                              {"content", "Your flight to Oslo leaves at nine."},
                              {"name", "Planner"}}}},
                           {"user_id", "alice"},
                           {"agent_id", "bot"},
                           {"run_id", "7"}});
  ASSERT_EQ(added.status, 200) << added.body.dump();
  EXPECT_EQ(added.body["results"][0]["engram"]["scope"], "user:alice/agent:bot/run:7");
  EXPECT_EQ(added.body["results"][0]["actor_id"], "Planner");
  EXPECT_EQ(added.body["results"][0]["role"], "assistant");

  // user_id alone finds what was written with user_id, agent_id and run_id.
  EXPECT_THAT(SearchTexts({{"query", "flight to Oslo"}, {"user_id", "alice"}}),
              ElementsAre("Your flight to Oslo leaves at nine."));
  EXPECT_THAT(SearchTexts({{"query", "flight to Oslo"}, {"user_id", "alice"}, {"agent_id", "bot"}}),
              ElementsAre("Your flight to Oslo leaves at nine."));
  // A sibling run and another user see nothing.
  EXPECT_THAT(SearchTexts({{"query", "flight to Oslo"}, {"user_id", "alice"}, {"run_id", "8"}}),
              IsEmpty());
  EXPECT_THAT(SearchTexts({{"query", "flight to Oslo"}, {"user_id", "bob"}}), IsEmpty());
  // Identifiers given inside filters select the scope too.
  EXPECT_THAT(SearchTexts({{"query", "flight to Oslo"}, {"filters", {{"user_id", "alice"}}}}),
              ElementsAre("Your flight to Oslo leaves at nine."));

  ApiResponse listed = WithQuery(&Mem0Api::ListMemories, "GET", {{"user_id", "alice"}});
  ASSERT_EQ(listed.status, 200) << listed.body.dump();
  ASSERT_THAT(listed.body["results"], SizeIs(1));
  const Json& item = listed.body["results"][0];
  EXPECT_EQ(item["user_id"], "alice");
  EXPECT_EQ(item["agent_id"], "bot");
  EXPECT_EQ(item["run_id"], "7");
  EXPECT_EQ(item["engram"]["session_id"], "7");
  EXPECT_FALSE(item.contains("score"));
}

TEST_F(Mem0ApiTest, EveryRouteNeedsAnIdentifierAndNamesABadOne) {
  const Json messages = {{{"role", "user"}, {"content", "hello there"}}};
  ApiResponse add = Add({{"messages", messages}});
  EXPECT_EQ(add.status, 400);
  EXPECT_EQ(add.body["detail"], kMissingIdentifier);
  // Empty identifiers count as absent, as in mem0.
  EXPECT_EQ(Add({{"messages", messages}, {"user_id", ""}}).status, 400);
  EXPECT_EQ(Search({{"query", "hello"}}).status, 400);
  EXPECT_EQ(WithQuery(&Mem0Api::ListMemories, "GET", {}).status, 400);
  EXPECT_EQ(WithQuery(&Mem0Api::DeleteAll, "DELETE", {}).body["detail"], kMissingIdentifier);

  ApiResponse slash = Add({{"messages", messages}, {"user_id", "a/b"}});
  EXPECT_EQ(slash.status, 400);
  EXPECT_THAT(DetailText(slash), HasSubstr("user_id"));
  ApiResponse control = Add({{"messages", messages}, {"user_id", "ann"}, {"run_id", "r\x01"}});
  EXPECT_EQ(control.status, 400);
  EXPECT_THAT(DetailText(control), HasSubstr("run_id"));
  ApiResponse long_agent =
      WithQuery(&Mem0Api::ListMemories, "GET", {{"agent_id", std::string(300, 'x')}});
  EXPECT_EQ(long_agent.status, 400);
  EXPECT_THAT(DetailText(long_agent), HasSubstr("agent_id"));
  EXPECT_EQ(StoredScopes(), 0u);
}

TEST_F(Mem0ApiTest, GetDeleteAndHistoryOfAMemory) {
  const std::string id = AddOne("alice", "I adopted a cat named Miso.", {{"pet", "cat"}});
  ApiResponse got = OnId(&Mem0Api::GetMemory, "GET", id);
  ASSERT_EQ(got.status, 200) << got.body.dump();
  EXPECT_EQ(got.body["id"], id);
  EXPECT_EQ(got.body["memory"], "I adopted a cat named Miso.");
  EXPECT_EQ(got.body["metadata"], Json({{"pet", "cat"}}));
  EXPECT_EQ(got.body["user_id"], "alice");
  EXPECT_EQ(got.body["engram"]["status"], "active");

  ApiResponse deleted = OnId(&Mem0Api::DeleteMemory, "DELETE", id);
  ASSERT_EQ(deleted.status, 200) << deleted.body.dump();
  EXPECT_EQ(deleted.body["message"], "Memory deleted successfully");
  EXPECT_EQ(deleted.body["engram"]["retired_id"], id);
  // Retired: hidden from get, list and search, kept in the store and in history.
  EXPECT_EQ(OnId(&Mem0Api::GetMemory, "GET", id).status, 404);
  EXPECT_EQ(OnId(&Mem0Api::DeleteMemory, "DELETE", id).body["detail"], "Memory not found");
  EXPECT_THAT(WithQuery(&Mem0Api::ListMemories, "GET", {{"user_id", "alice"}}).body["results"],
              IsEmpty());
  EXPECT_THAT(SearchTexts({{"query", "cat named Miso"}, {"user_id", "alice"}}), IsEmpty());
  EXPECT_EQ(engine_->Get(id).value().status, NodeStatus::kRetired);

  ApiResponse history = OnId(&Mem0Api::History, "GET", id);
  ASSERT_EQ(history.status, 200) << history.body.dump();
  ASSERT_TRUE(history.body.is_array());
  ASSERT_THAT(history.body, SizeIs(2));
  EXPECT_EQ(history.body[0]["event"], "ADD");
  EXPECT_EQ(history.body[0]["memory_id"], id);
  EXPECT_TRUE(history.body[0]["old_memory"].is_null());
  EXPECT_EQ(history.body[0]["new_memory"], "I adopted a cat named Miso.");
  EXPECT_EQ(history.body[0]["is_deleted"], false);
  EXPECT_EQ(history.body[1]["event"], "DELETE");
  EXPECT_EQ(history.body[1]["old_memory"], "I adopted a cat named Miso.");
  EXPECT_TRUE(history.body[1]["new_memory"].is_null());
  EXPECT_EQ(history.body[1]["is_deleted"], true);
  EXPECT_NE(history.body[0]["id"], history.body[1]["id"]);
}

// Needs Engine::Amend.
TEST_F(Mem0ApiTest, UpdateAmendsAndTheOldIdFollowsToTheCurrentVersion) {
  const std::string old_id = AddOne("alice", "I live in Lisbon.", {{"kind", "home"}});
  ApiResponse updated =
      OnId(&Mem0Api::UpdateMemory, "PUT", old_id, R"({"text": "I live in Porto."})");
  ASSERT_EQ(updated.status, 200) << updated.body.dump();
  EXPECT_EQ(updated.body["message"], "Memory updated successfully!");
  const std::string new_id = updated.body["id"];
  EXPECT_NE(new_id, old_id);
  EXPECT_EQ(updated.body["engram"]["superseded_id"], old_id);

  // The old memory stays, superseded; the old id resolves to the current version.
  EXPECT_EQ(engine_->Get(old_id).value().status, NodeStatus::kSuperseded);
  ApiResponse by_old = OnId(&Mem0Api::GetMemory, "GET", old_id);
  ASSERT_EQ(by_old.status, 200) << by_old.body.dump();
  EXPECT_EQ(by_old.body["id"], new_id);
  EXPECT_EQ(by_old.body["memory"], "I live in Porto.");
  EXPECT_EQ(by_old.body["metadata"], Json({{"kind", "home"}}));
  EXPECT_EQ(by_old.body["engram"]["requested_id"], old_id);
  EXPECT_THAT(SearchTexts({{"query", "where do I live"}, {"user_id", "alice"}}),
              ElementsAre("I live in Porto."));

  // A second update through the old id amends the current version; `data` is text's alias.
  ApiResponse again = OnId(&Mem0Api::UpdateMemory, "PUT", old_id,
                           R"({"data": "I live in Braga.", "metadata": {"kind": "flat"}})");
  ASSERT_EQ(again.status, 200) << again.body.dump();
  const std::string third_id = again.body["id"];
  EXPECT_EQ(again.body["engram"]["superseded_id"], new_id);

  ApiResponse history = OnId(&Mem0Api::History, "GET", new_id);
  ASSERT_EQ(history.status, 200) << history.body.dump();
  ASSERT_THAT(history.body, SizeIs(3));
  EXPECT_EQ(history.body[0]["event"], "ADD");
  EXPECT_EQ(history.body[0]["memory_id"], old_id);
  EXPECT_EQ(history.body[1]["event"], "UPDATE");
  EXPECT_EQ(history.body[1]["memory_id"], new_id);
  EXPECT_EQ(history.body[1]["old_memory"], "I live in Lisbon.");
  EXPECT_EQ(history.body[1]["new_memory"], "I live in Porto.");
  EXPECT_EQ(history.body[2]["event"], "UPDATE");
  EXPECT_EQ(history.body[2]["memory_id"], third_id);
  EXPECT_EQ(history.body[2]["new_memory"], "I live in Braga.");
  EXPECT_EQ(OnId(&Mem0Api::History, "GET", old_id).body, history.body);

  // Deleting through any id of the chain retires the current version.
  ASSERT_EQ(OnId(&Mem0Api::DeleteMemory, "DELETE", old_id).status, 200);
  EXPECT_EQ(engine_->Get(third_id).value().status, NodeStatus::kRetired);
  EXPECT_EQ(OnId(&Mem0Api::GetMemory, "GET", old_id).status, 404);
  ApiResponse after = OnId(&Mem0Api::History, "GET", third_id);
  ASSERT_THAT(after.body, SizeIs(4));
  EXPECT_EQ(after.body[3]["event"], "DELETE");
  EXPECT_EQ(after.body[3]["memory_id"], third_id);
}

TEST_F(Mem0ApiTest, UnknownAndMalformedIdsAreNotFound) {
  for (const std::string id : {"0123456789abcdef0123456789abcdef", "not-an-id", ""}) {
    EXPECT_EQ(OnId(&Mem0Api::GetMemory, "GET", id).body["detail"], "Memory not found") << id;
    EXPECT_EQ(OnId(&Mem0Api::History, "GET", id).status, 404) << id;
    EXPECT_EQ(OnId(&Mem0Api::DeleteMemory, "DELETE", id).status, 404) << id;
    EXPECT_EQ(OnId(&Mem0Api::UpdateMemory, "PUT", id, R"({"text": "x"})").status, 404) << id;
  }
}

TEST_F(Mem0ApiTest, DeleteAllRetiresTheIdentifiersScopeWithNestedOnes) {
  const std::string kept = AddOne("bob", "Bob plays the cello.");
  const std::string first = AddOne("alice", "Alice plays chess.");
  ASSERT_EQ(Add({{"messages", {{{"role", "user"}, {"content", "Alice plays the violin."}}}},
                 {"user_id", "alice"},
                 {"run_id", "r1"}})
                .status,
            200);
  ApiResponse deleted = WithQuery(&Mem0Api::DeleteAll, "DELETE", {{"user_id", "alice"}});
  ASSERT_EQ(deleted.status, 200) << deleted.body.dump();
  EXPECT_EQ(deleted.body["message"], "All relevant memories deleted");
  EXPECT_GE(deleted.body["engram"]["retired_memories"].get<int>(), 2);
  EXPECT_THAT(WithQuery(&Mem0Api::ListMemories, "GET", {{"user_id", "alice"}}).body["results"],
              IsEmpty());
  EXPECT_THAT(SearchTexts({{"query", "plays"}, {"user_id", "alice"}}), IsEmpty());
  ApiResponse bob = WithQuery(&Mem0Api::ListMemories, "GET", {{"user_id", "bob"}});
  ASSERT_THAT(bob.body["results"], SizeIs(1));
  EXPECT_EQ(bob.body["results"][0]["id"], kept);
  // Kept in the store: history still answers.
  EXPECT_EQ(OnId(&Mem0Api::History, "GET", first).body.back()["event"], "DELETE");
  // A scope nothing was written to: nothing to delete, still a success.
  EXPECT_EQ(WithQuery(&Mem0Api::DeleteAll, "DELETE", {{"user_id", "carol"}}).status, 200);
}

TEST_F(Mem0ApiTest, DeleteAllCanEraseWhenConfigured) {
  Mem0Options options;
  options.delete_all_erases = true;
  Mem0Api erasing(*engine_, options);
  const std::string id = AddOne("alice", "Alice plays chess.");
  const auth::Access writer = Key("user:alice", "read,write");
  ApiRequest request = Request("DELETE", "/memories", "", &writer);
  request.query = {{"user_id", "alice"}};
  EXPECT_EQ(erasing.DeleteAll(request).status, 403);  // erasing needs the erase right
  request.access = &admin_;
  ApiResponse erased = erasing.DeleteAll(request);
  ASSERT_EQ(erased.status, 200) << erased.body.dump();
  EXPECT_GE(erased.body["engram"]["erased_memories"].get<int>(), 1);
  EXPECT_EQ(OnId(&Mem0Api::History, "GET", id).status, 404);
}

TEST_F(Mem0ApiTest, ResetIsForTheServerAdministratorOnly) {
  AddOne("alice", "Alice plays chess.");
  AddOne("bob", "Bob plays the cello.");
  const auth::Access alice = Key("user:alice", "read,write,erase,admin");
  ApiResponse refused = api_->Reset(Request("POST", "/reset", "", &alice));
  EXPECT_EQ(refused.status, 403);
  EXPECT_THAT(DetailText(refused), HasSubstr("administrator"));
  EXPECT_EQ(StoredScopes(), 2u);

  ApiResponse reset = api_->Reset(Request("POST", "/reset", "", &admin_));
  ASSERT_EQ(reset.status, 200) << reset.body.dump();
  EXPECT_EQ(reset.body["message"], "All memories reset");
  EXPECT_EQ(StoredScopes(), 0u);
}

TEST_F(Mem0ApiTest, AKeyForAliceNeverSeesBob) {
  const std::string bobs = AddOne("bob", "Bob's bank PIN is 4321.");
  const std::string alices = AddOne("alice", "Alice's bank is in Porto.");
  const auth::Access alice = Key("user:alice", "read,write");

  for (auto [handler, method] :
       {std::pair{&Mem0Api::GetMemory, "GET"}, std::pair{&Mem0Api::History, "GET"},
        std::pair{&Mem0Api::DeleteMemory, "DELETE"}}) {
    ApiResponse response = OnId(handler, method, bobs, "", &alice);
    EXPECT_EQ(response.status, 404) << method;
    EXPECT_EQ(response.body["detail"], "Memory not found");
    EXPECT_EQ(response.body.dump().find("4321"), std::string::npos);
  }
  EXPECT_EQ(OnId(&Mem0Api::UpdateMemory, "PUT", bobs, R"({"text": "hacked"})", &alice).status, 404);
  EXPECT_EQ(engine_->Get(bobs).value().status, NodeStatus::kActive);

  ApiResponse search_bob = Search({{"query", "bank PIN"}, {"user_id", "bob"}}, &alice);
  EXPECT_EQ(search_bob.status, 403);
  EXPECT_THAT(DetailText(search_bob), HasSubstr("user:bob"));
  ApiResponse search_alice = Search({{"query", "bank PIN"}, {"user_id", "alice"}}, &alice);
  ASSERT_EQ(search_alice.status, 200);
  EXPECT_EQ(search_alice.body.dump().find("4321"), std::string::npos);
  ASSERT_THAT(search_alice.body["results"], SizeIs(1));
  EXPECT_EQ(search_alice.body["results"][0]["id"], alices);

  EXPECT_EQ(WithQuery(&Mem0Api::ListMemories, "GET", {{"user_id", "bob"}}, &alice).status, 403);
  EXPECT_EQ(WithQuery(&Mem0Api::DeleteAll, "DELETE", {{"user_id", "bob"}}, &alice).status, 403);
  ApiResponse write_bob =
      Add({{"messages", {{{"role", "user"}, {"content", "planted"}}}}, {"user_id", "bob"}}, &alice);
  EXPECT_EQ(write_bob.status, 403);
  EXPECT_THAT(WithQuery(&Mem0Api::ListMemories, "GET", {{"user_id", "bob"}}).body["results"],
              SizeIs(1));
  EXPECT_EQ(WithQuery(&Mem0Api::DeleteAll, "DELETE", {{"user_id", "bob"}}, &alice).status, 403);

  // A key for one agent of Alice's reaches that agent's scope, not the whole user.
  ASSERT_EQ(Add({{"messages", {{{"role", "user"}, {"content", "Bot notes: Alice banks online."}}}},
                 {"user_id", "alice"},
                 {"agent_id", "bot"}})
                .status,
            200);
  const auth::Access bot = Key("user:alice/agent:bot", "read");
  EXPECT_EQ(Search({{"query", "bank"}, {"user_id", "alice"}}, &bot).status, 403);
  ApiResponse bot_search =
      Search({{"query", "bank"}, {"user_id", "alice"}, {"agent_id", "bot"}}, &bot);
  ASSERT_EQ(bot_search.status, 200);
  ASSERT_THAT(bot_search.body["results"], SizeIs(1));
  EXPECT_EQ(bot_search.body["results"][0]["memory"], "Bot notes: Alice banks online.");
  EXPECT_EQ(OnId(&Mem0Api::GetMemory, "GET", alices, "", &bot).status, 404);

  // A read-only key reads but cannot delete.
  const auth::Access reader = Key("user:alice", "read");
  EXPECT_EQ(OnId(&Mem0Api::GetMemory, "GET", alices, "", &reader).status, 200);
  ApiResponse delete_read_only = OnId(&Mem0Api::DeleteMemory, "DELETE", alices, "", &reader);
  EXPECT_EQ(delete_read_only.status, 403);
  EXPECT_EQ(engine_->Get(alices).value().status, NodeStatus::kActive);
}

TEST_F(Mem0ApiTest, BadAddBodiesAre422NamingTheFieldAndStoreNothing) {
  struct Case {
    std::string body;
    Json loc;
    std::string message;
  };
  const std::string ok_messages = R"("messages": [{"role": "user", "content": "hi there"}])";
  const std::vector<Case> cases = {
      {R"({"messages": [)", {"body"}, "not valid JSON"},
      {"{\"messages\": \"\xff\xfe\", \"user_id\": \"a\"}", {"body"}, "UTF-8"},
      {R"([1, 2])", {"body"}, "must be a JSON object"},
      {"", {"body"}, "empty"},
      {R"({"user_id": "a", "user_id": "b", )" + ok_messages + "}", {"body"}, "repeats the key"},
      {R"({"user_id": "a", "metadata": {"n": 18446744073709551616}, )" + ok_messages + "}",
       {"body"},
       "18446744073709551616, outside the 64-bit range"},
      {R"({"user_id": "a", "colour": "red", )" + ok_messages + "}",
       {"body", "colour"},
       "unknown field"},
      {R"({"user_id": 7, )" + ok_messages + "}", {"body", "user_id"}, "must be a string"},
      {R"({"user_id": "a"})", {"body", "messages"}, "field required"},
      {R"({"user_id": "a", "messages": 5})", {"body", "messages"}, "must be a list"},
      {R"({"user_id": "a", "messages": []})", {"body", "messages"}, "at least one"},
      {R"({"user_id": "a", "messages": ["hi"]})", {"body", "messages", 0}, "must be an object"},
      {R"({"user_id": "a", "messages": [{"role": "robot", "content": "x"}]})",
       {"body", "messages", 0, "role"},
       "\"robot\""},
      {R"({"user_id": "a", "messages": [{"content": "x"}]})",
       {"body", "messages", 0, "role"},
       "required"},
      {R"({"user_id": "a", "messages": [{"role": "user", "content": {"type": "image_url"}}]})",
       {"body", "messages", 0, "content"},
       "multimodal"},
      {R"({"user_id": "a", "messages": [{"role": "user", "content": "  "}]})",
       {"body", "messages", 0, "content"},
       "empty"},
      {R"({"user_id": "a", "messages": [{"role": "user", "content": "x", "mood": 1}]})",
       {"body", "messages", 0, "mood"},
       "unknown field"},
      {R"({"user_id": "a", "messages": [{"role": "user", "content": "x", "name": 3}]})",
       {"body", "messages", 0, "name"},
       "must be a string"},
      {R"({"user_id": "a", "metadata": [1], )" + ok_messages + "}",
       {"body", "metadata"},
       "must be an object"},
      {R"({"user_id": "a", "infer": "yes", )" + ok_messages + "}", {"body", "infer"}, "boolean"},
  };
  for (const Case& bad : cases) {
    ApiResponse response = AddRaw(bad.body);
    EXPECT_EQ(response.status, 422) << bad.body;
    EXPECT_EQ(DetailLoc(response), bad.loc) << bad.body << " -> " << response.body.dump();
    EXPECT_THAT(DetailText(response), HasSubstr(bad.message)) << bad.body;
  }
  EXPECT_EQ(StoredScopes(), 0u);

  // An oversized body is refused before parsing.
  Mem0Options small;
  small.max_body_bytes = 64;
  Mem0Api strict(*engine_, small);
  ApiResponse oversized =
      strict.AddMemories(Request("POST", "/memories",
                                 R"({"user_id": "a", "messages": [{"role": "user", "content": ")" +
                                     std::string(100, 'x') + "\"}]}",
                                 &admin_));
  EXPECT_EQ(oversized.status, 413);
  EXPECT_THAT(DetailText(oversized), HasSubstr("at most 64"));
  // A message longer than the engine's turn limit ([limits] max_turn_bytes): nothing of the
  // batch is stored.
  ApiResponse long_turn = Add({{"user_id", "a"},
                               {"messages",
                                {{{"role", "user"}, {"content", "fine"}},
                                 {{"role", "user"}, {"content", std::string(300 * 1024, 'x')}}}}});
  EXPECT_EQ(long_turn.status, 422);
  EXPECT_EQ(DetailLoc(long_turn), Json({"body", "messages"}));
  EXPECT_THAT(DetailText(long_turn), HasSubstr("turn 1"));
  EXPECT_EQ(StoredScopes(), 0u);
}

TEST_F(Mem0ApiTest, KnownMem0OptionsAreAcceptedAndInferFalseStillStores) {
  ApiResponse added = Add({{"messages", {{{"role", "user"}, {"content", "I prefer tea."}}}},
                           {"user_id", "alice"},
                           {"infer", false},
                           {"prompt", "extract preferences"},
                           {"version", "v1.1"},
                           {"output_format", "v1.1"}});
  ASSERT_EQ(added.status, 200) << added.body.dump();
  EXPECT_EQ(added.body["results"][0]["memory"], "I prefer tea.");
  // A bare string is one user message, as mem0's client sends it.
  ApiResponse string_message = Add({{"messages", "I prefer green tea."}, {"user_id", "alice"}});
  ASSERT_EQ(string_message.status, 200) << string_message.body.dump();
  EXPECT_EQ(string_message.body["results"][0]["role"], "user");
  EXPECT_THAT(WithQuery(&Mem0Api::ListMemories, "GET", {{"user_id", "alice"}}).body["results"],
              SizeIs(2));
}

TEST_F(Mem0ApiTest, BadSearchBodiesAre422NamingTheField) {
  AddOne("alice", "Alice plays chess.");
  struct Case {
    Json body;
    Json loc;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{{"user_id", "alice"}}, {"body", "query"}, "field required"},
      {{{"user_id", "alice"}, {"query", 5}}, {"body", "query"}, "must be a string"},
      {{{"user_id", "alice"}, {"query", " "}}, {"body", "query"}, "empty"},
      {{{"user_id", "alice"}, {"query", "chess"}, {"top_k", 0}}, {"body", "top_k"}, "from 1 to"},
      {{{"user_id", "alice"}, {"query", "chess"}, {"top_k", -3}}, {"body", "top_k"}, "from 1 to"},
      {{{"user_id", "alice"}, {"query", "chess"}, {"top_k", 5000}}, {"body", "top_k"}, "1000"},
      {{{"user_id", "alice"}, {"query", "chess"}, {"top_k", 1e30}}, {"body", "top_k"}, "number"},
      {{{"user_id", "alice"}, {"query", "chess"}, {"top_k", "5"}}, {"body", "top_k"}, "string"},
      {{{"user_id", "alice"}, {"query", "chess"}, {"limit", true}}, {"body", "limit"}, "boolean"},
      {{{"user_id", "alice"}, {"query", "chess"}, {"top_k", 2}, {"limit", 3}},
       {"body", "limit"},
       "disagrees"},
      {{{"user_id", "alice"}, {"query", "chess"}, {"threshold", "high"}},
       {"body", "threshold"},
       "must be a number"},
      {{{"user_id", "alice"}, {"query", "chess"}, {"filters", {1, 2}}},
       {"body", "filters"},
       "must be an object"},
      {{{"user_id", "alice"}, {"query", "chess"}, {"rank", "bm25"}}, {"body", "rank"}, "unknown"},
  };
  for (const Case& bad : cases) {
    ApiResponse response = Search(bad.body);
    EXPECT_EQ(response.status, 422) << bad.body.dump();
    EXPECT_EQ(DetailLoc(response), bad.loc) << bad.body.dump() << " -> " << response.body.dump();
    EXPECT_THAT(DetailText(response), HasSubstr(bad.message)) << bad.body.dump();
  }
  // A number too large for any integer type parses as a float and is refused too.
  ApiResponse huge = api_->Search(
      Request("POST", "/search",
              R"({"user_id": "alice", "query": "chess", "top_k": 123456789012345678901234567890})",
              &admin_));
  EXPECT_EQ(huge.status, 422);
  EXPECT_EQ(DetailLoc(huge), Json({"body", "top_k"}));
  ApiResponse long_query = Search({{"user_id", "alice"}, {"query", std::string(100000, 'q')}});
  EXPECT_EQ(long_query.status, 422);
  EXPECT_EQ(DetailLoc(long_query), Json({"body", "query"}));
  EXPECT_THAT(DetailText(long_query), HasSubstr("max_query_bytes"));
  ApiResponse bad_utf8 =
      WithQuery(&Mem0Api::ListMemories, "GET", {{"user_id", "alice"}, {"run_id", "\xff"}});
  EXPECT_EQ(bad_utf8.status, 400);
  EXPECT_THAT(DetailText(bad_utf8), HasSubstr("run_id"));
  // A number beyond double's range is refused as bad JSON, not thrown.
  ApiResponse overflow = api_->Search(Request(
      "POST", "/search", R"({"user_id": "alice", "query": "chess", "threshold": 1e400})", &admin_));
  EXPECT_EQ(overflow.status, 422);
  EXPECT_EQ(DetailLoc(overflow), Json({"body"}));
  EXPECT_THAT(DetailText(overflow), HasSubstr("number overflow"));
  // Accepted and ignored: mem0's reranking switch.
  EXPECT_EQ(Search({{"user_id", "alice"}, {"query", "chess"}, {"rerank", true}}).status, 200);
  // A user nothing was written for has no memories.
  ApiResponse nobody = Search({{"user_id", "nobody"}, {"query", "chess"}});
  ASSERT_EQ(nobody.status, 200);
  EXPECT_THAT(nobody.body["results"], IsEmpty());
}

TEST_F(Mem0ApiTest, BadListAndUpdateInputs) {
  const std::string id = AddOne("alice", "Alice plays chess.");
  ApiResponse bad_limit =
      WithQuery(&Mem0Api::ListMemories, "GET", {{"user_id", "alice"}, {"limit", "ten"}});
  EXPECT_EQ(bad_limit.status, 422);
  EXPECT_EQ(DetailLoc(bad_limit), Json({"query", "limit"}));
  EXPECT_EQ(WithQuery(&Mem0Api::ListMemories, "GET", {{"user_id", "alice"}, {"limit", "0"}}).status,
            422);
  ApiResponse one =
      WithQuery(&Mem0Api::ListMemories, "GET", {{"user_id", "alice"}, {"limit", "1"}});
  EXPECT_THAT(one.body["results"], SizeIs(1));

  struct Case {
    std::string body;
    Json loc;
    std::string message;
  };
  const std::vector<Case> cases = {
      {R"({})", {"body", "text"}, "field required"},
      {R"({"text": 3})", {"body", "text"}, "must be a string"},
      {R"({"text": ""})", {"body", "text"}, "empty"},
      {R"({"text": "a", "data": "b"})", {"body", "data"}, "disagrees"},
      {R"({"text": "a", "metadata": "x"})", {"body", "metadata"}, "must be an object"},
      {R"({"text": "a", "owner": "x"})", {"body", "owner"}, "unknown field"},
      {R"({"text": )", {"body"}, "not valid JSON"},
  };
  for (const Case& bad : cases) {
    ApiResponse response = OnId(&Mem0Api::UpdateMemory, "PUT", id, bad.body);
    EXPECT_EQ(response.status, 422) << bad.body;
    EXPECT_EQ(DetailLoc(response), bad.loc) << bad.body << " -> " << response.body.dump();
    EXPECT_THAT(DetailText(response), HasSubstr(bad.message)) << bad.body;
  }
  EXPECT_EQ(engine_->Get(id).value().status, NodeStatus::kActive);
}

// The same requests on two fresh stores give byte-identical responses.
TEST_F(Mem0ApiTest, ResponsesAreDeterministic) {
  auto run = [&](Engine& engine) {
    Mem0Api api(engine, Mem0Options{});
    std::string transcript;
    for (const char* text : {"Alice moved to Porto in May.", "Alice adopted a cat named Miso.",
                             "Alice's cat Miso likes the balcony."}) {
      ApiRequest request = Request(
          "POST", "/memories",
          Json({{"messages", text}, {"user_id", "alice"}, {"run_id", "r1"}}).dump(), &admin_);
      transcript += io::Dump(api.AddMemories(request).body) + "\n";
    }
    // mem0 writes are acknowledged before derivation (wait = indexed); what a search finds
    // depends on how far the background derivation got, so compare the derived state.
    const Status derived = engine.WaitForDerivation();
    EXPECT_TRUE(derived.ok()) << derived.message();
    ApiRequest search = Request(
        "POST", "/search",
        Json({{"query", "Where does Alice's cat live?"}, {"user_id", "alice"}}).dump(), &admin_);
    transcript += io::Dump(api.Search(search).body) + "\n";
    ApiRequest list = Request("GET", "/memories", "", &admin_);
    list.query = {{"user_id", "alice"}};
    transcript += io::Dump(api.ListMemories(list).body);
    return transcript;
  };
  auto open = [&](const std::string& name) {
    EngineOptions options;
    options.store_path = dir_ + "/" + name;
    options.clock = FixedClock(Timestamp::FromSeconds(1704067200), 1000);
    options.config = Config{};
    options.config->embedder.kind = "none";
    return Engine::Open(options).value();
  };
  std::unique_ptr<Engine> first = open("first.db");
  std::unique_ptr<Engine> second = open("second.db");
  const std::string a = run(*first);
  EXPECT_THAT(a, HasSubstr("Miso"));
  EXPECT_EQ(a, run(*second));
}

TEST_F(Mem0ApiTest, RoutesListMem0sNineEndpoints) {
  std::vector<std::string> routes;
  for (const Mem0Route& route : api_->Routes())
    routes.push_back(route.method + " " + route.pattern);
  EXPECT_THAT(routes, UnorderedElementsAre("POST /memories", "GET /memories", "DELETE /memories",
                                           "GET /memories/{memory_id}", "PUT /memories/{memory_id}",
                                           "DELETE /memories/{memory_id}",
                                           "GET /memories/{memory_id}/history", "POST /search",
                                           "POST /reset"));
  // Bound to this object: calling one through the list reaches the engine.
  for (const Mem0Route& route : api_->Routes()) {
    if (route.method != "POST" || route.pattern != "/memories") continue;
    ApiResponse response = route.handler(Request(
        "POST", "/memories", R"({"user_id": "alice", "messages": "Alice plays chess."})", &admin_));
    EXPECT_EQ(response.status, 200);
  }
  EXPECT_EQ(StoredScopes(), 1u);
}

// given (by sequence), not by id.
TEST_F(Mem0ApiTest, ListShowsOneRequestsMessagesInTheOrderAdded) {
  Json messages = Json::array();
  std::vector<std::string> texts;
  for (int index = 1; index <= 12; ++index) {
    texts.push_back("Message number " + std::to_string(index) + " of the request.");
    messages.push_back(
        {{"role", index % 2 == 1 ? "user" : "assistant"}, {"content", texts.back()}});
  }
  ASSERT_EQ(Add({{"messages", messages}, {"user_id", "alice"}}).status, 200);
  ASSERT_EQ(Add({{"messages", "A later message."}, {"user_id", "alice"}, {"run_id", "r2"}}).status,
            200);
  texts.push_back("A later message.");
  ApiResponse listed = WithQuery(&Mem0Api::ListMemories, "GET", {{"user_id", "alice"}});
  ASSERT_EQ(listed.status, 200) << listed.body.dump();
  std::vector<std::string> got;
  for (const Json& item : listed.body["results"]) got.push_back(item["memory"]);
  EXPECT_THAT(got, ElementsAreArray(texts));
  ApiResponse first_five =
      WithQuery(&Mem0Api::ListMemories, "GET", {{"user_id", "alice"}, {"limit", "5"}});
  ASSERT_THAT(first_five.body["results"], SizeIs(5));
  EXPECT_EQ(first_five.body["results"][4]["memory"], texts[4]);
}

TEST_F(Mem0ApiTest, DeleteAllByEachKindOfIdentifierRetiresExactlyItsMemories) {
  const nlohmann::json shared = SharedCases("delete_all_cases.json");
  ASSERT_TRUE(shared.contains("cases"));
  for (const nlohmann::json& test_case : shared["cases"]) {
    SCOPED_TRACE(test_case["delete"].dump());
    ASSERT_EQ(api_->Reset(Request("POST", "/reset", "", &admin_)).status, 200);
    std::map<std::string, std::string> ids;  // text -> id
    for (const nlohmann::json& given : shared["memories"]) {
      Json body = Json::parse(given["ids"].dump());
      body["messages"] = given["text"];
      ApiResponse added = Add(body);
      ASSERT_EQ(added.status, 200) << added.body.dump();
      ids[given["text"]] = added.body["results"][0]["id"];
    }
    std::multimap<std::string, std::string> query;
    for (const auto& [key, value] : test_case["delete"].items()) query.emplace(key, value);
    const std::vector<std::string> deleted = test_case["deleted"];

    // What the identifiers list is what they delete.
    ApiResponse listed = WithQuery(&Mem0Api::ListMemories, "GET", query);
    ASSERT_EQ(listed.status, 200) << listed.body.dump();
    std::vector<std::string> listed_texts;
    for (const Json& item : listed.body["results"]) listed_texts.push_back(item["memory"]);
    EXPECT_THAT(listed_texts, UnorderedElementsAreArray(deleted));

    ApiResponse response = WithQuery(&Mem0Api::DeleteAll, "DELETE", query);
    ASSERT_EQ(response.status, 200) << response.body.dump();
    // Retired memories count what was derived from the messages too.
    const std::size_t retired = response.body["engram"]["retired_memories"];
    EXPECT_EQ(retired == 0, deleted.empty()) << retired;
    EXPECT_GE(retired, deleted.size());
    EXPECT_THAT(WithQuery(&Mem0Api::ListMemories, "GET", query).body["results"], IsEmpty());
    for (const auto& [text, id] : ids) {
      const bool gone = std::find(deleted.begin(), deleted.end(), text) != deleted.end();
      EXPECT_EQ(OnId(&Mem0Api::GetMemory, "GET", id).status, gone ? 404 : 200) << text;
    }
  }
}

TEST_F(Mem0ApiTest, DeleteAllByAgentLeavesScopesTheKeyCannotReadAndRefusesOnesItCannotChange) {
  ASSERT_EQ(
      Add({{"messages", "Alice's note for the bot."}, {"user_id", "alice"}, {"agent_id", "bot"}})
          .status,
      200);
  const std::string carols = AddOne("carol", "Carol's note.");  // another tenant
  ASSERT_EQ(Add({{"messages", "The bot's own note."}, {"agent_id", "bot"}}).status, 200);

  // A key for the agent alone cannot read Alice's scope: her memory is left, unmentioned.
  const auth::Access bot = Key("agent:bot", "read,write");
  ApiResponse by_bot = WithQuery(&Mem0Api::DeleteAll, "DELETE", {{"agent_id", "bot"}}, &bot);
  ASSERT_EQ(by_bot.status, 200) << by_bot.body.dump();
  EXPECT_GE(by_bot.body["engram"]["retired_memories"].get<int>(), 1);
  EXPECT_EQ(by_bot.body["engram"]["scopes"], Json::array({"agent:bot"}));
  EXPECT_EQ(by_bot.body.dump().find("alice"), std::string::npos);
  EXPECT_THAT(WithQuery(&Mem0Api::ListMemories, "GET", {{"user_id", "alice"}}).body["results"],
              SizeIs(1));

  // A key that reads Alice's scope but may not change it is refused before anything changes.
  ASSERT_EQ(Add({{"messages", "The bot's second note."}, {"agent_id", "bot"}}).status, 200);
  const auth::Access reader =
      auth::Access::Granted({{.prefix = Scope::Parse("agent:bot").value(),
                              .rights = auth::ParseRights("read,write").value()},
                             {.prefix = Scope::Parse("user:alice").value(),
                              .rights = auth::ParseRights("read").value()}});
  ApiResponse refused = WithQuery(&Mem0Api::DeleteAll, "DELETE", {{"agent_id", "bot"}}, &reader);
  EXPECT_EQ(refused.status, 403);
  EXPECT_THAT(DetailText(refused), HasSubstr("user:alice/agent:bot"));
  EXPECT_THAT(WithQuery(&Mem0Api::ListMemories, "GET", {{"agent_id", "bot"}}).body["results"],
              SizeIs(2));
  EXPECT_EQ(engine_->Get(carols).value().status, NodeStatus::kActive);
}

TEST_F(Mem0ApiTest, SearchAcceptsMem0sOptionsAndTakesIdentifiersFromFilters) {
  AddOne("alice", "Alice drinks green tea.", {{"category", "drinks"}});
  ASSERT_EQ(Add({{"messages", "The bot brews black tea."},
                 {"user_id", "alice"},
                 {"agent_id", "bot"},
                 {"metadata", {{"category", "drinks"}}}})
                .status,
            200);
  ApiResponse options = Search({{"query", "tea"},
                                {"user_id", "alice"},
                                {"rerank", true},
                                {"keyword_search", true},
                                {"fields", {"memory", "score"}},
                                {"version", "v2"},
                                {"enable_graph", false}});
  ASSERT_EQ(options.status, 200) << options.body.dump();
  EXPECT_THAT(options.body["results"], SizeIs(2));

  // Newer clients name the identifiers inside filters only, under AND (or a one-element OR).
  ApiResponse in_and = Search(
      {{"query", "tea"},
       {"filters", {{"AND", {{{"user_id", "alice"}}, {{"category", {{"in", {"drinks"}}}}}}}}}});
  ASSERT_EQ(in_and.status, 200) << in_and.body.dump();
  EXPECT_THAT(in_and.body["results"], SizeIs(2));
  ApiResponse in_or = Search({{"query", "tea"}, {"filters", {{"OR", {{{"user_id", "alice"}}}}}}});
  ASSERT_EQ(in_or.status, 200) << in_or.body.dump();
  EXPECT_THAT(in_or.body["results"], SizeIs(2));
  // An identifier in filters narrows the scope the arguments name.
  ApiResponse narrowed =
      Search({{"query", "tea"}, {"user_id", "alice"}, {"filters", {{"agent_id", "bot"}}}});
  ASSERT_EQ(narrowed.status, 200) << narrowed.body.dump();
  EXPECT_EQ(narrowed.body["engram"]["scope"], "user:alice/agent:bot");
  ASSERT_THAT(narrowed.body["results"], SizeIs(1));
  EXPECT_EQ(narrowed.body["results"][0]["memory"], "The bot brews black tea.");
}

TEST_F(Mem0ApiTest, AddReportsAddUpdateAndNoneDeterministically) {
  const nlohmann::json shared = SharedCases("add_event_cases.json");
  ASSERT_TRUE(shared.contains("steps"));
  std::vector<std::vector<std::string>> ids;  // per step, per message
  for (std::size_t step = 0; step < shared["steps"].size(); ++step) {
    const nlohmann::json& given = shared["steps"][step];
    SCOPED_TRACE("step " + std::to_string(step) + ": " + given.dump());
    ids.emplace_back();
    if (given.contains("delete")) {
      const std::string id = ids[given["delete"][0]][given["delete"][1]];
      ASSERT_EQ(OnId(&Mem0Api::DeleteMemory, "DELETE", id).status, 200);
      continue;
    }
    Json body = {{"user_id", "iris"}, {"messages", Json::parse(given["messages"].dump())}};
    if (given.contains("metadata")) body["metadata"] = Json::parse(given["metadata"].dump());
    if (given.contains("infer")) body["infer"] = given["infer"].get<bool>();
    ApiResponse added = Add(body);
    ASSERT_EQ(added.status, 200) << added.body.dump();
    ASSERT_EQ(added.body["results"].size(), given["results"].size()) << added.body.dump();
    for (std::size_t index = 0; index < given["results"].size(); ++index) {
      const nlohmann::json& expected = given["results"][index];
      const Json& result = added.body["results"][index];
      ids.back().push_back(result["id"]);
      EXPECT_EQ(result["event"], expected["event"].get<std::string>()) << result.dump();
      EXPECT_EQ(result["memory"], given["messages"][index]["content"].get<std::string>());
      if (expected.contains("id_of")) {
        EXPECT_EQ(result["id"], ids[expected["id_of"][0]][expected["id_of"][1]]);
        EXPECT_FALSE(result["engram"].contains("sequence"));  // not stored again
      }
      if (expected.contains("previous_memory")) {
        EXPECT_EQ(result["previous_memory"], expected["previous_memory"].get<std::string>());
        ASSERT_TRUE(result["engram"].contains("updates")) << result.dump();
        const Memory previous =
            engine_->Get(result["engram"]["updates"].back().get<std::string>()).value();
        EXPECT_EQ(previous.text, expected["previous_memory"].get<std::string>());
      } else {
        EXPECT_FALSE(result.contains("previous_memory")) << result.dump();
      }
    }
  }
  // A NONE stores nothing: the store holds each stored message once.
  ApiResponse listed = WithQuery(&Mem0Api::ListMemories, "GET", {{"user_id", "iris"}});
  std::size_t added_count = 0;
  for (const nlohmann::json& given : shared["steps"]) {
    if (!given.contains("results")) continue;
    for (const nlohmann::json& expected : given["results"]) {
      if (expected["event"] != "NONE") ++added_count;
    }
  }
  EXPECT_THAT(listed.body["results"], SizeIs(added_count - 1));  // one was deleted
}

}  // namespace
}  // namespace engram::server
