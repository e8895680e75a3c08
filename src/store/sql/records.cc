// The SQL store's row mapping and shared statements (see records.h).
#include "store/sql/records.h"

#include <map>
#include <set>

#include "store/backend_common.h"
#include "store/journal.h"
#include "store/merkle.h"

namespace engram::store::sql {
namespace {

// A stored enum name that does not parse means the data was damaged or written by something else.
template <typename T>
StatusOr<T> StoredName(StatusOr<T> parsed, std::string_view backend, std::string_view what,
                       std::string_view id) {
  if (parsed.ok()) return parsed;
  return Status::Corruption(std::string(backend) + ": " + std::string(what) + " of " +
                            std::string(id) + ": " + parsed.status().message());
}

}  // namespace

// ----- Params ----------------------------------------------------------------------------------

Params& Params::Int(std::int64_t value) {
  values_.push_back({.kind = Kind::kInt, .number = value});
  return *this;
}

Params& Params::Text(std::string_view value) {
  values_.push_back({.kind = Kind::kText, .text = std::string(value)});
  return *this;
}

Params& Params::TextOrNull(std::string_view value) { return value.empty() ? Null() : Text(value); }

Params& Params::Null() {
  values_.push_back({});
  return *this;
}

Params& Params::Time(std::optional<Timestamp> value) {
  return value.has_value() ? Int(value->micros) : Null();
}

Params& Params::Bytes(std::string_view value) {
  values_.push_back({.kind = Kind::kBytes, .text = std::string(value)});
  return *this;
}

// ----- Row mapping -----------------------------------------------------------------------------

std::string Sql(std::string_view head, std::string_view columns, std::string_view tail) {
  return std::string(head) + std::string(columns) + std::string(tail);
}

ScopeRecord ReadScope(const Rows& row) {
  ScopeRecord scope;
  scope.scope_id = row.Int(0);
  scope.node_id = row.Text(1);
  scope.path = row.Text(2);
  scope.parent_scope_id = row.Int(3);  // 0 when NULL
  scope.last_sequence = row.Int(4);
  scope.created_at = Timestamp{row.Int(5)};
  return scope;
}

StatusOr<NodeRecord> ReadNode(const Rows& row, std::string_view backend, int first) {
  NodeRecord node;
  node.row = row.Int(first + 0);
  node.id = row.Text(first + 1);
  ASSIGN_OR_RETURN(node.kind,
                   StoredName(ParseNodeKind(row.Text(first + 2)), backend, "kind", node.id));
  node.scope_id = row.Int(first + 3);
  node.content_json = row.Text(first + 4);
  node.text = row.Text(first + 5);
  ASSIGN_OR_RETURN(node.role, StoredName(ParseRole(row.Text(first + 6)), backend, "role", node.id));
  node.speaker = row.Text(first + 7);
  node.session_id = row.Text(first + 8);
  node.sequence = row.Int(first + 9);
  node.event_time = row.Time(first + 10);
  node.metadata_json = row.Text(first + 11);
  ASSIGN_OR_RETURN(node.status, StoredName(ParseNodeStatus(row.Text(first + 12)), backend,
                                           "status", node.id));
  node.valid_from = row.Time(first + 13);
  node.valid_to = row.Time(first + 14);
  node.ingested_at = Timestamp{row.Int(first + 15)};
  node.updated_at = Timestamp{row.Int(first + 16)};
  node.idempotency_key = row.Text(first + 17);  // "" when NULL
  RETURN_IF_ERROR(RestoreContentJson(node, backend));
  return node;
}

EdgeRecord ReadEdge(const Rows& row) {
  EdgeRecord edge;
  edge.row = row.Int(0);
  edge.id = row.Text(1);
  edge.type = row.Text(2);
  edge.src = row.Text(3);
  edge.dst = row.Text(4);
  edge.scope_id = row.Int(5);
  edge.attrs_json = row.Text(6);
  edge.status = row.Text(7);
  edge.valid_from = row.Time(8);
  edge.valid_to = row.Time(9);
  edge.ingested_at = Timestamp{row.Int(10)};
  edge.updated_at = Timestamp{row.Int(11)};
  return edge;
}

StatusOr<JournalEntry> ReadJournalEntry(const Rows& row) {
  JournalEntry entry;
  entry.seq = row.Int(0);
  entry.scope_id = row.Int(1);
  ASSIGN_OR_RETURN(entry.op, ParseJournalOp(row.Text(2)));
  entry.target_id = row.Text(3);
  entry.target_row = row.Int(4);
  entry.at = Timestamp{row.Int(5)};
  entry.detail = row.Text(6);
  return entry;
}

Status VisitRows(Rows& rows, const std::function<StatusOr<bool>(const Rows&)>& visit) {
  while (true) {
    ASSIGN_OR_RETURN(const bool has_row, rows.Next());
    if (!has_row) return Status::Ok();
    ASSIGN_OR_RETURN(const bool more, visit(rows));
    if (!more) return Status::Ok();
  }
}

StatusOr<std::vector<NodeRecord>> CollectNodes(Session& session, Rows& rows) {
  const std::string_view backend = session.backend();
  return CollectRows<NodeRecord>(rows, [backend](const Rows& row) { return ReadNode(row, backend); });
}

// ----- Shared statements -----------------------------------------------------------------------

StatusOr<std::int64_t> QueryInt(Session& session, std::string_view sql, const Params& params,
                                std::string_view operation) {
  ASSIGN_OR_RETURN(std::unique_ptr<Rows> rows, session.Query(sql, params, operation));
  ASSIGN_OR_RETURN(bool has_row, rows->Next());
  const std::int64_t value = !has_row || rows->IsNull(0) ? 0 : rows->Int(0);
  // To the end: a statement with RETURNING is finished before its changes are relied on.
  while (has_row) {
    ASSIGN_OR_RETURN(has_row, rows->Next());
  }
  return value;
}

namespace {

template <typename T, typename ReadFn>
StatusOr<std::optional<T>> QueryOne(Session& session, std::string_view sql, const Params& params,
                                    std::string_view operation, ReadFn read) {
  ASSIGN_OR_RETURN(std::unique_ptr<Rows> rows, session.Query(sql, params, operation));
  ASSIGN_OR_RETURN(const bool has_row, rows->Next());
  if (!has_row) return std::optional<T>();
  ASSIGN_OR_RETURN(T value, StatusOr<T>(read(*rows)));
  return std::optional<T>(std::move(value));
}

}  // namespace

StatusOr<std::optional<ScopeRecord>> QueryScopeByPath(Session& session, std::string_view path) {
  static const std::string kSql = Sql("SELECT ", kScopeColumns, " FROM scopes WHERE path = ?1");
  return QueryOne<ScopeRecord>(session, kSql, Params().Text(path), "find scope", ReadScope);
}

StatusOr<std::optional<ScopeRecord>> QueryScopeById(Session& session, std::int64_t scope_id) {
  static const std::string kSql = Sql("SELECT ", kScopeColumns, " FROM scopes WHERE scope_id = ?1");
  return QueryOne<ScopeRecord>(session, kSql, Params().Int(scope_id), "get scope", ReadScope);
}

StatusOr<std::optional<NodeRecord>> QueryNode(Session& session, std::string_view id) {
  static const std::string kSql = Sql("SELECT ", kNodeColumns, " FROM nodes WHERE id = ?1");
  const std::string_view backend = session.backend();
  return QueryOne<NodeRecord>(session, kSql, Params().Text(id), "get node",
                              [backend](const Rows& row) { return ReadNode(row, backend); });
}

StatusOr<NodeRecord> RequireNode(Session& session, std::string_view id) {
  ASSIGN_OR_RETURN(std::optional<NodeRecord> node, QueryNode(session, id));
  if (!node.has_value()) {
    return Status::NotFound("node " + std::string(id.substr(0, 64)) + " does not exist");
  }
  return std::move(*node);
}

StatusOr<std::optional<EdgeRecord>> QueryEdge(Session& session, std::string_view id) {
  static const std::string kSql = Sql("SELECT ", kEdgeColumns, " FROM edges WHERE id = ?1");
  return QueryOne<EdgeRecord>(session, kSql, Params().Text(id), "get edge", ReadEdge);
}

StatusOr<EdgeRecord> RequireEdge(Session& session, std::string_view id) {
  ASSIGN_OR_RETURN(std::optional<EdgeRecord> edge, QueryEdge(session, id));
  if (!edge.has_value()) {
    return Status::NotFound("edge " + std::string(id.substr(0, 64)) + " does not exist");
  }
  return std::move(*edge);
}

StatusOr<std::optional<EmbedderRecord>> QueryEmbedder(Session& session) {
  ASSIGN_OR_RETURN(std::unique_ptr<Rows> rows,
                   session.Query("SELECT key, value FROM meta WHERE key IN ('embedder_model_id', "
                                 "'embedder_dimension')",
                                 Params(), "read recorded embedder"));
  std::optional<std::string> model_id;
  std::optional<std::string> dimension;
  while (true) {
    ASSIGN_OR_RETURN(const bool has_row, rows->Next());
    if (!has_row) break;
    (rows->Text(0) == "embedder_model_id" ? model_id : dimension) = rows->Text(1);
  }
  return EmbedderFromMeta(model_id, dimension, session.location());
}

Status AppendJournal(Session& session, std::int64_t scope_id, JournalOp op,
                     std::string_view target_id, std::int64_t target_row, Timestamp at,
                     std::string_view detail, std::string_view table) {
  ASSIGN_OR_RETURN(const std::int64_t inserted,
                   session.Execute("INSERT INTO " + std::string(table) +
                                       "(scope_id, op, target_id, target_row, at, detail) "
                                       "VALUES(?1, ?2, ?3, ?4, ?5, ?6)",
                                   Params()
                                       .Int(scope_id)
                                       .Text(JournalOpName(op))
                                       .Text(target_id)
                                       .Int(target_row)
                                       .Int(at.micros)
                                       .Text(detail),
                                   "append journal entry"));
  static_cast<void>(inserted);
  return Status::Ok();
}

Params NodeParams(const NodeRecord& record) {
  Params params;
  params.Text(record.id)
      .Text(NodeKindName(record.kind))
      .Int(record.scope_id)
      .Text(StoredContentJson(record))
      .Text(record.text)
      .Text(RoleName(record.role))
      .Text(record.speaker)
      .Text(record.session_id)
      .Int(record.sequence)
      .Time(record.event_time)
      .Text(record.metadata_json)
      .Text(NodeStatusName(record.status))
      .Time(record.valid_from)
      .Time(record.valid_to)
      .Int(record.ingested_at.micros)
      .Int(record.updated_at.micros)
      .TextOrNull(record.idempotency_key);
  return params;
}

Params EdgeParams(const EdgeRecord& record) {
  Params params;
  params.Text(record.id)
      .Text(record.type)
      .Text(record.src)
      .Text(record.dst)
      .Int(record.scope_id)
      .Text(record.attrs_json)
      .Text(record.status)
      .Time(record.valid_from)
      .Time(record.valid_to)
      .Int(record.ingested_at.micros)
      .Int(record.updated_at.micros);
  return params;
}

StatusOr<std::int64_t> InsertNodeRow(Session& session, const NodeRecord& record) {
  return QueryInt(session,
                  "INSERT INTO nodes(id, kind, scope_id, content_json, text, role, speaker, "
                  "session_id, sequence, event_time, metadata_json, status, valid_from, valid_to, "
                  "ingested_at, updated_at, idempotency_key) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, "
                  "?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17) RETURNING row_id",
                  NodeParams(record), "insert node");
}

StatusOr<std::vector<NodeRecord>> ListNodes(Session& session, std::int64_t scope_id,
                                            const NodeFilter& filter) {
  // The kind's CAST gives PostgreSQL its type (a bare `?3 IS NULL` has none).
  static const std::string kSql =
      Sql("SELECT ", kNodeColumns,
          " FROM nodes WHERE scope_id = ?1 AND sequence > ?2 AND (CAST(?3 AS TEXT) IS NULL OR "
          "kind = ?3) AND (?4 = 1 OR status = 'active') ORDER BY sequence, row_id LIMIT ?5");
  Params params;
  params.Int(scope_id).Int(filter.after_sequence);
  if (filter.kind.has_value()) {
    params.Text(NodeKindName(*filter.kind));
  } else {
    params.Null();
  }
  params.Int(filter.include_inactive ? 1 : 0);
  session.AddLimit(params, filter.limit);
  ASSIGN_OR_RETURN(std::unique_ptr<Rows> rows, session.Query(kSql, params, "list nodes"));
  return CollectNodes(session, *rows);
}

Status RequireScopes(Session& session, std::span<const std::int64_t> scope_ids) {
  for (const std::int64_t scope_id : scope_ids) {
    ASSIGN_OR_RETURN(const std::optional<ScopeRecord> scope, QueryScopeById(session, scope_id));
    if (!scope.has_value()) {
      return Status::NotFound("erase scopes: scope " + std::to_string(scope_id) +
                              " does not exist");
    }
  }
  return Status::Ok();
}

StatusOr<EraseCounts> EraseRows(Session& session, std::span<const ScopeRecord> tree,
                                std::string_view in_tree, const Params& tree_params,
                                std::string_view journal_table) {
  // Every "{in}" of `text` becomes `in_tree`.
  const auto in = [in_tree](std::string_view text) {
    std::string out;
    for (std::size_t at = 0; at < text.size();) {
      if (text.substr(at, 4) == "{in}") {
        out += in_tree;
        at += 4;
      } else {
        out += text[at++];
      }
    }
    return out;
  };
  EraseCounts counts;
  ASSIGN_OR_RETURN(const std::int64_t latest_at,
                   QueryInt(session, "SELECT max(at) FROM journal", Params(), "erase scopes: time"));
  // The Merkle logs that change: surviving scopes holding an edge that touches an erased node,
  // and the surviving parents of erased scopes (their nested scopes change).
  std::set<std::int64_t> merkle_edge_scopes;
  {
    ASSIGN_OR_RETURN(std::unique_ptr<Rows> rows,
                     session.Query(in("SELECT DISTINCT scope_id FROM edges WHERE NOT (scope_id{in}) "
                                      "AND (src IN (SELECT id FROM nodes WHERE scope_id{in}) OR "
                                      "dst IN (SELECT id FROM nodes WHERE scope_id{in}))"),
                                   tree_params, "erase scopes: find changed merkle logs"));
    while (true) {
      ASSIGN_OR_RETURN(const bool has_row, rows->Next());
      if (!has_row) break;
      merkle_edge_scopes.insert(rows->Int(0));
    }
  }
  std::map<std::int64_t, std::int64_t> nodes_per_scope;
  {
    ASSIGN_OR_RETURN(std::unique_ptr<Rows> rows,
                     session.Query(in("SELECT scope_id, count(*) FROM nodes WHERE scope_id{in} "
                                      "GROUP BY scope_id"),
                                   tree_params, "erase scopes: count nodes"));
    while (true) {
      ASSIGN_OR_RETURN(const bool has_row, rows->Next());
      if (!has_row) break;
      nodes_per_scope[rows->Int(0)] = rows->Int(1);
    }
  }
  // Order matters: the journal, edge and vector deletions find their rows through the nodes.
  std::size_t erased_vectors = 0;
  std::size_t erased_analyses = 0;
  std::size_t erased_snapshots = 0;
  struct Step {
    std::string_view sql;
    std::size_t* count;
  };
  const Step steps[] = {
      {"DELETE FROM journal WHERE scope_id{in} "
       "OR target_id IN (SELECT id FROM nodes WHERE scope_id{in}) "
       "OR target_id IN (SELECT e.id FROM edges e WHERE e.scope_id{in} "
       "OR e.src IN (SELECT id FROM nodes WHERE scope_id{in}) "
       "OR e.dst IN (SELECT id FROM nodes WHERE scope_id{in}))",
       &counts.journal_entries},
      {"DELETE FROM edges WHERE scope_id{in} "
       "OR src IN (SELECT id FROM nodes WHERE scope_id{in}) "
       "OR dst IN (SELECT id FROM nodes WHERE scope_id{in})",
       &counts.edges},
      {"DELETE FROM vectors WHERE node_row IN (SELECT row_id FROM nodes WHERE scope_id{in})",
       &erased_vectors},
      {"DELETE FROM turn_analysis WHERE turn_row IN (SELECT row_id FROM nodes WHERE "
       "scope_id{in})",
       &erased_analyses},
      {"DELETE FROM projection_snapshots WHERE scope_id{in}", &erased_snapshots},
      {"DELETE FROM nodes WHERE scope_id{in}", &counts.nodes},
      {"DELETE FROM scopes WHERE scope_id{in}", &counts.scopes},
  };
  for (const Step& step : steps) {
    ASSIGN_OR_RETURN(const std::int64_t deleted,
                     session.Execute(in(step.sql), tree_params, "erase scopes: delete"));
    *step.count = static_cast<std::size_t>(deleted);
  }
  std::vector<std::int64_t> erased_ids;
  for (const ScopeRecord& scope : tree) erased_ids.push_back(scope.scope_id);
  RETURN_IF_ERROR(merkle::AfterErase(session.merkle_tables(), erased_ids, merkle_edge_scopes,
                                     merkle::SurvivingParents(tree)));
  for (const ScopeRecord& scope : tree) {
    RETURN_IF_ERROR(AppendJournal(
        session, scope.scope_id, JournalOp::kScopeErased, scope.node_id, 0, Timestamp{latest_at},
        "erased nodes=" + std::to_string(nodes_per_scope[scope.scope_id]), journal_table));
  }
  return counts;
}

}  // namespace engram::store::sql
