// The world graph's REST routes between tenants (keys on user:alice and user:bob): every graph
// route given another tenant's memory or edge id answers 404 with the message an unknown id gets,
// an edge cannot join another tenant's memory, a key without the write right gets 403 on a
// memory it may read, and a query as of a date sees the edge that held then.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "server_fixture.h"

namespace engram::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using Json = nlohmann::json;

TestServerOptions GraphOptions() {
  TestServerOptions options{.with_keys = true};
  options.config.graph.edge_types = "owns:single_valued, knows";
  return options;
}

class WorldGraphRoutesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    alice_ = server_.AddKey("user:alice", "read,write");
    alice_reader_ = server_.AddKey("user:alice", "read");
    bob_ = server_.AddKey("user:bob", "read,write");
    HttpResult written =
        server_.Call("POST", "/v1/scopes/user:alice/memories?wait=derived",
                     R"({"turns": [{"text": "My sister Lena lives in Porto.", "speaker": "Alice"},
                      {"text": "The blue car needs new tyres.", "speaker": "Alice"}]})",
                     alice_);
    ASSERT_EQ(written.status, 201) << written.raw;
    for (const Json& id : written.body["ids"]) turns_.push_back(id);
    HttpResult entities = server_.Call("GET", "/v1/scopes/user:alice/entities", "", alice_);
    for (const Json& entity : entities.body["entities"]) {
      if (entity["name"] == "Lena") lena_ = entity["id"];
    }
    ASSERT_FALSE(lena_.empty()) << entities.raw;
    HttpResult edge = server_.Call(
        "POST", "/v1/scopes/user:alice/edges",
        R"({"type": "owns", "src": ")" + lena_ + R"(", "dst": ")" + turns_[1] + R"("})", alice_);
    ASSERT_EQ(edge.status, 201) << edge.raw;
    edge_ = edge.body["id"];
    edge_added_ = edge.body["ingested_at"];
    HttpResult bobs = server_.Call("POST", "/v1/scopes/user:bob/memories",
                                   R"({"turns": [{"text": "Bob likes chess."}]})", bob_);
    ASSERT_EQ(bobs.status, 201);
    bob_turn_ = bobs.body["ids"][0];
  }

  // Bob's answer for Alice's id and for an unknown one: both 404, the same message but the id.
  void ExpectNotFoundLikeUnknown(const std::string& method, const std::string& path_with_id,
                                 const std::string& id, const std::string& body = "") {
    const std::string unknown = "0123456789abcdef0123456789abcdef";
    std::string unknown_path = path_with_id;
    unknown_path.replace(unknown_path.find(id), id.size(), unknown);
    HttpResult theirs = server_.Call(method, path_with_id, body, bob_);
    HttpResult none = server_.Call(method, unknown_path, body, bob_);
    EXPECT_EQ(theirs.status, 404) << path_with_id << ": " << theirs.raw;
    EXPECT_EQ(none.status, 404) << unknown_path << ": " << none.raw;
    std::string theirs_message = theirs.body["error"]["message"].get<std::string>();
    const std::string none_message = none.body["error"]["message"].get<std::string>();
    const std::size_t at = theirs_message.find(id);
    if (at != std::string::npos) theirs_message.replace(at, id.size(), unknown);
    EXPECT_EQ(theirs_message, none_message) << path_with_id;
  }

  TestServer server_{GraphOptions()};
  std::string alice_;
  std::string alice_reader_;
  std::string bob_;
  std::vector<std::string> turns_;
  std::string lena_;
  std::string edge_;
  std::string edge_added_;
  std::string bob_turn_;
};

TEST_F(WorldGraphRoutesTest, AnotherTenantsIdsAreNotFoundLikeUnknownOnes) {
  ExpectNotFoundLikeUnknown("GET", "/v1/memories/" + lena_ + "/neighbours", lena_);
  ExpectNotFoundLikeUnknown("GET", "/v1/memories/" + lena_ + "/identity", lena_);
  ExpectNotFoundLikeUnknown("GET", "/v1/memories/" + turns_[0] + "/paths?to=" + bob_turn_,
                            turns_[0]);
  ExpectNotFoundLikeUnknown("GET", "/v1/edges/" + edge_, edge_);
  ExpectNotFoundLikeUnknown("POST", "/v1/edges/" + edge_ + "/retire", edge_);
  // Bob's own memory as the start, Alice's as the end: still 404.
  HttpResult to_alice =
      server_.Call("GET", "/v1/memories/" + bob_turn_ + "/paths?to=" + turns_[0], "", bob_);
  EXPECT_EQ(to_alice.status, 404);
  // An edge from Bob's memory to Alice's, in Bob's scope: 404, and nothing stored.
  HttpResult linked = server_.Call(
      "POST", "/v1/scopes/user:bob/edges",
      R"({"type": "knows", "src": ")" + bob_turn_ + R"(", "dst": ")" + lena_ + R"("})", bob_);
  EXPECT_EQ(linked.status, 404) << linked.raw;
  EXPECT_THAT(linked.raw, Not(HasSubstr("Lena")));
  HttpResult bobs = server_.Call("GET", "/v1/memories/" + bob_turn_ + "/neighbours", "", bob_);
  ASSERT_EQ(bobs.status, 200);
  EXPECT_EQ(bobs.body["count"], 0);
  // Alice's key cannot write in Bob's scope (403: the scope is named in the path).
  HttpResult into_bob = server_.Call(
      "POST", "/v1/scopes/user:bob/edges",
      R"({"type": "knows", "src": ")" + lena_ + R"(", "dst": ")" + bob_turn_ + R"("})", alice_);
  EXPECT_EQ(into_bob.status, 403);
}

TEST_F(WorldGraphRoutesTest, AReaderMayQueryButNotChangeEdges) {
  HttpResult neighbours =
      server_.Call("GET", "/v1/memories/" + lena_ + "/neighbours?types=owns", "", alice_reader_);
  ASSERT_EQ(neighbours.status, 200);
  ASSERT_EQ(neighbours.body["count"], 1);
  EXPECT_EQ(neighbours.body["neighbours"][0]["node"]["id"], turns_[1]);
  EXPECT_EQ(server_.Call("POST", "/v1/edges/" + edge_ + "/retire", "", alice_reader_).status, 403);
  EXPECT_EQ(
      server_
          .Call("POST", "/v1/scopes/user:alice/edges",
                R"({"type": "knows", "src": ")" + lena_ + R"(", "dst": ")" + turns_[0] + R"("})",
                alice_reader_)
          .status,
      403);
}

TEST_F(WorldGraphRoutesTest, QueriesAsOfADateSeeTheEdgeThatHeldThen) {
  HttpResult retired = server_.Call("POST", "/v1/edges/" + edge_ + "/retire", "", alice_);
  ASSERT_EQ(retired.status, 200) << retired.raw;
  const std::string base = "/v1/memories/" + lena_ + "/neighbours?types=owns&direction=out";
  EXPECT_EQ(server_.Call("GET", base, "", alice_).body["count"], 0);
  HttpResult then = server_.Call("GET", base + "&valid_at=" + edge_added_, "", alice_);
  ASSERT_EQ(then.status, 200) << then.raw;
  EXPECT_EQ(then.body["count"], 1);
  HttpResult known = server_.Call("GET", base + "&known_at=" + edge_added_, "", alice_);
  ASSERT_EQ(known.status, 200);
  ASSERT_EQ(known.body["count"], 1);
  EXPECT_EQ(known.body["neighbours"][0]["edge"]["status"], "active");
  HttpResult before = server_.Call("GET", base + "&known_at=2000-01-01T00:00:00Z", "", alice_);
  EXPECT_EQ(before.body["count"], 0);
}

TEST_F(WorldGraphRoutesTest, OversizedAndMalformedInputIs400) {
  const std::string huge(20000, 'x');
  HttpResult big = server_.Call("POST", "/v1/scopes/user:alice/edges",
                                R"({"type": "knows", "src": ")" + lena_ + R"(", "dst": ")" +
                                    turns_[0] + R"(", "attrs": {"x": ")" + huge + R"("}})",
                                alice_);
  EXPECT_EQ(big.status, 400);
  EXPECT_THAT(big.raw, HasSubstr("attrs"));
  std::string types;
  for (int i = 0; i < 40; ++i) types += (i ? "," : "") + std::string("mentions");
  EXPECT_EQ(server_.Call("GET", "/v1/memories/" + lena_ + "/neighbours?types=" + types, "", alice_)
                .status,
            400);
  EXPECT_EQ(
      server_.Call("GET", "/v1/memories/" + lena_ + "/neighbours?valid_at=soon", "", alice_).status,
      400);
  EXPECT_EQ(
      server_.Call("GET", "/v1/memories/" + lena_ + "/neighbours?direction=up", "", alice_).status,
      400);
  EXPECT_EQ(server_.Call("POST", "/v1/scopes/user:alice/edges", "not json", alice_).status, 400);
  EXPECT_EQ(server_.Call("GET", "/v1/edges/nope", "", alice_).status, 400);
  // Nothing of the refused edges was stored.
  EXPECT_EQ(server_.Call("GET", "/v1/memories/" + lena_ + "/neighbours?types=knows", "", alice_)
                .body["count"],
            0);
}

}  // namespace
}  // namespace engram::testing
