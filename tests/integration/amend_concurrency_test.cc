// Engine::Amend (a corrected turn supersedes the old one, history kept) and recalls running
// concurrently with each other and with writes (the projections' shared / exclusive locking).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "engram/engine.h"
#include "engram/testing/status_matchers.h"
#include "test_util.h"

namespace engram {
namespace {

using ::engram::testing::IsOk;
using ::engram::testing::StatusIs;
using ::testing::Contains;
using ::testing::Field;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::SizeIs;

class AmendTest : public ::testing::Test {
 protected:
  void SetUp() override {
    EngineOptions options = testing::TestOptions(dir_);
    options.config = Config{};
    options.config->embedder.kind = "none";
    engine_ = testing::OpenOrDie(options);
  }

  std::string RememberOne(const Scope& scope, const Turn& turn) {
    StatusOr<RememberResult> result = engine_->Remember(scope, std::vector<Turn>{turn});
    EXPECT_THAT(result, IsOk());
    return result.ok() ? result->ids.front() : "";
  }

  std::vector<std::string> RecalledTexts(const Scope& scope, const std::string& query) {
    StatusOr<ReadResult> result = engine_->Recall(scope, {.text = query}, {});
    EXPECT_THAT(result, IsOk());
    std::vector<std::string> texts;
    if (result.ok()) {
      for (const RecallItem& item : result->items) texts.push_back(item.text);
    }
    return texts;
  }

  testing::TempDir dir_;
  std::unique_ptr<Engine> engine_;
};

TEST_F(AmendTest, TheAmendedTurnReplacesTheOldOneInRecallAndKeepsItsHistory) {
  const Scope scope = testing::S("user:alice");
  const std::string old_id = RememberOne(
      scope,
      testing::MakeTurn("Alice", "My sister Lena lives in Berlin.", "s1", "2023-05-08T13:56:00Z"));
  Turn replacement;
  replacement.text = "My sister Lena lives in Munich.";
  StatusOr<AmendResult> amended = engine_->Amend(old_id, replacement, "moved");
  ASSERT_THAT(amended, IsOk());
  EXPECT_EQ(amended->superseded_id, old_id);
  EXPECT_EQ(amended->sequence, 2);

  // The new turn keeps the old one's speaker, session and event time.
  StatusOr<Memory> fresh = engine_->Get(amended->id);
  ASSERT_THAT(fresh, IsOk());
  EXPECT_EQ(fresh->text, "My sister Lena lives in Munich.");
  EXPECT_EQ(fresh->speaker, "Alice");
  EXPECT_EQ(fresh->session_id, "s1");
  EXPECT_EQ(fresh->scope, "user:alice");
  ASSERT_TRUE(fresh->event_time.has_value());
  EXPECT_EQ(FormatTimestamp(*fresh->event_time), "2023-05-08T13:56:00Z");

  StatusOr<Memory> old = engine_->Get(old_id);
  ASSERT_THAT(old, IsOk());
  EXPECT_EQ(old->status, NodeStatus::kSuperseded);
  EXPECT_EQ(old->text, "My sister Lena lives in Berlin.");  // evidence is never changed

  const std::vector<std::string> texts = RecalledTexts(scope, "Where does Lena live?");
  EXPECT_THAT(texts, Contains("My sister Lena lives in Munich."));
  EXPECT_THAT(texts, Not(Contains("My sister Lena lives in Berlin.")));

  StatusOr<std::vector<HistoryEvent>> history = engine_->History(old_id);
  ASSERT_THAT(history, IsOk());
  EXPECT_THAT(*history,
              Contains(::testing::AllOf(Field(&HistoryEvent::action, "supersedes (incoming)"),
                                        Field(&HistoryEvent::related_id, amended->id))));
  StatusOr<std::vector<Link>> links = engine_->Links(amended->id);
  ASSERT_THAT(links, IsOk());
  EXPECT_THAT(*links,
              Contains(::testing::AllOf(Field(&Link::type, "supersedes"), Field(&Link::dst, old_id),
                                        Field(&Link::attrs_json, HasSubstr("moved")))));
}

TEST_F(AmendTest, RefusesWhatCannotBeAmendedAndStoresNothing) {
  const Scope scope = testing::S("user:alice");
  const std::string old_id =
      RememberOne(scope, testing::MakeTurn("Alice", "I paid $5 on 2024-01-01 for coffee."));
  Turn replacement;
  replacement.text = "I paid $6 on 2024-01-01 for coffee.";

  Turn empty;
  EXPECT_THAT(engine_->Amend(old_id, empty), StatusIs(StatusCode::kInvalidArgument));
  EXPECT_THAT(engine_->Amend("0123456789abcdef0123456789abcdef", replacement),
              StatusIs(StatusCode::kNotFound));
  EXPECT_THAT(engine_->Amend("not-an-id", replacement), StatusIs(StatusCode::kInvalidArgument));
  EXPECT_THAT(engine_->Amend(old_id, replacement, std::string(2000, 'r')),
              StatusIs(StatusCode::kInvalidArgument));

  // A derived node (a signal of the turn) is not amendable.
  StatusOr<std::vector<Memory>> derived =
      engine_->List(scope, {.limit = 1000, .kind = NodeKind::kSignal});
  ASSERT_THAT(derived, IsOk());
  ASSERT_THAT(*derived, Not(SizeIs(0)));
  EXPECT_THAT(engine_->Amend(derived->front().id, replacement),
              StatusIs(StatusCode::kInvalidArgument));

  StatusOr<std::vector<Memory>> turns = engine_->List(scope, {});
  ASSERT_THAT(turns, IsOk());
  EXPECT_THAT(*turns, SizeIs(1));  // none of the refused calls stored anything

  ASSERT_THAT(engine_->Amend(old_id, replacement), IsOk());
  // The old turn is superseded now: amending it again is refused; so is a retired one.
  EXPECT_THAT(engine_->Amend(old_id, replacement), StatusIs(StatusCode::kFailedPrecondition));
  const std::string other = RememberOne(scope, testing::MakeTurn("Alice", "I like tea."));
  ASSERT_THAT(engine_->Retire(other), IsOk());
  EXPECT_THAT(engine_->Amend(other, replacement), StatusIs(StatusCode::kFailedPrecondition));
}

// Recalls on one scope while other threads recall too and a writer fills another scope: every
// recall succeeds and returns exactly what the same recall returned alone.
TEST_F(AmendTest, ConcurrentRecallsMatchTheSameRecallsRunAlone) {
  const Scope quiet = testing::S("user:alice");
  const Scope busy = testing::S("user:bob");
  std::vector<Turn> turns;
  for (int turn_idx = 0; turn_idx < 40; ++turn_idx) {
    turns.push_back(testing::MakeTurn(turn_idx % 2 == 0 ? "Alice" : "Sam",
                                      "Day " + std::to_string(turn_idx) + ": we talked about " +
                                          (turn_idx % 3 == 0 ? "hiking in the Alps" : "the garden"),
                                      "s" + std::to_string(turn_idx / 10)));
  }
  ASSERT_THAT(engine_->Remember(quiet, turns), IsOk());
  const std::vector<std::string> queries = {"Where did we go hiking?", "What about the garden?",
                                            "What did Sam say on day 7?"};
  std::vector<std::vector<std::string>> alone;
  for (const std::string& query : queries) {
    StatusOr<ReadResult> result = engine_->Recall(quiet, {.text = query}, {});
    ASSERT_THAT(result, IsOk());
    alone.push_back(testing::ItemIds(*result));
  }

  constexpr int kReaders = 4;
  constexpr int kRecallsPerReader = 15;
  std::atomic<int> mismatches = 0;
  std::atomic<int> failures = 0;
  std::vector<std::thread> threads;
  threads.emplace_back([&] {
    for (int batch_idx = 0; batch_idx < 10; ++batch_idx) {
      const std::vector<Turn> batch = {
          testing::MakeTurn("Bob", "Batch " + std::to_string(batch_idx) + " about the garden")};
      if (!engine_->Remember(busy, batch).ok()) ++failures;
    }
  });
  for (int reader_idx = 0; reader_idx < kReaders; ++reader_idx) {
    threads.emplace_back([&, reader_idx] {
      for (int recall_idx = 0; recall_idx < kRecallsPerReader; ++recall_idx) {
        const std::size_t query_idx = (reader_idx + recall_idx) % queries.size();
        StatusOr<ReadResult> result = engine_->Recall(quiet, {.text = queries[query_idx]}, {});
        if (!result.ok()) {
          ++failures;
        } else if (testing::ItemIds(*result) != alone[query_idx]) {
          ++mismatches;
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(mismatches.load(), 0);
  StatusOr<std::vector<Memory>> written = engine_->List(busy, {});
  ASSERT_THAT(written, IsOk());
  EXPECT_THAT(*written, SizeIs(10));
}


// The projections (BM25 indexes and turn layouts) of an engine follow writes made by another
// engine on the same store, and equal a rebuild from the store afterwards.
TEST_F(AmendTest, ProjectionsFollowAnotherWriterAndEqualARebuild) {
  const Scope scope = testing::S("user:alice");
  std::vector<Turn> first = {testing::MakeTurn("Alice", "We planned the garden today.", "s1"),
                             testing::MakeTurn("Sam", "Tomatoes go by the fence?", "s1")};
  ASSERT_THAT(engine_->Remember(scope, first), IsOk());
  ASSERT_THAT(engine_->Recall(scope, {.text = "garden"}, {}), IsOk());  // loads the scope

  EngineOptions options = testing::TestOptions(dir_);
  options.config = Config{};
  options.config->embedder.kind = "none";
  std::unique_ptr<Engine> other = testing::OpenOrDie(options);
  std::vector<Turn> second = {testing::MakeTurn("Sam", "Which seeds did Alice buy?", "s1"),
                              testing::MakeTurn("Alice", "Basil seeds from the market.", "s2"),
                              testing::MakeTurn("Lena", "I will water them.", "s2")};
  ASSERT_THAT(other->Remember(scope, second), IsOk());

  StatusOr<ReadResult> recalled = engine_->Recall(scope, {.text = "Which seeds were bought?"}, {});
  ASSERT_THAT(recalled, IsOk());
  EXPECT_THAT(recalled->items, Contains(Field(&RecallItem::text, "Basil seeds from the market.")));
  StatusOr<RebuildReport> rebuilt = engine_->RebuildIndex();
  ASSERT_THAT(rebuilt, IsOk());
  EXPECT_TRUE(rebuilt->matched_live_index);
  EXPECT_EQ(rebuilt->documents, 5u);
}

}  // namespace
}  // namespace engram
