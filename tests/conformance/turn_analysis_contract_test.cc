// The turn analysis rows (store.h TurnAnalysisRecord, schema v5) on every backend, and the
// conversion of a version 4 store's signal nodes into them (store/turn_analysis.h), which each
// backend's own test file runs after taking a store back to version 4 with its SQL.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/ids.h"
#include "engram/testing/status_matchers.h"
#include "store/audit.h"
#include "store/turn_analysis.h"
#include "tests/conformance/store_contract_test.h"
#include "write/edge_registry.h"

namespace engram::store::conformance {

using ::engram::testing::IsOk;
using ::engram::testing::IsOkAndHolds;
using ::engram::testing::StatusIs;
using ::testing::AnyOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::SizeIs;

namespace {

Timestamp At(std::int64_t seconds) { return Timestamp::FromSeconds(seconds); }

// `text`'s bytes as hex digits, as DumpCanonical writes a bytes column.
std::string Hex(std::string_view text) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex;
  for (const char c : text) {
    hex += kDigits[static_cast<unsigned char>(c) >> 4];
    hex += kDigits[static_cast<unsigned char>(c) & 0xf];
  }
  return hex;
}

TurnAnalysisRecord Row(std::int64_t turn_row, std::string json) {
  return {.turn_row = turn_row, .format = kTurnAnalysisJsonFormat, .bytes = std::move(json)};
}

}  // namespace

TEST_P(StoreContractTest, TurnAnalysisRowsRoundTripAndAreReplaced) {
  const ScopeRecord alice = MakeScope("user:alice");
  const NodeRecord first = AddTurn(alice.scope_id, "first", At(1));
  const NodeRecord second = AddTurn(alice.scope_id, "second", At(2));
  {
    StatusOr<std::unique_ptr<Transaction>> txn = store_->BeginWrite();
    ASSERT_THAT(txn, IsOk());
    ASSERT_THAT((*txn)->PutTurnAnalysis(Row(first.row, R"({"signals":[]})")), IsOk());
    ASSERT_THAT((*txn)->PutTurnAnalysis(Row(second.row, R"({"signals":[{"kind":"x"}]})")), IsOk());
    // The transaction sees its own rows; the store does not yet.
    const std::int64_t rows[] = {second.row};
    EXPECT_THAT((*txn)->GetTurnAnalyses(rows), IsOkAndHolds(SizeIs(1)));
    EXPECT_THAT(store_->GetTurnAnalyses(rows), IsOkAndHolds(IsEmpty()));
    // Replaced, not added.
    ASSERT_THAT((*txn)->PutTurnAnalysis(Row(first.row, R"({"signals":[{"kind":"y"}]})")), IsOk());
    ASSERT_THAT((*txn)->Commit(), IsOk());
  }
  // In the order asked, rows without one skipped.
  const std::int64_t rows[] = {second.row, second.row + 1000, first.row};
  StatusOr<std::vector<TurnAnalysisRecord>> got = store_->GetTurnAnalyses(rows);
  ASSERT_THAT(got, IsOk());
  ASSERT_THAT(*got, SizeIs(2));
  EXPECT_EQ((*got)[0].turn_row, second.row);
  EXPECT_EQ((*got)[0].bytes, R"({"signals":[{"kind":"x"}]})");
  EXPECT_EQ((*got)[0].format, kTurnAnalysisJsonFormat);
  EXPECT_EQ((*got)[1].turn_row, first.row);
  EXPECT_EQ((*got)[1].bytes, R"({"signals":[{"kind":"y"}]})");
  // Not journalled: the turns' insertions are the scope's only node entries.
  EXPECT_THAT(store_->JournalFor(first.id), IsOkAndHolds(SizeIs(1)));
  Reopen();
  EXPECT_THAT(store_->GetTurnAnalyses(rows), IsOkAndHolds(SizeIs(2)));
}

TEST_P(StoreContractTest, TurnAnalysisIsRefusedForANonTurnABadFormatOrNonObjectJson) {
  const ScopeRecord alice = MakeScope("user:alice");
  const NodeRecord turn = AddTurn(alice.scope_id, "hello", At(1));
  StatusOr<std::unique_ptr<Transaction>> txn = store_->BeginWrite();
  ASSERT_THAT(txn, IsOk());
  StatusOr<std::optional<ScopeRecord>> scope = (*txn)->FindScope("user:alice");
  ASSERT_THAT(scope, IsOk());
  StatusOr<NodeRecord> scope_node = (*txn)->GetNode(alice.node_id);
  ASSERT_THAT(scope_node, IsOk());
  EXPECT_THAT((*txn)->PutTurnAnalysis(Row(scope_node->row, "{}")),
              StatusIs(StatusCode::kNotFound, HasSubstr("is not a turn")));
  EXPECT_THAT((*txn)->PutTurnAnalysis(Row(turn.row + 1000, "{}")),
              StatusIs(StatusCode::kNotFound));
  EXPECT_THAT((*txn)->PutTurnAnalysis({.turn_row = turn.row, .format = 0, .bytes = "{}"}),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("format 0")));
  for (const char* bad : {"[]", "", "{\"a\":", "3"}) {
    EXPECT_THAT((*txn)->PutTurnAnalysis(Row(turn.row, bad)),
                StatusIs(StatusCode::kInvalidArgument, HasSubstr("not a JSON object")))
        << bad;
  }
  ASSERT_THAT((*txn)->Commit(), IsOk());
  const std::int64_t rows[] = {turn.row};
  EXPECT_THAT(store_->GetTurnAnalyses(rows), IsOkAndHolds(IsEmpty()));
}

TEST_P(StoreContractTest, EraseScopesErasesTheTurnsAnalysisRows) {
  const ScopeRecord alice = MakeScope("user:alice");
  const ScopeRecord bob = MakeScope("user:bob");
  const NodeRecord secret = AddTurn(alice.scope_id, "hello", At(1));
  const NodeRecord kept = AddTurn(bob.scope_id, "hello", At(2));
  {
    StatusOr<std::unique_ptr<Transaction>> txn = store_->BeginWrite();
    ASSERT_THAT(txn, IsOk());
    ASSERT_THAT((*txn)->PutTurnAnalysis(Row(secret.row, R"({"marker":"analysissecret"})")), IsOk());
    ASSERT_THAT((*txn)->PutTurnAnalysis(Row(kept.row, R"({"marker":"analysiskept"})")), IsOk());
    ASSERT_THAT((*txn)->Commit(), IsOk());
  }
  const std::int64_t erase[] = {alice.scope_id};
  ASSERT_THAT(store_->EraseScopes(erase), IsOk());
  const std::int64_t rows[] = {secret.row, kept.row};
  StatusOr<std::vector<TurnAnalysisRecord>> left = store_->GetTurnAnalyses(rows);
  ASSERT_THAT(left, IsOk());
  ASSERT_THAT(*left, SizeIs(1));
  EXPECT_EQ((*left)[0].turn_row, kept.row);
  StatusOr<std::string> dump = store_->DumpCanonical();
  ASSERT_THAT(dump, IsOk());
  // The row as text (SQLite keeps JSON rows as text) or as bytes (PostgreSQL's bytea column).
  EXPECT_THAT(*dump, Not(HasSubstr("analysissecret")));
  EXPECT_THAT(*dump, Not(HasSubstr(Hex("analysissecret"))));
  EXPECT_THAT(*dump, AnyOf(HasSubstr("analysiskept"), HasSubstr(Hex("analysiskept"))));
}

// A format-2 row is bytes (NUL and bytes above 0x7f included): stored and read back as given;
// bytes that are not a complete format-2 row are refused and leave nothing behind.
TEST_P(StoreContractTest, ACompactTurnAnalysisRowKeepsItsBytesAndABrokenOneIsRefused) {
  const ScopeRecord alice = MakeScope("user:alice");
  const std::string text = "I met Caroline on 8 May 2023, it was great";
  const NodeRecord turn = AddTurn(alice.scope_id, text, At(1));
  const NodeRecord other = AddTurn(alice.scope_id, "hello", At(2));
  const std::string json_row =
      R"({"content":{"divergence":0.0,"entity_count":1,"entity_norm":0.25,)"
      R"("information_density":0.5,"sentiment":0.6249,"sentiment_compound":0.6249,"tokens":10},)"
      R"("signals":[{"begin":6,"end":14,"kind":"person","value":"Caroline"},)"
      R"({"begin":18,"end":28,"kind":"date","topic":"day","value":"2023-05-08/2023-05-09"}]})";
  const TurnAnalysisRecord compact = TurnAnalysisRow(turn.row, json_row, text);
  ASSERT_EQ(compact.format, kTurnAnalysisCompactFormat);
  ASSERT_NE(compact.bytes.find('\0'), std::string::npos);  // bytes a text column could not hold
  {
    StatusOr<std::unique_ptr<Transaction>> txn = store_->BeginWrite();
    ASSERT_THAT(txn, IsOk());
    ASSERT_THAT((*txn)->PutTurnAnalysis(compact), IsOk());
    const std::string truncated = compact.bytes.substr(0, compact.bytes.size() - 3);
    EXPECT_THAT(
        (*txn)->PutTurnAnalysis(
            {.turn_row = other.row, .format = kTurnAnalysisCompactFormat, .bytes = truncated}),
        StatusIs(StatusCode::kInvalidArgument, HasSubstr("not a format-2 row")));
    EXPECT_THAT(
        (*txn)->PutTurnAnalysis(
            {.turn_row = other.row, .format = kTurnAnalysisCompactFormat, .bytes = json_row}),
        StatusIs(StatusCode::kInvalidArgument, HasSubstr("not a format-2 row")));
    ASSERT_THAT((*txn)->Commit(), IsOk());
  }
  Reopen();
  const std::int64_t rows[] = {turn.row, other.row};
  StatusOr<std::vector<TurnAnalysisRecord>> got = store_->GetTurnAnalyses(rows);
  ASSERT_THAT(got, IsOk());
  ASSERT_THAT(*got, SizeIs(1));
  EXPECT_EQ((*got)[0].format, kTurnAnalysisCompactFormat);
  EXPECT_EQ((*got)[0].bytes, compact.bytes);
  EXPECT_THAT(TurnAnalysisJson((*got)[0], text), IsOkAndHolds(json_row));
}

// ----- The version 4 -> 5 conversion -------------------------------------------------------------

Version4Signals WriteVersion4Signals(Store& store) {
  using nlohmann::json;
  Version4Signals written;
  const auto registry = write::EdgeRegistry::WithBuiltins();
  StatusOr<std::unique_ptr<Transaction>> txn = store.BeginWrite();
  EXPECT_THAT(txn, IsOk());
  if (!txn.ok()) return written;
  const std::string path = "user:v4";
  StatusOr<ScopeRecord> scope =
      (*txn)->CreateScope(path, core::ScopeNodeId(path), 0, At(1));
  EXPECT_THAT(scope, IsOk());
  written.scope = *scope;
  const Timestamp at = *ParseTimestamp("2024-05-10T12:00:00Z");
  NodeRecord turn;
  turn.kind = NodeKind::kTurn;
  turn.scope_id = scope->scope_id;
  turn.text = "I paid $5 yesterday.";
  turn.content_json = json{{"text", turn.text}}.dump();
  turn.id = core::NodeId("turn", turn.content_json, scope->node_id, at.micros);
  turn.sequence = *(*txn)->NextSequence(scope->scope_id);
  turn.event_time = at;
  turn.valid_from = at;
  turn.ingested_at = at;
  turn.updated_at = at;
  StatusOr<std::int64_t> turn_row = (*txn)->InsertNode(turn);
  EXPECT_THAT(turn_row, IsOk());
  written.turn_id = turn.id;
  written.turn_row = *turn_row;
  // What the analysis stage of schema 4 wrote: a node per signal, derived_from the turn.
  const json contents[] = {
      {{"turn", turn.id}, {"kind", "money"}, {"surface", "$5"}, {"begin", 7}, {"end", 9},
       {"value", "5 USD"}},
      {{"turn", turn.id}, {"kind", "date"}, {"surface", "yesterday"}, {"begin", 10},
       {"end", 19}, {"value", "2024-05-09/2024-05-10"}, {"topic", "day"},
       {"from", "2024-05-09"}, {"to", "2024-05-10"}, {"granularity", "day"}},
      {{"turn", turn.id}, {"kind", "content"}, {"information_density", 0.5},
       {"sentiment", 0.0}, {"sentiment_compound", 0.0}, {"entity_count", 0},
       {"entity_norm", 0.0}, {"divergence", 0.0}, {"tokens", 5}},
  };
  std::vector<std::string> ids;
  for (const json& content : contents) {
    NodeRecord signal = turn;
    signal.kind = NodeKind::kSignal;
    signal.content_json = content.dump();
    signal.metadata_json = signal.content_json;
    signal.text = content.value("surface", "content");
    signal.id = core::NodeId("signal", signal.content_json, scope->node_id, at.micros);
    EXPECT_THAT((*txn)->InsertNode(signal), IsOk());
    EXPECT_THAT(registry->Apply(**txn, {.type = "derived_from", .src = signal.id,
                                        .dst = turn.id, .now = at}),
                IsOk());
    ids.push_back(signal.id);
  }
  StatusOr<EdgeRecord> at_time = registry->Apply(
      **txn, {.type = "at_time", .src = turn.id, .dst = ids[1],
              .attrs_json = R"({"surface":"yesterday"})", .now = at});
  EXPECT_THAT(at_time, IsOk());
  written.money_id = ids[0];
  written.date_id = ids[1];
  written.content_id = ids[2];
  written.at_time_id = at_time->id;
  EXPECT_THAT((*txn)->Commit(), IsOk());
  return written;
}

void ExpectMigratedToVersion5(Store& store, const Version4Signals& written) {
  const std::int64_t rows[] = {written.turn_row};
  StatusOr<std::vector<TurnAnalysisRecord>> row = store.GetTurnAnalyses(rows);
  ASSERT_THAT(row, IsOk());
  ASSERT_THAT(*row, SizeIs(1));
  // Schema 7 keeps it in format 2, which gives back the JSON of schema 5: the signals' fields
  // without what the row recomputes from the turn (turn, surface, from, to, granularity), the
  // content signals apart, canonical JSON.
  EXPECT_EQ((*row)[0].format, kTurnAnalysisCompactFormat);
  EXPECT_THAT(
      TurnAnalysisJson((*row)[0], "I paid $5 yesterday."),
      IsOkAndHolds(
          R"({"content":{"divergence":0.0,"entity_count":0,"entity_norm":0.0,)"
          R"("information_density":0.5,"sentiment":0.0,"sentiment_compound":0.0,"tokens":5},)"
          R"("signals":[{"begin":7,"end":9,"kind":"money","value":"5 USD"},)"
          R"({"begin":10,"end":19,"kind":"date","topic":"day","value":"2024-05-09/2024-05-10"}]})"));
  StatusOr<TurnAnalysis> parsed = ParseTurnAnalysis((*row)[0], "I paid $5 yesterday.");
  ASSERT_THAT(parsed, IsOk());
  ASSERT_THAT(parsed->signals, SizeIs(2));
  EXPECT_EQ(parsed->signals[0].Surface("I paid $5 yesterday."), "$5");
  EXPECT_EQ(parsed->signals[1].from, "2024-05-09");
  EXPECT_EQ(parsed->signals[1].to, "2024-05-10");
  ASSERT_TRUE(parsed->content.has_value());
  EXPECT_EQ(parsed->content->tokens, 5);
  // The money and content nodes are gone with their edges and journal rows; the date stays as
  // the at_time edge's anchor (without its derived_from edge).
  EXPECT_THAT(store.GetNode(written.money_id), StatusIs(StatusCode::kNotFound));
  EXPECT_THAT(store.GetNode(written.content_id), StatusIs(StatusCode::kNotFound));
  EXPECT_THAT(store.JournalFor(written.money_id), IsOkAndHolds(IsEmpty()));
  EXPECT_THAT(store.GetNode(written.date_id), IsOk());
  EXPECT_THAT(store.GetEdge(written.at_time_id), IsOk());
  StatusOr<std::vector<EdgeRecord>> edges =
      store.EdgesOf(written.turn_id, EdgeDirection::kBoth, "");
  ASSERT_THAT(edges, IsOk());
  std::vector<std::string> types;
  for (const EdgeRecord& edge : *edges) types.push_back(edge.type);
  EXPECT_THAT(types, ElementsAre("at_time"));
  // The Merkle logs were rebuilt over what is left: the audit passes.
  StatusOr<AuditReport> audit = AuditScope(store, written.scope);
  ASSERT_THAT(audit, IsOk());
  EXPECT_TRUE(audit->ok) << (audit->mismatch ? audit->mismatch->reason : "");
  EXPECT_EQ(audit->nodes, 3);  // the scope node, the turn, the date
  EXPECT_EQ(audit->edges, 1);
}

// ----- The version 6 -> 7 conversion -------------------------------------------------------------

Version6Analyses WriteVersion6Analyses(Store& store) {
  Version6Analyses written;
  StatusOr<std::unique_ptr<Transaction>> txn = store.BeginWrite();
  EXPECT_THAT(txn, IsOk());
  if (!txn.ok()) return written;
  const std::string path = "user:v6";
  StatusOr<ScopeRecord> scope = (*txn)->CreateScope(path, core::ScopeNodeId(path), 0, At(1));
  EXPECT_THAT(scope, IsOk());
  written.scope = *scope;
  const auto turn = [&](std::string text, std::int64_t seconds) {
    NodeRecord node;
    node.kind = NodeKind::kTurn;
    node.scope_id = scope->scope_id;
    node.text = std::move(text);
    node.content_json = nlohmann::json{{"text", node.text}}.dump();
    node.event_time = At(seconds);
    node.id = core::NodeId("turn", node.content_json, scope->node_id, node.event_time->micros);
    node.sequence = (*txn)->NextSequence(scope->scope_id).value_or(0);
    node.valid_from = At(seconds);
    node.ingested_at = At(seconds);
    node.updated_at = At(seconds);
    StatusOr<std::int64_t> row = (*txn)->InsertNode(node);
    EXPECT_THAT(row, IsOk());
    return row.value_or(0);
  };
  written.compact_text = "Zoë said she'd meet Caroline in Zürich on 8 May 2023!";
  written.compact_row = turn(written.compact_text, 10);
  written.compact_json =
      R"({"content":{"divergence":0.0,"entity_count":2,"entity_norm":0.4,)"
      R"("information_density":0.5455,"sentiment":0.4574,"sentiment_compound":0.4574,"tokens":11},)"
      R"("signals":[{"begin":0,"confidence":0.6,"end":4,"kind":"person","value":"Zoë"},)"
      R"({"begin":21,"end":29,"kind":"person","value":"Caroline"},)"
      R"({"begin":33,"end":40,"kind":"place","value":"Zürich"},)"
      R"({"begin":44,"end":54,"kind":"date","topic":"day","value":"2023-05-08/2023-05-09"}]})";
  written.kept_row = turn("hello", 11);
  written.kept_json = R"({"marker":"not a layout format 2 holds","signals":[]})";
  EXPECT_THAT((*txn)->PutTurnAnalysis({.turn_row = written.compact_row,
                                       .format = kTurnAnalysisJsonFormat,
                                       .bytes = written.compact_json}),
              IsOk());
  EXPECT_THAT((*txn)->PutTurnAnalysis({.turn_row = written.kept_row,
                                       .format = kTurnAnalysisJsonFormat,
                                       .bytes = written.kept_json}),
              IsOk());
  EXPECT_THAT((*txn)->Commit(), IsOk());
  written.merkle = store.GetMerkleState(scope->scope_id).value_or(MerkleState{});
  return written;
}

void ExpectMigratedToVersion7(Store& store, const Version6Analyses& written) {
  const std::int64_t rows[] = {written.compact_row, written.kept_row};
  StatusOr<std::vector<TurnAnalysisRecord>> got = store.GetTurnAnalyses(rows);
  ASSERT_THAT(got, IsOk());
  ASSERT_THAT(*got, SizeIs(2));
  // The first row is format 2 now and gives back its JSON byte for byte; the second stays JSON.
  EXPECT_EQ((*got)[0].format, kTurnAnalysisCompactFormat);
  EXPECT_LT((*got)[0].bytes.size(), written.compact_json.size() / 3);
  EXPECT_THAT(TurnAnalysisJson((*got)[0], written.compact_text),
              IsOkAndHolds(written.compact_json));
  EXPECT_EQ((*got)[1].format, kTurnAnalysisJsonFormat);
  EXPECT_EQ((*got)[1].bytes, written.kept_json);
  StatusOr<TurnAnalysis> parsed = ParseTurnAnalysis((*got)[0], written.compact_text);
  ASSERT_THAT(parsed, IsOk());
  ASSERT_THAT(parsed->signals, SizeIs(4));
  EXPECT_EQ(parsed->signals[2].value, "Zürich");
  EXPECT_EQ(parsed->signals[3].from, "2023-05-08");
  // Analysis rows are not in the Merkle logs: the roots stay, and the audit passes.
  StatusOr<MerkleState> state = store.GetMerkleState(written.scope.scope_id);
  ASSERT_THAT(state, IsOk());
  EXPECT_EQ(state->root, written.merkle.root);
  StatusOr<AuditReport> audit = AuditScope(store, written.scope);
  ASSERT_THAT(audit, IsOk());
  EXPECT_TRUE(audit->ok) << (audit->mismatch ? audit->mismatch->reason : "");
}

}  // namespace engram::store::conformance
