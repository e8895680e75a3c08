// Options of engram's public calls. Every field has a default that works; comments say what it is.
#ifndef ENGRAM_OPTIONS_H_
#define ENGRAM_OPTIONS_H_

#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engram/clock.h"
#include "engram/config.h"
#include "engram/status.h"
#include "engram/types.h"

namespace engram {

struct EngineOptions {
  // Where the store is: the path of a SQLite store file, or the URL of a PostgreSQL store
  // (postgresql://user@host/dbname, or postgres://; connection settings in the config's
  // [store]). Default: "engram.db" in the current directory. Engine::Open refuses a NUL byte in
  // this path, data_dir or config_file (kInvalidArgument naming the field).
  std::string store_path = "engram.db";
  // Where engram's data files (models, lexicons) live. Default: "" = $ENGRAM_DATA_DIR, else
  // $XDG_DATA_HOME/engram, else ~/.local/share/engram.
  std::string data_dir;
  // TOML configuration file. Default: "" = built-in defaults (see config.h).
  std::string config_file;
  // Used instead of config_file when set (tests, embedding applications).
  std::optional<Config> config;
  // Create the store if it does not exist. Default: true. When false, a missing store is kNotFound.
  bool create_if_missing = true;
  // Time source for ingest and update times. Default: nullptr = SystemClock().
  std::shared_ptr<Clock> clock;
  // Refuse a store whose recorded embedder differs from [embedder] (kFailedPrecondition naming
  // both model ids and `engram reembed`). Default: true. `engram reembed` opens with false: until
  // Engine::Reembed has run, such an engine refuses Remember and recalls without vectors.
  bool check_embedder = true;
  // Embed and derive the turns of non-blocking writes (RememberWait kDurable / kIndexed) in a
  // background thread of the engine, which also resumes work pending in the store when it opens.
  // Default: true. When false they stay pending until Engine::WaitForDerivation (which then
  // derives them in the calling thread) or a write that derives its scope's pending turns first
  // (a kDerived Remember, amend, retire, consolidate, ...): for tests that need the state between
  // the phases, and for single-threaded embedding.
  bool background_derivation = true;
};

// How far Engine::Remember goes before it returns (DESIGN §4). A write has two phases: the
// capture (the turns committed: durable, and searchable by BM25 once the projection has caught
// up) and the derivation (embeddings, signals, entities, references, facts). Each level includes
// the ones before it.
enum class RememberWait {
  // Return once the turns are committed. Get, List and Recall's BM25 route find them (a recall
  // catches the projection up first); embedding and derivation follow in the engine's
  // background worker, in order, with the capture's time as "now", so the final store is the
  // one a kDerived write gives. Engine::WaitForDerivation waits for the worker.
  kDurable,
  // As kDurable, and the engine's BM25 projection has taken the turns in before returning.
  kIndexed,
  // Return once the turns are embedded and derived too: capture and derivation of this call
  // commit in one transaction, after any derivation still pending in the scope.
  kDerived,
};

struct RememberOptions {
  // Default: kDerived. An embedding application (or the Python binding, or a one-shot CLI
  // command) reads its own derived memories right after writing them and may exit right
  // after, leaving pending work to whoever opens the store next; so the library keeps the
  // synchronous contract unless asked. The server (REST, MCP) and `engram ingest` write with
  // kIndexed: writes do not wait for derivation there.
  RememberWait wait = RememberWait::kDerived;
};

// "durable" | "indexed" | "derived" (the REST and CLI spelling of RememberWait), and back
// (kInvalidArgument naming the accepted values).
std::string_view RememberWaitName(RememberWait wait);
StatusOr<RememberWait> ParseRememberWait(std::string_view name);

// What Remember wrote.
struct RememberResult {
  std::vector<std::string> ids;  // one node id per input turn, in input order
  // Sequence numbers of the first and last turn this call stored; 0 when it stored none.
  std::int64_t first_sequence = 0;
  std::int64_t last_sequence = 0;
  // Indexes of the input turns not stored because their idempotency key was already stored in
  // the scope (or given to an earlier turn of the batch), ascending; ids[i] is then the id of the
  // turn stored with that key.
  std::vector<std::size_t> already_stored;
  // True when the stored turns' embedding and derivation were left to the background worker
  // (RememberOptions::wait kDurable or kIndexed); false when they are done.
  bool derivation_pending = false;
};

// What Engine::Consolidate did (src/consolidate/consolidator.h).
struct ConsolidateResult {
  std::size_t turns = 0;       // active turns of the scope
  std::size_t episodes = 0;    // active episodes after the run
  std::size_t scenes = 0;      // active scenes after the run
  std::size_t profiles = 0;    // active profiles after the run
  std::size_t written = 0;     // episode, scene and profile nodes this run wrote
  std::size_t superseded = 0;  // nodes this run superseded (content changed) or retired
};

struct RecallQuery {
  std::string text;  // the question; non-empty valid UTF-8
  // "Now" for the question: resolves relative time and validity. Default: the engine clock.
  std::optional<Timestamp> query_time;
};

struct RecallOptions {
  // Items returned at most. Default: 0 = Config::recall.max_items.
  std::size_t k = 0;
  // Token budget of the packed context. Default: 0 = Config::recall.token_budget.
  std::size_t token_budget = 0;
  // Routes to run, by name ("bm25", ...). Default: empty = every route the planner picks.
  std::vector<std::string> routes;
  // Route weights that replace both [recall.route_weights] and the planner's for this call, by
  // route name; weight 0 switches a route off. Each name must be a known route and each weight a
  // finite number in [0, 1000]; otherwise Recall is kInvalidArgument naming the route (listing
  // the known routes for an unknown one). Default: empty = the planner decides.
  std::map<std::string, double> route_weights;
  // Apply the planner's rule table ([planner]). Default: true (if the config enables it).
  bool use_planner = true;
  // Return retired and superseded memories too. Default: false (they are hidden).
  bool include_retired = false;
  // As-of recall, on WorldDB's two time axes; both may be set. Each memory a filter hides is
  // counted per filter in Diagnostics::filtered_by and listed with its reason in
  // Diagnostics::filtered.
  // What was true then: only memories whose validity [valid_from, valid_to) covers this time
  // (a turn is valid from its event time; a fact from when it held until it was superseded or
  // retired), superseded and retired ones included when they were valid then; rejected and
  // pending facts stay hidden unless include_retired. Default: unset = what is valid at the
  // query time, active memories only.
  std::optional<Timestamp> valid_at;
  // What engram knew then: only memories ingested at or before this time, each with the status
  // and validity the store had recorded by then (read back from the journal), so a memory
  // retired or superseded later counts as active. Without valid_at, validity is judged at the
  // query time. Ranking statistics (BM25 document frequencies) are today's. Default: unset = all
  // that is stored now.
  std::optional<Timestamp> known_at;
  // Search scopes nested inside the given one too. Default: true.
  bool include_nested = true;
  // Instructions for the answer model, returned apart from the context. Default: balanced.
  AnswerPolicy policy = AnswerPolicy::kBalanced;
  // What the context holds. kChat puts two sections before the recalled evidence (DESIGN §5.7,
  // EverMemOS §3.5): the profile of the person the question is about (the people it names, else
  // the user of a user: scope), its current explicit facts and traits as the last consolidation
  // stored them, and the foresight (plans and temporary states) valid at the query time (or at
  // valid_at); every line names its evidence turns (ReadResult::chat), and a line whose fact the
  // recall's filters hide (retired, superseded since, not known at known_at) is left out. The
  // two sections take at most Config::recall.chat_share of the token budget, line by line in
  // that order; the evidence gets the rest. Default: kEvidence (the evidence only).
  ContextMode mode = ContextMode::kEvidence;
  // Added with issue 22: how the context is chosen from the ranked items. true = by value
  // under the token budget (src/read/packing.h: the best item before the rest, whole when it
  // fits, else as an excerpt around the question's words; then items scoring at least [recall]
  // pack_floor x the best one or first in some route, best value per token first; k an upper
  // bound that defaults to [recall] pack_max_items); false = in rank order while they fit,
  // at most k (default [recall] max_items), so the items are the ranking itself (what the
  // benchmarks evaluate).
  // Default: unset = [recall] pack_by_value.
  std::optional<bool> pack_by_value;
  // Fill RecallItem::features and Diagnostics::feature_names: the learned ranker's inputs, for
  // training it (`engram bench ... --trace` asks for them). Default: false.
  bool features = false;
  // Run the optional LLM loop ([recall] llm_loop, docs/LLM_RECALL.md) when the config turns it
  // on; false skips it for this call. Default: true.
  bool llm_loop = true;
};

struct ListOptions {
  // Entries returned at most. Default: 100.
  std::size_t limit = 100;
  // Only memories whose sequence number is greater (for paging). Default: 0 = from the start.
  std::int64_t after_sequence = 0;
  // List retired and superseded memories too. Default: true.
  bool include_retired = true;
  // As RecallOptions::valid_at: only memories whose validity covers this time, superseded and
  // retired ones included even when include_retired is false. Default: unset.
  std::optional<Timestamp> valid_at;
  // As RecallOptions::known_at: only memories ingested by this time, each Memory's status and
  // valid_to as recorded then. Default: unset.
  std::optional<Timestamp> known_at;
  // Only memories of this kind; nullopt = every kind (scope nodes are never listed). Derived
  // nodes (signals, entities, facts) carry the sequence number of the turn they come from.
  // Default: turns.
  std::optional<NodeKind> kind = NodeKind::kTurn;
};

struct AmendOptions {
  // Store the replacement's metadata as it is given, even when empty ("" or "{}"), so an
  // amendment can clear a turn's metadata. Default: false = an empty replacement metadata
  // carries the old turn's over.
  bool clear_metadata = false;
};

// Options of Engine::Context: recalled long-term memory followed by a run's active window.
struct ContextOptions {
  // Tokens of the whole context (recalled memory and window together, CountTokens), in
  // [1, 1000000]. Default: 0 = Config::active.context_tokens.
  std::size_t token_budget = 0;
  // Most tokens the active window may take of it (DMF's τ_tok), >= 1. Default: 0 =
  // Config::active.window_tokens, or for a token_budget below Config::active.context_tokens the
  // same share of it (window_tokens / context_tokens). Never more than token_budget.
  std::size_t window_budget = 0;
  // Recalled items at most. Default: 0 = Config::recall.max_items.
  std::size_t k = 0;
  // Recall long-term memory from the run's enclosing scope and everything nested in it (the
  // user's other runs too); false = from the run alone. A run without an enclosing scope
  // always recalls from itself. Default: true.
  bool recall_enclosing = true;
  // Instructions for the answer model, returned apart from the context. Default: balanced.
  AnswerPolicy policy = AnswerPolicy::kBalanced;
};

// What Erase removed.
struct EraseResult {
  std::size_t scopes = 0;
  std::size_t nodes = 0;
  std::size_t edges = 0;
};

}  // namespace engram

#endif  // ENGRAM_OPTIONS_H_
