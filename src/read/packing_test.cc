// Packing: the budget, duplicates skipped, and the context's order (time, or grouped by the
// people a question names).
#include "read/packing.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

namespace engram::read {
namespace {

RecallItem Turn(std::string id, std::string speaker, std::string text, std::string_view time) {
  RecallItem item;
  item.id = id;
  item.kind = NodeKind::kTurn;
  item.speaker = std::move(speaker);
  item.text = std::move(text);
  item.event_time = *ParseTimestamp(time);
  item.provenance = {std::move(id)};
  return item;
}

RecallItem Fact(std::string id, std::string text, std::vector<std::string> provenance,
                std::string_view time) {
  RecallItem item;
  item.id = std::move(id);
  item.kind = NodeKind::kFact;
  item.speaker = "Caroline";
  item.text = std::move(text);
  item.event_time = *ParseTimestamp(time);
  item.provenance = std::move(provenance);
  return item;
}

std::vector<std::string> Ids(const PackResult& packed) {
  std::vector<std::string> ids;
  for (const RecallItem& item : packed.items) ids.push_back(item.id);
  return ids;
}

TEST(PackTest, SkipsRepeatedTurnsAndFactsWhoseTurnsArePacked) {
  const std::vector<RecallItem> ranked = {
      Turn("t1", "Caroline", "I moved to Lisbon.", "2024-05-01T10:00:00Z"),
      Fact("f1", "Caroline lives_in Lisbon", {"t1"}, "2024-05-01T10:00:00Z"),
      Turn("t2", "Melanie", "Nice!", "2024-05-01T10:01:00Z"),
      Turn("t3", "Caroline", "I moved to Lisbon.", "2024-05-02T10:00:00Z"),  // same words again
      Fact("f2", "Caroline works_at a bakery", {"t9"}, "2024-05-03T10:00:00Z"),
      Fact("f3", "Caroline likes NOT hiking", {"t1", "t9"}, "2024-05-03T10:00:00Z"),
  };
  const PackResult packed = Pack(ranked, 2000, 10);
  // f2 and f3 have evidence outside the context (t9), so they stay.
  EXPECT_THAT(Ids(packed), ::testing::ElementsAre("t1", "t2", "f2", "f3"));
  EXPECT_EQ(packed.deduplicated, 2u);
  EXPECT_EQ(packed.dropped_by_budget, 0u);
  EXPECT_EQ(packed.context_tokens, CountTokens(packed.context));

  // A skipped duplicate frees its slot for the next item.
  const PackResult three = Pack(ranked, 2000, 3);
  EXPECT_THAT(Ids(three), ::testing::ElementsAre("t1", "t2", "f2"));
}

TEST(PackTest, FactPackedBeforeItsTurnKeepsBoth) {
  const std::vector<RecallItem> ranked = {
      Fact("f1", "Caroline lives_in Lisbon", {"t1"}, "2024-05-01T10:00:00Z"),
      Turn("t1", "Caroline", "I moved to Lisbon.", "2024-05-01T10:00:00Z"),
  };
  const PackResult packed = Pack(ranked, 2000, 10);
  EXPECT_THAT(Ids(packed), ::testing::ElementsAre("f1", "t1"));
  EXPECT_EQ(packed.deduplicated, 0u);
}

TEST(PackTest, ContextIsInTimeOrderOrGroupedByTheAskedPeople) {
  const std::vector<RecallItem> ranked = {
      Turn("t3", "Melanie", "I paint on Sundays.", "2024-05-03T10:00:00Z"),
      Turn("t1", "Caroline", "I paint landscapes.", "2024-05-01T10:00:00Z"),
      Turn("t2", "Melanie", "Pottery is my thing.", "2024-05-02T10:00:00Z"),
      Turn("t4", "Jon", "I like both.", "2024-04-30T10:00:00Z"),
  };
  const std::string header = "Memories (evidence from earlier conversations):\n";
  const PackResult by_time = Pack(ranked, 2000, 10);
  EXPECT_EQ(by_time.context, header +
                                 "[2024-04-30 10:00]\nJon: I like both.\n"
                                 "[2024-05-01 10:00]\nCaroline: I paint landscapes.\n"
                                 "[2024-05-02 10:00]\nMelanie: Pottery is my thing.\n"
                                 "[2024-05-03 10:00]\nMelanie: I paint on Sundays.");
  PackOptions grouped;
  grouped.group_speakers = {"Melanie", "Caroline"};
  const PackResult by_person = Pack(ranked, 2000, 10, grouped);
  EXPECT_EQ(by_person.context, header +
                                   "[2024-05-02 10:00]\nMelanie: Pottery is my thing.\n"
                                   "[2024-05-03 10:00]\nMelanie: I paint on Sundays.\n"
                                   "[2024-05-01 10:00]\nCaroline: I paint landscapes.\n"
                                   "[2024-04-30 10:00]\nJon: I like both.");
  // The items stay in rank order; only the context is grouped.
  EXPECT_THAT(Ids(by_person), ::testing::ElementsAre("t3", "t1", "t2", "t4"));
  EXPECT_EQ(by_person.context_tokens, by_time.context_tokens);
}

// A turn of one session in another scope, at `time`, numbered `sequence`.
RecallItem SessionTurn(std::string id, std::string speaker, std::string session,
                       std::int64_t sequence, std::string_view time) {
  RecallItem item = Turn(id, std::move(speaker), "Turn " + id + " says something.", time);
  item.session_id = std::move(session);
  item.sequence = sequence;
  return item;
}

TEST(PackTest, TurnsOfASessionShareOneStampAndTheBudgetChargesItOnce) {
  const std::vector<RecallItem> ranked = {
      SessionTurn("a2", "Ann", "session_1", 2, "2024-05-01T10:00:00Z"),
      SessionTurn("b1", "Bob", "session_2", 1, "2024-05-08T09:30:00Z"),
      SessionTurn("a1", "Bob", "session_1", 1, "2024-05-01T10:00:00Z"),
      SessionTurn("a3", "Bob", "session_1", 3, "2024-05-01T10:00:00Z"),
  };
  const std::string header = "Memories (evidence from earlier conversations):";
  const std::string s1 = "[2024-05-01 10:00 · session_1]";
  const std::string s2 = "[2024-05-08 09:30 · session_2]";
  const PackResult packed = Pack(ranked, 2000, 10);
  EXPECT_EQ(packed.context, header + "\n" + s1 +
                                "\nBob: Turn a1 says something."
                                "\nAnn: Turn a2 says something."
                                "\nBob: Turn a3 says something.\n" +
                                s2 + "\nBob: Turn b1 says something.");
  EXPECT_EQ(packed.context_tokens, CountTokens(packed.context));
  // Each item's tokens are what it adds: its body, and the stamp for the first of a group.
  std::size_t sum = CountTokens(header);
  for (const RecallItem& item : packed.items) sum += item.tokens;
  EXPECT_EQ(sum, packed.context_tokens);
  const std::size_t body = CountTokens(RenderItemBody(ranked[0]));
  EXPECT_EQ(packed.items[0].tokens, body);  // a2 is second in its group
  EXPECT_EQ(packed.items[1].tokens, CountTokens(s2) + body);

  // A budget for the three turns of session_1 under one stamp, but not for three whole lines:
  // all three fit, and b1 (a new stamp) does not.
  const std::size_t budget = CountTokens(header) + CountTokens(s1) + 3 * body;
  ASSERT_LT(budget, CountTokens(header) + 3 * CountTokens(RenderItemLine(ranked[0])));
  const PackResult tight = Pack(ranked, budget, 10);
  EXPECT_THAT(Ids(tight), ::testing::ElementsAre("a2", "a1", "a3"));
  EXPECT_EQ(tight.dropped_by_budget, 1u);
  EXPECT_EQ(tight.context_tokens, budget);
  EXPECT_EQ(tight.context_tokens, CountTokens(tight.context));
  PackOptions by_value;
  by_value.by_value = true;
  EXPECT_THAT(Ids(Pack(ranked, budget, 10, by_value)), ::testing::ElementsAre("a2", "a1", "a3"));

  // Grouped by person, the session's stamp heads each person's block.
  PackOptions grouped;
  grouped.group_speakers = {"Ann"};
  const PackResult by_person = Pack(ranked, 2000, 10, grouped);
  EXPECT_EQ(by_person.context, header + "\n" + s1 + "\nAnn: Turn a2 says something.\n" + s1 +
                                   "\nBob: Turn a1 says something."
                                   "\nBob: Turn a3 says something.\n" +
                                   s2 + "\nBob: Turn b1 says something.");
  EXPECT_EQ(by_person.context_tokens, CountTokens(by_person.context));
}

TEST(PackTest, TwoSessionsStampedWithTheSameMinuteAreListedOnceEach) {
  // x1, y1, x2 interleave in time within one minute: x's stamp is still written once.
  const std::vector<RecallItem> ranked = {
      SessionTurn("x1", "Ann", "x", 1, "2024-05-01T10:00:10Z"),
      SessionTurn("y1", "Bob", "y", 1, "2024-05-01T10:00:20Z"),
      SessionTurn("x2", "Ann", "x", 2, "2024-05-01T10:00:30Z"),
  };
  const PackResult packed = Pack(ranked, 2000, 10);
  EXPECT_EQ(packed.context,
            "Memories (evidence from earlier conversations):\n[2024-05-01 10:00 · x]"
            "\nAnn: Turn x1 says something.\nAnn: Turn x2 says something."
            "\n[2024-05-01 10:00 · y]\nBob: Turn y1 says something.");
  EXPECT_EQ(packed.context_tokens, CountTokens(packed.context));
}

TEST(PackTest, BudgetSkipsItemsThatDoNotFit) {
  const std::vector<RecallItem> ranked = {
      Turn("t1", "Caroline", std::string(400, 'a'), "2024-05-01T10:00:00Z"),
      Turn("t2", "Melanie", "Short.", "2024-05-02T10:00:00Z"),
  };
  const PackResult packed = Pack(ranked, 40, 10);
  EXPECT_THAT(Ids(packed), ::testing::ElementsAre("t2"));
  EXPECT_EQ(packed.dropped_by_budget, 1u);
  EXPECT_LE(packed.context_tokens, 40u);
}

// A turn too long for the budget comes back as a bounded excerpt around the query's matches,
// marked with its byte offsets, instead of being dropped.
TEST(PackTest, ExcerptsATurnTooLongForTheBudgetAroundItsMatches) {
  std::string text(20000, 'x');
  for (std::size_t pos = 100; pos < text.size(); pos += 100) text[pos] = ' ';
  const std::size_t match = 15000;
  text.replace(match, 6, "Lisbon");
  const std::vector<RecallItem> ranked = {Turn("t1", "Caroline", text, "2024-05-01T10:00:00Z")};
  PackOptions options;
  options.excerpt_bytes = 500;
  options.match_spans = [](std::string_view turn_text) {
    std::vector<std::pair<std::size_t, std::size_t>> spans;
    for (std::size_t pos = turn_text.find("Lisbon"); pos != std::string_view::npos;
         pos = turn_text.find("Lisbon", pos + 1)) {
      spans.emplace_back(pos, pos + 6);
    }
    return spans;
  };
  const PackResult packed = Pack(ranked, 2000, 10, options);
  ASSERT_THAT(Ids(packed), ::testing::ElementsAre("t1"));
  const RecallItem& item = packed.items[0];
  EXPECT_TRUE(item.excerpt);
  EXPECT_EQ(item.full_bytes, text.size());
  EXPECT_LE(item.excerpt_end - item.excerpt_begin, 500u);
  EXPECT_LE(item.excerpt_begin, match);
  EXPECT_GE(item.excerpt_end, match + 6);
  EXPECT_EQ(item.text, text.substr(item.excerpt_begin, item.excerpt_end - item.excerpt_begin));
  EXPECT_THAT(item.text, ::testing::HasSubstr("Lisbon"));
  EXPECT_THAT(packed.context,
              ::testing::HasSubstr("(excerpt, bytes " + std::to_string(item.excerpt_begin) + "-" +
                                   std::to_string(item.excerpt_end) + " of 20000)"));
  EXPECT_EQ(packed.dropped_by_budget, 0u);
  EXPECT_EQ(packed.context_tokens, CountTokens(packed.context));

  // Without excerpts (the default) the turn does not fit and is dropped, as before.
  EXPECT_EQ(Pack(ranked, 2000, 10).dropped_by_budget, 1u);
}

TEST(PackTest, RankPackingListsWhatItLeftOutAndWhy) {
  const std::vector<RecallItem> ranked = {
      Turn("t1", "Caroline", "I moved to Lisbon.", "2024-05-01T10:00:00Z"),
      Turn("t2", "Caroline", "I moved to Lisbon.", "2024-05-02T10:00:00Z"),
      Turn("t3", "Melanie", std::string(400, 'a'), "2024-05-03T10:00:00Z"),
      Turn("t4", "Melanie", "Nice.", "2024-05-04T10:00:00Z"),
      Turn("t5", "Melanie", "Later.", "2024-05-05T10:00:00Z"),
  };
  const PackResult packed = Pack(ranked, 60, 2);
  EXPECT_THAT(Ids(packed), ::testing::ElementsAre("t1", "t4"));
  // t5 is below the last item examined (k was reached at t4): not listed.
  ASSERT_EQ(packed.unpacked.size(), 2u);
  EXPECT_EQ(packed.unpacked[0].id, "t2");
  EXPECT_EQ(packed.unpacked[0].rank, 2u);
  EXPECT_EQ(packed.unpacked[0].reason, "duplicate");
  EXPECT_EQ(packed.unpacked[1].id, "t3");
  EXPECT_EQ(packed.unpacked[1].reason, "budget");
}

// Hand-built items for value packing: a turn of `session` with a score and a sequence number.
RecallItem Scored(std::string id, std::string session, std::int64_t sequence, double score,
                  std::string text = "Some words here.") {
  RecallItem item = Turn(std::move(id), "Ann", std::move(text), "2024-05-01T10:00:00Z");
  item.session_id = std::move(session);
  item.sequence = sequence;
  item.score = score;
  item.text += " #" + item.id;  // distinct texts: no duplicates unless a test wants them
  return item;
}

PackOptions ByValue() {
  PackOptions options;
  options.by_value = true;
  options.min_tokens = 48;  // every short line costs the same: value order is score order
  return options;
}

std::vector<std::string> Reasons(const PackResult& packed) {
  std::vector<std::string> reasons;
  for (const UnpackedItem& item : packed.unpacked) reasons.push_back(item.id + ":" + item.reason);
  return reasons;
}

TEST(PackByValueTest, ItemsBelowTheFloorAreLeftOutAndKIsAnUpperBound) {
  const std::vector<RecallItem> ranked = {Scored("a", "s1", 1, 1.0), Scored("b", "s1", 5, 0.5),
                                          Scored("c", "s2", 9, 0.36), Scored("d", "s2", 12, 0.34),
                                          Scored("e", "s3", 20, 0.1)};
  PackOptions options = ByValue();
  options.floor = 0.35;  // 0.35: c (0.36) is in, d (0.34) and e are out
  const PackResult packed = Pack(ranked, 2000, 10, options);
  EXPECT_THAT(Ids(packed), ::testing::ElementsAre("a", "b", "c"));
  EXPECT_THAT(Reasons(packed), ::testing::ElementsAre("d:floor", "e:floor"));
  // k = 2 is reached before c: c is left out by k.
  const PackResult two = Pack(ranked, 2000, 2, options);
  EXPECT_THAT(Ids(two), ::testing::ElementsAre("a", "b"));
  EXPECT_THAT(Reasons(two), ::testing::ElementsAre("c:k", "d:floor", "e:floor"));
  // Floor 0: everything is a candidate.
  options.floor = 0;
  EXPECT_EQ(Pack(ranked, 2000, 10, options).items.size(), 5u);
}

TEST(PackByValueTest, ARoutesFirstCandidateIsNotLeftOutByTheFloor) {
  // f is the facts route's first and only candidate: fused from one route, it scores below the
  // floor, yet it is the best thing that route found.
  std::vector<RecallItem> ranked = {Scored("a", "s1", 1, 1.0), Scored("f", "", 0, 0.2),
                                    Scored("e", "s3", 20, 0.1)};
  ranked[0].routes = {{"bm25", 1, 0.7, ""}, {"facts", 2, 0.5, ""}};
  ranked[1].routes = {{"facts", 1, 0.9, ""}};
  ranked[2].routes = {{"bm25", 2, 0.3, ""}};
  PackOptions options = ByValue();
  options.floor = 0.3;
  const PackResult packed = Pack(ranked, 2000, 10, options);
  EXPECT_THAT(Ids(packed), ::testing::UnorderedElementsAre("a", "f"));
  EXPECT_THAT(Reasons(packed), ::testing::ElementsAre("e:floor"));
}

TEST(PackByValueTest, AFactTakenBeforeItsLongTurnIsDroppedOnceTheTurnIsPacked) {
  // The fact is short, so it has more value per token than the long turn it was read from and
  // is taken first (after the best item, which is always packed first); the turn follows, and
  // then the fact only repeats it.
  std::vector<RecallItem> ranked = {
      Scored("a", "s2", 1, 1.0), Scored("t", "s1", 1, 0.95, std::string(400, 'x')),
      Fact("f", "Ann visited Zanzibar", {"t"}, "2024-05-01T10:00:00Z")};
  ranked[2].score = 0.9;
  const PackResult packed = Pack(ranked, 2000, 10, ByValue());
  EXPECT_THAT(Ids(packed), ::testing::ElementsAre("a", "t"));
  EXPECT_THAT(Reasons(packed), ::testing::ElementsAre("f:duplicate"));
  EXPECT_EQ(packed.deduplicated, 1u);
  EXPECT_EQ(packed.context_tokens, CountTokens(packed.context));
}

TEST(PackByValueTest, MostValuePerTokenFirstUnderATightBudget) {
  // a is the best item but long (about 120 tokens); b and c are short. The budget holds b and
  // c, not a: a is tried first (the best item always is) and left out, without excerpts.
  const std::string long_text(480, 'x');
  const std::vector<RecallItem> ranked = {Scored("a", "s1", 1, 1.0, long_text),
                                          Scored("b", "s2", 5, 0.8), Scored("c", "s3", 9, 0.7)};
  PackOptions options = ByValue();
  options.min_tokens = 1;
  const std::size_t header = CountTokens("Memories (evidence from earlier conversations):");
  const std::size_t short_line = CountTokens(RenderItemLine(ranked[1]));
  const std::size_t budget = header + 2 * short_line + 5;
  ASSERT_GT(CountTokens(RenderItemLine(ranked[0])), budget - header);
  // a does not fit; then b: 0.8 / ~10 tokens before c: 0.7 / ~10 tokens.
  const PackResult packed = Pack(ranked, budget, 10, options);
  EXPECT_THAT(Ids(packed), ::testing::ElementsAre("b", "c"));  // returned in rank order
  EXPECT_THAT(Reasons(packed), ::testing::ElementsAre("a:budget"));
  EXPECT_EQ(packed.dropped_by_budget, 1u);
  // Rank packing takes a first, and then nothing else fits.
  const PackResult by_rank = Pack(ranked, header + CountTokens(RenderItemLine(ranked[0])), 10);
  EXPECT_THAT(Ids(by_rank), ::testing::ElementsAre("a"));
}

TEST(PackByValueTest, AScorePowerLetsAStrongLongItemBeatAWeakShortOne) {
  // After the best item x (always packed first), a scores 0.9 of it and is 3 to 5 times as
  // long as b, which scores 0.4. The budget left holds one of them. By value per token b wins
  // (0.4 / ~45 > 0.9 / ~155); with the value squared relative to the best (0.16 / ~45 <
  // 0.81 / ~155), a does.
  const std::vector<RecallItem> ranked = {Scored("x", "s0", 1, 1.0),
                                          Scored("a", "s1", 1, 0.9, std::string(560, 'x')),
                                          Scored("b", "s2", 5, 0.4, std::string(120, 'y'))};
  PackOptions options = ByValue();
  options.min_tokens = 1;
  const std::size_t header = CountTokens("Memories (evidence from earlier conversations):");
  const std::size_t best_line = CountTokens(RenderItemLine(ranked[0]));
  const std::size_t long_line = CountTokens(RenderItemLine(ranked[1]));
  const std::size_t short_line = CountTokens(RenderItemLine(ranked[2]));
  ASSERT_GT(long_line, 3 * short_line);
  ASSERT_LT(long_line, 5 * short_line);
  // x, and one of the two.
  const std::size_t budget = header + best_line + long_line + short_line / 2;
  const PackResult per_token = Pack(ranked, budget, 10, options);
  EXPECT_THAT(Ids(per_token), ::testing::ElementsAre("x", "b"));
  EXPECT_THAT(Reasons(per_token), ::testing::ElementsAre("a:budget"));
  options.score_power = 2;
  const PackResult squared = Pack(ranked, budget, 10, options);
  EXPECT_THAT(Ids(squared), ::testing::ElementsAre("x", "a"));
  EXPECT_THAT(Reasons(squared), ::testing::ElementsAre("b:budget"));
  // Power 1 is value per token itself.
  options.score_power = 1;
  EXPECT_THAT(Ids(Pack(ranked, budget, 10, options)), ::testing::ElementsAre("x", "b"));
}

TEST(PackByValueTest, SessionDiscountSpreadsTheContextOverSessions) {
  // Two strong turns of session s1, a weaker one of s2; room for two items.
  const std::vector<RecallItem> ranked = {Scored("a1", "s1", 1, 1.0), Scored("a2", "s1", 7, 0.9),
                                          Scored("b1", "s2", 30, 0.6)};
  PackOptions options = ByValue();
  EXPECT_THAT(Ids(Pack(ranked, 2000, 2, options)), ::testing::ElementsAre("a1", "a2"));
  // Discount 1: once a1 is packed, a2 is worth 0.9 / 2 = 0.45 < 0.6.
  options.session_discount = 1.0;
  const PackResult spread = Pack(ranked, 2000, 2, options);
  EXPECT_THAT(Ids(spread), ::testing::ElementsAre("a1", "b1"));
  EXPECT_THAT(Reasons(spread), ::testing::ElementsAre("a2:k"));
  // The same session in another scope is another session.
  std::vector<RecallItem> scoped = ranked;
  scoped[1].scope = "world:other";
  EXPECT_THAT(Ids(Pack(scoped, 2000, 2, options)), ::testing::ElementsAre("a1", "a2"));
}

TEST(PackByValueTest, TheTurnNextToAPackedHitGainsAShareOfItsScore) {
  // b is the reply right after a (same session, next sequence number), c is elsewhere.
  const std::vector<RecallItem> ranked = {Scored("a", "s1", 5, 1.0), Scored("c", "s2", 40, 0.5),
                                          Scored("b", "s1", 6, 0.45), Scored("d", "s1", 8, 0.44)};
  PackOptions options = ByValue();
  EXPECT_THAT(Ids(Pack(ranked, 2000, 2, options)), ::testing::ElementsAre("a", "c"));
  // Share 0.2: b is worth 0.45 + 0.2 x 1.0 = 0.65 > 0.5; d (two turns away) gains nothing.
  options.adjacent_share = 0.2;
  EXPECT_THAT(Ids(Pack(ranked, 2000, 2, options)), ::testing::ElementsAre("a", "b"));
  EXPECT_THAT(Ids(Pack(ranked, 2000, 3, options)), ::testing::ElementsAre("a", "c", "b"));
}

TEST(PackByValueTest, DuplicatesAndTiesAreDecidedByRank) {
  std::vector<RecallItem> ranked = {Scored("a", "s1", 1, 0.5), Scored("b", "s2", 2, 0.5),
                                    Scored("c", "s3", 3, 0.5)};
  ranked[2].text = ranked[0].text;  // c repeats a's words
  const PackResult packed = Pack(ranked, 2000, 2, ByValue());
  // Equal value per token: a before b; c would be a duplicate but k is reached first.
  EXPECT_THAT(Ids(packed), ::testing::ElementsAre("a", "b"));
  EXPECT_THAT(Reasons(packed), ::testing::ElementsAre("c:k"));
  const PackResult three = Pack(ranked, 2000, 3, ByValue());
  EXPECT_THAT(Ids(three), ::testing::ElementsAre("a", "b"));
  EXPECT_THAT(Reasons(three), ::testing::ElementsAre("c:duplicate"));
  EXPECT_EQ(three.deduplicated, 1u);
  EXPECT_EQ(three.context_tokens, CountTokens(three.context));
}

// Issue 37: value per token let a long best match lose to short weak lines. The probe's ranking:
// one turn holds the query's word (score 0.330), short turns that hold none follow (0.163 and
// less, found by the vector route), under the default value-packing settings and a 2,000-token
// budget.
std::string MatchingText(std::size_t bytes) {
  const std::string_view filler = "The road went on past the fields and the old mill. ";
  const std::string_view match = "We sailed to Zanzibar in May. ";
  std::string text;
  while (text.size() + match.size() < bytes * 3 / 5) text += filler;
  text += match;
  while (text.size() < bytes) text += filler;
  text.resize(bytes);
  return text;
}

std::vector<std::pair<std::size_t, std::size_t>> ZanzibarSpans(std::string_view text) {
  std::vector<std::pair<std::size_t, std::size_t>> spans;
  for (std::size_t pos = text.find("Zanzibar"); pos != std::string_view::npos;
       pos = text.find("Zanzibar", pos + 1)) {
    spans.emplace_back(pos, pos + 8);
  }
  return spans;
}

std::vector<RecallItem> ProbeRanking(const std::string& matching_text) {
  std::vector<RecallItem> ranked = {
      Scored("m", "s1", 4, 0.330, matching_text), Scored("cat", "s2", 1, 0.163, "The cat sleeps."),
      Scored("b", "s3", 1, 0.150, "We bought curtains."), Scored("c", "s4", 1, 0.140, "Tea?"),
      Scored("d", "s5", 1, 0.120, "The bakery opens at seven.")};
  ranked[0].text = matching_text;  // as given, without Scored's id mark
  ranked[0].routes = {{"bm25", 1, 2.1, ""}, {"vector", 5, 0.1, ""}};
  for (std::size_t item_idx = 1; item_idx < ranked.size(); ++item_idx) {
    ranked[item_idx].routes = {{"vector", item_idx, 0.5, ""}};
  }
  return ranked;
}

PackOptions ProbeOptions() {
  PackOptions options;  // [recall] defaults
  options.by_value = true;
  options.floor = 0.22;
  options.min_tokens = 48;
  options.score_power = 2;
  options.excerpt_bytes = 1024;
  options.match_spans = ZanzibarSpans;
  return options;
}

TEST(PackByValueTest, TheBestMatchIsPackedAtEveryLengthAsAnExcerptWhenItDoesNotFit) {
  constexpr std::size_t kBudget = 2000;
  // About 4 bytes a token: up to 1.5 KB the turn fits the budget whole, from 10 KB on it does
  // not and is packed as an excerpt of at most 1,024 bytes around "Zanzibar".
  const std::vector<std::pair<std::size_t, bool>> sizes = {
      {100, false}, {1'500, false}, {10'000, true}, {100'000, true}, {250'000, true}};
  for (const auto& [bytes, excerpted] : sizes) {
    const std::string text = MatchingText(bytes);
    ASSERT_EQ(text.size(), bytes);
    const std::vector<RecallItem> ranked = ProbeRanking(text);
    // k 1: the best match, not the short line of most value per token. k 3: the best match, the
    // vector route's first item (also always packed), then the best of the rest by value.
    for (const std::size_t k : {std::size_t{1}, std::size_t{3}}) {
      SCOPED_TRACE("turn of " + std::to_string(bytes) + " bytes, k " + std::to_string(k));
      const PackResult packed = Pack(ranked, kBudget, k, ProbeOptions());
      if (k == 1) {
        EXPECT_THAT(Ids(packed), ::testing::ElementsAre("m"));
      } else {
        EXPECT_THAT(Ids(packed), ::testing::ElementsAre("m", "cat", "b"));
      }
      ASSERT_FALSE(packed.items.empty());
      const RecallItem& item = packed.items[0];
      ASSERT_EQ(item.id, "m");
      EXPECT_EQ(item.excerpt, excerpted);
      EXPECT_THAT(item.text, ::testing::HasSubstr("We sailed to Zanzibar"));
      if (excerpted) {
        // Provenance-carrying: the bytes it holds, of which whole text, and the context says so.
        EXPECT_EQ(item.full_bytes, bytes);
        EXPECT_LE(item.excerpt_end - item.excerpt_begin, 1024u);
        EXPECT_EQ(item.text,
                  text.substr(item.excerpt_begin, item.excerpt_end - item.excerpt_begin));
        EXPECT_THAT(packed.context,
                    ::testing::HasSubstr("(excerpt, bytes " + std::to_string(item.excerpt_begin) +
                                         "-" + std::to_string(item.excerpt_end) + " of " +
                                         std::to_string(bytes) + ") "));
      } else {
        EXPECT_EQ(item.text, text);
      }
      EXPECT_LE(packed.context_tokens, kBudget);
      EXPECT_EQ(packed.context_tokens, CountTokens(packed.context));
    }
  }
}

TEST(PackByValueTest, TheBestItemIsPackedFirstWhateverItsLengthTheRestByValue) {
  // a, the best match, is long: by value per token every short line would come before it and k
  // would leave it out (issue 37). r1 and r2 are long and weak, each the first item of a route
  // that found little else: they are kept from the floor but wait for their value, since packing
  // every route's first item ahead of the rest spent the budget of long-turn conversations on
  // them.
  std::vector<RecallItem> ranked = {
      Scored("a", "s1", 1, 1.0, std::string(1500, 'x')), Scored("b", "s2", 1, 0.6),
      Scored("c", "s3", 1, 0.55), Scored("r1", "s4", 1, 0.3, std::string(1500, 'y')),
      Scored("d", "s5", 1, 0.28), Scored("r2", "s6", 1, 0.25, std::string(1500, 'z'))};
  ranked[0].routes = {{"bm25", 1, 3.0, ""}, {"vector", 1, 0.8, ""}};
  ranked[3].routes = {{"temporal", 1, 1.2, ""}};
  ranked[5].routes = {{"entity", 1, 0.9, ""}};
  PackOptions options = ByValue();
  options.score_power = 2;
  EXPECT_THAT(Ids(Pack(ranked, 2000, 1, options)), ::testing::ElementsAre("a"));
  const PackResult two = Pack(ranked, 2000, 2, options);
  EXPECT_THAT(Ids(two), ::testing::ElementsAre("a", "b"));
  EXPECT_THAT(Reasons(two), ::testing::ElementsAre("c:k", "r1:k", "d:k", "r2:k"));
  EXPECT_THAT(Ids(Pack(ranked, 2000, 4, options)), ::testing::ElementsAre("a", "b", "c", "d"));
  EXPECT_THAT(Ids(Pack(ranked, 2000, 6, options)),
              ::testing::ElementsAre("a", "b", "c", "r1", "d", "r2"));
  // Below the floor, a route's first item is still a candidate; other items are not.
  options.floor = 0.5;
  EXPECT_THAT(Ids(Pack(ranked, 2000, 6, options)),
              ::testing::ElementsAre("a", "b", "c", "r1", "r2"));
}

// Generated rankings with every reason to leave an item out (floor, duplicate, budget, k): the
// list of what was left out holds each such item once, in rank order.
TEST(PackByValueTest, WhatIsLeftOutIsListedOnceInRankOrder) {
  for (std::uint32_t seed = 0; seed < 40; ++seed) {
    std::mt19937 random(seed);
    std::vector<RecallItem> ranked;
    double score = 1.0;
    const std::size_t count = 5 + random() % 60;
    for (std::size_t item_idx = 0; item_idx < count; ++item_idx) {
      RecallItem item = Scored("i" + std::to_string(item_idx), "s" + std::to_string(random() % 5),
                               static_cast<std::int64_t>(random() % 200), score,
                               std::string(1 + random() % 300, 'w'));
      if (item_idx > 0 && random() % 6 == 0) {  // the same speaker and text as an earlier turn
        item.text = ranked[random() % ranked.size()].text;
      }
      ranked.push_back(std::move(item));
      score *= 0.8 + (random() % 20) / 100.0;
    }
    PackOptions options = ByValue();
    options.floor = 0.05;
    const std::size_t k = 1 + random() % 12;
    const PackResult packed = Pack(ranked, 200 + random() % 800, k, options);
    std::vector<std::size_t> ranks;
    for (const UnpackedItem& item : packed.unpacked) ranks.push_back(item.rank);
    EXPECT_TRUE(std::is_sorted(ranks.begin(), ranks.end())) << "seed " << seed;
    EXPECT_EQ(std::adjacent_find(ranks.begin(), ranks.end()), ranks.end()) << "seed " << seed;
    EXPECT_EQ(packed.items.size() + packed.unpacked.size(), ranked.size()) << "seed " << seed;
  }
}

TEST(PackTest, ExcerptWindowCentresOnTheDensestMatchesOnCharacterBoundaries) {
  const std::string text = std::string(50, 'a') + "\xC3\xA9" + std::string(50, 'b');  // 102 bytes
  const std::vector<std::pair<std::size_t, std::size_t>> spans = {{10, 12}, {60, 62}, {70, 72}};
  // Two spans (60-72) fit in 20 bytes; the window is centred on them.
  EXPECT_EQ(ExcerptWindow(text, spans, 20), (std::pair<std::size_t, std::size_t>{56, 76}));
  // No spans: the start. A window edge inside "é" (bytes 50-51) moves to a character start.
  EXPECT_EQ(ExcerptWindow(text, {}, 51), (std::pair<std::size_t, std::size_t>{0, 50}));
  EXPECT_EQ(ExcerptWindow(text, {}, 200), (std::pair<std::size_t, std::size_t>{0, 102}));
}

}  // namespace
}  // namespace engram::read
