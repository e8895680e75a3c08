// The fact-symbolic route (DESIGN §5.3, Eywa's fact route) and the expansion of fact items to
// their supporting turns (DESIGN §5.7).
//
// FactRoute ("facts") proposes the fact nodes of the searched scopes (write/facts.h: subject,
// predicate, object, kind, time) that answer the question, read from the scopes' ScopeGraph
// (entity_route.h, cached per scope):
//   1. Lexical fit: the question's terms found among the fact's predicate and object terms
//      (same tokenizer and stemming as BM25: "likes" and "like" are one term), each weighted by
//      its BM25 idf over the searched turns: ln(1 + (N - df + 0.5) / (df + 0.5)). A fact that
//      shares no term is not proposed.
//   2. Subject: × [recall] facts_asked_subject when the fact's subject is a person the question
//      names (its name, or a speaker's first name), or "user" when the question speaks in the
//      first person;
//      × facts_other_subject when the question names someone and the subject is someone else.
//   3. Answer-type fit by shape: a "when" question prefers facts with a time of their own
//      (× facts_untimed_when otherwise); a question about the present (frame.current) takes only
//      facts valid at the query time; superseded facts are proposed only when the question asks
//      about change or history (an ordering shape, or a cue such as "changed", "previously",
//      "used to", "anymore"); retired, rejected and pending facts never.
//   score = Σ idf(matched terms) × subject factor × fit. Ties: row ascending.
// Proposes nothing without a store or without query terms.
//
// ExpandFactProvenance: the recall pipeline calls it once the items are built, so an item of
// kind fact lists its supporting turns (derived_from edges) in `provenance`, in sequence order:
// the benchmark's turn ranking counts them and the packed context can show the evidence.
#ifndef ENGRAM_READ_FACT_ROUTE_H_
#define ENGRAM_READ_FACT_ROUTE_H_

#include <memory>
#include <vector>

#include "engram/read_result.h"
#include "read/entity_route.h"
#include "read/route.h"

namespace engram::read {

class FactRoute final : public Route {
 public:
  static constexpr std::string_view kName = "facts";
  // A fact's overlap is multiplied by [recall] facts_asked_subject (the subject is the person
  // asked about), facts_other_subject (the question asks about someone else) and
  // facts_untimed_when (a "when" question, a fact without a time).

  explicit FactRoute(std::shared_ptr<ScopeGraphCache> cache) : cache_(std::move(cache)) {}
  std::string_view name() const override { return kName; }
  StatusOr<std::vector<RouteCandidate>> Run(const RouteContext& context) const override;

 private:
  std::shared_ptr<ScopeGraphCache> cache_;
};

// Fills the provenance of the fact items whose provenance is empty with the ids of their
// supporting turns (active derived_from edges to turn nodes), in sequence order. Other items are
// left as they are.
Status ExpandFactProvenance(store::Store& store, std::vector<RecallItem>& items);

}  // namespace engram::read

#endif  // ENGRAM_READ_FACT_ROUTE_H_
