// Reference resolution (see references.h).
#include "write/references.h"

#include <algorithm>
#include <array>

namespace engram::write {
namespace {

template <std::size_t N>
bool In(const std::array<std::string_view, N>& list, std::string_view word) {
  return std::find(list.begin(), list.end(), word) != list.end();
}

constexpr std::array<std::string_view, 4> kMalePronouns = {"he", "him", "his", "himself"};
constexpr std::array<std::string_view, 4> kFemalePronouns = {"she", "her", "hers", "herself"};
constexpr std::array<std::string_view, 4> kSecondPerson = {"you", "your", "yours", "yourself"};
constexpr std::array<std::string_view, 27> kExistentialNext = {
    "is",    "are",  "was",   "were",  "'s",     "will",   "has",   "have",  "had",
    "might", "may",  "must",  "should", "could",  "would",  "seem",  "seems", "seemed",
    "used",  "isn't", "aren't", "wasn't", "weren't", "be",   "'re",   "ain't", "'ll"};
constexpr std::array<std::string_view, 3> kGreetings = {"hi", "hello", "hey"};
constexpr std::array<std::string_view, 7> kThatTimeNouns = {"day",   "night", "week", "weekend",
                                                            "month", "year",  "time"};
constexpr std::array<std::string_view, 5> kThenHeads = {"back", "since", "until", "by", "till"};

bool IsWord(const std::vector<text::Lexeme>& lexemes, std::size_t index) {
  return index < lexemes.size() && lexemes[index].kind == text::LexemeKind::kWord;
}

}  // namespace

std::string_view FocusKindName(FocusKind kind) {
  switch (kind) {
    case FocusKind::kPerson: return "person";
    case FocusKind::kPlace: return "place";
    case FocusKind::kTime: return "time";
    case FocusKind::kAddressee: return "addressee";
  }
  return "person";
}

void FocusState::BeginTurn(std::string_view session_id, std::string_view speaker_id) {
  if (session_id != session_id_) {
    people_.clear();
    places_.clear();
    times_.clear();
    speakers_.clear();
    session_id_ = std::string(session_id);
  }
  ++turn_;
  speaker_id_ = std::string(speaker_id);
}

void FocusState::Push(std::deque<Item>& stack, std::size_t limit, Item item) {
  stack.erase(std::remove_if(stack.begin(), stack.end(),
                             [&](const Item& existing) { return existing.id == item.id; }),
              stack.end());
  stack.push_front(std::move(item));
  while (stack.size() > limit) stack.pop_back();
}

void FocusState::Commit(const std::vector<TurnMention>& mentions) {
  for (const TurnMention& mention : mentions) {
    Item item{mention.target_id, mention.gender, turn_};
    switch (mention.kind) {
      case FocusKind::kPerson: Push(people_, options_.entity_limit, std::move(item)); break;
      case FocusKind::kPlace: Push(places_, options_.place_limit, std::move(item)); break;
      case FocusKind::kTime: Push(times_, options_.time_limit, std::move(item)); break;
      case FocusKind::kAddressee: break;
    }
  }
  if (!speaker_id_.empty()) {
    Push(speakers_, options_.entity_limit, Item{speaker_id_, Gender::kUnknown, turn_});
  }
}

std::vector<Reference> FocusState::Resolve(std::string_view text,
                                           const std::vector<text::Lexeme>& lexemes,
                                           const std::vector<TurnMention>& mentions) const {
  std::vector<Reference> references;
  // The latest acceptable candidate: this turn's mentions before `begin`, then the stack.
  auto pick = [&](FocusKind kind, std::uint32_t begin, const std::deque<Item>& stack,
                  auto&& accept) -> std::string {
    for (auto mention = mentions.rbegin(); mention != mentions.rend(); ++mention) {
      if (mention->kind == kind && mention->end <= begin && accept(mention->target_id,
                                                                    mention->gender)) {
        return mention->target_id;
      }
    }
    for (const Item& item : stack) {
      if (Alive(item) && accept(item.id, item.gender)) return item.id;
    }
    return "";
  };
  auto add = [&](std::size_t first, std::size_t last, FocusKind kind, std::string target) {
    if (target.empty()) return;
    Reference reference;
    reference.begin = lexemes[first].begin;
    reference.end = lexemes[last].end;
    reference.surface = std::string(text.substr(reference.begin, reference.end - reference.begin));
    reference.kind = kind;
    reference.target_id = std::move(target);
    references.push_back(std::move(reference));
  };

  for (std::size_t index = 0; index < lexemes.size(); ++index) {
    if (!IsWord(lexemes, index)) continue;
    const std::string& word = lexemes[index].lower;
    const std::uint32_t begin = lexemes[index].begin;
    if (In(kMalePronouns, word) || In(kFemalePronouns, word)) {
      const Gender excluded = In(kMalePronouns, word) ? Gender::kFemale : Gender::kMale;
      add(index, index, FocusKind::kPerson,
          pick(FocusKind::kPerson, begin, people_, [&](const std::string& id, Gender gender) {
            return gender != excluded && id != speaker_id_;
          }));
    } else if (In(kSecondPerson, word)) {
      add(index, index, FocusKind::kAddressee,
          pick(FocusKind::kAddressee, begin, speakers_,
               [&](const std::string& id, Gender) { return id != speaker_id_; }));
    } else if (word == "there") {
      const bool existential = IsWord(lexemes, index + 1) &&
                               In(kExistentialNext, std::string_view(lexemes[index + 1].lower));
      const bool greeting = index > 0 && IsWord(lexemes, index - 1) &&
                            In(kGreetings, std::string_view(lexemes[index - 1].lower));
      if (!existential && !greeting) {
        add(index, index, FocusKind::kPlace,
            pick(FocusKind::kPlace, begin, places_, [](const std::string&, Gender) { return true; }));
      }
    } else if ((word == "that" && IsWord(lexemes, index + 1) &&
                In(kThatTimeNouns, std::string_view(lexemes[index + 1].lower))) ||
               (In(kThenHeads, word) && IsWord(lexemes, index + 1) &&
                lexemes[index + 1].lower == "then") ||
               (word == "last" && IsWord(lexemes, index + 1) && lexemes[index + 1].lower == "time")) {
      add(index, index + 1, FocusKind::kTime,
          pick(FocusKind::kTime, begin, times_, [](const std::string&, Gender) { return true; }));
      ++index;
    }
  }
  return references;
}

}  // namespace engram::write
