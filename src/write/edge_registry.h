// The edge handler registry: the only code that can write edges (WorldDB's "never appends" rule,
// DESIGN §1.3 and §3).
//
// Every edge type has a handler that knows its semantics: `supersedes` closes the old node's
// validity, `same_as` stages a merge proposal, and so on. The store's edge-writing methods take a
// store::EdgeWriteKey that only EdgeRegistry can construct, so no code path can add an edge
// without going through its type's handler.
//
//   std::unique_ptr<EdgeRegistry> registry = EdgeRegistry::WithBuiltins();
//   ASSIGN_OR_RETURN(auto txn, store.BeginWrite());
//   ASSIGN_OR_RETURN(store::EdgeRecord edge,
//                    registry->Apply(*txn, {.type = "supersedes", .src = new_id, .dst = old_id,
//                                           .now = clock.Now()}));
//   RETURN_IF_ERROR(txn->Commit());
//
// Before any handler runs, Apply checks what every edge needs: a non-empty type with a registered
// handler (kInvalidArgument otherwise), src != dst (kInvalidArgument), both endpoints exist
// (kNotFound naming "src" or "dst"), attrs_json is a JSON object (kInvalidArgument), and the
// endpoints' scopes are related: the same scope, or one contains the other (kFailedPrecondition
// otherwise, naming both scopes: no edge links memories of user:alice to user:bob). The edge id is
// core::EdgeId(type, src, dst, now.micros); scope_id 0 means "the src node's scope".
//
// Thread-safety: Register must not run concurrently with anything else; after registration the
// registry is immutable and Apply / AcceptProposal / RejectProposal / EquivalenceClass may be
// called from several threads (each with its own Transaction).
#ifndef ENGRAM_WRITE_EDGE_REGISTRY_H_
#define ENGRAM_WRITE_EDGE_REGISTRY_H_

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engram/status.h"
#include "engram/types.h"
#include "store/store.h"

namespace engram::write {

// Built-in edge type names.
inline constexpr std::string_view kContains = "contains";
inline constexpr std::string_view kDerivedFrom = "derived_from";
inline constexpr std::string_view kSupersedes = "supersedes";
inline constexpr std::string_view kContradicts = "contradicts";
inline constexpr std::string_view kSameAs = "same_as";
// Analysis edge types (write/analysis.h), each checking the kinds of its endpoints:
//   at_time     turn / fact / signal / episode -> a date or time signal node (the resolved interval)
//   mentions    turn / fact / episode -> entity (attrs: spans, speaker)
//   refers_to   turn / signal / fact -> entity or signal (a resolved name or reference)
//   has_entity  scope node -> entity (the scope's entity roster, read by the resolver)
inline constexpr std::string_view kAtTime = "at_time";
inline constexpr std::string_view kMentions = "mentions";
inline constexpr std::string_view kRefersTo = "refers_to";
inline constexpr std::string_view kHasEntity = "has_entity";
inline constexpr std::string_view kCorrects = "corrects";

struct EdgeRequest {
  std::string type;
  std::string src;  // node id
  std::string dst;  // node id
  // The scope the edge is written in; 0 = the src node's scope.
  std::int64_t scope_id = 0;
  std::string attrs_json = "{}";  // a JSON object, stored as given
  // When the relation starts to hold in the world; unset = unknown (supersedes sets it to the
  // time it closes the old node at; when set, supersedes closes the old node at it).
  std::optional<Timestamp> valid_from = std::nullopt;
  Timestamp now = {};  // transaction time: ingested_at / updated_at, and part of the edge id
};

// What a handler may do: read through the transaction and write edges. Only the registry creates
// one, for the duration of one Apply call.
class EdgeContext {
 public:
  EdgeContext(const EdgeContext&) = delete;
  EdgeContext& operator=(const EdgeContext&) = delete;

  store::Transaction& txn() { return txn_; }

  // The record Apply would insert for `request` with `status`: id = core::EdgeId(type, src, dst,
  // now), scope_id resolved, valid_from = request.valid_from, ingested_at = updated_at = now.
  store::EdgeRecord NewRecord(const EdgeRequest& request, std::string_view status) const;

  // Inserts `record` and returns it with its row set. kInternal if record.type is not the type
  // being applied: a handler cannot write edges of another type around that type's handler.
  StatusOr<store::EdgeRecord> InsertEdge(store::EdgeRecord record);
  Status UpdateEdgeState(std::string_view edge_id, std::string_view status,
                         std::optional<Timestamp> valid_to, Timestamp updated_at);

  // Edges of `type` between a and b in either direction whose status is one of `statuses`.
  StatusOr<std::vector<store::EdgeRecord>> EdgesBetween(
      std::string_view a, std::string_view b, std::string_view type,
      std::initializer_list<std::string_view> statuses);

  // The endpoints as Apply read them before calling the handler (saves handlers a second read).
  const store::NodeRecord& src_node() const { return *src_node_; }
  const store::NodeRecord& dst_node() const { return *dst_node_; }

 private:
  friend class EdgeRegistry;
  EdgeContext(store::Transaction& txn, const store::EdgeWriteKey& key, std::string_view type,
              std::int64_t scope_id)
      : txn_(txn), key_(key), type_(type), scope_id_(scope_id) {}

  store::Transaction& txn_;
  const store::EdgeWriteKey& key_;
  std::string type_;       // the type being applied; the only type InsertEdge accepts
  std::int64_t scope_id_;  // resolved scope of the edge being applied
  const store::NodeRecord* src_node_ = nullptr;  // set by Apply
  const store::NodeRecord* dst_node_ = nullptr;
};

// The semantics of one edge type. OnInsert runs after the registry's common checks, inside the
// caller's transaction; it inserts the edge (and makes its side effects) through `ctx` and returns
// the inserted record. On error the caller should not commit (the store undoes each failed write
// call, but not the earlier successful calls of a handler).
class EdgeHandler {
 public:
  virtual ~EdgeHandler() = default;
  virtual std::string_view type() const = 0;
  virtual StatusOr<store::EdgeRecord> OnInsert(EdgeContext& ctx, const EdgeRequest& request) = 0;
};

// A handler that records an active edge with no side effects, for relation types without special
// semantics (refers_to, mentions, at_time, ...). A second active edge of the same type between the
// same ordered pair is kAlreadyExists.
std::unique_ptr<EdgeHandler> MakePlainEdgeHandler(std::string type);

// A client-declared edge type ([graph] edge_types) and its semantics. Its handler checks what
// every edge needs (EdgeRegistry::Apply) and then:
//   single_valued  a new edge supersedes the source's active edges of the type (status
//                  superseded, validity closed at the new edge's valid_from, else now); with
//                  symmetric, every active edge of the type touching either endpoint
//   symmetric      the edge is stored once, src < dst (the handler orders the endpoints), and a
//                  second active edge between the pair in either order is kAlreadyExists
//   transitive     recorded for readers (a -> b -> c implies a -> c); nothing is derived on insert
// Without symmetric, a second active edge of the type between the same ordered pair is
// kAlreadyExists.
struct ClientEdgeType {
  std::string name;
  bool single_valued = false;
  bool symmetric = false;
  bool transitive = false;
};

// Parses the [graph] edge_types setting: comma-separated entries "name[:flag[:flag...]]" with the
// flags single_valued, symmetric and transitive, e.g. "owns:single_valued, sibling_of:symmetric,
// part_of:transitive". A name is a lowercase letter followed by at most 63 lowercase letters,
// digits or '_'. "" declares none. kInvalidArgument naming the bad entry, flag or repeated name.
StatusOr<std::vector<ClientEdgeType>> ParseClientEdgeTypes(std::string_view spec);

// Invariant: at most one handler per type.
class EdgeRegistry {
 public:
  EdgeRegistry() = default;
  EdgeRegistry(const EdgeRegistry&) = delete;
  EdgeRegistry& operator=(const EdgeRegistry&) = delete;

  // A registry with contains, derived_from, supersedes, contradicts, same_as and corrects, and
  // the analysis types at_time, mentions, refers_to and has_entity.
  static std::unique_ptr<EdgeRegistry> WithBuiltins();

  // kAlreadyExists for a type that already has a handler; kInvalidArgument for a null handler or
  // an empty type.
  Status Register(std::unique_ptr<EdgeHandler> handler);
  bool HasType(std::string_view type) const;
  // Every registered type, sorted.
  std::vector<std::string> TypeNames() const;

  // Registers the handler of a client type. kInvalidArgument for a malformed name or one that is
  // already registered (engram's own types cannot be redefined), naming it.
  Status RegisterClientType(const ClientEdgeType& type);
  // The client type `type`; null for engram's own types and unknown ones.
  const ClientEdgeType* ClientType(std::string_view type) const;
  // The client types, by name.
  std::vector<ClientEdgeType> ClientTypes() const;
  // Retires an active edge of a client type: status retired, validity closed at `now`.
  // kNotFound for an unknown edge, kInvalidArgument for an edge of engram's own types,
  // kFailedPrecondition when the edge is not active.
  Status RetireClientEdge(store::Transaction& txn, std::string_view edge_id, Timestamp now) const;

  // Runs the common checks and the type's handler; returns the inserted edge.
  StatusOr<store::EdgeRecord> Apply(store::Transaction& txn, const EdgeRequest& request) const;

  // Inserts an edge exactly as an export recorded it (engram import): its id, status, validity and
  // times as given, without running the type's handler, whose effects (closed validity, pending
  // proposals) are already in the imported records. kInvalidArgument for a type without a handler
  // or an id that its type, endpoints and ingestion time do not reproduce; the store's checks
  // (endpoints exist, id unused) apply.
  StatusOr<std::int64_t> Restore(store::Transaction& txn, const store::EdgeRecord& record) const;

  // same_as proposals: pending -> active (accept) or rejected (reject). kNotFound for an unknown
  // edge, kInvalidArgument for an edge that is not same_as, kFailedPrecondition when the proposal
  // is not pending.
  Status AcceptProposal(store::Transaction& txn, std::string_view edge_id, Timestamp now) const;
  Status RejectProposal(store::Transaction& txn, std::string_view edge_id, Timestamp now) const;

  // The node and every node linked to it by active same_as edges, in either direction and
  // transitively; sorted ids, including node_id itself. kNotFound for an unknown node.
  static StatusOr<std::vector<std::string>> EquivalenceClass(store::Store& store,
                                                             std::string_view node_id);

 private:
  Status ResolveProposal(store::Transaction& txn, std::string_view edge_id, Timestamp now,
                         std::string_view new_status) const;

  std::map<std::string, std::unique_ptr<EdgeHandler>, std::less<>> handlers_;
  std::map<std::string, ClientEdgeType, std::less<>> client_types_;
};

}  // namespace engram::write

#endif  // ENGRAM_WRITE_EDGE_REGISTRY_H_
