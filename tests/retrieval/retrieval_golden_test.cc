// Runs every golden retrieval case (cases/*.golden, format in golden_case.h): stores the case's
// turns in a fresh engine with the case's config over the shipped defaults, recalls each question
// and compares what it returns with the lines the case expects. A difference fails with both
// versions; ENGRAM_UPDATE_GOLDEN=1 rewrites the case with what the engine returns instead, for a
// ranking change to be reviewed as a diff.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "engram/engine.h"
#include "engram/testing/status_matchers.h"
#include "engram/testing/temp_dir.h"
#include "golden_case.h"
#include "test_util.h"

namespace engram::testing {
namespace {

using ::testing::HasSubstr;

std::vector<std::string> CaseFiles() {
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(ENGRAM_RETRIEVAL_CASES_DIR)) {
    if (entry.path().extension() == ".golden") files.push_back(entry.path().filename().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string Join(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& line : lines) out += "  " + line + "\n";
  return out;
}

// What one recall returns, in the case's words.
std::vector<std::string> Describe(const ReadResult& result,
                                  const std::map<std::string, std::string>& label_of) {
  const auto label = [&](const std::string& id) {
    const auto found = label_of.find(id);
    return found == label_of.end() ? "?" + id.substr(0, 8) : found->second;
  };
  std::string items = "items:";
  for (const RecallItem& item : result.items) {
    std::string name = item.kind == NodeKind::kTurn
                           ? label(item.id)
                           : std::string(NodeKindName(item.kind)) + ":" +
                                 (item.provenance.empty() ? "-" : label(item.provenance.front()));
    if (item.superseded_by.has_value()) name += "[superseded]";
    items += " " + name;
  }
  return {items, "sufficiency: " + result.sufficiency.verdict};
}

class RetrievalGoldenTest : public ::testing::TestWithParam<std::string> {};

TEST_P(RetrievalGoldenTest, RecallReturnsWhatTheCaseExpects) {
  const std::string path = std::string(ENGRAM_RETRIEVAL_CASES_DIR) + "/" + GetParam();
  const std::string text = ReadFileBytes(path);
  ASSERT_FALSE(text.empty()) << "cannot read " << path;
  StatusOr<GoldenCase> golden = ParseGoldenCase(text);
  ASSERT_THAT(golden, IsOk()) << path;

  TempDir dir;
  EngineOptions options = TestOptions(dir);
  std::string toml;
  for (const std::string& line : golden->config) toml += line + "\n";
  StatusOr<Config> config = ParseConfig(toml, GetParam());
  ASSERT_THAT(config, IsOk());
  options.config = *config;
  std::unique_ptr<Engine> engine = OpenOrDie(options);
  const Scope scope = S(golden->scope);
  std::vector<Turn> turns;
  for (const GoldenTurn& turn : golden->turns) turns.push_back(turn.turn);
  StatusOr<RememberResult> stored = engine->Remember(scope, turns);
  ASSERT_THAT(stored, IsOk());
  ASSERT_THAT(engine->WaitForDerivation(), IsOk());
  std::map<std::string, std::string> label_of;
  for (std::size_t i = 0; i < stored->ids.size(); ++i) {
    label_of[stored->ids[i]] = golden->turns[i].label;
  }

  std::vector<std::vector<std::string>> actual;
  bool differs = false;
  for (const GoldenQuery& query : golden->queries) {
    RecallOptions recall_options;
    recall_options.k = query.k;
    recall_options.token_budget = query.budget;
    recall_options.valid_at = query.valid_at;
    StatusOr<ReadResult> result =
        engine->Recall(scope, {.text = query.text, .query_time = query.at}, recall_options);
    ASSERT_THAT(result, IsOk()) << GetParam() << " line " << query.line;
    actual.push_back(Describe(*result, label_of));
    if (actual.back() != query.expected) {
      differs = true;
      ADD_FAILURE() << GetParam() << " line " << query.line << ": " << query.text << "\nexpected:\n"
                    << Join(query.expected) << "returned:\n"
                    << Join(actual.back())
                    << "(ENGRAM_UPDATE_GOLDEN=1 rewrites the case with what is returned)";
    }
  }
  const char* update = std::getenv("ENGRAM_UPDATE_GOLDEN");
  if (differs && update != nullptr && std::string(update) == "1") {
    std::ofstream(path, std::ios::binary) << FormatGoldenCase(*golden, actual);
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, RetrievalGoldenTest, ::testing::ValuesIn(CaseFiles()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param.substr(0, info.param.find('.'));
                           std::replace_if(
                               name.begin(), name.end(),
                               [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); },
                               '_');
                           return name;
                         });

// The format itself: a case survives a round trip, and bad lines are errors naming the line.
TEST(GoldenCaseFormatTest, ARoundTripKeepsEveryPart) {
  const std::string text =
      "# A comment.\n"
      "config:\n"
      "  [recall]\n"
      "  ranker = \"fusion\"\n"
      "scope: user:iris\n"
      "turns:\n"
      "  a s1 2024-03-10T10:00:00Z Iris: I live in Berlin.\n"
      "  b s1 2024-03-10T10:01:00Z assistant/-: Noted.\n"
      "query at=2024-07-01T00:00:00Z valid_at=2024-04-01T00:00:00Z k=3 budget=500: Where?\n"
      "  items: a\n"
      "  sufficiency: partial\n";
  StatusOr<GoldenCase> golden = ParseGoldenCase(text);
  ASSERT_THAT(golden, IsOk());
  ASSERT_EQ(golden->turns.size(), 2u);
  EXPECT_EQ(golden->turns[1].turn.role, Role::kAssistant);
  EXPECT_EQ(golden->turns[1].turn.speaker, "");
  ASSERT_EQ(golden->queries.size(), 1u);
  EXPECT_EQ(golden->queries[0].k, 3u);
  EXPECT_EQ(golden->queries[0].budget, 500u);
  EXPECT_EQ(FormatGoldenCase(*golden, {}), text);
  EXPECT_THAT(FormatGoldenCase(*golden, {{"items: b"}}), HasSubstr("Where?\n  items: b\n"));
}

TEST(GoldenCaseFormatTest, BadLinesAreErrorsNamingTheLine) {
  const std::string head = "scope: user:a\nturns:\n  a s1 2024-01-01T00:00:00Z A: hi\n";
  EXPECT_THAT(ParseGoldenCase(head + "query when=now: hi\n"),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("line 4: unknown query option")));
  EXPECT_THAT(ParseGoldenCase("scope: user:a\nturns:\n  a s1 yesterday A: hi\nquery: q\n"),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("line 3: \"yesterday\"")));
  EXPECT_THAT(ParseGoldenCase(head + "  a s2 2024-01-01T00:00:00Z A: again\nquery: q\n"),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("label a twice")));
  EXPECT_THAT(ParseGoldenCase(head), StatusIs(StatusCode::kInvalidArgument, HasSubstr("no query")));
  EXPECT_THAT(ParseGoldenCase(head + "# late\nquery: q\n"),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("comments go at the top")));
}

}  // namespace
}  // namespace engram::testing
