// Reconciliation through the edge handlers (reconcile.h), on a SQLite store: supersession of
// single-valued slots, corrections, contradictions, reinforcement, and the invariant that a
// single-valued slot has at most one active fact at any valid time.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engram/testing/status_matchers.h"
#include "engram/testing/temp_dir.h"
#include "write/capture.h"
#include "write/facts.h"

namespace engram::write {
namespace {

using ::engram::testing::IsOk;

Timestamp T(const char* text) { return *ParseTimestamp(text); }

struct Said {
  std::string text;
  std::string event_time;
  std::string speaker = "Mia";
};

class ReconcileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = store::OpenSqliteStore(path_);
    ASSERT_THAT(store.status(), IsOk());
    store_ = std::move(store).value();
    registry_ = EdgeRegistry::WithBuiltins();
  }
  void TearDown() override { store_.reset(); }

  // Remembers the turns in one transaction (one batch) and derives their facts.
  FactStats Say(const std::vector<Said>& said, const std::string& scope = "user:mia") {
    FactStats stats;
    auto txn = store_->BeginWrite();
    EXPECT_THAT(txn.status(), IsOk());
    const Timestamp now = T("2025-01-01T00:00:00Z");
    auto record = EnsureScope(**txn, *registry_, *Scope::Parse(scope), now);
    EXPECT_THAT(record.status(), IsOk());
    std::vector<Turn> turns;
    std::vector<std::string> metadata;
    for (const Said& s : said) {
      Turn turn;
      turn.speaker = s.speaker;
      turn.text = s.text;
      turn.event_time = T(s.event_time.c_str());
      turns.push_back(turn);
      metadata.push_back("{}");
    }
    auto captured = CaptureTurns(**txn, *registry_, *record, turns, metadata, now);
    EXPECT_THAT(captured.status(), IsOk());
    DeriveContext context;
    context.scope = &*record;
    context.now = now;
    EXPECT_THAT(
        DeriveFacts(**txn, *registry_, captured->ids, WriteConfig{}, nullptr, context, &stats),
        IsOk());
    EXPECT_THAT((*txn)->Commit(), IsOk());
    return stats;
  }

  std::vector<store::NodeRecord> Facts(const std::string& scope = "user:mia") {
    auto found = store_->FindScope(scope);
    EXPECT_TRUE(found.ok() && found->has_value());
    store::NodeFilter filter;
    filter.kind = NodeKind::kFact;
    return *store_->ListNodes((*found)->scope_id, filter);
  }

  static nlohmann::json Content(const store::NodeRecord& node) {
    return nlohmann::json::parse(node.content_json);
  }

  const store::NodeRecord* Find(const std::vector<store::NodeRecord>& facts,
                                const std::string& predicate, const std::string& object) {
    for (const store::NodeRecord& node : facts) {
      const nlohmann::json content = Content(node);
      if (content["predicate"] == predicate && content["object"] == object) return &node;
    }
    return nullptr;
  }

  std::vector<store::EdgeRecord> Edges(const std::string& id, const std::string& type) {
    return *store_->EdgesOf(id, store::EdgeDirection::kOutgoing, type);
  }

  // The invariant: per single-valued slot, the active facts' validity intervals do not overlap.
  void ExpectSlotInvariant(const std::string& scope = "user:mia") {
    std::map<std::string, std::vector<const store::NodeRecord*>> slots;
    const std::vector<store::NodeRecord> facts = Facts(scope);
    for (const store::NodeRecord& node : facts) {
      const nlohmann::json content = Content(node);
      if (!content["single_valued"].get<bool>() || content["polarity"] == "-") continue;
      if (node.status != NodeStatus::kActive) continue;
      slots[content["slot"].get<std::string>()].push_back(&node);
    }
    for (const auto& [slot, nodes] : slots) {
      std::size_t open = 0;
      for (const store::NodeRecord* a : nodes) {
        if (!a->valid_to.has_value()) ++open;
        for (const store::NodeRecord* b : nodes) {
          if (a == b) continue;
          const Timestamp a_from = a->valid_from.value_or(Timestamp{INT64_MIN});
          const Timestamp b_from = b->valid_from.value_or(Timestamp{INT64_MIN});
          const Timestamp a_to = a->valid_to.value_or(Timestamp{INT64_MAX});
          const Timestamp b_to = b->valid_to.value_or(Timestamp{INT64_MAX});
          EXPECT_FALSE(a_from < b_to && b_from < a_to)
              << "overlap in slot " << slot << ": " << a->text << " / " << b->text;
        }
      }
      EXPECT_LE(open, 1u) << slot;
    }
  }

  engram::testing::TempDir temp_dir_{"engram_reconcile"};
  std::string path_ = temp_dir_.File("engram.db");
  std::unique_ptr<store::Store> store_;
  std::unique_ptr<EdgeRegistry> registry_;
};

TEST_F(ReconcileTest, MoveSupersedesTheOldResidence) {
  Say({{"I moved to Berlin last March.", "2024-05-10T12:00:00Z"}});
  const FactStats stats =
      Say({{"I actually live in Munich now, I moved in June.", "2024-08-02T09:00:00Z"}});
  EXPECT_EQ(stats.outcomes[static_cast<std::size_t>(ReconcileOutcome::kCorrected)], 1u);
  const std::vector<store::NodeRecord> facts = Facts();
  const store::NodeRecord* berlin = Find(facts, "lives_in", "Berlin");
  const store::NodeRecord* munich = Find(facts, "lives_in", "Munich");
  ASSERT_NE(berlin, nullptr);
  ASSERT_NE(munich, nullptr);
  EXPECT_EQ(munich->status, NodeStatus::kActive);
  EXPECT_EQ(munich->valid_from, T("2024-06-01"));
  EXPECT_FALSE(munich->valid_to.has_value());
  EXPECT_EQ(berlin->status, NodeStatus::kSuperseded);
  EXPECT_EQ(berlin->valid_from, T("2024-03-01"));
  EXPECT_EQ(berlin->valid_to, T("2024-06-01"));
  // Both traceable to their turns; Munich supersedes and corrects Berlin.
  ASSERT_EQ(Edges(berlin->id, "derived_from").size(), 1u);
  ASSERT_EQ(Edges(munich->id, "derived_from").size(), 1u);
  EXPECT_NE(Edges(berlin->id, "derived_from")[0].dst, Edges(munich->id, "derived_from")[0].dst);
  ASSERT_EQ(Edges(munich->id, "supersedes").size(), 1u);
  EXPECT_EQ(Edges(munich->id, "supersedes")[0].dst, berlin->id);
  ASSERT_EQ(Edges(munich->id, "corrects").size(), 1u);
  ExpectSlotInvariant();
}

TEST_F(ReconcileTest, PlainMoveSupersedesWithoutCorrection) {
  const FactStats stats = Say({{"I live in Berlin.", "2024-01-10T12:00:00Z"},
                               {"I moved to Munich.", "2024-03-10T12:00:00Z"}});
  EXPECT_EQ(stats.outcomes[static_cast<std::size_t>(ReconcileOutcome::kSuperseded)], 1u);
  const std::vector<store::NodeRecord> facts = Facts();
  const store::NodeRecord* berlin = Find(facts, "lives_in", "Berlin");
  const store::NodeRecord* munich = Find(facts, "lives_in", "Munich");
  ASSERT_NE(berlin, nullptr);
  ASSERT_NE(munich, nullptr);
  EXPECT_EQ(berlin->status, NodeStatus::kSuperseded);
  EXPECT_EQ(berlin->valid_to, T("2024-03-10T12:00:00Z"));
  EXPECT_TRUE(Edges(munich->id, "corrects").empty());
  ExpectSlotInvariant();
}

TEST_F(ReconcileTest, RepeatedBeliefAddsEvidenceNotANode) {
  const FactStats stats = Say({{"I love hiking.", "2024-01-10T12:00:00Z"},
                               {"Honestly I love hiking.", "2024-02-10T12:00:00Z"}});
  EXPECT_EQ(stats.outcomes[static_cast<std::size_t>(ReconcileOutcome::kReinforced)], 1u);
  const std::vector<store::NodeRecord> facts = Facts();
  ASSERT_EQ(facts.size(), 1u);
  EXPECT_EQ(Edges(facts[0].id, "derived_from").size(), 2u);
}

TEST_F(ReconcileTest, PolarityFlipLaterSupersedes) {
  Say({{"I like olives.", "2024-01-10T12:00:00Z"},
       {"I don't like olives anymore.", "2024-06-10T12:00:00Z"}});
  const std::vector<store::NodeRecord> facts = Facts();
  ASSERT_EQ(facts.size(), 2u);
  EXPECT_EQ(facts[0].status, NodeStatus::kSuperseded);
  EXPECT_EQ(Content(facts[1])["polarity"], "-");
  EXPECT_EQ(facts[1].status, NodeStatus::kActive);
}

TEST_F(ReconcileTest, SameTimeConflictIsAContradiction) {
  // Two claims about the same month, the second not clearly newer.
  Say({{"I moved to Berlin in March.", "2024-05-10T12:00:00Z"},
       {"I moved to Hamburg in March.", "2024-05-11T12:00:00Z"}});
  const std::vector<store::NodeRecord> facts = Facts();
  const store::NodeRecord* berlin = Find(facts, "lives_in", "Berlin");
  const store::NodeRecord* hamburg = Find(facts, "lives_in", "Hamburg");
  ASSERT_NE(berlin, nullptr);
  ASSERT_NE(hamburg, nullptr);
  EXPECT_EQ(berlin->status, NodeStatus::kActive);
  EXPECT_EQ(hamburg->status, NodeStatus::kPending);
  ASSERT_EQ(Edges(hamburg->id, "contradicts").size(), 1u);
  EXPECT_EQ(Edges(hamburg->id, "contradicts")[0].dst, berlin->id);
  ExpectSlotInvariant();
}

TEST_F(ReconcileTest, OlderNewsBecomesHistory) {
  // Said later, but about an earlier time: the current fact stays current.
  Say({{"I moved to Lisbon in April.", "2024-05-10T12:00:00Z"},
       {"I moved to Madrid in 2020.", "2024-05-12T12:00:00Z"}});
  const std::vector<store::NodeRecord> facts = Facts();
  const store::NodeRecord* lisbon = Find(facts, "lives_in", "Lisbon");
  const store::NodeRecord* madrid = Find(facts, "lives_in", "Madrid");
  ASSERT_NE(lisbon, nullptr);
  ASSERT_NE(madrid, nullptr);
  EXPECT_EQ(lisbon->status, NodeStatus::kActive);
  EXPECT_EQ(madrid->status, NodeStatus::kSuperseded);
  EXPECT_EQ(madrid->valid_to, T("2024-04-01"));
  ExpectSlotInvariant();
}

TEST_F(ReconcileTest, NegatedStateEndsTheCurrentValue) {
  Say({{"I work at Acme.", "2024-01-10T12:00:00Z"},
       {"I no longer work at Acme.", "2024-03-10T12:00:00Z"}});
  const std::vector<store::NodeRecord> facts = Facts();
  ASSERT_EQ(facts.size(), 2u);
  EXPECT_EQ(facts[0].status, NodeStatus::kSuperseded);
  EXPECT_EQ(facts[0].valid_to, T("2024-03-10T12:00:00Z"));
  EXPECT_EQ(Content(facts[1])["polarity"], "-");
  ExpectSlotInvariant();
}

TEST_F(ReconcileTest, SubjectsAndScopesAreSeparateSlots) {
  Say({{"I live in Berlin.", "2024-01-10T12:00:00Z"},
       {"My sister Anna lives in Porto.", "2024-01-11T12:00:00Z"},
       {"I live in Rome.", "2024-01-12T12:00:00Z", "Leo"}});
  Say({{"I live in Oslo.", "2024-02-10T12:00:00Z"}}, "user:other");
  const std::vector<store::NodeRecord> facts = Facts();
  for (const char* object : {"Berlin", "Porto", "Rome"}) {
    const store::NodeRecord* node = Find(facts, "lives_in", object);
    ASSERT_NE(node, nullptr) << object;
    EXPECT_EQ(node->status, NodeStatus::kActive) << object;
  }
  ExpectSlotInvariant();
  ExpectSlotInvariant("user:other");
}

TEST_F(ReconcileTest, InvariantOverAHistory) {
  Say({{"I live in Berlin.", "2024-01-10T12:00:00Z"},
       {"I moved to Munich in February.", "2024-03-10T12:00:00Z"},
       {"I moved to Vienna last week.", "2024-06-10T12:00:00Z"},
       {"Actually I live in Graz.", "2024-06-11T12:00:00Z"},
       {"I moved to Munich in 2019.", "2024-06-12T12:00:00Z"},
       {"I live in Vienna.", "2024-06-12T13:00:00Z"},
       {"I work at Acme.", "2024-06-13T12:00:00Z"},
       {"I work at Globex since May.", "2024-06-14T12:00:00Z"}});
  ExpectSlotInvariant();
  std::size_t active_residences = 0;
  for (const store::NodeRecord& node : Facts()) {
    const nlohmann::json content = Content(node);
    if (content["predicate"] == "lives_in" && node.status == NodeStatus::kActive &&
        !node.valid_to.has_value()) {
      ++active_residences;
      EXPECT_EQ(content["object"], "Vienna");
    }
  }
  EXPECT_EQ(active_residences, 1u);
}

TEST_F(ReconcileTest, RejectedCandidatesAreKeptRejectedWithTheReason) {
  auto stats = Say({{"Do you live in Berlin?", "2024-01-10T12:00:00Z"},
                    {"Imagine I lived in Rome.", "2024-01-10T12:01:00Z"},
                    {"I heard Tom moved to Paris.", "2024-01-10T12:02:00Z"}});
  EXPECT_GE(stats.validation.rejected[static_cast<std::size_t>(FactCheck::kAct)], 2u);
  EXPECT_EQ(stats.validation.accepted, 0u);
  const std::vector<store::NodeRecord> facts = Facts();
  ASSERT_EQ(facts.size(), stats.validation.candidates);
  for (const store::NodeRecord& node : facts) {
    EXPECT_EQ(node.status, NodeStatus::kRejected) << node.text;
    const nlohmann::json content = Content(node);
    ASSERT_TRUE(content.contains("rejected")) << node.text;
    EXPECT_FALSE(content["rejected"]["reason"].get<std::string>().empty());
    ASSERT_EQ(Edges(node.id, "derived_from").size(), 1u);
  }
  const store::NodeRecord* rome = Find(facts, "lived_in", "Rome");
  ASSERT_NE(rome, nullptr);
  EXPECT_EQ(Content(*rome)["rejected"]["check"], "act");
  // A rejected candidate takes no part in reconciliation: a real fact of its slot is current.
  Say({{"I live in Rome.", "2024-02-10T12:00:00Z"}});
  const store::NodeRecord* lives = Find(Facts(), "lives_in", "Rome");
  ASSERT_NE(lives, nullptr);
  EXPECT_EQ(lives->status, NodeStatus::kActive);
  EXPECT_TRUE(Edges(lives->id, "supersedes").empty());
  ExpectSlotInvariant();
}

TEST_F(ReconcileTest, PastStateAboutTheCurrentValueEndsIt) {
  for (const bool one_batch : {true, false}) {
    const std::string scope = one_batch ? "user:mia" : "user:split";
    const std::vector<Said> said = {{"I live in Paris.", "2024-01-10T12:00:00Z"},
                                    {"I used to live in Paris.", "2024-05-10T12:00:00Z"}};
    if (one_batch) {
      Say(said, scope);
    } else {
      Say({said[0]}, scope);
      Say({said[1]}, scope);
    }
    const std::vector<store::NodeRecord> facts = Facts(scope);
    const store::NodeRecord* current = Find(facts, "lives_in", "Paris");
    const store::NodeRecord* past = Find(facts, "lived_in", "Paris");
    ASSERT_NE(current, nullptr);
    ASSERT_NE(past, nullptr);
    EXPECT_EQ(current->status, NodeStatus::kSuperseded);
    EXPECT_EQ(current->valid_from, T("2024-01-10T12:00:00Z"));
    EXPECT_EQ(current->valid_to, T("2024-05-10T12:00:00Z"));
    EXPECT_EQ(past->status, NodeStatus::kActive);
    EXPECT_EQ(past->valid_to, T("2024-05-10T12:00:00Z"));
    ASSERT_EQ(Edges(past->id, "supersedes").size(), 1u);
    EXPECT_EQ(Edges(past->id, "supersedes")[0].dst, current->id);
    ExpectSlotInvariant(scope);
  }
}

TEST_F(ReconcileTest, PastStateAboutAnotherValueIsRecordedAsHistory) {
  Say({{"I live in Berlin.", "2024-01-10T12:00:00Z"},
       {"I used to live in Paris.", "2024-05-10T12:00:00Z"}});
  const std::vector<store::NodeRecord> facts = Facts();
  const store::NodeRecord* berlin = Find(facts, "lives_in", "Berlin");
  const store::NodeRecord* paris = Find(facts, "lived_in", "Paris");
  ASSERT_NE(berlin, nullptr);
  ASSERT_NE(paris, nullptr);
  EXPECT_EQ(berlin->status, NodeStatus::kActive);
  EXPECT_FALSE(berlin->valid_to.has_value());
  EXPECT_EQ(paris->status, NodeStatus::kActive);
  EXPECT_EQ(paris->valid_to, T("2024-05-10T12:00:00Z"));
  EXPECT_TRUE(Edges(paris->id, "supersedes").empty());
  ExpectSlotInvariant();
}

TEST_F(ReconcileTest, BareCorrectionInheritsTheLatestSlot) {
  for (const bool one_batch : {true, false}) {
    const std::string scope = one_batch ? "user:mia" : "user:split";
    const std::vector<Said> said = {{"I moved to Berlin.", "2024-05-10T12:00:00Z"},
                                    {"No, I meant Munich.", "2024-05-10T12:01:00Z"}};
    FactStats stats;
    if (one_batch) {
      stats = Say(said, scope);
    } else {
      Say({said[0]}, scope);
      stats = Say({said[1]}, scope);
    }
    EXPECT_EQ(stats.outcomes[static_cast<std::size_t>(ReconcileOutcome::kCorrected)], 1u);
    const std::vector<store::NodeRecord> facts = Facts(scope);
    const store::NodeRecord* berlin = Find(facts, "lives_in", "Berlin");
    const store::NodeRecord* munich = Find(facts, "lives_in", "Munich");
    ASSERT_NE(berlin, nullptr);
    ASSERT_NE(munich, nullptr) << scope;
    EXPECT_EQ(munich->status, NodeStatus::kActive);
    EXPECT_EQ(Content(*munich)["subject"], "Mia");
    EXPECT_EQ(Content(*munich)["correction"], true);
    EXPECT_EQ(berlin->status, NodeStatus::kSuperseded);
    EXPECT_EQ(berlin->valid_to, T("2024-05-10T12:01:00Z"));
    ASSERT_EQ(Edges(munich->id, "corrects").size(), 1u);
    EXPECT_EQ(Edges(munich->id, "corrects")[0].dst, berlin->id);
    ASSERT_EQ(Edges(munich->id, "supersedes").size(), 1u);
    EXPECT_EQ(Edges(munich->id, "supersedes")[0].dst, berlin->id);
    ExpectSlotInvariant(scope);
  }
}

TEST_F(ReconcileTest, BareCorrectionOfAPreferenceSupersedesIt) {
  Say({{"I like Miles Davis.", "2024-05-10T12:00:00Z"},
       {"No, I meant Coltrane.", "2024-05-10T12:01:00Z"}});
  const std::vector<store::NodeRecord> facts = Facts();
  const store::NodeRecord* davis = Find(facts, "likes", "Miles Davis");
  const store::NodeRecord* coltrane = Find(facts, "likes", "Coltrane");
  ASSERT_NE(davis, nullptr);
  ASSERT_NE(coltrane, nullptr);
  EXPECT_EQ(davis->status, NodeStatus::kSuperseded);
  EXPECT_EQ(coltrane->status, NodeStatus::kActive);
  ASSERT_EQ(Edges(coltrane->id, "corrects").size(), 1u);
  EXPECT_EQ(Edges(coltrane->id, "corrects")[0].dst, davis->id);
}

TEST_F(ReconcileTest, HedgesAndNegationsAreNotBareCorrections) {
  Say({{"I work at Acme.", "2024-05-10T12:00:00Z"},
       {"Actually it's not that simple.", "2024-05-10T12:01:00Z"},
       {"I mean, it was great.", "2024-05-10T12:02:00Z"}});
  const std::vector<store::NodeRecord> facts = Facts();
  ASSERT_EQ(facts.size(), 1u);
  EXPECT_EQ(Content(facts[0])["object"], "Acme");
  EXPECT_EQ(facts[0].status, NodeStatus::kActive);
}

TEST_F(ReconcileTest, BareCorrectionNeedsARecentFactOfTheSameSpeaker) {
  Say({{"I moved to Berlin.", "2024-05-10T12:00:00Z"},
       {"No, I meant Munich.", "2024-05-10T12:01:00Z", "Leo"},
       {"Nice weather.", "2024-05-10T12:02:00Z"},
       {"Lovely.", "2024-05-10T12:03:00Z"},
       {"Sunny.", "2024-05-10T12:04:00Z"},
       {"No, I meant Hamburg.", "2024-05-10T12:05:00Z"}});
  const std::vector<store::NodeRecord> facts = Facts();
  // Leo corrects nothing of Mia's; Mia's correction comes too late (beyond the TTL).
  EXPECT_EQ(Find(facts, "lives_in", "Munich"), nullptr);
  EXPECT_EQ(Find(facts, "lives_in", "Hamburg"), nullptr);
  ASSERT_NE(Find(facts, "lives_in", "Berlin"), nullptr);
  EXPECT_EQ(Find(facts, "lives_in", "Berlin")->status, NodeStatus::kActive);
}

TEST_F(ReconcileTest, InvariantWithPastStatesAndCorrections) {
  Say({{"I live in Berlin.", "2024-01-10T12:00:00Z"},
       {"No, I meant Bonn.", "2024-01-10T12:01:00Z"},
       {"I used to live in Bonn.", "2024-03-10T12:00:00Z"}});
  Say({{"I moved to Kiel.", "2024-04-10T12:00:00Z"},
       {"I used to live in Berlin.", "2024-04-11T12:00:00Z"},
       {"No, I meant Lübeck.", "2024-04-11T12:01:00Z"},
       {"I live in Lübeck.", "2024-05-10T12:00:00Z"}});
  ExpectSlotInvariant();
  std::vector<std::string> open_residences;
  for (const store::NodeRecord& node : Facts()) {
    const nlohmann::json content = Content(node);
    if (content["predicate"] == "lives_in" && node.status == NodeStatus::kActive &&
        !node.valid_to.has_value()) {
      open_residences.push_back(content["object"]);
    }
  }
  EXPECT_THAT(open_residences, ::testing::ElementsAre("Lübeck"));
  const store::NodeRecord* bonn = Find(Facts(), "lives_in", "Bonn");
  ASSERT_NE(bonn, nullptr);
  EXPECT_EQ(bonn->valid_to, T("2024-03-10T12:00:00Z"));
}

}  // namespace
}  // namespace engram::write
