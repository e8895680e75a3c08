// Consolidation, foresight and timeline views of a scope (see scope_views.h).
#include "server/scope_views.h"

#include <cctype>
#include <string>
#include <string_view>
#include <vector>

#include "io/scope_records.h"

namespace engram::server {

io::Json ConsolidateResultView(const Scope& scope, const ConsolidateResult& result) {
  io::Json json = io::Json::object();
  json["scope"] = scope.ToString();
  json["turns"] = result.turns;
  json["episodes"] = result.episodes;
  json["scenes"] = result.scenes;
  json["profiles"] = result.profiles;
  json["written"] = result.written;
  json["superseded"] = result.superseded;
  return json;
}

namespace {

// The scope's nodes of `kind`: the active ones, or all with `all`.
StatusOr<std::vector<Memory>> ListKind(Engine& engine, const Scope& scope, NodeKind kind,
                                       bool all, std::optional<Timestamp> known_at) {
  ListOptions options;
  options.kind = kind;
  options.limit = 0;
  options.include_retired = true;
  options.known_at = known_at;
  ASSIGN_OR_RETURN(std::vector<Memory> memories, engine.List(scope, options));
  std::vector<Memory> kept;
  for (Memory& memory : memories) {
    if (all || memory.status == NodeStatus::kActive) kept.push_back(std::move(memory));
  }
  return kept;
}

bool SameSpeaker(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

bool PassesTimelineFilter(const Memory& memory, const TimelineFilter& filter) {
  if (!filter.speaker.empty() && !SameSpeaker(memory.speaker, filter.speaker)) return false;
  if (filter.since || filter.until) {
    if (!memory.event_time) return false;
    if (filter.since && *memory.event_time < *filter.since) return false;
    if (filter.until && !(*memory.event_time < *filter.until)) return false;
  }
  return true;
}

}  // namespace

StatusOr<io::Json> ConsolidatedView(Engine& engine, const Scope& scope, NodeKind kind, bool all,
                                    std::optional<Timestamp> known_at) {
  const char* array_name = kind == NodeKind::kEpisode ? "episodes"
                           : kind == NodeKind::kScene ? "scenes"
                           : kind == NodeKind::kProfile ? "people"
                                                        : nullptr;
  if (array_name == nullptr) {
    return Status::InvalidArgument("consolidated views list episodes, scenes or profiles, not " +
                                   std::string(NodeKindName(kind)));
  }
  ASSIGN_OR_RETURN(const std::vector<Memory> memories, ListKind(engine, scope, kind, all, known_at));
  io::Json list = io::Json::array();
  for (const Memory& memory : memories) {
    io::Json item = io::ParseObject(memory.metadata_json);
    item.erase("key");
    if (kind == NodeKind::kScene) {
      const auto centroid = item.find("centroid");
      item["centroid_dimension"] =
          centroid != item.end() && centroid->is_array() ? centroid->size() : 0;
      item.erase("centroid");
    }
    item["id"] = memory.id;
    item["status"] = NodeStatusName(memory.status);
    list.push_back(std::move(item));
  }
  io::Json json = io::Json::object();
  json["scope"] = scope.ToString();
  json["all"] = all;
  json["count"] = list.size();
  json[array_name] = std::move(list);
  return json;
}

std::string_view ValidityAt(const Memory& memory, Timestamp at) {
  if (memory.valid_from.has_value() && at < *memory.valid_from) return "upcoming";
  if (memory.valid_to.has_value() && !(at < *memory.valid_to)) return "expired";
  return "valid";
}

StatusOr<io::Json> ForesightView(Engine& engine, const Scope& scope, Timestamp at, bool all) {
  ASSIGN_OR_RETURN(const std::vector<Memory> facts,
                   ListKind(engine, scope, NodeKind::kFact, all, std::nullopt));
  io::Json list = io::Json::array();
  for (const Memory& memory : facts) {
    const io::Json fields = io::ParseObject(memory.metadata_json);
    if (io::StringField(fields, "kind") != "foresight" || memory.status == NodeStatus::kRejected)
      continue;
    if (!all && ValidityAt(memory, at) != "valid") continue;
    io::Json item = io::Json::object();
    item["id"] = memory.id;
    item["status"] = NodeStatusName(memory.status);
    item["validity"] = ValidityAt(memory, at);
    item["text"] = memory.text;
    for (const char* name : {"subject", "predicate", "object"})
      item[name] = io::StringField(fields, name);
    item["valid_from"] = io::TimestampToJson(memory.valid_from);
    item["valid_to"] = io::TimestampToJson(memory.valid_to);
    item["turns"] = memory.provenance;
    list.push_back(std::move(item));
  }
  io::Json json = io::Json::object();
  json["scope"] = scope.ToString();
  json["at"] = FormatTimestamp(at);
  json["all"] = all;
  json["count"] = list.size();
  json["foresight"] = std::move(list);
  return json;
}

StatusOr<io::Json> TimelineView(Engine& engine, const Scope& scope, const TimelineFilter& filter) {
  // Reads in chunks of whole sequence numbers (io::ListPage).
  constexpr std::size_t kChunk = 500;
  const std::size_t limit = filter.limit == 0 ? 1 : filter.limit;
  io::Json list = io::Json::array();
  std::size_t scanned = 0;
  std::int64_t after = filter.after_sequence;
  bool more = true;  // the scope may hold sequence numbers above `after`
  while (more && list.size() < limit && scanned < filter.max_scanned) {
    ListOptions options;
    options.limit = kChunk;
    options.after_sequence = after;
    options.kind = filter.kind;
    ASSIGN_OR_RETURN(io::MemoryPage page, io::ListPage(engine, scope, options));
    more = page.next_after.has_value();
    const std::vector<Memory>& chunk = page.memories;
    // Whole sequence numbers only: stop between two of them once the page or the scan is full.
    std::size_t at = 0;
    while (at < chunk.size()) {
      const std::int64_t sequence = chunk[at].sequence;
      if (list.size() >= limit || scanned >= filter.max_scanned) {
        more = true;
        break;
      }
      for (; at < chunk.size() && chunk[at].sequence == sequence; ++at) {
        ++scanned;
        if (PassesTimelineFilter(chunk[at], filter)) list.push_back(io::ToJson(chunk[at]));
      }
      after = sequence;
    }
  }
  io::Json out = io::Json::object();
  out["scope"] = scope.ToString();
  out["count"] = list.size();
  out["memories"] = std::move(list);
  out["scanned"] = scanned;
  out["next_after"] = more ? io::Json(after) : io::Json(nullptr);
  return out;
}

}  // namespace engram::server
