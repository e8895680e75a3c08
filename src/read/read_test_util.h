// Helpers shared by the read path's unit tests (one test file per module): a timestamp parser,
// the query frame of a question, a hand-built two-session conversation with its BM25 index and
// layout, a frame of bare terms and a fused candidate.
#ifndef ENGRAM_READ_READ_TEST_UTIL_H_
#define ENGRAM_READ_READ_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "engram/config.h"
#include "index/bm25/bm25_index.h"
#include "read/adjust.h"
#include "read/query_frame.h"
#include "read/route.h"
#include "read/turn_layout.h"

namespace engram::read::testing {

inline Timestamp At(std::string_view iso) {
  StatusOr<Timestamp> parsed = ParseTimestamp(iso);
  EXPECT_TRUE(parsed.ok()) << iso;
  return parsed.ok() ? *parsed : Timestamp{};
}

inline QueryFrame Frame(std::string_view question, std::string_view now = "2024-05-10T12:00:00Z") {
  static const text::Tokenizer tokenizer;
  return BuildQueryFrame(tokenizer, question, At(now));
}

// Two sessions: s1 = rows 1-5 (2023-05-08), s2 = rows 6-9 (2023-06-10).
struct Conversation {
  Conversation() {
    const std::array<std::vector<std::string>, 9> docs = {{{"hello"},
                                                           {"guitar"},
                                                           {"weather"},
                                                           {"lesson"},
                                                           {"bye"},
                                                           {"guitar", "lesson"},
                                                           {"x"},
                                                           {"y"},
                                                           {"z"}}};
    std::vector<LayoutTurn> turns;
    for (std::size_t i = 0; i < docs.size(); ++i) {
      const auto row = static_cast<std::int64_t>(i + 1);
      index.Add(static_cast<std::uint64_t>(row), docs[i]);
      LayoutTurn turn;
      turn.row = row;
      turn.scope_id = 1;
      turn.sequence = row;
      turn.session_id = row <= 5 ? "s1" : "s2";
      turn.speaker = row % 2 == 1 ? "Caroline" : "Melanie";
      turn.event_time = At(row <= 5 ? "2023-05-08T10:00:00Z" : "2023-06-10T10:00:00Z");
      turn.length = static_cast<std::uint32_t>(docs[i].size());
      turns.push_back(turn);
    }
    layout = TurnLayout::FromTurns(std::move(turns));
    indexes = {&index};
  }

  std::vector<std::int64_t> Rows(const Route& route, QueryFrame frame) const {
    RouteContext context;
    context.frame = &frame;
    context.config = &config;
    context.text_indexes = indexes;
    context.layout = &layout;
    context.limit = 100;
    StatusOr<std::vector<RouteCandidate>> candidates = route.Run(context);
    EXPECT_TRUE(candidates.ok());
    std::vector<std::int64_t> rows;
    if (candidates.ok()) {
      for (const RouteCandidate& candidate : *candidates) rows.push_back(candidate.row);
    }
    return rows;
  }

  index::Bm25Index index;
  std::vector<const index::Bm25Index*> indexes;
  TurnLayout layout;
  Config config;
};

inline QueryFrame Terms(std::vector<std::string> terms) {
  QueryFrame frame;
  frame.terms = std::move(terms);
  return frame;
}

inline Ranked Candidate(std::int64_t row, double score) {
  Ranked ranked;
  ranked.fused.row = row;
  ranked.fused.fused_score = score;
  ranked.score = score;
  return ranked;
}

}  // namespace engram::read::testing

#endif  // ENGRAM_READ_READ_TEST_UTIL_H_
