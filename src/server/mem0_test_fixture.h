// mem0_test_fixture.h: the fixture of the mem0 handler tests (mem0_api_test.cc,
// mem0_filter_test.cc, mem0_platform_test.cc): a real engine on a fixed clock with lexical routes
// only, the self-hosted handlers, and helpers to call them and read their errors; and the shared
// case files of tests/mem0/. Included by test files only.
#ifndef ENGRAM_SERVER_MEM0_TEST_FIXTURE_H_
#define ENGRAM_SERVER_MEM0_TEST_FIXTURE_H_

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>

#include "core/files.h"
#include "engram/clock.h"
#include "engram/engine.h"
#include "engram/testing/status_matchers.h"
#include "engram/testing/temp_dir.h"
#include "server/mem0_api.h"

namespace engram::server::mem0_testing {

using io::Json;

inline constexpr char kMissingIdentifier[] =
    "At least one identifier (user_id, agent_id, run_id) is required.";

inline auth::Access Key(const std::string& prefix, const std::string& rights) {
  return auth::Access::Granted(
      {{.prefix = Scope::Parse(prefix).value(), .rights = auth::ParseRights(rights).value()}});
}

class Mem0ApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    EngineOptions options;
    options.store_path = dir_ + "/engram.db";
    options.clock = FixedClock(Timestamp::FromSeconds(1704067200), 1000);
    options.config = Config{};
    options.config->embedder.kind = "none";  // lexical routes only: fast and deterministic
    StatusOr<std::unique_ptr<Engine>> engine = Engine::Open(options);
    ASSERT_TRUE(engine.ok()) << engine.status();
    engine_ = std::move(engine).value();
    api_ = std::make_unique<Mem0Api>(*engine_, Mem0Options{});
  }

  void TearDown() override {
    api_.reset();
    engine_.reset();
  }

  static ApiRequest Request(std::string method, std::string path, std::string body,
                            const auth::Access* access) {
    ApiRequest request;
    request.method = std::move(method);
    request.path = std::move(path);
    request.body = std::move(body);
    request.access = access;
    return request;
  }

  ApiResponse Add(const Json& body, const auth::Access* access = nullptr) {
    return api_->AddMemories(Request("POST", "/memories", body.dump(), Who(access)));
  }
  ApiResponse AddRaw(const std::string& body) {
    return api_->AddMemories(Request("POST", "/memories", body, &admin_));
  }
  ApiResponse Search(const Json& body, const auth::Access* access = nullptr) {
    return api_->Search(Request("POST", "/search", body.dump(), Who(access)));
  }
  ApiResponse WithQuery(ApiResponse (Mem0Api::*handler)(const ApiRequest&), std::string method,
                        std::multimap<std::string, std::string> query,
                        const auth::Access* access = nullptr) {
    ApiRequest request = Request(std::move(method), "/memories", "", Who(access));
    request.query = std::move(query);
    return (api_.get()->*handler)(request);
  }
  ApiResponse OnId(ApiResponse (Mem0Api::*handler)(const ApiRequest&), std::string method,
                   const std::string& id, const std::string& body = "",
                   const auth::Access* access = nullptr) {
    ApiRequest request = Request(std::move(method), "/memories/" + id, body, Who(access));
    request.path_params["memory_id"] = id;
    return (api_.get()->*handler)(request);
  }

  // Adds one user message for `user_id` and returns its id.
  std::string AddOne(const std::string& user_id, const std::string& text,
                     const Json& metadata = Json::object()) {
    ApiResponse response = Add({{"messages", {{{"role", "user"}, {"content", text}}}},
                                {"user_id", user_id},
                                {"metadata", metadata}});
    EXPECT_EQ(response.status, 200) << response.body.dump();
    if (response.status != 200) return "";
    return response.body["results"][0]["id"].get<std::string>();
  }

  // The memory texts of a search, as a set.
  std::set<std::string> SearchTexts(const Json& body) {
    ApiResponse response = Search(body);
    EXPECT_EQ(response.status, 200) << response.body.dump();
    std::set<std::string> texts;
    if (response.status != 200) return texts;
    for (const Json& item : response.body["results"]) texts.insert(item["memory"]);
    return texts;
  }

  std::size_t StoredScopes() { return engine_->ListScopes().value().size(); }

  const auth::Access* Who(const auth::Access* access) const {
    return access != nullptr ? access : &admin_;
  }

  engram::testing::TempDir temp_dir_{"engram_mem0"};
  std::string dir_ = temp_dir_.path();
  std::unique_ptr<Engine> engine_;
  std::unique_ptr<Mem0Api> api_;
  auth::Access admin_ = auth::Access::Unrestricted();
};

// The message of a {"detail": "..."} body, or of the first entry of a 422's detail list.
inline std::string DetailText(const ApiResponse& response) {
  const Json& detail = response.body["detail"];
  if (detail.is_string()) return detail.get<std::string>();
  if (detail.is_array() && !detail.empty()) return detail[0]["msg"].get<std::string>();
  return "";
}

inline Json DetailLoc(const ApiResponse& response) { return response.body["detail"][0]["loc"]; }

// A file of the shared mem0 cases (tests/mem0/), parsed.
inline nlohmann::json SharedCases(const std::string& name) {
  std::string source_dir =
      std::filesystem::path(__FILE__).parent_path().parent_path().parent_path();
  if (const char* dir = std::getenv("ENGRAM_SOURCE_DIR"); dir != nullptr && *dir != '\0') {
    source_dir = dir;
  }
  StatusOr<std::string> text = core::ReadWholeFile(source_dir + "/tests/mem0/" + name, "cases");
  EXPECT_THAT(text, engram::testing::IsOk());
  return text.ok() ? nlohmann::json::parse(*text) : nlohmann::json::object();
}

// A shared case's memory as the engine would return it.
inline Memory CaseMemory(const nlohmann::json& given) {
  Memory memory;
  memory.id = given["id"];
  memory.text = given["text"];
  memory.role = ParseRole(given["role"].get<std::string>()).value();
  memory.speaker = given["speaker"];
  memory.scope = given["scope"];
  memory.ingested_at = ParseTimestamp(given["ingested_at"].get<std::string>()).value();
  memory.updated_at = ParseTimestamp(given["updated_at"].get<std::string>()).value();
  memory.metadata_json = given["metadata"].dump();
  return memory;
}

}  // namespace engram::server::mem0_testing

#endif  // ENGRAM_SERVER_MEM0_TEST_FIXTURE_H_
