// engram_micro_bench: micro-benchmarks of the hot paths (DESIGN §1.7: every hot path has a
// benchmark). The text is the deterministic synthetic conversation of src/eval/synthetic.h, so
// runs are comparable across machines and commits.
//
//   BM_Tokenize            tokenizer throughput (bytes/s) over 1,000 synthetic turns
//   BM_FindTimeExpressions/R  text::FindTimeExpressions over R repeats of a 30-byte piece with two
//                          time expressions (with its fitted complexity: linear is expected)
//   BM_DetectSignals60Words  text::DetectSignals on one 60-word turn (design budget: < 100 µs)
//   BM_DetectSignalsLong/R text::DetectSignals over R repeats of a cue-dense 80-byte sentence
//                          (with its fitted complexity)
//   BM_Bm25Search/N        one BM25 query (top 100, the route's candidate limit) over N docs
//   BM_RememberBatch10     Engine::Remember of a 10-turn batch (one SQLite transaction)
//   BM_Recall600           Engine::Recall at default settings on a 600-turn scope
//   BM_Recall600Parallel/threads:T  the same recalls from T threads sharing one engine (real
//                          time: items/s is the engine's recall throughput at T concurrent callers)
//   BM_EncodeUseLite/W/T   USE-lite sentences/s for W-word sentences (8, 60) on T threads (1, 2),
//                          64 sentences per Embed call (skipped when the model is not installed)
//   BM_EncodeUseLitePrecision/P/W  the same on 1 thread, CPU time, per precision and int8 code path
//                          (P: 0 float32, 1 int8 on the CPU's best path, 2 int8 AVX2, 3 int8
//                          scalar), with the achieved GFLOP/s of the forward pass
//   BM_WordNeighbours/P/V  word-vector neighbours (cosine >= 0.6, 3 per term) of one synthetic
//                          question's terms in a V-term vocabulary of GloVe stems, by search
//                          (P: 0 exhaustive over the terms as strings, the reference; 1 the
//                          gathered vocabulary's int8 codes on the CPU's best path, 2 on AVX2,
//                          3 scalar), with the pairs searched per second (skipped when the word
//                          vectors are not installed)
//   BM_VectorSearchExact/N one k=10 query over N unit 512-d vectors, exact scan
//   BM_VectorSearchHnsw/N  the same through HNSW with the engine's [vector] defaults
//
// The engine benchmarks use the default configuration, so Remember includes embedding the turns
// with USE-lite (the model must be installed: scripts/setup).
//
// The end-to-end figures (ingest turns/s, recall percentiles on LoCoMo, LongMemEval and
// synthetic stores) come from `engram bench`; docs/BENCHMARKS.md has both.
#include <benchmark/benchmark.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "core/paths.h"
#include "core/sha256.h"
#include "embed/use_lite.h"
#include "engram/config.h"
#include "engram/engine.h"
#include "eval/synthetic.h"
#include "index/bm25/bm25_index.h"
#include "index/vector/exact_index.h"
#include "index/vector/hnsw_index.h"
#include "lexicon/word_vectors.h"
#include "read/scope_graph.h"
#include "read/scope_structure.h"
#include "store/store.h"
#include "text/signals.h"
#include "text/temporal.h"
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
  std::string store_path() const { return dir_ + "/micro.db"; }

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

// SHA-256 over 1 MiB (the model files' checksums at open, Merkle roots) and over a node's id
// material (~100 bytes, one per stored node): Arg 0 the portable code, 1 the x86 SHA extensions.
void BM_Sha256(benchmark::State& state) {
  const auto path =
      state.range(0) == 0 ? core::Sha256::Path::kPortable : core::Sha256::Path::kShaExtensions;
  if (!core::Sha256::Supported(path)) {
    state.SkipWithError("this CPU has no SHA extensions");
    return;
  }
  const std::string data(static_cast<std::size_t>(state.range(1)), 'x');
  for (auto _ : state) {
    core::Sha256 hasher(path);
    hasher.Update(data);
    benchmark::DoNotOptimize(hasher.Finish());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * data.size()));
}
BENCHMARK(BM_Sha256)
    ->Args({0, 1 << 20})
    ->Args({1, 1 << 20})
    ->Args({0, 100})
    ->Args({1, 100})
    ->Unit(benchmark::kMicrosecond);

std::string Repeated(std::string_view piece, std::int64_t repeats) {
  std::string text;
  text.reserve(piece.size() * static_cast<std::size_t>(repeats));
  for (std::int64_t repeat = 0; repeat < repeats; ++repeat) text += piece;
  return text;
}

void BM_FindTimeExpressions(benchmark::State& state) {
  const std::string text = Repeated("on May 8 2023 and 3 days ago, ", state.range(0));
  for (auto _ : state) {
    std::vector<text::TimeMention> mentions = text::FindTimeExpressions(text, kStart);
    benchmark::DoNotOptimize(mentions.data());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * text.size()));
  state.SetComplexityN(state.range(0));
}
BENCHMARK(BM_FindTimeExpressions)
    ->RangeMultiplier(4)
    ->Range(1'024, 16'384)
    ->Complexity()
    ->Unit(benchmark::kMillisecond);

void BM_DetectSignals60Words(benchmark::State& state) {
  const std::string turn =
      "Hey! Yesterday I met my friend Anna at Blue Bottle in San Francisco and we talked for "
      "2 hours about her new job at Acme Inc. She makes $120k now, about 15% more than before. "
      "I think I'll switch from Python 3.9 to Rust next month; see https://rust-lang.org or "
      "ticket ENG-4521. Actually, I meant the week after.";
  for (auto _ : state) {
    std::vector<text::Signal> signals = text::DetectSignals(turn, kStart);
    benchmark::DoNotOptimize(signals.data());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_DetectSignals60Words)->Unit(benchmark::kMicrosecond);

void BM_DetectSignalsLong(benchmark::State& state) {
  const std::string text = Repeated(
      "I think I love sushi, no longer Paris; it cost $5 on May 8 at https://x.com/a. ",
      state.range(0));
  for (auto _ : state) {
    std::vector<text::Signal> signals = text::DetectSignals(text, kStart);
    benchmark::DoNotOptimize(signals.data());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * text.size()));
  state.SetComplexityN(state.range(0));
}
BENCHMARK(BM_DetectSignalsLong)
    ->RangeMultiplier(4)
    ->Range(512, 8'192)
    ->Complexity()
    ->Unit(benchmark::kMillisecond);

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

// A 600-turn scope (30 sessions of 20) in `engine`, consolidated, and a second handle on its
// store with the scope's id; false when something failed.
bool Build600(TempEngine& engine, const Scope& scope, std::unique_ptr<store::Store>& store,
              std::int64_t& scope_id) {
  eval::SyntheticText text(kSeed);
  for (std::size_t session_idx = 0; session_idx < 30; ++session_idx) {
    const std::vector<Turn> session = text.Session(
        20, "session_" + std::to_string(session_idx + 1),
        Timestamp{kStart.micros + static_cast<std::int64_t>(session_idx) * 86'400'000'000});
    if (!engine.get()->Remember(scope, session).ok()) return false;
  }
  if (!engine.get()->Consolidate(scope).ok()) return false;
  StatusOr<std::unique_ptr<store::Store>> opened = store::OpenSqliteStore(engine.store_path());
  if (!opened.ok()) return false;
  store = std::move(opened).value();
  StatusOr<std::optional<store::ScopeRecord>> record = store->FindScope(scope.ToString());
  if (!record.ok() || !record->has_value()) return false;
  scope_id = (*record)->scope_id;
  return true;
}

// The scope graph of the entity and fact routes after each one-turn write, over a 600-turn
// scope: Arg 0 reloads it from the store (what the cache did after every write before it
// followed the journal), Arg 1 lets the journal-following cache apply the write's rows. The
// write itself is not timed.
void BM_ScopeGraphAfterWrite(benchmark::State& state) {
  TempEngine engine;
  const Scope scope(ScopeKind::kUser, "micro-graph");
  std::unique_ptr<store::Store> store;
  std::int64_t scope_id = 0;
  if (engine.get() == nullptr || !Build600(engine, scope, store, scope_id)) {
    state.SkipWithError("cannot build the scope");
    return;
  }
  const bool incremental = state.range(0) == 1;
  read::ScopeGraphCache cache;
  const std::int64_t scope_ids[] = {scope_id};
  if (!cache.Get(*store, scope_ids, true).ok()) {
    state.SkipWithError("cannot load the graph");
    return;
  }
  eval::SyntheticText text(kSeed + 7);
  std::int64_t write_idx = 0;
  for (auto _ : state) {
    state.PauseTiming();
    std::vector<Turn> turn = text.Session(
        1, "session_late", Timestamp{kStart.micros + (40 * 86'400 + write_idx++) * 1'000'000});
    const bool written = engine.get()->Remember(scope, turn).ok();
    state.ResumeTiming();
    if (!written) {
      state.SkipWithError("write failed");
      break;
    }
    if (incremental) {
      auto graphs = cache.Get(*store, scope_ids, true);
      benchmark::DoNotOptimize(graphs);
    } else {
      auto graph = read::ScopeGraph::Load(*store, scope_id, true);
      benchmark::DoNotOptimize(graph);
    }
  }
  state.counters["loads"] = static_cast<double>(cache.stats().loads);
}
BENCHMARK(BM_ScopeGraphAfterWrite)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

// The episodes and scenes the scene route reads per recall over a consolidated 600-turn scope:
// Arg 0 reads them from the store (the route before the cache), Arg 1 from the cache when
// nothing changed (one journal query).
void BM_SceneStructurePerRecall(benchmark::State& state) {
  TempEngine engine;
  const Scope scope(ScopeKind::kUser, "micro-scenes");
  std::unique_ptr<store::Store> store;
  std::int64_t scope_id = 0;
  if (engine.get() == nullptr || !Build600(engine, scope, store, scope_id)) {
    state.SkipWithError("cannot build the scope");
    return;
  }
  read::ScopeStructureCache cache;
  const std::int64_t scope_ids[] = {scope_id};
  for (auto _ : state) {
    if (state.range(0) == 1) {
      auto structures = cache.Get(*store, scope_ids, {});
      benchmark::DoNotOptimize(structures);
    } else {
      auto structure = read::ScopeStructure::Load(*store, scope_id, {});
      benchmark::DoNotOptimize(structure);
    }
  }
}
BENCHMARK(BM_SceneStructurePerRecall)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

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

// One 600-turn engine shared by every thread count of BM_Recall600Parallel (built once).
Engine* SharedRecallEngine() {
  static TempEngine engine;
  static const bool ready = [] {
    if (engine.get() == nullptr) return false;
    const Scope scope(ScopeKind::kUser, "micro-600");
    eval::SyntheticText text(kSeed);
    for (std::size_t session_idx = 0; session_idx < 30; ++session_idx) {
      const std::vector<Turn> session = text.Session(
          20, "session_" + std::to_string(session_idx + 1),
          Timestamp{kStart.micros + static_cast<std::int64_t>(session_idx) * 86'400'000'000});
      if (!engine.get()->Remember(scope, session).ok()) return false;
    }
    return true;
  }();
  return ready ? engine.get() : nullptr;
}

void BM_Recall600Parallel(benchmark::State& state) {
  // Thread 0 prepares before the loop; every thread waits at the loop's start barrier.
  Engine* engine = SharedRecallEngine();
  if (engine == nullptr) {
    state.SkipWithError("cannot open a temporary engine");
    return;
  }
  const Scope scope(ScopeKind::kUser, "micro-600");
  const std::vector<std::string> questions = Questions(kQueries);
  const Timestamp now{kStart.micros + 31 * 86'400'000'000LL};
  std::size_t query_idx = static_cast<std::size_t>(state.thread_index()) * 37;
  for (auto _ : state) {
    StatusOr<ReadResult> result = engine->Recall(
        scope, {.text = questions[query_idx++ % questions.size()], .query_time = now}, {});
    if (!result.ok()) {
      state.SkipWithError(result.status().ToString().c_str());
      break;
    }
    benchmark::DoNotOptimize(result->items.data());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Recall600Parallel)
    ->Threads(1)
    ->Threads(2)
    ->Threads(4)
    ->Threads(8)
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);

// Sentences of exactly `words` words, cut from the synthetic conversation's text.
std::vector<std::string> SentencesOfWords(std::size_t count, std::size_t words) {
  eval::SyntheticText text(kSeed + 7);
  std::vector<std::string> pool;
  std::vector<std::string> sentences;
  while (sentences.size() < count) {
    std::istringstream in(text.Sentence());
    std::string word;
    while (in >> word) pool.push_back(word);
    while (pool.size() >= words && sentences.size() < count) {
      std::string sentence;
      for (std::size_t word_idx = 0; word_idx < words; ++word_idx) {
        sentence += (word_idx ? " " : "") + pool[word_idx];
      }
      pool.erase(pool.begin(), pool.begin() + static_cast<std::ptrdiff_t>(words));
      sentences.push_back(std::move(sentence));
    }
  }
  return sentences;
}

void BM_EncodeUseLite(benchmark::State& state) {
  const std::size_t words = static_cast<std::size_t>(state.range(0));
  embed::UseLiteOptions options;
  options.num_threads = static_cast<std::size_t>(state.range(1));
  StatusOr<std::unique_ptr<embed::UseLiteEmbedder>> embedder = embed::UseLiteEmbedder::Open(
      embed::UseLiteModelDir(core::ResolveDataDir("")), options);
  if (!embedder.ok()) {
    state.SkipWithError(embedder.status().ToString().c_str());
    return;
  }
  const std::vector<std::string> sentences = SentencesOfWords(64, words);
  for (auto _ : state) {
    StatusOr<std::vector<std::vector<float>>> vectors = (*embedder)->Embed(sentences);
    if (!vectors.ok()) {
      state.SkipWithError(vectors.status().ToString().c_str());
      break;
    }
    benchmark::DoNotOptimize(vectors->data());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * sentences.size()));
}
BENCHMARK(BM_EncodeUseLite)
    ->ArgsProduct({{8, 60}, {1, 2}})
    ->ArgNames({"words", "threads"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_WordNeighbours(benchmark::State& state) {
  StatusOr<std::shared_ptr<const lexicon::WordVectors>> loaded =
      lexicon::WordVectors::Load(core::ResolveDataDir(""));
  if (!loaded.ok()) {
    state.SkipWithError(loaded.status().ToString().c_str());
    return;
  }
  const lexicon::WordVectors& vectors = **loaded;
  // Every fourth stem from the most frequent on: common and rarer words, as a scope holds.
  const auto size = static_cast<std::size_t>(state.range(1));
  std::vector<std::string> terms;
  for (std::size_t row = 0; row < vectors.size() && terms.size() < size; row += 4) {
    terms.push_back(vectors.term(row));
  }
  const std::vector<std::string_view> vocabulary(terms.begin(), terms.end());
  lexicon::VocabularyVectors gathered(vectors);
  for (const std::string& term : terms) gathered.Add(term);
  const lexicon::VocabularyVectors* const gathered_list[] = {&gathered};
  const text::Tokenizer tokenizer;
  const std::vector<std::string> questions = Questions(kQueries);
  std::size_t question_idx = 0;
  std::size_t pairs = 0;
  for (auto _ : state) {
    const std::vector<std::string> query =
        tokenizer.Terms(questions[question_idx++ % questions.size()]);
    pairs += query.size() * terms.size();
    switch (state.range(0)) {
      case 0:
        benchmark::DoNotOptimize(vectors.Neighbours(query, vocabulary, 0.6, 3));
        break;
      case 1:
        benchmark::DoNotOptimize(vectors.Neighbours(query, gathered_list, 0.6, 3));
        break;
      default: {
        const SimdPath path = state.range(0) == 2 ? SimdPath::kAvx2 : SimdPath::kScalar;
        if (!SimdPathSupported(path)) {
          state.SkipWithError("code path not supported on this CPU");
          return;
        }
        benchmark::DoNotOptimize(vectors.Neighbours(query, gathered_list, 0.6, 3, {}, path));
        break;
      }
    }
  }
  state.counters["pairs/s"] =
      benchmark::Counter(static_cast<double>(pairs), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_WordNeighbours)
    ->ArgsProduct({{0, 1, 2, 3}, {5'000, 50'000}})
    ->ArgNames({"search", "vocabulary"})
    ->Unit(benchmark::kMicrosecond);

// Floating-point operations (a multiply-add counts 2) of one USE-lite forward pass over n tokens:
// the dense layers (4,653,056 multiply-adds per token: layer 0 256·512 + 256·768 + 256·512 +
// 2·512·1536, layer 1 512·1536 + 512·512 + 2·512·1536), attention (Q·Kᵀ and weights·V: 2·n² per
// layer width, widths 256 and 512) and the pooling layer (512·512 per text). Softmax, layer norms
// and quantisation are not counted.
double UseLiteFlops(std::size_t tokens) {
  const auto n = static_cast<double>(std::min<std::size_t>(tokens, 128));
  return 2.0 * 4653056.0 * n + 2.0 * 2.0 * n * n * (256.0 + 512.0) + 2.0 * 512.0 * 512.0;
}

void BM_EncodeUseLitePrecision(benchmark::State& state) {
  embed::UseLiteOptions options;
  options.num_threads = 1;
  switch (state.range(0)) {
    case 0:
      options.precision = embed::UseLitePrecision::kFloat32;
      break;
    case 1:
      break;
    case 2:
      options.kernel_path = SimdPath::kAvx2;
      break;
    default:
      options.kernel_path = SimdPath::kScalar;
      break;
  }
  StatusOr<std::unique_ptr<embed::UseLiteEmbedder>> embedder = embed::UseLiteEmbedder::Open(
      embed::UseLiteModelDir(core::ResolveDataDir("")), options);
  if (!embedder.ok()) {
    state.SkipWithError(embedder.status().ToString().c_str());
    return;
  }
  const std::vector<std::string> sentences =
      SentencesOfWords(64, static_cast<std::size_t>(state.range(1)));
  double flops = 0.0;
  std::size_t tokens = 0;
  for (const std::string& sentence : sentences) {
    const std::size_t count = (*embedder)->tokenizer().Encode(sentence).size();
    tokens += count;
    flops += UseLiteFlops(count);
  }
  for (auto _ : state) {
    StatusOr<std::vector<std::vector<float>>> vectors = (*embedder)->Embed(sentences);
    if (!vectors.ok()) {
      state.SkipWithError(vectors.status().ToString().c_str());
      break;
    }
    benchmark::DoNotOptimize(vectors->data());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * sentences.size()));
  state.SetLabel(options.precision == embed::UseLitePrecision::kFloat32
                     ? "float32"
                     : "int8 " +
                           std::string(SimdPathName(options.kernel_path.value_or(BestSimdPath()))));
  state.counters["tokens_per_sentence"] =
      static_cast<double>(tokens) / static_cast<double>(sentences.size());
  state.counters["GFLOPs"] = benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_EncodeUseLitePrecision)
    ->ArgsProduct({{0, 1, 2, 3}, {8, 25, 100}})
    ->ArgNames({"precision", "words"})
    ->Unit(benchmark::kMillisecond);

constexpr std::size_t kVectorDimension = 512;

// N random unit vectors (Gaussian, normalised), the same for every run. Random vectors have no
// cluster structure, so they are a hard case for HNSW; see hnsw_index.h for figures on real ones.
const std::vector<std::vector<float>>& RandomVectors(std::size_t count) {
  static std::map<std::size_t, std::vector<std::vector<float>>> cache;
  auto& vectors = cache[count];
  if (vectors.empty()) {
    std::mt19937_64 random(kSeed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    vectors.resize(count, std::vector<float>(kVectorDimension));
    for (std::vector<float>& vector : vectors) {
      for (float& value : vector) value = normal(random);
    }
  }
  return vectors;
}

template <typename Index>
const index::VectorIndex& VectorIndexOf(std::size_t count) {
  static std::map<std::size_t, std::unique_ptr<index::VectorIndex>> indexes;
  auto& slot = indexes[count];
  if (!slot) {
    std::unique_ptr<index::VectorIndex> built;
    if constexpr (std::is_same_v<Index, index::HnswIndex>) {
      const VectorConfig defaults;
      index::HnswOptions options;
      options.dimension = kVectorDimension;
      options.max_neighbors = defaults.hnsw_max_neighbors;
      options.construction_expansion = defaults.hnsw_construction_expansion;
      options.search_expansion = defaults.hnsw_search_expansion;
      options.initial_capacity = count;
      built = index::HnswIndex::Create(options).value();
    } else {
      built = index::ExactIndex::Create(kVectorDimension).value();
    }
    const std::vector<std::vector<float>>& vectors = RandomVectors(count);
    for (std::size_t id = 0; id < vectors.size(); ++id) {
      if (!built->Add(id + 1, vectors[id]).ok()) std::abort();
    }
    slot = std::move(built);
  }
  return *slot;
}

template <typename Index>
void BM_VectorSearch(benchmark::State& state) {
  const index::VectorIndex& vector_index =
      VectorIndexOf<Index>(static_cast<std::size_t>(state.range(0)));
  // Queries: stored vectors with noise, so each has a true near neighbour.
  std::mt19937_64 random(kSeed + 3);
  std::normal_distribution<float> normal(0.0f, 0.5f);
  const std::vector<std::vector<float>>& stored = RandomVectors(vector_index.size());
  std::vector<std::vector<float>> queries;
  for (std::size_t query_idx = 0; query_idx < kQueries; ++query_idx) {
    std::vector<float> query = stored[(query_idx * 7919) % stored.size()];
    for (float& value : query) value += normal(random);
    queries.push_back(std::move(query));
  }
  std::size_t query_idx = 0;
  for (auto _ : state) {
    StatusOr<std::vector<index::VectorHit>> hits =
        vector_index.Search(queries[query_idx++ % queries.size()], 10);
    if (!hits.ok()) {
      state.SkipWithError(hits.status().ToString().c_str());
      break;
    }
    benchmark::DoNotOptimize(hits->data());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_VectorSearch<index::ExactIndex>)
    ->Name("BM_VectorSearchExact")
    ->Arg(10'000)
    ->Arg(100'000)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_VectorSearch<index::HnswIndex>)
    ->Name("BM_VectorSearchHnsw")
    ->Arg(10'000)
    ->Arg(100'000)
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace engram

BENCHMARK_MAIN();
