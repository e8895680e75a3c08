// reembed_command.cc: `engram reembed` re-embeds every turn of the store with the configured
// embedder ([embedder]) and records it as the store's embedder — the migration after changing
// embedders, which otherwise makes opening the store fail. Idempotent.
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

#include "cli/cli.h"

namespace engram::cli {
namespace {

int RunReembed(Console& console) {
  constexpr std::string_view kCommand = "reembed";
  EngineOptions options;
  options.store_path = console.global().store;
  options.data_dir = console.global().data_dir;
  options.config_file = console.global().config;
  options.create_if_missing = false;
  options.check_embedder = false;  // the point of the command: the store may record another one
  StatusOr<std::unique_ptr<Engine>> engine = Engine::Open(options);
  if (!engine.ok()) return console.Fail(kCommand, engine.status());

  // Progress on stderr: at most one line per second, and the last one.
  auto last_note = std::chrono::steady_clock::now() - std::chrono::seconds(2);
  auto progress = [&](std::size_t done, std::size_t total) {
    const auto now = std::chrono::steady_clock::now();
    if (done != total && now - last_note < std::chrono::seconds(1)) return;
    last_note = now;
    console.Note("reembed: " + std::to_string(done) + "/" + std::to_string(total) + " turns");
  };
  StatusOr<ReembedResult> result = (*engine)->Reembed(progress);
  if (!result.ok()) return console.Fail(kCommand, result.status());
  if (console.json()) {
    io::Json json = io::Json::object();
    json["previous_model"] = result->previous_model_id;
    json["model"] = result->model_id;
    json["dimension"] = result->dimension;
    json["turns"] = result->turns;
    json["seconds"] = result->seconds;
    console.PrintJson(json);
    return ToInt(ExitCode::kOk);
  }
  char seconds[32];
  std::snprintf(seconds, sizeof(seconds), "%.2f", result->seconds);
  const std::string previous =
      result->previous_model_id.empty() ? "no embedder" : result->previous_model_id;
  console.out() << "re-embedded " << result->turns << " turn(s) with " << result->model_id
                << " (was " << previous << ") in " << seconds << " s\n";
  return ToInt(ExitCode::kOk);
}

}  // namespace

void AddReembedCommand(CLI::App& app, Console& console, CommandList* commands) {
  CLI::App* reembed = app.add_subcommand(
      "reembed",
      "Re-embed every turn with the configured embedder and record it as the store's embedder");
  commands->push_back({reembed, [&console] { return RunReembed(console); }});
}

}  // namespace engram::cli
