// End-to-end test of `engram show TURN_ID` on a turn: the signals, resolved times, entities,
// references and facts the write path derived from it (text and --json), and of `engram facts
// --rejected`, which lists the candidates the validator rejected with the reason.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engram/testing/temp_dir.h"
#include "shell_runner.h"

namespace engram {
namespace {

namespace fs = std::filesystem;

using Output = testing::ShellOutput;
using ::testing::HasSubstr;
using testing::RunCli;

class ShowCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = "--store '" + (fs::path(dir_) / "engram.db").string() + "' ";
    const std::string input = (fs::path(dir_) / "turns.jsonl").string();
    std::ofstream(input)
        << R"({"speaker": "Mia", "session_id": "s1", "text": "I moved to Berlin last March. Shipping cost $1,250!", "event_time": "2024-05-10T12:00:00Z"})"
        << "\n"
        << R"({"speaker": "Leo", "session_id": "s1", "text": "I was there yesterday with my friend Anna.", "event_time": "2024-05-10T12:01:00Z"})"
        << "\n"
        << R"({"speaker": "Mia", "session_id": "s1", "text": "No, I meant Munich.", "event_time": "2024-05-10T12:02:00Z"})"
        << "\n"
        << R"({"speaker": "Mia", "session_id": "s1", "text": "Imagine I lived in Rome.", "event_time": "2024-05-10T12:03:00Z"})"
        << "\n";
    const Output ingest = RunCli(store_ + "--quiet ingest --scope user:mia '" + input + "'");
    ASSERT_EQ(ingest.exit_code, 0) << ingest.out;
    const Output listed = RunCli(store_ + "--json list --scope user:mia");
    ASSERT_EQ(listed.exit_code, 0) << listed.out;
    const nlohmann::json memories = nlohmann::json::parse(listed.out)["memories"];
    for (const nlohmann::json& memory : memories) turns_.push_back(memory["id"]);
    ASSERT_EQ(turns_.size(), 4u);
  }

  nlohmann::json Show(const std::string& id) {
    const Output shown = RunCli(store_ + "--json show " + id);
    EXPECT_EQ(shown.exit_code, 0) << shown.out;
    return nlohmann::json::parse(shown.out, nullptr, /*allow_exceptions=*/false);
  }

  static const nlohmann::json* Find(const nlohmann::json& list, const char* field,
                                    const std::string& value) {
    for (const nlohmann::json& entry : list) {
      if (entry.value(field, "") == value) return &entry;
    }
    return nullptr;
  }

  engram::testing::TempDir temp_dir_{"engram_show_cli"};
  std::string dir_ = temp_dir_.path();
  std::string store_;
  std::vector<std::string> turns_;
};

TEST_F(ShowCliTest, TurnShowsSignalsTimesEntitiesAndFacts) {
  const nlohmann::json turn = Show(turns_[0]);
  EXPECT_EQ(turn["text"], "I moved to Berlin last March. Shipping cost $1,250!");
  const nlohmann::json* money = Find(turn["signals"], "kind", "money");
  ASSERT_NE(money, nullptr);
  EXPECT_EQ((*money)["text"], "$1,250");
  EXPECT_EQ((*money)["value"], "1250 USD");
  EXPECT_EQ((*money)["begin"], 44);
  EXPECT_EQ((*money)["end"], 50);
  const nlohmann::json* march = Find(turn["times"], "text", "last March");
  ASSERT_NE(march, nullptr);
  EXPECT_EQ((*march)["from"], "2024-03-01");
  EXPECT_EQ((*march)["to"], "2024-04-01");
  EXPECT_EQ((*march)["granularity"], "month");
  const nlohmann::json* berlin = Find(turn["entities"], "name", "Berlin");
  ASSERT_NE(berlin, nullptr);
  EXPECT_EQ((*berlin)["kind"], "place");
  EXPECT_EQ((*berlin)["spans"], nlohmann::json::array({nlohmann::json::array({11, 17})}));
  // The residence fact, corrected two turns later by "No, I meant Munich".
  const nlohmann::json* fact = Find(turn["facts"], "object", "Berlin");
  ASSERT_NE(fact, nullptr);
  EXPECT_EQ((*fact)["subject"], "Mia");
  EXPECT_EQ((*fact)["predicate"], "lives_in");
  EXPECT_EQ((*fact)["status"], "superseded");
  EXPECT_EQ((*fact)["valid_from"], "2024-03-01T00:00:00Z");
  EXPECT_EQ((*fact)["valid_to"], "2024-05-10T12:02:00Z");
  EXPECT_TRUE(turn["content_signals"].contains("information_density"));

  const Output human = RunCli(store_ + "show " + turns_[0]);
  ASSERT_EQ(human.exit_code, 0);
  EXPECT_THAT(human.out, HasSubstr("\"$1,250\"  [44, 50)  1250 USD"));
  EXPECT_THAT(human.out, HasSubstr("\"last March\"  2024-03-01 .. 2024-04-01  month"));
  EXPECT_THAT(human.out, HasSubstr("place  Berlin  " + (*berlin)["id"].get<std::string>()));
  EXPECT_THAT(human.out, HasSubstr("superseded  Mia | lives_in | Berlin  valid "
                                   "2024-03-01T00:00:00Z .. 2024-05-10T12:02:00Z"));
}

TEST_F(ShowCliTest, TurnShowsResolvedReferencesAndYesterday) {
  const nlohmann::json turn = Show(turns_[1]);
  const nlohmann::json* yesterday = Find(turn["times"], "text", "yesterday");
  ASSERT_NE(yesterday, nullptr);
  EXPECT_EQ((*yesterday)["from"], "2024-05-09");
  EXPECT_EQ((*yesterday)["to"], "2024-05-10");
  const nlohmann::json* there = Find(turn["references"], "surface", "there");
  ASSERT_NE(there, nullptr);
  EXPECT_EQ((*there)["kind"], "place");
  EXPECT_EQ((*there)["target_text"], "Berlin");
  ASSERT_NE(Find(turn["entities"], "name", "Anna"), nullptr);
  const Output human = RunCli(store_ + "show " + turns_[1]);
  EXPECT_THAT(human.out, HasSubstr("\"there\"  [6, 11)  place -> Berlin"));
}

TEST_F(ShowCliTest, BareCorrectionTurnShowsItsFact) {
  const nlohmann::json turn = Show(turns_[2]);
  ASSERT_EQ(turn["facts"].size(), 1u);
  EXPECT_EQ(turn["facts"][0]["predicate"], "lives_in");
  EXPECT_EQ(turn["facts"][0]["object"], "Munich");
  EXPECT_EQ(turn["facts"][0]["status"], "active");
  ASSERT_NE(Find(turn["signals"], "kind", "correction"), nullptr);
}

TEST_F(ShowCliTest, OtherKindsStillShowAsOneMemory) {
  const nlohmann::json turn = Show(turns_[0]);
  const std::string fact_id = Find(turn["facts"], "object", "Berlin")->at("id");
  const nlohmann::json fact = Show(fact_id);
  EXPECT_EQ(fact["kind"], "fact");
  EXPECT_FALSE(fact.contains("signals"));
  EXPECT_EQ(RunCli(store_ + "show 00000000000000000000000000000000 2>/dev/null").exit_code, 3);
}

TEST_F(ShowCliTest, RejectedCandidatesAreListedWithTheReason) {
  const Output rejected = RunCli(store_ + "--json facts --rejected --scope user:mia");
  ASSERT_EQ(rejected.exit_code, 0) << rejected.out;
  const nlohmann::json json = nlohmann::json::parse(rejected.out);
  const nlohmann::json* rome = Find(json["facts"], "object", "Rome");
  ASSERT_NE(rome, nullptr);
  EXPECT_EQ((*rome)["status"], "rejected");
  EXPECT_EQ((*rome)["rejected"]["check"], "act");
  EXPECT_EQ((*rome)["provenance"], nlohmann::json::array({turns_[3]}));
  // Not a current fact.
  const Output current = RunCli(store_ + "--json facts --scope user:mia");
  ASSERT_EQ(current.exit_code, 0);
  EXPECT_EQ(Find(nlohmann::json::parse(current.out)["facts"], "object", "Rome"), nullptr);
  const Output human = RunCli(store_ + "facts --rejected --scope user:mia");
  EXPECT_THAT(human.out, HasSubstr("rejected (act): hypothetical"));
}

}  // namespace
}  // namespace engram
