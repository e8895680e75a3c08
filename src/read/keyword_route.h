// The keyword route (KeyMem §3.4, Path B): a keyword graph over the searched turns with an
// intersection filter, so that turns joining several of the question's keywords come first.
//
// Nodes are the question's keywords (QueryFrame::keywords); a keyword's forms are its index term
// and its WordNet synonyms (Keyword::synonyms, filled by AddSynonyms), alternative spellings of
// the same node. Edges keyword -> turn come from the BM25 projections' posting lists: a turn is
// linked to a keyword when it holds one of its forms.
//
// Intersection filter: a turn is a candidate only when it is linked to at least
// min(2, number of keywords) DISTINCT keywords (a synonym counts for its keyword, never for
// another one). Score: the sum over the turn's matched keywords, in query order, of
//   idf(form)                              when the form is the keyword's own term
//   keyword_synonym_weight × idf(form)     when the form is a synonym
// taking for each keyword its best matched form (highest contribution; ties: the keyword's own
// term, then the earlier synonym). idf is BM25's (index/bm25/bm25.h) over the searched indexes
// (N = their documents, df = documents holding the form). Term frequency and length do not
// count: the route ranks by how many rare keywords a turn joins, BM25 covers the rest.
// Ties by row ascending; at most RouteContext::limit candidates.
//
//   question "Which car did Melanie buy in Lisbon?" (keywords car(automobil), melani, buy, lisbon)
//   turn "Melanie bought an automobile in Lisbon" ->
//   "keyword 4.05 = automobil~car(synonym, idf 2.30 x 0.50, 1.15) + lisbon(idf 2.90)
//    [2 of 4 keywords]"
//
// A synonym that equals another keyword's term, or that an earlier keyword already has, is a
// form of that earlier keyword only.
#ifndef ENGRAM_READ_KEYWORD_ROUTE_H_
#define ENGRAM_READ_KEYWORD_ROUTE_H_

#include "read/route.h"

namespace engram::read {

class KeywordRoute final : public Route {
 public:
  static constexpr std::string_view kName = "keyword";
  std::string_view name() const override { return kName; }
  StatusOr<std::vector<RouteCandidate>> Run(const RouteContext& context) const override;
};

}  // namespace engram::read

#endif  // ENGRAM_READ_KEYWORD_ROUTE_H_
