// The write path does not depend on how turns are batched: the same conversation remembered in
// one Remember call and one call per turn gives the same derived nodes and edges (focus stacks
// and the divergence window are rebuilt from the stored turns). Also: DMF divergence from the
// turn embeddings, and at_time edges from facts to the times they mention.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engram/engine.h"
#include "engram/testing/status_matchers.h"
#include "store/store.h"
#include "test_util.h"

namespace engram {
namespace {

using ::engram::testing::IsOk;
using testing::MakeTurn;
using testing::OpenOrDie;
using testing::S;
using testing::TempDir;
using testing::TestOptions;

std::vector<Turn> Conversation() {
  return {
      MakeTurn("Caroline", "I moved to Berlin last March. Shipping cost $1,250!", "s1",
               "2024-05-10T12:00:00Z"),
      MakeTurn("Melanie", "I was there yesterday with my friend Anna.", "s1",
               "2024-05-10T12:01:00Z"),
      MakeTurn("Caroline", "She said it was great there.", "s1", "2024-05-10T12:02:00Z"),
      MakeTurn("Melanie", "What did you do that day?", "s1", "2024-05-10T12:03:00Z"),
      MakeTurn("Caroline", "No, I meant Munich.", "s1", "2024-05-10T12:04:00Z"),
      MakeTurn("Caroline", "I used to live in Munich, it was cold.", "s2", "2024-05-12T09:00:00Z"),
  };
}

EngineOptions Options(const TempDir& dir, const std::string& embedder) {
  EngineOptions options = TestOptions(dir);
  Config config;
  config.embedder.kind = embedder;
  config.embedder.hashing_dimension = 64;
  options.config = config;
  return options;
}

std::string Time(const std::optional<Timestamp>& time) {
  return time.has_value() ? FormatTimestamp(*time) : "-";
}

// Every node and edge of the scope without what depends on transaction time (rows, edge ids,
// ingestion times), sorted.
struct Snapshot {
  std::vector<std::string> nodes;
  std::vector<std::string> edges;
};

Snapshot Take(const TempDir& dir, const std::string& scope_path) {
  Snapshot snapshot;
  auto store = store::OpenSqliteStore(dir.File("engram.db"));
  EXPECT_THAT(store, IsOk());
  if (!store.ok()) return snapshot;
  auto scope = (*store)->FindScope(scope_path);
  EXPECT_TRUE(scope.ok() && scope->has_value());
  store::NodeFilter filter;
  filter.after_sequence = -1;
  auto nodes = (*store)->ListNodes((*scope)->scope_id, filter);
  EXPECT_THAT(nodes, IsOk());
  for (const store::NodeRecord& node : *nodes) {
    snapshot.nodes.push_back(std::string(NodeKindName(node.kind)) + " " + node.id + " " +
                             std::string(NodeStatusName(node.status)) + " " +
                             std::to_string(node.sequence) + " " + Time(node.valid_from) + " " +
                             Time(node.valid_to) + " " + node.content_json);
  }
  // The turns' analysis rows (by turn id: rows differ between the two stores).
  std::vector<std::int64_t> turn_rows;
  std::map<std::int64_t, std::string> turn_ids;
  for (const store::NodeRecord& node : *nodes) {
    if (node.kind != NodeKind::kTurn) continue;
    turn_rows.push_back(node.row);
    turn_ids[node.row] = node.id;
  }
  auto analyses = (*store)->GetTurnAnalyses(turn_rows);
  EXPECT_THAT(analyses, IsOk());
  EXPECT_EQ(analyses->size(), turn_rows.size());
  for (const store::TurnAnalysisRecord& analysis : *analyses) {
    snapshot.nodes.push_back("analysis " + turn_ids[analysis.turn_row] + " " +
                             std::to_string(analysis.format) + " " + analysis.bytes);
  }
  auto edges = (*store)->EdgesInScope((*scope)->scope_id, "");
  EXPECT_THAT(edges, IsOk());
  for (const store::EdgeRecord& edge : *edges) {
    snapshot.edges.push_back(edge.type + " " + edge.src + " " + edge.dst + " " + edge.status + " " +
                             Time(edge.valid_from) + " " + Time(edge.valid_to) + " " +
                             edge.attrs_json);
  }
  std::sort(snapshot.nodes.begin(), snapshot.nodes.end());
  std::sort(snapshot.edges.begin(), snapshot.edges.end());
  return snapshot;
}

// The content signals' divergence of each turn (its analysis row), in turn order.
std::vector<double> Divergences(Engine& engine, const std::string& scope) {
  ListOptions options;
  options.kind = NodeKind::kTurn;
  options.limit = 0;
  auto turns = engine.List(S(scope), options);
  EXPECT_THAT(turns, IsOk());
  std::vector<std::pair<std::int64_t, double>> found;
  for (const Memory& turn : *turns) {
    auto analysis = engine.Analysis(turn.id);
    EXPECT_THAT(analysis, IsOk());
    if (!analysis.ok() || analysis->empty()) continue;
    const nlohmann::json row = nlohmann::json::parse(*analysis);
    found.emplace_back(turn.sequence, row["content"]["divergence"].get<double>());
  }
  std::sort(found.begin(), found.end());
  std::vector<double> divergences;
  for (const auto& [sequence, divergence] : found) divergences.push_back(divergence);
  return divergences;
}

TEST(WriteBatchingTest, OneBatchAndOneTurnPerCallGiveTheSameNodesAndEdges) {
  TempDir batched_dir;
  TempDir single_dir;
  std::vector<std::string> single_ids;
  {
    auto batched = OpenOrDie(Options(batched_dir, "hashing"));
    ASSERT_THAT(batched->Remember(S("user:c"), Conversation()), IsOk());
    auto single = OpenOrDie(Options(single_dir, "hashing"));
    for (const Turn& turn : Conversation()) {
      auto remembered = single->Remember(S("user:c"), std::vector<Turn>{turn});
      ASSERT_THAT(remembered, IsOk());
      single_ids.push_back(remembered->ids[0]);
    }
    // References reach across calls: "She ... there" binds Anna and Berlin from earlier calls.
    auto links = single->Links(single_ids[2]);
    ASSERT_THAT(links, IsOk());
    std::vector<std::string> surfaces;
    for (const Link& link : *links) {
      if (link.type != "refers_to") continue;
      const nlohmann::json attrs = nlohmann::json::parse(link.attrs_json);
      for (const auto& reference : attrs["references"]) surfaces.push_back(reference["surface"]);
    }
    EXPECT_THAT(surfaces, ::testing::UnorderedElementsAre("She", "there"));
  }
  const Snapshot batched = Take(batched_dir, "user:c");
  const Snapshot single = Take(single_dir, "user:c");
  EXPECT_GT(batched.nodes.size(), 20u);
  EXPECT_EQ(batched.nodes, single.nodes);
  EXPECT_EQ(batched.edges, single.edges);
}

TEST(WriteBatchingTest, DivergenceComesFromTheEmbeddings) {
  TempDir dir;
  TempDir none_dir;
  auto engine = OpenOrDie(Options(dir, "hashing"));
  ASSERT_THAT(engine->Remember(S("user:c"), Conversation()), IsOk());
  const std::vector<double> divergences = Divergences(*engine, "user:c");
  ASSERT_EQ(divergences.size(), 6u);
  EXPECT_EQ(divergences[0], 0.0);  // nothing before the first turn
  for (std::size_t turn_idx = 1; turn_idx < divergences.size(); ++turn_idx) {
    EXPECT_GT(divergences[turn_idx], 0.0) << turn_idx;
    EXPECT_LE(divergences[turn_idx], 2.0) << turn_idx;
  }
  // The same text twice right after itself diverges less than a new topic.
  ASSERT_THAT(engine->Remember(S("user:d"), std::vector<Turn>{MakeTurn("Ann", "I love jazz."),
                                                              MakeTurn("Ann", "I love jazz."),
                                                              MakeTurn("Ann", "Tax forms due.")}),
              IsOk());
  const std::vector<double> repeated = Divergences(*engine, "user:d");
  ASSERT_EQ(repeated.size(), 3u);
  EXPECT_EQ(repeated[1], 0.0);
  EXPECT_GT(repeated[2], 0.5);

  auto without = OpenOrDie(Options(none_dir, "none"));
  ASSERT_THAT(without->Remember(S("user:c"), Conversation()), IsOk());
  for (const double divergence : Divergences(*without, "user:c")) EXPECT_EQ(divergence, 0.0);
}

TEST(WriteBatchingTest, FactsLinkToTheTimesTheyMention) {
  TempDir dir;
  auto engine = OpenOrDie(Options(dir, "none"));
  ASSERT_THAT(engine->Remember(S("user:c"), Conversation()), IsOk());
  ListOptions options;
  options.kind = NodeKind::kFact;
  options.limit = 0;
  auto facts = engine->List(S("user:c"), options);
  ASSERT_THAT(facts, IsOk());
  const Memory* berlin = nullptr;
  for (const Memory& fact : *facts) {
    const nlohmann::json fields = nlohmann::json::parse(fact.metadata_json);
    if (fields["predicate"] == "lives_in" && fields["object"] == "Berlin") berlin = &fact;
  }
  ASSERT_NE(berlin, nullptr);
  auto links = engine->Links(berlin->id);
  ASSERT_THAT(links, IsOk());
  std::vector<std::string> times;
  for (const Link& link : *links) {
    if (link.type != "at_time" || link.src != berlin->id) continue;
    auto signal = engine->Get(link.dst);
    ASSERT_THAT(signal, IsOk());
    const nlohmann::json content = nlohmann::json::parse(signal->metadata_json);
    times.push_back(content["surface"].get<std::string>() + " " +
                    content["from"].get<std::string>());
  }
  EXPECT_THAT(times, ::testing::ElementsAre("last March 2024-03-01"));
}

TEST(WriteBatchingTest, BareCorrectionsNeedANounForACommonNoun) {
  TempDir dir;
  auto engine = OpenOrDie(Options(dir, "none"));
  ASSERT_THAT(
      engine->Remember(S("user:m"), std::vector<Turn>{MakeTurn("Mia", "I like olives."),
                                                      MakeTurn("Mia", "No, I meant capers."),
                                                      MakeTurn("Mia", "I love painting."),
                                                      MakeTurn("Mia", "I mean, it was great."),
                                                      MakeTurn("Mia", "Actually, that's fine.")}),
      IsOk());
  ListOptions options;
  options.kind = NodeKind::kFact;
  options.limit = 0;
  auto facts = engine->List(S("user:m"), options);
  ASSERT_THAT(facts, IsOk());
  std::vector<std::string> current;
  for (const Memory& fact : *facts) {
    const nlohmann::json fields = nlohmann::json::parse(fact.metadata_json);
    if (fact.status == NodeStatus::kActive) {
      current.push_back(fields["predicate"].get<std::string>() + " " +
                        fields["object"].get<std::string>());
    }
  }
  // "capers" (a noun) corrects "olives"; "great" and "fine" (adjectives) correct nothing.
  EXPECT_THAT(current, ::testing::UnorderedElementsAre("likes capers", "likes painting"));
}

}  // namespace
}  // namespace engram
