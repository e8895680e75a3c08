// Helper process for crash_test.cc: writes numbered batches into a store forever (or up to a
// limit) and prints "ack N" after each Remember call returns OK. The test kills it with SIGKILL.
//   engram_crash_writer STORE BATCH_SIZE MAX_BATCHES
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "engram/engine.h"

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s STORE BATCH_SIZE MAX_BATCHES\n", argv[0]);
    return 2;
  }
  engram::EngineOptions options;
  options.store_path = argv[1];
  const int batch_size = std::atoi(argv[2]);
  const int max_batches = std::atoi(argv[3]);
  auto engine = engram::Engine::Open(options);
  if (!engine.ok()) {
    std::fprintf(stderr, "open: %s\n", engine.status().ToString().c_str());
    return 1;
  }
  const engram::Scope scope(engram::ScopeKind::kWorld, "crash");
  for (int batch = 0; batch < max_batches; ++batch) {
    std::vector<engram::Turn> turns;
    for (int turn_idx = 0; turn_idx < batch_size; ++turn_idx) {
      engram::Turn turn;
      turn.speaker = "writer";
      turn.session_id = "batch-" + std::to_string(batch);
      turn.text = "crashword" + std::to_string(batch) + " turn " + std::to_string(turn_idx) +
                  " with some padding text to make the pages fill up a little faster";
      turns.push_back(std::move(turn));
    }
    auto result = (*engine)->Remember(scope, turns);
    if (!result.ok()) {
      std::fprintf(stderr, "remember: %s\n", result.status().ToString().c_str());
      return 1;
    }
    std::printf("ack %d\n", batch);
    std::fflush(stdout);
  }
  return 0;
}
