// The one table of engram's configuration keys (include/engram/config.h).
//
// Every key of every section is one `KeySpec`: its name, type, bounds, a one-line doc and where
// its default comes from. The default itself is the field's initialiser in config.h, read through
// the spec's accessor from a default `Config`, so it is written once. The TOML parser
// (config.cc), `Config::Validate`, the bench report's echo of the settings (src/eval) and the
// reference part of docs/CONFIG.md (`ReferenceMarkdown`, checked by config_test) all walk this
// table; a key missing from it cannot be set, validated, echoed or documented.
//
//   for (const config::KeySpec& spec : config::Keys()) {
//     std::cout << spec.section << "." << spec.key << " = " << config::FormatValue(spec.Get(c));
//   }
//
// Two sections also hold maps, described here by name rather than by key: `[recall.route_weights]`
// (route name -> weight; names from `RouteNames()`) and `[planner.<shape>]` (shape name from
// `ShapeNames()` -> route name or "budget_scale" -> value).
#ifndef ENGRAM_CONFIG_CONFIG_TABLE_H_
#define ENGRAM_CONFIG_CONFIG_TABLE_H_

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>

#include "engram/config.h"

namespace engram::config {

// A key's value, of the key's type.
using Value = std::variant<double, std::size_t, bool, std::string>;

// Where a number key's value may lie: [min, max], either end open when its flag is set. `off`, if
// set, is one more value allowed outside the range (a switch-off value such as 0).
struct Range {
  double min = 0;
  double max = 0;
  bool min_open = false;
  bool max_open = false;
  std::optional<double> off;

  bool Contains(double value) const;
  // "[0, 1]", "(0, 10]", "0 or [0.5, 1)".
  std::string ToString() const;
};

struct KeySpec {
  std::string_view section;  // "recall"
  std::string_view key;      // "max_items"
  // Reads and writes the field in a Config; the variant's alternative is the key's type.
  std::variant<double& (*)(Config&), std::size_t& (*)(Config&), bool& (*)(Config&),
               std::string& (*)(Config&)>
      field;
  Range range;                                // number keys only
  std::span<const std::string_view> choices;  // string keys with a fixed set of values; else empty
  std::string_view doc;                       // one line: what the key does
  std::string_view source;  // where the default comes from: a paper, a measurement, or a choice

  Value Get(const Config& config) const;
  bool IsNumber() const { return field.index() <= 1; }
  // "number", "integer", "bool", "string".
  std::string_view TypeName() const;
};

// Every key, in section order ([bm25], [recall], [planner], [embedder], [vector], [write],
// [consolidate], [store], [active], [limits], [graph]) and, within a section, in the order
// docs/CONFIG.md lists them.
std::span<const KeySpec> Keys();
// The section names, in that order.
std::span<const std::string_view> Sections();

// The retrieval routes a weight can name: the keys of the default [recall.route_weights], which
// lists every route (the read path's route registry is checked against it by a test).
std::span<const std::string_view> RouteNames();
// The question shapes a [planner.<shape>] table can name (read/query_frame.h's shapes; a test
// checks they agree).
std::span<const std::string_view> ShapeNames();
// Bounds of a route weight and of a planner value (a route weight, or budget_scale).
Range RouteWeightRange();
// Bounds of a per-call route weight (RecallOptions::route_weights, checked by the read path for
// every entry point: C++ API, CLI, REST, MCP, Python): [0, 1000], wider than the config's so a
// call can stress one route; never NaN or infinite.
Range CallRouteWeightRange();
Range BudgetScaleRange();
// Bounds of a planner table's session_discount (value packing, read/packing.h).
Range SessionDiscountRange();
// Bounds of a planner table's hop, the follow-up recall's weight (read/hop.h).
Range HopWeightRange();

// `value` as TOML writes it: 0.5, 20, true, "use-lite".
std::string FormatValue(const Value& value);

// kInvalidArgument "[section] key is V; it must be in R" when `value` is outside the key's range
// or choices; OK otherwise.
Status CheckValue(const KeySpec& spec, const Value& value);
// The same for a route weight ("[recall.route_weights] bm25") or a planner entry
// ("[planner.list] fragment"): the name must be a known route (or budget_scale or session_discount
// in a planner table) and the value in range.
Status CheckRouteWeight(std::string_view where, std::string_view route, double weight);
Status CheckPlannerEntry(std::string_view where, std::string_view name, double value);

// The generated reference of docs/CONFIG.md: per section a table of key, type, default, allowed
// values, what it does and where the default comes from; then the default route weights and
// planner rules. Markdown, ending in a newline.
std::string ReferenceMarkdown();
// The markers around the generated part of docs/CONFIG.md.
inline constexpr std::string_view kReferenceBegin =
    "<!-- BEGIN generated by engram_config_doc from src/config/config_table.cc -->";
inline constexpr std::string_view kReferenceEnd = "<!-- END generated -->";
// `doc` with the text between the markers replaced by ReferenceMarkdown();
// kInvalidArgument when the markers are missing or out of order.
StatusOr<std::string> SpliceReference(std::string_view doc);

}  // namespace engram::config

#endif  // ENGRAM_CONFIG_CONFIG_TABLE_H_
