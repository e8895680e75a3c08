// The resolver's string measures against values computed by hand, and its tiers.
#include "write/entities.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace engram::write
