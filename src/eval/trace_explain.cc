// Readable explanation of one bench trace line (see trace_explain.h).
#include "eval/trace_explain.h"

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "io/file_reader.h"

namespace engram::eval {
namespace {

using io::Json;

constexpr std::size_t kTextExcerptBytes = 160;
constexpr std::size_t kMaxIdsInMessage = 3;

std::string Fixed(double value, int decimals = 4) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.*f", decimals, value);
  return buffer;
}

// A field as text: strings as they are, numbers and the rest as JSON, missing as "".
std::string Text(const Json& object, std::string_view key) {
  if (!object.is_object()) return "";
  const auto found = object.find(std::string(key));
  if (found == object.end() || found->is_null()) return "";
  if (found->is_string()) return found->get<std::string>();
  return found->dump();
}

// One line, newlines as spaces, cut at max_bytes (on a UTF-8 boundary).
std::string OneLine(std::string text, std::size_t max_bytes) {
  for (char& c : text) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  if (text.size() <= max_bytes) return text;
  std::size_t cut = max_bytes;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return text.substr(0, cut) + "...";
}

const Json& Field(const Json& object, std::string_view key) {
  static const Json* const kNull = new Json(nullptr);
  if (!object.is_object()) return *kNull;
  const auto found = object.find(std::string(key));
  return found == object.end() ? *kNull : *found;
}

std::string JoinStrings(const Json& array, std::string_view separator) {
  std::string joined;
  if (!array.is_array()) return joined;
  for (const Json& element : array) {
    if (!joined.empty()) joined += separator;
    joined += element.is_string() ? element.get<std::string>() : element.dump();
  }
  return joined;
}

void PrintMetrics(const Json& metrics, std::string_view indent, std::ostream& out) {
  if (!metrics.is_object()) return;
  std::string flat;
  for (auto entry = metrics.begin(); entry != metrics.end(); ++entry) {
    if (entry->is_object()) {
      out << indent << entry.key() << ":";
      for (auto inner = entry->begin(); inner != entry->end(); ++inner) {
        out << "  " << inner.key() << " "
            << (inner->is_number() ? Fixed(inner->get<double>(), 3) : inner->dump());
      }
      out << "\n";
    } else {
      flat += "  " + entry.key() + " " +
              (entry->is_number() ? Fixed(entry->get<double>(), 3) : entry->dump());
    }
  }
  if (!flat.empty()) out << indent << flat.substr(2) << "\n";
}

// Who said an item: its speaker, else its role ("user", "assistant").
std::string Who(const Json& item) {
  const std::string speaker = Text(item, "speaker");
  return speaker.empty() ? Text(item, "role") : speaker;
}

std::string StatusLabel(const std::string& status, std::size_t eval_k) {
  if (status == "packed") return "PACKED";
  if (status == "in_top_k") return "IN TOP " + std::to_string(eval_k) + ", NOT PACKED";
  if (status == "ranked_out") return "RANKED OUT";
  if (status == "never_retrieved") return "NEVER RETRIEVED";
  return status;
}

std::string RouteRanks(const Json& routes) {
  std::string text;
  if (routes.is_object()) {
    for (auto route = routes.begin(); route != routes.end(); ++route) {
      if (!text.empty()) text += ", ";
      text += route.key() + " #" + Text(*route, "rank") + " (" +
              Fixed(Field(*route, "score").is_number() ? Field(*route, "score").get<double>() : 0) +
              ")";
    }
  } else if (routes.is_array()) {  // an item's routes: [{route, rank, score, explanation}]
    for (const Json& route : routes) {
      if (!text.empty()) text += ", ";
      text += Text(route, "route") + " #" + Text(route, "rank") + " (" +
              Fixed(Field(route, "score").is_number() ? Field(route, "score").get<double>() : 0) +
              ")";
    }
  }
  return text.empty() ? "-" : text;
}

}  // namespace

Status ExplainTraceLine(const Json& line, std::ostream& out) {
  try {
    const std::size_t eval_k =
        Field(line, "eval_k").is_number_unsigned() ? Field(line, "eval_k").get<std::size_t>() : 0;
    out << Text(line, "question_id") << "  (" << Text(line, "dataset") << ", "
        << Text(line, "scope");
    const bool numbered = !Text(line, "category").empty();
    if (numbered) out << ", category " << Text(line, "category");
    if (!Text(line, "category_name").empty()) {
      out << (numbered ? " " : ", ") << Text(line, "category_name");
    }
    out << ")\n";
    out << "  question:   " << Text(line, "question") << "\n";
    out << "  answer:     " << Text(line, "answer") << "\n";
    if (!Text(line, "adversarial_answer").empty()) {
      out << "  adversarial answer: " << Text(line, "adversarial_answer") << "\n";
    }
    out << "  evidence:   " << JoinStrings(Field(line, "evidence"), ", ") << "\n";
    if (Field(line, "answer_session_ids").is_array()) {
      out << "  gold sessions:";
      for (const Json& session : Field(line, "gold_sessions")) {
        const std::string rank = Text(session, "session_rank");
        out << " " << Text(session, "session") << " (session rank " << (rank.empty() ? "-" : rank)
            << ")";
      }
      out << "\n";
    }
    out << "  query time: " << Text(line, "query_time");
    if (!Text(line, "question_date").empty()) out << " (" << Text(line, "question_date") << ")";
    out << "\n";
    const std::string first_rank = Text(line, "first_gold_rank");
    out << "  first gold turn at rank " << (first_rank.empty() ? "-" : first_rank) << " of "
        << eval_k << "\n";
    PrintMetrics(Field(line, "metrics"), "  ", out);

    const Json& plan = Field(line, "plan");
    out << "\nPlan:";
    for (const Json& route : Field(plan, "routes")) {
      out << " " << Text(route, "route") << " (weight " << Text(route, "weight") << ", "
          << Text(route, "candidates") << " candidates";
      if (!Text(route, "error").empty()) out << ", error: " << Text(route, "error");
      out << ")";
    }
    out << "; fused " << Text(plan, "fused_candidates") << ", filtered out "
        << Text(plan, "filtered_out") << ", policy " << Text(plan, "policy") << "\n";

    out << "\nGold turns:\n";
    for (const Json& gold : Field(line, "gold_turns")) {
      const std::string status = Text(gold, "status");
      std::string where;
      if (status == "never_retrieved") {
        where = "in no route's candidates";
      } else {
        const std::string rank = Text(gold, "eval_rank");
        where = rank.empty() ? "not in the top " + std::to_string(eval_k) : "rank " + rank;
        where += "; routes: " + RouteRanks(Field(gold, "routes"));
      }
      char head[160];
      std::snprintf(head, sizeof(head), "  %-14s %-24s ", Text(gold, "key").c_str(),
                    StatusLabel(status, eval_k).c_str());
      out << head << where << "\n";
      if (Field(gold, "in_data").is_boolean() && !Field(gold, "in_data").get<bool>()) {
        out << "      (no turn of the data has this id)\n";
      } else {
        out << "      " << Text(gold, "speaker") << ": "
            << OneLine(Text(gold, "text"), kTextExcerptBytes) << "\n";
      }
    }

    std::map<std::string, bool> gold_keys;
    for (const Json& gold : Field(line, "gold_turns")) gold_keys[Text(gold, "key")] = true;
    out << "\nEvaluated ranking (top " << eval_k << " turns; * = gold):\n";
    for (const Json& item : Field(line, "items")) {
      std::string turns;
      for (const Json& turn : Field(item, "turns")) {
        const std::string key = turn.is_string() ? turn.get<std::string>() : turn.dump();
        turns += (turns.empty() ? "" : ",") + key + (gold_keys.contains(key) ? "*" : "");
      }
      char head[96];
      std::snprintf(head, sizeof(head), "  %3s %-14s ", Text(item, "rank").c_str(), turns.c_str());
      const double score =
          Field(item, "score").is_number() ? Field(item, "score").get<double>() : 0;
      out << head << "score " << Fixed(score) << "  " << RouteRanks(Field(item, "routes")) << "\n"
          << "        " << Who(item) << ": " << OneLine(Text(item, "text"), kTextExcerptBytes)
          << "\n";
    }

    const Json& recalls = Field(line, "recalls");
    const Json& user = Field(recalls, "user");
    out << "\nContext of the user recall (k " << Text(user, "k") << " items, budget "
        << Text(user, "token_budget") << ", " << Text(line, "context_tokens") << " tokens):\n";
    const std::string context = Text(line, "context");
    std::size_t begin = 0;
    while (begin < context.size()) {
      std::size_t end = context.find('\n', begin);
      if (end == std::string::npos) end = context.size();
      out << "  " << context.substr(begin, end - begin) << "\n";
      begin = end + 1;
    }

    out << "\nTimings:\n";
    for (const char* name : {"user", "eval", "trace"}) {
      const Json& recall = Field(recalls, name);
      if (!recall.is_object()) continue;
      const double total =
          Field(recall, "latency_ms").is_number() ? Field(recall, "latency_ms").get<double>() : 0;
      out << "  " << name << " recall " << Fixed(total, 3) << " ms";
      if (Field(recall, "cpu_ms").is_number()) {
        out << " (CPU " << Fixed(Field(recall, "cpu_ms").get<double>(), 3) << " ms)";
      }
      out << ":";
      for (const Json& timing : Field(recall, "timings")) {
        const double ms = Field(timing, "ms").is_number() ? Field(timing, "ms").get<double>() : 0;
        out << "  " << Text(timing, "stage") << " " << Fixed(ms, 3);
      }
      out << "\n";
    }
  } catch (const Json::exception& error) {
    return Status::Corruption(std::string("trace line has an unexpected shape: ") + error.what());
  }
  return Status::Ok();
}

StatusOr<Json> FindTraceQuestion(std::string_view trace_path, std::string_view question_id) {
  ASSIGN_OR_RETURN(std::unique_ptr<io::LineReader> reader, io::LineReader::Open(trace_path));
  std::vector<std::string> first_ids;
  std::size_t questions = 0;
  std::string text;
  while (true) {
    ASSIGN_OR_RETURN(const bool got_line, reader->Next(&text));
    if (!got_line) break;
    if (text.empty()) continue;
    ++questions;
    // Parse only lines that can match, plus the first few (for the not-found message).
    if (text.find(question_id) == std::string::npos && first_ids.size() >= kMaxIdsInMessage) {
      continue;
    }
    const Json line = Json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (!line.is_object()) {
      return Status::Corruption(reader->name() + " line " + std::to_string(reader->line_number()) +
                                " is not a JSON object");
    }
    const std::string id = Text(line, "question_id");
    if (id == question_id) return line;
    if (first_ids.size() < kMaxIdsInMessage) first_ids.push_back(id);
  }
  std::string examples;
  for (const std::string& id : first_ids) examples += (examples.empty() ? "" : ", ") + id;
  return Status::NotFound("question \"" + std::string(question_id) + "\" is not in " +
                          reader->name() + " (" + std::to_string(questions) +
                          " questions; ids look like " + (examples.empty() ? "-" : examples) + ")");
}

Status ExplainTraceQuestion(std::string_view trace_path, std::string_view question_id,
                            std::ostream& out) {
  ASSIGN_OR_RETURN(const Json line, FindTraceQuestion(trace_path, question_id));
  return ExplainTraceLine(line, out).WithContext(io::DisplayName(trace_path) + " question " +
                                                 std::string(question_id));
}

}  // namespace engram::eval
