// The Merkle audit structure of a store (WorldDB §2: content-addressed worlds; docs/AUDIT.md).
//
// Each scope keeps two append-only logs, one over its nodes and one over its edges, each in row
// (insertion) order, hashed as RFC 9162's Merkle tree: a leaf is SHA-256(0x00 ‖ leaf data), an
// interior node SHA-256(0x01 ‖ left ‖ right), the tree over n leaves splits at the largest power of
// two below n, and the empty tree is SHA-256(""). A log is kept as its frontier (the roots of its
// perfect subtrees, one per set bit of its size), so appending a leaf is O(log n).
//
// The scope root is SHA-256(0x02 ‖ node log root ‖ node count ‖ edge log root ‖ edge count ‖ for
// each nested scope in path order: path ‖ its scope root), so changing any memory changes the
// root of its scope and of every enclosing one. Status and validity are outside every hash; so are
// an edge's id and ingestion time (the edge id hashes its transaction time), so two stores that
// hold the same memories agree on their roots whenever they learned them.
//
// This file is store-neutral: backends keep the logs up to date in the transaction of each write
// (sqlite/merkle_sqlite.*), the audit (audit.*) recomputes them from the records.
#ifndef ENGRAM_STORE_MERKLE_H_
#define ENGRAM_STORE_MERKLE_H_

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engram/status.h"
#include "store/store.h"

namespace engram::store::merkle {

using Hash = std::array<std::uint8_t, 32>;

// 64 lowercase hex digits, and back (kInvalidArgument naming `what` for anything else).
std::string ToHex(const Hash& hash);
StatusOr<Hash> FromHex(std::string_view hex, std::string_view what);

// The root of an empty log: SHA-256 of nothing.
Hash EmptyRoot();
Hash InteriorHash(const Hash& left, const Hash& right);

// Leaf hashes. A node's leaf covers its id and every immutable field (kind, content, text, role,
// speaker, session, sequence, event time, metadata); an edge's covers its type, endpoints and
// attributes. Row numbers, scope rows, ingestion times, idempotency keys, status and validity are
// left out.
Hash NodeLeafHash(const NodeRecord& node);
Hash EdgeLeafHash(const EdgeRecord& edge);

// An append-only log kept as its frontier.
class LogFrontier {
 public:
  void Append(const Hash& leaf);
  Hash Root() const;
  std::int64_t size() const { return size_; }
  // The frontier as concatenated hex, largest subtree first; Parse checks it against `size`.
  std::string Serialize() const;
  static StatusOr<LogFrontier> Parse(std::int64_t size, std::string_view text);

 private:
  std::int64_t size_ = 0;
  std::vector<Hash> peaks_;  // one per set bit of size_, largest subtree first
};

// RFC 9162 MTH over all the leaves at once (what the frontier's Root must equal).
Hash TreeRoot(std::span<const Hash> leaves);
// RFC 9162 PATH(index, leaves): the sibling hashes from the leaf up. index < leaves.size().
std::vector<Hash> InclusionPath(std::span<const Hash> leaves, std::size_t index);
// RFC 9162 §2.1.3.2: true when `path` leads from `leaf` at `index` of a tree of `size` leaves to
// `root`.
bool VerifyInclusion(const Hash& leaf, std::uint64_t index, std::uint64_t size,
                     std::span<const Hash> path, const Hash& root);

struct ChildRoot {
  std::string path;  // the nested scope's path
  Hash root;
};
// The scope root; `children` must be sorted by path (bytewise).
Hash ScopeRoot(const Hash& node_root, std::int64_t node_count, const Hash& edge_root,
               std::int64_t edge_count, std::span<const ChildRoot> children);

}  // namespace engram::store::merkle

#endif  // ENGRAM_STORE_MERKLE_H_
