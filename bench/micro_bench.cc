// engram_micro_bench: micro-benchmarks of the hot paths (DESIGN §1.7: every hot path has a
// benchmark). The text is the deterministic synthetic conversation of src/eval/synthetic.h, so
// runs are comparable across machines and commits.
//
//   BM_Tokenize            tokenizer throughput (bytes/s) over 1,000 synthetic turns
//   BM_Bm25Search/N        one BM25 query (top 100, the route's candidate limit) over N docs
//   BM_RememberBatch10     Engine::Remember of a 10-turn batch (one SQLite transaction)
//   BM_Recall600           Engine::Recall at default settings on a 600-turn scope
//
// The end-to-end figures (ingest turns/s, recall percentiles on LoCoMo, LongMemEval and
// synthetic stores) come from `engram bench`; docs/BENCHMARKS.md has both.
#include <benchmark/benchmark.h>
#include <stdlib.h>

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include "engram/config.h"
#include "engram/engine.h"
#include "eval/synthetic.h"
#include "index/bm25/bm25_index.h"
#include "text/tokenizer.h"

namespace engram {
namespace {

constexpr std::uint64_t kSeed = 42;
constexpr std::size_t kQueries = 256;
constexpr std::size_t kSearchLimit = 100;  // Config::recall.route_candidates
// 2023-01-01T00:00:00Z
constexpr Timestamp kStart = Timestamp::FromSeconds(1672531200);

std::vector<std::string> Sentences(std::size_t count, std::uint64_t seed) {
  eval::SyntheticText text(seed);
  std::vector<std::string> sentences;
  sentences.reserve(count);
  for (std::size_t sentence_idx = 0; sentence_idx < count; ++sentence_idx) {
    sentences.push_back(text.Sentence());
  }
  return sentences;
}

std::vector<std::string> Questions(std::size_t count) {
  eval::SyntheticText text(kSeed + 1);
  std::vector<std::string> questions;
  questions.reserve(count);
  for (std::size_t question_idx = 0; question_idx < count; ++question_idx) {
    questions.push_back(text.Question());
  }
  return questions;
}

// A temporary directory holding one engine's store, removed at exit.
class TempEngine {
 public:
  TempEngine() {
    std::string pattern = (std::filesystem::temp_directory_path() / "engram-micro-XXXXXX").string();
    if (mkdtemp(pattern.data()) != nullptr) dir_ = pattern;
    EngineOptions options;
    options.store_path = dir_ + "/micro.db";
    StatusOr<std::unique_ptr<Engine>> engine = Engine::Open(options);
    if (engine.ok()) engine_ = std::move(engine).value();
  }
  ~TempEngine() {
    engine_.reset();
    std::error_code ignored;
    if (!dir_.empty()) std::filesystem::remove_all(dir_, ignored);
  }
  Engine* get() { return engine_.get(); }

 private:
  std::string dir_;
  std::unique_ptr<Engine> engine_;
};

void BM_Tokenize(benchmark::State& state) {
  const std::vector<std::string> sentences = Sentences(1000, kSeed);
  std::size_t bytes = 0;
  for (const std::string& sentence : sentences) bytes += sentence.size();
  const text::Tokenizer tokenizer;
  for (auto _ : state) {
    for (const std::string& sentence : sentences) {
      std::vector<std::string> terms = tokenizer.Terms(sentence);
      benchmark::DoNotOptimize(terms.data());
    }
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * sentences.size()));
}
BENCHMARK(BM_Tokenize)->Unit(benchmark::kMicrosecond);

const index::Bm25Index& IndexOf(std::size_t docs) {
  static std::map<std::size_t, std::unique_ptr<index::Bm25Index>> indexes;
  auto& slot = indexes[docs];
  if (!slot) {
    slot = std::make_unique<index::Bm25Index>();
    const text::Tokenizer tokenizer;
    eval::SyntheticText text(kSeed);
    for (std::size_t doc = 1; doc <= docs; ++doc) {
      slot->Add(doc, tokenizer.Terms(text.Sentence()));
    }
  }
  return *slot;
}

void BM_Bm25Search(benchmark::State& state) {
  const index::Bm25Index& index = IndexOf(static_cast<std::size_t>(state.range(0)));
  const text::Tokenizer tokenizer;
  std::vector<std::vector<std::string>> queries;
  for (const std::string& question : Questions(kQueries)) {
    queries.push_back(tokenizer.Terms(question));
  }
  const Bm25Config config;
  std::size_t query_idx = 0;
  for (auto _ : state) {
    std::vector<index::Bm25Hit> hits =
        index.Search(queries[query_idx++ % queries.size()], config, kSearchLimit);
    benchmark::DoNotOptimize(hits.data());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Bm25Search)->Arg(10'000)->Arg(100'000)->Unit(benchmark::kMicrosecond);

void BM_RememberBatch10(benchmark::State& state) {
  TempEngine engine;
  if (engine.get() == nullptr) {
    state.SkipWithError("cannot open a temporary engine");
    return;
  }
  const Scope scope(ScopeKind::kUser, "micro");
  eval::SyntheticText text(kSeed);
  std::vector<std::vector<Turn>> batches;
  for (std::size_t batch_idx = 0; batch_idx < 64; ++batch_idx) {
    batches.push_back(text.Session(
        10, "session_" + std::to_string(batch_idx + 1),
        Timestamp{kStart.micros + static_cast<std::int64_t>(batch_idx) * 86'400'000'000}));
  }
  // Load the scope's projection first, as a running server would have.
  if (!engine.get()->Remember(scope, batches[0]).ok() ||
      !engine.get()->Recall(scope, {.text = "warm-up"}, {}).ok()) {
    state.SkipWithError("cannot prepare the scope");
    return;
  }
  std::size_t batch_idx = 0;
  for (auto _ : state) {
    StatusOr<RememberResult> result =
        engine.get()->Remember(scope, batches[batch_idx++ % batches.size()]);
    if (!result.ok()) {
      state.SkipWithError(result.status().ToString().c_str());
      break;
    }
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * 10));
}
BENCHMARK(BM_RememberBatch10)->Unit(benchmark::kMicrosecond);

void BM_Recall600(benchmark::State& state) {
  TempEngine engine;
  if (engine.get() == nullptr) {
    state.SkipWithError("cannot open a temporary engine");
    return;
  }
  const Scope scope(ScopeKind::kUser, "micro-600");
  eval::SyntheticText text(kSeed);
  for (std::size_t session_idx = 0; session_idx < 30; ++session_idx) {
    const std::vector<Turn> session = text.Session(
        20, "session_" + std::to_string(session_idx + 1),
        Timestamp{kStart.micros + static_cast<std::int64_t>(session_idx) * 86'400'000'000});
    if (!engine.get()->Remember(scope, session).ok()) {
      state.SkipWithError("cannot build the scope");
      return;
    }
  }
  const std::vector<std::string> questions = Questions(kQueries);
  const Timestamp now{kStart.micros + 31 * 86'400'000'000LL};
  if (!engine.get()->Recall(scope, {.text = questions[0], .query_time = now}, {}).ok()) {
    state.SkipWithError("first recall failed");
    return;
  }
  std::size_t query_idx = 0;
  for (auto _ : state) {
    StatusOr<ReadResult> result = engine.get()->Recall(
        scope, {.text = questions[query_idx++ % questions.size()], .query_time = now}, {});
    if (!result.ok()) {
      state.SkipWithError(result.status().ToString().c_str());
      break;
    }
    benchmark::DoNotOptimize(result->items.data());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Recall600)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace engram

BENCHMARK_MAIN();
