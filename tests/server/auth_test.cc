// Keys and tenants over HTTP: 401 without a valid key, 403 for a missing right on a named scope,
// 404 (never 403) for another tenant's memory ids, and a seeded random property test that no
// response to one tenant ever carries another tenant's text.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <utility>
#include <vector>

#include "server_fixture.h"

namespace engram::testing {
namespace {

using ::testing::HasSubstr;
using Json = nlohmann::json;

class ServerAuthTest : public ::testing::Test {
 protected:
  ServerAuthTest() : server_(TestServerOptions{.with_keys = true}) {}
  TestServer server_;
};

TEST_F(ServerAuthTest, MissingUnknownAndRevokedKeysAre401) {
  const std::string key = server_.AddKey("app:crm", "read,write");
  HttpResult none = server_.Call("GET", "/v1/scopes");
  EXPECT_EQ(none.status, 401);
  EXPECT_EQ(none.body["error"]["code"], "UNAUTHENTICATED");
  EXPECT_THAT(none.raw, HasSubstr("missing API key"));
  HttpResult unknown = server_.Call("GET", "/v1/scopes", "", "egk_" + std::string(64, '1'));
  EXPECT_EQ(unknown.status, 401);
  HttpResult garbage = server_.Call("GET", "/v1/scopes", "", "not a key at all");
  EXPECT_EQ(garbage.status, 401);
  EXPECT_EQ(server_.Call("GET", "/v1/scopes", "", key).status, 200);
  // mem0 clients send "Token <key>".
  HttpResult token = server_.Call("GET", "/v1/scopes", "", "", {{"Authorization", "Token " + key}});
  EXPECT_EQ(token.status, 200);
  server_.RevokeKey(key);
  HttpResult revoked = server_.Call("GET", "/v1/scopes", "", key);
  EXPECT_EQ(revoked.status, 401);
  EXPECT_THAT(revoked.raw, HasSubstr("unknown or revoked"));
}

TEST_F(ServerAuthTest, HealthAndTheDocumentNeedNoKey) {
  EXPECT_EQ(server_.Call("GET", "/healthz").status, 200);
  EXPECT_EQ(server_.Call("GET", "/readyz").status, 200);
  EXPECT_EQ(server_.Call("GET", "/v1/openapi.json").status, 200);
}

TEST_F(ServerAuthTest, MissingRightOnANamedScopeIs403) {
  const std::string reader = server_.AddKey("app:crm", "read");
  const std::string writer = server_.AddKey("app:crm", "read,write");
  HttpResult write = server_.Call("POST", "/v1/scopes/app:crm/user:a/memories",
                                  R"({"turns": [{"text": "Reader cannot write this."}]})", reader);
  EXPECT_EQ(write.status, 403);
  EXPECT_EQ(write.body["error"]["code"], "PERMISSION_DENIED");
  EXPECT_THAT(write.raw, HasSubstr("write"));
  HttpResult written = server_.Call("POST", "/v1/scopes/app:crm/user:a/memories",
                                    R"({"turns": [{"text": "Writer wrote this."}]})", writer);
  ASSERT_EQ(written.status, 201) << written.raw;
  const std::string id = written.body["ids"][0].get<std::string>();
  // A readable memory the key may not change: 403, since its existence is no secret to it.
  EXPECT_EQ(server_.Call("POST", "/v1/memories/" + id + "/retire", "", reader).status, 403);
  EXPECT_EQ(server_.Call("GET", "/v1/memories/" + id, "", reader).status, 200);
  // Erase needs the erase right; server-wide operations a root admin key.
  HttpResult erase = server_.Call("DELETE", "/v1/scopes/app:crm/user:a",
                                  R"({"confirm": "app:crm/user:a"})", writer);
  EXPECT_EQ(erase.status, 403);
  EXPECT_EQ(server_.Call("POST", "/v1/admin/rebuild-index", "", writer).status, 403);
  const std::string scoped_admin = server_.AddKey("app:crm", "admin");
  EXPECT_EQ(server_.Call("POST", "/v1/admin/rebuild-index", "", scoped_admin).status, 403);
  const std::string root = server_.AddKey("*", "admin");
  EXPECT_EQ(server_.Call("POST", "/v1/admin/rebuild-index", "", root).status, 200);
  // Outside the prefix: a sibling and the parent.
  EXPECT_EQ(server_.Call("POST", "/v1/scopes/app:crm2/recall", R"({"query": "x"})", writer).status,
            403);
  EXPECT_EQ(server_.Call("GET", "/v1/scopes/app:x/memories", "", writer).status, 403);
}

TEST_F(ServerAuthTest, AnotherTenantsMemoryIsNotFoundNever403) {
  const std::string alice = server_.AddKey("user:alice", "read,write");
  const std::string bob = server_.AddKey("user:bob", "read,write,erase");
  HttpResult written = server_.Call("POST", "/v1/scopes/user:alice/memories",
                                    R"({"turns": [{"text": "Alice's secret is 4217."}]})", alice);
  ASSERT_EQ(written.status, 201);
  const std::string id = written.body["ids"][0].get<std::string>();
  const std::string unknown = "0123456789abcdef0123456789abcdef";
  for (const char* suffix : {"", "/history", "/links"}) {
    HttpResult theirs = server_.Call("GET", "/v1/memories/" + id + suffix, "", bob);
    HttpResult none = server_.Call("GET", "/v1/memories/" + unknown + suffix, "", bob);
    EXPECT_EQ(theirs.status, 404) << suffix;
    EXPECT_EQ(none.status, 404) << suffix;
    // The same answer as for an id that does not exist (but for the id itself).
    std::string theirs_message = theirs.body["error"]["message"].get<std::string>();
    std::string none_message = none.body["error"]["message"].get<std::string>();
    theirs_message.replace(theirs_message.find(id), id.size(), unknown);
    EXPECT_EQ(theirs_message, none_message);
  }
  EXPECT_EQ(server_.Call("POST", "/v1/memories/" + id + "/retire", "", bob).status, 404);
  EXPECT_EQ(
      server_.Call("POST", "/v1/memories/" + id + "/amend", R"({"text": "Bob was here."})", bob)
          .status,
      404);
  HttpResult bobs = server_.Call("POST", "/v1/scopes/user:bob/memories",
                                 R"({"turns": [{"text": "Bob's note."}]})", bob);
  ASSERT_EQ(bobs.status, 201);
  HttpResult propose = server_.Call(
      "POST", "/v1/proposals",
      R"({"a": ")" + bobs.body["ids"][0].get<std::string>() + R"(", "b": ")" + id + R"("})", bob);
  EXPECT_EQ(propose.status, 404);
  HttpResult scopes = server_.Call("GET", "/v1/scopes", "", bob);
  EXPECT_EQ(scopes.status, 200);
  EXPECT_THAT(scopes.raw, ::testing::Not(HasSubstr("alice")));
  // Alice's memory is untouched.
  HttpResult still = server_.Call("GET", "/v1/memories/" + id, "", alice);
  EXPECT_EQ(still.body["status"], "active");
}

// A key for a nested scope learns no id of the enclosing scope's memories, not even through an
// identity merge that links its entity to one of them.
TEST_F(ServerAuthTest, ANestedScopesKeySeesNoIdOfTheEnclosingScope) {
  const std::string alice = server_.AddKey("user:alice", "read,write");
  const std::string run = server_.AddKey("user:alice/run:1", "read");
  const std::vector<std::pair<std::string, std::string>> writes = {
      {"user:alice", "My sister Maya lives in Porto."},
      {"user:alice/run:1", "Maya called me from Porto today."}};
  for (const auto& [scope, text] : writes) {
    HttpResult written = server_.Call("POST", "/v1/scopes/" + scope + "/memories?wait=derived",
                                      R"({"turns": [{"text": ")" + text + R"("}]})", alice);
    ASSERT_EQ(written.status, 201) << written.raw;
  }
  // The entity Porto of `scope` as `key` lists it.
  auto porto = [&](const std::string& scope, const std::string& key) {
    HttpResult listed = server_.Call("GET", "/v1/scopes/" + scope + "/entities", "", key);
    EXPECT_EQ(listed.status, 200) << listed.raw;
    for (const Json& entity : listed.body["entities"]) {
      if (entity["name"] == "Porto") return entity;
    }
    ADD_FAILURE() << "no entity Porto in " << scope << ": " << listed.raw;
    return Json();
  };
  const std::string alice_porto = porto("user:alice", alice)["id"];
  const std::string run_porto = porto("user:alice/run:1", alice)["id"];
  HttpResult proposed = server_.Call(
      "POST", "/v1/proposals",
      R"({"a": ")" + run_porto + R"(", "b": ")" + alice_porto + R"(", "reason": "one city"})",
      alice);
  ASSERT_EQ(proposed.status, 201) << proposed.raw;

  EXPECT_EQ(porto("user:alice/run:1", alice)["same_as"], Json::array({alice_porto}));
  EXPECT_EQ(porto("user:alice", alice)["same_as"], Json::array({run_porto}));
  EXPECT_EQ(porto("user:alice/run:1", run)["same_as"], Json::array());
  // Nor through the entity's history.
  HttpResult history = server_.Call("GET", "/v1/memories/" + run_porto + "/history", "", run);
  ASSERT_EQ(history.status, 200);
  EXPECT_THAT(history.raw, ::testing::Not(HasSubstr(alice_porto)));
}

// Seeded random tenants, scopes and operations: every response a tenant gets is checked for the
// unique marker of every other tenant.
TEST_F(ServerAuthTest, RandomOperationsNeverLeakAnotherTenantsText) {
  constexpr int kTenants = 4;
  constexpr int kOperations = 240;
  std::mt19937 random(20261123);
  struct Tenant {
    std::string key;
    std::string scope;   // the key's prefix
    std::string marker;  // in every text this tenant writes
    std::vector<std::string> ids;
    bool can_write = true;
  };
  std::vector<Tenant> tenants;
  for (int t = 0; t < kTenants; ++t) {
    Tenant tenant;
    tenant.scope = "app:t" + std::to_string(t);
    tenant.marker = "zqmark" + std::to_string(t) + "x";
    tenant.can_write = t != kTenants - 1;  // the last tenant only reads
    tenant.key = server_.AddKey(tenant.scope, tenant.can_write ? "read,write" : "read");
    tenants.push_back(tenant);
  }
  // The read-only tenant's scope gets data through a root key.
  const std::string root = server_.AddKey("*", "admin");
  const std::vector<std::string> words = {"Maya", "Porto", "Lisbon", "coffee", "piano", "Acme"};
  auto text_for = [&](const Tenant& tenant, int n) {
    return tenant.marker + std::to_string(n) + " " + words[random() % words.size()] + " and " +
           words[random() % words.size()] + ".";
  };
  for (Tenant& tenant : tenants) {
    const std::string scope = tenant.scope + "/user:u" + std::to_string(random() % 2);
    HttpResult written = server_.Call("POST", "/v1/scopes/" + scope + "/memories",
                                      R"({"turns": [{"text": ")" + text_for(tenant, 0) +
                                          R"("}, {"text": ")" + text_for(tenant, 1) + R"("}]})",
                                      root);
    ASSERT_EQ(written.status, 201) << written.raw;
    for (const Json& id : written.body["ids"]) tenant.ids.push_back(id.get<std::string>());
  }

  std::map<int, int> statuses;
  for (int op = 0; op < kOperations; ++op) {
    Tenant& me = tenants[random() % kTenants];
    Tenant& other = tenants[random() % kTenants];
    const bool own = &me == &other;
    const std::string scope = other.scope + "/user:u" + std::to_string(random() % 2);
    const std::string id = other.ids[random() % other.ids.size()];
    HttpResult result;
    int expected = 0;  // 0: not checked
    switch (random() % 9) {
      case 0: {
        result =
            server_.Call("POST", "/v1/scopes/" + scope + "/memories",
                         R"({"turns": [{"text": ")" + text_for(me, op + 10) + R"("}]})", me.key);
        expected = own && me.can_write ? 201 : 403;
        if (result.status == 201) {
          for (const Json& new_id : result.body["ids"]) me.ids.push_back(new_id.get<std::string>());
        }
        break;
      }
      case 1:
        result = server_.Call("POST", "/v1/scopes/" + other.scope + "/recall",
                              R"({"query": "Maya Porto coffee )" + other.marker + R"(", "k": 50,
                                  "explain": true, "include_retired": true})",
                              me.key);
        expected = own ? 200 : 403;
        break;
      case 2:
        result = server_.Call("GET", "/v1/memories/" + id, "", me.key);
        expected = own ? 200 : 404;
        break;
      case 3:
        result = server_.Call("GET", "/v1/memories/" + id + "/history", "", me.key);
        expected = own ? 200 : 404;
        break;
      case 4:
        result = server_.Call("GET", "/v1/memories/" + id + "/links", "", me.key);
        expected = own ? 200 : 404;
        break;
      case 5:
        result =
            server_.Call("GET", "/v1/scopes/" + other.scope + "/memories?kind=all", "", me.key);
        expected = own ? 200 : 403;
        break;
      case 6:
        result = server_.Call("GET", "/v1/scopes", "", me.key);
        expected = 200;
        break;
      case 7:
        result = server_.Call("GET", "/v1/scopes/" + other.scope + "/entities", "", me.key);
        expected = own ? 200 : 403;
        break;
      case 8: {
        const std::string mine = me.ids[random() % me.ids.size()];
        result = server_.Call("POST", "/v1/proposals",
                              R"({"a": ")" + mine + R"(", "b": ")" + id + R"("})", me.key);
        // Own pairs may repeat (409) or coincide (400): only the access outcome is fixed.
        expected = !own ? 404 : me.can_write ? 0 : 403;
        break;
      }
    }
    ++statuses[result.status];
    if (expected != 0) {
      EXPECT_EQ(result.status, expected) << "operation " << op << ": " << result.raw;
    }
    for (const Tenant& tenant : tenants) {
      if (&tenant == &me) continue;
      ASSERT_EQ(result.raw.find(tenant.marker), std::string::npos)
          << "operation " << op << " by " << me.scope << " leaked " << tenant.scope << ": "
          << result.raw.substr(0, 500);
      for (const std::string& other_id : tenant.ids) {
        if (other_id == id) continue;  // the id this request named may be echoed in its 404
        ASSERT_EQ(result.raw.find(other_id), std::string::npos)
            << "operation " << op << " by " << me.scope << " revealed an id of " << tenant.scope;
      }
    }
  }
  // The operations reached the engine, not only the access checks.
  EXPECT_GT(statuses[200], 20);
  EXPECT_GT(statuses[403] + statuses[404], 20);
}

// The hook the MCP transport uses: a raw handler at /mcp gets method, headers, body and the
// caller's Access, and sets status, headers and body; authentication comes first.
TEST(ServerRawMountTest, RawHandlersAreAuthenticatedAndSeeEverything) {
  TestServerOptions options;
  options.with_keys = true;
  options.before_bind = [](server::HttpServer& http) {
    http.MountRaw("/mcp", [](const server::RawRequest& request) {
      server::RawResponse response;
      response.status = request.method == "DELETE" ? 204 : 202;
      std::string session;
      for (const auto& [name, value] : request.headers) {
        if (name == "Mcp-Session-Id") session = value;
      }
      response.headers.emplace_back("Mcp-Session-Id", session + "-seen");
      response.content_type = "text/plain";
      response.body =
          request.method + " " + request.path + " " + request.body + " " +
          (request.access->Allows(Scope::Parse("user:alice").value(), auth::Right::kRead)
               ? "alice"
               : "not-alice");
      return response;
    });
  };
  TestServer server(options);
  const std::string key = server.AddKey("user:alice", "read");
  EXPECT_EQ(server.Call("POST", "/mcp", "{}").status, 401);
  HttpResult posted =
      server.Call("POST", "/mcp", R"({"jsonrpc": "2.0"})", key, {{"Mcp-Session-Id", "s1"}});
  EXPECT_EQ(posted.status, 202);
  EXPECT_EQ(posted.raw, R"(POST /mcp {"jsonrpc": "2.0"} alice)");
  EXPECT_FALSE(posted.request_id.empty());
  EXPECT_EQ(server.Call("DELETE", "/mcp", "", key).status, 204);
  HttpResult nested = server.Call("GET", "/mcp/sub", "", key);
  EXPECT_EQ(nested.status, 202);
  EXPECT_EQ(nested.raw, "GET /mcp/sub  alice");
}

}  // namespace
}  // namespace engram::testing
