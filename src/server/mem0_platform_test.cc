// mem0's platform routes called directly on a real engine: what MemoryClient of the mem0ai
// packages sends (identifiers inside filters, metadata filters nested under "metadata", pages,
// metadata-only updates, batches, entities) mapped onto the self-hosted routes, the fields
// refused rather than ignored, and CombineRoutes' choice between a native and a mem0 answer.
// The whole client runs against `engram serve` in tests/mem0/node.
#include "server/mem0_platform.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "server/mem0_test_fixture.h"

namespace engram::server {
namespace {

using io::Json;
using mem0_testing::DetailLoc;
using mem0_testing::DetailText;
using mem0_testing::Key;
using mem0_testing::Mem0ApiTest;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::SizeIs;
using ::testing::UnorderedElementsAre;

class Mem0PlatformTest : public Mem0ApiTest {
 protected:
  void SetUp() override {
    Mem0ApiTest::SetUp();
    platform_ = std::make_unique<Mem0PlatformApi>(*engine_, Mem0PlatformOptions{});
  }
  void TearDown() override {
    platform_.reset();
    Mem0ApiTest::TearDown();
  }

  using Handler = ApiResponse (Mem0PlatformApi::*)(const ApiRequest&);
  ApiResponse Call(Handler handler, const std::string& method, const std::string& path,
                   const std::string& body, std::map<std::string, std::string> params = {},
                   std::multimap<std::string, std::string> query = {},
                   const auth::Access* access = nullptr) {
    ApiRequest request = Request(method, path, body, Who(access));
    request.path_params = std::move(params);
    request.query = std::move(query);
    return (platform_.get()->*handler)(request);
  }
  ApiResponse PlatformSearch(const Json& body) {
    return Call(&Mem0PlatformApi::Search, "POST", "/v3/memories/search/", body.dump());
  }
  std::vector<std::string> SearchTexts(const Json& body) {
    ApiResponse response = PlatformSearch(body);
    EXPECT_EQ(response.status, 200) << response.body.dump();
    std::vector<std::string> texts;
    for (const Json& item : response.body["results"]) texts.push_back(item["memory"]);
    return texts;
  }
  ApiResponse PlatformList(const Json& body, std::multimap<std::string, std::string> query = {}) {
    return Call(&Mem0PlatformApi::List, "POST", "/v3/memories/", body.dump(), {}, std::move(query));
  }
  ApiResponse OnMemory(Handler handler, const std::string& method, const std::string& id,
                       const std::string& body = "") {
    return Call(handler, method, "/v1/memories/" + id + "/", body, {{"id", id}});
  }

  std::unique_ptr<Mem0PlatformApi> platform_;
};

TEST_F(Mem0PlatformTest, PingSaysOkWithoutAnOrganisation) {
  ApiResponse pong = Call(&Mem0PlatformApi::Ping, "GET", "/v1/ping/", "");
  EXPECT_EQ(pong.status, 200);
  EXPECT_EQ(pong.body["status"], "ok");
  EXPECT_TRUE(pong.body["org_id"].is_null());
}

TEST_F(Mem0PlatformTest, AddTakesThePlatformsOptionsAndSearchTakesIdentifiersFromFilters) {
  ApiResponse added = Call(&Mem0PlatformApi::Add, "POST", "/v3/memories/add/",
                           Json({{"messages", {{{"role", "user"}, {"content", "I love ramen."}}}},
                                 {"user_id", "alice"},
                                 {"metadata", {{"topic", "food"}}},
                                 {"custom_categories", Json::array()},
                                 {"async_mode", true},
                                 {"app_id", nullptr}})
                               .dump());
  ASSERT_EQ(added.status, 200) << added.body.dump();
  EXPECT_EQ(added.body["results"][0]["event"], "ADD");
  AddOne("alice", "I take the train to Porto.", {{"topic", "travel"}});
  AddOne("bob", "I love ramen too.", {{"topic", "food"}});

  // Alice's memories only, the best first.
  std::vector<std::string> alices =
      SearchTexts({{"query", "ramen"}, {"filters", {{"user_id", "alice"}}}});
  ASSERT_THAT(alices, Not(IsEmpty()));
  EXPECT_EQ(alices[0], "I love ramen.");
  EXPECT_THAT(alices, Not(Contains("I love ramen too.")));
  EXPECT_THAT(SearchTexts({{"query", "ramen"}, {"filters", {{"user_id", "alice"}}}, {"top_k", 1}}),
              ElementsAre("I love ramen."));
  EXPECT_THAT(
      SearchTexts(
          {{"query", "love ramen train"},
           {"filters", {{"AND", {{{"user_id", "alice"}}, {{"metadata", {{"topic", "travel"}}}}}}}},
           {"top_k", 5},
           {"rerank", true},
           {"categories", Json::array()}}),
      ElementsAre("I take the train to Porto."));
  // A top-level metadata object narrows too.
  EXPECT_THAT(SearchTexts({{"query", "love ramen train"},
                           {"filters", {{"user_id", "alice"}}},
                           {"metadata", {{"topic", "food"}}}}),
              ElementsAre("I love ramen."));

  ApiResponse nobody = PlatformSearch({{"query", "ramen"}, {"filters", {{"topic", "food"}}}});
  EXPECT_EQ(nobody.status, 400);
  EXPECT_THAT(DetailText(nobody), HasSubstr("filters must name a user_id"));
}

TEST_F(Mem0PlatformTest, WhatEngramCannotHonourIsRefusedNamingTheField) {
  const Json message = {{{"role", "user"}, {"content", "I love ramen."}}};
  for (const auto& [field, value] :
       std::vector<std::pair<std::string, Json>>{{"app_id", "crm"},
                                                 {"timestamp", 1700000000},
                                                 {"expiration_date", "2030-01-01"},
                                                 {"immutable", true}}) {
    SCOPED_TRACE(field);
    ApiResponse refused =
        Call(&Mem0PlatformApi::Add, "POST", "/v3/memories/add/",
             Json({{"messages", message}, {"user_id", "alice"}, {field, value}}).dump());
    EXPECT_EQ(refused.status, 422);
    EXPECT_EQ(DetailLoc(refused), Json({"body", field}));
  }
  EXPECT_EQ(StoredScopes(), 0u);
  ApiResponse categories = PlatformSearch(
      {{"query", "x"}, {"filters", {{"user_id", "alice"}}}, {"categories", {"food"}}});
  EXPECT_EQ(categories.status, 422);
  EXPECT_THAT(DetailText(categories), HasSubstr("categories"));
  ApiResponse app = PlatformSearch(
      {{"query", "x"}, {"filters", {{"AND", {{{"user_id", "alice"}}, {{"app_id", "crm"}}}}}}});
  EXPECT_EQ(app.status, 400);
  EXPECT_THAT(DetailText(app), HasSubstr("filters.AND[1].app_id"));
  ApiResponse unknown = PlatformSearch({{"query", "x"}, {"filters", {{"user_id", "a"}}}, {"k", 3}});
  EXPECT_EQ(unknown.status, 422);
  EXPECT_EQ(DetailLoc(unknown), Json({"body", "k"}));
}

TEST_F(Mem0PlatformTest, ListPagesTheFilteredMemoriesInTheOrderAdded) {
  for (int index = 1; index <= 5; ++index) {
    AddOne("alice", "Note " + std::to_string(index) + ".", {{"n", index}});
  }
  AddOne("bob", "Bob's note.");
  ApiResponse first = PlatformList({{"filters", {{"user_id", "alice"}}}}, {{"page_size", "2"}});
  ASSERT_EQ(first.status, 200) << first.body.dump();
  EXPECT_EQ(first.body["count"], 5);
  ASSERT_THAT(first.body["results"], SizeIs(2));
  EXPECT_EQ(first.body["results"][0]["memory"], "Note 1.");
  EXPECT_EQ(first.body["next"], "/v3/memories/?page=2&page_size=2");
  EXPECT_TRUE(first.body["previous"].is_null());
  ApiResponse last =
      PlatformList({{"filters", {{"user_id", "alice"}}}}, {{"page", "3"}, {"page_size", "2"}});
  ASSERT_THAT(last.body["results"], SizeIs(1));
  EXPECT_EQ(last.body["results"][0]["memory"], "Note 5.");
  EXPECT_TRUE(last.body["next"].is_null());

  ApiResponse filtered =
      PlatformList({{"filters", {{"AND", {{{"user_id", "alice"}}, {{"n", {{"gte", 4}}}}}}}}});
  std::vector<std::string> texts;
  for (const Json& item : filtered.body["results"]) texts.push_back(item["memory"]);
  EXPECT_THAT(texts, ElementsAre("Note 4.", "Note 5."));
  // start_date / end_date bound when the memories were added (all on 2024-01-01 here).
  EXPECT_EQ(PlatformList({{"filters", {{"user_id", "alice"}}}, {"start_date", "2024-01-02"}})
                .body["count"],
            0);
  EXPECT_EQ(
      PlatformList({{"filters", {{"user_id", "alice"}}}, {"end_date", "2024-01-02"}}).body["count"],
      5);
  EXPECT_EQ(PlatformList(Json::object()).status, 400);
  ApiResponse bad_page = PlatformList({{"filters", {{"user_id", "alice"}}}}, {{"page", "0"}});
  EXPECT_EQ(bad_page.status, 422);
  EXPECT_EQ(DetailLoc(bad_page), Json({"query", "page"}));
}

TEST_F(Mem0PlatformTest, UpdateAnswersTheMemoryAndAMetadataOnlyUpdateKeepsTheText) {
  const std::string id = AddOne("alice", "I live in Berlin.", {{"source", "chat"}});
  ApiResponse moved =
      OnMemory(&Mem0PlatformApi::Update, "PUT", id, Json({{"text", "I live in Munich."}}).dump());
  ASSERT_EQ(moved.status, 200) << moved.body.dump();
  EXPECT_EQ(moved.body["memory"], "I live in Munich.");
  EXPECT_EQ(moved.body["metadata"]["source"], "chat");
  EXPECT_EQ(moved.body["engram"]["superseded_id"], id);

  ApiResponse tagged = OnMemory(&Mem0PlatformApi::Update, "PUT", id,
                                Json({{"metadata", {{"source", "import"}}}}).dump());
  ASSERT_EQ(tagged.status, 200) << tagged.body.dump();
  EXPECT_EQ(tagged.body["memory"], "I live in Munich.");
  EXPECT_EQ(tagged.body["metadata"]["source"], "import");
  ApiResponse got = OnMemory(&Mem0PlatformApi::Get, "GET", id);
  EXPECT_EQ(got.body["memory"], "I live in Munich.");
  EXPECT_EQ(got.body["metadata"]["source"], "import");

  EXPECT_EQ(OnMemory(&Mem0PlatformApi::Update, "PUT", id, "{}").status, 422);
  EXPECT_EQ(OnMemory(&Mem0PlatformApi::Update, "PUT", id,
                     Json({{"text", "x"}, {"expiration_date", "2030-01-01"}}).dump())
                .status,
            422);
  ApiResponse history = OnMemory(&Mem0PlatformApi::History, "GET", id);
  ASSERT_THAT(history.body, SizeIs(3));
  EXPECT_EQ(history.body[2]["event"], "UPDATE");
  EXPECT_EQ(OnMemory(&Mem0PlatformApi::Delete, "DELETE", id).status, 200);
  EXPECT_EQ(OnMemory(&Mem0PlatformApi::Get, "GET", id).status, 404);
}

TEST_F(Mem0PlatformTest, ABatchIsCheckedWholeBeforeAnyEntryIsApplied) {
  const std::string a = AddOne("alice", "Memory A.");
  const std::string b = AddOne("alice", "Memory B.");
  auto batch = [&](const std::string& method, const Json& memories) {
    return Call(method == "PUT" ? &Mem0PlatformApi::BatchUpdate : &Mem0PlatformApi::BatchDelete,
                method, "/v1/batch/", Json({{"memories", memories}}).dump());
  };
  ApiResponse missing = batch("PUT", {{{"memory_id", a}, {"text", "Memory A2."}},
                                      {{"memory_id", std::string(32, '0')}, {"text", "x"}}});
  EXPECT_EQ(missing.status, 404);
  EXPECT_THAT(DetailText(missing), HasSubstr("memories[1]"));
  EXPECT_EQ(OnMemory(&Mem0PlatformApi::Get, "GET", a).body["memory"], "Memory A.");
  ApiResponse twice = batch("DELETE", {{{"memory_id", a}}, {{"memory_id", a}}});
  EXPECT_EQ(twice.status, 400);
  EXPECT_THAT(DetailText(twice), HasSubstr("memories[1] names the same memory as memories[0]"));

  ApiResponse updated = batch("PUT", {{{"memory_id", a}, {"text", "Memory A2."}},
                                      {{"memory_id", b}, {"text", "Memory B2."}}});
  ASSERT_EQ(updated.status, 200) << updated.body.dump();
  EXPECT_EQ(updated.body["message"], "Successfully updated 2 memories");
  EXPECT_EQ(OnMemory(&Mem0PlatformApi::Get, "GET", b).body["memory"], "Memory B2.");
  ApiResponse deleted = batch("DELETE", {{{"memory_id", a}}, {{"memory_id", b}}});
  EXPECT_EQ(deleted.body["message"], "Successfully deleted 2 memories");
  EXPECT_EQ(OnMemory(&Mem0PlatformApi::Get, "GET", a).status, 404);
  EXPECT_EQ(batch("DELETE", Json::array()).status, 422);
}

TEST_F(Mem0PlatformTest, EntitiesCountActiveMemoriesPerIdentifierAndDeleteOneEntity) {
  AddOne("alice", "Alice one.");
  AddOne("alice", "Alice two.");
  ASSERT_EQ(Add({{"messages", "Bot note."}, {"user_id", "alice"}, {"agent_id", "bot"}}).status,
            200);
  AddOne("bob", "Bob one.");
  ApiResponse listed = Call(&Mem0PlatformApi::Entities, "GET", "/v1/entities/", "");
  ASSERT_EQ(listed.status, 200) << listed.body.dump();
  std::map<std::string, int> totals;
  for (const Json& entity : listed.body["results"]) {
    totals[entity["type"].get<std::string>() + ":" + entity["name"].get<std::string>()] =
        entity["total_memories"];
  }
  EXPECT_EQ(totals,
            (std::map<std::string, int>{{"agent:bot", 1}, {"user:alice", 3}, {"user:bob", 1}}));
  EXPECT_EQ(listed.body["count"], 3);

  ApiResponse deleted = Call(&Mem0PlatformApi::DeleteEntity, "DELETE", "/v2/entities/user/alice/",
                             "", {{"entity_type", "user"}, {"entity_id", "alice"}});
  ASSERT_EQ(deleted.status, 200) << deleted.body.dump();
  ApiResponse after = Call(&Mem0PlatformApi::Entities, "GET", "/v1/entities/", "");
  ASSERT_THAT(after.body["results"], SizeIs(1));
  EXPECT_EQ(after.body["results"][0]["id"], "user:bob");
  EXPECT_EQ(Call(&Mem0PlatformApi::DeleteEntity, "DELETE", "/v1/entities/app/x/", "",
                 {{"entity_type", "app"}, {"entity_id", "x"}})
                .status,
            400);

  // A key for bob sees only bob.
  const auth::Access bob = Key("user:bob", "read");
  ApiResponse own = Call(&Mem0PlatformApi::Entities, "GET", "/v1/entities/", "", {}, {}, &bob);
  ASSERT_THAT(own.body["results"], SizeIs(1));
  EXPECT_EQ(own.body["results"][0]["name"], "bob");
}

TEST(Mem0CombineRoutesTest, APathEndingInASlashGetsMem0sAnswerWhereBothHaveTheRoute) {
  auto answer = [](std::string who) {
    return [who](const ApiRequest&) {
      ApiResponse response;
      response.body = who;
      return response;
    };
  };
  RouteList combined = CombineRoutes(
      {{"GET", "/v1/memories/{id}", answer("native")}, {"GET", "/v1/info", answer("info")}},
      {{"GET", "/v1/memories/{id}", answer("mem0")}, {"PUT", "/v1/memories/{id}", answer("put")}});
  ASSERT_THAT(combined, SizeIs(3));
  ApiRequest request;
  request.path = "/v1/memories/abc";
  EXPECT_EQ(combined[0].handler(request).body, "native");
  request.path = "/v1/memories/abc/";
  EXPECT_EQ(combined[0].handler(request).body, "mem0");
  EXPECT_EQ(combined[2].method, "PUT");
}

TEST_F(Mem0PlatformTest, RoutesCoverWhatMemoryClientCalls) {
  std::set<std::string> routes;
  for (const Route& route : platform_->Routes()) routes.insert(route.method + " " + route.pattern);
  for (const char* wanted :
       {"GET /v1/ping", "POST /v3/memories/add", "POST /v3/memories/search", "POST /v3/memories",
        "GET /v1/memories/{id}", "PUT /v1/memories/{id}", "DELETE /v1/memories/{id}",
        "GET /v1/memories/{id}/history", "DELETE /v1/memories", "GET /v1/entities",
        "DELETE /v2/entities/{entity_type}/{entity_id}", "PUT /v1/batch", "DELETE /v1/batch"}) {
    EXPECT_TRUE(routes.contains(wanted)) << wanted;
  }
}

}  // namespace
}  // namespace engram::server
