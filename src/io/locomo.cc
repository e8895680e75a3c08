// locomo: LoCoMo JSON → turns (one scope per conversation) and questions.
#include "io/locomo.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>
#include <utility>

#include "core/utf8.h"
#include "io/file_reader.h"
#include "io/json_util.h"

namespace engram::io {
namespace {

using nlohmann::json;

constexpr std::array<std::string_view, 12> kMonths = {
    "january", "february", "march",     "april",   "may",      "june",
    "july",    "august",   "september", "october", "november", "december"};

// A tiny cursor over the date text.
class Cursor {
 public:
  explicit Cursor(std::string_view text) : text_(text) {}
  void SkipSpaces() {
    while (pos_ < text_.size() && text_[pos_] == ' ') ++pos_;
  }
  bool Done() const { return pos_ == text_.size(); }
  bool Eat(char c) {
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  // 1 to max_digits decimal digits.
  bool Number(std::size_t max_digits, int* value) {
    std::size_t digits = 0;
    *value = 0;
    while (pos_ < text_.size() && digits < max_digits &&
           std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
      *value = *value * 10 + (text_[pos_] - '0');
      ++pos_;
      ++digits;
    }
    return digits > 0;
  }
  // A run of ASCII letters, lowercased.
  std::string Word() {
    std::string word;
    while (pos_ < text_.size() && std::isalpha(static_cast<unsigned char>(text_[pos_]))) {
      word += static_cast<char>(std::tolower(static_cast<unsigned char>(text_[pos_])));
      ++pos_;
    }
    return word;
  }

 private:
  std::string_view text_;
  std::size_t pos_ = 0;
};

Status BadDate(std::string_view text, std::string_view problem) {
  return Status::InvalidArgument("bad LoCoMo date \"" + internal::Truncate(text, 64) +
                                 "\": " + std::string(problem) +
                                 " (expected e.g. \"1:56 pm on 8 May, 2023\")");
}

// "session_12" → 12; "session_12_date_time" and anything else → 0.
int SessionNumber(std::string_view key) {
  constexpr std::string_view kPrefix = "session_";
  if (key.substr(0, kPrefix.size()) != kPrefix) return 0;
  key.remove_prefix(kPrefix.size());
  // No leading zero: the caller looks the session up again as "session_<number>", so
  // "session_05" must not count as session 5 (found by fuzzing: a lookup of a missing key).
  if (key.empty() || key.size() > 6 || key[0] == '0') return 0;
  int number = 0;
  for (const char c : key) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return 0;
    number = number * 10 + (c - '0');
  }
  return number;
}

bool IsDiaId(std::string_view token) {
  if (token.size() < 4 || token[0] != 'D') return false;
  const std::size_t colon = token.find(':');
  if (colon == std::string_view::npos || colon == 1 || colon + 1 == token.size()) return false;
  for (std::size_t char_idx = 1; char_idx < token.size(); ++char_idx) {
    if (char_idx == colon) continue;
    if (!std::isdigit(static_cast<unsigned char>(token[char_idx]))) return false;
  }
  return true;
}

// "a string" or a number written as JSON ("2022"); anything else is an error.
StatusOr<std::string> StringOrNumber(const json& value, std::string_view field) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_number()) return value.dump();
  return Status::InvalidArgument("\"" + std::string(field) +
                                 "\" must be a string or a number, got " +
                                 std::string(internal::JsonTypeName(value)));
}

StatusOr<std::string> RequiredString(const json& object, std::string_view field) {
  const auto it = object.find(field);
  if (it == object.end())
    return Status::InvalidArgument("\"" + std::string(field) + "\" is missing");
  if (!it->is_string()) {
    return Status::InvalidArgument("\"" + std::string(field) + "\" must be a string, got " +
                                   std::string(internal::JsonTypeName(*it)));
  }
  return it->get<std::string>();
}

StatusOr<std::vector<Turn>> ParseSession(const json& session, int session_number,
                                         std::optional<Timestamp> session_time,
                                         std::size_t* skipped_blank_turns) {
  std::vector<Turn> turns;
  turns.reserve(session.size());
  const std::string session_key = "session_" + std::to_string(session_number);
  int turn_index = 0;
  for (const json& entry : session) {
    ++turn_index;
    const std::string where = session_key + " turn " + std::to_string(turn_index);
    if (!entry.is_object()) {
      return Status::InvalidArgument(where + ": expected an object, got " +
                                     std::string(internal::JsonTypeName(entry)));
    }
    StatusOr<std::string> speaker = RequiredString(entry, "speaker");
    if (!speaker.ok()) return speaker.status().WithContext(where);
    StatusOr<std::string> text = RequiredString(entry, "text");
    if (!text.ok()) return text.status().WithContext(where);
    std::string dia_id;
    if (const auto it = entry.find("dia_id"); it != entry.end() && it->is_string()) {
      dia_id = it->get<std::string>();
    }
    Turn turn;
    turn.role = Role::kUser;
    turn.speaker = *std::move(speaker);
    turn.text = *std::move(text);
    if (const auto caption = entry.find("blip_caption");
        caption != entry.end() && caption->is_string() &&
        !caption->get_ref<const std::string&>().empty()) {
      if (!turn.text.empty()) turn.text += ' ';
      turn.text += "[shares an image: " + caption->get<std::string>() + "]";
    }
    if (core::IsBlank(turn.text)) {
      ++*skipped_blank_turns;
      continue;
    }
    turn.session_id = session_key;
    turn.event_time = session_time;
    json metadata = json::object();
    metadata["dia_id"] = dia_id;
    metadata["session"] = session_number;
    metadata["turn_index"] = turn_index;
    turn.metadata_json = metadata.dump();
    turns.push_back(std::move(turn));
  }
  return turns;
}

StatusOr<LocomoQuestion> ParseQuestion(const json& entry) {
  if (!entry.is_object()) {
    return Status::InvalidArgument("expected an object, got " +
                                   std::string(internal::JsonTypeName(entry)));
  }
  LocomoQuestion question;
  ASSIGN_OR_RETURN(question.question, RequiredString(entry, "question"));
  if (const auto it = entry.find("answer"); it != entry.end() && !it->is_null()) {
    ASSIGN_OR_RETURN(question.answer, StringOrNumber(*it, "answer"));
  }
  if (const auto it = entry.find("adversarial_answer"); it != entry.end() && !it->is_null()) {
    ASSIGN_OR_RETURN(question.adversarial_answer, StringOrNumber(*it, "adversarial_answer"));
  }
  if (const auto it = entry.find("category"); it != entry.end()) {
    if (!it->is_number_integer()) {
      return Status::InvalidArgument("\"category\" must be an integer, got " +
                                     std::string(internal::JsonTypeName(*it)));
    }
    question.category = it->get<int>();
  }
  if (const auto it = entry.find("evidence"); it != entry.end() && !it->is_null()) {
    if (!it->is_array()) {
      return Status::InvalidArgument("\"evidence\" must be an array, got " +
                                     std::string(internal::JsonTypeName(*it)));
    }
    std::vector<std::string> raw;
    for (const json& item : *it) {
      if (item.is_string()) raw.push_back(item.get<std::string>());
    }
    question.evidence = CleanLocomoEvidence(raw);
  }
  return question;
}

StatusOr<LocomoConversation> ParseConversation(const json& sample) {
  if (!sample.is_object()) {
    return Status::InvalidArgument("expected a conversation object, got " +
                                   std::string(internal::JsonTypeName(sample)));
  }
  LocomoConversation conversation;
  ASSIGN_OR_RETURN(conversation.sample_id, RequiredString(sample, "sample_id"));
  StatusOr<Scope> scope = LocomoScope(conversation.sample_id);
  if (!scope.ok()) return scope.status();
  conversation.scope = *std::move(scope);

  const auto body = sample.find("conversation");
  if (body == sample.end() || !body->is_object()) {
    return Status::InvalidArgument("\"conversation\" must be an object");
  }
  for (const char* key : {"speaker_a", "speaker_b"}) {
    if (const auto it = body->find(key); it != body->end() && it->is_string()) {
      conversation.speakers.push_back(it->get<std::string>());
    }
  }
  // nlohmann::json orders keys as strings (session_10 < session_2): sort sessions numerically.
  std::vector<int> session_numbers;
  for (const auto& [key, value] : body->items()) {
    const int number = SessionNumber(key);
    if (number == 0) continue;
    if (!value.is_array()) {
      return Status::InvalidArgument("\"" + key + "\" must be an array of turns");
    }
    session_numbers.push_back(number);
  }
  std::sort(session_numbers.begin(), session_numbers.end());
  for (const int number : session_numbers) {
    const std::string key = "session_" + std::to_string(number);
    std::optional<Timestamp> session_time;
    if (const auto date = body->find(key + "_date_time");
        date != body->end() && date->is_string()) {
      StatusOr<Timestamp> parsed = ParseLocomoDateTime(date->get_ref<const std::string&>());
      if (!parsed.ok()) return parsed.status().WithContext(key + "_date_time");
      session_time = *parsed;
    }
    ASSIGN_OR_RETURN(std::vector<Turn> turns, ParseSession((*body)[key], number, session_time,
                                                           &conversation.skipped_blank_turns));
    for (Turn& turn : turns) conversation.turns.push_back(std::move(turn));
  }

  if (const auto qa = sample.find("qa"); qa != sample.end() && !qa->is_null()) {
    if (!qa->is_array()) return Status::InvalidArgument("\"qa\" must be an array");
    std::size_t question_number = 0;
    for (const json& entry : *qa) {
      ++question_number;
      StatusOr<LocomoQuestion> question = ParseQuestion(entry);
      if (!question.ok()) {
        return question.status().WithContext("qa[" + std::to_string(question_number - 1) + "]");
      }
      conversation.questions.push_back(*std::move(question));
    }
  }
  return conversation;
}

}  // namespace

StatusOr<Scope> LocomoScope(std::string_view sample_id) {
  Scope scope(ScopeKind::kWorld, "locomo-" + std::string(sample_id));
  if (Status status = scope.Validate(); !status.ok()) {
    return Status::InvalidArgument("sample_id \"" + internal::Truncate(sample_id, 64) +
                                   "\" cannot name a scope: " + status.message());
  }
  return scope;
}

StatusOr<Timestamp> ParseLocomoDateTime(std::string_view text) {
  Cursor cursor(text);
  cursor.SkipSpaces();
  int hour = 0;
  int minute = 0;
  if (!cursor.Number(2, &hour) || !cursor.Eat(':') || !cursor.Number(2, &minute)) {
    return BadDate(text, "time must be H:MM");
  }
  if (hour < 1 || hour > 12 || minute > 59) return BadDate(text, "time out of range");
  cursor.SkipSpaces();
  const std::string meridiem = cursor.Word();
  if (meridiem != "am" && meridiem != "pm") return BadDate(text, "expected am or pm");
  const int hour24 = hour % 12 + (meridiem == "pm" ? 12 : 0);
  cursor.SkipSpaces();
  if (cursor.Word() != "on") return BadDate(text, "expected \"on\"");
  cursor.SkipSpaces();
  int day = 0;
  if (!cursor.Number(2, &day)) return BadDate(text, "expected a day of the month");
  cursor.SkipSpaces();
  const std::string month_name = cursor.Word();
  int month = 0;
  for (std::size_t month_idx = 0; month_idx < kMonths.size(); ++month_idx) {
    if (month_name == kMonths[month_idx] ||
        (month_name.size() == 3 && kMonths[month_idx].substr(0, 3) == month_name)) {
      month = static_cast<int>(month_idx) + 1;
    }
  }
  if (month == 0) return BadDate(text, "unknown month");
  cursor.Eat(',');
  cursor.SkipSpaces();
  int year = 0;
  if (!cursor.Number(4, &year) || year < 1000) return BadDate(text, "expected a four-digit year");
  cursor.SkipSpaces();
  if (!cursor.Done()) return BadDate(text, "unexpected trailing characters");
  char iso[64];
  std::snprintf(iso, sizeof(iso), "%04d-%02d-%02dT%02d:%02d:00Z", year, month, day, hour24, minute);
  StatusOr<Timestamp> time = ParseTimestamp(iso);
  if (!time.ok()) return BadDate(text, time.status().message());
  return time;
}

std::vector<std::string> CleanLocomoEvidence(const std::vector<std::string>& raw) {
  std::vector<std::string> cleaned;
  for (const std::string& entry : raw) {
    std::size_t start = 0;
    while (start <= entry.size()) {
      const std::size_t end = entry.find_first_of(";, ", start);
      const std::string_view token = std::string_view(entry).substr(
          start, (end == std::string::npos ? entry.size() : end) - start);
      if (IsDiaId(token) && std::find(cleaned.begin(), cleaned.end(), token) == cleaned.end()) {
        cleaned.emplace_back(token);
      }
      if (end == std::string::npos) break;
      start = end + 1;
    }
  }
  return cleaned;
}

StatusOr<std::vector<LocomoConversation>> ParseLocomo(std::string_view json_text,
                                                      std::string_view source_name) {
  const std::string source(source_name.empty() ? "<input>" : source_name);
  StatusOr<json> document = internal::ParseJson(json_text, /*single_line=*/false);
  if (!document.ok()) return document.status().WithContext(source);
  std::vector<LocomoConversation> conversations;
  const json samples =
      document->is_object() ? json::array({*std::move(document)}) : *std::move(document);
  if (!samples.is_array()) {
    return Status::InvalidArgument(source + ": expected a JSON array of LoCoMo conversations");
  }
  std::size_t sample_idx = 0;
  for (const json& sample : samples) {
    StatusOr<LocomoConversation> conversation = ParseConversation(sample);
    if (!conversation.ok()) {
      std::string where = source + ": conversation " + std::to_string(sample_idx);
      if (sample.is_object() && sample.contains("sample_id") && sample["sample_id"].is_string()) {
        where +=
            " (" + internal::Truncate(sample["sample_id"].get_ref<const std::string&>(), 64) + ")";
      }
      return conversation.status().WithContext(where);
    }
    conversations.push_back(*std::move(conversation));
    ++sample_idx;
  }
  return conversations;
}

StatusOr<std::vector<LocomoConversation>> ReadLocomo(std::string_view path) {
  ASSIGN_OR_RETURN(const std::string text, ReadFile(path));
  return ParseLocomo(text, DisplayName(path));
}

}  // namespace engram::io
