// The planner (DESIGN §5.2, Eywa Table 3): a rule table from the query frame's shape to route
// weights and the context budget. The table is [planner] in the config (config.h has its
// defaults); RecallOptions::route_weights overrides the result for one call.
//
//   weights = [recall.route_weights], then the entries of [planner.<shape>] (when the planner is
//             enabled in the config and in the options), then RecallOptions::route_weights;
//   budget  = the request's token budget × [planner.<shape>] budget_scale (default 1);
//   session_discount = [planner.<shape>] session_discount (default 0): value packing divides
//             an item's value by 1 + this × the items already packed from its session.
#ifndef ENGRAM_READ_PLANNER_H_
#define ENGRAM_READ_PLANNER_H_

#include <map>
#include <string>

#include "engram/config.h"
#include "engram/options.h"
#include "read/query_frame.h"

namespace engram::read {

struct Plan {
  std::map<std::string, double> weights;  // route -> weight (routes not named weigh 1.0)
  double budget_scale = 1.0;
  double session_discount = 0.0;
  double hop = 0.0;  // the follow-up recall's weight (read/hop.h); 0 = off
  std::string rule;  // "list" when a shape rule applied, "default" otherwise

  double WeightOf(const std::string& route) const;
  // "rule=list weights bm25=1,fragment=1.5,... budget x1"
  std::string Describe() const;
};

Plan MakePlan(const QueryFrame& frame, const Config& config, const RecallOptions& options);

}  // namespace engram::read

#endif  // ENGRAM_READ_PLANNER_H_
