// The golden retrieval case format (see golden_case.h).
#include "golden_case.h"

#include <sstream>

namespace engram::testing {
namespace {

std::string_view Trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) {
    text.remove_suffix(1);
  }
  return text;
}

// The next whitespace-separated word of `text`, removed from it.
std::string_view NextWord(std::string_view& text) {
  text = Trim(text);
  const std::size_t end = text.find_first_of(" \t");
  const std::string_view word = text.substr(0, end);
  text = end == std::string_view::npos ? std::string_view() : text.substr(end);
  return word;
}

Status Bad(std::size_t line, const std::string& what) {
  return Status::InvalidArgument("line " + std::to_string(line) + ": " + what);
}

StatusOr<Timestamp> TimeAt(std::size_t line, std::string_view text) {
  StatusOr<Timestamp> time = ParseTimestamp(text);
  if (!time.ok()) return Bad(line, "\"" + std::string(text) + "\" is not an RFC 3339 time");
  return *time;
}

StatusOr<std::size_t> Count(std::size_t line, std::string_view text) {
  std::size_t value = 0;
  if (text.empty()) return Bad(line, "empty number");
  for (const char c : text) {
    if (c < '0' || c > '9' || value > 1'000'000)
      return Bad(line, "bad number " + std::string(text));
    value = value * 10 + static_cast<std::size_t>(c - '0');
  }
  return value;
}

StatusOr<GoldenTurn> ParseTurn(std::size_t line, std::string_view text) {
  GoldenTurn golden;
  golden.label = std::string(NextWord(text));
  golden.turn.session_id = std::string(NextWord(text));
  const std::string_view time = NextWord(text);
  if (golden.label.empty() || golden.turn.session_id.empty() || time.empty()) {
    return Bad(line, "a turn is `label session time speaker: text`");
  }
  ASSIGN_OR_RETURN(golden.turn.event_time, TimeAt(line, time));
  text = Trim(text);
  const std::size_t colon = text.find(": ");
  if (colon == std::string_view::npos) return Bad(line, "a turn needs `speaker: text`");
  std::string_view speaker = text.substr(0, colon);
  golden.turn.text = std::string(Trim(text.substr(colon + 2)));
  if (speaker.starts_with("assistant/")) {
    golden.turn.role = Role::kAssistant;
    speaker.remove_prefix(10);
  }
  golden.turn.speaker = speaker == "-" ? "" : std::string(speaker);
  return golden;
}

StatusOr<GoldenQuery> ParseQuery(std::size_t line, std::string_view text) {
  GoldenQuery query;
  query.line = line;
  const std::size_t colon = text.find(": ");
  if (colon == std::string_view::npos) return Bad(line, "a query is `query [options]: text`");
  query.text = std::string(Trim(text.substr(colon + 2)));
  if (query.text.empty()) return Bad(line, "the query has no text");
  std::string_view options = text.substr(0, colon);
  for (std::string_view option = NextWord(options); !option.empty(); option = NextWord(options)) {
    const std::size_t equals = option.find('=');
    const std::string_view name = option.substr(0, equals);
    const std::string_view value =
        equals == std::string_view::npos ? std::string_view() : option.substr(equals + 1);
    if (name == "at") {
      ASSIGN_OR_RETURN(query.at, TimeAt(line, value));
    } else if (name == "valid_at") {
      ASSIGN_OR_RETURN(query.valid_at, TimeAt(line, value));
    } else if (name == "k") {
      ASSIGN_OR_RETURN(query.k, Count(line, value));
    } else if (name == "budget") {
      ASSIGN_OR_RETURN(query.budget, Count(line, value));
    } else {
      return Bad(line, "unknown query option \"" + std::string(name) +
                           "\" (known: at, valid_at, k, budget)");
    }
  }
  return query;
}

std::string FormatTime(const std::optional<Timestamp>& time) {
  return time.has_value() ? FormatTimestamp(*time) : "";
}

}  // namespace

StatusOr<GoldenCase> ParseGoldenCase(std::string_view text) {
  GoldenCase golden;
  enum class Block { kNone, kConfig, kTurns, kQuery } block = Block::kNone;
  std::istringstream in{std::string(text)};
  std::string raw;
  std::size_t line = 0;
  bool started = false;
  while (std::getline(in, raw)) {
    ++line;
    const std::string_view trimmed = Trim(raw);
    if (trimmed.empty()) continue;
    if (trimmed.front() == '#') {
      if (started) return Bad(line, "comments go at the top of the case");
      golden.comments.emplace_back(trimmed);
      continue;
    }
    started = true;
    const bool indented = raw.front() == ' ' || raw.front() == '\t';
    if (indented) {
      switch (block) {
        case Block::kConfig:
          golden.config.emplace_back(trimmed);
          break;
        case Block::kTurns: {
          ASSIGN_OR_RETURN(GoldenTurn turn, ParseTurn(line, trimmed));
          for (const GoldenTurn& other : golden.turns) {
            if (other.label == turn.label) return Bad(line, "label " + turn.label + " twice");
          }
          golden.turns.push_back(std::move(turn));
          break;
        }
        case Block::kQuery:
          golden.queries.back().expected.emplace_back(trimmed);
          break;
        case Block::kNone:
          return Bad(line, "an indented line outside config:, turns: or a query");
      }
      continue;
    }
    if (trimmed == "config:") {
      block = Block::kConfig;
    } else if (trimmed == "turns:") {
      block = Block::kTurns;
    } else if (trimmed.starts_with("scope:")) {
      golden.scope = std::string(Trim(trimmed.substr(6)));
      block = Block::kNone;
    } else if (trimmed.starts_with("query")) {
      ASSIGN_OR_RETURN(GoldenQuery query, ParseQuery(line, trimmed.substr(5)));
      golden.queries.push_back(std::move(query));
      block = Block::kQuery;
    } else {
      return Bad(line, "expected config:, scope:, turns: or query, got \"" +
                           std::string(trimmed.substr(0, 40)) + "\"");
    }
  }
  if (golden.scope.empty()) return Status::InvalidArgument("the case has no scope: line");
  if (golden.turns.empty()) return Status::InvalidArgument("the case has no turns");
  if (golden.queries.empty()) return Status::InvalidArgument("the case has no query");
  return golden;
}

std::string FormatGoldenCase(const GoldenCase& golden_case,
                             const std::vector<std::vector<std::string>>& actual) {
  std::string out;
  for (const std::string& comment : golden_case.comments) out += comment + "\n";
  if (!golden_case.config.empty()) {
    out += "config:\n";
    for (const std::string& line : golden_case.config) out += "  " + line + "\n";
  }
  out += "scope: " + golden_case.scope + "\n";
  out += "turns:\n";
  for (const GoldenTurn& golden : golden_case.turns) {
    const Turn& turn = golden.turn;
    std::string speaker = turn.speaker.empty() ? "-" : turn.speaker;
    if (turn.role == Role::kAssistant) speaker = "assistant/" + speaker;
    out += "  " + golden.label + " " + turn.session_id + " " + FormatTime(turn.event_time) + " " +
           speaker + ": " + turn.text + "\n";
  }
  for (std::size_t i = 0; i < golden_case.queries.size(); ++i) {
    const GoldenQuery& query = golden_case.queries[i];
    out += "query";
    if (query.at.has_value()) out += " at=" + FormatTime(query.at);
    if (query.valid_at.has_value()) out += " valid_at=" + FormatTime(query.valid_at);
    if (query.k != 0) out += " k=" + std::to_string(query.k);
    if (query.budget != 0) out += " budget=" + std::to_string(query.budget);
    out += ": " + query.text + "\n";
    for (const std::string& line : i < actual.size() ? actual[i] : query.expected) {
      out += "  " + line + "\n";
    }
  }
  return out;
}

}  // namespace engram::testing
