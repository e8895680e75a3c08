// Tests for the entity-graph route, the fact route, fact provenance and the scope graph cache
// (entity_route.h, fact_route.h), on a SQLite store whose entities, facts and edges are written
// by hand through the edge registry, so every link and every score is known.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/ids.h"
#include "engram/testing/status_matchers.h"
#include "engram/testing/temp_dir.h"
#include "index/bm25/bm25_index.h"
#include "read/entity_route.h"
#include "read/fact_route.h"
#include "read/query_frame.h"
#include "read/turn_layout.h"
#include "text/tokenizer.h"
#include "write/capture.h"
#include "write/edge_registry.h"

namespace engram::read {
namespace {

using ::engram::testing::IsOk;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

Timestamp T(const char* text) { return *ParseTimestamp(text); }

struct Said {
  std::string speaker;
  std::string text;
};

// Turns 1-7 of one session. Links written below:
//   t1 Caroline  mentions Sweden, Oliver        t5 Caroline  refers_to Melanie ("Your")
//   t2 Melanie   mentions Caroline, Oliver      t6 Melanie   mentions Olly (same_as Oliver,
//   accepted) t3 Caroline  mentions Oliver                t7 Caroline  mentions Melanie, Mel (Mel:
//   pending) t4 Melanie   (no entity)
const std::vector<Said> kConversation = {
    {"Caroline", "I went to Sweden with Oliver last summer."},
    {"Melanie", "That sounds lovely, Caroline! How is Oliver?"},
    {"Caroline", "Oliver is great, he loves hiking."},
    {"Melanie", "I painted a lake yesterday."},
    {"Caroline", "Your painting of the lake is beautiful."},
    {"Melanie", "Thanks! Olly came to my pottery class."},
    {"Caroline", "Melanie, Mel, you should come hiking."},
};

class GraphRoutesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = store::OpenSqliteStore(path_);
    ASSERT_THAT(store.status(), IsOk());
    store_ = std::move(store).value();
    registry_ = write::EdgeRegistry::WithBuiltins();

    auto txn = store_->BeginWrite();
    ASSERT_THAT(txn.status(), IsOk());
    auto scope = write::EnsureScope(**txn, *registry_, *Scope::Parse("world:test"), now_);
    ASSERT_THAT(scope.status(), IsOk());
    scope_ = *scope;
    std::vector<Turn> turns;
    std::vector<std::string> metadata;
    for (const Said& said : kConversation) {
      Turn turn;
      turn.speaker = said.speaker;
      turn.text = said.text;
      turn.session_id = "s1";
      turn.event_time = T("2024-05-01T10:00:00Z");
      turns.push_back(turn);
      metadata.push_back("{}");
    }
    auto captured = write::CaptureTurns(**txn, *registry_, scope_, turns, metadata, now_);
    ASSERT_THAT(captured.status(), IsOk());
    turn_ids_ = captured->ids;

    const std::string caroline = Entity(**txn, "Caroline", "person", 1);
    const std::string melanie = Entity(**txn, "Melanie", "person", 2);
    const std::string sweden = Entity(**txn, "Sweden", "place", 1);
    const std::string oliver = Entity(**txn, "Oliver", "person", 1);
    const std::string olly = Entity(**txn, "Olly", "person", 6);
    const std::string mel = Entity(**txn, "Mel", "person", 7);
    Link(**txn, "mentions", 1, sweden);
    Link(**txn, "mentions", 1, oliver);
    Link(**txn, "mentions", 2, caroline);
    Link(**txn, "mentions", 2, oliver);
    Link(**txn, "mentions", 3, oliver);
    Link(**txn, "refers_to", 5, melanie);
    Link(**txn, "mentions", 6, olly);
    Link(**txn, "mentions", 7, melanie);
    Link(**txn, "mentions", 7, mel);
    auto accepted =
        registry_->Apply(**txn, {.type = "same_as", .src = olly, .dst = oliver, .now = now_});
    ASSERT_THAT(accepted.status(), IsOk());
    ASSERT_THAT(registry_->AcceptProposal(**txn, accepted->id, now_), IsOk());
    ASSERT_THAT(
        registry_->Apply(**txn, {.type = "same_as", .src = mel, .dst = melanie, .now = now_})
            .status(),
        IsOk());

    painted_ = Fact(**txn, "Melanie", "painted", "a lake", 4, /*timed=*/true);
    hiking_ = Fact(**txn, "Caroline", "likes", "hiking", 3, /*timed=*/false);
    boston_ = Fact(**txn, "Melanie", "lives_in", "Boston", 6, /*timed=*/false);
    denver_ = Fact(**txn, "Melanie", "lives_in", "Denver", 6, /*timed=*/false);
    ASSERT_THAT(registry_
                    ->Apply(**txn, {.type = "supersedes",
                                    .src = denver_,
                                    .dst = boston_,
                                    .valid_from = T("2024-05-01T10:00:00Z"),
                                    .now = now_})
                    .status(),
                IsOk());
    ASSERT_THAT((*txn)->Commit(), IsOk());

    // The BM25 projection and the layout, as the engine builds them (speaker + text).
    auto nodes = store_->ListNodes(scope_.scope_id, {.kind = NodeKind::kTurn});
    ASSERT_THAT(nodes.status(), IsOk());
    std::vector<LayoutTurn> layout_turns;
    for (const store::NodeRecord& node : *nodes) {
      index_.Add(static_cast<std::uint64_t>(node.row),
                 tokenizer_.Terms(node.speaker + " " + node.text));
      turn_rows_.push_back(node.row);
      layout_turns.push_back({.row = node.row,
                              .scope_id = node.scope_id,
                              .sequence = node.sequence,
                              .session_id = node.session_id,
                              .speaker = node.speaker,
                              .event_time = node.event_time});
    }
    layout_ = TurnLayout::FromTurns(std::move(layout_turns));
  }

  void TearDown() override { store_.reset(); }

  std::string Entity(store::Transaction& txn, const std::string& name, const std::string& kind,
                     std::int64_t sequence) {
    const nlohmann::json content = {
        {"key", text::NormalizeForIndex(name)}, {"kind", kind}, {"name", name}};
    return Insert(txn, NodeKind::kEntity, "entity", content, name, sequence, "");
  }

  std::string Fact(store::Transaction& txn, const std::string& subject,
                   const std::string& predicate, const std::string& object, int turn, bool timed) {
    nlohmann::json content = {{"subject", subject},
                              {"predicate", predicate},
                              {"object", object},
                              {"kind", "event"},
                              {"turn", turn_ids_[turn - 1]}};
    content["time"] = timed ? nlohmann::json{{"from", "2024-04-30T00:00:00Z"},
                                             {"to", "2024-05-01T00:00:00Z"},
                                             {"text", "yesterday"}}
                            : nlohmann::json(nullptr);
    std::string text = subject + " " + predicate + " " + object;
    const std::string id =
        Insert(txn, NodeKind::kFact, "fact", content, text, turn, kConversation[turn - 1].speaker);
    EXPECT_THAT(
        registry_
            ->Apply(txn,
                    {.type = "derived_from", .src = id, .dst = turn_ids_[turn - 1], .now = now_})
            .status(),
        IsOk());
    return id;
  }

  std::string Insert(store::Transaction& txn, NodeKind kind, const char* type,
                     const nlohmann::json& content, const std::string& text, std::int64_t sequence,
                     const std::string& speaker) {
    store::NodeRecord node;
    node.kind = kind;
    node.scope_id = scope_.scope_id;
    node.content_json = content.dump();
    node.metadata_json = node.content_json;
    node.id = core::NodeId(type, node.content_json, scope_.node_id, now_.micros);
    node.text = text;
    node.speaker = speaker;
    node.sequence = sequence;
    node.event_time = T("2024-05-01T10:00:00Z");
    node.valid_from = node.event_time;
    node.ingested_at = now_;
    node.updated_at = now_;
    EXPECT_THAT(txn.InsertNode(node).status(), IsOk());
    return node.id;
  }

  void Link(store::Transaction& txn, const char* type, int turn, const std::string& entity) {
    EXPECT_THAT(
        registry_
            ->Apply(txn, {.type = type, .src = turn_ids_[turn - 1], .dst = entity, .now = now_})
            .status(),
        IsOk());
  }

  QueryFrame Frame(std::string_view question) {
    QueryFrame frame = BuildQueryFrame(tokenizer_, question, T("2024-06-01T00:00:00Z"));
    for (const std::string& name : frame.names) {
      if (name == "Caroline" || name == "Melanie") frame.asked_speakers.push_back(name);
    }
    return frame;
  }

  // Runs a route; `with_text` gives it the layout and the BM25 index.
  std::vector<RouteCandidate> Run(const Route& route, const QueryFrame& frame,
                                  bool with_text = true) {
    RouteContext context;
    context.frame = &frame;
    context.config = &config_;
    if (with_text) {
      context.text_indexes = std::span<const index::Bm25Index* const>(&index_pointer_, 1);
      context.layout = &layout_;
    }
    context.store = store_.get();
    context.scope_ids = std::span<const std::int64_t>(&scope_.scope_id, 1);
    context.limit = 100;
    StatusOr<std::vector<RouteCandidate>> candidates = route.Run(context);
    EXPECT_THAT(candidates.status(), IsOk());
    return candidates.ok() ? *candidates : std::vector<RouteCandidate>{};
  }

  std::int64_t Row(int turn) const { return turn_rows_[turn - 1]; }
  std::int64_t FactRow(const std::string& id) {
    auto node = store_->GetNode(id);
    EXPECT_THAT(node.status(), IsOk());
    return node.ok() ? node->row : 0;
  }
  static std::vector<std::int64_t> Rows(const std::vector<RouteCandidate>& candidates) {
    std::vector<std::int64_t> rows;
    for (const RouteCandidate& candidate : candidates) rows.push_back(candidate.row);
    return rows;
  }
  double Idf(const std::string& term) const {
    const double n = static_cast<double>(index_.doc_count());
    const double df = static_cast<double>(index_.DocumentFrequency(term));
    return std::log(1.0 + (n - df + 0.5) / (df + 0.5));
  }

  const Timestamp now_ = T("2024-06-01T00:00:00Z");
  engram::testing::TempDir temp_dir_{"engram_graph_routes"};
  std::string path_ = temp_dir_.File("engram.db");
  std::unique_ptr<store::Store> store_;
  std::unique_ptr<write::EdgeRegistry> registry_;
  store::ScopeRecord scope_;
  std::vector<std::string> turn_ids_;
  std::vector<std::int64_t> turn_rows_;
  std::string painted_, hiking_, boston_, denver_;
  text::Tokenizer tokenizer_;
  index::Bm25Index index_;
  const index::Bm25Index* index_pointer_ = &index_;
  TurnLayout layout_ = TurnLayout::FromTurns({});
  Config config_;
  std::shared_ptr<ScopeGraphCache> cache_ = std::make_shared<ScopeGraphCache>();
};

TEST_F(GraphRoutesTest, GraphHoldsClassesLinksAndFactSupport) {
  auto graphs = cache_->Get(*store_, std::span<const std::int64_t>(&scope_.scope_id, 1), true);
  ASSERT_THAT(graphs.status(), IsOk());
  ASSERT_EQ(graphs->size(), 1u);
  const ScopeGraph& graph = *graphs->front();
  EXPECT_EQ(graph.turn_count, 7u);
  EXPECT_EQ(graph.entities.size(), 6u);
  // Olly joins Oliver (accepted); Mel stays apart from Melanie (pending): 5 classes.
  ASSERT_EQ(graph.classes.size(), 5u);
  const auto class_of = [&](const std::string& name) -> const EntityClass& {
    for (const GraphEntity& entity : graph.entities) {
      if (entity.name == name) return graph.classes[entity.class_index];
    }
    ADD_FAILURE() << name;
    return graph.classes.front();
  };
  std::vector<std::int64_t> oliver_rows;
  for (const GraphLink& link : class_of("Oliver").links) oliver_rows.push_back(link.turn_row);
  EXPECT_THAT(oliver_rows, ElementsAre(Row(1), Row(2), Row(3), Row(6)));
  // Speakers: Caroline and Melanie by name, Mel through its pending proposal to Melanie.
  std::vector<std::string> speakers;
  for (const GraphEntity& entity : graph.entities) {
    if (entity.speaker) speakers.push_back(entity.name);
  }
  EXPECT_THAT(speakers, ElementsAre("Caroline", "Melanie", "Mel"));
  ASSERT_EQ(class_of("Melanie").links.size(), 2u);
  EXPECT_TRUE(class_of("Melanie").links[0].referred);
  EXPECT_FALSE(class_of("Melanie").links[0].mentioned);
  EXPECT_TRUE(class_of("Melanie").links[1].mentioned);
  ASSERT_EQ(graph.facts.size(), 4u);
  EXPECT_EQ(graph.facts[0].predicate, "painted");
  EXPECT_THAT(graph.facts[0].terms, ElementsAre("lake", "paint"));
  EXPECT_TRUE(graph.facts[0].has_time);
  EXPECT_THAT(graph.facts[0].support_ids, ElementsAre(turn_ids_[3]));
  EXPECT_EQ(graph.facts[2].status, NodeStatus::kSuperseded);
  EXPECT_THAT(graph.facts[3].terms, ElementsAre("denver", "live"));
}

TEST_F(GraphRoutesTest, CacheServesTheSameGraphUntilTheScopeChanges) {
  const std::span<const std::int64_t> scopes(&scope_.scope_id, 1);
  auto first = cache_->Get(*store_, scopes, true);
  auto second = cache_->Get(*store_, scopes, true);
  ASSERT_THAT(first.status(), IsOk());
  ASSERT_THAT(second.status(), IsOk());
  EXPECT_EQ(first->front().get(), second->front().get());

  // A new mention of Sweden in turn 4: the next Get reloads the scope.
  auto txn = store_->BeginWrite();
  ASSERT_THAT(txn.status(), IsOk());
  auto graph = first->front();
  std::string sweden;
  for (const GraphEntity& entity : graph->entities) {
    if (entity.name == "Sweden") sweden = entity.id;
  }
  Link(**txn, "mentions", 4, sweden);
  ASSERT_THAT((*txn)->Commit(), IsOk());
  auto third = cache_->Get(*store_, scopes, true);
  ASSERT_THAT(third.status(), IsOk());
  EXPECT_NE(third->front().get(), first->front().get());
  const std::vector<RouteCandidate> candidates =
      Run(EntityRoute(cache_), Frame("Who went to Sweden?"));
  EXPECT_THAT(Rows(candidates), ElementsAre(Row(1), Row(4)));
}

TEST_F(GraphRoutesTest, EntityRouteProposesTheTurnsOfTheAskedEntityAndItsAcceptedAliases) {
  const EntityRoute route(cache_);
  // Oliver's class (Oliver + Olly): df 4 of 7 turns, w = ln(1 + 7/4); no text: equal scores,
  // ties by row.
  const std::vector<RouteCandidate> candidates =
      Run(route, Frame("Where does Oliver work?"), /*with_text=*/false);
  EXPECT_THAT(Rows(candidates), ElementsAre(Row(1), Row(2), Row(3), Row(6)));
  EXPECT_DOUBLE_EQ(candidates[0].score, std::log(1.0 + 7.0 / 4.0));
  EXPECT_THAT(candidates[0].explanation, HasSubstr("Oliver (df 4 of 7, w 1.01, mentions)"));
  EXPECT_THAT(Run(route, Frame("Where does Nobody work?")), IsEmpty());
  EXPECT_THAT(Run(route, Frame("where does oliver work?")), IsEmpty());  // no capitalised name
}

TEST_F(GraphRoutesTest, TurnsMatchingSeveralRareEntitiesRankFirst) {
  // Sweden (df 1, w ln 8) + Oliver (df 4, w ln 2.75): turn 1 first; then Oliver's other turns,
  // the one holding "hiking" (own BM25 > 0) before the others (by row).
  const std::vector<RouteCandidate> candidates =
      Run(EntityRoute(cache_), Frame("Did Oliver enjoy Sweden and hiking?"));
  EXPECT_THAT(Rows(candidates), ElementsAre(Row(1), Row(3), Row(2), Row(6)));
  EXPECT_DOUBLE_EQ(candidates[0].score, std::log(8.0) + std::log(1.0 + 7.0 / 4.0));
  EXPECT_GT(candidates[1].score, std::log(1.0 + 7.0 / 4.0));
  EXPECT_DOUBLE_EQ(candidates[2].score, std::log(1.0 + 7.0 / 4.0));
  EXPECT_THAT(candidates[0].explanation, HasSubstr("Sweden (df 1 of 7, w 2.08, mentions)"));
  EXPECT_THAT(candidates[0].explanation, HasSubstr("+ Oliver (df 4 of 7"));
}

TEST_F(GraphRoutesTest, ASpeakerOnlyAddsToTurnsOfAnotherAskedEntity) {
  // Melanie is a speaker (linked to turns 5 and 7): asked alone, the route proposes nothing.
  EXPECT_THAT(Run(EntityRoute(cache_), Frame("What did Melanie paint?")), IsEmpty());
  EXPECT_THAT(Run(EntityRoute(cache_), Frame("What did Mel say?")), IsEmpty());
  // With Oliver: Oliver's turns only; Melanie links none of them, so the speaker adds nothing
  // and "Mel" (a pending proposal, turn 7) is not Melanie.
  const std::vector<RouteCandidate> candidates =
      Run(EntityRoute(cache_), Frame("Did Melanie meet Oliver?"), /*with_text=*/false);
  EXPECT_THAT(Rows(candidates), ElementsAre(Row(1), Row(2), Row(3), Row(6)));
  // Caroline (speaker; mentioned in turn 2) adds her weight to turn 2 only: df 1 of 7, w ln 8.
  const std::vector<RouteCandidate> with_caroline =
      Run(EntityRoute(cache_), Frame("Did Caroline meet Oliver?"), /*with_text=*/false);
  EXPECT_THAT(Rows(with_caroline), ElementsAre(Row(2), Row(1), Row(3), Row(6)));
  EXPECT_DOUBLE_EQ(with_caroline[0].score, std::log(8.0) + std::log(1.0 + 7.0 / 4.0));
  EXPECT_THAT(with_caroline[0].explanation,
              HasSubstr("Caroline [speaker] (df 1 of 7, w 2.08, mentions)"));
}

TEST_F(GraphRoutesTest, FactRouteScoresTermsSubjectAndShape) {
  const FactRoute route(cache_);
  // "paint" matches "painted"; the subject is asked: × 2.
  std::vector<RouteCandidate> candidates = Run(route, Frame("What did Melanie paint?"));
  ASSERT_EQ(candidates.size(), 1u);
  EXPECT_EQ(candidates[0].row, FactRow(painted_));
  EXPECT_DOUBLE_EQ(candidates[0].score, Idf("paint") * 2.0);
  EXPECT_THAT(candidates[0].explanation, HasSubstr("fact Melanie painted \"a lake\""));
  EXPECT_THAT(candidates[0].explanation, HasSubstr("subject asked"));

  // Someone else's fact: × 0.5.
  candidates = Run(route, Frame("What does Melanie like?"));
  ASSERT_EQ(candidates.size(), 1u);
  EXPECT_EQ(candidates[0].row, FactRow(hiking_));
  EXPECT_DOUBLE_EQ(candidates[0].score, Idf("like") * 0.5);
  candidates = Run(route, Frame("What does Caroline like?"));
  ASSERT_EQ(candidates.size(), 1u);
  EXPECT_DOUBLE_EQ(candidates[0].score, Idf("like") * 2.0);

  // "when": the untimed fact counts half, the timed one fully.
  candidates = Run(route, Frame("When did Caroline like hiking or paint a lake?"));
  ASSERT_EQ(candidates.size(), 2u);
  EXPECT_EQ(candidates[0].row, FactRow(hiking_));
  EXPECT_DOUBLE_EQ(candidates[0].score, (Idf("like") + Idf("hike")) * 2.0 * 0.5);
  EXPECT_THAT(candidates[0].explanation, HasSubstr("when without a time"));
  EXPECT_DOUBLE_EQ(candidates[1].score, (Idf("paint") + Idf("lake")) * 0.5);
}

TEST_F(GraphRoutesTest, SupersededFactsOnlyWhenHistoryIsAsked) {
  const FactRoute route(cache_);
  EXPECT_THAT(Rows(Run(route, Frame("Where does Melanie live?"))), ElementsAre(FactRow(denver_)));
  EXPECT_THAT(Rows(Run(route, Frame("Where did Melanie live previously?"))),
              ElementsAre(FactRow(boston_), FactRow(denver_)));
  EXPECT_THAT(Run(route, Frame("What did Melanie eat?")), IsEmpty());
}

TEST_F(GraphRoutesTest, FactItemsListTheirSupportingTurns) {
  std::vector<RecallItem> items(2);
  items[0].id = painted_;
  items[0].kind = NodeKind::kFact;
  items[1].id = turn_ids_[0];
  items[1].kind = NodeKind::kTurn;
  items[1].provenance = {turn_ids_[0]};
  ASSERT_THAT(ExpandFactProvenance(*store_, items), IsOk());
  EXPECT_THAT(items[0].provenance, ElementsAre(turn_ids_[3]));
  EXPECT_THAT(items[1].provenance, ElementsAre(turn_ids_[0]));
}

// The routes' weights are [recall] keys: entity_lexical_weight, facts_asked_subject,
// facts_other_subject and facts_untimed_when.
TEST_F(GraphRoutesTest, GraphRouteWeightsComeFromTheConfig) {
  config_.recall.entity_lexical_weight = 0;  // turn 3's "hiking" no longer lifts it
  const std::vector<RouteCandidate> entities =
      Run(EntityRoute(cache_), Frame("Did Oliver enjoy Sweden and hiking?"));
  EXPECT_THAT(Rows(entities), ElementsAre(Row(1), Row(2), Row(3), Row(6)));
  EXPECT_DOUBLE_EQ(entities[2].score, std::log(1.0 + 7.0 / 4.0));

  config_.recall.facts_asked_subject = 3.0;
  config_.recall.facts_other_subject = 0.25;
  config_.recall.facts_untimed_when = 0.1;
  const FactRoute facts(cache_);
  std::vector<RouteCandidate> candidates = Run(facts, Frame("What did Melanie paint?"));
  ASSERT_EQ(candidates.size(), 1u);
  EXPECT_DOUBLE_EQ(candidates[0].score, Idf("paint") * 3.0);
  candidates = Run(facts, Frame("What does Melanie like?"));
  ASSERT_EQ(candidates.size(), 1u);
  EXPECT_DOUBLE_EQ(candidates[0].score, Idf("like") * 0.25);
  candidates = Run(facts, Frame("When did Caroline like hiking or paint a lake?"));
  ASSERT_EQ(candidates.size(), 2u);
  for (const RouteCandidate& candidate : candidates) {
    const double expected = candidate.row == FactRow(hiking_)
                                ? (Idf("like") + Idf("hike")) * 3.0 * 0.1
                                : (Idf("paint") + Idf("lake")) * 0.25;
    EXPECT_DOUBLE_EQ(candidate.score, expected);
  }
}

TEST_F(GraphRoutesTest, RoutesAreDeterministic) {
  const QueryFrame frame = Frame("Did Oliver enjoy Sweden with Melanie?");
  const std::vector<RouteCandidate> first = Run(EntityRoute(cache_), frame);
  const std::vector<RouteCandidate> second =
      Run(EntityRoute(std::make_shared<ScopeGraphCache>()), frame);
  ASSERT_EQ(first.size(), second.size());
  for (std::size_t index = 0; index < first.size(); ++index) {
    EXPECT_EQ(first[index].row, second[index].row);
    EXPECT_EQ(first[index].score, second[index].score);
    EXPECT_EQ(first[index].explanation, second[index].explanation);
  }
}

}  // namespace
}  // namespace engram::read
