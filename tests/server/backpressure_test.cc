// Back-pressure over real HTTP ([write] max_pending_turns): once the backlog of acknowledged turns
// awaiting derivation reaches the limit, a write on the native and the mem0-compatible routes is
// refused with 503 and a Retry-After header, stores nothing, and is counted in /metrics; once the
// backlog is derived the same write is accepted. The engine runs without its background worker,
// so the backlog stays exactly where the test puts it until the test derives it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "engram/engine.h"
#include "engram/testing/temp_dir.h"
#include "server/api_v1.h"
#include "server/http_server.h"
#include "server/mem0_api.h"

namespace engram {
namespace {

using ::testing::HasSubstr;

struct Reply {
  int status = 0;
  std::string retry_after;
  std::string body;
};

class BackpressureTest : public ::testing::Test {
 protected:
  void SetUp() override {
    EngineOptions engine_options;
    engine_options.store_path = dir_.File("engram.db");
    Config config;
    config.embedder.kind = "hashing";
    config.write.max_pending_turns = 3;
    engine_options.config = config;
    engine_options.background_derivation = false;  // the backlog moves only when the test says
    engine_options.clock = FixedClock(Timestamp::FromSeconds(1704067200), 1000);
    StatusOr<std::unique_ptr<Engine>> engine = Engine::Open(engine_options);
    ASSERT_TRUE(engine.ok()) << engine.status();
    engine_ = *std::move(engine);
    server::ServerOptions server_options;
    server_options.host = "127.0.0.1";
    server_options.port = 0;
    server_options.threads = 2;
    server_options.store_path = engine_options.store_path;
    http_ = std::make_unique<server::HttpServer>(*engine_, server_options, nullptr);
    v1_ = std::make_unique<server::V1Api>(*engine_, server::ApiLimits{}, &http_->metrics());
    http_->AddRoutes(v1_->Routes());
    mem0_ = std::make_unique<server::Mem0Api>(*engine_, server::Mem0Options{});
    http_->AddRoutes(mem0_->Routes());
    ASSERT_TRUE(http_->Bind().ok());
    thread_ = std::thread([this] { (void)http_->Run(); });
  }

  void TearDown() override {
    if (http_ != nullptr) http_->Stop();
    if (thread_.joinable()) thread_.join();
    http_.reset();
    v1_.reset();
    mem0_.reset();
    engine_.reset();
  }

  Reply Call(const std::string& method, const std::string& path, const std::string& body = "") {
    httplib::Client client("127.0.0.1", http_->port());
    client.set_connection_timeout(30, 0);
    client.set_read_timeout(60, 0);
    httplib::Result result = method == "GET" ? client.Get(path.c_str())
                                             : client.Post(path.c_str(), body, "application/json");
    Reply reply;
    if (!result) return reply;
    reply.status = result->status;
    reply.retry_after = result->get_header_value("Retry-After");
    reply.body = result->body;
    return reply;
  }

  // The stored turns of user:ana.
  std::size_t StoredTurns() {
    const Reply listed = Call("GET", "/v1/scopes/user:ana/memories");
    EXPECT_EQ(listed.status, 200) << listed.body;
    const nlohmann::json body = nlohmann::json::parse(listed.body, nullptr, false);
    return body.is_object() ? body.value("count", std::size_t{0}) : 0;
  }

  // The value of a /metrics line "<name> <value>", or -1.
  double Metric(const std::string& name) {
    const Reply metrics = Call("GET", "/metrics");
    const std::string prefix = "\n" + name + " ";
    const std::size_t at = metrics.body.find(prefix);
    if (at == std::string::npos) return -1;
    return std::stod(metrics.body.substr(at + prefix.size()));
  }

  engram::testing::TempDir dir_{"engram_backpressure_test"};
  std::unique_ptr<Engine> engine_;
  std::unique_ptr<server::HttpServer> http_;
  std::unique_ptr<server::V1Api> v1_;
  std::unique_ptr<server::Mem0Api> mem0_;
  std::thread thread_;
};

constexpr char kThreeTurns[] = R"({"turns": [
    {"speaker": "Ana", "text": "I moved to Porto in May."},
    {"speaker": "Ana", "text": "The new flat has a balcony."},
    {"speaker": "Ana", "text": "My sister visits in June."}]})";
constexpr char kOneTurn[] =
    R"({"turns": [{"speaker": "Ana", "text": "I started a pottery class."}]})";

TEST_F(BackpressureTest, AWriteOverTheLimitIs503WithRetryAfterStoresNothingAndLaterSucceeds) {
  const Reply first = Call("POST", "/v1/scopes/user:ana/memories", kThreeTurns);
  ASSERT_EQ(first.status, 201) << first.body;
  EXPECT_EQ(first.retry_after, "");
  EXPECT_EQ(Metric("engram_derivation_pending_turns"), 3);
  EXPECT_EQ(Metric("engram_derivation_pending_scopes"), 1);
  EXPECT_EQ(Metric("engram_derivation_max_pending_turns"), 3);

  // Three turns await derivation: the limit is reached.
  const Reply refused = Call("POST", "/v1/scopes/user:ana/memories", kOneTurn);
  EXPECT_EQ(refused.status, 503) << refused.body;
  EXPECT_EQ(refused.retry_after, "1");  // nothing derived yet: the least hint
  const nlohmann::json error = nlohmann::json::parse(refused.body, nullptr, false);
  ASSERT_TRUE(error.is_object()) << refused.body;
  EXPECT_EQ(error["error"]["code"], "UNAVAILABLE");
  EXPECT_THAT(error["error"]["message"].get<std::string>(),
              HasSubstr("[write] max_pending_turns = 3"));
  EXPECT_EQ(StoredTurns(), 3u);  // nothing stored for the refused write

  // The mem0-compatible add (without infer, acknowledged before derivation) is refused alike.
  const Reply mem0 = Call("POST", "/memories", R"({"messages": [
      {"role": "user", "content": "I started a pottery class."}],
      "user_id": "ana", "infer": false})");
  EXPECT_EQ(mem0.status, 503) << mem0.body;
  EXPECT_EQ(mem0.retry_after, "1");
  EXPECT_EQ(Metric("engram_derivation_refused_writes"), 2);
  EXPECT_EQ(Metric("engram_derivation_pending_turns"), 3);

  // Once the backlog is derived, the same write is accepted.
  ASSERT_TRUE(engine_->WaitForDerivation().ok());
  EXPECT_EQ(Metric("engram_derivation_pending_turns"), 0);
  EXPECT_EQ(Metric("engram_derivation_derived_turns"), 3);
  const Reply accepted = Call("POST", "/v1/scopes/user:ana/memories", kOneTurn);
  EXPECT_EQ(accepted.status, 201) << accepted.body;
  EXPECT_EQ(StoredTurns(), 4u);
  EXPECT_EQ(Metric("engram_derivation_pending_turns"), 1);
  EXPECT_EQ(Metric("engram_derivation_refused_writes"), 2);
}

TEST_F(BackpressureTest, AWriteThatWaitsForItsDerivationIsNeverRefused) {
  ASSERT_EQ(Call("POST", "/v1/scopes/user:ana/memories", kThreeTurns).status, 201);
  // mem0's add with infer (the default) returns after the derivation, so it adds no backlog.
  const Reply inferred = Call("POST", "/memories", R"({"messages": [
      {"role": "user", "content": "I started a pottery class."}], "user_id": "ana"})");
  EXPECT_EQ(inferred.status, 200) << inferred.body;
  EXPECT_EQ(inferred.retry_after, "");
}

}  // namespace
}  // namespace engram
