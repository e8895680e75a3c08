// The fourteen tools (see tools.h): their table — per tool its name, description, argument specs
// (tool_args.h: the inputSchema and the checks), output schema, annotations, the right it needs
// and its handler (tool_handlers.h) — and the dispatch that checks a call's arguments and the
// caller's right on its target before the handler runs.
#include "mcp/tools.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/ids.h"
#include "io/api_json.h"
#include "mcp/tool_args.h"
#include "mcp/tool_handlers.h"

namespace engram::mcp {
namespace {

using nlohmann::json;

// Longest scope path an argument may hold (Scope::kMaxDepth segments of kMaxNameBytes, with
// their kinds and separators).
constexpr std::int64_t kMaxScopeBytes = 2048;
constexpr std::int64_t kMaxReasonBytes = 1024;  // Engine::Amend's limit
constexpr std::int64_t kMaxQueryBytes = 16 * 1024;
constexpr std::int64_t kMaxTokenBudget = 1'000'000;

// What a tool's right is checked on before it runs.
enum class Target {
  kNone,    // nothing (memory_list_scopes filters what it lists instead)
  kScope,   // the `scope` argument, or the default scope when the call names none
  kMemory,  // the scope of the memory `id` names
  kEdge,    // the scope of the edge `id` names (both its ends must be readable)
};

// One tool: its definition (tools/list) and how a call of it is checked and run.
struct ToolSpec {
  std::string_view name;
  std::string_view title;
  std::string description;
  std::vector<ArgSpec> args;
  Target target = Target::kNone;
  auth::Right right = auth::Right::kRead;
  bool read_only = false;
  bool destructive = false;
  bool idempotent = false;
  // The shape of structuredContent. Null for a tool whose result is its text item alone
  // (memory_recall): then it has neither outputSchema nor structuredContent.
  io::Json output_schema;
  Runner run = nullptr;
};

// The shape of io::ToJson(Memory), for the output schemas.
io::Json MemorySchema() {
  return ObjectSchema({{"id", TypeSchema("string")},
                       {"kind", TypeSchema("string")},
                       {"scope", TypeSchema("string")},
                       {"sequence", TypeSchema("integer")},
                       {"status", TypeSchema("string")},
                       {"role", TypeSchema("string")},
                       {"speaker", TypeSchema("string")},
                       {"session_id", TypeSchema("string")},
                       {"event_time", NullableString()},
                       {"text", TypeSchema("string")},
                       {"valid_from", NullableString()},
                       {"valid_to", NullableString()},
                       {"ingested_at", NullableString()},
                       {"updated_at", NullableString()},
                       {"provenance", ArrayOf(TypeSchema("string"))}},
                      {"id", "kind", "scope", "sequence", "status", "text"});
}

// ---- access ----------------------------------------------------------------------------------

// A tool call the caller's rights do not allow. engram's StatusCode has no code for it (the
// engine never refuses a caller; REST answers 403 PERMISSION_DENIED), so it travels apart from
// Status and becomes a result of its own.
struct Denial {
  auth::Right right;
  std::string scope;
};

std::string DenialMessage(const Denial& denial) {
  return "this caller has no " + std::string(auth::RightName(denial.right)) + " right on scope " +
         denial.scope;
}

// The scope a call names, or the default scope when it names none.
StatusOr<Scope> ScopeArg(const json& args, const std::optional<Scope>& default_scope) {
  const auto found = args.find("scope");
  if ((found == args.end() || found->is_null()) && default_scope) return *default_scope;
  StatusOr<Scope> scope = Scope::Parse(StringArg(args, "scope"));
  if (!scope.ok()) return ArgError("scope", "is not a valid scope: " + scope.status().message());
  return scope;
}

// The memory `id` names, if the caller may read it. A memory the caller may not read is "not
// found", so ids reveal nothing about other tenants.
StatusOr<Memory> MemoryArg(const json& args, Engine& engine, const auth::Access& access) {
  const std::string id = StringArg(args, "id");
  if (!core::LooksLikeId(id)) {
    return ArgError("id", "must be a memory id: 32 lowercase hex digits");
  }
  StatusOr<Memory> memory = engine.Get(id);
  if ((!memory.ok() && memory.status().code() == StatusCode::kNotFound) ||
      (memory.ok() && !access.AllowsPath(memory->scope, auth::Right::kRead))) {
    return Status::NotFound("no memory with id " + id);
  }
  return memory;
}

// The edge `id` names, if the caller may read it and both its ends; "not found" otherwise.
StatusOr<GraphEdge> EdgeArg(const json& args, Engine& engine, const auth::Access& access) {
  const std::string id = StringArg(args, "id");
  if (!core::LooksLikeId(id)) return ArgError("id", "must be an edge id: 32 lowercase hex digits");
  const Status not_found = Status::NotFound("no edge with id " + id);
  StatusOr<GraphEdge> edge = engine.GetEdge(id);
  if (!edge.ok()) return edge.status().code() == StatusCode::kNotFound ? not_found : edge.status();
  if (!access.AllowsPath(edge->scope, auth::Right::kRead)) return not_found;
  for (const std::string* end : {&edge->src, &edge->dst}) {
    StatusOr<Memory> memory = engine.Get(*end);
    if (!memory.ok() || !access.AllowsPath(memory->scope, auth::Right::kRead)) return not_found;
  }
  return edge;
}

// ---- the tools -------------------------------------------------------------------------------

constexpr std::string_view kScopeHelp =
    "Scope: kind:name segments joined by '/', kinds user, agent, app, run, world "
    "(e.g. user:alice or app:crm/user:alice/run:42).";

// The `scope` argument: optional when there is a default scope.
ArgSpec ScopeSpec(const std::optional<Scope>& default_scope) {
  std::string description(kScopeHelp);
  if (default_scope) description += " Default: " + default_scope->ToString() + ".";
  return {.name = "scope",
          .type = ArgType::kString,
          .required = !default_scope,
          .description = std::move(description),
          .minimum = 1,
          .maximum = kMaxScopeBytes};
}

// The `scope` of a tool that wipes a whole scope: required even with a default, so the model
// names what it wipes.
ArgSpec WipedScopeSpec(const std::optional<Scope>& default_scope) {
  ArgSpec spec = ScopeSpec(std::nullopt);
  if (default_scope) {
    spec.description += " Required even though the other tools default to " +
                        default_scope->ToString() + ": name the scope this wipes.";
  }
  return spec;
}

ArgSpec IdSpec(std::string_view description) {
  return {.name = "id",
          .type = ArgType::kString,
          .required = true,
          .description = std::string(description),
          .minimum = 1,
          .maximum = 256};  // the exact form (32 hex digits) is checked with a clearer message
}

ArgSpec ReasonSpec() {
  return {.name = "reason",
          .type = ArgType::kString,
          .description = "Why, in a few words; kept in the memory's history.",
          .maximum = kMaxReasonBytes};
}

// One item of memory_write's `turns`.
io::Json TurnItemSchema() {
  io::Json schema = io::Json::object();
  schema["type"] = "object";
  io::Json properties = io::Json::object();
  properties["text"] = TypeSchema("string");
  properties["text"]["description"] = "What was said or observed, verbatim.";
  properties["text"]["minLength"] = 1;
  properties["role"] = TypeSchema("string");
  properties["role"]["enum"] = io::Json::array({"user", "assistant", "system", "tool"});
  properties["role"]["description"] = "Who produced the turn. Default: user.";
  properties["speaker"] = TypeSchema("string");
  properties["speaker"]["description"] = "The speaker's name, e.g. Alice.";
  properties["session_id"] = TypeSchema("string");
  properties["session_id"]["description"] = "The conversation session the turn belongs to.";
  properties["event_time"] = TypeSchema("string");
  properties["event_time"]["description"] =
      "When it happened, ISO-8601 (2024-05-01T10:00:00Z). Default: now.";
  properties["metadata"] = TypeSchema("object");
  properties["metadata"]["description"] = "Free-form JSON object stored with the turn.";
  schema["properties"] = std::move(properties);
  schema["required"] = io::Json::array({"text"});
  schema["additionalProperties"] = false;
  return schema;
}

// The tools, for a caller whose calls default to `default_scope` (none: scope is required).
std::vector<ToolSpec> BuildTools(const ServerOptions& options,
                                 const std::optional<Scope>& default_scope) {
  std::vector<ToolSpec> tools;
  tools.push_back(
      {.name = "memory_write",
       .title = "Write memories",
       .description =
           "Stores conversation turns or observations verbatim in a scope, in order, all or "
           "none. Returns one memory id per turn.",
       .args = {ScopeSpec(default_scope),
                {.name = "turns",
                 .type = ArgType::kArray,
                 .required = true,
                 .description = "The turns to store, oldest first.",
                 .minimum = 1,
                 .maximum = static_cast<std::int64_t>(options.max_turns_per_write),
                 .items = TurnItemSchema()},
                {.name = "wait",
                 .description =
                     "When to return: \"indexed\" (default: the turns are stored and found by "
                     "keyword search; embeddings and derived facts follow in the background) or "
                     "\"derived\" (after embedding and derivation too).",
                 .choices = {"durable", "indexed", "derived"}}},
       .target = Target::kScope,
       .right = auth::Right::kWrite,
       .output_schema = ObjectSchema({{"scope", TypeSchema("string")},
                                      {"ids", ArrayOf(TypeSchema("string"))},
                                      {"first_sequence", TypeSchema("integer")},
                                      {"last_sequence", TypeSchema("integer")},
                                      {"already_stored", ArrayOf(TypeSchema("integer"))}},
                                     {"scope", "ids", "first_sequence", "last_sequence"}),
       .run = RunWrite});
  tools.push_back(
      {.name = "memory_recall",
       .title = "Recall memories",
       .description =
           "Finds what a scope (and the scopes nested in it) remembers about a question. "
           "Answers one JSON text sized to the token budget: `context` (the evidence to answer "
           "from, each line under the date it was recorded), `answer_instructions`, and `items`: "
           "the memories the context shows, best first, as references for memory_read, "
           "memory_amend and memory_retire: [id, score], with a third element {kind, scope, "
           "provenance: the turn ids it rests on, excerpt, superseded_by / conflicts: the ids "
           "of the claims the context notes beside it} for one that is not simply a turn of "
           "the recalled scope. `sufficiency` (sufficient / partial / insufficient, with "
           "`sufficiency_reasons`) says whether the context holds what was asked. A scope with "
           "nothing stored yet answers no items and a `note` saying so; `warnings` say what the "
           "recall could not do.",
       .args = {ScopeSpec(default_scope),
                {.name = "query",
                 .type = ArgType::kString,
                 .required = true,
                 .description = "The question, in natural language.",
                 .minimum = 1,
                 .maximum = kMaxQueryBytes},
                {.name = "k",
                 .type = ArgType::kInteger,
                 .description = "Items returned at most. Default: the configured value.",
                 .minimum = 1,
                 .maximum = static_cast<std::int64_t>(options.max_recall_k)},
                {.name = "token_budget",
                 .type = ArgType::kInteger,
                 .description = "Token budget of the context. Default: the configured value.",
                 .minimum = 1,
                 .maximum = kMaxTokenBudget},
                {.name = "policy",
                 .type = ArgType::kString,
                 .description = "Answer policy for the instructions. Default: balanced.",
                 .choices = {"strict", "balanced", "advanced"}},
                {.name = "explain",
                 .type = ArgType::kBoolean,
                 .description = "Include per-route scores and all diagnostics (their "
                                "warnings, what this recall could not do, are always there). "
                                "Default: false."},
                {.name = "include_retired",
                 .type = ArgType::kBoolean,
                 .description = "Also return retired and superseded memories. Default: false."},
                {.name = "query_time",
                 .type = ArgType::kString,
                 .description = "'Now' for the question, ISO-8601. Default: the current time.",
                 .maximum = 64},
                {.name = "valid_at",
                 .type = ArgType::kString,
                 .description = "What was true then: only memories valid at this ISO-8601 time, "
                                "superseded ones included. Default: unset.",
                 .maximum = 64},
                {.name = "known_at",
                 .type = ArgType::kString,
                 .description = "What engram knew then: only memories ingested by this ISO-8601 "
                                "time, with the status they had then. Default: unset.",
                 .maximum = 64},
                {.name = "mode",
                 .type = ArgType::kString,
                 .description = "chat: the person's profile and the valid foresight before the "
                                "evidence, each line with its evidence turn ids. Default: "
                                "evidence.",
                 .choices = {"evidence", "chat"}},
                {.name = "packing",
                 .type = ArgType::kString,
                 .description = "How the context is chosen: value (by value per token above a "
                                "score floor, k an upper bound) or rank (in rank order, at most "
                                "k). Default: the server's config (value).",
                 .choices = {"value", "rank"}}},
       .target = Target::kScope,
       .right = auth::Right::kRead,
       .read_only = true,
       .idempotent = true,
       .run = RunRecall});
  tools.push_back(
      {.name = "memory_list",
       .title = "List memories",
       .description =
           "Lists the memories of exactly one scope in sequence order, a page at a time: pass "
           "the returned next_after as `after` for the next page. A scope with nothing stored "
           "yet lists no memories, with a `note` saying so.",
       .args = {ScopeSpec(default_scope),
                {.name = "kind",
                 .type = ArgType::kString,
                 .description = "Kind of memory listed, or all. Default: turn.",
                 .choices = {"turn", "signal", "entity", "fact", "episode", "scene", "profile",
                             "summary", "all"}},
                {.name = "limit",
                 .type = ArgType::kInteger,
                 .description = "Memories returned at most. Default: 100.",
                 .minimum = 1,
                 .maximum = static_cast<std::int64_t>(options.max_list_limit)},
                {.name = "after",
                 .type = ArgType::kInteger,
                 .description = "Only memories with a greater sequence number. Default: 0.",
                 .minimum = 0},
                {.name = "include_retired",
                 .type = ArgType::kBoolean,
                 .description = "Also list retired and superseded memories. Default: true."}},
       .target = Target::kScope,
       .right = auth::Right::kRead,
       .read_only = true,
       .idempotent = true,
       .output_schema = ObjectSchema({{"scope", TypeSchema("string")},
                                      {"memories", ArrayOf(MemorySchema())},
                                      {"next_after",
                                       [] {
                                         io::Json schema = io::Json::object();
                                         schema["type"] = io::Json::array({"integer", "null"});
                                         return schema;
                                       }()},
                                      {"note", TypeSchema("string")}},
                                     {"scope", "memories", "next_after"}),
       .run = RunList});
  tools.push_back(
      {.name = "memory_read",
       .title = "Read a memory",
       .description = "Reads one memory by id, optionally with its links (derived facts, entities, "
                      "times, supersessions) and its history of changes.",
       .args = {IdSpec("The memory's id (32 hex digits)."),
                {.name = "links",
                 .type = ArgType::kBoolean,
                 .description = "Include the memory's edges. Default: false."},
                {.name = "history",
                 .type = ArgType::kBoolean,
                 .description = "Include the memory's history. Default: false."}},
       .target = Target::kMemory,
       .right = auth::Right::kRead,
       .read_only = true,
       .idempotent = true,
       .output_schema = ObjectSchema({{"memory", MemorySchema()},
                                      {"links", ArrayOf(TypeSchema("object"))},
                                      {"history", ArrayOf(TypeSchema("object"))}},
                                     {"memory"}),
       .run = RunRead});
  tools.push_back(
      {.name = "memory_amend",
       .title = "Amend a memory",
       .description =
           "Corrects a stored turn: stores the new text as a new turn that supersedes the old "
           "one. The old turn is kept, superseded, with its history; recall shows the new one.",
       .args = {IdSpec("The id of the turn to correct."),
                {.name = "text",
                 .type = ArgType::kString,
                 .required = true,
                 .description = "The corrected text, in full.",
                 .minimum = 1},
                ReasonSpec(),
                {.name = "speaker",
                 .type = ArgType::kString,
                 .description = "The speaker, when it changes. Default: the old turn's.",
                 .maximum = kMaxSpeakerBytes}},
       .target = Target::kMemory,
       .right = auth::Right::kWrite,
       .destructive = true,
       .output_schema = ObjectSchema({{"id", TypeSchema("string")},
                                      {"superseded_id", TypeSchema("string")},
                                      {"sequence", TypeSchema("integer")},
                                      {"scope", TypeSchema("string")}},
                                     {"id", "superseded_id", "sequence", "scope"}),
       .run = RunAmend});
  tools.push_back({.name = "memory_retire",
                   .title = "Retire a memory",
                   .description =
                       "Closes a memory's validity now: it stays in history and lists but recall "
                       "no longer returns it.",
                   .args = {IdSpec("The id of the memory to retire."), ReasonSpec()},
                   .target = Target::kMemory,
                   .right = auth::Right::kWrite,
                   .destructive = true,
                   .idempotent = true,
                   .output_schema = ObjectSchema({{"memory", MemorySchema()}}, {"memory"}),
                   .run = RunRetire});
  tools.push_back(
      {.name = "memory_retire_all",
       .title = "Retire a scope's memories",
       .description = "Retires every active memory of a scope and of the scopes nested in it. "
                      "Returns how many were retired.",
       .args = {WipedScopeSpec(default_scope)},
       .target = Target::kScope,
       .right = auth::Right::kWrite,
       .destructive = true,
       .idempotent = true,
       .output_schema =
           ObjectSchema({{"scope", TypeSchema("string")}, {"retired", TypeSchema("integer")}},
                        {"scope", "retired"}),
       .run = RunRetireAll});
  tools.push_back(
      {.name = "memory_purge_scope",
       .title = "Erase a scope",
       .description =
           "Permanently deletes a scope, the scopes nested in it and everything they hold. "
           "Cannot be undone; set confirm to true.",
       .args = {WipedScopeSpec(default_scope),
                {.name = "confirm",
                 .type = ArgType::kBoolean,
                 .required = true,
                 .description = "Must be true: the erase cannot be undone.",
                 .must_be_true = true}},
       .target = Target::kScope,
       .right = auth::Right::kErase,
       .destructive = true,
       .idempotent = true,
       .output_schema = ObjectSchema({{"scope", TypeSchema("string")},
                                      {"scopes", TypeSchema("integer")},
                                      {"nodes", TypeSchema("integer")},
                                      {"edges", TypeSchema("integer")}},
                                     {"scope", "scopes", "nodes", "edges"}),
       .run = RunPurgeScope});
  tools.push_back(
      {.name = "memory_list_scopes",
       .title = "List scopes",
       .description = "Lists the scopes this caller may read, with how many memories each holds.",
       .args = {},
       .target = Target::kNone,
       .right = auth::Right::kRead,
       .read_only = true,
       .idempotent = true,
       .output_schema =
           ObjectSchema({{"scopes", ArrayOf(ObjectSchema({{"scope", TypeSchema("string")},
                                                          {"memories", TypeSchema("integer")},
                                                          {"last_sequence", TypeSchema("integer")}},
                                                         {"scope", "memories"}))}},
                        {"scopes"}),
       .run = RunListScopes});
  tools.push_back(
      {.name = "memory_consolidate",
       .title = "Consolidate a scope",
       .description =
           "Builds a scope's episodes (its turns cut at sessions, time gaps and topic shifts, each "
           "with a narrative quoting its turns), scenes (episodes clustered by theme) and each "
           "person's profile, and stores them. Idempotent: a second run writes nothing. Read them "
           "with memory_structure.",
       .args = {ScopeSpec(default_scope)},
       .target = Target::kScope,
       .right = auth::Right::kWrite,
       .idempotent = true,
       .output_schema = ObjectSchema(
           {{"scope", TypeSchema("string")},
            {"turns", TypeSchema("integer")},
            {"episodes", TypeSchema("integer")},
            {"scenes", TypeSchema("integer")},
            {"profiles", TypeSchema("integer")},
            {"written", TypeSchema("integer")},
            {"superseded", TypeSchema("integer")}},
           {"scope", "turns", "episodes", "scenes", "profiles", "written", "superseded"}),
       .run = RunConsolidate});
  tools.push_back(
      {.name = "memory_structure",
       .title = "Read a scope's episodes, scenes, profile or foresight",
       .description =
           "Reads what memory_consolidate stored for a scope: its episodes, scenes, or each "
           "person's profile (current facts with their history, and traits), every entry with "
           "the turn ids behind it; or the plans and temporary states (foresight) valid at a "
           "time.",
       .args = {ScopeSpec(default_scope),
                {.name = "what",
                 .type = ArgType::kString,
                 .required = true,
                 .description = "episodes, scenes, profile or foresight.",
                 .choices = {"episodes", "scenes", "profile", "foresight"}},
                {.name = "all",
                 .type = ArgType::kBoolean,
                 .description = "Also superseded and retired entries (foresight: also upcoming "
                                "and expired ones). Default false."},
                {.name = "at",
                 .type = ArgType::kString,
                 .description = "foresight: the ISO-8601 time it must be valid at. Default now.",
                 .maximum = 64}},
       .target = Target::kScope,
       .right = auth::Right::kRead,
       .read_only = true,
       .idempotent = true,
       .output_schema = ObjectSchema({{"scope", TypeSchema("string")},
                                      {"what", TypeSchema("string")},
                                      {"count", TypeSchema("integer")},
                                      {"episodes", ArrayOf(TypeSchema("object"))},
                                      {"scenes", ArrayOf(TypeSchema("object"))},
                                      {"people", ArrayOf(TypeSchema("object"))},
                                      {"foresight", ArrayOf(TypeSchema("object"))}},
                                     {"scope", "what", "count"}),
       .run = RunStructure});
  // The world graph (engram/graph.h).
  const io::Json graph_edge = ObjectSchema({{"id", TypeSchema("string")},
                                            {"type", TypeSchema("string")},
                                            {"src", TypeSchema("string")},
                                            {"dst", TypeSchema("string")},
                                            {"scope", TypeSchema("string")},
                                            {"status", TypeSchema("string")},
                                            {"valid_from", NullableString()},
                                            {"valid_to", NullableString()},
                                            {"ingested_at", NullableString()},
                                            {"attrs", TypeSchema("object")}},
                                           {"id", "type", "src", "dst", "scope", "status"});
  const ArgSpec as_of_args[] = {
      {.name = "valid_at",
       .type = ArgType::kString,
       .description = "ISO-8601 time: follow the edges and memories valid then.",
       .maximum = 64},
      {.name = "known_at",
       .type = ArgType::kString,
       .description = "ISO-8601 time: only what was recorded by then, with the status it had "
                      "then.",
       .maximum = 64}};
  tools.push_back(
      {.name = "memory_graph",
       .title = "Query the world graph",
       .description =
           "Walks the typed edges around a memory: its neighbours (the edges of the given types "
           "and direction, with the memory at each other end), the paths from it to another "
           "memory (at most max_depth edges, shortest first), or an entity's identity class (the "
           "entities merged with it). valid_at / known_at ask the graph as it was then.",
       .args = {IdSpec("The memory the query starts at (32 hex digits)."),
                {.name = "what",
                 .type = ArgType::kString,
                 .required = true,
                 .description = "neighbours, paths or identity.",
                 .choices = {"neighbours", "paths", "identity"}},
                {.name = "to",
                 .type = ArgType::kString,
                 .description = "paths: the memory id the paths end at.",
                 .maximum = 256},
                {.name = "types",
                 .type = ArgType::kArray,
                 .description = "Edge types to follow (e.g. mentions, refers_to, same_as, or a "
                                "client type). Default: every type.",
                 .maximum = static_cast<std::int64_t>(kMaxGraphEdgeTypes),
                 .items = TypeSchema("string")},
                {.name = "direction",
                 .type = ArgType::kString,
                 .description = "out, in or both. Default: both.",
                 .choices = {"out", "in", "both"}},
                {.name = "max_depth",
                 .type = ArgType::kInteger,
                 .description = "paths: edges per path at most. Default: 2.",
                 .minimum = 1,
                 .maximum = static_cast<std::int64_t>(kMaxGraphDepth)},
                {.name = "limit",
                 .type = ArgType::kInteger,
                 .description = "Results at most. Default: 100.",
                 .minimum = 1,
                 .maximum = static_cast<std::int64_t>(kMaxGraphLimit)},
                {.name = "include_retired",
                 .type = ArgType::kBoolean,
                 .description = "Also retired, superseded, pending and rejected edges and "
                                "memories. Default: false."},
                as_of_args[0],
                as_of_args[1]},
       .target = Target::kMemory,
       .right = auth::Right::kRead,
       .read_only = true,
       .idempotent = true,
       .output_schema = ObjectSchema({{"node", TypeSchema("object")},
                                      {"entity", TypeSchema("object")},
                                      {"from", TypeSchema("string")},
                                      {"to", TypeSchema("string")},
                                      {"count", TypeSchema("integer")},
                                      {"neighbours", ArrayOf(TypeSchema("object"))},
                                      {"paths", ArrayOf(TypeSchema("object"))},
                                      {"nodes", ArrayOf(TypeSchema("object"))},
                                      {"members", ArrayOf(TypeSchema("object"))},
                                      {"edges", ArrayOf(graph_edge)},
                                      {"truncated", TypeSchema("boolean")}},
                                     {"count", "truncated"}),
       .run = RunGraph});
  tools.push_back(
      {.name = "memory_link",
       .title = "Add a typed edge",
       .description =
           "Adds an edge of a type the server declares in [graph] edge_types (not one of "
           "engram's own types) from one memory to another, both in the scope, a scope nested in "
           "it or one enclosing it. A single-valued type replaces the source's previous edge; a "
           "symmetric one is stored once.",
       .args = {ScopeSpec(default_scope),
                {.name = "type",
                 .type = ArgType::kString,
                 .required = true,
                 .description = "The edge type, e.g. owns.",
                 .minimum = 1,
                 .maximum = 64},
                {.name = "src",
                 .type = ArgType::kString,
                 .required = true,
                 .description = "The source memory id.",
                 .minimum = 1,
                 .maximum = 256},
                {.name = "dst",
                 .type = ArgType::kString,
                 .required = true,
                 .description = "The destination memory id.",
                 .minimum = 1,
                 .maximum = 256},
                {.name = "attrs",
                 .type = ArgType::kObject,
                 .description = "Attributes stored with the edge (at most 16 KiB)."},
                {.name = "valid_from",
                 .type = ArgType::kString,
                 .description = "ISO-8601 time the relation starts to hold. Default: now.",
                 .maximum = 64}},
       .target = Target::kScope,
       .right = auth::Right::kWrite,
       .output_schema = graph_edge,
       .run = RunLink});
  tools.push_back({.name = "memory_unlink",
                   .title = "Retire a typed edge",
                   .description = "Retires an edge memory_link added: it stays, retired, and "
                                  "memory_graph still sees it as of earlier times.",
                   .args = {IdSpec("The edge id (32 hex digits).")},
                   .target = Target::kEdge,
                   .right = auth::Right::kWrite,
                   .idempotent = false,
                   .output_schema = graph_edge,
                   .run = RunUnlink});
  return tools;
}

const ToolSpec* FindTool(const std::vector<ToolSpec>& tools, std::string_view name) {
  for (const ToolSpec& tool : tools) {
    if (tool.name == name) return &tool;
  }
  return nullptr;
}

io::Json TextContent(std::string text) {
  io::Json item = io::Json::object();
  item["type"] = "text";
  item["text"] = std::move(text);
  return io::Json::array({std::move(item)});
}

io::Json ErrorResult(std::string_view code, std::string_view message) {
  io::Json result = io::Json::object();
  result["content"] = TextContent(std::string(code) + ": " + std::string(message));
  result["isError"] = true;
  return result;
}

io::Json ErrorResult(const Status& status) {
  return ErrorResult(StatusCodeName(status.code()), status.message());
}

// A missing right: a tool execution error a model can report (the MCP spec keeps JSON-RPC
// errors for malformed requests), with the code of REST's 403.
io::Json DeniedResult(const Denial& denial) {
  return ErrorResult("PERMISSION_DENIED", DenialMessage(denial));
}

bool HasOptionalScope(const ToolSpec& tool) {
  for (const ArgSpec& arg : tool.args) {
    if (arg.name == "scope") return !arg.required;
  }
  return false;
}

}  // namespace

io::Json ToolDefinitions(const ServerOptions& options, const auth::Access& access) {
  const std::optional<Scope> default_scope = DefaultScope(options, access);
  io::Json list = io::Json::array();
  for (const ToolSpec& tool : BuildTools(options, default_scope)) {
    io::Json entry = io::Json::object();
    entry["name"] = tool.name;
    entry["title"] = tool.title;
    std::string description = tool.description;
    if (HasOptionalScope(tool)) {
      description +=
          " Works in scope " + default_scope->ToString() + " unless `scope` names another.";
    }
    entry["description"] = std::move(description);
    entry["inputSchema"] = InputSchema(tool.args);
    if (!tool.output_schema.is_null()) entry["outputSchema"] = tool.output_schema;
    io::Json annotations = io::Json::object();
    annotations["title"] = tool.title;
    annotations["readOnlyHint"] = tool.read_only;
    annotations["destructiveHint"] = tool.destructive;
    annotations["idempotentHint"] = tool.idempotent;
    annotations["openWorldHint"] = false;
    entry["annotations"] = std::move(annotations);
    list.push_back(std::move(entry));
  }
  return list;
}

bool IsKnownTool(std::string_view name) {
  static const std::vector<ToolSpec> tools = BuildTools(ServerOptions{}, std::nullopt);
  return FindTool(tools, name) != nullptr;
}

io::Json CallTool(std::string_view name, const json& arguments, Engine& engine,
                  const auth::Access& access, const ServerOptions& options) {
  const std::optional<Scope> default_scope = DefaultScope(options, access);
  const std::vector<ToolSpec> tools = BuildTools(options, default_scope);
  const ToolSpec* tool = FindTool(tools, name);
  if (tool == nullptr) {
    return ErrorResult(Status::InvalidArgument("unknown tool " + std::string(name)));
  }
  if (Status valid = CheckArgs(tool->name, tool->args, arguments); !valid.ok()) {
    return ErrorResult(valid);
  }
  Call call{.args = arguments, .engine = engine, .access = access, .options = options};
  // The right the tool needs, on what it works on, before anything runs.
  switch (tool->target) {
    case Target::kNone:
      break;
    case Target::kScope: {
      StatusOr<Scope> scope = ScopeArg(arguments, default_scope);
      if (!scope.ok()) return ErrorResult(scope.status());
      if (!access.Allows(*scope, tool->right)) {
        return DeniedResult({.right = tool->right, .scope = scope->ToString()});
      }
      call.scope = *std::move(scope);
      break;
    }
    case Target::kMemory: {
      StatusOr<Memory> memory = MemoryArg(arguments, engine, access);
      if (!memory.ok()) return ErrorResult(memory.status());
      if (!access.AllowsPath(memory->scope, tool->right)) {
        return DeniedResult({.right = tool->right, .scope = memory->scope});
      }
      call.memory = *std::move(memory);
      break;
    }
    case Target::kEdge: {
      StatusOr<GraphEdge> edge = EdgeArg(arguments, engine, access);
      if (!edge.ok()) return ErrorResult(edge.status());
      if (!access.AllowsPath(edge->scope, tool->right)) {
        return DeniedResult({.right = tool->right, .scope = edge->scope});
      }
      call.edge = *std::move(edge);
      break;
    }
  }
  StatusOr<io::Json> output = tool->run(call);
  if (!output.ok()) return ErrorResult(output.status());
  io::Json result = io::Json::object();
  result["content"] = TextContent(io::Dump(*output));
  if (!tool->output_schema.is_null()) result["structuredContent"] = *std::move(output);
  result["isError"] = false;
  return result;
}

}  // namespace engram::mcp
