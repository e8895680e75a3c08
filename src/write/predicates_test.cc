// Tests of the predicate schema (predicates.h) that both fact extractors share.
#include "write/predicates.h"

#include <gtest/gtest.h>

namespace engram::write {
namespace {

TEST(PredicatesTest, SlotsWithOneCurrentValueAreSingleValued) {
  for (const char* predicate : {"lives_in", "works_at", "works_as", "studies", "from",
                                "relationship_status", "employment_status", "diet", "budget",
                                "favorite_book", "setting_theme", "birthday", "phone_number"}) {
    EXPECT_TRUE(IsSingleValued(predicate)) << predicate;
  }
  for (const char* predicate : {"likes", "allergic_to", "owns", "is_a", "status", "uses",
                                "went_to", "lived_in", "was_birthday", "sister", ""}) {
    EXPECT_FALSE(IsSingleValued(predicate)) << predicate;
  }
}

TEST(PredicatesTest, PastFormsAndTheirCurrentSlot) {
  EXPECT_EQ(PastOf("lives_in"), "lived_in");
  EXPECT_EQ(PastOf("owns"), "owned");
  EXPECT_EQ(PastOf("habit"), "used_to");
  EXPECT_EQ(PastOf("from"), "from");
  EXPECT_EQ(PastOf("relationship_status"), "was_relationship_status");
  EXPECT_EQ(PastOf("birthday"), "was_birthday");

  EXPECT_EQ(SingleValuedCurrentOf("lived_in"), "lives_in");
  EXPECT_EQ(SingleValuedCurrentOf("studied"), "studies");
  EXPECT_EQ(SingleValuedCurrentOf("was_relationship_status"), "relationship_status");
  EXPECT_EQ(SingleValuedCurrentOf("was_hometown"), "hometown");
  // Past states of multi-valued predicates, and origin (past and current are one form).
  EXPECT_EQ(SingleValuedCurrentOf("owned"), std::nullopt);
  EXPECT_EQ(SingleValuedCurrentOf("used_to"), std::nullopt);
  EXPECT_EQ(SingleValuedCurrentOf("was_a"), std::nullopt);
  EXPECT_EQ(SingleValuedCurrentOf("was_status"), std::nullopt);
  EXPECT_EQ(SingleValuedCurrentOf("from"), std::nullopt);
}

TEST(PredicatesTest, ProfileAttributesAreSnakeCase) {
  EXPECT_TRUE(IsProfileAttribute("phone_number"));
  EXPECT_TRUE(IsProfileAttribute("name"));
  EXPECT_FALSE(IsProfileAttribute("phone number"));
  EXPECT_FALSE(IsProfileAttribute("art"));
}

}  // namespace
}  // namespace engram::write
