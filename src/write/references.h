// Reference resolution (KeyMem §3.5): focus stacks of recently mentioned people, places and times,
// and the rules that bind "she", "there" or "that day" in a turn to one of them. The text is never
// rewritten; the analysis stores each binding as a `refers_to` edge from the turn.
//
//   FocusState focus({.ttl_turns = 3});
//   focus.BeginTurn("session-1", "caroline-entity-id");
//   ... resolve the turn's references, then Commit its mentions ...
//
// Rules (deterministic, no parser):
//   - he / him / his / himself -> the most recent person that is not the speaker and not known to
//     be female (first-name lexicon); she / her / hers / herself -> not known to be male;
//     "they" and "it" are left alone (too often plural or non-human);
//   - you / your / yours / yourself -> the most recent other speaker (the addressee);
//   - there -> the most recent place, except existential "there is / are / was ..." and
//     greetings ("hi there");
//   - that day / night / week / weekend / month / year / time, back / since / until / by / till
//     then, last time -> the most recent resolved date or time;
//   - candidates are this turn's earlier mentions (latest first), then the stacks (most recent
//     first); stack items expire `ttl_turns` turns after their last mention; a new session
//     clears the stacks. Stack limits follow KeyMem: entities 10, places 4, times 4.
// The "event" stack of KeyMem needs events (facts), which come later in the write path; it is not
// kept here.
//
// Thread-safety: not thread-safe; one FocusState per derivation call.
#ifndef ENGRAM_WRITE_REFERENCES_H_
#define ENGRAM_WRITE_REFERENCES_H_

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "text/temporal.h"

namespace engram::write {

enum class Gender : std::uint8_t { kUnknown, kMale, kFemale };
enum class FocusKind : std::uint8_t { kPerson, kPlace, kTime, kAddressee };
std::string_view FocusKindName(FocusKind kind);  // "person", "place", "time", "addressee"

// The write path fills these from [write] reference_ttl_turns and reference_*_stack.
struct FocusOptions {
  std::size_t ttl_turns = 3;          // KeyMem's binding TTL
  std::size_t entity_limit = 10;      // entity_stack
  std::size_t place_limit = 4;        // location_stack
  std::size_t time_limit = 4;         // time_stack
};

// Something mentioned in the current turn, at a byte span.
struct TurnMention {
  FocusKind kind = FocusKind::kPerson;  // kPerson, kPlace or kTime
  std::string target_id;                // entity node id, or time signal node id
  std::uint32_t begin = 0;
  std::uint32_t end = 0;
  Gender gender = Gender::kUnknown;
};

struct Reference {
  std::uint32_t begin = 0;  // byte span of the referring words
  std::uint32_t end = 0;
  std::string surface;
  FocusKind kind = FocusKind::kPerson;
  std::string target_id;
};

class FocusState {
 public:
  explicit FocusState(FocusOptions options = {}) : options_(options) {}

  // Starts a turn: a new session_id clears the stacks. `speaker_id` is the speaker's entity id
  // ("" when unknown).
  void BeginTurn(std::string_view session_id, std::string_view speaker_id);

  // The references of the current turn's text, bound to this turn's earlier `mentions` or to the
  // stacks; unresolvable ones are left out. Ordered by position.
  std::vector<Reference> Resolve(std::string_view text, const std::vector<text::Lexeme>& lexemes,
                                 const std::vector<TurnMention>& mentions) const;

  // Pushes the current turn's mentions (in text order) and its speaker onto the stacks.
  void Commit(const std::vector<TurnMention>& mentions);

 private:
  struct Item {
    std::string id;
    Gender gender = Gender::kUnknown;
    std::size_t turn = 0;  // turn counter of its last mention
  };
  void Push(std::deque<Item>& stack, std::size_t limit, Item item);
  bool Alive(const Item& item) const { return turn_ - item.turn <= options_.ttl_turns; }

  FocusOptions options_;
  std::string session_id_;
  std::string speaker_id_;
  std::size_t turn_ = 0;
  std::deque<Item> people_;
  std::deque<Item> places_;
  std::deque<Item> times_;
  std::deque<Item> speakers_;
};

}  // namespace engram::write

#endif  // ENGRAM_WRITE_REFERENCES_H_
