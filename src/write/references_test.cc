// Focus stacks and reference rules (KeyMem §3.5).
#include "write/references.h"

#include <gtest/gtest.h>

namespace engram::write {
namespace {

std::vector<Reference> ResolveIn(FocusState& focus, const std::string& text,
                           const std::vector<TurnMention>& mentions = {}) {
  return focus.Resolve(text, text::Lex(text), mentions);
}

TurnMention Mention(FocusKind kind, std::string id, std::uint32_t begin, std::uint32_t end,
                    Gender gender = Gender::kUnknown) {
  return TurnMention{.kind = kind, .target_id = std::move(id), .begin = begin, .end = end,
                     .gender = gender};
}

TEST(FocusStateTest, PronounsFollowGenderAndSkipTheSpeaker) {
  FocusState focus;
  focus.BeginTurn("s1", "caroline");
  // "I saw Anna and Tom." Anna female, Tom male.
  focus.Commit({Mention(FocusKind::kPerson, "anna", 6, 10, Gender::kFemale),
                Mention(FocusKind::kPerson, "tom", 15, 18, Gender::kMale)});
  focus.BeginTurn("s1", "melanie");
  const std::vector<Reference> refs = ResolveIn(focus, "Did she call him?");
  ASSERT_EQ(refs.size(), 2u);
  EXPECT_EQ(refs[0].surface, "she");
  EXPECT_EQ(refs[0].target_id, "anna");
  EXPECT_EQ(refs[0].kind, FocusKind::kPerson);
  EXPECT_EQ(refs[1].surface, "him");
  EXPECT_EQ(refs[1].target_id, "tom");
  EXPECT_EQ(refs[1].begin, 13u);
  EXPECT_EQ(refs[1].end, 16u);
}

TEST(FocusStateTest, EarlierMentionInTheSameTurnComesFirst) {
  FocusState focus;
  focus.BeginTurn("s1", "caroline");
  focus.Commit({Mention(FocusKind::kPerson, "anna", 0, 4, Gender::kFemale)});
  focus.BeginTurn("s1", "caroline");
  // "I met Maria and she laughed." Maria (unknown gender here) precedes "she".
  const std::string text = "I met Maria and she laughed.";
  const std::vector<Reference> refs =
      ResolveIn(focus, text, {Mention(FocusKind::kPerson, "maria", 6, 11)});
  ASSERT_EQ(refs.size(), 1u);
  EXPECT_EQ(refs[0].target_id, "maria");
}

TEST(FocusStateTest, ThereAndThatDay) {
  FocusState focus;
  focus.BeginTurn("s1", "caroline");
  focus.Commit({Mention(FocusKind::kPlace, "berlin", 0, 6),
                Mention(FocusKind::kTime, "may-9", 10, 19)});
  focus.BeginTurn("s1", "melanie");
  const std::vector<Reference> refs =
      ResolveIn(focus, "There is a cafe there. What happened that day? Hi there. Since then, calm.");
  ASSERT_EQ(refs.size(), 3u);
  EXPECT_EQ(refs[0].surface, "there");  // not the existential "There is"
  EXPECT_EQ(refs[0].target_id, "berlin");
  EXPECT_EQ(refs[1].surface, "that day");
  EXPECT_EQ(refs[1].kind, FocusKind::kTime);
  EXPECT_EQ(refs[1].target_id, "may-9");
  EXPECT_EQ(refs[2].surface, "Since then");  // "Hi there" is a greeting
  EXPECT_EQ(refs[2].target_id, "may-9");
}

TEST(FocusStateTest, YouIsTheOtherSpeaker) {
  FocusState focus;
  focus.BeginTurn("s1", "caroline");
  focus.Commit({});
  focus.BeginTurn("s1", "melanie");
  const std::vector<Reference> refs = ResolveIn(focus, "Thank you!");
  ASSERT_EQ(refs.size(), 1u);
  EXPECT_EQ(refs[0].kind, FocusKind::kAddressee);
  EXPECT_EQ(refs[0].target_id, "caroline");
}

TEST(FocusStateTest, BindingsExpireAfterTheTtlAndWithTheSession) {
  FocusState focus(FocusOptions{.ttl_turns = 3});
  focus.BeginTurn("s1", "");
  focus.Commit({Mention(FocusKind::kPlace, "berlin", 0, 6)});
  for (int turn = 0; turn < 2; ++turn) {
    focus.BeginTurn("s1", "");
    focus.Commit({});
  }
  focus.BeginTurn("s1", "");  // three turns after the mention: still bound
  EXPECT_EQ(ResolveIn(focus, "I was there.").size(), 1u);
  focus.Commit({});
  focus.BeginTurn("s1", "");  // four turns after: expired
  EXPECT_TRUE(ResolveIn(focus, "I was there.").empty());

  focus.Commit({Mention(FocusKind::kPlace, "paris", 0, 5)});
  focus.BeginTurn("s2", "");  // a new session clears the stacks
  EXPECT_TRUE(ResolveIn(focus, "I was there.").empty());
}

TEST(FocusStateTest, StackLimitDropsTheOldest) {
  FocusState focus(FocusOptions{.ttl_turns = 100, .place_limit = 2});
  focus.BeginTurn("s1", "");
  focus.Commit({Mention(FocusKind::kPlace, "a", 0, 1), Mention(FocusKind::kPlace, "b", 2, 3),
                Mention(FocusKind::kPlace, "c", 4, 5)});
  focus.BeginTurn("s1", "");
  const std::vector<Reference> refs = ResolveIn(focus, "there");
  ASSERT_EQ(refs.size(), 1u);
  EXPECT_EQ(refs[0].target_id, "c");
}

TEST(FocusStateTest, NothingToBindLeavesNoReference) {
  FocusState focus;
  focus.BeginTurn("s1", "caroline");
  EXPECT_TRUE(ResolveIn(focus, "She said he was there back then.").empty());
}

}  // namespace
}  // namespace engram::write
