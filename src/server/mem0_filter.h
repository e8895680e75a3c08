// mem0_filter: mem0's identifiers as engram scopes, and mem0's filter language over a memory.
// Shared by the self-hosted routes (mem0_api.h) and the platform routes (mem0_platform.h); the
// Python facade (python/engram/memory.py) implements the same mapping and language, and both
// run the cases of tests/mem0/filter_cases.json, so they cannot drift apart.
//
//   StatusOr<Mem0Filter> filter = Mem0Filter::Compile(body["filters"]);
//   if (!filter.ok()) return 400 with filter.status().message();  // "filters.tag: ..."
//   if (filter->Matches(Mem0Filter::FieldsOf(memory))) ...
//
//   Mem0ScopeIdentifiers("user:alice/agent:bot").agent_id  // "bot"
//
// Identifiers become scopes: user_id "alice" is `user:alice`, agent_id `agent:<id>`, run_id
// `run:<id>`, nested in that order (`user:alice/agent:bot/run:7`). docs/MEM0.md has the whole
// mapping and the language.
#ifndef ENGRAM_SERVER_MEM0_FILTER_H_
#define ENGRAM_SERVER_MEM0_FILTER_H_

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "engram/engine.h"

namespace engram::server {

// The mem0 identifiers of a stored scope path, or of a request.
struct Mem0Identifiers {
  std::optional<std::string> user_id;
  std::optional<std::string> agent_id;
  std::optional<std::string> run_id;

  bool empty() const { return !user_id && !agent_id && !run_id; }
};

// The identifiers of a stored scope path: read from its leading user, agent and run segments in
// that order (how mem0's identifiers nest), so `user:alice/agent:bot/run:7/app:x` has all three
// and `app:crm/user:alice` none.
Mem0Identifiers Mem0ScopeIdentifiers(std::string_view scope_path);

// mem0 clients may name the identifiers inside `filters` only: a plain string (or {"eq": s})
// under user_id / agent_id / run_id at the top level of the filter object, or inside a top-level
// AND (or an OR of one element), as newer clients send {"AND": [{"user_id": "alice"}, ...]}.
// Fills the identifiers `ids` does not have yet; "" and "*" name none. The filter still applies
// to every result.
void Mem0FilterIdentifiers(const nlohmann::json& filters, Mem0Identifiers* ids);

// mem0's filter language (docs/MEM0.md, "Filters") over one memory: conditions on its metadata
// keys and its mem0 fields, with eq / ne / gt / gte / lt / lte / in / nin / contains / icontains /
// "*" and AND / OR / NOT.
//
// Immutable after Compile; Matches may run concurrently.
class Mem0Filter {
 public:
  // Checks and compiles a filter object. kInvalidArgument naming the place ("filters.category",
  // "filters.OR[1].priority") and, for an unknown operator, the operator and the supported ones.
  static StatusOr<Mem0Filter> Compile(const nlohmann::json& filters);

  // The fields a filter sees for `memory`: its metadata's keys, then `id`, `memory` (the text),
  // `role`, `actor_id` (the speaker, when there is one), `user_id` / `agent_id` / `run_id` (from
  // the scope, Mem0ScopeIdentifiers) and `created_at` / `updated_at` (ISO-8601, UTC); a field
  // shadows a metadata key of the same name.
  static nlohmann::json FieldsOf(const Memory& memory);

  // Whether `fields` (FieldsOf's shape) pass the filter.
  bool Matches(const nlohmann::json& fields) const;

  struct Node;  // the compiled tree, defined in mem0_filter.cc

 private:
  explicit Mem0Filter(std::shared_ptr<const Node> root) : root_(std::move(root)) {}
  std::shared_ptr<const Node> root_;
};

}  // namespace engram::server

#endif  // ENGRAM_SERVER_MEM0_FILTER_H_
