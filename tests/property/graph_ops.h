// Operation sequences for the graph property test (issue 23): what one random operation is, the
// seeded generator that draws them, and their readable text form (one op per line, turns indented)
// that a shrunk failure is kept in and replayed from.
//
// Ops never name memories by id (ids depend on everything written before, and shrinking removes
// ops): a retire, amend or proposal carries a `pick`, which selects among the memories present
// when it runs (pick modulo their number), so every subsequence of a sequence is still a sequence.
#ifndef ENGRAM_TESTS_PROPERTY_GRAPH_OPS_H_
#define ENGRAM_TESTS_PROPERTY_GRAPH_OPS_H_

#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "engram/status.h"

namespace engram::property {

enum class OpKind {
  kRemember,   // scope, turns
  kRetire,     // pick: a memory of any scope
  kRetireAll,  // scope
  kErase,      // scope (and its nested scopes)
  kPropose,    // pick, pick2: two memories (entities when there are two), any scopes
  kAccept,     // pick: a pending proposal
  kReject,     // pick: a pending proposal
  kRebuild,    // Engine::RebuildIndex, which also compares the live index with the rebuilt one
  kAmend,      // pick: a turn; turns[0]: the replacement
  kRecall,     // scope, text, include_retired, include_nested
  // As kRecall, as of a time: valid_at (a time) and/or known_at (pick: the ingestion time of a
  // memory present when it runs).
  kRecallAsOf,
  kReopen,     // closes the engine and opens the store again
};

std::string_view OpKindName(OpKind kind);

struct OpTurn {
  std::string event_time;  // ISO-8601 UTC
  std::string role = "user";
  std::string speaker;
  std::string text;
};

struct Op {
  OpKind kind = OpKind::kRebuild;
  std::string scope;
  std::vector<OpTurn> turns;
  std::uint64_t pick = 0;
  std::uint64_t pick2 = 0;
  std::string text;  // recall query
  bool include_retired = false;
  bool include_nested = true;
  std::string valid_at;   // recall_as_of: ISO-8601 UTC, "" = unset
  bool known_at = false;  // recall_as_of: known_at = ingested_at of the picked memory
};

// The scopes ops run in: two nested under user:a, and an unrelated user:b.
const std::vector<std::string>& PropertyScopes();

// Draws ops from a seeded std::mt19937_64: the same seed gives the same sequence on every
// platform (no std:: distributions, whose output is implementation-defined).
class OpGenerator {
 public:
  explicit OpGenerator(std::uint64_t seed) : rng_(seed) {}
  Op Next();

 private:
  std::uint64_t Below(std::uint64_t bound) { return rng_() % bound; }
  const std::string& Choose(const std::vector<std::string>& values) {
    return values[Below(values.size())];
  }
  std::string FactTurnText(const std::string& speaker);
  OpTurn MakeTurn(const std::string& scope, std::string text, bool same_time);

  std::mt19937_64 rng_;
  // Conversation time per scope index, in seconds since the epoch; mostly moves forward.
  std::vector<std::int64_t> conversation_seconds_;
};

// One op per line; a remember or amend is followed by its turns, one per line, indented:
//   remember user:a/run:1
//     turn 2024-03-02T10:00:00Z user Ana: I moved to Porto last March.
//   retire 1234
//   recall user:a retired=0 nested=1: Where do I live?
//   recall_as_of user:a retired=0 nested=1 valid_at=2024-01-09T10:00:00Z known_at=77: Where ...
//   (valid_at=- / known_at=- when unset)
std::string FormatOps(const std::vector<Op>& ops);
// The inverse of FormatOps; '#' lines and blank lines are comments. kInvalidArgument naming the
// line otherwise.
StatusOr<std::vector<Op>> ParseOps(std::string_view text);

}  // namespace engram::property

#endif  // ENGRAM_TESTS_PROPERTY_GRAPH_OPS_H_
