// engram::Engine (include/engram/engine.h): wires the store, the write path, the projections and
// the read path together.
//
// Locking: `write_mutex` serialises the write calls (the store allows one write transaction at a
// time anyway; holding it here keeps the projection catch-up in commit order).
// `projection_mutex` is a shared_mutex over the in-memory projections: recalls search them under
// a shared lock, so any number run at once; catching up with the journal, loading a scope's
// indexes, erase and rebuild take it exclusively, briefly. `scope_paths_mutex` guards the scope
// path cache alone. Order: write_mutex before projection_mutex; scope_paths_mutex is never held
// while another is wanted.
//
// Writes have two phases (DESIGN §4, engine/derive_worker.h): a non-blocking Remember commits the
// turns and a derivation cursor and returns; the worker embeds and derives them later, taking
// write_mutex per chunk. Every other write (a Remember that waits for derivation, amend, retire,
// consolidate, merge proposals, export) first drains what is pending in the scopes it
// touches, under write_mutex, so it applies after the derivation of every earlier turn, as in a
// synchronous run. Erase needs no drain (the worker drops the cursor of an erased scope), nor
// does reembed (it embeds pending turns too).
#include "engram/engine.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <iostream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <shared_mutex>

#include "archive/archive.h"
#include "consolidate/consolidator.h"
#include "core/ids.h"
#include "core/paths.h"
#include "core/utf8.h"
#include "engine/derive_worker.h"
#include "engine/graph_ops.h"
#include "engine/llm_recall.h"
#include "engine/text_projection.h"
#include "engine/vector_projection.h"
#include "lexicon/lexicon.h"
#include "lexicon/word_vectors.h"
#include "lifecycle/context.h"
#include "read/planner.h"
#include "read/query_frame.h"
#include "read/recall.h"
#include "read/visibility.h"
#include "read/word_neighbours.h"
#include "store/audit.h"
#include "store/store.h"
#include "store/turn_analysis.h"
#include "text/tokenizer.h"
#include "write/capture.h"
#include "write/derive.h"
#include "write/edge_registry.h"

namespace engram {
namespace {

std::string ReasonAttrs(std::string_view reason) {
  nlohmann::json attrs = nlohmann::json::object();
  if (!reason.empty()) attrs["reason"] = std::string(reason);
  return attrs.dump();
}

std::string ReasonFromAttrs(const std::string& attrs_json) {
  nlohmann::json attrs = nlohmann::json::parse(attrs_json, nullptr, /*allow_exceptions=*/false);
  if (attrs.is_object() && attrs.contains("reason") && attrs["reason"].is_string()) {
    return attrs["reason"].get<std::string>();
  }
  return "";
}

constexpr std::array<std::pair<RememberWait, std::string_view>, 3> kRememberWaits = {{
    {RememberWait::kDurable, "durable"},
    {RememberWait::kIndexed, "indexed"},
    {RememberWait::kDerived, "derived"},
}};

// [store] vector_precision (Config::Validate admits only the names VectorPrecisionNamed knows).
store::VectorPrecision StoredPrecision(const Config& config) {
  return store::VectorPrecisionNamed(config.store.vector_precision)
      .value_or(store::VectorPrecision::kFloat32);
}

}  // namespace

std::string_view RememberWaitName(RememberWait wait) {
  for (const auto& [value, name] : kRememberWaits) {
    if (value == wait) return name;
  }
  return "unknown";
}

StatusOr<RememberWait> ParseRememberWait(std::string_view name) {
  for (const auto& [value, value_name] : kRememberWaits) {
    if (value_name == name) return value;
  }
  return Status::InvalidArgument("unknown wait \"" + std::string(name.substr(0, 64)) +
                                 "\" (expected one of durable, indexed, derived)");
}

struct Engine::Impl {
  EngineOptions options;
  Config config;
  std::shared_ptr<Clock> clock;
  std::unique_ptr<store::Store> store;
  std::unique_ptr<write::EdgeRegistry> registry;
  std::unique_ptr<write::Deriver> deriver;
  text::Tokenizer tokenizer;
  // WordNet synonyms for the query frame's keywords; null when the lexicons are not installed
  // (recall then runs without synonyms, and lexicons_missing says why).
  std::shared_ptr<const lexicon::Lexicons> lexicons;
  std::string lexicons_missing;
  // The optional LLM loop of recall; null when [recall] llm_loop is off.
  std::unique_ptr<LlmRecall> llm_recall;
  // GloVe word vectors for the fragment route's soft matches ([recall] word_vector_match),
  // loaded on the first recall that asks for them (about 0.3 s that remember, list and get need
  // not pay). Not installed: null, and word_vectors_missing says why.
  std::mutex word_vectors_mutex;
  bool word_vectors_tried = false;                           // guarded by word_vectors_mutex
  std::shared_ptr<const lexicon::WordVectors> word_vectors;  // guarded by word_vectors_mutex
  std::string word_vectors_missing;                          // guarded by word_vectors_mutex
  // The scopes' vocabularies for word_vectors, kept between recalls (thread-safe).
  read::WordNeighbourCache word_neighbour_cache;
  read::Routes routes = read::Routes::Default();
  // The learned ranker's model ([recall] ranker = "learned"), loaded on the first recall that
  // uses it; null when it cannot be used, and ranker_missing says why (recall keeps the fused
  // order).
  std::once_flag ranker_once;
  std::unique_ptr<const read::LearnedRanker> ranker;  // written once under ranker_once
  std::string ranker_missing;                         // written once under ranker_once

  // The configured embedder's record, and the embedder itself, loaded on first use (loading
  // USE-lite takes ~0.3 s that list/get/history need not pay). nullptr for kind "none".
  store::EmbedderRecord embedder_record;
  std::mutex embedder_mutex;
  std::unique_ptr<embed::Embedder> embedder;  // guarded by embedder_mutex until loaded

  std::mutex write_mutex;
  std::shared_mutex projection_mutex;
  std::unique_ptr<TextProjection> projection;  // guarded by projection_mutex
  std::unique_ptr<VectorProjection> vectors;   // guarded by projection_mutex; null without embedder
  std::mutex scope_paths_mutex;
  std::map<std::int64_t, std::string> scope_paths;  // guarded by scope_paths_mutex
  // The second phase of writes. Destroyed first (~Engine), while everything it uses is alive.
  std::unique_ptr<DeriveWorker> worker;

  StatusOr<store::ScopeRecord> RequireScope(const Scope& scope) {
    RETURN_IF_ERROR(scope.Validate());
    ASSIGN_OR_RETURN(std::optional<store::ScopeRecord> record,
                     store->FindScope(scope.ToString()));
    if (!record.has_value()) {
      return Status::NotFound("scope " + scope.ToString() + " does not exist");
    }
    return *record;
  }

  // Scope ids to search: the scope itself, plus nested ones when asked.
  StatusOr<std::vector<std::int64_t>> ScopeIds(const store::ScopeRecord& scope, bool nested) {
    if (!nested) return std::vector<std::int64_t>{scope.scope_id};
    ASSIGN_OR_RETURN(std::vector<store::ScopeRecord> tree, store->ScopeTree(scope.scope_id));
    std::vector<std::int64_t> ids;
    for (const store::ScopeRecord& record : tree) ids.push_back(record.scope_id);
    return ids;
  }

  std::string ScopePath(std::int64_t scope_id) {
    {
      std::lock_guard lock(scope_paths_mutex);
      auto found = scope_paths.find(scope_id);
      if (found != scope_paths.end()) return found->second;
    }
    StatusOr<std::optional<store::ScopeRecord>> record = store->GetScope(scope_id);
    std::string path = record.ok() && record->has_value() ? (*record)->path : "";
    if (!path.empty()) {
      std::lock_guard lock(scope_paths_mutex);
      scope_paths.emplace(scope_id, path);
    }
    return path;
  }

  StatusOr<Memory> ToMemory(const store::NodeRecord& node) {
    Memory memory;
    memory.id = node.id;
    memory.kind = node.kind;
    memory.scope = ScopePath(node.scope_id);
    memory.text = node.text;
    memory.role = node.role;
    memory.speaker = node.speaker;
    memory.session_id = node.session_id;
    memory.sequence = node.sequence;
    memory.event_time = node.event_time;
    memory.metadata_json = node.metadata_json;
    memory.status = node.status;
    memory.valid_from = node.valid_from;
    memory.valid_to = node.valid_to;
    memory.ingested_at = node.ingested_at;
    memory.updated_at = node.updated_at;
    if (node.kind == NodeKind::kTurn) {
      memory.provenance.push_back(node.id);
    } else {
      ASSIGN_OR_RETURN(std::vector<store::EdgeRecord> sources,
                       store->EdgesOf(node.id, store::EdgeDirection::kOutgoing, "derived_from"));
      for (const store::EdgeRecord& edge : sources) memory.provenance.push_back(edge.dst);
    }
    return memory;
  }

  bool HasEmbedder() const { return embedder_record.model_id != "none"; }

  // The word vectors, loading them on first use; null when they are not installed (`missing`
  // then gets the loader's message and the recall runs without them). Installed vectors that
  // cannot be read are an error, not a silent change of recall (tried again on the next call).
  StatusOr<const lexicon::WordVectors*> GetWordVectors(std::string* missing) {
    std::lock_guard lock(word_vectors_mutex);
    if (!word_vectors_tried) {
      auto loaded = lexicon::WordVectors::Load(core::ResolveDataDir(options.data_dir));
      if (loaded.ok()) {
        word_vectors = *std::move(loaded);
      } else if (loaded.status().code() == StatusCode::kFailedPrecondition) {
        word_vectors_missing = loaded.status().message();
      } else {
        return loaded.status();
      }
      word_vectors_tried = true;
    }
    *missing = word_vectors_missing;
    return word_vectors.get();
  }

  const read::LearnedRanker* GetRanker(std::string* missing) {
    std::call_once(ranker_once, [this] {
      StatusOr<read::LearnedRanker> loaded =
          config.recall.ranker_model.empty() ? read::LearnedRanker::Builtin()
                                             : read::LearnedRanker::Load(config.recall.ranker_model);
      if (loaded.ok()) {
        ranker = std::make_unique<const read::LearnedRanker>(*std::move(loaded));
      } else {
        ranker_missing = loaded.status().ToString();
      }
    });
    *missing = ranker_missing;
    return ranker.get();
  }

  // The embedder, loading it on first use. Embed may be called on it without any lock held.
  StatusOr<embed::Embedder*> GetEmbedder() {
    std::lock_guard lock(embedder_mutex);
    if (embedder == nullptr) {
      ASSIGN_OR_RETURN(embedder,
                       OpenEmbedder(config.embedder, core::ResolveDataDir(options.data_dir)));
    }
    return embedder.get();
  }

  // The texts' vectors (empty without an embedder).
  StatusOr<std::vector<std::vector<float>>> EmbedTexts(std::span<const std::string> texts) {
    if (!HasEmbedder() || texts.empty()) return std::vector<std::vector<float>>();
    ASSIGN_OR_RETURN(embed::Embedder * model, GetEmbedder());
    ASSIGN_OR_RETURN(std::vector<std::vector<float>> embedded, model->Embed(texts));
    if (embedded.size() != texts.size()) {
      return Status::Internal("embedder " + model->model_id() + " returned " +
                              std::to_string(embedded.size()) + " vectors for " +
                              std::to_string(texts.size()) + " texts");
    }
    return embedded;
  }

  Status EmbedderMismatch(const store::EmbedderRecord& recorded) const {
    auto describe = [](const store::EmbedderRecord& record) {
      return "\"" + record.model_id + "\"" +
             (record.dimension > 0 ? " (" + std::to_string(record.dimension) + "-d)" : "");
    };
    return Status::FailedPrecondition(
        "store " + store::RedactStoreLocation(options.store_path) + " records embedder " + describe(recorded) +
        " but [embedder] is configured as " + describe(embedder_record) +
        "; run `engram reembed` to re-embed the store with the configured embedder, or configure "
        "the store's embedder");
  }

  // Inside a write transaction: records the configured embedder on a store that has none yet,
  // and refuses to write into a store recording another one.
  Status EnsureEmbedderRecorded(store::Transaction& txn, Timestamp now) {
    ASSIGN_OR_RETURN(const std::optional<store::EmbedderRecord> recorded, txn.GetEmbedder());
    if (!recorded.has_value()) return txn.SetEmbedder(embedder_record, now);
    if (*recorded != embedder_record) return EmbedderMismatch(*recorded);
    return Status::Ok();
  }

  // Brings the projections up to the store's journal after a commit. The write is committed by
  // now, so a failed catch-up (a read error) must not fail the call, whose caller would retry a
  // stored write: the projections catch up again before every read (IndexesFor).
  Status AfterCommit() {
    std::unique_lock lock(projection_mutex);
    static_cast<void>(projection->CatchUp());
    if (vectors != nullptr) static_cast<void>(vectors->CatchUp());
    return Status::Ok();
  }

  // Inside `txn`: stores the validated turns (canonical metadata in `metadata`) with their
  // vectors (empty without an embedder) and runs the write path's derivation over them.
  StatusOr<RememberResult> CaptureAndDerive(store::Transaction& txn,
                                            const store::ScopeRecord& record,
                                            std::span<const Turn> turns,
                                            std::span<const std::string> metadata,
                                            std::span<const std::vector<float>> turn_vectors,
                                            Timestamp now) {
    ASSIGN_OR_RETURN(RememberResult result,
                     write::CaptureTurns(txn, *registry, record, turns, metadata, now));
    // The turns this call stored (not those whose idempotency key was stored already), with
    // their vectors: only they get vectors and derivations.
    std::vector<std::string> stored_ids;
    std::vector<std::vector<float>> stored_vectors;
    for (std::size_t i = 0, skipped = 0; i < result.ids.size(); ++i) {
      if (skipped < result.already_stored.size() && result.already_stored[skipped] == i) {
        ++skipped;
        continue;
      }
      stored_ids.push_back(result.ids[i]);
      if (i < turn_vectors.size()) {
        RETURN_IF_ERROR(txn.PutVector(result.ids[i], embedder_record.model_id, turn_vectors[i])
                            .WithContext("turn " + std::to_string(i)));
        // As a later read gives them back (DMF divergence reads earlier turns' from the store).
        stored_vectors.push_back(
            store::StoredVectorValues(turn_vectors[i], StoredPrecision(config)));
      }
    }
    write::DeriveContext derive;
    derive.scope = &record;
    derive.now = now;
    // DMF divergence; earlier turns' vectors come from the store.
    derive.turn_vectors = stored_vectors;
    derive.store = store.get();
    // The resolver's embedding tier embeds entity names (cached across calls).
    if (HasEmbedder()) {
      ASSIGN_OR_RETURN(derive.embedder, GetEmbedder());
    }
    RETURN_IF_ERROR(deriver->Derive(txn, *registry, stored_ids, derive));
    return result;
  }

  static Status CheckId(std::string_view id) {
    if (core::LooksLikeId(id)) return Status::Ok();
    return Status::InvalidArgument("\"" + std::string(id.substr(0, 64)) +
                                   "\" is not a memory id (32 lowercase hex digits)");
  }

  // Stores the HNSW graphs that VectorSnapshotPolicy says are due (VectorProjection::
  // SaveSnapshots). Takes write_mutex, then projection_mutex exclusively: call it holding
  // neither. A store that cannot be written keeps none (FailedPrecondition, not reported); any
  // other failure is a warning on stderr, since no caller waits for the snapshot.
  void SaveVectorSnapshots() {
    if (vectors == nullptr) return;
    std::lock_guard write_lock(write_mutex);
    std::unique_lock lock(projection_mutex);
    const Status saved = vectors->SaveSnapshots();
    if (!saved.ok() && saved.code() != StatusCode::kFailedPrecondition) {
      std::cerr << "engram: warning: " << saved.ToString() << "\n";
    }
  }

  // Engine::Consolidate with write_mutex held: one write transaction, committed only when the
  // pass changed something.
  StatusOr<ConsolidateResult> ConsolidateLocked(const store::ScopeRecord& record,
                                                Timestamp now) {
    ASSIGN_OR_RETURN(std::unique_ptr<store::Transaction> txn, store->BeginWrite());
    const consolidate::Consolidator consolidator(*store, *registry, config.consolidate);
    ASSIGN_OR_RETURN(const ConsolidateResult result, consolidator.Run(*txn, record, now));
    if (result.written == 0 && result.superseded == 0) return result;  // nothing to commit
    RETURN_IF_ERROR(txn->Commit());
    RETURN_IF_ERROR(AfterCommit());
    return result;
  }

  StatusOr<store::NodeRecord> RequireNode(std::string_view id) {
    RETURN_IF_ERROR(CheckId(id));
    return store->GetNode(id);
  }

  // [consolidate] every_turns: consolidate when the turns [first, last] just derived crossed a
  // multiple of it, at their capture time. Called with write_mutex held, after the commit, so a
  // failed pass must not fail the write (whose caller would store it again); the next crossing
  // or an explicit Consolidate catches up.
  void ConsolidateIfCrossed(const store::ScopeRecord& record, std::int64_t first,
                            std::int64_t last, Timestamp now) {
    const auto every = static_cast<std::int64_t>(config.consolidate.every_turns);
    if (every > 0 && first > 0 && last / every > (first - 1) / every) {
      static_cast<void>(ConsolidateLocked(record, now));
    }
  }

  // With write_mutex held: derives what is pending in the scope (and, with nested, its nested
  // scopes) before another write touches it.
  Status DrainLocked(const store::ScopeRecord& record, bool nested) {
    if (!nested) return worker->DrainScopeLocked(record);
    ASSIGN_OR_RETURN(const std::vector<store::ScopeRecord> tree, store->ScopeTree(record.scope_id));
    for (const store::ScopeRecord& scope : tree) RETURN_IF_ERROR(worker->DrainScopeLocked(scope));
    return Status::Ok();
  }

  // DrainLocked for the scope a node belongs to.
  Status DrainScopeOfLocked(const store::NodeRecord& node) {
    ASSIGN_OR_RETURN(const std::optional<store::ScopeRecord> scope, store->GetScope(node.scope_id));
    if (!scope.has_value()) return Status::Ok();
    return worker->DrainScopeLocked(*scope);
  }
};

Engine::Engine(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Engine::~Engine() {
  // Joins the worker between two chunks; what is still pending stays recorded in the store.
  impl_->worker.reset();
  // The HNSW graphs this process grew are kept for the next one. Written here, when the engine
  // closes, because no call waits for it then; a graph a recall built from the vectors was
  // written right after that recall loaded it (Recall). A later process's first recall loads it
  // instead of building it again (VectorProjection). A process that dies without closing leaves
  // the older snapshot, which a load still uses (it inserts the vectors stored since).
  impl_->SaveVectorSnapshots();
}

std::string Engine::DisplayStoreLocation(std::string_view location) {
  return store::RedactStoreLocation(location);
}

StatusOr<std::unique_ptr<Engine>> Engine::Open(const EngineOptions& options) {
  // A path with a NUL byte would be cut at it by the file system calls: another file.
  const auto refuse_nul = [](std::string_view path, std::string_view name) {
    return path.find('\0') == std::string_view::npos
               ? Status::Ok()
               : Status::InvalidArgument("EngineOptions::" + std::string(name) +
                                         " contains a NUL byte");
  };
  RETURN_IF_ERROR(refuse_nul(options.store_path, "store_path"));
  RETURN_IF_ERROR(refuse_nul(options.data_dir, "data_dir"));
  RETURN_IF_ERROR(refuse_nul(options.config_file, "config_file"));
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  if (options.config.has_value()) {
    impl->config = *options.config;
    RETURN_IF_ERROR(impl->config.Validate());
  } else if (!options.config_file.empty()) {
    ASSIGN_OR_RETURN(impl->config, LoadConfigFile(options.config_file));
  }
  impl->clock = options.clock ? options.clock : SystemClock();
  // One tokenizer for the BM25 documents and the query frame, so their terms always match.
  impl->tokenizer = text::Tokenizer({.stem = impl->config.bm25.stem});
  if (options.store_path.empty()) {
    return Status::InvalidArgument("store path is empty (EngineOptions::store_path)");
  }
  store::StoreOptions store_options;
  store_options.sqlite.create_if_missing = options.create_if_missing;
  store_options.postgres.create_if_missing = options.create_if_missing;
  store_options.postgres.pool_size = impl->config.store.pool_size;
  store_options.postgres.connect_timeout_seconds = impl->config.store.connect_timeout_seconds;
  store_options.postgres.statement_timeout_ms = impl->config.store.statement_timeout_ms;
  store_options.sqlite.vector_precision = StoredPrecision(impl->config);
  store_options.postgres.vector_precision = store_options.sqlite.vector_precision;
  ASSIGN_OR_RETURN(impl->store, store::OpenStore(options.store_path, store_options));
  impl->registry = write::EdgeRegistry::WithBuiltins();
  RETURN_IF_ERROR(graph_ops::RegisterConfiguredEdgeTypes(*impl->registry, impl->config));
  ASSIGN_OR_RETURN(impl->deriver, write::Deriver::Open(impl->config.write,
                                                       core::ResolveDataDir(options.data_dir)));
  // The read path's synonyms are optional: lexicons that are not installed leave them off (the
  // write path's analysis, which needs them, has already failed Deriver::Open then), but lexicons
  // that are installed and unreadable are an error, not a silent change of recall.
  if (auto lexicons = lexicon::Lexicons::Load(core::ResolveDataDir(options.data_dir));
      lexicons.ok()) {
    impl->lexicons = *std::move(lexicons);
  } else if (lexicons.status().code() == StatusCode::kFailedPrecondition) {
    impl->lexicons_missing = lexicons.status().message();
  } else {
    return lexicons.status();
  }
  ASSIGN_OR_RETURN(impl->llm_recall, LlmRecall::Create(impl->config.recall));
  impl->embedder_record = ConfiguredEmbedder(impl->config.embedder);
  ASSIGN_OR_RETURN(const std::optional<store::EmbedderRecord> recorded,
                   impl->store->GetEmbedder());
  if (options.check_embedder && recorded.has_value() && *recorded != impl->embedder_record) {
    return impl->EmbedderMismatch(*recorded);
  }
  impl->projection = std::make_unique<TextProjection>(impl->store.get(), &impl->tokenizer);
  RETURN_IF_ERROR(impl->projection->CatchUp());
  if (impl->HasEmbedder()) {
    impl->vectors = std::make_unique<VectorProjection>(impl->store.get(), impl->config.vector,
                                                       impl->embedder_record);
    RETURN_IF_ERROR(impl->vectors->CatchUp());
  }
  Impl* engine = impl.get();
  DeriveWorkerDeps deps;
  deps.store = engine->store.get();
  deps.registry = engine->registry.get();
  deps.deriver = engine->deriver.get();
  deps.write_mutex = &engine->write_mutex;
  deps.model_id = engine->embedder_record.model_id;
  deps.background = options.background_derivation;
  deps.max_pending_turns = static_cast<std::int64_t>(engine->config.write.max_pending_turns);
  // The vectors as a later read gives them back (rounded to half floats or int8 steps under
  // [store] vector_precision), as CaptureAndDerive hands them to the derivation: DMF divergence
  // must see the same values in both phases. Storing a rounded vector again stores the same
  // bytes.
  deps.embed = [engine](std::span<const std::string> texts)
      -> StatusOr<std::vector<std::vector<float>>> {
    ASSIGN_OR_RETURN(std::vector<std::vector<float>> vectors, engine->EmbedTexts(texts));
    for (std::vector<float>& vector : vectors) {
      vector = store::StoredVectorValues(vector, StoredPrecision(engine->config));
    }
    return vectors;
  };
  deps.resolver_embedder = [engine]() { return engine->GetEmbedder(); };
  deps.after_commit = [engine]() { static_cast<void>(engine->AfterCommit()); };
  deps.after_caught_up = [engine](const store::ScopeRecord& scope, std::int64_t first,
                                  std::int64_t last, Timestamp now) {
    engine->ConsolidateIfCrossed(scope, first, last, now);
  };
  engine->worker = std::make_unique<DeriveWorker>(std::move(deps));
  // Work a crash (or another engine) left between the two phases resumes now.
  ASSIGN_OR_RETURN(const DeriveProgress pending, engine->worker->Progress());
  if (pending.pending_scopes > 0) engine->worker->Start();
  return std::unique_ptr<Engine>(new Engine(std::move(impl)));
}

StatusOr<RememberResult> Engine::Remember(const Scope& scope, std::span<const Turn> turns,
                                          const RememberOptions& options) {
  RETURN_IF_ERROR(scope.Validate());
  const LimitsConfig& limits = impl_->config.limits;
  if (turns.empty()) return Status::InvalidArgument("no turns to remember");
  if (turns.size() > limits.max_batch_turns) {
    return Status::InvalidArgument("batch has " + std::to_string(turns.size()) +
                                   " turns; at most " + std::to_string(limits.max_batch_turns) +
                                   " are allowed per call ([limits] max_batch_turns)");
  }
  // Validate everything before writing anything.
  std::vector<std::string> metadata;
  metadata.reserve(turns.size());
  for (std::size_t turn_idx = 0; turn_idx < turns.size(); ++turn_idx) {
    StatusOr<std::string> canonical = write::ValidateTurn(turns[turn_idx], limits);
    if (!canonical.ok()) {
      return canonical.status().WithContext("turn " + std::to_string(turn_idx));
    }
    metadata.push_back(std::move(canonical).value());
  }
  if (options.wait != RememberWait::kDerived) {
    // Back-pressure: refused, storing nothing, while too many turns await derivation.
    RETURN_IF_ERROR(impl_->worker->Admit());
    // Phase one only: the turns and their derivation cursor in one transaction. The capture
    // scope ends after the lock is released (it is declared first).
    CaptureScope capture(*impl_->worker);
    std::lock_guard write_lock(impl_->write_mutex);
    const Timestamp now = impl_->clock->Now();
    ASSIGN_OR_RETURN(std::unique_ptr<store::Transaction> txn, impl_->store->BeginWrite());
    RETURN_IF_ERROR(impl_->EnsureEmbedderRecorded(*txn, now));
    ASSIGN_OR_RETURN(const store::ScopeRecord record,
                     write::EnsureScope(*txn, *impl_->registry, scope, now));
    ASSIGN_OR_RETURN(RememberResult result,
                     write::CaptureTurns(*txn, *impl_->registry, record, turns, metadata, now));
    result.derivation_pending = result.already_stored.size() < turns.size();
    if (result.derivation_pending) {
      RETURN_IF_ERROR(MarkPending(*txn, record, result.first_sequence));
    }
    RETURN_IF_ERROR(txn->Commit());
    txn.reset();
    if (result.derivation_pending) {
      capture.Pending(static_cast<std::int64_t>(turns.size() - result.already_stored.size()));
    }
    if (options.wait == RememberWait::kIndexed) RETURN_IF_ERROR(impl_->AfterCommit());
    if (result.derivation_pending) impl_->worker->Notify();
    return result;
  }
  // Embed before taking the write lock: the encoder is the slow part of a write.
  std::vector<std::string> texts;
  if (impl_->HasEmbedder()) {
    texts.reserve(turns.size());
    for (const Turn& turn : turns) texts.push_back(EmbeddingText(turn.speaker, turn.text));
  }
  ASSIGN_OR_RETURN(const std::vector<std::vector<float>> vectors, impl_->EmbedTexts(texts));

  std::lock_guard write_lock(impl_->write_mutex);
  // Earlier turns of the scope still pending go first: derivation follows sequence order.
  ASSIGN_OR_RETURN(const std::optional<store::ScopeRecord> existing,
                   impl_->store->FindScope(scope.ToString()));
  if (existing.has_value()) RETURN_IF_ERROR(impl_->worker->DrainScopeLocked(*existing));
  const Timestamp now = impl_->clock->Now();
  ASSIGN_OR_RETURN(std::unique_ptr<store::Transaction> txn, impl_->store->BeginWrite());
  RETURN_IF_ERROR(impl_->EnsureEmbedderRecorded(*txn, now));
  ASSIGN_OR_RETURN(store::ScopeRecord record,
                   write::EnsureScope(*txn, *impl_->registry, scope, now));
  ASSIGN_OR_RETURN(RememberResult result,
                   impl_->CaptureAndDerive(*txn, record, turns, metadata, vectors, now));
  RETURN_IF_ERROR(txn->Commit());
  txn.reset();  // the store holds one write transaction at a time
  RETURN_IF_ERROR(impl_->AfterCommit());
  impl_->ConsolidateIfCrossed(record, result.first_sequence, result.last_sequence, now);
  return result;
}

Status Engine::WaitForDerivation() { return impl_->worker->WaitIdle(); }

void Engine::ResumeDerivation() { impl_->worker->Notify(); }

StatusOr<DerivationStatus> Engine::Derivation() {
  ASSIGN_OR_RETURN(const DeriveProgress progress, impl_->worker->Progress());
  return DerivationStatus{.pending_turns = progress.pending_turns,
                          .pending_scopes = progress.pending_scopes,
                          .derived_turns = progress.derived_turns,
                          .failures = progress.failures,
                          .last_error = progress.last_error,
                          .refused_writes = progress.refused_writes,
                          .max_pending_turns = progress.max_pending_turns};
}

StatusOr<ConsolidateResult> Engine::Consolidate(const Scope& scope) {
  RETURN_IF_ERROR(scope.Validate());
  std::lock_guard write_lock(impl_->write_mutex);
  ASSIGN_OR_RETURN(const store::ScopeRecord record, impl_->RequireScope(scope));
  RETURN_IF_ERROR(impl_->worker->DrainScopeLocked(record));
  return impl_->ConsolidateLocked(record, impl_->clock->Now());
}

StatusOr<ReadResult> Engine::Recall(const Scope& scope, const RecallQuery& query,
                                    const RecallOptions& options) {
  const auto started = std::chrono::steady_clock::now();
  const Config& config = impl_->config;
  if (query.text.size() > config.limits.max_query_bytes) {
    return Status::InvalidArgument("query is " + std::to_string(query.text.size()) +
                                   " bytes; at most " +
                                   std::to_string(config.limits.max_query_bytes) +
                                   " are allowed ([limits] max_query_bytes)");
  }
  if (auto bad = core::FindInvalidUtf8(query.text)) {
    return Status::InvalidArgument("query is not valid UTF-8 (byte " + std::to_string(*bad) +
                                   ")");
  }
  if (core::IsBlank(query.text)) return Status::InvalidArgument("query is empty");
  ASSIGN_OR_RETURN(store::ScopeRecord record, impl_->RequireScope(scope));
  ASSIGN_OR_RETURN(std::vector<std::int64_t> scope_ids,
                   impl_->ScopeIds(record, options.include_nested));

  read::RecallRequest request;
  request.config = &config;
  request.options = options;
  if (!request.options.pack_by_value.has_value()) {
    request.options.pack_by_value = config.recall.pack_by_value;
  }
  if (request.options.k == 0) {
    request.options.k =
        *request.options.pack_by_value ? config.recall.pack_max_items : config.recall.max_items;
  }
  if (request.options.token_budget == 0) {
    request.options.token_budget = config.recall.token_budget;
  }
  request.frame = read::BuildQueryFrame(impl_->tokenizer, query.text,
                                        query.query_time.value_or(impl_->clock->Now()),
                                        {.drop_frame_words = config.recall.drop_frame_words});
  // Only the keyword route reads synonyms: look them up when it will run (named in the options'
  // routes, or weighed above 0 by the plan).
  const bool keyword_route_runs =
      options.routes.empty()
          ? read::MakePlan(request.frame, config, request.options).WeightOf("keyword") > 0
          : std::find(options.routes.begin(), options.routes.end(), "keyword") !=
                options.routes.end();
  if (impl_->lexicons != nullptr && keyword_route_runs) {
    read::AddSynonyms(request.frame, *impl_->lexicons, impl_->tokenizer);
  } else if (keyword_route_runs && config.recall.keyword_synonym_weight > 0) {
    request.synonyms_missing = impl_->lexicons_missing;  // said in the diagnostics' warnings
  }
  request.store = impl_->store.get();
  request.scope_ids = scope_ids;
  request.tokenizer = &impl_->tokenizer;
  if (config.recall.word_vector_match > 0) {
    ASSIGN_OR_RETURN(request.word_vectors,
                     impl_->GetWordVectors(&request.word_vectors_missing));
    request.word_neighbour_cache = &impl_->word_neighbour_cache;
  }
  if (config.recall.ranker == "learned") {
    request.ranker = impl_->GetRanker(&request.ranker_missing);
  }
  request.load_nodes = [this](std::span<const std::int64_t> rows) {
    return impl_->store->GetNodesByRow(rows);
  };
  // The query's embedding, when the vector route may run (computed before taking the lock).
  const bool wants_vector =
      impl_->vectors != nullptr &&
      (options.routes.empty() || std::find(options.routes.begin(), options.routes.end(),
                                           "vector") != options.routes.end());
  if (wants_vector) {
    const std::string texts[] = {query.text};
    ASSIGN_OR_RETURN(std::vector<std::vector<float>> embedded, impl_->EmbedTexts(texts));
    request.query_vector = std::move(embedded.front());
  }

  request.scope_path = [this](std::int64_t scope_id) { return impl_->ScopePath(scope_id); };
  // Search under a shared lock, so recalls run in parallel. When the projections lag the journal
  // (another process wrote) or a scope is not loaded yet, catch up and load exclusively first.
  ASSIGN_OR_RETURN(std::int64_t journal_seq, impl_->store->LastJournalSeq());
  std::shared_lock read_lock(impl_->projection_mutex);
  constexpr int kMaxPrepareAttempts = 8;  // each attempt loses only to a concurrent erase
  for (int attempt = 0;; ++attempt) {
    if (impl_->projection->applied_journal_seq() >= journal_seq) {
      auto text_indexes = impl_->projection->LoadedIndexes(scope_ids);
      auto layouts = impl_->projection->LoadedLayouts(scope_ids);
      auto vector_indexes = wants_vector ? impl_->vectors->LoadedIndexes(scope_ids)
                                         : std::optional<std::vector<const index::VectorIndex*>>(
                                               std::vector<const index::VectorIndex*>());
      if (text_indexes.has_value() && layouts.has_value() && vector_indexes.has_value()) {
        request.text_indexes = std::move(*text_indexes);
        request.layouts = std::move(*layouts);
        request.vector_indexes = std::move(*vector_indexes);
        break;
      }
    }
    if (attempt == kMaxPrepareAttempts) {
      return Status::Unavailable("scope " + scope.ToString() +
                                 " changed while its indexes were loading; retry the recall");
    }
    read_lock.unlock();
    bool built_graph = false;
    {
      std::unique_lock prepare_lock(impl_->projection_mutex);
      RETURN_IF_ERROR(impl_->projection->IndexesFor(scope_ids).status());
      if (wants_vector) {
        RETURN_IF_ERROR(impl_->vectors->IndexesFor(scope_ids).status());
        built_graph = impl_->vectors->HasUnsavedBuild();
      }
    }
    // A graph built from the vectors (36 s at 100,000 turns) is stored now, once, not only when
    // the engine closes: a server that is killed keeps it too. Writing it holds off the other
    // recalls and writes while it is written (once per graph built).
    if (built_graph) impl_->SaveVectorSnapshots();
    read_lock.lock();
    journal_seq = -1;  // caught up at least to the recall's start; later writes may join
  }
  ASSIGN_OR_RETURN(ReadResult result, read::RunRecall(request, impl_->routes));
  read_lock.unlock();
  if (impl_->llm_recall != nullptr && options.llm_loop) {
    RecallOptions follow_up = request.options;
    follow_up.llm_loop = false;
    result = impl_->llm_recall->Run(query.text, std::move(result), request.options.k,
                                    [&](const std::string& text) {
                                      RecallQuery sub = query;
                                      sub.text = text;
                                      return Recall(scope, sub, follow_up);
                                    });
  }
  result.latency_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started)
          .count();
  return result;
}

StatusOr<std::int64_t> Engine::CatchUp() {
  std::unique_lock lock(impl_->projection_mutex);
  RETURN_IF_ERROR(impl_->projection->CatchUp());
  if (impl_->vectors != nullptr) RETURN_IF_ERROR(impl_->vectors->CatchUp());
  return impl_->projection->applied_journal_seq();
}

StatusOr<std::int64_t> Engine::WaitForJournal(std::int64_t after_seq,
                                              std::chrono::milliseconds timeout,
                                              std::stop_token stop) {
  return impl_->store->WaitForJournal(after_seq, timeout, std::move(stop));
}

StatusOr<ContextResult> Engine::Context(const Scope& run, const RecallQuery& query,
                                        const ContextOptions& options) {
  const auto started = std::chrono::steady_clock::now();
  RETURN_IF_ERROR(lifecycle::CheckContextRequest(run, query.text, options, impl_->config));
  ASSIGN_OR_RETURN(const store::ScopeRecord record, impl_->RequireScope(run));
  ASSIGN_OR_RETURN(const lifecycle::ContextPlan plan,
                   lifecycle::PlanContext(*impl_->store, record, impl_->config, options));
  std::optional<ReadResult> recalled;
  Scope from = run;
  if (plan.recall_budget > 0) {
    const std::optional<Scope> parent = run.Parent();
    if (options.recall_enclosing && parent.has_value()) {
      ASSIGN_OR_RETURN(const std::optional<store::ScopeRecord> parent_record,
                       impl_->store->FindScope(parent->ToString()));
      if (parent_record.has_value()) from = *parent;
    }
    ASSIGN_OR_RETURN(recalled, Recall(from, query,
                                      {.k = options.k,
                                       .token_budget = plan.recall_budget,
                                       .include_nested = true,
                                       .policy = options.policy}));
  }
  const std::string recalled_from = recalled.has_value() ? from.ToString() : "";
  ContextResult result = lifecycle::AssembleContext(plan, query.text, std::move(recalled),
                                                    recalled_from, options, impl_->config);
  result.latency_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started)
          .count();
  return result;
}

StatusOr<Memory> Engine::Get(std::string_view id) {
  ASSIGN_OR_RETURN(store::NodeRecord node, impl_->RequireNode(id));
  return impl_->ToMemory(node);
}

StatusOr<std::vector<Memory>> Engine::List(const Scope& scope, const ListOptions& options) {
  ASSIGN_OR_RETURN(store::ScopeRecord record, impl_->RequireScope(scope));
  const bool as_of = options.valid_at.has_value() || options.known_at.has_value();
  store::NodeFilter filter;
  filter.after_sequence = options.after_sequence;
  // An as-of listing filters by the recorded state itself, then applies the limit.
  filter.limit = as_of ? 0 : options.limit;
  filter.include_inactive = options.include_retired || as_of;
  filter.kind = options.kind;
  ASSIGN_OR_RETURN(std::vector<store::NodeRecord> nodes,
                   impl_->store->ListNodes(record.scope_id, filter));
  RecallOptions as_of_options;
  as_of_options.include_retired = options.include_retired;
  as_of_options.valid_at = options.valid_at;
  as_of_options.known_at = options.known_at;
  const read::Visibility visibility(impl_->store.get(), as_of_options, impl_->clock->Now());
  std::vector<Memory> memories;
  for (store::NodeRecord& node : nodes) {
    if (node.kind == NodeKind::kScope) continue;
    if (as_of) {
      if (options.limit != 0 && memories.size() == options.limit) break;
      // With valid_at the recall's filters decide; with known_at alone, the status recorded then.
      if (options.valid_at.has_value()) {
        ASSIGN_OR_RETURN(const read::Verdict verdict, visibility.Check(read::ViewOf(node)));
        if (!verdict.shown()) continue;
        node.status = verdict.status;
        node.valid_to = verdict.valid_to;
      } else {
        ASSIGN_OR_RETURN(const std::optional<store::RecordedState> recorded,
                         visibility.Recorded(read::ViewOf(node)));
        if (!recorded.has_value()) continue;
        if (!options.include_retired && recorded->status != NodeStatus::kActive) continue;
        node.status = recorded->status;
        node.valid_to = recorded->valid_to;
      }
    }
    ASSIGN_OR_RETURN(Memory memory, impl_->ToMemory(node));
    memories.push_back(std::move(memory));
  }
  return memories;
}

StatusOr<std::vector<HistoryEvent>> Engine::History(std::string_view id) {
  ASSIGN_OR_RETURN(store::NodeRecord node, impl_->RequireNode(id));
  ASSIGN_OR_RETURN(std::vector<store::JournalEntry> entries, impl_->store->JournalFor(node.id));
  std::vector<HistoryEvent> events;
  NodeStatus status = NodeStatus::kActive;
  for (const store::JournalEntry& entry : entries) {
    HistoryEvent event;
    event.at = entry.at;
    event.detail = entry.detail;
    if (entry.op == store::JournalOp::kNodeInserted) {
      event.action = "created";
    } else if (entry.op == store::JournalOp::kNodeUpdated) {
      // The store writes details as "status=<name> valid_to=<time|none>; <caller's detail>".
      const std::size_t eq = entry.detail.find("status=");
      if (eq != std::string::npos) {
        const std::size_t begin = eq + 7;
        const std::size_t end = entry.detail.find_first_of(" ;,", begin);
        StatusOr<NodeStatus> parsed = ParseNodeStatus(entry.detail.substr(begin, end - begin));
        if (parsed.ok()) status = *parsed;
      }
      event.action = std::string(NodeStatusName(status));
    } else {
      continue;
    }
    event.status = status;
    events.push_back(std::move(event));
  }
  // Edges that changed or qualify the node: supersession, contradiction, identity.
  ASSIGN_OR_RETURN(std::vector<store::EdgeRecord> edges,
                   impl_->store->EdgesOf(node.id, store::EdgeDirection::kBoth, ""));
  for (const store::EdgeRecord& edge : edges) {
    if (edge.type == "contains" || edge.type == "derived_from") continue;
    HistoryEvent event;
    event.at = edge.ingested_at;
    const bool outgoing = edge.src == node.id;
    event.action = edge.type + (outgoing ? "" : " (incoming)");
    event.related_id = outgoing ? edge.dst : edge.src;
    event.detail = "edge " + edge.id + " " + edge.status;
    event.status = node.status;
    events.push_back(std::move(event));
  }
  std::stable_sort(events.begin(), events.end(),
                   [](const HistoryEvent& a, const HistoryEvent& b) { return a.at < b.at; });
  if (!events.empty()) events.back().valid_to = node.valid_to;
  return events;
}

StatusOr<AmendResult> Engine::Amend(std::string_view id, const Turn& replacement,
                                    std::string_view reason, const AmendOptions& options) {
  if (auto bad = core::FindInvalidUtf8(reason)) {
    return Status::InvalidArgument("reason is not valid UTF-8 (byte " + std::to_string(*bad) + ")");
  }
  if (reason.size() > 1024) return Status::InvalidArgument("reason is longer than 1024 bytes");
  ASSIGN_OR_RETURN(const store::NodeRecord old_node, impl_->RequireNode(id));
  if (old_node.kind != NodeKind::kTurn) {
    return Status::InvalidArgument("memory " + old_node.id + " is a " +
                                   std::string(NodeKindName(old_node.kind)) +
                                   "; only turns can be amended (derived memories follow them)");
  }
  // The replacement keeps the old turn's session and role; speaker, event time and metadata
  // carry over when it leaves them empty.
  if (!replacement.idempotency_key.empty()) {
    return Status::InvalidArgument(
        "replacement: an amendment cannot carry an idempotency_key (it always stores a new turn)");
  }
  Turn turn = replacement;
  turn.session_id = old_node.session_id;
  turn.role = old_node.role;
  if (turn.speaker.empty()) turn.speaker = old_node.speaker;
  if (!turn.event_time.has_value()) turn.event_time = old_node.event_time;
  if (!options.clear_metadata && (turn.metadata_json.empty() || turn.metadata_json == "{}")) {
    turn.metadata_json = old_node.metadata_json;
  }
  StatusOr<std::string> canonical = write::ValidateTurn(turn, impl_->config.limits);
  if (!canonical.ok()) return canonical.status().WithContext("replacement");
  const std::string metadata[] = {std::move(canonical).value()};
  std::vector<std::string> texts;
  if (impl_->HasEmbedder()) texts.push_back(EmbeddingText(turn.speaker, turn.text));
  ASSIGN_OR_RETURN(const std::vector<std::vector<float>> vectors, impl_->EmbedTexts(texts));

  std::lock_guard write_lock(impl_->write_mutex);
  RETURN_IF_ERROR(impl_->DrainScopeOfLocked(old_node));
  const Timestamp now = impl_->clock->Now();
  ASSIGN_OR_RETURN(std::unique_ptr<store::Transaction> txn, impl_->store->BeginWrite());
  // Re-read inside the transaction: another writer may have amended or retired it meanwhile.
  ASSIGN_OR_RETURN(const store::NodeRecord current, txn->GetNode(old_node.id));
  if (current.status != NodeStatus::kActive) {
    return Status::FailedPrecondition("memory " + current.id + " is " +
                                      std::string(NodeStatusName(current.status)) +
                                      "; only an active turn can be amended");
  }
  RETURN_IF_ERROR(impl_->EnsureEmbedderRecorded(*txn, now));
  ASSIGN_OR_RETURN(const std::optional<store::ScopeRecord> scope_path_record,
                   impl_->store->GetScope(current.scope_id));
  if (!scope_path_record.has_value()) {
    return Status::NotFound("the scope of memory " + current.id + " no longer exists");
  }
  ASSIGN_OR_RETURN(const std::optional<store::ScopeRecord> record,
                   txn->FindScope(scope_path_record->path));
  if (!record.has_value()) {
    return Status::NotFound("scope " + scope_path_record->path + " no longer exists");
  }
  ASSIGN_OR_RETURN(RememberResult written,
                   impl_->CaptureAndDerive(*txn, *record, {&turn, 1}, metadata, vectors, now));
  write::EdgeRequest request;
  request.type = "supersedes";
  request.src = written.ids.front();
  request.dst = current.id;
  nlohmann::json attrs = nlohmann::json::object();
  attrs["amended"] = true;
  if (!reason.empty()) attrs["reason"] = std::string(reason);
  request.attrs_json = attrs.dump();
  request.valid_from = now;  // the old text was the record until this correction
  request.now = now;
  RETURN_IF_ERROR(impl_->registry->Apply(*txn, request).status());
  RETURN_IF_ERROR(txn->Commit());
  RETURN_IF_ERROR(impl_->AfterCommit());
  return AmendResult{
      .id = written.ids.front(), .superseded_id = current.id, .sequence = written.first_sequence};
}

StatusOr<std::vector<Link>> Engine::Links(std::string_view id) {
  ASSIGN_OR_RETURN(store::NodeRecord node, impl_->RequireNode(id));
  ASSIGN_OR_RETURN(std::vector<store::EdgeRecord> edges,
                   impl_->store->EdgesOf(node.id, store::EdgeDirection::kBoth, ""));
  std::sort(edges.begin(), edges.end(),
            [](const store::EdgeRecord& a, const store::EdgeRecord& b) { return a.row < b.row; });
  std::vector<Link> links;
  links.reserve(edges.size());
  for (store::EdgeRecord& edge : edges) {
    links.push_back(Link{.id = std::move(edge.id),
                         .type = std::move(edge.type),
                         .src = std::move(edge.src),
                         .dst = std::move(edge.dst),
                         .status = std::move(edge.status),
                         .attrs_json = std::move(edge.attrs_json)});
  }
  return links;
}

StatusOr<std::string> Engine::Analysis(std::string_view turn_id) {
  ASSIGN_OR_RETURN(const store::NodeRecord node, impl_->RequireNode(turn_id));
  if (node.kind != NodeKind::kTurn) {
    return Status::InvalidArgument("memory " + node.id + " is a " +
                                   std::string(NodeKindName(node.kind)) +
                                   ", not a turn: only turns have an analysis");
  }
  const std::int64_t rows[] = {node.row};
  ASSIGN_OR_RETURN(std::vector<store::TurnAnalysisRecord> records,
                   impl_->store->GetTurnAnalyses(rows));
  if (records.empty()) return std::string();
  return store::TurnAnalysisJson(records.front(), node.text);
}

StatusOr<std::vector<ScopeInfo>> Engine::ListScopes() {
  ASSIGN_OR_RETURN(std::vector<store::ScopeRecord> scopes, impl_->store->ListScopes());
  std::vector<ScopeInfo> infos;
  for (const store::ScopeRecord& scope : scopes) {
    ASSIGN_OR_RETURN(std::int64_t count, impl_->store->CountNodes(scope.scope_id));
    // The scope's own node is not a memory.
    infos.push_back({scope.path, std::max<std::int64_t>(0, count - 1), scope.last_sequence});
  }
  return infos;
}

Status Engine::Retire(std::string_view id, std::string_view reason) {
  if (auto bad = core::FindInvalidUtf8(reason)) {
    return Status::InvalidArgument("reason is not valid UTF-8 (byte " + std::to_string(*bad) +
                                   ")");
  }
  if (reason.size() > 1024) return Status::InvalidArgument("reason is longer than 1024 bytes");
  RETURN_IF_ERROR(Impl::CheckId(id));
  std::lock_guard write_lock(impl_->write_mutex);
  {
    StatusOr<store::NodeRecord> target = impl_->store->GetNode(id);
    if (target.ok()) RETURN_IF_ERROR(impl_->DrainScopeOfLocked(*target));
  }
  const Timestamp now = impl_->clock->Now();
  ASSIGN_OR_RETURN(std::unique_ptr<store::Transaction> txn, impl_->store->BeginWrite());
  ASSIGN_OR_RETURN(store::NodeRecord node, txn->GetNode(id));
  if (node.kind == NodeKind::kScope) {
    return Status::InvalidArgument("memory " + node.id + " is a scope; use erase or retire --all");
  }
  if (node.status != NodeStatus::kActive) {
    return Status::FailedPrecondition("memory " + node.id + " is already " +
                                      std::string(NodeStatusName(node.status)));
  }
  const Timestamp valid_to =
      node.valid_to && *node.valid_to < now ? *node.valid_to : now;  // only tighten
  // The store prefixes "status=<s> valid_to=<t>; " to the detail.
  std::string detail = reason.empty() ? "retired" : "reason=" + std::string(reason);
  RETURN_IF_ERROR(txn->UpdateNodeState(node.id, NodeStatus::kRetired, valid_to, now, detail));
  RETURN_IF_ERROR(txn->Commit());
  return impl_->AfterCommit();
}

StatusOr<std::size_t> Engine::RetireAll(const Scope& scope) {
  ASSIGN_OR_RETURN(store::ScopeRecord record, impl_->RequireScope(scope));
  ASSIGN_OR_RETURN(std::vector<std::int64_t> scope_ids, impl_->ScopeIds(record, true));
  std::lock_guard write_lock(impl_->write_mutex);
  RETURN_IF_ERROR(impl_->DrainLocked(record, /*nested=*/true));
  const Timestamp now = impl_->clock->Now();
  ASSIGN_OR_RETURN(std::unique_ptr<store::Transaction> txn, impl_->store->BeginWrite());
  std::size_t retired = 0;
  for (const std::int64_t scope_id : scope_ids) {
    store::NodeFilter filter;
    filter.include_inactive = false;
    ASSIGN_OR_RETURN(std::vector<store::NodeRecord> nodes,
                     impl_->store->ListNodes(scope_id, filter));
    for (const store::NodeRecord& node : nodes) {
      if (node.kind == NodeKind::kScope || node.status != NodeStatus::kActive) continue;
      const Timestamp valid_to = node.valid_to && *node.valid_to < now ? *node.valid_to : now;
      RETURN_IF_ERROR(txn->UpdateNodeState(node.id, NodeStatus::kRetired, valid_to, now,
                                           "reason=retire-all"));
      ++retired;
    }
  }
  RETURN_IF_ERROR(txn->Commit());
  RETURN_IF_ERROR(impl_->AfterCommit());
  return retired;
}

StatusOr<EraseResult> Engine::Erase(const Scope& scope) {
  ASSIGN_OR_RETURN(store::ScopeRecord record, impl_->RequireScope(scope));
  std::lock_guard write_lock(impl_->write_mutex);
  ASSIGN_OR_RETURN(std::vector<std::int64_t> scope_ids, impl_->ScopeIds(record, true));
  ASSIGN_OR_RETURN(store::EraseCounts counts, impl_->store->EraseScopes(scope_ids));
  // From here on the erase is committed, even when wiping the write-ahead log failed
  // (counts.wipe_status): the projections and caches follow it before any error is returned.
  {
    std::unique_lock lock(impl_->projection_mutex);
    for (const std::int64_t scope_id : scope_ids) {
      impl_->projection->Drop(scope_id);
      if (impl_->vectors != nullptr) impl_->vectors->Drop(scope_id);
    }
    {
      std::lock_guard paths_lock(impl_->scope_paths_mutex);
      for (const std::int64_t scope_id : scope_ids) impl_->scope_paths.erase(scope_id);
    }
    // The erase is committed: a failed catch-up is retried before the next read (AfterCommit).
    static_cast<void>(impl_->projection->CatchUp());
    if (impl_->vectors != nullptr) static_cast<void>(impl_->vectors->CatchUp());
  }
  RETURN_IF_ERROR(counts.wipe_status);
  EraseResult result;
  result.scopes = counts.scopes;
  result.nodes = counts.nodes;
  result.edges = counts.edges;
  return result;
}

StatusOr<AuditReport> Engine::Audit(const Scope& scope) {
  ASSIGN_OR_RETURN(const store::ScopeRecord record, impl_->RequireScope(scope));
  return store::AuditScope(*impl_->store, record);
}

StatusOr<MerkleProof> Engine::Proof(std::string_view id) {
  ASSIGN_OR_RETURN(const store::NodeRecord node, impl_->RequireNode(id));
  return store::ProveNode(*impl_->store, node.id);
}

StatusOr<ExportSummary> Engine::Export(const Scope& scope, std::string* out) {
  ASSIGN_OR_RETURN(const store::ScopeRecord record, impl_->RequireScope(scope));
  // Holding the write lock keeps this engine's writers out while the scope is read.
  std::lock_guard write_lock(impl_->write_mutex);
  RETURN_IF_ERROR(impl_->DrainLocked(record, /*nested=*/true));
  return archive::ExportScope(*impl_->store, record, out);
}

StatusOr<ImportSummary> Engine::Import(std::string_view text, const ImportOptions& options) {
  if (options.scope.has_value()) RETURN_IF_ERROR(options.scope->Validate());
  std::lock_guard write_lock(impl_->write_mutex);
  ASSIGN_OR_RETURN(ImportSummary summary,
                   archive::ImportScope(*impl_->store, *impl_->registry,
                                        archive::ImportRequest{.text = text,
                                                               .source_name = options.source_name,
                                                               .scope = options.scope,
                                                               .embedder = impl_->embedder_record}));
  RETURN_IF_ERROR(impl_->AfterCommit());
  return summary;
}

StatusOr<MergeProposal> Engine::ProposeSameAs(std::string_view a, std::string_view b,
                                              std::string_view reason) {
  ASSIGN_OR_RETURN(store::NodeRecord node_a, impl_->RequireNode(a));
  ASSIGN_OR_RETURN(store::NodeRecord node_b, impl_->RequireNode(b));
  if (auto bad = core::FindInvalidUtf8(reason)) {
    return Status::InvalidArgument("reason is not valid UTF-8 (byte " + std::to_string(*bad) +
                                   ")");
  }
  if (reason.size() > 1024) return Status::InvalidArgument("reason is longer than 1024 bytes");
  std::lock_guard write_lock(impl_->write_mutex);
  // Identity edges change how later turns resolve names: derive the earlier ones first.
  RETURN_IF_ERROR(impl_->worker->DrainAllLocked());
  ASSIGN_OR_RETURN(std::unique_ptr<store::Transaction> txn, impl_->store->BeginWrite());
  write::EdgeRequest request;
  request.type = "same_as";
  request.src = node_a.id;
  request.dst = node_b.id;
  request.scope_id = node_a.scope_id;
  request.attrs_json = ReasonAttrs(reason);
  request.now = impl_->clock->Now();
  ASSIGN_OR_RETURN(store::EdgeRecord edge, impl_->registry->Apply(*txn, request));
  RETURN_IF_ERROR(txn->Commit());
  return MergeProposal{edge.id, edge.src, edge.dst, edge.status, std::string(reason)};
}

Status Engine::AcceptProposal(std::string_view proposal_id) {
  std::lock_guard write_lock(impl_->write_mutex);
  RETURN_IF_ERROR(impl_->worker->DrainAllLocked());
  ASSIGN_OR_RETURN(std::unique_ptr<store::Transaction> txn, impl_->store->BeginWrite());
  RETURN_IF_ERROR(impl_->registry->AcceptProposal(*txn, proposal_id, impl_->clock->Now()));
  return txn->Commit();
}

Status Engine::RejectProposal(std::string_view proposal_id) {
  std::lock_guard write_lock(impl_->write_mutex);
  RETURN_IF_ERROR(impl_->worker->DrainAllLocked());
  ASSIGN_OR_RETURN(std::unique_ptr<store::Transaction> txn, impl_->store->BeginWrite());
  RETURN_IF_ERROR(impl_->registry->RejectProposal(*txn, proposal_id, impl_->clock->Now()));
  return txn->Commit();
}

StatusOr<std::vector<MergeProposal>> Engine::ListProposals(const Scope& scope) {
  ASSIGN_OR_RETURN(store::ScopeRecord record, impl_->RequireScope(scope));
  ASSIGN_OR_RETURN(std::vector<store::EdgeRecord> edges,
                   impl_->store->EdgesInScope(record.scope_id, "same_as"));
  std::vector<MergeProposal> proposals;
  for (const store::EdgeRecord& edge : edges) {
    proposals.push_back({edge.id, edge.src, edge.dst, edge.status == "active" ? "accepted" : edge.status,
                         ReasonFromAttrs(edge.attrs_json)});
  }
  return proposals;
}

StatusOr<std::vector<std::string>> Engine::EquivalenceClass(std::string_view id) {
  ASSIGN_OR_RETURN(store::NodeRecord node, impl_->RequireNode(id));
  return write::EdgeRegistry::EquivalenceClass(*impl_->store, node.id);
}

// The world graph (engine/graph_ops.h holds the work).
StatusOr<NeighboursResult> Engine::Neighbours(std::string_view id,
                                              const GraphQueryOptions& options) {
  return graph_ops::Neighbours({*impl_->store, *impl_->registry, impl_->clock->Now()}, id, options);
}

StatusOr<PathsResult> Engine::Paths(std::string_view from, std::string_view to,
                                    const GraphQueryOptions& options) {
  return graph_ops::Paths({*impl_->store, *impl_->registry, impl_->clock->Now()}, from, to,
                          options);
}

StatusOr<IdentityClassResult> Engine::IdentityClass(std::string_view entity_id,
                                                    const GraphQueryOptions& options) {
  return graph_ops::IdentityClass({*impl_->store, *impl_->registry, impl_->clock->Now()},
                                  entity_id, options);
}

std::vector<EdgeTypeInfo> Engine::EdgeTypes() const {
  return graph_ops::EdgeTypes(*impl_->registry);
}

StatusOr<GraphEdge> Engine::AddEdge(const Scope& scope, const NewEdge& edge) {
  std::lock_guard write_lock(impl_->write_mutex);
  ASSIGN_OR_RETURN(GraphEdge added,
                   graph_ops::AddEdge({*impl_->store, *impl_->registry, impl_->clock->Now()},
                                      scope, edge));
  RETURN_IF_ERROR(impl_->AfterCommit());
  return added;
}

StatusOr<GraphEdge> Engine::GetEdge(std::string_view edge_id) {
  return graph_ops::GetEdge({*impl_->store, *impl_->registry, impl_->clock->Now()}, edge_id);
}

Status Engine::RetireEdge(std::string_view edge_id) {
  std::lock_guard write_lock(impl_->write_mutex);
  RETURN_IF_ERROR(
      graph_ops::RetireEdge({*impl_->store, *impl_->registry, impl_->clock->Now()}, edge_id));
  return impl_->AfterCommit();
}

StatusOr<RebuildReport> Engine::RebuildIndex() {
  std::unique_lock lock(impl_->projection_mutex);
  ASSIGN_OR_RETURN(RebuildReport report, impl_->projection->RebuildAll());
  if (impl_->vectors != nullptr) {
    const auto started = std::chrono::steady_clock::now();
    ASSIGN_OR_RETURN(VectorRebuildReport vectors, impl_->vectors->RebuildAll());
    if (!vectors.matched_live_index) report.matched_live_index = false;
    report.seconds +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  }
  return report;
}

StatusOr<ReembedResult> Engine::Reembed(
    const std::function<void(std::size_t done, std::size_t total)>& progress) {
  const auto started = std::chrono::steady_clock::now();
  // Other writes wait: a turn remembered meanwhile would miss the new vectors. Turns pending
  // derivation are embedded here too; the worker later stores the same vectors again.
  std::lock_guard write_lock(impl_->write_mutex);
  ReembedResult result;
  ASSIGN_OR_RETURN(const std::optional<store::EmbedderRecord> previous,
                   impl_->store->GetEmbedder());
  if (previous.has_value()) result.previous_model_id = previous->model_id;
  result.model_id = impl_->embedder_record.model_id;
  result.dimension = impl_->embedder_record.dimension;

  // Every turn of the store, in scope then row order.
  struct Pending {
    std::string id;
    std::string text;
  };
  std::vector<Pending> turns;
  ASSIGN_OR_RETURN(std::vector<store::ScopeRecord> scopes, impl_->store->ListScopes());
  for (const store::ScopeRecord& scope : scopes) {
    RETURN_IF_ERROR(impl_->store->ScanNodes(scope.scope_id, NodeKind::kTurn,
                                            [&](const store::NodeRecord& node) {
                                              turns.push_back(
                                                  {node.id, EmbeddingText(node.speaker, node.text)});
                                              return true;
                                            }));
  }
  result.turns = impl_->HasEmbedder() ? turns.size() : 0;

  // Embed first (no store lock held), then write everything in one transaction.
  constexpr std::size_t kBatch = 256;
  std::vector<float> flat;
  const std::size_t dimension = impl_->embedder_record.dimension;
  if (impl_->HasEmbedder()) {
    flat.reserve(turns.size() * dimension);
    if (progress) progress(0, turns.size());
    for (std::size_t begin = 0; begin < turns.size(); begin += kBatch) {
      const std::size_t end = std::min(turns.size(), begin + kBatch);
      std::vector<std::string> texts;
      for (std::size_t i = begin; i < end; ++i) texts.push_back(std::move(turns[i].text));
      ASSIGN_OR_RETURN(std::vector<std::vector<float>> vectors, impl_->EmbedTexts(texts));
      for (const std::vector<float>& vector : vectors) {
        flat.insert(flat.end(), vector.begin(), vector.end());
      }
      if (progress) progress(end, turns.size());
    }
  }
  const Timestamp now = impl_->clock->Now();
  {
    ASSIGN_OR_RETURN(std::unique_ptr<store::Transaction> txn, impl_->store->BeginWrite());
    // A different embedder drops the old vectors; the same one keeps them until replaced below.
    RETURN_IF_ERROR(txn->SetEmbedder(impl_->embedder_record, now));
    if (impl_->HasEmbedder()) {
      for (std::size_t i = 0; i < turns.size(); ++i) {
        RETURN_IF_ERROR(txn->PutVector(
            turns[i].id, impl_->embedder_record.model_id,
            std::span<const float>(flat).subspan(i * dimension, dimension)));
      }
    }
    RETURN_IF_ERROR(txn->Commit());
  }
  RETURN_IF_ERROR(impl_->AfterCommit());
  result.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return result;
}

std::string Engine::embedder_id() const { return impl_->embedder_record.model_id; }

}  // namespace engram
