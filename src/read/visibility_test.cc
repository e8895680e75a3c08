// Tests of the recall's visibility filters (visibility.h): today's status and validity filters,
// and the as-of filters valid_at and known_at over a store whose journal records when each
// memory arrived and changed.
#include "read/visibility.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "core/ids.h"
#include "engram/testing/status_matchers.h"
#include "engram/testing/temp_dir.h"
#include "read/read_test_util.h"

namespace engram::read {
namespace {

using ::engram::testing::IsOk;
using ::testing::HasSubstr;
using testing::At;

class VisibilityTest : public ::testing::Test {
 protected:
  void SetUp() override {
    StatusOr<std::unique_ptr<store::Store>> opened =
        store::OpenSqliteStore(dir_.File("engram.db"));
    ASSERT_THAT(opened.status(), IsOk());
    store_ = std::move(opened).value();
    StatusOr<std::unique_ptr<store::Transaction>> txn = store_->BeginWrite();
    ASSERT_THAT(txn.status(), IsOk());
    StatusOr<store::ScopeRecord> scope = (*txn)->CreateScope(
        "user:mia", core::NodeId("scope", "user:mia", "", 0), 0, At("2024-01-01T00:00:00Z"));
    ASSERT_THAT(scope.status(), IsOk());
    scope_ = *scope;
    ASSERT_THAT((*txn)->Commit(), IsOk());
  }

  // Inserts a fact valid from `valid_from`, ingested at `ingested`, in its own transaction.
  store::NodeRecord Insert(const std::string& text, std::string_view valid_from,
                           std::string_view ingested,
                           NodeStatus status = NodeStatus::kActive) {
    store::NodeRecord node;
    node.kind = NodeKind::kFact;
    node.scope_id = scope_.scope_id;
    node.content_json = "{\"text\":\"" + text + "\"}";
    node.id = core::NodeId("fact", node.content_json, scope_.node_id, 0);
    node.text = text;
    node.sequence = ++sequence_;
    node.status = status;
    node.valid_from = At(valid_from);
    node.ingested_at = At(ingested);
    node.updated_at = node.ingested_at;
    StatusOr<std::unique_ptr<store::Transaction>> txn = store_->BeginWrite();
    EXPECT_THAT(txn.status(), IsOk());
    EXPECT_THAT((*txn)->InsertNode(node).status(), IsOk());
    EXPECT_THAT((*txn)->Commit(), IsOk());
    return Reload(node.id);
  }

  // Changes the node's status and validity end at `at` (the transaction time).
  store::NodeRecord Update(const store::NodeRecord& node, NodeStatus status,
                           std::string_view valid_to, std::string_view at) {
    StatusOr<std::unique_ptr<store::Transaction>> txn = store_->BeginWrite();
    EXPECT_THAT(txn.status(), IsOk());
    EXPECT_THAT((*txn)->UpdateNodeState(node.id, status, At(valid_to), At(at), "test"), IsOk());
    EXPECT_THAT((*txn)->Commit(), IsOk());
    return Reload(node.id);
  }

  store::NodeRecord Reload(const std::string& id) {
    StatusOr<store::NodeRecord> node = store_->GetNode(id);
    EXPECT_THAT(node.status(), IsOk());
    return node.ok() ? *node : store::NodeRecord{};
  }

  Verdict Check(const RecallOptions& options, const store::NodeRecord& node,
                std::string_view query_time = "2024-09-01T00:00:00Z") {
    const Visibility visibility(store_.get(), options, At(query_time));
    StatusOr<Verdict> verdict = visibility.Check(ViewOf(node));
    EXPECT_THAT(verdict.status(), IsOk());
    return verdict.ok() ? *verdict : Verdict{};
  }

  engram::testing::TempDir dir_{"engram_visibility_test"};
  std::unique_ptr<store::Store> store_;
  store::ScopeRecord scope_;
  std::int64_t sequence_ = 0;
};

// Berlin from March, ingested in March; superseded by Munich from June, ingested in June.
TEST_F(VisibilityTest, TodayHidesTheSupersededFactWithItsStatus) {
  store::NodeRecord berlin = Insert("lives in Berlin", "2024-03-10T00:00:00Z", "2024-03-10T09:00:00Z");
  berlin = Update(berlin, NodeStatus::kSuperseded, "2024-06-15T00:00:00Z", "2024-06-15T09:00:00Z");
  const Verdict verdict = Check({}, berlin);
  EXPECT_EQ(verdict.filter, kFilterStatus);
  EXPECT_EQ(verdict.reason, "status superseded");
  // include_retired shows it.
  EXPECT_TRUE(Check({.include_retired = true}, berlin).shown());
}

TEST_F(VisibilityTest, TodayHidesAnActiveMemoryWhoseValidityEndedByTheQueryTime) {
  store::NodeRecord plan = Insert("visits Rome", "2024-03-10T00:00:00Z", "2024-03-10T09:00:00Z");
  plan = Update(plan, NodeStatus::kActive, "2024-04-01T00:00:00Z", "2024-03-11T09:00:00Z");
  const Verdict verdict = Check({}, plan, "2024-05-01T00:00:00Z");
  EXPECT_EQ(verdict.filter, kFilterValidity);
  EXPECT_THAT(verdict.reason, HasSubstr("valid until 2024-04-01T00:00:00Z"));
  EXPECT_TRUE(Check({}, plan, "2024-03-20T00:00:00Z").shown());
}

TEST_F(VisibilityTest, ValidAtShowsWhatWasTrueThenSupersededIncluded) {
  store::NodeRecord berlin = Insert("lives in Berlin", "2024-03-10T00:00:00Z", "2024-03-10T09:00:00Z");
  berlin = Update(berlin, NodeStatus::kSuperseded, "2024-06-15T00:00:00Z", "2024-06-15T09:00:00Z");
  const store::NodeRecord munich =
      Insert("lives in Munich", "2024-06-15T00:00:00Z", "2024-06-15T09:00:00Z");

  const RecallOptions april{.valid_at = At("2024-04-01T00:00:00Z")};
  const Verdict berlin_april = Check(april, berlin);
  EXPECT_TRUE(berlin_april.shown()) << berlin_april.reason;
  EXPECT_EQ(berlin_april.status, NodeStatus::kSuperseded);  // marked, not hidden
  const Verdict munich_april = Check(april, munich);
  EXPECT_EQ(munich_april.filter, kFilterValidAt);
  EXPECT_EQ(munich_april.reason,
            "valid from 2024-06-15T00:00:00Z, after valid_at 2024-04-01T00:00:00Z");

  const RecallOptions july{.valid_at = At("2024-07-01T00:00:00Z")};
  EXPECT_TRUE(Check(july, munich).shown());
  const Verdict berlin_july = Check(july, berlin);
  EXPECT_EQ(berlin_july.filter, kFilterValidAt);
  EXPECT_THAT(berlin_july.reason, HasSubstr("valid until 2024-06-15T00:00:00Z, not after valid_at"));
  // The end is exclusive: at the very instant Munich begins, Berlin no longer holds.
  EXPECT_EQ(Check({.valid_at = At("2024-06-15T00:00:00Z")}, berlin).filter, kFilterValidAt);
  EXPECT_TRUE(Check({.valid_at = At("2024-06-15T00:00:00Z")}, munich).shown());
}

TEST_F(VisibilityTest, ValidAtStillHidesRejectedFactsUnlessRetiredAreAsked) {
  const store::NodeRecord rejected = Insert("lives in Paris", "2024-03-10T00:00:00Z",
                                            "2024-03-10T09:00:00Z", NodeStatus::kRejected);
  const RecallOptions april{.valid_at = At("2024-04-01T00:00:00Z")};
  EXPECT_EQ(Check(april, rejected).filter, kFilterStatus);
  RecallOptions with_retired = april;
  with_retired.include_retired = true;
  EXPECT_TRUE(Check(with_retired, rejected).shown());
}

TEST_F(VisibilityTest, KnownAtHidesWhatArrivedLaterAndUndoesLaterChanges) {
  store::NodeRecord berlin = Insert("lives in Berlin", "2024-03-10T00:00:00Z", "2024-03-10T09:00:00Z");
  berlin = Update(berlin, NodeStatus::kSuperseded, "2024-06-15T00:00:00Z", "2024-06-15T09:00:00Z");
  const store::NodeRecord munich =
      Insert("lives in Munich", "2024-06-15T00:00:00Z", "2024-06-15T09:00:00Z");

  const RecallOptions may{.known_at = At("2024-05-01T00:00:00Z")};
  const Verdict munich_may = Check(may, munich);
  EXPECT_EQ(munich_may.filter, kFilterKnownAt);
  EXPECT_EQ(munich_may.reason,
            "ingested 2024-06-15T09:00:00Z, after known_at 2024-05-01T00:00:00Z");
  // In May engram had Berlin as the active, open fact: its later supersession is undone.
  const Verdict berlin_may = Check(may, berlin);
  EXPECT_TRUE(berlin_may.shown()) << berlin_may.reason;
  EXPECT_EQ(berlin_may.status, NodeStatus::kActive);
  EXPECT_FALSE(berlin_may.valid_to.has_value());

  // Known at July: the supersession had been recorded.
  const Verdict berlin_july = Check({.known_at = At("2024-07-01T00:00:00Z")}, berlin);
  EXPECT_EQ(berlin_july.filter, kFilterStatus);
  EXPECT_THAT(berlin_july.reason, HasSubstr("as recorded at known_at 2024-07-01T00:00:00Z"));
  // Ingested exactly at known_at counts as known.
  EXPECT_TRUE(Check({.known_at = At("2024-06-15T09:00:00Z")}, munich).shown());
}

TEST_F(VisibilityTest, KnownAtReplaysEveryChangeUpToTheTime) {
  store::NodeRecord fact = Insert("works at Acme", "2024-01-01T00:00:00Z", "2024-01-02T00:00:00Z");
  fact = Update(fact, NodeStatus::kActive, "2024-12-01T00:00:00Z", "2024-02-01T00:00:00Z");
  fact = Update(fact, NodeStatus::kRetired, "2024-03-01T00:00:00Z", "2024-03-01T00:00:00Z");
  const Visibility visibility(store_.get(), {.known_at = At("2024-02-15T00:00:00Z")},
                              At("2024-02-15T00:00:00Z"));
  StatusOr<std::optional<store::RecordedState>> recorded = visibility.Recorded(ViewOf(fact));
  ASSERT_THAT(recorded.status(), IsOk());
  ASSERT_TRUE(recorded->has_value());
  EXPECT_EQ((*recorded)->status, NodeStatus::kActive);
  EXPECT_EQ((*recorded)->valid_to, At("2024-12-01T00:00:00Z"));
}

TEST_F(VisibilityTest, BothOptionsCombine) {
  store::NodeRecord berlin = Insert("lives in Berlin", "2024-03-10T00:00:00Z", "2024-03-10T09:00:00Z");
  berlin = Update(berlin, NodeStatus::kSuperseded, "2024-06-15T00:00:00Z", "2024-06-15T09:00:00Z");
  // Valid in August as known in May: engram then believed Berlin still held.
  const RecallOptions options{.valid_at = At("2024-08-01T00:00:00Z"),
                              .known_at = At("2024-05-01T00:00:00Z")};
  const Verdict verdict = Check(options, berlin);
  EXPECT_TRUE(verdict.shown()) << verdict.reason;
  // Known now, the same time is past its end.
  EXPECT_EQ(Check({.valid_at = At("2024-08-01T00:00:00Z")}, berlin).filter, kFilterValidAt);
}

}  // namespace
}  // namespace engram::read
