// What the LoCoMo and LongMemEval runs share (see bench_internal.h).
#include <time.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <system_error>
#include <variant>

#include "config/config_table.h"
#include "eval/bench_internal.h"
#include "eval/metrics.h"

#ifndef ENGRAM_VERSION
#define ENGRAM_VERSION "unknown"
#endif

namespace engram::eval {

std::string_view EngineVersion() { return ENGRAM_VERSION; }

Config FlatBaseline(Config config) {
  config.planner.enabled = false;
  config.recall.neighbour_weight = 0;
  config.recall.person_boost = 1;
  config.bm25.stem = false;
  config.embedder = EmbedderConfig{};
  config.embedder.kind = "none";
  return config;
}

namespace internal {
namespace {

using io::Json;

Json RecallSummaryJson(const ReadResult& result, double latency_ms,
                       std::optional<double> cpu_ms = std::nullopt) {
  Json json = Json::object();
  json["k"] = result.items.size();
  json["token_budget"] = result.diagnostics.token_budget;
  json["context_tokens"] = result.diagnostics.context_tokens;
  json["dropped_by_budget"] = result.diagnostics.dropped_by_budget;
  json["deduplicated"] = result.diagnostics.deduplicated;
  json["latency_ms"] = latency_ms;
  if (cpu_ms.has_value()) json["cpu_ms"] = *cpu_ms;
  Json timings = Json::array();
  for (const StageTiming& timing : result.diagnostics.timings) {
    Json entry = Json::object();
    entry["stage"] = timing.stage;
    entry["ms"] = timing.ms;
    timings.push_back(std::move(entry));
  }
  json["timings"] = std::move(timings);
  return json;
}

Json StringsJson(std::span<const std::string> strings) {
  Json json = Json::array();
  for (const std::string& text : strings) json.push_back(text);
  return json;
}

}  // namespace

double MillisSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

double ThreadCpuMillis() {
  timespec now{};
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now) != 0) return 0;
  return static_cast<double>(now.tv_sec) * 1e3 + static_cast<double>(now.tv_nsec) / 1e6;
}

Status CheckOptions(const BenchOptions& options) {
  if (options.flat && !options.routes.empty()) {
    return Status::InvalidArgument(
        "--flat runs only the bm25 route and cannot be combined with --routes");
  }
  if (std::find(options.only.begin(), options.only.end(), "") != options.only.end()) {
    return Status::InvalidArgument("--only: an empty id");
  }
  return Status::Ok();
}

Status CheckOnlyIds(const BenchOptions& options, const std::set<std::string>& ids,
                    std::string_view what) {
  std::string missing;
  for (const std::string& id : options.only) {
    if (ids.contains(id)) continue;
    missing += (missing.empty() ? "" : ", ") + id;
  }
  if (missing.empty()) return Status::Ok();
  std::string known;
  std::size_t listed = 0;
  for (const std::string& id : ids) {
    if (listed++ == 5) {
      known += ", ...";
      break;
    }
    known += (known.empty() ? "" : ", ") + id;
  }
  return Status::InvalidArgument("--only: no " + std::string(what) + " " + missing + " in " +
                                 options.data_path + " (it holds " + std::to_string(ids.size()) +
                                 ": " + known + ")");
}

std::vector<std::string> RoutesToRun(const BenchOptions& options) {
  if (options.flat) return {std::string(kFlatRoute)};
  return options.routes;
}

StatusOr<std::unique_ptr<BenchStore>> BenchStore::Open(const BenchOptions& options) {
  std::unique_ptr<BenchStore> bench(new BenchStore());
  if (!options.config_file.empty()) {
    ASSIGN_OR_RETURN(bench->config_, LoadConfigFile(options.config_file));
  }
  if (options.flat) bench->config_ = FlatBaseline(std::move(bench->config_));
  if (!options.embedder_kind.empty()) {
    bench->config_.embedder.kind = options.embedder_kind;
    RETURN_IF_ERROR(bench->config_.Validate().WithContext("[embedder] kind"));
  }
  if (options.store_path.empty()) {
    std::error_code error;
    std::filesystem::path base = std::filesystem::temp_directory_path(error);
    if (error) base = "/tmp";
    std::string pattern = (base / "engram-bench-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) {
      return Status::Unavailable("cannot create a temporary directory under " + base.string());
    }
    bench->temp_dir_ = pattern;
    bench->store_path_ = (std::filesystem::path(pattern) / "bench.db").string();
  } else {
    bench->store_path_ = options.store_path;
  }
  EngineOptions engine_options;
  engine_options.store_path = bench->store_path_;
  engine_options.data_dir = options.data_dir;
  engine_options.config = bench->config_;
  engine_options.create_if_missing = true;
  ASSIGN_OR_RETURN(bench->engine_, Engine::Open(engine_options));
  return bench;
}

BenchStore::~BenchStore() {
  engine_.reset();
  if (!temp_dir_.empty()) {
    std::error_code ignored;
    std::filesystem::remove_all(temp_dir_, ignored);
  }
}

namespace {

// One recall ("warm-up"), so the scope's projection is built before the timed recalls; timed
// into stats->seconds and stats->first_recall_seconds.
Status WarmUp(Engine& engine, const Scope& scope, IngestStats* stats) {
  const auto started = std::chrono::steady_clock::now();
  StatusOr<ReadResult> warm_up = engine.Recall(scope, {.text = "warm-up"}, {});
  const double seconds = MillisSince(started) / 1000.0;
  stats->seconds += seconds;
  stats->first_recall_seconds += seconds;
  if (!warm_up.ok()) return warm_up.status().WithContext("first recall of " + scope.ToString());
  return Status::Ok();
}

}  // namespace

StatusOr<std::vector<std::string>> IngestFresh(Engine& engine, const Scope& scope,
                                               std::span<const Turn> turns, IngestStats* stats) {
  StatusOr<std::vector<Memory>> existing = engine.List(scope, {.limit = 1});
  if (existing.ok()) {
    return Status::AlreadyExists("scope " + scope.ToString() +
                                 " already exists in the store; bench needs fresh scopes (use a "
                                 "new --store path or none)");
  }
  if (existing.status().code() != StatusCode::kNotFound) return existing.status();
  std::vector<std::string> ids;
  ids.reserve(turns.size());
  std::size_t begin = 0;
  while (begin < turns.size()) {
    std::size_t end = begin + 1;
    while (end < turns.size() && turns[end].session_id == turns[begin].session_id) ++end;
    const auto started = std::chrono::steady_clock::now();
    StatusOr<RememberResult> remembered = engine.Remember(scope, turns.subspan(begin, end - begin));
    stats->seconds += MillisSince(started) / 1000.0;
    if (!remembered.ok()) {
      return remembered.status().WithContext("remembering " + scope.ToString() + " session \"" +
                                             turns[begin].session_id + "\"");
    }
    ids.insert(ids.end(), remembered->ids.begin(), remembered->ids.end());
    stats->turns += end - begin;
    begin = end;
  }
  RETURN_IF_ERROR(WarmUp(engine, scope, stats));
  return ids;
}

Status ConsolidateScope(Engine& engine, const Scope& scope, IngestStats* stats) {
  const auto started = std::chrono::steady_clock::now();
  StatusOr<ConsolidateResult> result = engine.Consolidate(scope);
  stats->consolidate_seconds += MillisSince(started) / 1000.0;
  if (!result.ok()) return result.status().WithContext("consolidating " + scope.ToString());
  ++stats->consolidated_scopes;
  stats->consolidated_turns += result->turns;
  return Status::Ok();
}

StatusOr<std::vector<std::string>> IngestOrReuse(Engine& engine, const Scope& scope,
                                                 std::span<const Turn> turns, bool reuse,
                                                 IngestStats* stats) {
  if (!reuse) return IngestFresh(engine, scope, turns, stats);
  ListOptions list;
  list.limit = turns.size() + 1;
  StatusOr<std::vector<Memory>> stored = engine.List(scope, list);
  if (!stored.ok() && stored.status().code() == StatusCode::kNotFound) {
    return IngestFresh(engine, scope, turns, stats);
  }
  if (!stored.ok()) return stored.status();
  const std::string where = "stored scope " + scope.ToString();
  if (stored->size() != turns.size()) {
    return Status::FailedPrecondition(where + " holds " + std::to_string(stored->size()) +
                                      " turns, the benchmark file " + std::to_string(turns.size()) +
                                      "; use a new --store");
  }
  std::vector<std::string> ids;
  ids.reserve(turns.size());
  for (std::size_t i = 0; i < turns.size(); ++i) {
    const Memory& memory = (*stored)[i];
    const Turn& turn = turns[i];
    if (memory.text != turn.text || memory.speaker != turn.speaker ||
        memory.session_id != turn.session_id) {
      return Status::FailedPrecondition(where + " differs from the benchmark file at turn " +
                                        std::to_string(i + 1) + "; use a new --store");
    }
    ids.push_back(memory.id);
  }
  ++stats->reused_scopes;
  RETURN_IF_ERROR(WarmUp(engine, scope, stats));
  return ids;
}

StatusOr<Recalls> Ask(Engine& engine, const Scope& scope, const RecallQuery& query,
                      const AskSettings& settings) {
  Recalls recalls;
  RecallOptions user_options;
  user_options.routes = settings.routes;
  const double cpu_started = ThreadCpuMillis();
  auto started = std::chrono::steady_clock::now();
  ASSIGN_OR_RETURN(recalls.user, engine.Recall(scope, query, user_options));
  recalls.user_ms = MillisSince(started);
  recalls.user_cpu_ms = ThreadCpuMillis() - cpu_started;

  RecallOptions eval_options;
  eval_options.routes = settings.routes;
  eval_options.pack_by_value = false;  // the items are the ranking itself
  eval_options.k = settings.eval_k;
  eval_options.token_budget = kEvalTokenBudget;
  started = std::chrono::steady_clock::now();
  ASSIGN_OR_RETURN(recalls.eval, engine.Recall(scope, query, eval_options));
  recalls.eval_ms = MillisSince(started);

  if (settings.trace) {
    RecallOptions trace_options = eval_options;
    trace_options.k = kTraceK;
    trace_options.features = true;  // the learned ranker's inputs, to retrain it from the trace
    ASSIGN_OR_RETURN(recalls.trace, engine.Recall(scope, query, trace_options));
  }
  return recalls;
}

std::vector<std::string> KeyRanking(std::span<const RecallItem> items, const TurnTable& turns) {
  const std::vector<std::string> ranking = TurnRanking(items);
  return MapRanking(ranking, [&turns](const std::string& id) -> std::optional<std::string> {
    const auto found = turns.find(id);
    if (found == turns.end()) return std::nullopt;
    return found->second.key;
  });
}

std::vector<std::string> ItemKeys(const RecallItem& item, const TurnTable& turns) {
  return KeyRanking(std::span<const RecallItem>(&item, 1), turns);
}

void CostStats::Add(const Recalls& recalls) {
  context_tokens.push_back(static_cast<double>(recalls.user.diagnostics.context_tokens));
  latency_ms.push_back(recalls.user_ms);
  cpu_ms.push_back(recalls.user_cpu_ms);
}

io::Json ContextTokensJson(const CostStats& cost) {
  Json json = Json::object();
  json["mean"] = Mean(cost.context_tokens);
  json["p50"] = Percentile(cost.context_tokens, 50);
  json["p95"] = Percentile(cost.context_tokens, 95);
  return json;
}

namespace {

// {"p50", "p95", "p99"} of a sample of milliseconds.
io::Json TailPercentilesJson(const std::vector<double>& values) {
  Json json = Json::object();
  json["p50"] = Percentile(values, 50);
  json["p95"] = Percentile(values, 95);
  json["p99"] = Percentile(values, 99);
  return json;
}

}  // namespace

io::Json LatencyJson(const CostStats& cost) { return TailPercentilesJson(cost.latency_ms); }

io::Json CpuJson(const CostStats& cost) { return TailPercentilesJson(cost.cpu_ms); }

io::Json IngestJson(const IngestStats& ingest) {
  Json json = Json::object();
  json["turns"] = ingest.turns;
  json["seconds"] = ingest.seconds;
  json["reused_scopes"] = ingest.reused_scopes;
  if (ingest.consolidated_scopes > 0) {
    json["consolidated_scopes"] = ingest.consolidated_scopes;
    json["consolidate_seconds"] = ingest.consolidate_seconds;
    json["consolidate_seconds_per_1000_turns"] =
        ingest.consolidated_turns > 0
            ? ingest.consolidate_seconds * 1000.0 / static_cast<double>(ingest.consolidated_turns)
            : 0.0;
  }
  json["turns_per_s"] =
      ingest.seconds > 0 ? static_cast<double>(ingest.turns) / ingest.seconds : 0.0;
  return json;
}

std::vector<std::string> ContextFates(const Recalls& recalls, const TurnTable& turns,
                                      std::span<const std::string> gold_keys) {
  const std::vector<std::string> packed_keys = KeyRanking(recalls.user.items, turns);
  const std::set<std::string> packed(packed_keys.begin(), packed_keys.end());
  std::map<std::string, std::string> reason_by_id;
  for (const UnpackedItem& unpacked : recalls.user.diagnostics.unpacked) {
    reason_by_id.emplace(unpacked.id, unpacked.reason);
  }
  const ReadResult& widest = recalls.trace.has_value() ? *recalls.trace : recalls.eval;
  std::map<std::string, std::string> reason_by_key;  // of the best-ranked item holding the key
  std::set<std::string> ranked;
  for (const RecallItem& item : widest.items) {
    const auto reason = reason_by_id.find(item.id);
    for (const std::string& key : ItemKeys(item, turns)) {
      ranked.insert(key);
      if (reason != reason_by_id.end()) reason_by_key.emplace(key, reason->second);
    }
  }
  std::vector<std::string> fates;
  fates.reserve(gold_keys.size());
  for (const std::string& key : gold_keys) {
    if (packed.contains(key)) {
      fates.emplace_back("packed");
    } else if (const auto reason = reason_by_key.find(key); reason != reason_by_key.end()) {
      fates.push_back(reason->second);
    } else if (ranked.contains(key)) {
      fates.emplace_back("k");
    } else {
      fates.emplace_back(recalls.trace.has_value() ? "never_ranked" : "below_eval_k");
    }
  }
  return fates;
}

void ContextSums::Add(const EvidenceInContext& evidence, double tokens,
                      std::optional<bool> answer, std::span<const std::string> fates) {
  ++count_;
  all_ += evidence.all;
  any_ += evidence.any;
  tokens_.push_back(tokens);
  if (answer.has_value()) {
    ++answer_count_;
    answer_found_ += *answer ? 1 : 0;
  }
  for (const std::string& fate : fates) {
    if (fate != "packed") ++missed_[fate];
  }
}

void SufficiencySums::Add(const Sufficiency& sufficiency) {
  if (sufficiency.verdict == "insufficient") {
    ++insufficient_;
  } else if (sufficiency.verdict == "partial") {
    ++partial_;
  } else {
    ++sufficient_;
  }
}

io::Json SufficiencySums::ToJson() const {
  Json json = Json::object();
  json["questions"] = count();
  json["sufficient"] = sufficient_;
  json["partial"] = partial_;
  json["insufficient"] = insufficient_;
  json["insufficient_share"] =
      count() == 0 ? 0.0 : static_cast<double>(insufficient_) / static_cast<double>(count());
  return json;
}

io::Json SufficiencyReport(const SufficiencySums& no_evidence, const SufficiencySums& answerable,
                           const std::map<std::string, SufficiencySums>& by_category) {
  Json json = Json::object();
  json["no_evidence"] = no_evidence.ToJson();
  json["answerable"] = answerable.ToJson();
  const std::size_t flagged = no_evidence.insufficient() + answerable.insufficient();
  json["insufficient_precision"] =
      flagged == 0 ? Json(nullptr)
                   : Json(static_cast<double>(no_evidence.insufficient()) /
                          static_cast<double>(flagged));
  json["insufficient_recall"] =
      no_evidence.count() == 0 ? Json(nullptr)
                               : Json(static_cast<double>(no_evidence.insufficient()) /
                                      static_cast<double>(no_evidence.count()));
  Json categories = Json::object();
  for (const auto& [category, sums] : by_category) categories[category] = sums.ToJson();
  json["by_category"] = std::move(categories);
  return json;
}

io::Json ContextSums::ToJson(bool score_answers, bool fates) const {
  Json json = Json::object();
  const double count = static_cast<double>(count_);
  json["questions"] = count_;
  json["evidence_all"] = count_ == 0 ? 0.0 : all_ / count;
  json["evidence_any"] = count_ == 0 ? 0.0 : any_ / count;
  json["tokens_mean"] = Mean(tokens_);
  json["tokens_p95"] = Percentile(tokens_, 95);
  if (score_answers) {
    json["answer_questions"] = answer_count_;
    json["answer_in_context"] =
        answer_count_ == 0 ? Json(nullptr)
                           : Json(static_cast<double>(answer_found_) /
                                  static_cast<double>(answer_count_));
  }
  if (fates) {
    Json missed = Json::object();
    for (const std::string_view fate : kMissedFates) {
      const auto found = missed_.find(fate);
      missed[std::string(fate)] = found == missed_.end() ? 0 : found->second;
    }
    json["missed_gold_turns"] = std::move(missed);
  }
  return json;
}

void MetricSums::Add(const std::vector<std::pair<std::string, double>>& values) {
  if (sums_.empty()) {
    for (const auto& [key, value] : values) sums_.emplace_back(key, 0.0);
  }
  for (std::size_t value_idx = 0; value_idx < values.size() && value_idx < sums_.size();
       ++value_idx) {
    sums_[value_idx].second += values[value_idx].second;
  }
  ++count_;
}

io::Json MetricSums::Averages() const {
  Json json = Json::object();
  for (const auto& [key, sum] : sums_) {
    json[key] = count_ == 0 ? 0.0 : sum / static_cast<double>(count_);
  }
  return json;
}

io::Json ConfigJson(const BenchStore& store, const BenchOptions& options,
                    std::span<const std::size_t> ks, std::size_t eval_k, const ReadResult* first) {
  const Config& config = store.config();
  Json json = Json::object();
  Json routes = Json::array();
  // Base weights ([recall.route_weights]; unnamed routes weigh 1) of the routes that ran; the
  // planner may replace them per question shape (the "planner" record), and each trace line
  // has the weights its question used.
  Json weights = Json::object();
  if (first != nullptr) {
    for (const RouteDiagnostics& route : first->diagnostics.routes) {
      routes.push_back(route.route);
      const auto base = config.recall.route_weights.find(route.route);
      weights[route.route] = base == config.recall.route_weights.end() ? 1.0 : base->second;
    }
  }
  json["routes"] = std::move(routes);
  json["routes_requested"] = options.flat             ? Json("flat baseline")
                             : options.routes.empty() ? Json("planner default")
                                                      : StringsJson(options.routes);
  json["flat"] = options.flat;
  if (options.flat) {
    json["flat_baseline"] =
        "only the bm25 route; planner off, neighbour expansion off (neighbour_weight 0), person "
        "boost off (1), stemming off (bm25.stem false), no embedder; one document per turn "
        "(speaker name + text, lowercase word tokens, stopwords dropped)";
  }
  json["route_weights"] = std::move(weights);
  Json planner = Json::object();
  planner["enabled"] = config.planner.enabled;
  Json shapes = Json::object();
  for (const auto& [shape, values] : config.planner.shapes) {
    Json entries = Json::object();
    for (const auto& [key, value] : values) entries[key] = value;
    shapes[shape] = std::move(entries);
  }
  planner["shapes"] = std::move(shapes);
  json["planner"] = std::move(planner);
  // Every key of every section, from the config key table (src/config/config_table.h), so the
  // report records the whole configuration the run used.
  Json settings = Json::object();
  for (const config::KeySpec& spec : config::Keys()) {
    Json& section = settings[std::string(spec.section)];
    std::visit([&](const auto& value) { section[std::string(spec.key)] = value; },
               spec.Get(config));
  }
  json["settings"] = std::move(settings);
  Json cutoffs = Json::array();
  for (const std::size_t k : ks) cutoffs.push_back(k);
  json["ks"] = std::move(cutoffs);
  Json budgets = Json::object();
  Json user = Json::object();
  user["k"] = config.recall.pack_by_value ? config.recall.pack_max_items : config.recall.max_items;
  user["packing"] = config.recall.pack_by_value ? "by value ([recall] pack_*; k an upper bound)"
                                                : "rank order ([recall] max_items)";
  user["token_budget"] = config.recall.token_budget;
  user["token_budget_note"] = "times the planner's budget_scale of the question's shape";
  user["purpose"] = "context_tokens and latency_ms: what a user gets at default settings";
  budgets["user"] = std::move(user);
  Json evaluation = Json::object();
  evaluation["k"] = eval_k;
  evaluation["token_budget"] = kEvalTokenBudget;
  evaluation["purpose"] = "metrics: turn ranking of the top items, never cut by the budget";
  budgets["eval"] = std::move(evaluation);
  if (!options.trace_path.empty()) {
    Json trace = Json::object();
    trace["k"] = kTraceK;
    trace["token_budget"] = kEvalTokenBudget;
    trace["purpose"] = "trace only: every fused candidate of every route";
    budgets["trace"] = std::move(trace);
  }
  json["recalls"] = std::move(budgets);
  json["embedder"] = EmbedderModelId(config.embedder);
  json["engine_version"] = EngineVersion();
  json["config_file"] = options.config_file;
  json["store"] = store.temporary() ? std::string("temporary") : store.store_path();
  json["ingest_timing"] =
      "Remember calls (one per session) plus each scope's first recall, which builds its BM25 "
      "projection";
  return json;
}

io::Json TraceRecallJson(const Recalls& recalls, const TurnTable& turns,
                         std::span<const std::string> gold_keys, std::size_t eval_k) {
  const ReadResult& widest = recalls.trace.has_value() ? *recalls.trace : recalls.eval;
  Json json = Json::object();

  // The plan as the diagnostics expose it: which routes ran with which weight, how many
  // candidates each gave, what fusion and the filters did.
  Json plan = Json::object();
  plan["query"] = widest.query;
  plan["policy"] = widest.policy;
  plan["frame"] = widest.diagnostics.frame;
  plan["planner"] = widest.diagnostics.plan;
  plan["neighbours_added"] = widest.diagnostics.neighbours_added;
  plan["bridged"] = widest.diagnostics.bridged;
  plan["ranker"] = widest.diagnostics.ranker;
  if (!widest.diagnostics.feature_names.empty()) {
    plan["feature_names"] = StringsJson(widest.diagnostics.feature_names);
  }
  Json plan_routes = Json::array();
  for (const RouteDiagnostics& route : widest.diagnostics.routes) {
    Json entry = Json::object();
    entry["route"] = route.route;
    entry["weight"] = route.weight;
    entry["candidates"] = route.candidates;
    entry["error"] = route.error;
    plan_routes.push_back(std::move(entry));
  }
  plan["routes"] = std::move(plan_routes);
  plan["fused_candidates"] = widest.diagnostics.fused_candidates;
  plan["filtered_out"] = widest.diagnostics.filtered_out;
  plan["warnings"] = StringsJson(widest.diagnostics.warnings);
  json["plan"] = std::move(plan);

  // Each route's candidates (rank, score) and the fused list, from the widest recall.
  std::map<std::string, std::vector<std::pair<std::size_t, Json>>> by_route;
  // Best rank of each key in each route.
  std::map<std::string, std::map<std::string, std::pair<std::size_t, double>>> key_routes;
  Json fused = Json::array();
  std::size_t fused_rank = 0;
  for (const RecallItem& item : widest.items) {
    ++fused_rank;
    const std::vector<std::string> keys = ItemKeys(item, turns);
    Json fused_entry = Json::object();
    fused_entry["rank"] = fused_rank;
    fused_entry["id"] = item.id;
    fused_entry["kind"] = NodeKindName(item.kind);
    fused_entry["turns"] = StringsJson(keys);
    fused_entry["fused_score"] = item.fused_score;
    fused_entry["score"] = item.score;
    if (!item.features.empty()) {
      Json features = Json::array();
      for (const double value : item.features) {
        features.push_back(std::isfinite(value) ? Json(value) : Json());  // missing: null
      }
      fused_entry["features"] = std::move(features);
    }
    if (!item.adjustments.empty()) {
      Json adjustments = Json::array();
      for (const Adjustment& adjustment : item.adjustments) {
        Json entry = Json::object();
        entry["name"] = adjustment.name;
        entry["factor"] = adjustment.factor;
        entry["bonus"] = adjustment.bonus;
        entry["detail"] = adjustment.detail;
        adjustments.push_back(std::move(entry));
      }
      fused_entry["adjustments"] = std::move(adjustments);
    }
    fused.push_back(std::move(fused_entry));
    for (const RouteScore& route : item.routes) {
      Json entry = Json::object();
      entry["rank"] = route.rank;
      entry["score"] = route.score;
      entry["id"] = item.id;
      entry["turns"] = StringsJson(keys);
      by_route[route.route].emplace_back(route.rank, std::move(entry));
      for (const std::string& key : keys) {
        auto& best = key_routes[key];
        const auto found = best.find(route.route);
        if (found == best.end() || route.rank < found->second.first) {
          best[route.route] = {route.rank, route.score};
        }
      }
    }
  }
  Json candidates = Json::object();
  for (const RouteDiagnostics& route : widest.diagnostics.routes) {
    auto& list = by_route[route.route];
    std::stable_sort(list.begin(), list.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    Json entries = Json::array();
    for (auto& [rank, entry] : list) entries.push_back(std::move(entry));
    candidates[route.route] = std::move(entries);
  }
  json["candidates"] = std::move(candidates);
  json["fused"] = std::move(fused);

  // The evaluated ranking and its items.
  std::vector<std::string> ranking = KeyRanking(recalls.eval.items, turns);
  if (ranking.size() > eval_k) ranking.resize(eval_k);
  json["ranking"] = StringsJson(ranking);
  Json items = Json::array();
  std::size_t item_rank = 0;
  for (const RecallItem& item : recalls.eval.items) {
    Json entry = Json::object();
    entry["rank"] = ++item_rank;
    entry["turns"] = StringsJson(ItemKeys(item, turns));
    Json fields = io::ToJson(item);
    for (auto field = fields.begin(); field != fields.end(); ++field) {
      entry[field.key()] = std::move(field.value());
    }
    items.push_back(std::move(entry));
  }
  json["items"] = std::move(items);

  // What the user recall packed.
  std::set<std::string> packed;
  Json packed_turns = Json::array();
  for (const std::string& key : KeyRanking(recalls.user.items, turns)) {
    packed.insert(key);
    packed_turns.push_back(key);
  }
  json["packed_turns"] = std::move(packed_turns);
  json["context"] = recalls.user.context;
  json["context_tokens"] = recalls.user.diagnostics.context_tokens;

  Json recall_summaries = Json::object();
  recall_summaries["user"] = RecallSummaryJson(recalls.user, recalls.user_ms, recalls.user_cpu_ms);
  recall_summaries["eval"] = RecallSummaryJson(recalls.eval, recalls.eval_ms);
  if (recalls.trace.has_value()) {
    recall_summaries["trace"] = RecallSummaryJson(*recalls.trace, recalls.trace->latency_ms);
  }
  json["recalls"] = std::move(recall_summaries);

  // Where each gold turn ended up.
  const std::vector<std::string> fates = ContextFates(recalls, turns, gold_keys);
  const EvidenceInContext evidence = EvidenceIn(KeyRanking(recalls.user.items, turns), gold_keys);
  Json in_context = Json::object();
  in_context["all"] = evidence.all;
  in_context["any"] = evidence.any;
  json["evidence_in_context"] = std::move(in_context);
  Json gold = Json::array();
  for (std::size_t gold_idx = 0; gold_idx < gold_keys.size(); ++gold_idx) {
    const std::string& key = gold_keys[gold_idx];
    Json entry = Json::object();
    entry["key"] = key;
    entry["context_fate"] = fates[gold_idx];
    const auto rank_it = std::find(ranking.begin(), ranking.end(), key);
    const bool in_top_k = rank_it != ranking.end();
    const auto routes_it = key_routes.find(key);
    const bool candidate = routes_it != key_routes.end();
    std::string status = "never_retrieved";
    if (packed.contains(key)) {
      status = "packed";
    } else if (in_top_k) {
      status = "in_top_k";
    } else if (candidate) {
      status = "ranked_out";
    }
    entry["status"] = status;
    entry["eval_rank"] =
        in_top_k ? Json(static_cast<std::size_t>(rank_it - ranking.begin()) + 1) : Json(nullptr);
    Json routes = Json::object();
    if (candidate) {
      for (const auto& [route, rank_score] : routes_it->second) {
        Json route_entry = Json::object();
        route_entry["rank"] = rank_score.first;
        route_entry["score"] = rank_score.second;
        routes[route] = std::move(route_entry);
      }
    }
    entry["routes"] = std::move(routes);
    gold.push_back(std::move(entry));
  }
  json["gold_turns"] = std::move(gold);
  return json;
}

StatusOr<std::unique_ptr<TraceWriter>> TraceWriter::Open(const std::string& path) {
  auto writer = std::make_unique<TraceWriter>();
  if (path.empty()) return writer;
  writer->path_ = path;
  writer->out_.open(path, std::ios::out | std::ios::trunc | std::ios::binary);
  if (!writer->out_) return Status::Unavailable("cannot write the trace file " + path);
  return writer;
}

Status TraceWriter::Write(const io::Json& line) {
  if (path_.empty()) return Status::Ok();
  out_ << io::Dump(line) << '\n';
  if (!out_) return Status::Unavailable("writing the trace file " + path_ + " failed");
  return Status::Ok();
}

Status TraceWriter::Close() {
  if (path_.empty()) return Status::Ok();
  out_.close();
  if (!out_) return Status::Unavailable("closing the trace file " + path_ + " failed");
  return Status::Ok();
}

StatusOr<std::vector<std::size_t>> NormalizeKs(std::vector<std::size_t> ks,
                                               std::vector<std::size_t> defaults) {
  if (ks.empty()) ks = std::move(defaults);
  for (const std::size_t k : ks) {
    if (k == 0) return Status::InvalidArgument("cut-off k must be at least 1");
  }
  std::sort(ks.begin(), ks.end());
  ks.erase(std::unique(ks.begin(), ks.end()), ks.end());
  return ks;
}

std::string Excerpt(const std::string& text, std::size_t max_bytes) {
  if (text.size() <= max_bytes) return text;
  std::size_t cut = max_bytes;
  // Do not split a UTF-8 sequence: back up to a lead byte.
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return text.substr(0, cut) + "...";
}

}  // namespace internal
}  // namespace engram::eval

namespace engram::eval::internal {

void AddTraceRecall(io::Json& line, const Recalls& recalls, const TurnTable& turns,
                    std::span<const std::string> gold_keys, std::size_t eval_k,
                    const std::map<std::string, TurnInfo>& by_key) {
  io::Json recall_fields = TraceRecallJson(recalls, turns, gold_keys, eval_k);
  for (auto field = recall_fields.begin(); field != recall_fields.end(); ++field) {
    line[field.key()] = std::move(field.value());
  }
  for (io::Json& gold : line["gold_turns"]) {
    const auto found = by_key.find(gold["key"].get<std::string>());
    gold["in_data"] = found != by_key.end();
    if (found != by_key.end()) {
      gold["session"] = found->second.session;
      gold["speaker"] = found->second.speaker;
      gold["text"] = found->second.text;
    }
  }
}

}  // namespace engram::eval::internal
