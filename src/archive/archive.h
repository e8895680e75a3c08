// Export and import of a scope (docs/AUDIT.md "Export and import").
//
// An export is JSON Lines: a header (format, version, scope, the scope's Merkle root, counts, the
// store's embedder), one line per scope of the subtree (path order), then every node of each
// scope (path order, then row order; a turn's vector in base64), then every edge the same way.
// Each node and edge line carries its leaf hash. Everything is in a fixed order, so the same
// scope gives the same bytes.
//
// Import reads it back into a store in one transaction: it recomputes every id, leaf and the
// root from the lines and refuses (writing nothing) a file whose lines or root do not match, or
// that is malformed, naming the line and the field. Under the scope's own name the ids and the
// root are reproduced exactly. Under another name every id changes (a node id hashes its scope,
// and ids inside contents and edges follow), so the root is recomputed and reported.
#ifndef ENGRAM_ARCHIVE_ARCHIVE_H_
#define ENGRAM_ARCHIVE_ARCHIVE_H_

#include <optional>
#include <string>
#include <string_view>

#include "engram/audit.h"
#include "engram/status.h"
#include "engram/types.h"
#include "store/store.h"
#include "write/edge_registry.h"

namespace engram::archive {

inline constexpr std::string_view kFormatName = "engram-export";
inline constexpr int kFormatVersion = 1;

// Writes the export of `scope` (and its nested scopes) to *out. The root in the header is the one
// the records recompute to, and must equal the store's stored root: a store that fails its audit
// (or changes while the export reads it) is kCorruption / kUnavailable instead of a file that will not
// import.
StatusOr<ExportSummary> ExportScope(store::Store& store, const store::ScopeRecord& scope,
                                    std::string* out);

struct ImportRequest {
  std::string_view text;         // the export, decompressed
  std::string source_name;       // for messages ("s.jsonl")
  std::optional<Scope> scope;    // import under this name instead of the file's
  // The embedder of the engine importing: the file's (when it names one) must be the same, and
  // the store records it if it records none yet.
  store::EmbedderRecord embedder{"none", 0};
};

// Imports an export in one transaction. kInvalidArgument (naming the line and field) for a
// malformed line; kCorruption for lines or a root that do not match; kAlreadyExists when the target
// scope exists; kFailedPrecondition when the file's embedder is not `request.embedder` or the
// store's.
StatusOr<ImportSummary> ImportScope(store::Store& store, const write::EdgeRegistry& registry,
                                    const ImportRequest& request);

}  // namespace engram::archive

#endif  // ENGRAM_ARCHIVE_ARCHIVE_H_
