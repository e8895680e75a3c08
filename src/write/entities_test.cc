// The resolver's string measures against values computed by hand, and its tiers.
#include "write/entities.h"

#include <gtest/gtest.h>

#include "embed/embedder.h"
#include "write/entities_match.h"

namespace engram::write {
namespace {

// Hand computations (m = matches, t = transpositions, l = common prefix):
//   martha / marhta:   m 6, t 1: jaro (6/6 + 6/6 + 5/6) / 3 = 0.944444; l 3: + 0.3 * 0.055556
//   dwayne / duane:    m 4, t 0: (4/6 + 4/5 + 1) / 3 = 0.822222; l 1: + 0.1 * 0.177778 = 0.84
//   dixon / dicksonx:  m 4, t 0: (4/5 + 4/8 + 1) / 3 = 0.766667; l 2: + 0.2 * 0.233333
//   melanie / melania: m 6, t 0: (6/7 + 6/7 + 1) / 3 = 0.904762; l 4: + 0.4 * 0.095238
//   jon / john:        m 3, t 0: (3/3 + 3/4 + 1) / 3 = 0.916667; l 2: + 0.2 * 0.083333
//   catherine / catharine: m 8, t 0: (8/9 + 8/9 + 1) / 3 = 0.925926; l 4: + 0.4 * 0.074074
//   filip / phillip:   m 4, t 0: (4/5 + 4/7 + 1) / 3 = 0.790476; l 0
TEST(JaroWinklerTest, HandComputedValues) {
  EXPECT_NEAR(Jaro("martha", "marhta"), 0.944444, 1e-6);
  EXPECT_NEAR(JaroWinkler("martha", "marhta"), 0.961111, 1e-6);
  EXPECT_NEAR(JaroWinkler("dwayne", "duane"), 0.84, 1e-6);
  EXPECT_NEAR(JaroWinkler("dixon", "dicksonx"), 0.813333, 1e-6);
  EXPECT_NEAR(JaroWinkler("melanie", "melania"), 0.942857, 1e-6);
  EXPECT_NEAR(JaroWinkler("jon", "john"), 0.933333, 1e-6);
  EXPECT_NEAR(JaroWinkler("catherine", "catharine"), 0.955556, 1e-6);
  EXPECT_NEAR(JaroWinkler("filip", "phillip"), 0.790476, 1e-6);
}

TEST(JaroWinklerTest, EdgeCases) {
  EXPECT_DOUBLE_EQ(JaroWinkler("", ""), 1.0);
  EXPECT_DOUBLE_EQ(JaroWinkler("abc", ""), 0.0);
  EXPECT_DOUBLE_EQ(JaroWinkler("abc", "xyz"), 0.0);
  EXPECT_DOUBLE_EQ(JaroWinkler("anna", "anna"), 1.0);
  EXPECT_DOUBLE_EQ(JaroWinkler("a", "a"), 1.0);
  // Symmetric.
  EXPECT_DOUBLE_EQ(JaroWinkler("dixon", "dicksonx"), JaroWinkler("dicksonx", "dixon"));
  // Code points, not bytes: one differing accented letter out of four.
  EXPECT_NEAR(Jaro("josé", "josè"), (3.0 / 4 + 3.0 / 4 + 1) / 3, 1e-9);
}

TEST(PhoneticKeyTest, SoundexWithDigraphRewrites) {
  EXPECT_EQ(PhoneticKey("Phillip"), "F410");
  EXPECT_EQ(PhoneticKey("Filip"), "F410");
  EXPECT_EQ(PhoneticKey("Robert"), "R163");
  EXPECT_EQ(PhoneticKey("Rupert"), "R163");
  EXPECT_EQ(PhoneticKey("Knight"), "N230");   // KN -> N; H does not separate
  EXPECT_EQ(PhoneticKey("Wright"), "R230");   // WR -> R
  EXPECT_EQ(PhoneticKey("Jackson"), "J250");  // CK -> K
  EXPECT_EQ(PhoneticKey("Ashcraft"), "A261");
  EXPECT_EQ(PhoneticKey("new york"), "N000 Y620");
  EXPECT_EQ(PhoneticKey("東京"), "");
}

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
