// The resolver's string measures against values computed by hand, and its tiers.
#include "write/entities.h"

#include <gtest/gtest.h>

#include "embed/embedder.h"

namespace engram::write {
namespace {

RosterEntry Entry(std::string id, text::EntityKind kind, std::string key) {
  RosterEntry entry;
  entry.id = std::move(id);
  entry.kind = kind;
  entry.name = key;
  entry.key = std::move(key);
  return entry;
}

TEST(EntityRosterTest, ExactMatchWithinTheKind) {
  EntityRoster roster;
  roster.Add(Entry("e1", text::EntityKind::kPerson, "caroline"));
  const Resolution exact = roster.Resolve(text::EntityKind::kPerson, "caroline", {});
  EXPECT_EQ(exact.match, 0);
  EXPECT_EQ(exact.tier, ResolveTier::kExact);
  EXPECT_DOUBLE_EQ(exact.score, 1.0);
  // A place of the same name is another entity, with nothing to propose.
  const Resolution place = roster.Resolve(text::EntityKind::kPlace, "caroline", {});
  EXPECT_EQ(place.match, -1);
  EXPECT_EQ(place.propose_to, -1);
}

TEST(EntityRosterTest, AliasOfAMultiWordPerson) {
  EntityRoster roster;
  roster.Add(Entry("e1", text::EntityKind::kPerson, "caroline smith"));
  const Resolution alias = roster.Resolve(text::EntityKind::kPerson, "caroline", {});
  EXPECT_EQ(alias.match, 0);
  EXPECT_EQ(alias.tier, ResolveTier::kAlias);
  // Two people share the first name: no alias, a new entity.
  roster.Add(Entry("e2", text::EntityKind::kPerson, "caroline jones"));
  const Resolution ambiguous = roster.Resolve(text::EntityKind::kPerson, "caroline", {});
  EXPECT_EQ(ambiguous.match, -1);
}

TEST(EntityRosterTest, MultiWordMentionOfAOneWordPersonIsOnlyProposed) {
  EntityRoster roster;
  roster.Add(Entry("e1", text::EntityKind::kPerson, "anna"));
  // jaro (4/9 + 4/4 + 1) / 3 = 0.814815; l 4: + 0.4 * 0.185185 = 0.888889: a fuzzy proposal.
  const Resolution close = roster.Resolve(text::EntityKind::kPerson, "anna berg", {});
  EXPECT_EQ(close.match, -1);
  EXPECT_EQ(close.propose_to, 0);
  EXPECT_EQ(close.propose_tier, ResolveTier::kFuzzy);
  EXPECT_NEAR(close.propose_score, 0.888889, 1e-6);
  // Too long for the fuzzy tier (0.847059), different phonetic key: proposed as an alias.
  const Resolution far = roster.Resolve(text::EntityKind::kPerson, "anna von der berg", {});
  EXPECT_EQ(far.match, -1);
  EXPECT_EQ(far.propose_to, 0);
  EXPECT_EQ(far.propose_tier, ResolveTier::kAlias);
}

TEST(EntityRosterTest, FuzzyAcceptAndPropose) {
  EntityRoster roster;
  roster.Add(Entry("e1", text::EntityKind::kPerson, "catherine"));
  roster.Add(Entry("e2", text::EntityKind::kPerson, "melanie"));
  const Resolution accepted = roster.Resolve(text::EntityKind::kPerson, "catharine", {});
  EXPECT_EQ(accepted.match, 0);
  EXPECT_EQ(accepted.tier, ResolveTier::kFuzzy);
  EXPECT_NEAR(accepted.score, 0.955556, 1e-6);
  const Resolution proposed = roster.Resolve(text::EntityKind::kPerson, "melania", {});
  EXPECT_EQ(proposed.match, -1);
  EXPECT_EQ(proposed.propose_to, 1);
  EXPECT_EQ(proposed.propose_tier, ResolveTier::kFuzzy);
  EXPECT_NEAR(proposed.propose_score, 0.942857, 1e-6);
  // A stricter accept threshold turns the accepted match into a proposal.
  const Resolution strict =
      roster.Resolve(text::EntityKind::kPerson, "catharine", {.accept = 0.99, .propose = 0.85});
  EXPECT_EQ(strict.match, -1);
  EXPECT_EQ(strict.propose_to, 0);
}

TEST(EntityRosterTest, PhoneticMatchIsProposed) {
  EntityRoster roster;
  roster.Add(Entry("e1", text::EntityKind::kPerson, "phillip"));
  const Resolution result = roster.Resolve(text::EntityKind::kPerson, "filip", {});
  EXPECT_EQ(result.match, -1);
  EXPECT_EQ(result.propose_to, 0);
  EXPECT_EQ(result.propose_tier, ResolveTier::kPhonetic);
  EXPECT_NEAR(result.propose_score, 0.790476, 1e-6);
}

TEST(EntityRosterTest, EqualScoresGoToTheSmallerId) {
  EntityRoster roster;
  roster.Add(Entry("id-b", text::EntityKind::kPerson, "jon"));
  roster.Add(Entry("id-a", text::EntityKind::kPerson, "jan"));
  // "jen" scores 0.8 against both and sounds like both (J500).
  const Resolution result = roster.Resolve(text::EntityKind::kPerson, "jen", {});
  EXPECT_EQ(result.match, -1);
  ASSERT_EQ(result.propose_to, 1);
  EXPECT_EQ(roster.at(1).id, "id-a");
  EXPECT_EQ(result.propose_tier, ResolveTier::kPhonetic);
  EXPECT_NEAR(result.propose_score, 0.8, 1e-9);
}

TEST(EntityRosterTest, UnrelatedNameIsNew) {
  EntityRoster roster;
  roster.Add(Entry("e1", text::EntityKind::kPlace, "berlin"));
  const Resolution result = roster.Resolve(text::EntityKind::kPlace, "munich", {});
  EXPECT_EQ(result.match, -1);
  EXPECT_EQ(result.propose_to, -1);
  EXPECT_EQ(result.tier, ResolveTier::kNew);
}

NameVector Vec(std::vector<float> values) {
  return std::make_shared<const std::vector<float>>(std::move(values));
}

TEST(EntityRosterTest, EmbeddingTierProposesTheNearestEntityOfTheKind) {
  EntityRoster roster;
  roster.Add(Entry("e1", text::EntityKind::kPerson, "robert smith"));
  roster.Add(Entry("e2", text::EntityKind::kPlace, "paris"));
  roster.Add(Entry("e3", text::EntityKind::kPerson, "alice"));
  const std::vector<float> mention = {0.9f, 0.6f, 0.0f};  // not unit; the dot product is used
  const std::vector<NameVector> vectors = {Vec({1, 0, 0}), Vec(mention), Vec({0, 1, 0})};
  // The place is nearest but of another kind; robert smith 0.9 beats alice 0.6 ("smith" is within
  // "robert smith").
  Resolution result = roster.Resolve(text::EntityKind::kPerson, "smith", {});
  ASSERT_EQ(result.propose_to, -1);  // no string tier: first letters and sounds differ
  roster.ProposeByEmbedding(text::EntityKind::kPerson, "smith", mention, vectors, {}, result);
  EXPECT_EQ(result.match, -1);
  EXPECT_EQ(result.propose_to, 0);
  EXPECT_EQ(result.propose_tier, ResolveTier::kEmbedding);
  EXPECT_NEAR(result.propose_score, 0.9, 1e-9);

  // Below the threshold, or with the tier off, nothing is proposed.
  Resolution strict = roster.Resolve(text::EntityKind::kPerson, "smith", {});
  roster.ProposeByEmbedding(text::EntityKind::kPerson, "smith", mention, vectors,
                            {.embed_propose = 0.95}, strict);
  EXPECT_EQ(strict.propose_to, -1);
  Resolution off = roster.Resolve(text::EntityKind::kPerson, "smith", {});
  roster.ProposeByEmbedding(text::EntityKind::kPerson, "smith", mention, vectors,
                            {.embed_propose = 0}, off);
  EXPECT_EQ(off.propose_to, -1);

  // A string tier's proposal is kept.
  Resolution phonetic = roster.Resolve(text::EntityKind::kPerson, "alise", {});
  ASSERT_EQ(phonetic.propose_to, 2);
  roster.ProposeByEmbedding(text::EntityKind::kPerson, "smith", mention, vectors, {}, phonetic);
  EXPECT_EQ(phonetic.propose_to, 2);
  EXPECT_NE(phonetic.propose_tier, ResolveTier::kEmbedding);

  // Entries without a vector (beyond the span, or null) are skipped.
  Resolution partial = roster.Resolve(text::EntityKind::kPerson, "smith", {});
  const std::vector<NameVector> first_missing = {nullptr, Vec(mention)};
  roster.ProposeByEmbedding(text::EntityKind::kPerson, "smith", mention, first_missing, {},
                            partial);
  EXPECT_EQ(partial.propose_to, -1);
}

TEST(EntityRosterTest, EmbeddingTierSkipsContrastiveModifiers) {
  EntityRoster roster;
  roster.Add(Entry("e1", text::EntityKind::kPlace, "south carolina"));
  roster.Add(Entry("e2", text::EntityKind::kPlace, "lake tahoe"));
  const std::vector<NameVector> vectors = {Vec({1, 0}), Vec({0.9f, 0.1f})};
  const std::vector<float> mention = {1, 0};
  // "north carolina" / "south carolina": same last word, other modifiers; "lake tahoe" is next.
  Resolution result = roster.Resolve(text::EntityKind::kPlace, "north carolina", {});
  ASSERT_EQ(result.propose_to, -1);
  roster.ProposeByEmbedding(text::EntityKind::kPlace, "north carolina", mention, vectors, {},
                            result);
  EXPECT_EQ(result.propose_to, 1);
  EXPECT_NEAR(result.propose_score, 0.9, 1e-9);
  // A one-word name is no contrast: "carolina" is proposed to e1.
  Resolution contained = roster.Resolve(text::EntityKind::kPlace, "carolina", {});
  roster.ProposeByEmbedding(text::EntityKind::kPlace, "carolina", mention, vectors, {}, contained);
  EXPECT_EQ(contained.propose_to, 0);
}

TEST(EntityRosterTest, EmbeddingTierTiesGoToTheSmallerId) {
  EntityRoster roster;
  roster.Add(Entry("id-b", text::EntityKind::kOrganization, "acme corporation"));
  roster.Add(Entry("id-a", text::EntityKind::kOrganization, "the acme company"));
  const std::vector<NameVector> vectors = {Vec({0.6f, 0.8f}), Vec({0.6f, 0.8f})};
  Resolution result = roster.Resolve(text::EntityKind::kOrganization, "xyz acme", {});
  roster.ProposeByEmbedding(text::EntityKind::kOrganization, "xyz acme",
                            std::vector<float>{0.6f, 0.8f}, vectors, {}, result);
  EXPECT_EQ(result.propose_to, 1);
  EXPECT_NEAR(result.propose_score, 1.0, 1e-9);
}

// Embeds a text as the unit vector (1, 0) or (0, 1) by its length's parity; counts the texts.
class CountingEmbedder : public embed::Embedder {
 public:
  explicit CountingEmbedder(std::string model) : model_(std::move(model)) {}
  std::string model_id() const override { return model_; }
  std::size_t dimension() const override { return 2; }
  StatusOr<std::vector<std::vector<float>>> Embed(std::span<const std::string> texts) override {
    std::vector<std::vector<float>> vectors;
    for (const std::string& text : texts) {
      embedded.push_back(text);
      vectors.push_back(text.size() % 2 == 0 ? std::vector<float>{1, 0} : std::vector<float>{0, 1});
    }
    return vectors;
  }
  std::vector<std::string> embedded;

 private:
  std::string model_;
};

TEST(NameVectorCacheTest, EmbedsEachNameOncePerModel) {
  NameVectorCache cache(/*capacity=*/3);
  CountingEmbedder first("model-a");
  const std::vector<std::string> keys = {"anna", "bob", "anna"};
  auto vectors = cache.Get(first, keys);
  ASSERT_TRUE(vectors.ok());
  ASSERT_EQ(vectors->size(), 3u);
  EXPECT_EQ(*(*vectors)[0], (std::vector<float>{1, 0}));
  EXPECT_EQ(*(*vectors)[1], (std::vector<float>{0, 1}));
  EXPECT_EQ((*vectors)[0], (*vectors)[2]);  // one vector for a repeated name
  EXPECT_EQ(first.embedded, (std::vector<std::string>{"anna", "bob"}));

  // Cached names are not embedded again; a batch that overflows the capacity still returns every
  // vector (the cache starts over).
  const std::vector<std::string> more = {"bob", "carl", "dora"};
  auto again = cache.Get(first, more);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(first.embedded, (std::vector<std::string>{"anna", "bob", "carl", "dora"}));
  for (const NameVector& vector : *again) ASSERT_NE(vector, nullptr);

  // Another embedder's vectors are never reused.
  CountingEmbedder second("model-b");
  ASSERT_TRUE(cache.Get(second, std::vector<std::string>{"bob"}).ok());
  EXPECT_EQ(second.embedded, (std::vector<std::string>{"bob"}));
}

}  // namespace
}  // namespace engram::write
