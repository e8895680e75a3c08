// ScopeStructure: the consolidated structure of one scope (src/consolidate) as the read path
// reads it — its active episodes (the span of turns each covers), its active scenes (their member
// episodes) and its active profiles (each person's current explicit facts and traits with their
// evidence turns). The scene route (scene_route.h) reads the episodes and scenes, the chat context
// (chat_context.h) the profiles.
//
// ScopeStructureCache (journal_cache.h) keeps one per scope and follows the store's journal: an
// inserted episode, scene or profile joins it, one superseded or retired by a consolidation pass
// leaves it (ScopeStructure::Apply), so a recall reads no episode, scene or profile node from the
// store unless the scope was consolidated since the last recall, and then only the new nodes.
//
//   ScopeStructureCache structures;
//   ASSIGN_OR_RETURN(auto values, structures.Get(store, scope_ids, ScopeStructureSettings{}));
#ifndef ENGRAM_READ_SCOPE_STRUCTURE_H_
#define ENGRAM_READ_SCOPE_STRUCTURE_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "engram/status.h"
#include "engram/types.h"
#include "read/journal_cache.h"
#include "store/store.h"

namespace engram::read {

struct StructureEpisode {
  std::int64_t row = 0;
  std::string id;
  std::int64_t sequence = 0;        // the node's sequence (its last turn's)
  std::int64_t first_sequence = 0;  // its turns: [first_sequence, last_sequence] of the scope
  std::int64_t last_sequence = 0;
  friend bool operator==(const StructureEpisode&, const StructureEpisode&) = default;
};

struct StructureScene {
  std::int64_t row = 0;
  std::string id;
  std::int64_t sequence = 0;
  std::vector<std::string> episodes;  // member episode ids, as stored
  friend bool operator==(const StructureScene&, const StructureScene&) = default;
};

// One line of a person's profile: an explicit fact's current value or a trait.
struct ProfileLine {
  bool trait = false;      // false: an explicit slot's current value
  std::string kind;        // a trait's fact kind ("preference", ...); "" for a slot
  std::string predicate;   // "lives_in"
  std::string object;      // "Munich"
  bool negated = false;    // a trait stated negatively ("does not like")
  std::size_t count = 0;   // a trait's distinct evidence turns; 1 for a slot
  std::vector<std::string> facts;    // the facts behind it (a slot: its current value's)
  std::vector<std::string> history;  // a slot's earlier values, oldest first
  std::vector<std::string> turns;    // evidence turn ids
  friend bool operator==(const ProfileLine&, const ProfileLine&) = default;
};

struct StructureProfile {
  std::int64_t row = 0;
  std::string id;
  std::int64_t sequence = 0;
  std::string name;          // the person
  bool scope_user = false;   // the person a user: scope is named after
  bool speaker = false;      // a speaker of the conversation
  std::vector<ProfileLine> lines;  // explicit slots (by predicate), then traits (as stored)
  friend bool operator==(const StructureProfile&, const StructureProfile&) = default;
};

// No settings today; the type keeps JournalCache's shape.
struct ScopeStructureSettings {
  friend bool operator==(const ScopeStructureSettings&, const ScopeStructureSettings&) = default;
};

struct ScopeStructure {
  std::int64_t scope_id = 0;
  // Active nodes with a sequence above 0, each list by (sequence, row) as Store::ListNodes
  // orders them.
  std::vector<StructureEpisode> episodes;
  std::vector<StructureScene> scenes;
  std::vector<StructureProfile> profiles;

  static StatusOr<ScopeStructure> Load(store::Store& store, std::int64_t scope_id,
                                       const ScopeStructureSettings& settings);
  // Applies the scope's new journal rows (JournalCache's contract): an inserted or re-activated
  // episode, scene or profile is added in its place, one that is no longer active is removed.
  // Never declines a row.
  StatusOr<bool> Apply(store::Store& store, std::span<const store::JournalEntry> entries,
                       const ScopeStructureSettings& settings);

  friend bool operator==(const ScopeStructure&, const ScopeStructure&) = default;
};

using ScopeStructureCache = JournalCache<ScopeStructure, ScopeStructureSettings>;

}  // namespace engram::read

#endif  // ENGRAM_READ_SCOPE_STRUCTURE_H_
