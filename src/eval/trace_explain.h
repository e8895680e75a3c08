// trace_explain: `engram bench explain TRACE QUESTION_ID` — one question of a bench trace
// (bench.h, --trace) printed for a person: the question and its gold evidence, the plan, and
// for each gold turn where it was lost:
//   packed           in the context of the user recall (default k and budget);
//   in top k         in the evaluated top-k turns but not packed at the default settings;
//   ranked out       among some route's candidates, not in the evaluated top k;
//   never retrieved  in no route's candidates.
// Then the evaluated ranking with each item's route ranks and scores, the packed context and
// the stage timings.
//
//   RETURN_IF_ERROR(ExplainTraceQuestion("locomo.trace.jsonl", "conv-26:q17", std::cout));
#ifndef ENGRAM_EVAL_TRACE_EXPLAIN_H_
#define ENGRAM_EVAL_TRACE_EXPLAIN_H_

#include <ostream>
#include <string_view>

#include "engram/status.h"
#include "io/api_json.h"

namespace engram::eval {

// Writes the explanation of one parsed trace line. kCorruption when a field has the wrong type.
Status ExplainTraceLine(const io::Json& line, std::ostream& out);

// The trace line of `question_id` in the trace file (plain or .zst). kNotFound when the file or
// the question is missing (the message gives the first ids of the file), kCorruption when a line
// is not a JSON object.
StatusOr<io::Json> FindTraceQuestion(std::string_view trace_path, std::string_view question_id);

// FindTraceQuestion, then ExplainTraceLine.
Status ExplainTraceQuestion(std::string_view trace_path, std::string_view question_id,
                            std::ostream& out);

}  // namespace engram::eval

#endif  // ENGRAM_EVAL_TRACE_EXPLAIN_H_
