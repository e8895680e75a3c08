// The OpenAPI 3.1 document of the /v1 routes (see openapi.h). Schemas are built with small
// helpers; "closed" objects (additionalProperties: false) are the request bodies the server
// validates strictly and the responses whose keys io/api_json.h fixes.
#include "server/openapi.h"

#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

namespace engram::server {
namespace {

using Json = io::Json;
using Props = std::vector<std::pair<std::string, Json>>;

Json Type(const char* type) { return Json{{"type", type}}; }
Json Nullable(const char* type) { return Json{{"type", Json::array({type, "null"})}}; }
Json Ref(const std::string& name) { return Json{{"$ref", "#/components/schemas/" + name}}; }
Json ArrayOf(Json items) { return Json{{"type", "array"}, {"items", std::move(items)}}; }
Json Enum(std::initializer_list<const char*> values) {
  Json out = Type("string");
  out["enum"] = Json::array();
  for (const char* value : values) out["enum"].push_back(value);
  return out;
}

Json Object(const Props& properties, std::initializer_list<const char*> required,
            bool closed = true) {
  Json out = Type("object");
  out["properties"] = Json::object();
  for (const auto& [name, schema] : properties) out["properties"][name] = schema;
  out["required"] = Json::array();
  for (const char* name : required) out["required"].push_back(name);
  if (closed) out["additionalProperties"] = false;
  return out;
}

// Every key of `properties` required.
Json Closed(const Props& properties) {
  Json out = Object(properties, {});
  for (const auto& [name, schema] : properties) out["required"].push_back(name);
  return out;
}

const Json kStatusEnum = Enum({"active", "superseded", "retired", "rejected", "pending"});
const Json kKindEnum =
    Enum({"scope", "turn", "signal", "entity", "fact", "episode", "scene", "profile", "summary"});
const Json kRoleEnum = Enum({"user", "assistant", "system", "tool"});

Props TurnFields() {
  return {{"text", Type("string")},
          {"role", kRoleEnum},
          {"speaker", Nullable("string")},
          {"session_id", Nullable("string")},
          {"event_time", Nullable("string")},
          {"metadata", Json{{"type", Json::array({"object", "null"})}}},
          {"idempotency_key", Nullable("string")}};
}

Json Schemas() {
  Json s = Json::object();
  s["Error"] = Closed({{"error", Closed({{"code", Type("string")},
                                         {"message", Type("string")},
                                         {"request_id", Type("string")}})}});
  s["Turn"] = Object(TurnFields(), {"text"});
  Props amend = TurnFields();
  amend.emplace_back("reason", Type("string"));
  s["AmendRequest"] = Object(amend, {"text"});
  s["RememberRequest"] = Object({{"turns", ArrayOf(Ref("Turn"))}}, {"turns"});
  s["RememberResult"] = Closed({{"scope", Type("string")},
                                {"ids", ArrayOf(Type("string"))},
                                {"first_sequence", Type("integer")},
                                {"last_sequence", Type("integer")},
                                {"already_stored", ArrayOf(Type("integer"))}});
  s["Memory"] = Closed({{"id", Type("string")},
                        {"kind", kKindEnum},
                        {"scope", Type("string")},
                        {"sequence", Type("integer")},
                        {"status", kStatusEnum},
                        {"role", kRoleEnum},
                        {"speaker", Type("string")},
                        {"session_id", Type("string")},
                        {"event_time", Nullable("string")},
                        {"text", Type("string")},
                        {"metadata", Json{{"type", Json::array({"object", "string"})}}},
                        {"valid_from", Nullable("string")},
                        {"valid_to", Nullable("string")},
                        {"ingested_at", Nullable("string")},
                        {"updated_at", Nullable("string")},
                        {"provenance", ArrayOf(Type("string"))}});
  s["MemoryPage"] = Closed({{"scope", Type("string")},
                            {"count", Type("integer")},
                            {"memories", ArrayOf(Ref("Memory"))},
                            {"next_after", Nullable("integer")}});
  s["TimelinePage"] = Closed({{"scope", Type("string")},
                              {"count", Type("integer")},
                              {"memories", ArrayOf(Ref("Memory"))},
                              {"scanned", Type("integer")},
                              {"next_after", Nullable("integer")}});
  s["RecallRequest"] =
      Object({{"query", Type("string")},
              {"k", Type("integer")},
              {"token_budget", Type("integer")},
              {"routes", ArrayOf(Type("string"))},
              {"route_weights", Json{{"type", "object"}, {"additionalProperties", Type("number")}}},
              {"use_planner", Type("boolean")},
              {"include_retired", Type("boolean")},
              {"include_nested", Type("boolean")},
              {"policy", Enum({"strict", "balanced", "advanced"})},
              {"query_time", Nullable("string")},
              {"valid_at", Nullable("string")},
              {"known_at", Nullable("string")},
              {"explain", Type("boolean")},
              {"mode", Enum({"evidence", "chat"})},
              {"packing", Enum({"value", "rank"})}},
             {"query"});
  // The claim that superseded an item's, or one that contradicts it (read/current_state.h).
  s["RelatedClaim"] = Object({{"id", Type("string")},
                              {"statement", Type("string")},
                              {"text", Type("string")},
                              {"time", Nullable("string")},
                              {"evidence", ArrayOf(Type("string"))},
                              {"claim", Type("string")}},
                             {"id", "statement", "text", "time", "evidence", "claim"});
  Json superseded_by = s["RelatedClaim"];
  superseded_by["type"] = Json::array({"object", "null"});
  s["RecallItem"] = Object({{"id", Type("string")},
                            {"kind", kKindEnum},
                            {"scope", Type("string")},
                            {"sequence", Type("integer")},
                            {"status", kStatusEnum},
                            {"role", kRoleEnum},
                            {"speaker", Type("string")},
                            {"session_id", Type("string")},
                            {"event_time", Nullable("string")},
                            {"text", Type("string")},
                            {"metadata", Json{{"type", Json::array({"object", "string"})}}},
                            {"score", Type("number")},
                            {"fused_score", Type("number")},
                            {"routes", ArrayOf(Type("object"))},
                            {"adjustments", ArrayOf(Type("object"))},
                            {"provenance", ArrayOf(Type("string"))},
                            {"tokens", Type("integer")},
                            {"excerpt", Object({{"begin", Type("integer")},
                                                {"end", Type("integer")},
                                                {"full_bytes", Type("integer")}},
                                               {"begin", "end", "full_bytes"})},
                            {"superseded_by", superseded_by},
                            {"conflicts", ArrayOf(Ref("RelatedClaim"))}},
                           {"id", "kind", "scope", "sequence", "status", "text", "score",
                            "fused_score", "provenance", "tokens", "superseded_by", "conflicts"});
  s["RecallResult"] =
      Object({{"query", Type("string")},
              {"policy", Enum({"strict", "balanced", "advanced"})},
              {"context", Type("string")},
              {"answer_instructions", Type("string")},
              {"items", ArrayOf(Ref("RecallItem"))},
              // Without "explain" only their warnings (what the recall could not do).
              {"diagnostics", Object({{"warnings", ArrayOf(Type("string"))}}, {"warnings"},
                                     /*closed=*/false)},
              {"latency_ms", Type("number")},
              {"mode", Enum({"evidence", "chat"})},
              {"chat", ArrayOf(Closed({{"section", Enum({"profile", "foresight"})},
                                       {"person", Type("string")},
                                       {"text", Type("string")},
                                       {"memory_id", Type("string")},
                                       {"evidence", ArrayOf(Type("string"))},
                                       {"tokens", Type("integer")}}))},
              // Whether the context holds what the question asks for (read/sufficiency.h).
              {"sufficiency",
               Closed({{"verdict", Enum({"sufficient", "partial", "insufficient"})},
                       {"reasons", ArrayOf(Type("string"))},
                       {"term_share", Type("number")},
                       {"best_item_share", Type("number")}})}},
             {"query", "policy", "context", "answer_instructions", "items", "diagnostics",
              "latency_ms", "sufficiency"});
  s["ContextRequest"] = Object({{"query", Type("string")},
                                {"k", Type("integer")},
                                {"token_budget", Type("integer")},
                                {"window_budget", Type("integer")},
                                {"recall_enclosing", Type("boolean")},
                                {"policy", Enum({"strict", "balanced", "advanced"})},
                                {"query_time", Nullable("string")},
                                {"explain", Type("boolean")}},
                               {"query"});
  s["WindowTurn"] = Closed({{"id", Type("string")},
                            {"sequence", Type("integer")},
                            {"interaction", Type("integer")},
                            {"role", kRoleEnum},
                            {"speaker", Type("string")},
                            {"session_id", Type("string")},
                            {"event_time", Nullable("string")},
                            {"text", Type("string")},
                            {"tokens", Type("integer")},
                            {"omega", Type("number")},
                            {"omega_raw", Type("number")},
                            {"omega_eff", Type("number")},
                            {"prune_score", Type("number")},
                            {"tier", Enum({"healthy", "unstable", "critical"})},
                            {"signals", ArrayOf(Type("string"))},
                            {"superseded", Type("boolean")},
                            {"reason", Enum({"within_budget", "healthy", "outranks_pruned"})},
                            {"explanation", Type("string")}});
  s["ContextResult"] = Closed({{"run", Type("string")},
                               {"query", Type("string")},
                               {"policy", Enum({"strict", "balanced", "advanced"})},
                               {"context", Type("string")},
                               {"answer_instructions", Type("string")},
                               {"token_budget", Type("integer")},
                               {"window_budget", Type("integer")},
                               {"context_tokens", Type("integer")},
                               {"recalled_tokens", Type("integer")},
                               {"window_tokens", Type("integer")},
                               {"recalled_from", Type("string")},
                               {"recalled", ArrayOf(Ref("RecallItem"))},
                               {"warnings", ArrayOf(Type("string"))},
                               {"window", ArrayOf(Ref("WindowTurn"))},
                               {"run_turns", Type("integer")},
                               {"last_sweep", Type("integer")},
                               {"left_window", Closed({{"hard_killed", Type("integer")},
                                                       {"pruned", Type("integer")},
                                                       {"too_large", Type("integer")},
                                                       {"inactive", Type("integer")}})},
                               {"latency_ms", Type("number")}});
  s["RetireAllResult"] = Closed({{"scope", Type("string")}, {"retired", Type("integer")}});
  s["EraseRequest"] = Object({{"confirm", Type("string")}}, {"confirm"});
  s["EraseResult"] = Closed({{"scope", Type("string")},
                             {"scopes", Type("integer")},
                             {"nodes", Type("integer")},
                             {"edges", Type("integer")}});
  s["ScopeList"] = Closed({{"count", Type("integer")},
                           {"scopes", ArrayOf(Closed({{"scope", Type("string")},
                                                      {"memories", Type("integer")},
                                                      {"last_sequence", Type("integer")}}))}});
  s["Facts"] = Closed(
      {{"scope", Type("string")},
       {"all", Type("boolean")},
       {"rejected", Type("boolean")},
       {"valid_at", Nullable("string")},
       {"known_at", Nullable("string")},
       {"count", Type("integer")},
       {"facts", ArrayOf(Object({{"id", Type("string")},
                                 {"status", kStatusEnum},
                                 {"subject", Type("string")},
                                 {"predicate", Type("string")},
                                 {"object", Type("string")},
                                 {"provenance", ArrayOf(Type("string"))}},
                                {"id", "status", "subject", "predicate", "object", "provenance"},
                                /*closed=*/false))}});
  s["Entities"] =
      Closed({{"scope", Type("string")},
              {"count", Type("integer")},
              {"entities", ArrayOf(Closed({{"id", Type("string")},
                                           {"name", Type("string")},
                                           {"kind", Type("string")},
                                           {"mentions", Type("integer")},
                                           {"same_as", ArrayOf(Type("string"))},
                                           {"first_seen", Nullable("string")},
                                           {"provenance", ArrayOf(Type("string"))}}))}});
  s["ConsolidateResult"] = Closed({{"scope", Type("string")},
                                   {"turns", Type("integer")},
                                   {"episodes", Type("integer")},
                                   {"scenes", Type("integer")},
                                   {"profiles", Type("integer")},
                                   {"written", Type("integer")},
                                   {"superseded", Type("integer")}});
  const Json sentences = ArrayOf(Closed({{"turn", Type("string")}, {"text", Type("string")}}));
  s["Episodes"] = Closed(
      {{"scope", Type("string")},
       {"all", Type("boolean")},
       {"count", Type("integer")},
       {"episodes",
        ArrayOf(Closed({{"id", Type("string")},
                        {"status", kStatusEnum},
                        {"turns", ArrayOf(Type("string"))},
                        {"first_sequence", Type("integer")},
                        {"last_sequence", Type("integer")},
                        {"start", Type("string")},
                        {"end", Type("string")},
                        {"session", Type("string")},
                        {"boundary", Enum({"start", "session", "time_gap", "topic", "length"})},
                        {"speakers", ArrayOf(Type("string"))},
                        {"entities", ArrayOf(Closed({{"id", Type("string")},
                                                     {"name", Type("string")}}))},
                        {"facts", ArrayOf(Type("string"))},
                        {"foresight", ArrayOf(Type("string"))},
                        {"narrative", Type("string")},
                        {"sentences", sentences}}))}});
  s["Scenes"] = Closed({{"scope", Type("string")},
                        {"all", Type("boolean")},
                        {"count", Type("integer")},
                        {"scenes", ArrayOf(Closed({{"id", Type("string")},
                                                   {"status", kStatusEnum},
                                                   {"episodes", ArrayOf(Type("string"))},
                                                   {"start", Type("string")},
                                                   {"end", Type("string")},
                                                   {"keywords", ArrayOf(Type("string"))},
                                                   {"summary", sentences},
                                                   {"centroid_dimension", Type("integer")}}))}});
  const Json slot_value = Closed({{"fact", Type("string")},
                                  {"object", Type("string")},
                                  {"status", Type("string")},
                                  {"valid_from", Nullable("string")},
                                  {"valid_to", Nullable("string")},
                                  {"turns", ArrayOf(Type("string"))}});
  Json current = slot_value;
  current["type"] = Json::array({"object", "null"});
  s["Profile"] = Closed(
      {{"scope", Type("string")},
       {"all", Type("boolean")},
       {"count", Type("integer")},
       {"people",
        ArrayOf(Closed({{"id", Type("string")},
                        {"status", kStatusEnum},
                        {"name", Type("string")},
                        {"scope_user", Type("boolean")},
                        {"speaker", Type("boolean")},
                        {"explicit", ArrayOf(Closed({{"predicate", Type("string")},
                                                     {"current", current},
                                                     {"history", ArrayOf(slot_value)}}))},
                        {"traits", ArrayOf(Closed({{"kind", Type("string")},
                                                   {"predicate", Type("string")},
                                                   {"object", Type("string")},
                                                   {"polarity", Enum({"+", "-"})},
                                                   {"count", Type("integer")},
                                                   {"facts", ArrayOf(Type("string"))},
                                                   {"turns", ArrayOf(Type("string"))}}))}}))}});
  s["Foresight"] = Closed(
      {{"scope", Type("string")},
       {"at", Type("string")},
       {"all", Type("boolean")},
       {"count", Type("integer")},
       {"foresight", ArrayOf(Closed({{"id", Type("string")},
                                     {"status", kStatusEnum},
                                     {"validity", Enum({"upcoming", "valid", "expired"})},
                                     {"text", Type("string")},
                                     {"subject", Type("string")},
                                     {"predicate", Type("string")},
                                     {"object", Type("string")},
                                     {"valid_from", Nullable("string")},
                                     {"valid_to", Nullable("string")},
                                     {"turns", ArrayOf(Type("string"))}}))}});
  s["Proposal"] = Closed({{"id", Type("string")},
                          {"a", Type("string")},
                          {"b", Type("string")},
                          {"status", Enum({"pending", "accepted", "rejected"})},
                          {"reason", Type("string")}});
  s["ProposalList"] = Closed({{"scope", Type("string")},
                              {"count", Type("integer")},
                              {"proposals", ArrayOf(Ref("Proposal"))}});
  s["ProposeRequest"] = Object(
      {{"a", Type("string")}, {"b", Type("string")}, {"reason", Type("string")}}, {"a", "b"});
  s["Decision"] = Closed({{"id", Type("string")}, {"status", Enum({"accepted", "rejected"})}});
  s["History"] = Closed({{"id", Type("string")},
                         {"history", ArrayOf(Closed({{"at", Nullable("string")},
                                                     {"action", Type("string")},
                                                     {"status", kStatusEnum},
                                                     {"valid_to", Nullable("string")},
                                                     {"related_id", Type("string")},
                                                     {"detail", Type("string")}}))}});
  s["Links"] = Closed(
      {{"id", Type("string")},
       {"links", ArrayOf(Closed({{"id", Type("string")},
                                 {"type", Type("string")},
                                 {"src", Type("string")},
                                 {"dst", Type("string")},
                                 {"status", Type("string")},
                                 {"attrs", Json{{"type", Json::array({"object", "string"})}}}}))}});
  // The world graph (io/graph_json.h).
  s["GraphNode"] = Closed({{"id", Type("string")},
                           {"kind", kKindEnum},
                           {"scope", Type("string")},
                           {"text", Type("string")},
                           {"status", kStatusEnum},
                           {"valid_from", Nullable("string")},
                           {"valid_to", Nullable("string")}});
  s["GraphEdge"] = Closed({{"id", Type("string")},
                           {"type", Type("string")},
                           {"src", Type("string")},
                           {"dst", Type("string")},
                           {"scope", Type("string")},
                           {"status", kStatusEnum},
                           {"valid_from", Nullable("string")},
                           {"valid_to", Nullable("string")},
                           {"ingested_at", Nullable("string")},
                           {"attrs", Json{{"type", Json::array({"object", "string"})}}}});
  s["Neighbours"] = Closed({{"node", Ref("GraphNode")},
                            {"count", Type("integer")},
                            {"neighbours", ArrayOf(Closed({{"direction", Enum({"out", "in"})},
                                                           {"edge", Ref("GraphEdge")},
                                                           {"node", Ref("GraphNode")}}))},
                            {"truncated", Type("boolean")}});
  s["Paths"] = Closed({{"from", Type("string")},
                       {"to", Type("string")},
                       {"count", Type("integer")},
                       {"paths", ArrayOf(Closed({{"length", Type("integer")},
                                                 {"nodes", ArrayOf(Type("string"))},
                                                 {"edges", ArrayOf(Ref("GraphEdge"))}}))},
                       {"nodes", ArrayOf(Ref("GraphNode"))},
                       {"truncated", Type("boolean")}});
  s["IdentityClass"] = Closed({{"entity", Ref("GraphNode")},
                               {"count", Type("integer")},
                               {"members", ArrayOf(Ref("GraphNode"))},
                               {"edges", ArrayOf(Ref("GraphEdge"))},
                               {"truncated", Type("boolean")}});
  s["EdgeTypes"] = Closed({{"count", Type("integer")},
                           {"edge_types", ArrayOf(Closed({{"name", Type("string")},
                                                          {"builtin", Type("boolean")},
                                                          {"single_valued", Type("boolean")},
                                                          {"symmetric", Type("boolean")},
                                                          {"transitive", Type("boolean")}}))}});
  s["AddEdgeRequest"] = Object({{"type", Type("string")},
                                {"src", Type("string")},
                                {"dst", Type("string")},
                                {"attrs", Type("object")},
                                {"valid_from", Nullable("string")}},
                               {"type", "src", "dst"});
  s["RetireRequest"] = Object({{"reason", Type("string")}}, {});
  s["AmendResult"] = Closed(
      {{"id", Type("string")}, {"superseded_id", Type("string")}, {"sequence", Type("integer")}});
  s["RebuildReport"] = Closed({{"scopes", Type("integer")},
                               {"documents", Type("integer")},
                               {"terms", Type("integer")},
                               {"seconds", Type("number")},
                               {"matched_live_index", Type("boolean")}});
  s["Info"] = Closed({{"embedder", Type("string")}, {"limits", Type("object")}});
  s["OpenApi"] = Object({{"openapi", Type("string")}, {"paths", Type("object")}},
                        {"openapi", "paths"}, /*closed=*/false);
  return s;
}

Json Param(const char* name, const char* in, Json schema, const char* description, bool required) {
  return Json{{"name", name},
              {"in", in},
              {"required", required},
              {"description", description},
              {"schema", std::move(schema)}};
}

const char* kScopeParam =
    "Scope path (Scope::ToString form), e.g. app:crm/user:alice; the '/' may be sent as %2F";

Json JsonContent(const std::string& schema) {
  return Json{{"application/json", Json{{"schema", Ref(schema)}}}};
}

// One operation: its summary, parameters, request schema ("" = none), success status and
// schema, and the error statuses it can answer.
Json Operation(const char* summary, std::vector<Json> parameters, const std::string& request,
               int status, const std::string& response, std::initializer_list<int> errors) {
  Json op = Json::object();
  op["summary"] = summary;
  if (!parameters.empty()) op["parameters"] = parameters;
  if (!request.empty()) {
    op["requestBody"] = Json{{"required", true}, {"content", JsonContent(request)}};
  }
  op["responses"] = Json::object();
  op["responses"][std::to_string(status)] =
      Json{{"description", "success"}, {"content", JsonContent(response)}};
  for (const int error : errors) {
    op["responses"][std::to_string(error)] =
        Json{{"description", "error"}, {"content", JsonContent("Error")}};
  }
  return op;
}

Json Build() {
  const Json scope = Param("scope", "path", Type("string"), kScopeParam, true);
  const Json id = Param("id", "path", Type("string"), "Memory id (32 lowercase hex digits)", true);
  const Json proposal_id =
      Param("id", "path", Type("string"), "Proposal id (32 lowercase hex digits)", true);
  Json paths = Json::object();
  paths["/v1/scopes/{scope}/memories"]["post"] =
      Operation("Remember a batch of turns (all or none)",
                {scope, Param("wait", "query", Enum({"durable", "indexed", "derived"}),
                              "When to answer: indexed (default: stored and searchable by "
                              "BM25; embedding and derivation follow in the background), "
                              "durable (committed) or derived (embedded and derived too)",
                              false)},
                "RememberRequest", 201, "RememberResult", {400, 401, 403, 413});
  paths["/v1/scopes/{scope}/memories"]["get"] = Operation(
      "List memories of exactly this scope, in sequence order",
      {scope,
       Param("kind", "query", Type("string"), "all, turn (default), signal, entity, fact, ...",
             false),
       Param("limit", "query", Type("integer"), "1 to max_list_limit (default 100)", false),
       Param("after", "query", Type("integer"), "only sequence numbers above (next_after)", false),
       Param("include_retired", "query", Type("boolean"), "default true", false)},
      "", 200, "MemoryPage", {400, 401, 403, 404});
  paths["/v1/scopes/{scope}/timeline"]["get"] = Operation(
      "A filtered page of the scope's timeline, in sequence order; examines at most "
      "max_timeline_scan memories, then says where to continue",
      {scope,
       Param("kind", "query", Type("string"), "all, turn (default), signal, entity, fact, ...",
             false),
       Param("speaker", "query", Type("string"), "only this speaker (ASCII case ignored)", false),
       Param("since", "query", Type("string"), "only event times at or after (ISO-8601)", false),
       Param("until", "query", Type("string"), "only event times before (ISO-8601)", false),
       Param("limit", "query", Type("integer"), "1 to max_list_limit (default 50)", false),
       Param("after", "query", Type("integer"), "only sequence numbers above (next_after)", false)},
      "", 200, "TimelinePage", {400, 401, 403, 404});
  paths["/v1/scopes/{scope}/recall"]["post"] =
      Operation("Recall memories for a query", {scope}, "RecallRequest", 200, "RecallResult",
                {400, 401, 403, 404});
  paths["/v1/scopes/{scope}/context"]["post"] =
      Operation("A run's context: recalled memory, then its active window (DMF)", {scope},
                "ContextRequest", 200, "ContextResult", {400, 401, 403, 404});
  paths["/v1/scopes/{scope}/retire-all"]["post"] =
      Operation("Retire every active memory of the scope and its nested scopes", {scope}, "", 200,
                "RetireAllResult", {400, 401, 403, 404});
  paths["/v1/scopes/{scope}"]["delete"] =
      Operation("Erase the scope, its nested scopes and all their memories", {scope},
                "EraseRequest", 200, "EraseResult", {400, 401, 403, 404});
  paths["/v1/scopes"]["get"] =
      Operation("Scopes the caller may read", {}, "", 200, "ScopeList", {401});
  paths["/v1/scopes/{scope}/facts"]["get"] =
      Operation("Facts derived in the scope",
                {scope, Param("all", "query", Type("boolean"), "also replaced facts", false),
                 Param("rejected", "query", Type("boolean"), "only rejected candidates", false),
                 Param("valid_at", "query", Type("string"),
                       "ISO-8601 time: the facts valid then, superseded since or not", false),
                 Param("known_at", "query", Type("string"),
                       "ISO-8601 time: the facts recorded by then, with the status and chains "
                       "they had then",
                       false)},
                "", 200, "Facts", {400, 401, 403, 404});
  paths["/v1/scopes/{scope}/entities"]["get"] = Operation(
      "Entities resolved in the scope", {scope}, "", 200, "Entities", {400, 401, 403, 404});
  paths["/v1/scopes/{scope}/consolidate"]["post"] =
      Operation("Build the scope's episodes, scenes and profiles (idempotent; optional body {})",
                {scope}, "", 200, "ConsolidateResult", {400, 401, 403, 404});
  const Json all = Param("all", "query", Type("boolean"), "also superseded and retired ones", false);
  paths["/v1/scopes/{scope}/episodes"]["get"] =
      Operation("Episodes the last consolidation stored", {scope, all}, "", 200, "Episodes",
                {400, 401, 403, 404});
  paths["/v1/scopes/{scope}/scenes"]["get"] = Operation(
      "Scenes the last consolidation stored", {scope, all}, "", 200, "Scenes", {400, 401, 403, 404});
  paths["/v1/scopes/{scope}/profile"]["get"] =
      Operation("Each person's profile: current facts with history, and traits", {scope, all}, "",
                200, "Profile", {400, 401, 403, 404});
  paths["/v1/scopes/{scope}/foresight"]["get"] = Operation(
      "Plans and temporary states valid at a time",
      {scope, Param("at", "query", Type("string"), "ISO-8601 time (default now)", false),
       Param("all", "query", Type("boolean"), "every one, marked upcoming / valid / expired",
             false)},
      "", 200, "Foresight", {400, 401, 403, 404});
  paths["/v1/scopes/{scope}/proposals"]["get"] =
      Operation("Identity-merge proposals of the scope", {scope}, "", 200, "ProposalList",
                {400, 401, 403, 404});
  paths["/v1/memories/{id}"]["get"] =
      Operation("One memory", {id}, "", 200, "Memory", {400, 401, 404});
  paths["/v1/memories/{id}/history"]["get"] =
      Operation("The memory's changes, oldest first", {id}, "", 200, "History", {400, 401, 404});
  paths["/v1/memories/{id}/links"]["get"] =
      Operation("Edges from or to the memory", {id}, "", 200, "Links", {400, 401, 404});
  const Json types = Param("types", "query", Type("string"),
                           "edge types to follow, comma-separated (default: every type)", false);
  const Json direction =
      Param("direction", "query", Enum({"out", "in", "both"}), "default both", false);
  const Json graph_limit =
      Param("limit", "query", Type("integer"), "1 to 1000 results (default 100)", false);
  const Json include_retired = Param("include_retired", "query", Type("boolean"),
                                     "without valid_at / known_at: also retired, superseded, "
                                     "pending and rejected edges and memories",
                                     false);
  const Json valid_at = Param("valid_at", "query", Type("string"),
                              "ISO-8601 time: the edges and memories valid then", false);
  const Json known_at =
      Param("known_at", "query", Type("string"),
            "ISO-8601 time: only what was recorded by then, with the status it had then", false);
  paths["/v1/memories/{id}/neighbours"]["get"] = Operation(
      "The memory's edges of the asked types and direction, with the memory at each other end",
      {id, types, direction, graph_limit, include_retired, valid_at, known_at}, "", 200,
      "Neighbours", {400, 401, 404});
  paths["/v1/memories/{id}/paths"]["get"] = Operation(
      "Simple paths from the memory to another of at most max_depth edges, shortest first",
      {id, Param("to", "query", Type("string"), "the memory id the paths end at", true), types,
       direction,
       Param("max_depth", "query", Type("integer"), "1 to 4 edges per path (default 2)", false),
       graph_limit, include_retired, valid_at, known_at},
      "", 200, "Paths", {400, 401, 404});
  paths["/v1/memories/{id}/identity"]["get"] =
      Operation("The entity's identity class: entities joined to it by accepted same_as edges",
                {id, graph_limit, include_retired, valid_at, known_at}, "", 200, "IdentityClass",
                {400, 401, 404});
  paths["/v1/edge-types"]["get"] =
      Operation("Every registered edge type with its semantics ([graph] edge_types)", {}, "", 200,
                "EdgeTypes", {401});
  paths["/v1/scopes/{scope}/edges"]["post"] =
      Operation("Add an edge of a client type declared in [graph] edge_types", {scope},
                "AddEdgeRequest", 201, "GraphEdge", {400, 401, 403, 404, 409});
  const Json edge_id =
      Param("id", "path", Type("string"), "Edge id (32 lowercase hex digits)", true);
  paths["/v1/edges/{id}"]["get"] =
      Operation("One edge", {edge_id}, "", 200, "GraphEdge", {400, 401, 404});
  paths["/v1/edges/{id}/retire"]["post"] =
      Operation("Retire a client edge (optional body {})", {edge_id}, "", 200, "GraphEdge",
                {400, 401, 403, 404, 409});
  paths["/v1/memories/{id}/retire"]["post"] =
      Operation("Retire the memory (optional body {\"reason\"})", {id}, "", 200, "Memory",
                {400, 401, 403, 404, 409});
  paths["/v1/memories/{id}/amend"]["post"] =
      Operation("Correct a turn: a new turn that supersedes it", {id}, "AmendRequest", 201,
                "AmendResult", {400, 401, 403, 404, 409});
  paths["/v1/proposals"]["post"] =
      Operation("Propose that two memories are the same", {}, "ProposeRequest", 201, "Proposal",
                {400, 401, 403, 404, 409});
  paths["/v1/proposals/{id}/accept"]["post"] = Operation(
      "Accept a merge proposal", {proposal_id}, "", 200, "Decision", {400, 401, 403, 404, 409});
  paths["/v1/proposals/{id}/reject"]["post"] = Operation(
      "Reject a merge proposal", {proposal_id}, "", 200, "Decision", {400, 401, 403, 404, 409});
  paths["/v1/admin/rebuild-index"]["post"] =
      Operation("Rebuild every index projection and compare (root admin key)", {}, "", 200,
                "RebuildReport", {401, 403});
  paths["/v1/info"]["get"] = Operation("Embedder and request limits", {}, "", 200, "Info", {401});
  paths["/v1/openapi.json"]["get"] =
      Operation("This document (no key needed)", {}, "", 200, "OpenApi", {});

  Json doc = Json::object();
  doc["openapi"] = "3.1.0";
  doc["info"] = Json{{"title", "engram native REST API"}, {"version", "1"}};
  doc["components"] = Json::object();
  doc["components"]["securitySchemes"] =
      Json{{"apiKey", Json{{"type", "http"}, {"scheme", "bearer"}}}};
  doc["security"] = Json::array({Json{{"apiKey", Json::array()}}});
  doc["paths"] = std::move(paths);
  doc["components"]["schemas"] = Schemas();
  return doc;
}

}  // namespace

const io::Json& OpenApiDocument() {
  static const io::Json* const kDocument = new io::Json(Build());
  return *kDocument;
}

}  // namespace engram::server
