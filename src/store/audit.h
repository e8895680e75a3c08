// The Merkle audit over any Store (merkle.h, docs/AUDIT.md): recompute a scope's roots from its
// stored records and compare them with the roots the store kept, and prove a memory's place under
// its scope's root.
#ifndef ENGRAM_STORE_AUDIT_H_
#define ENGRAM_STORE_AUDIT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "engram/audit.h"
#include "engram/status.h"
#include "store/store.h"

namespace engram::store {

// Recomputes the scope (and every scope nested in it) from its records: each node's id from its
// content, each edge's id from its endpoints and time, each leaf hash, both logs of every scope and
// every scope root, and compares them with what the store holds. A difference is not an error: it
// is reported in AuditReport::mismatch (the first one met, scopes in path order, leaves in log
// order) with ok = false. Errors are for a store that cannot be read.
StatusOr<AuditReport> AuditScope(Store& store, const ScopeRecord& scope);

// The inclusion proof of a node in its scope's node log and the chain of scope roots above it,
// checked (MerkleProof::verified) against the stored roots. kNotFound for an unknown node.
StatusOr<MerkleProof> ProveNode(Store& store, std::string_view node_id);

// Recomputes a proof from its own fields: the leaf up the audit path to its node log root, and
// each scope root from its logs and children, each level's root among the next level's children.
bool VerifyProof(const MerkleProof& proof);

// The creation time a node's id was made with, found by trying the times a node can carry
// (event time, valid-from, ingestion time, 0 — what the write path and the consolidator use):
// unset when no candidate reproduces the id from the node's kind, content and scope. A scope node
// is checked against its path instead (0 when it matches).
std::optional<std::int64_t> NodeCreationTime(const NodeRecord& node,
                                             std::string_view scope_node_id);

}  // namespace engram::store

#endif  // ENGRAM_STORE_AUDIT_H_
