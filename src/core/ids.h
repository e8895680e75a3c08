// Content addresses of nodes and edges (DESIGN §3).
//
// A node id is the first 128 bits (32 hex digits) of SHA-256 over a canonical, length-prefixed
// encoding of (type, canonical content, parent scope id, creation time). Validity and status are
// outside the hash, so they can change without changing the id. An edge id hashes (type, src, dst,
// creation time) the same way.
#ifndef ENGRAM_CORE_IDS_H_
#define ENGRAM_CORE_IDS_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace engram::core {

inline constexpr std::size_t kIdHexDigits = 32;

std::string NodeId(std::string_view type, std::string_view canonical_content,
                   std::string_view parent_scope_id, std::int64_t created_at_micros);
std::string EdgeId(std::string_view type, std::string_view src, std::string_view dst,
                   std::int64_t created_at_micros);
// The id of a scope node, from its path string ("user:alice/run:1").
std::string ScopeNodeId(std::string_view scope_path);

// True for 32 lowercase hex digits.
bool LooksLikeId(std::string_view text);

}  // namespace engram::core

#endif  // ENGRAM_CORE_IDS_H_
