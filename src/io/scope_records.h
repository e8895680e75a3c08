// scope_records: a scope's records as every interface shows them — its facts and entities
// (`engram facts` / `engram entities`, REST `/v1/scopes/{scope}/facts` and `/entities`, Python's
// Engine.facts() / entities()) and the pages of its memories (`engram list`, REST `/memories`,
// MCP `list`, Python's Engine.list()) — read through the public API only (Engine::List: a fact's
// or entity's fields live in its metadata; Engine::History: its supersedes / corrects /
// contradicts chains, its mentions and same_as links). One reader and one JSON shape, so the
// interfaces cannot drift apart.
//
//   ASSIGN_OR_RETURN(std::vector<io::FactRecord> facts,
//                    io::LoadFacts(engine, scope, {.valid_at = t}));   // the facts valid at t
//   for (const io::FactRecord& fact : facts) out.push_back(io::FactToJson(fact));
#ifndef ENGRAM_IO_SCOPE_RECORDS_H_
#define ENGRAM_IO_SCOPE_RECORDS_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engram/engine.h"
#include "engram/status.h"
#include "engram/types.h"
#include "io/api_json.h"

namespace engram::io {

struct FactsFilter {
  bool all = false;       // also superseded, contradicted (pending), retired and rejected facts
  bool rejected = false;  // only the candidates the validator rejected
  // As of a time (ListOptions): with valid_at, the facts valid then, superseded since or not;
  // with known_at, the facts engram had recorded by then, with the status and chains recorded
  // then.
  std::optional<Timestamp> valid_at;
  std::optional<Timestamp> known_at;
};

struct FactRecord {
  Memory memory;
  Json fields;  // the fact's metadata (subject, predicate, object, ...); {} when not an object
  std::vector<std::string> supersedes;
  std::vector<std::string> superseded_by;
  std::vector<std::string> corrects;
  std::vector<std::string> corrected_by;
  std::vector<std::string> contradicts;

  std::string Field(const char* name) const;  // a string field of the metadata, or ""
};

struct EntityRecord {
  Memory memory;
  std::string name;  // the metadata's name, else the node's text
  std::string kind;
  std::size_t mentions = 0;          // incoming mentions edges
  std::vector<std::string> same_as;  // the other entity of each same_as edge, either direction
};

// One page of Engine::List that never ends inside a sequence number (a turn and the entities,
// facts and time anchors derived from it share one), so that paging with `next_after` as the next
// ListOptions::after_sequence neither skips nor repeats a memory. The page holds at most
// options.limit memories, except that one sequence number holding more is returned whole;
// options.limit 0 lists everything after options.after_sequence.
struct MemoryPage {
  std::vector<Memory> memories;
  std::optional<std::int64_t> next_after;  // unset when nothing follows this page
};
StatusOr<MemoryPage> ListPage(Engine& engine, const Scope& scope, ListOptions options);

// The facts of exactly `scope` that `filter` selects, in sequence order. Without `all` or
// `rejected`: the current ones (active; with valid_at, every fact valid then that was not
// rejected or left pending).
StatusOr<std::vector<FactRecord>> LoadFacts(Engine& engine, const Scope& scope,
                                            const FactsFilter& filter = {});
// The active entities of exactly `scope`, in sequence order.
StatusOr<std::vector<EntityRecord>> LoadEntities(Engine& engine, const Scope& scope);

// {id, status, sequence, kind, subject, predicate, object, polarity, extractor, uncertain, time,
// text, valid_from, valid_to, provenance, supersedes, superseded_by, corrects, corrected_by,
// contradicts, rejected}
Json FactToJson(const FactRecord& fact);
// {id, name, kind, mentions, same_as, first_seen, provenance}
Json EntityToJson(const EntityRecord& entity);

// The documents `engram facts --json` and the REST route return:
// {"scope", "all", "rejected", "valid_at", "known_at", "count", "facts": [FactToJson...]}
Json FactsDocument(const Scope& scope, const FactsFilter& filter,
                   const std::vector<FactRecord>& facts);
// {"scope", "count", "entities": [EntityToJson...]}
Json EntitiesDocument(const Scope& scope, const std::vector<EntityRecord>& entities);

}  // namespace engram::io

#endif  // ENGRAM_IO_SCOPE_RECORDS_H_
