// Profiles from reconciled facts (see profile.h).
#include "consolidate/profile.h"

#include <algorithm>
#include <map>

#include "write/extractor.h"
#include "write/predicates.h"

namespace engram::consolidate {
namespace {

bool IsTraitKind(std::string_view kind) {
  return kind == "preference" || kind == "constraint" || kind == "state" || kind == "relation" ||
         kind == "technical";
}

SlotValue ValueOf(const FactView& fact) {
  return SlotValue{.fact_id = fact.id,
                   .object = fact.object,
                   .status = std::string(NodeStatusName(fact.status)),
                   .valid_from = fact.valid_from,
                   .valid_to = fact.valid_to,
                   .turns = fact.turns};
}

struct PersonBuild {
  PersonProfile profile;
  std::map<std::string, std::vector<const FactView*>> slots;   // predicate key -> facts
  std::map<std::string, std::vector<const FactView*>> traits;  // trait key -> facts
};

}  // namespace

std::vector<PersonProfile> BuildProfiles(std::span<const FactView> facts,
                                         std::string_view scope_user) {
  const std::string user_key = write::NormalizeFactText(scope_user);
  std::map<std::string, PersonBuild> people;
  for (const FactView& fact : facts) {
    if (fact.status == NodeStatus::kRejected || fact.kind == "event" || fact.kind == "foresight") {
      continue;
    }
    const std::string person_key = write::NormalizeFactText(fact.subject);
    if (person_key.empty()) continue;
    auto [found, inserted] = people.try_emplace(person_key);
    PersonBuild& person = found->second;
    if (inserted) {
      person.profile.name = fact.subject;
      person.profile.scope_user = !user_key.empty() && person_key == user_key;
    }
    person.profile.speaker = person.profile.speaker || fact.subject_is_speaker;
    // A past state of a single-valued slot ("lived_in") is history of the current one.
    std::optional<std::string> slot_predicate;
    if (fact.single_valued && !fact.past) slot_predicate = fact.predicate;
    if (fact.past) slot_predicate = write::SingleValuedCurrentOf(fact.predicate);
    if (!slot_predicate.has_value() && fact.kind == "profile") {
      slot_predicate = fact.predicate;
    }
    if (slot_predicate.has_value() && !fact.negated) {
      person.slots[*slot_predicate].push_back(&fact);
    } else if (IsTraitKind(fact.kind) && fact.status == NodeStatus::kActive) {
      const std::string key = fact.kind + "|" + fact.predicate + "|" +
                              (fact.negated ? "-" : "+") + "|" +
                              write::NormalizeFactText(fact.object);
      person.traits[key].push_back(&fact);
    }
  }

  std::vector<PersonProfile> profiles;
  for (auto& [key, person] : people) {
    for (auto& [predicate, slot_facts] : person.slots) {
      ProfileSlot slot;
      slot.predicate = predicate;
      std::stable_sort(slot_facts.begin(), slot_facts.end(),
                       [](const FactView* a, const FactView* b) {
                         if (a->valid_from != b->valid_from) return a->valid_from < b->valid_from;
                         return a->sequence < b->sequence;
                       });
      // The current value: the latest active, still valid, present-tense fact.
      const FactView* current = nullptr;
      for (const FactView* fact : slot_facts) {
        if (fact->status == NodeStatus::kActive && !fact->valid_to.has_value() && !fact->past) {
          current = fact;
        }
      }
      for (const FactView* fact : slot_facts) {
        if (fact == current) continue;
        slot.history.push_back(ValueOf(*fact));
      }
      if (current != nullptr) slot.current = ValueOf(*current);
      person.profile.explicit_facts.push_back(std::move(slot));
    }
    for (auto& [trait_key, trait_facts] : person.traits) {
      ProfileTrait trait;
      const FactView& first = *trait_facts.front();
      trait.kind = first.kind;
      trait.predicate = first.predicate;
      trait.object = first.object;
      trait.negated = first.negated;
      std::stable_sort(trait_facts.begin(), trait_facts.end(),
                       [](const FactView* a, const FactView* b) { return a->sequence < b->sequence; });
      for (const FactView* fact : trait_facts) {
        trait.facts.push_back(fact->id);
        for (const std::string& turn : fact->turns) {
          if (std::find(trait.turns.begin(), trait.turns.end(), turn) == trait.turns.end()) {
            trait.turns.push_back(turn);
          }
        }
      }
      trait.count = trait.turns.size();
      person.profile.traits.push_back(std::move(trait));
    }
    std::stable_sort(person.profile.traits.begin(), person.profile.traits.end(),
                     [](const ProfileTrait& a, const ProfileTrait& b) { return a.count > b.count; });
    profiles.push_back(std::move(person.profile));
  }
  // The scope's user first, then speakers, then everyone else; by name within each group (the
  // map already ordered them by normalised name).
  std::stable_sort(profiles.begin(), profiles.end(),
                   [](const PersonProfile& a, const PersonProfile& b) {
                     const int rank_a = a.scope_user ? 0 : (a.speaker ? 1 : 2);
                     const int rank_b = b.scope_user ? 0 : (b.speaker ? 1 : 2);
                     return rank_a < rank_b;
                   });
  return profiles;
}

}  // namespace engram::consolidate
