// Runner, invariant checks and shrinker of the graph property test (see graph_check.h).
#include "graph_check.h"

#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <set>
#include <utility>

#include "engram/testing/temp_dir.h"
#include "store/journal.h"
#include "store/store.h"

namespace engram::property {
namespace {

// The engine clock starts after every event time the generator writes (2024..2026), so retiring
// or amending "now" never closes a memory before it began only because the test's clock is early.
constexpr std::int64_t kClockStartSeconds = 1893456000;  // 2030-01-01T00:00:00Z

// Scope path `outer` is `inner` or contains it.
bool Contains(std::string_view outer, std::string_view inner) {
  return inner == outer ||
         (inner.size() > outer.size() && inner.starts_with(outer) && inner[outer.size()] == '/');
}

bool Related(std::string_view a, std::string_view b) { return Contains(a, b) || Contains(b, a); }

std::string TopLevel(std::string_view path) { return std::string(path.substr(0, path.find('/'))); }

std::string Short(std::string_view id) { return std::string(id.substr(0, 12)); }

std::string Micros(const std::optional<std::int64_t>& micros) {
  return micros.has_value() ? FormatTimestamp(Timestamp{*micros}) : std::string("none");
}

// A read-only SQLite connection to the store file, for what the API does not expose.
class RawDb {
 public:
  explicit RawDb(const std::string& path) {
    if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
      error_ = "open " + path + ": " + (db_ ? sqlite3_errmsg(db_) : "out of memory");
    } else {
      sqlite3_busy_timeout(db_, 5000);
    }
  }
  ~RawDb() { sqlite3_close(db_); }
  RawDb(const RawDb&) = delete;
  RawDb& operator=(const RawDb&) = delete;

  const std::string& error() const { return error_; }

  // Runs `sql`, calling `row` for each result row.
  Status Query(const std::string& sql, const std::function<void(sqlite3_stmt*)>& row) {
    if (!error_.empty()) return Status::Internal(error_);
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK) {
      return Status::Internal("prepare \"" + sql + "\": " + sqlite3_errmsg(db_));
    }
    int rc = SQLITE_OK;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) row(stmt);
    sqlite3_finalize(stmt);
    if (rc != SQLITE_DONE) return Status::Internal("step \"" + sql + "\": " + sqlite3_errmsg(db_));
    return Status::Ok();
  }

 private:
  sqlite3* db_ = nullptr;
  std::string error_;
};

std::string Text(sqlite3_stmt* stmt, int column) {
  const unsigned char* text = sqlite3_column_text(stmt, column);
  return text == nullptr ? std::string() : reinterpret_cast<const char*>(text);
}

std::optional<std::int64_t> OptInt(sqlite3_stmt* stmt, int column) {
  if (sqlite3_column_type(stmt, column) == SQLITE_NULL) return std::nullopt;
  return sqlite3_column_int64(stmt, column);
}


}  // namespace

std::string Describe(const Violation& violation) {
  return "invariant " + violation.invariant + " violated after op #" +
         std::to_string(violation.op_index) + ": " + violation.detail;
}

struct GraphRun::StoreView {
  struct ScopeRow {
    std::int64_t scope_id = 0;
    std::string node_id;
    std::string path;
    std::int64_t last_sequence = 0;
  };
  struct NodeRow {
    std::int64_t row = 0;
    std::string id;
    std::string kind;
    std::int64_t scope_id = 0;
    std::string content_json;
    std::string status;
    std::optional<std::int64_t> valid_from;
    std::optional<std::int64_t> valid_to;
    std::int64_t sequence = 0;
    std::int64_t ingested_at = 0;
  };
  struct EdgeRow {
    std::int64_t row = 0;
    std::string id;
    std::string type;
    std::string src;
    std::string dst;
    std::int64_t scope_id = 0;
    std::string status;
    std::optional<std::int64_t> valid_from;
  };

  std::vector<ScopeRow> scopes;
  std::vector<NodeRow> nodes;  // row order
  std::vector<EdgeRow> edges;  // row order
  std::map<std::string, std::size_t, std::less<>> node_by_id;
  std::map<std::int64_t, std::size_t> scope_by_id;

  const NodeRow* Node(std::string_view id) const {
    const auto found = node_by_id.find(id);
    return found == node_by_id.end() ? nullptr : &nodes[found->second];
  }
  const ScopeRow* Scope(std::int64_t scope_id) const {
    const auto found = scope_by_id.find(scope_id);
    return found == scope_by_id.end() ? nullptr : &scopes[found->second];
  }
  std::string PathOf(const NodeRow& node) const {
    const ScopeRow* scope = Scope(node.scope_id);
    return scope == nullptr ? "<missing scope " + std::to_string(node.scope_id) + ">" : scope->path;
  }
  std::vector<const NodeRow*> Memories(std::string_view kind = "") const {
    std::vector<const NodeRow*> out;
    for (const NodeRow& node : nodes) {
      if (node.kind != "scope" && (kind.empty() || node.kind == kind)) out.push_back(&node);
    }
    return out;
  }
  std::vector<const EdgeRow*> PendingProposals() const {
    std::vector<const EdgeRow*> out;
    for (const EdgeRow& edge : edges) {
      if (edge.type == "same_as" && edge.status == "pending") out.push_back(&edge);
    }
    return out;
  }
};

GraphRun::GraphRun(std::string store_path)
    : store_path_(std::move(store_path)),
      clock_(FixedClock(Timestamp::FromSeconds(kClockStartSeconds), 1000)) {
  Open();
}

GraphRun::~GraphRun() = default;

void GraphRun::Open() {
  EngineOptions options;
  options.store_path = store_path_;
  options.clock = clock_;  // shared across reopens: time never runs backwards
  Config config;
  config.embedder.kind = "hashing";
  options.config = config;
  StatusOr<std::unique_ptr<Engine>> engine = Engine::Open(options);
  if (!engine.ok()) {
    std::fprintf(stderr, "graph property test: Engine::Open %s: %s\n", store_path_.c_str(),
                 engine.status().ToString().c_str());
    std::abort();
  }
  engine_ = std::move(engine).value();
}

StatusOr<std::string> GraphRun::DumpCanonical() {
  ASSIGN_OR_RETURN(std::unique_ptr<store::Store> store,
                   store::OpenSqliteStore(store_path_, {.create_if_missing = false}));
  return store->DumpCanonical();
}

StatusOr<GraphRun::StoreView> GraphRun::Load() {
  RawDb db(store_path_);
  StoreView view;
  RETURN_IF_ERROR(db.Query("BEGIN", [](sqlite3_stmt*) {}));
  RETURN_IF_ERROR(
      db.Query("SELECT scope_id, node_id, path, last_sequence FROM scopes ORDER BY scope_id",
               [&](sqlite3_stmt* stmt) {
                 view.scope_by_id[sqlite3_column_int64(stmt, 0)] = view.scopes.size();
                 view.scopes.push_back({sqlite3_column_int64(stmt, 0), Text(stmt, 1), Text(stmt, 2),
                                        sqlite3_column_int64(stmt, 3)});
               }));
  RETURN_IF_ERROR(db.Query(
      "SELECT row_id, id, kind, scope_id, content_json, status, valid_from, valid_to, sequence, "
      "ingested_at FROM nodes ORDER BY row_id",
      [&](sqlite3_stmt* stmt) {
        StoreView::NodeRow node;
        node.row = sqlite3_column_int64(stmt, 0);
        node.id = Text(stmt, 1);
        node.kind = Text(stmt, 2);
        node.scope_id = sqlite3_column_int64(stmt, 3);
        node.content_json = Text(stmt, 4);
        node.status = Text(stmt, 5);
        node.valid_from = OptInt(stmt, 6);
        node.valid_to = OptInt(stmt, 7);
        node.sequence = sqlite3_column_int64(stmt, 8);
        node.ingested_at = sqlite3_column_int64(stmt, 9);
        view.node_by_id[node.id] = view.nodes.size();
        view.nodes.push_back(std::move(node));
      }));
  RETURN_IF_ERROR(db.Query(
      "SELECT row_id, id, type, src, dst, scope_id, status, valid_from FROM edges ORDER BY row_id",
      [&](sqlite3_stmt* stmt) {
        view.edges.push_back({sqlite3_column_int64(stmt, 0), Text(stmt, 1), Text(stmt, 2),
                              Text(stmt, 3), Text(stmt, 4), sqlite3_column_int64(stmt, 5),
                              Text(stmt, 6), OptInt(stmt, 7)});
      }));
  RETURN_IF_ERROR(db.Query("COMMIT", [](sqlite3_stmt*) {}));
  return view;
}

std::vector<Violation> GraphRun::Apply(const Op& op, std::size_t op_index) {
  std::vector<Violation> found;
  const auto violate = [&](std::string invariant, std::string detail) {
    found.push_back({std::move(invariant), std::move(detail), op_index});
  };
  const std::string op_name(OpKindName(op.kind));
  ++stats_.op_counts[op_name];
  const auto refused = [&](const std::string& why) {
    ++stats_.expected_refusals[op_name + ": " + why];
  };
  // The status must be `expected` (kOk when the op must succeed).
  const auto expect = [&](const Status& status, StatusCode expected, const std::string& why) {
    if (status.code() == expected) {
      if (expected != StatusCode::kOk) refused(why);
      return;
    }
    violate("api-error", op_name + " returned " + status.ToString() + "; expected " +
                             (expected == StatusCode::kOk ? std::string("OK") : why));
  };
  // Remember, rebuild and reopen pick nothing from the store: skip reading it for them.
  const bool needs_view =
      op.kind != OpKind::kRemember && op.kind != OpKind::kRebuild && op.kind != OpKind::kReopen;
  StatusOr<StoreView> view = needs_view ? Load() : StoreView();
  if (!view.ok()) {
    violate("api-error", "reading the store: " + view.status().ToString());
    return found;
  }
  const auto scope_exists = [&](const std::string& path) {
    return std::any_of(view->scopes.begin(), view->scopes.end(),
                       [&](const StoreView::ScopeRow& scope) { return scope.path == path; });
  };

  switch (op.kind) {
    case OpKind::kRemember: {
      std::vector<Turn> turns;
      for (const OpTurn& op_turn : op.turns) {
        Turn turn;
        turn.role = ParseRole(op_turn.role).value_or(Role::kUser);
        turn.speaker = op_turn.speaker;
        turn.text = op_turn.text;
        turn.session_id = "s1";
        if (!op_turn.event_time.empty()) {
          StatusOr<Timestamp> time = ParseTimestamp(op_turn.event_time);
          if (time.ok()) turn.event_time = *time;
        }
        turns.push_back(std::move(turn));
      }
      const StatusOr<Scope> scope = Scope::Parse(op.scope);
      if (!scope.ok()) {
        violate("api-error", "bad scope in op: " + scope.status().ToString());
        break;
      }
      expect(engine_->Remember(*scope, turns).status(), StatusCode::kOk, "");
      break;
    }
    case OpKind::kRetire: {
      const std::vector<const StoreView::NodeRow*> memories = view->Memories();
      if (memories.empty()) break;
      const StoreView::NodeRow& node = *memories[op.pick % memories.size()];
      expect(engine_->Retire(node.id, "property test"),
             node.status == "active" ? StatusCode::kOk : StatusCode::kFailedPrecondition,
             "FailedPrecondition for a " + node.status + " memory");
      break;
    }
    case OpKind::kRetireAll: {
      const bool exists = scope_exists(op.scope);
      expect(engine_->RetireAll(Scope::Parse(op.scope).value()).status(),
             exists ? StatusCode::kOk : StatusCode::kNotFound, "NotFound for an unknown scope");
      break;
    }
    case OpKind::kErase: {
      // What the erase must remove: the scope tree's scopes, nodes, node rows and edges.
      std::set<std::int64_t> scope_ids;
      std::set<std::string> scope_node_ids;
      for (const StoreView::ScopeRow& scope : view->scopes) {
        if (Contains(op.scope, scope.path)) {
          scope_ids.insert(scope.scope_id);
          scope_node_ids.insert(scope.node_id);
        }
      }
      const StatusOr<EraseResult> erased = engine_->Erase(Scope::Parse(op.scope).value());
      expect(erased.status(), scope_ids.empty() ? StatusCode::kNotFound : StatusCode::kOk,
             "NotFound for an unknown scope");
      if (scope_ids.empty() || !erased.ok()) break;
      std::set<std::string> node_ids;
      std::set<std::int64_t> node_rows;
      for (const StoreView::NodeRow& node : view->nodes) {
        if (!scope_ids.contains(node.scope_id)) continue;
        node_ids.insert(node.id);
        node_rows.insert(node.row);
        valid_to_seen_.erase(node.id);
      }
      std::set<std::string> edge_ids;
      for (const StoreView::EdgeRow& edge : view->edges) {
        if (scope_ids.contains(edge.scope_id) || node_ids.contains(edge.src) ||
            node_ids.contains(edge.dst)) {
          edge_ids.insert(edge.id);
        }
      }
      RawDb db(store_path_);
      const auto residue = [&](const std::string& what) {
        violate("erase-leaves-nothing", "erase " + op.scope + " left " + what);
      };
      const auto query = [&](const std::string& sql,
                             const std::function<void(sqlite3_stmt*)>& row) {
        const Status status = db.Query(sql, row);
        if (!status.ok()) violate("api-error", "reading the store: " + status.ToString());
      };
      query("SELECT scope_id, path FROM scopes", [&](sqlite3_stmt* stmt) {
        if (scope_ids.contains(sqlite3_column_int64(stmt, 0)) ||
            Contains(op.scope, Text(stmt, 1))) {
          residue("scope row " + Text(stmt, 1));
        }
      });
      query("SELECT id, scope_id FROM nodes", [&](sqlite3_stmt* stmt) {
        if (node_ids.contains(Text(stmt, 0)) || scope_ids.contains(sqlite3_column_int64(stmt, 1))) {
          residue("node " + Text(stmt, 0));
        }
      });
      query("SELECT id, src, dst, scope_id FROM edges", [&](sqlite3_stmt* stmt) {
        if (edge_ids.contains(Text(stmt, 0)) || node_ids.contains(Text(stmt, 1)) ||
            node_ids.contains(Text(stmt, 2)) || scope_ids.contains(sqlite3_column_int64(stmt, 3))) {
          residue("edge " + Text(stmt, 0));
        }
      });
      query("SELECT node_row FROM vectors", [&](sqlite3_stmt* stmt) {
        if (node_rows.contains(sqlite3_column_int64(stmt, 0))) {
          residue("the vector of node row " + std::to_string(sqlite3_column_int64(stmt, 0)));
        }
      });
      query("SELECT seq, scope_id, op, target_id FROM journal", [&](sqlite3_stmt* stmt) {
        const std::string journal_op = Text(stmt, 2);
        const std::string target = Text(stmt, 3);
        if (journal_op == "scope_erased") return;  // the tombstone, by design
        if (scope_ids.contains(sqlite3_column_int64(stmt, 1)) || node_ids.contains(target) ||
            edge_ids.contains(target) || scope_node_ids.contains(target)) {
          residue("journal row " + std::to_string(sqlite3_column_int64(stmt, 0)) + " (" +
                  journal_op + " " + Short(target) + ")");
        }
      });
      // Any other table (a later migration's): no text cell may hold an erased id.
      std::vector<std::string> other_tables;
      query(
          "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND "
          "name NOT IN ('meta', 'scopes', 'nodes', 'edges', 'vectors', 'journal')",
          [&](sqlite3_stmt* stmt) { other_tables.push_back(Text(stmt, 0)); });
      for (const std::string& table : other_tables) {
        query("SELECT * FROM \"" + table + "\"", [&](sqlite3_stmt* stmt) {
          for (int column = 0; column < sqlite3_column_count(stmt); ++column) {
            if (sqlite3_column_type(stmt, column) != SQLITE_TEXT) continue;
            const std::string cell = Text(stmt, column);
            if (node_ids.contains(cell) || edge_ids.contains(cell) ||
                scope_node_ids.contains(cell)) {
              residue("table " + table + " holding " + Short(cell));
            }
          }
        });
      }
      break;
    }
    case OpKind::kPropose: {
      std::vector<const StoreView::NodeRow*> candidates = view->Memories("entity");
      if (candidates.size() < 2) candidates = view->Memories();
      if (candidates.size() < 2) break;
      const StoreView::NodeRow& a = *candidates[op.pick % candidates.size()];
      const StoreView::NodeRow& b = *candidates[op.pick2 % candidates.size()];
      StatusCode expected = StatusCode::kOk;
      std::string why;
      if (a.id == b.id) {
        expected = StatusCode::kInvalidArgument;
        why = "InvalidArgument for a node with itself";
      } else if (!Related(view->PathOf(a), view->PathOf(b))) {
        expected = StatusCode::kFailedPrecondition;
        why = "FailedPrecondition across unrelated scopes";
      } else {
        for (const StoreView::EdgeRow& edge : view->edges) {
          const bool joins =
              (edge.src == a.id && edge.dst == b.id) || (edge.src == b.id && edge.dst == a.id);
          if (edge.type == "same_as" && joins &&
              (edge.status == "active" || edge.status == "pending")) {
            expected = StatusCode::kAlreadyExists;
            why = "AlreadyExists for a live proposal";
          }
        }
      }
      expect(engine_->ProposeSameAs(a.id, b.id, "property test").status(), expected, why);
      break;
    }
    case OpKind::kAccept:
    case OpKind::kReject: {
      const std::vector<const StoreView::EdgeRow*> pending = view->PendingProposals();
      if (pending.empty()) break;
      const std::string& id = pending[op.pick % pending.size()]->id;
      expect(op.kind == OpKind::kAccept ? engine_->AcceptProposal(id) : engine_->RejectProposal(id),
             StatusCode::kOk, "");
      break;
    }
    case OpKind::kRebuild: {
      const StatusOr<RebuildReport> report = engine_->RebuildIndex();
      expect(report.status(), StatusCode::kOk, "");
      if (report.ok() && !report->matched_live_index) {
        violate("index-equals-rebuild", "RebuildIndex found the live index differs from a rebuild");
      }
      break;
    }
    case OpKind::kAmend: {
      const std::vector<const StoreView::NodeRow*> turns = view->Memories("turn");
      if (turns.empty() || op.turns.empty()) break;
      const StoreView::NodeRow& old_turn = *turns[op.pick % turns.size()];
      Turn replacement;
      replacement.text = op.turns.front().text;
      expect(engine_->Amend(old_turn.id, replacement, "property test").status(),
             old_turn.status == "active" ? StatusCode::kOk : StatusCode::kFailedPrecondition,
             "FailedPrecondition for a " + old_turn.status + " turn");
      break;
    }
    case OpKind::kRecall: {
      RecallOptions options;
      options.include_retired = op.include_retired;
      options.include_nested = op.include_nested;
      const StatusOr<ReadResult> result =
          engine_->Recall(Scope::Parse(op.scope).value(), {.text = op.text}, options);
      const bool exists = scope_exists(op.scope);
      expect(result.status(), exists ? StatusCode::kOk : StatusCode::kNotFound,
             "NotFound for an unknown scope");
      if (!result.ok()) break;
      for (const RecallItem& item : result->items) {
        const std::string what = "recall " + op.scope + " \"" + op.text +
                                 "\" (retired=" + (op.include_retired ? "1" : "0") +
                                 " nested=" + (op.include_nested ? "1" : "0") + ") returned " +
                                 std::string(NodeKindName(item.kind)) + " " + Short(item.id);
        const StoreView::NodeRow* node = view->Node(item.id);
        if (node == nullptr) {
          violate("recall-visibility", what + ", which is not in the store (erased?)");
          continue;
        }
        const std::string path = view->PathOf(*node);
        if (!(path == op.scope || (op.include_nested && Contains(op.scope, path)))) {
          violate("recall-visibility", what + " of scope " + path);
        }
        if (!op.include_retired && node->status != "active") {
          violate("recall-visibility", what + ", which is " + node->status);
        }
        for (const std::string& evidence : item.provenance) {
          if (view->Node(evidence) == nullptr) {
            violate("recall-visibility",
                    what + " citing evidence " + Short(evidence) + " that is not in the store");
          }
        }
      }
      break;
    }
    case OpKind::kRecallAsOf: {
      RecallOptions options;
      options.include_retired = op.include_retired;
      options.include_nested = op.include_nested;
      if (!op.valid_at.empty()) options.valid_at = ParseTimestamp(op.valid_at).value();
      const std::vector<const StoreView::NodeRow*> memories = view->Memories();
      if (op.known_at && !memories.empty()) {
        options.known_at = Timestamp{memories[op.pick % memories.size()]->ingested_at};
      }
      const StatusOr<ReadResult> result =
          engine_->Recall(Scope::Parse(op.scope).value(), {.text = op.text}, options);
      const bool exists = scope_exists(op.scope);
      expect(result.status(), exists ? StatusCode::kOk : StatusCode::kNotFound,
             "NotFound for an unknown scope");
      if (!result.ok()) break;
      RawDb db(store_path_);
      for (const RecallItem& item : result->items) {
        const std::string what =
            "recall " + op.scope + " \"" + op.text + "\" (retired=" +
            (op.include_retired ? "1" : "0") + " valid_at=" +
            (options.valid_at ? FormatTimestamp(*options.valid_at) : "-") + " known_at=" +
            (options.known_at ? FormatTimestamp(*options.known_at) : "-") + ") returned " +
            std::string(NodeKindName(item.kind)) + " " + Short(item.id);
        const StoreView::NodeRow* node = view->Node(item.id);
        if (node == nullptr) {
          violate("recall-visibility", what + ", which is not in the store (erased?)");
          continue;
        }
        const std::string path = view->PathOf(*node);
        if (!(path == op.scope || (op.include_nested && Contains(op.scope, path)))) {
          violate("recall-visibility", what + " of scope " + path);
        }
        // What the store held at known_at: the state of the last journal entry about the node
        // at or before it (the current state without known_at).
        std::string status = node->status;
        std::optional<std::int64_t> valid_to = node->valid_to;
        if (options.known_at) {
          if (node->ingested_at > options.known_at->micros) {
            violate("recall-as-of", what + ", ingested at " + Micros(node->ingested_at) +
                                        ", after known_at");
            continue;
          }
          status = "active";
          valid_to.reset();
          Status read = db.Query(
              "SELECT at, detail FROM journal WHERE target_id = '" + node->id +
                  "' AND op IN ('node_inserted', 'node_updated') ORDER BY seq",
              [&](sqlite3_stmt* stmt) {
                if (sqlite3_column_int64(stmt, 0) > options.known_at->micros) return;
                StatusOr<std::optional<store::RecordedState>> state =
                    store::ParseStateDetail(Text(stmt, 1));
                if (state.ok() && state->has_value()) {
                  status = std::string(NodeStatusName((*state)->status));
                  valid_to = (*state)->valid_to
                                 ? std::optional<std::int64_t>((*state)->valid_to->micros)
                                 : std::nullopt;
                }
              });
          if (!read.ok()) violate("api-error", "reading the journal: " + read.ToString());
        }
        if (options.valid_at) {
          const std::int64_t at = options.valid_at->micros;
          if ((node->valid_from && *node->valid_from > at) || (valid_to && *valid_to <= at)) {
            violate("recall-as-of", what + ", valid " + Micros(node->valid_from) + " .. " +
                                        Micros(valid_to) + ", which does not cover valid_at");
          }
          if (!op.include_retired && (status == "rejected" || status == "pending")) {
            violate("recall-as-of", what + ", which was " + status);
          }
        } else if (!op.include_retired && status != "active") {
          violate("recall-as-of", what + ", which was " + status + " at known_at");
        }
      }
      break;
    }
    case OpKind::kReopen:
      engine_.reset();
      Open();
      break;
  }
  return found;
}

std::vector<Violation> GraphRun::CheckStore(std::size_t op_index) {
  ++stats_.checks;
  std::vector<Violation> found;
  const auto violate = [&](std::string invariant, std::string detail) {
    found.push_back({std::move(invariant), std::move(detail), op_index});
  };
  StatusOr<StoreView> loaded = Load();
  if (!loaded.ok()) {
    violate("api-error", "reading the store: " + loaded.status().ToString());
    return found;
  }
  const StoreView& view = *loaded;

  // validity-interval, validity-tightens.
  for (const StoreView::NodeRow& node : view.nodes) {
    if (node.valid_from && node.valid_to && *node.valid_to < *node.valid_from) {
      violate("validity-interval", node.kind + " " + Short(node.id) + " (" + node.status +
                                       ") is valid from " + Micros(node.valid_from) + " to " +
                                       Micros(node.valid_to));
    }
    const auto seen = valid_to_seen_.find(node.id);
    if (seen != valid_to_seen_.end() && seen->second.has_value() &&
        (!node.valid_to.has_value() || *node.valid_to > *seen->second)) {
      violate("validity-tightens", node.kind + " " + Short(node.id) + " had valid_to " +
                                       Micros(seen->second) + ", now " + Micros(node.valid_to));
    }
    valid_to_seen_[node.id] = node.valid_to;
  }

  // single-valued-slot: active current facts of one single-valued slot never overlap in time.
  std::map<std::pair<std::int64_t, std::string>, std::vector<const StoreView::NodeRow*>> slots;
  for (const StoreView::NodeRow& node : view.nodes) {
    if (node.kind != "fact" || node.status != "active") continue;
    const nlohmann::json content = nlohmann::json::parse(node.content_json, nullptr, false);
    if (!content.is_object() || !content.value("single_valued", false) ||
        content.value("past", false) || content.value("polarity", std::string("+")) != "+") {
      continue;
    }
    const std::string kind = content.value("kind", std::string());
    if (kind == "event" || kind == "foresight") continue;
    slots[{node.scope_id, content.value("slot", std::string())}].push_back(&node);
  }
  for (const auto& [key, facts] : slots) {
    for (std::size_t i = 0; i < facts.size(); ++i) {
      for (std::size_t j = i + 1; j < facts.size(); ++j) {
        const std::int64_t begin_i = facts[i]->valid_from.value_or(INT64_MIN);
        const std::int64_t end_i = facts[i]->valid_to.value_or(INT64_MAX);
        const std::int64_t begin_j = facts[j]->valid_from.value_or(INT64_MIN);
        const std::int64_t end_j = facts[j]->valid_to.value_or(INT64_MAX);
        if (begin_i < end_j && begin_j < end_i) {
          violate("single-valued-slot",
                  "scope " + view.PathOf(*facts[i]) + " slot \"" + key.second +
                      "\": active facts " + Short(facts[i]->id) + " [" +
                      Micros(facts[i]->valid_from) + ", " + Micros(facts[i]->valid_to) + ") and " +
                      Short(facts[j]->id) + " [" + Micros(facts[j]->valid_from) + ", " +
                      Micros(facts[j]->valid_to) + ") overlap");
        }
      }
    }
  }

  // edge-endpoints, supersedes-tightens; the supersedes graph for supersedes-acyclic.
  std::map<std::string, std::vector<std::string>> supersedes;
  for (const StoreView::EdgeRow& edge : view.edges) {
    const StoreView::NodeRow* src = view.Node(edge.src);
    const StoreView::NodeRow* dst = view.Node(edge.dst);
    if (src == nullptr || dst == nullptr) {
      violate("edge-endpoints", edge.type + " edge " + Short(edge.id) + " has a missing endpoint");
      continue;
    }
    if (!Related(view.PathOf(*src), view.PathOf(*dst))) {
      violate("edge-endpoints", edge.type + " edge " + Short(edge.id) + " (" + edge.status +
                                    ") joins scope " + view.PathOf(*src) + " and scope " +
                                    view.PathOf(*dst));
    }
    if (edge.type != "supersedes" || edge.status != "active") continue;
    supersedes[edge.src].push_back(edge.dst);
    if (dst->status == "active" || !dst->valid_to.has_value() ||
        (edge.valid_from.has_value() && *dst->valid_to > *edge.valid_from)) {
      violate("supersedes-tightens", "supersedes edge " + Short(edge.id) + " at " +
                                         Micros(edge.valid_from) + ": the old " + dst->kind + " " +
                                         Short(dst->id) + " is " + dst->status + " with valid_to " +
                                         Micros(dst->valid_to));
    }
  }
  {
    // Iterative DFS with colours: 1 = on the stack, 2 = done.
    std::map<std::string, int> colour;
    for (const auto& [start, unused] : supersedes) {
      if (colour[start] != 0) continue;
      std::vector<std::pair<std::string, std::size_t>> stack = {{start, 0}};
      colour[start] = 1;
      while (!stack.empty()) {
        auto& [node, next] = stack.back();
        const auto out = supersedes.find(node);
        if (out == supersedes.end() || next >= out->second.size()) {
          colour[node] = 2;
          stack.pop_back();
          continue;
        }
        const std::string child = out->second[next++];
        if (colour[child] == 1) {
          violate("supersedes-acyclic", "supersedes cycle through " + Short(child));
        } else if (colour[child] == 0) {
          colour[child] = 1;
          stack.push_back({child, 0});
        }
      }
    }
  }

  // evidence: derived nodes cite an existing turn of their own scope through derived_from.
  {
    std::map<std::string, std::vector<const StoreView::EdgeRow*>> derived_from;
    for (const StoreView::EdgeRow& edge : view.edges) {
      if (edge.type == "derived_from") derived_from[edge.src].push_back(&edge);
    }
    for (const StoreView::NodeRow& node : view.nodes) {
      if (node.kind == "scope" || node.kind == "turn" || node.kind == "entity") continue;
      bool has_evidence = false;
      for (const StoreView::EdgeRow* edge : derived_from[node.id]) {
        const StoreView::NodeRow* evidence = view.Node(edge->dst);
        if (evidence == nullptr) continue;
        if (evidence->kind != "turn" || evidence->scope_id != node.scope_id) {
          violate("evidence", node.kind + " " + Short(node.id) + " of scope " + view.PathOf(node) +
                                  " is derived from " + evidence->kind + " " + Short(evidence->id) +
                                  " of scope " + view.PathOf(*evidence));
        }
        has_evidence = true;
      }
      if (!has_evidence) {
        violate("evidence", node.kind + " " + Short(node.id) + " of scope " + view.PathOf(node) +
                                " has no existing evidence");
      }
    }
  }

  // same-as-classes: union-find over accepted same_as edges, against Engine::EquivalenceClass.
  {
    std::map<std::string, std::string> parent;
    const std::function<std::string(const std::string&)> root = [&](const std::string& id) {
      std::string current = id;
      while (parent.contains(current) && parent[current] != current) current = parent[current];
      return current;
    };
    for (const StoreView::EdgeRow& edge : view.edges) {
      if (edge.type != "same_as" || edge.status != "active") continue;
      if (!parent.contains(edge.src)) parent[edge.src] = edge.src;
      if (!parent.contains(edge.dst)) parent[edge.dst] = edge.dst;
      parent[root(edge.src)] = root(edge.dst);
    }
    std::map<std::string, std::vector<std::string>> classes;
    for (const auto& [id, unused] : parent) classes[root(id)].push_back(id);
    for (auto& [unused, members] : classes) {
      std::sort(members.begin(), members.end());
      std::set<std::string> tops;
      for (const std::string& member : members) {
        const StoreView::NodeRow* node = view.Node(member);
        if (node != nullptr) tops.insert(TopLevel(view.PathOf(*node)));
        const StatusOr<std::vector<std::string>> engine_class = engine_->EquivalenceClass(member);
        if (!engine_class.ok() || *engine_class != members) {
          violate(
              "same-as-classes",
              "EquivalenceClass(" + Short(member) + ") " +
                  (engine_class.ok() ? "has " + std::to_string(engine_class->size()) + " members"
                                     : engine_class.status().ToString()) +
                  "; the accepted same_as edges give " + std::to_string(members.size()));
        }
      }
      if (tops.size() > 1) {
        violate("same-as-classes", "a class of " + std::to_string(members.size()) +
                                       " members spans " + std::to_string(tops.size()) +
                                       " unrelated top-level scopes");
      }
    }
  }

  // sequence-numbers.
  {
    std::map<std::int64_t, std::vector<const StoreView::NodeRow*>> by_scope;
    for (const StoreView::NodeRow& node : view.nodes) by_scope[node.scope_id].push_back(&node);
    for (const StoreView::ScopeRow& scope : view.scopes) {
      const auto seen = last_sequence_seen_.find(scope.scope_id);
      if (seen != last_sequence_seen_.end() && scope.last_sequence < seen->second) {
        violate("sequence-numbers", "scope " + scope.path + " last_sequence went from " +
                                        std::to_string(seen->second) + " to " +
                                        std::to_string(scope.last_sequence));
      }
      last_sequence_seen_[scope.scope_id] = scope.last_sequence;
      std::set<std::int64_t> turn_sequences;
      std::int64_t previous = 0;
      for (const StoreView::NodeRow* node : by_scope[scope.scope_id]) {
        if (node->kind != "turn") continue;
        if (node->sequence <= previous) {
          violate("sequence-numbers", "scope " + scope.path + ": turn " + Short(node->id) +
                                          " (row " + std::to_string(node->row) + ") has sequence " +
                                          std::to_string(node->sequence) + " after " +
                                          std::to_string(previous));
        }
        previous = std::max(previous, node->sequence);
        turn_sequences.insert(node->sequence);
      }
      if (previous > scope.last_sequence) {
        violate("sequence-numbers", "scope " + scope.path + ": a turn has sequence " +
                                        std::to_string(previous) + " > last_sequence " +
                                        std::to_string(scope.last_sequence));
      }
      for (const StoreView::NodeRow* node : by_scope[scope.scope_id]) {
        if (node->kind == "turn" || node->kind == "scope" || node->kind == "entity") continue;
        if (!turn_sequences.contains(node->sequence)) {
          violate("sequence-numbers", "scope " + scope.path + ": " + node->kind + " " +
                                          Short(node->id) + " has sequence " +
                                          std::to_string(node->sequence) + ", no turn's");
        }
      }
    }
  }

  // index-equals-rebuild.
  const StatusOr<RebuildReport> report = engine_->RebuildIndex();
  if (!report.ok()) {
    violate("api-error", "RebuildIndex returned " + report.status().ToString());
  } else if (!report->matched_live_index) {
    violate("index-equals-rebuild", "RebuildIndex found the live index differs from a rebuild");
  }
  return found;
}

RunResult RunOpStream(std::size_t count, const std::function<Op(std::size_t)>& op_at,
                      const RunOptions& options) {
  RunResult result;
  engram::testing::TempDir dir("engram_graph");
  GraphRun run(dir.path() + "/engram.db");
  for (std::size_t op_index = 0; op_index < count; ++op_index) {
    std::vector<Violation> found = run.Apply(op_at(op_index), op_index);
    const bool last = op_index + 1 == count;
    if (last || (options.check_every != 0 && (op_index + 1) % options.check_every == 0)) {
      std::vector<Violation> store_wide = run.CheckStore(op_index);
      found.insert(found.end(), store_wide.begin(), store_wide.end());
    }
    ++run.stats().ops_run;
    if (options.progress) options.progress(op_index);
    result.violations.insert(result.violations.end(), found.begin(), found.end());
    if (!found.empty() && options.stop_at_first) break;
  }
  result.stats = run.stats();
  StatusOr<std::string> dump = run.DumpCanonical();
  result.dump = dump.ok() ? *dump : "dump failed: " + dump.status().ToString();
  return result;
}

RunResult RunOps(const std::vector<Op>& ops, const RunOptions& options) {
  return RunOpStream(
      ops.size(), [&](std::size_t op_index) { return ops[op_index]; }, options);
}

std::vector<Op> Shrink(const std::vector<Op>& ops, const std::string& invariant,
                       std::size_t max_replays) {
  return ShrinkWith(
      ops,
      [&](const std::vector<Op>& candidate) -> std::optional<std::size_t> {
        const RunResult result = RunOps(candidate, {.check_every = 1, .stop_at_first = true});
        for (const Violation& violation : result.violations) {
          if (violation.invariant == invariant) return violation.op_index;
        }
        return std::nullopt;
      },
      max_replays);
}

std::vector<Op> ShrinkWith(const std::vector<Op>& ops, const FailingOp& failing_op,
                           std::size_t max_replays) {
  std::size_t replays = 0;
  // Whether `candidate` still fails; the failing prefix on success.
  const auto fails = [&](const std::vector<Op>& candidate, std::vector<Op>* prefix) {
    ++replays;
    const std::optional<std::size_t> failed_at = failing_op(candidate);
    if (!failed_at.has_value()) return false;
    prefix->assign(candidate.begin(), candidate.begin() + *failed_at + 1);
    return true;
  };
  std::vector<Op> current = ops;
  std::vector<Op> prefix;
  if (!fails(current, &prefix)) return current;  // does not fail alone: nothing to shrink
  current = prefix;
  // ddmin: remove chunks (complements of one of n parts) while it still fails.
  std::size_t parts = 2;
  while (current.size() >= 2 && replays < max_replays) {
    const std::size_t chunk = (current.size() + parts - 1) / parts;
    bool reduced = false;
    for (std::size_t begin = 0; begin < current.size() && replays < max_replays; begin += chunk) {
      std::vector<Op> complement(current.begin(), current.begin() + begin);
      complement.insert(complement.end(), current.begin() + std::min(current.size(), begin + chunk),
                        current.end());
      if (fails(complement, &prefix)) {
        current = prefix;
        parts = std::max<std::size_t>(parts - 1, 2);
        reduced = true;
        break;
      }
    }
    if (reduced) continue;
    if (parts >= current.size()) break;
    parts = std::min(parts * 2, current.size());
  }
  // Then single turns out of multi-turn remembers.
  for (std::size_t op_idx = 0; op_idx < current.size() && replays < max_replays; ++op_idx) {
    for (std::size_t turn_idx = 0;
         op_idx < current.size() && current[op_idx].kind == OpKind::kRemember &&
         current[op_idx].turns.size() > 1 && turn_idx < current[op_idx].turns.size() &&
         replays < max_replays;) {
      std::vector<Op> candidate = current;
      candidate[op_idx].turns.erase(candidate[op_idx].turns.begin() + turn_idx);
      if (fails(candidate, &prefix)) {
        current = prefix;
      } else {
        ++turn_idx;
      }
    }
  }
  return current;
}

}  // namespace engram::property
