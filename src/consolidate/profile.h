// Profiles (EverMemOS §3.4 "user profile", DESIGN §3 `profile`): per person, the explicit facts
// — the current value of each single-valued slot (lives_in, works_at, ...) with its history and
// the turns behind every value — and the implicit traits: preferences, constraints, states and
// relations aggregated over repeated evidence, with counts and turns.
//
//   std::vector<FactView> facts = ...;  // the scope's facts (any status but rejected)
//   std::vector<PersonProfile> people = BuildProfiles(facts, "mia");
//
// Built from the facts the write path reconciled (write/reconcile.h): a superseded value is
// history, never dropped; a pending (contradicted) value is history with its status. A pure
// function: the same facts give the same profiles.
#ifndef ENGRAM_CONSOLIDATE_PROFILE_H_
#define ENGRAM_CONSOLIDATE_PROFILE_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engram/types.h"

namespace engram::consolidate {

// A stored fact as the profile reads it (the fields of its content, write/reconcile.cc).
struct FactView {
  std::string id;
  NodeStatus status = NodeStatus::kActive;
  std::int64_t sequence = 0;
  std::string subject;
  bool subject_is_speaker = false;
  std::string predicate;
  std::string object;
  std::string kind;  // write::FactKindName: "profile", "preference", ...
  bool negated = false;
  bool past = false;
  bool single_valued = false;
  std::optional<Timestamp> valid_from;
  std::optional<Timestamp> valid_to;
  std::vector<std::string> turns;  // evidence: the derived_from turns, in edge order
};

// One value a slot held.
struct SlotValue {
  std::string fact_id;
  std::string object;
  std::string status;  // NodeStatusName
  std::optional<Timestamp> valid_from;
  std::optional<Timestamp> valid_to;
  std::vector<std::string> turns;
};

// An explicit fact: a single-valued slot of the person (or a profile fact such as a birthday).
struct ProfileSlot {
  std::string predicate;
  std::optional<SlotValue> current;  // the active value whose validity is open
  std::vector<SlotValue> history;    // every other value, oldest first
};

// An implicit trait: the same statement (kind, predicate, polarity, object) over all its facts.
struct ProfileTrait {
  std::string kind;
  std::string predicate;
  std::string object;
  bool negated = false;
  std::size_t count = 0;           // distinct evidence turns
  std::vector<std::string> facts;  // the facts, in sequence order
  std::vector<std::string> turns;  // distinct, in first-seen order
};

struct PersonProfile {
  std::string name;         // as first written
  bool scope_user = false;  // the person the user: scope is named after
  bool speaker = false;     // some fact of theirs came from their own turn
  std::vector<ProfileSlot> explicit_facts;  // by predicate
  std::vector<ProfileTrait> traits;         // more evidence first
};

// Profiles of every subject of `facts` (rejected facts, events and foresight are left out:
// events belong to episodes, foresight to its own listing). `scope_user` is the name of a
// user: scope ("" otherwise); that person comes first, then speakers, then others, each group
// by name.
std::vector<PersonProfile> BuildProfiles(std::span<const FactView> facts,
                                         std::string_view scope_user);

}  // namespace engram::consolidate

#endif  // ENGRAM_CONSOLIDATE_PROFILE_H_
