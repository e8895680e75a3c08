// The golden retrieval case format (tests/retrieval/README.md): a small conversation, questions
// about it and what each recall returns, written so a person can review a change as a diff.
//
//   # Free text: what this case pins and why.
//   config:
//     [recall]
//     ranker = "fusion"
//   scope: user:iris
//   turns:
//     berlin s1 2024-03-10T10:00:00Z Iris: I live in Berlin, I moved here in March.
//     munich s2 2024-06-15T10:00:00Z Iris: Big news: I live in Munich now.
//   query at=2024-07-01T00:00:00Z: Where does Iris live?
//     items: munich berlin[superseded]
//     sufficiency: sufficient
//
// A turn line is `label session time speaker: text` (speaker "-" = none; role assistant when the
// speaker is written `assistant/Name`). A query line takes options before its colon: at=TIME
// (the question's now), valid_at=TIME, k=N, budget=N. `items` lists the returned items in order:
// a turn by its label, another node as kind:label of its first evidence turn, "[superseded]"
// when the item carries superseded_by.
#ifndef ENGRAM_TESTS_RETRIEVAL_GOLDEN_CASE_H_
#define ENGRAM_TESTS_RETRIEVAL_GOLDEN_CASE_H_

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "engram/engine.h"

namespace engram::testing {

struct GoldenTurn {
  std::string label;
  Turn turn;
};

struct GoldenQuery {
  std::string text;
  std::optional<Timestamp> at;
  std::optional<Timestamp> valid_at;
  std::size_t k = 0;
  std::size_t budget = 0;
  // The expected result lines, e.g. "items: a b", "sufficiency: partial", in file order.
  std::vector<std::string> expected;
  std::size_t line = 0;  // of the query line, for messages
};

struct GoldenCase {
  std::vector<std::string> comments;  // leading "#" lines, kept when the file is rewritten
  std::vector<std::string> config;    // TOML lines
  std::string scope;
  std::vector<GoldenTurn> turns;
  std::vector<GoldenQuery> queries;
};

// Parses a case; InvalidArgument naming the line and what is wrong.
StatusOr<GoldenCase> ParseGoldenCase(std::string_view text);

// The case with each query's expected lines replaced by `actual` (one vector per query), in the
// file format.
std::string FormatGoldenCase(const GoldenCase& golden_case,
                             const std::vector<std::vector<std::string>>& actual);

}  // namespace engram::testing

#endif  // ENGRAM_TESTS_RETRIEVAL_GOLDEN_CASE_H_
