// The tools' handlers (see tool_handlers.h): each reads its checked arguments, calls the Engine
// and shapes the result with the io::ToJson shapes (memory_recall: its own, sized to the token
// budget).
#include "mcp/tool_handlers.h"

#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/ids.h"
#include "core/utf8.h"
#include "engram/clock.h"
#include "io/api_json.h"
#include "io/graph_json.h"
#include "io/scope_records.h"
#include "mcp/tool_args.h"
#include "server/scope_views.h"

namespace engram::mcp {
namespace {

using nlohmann::json;

StatusOr<Turn> ParseTurn(const json& item, std::size_t index) {
  const std::string where = "turns[" + std::to_string(index) + "]";
  if (!item.is_object()) {
    return Status::InvalidArgument(where + " must be an object with at least \"text\" (got " +
                                   std::string(JsonTypeName(item)) + ")");
  }
  Turn turn;
  for (const auto& [key, value] : item.items()) {
    const std::string field = where + "." + (core::IsValidUtf8(key) ? key : std::string("?"));
    if (key == "metadata") {
      if (!value.is_object()) return Status::InvalidArgument(field + " must be an object");
      turn.metadata_json = value.dump();
      continue;
    }
    if (key != "text" && key != "role" && key != "speaker" && key != "session_id" &&
        key != "event_time") {
      return Status::InvalidArgument(
          "unknown field " + field +
          "; a turn takes text, role, speaker, session_id, event_time, metadata");
    }
    if (!value.is_string()) {
      return Status::InvalidArgument(field + " must be a string (got " +
                                     std::string(JsonTypeName(value)) + ")");
    }
    const std::string& text = value.get_ref<const std::string&>();
    if (!core::IsValidUtf8(text)) return Status::InvalidArgument(field + " is not valid UTF-8");
    if (key == "text") {
      turn.text = text;
    } else if (key == "role") {
      StatusOr<Role> role = ParseRole(text);
      if (!role.ok()) {
        return Status::InvalidArgument(field + " must be one of user, assistant, system, tool");
      }
      turn.role = *role;
    } else if (key == "speaker") {
      if (text.size() > static_cast<std::size_t>(kMaxSpeakerBytes)) {
        return Status::InvalidArgument(field + " is longer than " +
                                       std::to_string(kMaxSpeakerBytes) + " bytes");
      }
      turn.speaker = text;
    } else if (key == "session_id") {
      turn.session_id = text;
    } else {
      StatusOr<Timestamp> time = ParseTimestamp(text);
      if (!time.ok()) {
        return Status::InvalidArgument(field +
                                       " is not an ISO-8601 time: " + time.status().message());
      }
      turn.event_time = *time;
    }
  }
  if (turn.text.empty()) return Status::InvalidArgument(where + ".text is required");
  return turn;
}

// True when no scope `scope` exists: nothing was ever written to it or to a scope nested in it.
StatusOr<bool> IsUnknownScope(Engine& engine, const Scope& scope) {
  ASSIGN_OR_RETURN(const std::vector<ScopeInfo> scopes, engine.ListScopes());
  const std::string path = scope.ToString();
  for (const ScopeInfo& info : scopes) {
    if (info.scope == path) return false;
  }
  return true;
}

// Scores as a model reads them: three decimals tell the items apart.
double RoundedScore(double score) { return std::round(score * 1000.0) / 1000.0; }

// memory_recall's result, sized to the token budget: the packed context once, and each packed
// item as a reference a later call can use (memory_read, memory_amend, memory_retire) without
// its text, which the context shows: [id, score], best first, and a third element
// {kind, scope, provenance, excerpt} with what differs from a turn of the recalled scope that is
// its own evidence (a fact's kind and the turns it rests on, a nested scope, a turn the context
// shows only part of). Arrays, not objects, because the references are most of what the result
// adds to the context. `warnings` (what the recall could not do) when there are any; with
// `explain`, each item's route scores and adjustments and all the diagnostics. `note` (when
// not empty) says why there are no items.
io::Json RecallView(const Scope& scope, const ReadResult& result, bool explain, std::string note) {
  const std::string path = scope.ToString();
  io::Json out = io::Json::object();
  out["scope"] = path;
  out["policy"] = result.policy;
  out["mode"] = result.mode;
  out["context"] = result.context;
  out["answer_instructions"] = result.answer_instructions;
  out["context_tokens"] = result.diagnostics.context_tokens;
  io::Json items = io::Json::array();
  for (const RecallItem& item : result.items) {
    io::Json details = io::Json::object();
    if (item.kind != NodeKind::kTurn) details["kind"] = NodeKindName(item.kind);
    if (item.scope != path) details["scope"] = item.scope;
    if (!(item.provenance.size() == 1 && item.provenance[0] == item.id)) {
      details["provenance"] = item.provenance;
    }
    if (item.excerpt) details["excerpt"] = true;
    // The claims the context notes beside the item, by id (memory_read shows them).
    if (item.superseded_by.has_value()) details["superseded_by"] = item.superseded_by->id;
    if (!item.conflicts.empty()) {
      io::Json conflicts = io::Json::array();
      for (const RelatedClaim& conflict : item.conflicts) conflicts.push_back(conflict.id);
      details["conflicts"] = std::move(conflicts);
    }
    if (explain) {
      const io::Json full = io::ToJson(item);
      for (const char* field : {"fused_score", "routes", "adjustments"}) {
        details[field] = full[field];
      }
    }
    io::Json ref = io::Json::array({item.id, RoundedScore(item.score)});
    if (!details.empty()) ref.push_back(std::move(details));
    items.push_back(std::move(ref));
  }
  out["items"] = std::move(items);
  if (!result.chat.empty()) {
    // The context shows each line's text; these say which memory and turns it rests on.
    io::Json chat = io::Json::array();
    for (const ChatLine& line : result.chat) {
      chat.push_back(io::Json{{"section", line.section},
                              {"person", line.person},
                              {"memory_id", line.memory_id},
                              {"evidence", line.evidence}});
    }
    out["chat"] = std::move(chat);
  }
  // Whether the context holds what was asked (read/sufficiency.h): the verdict and its reasons.
  out["sufficiency"] = result.sufficiency.verdict;
  if (!result.sufficiency.reasons.empty()) {
    out["sufficiency_reasons"] = result.sufficiency.reasons;
  }
  if (!note.empty()) out["note"] = std::move(note);
  if (!result.diagnostics.warnings.empty()) out["warnings"] = result.diagnostics.warnings;
  if (explain) out["diagnostics"] = io::ToJson(result.diagnostics);
  return out;
}

}  // namespace

StatusOr<io::Json> RunWrite(const Call& call) {
  const Scope& scope = call.scope;
  std::vector<Turn> turns;
  const json& items = call.args.at("turns");
  for (std::size_t index = 0; index < items.size(); ++index) {
    ASSIGN_OR_RETURN(Turn turn, ParseTurn(items[index], index));
    turns.push_back(std::move(turn));
  }
  // Writes do not wait for derivation unless asked (DESIGN §4).
  RememberOptions options{.wait = RememberWait::kIndexed};
  if (const std::string wait = StringArg(call.args, "wait"); !wait.empty()) {
    ASSIGN_OR_RETURN(options.wait, ParseRememberWait(wait));
  }
  ASSIGN_OR_RETURN(const RememberResult result, call.engine.Remember(scope, turns, options));
  io::Json out = io::Json::object();
  out["scope"] = scope.ToString();
  const io::Json fields = io::ToJson(result);
  for (const auto& [key, value] : fields.items()) out[key] = value;
  return out;
}

StatusOr<io::Json> RunRecall(const Call& call) {
  const Scope& scope = call.scope;
  RecallQuery query{.text = StringArg(call.args, "query")};
  RecallOptions options;
  for (const auto& [name, field] :
       {std::pair{"query_time", &query.query_time}, std::pair{"valid_at", &options.valid_at},
        std::pair{"known_at", &options.known_at}}) {
    const std::string text = StringArg(call.args, name);
    if (text.empty()) continue;
    StatusOr<Timestamp> time = ParseTimestamp(text);
    if (!time.ok()) return ArgError(name, "is not an ISO-8601 time");
    *field = *time;
  }
  options.k = static_cast<std::size_t>(IntArg(call.args, "k", 0));
  options.token_budget = static_cast<std::size_t>(IntArg(call.args, "token_budget", 0));
  options.include_retired = BoolArg(call.args, "include_retired", false);
  ASSIGN_OR_RETURN(options.policy, ParseAnswerPolicy(StringArg(call.args, "policy", "balanced")));
  ASSIGN_OR_RETURN(options.mode, ParseContextMode(StringArg(call.args, "mode", "evidence")));
  if (const std::string packing = StringArg(call.args, "packing"); !packing.empty()) {
    StatusOr<bool> by_value = io::ParsePacking(packing);
    if (!by_value.ok()) return ArgError("packing", "must be value or rank");
    options.pack_by_value = *by_value;
  }
  const bool explain = BoolArg(call.args, "explain", false);
  StatusOr<ReadResult> result = call.engine.Recall(scope, query, options);
  if (!result.ok() && result.status().code() == StatusCode::kNotFound) {
    // A scope nothing was written to yet is not an error for a model: it has nothing to recall.
    ASSIGN_OR_RETURN(const bool unknown, IsUnknownScope(call.engine, scope));
    if (unknown) {
      ReadResult empty;
      empty.policy = AnswerPolicyName(options.policy);
      empty.mode = ContextModeName(options.mode);
      return RecallView(scope, empty, explain, "nothing stored yet in scope " + scope.ToString());
    }
  }
  if (!result.ok()) return result.status();
  std::string note;
  if (result->items.empty()) {
    note = "nothing stored in scope " + scope.ToString() + " matched the query";
  }
  return RecallView(scope, *result, explain, std::move(note));
}

StatusOr<io::Json> RunList(const Call& call) {
  const Scope& scope = call.scope;
  ListOptions options;
  options.limit = static_cast<std::size_t>(IntArg(call.args, "limit", 100));
  options.after_sequence = IntArg(call.args, "after", 0);
  options.include_retired = BoolArg(call.args, "include_retired", true);
  const std::string kind = StringArg(call.args, "kind", "turn");
  if (kind == "all") {
    options.kind = std::nullopt;
  } else {
    ASSIGN_OR_RETURN(options.kind, ParseNodeKind(kind));
  }
  StatusOr<io::MemoryPage> listed = io::ListPage(call.engine, scope, options);
  std::string note;
  if (!listed.ok() && listed.status().code() == StatusCode::kNotFound) {
    // As for recall: a scope nothing was written to yet has nothing to list, no error.
    ASSIGN_OR_RETURN(const bool unknown, IsUnknownScope(call.engine, scope));
    if (unknown) {
      listed = io::MemoryPage{};
      note = "nothing stored yet in scope " + scope.ToString();
    }
  }
  ASSIGN_OR_RETURN(const io::MemoryPage page, std::move(listed));
  io::Json out = io::Json::object();
  out["scope"] = scope.ToString();
  out["memories"] = io::Json::array();
  for (const Memory& memory : page.memories) out["memories"].push_back(io::ToJson(memory));
  // Pass next_after as `after` for the next page; null when this page was the last.
  out["next_after"] = page.next_after ? io::Json(*page.next_after) : io::Json(nullptr);
  if (!note.empty()) out["note"] = std::move(note);
  return out;
}

StatusOr<io::Json> RunRead(const Call& call) {
  const Memory& memory = call.memory;
  io::Json out = io::Json::object();
  out["memory"] = io::ToJson(memory);
  if (BoolArg(call.args, "links", false)) {
    ASSIGN_OR_RETURN(const std::vector<Link> links, call.engine.Links(memory.id));
    io::Json entries = io::Json::array();
    for (const Link& link : links) {
      // An edge to a memory the caller may not read is left out, like the memory itself.
      const std::string& other = link.src == memory.id ? link.dst : link.src;
      StatusOr<Memory> other_memory = call.engine.Get(other);
      if (!other_memory.ok() || !call.access.AllowsPath(other_memory->scope, auth::Right::kRead)) {
        continue;
      }
      io::Json entry = io::Json::object();
      entry["id"] = link.id;
      entry["type"] = link.type;
      entry["src"] = link.src;
      entry["dst"] = link.dst;
      entry["status"] = link.status;
      entry["attrs"] = io::MetadataToJson(link.attrs_json);
      entries.push_back(std::move(entry));
    }
    out["links"] = std::move(entries);
  }
  if (BoolArg(call.args, "history", false)) {
    ASSIGN_OR_RETURN(const std::vector<HistoryEvent> history, call.engine.History(memory.id));
    out["history"] = io::Json::array();
    std::map<std::string, bool> readable;  // related id -> the caller may read it
    for (const HistoryEvent& event : history) {
      // An event relating to a memory the caller may not read (a same_as to an entity of an
      // enclosing scope, say) would reveal that memory's id: it is left out, as over REST.
      if (!event.related_id.empty()) {
        auto [known, inserted] = readable.try_emplace(event.related_id, false);
        if (inserted) {
          StatusOr<Memory> related = call.engine.Get(event.related_id);
          known->second =
              related.ok() && call.access.AllowsPath(related->scope, auth::Right::kRead);
        }
        if (!known->second) continue;
      }
      out["history"].push_back(io::ToJson(event));
    }
  }
  return out;
}

StatusOr<io::Json> RunAmend(const Call& call) {
  const Memory& memory = call.memory;
  Turn replacement;
  replacement.text = StringArg(call.args, "text");
  replacement.role = memory.role;
  replacement.speaker = StringArg(call.args, "speaker");
  ASSIGN_OR_RETURN(const AmendResult result,
                   call.engine.Amend(memory.id, replacement, StringArg(call.args, "reason")));
  io::Json out = io::Json::object();
  out["id"] = result.id;
  out["superseded_id"] = result.superseded_id;
  out["sequence"] = result.sequence;
  out["scope"] = memory.scope;
  return out;
}

StatusOr<io::Json> RunRetire(const Call& call) {
  const Memory& memory = call.memory;
  RETURN_IF_ERROR(call.engine.Retire(memory.id, StringArg(call.args, "reason")));
  ASSIGN_OR_RETURN(const Memory retired, call.engine.Get(memory.id));
  io::Json out = io::Json::object();
  out["memory"] = io::ToJson(retired);
  return out;
}

StatusOr<io::Json> RunRetireAll(const Call& call) {
  const Scope& scope = call.scope;
  ASSIGN_OR_RETURN(const std::size_t retired, call.engine.RetireAll(scope));
  io::Json out = io::Json::object();
  out["scope"] = scope.ToString();
  out["retired"] = retired;
  return out;
}

StatusOr<io::Json> RunPurgeScope(const Call& call) {
  const Scope& scope = call.scope;
  ASSIGN_OR_RETURN(const EraseResult result, call.engine.Erase(scope));
  io::Json out = io::Json::object();
  out["scope"] = scope.ToString();
  const io::Json fields = io::ToJson(result);
  for (const auto& [key, value] : fields.items()) out[key] = value;
  return out;
}

StatusOr<io::Json> RunListScopes(const Call& call) {
  ASSIGN_OR_RETURN(const std::vector<ScopeInfo> scopes, call.engine.ListScopes());
  io::Json out = io::Json::object();
  out["scopes"] = io::Json::array();
  for (const ScopeInfo& info : scopes) {
    if (call.access.AllowsPath(info.scope, auth::Right::kRead)) {
      out["scopes"].push_back(io::ToJson(info));
    }
  }
  return out;
}

StatusOr<io::Json> RunConsolidate(const Call& call) {
  const Scope& scope = call.scope;
  ASSIGN_OR_RETURN(const ConsolidateResult result, call.engine.Consolidate(scope));
  return server::ConsolidateResultView(scope, result);
}

StatusOr<io::Json> RunStructure(const Call& call) {
  const Scope& scope = call.scope;
  const std::string what = StringArg(call.args, "what");
  const bool all = BoolArg(call.args, "all", false);
  io::Json view;
  if (what == "foresight") {
    Timestamp at = SystemClock()->Now();
    if (const std::string text = StringArg(call.args, "at"); !text.empty()) {
      StatusOr<Timestamp> parsed = ParseTimestamp(text);
      if (!parsed.ok()) {
        return ArgError("at", "is not an ISO-8601 time: " + parsed.status().message());
      }
      at = *parsed;
    }
    ASSIGN_OR_RETURN(view, server::ForesightView(call.engine, scope, at, all));
  } else {
    const NodeKind kind = what == "episodes" ? NodeKind::kEpisode
                          : what == "scenes" ? NodeKind::kScene
                                             : NodeKind::kProfile;
    ASSIGN_OR_RETURN(view, server::ConsolidatedView(call.engine, scope, kind, all));
  }
  view["what"] = what;
  return view;
}

// ---- the world graph ------------------------------------------------------------------------

namespace {

// The memory `id` if the caller may read it; "not found" otherwise, as tools.cc's MemoryArg.
StatusOr<Memory> ReadableMemoryArg(const Call& call, std::string_view name, const std::string& id) {
  if (!core::LooksLikeId(id)) return ArgError(name, "must be a memory id: 32 lowercase hex digits");
  StatusOr<Memory> memory = call.engine.Get(id);
  if ((!memory.ok() && memory.status().code() == StatusCode::kNotFound) ||
      (memory.ok() && !call.access.AllowsPath(memory->scope, auth::Right::kRead))) {
    return Status::NotFound("no memory with id " + id);
  }
  return memory;
}

StatusOr<std::optional<Timestamp>> TimeArg(const json& args, std::string_view name) {
  const std::string text = StringArg(args, name);
  if (text.empty()) return std::optional<Timestamp>();
  StatusOr<Timestamp> parsed = ParseTimestamp(text);
  if (!parsed.ok()) return ArgError(name, "is not an ISO-8601 time: " + parsed.status().message());
  return std::optional<Timestamp>(*parsed);
}

}  // namespace

StatusOr<io::Json> RunGraph(const Call& call) {
  GraphQueryOptions options;
  const auto types = call.args.find("types");
  if (types != call.args.end() && types->is_array()) {
    for (const json& type : *types) {
      if (!type.is_string()) return ArgError("types", "must hold strings (edge type names)");
      options.edge_types.push_back(type.get<std::string>());
    }
  }
  ASSIGN_OR_RETURN(options.direction,
                   ParseGraphDirection(StringArg(call.args, "direction", "both")));
  options.limit = static_cast<std::size_t>(IntArg(call.args, "limit", 100));
  options.max_depth = static_cast<std::size_t>(IntArg(call.args, "max_depth", 2));
  options.include_retired = BoolArg(call.args, "include_retired", false);
  ASSIGN_OR_RETURN(options.valid_at, TimeArg(call.args, "valid_at"));
  ASSIGN_OR_RETURN(options.known_at, TimeArg(call.args, "known_at"));
  const auth::Access& access = call.access;
  options.readable_scope = [&access](std::string_view scope) {
    return access.AllowsPath(scope, auth::Right::kRead);
  };
  const std::string what = StringArg(call.args, "what");
  if (what == "paths") {
    const std::string to = StringArg(call.args, "to");
    if (to.empty()) return ArgError("to", "is required with what = paths");
    ASSIGN_OR_RETURN(const Memory end, ReadableMemoryArg(call, "to", to));
    ASSIGN_OR_RETURN(const PathsResult paths, call.engine.Paths(call.memory.id, end.id, options));
    return io::ToJson(paths);
  }
  if (what == "identity") {
    ASSIGN_OR_RETURN(const IdentityClassResult identity,
                     call.engine.IdentityClass(call.memory.id, options));
    return io::ToJson(identity);
  }
  ASSIGN_OR_RETURN(const NeighboursResult neighbours,
                   call.engine.Neighbours(call.memory.id, options));
  return io::ToJson(neighbours);
}

StatusOr<io::Json> RunLink(const Call& call) {
  NewEdge edge;
  edge.type = StringArg(call.args, "type");
  for (const auto& [name, field] :
       {std::pair<std::string_view, std::string*>{"src", &edge.src}, {"dst", &edge.dst}}) {
    ASSIGN_OR_RETURN(const Memory memory,
                     ReadableMemoryArg(call, name, StringArg(call.args, name)));
    *field = memory.id;
  }
  const auto attrs = call.args.find("attrs");
  if (attrs != call.args.end() && attrs->is_object()) edge.attrs_json = attrs->dump();
  ASSIGN_OR_RETURN(edge.valid_from, TimeArg(call.args, "valid_from"));
  ASSIGN_OR_RETURN(const GraphEdge added, call.engine.AddEdge(call.scope, edge));
  return io::ToJson(added);
}

StatusOr<io::Json> RunUnlink(const Call& call) {
  RETURN_IF_ERROR(call.engine.RetireEdge(call.edge.id));
  ASSIGN_OR_RETURN(const GraphEdge retired, call.engine.GetEdge(call.edge.id));
  return io::ToJson(retired);
}

}  // namespace engram::mcp
