// Bad input through the public API: every malformed, oversized or hostile input gets a clear
// error naming what is wrong, and nothing is stored half-way (a batch is all or nothing). Runs
// against every store backend (backend_suites.h).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "engram/engine.h"
#include "engram/testing/status_matchers.h"
#include "backend_suites.h"
#include "test_util.h"

namespace engram {
namespace {

using ::engram::testing::IsOk;
using ::engram::testing::IsOkAndHolds;
using ::engram::testing::StatusIs;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

}  // namespace

void BadInputTest::SetUp() {
  BackendTest::SetUp();
  if (IsSkipped()) return;
  engine_ = testing::OpenOrDie(Options());
}

void BadInputTest::ExpectRejected(const Turn& bad, const std::string& what) {
  const Scope scope = testing::S("user:bad-" + std::to_string(++calls_));
  ASSERT_THAT(engine_->Remember(scope, std::vector<Turn>{testing::MakeTurn("A", "good turn")}),
              IsOk());
  std::vector<Turn> batch = {testing::MakeTurn("A", "fine"), bad,
                             testing::MakeTurn("A", "also fine")};
  EXPECT_THAT(engine_->Remember(scope, batch),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr(what)));
  EXPECT_THAT(engine_->Remember(scope, batch),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("turn 1")));
  EXPECT_THAT(engine_->List(scope), IsOkAndHolds(SizeIs(1)));
}

namespace {

TEST_P(BadInputTest, InvalidUtf8Text) {
  ExpectRejected(testing::MakeTurn("A", "caf\xc3 broken"), "not valid UTF-8 (byte 3)");
}

TEST_P(BadInputTest, EmptyAndBlankText) {
  ExpectRejected(testing::MakeTurn("A", ""), "text is empty");
  ExpectRejected(testing::MakeTurn("A", " \n\t "), "text is empty");
}

TEST_P(BadInputTest, TenMegabyteTurn) {
  ExpectRejected(testing::MakeTurn("A", std::string(10 * 1024 * 1024, 'x')), "max_turn_bytes");
}

TEST_P(BadInputTest, NulByteInText) {
  ExpectRejected(testing::MakeTurn("A", std::string("a\0b", 3)), "NUL");
}

TEST_P(BadInputTest, HostileSpeakerAndSession) {
  Turn control = testing::MakeTurn("A\x1b[31m", "hello");
  ExpectRejected(control, "speaker contains a control character");
  ExpectRejected(testing::MakeTurn(std::string(1000, 's'), "hello"), "speaker is 1000 bytes");
  Turn session = testing::MakeTurn("A", "hello", std::string(300, 'x'));
  ExpectRejected(session, "session_id is 300 bytes");
}

TEST_P(BadInputTest, MalformedMetadata) {
  Turn not_json = testing::MakeTurn("A", "hello");
  not_json.metadata_json = "{not json";
  ExpectRejected(not_json, "metadata is not valid JSON");
  Turn array = testing::MakeTurn("A", "hello");
  array.metadata_json = "[1,2]";
  ExpectRejected(array, "metadata must be a JSON object");
  Turn deep = testing::MakeTurn("A", "hello");
  deep.metadata_json = std::string(10000, '[') + std::string(10000, ']');
  ExpectRejected(deep, "nests deeper");
  Turn big = testing::MakeTurn("A", "hello");
  big.metadata_json = "{\"k\":\"" + std::string(100000, 'v') + "\"}";
  ExpectRejected(big, "metadata is 100008 bytes");
}

TEST_P(BadInputTest, MetadataIsStoredCanonically) {
  Turn turn = testing::MakeTurn("A", "hello");
  turn.metadata_json = R"({"b": 1, "a": {"y": true, "x": null}})";
  StatusOr<RememberResult> result = engine_->Remember(testing::S("user:meta"), std::vector<Turn>{turn});
  ASSERT_THAT(result, IsOk());
  StatusOr<Memory> memory = engine_->Get(result->ids[0]);
  ASSERT_THAT(memory, IsOk());
  EXPECT_EQ(memory->metadata_json, R"({"a":{"x":null,"y":true},"b":1})");
}

// Integers keep every digit from -2^63 to 2^64 - 1 through the store; one beyond 64 bits, which
// the JSON parser would round to a double, is refused naming it.
TEST_P(BadInputTest, MetadataIntegersAreExactOrRefused) {
  Turn turn = testing::MakeTurn("A", "hello");
  turn.metadata_json =
      R"({"n": 9007199254740993, "u": 18446744073709551615, "m": -9223372036854775808})";
  StatusOr<RememberResult> result =
      engine_->Remember(testing::S("user:numbers"), std::vector<Turn>{turn});
  ASSERT_THAT(result, IsOk());
  StatusOr<Memory> memory = engine_->Get(result->ids[0]);
  ASSERT_THAT(memory, IsOk());
  EXPECT_EQ(memory->metadata_json,
            R"({"m":-9223372036854775808,"n":9007199254740993,"u":18446744073709551615})");

  Turn beyond = testing::MakeTurn("A", "hello");
  beyond.metadata_json = R"({"n": 18446744073709551616})";
  ExpectRejected(beyond, "metadata holds the integer 18446744073709551616, outside the 64-bit");
}

TEST_P(BadInputTest, EmptyAndOversizedBatches) {
  EXPECT_THAT(engine_->Remember(testing::S("user:x"), std::vector<Turn>{}),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("no turns")));
  EngineOptions options = Options("small.db");
  Config config;
  config.limits.max_batch_turns = 2;
  options.config = config;
  std::unique_ptr<Engine> small = testing::OpenOrDie(options);
  std::vector<Turn> three(3, testing::MakeTurn("A", "hi"));
  EXPECT_THAT(small->Remember(testing::S("user:x"), three),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("max_batch_turns")));
  EXPECT_THAT(small->ListScopes(), IsOkAndHolds(IsEmpty()));
}

TEST_P(BadInputTest, BadScopes) {
  Scope empty;
  EXPECT_THAT(engine_->Remember(empty, std::vector<Turn>{testing::MakeTurn("A", "x")}),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("scope")));
  Scope slash(ScopeKind::kUser, "a/b");
  EXPECT_THAT(engine_->Remember(slash, std::vector<Turn>{testing::MakeTurn("A", "x")}),
              StatusIs(StatusCode::kInvalidArgument));
  Scope huge(ScopeKind::kUser, std::string(1 << 20, 'n'));
  EXPECT_THAT(engine_->Remember(huge, std::vector<Turn>{testing::MakeTurn("A", "x")}),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("bytes")));
  EXPECT_THAT(engine_->ListScopes(), IsOkAndHolds(IsEmpty()));
}

TEST_P(BadInputTest, RecallOnUnknownScopeAndBadQueries) {
  const Scope scope = testing::S("user:q");
  ASSERT_THAT(engine_->Remember(scope, std::vector<Turn>{testing::MakeTurn("A", "hello world")}), IsOk());
  EXPECT_THAT(engine_->Recall(testing::S("user:nobody"), {.text = "hello"}),
              StatusIs(StatusCode::kNotFound, HasSubstr("user:nobody")));
  EXPECT_THAT(engine_->Recall(scope, {.text = ""}),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("query is empty")));
  EXPECT_THAT(engine_->Recall(scope, {.text = "\xff\xfe"}),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("UTF-8")));
  EXPECT_THAT(engine_->Recall(scope, {.text = std::string(100000, 'q')}),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("max_query_bytes")));
  EXPECT_THAT(engine_->Recall(scope, {.text = "hello"}, {.routes = {"telepathy"}}),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("unknown route")));
  EXPECT_THAT(engine_->Recall(scope, {.text = "hello"}, {.route_weights = {{"telepathy", 1.0}}}),
              StatusIs(StatusCode::kInvalidArgument,
                       HasSubstr("route_weights \"telepathy\": unknown route (known: bm25")));
  EXPECT_THAT(
      engine_->Recall(scope, {.text = "hello"}, {.route_weights = {{"bm25", std::nan("")}}}),
      StatusIs(StatusCode::kInvalidArgument,
               HasSubstr("route_weights \"bm25\" is nan; a route weight must be a "
                         "finite number in [0, 1000]")));
  // Control characters and stopwords only: a valid, empty answer rather than an error.
  StatusOr<ReadResult> odd = engine_->Recall(scope, {.text = std::string("\x01\x02 the of", 8)});
  ASSERT_THAT(odd, IsOk());
  EXPECT_THAT(odd->items, IsEmpty());
}

TEST_P(BadInputTest, BadIds) {
  EXPECT_THAT(engine_->Get("not-an-id"), StatusIs(StatusCode::kInvalidArgument));
  EXPECT_THAT(engine_->Get(std::string(32, 'a')), StatusIs(StatusCode::kNotFound));
  EXPECT_THAT(engine_->Retire("'; DROP TABLE nodes; --"), StatusIs(StatusCode::kInvalidArgument));
  EXPECT_THAT(engine_->History(std::string(32, '0')), StatusIs(StatusCode::kNotFound));
  EXPECT_THAT(engine_->AcceptProposal(std::string(32, 'b')), StatusIs(StatusCode::kNotFound));
}

// A NUL byte would cut the path short at the file system: another file. Refused naming the field.
TEST_P(BadInputTest, PathsWithANulByte) {
  EngineOptions options = Options("nul.db");
  options.store_path += std::string("\0.evil", 6);
  EXPECT_THAT(Engine::Open(options),
              StatusIs(StatusCode::kInvalidArgument,
                       HasSubstr("EngineOptions::store_path contains a NUL byte")));
  options = Options("nul.db");
  options.config_file = std::string("x.toml\0y", 8);
  EXPECT_THAT(Engine::Open(options),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("EngineOptions::config_file")));
  options = Options("nul.db");
  options.data_dir = std::string("data\0", 5);
  EXPECT_THAT(Engine::Open(options),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("EngineOptions::data_dir")));
}

TEST_P(BadInputTest, BadConfig) {
  EngineOptions options = Options("c.db");
  options.config_file = dir_.File("missing.toml");
  EXPECT_THAT(Engine::Open(options), StatusIs(StatusCode::kNotFound, HasSubstr("missing.toml")));
  EXPECT_THAT(ParseConfig("[bm25]\nk1 = 1.5\nkl = 2\n", "x.toml"),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("x.toml:3: unknown key [bm25] kl")));
  EXPECT_THAT(ParseConfig("[bm25]\nb = 7\n", "x.toml"),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("x.toml:2: [bm25] b is 7.0; it must be in [0, 1]")));
  EXPECT_THAT(ParseConfig("[bm25\n", "x.toml"), StatusIs(StatusCode::kInvalidArgument));
  EXPECT_THAT(ParseConfig("[recall]\nfragment_soft_match = 1.5\n", "x.toml"),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("fragment_soft_match")));
  EXPECT_THAT(ParseConfig("[recall]\ndrop_frame_words = 3\n", "x.toml"),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("drop_frame_words")));
  StatusOr<Config> config = ParseConfig("[recall]\nrrf_k = 60\n[recall.route_weights]\nbm25 = 0.5\n", "ok.toml");
  ASSERT_THAT(config, IsOk());
  EXPECT_EQ(config->recall.rrf_k, 60);
  EXPECT_EQ(config->recall.route_weights.at("bm25"), 0.5);
  EXPECT_EQ(config->bm25.k1, 1.2);
}

}  // namespace
}  // namespace engram
