// The server suites' fixture (see server_fixture.h).
#include "server_fixture.h"

#include <gtest/gtest.h>
#include <httplib.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "core/sha256.h"

namespace engram::testing {

Config TestConfig() {
  Config config;
  config.embedder.kind = "hashing";
  return config;
}

TestServer::TestServer(TestServerOptions options) {
  EngineOptions engine_options;
  engine_options.store_path = dir_.File("engram.db");
  engine_options.config = options.config;
  engine_options.data_dir = options.data_dir;
  engine_options.clock = FixedClock(Timestamp::FromSeconds(1704067200), 1000);
  StatusOr<std::unique_ptr<Engine>> engine = Engine::Open(engine_options);
  if (!engine.ok()) {
    ADD_FAILURE() << engine.status();
    std::abort();
  }
  engine_ = *std::move(engine);
  server::ServerOptions server_options;
  server_options.host = "127.0.0.1";
  server_options.port = 0;
  server_options.threads = options.threads;
  server_options.queue_limit = options.queue_limit;
  server_options.max_body_bytes = options.max_body_bytes;
  server_options.read_timeout_seconds = options.read_timeout_seconds;
  server_options.keep_alive_timeout_seconds = options.keep_alive_timeout_seconds;
  server_options.max_connections = options.max_connections;
  server_options.max_connections_per_client = options.max_connections_per_client;
  server_options.allowed_origins = options.allowed_origins;
  server_options.allow_admin = options.allow_admin;
  server_options.store_path = engine_options.store_path;
  std::unique_ptr<auth::KeyFile> keys;
  if (options.with_keys) {
    server_options.keys_path = dir_.File("keys.json");
    keys = std::make_unique<auth::KeyFile>();
    if (!keys->Save(server_options.keys_path).ok()) std::abort();
  }
  http_ = std::make_unique<server::HttpServer>(*engine_, server_options, std::move(keys));
  v1_ = std::make_unique<server::V1Api>(*engine_, options.limits, &http_->metrics());
  http_->AddRoutes(v1_->Routes());
  mem0_ = std::make_unique<server::Mem0Api>(*engine_, server::Mem0Options{});
  http_->AddRoutes(mem0_->Routes());
  if (options.before_bind) options.before_bind(*http_);
  const Status bound = http_->Bind();
  if (!bound.ok()) {
    ADD_FAILURE() << bound;
    std::abort();
  }
  port_ = http_->port();
  thread_ = std::thread([this] { (void)http_->Run(); });
}

TestServer::~TestServer() {
  http_->Stop();
  if (thread_.joinable()) thread_.join();
  http_.reset();
  v1_.reset();
  engine_.reset();
}

HttpResult TestServer::Call(const std::string& method, const std::string& path,
                            const std::string& body, const std::string& key,
                            const std::multimap<std::string, std::string>& headers) {
  httplib::Client client("127.0.0.1", port_);
  client.set_connection_timeout(30, 0);
  client.set_read_timeout(60, 0);
  httplib::Headers sent(headers.begin(), headers.end());
  if (!key.empty()) sent.emplace("Authorization", "Bearer " + key);
  auto send = [&]() -> httplib::Result {
    if (method == "GET") return client.Get(path.c_str(), sent);
    if (method == "POST") return client.Post(path.c_str(), sent, body, "application/json");
    if (method == "PUT") return client.Put(path.c_str(), sent, body, "application/json");
    return client.Delete(path.c_str(), sent, body, "application/json");
  };
  httplib::Result result = send();
  HttpResult out;
  if (!result) {
    out.error = httplib::to_string(result.error());
    return out;
  }
  out.status = result->status;
  out.raw = result->body;
  out.request_id = result->get_header_value("X-Request-Id");
  out.content_type = result->get_header_value("Content-Type");
  out.body = nlohmann::json::parse(out.raw, nullptr, /*allow_exceptions=*/false);
  if (out.body.is_discarded()) out.body = nullptr;
  return out;
}

std::string TestServer::AddKey(const std::string& scope, const std::string& rights) {
  const std::string path = dir_.File("keys.json");
  auth::KeyFile file = auth::KeyFile::LoadOrEmpty(path).value();
  Scope parsed;
  if (scope != "*") parsed = Scope::Parse(scope).value();
  auth::CreatedKey created = file.Create(parsed, auth::ParseRights(rights).value(), "test",
                                         Timestamp::FromSeconds(1704067200))
                                 .value();
  if (!file.Save(path).ok() || !http_->ReloadKeys().ok()) std::abort();
  return created.secret;
}

void TestServer::RevokeKey(const std::string& secret) {
  const std::string path = dir_.File("keys.json");
  auth::KeyFile file = auth::KeyFile::Load(path).value();
  const std::string digest = core::Sha256Hex(secret);
  for (const auth::KeyRecord& record : file.keys()) {
    if (record.sha256 == digest && !file.Revoke(record.id).ok()) std::abort();
  }
  if (!file.Save(path).ok() || !http_->ReloadKeys().ok()) std::abort();
}

}  // namespace engram::testing
