// Sufficiency (issue 40): whether the packed context holds what the question asks for, judged
// deterministically from what the read path already knows, so that a recall can say "I don't
// have that" instead of handing over loosely related turns as if they answered.
//
//   insufficient  nothing was packed; or the packed items hold none of the question's index
//                 terms besides the memory's speakers' names; or a name the question gives (not a
//                 speaker of the memory) appears in no packed item; or the question asks about one
//                 of the memory's speakers and the best packed turn was said by someone else (the
//                 memory holds the event, not about the person asked);
//   partial       the packed items together hold less than half of the question's index terms
//                 by idf weight, or no single one holds half (the evidence is thin, spread or
//                 indirect); or the question asks for a time, number, place or person
//                 and no packed item was found to hold one (the answer-type adjustment); or the
//                 best item's claim is contradicted;
//   sufficient    otherwise.
// Each verdict other than sufficient carries its reasons. The thresholds are fixed (one half),
// not fitted: docs/BENCHMARKS.md reports how often each verdict falls on questions with and
// without evidence in the dev files.
#ifndef ENGRAM_READ_SUFFICIENCY_H_
#define ENGRAM_READ_SUFFICIENCY_H_

#include <span>
#include <string>
#include <vector>

#include "engram/read_result.h"
#include "index/bm25/bm25_index.h"
#include "read/query_frame.h"
#include "text/tokenizer.h"

namespace engram::read {

// `packed`: the packed items, best first; `weights`: the question's index terms with their idf
// (index::WeighQueryTerms); `speakers`: the memory's speakers (their names are no missing
// entity); `tokenizer`: the one the terms came from (null: neither the terms' shares nor the
// names are judged, only the empty context, the answer type and contradictions).
Sufficiency JudgeSufficiency(const QueryFrame& frame, std::span<const RecallItem> packed,
                             std::span<const index::Bm25QueryTerm> weights,
                             std::span<const std::string> speakers,
                             const text::Tokenizer* tokenizer);

}  // namespace engram::read

#endif  // ENGRAM_READ_SUFFICIENCY_H_
