// The world graph through the public API (include/engram/graph.h): neighbours, paths and identity
// classes as of a time, and client edges of the types declared in [graph] edge_types.
//
// The fixture: Mia tells engram about her sister Lena and Lena's friend Tom in March (an engine
// whose clock reads 2024-03-10); in April a client records that Lena owns the bicycle Mia talked
// about, in June that she owns the car instead ("owns" is single-valued, so the April edge is
// superseded then). Asked as of May, Lena owns the bicycle; asked now, the car; asked what engram
// knew in March, nothing.
#include "engram/graph.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "engram/engine.h"
#include "engram/testing/status_matchers.h"
#include "test_util.h"

namespace engram {
namespace {

using ::engram::testing::IsOk;
using ::engram::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

Timestamp T(const char* iso) { return *ParseTimestamp(iso); }

constexpr const char* kEdgeTypes =
    "owns:single_valued, sibling_of:symmetric, part_of:transitive, knows";

class WorldGraphTest : public ::testing::Test {
 protected:
  void SetUp() override {
    {
      std::unique_ptr<Engine> engine = Open("2024-03-10T10:00:00Z");
      const std::vector<Turn> turns = {
          testing::MakeTurn("Mia", "My sister Lena lives in Porto.", "s1", "2024-03-10T09:00:00Z"),
          testing::MakeTurn("Mia", "Lena and Tom went hiking in the Alps.", "s1",
                            "2024-03-10T09:01:00Z"),
          testing::MakeTurn("Mia", "I sold my old bicycle last week.", "s1",
                            "2024-03-10T09:02:00Z"),
          testing::MakeTurn("Mia", "The blue car needs new tyres.", "s1", "2024-03-10T09:03:00Z"),
      };
      StatusOr<RememberResult> written = engine->Remember(scope_, turns);
      ASSERT_THAT(written, IsOk());
      turns_ = written->ids;
      StatusOr<std::vector<Memory>> entities =
          engine->List(scope_, {.limit = 0, .kind = NodeKind::kEntity});
      ASSERT_THAT(entities, IsOk());
      for (const Memory& entity : *entities) {
        if (entity.text == "Lena") lena_ = entity.id;
        if (entity.text == "Tom") tom_ = entity.id;
      }
      ASSERT_FALSE(lena_.empty());
      ASSERT_FALSE(tom_.empty());
    }
    {
      std::unique_ptr<Engine> engine = Open("2024-04-01T00:00:00Z");
      StatusOr<GraphEdge> bicycle =
          engine->AddEdge(scope_, {.type = "owns", .src = lena_, .dst = turns_[2]});
      ASSERT_THAT(bicycle, IsOk());
      bicycle_edge_ = bicycle->id;
    }
    {
      std::unique_ptr<Engine> engine = Open("2024-06-01T00:00:00Z");
      StatusOr<GraphEdge> car = engine->AddEdge(
          scope_,
          {.type = "owns", .src = lena_, .dst = turns_[3], .attrs_json = R"({"since":"June"})"});
      ASSERT_THAT(car, IsOk());
      car_edge_ = car->id;
    }
    engine_ = Open("2024-09-01T00:00:00Z");
  }

  std::unique_ptr<Engine> Open(const char* now, const char* edge_types = kEdgeTypes) {
    EngineOptions options = testing::TestOptions(dir_);
    options.config = Config{};
    options.config->embedder.kind = "none";
    options.config->graph.edge_types = edge_types;
    options.clock = FixedClock(T(now), 1000);
    return testing::OpenOrDie(options);
  }

  // The ids at the other end of the neighbours.
  static std::vector<std::string> Others(const NeighboursResult& result) {
    std::vector<std::string> ids;
    for (const GraphNeighbour& neighbour : result.neighbours) ids.push_back(neighbour.node.id);
    return ids;
  }

  std::vector<std::string> Owned(GraphQueryOptions options) {
    options.edge_types = {"owns"};
    options.direction = GraphDirection::kOutgoing;
    StatusOr<NeighboursResult> result = engine_->Neighbours(lena_, options);
    EXPECT_THAT(result, IsOk());
    return result.ok() ? Others(*result) : std::vector<std::string>{};
  }

  testing::TempDir dir_;
  const Scope scope_ = testing::S("user:mia");
  std::vector<std::string> turns_;
  std::string lena_;
  std::string tom_;
  std::string bicycle_edge_;
  std::string car_edge_;
  std::unique_ptr<Engine> engine_;
};

TEST_F(WorldGraphTest, NeighboursAreTheTurnsMentioningAnEntity) {
  StatusOr<NeighboursResult> result = engine_->Neighbours(
      lena_, {.edge_types = {"mentions"}, .direction = GraphDirection::kIncoming});
  ASSERT_THAT(result, IsOk());
  EXPECT_EQ(result->node.id, lena_);
  EXPECT_EQ(result->node.kind, NodeKind::kEntity);
  EXPECT_THAT(Others(*result), ElementsAre(turns_[0], turns_[1]));
  for (const GraphNeighbour& neighbour : result->neighbours) {
    EXPECT_EQ(neighbour.edge.type, "mentions");
    EXPECT_EQ(neighbour.direction, GraphDirection::kIncoming);
    EXPECT_EQ(neighbour.edge.dst, lena_);
    EXPECT_THAT(neighbour.node.text, HasSubstr("Lena"));
    EXPECT_EQ(neighbour.node.scope, "user:mia");
  }
  EXPECT_FALSE(result->truncated);
}

TEST_F(WorldGraphTest, LimitCutsTheNeighboursAndSaysSo) {
  StatusOr<NeighboursResult> result = engine_->Neighbours(
      lena_, {.edge_types = {"mentions"}, .direction = GraphDirection::kIncoming, .limit = 1});
  ASSERT_THAT(result, IsOk());
  EXPECT_THAT(Others(*result), ElementsAre(turns_[0]));
  EXPECT_TRUE(result->truncated);
}

TEST_F(WorldGraphTest, SingleValuedEdgeAnswersByDate) {
  // Now: the car (the bicycle edge was superseded in June).
  EXPECT_THAT(Owned({}), ElementsAre(turns_[3]));
  // Valid in May: the bicycle.
  EXPECT_THAT(Owned({.valid_at = T("2024-05-01T00:00:00Z")}), ElementsAre(turns_[2]));
  // Known in March: no edge had been added yet.
  EXPECT_THAT(Owned({.known_at = T("2024-03-15T00:00:00Z")}), IsEmpty());
  // Known in May: the bicycle edge, still active as recorded then.
  EXPECT_THAT(Owned({.known_at = T("2024-05-01T00:00:00Z")}), ElementsAre(turns_[2]));
  // Every edge, whatever its status.
  EXPECT_THAT(Owned({.include_retired = true}), ElementsAre(turns_[2], turns_[3]));

  StatusOr<GraphEdge> bicycle = engine_->GetEdge(bicycle_edge_);
  ASSERT_THAT(bicycle, IsOk());
  EXPECT_EQ(bicycle->status, "superseded");
  EXPECT_EQ(bicycle->valid_to, T("2024-06-01T00:00:00Z"));
  StatusOr<GraphEdge> car = engine_->GetEdge(car_edge_);
  ASSERT_THAT(car, IsOk());
  EXPECT_EQ(car->status, "active");
  EXPECT_EQ(car->scope, "user:mia");
  EXPECT_EQ(car->attrs_json, R"({"since":"June"})");
}

TEST_F(WorldGraphTest, KnownAtShowsTheEdgeStatusRecordedThen) {
  StatusOr<NeighboursResult> may =
      engine_->Neighbours(lena_, {.edge_types = {"owns"}, .known_at = T("2024-05-01T00:00:00Z")});
  ASSERT_THAT(may, IsOk());
  ASSERT_THAT(may->neighbours, SizeIs(1));
  EXPECT_EQ(may->neighbours[0].edge.status, "active");
  EXPECT_EQ(may->neighbours[0].edge.valid_to, std::nullopt);
}

TEST_F(WorldGraphTest, RetiredEdgeLeavesTheCurrentGraphButNotThePast) {
  ASSERT_THAT(engine_->RetireEdge(car_edge_), IsOk());
  EXPECT_THAT(Owned({}), IsEmpty());
  EXPECT_THAT(Owned({.valid_at = T("2024-07-01T00:00:00Z")}), ElementsAre(turns_[3]));
  EXPECT_THAT(engine_->RetireEdge(car_edge_), StatusIs(StatusCode::kFailedPrecondition));
  // engram's own edges are not the client's to retire.
  StatusOr<NeighboursResult> mentions = engine_->Neighbours(lena_, {.edge_types = {"mentions"}});
  ASSERT_THAT(mentions, IsOk());
  ASSERT_FALSE(mentions->neighbours.empty());
  EXPECT_THAT(engine_->RetireEdge(mentions->neighbours[0].edge.id),
              StatusIs(StatusCode::kInvalidArgument));
}

TEST_F(WorldGraphTest, SymmetricEdgeIsStoredOnceInIdOrder) {
  StatusOr<GraphEdge> edge =
      engine_->AddEdge(scope_, {.type = "sibling_of", .src = tom_, .dst = lena_});
  ASSERT_THAT(edge, IsOk());
  EXPECT_EQ(edge->src, std::min(tom_, lena_));
  EXPECT_EQ(edge->dst, std::max(tom_, lena_));
  // The same pair in either order again: already there.
  EXPECT_THAT(engine_->AddEdge(scope_, {.type = "sibling_of", .src = lena_, .dst = tom_}),
              StatusIs(StatusCode::kAlreadyExists));
  EXPECT_THAT(engine_->AddEdge(scope_, {.type = "sibling_of", .src = tom_, .dst = lena_}),
              StatusIs(StatusCode::kAlreadyExists));
  for (const std::string& from : {lena_, tom_}) {
    StatusOr<NeighboursResult> result = engine_->Neighbours(from, {.edge_types = {"sibling_of"}});
    ASSERT_THAT(result, IsOk());
    EXPECT_THAT(Others(*result), ElementsAre(from == lena_ ? tom_ : lena_));
  }
}

TEST_F(WorldGraphTest, PathsJoinTwoTurnsThroughTheirEntity) {
  StatusOr<PathsResult> result = engine_->Paths(turns_[0], turns_[1], {.max_depth = 2});
  ASSERT_THAT(result, IsOk());
  ASSERT_FALSE(result->paths.empty());
  // Both turns name Lena: a path runs through her entity by two mentions edges.
  const auto through_lena =
      std::find_if(result->paths.begin(), result->paths.end(), [this](const GraphPath& path) {
        return path.nodes == std::vector<std::string>{turns_[0], lena_, turns_[1]} &&
               path.edges[0].type == "mentions" && path.edges[1].type == "mentions";
      });
  EXPECT_NE(through_lena, result->paths.end());
  for (std::size_t i = 1; i < result->paths.size(); ++i) {
    EXPECT_LE(result->paths[i - 1].edges.size(), result->paths[i].edges.size());
  }
  // Every node on the paths is described once, sorted by id.
  EXPECT_TRUE(std::is_sorted(result->nodes.begin(), result->nodes.end(),
                             [](const GraphNode& a, const GraphNode& b) { return a.id < b.id; }));
  // One edge is too short a path.
  StatusOr<PathsResult> direct = engine_->Paths(turns_[0], turns_[1], {.max_depth = 1});
  ASSERT_THAT(direct, IsOk());
  EXPECT_THAT(direct->paths, IsEmpty());
  // Through a client edge, as of the time it held.
  StatusOr<PathsResult> owned = engine_->Paths(
      turns_[0], turns_[2],
      {.edge_types = {"mentions", "owns"}, .valid_at = T("2024-05-01T00:00:00Z"), .max_depth = 2});
  ASSERT_THAT(owned, IsOk());
  ASSERT_THAT(owned->paths, SizeIs(1));
  EXPECT_THAT(owned->paths[0].nodes, ElementsAre(turns_[0], lena_, turns_[2]));
  StatusOr<PathsResult> owned_now =
      engine_->Paths(turns_[0], turns_[2], {.edge_types = {"mentions", "owns"}, .max_depth = 2});
  ASSERT_THAT(owned_now, IsOk());
  EXPECT_THAT(owned_now->paths, IsEmpty());
}

TEST_F(WorldGraphTest, IdentityClassFollowsAcceptedMergesAsOfATime) {
  {
    std::unique_ptr<Engine> engine = Open("2024-10-01T00:00:00Z");
    StatusOr<MergeProposal> proposal = engine->ProposeSameAs(lena_, tom_, "test merge");
    ASSERT_THAT(proposal, IsOk());
    engine.reset();
    engine = Open("2024-11-01T00:00:00Z");
    ASSERT_THAT(engine->AcceptProposal(proposal->id), IsOk());
  }
  engine_ = Open("2024-12-01T00:00:00Z");
  auto members = [this](GraphQueryOptions options) {
    StatusOr<IdentityClassResult> result = engine_->IdentityClass(lena_, options);
    EXPECT_THAT(result, IsOk());
    std::vector<std::string> ids;
    if (result.ok()) {
      for (const GraphNode& node : result->members) ids.push_back(node.id);
    }
    return ids;
  };
  std::vector<std::string> both = {lena_, tom_};
  std::sort(both.begin(), both.end());
  EXPECT_EQ(members({}), both);
  // In mid-October the proposal was pending: Lena alone.
  EXPECT_THAT(members({.known_at = T("2024-10-15T00:00:00Z")}), ElementsAre(lena_));
  EXPECT_EQ(members({.known_at = T("2024-11-15T00:00:00Z")}), both);
  // Only entities have an identity class.
  EXPECT_THAT(engine_->IdentityClass(turns_[0]), StatusIs(StatusCode::kInvalidArgument));
}

TEST_F(WorldGraphTest, BadQueriesAreInvalidArgument) {
  EXPECT_THAT(engine_->Neighbours(lena_, {.edge_types = {"no_such_type"}}),
              StatusIs(StatusCode::kInvalidArgument));
  EXPECT_THAT(engine_->Neighbours(lena_, {.limit = 0}), StatusIs(StatusCode::kInvalidArgument));
  EXPECT_THAT(engine_->Neighbours(lena_, {.limit = kMaxGraphLimit + 1}),
              StatusIs(StatusCode::kInvalidArgument));
  EXPECT_THAT(engine_->Paths(turns_[0], turns_[1], {.max_depth = kMaxGraphDepth + 1}),
              StatusIs(StatusCode::kInvalidArgument));
  EXPECT_THAT(engine_->Paths(turns_[0], turns_[1], {.max_depth = 0}),
              StatusIs(StatusCode::kInvalidArgument));
  EXPECT_THAT(engine_->Paths(turns_[0], turns_[0]), StatusIs(StatusCode::kInvalidArgument));
  EXPECT_THAT(engine_->Neighbours("not-an-id"), StatusIs(StatusCode::kInvalidArgument));
  EXPECT_THAT(engine_->Neighbours(std::string(32, 'f')), StatusIs(StatusCode::kNotFound));
  GraphQueryOptions many;
  many.edge_types.assign(kMaxGraphEdgeTypes + 1, "mentions");
  EXPECT_THAT(engine_->Neighbours(lena_, many), StatusIs(StatusCode::kInvalidArgument));
}

TEST_F(WorldGraphTest, BadEdgesStoreNothing) {
  StatusOr<std::vector<Link>> before = engine_->Links(lena_);
  ASSERT_THAT(before, IsOk());
  const NewEdge bad[] = {
      {.type = "likes", .src = lena_, .dst = tom_},         // not declared
      {.type = "mentions", .src = turns_[2], .dst = tom_},  // engram's own type
      {.type = "knows", .src = lena_, .dst = lena_},        // a loop
      {.type = "knows", .src = "lena", .dst = tom_},        // not an id
      {.type = "knows", .src = lena_, .dst = tom_, .attrs_json = "[1, 2]"},
      {.type = "knows",
       .src = lena_,
       .dst = tom_,
       .attrs_json = "{\"x\": \"" + std::string(20000, 'x') + "\"}"},
  };
  for (const NewEdge& edge : bad) {
    EXPECT_THAT(engine_->AddEdge(scope_, edge), StatusIs(StatusCode::kInvalidArgument))
        << edge.type << " " << edge.src;
  }
  EXPECT_THAT(
      engine_->AddEdge(scope_, {.type = "knows", .src = lena_, .dst = std::string(32, 'a')}),
      StatusIs(StatusCode::kNotFound));
  StatusOr<std::vector<Link>> after = engine_->Links(lena_);
  ASSERT_THAT(after, IsOk());
  EXPECT_EQ(after->size(), before->size());
}

TEST_F(WorldGraphTest, ClientEdgesAreInTheScopesAudit) {
  StatusOr<AuditReport> report = engine_->Audit(scope_);
  ASSERT_THAT(report, IsOk());
  EXPECT_TRUE(report->ok);
  StatusOr<std::vector<Link>> links = engine_->Links(lena_);
  ASSERT_THAT(links, IsOk());
  EXPECT_TRUE(std::any_of(links->begin(), links->end(),
                          [this](const Link& link) { return link.id == car_edge_; }));
}

TEST_F(WorldGraphTest, ExportCarriesClientEdgesToAStoreDeclaringTheirTypes) {
  std::string exported;
  ASSERT_THAT(engine_->Export(scope_, &exported), IsOk());
  const auto open_other = [](const testing::TempDir& dir, const char* edge_types) {
    EngineOptions options = testing::TestOptions(dir, "other.db");
    options.config = Config{};
    options.config->embedder.kind = "none";
    options.config->graph.edge_types = edge_types;
    return testing::OpenOrDie(options);
  };
  {
    // Without the declared types: refused, naming the type, and nothing stored.
    std::unique_ptr<Engine> bare = open_other(dir_, "");
    StatusOr<ImportSummary> refused = bare->Import(exported);
    EXPECT_THAT(refused, StatusIs(StatusCode::kInvalidArgument));
    EXPECT_THAT(refused.status().message(), HasSubstr("owns"));
    StatusOr<std::vector<ScopeInfo>> scopes = bare->ListScopes();
    ASSERT_THAT(scopes, IsOk());
    EXPECT_THAT(*scopes, IsEmpty());
  }
  testing::TempDir other_dir;
  std::unique_ptr<Engine> declared = open_other(other_dir, kEdgeTypes);
  ASSERT_THAT(declared->Import(exported), IsOk());
  StatusOr<GraphEdge> car = declared->GetEdge(car_edge_);
  ASSERT_THAT(car, IsOk());
  EXPECT_EQ(car->status, "active");
  StatusOr<AuditReport> audit = declared->Audit(scope_);
  ASSERT_THAT(audit, IsOk());
  EXPECT_TRUE(audit->ok);
}

TEST_F(WorldGraphTest, AnotherTenantsMemoriesAreNotFound) {
  {
    const std::vector<Turn> turns = {testing::MakeTurn("Bob", "Bob met Lena at the market.")};
    ASSERT_THAT(engine_->Remember(testing::S("user:bob"), turns), IsOk());
  }
  StatusOr<std::vector<Memory>> bob_turns = engine_->List(testing::S("user:bob"));
  ASSERT_THAT(bob_turns, IsOk());
  ASSERT_FALSE(bob_turns->empty());
  const std::string bob_turn = bob_turns->front().id;
  // A caller who may read only user:mia: Bob's memory is "not found", as an unknown id is.
  GraphQueryOptions mia_only;
  mia_only.readable_scope = [](std::string_view scope) { return scope == "user:mia"; };
  StatusOr<NeighboursResult> foreign = engine_->Neighbours(bob_turn, mia_only);
  StatusOr<NeighboursResult> unknown = engine_->Neighbours(std::string(32, 'e'), mia_only);
  EXPECT_THAT(foreign, StatusIs(StatusCode::kNotFound));
  EXPECT_THAT(unknown, StatusIs(StatusCode::kNotFound));
  EXPECT_EQ(foreign.status().message(), "memory " + bob_turn + " not found");
  EXPECT_THAT(engine_->Paths(turns_[0], bob_turn, mia_only), StatusIs(StatusCode::kNotFound));
  // An edge from Mia's memories to Bob's: not found either, and nothing stored.
  EXPECT_THAT(engine_->AddEdge(scope_, {.type = "knows", .src = lena_, .dst = bob_turn}),
              StatusIs(StatusCode::kNotFound));
  StatusOr<NeighboursResult> lena = engine_->Neighbours(lena_, {.edge_types = {"knows"}});
  ASSERT_THAT(lena, IsOk());
  EXPECT_THAT(lena->neighbours, IsEmpty());
}

TEST_F(WorldGraphTest, EdgeTypesListsEngramsOwnThenTheDeclaredOnes) {
  const std::vector<EdgeTypeInfo> types = engine_->EdgeTypes();
  std::vector<std::string> declared;
  for (const EdgeTypeInfo& type : types) {
    if (!type.builtin) declared.push_back(type.name);
    if (type.name == "owns") EXPECT_TRUE(type.single_valued);
    if (type.name == "sibling_of") EXPECT_TRUE(type.symmetric);
    if (type.name == "part_of") EXPECT_TRUE(type.transitive);
    if (type.name == "mentions") EXPECT_TRUE(type.builtin);
  }
  EXPECT_THAT(declared, ElementsAre("knows", "owns", "part_of", "sibling_of"));
}

TEST(WorldGraphConfigTest, BadEdgeTypesFailTheOpen) {
  testing::TempDir dir;
  for (const char* spec : {"mentions", "owns:sometimes", "Owns", "owns, owns", "owns,,knows"}) {
    EngineOptions options = testing::TestOptions(dir);
    options.config = Config{};
    options.config->embedder.kind = "none";
    options.config->graph.edge_types = spec;
    StatusOr<std::unique_ptr<Engine>> engine = Engine::Open(options);
    EXPECT_THAT(engine, StatusIs(StatusCode::kInvalidArgument)) << spec;
    if (!engine.ok()) {
      EXPECT_THAT(engine.status().message(), HasSubstr("edge_types")) << spec;
    }
  }
}

}  // namespace
}  // namespace engram
