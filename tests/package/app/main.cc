// engram_package_app: stores one turn and recalls it through the installed engram package.
//   engram_package_app STORE_PATH  -> prints "recalled: <text>" and the provenance, exit 0.
#include <iostream>
#include <memory>

#include "engram/engine.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: engram_package_app STORE_PATH\n";
    return 2;
  }
  engram::EngineOptions options;
  options.store_path = argv[1];
  engram::Config config;
  config.embedder.kind = "none";  // no model files needed
  options.config = config;
  engram::StatusOr<std::unique_ptr<engram::Engine>> engine = engram::Engine::Open(options);
  if (!engine.ok()) {
    std::cerr << engine.status() << "\n";
    return 1;
  }
  const engram::StatusOr<engram::Scope> scope = engram::Scope::Parse("user:alice");
  const engram::Turn turn{
      .role = engram::Role::kUser, .speaker = "Alice", .text = "My sister Maya lives in Porto."};
  if (auto stored = (*engine)->Remember(*scope, {&turn, 1}); !stored.ok()) {
    std::cerr << stored.status() << "\n";
    return 1;
  }
  const engram::StatusOr<engram::ReadResult> result =
      (*engine)->Recall(*scope, {.text = "Where does Maya live?"}, {});
  if (!result.ok() || result->items.empty()) {
    std::cerr << (result.ok() ? "no items" : result.status().ToString()) << "\n";
    return 1;
  }
  std::cout << "recalled: " << result->items.front().text << "\n";
  for (const std::string& id : result->items.front().provenance) {
    std::cout << "provenance: " << id << "\n";
  }
  return 0;
}
