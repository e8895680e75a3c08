// The lines of an export (archive.h): the in-memory model, encoding and strict decoding.
#ifndef ENGRAM_ARCHIVE_FORMAT_H_
#define ENGRAM_ARCHIVE_FORMAT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engram/status.h"
#include "store/store.h"

namespace engram::archive {

struct ArchivedNode {
  store::NodeRecord record;              // scope_id unset (0): the scope is ArchivedScope's
  std::optional<std::vector<float>> vector;
  // A turn's analysis row (store.h TurnAnalysisRecord; turn_row unset): line fields "analysis"
  // (its canonical JSON as text) and "analysis_format".
  std::optional<store::TurnAnalysisRecord> analysis;
  std::string leaf;                      // the leaf hash the line carries
  std::size_t line = 0;                  // 1-based line number in the file (0 when exporting)
};

struct ArchivedEdge {
  store::EdgeRecord record;
  std::string leaf;
  std::size_t line = 0;
};

struct ArchivedScope {
  std::string path;
  Timestamp created_at;
  std::int64_t last_sequence = 0;
  std::vector<ArchivedNode> nodes;  // row order, the scope's own node first
  std::vector<ArchivedEdge> edges;  // row order
  std::size_t line = 0;
};

struct Archive {
  std::string scope;  // the exported scope's path
  std::string root;
  std::optional<store::EmbedderRecord> embedder;
  std::int64_t nodes = 0;
  std::int64_t edges = 0;
  std::int64_t vectors = 0;
  std::vector<ArchivedScope> scopes;  // path order: the exported scope first
};

// The whole file: header, scope lines, node lines, edge lines, each ending in '\n'.
std::string EncodeArchive(const Archive& archive);

// Parses and checks the shape of every line (types, required and unknown fields, ids, counts);
// errors are kInvalidArgument "<source> line N: field \"f\": ...". The hashes are checked by the
// importer.
StatusOr<Archive> DecodeArchive(std::string_view text, std::string_view source);

// The Merkle root the archive's records recompute to (leaf hashes from the records, not from the
// lines' "leaf" fields).
std::string ArchiveRoot(const Archive& archive);

// The path of the scope enclosing `path` ("" for a top-level scope).
std::string ParentPath(std::string_view path);

}  // namespace engram::archive

#endif  // ENGRAM_ARCHIVE_FORMAT_H_
