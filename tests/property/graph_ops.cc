// Operation generator and text form (see graph_ops.h).
#include "graph_ops.h"

#include <array>
#include <charconv>
#include <utility>

#include "engram/types.h"

namespace engram::property {
namespace {

constexpr std::int64_t kStartSeconds = 1704067200;  // 2024-01-01T00:00:00Z
constexpr std::int64_t kDay = 86400;

const std::vector<std::string> kCities = {"Porto", "Lisbon", "Berlin", "Munich",
                                          "Paris", "Rome",   "Tokyo",  "Oslo"};
const std::vector<std::string> kCompanies = {"Acme Corp", "Globex", "Initech", "Umbrella"};
const std::vector<std::string> kFoods = {"sushi", "olives", "pizza", "tea", "coffee", "capers"};
const std::vector<std::string> kNames = {"Maya", "Tom", "Sara", "Leo"};
const std::vector<std::string> kColors = {"green", "blue", "red"};
const std::vector<std::string> kWhens = {"",           " last March", " in June",
                                         " last year", " last month", " yesterday"};
const std::vector<std::string> kFillers = {
    "Do you know a good bakery around here?", "Thanks, that sounds great!",
    "Can you book me a table for two?", "Would you like to go hiking?"};

std::string SpeakerOf(const std::string& scope) {
  return scope.starts_with("user:b") ? "Ben" : "Ana";
}

std::string FormatSeconds(std::int64_t seconds) {
  // Civil date from days since the epoch (Howard Hinnant's algorithm).
  std::int64_t days = seconds / kDay;
  const std::int64_t rest = seconds % kDay;
  days += 719468;
  const std::int64_t era = days / 146097;
  const std::int64_t doe = days - era * 146097;
  const std::int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  std::int64_t year = yoe + era * 400;
  const std::int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const std::int64_t mp = (5 * doy + 2) / 153;
  const std::int64_t day = doy - (153 * mp + 2) / 5 + 1;
  const std::int64_t month = mp < 10 ? mp + 3 : mp - 9;
  if (month <= 2) ++year;
  char buffer[80];
  std::snprintf(buffer, sizeof(buffer), "%04lld-%02lld-%02lldT%02lld:%02lld:%02lldZ",
                static_cast<long long>(year), static_cast<long long>(month),
                static_cast<long long>(day), static_cast<long long>(rest / 3600),
                static_cast<long long>(rest / 60 % 60), static_cast<long long>(rest % 60));
  return buffer;
}

constexpr std::array<std::pair<OpKind, std::string_view>, 12> kOpNames = {{
    {OpKind::kRemember, "remember"},
    {OpKind::kRetire, "retire"},
    {OpKind::kRetireAll, "retire_all"},
    {OpKind::kErase, "erase"},
    {OpKind::kPropose, "propose"},
    {OpKind::kAccept, "accept"},
    {OpKind::kReject, "reject"},
    {OpKind::kRebuild, "rebuild"},
    {OpKind::kAmend, "amend"},
    {OpKind::kRecall, "recall"},
    {OpKind::kRecallAsOf, "recall_as_of"},
    {OpKind::kReopen, "reopen"},
}};

bool ParseUint(std::string_view text, std::uint64_t& value) {
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc() && end == text.data() + text.size() && !text.empty();
}

std::string_view Trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) {
    text.remove_suffix(1);
  }
  return text;
}

// Splits off the first space-separated word.
std::string_view NextWord(std::string_view& rest) {
  rest = Trim(rest);
  const std::size_t space = rest.find(' ');
  const std::string_view word = rest.substr(0, space);
  rest = space == std::string_view::npos ? std::string_view() : rest.substr(space + 1);
  return word;
}

}  // namespace

std::string_view OpKindName(OpKind kind) {
  for (const auto& [k, name] : kOpNames) {
    if (k == kind) return name;
  }
  return "?";
}

const std::vector<std::string>& PropertyScopes() {
  static const std::vector<std::string> scopes = {"user:a", "user:a/run:1", "user:a/run:2",
                                                  "user:b"};
  return scopes;
}

std::string OpGenerator::FactTurnText(const std::string& speaker) {
  const std::string& city = Choose(kCities);
  switch (Below(20)) {
    case 0:
    case 1:
      return "I live in " + city + ".";
    case 2:
    case 3:
      return "I moved to " + city + Choose(kWhens) + ".";
    case 4:
    case 5:
      return "No, I meant " + Choose(Below(2) ? kCities : kFoods) + ".";
    case 6:
      return "I used to live in " + city + ".";
    case 7:
      return "I used to live in " + city + ", but now I live in " + Choose(kCities) + ".";
    case 8:
      return "I work at " + Choose(kCompanies) + ".";
    case 9:
      return Below(2) ? "Next Friday I'll fly to " + city + "."
                      : "I'm flying to " + city + " next week.";
    case 10:
      return (Below(2) ? "I love " : "I don't like ") + Choose(kFoods) + ".";
    case 11:
      return "My favorite color is " + Choose(kColors) + ".";
    case 12:
      return "My sister " + Choose(kNames) + " lives in " + city + ".";
    case 13:
      return "Actually, my budget is $" + std::to_string(1000 * (1 + Below(5))) + ".";
    case 14:
      return Below(2) ? "I'm vegan." : "I no longer eat meat.";
    case 15:
      return "I adopted a cat named " + Choose(kNames) + ".";
    case 16:
      return "I lived in " + city + " in the 1990s.";
    case 17:
      return "I'm allergic to " + Choose(kFoods) + ".";
    case 18:
      return "My name is " + speaker + ".";
    default:
      return Choose(kFillers);
  }
}

OpTurn OpGenerator::MakeTurn(const std::string& scope, std::string text, bool same_time) {
  std::size_t scope_idx = 0;
  while (PropertyScopes()[scope_idx] != scope) ++scope_idx;
  if (conversation_seconds_.empty()) {
    conversation_seconds_.assign(PropertyScopes().size(), kStartSeconds);
  }
  std::int64_t& now = conversation_seconds_[scope_idx];
  if (!same_time) now += static_cast<std::int64_t>(Below(600)) + 1;
  OpTurn turn;
  turn.event_time = FormatSeconds(now);
  turn.speaker = SpeakerOf(scope);
  turn.text = std::move(text);
  return turn;
}

Op OpGenerator::Next() {
  Op op;
  const std::vector<std::string>& scopes = PropertyScopes();
  const std::uint64_t roll = Below(100);
  if (roll < 46) {
    op.kind = OpKind::kRemember;
    op.scope = Choose(scopes);
    if (conversation_seconds_.empty()) {
      conversation_seconds_.assign(scopes.size(), kStartSeconds);
    }
    std::size_t scope_idx = 0;
    while (scopes[scope_idx] != op.scope) ++scope_idx;
    // Mostly forward by up to three days; sometimes back up to a month (out-of-order ingest).
    std::int64_t& now = conversation_seconds_[scope_idx];
    now = Below(10) == 0 ? now - static_cast<std::int64_t>(Below(30 * kDay))
                         : now + static_cast<std::int64_t>(Below(3 * kDay));
    // Stay within about two years of 2024-01-01 (the engine clock starts in 2030, after every
    // event time).
    if (now > kStartSeconds + 2 * 365 * kDay)
      now = kStartSeconds + static_cast<std::int64_t>(Below(30 * kDay));
    const std::string speaker = SpeakerOf(op.scope);
    if (Below(8) == 0) {
      // Two claims about one slot at the same time: a contradiction.
      const std::string& when = Choose(kWhens);
      op.turns.push_back(MakeTurn(op.scope, "I moved to " + Choose(kCities) + when + ".", false));
      op.turns.push_back(MakeTurn(op.scope, "I moved to " + Choose(kCities) + when + ".", true));
    } else {
      const std::uint64_t count = 1 + Below(4);
      for (std::uint64_t turn_idx = 0; turn_idx < count; ++turn_idx) {
        if (Below(5) == 0) {
          OpTurn turn = MakeTurn(op.scope, "Noted: you live in " + Choose(kCities) + ".", false);
          turn.role = "assistant";
          turn.speaker = "Assistant";
          op.turns.push_back(std::move(turn));
        } else {
          op.turns.push_back(MakeTurn(op.scope, FactTurnText(speaker), false));
        }
      }
    }
  } else if (roll < 61) {
    op.kind = OpKind::kRecall;
    op.scope = Choose(scopes);
    const std::vector<std::string> queries = {"Where do I live?",
                                              "Where does " + Choose(kNames) + " live?",
                                              "What food do I like?",
                                              "Where do I work?",
                                              "What are my plans next week?",
                                              Choose(kCities),
                                              "What is my favorite color?",
                                              "Where did I live before?"};
    op.text = Choose(queries);
    op.include_retired = Below(4) == 0;
    op.include_nested = Below(4) != 0;
    if (Below(3) == 0) {
      // As of a time: valid at a moment of the first weeks of conversation, known by the
      // ingestion of a memory picked when it runs, or both.
      op.kind = OpKind::kRecallAsOf;
      const std::uint64_t which = Below(3);
      if (which != 1) op.valid_at = FormatSeconds(kStartSeconds + Below(30 * kDay));
      if (which != 0) {
        op.known_at = true;
        op.pick = rng_();
      }
    }
  } else if (roll < 69) {
    op.kind = OpKind::kRetire;
    op.pick = rng_();
  } else if (roll < 71) {
    op.kind = OpKind::kRetireAll;
    op.scope = Choose(scopes);
  } else if (roll < 73) {
    op.kind = OpKind::kErase;
    op.scope = Choose(scopes);
  } else if (roll < 81) {
    op.kind = OpKind::kPropose;
    op.pick = rng_();
    op.pick2 = rng_();
  } else if (roll < 86) {
    op.kind = OpKind::kAccept;
    op.pick = rng_();
  } else if (roll < 89) {
    op.kind = OpKind::kReject;
    op.pick = rng_();
  } else if (roll < 95) {
    op.kind = OpKind::kAmend;
    op.pick = rng_();
    OpTurn replacement;
    replacement.text = FactTurnText("Ana");
    op.turns.push_back(std::move(replacement));  // speaker, event time: the amended turn's
  } else if (roll < 98) {
    op.kind = OpKind::kRebuild;
  } else {
    op.kind = OpKind::kReopen;
  }
  return op;
}

std::string FormatOps(const std::vector<Op>& ops) {
  std::string out;
  for (const Op& op : ops) {
    out += OpKindName(op.kind);
    switch (op.kind) {
      case OpKind::kRemember:
      case OpKind::kRetireAll:
      case OpKind::kErase:
        out += " " + op.scope;
        break;
      case OpKind::kRetire:
      case OpKind::kAccept:
      case OpKind::kReject:
      case OpKind::kAmend:
        out += " " + std::to_string(op.pick);
        break;
      case OpKind::kPropose:
        out += " " + std::to_string(op.pick) + " " + std::to_string(op.pick2);
        break;
      case OpKind::kRecall:
        out += " " + op.scope + " retired=" + (op.include_retired ? "1" : "0") +
               " nested=" + (op.include_nested ? "1" : "0") + ": " + op.text;
        break;
      case OpKind::kRecallAsOf:
        out += " " + op.scope + " retired=" + (op.include_retired ? "1" : "0") +
               " nested=" + (op.include_nested ? "1" : "0") +
               " valid_at=" + (op.valid_at.empty() ? "-" : op.valid_at) +
               " known_at=" + (op.known_at ? std::to_string(op.pick) : "-") + ": " + op.text;
        break;
      case OpKind::kRebuild:
      case OpKind::kReopen:
        break;
    }
    out += "\n";
    for (const OpTurn& turn : op.turns) {
      out += "  turn " + (turn.event_time.empty() ? std::string("-") : turn.event_time) + " " +
             turn.role + " " + turn.speaker + ": " + turn.text + "\n";
    }
  }
  return out;
}

StatusOr<std::vector<Op>> ParseOps(std::string_view text) {
  std::vector<Op> ops;
  std::size_t line_number = 0;
  while (!text.empty()) {
    const std::size_t newline = text.find('\n');
    const std::string_view raw = text.substr(0, newline);
    text = newline == std::string_view::npos ? std::string_view() : text.substr(newline + 1);
    ++line_number;
    const std::string_view line = Trim(raw);
    if (line.empty() || line.front() == '#') continue;
    const auto bad = [&](std::string_view why) {
      return Status::InvalidArgument("ops line " + std::to_string(line_number) + ": " +
                                     std::string(why) + ": \"" + std::string(line.substr(0, 120)) +
                                     "\"");
    };
    std::string_view rest = line;
    const std::string_view word = NextWord(rest);
    if (word == "turn") {
      if (ops.empty() ||
          (ops.back().kind != OpKind::kRemember && ops.back().kind != OpKind::kAmend)) {
        return bad("a turn outside a remember or amend");
      }
      OpTurn turn;
      const std::string_view time = NextWord(rest);
      turn.event_time = time == "-" ? "" : std::string(time);
      turn.role = std::string(NextWord(rest));
      const std::size_t colon = rest.find(": ");
      if (colon == std::string_view::npos) return bad("a turn needs \"<speaker>: <text>\"");
      turn.speaker = std::string(Trim(rest.substr(0, colon)));
      turn.text = std::string(Trim(rest.substr(colon + 2)));
      ops.back().turns.push_back(std::move(turn));
      continue;
    }
    Op op;
    bool known = false;
    for (const auto& [kind, name] : kOpNames) {
      if (name == word) {
        op.kind = kind;
        known = true;
      }
    }
    if (!known) return bad("unknown op");
    switch (op.kind) {
      case OpKind::kRemember:
      case OpKind::kRetireAll:
      case OpKind::kErase:
        op.scope = std::string(NextWord(rest));
        if (op.scope.empty()) return bad("missing scope");
        break;
      case OpKind::kRetire:
      case OpKind::kAccept:
      case OpKind::kReject:
      case OpKind::kAmend:
        if (!ParseUint(NextWord(rest), op.pick)) return bad("missing or bad pick");
        break;
      case OpKind::kPropose:
        if (!ParseUint(NextWord(rest), op.pick) || !ParseUint(NextWord(rest), op.pick2)) {
          return bad("propose needs two picks");
        }
        break;
      case OpKind::kRecall: {
        op.scope = std::string(NextWord(rest));
        const std::string_view retired = NextWord(rest);
        const std::string_view nested = NextWord(rest);
        if ((retired != "retired=0" && retired != "retired=1") ||
            (nested != "nested=0:" && nested != "nested=1:")) {
          return bad("recall needs \"<scope> retired=0|1 nested=0|1: <query>\"");
        }
        op.include_retired = retired == "retired=1";
        op.include_nested = nested == "nested=1:";
        op.text = std::string(Trim(rest));
        if (op.text.empty()) return bad("recall without a query");
        break;
      }
      case OpKind::kRecallAsOf: {
        constexpr std::string_view kUsage =
            "recall_as_of needs \"<scope> retired=0|1 nested=0|1 valid_at=<time|-> "
            "known_at=<pick|->: <query>\"";
        op.scope = std::string(NextWord(rest));
        const std::string_view retired = NextWord(rest);
        const std::string_view nested = NextWord(rest);
        const std::string_view valid_at = NextWord(rest);
        const std::string_view known_at = NextWord(rest);
        if ((retired != "retired=0" && retired != "retired=1") ||
            (nested != "nested=0" && nested != "nested=1") || !valid_at.starts_with("valid_at=") ||
            !known_at.starts_with("known_at=") || !known_at.ends_with(":")) {
          return bad(kUsage);
        }
        op.include_retired = retired == "retired=1";
        op.include_nested = nested == "nested=1";
        const std::string_view time = valid_at.substr(9);
        if (time != "-") {
          if (!ParseTimestamp(time).ok()) return bad("bad valid_at time");
          op.valid_at = std::string(time);
        }
        const std::string_view pick = known_at.substr(9, known_at.size() - 10);
        if (pick != "-") {
          if (!ParseUint(pick, op.pick)) return bad("bad known_at pick");
          op.known_at = true;
        }
        op.text = std::string(Trim(rest));
        if (op.text.empty()) return bad("recall_as_of without a query");
        break;
      }
      case OpKind::kRebuild:
      case OpKind::kReopen:
        break;
    }
    if (!Trim(rest).empty() && op.kind != OpKind::kRecall && op.kind != OpKind::kRecallAsOf) {
      return bad("trailing text");
    }
    ops.push_back(std::move(op));
  }
  return ops;
}

}  // namespace engram::property
