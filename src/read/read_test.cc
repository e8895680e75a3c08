// Tests for the read path's parts that need no engine: the query frame, the planner, the turn
// layout and its unit scoring, the fragment / session / temporal routes on a hand-built
// conversation, and the adjustments after fusion with their exact scores.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <map>
#include <string>
#include <vector>

#include "read/adjust.h"
#include "read/bridge.h"
#include "read/context_routes.h"
#include "read/planner.h"
#include "read/query_frame.h"
#include "read/turn_layout.h"

namespace engram::read {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

Timestamp At(std::string_view iso) {
  StatusOr<Timestamp> parsed = ParseTimestamp(iso);
  EXPECT_TRUE(parsed.ok()) << iso;
  return parsed.ok() ? *parsed : Timestamp{};
}

QueryFrame Frame(std::string_view question, std::string_view now = "2024-05-10T12:00:00Z") {
  static const text::Tokenizer tokenizer;
  return BuildQueryFrame(tokenizer, question, At(now));
}

TEST(QueryFrameTest, ShapesFollowTheCueTable) {
  EXPECT_EQ(Frame("How many times did Caroline go hiking?").shape, QueryShape::kCount);
  EXPECT_EQ(Frame("When did Melanie paint a sunrise?").shape, QueryShape::kWhen);
  EXPECT_EQ(Frame("What year did John start surfing?").shape, QueryShape::kWhen);
  EXPECT_EQ(Frame("Can you recommend a book for my trip?").shape, QueryShape::kRecommendation);
  EXPECT_EQ(Frame("Give me a summary of our talks about work").shape, QueryShape::kSummary);
  EXPECT_EQ(Frame("Which did I buy first, the bike or the car?").shape, QueryShape::kOrdering);
  EXPECT_EQ(Frame("Where do I currently live?").shape, QueryShape::kCurrentState);
  EXPECT_EQ(Frame("Would Caroline enjoy a pottery class?").shape, QueryShape::kInference);
  EXPECT_EQ(Frame("Did Caroline go to the parade?").shape, QueryShape::kBoolean);
  EXPECT_EQ(Frame("What are Melanie's hobbies?").shape, QueryShape::kList);
  EXPECT_EQ(Frame("Where did Caroline move from?").shape, QueryShape::kFactoid);
  EXPECT_EQ(Frame("How many times did Caroline go hiking?").shape_reason, "\"how many\"");
}

TEST(QueryFrameTest, NamesSkipQuestionWordsMonthsAndI) {
  const QueryFrame frame =
      Frame("What did Caroline and Melanie's dog do in May 2023, as I recall?");
  EXPECT_THAT(frame.names, ElementsAre("Caroline", "Melanie"));
  EXPECT_THAT(Frame("Jon went where?").names, ElementsAre("Jon"));
  EXPECT_THAT(Frame("Did Gina open the store?").names, ElementsAre("Gina"));
}

TEST(QueryFrameTest, TimeConstraintsResolveAgainstTheQueryTime) {
  const QueryFrame frame = Frame("How many times did I go hiking last year?");
  ASSERT_EQ(frame.time_constraints.size(), 1u);
  EXPECT_EQ(frame.time_constraints[0].surface, "last year");
  EXPECT_EQ(frame.time_constraints[0].from, At("2023-01-01T00:00:00Z"));
  EXPECT_EQ(frame.time_constraints[0].to, At("2024-01-01T00:00:00Z"));
  EXPECT_EQ(frame.time_constraints[0].granularity, "year");
  EXPECT_THAT(Frame("Where did Caroline move from?").time_constraints, IsEmpty());
}

TEST(QueryFrameTest, EventAnchorsAreTimesGivenByEvents) {
  const QueryFrame after = Frame("How did Melanie feel after the accident?");
  ASSERT_EQ(after.event_anchors.size(), 1u);
  EXPECT_EQ(after.event_anchors[0].surface, "after the accident");
  EXPECT_FALSE(after.event_anchors[0].before);
  EXPECT_THAT(after.event_anchors[0].terms, ElementsAre("accid"));
  EXPECT_THAT(DescribeFrame(after), ::testing::HasSubstr(" event=\"after the accident\""));
  const QueryFrame before = Frame("Which city was John in before traveling to Chicago?");
  ASSERT_EQ(before.event_anchors.size(), 1u);
  EXPECT_TRUE(before.event_anchors[0].before);
  EXPECT_THAT(before.event_anchors[0].terms, ElementsAre("travel", "chicago"));
  // At most four words, ending at "when"; "prior to".
  const QueryFrame since =
      Frame("How many days had passed since I finished reading the novel when I met Ann?");
  ASSERT_EQ(since.event_anchors.size(), 1u);
  EXPECT_EQ(since.event_anchors[0].surface, "since i finished reading the");
  EXPECT_EQ(Frame("What did Jon do prior to the move?").event_anchors.at(0).surface,
            "prior to the move");
  // Dates are time constraints, not events; "since when" names nothing.
  EXPECT_THAT(Frame("What did Maria do the week before April 10, 2023?").event_anchors, IsEmpty());
  EXPECT_THAT(Frame("Since when does Jon paint?").event_anchors, IsEmpty());
  EXPECT_THAT(Frame("What did I do after?").event_anchors, IsEmpty());
  // At most kMaxEventAnchors.
  const QueryFrame many = Frame("after a1 and after b2 and after c3 and after d4 and after e5?");
  ASSERT_EQ(many.event_anchors.size(), kMaxEventAnchors);
  EXPECT_EQ(many.event_anchors.back().surface, "after d4");
}

TEST(QueryFrameTest, CurrentnessPolarityAndKeywords) {
  const QueryFrame current = Frame("What car do I drive now?");
  EXPECT_TRUE(current.current);
  EXPECT_FALSE(current.negated);
  EXPECT_TRUE(Frame("What did Caroline not like about camping?").negated);
  EXPECT_TRUE(Frame("Why didn't Jon go?").negated);
  const QueryFrame frame = Frame("Which paintings did Melanie paint, paintings of lakes?");
  std::vector<std::string> terms;
  for (const Keyword& keyword : frame.keywords) terms.push_back(keyword.term + "/" + keyword.word);
  EXPECT_THAT(terms, ElementsAre("paint/paintings", "melani/melanie", "lake/lakes"));
  EXPECT_THAT(DescribeFrame(Frame("How many trips last year?")),
              ::testing::HasSubstr("shape=count (\"how many\") time=\"last year\""));
}

TEST(QueryFrameTest, FirstPersonAndTheOtherPartysWords) {
  EXPECT_TRUE(Frame("How many doctor's appointments did I go to in March?").first_person);
  EXPECT_TRUE(Frame("What is the name of my dog?").first_person);
  EXPECT_TRUE(Frame("I\u2019m anxious about Tokyo, any tips?").first_person);
  EXPECT_FALSE(Frame("What did Caroline paint?").first_person);
  EXPECT_FALSE(Frame("Where did Jon go in May?").about_other_party);
  // "you" followed by a past tense: the question is about what the other party said.
  const QueryFrame recommended = Frame("What was the hotel you recommended to me?");
  EXPECT_TRUE(recommended.first_person);
  EXPECT_TRUE(recommended.about_other_party);
  EXPECT_TRUE(Frame("Remind me what you told me about Rome").about_other_party);
  // "need" is no past tense; a polite "can you" is no reference to what the other party said.
  EXPECT_FALSE(Frame("Do you need my address for the delivery?").about_other_party);
  EXPECT_FALSE(Frame("Can you suggest some accessories for my camera?").about_other_party);
  EXPECT_THAT(DescribeFrame(recommended), ::testing::HasSubstr("first_person about_other_party"));
}

TEST(QueryFrameTest, AnswerTypeFromTheQuestionWord) {
  EXPECT_EQ(Frame("When did Caroline go to the support group?").answer_type, AnswerType::kTime);
  EXPECT_EQ(Frame("What year did Jon open the studio?").answer_type, AnswerType::kTime);
  EXPECT_EQ(Frame("How many kids does Melanie have?").answer_type, AnswerType::kNumber);
  EXPECT_EQ(Frame("How old is Melanie's son?").answer_type, AnswerType::kNumber);
  EXPECT_EQ(Frame("How many months have passed since I visited a museum?").answer_type,
            AnswerType::kTime);
  EXPECT_EQ(Frame("How many days did the trip take?").answer_type, AnswerType::kTime);
  EXPECT_EQ(Frame("Where did Jon travel in May?").answer_type, AnswerType::kPlace);
  EXPECT_EQ(Frame("Who performed at the concert?").answer_type, AnswerType::kPerson);
  EXPECT_EQ(Frame("What did Caroline paint?").answer_type, AnswerType::kNone);
  // "how often" counts but asks for no number; the when cue wins over "who".
  EXPECT_EQ(Frame("How often does Gina dance?").answer_type, AnswerType::kNone);
  EXPECT_EQ(Frame("When did the friend who moved call?").answer_type, AnswerType::kTime);
  EXPECT_THAT(DescribeFrame(Frame("Where is the studio?")), ::testing::HasSubstr("answer=place"));
  EXPECT_THAT(DescribeFrame(Frame("What is it?")), ::testing::Not(::testing::HasSubstr("answer=")));
}

TEST(QueryFrameTest, FrameWordsLeaveTheLexicalTerms) {
  const QueryFrame elapsed =
      Frame("How many months have passed since I last visited a museum with a friend?");
  EXPECT_THAT(elapsed.frame_words, ElementsAre("many", "months", "passed", "since"));
  EXPECT_THAT(elapsed.terms, ElementsAre("last", "visit", "museum", "friend"));
  std::vector<std::string> keywords;
  for (const Keyword& keyword : elapsed.keywords) keywords.push_back(keyword.word);
  EXPECT_THAT(keywords, ElementsAre("last", "visited", "museum", "friend"));
  EXPECT_THAT(DescribeFrame(elapsed),
              ::testing::HasSubstr("frame_words=many,months,passed,since keywords=last,"));

  // "since" is a topic word when no time is asked for; time expressions stay.
  const QueryFrame count = Frame("How many postcards have I added since I started again?");
  EXPECT_THAT(count.frame_words, ElementsAre("many"));
  EXPECT_THAT(count.terms, ElementsAre("postcard", "ad", "sinc", "start"));
  EXPECT_THAT(Frame("Which book did I finish a week ago?").frame_words, IsEmpty());
  EXPECT_THAT(Frame("How long ago was Caroline's birthday?").frame_words, ElementsAre("ago"));
  // A request ("can you suggest") and currentness ("current") are no topic.
  const QueryFrame suggest =
      Frame("Can you suggest some accessories that would complement my current photography setup?");
  EXPECT_THAT(suggest.frame_words, ElementsAre("can", "suggest", "current"));
  EXPECT_THAT(suggest.terms, ElementsAre("accessori", "complement", "photographi", "setup"));
  // Past recommendations are the topic; list cues name it; a leading auxiliary is grammar.
  EXPECT_THAT(Frame("Which city did John recommend to Tim?").frame_words, IsEmpty());
  EXPECT_THAT(Frame("What activities does Melanie do?").frame_words, IsEmpty());
  EXPECT_THAT(Frame("Can Jon drive a truck?").frame_words, ElementsAre("can"));
  // Nothing but frame words: all of them stay; the option keeps them all.
  EXPECT_THAT(Frame("How many weeks passed?").terms, ElementsAre("mani", "week", "pass"));
  static const text::Tokenizer tokenizer;
  const QueryFrame kept = BuildQueryFrame(tokenizer, "Can you recommend a hotel?",
                                          At("2024-05-10T12:00:00Z"), {.drop_frame_words = false});
  EXPECT_THAT(kept.frame_words, ElementsAre("can", "recommend"));
  EXPECT_THAT(kept.terms, ElementsAre("can", "recommend", "hotel"));
}

TEST(PlannerTest, ShapeRulesReplaceWeightsAndOptionsWin) {
  Config config;
  config.recall.route_weights = {{"bm25", 1.0}, {"fragment", 1.0}};
  config.planner.shapes = {{"count", {{"fragment", 1.5}, {"budget_scale", 2.0}}}};
  RecallOptions options;
  const Plan count = MakePlan(Frame("How many dogs?"), config, options);
  EXPECT_EQ(count.rule, "count");
  EXPECT_EQ(count.WeightOf("fragment"), 1.5);
  EXPECT_EQ(count.WeightOf("bm25"), 1.0);
  EXPECT_EQ(count.WeightOf("never-named"), 1.0);
  EXPECT_EQ(count.budget_scale, 2.0);
  EXPECT_EQ(count.Describe(), "rule=count weights bm25=1,fragment=1.5 budget x2");
  const Plan factoid = MakePlan(Frame("Where is the dog?"), config, options);
  EXPECT_EQ(factoid.rule, "default");
  EXPECT_EQ(factoid.WeightOf("fragment"), 1.0);
  options.route_weights = {{"fragment", 0.0}};
  EXPECT_EQ(MakePlan(Frame("How many dogs?"), config, options).WeightOf("fragment"), 0.0);
  options.use_planner = false;
  options.route_weights.clear();
  EXPECT_EQ(MakePlan(Frame("How many dogs?"), config, options).rule, "default");
}

TEST(PlannerTest, DefaultRulesWeighMeaningForRecommendationRequests) {
  const Config config;  // the built-in rule table
  const RecallOptions options;
  const Plan request =
      MakePlan(Frame("Can you suggest some accessories for my camera?"), config, options);
  EXPECT_EQ(request.rule, "recommendation");
  EXPECT_EQ(request.WeightOf("vector"), 1.5);
  EXPECT_EQ(request.WeightOf("bm25"), 1.0);
  EXPECT_EQ(MakePlan(Frame("What did Caroline paint?"), config, options).WeightOf("vector"), 0.5);
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

QueryFrame Terms(std::vector<std::string> terms) {
  QueryFrame frame;
  frame.terms = std::move(terms);
  return frame;
}

TEST(TurnLayoutTest, SessionsAreRunsOfOneSessionId) {
  const Conversation conversation;
  ASSERT_EQ(conversation.layout.sessions().size(), 2u);
  EXPECT_EQ(conversation.layout.sessions()[0].begin, 0u);
  EXPECT_EQ(conversation.layout.sessions()[0].end, 5u);
  EXPECT_EQ(conversation.layout.sessions()[1].session_id, "s2");
  EXPECT_EQ(conversation.layout.IndexOf(7), 6u);
  EXPECT_EQ(conversation.layout.IndexOf(70), std::nullopt);
  EXPECT_THAT(conversation.layout.Speakers(), ElementsAre("Caroline", "Melanie"));
}

// The projection grows a layout turn by turn and joins scopes' layouts: both must equal the
// layout built from all turns at once.
TEST(TurnLayoutTest, AppendingAndConcatenatingEqualBuildingAtOnce) {
  const Conversation conversation;
  const std::vector<LayoutTurn>& all = conversation.layout.turns();
  TurnLayout grown;
  for (const LayoutTurn& turn : all) grown.Append(turn);
  EXPECT_TRUE(grown.SameContent(conversation.layout));

  // A second scope whose first session id repeats the first scope's last one: a new session.
  std::vector<LayoutTurn> other_turns;
  for (std::int64_t row = 100; row < 103; ++row) {
    LayoutTurn turn;
    turn.row = row;
    turn.scope_id = 2;
    turn.sequence = row - 99;
    turn.session_id = "s2";
    turn.speaker = "Zed";
    other_turns.push_back(turn);
  }
  const TurnLayout other = TurnLayout::FromTurns(other_turns);
  const TurnLayout* parts[] = {&conversation.layout, &other};
  const TurnLayout joined = TurnLayout::Concat(parts);
  std::vector<LayoutTurn> everything = all;
  everything.insert(everything.end(), other_turns.begin(), other_turns.end());
  EXPECT_TRUE(joined.SameContent(TurnLayout::FromTurns(everything)));
  ASSERT_EQ(joined.sessions().size(), 3u);
  EXPECT_EQ(joined.sessions()[2].begin, all.size());
  EXPECT_EQ(joined.turns()[all.size()].session, 2u);
  EXPECT_THAT(joined.Speakers(), ElementsAre("Caroline", "Melanie", "Zed"));
  EXPECT_EQ(joined.IndexOf(101), all.size() + 1);

  // A layout missing its last turn is not the same.
  TurnLayout shorter;
  for (std::size_t turn_idx = 0; turn_idx + 1 < all.size(); ++turn_idx) shorter.Append(all[turn_idx]);
  EXPECT_FALSE(shorter.SameContent(conversation.layout));
}

TEST(TurnLayoutTest, UnitScoresEqualBm25OfTheConcatenatedTurns) {
  const Conversation conversation;
  const std::vector<std::string> query = {"guitar", "lesson"};
  const TermMatrix matrix(conversation.layout, conversation.indexes, query);
  // Each turn alone: the same as the index's own BM25.
  const std::vector<UnitScore> own = matrix.ScoreTurns(conversation.config.bm25);
  const auto hits = conversation.index.Search(query, conversation.config.bm25, 10);
  ASSERT_EQ(hits.size(), 3u);
  for (const auto& hit : hits) EXPECT_DOUBLE_EQ(own[hit.doc - 1].score, hit.score) << hit.doc;
  // Rows 2-4 as one document against an index of the two windows it is compared with.
  const std::array<Unit, 2> units = {Unit{1, 4}, Unit{5, 9}};
  const std::vector<UnitScore> windows = matrix.Score(units, conversation.config.bm25);
  index::Bm25Index joined;
  joined.Add(1, std::vector<std::string>{"guitar", "weather", "lesson"});
  joined.Add(2, std::vector<std::string>{"guitar", "lesson", "x", "y", "z"});
  const auto joined_hits = joined.Search(query, conversation.config.bm25, 10);
  ASSERT_EQ(joined_hits.size(), 2u);
  EXPECT_EQ(joined_hits[0].doc, 1u);
  EXPECT_DOUBLE_EQ(windows[0].score, joined_hits[0].score);
  EXPECT_DOUBLE_EQ(windows[1].score, joined_hits[1].score);
  EXPECT_THAT(ExplainUnit(windows[0]),
              ::testing::MatchesRegex(
                  "bm25 [0-9.]+ = guitar\\(tf 1, [0-9.]+\\) \\+ lesson\\(tf 1, [0-9.]+\\)"));
}

TEST(TurnLayoutTest, SoftMatchesCountAsTheQueryTermScaledBySimilarity) {
  const Conversation conversation;  // "lesson" at rows 4 and 6
  const std::vector<std::string> exact_query = {"lesson"};
  const std::vector<std::string> query = {"lessons"};
  const TermMatrix exact(conversation.layout, conversation.indexes, exact_query);
  const TermMatrix none(conversation.layout, conversation.indexes, query);
  EXPECT_TRUE(none.empty());
  SoftMatch soft;
  soft.threshold = 0.95;
  const TermMatrix matrix(conversation.layout, conversation.indexes, query, &soft);
  // Jaro-Winkler(lessons, lesson): m 6, t 0: (6/7 + 1 + 1) / 3 = 0.952381; l 4: + 0.4 * 0.047619.
  const double similarity = 0.971429;
  const auto scores = matrix.ScoreTurns(conversation.config.bm25);
  const auto reference = exact.ScoreTurns(conversation.config.bm25);
  ASSERT_EQ(scores.size(), 9u);
  EXPECT_NEAR(scores[3].score, similarity * reference[3].score, 1e-6);
  EXPECT_NEAR(scores[5].score, similarity * reference[5].score, 1e-6);
  EXPECT_EQ(scores[0].score, 0);
  EXPECT_THAT(ExplainUnit(scores[3]), ::testing::StartsWith("bm25 "));
  EXPECT_THAT(ExplainUnit(scores[3]), ::testing::HasSubstr("lessons~lesson(tf 1, "));
  // Above the similarity, or below the minimum length, nothing is close.
  soft.threshold = 0.98;
  EXPECT_TRUE(TermMatrix(conversation.layout, conversation.indexes, query, &soft).empty());
  soft.threshold = 0.95;
  soft.min_length = 7;
  EXPECT_TRUE(TermMatrix(conversation.layout, conversation.indexes, query, &soft).empty());
  // Only the first max_query_terms distinct query terms look for soft matches.
  soft.min_length = 5;
  soft.max_query_terms = 1;
  const std::vector<std::string> two = {"nothing", "lessons"};
  EXPECT_TRUE(TermMatrix(conversation.layout, conversation.indexes, two, &soft).empty());
  soft.max_query_terms = 2;
  EXPECT_FALSE(TermMatrix(conversation.layout, conversation.indexes, two, &soft).empty());
}

TEST(ContextRoutesTest, FragmentWindowsBringInTurnsThatMatchNothingAlone) {
  Conversation conversation;
  conversation.config.recall.fragment_window = 3;
  conversation.config.recall.fragment_own_weight = 0;
  // Window rows 2-4 (3 terms) beats rows 6-8 (4 terms); in a window, own BM25 then row decide;
  // rows 1 and 5 have only one-term windows; row 9's windows match nothing.
  EXPECT_THAT(conversation.Rows(FragmentRoute(), Terms({"guitar", "lesson"})),
              ElementsAre(2, 4, 3, 6, 7, 8, 1, 5));
  // With the turn's own score added, row 6 (both terms) passes row 3 (neither).
  conversation.config.recall.fragment_own_weight = 1;
  EXPECT_THAT(conversation.Rows(FragmentRoute(), Terms({"guitar", "lesson"})),
              ElementsAre(6, 2, 4, 3, 7, 8, 1, 5));
  EXPECT_THAT(conversation.Rows(FragmentRoute(), Terms({"absent"})), IsEmpty());
}

TEST(ContextRoutesTest, FragmentRouteTakesSoftMatchesFromTheConfig) {
  Conversation conversation;  // "lesson" at rows 4 and 6
  conversation.config.recall.fragment_soft_match = 0;
  EXPECT_THAT(conversation.Rows(FragmentRoute(), Terms({"lessons"})), IsEmpty());
  conversation.config.recall.fragment_soft_match = 0.95;
  EXPECT_THAT(conversation.Rows(FragmentRoute(), Terms({"lessons"})),
              ::testing::IsSupersetOf({4, 6}));
}

TEST(ContextRoutesTest, SessionRouteListsTheBestSessionsTurns) {
  Conversation conversation;
  // Only s2 holds "x": its turns come, own matches first, then in order.
  EXPECT_THAT(conversation.Rows(SessionRoute(), Terms({"x"})), ElementsAre(7, 6, 8, 9));
  conversation.config.recall.session_turns = 2;
  // Equal session scores: s1 first; two turns per session.
  EXPECT_THAT(conversation.Rows(SessionRoute(), Terms({"guitar", "lesson"})),
              ElementsAre(2, 4, 6, 7));
}

TEST(ContextRoutesTest, TemporalRouteNeedsATimeConstraint) {
  const Conversation conversation;
  QueryFrame frame = Terms({"lesson"});
  EXPECT_THAT(conversation.Rows(TemporalRoute(), frame), IsEmpty());
  frame.time_constraints.push_back(
      {"June 2023", At("2023-06-01T00:00:00Z"), At("2023-07-01T00:00:00Z"), "month"});
  EXPECT_THAT(conversation.Rows(TemporalRoute(), frame), ElementsAre(6, 7, 8, 9));
}

TEST(ContextRoutesTest, TemporalRouteDatesAnEventByItsBestTurn) {
  const Conversation conversation;  // rows 1-5 on 2023-05-08, rows 6-9 on 2023-06-10
  QueryFrame frame = Terms({"lesson"});
  // "x" is said only at row 7: after it come the June turns, own BM25 on "lesson" first.
  frame.event_anchors.push_back({"after the x", false, {"x"}});
  EXPECT_THAT(conversation.Rows(TemporalRoute(), frame), ElementsAre(6, 7, 8, 9));
  // Before "weather" (row 3, May): the May turns, row 4 ("lesson") first.
  frame.event_anchors = {{"before the weather", true, {"weather"}}};
  EXPECT_THAT(conversation.Rows(TemporalRoute(), frame), ElementsAre(4, 1, 2, 3, 5));
  // An event no turn mentions dates nothing.
  frame.event_anchors = {{"after the absent", false, {"absent"}}};
  EXPECT_THAT(conversation.Rows(TemporalRoute(), frame), IsEmpty());
}

Ranked Candidate(std::int64_t row, double score) {
  Ranked ranked;
  ranked.fused.row = row;
  ranked.fused.fused_score = score;
  ranked.score = score;
  return ranked;
}

TEST(AdjustTest, NeighbourBonusesHaveExactScores) {
  const Conversation conversation;
  RecallConfig config;
  config.neighbour_seeds = 1;
  config.neighbour_radius = 2;
  config.neighbour_weight = 0.5;
  config.neighbour_decay = 0.5;
  std::vector<Ranked> ranked = {Candidate(3, 0.05), Candidate(4, 0.02), Candidate(8, 0.01)};
  EXPECT_EQ(ExpandNeighbours(ranked, conversation.layout, config), 3u);
  SortRanked(ranked);
  std::vector<std::pair<std::int64_t, double>> scores;
  for (const Ranked& candidate : ranked) scores.emplace_back(candidate.fused.row, candidate.score);
  ASSERT_EQ(scores.size(), 6u);
  EXPECT_EQ(scores[0], std::make_pair(std::int64_t{3}, 0.05));
  EXPECT_EQ(scores[1].first, 4);
  EXPECT_DOUBLE_EQ(scores[1].second, 0.045);
  EXPECT_EQ(scores[2].first, 2);
  EXPECT_DOUBLE_EQ(scores[2].second, 0.025);
  EXPECT_EQ(scores[3].first, 1);
  EXPECT_DOUBLE_EQ(scores[3].second, 0.0125);
  EXPECT_EQ(scores[4].first, 5);
  EXPECT_EQ(scores[5], std::make_pair(std::int64_t{8}, 0.01));
  ASSERT_EQ(ranked[1].adjustments.size(), 1u);
  EXPECT_EQ(ranked[1].adjustments[0].name, "neighbour");
  EXPECT_DOUBLE_EQ(ranked[1].adjustments[0].bonus, 0.025);
  EXPECT_EQ(ranked[1].adjustments[0].detail,
            "1 turn from seq 3 (score 0.0500) in its session: +0.0250");
  // Row 5 is in session s1 and row 6 in s2: the seed at row 5 gives nothing across the border.
  std::vector<Ranked> border = {Candidate(5, 0.04)};
  config.neighbour_radius = 1;
  EXPECT_EQ(ExpandNeighbours(border, conversation.layout, config), 1u);
  EXPECT_EQ(border.back().fused.row, 4);
  config.neighbour_weight = 0;
  std::vector<Ranked> off = {Candidate(3, 0.05)};
  EXPECT_EQ(ExpandNeighbours(off, conversation.layout, config), 0u);
  EXPECT_EQ(off.size(), 1u);
}

TEST(AdjustTest, PersonBoostMultipliesTheAskedSpeakersTurns) {
  const Conversation conversation;
  std::vector<Ranked> ranked = {Candidate(1, 0.04), Candidate(2, 0.05)};
  const std::vector<std::string> asked = {"Caroline"};
  ApplyPersonBoost(ranked, conversation.layout, asked, false, 1.5, 1.0);
  SortRanked(ranked);
  EXPECT_EQ(ranked[0].fused.row, 1);
  EXPECT_DOUBLE_EQ(ranked[0].score, 0.06);
  ASSERT_EQ(ranked[0].adjustments.size(), 1u);
  EXPECT_EQ(ranked[0].adjustments[0].factor, 1.5);
  EXPECT_THAT(ranked[1].adjustments, IsEmpty());
}

// Turns at rows 1..n of one session "s", all of role user.
std::vector<LayoutTurn> OneSession(std::int64_t n) {
  std::vector<LayoutTurn> turns;
  for (std::int64_t row = 1; row <= n; ++row) {
    LayoutTurn turn;
    turn.row = row;
    turn.scope_id = 1;
    turn.sequence = row;
    turn.session_id = "s";
    turns.push_back(turn);
  }
  return turns;
}

TEST(AdjustTest, FirstPersonBoostLiftsTheUsersTurnsWhenOtherRolesExist) {
  std::vector<LayoutTurn> turns = OneSession(4);
  for (LayoutTurn& turn : turns) turn.role = turn.row % 2 == 1 ? Role::kUser : Role::kAssistant;
  const TurnLayout dialog = TurnLayout::FromTurns(turns);
  std::vector<Ranked> ranked = {Candidate(1, 0.03), Candidate(2, 0.05)};
  ApplyPersonBoost(ranked, dialog, {}, true, 1.3, 2.0);
  SortRanked(ranked);
  EXPECT_EQ(ranked[0].fused.row, 1);
  EXPECT_DOUBLE_EQ(ranked[0].score, 0.06);
  ASSERT_EQ(ranked[0].adjustments.size(), 1u);
  EXPECT_EQ(ranked[0].adjustments[0].detail,
            "said by the user, whom the first-person question is about");
  EXPECT_THAT(ranked[1].adjustments, IsEmpty());
  // Not in the first person: nothing changes.
  std::vector<Ranked> third = {Candidate(1, 0.03), Candidate(2, 0.05)};
  ApplyPersonBoost(third, dialog, {}, false, 1.3, 2.0);
  EXPECT_DOUBLE_EQ(third[0].score, 0.03);
  // Every turn is the user's (two people chatting, both stored as users): nothing to tell apart.
  for (LayoutTurn& turn : turns) turn.role = Role::kUser;
  const TurnLayout users = TurnLayout::FromTurns(turns);
  std::vector<Ranked> same = {Candidate(1, 0.03)};
  ApplyPersonBoost(same, users, {}, true, 1.3, 2.0);
  EXPECT_DOUBLE_EQ(same[0].score, 0.03);
  EXPECT_THAT(same[0].adjustments, IsEmpty());
}

TEST(TurnLayoutTest, QuestionShareCountsTheWordsOfAskingSentences) {
  EXPECT_FLOAT_EQ(QuestionShare(""), 0.0f);
  EXPECT_FLOAT_EQ(QuestionShare("I went to Paris."), 0.0f);
  EXPECT_FLOAT_EQ(QuestionShare("Any advice on that?"), 1.0f);
  // 2 of 5 words ask; an unterminated last sentence asks nothing.
  EXPECT_FLOAT_EQ(QuestionShare("Wow, so cool! How come?"), 2.0f / 5.0f);
  EXPECT_FLOAT_EQ(QuestionShare("How was it? I loved the show"), 3.0f / 7.0f);
  EXPECT_FLOAT_EQ(QuestionShare("Where?\nThere."), 0.5f);
  EXPECT_EQ(AskingSentences("Wow, so cool! How come? Tell me. Why?"), " How come?  Why?");
  EXPECT_EQ(AskingSentences("No question here"), "");
}

// The echo share: a turn whose query-term matches lie in its question is demoted by that share,
// even when most of its words do not ask, and its reply gets the answer weight.
TEST(AdjustTest, AnswerabilityEchoShareCountsQueryTermsInQuestions) {
  const text::Tokenizer tokenizer;
  std::vector<LayoutTurn> turns = OneSession(4);
  turns[1].asking_text =
      "Woah, it sounds like you are doing impressive work with the kids. What motivated you to "
      "pursue counseling?";
  turns[1].question_share = QuestionShare(turns[1].asking_text);
  ASSERT_LT(turns[1].question_share, 0.5f);
  const TurnLayout peers = TurnLayout::FromTurns(turns);
  RecallConfig config;
  config.question_penalty = 0.2;
  config.neighbour_weight = 0.2;
  config.neighbour_answer_weight = 0.8;
  config.neighbour_radius = 1;
  config.neighbour_seeds = 1;
  const std::vector<std::string> query =
      tokenizer.Terms("What motivated Caroline to pursue counseling?");
  std::vector<Ranked> ranked = {Candidate(2, 0.1)};
  ApplyAnswerability(ranked, peers, config, &tokenizer, query);
  // motivated, pursue, counseling: 3 of 3 matches in the question -> x (1 - 0.2 x 1).
  EXPECT_DOUBLE_EQ(ranked[0].score, 0.08);
  EXPECT_DOUBLE_EQ(ranked[0].asks, 1.0);
  EXPECT_EQ(ranked[0].adjustments[0].detail,
            "3 of its 3 query-term matches are in a question: x 0.8000");
  ExpandNeighbours(ranked, peers, config);
  SortRanked(ranked);
  ASSERT_EQ(ranked[1].fused.row, 3);
  EXPECT_DOUBLE_EQ(ranked[1].score, 0.8 * 0.08);

  // A query whose terms lie outside the question: share 0, no demotion.
  const std::vector<std::string> other = tokenizer.Terms("impressive work with kids");
  std::vector<Ranked> statement = {Candidate(2, 0.1)};
  ApplyAnswerability(statement, peers, config, &tokenizer, other);
  EXPECT_DOUBLE_EQ(statement[0].score, 0.1);
  EXPECT_DOUBLE_EQ(statement[0].asks, 0.0);
  EXPECT_TRUE(statement[0].adjustments.empty());

  // Without a tokenizer the question share of the words is used.
  std::vector<Ranked> plain = {Candidate(2, 0.1)};
  ApplyAnswerability(plain, peers, config);
  EXPECT_DOUBLE_EQ(plain[0].score, 0.1 * (1 - 0.2 * turns[1].question_share));
}

// Peers: every turn is role user. Turn 2 mostly asks; turn 3 replies.
TEST(AdjustTest, AnswerabilityDemotesQuestionsAndLiftsTheirReplies) {
  std::vector<LayoutTurn> turns = OneSession(4);
  turns[1].question_share = 1.0f;
  const TurnLayout peers = TurnLayout::FromTurns(turns);
  RecallConfig config;
  config.question_penalty = 0.3;
  config.neighbour_weight = 0.2;
  config.neighbour_answer_weight = 0.5;
  config.neighbour_radius = 1;
  config.neighbour_seeds = 1;
  std::vector<Ranked> ranked = {Candidate(2, 0.1)};
  ApplyAnswerability(ranked, peers, config);
  EXPECT_DOUBLE_EQ(ranked[0].score, 0.07);
  ASSERT_EQ(ranked[0].adjustments.size(), 1u);
  EXPECT_EQ(ranked[0].adjustments[0].name, "answerability");
  EXPECT_EQ(ranked[0].adjustments[0].detail, "100% of its words ask a question: x 0.7000");
  EXPECT_EQ(ExpandNeighbours(ranked, peers, config), 2u);
  SortRanked(ranked);
  // The reply (row 3) gets 0.5 x 0.07; the turn before (row 1) the usual 0.2 x 0.07.
  ASSERT_EQ(ranked.size(), 3u);
  EXPECT_EQ(ranked[0].fused.row, 2);
  EXPECT_EQ(ranked[1].fused.row, 3);
  EXPECT_DOUBLE_EQ(ranked[1].score, 0.035);
  EXPECT_EQ(ranked[1].adjustments[0].detail,
            "1 turn after the question at seq 2 (score 0.0700) in its session: +0.0350");
  EXPECT_EQ(ranked[2].fused.row, 1);
  EXPECT_DOUBLE_EQ(ranked[2].score, 0.2 * 0.07);

  // A user asking an assistant: neither adjustment applies.
  for (std::size_t i = 0; i < turns.size(); ++i) {
    turns[i].role = i % 2 == 0 ? Role::kAssistant : Role::kUser;
  }
  const TurnLayout dialog = TurnLayout::FromTurns(turns);
  std::vector<Ranked> asked = {Candidate(2, 0.1)};
  ApplyAnswerability(asked, dialog, config);
  EXPECT_DOUBLE_EQ(asked[0].score, 0.1);
  ExpandNeighbours(asked, dialog, config);
  SortRanked(asked);
  ASSERT_EQ(asked.size(), 3u);
  EXPECT_DOUBLE_EQ(asked[1].score, 0.02);
  EXPECT_DOUBLE_EQ(asked[2].score, 0.02);
}

TEST(AdjustTest, AnswerTypeLiftsTurnsHoldingWhatTheQuestionAsks) {
  const std::map<std::int64_t, std::string> texts = {
      {1, "We went hiking yesterday."},      // a date
      {2, "We went hiking with the kids."},  // nothing
      {3, "I have 3 kids and two dogs."},    // numbers
      {4, "Hiking is my favourite."},        // beyond the depth below
  };
  const TurnText turn_text = [&](std::int64_t row, std::string_view* text, Timestamp* time) {
    const auto found = texts.find(row);
    if (found == texts.end()) return false;
    *text = found->second;
    *time = At("2024-05-10T12:00:00Z");
    return true;
  };
  RecallConfig config;
  config.answer_type_boost = 1.5;
  config.answer_type_depth = 3;
  std::vector<Ranked> ranked = {Candidate(2, 0.05), Candidate(1, 0.04), Candidate(3, 0.03),
                                Candidate(4, 0.02), Candidate(9, 0.01)};
  ApplyAnswerType(ranked, AnswerType::kTime, turn_text, config);
  SortRanked(ranked);
  EXPECT_EQ(ranked[0].fused.row, 1);
  EXPECT_DOUBLE_EQ(ranked[0].score, 0.06);
  ASSERT_EQ(ranked[0].adjustments.size(), 1u);
  EXPECT_EQ(ranked[0].adjustments[0].name, "answer_type");
  EXPECT_EQ(ranked[0].adjustments[0].detail,
            "holds a time (\"yesterday\"), which the question asks for");
  EXPECT_DOUBLE_EQ(ranked[1].score, 0.05);  // row 2 unchanged
  EXPECT_TRUE(ranked[1].adjustments.empty());

  std::vector<Ranked> numbers = {Candidate(2, 0.05), Candidate(3, 0.04)};
  ApplyAnswerType(numbers, AnswerType::kNumber, turn_text, config);
  EXPECT_DOUBLE_EQ(numbers[1].score, 0.06);
  EXPECT_DOUBLE_EQ(numbers[0].score, 0.05);

  // Off: boost 1, or no answer type.
  config.answer_type_boost = 1.0;
  std::vector<Ranked> off = {Candidate(1, 0.04)};
  ApplyAnswerType(off, AnswerType::kTime, turn_text, config);
  EXPECT_DOUBLE_EQ(off[0].score, 0.04);
  config.answer_type_boost = 1.5;
  ApplyAnswerType(off, AnswerType::kNone, turn_text, config);
  EXPECT_DOUBLE_EQ(off[0].score, 0.04);
}

TEST(AdjustTest, AnswerTypeTimeOnTheSideTheQuestionsTenseAsks) {
  EXPECT_EQ(Frame("When did Jon host a dance competition?").tense, Tense::kPast);
  EXPECT_EQ(Frame("How many months have passed since I visited a museum?").tense, Tense::kPast);
  EXPECT_EQ(Frame("When is Jon going to open the studio?").tense, Tense::kFuture);
  EXPECT_EQ(Frame("Where is the studio?").tense, Tense::kUnknown);
  EXPECT_EQ(Frame("Did we say what we will bring?").tense, Tense::kUnknown);  // both
  EXPECT_THAT(DescribeFrame(Frame("When did Jon go?")), ::testing::HasSubstr(" tense=past"));

  const std::map<std::int64_t, std::string> texts = {
      {1, "We go hiking next month."},     // after the turn
      {2, "We went hiking last month."},   // before it
      {3, "We are hiking today."},         // around it
      {4, "We meet at 5 pm for a hike."},  // a clock time: no side
  };
  const TurnText turn_text = [&](std::int64_t row, std::string_view* text, Timestamp* time) {
    *text = texts.at(row);
    *time = At("2024-05-10T12:00:00Z");
    return true;
  };
  RecallConfig config;
  config.answer_type_boost = 2.0;
  const auto boosted = [&](Tense tense) {
    std::vector<Ranked> ranked = {Candidate(1, 0.1), Candidate(2, 0.1), Candidate(3, 0.1),
                                  Candidate(4, 0.1)};
    ApplyAnswerType(ranked, AnswerType::kTime, turn_text, config, tense);
    std::vector<std::int64_t> rows;
    for (const Ranked& candidate : ranked) {
      if (candidate.score > 0.1) rows.push_back(candidate.fused.row);
    }
    return rows;
  };
  EXPECT_THAT(boosted(Tense::kPast), ElementsAre(2, 3, 4));
  EXPECT_THAT(boosted(Tense::kFuture), ElementsAre(1, 3, 4));
  EXPECT_THAT(boosted(Tense::kUnknown), ElementsAre(1, 2, 3, 4));
}

// The entity bridge on a hand-built graph: rare entities of the seeds lead to the turns of other
// sessions that name them, with exact bonuses; speakers, common entities, the seed's own session,
// other roles and non-seeds lead nowhere.
// Adds an entity class named `name` mentioned by `rows`.
void AddEntity(ScopeGraph& graph, std::string name, std::vector<std::int64_t> rows,
               bool speaker = false) {
  GraphEntity entity;
  entity.row = static_cast<std::int64_t>(graph.entities.size()) + 1000;
  entity.name = std::move(name);
  entity.speaker = speaker;
  entity.class_index = graph.classes.size();
  EntityClass entity_class;
  entity_class.members = {graph.entities.size()};
  for (const std::int64_t row : rows) {
    entity_class.links.push_back({.turn_row = row, .mentioned = true, .referred = false});
  }
  graph.entities.push_back(std::move(entity));
  graph.classes.push_back(std::move(entity_class));
}

// Rows 1-40, each its own session but rows 2 and 3 (one session), all users but row 21 (an
// assistant).
TurnLayout BridgeLayout() {
  std::vector<LayoutTurn> turns;
  for (std::int64_t row = 1; row <= 40; ++row) {
    LayoutTurn turn;
    turn.row = row;
    turn.scope_id = 1;
    turn.sequence = row;
    turn.session_id = "s" + std::to_string(row == 3 ? 2 : row);
    turn.role = row == 21 ? Role::kAssistant : Role::kUser;
    turns.push_back(turn);
  }
  return TurnLayout::FromTurns(turns);
}

std::shared_ptr<const ScopeGraph> BridgeGraph() {
  auto graph = std::make_shared<ScopeGraph>();
  graph->turn_count = 40;
  AddEntity(*graph, "Kristin Hannah", {1, 7});              // rare, named by seed 1
  AddEntity(*graph, "Lisbon", {2, 8, 9});                   // rare, named by seed 2
  AddEntity(*graph, "Caroline", {1, 2, 3, 7, 8}, true);     // a speaker
  AddEntity(*graph, "Paris", {1, 10, 11, 12, 13, 14, 15});  // too common (7 turns)
  AddEntity(*graph, "Porto", {20, 21});                     // no seed names it
  return graph;
}

TEST(BridgeTest, RareEntitiesOfTheSeedsLiftTheTurnsThatNameThem) {
  RecallConfig config;
  config.bridge_weight = 0.5;
  config.bridge_seeds = 2;
  config.bridge_max_turns = 5;
  std::vector<Ranked> ranked = {Candidate(1, 0.4), Candidate(2, 0.2), Candidate(3, 0.1),
                                Candidate(9, 0.05)};
  const std::vector<std::shared_ptr<const ScopeGraph>> graphs = {BridgeGraph()};
  // Rows 7 and 8 join the list; row 9 is lifted.
  EXPECT_EQ(ApplyBridge(ranked, graphs, BridgeLayout(), config), 2u);
  SortRanked(ranked);
  std::vector<std::pair<std::int64_t, double>> scores;
  for (const Ranked& candidate : ranked) scores.emplace_back(candidate.fused.row, candidate.score);
  ASSERT_EQ(scores.size(), 6u);
  EXPECT_EQ(scores[0], std::make_pair(std::int64_t{1}, 0.4));
  EXPECT_EQ(scores[1].first, 2);  // ties: the smaller row first
  EXPECT_DOUBLE_EQ(scores[1].second, 0.2);
  EXPECT_EQ(scores[2].first, 7);  // 0.5 x 0.4 through Kristin Hannah
  EXPECT_DOUBLE_EQ(scores[2].second, 0.2);
  EXPECT_EQ(scores[3].first, 9);  // 0.05 + 0.5 x 0.2 through Lisbon
  EXPECT_DOUBLE_EQ(scores[3].second, 0.15);
  EXPECT_EQ(scores[4].first, 3);  // a speaker, or seed 2's session, leads nowhere: unchanged
  EXPECT_DOUBLE_EQ(scores[4].second, 0.1);
  EXPECT_EQ(scores[5].first, 8);  // 0.5 x 0.2 through Lisbon
  EXPECT_DOUBLE_EQ(scores[5].second, 0.1);
  const Ranked& bridged = ranked[2];
  ASSERT_EQ(bridged.adjustments.size(), 1u);
  EXPECT_EQ(bridged.adjustments[0].name, "bridge");
  EXPECT_DOUBLE_EQ(bridged.adjustments[0].bonus, 0.2);
  EXPECT_EQ(bridged.adjustments[0].detail,
            "mentions Kristin Hannah, like the candidate ranked 1 (score 0.4000) that names it: "
            "+0.2000");
}

TEST(BridgeTest, OffOrWithoutSeedsChangesNothing) {
  const std::vector<std::shared_ptr<const ScopeGraph>> graphs = {BridgeGraph()};
  RecallConfig config;
  config.bridge_weight = 0;
  std::vector<Ranked> ranked = {Candidate(1, 0.4)};
  EXPECT_EQ(ApplyBridge(ranked, graphs, BridgeLayout(), config), 0u);
  EXPECT_EQ(ranked.size(), 1u);
  EXPECT_DOUBLE_EQ(ranked[0].score, 0.4);
  config.bridge_weight = 0.5;
  std::vector<Ranked> empty;
  EXPECT_EQ(ApplyBridge(empty, graphs, BridgeLayout(), config), 0u);
  // A seed that names only common or speaker entities, and one whose rare entity only an
  // assistant's turn (another role) names.
  std::vector<Ranked> only_row_3 = {Candidate(3, 0.4)};
  EXPECT_EQ(ApplyBridge(only_row_3, graphs, BridgeLayout(), config), 0u);
  EXPECT_TRUE(only_row_3[0].adjustments.empty());
}

}  // namespace
}  // namespace engram::read
