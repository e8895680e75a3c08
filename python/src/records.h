// records: result types the Python module adds on top of the C++ API — facts and entities (read
// by io/scope_records.h, the reader `engram facts` / `engram entities` and REST use, so their
// to_dict() is what those commands print per fact / entity; python/tests/test_cli_parity.py
// checks it), links, and the recall result with its optional explanation text.
#ifndef ENGRAM_PYTHON_SRC_RECORDS_H_
#define ENGRAM_PYTHON_SRC_RECORDS_H_

#include <string>
#include <vector>

#include "engram/engine.h"
#include "engram/read_result.h"
#include "engram/status.h"
#include "engram/types.h"
#include "io/api_json.h"
#include "io/scope_records.h"

namespace engram::python {

// Facts and entities as every interface reads them (io/scope_records.h).
using io::EntityRecord;
using io::FactRecord;

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
