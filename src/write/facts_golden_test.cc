// Golden test of fact extraction and validation: tests/golden/facts_golden.jsonl holds one case per
// line, {"text", optional "speaker" (default "Mia"), optional "reference" (the turn's event time,
// default 2024-05-10T12:00:00Z), "expected": [{"subject", "predicate", "object", "polarity",
// optional "kind", "valid_from", "valid_to", "uncertain"}]}. The accepted facts must equal the
// expected list exactly, in order; negatives (questions, hypotheticals, hearsay, ...) expect [].
// On a mismatch the test prints the actual JSON line, so an intended change can be reviewed and
// pasted into the file. Each text is analysed as the write path does it (write/turn_text.h: the
// signals detected once, with the installed gazetteer), so the lexicons must be installed.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "core/paths.h"
#include "write/analysis.h"
#include "write/facts.h"
#include "write/turn_text.h"

namespace engram::write {
namespace {

std::string SourceDir() {
  if (const char* dir = std::getenv("ENGRAM_SOURCE_DIR"); dir != nullptr && *dir != '\0') {
    return dir;
  }
  return ENGRAM_DEFAULT_SOURCE_DIR;
}

nlohmann::json Optional(const std::optional<Timestamp>& time) {
  if (!time.has_value()) return nullptr;
  return FormatTimestamp(*time);
}

nlohmann::json ToJson(const FactToStore& fact, const nlohmann::json& fields) {
  const FactCandidate& c = fact.candidate;
  nlohmann::json out = {{"subject", c.subject},
                        {"predicate", c.predicate},
                        {"object", c.object},
                        {"polarity", c.negated ? "-" : "+"}};
  if (fields.contains("kind")) out["kind"] = FactKindName(c.kind);
  if (fields.contains("valid_from")) out["valid_from"] = Optional(fact.valid_from);
  if (fields.contains("valid_to")) out["valid_to"] = Optional(fact.valid_to);
  if (fields.contains("uncertain")) out["uncertain"] = c.uncertain;
  return out;
}

TEST(FactsGoldenTest, MatchesGoldenFile) {
  auto resources = LoadAnalysisResources(WriteConfig{}, core::ResolveDataDir(""));
  ASSERT_TRUE(resources.ok()) << resources.status().message() << " (run scripts/setup)";
  const text::Gazetteer* gazetteer = &(*resources)->lexicons->gazetteer();
  const std::string path = SourceDir() + "/tests/golden/facts_golden.jsonl";
  std::ifstream in(path);
  ASSERT_TRUE(in.is_open()) << "cannot open " << path;
  std::string line;
  std::size_t cases = 0;
  std::size_t negatives = 0;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    ++cases;
    const nlohmann::json golden = nlohmann::json::parse(line);
    const std::string text = golden.at("text").get<std::string>();
    const std::string speaker = golden.value("speaker", std::string("Mia"));
    const Timestamp reference =
        *ParseTimestamp(golden.value("reference", std::string("2024-05-10T12:00:00Z")));
    const nlohmann::json& expected = golden.at("expected");
    if (expected.empty()) ++negatives;
    const TurnText analysed = AnalyseTurnText(text, reference, gazetteer);
    const FactSource source = AnalyzeFactSource(text, speaker, Role::kUser, reference, &analysed);
    nlohmann::json actual = nlohmann::json::array();
    for (const FactCandidate& candidate : ExtractRuleFacts(source)) {
      if (!ValidateFact(candidate, source).accepted) continue;
      const FactToStore fact = PrepareFact(candidate, source, WriteConfig{});
      const std::size_t index = actual.size();
      actual.push_back(
          ToJson(fact, index < expected.size() ? expected[index] : nlohmann::json::object()));
    }
    nlohmann::json actual_line = golden;
    actual_line["expected"] = actual;
    EXPECT_EQ(actual, expected) << "case: " << text << "\nactual line: " << actual_line.dump();
  }
  EXPECT_GE(cases, 40u);
  EXPECT_GE(negatives, 8u);
}

}  // namespace
}  // namespace engram::write
