// A real HttpServer for the server suites: a fresh store in a temporary directory (hashing
// embedder, so no model files are needed), the /v1 and mem0-compatible routes as `engram serve`
// mounts them, a port picked by the kernel on
// 127.0.0.1, and a small client that returns status, parsed JSON body and request id.
#ifndef ENGRAM_TESTS_SERVER_SERVER_FIXTURE_H_
#define ENGRAM_TESTS_SERVER_SERVER_FIXTURE_H_

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "auth/keys.h"
#include "engram/engine.h"
#include "engram/testing/temp_dir.h"
#include "server/api_v1.h"
#include "server/http_server.h"
#include "server/mem0_api.h"

namespace engram::testing {

// The engine configuration of every server test: defaults with the hashing embedder.
Config TestConfig();

struct HttpResult {
  int status = 0;     // 0 when the request failed at the transport level
  std::string error;  // the transport error then
  std::string raw;
  nlohmann::json body;  // null when `raw` is not JSON
  std::string request_id;
  std::string content_type;
};

struct TestServerOptions {
  bool with_keys = false;
  server::ApiLimits limits;
  std::size_t threads = 8;
  std::size_t queue_limit = 256;
  std::size_t max_body_bytes = 1024 * 1024;
  int read_timeout_seconds = 10;
  int keep_alive_timeout_seconds = 5;
  std::size_t max_connections = 512;
  std::size_t max_connections_per_client = 64;
  std::vector<std::string> allowed_origins;
  bool allow_admin = false;
  // Called after the /v1 routes are added and before Bind (to mount more routes).
  std::function<void(server::HttpServer&)> before_bind;
  // The engine's configuration, and its model and lexicon files ("" = the default, what
  // scripts/setup fills).
  Config config = TestConfig();
  std::string data_dir;
};

class TestServer {
 public:
  explicit TestServer(TestServerOptions options = {});
  ~TestServer();

  int port() const { return port_; }
  Engine& engine() { return *engine_; }
  server::HttpServer& http() { return *http_; }

  // Sends one request; `key` goes in "Authorization: Bearer <key>" when not empty.
  HttpResult Call(const std::string& method, const std::string& path, const std::string& body = "",
                  const std::string& key = "",
                  const std::multimap<std::string, std::string>& headers = {});
  // Creates a key in the server's keys file and reloads it; returns the secret.
  std::string AddKey(const std::string& scope, const std::string& rights);
  // Revokes the key whose secret is `secret` and reloads.
  void RevokeKey(const std::string& secret);

 private:
  TempDir dir_;
  std::unique_ptr<Engine> engine_;
  std::unique_ptr<server::V1Api> v1_;
  std::unique_ptr<server::Mem0Api> mem0_;
  std::unique_ptr<server::HttpServer> http_;
  std::thread thread_;
  int port_ = 0;
};

}  // namespace engram::testing

#endif  // ENGRAM_TESTS_SERVER_SERVER_FIXTURE_H_
