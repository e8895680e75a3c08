// records: see records.h.
#include "records.h"

#include <cstdio>
#include <utility>

namespace engram::python {
namespace {

std::string Number(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.4f", value);
  return buffer;
}

}  // namespace

io::Json LinkToJson(const Link& link) {
  io::Json json = io::Json::object();
  json["id"] = link.id;
  json["type"] = link.type;
  json["src"] = link.src;
  json["dst"] = link.dst;
  json["status"] = link.status;
  json["attrs"] = io::MetadataToJson(link.attrs_json);
  return json;
}

std::string ExplainItem(const RecallItem& item) {
  std::string text;
  for (const RouteScore& route : item.routes) {
    text += route.route + " rank " + std::to_string(route.rank) + " score " + Number(route.score);
    if (!route.explanation.empty()) text += ": " + route.explanation;
    text += "\n";
  }
  for (const Adjustment& adjustment : item.adjustments) {
    text += adjustment.name + " x" + Number(adjustment.factor);
    if (adjustment.bonus != 0) text += " +" + Number(adjustment.bonus);
    if (!adjustment.detail.empty()) text += ": " + adjustment.detail;
    text += "\n";
  }
  return text;
}

std::string ExplainResult(const ReadResultView& view) {
  if (!view.explain) return "";
  const Diagnostics& diagnostics = view.result.diagnostics;
  std::string text = "frame: " + diagnostics.frame + "\nplan: " + diagnostics.plan + "\n";
  for (const std::string& warning : diagnostics.warnings) text += "warning: " + warning + "\n";
  for (const RouteDiagnostics& route : diagnostics.routes) {
    text += "route " + route.route + ": weight " + Number(route.weight) + ", " +
            std::to_string(route.candidates) + " candidates";
    if (!route.error.empty()) text += ", error: " + route.error;
    text += "\n";
  }
  text += "fusion: weighted RRF, " + std::to_string(diagnostics.fused_candidates) +
          " candidates; " + std::to_string(diagnostics.neighbours_added) +
          " added as neighbours; " + std::to_string(diagnostics.bridged) +
          " added by the entity bridge; " + std::to_string(diagnostics.filtered_out) +
          " filtered out; " + std::to_string(diagnostics.dropped_by_budget) +
          " dropped by the budget of " + std::to_string(diagnostics.token_budget) + " tokens; " +
          std::to_string(diagnostics.deduplicated) + " duplicates skipped\n";
  return text;
}

}  // namespace engram::python
