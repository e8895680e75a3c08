// embed_command.cc: `engram embed TEXT...` prints the built-in sentence encoder's vectors, or,
// with exactly two texts, their cosine similarity — a quick look at what the vector space thinks
// is similar.
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "core/paths.h"
#include "core/utf8.h"
#include "embed/use_lite.h"

namespace engram::cli {
namespace {

struct EmbedArgs {
  std::vector<std::string> texts;
  bool vectors = false;  // print the vectors even for two texts
};

int RunEmbed(const EmbedArgs& args, Console& console) {
  // The same text checks as a turn's (ingest): valid UTF-8, not blank.
  for (std::size_t text_idx = 0; text_idx < args.texts.size(); ++text_idx) {
    const std::string& text = args.texts[text_idx];
    const std::string which = "text " + std::to_string(text_idx + 1);
    if (auto bad = core::FindInvalidUtf8(text)) {
      return console.UsageError("embed",
                                which + " is not valid UTF-8 (byte " + std::to_string(*bad) + ")");
    }
    if (core::IsBlank(text)) return console.UsageError("embed", which + " is empty");
  }
  const std::string model_dir =
      core::ResolveDataDir(console.global().data_dir) + "/models/use-lite";
  StatusOr<std::unique_ptr<embed::UseLiteEmbedder>> embedder =
      embed::UseLiteEmbedder::Open(model_dir);
  if (!embedder.ok()) return console.Fail("embed", embedder.status());
  StatusOr<std::vector<std::vector<float>>> vectors = (*embedder)->Embed(args.texts);
  if (!vectors.ok()) return console.Fail("embed", vectors.status());
  const bool pair = args.texts.size() == 2 && !args.vectors;
  const float cosine = pair ? embed::Cosine((*vectors)[0], (*vectors)[1]) : 0.0f;
  if (console.json()) {
    io::Json json = io::Json::object();
    json["model"] = (*embedder)->model_id();
    json["dimension"] = (*embedder)->dimension();
    if (pair) {
      json["texts"] = args.texts;
      json["cosine"] = cosine;
    } else {
      io::Json list = io::Json::array();
      for (std::size_t text_idx = 0; text_idx < args.texts.size(); ++text_idx) {
        list.push_back({{"text", args.texts[text_idx]}, {"vector", (*vectors)[text_idx]}});
      }
      json["embeddings"] = std::move(list);
    }
    console.PrintJson(json);
    return ToInt(ExitCode::kOk);
  }
  if (pair) {
    std::ostringstream line;
    line.precision(4);
    line << std::fixed << cosine;
    console.out() << "cosine " << line.str() << "  (" << (*embedder)->model_id() << ")\n";
    return ToInt(ExitCode::kOk);
  }
  for (std::size_t text_idx = 0; text_idx < args.texts.size(); ++text_idx) {
    console.out() << Printable(Excerpt(args.texts[text_idx], 60)) << "\t";
    const std::vector<float>& vector = (*vectors)[text_idx];
    for (std::size_t dim = 0; dim < vector.size(); ++dim) {
      console.out() << (dim ? " " : "") << vector[dim];
    }
    console.out() << "\n";
  }
  return ToInt(ExitCode::kOk);
}

}  // namespace

void AddEmbedCommand(CLI::App& app, Console& console, CommandList* commands) {
  auto args = std::make_shared<EmbedArgs>();
  CLI::App* embed = app.add_subcommand(
      "embed", "Sentence vectors of the texts (USE-lite); with two texts, their cosine");
  embed->add_option("text", args->texts, "Texts to embed")->required();
  embed->add_flag("--vectors", args->vectors, "Print vectors even when given two texts");
  commands->push_back({embed, [args, &console] { return RunEmbed(*args, console); }});
}

}  // namespace engram::cli
