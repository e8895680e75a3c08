// records: see records.h.
#include "records.h"

#include <cstdio>
#include <utility>

namespace engram::python {
namespace {

io::Json ParseObject(std::string_view text) {
  io::Json json = io::Json::parse(text, nullptr, /*allow_exceptions=*/false);
  return json.is_object() ? json : io::Json::object();
}

std::string StringField(const io::Json& fields, const char* name) {
  const auto found = fields.find(name);
  if (found == fields.end() || !found->is_string()) return "";
  return found->get<std::string>();
}

std::string Number(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.4f", value);
  return buffer;
}

}  // namespace

std::string FactRecord::Field(const char* name) const { return StringField(fields, name); }

StatusOr<std::vector<FactRecord>> LoadFacts(Engine& engine, const Scope& scope, bool all,
                                            bool rejected) {
  ListOptions options;
  options.kind = NodeKind::kFact;
  options.limit = 0;  // every fact
  options.include_retired = true;
  ASSIGN_OR_RETURN(std::vector<Memory> memories, engine.List(scope, options));
  std::vector<FactRecord> facts;
  for (Memory& memory : memories) {
    if (rejected && memory.status != NodeStatus::kRejected) continue;
    if (!all && !rejected && memory.status != NodeStatus::kActive) continue;
    FactRecord fact;
    fact.fields = ParseObject(memory.metadata_json);
    ASSIGN_OR_RETURN(const std::vector<HistoryEvent> history, engine.History(memory.id));
    for (const HistoryEvent& event : history) {
      if (event.related_id.empty()) continue;
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
    const io::Json fields = ParseObject(memory.metadata_json);
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

io::Json FactToJson(const FactRecord& fact) {
  const Memory& memory = fact.memory;
  io::Json json = io::Json::object();
  json["id"] = memory.id;
  json["status"] = NodeStatusName(memory.status);
  json["sequence"] = memory.sequence;
  for (const char* name : {"kind", "subject", "predicate", "object", "polarity", "extractor"}) {
    json[name] = fact.Field(name);
  }
  json["uncertain"] = fact.fields.value("uncertain", false);
  json["time"] = fact.fields.contains("time") ? fact.fields["time"] : io::Json(nullptr);
  json["text"] = memory.text;
  json["valid_from"] = io::TimestampToJson(memory.valid_from);
  json["valid_to"] = io::TimestampToJson(memory.valid_to);
  json["provenance"] = memory.provenance;
  json["supersedes"] = fact.supersedes;
  json["superseded_by"] = fact.superseded_by;
  json["corrects"] = fact.corrects;
  json["corrected_by"] = fact.corrected_by;
  json["contradicts"] = fact.contradicts;
  json["rejected"] = fact.fields.contains("rejected") && fact.fields["rejected"].is_object()
                         ? fact.fields["rejected"]
                         : io::Json(nullptr);
  return json;
}

io::Json EntityToJson(const EntityRecord& entity) {
  io::Json json = io::Json::object();
  json["id"] = entity.memory.id;
  json["name"] = entity.name;
  json["kind"] = entity.kind;
  json["mentions"] = entity.mentions;
  json["same_as"] = entity.same_as;
  json["first_seen"] = io::TimestampToJson(entity.memory.valid_from);
  json["provenance"] = entity.memory.provenance;
  return json;
}

io::Json LinkToJson(const Link& link) {
  io::Json json = io::Json::object();
  json["id"] = link.id;
  json["type"] = link.type;
  json["src"] = link.src;
  json["dst"] = link.dst;
  json["status"] = link.status;
  json["attrs"] = io::MetadataToJson(link.attrs_json);
  return json;
}

std::string ExplainItem(const RecallItem& item) {
  std::string text;
  for (const RouteScore& route : item.routes) {
    text += route.route + " rank " + std::to_string(route.rank) + " score " + Number(route.score);
    if (!route.explanation.empty()) text += ": " + route.explanation;
    text += "\n";
  }
  for (const Adjustment& adjustment : item.adjustments) {
    text += adjustment.name + " x" + Number(adjustment.factor);
    if (adjustment.bonus != 0) text += " +" + Number(adjustment.bonus);
    if (!adjustment.detail.empty()) text += ": " + adjustment.detail;
    text += "\n";
  }
  return text;
}

std::string ExplainResult(const ReadResultView& view) {
  if (!view.explain) return "";
  const Diagnostics& diagnostics = view.result.diagnostics;
  std::string text = "frame: " + diagnostics.frame + "\nplan: " + diagnostics.plan + "\n";
  for (const RouteDiagnostics& route : diagnostics.routes) {
    text += "route " + route.route + ": weight " + Number(route.weight) + ", " +
            std::to_string(route.candidates) + " candidates";
    if (!route.error.empty()) text += ", error: " + route.error;
    text += "\n";
  }
  text += "fusion: weighted RRF, " + std::to_string(diagnostics.fused_candidates) +
          " candidates; " + std::to_string(diagnostics.neighbours_added) +
          " added as neighbours; " + std::to_string(diagnostics.bridged) +
          " added by the entity bridge; " + std::to_string(diagnostics.filtered_out) +
          " filtered out; " + std::to_string(diagnostics.dropped_by_budget) +
          " dropped by the budget of " + std::to_string(diagnostics.token_budget) + " tokens; " +
          std::to_string(diagnostics.deduplicated) + " duplicates skipped\n";
  return text;
}

}  // namespace engram::python
