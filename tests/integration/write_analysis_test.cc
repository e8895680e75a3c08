// The analysis stage through Engine::Remember: signal nodes and resolved times are listed with
// the turn's sequence and provenance, entity proposals reach ListProposals, a batch that fails
// validation derives nothing, the same turns give the same store bytes, and a data directory
// without lexicons (or with broken ones) is a clear error at open.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string_view>

#include <nlohmann/json.hpp>

#include "engram/engine.h"
#include "engram/testing/status_matchers.h"
#include "embed/hashing_embedder.h"
#include "lexicon/lexicon.h"
#include "store/store.h"
#include "test_util.h"

namespace engram {
namespace {

using ::engram::testing::IsOk;
using ::engram::testing::StatusIs;
using ::testing::HasSubstr;
using testing::MakeTurn;
using testing::OpenOrDie;
using testing::S;
using testing::TempDir;
using testing::TestOptions;

std::vector<Turn> Conversation() {
  return {MakeTurn("Caroline", "I moved to Berlin last March. Shipping cost $1,250!", "s1",
                   "2024-05-10T12:00:00Z"),
          MakeTurn("Melanie", "I was there yesterday with my friend Anna.", "s1",
                   "2024-05-10T12:01:00Z"),
          MakeTurn("Melania", "Ok thanks", "s1", "2024-05-10T12:02:00Z")};
}

EngineOptions NoFacts(const TempDir& dir, const std::string& name = "engram.db") {
  EngineOptions options = TestOptions(dir, name);
  Config config;
  config.write.facts = false;
  config.embedder.kind = "none";
  options.config = config;
  return options;
}

// The signal memory of `kind` with `surface` (content is in its metadata), or nullptr.
const Memory* FindSignal(const std::vector<Memory>& signals, const std::string& kind,
                         const std::string& surface) {
  for (const Memory& memory : signals) {
    const nlohmann::json content = nlohmann::json::parse(memory.metadata_json);
    if (content.value("kind", "") == kind && content.value("surface", "") == surface) {
      return &memory;
    }
  }
  return nullptr;
}

TEST(WriteAnalysisTest, SignalsAreOneRowPerTurnAndTimesAreAnchors) {
  TempDir dir;
  auto engine = OpenOrDie(NoFacts(dir));
  auto remembered = engine->Remember(S("user:alice"), Conversation());
  ASSERT_THAT(remembered, IsOk());

  // The first turn's analysis row holds its money signal, its span into the text.
  auto first = engine->Get(remembered->ids[0]);
  ASSERT_THAT(first, IsOk());
  auto analysis = engine->Analysis(remembered->ids[0]);
  ASSERT_THAT(analysis, IsOk());
  const nlohmann::json row = nlohmann::json::parse(*analysis);
  const nlohmann::json* money = nullptr;
  for (const nlohmann::json& signal : row["signals"]) {
    if (signal["kind"] == "money") money = &signal;
  }
  ASSERT_NE(money, nullptr);
  EXPECT_EQ((*money)["value"], "1250 USD");
  EXPECT_EQ(first->text.substr((*money)["begin"].get<std::size_t>(),
                               (*money)["end"].get<std::size_t>() -
                                   (*money)["begin"].get<std::size_t>()),
            "$1,250");
  EXPECT_FALSE(money->contains("surface"));  // the text is stored once, in the turn
  // Every turn has its DMF content signals in its row.
  for (const std::string& id : remembered->ids) {
    auto each = engine->Analysis(id);
    ASSERT_THAT(each, IsOk());
    EXPECT_TRUE(nlohmann::json::parse(*each)["content"].contains("information_density")) << id;
  }

  // Only resolved dates and times are nodes (the time anchors at_time edges point at).
  ListOptions options;
  options.kind = NodeKind::kSignal;
  options.limit = 1000;
  auto signals = engine->List(S("user:alice"), options);
  ASSERT_THAT(signals, IsOk());
  EXPECT_EQ(FindSignal(*signals, "money", "$1,250"), nullptr);
  const Memory* yesterday = FindSignal(*signals, "date", "yesterday");
  ASSERT_NE(yesterday, nullptr);
  const nlohmann::json interval = nlohmann::json::parse(yesterday->metadata_json);
  EXPECT_EQ(interval["from"], "2024-05-09");
  EXPECT_EQ(interval["to"], "2024-05-10");
  EXPECT_EQ(interval["granularity"], "day");
  EXPECT_EQ(yesterday->sequence, remembered->first_sequence + 1);
  EXPECT_THAT(yesterday->provenance, ::testing::ElementsAre(remembered->ids[1]));
  for (const Memory& signal : *signals) {
    const std::string kind = nlohmann::json::parse(signal.metadata_json).value("kind", "");
    EXPECT_TRUE(kind == "date" || kind == "time") << kind;
  }

  // Analysis is for turns.
  auto entity_list = engine->List(S("user:alice"), {.limit = 1, .kind = NodeKind::kEntity});
  ASSERT_THAT(entity_list, IsOk());
  ASSERT_FALSE(entity_list->empty());
  EXPECT_THAT(engine->Analysis(entity_list->front().id),
              ::engram::testing::StatusIs(StatusCode::kInvalidArgument));
  EXPECT_THAT(engine->Analysis("0123456789abcdef0123456789abcdef"),
              ::engram::testing::StatusIs(StatusCode::kNotFound));

  options.kind = NodeKind::kEntity;
  auto entities = engine->List(S("user:alice"), options);
  ASSERT_THAT(entities, IsOk());
  std::vector<std::string> names;
  for (const Memory& entity : *entities) names.push_back(entity.text);
  EXPECT_THAT(names, ::testing::UnorderedElementsAre("Caroline", "Berlin", "Melanie", "Anna",
                                                      "Melania"));
}

TEST(WriteAnalysisTest, CloseNamesBecomePendingProposals) {
  TempDir dir;
  auto engine = OpenOrDie(NoFacts(dir));
  ASSERT_THAT(engine->Remember(S("user:alice"), Conversation()), IsOk());
  auto proposals = engine->ListProposals(S("user:alice"));
  ASSERT_THAT(proposals, IsOk());
  ASSERT_EQ(proposals->size(), 1u);
  EXPECT_EQ((*proposals)[0].status, "pending");
  EXPECT_THAT((*proposals)[0].reason, HasSubstr("\"Melania\" and \"Melanie\""));
  EXPECT_THAT(engine->AcceptProposal((*proposals)[0].id), IsOk());
}

// Two speakers whose names no string tier relates ("smith" / "robert smith": other first
// letters, other sounds, no alias) are proposed as the same person by the embedding tier when the cosine of
// their name embeddings reaches [write] resolve_embed_propose, and not otherwise; never merged.
TEST(WriteAnalysisTest, EmbeddingTierProposesNamesTheStringTiersMiss) {
  auto hashing = embed::HashingEmbedder::Create();
  ASSERT_THAT(hashing, IsOk());
  const float cosine = embed::Cosine((*hashing)->EmbedOne("smith"),
                                     (*hashing)->EmbedOne("robert smith"));
  ASSERT_GT(cosine, 0.2f);  // they share "smith"
  for (const double delta : {-0.001, 0.001}) {
    SCOPED_TRACE(delta);
    TempDir dir;
    EngineOptions options = NoFacts(dir);
    options.config->embedder.kind = "hashing";
    options.config->write.resolve_embed_propose = cosine + delta;
    auto engine = OpenOrDie(options);
    ASSERT_THAT(engine->Remember(S("user:alice"),
                                 std::vector<Turn>{MakeTurn("Robert Smith", "Hello there.", "s1",
                                                            "2024-05-10T12:00:00Z"),
                                                   MakeTurn("Smith", "Good morning.", "s1",
                                                            "2024-05-10T12:01:00Z")}),
                IsOk());
    auto proposals = engine->ListProposals(S("user:alice"));
    ASSERT_THAT(proposals, IsOk());
    if (delta > 0) {
      EXPECT_TRUE(proposals->empty());
      continue;
    }
    ASSERT_EQ(proposals->size(), 1u);
    EXPECT_EQ((*proposals)[0].status, "pending");
    EXPECT_THAT((*proposals)[0].reason,
                HasSubstr("embedding match of \"Smith\" and \"Robert Smith\""));
    ListOptions list;
    list.kind = NodeKind::kEntity;
    auto entities = engine->List(S("user:alice"), list);
    ASSERT_THAT(entities, IsOk());
    EXPECT_EQ(entities->size(), 2u);  // proposed, not merged
  }
}

TEST(WriteAnalysisTest, EntitiesResolveAcrossBatches) {
  TempDir dir;
  auto engine = OpenOrDie(NoFacts(dir));
  ASSERT_THAT(engine->Remember(S("user:alice"), Conversation()), IsOk());
  ASSERT_THAT(engine->Remember(S("user:alice"),
                               std::vector<Turn>{MakeTurn("Caroline", "Anna loved Berlin.", "s2",
                                         "2024-05-11T09:00:00Z")}),
              IsOk());
  ListOptions options;
  options.kind = NodeKind::kEntity;
  auto entities = engine->List(S("user:alice"), options);
  ASSERT_THAT(entities, IsOk());
  EXPECT_EQ(entities->size(), 5u);  // no second Anna, Berlin or Caroline
}

TEST(WriteAnalysisTest, FailedBatchDerivesNothing) {
  TempDir dir;
  auto engine = OpenOrDie(NoFacts(dir));
  std::vector<Turn> turns = Conversation();
  turns.push_back(MakeTurn("Caroline", "   ", "s1", "2024-05-10T12:03:00Z"));
  EXPECT_THAT(engine->Remember(S("user:alice"), turns), StatusIs(StatusCode::kInvalidArgument));
  ListOptions options;
  options.kind = std::nullopt;
  auto everything = engine->List(S("user:alice"), options);
  // The scope was never created, or holds nothing.
  if (everything.ok()) {
    EXPECT_TRUE(everything->empty());
  }
}

TEST(WriteAnalysisTest, SameTurnsGiveTheSameStore) {
  std::string dumps[2];
  for (std::string& dump : dumps) {
    TempDir dir;
    {
      auto engine = OpenOrDie(NoFacts(dir));
      ASSERT_THAT(engine->Remember(S("user:alice"), Conversation()), IsOk());
      ASSERT_THAT(engine->Remember(S("user:alice"),
                                   std::vector<Turn>{MakeTurn("Caroline", "She said it was great there.", "s1",
                                             "2024-05-10T12:05:00Z")}),
                  IsOk());
    }
    auto store = store::OpenSqliteStore(dir.File("engram.db"));
    ASSERT_THAT(store, IsOk());
    auto canonical = (*store)->DumpCanonical();
    ASSERT_THAT(canonical, IsOk());
    dump = *canonical;
  }
  // The money signal's value "1250 USD" (not the text's "$1,250", so kept as a string) in the
  // turn's compact analysis row, which the dump writes as hex bytes.
  EXPECT_THAT(dumps[0], HasSubstr("3132353020555344"));
  EXPECT_EQ(dumps[0], dumps[1]);
}

TEST(WriteAnalysisTest, MissingLexiconsAreAClearErrorAtOpen) {
  TempDir dir;
  TempDir empty_data;
  EngineOptions options = NoFacts(dir);
  options.data_dir = empty_data.path();
  auto engine = Engine::Open(options);
  EXPECT_THAT(engine, StatusIs(StatusCode::kFailedPrecondition));
  EXPECT_THAT(engine.status().message(), HasSubstr("lexicons/"));
  EXPECT_THAT(engine.status().message(), HasSubstr("scripts/setup"));
  // With every derivation stage off, no lexicon is needed.
  Config config = *options.config;
  config.write.signals = false;
  config.write.entities = false;
  options.config = config;
  EXPECT_THAT(Engine::Open(options), IsOk());
}

TEST(WriteAnalysisTest, UnreadableLexiconsFailOpenEvenWithAnalysisOff) {
  // Installed but broken lexicons (every file present, all empty) are not "not installed": the
  // read path's synonyms would silently go missing, so Open says what is wrong.
  TempDir dir;
  TempDir broken_data;
  for (std::string_view file : lexicon::RequiredLexiconFiles()) {
    const std::filesystem::path path =
        std::filesystem::path(broken_data.path()) / "lexicons" / file;
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path).flush();
  }
  EngineOptions options = NoFacts(dir);
  options.data_dir = broken_data.path();
  Config config = *options.config;
  config.write.signals = false;
  config.write.entities = false;
  options.config = config;
  auto engine = Engine::Open(options);
  EXPECT_THAT(engine, StatusIs(StatusCode::kCorruption));
  EXPECT_THAT(engine.status().message(), HasSubstr("has no entries"));
}

}  // namespace
}  // namespace engram
