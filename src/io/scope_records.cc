// A scope's facts and entities through the public API (see scope_records.h).
#include "io/scope_records.h"

#include <utility>

namespace engram::io {
namespace {

// Whether a fact of this status is a current one: active, or with valid_at anything valid then
// that the validator did not reject and no contradiction left pending.
bool Current(NodeStatus status, const FactsFilter& filter) {
  if (!filter.valid_at.has_value()) return status == NodeStatus::kActive;
  return status != NodeStatus::kRejected && status != NodeStatus::kPending;
}

}  // namespace

StatusOr<MemoryPage> ListPage(Engine& engine, const Scope& scope, ListOptions options) {
  MemoryPage page;
  if (options.limit == 0) {
    ASSIGN_OR_RETURN(page.memories, engine.List(scope, options));
    return page;
  }
  for (std::size_t want = options.limit;; want *= 2) {
    options.limit = want + 1;  // one more than the page says whether anything follows
    ASSIGN_OR_RETURN(page.memories, engine.List(scope, options));
    if (page.memories.size() <= want) return page;
    const std::int64_t following = page.memories[want].sequence;
    page.memories.resize(want);
    if (page.memories.front().sequence != following) {
      while (page.memories.back().sequence == following) page.memories.pop_back();
      page.next_after = page.memories.back().sequence;
      return page;
    }
    // The whole page is one sequence number that continues past it: read it whole.
  }
}

std::string FactRecord::Field(const char* name) const { return StringField(fields, name); }

StatusOr<std::vector<FactRecord>> LoadFacts(Engine& engine, const Scope& scope,
                                            const FactsFilter& filter) {
  ListOptions options;
  options.kind = NodeKind::kFact;
  options.limit = 0;  // every fact
  options.include_retired = true;
  options.valid_at = filter.valid_at;
  options.known_at = filter.known_at;
  ASSIGN_OR_RETURN(std::vector<Memory> memories, engine.List(scope, options));
  std::vector<FactRecord> facts;
  for (Memory& memory : memories) {
    if (filter.rejected && memory.status != NodeStatus::kRejected) continue;
    if (!filter.all && !filter.rejected && !Current(memory.status, filter)) continue;
    FactRecord fact;
    fact.fields = ParseObject(memory.metadata_json);
    ASSIGN_OR_RETURN(const std::vector<HistoryEvent> history, engine.History(memory.id));
    for (const HistoryEvent& event : history) {
      if (event.related_id.empty()) continue;
      if (filter.known_at.has_value() && event.at > *filter.known_at) continue;
      if (event.action == "supersedes") fact.supersedes.push_back(event.related_id);
      if (event.action == "supersedes (incoming)") fact.superseded_by.push_back(event.related_id);
      if (event.action == "corrects") fact.corrects.push_back(event.related_id);
      if (event.action == "corrects (incoming)") fact.corrected_by.push_back(event.related_id);
      if (event.action.rfind("contradicts", 0) == 0) fact.contradicts.push_back(event.related_id);
    }
    fact.memory = std::move(memory);
    facts.push_back(std::move(fact));
  }
  return facts;
}

StatusOr<std::vector<EntityRecord>> LoadEntities(Engine& engine, const Scope& scope) {
  ListOptions options;
  options.kind = NodeKind::kEntity;
  options.limit = 0;  // every entity
  options.include_retired = false;
  ASSIGN_OR_RETURN(std::vector<Memory> memories, engine.List(scope, options));
  std::vector<EntityRecord> entities;
  for (Memory& memory : memories) {
    EntityRecord entity;
    const Json fields = ParseObject(memory.metadata_json);
    entity.name = StringField(fields, "name");
    if (entity.name.empty()) entity.name = memory.text;
    entity.kind = StringField(fields, "kind");
    ASSIGN_OR_RETURN(const std::vector<HistoryEvent> history, engine.History(memory.id));
    for (const HistoryEvent& event : history) {
      if (event.action == "mentions (incoming)") ++entity.mentions;
      if (event.action.rfind("same_as", 0) == 0 && !event.related_id.empty()) {
        entity.same_as.push_back(event.related_id);
      }
    }
    entity.memory = std::move(memory);
    entities.push_back(std::move(entity));
  }
  return entities;
}

Json FactToJson(const FactRecord& fact) {
  const Memory& memory = fact.memory;
  Json json = Json::object();
  json["id"] = memory.id;
  json["status"] = NodeStatusName(memory.status);
  json["sequence"] = memory.sequence;
  for (const char* name : {"kind", "subject", "predicate", "object", "polarity", "extractor"}) {
    json[name] = fact.Field(name);
  }
  const auto uncertain = fact.fields.find("uncertain");
  json["uncertain"] = uncertain != fact.fields.end() && uncertain->is_boolean() &&
                      uncertain->get<bool>();
  json["time"] = fact.fields.contains("time") ? fact.fields["time"] : Json(nullptr);
  json["text"] = memory.text;
  json["valid_from"] = TimestampToJson(memory.valid_from);
  json["valid_to"] = TimestampToJson(memory.valid_to);
  json["provenance"] = memory.provenance;
  json["supersedes"] = fact.supersedes;
  json["superseded_by"] = fact.superseded_by;
  json["corrects"] = fact.corrects;
  json["corrected_by"] = fact.corrected_by;
  json["contradicts"] = fact.contradicts;
  json["rejected"] = fact.fields.contains("rejected") && fact.fields["rejected"].is_object()
                         ? fact.fields["rejected"]
                         : Json(nullptr);
  return json;
}

Json EntityToJson(const EntityRecord& entity) {
  Json json = Json::object();
  json["id"] = entity.memory.id;
  json["name"] = entity.name;
  json["kind"] = entity.kind;
  json["mentions"] = entity.mentions;
  json["same_as"] = entity.same_as;
  json["first_seen"] = TimestampToJson(entity.memory.valid_from);
  json["provenance"] = entity.memory.provenance;
  return json;
}

Json FactsDocument(const Scope& scope, const FactsFilter& filter,
                   const std::vector<FactRecord>& facts) {
  Json json = Json::object();
  json["scope"] = scope.ToString();
  json["all"] = filter.all;
  json["rejected"] = filter.rejected;
  json["valid_at"] = TimestampToJson(filter.valid_at);
  json["known_at"] = TimestampToJson(filter.known_at);
  json["count"] = facts.size();
  Json list = Json::array();
  for (const FactRecord& fact : facts) list.push_back(FactToJson(fact));
  json["facts"] = std::move(list);
  return json;
}

Json EntitiesDocument(const Scope& scope, const std::vector<EntityRecord>& entities) {
  Json json = Json::object();
  json["scope"] = scope.ToString();
  json["count"] = entities.size();
  Json list = Json::array();
  for (const EntityRecord& entity : entities) list.push_back(EntityToJson(entity));
  json["entities"] = std::move(list);
  return json;
}

}  // namespace engram::io
