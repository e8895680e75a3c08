// ScopeGraph::Load against the way it read a scope before (every turn node scanned and mapped by
// id, one NameKey per turn): on generated scopes with entities, accepted and pending same_as
// edges, links, facts with supports, retired and superseded turns, and a second scope's nodes
// interleaved (and erased), the loaded graph holds the same turns, speakers, entities, classes,
// links and facts. A scope without entities or facts is loaded without its turn map, follows new turns in
// place, and is reloaded when its first entity or fact arrives.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "core/ids.h"
#include "engram/testing/status_matchers.h"
#include "engram/testing/temp_dir.h"
#include "read/scope_graph.h"
#include "text/normalize.h"
#include "text/tokenizer.h"
#include "write/capture.h"
#include "write/edge_registry.h"

namespace engram::read {
namespace {

using ::engram::testing::IsOk;
using ::engram::testing::IsOkAndHolds;
using json = nlohmann::json;

// ---------------------------------------------------------------------------------------------
// The previous load, kept as the reference: nodes read through ListNodes (sorted by row here),
// every turn mapped by id and its speaker keyed one turn at a time.

std::string Field(const json& object, const char* key) {
  if (!object.is_object()) return "";
  const auto found = object.find(key);
  return found != object.end() && found->is_string() ? found->get<std::string>() : "";
}

std::vector<store::NodeRecord> NodesByRow(store::Store& store, std::int64_t scope_id,
                                          NodeKind kind) {
  StatusOr<std::vector<store::NodeRecord>> nodes =
      store.ListNodes(scope_id, {.kind = kind, .after_sequence = -1});
  EXPECT_THAT(nodes.status(), IsOk());
  if (!nodes.ok()) return {};
  std::vector<store::NodeRecord> sorted = std::move(nodes).value();
  std::sort(sorted.begin(), sorted.end(),
            [](const store::NodeRecord& a, const store::NodeRecord& b) { return a.row < b.row; });
  return sorted;
}

std::size_t Root(std::vector<std::size_t>& parent, std::size_t x) {
  while (parent[x] != x) x = parent[x];
  return x;
}

ScopeGraph ReferenceLoad(store::Store& store, std::int64_t scope_id, bool stem) {
  ScopeGraph graph;
  graph.scope_id = scope_id;
  for (const store::NodeRecord& node : NodesByRow(store, scope_id, NodeKind::kTurn)) {
    graph.turn_of_id[node.id] = {node.row, node.sequence};
    graph.turn_rows.push_back(node.row);
    if (node.speaker.empty()) continue;
    const std::string key = NameKey(node.speaker);
    for (const std::string& value : {key.substr(0, key.find(' ')), key}) {
      const auto at = std::lower_bound(graph.speaker_keys.begin(), graph.speaker_keys.end(), value);
      if (at == graph.speaker_keys.end() || *at != value) graph.speaker_keys.insert(at, value);
    }
  }
  graph.turn_count = graph.turn_of_id.size();
  for (const store::NodeRecord& node : NodesByRow(store, scope_id, NodeKind::kEntity)) {
    const json content = json::parse(node.content_json, nullptr, false);
    GraphEntity entity{.row = node.row, .id = node.id, .name = Field(content, "name")};
    if (entity.name.empty()) entity.name = node.text;
    entity.key = Field(content, "key");
    if (entity.key.empty()) entity.key = NameKey(entity.name);
    entity.kind = Field(content, "kind");
    graph.entity_of_id[node.id] = graph.entities.size();
    graph.entities.push_back(entity);
  }
  const text::Tokenizer tokenizer({.stem = stem});
  for (const store::NodeRecord& node : NodesByRow(store, scope_id, NodeKind::kFact)) {
    const json content = json::parse(node.content_json, nullptr, false);
    GraphFact fact{.row = node.row,
                   .id = node.id,
                   .status = node.status,
                   .valid_from = node.valid_from,
                   .valid_to = node.valid_to,
                   .ingested_at = node.ingested_at,
                   .updated_at = node.updated_at,
                   .text = node.text,
                   .subject = Field(content, "subject")};
    fact.subject_key = NameKey(fact.subject);
    fact.predicate = Field(content, "predicate");
    fact.object = Field(content, "object");
    fact.kind = Field(content, "kind");
    fact.has_time = content.is_object() && content.contains("time") && content["time"].is_object();
    std::string words = fact.predicate;
    std::replace(words.begin(), words.end(), '_', ' ');
    fact.terms = tokenizer.Terms(words + " " + fact.object);
    std::sort(fact.terms.begin(), fact.terms.end());
    fact.terms.erase(std::unique(fact.terms.begin(), fact.terms.end()), fact.terms.end());
    graph.fact_of_id[node.id] = graph.facts.size();
    graph.facts.push_back(fact);
  }
  const auto edges = [&](const char* type) {
    StatusOr<std::vector<store::EdgeRecord>> found = store.EdgesInScope(scope_id, type);
    EXPECT_THAT(found.status(), IsOk());
    return found.ok() ? *found : std::vector<store::EdgeRecord>{};
  };
  const std::vector<store::EdgeRecord> same_as = edges("same_as");
  std::vector<std::size_t> parent(graph.entities.size());
  std::iota(parent.begin(), parent.end(), 0);
  for (const store::EdgeRecord& edge : same_as) {
    const auto a = graph.entity_of_id.find(edge.src);
    const auto b = graph.entity_of_id.find(edge.dst);
    if (a == graph.entity_of_id.end() || b == graph.entity_of_id.end()) continue;
    if (edge.status == "pending") graph.pending_same_as.emplace_back(a->second, b->second);
    if (edge.status != "active") continue;
    const std::size_t root_a = Root(parent, a->second);
    const std::size_t root_b = Root(parent, b->second);
    if (root_a != root_b) parent[std::max(root_a, root_b)] = std::min(root_a, root_b);
  }
  const auto is_speaker = [&](const std::string& key) {
    return std::binary_search(graph.speaker_keys.begin(), graph.speaker_keys.end(), key);
  };
  for (GraphEntity& entity : graph.entities) entity.speaker = is_speaker(entity.key);
  for (const auto& [a, b] : graph.pending_same_as) {
    if (is_speaker(graph.entities[a].key)) graph.entities[b].speaker = true;
    if (is_speaker(graph.entities[b].key)) graph.entities[a].speaker = true;
  }
  std::map<std::size_t, std::size_t> class_of_root;
  for (std::size_t index = 0; index < graph.entities.size(); ++index) {
    const std::size_t root = Root(parent, index);
    if (!class_of_root.contains(root)) {
      class_of_root[root] = graph.classes.size();
      graph.classes.emplace_back();
    }
    graph.entities[index].class_index = class_of_root[root];
    graph.classes[class_of_root[root]].members.push_back(index);
  }
  // Per class: its linked turns by row.
  std::vector<std::map<std::int64_t, GraphLink>> links(graph.classes.size());
  for (const char* type : {"mentions", "refers_to"}) {
    for (const store::EdgeRecord& edge : edges(type)) {
      if (edge.status != "active") continue;
      const auto entity = graph.entity_of_id.find(edge.dst);
      const auto turn = graph.turn_of_id.find(edge.src);
      if (entity == graph.entity_of_id.end() || turn == graph.turn_of_id.end()) continue;
      GraphLink& link = links[graph.entities[entity->second].class_index][turn->second.row];
      link.turn_row = turn->second.row;
      (std::string_view(type) == "mentions" ? link.mentioned : link.referred) = true;
    }
  }
  for (std::size_t class_index = 0; class_index < links.size(); ++class_index) {
    for (const auto& [row, link] : links[class_index]) {
      graph.classes[class_index].links.push_back(link);
    }
  }
  for (const store::EdgeRecord& edge : edges("derived_from")) {
    if (edge.status != "active") continue;
    const auto fact = graph.fact_of_id.find(edge.src);
    const auto turn = graph.turn_of_id.find(edge.dst);
    if (fact == graph.fact_of_id.end() || turn == graph.turn_of_id.end()) continue;
    GraphFact& target = graph.facts[fact->second];
    if (std::find(target.support_ids.begin(), target.support_ids.end(), edge.dst) !=
        target.support_ids.end()) {
      continue;
    }
    target.support_ids.push_back(edge.dst);
    target.support_rows.push_back(turn->second.row);
  }
  // Supports by (sequence, row).
  for (GraphFact& fact : graph.facts) {
    std::vector<std::size_t> order(fact.support_ids.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      const ScopeGraph::TurnRef& x = graph.turn_of_id.at(fact.support_ids[a]);
      const ScopeGraph::TurnRef& y = graph.turn_of_id.at(fact.support_ids[b]);
      return x.sequence != y.sequence ? x.sequence < y.sequence : x.row < y.row;
    });
    GraphFact sorted = fact;
    for (std::size_t i = 0; i < order.size(); ++i) {
      sorted.support_ids[i] = fact.support_ids[order[i]];
      sorted.support_rows[i] = fact.support_rows[order[i]];
    }
    fact = std::move(sorted);
  }
  graph.turns_mapped = !graph.entities.empty() || !graph.facts.empty();
  if (!graph.turns_mapped) graph.turn_of_id.clear();
  return graph;
}

// ---------------------------------------------------------------------------------------------
// Generated scopes.

const std::vector<std::string> kSpeakers = {"Caroline", "Melanie", "Sara Bareilles", "Jon's",
                                            "", "melanie", "Élodie Martin"};
const std::vector<std::string> kNames = {"Oliver", "Olly", "Sweden", "Boston", "Caroline",
                                         "Mel", "Melanie", "Lisbon", "Sara", "Acme"};

class ScopeGraphLoadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = store::OpenSqliteStore(temp_dir_.File("engram.db"));
    ASSERT_THAT(store.status(), IsOk());
    store_ = std::move(store).value();
    registry_ = write::EdgeRegistry::WithBuiltins();
  }

  // Draws below `bound` from the test's own generator (no distribution: same on every platform).
  std::size_t Draw(std::size_t bound) { return static_cast<std::size_t>(random_() % bound); }

  store::ScopeRecord MakeScope(store::Transaction& txn, const std::string& path) {
    auto scope = write::EnsureScope(txn, *registry_, *Scope::Parse(path), now_);
    EXPECT_THAT(scope.status(), IsOk());
    return *scope;
  }

  // Captures `count` turns into `scope`, one session each 5 turns; returns their ids.
  std::vector<std::string> Turns(store::Transaction& txn, const store::ScopeRecord& scope,
                                 std::size_t count) {
    std::vector<Turn> turns;
    std::vector<std::string> metadata;
    for (std::size_t turn_idx = 0; turn_idx < count; ++turn_idx) {
      Turn turn;
      turn.speaker = kSpeakers[Draw(kSpeakers.size())];
      turn.text = "turn " + std::to_string(turn_idx) + " about " + kNames[Draw(kNames.size())];
      turn.session_id = "s" + std::to_string(turn_idx / 5);
      turn.event_time = now_;
      turns.push_back(turn);
      metadata.push_back("{}");
    }
    auto captured = write::CaptureTurns(txn, *registry_, scope, turns, metadata, now_);
    EXPECT_THAT(captured.status(), IsOk());
    return captured.ok() ? captured->ids : std::vector<std::string>{};
  }

  std::string Insert(store::Transaction& txn, const store::ScopeRecord& scope, NodeKind kind,
                     const char* type, const json& content, const std::string& text) {
    store::NodeRecord node;
    node.kind = kind;
    node.scope_id = scope.scope_id;
    node.content_json = content.dump();
    node.id = core::NodeId(type, node.content_json, scope.node_id, now_.micros);
    node.text = text;
    node.sequence = 1;
    node.valid_from = now_;
    node.ingested_at = now_;
    node.updated_at = now_;
    EXPECT_THAT(txn.InsertNode(node).status(), IsOk());
    return node.id;
  }

  std::string Entity(store::Transaction& txn, const store::ScopeRecord& scope,
                     const std::string& name) {
    const json content = {{"key", text::NormalizeForIndex(name)}, {"kind", "person"},
                          {"name", name}};
    return Insert(txn, scope, NodeKind::kEntity, "entity", content, name);
  }

  std::string Fact(store::Transaction& txn, const store::ScopeRecord& scope, std::size_t index) {
    const json content = {{"subject", kNames[Draw(kNames.size())]},
                          {"predicate", Draw(2) == 0 ? "lives_in" : "went_to"},
                          {"object", kNames[Draw(kNames.size())] + " " + std::to_string(index)},
                          {"kind", "event"},
                          {"time", Draw(2) == 0 ? json(nullptr) : json{{"text", "last May"}}}};
    return Insert(txn, scope, NodeKind::kFact, "fact", content, "fact " + std::to_string(index));
  }

  void Edge(store::Transaction& txn, const char* type, const std::string& src,
            const std::string& dst) {
    // Drawing the same pair twice writes nothing the second time.
    const Status written =
        registry_->Apply(txn, {.type = type, .src = src, .dst = dst, .now = now_}).status();
    if (written.code() != StatusCode::kAlreadyExists) {
      EXPECT_THAT(written, IsOk());
    }
  }

  // A scope of `turns` turns with `entities` entities and `facts` facts, written in rounds so a
  // second scope's nodes lie between its rows; some turns retired or superseded, some same_as
  // proposals accepted; the second scope erased for every other scope generated.
  store::ScopeRecord Generate(std::size_t turns, std::size_t entities, std::size_t facts) {
    auto txn = store_->BeginWrite();
    EXPECT_THAT(txn.status(), IsOk());
    const store::ScopeRecord scope = MakeScope(**txn, "user:gen-" + std::to_string(++scopes_));
    const store::ScopeRecord other = MakeScope(**txn, "user:other-" + std::to_string(scopes_));
    std::vector<std::string> turn_ids;
    for (std::size_t written = 0; written < turns;) {
      const std::size_t round = std::min<std::size_t>(turns - written, 1 + Draw(12));
      for (const std::string& id : Turns(**txn, scope, round)) turn_ids.push_back(id);
      Turns(**txn, other, 1 + Draw(3));
      written += round;
    }
    std::vector<std::string> entity_ids;
    for (std::size_t index = 0; index < entities; ++index) {
      entity_ids.push_back(Entity(**txn, scope, kNames[index % kNames.size()] +
                                                    (index < kNames.size() ? "" : " " +
                                                     std::to_string(index))));
      Entity(**txn, other, "Other " + std::to_string(index));
    }
    for (std::size_t link_idx = 0; !entity_ids.empty() && link_idx < turns; ++link_idx) {
      const std::string& turn = turn_ids[Draw(turn_ids.size())];
      const std::string& entity = entity_ids[Draw(entity_ids.size())];
      Edge(**txn, Draw(3) == 0 ? "refers_to" : "mentions", turn, entity);
    }
    for (std::size_t pair_idx = 0; entity_ids.size() > 1 && pair_idx < entities / 2; ++pair_idx) {
      const std::size_t a = Draw(entity_ids.size());
      const std::size_t b = Draw(entity_ids.size());
      if (a == b) continue;
      auto proposal = registry_->Apply(
          **txn, {.type = "same_as", .src = entity_ids[a], .dst = entity_ids[b], .now = now_});
      if (!proposal.ok() || proposal->status != "pending") continue;  // a repeated pair
      if (Draw(2) == 0) {
        EXPECT_THAT(registry_->AcceptProposal(**txn, proposal->id, now_), IsOk());
      }
    }
    for (std::size_t index = 0; index < facts; ++index) {
      const std::string fact = Fact(**txn, scope, index);
      for (std::size_t support = 0; support < 1 + Draw(3); ++support) {
        Edge(**txn, "derived_from", fact, turn_ids[Draw(turn_ids.size())]);
      }
    }
    for (std::size_t index = 0; index < turns / 10; ++index) {
      const NodeStatus status = Draw(2) == 0 ? NodeStatus::kSuperseded : NodeStatus::kRetired;
      EXPECT_THAT((*txn)->UpdateNodeState(turn_ids[Draw(turn_ids.size())], status, now_, now_, ""),
                  IsOk());
    }
    EXPECT_THAT((*txn)->Commit(), IsOk());
    // Every other interleaved scope is erased: its rows leave holes between the scope's rows.
    if (scopes_ % 2 == 0) {
      const std::vector<std::int64_t> erased = {other.scope_id};
      EXPECT_THAT(store_->EraseScopes(erased).status(), IsOk());
    }
    return scope;
  }

  void ExpectSameAsReference(const store::ScopeRecord& scope) {
    StatusOr<ScopeGraph> loaded = ScopeGraph::Load(*store_, scope.scope_id, /*stem=*/true);
    ASSERT_THAT(loaded.status(), IsOk());
    const ScopeGraph reference = ReferenceLoad(*store_, scope.scope_id, /*stem=*/true);
    EXPECT_EQ(loaded->turn_count, reference.turn_count);
    EXPECT_EQ(loaded->turn_rows, reference.turn_rows);
    EXPECT_EQ(loaded->speaker_keys, reference.speaker_keys);
    EXPECT_EQ(loaded->entities, reference.entities);
    EXPECT_EQ(loaded->classes, reference.classes);
    EXPECT_EQ(loaded->facts, reference.facts);
    EXPECT_EQ(loaded->pending_same_as, reference.pending_same_as);
    EXPECT_EQ(loaded->turns_mapped, reference.turns_mapped);
    EXPECT_EQ(loaded->turn_of_id, reference.turn_of_id);
    EXPECT_TRUE(*loaded == reference);
  }

  const Timestamp now_ = *ParseTimestamp("2024-06-01T00:00:00Z");
  engram::testing::TempDir temp_dir_{"engram_scope_graph"};
  std::unique_ptr<store::Store> store_;
  std::unique_ptr<write::EdgeRegistry> registry_;
  std::mt19937_64 random_{20261126};
  int scopes_ = 0;
};

TEST_F(ScopeGraphLoadTest, GeneratedScopesLoadAsTheReferenceReadsThem) {
  const std::vector<std::vector<std::size_t>> shapes = {
      {40, 6, 5}, {120, 10, 12}, {200, 16, 0}, {90, 0, 9}, {150, 0, 0}, {1, 1, 1}};
  for (const std::vector<std::size_t>& shape : shapes) {
    SCOPED_TRACE("turns " + std::to_string(shape[0]) + ", entities " + std::to_string(shape[1]) +
                 ", facts " + std::to_string(shape[2]));
    const store::ScopeRecord scope = Generate(shape[0], shape[1], shape[2]);
    ExpectSameAsReference(scope);
  }
}

TEST_F(ScopeGraphLoadTest, GeneratedGraphsHaveWhatTheTestMeansToCompare) {
  // The comparison above is only as good as its scopes: they hold merged classes, pending
  // proposals, links of both kinds, supports, and speakers with their first words.
  const store::ScopeRecord scope = Generate(120, 10, 12);
  const ScopeGraph graph = ReferenceLoad(*store_, scope.scope_id, true);
  EXPECT_LT(graph.classes.size(), graph.entities.size());
  EXPECT_FALSE(graph.pending_same_as.empty());
  bool mentioned = false, referred = false;
  for (const EntityClass& entity_class : graph.classes) {
    for (const GraphLink& link : entity_class.links) {
      mentioned |= link.mentioned;
      referred |= link.referred;
    }
  }
  EXPECT_TRUE(mentioned);
  EXPECT_TRUE(referred);
  std::size_t supports = 0;
  for (const GraphFact& fact : graph.facts) supports += fact.support_rows.size();
  EXPECT_GT(supports, graph.facts.size());
  EXPECT_THAT(graph.speaker_keys, ::testing::Contains("sara"));
  EXPECT_THAT(graph.speaker_keys, ::testing::Contains("sara bareilles"));
  EXPECT_THAT(graph.speaker_keys, ::testing::Contains("jon"));
  EXPECT_EQ(graph.turn_count, 120u);
}

TEST_F(ScopeGraphLoadTest, ScopeWithoutEntitiesOrFactsFollowsTurnsAndReloadsOnItsFirstEntity) {
  const store::ScopeRecord scope = Generate(60, 0, 0);
  StatusOr<ScopeGraph> loaded = ScopeGraph::Load(*store_, scope.scope_id, true);
  ASSERT_THAT(loaded.status(), IsOk());
  EXPECT_FALSE(loaded->turns_mapped);
  EXPECT_TRUE(loaded->turn_of_id.empty());
  EXPECT_EQ(loaded->turn_count, 60u);
  ASSERT_THAT(store_->LastJournalSeq().status(), IsOk());
  const std::int64_t seq = *store_->LastJournalSeq();

  // New turns are applied in place, each once however often its row is handed over.
  {
    auto txn = store_->BeginWrite();
    ASSERT_THAT(txn.status(), IsOk());
    Turns(**txn, scope, 7);
    ASSERT_THAT((*txn)->Commit(), IsOk());
  }
  auto journal = store_->ReadJournal(seq, 0);
  ASSERT_THAT(journal.status(), IsOk());
  std::vector<store::JournalEntry> entries;
  for (const store::JournalEntry& entry : *journal) {
    if (entry.scope_id == scope.scope_id) entries.push_back(entry);
  }
  ScopeGraph updated = *loaded;
  EXPECT_THAT(updated.Apply(*store_, entries, true), IsOkAndHolds(true));
  EXPECT_THAT(updated.Apply(*store_, entries, true), IsOkAndHolds(true));
  StatusOr<ScopeGraph> fresh = ScopeGraph::Load(*store_, scope.scope_id, true);
  ASSERT_THAT(fresh.status(), IsOk());
  EXPECT_EQ(updated.turn_count, 67u);
  EXPECT_TRUE(updated == *fresh);

  // The first entity needs the turn map its links name turns by: Apply declines (a reload).
  const std::int64_t before_entity = *store_->LastJournalSeq();
  {
    auto txn = store_->BeginWrite();
    ASSERT_THAT(txn.status(), IsOk());
    const std::string caroline = Entity(**txn, scope, "Caroline");
    const std::vector<std::string> turns = Turns(**txn, scope, 1);
    Edge(**txn, "mentions", turns.front(), caroline);
    ASSERT_THAT((*txn)->Commit(), IsOk());
  }
  journal = store_->ReadJournal(before_entity, 0);
  ASSERT_THAT(journal.status(), IsOk());
  entries.clear();
  for (const store::JournalEntry& entry : *journal) {
    if (entry.scope_id == scope.scope_id) entries.push_back(entry);
  }
  EXPECT_THAT(updated.Apply(*store_, entries, true), IsOkAndHolds(false));
  ExpectSameAsReference(scope);
  fresh = ScopeGraph::Load(*store_, scope.scope_id, true);
  ASSERT_THAT(fresh.status(), IsOk());
  EXPECT_TRUE(fresh->turns_mapped);
  EXPECT_EQ(fresh->turn_of_id.size(), 68u);
  ASSERT_EQ(fresh->classes.size(), 1u);
  EXPECT_EQ(fresh->classes[0].links.size(), 1u);
}

}  // namespace
}  // namespace engram::read
