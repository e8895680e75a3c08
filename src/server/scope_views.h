// scope_views: derived views of one scope built from the public Engine API — its consolidation
// nodes (episodes, scenes, profiles), its foresight and a filtered page of its timeline — in the
// JSON shapes the CLI prints, so the REST routes, MCP and the CLI agree. Facts and entities have
// their own shared reader, io/scope_records.h.
#ifndef ENGRAM_SERVER_SCOPE_VIEWS_H_
#define ENGRAM_SERVER_SCOPE_VIEWS_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "engram/engine.h"
#include "engram/status.h"
#include "io/api_json.h"

namespace engram::server {

// What Engine::Consolidate did: {"scope", "turns", "episodes", "scenes", "profiles", "written",
// "superseded"}.
io::Json ConsolidateResultView(const Scope& scope, const ConsolidateResult& result);

// The scope's consolidation nodes of `kind` (episode, scene or profile; InvalidArgument for
// another kind): the active ones, or every one with `all`. {"scope", "all", "count", ARRAY}
// with ARRAY "episodes", "scenes" or "people", each entry its node's fields
// (consolidate/consolidator.h; a scene's centroid as its "centroid_dimension") plus "id" and
// "status"; with `known_at`, the nodes stored by then with the status they had then. Shared by
// `engram episodes|scenes|profile --json`, REST and MCP.
StatusOr<io::Json> ConsolidatedView(Engine& engine, const Scope& scope, NodeKind kind, bool all,
                                    std::optional<Timestamp> known_at = std::nullopt);

// "upcoming", "valid" or "expired" at `at` for a memory valid in [valid_from, valid_to).
std::string_view ValidityAt(const Memory& memory, Timestamp at);

// The scope's foresight facts (plans and temporary states) valid at `at` (EverMemOS's foresight
// filtering: at in [valid_from, valid_to)), or every one with `all`:
// {"scope", "at", "all", "count", "foresight": [{id, status, validity, text, subject, predicate,
// object, valid_from, valid_to, turns}]}.
StatusOr<io::Json> ForesightView(Engine& engine, const Scope& scope, Timestamp at, bool all);

// A page of a scope's timeline: its memories in sequence order (the order they were written; for
// turns remembered as they happened, time order) that pass the filters.
struct TimelineFilter {
  // Memories on the page at most. Default: 50.
  std::size_t limit = 50;
  // Only sequence numbers above this (the previous page's next_after). Default: 0.
  std::int64_t after_sequence = 0;
  // Only this kind; nullopt = every kind. Default: turns.
  std::optional<NodeKind> kind = NodeKind::kTurn;
  // Only this speaker (compared without regard to ASCII case). Default: "" = any.
  std::string speaker;
  // Only memories whose event time is at or after `since` / before `until`; a memory without an
  // event time is left out when either is set. Default: unbounded.
  std::optional<Timestamp> since;
  std::optional<Timestamp> until;
  // Memories examined at most, matching or not, so a filter that matches rarely still answers in
  // bounded time (the page then says where to continue). Default: 10000.
  std::size_t max_scanned = 10000;
};

// {"scope", "count", "memories": [Memory], "scanned", "next_after"}: next_after is the sequence
// number to continue after, null when the scope has nothing more. A page is never cut inside one
// sequence number (derived nodes share their turn's).
StatusOr<io::Json> TimelineView(Engine& engine, const Scope& scope, const TimelineFilter& filter);

}  // namespace engram::server

#endif  // ENGRAM_SERVER_SCOPE_VIEWS_H_
