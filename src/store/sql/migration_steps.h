// The data steps of the schema migrations that both SQL dialects run the same way, over a
// sql::Session inside the migration's transaction, after the version's DDL (which each backend
// spells itself: sqlite/migrations.cc, postgres/migrations.cc). Each backend's ApplyMigrations
// calls them in version order:
//
//   if (current >= 1 && current < 5) RETURN_IF_ERROR(sql::BuildAnalysisRows(session));
//   ...
//   RETURN_IF_ERROR(sql::WriteSchemaVersion(session, kLatestSchemaVersion));
#ifndef ENGRAM_STORE_SQL_MIGRATION_STEPS_H_
#define ENGRAM_STORE_SQL_MIGRATION_STEPS_H_

#include <cstdint>
#include <string_view>

#include "engram/status.h"
#include "store/sql/session.h"

namespace engram::store::sql {

// What each schema version brings, for messages ("migrate to schema version 5 (one analysis row
// per turn instead of signal nodes)"); "" for a version this binary does not know.
std::string_view MigrationDescription(std::int64_t version);

// Schema 5: the analysis rows of the turns a version 4 store holds, one per turn, from its signal
// nodes (found through their derived_from edges), as format-1 JSON. The caller removes the
// signal nodes afterwards.
Status BuildAnalysisRows(Session& session);

// Schema 6: every node whose stored content differs from StoredContentJson's (compactable turns,
// and contents that are empty or start with a space) rewritten, in batches of row ids. The caller
// keeps the content trigger from refusing it.
Status StoreTurnTextOnce(Session& session);

// Schema 7: every format-1 analysis row that format 2 gives back byte for byte rewritten in
// format 2 (TurnAnalysisRow), in batches of turn rows; the others stay JSON.
Status CompactAnalysisRows(Session& session);

// meta's schema_version.
Status WriteSchemaVersion(Session& session, std::int64_t version);

}  // namespace engram::store::sql

#endif  // ENGRAM_STORE_SQL_MIGRATION_STEPS_H_
