// The raw FTS5 and hnswlib primitives timed by `engram bench perf` (see primitives.h).
#include "eval/primitives.h"

#include <sqlite3.h>

// hnswlib's headers define a few non-inline functions (cpuid, xgetbv, AVXCapable, AVX512Capable)
// and global distance-function pointers (space_ip.h, space_l2.h) that
// src/index/vector/hnsw_index.cc also defines by including them. Their system headers are
// included first and those names renamed for this file, so the two copies do not collide at link
// time; the templates and static functions hnswlib is otherwise made of are safe to repeat.
// Sanitizer builds use hnswlib's plain code paths, as hnsw_index.cc does (same reason).
#if defined(__SANITIZE_ADDRESS__)
#define NO_MANUAL_VECTORIZATION
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NO_MANUAL_VECTORIZATION
#endif
#endif
#include <cpuid.h>
#include <stdint.h>
#include <x86intrin.h>
#define cpuid engram_eval_hnswlib_cpuid
#define xgetbv engram_eval_hnswlib_xgetbv
#define AVXCapable engram_eval_hnswlib_AVXCapable
#define AVX512Capable engram_eval_hnswlib_AVX512Capable
#define InnerProductSIMD16Ext engram_eval_hnswlib_InnerProductSIMD16Ext
#define InnerProductSIMD4Ext engram_eval_hnswlib_InnerProductSIMD4Ext
#define InnerProductDistanceSIMD16Ext engram_eval_hnswlib_InnerProductDistanceSIMD16Ext
#define InnerProductDistanceSIMD4Ext engram_eval_hnswlib_InnerProductDistanceSIMD4Ext
#define L2SqrSIMD16Ext engram_eval_hnswlib_L2SqrSIMD16Ext
#include <hnswlib/hnswlib.h>
#undef cpuid
#undef xgetbv
#undef AVXCapable
#undef AVX512Capable
#undef InnerProductSIMD16Ext
#undef InnerProductSIMD4Ext
#undef InnerProductDistanceSIMD16Ext
#undef InnerProductDistanceSIMD4Ext
#undef L2SqrSIMD16Ext

#include <algorithm>
#include <exception>
#include <set>

#include "text/tokenizer.h"

namespace engram::eval {

// ---------------------------------------------------------------------------------------------
// FTS5

struct Fts5Primitive::Db {
  sqlite3* handle = nullptr;
  std::vector<sqlite3_stmt*> inserts;   // one per scope
  std::vector<sqlite3_stmt*> searches;  // one per scope, prepared by Finish()

  ~Db() {
    for (sqlite3_stmt* statement : inserts) sqlite3_finalize(statement);
    for (sqlite3_stmt* statement : searches) sqlite3_finalize(statement);
    if (handle != nullptr) sqlite3_close(handle);
  }

  Status Error(std::string_view what) const {
    return Status::Unavailable("fts5 primitive: " + std::string(what) + ": " +
                               sqlite3_errmsg(handle));
  }

  Status Exec(const std::string& sql) const {
    char* message = nullptr;
    if (sqlite3_exec(handle, sql.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
      std::string text = message != nullptr ? message : "unknown error";
      sqlite3_free(message);
      return Status::Unavailable("fts5 primitive: " + sql.substr(0, 80) + ": " + text);
    }
    return Status::Ok();
  }

  Status Prepare(const std::string& sql, sqlite3_stmt** statement) const {
    if (sqlite3_prepare_v2(handle, sql.c_str(), -1, statement, nullptr) != SQLITE_OK) {
      return Error("preparing " + sql.substr(0, 80));
    }
    return Status::Ok();
  }
};

namespace {

std::string TableName(std::size_t scope_idx) { return "scope_" + std::to_string(scope_idx); }

}  // namespace

Fts5Primitive::Fts5Primitive(std::unique_ptr<Db> db) : db_(std::move(db)) {}
Fts5Primitive::~Fts5Primitive() = default;

StatusOr<std::unique_ptr<Fts5Primitive>> Fts5Primitive::Create(std::size_t scopes) {
  auto db = std::make_unique<Db>();
  if (sqlite3_open_v2(":memory:", &db->handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                      nullptr) != SQLITE_OK) {
    return Status::Unavailable("fts5 primitive: cannot open an in-memory SQLite database");
  }
  for (std::size_t scope_idx = 0; scope_idx < scopes; ++scope_idx) {
    const std::string table = TableName(scope_idx);
    RETURN_IF_ERROR(db->Exec("CREATE VIRTUAL TABLE " + table +
                             " USING fts5(speaker, text, tokenize = 'porter unicode61')"));
    sqlite3_stmt* insert = nullptr;
    RETURN_IF_ERROR(
        db->Prepare("INSERT INTO " + table + "(speaker, text) VALUES (?1, ?2)", &insert));
    db->inserts.push_back(insert);
  }
  RETURN_IF_ERROR(db->Exec("BEGIN"));
  return std::unique_ptr<Fts5Primitive>(new Fts5Primitive(std::move(db)));
}

Status Fts5Primitive::Add(std::size_t scope_idx, std::string_view speaker, std::string_view text) {
  if (scope_idx >= db_->inserts.size()) {
    return Status::InvalidArgument("fts5 primitive: no scope " + std::to_string(scope_idx));
  }
  sqlite3_stmt* insert = db_->inserts[scope_idx];
  sqlite3_bind_text(insert, 1, speaker.data(), static_cast<int>(speaker.size()), SQLITE_STATIC);
  sqlite3_bind_text(insert, 2, text.data(), static_cast<int>(text.size()), SQLITE_STATIC);
  const int stepped = sqlite3_step(insert);
  sqlite3_reset(insert);
  sqlite3_clear_bindings(insert);
  if (stepped != SQLITE_DONE) return db_->Error("inserting a turn");
  return Status::Ok();
}

Status Fts5Primitive::Finish() {
  RETURN_IF_ERROR(db_->Exec("COMMIT"));
  for (std::size_t scope_idx = 0; scope_idx < db_->inserts.size(); ++scope_idx) {
    const std::string table = TableName(scope_idx);
    sqlite3_stmt* search = nullptr;
    RETURN_IF_ERROR(db_->Prepare("SELECT rowid, text, bm25(" + table + ") FROM " + table +
                                     " WHERE " + table + " MATCH ?1 ORDER BY bm25(" + table +
                                     ") LIMIT ?2",
                                 &search));
    db_->searches.push_back(search);
  }
  return Status::Ok();
}

std::string Fts5Primitive::MatchExpression(std::string_view question) {
  // engram's tokenizer without stemming: normalised words, stopwords dropped; FTS5's porter
  // tokenizer stems them on its side.
  static const text::Tokenizer kWords(text::TokenizerOptions{.stem = false});
  std::string expression;
  std::set<std::string> seen;
  for (const std::string& word : kWords.Terms(question)) {
    if (!seen.insert(word).second) continue;
    std::string quoted = "\"";
    for (const char c : word) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
    quoted += "\"";
    expression += (expression.empty() ? "" : " OR ") + quoted;
  }
  return expression;
}

StatusOr<std::size_t> Fts5Primitive::Search(std::size_t scope_idx, std::string_view question,
                                            std::size_t limit) {
  if (scope_idx >= db_->searches.size()) {
    return Status::InvalidArgument("fts5 primitive: no scope " + std::to_string(scope_idx) +
                                   " (or Finish() not called)");
  }
  const std::string expression = MatchExpression(question);
  if (expression.empty()) return std::size_t{0};
  sqlite3_stmt* search = db_->searches[scope_idx];
  sqlite3_bind_text(search, 1, expression.data(), static_cast<int>(expression.size()),
                    SQLITE_TRANSIENT);
  sqlite3_bind_int64(search, 2, static_cast<sqlite3_int64>(limit));
  std::size_t rows = 0;
  int stepped = SQLITE_ROW;
  while ((stepped = sqlite3_step(search)) == SQLITE_ROW) {
    // Read what a caller would: the row, its text and its score.
    (void)sqlite3_column_int64(search, 0);
    (void)sqlite3_column_text(search, 1);
    (void)sqlite3_column_double(search, 2);
    ++rows;
  }
  sqlite3_reset(search);
  sqlite3_clear_bindings(search);
  if (stepped != SQLITE_DONE) return db_->Error("searching");
  return rows;
}

// ---------------------------------------------------------------------------------------------
// hnswlib

struct HnswPrimitive::Graphs {
  HnswPrimitiveOptions options;
  std::unique_ptr<hnswlib::InnerProductSpace> space;
  std::vector<std::unique_ptr<hnswlib::HierarchicalNSW<float>>> graphs;
};

HnswPrimitive::HnswPrimitive(std::unique_ptr<Graphs> graphs) : graphs_(std::move(graphs)) {}
HnswPrimitive::~HnswPrimitive() = default;

StatusOr<std::unique_ptr<HnswPrimitive>> HnswPrimitive::Create(const HnswPrimitiveOptions& options,
                                                               std::size_t scopes) {
  if (options.dimension == 0) {
    return Status::InvalidArgument("hnsw primitive: dimension must be at least 1");
  }
  auto graphs = std::make_unique<Graphs>();
  graphs->options = options;
  graphs->space = std::make_unique<hnswlib::InnerProductSpace>(options.dimension);
  try {
    for (std::size_t scope_idx = 0; scope_idx < scopes; ++scope_idx) {
      graphs->graphs.push_back(std::make_unique<hnswlib::HierarchicalNSW<float>>(
          graphs->space.get(), /*max_elements=*/1024, options.max_neighbors,
          options.construction_expansion, options.seed));
      graphs->graphs.back()->setEf(options.search_expansion);
    }
  } catch (const std::exception& error) {
    return Status::Internal(std::string("hnsw primitive: ") + error.what());
  }
  return std::unique_ptr<HnswPrimitive>(new HnswPrimitive(std::move(graphs)));
}

Status HnswPrimitive::Add(std::size_t scope_idx, std::uint64_t label,
                          std::span<const float> vector) {
  if (scope_idx >= graphs_->graphs.size()) {
    return Status::InvalidArgument("hnsw primitive: no scope " + std::to_string(scope_idx));
  }
  if (vector.size() != graphs_->options.dimension) {
    return Status::InvalidArgument("hnsw primitive: vector of " + std::to_string(vector.size()) +
                                   " floats, expected " +
                                   std::to_string(graphs_->options.dimension));
  }
  hnswlib::HierarchicalNSW<float>& graph = *graphs_->graphs[scope_idx];
  try {
    if (graph.cur_element_count >= graph.max_elements_) {
      graph.resizeIndex(graph.max_elements_ * 2);
    }
    graph.addPoint(vector.data(), static_cast<hnswlib::labeltype>(label));
  } catch (const std::exception& error) {
    return Status::Internal(std::string("hnsw primitive: ") + error.what());
  }
  return Status::Ok();
}

StatusOr<std::size_t> HnswPrimitive::Search(std::size_t scope_idx, std::span<const float> query,
                                            std::size_t k) {
  if (scope_idx >= graphs_->graphs.size()) {
    return Status::InvalidArgument("hnsw primitive: no scope " + std::to_string(scope_idx));
  }
  if (query.size() != graphs_->options.dimension) {
    return Status::InvalidArgument("hnsw primitive: query of the wrong dimension");
  }
  hnswlib::HierarchicalNSW<float>& graph = *graphs_->graphs[scope_idx];
  if (graph.cur_element_count == 0) return std::size_t{0};
  graph.setEf(std::max(graphs_->options.search_expansion, k));
  try {
    auto hits = graph.searchKnn(query.data(), k);
    return hits.size();
  } catch (const std::exception& error) {
    return Status::Internal(std::string("hnsw primitive: ") + error.what());
  }
}

std::size_t HnswPrimitive::size(std::size_t scope_idx) const {
  return scope_idx < graphs_->graphs.size() ? graphs_->graphs[scope_idx]->cur_element_count : 0;
}

}  // namespace engram::eval
