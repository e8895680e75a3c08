// ReadResult: what Recall returns (Eywa §4.6). The packed context for the answer model, the
// answer instructions kept apart from it, the ranked items with every route's rank and score and
// their provenance, and diagnostics that say how the result came about.
#ifndef ENGRAM_READ_RESULT_H_
#define ENGRAM_READ_RESULT_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engram/types.h"

namespace engram {

// One route's opinion of an item.
struct RouteScore {
  std::string route;  // "bm25", ...
  std::size_t rank = 0;  // 1-based rank within the route
  double score = 0;      // the route's own score (BM25 score, cosine, ...)
  std::string explanation;  // e.g. "bm25: lisbon(tf 1, idf 1.39) + moved(tf 1, idf 0.98)"
};

// One adjustment applied after fusion (filter, demotion, floor, neighbour bonus, ...): the score
// before it, s, becomes s × factor + bonus.
struct Adjustment {
  std::string name;  // "person", "neighbour", ...
  double factor = 1.0;
  std::string detail;
  double bonus = 0;
};

// Another stored claim that bears on an item's (issue 40): the current claim that superseded
// it, or one that contradicts it.
struct RelatedClaim {
  std::string id;         // the other claim's fact id
  std::string statement;  // that fact as stored ("Iris | lives_in | Munich")
  // What its latest evidence turn says, at most 200 bytes on a character boundary ("..." when
  // cut): the words the answer model reads.
  std::string text;
  // When it became true (the fact's valid_from), else when its evidence turn was said.
  std::optional<Timestamp> time;
  std::vector<std::string> evidence;  // its evidence turn ids, in sequence order
  std::string claim;                  // the item's own claim it bears on, as stored
};

struct RecallItem {
  std::string id;
  NodeKind kind = NodeKind::kTurn;
  std::string scope;
  std::string text;
  Role role = Role::kUser;
  std::string speaker;
  std::string session_id;
  std::int64_t sequence = 0;
  std::optional<Timestamp> event_time;
  std::string metadata_json = "{}";
  NodeStatus status = NodeStatus::kActive;
  double score = 0;  // final score after fusion and adjustments; items are sorted by it
  double fused_score = 0;  // weighted RRF score before adjustments
  std::vector<RouteScore> routes;
  std::vector<Adjustment> adjustments;
  std::vector<std::string> provenance;  // evidence turn ids, in sequence order
  std::size_t tokens = 0;               // tokens this item adds to the context
  // Set when the turn was too long for what was left of the token budget: `text` then holds
  // only bytes [excerpt_begin, excerpt_end) of the turn's full_bytes-byte text, a window of at
  // most [recall] excerpt_bytes around the query terms it matches (read/packing.h).
  bool excerpt = false;
  std::size_t excerpt_begin = 0;
  std::size_t excerpt_end = 0;
  std::size_t full_bytes = 0;
  // Current state (issue 40), in a recall about the present (no valid_at / known_at): set on a
  // turn every claim of which has been superseded, to the current claim that replaced it; the
  // context shows it beside the turn ("(superseded 2024-06-15: I live in Munich now)").
  std::optional<RelatedClaim> superseded_by;
  // Claims that contradict this item's (a `contradicts` edge between their facts), by id; the
  // context shows them beside it.
  std::vector<RelatedClaim> conflicts;
  // The item's ranking features (read/rank_features.h, Diagnostics::feature_names order) when
  // RecallOptions::features asked for them and it was among the [recall] ranker_depth best
  // candidates; empty otherwise. A missing feature is NaN.
  std::vector<double> features;
};

struct StageTiming {
  std::string stage;  // "frame", "route:bm25", "fusion", "filter", "pack"
  double ms = 0;
};

struct RouteDiagnostics {
  std::string route;
  std::size_t candidates = 0;
  double weight = 1.0;
  std::string error;  // empty when the route ran cleanly
};

// A candidate the filters hid (RecallOptions::include_retired, valid_at, known_at).
struct FilteredItem {
  std::string id;
  // "known_at" (ingested after it), "valid_at" (validity does not cover it), "status" (retired,
  // superseded, rejected, pending), "validity" (ended by the query time), "evidence" (none of its
  // evidence turns is shown), "missing" (no longer in the store).
  std::string filter;
  std::string reason;  // e.g. "valid from 2024-06-01T09:00:00Z, after valid_at 2024-04-01T..."
};

// A ranked item the packing left out of the context, and why (read/packing.h).
struct UnpackedItem {
  std::string id;
  std::size_t rank = 0;  // 1-based rank among the ranked items (after the filters)
  // "budget" (did not fit what was left of the token budget), "duplicate" (its evidence was
  // packed already), "floor" (its score was below the value floor of value packing), "k" (the
  // item limit was reached first).
  std::string reason;
};

// The optional LLM loop of recall ([recall] llm_loop, docs/LLM_RECALL.md): what it asked and
// what it cost. `ran` is false (and the rest empty) when the loop is off for the call.
struct LlmDiagnostics {
  bool ran = false;
  std::size_t calls = 0;  // requests sent, failed ones included
  // Token counts as the endpoint reported them, summed over the replies; `usage_missing` counts
  // the replies that reported none.
  std::size_t prompt_tokens = 0;
  std::size_t completion_tokens = 0;
  std::size_t usage_missing = 0;
  double ms = 0;  // time spent waiting for the endpoint
  // What each step did, in order, one line each: "skipped: the read path's verdict is
  // sufficient", "check: insufficient; 2 sub-questions, 3 keywords", "recall 'Where did ...':
  // 2 new items", "rerank: applied to 5 items", "check failed: ..." (failures also in warnings).
  std::vector<std::string> steps;
};

struct Diagnostics {
  std::string frame;  // the query frame, one line: shape, names, time constraints, keywords
  std::string plan;   // the planner's decision: rule used, route weights, budget
  std::vector<RouteDiagnostics> routes;
  std::size_t fused_candidates = 0;
  std::size_t neighbours_added = 0;   // turns only the neighbour expansion brought in
  std::size_t bridged = 0;            // turns only the entity bridge brought in
  // Current state (issue 40): items marked superseded_by, turns added as the current claim that
  // superseded one (no route proposed them), items given conflicts.
  std::size_t superseded = 0;
  std::size_t successors_added = 0;
  std::size_t conflicted = 0;
  // The order's origin: "fusion", or "learned v1 (… trees, sha256:…)" ([recall] ranker).
  std::string ranker;
  // The names of RecallItem::features, when RecallOptions::features asked for them.
  std::vector<std::string> feature_names;
  std::size_t filtered_out = 0;       // hidden by status, validity or scope filters
  std::map<std::string, std::size_t> filtered_by;  // filtered_out per filter name
  std::vector<FilteredItem> filtered;              // each hidden candidate, in rank order
  std::size_t dropped_by_budget = 0;  // ranked items that did not fit the token budget
  // Ranked items not packed because their evidence was packed already (read/packing.h).
  std::size_t deduplicated = 0;
  std::size_t token_budget = 0;
  std::size_t context_tokens = 0;
  std::vector<StageTiming> timings;
  // Chat context mode: whose profile was attached and why, how many profile and foresight lines
  // fit, and the tokens they took of their share; "" in evidence mode.
  std::string chat;
  // Added with issue 22: the ranked items the packing examined and left out, best first, with
  // why. Items ranked below the last one it examined are not listed (they are out by k).
  std::vector<UnpackedItem> unpacked;
  // What this recall could not do, and why: one user-facing sentence each, e.g. "word-vector
  // matches off: word vectors file ... is missing; install it with scripts/fetch-models" (the
  // config asked for them, they are not installed) or "route vector failed and was left out:
  // ..." (RouteDiagnostics::error). The result is still an answer, a degraded one. In a fixed
  // order: word vectors, then synonyms ("synonym matches off: ...", the keyword route ran
  // without the lexicons), then the failed routes in the order they ran; empty when nothing
  // was degraded.
  std::vector<std::string> warnings;
  // The optional LLM loop; its failures are in `warnings` too ("llm check failed: ...").
  LlmDiagnostics llm;
};

// One line of a chat-mode context (RecallOptions::mode): a profile fact or trait, or a valid
// foresight, with the turns it rests on.
struct ChatLine {
  std::string section;  // "profile" | "foresight"
  std::string person;   // the profile's person; a foresight's subject
  std::string text;     // the line as the context shows it
  std::string memory_id;              // the fact (a profile slot, a foresight) or "" (a trait)
  std::vector<std::string> evidence;  // turn ids
  std::size_t tokens = 0;             // CountTokens of the line
};

// Whether the packed context holds what the question asks for (issue 40), judged from what the
// read path knows: the question's words and names, its answer type and the packed items. Not a
// guarantee either way: a hint for the answer model (the strict policy's instructions use it)
// and for the application.
struct Sufficiency {
  // "sufficient" | "partial" | "insufficient".
  std::string verdict = "sufficient";
  // Why, one sentence each: "no packed item mentions Oslo", "the context holds 30% of the
  // question's words by weight (missing: violin, lessons)", ...
  std::vector<std::string> reasons;
  // The idf-weighted share of the question's index terms the packed items hold together, and
  // the most one item holds (1 when the question has no index terms).
  double term_share = 1.0;
  double best_item_share = 1.0;
};

struct ReadResult {
  std::string query;
  std::string context;              // rendered evidence, ready for the answer model
  std::string answer_instructions;  // policy text; never part of `context`
  std::string policy;               // "strict" | "balanced" | "advanced"
  std::vector<RecallItem> items;    // best first
  Diagnostics diagnostics;
  double latency_ms = 0;
  std::string mode = "evidence";  // ContextModeName of RecallOptions::mode
  std::vector<ChatLine> chat;     // chat mode: the lines put before the evidence, in order
  Sufficiency sufficiency;        // whether the context holds what the question asks for
};

// One turn of a run's active window (Engine::Context), with DMF's scores (DMF §5-8).
struct WindowTurn {
  std::string id;
  std::int64_t sequence = 0;
  std::int64_t interaction = 0;  // 1-based position among the run's turns
  Role role = Role::kUser;
  std::string speaker;
  std::string session_id;
  std::optional<Timestamp> event_time;
  std::string text;
  std::size_t tokens = 0;  // what its line adds to the context
  double omega = 0;        // survival score Ω (after the social floor)
  double omega_raw = 0;    // Ω before the social floor
  double omega_eff = 0;    // Ω decayed over the interactions since it (Ω_eff)
  double prune_score = 0;  // S_prune: Ω_eff + retention bonuses − supersession penalty
  std::string tier;        // "healthy" | "unstable" | "critical"
  std::vector<std::string> signals;  // its conversational signals ("constraint", ...)
  bool superseded = false;  // a later turn superseded one of its facts
  std::string reason;  // why it is kept: "within_budget" | "healthy" | "outranks_pruned"
  std::string explanation;  // the numbers behind the reason, one line
};

// What Engine::Context returns: `context` holds the recalled long-term memory, then the run's
// active window in conversation order, in at most token_budget tokens.
struct ContextResult {
  std::string run;    // the run scope
  std::string query;
  std::string context;
  std::string answer_instructions;  // policy text; never part of `context`
  std::string policy;
  std::size_t token_budget = 0;
  std::size_t window_budget = 0;    // what the window could take
  std::size_t context_tokens = 0;   // CountTokens(context) <= token_budget
  std::size_t recalled_tokens = 0;  // of the recalled section
  std::size_t window_tokens = 0;    // of the window section
  // The recall behind the recalled section: its items are what the context shows (turns the
  // window holds are left out), its diagnostics those of the recall. Empty when the budget left
  // no room for recalled memory.
  ReadResult recalled;
  std::string recalled_from;  // the scope recalled from ("" when no recall ran)
  std::vector<WindowTurn> window;  // in conversation order
  // The run: its turns and interactions, the last hard-kill sweep, and what left the window.
  std::size_t run_turns = 0;
  std::int64_t last_sweep = 0;
  std::size_t hard_killed = 0;
  std::size_t pruned = 0;
  std::size_t too_large = 0;
  std::size_t inactive = 0;  // retired or superseded turns
  double latency_ms = 0;
};

// How tokens are counted everywhere in engram: one token per started run of 4 UTF-8 bytes of a
// word, and one per punctuation mark; about what GPT-style tokenizers give for English.
std::size_t CountTokens(std::string_view text);

}  // namespace engram

#endif  // ENGRAM_READ_RESULT_H_
