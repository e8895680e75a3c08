// Every /v1 route end to end over HTTP, each response validated against the OpenAPI document's
// schema for its route and status (a small JSON-Schema subset validator: type, required,
// properties, items, enum, additionalProperties, $ref), plus /healthz, /readyz, /metrics,
// X-Request-Id and the route table's agreement with the document.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "server/openapi.h"
#include "server_fixture.h"

namespace engram::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using Json = nlohmann::json;

// Problems of `value` against `schema` (empty when valid), each with a JSON-pointer-like path.
void Validate(const Json& value, const Json& schema, const Json& root, const std::string& at,
              std::vector<std::string>* problems) {
  if (schema.contains("$ref")) {
    const std::string ref = schema["$ref"].get<std::string>();
    const std::string prefix = "#/components/schemas/";
    if (ref.rfind(prefix, 0) != 0 ||
        !root["components"]["schemas"].contains(ref.substr(prefix.size()))) {
      problems->push_back(at + ": unresolvable $ref " + ref);
      return;
    }
    Validate(value, root["components"]["schemas"][ref.substr(prefix.size())], root, at, problems);
    return;
  }
  if (schema.contains("type")) {
    std::vector<std::string> types;
    if (schema["type"].is_array()) {
      for (const Json& type : schema["type"]) types.push_back(type.get<std::string>());
    } else {
      types.push_back(schema["type"].get<std::string>());
    }
    bool matched = false;
    for (const std::string& type : types) {
      matched = matched || (type == "object" && value.is_object()) ||
                (type == "array" && value.is_array()) || (type == "string" && value.is_string()) ||
                (type == "boolean" && value.is_boolean()) || (type == "null" && value.is_null()) ||
                (type == "integer" && value.is_number_integer()) ||
                (type == "number" && value.is_number());
    }
    if (!matched) {
      problems->push_back(at + ": expected " + schema["type"].dump() + ", got " +
                          value.type_name());
      return;
    }
  }
  if (schema.contains("enum")) {
    bool found = false;
    for (const Json& option : schema["enum"]) found = found || option == value;
    if (!found) problems->push_back(at + ": " + value.dump() + " not in " + schema["enum"].dump());
  }
  if (value.is_object()) {
    if (schema.contains("required")) {
      for (const Json& name : schema["required"]) {
        if (!value.contains(name.get<std::string>())) {
          problems->push_back(at + ": missing required \"" + name.get<std::string>() + "\"");
        }
      }
    }
    for (const auto& [key, field] : value.items()) {
      if (schema.contains("properties") && schema["properties"].contains(key)) {
        Validate(field, schema["properties"][key], root, at + "/" + key, problems);
      } else if (schema.contains("additionalProperties")) {
        const Json& extra = schema["additionalProperties"];
        if (extra.is_boolean() && !extra.get<bool>()) {
          problems->push_back(at + ": unexpected property \"" + key + "\"");
        } else if (extra.is_object()) {
          Validate(field, extra, root, at + "/" + key, problems);
        }
      }
    }
  }
  if (value.is_array() && schema.contains("items")) {
    for (std::size_t i = 0; i < value.size(); ++i) {
      Validate(value[i], schema["items"], root, at + "/" + std::to_string(i), problems);
    }
  }
}

class ServerRoutesTest : public ::testing::Test {
 protected:
  // The OpenAPI document as plain JSON.
  static Json Document() { return Json::parse(server::OpenApiDocument().dump()); }

  // Asserts that `result` matches the document's schema for `pattern`, `method` and its status,
  // and records that the pair was exercised.
  void ExpectConforms(const std::string& method, const std::string& pattern,
                      const HttpResult& result) {
    const Json document = Document();
    std::string lower = method;
    for (char& c : lower) c = static_cast<char>(std::tolower(c));
    ASSERT_TRUE(document["paths"].contains(pattern)) << pattern;
    ASSERT_TRUE(document["paths"][pattern].contains(lower)) << method << " " << pattern;
    const Json& responses = document["paths"][pattern][lower]["responses"];
    const std::string status = std::to_string(result.status);
    ASSERT_TRUE(responses.contains(status))
        << method << " " << pattern << " answered " << status << " (undocumented): " << result.raw;
    const Json& schema = responses[status]["content"]["application/json"]["schema"];
    std::vector<std::string> problems;
    Validate(result.body, schema, document, "", &problems);
    EXPECT_TRUE(problems.empty()) << method << " " << pattern << " " << status << ": "
                                  << ::testing::PrintToString(problems) << "\n"
                                  << result.raw.substr(0, 2000);
    if (result.status < 300) exercised_.insert(method + " " + pattern);
  }

  HttpResult Check(const std::string& method, const std::string& pattern, const std::string& path,
                   const std::string& body, int expected_status) {
    HttpResult result = server_.Call(method, path, body);
    EXPECT_EQ(result.status, expected_status) << method << " " << path << ": " << result.raw;
    ExpectConforms(method, pattern, result);
    return result;
  }

  std::vector<std::string> Remember(const std::string& scope, const std::string& turns_json) {
    HttpResult result =
        Check("POST", "/v1/scopes/{scope}/memories", "/v1/scopes/" + scope + "/memories",
              R"({"turns": )" + turns_json + "}", 201);
    std::vector<std::string> ids;
    for (const Json& id : result.body["ids"]) ids.push_back(id.get<std::string>());
    return ids;
  }

  // A keyless server started with --allow-admin, so that the admin routes can be exercised.
  static TestServerOptions AdminOptions() {
    TestServerOptions options;
    options.allow_admin = true;
    options.config.graph.edge_types = "owns:single_valued";  // for POST /v1/scopes/{scope}/edges
    return options;
  }

  // The world graph's routes, exercised by GraphRoutesAnswerWhatTheDocumentSays.
  static bool IsGraphRoute(const std::string& method_and_path) {
    static const std::set<std::string> routes = {
        "GET /v1/memories/{id}/neighbours", "GET /v1/memories/{id}/paths",
        "GET /v1/memories/{id}/identity",   "GET /v1/edge-types",
        "POST /v1/scopes/{scope}/edges",    "GET /v1/edges/{id}",
        "POST /v1/edges/{id}/retire"};
    return routes.contains(method_and_path);
  }

  TestServer server_{AdminOptions()};
  std::set<std::string> exercised_;
};

// The request schema of recall describes the as-of times: ISO-8601 strings or null.
TEST(ServerSchemaValidatorTest, RecallRequestDescribesTheAsOfTimes) {
  const Json document = Json::parse(server::OpenApiDocument().dump());
  const Json recall_ref = {{"$ref", "#/components/schemas/RecallRequest"}};
  std::vector<std::string> problems;
  Validate(Json{{"query", "q"}, {"valid_at", "2024-04-01T00:00:00Z"}, {"known_at", nullptr}},
           recall_ref, document, "", &problems);
  EXPECT_TRUE(problems.empty()) << ::testing::PrintToString(problems);
  Validate(Json{{"query", "q"}, {"valid_at", 20240401}, {"known_at", true}}, recall_ref, document,
           "", &problems);
  EXPECT_EQ(problems.size(), 2u) << ::testing::PrintToString(problems);
}

// The validator itself: it must reject what does not fit, or the conformance checks prove nothing.
TEST(ServerSchemaValidatorTest, RejectsWrongShapes) {
  const Json document = Json::parse(server::OpenApiDocument().dump());
  const Json memory_ref = {{"$ref", "#/components/schemas/Memory"}};
  std::vector<std::string> problems;
  Validate(Json::object(), memory_ref, document, "", &problems);
  EXPECT_FALSE(problems.empty());  // required fields missing
  problems.clear();
  const Json error = {{"error", {{"code", "X"}, {"message", "m"}, {"request_id", "r"}}}};
  Validate(error, {{"$ref", "#/components/schemas/Error"}}, document, "", &problems);
  EXPECT_TRUE(problems.empty()) << ::testing::PrintToString(problems);
  Json extra = error;
  extra["error"]["hint"] = "unexpected";
  Validate(extra, {{"$ref", "#/components/schemas/Error"}}, document, "", &problems);
  EXPECT_EQ(problems.size(), 1u);
  problems.clear();
  Validate(Json{{"id", "x"}, {"status", "maybe"}}, {{"$ref", "#/components/schemas/Decision"}},
           document, "", &problems);
  EXPECT_EQ(problems.size(), 1u);  // "maybe" is not in the enum
  problems.clear();
  Validate(Json{{"count", "1"}, {"scopes", Json::array()}},
           {{"$ref", "#/components/schemas/ScopeList"}}, document, "", &problems);
  EXPECT_EQ(problems.size(), 1u);  // count is a string
}

TEST_F(ServerRoutesTest, EveryDocumentedRouteIsServedAndEveryRouteIsDocumented) {
  const Json document = Document();
  std::set<std::string> documented;
  for (const auto& [path, operations] : document["paths"].items()) {
    for (const auto& [method, operation] : operations.items()) {
      std::string upper = method;
      for (char& c : upper) c = static_cast<char>(std::toupper(c));
      documented.insert(upper + " " + path);
    }
  }
  std::set<std::string> served;
  for (const server::Route& route : server::V1Api(server_.engine()).Routes()) {
    served.insert(route.method + " " + route.pattern);
  }
  EXPECT_EQ(documented, served);
}

TEST_F(ServerRoutesTest, EveryRouteAnswersWhatTheDocumentSays) {
  const std::string scope = "app:crm/user:alice";
  const std::vector<std::string> ids = Remember(
      scope,
      R"([{"text": "My sister Maya lives in Porto.", "speaker": "Alice", "session_id": "s1",
           "event_time": "2023-05-08T13:56:00Z", "metadata": {"source": "chat"}},
          {"text": "I moved to Lisbon last month.", "speaker": "Alice", "role": "user"},
          {"text": "Maya works at Acme Corp as an engineer.", "speaker": "Alice"}])");
  ASSERT_EQ(ids.size(), 3u);
  const std::vector<std::string> bob =
      Remember("app:crm/user:bob", R"([{"text": "Bob likes tea."}])");

  // Recall, with and without explanations.
  HttpResult recall = Check("POST", "/v1/scopes/{scope}/recall", "/v1/scopes/" + scope + "/recall",
                            R"({"query": "Where does Maya live?", "k": 2})", 200);
  // Without explain the diagnostics are only their warnings (none: the vectors are installed).
  EXPECT_EQ(recall.body["diagnostics"], Json({{"warnings", Json::array()}}));
  ASSERT_FALSE(recall.body["items"].empty());
  EXPECT_FALSE(recall.body["items"][0].contains("routes"));
  HttpResult explained =
      Check("POST", "/v1/scopes/{scope}/recall", "/v1/scopes/app:crm%2Fuser:alice/recall",
            R"({"query": "Where does Maya live?", "k": 3, "token_budget": 500, "routes": ["bm25"],
          "route_weights": {"bm25": 1.0}, "use_planner": false, "include_retired": false,
          "include_nested": true, "policy": "strict", "query_time": "2024-01-01T00:00:00Z",
          "explain": true})",
            200);
  EXPECT_TRUE(explained.body.contains("diagnostics"));
  EXPECT_EQ(explained.body["policy"], "strict");
  ASSERT_FALSE(explained.body["items"].empty());
  EXPECT_TRUE(explained.body["items"][0].contains("routes"));
  EXPECT_THAT(explained.body["context"].get<std::string>(), HasSubstr("Porto"));
  // As of a time: before the Porto turn was said nothing was valid; before anything was
  // ingested nothing was known. The explanation counts what each filter hid.
  HttpResult before_said =
      Check("POST", "/v1/scopes/{scope}/recall", "/v1/scopes/" + scope + "/recall",
            R"({"query": "Where does Maya live?", "routes": ["bm25"],
                "valid_at": "2023-01-01T00:00:00Z", "explain": true})",
            200);
  EXPECT_THAT(before_said.body["context"].get<std::string>(), Not(HasSubstr("Porto")));
  EXPECT_GE(before_said.body["diagnostics"]["filtered_by"]["valid_at"].get<int>(), 1);
  HttpResult before_ingest =
      Check("POST", "/v1/scopes/{scope}/recall", "/v1/scopes/" + scope + "/recall",
            R"({"query": "Where does Maya live?", "known_at": "2001-01-01T00:00:00Z",
                "valid_at": null, "explain": true})",
            200);
  EXPECT_TRUE(before_ingest.body["items"].empty());
  EXPECT_GE(before_ingest.body["diagnostics"]["filtered_by"]["known_at"].get<int>(), 1);

  // A run's context: the recalled memory of alice's scope, then the run's window.
  Remember(scope + "/run:r1", R"([{"text": "Do not book flights before 9am.", "speaker": "Alice"},
                                  {"text": "ok thanks", "speaker": "Alice"}])");
  HttpResult context = Check("POST", "/v1/scopes/{scope}/context",
                             "/v1/scopes/" + scope + "%2Frun:r1/context",
                             R"({"query": "Where does Maya live?", "token_budget": 800})", 200);
  EXPECT_EQ(context.body["recalled_from"], scope);
  ASSERT_EQ(context.body["window"].size(), 2u);
  EXPECT_EQ(context.body["window"][0]["reason"], "within_budget");
  EXPECT_THAT(context.body["context"].get<std::string>(), HasSubstr("Porto"));
  EXPECT_LE(context.body["context_tokens"].get<int>(), 800);
  const HttpResult not_run = Check("POST", "/v1/scopes/{scope}/context",
                                   "/v1/scopes/" + scope + "/context", R"({"query": "x"})", 400);
  EXPECT_THAT(not_run.body["error"]["message"].get<std::string>(), HasSubstr("run scope"));
  Check("POST", "/v1/scopes/{scope}/context", "/v1/scopes/" + scope + "%2Frun:none/context",
        R"({"query": "x"})", 404);

  // Listing with paging: two pages of two and one.
  HttpResult page1 = Check("GET", "/v1/scopes/{scope}/memories",
                           "/v1/scopes/" + scope + "/memories?limit=2", "", 200);
  ASSERT_EQ(page1.body["count"], 2);
  ASSERT_TRUE(page1.body["next_after"].is_number_integer());
  HttpResult page2 =
      Check("GET", "/v1/scopes/{scope}/memories",
            "/v1/scopes/" + scope + "/memories?limit=2&after=" + page1.body["next_after"].dump(),
            "", 200);
  ASSERT_EQ(page2.body["count"], 1);
  EXPECT_EQ(page2.body["memories"][0]["id"], ids[2]);
  EXPECT_TRUE(page2.body["next_after"].is_null());
  Check("GET", "/v1/scopes/{scope}/memories", "/v1/scopes/" + scope + "/memories?kind=all", "",
        200);
  HttpResult timeline = Check("GET", "/v1/scopes/{scope}/timeline",
                              "/v1/scopes/" + scope + "/timeline?speaker=alice&limit=2", "", 200);
  ASSERT_EQ(timeline.body["count"], 2);
  EXPECT_EQ(timeline.body["memories"][1]["id"], ids[1]);

  HttpResult memory = Check("GET", "/v1/memories/{id}", "/v1/memories/" + ids[0], "", 200);
  EXPECT_EQ(memory.body["text"], "My sister Maya lives in Porto.");
  EXPECT_EQ(memory.body["scope"], scope);
  EXPECT_EQ(memory.body["metadata"]["source"], "chat");
  Check("GET", "/v1/memories/{id}/history", "/v1/memories/" + ids[0] + "/history", "", 200);
  HttpResult links =
      Check("GET", "/v1/memories/{id}/links", "/v1/memories/" + ids[0] + "/links", "", 200);
  EXPECT_EQ(links.body["id"], ids[0]);

  HttpResult scopes = Check("GET", "/v1/scopes", "/v1/scopes", "", 200);
  std::set<std::string> names;
  for (const Json& info : scopes.body["scopes"]) names.insert(info["scope"].get<std::string>());
  EXPECT_TRUE(names.count(scope));
  EXPECT_TRUE(names.count("app:crm/user:bob"));
  Check("GET", "/v1/scopes/{scope}/facts", "/v1/scopes/" + scope + "/facts?all=true", "", 200);
  // Facts as of a time: before the Porto turn was said none was valid; a month after, the Porto
  // fact (and not the Lisbon one, said now); nothing was recorded before the test ran.
  HttpResult none_valid =
      Check("GET", "/v1/scopes/{scope}/facts",
            "/v1/scopes/" + scope + "/facts?valid_at=2023-01-01T00:00:00Z", "", 200);
  EXPECT_EQ(none_valid.body["count"], 0);
  EXPECT_EQ(none_valid.body["valid_at"], "2023-01-01T00:00:00Z");
  HttpResult in_june = Check("GET", "/v1/scopes/{scope}/facts",
                             "/v1/scopes/" + scope + "/facts?valid_at=2023-06-08T00:00:00Z", "", 200);
  ASSERT_GE(in_june.body["count"].get<int>(), 1) << in_june.body.dump(2);
  for (const Json& fact : in_june.body["facts"]) {
    EXPECT_EQ(fact["provenance"], Json::array({ids[0]})) << fact.dump();
  }
  HttpResult known_before = Check("GET", "/v1/scopes/{scope}/facts",
                                  "/v1/scopes/" + scope + "/facts?known_at=2000-01-01T00:00:00Z",
                                  "", 200);
  EXPECT_EQ(known_before.body["count"], 0);
  HttpResult bad_time = Check("GET", "/v1/scopes/{scope}/facts",
                              "/v1/scopes/" + scope + "/facts?valid_at=yesterday", "", 400);
  EXPECT_THAT(bad_time.body["error"]["message"].get<std::string>(), HasSubstr("valid_at"));
  Check("GET", "/v1/scopes/{scope}/entities", "/v1/scopes/" + scope + "/entities", "", 200);

  // Consolidation and what it stored.
  HttpResult consolidated = Check("POST", "/v1/scopes/{scope}/consolidate",
                                  "/v1/scopes/" + scope + "/consolidate", "", 200);
  EXPECT_EQ(consolidated.body["turns"], 3);
  EXPECT_GE(consolidated.body["episodes"].get<int>(), 1);
  HttpResult episodes =
      Check("GET", "/v1/scopes/{scope}/episodes", "/v1/scopes/" + scope + "/episodes", "", 200);
  ASSERT_EQ(episodes.body["count"], consolidated.body["episodes"]);
  EXPECT_EQ(episodes.body["episodes"][0]["turns"][0], ids[0]);
  HttpResult scenes = Check("GET", "/v1/scopes/{scope}/scenes",
                            "/v1/scopes/" + scope + "/scenes?all=true", "", 200);
  EXPECT_EQ(scenes.body["count"], consolidated.body["scenes"]);
  Check("GET", "/v1/scopes/{scope}/profile", "/v1/scopes/" + scope + "/profile", "", 200);
  HttpResult foresight =
      Check("GET", "/v1/scopes/{scope}/foresight",
            "/v1/scopes/" + scope + "/foresight?at=2024-01-01T00:00:00Z&all=true", "", 200);
  EXPECT_EQ(foresight.body["at"], "2024-01-01T00:00:00Z");
  // A chat-mode recall: the profile lines (Alice lives in Lisbon, said in turn 2) before the
  // evidence, each with its evidence turn ids.
  HttpResult chat = Check("POST", "/v1/scopes/{scope}/recall", "/v1/scopes/" + scope + "/recall",
                          R"({"query": "Where do I live?", "mode": "chat", "explain": true})", 200);
  EXPECT_EQ(chat.body["mode"], "chat");
  bool lisbon = false;
  for (const Json& line : chat.body["chat"]) {
    EXPECT_FALSE(line["evidence"].empty()) << line.dump();
    if (line["text"].get<std::string>().find("Lisbon") != std::string::npos) {
      lisbon = true;
      EXPECT_EQ(line["evidence"], Json::array({ids[1]}));
    }
  }
  EXPECT_TRUE(lisbon) << chat.body.dump(2);
  EXPECT_FALSE(chat.body["diagnostics"]["chat"].get<std::string>().empty());
  // Rank packing on request: at most k items, nothing left out by the value floor.
  HttpResult by_rank =
      Check("POST", "/v1/scopes/{scope}/recall", "/v1/scopes/" + scope + "/recall",
            R"({"query": "Where do I live?", "packing": "rank", "k": 1, "explain": true})", 200);
  EXPECT_EQ(by_rank.body["items"].size(), 1u);
  ASSERT_TRUE(by_rank.body["diagnostics"]["unpacked"].is_array()) << by_rank.body.dump(2);
  for (const Json& left : by_rank.body["diagnostics"]["unpacked"]) {
    EXPECT_NE(left["reason"], "floor") << left.dump();
  }
  // Idempotent: a second run writes nothing.
  HttpResult again_consolidated = Check("POST", "/v1/scopes/{scope}/consolidate",
                                        "/v1/scopes/" + scope + "/consolidate", "{}", 200);
  EXPECT_EQ(again_consolidated.body["written"], 0);

  // Merge proposals: propose, list, reject; propose again, accept.
  HttpResult proposed =
      Check("POST", "/v1/proposals", "/v1/proposals",
            R"({"a": ")" + ids[0] + R"(", "b": ")" + ids[2] + R"(", "reason": "test"})", 201);
  const std::string proposal_id = proposed.body["id"].get<std::string>();
  HttpResult proposals =
      Check("GET", "/v1/scopes/{scope}/proposals", "/v1/scopes/" + scope + "/proposals", "", 200);
  ASSERT_EQ(proposals.body["count"], 1);
  EXPECT_EQ(proposals.body["proposals"][0]["id"], proposal_id);
  HttpResult rejected = Check("POST", "/v1/proposals/{id}/reject",
                              "/v1/proposals/" + proposal_id + "/reject", "", 200);
  EXPECT_EQ(rejected.body["status"], "rejected");
  HttpResult again = Check("POST", "/v1/proposals", "/v1/proposals",
                           R"({"a": ")" + ids[1] + R"(", "b": ")" + ids[2] + R"("})", 201);
  HttpResult accepted =
      Check("POST", "/v1/proposals/{id}/accept",
            "/v1/proposals/" + again.body["id"].get<std::string>() + "/accept", "{}", 200);
  EXPECT_EQ(accepted.body["status"], "accepted");

  // Retire, retire-all, rebuild, info, erase (amend has its own test).
  HttpResult retired =
      Check("POST", "/v1/memories/{id}/retire", "/v1/memories/" + ids[0] + "/retire",
            R"({"reason": "moved away"})", 200);
  EXPECT_EQ(retired.body["status"], "retired");
  HttpResult twice =
      Check("POST", "/v1/memories/{id}/retire", "/v1/memories/" + ids[0] + "/retire", "", 409);
  HttpResult all = Check("POST", "/v1/scopes/{scope}/retire-all",
                         "/v1/scopes/app:crm/user:bob/retire-all", "", 200);
  EXPECT_EQ(all.body["retired"].get<int>() >= 1, true);
  HttpResult rebuilt = Check("POST", "/v1/admin/rebuild-index", "/v1/admin/rebuild-index", "", 200);
  EXPECT_EQ(rebuilt.body["matched_live_index"], true);
  HttpResult info = Check("GET", "/v1/info", "/v1/info", "", 200);
  EXPECT_EQ(info.body["embedder"], "hashing-256");
  Check("GET", "/v1/openapi.json", "/v1/openapi.json", "", 200);

  HttpResult refused = Check("DELETE", "/v1/scopes/{scope}", "/v1/scopes/app:crm/user:bob",
                             R"({"confirm": "app:crm/user:alice"})", 400);
  EXPECT_THAT(refused.raw, HasSubstr("confirm"));
  HttpResult erased = Check("DELETE", "/v1/scopes/{scope}", "/v1/scopes/app:crm/user:bob",
                            R"({"confirm": "app:crm/user:bob"})", 200);
  EXPECT_GE(erased.body["nodes"].get<int>(), 1);
  HttpResult gone = Check("GET", "/v1/memories/{id}", "/v1/memories/" + bob[0], "", 404);
  EXPECT_THAT(gone.raw, HasSubstr("not found"));

  // Every documented route was exercised with a success (amend in AmendSupersedesTheTurn).
  const Json document = Document();
  for (const auto& [path, operations] : document["paths"].items()) {
    for (const auto& [method, operation] : operations.items()) {
      std::string upper = method;
      for (char& c : upper) c = static_cast<char>(std::toupper(c));
      if (upper + " " + path == "POST /v1/memories/{id}/amend") continue;
      if (IsGraphRoute(upper + " " + path)) continue;
      EXPECT_TRUE(exercised_.count(upper + " " + path))
          << "not exercised: " << upper << " " << path;
    }
  }
}

TEST_F(ServerRoutesTest, GraphRoutesAnswerWhatTheDocumentSays) {
  const std::string scope = "user:mia";
  const std::vector<std::string> ids =
      Remember(scope,
               R"([{"text": "My sister Lena lives in Porto.", "speaker": "Mia"},
          {"text": "Lena and Tom went hiking.", "speaker": "Mia"},
          {"text": "The blue car needs new tyres.", "speaker": "Mia"}])");
  ASSERT_EQ(ids.size(), 3u);
  ASSERT_TRUE(server_.engine().WaitForDerivation().ok());  // the entities come with derivation
  HttpResult entities = server_.Call("GET", "/v1/scopes/" + scope + "/entities");
  std::string lena;
  for (const Json& entity : entities.body["entities"]) {
    if (entity["name"] == "Lena") lena = entity["id"];
  }
  ASSERT_FALSE(lena.empty()) << entities.raw;

  HttpResult neighbours =
      Check("GET", "/v1/memories/{id}/neighbours",
            "/v1/memories/" + lena + "/neighbours?types=mentions&direction=in&limit=10", "", 200);
  EXPECT_EQ(neighbours.body["count"], 2);
  HttpResult paths = Check("GET", "/v1/memories/{id}/paths",
                           "/v1/memories/" + ids[0] + "/paths?to=" + ids[1] +
                               "&types=mentions&max_depth=2&valid_at=2030-01-01T00:00:00Z",
                           "", 200);
  bool through_lena = false;
  for (const Json& path : paths.body["paths"]) {
    through_lena |= path["nodes"] == Json::array({ids[0], lena, ids[1]});
  }
  EXPECT_TRUE(through_lena) << paths.raw;
  HttpResult identity =
      Check("GET", "/v1/memories/{id}/identity", "/v1/memories/" + lena + "/identity", "", 200);
  EXPECT_EQ(identity.body["members"][0]["id"], lena);
  HttpResult types = Check("GET", "/v1/edge-types", "/v1/edge-types", "", 200);
  EXPECT_NE(types.raw.find("\"owns\""), std::string::npos);

  HttpResult added = Check("POST", "/v1/scopes/{scope}/edges", "/v1/scopes/" + scope + "/edges",
                           R"({"type": "owns", "src": ")" + lena + R"(", "dst": ")" + ids[2] +
                               R"(", "attrs": {"note": "hers"}})",
                           201);
  const std::string edge = added.body["id"].get<std::string>();
  EXPECT_EQ(added.body["attrs"]["note"], "hers");
  Check("GET", "/v1/edges/{id}", "/v1/edges/" + edge, "", 200);
  Check("POST", "/v1/scopes/{scope}/edges", "/v1/scopes/" + scope + "/edges",
        R"({"type": "owns", "src": ")" + lena + R"(", "dst": ")" + ids[2] + R"("})", 409);
  HttpResult retired =
      Check("POST", "/v1/edges/{id}/retire", "/v1/edges/" + edge + "/retire", "", 200);
  EXPECT_EQ(retired.body["status"], "retired");
  Check("POST", "/v1/edges/{id}/retire", "/v1/edges/" + edge + "/retire", "", 409);

  // Bad input is 400 naming the problem.
  Check("GET", "/v1/memories/{id}/neighbours", "/v1/memories/" + lena + "/neighbours?types=nope",
        "", 400);
  Check("GET", "/v1/memories/{id}/neighbours", "/v1/memories/" + lena + "/neighbours?limit=5000",
        "", 400);
  HttpResult deep =
      Check("GET", "/v1/memories/{id}/paths",
            "/v1/memories/" + ids[0] + "/paths?to=" + ids[1] + "&max_depth=9", "", 400);
  EXPECT_THAT(deep.raw, HasSubstr("max_depth"));
  Check("GET", "/v1/memories/{id}/paths", "/v1/memories/" + ids[0] + "/paths", "", 400);
  Check("GET", "/v1/memories/{id}/identity", "/v1/memories/" + ids[0] + "/identity", "", 400);
  Check("GET", "/v1/memories/{id}/neighbours", "/v1/memories/xyz/neighbours", "", 400);
  Check("POST", "/v1/scopes/{scope}/edges", "/v1/scopes/" + scope + "/edges",
        R"({"type": "mentions", "src": ")" + ids[2] + R"(", "dst": ")" + lena + R"("})", 400);
  Check("POST", "/v1/scopes/{scope}/edges", "/v1/scopes/" + scope + "/edges",
        R"({"type": "owns", "src": ")" + lena + R"(", "dst": ")" + ids[1] + R"(", "colour": 1})",
        400);
  Check("GET", "/v1/edges/{id}", "/v1/edges/" + std::string(32, 'c'), "", 404);

  const Json document = Document();
  for (const auto& [path, operations] : document["paths"].items()) {
    for (const auto& [method, operation] : operations.items()) {
      std::string upper = method;
      for (char& c : upper) c = static_cast<char>(std::toupper(c));
      if (!IsGraphRoute(upper + " " + path)) continue;
      EXPECT_TRUE(exercised_.count(upper + " " + path))
          << "not exercised: " << upper << " " << path;
    }
  }
}

TEST_F(ServerRoutesTest, TimelineFiltersBySpeakerAndTimeAndPagesInBoundedSteps) {
  const std::string scope = "user:tia";
  std::string turns = "[";
  for (int day = 1; day <= 9; ++day) {
    turns += std::string(day == 1 ? "" : ",") + R"({"text": "Day )" + std::to_string(day) +
             R"( note.", "speaker": ")" + (day % 3 == 0 ? "Bo" : "Tia") +
             R"(", "event_time": "2024-03-0)" + std::to_string(day) + R"(T10:00:00Z"})";
  }
  const std::vector<std::string> ids = Remember(scope, turns + "]");
  ASSERT_EQ(ids.size(), 9u);
  auto texts = [](const HttpResult& page) {
    std::vector<std::string> out;
    for (const Json& memory : page.body["memories"]) out.push_back(memory["text"]);
    return out;
  };
  const std::string base = "/v1/scopes/" + scope + "/timeline";
  HttpResult bo = Check("GET", "/v1/scopes/{scope}/timeline", base + "?speaker=BO", "", 200);
  EXPECT_THAT(texts(bo), ElementsAre("Day 3 note.", "Day 6 note.", "Day 9 note."));
  EXPECT_TRUE(bo.body["next_after"].is_null());
  HttpResult window = Check("GET", "/v1/scopes/{scope}/timeline",
                            base + "?since=2024-03-04&until=2024-03-06T10:00:00Z", "", 200);
  EXPECT_THAT(texts(window), ElementsAre("Day 4 note.", "Day 5 note."));

  // A page of two Tia turns, then the rest from its next_after.
  HttpResult first =
      Check("GET", "/v1/scopes/{scope}/timeline", base + "?speaker=Tia&limit=2", "", 200);
  EXPECT_THAT(texts(first), ElementsAre("Day 1 note.", "Day 2 note."));
  ASSERT_TRUE(first.body["next_after"].is_number_integer());
  HttpResult rest = Check("GET", "/v1/scopes/{scope}/timeline",
                          base + "?speaker=Tia&after=" + first.body["next_after"].dump(), "", 200);
  EXPECT_THAT(texts(rest), ElementsAre("Day 4 note.", "Day 5 note.", "Day 7 note.", "Day 8 note."));

  Check("GET", "/v1/scopes/{scope}/timeline", base + "?since=yesterday", "", 400);
  Check("GET", "/v1/scopes/{scope}/timeline", base + "?limit=0", "", 400);
  Check("GET", "/v1/scopes/{scope}/timeline", base + "?colour=red", "", 400);
}

// Word vectors the config asks for but that are not installed: the recall still answers, and its
// diagnostics' warnings say so with or without explain, as the document describes.
TEST(ServerRecallTest, WarnsWhenTheWordVectorsAreMissing) {
  const TempDir no_data;
  Config config = TestConfig();  // no write-path analysis: it needs the lexicons
  config.write.facts = false;
  config.write.signals = false;
  config.write.entities = false;
  TestServer server(TestServerOptions{.config = config, .data_dir = no_data.path()});
  ASSERT_EQ(server
                .Call("POST", "/v1/scopes/user:zed/memories",
                      R"({"turns": [{"text": "My dog Rex chewed the sofa."}]})")
                .status,
            201);
  const Json document = Json::parse(server::OpenApiDocument().dump());
  for (const bool explain : {false, true}) {
    const HttpResult recall =
        server.Call("POST", "/v1/scopes/user:zed/recall",
                    std::string(R"({"query": "Which dog chewed the sofa?", "explain": )") +
                        (explain ? "true" : "false") + "}");
    ASSERT_EQ(recall.status, 200) << recall.raw;
    ASSERT_FALSE(recall.body["items"].empty());
    const Json& warnings = recall.body["diagnostics"]["warnings"];
    ASSERT_EQ(warnings.size(), 1u) << recall.raw;
    EXPECT_THAT(warnings[0].get<std::string>(), HasSubstr("word-vector matches off: "));
    EXPECT_THAT(warnings[0].get<std::string>(), HasSubstr("scripts/fetch-models"));
    EXPECT_EQ(recall.body["diagnostics"].contains("plan"), explain);
    std::vector<std::string> problems;
    Validate(recall.body, {{"$ref", "#/components/schemas/RecallResult"}}, document, "",
             &problems);
    EXPECT_TRUE(problems.empty()) << ::testing::PrintToString(problems);
  }
}

TEST(ServerTimelineTest, APageExaminesAtMostTheScanLimitAndSaysWhereToContinue) {
  server::ApiLimits limits;
  limits.max_timeline_scan = 3;
  TestServer server(TestServerOptions{.limits = limits});
  std::string turns = "[";
  for (int i = 1; i <= 7; ++i) {
    turns += std::string(i == 1 ? "" : ",") + R"({"text": "Turn )" + std::to_string(i) +
             R"(.", "speaker": ")" + (i == 7 ? "Rare" : "Common") + R"("})";
  }
  ASSERT_EQ(
      server.Call("POST", "/v1/scopes/user:zed/memories", R"({"turns": )" + turns + "]}").status,
      201);
  // "Rare" is only the 7th turn: three pages of at most three examined memories find it.
  std::vector<std::size_t> scanned;
  std::string after = "0";
  std::vector<std::string> found;
  for (int page = 0; page < 5 && !after.empty(); ++page) {
    HttpResult result =
        server.Call("GET", "/v1/scopes/user:zed/timeline?speaker=rare&after=" + after, "");
    ASSERT_EQ(result.status, 200) << result.raw;
    scanned.push_back(result.body["scanned"].get<std::size_t>());
    for (const Json& memory : result.body["memories"]) found.push_back(memory["text"]);
    after = result.body["next_after"].is_null() ? "" : result.body["next_after"].dump();
  }
  EXPECT_THAT(scanned, ElementsAre(3u, 3u, 1u));
  EXPECT_THAT(found, ElementsAre("Turn 7."));
}

TEST_F(ServerRoutesTest, AmendSupersedesTheTurn) {
  const std::vector<std::string> ids =
      Remember("user:amy", R"([{"text": "I moved to Lisbon last month.", "speaker": "Amy"}])");
  HttpResult amended =
      server_.Call("POST", "/v1/memories/" + ids[0] + "/amend",
                   R"({"text": "I moved to Braga last month.", "reason": "typo"})");
  EXPECT_EQ(amended.status, 201) << amended.raw;
  ExpectConforms("POST", "/v1/memories/{id}/amend", amended);
  EXPECT_EQ(amended.body["superseded_id"], ids[0]);
  HttpResult old_turn = server_.Call("GET", "/v1/memories/" + ids[0]);
  EXPECT_EQ(old_turn.body["status"], "superseded");
  HttpResult new_turn =
      server_.Call("GET", "/v1/memories/" + amended.body["id"].get<std::string>());
  EXPECT_EQ(new_turn.body["text"], "I moved to Braga last month.");
  EXPECT_EQ(new_turn.body["speaker"], "Amy");
  HttpResult unknown_field =
      server_.Call("POST", "/v1/memories/" + ids[0] + "/amend", R"({"text": "x", "why": "typo"})");
  EXPECT_EQ(unknown_field.status, 400);
  EXPECT_THAT(unknown_field.body["error"]["message"].get<std::string>(),
              HasSubstr("unknown field \"why\""));
}

TEST_F(ServerRoutesTest, ARecallAboutThePresentMarksTheSupersededTurn) {
  const HttpResult stored = server_.Call(
      "POST", "/v1/scopes/user:iris/memories?wait=derived",
      R"({"turns": [{"text": "I live in Berlin, I moved here in March.", "speaker": "Iris",
                     "session_id": "s1", "event_time": "2024-03-10T10:00:00Z"},
                    {"text": "Big news: I moved to Munich, I live in Munich now.",
                     "speaker": "Iris", "session_id": "s2",
                     "event_time": "2024-06-15T10:00:00Z"}]})");
  ASSERT_EQ(stored.status, 201) << stored.raw;
  const HttpResult now =
      Check("POST", "/v1/scopes/{scope}/recall", "/v1/scopes/user:iris/recall",
            R"({"query": "Where does Iris live?", "query_time": "2024-09-01T00:00:00Z"})", 200);
  ASSERT_GE(now.body["items"].size(), 2u) << now.raw;
  EXPECT_THAT(now.body["items"][0]["text"].get<std::string>(), HasSubstr("Munich"));
  EXPECT_TRUE(now.body["items"][0]["superseded_by"].is_null());
  const Json& berlin = now.body["items"][1];
  EXPECT_THAT(berlin["text"].get<std::string>(), HasSubstr("Berlin"));
  EXPECT_EQ(berlin["superseded_by"]["text"], "Big news: I moved to Munich, I live in Munich now.");
  EXPECT_EQ(berlin["superseded_by"]["time"], "2024-06-15T10:00:00Z");
  EXPECT_EQ(berlin["superseded_by"]["evidence"], Json::array({now.body["items"][0]["id"]}));
  EXPECT_THAT(now.body["context"].get<std::string>(), HasSubstr("(superseded 2024-06-15: "));
  EXPECT_EQ(now.body["sufficiency"]["verdict"], "sufficient") << now.raw;
  // As of April, Berlin is current: nothing is marked and nothing speaks of Munich.
  const HttpResult april = Check(
      "POST", "/v1/scopes/{scope}/recall", "/v1/scopes/user:iris/recall",
      R"({"query": "Where does Iris live?", "valid_at": "2024-04-01T00:00:00Z"})", 200);
  ASSERT_FALSE(april.body["items"].empty()) << april.raw;
  EXPECT_THAT(april.body["items"][0]["text"].get<std::string>(), HasSubstr("Berlin"));
  for (const Json& item : april.body["items"]) {
    EXPECT_TRUE(item["superseded_by"].is_null()) << item.dump();
    EXPECT_THAT(item["text"].get<std::string>(), Not(HasSubstr("Munich")));
  }
}

TEST_F(ServerRoutesTest, UnknownScopeAndMemoryAreNotFound) {
  HttpResult recall = Check("POST", "/v1/scopes/{scope}/recall", "/v1/scopes/user:nobody/recall",
                            R"({"query": "anything"})", 404);
  EXPECT_EQ(recall.body["error"]["code"], "NOT_FOUND");
  HttpResult memory =
      Check("GET", "/v1/memories/{id}", "/v1/memories/0123456789abcdef0123456789abcdef", "", 404);
  EXPECT_EQ(memory.body["error"]["request_id"], memory.request_id);
  HttpResult proposal = Check("POST", "/v1/proposals/{id}/accept",
                              "/v1/proposals/0123456789abcdef0123456789abcdef/accept", "", 404);
  HttpResult bad_id = Check("GET", "/v1/memories/{id}", "/v1/memories/not-an-id", "", 400);
  EXPECT_THAT(bad_id.raw, HasSubstr("id"));
}

TEST_F(ServerRoutesTest, UnknownRoutesAre404AndWrongMethodsAre405) {
  HttpResult missing = server_.Call("GET", "/v2/whatever");
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(missing.body["error"]["code"], "NOT_FOUND");
  HttpResult slash = server_.Call("GET", "/v1/scopes/");
  EXPECT_EQ(slash.status, 200);
  HttpResult wrong = server_.Call("PUT", "/v1/scopes");
  EXPECT_EQ(wrong.status, 405);
  EXPECT_THAT(wrong.raw, HasSubstr("GET"));
}

TEST_F(ServerRoutesTest, HealthReadinessAndMetrics) {
  HttpResult health = server_.Call("GET", "/healthz");
  EXPECT_EQ(health.status, 200);
  EXPECT_EQ(health.body["status"], "ok");
  HttpResult ready = server_.Call("GET", "/readyz");
  EXPECT_EQ(ready.status, 200);
  EXPECT_EQ(ready.body["status"], "ready");
  Remember("user:m", R"([{"text": "Metrics are counted."}])");
  server_.Call("POST", "/v1/scopes/user:m/recall", R"({"query": "metrics"})");
  server_.Call("GET", "/v1/memories/0123456789abcdef0123456789abcdef");
  HttpResult metrics = server_.Call("GET", "/metrics");
  EXPECT_EQ(metrics.status, 200);
  EXPECT_THAT(metrics.content_type, HasSubstr("text/plain"));
  EXPECT_THAT(metrics.raw, HasSubstr("engram_http_requests_total{route=\"/v1/scopes/{scope}/"
                                     "memories\",method=\"POST\",status=\"201\"} 1"));
  EXPECT_THAT(metrics.raw, HasSubstr("engram_http_requests_total{route=\"/v1/memories/{id}\","
                                     "method=\"GET\",status=\"404\"} 1"));
  EXPECT_THAT(metrics.raw, HasSubstr("engram_http_request_duration_seconds_count{route=\"/v1/"
                                     "scopes/{scope}/recall\"} 1"));
  EXPECT_THAT(metrics.raw, HasSubstr("engram_recall_latency_seconds_count 1"));
  EXPECT_THAT(metrics.raw, HasSubstr("engram_scopes 1"));
  EXPECT_THAT(metrics.raw, HasSubstr("engram_store_size_bytes "));
  EXPECT_THAT(metrics.raw, Not(HasSubstr("0123456789abcdef0123456789abcdef")));  // no raw paths
}

TEST_F(ServerRoutesTest, RequestIdsAreEchoedWhenSaneAndGeneratedOtherwise) {
  HttpResult echoed = server_.Call("GET", "/healthz", "", "", {{"X-Request-Id", "abc-123.x"}});
  EXPECT_EQ(echoed.request_id, "abc-123.x");
  HttpResult replaced =
      server_.Call("GET", "/v1/memories/zz", "", "", {{"X-Request-Id", "bad id with spaces"}});
  EXPECT_NE(replaced.request_id, "bad id with spaces");
  EXPECT_FALSE(replaced.request_id.empty());
  EXPECT_EQ(replaced.body["error"]["request_id"], replaced.request_id);
  HttpResult first = server_.Call("GET", "/healthz");
  HttpResult second = server_.Call("GET", "/healthz");
  EXPECT_NE(first.request_id, second.request_id);
}

}  // namespace
}  // namespace engram::testing
