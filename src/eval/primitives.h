// primitives: the raw building blocks under engram's recall, timed on the same data so `engram
// bench perf` can say what engram's recall costs relative to them (issue "performance workload").
//
//   - Fts5Primitive: a raw SQLite FTS5 search. An in-memory database with one FTS5 table per
//     scope (columns speaker, text; tokenizer "porter unicode61", FTS5's own Porter stemmer),
//     filled with the same turns engram stored. A query is the question's words without
//     engram's stopwords (text/stopwords.h), each quoted, joined by OR, ranked by FTS5's bm25()
//     with a LIMIT; the statement is prepared once per scope and every returned row's rowid,
//     text and score are read.
//   - HnswPrimitive: a raw hnswlib search. One hnswlib::HierarchicalNSW<float> per scope over an
//     inner-product space (cosine on unit vectors) with engram's M, efConstruction and ef
//     ([vector] hnsw_*), filled with the vectors the caller passes (bench perf passes the ones
//     engram's store holds) and searched with searchKnn.
//
//   ASSIGN_OR_RETURN(auto fts, Fts5Primitive::Create(/*scopes=*/10));
//   RETURN_IF_ERROR(fts->Add(0, "Maya", "I went hiking in Porto."));
//   ASSIGN_OR_RETURN(std::size_t hits, fts->Search(0, "Where did Maya go hiking?", 100));
//
// Neither class is thread-safe; both are for timing, not for engram's read path.
#ifndef ENGRAM_EVAL_PRIMITIVES_H_
#define ENGRAM_EVAL_PRIMITIVES_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engram/status.h"

namespace engram::eval {

class Fts5Primitive {
 public:
  // kUnavailable when SQLite lacks FTS5 or the in-memory database cannot be created.
  static StatusOr<std::unique_ptr<Fts5Primitive>> Create(std::size_t scopes);
  ~Fts5Primitive();
  Fts5Primitive(const Fts5Primitive&) = delete;
  Fts5Primitive& operator=(const Fts5Primitive&) = delete;

  // Adds one turn to scope `scope_idx`'s table (inside one transaction until Finish()).
  Status Add(std::size_t scope_idx, std::string_view speaker, std::string_view text);
  // Commits the inserts and prepares each scope's search statement.
  Status Finish();
  // The MATCH expression for `question`: its normalised words minus stopwords, each quoted,
  // joined by " OR ". Empty when no word is left.
  static std::string MatchExpression(std::string_view question);
  // Runs the search on scope `scope_idx` and returns the number of rows read (at most `limit`).
  // An empty match expression returns 0 without a query.
  StatusOr<std::size_t> Search(std::size_t scope_idx, std::string_view question, std::size_t limit);

 private:
  struct Db;
  explicit Fts5Primitive(std::unique_ptr<Db> db);
  std::unique_ptr<Db> db_;
};

struct HnswPrimitiveOptions {
  std::size_t dimension = 0;                 // required
  std::size_t max_neighbors = 32;            // "M"
  std::size_t construction_expansion = 200;  // "efConstruction"
  std::size_t search_expansion = 256;        // "ef"; raised to k when k is larger
  std::uint64_t seed = 100;                  // hnswlib's level generator
};

class HnswPrimitive {
 public:
  // kInvalidArgument for a zero dimension.
  static StatusOr<std::unique_ptr<HnswPrimitive>> Create(const HnswPrimitiveOptions& options,
                                                         std::size_t scopes);
  ~HnswPrimitive();
  HnswPrimitive(const HnswPrimitive&) = delete;
  HnswPrimitive& operator=(const HnswPrimitive&) = delete;

  // Adds `vector` (dimension floats) with label `label` to scope `scope_idx`'s graph.
  Status Add(std::size_t scope_idx, std::uint64_t label, std::span<const float> vector);
  // searchKnn(query, k) on scope `scope_idx`; returns the number of hits.
  StatusOr<std::size_t> Search(std::size_t scope_idx, std::span<const float> query, std::size_t k);
  std::size_t size(std::size_t scope_idx) const;

 private:
  struct Graphs;
  explicit HnswPrimitive(std::unique_ptr<Graphs> graphs);
  std::unique_ptr<Graphs> graphs_;
};

}  // namespace engram::eval

#endif  // ENGRAM_EVAL_PRIMITIVES_H_
