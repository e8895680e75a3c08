// The chat context mode (RecallOptions::mode = kChat, read/chat_context.h) through the public
// API: after "I moved to Berlin last March" and "I actually live in Munich now" and a
// consolidation, a chat-mode recall puts Mia's profile before the evidence with residence Munich
// (Berlin as history) and the turn it rests on; a plan made for next Friday is a foresight line
// until that day and gone after it; the lines stay within their share of the token budget; the
// evidence mode has none of it; and the same recall twice gives the same context.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
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
using ::testing::StartsWith;

class ChatContextTest : public ::testing::Test {
 protected:
  void SetUp() override {
    engine_ = testing::OpenOrDie(testing::TestOptions(dir_));
    using testing::MakeTurn;
    // 10 May 2024 is a Friday: "next Friday" is 17 May.
    StatusOr<RememberResult> remembered = engine_->Remember(
        scope_,
        std::vector<Turn>{
            MakeTurn("Mia", "I moved to Berlin last March.", "s1", "2024-05-01T12:00:00Z"),
            MakeTurn("Leo", "How do you like the city so far?", "s1", "2024-05-01T12:01:00Z"),
            MakeTurn("Mia", "I actually live in Munich now.", "s2", "2024-05-10T09:00:00Z"),
            MakeTurn("Mia", "I am going to visit my sister in Lyon next Friday.", "s2",
                     "2024-05-10T09:01:00Z"),
            MakeTurn("Leo", "Have a good trip to Lyon!", "s2", "2024-05-10T09:02:00Z"),
        });
    ASSERT_THAT(remembered, IsOk());
    ids_ = remembered->ids;
    ASSERT_THAT(engine_->Consolidate(scope_), IsOk());
  }

  ReadResult Ask(const std::string& question, const char* now, ContextMode mode,
                 std::size_t budget = 0) {
    RecallOptions options;
    options.mode = mode;
    options.token_budget = budget;
    StatusOr<ReadResult> result =
        engine_->Recall(scope_, {.text = question, .query_time = *ParseTimestamp(now)}, options);
    EXPECT_THAT(result, IsOk());
    return result.ok() ? *std::move(result) : ReadResult{};
  }

  static std::vector<const ChatLine*> Section(const ReadResult& result, const char* section) {
    std::vector<const ChatLine*> lines;
    for (const ChatLine& line : result.chat) {
      if (line.section == section) lines.push_back(&line);
    }
    return lines;
  }

  testing::TempDir dir_;
  std::unique_ptr<Engine> engine_;
  const Scope scope_ = testing::S("user:mia");
  std::vector<std::string> ids_;
};

TEST_F(ChatContextTest, ProfileShowsTheCurrentResidenceWithItsEvidenceTurn) {
  const ReadResult result = Ask("What should I do this weekend?", "2024-05-12T09:00:00Z",
                                ContextMode::kChat);
  EXPECT_EQ(result.mode, "chat");
  const ChatLine* residence = nullptr;
  for (const ChatLine* line : Section(result, "profile")) {
    if (line->text.find("lives in") != std::string::npos) residence = line;
  }
  ASSERT_NE(residence, nullptr) << result.context;
  EXPECT_EQ(residence->person, "Mia");
  EXPECT_THAT(residence->text, StartsWith("- lives in: Munich (before: Berlin)"));
  EXPECT_THAT(residence->evidence, ElementsAre(ids_[2]));
  EXPECT_THAT(residence->text, HasSubstr("[evidence: " + ids_[2] + "]"));
  // The context opens with the profile, the evidence follows.
  EXPECT_THAT(result.context, StartsWith("Profile of Mia:\n- lives in: Munich"));
  EXPECT_THAT(result.diagnostics.chat, HasSubstr("profile of Mia (the scope's user)"));
}

TEST_F(ChatContextTest, APlanIsForesightUntilItsDayAndNotAfter) {
  const ReadResult before = Ask("What is coming up?", "2024-05-12T09:00:00Z", ContextMode::kChat);
  const std::vector<const ChatLine*> foresight = Section(before, "foresight");
  ASSERT_EQ(foresight.size(), 1u) << before.context;
  EXPECT_THAT(foresight[0]->text, HasSubstr("Lyon"));
  EXPECT_THAT(foresight[0]->text, HasSubstr("(until 2024-05-1"));
  EXPECT_THAT(foresight[0]->evidence, ElementsAre(ids_[3]));
  EXPECT_FALSE(foresight[0]->memory_id.empty());
  EXPECT_THAT(before.context, HasSubstr("Foresight valid on 2024-05-12:\n- "));

  const ReadResult after = Ask("What is coming up?", "2024-05-20T09:00:00Z", ContextMode::kChat);
  EXPECT_THAT(Section(after, "foresight"), IsEmpty()) << after.context;
  EXPECT_FALSE(Section(after, "profile").empty());  // the profile stays
}

TEST_F(ChatContextTest, LinesStayWithinTheirShareOfTheBudget) {
  // The default share is 0.25: of 120 tokens the lines may take 30; the evidence gets the rest.
  const ReadResult result =
      Ask("Where does Mia live?", "2024-05-12T09:00:00Z", ContextMode::kChat, 120);
  std::size_t chat_tokens = 0;
  for (const ChatLine& line : result.chat) chat_tokens += line.tokens;
  EXPECT_LE(chat_tokens, 30u);
  EXPECT_LE(result.diagnostics.context_tokens, 120u);
  EXPECT_LE(CountTokens(result.context), 120u);  // headers included
  // A budget too small for any line: no chat lines, the evidence keeps the budget.
  const ReadResult tiny = Ask("Where does Mia live?", "2024-05-12T09:00:00Z", ContextMode::kChat, 8);
  EXPECT_THAT(tiny.chat, IsEmpty());
  EXPECT_THAT(tiny.diagnostics.chat, HasSubstr("0 of"));
}

TEST_F(ChatContextTest, EvidenceModeHasNoChatLinesAndChatModeIsDeterministic) {
  const ReadResult evidence =
      Ask("Where does Mia live?", "2024-05-12T09:00:00Z", ContextMode::kEvidence);
  EXPECT_EQ(evidence.mode, "evidence");
  EXPECT_THAT(evidence.chat, IsEmpty());
  EXPECT_THAT(evidence.diagnostics.chat, IsEmpty());
  const ReadResult first = Ask("Where does Mia live?", "2024-05-12T09:00:00Z", ContextMode::kChat);
  const ReadResult second = Ask("Where does Mia live?", "2024-05-12T09:00:00Z", ContextMode::kChat);
  EXPECT_FALSE(first.chat.empty());
  EXPECT_EQ(first.context, second.context);
  // The evidence of the chat context is the evidence mode's context, after the chat lines.
  EXPECT_THAT(first.context, HasSubstr("\n\n" + evidence.context.substr(0, 20)));
}

TEST(ContextModeTest, NamesParseAndAnUnknownOneIsAClearError) {
  EXPECT_THAT(ParseContextMode("chat"), testing::IsOkAndHolds(ContextMode::kChat));
  EXPECT_THAT(ParseContextMode("evidence"), testing::IsOkAndHolds(ContextMode::kEvidence));
  EXPECT_EQ(ContextModeName(ContextMode::kChat), "chat");
  const StatusOr<ContextMode> bad = ParseContextMode("chatty");
  EXPECT_THAT(bad, StatusIs(StatusCode::kInvalidArgument));
  EXPECT_THAT(bad.status().message(), HasSubstr("unknown context mode \"chatty\""));
  EXPECT_THAT(bad.status().message(), HasSubstr("evidence, chat"));
}

}  // namespace
}  // namespace engram
