// longmemeval: imports the LongMemEval benchmark's JSON (xiaowu0162/LongMemEval, the -S / -M /
// oracle files) into engram turns, and its questions into structs for the benchmark harness.
//
// Mapping (one question → one scope `world:lme-<question_id>`, holding that question's own
// haystack):
//   - haystack sessions in file order, turns in file order; roles user / assistant from "role";
//   - Turn.session_id = the haystack session id; Turn.event_time = the session's haystack date
//     ("2023/05/20 (Sat) 02:21" → 2023-05-20T02:21:00Z) for every turn of the session;
//   - Turn.metadata_json = {"has_answer":true,"session_id":"...","turn_index":1}; turn_index is
//     the turn's 1-based position in its session; has_answer appears only when the file marks
//     the turn with "has_answer": true;
//   - turns whose content is blank (a few assistant turns are a lone U+200B) are skipped and
//     counted in skipped_blank_turns; the turn_index of the others is unchanged.
// The 31 MB dev file is parsed without building a document for the whole file: each question is
// converted and its JSON dropped as soon as its closing brace is read.
#ifndef ENGRAM_IO_LONGMEMEVAL_H_
#define ENGRAM_IO_LONGMEMEVAL_H_

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "engram/status.h"
#include "engram/types.h"

namespace engram::io {

struct LongMemEvalQuestion {
  std::string question_id;
  std::string question_type;  // e.g. "temporal-reasoning", "knowledge-update"
  std::string question;
  std::string answer;              // numbers in the file become their decimal text ("3")
  std::string question_date_text;  // as in the file: "2023/05/30 (Tue) 23:40"
  Timestamp question_date;         // the "now" at which the question is asked
  std::vector<std::string> answer_session_ids;
  bool abstention = false;  // the question id ends in "_abs"
};

struct LongMemEvalInstance {
  LongMemEvalQuestion question;
  Scope scope;  // world:lme-<question_id>
  std::vector<std::string> haystack_session_ids;
  std::vector<Timestamp> haystack_dates;
  std::vector<Turn> turns;              // every haystack session's turns, in order
  std::size_t answer_turns = 0;         // turns marked has_answer
  std::size_t skipped_blank_turns = 0;  // turns whose content is only white space
};

// The scope a question's haystack is imported into: world:lme-<question_id>.
StatusOr<Scope> LongMemEvalScope(std::string_view question_id);

// "2023/05/20 (Sat) 02:21" → 2023-05-20T02:21:00Z. The weekday is optional and not checked.
StatusOr<Timestamp> ParseLongMemEvalDate(std::string_view text);

// Calls `visit` for each question of the JSON array in file order, converting one question at
// a time. Stops at the first error, from the input ("<source> question 3 (id 0a995998): ...",
// kInvalidArgument) or from `visit` (returned as is).
Status ForEachLongMemEval(std::string_view json_text, std::string_view source_name,
                          const std::function<Status(LongMemEvalInstance&&)>& visit);

// Every question of the JSON text, or the first error.
StatusOr<std::vector<LongMemEvalInstance>> ParseLongMemEval(std::string_view json_text,
                                                            std::string_view source_name);

// Reads `path` (plain, .zst or "-") and parses it with ParseLongMemEval.
StatusOr<std::vector<LongMemEvalInstance>> ReadLongMemEval(std::string_view path);

}  // namespace engram::io

#endif  // ENGRAM_IO_LONGMEMEVAL_H_
