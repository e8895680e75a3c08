// Unit tests of the pure parts of consolidation: episode segmentation and narratives, scene
// clustering, keywords and summaries, and profiles from facts.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "consolidate/episodes.h"
#include "consolidate/profile.h"
#include "consolidate/scenes.h"

namespace engram::consolidate {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

Timestamp At(const char* iso) { return *ParseTimestamp(iso); }

TurnView Turn(std::string id, std::string session, const char* time,
              std::vector<std::string> terms, std::optional<double> divergence = std::nullopt) {
  TurnView turn;
  turn.id = std::move(id);
  turn.session_id = std::move(session);
  turn.time = At(time);
  turn.speaker = "Ann";
  turn.text = "text";
  turn.terms = std::move(terms);
  std::sort(turn.terms.begin(), turn.terms.end());
  turn.divergence = divergence;
  return turn;
}

std::vector<std::pair<std::size_t, Boundary>> Starts(const std::vector<EpisodeSpan>& spans) {
  std::vector<std::pair<std::size_t, Boundary>> starts;
  for (const EpisodeSpan& span : spans) starts.emplace_back(span.begin, span.boundary);
  return starts;
}

TEST(SegmentEpisodesTest, SessionChangeAndTimeGapStartEpisodes) {
  ConsolidateConfig config;
  config.episode_gap_minutes = 60;
  const std::vector<TurnView> turns = {
      Turn("a", "s1", "2024-01-01T10:00:00Z", {"cat"}),
      Turn("b", "s1", "2024-01-01T10:30:00Z", {"cat"}),
      Turn("c", "s1", "2024-01-01T12:00:00Z", {"cat"}),  // 90 minutes later
      Turn("d", "s2", "2024-01-01T12:01:00Z", {"cat"}),
  };
  const std::vector<EpisodeSpan> spans = SegmentEpisodes(turns, config, false);
  EXPECT_THAT(Starts(spans), ElementsAre(std::pair{0u, Boundary::kStart},
                                         std::pair{2u, Boundary::kTimeGap},
                                         std::pair{3u, Boundary::kSession}));
  EXPECT_EQ(spans[0].end, 2u);
  EXPECT_EQ(spans.back().end, 4u);
}

TEST(SegmentEpisodesTest, TopicShiftNeedsDivergenceAndLexicalShift) {
  ConsolidateConfig config;
  config.episode_min_turns = 2;
  config.topic_min_terms = 2;
  std::vector<TurnView> turns = {
      Turn("a", "s", "2024-01-01T10:00:00Z", {"garden", "tomato"}, 0.0),
      Turn("b", "s", "2024-01-01T10:01:00Z", {"garden", "seed"}, 0.3),
      // New words but a low divergence: the same topic to the embedder.
      Turn("c", "s", "2024-01-01T10:02:00Z", {"water", "soil"}, 0.5),
      // New words and a high divergence: a topic shift.
      Turn("d", "s", "2024-01-01T10:03:00Z", {"mortgage", "bank"}, 0.9),
      // High divergence, but it shares a word with the episode so far.
      Turn("e", "s", "2024-01-01T10:04:00Z", {"bank", "loan"}, 0.9),
  };
  EXPECT_THAT(Starts(SegmentEpisodes(turns, config, true)),
              ElementsAre(std::pair{0u, Boundary::kStart}, std::pair{3u, Boundary::kTopic}));
  // Without divergence (no embedder) the lexical shift alone decides: turn c shares nothing
  // with a and b either.
  EXPECT_THAT(Starts(SegmentEpisodes(turns, config, false)),
              ElementsAre(std::pair{0u, Boundary::kStart}, std::pair{2u, Boundary::kTopic}));
}

TEST(SegmentEpisodesTest, LengthCapSplitsLongEpisodes) {
  ConsolidateConfig config;
  config.episode_max_turns = 2;
  std::vector<TurnView> turns;
  for (int minute = 0; minute < 5; ++minute) {
    turns.push_back(Turn(std::to_string(minute), "s",
                         ("2024-01-01T10:0" + std::to_string(minute) + ":00Z").c_str(), {"x"}));
  }
  const std::vector<EpisodeSpan> spans = SegmentEpisodes(turns, config, false);
  ASSERT_EQ(spans.size(), 3u);
  EXPECT_EQ(spans[1].boundary, Boundary::kLength);
  EXPECT_EQ(spans[2].size(), 1u);
}

TEST(SegmentEpisodesTest, PrefixSegmentationIsStable) {
  // Causality: the episodes of a prefix are the first episodes of the whole, except that the
  // prefix's last one may grow.
  ConsolidateConfig config;
  config.episode_min_turns = 1;
  config.topic_min_terms = 1;
  std::vector<TurnView> turns;
  const char* words[] = {"alpha", "alpha", "beta", "beta", "gamma", "alpha", "delta", "delta"};
  for (int idx = 0; idx < 8; ++idx) {
    turns.push_back(Turn(std::to_string(idx), "s",
                         ("2024-01-01T10:0" + std::to_string(idx) + ":00Z").c_str(), {words[idx]}));
  }
  const std::vector<EpisodeSpan> whole = SegmentEpisodes(turns, config, false);
  for (std::size_t prefix = 1; prefix <= turns.size(); ++prefix) {
    const std::vector<EpisodeSpan> part =
        SegmentEpisodes(std::span(turns).first(prefix), config, false);
    for (std::size_t idx = 0; idx + 1 < part.size(); ++idx) {
      EXPECT_EQ(part[idx].begin, whole[idx].begin);
      EXPECT_EQ(part[idx].end, whole[idx].end);
    }
    EXPECT_EQ(part.back().begin, whole[part.size() - 1].begin);
  }
}

TEST(NarrativeTest, QuotesTurnsInThirdPersonWithAbsoluteDates) {
  TurnView first = Turn("t1", "s", "2023-05-08T13:56:00Z", {});
  first.speaker = "Caroline";
  first.text = "I went to a support group yesterday. It was great!";
  first.annotations.push_back({.begin = 26, .end = 35, .note = "7 May 2023"});
  TurnView second = Turn("t2", "s", "2023-05-09T09:00:00Z", {});
  second.speaker = "Melanie";
  second.text = "She sounded happy about it.";
  second.annotations.push_back({.begin = 0, .end = 3, .note = "Caroline"});
  const std::vector<TurnView> turns = {first, second};
  const Narrative narrative = RenderNarrative(turns, 10);
  ASSERT_EQ(narrative.sentences.size(), 4u);
  EXPECT_EQ(narrative.sentences[0].text,
            "From 8 May 2023 to 9 May 2023, Caroline and Melanie talked.");
  EXPECT_EQ(narrative.sentences[1].text,
            "Caroline said: \"I went to a support group yesterday [7 May 2023].\"");
  EXPECT_EQ(narrative.sentences[1].turn_id, "t1");
  EXPECT_EQ(narrative.sentences[2].text, "Caroline said: \"It was great!\"");
  EXPECT_EQ(narrative.sentences[3].text,
            "On 9 May 2023, Melanie said: \"She [Caroline] sounded happy about it.\"");
  EXPECT_EQ(narrative.sentences[3].turn_id, "t2");
  EXPECT_THAT(narrative.text, HasSubstr("talked. Caroline said"));
}

TEST(NarrativeTest, KeepsTheRichestSentencesInConversationOrder) {
  TurnView turn = Turn("t", "s", "2024-02-01T10:00:00Z", {});
  turn.role = Role::kUser;
  turn.speaker = "";
  turn.text = "Hi. My daughter started violin lessons at the music school. Ok?";
  const std::vector<TurnView> turns = {turn};
  const Narrative narrative = RenderNarrative(turns, 1);
  ASSERT_EQ(narrative.sentences.size(), 2u);
  EXPECT_EQ(narrative.sentences[0].text, "On 1 February 2024, the user spoke.");
  EXPECT_EQ(narrative.sentences[1].text,
            "The user said: \"My daughter started violin lessons at the music school.\"");
}

SceneEpisode Episode(const char* start, std::vector<float> vector,
                     std::map<std::string, std::size_t> terms = {}) {
  SceneEpisode episode;
  episode.start = At(start);
  episode.end = At(start);
  episode.vector = std::move(vector);
  episode.terms = std::move(terms);
  return episode;
}

TEST(ClusterScenesTest, JoinsSimilarEpisodesWithinTheTimeGap) {
  ConsolidateConfig config;
  config.scene_threshold = 0.7;
  config.scene_max_gap_days = 7;
  const std::vector<SceneEpisode> episodes = {
      Episode("2024-01-01T00:00:00Z", {1, 0}),
      Episode("2024-01-02T00:00:00Z", {0, 1}),      // orthogonal: a new scene
      Episode("2024-01-03T00:00:00Z", {0.9f, 0.1f}),  // joins the first
      Episode("2024-03-01T00:00:00Z", {1, 0}),      // similar, but 58 days after: new scene
  };
  const std::vector<SceneCluster> scenes = ClusterScenes(episodes, config);
  ASSERT_EQ(scenes.size(), 3u);
  EXPECT_THAT(scenes[0].members, ElementsAre(0u, 2u));
  EXPECT_THAT(scenes[1].members, ElementsAre(1u));
  EXPECT_THAT(scenes[2].members, ElementsAre(3u));
  EXPECT_NEAR(scenes[0].centroid[0], 0.95, 1e-6);
  EXPECT_NEAR(scenes[0].centroid[1], 0.05, 1e-6);
}

TEST(ClusterScenesTest, ThresholdDecides) {
  ConsolidateConfig config;
  config.scene_threshold = 0.8;
  // cos((1,0), (1,1)) = 0.707 < 0.8: two scenes; with tau 0.7 one.
  const std::vector<SceneEpisode> episodes = {Episode("2024-01-01T00:00:00Z", {1, 0}),
                                              Episode("2024-01-01T01:00:00Z", {1, 1})};
  EXPECT_EQ(ClusterScenes(episodes, config).size(), 2u);
  config.scene_threshold = 0.7;
  EXPECT_EQ(ClusterScenes(episodes, config).size(), 1u);
}

TEST(ClusterScenesTest, KeywordsAndSummaryFollowTheMembersTerms) {
  std::vector<SceneEpisode> episodes = {
      Episode("2024-01-01T00:00:00Z", {1}, {{"violin", 3}, {"school", 1}, {"ann", 2}}),
      Episode("2024-01-02T00:00:00Z", {1}, {{"violin", 1}, {"concert", 3}, {"ann", 2}}),
      // Outside the scene: makes "ann", used by every episode, less characteristic.
      Episode("2024-02-01T00:00:00Z", {-1}, {{"ann", 2}, {"weather", 1}}),
  };
  episodes[0].sentences = {{"t1", "Ann said: \"The weather is nice.\""},
                           {"t2", "Ann said: \"Violin practice at school.\""}};
  episodes[1].sentences = {{"t3", "Ann said: \"The violin concert is soon.\""}};
  SceneCluster scene{.members = {0, 1}, .centroid = {1}};
  // concert 3 x log(1 + 3/1) = 4.16, violin 4 x log(1 + 3/2) = 3.67, ann 4 x log(1 + 3/3) =
  // 2.77 (as frequent as violin here, but in every episode), school 1 x log 4 = 1.39.
  const std::vector<std::string> keywords = SceneKeywords(episodes, scene, 3);
  EXPECT_THAT(keywords, ElementsAre("concert", "violin", "ann"));
  const std::vector<NarrativeSentence> summary =
      SceneSummary(episodes, scene, std::span(keywords).first(2), 2);
  ASSERT_EQ(summary.size(), 2u);
  EXPECT_EQ(summary[0].turn_id, "t2");
  EXPECT_EQ(summary[1].turn_id, "t3");
}

TEST(HashedTermVectorTest, SameTermsSameVector) {
  const std::map<std::string, std::size_t> terms = {{"violin", 2}, {"school", 1}};
  const std::vector<float> vector = HashedTermVector(terms, 64);
  EXPECT_EQ(vector, HashedTermVector(terms, 64));
  float total = 0;
  for (const float value : vector) total += value;
  EXPECT_EQ(total, 3.0f);
}

FactView Fact(std::string id, std::string predicate, std::string object, NodeStatus status,
              const char* from, std::optional<const char*> to, std::string turn) {
  FactView fact;
  fact.id = std::move(id);
  fact.status = status;
  fact.subject = "Mia";
  fact.subject_is_speaker = true;
  fact.predicate = std::move(predicate);
  fact.object = std::move(object);
  fact.kind = "state";
  fact.single_valued = true;
  fact.valid_from = At(from);
  if (to.has_value()) fact.valid_to = At(*to);
  fact.turns = {std::move(turn)};
  return fact;
}

TEST(BuildProfilesTest, CurrentValueWithHistory) {
  std::vector<FactView> facts = {
      Fact("berlin", "lives_in", "Berlin", NodeStatus::kSuperseded, "2024-03-01T00:00:00Z",
           "2024-06-01T00:00:00Z", "turn1"),
      Fact("munich", "lives_in", "Munich", NodeStatus::kActive, "2024-06-01T00:00:00Z",
           std::nullopt, "turn3"),
  };
  const std::vector<PersonProfile> people = BuildProfiles(facts, "mia");
  ASSERT_EQ(people.size(), 1u);
  EXPECT_TRUE(people[0].scope_user);
  ASSERT_EQ(people[0].explicit_facts.size(), 1u);
  const ProfileSlot& slot = people[0].explicit_facts[0];
  EXPECT_EQ(slot.predicate, "lives_in");
  ASSERT_TRUE(slot.current.has_value());
  EXPECT_EQ(slot.current->object, "Munich");
  EXPECT_THAT(slot.current->turns, ElementsAre("turn3"));
  ASSERT_EQ(slot.history.size(), 1u);
  EXPECT_EQ(slot.history[0].object, "Berlin");
  EXPECT_EQ(slot.history[0].status, "superseded");
  EXPECT_THAT(slot.history[0].turns, ElementsAre("turn1"));
}

TEST(BuildProfilesTest, TraitsAggregateRepeatedEvidence) {
  FactView coffee = Fact("c1", "likes", "coffee", NodeStatus::kActive, "2024-01-01T00:00:00Z",
                         std::nullopt, "t1");
  coffee.kind = "preference";
  coffee.single_valued = false;
  coffee.turns = {"t1", "t4"};  // reinforced by a second turn
  FactView tea = coffee;
  tea.id = "c2";
  tea.object = "tea";
  tea.turns = {"t2"};
  FactView plan = coffee;
  plan.id = "p";
  plan.kind = "foresight";
  FactView maya = coffee;
  maya.id = "m";
  maya.subject = "Maya";
  maya.subject_is_speaker = false;
  const std::vector<PersonProfile> people = BuildProfiles({{tea, coffee, plan, maya}}, "mia");
  ASSERT_EQ(people.size(), 2u);
  EXPECT_EQ(people[0].name, "Mia");
  EXPECT_EQ(people[1].name, "Maya");
  ASSERT_EQ(people[0].traits.size(), 2u);  // foresight is not a trait
  EXPECT_EQ(people[0].traits[0].object, "coffee");
  EXPECT_EQ(people[0].traits[0].count, 2u);
  EXPECT_THAT(people[0].traits[0].turns, ElementsAre("t1", "t4"));
  EXPECT_EQ(people[0].traits[1].object, "tea");
}

}  // namespace
}  // namespace engram::consolidate
