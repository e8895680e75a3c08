// The planner (see planner.h).
#include "read/planner.h"

#include <cstdio>

namespace engram::read {

double Plan::WeightOf(const std::string& route) const {
  const auto found = weights.find(route);
  return found == weights.end() ? 1.0 : found->second;
}

std::string Plan::Describe() const {
  std::string out = "rule=" + rule + " weights";
  char buffer[64];
  bool first = true;
  for (const auto& [route, weight] : weights) {
    std::snprintf(buffer, sizeof buffer, "%s%s=%g", first ? " " : ",", route.c_str(), weight);
    out += buffer;
    first = false;
  }
  std::snprintf(buffer, sizeof buffer, " budget x%g", budget_scale);
  out += buffer;
  if (session_discount > 0) {
    std::snprintf(buffer, sizeof buffer, " session_discount %g", session_discount);
    out += buffer;
  }
  if (hop > 0) {
    std::snprintf(buffer, sizeof buffer, " hop %g", hop);
    out += buffer;
  }
  return out;
}

Plan MakePlan(const QueryFrame& frame, const Config& config, const RecallOptions& options) {
  Plan plan;
  plan.weights = config.recall.route_weights;
  plan.rule = "default";
  if (config.planner.enabled && options.use_planner) {
    const auto rule = config.planner.shapes.find(std::string(QueryShapeName(frame.shape)));
    if (rule != config.planner.shapes.end()) {
      plan.rule = rule->first;
      for (const auto& [key, value] : rule->second) {
        if (key == "budget_scale") {
          plan.budget_scale = value;
        } else if (key == "session_discount") {
          plan.session_discount = value;
        } else if (key == "hop") {
          plan.hop = value;
        } else {
          plan.weights[key] = value;
        }
      }
    }
  }
  for (const auto& [route, weight] : options.route_weights) plan.weights[route] = weight;
  return plan;
}

}  // namespace engram::read
