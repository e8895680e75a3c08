// The consolidated structure of a scope and its journal updates (see scope_structure.h).
#include "read/scope_structure.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

namespace engram::read {
namespace {

using json = nlohmann::json;

json ParseObject(const std::string& text) {
  json parsed = json::parse(text, nullptr, /*allow_exceptions=*/false);
  return parsed.is_object() ? parsed : json::object();
}

std::string Str(const json& object, const char* key) {
  const auto found = object.find(key);
  return found != object.end() && found->is_string() ? found->get<std::string>() : "";
}

std::vector<std::string> Strings(const json& object, const char* key) {
  std::vector<std::string> values;
  const auto found = object.find(key);
  if (found == object.end() || !found->is_array()) return values;
  for (const json& value : *found) {
    if (value.is_string()) values.push_back(value.get<std::string>());
  }
  return values;
}

StructureEpisode EpisodeOf(const store::NodeRecord& node) {
  const json content = ParseObject(node.content_json);
  return {.row = node.row,
          .id = node.id,
          .sequence = node.sequence,
          .first_sequence = content.value("first_sequence", std::int64_t{0}),
          .last_sequence = content.value("last_sequence", std::int64_t{0})};
}

StructureScene SceneOf(const store::NodeRecord& node) {
  const json content = ParseObject(node.content_json);
  return {.row = node.row,
          .id = node.id,
          .sequence = node.sequence,
          .episodes = Strings(content, "episodes")};
}

// consolidate/consolidator.h's profile content: {name, scope_user, speaker, explicit
// [{predicate, current {fact, object, turns, ...} | null, history [...]}], traits [{kind,
// predicate, object, polarity, count, facts, turns}]}.
StructureProfile ProfileOf(const store::NodeRecord& node) {
  const json content = ParseObject(node.content_json);
  StructureProfile profile{.row = node.row,
                           .id = node.id,
                           .sequence = node.sequence,
                           .name = Str(content, "name"),
                           .scope_user = content.value("scope_user", false),
                           .speaker = content.value("speaker", false)};
  const auto slots = content.find("explicit");
  if (slots != content.end() && slots->is_array()) {
    for (const json& slot : *slots) {
      if (!slot.is_object()) continue;
      const auto current = slot.find("current");
      if (current == slot.end() || !current->is_object()) continue;  // no value now
      ProfileLine line{.predicate = Str(slot, "predicate"),
                       .object = Str(*current, "object"),
                       .count = 1,
                       .facts = {Str(*current, "fact")},
                       .turns = Strings(*current, "turns")};
      const auto history = slot.find("history");
      if (history != slot.end() && history->is_array()) {
        for (const json& value : *history) {
          if (value.is_object()) line.history.push_back(Str(value, "object"));
        }
      }
      profile.lines.push_back(std::move(line));
    }
  }
  const auto traits = content.find("traits");
  if (traits != content.end() && traits->is_array()) {
    for (const json& trait : *traits) {
      if (!trait.is_object()) continue;
      profile.lines.push_back({.trait = true,
                               .kind = Str(trait, "kind"),
                               .predicate = Str(trait, "predicate"),
                               .object = Str(trait, "object"),
                               .negated = Str(trait, "polarity") == "-",
                               .count = trait.value("count", std::size_t{0}),
                               .facts = Strings(trait, "facts"),
                               .turns = Strings(trait, "turns")});
    }
  }
  return profile;
}

// Inserts `value` into `list` at its (sequence, row) place, replacing an entry with its row.
template <typename T>
void Place(std::vector<T>& list, T value) {
  const auto same = std::find_if(list.begin(), list.end(),
                                 [&](const T& entry) { return entry.row == value.row; });
  if (same != list.end()) list.erase(same);
  const auto at = std::lower_bound(list.begin(), list.end(), value, [](const T& a, const T& b) {
    return a.sequence != b.sequence ? a.sequence < b.sequence : a.row < b.row;
  });
  list.insert(at, std::move(value));
}

template <typename T>
void Remove(std::vector<T>& list, std::int64_t row) {
  std::erase_if(list, [&](const T& entry) { return entry.row == row; });
}

bool Listed(const store::NodeRecord& node) {
  // Store::ListNodes with include_inactive = false and after_sequence = 0, as Load reads them.
  return node.status == NodeStatus::kActive && node.sequence > 0;
}

bool StructureKind(NodeKind kind) {
  return kind == NodeKind::kEpisode || kind == NodeKind::kScene || kind == NodeKind::kProfile;
}

}  // namespace

StatusOr<ScopeStructure> ScopeStructure::Load(store::Store& store, std::int64_t scope_id,
                                              const ScopeStructureSettings&) {
  ScopeStructure structure;
  structure.scope_id = scope_id;
  store::NodeFilter filter;
  filter.include_inactive = false;
  filter.kind = NodeKind::kEpisode;
  ASSIGN_OR_RETURN(const std::vector<store::NodeRecord> episodes, store.ListNodes(scope_id, filter));
  for (const store::NodeRecord& node : episodes) structure.episodes.push_back(EpisodeOf(node));
  filter.kind = NodeKind::kScene;
  ASSIGN_OR_RETURN(const std::vector<store::NodeRecord> scenes, store.ListNodes(scope_id, filter));
  for (const store::NodeRecord& node : scenes) structure.scenes.push_back(SceneOf(node));
  filter.kind = NodeKind::kProfile;
  ASSIGN_OR_RETURN(const std::vector<store::NodeRecord> profiles, store.ListNodes(scope_id, filter));
  for (const store::NodeRecord& node : profiles) structure.profiles.push_back(ProfileOf(node));
  return structure;
}

StatusOr<bool> ScopeStructure::Apply(store::Store& store,
                                     std::span<const store::JournalEntry> entries,
                                     const ScopeStructureSettings&) {
  // Inserted nodes of the three kinds (the journal detail names the kind) and every node whose
  // state changed, read in one batch; the current record decides (rows applied twice agree).
  std::vector<std::int64_t> rows;
  for (const store::JournalEntry& entry : entries) {
    if (entry.op == store::JournalOp::kNodeInserted) {
      const std::string_view detail = entry.detail;
      const bool other_kind = detail.starts_with("kind=") &&
                              !detail.starts_with("kind=episode ") &&
                              !detail.starts_with("kind=scene ") &&
                              !detail.starts_with("kind=profile ");
      if (!other_kind) rows.push_back(entry.target_row);
    } else if (entry.op == store::JournalOp::kNodeUpdated) {
      rows.push_back(entry.target_row);
    }
  }
  if (rows.empty()) return true;
  std::sort(rows.begin(), rows.end());
  rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
  ASSIGN_OR_RETURN(const std::vector<store::NodeRecord> nodes, store.GetNodesByRow(rows));
  for (const store::NodeRecord& node : nodes) {
    if (!StructureKind(node.kind) || node.scope_id != scope_id) continue;
    const bool listed = Listed(node);
    switch (node.kind) {
      case NodeKind::kEpisode:
        listed ? Place(episodes, EpisodeOf(node)) : Remove(episodes, node.row);
        break;
      case NodeKind::kScene:
        listed ? Place(scenes, SceneOf(node)) : Remove(scenes, node.row);
        break;
      default:
        listed ? Place(profiles, ProfileOf(node)) : Remove(profiles, node.row);
        break;
    }
  }
  return true;
}

}  // namespace engram::read
