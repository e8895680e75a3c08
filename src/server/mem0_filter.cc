// mem0's identifiers and filter language (see mem0_filter.h and docs/MEM0.md).
#include "server/mem0_filter.h"

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <string>
#include <vector>

#include "server/mem0_support.h"

namespace engram::server {
namespace {

using io::Json;
using mem0_support::Identifiers;
using mem0_support::TypeName;
using nlohmann::json;

constexpr std::string_view kSupportedOperators =
    "eq, ne, gt, gte, lt, lte, in, nin, contains, icontains, AND, OR, NOT, \"*\"";

// ---------------------------------------------------------------------------------------------
// Filters: mem0's operators over a memory's metadata and its mem0 fields (Mem0Filter).

enum class FilterOp { kEq, kNe, kGt, kGte, kLt, kLte, kIn, kNin, kContains, kIcontains, kExists };

std::optional<FilterOp> ParseFilterOp(std::string_view name) {
  static const std::pair<std::string_view, FilterOp> kOps[] = {
      {"eq", FilterOp::kEq},
      {"ne", FilterOp::kNe},
      {"gt", FilterOp::kGt},
      {"gte", FilterOp::kGte},
      {"lt", FilterOp::kLt},
      {"lte", FilterOp::kLte},
      {"in", FilterOp::kIn},
      {"nin", FilterOp::kNin},
      {"contains", FilterOp::kContains},
      {"icontains", FilterOp::kIcontains},
  };
  for (const auto& [op_name, op] : kOps) {
    if (op_name == name) return op;
  }
  return std::nullopt;
}

// Fields whose values are instants: compared as times, not as strings.
bool IsTimeField(std::string_view field) { return field == "created_at" || field == "updated_at"; }

Status FilterError(std::string_view where, std::string_view message) {
  return Status::InvalidArgument("filters" + std::string(where) + ": " + std::string(message));
}

}  // namespace

// A compiled filter: AND / OR / NOT over children, or one condition on a field.
struct Mem0Filter::Node {
  enum class Kind { kAll, kAny, kNone, kCondition };
  Kind kind = Kind::kAll;
  std::vector<Node> children;
  std::string field;
  FilterOp op = FilterOp::kEq;
  json operand;  // time fields: microseconds (a number, or an array of them for in / nin)
};

namespace {

using FilterNode = Mem0Filter::Node;

// A time operand as microseconds since the epoch.
Status TimeOperand(std::string_view where, const json& value, json* out) {
  if (!value.is_string()) {
    return FilterError(where,
                       "must be an ISO-8601 timestamp string, got " + std::string(TypeName(value)));
  }
  StatusOr<Timestamp> time = ParseTimestamp(value.get<std::string>());
  if (!time.ok()) return FilterError(where, time.status().message());
  *out = time->micros;
  return Status::Ok();
}

Status CompileCondition(const std::string& where, const std::string& field, FilterOp op,
                        const json& operand, FilterNode* node) {
  node->kind = FilterNode::Kind::kCondition;
  node->field = field;
  node->op = op;
  switch (op) {
    case FilterOp::kExists:
      return Status::Ok();
    case FilterOp::kIn:
    case FilterOp::kNin:
      if (!operand.is_array()) {
        return FilterError(where, "in / nin need an array, got " + std::string(TypeName(operand)));
      }
      if (IsTimeField(field)) {
        node->operand = json::array();
        for (const json& element : operand) {
          json micros;
          RETURN_IF_ERROR(TimeOperand(where, element, &micros));
          node->operand.push_back(micros);
        }
        return Status::Ok();
      }
      node->operand = operand;
      return Status::Ok();
    case FilterOp::kGt:
    case FilterOp::kGte:
    case FilterOp::kLt:
    case FilterOp::kLte:
      if (IsTimeField(field)) return TimeOperand(where, operand, &node->operand);
      if (!operand.is_number() && !operand.is_string()) {
        return FilterError(where, "gt / gte / lt / lte need a number or a string, got " +
                                      std::string(TypeName(operand)));
      }
      node->operand = operand;
      return Status::Ok();
    case FilterOp::kContains:
    case FilterOp::kIcontains:
      if (IsTimeField(field)) return FilterError(where, "contains / icontains need a text field");
      if (!operand.is_string()) {
        return FilterError(
            where, "contains / icontains need a string, got " + std::string(TypeName(operand)));
      }
      node->operand = operand;
      return Status::Ok();
    case FilterOp::kEq:
    case FilterOp::kNe:
      if (IsTimeField(field)) return TimeOperand(where, operand, &node->operand);
      if (operand.is_object()) return FilterError(where, "eq / ne cannot compare objects");
      node->operand = operand;
      return Status::Ok();
  }
  return Status::Ok();
}

std::string UnsupportedOperator(std::string_view name) {
  return "unsupported operator \"" + std::string(name) +
         "\" (supported: " + std::string(kSupportedOperators) + ")";
}

Status CompileFilters(const json& filters, const std::string& where, FilterNode* node);

// AND / OR / NOT: a list of filter objects (NOT also takes one object).
Status CompileLogical(const std::string& key, const json& value, const std::string& where,
                      FilterNode* node) {
  node->kind = key == "AND"  ? FilterNode::Kind::kAll
               : key == "OR" ? FilterNode::Kind::kAny
                             : FilterNode::Kind::kNone;
  const std::string here = where + "." + key;
  if (key == "NOT" && value.is_object()) {
    node->children.emplace_back();
    return CompileFilters(value, here, &node->children.back());
  }
  if (!value.is_array() || value.empty()) {
    return FilterError(here, "needs a non-empty array of filter objects");
  }
  for (std::size_t index = 0; index < value.size(); ++index) {
    node->children.emplace_back();
    RETURN_IF_ERROR(CompileFilters(value[index], here + "[" + std::to_string(index) + "]",
                                   &node->children.back()));
  }
  return Status::Ok();
}

// Compiles a filter object: its keys are ANDed.
Status CompileFilters(const json& filters, const std::string& where, FilterNode* node) {
  if (!filters.is_object()) {
    return FilterError(where, "must be an object, got " + std::string(TypeName(filters)));
  }
  node->kind = FilterNode::Kind::kAll;
  for (const auto& [key, value] : filters.items()) {
    FilterNode child;
    const std::string here = where + "." + key;
    if (key == "AND" || key == "OR" || key == "NOT") {
      RETURN_IF_ERROR(CompileLogical(key, value, where, &child));
    } else if (!key.empty() && key.front() == '$') {
      return FilterError(where, UnsupportedOperator(key));
    } else if (value.is_object()) {
      if (value.empty()) return FilterError(here, "has no operator");
      child.kind = FilterNode::Kind::kAll;
      for (const auto& [op_name, operand] : value.items()) {
        std::optional<FilterOp> op = ParseFilterOp(op_name);
        if (!op.has_value()) return FilterError(here, UnsupportedOperator(op_name));
        FilterNode condition;
        RETURN_IF_ERROR(CompileCondition(here, key, *op, operand, &condition));
        child.children.push_back(std::move(condition));
      }
    } else if (value.is_string() && value.get<std::string>() == "*") {
      RETURN_IF_ERROR(CompileCondition(here, key, FilterOp::kExists, value, &child));
    } else {
      RETURN_IF_ERROR(CompileCondition(here, key, FilterOp::kEq, value, &child));
    }
    node->children.push_back(std::move(child));
  }
  return Status::Ok();
}

std::string AsciiLower(std::string text) {
  for (char& c : text) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return text;
}

// -1, 0, 1 for two numbers or two strings; nullopt when they are not comparable.
std::optional<int> Compare(const json& a, const json& b) {
  if (a.is_number() && b.is_number()) {
    if (a.is_number_float() || b.is_number_float()) {
      const double x = a.get<double>();
      const double y = b.get<double>();
      return x < y ? -1 : (x > y ? 1 : 0);
    }
    return a < b ? -1 : (b < a ? 1 : 0);
  }
  if (a.is_string() && b.is_string()) {
    const int order = a.get_ref<const std::string&>().compare(b.get_ref<const std::string&>());
    return order < 0 ? -1 : (order > 0 ? 1 : 0);
  }
  return std::nullopt;
}

bool Contains(const json& value, const std::string& needle, bool ignore_case) {
  if (value.is_string()) {
    if (!ignore_case) return value.get_ref<const std::string&>().find(needle) != std::string::npos;
    return AsciiLower(value.get<std::string>()).find(AsciiLower(needle)) != std::string::npos;
  }
  if (value.is_array()) {
    for (const json& element : value) {
      if (!element.is_string()) continue;
      if (ignore_case ? AsciiLower(element.get<std::string>()) == AsciiLower(needle)
                      : element.get_ref<const std::string&>() == needle) {
        return true;
      }
    }
  }
  return false;
}

bool Matches(const FilterNode& node, const json& fields) {
  switch (node.kind) {
    case FilterNode::Kind::kAll:
      return std::all_of(node.children.begin(), node.children.end(),
                         [&](const FilterNode& child) { return Matches(child, fields); });
    case FilterNode::Kind::kAny:
      return std::any_of(node.children.begin(), node.children.end(),
                         [&](const FilterNode& child) { return Matches(child, fields); });
    case FilterNode::Kind::kNone:
      return std::none_of(node.children.begin(), node.children.end(),
                          [&](const FilterNode& child) { return Matches(child, fields); });
    case FilterNode::Kind::kCondition:
      break;
  }
  auto found = fields.find(node.field);
  const json* value = found != fields.end() && !found->is_null() ? &*found : nullptr;
  json micros;
  if (value != nullptr && IsTimeField(node.field)) {
    // A time field compares as an instant; one that is no timestamp counts as absent.
    value = nullptr;
    if (found->is_string()) {
      if (StatusOr<Timestamp> time = ParseTimestamp(found->get<std::string>()); time.ok()) {
        micros = time->micros;
        value = &micros;
      }
    }
  }
  const bool present = value != nullptr;
  switch (node.op) {
    case FilterOp::kExists:
      return present;
    case FilterOp::kEq:
      return present && *value == node.operand;
    case FilterOp::kNe:
      return !present || *value != node.operand;
    case FilterOp::kIn:
      return present &&
             std::find(node.operand.begin(), node.operand.end(), *value) != node.operand.end();
    case FilterOp::kNin:
      return !present ||
             std::find(node.operand.begin(), node.operand.end(), *value) == node.operand.end();
    case FilterOp::kGt:
    case FilterOp::kGte:
    case FilterOp::kLt:
    case FilterOp::kLte: {
      if (!present) return false;
      const std::optional<int> order = Compare(*value, node.operand);
      if (!order.has_value()) return false;
      if (node.op == FilterOp::kGt) return *order > 0;
      if (node.op == FilterOp::kGte) return *order >= 0;
      if (node.op == FilterOp::kLt) return *order < 0;
      return *order <= 0;
    }
    case FilterOp::kContains:
    case FilterOp::kIcontains:
      return present &&
             Contains(*value, node.operand.get<std::string>(), node.op == FilterOp::kIcontains);
  }
  return false;
}

// mem0 clients may name the identifiers inside `filters` only: a plain string (or {"eq": s})
// under user_id / agent_id / run_id at the top level of the filter object, or inside a top-level
// AND (or an OR of one element), as newer clients send {"AND": [{"user_id": "alice"}, ...]}.
// Fills the identifiers `ids` does not have yet; the filter still applies to every result.
void IdentifiersFromFilters(const json& filters, Identifiers* ids) {
  if (!filters.is_object()) return;
  for (const auto& [key, value] : filters.items()) {
    if ((key == "AND" || (key == "OR" && value.size() == 1)) && value.is_array()) {
      for (const json& part : value) IdentifiersFromFilters(part, ids);
      continue;
    }
    std::optional<std::string>* slot = key == "user_id"    ? &ids->user_id
                                       : key == "agent_id" ? &ids->agent_id
                                       : key == "run_id"   ? &ids->run_id
                                                           : nullptr;
    if (slot == nullptr || slot->has_value()) continue;
    const json* named = &value;
    if (value.is_object() && value.size() == 1 && value.contains("eq")) named = &value["eq"];
    if (named->is_string() && !named->get<std::string>().empty() &&
        named->get<std::string>() != "*") {
      *slot = named->get<std::string>();
    }
  }
}

}  // namespace

StatusOr<Mem0Filter> Mem0Filter::Compile(const nlohmann::json& filters) {
  auto root = std::make_shared<Node>();
  RETURN_IF_ERROR(CompileFilters(filters, "", root.get()));
  return Mem0Filter(std::move(root));
}

nlohmann::json Mem0Filter::FieldsOf(const Memory& memory) {
  json fields = json::object();
  // Stored metadata is canonical JSON written by the engine; MetadataToJson never throws.
  const Json metadata = io::MetadataToJson(memory.metadata_json);
  if (metadata.is_object()) {
    for (const auto& [key, value] : metadata.items()) fields[key] = json(value);
  }
  // The fields shadow metadata keys of their names, also when the memory has no such field.
  const Identifiers ids = Mem0ScopeIdentifiers(memory.scope);
  const std::pair<const char*, const std::optional<std::string>*> optional_fields[] = {
      {"user_id", &ids.user_id}, {"agent_id", &ids.agent_id}, {"run_id", &ids.run_id}};
  for (const auto& [name, value] : optional_fields) {
    if (value->has_value()) {
      fields[name] = **value;
    } else {
      fields.erase(name);
    }
  }
  if (memory.speaker.empty()) {
    fields.erase("actor_id");
  } else {
    fields["actor_id"] = memory.speaker;
  }
  fields["id"] = memory.id;
  fields["memory"] = memory.text;
  fields["role"] = std::string(RoleName(memory.role));
  fields["created_at"] = FormatTimestamp(memory.ingested_at);
  fields["updated_at"] = FormatTimestamp(memory.updated_at);
  return fields;
}

bool Mem0Filter::Matches(const nlohmann::json& fields) const {
  return root_ != nullptr && server::Matches(*root_, fields);
}

Mem0Identifiers Mem0ScopeIdentifiers(std::string_view scope_path) {
  Mem0Identifiers ids;
  StatusOr<Scope> scope = Scope::Parse(scope_path);
  if (!scope.ok()) return ids;
  // mem0's identifiers nest user, agent, run (each optional) in this order; the first segment
  // out of that order ends them.
  const std::pair<ScopeKind, std::optional<std::string>*> order[] = {
      {ScopeKind::kUser, &ids.user_id},
      {ScopeKind::kAgent, &ids.agent_id},
      {ScopeKind::kRun, &ids.run_id}};
  std::size_t next = 0;
  for (const ScopeSegment& segment : scope->path()) {
    std::size_t position = next;
    while (position < std::size(order) && order[position].first != segment.kind) ++position;
    if (position == std::size(order)) break;
    *order[position].second = segment.name;
    next = position + 1;
  }
  return ids;
}

void Mem0FilterIdentifiers(const nlohmann::json& filters, Mem0Identifiers* ids) {
  IdentifiersFromFilters(filters, ids);
}

}  // namespace engram::server
