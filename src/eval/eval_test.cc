// Tests for engram_eval: the retrieval metrics against hand-computed values, the provenance turn
// ranking, the classification of gold turns in traces, end-to-end LoCoMo and LongMemEval runs on
// tiny files written here (exact expected metrics), the trace explanation, the synthetic
// generator and the perf workload. Evidence cleaning is tested with the importer (io_test.cc).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "config/config_table.h"
#include "engram/testing/status_matchers.h"
#include "engram/testing/temp_dir.h"
#include "eval/bench.h"
#include "eval/bench_internal.h"
#include "eval/metrics.h"
#include "eval/perf.h"
#include "eval/primitives.h"
#include "eval/progress.h"
#include "eval/synthetic.h"
#include "eval/trace_explain.h"

namespace engram::eval {
namespace {

using ::engram::testing::IsOk;
using ::engram::testing::IsOkAndHolds;
using ::engram::testing::StatusIs;
using ::testing::AllOf;
using ::testing::DoubleNear;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

namespace fs = std::filesystem;
using ::engram::testing::TempDir;
using Strings = std::vector<std::string>;

constexpr double kEps = 1e-9;

// Keys of a JSON object, in order.
std::vector<std::string> Keys(const io::Json& object) {
  std::vector<std::string> keys;
  for (auto entry = object.begin(); entry != object.end(); ++entry) keys.push_back(entry.key());
  return keys;
}

// A block of timings: "p50", "p95", "p99" first (a "mean" may follow), the percentiles in
// non-decreasing order (the values themselves are timings: benchmarks report them, tests cannot
// know them).
void ExpectTailPercentiles(const io::Json& block) {
  const std::vector<std::string> keys = Keys(block);
  ASSERT_GE(keys.size(), 3u) << block.dump();
  EXPECT_THAT(std::vector<std::string>(keys.begin(), keys.begin() + 3),
              ElementsAre("p50", "p95", "p99"));
  EXPECT_LE(block["p50"].get<double>(), block["p95"].get<double>());
  EXPECT_LE(block["p95"].get<double>(), block["p99"].get<double>());
}

RecallItem Item(std::string id, Strings provenance) {
  RecallItem item;
  item.id = std::move(id);
  item.provenance = std::move(provenance);
  return item;
}

// ---------------------------------------------------------------------------------------------
// Turn ranking from provenance.

TEST(TurnRankingTest, ProvenanceInItemOrderDuplicatesRemoved) {
  // A cites t1; B (an episode) cites t2, t3 and t1 again; C cites t3 again; D cites t4.
  const std::vector<RecallItem> items = {Item("A", {"t1"}), Item("B", {"t2", "t3", "t1"}),
                                         Item("C", {"t3"}), Item("D", {"t4"})};
  // B fills two new slots (t2, t3); its t1 and C's t3 are already ranked.
  EXPECT_THAT(TurnRanking(items), ElementsAre("t1", "t2", "t3", "t4"));
  EXPECT_THAT(TurnRanking({}), IsEmpty());
}

TEST(TurnRankingTest, MultiTurnItemPushesLaterItemsDown) {
  // A fact citing five turns at rank 1 occupies ranks 1-5, so the next item's turn is rank 6.
  const std::vector<RecallItem> items = {Item("fact", {"t1", "t2", "t3", "t4", "t5"}),
                                         Item("turn", {"t9"})};
  const Strings ranking = TurnRanking(items);
  ASSERT_EQ(ranking.size(), 6u);
  EXPECT_EQ(ranking[5], "t9");
  EXPECT_DOUBLE_EQ(HitAtK(ranking, Strings{"t9"}, 5), 0.0);
  EXPECT_DOUBLE_EQ(HitAtK(ranking, Strings{"t9"}, 6), 1.0);
}

TEST(TurnRankingTest, MapRankingKeepsUnknownIdsAndDropsRepeatedKeys) {
  const Strings ranking = {"id1", "id2", "id3", "id4"};
  const Strings keys = MapRanking(ranking, [](const std::string& id) -> std::optional<std::string> {
    if (id == "id1") return "D1:1";
    if (id == "id2") return "D1:2";
    if (id == "id4") return "D1:1";  // same key as id1: removed
    return std::nullopt;             // unknown: keeps its id, still takes a slot
  });
  EXPECT_THAT(keys, ElementsAre("D1:1", "D1:2", "id3"));
}

// ---------------------------------------------------------------------------------------------
// LoCoMo metrics.

TEST(MetricsTest, RecallHitMrrWithDuplicateAndMissingEvidence) {
  const Strings ranking = {"a", "b", "c", "d", "e"};
  // Gold {a, c, z}: "a" is listed twice (counted once) and "z" is never retrieved (absent from
  // the data) but stays in the denominator.
  const Strings gold = {"c", "a", "a", "z"};
  EXPECT_NEAR(RecallAtK(ranking, gold, 1), 1.0 / 3.0, kEps);   // {a}
  EXPECT_NEAR(RecallAtK(ranking, gold, 2), 1.0 / 3.0, kEps);   // {a}
  EXPECT_NEAR(RecallAtK(ranking, gold, 3), 2.0 / 3.0, kEps);   // {a, c}
  EXPECT_NEAR(RecallAtK(ranking, gold, 30), 2.0 / 3.0, kEps);  // k beyond the list
  EXPECT_DOUBLE_EQ(HitAtK(ranking, gold, 1), 1.0);
  EXPECT_DOUBLE_EQ(MrrAtK(ranking, gold, 30), 1.0);  // first gold at rank 1

  // Gold {d}: first relevant rank 4 → MRR@30 = 1/4; outside the top 3 → MRR@3 = 0, Hit@3 = 0.
  EXPECT_DOUBLE_EQ(MrrAtK(ranking, Strings{"d"}, 30), 0.25);
  EXPECT_DOUBLE_EQ(MrrAtK(ranking, Strings{"d"}, 3), 0.0);
  EXPECT_DOUBLE_EQ(HitAtK(ranking, Strings{"d"}, 3), 0.0);
  EXPECT_EQ(FirstRelevantRank(ranking, Strings{"d"}), 4u);
  EXPECT_EQ(FirstRelevantRank(ranking, Strings{"z"}), std::nullopt);
}

TEST(MetricsTest, RepeatedRankingEntriesCountOnce) {
  // A ranking that repeats a turn cannot push recall above what it found: {x} of {x, y} = 1/2.
  const Strings ranking = {"x", "x", "x"};
  EXPECT_DOUBLE_EQ(RecallAtK(ranking, Strings{"x", "y"}, 3), 0.5);
  EXPECT_DOUBLE_EQ(RecallAllAtK(ranking, Strings{"x", "y"}, 3), 0.0);
}

TEST(MetricsTest, EmptyGoldOrRankingGivesZero) {
  EXPECT_DOUBLE_EQ(RecallAtK(Strings{"a"}, Strings{}, 5), 0.0);
  EXPECT_DOUBLE_EQ(HitAtK(Strings{"a"}, Strings{}, 5), 0.0);
  EXPECT_DOUBLE_EQ(MrrAtK(Strings{}, Strings{"a"}, 5), 0.0);
  EXPECT_DOUBLE_EQ(RecallAllAtK(Strings{"a"}, Strings{}, 5), 0.0);
  EXPECT_DOUBLE_EQ(NdcgAnyAtK(Strings{"a"}, Strings{}, 5), 0.0);
}

// ---------------------------------------------------------------------------------------------
// LongMemEval metrics.

TEST(MetricsTest, RecallAnyAndAll) {
  const Strings sessions = {"s3", "s1", "s2"};
  const Strings gold = {"s1", "s2"};
  EXPECT_DOUBLE_EQ(RecallAnyAtK(sessions, gold, 1), 0.0);  // {s3}
  EXPECT_DOUBLE_EQ(RecallAnyAtK(sessions, gold, 2), 1.0);  // s1
  EXPECT_DOUBLE_EQ(RecallAllAtK(sessions, gold, 2), 0.0);  // s2 missing
  EXPECT_DOUBLE_EQ(RecallAllAtK(sessions, gold, 3), 1.0);
  EXPECT_DOUBLE_EQ(RecallAllAtK(sessions, Strings{"s1", "s9"}, 10), 0.0);  // s9 never ranked
}

TEST(MetricsTest, NdcgUsesTheOfficialDiscountAndTheIdealOverAllGold) {
  // Official LongMemEval DCG: rel_1 + Σ_{i≥2} rel_i / log2(i), so ranks 1 and 2 weigh 1,
  // rank 3 weighs 1/log2(3) = 0.6309, rank 4 weighs 1/log2(4) = 0.5.
  const Strings ranking = {"s3", "s1", "s4", "s2"};
  const Strings gold = {"s1", "s2"};
  // k = 5: DCG = 1 (s1 at rank 2) + 0.5 (s2 at rank 4) = 1.5; IDCG = 1 + 1 = 2 → 0.75.
  EXPECT_NEAR(NdcgAnyAtK(ranking, gold, 5), 0.75, kEps);
  // k = 2: DCG = 1 (s1); IDCG over min(2, 2) = 2 gold = 2 → 0.5.
  EXPECT_NEAR(NdcgAnyAtK(ranking, gold, 2), 0.5, kEps);
  // k = 1: DCG = 0 (s3 is not gold) → 0.
  EXPECT_NEAR(NdcgAnyAtK(ranking, gold, 1), 0.0, kEps);

  // Three gold sessions, one never retrieved (s5): ranking s1, s9, s2, k = 5.
  // DCG = 1 + 1/log2(3) = 1.630930; IDCG = 1 + 1 + 1/log2(3) = 2.630930 → 0.619906.
  const double expected = (1 + 1 / std::log2(3.0)) / (2 + 1 / std::log2(3.0));
  EXPECT_NEAR(NdcgAnyAtK(Strings{"s1", "s9", "s2"}, Strings{"s1", "s2", "s5"}, 5), expected, kEps);
  EXPECT_NEAR(expected, 0.619906, 1e-6);
  // k = 2 with three gold: IDCG over min(3, 2) = 2 positions = 2; DCG = 1 → 0.5.
  EXPECT_NEAR(NdcgAnyAtK(Strings{"s1", "s9", "s2"}, Strings{"s1", "s2", "s5"}, 2), 0.5, kEps);
  // A perfect ranking is 1.
  EXPECT_NEAR(NdcgAnyAtK(Strings{"s1", "s2", "s3"}, gold, 10), 1.0, kEps);
}

TEST(MetricsTest, GroupRankingIsOrderOfFirstAppearance) {
  const Strings turns = {"a:1", "b:4", "a:2", "x", "c:1", "b:1"};
  const Strings sessions =
      GroupRanking(turns, [](const std::string& turn) -> std::optional<std::string> {
        const std::size_t colon = turn.find(':');
        if (colon == std::string::npos) return std::nullopt;  // unknown turn: skipped
        return turn.substr(0, colon);
      });
  EXPECT_THAT(sessions, ElementsAre("a", "b", "c"));
}

TEST(MetricsTest, PercentileInterpolatesLinearly) {
  const std::vector<double> values = {4, 1, 3, 2};
  EXPECT_DOUBLE_EQ(Percentile(values, 0), 1.0);
  EXPECT_DOUBLE_EQ(Percentile(values, 50), 2.5);   // position 1.5 between 2 and 3
  EXPECT_DOUBLE_EQ(Percentile(values, 95), 3.85);  // position 2.85: 3 + 0.85 · (4 − 3)
  EXPECT_DOUBLE_EQ(Percentile(values, 100), 4.0);
  EXPECT_DOUBLE_EQ(Percentile({}, 50), 0.0);
  EXPECT_DOUBLE_EQ(Percentile({7}, 99), 7.0);
  EXPECT_DOUBLE_EQ(Mean(values), 2.5);
}

TEST(MetricsTest, CutOffsAreSortedDedupedAndPositive) {
  EXPECT_THAT(*internal::NormalizeKs({30, 5, 10, 5}, {1}), ElementsAre(5, 10, 30));
  EXPECT_THAT(*internal::NormalizeKs({}, {10, 50}), ElementsAre(10, 50));
  EXPECT_THAT(internal::NormalizeKs({0, 5}, {}), StatusIs(StatusCode::kInvalidArgument));
}

// ---------------------------------------------------------------------------------------------
// Evidence in the context (issue 22).

TEST(ContextMetricsTest, EvidenceAllAndAnyOverDistinctGold) {
  const Strings packed = {"A", "B", "C"};
  // Gold {A, D}: A is packed, D is not.
  EXPECT_EQ(EvidenceIn(packed, Strings{"A", "D"}).all, 0.0);
  EXPECT_EQ(EvidenceIn(packed, Strings{"A", "D"}).any, 1.0);
  // Gold {A, B} with A repeated: both packed.
  EXPECT_EQ(EvidenceIn(packed, Strings{"A", "B", "A"}).all, 1.0);
  EXPECT_EQ(EvidenceIn(packed, Strings{"A", "B", "A"}).any, 1.0);
  EXPECT_EQ(EvidenceIn(packed, Strings{"D"}).any, 0.0);
  EXPECT_EQ(EvidenceIn(packed, Strings{}).all, 0.0);  // no gold: skipped by callers
  EXPECT_EQ(EvidenceIn(Strings{}, Strings{"A"}).all, 0.0);
}

TEST(ContextMetricsTest, AnswerNormalisationFollowsTheLocomoScorer) {
  // Commas and other ASCII punctuation removed without splitting words, lowercase, the words
  // a / an / the / and dropped, whitespace collapsed.
  EXPECT_EQ(NormalizeAnswer("The Sunflower,  and a Bee!"), "sunflower bee");
  EXPECT_EQ(NormalizeAnswer("7 May, 2023"), "7 may 2023");
  EXPECT_EQ(NormalizeAnswer("don't stop at 1:56 pm"), "dont stop at 156 pm");
  EXPECT_EQ(NormalizeAnswer("  An  "), "");
  EXPECT_EQ(NormalizeAnswer("Andy and Anne"), "andy anne");  // whole words only
}

TEST(ContextMetricsTest, AnswerMustOccurAsWholeWords) {
  const std::string context =
      "Memories:\n[2023-05-08 13:56 · session_1] Ann: We met on 7 May, 2023 at the Art Fair.";
  EXPECT_TRUE(AnswerInText("7 May 2023", context));
  EXPECT_TRUE(AnswerInText("art fair", context));
  EXPECT_FALSE(AnswerInText("May 7", context));   // order matters
  EXPECT_FALSE(AnswerInText("Fai", context));     // not a whole word
  EXPECT_FALSE(AnswerInText("the", context));     // nothing left after normalising
  EXPECT_TRUE(AnswerInText("ann", context));
}

TEST(ContextMetricsTest, FatesOfGoldTurnsMissingFromTheContext) {
  internal::TurnTable turns = {{"id-a", {"A", "s1", "Ann", "a"}}, {"id-b", {"B", "s1", "Ann", "b"}},
                               {"id-c", {"C", "s1", "Ann", "c"}}, {"id-d", {"D", "s2", "Ann", "d"}},
                               {"id-e", {"E", "s2", "Ann", "e"}}, {"id-f", {"F", "s2", "Ann", "f"}}};
  internal::Recalls recalls;
  recalls.user.items = {Item("id-a", {"id-a"})};
  recalls.user.diagnostics.unpacked = {{"id-b", 2, "budget"}, {"fact", 3, "duplicate"},
                                       {"id-c", 4, "floor"}};
  recalls.eval.items = {Item("id-a", {"id-a"}), Item("id-b", {"id-b"})};
  recalls.trace = ReadResult();
  // The fact cites A and E: E's best item is the fact, left out as a duplicate.
  recalls.trace->items = {Item("id-a", {"id-a"}), Item("id-b", {"id-b"}),
                          Item("fact", {"id-a", "id-e"}), Item("id-c", {"id-c"}),
                          Item("id-d", {"id-d"})};
  EXPECT_THAT(internal::ContextFates(recalls, turns, Strings{"A", "B", "C", "D", "E", "F"}),
              ElementsAre("packed", "budget", "floor", "k", "duplicate", "never_ranked"));
  // Without a trace recall, what the evaluation recall does not rank is below its k.
  recalls.trace.reset();
  EXPECT_THAT(internal::ContextFates(recalls, turns, Strings{"B", "D"}),
              ElementsAre("budget", "below_eval_k"));
}

TEST(ContextMetricsTest, SumsAverageEvidenceTokensAndScoredAnswers) {
  internal::ContextSums sums;
  sums.Add({.all = 1, .any = 1}, 100, true, Strings{"packed"});
  sums.Add({.all = 0, .any = 1}, 300, std::nullopt, Strings{"packed", "budget"});
  sums.Add({.all = 0, .any = 0}, 200, false, Strings{"k", "never_ranked"});
  const io::Json json = sums.ToJson(/*score_answers=*/true, /*fates=*/true);
  EXPECT_EQ(json["questions"], 3);
  EXPECT_NEAR(json["evidence_all"].get<double>(), 1.0 / 3, kEps);
  EXPECT_NEAR(json["evidence_any"].get<double>(), 2.0 / 3, kEps);
  EXPECT_NEAR(json["tokens_mean"].get<double>(), 200.0, kEps);
  // p95 of {100, 200, 300}: position 0.95 x 2 = 1.9 -> 200 + 0.9 x 100.
  EXPECT_NEAR(json["tokens_p95"].get<double>(), 290.0, kEps);
  EXPECT_EQ(json["answer_questions"], 2);  // the second question was not scored
  EXPECT_NEAR(json["answer_in_context"].get<double>(), 0.5, kEps);
  EXPECT_EQ(json["missed_gold_turns"]["budget"], 1);
  EXPECT_EQ(json["missed_gold_turns"]["k"], 1);
  EXPECT_EQ(json["missed_gold_turns"]["never_ranked"], 1);
  EXPECT_EQ(json["missed_gold_turns"]["duplicate"], 0);
  EXPECT_THAT(Keys(json["missed_gold_turns"]),
              ElementsAre("budget", "duplicate", "floor", "k", "never_ranked", "below_eval_k"));
  // Without answers or fates those keys are absent; no scored answer gives null.
  const io::Json plain = sums.ToJson(false, false);
  EXPECT_THAT(Keys(plain), ElementsAre("questions", "evidence_all", "evidence_any",
                                       "tokens_mean", "tokens_p95"));
  internal::ContextSums unscored;
  unscored.Add({.all = 1, .any = 1}, 10, std::nullopt, {});
  EXPECT_TRUE(unscored.ToJson(true, false)["answer_in_context"].is_null());
}

// ---------------------------------------------------------------------------------------------
// Where gold turns were lost (trace classification).

TEST(TraceTest, ClassifiesGoldTurnsPackedInTopKRankedOutNeverRetrieved) {
  internal::TurnTable turns = {{"id-a", {"A", "s1", "Ann", "a"}},
                               {"id-b", {"B", "s1", "Ann", "b"}},
                               {"id-c", {"C", "s1", "Ann", "c"}},
                               {"id-d", {"D", "s1", "Ann", "d"}}};
  auto routed = [](std::string id, std::size_t rank) {
    RecallItem item = Item(id, {id});
    item.routes.push_back({"bm25", rank, 10.0 - static_cast<double>(rank), ""});
    return item;
  };
  internal::Recalls recalls;
  recalls.user.items = {routed("id-a", 1)};                     // packed: A
  recalls.eval.items = {routed("id-a", 1), routed("id-b", 2)};  // top 2: A, B
  recalls.trace = ReadResult();
  recalls.trace->items = {routed("id-a", 1), routed("id-b", 2), routed("id-c", 3)};
  recalls.trace->diagnostics.routes.push_back({"bm25", 3, 1.0, ""});
  const io::Json json =
      internal::TraceRecallJson(recalls, turns, Strings{"A", "B", "C", "D"}, /*eval_k=*/2);
  const io::Json& gold = json["gold_turns"];
  ASSERT_EQ(gold.size(), 4u);
  EXPECT_EQ(gold[0]["status"], "packed");
  EXPECT_EQ(gold[0]["eval_rank"], 1);
  EXPECT_EQ(gold[1]["status"], "in_top_k");
  EXPECT_EQ(gold[1]["eval_rank"], 2);
  EXPECT_EQ(gold[2]["status"], "ranked_out");  // bm25 candidate #3, not in the top 2
  EXPECT_TRUE(gold[2]["eval_rank"].is_null());
  EXPECT_EQ(gold[2]["routes"]["bm25"]["rank"], 3);
  EXPECT_EQ(gold[3]["status"], "never_retrieved");
  EXPECT_TRUE(gold[3]["routes"].empty());
  // Candidates per route in rank order, with their turns.
  ASSERT_EQ(json["candidates"]["bm25"].size(), 3u);
  EXPECT_EQ(json["candidates"]["bm25"][2]["turns"][0], "C");
  EXPECT_EQ(json["ranking"], io::Json::parse(R"(["A","B"])"));
}

// ---------------------------------------------------------------------------------------------
// End to end on tiny files.

// Two sessions, three questions. Ranked by BM25 (stemmed, stopwords dropped, speaker names
// indexed with the text):
//   q1 "What is the name of the puppy?"       terms name, puppi → D1:1 (both), D1:2 (puppi)
//   q2 "Where does the violin teacher live?"  terms violin, teacher, live → D2:3 (teacher,
//       live), D2:1 (violin, shorter), D2:2 (violin, longer)
//   q3 "Did Ann walk the puppy by the river?" terms ann, walk, puppi, river → D1:3 (ann, walk,
//       river), D1:1 (ann, puppi), ...
constexpr char kLocomoFile[] = R"([{
  "sample_id": "conv-t",
  "conversation": {
    "speaker_a": "Ann", "speaker_b": "Bob",
    "session_1_date_time": "1:00 pm on 8 May, 2023",
    "session_1": [
      {"speaker": "Ann", "dia_id": "D1:1", "text": "I adopted a puppy named Biscuit."},
      {"speaker": "Bob", "dia_id": "D1:2", "text": "Congratulations on the new puppy!"},
      {"speaker": "Ann", "dia_id": "D1:3", "text": "We walk along the river every morning."}
    ],
    "session_2_date_time": "2:00 pm on 9 June, 2023",
    "session_2": [
      {"speaker": "Bob", "dia_id": "D2:1", "text": "I started learning the violin."},
      {"speaker": "Ann", "dia_id": "D2:2", "text": "The violin sounds lovely, play it for me tonight at the party."},
      {"speaker": "Bob", "dia_id": "D2:3", "text": "My teacher lives in Porto."}
    ],
    "session_3_date_time": "3:00 pm on 1 July, 2023"
  },
  "qa": [
    {"question": "What is the name of the puppy?", "answer": "Biscuit", "evidence": ["D1:1"],
     "category": 4},
    {"question": "Where does the violin teacher live?", "answer": "Porto",
     "evidence": ["D2:3", "D2:1; D9:9", "D"], "category": 1},
    {"question": "Did Ann walk the puppy by the river?", "answer": "yes", "evidence": ["D1:1"],
     "category": 2}
  ]
}])";

TEST(LocomoBenchTest, TinyConversationExactMetrics) {
  TempDir dir;
  BenchOptions options;
  options.data_path = dir.File("tiny_locomo.json", kLocomoFile);
  options.ks = {5, 1};
  options.trace_path = dir.File("trace.jsonl");
  const StatusOr<io::Json> report = RunLocomoBench(options);
  ASSERT_THAT(report, IsOk());
  const io::Json& json = *report;
  EXPECT_EQ(json["dataset"], "locomo");
  EXPECT_EQ(json["questions"], 3);
  // q1: D1:1 at rank 1.             recall@1 1,   recall@5 1,   hit@1 1, hit@5 1, mrr 1
  // q2: gold {D2:3, D2:1, D9:9}; D2:3 rank 1, D2:1 rank 2, D9:9 is in no session.
  //                                 recall@1 1/3, recall@5 2/3, hit@1 1, hit@5 1, mrr 1
  // q3: D1:1 at rank 2.             recall@1 0,   recall@5 1,   hit@1 0, hit@5 1, mrr 1/2
  const io::Json& metrics = json["metrics"];
  EXPECT_NEAR(metrics["recall@1"].get<double>(), (1 + 1.0 / 3 + 0) / 3, kEps);  // 4/9
  EXPECT_NEAR(metrics["recall@5"].get<double>(), (1 + 2.0 / 3 + 1) / 3, kEps);  // 8/9
  EXPECT_NEAR(metrics["hit@1"].get<double>(), 2.0 / 3, kEps);
  EXPECT_NEAR(metrics["hit@5"].get<double>(), 1.0, kEps);
  EXPECT_NEAR(metrics["mrr@30"].get<double>(), (1 + 1 + 0.5) / 3, kEps);  // 5/6
  std::vector<std::string> keys;
  for (auto entry = metrics.begin(); entry != metrics.end(); ++entry) keys.push_back(entry.key());
  EXPECT_THAT(keys, ElementsAre("recall@1", "recall@5", "hit@1", "hit@5", "mrr@30"));

  // Per category, in category order.
  const io::Json& categories = json["by_category"];
  ASSERT_EQ(categories.size(), 3u);
  EXPECT_EQ(categories.begin().key(), "multi-hop");
  EXPECT_NEAR(categories["multi-hop"]["metrics"]["recall@5"].get<double>(), 2.0 / 3, kEps);
  EXPECT_NEAR(categories["temporal"]["metrics"]["mrr@30"].get<double>(), 0.5, kEps);
  EXPECT_EQ(categories["single-hop"]["questions"], 1);

  // Top-level shape, cost and config.
  std::vector<std::string> top;
  for (auto entry = json.begin(); entry != json.end(); ++entry) top.push_back(entry.key());
  EXPECT_THAT(top, ElementsAre("dataset", "questions", "config", "metrics", "by_category",
                               "context", "sufficiency", "context_tokens", "latency_ms",
                               "ingest"));
  // Sufficiency verdicts: no adversarial question here, so none without evidence.
  const io::Json& sufficiency = json["sufficiency"];
  EXPECT_EQ(sufficiency["no_evidence"]["questions"], 0);
  EXPECT_EQ(sufficiency["answerable"]["questions"], 3);
  EXPECT_TRUE(sufficiency["insufficient_recall"].is_null());
  std::size_t by_category = 0;
  for (const io::Json& counts : sufficiency["by_category"]) {
    by_category += counts["questions"].get<std::size_t>();
  }
  EXPECT_EQ(by_category, 3u);
  // Evidence in the user context (6 turns, all of them packed at the default k of 10): q2's
  // gold D9:9 is in no session, so only q1 and q3 have all of theirs. Answers: "Biscuit" and
  // "Porto" are in the context, "yes" is not.
  const io::Json& context = json["context"];
  EXPECT_EQ(context["questions"], 3);
  EXPECT_NEAR(context["evidence_all"].get<double>(), 2.0 / 3, kEps);
  EXPECT_NEAR(context["evidence_any"].get<double>(), 1.0, kEps);
  EXPECT_EQ(context["answer_questions"], 3);
  EXPECT_NEAR(context["answer_in_context"].get<double>(), 2.0 / 3, kEps);
  EXPECT_EQ(context["missed_gold_turns"]["never_ranked"], 1);  // D9:9
  EXPECT_NEAR(categories["multi-hop"]["context"]["evidence_all"].get<double>(), 0.0, kEps);
  EXPECT_EQ(json["ingest"]["turns"], 6);
  EXPECT_GT(json["context_tokens"]["mean"].get<double>(), 0);
  ExpectTailPercentiles(json["latency_ms"]);
  // Every route the planner picks for the question shape; at least these five.
  EXPECT_THAT(json["config"]["routes"].get<std::vector<std::string>>(),
              ::testing::IsSupersetOf({"bm25", "vector", "fragment", "session", "temporal"}));
  EXPECT_EQ(json["config"]["route_weights"]["session"], 0.5);
  EXPECT_EQ(json["config"]["planner"]["shapes"]["count"]["fragment"], 1.5);
  EXPECT_EQ(json["config"]["settings"]["recall"]["neighbour_radius"], 2);
  for (const config::KeySpec& spec : config::Keys()) {  // the echo has every key
    EXPECT_TRUE(json["config"]["settings"][std::string(spec.section)].contains(spec.key))
        << spec.key;
  }
  EXPECT_EQ(json["config"]["embedder"], "use-lite@0.2.0");  // the default [embedder]
  EXPECT_EQ(json["config"]["engine_version"], std::string(EngineVersion()));
  EXPECT_EQ(json["config"]["recalls"]["eval"]["k"], 30);
  EXPECT_EQ(json["config"]["recalls"]["eval"]["token_budget"], kEvalTokenBudget);
  EXPECT_EQ(json["config"]["data"]["evidence_ids_not_in_conversation"], 1);

  // The trace: one line per question, asked at the last session's date (session_3 has no turns
  // and is skipped by the importer, so that is session_2's date).
  std::ifstream trace(options.trace_path);
  std::vector<io::Json> lines;
  for (std::string line; std::getline(trace, line);) lines.push_back(io::Json::parse(line));
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[1]["question_id"], "conv-t:q2");
  EXPECT_EQ(lines[1]["query_time"], "2023-06-09T14:00:00Z");
  EXPECT_EQ(lines[1]["ranking"][0], "D2:3");
  EXPECT_EQ(lines[1]["ranking"][1], "D2:1");
  EXPECT_EQ(lines[1]["gold_turns"][2]["key"], "D9:9");
  EXPECT_EQ(lines[1]["gold_turns"][2]["status"], "never_retrieved");
  EXPECT_EQ(lines[1]["gold_turns"][2]["context_fate"], "never_ranked");
  EXPECT_EQ(lines[1]["gold_turns"][0]["context_fate"], "packed");
  EXPECT_EQ(lines[1]["evidence_in_context"]["all"], 0.0);
  EXPECT_EQ(lines[1]["answer_in_context"], true);
  EXPECT_EQ(lines[1]["gold_turns"][2]["in_data"], false);
  EXPECT_EQ(lines[2]["first_gold_rank"], 2);
}

TEST(LocomoBenchTest, ExplainShowsWhereEachGoldTurnWent) {
  TempDir dir;
  // One item per user recall, so a gold turn can be in the top k without being packed.
  const std::string config = dir.File("engram.toml", "[recall]\npack_max_items = 1\n");
  BenchOptions options;
  options.data_path = dir.File("tiny_locomo.json", kLocomoFile);
  options.config_file = config;
  options.trace_path = dir.File("trace.jsonl");
  ASSERT_THAT(RunLocomoBench(options), IsOk());

  std::ostringstream out;
  ASSERT_THAT(ExplainTraceQuestion(options.trace_path, "conv-t:q2", out), IsOk());
  const std::string text = out.str();
  EXPECT_THAT(text, HasSubstr("Where does the violin teacher live?"));
  EXPECT_THAT(text, HasSubstr("D2:3           PACKED"));
  EXPECT_THAT(text, HasSubstr("D2:1           IN TOP 30, NOT PACKED"));
  EXPECT_THAT(text, HasSubstr("D9:9           NEVER RETRIEVED"));
  EXPECT_THAT(text, HasSubstr("no turn of the data has this id"));
  EXPECT_THAT(text, HasSubstr("bm25 #1"));

  std::ostringstream missing;
  EXPECT_THAT(ExplainTraceQuestion(options.trace_path, "conv-t:q99", missing),
              StatusIs(StatusCode::kNotFound, HasSubstr("conv-t:q1")));
  EXPECT_THAT(ExplainTraceQuestion(dir.File("nope.jsonl"), "conv-t:q1", missing),
              StatusIs(StatusCode::kNotFound));
}

TEST(LocomoBenchTest, KeptStoreRefusesToIngestTwice) {
  TempDir dir;
  BenchOptions options;
  options.data_path = dir.File("tiny_locomo.json", kLocomoFile);
  options.store_path = dir.File("kept.db");
  ASSERT_THAT(RunLocomoBench(options), IsOk());
  EXPECT_TRUE(fs::exists(options.store_path));
  EXPECT_THAT(RunLocomoBench(options), StatusIs(StatusCode::kAlreadyExists));
}

TEST(LocomoBenchTest, ReuseRecallsOverTheStoredScopesAndRefusesOtherTurns) {
  TempDir dir;
  BenchOptions options;
  options.data_path = dir.File("tiny_locomo.json", kLocomoFile);
  options.store_path = dir.File("kept.db");
  const StatusOr<io::Json> first = RunLocomoBench(options);
  ASSERT_THAT(first, IsOk());
  EXPECT_EQ((*first)["ingest"]["turns"], 6);
  EXPECT_EQ((*first)["ingest"]["reused_scopes"], 0);

  options.reuse_store = true;
  const StatusOr<io::Json> again = RunLocomoBench(options);
  ASSERT_THAT(again, IsOk());
  EXPECT_EQ((*again)["ingest"]["turns"], 0);
  EXPECT_EQ((*again)["ingest"]["reused_scopes"], 1);
  EXPECT_EQ((*again)["metrics"], (*first)["metrics"]);

  // The same conversation id with one turn's text changed: the stored scope is not that file.
  std::string changed = kLocomoFile;
  const std::string from = "My teacher lives in Porto.";
  changed.replace(changed.find(from), from.size(), "My teacher lives in Braga.");
  options.data_path = dir.File("changed_locomo.json", changed);
  EXPECT_THAT(RunLocomoBench(options),
              StatusIs(StatusCode::kFailedPrecondition, HasSubstr("differs from the benchmark "
                                                                  "file at turn 6")));
}

// Two conversations: the tiny one and a copy of it under another id, without its third question.
std::string TwoConversations() {
  const std::string one = kLocomoFile;
  std::string other = one.substr(1, one.size() - 2);  // without the enclosing [ ]
  other.replace(other.find("conv-t"), 6, "conv-u");
  const std::string third = "    {\"question\": \"Did Ann walk";
  const std::size_t from = other.find(third);
  other.erase(other.rfind(',', from), other.find('}', from) + 1 - other.rfind(',', from));
  return one.substr(0, one.size() - 1) + "," + other + "]";
}

TEST(LocomoBenchTest, OnlyRunsTheNamedConversations) {
  TempDir dir;
  BenchOptions options;
  options.data_path = dir.File("two_locomo.json", TwoConversations());
  options.trace_path = dir.File("trace.jsonl");
  const StatusOr<io::Json> both = RunLocomoBench(options);
  ASSERT_THAT(both, IsOk());
  EXPECT_EQ((*both)["questions"], 5);
  EXPECT_FALSE((*both)["config"]["data"].contains("only"));

  options.only = {"conv-u"};
  const StatusOr<io::Json> report = RunLocomoBench(options);
  ASSERT_THAT(report, IsOk());
  EXPECT_EQ((*report)["questions"], 2);
  EXPECT_EQ((*report)["config"]["data"]["conversations"], 1);
  EXPECT_EQ((*report)["config"]["data"]["only"], io::Json::parse(R"(["conv-u"])"));
  std::ifstream trace(options.trace_path);
  std::string line;
  std::size_t lines = 0;
  while (std::getline(trace, line)) {
    ++lines;
    EXPECT_EQ(io::Json::parse(line)["conversation"], "conv-u");
  }
  EXPECT_EQ(lines, 2u);

  options.only = {"conv-u", "conv-x"};
  EXPECT_THAT(RunLocomoBench(options),
              StatusIs(StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("no conversation conv-x in"), HasSubstr("conv-t, conv-u"),
                             Not(HasSubstr("conv-u in")))));
  options.only = {""};
  EXPECT_THAT(RunLocomoBench(options),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("--only: an empty id")));
}

TEST(LocomoBenchTest, BadInputsAreReported) {
  TempDir dir;
  BenchOptions options;
  options.data_path = dir.File("missing.json");
  EXPECT_THAT(RunLocomoBench(options), StatusIs(StatusCode::kNotFound));
  options.data_path = dir.File("tiny_locomo.json", kLocomoFile);
  options.ks = {0};
  EXPECT_THAT(RunLocomoBench(options), StatusIs(StatusCode::kInvalidArgument));
  options.ks = {};
  options.routes = {"no-such-route"};
  EXPECT_THAT(RunLocomoBench(options), StatusIs(StatusCode::kInvalidArgument));
}

// The flat baseline: [bm25] stem, FlatBaseline() and `--flat` on the tiny file.

TEST(FlatBaselineTest, StemKeyParsesAndDefaultsToTrue) {
  EXPECT_TRUE(Config{}.bm25.stem);
  StatusOr<Config> parsed = ParseConfig("[bm25]\nk1 = 0.9\nstem = false\n", "flat.toml");
  ASSERT_THAT(parsed, IsOk());
  EXPECT_FALSE(parsed->bm25.stem);
  EXPECT_EQ(parsed->bm25.k1, 0.9);
  EXPECT_TRUE((*ParseConfig("[bm25]\nb = 0.5\n", "b.toml")).bm25.stem);
  EXPECT_THAT(ParseConfig("[bm25]\nstem = \"no\"\n", "bad.toml"),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("stem")));
}

TEST(FlatBaselineTest, SwitchesOffEverythingButBm25AndKeepsTheBm25Constants) {
  Config config;
  config.bm25.k1 = 0.9;
  config.recall.max_items = 7;
  const Config flat = FlatBaseline(config);
  EXPECT_FALSE(flat.planner.enabled);
  EXPECT_EQ(flat.recall.neighbour_weight, 0.0);
  EXPECT_EQ(flat.recall.person_boost, 1.0);
  EXPECT_FALSE(flat.bm25.stem);
  EXPECT_EQ(flat.embedder.kind, "none");
  EXPECT_EQ(EmbedderModelId(flat.embedder), "none");
  EXPECT_EQ(flat.bm25.k1, 0.9);
  EXPECT_EQ(flat.bm25.b, 0.75);
  EXPECT_EQ(flat.recall.max_items, 7u);
  EXPECT_THAT(flat.Validate(), IsOk());
}

TEST(FlatBaselineTest, TinyConversationRunsUnstemmedBm25Only) {
  TempDir dir;
  BenchOptions options;
  options.data_path = dir.File("tiny_locomo.json", kLocomoFile);
  options.ks = {1, 5};
  options.flat = true;
  options.trace_path = dir.File("trace.jsonl");
  const StatusOr<io::Json> report = RunLocomoBench(options);
  ASSERT_THAT(report, IsOk());
  const io::Json& config = (*report)["config"];
  EXPECT_EQ(config["flat"], true);
  EXPECT_EQ(config["routes"], io::Json::parse(R"(["bm25"])"));
  EXPECT_EQ(config["routes_requested"], "flat baseline");
  EXPECT_EQ(config["planner"]["enabled"], false);
  EXPECT_EQ(config["settings"]["recall"]["neighbour_weight"], 0.0);
  EXPECT_EQ(config["settings"]["recall"]["person_boost"], 1.0);
  EXPECT_EQ(config["settings"]["bm25"]["stem"], false);
  EXPECT_EQ(config["embedder"], "none");
  EXPECT_THAT(config["flat_baseline"].get<std::string>(), HasSubstr("stemming off"));
  // Without stemming "name" no longer matches "named": q1 "What is the name of the puppy?"
  // matches D1:1 (ann adopted puppy named biscuit, 5 terms) and D1:2 (bob congratulations new
  // puppy, 4 terms) on "puppy" alone, and the shorter D1:2 ranks first. Stemmed, D1:1 was first.
  // q2 and q3 rank as in TinyConversationExactMetrics (their words need no stemming).
  const io::Json& metrics = (*report)["metrics"];
  EXPECT_NEAR(metrics["recall@1"].get<double>(), (0 + 1.0 / 3 + 0) / 3, kEps);
  EXPECT_NEAR(metrics["mrr@30"].get<double>(), (0.5 + 1 + 0.5) / 3, kEps);
  std::ifstream trace(options.trace_path);
  std::string line;
  ASSERT_TRUE(std::getline(trace, line));
  const io::Json first = io::Json::parse(line);
  EXPECT_EQ(first["ranking"][0], "D1:2");
  EXPECT_EQ(first["ranking"][1], "D1:1");
  EXPECT_TRUE(first["candidates"].contains("bm25"));
  EXPECT_EQ(first["candidates"].size(), 1u);

  options.routes = {"bm25"};
  EXPECT_THAT(RunLocomoBench(options), StatusIs(StatusCode::kInvalidArgument, HasSubstr("--flat")));
  EXPECT_THAT(RunLongMemEvalBench(options), StatusIs(StatusCode::kInvalidArgument));
}

// Three questions: an abstention question and one whose only has_answer turn is the
// assistant's are skipped (official protocol); q1 is evaluated. Its gold sessions are s1 and s2,
// its gold turns s1:1 and s2:1. Terms of the question: buy, red, bicycl. Ranked turns: s1:1 (red,
// bicycl), then s3's two bicycle turns; s2 ("pasta recipe") matches nothing. Session ranking:
// s1, s3.
constexpr char kLongMemEvalFile[] = R"([
{"question_id": "q1", "question_type": "multi-session",
 "question": "Where did I buy the red bicycle?", "answer": "flea market",
 "question_date": "2023/06/01 (Thu) 10:00",
 "haystack_session_ids": ["s1", "s2", "s3"],
 "haystack_dates": ["2023/05/01 (Mon) 09:00", "2023/05/02 (Tue) 09:00", "2023/05/03 (Wed) 09:00"],
 "haystack_sessions": [
   [{"role": "user", "content": "I got a red bicycle at the flea market.", "has_answer": true},
    {"role": "assistant", "content": "Nice find!"}],
   [{"role": "user", "content": "Can you suggest a pasta recipe?", "has_answer": true},
    {"role": "assistant", "content": "Try carbonara with eggs."}],
   [{"role": "user", "content": "My bicycle needs new tires."},
    {"role": "assistant", "content": "Check the bicycle shop downtown for tires and tubes."}]],
 "answer_session_ids": ["s1", "s2"]},
{"question_id": "q2_abs", "question_type": "multi-session",
 "question": "Where did I buy the blue car?", "answer": "unknown",
 "question_date": "2023/06/01 (Thu) 10:00",
 "haystack_session_ids": ["s1"], "haystack_dates": ["2023/05/01 (Mon) 09:00"],
 "haystack_sessions": [[{"role": "user", "content": "Hello there."}]],
 "answer_session_ids": []},
{"question_id": "q3", "question_type": "single-session-assistant",
 "question": "What did you recommend?", "answer": "carbonara",
 "question_date": "2023/06/01 (Thu) 10:00",
 "haystack_session_ids": ["s1"], "haystack_dates": ["2023/05/01 (Mon) 09:00"],
 "haystack_sessions": [[{"role": "user", "content": "Recipe please."},
                        {"role": "assistant", "content": "Carbonara.", "has_answer": true}]],
 "answer_session_ids": ["s1"]}
])";

TEST(LongMemEvalBenchTest, TinyFileExactMetricsUnderTheOfficialFilter) {
  TempDir dir;
  BenchOptions options;
  options.data_path = dir.File("tiny_lme.json", kLongMemEvalFile);
  options.trace_path = dir.File("trace.jsonl");
  // The lexical and structural routes: the vector route would rank every turn, s2's included.
  options.routes = {"bm25", "fragment", "session", "temporal"};
  const StatusOr<io::Json> report = RunLongMemEvalBench(options);
  ASSERT_THAT(report, IsOk());
  const io::Json& json = *report;
  EXPECT_EQ(json["dataset"], "longmemeval");
  EXPECT_EQ(json["questions"], 1);
  EXPECT_EQ(json["config"]["data"]["skipped_abstention"], 1);
  EXPECT_EQ(json["config"]["data"]["skipped_no_answer_user_turn"], 1);
  EXPECT_EQ(json["ingest"]["turns"], 6);  // skipped haystacks are not ingested

  // Sessions ranked s1, s3; gold {s1, s2}.
  //   recall_any@5 = 1 (s1); recall_all@5 = 0 (s2 never ranked);
  //   ndcg_any@5 = DCG 1 (s1 at rank 1) / IDCG (1 + 1, two gold sessions) = 0.5. Same at 10.
  const io::Json& session = json["metrics"]["session"];
  std::vector<std::string> keys;
  for (auto entry = session.begin(); entry != session.end(); ++entry) keys.push_back(entry.key());
  EXPECT_THAT(keys, ElementsAre("recall_any@5", "recall_all@5", "ndcg_any@5", "recall_any@10",
                                "recall_all@10", "ndcg_any@10"));
  EXPECT_DOUBLE_EQ(session["recall_any@5"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(session["recall_all@5"].get<double>(), 0.0);
  EXPECT_NEAR(session["ndcg_any@5"].get<double>(), 0.5, kEps);
  EXPECT_NEAR(session["ndcg_any@10"].get<double>(), 0.5, kEps);
  // Turns: gold {s1:1, s2:1}; s1:1 is ranked first, s2:1 never: any 1, all 0.
  const io::Json& turn = json["metrics"]["turn"];
  EXPECT_DOUBLE_EQ(turn["recall_any@10"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(turn["recall_all@10"].get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(turn["recall_any@50"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(turn["recall_all@50"].get<double>(), 0.0);
  ASSERT_TRUE(json["by_category"].contains("multi-session"));
  EXPECT_FALSE(json["by_category"].contains("single-session-assistant"));

  std::ifstream trace(options.trace_path);
  std::string line;
  ASSERT_TRUE(std::getline(trace, line));
  const io::Json traced = io::Json::parse(line);
  EXPECT_EQ(traced["question_id"], "q1");
  EXPECT_EQ(traced["query_time"], "2023-06-01T10:00:00Z");
  EXPECT_EQ(traced["session_ranking"], io::Json::parse(R"(["s1","s3"])"));
  EXPECT_EQ(traced["ranking"][0], "s1:1");
  EXPECT_FALSE(std::getline(trace, line));  // skipped questions have no trace line
}

TEST(LongMemEvalBenchTest, OnlyRunsTheNamedQuestions) {
  TempDir dir;
  BenchOptions options;
  options.data_path = dir.File("tiny_lme.json", kLongMemEvalFile);
  options.routes = {"bm25", "fragment", "session", "temporal"};
  options.only = {"q3"};
  const StatusOr<io::Json> report = RunLongMemEvalBench(options);
  ASSERT_THAT(report, IsOk());
  // q3 alone is read; the official filter skips it (no user turn holds the answer).
  EXPECT_EQ((*report)["config"]["data"]["questions_read"], 1);
  EXPECT_EQ((*report)["config"]["data"]["skipped_no_answer_user_turn"], 1);
  EXPECT_EQ((*report)["config"]["data"]["skipped_abstention"], 0);
  EXPECT_EQ((*report)["questions"], 0);
  options.only = {"q1"};
  const StatusOr<io::Json> q1 = RunLongMemEvalBench(options);
  ASSERT_THAT(q1, IsOk());
  EXPECT_EQ((*q1)["questions"], 1);
  EXPECT_EQ((*q1)["config"]["data"]["questions_read"], 1);
  EXPECT_EQ((*q1)["config"]["data"]["only"], io::Json::parse(R"(["q1"])"));

  options.only = {"q9"};
  EXPECT_THAT(RunLongMemEvalBench(options),
              StatusIs(StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("no question q9 in"), HasSubstr("3: q1, q2_abs, q3"))));
}

// ---------------------------------------------------------------------------------------------
// Synthetic workload.

TEST(SyntheticTest, SameSeedSameTextOtherSeedOtherText) {
  SyntheticText a(7);
  SyntheticText b(7);
  SyntheticText c(8);
  std::string text_a;
  std::string text_b;
  std::string text_c;
  for (int sentence_idx = 0; sentence_idx < 50; ++sentence_idx) {
    text_a += a.Sentence() + a.Question();
    text_b += b.Sentence() + b.Question();
    text_c += c.Sentence() + c.Question();
  }
  EXPECT_EQ(text_a, text_b);
  EXPECT_NE(text_a, text_c);
  // SplitMix64 from seed 0: the reference sequence starts with 0xE220A8397B1DCDAF.
  SyntheticText zero(0);
  EXPECT_EQ(zero.Next(), 0xE220A8397B1DCDAFULL);
}

TEST(SyntheticTest, SessionAlternatesSpeakersWithTimesAndMetadata) {
  SyntheticText text(1);
  const std::vector<Turn> session = text.Session(4, "session_9", Timestamp::FromSeconds(100));
  ASSERT_EQ(session.size(), 4u);
  EXPECT_EQ(session[0].role, Role::kUser);
  EXPECT_EQ(session[1].role, Role::kAssistant);
  EXPECT_EQ(session[0].speaker, session[2].speaker);
  EXPECT_NE(session[0].speaker, session[1].speaker);
  EXPECT_EQ(session[3].session_id, "session_9");
  EXPECT_EQ(session[3].event_time, Timestamp::FromSeconds(100 + 3 * 60));
  EXPECT_EQ(session[3].metadata_json, "{\"turn_index\":4}");
  EXPECT_THAT(session[2].text, Not(IsEmpty()));
}

TEST(PerfTest, SmallWorkloadReportsEveryFigure) {
  PerfOptions options;
  options.memories = 150;
  options.scopes = 3;
  options.session_turns = 20;
  options.queries = 12;
  const StatusOr<io::Json> report = RunPerf(options);
  ASSERT_THAT(report, IsOk());
  EXPECT_EQ((*report)["ingest"]["turns"], 150);
  EXPECT_EQ((*report)["workload"]["sessions"], 8);  // 7 of 20 turns and one of 10
  EXPECT_GT((*report)["ingest"]["turns_per_s"].get<double>(), 0);
  // Two-phase writes by default: acknowledged, then derived by the worker.
  const io::Json& ingest = (*report)["ingest"];
  EXPECT_EQ(ingest["wait"], "indexed");
  EXPECT_THAT(Keys(ingest["acknowledged"]),
              ElementsAre("seconds", "turns_per_s", "cpu_seconds", "remember_cpu_seconds"));
  EXPECT_THAT(Keys(ingest["derived"]), ElementsAre("seconds", "turns_per_s", "cpu_seconds"));
  for (const char* phase : {"acknowledged", "derived"}) {
    EXPECT_GT(ingest[phase]["turns_per_s"].get<double>(), 0) << phase;
  }
  // The derived phase includes the acknowledged one; the first recalls come after both.
  EXPECT_LE(ingest["acknowledged"]["seconds"].get<double>(),
            ingest["derived"]["seconds"].get<double>());
  EXPECT_LE(ingest["derived"]["seconds"].get<double>(), ingest["seconds"].get<double>());
  ExpectTailPercentiles((*report)["latency_ms"]);
  EXPECT_GT((*report)["store_bytes"].get<std::uint64_t>(), 0u);
  EXPECT_DOUBLE_EQ((*report)["store_bytes_per_turn"].get<double>(),
                   (*report)["store_bytes"].get<double>() / 150);
  ExpectTailPercentiles((*report)["cpu_ms"]);
  EXPECT_EQ((*report)["config"]["embedder"], "use-lite@0.2.0");
  // The primitives underneath, on the same turns and questions.
  const io::Json& fts5 = (*report)["primitives"]["fts5"];
  EXPECT_EQ(fts5["k"], 100);  // [recall] route_candidates
  ExpectTailPercentiles(fts5["latency_ms"]);
  EXPECT_GT(fts5["rows_mean"].get<double>(), 0);
  const io::Json& hnswlib = (*report)["primitives"]["hnswlib"];
  // Every turn's vector: the worker had embedded them all before the report was made.
  EXPECT_EQ(hnswlib["vectors_indexed"], 150);
  EXPECT_EQ(hnswlib["dimension"], 512);
  EXPECT_EQ(hnswlib["max_neighbors"], 32);
  EXPECT_THAT(hnswlib["vectors"].get<std::string>(), HasSubstr("use-lite@0.2.0"));
  EXPECT_THAT(hnswlib["engram_vector_index"].get<std::string>(), HasSubstr("exact"));
  ExpectTailPercentiles(hnswlib["latency_ms"]);
  // engram's time over each primitive's, wall and CPU (timings: only the shape is known here).
  EXPECT_THAT(Keys((*report)["ratios"]), ElementsAre("fts5", "hnswlib", "fts5_plus_hnswlib"));
  for (const char* name : {"fts5", "fts5_plus_hnswlib", "hnswlib"}) {
    EXPECT_THAT(Keys((*report)["ratios"][name]),
                ElementsAre("latency_p50", "latency_p95", "cpu_p50", "cpu_p95"))
        << name;
  }

  options.queries = 0;
  EXPECT_THAT(RunPerf(options), StatusIs(StatusCode::kInvalidArgument));
}

TEST(PerfTest, WithoutStoredVectorsHnswlibUsesHashingVectorsAndSaysSo) {
  TempDir dir;
  PerfOptions options;
  options.memories = 60;
  options.scopes = 2;
  options.queries = 5;
  options.config_file = dir.File("none.toml", "[embedder]\nkind = \"none\"\n");
  const StatusOr<io::Json> report = RunPerf(options);
  ASSERT_THAT(report, IsOk());
  EXPECT_EQ((*report)["config"]["embedder"], "none");
  const io::Json& hnswlib = (*report)["primitives"]["hnswlib"];
  EXPECT_EQ(hnswlib["vectors_indexed"], 60);
  EXPECT_EQ(hnswlib["dimension"], 256);
  EXPECT_THAT(hnswlib["vectors"].get<std::string>(), HasSubstr("store holds no vectors"));
  EXPECT_THAT(hnswlib["vectors"].get<std::string>(), HasSubstr("hashing-256"));
  EXPECT_EQ(hnswlib["engram_vector_index"], "none");
}

// Synchronous writes (--wait derived) leave the worker nothing: the derived phase ends with the
// acknowledged one, and the store holds the same turns and vectors.
TEST(PerfTest, SynchronousWritesAreDerivedWhenAcknowledged) {
  PerfOptions options;
  options.memories = 60;
  options.scopes = 2;
  options.queries = 4;
  options.embedder_kind = "hashing";
  options.ingest_wait = RememberWait::kDerived;
  const StatusOr<io::Json> synchronous = RunPerf(options);
  ASSERT_THAT(synchronous, IsOk());
  EXPECT_EQ((*synchronous)["ingest"]["wait"], "derived");
  EXPECT_EQ((*synchronous)["ingest"]["turns"], 60);
  EXPECT_EQ((*synchronous)["primitives"]["hnswlib"]["vectors_indexed"], 60);
  options.ingest_wait = RememberWait::kDurable;
  const StatusOr<io::Json> two_phase = RunPerf(options);
  ASSERT_THAT(two_phase, IsOk());
  EXPECT_EQ((*two_phase)["ingest"]["wait"], "durable");
  EXPECT_EQ((*two_phase)["primitives"]["hnswlib"]["vectors_indexed"], 60);
  // The same recalls over the same derived store: the same contexts.
  EXPECT_EQ((*two_phase)["context_tokens"], (*synchronous)["context_tokens"]);
}

// A workload larger than the back-pressure limit ([write] max_pending_turns) is not refused half
// way: a write told to retry waits for the derivation, as a client would, and every turn is stored.
TEST(PerfTest, AWorkloadAboveTheBackPressureLimitWaitsAndStoresEveryTurn) {
  TempDir dir;
  PerfOptions options;
  options.memories = 80;
  options.scopes = 1;
  options.session_turns = 20;
  options.queries = 2;
  options.embedder_kind = "hashing";
  options.ingest_wait = RememberWait::kDurable;
  options.config_file = dir.File("limit.toml", "[write]\nmax_pending_turns = 10\n");
  const StatusOr<io::Json> report = RunPerf(options);
  ASSERT_THAT(report, IsOk());
  EXPECT_EQ((*report)["ingest"]["turns"], 80);
  EXPECT_EQ((*report)["primitives"]["hnswlib"]["vectors_indexed"], 80);
}

// A kept store is timed again without ingesting (the same seed gives the same turns); a store
// of another workload is refused.
TEST(PerfTest, ReusedStoreIsTimedWithoutIngest) {
  TempDir dir;
  PerfOptions options;
  options.memories = 70;
  options.scopes = 2;
  options.queries = 6;
  options.embedder_kind = "hashing";
  options.store_path = dir.File("perf.db");
  const StatusOr<io::Json> built = RunPerf(options);
  ASSERT_THAT(built, IsOk());
  EXPECT_EQ((*built)["config"]["embedder"], "hashing-256");
  EXPECT_EQ((*built)["ingest"]["turns"], 70);
  EXPECT_EQ((*built)["workload"]["reused_store"], false);

  EXPECT_THAT(RunPerf(options), StatusIs(StatusCode::kAlreadyExists));
  options.reuse_store = true;
  const StatusOr<io::Json> reused = RunPerf(options);
  ASSERT_THAT(reused, IsOk());
  EXPECT_EQ((*reused)["workload"]["reused_store"], true);
  EXPECT_EQ((*reused)["ingest"]["reused"], true);
  EXPECT_FALSE((*reused)["ingest"].contains("turns_per_s"));
  // The same recalls over the same store: the same contexts.
  EXPECT_EQ((*reused)["context_tokens"], (*built)["context_tokens"]);
  EXPECT_EQ((*reused)["primitives"]["hnswlib"]["vectors_indexed"], 70);

  options.memories = 80;
  EXPECT_THAT(RunPerf(options), StatusIs(StatusCode::kFailedPrecondition));
}

TEST(PrimitivesTest, Fts5MatchesTheQuestionsContentWordsRankedByBm25) {
  EXPECT_EQ(Fts5Primitive::MatchExpression("Where did Maya's \"dog\" go hiking?"),
            "\"maya\" OR \"dog\" OR \"go\" OR \"hiking\"");
  EXPECT_EQ(Fts5Primitive::MatchExpression("Who is it?"), "");
  StatusOr<std::unique_ptr<Fts5Primitive>> fts = Fts5Primitive::Create(2);
  ASSERT_THAT(fts, IsOk());
  ASSERT_THAT((*fts)->Add(0, "Maya", "I went hiking in Porto."), IsOk());
  ASSERT_THAT((*fts)->Add(0, "Leo", "The dog barked all night."), IsOk());
  ASSERT_THAT((*fts)->Add(0, "Leo", "We cooked pasta."), IsOk());
  ASSERT_THAT((*fts)->Add(1, "Maya", "Hiking again tomorrow."), IsOk());
  ASSERT_THAT((*fts)->Finish(), IsOk());
  // Porter stemming on FTS5's side: "hikes" finds "hiking"; scope 1's turn is not in scope 0.
  EXPECT_THAT((*fts)->Search(0, "Who hikes?", 10), IsOkAndHolds(1u));
  EXPECT_THAT((*fts)->Search(0, "Where did Maya's dog go hiking?", 10), IsOkAndHolds(2u));
  EXPECT_THAT((*fts)->Search(0, "Where did Maya's dog go hiking?", 1), IsOkAndHolds(1u));
  EXPECT_THAT((*fts)->Search(1, "hiking", 10), IsOkAndHolds(1u));
  EXPECT_THAT((*fts)->Search(0, "Who is it?", 10), IsOkAndHolds(0u));
  EXPECT_THAT((*fts)->Search(2, "hiking", 10), StatusIs(StatusCode::kInvalidArgument));
}

TEST(PrimitivesTest, HnswlibFindsTheNearestVectorsPerScope) {
  EXPECT_THAT(HnswPrimitive::Create({.dimension = 0}, 1), StatusIs(StatusCode::kInvalidArgument));
  StatusOr<std::unique_ptr<HnswPrimitive>> hnsw = HnswPrimitive::Create({.dimension = 2}, 2);
  ASSERT_THAT(hnsw, IsOk());
  // More than the initial capacity of 1024, so the graph has to grow.
  for (std::uint64_t label = 0; label < 1500; ++label) {
    const float angle = static_cast<float>(label) * 0.001F;
    const std::vector<float> unit = {std::cos(angle), std::sin(angle)};
    ASSERT_THAT((*hnsw)->Add(0, label, unit), IsOk());
  }
  ASSERT_THAT((*hnsw)->Add(1, 7, std::vector<float>{1, 0}), IsOk());
  EXPECT_EQ((*hnsw)->size(0), 1500u);
  EXPECT_EQ((*hnsw)->size(1), 1u);
  const std::vector<float> query = {1, 0};
  EXPECT_THAT((*hnsw)->Search(0, query, 10), IsOkAndHolds(10u));
  EXPECT_THAT((*hnsw)->Search(1, query, 10), IsOkAndHolds(1u));
  EXPECT_THAT((*hnsw)->Add(0, 9999, std::vector<float>{1, 0, 0}),
              StatusIs(StatusCode::kInvalidArgument));
  EXPECT_THAT((*hnsw)->Search(5, query, 1), StatusIs(StatusCode::kInvalidArgument));
}

// ---------------------------------------------------------------------------------------------
// Progress output.

TEST(ProgressTest, LogLinesWhenNotATerminalAndNothingWhenSilent) {
  std::ostringstream out;
  Progress progress(&out, /*interactive=*/false, "locomo", "conversations", 2, 10);
  progress.StartGroup("conv-1");
  for (int question_idx = 0; question_idx < 10; ++question_idx) progress.QuestionDone();
  progress.Finish();
  EXPECT_THAT(out.str(), HasSubstr("locomo: conversations 1/2 (conv-1), 0/10 questions"));
  EXPECT_THAT(out.str(), HasSubstr("locomo: 10/10 questions"));
  EXPECT_THAT(out.str(), HasSubstr("locomo: 10 questions in 0:00"));

  Progress silent(nullptr, false, "x", "groups", 1, 1);
  silent.StartGroup("g");
  silent.QuestionDone();
  silent.Finish();  // nothing to check but that it does not crash
}

}  // namespace
}  // namespace engram::eval
