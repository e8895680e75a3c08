// Helpers for the integration suites (see test_util.h).
#include "test_util.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace engram::testing {

EngineOptions TestOptions(const TempDir& dir, const std::string& name) {
  EngineOptions options;
  options.store_path = dir.File(name);
  options.clock = FixedClock(Timestamp::FromSeconds(1704067200), 1000);
  return options;
}

StoreBackend SqliteBackend() {
  return StoreBackend{"sqlite",
                      [](const TempDir& dir, const std::string& name) { return dir.File(name); },
                      nullptr};
}

EngineOptions TestOptions(const StoreBackend& backend, const TempDir& dir,
                          const std::string& name) {
  EngineOptions options = TestOptions(dir, name);
  options.store_path = backend.locate(dir, name);
  return options;
}

std::unique_ptr<Engine> OpenOrDie(const EngineOptions& options) {
  StatusOr<std::unique_ptr<Engine>> engine = Engine::Open(options);
  if (!engine.ok()) {
    ADD_FAILURE() << "Engine::Open: " << engine.status();
    std::abort();
  }
  return std::move(engine).value();
}

Turn MakeTurn(std::string speaker, std::string text, std::string session,
              std::string event_time) {
  Turn turn;
  turn.speaker = std::move(speaker);
  turn.text = std::move(text);
  turn.session_id = std::move(session);
  turn.event_time = ParseTimestamp(event_time).value();
  return turn;
}

Scope S(const std::string& text) { return Scope::Parse(text).value(); }

std::string ReadFileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::vector<std::string> ItemIds(const ReadResult& result) {
  std::vector<std::string> ids;
  for (const RecallItem& item : result.items) ids.push_back(item.id);
  return ids;
}

}  // namespace engram::testing
