// The SQL store's row mapping and the statements every backend runs alike: the column lists of
// scopes, nodes, edges and journal rows, reading a record from a row, and the lookups and writes
// the store and its transactions share (scopes, nodes and edges by id, the journal, a node row's
// insert, the recorded embedder). Written once, with ?n parameters, over a sql::Session.
//
//   ASSIGN_OR_RETURN(const NodeRecord node, RequireNode(session, id));
//   RETURN_IF_ERROR(AppendJournal(session, node.scope_id, JournalOp::kNodeUpdated, node.id,
//                                 node.row, at, detail));
#ifndef ENGRAM_STORE_SQL_RECORDS_H_
#define ENGRAM_STORE_SQL_RECORDS_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engram/status.h"
#include "engram/types.h"
#include "store/sql/session.h"
#include "store/store.h"

namespace engram::store::sql {

inline constexpr std::string_view kScopeColumns =
    "scope_id, node_id, path, parent_scope_id, last_sequence, created_at";
inline constexpr std::string_view kNodeColumns =
    "row_id, id, kind, scope_id, content_json, text, role, speaker, session_id, sequence, "
    "event_time, metadata_json, status, valid_from, valid_to, ingested_at, updated_at, "
    "idempotency_key";
inline constexpr std::string_view kEdgeColumns =
    "row_id, id, type, src, dst, scope_id, attrs_json, status, valid_from, valid_to, "
    "ingested_at, updated_at";
inline constexpr std::string_view kJournalColumns =
    "seq, scope_id, op, target_id, target_row, at, detail";

// head + columns + tail.
std::string Sql(std::string_view head, std::string_view columns, std::string_view tail);

// Records from the current row. A node's columns (kNodeColumns) start at column `first`;
// `backend` names the store in kCorruption messages (a stored enum name that does not parse, a
// turn's content that cannot be rebuilt).
ScopeRecord ReadScope(const Rows& row);
StatusOr<NodeRecord> ReadNode(const Rows& row, std::string_view backend, int first = 0);
EdgeRecord ReadEdge(const Rows& row);
StatusOr<JournalEntry> ReadJournalEntry(const Rows& row);

// Reads every remaining row with `read` (returning T or StatusOr<T>).
template <typename T, typename ReadFn>
StatusOr<std::vector<T>> CollectRows(Rows& rows, ReadFn read) {
  std::vector<T> out;
  while (true) {
    ASSIGN_OR_RETURN(const bool has_row, rows.Next());
    if (!has_row) return out;
    ASSIGN_OR_RETURN(T value, StatusOr<T>(read(rows)));
    out.push_back(std::move(value));
  }
}

// Runs `sql` and reads every row with `read`.
template <typename T, typename ReadFn>
StatusOr<std::vector<T>> QueryRows(Session& session, std::string_view sql, const Params& params,
                                   std::string_view operation, ReadFn read) {
  ASSIGN_OR_RETURN(std::unique_ptr<Rows> rows, session.Query(sql, params, operation));
  return CollectRows<T>(*rows, read);
}

// Calls `visit` with each remaining row until it returns false (or an error, which is returned).
Status VisitRows(Rows& rows, const std::function<StatusOr<bool>(const Rows&)>& visit);

// The nodes of the current and following rows.
StatusOr<std::vector<NodeRecord>> CollectNodes(Session& session, Rows& rows);

// The first column of the first row as an integer; 0 when there is no row or it is NULL.
StatusOr<std::int64_t> QueryInt(Session& session, std::string_view sql, const Params& params,
                                std::string_view operation);

StatusOr<std::optional<ScopeRecord>> QueryScopeByPath(Session& session, std::string_view path);
StatusOr<std::optional<ScopeRecord>> QueryScopeById(Session& session, std::int64_t scope_id);
StatusOr<std::optional<NodeRecord>> QueryNode(Session& session, std::string_view id);
// kNotFound "node <id> does not exist" when there is none.
StatusOr<NodeRecord> RequireNode(Session& session, std::string_view id);
StatusOr<std::optional<EdgeRecord>> QueryEdge(Session& session, std::string_view id);
StatusOr<EdgeRecord> RequireEdge(Session& session, std::string_view id);
StatusOr<std::optional<EmbedderRecord>> QueryEmbedder(Session& session);

// Appends one journal row to `table`: the journal itself, or a table a backend stages a write
// transaction's entries in until its commit (PostgreSQL numbers them there, in commit order).
Status AppendJournal(Session& session, std::int64_t scope_id, JournalOp op,
                     std::string_view target_id, std::int64_t target_row, Timestamp at,
                     std::string_view detail, std::string_view table = "journal");

// The 17 values of a node row's insert (its columns but row_id, in kNodeColumns order), as
// InsertNodeRow binds them.
Params NodeParams(const NodeRecord& record);

// The 11 values of an edge row's insert (its columns but row_id, in kEdgeColumns order).
Params EdgeParams(const EdgeRecord& record);

// Store::ListNodes: nodes of one scope ordered by (sequence, row), filtered as NodeFilter says.
StatusOr<std::vector<NodeRecord>> ListNodes(Session& session, std::int64_t scope_id,
                                            const NodeFilter& filter);

// Inserts the node row (content stored as StoredContentJson; an empty idempotency key as NULL),
// nothing else: no checks, no journal. Returns its row.
StatusOr<std::int64_t> InsertNodeRow(Session& session, const NodeRecord& record);

// EraseScopes' check of its argument: kNotFound naming the first unknown scope id.
Status RequireScopes(Session& session, std::span<const std::int64_t> scope_ids);

// The erase of Store::EraseScopes inside the caller's write transaction, once `tree` holds the
// scopes to erase (those named and every scope nested in them, in scope_id order): deletes their
// rows and every row about them, brings the Merkle logs and roots up to date and journals one
// kScopeErased tombstone per scope, at the store's latest journal time (erasing reads no clock).
// `in_tree` is the dialect's test that the scope id before it is one of the tree's
// (" IN temp.erase_scope_ids", " = ANY(?1::bigint[])"), with `tree_params` its parameters.
// The tombstones go to `journal_table` (AppendJournal). Returns the counts (wipe_status is the
// caller's).
StatusOr<EraseCounts> EraseRows(Session& session, std::span<const ScopeRecord> tree,
                                std::string_view in_tree, const Params& tree_params,
                                std::string_view journal_table = "journal");

}  // namespace engram::store::sql

#endif  // ENGRAM_STORE_SQL_RECORDS_H_
