// Golden test for the signal detectors: tests/golden/signals_golden.jsonl holds one case per
// line, {"text", "reference", "expected": [{"kind", "surface", "value", optional "topic",
// "polarity", "uncertain", "previous_value"}]}. The detected list must equal the expected list
// exactly (same signals, same order). On a mismatch the test prints a line-by-line diff and the
// actual JSON line, so an intended change can be reviewed and pasted into the file.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "text/signals.h"

namespace engram::text {
namespace {

std::string SourceDir() {
  if (const char* dir = std::getenv("ENGRAM_SOURCE_DIR"); dir != nullptr && *dir != '\0') {
    return dir;
  }
  return ENGRAM_DEFAULT_SOURCE_DIR;
}

// One signal as a JSON object holding the fields the expectation names.
nlohmann::json ToJson(const Signal& signal, const nlohmann::json& fields) {
  nlohmann::json out = {
      {"kind", SignalKindName(signal.kind)}, {"surface", signal.surface}, {"value", signal.value}};
  if (fields.contains("topic")) out["topic"] = signal.topic;
  if (fields.contains("polarity")) out["polarity"] = PolarityName(signal.polarity);
  if (fields.contains("uncertain")) out["uncertain"] = signal.uncertain;
  if (fields.contains("previous_value")) out["previous_value"] = signal.previous_value;
  return out;
}

std::string Line(const nlohmann::json& signal) {
  std::string line = signal["kind"].get<std::string>() + " \"" +
                     signal["surface"].get<std::string>() + "\" -> \"" +
                     signal["value"].get<std::string>() + "\"";
  for (const char* field : {"topic", "polarity", "previous_value"}) {
    if (signal.contains(field)) line += std::string(" ") + field + "=" + signal[field].dump();
  }
  if (signal.contains("uncertain")) line += " uncertain=" + signal["uncertain"].dump();
  return line;
}

TEST(SignalsGoldenTest, MatchesGoldenFile) {
  const std::string path = SourceDir() + "/tests/golden/signals_golden.jsonl";
  std::ifstream stream(path);
  ASSERT_TRUE(stream) << "cannot open " << path;
  std::string line;
  int line_number = 0;
  int cases = 0;
  int failures = 0;
  while (std::getline(stream, line)) {
    ++line_number;
    if (line.empty() || line[0] == '#') continue;
    const nlohmann::json golden = nlohmann::json::parse(line, nullptr, false);
    ASSERT_FALSE(golden.is_discarded()) << path << ":" << line_number << ": invalid JSON";
    ASSERT_TRUE(golden.contains("text") && golden.contains("reference") &&
                golden.contains("expected"))
        << path << ":" << line_number << ": needs text, reference and expected";
    ++cases;
    const std::string text = golden["text"].get<std::string>();
    StatusOr<Timestamp> reference = ParseTimestamp(golden["reference"].get<std::string>());
    ASSERT_TRUE(reference.ok()) << path << ":" << line_number << ": bad reference";
    const std::vector<Signal> actual = DetectSignals(text, *reference);

    const nlohmann::json& expected = golden["expected"];
    // Compare with the fields each expected entry names (by position; extra actual signals are
    // compared on kind / surface / value only).
    std::vector<std::string> expected_lines;
    std::vector<std::string> actual_lines;
    nlohmann::json actual_json = nlohmann::json::array();
    for (std::size_t k = 0; k < actual.size(); ++k) {
      // The optional fields to show: those of the expected entry with the same kind and
      // surface (else of the entry at the same position), so that a shifted list still reads.
      nlohmann::json fields = k < expected.size() ? expected[k] : nlohmann::json::object();
      for (const nlohmann::json& item : expected) {
        if (item.value("kind", "") == SignalKindName(actual[k].kind) &&
            item.value("surface", "") == actual[k].surface) {
          fields = item;
          break;
        }
      }
      actual_lines.push_back(Line(ToJson(actual[k], fields)));
      nlohmann::json full = ToJson(actual[k], nlohmann::json::object());
      if (IsMemoryAct(actual[k].kind)) {
        if (!actual[k].topic.empty()) full["topic"] = actual[k].topic;
        if (actual[k].polarity != Polarity::kNone) {
          full["polarity"] = PolarityName(actual[k].polarity);
        }
        if (!actual[k].previous_value.empty()) full["previous_value"] = actual[k].previous_value;
      }
      if (actual[k].uncertain) full["uncertain"] = true;
      actual_json.push_back(full);
    }
    for (const nlohmann::json& item : expected) expected_lines.push_back(Line(item));
    if (expected_lines == actual_lines) continue;
    ++failures;
    std::ostringstream diff;
    diff << path << ":" << line_number << ": " << text << "\n";
    std::size_t common = 0;
    while (common < expected_lines.size() && common < actual_lines.size() &&
           expected_lines[common] == actual_lines[common]) {
      diff << "    " << expected_lines[common] << "\n";
      ++common;
    }
    for (std::size_t k = common; k < expected_lines.size(); ++k) {
      diff << "  - " << expected_lines[k] << "\n";
    }
    for (std::size_t k = common; k < actual_lines.size(); ++k) {
      diff << "  + " << actual_lines[k] << "\n";
    }
    nlohmann::json updated = golden;
    updated["expected"] = actual_json;
    diff << "  actual line: " << updated.dump(-1, ' ', false) << "\n";
    ADD_FAILURE() << diff.str();
  }
  EXPECT_GE(cases, 40) << "the golden file should hold at least 40 cases";
  RecordProperty("golden_cases", cases);
  EXPECT_EQ(failures, 0);
}

}  // namespace
}  // namespace engram::text
