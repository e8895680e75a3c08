// Edge handlers and the registry that dispatches to them (see edge_registry.h). Semantics follow
// WorldDB Table 2 and DESIGN §3.
#include "write/edge_registry.h"

#include <algorithm>
#include <deque>
#include <nlohmann/json.hpp>
#include <set>
#include <utility>

#include "core/ids.h"
#include "store/journal.h"

namespace engram::write {
namespace {

std::string ShortId(std::string_view id) { return std::string(id.substr(0, 64)); }

// The path of scope `scope_id`, from its scope node (kind scope, text = path, sequence 0).
StatusOr<std::string> ScopePath(store::Transaction& txn, std::int64_t scope_id) {
  store::NodeFilter filter;
  filter.kind = NodeKind::kScope;
  filter.after_sequence = -1;
  filter.limit = 1;
  ASSIGN_OR_RETURN(const std::vector<store::NodeRecord> nodes, txn.ListNodes(scope_id, filter));
  if (nodes.empty()) {
    return Status::Corruption("scope " + std::to_string(scope_id) + " has no scope node");
  }
  return nodes.front().text;
}

// Whether scope path `outer` is `inner` or one of its ancestors ("user:a" contains "user:a/run:1").
bool ScopeContains(std::string_view outer, std::string_view inner) {
  return inner == outer ||
         (inner.size() > outer.size() && inner.starts_with(outer) && inner[outer.size()] == '/');
}

// Every edge joins memories of one scope tree: its endpoints' scopes must be the same, or one
// must contain the other. Memories of unrelated scopes (user:alice, user:bob) are never linked,
// so erasing one scope never touches the other's links.
Status CheckScopesRelated(store::Transaction& txn, const EdgeRequest& request,
                          const store::NodeRecord& src, const store::NodeRecord& dst) {
  if (src.scope_id == dst.scope_id) return Status::Ok();
  ASSIGN_OR_RETURN(const std::string src_path, ScopePath(txn, src.scope_id));
  ASSIGN_OR_RETURN(const std::string dst_path, ScopePath(txn, dst.scope_id));
  if (ScopeContains(src_path, dst_path) || ScopeContains(dst_path, src_path)) return Status::Ok();
  return Status::FailedPrecondition(
      request.type + " edge: " + ShortId(request.src) + " is in scope " + src_path + " and " +
      ShortId(request.dst) + " in scope " + dst_path +
      "; an edge may only join memories of the same scope or of a scope and one it contains");
}

// An active edge without side effects. A second active edge of the type between the same ordered
// pair is kAlreadyExists. With `src_must_be_scope`, the src node must be a scope node (contains).
class PlainEdgeHandler final : public EdgeHandler {
 public:
  PlainEdgeHandler(std::string type, bool src_must_be_scope)
      : type_(std::move(type)), src_must_be_scope_(src_must_be_scope) {}

  std::string_view type() const override { return type_; }

  StatusOr<store::EdgeRecord> OnInsert(EdgeContext& ctx, const EdgeRequest& request) override {
    if (src_must_be_scope_) {
      ASSIGN_OR_RETURN(const store::NodeRecord src, ctx.txn().GetNode(request.src));
      if (src.kind != NodeKind::kScope) {
        return Status::InvalidArgument(type_ + " edge: src " + ShortId(request.src) + " is a " +
                                       std::string(NodeKindName(src.kind)) +
                                       " node, not a scope node");
      }
    }
    // Look from the endpoint with few edges of this type: a scope node contains every member,
    // while a member sits in a handful of scopes; a derived node cites a handful of sources.
    const bool from_dst = src_must_be_scope_;
    ASSIGN_OR_RETURN(
        const std::vector<store::EdgeRecord> existing,
        ctx.txn().EdgesOf(
            from_dst ? request.dst : request.src,
            from_dst ? store::EdgeDirection::kIncoming : store::EdgeDirection::kOutgoing, type_));
    for (const store::EdgeRecord& edge : existing) {
      if (edge.src == request.src && edge.dst == request.dst && edge.status == store::kEdgeActive) {
        return Status::AlreadyExists(type_ + " edge " + ShortId(request.src) + " -> " +
                                     ShortId(request.dst) + " already exists (" + edge.id + ")");
      }
    }
    return ctx.InsertEdge(ctx.NewRecord(request, store::kEdgeActive));
  }

 private:
  std::string type_;
  bool src_must_be_scope_;
};

// supersedes: src (new) replaces dst (old). Closes the old node's validity at the request's
// valid_from when given (a past-state fact "I used to live in Paris" ends the current one at its
// turn's time), else at the new node's valid_from (or `now`), never before the old node's
// valid_from and only ever tightening it, and marks the old node superseded (a retired or
// rejected node keeps its stronger status). Refuses cycles.
class SupersedesHandler final : public EdgeHandler {
 public:
  std::string_view type() const override { return kSupersedes; }

  StatusOr<store::EdgeRecord> OnInsert(EdgeContext& ctx, const EdgeRequest& request) override {
    store::Transaction& txn = ctx.txn();
    // A cycle would appear if old already supersedes new, directly or through other nodes.
    std::set<std::string, std::less<>> seen = {request.dst};
    std::deque<std::string> frontier = {request.dst};
    while (!frontier.empty()) {
      const std::string current = std::move(frontier.front());
      frontier.pop_front();
      ASSIGN_OR_RETURN(const std::vector<store::EdgeRecord> outgoing,
                       txn.EdgesOf(current, store::EdgeDirection::kOutgoing, kSupersedes));
      for (const store::EdgeRecord& edge : outgoing) {
        if (edge.status != store::kEdgeActive) continue;
        if (edge.dst == request.src) {
          return Status::FailedPrecondition("supersedes edge " + ShortId(request.src) + " -> " +
                                            ShortId(request.dst) +
                                            " would form a cycle: " + ShortId(request.dst) +
                                            " already supersedes " + ShortId(request.src));
        }
        if (seen.insert(edge.dst).second) frontier.push_back(edge.dst);
      }
    }
    ASSIGN_OR_RETURN(const std::vector<store::EdgeRecord> existing,
                     ctx.EdgesBetween(request.src, request.dst, kSupersedes, {store::kEdgeActive}));
    for (const store::EdgeRecord& edge : existing) {
      if (edge.src == request.src) {
        return Status::AlreadyExists("supersedes edge " + ShortId(request.src) + " -> " +
                                     ShortId(request.dst) + " already exists (" + edge.id + ")");
      }
    }

    ASSIGN_OR_RETURN(const store::NodeRecord new_node, txn.GetNode(request.src));
    ASSIGN_OR_RETURN(const store::NodeRecord old_node, txn.GetNode(request.dst));
    Timestamp close_at = request.valid_from.value_or(new_node.valid_from.value_or(request.now));
    // Never before the old node began: a correction ingested out of order (its turn older than
    // the fact it corrects) leaves the old fact an empty interval, not an inverted one.
    if (old_node.valid_from.has_value()) close_at = std::max(close_at, *old_node.valid_from);
    // Only tighten: an earlier end stays.
    const Timestamp valid_to =
        old_node.valid_to.has_value() ? std::min(*old_node.valid_to, close_at) : close_at;
    NodeStatus status = NodeStatus::kSuperseded;
    if (old_node.status == NodeStatus::kRetired || old_node.status == NodeStatus::kRejected) {
      status = old_node.status;
    }

    store::EdgeRecord record = ctx.NewRecord(request, store::kEdgeActive);
    if (!record.valid_from.has_value()) record.valid_from = close_at;
    ASSIGN_OR_RETURN(store::EdgeRecord inserted, ctx.InsertEdge(std::move(record)));
    RETURN_IF_ERROR(txn.UpdateNodeState(old_node.id, status, valid_to, request.now,
                                        "superseded_by=" + new_node.id + " edge=" + inserted.id));
    return inserted;
  }
};

// Records the edge at most once per unordered pair among the live (`live_statuses`) edges of the
// type, with `status`. contradicts: active, nodes untouched. same_as: a pending merge proposal.
class UnorderedPairHandler final : public EdgeHandler {
 public:
  UnorderedPairHandler(std::string_view type, std::string_view status)
      : type_(type), status_(status) {}

  std::string_view type() const override { return type_; }

  StatusOr<store::EdgeRecord> OnInsert(EdgeContext& ctx, const EdgeRequest& request) override {
    ASSIGN_OR_RETURN(const std::vector<store::EdgeRecord> existing,
                     ctx.EdgesBetween(request.src, request.dst, type_,
                                      {store::kEdgeActive, store::kEdgePending}));
    if (!existing.empty()) {
      const store::EdgeRecord& edge = existing.front();
      return Status::AlreadyExists(type_ + " edge between " + ShortId(request.src) + " and " +
                                   ShortId(request.dst) + " already exists (" + edge.id + ", " +
                                   edge.status + ")");
    }
    return ctx.InsertEdge(ctx.NewRecord(request, status_));
  }

 private:
  std::string type_;
  std::string status_;
};

// An active edge whose endpoints must be of given node kinds (and, for at_time, a date or time
// signal). A second active edge of the type between the same ordered pair is kAlreadyExists; the
// duplicate check looks from the endpoint with few edges of the type (`check_from_dst`).
class KindCheckedEdgeHandler final : public EdgeHandler {
 public:
  KindCheckedEdgeHandler(std::string_view type, std::vector<NodeKind> src_kinds,
                         std::vector<NodeKind> dst_kinds, bool check_from_dst)
      : type_(type),
        src_kinds_(std::move(src_kinds)),
        dst_kinds_(std::move(dst_kinds)),
        check_from_dst_(check_from_dst) {}

  std::string_view type() const override { return type_; }

  StatusOr<store::EdgeRecord> OnInsert(EdgeContext& ctx, const EdgeRequest& request) override {
    const store::NodeRecord& src = ctx.src_node();
    const store::NodeRecord& dst = ctx.dst_node();
    RETURN_IF_ERROR(CheckKind("src", src, src_kinds_));
    RETURN_IF_ERROR(CheckKind("dst", dst, dst_kinds_));
    if (type_ == kAtTime) {
      const nlohmann::json content =
          nlohmann::json::parse(dst.content_json, nullptr, /*allow_exceptions=*/false);
      const bool is_time = content.is_object() && content.contains("kind") &&
                           content["kind"].is_string() &&
                           (content["kind"] == "date" || content["kind"] == "time");
      if (!is_time) {
        return Status::InvalidArgument("at_time edge: dst " + ShortId(request.dst) +
                                       " is not a date or time signal");
      }
    }
    ASSIGN_OR_RETURN(const std::vector<store::EdgeRecord> existing,
                     ctx.txn().EdgesOf(check_from_dst_ ? request.dst : request.src,
                                       check_from_dst_ ? store::EdgeDirection::kIncoming
                                                       : store::EdgeDirection::kOutgoing,
                                       type_));
    for (const store::EdgeRecord& edge : existing) {
      if (edge.src == request.src && edge.dst == request.dst && edge.status == store::kEdgeActive) {
        return Status::AlreadyExists(type_ + " edge " + ShortId(request.src) + " -> " +
                                     ShortId(request.dst) + " already exists (" + edge.id + ")");
      }
    }
    return ctx.InsertEdge(ctx.NewRecord(request, store::kEdgeActive));
  }

 private:
  Status CheckKind(std::string_view role, const store::NodeRecord& node,
                   const std::vector<NodeKind>& allowed) const {
    if (std::find(allowed.begin(), allowed.end(), node.kind) != allowed.end()) return Status::Ok();
    std::string names;
    for (const NodeKind kind : allowed) {
      if (!names.empty()) names += " or ";
      names += NodeKindName(kind);
    }
    return Status::InvalidArgument(type_ + " edge: " + std::string(role) + " " + ShortId(node.id) +
                                   " is a " + std::string(NodeKindName(node.kind)) +
                                   " node, not a " + names + " node");
  }

  std::string type_;
  std::vector<NodeKind> src_kinds_;
  std::vector<NodeKind> dst_kinds_;
  bool check_from_dst_;
};

// A client-declared type (ClientEdgeType in edge_registry.h has the semantics).
class ClientEdgeHandler final : public EdgeHandler {
 public:
  explicit ClientEdgeHandler(ClientEdgeType type) : type_(std::move(type)) {}

  std::string_view type() const override { return type_.name; }

  StatusOr<store::EdgeRecord> OnInsert(EdgeContext& ctx, const EdgeRequest& request) override {
    EdgeRequest stored = request;
    if (type_.symmetric && stored.dst < stored.src) std::swap(stored.src, stored.dst);
    std::vector<store::EdgeRecord> duplicates;
    if (type_.symmetric) {
      ASSIGN_OR_RETURN(duplicates,
                       ctx.EdgesBetween(stored.src, stored.dst, type_.name, {store::kEdgeActive}));
    } else {
      ASSIGN_OR_RETURN(std::vector<store::EdgeRecord> outgoing,
                       ctx.txn().EdgesOf(stored.src, store::EdgeDirection::kOutgoing, type_.name));
      for (store::EdgeRecord& edge : outgoing) {
        if (edge.dst == stored.dst && edge.status == store::kEdgeActive) {
          duplicates.push_back(std::move(edge));
        }
      }
    }
    if (!duplicates.empty()) {
      return Status::AlreadyExists(type_.name + " edge " + ShortId(stored.src) + " -> " +
                                   ShortId(stored.dst) + " already exists (" +
                                   duplicates.front().id + ")");
    }
    if (type_.single_valued) {
      // The previous values: the source's edges of the type (with symmetric, either endpoint's).
      std::map<std::string, store::EdgeRecord> previous;
      const std::string* ends[] = {&stored.src, &stored.dst};
      for (const std::string* end : ends) {
        if (!type_.symmetric && end == &stored.dst) continue;
        ASSIGN_OR_RETURN(std::vector<store::EdgeRecord> edges,
                         ctx.txn().EdgesOf(*end,
                                           type_.symmetric ? store::EdgeDirection::kBoth
                                                           : store::EdgeDirection::kOutgoing,
                                           type_.name));
        for (store::EdgeRecord& edge : edges) {
          if (edge.status == store::kEdgeActive) previous.emplace(edge.id, std::move(edge));
        }
      }
      const Timestamp close_at = stored.valid_from.value_or(stored.now);
      for (const auto& [id, edge] : previous) {
        // Never before the old edge began.
        const Timestamp end =
            edge.valid_from.has_value() ? std::max(close_at, *edge.valid_from) : close_at;
        RETURN_IF_ERROR(ctx.UpdateEdgeState(id, store::kEdgeSuperseded, end, stored.now));
      }
    }
    return ctx.InsertEdge(ctx.NewRecord(stored, store::kEdgeActive));
  }

 private:
  ClientEdgeType type_;
};

bool IsClientTypeName(std::string_view name) {
  if (name.empty() || name.size() > 64 || name[0] < 'a' || name[0] > 'z') return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

std::string_view Trimmed(std::string_view text) {
  const std::size_t begin = text.find_first_not_of(" \t");
  if (begin == std::string_view::npos) return {};
  const std::size_t end = text.find_last_not_of(" \t");
  return text.substr(begin, end - begin + 1);
}

}  // namespace

StatusOr<std::vector<ClientEdgeType>> ParseClientEdgeTypes(std::string_view spec) {
  std::vector<ClientEdgeType> types;
  std::set<std::string, std::less<>> names;
  if (Trimmed(spec).empty()) return types;
  std::size_t begin = 0;
  while (begin <= spec.size()) {
    const std::size_t comma = std::min(spec.find(',', begin), spec.size());
    const std::string_view entry = Trimmed(spec.substr(begin, comma - begin));
    begin = comma + 1;
    const std::string shown(entry.substr(0, 96));
    if (entry.empty()) return Status::InvalidArgument("edge_types: an empty entry");
    ClientEdgeType type;
    std::size_t part_begin = 0;
    bool first = true;
    while (part_begin <= entry.size()) {
      const std::size_t colon = std::min(entry.find(':', part_begin), entry.size());
      const std::string_view part = Trimmed(entry.substr(part_begin, colon - part_begin));
      part_begin = colon + 1;
      if (first) {
        if (!IsClientTypeName(part)) {
          return Status::InvalidArgument(
              "edge_types: \"" + shown +
              "\": a type name is a lowercase letter followed by at most 63 lowercase letters, "
              "digits or '_'");
        }
        type.name = std::string(part);
        first = false;
      } else if (part == "single_valued") {
        type.single_valued = true;
      } else if (part == "symmetric") {
        type.symmetric = true;
      } else if (part == "transitive") {
        type.transitive = true;
      } else {
        return Status::InvalidArgument("edge_types: \"" + shown + "\": unknown flag \"" +
                                       std::string(part.substr(0, 64)) +
                                       "\" (flags: single_valued, symmetric, transitive)");
      }
    }
    if (!names.insert(type.name).second) {
      return Status::InvalidArgument("edge_types: type \"" + type.name + "\" is declared twice");
    }
    types.push_back(std::move(type));
    if (comma == spec.size()) break;
  }
  return types;
}

store::EdgeRecord EdgeContext::NewRecord(const EdgeRequest& request,
                                         std::string_view status) const {
  store::EdgeRecord record;
  record.id = core::EdgeId(request.type, request.src, request.dst, request.now.micros);
  record.type = request.type;
  record.src = request.src;
  record.dst = request.dst;
  record.scope_id = scope_id_;
  record.attrs_json = request.attrs_json;
  record.status = std::string(status);
  record.valid_from = request.valid_from;
  record.ingested_at = request.now;
  record.updated_at = request.now;
  return record;
}

StatusOr<store::EdgeRecord> EdgeContext::InsertEdge(store::EdgeRecord record) {
  if (record.type != type_) {
    return Status::Internal("edge handler for \"" + type_ + "\" tried to insert a \"" +
                            record.type + "\" edge");
  }
  ASSIGN_OR_RETURN(record.row, txn_.InsertEdge(key_, record));
  return record;
}

Status EdgeContext::UpdateEdgeState(std::string_view edge_id, std::string_view status,
                                    std::optional<Timestamp> valid_to, Timestamp updated_at) {
  return txn_.UpdateEdgeState(key_, edge_id, status, valid_to, updated_at);
}

StatusOr<std::vector<store::EdgeRecord>> EdgeContext::EdgesBetween(
    std::string_view a, std::string_view b, std::string_view type,
    std::initializer_list<std::string_view> statuses) {
  ASSIGN_OR_RETURN(std::vector<store::EdgeRecord> edges,
                   txn_.EdgesOf(a, store::EdgeDirection::kBoth, type));
  std::vector<store::EdgeRecord> between;
  for (store::EdgeRecord& edge : edges) {
    const bool joins = (edge.src == a && edge.dst == b) || (edge.src == b && edge.dst == a);
    const bool live = std::find(statuses.begin(), statuses.end(), edge.status) != statuses.end();
    if (joins && live) between.push_back(std::move(edge));
  }
  return between;
}

std::unique_ptr<EdgeHandler> MakePlainEdgeHandler(std::string type) {
  return std::make_unique<PlainEdgeHandler>(std::move(type), /*src_must_be_scope=*/false);
}

std::unique_ptr<EdgeRegistry> EdgeRegistry::WithBuiltins() {
  auto registry = std::make_unique<EdgeRegistry>();
  std::unique_ptr<EdgeHandler> builtins[] = {
      std::make_unique<PlainEdgeHandler>(std::string(kContains), /*src_must_be_scope=*/true),
      std::make_unique<PlainEdgeHandler>(std::string(kDerivedFrom), /*src_must_be_scope=*/false),
      std::make_unique<SupersedesHandler>(),
      std::make_unique<UnorderedPairHandler>(kContradicts, store::kEdgeActive),
      std::make_unique<UnorderedPairHandler>(kSameAs, store::kEdgePending),
      // corrects: the src fact is an explicit correction of the dst fact; the facts stage pairs
      // it with a supersedes edge, which does the closing.
      std::make_unique<PlainEdgeHandler>(std::string(kCorrects), /*src_must_be_scope=*/false),
      // Analysis types (write/analysis.h): endpoints of the right kinds only.
      std::make_unique<KindCheckedEdgeHandler>(
          kAtTime,
          std::vector<NodeKind>{NodeKind::kTurn, NodeKind::kFact, NodeKind::kSignal,
                                NodeKind::kEpisode},
          std::vector<NodeKind>{NodeKind::kSignal}, /*check_from_dst=*/true),
      std::make_unique<KindCheckedEdgeHandler>(
          kMentions, std::vector<NodeKind>{NodeKind::kTurn, NodeKind::kFact, NodeKind::kEpisode},
          std::vector<NodeKind>{NodeKind::kEntity}, /*check_from_dst=*/false),
      std::make_unique<KindCheckedEdgeHandler>(
          kRefersTo, std::vector<NodeKind>{NodeKind::kTurn, NodeKind::kSignal, NodeKind::kFact},
          std::vector<NodeKind>{NodeKind::kEntity, NodeKind::kSignal}, /*check_from_dst=*/false),
      std::make_unique<KindCheckedEdgeHandler>(
          kHasEntity, std::vector<NodeKind>{NodeKind::kScope},
          std::vector<NodeKind>{NodeKind::kEntity}, /*check_from_dst=*/true),
  };
  for (std::unique_ptr<EdgeHandler>& handler : builtins) {
    // Distinct built-in types: registration cannot fail.
    static_cast<void>(registry->Register(std::move(handler)));
  }
  return registry;
}

Status EdgeRegistry::Register(std::unique_ptr<EdgeHandler> handler) {
  if (handler == nullptr) return Status::InvalidArgument("edge registry: null handler");
  const std::string type(handler->type());
  if (type.empty()) return Status::InvalidArgument("edge registry: handler with an empty type");
  if (handlers_.contains(type)) {
    return Status::AlreadyExists("edge registry: type \"" + type + "\" already has a handler");
  }
  handlers_.emplace(type, std::move(handler));
  return Status::Ok();
}

bool EdgeRegistry::HasType(std::string_view type) const { return handlers_.contains(type); }

std::vector<std::string> EdgeRegistry::TypeNames() const {
  std::vector<std::string> names;
  for (const auto& [type, unused] : handlers_) names.push_back(type);
  return names;
}

Status EdgeRegistry::RegisterClientType(const ClientEdgeType& type) {
  if (!IsClientTypeName(type.name)) {
    return Status::InvalidArgument("edge type \"" + type.name.substr(0, 64) +
                                   "\": a type name is a lowercase letter followed by at most 63 "
                                   "lowercase letters, digits or '_'");
  }
  if (HasType(type.name)) {
    return Status::InvalidArgument(
        "edge type \"" + type.name + "\" is already registered" +
        (client_types_.contains(type.name) ? "" : " (one of engram's own types)"));
  }
  RETURN_IF_ERROR(Register(std::make_unique<ClientEdgeHandler>(type)));
  client_types_.emplace(type.name, type);
  return Status::Ok();
}

const ClientEdgeType* EdgeRegistry::ClientType(std::string_view type) const {
  const auto found = client_types_.find(type);
  return found == client_types_.end() ? nullptr : &found->second;
}

std::vector<ClientEdgeType> EdgeRegistry::ClientTypes() const {
  std::vector<ClientEdgeType> types;
  for (const auto& [name, type] : client_types_) types.push_back(type);
  return types;
}

Status EdgeRegistry::RetireClientEdge(store::Transaction& txn, std::string_view edge_id,
                                      Timestamp now) const {
  ASSIGN_OR_RETURN(const store::EdgeRecord edge, txn.GetEdge(edge_id));
  if (ClientType(edge.type) == nullptr) {
    return Status::InvalidArgument("edge " + edge.id + " is a " + edge.type +
                                   " edge, one of engram's own types; only edges of the types "
                                   "declared in [graph] edge_types can be retired");
  }
  if (edge.status != store::kEdgeActive) {
    return Status::FailedPrecondition("edge " + edge.id + " is " + edge.status +
                                      "; only an active edge can be retired");
  }
  const Timestamp end = edge.valid_from.has_value() ? std::max(now, *edge.valid_from) : now;
  const store::EdgeWriteKey key;
  return txn.UpdateEdgeState(key, edge.id, store::kEdgeRetired, end, now);
}

StatusOr<std::int64_t> EdgeRegistry::Restore(store::Transaction& txn,
                                             const store::EdgeRecord& record) const {
  if (!HasType(record.type)) {
    return Status::InvalidArgument("unknown edge type \"" + record.type.substr(0, 64) + "\"");
  }
  if (core::EdgeId(record.type, record.src, record.dst, record.ingested_at.micros) != record.id) {
    return Status::InvalidArgument("edge " + record.id.substr(0, 64) +
                                   ": the id does not match its type, endpoints and time");
  }
  return txn.InsertEdge(store::EdgeWriteKey(), record);
}

StatusOr<store::EdgeRecord> EdgeRegistry::Apply(store::Transaction& txn,
                                                const EdgeRequest& request) const {
  const auto handler = handlers_.find(request.type);
  if (handler == handlers_.end()) {
    std::string known;
    for (const auto& [type, unused] : handlers_) {
      if (!known.empty()) known += ", ";
      known += type;
    }
    return Status::InvalidArgument("unknown edge type \"" + request.type.substr(0, 64) +
                                   "\" (registered: " + known + ")");
  }
  if (request.src == request.dst) {
    return Status::InvalidArgument(request.type + " edge: src and dst are the same node " +
                                   ShortId(request.src));
  }
  std::int64_t scope_id = request.scope_id;
  const std::pair<std::string_view, const std::string*> endpoints[] = {{"src", &request.src},
                                                                       {"dst", &request.dst}};
  store::NodeRecord endpoint_nodes[2];
  for (std::size_t endpoint_idx = 0; endpoint_idx < 2; ++endpoint_idx) {
    const auto& [role, node_id] = endpoints[endpoint_idx];
    StatusOr<store::NodeRecord> node = txn.GetNode(*node_id);
    if (!node.ok()) {
      if (node.status().code() == StatusCode::kNotFound) {
        return Status::NotFound(request.type + " edge: " + std::string(role) + " node " +
                                ShortId(*node_id) + " does not exist");
      }
      return node.status();
    }
    if (role == "src" && scope_id == 0) scope_id = node->scope_id;
    endpoint_nodes[endpoint_idx] = std::move(node).value();
  }
  const nlohmann::json attrs = nlohmann::json::parse(request.attrs_json, nullptr,
                                                     /*allow_exceptions=*/false);
  if (attrs.is_discarded() || !attrs.is_object()) {
    return Status::InvalidArgument(request.type + " edge: attrs_json is not a JSON object");
  }
  RETURN_IF_ERROR(CheckScopesRelated(txn, request, endpoint_nodes[0], endpoint_nodes[1]));
  const store::EdgeWriteKey key;
  EdgeContext ctx(txn, key, request.type, scope_id);
  ctx.src_node_ = &endpoint_nodes[0];
  ctx.dst_node_ = &endpoint_nodes[1];
  ASSIGN_OR_RETURN(store::EdgeRecord inserted, handler->second->OnInsert(ctx, request));
  if (inserted.type != request.type) {
    return Status::Internal("edge handler for \"" + request.type + "\" returned a \"" +
                            inserted.type + "\" edge");
  }
  return inserted;
}

Status EdgeRegistry::ResolveProposal(store::Transaction& txn, std::string_view edge_id,
                                     Timestamp now, std::string_view new_status) const {
  ASSIGN_OR_RETURN(const store::EdgeRecord edge, txn.GetEdge(edge_id));
  if (edge.type != kSameAs) {
    return Status::InvalidArgument("edge " + edge.id + " is a " + edge.type +
                                   " edge, not a same_as proposal");
  }
  if (edge.status != store::kEdgePending) {
    return Status::FailedPrecondition("same_as proposal " + edge.id + " is " + edge.status +
                                      ", not pending");
  }
  const store::EdgeWriteKey key;
  return txn.UpdateEdgeState(key, edge.id, new_status, edge.valid_to, now);
}

Status EdgeRegistry::AcceptProposal(store::Transaction& txn, std::string_view edge_id,
                                    Timestamp now) const {
  return ResolveProposal(txn, edge_id, now, store::kEdgeActive);
}

Status EdgeRegistry::RejectProposal(store::Transaction& txn, std::string_view edge_id,
                                    Timestamp now) const {
  return ResolveProposal(txn, edge_id, now, store::kEdgeRejected);
}

StatusOr<std::vector<std::string>> EdgeRegistry::EquivalenceClass(store::Store& store,
                                                                  std::string_view node_id) {
  RETURN_IF_ERROR(store.GetNode(node_id).status());
  std::set<std::string, std::less<>> members = {std::string(node_id)};
  std::deque<std::string> frontier = {std::string(node_id)};
  while (!frontier.empty()) {
    const std::string current = std::move(frontier.front());
    frontier.pop_front();
    ASSIGN_OR_RETURN(const std::vector<store::EdgeRecord> edges,
                     store.EdgesOf(current, store::EdgeDirection::kBoth, kSameAs));
    for (const store::EdgeRecord& edge : edges) {
      if (edge.status != store::kEdgeActive) continue;
      const std::string& other = edge.src == current ? edge.dst : edge.src;
      if (members.insert(other).second) frontier.push_back(other);
    }
  }
  return std::vector<std::string>(members.begin(), members.end());
}

}  // namespace engram::write
