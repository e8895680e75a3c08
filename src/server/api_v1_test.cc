// The /v1 handlers called directly on a real engine, for what a key's grants let through: a key
// for a nested scope learns no id of a memory outside it, even through an identity merge that
// links one of its entities to an entity of the enclosing scope.
#include "server/api_v1.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "engram/clock.h"
#include "engram/engine.h"
#include "engram/testing/temp_dir.h"

namespace engram::server {
namespace {

using io::Json;

auth::Access Key(const std::string& prefix, const std::string& rights) {
  return auth::Access::Granted(
      {{.prefix = Scope::Parse(prefix).value(), .rights = auth::ParseRights(rights).value()}});
}

class V1ApiAccessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    EngineOptions options;
    options.store_path = dir_.File("engram.db");
    options.clock = FixedClock(Timestamp::FromSeconds(1704067200), 1000);
    options.config = Config{};
    options.config->embedder.kind = "none";
    StatusOr<std::unique_ptr<Engine>> engine = Engine::Open(options);
    ASSERT_TRUE(engine.ok()) << engine.status();
    engine_ = std::move(engine).value();
    api_ = std::make_unique<V1Api>(*engine_);
  }

  void TearDown() override {
    api_.reset();
    engine_.reset();
  }

  // The entities of `scope` as `access` reads them (the test fails unless the answer is 200).
  Json Entities(const std::string& scope, const auth::Access& access) {
    ApiRequest request;
    request.method = "GET";
    request.path = "/v1/scopes/" + scope + "/entities";
    request.path_params = {{"scope", scope}};
    request.access = &access;
    ApiResponse response = api_->Entities(request);
    EXPECT_EQ(response.status, 200) << response.body.dump();
    return response.body["entities"];
  }

  // The id of the entity named `name` among `entities` ("" and a failure when there is none).
  static std::string IdOf(const Json& entities, const std::string& name) {
    for (const Json& entity : entities) {
      if (entity["name"] == name) return entity["id"];
    }
    ADD_FAILURE() << "no entity " << name << " in " << entities.dump();
    return "";
  }

  static Json SameAsOf(const Json& entities, const std::string& id) {
    for (const Json& entity : entities) {
      if (entity["id"] == id) return entity["same_as"];
    }
    ADD_FAILURE() << "no entity " << id << " in " << entities.dump();
    return nullptr;
  }

  testing::TempDir dir_;
  std::unique_ptr<Engine> engine_;
  std::unique_ptr<V1Api> api_;
};

TEST_F(V1ApiAccessTest, EntitiesSameAsListsOnlyEntitiesTheKeyMayRead) {
  RememberOptions derived;
  derived.wait = RememberWait::kDerived;
  const Turn alice_turn{.text = "My sister Maya lives in Porto."};
  const Turn run_turn{.text = "Maya called me from Porto today."};
  ASSERT_TRUE(
      engine_->Remember(Scope::Parse("user:alice").value(), {&alice_turn, 1}, derived).ok());
  ASSERT_TRUE(
      engine_->Remember(Scope::Parse("user:alice/run:1").value(), {&run_turn, 1}, derived).ok());
  const auth::Access alice = Key("user:alice", "read");
  const auth::Access run = Key("user:alice/run:1", "read");
  const std::string alice_porto = IdOf(Entities("user:alice", alice), "Porto");
  const std::string run_porto = IdOf(Entities("user:alice/run:1", alice), "Porto");
  ASSERT_FALSE(alice_porto.empty());
  ASSERT_FALSE(run_porto.empty());
  ASSERT_TRUE(engine_->ProposeSameAs(run_porto, alice_porto, "one city").ok());

  EXPECT_EQ(SameAsOf(Entities("user:alice/run:1", alice), run_porto), Json::array({alice_porto}));
  EXPECT_EQ(SameAsOf(Entities("user:alice", alice), alice_porto), Json::array({run_porto}));
  EXPECT_EQ(SameAsOf(Entities("user:alice/run:1", run), run_porto), Json::array());
  EXPECT_EQ(SameAsOf(Entities("user:alice/run:1", auth::Access::Unrestricted()), run_porto),
            Json::array({alice_porto}));
}

}  // namespace
}  // namespace engram::server
