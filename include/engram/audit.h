// What Engine::Audit, Engine::Proof, Engine::Export and Engine::Import return (docs/AUDIT.md).
//
// Every scope has a Merkle root over the content of its memories and edges and the roots of its
// nested scopes; status and validity stay outside it. Hashes are 64 lowercase hex digits of
// SHA-256.
#ifndef ENGRAM_AUDIT_H_
#define ENGRAM_AUDIT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engram/types.h"

namespace engram {

// The first thing an audit found wrong.
struct AuditMismatch {
  std::string scope;      // the scope whose log holds it
  std::string target_id;  // the memory (node) or edge id; "" for a scope-level mismatch
  std::string kind;       // "node", "edge" or "scope"
  std::string reason;     // what differs, e.g. "content does not match its stored leaf hash"
};

struct AuditReport {
  std::string scope;        // the audited scope
  std::string root;         // recomputed from the stored memories and edges
  std::string stored_root;  // the root the store kept up to date with every commit
  bool ok = false;          // every leaf, log and root matches
  std::int64_t scopes = 0;  // the scope and the scopes nested in it
  std::int64_t nodes = 0;   // nodes (memories, and each scope's own node) in them
  std::int64_t edges = 0;
  std::optional<AuditMismatch> mismatch;
};

// One level of a proof: how a scope's root is made from its logs and nested scopes.
struct ProofScope {
  std::string scope;
  std::string node_root;
  std::int64_t node_count = 0;
  std::string edge_root;
  std::int64_t edge_count = 0;
  struct Child {
    std::string scope;
    std::string root;
  };
  std::vector<Child> children;  // in path order
  std::string root;
};

// The path from a memory to its scope's root and on to the root of every enclosing scope.
struct MerkleProof {
  std::string memory_id;
  std::string leaf_hash;
  std::int64_t leaf_index = 0;  // position in its scope's node log
  std::int64_t leaf_count = 0;  // size of that log
  std::vector<std::string> audit_path;  // RFC 9162 inclusion path, from the leaf up
  std::vector<ProofScope> scopes;       // its scope first, then each enclosing scope
  bool verified = false;                // the path and every level recompute to the roots given
};

struct ExportSummary {
  std::string scope;
  std::string root;
  std::int64_t scopes = 0;
  std::int64_t nodes = 0;
  std::int64_t edges = 0;
  std::int64_t vectors = 0;
};

struct ImportSummary {
  std::string scope;        // where it was imported
  std::string source_scope;  // the scope named in the file
  std::string root;          // the imported scope's root in this store
  std::string file_root;     // the root the file's header names
  bool renamed = false;      // imported under another name: ids and root were recomputed
  std::int64_t scopes = 0;
  std::int64_t nodes = 0;
  std::int64_t edges = 0;
  std::int64_t vectors = 0;
};

struct ImportOptions {
  // Import under this scope instead of the one the file names: every id is recomputed (ids hash
  // their scope), so the root differs from the file's. Unset: the file's scope.
  std::optional<Scope> scope;
  std::string source_name;  // how messages name the input, e.g. the file name
};

}  // namespace engram

#endif  // ENGRAM_AUDIT_H_
