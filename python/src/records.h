// records: result types the Python module adds on top of the C++ API — facts and entities read
// through Engine::List and Engine::History exactly as `engram facts` and `engram entities` read
// them (src/cli/facts_command.cc, entities_command.cc), and the recall result with its optional
// explanation text.
//
// FactToJson / EntityToJson give the object those commands print per fact / entity;
// python/tests/test_cli_parity.py compares the two so the shapes cannot drift apart silently.
#ifndef ENGRAM_PYTHON_SRC_RECORDS_H_
#define ENGRAM_PYTHON_SRC_RECORDS_H_

#include <string>
#include <vector>

#include "engram/engine.h"
#include "engram/read_result.h"
#include "engram/status.h"
#include "engram/types.h"
#include "io/api_json.h"

namespace engram::python {

struct FactRecord {
  Memory memory;
  io::Json fields;  // the fact's metadata (subject, predicate, object, ...)
  std::vector<std::string> supersedes;
  std::vector<std::string> superseded_by;
  std::vector<std::string> corrects;
  std::vector<std::string> corrected_by;
  std::vector<std::string> contradicts;

  std::string Field(const char* name) const;  // a string field of the metadata, or ""
};

struct EntityRecord {
  Memory memory;
  std::string name;
  std::string kind;
  std::size_t mentions = 0;
  std::vector<std::string> same_as;  // the other entity of each same_as edge, either direction
};

// Facts of exactly `scope`: active ones; `all` adds every status; `rejected` keeps only
// rejected ones.
StatusOr<std::vector<FactRecord>> LoadFacts(Engine& engine, const Scope& scope, bool all,
                                            bool rejected);
// Active entities of exactly `scope`.
StatusOr<std::vector<EntityRecord>> LoadEntities(Engine& engine, const Scope& scope);

io::Json FactToJson(const FactRecord& fact);
io::Json EntityToJson(const EntityRecord& entity);
// {"id", "type", "src", "dst", "status", "attrs"}: the edge with its attributes as an object.
io::Json LinkToJson(const Link& link);

// A recall result and whether the caller asked for its explanation.
struct ReadResultView {
  ReadResult result;
  bool explain = false;
};

// One line per route ("bm25 rank 1 score 2.31: ...") then per adjustment.
std::string ExplainItem(const RecallItem& item);
// The query frame, plan, routes and fusion summary (what `engram recall --explain` prints before
// the items); "" unless the view was made with explain.
std::string ExplainResult(const ReadResultView& view);

}  // namespace engram::python

#endif  // ENGRAM_PYTHON_SRC_RECORDS_H_
