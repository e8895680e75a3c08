// engram_time_expressions: engram's time normaliser (text/temporal.h) as a filter, for the
// differential test against chrono-node (tests/temporal/node/). Reads JSON lines
// {"id", "text", "reference"} on stdin and writes one line per input:
// {"id", "mentions": [{"surface", "begin", "end", "from", "to", "granularity"}]}, where begin /
// end are byte offsets, from / to the half-open interval in UTC (ISO-8601). A malformed line
// is an error on stderr and exit status 1.
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "engram/types.h"
#include "text/temporal.h"

int main() {
  std::string line;
  std::size_t number = 0;
  while (std::getline(std::cin, line)) {
    ++number;
    if (line.empty()) continue;
    nlohmann::json input;
    try {
      input = nlohmann::json::parse(line);
    } catch (const nlohmann::json::exception& error) {
      std::cerr << "engram_time_expressions: line " << number << ": " << error.what() << "\n";
      return 1;
    }
    if (!input.is_object() || !input.contains("text") || !input["text"].is_string() ||
        !input.contains("reference") || !input["reference"].is_string()) {
      std::cerr << "engram_time_expressions: line " << number
                << ": needs string fields \"text\" and \"reference\"\n";
      return 1;
    }
    const engram::StatusOr<engram::Timestamp> reference =
        engram::ParseTimestamp(input["reference"].get<std::string>());
    if (!reference.ok()) {
      std::cerr << "engram_time_expressions: line " << number << ": "
                << reference.status().message() << "\n";
      return 1;
    }
    nlohmann::json mentions = nlohmann::json::array();
    for (const engram::text::TimeMention& mention :
         engram::text::FindTimeExpressions(input["text"].get<std::string>(), *reference)) {
      mentions.push_back({{"surface", mention.surface},
                          {"begin", mention.begin},
                          {"end", mention.end},
                          {"from", engram::FormatTimestamp(mention.from)},
                          {"to", engram::FormatTimestamp(mention.to)},
                          {"granularity", engram::text::GranularityName(mention.granularity)}});
    }
    std::cout << nlohmann::json{{"id", input.value("id", "")}, {"mentions", mentions}}.dump()
              << "\n";
  }
  return 0;
}
