// engram::Engine: the whole memory engine behind one object.
//
//   engram::EngineOptions options;
//   options.store_path = "memory.db";
//   ASSIGN_OR_RETURN(std::unique_ptr<engram::Engine> engine, engram::Engine::Open(options));
//   ASSIGN_OR_RETURN(engram::Scope scope, engram::Scope::Parse("user:alice"));
//   engram::Turn turn{.role = engram::Role::kUser, .speaker = "Alice",
//                     .text = "My sister Maya lives in Porto."};
//   RETURN_IF_ERROR(engine->Remember(scope, {&turn, 1}).status());
//   ASSIGN_OR_RETURN(engram::ReadResult result,
//                    engine->Recall(scope, {.text = "Where does Maya live?"}, {}));
//   // result.context goes to the language model with result.answer_instructions.
//
// Thread-safety: all methods may be called concurrently; writes are serialised internally.
// Every method returns a Status; none throws.
#ifndef ENGRAM_ENGINE_H_
#define ENGRAM_ENGINE_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "engram/audit.h"
#include "engram/graph.h"
#include "engram/options.h"
#include "engram/read_result.h"
#include "engram/status.h"
#include "engram/types.h"

namespace engram {

// The model id of the embedder `config` configures, e.g. "use-lite@0.2.0", "openai:<model>",
// "hashing-256", or "none" (what the store records and Engine::embedder_id returns).
std::string EmbedderModelId(const EmbedderConfig& config);

struct ScopeInfo {
  std::string scope;  // Scope::ToString()
  std::int64_t memories = 0;    // turns and derived nodes contained
  std::int64_t last_sequence = 0;
};

// A pending, accepted or rejected identity-merge proposal (a `same_as` edge).
struct MergeProposal {
  std::string id;  // the edge id
  std::string a;
  std::string b;
  std::string status;  // "pending" | "accepted" | "rejected"
  std::string reason;
};

// Progress of the background derivation (RememberOptions::wait, DESIGN §4).
struct DerivationStatus {
  std::int64_t pending_turns = 0;   // turns stored but not yet embedded and derived, store-wide
  std::size_t pending_scopes = 0;   // scopes holding such turns
  std::int64_t derived_turns = 0;   // turns this engine's worker (or a drain) derived since Open
  std::int64_t failures = 0;        // derivation chunks that failed since Open
  // The last failure (its turns stay pending and are tried again); Ok when none, or once a later
  // pass of the worker succeeded.
  Status last_error;
  // Back-pressure ([write] max_pending_turns; 0 = none): writes refused since Open because this
  // many turns or more awaited derivation.
  std::int64_t refused_writes = 0;
  std::int64_t max_pending_turns = 0;
};

struct RebuildReport {
  std::size_t scopes = 0;
  std::size_t documents = 0;
  std::size_t terms = 0;
  double seconds = 0;
  bool matched_live_index = true;  // the rebuilt index equals the incrementally maintained one
};

// One edge of a memory as Links returns it: a typed, directed relation to another memory
// (derived_from, at_time, mentions, refers_to, supersedes, corrects, contradicts, same_as, ...).
struct Link {
  std::string id;  // the edge id
  std::string type;
  std::string src;     // memory id
  std::string dst;     // memory id
  std::string status;  // "active", "pending", "rejected", "superseded", "retired"
  std::string attrs_json = "{}";  // the edge's attributes (reason, spans, references, ...)
};

// What Engine::Amend wrote.
struct AmendResult {
  std::string id;             // the new turn
  std::string superseded_id;  // the amended turn, now superseded
  std::int64_t sequence = 0;  // the new turn's sequence number in its scope
};

// What Engine::Reembed did.
struct ReembedResult {
  std::string previous_model_id;  // the store's embedder before ("" when none was recorded)
  std::string model_id;           // the configured embedder, now recorded ("none": no vectors)
  std::size_t dimension = 0;
  std::size_t turns = 0;  // turns embedded
  double seconds = 0;
};

class Engine {
 public:
  // Opens (or creates) the store at options.store_path and loads the configuration.
  static StatusOr<std::unique_ptr<Engine>> Open(const EngineOptions& options);
  // A store location fit for logs and messages: a PostgreSQL URL's password is replaced by
  // "***"; a file path is returned unchanged.
  static std::string DisplayStoreLocation(std::string_view location);
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Stores the turns verbatim, in order, in one transaction: either all are stored or none is
  // (a bad turn is kInvalidArgument naming its index and the problem). Creates the scope if new.
  // options.wait says whether it returns before or after their embedding and derivation
  // (RememberWait); either way the store ends up the same.
  StatusOr<RememberResult> Remember(const Scope& scope, std::span<const Turn> turns,
                                    const RememberOptions& options = {});

  // Waits until every turn pending derivation when it was called (left by a non-blocking
  // Remember of this or another engine, or by a crash between the phases) is embedded and
  // derived. Returns the worker's error when a derivation failed meanwhile (the turns stay
  // pending); kUnavailable when the engine is being destroyed. Captures come first: while other
  // threads keep calling Remember, the worker yields to them, so this waits for a pause in their
  // writes (or until 5,000 turns await derivation, when the two take turns).
  Status WaitForDerivation();
  // Pending turns and the worker's counters and last error.
  StatusOr<DerivationStatus> Derivation();
  // Wakes the derivation worker to take up whatever is pending in the store, without waiting
  // (WaitForDerivation waits): turns another engine acknowledged and did not derive, e.g. a
  // server killed between the phases. The worker otherwise wakes only on this engine's writes
  // and when the store is opened. Without EngineOptions::background_derivation: nothing.
  void ResumeDerivation();

  // Ranked, packed, explained memories of `scope` for `query`. An unknown scope is kNotFound.
  StatusOr<ReadResult> Recall(const Scope& scope, const RecallQuery& query,
                              const RecallOptions& options = {});

  // DMF's context of a run (DESIGN §6): the memories recalled for `query` (from the run's
  // enclosing scope, see ContextOptions) followed by the run's active window — the turns that
  // survive decay, hard-kill and budget pruning (DMF §5-8, constants in [active]) — under one
  // token budget, each window turn with its survival score, tier and the reason it is kept.
  // Reads only: a turn that leaves the window stays in long-term memory. kInvalidArgument for a
  // scope whose last segment is not run:, a blank query or a budget above 1,000,000; kNotFound
  // for an unknown run.
  StatusOr<ContextResult> Context(const Scope& run, const RecallQuery& query,
                                  const ContextOptions& options = {});
  StatusOr<Memory> Get(std::string_view id);
  // Memories of exactly this scope in sequence order (turns first, then derived nodes).
  StatusOr<std::vector<Memory>> List(const Scope& scope, const ListOptions& options = {});
  // The memory's changes, oldest first, starting with its creation.
  StatusOr<std::vector<HistoryEvent>> History(std::string_view id);
  // Corrects a turn: stores `replacement` as a new turn of the same scope that supersedes the old
  // one, in one transaction (the old turn's session and role are kept; its speaker, event time
  // and metadata carry over where the replacement leaves them empty; with
  // options.clear_metadata the replacement's metadata is stored as given, so "{}" clears it). The
  // old turn stays, superseded, with its history; recall shows the new one. Only active turns can
  // be amended (kFailedPrecondition otherwise; kInvalidArgument for a derived node, a bad
  // replacement or one with an idempotency key; kNotFound for an unknown id).
  StatusOr<AmendResult> Amend(std::string_view id, const Turn& replacement,
                              std::string_view reason = "", const AmendOptions& options = {});
  // Every edge from or to the memory, in the order the store wrote them (its time anchors and
  // facts point at a turn through derived_from; a turn points at its times, entities and
  // references). An unknown id is kNotFound.
  StatusOr<std::vector<Link>> Links(std::string_view id);
  // The stored analysis of a turn as canonical JSON: its signals and DMF content signals, one
  // row per turn (layout: {"content": {...}, "signals": [{"kind", "begin", "end", "value"?,
  // ...}]}, the spans are byte offsets into the turn's text; docs/ARCHITECTURE.md, src/store).
  // "" when nothing was derived from it (derivation off). kNotFound for an unknown id,
  // kInvalidArgument for a memory that is not a turn.
  StatusOr<std::string> Analysis(std::string_view turn_id);
  StatusOr<std::vector<ScopeInfo>> ListScopes();

  // Closes the memory's validity now (kept, visible in History and List, hidden from Recall).
  // Retiring a retired memory is kFailedPrecondition.
  Status Retire(std::string_view id, std::string_view reason = "");
  // Retires every active memory of the scope (nested scopes included); returns how many.
  StatusOr<std::size_t> RetireAll(const Scope& scope);
  // Hard-deletes the scope, its nested scopes, their memories, edges, index entries and journal
  // rows, and wipes the freed pages so the file no longer holds their text. When only that last
  // wipe fails the erase is committed and the engine's state follows it, but the error (saying
  // so) is returned: erased text may remain in the write-ahead log until the next checkpoint.
  StatusOr<EraseResult> Erase(const Scope& scope);

  // Identity merges (`same_as`): staged as pending proposals, accepted or rejected explicitly.
  StatusOr<MergeProposal> ProposeSameAs(std::string_view a, std::string_view b,
                                        std::string_view reason);
  Status AcceptProposal(std::string_view proposal_id);
  Status RejectProposal(std::string_view proposal_id);
  StatusOr<std::vector<MergeProposal>> ListProposals(const Scope& scope);
  // Every node reachable from `id` through accepted same_as edges, `id` included, sorted.
  StatusOr<std::vector<std::string>> EquivalenceClass(std::string_view id);

  // The world graph (engram/graph.h), read-only and as of GraphQueryOptions' times. Errors:
  // kInvalidArgument for a malformed id, an unknown edge type, a limit or depth out of range;
  // kNotFound for an unknown id (or one of a scope options.readable_scope refuses).
  // Neighbours: the edges of memory `id` of the asked types and direction, with the memory at
  // each edge's other end, in the order the store wrote the edges.
  StatusOr<NeighboursResult> Neighbours(std::string_view id, const GraphQueryOptions& options = {});
  // Paths: the simple paths from `from` to `to` of at most options.max_depth edges.
  StatusOr<PathsResult> Paths(std::string_view from, std::string_view to,
                              const GraphQueryOptions& options = {});
  // IdentityClass: the entity and every entity joined to it by accepted same_as edges, as of the
  // options' times (kInvalidArgument for a memory that is not an entity; edge_types and
  // direction are not used).
  StatusOr<IdentityClassResult> IdentityClass(std::string_view entity_id,
                                              const GraphQueryOptions& options = {});

  // Client edges of the types declared in [graph] edge_types, validated by the edge registry as
  // engram's own: every registered type with its semantics, engram's own first, then by name.
  std::vector<EdgeTypeInfo> EdgeTypes() const;
  // Adds an edge of a declared type, written in `scope`, journaled and in the scope's Merkle log
  // like engram's own. Both endpoints must exist and lie in `scope`, a scope nested in it or one
  // enclosing it (kNotFound naming the side otherwise); a single-valued type supersedes the
  // source's active edge of the type; a symmetric one is stored once with src < dst. Errors:
  // kInvalidArgument for an undeclared or built-in type, a malformed id, src == dst, attributes
  // that are not a JSON object of at most 16 KiB; kAlreadyExists for the same active edge.
  // Nothing is stored on any error.
  StatusOr<GraphEdge> AddEdge(const Scope& scope, const NewEdge& edge);
  // The edge `edge_id` as stored. kNotFound for an unknown id.
  StatusOr<GraphEdge> GetEdge(std::string_view edge_id);
  // Retires a client edge: status retired, validity closed now (kept, visible as of earlier
  // times). kInvalidArgument for an edge of engram's own types; kFailedPrecondition when it is
  // not active.
  Status RetireEdge(std::string_view edge_id);

  // Builds the scope's episodes, scenes and profiles from its turns and facts and stores them as
  // episode / scene / profile nodes (src/consolidate/consolidator.h), in one transaction.
  // Idempotent: a second run over an unchanged scope writes nothing; a run after more turns
  // leaves the same active episodes, scenes and profiles as a run over everything from scratch.
  // Read them with List (kind episode / scene / profile; each node's metadata holds its fields).
  // An unknown scope is kNotFound.
  StatusOr<ConsolidateResult> Consolidate(const Scope& scope);

  // The Merkle audit (docs/AUDIT.md). Audit recomputes the scope's root (and its nested scopes')
  // from the stored memories and edges and compares every leaf and root with the ones the store
  // kept at each commit; a difference is reported in the result (ok = false, the first mismatch
  // named), not as an error. An unknown scope is kNotFound.
  StatusOr<AuditReport> Audit(const Scope& scope);
  // The inclusion proof of a memory in its scope's node log and the roots of its scope and every
  // enclosing one, verified. An unknown id is kNotFound.
  StatusOr<MerkleProof> Proof(std::string_view id);

  // Export / import of a scope and its nested scopes as JSON Lines with the Merkle root
  // (src/archive/archive.h, docs/AUDIT.md). Export writes the file's text to *out (kCorruption when
  // the stored records do not recompute to the stored root). Import writes it in one transaction
  // or not at all: the same ids and root under the file's scope name; under options.scope new
  // ids and a recomputed root. kInvalidArgument / kCorruption name the bad line and field;
  // kAlreadyExists when the scope exists.
  StatusOr<ExportSummary> Export(const Scope& scope, std::string* out);
  StatusOr<ImportSummary> Import(std::string_view text, const ImportOptions& options = {});

  // Shared deployments (several servers on one store; docs/ARCHITECTURE.md, src/server's
  // JournalFollower). CatchUp applies the store's journal entries committed since the last
  // catch-up (this process's writes and other processes') to the loaded projections now, so the
  // next Recall finds them without catching up itself; returns the last journal seq applied.
  // WaitForJournal waits until the store's journal moves past `after_seq`, `timeout` passes or
  // `stop` is requested, and returns the journal's last seq (store::Store::WaitForJournal:
  // PostgreSQL's LISTEN/NOTIFY, SQLite polls).
  StatusOr<std::int64_t> CatchUp();
  StatusOr<std::int64_t> WaitForJournal(std::int64_t after_seq, std::chrono::milliseconds timeout,
                                        std::stop_token stop = {});

  // Recomputes every index projection from the store and checks it against the live one.
  StatusOr<RebuildReport> RebuildIndex();

  // Re-embeds every turn of the store with the configured embedder ([embedder]) and records it
  // as the store's embedder, replacing all vectors in one transaction (all or nothing); other
  // writes wait meanwhile. Idempotent. `progress(done, total)` is called as turns are embedded.
  StatusOr<ReembedResult> Reembed(
      const std::function<void(std::size_t done, std::size_t total)>& progress = {});

  // Model id of the configured embedder ("use-lite@0.2.0", "openai:<model>", "hashing-256", or
  // "none"): the vector space the store's vectors and queries are in.
  std::string embedder_id() const;

  struct Impl;

 private:
  explicit Engine(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace engram

#endif  // ENGRAM_ENGINE_H_
