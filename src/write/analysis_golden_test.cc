// Golden test of the analysis stage: a fixed conversation is captured and analysed in a fresh
// SQLite store with the installed lexicons, and everything derived (the analysis row's signals and
// content signals, at_time, entities, mentions, references, same_as proposals) is rendered as text
// and compared with tests/golden/analysis_golden.txt. The test only checks the file; rewriting it
// is an explicit step (engram/testing/golden.h): run the test once with ENGRAM_UPDATE_GOLDEN=1,
// which writes the file from the code's output and skips, then review the diff before committing.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/paths.h"
#include "engram/testing/golden.h"
#include "engram/testing/status_matchers.h"
#include "engram/testing/temp_dir.h"
#include "store/store.h"
#include "store/turn_analysis.h"
#include "write/analysis.h"
#include "write/capture.h"

namespace engram::write {
namespace {

namespace fs = std::filesystem;
using ::engram::testing::IsOk;
using nlohmann::json;

std::string SourceDir() {
  if (const char* dir = std::getenv("ENGRAM_SOURCE_DIR"); dir != nullptr && *dir != '\0') {
    return dir;
  }
#ifdef ENGRAM_DEFAULT_SOURCE_DIR
  return ENGRAM_DEFAULT_SOURCE_DIR;
#else
  return ".";
#endif
}

struct GoldenTurn {
  const char* speaker;
  const char* time;
  const char* text;
};

// Two sessions; the second starts with the speaker's name misspelt.
constexpr GoldenTurn kTurns[] = {
    {"Caroline", "2024-05-10T12:00:00Z",
     "I moved to Berlin last March. Shipping my stuff cost $1,250!"},
    {"Melanie", "2024-05-10T12:01:00Z",
     "Wow, that's great! I was there yesterday with my friend Anna."},
    {"Caroline", "2024-05-10T12:02:00Z",
     "Did she like it? I actually live in Munich now, I moved in June."},
    {"Melanie", "2024-05-10T12:03:00Z",
     "She loved it. We met Dr. Phillip Jones there, he says hi."},
    {"Caroline", "2024-05-10T12:04:00Z",
     "I'm not sure I liked the weather there back then, it was terrible."},
    {"Melanie", "2024-05-10T12:05:00Z", "Ok thanks"},
    {"Melania", "2024-06-01T09:00:00Z",
     "Email me at mel@example.com about version 2.3.1 by next Friday at 3pm, Caroline."},
    {"Caroline", "2024-06-01T09:01:00Z",
     "Sure! My friend Filip works at Acme Inc now: 20% off, about €3.50 each. I don't like "
     "\"rush jobs\"."},
};

class AnalysisGoldenTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = store::OpenSqliteStore(dir_ + "/engram.db");
    ASSERT_THAT(store, IsOk());
    store_ = std::move(store).value();
  }
  void TearDown() override {
    store_.reset();
  }

  // Captures and analyses `turns` (one call per session batch) and returns the rendering.
  std::string Analyse(const WriteConfig& config) {
    auto resources = LoadAnalysisResources(config, core::ResolveDataDir(""));
    EXPECT_THAT(resources, IsOk()) << "run scripts/setup to install the lexicons";
    if (!resources.ok()) return "";
    const auto registry = EdgeRegistry::WithBuiltins();
    const Scope scope = *Scope::Parse("user:golden");
    const Timestamp now = *ParseTimestamp("2024-07-01T00:00:00Z");
    // Session 1: the first six turns; session 2: the rest.
    const std::size_t split = 6;
    for (const auto& [first, last] : {std::pair<std::size_t, std::size_t>{0, split},
                                      std::pair<std::size_t, std::size_t>{split, std::size(kTurns)}}) {
      std::vector<Turn> turns;
      std::vector<std::string> metadata;
      for (std::size_t index = first; index < last; ++index) {
        Turn turn;
        turn.speaker = kTurns[index].speaker;
        turn.text = kTurns[index].text;
        turn.session_id = first == 0 ? "session-1" : "session-2";
        turn.event_time = *ParseTimestamp(kTurns[index].time);
        turns.push_back(turn);
        metadata.push_back("{}");
      }
      auto txn = store_->BeginWrite();
      EXPECT_THAT(txn, IsOk());
      auto record = EnsureScope(**txn, *registry, scope, now);
      EXPECT_THAT(record, IsOk());
      auto captured = CaptureTurns(**txn, *registry, *record, turns, metadata, now);
      EXPECT_THAT(captured, IsOk());
      DeriveContext context;
      context.scope = &*record;
      context.now = now;
      EXPECT_THAT(DeriveAnalysis(**txn, *registry, captured->ids, config, resources->get(),
                                 context),
                  IsOk());
      EXPECT_THAT((*txn)->Commit(), IsOk());
    }
    return Render(scope);
  }

  std::string Describe(const std::string& node_id) {
    auto node = store_->GetNode(node_id);
    if (!node.ok()) return "?";
    const json content = json::parse(node->content_json);
    if (node->kind == NodeKind::kEntity) {
      return content["kind"].get<std::string>() + " " + content["name"].get<std::string>();
    }
    if (node->kind == NodeKind::kSignal) {
      return content["kind"].get<std::string>() + " \"" + content.value("surface", "") + "\" " +
             content.value("value", "") + " (turn " + std::to_string(node->sequence) + ")";
    }
    return std::string(NodeKindName(node->kind)) + " " + std::to_string(node->sequence);
  }

  std::string Render(const Scope& scope) {
    std::ostringstream out;
    auto record = store_->FindScope(scope.ToString());
    EXPECT_THAT(record, IsOk());
    store::NodeFilter filter;
    filter.kind = NodeKind::kTurn;
    auto turns = store_->ListNodes((*record)->scope_id, filter);
    EXPECT_THAT(turns, IsOk());
    for (const store::NodeRecord& turn : *turns) {
      out << "turn " << turn.sequence << " " << turn.speaker << " "
          << FormatTimestamp(*turn.event_time) << ": " << turn.text << "\n";
      // The analysis row: signals with their surface cut from the text and a date's interval
      // spelt out, as the node-per-signal store of schema 4 held them.
      const std::int64_t rows[] = {turn.row};
      auto analyses = store_->GetTurnAnalyses(rows);
      EXPECT_THAT(analyses, IsOk());
      json row = json::object();
      if (!analyses->empty()) {
        EXPECT_EQ(analyses->front().format, store::kTurnAnalysisCompactFormat);
        const StatusOr<std::string> stored = store::TurnAnalysisJson(analyses->front(), turn.text);
        EXPECT_THAT(stored, IsOk());
        row = json::parse(stored.value_or("{}"));
        for (json details : row["signals"]) {
          const std::string kind = details["kind"].get<std::string>();
          details.erase("kind");
          const std::size_t begin = details["begin"].get<std::size_t>();
          const std::size_t end = details["end"].get<std::size_t>();
          const std::string value = details.value("value", "");
          if ((kind == "date" || kind == "time") && value.find('/') != std::string::npos) {
            details["from"] = value.substr(0, value.find('/'));
            details["to"] = value.substr(value.find('/') + 1);
            details["granularity"] = details["topic"];
          }
          out << "  signal " << kind << " \"" << turn.text.substr(begin, end - begin) << "\" "
              << details.dump() << "\n";
        }
      }
      auto derived = store_->EdgesOf(turn.id, store::EdgeDirection::kIncoming, "derived_from");
      for (const store::EdgeRecord& edge : *derived) {
        auto node = store_->GetNode(edge.src);
        const json content = json::parse(node->content_json);
        if (node->kind == NodeKind::kEntity) {
          out << "  new entity " << content["kind"].get<std::string>() << " "
              << content["name"].get<std::string>() << " (key " << content["key"].get<std::string>()
              << ")\n";
        }
      }
      if (row.contains("content")) out << "  content " << row["content"].dump() << "\n";
      for (const std::string type : {"at_time", "mentions", "refers_to"}) {
        auto edges = store_->EdgesOf(turn.id, store::EdgeDirection::kOutgoing, type);
        for (const store::EdgeRecord& edge : *edges) {
          out << "  " << type << " -> " << Describe(edge.dst) << " " << edge.attrs_json << "\n";
        }
      }
      // Name signals resolved to entities.
      for (const store::EdgeRecord& edge : *derived) {
        auto refers = store_->EdgesOf(edge.src, store::EdgeDirection::kOutgoing, "refers_to");
        for (const store::EdgeRecord& link : *refers) {
          out << "  name " << Describe(edge.src) << " -> " << Describe(link.dst) << " "
              << link.attrs_json << "\n";
        }
      }
    }
    auto proposals = store_->EdgesInScope((*record)->scope_id, "same_as");
    for (const store::EdgeRecord& edge : *proposals) {
      out << "same_as " << Describe(edge.src) << " -> " << Describe(edge.dst) << " " << edge.status
          << " " << edge.attrs_json << "\n";
    }
    return out.str();
  }

  engram::testing::TempDir temp_dir_{"engram_analysis_golden"};
  std::string dir_ = temp_dir_.path();
  std::unique_ptr<store::Store> store_;
};

TEST_F(AnalysisGoldenTest, MatchesGoldenFile) {
  WriteConfig config;
  config.facts = false;
  const std::string rendered = Analyse(config);
  testing::CheckGoldenFile(SourceDir() + "/tests/golden/analysis_golden.txt", rendered);
}

// The examples, asserted directly.
TEST_F(AnalysisGoldenTest, YesterdayAndMoneyAndProposal) {
  WriteConfig config;
  config.facts = false;
  const std::string rendered = Analyse(config);
  EXPECT_THAT(rendered, ::testing::HasSubstr(
                            "signal date \"yesterday\" {\"begin\":31,\"end\":40,\"from\":"
                            "\"2024-05-09\",\"granularity\":\"day\",\"to\":\"2024-05-10\""));
  EXPECT_THAT(rendered, ::testing::HasSubstr("signal money \"$1,250\" {\"begin\":53,\"end\":59,"
                                             "\"value\":\"1250 USD\"}"));
  EXPECT_THAT(rendered, ::testing::HasSubstr("at_time -> date \"yesterday\" 2024-05-09/2024-05-10"));
  EXPECT_THAT(rendered,
              ::testing::HasSubstr("same_as person Melania -> person Melanie pending"));
}

TEST_F(AnalysisGoldenTest, SignalsOffStoresNoSignalNodes) {
  WriteConfig config;
  config.facts = false;
  config.signals = false;
  const std::string rendered = Analyse(config);
  EXPECT_THAT(rendered, ::testing::Not(::testing::HasSubstr("  signal ")));
  EXPECT_THAT(rendered, ::testing::Not(::testing::HasSubstr("  content ")));
  EXPECT_THAT(rendered, ::testing::HasSubstr("mentions -> place Berlin"));
}

}  // namespace
}  // namespace engram::write
