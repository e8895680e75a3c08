// understanding_bench: the labelled-set benchmark of the write path (see understanding_bench.h).
#include "eval/understanding_bench.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iomanip>
#include <map>
#include <sstream>
#include <string_view>
#include <tuple>
#include <utility>

#include "engram/engine.h"
#include "engram/options.h"
#include "eval/bench.h"
#include "eval/bench_internal.h"
#include "eval/progress.h"
#include "io/file_reader.h"

namespace engram::eval {
namespace {

constexpr std::int64_t kMicrosPerDay = 86'400'000'000;
// The value of a labelled time expression no single interval states ("a few days ago",
// "recently"): not scored, and a detection overlapping it is neither right nor wrong.
constexpr std::string_view kVague = "vague";

// ---- reading ----------------------------------------------------------------------------------

Status LineError(const std::string& path, std::size_t line, std::string_view message) {
  return Status::InvalidArgument(path + ":" + std::to_string(line) + ": " + std::string(message));
}

StatusOr<std::string> StringField(const io::Json& object, const char* name, bool required,
                                  const std::string& path, std::size_t line) {
  if (!object.contains(name)) {
    if (required) return LineError(path, line, std::string("missing field \"") + name + "\"");
    return std::string();
  }
  if (!object[name].is_string()) {
    return LineError(path, line, std::string("field \"") + name + "\" must be a string");
  }
  return object[name].get<std::string>();
}

StatusOr<Timestamp> TimeField(const io::Json& object, const char* name, const std::string& path,
                              std::size_t line) {
  ASSIGN_OR_RETURN(const std::string text, StringField(object, name, true, path, line));
  StatusOr<Timestamp> time = ParseTimestamp(text);
  if (!time.ok()) {
    return LineError(path, line, std::string("field \"") + name + "\": " + time.status().message());
  }
  return *time;
}

StatusOr<std::vector<std::string>> StringList(const io::Json& object, const char* name,
                                              const std::string& path, std::size_t line) {
  std::vector<std::string> out;
  if (!object.contains(name)) return out;
  if (!object[name].is_array()) {
    return LineError(path, line, std::string("field \"") + name + "\" must be an array");
  }
  for (const io::Json& entry : object[name]) {
    if (!entry.is_string()) {
      return LineError(path, line, std::string("field \"") + name + "\" must hold strings");
    }
    out.push_back(entry.get<std::string>());
  }
  return out;
}

StatusOr<const io::Json*> ArrayField(const io::Json& object, const char* name,
                                     const std::string& path, std::size_t line) {
  if (!object.contains(name) || !object[name].is_array()) {
    return LineError(path, line, std::string("field \"") + name + "\" must be an array");
  }
  return &object[name];
}

Status CheckDay(const std::string& day, const char* name, const std::string& path,
                std::size_t line) {
  if (day.empty()) return Status::Ok();
  if (day.size() != 10 || !ParseTimestamp(day).ok()) {
    return LineError(path, line, std::string(name) + " must be a date YYYY-MM-DD: " + day);
  }
  return Status::Ok();
}

StatusOr<LabelledFact> ReadFact(const io::Json& entry, const std::string& path, std::size_t line) {
  if (!entry.is_object()) return LineError(path, line, "a fact label must be an object");
  LabelledFact fact;
  ASSIGN_OR_RETURN(fact.subject, StringField(entry, "subject", true, path, line));
  ASSIGN_OR_RETURN(fact.predicate, StringField(entry, "predicate", true, path, line));
  ASSIGN_OR_RETURN(fact.object, StringField(entry, "object", true, path, line));
  ASSIGN_OR_RETURN(fact.object_alt, StringList(entry, "object_alt", path, line));
  ASSIGN_OR_RETURN(const std::string polarity, StringField(entry, "polarity", false, path, line));
  if (!polarity.empty() && polarity != "+" && polarity != "-") {
    return LineError(path, line, "polarity must be \"+\" or \"-\"");
  }
  fact.negated = polarity == "-";
  ASSIGN_OR_RETURN(fact.valid_from, StringField(entry, "valid_from", false, path, line));
  ASSIGN_OR_RETURN(fact.valid_to, StringField(entry, "valid_to", false, path, line));
  RETURN_IF_ERROR(CheckDay(fact.valid_from, "valid_from", path, line));
  RETURN_IF_ERROR(CheckDay(fact.valid_to, "valid_to", path, line));
  return fact;
}

bool IsWordByte(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || (static_cast<unsigned char>(c) & 0x80);
}

// The byte offset of the `occurrence`-th match of `needle` in `text` that starts and ends at word
// boundaries (exact case first, then ASCII case-insensitive); npos when there is none.
std::size_t FindOccurrence(std::string_view text, std::string_view needle, std::size_t occurrence) {
  if (needle.empty()) return std::string_view::npos;
  const auto lower = [](std::string_view value) {
    std::string out(value);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
  };
  for (const bool fold : {false, true}) {
    const std::string haystack = fold ? lower(text) : std::string(text);
    const std::string wanted = fold ? lower(needle) : std::string(needle);
    std::size_t seen = 0;
    for (std::size_t at = haystack.find(wanted); at != std::string::npos;
         at = haystack.find(wanted, at + 1)) {
      const std::size_t end = at + wanted.size();
      const bool starts = at == 0 || !IsWordByte(haystack[at - 1]) || !IsWordByte(wanted.front());
      const bool ends = end == haystack.size() || !IsWordByte(haystack[end]) ||
                        !IsWordByte(wanted.back());
      if (starts && ends && ++seen == occurrence) return at;
    }
  }
  return std::string_view::npos;
}

StatusOr<std::vector<LabelledSpan>> ReadSpans(const io::Json& object, const char* name,
                                              const char* value_name, const std::string& text,
                                              const std::string& path, std::size_t line) {
  ASSIGN_OR_RETURN(const io::Json* entries, ArrayField(object, name, path, line));
  std::vector<LabelledSpan> spans;
  for (const io::Json& entry : *entries) {
    if (!entry.is_object()) return LineError(path, line, std::string(name) + ": not an object");
    LabelledSpan span;
    ASSIGN_OR_RETURN(span.text, StringField(entry, "text", true, path, line));
    ASSIGN_OR_RETURN(span.value, StringField(entry, value_name, true, path, line));
    if (entry.contains("occurrence")) {
      if (!entry["occurrence"].is_number_unsigned() || entry["occurrence"].get<std::size_t>() == 0) {
        return LineError(path, line, "occurrence must be a positive integer");
      }
      span.occurrence = entry["occurrence"].get<std::size_t>();
    }
    if (FindOccurrence(text, span.text, span.occurrence) == std::string_view::npos) {
      return LineError(path, line, std::string(name) + ": \"" + span.text +
                                       "\" (occurrence " + std::to_string(span.occurrence) +
                                       ") is not in the turn's text");
    }
    if (std::string_view(name) == "times" && span.value != kVague &&
        !DayInterval(span.value).has_value()) {
      return LineError(path, line, "times: value \"" + span.value + "\" is not \"from/to\"");
    }
    spans.push_back(std::move(span));
  }
  return spans;
}

template <typename Parse>
Status ForEachLine(const std::string& path, Parse parse) {
  ASSIGN_OR_RETURN(const std::string content, io::ReadFile(path));
  std::istringstream in(content);
  std::string line;
  std::size_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    io::Json object;
    try {
      object = io::Json::parse(line);
    } catch (const io::Json::exception& error) {
      return LineError(path, number, std::string("not JSON: ") + error.what());
    }
    if (!object.is_object()) return LineError(path, number, "not a JSON object");
    RETURN_IF_ERROR(parse(object, number));
  }
  return Status::Ok();
}

}  // namespace

std::string NormalizeLabelText(std::string_view text) {
  std::string spaced;
  spaced.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    const bool inner = i > 0 && i + 1 < text.size() && IsWordByte(text[i - 1]) &&
                       IsWordByte(text[i + 1]);
    if (std::isalnum(c) != 0 || c >= 0x80 || c == '@' || c == '&' || c == '$' || c == '%' ||
        ((c == '\'' || c == '-' || c == '.') && inner)) {
      spaced.push_back(static_cast<char>(std::tolower(c)));
    } else {
      spaced.push_back(' ');
    }
  }
  std::vector<std::string> words;
  std::istringstream in(spaced);
  for (std::string word; in >> word;) words.push_back(word);
  static constexpr std::string_view kDropped[] = {"a",   "an",  "the",   "my",  "our",
                                                  "his", "her", "their", "your"};
  std::size_t first = 0;
  while (first < words.size() &&
         std::find(std::begin(kDropped), std::end(kDropped), words[first]) != std::end(kDropped)) {
    ++first;
  }
  std::string out;
  for (std::size_t i = first; i < words.size(); ++i) {
    if (!out.empty()) out.push_back(' ');
    out += words[i];
  }
  return out;
}

std::optional<std::string> DayInterval(std::string_view value) {
  const std::size_t slash = value.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  StatusOr<Timestamp> from = ParseTimestamp(value.substr(0, slash));
  StatusOr<Timestamp> to = ParseTimestamp(value.substr(slash + 1));
  if (!from.ok() || !to.ok() || to->micros < from->micros) return std::nullopt;
  const auto floor_day = [](std::int64_t micros) {
    return micros >= 0 ? micros / kMicrosPerDay : -((-micros + kMicrosPerDay - 1) / kMicrosPerDay);
  };
  const std::int64_t from_day = floor_day(from->micros);
  std::int64_t to_day = floor_day(to->micros);
  if (to_day * kMicrosPerDay != to->micros) ++to_day;
  if (to_day == from_day) ++to_day;  // an instant: its day
  const auto day = [](std::int64_t days) {
    return FormatTimestamp(Timestamp{days * kMicrosPerDay}).substr(0, 10);
  };
  return day(from_day) + "/" + day(to_day);
}

StatusOr<std::vector<LabelledTurn>> ReadLabelledTurns(const std::string& path) {
  std::vector<LabelledTurn> turns;
  std::map<std::string, std::size_t> ids;
  RETURN_IF_ERROR(ForEachLine(path, [&](const io::Json& object, std::size_t line) -> Status {
    LabelledTurn turn;
    ASSIGN_OR_RETURN(turn.id, StringField(object, "id", true, path, line));
    if (!ids.emplace(turn.id, line).second) return LineError(path, line, "duplicate id " + turn.id);
    ASSIGN_OR_RETURN(turn.conversation, StringField(object, "conversation", true, path, line));
    ASSIGN_OR_RETURN(turn.session, StringField(object, "session", false, path, line));
    ASSIGN_OR_RETURN(turn.speaker, StringField(object, "speaker", true, path, line));
    ASSIGN_OR_RETURN(const std::string role, StringField(object, "role", false, path, line));
    if (!role.empty()) {
      StatusOr<Role> parsed = ParseRole(role);
      if (!parsed.ok()) return LineError(path, line, parsed.status().message());
      turn.role = *parsed;
    }
    ASSIGN_OR_RETURN(turn.time, TimeField(object, "time", path, line));
    ASSIGN_OR_RETURN(turn.text, StringField(object, "text", true, path, line));
    if (turn.text.empty()) return LineError(path, line, "empty text");
    ASSIGN_OR_RETURN(const io::Json* facts, ArrayField(object, "facts", path, line));
    for (const io::Json& entry : *facts) {
      ASSIGN_OR_RETURN(LabelledFact fact, ReadFact(entry, path, line));
      turn.facts.push_back(std::move(fact));
    }
    ASSIGN_OR_RETURN(turn.times, ReadSpans(object, "times", "value", turn.text, path, line));
    ASSIGN_OR_RETURN(turn.entities, ReadSpans(object, "entities", "type", turn.text, path, line));
    ASSIGN_OR_RETURN(turn.references,
                     ReadSpans(object, "references", "target", turn.text, path, line));
    turns.push_back(std::move(turn));
    return Status::Ok();
  }));
  return turns;
}

StatusOr<std::vector<ProfileCase>> ReadProfileCases(const std::string& path) {
  std::vector<ProfileCase> cases;
  std::map<std::string, std::size_t> ids;
  RETURN_IF_ERROR(ForEachLine(path, [&](const io::Json& object, std::size_t line) -> Status {
    ProfileCase entry;
    ASSIGN_OR_RETURN(entry.id, StringField(object, "id", true, path, line));
    if (!ids.emplace(entry.id, line).second) {
      return LineError(path, line, "duplicate id " + entry.id);
    }
    ASSIGN_OR_RETURN(entry.at, TimeField(object, "at", path, line));
    ASSIGN_OR_RETURN(const io::Json* turns, ArrayField(object, "turns", path, line));
    if (turns->empty()) return LineError(path, line, "a case needs turns");
    for (const io::Json& fields : *turns) {
      if (!fields.is_object()) return LineError(path, line, "turns: not an object");
      CaseTurn turn;
      ASSIGN_OR_RETURN(turn.speaker, StringField(fields, "speaker", true, path, line));
      ASSIGN_OR_RETURN(const std::string role, StringField(fields, "role", false, path, line));
      if (!role.empty()) {
        StatusOr<Role> parsed = ParseRole(role);
        if (!parsed.ok()) return LineError(path, line, parsed.status().message());
        turn.role = *parsed;
      }
      ASSIGN_OR_RETURN(turn.time, TimeField(fields, "time", path, line));
      ASSIGN_OR_RETURN(turn.text, StringField(fields, "text", true, path, line));
      if (turn.text.empty()) return LineError(path, line, "empty text");
      entry.turns.push_back(std::move(turn));
    }
    ASSIGN_OR_RETURN(const io::Json* profile, ArrayField(object, "profile", path, line));
    for (const io::Json& fields : *profile) {
      if (!fields.is_object()) return LineError(path, line, "profile: not an object");
      ProfileItem item;
      ASSIGN_OR_RETURN(item.person, StringField(fields, "person", true, path, line));
      ASSIGN_OR_RETURN(item.predicate, StringField(fields, "predicate", true, path, line));
      ASSIGN_OR_RETURN(item.value, StringField(fields, "value", true, path, line));
      ASSIGN_OR_RETURN(item.value_alt, StringList(fields, "value_alt", path, line));
      ASSIGN_OR_RETURN(const std::string polarity,
                       StringField(fields, "polarity", false, path, line));
      item.negated = polarity == "-";
      entry.profile.push_back(std::move(item));
    }
    ASSIGN_OR_RETURN(const io::Json* foresight, ArrayField(object, "foresight", path, line));
    for (const io::Json& fields : *foresight) {
      ASSIGN_OR_RETURN(LabelledFact fact, ReadFact(fields, path, line));
      entry.foresight.push_back(std::move(fact));
    }
    cases.push_back(std::move(entry));
    return Status::Ok();
  }));
  return cases;
}

// ---- scoring ----------------------------------------------------------------------------------

namespace {

struct Counts {
  std::size_t tp = 0;
  std::size_t fp = 0;
  std::size_t fn = 0;
  io::Json misses = io::Json::array();
  io::Json false_positives = io::Json::array();
};

double Ratio(std::size_t num, std::size_t den) {
  return den == 0 ? 0.0 : static_cast<double>(num) / static_cast<double>(den);
}

// Rounded to 4 decimals so reports diff cleanly.
double Round4(double value) { return static_cast<double>(std::llround(value * 10000.0)) / 10000.0; }

io::Json CountsJson(const Counts& counts, bool with_lists) {
  const double precision = Ratio(counts.tp, counts.tp + counts.fp);
  const double recall = Ratio(counts.tp, counts.tp + counts.fn);
  const double f1 =
      precision + recall == 0.0 ? 0.0 : 2.0 * precision * recall / (precision + recall);
  io::Json out = {{"tp", counts.tp},
                  {"fp", counts.fp},
                  {"fn", counts.fn},
                  {"precision", Round4(precision)},
                  {"recall", Round4(recall)},
                  {"f1", Round4(f1)}};
  if (with_lists) {
    out["misses"] = counts.misses;
    out["false_positives"] = counts.false_positives;
  }
  return out;
}

io::Json GroupJson(const std::map<std::string, Counts>& groups) {
  io::Json out = io::Json::object();
  for (const auto& [name, counts] : groups) out[name] = CountsJson(counts, false);
  return out;
}

std::string FactText(std::string_view subject, std::string_view predicate, std::string_view object,
                     bool negated) {
  return std::string(subject) + " " + (negated ? "NOT " : "") + std::string(predicate) + " " +
         std::string(object);
}

bool ObjectMatches(const std::string& predicted, const std::string& object,
                   const std::vector<std::string>& alternatives) {
  const std::string normal = NormalizeLabelText(predicted);
  if (normal == NormalizeLabelText(object)) return true;
  return std::any_of(alternatives.begin(), alternatives.end(), [&](const std::string& alt) {
    return normal == NormalizeLabelText(alt);
  });
}

bool FactMatches(const PredictedFact& predicted, const LabelledFact& label, bool check_polarity) {
  return predicted.predicate == label.predicate &&
         NormalizeLabelText(predicted.subject) == NormalizeLabelText(label.subject) &&
         (!check_polarity || predicted.negated == label.negated) &&
         ObjectMatches(predicted.object, label.object, label.object_alt);
}

std::string Day(const std::optional<Timestamp>& time) {
  return time.has_value() ? FormatTimestamp(*time).substr(0, 10) : std::string();
}

struct Span {
  std::size_t begin = 0;
  std::size_t end = 0;
};

Span Locate(const std::string& text, const LabelledSpan& label) {
  const std::size_t begin = FindOccurrence(text, label.text, label.occurrence);
  return {begin, begin + label.text.size()};
}

bool Overlaps(Span a, std::size_t begin, std::size_t end) { return a.begin < end && begin < a.end; }

std::string Lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string SpanText(const std::string& text, std::size_t begin, std::size_t end) {
  if (begin > end || end > text.size()) return std::string();
  return text.substr(begin, end - begin);
}

// The kind of a labelled reference, from its words: personal pronouns are people, "there" a
// place, anything else ("that day", "then") a time.
std::string ReferenceKind(std::string_view words) {
  const std::string lower = Lower(words);
  static constexpr std::string_view kPeople[] = {"he",  "him",  "his",     "himself", "she",
                                                 "her", "hers", "herself"};
  if (std::find(std::begin(kPeople), std::end(kPeople), lower) != std::end(kPeople)) {
    return "person";
  }
  if (lower == "there") return "place";
  return "time";
}

bool TargetMatches(const std::string& predicted, const std::string& label) {
  const std::string normal = NormalizeLabelText(predicted);
  const std::string wanted = NormalizeLabelText(label);
  if (normal == wanted) return true;
  const std::size_t space = normal.find(' ');
  return space != std::string::npos && normal.substr(0, space) == wanted;
}

}  // namespace

io::Json ScoreTurns(std::span<const LabelledTurn> turns, std::span<const TurnOutput> outputs) {
  Counts facts_all;
  std::map<std::string, Counts> by_predicate;
  std::size_t validity_checked = 0;
  std::size_t validity_correct = 0;
  io::Json validity_errors = io::Json::array();
  Counts times;
  std::size_t times_detected = 0;  // labelled expressions overlapped by a detection
  Counts entities;
  std::map<std::string, Counts> by_type;
  std::size_t typed = 0;        // predicted mentions whose span matches a labelled entity
  std::size_t typed_right = 0;  // ... with the labelled type
  Counts references;
  std::map<std::string, Counts> by_kind;
  std::size_t labelled_facts = 0;

  const std::size_t count = std::min(turns.size(), outputs.size());
  for (std::size_t turn_idx = 0; turn_idx < count; ++turn_idx) {
    const LabelledTurn& turn = turns[turn_idx];
    const TurnOutput& output = outputs[turn_idx];

    // Facts.
    labelled_facts += turn.facts.size();
    std::vector<bool> used(output.facts.size(), false);
    for (const LabelledFact& label : turn.facts) {
      std::size_t found = output.facts.size();
      for (std::size_t fact_idx = 0; fact_idx < output.facts.size(); ++fact_idx) {
        if (!used[fact_idx] && FactMatches(output.facts[fact_idx], label, true)) {
          found = fact_idx;
          break;
        }
      }
      Counts& group = by_predicate[label.predicate];
      if (found == output.facts.size()) {
        ++facts_all.fn;
        ++group.fn;
        facts_all.misses.push_back(
            {{"turn", turn.id},
             {"text", turn.text},
             {"expected", FactText(label.subject, label.predicate, label.object, label.negated)}});
        continue;
      }
      used[found] = true;
      ++facts_all.tp;
      ++group.tp;
      const PredictedFact& predicted = output.facts[found];
      for (const auto& [label_day, predicted_time, end_name] :
           {std::tuple{label.valid_from, predicted.valid_from, "valid_from"},
            std::tuple{label.valid_to, predicted.valid_to, "valid_to"}}) {
        if (label_day.empty()) continue;
        ++validity_checked;
        if (Day(predicted_time) == label_day) {
          ++validity_correct;
        } else {
          validity_errors.push_back(
              {{"turn", turn.id},
               {"fact", FactText(label.subject, label.predicate, label.object, label.negated)},
               {"end", end_name},
               {"expected", label_day},
               {"actual", Day(predicted_time)}});
        }
      }
    }
    for (std::size_t fact_idx = 0; fact_idx < output.facts.size(); ++fact_idx) {
      if (used[fact_idx]) continue;
      const PredictedFact& predicted = output.facts[fact_idx];
      ++facts_all.fp;
      ++by_predicate[predicted.predicate].fp;
      facts_all.false_positives.push_back(
          {{"turn", turn.id},
           {"text", turn.text},
           {"actual",
            FactText(predicted.subject, predicted.predicate, predicted.object, predicted.negated)}});
    }

    // Times.
    std::vector<bool> time_used(output.times.size(), false);
    for (const LabelledSpan& label : turn.times) {
      if (label.value != kVague) continue;
      const Span span = Locate(turn.text, label);
      for (std::size_t time_idx = 0; time_idx < output.times.size(); ++time_idx) {
        const PredictedSpan& predicted = output.times[time_idx];
        if (Overlaps(span, predicted.begin, predicted.end)) time_used[time_idx] = true;
      }
    }
    for (const LabelledSpan& label : turn.times) {
      if (label.value == kVague) continue;
      const Span span = Locate(turn.text, label);
      const std::optional<std::string> wanted = DayInterval(label.value);
      std::size_t found = output.times.size();
      std::string seen;
      for (std::size_t time_idx = 0; time_idx < output.times.size(); ++time_idx) {
        const PredictedSpan& predicted = output.times[time_idx];
        if (time_used[time_idx] || !Overlaps(span, predicted.begin, predicted.end)) continue;
        if (seen.empty()) seen = predicted.value;
        if (DayInterval(predicted.value) == wanted) {
          found = time_idx;
          break;
        }
      }
      if (!seen.empty()) ++times_detected;
      if (found == output.times.size()) {
        ++times.fn;
        times.misses.push_back({{"turn", turn.id},
                                {"text", label.text},
                                {"expected", *wanted},
                                {"actual", seen.empty() ? io::Json(nullptr)
                                                        : io::Json(*DayInterval(seen))},
                                {"reference", FormatTimestamp(turn.time)}});
        continue;
      }
      time_used[found] = true;
      ++times.tp;
      // The expression detected in pieces ("7pm" and "tonight" of "7pm tonight"): the other
      // pieces with the same day are part of the right answer, not false positives.
      for (std::size_t time_idx = 0; time_idx < output.times.size(); ++time_idx) {
        const PredictedSpan& predicted = output.times[time_idx];
        if (!time_used[time_idx] && Overlaps(span, predicted.begin, predicted.end) &&
            DayInterval(predicted.value) == wanted) {
          time_used[time_idx] = true;
        }
      }
    }
    for (std::size_t time_idx = 0; time_idx < output.times.size(); ++time_idx) {
      if (time_used[time_idx]) continue;
      const PredictedSpan& predicted = output.times[time_idx];
      ++times.fp;
      const std::optional<std::string> day = DayInterval(predicted.value);
      times.false_positives.push_back(
          {{"turn", turn.id},
           {"text", SpanText(turn.text, predicted.begin, predicted.end)},
           {"actual", day.has_value() ? *day : predicted.value},
           {"reference", FormatTimestamp(turn.time)}});
    }

    // Entities.
    std::vector<bool> entity_used(output.entities.size(), false);
    for (const LabelledSpan& label : turn.entities) {
      const Span span = Locate(turn.text, label);
      std::size_t found = output.entities.size();
      for (std::size_t entity_idx = 0; entity_idx < output.entities.size(); ++entity_idx) {
        const PredictedSpan& predicted = output.entities[entity_idx];
        if (entity_used[entity_idx] || !Overlaps(span, predicted.begin, predicted.end) ||
            Lower(SpanText(turn.text, predicted.begin, predicted.end)) != Lower(label.text)) {
          continue;
        }
        ++typed;
        if (predicted.value == label.value) ++typed_right;
        if (predicted.value == label.value && found == output.entities.size()) found = entity_idx;
      }
      Counts& group = by_type[label.value];
      if (found == output.entities.size()) {
        ++entities.fn;
        ++group.fn;
        entities.misses.push_back(
            {{"turn", turn.id}, {"text", label.text}, {"expected", label.value}});
        continue;
      }
      entity_used[found] = true;
      ++entities.tp;
      ++group.tp;
    }
    for (std::size_t entity_idx = 0; entity_idx < output.entities.size(); ++entity_idx) {
      if (entity_used[entity_idx]) continue;
      const PredictedSpan& predicted = output.entities[entity_idx];
      ++entities.fp;
      ++by_type[predicted.value].fp;
      entities.false_positives.push_back(
          {{"turn", turn.id},
           {"text", SpanText(turn.text, predicted.begin, predicted.end)},
           {"actual", predicted.value}});
    }

    // References.
    std::vector<bool> reference_used(output.references.size(), false);
    for (const LabelledSpan& label : turn.references) {
      const Span span = Locate(turn.text, label);
      std::size_t found = output.references.size();
      std::string seen;
      for (std::size_t ref_idx = 0; ref_idx < output.references.size(); ++ref_idx) {
        const PredictedSpan& predicted = output.references[ref_idx];
        if (reference_used[ref_idx] || !Overlaps(span, predicted.begin, predicted.end)) continue;
        if (seen.empty()) seen = predicted.value;
        if (TargetMatches(predicted.value, label.value)) {
          found = ref_idx;
          break;
        }
      }
      Counts& group = by_kind[ReferenceKind(label.text)];
      if (found == output.references.size()) {
        ++references.fn;
        ++group.fn;
        references.misses.push_back(
            {{"turn", turn.id},
             {"text", label.text},
             {"expected", label.value},
             {"actual", seen.empty() ? io::Json(nullptr) : io::Json(seen)}});
        continue;
      }
      reference_used[found] = true;
      ++references.tp;
      ++group.tp;
    }
    for (std::size_t ref_idx = 0; ref_idx < output.references.size(); ++ref_idx) {
      if (reference_used[ref_idx]) continue;
      const PredictedSpan& predicted = output.references[ref_idx];
      ++references.fp;
      ++by_kind[predicted.kind].fp;
      references.false_positives.push_back(
          {{"turn", turn.id},
           {"text", SpanText(turn.text, predicted.begin, predicted.end)},
           {"actual", predicted.value}});
    }
  }

  io::Json facts_json = CountsJson(facts_all, true);
  facts_json["labelled"] = labelled_facts;
  facts_json["by_predicate"] = GroupJson(by_predicate);
  facts_json["validity"] = {{"checked", validity_checked},
                            {"correct", validity_correct},
                            {"accuracy", Round4(Ratio(validity_correct, validity_checked))},
                            {"errors", validity_errors}};
  io::Json times_json = CountsJson(times, true);
  // Normalisation accuracy: of the labelled expressions a detection overlaps, the share whose
  // value is right (the detection rate is the recall's other half).
  times_json["detected"] = times_detected;
  times_json["value_accuracy"] = Round4(Ratio(times.tp, times_detected));
  io::Json entities_json = CountsJson(entities, true);
  entities_json["by_type"] = GroupJson(by_type);
  entities_json["typing"] = {{"span_matched", typed},
                             {"type_right", typed_right},
                             {"accuracy", Round4(Ratio(typed_right, typed))}};
  io::Json references_json = CountsJson(references, true);
  references_json["by_kind"] = GroupJson(by_kind);
  references_json["accuracy"] = Round4(Ratio(references.tp, references.tp + references.fn));
  return {{"turns", count},
          {"facts", std::move(facts_json)},
          {"times", std::move(times_json)},
          {"entities", std::move(entities_json)},
          {"references", std::move(references_json)}};
}

io::Json ScoreProfileCases(std::span<const ProfileCase> cases, std::span<const CaseOutput> outputs) {
  Counts profile;
  std::map<std::string, Counts> profile_by_predicate;
  Counts foresight;
  const std::size_t count = std::min(cases.size(), outputs.size());
  for (std::size_t case_idx = 0; case_idx < count; ++case_idx) {
    const ProfileCase& entry = cases[case_idx];
    const CaseOutput& output = outputs[case_idx];
    std::vector<bool> used(output.profile.size(), false);
    for (const ProfileItem& label : entry.profile) {
      std::size_t found = output.profile.size();
      for (std::size_t item_idx = 0; item_idx < output.profile.size(); ++item_idx) {
        const ProfileItem& item = output.profile[item_idx];
        if (!used[item_idx] && item.predicate == label.predicate &&
            item.negated == label.negated &&
            NormalizeLabelText(item.person) == NormalizeLabelText(label.person) &&
            ObjectMatches(item.value, label.value, label.value_alt)) {
          found = item_idx;
          break;
        }
      }
      Counts& group = profile_by_predicate[label.predicate];
      if (found == output.profile.size()) {
        ++profile.fn;
        ++group.fn;
        profile.misses.push_back(
            {{"case", entry.id},
             {"expected", FactText(label.person, label.predicate, label.value, label.negated)}});
        continue;
      }
      used[found] = true;
      ++profile.tp;
      ++group.tp;
    }
    for (std::size_t item_idx = 0; item_idx < output.profile.size(); ++item_idx) {
      if (used[item_idx]) continue;
      const ProfileItem& item = output.profile[item_idx];
      ++profile.fp;
      ++profile_by_predicate[item.predicate].fp;
      profile.false_positives.push_back(
          {{"case", entry.id},
           {"actual", FactText(item.person, item.predicate, item.value, item.negated)}});
    }

    std::vector<bool> plan_used(output.foresight.size(), false);
    for (const LabelledFact& label : entry.foresight) {
      std::size_t found = output.foresight.size();
      for (std::size_t plan_idx = 0; plan_idx < output.foresight.size(); ++plan_idx) {
        if (!plan_used[plan_idx] && FactMatches(output.foresight[plan_idx], label, false)) {
          found = plan_idx;
          break;
        }
      }
      if (found == output.foresight.size()) {
        ++foresight.fn;
        foresight.misses.push_back(
            {{"case", entry.id},
             {"expected", FactText(label.subject, label.predicate, label.object, false)}});
        continue;
      }
      plan_used[found] = true;
      ++foresight.tp;
    }
    for (std::size_t plan_idx = 0; plan_idx < output.foresight.size(); ++plan_idx) {
      if (plan_used[plan_idx]) continue;
      const PredictedFact& plan = output.foresight[plan_idx];
      ++foresight.fp;
      foresight.false_positives.push_back(
          {{"case", entry.id},
           {"actual", FactText(plan.subject, plan.predicate, plan.object, false)}});
    }
  }
  io::Json profile_json = CountsJson(profile, true);
  profile_json["by_predicate"] = GroupJson(profile_by_predicate);
  return {{"cases", count},
          {"profile", std::move(profile_json)},
          {"foresight", CountsJson(foresight, true)}};
}

// ---- the run ----------------------------------------------------------------------------------

std::string DefaultUnderstandingDataDir() {
  if (const char* dir = std::getenv("ENGRAM_SOURCE_DIR"); dir != nullptr && *dir != '\0') {
    return (std::filesystem::path(dir) / "tests" / "data" / "understanding").string();
  }
#ifdef ENGRAM_UNDERSTANDING_DATA_DIR
  return ENGRAM_UNDERSTANDING_DATA_DIR;
#else
  return "tests/data/understanding";
#endif
}

namespace {

std::string Field(const io::Json& object, const char* name) {
  if (!object.is_object() || !object.contains(name) || !object[name].is_string()) return {};
  return object[name].get<std::string>();
}

// What derivation stored for one turn: its analysis row's date / time signals, its mentions and
// refers_to edges, and the facts derived from it (rejected candidates left out).
StatusOr<TurnOutput> ReadTurnOutput(Engine& engine, const std::string& turn_id,
                                    const std::string& text) {
  TurnOutput output;
  ASSIGN_OR_RETURN(const std::string analysis, engine.Analysis(turn_id));
  if (!analysis.empty()) {
    const io::Json row = io::ParseObject(analysis);
    if (row.contains("signals") && row["signals"].is_array()) {
      for (const io::Json& signal : row["signals"]) {
        const std::string kind = Field(signal, "kind");
        if (kind != "date" && kind != "time") continue;
        PredictedSpan span;
        span.begin = signal.value("begin", std::size_t{0});
        span.end = signal.value("end", std::size_t{0});
        span.value = Field(signal, "value");
        if (span.end > text.size() || span.begin >= span.end) continue;
        output.times.push_back(std::move(span));
      }
    }
  }
  ASSIGN_OR_RETURN(const std::vector<Link> links, engine.Links(turn_id));
  for (const Link& link : links) {
    const bool outgoing = link.src == turn_id;
    if (link.type == "derived_from" && !outgoing) {
      ASSIGN_OR_RETURN(const Memory fact, engine.Get(link.src));
      if (fact.kind != NodeKind::kFact || fact.status == NodeStatus::kRejected ||
          fact.status == NodeStatus::kRetired) {
        continue;
      }
      const io::Json fields = io::ParseObject(fact.metadata_json);
      output.facts.push_back({.subject = Field(fields, "subject"),
                              .predicate = Field(fields, "predicate"),
                              .object = Field(fields, "object"),
                              .negated = Field(fields, "polarity") == "-",
                              .valid_from = fact.valid_from,
                              .valid_to = fact.valid_to});
    } else if (link.type == "mentions" && outgoing) {
      ASSIGN_OR_RETURN(const Memory entity, engine.Get(link.dst));
      const std::string kind = Field(io::ParseObject(entity.metadata_json), "kind");
      const io::Json attrs = io::ParseObject(link.attrs_json);
      if (!attrs.contains("spans") || !attrs["spans"].is_array()) continue;
      for (const io::Json& pair : attrs["spans"]) {
        if (!pair.is_array() || pair.size() != 2 || !pair[0].is_number_unsigned() ||
            !pair[1].is_number_unsigned()) {
          continue;
        }
        PredictedSpan span{.begin = pair[0].get<std::size_t>(),
                           .end = pair[1].get<std::size_t>(),
                           .value = kind};
        if (span.end > text.size() || span.begin >= span.end) continue;
        output.entities.push_back(std::move(span));
      }
    } else if (link.type == "refers_to" && outgoing) {
      ASSIGN_OR_RETURN(const Memory target, engine.Get(link.dst));
      const io::Json attrs = io::ParseObject(link.attrs_json);
      if (!attrs.contains("references") || !attrs["references"].is_array()) continue;
      for (const io::Json& reference : attrs["references"]) {
        const std::string kind = Field(reference, "kind");
        if (kind != "person" && kind != "place" && kind != "time") continue;
        PredictedSpan span{.begin = reference.value("begin", std::size_t{0}),
                           .end = reference.value("end", std::size_t{0}),
                           .value = target.text,
                           .kind = kind};
        if (span.end > text.size() || span.begin >= span.end) continue;
        output.references.push_back(std::move(span));
      }
    }
  }
  const auto by_position = [](const PredictedSpan& a, const PredictedSpan& b) {
    return std::tie(a.begin, a.end, a.value) < std::tie(b.begin, b.end, b.value);
  };
  std::sort(output.times.begin(), output.times.end(), by_position);
  std::sort(output.entities.begin(), output.entities.end(), by_position);
  std::sort(output.references.begin(), output.references.end(), by_position);
  return output;
}

// The consolidated profiles' items and the foresight valid at `at`.
StatusOr<CaseOutput> ReadCaseOutput(Engine& engine, const Scope& scope, Timestamp at) {
  CaseOutput output;
  ListOptions profiles;
  profiles.kind = NodeKind::kProfile;
  profiles.limit = 100000;
  profiles.include_retired = false;
  ASSIGN_OR_RETURN(const std::vector<Memory> people, engine.List(scope, profiles));
  for (const Memory& person : people) {
    if (person.status != NodeStatus::kActive) continue;
    const io::Json fields = io::ParseObject(person.metadata_json);
    const std::string name = Field(fields, "name");
    if (fields.contains("explicit") && fields["explicit"].is_array()) {
      for (const io::Json& slot : fields["explicit"]) {
        if (!slot.is_object() || !slot.contains("current") || !slot["current"].is_object()) {
          continue;
        }
        output.profile.push_back({.person = name,
                                  .predicate = Field(slot, "predicate"),
                                  .value = Field(slot["current"], "object")});
      }
    }
    if (fields.contains("traits") && fields["traits"].is_array()) {
      for (const io::Json& trait : fields["traits"]) {
        output.profile.push_back({.person = name,
                                  .predicate = Field(trait, "predicate"),
                                  .value = Field(trait, "object"),
                                  .negated = Field(trait, "polarity") == "-"});
      }
    }
  }
  ListOptions facts;
  facts.kind = NodeKind::kFact;
  facts.limit = 100000;
  facts.include_retired = false;
  ASSIGN_OR_RETURN(const std::vector<Memory> stored, engine.List(scope, facts));
  for (const Memory& fact : stored) {
    if (fact.status != NodeStatus::kActive) continue;
    const io::Json fields = io::ParseObject(fact.metadata_json);
    if (Field(fields, "kind") != "foresight") continue;
    if (fact.valid_from.has_value() && at < *fact.valid_from) continue;
    if (fact.valid_to.has_value() && !(at < *fact.valid_to)) continue;
    output.foresight.push_back({.subject = Field(fields, "subject"),
                                .predicate = Field(fields, "predicate"),
                                .object = Field(fields, "object"),
                                .negated = Field(fields, "polarity") == "-",
                                .valid_from = fact.valid_from,
                                .valid_to = fact.valid_to});
  }
  return output;
}

// The scope name of a conversation or case: letters, digits and '-' only.
Scope UnderstandingScope(std::string_view split, std::string_view id) {
  std::string name = "understanding-" + std::string(split) + "-";
  for (const char c : id) {
    name.push_back(std::isalnum(static_cast<unsigned char>(c)) != 0 ? c : '-');
  }
  return Scope(ScopeKind::kWorld, std::move(name));
}

StatusOr<io::Json> RunSplit(Engine& engine, const std::string& data_dir, const std::string& split,
                            const UnderstandingOptions& options) {
  const std::string turns_path = (std::filesystem::path(data_dir) / ("turns_" + split + ".jsonl"))
                                     .string();
  const std::string cases_path =
      (std::filesystem::path(data_dir) / ("profile_" + split + ".jsonl")).string();
  ASSIGN_OR_RETURN(std::vector<LabelledTurn> turns, ReadLabelledTurns(turns_path));
  ASSIGN_OR_RETURN(std::vector<ProfileCase> cases, ReadProfileCases(cases_path));

  // Conversations in file order; a conversation's turns need not be adjacent in the file.
  std::vector<std::string> conversations;
  std::map<std::string, std::vector<std::size_t>> members;
  for (std::size_t turn_idx = 0; turn_idx < turns.size(); ++turn_idx) {
    auto [it, added] = members.try_emplace(turns[turn_idx].conversation);
    if (added) conversations.push_back(turns[turn_idx].conversation);
    it->second.push_back(turn_idx);
  }
  if (options.limit > 0 && conversations.size() > options.limit) {
    conversations.resize(options.limit);
  }
  if (options.limit > 0 && cases.size() > options.limit) cases.resize(options.limit);

  std::size_t turn_total = 0;
  for (const std::string& conversation : conversations) turn_total += members[conversation].size();
  Progress progress(options.progress, options.progress_interactive, "understanding " + split,
                    "conversations", conversations.size() + cases.size(),
                    turn_total + cases.size());

  std::vector<LabelledTurn> scored_turns;
  std::vector<TurnOutput> outputs;
  for (const std::string& conversation : conversations) {
    progress.StartGroup(conversation);
    std::vector<Turn> batch;
    for (const std::size_t turn_idx : members[conversation]) {
      const LabelledTurn& labelled = turns[turn_idx];
      Turn turn;
      turn.role = labelled.role;
      turn.speaker = labelled.speaker;
      turn.text = labelled.text;
      turn.session_id = labelled.session.empty() ? "s1" : labelled.session;
      turn.event_time = labelled.time;
      batch.push_back(std::move(turn));
    }
    const Scope scope = UnderstandingScope(split, conversation);
    ASSIGN_OR_RETURN(const RememberResult stored,
                     engine.Remember(scope, batch, {.wait = RememberWait::kDerived}));
    if (stored.ids.size() != batch.size()) {
      return Status::Internal("bench understanding: " + conversation + ": stored " +
                              std::to_string(stored.ids.size()) + " of " +
                              std::to_string(batch.size()) + " turns");
    }
    for (std::size_t k = 0; k < batch.size(); ++k) {
      const LabelledTurn& labelled = turns[members[conversation][k]];
      ASSIGN_OR_RETURN(TurnOutput output, ReadTurnOutput(engine, stored.ids[k], labelled.text));
      scored_turns.push_back(labelled);
      outputs.push_back(std::move(output));
      progress.QuestionDone();
    }
  }

  std::vector<CaseOutput> case_outputs;
  for (const ProfileCase& entry : cases) {
    progress.StartGroup(entry.id);
    std::vector<Turn> batch;
    for (const CaseTurn& labelled : entry.turns) {
      Turn turn;
      turn.role = labelled.role;
      turn.speaker = labelled.speaker;
      turn.text = labelled.text;
      turn.session_id = "s1";
      turn.event_time = labelled.time;
      batch.push_back(std::move(turn));
    }
    const Scope scope = UnderstandingScope(split, "case-" + entry.id);
    RETURN_IF_ERROR(engine.Remember(scope, batch, {.wait = RememberWait::kDerived}).status());
    RETURN_IF_ERROR(engine.Consolidate(scope).status());
    ASSIGN_OR_RETURN(CaseOutput output, ReadCaseOutput(engine, scope, entry.at));
    case_outputs.push_back(std::move(output));
    progress.QuestionDone();
  }
  progress.Finish();
  return io::Json{{"files", {turns_path, cases_path}},
                  {"conversations", conversations.size()},
                  {"turns", ScoreTurns(scored_turns, outputs)},
                  {"cases", ScoreProfileCases(cases, case_outputs)}};
}

}  // namespace

StatusOr<io::Json> RunUnderstandingBench(const UnderstandingOptions& options) {
  std::vector<std::string> splits;
  if (options.split == "all") {
    splits = {"dev", "test"};
  } else if (options.split == "dev" || options.split == "test") {
    splits = {options.split};
  } else {
    return Status::InvalidArgument("bench understanding: --split must be dev, test or all, not \"" +
                                   options.split + "\"");
  }
  const std::string data_dir =
      options.data_dir.empty() ? DefaultUnderstandingDataDir() : options.data_dir;
  BenchOptions store_options;
  store_options.config_file = options.config_file;
  store_options.data_dir = options.engine_data_dir;
  ASSIGN_OR_RETURN(std::unique_ptr<internal::BenchStore> store,
                   internal::BenchStore::Open(store_options));
  io::Json report = {{"benchmark", "understanding"},
                     {"engram_version", EngineVersion()},
                     {"data", data_dir},
                     {"splits", io::Json::object()}};
  for (const std::string& split : splits) {
    ASSIGN_OR_RETURN(report["splits"][split], RunSplit(store->engine(), data_dir, split, options));
  }
  return report;
}

namespace {

std::string Fixed3(const io::Json& value) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(3) << (value.is_number() ? value.get<double>() : 0.0);
  return out.str();
}

void Row(std::ostream& out, std::string_view name, const io::Json& counts) {
  std::string label(name);
  label.resize(std::max<std::size_t>(label.size(), 28), ' ');
  out << "  " << label << "P " << Fixed3(counts["precision"]) << "  R "
      << Fixed3(counts["recall"]) << "  F1 " << Fixed3(counts["f1"]) << "   (tp "
      << counts["tp"].dump() << ", fp " << counts["fp"].dump() << ", fn " << counts["fn"].dump()
      << ")\n";
}

void Listed(std::ostream& out, std::string_view title, const io::Json& entries,
            std::size_t max_listed) {
  if (!entries.is_array() || entries.empty()) return;
  out << "    " << title << " (" << entries.size() << "):\n";
  std::size_t shown = 0;
  for (const io::Json& entry : entries) {
    if (max_listed > 0 && shown++ == max_listed) {
      out << "      ...\n";
      break;
    }
    out << "      " << entry.dump() << "\n";
  }
}

}  // namespace

void PrintUnderstandingReport(const io::Json& report, std::ostream& out, std::size_t max_listed) {
  for (const auto& [split, figures] : report["splits"].items()) {
    const io::Json& turns = figures["turns"];
    const io::Json& cases = figures["cases"];
    out << "understanding " << split << ": " << turns["turns"].dump() << " turns in "
        << figures["conversations"].dump() << " conversations, " << cases["cases"].dump()
        << " profile / foresight cases\n";
    Row(out, "facts", turns["facts"]);
    out << "  fact validity: " << turns["facts"]["validity"]["correct"].dump() << " of "
        << turns["facts"]["validity"]["checked"].dump() << " ends right\n";
    Row(out, "times", turns["times"]);
    out << "  time values right where detected: " << Fixed3(turns["times"]["value_accuracy"])
        << " (" << turns["times"]["tp"].dump() << " of " << turns["times"]["detected"].dump()
        << ")\n";
    Row(out, "entities", turns["entities"]);
    Row(out, "references", turns["references"]);
    Row(out, "profile", cases["profile"]);
    Row(out, "foresight", cases["foresight"]);
    out << "  facts by predicate:\n";
    for (const auto& [predicate, counts] : turns["facts"]["by_predicate"].items()) {
      Row(out, "  " + predicate, counts);
    }
    out << "  entities by type:\n";
    for (const auto& [type, counts] : turns["entities"]["by_type"].items()) {
      Row(out, "  " + type, counts);
    }
    out << "  references by kind:\n";
    for (const auto& [kind, counts] : turns["references"]["by_kind"].items()) {
      Row(out, "  " + kind, counts);
    }
    for (const auto& [family, source] :
         {std::pair{"facts", &turns}, std::pair{"times", &turns}, std::pair{"entities", &turns},
          std::pair{"references", &turns}, std::pair{"profile", &cases},
          std::pair{"foresight", &cases}}) {
      out << "  " << family << ":\n";
      Listed(out, "misses", (*source)[family]["misses"], max_listed);
      Listed(out, "false positives", (*source)[family]["false_positives"], max_listed);
    }
  }
}

}  // namespace engram::eval
