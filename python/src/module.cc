// module: the `engram._engram` extension module — engram's C++ API (include/engram/) for Python.
//
//   import engram
//   with engram.Engine("memory.db") as engine:
//       engine.remember("user:alice", [{"text": "My sister Maya lives in Porto.",
//                                       "speaker": "Alice"}])
//       result = engine.recall("user:alice", "Where does Maya live?")
//       print(result.context)
//
// Every result type has to_dict(), which gives exactly the JSON object the CLI's --json prints
// for it (src/io/api_json.h; facts and entities as `engram facts` / `engram entities` print
// each). The GIL is released while the engine works, so threads run engine calls in parallel
// (the engine serialises writes itself). Errors are engram.Error subclasses (python/engram/
// errors.py) carrying the engine's message.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "convert.h"
#include "engram/clock.h"
#include "engram/config.h"
#include "engram/engine.h"
#include "engram/options.h"
#include "engram/read_result.h"
#include "engram/types.h"
#include "io/api_json.h"
#include "io/graph_json.h"
#include "records.h"
#include "server/scope_views.h"

namespace engram::python {
namespace {

// The JSON encoding of a result value: io::ToJson for the API types, records.h for the rest.
template <typename T>
io::Json Encode(const T& value) {
  return io::ToJson(value);
}
io::Json Encode(const Link& link) { return LinkToJson(link); }
io::Json Encode(const FactRecord& fact) { return io::FactToJson(fact); }
io::Json Encode(const EntityRecord& entity) { return io::EntityToJson(entity); }

// Binds a C++ value type whose JSON encoding is its to_dict() and repr.
template <typename T>
py::class_<T> BindRecord(py::module_& module, const char* name, const char* doc) {
  py::class_<T> record(module, name, doc);
  record.def(
      "to_dict", [](const T& value) { return JsonToPython(Encode(value)); },
      "The JSON object the CLI's --json prints for this value, as plain Python objects.");
  record.def("__repr__", [name](const T& value) {
    return std::string("engram.") + name + "(" + io::Dump(Encode(value)) + ")";
  });
  return record;
}

py::list MetadataList(const std::vector<std::string>& values) {
  py::list list;
  for (const std::string& value : values) list.append(py::str(value));
  return list;
}

// The Python Engine: owns an engram::Engine until close(). Calls copy the shared pointer under
// the GIL and release the GIL while the engine works, so close() during a call in another
// thread only drops this object's reference; the engine closes when the call finishes.
class PyEngine {
 public:
  PyEngine(const py::object& path, const py::object& config, const py::object& data_dir,
           bool create_if_missing) {
    EngineOptions options;
    options.store_path = PathFromPython(path, "path");
    if (!data_dir.is_none()) options.data_dir = PathFromPython(data_dir, "data_dir");
    options.create_if_missing = create_if_missing;
    if (!config.is_none()) {
      if (py::isinstance<py::str>(config)) {
        options.config = ValueOrThrow(ParseConfig(TextFromPython(config, "config"), "config"));
      } else if (py::hasattr(config, "__fspath__")) {
        options.config_file = PathFromPython(config, "config");
      } else {
        throw py::type_error(
            "config must be TOML text (str), a path to a TOML file (os.PathLike) or a dict, "
            "got " +
            py::str(py::type::handle_of(config).attr("__name__")).cast<std::string>());
      }
    }
    path_ = options.store_path;
    StatusOr<std::unique_ptr<Engine>> opened = Status::Internal("the engine was not opened");
    {
      py::gil_scoped_release release;
      opened = Engine::Open(options);
    }
    engine_ = ValueOrThrow(std::move(opened));
  }

  const std::string& path() const { return path_; }
  bool closed() const { return engine_ == nullptr; }

  void Close() {
    std::shared_ptr<Engine> engine = std::move(engine_);
    engine_.reset();
    py::gil_scoped_release release;
    engine.reset();  // the last reference closes the store
  }

  std::shared_ptr<Engine> Get() const {
    if (!engine_) {
      throw StatusError{Status::FailedPrecondition("the engine of " + path_ + " is closed")};
    }
    return engine_;
  }

  // Runs `call(engine)` without the GIL and returns its value, or throws its status.
  template <typename Call>
  auto Run(Call&& call) const {
    std::shared_ptr<Engine> engine = Get();
    using Result = decltype(call(*engine));
    std::optional<Result> result;
    {
      py::gil_scoped_release release;
      result.emplace(call(*engine));
    }
    if constexpr (std::is_same_v<Result, Status>) {
      ThrowIfError(*result);
    } else {
      return ValueOrThrow(std::move(*result));
    }
  }

 private:
  // A path from str, bytes or os.PathLike; TypeError naming `name` for anything else, and
  // InvalidArgument naming it for a NUL byte (the file system would cut the path there).
  static std::string PathFromPython(const py::handle& value, std::string_view name) {
    std::string path;
    if (py::isinstance<py::str>(value) || py::isinstance<py::bytes>(value)) {
      path = TextFromPython(value, name);
    } else if (py::hasattr(value, "__fspath__")) {
      path = TextFromPython(py::module_::import("os").attr("fsencode")(value), name);
    } else {
      throw py::type_error(
          std::string(name) + " must be a str or os.PathLike, got " +
          py::str(py::type::handle_of(value).attr("__name__")).cast<std::string>());
    }
    if (const std::size_t nul = path.find('\0'); nul != std::string::npos) {
      throw StatusError{Status::InvalidArgument(std::string(name) + " contains a NUL byte (at " +
                                                std::to_string(nul) + ")")};
    }
    return path;
  }

  std::string path_;
  std::shared_ptr<Engine> engine_;
};

std::vector<Turn> TurnsFromPython(const py::handle& turns) {
  std::vector<Turn> converted;
  if (py::isinstance<py::dict>(turns) || py::isinstance<Turn>(turns)) {
    converted.push_back(TurnFromPython(turns, "turns"));
    return converted;
  }
  if (!py::isinstance<py::list>(turns) && !py::isinstance<py::tuple>(turns)) {
    throw py::type_error("turns must be a list of dicts or engram.Turn objects, got " +
                         py::str(py::type::handle_of(turns).attr("__name__")).cast<std::string>());
  }
  std::size_t index = 0;
  for (const py::handle turn : turns) {
    converted.push_back(TurnFromPython(turn, "turns[" + std::to_string(index) + "]"));
    ++index;
  }
  return converted;
}

std::size_t SizeOrDefault(const py::object& value, std::string_view name) {
  if (value.is_none()) return 0;
  return static_cast<std::size_t>(IndexFromPython(value, name));
}

py::object Recall(const PyEngine& self, const py::object& scope_arg, const py::object& query_arg,
                  const py::object& k, const py::object& token_budget, const py::object& policy,
                  const py::object& routes, bool explain, bool include_retired, bool include_nested,
                  const py::object& route_weights, bool use_planner, const py::object& at,
                  const py::object& valid_at, const py::object& known_at,
                  const py::object& mode, const py::object& packing) {
  const Scope scope = ScopeFromPython(scope_arg, "scope");
  RecallQuery query;
  query.text = TextFromPython(query_arg, "query");
  if (!at.is_none()) query.query_time = TimestampFromPython(at, "at");
  RecallOptions options;
  if (!valid_at.is_none()) options.valid_at = TimestampFromPython(valid_at, "valid_at");
  if (!known_at.is_none()) options.known_at = TimestampFromPython(known_at, "known_at");
  options.k = SizeOrDefault(k, "k");
  options.token_budget = SizeOrDefault(token_budget, "token_budget");
  if (!py::isinstance<py::str>(policy)) {
    throw py::type_error("policy must be a str (\"strict\", \"balanced\" or \"advanced\")");
  }
  StatusOr<AnswerPolicy> parsed_policy = ParseAnswerPolicy(policy.cast<std::string>());
  if (!parsed_policy.ok()) {
    throw StatusError{Status::InvalidArgument("policy: " + parsed_policy.status().message())};
  }
  options.policy = *parsed_policy;
  if (!py::isinstance<py::str>(mode)) {
    throw py::type_error("mode must be a str (\"evidence\" or \"chat\")");
  }
  StatusOr<ContextMode> parsed_mode = ParseContextMode(mode.cast<std::string>());
  if (!parsed_mode.ok()) {
    throw StatusError{Status::InvalidArgument("mode: " + parsed_mode.status().message())};
  }
  options.mode = *parsed_mode;
  if (!packing.is_none()) {
    if (!py::isinstance<py::str>(packing)) {
      throw py::type_error("packing must be None or a str (\"value\" or \"rank\")");
    }
    StatusOr<bool> by_value = io::ParsePacking(packing.cast<std::string>());
    if (!by_value.ok()) {
      throw StatusError{Status::InvalidArgument("packing: " + by_value.status().message())};
    }
    options.pack_by_value = *by_value;
  }
  if (!routes.is_none()) options.routes = StringsFromPython(routes, "routes");
  if (!route_weights.is_none()) {
    if (!py::isinstance<py::dict>(route_weights)) {
      throw py::type_error("route_weights must be a dict of route name to float");
    }
    // Names and ranges (known routes; finite weights in [0, 1000]) are the engine's to check,
    // as for every other entry point.
    for (const auto [name, weight] : py::reinterpret_borrow<py::dict>(route_weights)) {
      if (!py::isinstance<py::str>(name) ||
          !(py::isinstance<py::float_>(weight) || py::isinstance<py::int_>(weight)) ||
          py::isinstance<py::bool_>(weight)) {
        throw py::type_error("route_weights must be a dict of route name (str) to float");
      }
      const std::string route = TextFromPython(name, "route_weights");
      const double value = PyFloat_AsDouble(weight.ptr());
      if (value == -1.0 && PyErr_Occurred()) {  // an int too large for a float
        PyErr_Clear();
        throw StatusError{Status::InvalidArgument("route_weights \"" + route.substr(0, 64) +
                                                  "\" is too large for a float")};
      }
      options.route_weights[route] = value;
    }
  }
  options.include_retired = include_retired;
  options.include_nested = include_nested;
  options.use_planner = use_planner;
  ReadResult result =
      self.Run([&](Engine& engine) { return engine.Recall(scope, query, options); });
  return py::cast(ReadResultView{std::move(result), explain});
}

py::list FactsOf(const PyEngine& self, const py::object& scope_arg, bool all, bool rejected,
                 const py::object& valid_at, const py::object& known_at) {
  const Scope scope = ScopeFromPython(scope_arg, "scope");
  io::FactsFilter filter;
  filter.all = all;
  filter.rejected = rejected;
  if (!valid_at.is_none()) filter.valid_at = TimestampFromPython(valid_at, "valid_at");
  if (!known_at.is_none()) filter.known_at = TimestampFromPython(known_at, "known_at");
  std::vector<FactRecord> facts =
      self.Run([&](Engine& engine) { return io::LoadFacts(engine, scope, filter); });
  py::list list;
  for (FactRecord& fact : facts) list.append(py::cast(std::move(fact)));
  return list;
}

py::list EntitiesOf(const PyEngine& self, const py::object& scope_arg) {
  const Scope scope = ScopeFromPython(scope_arg, "scope");
  std::vector<EntityRecord> entities =
      self.Run([&](Engine& engine) { return io::LoadEntities(engine, scope); });
  py::list list;
  for (EntityRecord& entity : entities) list.append(py::cast(std::move(entity)));
  return list;
}

// The keyword arguments every graph query takes, as GraphQueryOptions.
GraphQueryOptions GraphOptionsFromPython(const py::object& types, const py::object& direction,
                                         std::int64_t limit, std::int64_t max_depth,
                                         bool include_retired, const py::object& valid_at,
                                         const py::object& known_at) {
  GraphQueryOptions options;
  if (!types.is_none()) options.edge_types = StringsFromPython(types, "types");
  if (!py::isinstance<py::str>(direction)) {
    throw py::type_error("direction must be a str: \"out\", \"in\" or \"both\"");
  }
  options.direction = ValueOrThrow(ParseGraphDirection(direction.cast<std::string>()));
  // Out-of-range values reach the engine, whose InvalidArgument names the bound.
  options.limit = static_cast<std::size_t>(std::max<std::int64_t>(limit, 0));
  options.max_depth = static_cast<std::size_t>(std::max<std::int64_t>(max_depth, 0));
  options.include_retired = include_retired;
  if (!valid_at.is_none()) options.valid_at = TimestampFromPython(valid_at, "valid_at");
  if (!known_at.is_none()) options.known_at = TimestampFromPython(known_at, "known_at");
  return options;
}

// A consolidation listing (server/scope_views.h) as a list of dicts: the view's `array` entries.
py::object ConsolidatedOf(const PyEngine& self, const py::object& scope_arg, NodeKind kind,
                          const char* array, bool all) {
  const Scope scope = ScopeFromPython(scope_arg, "scope");
  const io::Json view =
      self.Run([&](Engine& engine) { return server::ConsolidatedView(engine, scope, kind, all); });
  return JsonToPython(view[array]);
}

template <typename T>
py::list ToList(std::vector<T> values) {
  py::list list;
  for (T& value : values) list.append(py::cast(std::move(value)));
  return list;
}

std::string IdFromPython(const py::handle& value, std::string_view name) {
  if (!py::isinstance<py::str>(value)) {
    throw py::type_error(std::string(name) + " must be a str (32 hex digits), got " +
                         py::str(py::type::handle_of(value).attr("__name__")).cast<std::string>());
  }
  return TextFromPython(value, name);
}

std::string ReasonFromPython(const py::handle& value) {
  if (!py::isinstance<py::str>(value)) throw py::type_error("reason must be a str");
  return TextFromPython(value, "reason");
}

void BindTypes(py::module_& module) {
  BindRecord<Turn>(module, "Turn",
                   "One conversation turn or observation, as the agent wrote it.\n\n"
                   "Turn(text, role='user', speaker='', session_id='', event_time=None, "
                   "metadata=None): the same fields as a dict passed to Engine.remember.")
      .def(py::init([](const py::object& text, const py::object& role, const py::object& speaker,
                       const py::object& session_id, const py::object& event_time,
                       const py::object& metadata) {
             py::dict fields;
             fields["text"] = text;
             fields["role"] = role;
             fields["speaker"] = speaker;
             fields["session_id"] = session_id;
             fields["event_time"] = event_time;
             fields["metadata"] = metadata;
             return TurnFromPython(fields, "Turn");
           }),
           py::arg("text"), py::arg("role") = "user", py::arg("speaker") = "",
           py::arg("session_id") = "", py::arg("event_time") = py::none(),
           py::arg("metadata") = py::none())
      .def_property_readonly("text", [](const Turn& turn) { return py::str(turn.text); })
      .def_property_readonly("role", [](const Turn& turn) { return RoleName(turn.role); })
      .def_readonly("speaker", &Turn::speaker)
      .def_readonly("session_id", &Turn::session_id)
      .def_property_readonly("event_time",
                             [](const Turn& turn) { return TimestampToPython(turn.event_time); })
      .def_property_readonly("metadata", [](const Turn& turn) {
        return JsonToPython(io::MetadataToJson(turn.metadata_json));
      });

  BindRecord<Memory>(module, "Memory", "A stored memory (Engine.get, Engine.list).")
      .def_readonly("id", &Memory::id)
      .def_property_readonly("kind", [](const Memory& m) { return NodeKindName(m.kind); })
      .def_readonly("scope", &Memory::scope)
      .def_readonly("text", &Memory::text)
      .def_property_readonly("role", [](const Memory& m) { return RoleName(m.role); })
      .def_readonly("speaker", &Memory::speaker)
      .def_readonly("session_id", &Memory::session_id)
      .def_readonly("sequence", &Memory::sequence)
      .def_property_readonly("event_time",
                             [](const Memory& m) { return TimestampToPython(m.event_time); })
      .def_property_readonly("time",
                             [](const Memory& m) { return TimestampToPython(m.event_time); })
      .def_property_readonly(
          "metadata",
          [](const Memory& m) { return JsonToPython(io::MetadataToJson(m.metadata_json)); })
      .def_property_readonly("status", [](const Memory& m) { return NodeStatusName(m.status); })
      .def_property_readonly("valid_from",
                             [](const Memory& m) { return TimestampToPython(m.valid_from); })
      .def_property_readonly("valid_to",
                             [](const Memory& m) { return TimestampToPython(m.valid_to); })
      .def_property_readonly("ingested_at",
                             [](const Memory& m) { return TimestampToPython(m.ingested_at); })
      .def_property_readonly("updated_at",
                             [](const Memory& m) { return TimestampToPython(m.updated_at); })
      .def_property_readonly("provenance",
                             [](const Memory& m) { return MetadataList(m.provenance); });

  BindRecord<HistoryEvent>(module, "HistoryEvent", "One change of a memory (Engine.history).")
      .def_property_readonly("at", [](const HistoryEvent& e) { return TimestampToPython(e.at); })
      .def_readonly("action", &HistoryEvent::action)
      .def_property_readonly("status",
                             [](const HistoryEvent& e) { return NodeStatusName(e.status); })
      .def_property_readonly("valid_to",
                             [](const HistoryEvent& e) { return TimestampToPython(e.valid_to); })
      .def_readonly("related_id", &HistoryEvent::related_id)
      .def_readonly("detail", &HistoryEvent::detail);

  BindRecord<RouteScore>(module, "RouteScore", "One route's rank and score of a recall item.")
      .def_readonly("route", &RouteScore::route)
      .def_readonly("rank", &RouteScore::rank)
      .def_readonly("score", &RouteScore::score)
      .def_readonly("explanation", &RouteScore::explanation);

  BindRecord<Adjustment>(module, "Adjustment",
                         "An adjustment after fusion: the score s became s * factor + bonus.")
      .def_readonly("name", &Adjustment::name)
      .def_readonly("factor", &Adjustment::factor)
      .def_readonly("bonus", &Adjustment::bonus)
      .def_readonly("detail", &Adjustment::detail);

  BindRecord<Sufficiency>(module, "Sufficiency",
                          "Whether a recall's context holds what the question asks for.")
      .def_readonly("verdict", &Sufficiency::verdict)
      .def_readonly("reasons", &Sufficiency::reasons)
      .def_readonly("term_share", &Sufficiency::term_share)
      .def_readonly("best_item_share", &Sufficiency::best_item_share);

  BindRecord<RelatedClaim>(module, "RelatedClaim",
                           "A stored claim bearing on a recall item's: the current one that "
                           "superseded it, or one that contradicts it.")
      .def_readonly("id", &RelatedClaim::id)
      .def_readonly("statement", &RelatedClaim::statement)
      .def_readonly("text", &RelatedClaim::text)
      .def_property_readonly("time",
                             [](const RelatedClaim& c) { return TimestampToPython(c.time); })
      .def_readonly("evidence", &RelatedClaim::evidence)
      .def_readonly("claim", &RelatedClaim::claim);

  BindRecord<RecallItem>(module, "RecallItem",
                         "One ranked memory of a recall, with every route's rank and score, "
                         "the adjustments applied and its provenance (evidence turn ids).")
      .def_readonly("id", &RecallItem::id)
      .def_property_readonly("kind", [](const RecallItem& i) { return NodeKindName(i.kind); })
      .def_readonly("scope", &RecallItem::scope)
      .def_readonly("text", &RecallItem::text)
      .def_property_readonly("role", [](const RecallItem& i) { return RoleName(i.role); })
      .def_readonly("speaker", &RecallItem::speaker)
      .def_readonly("session_id", &RecallItem::session_id)
      .def_readonly("sequence", &RecallItem::sequence)
      .def_property_readonly("event_time",
                             [](const RecallItem& i) { return TimestampToPython(i.event_time); })
      .def_property_readonly("time",
                             [](const RecallItem& i) { return TimestampToPython(i.event_time); })
      .def_property_readonly(
          "metadata",
          [](const RecallItem& i) { return JsonToPython(io::MetadataToJson(i.metadata_json)); })
      .def_property_readonly("status", [](const RecallItem& i) { return NodeStatusName(i.status); })
      .def_readonly("score", &RecallItem::score)
      .def_readonly("fused_score", &RecallItem::fused_score)
      .def_readonly("routes", &RecallItem::routes)
      .def_property_readonly(
          "ranks",
          [](const RecallItem& i) {
            py::dict ranks;
            for (const RouteScore& r : i.routes) ranks[py::str(r.route)] = r.rank;
            return ranks;
          },
          "Route name -> 1-based rank within that route.")
      .def_property_readonly(
          "route_scores",
          [](const RecallItem& i) {
            py::dict scores;
            for (const RouteScore& r : i.routes) {
              scores[py::str(r.route)] = r.score;
            }
            return scores;
          },
          "Route name -> the route's own score.")
      .def_readonly("adjustments", &RecallItem::adjustments)
      .def_property_readonly("provenance",
                             [](const RecallItem& i) { return MetadataList(i.provenance); })
      .def_readonly("tokens", &RecallItem::tokens)
      .def_readonly("superseded_by", &RecallItem::superseded_by,
                    "The current claim that superseded every claim of this turn (a recall "
                    "about the present), or None.")
      .def_readonly("conflicts", &RecallItem::conflicts,
                    "Claims that contradict this item's.")
      .def_property_readonly("explanation", &ExplainItem,
                             "Why the item ranked where it did: each route's rank, score and "
                             "explanation, then each adjustment, one per line.");

  BindRecord<Diagnostics>(module, "Diagnostics", "How a recall result came about.")
      .def_readonly("frame", &Diagnostics::frame)
      .def_readonly("plan", &Diagnostics::plan)
      .def_property_readonly(
          "routes", [](const Diagnostics& d) { return JsonToPython(io::ToJson(d)["routes"]); })
      .def_readonly("fused_candidates", &Diagnostics::fused_candidates)
      .def_readonly("neighbours_added", &Diagnostics::neighbours_added)
      .def_readonly("bridged", &Diagnostics::bridged)
      .def_readonly("superseded", &Diagnostics::superseded)
      .def_readonly("successors_added", &Diagnostics::successors_added)
      .def_readonly("conflicted", &Diagnostics::conflicted)
      .def_readonly("ranker", &Diagnostics::ranker,
                    "The order's origin: \"fusion\", or the learned ranker's model (\"learned "
                    "v1 (300 trees, sha256:...)\").")
      .def_readonly("filtered_out", &Diagnostics::filtered_out)
      .def_readonly("dropped_by_budget", &Diagnostics::dropped_by_budget)
      .def_readonly("deduplicated", &Diagnostics::deduplicated)
      .def_readonly("token_budget", &Diagnostics::token_budget)
      .def_readonly("context_tokens", &Diagnostics::context_tokens)
      .def_property_readonly(
          "timings", [](const Diagnostics& d) { return JsonToPython(io::ToJson(d)["timings"]); })
      .def_property_readonly(
          "unpacked",
          [](const Diagnostics& d) { return JsonToPython(io::ToJson(d)["unpacked"]); },
          "The ranked items the packing examined and left out, best first: "
          "[{\"id\", \"rank\", \"reason\"}], reason \"budget\", \"duplicate\", \"floor\" or "
          "\"k\".")
      .def_property_readonly(
          "llm",
          [](const Diagnostics& d) -> py::object {
            const io::Json json = io::ToJson(d);
            return json.contains("llm") ? JsonToPython(json["llm"]) : py::none();
          },
          "The optional LLM loop of recall ([recall] llm_loop), when it ran: {\"calls\", "
          "\"prompt_tokens\", \"completion_tokens\", \"usage_missing\", \"ms\", \"steps\"}; "
          "None otherwise.")
      .def_readonly("warnings", &Diagnostics::warnings,
                    "What this recall could not do, and why: one sentence each (word vectors "
                    "or synonyms asked for but not installed, a route that failed); empty when "
                    "nothing was degraded.");

  py::class_<ReadResultView>(module, "ReadResult",
                             "What Engine.recall returns: the packed context for the answer "
                             "model, the answer instructions kept apart from it, the ranked "
                             "items and the diagnostics.")
      .def_property_readonly("query", [](const ReadResultView& r) { return r.result.query; })
      .def_property_readonly("context", [](const ReadResultView& r) { return r.result.context; })
      .def_property_readonly("answer_instructions",
                             [](const ReadResultView& r) { return r.result.answer_instructions; })
      .def_property_readonly("policy", [](const ReadResultView& r) { return r.result.policy; })
      .def_property_readonly("items", [](const ReadResultView& r) { return r.result.items; })
      .def_property_readonly("diagnostics",
                             [](const ReadResultView& r) { return r.result.diagnostics; })
      .def_property_readonly("latency_ms",
                             [](const ReadResultView& r) { return r.result.latency_ms; })
      .def_property_readonly("mode", [](const ReadResultView& r) { return r.result.mode; })
      .def_property_readonly(
          "sufficiency", [](const ReadResultView& r) { return r.result.sufficiency; },
          "Whether the context holds what the question asks for: verdict "
          "(sufficient / partial / insufficient) and reasons.")
      .def_property_readonly(
          "chat",
          [](const ReadResultView& r) { return JsonToPython(io::ToJson(r.result)["chat"]); },
          "recall(..., mode=\"chat\"): the profile and foresight lines put before the evidence, "
          "as dicts {section, person, text, memory_id, evidence, tokens}; else [].")
      .def_property_readonly("explanation", &ExplainResult,
                             "With recall(..., explain=True): the query frame, the plan, each "
                             "route's weight and candidates and the fusion summary; else \"\".")
      .def(
          "to_dict", [](const ReadResultView& r) { return JsonToPython(io::ToJson(r.result)); },
          "The JSON object `engram recall --json` prints, as plain Python objects.")
      .def("__repr__", [](const ReadResultView& r) {
        return "engram.ReadResult(query=" + py::repr(py::str(r.result.query)).cast<std::string>() +
               ", items=" + std::to_string(r.result.items.size()) + ")";
      });

  BindRecord<ScopeInfo>(module, "ScopeInfo", "A scope with its memory count (Engine.scopes).")
      .def_readonly("scope", &ScopeInfo::scope)
      .def_readonly("memories", &ScopeInfo::memories)
      .def_readonly("last_sequence", &ScopeInfo::last_sequence);

  BindRecord<MergeProposal>(module, "MergeProposal", "An identity-merge (same_as) proposal.")
      .def_readonly("id", &MergeProposal::id)
      .def_readonly("a", &MergeProposal::a)
      .def_readonly("b", &MergeProposal::b)
      .def_readonly("status", &MergeProposal::status)
      .def_readonly("reason", &MergeProposal::reason);

  BindRecord<RememberResult>(module, "RememberResult",
                             "What Engine.remember stored: one id per turn, in input order.")
      .def_readonly("ids", &RememberResult::ids)
      .def_readonly("first_sequence", &RememberResult::first_sequence)
      .def_readonly("last_sequence", &RememberResult::last_sequence)
      .def_readonly("already_stored", &RememberResult::already_stored);

  BindRecord<EraseResult>(module, "EraseResult", "What Engine.erase removed.")
      .def_readonly("scopes", &EraseResult::scopes)
      .def_readonly("nodes", &EraseResult::nodes)
      .def_readonly("edges", &EraseResult::edges);

  BindRecord<RebuildReport>(module, "RebuildReport", "What Engine.rebuild_index did.")
      .def_readonly("scopes", &RebuildReport::scopes)
      .def_readonly("documents", &RebuildReport::documents)
      .def_readonly("terms", &RebuildReport::terms)
      .def_readonly("seconds", &RebuildReport::seconds)
      .def_readonly("matched_live_index", &RebuildReport::matched_live_index);

  BindRecord<Link>(module, "Link", "One edge of a memory (Engine.links).")
      .def_readonly("id", &Link::id)
      .def_readonly("type", &Link::type)
      .def_readonly("src", &Link::src)
      .def_readonly("dst", &Link::dst)
      .def_readonly("status", &Link::status)
      .def_property_readonly(
          "attrs", [](const Link& l) { return JsonToPython(io::MetadataToJson(l.attrs_json)); });

  BindRecord<FactRecord>(module, "Fact",
                         "A fact the write path derived (Engine.facts): subject, predicate, "
                         "object, validity, the turns it stands on and its supersession chain.")
      .def_property_readonly("id", [](const FactRecord& f) { return f.memory.id; })
      .def_property_readonly("status",
                             [](const FactRecord& f) { return NodeStatusName(f.memory.status); })
      .def_property_readonly("text", [](const FactRecord& f) { return f.memory.text; })
      .def_property_readonly("subject", [](const FactRecord& f) { return f.Field("subject"); })
      .def_property_readonly("predicate", [](const FactRecord& f) { return f.Field("predicate"); })
      .def_property_readonly("object", [](const FactRecord& f) { return f.Field("object"); })
      .def_property_readonly(
          "valid_from", [](const FactRecord& f) { return TimestampToPython(f.memory.valid_from); })
      .def_property_readonly(
          "valid_to", [](const FactRecord& f) { return TimestampToPython(f.memory.valid_to); })
      .def_property_readonly("provenance",
                             [](const FactRecord& f) { return MetadataList(f.memory.provenance); })
      .def_readonly("supersedes", &FactRecord::supersedes)
      .def_readonly("superseded_by", &FactRecord::superseded_by)
      .def_readonly("contradicts", &FactRecord::contradicts);

  BindRecord<EntityRecord>(module, "Entity", "An entity the write path resolved (Engine.entities).")
      .def_property_readonly("id", [](const EntityRecord& e) { return e.memory.id; })
      .def_readonly("name", &EntityRecord::name)
      .def_readonly("kind", &EntityRecord::kind)
      .def_readonly("mentions", &EntityRecord::mentions)
      .def_readonly("same_as", &EntityRecord::same_as)
      .def_property_readonly(
          "first_seen",
          [](const EntityRecord& e) { return TimestampToPython(e.memory.valid_from); })
      .def_property_readonly(
          "provenance", [](const EntityRecord& e) { return MetadataList(e.memory.provenance); });
}

void BindEngine(py::module_& module) {
  py::class_<PyEngine>(module, "Engine",
                       "engram's memory engine over one SQLite store file.\n\n"
                       "Engine(path, config=None, data_dir=None, create_if_missing=True)\n\n"
                       "path: the store file (created if missing unless create_if_missing is "
                       "False); a path with a NUL byte raises engram.InvalidArgument.\nconfig: "
                       "TOML text (str), a path to a TOML file (os.PathLike) or "
                       "a dict of sections ({'embedder': {'kind': 'none'}}); None = built-in "
                       "defaults.\ndata_dir: where the model and lexicon files live; None = "
                       "$ENGRAM_DATA_DIR, else the XDG data directory.\n\nA context manager: "
                       "`with engram.Engine(path) as engine:` closes it at the end. Methods may "
                       "be called from several threads at once.")
      .def(py::init<const py::object&, const py::object&, const py::object&, bool>(),
           py::arg("path"), py::arg("config") = py::none(), py::arg("data_dir") = py::none(),
           py::arg("create_if_missing") = true)
      .def_property_readonly("path", &PyEngine::path, "The store file.")
      .def_property_readonly("closed", &PyEngine::closed, "True after close().")
      .def_property_readonly(
          "embedder_id", [](const PyEngine& self) { return self.Get()->embedder_id(); },
          "Model id of the configured embedder (\"use-lite@0.2.0\", \"hashing-256\", \"none\").")
      .def("close", &PyEngine::Close,
           "Closes the store. Later calls raise engram.FailedPrecondition; closing twice is fine.")
      .def(
          "__enter__", [](PyEngine& self) -> PyEngine& { return self; },
          py::return_value_policy::reference)
      .def("__exit__", [](PyEngine& self, const py::args&) { self.Close(); })
      .def(
          "remember",
          [](const PyEngine& self, const py::object& scope_arg, const py::object& turns_arg,
             const std::string& wait) {
            const Scope scope = ScopeFromPython(scope_arg, "scope");
            const std::vector<Turn> turns = TurnsFromPython(turns_arg);
            StatusOr<RememberWait> parsed = ParseRememberWait(wait);
            if (!parsed.ok()) throw StatusError{parsed.status()};
            return self.Run([&](Engine& engine) {
              return engine.Remember(scope, turns, {.wait = *parsed});
            });
          },
          py::arg("scope"), py::arg("turns"), py::kw_only(), py::arg("wait") = "derived",
          "Stores turns verbatim, in order, in one transaction (all or none).\n\n"
          "scope: a scope path such as \"user:alice\" or \"user:alice/run:42\" (created if new).\n"
          "turns: a list of dicts with the JSONL fields -- text (required; str, or bytes of "
          "UTF-8), role (user|assistant|system|tool), speaker, session_id, event_time (ISO-8601 "
          "str or datetime; naive means UTC), metadata (dict) -- or engram.Turn objects; a "
          "single dict or Turn is accepted too.\nReturns a RememberResult: the stored ids in "
          "input order and their sequence numbers. A bad turn raises engram.InvalidArgument "
          "naming its index.\nwait: \"derived\" (default: returns once the turns are embedded "
          "and their signals, entities and facts derived), \"indexed\" (returns once they are "
          "stored and searchable by keyword; derivation follows in the engine's background "
          "thread, see wait_for_derivation) or \"durable\".")
      .def(
          "wait_for_derivation",
          [](const PyEngine& self) {
            self.Run([](Engine& engine) { return engine.WaitForDerivation(); });
          },
          "Waits until every turn written with wait=\"indexed\" or \"durable\" is embedded and "
          "derived; raises the error of a derivation that failed (its turns stay pending).")
      .def("recall", &Recall, py::arg("scope"), py::arg("query"), py::kw_only(),
           py::arg("k") = py::none(), py::arg("token_budget") = py::none(),
           py::arg("policy") = "balanced", py::arg("routes") = py::none(),
           py::arg("explain") = false, py::arg("include_retired") = false,
           py::arg("include_nested") = true, py::arg("route_weights") = py::none(),
           py::arg("use_planner") = true, py::arg("at") = py::none(),
           py::arg("valid_at") = py::none(), py::arg("known_at") = py::none(),
           py::arg("mode") = "evidence", py::arg("packing") = py::none(),
           "Ranked, packed, explained memories of a scope for a question.\n\n"
           "scope: the scope to search (nested scopes too unless include_nested=False); an "
           "unknown scope raises engram.NotFound.\nquery: the question (str, or bytes of "
           "UTF-8).\nk: items at most (None: [recall] pack_max_items with value packing, "
           "max_items with rank packing).\ntoken_budget: "
           "tokens of the packed context at most (None: [recall] token_budget).\npolicy: "
           "\"strict\", \"balanced\" or \"advanced\" -- the answer instructions returned apart "
           "from the context.\nroutes: route names to run (None: the planner picks).\nexplain: "
           "fill ReadResult.explanation with the query frame, plan and fusion summary.\n"
           "include_retired: also return retired and superseded memories.\nroute_weights: "
           "{route: weight} replacing the planner's weights (0 switches a route off); an "
           "unknown route, or a weight that is NaN, infinite, negative or above 1000, raises "
           "engram.InvalidArgument naming the route.\n"
           "use_planner: apply the planner's rule table.\nat: the question's \"now\" (datetime "
           "or ISO-8601 str; None: the engine clock).\nvalid_at: what was true then -- only "
           "memories valid at this time (datetime or ISO-8601 str), superseded ones included.\n"
           "known_at: what engram knew then -- only memories ingested by this time, with the "
           "status they had then.\nmode: \"evidence\" (default) or \"chat\" -- the "
           "person's profile and the valid foresight before the evidence (ReadResult.chat, each "
           "line with its evidence turn ids).\npacking: \"value\" (by value per token "
           "above a score floor, k an upper bound), \"rank\" (rank order, at most k) or None "
           "(the config's [recall] pack_by_value).\nReturns a ReadResult (.context, "
           ".answer_instructions, .items, .diagnostics; .to_dict() is `engram recall --json`).")
      .def(
          "get",
          [](const PyEngine& self, const py::object& id_arg) {
            const std::string id = IdFromPython(id_arg, "id");
            return self.Run([&](Engine& engine) { return engine.Get(id); });
          },
          py::arg("id"), "The memory with this id; engram.NotFound if there is none.")
      .def(
          "list",
          [](const PyEngine& self, const py::object& scope_arg, const py::object& limit,
             const py::object& after, const py::object& kind, bool include_retired) {
            const Scope scope = ScopeFromPython(scope_arg, "scope");
            ListOptions options;
            options.limit = static_cast<std::size_t>(IndexFromPython(limit, "limit"));
            options.after_sequence = IndexFromPython(after, "after");
            options.include_retired = include_retired;
            if (kind.is_none()) {
              options.kind = std::nullopt;
            } else {
              if (!py::isinstance<py::str>(kind)) {
                throw py::type_error("kind must be a str such as \"turn\", or None for all");
              }
              StatusOr<NodeKind> parsed = ParseNodeKind(kind.cast<std::string>());
              if (!parsed.ok()) {
                throw StatusError{Status::InvalidArgument("kind: " + parsed.status().message())};
              }
              options.kind = *parsed;
            }
            io::MemoryPage page =
                self.Run([&](Engine& engine) { return io::ListPage(engine, scope, options); });
            return ToList(std::move(page.memories));
          },
          py::arg("scope"), py::kw_only(), py::arg("limit") = 100, py::arg("after") = 0,
          py::arg("kind") = "turn", py::arg("include_retired") = true,
          "Memories of exactly this scope in sequence order, as Memory objects.\n\n"
          "limit: entries at most (0: all). after: only sequence numbers above it (paging: "
          "pass the last entry's sequence; a page never ends inside a sequence number, which a "
          "turn shares with what was derived from it, and holds one whole when it has more "
          "than limit entries).\n"
          "kind: \"turn\" (default), \"signal\", \"entity\", \"fact\", ... or None for every "
          "kind.\ninclude_retired: list retired and superseded memories too (default True).")
      .def(
          "history",
          [](const PyEngine& self, const py::object& id_arg) {
            const std::string id = IdFromPython(id_arg, "id");
            return ToList(self.Run([&](Engine& engine) { return engine.History(id); }));
          },
          py::arg("id"), "The memory's changes, oldest first, as HistoryEvent objects.")
      .def(
          "links",
          [](const PyEngine& self, const py::object& id_arg) {
            const std::string id = IdFromPython(id_arg, "id");
            return ToList(self.Run([&](Engine& engine) { return engine.Links(id); }));
          },
          py::arg("id"), "Every edge from or to the memory, as Link objects.")
      .def(
          "amend",
          [](const PyEngine& self, const py::object& id_arg, const py::object& replacement_arg,
             const py::object& reason_arg) {
            const std::string id = IdFromPython(id_arg, "id");
            const Turn replacement =
                py::isinstance<py::str>(replacement_arg) || py::isinstance<py::bytes>(replacement_arg)
                    ? TurnFromPython(py::dict(py::arg("text") = replacement_arg), "replacement")
                    : TurnFromPython(replacement_arg, "replacement");
            const std::string reason = ReasonFromPython(reason_arg);
            const AmendResult amended =
                self.Run([&](Engine& engine) { return engine.Amend(id, replacement, reason); });
            py::dict result;
            result["id"] = amended.id;
            result["superseded_id"] = amended.superseded_id;
            result["sequence"] = amended.sequence;
            return result;
          },
          py::arg("id"), py::arg("replacement"), py::arg("reason") = "",
          "Corrects a turn: stores the replacement (a str, or a dict / Turn with the JSONL "
          "fields) as a new turn of the same scope that supersedes the old one, which stays with "
          "its history. Speaker, event time and metadata carry over when the replacement leaves "
          "them empty. Returns {\"id\", \"superseded_id\", \"sequence\"}. Amending a "
          "superseded or retired turn raises engram.FailedPrecondition; a derived memory, "
          "engram.InvalidArgument.")
      .def(
          "retire",
          [](const PyEngine& self, const py::object& id_arg, const py::object& reason_arg) {
            const std::string id = IdFromPython(id_arg, "id");
            const std::string reason = ReasonFromPython(reason_arg);
            self.Run([&](Engine& engine) { return engine.Retire(id, reason); });
          },
          py::arg("id"), py::arg("reason") = "",
          "Retires the memory: kept (get, list, history) but hidden from recall. Retiring a "
          "retired memory raises engram.FailedPrecondition.")
      .def(
          "retire_all",
          [](const PyEngine& self, const py::object& scope_arg) {
            const Scope scope = ScopeFromPython(scope_arg, "scope");
            return self.Run([&](Engine& engine) { return engine.RetireAll(scope); });
          },
          py::arg("scope"),
          "Retires every active memory of the scope and its nested scopes; returns how many.")
      .def(
          "erase",
          [](const PyEngine& self, const py::object& scope_arg) {
            const Scope scope = ScopeFromPython(scope_arg, "scope");
            return self.Run([&](Engine& engine) { return engine.Erase(scope); });
          },
          py::arg("scope"),
          "Permanently deletes the scope, its nested scopes and all their memories; returns "
          "an EraseResult.")
      .def(
          "scopes",
          [](const PyEngine& self) {
            return ToList(self.Run([](Engine& engine) { return engine.ListScopes(); }));
          },
          "Every scope with its memory count, as ScopeInfo objects.")
      .def("facts", &FactsOf, py::arg("scope"), py::kw_only(), py::arg("all") = false,
           py::arg("rejected") = false, py::arg("valid_at") = py::none(),
           py::arg("known_at") = py::none(),
           "Facts derived in exactly this scope as Fact objects: the current ones; all=True "
           "adds superseded, contradicted, retired and rejected ones; rejected=True gives only "
           "the candidates the validator rejected. valid_at (datetime or ISO-8601 str): the "
           "facts valid then, superseded since or not; known_at: the facts recorded by then, "
           "with the status and chains they had then. Like `engram facts`.")
      .def("entities", &EntitiesOf, py::arg("scope"),
           "Entities resolved in exactly this scope as Entity objects, with mention counts and "
           "same_as links. Like `engram entities`.")
      .def(
          "consolidate",
          [](const PyEngine& self, const py::object& scope_arg) {
            const Scope scope = ScopeFromPython(scope_arg, "scope");
            const ConsolidateResult result =
                self.Run([&](Engine& engine) { return engine.Consolidate(scope); });
            return JsonToPython(server::ConsolidateResultView(scope, result));
          },
          py::arg("scope"),
          "Builds the scope's episodes, scenes and profiles and stores them (idempotent); "
          "returns a dict of counts: turns, episodes, scenes, profiles, written, superseded. "
          "Like `engram consolidate --json`.")
      .def(
          "episodes",
          [](const PyEngine& self, const py::object& scope, bool all) {
            return ConsolidatedOf(self, scope, NodeKind::kEpisode, "episodes", all);
          },
          py::arg("scope"), py::kw_only(), py::arg("all") = false,
          "The scope's episodes as dicts (turns, time span, speakers, entities, facts, "
          "narrative), as `engram episodes --json` lists them; all=True adds superseded and "
          "retired ones.")
      .def(
          "scenes",
          [](const PyEngine& self, const py::object& scope, bool all) {
            return ConsolidatedOf(self, scope, NodeKind::kScene, "scenes", all);
          },
          py::arg("scope"), py::kw_only(), py::arg("all") = false,
          "The scope's scenes as dicts (member episodes, keywords, summary), as `engram scenes "
          "--json` lists them.")
      .def(
          "profile",
          [](const PyEngine& self, const py::object& scope, bool all) {
            return ConsolidatedOf(self, scope, NodeKind::kProfile, "people", all);
          },
          py::arg("scope"), py::kw_only(), py::arg("all") = false,
          "Each person's profile as a dict (explicit facts with current value and history, "
          "traits), as `engram profile --json` lists them.")
      .def(
          "foresight",
          [](const PyEngine& self, const py::object& scope_arg, const py::object& at_arg,
             bool all) {
            const Scope scope = ScopeFromPython(scope_arg, "scope");
            const Timestamp at =
                at_arg.is_none() ? SystemClock()->Now() : TimestampFromPython(at_arg, "at");
            const io::Json view = self.Run(
                [&](Engine& engine) { return server::ForesightView(engine, scope, at, all); });
            return JsonToPython(view["foresight"]);
          },
          py::arg("scope"), py::kw_only(), py::arg("at") = py::none(), py::arg("all") = false,
          "The plans and temporary states valid at `at` (a datetime or ISO-8601 str; default "
          "now) as dicts; all=True gives every one, marked upcoming, valid or expired.")
      .def(
          "proposals",
          [](const PyEngine& self, const py::object& scope_arg) {
            const Scope scope = ScopeFromPython(scope_arg, "scope");
            return ToList(self.Run([&](Engine& engine) { return engine.ListProposals(scope); }));
          },
          py::arg("scope"), "The scope's identity-merge proposals, as MergeProposal objects.")
      .def(
          "propose_same",
          [](const PyEngine& self, const py::object& a_arg, const py::object& b_arg,
             const py::object& reason_arg) {
            const std::string a = IdFromPython(a_arg, "a");
            const std::string b = IdFromPython(b_arg, "b");
            const std::string reason = ReasonFromPython(reason_arg);
            return self.Run([&](Engine& engine) { return engine.ProposeSameAs(a, b, reason); });
          },
          py::arg("a"), py::arg("b"), py::arg("reason") = "",
          "Proposes that memories a and b are the same thing; returns the pending "
          "MergeProposal.")
      .def(
          "accept",
          [](const PyEngine& self, const py::object& id_arg) {
            const std::string id = IdFromPython(id_arg, "id");
            self.Run([&](Engine& engine) { return engine.AcceptProposal(id); });
          },
          py::arg("id"), "Accepts a pending merge proposal.")
      .def(
          "reject",
          [](const PyEngine& self, const py::object& id_arg) {
            const std::string id = IdFromPython(id_arg, "id");
            self.Run([&](Engine& engine) { return engine.RejectProposal(id); });
          },
          py::arg("id"), "Rejects a pending merge proposal.")
      .def(
          "neighbours",
          [](const PyEngine& self, const py::object& id_arg, const py::object& types,
             const py::object& direction, std::int64_t limit, bool include_retired,
             const py::object& valid_at, const py::object& known_at) {
            const std::string id = IdFromPython(id_arg, "id");
            const GraphQueryOptions options = GraphOptionsFromPython(
                types, direction, limit, 2, include_retired, valid_at, known_at);
            return JsonToPython(io::ToJson(
                self.Run([&](Engine& engine) { return engine.Neighbours(id, options); })));
          },
          py::arg("id"), py::kw_only(), py::arg("types") = py::none(),
          py::arg("direction") = "both", py::arg("limit") = 100, py::arg("include_retired") = false,
          py::arg("valid_at") = py::none(), py::arg("known_at") = py::none(),
          "The memory's edges and the memory at each other end, as a dict {node, count, "
          "neighbours: [{direction, edge, node}], truncated} (the JSON of `engram graph "
          "neighbours --json`). types: edge types to follow (list of str; None = every type); "
          "direction: \"out\", \"in\" or \"both\"; limit: 1 to 1000; valid_at / known_at "
          "(datetime or ISO-8601 str): the graph as it held, or as engram knew it, then.")
      .def(
          "paths",
          [](const PyEngine& self, const py::object& from_arg, const py::object& to_arg,
             const py::object& types, const py::object& direction, std::int64_t max_depth,
             std::int64_t limit, bool include_retired, const py::object& valid_at,
             const py::object& known_at) {
            const std::string from = IdFromPython(from_arg, "from_id");
            const std::string to = IdFromPython(to_arg, "to_id");
            const GraphQueryOptions options = GraphOptionsFromPython(
                types, direction, limit, max_depth, include_retired, valid_at, known_at);
            return JsonToPython(io::ToJson(
                self.Run([&](Engine& engine) { return engine.Paths(from, to, options); })));
          },
          py::arg("from_id"), py::arg("to_id"), py::kw_only(), py::arg("types") = py::none(),
          py::arg("direction") = "both", py::arg("max_depth") = 2, py::arg("limit") = 100,
          py::arg("include_retired") = false, py::arg("valid_at") = py::none(),
          py::arg("known_at") = py::none(),
          "Simple paths from one memory to another of at most max_depth (1 to 4) edges, "
          "shortest first, as a dict {from, to, count, paths: [{length, nodes, edges}], nodes, "
          "truncated}. Other arguments as neighbours().")
      .def(
          "identity",
          [](const PyEngine& self, const py::object& id_arg, std::int64_t limit,
             bool include_retired, const py::object& valid_at, const py::object& known_at) {
            const std::string id = IdFromPython(id_arg, "id");
            const GraphQueryOptions options = GraphOptionsFromPython(
                py::none(), py::str("both"), limit, 2, include_retired, valid_at, known_at);
            return JsonToPython(io::ToJson(
                self.Run([&](Engine& engine) { return engine.IdentityClass(id, options); })));
          },
          py::arg("id"), py::kw_only(), py::arg("limit") = 100, py::arg("include_retired") = false,
          py::arg("valid_at") = py::none(), py::arg("known_at") = py::none(),
          "An entity's identity class: the entities joined to it by accepted same_as merges (as "
          "of valid_at / known_at), as a dict {entity, count, members, edges, truncated}.")
      .def(
          "edge_types",
          [](const PyEngine& self) {
            return JsonToPython(io::EdgeTypesToJson(self.Get()->EdgeTypes())["edge_types"]);
          },
          "Every registered edge type as a list of dicts {name, builtin, single_valued, "
          "symmetric, transitive}: engram's own, then those of [graph] edge_types.")
      .def(
          "add_edge",
          [](const PyEngine& self, const py::object& scope_arg, const py::object& type_arg,
             const py::object& src_arg, const py::object& dst_arg, const py::object& attrs,
             const py::object& valid_from) {
            const Scope scope = ScopeFromPython(scope_arg, "scope");
            NewEdge edge;
            edge.type = TextFromPython(type_arg, "type");
            edge.src = IdFromPython(src_arg, "src");
            edge.dst = IdFromPython(dst_arg, "dst");
            if (!attrs.is_none()) {
              if (!py::isinstance<py::dict>(attrs)) {
                throw py::type_error("attrs must be a dict (a JSON object) or None");
              }
              edge.attrs_json = py::module_::import("json")
                                    .attr("dumps")(attrs, py::arg("allow_nan") = false)
                                    .cast<std::string>();
            }
            if (!valid_from.is_none()) {
              edge.valid_from = TimestampFromPython(valid_from, "valid_from");
            }
            return JsonToPython(
                io::ToJson(self.Run([&](Engine& engine) { return engine.AddEdge(scope, edge); })));
          },
          py::arg("scope"), py::arg("type"), py::arg("src"), py::arg("dst"), py::kw_only(),
          py::arg("attrs") = py::none(), py::arg("valid_from") = py::none(),
          "Adds an edge of a type declared in [graph] edge_types from memory src to memory dst, "
          "written in `scope` (both ends in it, a scope nested in it or one enclosing it); "
          "returns the edge as a dict. A single-valued type supersedes the source's previous "
          "edge; a symmetric one is stored once (src < dst). engram.InvalidArgument for an "
          "undeclared or built-in type, engram.NotFound for an end outside the scope, "
          "engram.AlreadyExists for the same active edge.")
      .def(
          "get_edge",
          [](const PyEngine& self, const py::object& id_arg) {
            const std::string id = IdFromPython(id_arg, "id");
            return JsonToPython(
                io::ToJson(self.Run([&](Engine& engine) { return engine.GetEdge(id); })));
          },
          py::arg("id"), "One edge as a dict (the JSON of `engram graph edge --json`).")
      .def(
          "retire_edge",
          [](const PyEngine& self, const py::object& id_arg) {
            const std::string id = IdFromPython(id_arg, "id");
            self.Run([&](Engine& engine) { return engine.RetireEdge(id); });
            return JsonToPython(
                io::ToJson(self.Run([&](Engine& engine) { return engine.GetEdge(id); })));
          },
          py::arg("id"),
          "Retires a client edge (kept, seen by queries as of earlier times); returns it. "
          "engram.FailedPrecondition when it is not active, engram.InvalidArgument for an edge "
          "of engram's own types.")
      .def(
          "rebuild_index",
          [](const PyEngine& self) {
            return self.Run([](Engine& engine) { return engine.RebuildIndex(); });
          },
          "Recomputes the index projections from the store; returns a RebuildReport.")
      .def("__repr__", [](const PyEngine& self) {
        return "engram.Engine(" + py::repr(py::str(self.path())).cast<std::string>() +
               (self.closed() ? ", closed" : "") + ")";
      });
}

}  // namespace

void DefineModule(py::module_& module) {
  module.doc() = "engram's C++ engine; import the `engram` package rather than this module.";
  RegisterStatusTranslator();
  BindTypes(module);
  BindEngine(module);
  module.def(
      "count_tokens",
      [](const py::object& text) { return CountTokens(TextFromPython(text, "text")); },
      py::arg("text"), "Tokens of `text` as engram counts them for every budget.");
  // A test seam: raises the error a status with this code name ("NOT_FOUND") becomes, so the
  // tests can check the class of every code, including those no call can provoke on demand.
  module.def(
      "_raise_status",
      [](const std::string& code_name, const std::string& message) {
        for (int code = 1; code <= static_cast<int>(StatusCode::kResourceExhausted); ++code) {
          if (StatusCodeName(static_cast<StatusCode>(code)) == code_name) {
            throw StatusError{Status(static_cast<StatusCode>(code), message)};
          }
        }
        throw py::value_error("unknown status code name " + code_name);
      },
      py::arg("code"), py::arg("message"));
}

}  // namespace engram::python

PYBIND11_MODULE(_engram, module) { engram::python::DefineModule(module); }
