// longmemeval: LongMemEval JSON → one scope of turns per question, parsed question by question.
#include "io/longmemeval.h"

#include "core/json_depth.h"

#include <cctype>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <utility>

#include "core/utf8.h"
#include "io/file_reader.h"
#include "io/json_util.h"

namespace engram::io {
namespace {

using nlohmann::json;

// Thrown from the parser callback to stop parsing at the first bad question; never escapes.
struct StopParsing {};

Status Bad(std::string_view problem) { return Status::InvalidArgument(std::string(problem)); }

StatusOr<std::string> RequiredString(const json& object, std::string_view field) {
  const auto it = object.find(field);
  if (it == object.end()) return Bad("\"" + std::string(field) + "\" is missing");
  if (!it->is_string()) {
    return Bad("\"" + std::string(field) + "\" must be a string, got " +
               std::string(internal::JsonTypeName(*it)));
  }
  return it->get<std::string>();
}

StatusOr<std::vector<std::string>> StringList(const json& object, std::string_view field,
                                              bool required) {
  std::vector<std::string> list;
  const auto it = object.find(field);
  if (it == object.end() || it->is_null()) {
    if (required) return Bad("\"" + std::string(field) + "\" is missing");
    return list;
  }
  if (!it->is_array()) return Bad("\"" + std::string(field) + "\" must be an array of strings");
  for (const json& item : *it) {
    if (!item.is_string()) return Bad("\"" + std::string(field) + "\" must be an array of strings");
    list.push_back(item.get<std::string>());
  }
  return list;
}

bool EndsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

StatusOr<std::vector<Turn>> ParseSession(const json& session, const std::string& session_id,
                                         Timestamp date, LongMemEvalInstance* instance) {
  if (!session.is_array()) return Bad("expected an array of turns");
  std::vector<Turn> turns;
  turns.reserve(session.size());
  int turn_index = 0;
  for (const json& entry : session) {
    ++turn_index;
    const std::string where = "turn " + std::to_string(turn_index);
    if (!entry.is_object()) return Bad(where + ": expected an object");
    StatusOr<std::string> role_name = RequiredString(entry, "role");
    if (!role_name.ok()) return role_name.status().WithContext(where);
    StatusOr<Role> role = ParseRole(*role_name);
    if (!role.ok()) return role.status().WithContext(where);
    StatusOr<std::string> content = RequiredString(entry, "content");
    if (!content.ok()) return content.status().WithContext(where);
    if (core::IsBlank(*content)) {
      // The files hold a few assistant turns that are only a zero-width space.
      ++instance->skipped_blank_turns;
      continue;
    }
    Turn turn;
    turn.role = *role;
    turn.text = *std::move(content);
    turn.session_id = session_id;
    turn.event_time = date;
    json metadata = json::object();
    metadata["session_id"] = session_id;
    metadata["turn_index"] = turn_index;
    if (const auto has_answer = entry.find("has_answer");
        has_answer != entry.end() && has_answer->is_boolean() && has_answer->get<bool>()) {
      metadata["has_answer"] = true;
      ++instance->answer_turns;
    }
    turn.metadata_json = metadata.dump();
    turns.push_back(std::move(turn));
  }
  return turns;
}

StatusOr<LongMemEvalInstance> ParseInstance(const json& item) {
  if (!item.is_object()) {
    return Bad("expected a question object, got " + std::string(internal::JsonTypeName(item)));
  }
  LongMemEvalInstance instance;
  LongMemEvalQuestion& question = instance.question;
  ASSIGN_OR_RETURN(question.question_id, RequiredString(item, "question_id"));
  ASSIGN_OR_RETURN(instance.scope, LongMemEvalScope(question.question_id));
  question.abstention = EndsWith(question.question_id, "_abs");
  ASSIGN_OR_RETURN(question.question_type, RequiredString(item, "question_type"));
  ASSIGN_OR_RETURN(question.question, RequiredString(item, "question"));
  if (const auto answer = item.find("answer"); answer != item.end() && !answer->is_null()) {
    if (answer->is_string()) {
      question.answer = answer->get<std::string>();
    } else if (answer->is_number()) {
      question.answer = answer->dump();
    } else {
      return Bad("\"answer\" must be a string or a number");
    }
  }
  ASSIGN_OR_RETURN(question.question_date_text, RequiredString(item, "question_date"));
  StatusOr<Timestamp> question_date = ParseLongMemEvalDate(question.question_date_text);
  if (!question_date.ok()) return question_date.status().WithContext("question_date");
  question.question_date = *question_date;
  ASSIGN_OR_RETURN(question.answer_session_ids,
                   StringList(item, "answer_session_ids", /*required=*/false));
  ASSIGN_OR_RETURN(instance.haystack_session_ids,
                   StringList(item, "haystack_session_ids", /*required=*/true));
  ASSIGN_OR_RETURN(const std::vector<std::string> date_texts,
                   StringList(item, "haystack_dates", /*required=*/true));
  const auto sessions = item.find("haystack_sessions");
  if (sessions == item.end() || !sessions->is_array()) {
    return Bad("\"haystack_sessions\" must be an array of sessions");
  }
  if (date_texts.size() != sessions->size() ||
      instance.haystack_session_ids.size() != sessions->size()) {
    return Bad("haystack_sessions, haystack_session_ids and haystack_dates differ in length (" +
               std::to_string(sessions->size()) + ", " +
               std::to_string(instance.haystack_session_ids.size()) + ", " +
               std::to_string(date_texts.size()) + ")");
  }
  for (std::size_t session_idx = 0; session_idx < sessions->size(); ++session_idx) {
    const std::string& session_id = instance.haystack_session_ids[session_idx];
    const std::string where = "haystack session " + std::to_string(session_idx + 1) + " (" +
                              internal::Truncate(session_id, 64) + ")";
    StatusOr<Timestamp> date = ParseLongMemEvalDate(date_texts[session_idx]);
    if (!date.ok()) return date.status().WithContext(where);
    instance.haystack_dates.push_back(*date);
    StatusOr<std::vector<Turn>> turns =
        ParseSession((*sessions)[session_idx], session_id, *date, &instance);
    if (!turns.ok()) return turns.status().WithContext(where);
    for (Turn& turn : *turns) instance.turns.push_back(std::move(turn));
  }
  return instance;
}

}  // namespace

StatusOr<Scope> LongMemEvalScope(std::string_view question_id) {
  Scope scope(ScopeKind::kWorld, "lme-" + std::string(question_id));
  if (Status status = scope.Validate(); !status.ok()) {
    return Bad("question_id \"" + internal::Truncate(question_id, 64) +
               "\" cannot name a scope: " + status.message());
  }
  return scope;
}

StatusOr<Timestamp> ParseLongMemEvalDate(std::string_view text) {
  const auto bad = [&](std::string_view problem) {
    return Bad("bad LongMemEval date \"" + internal::Truncate(text, 64) +
               "\": " + std::string(problem) + " (expected e.g. \"2023/05/20 (Sat) 02:21\")");
  };
  std::size_t pos = 0;
  const auto number = [&](std::size_t digits, int* value) {
    *value = 0;
    for (std::size_t digit_idx = 0; digit_idx < digits; ++digit_idx, ++pos) {
      if (pos >= text.size() || !std::isdigit(static_cast<unsigned char>(text[pos]))) return false;
      *value = *value * 10 + (text[pos] - '0');
    }
    return true;
  };
  const auto eat = [&](char c) {
    if (pos < text.size() && text[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  };
  const auto skip_spaces = [&] {
    while (pos < text.size() && text[pos] == ' ') ++pos;
  };
  int year = 0, month = 0, day = 0, hour = 0, minute = 0;
  skip_spaces();
  if (!number(4, &year) || !eat('/') || !number(2, &month) || !eat('/') || !number(2, &day)) {
    return bad("date must be YYYY/MM/DD");
  }
  skip_spaces();
  if (eat('(')) {
    while (pos < text.size() && text[pos] != ')') ++pos;
    if (!eat(')')) return bad("unclosed weekday");
    skip_spaces();
  }
  if (!number(2, &hour) || !eat(':') || !number(2, &minute)) return bad("time must be HH:MM");
  skip_spaces();
  if (pos != text.size()) return bad("unexpected trailing characters");
  char iso[64];
  std::snprintf(iso, sizeof(iso), "%04d-%02d-%02dT%02d:%02d:00Z", year, month, day, hour, minute);
  StatusOr<Timestamp> time = ParseTimestamp(iso);
  if (!time.ok()) return bad(time.status().message());
  return time;
}

Status ForEachLongMemEval(std::string_view json_text, std::string_view source_name,
                          const std::function<Status(LongMemEvalInstance&&)>& visit) {
  const std::string source(source_name.empty() ? "<input>" : source_name);
  if (core::JsonNestingDepth(json_text, internal::kMaxJsonDepth) > internal::kMaxJsonDepth) {
    return Bad(source + ": JSON nested deeper than " + std::to_string(internal::kMaxJsonDepth) +
               " levels");
  }
  const std::size_t first = json_text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || json_text[first] != '[') {
    return Bad(source + ": expected a JSON array of LongMemEval questions");
  }
  Status failure;
  std::size_t question_idx = 0;
  internal::DuplicateKeyFinder duplicates;
  const json::parser_callback_t callback = [&](int depth, json::parse_event_t event,
                                               json& parsed) -> bool {
    duplicates.Observe(event, parsed);
    if (!duplicates.duplicate().empty()) {
      failure = Status::InvalidArgument(source + ": question " + std::to_string(question_idx + 1) +
                                        ": invalid JSON: the key \"" +
                                        internal::Truncate(duplicates.duplicate(), 64) +
                                        "\" appears twice in one object");
      throw StopParsing{};
    }
    if (depth != 1) return true;
    if (event != json::parse_event_t::object_end && event != json::parse_event_t::value &&
        event != json::parse_event_t::array_end) {
      return true;
    }
    std::string where = source + ": question " + std::to_string(question_idx + 1);
    if (parsed.is_object() && parsed.contains("question_id") && parsed["question_id"].is_string()) {
      where += " (id " +
               internal::Truncate(parsed["question_id"].get_ref<const std::string&>(), 64) + ")";
    }
    ++question_idx;
    StatusOr<LongMemEvalInstance> instance = ParseInstance(parsed);
    if (!instance.ok()) {
      failure = instance.status().WithContext(where);
      throw StopParsing{};
    }
    if (Status status = visit(*std::move(instance)); !status.ok()) {
      failure = std::move(status);
      throw StopParsing{};
    }
    return false;  // the question is converted: drop its JSON
  };
  try {
    [[maybe_unused]] const json root = json::parse(json_text, callback);
  } catch (const StopParsing&) {
    return failure;
  } catch (const json::exception& error) {
    return Bad(source + ": invalid JSON: " + internal::DescribeJsonError(error, false));
  }
  return Status::Ok();
}

StatusOr<std::vector<LongMemEvalInstance>> ParseLongMemEval(std::string_view json_text,
                                                            std::string_view source_name) {
  std::vector<LongMemEvalInstance> instances;
  RETURN_IF_ERROR(ForEachLongMemEval(json_text, source_name, [&](LongMemEvalInstance&& instance) {
    instances.push_back(std::move(instance));
    return Status::Ok();
  }));
  return instances;
}

StatusOr<std::vector<LongMemEvalInstance>> ReadLongMemEval(std::string_view path) {
  ASSIGN_OR_RETURN(const std::string text, ReadFile(path));
  return ParseLongMemEval(text, DisplayName(path));
}

}  // namespace engram::io
