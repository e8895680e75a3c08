// The graph property test's runner (issue 23): applies ops to an engine over a fresh store and
// checks the graph's invariants, reading the SQLite store directly where the API does not show
// what an invariant needs; and the shrinker that cuts a failing op list down to a short
// reproduction (delta debugging).
//
// Invariants, by the name a failure carries:
//   api-error             an op failed with a status its contract does not allow
//   single-valued-slot    at most one active fact per (scope, single-valued slot) at any time
//   validity-interval     no node's validity ends before it begins
//   validity-tightens     a node's valid_to, once set, never moves later or is cleared
//   supersedes-tightens   the dst of an active supersedes edge is inactive, closed no later than
//                         the edge's time
//   supersedes-acyclic    active supersedes edges form no cycle
//   edge-endpoints        every edge's endpoints exist and lie in related scopes (same, or one
//                         containing the other)
//   evidence              every derived node (signal, fact, ...) has derived_from evidence: an
//                         existing turn of its own scope
//   same-as-classes       accepted same_as classes (from the edges) equal
//                         Engine::EquivalenceClass of every member (symmetric, transitive) and
//                         stay inside one top-level scope
//   erase-leaves-nothing  after Erase no table holds an id, row or scope of what was erased
//   recall-visibility     recall returns only existing memories of the queried scope (or its
//                         nested ones when asked), active unless retired ones were asked for
//   recall-as-of          a recall with valid_at T returns only memories whose validity (as
//                         recorded at known_at, when set) covers T, none rejected or pending
//                         unless retired ones were asked for; with known_at K only memories
//                         ingested by K, active at K unless retired ones were asked for
//   sequence-numbers      per scope, turn sequence numbers are unique and increase with row
//                         order, derived nodes carry their turn's number, and last_sequence
//                         covers them and never decreases
//   index-equals-rebuild  Engine::RebuildIndex finds the live index equal to the rebuilt one
#ifndef ENGRAM_TESTS_PROPERTY_GRAPH_CHECK_H_
#define ENGRAM_TESTS_PROPERTY_GRAPH_CHECK_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engram/clock.h"
#include "engram/engine.h"
#include "graph_ops.h"

namespace engram::property {

struct Violation {
  std::string invariant;  // one of the names above
  std::string detail;
  std::size_t op_index = 0;  // the op after which it was found
};

std::string Describe(const Violation& violation);

struct RunOptions {
  // Check the store-wide invariants after every k-th op (and after the last); 0: only after the
  // last. Op-local checks (api-error, recall-visibility, recall-as-of, erase-leaves-nothing,
  // index-equals-rebuild on rebuild ops) run after every op regardless.
  std::size_t check_every = 1;
  bool stop_at_first = true;  // stop at the first op with a violation
  // Called after each op with its index (progress reports of long runs).
  std::function<void(std::size_t)> progress;
};

struct RunStats {
  std::size_t ops_run = 0;
  std::size_t checks = 0;
  std::map<std::string, std::size_t> op_counts;          // by op name
  std::map<std::string, std::size_t> expected_refusals;  // ops the engine refused by contract
};

struct RunResult {
  RunStats stats;
  std::vector<Violation> violations;
  std::string dump;  // Store::DumpCanonical after the last op
};

// One engine over a store at `store_path` with a hashing embedder and a fixed, stepping clock
// that survives reopens; applies ops and checks invariants.
class GraphRun {
 public:
  explicit GraphRun(std::string store_path);
  ~GraphRun();

  // Applies the op and runs its op-local checks.
  std::vector<Violation> Apply(const Op& op, std::size_t op_index);
  // Every store-wide invariant.
  std::vector<Violation> CheckStore(std::size_t op_index);
  StatusOr<std::string> DumpCanonical();
  RunStats& stats() { return stats_; }

 private:
  struct StoreView;
  void Open();
  StatusOr<StoreView> Load();

  std::string store_path_;
  std::shared_ptr<Clock> clock_;
  std::unique_ptr<Engine> engine_;
  RunStats stats_;
  // What earlier checks saw: valid_to per node id (validity-tightens), last_sequence per scope
  // row (sequence-numbers).
  std::map<std::string, std::optional<std::int64_t>> valid_to_seen_;
  std::map<std::int64_t, std::int64_t> last_sequence_seen_;
};

// Runs the ops on a fresh store in a temporary directory.
RunResult RunOps(const std::vector<Op>& ops, const RunOptions& options);
// The same for `count` ops made one at a time by `op_at(index)` (indexes in order), so a long run
// never holds its whole op list.
RunResult RunOpStream(std::size_t count, const std::function<Op(std::size_t)>& op_at,
                      const RunOptions& options);

// Delta debugging (ddmin) over the op list: a short sublist that still fails with a violation of
// `invariant` when replayed with checks after every op. Stops refining after `max_replays`
// replays and returns the shortest failing list found.
std::vector<Op> Shrink(const std::vector<Op>& ops, const std::string& invariant,
                       std::size_t max_replays = 400);

// The index of the op after which `ops` fails, or nullopt when it does not fail.
using FailingOp = std::function<std::optional<std::size_t>(const std::vector<Op>& ops)>;
// Shrink with any failure test: ddmin over the ops (each step keeps only the failing prefix), then
// single turns out of multi-turn remembers.
std::vector<Op> ShrinkWith(const std::vector<Op>& ops, const FailingOp& failing_op,
                           std::size_t max_replays);

}  // namespace engram::property

#endif  // ENGRAM_TESTS_PROPERTY_GRAPH_CHECK_H_
