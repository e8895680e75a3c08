// Determinism (DESIGN §1.2): the same input sequence and configuration give byte-identical store
// content and identical recall results, on every store backend (backend_suites.h).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

#include "engram/engine.h"
#include "engram/testing/status_matchers.h"
#include "store/store.h"
#include "backend_suites.h"
#include "test_util.h"

namespace engram {
namespace {

using ::engram::testing::IsOk;

// Everything of a ReadResult except wall-clock measurements.
std::string Describe(const ReadResult& result) {
  std::ostringstream out;
  out << result.context << "\n--\n" << result.answer_instructions << "\n";
  for (const RecallItem& item : result.items) {
    out << item.id << " " << item.score << " " << item.fused_score << " " << item.tokens;
    for (const RouteScore& route : item.routes) {
      out << " [" << route.route << " " << route.rank << " " << route.score << " "
          << route.explanation << "]";
    }
    for (const std::string& id : item.provenance) out << " <" << id << ">";
    out << "\n";
  }
  for (const RouteDiagnostics& route : result.diagnostics.routes) {
    out << route.route << " " << route.candidates << "\n";
  }
  out << result.diagnostics.context_tokens << " " << result.diagnostics.dropped_by_budget;
  return out.str();
}

struct RunOutput {
  std::string dump;
  std::vector<std::string> recalls;
};

RunOutput RunWorkload(const testing::StoreBackend& backend, const testing::TempDir& dir) {
  RunOutput output;
  {
    std::unique_ptr<Engine> engine = testing::OpenOrDie(testing::TestOptions(backend, dir));
    const std::vector<std::string> topics = {"hiking boots", "sourdough starter", "tax forms",
                                             "piano recital", "dentist visit", "garden beds"};
    for (int batch = 0; batch < 5; ++batch) {
      std::vector<Turn> turns;
      for (int turn_idx = 0; turn_idx < 8; ++turn_idx) {
        const std::string& topic = topics[(batch + turn_idx) % topics.size()];
        Turn turn = testing::MakeTurn(turn_idx % 2 ? "Ana" : "Ben",
                                      "We talked about the " + topic + " on day " +
                                          std::to_string(batch * 8 + turn_idx),
                                      "session-" + std::to_string(batch));
        turn.metadata_json = "{\"batch\": " + std::to_string(batch) + "}";
        turns.push_back(turn);
      }
      EXPECT_THAT(engine->Remember(testing::S("user:ana/run:" + std::to_string(batch % 2)), turns),
                  IsOk());
    }
    StatusOr<std::vector<Memory>> listed = engine->List(testing::S("user:ana/run:1"));
    EXPECT_THAT(listed, IsOk());
    EXPECT_THAT(engine->Retire((*listed)[3].id, "test"), IsOk());
    for (const char* query : {"dentist visit", "piano", "garden beds tax", "hiking"}) {
      StatusOr<ReadResult> result = engine->Recall(testing::S("user:ana"), {.text = query});
      EXPECT_THAT(result, IsOk());
      output.recalls.push_back(Describe(*result));
    }
  }
  StatusOr<std::unique_ptr<store::Store>> store =
      store::OpenStore(backend.locate(dir, "engram.db"),
                       {.sqlite = {.create_if_missing = false}, .postgres = {.create_if_missing = false}});
  EXPECT_THAT(store, IsOk());
  StatusOr<std::string> dump = (*store)->DumpCanonical();
  EXPECT_THAT(dump, IsOk());
  output.dump = *dump;
  return output;
}

}  // namespace

TEST_P(DeterminismTest, SameInputGivesIdenticalStoreAndRecall) {
  testing::TempDir second_dir;
  const RunOutput first = RunWorkload(GetParam(), dir_);
  const RunOutput second = RunWorkload(GetParam(), second_dir);
  EXPECT_FALSE(first.dump.empty());
  EXPECT_EQ(first.dump, second.dump);
  EXPECT_EQ(first.recalls, second.recalls);
  EXPECT_NE(first.recalls[0], first.recalls[1]);
}

}  // namespace engram
